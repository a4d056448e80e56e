/*
 * Tests for the straggler / clock-offset analysis (src/hd-straggler.c):
 * synthetic traces from scripts/gen-kineto.py with a known straggler and
 * known clock offsets, the real 8-rank DLRM traces (checked against an
 * independent count made here with jansson), and the sampled HTA pair,
 * which must not be aligned with confidence.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>

#include "hd-test-engine.h"
#include "hd-test-store.h"
#include "hd-load.h"
#include "hd-engine.h"
#include "hd-straggler.h"
#include "hd-const.h"

static struct hd_analysis *analysis_new(const struct hd_store *s)
{
	return hd_analysis_new(s);
}

static void analysis_free(struct hd_analysis *a)
{
	hd_analysis_free(a);
}

/*
 * The straggler verdict the check proposes; the engine gives it only
 * where a hang or timeout was seen (check_engine.c, docs/verdicts.md).
 */
static const struct hd_verdict *straggler(const struct hd_analysis *a)
{
	if (a->perf.candidate)
		ck_assert(a->perf.known);
	return a->perf.candidate;
}

/* Loads every file below a directory into one resolved store. */
static struct hd_store *load_dir(const char *dir)
{
	char *paths[] = { hd_unconst(dir), NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	struct hd_store *s = hd_load(paths, 1, problems);

	ck_assert_uint_eq(problems->len, 0);
	return s;
}

static struct hd_store *load_fixture(const char *name)
{
	g_autofree char *rel =
		g_build_filename("tests/data/kineto", name, NULL);
	g_autofree char *dir = hd_test_path(rel);

	return load_dir(dir);
}

static const struct hd_arrival none_arrival = { .rank = -1 };

static const struct hd_arrival *arrival(const struct hd_analysis *a, int r)
{
	for (guint i = 0; i < a->arrivals->len; i++) {
		const struct hd_arrival *x =
			&g_array_index(a->arrivals, struct hd_arrival, i);

		if (x->rank == r)
			return x;
	}
	ck_abort_msg("no arrival statistics for rank %d", r);
	return &none_arrival;
}

/*
 * One host, four ranks: ranks 0, 2, 3 from dumps (UTC), rank 1 from a
 * trace without a base time (its own origin).  Rank 1 truly starts 3 ms
 * late.  Its clock cannot share the host's UTC offset: it gets its own,
 * found from the collectives' ends, and rank 1 is last by 3 ms.  With
 * one offset per host its times were decades "early" and it was never
 * last.
 */
START_TEST(test_trace_clock_not_the_hosts)
{
	g_autoptr(hd_store) s = hd_store_new();
	struct hd_analysis *a = analysis_new(s);
	static const int ranks[] = { 0, 1, 2, 3 };
	g_autofree char *id = hd_group_id_pg("0", ranks, 4);
	const int64_t base = INT64_C(1795230763) * 1000000000;
	const int64_t origin = base - 5 * HD_NS_PER_SEC;
	uint32_t g = hd_store_group(s, id);
	const struct hd_arrival *r1;

	for (int r = 0; r < 4; r++) {
		g_autofree char *name = g_strdup_printf("rank%d", r);
		uint32_t in = hd_store_add_input(s, name);

		hd_store_input(s, in)->op_clock =
			r == 1 ? HD_CLOCK_TRACE : HD_CLOCK_UTC;
		hd_store_input(s, in)->rank = r;
		hd_rank_add_input(hd_store_rank(s, r), in);
		hd_store_rank(s, r)->host = hd_intern("node-a");
		hd_group_set_member(hd_store_group_at(s, g), r, r);
		for (int k = 1; k <= 12; k++) {
			struct hd_op_rec op = hd_test_op(
				g, r, HD_SEQ_COLLECTIVE, k, HD_OP_ALL_REDUCE,
				HD_STATE_COMPLETED);
			int64_t t = base + k * 10 * INT64_C(1000000);

			op.prov.input = in;
			op.t_start_ns = t + (r == 1 ? 3000000 : 0) + r * 100;
			op.t_end_ns = t + 5000000 + r * 50;
			if (r == 1) {
				op.t_start_ns -= origin;
				op.t_end_ns -= origin;
			}
			hd_store_add_op(s, &op);
		}
	}
	hd_store_resolve(s);
	hd_straggler_run(s, a);
	/* rank 1 is last everywhere, by its true 3 ms */
	r1 = arrival(a, 1);
	ck_assert_uint_eq(r1->times_last, 12);
	ck_assert_int_gt(r1->median_lag_ns, 2900000);
	ck_assert_int_lt(r1->median_lag_ns, 3100000);
	analysis_free(a);
}
END_TEST

/* Rank 2 starts 3 ms late everywhere; host 1 (ranks 2, 3) is +1.5 ms. */
START_TEST(test_synthetic_straggler_with_offset)
{
	g_autoptr(hd_store) s = load_fixture("straggler-eraC-gz");
	struct hd_analysis *a = analysis_new(s);
	const struct hd_verdict *v;
	const struct hd_arrival *r2, *r3;

	hd_straggler_run(s, a);
	v = straggler(a);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v->culprits->len, 1);
	ck_assert_int_eq(g_array_index(v->culprits, int, 0), 2);
	ck_assert_int_ge(v->confidence, HD_CONF_MEDIUM);
	ck_assert(v->score < 50);
	ck_assert_uint_ge(v->evidence->len, 1);
	r2 = arrival(a, 2);
	r3 = arrival(a, 3);
	ck_assert_ptr_nonnull(r2);
	ck_assert_uint_eq(r2->matched, 12);
	ck_assert_uint_eq(r2->times_last, 12);
	/* Lag ~3 ms (+ up to 20 us jitter), once the offset is removed. */
	ck_assert_int_gt(r2->median_lag_ns, 2950000);
	ck_assert_int_lt(r2->median_lag_ns, 3050000);
	/* The offset of host 1 is found, within the 1.5 us end jitter. */
	ck_assert(r3->has_offset);
	ck_assert_int_gt(r3->clock_offset_ns, 1500000 - 5000);
	ck_assert_int_lt(r3->clock_offset_ns, 1500000 + 5000);
	ck_assert_int_eq(r2->clock_offset_ns, r3->clock_offset_ns);
	ck_assert_int_lt(r3->clock_uncertainty_ns, 5000);
	analysis_free(a);
}
END_TEST

/*
 * The same straggler through the whole engine: a performance note and
 * no_fault alone; a straggler verdict once a watchdog timeout shows a
 * hang that nothing else explains.
 */
START_TEST(test_straggler_fault_needs_hang)
{
	g_autoptr(hd_store) s = load_fixture("straggler-eraC-gz");
	struct hd_analysis *a = hd_engine_run(s);
	const struct hd_verdict *v = g_ptr_array_index(a->verdicts, 0);
	struct hd_signal sig;

	ck_assert_int_eq(v->kind, HD_V_NO_FAULT);
	ck_assert(a->perf.known && !a->perf.fault);
	ck_assert_int_eq(a->perf.rank, 2);
	hd_analysis_free(a);

	hd_signal_init(&sig);
	sig.rank = 0;
	sig.cat = HD_SIG_TIMEOUT;
	sig.type = HD_SIGT_WATCHDOG_TIMEOUT;
	sig.text = hd_unconst("Watchdog caught collective operation timeout");
	hd_store_add_signal(s, &sig);
	a = hd_engine_run(s);
	v = g_ptr_array_index(a->verdicts, 0);
	ck_assert_int_eq(v->kind, HD_V_STRAGGLER);
	ck_assert_int_eq(g_array_index(v->culprits, int, 0), 2);
	ck_assert(a->perf.fault);
	hd_analysis_free(a);
}
END_TEST

/* Rank 3's host clock is +2.1 ms: raw starts say "last", truth says no. */
START_TEST(test_synthetic_offset_not_blamed)
{
	g_autoptr(hd_store) s = load_fixture("offset-eraA-zst");
	struct hd_analysis *a = analysis_new(s);
	const struct hd_arrival *r3;
	bool noted = false;

	hd_straggler_run(s, a);
	ck_assert_ptr_null(straggler(a));
	r3 = arrival(a, 3);
	ck_assert_ptr_nonnull(r3);
	ck_assert_int_gt(r3->clock_offset_ns, 2100000 - 5000);
	ck_assert_int_lt(r3->clock_offset_ns, 2100000 + 5000);
	ck_assert_uint_lt(r3->times_last, 6);
	for (guint i = 0; i < a->notes->len; i++)
		if (strstr(g_ptr_array_index(a->notes, i),
			   "clock offset: rank 3"))
			noted = true;
	ck_assert(noted);
	analysis_free(a);
}
END_TEST

/* No metadata at all (order-based matching): still found, era B. */
START_TEST(test_synthetic_straggler_no_meta)
{
	g_autoptr(hd_store) s = load_fixture("straggler-eraB-nometa");
	struct hd_analysis *a = analysis_new(s);
	const struct hd_verdict *v;

	hd_straggler_run(s, a);
	v = straggler(a);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(g_array_index(v->culprits, int, 0), 1);
	/* Order-based matching never earns high confidence. */
	ck_assert_int_le(v->confidence, HD_CONF_MEDIUM);
	ck_assert_int_gt(arrival(a, 1)->median_lag_ns, 1950000);
	analysis_free(a);
}
END_TEST

/* Late in 2 or 3 of 15: not a straggler. */
START_TEST(test_synthetic_occasional)
{
	g_autoptr(hd_store) s = load_fixture("occasional-eraC");
	struct hd_analysis *a = analysis_new(s);

	hd_straggler_run(s, a);
	ck_assert_ptr_null(straggler(a));
	ck_assert_uint_eq(a->arrivals->len, 4);
	ck_assert_uint_ge(arrival(a, 1)->times_last, 1);
	ck_assert_uint_le(arrival(a, 1)->times_last, 7);
	analysis_free(a);
}
END_TEST

/* Hand-built ops: a single late arrival is not a straggler. */
START_TEST(test_single_late)
{
	g_autoptr(hd_store) s = hd_store_new();
	struct hd_analysis *a;
	uint32_t g = hd_store_group(s, "pg:0:[0,1]");

	for (int r = 0; r < 2; r++) {
		uint32_t in = hd_store_add_input(s, r ? "b" : "a");

		for (int i = 0; i < 10; i++) {
			struct hd_op_rec op =
				hd_test_op(g, r, HD_SEQ_COLLECTIVE, i,
					   HD_OP_ALL_REDUCE, HD_STATE_UNKNOWN);

			op.t_start_ns = 1000000000LL * i +
					(r == 1 && i == 4 ? 9000000 : r * 1000);
			op.t_end_ns = 1000000000LL * i + 20000000;
			op.prov.input = in;
			hd_store_add_op(s, &op);
		}
	}
	a = analysis_new(s);
	hd_straggler_run(s, a);
	ck_assert_ptr_null(straggler(a));
	ck_assert_uint_eq(arrival(a, 1)->matched, 10);
	analysis_free(a);
}
END_TEST

/* Same kinds on both sides but disagreeing counts: refuse to align. */
START_TEST(test_misaligned_counts)
{
	g_autoptr(hd_store) s = hd_store_new();
	struct hd_analysis *a;
	const struct hd_verdict *v;
	uint32_t g = hd_store_group(s, "trace-stream:0");

	for (int r = 0; r < 2; r++) {
		uint32_t in = hd_store_add_input(s, r ? "b" : "a");

		for (int i = 0; i < 10; i++) {
			struct hd_op_rec op =
				hd_test_op(g, r, HD_SEQ_ORDINAL, i,
					   HD_OP_ALL_REDUCE, HD_STATE_UNKNOWN);
			struct hd_opdesc d =
				hd_test_desc(r ? (i + 1) * 10 : i * 10, -1,
					     HD_DTYPE_UNKNOWN);

			op.t_start_ns = 1000000000LL * i + r * 5000000;
			op.t_end_ns = 1000000000LL * i + 20000000;
			op.prov.input = in;
			hd_test_add_op(s, &op, &d);
		}
	}
	a = analysis_new(s);
	hd_straggler_run(s, a);
	ck_assert_ptr_null(straggler(a));
	v = hd_test_verdict(a, HD_V_INSUFFICIENT_DATA);
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(strstr(v->summary, "10 of 10"));
	analysis_free(a);
}
END_TEST

/* The sampled HTA pair: per-stream order does not line up. */
START_TEST(test_hta_sampled_pair)
{
	g_autofree char *dir = hd_test_path("tests/data/real-kineto/hta");
	g_autofree char *f0 =
		g_build_filename(dir, "sampled_rank-0.json.gz", NULL);
	g_autofree char *f1 =
		g_build_filename(dir, "sampled_rank-1.json.gz", NULL);
	char *paths[] = { f0, f1, NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(hd_store) s = NULL;
	struct hd_analysis *a;

	s = hd_load(paths, 1, problems);
	a = analysis_new(s);
	hd_straggler_run(s, a);
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		ck_assert(v->kind != HD_V_STRAGGLER);
	}
	ck_assert_ptr_nonnull(hd_test_verdict(a, HD_V_INSUFFICIENT_DATA));
	analysis_free(a);
}
END_TEST

struct kern {
	int64_t start, end;
};

static gint cmp_kern(gconstpointer a, gconstpointer b)
{
	const struct kern *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* NCCL kernels of one rank, by start, read with jansson (independent). */
static GArray *dlrm_kernels(const char *path, int *rank)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);
	json_t *ev, *e;
	size_t i;
	GArray *out = g_array_new(FALSE, FALSE, sizeof(struct kern));

	ck_assert_ptr_nonnull(doc);
	*rank = (int)json_integer_value(json_object_get(
		json_object_get(doc, "distributedInfo"), "rank"));
	ev = json_object_get(doc, "traceEvents");
	json_array_foreach(ev, i, e) {
		const char *cat = json_string_value(json_object_get(e, "cat"));
		const char *name =
			json_string_value(json_object_get(e, "name"));
		struct kern k;

		if (!cat || !name || strcmp(cat, "kernel") ||
		    !strstr(name, "nccl"))
			continue;
		k.start = json_integer_value(json_object_get(e, "ts")) * 1000;
		k.end = k.start +
			json_integer_value(json_object_get(e, "dur")) * 1000;
		g_array_append_val(out, k);
	}
	json_decref(doc);
	g_array_sort(out, cmp_kern);
	return out;
}

START_TEST(test_dlrm_8rank)
{
	g_autofree char *tgz =
		hd_test_path("tests/data/real-kineto/param-dlrm-8rank.tar.gz");
	g_autofree char *tmp = NULL;
	g_autofree char *cmd = NULL;
	g_autofree char *sub = NULL;
	g_autoptr(hd_store) s = NULL;
	GArray *k[8] = { 0 };
	int last_decided[8] = { 0 }, nlast = 0;
	struct hd_analysis *a;
	GDir *d;
	const char *n;

	tmp = g_dir_make_tmp("hd-dlrm-XXXXXX", NULL);
	ck_assert_ptr_nonnull(tmp);
	cmd = g_strdup_printf("tar -xzf '%s' -C '%s'", tgz, tmp);
	ck_assert_int_eq(system(cmd), 0);
	sub = g_build_filename(tmp, "dlrm_kineto", NULL);

	/* The independent count. */
	d = g_dir_open(sub, 0, NULL);
	ck_assert_ptr_nonnull(d);
	while ((n = g_dir_read_name(d))) {
		g_autofree char *p = g_build_filename(sub, n, NULL);
		int r = -1;
		GArray *x = dlrm_kernels(p, &r);

		ck_assert(r >= 0 && r < 8 && !k[r]);
		k[r] = x;
	}
	g_dir_close(d);
	for (int r = 0; r < 8; r++) {
		ck_assert_ptr_nonnull(k[r]);
		ck_assert_uint_eq(k[r]->len, 8);
	}
	for (guint i = 0; i < 8; i++) {
		int64_t emin = INT64_MAX, emax = INT64_MIN, best = INT64_MIN;
		int64_t second = INT64_MIN;
		int who = -1;

		for (int r = 0; r < 8; r++) {
			struct kern *x = &g_array_index(k[r], struct kern, i);

			emin = MIN(emin, x->end);
			emax = MAX(emax, x->end);
			if (x->start > best) {
				second = best;
				best = x->start;
				who = r;
			} else if (x->start > second) {
				second = x->start;
			}
		}
		/* Ends agree within a few microseconds on one node. */
		ck_assert_int_le(emax - emin, 10000);
		/* Clearly decided arrivals (a lead far above end jitter). */
		if (best - second > 40000) {
			last_decided[who]++;
			nlast++;
		}
	}
	ck_assert_int_ge(nlast, 4);

	s = load_dir(sub);
	a = analysis_new(s);
	hd_straggler_run(s, a);
	ck_assert_uint_eq(a->arrivals->len, 8);
	{
		uint32_t total = 0;

		for (int r = 0; r < 8; r++) {
			const struct hd_arrival *x = arrival(a, r);

			ck_assert_ptr_nonnull(x);
			ck_assert_uint_eq(x->matched, 8);
			ck_assert(x->has_offset);
			/* Each rank is its own clock here: offsets ~0. */
			ck_assert_int_lt(x->clock_offset_ns < 0
						 ? -x->clock_offset_ns
						 : x->clock_offset_ns,
					 10000);
			ck_assert_uint_ge(x->times_last, last_decided[r]);
			total += x->times_last;
		}
		ck_assert_uint_le(total, 8);
	}
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		ck_assert(v->kind != HD_V_INSUFFICIENT_DATA);
	}
	analysis_free(a);
	/*
	 * Issue 18 item 4: this is a healthy step.  Rank 7 last in 5 of 8
	 * is a performance note; no_fault, no hang moment.  Failed before:
	 * straggler [medium] rank 7, exit 1, "hang began".
	 */
	a = hd_engine_run(s);
	ck_assert(!hd_analysis_has_fault(a));
	ck_assert(!hd_analysis_undecided(a));
	ck_assert_int_eq(
		((const struct hd_verdict *)g_ptr_array_index(a->verdicts, 0))
			->kind,
		HD_V_NO_FAULT);
	ck_assert(a->perf.known);
	ck_assert_int_eq(a->perf.rank, 7);
	ck_assert_uint_eq(a->perf.times_last, 5);
	ck_assert(!a->perf.fault);
	ck_assert_int_gt(a->perf.step_ns, 0);
	ck_assert_int_gt(a->perf.others_wait_ns, 0);
	ck_assert_int_lt(a->perf.others_wait_ns, a->perf.step_ns);
	ck_assert_ptr_nonnull(strstr(a->perf.summary, "not a fault"));
	ck_assert(!a->last_completed.known && !a->first_timeout.known);
	hd_analysis_free(a);
	for (int r = 0; r < 8; r++)
		g_array_unref(k[r]);
	g_free(cmd);
	cmd = g_strdup_printf("rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("straggler");
	TCase *tc = tcase_create("synthetic");
	TCase *real = tcase_create("realdata");

	tcase_add_test(tc, test_synthetic_straggler_with_offset);
	tcase_add_test(tc, test_trace_clock_not_the_hosts);
	tcase_add_test(tc, test_synthetic_offset_not_blamed);
	tcase_add_test(tc, test_straggler_fault_needs_hang);
	tcase_add_test(tc, test_synthetic_straggler_no_meta);
	tcase_add_test(tc, test_synthetic_occasional);
	tcase_add_test(tc, test_single_late);
	tcase_add_test(tc, test_misaligned_counts);
	suite_add_tcase(s, tc);
	tcase_set_timeout(real, 60);
	tcase_add_test(real, test_hta_sampled_pair);
	tcase_add_test(real, test_dlrm_8rank);
	suite_add_tcase(s, real);
	return s;
}

HD_TEST_MAIN(suite)
