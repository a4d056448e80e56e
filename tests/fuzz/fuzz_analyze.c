/*
 * libFuzzer target for the engine and the reports: the bytes are up to four
 * flight-recorder dumps of one incident, run through what `hangdoc analyze`
 * does after reading files.  Nothing may crash, hang or blow up memory,
 * however the dumps disagree with each other.
 *
 * Input format: the parts are separated by the 4 bytes "\xfeHD\xfe" (a
 * byte pair that PyTorch's pickler does not emit around ASCII, so a real
 * dump is never cut).  Part i is the dump of rank i, named
 * "nccl_trace_rank_<i>"; from the fifth part on the rest is ignored.  A
 * seed is made by joining real dumps with the separator, e.g.
 *   printf '\376HD\376' > sep; cat r0 sep r1 sep r2 > seed
 *
 * Each part is parsed into a store of its own and the stores are merged in
 * order, then resolved, as hd_load() does; the engine runs as in
 * cmd-analyze.c and the text, JSON and Markdown reports are written to
 * /dev/null.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hd-engine.h"
#include "hd-input.h"
#include "hd-report.h"
#include "hd-store.h"
#include "parsers.h"
#include "hd-banned.h"

#define FUZZ_MAX_PARTS 4

static const uint8_t separator[4] = { 0xfe, 'H', 'D', 0xfe };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* The part starting at data, up to the next separator or the end. */
static size_t part_len(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, separator, sizeof(separator));

	return sep ? (size_t)(sep - data) : size;
}

/* Parses one dump into a fresh store, as the loader does. */
static struct hd_store *parse_part(const uint8_t *data, size_t size, int rank)
{
	g_autofree char *path = g_strdup_printf("nccl_trace_rank_%d", rank);
	struct hd_reader *rd = hd_reader_new_from_memory(data, size, NULL);
	struct hd_store *s;

	if (!rd) {
		s = hd_store_new();
		hd_store_input(s, hd_store_add_input(s, path))->error =
			g_strdup("cannot read");
		return s;
	}
	s = parsers_parse_input(rd, path, HD_INPUT_FLIGHT_REC);
	hd_reader_free(rd);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hd_store *store = hd_store_new();
	struct hd_analysis *a;
	size_t off = 0;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	for (int i = 0; i < FUZZ_MAX_PARTS && off <= size; i++) {
		size_t n = part_len(data + off, size - off);

		hd_store_merge(store, parse_part(data + off, n, i));
		off += n + sizeof(separator);
	}
	parsers_release_buffers();
	hd_store_resolve(store);

	a = hd_engine_run(store);
	(void)hd_analysis_has_fault(a);
	(void)hd_report_write(devnull, HD_REPORT_TEXT, a);
	(void)hd_report_write(devnull, HD_REPORT_JSON, a);
	(void)hd_report_write(devnull, HD_REPORT_MARKDOWN, a);
	hd_analysis_free(a);
	hd_store_free(store);
	return 0;
}
