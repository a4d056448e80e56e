/*
 * The join of FR process groups with NCCL comms (hd-join.c), on stores
 * built by hand: a link only where one comm and one offset fit, none when
 * two comms fit, when a rank's COLL lines disagree with its dump, or when a
 * periodic sequence fits at several offsets; the right offset when the dump
 * holds only the tail of the history; and, end to end, a broadcast root
 * that only the log shows becoming a root_mismatch verdict citing both.
 */
#include "config.h"

#include <string.h>

#include "hd-engine.h"
#include "hd-checks.h"
#include "hd-index.h"
#include "hd-test-engine.h"

#define NR 4

struct fixture {
	struct hd_store *s;
	uint32_t fr_in[NR], log_in[NR];
	uint32_t pg;
};

static void fixture_init(struct fixture *f)
{
	static const int ranks[NR] = { 0, 1, 2, 3 };
	g_autofree char *id = hd_group_id_pg("0", ranks, NR);
	struct hd_group *g;

	f->s = hd_store_new();
	for (int r = 0; r < NR; r++) {
		g_autofree char *fr = g_strdup_printf("nccl_trace_rank_%d", r);
		g_autofree char *log = g_strdup_printf("rank%d.log", r);

		f->fr_in[r] = hd_store_add_input(f->s, fr);
		hd_store_input(f->s, f->fr_in[r])->kind = HD_INPUT_FLIGHT_REC;
		hd_store_input(f->s, f->fr_in[r])->rank = r;
		hd_store_input(f->s, f->fr_in[r])->records = 1;
		f->log_in[r] = hd_store_add_input(f->s, log);
		hd_store_input(f->s, f->log_in[r])->kind = HD_INPUT_NCCL_LOG;
		hd_store_input(f->s, f->log_in[r])->rank = r;
		hd_store_input(f->s, f->log_in[r])->records = 1;
		hd_rank_add_input(hd_store_rank(f->s, r), f->fr_in[r]);
		hd_rank_add_input(hd_store_rank(f->s, r), f->log_in[r]);
	}
	f->pg = hd_store_group(f->s, id);
	g = hd_store_group_at(f->s, f->pg);
	g->name = g_strdup("0");
	g->desc = g_strdup("default_pg");
	for (int i = 0; i < NR; i++)
		hd_group_set_member(g, i, ranks[i]);
}

static uint32_t add_comm(struct fixture *f, uint64_t comm_id)
{
	g_autofree char *id = hd_group_id_comm(comm_id);
	uint32_t c = hd_store_group(f->s, id);
	struct hd_group *g = hd_store_group_at(f->s, c);

	g->has_comm_id = true;
	g->comm_id = comm_id;
	for (int i = 0; i < NR; i++)
		hd_group_set_member(g, i, i);
	return c;
}

/* The i-th op of the job's history: kinds and counts vary, no period. */
static enum hd_op_kind kind_of(int64_t i)
{
	static const enum hd_op_kind k[] = { HD_OP_ALL_REDUCE, HD_OP_ALL_GATHER,
					     HD_OP_BROADCAST };

	return k[i % 3];
}

static int64_t count_of(int64_t i)
{
	return 1024 + 64 * i;
}

/* Moves op i of s to line or record at. */
static void set_at(struct hd_store *s, guint i, uint64_t at)
{
	struct hd_op *op = hd_store_op(s, i);
	struct hd_prov prov = hd_op_prov(s, op);

	prov.at = at;
	hd_op_set_prov(s, op, &prov);
}

static void add_fr(struct fixture *f, int rank, int64_t seq,
		   enum hd_op_kind kind, int64_t count)
{
	struct hd_op_rec op;
	struct hd_opdesc d;
	char shape[64];

	hd_op_rec_init(&op);
	d = hd_opdesc_blank;
	hd_op_set_rank(&op.op, rank);
	op.op.group = f->pg;
	op.op.seq = seq;
	op.op.seq_kind = HD_SEQ_COLLECTIVE;
	op.op.kind = kind;
	d.name = hd_op_kind_name(kind);
	d.count_in = count;
	d.count_out = kind == HD_OP_ALL_GATHER ? count * NR : count;
	g_snprintf(shape, sizeof(shape), "[[%" G_GINT64_FORMAT "]]", count);
	d.shape_in = hd_intern(shape);
	g_snprintf(shape, sizeof(shape), "[[%" G_GINT64_FORMAT "]]",
		   d.count_out);
	d.shape_out = hd_intern(shape);
	d.dtype = HD_DTYPE_FLOAT32;
	d.dtype_name = hd_intern("Float");
	op.op.state = HD_STATE_COMPLETED;
	op.prov.input = f->fr_in[rank];
	op.prov.kind = HD_PROV_RECORD;
	op.prov.at = (uint64_t)seq;
	hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
	hd_store_add_op(f->s, &op);
}

static void add_log(struct fixture *f, uint32_t comm, int rank, int64_t ordinal,
		    enum hd_op_kind kind, int64_t count, int root)
{
	struct hd_op_rec op;
	struct hd_opdesc d;

	hd_op_rec_init(&op);
	d = hd_opdesc_blank;
	hd_op_set_rank(&op.op, rank);
	op.op.group = comm;
	op.op.seq = ordinal;
	op.op.seq_kind = HD_SEQ_ORDINAL;
	op.op.kind = kind;
	d.name = hd_intern(kind == HD_OP_BROADCAST    ? "Broadcast"
			   : kind == HD_OP_ALL_GATHER ? "AllGather"
						      : "AllReduce");
	d.count_in = count;
	d.count_out = kind == HD_OP_ALL_GATHER ? count * NR : count;
	d.dtype = HD_DTYPE_FLOAT32;
	if (kind == HD_OP_ALL_REDUCE)
		d.redop = HD_REDOP_SUM;
	if (kind == HD_OP_BROADCAST)
		d.peer = root;
	op.op_count = ordinal;
	op.op.state = HD_STATE_ENQUEUED;
	op.prov.input = f->log_in[rank];
	op.prov.kind = HD_PROV_LINE;
	op.prov.at = (uint64_t)(ordinal + 10);
	hd_op_set_desc(&op.op, hd_opdesc_intern(&d));
	hd_store_add_op(f->s, &op);
}

/*
 * History ops first..last (0-based) on every rank: FR seqs first+1..last+1,
 * and the log's lines from the comm's creation, lead extra lines (ops the
 * dump does not show as one line each) before op 0.
 */
static void add_history(struct fixture *f, uint32_t comm, int64_t fr_first,
			int64_t last, int lead, bool periodic)
{
	for (int r = 0; r < NR; r++) {
		for (int64_t i = 0; i < lead; i++)
			add_log(f, comm, r, i, HD_OP_ALL_REDUCE, 8, 0);
		for (int64_t i = 0; i <= last; i++) {
			enum hd_op_kind k =
				periodic ? HD_OP_ALL_REDUCE : kind_of(i);
			int64_t n = periodic ? 4096 : count_of(i);

			add_log(f, comm, r, lead + i, k, n, 0);
			if (i >= fr_first)
				add_fr(f, r, i + 1, k, n);
		}
	}
}

struct run {
	struct hd_index *ix;
	struct hd_analysis a;
};

static void run_join(struct fixture *f, struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->a.notes = g_ptr_array_new_with_free_func(g_free);
	r->ix = hd_index_build(f->s);
	hd_join_run(r->ix, &r->a);
}

static void run_clear(struct run *r)
{
	hd_index_free(r->ix);
	g_ptr_array_unref(r->a.notes);
}

static bool notes_have(const struct run *r, const char *text)
{
	for (guint i = 0; i < r->a.notes->len; i++)
		if (strstr(g_ptr_array_index(r->a.notes, i), text))
			return true;
	return false;
}

/* The FR op of rank at seq, as a store index. */
static uint32_t fr_op(const struct fixture *f, int rank, int64_t seq)
{
	for (guint i = 0; i < f->s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(f->s->ops, struct hd_op, i);

		if (hd_op_rank(op) == rank && op->group == f->pg &&
		    op->seq == seq)
			return i;
	}
	ck_abort_msg("no FR op of rank %d at seq %" G_GINT64_FORMAT, rank, seq);
	return 0;
}

START_TEST(test_link_unambiguous)
{
	struct fixture f;
	struct run r;
	uint32_t comm;
	const struct hd_op *log;

	fixture_init(&f);
	comm = add_comm(&f, 0x5c1e2f03a9d4b871ull);
	add_history(&f, comm, 0, 11, 0, false);
	run_join(&f, &r);
	ck_assert_uint_eq(r.ix->links->len, 1);
	ck_assert_uint_eq(g_array_index(r.ix->links, struct hd_join_link, 0).pg,
			  f.pg);
	ck_assert_uint_eq(
		g_array_index(r.ix->links, struct hd_join_link, 0).comm, comm);
	ck_assert_uint_eq(
		g_array_index(r.ix->links, struct hd_join_link, 0).ranks, NR);
	/* FR seq 1 is the comm's first COLL line. */
	log = hd_join_partner(r.ix, fr_op(&f, 2, 1));
	ck_assert_ptr_nonnull(log);
	ck_assert_int_eq(log->seq, 0);
	ck_assert_int_eq(hd_op_rank(log), 2);
	ck_assert_uint_eq(log->input, f.log_in[2]);
	ck_assert_uint_eq(r.a.notes->len, 0);
	run_clear(&r);
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_two_comms_ambiguous)
{
	struct fixture f;
	struct run r;
	uint32_t c1, c2;

	fixture_init(&f);
	c1 = add_comm(&f, 0x1111);
	c2 = add_comm(&f, 0x2222);
	add_history(&f, c1, 0, 11, 0, false);
	/* The same lines again under a second comm of the same ranks. */
	for (int rk = 0; rk < NR; rk++)
		for (int64_t i = 0; i <= 11; i++)
			add_log(&f, c2, rk, i, kind_of(i), count_of(i), 0);
	run_join(&f, &r);
	ck_assert_uint_eq(r.ix->links->len, 0);
	ck_assert_ptr_null(r.ix->partner);
	ck_assert(notes_have(&r, "2 comms of the same ranks fit"));
	run_clear(&r);
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_disagreeing_sequences)
{
	struct fixture f;
	struct run r;
	uint32_t comm;

	fixture_init(&f);
	comm = add_comm(&f, 0x3333);
	for (int rk = 0; rk < NR; rk++)
		for (int64_t i = 0; i <= 11; i++) {
			add_fr(&f, rk, i + 1, kind_of(i), count_of(i));
			/* rank 3's log shows other counts: not this PG's calls */
			add_log(&f, comm, rk, i, kind_of(i),
				count_of(i) * (rk == 3 ? 2 : 1), 0);
		}
	run_join(&f, &r);
	ck_assert_uint_eq(r.ix->links->len, 0);
	ck_assert(notes_have(&r, "rank 3's COLL lines disagree"));
	run_clear(&r);
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_ring_buffer_offset)
{
	struct fixture f;
	struct run r;
	uint32_t comm;
	const struct hd_op *log;

	/*
	 * 40 ops; the dump kept the last 12 (seqs 29-40); the log has 3
	 * extra lines before them (a coalesced group the ring lost), so
	 * seq s is line s + 2.
	 */
	fixture_init(&f);
	comm = add_comm(&f, 0x4444);
	add_history(&f, comm, 28, 39, 3, false);
	run_join(&f, &r);
	ck_assert_uint_eq(r.ix->links->len, 1);
	for (int rk = 0; rk < NR; rk++) {
		log = hd_join_partner(r.ix, fr_op(&f, rk, 29));
		ck_assert_ptr_nonnull(log);
		ck_assert_int_eq(log->seq, 31);
		log = hd_join_partner(r.ix, fr_op(&f, rk, 40));
		ck_assert_ptr_nonnull(log);
		ck_assert_int_eq(log->seq, 42);
	}
	run_clear(&r);
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_periodic_one_offset)
{
	struct fixture f;
	struct run r;
	uint32_t comm;

	/* Identical ops, no extra lines: only offset -1 is in bounds. */
	fixture_init(&f);
	comm = add_comm(&f, 0x5555);
	add_history(&f, comm, 20, 29, 0, true);
	run_join(&f, &r);
	ck_assert_uint_eq(r.ix->links->len, 1);
	ck_assert_int_eq(hd_join_partner(r.ix, fr_op(&f, 1, 25))->seq, 24);
	run_clear(&r);
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_periodic_ambiguous_offset)
{
	struct fixture f;
	struct run r;
	uint32_t comm;

	/* Identical ops after 2 extra lines: offsets -1, 0, 1 all fit. */
	fixture_init(&f);
	comm = add_comm(&f, 0x6666);
	add_history(&f, comm, 20, 29, 2, true);
	run_join(&f, &r);
	ck_assert_uint_eq(r.ix->links->len, 0);
	ck_assert(notes_have(&r, "more than one position"));
	run_clear(&r);
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_members_differ)
{
	struct fixture f;
	struct run r;
	uint32_t comm;

	/* Same set, other order: a comm root would name another PG rank. */
	fixture_init(&f);
	comm = add_comm(&f, 0x7777);
	hd_group_set_member(hd_store_group_at(f.s, comm), 0, 1);
	hd_group_set_member(hd_store_group_at(f.s, comm), 1, 0);
	add_history(&f, comm, 0, 11, 0, false);
	run_join(&f, &r);
	ck_assert_uint_eq(r.ix->links->len, 0);
	run_clear(&r);
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_order_disagrees)
{
	static const int ranks[NR] = { 0, 1, 2, 3 };
	g_autofree char *id = hd_group_id_pg("1", ranks, NR);
	struct fixture f;
	struct run r;
	uint32_t ca, cb, pg_b;

	/*
	 * PG 0 and PG 1 each fit one comm, but every dump records all of
	 * PG 0's ops before PG 1's while every log prints comm B's lines
	 * (PG 1's) before comm A's: not the order the calls were made in.
	 */
	fixture_init(&f);
	pg_b = hd_store_group(f.s, id);
	hd_store_group_at(f.s, pg_b)->name = g_strdup("1");
	for (int i = 0; i < NR; i++)
		hd_group_set_member(hd_store_group_at(f.s, pg_b), i, i);
	ca = add_comm(&f, 0xaaaa);
	cb = add_comm(&f, 0xbbbb);
	for (int rk = 0; rk < NR; rk++) {
		for (int64_t i = 0; i < 6; i++) {
			add_fr(&f, rk, i + 1, kind_of(i), count_of(i));
			add_log(&f, ca, rk, i, kind_of(i), count_of(i), 0);
		}
		for (int64_t i = 0; i < 6; i++) {
			uint32_t before = f.s->ops->len;

			add_fr(&f, rk, i + 1, HD_OP_ALL_REDUCE, 7 + i);
			g_array_index(f.s->ops, struct hd_op, before).group =
				pg_b;
			set_at(f.s, before, 100 + (uint64_t)i);
			add_log(&f, cb, rk, i, HD_OP_ALL_REDUCE, 7 + i, 0);
			/* comm B's lines come first in the file */
			set_at(f.s, before + 1, (uint64_t)i + 1);
		}
	}
	run_join(&f, &r);
	ck_assert_uint_eq(r.ix->links->len, 0);
	ck_assert(notes_have(&r, "order their ops differently"));
	run_clear(&r);
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_root_mismatch_from_log)
{
	struct fixture f;
	uint32_t comm;
	g_autoptr(hd_analysis) a = NULL;
	const struct hd_verdict *v;
	bool fr_cited = false, log_cited = false;

	/* Op 11 is a broadcast; rank 1's log says root 2, the others 0. */
	fixture_init(&f);
	comm = add_comm(&f, 0x8888);
	for (int rk = 0; rk < NR; rk++)
		for (int64_t i = 0; i <= 11; i++) {
			add_fr(&f, rk, i + 1, kind_of(i), count_of(i));
			add_log(&f, comm, rk, i, kind_of(i), count_of(i),
				i == 11 && rk == 1 ? 2 : 0);
		}
	a = hd_engine_run(f.s);
	v = hd_test_verdict(a, HD_V_ROOT_MISMATCH);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v->culprits->len, 1);
	ck_assert_int_eq(g_array_index(v->culprits, int, 0), 1);
	ck_assert_int_eq(v->group, f.pg);
	ck_assert_int_eq(v->seq, 12);
	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		if (e->rank != 1 || !e->source)
			continue;
		if (strcmp(e->source, "nccl_trace_rank_1#record 12") == 0)
			fr_cited = true;
		if (strcmp(e->source, "rank1.log:21") == 0 &&
		    strstr(e->text, "root 2"))
			log_cited = true;
	}
	ck_assert(fr_cited);
	ck_assert(log_cited);
	/* The comm's own verdict was merged into the PG's. */
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *w = g_ptr_array_index(a->verdicts, i);

		ck_assert(w->kind != HD_V_ROOT_MISMATCH ||
			  w->group == (int64_t)f.pg);
	}
	hd_store_free(f.s);
}
END_TEST

START_TEST(test_healthy_joined_no_fault)
{
	struct fixture f;
	uint32_t comm;
	g_autoptr(hd_analysis) a = NULL;

	fixture_init(&f);
	comm = add_comm(&f, 0x9999);
	add_history(&f, comm, 0, 11, 0, false);
	a = hd_engine_run(f.s);
	ck_assert(!hd_analysis_has_fault(a));
	/* the reports' figures say which groups were joined, both ways */
	const struct hd_group_stats *pg =
		&g_array_index(a->group_stats, struct hd_group_stats, f.pg);
	const struct hd_group_stats *cs =
		&g_array_index(a->group_stats, struct hd_group_stats, comm);
	ck_assert_int_eq(pg->joined, comm);
	ck_assert_int_eq(cs->joined, f.pg);
	ck_assert_uint_eq(pg->joined_ops, 12 * NR);
	ck_assert_uint_eq(cs->joined_ops, 12 * NR);
	hd_store_free(f.s);
}
END_TEST

static Suite *join_suite(void)
{
	Suite *s = suite_create("join");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_link_unambiguous);
	tcase_add_test(tc, test_two_comms_ambiguous);
	tcase_add_test(tc, test_disagreeing_sequences);
	tcase_add_test(tc, test_ring_buffer_offset);
	tcase_add_test(tc, test_periodic_one_offset);
	tcase_add_test(tc, test_periodic_ambiguous_offset);
	tcase_add_test(tc, test_members_differ);
	tcase_add_test(tc, test_order_disagrees);
	tcase_add_test(tc, test_root_mismatch_from_log);
	tcase_add_test(tc, test_healthy_joined_no_fault);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(join_suite)
