/*
 * libFuzzer entry for the NCCL_DEBUG / c10d log parser: the bytes are one
 * input (possibly gzip or zstd), parsed into a fresh store, twice: with
 * the COLL fast path and without it.  The two stores must be the same
 * (tests/unit/hd-test-same.h); a difference aborts, naming it.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats.h"
#include "hd-input.h"
#include "hd-store.h"
#include "hd-test-same.h"
#include "parsers.h"
#include "hd-banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hd_store *parse(const uint8_t *data, size_t size, bool fast)
{
	struct hd_reader *rd = hd_reader_new_from_memory(data, size, NULL);
	struct hd_store *s;

	if (!rd)
		return NULL;
	nccl_log_set_fast(fast);
	s = parsers_parse_input(rd, "fuzz.log", HD_INPUT_NCCL_LOG);
	hd_reader_free(rd);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hd_store *fast = parse(data, size, true);
	struct hd_store *slow = parse(data, size, false);
	char *diff;

	nccl_log_set_fast(true);
	if (fast && slow) {
		diff = hd_test_store_diff(fast, slow);
		if (diff) {
			fprintf(stderr, "fast and slow parses differ: %s\n",
				diff);
			abort();
		}
	}
	hd_store_free(fast);
	hd_store_free(slow);
	return 0;
}
