/*
 * Placeholder until the nccl_log parser lands.
 */
#include "config.h"

#include "parsers.h"

#include "hd-error.h"
#include "hd-banned.h"

bool nccl_log_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		GError **error)
{
	g_set_error(error, HD_ERROR, HD_ERROR_UNSUPPORTED,
		    "nccl_log parser not built yet");
	return false;
}
