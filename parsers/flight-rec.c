/*
 * Placeholder until the flight_rec parser lands.
 */
#include "config.h"

#include "parsers.h"

#include "hd-error.h"
#include "hd-banned.h"

bool flight_rec_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		GError **error)
{
	g_set_error(error, HD_ERROR, HD_ERROR_UNSUPPORTED,
		    "flight_rec parser not built yet");
	return false;
}
