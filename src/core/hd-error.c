/*
 * hangdoc's GError domain.
 */
#include "config.h"

#include "hd-error.h"

#include "hd-banned.h"

G_DEFINE_QUARK(hangdoc - error - quark, hd_error)
