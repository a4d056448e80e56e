/*
 * libFuzzer entry for the parsers of what on-call collects after a hang
 * (issue 21), other than py-spy (fuzz_pyspy.c) and the crash output inside
 * text logs (fuzz_nccl_log.c): kernel logs, InfiniBand state, GPU state,
 * gdb backtraces, torchelastic error files, NCCL topology dumps and NCCL
 * Inspector output.  The first byte picks the parser (kinds[] below, by
 * its value modulo the table's size); the rest is one input (possibly gzip
 * or zstd), parsed into a fresh store as that kind, then sniffed as a
 * real load would.  The seeds in tests/fuzz/corpus-hostlogs start with
 * the letter kinds[] names for their kind.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "hd-input.h"
#include "hd-store.h"
#include "parsers.h"
#include "hd-banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Indexed by the first byte modulo 7; a seed's first byte is the letter
 * given here, whose value modulo 7 is its index.
 */
static const enum hd_input_kind kinds[] = {
	HD_INPUT_GDB, /* 'b' */
	HD_INPUT_TORCHELASTIC, /* 'j' */
	HD_INPUT_KERNEL_LOG, /* 'd' */
	HD_INPUT_NCCL_TOPO, /* 'l' */
	HD_INPUT_GPU_STATE, /* 'f' */
	HD_INPUT_NCCL_INSPECTOR, /* 'n' */
	HD_INPUT_IB_STATE, /* 'a' */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hd_reader *rd;

	if (size < 1)
		return 0;
	rd = hd_reader_new_from_memory(data + 1, size - 1, NULL);
	if (rd) {
		hd_store_free(parsers_parse_input(
			rd, "fuzz.txt", kinds[data[0] % G_N_ELEMENTS(kinds)]));
		hd_reader_free(rd);
	}
	(void)parsers_sniff(data + 1, size - 1);
	return 0;
}
