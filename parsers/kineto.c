/*
 * Placeholder until the kineto parser lands.
 */
#include "config.h"

#include "parsers.h"

#include "hd-error.h"
#include "hd-banned.h"

bool kineto_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		GError **error)
{
	g_set_error(error, HD_ERROR, HD_ERROR_UNSUPPORTED,
		    "kineto parser not built yet");
	return false;
}
