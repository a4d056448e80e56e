/*
 * libFuzzer entry for the digest reader (docs/format-digest.md): the bytes are one
 * input (possibly gzip or zstd), decoded into a fresh store.  The corpus
 * holds uncompressed digests, so mutations reach the layout.
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
			parsers_parse_input(rd, "fuzz.hdd", HD_INPUT_DIGEST));
		hd_reader_free(rd);
	}
	return 0;
}
