/*
 * Clocks through the whole engine: fixtures under tests/data/time load
 * with hd_load() as the CLI does, and the verdicts must respect what the
 * times can and cannot order.  An ordinary incident whose inputs carry
 * different clocks is never refused as two incidents; a crash or network
 * error is "first" only when comparable times put it first beyond the
 * clock skew; and the example incident's report times agree.
 */
#include "config.h"

#include <string.h>

#include "hd-load.h"
#include "hd-test-engine.h"

struct loaded {
	struct hd_store *s;
	struct hd_analysis *a;
};

static struct loaded load(const char *rel)
{
	g_autofree char *dir = hd_test_path(rel);
	char *paths[] = { dir, NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	struct loaded l;

	l.s = hd_load(paths, 1, problems);
	ck_assert_uint_eq(problems->len, 0);
	l.a = hd_engine_run(l.s);
	return l;
}

static void loaded_clear(struct loaded *l)
{
	hd_analysis_free(l->a);
	hd_store_free(l->s);
}

static const struct hd_verdict *top(const struct loaded *l)
{
	ck_assert_uint_gt(l->a->verdicts->len, 0);
	return g_ptr_array_index(l->a->verdicts, 0);
}

/*
 * Issue 18.1: each rank's NCCL_DEBUG_FILE (NCCL >= 2.26 dates its lines)
 * beside its stderr (glog "E0614 09:15:13", no year), ten minutes apart
 * on one day.  Once refused as "more than an hour apart"; now rank 1's
 * OOM is blamed.
 */
START_TEST(test_debug_file_beside_stderr)
{
	struct loaded l = load("tests/data/time/debug-file-beside-stderr");
	static const int want[] = { 1 };

	ck_assert_uint_eq(l.a->conflicts->len, 0);
	ck_assert_int_eq(top(&l)->kind, HD_V_RANK_CRASHED);
	hd_test_assert_culprits(top(&l), want, 1);
	loaded_clear(&l);
}
END_TEST

/*
 * Issue 18.3: the common layouts are one incident each: NCCL_DEBUG_FILE
 * beside stderr, a Slurm slurm-%j.out beside NCCL files, collectors' UTC
 * prefixes beside NCCL's local dates (also as containerd and Docker's
 * json-file write them), a rank's stderr rotated across a DST change, two
 * hosts in different zones, and torchrun per-node logs with [defaultN]:
 * prefixes beside their flight-recorder dumps.
 */
START_TEST(test_layouts_are_one_incident)
{
	static const char *const dirs[] = {
		"tests/data/time/debug-file-beside-stderr",
		"tests/data/time/slurm-out",
		"tests/data/time/collector-prefix",
		"tests/data/time/k8s-cri",
		"tests/data/time/fluentd-json",
		"tests/data/time/dst-rotated",
		"tests/data/time/zones-apart",
		"testdata/example-incident",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++) {
		struct loaded l = load(dirs[i]);

		ck_assert_msg(l.a->conflicts->len == 0, "%s: %s", dirs[i],
			      l.a->conflicts->len
				      ? (const char *)g_ptr_array_index(
						l.a->conflicts, 0)
				      : "");
		ck_assert_int_ne(top(&l)->kind, HD_V_INSUFFICIENT_DATA);
		loaded_clear(&l);
	}
}
END_TEST

/* Two inputs of one rank: a dated NCCL log and glog's month and day. */
static struct hd_store *two_logs(struct hd_time x, struct hd_time y)
{
	struct hd_store *s = hd_store_new();
	const struct hd_time t[2] = { x, y };

	for (int i = 0; i < 2; i++) {
		g_autofree char *name = g_strdup_printf("rank0.%d.log", i);
		uint32_t in = hd_store_add_input(s, name);
		struct hd_signal sig;

		hd_store_input(s, in)->kind = HD_INPUT_NCCL_LOG;
		hd_store_input(s, in)->rank = 0;
		hd_store_input(s, in)->records = 1;
		hd_rank_add_input(hd_store_rank(s, 0), in);
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_DUMP;
		sig.rank = 0;
		sig.time = t[i];
		sig.prov.input = in;
		hd_store_add_signal(s, &sig);
	}
	hd_store_resolve(s);
	return s;
}

/* The check still finds inputs hours apart on one clock, and only then. */
START_TEST(test_consistency_same_clock_only)
{
	const int64_t day = hd_days_from_civil(2026, 6, 14) * HD_NS_PER_DAY;
	const int64_t nine = 9 * 3600 * HD_NS_PER_SEC;
	const int64_t md = (hd_days_from_civil(2000, 6, 14) -
			    hd_days_from_civil(2000, 1, 1)) *
			   HD_NS_PER_DAY;
	struct hd_store *s;
	struct hd_analysis *a;

	/* local against local, three hours apart: two incidents */
	s = two_logs(hd_time_make(day + nine, HD_CLOCK_LOCAL),
		     hd_time_make(day + nine + 3 * 3600 * HD_NS_PER_SEC,
				  HD_CLOCK_LOCAL));
	a = hd_engine_run(s);
	ck_assert_uint_eq(a->conflicts->len, 1);
	ck_assert_ptr_nonnull(
		strstr(g_ptr_array_index(a->conflicts, 0), "local clock"));
	hd_analysis_free(a);
	hd_store_free(s);
	/* a dated time and glog's month and day: never compared */
	s = two_logs(hd_time_make(day + nine, HD_CLOCK_LOCAL),
		     hd_time_make(md + nine + 600 * HD_NS_PER_SEC,
				  HD_CLOCK_MONTH_DAY));
	a = hd_engine_run(s);
	ck_assert_uint_eq(a->conflicts->len, 0);
	hd_analysis_free(a);
	hd_store_free(s);
	/* a UTC time and a local one, even a day apart: not comparable */
	s = two_logs(hd_time_make(day, HD_CLOCK_UTC),
		     hd_time_make(day + HD_NS_PER_DAY, HD_CLOCK_LOCAL));
	a = hd_engine_run(s);
	ck_assert_uint_eq(a->conflicts->len, 0);
	hd_analysis_free(a);
	hd_store_free(s);
}
END_TEST

/*
 * Issue 18.2: a dated NCCL OOM at 13:00 on host-a and glog's "E0305
 * 14:02:11" CUDA error on host-b: once "rank 1 failed first"; the clocks
 * cannot be compared (host-b's log has no date), so both are named, low.
 */
START_TEST(test_crash_two_clocks)
{
	struct loaded l = load("tests/data/time/crash-two-clocks");
	static const int want[] = { 0, 1 };
	const struct hd_verdict *v = top(&l);

	ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
	ck_assert_int_eq(v->confidence, HD_CONF_LOW);
	hd_test_assert_culprits(v, want, 2);
	ck_assert_ptr_nonnull(strstr(v->summary, "cannot be compared"));
	loaded_clear(&l);
}
END_TEST

/*
 * Issue 20: a tie is not an order.  OOMs on two hosts in the same second,
 * or one second apart (inside HD_TIME_SKEW_NS), name both at low
 * confidence; five seconds apart, the first is named.
 */
START_TEST(test_crash_ties)
{
	static const char *const tied[] = {
		"tests/data/time/oom-same-second",
		"tests/data/time/oom-skew-apart",
	};
	static const int both[] = { 0, 1 }, first[] = { 0 };

	for (size_t i = 0; i < G_N_ELEMENTS(tied); i++) {
		struct loaded l = load(tied[i]);
		const struct hd_verdict *v = top(&l);

		ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
		ck_assert_int_eq(v->confidence, HD_CONF_LOW);
		hd_test_assert_culprits(v, both, 2);
		loaded_clear(&l);
	}
	{
		struct loaded l = load("tests/data/time/oom-apart");
		const struct hd_verdict *v = top(&l);

		ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
		ck_assert_int_ne(v->confidence, HD_CONF_LOW);
		hd_test_assert_culprits(v, first, 1);
		loaded_clear(&l);
	}
}
END_TEST

/*
 * Two hosts' logs concatenated into one file keep their clocks: the
 * same verdicts as the separate files (both named, low), never "rank 0
 * failed first" because one file was taken for one clock.
 */
START_TEST(test_one_file_two_clocks)
{
	static const char *const cases[] = {
		"tests/data/time/zones-apart-one-file",
		"tests/data/time/oom-skew-apart-one-file",
		"tests/data/time/crash-two-clocks-one-file",
	};
	static const int both[] = { 0, 1 };

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct loaded l = load(cases[i]);
		const struct hd_verdict *v = top(&l);

		ck_assert_msg(v->kind == HD_V_RANK_CRASHED &&
				      v->confidence == HD_CONF_LOW,
			      "%s: kind %d confidence %d", cases[i], v->kind,
			      v->confidence);
		hd_test_assert_culprits(v, both, 2);
		loaded_clear(&l);
	}
}
END_TEST

/* Issue 20: IB errors on two hosts in one second: both, low. */
START_TEST(test_network_tie)
{
	struct loaded l = load("tests/data/time/ib-same-second");
	const struct hd_verdict *v = top(&l);
	static const int both[] = { 0, 1 };

	ck_assert_int_eq(v->kind, HD_V_NETWORK_FAULT);
	ck_assert_int_eq(v->confidence, HD_CONF_LOW);
	hd_test_assert_culprits(v, both, 2);
	loaded_clear(&l);
}
END_TEST

/*
 * Issue 18.10: the example incident is coherent in time.  Its dumps end
 * (UTC) ten minutes before the watchdogs fire (local; the nodes keep UTC,
 * as the generator says), on the same day, and the watchdog's glog time
 * has its year from torchrun's dated line of the same log.
 */
START_TEST(test_example_times_agree)
{
	struct loaded l = load("testdata/example-incident");
	const struct hd_moment *done = &l.a->last_completed;
	const struct hd_moment *first = &l.a->first_timeout;
	g_autofree char *d = NULL, *f = NULL;
	int64_t gap;

	ck_assert(done->known);
	ck_assert(first->known);
	ck_assert_int_eq(done->time.clock, HD_CLOCK_UTC);
	ck_assert_int_eq(first->time.clock, HD_CLOCK_LOCAL);
	/* different clocks: the report must not order them */
	ck_assert_int_eq(l.a->hang_order, HD_ORDER_UNKNOWN);
	d = hd_time_format(done->time, 3);
	f = hd_time_format(first->time, 3);
	ck_assert(g_str_has_prefix(d, "2026-11-21 03:12:43"));
	ck_assert(g_str_has_prefix(f, "2026-11-21 03:22:44"));
	/* the generator's story: local is UTC there, the timeout 600 s */
	gap = first->time.ns - done->time.ns;
	ck_assert_int_ge(gap, 590 * HD_NS_PER_SEC);
	ck_assert_int_le(gap, 610 * HD_NS_PER_SEC);
	loaded_clear(&l);
}
END_TEST

/*
 * Aligned by evidence: a collector's UTC date in front of glog's local
 * time is one event on two clocks of one host; two such lines eight
 * minutes apart agree, so that stream's local times become UTC (here
 * +08:00).
 */
START_TEST(test_aligned_by_evidence)
{
	struct loaded l = load("tests/data/time/collector-prefix");
	const struct hd_moment *first = &l.a->first_timeout;
	g_autofree char *f = NULL;

	ck_assert(first->known);
	ck_assert_int_eq(first->time.clock, HD_CLOCK_UTC);
	f = hd_time_format(first->time, 0);
	ck_assert_str_eq(f, "2026-06-14 01:15:13 UTC");
	loaded_clear(&l);
	/* a copy stamped with one date on every line is no evidence: the
	   glog time stays local (its year from that date) */
	l = load("tests/data/nccl/date-prefix-copy");
	ck_assert(l.a->first_timeout.known);
	ck_assert_int_eq(l.a->first_timeout.time.clock, HD_CLOCK_LOCAL);
	loaded_clear(&l);
}
END_TEST

static Suite *clocks_suite(void)
{
	Suite *s = suite_create("clocks");
	TCase *tc = tcase_create("engine");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_debug_file_beside_stderr);
	tcase_add_test(tc, test_layouts_are_one_incident);
	tcase_add_test(tc, test_consistency_same_clock_only);
	tcase_add_test(tc, test_crash_two_clocks);
	tcase_add_test(tc, test_crash_ties);
	tcase_add_test(tc, test_one_file_two_clocks);
	tcase_add_test(tc, test_network_tie);
	tcase_add_test(tc, test_example_times_agree);
	tcase_add_test(tc, test_aligned_by_evidence);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(clocks_suite)
