/*
 * libFuzzer entry for the NCCL_DEBUG / c10d log parser: the bytes are one
 * input (possibly gzip or zstd), parsed into a fresh store.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "hd-input.h"
#include "hd-store.h"
#include "parsers.h"
#include "hd-banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hd_reader *rd = hd_reader_new_from_memory(data, size, NULL);

	if (rd) {
		hd_store_free(
			parsers_parse_input(rd, "fuzz.log", HD_INPUT_NCCL_LOG));
		hd_reader_free(rd);
	}
	return 0;
}
