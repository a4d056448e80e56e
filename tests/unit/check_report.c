/*
 * Unit tests of the report renderers: a store and an analysis are built by
 * hand (no parser, no engine), rendered as text, JSON and Markdown, and the
 * output is checked for what a reader relies on: the verdict on the first
 * line, 80 columns, wrapping (hanging indent, nothing cut), capped lists, schema-1 key order, nulls, valid UTF-8,
 * escaping, and the rank range notation.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "hd-test.h"
#include "hd-autocleanups.h"
#include "hd-const.h"
#include "hd-engine.h"
#include "hd-json.h"
#include "hd-report.h"
#include "hd-report-render.h"
#include "hd-report-util.h"
#include "hd-report-show.h"
#include "hd-sort.h"
#include "hd-banned.h"

static GArray *int_array(const int *v, size_t n)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(int));

	g_array_append_vals(a, v, (guint)n);
	return a;
}

/*
 * An 8-rank incident: rank 3 missing from all_reduce 42 of group "0".
 * nranks ranks get one completed op each (for the scale test).
 */
static struct hd_store *incident_store(int nranks)
{
	struct hd_store *s = hd_store_new();
	uint32_t in0 = hd_store_add_input(s, "logs/node-a.log");
	uint32_t in1 = hd_store_add_input(s, "logs/garbage.bin");
	struct hd_input *good = hd_store_input(s, in0);
	struct hd_input *bad = hd_store_input(s, in1);
	uint32_t gi = hd_store_group(s, "pg:0:[0-7]");
	struct hd_group *g = hd_store_group_at(s, gi);

	good->kind = HD_INPUT_NCCL_LOG;
	good->rank = 3;
	good->records = 1234;
	good->skipped = 2;
	for (int i = 0; i < 30; i++)
		hd_input_warn(good, 10 + i, "unparsed line %d", i);
	bad->error = g_strdup("unrecognized format, skipped");
	g->name = g_strdup("0");
	g->nranks = 8;
	for (int r = 0; r < 8; r++)
		hd_group_set_member(g, r, r);
	s->world_size = nranks;
	for (int r = 0; r < nranks; r++) {
		struct hd_op_rec op;
		struct hd_rank *rk = hd_store_rank(s, r);

		rk->host = hd_intern(r < 4 ? "node-a" : "node-b");
		hd_op_rec_init(&op);
		hd_op_set_rank(&op.op, r);
		op.op.group = gi;
		op.op.seq = r == 3 ? 41 : 42;
		op.op.kind = HD_OP_ALL_REDUCE;
		op.op.state = r == 3 ? HD_STATE_COMPLETED : HD_STATE_STARTED;
		op.prov.input = in0;
		op.prov.kind = HD_PROV_LINE;
		op.prov.at = (uint64_t)r + 1;
		hd_store_add_op(s, &op);
	}
	return s;
}

static struct hd_analysis *incident_analysis(const struct hd_store *s)
{
	struct hd_analysis *a = hd_analysis_new(s);
	struct hd_verdict *v = hd_verdict_new(
		HD_V_MISSING_RANK, HD_CONF_HIGH,
		"rank 3 never entered all_reduce 42 of group 0; the other 7 "
		"ranks are blocked in it");
	struct hd_verdict *v2 =
		hd_verdict_new(HD_V_NETWORK_FAULT, HD_CONF_LOW,
			       "socket error on node-b | peer \xff\xfe closed");
	struct hd_group_stats st = { .group = 0, .ops_aligned = 41 };
	struct hd_arrival ar = { .rank = 3,
				 .matched = 41,
				 .times_last = 40,
				 .median_lag_ns = 1500000,
				 .wait_imposed_ns = 61000000000LL };
	GString *longtext = g_string_new("watchdog: ");

	for (int i = 0; i < 40; i++)
		g_string_append(longtext, "word ");
	v->group = 0;
	v->seq = 42;
	v->op = "all_reduce";
	hd_verdict_add_culprit(v, 3);
	hd_verdict_add_evidence(v, 3, "logs/node-a.log:120",
				"last op seen: all_reduce seq 41 completed");
	hd_verdict_add_evidence(v, 0, "logs/node-a.log:7", "%s", longtext->str);
	hd_verdict_add_evidence(v, -1, NULL, "ansi \x1b[31mred\x1b[0m text");
	hd_verdict_add_evidence(v, 5,
				"logs/a/very/long/directory/name/that/goes/on/"
				"and/on/rank-5/nccl.log:9999",
				"text with a bad byte \xc3\x28 here");
	hd_verdict_add_ruled_out(v, "a type mismatch: every rank called "
				    "all_reduce at seq 41");
	g_ptr_array_add(a->verdicts, v);
	g_ptr_array_add(a->verdicts, v2);
	g_array_append_val(a->group_stats, st);
	g_array_append_val(a->arrivals, ar);
	g_ptr_array_add(a->notes, g_strdup("no flight-recorder dump: op "
					   "states come from NCCL lines only"));
	for (int r = 0; r < s->world_size; r++) {
		/* The rows the engine gives for this store. */
		const struct hd_rank *rk = hd_store_find_rank(s, r);
		struct hd_rank_progress p = {
			.rank = r,
			.host = rk ? rk->host : NULL,
			.ops = 1,
			.group = 0,
			.last_enqueued = r == 3 ? 41 : 42,
			.last_completed = r == 3 ? 41 : -1,
			.blocked_seq = r == 3 ? -1 : 42,
			.state = r == 3 ? "absent" : "blocked",
		};

		g_array_append_val(a->ranks_seen, r);
		g_array_append_val(a->progress, p);
	}
	g_string_free(longtext, TRUE);
	return a;
}

/* Renders with hd_report_write() into a string.  (transfer full) */
static char *render(enum hd_report_format fmt, const struct hd_analysis *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert(hd_report_write(f, fmt, a));
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

START_TEST(test_rank_list)
{
	static const int a[] = { 0, 1, 2, 3, 5, 7, 8, 9 };
	static const int b[] = { 10, 4, 3, 5, 4 };
	static const int c[] = { 7 };
	g_autoptr(GArray) ga = int_array(a, G_N_ELEMENTS(a));
	g_autoptr(GArray) gb = int_array(b, G_N_ELEMENTS(b));
	g_autoptr(GArray) gc = int_array(c, G_N_ELEMENTS(c));
	g_autoptr(GArray) ge = int_array(NULL, 0);
	g_autofree char *sa = hd_rank_list_text(ga, HD_RANKS_SET);
	g_autofree char *sb = hd_rank_list_text(gb, HD_RANKS_SET);
	g_autofree char *sc = hd_rank_list_text(gc, HD_RANKS_SET);
	g_autofree char *se = hd_rank_list_text(ge, HD_RANKS_SET);

	ck_assert_str_eq(sa, "0-3,5,7-9");
	ck_assert_str_eq(sb, "3-5,10");
	ck_assert_str_eq(sc, "7");
	ck_assert_str_eq(se, "");
	/* a set folds consecutive ranks only: a stride is read in order */
	{
		static const int d[] = { 6, 0, 4, 2, 2 };
		g_autoptr(GArray) gd = int_array(d, G_N_ELEMENTS(d));
		g_autofree char *sd = hd_rank_list_text(gd, HD_RANKS_SET);

		ck_assert_str_eq(sd, "0,2,4,6");
	}
	/* runs given as runs (a --rank list's ranges) write the same way */
	{
		static const struct hd_rank_run r[] = {
			{ 0, 3, 1 }, { 5, 5, 0 }, { 8, 56, 8 }, { -1, -1, 0 }
		};
		g_autoptr(GArray) runs =
			g_array_new(FALSE, FALSE, sizeof(struct hd_rank_run));
		g_autofree char *sr = NULL;

		g_array_append_vals(runs, r, G_N_ELEMENTS(r));
		sr = hd_rank_runs_text(runs);
		ck_assert_str_eq(sr, "0-3,5,8,16,...,56,?");
	}
}
END_TEST

/*
 * Runs in their order (replay plans): consecutive ranks as "a-b", four
 * or more at one stride as "a,b,...,z" (three are written out), an
 * unknown rank as "?", nothing sorted or merged across the unknown.
 */
START_TEST(test_rank_runs)
{
	static const struct {
		int r[12];
		guint n;
		const char *want;
	} cases[] = {
		{ { 0 }, 0, "" },
		{ { 5 }, 1, "5" },
		{ { 0, 1, 2, 3, 8 }, 5, "0-3,8" },
		{ { 0, 1 }, 2, "0-1" },
		{ { 0, 8, 16, 24 }, 4, "0,8,...,24" },
		{ { 0, 8, 16 }, 3, "0,8,16" },
		{ { 0, 8, 16, 24, 40, 48, 56, 64 },
		  8,
		  "0,8,...,24,40,48,...,64" },
		{ { 0, 1, -1, 2, 3 }, 5, "0-1,?,2-3" },
		{ { 3, 2, 1 }, 3, "3,2,1" },
		{ { 4, 4, 4 }, 3, "4,4,4" },
		{ { -1 }, 1, "?" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GArray) g = int_array(cases[i].r, cases[i].n);
		g_autofree char *s = hd_rank_list_text(g, HD_RANKS_ORDER);

		ck_assert_str_eq(s, cases[i].want);
	}
	/* a data-parallel group of 1,024: one run, whatever its size */
	{
		g_autoptr(GArray) g = g_array_new(FALSE, FALSE, sizeof(int));
		g_autofree char *s = NULL;

		for (int r = 0; r < 8192; r += 8)
			g_array_append_val(g, r);
		s = hd_rank_list_text(g, HD_RANKS_ORDER);
		ck_assert_str_eq(s, "0,8,...,8184");
	}
}
END_TEST

START_TEST(test_natural_order)
{
	/* ranks as numbers, not as text: rank_2 before rank_1000 */
	ck_assert_int_lt(hd_natural_cmp("rank_2", "rank_1000"), 0);
	ck_assert_int_gt(hd_natural_cmp("rank_1000", "rank_2"), 0);
	ck_assert_int_lt(hd_natural_cmp("a/r9.log", "a/r10.log"), 0);
	ck_assert_int_lt(hd_natural_cmp("node-a", "node-b"), 0);
	ck_assert_int_eq(hd_natural_cmp("x12y", "x12y"), 0);
	ck_assert_int_eq(hd_natural_cmp("r007", "r7"), 0);
	ck_assert_int_lt(hd_natural_cmp("r", "r0"), 0);
	ck_assert_int_lt(hd_natural_cmp("r1a", "r1b"), 0);
	ck_assert_int_lt(hd_natural_cmp("", "a"), 0);
	/* the analysis's inputs: rank_2 before rank_10 before rank_1000 */
	{
		g_autoptr(hd_store) st = hd_store_new();
		g_autoptr(hd_analysis) an = NULL;
		const GPtrArray *sorted;
		static const char *const want[] = { "d/rank_2", "d/rank_10",
						    "d/rank_1000", "e/a" };

		hd_store_add_input(st, "e/a");
		hd_store_add_input(st, "d/rank_1000");
		hd_store_add_input(st, "d/rank_2");
		hd_store_add_input(st, "d/rank_10");
		an = hd_analysis_new(st);
		sorted = an->inputs;
		ck_assert_uint_eq(sorted->len, 4);
		for (guint i = 0; i < sorted->len; i++)
			ck_assert_str_eq(((const struct hd_input *)
						  g_ptr_array_index(sorted, i))
						 ->path,
					 want[i]);
	}
	/* numbers longer than any integer still compare */
	ck_assert_int_lt(hd_natural_cmp("r99999999999999999999999",
					"r100000000000000000000000"),
			 0);
}
END_TEST

START_TEST(test_paint)
{
	g_autofree char *on =
		hd_report_paint(HD_MARK_BAD "kind" HD_MARK_END " [" HD_MARK_GOOD
					    "high" HD_MARK_END "]",
				true);
	g_autofree char *off =
		hd_report_paint(HD_MARK_BAD "kind" HD_MARK_END " [" HD_MARK_GOOD
					    "high" HD_MARK_END "]",
				false);
	g_autofree char *wrapped = hd_report_wrap(
		HD_MARK_BOLD "aaaaa bbbb" HD_MARK_END, "", "", 10);
	g_autofree char *clean = hd_report_clean("\x01x\x05y\x06");

	ck_assert_str_eq(on, "\033[1;31mkind\033[0m [\033[32mhigh\033[0m]");
	ck_assert_str_eq(off, "kind [high]");
	/* marks take no column: ten columns hold both words */
	ck_assert_ptr_null(strchr(wrapped, '\n'));
	/* an input cannot smuggle a mark in */
	ck_assert_ptr_null(strpbrk(clean, "\x01\x05\x06"));
}
END_TEST

START_TEST(test_format_parse)
{
	enum hd_report_format f = HD_REPORT_TEXT;

	ck_assert(hd_report_format_parse("json", &f));
	ck_assert_int_eq(f, HD_REPORT_JSON);
	ck_assert(hd_report_format_parse("md", &f));
	ck_assert_int_eq(f, HD_REPORT_MARKDOWN);
	ck_assert(hd_report_format_parse("markdown", &f));
	ck_assert(hd_report_format_parse("text", &f));
	ck_assert_int_eq(f, HD_REPORT_TEXT);
	ck_assert(!hd_report_format_parse("JSON", &f));
	ck_assert(!hd_report_format_parse("jso", &f));
	ck_assert(!hd_report_format_parse("", &f));
	/* the usage message lists every format, and each parses */
	ck_assert_str_eq(hd_report_format_names(),
			 "text, json, jsonl, markdown, html or perfetto");
	ck_assert(hd_report_format_parse("perfetto", &f));
	ck_assert_int_eq(f, HD_REPORT_PERFETTO);
	ck_assert(hd_report_format_parse("jsonl", &f));
	ck_assert_int_eq(f, HD_REPORT_JSONL);
}
END_TEST

START_TEST(test_helpers)
{
	g_autofree char *c0 = hd_report_count(0);
	g_autofree char *c1 = hd_report_count(999);
	g_autofree char *c2 = hd_report_count(15000);
	g_autofree char *c3 = hd_report_count(1234567);
	g_autofree char *d0 = hd_report_duration(850);
	g_autofree char *d1 = hd_report_duration(61000000000LL);
	g_autofree char *cl = hd_report_clean("a\x1b[1m\tb\xff");
	g_autoptr(json_t) js = hd_json_string("x\xffy");
	g_autoptr(json_t) jn = hd_json_string(NULL);

	ck_assert_str_eq(c0, "0");
	ck_assert_str_eq(c1, "999");
	ck_assert_str_eq(c2, "15,000");
	ck_assert_str_eq(c3, "1,234,567");
	ck_assert_str_eq(d0, "850 ns");
	ck_assert_str_eq(d1, "61.00 s");
	ck_assert_str_eq(cl, "a?[1m?b\xef\xbf\xbd");
	ck_assert_ptr_nonnull(js);
	ck_assert_str_eq(json_string_value(js), "x\xef\xbf\xbdy");
	ck_assert(json_is_null(jn));
}
END_TEST

static void assert_keys(json_t *obj, const char *const *keys, size_t n)
{
	void *it = json_object_iter(obj);

	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(it != NULL, "key %s missing", keys[i]);
		ck_assert_str_eq(json_object_iter_key(it), keys[i]);
		it = json_object_iter_next(obj, it);
	}
}

START_TEST(test_json_schema)
{
	static const char *const top[] = { "schema",   "tool",	 "inputs",
					   "ranks",    "groups", "verdicts",
					   "arrivals", "notes" };
	static const char *const input[] = { "path",	"kind",	   "rank",
					     "records", "skipped", "warnings" };
	static const char *const verdict[] = { "kind",
					       "culprit_ranks",
					       "group",
					       "seq",
					       "op",
					       "confidence",
					       "summary",
					       "evidence",
					       "ruled_out",
					       "fingerprint",
					       "fingerprint_text",
					       "call_site",
					       "culprits",
					       "next_steps" };
	static const char *const group[] = { "id", "name", "desc", "ranks",
					     "ops_aligned" };
	static const char *const ranks[] = { "world_size", "seen", "missing" };
	g_autoptr(hd_store) s = incident_store(8);
	g_autoptr(hd_analysis) a = incident_analysis(s);
	g_autofree char *text = render(HD_REPORT_JSON, a);
	g_autoptr(json_t) doc = NULL;
	json_error_t err;
	json_t *v0, *v1, *in0, *in1, *ev;

	doc = json_loads(text, 0, &err);
	ck_assert_msg(doc != NULL, "invalid JSON: %s", err.text);
	assert_keys(doc, top, G_N_ELEMENTS(top));
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "schema")), 1);
	/* in natural order of their paths: garbage.bin, then node-a.log */
	in0 = json_array_get(json_object_get(doc, "inputs"), 1);
	in1 = json_array_get(json_object_get(doc, "inputs"), 0);
	assert_keys(in0, input, G_N_ELEMENTS(input));
	ck_assert_int_eq(json_integer_value(json_object_get(in0, "rank")), 3);
	ck_assert_str_eq(json_string_value(json_object_get(in0, "kind")),
			 "nccl_log");
	ck_assert_int_eq(json_array_size(json_object_get(in0, "warnings")),
			 HD_INPUT_MAX_WARNINGS);
	ck_assert_int_eq(
		json_integer_value(json_object_get(in0, "warnings_total")), 30);
	ck_assert(json_is_null(json_object_get(in1, "rank")));
	ck_assert_str_eq(json_string_value(json_object_get(in1, "error")),
			 "unrecognized format, skipped");
	assert_keys(json_object_get(doc, "ranks"), ranks, G_N_ELEMENTS(ranks));
	ck_assert_int_eq(json_integer_value(json_object_get(
				 json_object_get(doc, "ranks"), "world_size")),
			 8);
	assert_keys(json_array_get(json_object_get(doc, "groups"), 0), group,
		    G_N_ELEMENTS(group));
	ck_assert_int_eq(
		json_integer_value(json_object_get(
			json_array_get(json_object_get(doc, "groups"), 0),
			"ops_aligned")),
		41);

	v0 = json_array_get(json_object_get(doc, "verdicts"), 0);
	v1 = json_array_get(json_object_get(doc, "verdicts"), 1);
	assert_keys(v0, verdict, G_N_ELEMENTS(verdict));
	ck_assert_int_eq(json_object_size(v0), G_N_ELEMENTS(verdict));
	ck_assert_str_eq(json_string_value(json_object_get(v0, "kind")),
			 "missing_rank");
	ck_assert_str_eq(json_string_value(json_object_get(v0, "group")),
			 "pg:0:[0-7]");
	ck_assert_int_eq(json_integer_value(json_object_get(v0, "seq")), 42);
	ck_assert_str_eq(json_string_value(json_object_get(v0, "op")),
			 "all_reduce");
	ck_assert(json_is_null(json_object_get(v1, "group")));
	ck_assert(json_is_null(json_object_get(v1, "seq")));
	ck_assert(json_is_null(json_object_get(v1, "op")));
	/* Invalid UTF-8 in a summary and in evidence becomes U+FFFD. */
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(v1, "summary")),
		       "\xef\xbf\xbd\xef\xbf\xbd closed"));
	ev = json_array_get(json_object_get(v0, "evidence"), 3);
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(ev, "text")),
		       "\xef\xbf\xbd("));
	ev = json_array_get(json_object_get(v0, "evidence"), 2);
	ck_assert(json_is_null(json_object_get(ev, "rank")));
	ck_assert(json_is_null(json_object_get(ev, "source")));
}
END_TEST

START_TEST(test_json_nulls_unknown_world)
{
	g_autoptr(hd_store) s = hd_store_new();
	g_autoptr(hd_analysis) a = NULL;
	g_autoptr(json_t) doc = NULL;
	g_autofree char *text = NULL;
	json_t *ranks;

	hd_store_add_input(s, "empty.log");
	a = hd_analysis_new(s);
	text = render(HD_REPORT_JSON, a);
	doc = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	ranks = json_object_get(doc, "ranks");
	ck_assert(json_is_null(json_object_get(ranks, "world_size")));
	ck_assert_int_eq(json_array_size(json_object_get(doc, "verdicts")), 0);
	ck_assert_int_eq(json_array_size(json_object_get(doc, "groups")), 0);
}
END_TEST

/* Asserts every line of text fits 80 columns, except whole source lines. */
static guint assert_80_columns(const char *text, const char *exempt)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	guint n = 0;

	for (guint i = 0; lines[i]; i++, n++) {
		ck_assert_msg(g_utf8_validate(lines[i], -1, NULL),
			      "line %u is not UTF-8", i + 1);
		if (exempt && strstr(lines[i], exempt))
			continue;
		ck_assert_msg(g_utf8_strlen(lines[i], -1) <= 80,
			      "line %u has %ld columns: %s", i + 1,
			      g_utf8_strlen(lines[i], -1), lines[i]);
	}
	return n;
}

START_TEST(test_text_report)
{
	g_autoptr(hd_store) s = incident_store(8);
	g_autoptr(hd_analysis) a = incident_analysis(s);
	g_autofree char *text = render(HD_REPORT_TEXT, a);
	g_autofree char *first = g_strndup(text, strcspn(text, "\n"));
	const char *line;

	/* The first line is the top verdict. */
	ck_assert_ptr_nonnull(strstr(first, "missing_rank"));
	ck_assert_ptr_nonnull(strstr(first, "rank 3"));
	ck_assert_ptr_nonnull(strstr(first, "high"));
	ck_assert_ptr_nonnull(strstr(first, "seq 42"));
	ck_assert_ptr_nonnull(strstr(first, "all_reduce"));
	assert_80_columns(text, "very/long/directory");
	/* The long source location is kept whole, on a line of its own. */
	ck_assert_ptr_nonnull(
		strstr(text, "\n  logs/a/very/long/directory/name/that/goes/on/"
			     "and/on/rank-5/nccl.log:9999:\n"));
	/* One list, one layout: beside a long source, short ones too give
	   their text on the next line. */
	ck_assert_ptr_nonnull(
		strstr(text, "  logs/node-a.log:120:\n    last op seen"));
	/* The long evidence text wraps under its source: nothing is cut. */
	line = strstr(text, "  logs/node-a.log:7:\n    watchdog: word word");
	ck_assert_ptr_nonnull(line);
	line += strcspn(line, "\n") + 1;
	ck_assert_int_le(strcspn(line, "\n"), 80);
	ck_assert(strncmp(line + strcspn(line, "\n"), "\n    word", 9) == 0);
	ck_assert_ptr_null(strstr(text, "..."
					"\n"));
	/* No escape byte reaches the terminal. */
	ck_assert_ptr_null(strchr(text, '\x1b'));
	ck_assert_ptr_nonnull(strstr(text, "ruled out:"));
	ck_assert_ptr_nonnull(strstr(text, "network_fault [low]"));
	ck_assert_ptr_nonnull(strstr(text, "not decided:"));
	/* Ranks 0-2 and 4-7 are alike; rank 3 differs. */
	ck_assert_ptr_nonnull(strstr(text, "  0-2 "));
	ck_assert_ptr_nonnull(strstr(text, "  3 "));
	ck_assert_ptr_nonnull(strstr(text, "  4-7 "));
	ck_assert_ptr_nonnull(strstr(text, "blocked at 42"));
	ck_assert_ptr_nonnull(strstr(text, "41 absent"));
	ck_assert_ptr_nonnull(strstr(text, "61.00 s"));
	/* 30 warnings: 3 shown, the rest counted. */
	ck_assert_ptr_nonnull(
		strstr(text, "warning: line 10: unparsed line 0"));
	ck_assert_ptr_nonnull(strstr(text, "... and 27 more warnings"));
	ck_assert_ptr_nonnull(strstr(text, "logs/garbage.bin: unrecognized"));
}
END_TEST

/* Every line of s fits width columns and none ends in a space. */
static void assert_wrapped(const char *s, size_t width)
{
	g_auto(GStrv) lines = g_strsplit(s, "\n", -1);

	for (guint i = 0; lines[i]; i++) {
		size_t n = strlen(lines[i]);

		ck_assert_msg(hd_report_columns(lines[i]) <= width,
			      "line %u too wide: '%s'", i, lines[i]);
		ck_assert_msg(!n || lines[i][n - 1] != ' ',
			      "line %u ends in a space: '%s'", i, lines[i]);
	}
}

/* What wrapping kept of text: every non-space byte, in order. */
static char *squeeze(const char *s)
{
	GString *out = g_string_new(NULL);

	for (const char *p = s; *p; p++)
		if (*p != ' ' && *p != '\n')
			g_string_append_c(out, *p);
	return g_string_free(out, FALSE);
}

START_TEST(test_wrap)
{
	const char *words = "rank 5 never entered seq 38 (all_reduce) of PG 0 "
			    "(default_pg); 7 others entered it and are blocked";
	const char *exact = "aaaa bbbb";
	const char *longword = "counts 65536 vs 131072 in "
			       "/a/very/long/path/that/does/not/fit/on/one/"
			       "line/at/all/rank-5/nccl.log:9999 end";
	const char *utf8 = "r\xc3\xa9seau \xe2\x80\x94 \xe6\x97\xa5\xe6"
			   "\x9c\xac\xe8\xaa\x9e \xc3\xa9t\xc3\xa9 "
			   "\xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9";
	g_autofree char *w1 = hd_report_wrap(words, "  ", "    ", 40);
	g_autofree char *w2 = hd_report_wrap(exact, "", "  ", 9);
	g_autofree char *w3 = hd_report_wrap(longword, "  ", "    ", 30);
	g_autofree char *w4 = hd_report_wrap(utf8, "", "  ", 12);
	g_autofree char *w5 = hd_report_wrap("trailing   ", "- ", "  ", 40);
	g_autofree char *w6 = hd_report_wrap("", "  x: ", "    ", 40);
	g_autofree char *s1 = squeeze(w1), *t1 = squeeze(words);
	g_autofree char *s3 = squeeze(w3), *t3 = squeeze(longword);
	g_autofree char *s4 = squeeze(w4), *t4 = squeeze(utf8);

	/* Hanging indent; nothing lost; width kept; no trailing spaces. */
	ck_assert(g_str_has_prefix(w1, "  rank 5 never entered seq 38\n    "));
	assert_wrapped(w1, 40);
	ck_assert_str_eq(s1, t1);
	/* Text exactly as wide as the line stays on one line. */
	ck_assert_str_eq(w2, "aaaa bbbb");
	/* A word longer than a line is split, preferably after a '/'. */
	assert_wrapped(w3, 30);
	ck_assert_str_eq(s3, t3);
	ck_assert_ptr_nonnull(strstr(w3, "65536 vs 131072"));
	ck_assert_ptr_nonnull(strstr(w3, "/\n    "));
	/* UTF-8 counts characters, wide ones as two columns. */
	assert_wrapped(w4, 12);
	ck_assert_str_eq(s4, t4);
	ck_assert(g_utf8_validate(w4, -1, NULL));
	ck_assert_int_eq(hd_report_columns("\xe6\x97\xa5\xe6\x9c\xac"), 4);
	ck_assert_int_eq(hd_report_columns("r\xc3\xa9"), 2);
	ck_assert_str_eq(w5, "- trailing");
	ck_assert_str_eq(w6, "  x:");
}
END_TEST

START_TEST(test_log_prefix)
{
	ck_assert_str_eq(
		hd_report_strip_log_prefix(
			"[rank0]:[E1121 03:22:44.123456789 ProcessGroupNCCL.cpp:"
			"632] [PG ID 0] Watchdog caught"),
		"[PG ID 0] Watchdog caught");
	ck_assert_str_eq(
		hd_report_strip_log_prefix(
			"node-b:4085:4235 [1] transport/net_ib.cc:1696 "
			"NCCL WARN NET/IB: status=12"),
		"transport/net_ib.cc:1696 NCCL WARN NET/IB: status=12");
	ck_assert_str_eq(hd_report_strip_log_prefix(
				 "[rank1]: torch.OutOfMemoryError: CUDA"),
			 "torch.OutOfMemoryError: CUDA");
	ck_assert_str_eq(hd_report_strip_log_prefix("plain: 1:2 [x] text"),
			 "plain: 1:2 [x] text");
	ck_assert_str_eq(hd_report_strip_rank("rank 0: seq 8", 0), "seq 8");
	ck_assert_str_eq(hd_report_strip_rank("rank 0: seq 8", 1),
			 "rank 0: seq 8");
}
END_TEST

START_TEST(test_source_split)
{
	g_autoptr(hd_store) s = hd_store_new();
	enum hd_report_pos pos;
	size_t len;
	uint64_t at;

	hd_store_add_input(s, "logs/a:b.log");
	hd_store_add_input(s, "fr/dump");
	ck_assert(
		hd_report_source_split(s, "logs/a:b.log:12", &len, &pos, &at));
	ck_assert_int_eq(len, 12);
	ck_assert_int_eq(pos, HD_REPORT_POS_LINE);
	ck_assert_int_eq(at, 12);
	ck_assert(
		hd_report_source_split(s, "fr/dump#record 7", &len, &pos, &at));
	ck_assert_int_eq(pos, HD_REPORT_POS_RECORD);
	ck_assert_int_eq(at, 7);
	ck_assert(hd_report_source_split(s, "fr/dump", &len, &pos, &at));
	ck_assert_int_eq(pos, HD_REPORT_POS_NONE);
	ck_assert(!hd_report_source_split(s, "other:3", &len, &pos, &at));
	ck_assert(!hd_report_source_split(s, NULL, &len, &pos, &at));
}
END_TEST

START_TEST(test_text_report_scale)
{
	g_autoptr(hd_store) s = incident_store(16384);
	g_autoptr(hd_analysis) a = NULL;
	g_autofree char *text = NULL;
	guint lines;

	/* Every third rank on its own host: no two neighbours alike. */
	for (int r = 0; r < 16384; r++)
		hd_store_rank(s, r)->host = hd_intern(r % 3 ? "x" : "y");
	a = incident_analysis(s);
	text = render(HD_REPORT_TEXT, a);
	lines = assert_80_columns(text, "very/long/directory");
	ck_assert_msg(lines < 100, "%u lines for 16k ranks", lines);
	ck_assert_ptr_nonnull(strstr(text, "more rows ("));
	/* The culprit's row is shown even past the cap. */
	ck_assert_ptr_nonnull(strstr(text, "\n  3 "));
}
END_TEST

START_TEST(test_text_progress_table)
{
	g_autoptr(hd_store) s = incident_store(8);
	g_autoptr(hd_analysis) a = incident_analysis(s);
	g_autofree char *text = NULL;
	g_autofree char *md = NULL;

	for (int r = 0; r < 8; r++) {
		struct hd_rank_progress p = { .rank = r,
					      .host = hd_intern("node-a"),
					      .inputs = 1,
					      .ops = 42,
					      .group = 0,
					      .last_enqueued = 42,
					      .last_completed = 41,
					      .blocked_seq = 42,
					      .state = "blocked" };

		if (r == 3) {
			p.last_enqueued = 41;
			p.blocked_seq = -1;
			p.state = "absent";
		}
		g_array_append_val(a->progress, p);
	}
	md = render(HD_REPORT_MARKDOWN, a);
	ck_assert_ptr_nonnull(strstr(
		md, "| 3 | node-a | 1 | 42 | `0` | 41 | 41 | absent |\n"));
	/* Runs of equal rows fold, as in the text report. */
	ck_assert_ptr_nonnull(strstr(
		md,
		"| 0-2 | node-a | 1 | 42 | `0` | 42 | 41 | blocked at 42 |\n"));
	text = render(HD_REPORT_TEXT, a);
	assert_80_columns(text, "very/long/directory");
	ck_assert_ptr_nonnull(strstr(text, "  rank host   inputs ops enqueued "
					   "completed state\n"));
	ck_assert_ptr_nonnull(strstr(text, "  0-2  node-a      1  42       42 "
					   "       41 blocked at 42\n"));
	ck_assert_ptr_nonnull(strstr(text, "  3    node-a"));
	ck_assert_ptr_nonnull(strstr(text, "absent\n"));
	ck_assert_ptr_nonnull(strstr(text, "  4-7  node-a"));
}
END_TEST

/*
 * The rank table folds once, in the engine (hd_analysis_rank_rows()), so
 * every format shows the same rows: rank 150's row is in another group,
 * so it does not fold with its neighbours in text either, although text
 * prints no group column.  A capped table shows the culprit's row past
 * the cap, after a "..." row.
 */
START_TEST(test_rank_rows_every_format)
{
	g_autoptr(hd_store) s = incident_store(200);
	g_autoptr(hd_analysis) a = incident_analysis(s);
	g_autoptr(hd_rank_rows) rows = NULL;
	g_autofree char *text = NULL;
	g_autofree char *md = NULL;
	g_autofree char *html = NULL;
	int64_t other = hd_store_group(s, "pg:1:[150]");
	static const int want[][2] = {
		{ 0, 2 }, { 3, 3 }, { 4, 149 }, { 150, 150 }, { 151, 199 }
	};

	g_array_index(a->progress, struct hd_rank_progress, 150).group = other;
	rows = hd_analysis_rank_rows(a, 2);
	ck_assert_uint_eq(rows->rows->len, G_N_ELEMENTS(want));
	for (guint i = 0; i < rows->rows->len; i++) {
		const struct hd_rank_row *r =
			&g_array_index(rows->rows, struct hd_rank_row, i);

		ck_assert_int_eq(r->first, want[i][0]);
		ck_assert_int_eq(r->last, want[i][1]);
		ck_assert_uint_eq(r->progress, (guint)want[i][0]);
	}
	/* two rows, then the culprit's (rank 3) only */
	ck_assert(g_array_index(rows->rows, struct hd_rank_row, 1).shown);
	ck_assert(!g_array_index(rows->rows, struct hd_rank_row, 1).gap);
	ck_assert(!g_array_index(rows->rows, struct hd_rank_row, 2).shown);
	ck_assert_uint_eq(rows->shown, 2);
	ck_assert_uint_eq(rows->hidden_rows, 3);
	ck_assert_uint_eq(rows->hidden_ranks, 146 + 1 + 49);
	text = render(HD_REPORT_TEXT, a);
	md = render(HD_REPORT_MARKDOWN, a);
	html = render(HD_REPORT_HTML, a);
	ck_assert_ptr_nonnull(strstr(text, "\n  4-149 "));
	ck_assert_ptr_nonnull(strstr(text, "\n  150 "));
	ck_assert_ptr_nonnull(strstr(text, "\n  151-199 "));
	ck_assert_ptr_nonnull(strstr(md, "\n| 4-149 | "));
	ck_assert_ptr_nonnull(strstr(md, "\n| 150 | "));
	ck_assert_ptr_nonnull(strstr(md, "\n| 151-199 | "));
	ck_assert_ptr_nonnull(
		strstr(html, "<tr id=\"rank-4\"><th scope=\"row\">4-149</th>"));
	ck_assert_ptr_nonnull(
		strstr(html, "<tr id=\"rank-150\"><th scope=\"row\">150</th>"));
	ck_assert_ptr_nonnull(strstr(
		html, "<tr id=\"rank-151\"><th scope=\"row\">151-199</th>"));
}
END_TEST

/* show counts its signals as it counts its ops: "signals: 2,047". */
START_TEST(test_show_counts)
{
	g_autoptr(hd_store) s = hd_store_new();
	g_autoptr(GPtrArray) ops = g_ptr_array_new();
	g_autoptr(GPtrArray) sigs = g_ptr_array_new();
	uint32_t in = hd_store_add_input(s, "rank0.log");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < 2047; i++) {
		struct hd_signal sig;

		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_DUMP;
		sig.rank = 0;
		sig.prov.input = in;
		sig.prov.kind = HD_PROV_LINE;
		sig.prov.at = (uint64_t)i + 1;
		hd_store_add_signal(s, &sig);
	}
	for (guint i = 0; i < s->signals->len; i++)
		g_ptr_array_add(
			sigs, &g_array_index(s->signals, struct hd_signal, i));
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	hd_report_show_text(f, s, ops, sigs);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_nonnull(strstr(buf, "ops: 0\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nsignals: 2,047\n"));
	free(buf);
}
END_TEST

START_TEST(test_text_no_input)
{
	g_autoptr(hd_store) s = hd_store_new();
	g_autoptr(hd_analysis) a = NULL;
	g_autofree char *text = NULL;

	hd_store_input(s, hd_store_add_input(s, "x.bin"))->error =
		g_strdup("empty file");
	a = hd_analysis_new(s);
	text = render(HD_REPORT_TEXT, a);
	/* only what was read and why none of it was usable */
	ck_assert(g_str_has_prefix(text, "no usable input: "));
	ck_assert_ptr_null(strstr(text, "inputs:"));
	ck_assert_ptr_nonnull(strstr(text, "x.bin: empty file"));
	/* what hangdoc reads: every kind of the registry, said once */
	{
		g_autofree char *kinds = hd_input_kinds_text();

		for (int k = 1; k < HD_INPUT_KIND_COUNT; k++)
			ck_assert_msg(strstr(kinds, hd_input_kind_words(k)),
				      "kind %s not said",
				      hd_input_kind_name(k));
		ck_assert(g_str_has_prefix(kinds, "NCCL and c10d logs, "));
		ck_assert(
			g_str_has_suffix(kinds, " and NCCL Inspector outputs"));
		ck_assert_ptr_null(strstr(text, "\n\n"));
	}
}
END_TEST

START_TEST(test_markdown_report)
{
	g_autoptr(hd_store) s = incident_store(8);
	g_autoptr(hd_analysis) a = incident_analysis(s);
	g_autofree char *md = render(HD_REPORT_MARKDOWN, a);

	ck_assert(g_str_has_prefix(md, "# hangdoc: missing_rank, rank 3 "
				       "(high confidence)\n"));
	ck_assert_ptr_nonnull(strstr(md, "| verdict | `missing_rank` |"));
	ck_assert_ptr_nonnull(strstr(md, "(`logs/node-a.log:120`)"));
	ck_assert_ptr_nonnull(strstr(md, "## Evidence"));
	/* A pipe in raw text cannot end a table cell. */
	ck_assert_ptr_nonnull(strstr(md, "node-b \\| peer"));
	ck_assert_ptr_null(strchr(md, '\x1b'));
	ck_assert(g_utf8_validate(md, -1, NULL));
	ck_assert_ptr_nonnull(strstr(md, "| `logs/garbage.bin` | unknown |"));
}
END_TEST

/*
 * Issue 18 item 5: the performance note is in every format, markup in it
 * escaped; the reports only render what the engine decided.
 */
START_TEST(test_performance_note_everywhere)
{
	g_autoptr(hd_store) s = incident_store(8);
	g_autoptr(hd_analysis) a = incident_analysis(s);
	static const enum hd_report_format fmts[] = {
		HD_REPORT_TEXT, HD_REPORT_JSON, HD_REPORT_JSONL,
		HD_REPORT_MARKDOWN, HD_REPORT_HTML
	};
	g_autoptr(json_t) doc = NULL;
	json_t *perf;

	a->perf.known = true;
	a->perf.rank = 3;
	a->perf.times_last = 40;
	a->perf.matched = 41;
	a->perf.others_wait_ns = 1000;
	a->perf.step_ns = 4000;
	a->perf.summary = g_strdup("rank 3 started last <b>often</b>");
	for (size_t i = 0; i < G_N_ELEMENTS(fmts); i++) {
		g_autofree char *out = render(fmts[i], a);

		ck_assert_msg(strstr(out, "rank 3 started last") != NULL,
			      "format %zu has no performance note", i);
		if (fmts[i] == HD_REPORT_HTML)
			ck_assert_ptr_nonnull(
				strstr(out, "&lt;b&gt;often&lt;/b&gt;"));
	}
	{
		g_autofree char *js = render(HD_REPORT_JSON, a);

		doc = json_loads(js, 0, NULL);
	}
	ck_assert_ptr_nonnull(doc);
	perf = json_object_get(doc, "performance");
	ck_assert(json_is_object(perf));
	ck_assert_int_eq(json_integer_value(json_object_get(perf, "rank")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(perf, "step_ns")),
			 4000);
	ck_assert(json_is_false(json_object_get(perf, "fault")));
}
END_TEST

static bool ranks_4_to_5(const void *data, int r)
{
	(void)data;
	return r == 4 || r == 5;
}

static char *render_opts(enum hd_report_format fmt, const struct hd_analysis *a,
			 const struct hd_report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert(hd_report_write_opts(f, fmt, a, o));
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/*
 * analyze --rank: a display filter.  The view shows the selected ranks'
 * rows and evidence only, says so, keeps every verdict's headline, and
 * leaves the analysis as it was; an unknown group and a list that selects
 * no rank of the job are refused with what there is.
 */
START_TEST(test_display_filter)
{
	g_autoptr(hd_store) s = incident_store(8);
	g_autoptr(hd_analysis) a = incident_analysis(s);
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_report_filter) f =
		hd_report_filter_new(a, "4-5", ranks_4_to_5, NULL, NULL, &err);
	static const char *const nosuch[] = { "nosuch", NULL };
	static const char *const pg0[] = { "0", NULL };
	struct hd_report_opts o = { 80, 0, -1, NULL, false, false, f };
	g_autofree char *text = NULL;
	g_autofree char *md = NULL;
	g_autofree char *js = NULL;
	g_autoptr(json_t) doc = NULL;
	json_t *table;
	struct hd_verdict *v;
	guint evidence;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->ranks->len, 2);
	ck_assert_int_eq(f->of, 8);
	v = g_ptr_array_index(a->verdicts, 0);
	evidence = v->evidence->len;
	text = render_opts(HD_REPORT_TEXT, a, &o);
	ck_assert_ptr_nonnull(strstr(text, "showing ranks 4-5 of 8"));
	/* the culprit's headline stays; rank 0's and rank 3's evidence go */
	ck_assert_ptr_nonnull(strstr(text, "missing_rank"));
	ck_assert_ptr_null(strstr(text, "logs/node-a.log:120"));
	ck_assert_ptr_null(strstr(text, "logs/node-a.log:7"));
	ck_assert_ptr_nonnull(strstr(text, "rank-5/nccl.log"));
	md = render_opts(HD_REPORT_MARKDOWN, a, &o);
	ck_assert_ptr_nonnull(strstr(md, "showing ranks 4-5 of 8"));
	js = render_opts(HD_REPORT_JSON, a, &o);
	doc = json_loads(js, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(doc, "filter"), "ranks")),
			 "4-5");
	table = json_object_get(json_object_get(doc, "ranks"), "table");
	ck_assert_int_eq(json_array_size(table), 2);
	ck_assert_int_eq(json_array_size(json_object_get(doc, "verdicts")), 2);
	/* the analysis itself is untouched */
	ck_assert_int_eq(a->progress->len, 8);
	ck_assert_int_eq(v->evidence->len, evidence);
	/* groups: by name; unknown ones refused, listing the groups */
	{
		g_autoptr(hd_report_filter) g =
			hd_report_filter_new(a, NULL, NULL, NULL, pg0, &err);

		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(g->ranks->len, 8);
	}
	ck_assert_ptr_null(
		hd_report_filter_new(a, NULL, NULL, NULL, nosuch, &err));
	ck_assert_ptr_nonnull(strstr(err->message, "no group 'nosuch'"));
	ck_assert_ptr_nonnull(strstr(err->message, "groups: 0"));
}
END_TEST

static void join_span(const char *part, bool code, void *data)
{
	g_string_append_printf(data, code ? "[%s]" : "%s", part);
}

/*
 * Next steps quote commands in backticks, which the HTML and Markdown
 * reports set as code; a backtick without its pair stays text.
 */
START_TEST(test_code_spans)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "run `py-spy dump` now", "run [py-spy dump] now" },
		{ "`a` and `b`", "[a] and [b]" },
		{ "a lone ` stays", "a lone ` stays" },
		{ "`a` then `b", "[a] then `b" },
		{ "", "" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
		g_autoptr(GString) got = g_string_new(NULL);

		hd_report_code_spans(t[i].in, join_span, got);
		ck_assert_str_eq(got->str, t[i].out);
	}
}
END_TEST

/* The first "enum" array under j that holds member.  (transfer none) */
static json_t *enum_holding(json_t *j, const char *member)
{
	json_t *e = json_is_object(j) ? json_object_get(j, "enum") : NULL;
	json_t *v;
	const char *key;
	size_t i;

	if (json_is_array(e)) {
		json_array_foreach(e, i, v)
			if (json_is_string(v) &&
			    strcmp(json_string_value(v), member) == 0)
				return e;
	}
	if (json_is_object(j)) {
		json_object_foreach(j, key, v) {
			json_t *found = enum_holding(v, member);

			if (found)
				return found;
		}
	}
	if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			json_t *found = enum_holding(v, member);

			if (found)
				return found;
		}
	}
	return NULL;
}

/* Asserts that enum e names exactly the n names name(0..n-1). */
static void assert_enum(const json_t *e, const char *what, int n,
			const char *(*name)(int))
{
	ck_assert_msg(e, "%s: no enum in the schema", what);
	ck_assert_msg((int)json_array_size(e) == n,
		      "%s: the schema lists %zu, the code %d", what,
		      json_array_size(e), n);
	for (int k = 0; k < n; k++) {
		bool found = false;

		for (size_t i = 0; i < json_array_size(e) && !found; i++)
			found = strcmp(json_string_value(json_array_get(e, i)),
				       name(k)) == 0;
		ck_assert_msg(found, "%s: '%s' is not in the schema", what,
			      name(k));
	}
}

static const char *input_kind(int k)
{
	return hd_input_kind_name(k);
}

static const char *verdict_kind(int k)
{
	return hd_verdict_kind_name(k);
}

static const char *signal_type(int k)
{
	return hd_signal_type_name(k);
}

static json_t *load_schema(const char *rel)
{
	g_autofree char *path = hd_test_path(rel);
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err);

	ck_assert_msg(j, "%s: %s", rel, err.text);
	return j;
}

/*
 * A kind is a line in its list (HD_INPUT_KINDS, verdict_kinds[],
 * HD_SIGNAL_TYPES) and its parser or check; the only other places that
 * name every kind are the JSON schemas, and this keeps them in step.
 */
START_TEST(test_kinds_match_schemas)
{
	g_autoptr(json_t) report = load_schema("docs/report.schema.json");
	g_autoptr(json_t) show = load_schema("docs/show.schema.json");

	assert_enum(enum_holding(report, "nccl_log"), "input kinds",
		    HD_INPUT_KIND_COUNT, input_kind);
	assert_enum(enum_holding(report, "missing_rank"), "verdict kinds",
		    HD_V_KIND_COUNT, verdict_kind);
	assert_enum(enum_holding(show, "watchdog_timeout"), "signal types",
		    HD_SIGT_COUNT, signal_type);
	/* each name once: no two kinds share one */
	for (int k = 0; k < HD_SIGT_COUNT; k++)
		for (int j = 0; j < k; j++)
			ck_assert_str_ne(signal_type(j), signal_type(k));
	ck_assert_str_eq(hd_signal_type_name(HD_SIGT_COUNT), "other");
}
END_TEST

/*
 * A verdict's identity keys, written one way for every JSON shape: each
 * in the order asked, a missing string as null, bytes that are not UTF-8
 * made valid instead of the key lost.
 */
START_TEST(test_verdict_id_keys)
{
	static const enum hd_report_verdict_key keys[] = {
		HD_VKEY_SUMMARY,       HD_VKEY_VERDICT,
		HD_VKEY_KIND,	       HD_VKEY_CULPRIT_RANKS,
		HD_VKEY_CULPRIT_HOSTS, HD_VKEY_CONFIDENCE,
		HD_VKEY_FINGERPRINT,   HD_VKEY_FINGERPRINT_TEXT,
		HD_VKEY_CALL_SITE,     HD_VKEY_GROUP,
		HD_VKEY_SEQ,	       HD_VKEY_OP,
		HD_VKEY_END,
	};
	static const char *const names[] = {
		"summary",	 "verdict",
		"kind",		 "culprit_ranks",
		"culprit_hosts", "confidence",
		"fingerprint",	 "fingerprint_text",
		"call_site",	 "group",
		"seq",		 "op",
	};
	const int r[] = { 3, 7 };
	g_autoptr(GArray) culprits = int_array(r, 2);
	g_autoptr(GPtrArray) hosts = g_ptr_array_new();
	g_autoptr(json_t) o = json_object();
	const char *key;
	json_t *val;
	guint i = 0;
	struct hd_report_verdict_id id = {
		.kind = "missing_rank",
		.confidence = "high",
		.culprits = culprits,
		.hosts = hosts,
		.fingerprint = "0123456789abcdef",
		.call_site = NULL,
		.group = "pg:0:[0-7]",
		.seq = -1,
		.op = "all_reduce",
		.summary = "rank 3 \xff stopped",
	};

	g_ptr_array_add(hosts, hd_unconst("node-a"));
	hd_report_json_verdict_id(o, &id, keys);
	json_object_foreach(o, key, val) {
		ck_assert_uint_lt(i, G_N_ELEMENTS(names));
		ck_assert_str_eq(key, names[i++]);
	}
	ck_assert_uint_eq(i, G_N_ELEMENTS(names));
	ck_assert_str_eq(json_string_value(json_object_get(o, "verdict")),
			 "missing_rank");
	ck_assert_str_eq(json_string_value(json_object_get(o, "summary")),
			 "rank 3 \xef\xbf\xbd stopped");
	ck_assert(json_is_null(json_object_get(o, "fingerprint_text")));
	ck_assert(json_is_null(json_object_get(o, "call_site")));
	ck_assert(json_is_null(json_object_get(o, "seq")));
	ck_assert_int_eq(json_array_size(json_object_get(o, "culprit_ranks")),
			 2);
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(o, "culprit_hosts"), 0)),
			 "node-a");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_rank_list);
	tcase_add_test(tc, test_verdict_id_keys);
	tcase_add_test(tc, test_rank_runs);
	tcase_add_test(tc, test_format_parse);
	tcase_add_test(tc, test_natural_order);
	tcase_add_test(tc, test_paint);
	tcase_add_test(tc, test_helpers);
	tcase_add_test(tc, test_code_spans);
	tcase_add_test(tc, test_kinds_match_schemas);
	tcase_add_test(tc, test_wrap);
	tcase_add_test(tc, test_log_prefix);
	tcase_add_test(tc, test_source_split);
	tcase_add_test(tc, test_json_schema);
	tcase_add_test(tc, test_json_nulls_unknown_world);
	tcase_add_test(tc, test_text_report);
	tcase_add_test(tc, test_text_report_scale);
	tcase_add_test(tc, test_text_progress_table);
	tcase_add_test(tc, test_rank_rows_every_format);
	tcase_add_test(tc, test_show_counts);
	tcase_add_test(tc, test_text_no_input);
	tcase_add_test(tc, test_markdown_report);
	tcase_add_test(tc, test_performance_note_everywhere);
	tcase_add_test(tc, test_display_filter);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(suite)
