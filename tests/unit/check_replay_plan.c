/*
 * Tests for replay plans: extraction from hand-built stores and verdicts
 * for each divergence kind and a healthy incident, --scale, --fix, the
 * JSON round trip, hostile plan files, and (in a CUDA build) that the
 * runner reaps its children when there is no GPU.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hd-test.h"
#include "hd-test-store.h"
#include "hd-engine.h"
#include "hd-error.h"
#include "replay-plan.h"
#include "hd-report-replay.h"
#include "replay-run.h"
#include "hd-banned.h"

/* A store with one group "pg:0" of n ranks, group rank r = global r. */
static struct hd_store *mkstore(int n, uint32_t *gi)
{
	struct hd_store *s = hd_store_new();
	struct hd_group *g;

	hd_store_add_input(s, "test.log");
	*gi = hd_store_group(s, "pg:0");
	g = hd_store_group_at(s, *gi);
	for (int r = 0; r < n; r++)
		hd_group_set_member(g, r, r);
	g->nranks = n;
	return s;
}

static void add_op(struct hd_store *s, uint32_t gi, int rank, uint8_t sk,
		   int64_t seq, enum hd_op_kind kind, int64_t cin, int64_t cout,
		   enum hd_dtype dt, int peer, uint8_t state)
{
	struct hd_op_rec op = hd_test_op(gi, rank, sk, seq, kind, state);
	struct hd_opdesc d = hd_test_desc(cin, cout, dt);

	d.redop = kind == HD_OP_ALL_REDUCE || kind == HD_OP_REDUCE ||
				  kind == HD_OP_REDUCE_SCATTER
			  ? HD_REDOP_SUM
			  : HD_REDOP_NONE;
	d.peer = peer;
	hd_test_add_op(s, &op, &d);
}

/* n ranks of all_reduce(100, float32) at positions 0..upto-1. */
static struct hd_store *healthy_prefix(int n, int upto, uint32_t *gi)
{
	struct hd_store *s = mkstore(n, gi);

	for (int seq = 0; seq < upto; seq++)
		for (int r = 0; r < n; r++)
			add_op(s, *gi, r, HD_SEQ_COLLECTIVE, seq,
			       HD_OP_ALL_REDUCE, 100, 100, HD_DTYPE_FLOAT32, -1,
			       HD_STATE_COMPLETED);
	return s;
}

static struct hd_verdict *mkverdict(enum hd_verdict_kind k, int64_t group,
				    int64_t seq)
{
	struct hd_verdict *v = hd_verdict_new(k, HD_CONF_HIGH, "test");

	v->group = group;
	v->seq = seq;
	return v;
}

static const struct replay_op *op_at(const struct replay_plan *p, int rank,
				     guint i)
{
	const struct replay_rank *r = g_ptr_array_index(p->ranks, rank);

	ck_assert_uint_lt(i, r->ops->len);
	return &g_array_index(r->ops, struct replay_op, i);
}

static guint nops(const struct replay_plan *p, int rank)
{
	return ((const struct replay_rank *)g_ptr_array_index(p->ranks, rank))
		->ops->len;
}

/* The plan as `replay --dry-run` prints it: the header, then each rank. */
static char *plan_text(const struct replay_plan *p)
{
	GString *out = g_string_new(NULL);
	g_autofree char *header = hd_report_plan_header_text(p);

	g_string_append(out, header);
	for (guint r = 0; r < p->ranks->len; r++) {
		g_autofree char *ops = hd_report_plan_rank_text(p, r);

		g_string_append(out, ops);
	}
	return g_string_free(out, FALSE);
}

/* Asserts rank's ops have exactly these positions, divergent from div. */
static void assert_seqs(const struct replay_plan *p, int rank,
			const int64_t *seqs, guint n, int64_t div)
{
	ck_assert_uint_eq(nops(p, rank), n);
	for (guint i = 0; i < n; i++) {
		ck_assert_int_eq(op_at(p, rank, i)->seq, seqs[i]);
		ck_assert_int_eq(op_at(p, rank, i)->divergent,
				 div >= 0 && seqs[i] >= div);
	}
}

START_TEST(test_size_mismatch)
{
	uint32_t gi;
	g_autoptr(hd_store) s = healthy_prefix(4, 6, &gi);
	g_autoptr(GError) err = NULL;
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	static const int64_t seqs[] = { 2, 3, 4, 5, 6 };

	for (int r = 0; r < 4; r++)
		add_op(s, gi, r, HD_SEQ_COLLECTIVE, 6, HD_OP_ALL_REDUCE,
		       r == 3 ? 200 : 100, r == 3 ? 200 : 100, HD_DTYPE_FLOAT32,
		       -1, HD_STATE_STARTED);
	/* A later position that is not part of the plan. */
	add_op(s, gi, 0, HD_SEQ_COLLECTIVE, 7, HD_OP_ALL_REDUCE, 5, 5,
	       HD_DTYPE_FLOAT32, -1, HD_STATE_ENQUEUED);
	v = mkverdict(HD_V_SIZE_MISMATCH, gi, 6);
	p = replay_plan_from_verdict(s, v, 4, &err);
	hd_verdict_free(v);
	ck_assert_msg(p != NULL, "%s", err ? err->message : "");
	ck_assert_str_eq(p->verdict, "size_mismatch");
	ck_assert_str_eq(p->group_id, "pg:0");
	ck_assert_int_eq(p->seq, 6);
	ck_assert_uint_eq(p->ranks->len, 4);
	for (int r = 0; r < 4; r++) {
		const struct replay_rank *rr = g_ptr_array_index(p->ranks, r);

		ck_assert_int_eq(rr->rank, r);
		ck_assert_int_eq(rr->global_rank, r);
		assert_seqs(p, r, seqs, 5, 6);
		for (guint i = 0; i < 4; i++) {
			ck_assert_int_eq(op_at(p, r, i)->kind,
					 HD_OP_ALL_REDUCE);
			ck_assert_int_eq(op_at(p, r, i)->count, 100);
			ck_assert_int_eq(op_at(p, r, i)->redop, HD_REDOP_SUM);
			ck_assert_int_eq(op_at(p, r, i)->state,
					 HD_STATE_COMPLETED);
		}
		ck_assert_int_eq(op_at(p, r, 4)->count, r == 3 ? 200 : 100);
		ck_assert_int_eq(op_at(p, r, 4)->coalesce, -1);
	}
	ck_assert(replay_plan_validate(p, NULL));

	/* --fix: every rank takes the majority's count. */
	replay_plan_fix(p);
	ck_assert(p->fixed);
	for (int r = 0; r < 4; r++) {
		ck_assert_uint_eq(nops(p, r), 5);
		ck_assert_int_eq(op_at(p, r, 4)->count, 100);
	}
}
END_TEST

START_TEST(test_type_mismatch)
{
	uint32_t gi;
	g_autoptr(hd_store) s = healthy_prefix(4, 3, &gi);
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	static const int64_t seqs[] = { 1, 2, 3 };

	for (int r = 0; r < 4; r++)
		if (r == 2)
			add_op(s, gi, r, HD_SEQ_COLLECTIVE, 3, HD_OP_ALL_GATHER,
			       50, 200, HD_DTYPE_FLOAT32, -1, HD_STATE_STARTED);
		else
			add_op(s, gi, r, HD_SEQ_COLLECTIVE, 3, HD_OP_ALL_REDUCE,
			       100, 100, HD_DTYPE_FLOAT32, -1,
			       HD_STATE_STARTED);
	v = mkverdict(HD_V_TYPE_MISMATCH, gi, 3);
	p = replay_plan_from_verdict(s, v, 2, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);
	for (int r = 0; r < 4; r++)
		assert_seqs(p, r, seqs, 3, 3);
	ck_assert_int_eq(op_at(p, 2, 2)->kind, HD_OP_ALL_GATHER);
	/* all_gather takes the per-rank send count */
	ck_assert_int_eq(op_at(p, 2, 2)->count, 50);
	ck_assert_int_eq(op_at(p, 1, 2)->kind, HD_OP_ALL_REDUCE);

	replay_plan_fix(p);
	ck_assert_int_eq(op_at(p, 2, 2)->kind, HD_OP_ALL_REDUCE);
	ck_assert_int_eq(op_at(p, 2, 2)->count, 100);
	ck_assert_int_eq(op_at(p, 2, 2)->redop, HD_REDOP_SUM);
}
END_TEST

START_TEST(test_dtype_mismatch)
{
	uint32_t gi;
	g_autoptr(hd_store) s = healthy_prefix(2, 1, &gi);
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;

	add_op(s, gi, 0, HD_SEQ_COLLECTIVE, 1, HD_OP_REDUCE_SCATTER, 400, -1,
	       HD_DTYPE_FLOAT32, -1, HD_STATE_STARTED);
	add_op(s, gi, 1, HD_SEQ_COLLECTIVE, 1, HD_OP_REDUCE_SCATTER, 400, 200,
	       HD_DTYPE_BFLOAT16, -1, HD_STATE_STARTED);
	v = mkverdict(HD_V_DTYPE_MISMATCH, gi, 1);
	p = replay_plan_from_verdict(s, v, 4, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(nops(p, 0), 2);
	ck_assert_uint_eq(nops(p, 1), 2);
	ck_assert_int_eq(op_at(p, 0, 1)->dtype, HD_DTYPE_FLOAT32);
	ck_assert_int_eq(op_at(p, 1, 1)->dtype, HD_DTYPE_BFLOAT16);
	/* reduce_scatter: recv count, derived from in / nranks if unknown */
	ck_assert_int_eq(op_at(p, 0, 1)->count, 200);
	ck_assert_int_eq(op_at(p, 1, 1)->count, 200);
}
END_TEST

START_TEST(test_root_mismatch)
{
	uint32_t gi;
	g_autoptr(hd_store) s = healthy_prefix(4, 2, &gi);
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	g_autofree char *text = NULL;

	for (int r = 0; r < 4; r++)
		add_op(s, gi, r, HD_SEQ_COLLECTIVE, 2, HD_OP_BROADCAST, 64, 64,
		       HD_DTYPE_INT64, r == 3 ? 1 : 0, HD_STATE_STARTED);
	v = mkverdict(HD_V_ROOT_MISMATCH, gi, 2);
	p = replay_plan_from_verdict(s, v, 4, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);
	for (int r = 0; r < 4; r++) {
		ck_assert_uint_eq(nops(p, r), 3);
		ck_assert_int_eq(op_at(p, r, 2)->kind, HD_OP_BROADCAST);
		ck_assert_int_eq(op_at(p, r, 2)->peer, r == 3 ? 1 : 0);
		ck_assert_int_eq(op_at(p, r, 2)->count, 64);
	}
	text = plan_text(p);
	ck_assert_ptr_nonnull(
		strstr(text, "broadcast count=64 dtype=int64 root=1"));
	ck_assert_ptr_nonnull(strstr(text, "communicator pg:0: 4 ranks"));
}
END_TEST

START_TEST(test_missing_rank)
{
	uint32_t gi;
	g_autoptr(hd_store) s = healthy_prefix(4, 8, &gi);
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	static const int64_t full[] = { 4, 5, 6, 7, 8 };

	for (int r = 0; r < 3; r++)
		add_op(s, gi, r, HD_SEQ_COLLECTIVE, 8, HD_OP_ALL_REDUCE, 100,
		       100, HD_DTYPE_FLOAT32, -1, HD_STATE_STARTED);
	v = mkverdict(HD_V_MISSING_RANK, gi, 8);
	hd_verdict_add_culprit(v, 3);
	p = replay_plan_from_verdict(s, v, 4, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->ranks->len, 4);
	for (int r = 0; r < 3; r++)
		assert_seqs(p, r, full, 5, 8);
	assert_seqs(p, 3, full, 4, 8);

	/* --fix drops the collective the absent rank never called. */
	replay_plan_fix(p);
	for (int r = 0; r < 4; r++)
		assert_seqs(p, r, full, 4, 8);
}
END_TEST

START_TEST(test_p2p_unmatched)
{
	uint32_t gi;
	g_autoptr(hd_store) s = mkstore(2, &gi);
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	static const int64_t s0[] = { 0, 1, 2 }, s1[] = { 0, 1 };

	/* A collective in the same group must not enter a p2p plan. */
	add_op(s, gi, 0, HD_SEQ_COLLECTIVE, 0, HD_OP_ALL_REDUCE, 1, 1,
	       HD_DTYPE_FLOAT32, -1, HD_STATE_COMPLETED);
	for (int seq = 0; seq < 3; seq++)
		add_op(s, gi, 0, HD_SEQ_P2P, seq, HD_OP_SEND, 32, -1,
		       HD_DTYPE_FLOAT16, 1,
		       seq < 2 ? HD_STATE_COMPLETED : HD_STATE_STARTED);
	for (int seq = 0; seq < 2; seq++)
		add_op(s, gi, 1, HD_SEQ_P2P, seq, HD_OP_RECV, -1, 32,
		       HD_DTYPE_FLOAT16, 0, HD_STATE_COMPLETED);
	v = mkverdict(HD_V_P2P_UNMATCHED, gi, 2);
	p = replay_plan_from_verdict(s, v, 4, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->seq_kind, HD_SEQ_P2P);
	assert_seqs(p, 0, s0, 3, 2);
	assert_seqs(p, 1, s1, 2, 2);
	for (guint i = 0; i < 3; i++) {
		ck_assert_int_eq(op_at(p, 0, i)->kind, HD_OP_SEND);
		ck_assert_int_eq(op_at(p, 0, i)->peer, 1);
		ck_assert_int_eq(op_at(p, 0, i)->count, 32);
	}
	ck_assert_int_eq(op_at(p, 1, 0)->kind, HD_OP_RECV);
	ck_assert_int_eq(op_at(p, 1, 0)->peer, 0);
	ck_assert_int_eq(op_at(p, 1, 0)->count, 32);

	/* --fix drops the send nobody receives. */
	replay_plan_fix(p);
	ck_assert_uint_eq(nops(p, 0), 2);
	ck_assert_uint_eq(nops(p, 1), 2);
	ck_assert_int_eq(op_at(p, 0, 1)->seq, 1);
}
END_TEST

/* A deadlock cycle (no position): both ranks send first, from log order. */
START_TEST(test_p2p_cycle)
{
	uint32_t gi;
	g_autoptr(hd_store) s = mkstore(2, &gi);
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	static const int64_t seqs[] = { 1, 2, 3 };

	for (int r = 0; r < 2; r++) {
		for (int seq = 0; seq < 3; seq++)
			add_op(s, gi, r, HD_SEQ_ORDINAL, seq, HD_OP_ALL_REDUCE,
			       4, 4, HD_DTYPE_FLOAT32, -1, HD_STATE_ENQUEUED);
		add_op(s, gi, r, HD_SEQ_ORDINAL, 3, HD_OP_SEND, 8, -1,
		       HD_DTYPE_FLOAT32, 1 - r, HD_STATE_ENQUEUED);
	}
	v = mkverdict(HD_V_P2P_UNMATCHED, gi, -1);
	p = replay_plan_from_verdict(s, v, 2, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->seq, 3);
	for (int r = 0; r < 2; r++) {
		assert_seqs(p, r, seqs, 3, 3);
		ck_assert_int_eq(op_at(p, r, 2)->kind, HD_OP_SEND);
		ck_assert_int_eq(op_at(p, r, 2)->peer, 1 - r);
	}
}
END_TEST

START_TEST(test_healthy)
{
	uint32_t gi, small;
	g_autoptr(hd_store) s = healthy_prefix(4, 10, &gi);
	g_autoptr(GError) err = NULL;
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	static const int64_t last[] = { 7, 8, 9 };

	/* A two-rank group with more ops must not win: fewer members. */
	small = hd_store_group(s, "pg:1");
	hd_group_set_member(hd_store_group_at(s, small), 0, 0);
	hd_group_set_member(hd_store_group_at(s, small), 1, 1);
	for (int seq = 0; seq < 60; seq++)
		for (int r = 0; r < 2; r++)
			add_op(s, small, r, HD_SEQ_COLLECTIVE, seq,
			       HD_OP_ALL_GATHER, 8, 16, HD_DTYPE_FLOAT32, -1,
			       HD_STATE_COMPLETED);

	v = mkverdict(HD_V_NO_FAULT, -1, -1);
	p = replay_plan_from_verdict(s, v, 4, &err);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(err);
	ck_assert_int_eq(err->code, HD_ERROR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err->message, "no replayable divergence"));
	g_clear_error(&err);
	hd_verdict_free(v);
	/* straggler, network_fault, rank_crashed, init_failure too */
	ck_assert(!replay_verdict_is_replayable(HD_V_STRAGGLER));
	ck_assert(!replay_verdict_is_replayable(HD_V_NETWORK_FAULT));
	ck_assert(!replay_verdict_is_replayable(HD_V_RANK_CRASHED));
	ck_assert(!replay_verdict_is_replayable(HD_V_INIT_FAILURE));
	ck_assert(!replay_verdict_is_replayable(HD_V_INSUFFICIENT_DATA));
	ck_assert(replay_verdict_is_replayable(HD_V_MISSING_RANK));

	/* A replayable kind without a position is refused too. */
	v = mkverdict(HD_V_SIZE_MISMATCH, gi, -1);
	ck_assert_ptr_null(replay_plan_from_verdict(s, v, 4, NULL));
	hd_verdict_free(v);

	p = replay_plan_healthy(s, 3, &err);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->group_id, "pg:0");
	ck_assert_ptr_null(p->verdict);
	ck_assert_int_eq(p->seq, -1);
	for (int r = 0; r < 4; r++)
		assert_seqs(p, r, last, 3, -1);
}
END_TEST

START_TEST(test_coalesced_and_dedup)
{
	uint32_t gi;
	g_autoptr(hd_store) s = mkstore(2, &gi);
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	g_autofree char *text = NULL;
	struct hd_op_rec op;
	struct hd_opdesc d;

	for (int r = 0; r < 2; r++) {
		/* position 0: a batch of two all_reduces */
		for (int k = 0; k < 2; k++) {
			hd_op_rec_init(&op);
			d = hd_opdesc_blank;
			hd_op_set_rank(&op.op, r);
			op.op.group = gi;
			op.op.seq = 0;
			op.op.kind = HD_OP_ALL_REDUCE;
			d.count_in = d.count_out = 10 + k;
			d.dtype = HD_DTYPE_FLOAT32;
			d.redop = HD_REDOP_SUM;
			op.op.flags = HD_OPF_COALESCED_MEMBER;
			op.op.state = HD_STATE_COMPLETED;
			hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
			hd_store_add_op(s, &op);
		}
		/* position 1, seen twice (log and dump): one call */
		for (int k = 0; k < 2; k++)
			add_op(s, gi, r, HD_SEQ_COLLECTIVE, 1, HD_OP_ALL_REDUCE,
			       7, 7, HD_DTYPE_FLOAT32, -1, HD_STATE_STARTED);
	}
	add_op(s, gi, 1, HD_SEQ_COLLECTIVE, 2, HD_OP_BARRIER, -1, -1,
	       HD_DTYPE_UNKNOWN, -1, HD_STATE_STARTED);
	v = mkverdict(HD_V_MISSING_RANK, gi, 2);
	p = replay_plan_from_verdict(s, v, 4, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(nops(p, 0), 3);
	ck_assert_uint_eq(nops(p, 1), 4);
	ck_assert_int_ge(op_at(p, 0, 0)->coalesce, 0);
	ck_assert_int_eq(op_at(p, 0, 0)->coalesce, op_at(p, 0, 1)->coalesce);
	ck_assert_int_eq(op_at(p, 0, 2)->coalesce, -1);
	ck_assert_int_eq(op_at(p, 1, 3)->kind, HD_OP_BARRIER);
	ck_assert_int_eq(op_at(p, 1, 3)->count, -1);
	text = plan_text(p);
	ck_assert_ptr_nonnull(strstr(text, "ncclGroupStart"));
	ck_assert_ptr_nonnull(strstr(text, "ncclGroupEnd"));
	ck_assert_ptr_nonnull(strstr(text, "count=?"));
}
END_TEST

START_TEST(test_scale)
{
	uint32_t gi;
	g_autoptr(hd_store) s = mkstore(3, &gi);
	struct hd_verdict *v;
	g_autoptr(replay_plan) p = NULL;
	g_autoptr(GError) err = NULL;
	static const int64_t counts[3] = { 1000, 1001, 3 };

	for (int r = 0; r < 3; r++) {
		add_op(s, gi, r, HD_SEQ_COLLECTIVE, 0, HD_OP_ALL_REDUCE, 1000,
		       1000, HD_DTYPE_FLOAT32, -1, HD_STATE_COMPLETED);
		add_op(s, gi, r, HD_SEQ_COLLECTIVE, 1, HD_OP_ALL_REDUCE,
		       counts[r], counts[r], HD_DTYPE_FLOAT32, -1,
		       HD_STATE_STARTED);
	}
	v = mkverdict(HD_V_SIZE_MISMATCH, gi, 1);
	p = replay_plan_from_verdict(s, v, 4, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);

	ck_assert(!replay_plan_scale(p, 0.0, NULL));
	ck_assert(!replay_plan_scale(p, 1.5, NULL));
	ck_assert(!replay_plan_scale(p, -0.5, NULL));
	ck_assert_int_eq(op_at(p, 0, 0)->count, 1000);

	/* 3 -> 1, 1000 -> 1 bumped to 2, 1001 -> 1 bumped to 3 */
	ck_assert(replay_plan_scale(p, 0.001, &err));
	for (int r = 0; r < 3; r++)
		ck_assert_int_eq(op_at(p, r, 0)->count, 2);
	ck_assert_int_eq(op_at(p, 0, 1)->count, 2);
	ck_assert_int_eq(op_at(p, 1, 1)->count, 3);
	ck_assert_int_eq(op_at(p, 2, 1)->count, 1);
	ck_assert(p->scale > 0.00099 && p->scale < 0.00101);
}
END_TEST

START_TEST(test_scale_plain)
{
	g_autoptr(replay_plan) p = replay_plan_new();
	struct replay_rank *r = replay_plan_add_rank(p, 0);
	static const int64_t in[] = { 100, 200, 100, 0, -1, 3 };
	static const int64_t want[] = { 50, 100, 50, 0, -1, 2 };

	for (size_t i = 0; i < G_N_ELEMENTS(in); i++) {
		struct replay_op o = { .kind = HD_OP_ALL_REDUCE,
				       .count = in[i],
				       .dtype = HD_DTYPE_FLOAT32,
				       .peer = -1,
				       .coalesce = -1,
				       .seq = (int64_t)i };

		g_array_append_val(r->ops, o);
	}
	ck_assert(replay_plan_scale(p, 0.5, NULL));
	for (size_t i = 0; i < G_N_ELEMENTS(in); i++)
		ck_assert_int_eq(op_at(p, 0, (guint)i)->count, want[i]);
}
END_TEST

static struct replay_plan *sample_plan(void)
{
	uint32_t gi;
	g_autoptr(hd_store) s = healthy_prefix(4, 6, &gi);
	struct hd_verdict *v;
	struct replay_plan *p;

	hd_store_group_at(s, gi)->name = g_strdup("default_pg");
	for (int r = 0; r < 4; r++)
		add_op(s, gi, r, HD_SEQ_COLLECTIVE, 6, HD_OP_BROADCAST, 9, 9,
		       r == 1 ? HD_DTYPE_BFLOAT16 : HD_DTYPE_UINT8, 2,
		       HD_STATE_ENQUEUED);
	v = mkverdict(HD_V_DTYPE_MISMATCH, gi, 6);
	p = replay_plan_from_verdict(s, v, 3, NULL);
	hd_verdict_free(v);
	ck_assert_ptr_nonnull(p);
	return p;
}

START_TEST(test_json_round_trip)
{
	g_autoptr(replay_plan) p = sample_plan();
	g_autoptr(replay_plan) q = NULL;
	g_autoptr(GError) err = NULL;
	g_autofree char *a = NULL, *b = NULL, *path = NULL;
	g_autofree char *dir = g_dir_make_tmp("hd-replay-XXXXXX", NULL);

	ck_assert(replay_plan_scale(p, 0.5, NULL));
	p->fixed = true;
	a = replay_plan_to_json(p);
	q = replay_plan_from_json(a, strlen(a), &err);
	ck_assert_msg(q != NULL, "%s", err ? err->message : "");
	ck_assert_str_eq(q->verdict, "dtype_mismatch");
	ck_assert_str_eq(q->group_id, "pg:0");
	ck_assert_str_eq(q->group_name, "default_pg");
	ck_assert_int_eq(q->seq, 6);
	ck_assert_int_eq(q->window, 3);
	ck_assert(q->fixed);
	ck_assert_uint_eq(q->ranks->len, 4);
	for (int r = 0; r < 4; r++) {
		ck_assert_uint_eq(nops(q, r), nops(p, r));
		for (guint i = 0; i < nops(p, r); i++) {
			const struct replay_op *x = op_at(p, r, i);
			const struct replay_op *y = op_at(q, r, i);

			ck_assert_int_eq(x->kind, y->kind);
			ck_assert_int_eq(x->count, y->count);
			ck_assert_int_eq(x->dtype, y->dtype);
			ck_assert_int_eq(x->redop, y->redop);
			ck_assert_int_eq(x->peer, y->peer);
			ck_assert_int_eq(x->coalesce, y->coalesce);
			ck_assert_int_eq(x->seq, y->seq);
			ck_assert_int_eq(x->state, y->state);
			ck_assert_int_eq(x->divergent, y->divergent);
		}
	}
	ck_assert_int_eq(op_at(q, 1, 3)->dtype, HD_DTYPE_BFLOAT16);
	ck_assert_int_eq(op_at(q, 1, 3)->peer, 2);
	b = replay_plan_to_json(q);
	ck_assert_str_eq(a, b);

	/* Through a file. */
	path = g_build_filename(dir, "plan.json", NULL);
	{
		FILE *f = fopen(path, "w");

		ck_assert_ptr_nonnull(f);
		ck_assert(replay_plan_write(p, f));
		ck_assert_int_eq(fclose(f), 0);
	}
	replay_plan_free(q);
	q = replay_plan_load(path, &err);
	ck_assert_ptr_nonnull(q);
	g_free(b);
	b = replay_plan_to_json(q);
	ck_assert_str_eq(a, b);
	unlink(path);
	rmdir(dir);

	replay_plan_free(q);
	q = replay_plan_load("/nonexistent/plan.json", &err);
	ck_assert_ptr_null(q);
	ck_assert_int_eq(err->code, HD_ERROR_IO);
}
END_TEST

#define OP_OK "{\"kind\":\"all_reduce\",\"count\":8,\"dtype\":\"float32\"}"
#define HEAD  "{\"format\":\"hangdoc-replay-plan\",\"version\":1,"

static const char *const hostile[] = {
	"",
	"[]",
	"{}",
	"not json",
	HEAD "\"ranks\":[]}",
	HEAD "\"ranks\":{}}",
	"{\"format\":\"other\",\"version\":1,\"ranks\":[{\"rank\":0,\"ops\":[]}]}",
	"{\"format\":\"hangdoc-replay-plan\",\"version\":2,\"ranks\":[{\"rank\":0,\"ops\":[]}]}",
	"{\"format\":\"hangdoc-replay-plan\",\"version\":\"1\",\"ranks\":[{\"rank\":0,\"ops\":[]}]}",
	/* negative and huge counts */
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":-5,\"dtype\":\"float32\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":1099511627776,\"dtype\":\"float32\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":1e300,\"dtype\":\"float32\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":99999999999999999999999,\"dtype\":\"float32\"}]}]}",
	/* unknown kind, dtype, redop, state, field */
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reducex\",\"count\":8,\"dtype\":\"float32\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":8,\"dtype\":\"float33\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":8,\"dtype\":\"float32\",\"redop\":\"xor\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":8,\"dtype\":\"float32\",\"state\":\"done\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"cout\":8,\"dtype\":\"float32\"}]}]}",
	HEAD "\"extra\":1,\"ranks\":[{\"rank\":0,\"ops\":[" OP_OK "]}]}",
	/* ranks out of range */
	HEAD "\"ranks\":[{\"rank\":1,\"ops\":[" OP_OK "]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"broadcast\",\"count\":8,\"dtype\":\"float32\",\"peer\":1}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"send\",\"count\":8,\"dtype\":\"float32\",\"peer\":-3}]},{\"rank\":1,\"ops\":[]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"send\",\"count\":8,\"dtype\":\"float32\"}]},{\"rank\":1,\"ops\":[]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"send\",\"count\":8,\"dtype\":\"float32\",\"peer\":0}]},{\"rank\":1,\"ops\":[]}]}",
	HEAD "\"ranks\":[{\"rank\":0,\"global_rank\":-7,\"ops\":[]}]}",
	/* wrong types */
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":\"8\",\"dtype\":\"float32\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":3,\"count\":8,\"dtype\":\"float32\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":8.5,\"dtype\":\"float32\"}]}]}",
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":8,\"dtype\":\"float32\",\"divergent\":1}]}]}",
	HEAD "\"ranks\":[{\"rank\":0,\"ops\":{}}]}",
	HEAD "\"ranks\":[{\"rank\":0,\"ops\":[[]]}]}",
	HEAD "\"ranks\":[0]}",
	HEAD "\"scale\":0,\"ranks\":[{\"rank\":0,\"ops\":[]}]}",
	HEAD "\"scale\":\"1\",\"ranks\":[{\"rank\":0,\"ops\":[]}]}",
	HEAD "\"window\":1000,\"ranks\":[{\"rank\":0,\"ops\":[]}]}",
	HEAD "\"group\":[],\"ranks\":[{\"rank\":0,\"ops\":[]}]}",
	HEAD "\"group\":{\"nranks\":5},\"ranks\":[{\"rank\":0,\"ops\":[]}]}",
	/* duplicate keys */
	HEAD "\"ranks\":[{\"rank\":0,\"rank\":0,\"ops\":[]}]}",
	/* deep nesting where an op belongs */
	HEAD
	"\"ranks\":[{\"rank\":0,\"ops\":[{\"kind\":\"all_reduce\",\"count\":8,\"dtype\":\"float32\",\"seq\":[[[[[[1]]]]]]}]}]}",
};

START_TEST(test_hostile_json)
{
	const char *ok = HEAD "\"ranks\":[{\"rank\":0,\"ops\":[" OP_OK "]}]}";
	g_autoptr(replay_plan) good = NULL;

	/* The accepted minimum, so the rejections below mean something. */
	good = replay_plan_from_json(ok, strlen(ok), NULL);
	ck_assert_ptr_nonnull(good);
	ck_assert_int_eq(op_at(good, 0, 0)->count, 8);
	for (size_t i = 0; i < G_N_ELEMENTS(hostile); i++) {
		g_autoptr(GError) err = NULL;
		struct replay_plan *p = replay_plan_from_json(
			hostile[i], strlen(hostile[i]), &err);

		ck_assert_msg(p == NULL, "hostile plan %zu accepted: %s", i,
			      hostile[i]);
		ck_assert_msg(err != NULL, "hostile plan %zu: no error", i);
	}
}
END_TEST

START_TEST(test_hostile_deep_and_big)
{
	GString *deep = g_string_new(HEAD "\"ranks\":");
	GString *wide = g_string_new(HEAD "\"ranks\":[");
	g_autoptr(GError) err = NULL;
	struct replay_plan *p;

	for (int i = 0; i < 100000; i++)
		g_string_append_c(deep, '[');
	p = replay_plan_from_json(deep->str, deep->len, &err);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(err);
	g_clear_error(&err);
	g_string_free(deep, TRUE);

	/*
	 * 1024 ranks each all_gathering 2^28 float64: every field within
	 * its own limit, 2 TiB per rank in all.
	 */
	for (int r = 0; r < 1024; r++)
		g_string_append_printf(
			wide,
			"%s{\"rank\":%d,\"ops\":[{\"kind\":\"all_gather\",\"count\":268435456,\"dtype\":\"float64\"}]}",
			r ? "," : "", r);
	g_string_append(wide, "]}");
	p = replay_plan_from_json(wide->str, wide->len, &err);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(err->code, HD_ERROR_TOO_BIG);
	g_clear_error(&err);
	g_string_free(wide, TRUE);

	/* 1025 ranks */
	wide = g_string_new(HEAD "\"ranks\":[");
	for (int r = 0; r < 1025; r++)
		g_string_append_printf(wide, "%s{\"rank\":%d,\"ops\":[]}",
				       r ? "," : "", r);
	g_string_append(wide, "]}");
	ck_assert_ptr_null(replay_plan_from_json(wide->str, wide->len, NULL));
	g_string_free(wide, TRUE);

	/* more than the byte limit */
	{
		gsize n = REPLAY_MAX_PLAN_BYTES + 10;
		g_autofree char *big = g_malloc(n);

		memset(big, ' ', n);
		ck_assert_ptr_null(replay_plan_from_json(big, n, &err));
		ck_assert_int_eq(err->code, HD_ERROR_TOO_BIG);
	}
}
END_TEST

START_TEST(test_rank_bytes)
{
	g_autoptr(replay_plan) p = replay_plan_new();
	struct replay_op ag = { .kind = HD_OP_ALL_GATHER,
				.count = 10,
				.dtype = HD_DTYPE_FLOAT32,
				.peer = -1,
				.coalesce = -1,
				.seq = -1 };
	struct replay_op ar = { .kind = HD_OP_ALL_REDUCE,
				.count = 100,
				.dtype = HD_DTYPE_FLOAT64,
				.peer = -1,
				.coalesce = -1,
				.seq = -1 };

	for (int r = 0; r < 4; r++)
		replay_plan_add_rank(p, r);
	g_array_append_val(
		((struct replay_rank *)g_ptr_array_index(p->ranks, 0))->ops,
		ag);
	/* send 10*4, recv 10*4*4 */
	ck_assert_int_eq(replay_plan_rank_bytes(p, 0), 40 + 160);
	g_array_append_val(
		((struct replay_rank *)g_ptr_array_index(p->ranks, 0))->ops,
		ar);
	ck_assert_int_eq(replay_plan_rank_bytes(p, 0), 800 + 800);
	ck_assert_int_eq(replay_plan_rank_bytes(p, 1), 0);
	ck_assert(replay_plan_validate(p, NULL));
}
END_TEST

START_TEST(test_runner)
{
	g_autoptr(replay_plan) p = sample_plan();
	struct replay_options opt = { .timeout_s = 5 };
	g_autoptr(GError) err = NULL;
	g_autoptr(replay_result) res = replay_run(p, &opt, &err);

#ifndef HAVE_CUDA_NCCL
	ck_assert(!replay_run_available());
	ck_assert_ptr_null(res);
	ck_assert_int_eq(err->code, HD_ERROR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err->message, "built without CUDA"));
#else
	/*
	 * With a GPU this replays a dtype mismatch (any outcome is NCCL's);
	 * without one every rank must report the missing device, be reaped,
	 * and the replay be refused as not attempted, not hang; without the
	 * CUDA and NCCL libraries it is refused before any rank is forked.
	 */
	ck_assert(replay_run_available());
	if (!res) {
		ck_assert_int_eq(err->code, HD_ERROR_UNSUPPORTED);
		ck_assert_msg(strstr(err->message, "no CUDA device") != NULL ||
				      strstr(err->message,
					     "libraries could not be loaded") !=
					      NULL,
			      "%s", err->message);
	} else {
		ck_assert_uint_eq(res->ranks->len, 4);
		ck_assert_ptr_nonnull(res->summary);
	}
#endif
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("replay_plan");
	TCase *tc = tcase_create("extract");
	TCase *tj = tcase_create("json");
	TCase *tr = tcase_create("run");

	tcase_add_test(tc, test_size_mismatch);
	tcase_add_test(tc, test_type_mismatch);
	tcase_add_test(tc, test_dtype_mismatch);
	tcase_add_test(tc, test_root_mismatch);
	tcase_add_test(tc, test_missing_rank);
	tcase_add_test(tc, test_p2p_unmatched);
	tcase_add_test(tc, test_p2p_cycle);
	tcase_add_test(tc, test_healthy);
	tcase_add_test(tc, test_coalesced_and_dedup);
	tcase_add_test(tc, test_scale);
	tcase_add_test(tc, test_scale_plain);
	tcase_add_test(tc, test_rank_bytes);
	suite_add_tcase(s, tc);
	tcase_add_test(tj, test_json_round_trip);
	tcase_add_test(tj, test_hostile_json);
	tcase_add_test(tj, test_hostile_deep_and_big);
	tcase_set_timeout(tj, 60);
	suite_add_tcase(s, tj);
	tcase_add_test(tr, test_runner);
	tcase_set_timeout(tr, 120);
	suite_add_tcase(s, tr);
	return s;
}

HD_TEST_MAIN(suite)
