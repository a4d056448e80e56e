/*
 * libFuzzer target for the whole pipeline on a mixed incident: one input
 * is split into several files of different kinds (NCCL/c10d logs,
 * flight-recorder pickles or JSON, Kineto traces, gzip or zstd of any of
 * them), loaded together by the loader itself (discovery, sniffing,
 * dedup, attempts, merge, resolve), analysed, and written by every
 * renderer: text, JSON, JSONL, Markdown, HTML, Perfetto, the show listing
 * (text and JSON), the triage row and table, diff against itself, and the
 * replay plan of each verdict.  Nothing may crash, hang or blow up
 * memory, however the inputs disagree with each other.
 *
 * Input format: byte 0 holds the options (bit 0: --merge; bits 1-2: the
 * job attempt to keep, 0 the last); the rest is up to MAX_PARTS parts
 * separated by the 4 bytes "\xfeHD\xfe" (as in fuzz_analyze.c).  The first
 * byte of each part names its file: NAMES[b % N_NAMES] with the rank
 * (b / N_NAMES) % 8, so one part can be "rank3.log" and the next
 * "nccl_trace_rank_1" or "worker2.pt.trace.json"; the content decides the
 * format, as in a real load.  A name of a host's folder takes the host
 * HOSTS[rank] instead ("hosts/node-b/state.txt"), so that host state the
 * lines do not name a host in is attributed by its path, as in a real
 * incident.  scripts/gen-fuzz-mixed-seeds.py writes seeds from the
 * fixtures.
 *
 * Part i is written below its own folder i of a private temporary
 * directory, emptied before each input and removed at exit, and the whole
 * is loaded with hd_load_with() on one thread.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "hd-diff.h"
#include "hd-engine.h"
#include "hd-load.h"
#include "hd-report-perfetto.h"
#include "hd-report-replay.h"
#include "hd-report-show.h"
#include "hd-report-triage.h"
#include "hd-report-diff.h"
#include "hd-report.h"
#include "hd-store.h"
#include "replay-plan.h"
#include "hd-banned.h"

#define MAX_PARTS 10

static const uint8_t separator[4] = { 0xfe, 'H', 'D', 0xfe };

/*
 * File names the loader and the rank-from-filename rules see: a prefix,
 * the rank (or, for a host's folder, the host HOSTS[rank]), a suffix.
 */
static const struct {
	const char *prefix;
	bool host;
	const char *suffix;
} NAMES[] = {
	{ "rank", false, ".log" },
	{ "nccl_trace_rank_", false, "" },
	{ "comm_lib_trace_rank_", false, ".json" },
	{ "worker", false, ".pt.trace.json" },
	{ "node-", false, ".log.gz" },
	{ "trace_rank_", false, ".pkl" },
	{ "job-", false, ".out" },
	{ "rank", false, ".json.zst" },
	{ "hosts/", true, "/state.txt" },
};
#define N_NAMES G_N_ELEMENTS(NAMES)

/* The hosts of the fixtures the seeds come from, and one no job ran on. */
static const char *const HOSTS[8] = { "node-a", "node-b", "trn-01", "trn-02",
				      "gpu-a",	"gpu-b",  "trn-17", "node-c" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;
static char *dir;

/* The part starting at data, up to the next separator or the end. */
static size_t part_len(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, separator, sizeof(separator));

	return sep ? (size_t)(sep - data) : size;
}

/*
 * Removes what is below path (at most a few levels: what write_parts()
 * made).
 */
static void empty_tree(const char *path, int depth)
{
	g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *sub = g_build_filename(path, name, NULL);

		if (depth < 4 && g_file_test(sub, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(sub, G_FILE_TEST_IS_SYMLINK)) {
			empty_tree(sub, depth + 1);
			(void)g_rmdir(sub);
		} else {
			(void)g_unlink(sub);
		}
	}
}

static void empty_dir(void)
{
	empty_tree(dir, 0);
}

static void remove_dir(void)
{
	empty_dir();
	(void)g_rmdir(dir);
}

/* Writes the parts of data as files; returns how many were written. */
static int write_parts(const uint8_t *data, size_t size)
{
	size_t off = 0;
	int n = 0;

	for (int i = 0; i < MAX_PARTS && off < size; i++) {
		size_t len = part_len(data + off, size - off);
		g_autofree char *base = NULL;
		g_autofree char *path = NULL;
		g_autofree char *folder = NULL;
		uint8_t b;

		if (len) {
			int r;

			b = data[off];
			r = (int)((b / N_NAMES) % 8);
			if (NAMES[b % N_NAMES].host)
				base = g_strconcat(
					NAMES[b % N_NAMES].prefix, HOSTS[r],
					NAMES[b % N_NAMES].suffix, NULL);
			else
				base = g_strdup_printf(
					"%s%d%s", NAMES[b % N_NAMES].prefix, r,
					NAMES[b % N_NAMES].suffix);
			/* two parts may pick one name: keep both */
			path = g_strdup_printf("%s/%d/%s", dir, i, base);
			folder = g_path_get_dirname(path);
			if (g_mkdir_with_parents(folder, 0700) == 0 &&
			    g_file_set_contents(path,
						(const char *)data + off + 1,
						(gssize)len - 1, NULL))
				n++;
		}
		off += len + sizeof(separator);
	}
	return n;
}

static void render_replay(const struct hd_analysis *a)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);
		g_autoptr(GError) err = NULL;
		struct replay_plan *p;

		if (!replay_verdict_is_replayable(v->kind))
			continue;
		p = replay_plan_from_verdict(a->store, v, 4, &err);
		if (!p)
			continue;
		hd_report_replay_plan(devnull, p, "fuzz", false);
		hd_report_replay_plan(devnull, p, NULL, true);
		replay_plan_free(p);
	}
}

/* show --rank 1,3-5 */
static bool some_ranks(const void *data, int r)
{
	(void)data;
	return r == 1 || (r >= 3 && r <= 5);
}

static void render_all(const struct hd_analysis *a)
{
	static const enum hd_report_format formats[] = {
		HD_REPORT_TEXT, HD_REPORT_JSON,	 HD_REPORT_MARKDOWN,
		HD_REPORT_HTML, HD_REPORT_JSONL,
	};
	const struct hd_report_opts opts = { .width = 40,
					     .generated_at = 0,
					     .elapsed_ms = -1,
					     .label = "fuzz" };
	/* the text report coloured and brief too */
	const struct hd_report_opts colored = { .width = 40,
						.generated_at = 0,
						.elapsed_ms = -1,
						.label = "fuzz",
						.color = true,
						.brief = true };
	static const char *const groups[] = { "0", "mesh_tp", NULL };
	const struct hd_show_filter all = { .seq_min = -1, .seq_max = -1 };
	const struct hd_show_filter some = { .want_rank = some_ranks,
					     .groups = groups,
					     .seq_min = 2,
					     .seq_max = 40,
					     .last = 3 };
	struct hd_perfetto_info info;
	g_autoptr(GPtrArray) ops = g_ptr_array_new();
	g_autoptr(GPtrArray) sigs = g_ptr_array_new();
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)hd_triage_row_free);
	g_autoptr(hd_diff) d = NULL;

	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
		(void)hd_report_write(devnull, formats[i], a);
		(void)hd_report_write_opts(devnull, formats[i], a, &opts);
	}
	(void)hd_report_write_opts(devnull, HD_REPORT_TEXT, a, &colored);
	(void)hd_report_perfetto(devnull, a, &info);
	/* analyze --rank/--group: every format through the filtered view */
	{
		g_autoptr(hd_report_filter) f = hd_report_filter_new(
			a, "1,3-5", some_ranks, NULL, groups, NULL);
		struct hd_report_opts fo = opts;

		fo.filter = f;
		for (size_t i = 0; f && i < G_N_ELEMENTS(formats); i++)
			(void)hd_report_write_opts(devnull, formats[i], a, &fo);
		if (f)
			(void)hd_report_write_opts(devnull, HD_REPORT_PERFETTO,
						   a, &fo);
	}
	hd_report_show_select(a->store, &all, ops, sigs);
	hd_report_show_text(devnull, a->store, ops, sigs);
	hd_report_show_json(devnull, a->store, ops, sigs);
	g_ptr_array_set_size(ops, 0);
	g_ptr_array_set_size(sigs, 0);
	hd_report_show_select(a->store, &some, ops, sigs);
	hd_report_show_text(devnull, a->store, ops, sigs);
	g_ptr_array_add(rows, hd_triage_row_new("a", a));
	g_ptr_array_add(rows, hd_triage_row_new("b", a));
	(void)hd_triage_write_jsonl(devnull, g_ptr_array_index(rows, 0));
	(void)hd_triage_write_table(devnull, rows, false);
	(void)hd_triage_write_table(devnull, rows, true);
	d = hd_diff_new(a, 1, "a", a, 1, "b");
	(void)hd_diff_write_text(devnull, d);
	(void)hd_diff_write_json(devnull, d);
	render_replay(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hd_load_opts o = { .jobs = 1 };
	char *paths[] = { NULL, NULL };
	struct hd_store *store;
	struct hd_analysis *a;
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!dir) {
		dir = g_dir_make_tmp("fuzz_mixed-XXXXXX", NULL);
		if (!dir)
			abort();
		atexit(remove_dir);
	}
	if (size < 1)
		return 0;
	empty_dir();
	if (!write_parts(data + 1, size - 1))
		return 0;
	o.attempt = (data[0] >> 1) & 3;
	paths[0] = dir;
	store = hd_load_with(paths, &o, problems);
	a = hd_engine_run_opts(
		store, &(struct hd_engine_opts){ .merge = data[0] & 1 });
	(void)hd_analysis_has_fault(a);
	(void)hd_analysis_is_inconsistent(a);
	render_all(a);
	hd_analysis_free(a);
	hd_store_free(store);
	return 0;
}
