/*
 * Engine tests on stores built by hand, so that each verdict rule is tested
 * apart from the parsers: votes and ties, the blocked frontier, ring-buffer
 * windows, p2p pairing and cycles, wait chains, c10d counters, and the
 * signal verdicts with their consequences ruled out.  Regressions found
 * by fuzzing load their fixture dumps with hd_load().
 */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "hd-load.h"
#include "hd-engine.h"
#include "hd-checks.h"
#include "hd-sig-util.h"
#include "hd-triage.h"
#include "hd-test-engine.h"
#include "hd-test-store.h"
#include "hd-const.h"

struct fixture {
	struct hd_store *s;
	uint32_t input[64];
};

/* One FR-like input per rank. */
static void fixture_init(struct fixture *f, int nranks, enum hd_input_kind kind)
{
	f->s = hd_store_new();
	for (int r = 0; r < nranks; r++) {
		g_autofree char *name = g_strdup_printf("rank%d", r);

		f->input[r] = hd_store_add_input(f->s, name);
		hd_store_input(f->s, f->input[r])->kind = kind;
		hd_store_input(f->s, f->input[r])->rank = r;
		hd_store_input(f->s, f->input[r])->records = 1;
		hd_rank_add_input(hd_store_rank(f->s, r), f->input[r]);
	}
}

static uint32_t add_group(struct fixture *f, const char *name, const int *ranks,
			  int n)
{
	g_autofree char *id = hd_group_id_pg(name, ranks, n);
	uint32_t g = hd_store_group(f->s, id);
	struct hd_group *grp = hd_store_group_at(f->s, g);

	grp->name = g_strdup(name);
	for (int i = 0; i < n; i++)
		hd_group_set_member(grp, i, ranks[i]);
	return g;
}

static void add_op(struct fixture *f, uint32_t g, int rank, int64_t seq,
		   enum hd_op_kind kind, int64_t count, enum hd_op_state st)
{
	struct hd_op_rec op =
		hd_test_op(g, rank, HD_SEQ_COLLECTIVE, seq, kind, st);
	struct hd_opdesc d = hd_test_desc(
		count, kind == HD_OP_ALL_GATHER ? count * 4 : count,
		HD_DTYPE_FLOAT32);

	op.prov.input = f->input[rank];
	op.prov.kind = HD_PROV_RECORD;
	op.prov.at = seq;
	hd_test_add_op(f->s, &op, &d);
}

/* seqs 1..upto completed, then (optionally) one scheduled at upto + 1. */
static void add_run(struct fixture *f, uint32_t g, int rank, int64_t upto,
		    bool pending)
{
	for (int64_t s = 1; s <= upto; s++)
		add_op(f, g, rank, s, HD_OP_ALL_REDUCE, 1024,
		       HD_STATE_COMPLETED);
	if (pending)
		add_op(f, g, rank, upto + 1, HD_OP_ALL_REDUCE, 1024,
		       HD_STATE_ENQUEUED);
}

static struct hd_analysis *run(struct fixture *f)
{
	hd_store_resolve(f->s);
	return hd_engine_run(f->s);
}

static void fixture_clear(struct fixture *f, struct hd_analysis *a)
{
	hd_analysis_free(a);
	hd_store_free(f->s);
}

static const int world4[] = { 0, 1, 2, 3 };

START_TEST(test_healthy)
{
	struct fixture f;
	struct hd_analysis *a;

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++)
		add_run(&f, g, r, 5, false);
	a = run(&f);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_NO_FAULT);
	ck_assert(!hd_analysis_has_fault(a));
	ck_assert_uint_eq(a->ranks_seen->len, 4);
	ck_assert_uint_eq(a->ranks_missing->len, 0);
	ck_assert_uint_eq(
		g_array_index(a->group_stats, struct hd_group_stats, g)
			.ops_aligned,
		5);
	fixture_clear(&f, a);
}
END_TEST

/*
 * no_fault needs every input read whole.  A healthy set beside an input
 * refused past a budget, one with any error, or one cut (its rank's own
 * or another's) is insufficient_data naming that input and undecided
 * (exit 5); a fault that stands on what was read is kept.
 */
START_TEST(test_unread_input_not_healthy)
{
	for (int k = 0; k < 4; k++) {
		struct fixture f;
		struct hd_analysis *a;
		const struct hd_verdict *v;
		struct hd_input *in;
		uint32_t extra, g;
		bool found = false;

		fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
		g = add_group(&f, "0", world4, 4);
		for (int r = 0; r < 4; r++)
			add_run(&f, g, r, 5, k == 3 && r == 2);
		extra = hd_store_add_input(f.s, "more.log.zst");
		in = hd_store_input(f.s, extra);
		in->kind = HD_INPUT_NCCL_LOG;
		if (k == 0 || k == 3)
			in->error = g_strdup(
				"the incident's inputs decode to more than 64 GiB in all, the budget for one incident; the rest is not read");
		else if (k == 1)
			in->error = g_strdup("No such file or directory");
		else
			hd_store_input(f.s, f.input[1])->truncated = true;
		a = run(&f);
		v = hd_test_top(a);
		if (k == 3) {
			/* rank 2 is ahead: the others lag, a fault */
			ck_assert(hd_analysis_has_fault(a));
			fixture_clear(&f, a);
			continue;
		}
		ck_assert_msg(v->kind == HD_V_INSUFFICIENT_DATA, "case %d: %s",
			      k, v->summary);
		ck_assert(hd_analysis_undecided(a));
		ck_assert(hd_test_verdict(a, HD_V_NO_FAULT) == NULL);
		for (guint i = 0; i < v->evidence->len; i++) {
			const struct hd_evidence *e =
				g_ptr_array_index(v->evidence, i);

			found |= e->source &&
				 strcmp(e->source,
					k == 2 ? "rank1" : "more.log.zst") == 0;
		}
		ck_assert_msg(found, "case %d: the input is not named", k);
		if (k == 0)
			ck_assert(strstr(v->summary, "past a budget"));
		fixture_clear(&f, a);
	}
}
END_TEST

START_TEST(test_missing_rank)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int want[] = { 3 };

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 3; r++)
		add_run(&f, g, r, 4, true);
	add_run(&f, g, 3, 4, false);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_int_eq(v->seq, 5);
	ck_assert_int_eq(v->group, g);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	ck_assert(hd_analysis_has_fault(a));
	fixture_clear(&f, a);
}
END_TEST

/* Load order must not matter: the absent rank is blamed wherever it is. */
START_TEST(test_missing_rank_first_in_order)
{
	struct fixture f;
	struct hd_analysis *a;
	static const int want[] = { 0 };

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	add_run(&f, g, 0, 4, false);
	for (int r = 1; r < 4; r++)
		add_run(&f, g, r, 4, true);
	a = run(&f);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_MISSING_RANK);
	hd_test_assert_culprits(hd_test_top(a), want, 1);
	fixture_clear(&f, a);
}
END_TEST

/* Enqueue-only data (NCCL COLL lines): rank 1 stopped six ops early. */
START_TEST(test_lagging_rank)
{
	struct fixture f;
	struct hd_analysis *a;
	static const int want[] = { 1 };

	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++)
		for (int64_t s = 1; s <= (r == 1 ? 3 : 9); s++)
			add_op(&f, g, r, s, HD_OP_ALL_REDUCE, 1024,
			       HD_STATE_ENQUEUED);
	a = run(&f);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_LAGGING_RANK);
	hd_test_assert_culprits(hd_test_top(a), want, 1);
	fixture_clear(&f, a);
}
END_TEST

static bool has_note(const struct hd_analysis *a, const char *part)
{
	for (guint i = 0; i < a->notes->len; i++)
		if (strstr(g_ptr_array_index(a->notes, i), part))
			return true;
	return false;
}

/*
 * Issue 18 item 4: completion proves presence.  Ranks 0, 2 and 3
 * completed seq 1-9, which needed rank 1, so rank 1's record ending at
 * seq 3 is incomplete (a cut or wrapped dump): never lagging.  Failed
 * before: lagging_rank rank 1.
 */
START_TEST(test_completed_op_proves_presence)
{
	struct fixture f;
	struct hd_analysis *a;

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	add_run(&f, g, 0, 9, true);
	add_run(&f, g, 1, 3, false);
	add_run(&f, g, 2, 9, true);
	add_run(&f, g, 3, 9, true);
	a = run(&f);
	ck_assert(!hd_analysis_has_fault(a));
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_INSUFFICIENT_DATA);
	ck_assert_uint_eq(hd_test_top(a)->culprits->len, 0);
	ck_assert_int_eq(hd_test_top(a)->seq, 10);
	ck_assert(hd_analysis_undecided(a));
	ck_assert(has_note(a, "the record of rank 1 ends before seq 9"));
	fixture_clear(&f, a);
}
END_TEST

/*
 * Issue 18 item 3: rank 3 left a valid dump with no entries, rank 2
 * stopped after seq 5, ranks 0 and 1 are blocked in seq 6.  All four
 * completed seq 5 together, so rank 3 was there: only rank 2 is missing.
 * Failed before: lagging_rank ranks 2, 3.
 */
START_TEST(test_empty_record_not_blamed)
{
	struct fixture f;
	struct hd_analysis *a;
	static const int want[] = { 2 };

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	add_run(&f, g, 0, 5, true);
	add_run(&f, g, 1, 5, true);
	add_run(&f, g, 2, 5, false);
	a = run(&f);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_MISSING_RANK);
	hd_test_assert_culprits(hd_test_top(a), want, 1);
	ck_assert_int_eq(hd_test_top(a)->confidence, HD_CONF_HIGH);
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_LAGGING_RANK));
	ck_assert(has_note(a, "the record of rank 3 ends before seq 5"));
	fixture_clear(&f, a);
}
END_TEST

/*
 * Issue 18 item 6: four ranks of eight left no data; the others are all
 * blocked in seq 8.  Elimination needs every other member's record, so
 * nobody is blamed: an undecided hang, naming what to collect.  Failed
 * before: missing_rank ranks 4-7.
 */
START_TEST(test_no_elimination_among_several)
{
	static const int world8[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct fixture f;
	struct hd_analysis *a;

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world8, 8);
	for (int r = 0; r < 4; r++)
		add_run(&f, g, r, 7, true);
	a = run(&f);
	ck_assert(!hd_analysis_has_fault(a));
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_INSUFFICIENT_DATA);
	ck_assert_ptr_nonnull(strstr(hd_test_top(a)->summary, "ranks 4-7"));
	ck_assert(has_note(a, "no data from ranks 4-7"));
	ck_assert(hd_analysis_undecided(a));
	fixture_clear(&f, a);
}
END_TEST

START_TEST(test_type_mismatch_minority)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int want[] = { 2 };

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++) {
		add_run(&f, g, r, 2, false);
		add_op(&f, g, r, 3,
		       r == 2 ? HD_OP_ALL_GATHER : HD_OP_ALL_REDUCE, 1024,
		       HD_STATE_ENQUEUED);
	}
	a = run(&f);
	v = hd_test_verdict(a, HD_V_TYPE_MISMATCH);
	ck_assert_ptr_nonnull(v);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_int_eq(v->seq, 3);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	ck_assert_ptr_eq(hd_test_top(a), v);
	/* Sizes of different collectives are not compared. */
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_SIZE_MISMATCH));
	fixture_clear(&f, a);
}
END_TEST

START_TEST(test_size_mismatch_tie)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int both[] = { 0, 1 };
	static const int pair[] = { 0, 1 };

	fixture_init(&f, 2, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", pair, 2);
	add_op(&f, g, 0, 1, HD_OP_ALL_REDUCE, 16, HD_STATE_ENQUEUED);
	add_op(&f, g, 1, 1, HD_OP_ALL_REDUCE, 20, HD_STATE_ENQUEUED);
	a = run(&f);
	v = hd_test_verdict(a, HD_V_SIZE_MISMATCH);
	ck_assert_ptr_nonnull(v);
	/* Two ranks, two values: a tie, said to be one. */
	hd_test_assert_culprits(v, both, 2);
	ck_assert_int_eq(v->confidence, HD_CONF_LOW);
	ck_assert_ptr_nonnull(strstr(v->summary, "even split"));
	fixture_clear(&f, a);
}
END_TEST

START_TEST(test_size_pairs_compared_exactly)
{
	/*
	 * Rank 3 sends 1 element and receives 935 where the others send 0
	 * and receive 1000.  The sizes were once compared as a hash of the
	 * pair, and this pair collided with it: no mismatch was seen.
	 */
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int three[] = { 3 };

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++) {
		struct hd_op *op;
		struct hd_opdesc d;

		add_op(&f, g, r, 1, HD_OP_ALL_REDUCE, 0, HD_STATE_ENQUEUED);
		op = &g_array_index(f.s->ops, struct hd_op, f.s->ops->len - 1);
		d = *hd_op_desc(op);
		d.count_in = r == 3 ? 1 : 0;
		d.count_out = r == 3 ? 935 : 1000;
		hd_op_set_desc(op, hd_opdesc_intern(&d));
	}
	a = run(&f);
	v = hd_test_verdict(a, HD_V_SIZE_MISMATCH);
	ck_assert_ptr_nonnull(v);
	hd_test_assert_culprits(v, three, 1);
	fixture_clear(&f, a);
}
END_TEST

/*
 * The votes skip a block of keys where every rank has the same ops
 * (hd-votes.c, block_agrees()): a difference at any key of a block, at
 * its first or last key or just past it, is still found and named, as
 * is an op whose own sizes contradict each other in a block that agrees
 * otherwise.
 */
START_TEST(test_votes_by_block)
{
	static const int64_t at[] = {
		1, 2, 63, 64, 65, 66, 127, 128, 129, 200
	};
	static const int eight[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const int five[] = { 5 };

	for (size_t i = 0; i < G_N_ELEMENTS(at); i++) {
		for (int variant = 0; variant < 3; variant++) {
			struct fixture f;
			struct hd_analysis *a;
			const struct hd_verdict *v;
			uint32_t g;

			fixture_init(&f, 8, HD_INPUT_FLIGHT_REC);
			g = add_group(&f, "0", eight, 8);
			for (int r = 0; r < 8; r++)
				for (int64_t k = 1; k <= 200; k++) {
					enum hd_op_kind kind = HD_OP_ALL_REDUCE;
					int64_t count = 1024;

					if (k == at[i] && variant == 0 &&
					    r == 5)
						count = 2048;
					if (k == at[i] && variant == 1 &&
					    r == 5)
						kind = HD_OP_BROADCAST;
					/* out = 4 x in, in a group of 8 */
					if (k == at[i] && variant == 2)
						kind = HD_OP_ALL_GATHER;
					add_op(&f, g, r, k, kind, count,
					       HD_STATE_COMPLETED);
				}
			a = run(&f);
			v = hd_test_verdict(a, variant == 1
						       ? HD_V_TYPE_MISMATCH
						       : HD_V_SIZE_MISMATCH);
			ck_assert_msg(v, "variant %d at %" G_GINT64_FORMAT,
				      variant, at[i]);
			ck_assert_int_eq(v->seq, at[i]);
			if (variant < 2)
				hd_test_assert_culprits(v, five, 1);
			else
				ck_assert_ptr_nonnull(
					strstr(v->summary, "malformed"));
			fixture_clear(&f, a);
		}
	}
}
END_TEST

START_TEST(test_dtype_and_root_and_redop)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int want1[] = { 1 };
	static const int want3[] = { 3 };
	static const int want0[] = { 0 };

	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++) {
		struct hd_op_rec op;
		struct hd_opdesc d;

		hd_op_rec_init(&op);
		d = hd_opdesc_blank;
		hd_op_set_rank(&op.op, r);
		op.op.group = g;
		op.op.seq_kind = HD_SEQ_ORDINAL;
		op.prov.input = f.input[r];
		op.prov.kind = HD_PROV_LINE;
		/* ordinal 0: broadcast, rank 3 names another root */
		op.op.seq = 0;
		op.op.kind = HD_OP_BROADCAST;
		d.count_in = d.count_out = 8;
		d.dtype = HD_DTYPE_FLOAT32;
		d.peer = r == 3 ? 1 : 0;
		op.prov.at = 1;
		hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
		hd_store_add_op(f.s, &op);
		/* ordinal 1: all_reduce, rank 1 uses bf16 */
		op.op.seq = 1;
		op.op.kind = HD_OP_ALL_REDUCE;
		d.peer = -1;
		d.dtype = r == 1 ? HD_DTYPE_BFLOAT16 : HD_DTYPE_FLOAT32;
		d.redop = HD_REDOP_SUM;
		op.prov.at = 2;
		hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
		hd_store_add_op(f.s, &op);
		/* ordinal 2: all_reduce, rank 0 uses max */
		op.op.seq = 2;
		d.dtype = HD_DTYPE_FLOAT32;
		d.redop = r == 0 ? HD_REDOP_MAX : HD_REDOP_SUM;
		op.prov.at = 3;
		hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
		hd_store_add_op(f.s, &op);
	}
	a = run(&f);
	v = hd_test_verdict(a, HD_V_ROOT_MISMATCH);
	ck_assert_ptr_nonnull(v);
	hd_test_assert_culprits(v, want3, 1);
	ck_assert_int_eq(v->seq, 0);
	v = hd_test_verdict(a, HD_V_DTYPE_MISMATCH);
	ck_assert_ptr_nonnull(v);
	hd_test_assert_culprits(v, want1, 1);
	v = hd_test_verdict(a, HD_V_REDOP_MISMATCH);
	ck_assert_ptr_nonnull(v);
	hd_test_assert_culprits(v, want0, 1);
	ck_assert_int_eq(v->seq, 2);
	fixture_clear(&f, a);
}
END_TEST

/*
 * Rooted ops are compared on the side every rank holds: a gather's output
 * and a scatter's input are the root's alone (a non-root records "[[]]"
 * and no dtypes there), and a broadcast or reduce on what each rank puts
 * in.  Seqs 1-4 differ only on the root's own side: no mismatch.  Seq 5,
 * a gather where rank 3 sends Half: a dtype_mismatch of rank 3 alone.
 */
START_TEST(test_rooted_root_side_not_compared)
{
	static const struct {
		enum hd_op_kind kind;
		const char *in, *out, *dt; /* the root's, then a non-root's */
		const char *nin, *nout, *ndt;
	} pos[] = {
		{ HD_OP_GATHER, "[[4, 4]]", "[[4, 4], [4, 4], [4, 4], [4, 4]]",
		  "Float->Float,Float,Float,Float", "[[4, 4]]", "[[]]",
		  "Float->Float" },
		{ HD_OP_SCATTER, "[[4, 4], [4, 4], [4, 4], [4, 4]]", "[[4, 4]]",
		  "Float,Float,Float,Float->Float", "[[]]", "[[4, 4]]",
		  "->Float" },
		{ HD_OP_REDUCE, "[[8]]", "[[8]]", "Float->Float", "[[8]]",
		  "[[]]", "Float->" },
		{ HD_OP_BROADCAST, "[[8]]", "[[8]]", "Float->Float", "[[8]]",
		  "[[]]", "Float->" },
		{ HD_OP_GATHER, "[[4, 4]]", "[[4, 4], [4, 4], [4, 4], [4, 4]]",
		  "Float->Float,Float,Float,Float", "[[4, 4]]", "[[]]",
		  "Float->Float" },
	};
	static const int want3[] = { 3 };
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	uint32_t g;

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++) {
		for (guint i = 0; i < G_N_ELEMENTS(pos); i++) {
			struct hd_op_rec op;
			struct hd_opdesc d;
			bool root = r == 0;

			hd_op_rec_init(&op);
			d = hd_opdesc_blank;
			hd_op_set_rank(&op.op, r);
			op.op.group = g;
			op.op.seq = (int64_t)i + 1;
			op.op.seq_kind = HD_SEQ_COLLECTIVE;
			op.op.kind = pos[i].kind;
			op.op.state = HD_STATE_COMPLETED;
			d.shape_in = hd_intern(root ? pos[i].in : pos[i].nin);
			d.shape_out =
				hd_intern(root ? pos[i].out : pos[i].nout);
			d.dtype_name = hd_intern(root ? pos[i].dt : pos[i].ndt);
			if (i == 4 && r == 3)
				d.dtype_name = hd_intern("Half->Half");
			d.dtype = d.dtype_name[0] == 'H' ? HD_DTYPE_FLOAT16
							 : HD_DTYPE_FLOAT32;
			op.prov.input = f.input[r];
			op.prov.kind = HD_PROV_RECORD;
			op.prov.at = (uint64_t)op.op.seq;
			hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
			hd_store_add_op(f.s, &op);
		}
	}
	a = run(&f);
	for (guint i = 0; i < a->verdicts->len; i++) {
		v = g_ptr_array_index(a->verdicts, i);
		ck_assert_msg(
			v->kind != HD_V_SIZE_MISMATCH &&
				(v->kind != HD_V_DTYPE_MISMATCH || v->seq == 5),
			"%s at seq %" G_GINT64_FORMAT ": %s",
			hd_verdict_kind_name(v->kind), v->seq, v->summary);
	}
	v = hd_test_verdict(a, HD_V_DTYPE_MISMATCH);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->seq, 5);
	hd_test_assert_culprits(v, want3, 1);
	fixture_clear(&f, a);
}
END_TEST

START_TEST(test_ring_window_not_a_mismatch)
{
	struct fixture f;
	struct hd_analysis *a;
	static const int pair[] = { 0, 1 };

	fixture_init(&f, 2, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", pair, 2);
	for (int64_t s = 3; s <= 10; s++)
		add_op(&f, g, 0, s, HD_OP_ALL_REDUCE, 64, HD_STATE_COMPLETED);
	for (int64_t s = 1; s <= 10; s++)
		add_op(&f, g, 1, s, HD_OP_ALL_REDUCE, 64, HD_STATE_COMPLETED);
	a = run(&f);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_NO_FAULT);
	fixture_clear(&f, a);
}
END_TEST

static void add_p2p(struct fixture *f, uint32_t g, int rank,
		    enum hd_op_kind kind, int peer, int64_t seq,
		    enum hd_op_state st)
{
	struct hd_op_rec op;
	struct hd_opdesc d;

	hd_op_rec_init(&op);
	d = hd_opdesc_blank;
	hd_op_set_rank(&op.op, rank);
	op.op.group = g;
	op.op.seq = seq;
	op.op.seq_kind = HD_SEQ_P2P;
	op.op.kind = kind;
	d.peer = peer;
	d.count_in = kind == HD_OP_SEND ? 4 : -1;
	d.count_out = kind == HD_OP_RECV ? 4 : -1;
	op.op.state = st;
	op.prov.input = f->input[rank];
	op.prov.kind = HD_PROV_RECORD;
	op.prov.at = seq;
	hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
	hd_store_add_op(f->s, &op);
}

START_TEST(test_p2p_unmatched_and_cycle)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int pair[] = { 0, 1 };
	static const int want1[] = { 1 };
	static const int both[] = { 0, 1 };
	static const int ring[] = { 0, 1, 2 };

	fixture_init(&f, 2, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", pair, 2);
	add_p2p(&f, g, 0, HD_OP_SEND, 1, 1, HD_STATE_COMPLETED);
	add_p2p(&f, g, 1, HD_OP_RECV, 0, 1, HD_STATE_COMPLETED);
	add_p2p(&f, g, 0, HD_OP_SEND, 1, 2, HD_STATE_ENQUEUED);
	a = run(&f);
	v = hd_test_verdict(a, HD_V_P2P_UNMATCHED);
	ck_assert_ptr_nonnull(v);
	hd_test_assert_culprits(v, want1, 1);
	fixture_clear(&f, a);

	fixture_init(&f, 2, HD_INPUT_FLIGHT_REC);
	g = add_group(&f, "0", pair, 2);
	add_p2p(&f, g, 0, HD_OP_SEND, 1, 1, HD_STATE_ENQUEUED);
	add_p2p(&f, g, 1, HD_OP_SEND, 0, 1, HD_STATE_ENQUEUED);
	a = run(&f);
	v = hd_test_verdict(a, HD_V_P2P_UNMATCHED);
	ck_assert_ptr_nonnull(v);
	hd_test_assert_culprits(v, both, 2);
	ck_assert_ptr_nonnull(strstr(v->summary, "cycle"));
	fixture_clear(&f, a);

	/* A three-rank cycle, two parallel waits a link: every member named. */
	fixture_init(&f, 3, HD_INPUT_FLIGHT_REC);
	g = add_group(&f, "0", ring, 3);
	for (int r = 0; r < 3; r++)
		for (int64_t seq = 1; seq <= 2; seq++)
			add_p2p(&f, g, r, HD_OP_SEND, (r + 1) % 3, seq,
				HD_STATE_ENQUEUED);
	a = run(&f);
	v = hd_test_verdict(a, HD_V_P2P_UNMATCHED);
	ck_assert_ptr_nonnull(v);
	hd_test_assert_culprits(v, ring, 3);
	/* in wait order, from whichever rank the search started at */
	ck_assert_msg(strstr(v->summary, "cycle 0 -> 1 -> 2 -> 0") ||
			      strstr(v->summary, "cycle 1 -> 2 -> 0 -> 1") ||
			      strstr(v->summary, "cycle 2 -> 0 -> 1 -> 2"),
		      "%s", v->summary);
	fixture_clear(&f, a);
}
END_TEST

/*
 * TP {0,1} {2,3}, DP {0,2} {1,3}.  Rank 2 waits in DP{0,2} for rank 0;
 * rank 0 waits in TP{0,1} for rank 1; rank 1 waits on nobody.
 */
START_TEST(test_blocked_chain)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int tp01[] = { 0, 1 }, tp23[] = { 2, 3 };
	static const int dp02[] = { 0, 2 }, dp13[] = { 1, 3 };
	static const int want[] = { 1 };

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t t01 = add_group(&f, "tp", tp01, 2);
	uint32_t t23 = add_group(&f, "tp", tp23, 2);
	uint32_t d02 = add_group(&f, "dp", dp02, 2);
	uint32_t d13 = add_group(&f, "dp", dp13, 2);
	add_run(&f, t01, 0, 6, true); /* rank 0 blocked at tp seq 7 */
	add_run(&f, t01, 1, 6, false);
	add_run(&f, t23, 2, 7, false);
	add_run(&f, t23, 3, 7, false);
	add_run(&f, d02, 0, 4, false); /* never reached dp seq 5 */
	add_run(&f, d02, 2, 4, true); /* rank 2 blocked at dp seq 5 */
	add_run(&f, d13, 1, 5, false);
	add_run(&f, d13, 3, 5, false);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_BLOCKED_CHAIN);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_int_eq(v->group, d02);
	ck_assert_msg(strstr(v->summary, "wait chain 0 -> 1"), "%s",
		      v->summary);
	/* The chain's links are the evidence, with where each rank waits. */
	ck_assert_uint_ge(v->evidence->len, 1);
	fixture_clear(&f, a);
}
END_TEST

static void add_sig(struct fixture *f, int rank, enum hd_signal_cat cat,
		    enum hd_signal_type type, int64_t seq, int64_t e, int64_t c,
		    const char *text)
{
	struct hd_signal sig;

	hd_signal_init(&sig);
	sig.rank = rank;
	sig.cat = cat;
	sig.type = type;
	sig.seq = seq;
	sig.last_enqueued = e;
	sig.last_completed = c;
	sig.group_name = hd_intern("0");
	sig.op_name = hd_intern("ALLREDUCE");
	sig.text = hd_unconst(text);
	sig.prov.input = f->input[rank];
	sig.prov.kind = HD_PROV_LINE;
	sig.prov.at = 10 + rank;
	hd_store_add_signal(f->s, &sig);
}

/*
 * A rank known only by its own timeout, at T below the others' position
 * S: it completed nothing from T on, so more than one behind is behind
 * (lagging_rank), and its timeout is cited; one behind is only missing.
 */
START_TEST(test_c10d_lone_timeout_behind)
{
	static const struct {
		int64_t t;
		enum hd_verdict_kind want;
	} cases[] = { { 409, HD_V_LAGGING_RANK }, { 411, HD_V_MISSING_RANK } };
	static const int want[] = { 2 };

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct fixture f;
		struct hd_analysis *a;
		const struct hd_verdict *v;
		bool cited = false;

		fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
		f.s->world_size = 4;
		for (int r = 1; r < 4; r += 2)
			add_sig(&f, r, HD_SIG_PROGRESS, HD_SIGT_PG_STATUS, 412,
				412, 411,
				"Timeout at NCCL work: 412, last enqueued NCCL "
				"work: 412, last completed NCCL work: 411.");
		add_sig(&f, 2, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT,
			cases[i].t, INT64_MIN, INT64_MIN,
			"Watchdog caught collective operation timeout");
		a = run(&f);
		v = hd_test_top(a);
		ck_assert_int_eq(v->kind, cases[i].want);
		hd_test_assert_culprits(v, want, 1);
		ck_assert_int_eq(v->seq, 412);
		for (guint k = 0; k < v->evidence->len; k++) {
			const struct hd_evidence *e =
				g_ptr_array_index(v->evidence, k);

			cited |= e->rank == 2 && e->source &&
				 strstr(e->text, "Watchdog caught");
		}
		ck_assert(cited);
		fixture_clear(&f, a);
	}
}
END_TEST

START_TEST(test_c10d_counters)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int want[] = { 3 };

	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	f.s->world_size = 4;
	for (int r = 0; r < 3; r++) {
		add_sig(&f, r, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT, 41,
			INT64_MIN, INT64_MIN,
			"Watchdog caught collective operation timeout");
		add_sig(&f, r, HD_SIG_PROGRESS, HD_SIGT_PG_STATUS, 41, 41, 40,
			"last enqueued work: 41, last completed work: 40");
	}
	add_sig(&f, 3, HD_SIG_PROGRESS, HD_SIGT_PG_STATUS, -1, 40, 40,
		"Last enqueued NCCL work: 40, last completed NCCL work: 40.");
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_int_eq(v->seq, 41);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	ck_assert_str_eq(v->op, "all_reduce");
	/* logs alone: placed in PG 0 as its lines name it, a listed group */
	ck_assert_int_eq(v->group, -1);
	ck_assert_int_ge(v->c10d_group, 0);
	ck_assert_str_eq(g_array_index(a->c10d_groups, struct hd_c10d_group,
				       v->c10d_group)
				 .name,
			 "0");
	{
		g_autofree char *id = hd_verdict_group_id(a, v);
		g_autofree char *shrt =
			hd_verdict_group_label(a, v, HD_GROUP_LABEL_SHORT);
		g_autofree char *lng =
			hd_verdict_group_label(a, v, HD_GROUP_LABEL_LONG);

		ck_assert_str_eq(id, "pg:0:?");
		ck_assert_str_eq(shrt, "0");
		ck_assert_str_eq(lng, "PG 0");
	}
	fixture_clear(&f, a);
}
END_TEST

/*
 * Many absent ranks each print a status line: the verdict cites a few of
 * them (hd_sig_cite()'s cap), never one per rank, and still the one
 * timeout that the count of the other waiting ranks refers to.
 */
START_TEST(test_c10d_counters_evidence_capped)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	bool timeout_cited = false;

	fixture_init(&f, 16, HD_INPUT_NCCL_LOG);
	f.s->world_size = 16;
	for (int r = 0; r < 4; r++)
		add_sig(&f, r, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT, 41,
			INT64_MIN, INT64_MIN,
			"Watchdog caught collective operation timeout");
	for (int r = 4; r < 16; r++)
		add_sig(&f, r, HD_SIG_PROGRESS, HD_SIGT_PG_STATUS, -1, 40, 40,
			"Last enqueued NCCL work: 40, last completed NCCL work: 40.");
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
	ck_assert_uint_eq(v->culprits->len, 12);
	/* six status lines, the timeout, the count of the others */
	ck_assert_uint_eq(v->evidence->len, 8);
	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		timeout_cited |= strstr(e->text, "Watchdog caught") != NULL;
	}
	ck_assert(timeout_cited);
	fixture_clear(&f, a);
}
END_TEST

START_TEST(test_c10d_all_timed_out)
{
	struct fixture f;
	struct hd_analysis *a;

	fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
	for (int r = 0; r < 2; r++)
		add_sig(&f, r, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT, 7,
			INT64_MIN, INT64_MIN, "timeout");
	a = run(&f);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_INSUFFICIENT_DATA);
	ck_assert_uint_eq(hd_test_top(a)->culprits->len, 0);
	ck_assert(!hd_analysis_has_fault(a));
	/* undecided, but where: seq 7 of PG 0 */
	ck_assert_int_eq(hd_test_top(a)->seq, 7);
	ck_assert_int_ge(hd_test_top(a)->c10d_group, 0);
	fixture_clear(&f, a);
}
END_TEST

START_TEST(test_network_first_fault)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	struct hd_signal sig;
	static const int want[] = { 2, 5 };

	fixture_init(&f, 8, HD_INPUT_NCCL_LOG);
	hd_store_rank(f.s, 5)->host = hd_intern("node-c");
	hd_store_rank(f.s, 2)->host = hd_intern("node-b");
	/* An earlier WR_FLUSH is a consequence, not the first fault. */
	hd_signal_init(&sig);
	sig.rank = 6;
	sig.cat = HD_SIG_NETWORK;
	sig.type = HD_SIGT_IB_COMPLETION;
	sig.code = 5;
	sig.time = hd_time_make(1000, HD_CLOCK_UTC);
	sig.peer = hd_intern("node-b<5555>");
	sig.prov.input = f.input[6];
	hd_store_add_signal(f.s, &sig);
	sig.rank = 2;
	sig.host = hd_intern("node-b");
	sig.code = 12;
	sig.time = hd_time_make(2000, HD_CLOCK_UTC);
	sig.peer = hd_intern("node-c<1234>");
	sig.prov.input = f.input[2];
	hd_store_add_signal(f.s, &sig);
	sig.rank = 3;
	sig.code = 12;
	sig.time = hd_time_make(3000, HD_CLOCK_UTC);
	sig.prov.input = f.input[3];
	hd_store_add_signal(f.s, &sig);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_NETWORK_FAULT);
	hd_test_assert_culprits(v, want, 2);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	fixture_clear(&f, a);
}
END_TEST

/*
 * aws-ofi-nccl's "RC: 5" is EIO, a failure of its own, not NET/IB's
 * status 5 (WR_FLUSH, a consequence): the rank that saw it is named.
 */
START_TEST(test_ofi_rc5_not_a_flush)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	struct hd_signal sig;
	static const int want[] = { 3 };

	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	hd_signal_init(&sig);
	sig.rank = 3;
	sig.cat = HD_SIG_NETWORK;
	sig.type = HD_SIGT_IB_COMPLETION;
	sig.code = 5;
	sig.text = hd_unconst(
		"NCCL WARN NET/OFI Request 0x7f01 completed with error. RC: 5. Error: Input/output error.");
	sig.prov.input = f.input[3];
	hd_store_add_signal(f.s, &sig);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_NETWORK_FAULT);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_ptr_null(strstr(v->summary, "flush"));
	fixture_clear(&f, a);
}
END_TEST

/*
 * A process writes its lines in order: its CUDA error after its own IB
 * completion error came after the network failed, and is no cause (a
 * note says it was set aside).  The same error before the network error,
 * or in another process, is still the crash.
 */
START_TEST(test_crash_after_own_network_error)
{
	static const struct {
		uint64_t net_line, cuda_line;
		int32_t cuda_pid;
		enum hd_verdict_kind want;
	} cases[] = {
		{ 1, 13, 4242, HD_V_NETWORK_FAULT },
		{ 13, 1, 4242, HD_V_RANK_CRASHED },
		{ 1, 13, 4343, HD_V_RANK_CRASHED },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct fixture f;
		struct hd_analysis *a;
		const struct hd_verdict *v;
		struct hd_signal sig;
		bool noted = false;

		fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
		for (int k = 0; k < 2; k++) {
			hd_signal_init(&sig);
			sig.rank = 0;
			sig.host = hd_intern("gpu5");
			sig.pid = k ? cases[i].cuda_pid : 4242;
			sig.cat = k ? HD_SIG_CUDA : HD_SIG_NETWORK;
			sig.type =
				k ? HD_SIGT_CUDA_ERROR : HD_SIGT_IB_COMPLETION;
			sig.code = k ? 700 : 12;
			sig.prov.input = f.input[0];
			sig.prov.kind = HD_PROV_LINE;
			sig.prov.at =
				k ? cases[i].cuda_line : cases[i].net_line;
			hd_store_add_signal(f.s, &sig);
		}
		a = run(&f);
		v = hd_test_top(a);
		ck_assert_msg(v->kind == cases[i].want, "case %zu: kind %d", i,
			      v->kind);
		for (guint k = 0; k < a->notes->len; k++)
			noted |= strstr(g_ptr_array_index(a->notes, k),
					"logged a network error before it") !=
				 NULL;
		ck_assert_int_eq(noted, cases[i].want == HD_V_NETWORK_FAULT);
		fixture_clear(&f, a);
	}
}
END_TEST

/*
 * "NCCL error: unhandled cuda error" raised by a framework is a failure
 * of its process, the weakest: alone and rankless it is a low crash with
 * no culprit; beside a CUDA error of a known rank, that rank is named.
 */
START_TEST(test_nccl_cuda_error_weak)
{
	/* 0: alone; 1: beside rank 2's CUDA error; 2: after a timeout */
	for (int mode = 0; mode < 3; mode++) {
		struct fixture f;
		struct hd_analysis *a;
		const struct hd_verdict *v;
		struct hd_signal sig;
		static const int want[] = { 2 };

		fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
		if (mode == 2)
			add_sig(&f, 1, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT,
				9, INT64_MIN, INT64_MIN, "timeout");
		hd_signal_init(&sig);
		sig.cat = HD_SIG_CUDA;
		sig.type = HD_SIGT_NCCL_ERROR;
		sig.code = 1;
		sig.prov.input = f.input[0];
		sig.text = hd_unconst("RuntimeError: NCCL error: unhandled "
				      "cuda error");
		hd_store_add_signal(f.s, &sig);
		if (mode == 1) {
			hd_signal_init(&sig);
			sig.rank = 2;
			sig.cat = HD_SIG_CUDA;
			sig.type = HD_SIGT_CUDA_ERROR;
			sig.code = 700;
			sig.prov.input = f.input[2];
			hd_store_add_signal(f.s, &sig);
		}
		a = run(&f);
		v = hd_test_top(a);
		if (mode == 2) {
			ck_assert_int_ne(v->kind, HD_V_RANK_CRASHED);
		} else if (mode == 1) {
			ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
			hd_test_assert_culprits(v, want, 1);
		} else {
			ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
			ck_assert_uint_eq(v->culprits->len, 0);
			ck_assert_int_eq(v->confidence, HD_CONF_LOW);
		}
		fixture_clear(&f, a);
	}
}
END_TEST

START_TEST(test_crash_not_watchdog_abort)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	struct hd_signal sig;
	static const int want[] = { 3 };

	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	for (int r = 0; r < 3; r++)
		add_sig(&f, r, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT, 9,
			INT64_MIN, INT64_MIN, "timeout");
	/* Rank 0's exit -6 follows its own timeout: a consequence. */
	hd_signal_init(&sig);
	sig.rank = 0;
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_PROCESS_EXIT;
	sig.code = -6;
	sig.prov.input = f.input[0];
	hd_store_add_signal(f.s, &sig);
	sig.rank = 3;
	sig.cat = HD_SIG_CUDA;
	sig.type = HD_SIGT_OOM;
	sig.code = 0;
	sig.prov.input = f.input[3];
	hd_store_add_signal(f.s, &sig);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	fixture_clear(&f, a);
}
END_TEST

/* An srun exit line of an input of no rank ("srun.err"). */
static void add_srun_exit(struct fixture *f, uint32_t in, int rank, int task,
			  int32_t code, const char *text)
{
	struct hd_signal sig;

	hd_signal_init(&sig);
	sig.rank = rank;
	sig.task = task;
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_PROCESS_EXIT;
	sig.code = code;
	sig.host = task >= 0 ? hd_intern("gpu-b17") : NULL;
	sig.text = hd_unconst(text);
	sig.prov.input = in;
	sig.prov.kind = HD_PROV_LINE;
	sig.prov.at = hd_store_input(f->s, in)->records++;
	hd_store_add_signal(f->s, &sig);
}

static uint32_t srun_input(struct fixture *f)
{
	uint32_t in = hd_store_add_input(f->s, "srun.err");

	hd_store_input(f->s, in)->kind = HD_INPUT_NCCL_LOG;
	hd_store_input(f->s, in)->rank = -1;
	return in;
}

/*
 * An exit srun names by its task alone is the weakest failure: a
 * candidate only where no failure of a known rank stands, and never a
 * culprit.  Only srun's first line of an input counts, and a line of
 * several tasks never does.
 */
START_TEST(test_crash_srun_task)
{
	static const char segv[] =
		"srun: error: gpu-b17: task 3: Segmentation fault";
	static const int want1[] = { 1 };
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	struct hd_signal sig;
	uint32_t in;

	/* alone: low, no culprit, named by task and host */
	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	in = srun_input(&f);
	add_srun_exit(&f, in, -1, 3, -11, segv);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
	hd_test_assert_culprits(v, NULL, 0);
	ck_assert_int_eq(v->confidence, HD_CONF_LOW);
	ck_assert_msg(strstr(v->summary, "srun task 3 on host gpu-b17 failed "
					 "first (killed by SIGSEGV)") &&
			      strstr(v->summary,
				     "its global rank is not in the data"),
		      "%s", v->summary);
	fixture_clear(&f, a);

	/* a failure of a known rank stands before it */
	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	in = srun_input(&f);
	add_srun_exit(&f, in, -1, 3, -11, segv);
	hd_signal_init(&sig);
	sig.rank = 1;
	sig.cat = HD_SIG_CUDA;
	sig.type = HD_SIGT_OOM;
	sig.prov.input = f.input[1];
	hd_store_add_signal(f.s, &sig);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
	hd_test_assert_culprits(v, want1, 1);
	fixture_clear(&f, a);

	/* SIGABRT after a timeout: the watchdog's; several tasks: none */
	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	in = srun_input(&f);
	add_sig(&f, 0, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT, 9, INT64_MIN,
		INT64_MIN, "timeout");
	add_srun_exit(&f, in, -1, 2, -6,
		      "srun: error: gpu-b17: task 2: Aborted (core dumped)");
	a = run(&f);
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_RANK_CRASHED));
	fixture_clear(&f, a);
	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	in = srun_input(&f);
	add_srun_exit(&f, in, -1, -1, -9,
		      "srun: error: gpu-b[17-18]: tasks 0-7: Killed");
	a = run(&f);
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_RANK_CRASHED));
	fixture_clear(&f, a);

	/* srun's first line is rank 2's abort after its own timeout: the
	   later kill of rank 3 is srun's, no first failure */
	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	in = srun_input(&f);
	add_sig(&f, 2, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT, 9, INT64_MIN,
		INT64_MIN, "timeout");
	add_srun_exit(&f, in, 2, 2, -6,
		      "srun: error: gpu-b17: task 2: Aborted (core dumped)");
	add_srun_exit(&f, in, 3, 3, -9, "srun: error: gpu-b17: task 3: Killed");
	a = run(&f);
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_RANK_CRASHED));
	fixture_clear(&f, a);
}
END_TEST

/*
 * A CUDA error a kernel left behind surfaces at the next CUDA call, here
 * one in init.cc: it is a crash of what ran before, not a setup failure.
 * Any other CUDA error unwinding through init still is one.
 */
START_TEST(test_kernel_fault_not_setup)
{
	static const struct {
		const char *text;
		int32_t code;
		enum hd_verdict_kind want;
	} cases[] = {
		{ "init.cc:204 NCCL WARN Cuda failure 'an illegal memory access was encountered'",
		  0, HD_V_RANK_CRASHED },
		{ "init.cc:1873 NCCL WARN Cuda failure 716 'misaligned address'",
		  716, HD_V_RANK_CRASHED },
		{ "enqueue.cc:88 NCCL WARN Cuda failure 719", 719,
		  HD_V_RANK_CRASHED },
		{ "transport/nvls.cc:254 NCCL WARN Cuda failure 1 'invalid argument'",
		  1, HD_V_INIT_FAILURE },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct fixture f;
		struct hd_analysis *a;
		struct hd_signal sig;

		fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
		hd_signal_init(&sig);
		sig.rank = 1;
		sig.cat = HD_SIG_CUDA;
		sig.type = HD_SIGT_CUDA_ERROR;
		sig.code = cases[i].code;
		sig.text = hd_unconst(cases[i].text);
		sig.prov.input = f.input[1];
		sig.prov.kind = HD_PROV_LINE;
		sig.prov.at = 5;
		hd_store_add_signal(f.s, &sig);
		hd_signal_init(&sig);
		sig.rank = 1;
		sig.cat = HD_SIG_NCCL_INTERNAL;
		sig.type = HD_SIGT_UNWIND;
		sig.code = 1;
		sig.text = hd_unconst("NCCL INFO init.cc:1891 -> 1");
		sig.prov.input = f.input[1];
		sig.prov.kind = HD_PROV_LINE;
		sig.prov.at = 6;
		hd_store_add_signal(f.s, &sig);
		a = run(&f);
		ck_assert_msg(hd_test_top(a)->kind == cases[i].want,
			      "case %zu: %s", i,
			      hd_verdict_kind_name(hd_test_top(a)->kind));
		fixture_clear(&f, a);
	}
}
END_TEST

/*
 * A driver-class CUDA failure after the rank's collectives ran is its
 * GPU lost mid-run: a crash.  Before them (NCCL went on), or a library
 * NCCL could not load, it is not.
 */
START_TEST(test_driver_lost_mid_run)
{
	static const struct {
		const char *text;
		uint64_t at; /* the signal's line; the ops are lines 3-6 */
		bool crash;
	} cases[] = {
		{ "enqueue.cc:1558 NCCL WARN Cuda failure 'no CUDA-capable device is detected'",
		  9, true },
		{ "enqueue.cc:1558 NCCL WARN Cuda failure 'no CUDA-capable device is detected'",
		  1, false },
		{ "misc/cudawrap.cc:188 NCCL WARN Failed to find CUDA library libcuda.so",
		  9, false },
	};
	const int members[] = { 0, 1 };

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct fixture f;
		struct hd_analysis *a;
		struct hd_signal sig;
		const struct hd_verdict *v;
		uint32_t g;

		fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
		g = add_group(&f, "0", members, 2);
		for (int r = 0; r < 2; r++) {
			for (int64_t q = 1; q <= 4; q++) {
				struct hd_op_rec op = hd_test_op(
					g, r, HD_SEQ_COLLECTIVE, q,
					HD_OP_ALL_REDUCE, HD_STATE_COMPLETED);
				struct hd_opdesc d = hd_test_desc(
					1024, 1024, HD_DTYPE_FLOAT32);

				op.prov.input = f.input[r];
				op.prov.kind = HD_PROV_LINE;
				op.prov.at = (uint64_t)q + 2;
				hd_test_add_op(f.s, &op, &d);
			}
		}
		hd_signal_init(&sig);
		sig.rank = 1;
		sig.cat = HD_SIG_CUDA;
		sig.type = HD_SIGT_CUDA_DRIVER;
		sig.text = hd_unconst(cases[i].text);
		sig.prov.input = f.input[1];
		sig.prov.kind = HD_PROV_LINE;
		sig.prov.at = cases[i].at;
		hd_store_add_signal(f.s, &sig);
		a = run(&f);
		v = hd_test_verdict(a, HD_V_RANK_CRASHED);
		ck_assert_msg((v != NULL) == cases[i].crash, "case %zu: %s", i,
			      hd_verdict_kind_name(hd_test_top(a)->kind));
		if (v)
			ck_assert_int_eq(g_array_index(v->culprits, int, 0), 1);
		fixture_clear(&f, a);
	}
}
END_TEST

START_TEST(test_init_duplicate_gpu)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int want[] = { 1, 3 };

	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	add_sig(&f, 1, HD_SIG_INIT, HD_SIGT_DUPLICATE_GPU, -1, INT64_MIN,
		INT64_MIN,
		"Duplicate GPU detected : rank 1 and rank 3 both on CUDA device 3b000");
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_INIT_FAILURE);
	hd_test_assert_culprits(v, want, 2);
	fixture_clear(&f, a);
}
END_TEST

/* Whether an evidence item of v quotes part (the first one, if first). */
static bool evidence_has(const struct hd_verdict *v, const char *part,
			 bool first)
{
	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		if (e->text && strstr(e->text, part))
			return true;
		if (first)
			return false;
	}
	return false;
}

/*
 * Issue 21: NCCL could not load the CUDA driver.  The WARN names the
 * cause of the failure its process shows (an unwind through init), at
 * medium; with no failure after it, low, and the summary says setup
 * stopping there is not shown; a rank that ran collectives after it went
 * on without it; another setup WARN is the one that stopped setup.
 */
START_TEST(test_init_cuda_driver)
{
	static const char *const warn =
		"misc/cudawrap.cc:188 NCCL WARN Failed to find CUDA library "
		"libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open "
		"shared object file";
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int want[] = { 1 };

	/* the WARN, then an unwind through init */
	fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
	add_sig(&f, 1, HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, -1, INT64_MIN,
		INT64_MIN, warn);
	add_sig(&f, 1, HD_SIG_NCCL_INTERNAL, HD_SIGT_UNWIND, -1, INT64_MIN,
		INT64_MIN, "NCCL INFO init.cc:1720 -> 2");
	g_array_index(f.s->signals, struct hd_signal, 1).code = 2;
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_INIT_FAILURE);
	ck_assert_int_eq(v->confidence, HD_CONF_MEDIUM);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_ptr_nonnull(
		strstr(v->summary, "could not load or use the CUDA driver"));
	ck_assert_ptr_null(strstr(v->summary, "not in the data"));
	ck_assert(evidence_has(v, "Failed to find CUDA library", true));
	fixture_clear(&f, a);

	/* the WARN alone: nothing shows setup failing after it */
	fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
	add_sig(&f, 1, HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, -1, INT64_MIN,
		INT64_MIN, warn);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_INIT_FAILURE);
	ck_assert_int_eq(v->confidence, HD_CONF_LOW);
	ck_assert_ptr_nonnull(strstr(v->summary, "is not shown"));
	fixture_clear(&f, a);

	/* the rank ran collectives after it: not what stopped setup */
	fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
	add_run(&f, add_group(&f, "0", world4, 2), 0, 4, false);
	add_run(&f, 0, 1, 4, false);
	add_sig(&f, 1, HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, -1, INT64_MIN,
		INT64_MIN, warn);
	a = run(&f);
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_INIT_FAILURE));
	ck_assert(!hd_analysis_has_fault(a));
	fixture_clear(&f, a);

	/* another setup WARN of the process is what stopped it */
	fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
	add_sig(&f, 1, HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, -1, INT64_MIN,
		INT64_MIN, warn);
	add_sig(&f, 1, HD_SIG_INIT, HD_SIGT_SOCKET, -1, INT64_MIN, INT64_MIN,
		"misc/socket.cc:484 NCCL WARN Call to bind failed : Address "
		"already in use");
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_INIT_FAILURE);
	ck_assert_ptr_nonnull(strstr(v->summary, "bootstrap socket"));
	fixture_clear(&f, a);
}
END_TEST

/*
 * The failing process's WARN, one hangdoc has no rule for, is cited
 * first beside the echo or the unwind, and the verdict never says the
 * WARN is missing.
 */
START_TEST(test_init_cites_process_warn)
{
	static const char *const warn =
		"misc/frob.cc:12 NCCL WARN The frobnicator refused";
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;

	for (int echo = 0; echo < 2; echo++) {
		fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
		add_sig(&f, 1, HD_SIG_NCCL_INTERNAL, HD_SIGT_OTHER, -1,
			INT64_MIN, INT64_MIN, warn);
		if (echo)
			add_sig(&f, 1, HD_SIG_INIT, HD_SIGT_NCCL_ERROR, -1,
				INT64_MIN, INT64_MIN,
				"DistBackendError: NCCL error in: x.cpp:1, "
				"unhandled system error");
		else
			add_sig(&f, 1, HD_SIG_NCCL_INTERNAL, HD_SIGT_UNWIND, -1,
				INT64_MIN, INT64_MIN,
				"NCCL INFO init.cc:1720 -> 2");
		g_array_index(f.s->signals, struct hd_signal, 1).code = 2;
		a = run(&f);
		v = hd_test_verdict(a, HD_V_INIT_FAILURE);
		ck_assert_ptr_nonnull(v);
		ck_assert_msg(!strstr(v->summary, "not in the data") &&
				      !strstr(v->summary, "not the WARN"),
			      "%s", v->summary);
		ck_assert(evidence_has(v, "frobnicator", true));
		for (guint i = 0; i < v->ruled_out->len; i++)
			ck_assert_ptr_null(strstr(
				g_ptr_array_index(v->ruled_out, i), "missing"));
		fixture_clear(&f, a);
	}
}
END_TEST

/* The last signal add_sig() stored.  (transfer none) */
static struct hd_signal *last_sig(struct fixture *f)
{
	return &g_array_index(f->s->signals, struct hd_signal,
			      f->s->signals->len - 1);
}

/*
 * Issue 21: a failure that ends its process (a fatal signal here) of a
 * rank whose process printed a status line after the first watchdog
 * timeout came after the hang: a dead process prints nothing more.  With
 * no time of its own, or one after that line, it is no "failed first":
 * the verdict that blames the rank's absence says it failed after, and
 * with none to take it (a dump line its only sign of life), it is a low
 * rank_crashed that says so.  One dated before the hang is "failed
 * first", and so is one of another pid.
 */
START_TEST(test_crash_after_hang)
{
	static const int64_t t0 = 1795231364LL * 1000000000; /* the timeout */
	static const struct {
		int64_t at; /* the crash's time, INT64_MIN none */
		int32_t pid; /* the crash's pid, 0 none */
		bool dump; /* a dump line, and no timeout */
		enum hd_verdict_kind want;
		const char *says;
	} cases[] = {
		{ INT64_MIN, 0, false, HD_V_MISSING_RANK, "after the hang" },
		{ t0 + 30LL * 1000000000, 0, false, HD_V_MISSING_RANK,
		  "after the hang" },
		{ INT64_MIN, 0, true, HD_V_RANK_CRASHED, "after the hang" },
		{ t0 - 600LL * 1000000000, 0, false, HD_V_RANK_CRASHED,
		  "failed first" },
		{ INT64_MIN, 999, false, HD_V_RANK_CRASHED, "failed first" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct fixture f;
		struct hd_analysis *a;
		const struct hd_verdict *v;
		bool after = strstr(cases[i].says, "after") != NULL;

		fixture_init(&f, 2, HD_INPUT_NCCL_LOG);
		if (cases[i].dump) {
			add_sig(&f, 1, HD_SIG_INFO, HD_SIGT_DUMP, -1, INT64_MIN,
				INT64_MIN,
				"Flight Recorder trace successfully dumped");
		} else {
			add_sig(&f, 0, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT,
				38, INT64_MIN, INT64_MIN,
				"Watchdog caught collective");
			last_sig(&f)->time = hd_time_make(t0, HD_CLOCK_UTC);
			add_sig(&f, 1, HD_SIG_PROGRESS, HD_SIGT_PG_STATUS, -1,
				37, 37,
				"Received a dump signal ... Last enqueued NCCL "
				"work: 37, last completed NCCL work: 37.");
			last_sig(&f)->time =
				hd_time_make(t0 + 1000000000, HD_CLOCK_UTC);
		}
		last_sig(&f)->pid = 4247;
		add_sig(&f, 1, HD_SIG_CRASH, HD_SIGT_FATAL_SIGNAL, -1,
			INT64_MIN, INT64_MIN,
			"Fatal Python error: Segmentation fault");
		last_sig(&f)->code = 11;
		last_sig(&f)->time = hd_time_make(cases[i].at, HD_CLOCK_UTC);
		last_sig(&f)->pid = cases[i].pid;
		a = run(&f);
		v = hd_test_top(a);
		ck_assert_msg(v->kind == cases[i].want &&
				      strstr(v->summary, cases[i].says),
			      "case %zu: %s: %s", i,
			      hd_verdict_kind_name(v->kind), v->summary);
		ck_assert_int_eq(g_array_index(v->culprits, int, 0), 1);
		if (after) {
			ck_assert_int_ge(v->late_crash, 0);
			ck_assert(
				evidence_has(v, "alive after the hang", false));
			if (v->kind == HD_V_RANK_CRASHED)
				ck_assert_int_eq(v->confidence, HD_CONF_LOW);
			else
				ck_assert_ptr_null(
					hd_test_verdict(a, HD_V_RANK_CRASHED));
		} else {
			ck_assert_int_eq(v->late_crash, -1);
		}
		fixture_clear(&f, a);
	}
}
END_TEST

/*
 * The faulthandler dump of rank 5 beside the example incident, where
 * rank 5 printed that it received a dump signal after the timeouts: it
 * never entered seq 38, then crashed, and the verdict says both.  The
 * incident as left when rank 5 died first (its dump its only output)
 * still says it failed first.
 */
START_TEST(test_crash_after_hang_example)
{
	g_autofree char *ex = hd_test_path("testdata/example-incident");
	g_autofree char *fh =
		hd_test_path("tests/data/crash/faulthandler-rank5");
	g_autofree char *only =
		hd_test_path("tests/data/crash/faulthandler-only-rank5");
	char *after[] = { ex, fh, NULL };
	char *first[] = { only, NULL };
	static const int want[] = { 5 };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	struct hd_store *s = hd_load(after, 2, problems);
	struct hd_analysis *a = hd_engine_run(s);
	const struct hd_verdict *v = hd_test_top(a);

	ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_ptr_nonnull(strstr(v->summary, "never entered seq 38"));
	ck_assert_ptr_nonnull(
		strstr(v->summary, "after the hang was detected"));
	ck_assert(evidence_has(v, "Segmentation fault", false));
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_RANK_CRASHED));
	hd_analysis_free(a);
	hd_store_free(s);

	s = hd_load(first, 1, problems);
	a = hd_engine_run(s);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_RANK_CRASHED);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_ptr_nonnull(strstr(v->summary, "failed first"));
	ck_assert_uint_eq(problems->len, 0);
	hd_analysis_free(a);
	hd_store_free(s);
}
END_TEST

/* An FR dump and the c10d log agree: one verdict, pooled evidence. */
START_TEST(test_sources_merge)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	uint32_t log3;
	static const int want[] = { 3 };
	guint n = 0;

	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 3; r++)
		add_run(&f, g, r, 4, true);
	add_run(&f, g, 3, 4, false);
	log3 = hd_store_add_input(f.s, "rank3.log");
	hd_store_input(f.s, log3)->kind = HD_INPUT_NCCL_LOG;
	hd_rank_add_input(hd_store_rank(f.s, 3), log3);
	for (int r = 0; r < 3; r++) {
		uint32_t in = hd_store_add_input(f.s, "log");

		hd_store_input(f.s, in)->kind = HD_INPUT_NCCL_LOG;
		hd_rank_add_input(hd_store_rank(f.s, r), in);
		f.input[r] = in;
		add_sig(&f, r, HD_SIG_TIMEOUT, HD_SIGT_WATCHDOG_TIMEOUT, 5,
			INT64_MIN, INT64_MIN, "timeout");
	}
	f.input[3] = log3;
	add_sig(&f, 3, HD_SIG_PROGRESS, HD_SIGT_PG_STATUS, -1, 4, 4, "E 4 C 4");
	a = run(&f);
	for (guint i = 0; i < a->verdicts->len; i++)
		if (((struct hd_verdict *)g_ptr_array_index(a->verdicts, i))
			    ->kind == HD_V_MISSING_RANK)
			n++;
	ck_assert_uint_eq(n, 1);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	fixture_clear(&f, a);
}
END_TEST

/*
 * A trace that ends before a kernel the others finished ended with its
 * profiling window (completion proves presence); traces matched by order
 * alone are never compared.
 */
START_TEST(test_trace_end_not_blamed)
{
	struct fixture f;
	struct hd_analysis *a;
	static const int pair[] = { 0, 1, 2 };

	fixture_init(&f, 3, HD_INPUT_KINETO);
	uint32_t g = add_group(&f, "0", pair, 3);
	add_run(&f, g, 0, 8, false);
	add_run(&f, g, 1, 5, false);
	add_run(&f, g, 2, 8, false);
	a = run(&f);
	/* the others' finished kernels 6-8 needed rank 1: its window ended */
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_LAGGING_RANK));
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_MISSING_RANK));
	ck_assert(has_note(a, "the record of rank 1 ends before seq 8"));
	fixture_clear(&f, a);

	fixture_init(&f, 3, HD_INPUT_KINETO);
	g = add_group(&f, "0", pair, 3);
	for (int r = 0; r < 3; r++)
		for (int64_t s = 0; s < (r == 1 ? 5 : 8); s++) {
			struct hd_op_rec op = hd_test_op(g, r, HD_SEQ_ORDINAL,
							 s, HD_OP_ALL_REDUCE,
							 HD_STATE_COMPLETED);

			op.prov.input = f.input[r];
			hd_store_add_op(f.s, &op);
		}
	a = run(&f);
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_LAGGING_RANK));
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_MISSING_RANK));
	fixture_clear(&f, a);
}
END_TEST

/* Rank 3 left no dump; everyone else is blocked at seq 8. */
START_TEST(test_missing_by_elimination)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int want[] = { 3 };

	fixture_init(&f, 3, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 3; r++)
		add_run(&f, g, r, 7, true);
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_int_eq(v->confidence, HD_CONF_LOW);
	ck_assert_uint_eq(a->ranks_missing->len, 1);
	fixture_clear(&f, a);
}
END_TEST

START_TEST(test_completion_lag)
{
	struct fixture f;
	struct hd_analysis *a;
	const struct hd_verdict *v;
	static const int want[] = { 2 };

	/* a broadcast's root can finish before the others: no proof */
	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++) {
		int64_t done = r == 2 ? 4 : 7;

		for (int64_t s = 1; s <= 8; s++)
			add_op(&f, g, r, s, HD_OP_BROADCAST, 16,
			       s <= done ? HD_STATE_COMPLETED
					 : HD_STATE_ENQUEUED);
	}
	a = run(&f);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_LAGGING_RANK);
	hd_test_assert_culprits(v, want, 1);
	ck_assert_int_eq(v->seq, 5);
	fixture_clear(&f, a);

	/*
	 * Issue 18 item 4: the same with all_reduce.  Rank 0 completed seq
	 * 7, which needed rank 2: rank 2's unfinished seq 5-7 are a stale
	 * record.  Failed before: lagging_rank rank 2.
	 */
	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++) {
		int64_t done = r == 2 ? 4 : 7;

		for (int64_t s = 1; s <= 8; s++)
			add_op(&f, g, r, s, HD_OP_ALL_REDUCE, 16,
			       s <= done ? HD_STATE_COMPLETED
					 : HD_STATE_ENQUEUED);
	}
	a = run(&f);
	ck_assert(!hd_analysis_has_fault(a));
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_INSUFFICIENT_DATA);
	ck_assert_int_eq(hd_test_top(a)->seq, 8);
	ck_assert(has_note(a, "rank 2 still shows an op at or below seq 7"));
	fixture_clear(&f, a);

	/* One op apart is two snapshots taken moments apart: no verdict. */
	fixture_init(&f, 4, HD_INPUT_FLIGHT_REC);
	g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++)
		for (int64_t s = 1; s <= 8; s++)
			add_op(&f, g, r, s, HD_OP_BROADCAST, 16,
			       s <= (r == 2 ? 6 : 7) ? HD_STATE_COMPLETED
						     : HD_STATE_ENQUEUED);
	a = run(&f);
	ck_assert_ptr_null(hd_test_verdict(a, HD_V_LAGGING_RANK));
	fixture_clear(&f, a);
}
END_TEST

/*
 * Issue 11: no_fault only where the data shows healthy progress.  Every
 * rank completed its ops, but one NCCL WARN that no check can attribute
 * was read: insufficient_data, and hd_analysis_undecided() (exit 5).
 */
START_TEST(test_no_fault_needs_no_trouble)
{
	struct fixture f;
	struct hd_analysis *a;
	struct hd_signal sig;

	fixture_init(&f, 4, HD_INPUT_NCCL_LOG);
	uint32_t g = add_group(&f, "0", world4, 4);
	for (int r = 0; r < 4; r++)
		add_run(&f, g, r, 5, false);
	/* a progress report is not trouble */
	add_sig(&f, 1, HD_SIG_PROGRESS, HD_SIGT_PG_STATUS, -1, 5, 5, "status");
	a = run(&f);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_NO_FAULT);
	ck_assert(!hd_analysis_undecided(a));
	hd_analysis_free(a);

	hd_signal_init(&sig);
	sig.rank = 2;
	sig.cat = HD_SIG_NCCL_INTERNAL;
	sig.text =
		hd_unconst("node-q:71:72 [2] misc/x.cc:9 NCCL WARN odd thing");
	sig.prov.input = f.input[2];
	sig.prov.kind = HD_PROV_LINE;
	sig.prov.at = 3;
	hd_store_add_signal(f.s, &sig);
	a = run(&f);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_INSUFFICIENT_DATA);
	ck_assert_int_eq(hd_test_top(a)->confidence, HD_CONF_MEDIUM);
	ck_assert_uint_ge(hd_test_top(a)->evidence->len, 1);
	ck_assert(!hd_analysis_has_fault(a));
	ck_assert(hd_analysis_undecided(a));
	fixture_clear(&f, a);
}
END_TEST

/* Signals but no ranks and no ops: nothing shows progress. */
/*
 * Ops of no known rank (FR dumps whose names and groups give none) are
 * never aligned: with no rank seen, nothing is shown healthy.  The same
 * ops with their ranks are no_fault.
 */
START_TEST(test_ops_of_no_rank_not_no_fault)
{
	for (int ranked = 0; ranked < 2; ranked++) {
		struct fixture f = { .s = hd_store_new() };
		struct hd_analysis *a;
		uint32_t g;

		for (int r = 0; r < 2; r++) {
			g_autofree char *name =
				g_strdup_printf("dump-%c", 'a' + r);
			struct hd_input *in;

			f.input[r] = hd_store_add_input(f.s, name);
			in = hd_store_input(f.s, f.input[r]);
			in->kind = HD_INPUT_FLIGHT_REC;
			in->records = 3;
			in->rank = ranked ? r : -1;
			if (ranked)
				hd_rank_add_input(hd_store_rank(f.s, r),
						  f.input[r]);
		}
		g = add_group(&f, "0", world4, 2);
		for (int r = 0; r < 2; r++)
			add_run(&f, g, r, 3, false);
		if (!ranked)
			for (guint i = 0; i < f.s->ops->len; i++)
				hd_op_set_rank(hd_store_op(f.s, i), -1);
		a = run(&f);
		ck_assert_msg(hd_test_top(a)->kind ==
				      (ranked ? HD_V_NO_FAULT
					      : HD_V_INSUFFICIENT_DATA),
			      "ranked %d: kind %d", ranked,
			      hd_test_top(a)->kind);
		fixture_clear(&f, a);
	}
}
END_TEST

START_TEST(test_no_ranks_no_ops_not_no_fault)
{
	struct hd_store *s = hd_store_new();
	struct hd_analysis *a;
	uint32_t in = hd_store_add_input(s, "banner");

	hd_store_input(s, in)->kind = HD_INPUT_NCCL_LOG;
	hd_store_input(s, in)->records = 1;
	hd_store_resolve(s);
	a = hd_engine_run(s);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_INSUFFICIENT_DATA);
	ck_assert(!hd_analysis_undecided(a));
	hd_analysis_free(a);
	hd_store_free(s);
}
END_TEST

/*
 * Issue 11: COLL lines of processes whose rank is unknown are compared
 * by opCount, naming the odd process by host:pid, at low confidence and
 * without a culprit rank.
 */
START_TEST(test_anonymous_processes_compared)
{
	struct hd_store *s = hd_store_new();
	uint32_t in = hd_store_add_input(s, "coll.log");
	uint32_t g = hd_store_group(s, "nccl-nranks:3#0");
	struct hd_analysis *a;
	const struct hd_verdict *v;

	hd_store_input(s, in)->kind = HD_INPUT_NCCL_LOG;
	hd_store_input(s, in)->records = 6;
	for (int p = 0; p < 3; p++) {
		struct hd_signal sig;

		for (int k = 0; k < 2; k++) {
			struct hd_op_rec op;
			struct hd_opdesc d = hd_opdesc_blank;

			hd_op_rec_init(&op);
			hd_op_set_anon(&op.op, p);
			op.op.group = g;
			op.op.seq = k;
			op.op.seq_kind = HD_SEQ_ORDINAL;
			op.op_count = 0x40 + k;
			op.op.kind = p == 1 && k == 1 ? HD_OP_ALL_GATHER
						      : HD_OP_ALL_REDUCE;
			d.count_in = d.count_out = 64;
			d.dtype = HD_DTYPE_FLOAT32;
			hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
			op.prov.input = in;
			op.prov.kind = HD_PROV_LINE;
			op.prov.at = 1 + p * 2 + k;
			hd_store_add_op(s, &op);
		}
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_ANON_PROC;
		sig.anon = p;
		sig.host = hd_intern("anon-h");
		sig.pid = 700 + p;
		sig.code = p;
		sig.prov.input = in;
		hd_store_add_signal(s, &sig);
	}
	hd_store_resolve(s);
	a = hd_engine_run(s);
	v = hd_test_top(a);
	ck_assert_int_eq(v->kind, HD_V_TYPE_MISMATCH);
	ck_assert_int_eq(v->confidence, HD_CONF_LOW);
	ck_assert_uint_eq(v->culprits->len, 0);
	ck_assert_ptr_nonnull(strstr(v->summary, "anon-h:701 [dev 1]"));
	ck_assert_ptr_nonnull(strstr(v->summary, "opCount 0x41"));
	ck_assert_uint_eq(a->verdicts->len, 1);
	hd_analysis_free(a);
	hd_store_free(s);
}
END_TEST

/*
 * An even split between ten anonymous processes and ten of known rank:
 * every known rank is named, however many ops the evidence cites (the
 * vote decides culprits; the evidence cap only limits what is quoted).
 */
START_TEST(test_anonymous_tie_names_every_known_rank)
{
	struct hd_store *s = hd_store_new();
	uint32_t in = hd_store_add_input(s, "coll.log");
	uint32_t g = hd_store_group(s, "nccl-nranks:20#0");
	struct hd_analysis *a;
	const struct hd_verdict *v = NULL;

	hd_store_input(s, in)->kind = HD_INPUT_NCCL_LOG;
	hd_store_input(s, in)->records = 20;
	/* the anonymous processes first: their lanes lead the vote */
	for (int p = 0; p < 20; p++) {
		struct hd_op_rec op;
		struct hd_opdesc d = hd_opdesc_blank;

		hd_op_rec_init(&op);
		if (p < 10)
			hd_op_set_anon(&op.op, p);
		else
			hd_op_set_rank(&op.op, p - 10);
		op.op.group = g;
		op.op.seq = 0;
		op.op.seq_kind = HD_SEQ_ORDINAL;
		op.op.kind = p < 10 ? HD_OP_ALL_REDUCE : HD_OP_ALL_GATHER;
		d.count_in = d.count_out = 64;
		d.dtype = HD_DTYPE_FLOAT32;
		hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
		op.prov.input = in;
		op.prov.kind = HD_PROV_LINE;
		op.prov.at = 1 + p;
		hd_store_add_op(s, &op);
	}
	hd_store_resolve(s);
	a = hd_engine_run(s);
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *w = g_ptr_array_index(a->verdicts, i);

		if (strstr(w->summary, "even split"))
			v = w;
	}
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->confidence, HD_CONF_LOW);
	ck_assert_uint_eq(v->culprits->len, 10);
	ck_assert_uint_le(v->evidence->len, 8);
	hd_analysis_free(a);
	hd_store_free(s);
}
END_TEST

START_TEST(test_empty_store)
{
	struct hd_store *s = hd_store_new();
	struct hd_analysis *a;

	hd_store_add_input(s, "nothing");
	hd_store_resolve(s);
	a = hd_engine_run(s);
	ck_assert_int_eq(hd_test_top(a)->kind, HD_V_INSUFFICIENT_DATA);
	hd_analysis_free(a);
	hd_store_free(s);
}
END_TEST

static bool names_culprit(const struct hd_analysis *a, int rank)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint k = 0; k < v->culprits->len; k++)
			if (g_array_index(v->culprits, int, k) == rank)
				return true;
	}
	return false;
}

/*
 * Issue 20: one dump of a fixture cut at every offset, the others whole.
 * A cut input never makes its rank the culprit; when the fixture's own
 * culprit is the cut one (want_hang), the others are still blocked, so
 * the verdict is never no_fault.  Failed before: a healthy set with rank
 * 0's dump cut gave lagging_rank rank 0 at about half the offsets, and
 * the culprit's dump cut gave no_fault.
 */
static void cut_at(const char *fixture, const char *victim, int rank,
		   bool want_hang, size_t step, bool lines, int culprit,
		   const char *alike, const char *unlike)
{
	g_autofree char *src = hd_test_path(fixture);
	g_autofree char *tmp = g_dir_make_tmp("hd-cut-XXXXXX", NULL);
	g_autofree char *whole = NULL;
	g_autofree char *cut = NULL;
	GDir *d;
	const char *n;
	size_t len = 0;

	ck_assert_ptr_nonnull(tmp);
	d = g_dir_open(src, 0, NULL);
	ck_assert_ptr_nonnull(d);
	while ((n = g_dir_read_name(d))) {
		g_autofree char *from = g_build_filename(src, n, NULL);
		g_autofree char *to = g_build_filename(tmp, n, NULL);
		g_autofree char *buf = NULL;
		gsize blen;

		ck_assert(g_file_get_contents(from, &buf, &blen, NULL));
		ck_assert(g_file_set_contents(to, buf, (gssize)blen, NULL));
	}
	g_dir_close(d);
	cut = g_build_filename(tmp, victim, NULL);
	ck_assert(g_file_get_contents(cut, &whole, &len, NULL));
	for (size_t at = 0; at < len; at += step) {
		char *paths[] = { tmp, NULL };
		g_autoptr(GPtrArray) problems =
			g_ptr_array_new_with_free_func(g_free);
		struct hd_store *s;
		struct hd_analysis *a;
		FILE *fp;

		/* a log cut where a line ends: nothing says it was cut */
		if (lines && at && whole[at - 1] != '\n')
			continue;
		fp = fopen(cut, "wb");
		/* not g_file_set_contents(): it syncs, thousands of times */
		ck_assert_ptr_nonnull(fp);
		ck_assert_uint_eq(fwrite(whole, 1, at, fp), at);
		ck_assert_int_eq(fclose(fp), 0);
		s = hd_load(paths, 1, problems);
		a = hd_engine_run(s);
		/* cut where the culprit's record ends (after alike, before
		   unlike), it reads as the culprit's */
		if (alike && g_strstr_len(whole, (gssize)at, alike) &&
		    !g_strstr_len(whole, (gssize)at, unlike)) {
			ck_assert_msg(names_culprit(a, culprit),
				      "%s cut at %zu of %zu: %s", victim, at,
				      len, hd_test_top(a)->summary);
			hd_analysis_free(a);
			hd_store_free(s);
			continue;
		}
		ck_assert_msg(!names_culprit(a, rank),
			      "%s cut at %zu of %zu: rank %d blamed: %s",
			      victim, at, len, rank, hd_test_top(a)->summary);
		if (want_hang)
			ck_assert_msg(hd_test_top(a)->kind != HD_V_NO_FAULT,
				      "%s cut at %zu of %zu: no_fault", victim,
				      at, len);
		if (culprit >= 0)
			ck_assert_msg(
				names_culprit(a, culprit) &&
					hd_test_top(a)->culprits->len == 1 &&
					g_array_index(hd_test_top(a)->culprits,
						      int, 0) == culprit,
				"%s cut at %zu of %zu: %s, not rank %d", victim,
				at, len, hd_test_top(a)->summary, culprit);
		hd_analysis_free(a);
		hd_store_free(s);
	}
	d = g_dir_open(tmp, 0, NULL);
	while (d && (n = g_dir_read_name(d))) {
		g_autofree char *p = g_build_filename(tmp, n, NULL);

		g_unlink(p);
	}
	if (d)
		g_dir_close(d);
	g_rmdir(tmp);
}

static void cut_every_offset(const char *fixture, const char *victim, int rank,
			     bool want_hang, size_t step)
{
	cut_at(fixture, victim, rank, want_hang, step, false, -1, NULL, NULL);
}

START_TEST(test_cut_dumps_never_blamed)
{
	cut_every_offset("tests/data/fr/healthy", "nccl_trace_rank_0", 0, false,
			 1);
	cut_every_offset("tests/data/fr/missing-rank", "nccl_trace_rank_2", 2,
			 true, 1);
	cut_every_offset("tests/data/fr/json-variant",
			 "comm_lib_trace_rank_1.json", 1, true, 1);
	cut_every_offset("tests/data/fr/json-variant",
			 "comm_lib_trace_rank_0.json", 0, false, 1);
}
END_TEST

/*
 * adv4: a profiler trace cut anywhere (every 61 bytes: 380 cuts) beside
 * three whole ones is never no_fault and never blames its rank.  Cut
 * before its first kernel, a trace's relative stamps (baseTimeNanoseconds
 * is at its end) were taken for January 1970: the trace was set apart as
 * another incident's, and the rest was no_fault.
 */
START_TEST(test_cut_traces_never_healthy)
{
	cut_every_offset("tests/data/kineto/occasional-eraC",
			 "rank1.pt.trace.json", 1, true, 61);
}
END_TEST

/*
 * Issue 18: a rank's NCCL log cut where a line ends, at every line, in a
 * hang and in a healthy run.  Nothing in the file says it was cut, but
 * the others' completion does (c10d counters, a clean Destroy): the cut
 * rank is never blamed, and in the hang the culprit stays rank 2 alone,
 * until the cut reaches where rank 2's own record ends (then the two
 * logs read alike, and rank 2 is still named).
 * Failed before: missing-rank with rank 0's log cut in the hang blamed
 * ranks 0 and 2.
 */
START_TEST(test_cut_logs_never_blamed)
{
	/* from op 29 on, rank 0's log reads as rank 2's: either is the one */
	cut_at("tests/data/nccl/missing-rank", "rank0.log", 0, true, 1, true, 2,
	       "opCount 1d ", "opCount 1e ");
	/* a waiting rank cut after its last COLL line, before its watchdog
	   spoke: its COLL lines show it enqueued the op, never absent */
	cut_at("tests/data/nccl/missing-rank", "rank1.log", 1, true, 1, true, 2,
	       "opCount 1d ", "opCount 1e ");
	cut_at("tests/data/nccl/healthy", "rank3.log", 3, false, 1, true, -1,
	       NULL, NULL);
}
END_TEST

/*
 * tests/data/fr/p2p-wait-chain: three ranks with 160 unpartnered sends
 * each to the next, a chain of waits with no cycle.  The deadlock search
 * walked every path along the chain, 160^3 of them, once per edge: minutes.
 * fuzz_analyze timed out on 64 sends a rank.
 */
START_TEST(test_p2p_wait_chain_is_fast)
{
	g_autofree char *dir = hd_test_path("tests/data/fr/p2p-wait-chain");
	char *paths[] = { dir, NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	struct hd_store *s = hd_load(paths, 1, problems);
	struct hd_analysis *a = hd_engine_run(s);
	const struct hd_verdict *v = hd_test_verdict(a, HD_V_P2P_UNMATCHED);

	ck_assert_uint_eq(problems->len, 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_null(strstr(v->summary, "cycle"));
	hd_analysis_free(a);
	hd_store_free(s);
}
END_TEST

/* Culprits stay sorted and unique, whatever order they come in. */
START_TEST(test_culprits_sorted_unique)
{
	static const int in[] = { 5, 3, 9, 3, 1, 9, 7, 0, 5 };
	static const int want[] = { 0, 1, 3, 5, 7, 9 };
	struct hd_verdict *v =
		hd_verdict_new(HD_V_MISSING_RANK, HD_CONF_LOW, "test");

	for (size_t i = 0; i < G_N_ELEMENTS(in); i++)
		hd_verdict_add_culprit(v, in[i]);
	hd_test_assert_culprits(v, want, G_N_ELEMENTS(want));
	hd_verdict_free(v);
}
END_TEST

/* A group of 300k members blamed rank by rank (re-sorting: minutes). */
START_TEST(test_many_culprits_are_fast)
{
	struct hd_verdict *v =
		hd_verdict_new(HD_V_MISSING_RANK, HD_CONF_LOW, "test");

	for (int r = 0; r < 300000; r++)
		hd_verdict_add_culprit(v, r);
	hd_verdict_add_culprit(v, 150000);
	ck_assert_uint_eq(v->culprits->len, 300000);
	ck_assert_int_eq(g_array_index(v->culprits, int, 299999), 299999);
	hd_verdict_free(v);
}
END_TEST

/*
 * One rank in 100k comms: every lane key of one rank once hashed alike,
 * which made indexing quadratic (23 s).
 */
START_TEST(test_many_groups_one_rank_are_fast)
{
	static const int one[] = { 0 };
	struct fixture f;
	struct hd_analysis *a;

	fixture_init(&f, 1, HD_INPUT_FLIGHT_REC);
	for (int g = 0; g < 100000; g++) {
		g_autofree char *name = g_strdup_printf("pg%d", g);

		add_op(&f, add_group(&f, name, one, 1), 0, 1, HD_OP_ALL_REDUCE,
		       1024, HD_STATE_COMPLETED);
	}
	a = run(&f);
	ck_assert_uint_eq(f.s->groups->len, 100000);
	ck_assert_uint_gt(a->verdicts->len, 0);
	fixture_clear(&f, a);
}
END_TEST

/*
 * The engine's steps read only what earlier steps made, each check runs
 * once, and an order where chains run before the checks whose verdicts
 * and waits they follow is refused by name.
 */
/* A signal of rank (-1: none) at UTC second at (0: no time). */
static const struct hd_signal *cand_sig(struct hd_store *s, int rank,
					int64_t at)
{
	struct hd_signal sig;

	hd_signal_init(&sig);
	sig.rank = rank;
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_PROCESS_EXIT;
	sig.host = hd_intern("node-a");
	if (at)
		sig.time = hd_time_make(at * HD_NS_PER_SEC, HD_CLOCK_UTC);
	hd_store_add_signal(s, &sig);
	return &g_array_index(s->signals, struct hd_signal,
			      s->signals->len - 1);
}

/*
 * A signal check's candidates: their ranks once each, in the order first
 * seen; the first in time where times are known, else the first read;
 * none when there are none.
 */
START_TEST(test_sig_cands)
{
	g_autoptr(hd_store) s = hd_store_new();
	struct hd_sig_cands c;
	GPtrArray *firsts = NULL;
	bool tie = true;
	hd_store_add_input(s, "log");
	hd_sig_cands_init(&c);
	ck_assert_ptr_null(hd_sig_cands_first(s, &c, &firsts, &tie));
	ck_assert_ptr_null(firsts);
	ck_assert(!tie);
	hd_sig_cands_clear(&c);

	cand_sig(s, 2, 0);
	cand_sig(s, 1, 100);
	cand_sig(s, -1, 0);
	cand_sig(s, 1, 10);
	cand_sig(s, 2, 50);
	hd_sig_cands_init(&c);
	for (guint i = 0; i < s->signals->len; i++)
		hd_sig_cands_add(&c, hd_sig_at(s, i));
	ck_assert_ptr_eq(hd_sig_cands_first(s, &c, &firsts, &tie),
			 hd_sig_at(s, 3));
	ck_assert(!tie);
	ck_assert_ptr_nonnull(firsts);
	ck_assert_uint_eq(firsts->len, 1);
	g_ptr_array_unref(firsts);
	ck_assert_uint_eq(c.ranks->len, 2);
	ck_assert_int_eq(g_array_index(c.ranks, int, 0), 2);
	ck_assert_int_eq(g_array_index(c.ranks, int, 1), 1);
	ck_assert_uint_eq(c.rankless, 1);
	ck_assert(c.untimed);
	hd_sig_cands_clear(&c);

	/* none timed: the first read */
	hd_sig_cands_init(&c);
	hd_sig_cands_add(&c, hd_sig_at(s, 2));
	hd_sig_cands_add(&c, hd_sig_at(s, 0));
	ck_assert_ptr_eq(hd_sig_cands_first(s, &c, &firsts, &tie),
			 hd_sig_at(s, 2));
	ck_assert_ptr_null(firsts);
	hd_sig_cands_clear(&c);
}
END_TEST

START_TEST(test_check_order_stated)
{
	size_t n;
	const struct hd_check_step *steps = hd_engine_steps(&n);
	struct hd_check_step swapped[16];
	const char *bad = "unset";
	size_t chains = n, groups = n;

	ck_assert_uint_le(n, G_N_ELEMENTS(swapped));
	ck_assert(hd_check_steps_ordered(steps, n, 0, &bad));
	ck_assert_ptr_null(bad);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++)
			ck_assert_ptr_ne(steps[i].run, steps[j].run);
		if (steps[i].run == hd_check_chains)
			chains = i;
		if (steps[i].run == hd_check_groups)
			groups = i;
	}
	ck_assert_uint_lt(groups, chains);
	ck_assert_uint_lt(chains, n);
	memcpy(swapped, steps, n * sizeof(*steps));
	swapped[groups] = steps[chains];
	swapped[chains] = steps[groups];
	ck_assert(!hd_check_steps_ordered(swapped, n, 0, &bad));
	ck_assert_str_eq(bad, "chains");
}
END_TEST

/*
 * The signal checks run in a stated order: the weak network check after
 * the network and crash checks whose verdicts it reads, the counters
 * given which logs end early; moving the weak check first is refused.
 */
START_TEST(test_signal_order_stated)
{
	size_t n;
	const struct hd_check_step *steps = hd_sig_steps(&n);
	struct hd_check_step moved[16];
	const char *bad = "unset";
	size_t weak = n, net = n, crash = n;

	ck_assert_uint_le(n, G_N_ELEMENTS(moved));
	ck_assert(hd_check_steps_ordered(steps, n, HD_SIG_GIVEN, &bad));
	ck_assert_ptr_null(bad);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++)
			ck_assert_ptr_ne(steps[i].run, steps[j].run);
		if (steps[i].run == hd_sig_check_network_weak)
			weak = i;
		if (steps[i].run == hd_sig_check_network)
			net = i;
		if (steps[i].run == hd_sig_check_crashes)
			crash = i;
	}
	ck_assert_uint_lt(net, weak);
	ck_assert_uint_lt(crash, weak);
	ck_assert_uint_lt(weak, n);
	ck_assert(steps[weak].reads & HD_SIG_DATA_CRASH_VERDICTS);
	/* the weak check first: it reads verdicts no check made yet */
	moved[0] = steps[weak];
	for (size_t i = 0, k = 1; i < n; i++)
		if (i != weak)
			moved[k++] = steps[i];
	ck_assert(!hd_check_steps_ordered(moved, n, HD_SIG_GIVEN, &bad));
	ck_assert_str_eq(bad, "network_weak");
	/* without what the engine gives, the counters read too early */
	ck_assert(!hd_check_steps_ordered(steps, n, 0, &bad));
	ck_assert_str_eq(bad, "progress");
}
END_TEST

/*
 * Every verdict kind has a complete row of its own: a unique name, a
 * per-rank state, a next-step hook; only no_fault and insufficient_data
 * are not faults, and they rank below every fault.
 */
/*
 * With logs only, the engine draws the rank picture from the watchdog's
 * counters in the rank table: completed up to a rank's last completed,
 * blocked up to its last enqueued, absent past it, no data without that
 * PG's counters; around the top verdict's position.
 */
START_TEST(test_counters_matrix)
{
	g_autoptr(hd_store) s = hd_store_new();
	g_autoptr(hd_analysis) a = hd_analysis_new(s);
	g_autoptr(hd_matrix) m = NULL;
	struct hd_verdict *v = hd_verdict_new(HD_V_MISSING_RANK, HD_CONF_HIGH,
					      "rank 1 never entered seq 38");
	const char *pg = hd_intern("0"), *name = NULL;
	static const struct {
		int64_t enq, done;
		bool counters;
	} rows[] = { { 38, 37, true }, { 37, 37, true }, { -1, -1, false } };

	ck_assert_ptr_null(hd_analysis_counters_matrix(a, 4, 3, &name));
	for (int r = 0; r < 3; r++) {
		struct hd_rank_progress p = {
			.rank = r,
			.group = -1,
			.last_enqueued = rows[r].enq,
			.last_completed = rows[r].done,
			.blocked_seq = -1,
			.counters_pg = rows[r].counters ? pg : NULL,
			.state = "blocked",
			.stack = -1,
			.user_frame = -1,
		};

		g_array_append_val(a->progress, p);
	}
	v->seq = 38;
	hd_verdict_add_culprit(v, 1);
	g_ptr_array_add(a->verdicts, v);
	m = hd_analysis_counters_matrix(a, 4, 3, &name);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(name, "0");
	ck_assert_int_eq(m->divergence, 38);
	ck_assert_uint_eq(m->positions->len, 5);
	ck_assert_int_eq(g_array_index(m->positions, int64_t, 0), 34);
	ck_assert_int_eq(hd_matrix_cell(m, 0, 3)->state, HD_CELL_COMPLETED);
	ck_assert_int_eq(hd_matrix_cell(m, 0, 4)->state, HD_CELL_BLOCKED);
	ck_assert_int_eq(hd_matrix_cell(m, 1, 4)->state, HD_CELL_ABSENT);
	ck_assert_int_eq(hd_matrix_cell(m, 2, 4)->state, HD_CELL_NO_DATA);
	ck_assert_uint_eq(hd_matrix_cell(m, 0, 4)->op, UINT32_MAX);
	ck_assert(!g_array_index(m->culprit, gboolean, 0));
	ck_assert(g_array_index(m->culprit, gboolean, 1));
}
END_TEST

/* A triage key as hd_triage_key_new() would keep it. */
static struct hd_triage_key *triage_key(enum hd_triage_class class,
					const char *fp, const char *site,
					const char *host, bool fault)
{
	struct hd_triage_key *k = g_new0(struct hd_triage_key, 1);

	k->class = class;
	k->fingerprint = g_strdup(fp);
	k->call_site = g_strdup(site);
	k->hosts = g_ptr_array_new_with_free_func(g_free);
	if (host)
		g_ptr_array_add(k->hosts, g_strdup(host));
	k->fault = fault;
	k->usable = class != HD_TRIAGE_UNANALYZED;
	return k;
}

/*
 * Triage groups incidents in the engine: by fingerprint, most frequent
 * first, then by key (the undecided and the unanalyzed first, as names
 * in parentheses sort before hex); the undecided are never one cause;
 * call sites each once in path order; a host is counted once per
 * incident and listed when blamed in more than one.
 */
START_TEST(test_triage_groups)
{
	struct hd_triage_key *k[] = {
		triage_key(HD_TRIAGE_CAUSE, "bbbb", "b.py:2", "node-b", true),
		triage_key(HD_TRIAGE_CAUSE, "aaaa", "a.py:1", "node-a", true),
		triage_key(HD_TRIAGE_UNDECIDED, "cccc", NULL, NULL, false),
		triage_key(HD_TRIAGE_CAUSE, "aaaa", "a.py:9", "node-a", true),
		triage_key(HD_TRIAGE_UNANALYZED, NULL, NULL, NULL, false),
		triage_key(HD_TRIAGE_CAUSE, "aaaa", "a.py:1", "node-b", true),
	};
	g_autoptr(hd_triage) t = hd_triage_group(
		(const struct hd_triage_key *const *)k, G_N_ELEMENTS(k));
	const struct hd_triage_group *g;
	const struct hd_triage_host *h;

	ck_assert_uint_eq(t->groups->len, 4);
	ck_assert_uint_eq(t->causes, 3);
	ck_assert_uint_eq(t->faults, 4);
	ck_assert_uint_eq(t->unusable, 1);
	g = &g_array_index(t->groups, struct hd_triage_group, 0);
	ck_assert_str_eq(g->fingerprint, "aaaa");
	ck_assert_uint_eq(g->incidents->len, 3);
	ck_assert_uint_eq(g_array_index(g->incidents, guint, 0), 1);
	ck_assert_uint_eq(g_array_index(g->incidents, guint, 2), 5);
	ck_assert_uint_eq(g->call_sites->len, 2);
	ck_assert_str_eq(g_ptr_array_index(g->call_sites, 0), "a.py:1");
	ck_assert_str_eq(g_ptr_array_index(g->call_sites, 1), "a.py:9");
	ck_assert_uint_eq(g->hosts, 2);
	g = &g_array_index(t->groups, struct hd_triage_group, 1);
	ck_assert_int_eq(g->class, HD_TRIAGE_UNANALYZED);
	ck_assert_ptr_null(g->fingerprint);
	g = &g_array_index(t->groups, struct hd_triage_group, 2);
	ck_assert_int_eq(g->class, HD_TRIAGE_UNDECIDED);
	ck_assert_ptr_null(g->fingerprint);
	g = &g_array_index(t->groups, struct hd_triage_group, 3);
	ck_assert_str_eq(g->fingerprint, "bbbb");
	/* node-a and node-b each blamed in two incidents */
	ck_assert_uint_eq(t->hosts->len, 2);
	h = &g_array_index(t->hosts, struct hd_triage_host, 0);
	ck_assert_str_eq(h->host, "node-a");
	ck_assert_uint_eq(h->incidents, 2);
	h = &g_array_index(t->hosts, struct hd_triage_host, 1);
	ck_assert_str_eq(h->host, "node-b");
	ck_assert_uint_eq(h->incidents, 2);
	for (size_t i = 0; i < G_N_ELEMENTS(k); i++)
		hd_triage_key_free(k[i]);
}
END_TEST

/* The key of an analysis: its top verdict's class, fingerprint, hosts. */
START_TEST(test_triage_key_of_analysis)
{
	g_autoptr(hd_store) s = hd_store_new();
	g_autoptr(hd_analysis) a = hd_analysis_new(s);
	struct hd_triage_key *k = hd_triage_key_new(a);
	struct hd_verdict *v;

	ck_assert_int_eq(k->class, HD_TRIAGE_UNANALYZED);
	ck_assert(!k->usable);
	hd_triage_key_free(k);
	v = hd_verdict_new(HD_V_INSUFFICIENT_DATA, HD_CONF_LOW, "nothing");
	v->fingerprint = g_strdup("0123456789abcdef");
	g_ptr_array_add(a->verdicts, v);
	k = hd_triage_key_new(a);
	ck_assert_int_eq(k->class, HD_TRIAGE_UNDECIDED);
	ck_assert(!k->fault);
	hd_triage_key_free(k);
	v->kind = HD_V_MISSING_RANK;
	hd_verdict_add_culprit(v, 3);
	hd_store_rank(s, 3)->host = hd_intern("node-c");
	k = hd_triage_key_new(a);
	ck_assert_int_eq(k->class, HD_TRIAGE_CAUSE);
	ck_assert_str_eq(k->fingerprint, "0123456789abcdef");
	ck_assert(k->fault);
	ck_assert_uint_eq(k->hosts->len, 1);
	ck_assert_str_eq(g_ptr_array_index(k->hosts, 0), "node-c");
	hd_triage_key_free(k);
}
END_TEST

START_TEST(test_verdict_kind_table)
{
	for (int k = 0; k < HD_V_KIND_COUNT; k++) {
		const struct hd_verdict_kind_info *ki = hd_verdict_kind_info(k);

		ck_assert_ptr_nonnull(ki->name);
		ck_assert_str_eq(hd_verdict_kind_name(k), ki->name);
		ck_assert_ptr_nonnull(ki->rank_state);
		ck_assert_int_lt(ki->next, HD_NEXT_COUNT);
		ck_assert(ki->fault ==
			  (k != HD_V_NO_FAULT && k != HD_V_INSUFFICIENT_DATA));
		if (ki->mismatch)
			ck_assert(ki->replayable);
		for (int j = 0; j < k; j++)
			ck_assert_str_ne(hd_verdict_kind_info(j)->name,
					 ki->name);
		for (int j = 0; j < HD_V_KIND_COUNT; j++)
			if (ki->fault && !hd_verdict_kind_info(j)->fault)
				ck_assert(ki->score >
					  hd_verdict_kind_info(j)->score);
	}
	ck_assert_str_eq(hd_verdict_kind_name(HD_V_KIND_COUNT), "unknown");
}
END_TEST

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("verdicts");
	TCase *slow = tcase_create("regressions");
	TCase *scale = tcase_create("scale");
	TCase *cuts = tcase_create("cuts");

	tcase_add_test(tc, test_healthy);
	tcase_add_test(tc, test_missing_rank);
	tcase_add_test(tc, test_missing_rank_first_in_order);
	tcase_add_test(tc, test_lagging_rank);
	tcase_add_test(tc, test_completed_op_proves_presence);
	tcase_add_test(tc, test_empty_record_not_blamed);
	tcase_add_test(tc, test_no_elimination_among_several);
	tcase_add_test(tc, test_type_mismatch_minority);
	tcase_add_test(tc, test_size_mismatch_tie);
	tcase_add_test(tc, test_size_pairs_compared_exactly);
	tcase_add_test(tc, test_votes_by_block);
	tcase_add_test(tc, test_dtype_and_root_and_redop);
	tcase_add_test(tc, test_rooted_root_side_not_compared);
	tcase_add_test(tc, test_ring_window_not_a_mismatch);
	tcase_add_test(tc, test_p2p_unmatched_and_cycle);
	tcase_add_test(tc, test_blocked_chain);
	tcase_add_test(tc, test_c10d_counters);
	tcase_add_test(tc, test_c10d_lone_timeout_behind);
	tcase_add_test(tc, test_c10d_counters_evidence_capped);
	tcase_add_test(tc, test_c10d_all_timed_out);
	tcase_add_test(tc, test_network_first_fault);
	tcase_add_test(tc, test_ofi_rc5_not_a_flush);
	tcase_add_test(tc, test_crash_after_own_network_error);
	tcase_add_test(tc, test_nccl_cuda_error_weak);
	tcase_add_test(tc, test_crash_not_watchdog_abort);
	tcase_add_test(tc, test_crash_srun_task);
	tcase_add_test(tc, test_init_duplicate_gpu);
	tcase_add_test(tc, test_init_cuda_driver);
	tcase_add_test(tc, test_init_cites_process_warn);
	tcase_add_test(tc, test_crash_after_hang);
	tcase_add_test(tc, test_crash_after_hang_example);
	tcase_add_test(tc, test_kernel_fault_not_setup);
	tcase_add_test(tc, test_driver_lost_mid_run);
	tcase_add_test(tc, test_sources_merge);
	tcase_add_test(tc, test_trace_end_not_blamed);
	tcase_add_test(tc, test_missing_by_elimination);
	tcase_add_test(tc, test_completion_lag);
	tcase_add_test(tc, test_anonymous_tie_names_every_known_rank);
	tcase_add_test(tc, test_empty_store);
	tcase_add_test(tc, test_culprits_sorted_unique);
	tcase_add_test(tc, test_no_fault_needs_no_trouble);
	tcase_add_test(tc, test_unread_input_not_healthy);
	tcase_add_test(tc, test_no_ranks_no_ops_not_no_fault);
	tcase_add_test(tc, test_ops_of_no_rank_not_no_fault);
	tcase_add_test(tc, test_anonymous_processes_compared);
	tcase_add_test(tc, test_check_order_stated);
	tcase_add_test(tc, test_sig_cands);
	tcase_add_test(tc, test_signal_order_stated);
	tcase_add_test(tc, test_verdict_kind_table);
	tcase_add_test(tc, test_triage_groups);
	tcase_add_test(tc, test_counters_matrix);
	tcase_add_test(tc, test_triage_key_of_analysis);
	suite_add_tcase(s, tc);
	/* Hangs show as a timeout; the limit leaves room for valgrind. */
	tcase_set_timeout(slow, 30);
	tcase_add_test(slow, test_p2p_wait_chain_is_fast);

	suite_add_tcase(s, slow);
	/* thousands of loads: a guard against a hang, not a timing */
	tcase_add_test(cuts, test_cut_dumps_never_blamed);
	tcase_add_test(cuts, test_cut_traces_never_healthy);
	tcase_add_test(cuts, test_cut_logs_never_blamed);
	tcase_set_timeout(cuts, 600);
	suite_add_tcase(s, cuts);
	/*
	 * Work that once grew with the square of its size: a second each
	 * now, minutes before; the limit is far from both.
	 */
	tcase_set_timeout(scale, 10);
	tcase_add_test(scale, test_many_culprits_are_fast);
	tcase_add_test(scale, test_many_groups_one_rank_are_fast);
	suite_add_tcase(s, scale);
	return s;
}

HD_TEST_MAIN(engine_suite)
