/*
 * hangdoc's GError domain, shared by every module.
 */
#ifndef HD_ERROR_H
#define HD_ERROR_H

#include <glib.h>

#define HD_ERROR (hd_error_quark())

enum hd_error_code {
	HD_ERROR_IO, /* the OS refused: open, read, map */
	HD_ERROR_FORMAT, /* the bytes are not what the format says */
	HD_ERROR_TOO_BIG, /* a size from the input exceeds a limit */
	HD_ERROR_REFUSED, /* the input asks for something never done (pickle GLOBAL) */
	HD_ERROR_USAGE, /* bad command line or plan */
	HD_ERROR_UNSUPPORTED,
};

GQuark hd_error_quark(void);

#endif
