/*
 * Verdict fingerprints: pairs of incidents with the same cause in different
 * jobs (ranks, world sizes, hosts, addresses, pids, times, paths, line
 * numbers) must get equal fingerprints, and different causes unequal ones.
 * Flight-recorder-like incidents are built by hand; NCCL-log incidents are
 * the fixtures of tests/data/nccl/ with every host, address, pid, commId
 * and path rewritten, parsed from memory.
 */
#include "config.h"

#include <string.h>

#include "hd-engine.h"
#include "hd-fingerprint.h"
#include "hd-input.h"
#include "hd-load.h"
#include "parsers.h"
#include "hd-test-engine.h"

/* One incident's shape, for incidents built by hand. */
struct job {
	int nranks;
	int culprit;
	const char *dir; /* where train.py lives in this checkout */
	int line; /* line of the call */
	const char *function; /* function that calls the collective */
	int64_t t0; /* wall clock of the first op */
	const char *host; /* host prefix */
	enum hd_verdict_kind
		cause; /* HD_V_MISSING_RANK or HD_V_SIZE_MISMATCH */
};

static struct hd_store *build(const struct job *j)
{
	struct hd_store *s = hd_store_new();
	g_autofree int *ranks = g_new(int, j->nranks);
	g_autofree char *id = NULL;
	g_autofree char *file = g_strdup_printf("%s/train.py", j->dir);
	struct hd_frame frames[2] = {
		{ hd_intern("all_reduce"),
		  hd_intern("/usr/lib/python3/site-packages/torch/distributed/"
			    "distributed_c10d.py"),
		  2050 },
		{ hd_intern(j->function), hd_intern(file), j->line },
	};
	int32_t stack = hd_store_add_stack(s, frames, 2);
	struct hd_group *g;
	uint32_t gi;

	for (int r = 0; r < j->nranks; r++)
		ranks[r] = r;
	id = hd_group_id_pg("0", ranks, j->nranks);
	gi = hd_store_group(s, id);
	g = hd_store_group_at(s, gi);
	g->name = g_strdup("0");
	g->desc = g_strdup("default_pg");
	for (int r = 0; r < j->nranks; r++) {
		g_autofree char *path = g_strdup_printf(
			"%s/dumps/nccl_trace_rank_%d", j->dir, r);
		g_autofree char *host =
			g_strdup_printf("%s%02d", j->host, r / 4);
		uint32_t in = hd_store_add_input(s, path);
		struct hd_rank *rk = hd_store_rank(s, r);
		int64_t last = r == j->culprit && j->cause == HD_V_MISSING_RANK
				       ? 7
				       : 8;

		hd_group_set_member(g, r, r);
		hd_store_input(s, in)->kind = HD_INPUT_FLIGHT_REC;
		hd_store_input(s, in)->rank = r;
		hd_store_input(s, in)->records = (uint64_t)last;
		hd_rank_add_input(rk, in);
		rk->host = hd_intern(host);
		for (int64_t q = 1; q <= last; q++) {
			struct hd_op_rec op;
			struct hd_opdesc d = hd_opdesc_blank;

			hd_op_rec_init(&op);
			hd_op_set_rank(&op.op, r);
			op.op.group = gi;
			op.op.seq = q;
			op.op.kind = HD_OP_ALL_REDUCE;
			op.op.state =
				q < 8 ? HD_STATE_COMPLETED : HD_STATE_ENQUEUED;
			d.count_in = d.count_out =
				j->cause == HD_V_SIZE_MISMATCH &&
						r == j->culprit && q == 8
					? 20
					: 16;
			d.dtype = HD_DTYPE_FLOAT32;
			hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
			op.stack = stack;
			op.t_enqueue_ns = j->t0 + q * 1000000;
			op.prov.input = in;
			op.prov.kind = HD_PROV_RECORD;
			op.prov.at = (uint64_t)q - 1;
			hd_store_add_op(s, &op);
		}
	}
	hd_store_resolve(s);
	return s;
}

/*
 * The top verdict's fingerprint of an incident built by hand; its call
 * site into *site when site is not NULL.
 */
static char *fp_of_job_site(const struct job *j, enum hd_verdict_kind want,
			    char **site)
{
	g_autoptr(hd_store) s = build(j);
	g_autoptr(hd_analysis) a = hd_engine_run(s);
	const struct hd_verdict *v;

	ck_assert_uint_gt(a->verdicts->len, 0);
	v = g_ptr_array_index(a->verdicts, 0);
	ck_assert_str_eq(hd_verdict_kind_name(v->kind),
			 hd_verdict_kind_name(want));
	ck_assert_ptr_nonnull(v->fingerprint);
	ck_assert_uint_eq(strlen(v->fingerprint), 16);
	/* The call site refines the fingerprint; it is never part of it. */
	ck_assert_ptr_null(strstr(v->fingerprint_text, "site="));
	if (site)
		*site = g_strdup(v->call_site);
	return g_strdup(v->fingerprint);
}

static char *fp_of_job(const struct job *j, enum hd_verdict_kind want)
{
	return fp_of_job_site(j, want, NULL);
}

START_TEST(test_fr_same_cause_same_fingerprint)
{
	const struct job a = { 4,
			       2,
			       "/home/alice/run-17",
			       88,
			       "train_step",
			       1700000000000000000LL,
			       "node-",
			       HD_V_MISSING_RANK };
	const struct job b = { 16,
			       11,
			       "/scratch/bob/exp3/src",
			       91,
			       "train_step",
			       1720000000000000000LL,
			       "gpu-",
			       HD_V_MISSING_RANK };
	const struct job c = { 8,	    0,
			       "/tmp/x",    88,
			       "eval_step", 1700000000000000000LL,
			       "node-",	    HD_V_MISSING_RANK };
	const struct job d = { 4,
			       1,
			       "/home/alice/run-17",
			       88,
			       "train_step",
			       1700000000000000000LL,
			       "node-",
			       HD_V_SIZE_MISMATCH };
	const struct job e = { 32,	     30,
			       "/data/run9", 300,
			       "train_step", 1710000000000000000LL,
			       "h",	     HD_V_SIZE_MISMATCH };
	g_autofree char *sa = NULL, *sb = NULL, *sc = NULL;
	g_autofree char *fa = fp_of_job_site(&a, HD_V_MISSING_RANK, &sa);
	g_autofree char *fb = fp_of_job_site(&b, HD_V_MISSING_RANK, &sb);
	g_autofree char *fc = fp_of_job_site(&c, HD_V_MISSING_RANK, &sc);
	g_autofree char *fd = fp_of_job(&d, HD_V_SIZE_MISMATCH);
	g_autofree char *fe = fp_of_job(&e, HD_V_SIZE_MISMATCH);

	/* Other job, ranks, world size, hosts, times, paths, line. */
	ck_assert_str_eq(fa, fb);
	ck_assert_str_eq(fd, fe);
	/* Another kind, another cause. */
	ck_assert_str_ne(fa, fd);
	/*
	 * Another call site: one cause (a log of the same hang has no
	 * stack), told apart by the refinement, which drops the directory
	 * and the line.
	 */
	ck_assert_str_eq(fa, fc);
	ck_assert_str_eq(sa, "train.py:train_step");
	ck_assert_str_eq(sb, "train.py:train_step");
	ck_assert_str_eq(sc, "train.py:eval_step");
}
END_TEST

/* Replaces every from[i] by to[i] in text.  (transfer full) */
static char *rewrite(const char *text, const char *const *from,
		     const char *const *to, size_t n)
{
	char *cur = g_strdup(text);

	for (size_t i = 0; i < n; i++) {
		g_auto(GStrv) parts = g_strsplit(cur, from[i], -1);

		g_free(cur);
		cur = g_strjoinv(to[i], parts);
	}
	return cur;
}

/*
 * The top verdict's fingerprint of a tests/data/nccl/ fixture, its texts
 * rewritten and its files named below prefix.
 */
static char *fp_of_fixture(const char *fixture, const char *prefix,
			   const char *const *from, const char *const *to,
			   size_t n)
{
	g_autofree char *rel = g_strdup_printf("tests/data/nccl/%s", fixture);
	g_autofree char *dir = hd_test_path(rel);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(hd_store) s = hd_store_new();
	g_autoptr(hd_analysis) a = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const struct hd_verdict *v;
	const char *name;

	ck_assert_ptr_nonnull(d);
	while ((name = g_dir_read_name(d)))
		g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
	for (guint i = 0; i < names->len; i++) {
		const char *base = g_ptr_array_index(names, i);
		g_autofree char *path = g_build_filename(dir, base, NULL);
		g_autofree char *label = g_strdup_printf("%s/%s", prefix, base);
		g_autofree char *raw = NULL;
		g_autoptr(hd_reader) rd = NULL;
		char *text;

		ck_assert(g_file_get_contents(path, &raw, NULL, NULL));
		text = rewrite(raw, from, to, n);
		g_ptr_array_add(texts, text);
		rd = hd_reader_new_from_memory(text, strlen(text), NULL);
		ck_assert_ptr_nonnull(rd);
		hd_store_merge(
			s, parsers_parse_input(rd, label, HD_INPUT_UNKNOWN));
	}
	hd_store_resolve(s);
	a = hd_engine_run(s);
	ck_assert_uint_gt(a->verdicts->len, 0);
	v = g_ptr_array_index(a->verdicts, 0);
	ck_assert_ptr_nonnull(v->fingerprint);
	return g_strdup(v->fingerprint);
}

START_TEST(test_nccl_same_cause_same_fingerprint)
{
	static const char *const from[] = { "node-a",
					    "node-b",
					    "10.1.0.",
					    "40",
					    "0x8888999900001111",
					    "0x7777888899990000",
					    "E305 14:32" };
	static const char *const to[] = { "gpu-x17",
					  "gpu-q03",
					  "172.20.9.",
					  "71",
					  "0x1234abcd00005678",
					  "0xfeedbeef00001111",
					  "E1111 02:07" };
	const size_t n = G_N_ELEMENTS(from);
	g_autofree char *net1 =
		fp_of_fixture("network-fault", "/srv/inc/4711", NULL, NULL, 0);
	g_autofree char *net2 =
		fp_of_fixture("network-fault", "/tmp/b/j9", from, to, n);
	g_autofree char *crash1 =
		fp_of_fixture("rank-crashed", "/srv/inc/1", NULL, NULL, 0);
	g_autofree char *crash2 =
		fp_of_fixture("rank-crashed", "x/y", from, to, n);
	g_autofree char *init1 =
		fp_of_fixture("init-failure", "/srv/inc/2", NULL, NULL, 0);
	g_autofree char *init2 =
		fp_of_fixture("init-failure", "z", from, to, n);

	ck_assert_str_eq(net1, net2);
	ck_assert_str_eq(crash1, crash2);
	ck_assert_str_eq(init1, init2);
	ck_assert_str_ne(net1, crash1);
	ck_assert_str_ne(net1, init1);
	ck_assert_str_ne(crash1, init1);
}
END_TEST

/* The top verdict of hd_load() over paths (NULL-terminated, relative). */
static const struct hd_verdict *top_of(hd_analysis **out, hd_store **store,
				       const char *const *rel)
{
	g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);

	for (size_t i = 0; rel[i]; i++)
		g_ptr_array_add(paths, hd_test_path(rel[i]));
	g_ptr_array_add(paths, NULL);
	*store = hd_load((char **)paths->pdata, 1, NULL);
	ck_assert_ptr_nonnull(*store);
	*out = hd_engine_run(*store);
	ck_assert_uint_gt((*out)->verdicts->len, 0);
	return g_ptr_array_index((*out)->verdicts, 0);
}

/*
 * One hang seen through its flight-recorder dumps, its logs, or both has
 * one fingerprint (issue 18): the call site that only the dumps record is
 * a refinement beside it.
 */
START_TEST(test_one_incident_one_fingerprint)
{
	static const char *const fr[] = { "testdata/example-incident/fr",
					  NULL };
	static const char *const logs[] = { "testdata/example-incident/logs",
					    NULL };
	static const char *const both[] = { "testdata/example-incident/fr",
					    "testdata/example-incident/logs",
					    NULL };
	g_autoptr(hd_store) s1 = NULL, s2 = NULL, s3 = NULL;
	g_autoptr(hd_analysis) a1 = NULL, a2 = NULL, a3 = NULL;
	const struct hd_verdict *v1 = top_of(&a1, &s1, fr);
	const struct hd_verdict *v2 = top_of(&a2, &s2, logs);
	const struct hd_verdict *v3 = top_of(&a3, &s3, both);

	ck_assert_int_eq(v1->kind, HD_V_MISSING_RANK);
	ck_assert_int_eq(v2->kind, HD_V_MISSING_RANK);
	ck_assert_int_eq(v3->kind, HD_V_MISSING_RANK);
	ck_assert_str_eq(v1->fingerprint, v2->fingerprint);
	ck_assert_str_eq(v1->fingerprint, v3->fingerprint);
	ck_assert_str_eq(v1->call_site, "train.py:train_step");
	ck_assert_ptr_null(v2->call_site);
	ck_assert_str_eq(v3->call_site, "train.py:train_step");
}
END_TEST

/*
 * A healthy run is one cause whatever it was read from: dumps, logs with
 * a signal or a trace of many ops give one no_fault fingerprint.
 */
START_TEST(test_healthy_one_fingerprint)
{
	static const char *const fr[] = { "tests/data/fr/healthy", NULL };
	static const char *const logs[] = { "tests/data/nccl/healthy", NULL };
	static const char *const outlived[] = {
		"tests/data/nccl/healthy-warn-outlived", NULL
	};
	g_autoptr(hd_store) s1 = NULL, s2 = NULL, s3 = NULL;
	g_autoptr(hd_analysis) a1 = NULL, a2 = NULL, a3 = NULL;
	const struct hd_verdict *v1 = top_of(&a1, &s1, fr);
	const struct hd_verdict *v2 = top_of(&a2, &s2, logs);
	const struct hd_verdict *v3 = top_of(&a3, &s3, outlived);

	ck_assert_int_eq(v1->kind, HD_V_NO_FAULT);
	ck_assert_int_eq(v2->kind, HD_V_NO_FAULT);
	ck_assert_int_eq(v3->kind, HD_V_NO_FAULT);
	ck_assert_str_eq(v1->fingerprint, v2->fingerprint);
	ck_assert_str_eq(v1->fingerprint, v3->fingerprint);
}
END_TEST

START_TEST(test_normalize)
{
	g_autoptr(hd_store) s = hd_store_new();
	g_autofree char *a = NULL, *b = NULL, *c = NULL;

	hd_store_rank(s, 3)->host = hd_intern("node-b");
	a = hd_fingerprint_normalize(
		"node-b:4085:4235 [1] transport/net_ib.cc:1696 NCCL WARN "
		"NET/IB: peer 10.1.0.3<36123> status=12 at 0x7f00aa000000 "
		"in /home/u/run/train.py",
		s);
	ck_assert_str_eq(a, "<host>:N:N [N] <path> NCCL WARN NET/IB: peer "
			    "<ip><N> status=N at <hex> in <path>");
	b = hd_fingerprint_normalize("  rank 12\t\tfailed   ", NULL);
	ck_assert_str_eq(b, "rank N failed");
	/* A longer host name is not cut by a shorter one. */
	hd_store_rank(s, 4)->host = hd_intern("node-b2");
	c = hd_fingerprint_normalize("node-b2 and node-bx", s);
	ck_assert_str_eq(c, "<host> and node-bx");
}
END_TEST

START_TEST(test_hash)
{
	g_autofree char *h0 = hd_fingerprint_hash("");
	g_autofree char *h1 = hd_fingerprint_hash("a");

	ck_assert_str_eq(h0, "cbf29ce484222325");
	ck_assert_str_eq(h1, "af63dc4c8601ec8c");
}
END_TEST

/* Two incidents given as one: conflicts, no blame, unless merged. */
START_TEST(test_inconsistent_inputs)
{
	const struct job a = { 4,
			       2,
			       "/a",
			       88,
			       "train_step",
			       1700000000000000000LL,
			       "node-",
			       HD_V_MISSING_RANK };
	const struct job b = { 8,
			       5,
			       "/b",
			       88,
			       "train_step",
			       1700000000000000000LL,
			       "node-",
			       HD_V_SIZE_MISMATCH };
	g_autoptr(hd_store) s = build(&a);
	g_autoptr(hd_analysis) refused = NULL;
	g_autoptr(hd_analysis) merged = NULL;
	g_autoptr(hd_analysis) alone = NULL;
	const struct hd_verdict *v;

	alone = hd_engine_run(s);
	ck_assert_uint_eq(alone->conflicts->len, 0);
	ck_assert(!hd_analysis_is_inconsistent(alone));
	hd_store_merge(s, build(&b));
	hd_store_resolve(s);
	refused = hd_engine_run(s);
	ck_assert_uint_gt(refused->conflicts->len, 0);
	ck_assert(hd_analysis_is_inconsistent(refused));
	ck_assert(!hd_analysis_has_fault(refused));
	ck_assert_uint_eq(refused->verdicts->len, 1);
	v = g_ptr_array_index(refused->verdicts, 0);
	ck_assert_int_eq(v->kind, HD_V_INSUFFICIENT_DATA);
	ck_assert_uint_eq(v->culprits->len, 0);
	merged = hd_engine_run_opts(s,
				    &(struct hd_engine_opts){ .merge = true });
	ck_assert(merged->merged);
	ck_assert(!hd_analysis_is_inconsistent(merged));
	ck_assert_uint_gt(merged->conflicts->len, 0);
	ck_assert(hd_analysis_has_fault(merged));
}
END_TEST

static Suite *fingerprint_suite(void)
{
	Suite *s = suite_create("fingerprint");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fr_same_cause_same_fingerprint);
	tcase_add_test(tc, test_nccl_same_cause_same_fingerprint);
	tcase_add_test(tc, test_one_incident_one_fingerprint);
	tcase_add_test(tc, test_healthy_one_fingerprint);
	tcase_add_test(tc, test_normalize);
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_inconsistent_inputs);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(fingerprint_suite)
