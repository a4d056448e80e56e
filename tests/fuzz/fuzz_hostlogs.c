/*
 * libFuzzer entry for the host-state parsers of issue 21: the first byte
 * picks the parser (a multiple of 3: GPU state, else odd: InfiniBand
 * state, else the kernel log), the rest is one
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
	struct hd_reader *rd;
	enum hd_input_kind kind;

	if (size < 1)
		return 0;
	kind = data[0] % 3 == 0 ? HD_INPUT_GPU_STATE
	       : (data[0] & 1)	? HD_INPUT_IB_STATE
				: HD_INPUT_KERNEL_LOG;
	rd = hd_reader_new_from_memory(data + 1, size - 1, NULL);
	if (rd) {
		hd_store_free(parsers_parse_input(rd, "fuzz.txt", kind));
		hd_reader_free(rd);
	}
	return 0;
}
