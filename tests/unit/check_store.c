/*
 * Store tests: merging per-input stores (index remapping, group and rank
 * joins), identities, enum spellings, provenance, sniffing and file-name
 * ranks.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "hd-store.h"
#include "hd-text.h"
#include "hd-test.h"
#include "hd-test-store.h"
#include "hd-const.h"
#include "hd-sort.h"

START_TEST(test_merge_remaps)
{
	struct hd_store *dst = hd_store_new();
	struct hd_store *a = hd_store_new(), *b = hd_store_new();
	static const int ranks[] = { 0, 1 };
	g_autofree char *id = hd_group_id_pg("0", ranks, 2);
	struct hd_op_rec op;
	struct hd_frame fr = { hd_intern("f"), hd_intern("t.py"), 3 };
	const struct hd_op *got;
	size_t n;

	hd_store_add_input(a, "a");
	hd_store_add_input(b, "b");
	hd_store_group(a, "comm:0x1");
	hd_group_set_member(hd_store_group_at(b, hd_store_group(b, id)), 1, 1);
	hd_group_set_member(hd_store_group_at(a, hd_store_group(a, id)), 0, 0);
	hd_store_rank(a, 0)->host = hd_intern("node-a");
	hd_store_rank(b, 0)->pid = 42;
	hd_op_rec_init(&op);
	hd_op_set_rank(&op.op, 1);
	op.op.group = 0; /* b's only group: the pg */
	op.stack = hd_store_add_stack(b, &fr, 1);
	hd_store_add_op(b, &op);
	hd_store_merge(dst, a);
	hd_store_merge(dst, b);
	hd_store_resolve(dst);

	ck_assert_uint_eq(dst->inputs->len, 2);
	ck_assert_uint_eq(dst->groups->len, 2);
	got = &g_array_index(dst->ops, struct hd_op, 0);
	ck_assert_uint_eq(got->input, 1);
	ck_assert_str_eq(hd_store_group_at(dst, got->group)->id, id);
	ck_assert_int_eq(
		hd_group_global_rank(hd_store_group_at(dst, got->group), 0), 0);
	ck_assert_int_eq(
		hd_group_global_rank(hd_store_group_at(dst, got->group), 1), 1);
	ck_assert_str_eq(hd_store_stack(dst, hd_op_stack(dst, got), &n)[0].file,
			 "t.py");
	ck_assert_str_eq(hd_store_find_rank(dst, 0)->host, "node-a");
	ck_assert_int_eq(hd_store_find_rank(dst, 0)->pid, 42);
	ck_assert_int_eq(dst->world_size, 2);
	hd_store_free(dst);
}
END_TEST

/*
 * An op's packed fields read back as they were given, at the edges of
 * what fits in the op itself and past them (the extra records): opCounts
 * of 32 bits and more, negative ones, a line past 2^32, times, stacks,
 * the largest attempt; and a process of unknown rank stays apart from
 * every rank.
 */
struct packed_case {
	int64_t op_count, t_enqueue, t_end;
	uint64_t at;
	bool stack;
};

static const struct packed_case packed_cases[] = {
	{ -1, INT64_MIN, INT64_MIN, 1, false },
	{ 0, INT64_MIN, INT64_MIN, 7, false },
	{ (int64_t)UINT32_MAX - 1, INT64_MIN, INT64_MIN, UINT32_MAX, false },
	{ (int64_t)UINT32_MAX, INT64_MIN, INT64_MIN, 9, false },
	{ INT64_MAX, INT64_MIN, INT64_MIN, (UINT64_C(1) << 32) + 5, false },
	{ -7, INT64_MIN, INT64_MIN, 3, false },
	{ -1, 1700000000000000000, 1700000000000500000, 11, true },
	{ INT64_MAX - 3, 1700000000000000000, INT64_MIN, UINT64_MAX, true },
	{ 42, INT64_MIN, 1700000000000000001, 2, false },
};

static void check_packed(const struct hd_store *s, const struct hd_op *op,
			 const struct packed_case *c, int32_t stack)
{
	struct hd_prov p = hd_op_prov(s, op);

	ck_assert_int_eq(hd_op_op_count(s, op), c->op_count);
	ck_assert_int_eq(hd_op_t_enqueue(s, op), c->t_enqueue);
	ck_assert_int_eq(hd_op_t_start(s, op), INT64_MIN);
	ck_assert_int_eq(hd_op_t_end(s, op), c->t_end);
	ck_assert_uint_eq(p.at, c->at);
	ck_assert_int_eq(p.kind, HD_PROV_LINE);
	ck_assert_uint_eq(p.attempt, HD_MAX_ATTEMPT);
	ck_assert_int_eq(hd_op_stack(s, op), c->stack ? stack : -1);
}

START_TEST(test_op_packed)
{
	g_autoptr(hd_store) dst = hd_store_new();
	struct hd_store *a = hd_store_new();
	struct hd_store *b = hd_store_new();
	struct hd_frame fr = { hd_intern("f"), hd_intern("t.py"), 3 };
	size_t n = G_N_ELEMENTS(packed_cases);
	int32_t stack_b;

	ck_assert_uint_eq(sizeof(struct hd_op), 32);
	hd_store_add_input(dst, "first");
	(void)hd_store_add_stack(dst, &fr, 1);
	hd_store_add_input(a, "a");
	hd_store_add_input(b, "b");
	(void)hd_store_add_stack(a, &fr, 1);
	stack_b = hd_store_add_stack(b, &fr, 1);
	for (size_t i = 0; i < 2 * n; i++) {
		struct hd_store *s = i < n ? a : b;
		const struct packed_case *c = &packed_cases[i % n];
		struct hd_op_rec rec;

		hd_op_rec_init(&rec);
		hd_op_set_rank(&rec.op, (int32_t)i);
		rec.op.seq = (int64_t)i;
		rec.op_count = c->op_count;
		rec.t_enqueue_ns = c->t_enqueue;
		rec.t_end_ns = c->t_end;
		rec.stack = c->stack ? (s == a ? 0 : stack_b) : -1;
		rec.prov.input = 0;
		rec.prov.kind = HD_PROV_LINE;
		rec.prov.attempt = HD_MAX_ATTEMPT;
		rec.prov.at = c->at;
		hd_store_add_op(s, &rec);
		check_packed(s, hd_store_op(s, s->ops->len - 1), c,
			     (int32_t)rec.stack);
	}
	/* only what does not fit takes an extra record */
	ck_assert(!hd_store_op(a, 0)->has_extra);
	ck_assert(!hd_store_op(a, 1)->has_extra);
	ck_assert(!hd_store_op(a, 2)->has_extra);
	ck_assert(hd_store_op(a, 3)->has_extra);
	/* an opCount set past 32 bits after another op took a record */
	hd_op_set_op_count(a, hd_store_op(a, 6), INT64_C(1) << 40);
	ck_assert_int_eq(hd_op_op_count(a, hd_store_op(a, 6)), INT64_C(1)
								       << 40);
	ck_assert_int_eq(hd_op_t_end(a, hd_store_op(a, 6)),
			 1700000000000500000);
	ck_assert_int_eq(hd_op_t_enqueue(a, hd_store_op(a, 7)),
			 1700000000000000000);
	hd_op_set_op_count(a, hd_store_op(a, 6), -1);
	/* merged after a store of its own records: all remapped */
	hd_store_merge(dst, a);
	hd_store_merge(dst, b);
	ck_assert_uint_eq(dst->ops->len, 2 * n);
	for (size_t i = 0; i < 2 * n; i++) {
		const struct hd_op *op = hd_store_op(dst, (guint)i);
		size_t nf;

		ck_assert_int_eq(hd_op_rank(op), (int)i);
		ck_assert_uint_eq(op->input, i < n ? 1 : 2);
		check_packed(dst, op, &packed_cases[i % n], i < n ? 1 : 2);
		if (packed_cases[i % n].stack)
			ck_assert_str_eq(hd_store_stack(dst,
							hd_op_stack(dst, op),
							&nf)[0]
						 .file,
					 "t.py");
	}
}
END_TEST

/*
 * The extra record's coder (struct hd_op_xrec): what the setters are
 * given reads back through the accessors, in one 20-byte record when it
 * fits narrow and in two when it does not, whatever the order of the
 * setters.
 */
#define T0     INT64_C(1700000000000000000)
#define TU     INT64_MIN
#define D_LAST ((int64_t)UINT32_MAX - 3) /* the last narrow delta */

struct xrec_case {
	int64_t enqueue, start, end;
	int32_t stack;
	uint32_t at_high;
	guint records; /* 0: none, 1: narrow, 2: wide */
};

static const struct xrec_case xrec_cases[] = {
	{ TU, TU, TU, -1, 0, 0 }, /* all unknown */
	{ TU, TU, TU, 0, 0, 1 }, /* a stack without times */
	{ T0, TU, TU, -1, 0, 1 }, /* enqueue only */
	{ T0, TU, T0 + 500000, 0, 0, 1 }, /* enqueue and end: FR */
	{ T0, T0 + 10, T0 + 900000000, 0, 0, 1 }, /* all three */
	{ T0, T0, T0, -1, 0, 1 }, /* deltas of 0 */
	{ TU, T0, TU, -1, 0, 1 }, /* start only */
	{ TU, TU, T0, 0, 0, 1 }, /* end only */
	{ TU, T0, T0 + 7, -1, 0, 1 }, /* start and end, no enqueue */
	{ T0, TU, T0 + D_LAST, 0, 0, 1 }, /* the last narrow delta */
	{ T0, T0 + D_LAST, TU, 0, 0, 1 },
	{ TU, T0, T0 + D_LAST, -1, 0, 1 },
	{ T0, TU, T0 + D_LAST + 1, 0, 0, 2 }, /* one past it */
	{ T0, T0 + D_LAST + 1, T0 + D_LAST + 1, 0, 0, 2 },
	{ TU, T0, T0 + D_LAST + 1, -1, 0, 2 },
	{ T0, TU, T0 - 1, 0, 0, 2 }, /* end before enqueue */
	{ T0, T0 - 1, T0, -1, 0, 2 }, /* start before enqueue */
	{ TU, T0, T0 - 1, 0, 0, 2 }, /* end before start */
	{ -5, -3, -1, 0, 0, 1 }, /* negative, in order */
	{ INT64_MIN + 1, TU, INT64_MAX, 0, 0, 2 }, /* the extremes */
	{ INT64_MAX, INT64_MAX, INT64_MAX, 0, 0, 1 },
	{ INT64_MIN + 1, INT64_MIN + 1, INT64_MIN + 1, 0, 0, 1 },
	{ TU, INT64_MAX, INT64_MAX, 0, 0, 1 },
	{ TU, TU, INT64_MIN + 1, 0, 0, 1 },
	{ INT64_MAX, INT64_MIN + 1, TU, 0, 0, 2 },
	{ TU, TU, TU, -1, 1, 2 }, /* a provenance past 32 bits */
	{ T0, TU, T0 + 500000, 0, UINT32_MAX, 2 },
	{ T0, T0 - 1, INT64_MIN + 1, 0, 7, 2 },
};

static void check_xrec(const struct hd_store *s, const struct hd_op *op,
		       const struct xrec_case *c, const char *what)
{
	struct hd_op_extra x = hd_op_extra(s, op);
	struct hd_prov p = hd_op_prov(s, op);

	ck_assert_msg(x.t_enqueue_ns == c->enqueue &&
			      x.t_start_ns == c->start &&
			      x.t_end_ns == c->end && x.stack == c->stack &&
			      x.at_high == c->at_high,
		      "%s: %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
		      " %" G_GINT64_FORMAT " stack %d at_high %u",
		      what, x.t_enqueue_ns, x.t_start_ns, x.t_end_ns, x.stack,
		      x.at_high);
	ck_assert_int_eq(hd_op_t_enqueue(s, op), c->enqueue);
	ck_assert_int_eq(hd_op_t_start(s, op), c->start);
	ck_assert_int_eq(hd_op_t_end(s, op), c->end);
	ck_assert_int_eq(hd_op_stack(s, op), c->stack);
	ck_assert_uint_eq(p.at, ((uint64_t)c->at_high << 32) | 12345u);
	ck_assert_int_eq(hd_op_has_extra(op), c->records > 0);
}

static void set_prov_at(struct hd_store *s, struct hd_op *op, uint32_t high)
{
	struct hd_prov p = { .input = 0,
			     .kind = HD_PROV_LINE,
			     .at = ((uint64_t)high << 32) | 12345u };

	hd_op_set_prov(s, op, &p);
}

START_TEST(test_xrec_round_trip)
{
	const struct xrec_case *c = &xrec_cases[_i];

	for (int order = 0; order < 3; order++) {
		g_autoptr(hd_store) s = hd_store_new();
		struct hd_frame fr = { hd_intern("f"), hd_intern("t.py"), 3 };
		struct hd_op *op;

		hd_store_add_input(s, "fr");
		(void)hd_store_add_stack(s, &fr, 1);
		op = hd_store_new_op(s);
		if (order == 0) {
			hd_op_set_times(s, op, c->enqueue, c->start, c->end);
			hd_op_set_stack(s, op, c->stack);
			set_prov_at(s, op, c->at_high);
		} else if (order == 1) {
			set_prov_at(s, op, c->at_high);
			hd_op_set_stack(s, op, c->stack);
			hd_op_set_times(s, op, c->enqueue, c->start, c->end);
		} else {
			struct hd_op_rec rec;

			hd_op_rec_init(&rec);
			rec.t_enqueue_ns = c->enqueue;
			rec.t_start_ns = c->start;
			rec.t_end_ns = c->end;
			rec.stack = c->stack;
			rec.prov.kind = HD_PROV_LINE;
			rec.prov.at = ((uint64_t)c->at_high << 32) | 12345u;
			s->ops->len = 0;
			hd_store_add_op(s, &rec);
			op = hd_store_op(s, 0);
		}
		check_xrec(s, op, c,
			   order == 0	? "times first"
			   : order == 1 ? "times last"
					: "hd_store_add_op");
		ck_assert_uint_eq(s->op_extra ? s->op_extra->len : 0,
				  c->records);
		ck_assert_int_eq(hd_op_op_count(s, op), -1);
	}
}
END_TEST

/*
 * Times set again: a narrow op that grows wide moves when another op's
 * records follow it, leaving the other as it was; a wide one stays wide
 * and reads back narrow values.
 */
START_TEST(test_xrec_grow)
{
	g_autoptr(hd_store) s = hd_store_new();
	const struct xrec_case fr = { T0, TU, T0 + 500000, 0, 0, 1 };
	const struct xrec_case wide = { T0, TU, T0 - 1, 0, 0, 2 };
	struct hd_op *a, *b;

	hd_store_add_input(s, "fr");
	a = hd_store_new_op(s);
	b = hd_store_new_op(s);
	a = hd_store_op(s, 0);
	set_prov_at(s, a, 0);
	set_prov_at(s, b, 0);
	hd_op_set_times(s, a, fr.enqueue, fr.start, fr.end);
	hd_op_set_stack(s, a, 0);
	hd_op_set_times(s, b, fr.enqueue, fr.start, fr.end);
	hd_op_set_stack(s, b, 0);
	ck_assert_uint_eq(s->op_extra->len, 2);
	hd_op_set_times(s, a, wide.enqueue, wide.start, wide.end);
	check_xrec(s, a, &wide, "moved wide");
	check_xrec(s, b, &fr, "left");
	ck_assert_uint_eq(a->slot, 2);
	ck_assert_uint_eq(s->op_extra->len, 4);
	/* a's pair follows b now: b moves too */
	hd_op_set_times(s, b, wide.enqueue, wide.start, wide.end);
	ck_assert_uint_eq(b->slot, 4);
	ck_assert_uint_eq(s->op_extra->len, 6);
	check_xrec(s, b, &wide, "moved after a");
	check_xrec(s, a, &wide, "not moved");
	hd_op_set_times(s, a, fr.enqueue, fr.start, fr.end);
	check_xrec(s, a, &fr, "narrow again");
	ck_assert_uint_eq(s->op_extra->len, 6);
	/* at the array's end: grows in place */
	b = hd_store_new_op(s);
	a = hd_store_op(s, 0);
	set_prov_at(s, b, 0);
	hd_op_set_times(s, b, fr.enqueue, fr.start, fr.end);
	hd_op_set_op_count(s, b, INT64_C(1) << 35);
	hd_op_set_times(s, b, wide.enqueue, wide.start, wide.end);
	ck_assert_uint_eq(b->slot, 6);
	ck_assert_uint_eq(s->op_extra->len, 9);
	check_xrec(s, b, &(struct xrec_case){ T0, TU, T0 - 1, -1, 0, 2 },
		   "grown in place");
	ck_assert_int_eq(hd_op_op_count(s, b), INT64_C(1) << 35);
	check_xrec(s, a, &fr, "still narrow");
}
END_TEST

/*
 * An opCount past 32 bits in the record after the op's narrow one or
 * its wide pair, whichever setter comes first, with another op's
 * records between them (the op's records move) or not.
 */
START_TEST(test_xrec_op_count)
{
	static const struct xrec_case times[] = {
		{ T0, TU, T0 + 500000, 0, 0, 1 },
		{ T0, TU, T0 - 1, 0, 0, 2 },
		{ TU, TU, TU, -1, 5, 2 },
	};
	static const int64_t counts[] = { INT64_C(1) << 40, INT64_MAX,
					  (int64_t)UINT32_MAX, -7 };
	const struct xrec_case other = { TU, T0, T0 + 9, 0, 0, 1 };

	for (int k = 0; k < (int)(G_N_ELEMENTS(times) * 4 * 2); k++) {
		const struct xrec_case *c = &times[k / 8];
		int order = k / 2 % 4;
		bool between = k % 2;
		int64_t oc = counts[k % G_N_ELEMENTS(counts)];
		g_autoptr(hd_store) s = hd_store_new();
		struct hd_op *op, *o;

		hd_store_add_input(s, "fr");
		(void)hd_store_new_op(s);
		(void)hd_store_new_op(s);
		op = hd_store_op(s, 0);
		o = hd_store_op(s, 1);
		set_prov_at(s, o, 0);
		/* 0: times, opCount; 1: opCount, times; 2: a small opCount,
		   times, the wide one; 3: narrow times, opCount, the times */
		if (order == 0 || order == 3) {
			if (order == 3)
				hd_op_set_times(s, op, T0, T0 + 1, T0 + 2);
			else
				hd_op_set_times(s, op, c->enqueue, c->start,
						c->end);
			hd_op_set_stack(s, op, c->stack);
			set_prov_at(s, op, c->at_high);
		} else if (order == 2) {
			hd_op_set_op_count(s, op, 7);
		} else {
			hd_op_set_op_count(s, op, oc);
		}
		if (between) {
			hd_op_set_times(s, o, other.enqueue, other.start,
					other.end);
			hd_op_set_stack(s, o, 0);
			hd_op_set_op_count(s, o, INT64_C(1) << 33);
		}
		if (order == 0 || order == 3) {
			hd_op_set_op_count(s, op, oc);
		} else {
			hd_op_set_times(s, op, c->enqueue, c->start, c->end);
			hd_op_set_stack(s, op, c->stack);
			set_prov_at(s, op, c->at_high);
		}
		if (order == 2)
			hd_op_set_op_count(s, op, oc);
		if (order == 3) {
			hd_op_set_times(s, op, c->enqueue, c->start, c->end);
			set_prov_at(s, op, c->at_high);
		}
		check_xrec(s, op, c, "with an opCount");
		ck_assert_msg(hd_op_op_count(s, op) == oc,
			      "case %d: opCount %" G_GINT64_FORMAT, k,
			      hd_op_op_count(s, op));
		ck_assert(op->count_wide);
		if (between) {
			check_xrec(s, o, &other, "the other");
			ck_assert_int_eq(hd_op_op_count(s, o), INT64_C(1)
								       << 33);
		} else {
			ck_assert(!o->has_extra);
			/* the op's records, all of them and no more */
			ck_assert_uint_eq(s->op_extra->len, c->records + 1);
		}
		/* and back to none */
		hd_op_set_op_count(s, op, -1);
		ck_assert_int_eq(hd_op_op_count(s, op), -1);
		check_xrec(s, op, c, "opCount gone");
	}
}
END_TEST

/*
 * Merged into a store of records and stacks of its own: each op's
 * stack remapped, narrow or wide, and a wide pair's second record and an
 * opCount's left alone.
 */
START_TEST(test_xrec_merge)
{
	g_autoptr(hd_store) dst = hd_store_new();
	struct hd_store *a = hd_store_new();
	struct hd_frame fd = { hd_intern("d"), hd_intern("d.py"), 1 };
	struct hd_frame fx = { hd_intern("x"), hd_intern("x.py"), 2 };
	struct hd_frame fy = { hd_intern("y"), hd_intern("y.py"), 3 };
	static const struct xrec_case cases[] = {
		{ T0, TU, T0 + 500000, 1, 0, 1 }, { T0, TU, T0 - 1, 0, 0, 2 },
		{ TU, T0, 1, 1, 0, 2 },		  { T0, TU, T0 + 3, -1, 0, 1 },
		{ TU, TU, TU, 1, 9, 2 },	  { 1, 2, 3, 0, 0, 1 },
	};
	const char *files[] = { "x.py", "y.py" };
	struct hd_op *op;
	size_t nf;

	hd_store_add_input(dst, "d");
	(void)hd_store_add_stack(dst, &fd, 1);
	op = hd_store_new_op(dst);
	hd_op_set_times(dst, op, T0, TU, T0 - 5);
	hd_op_set_stack(dst, op, 0);
	hd_store_add_input(a, "a");
	(void)hd_store_add_stack(a, &fx, 1);
	(void)hd_store_add_stack(a, &fy, 1);
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const struct xrec_case *c = &cases[i];

		op = hd_store_new_op(a);
		hd_op_set_times(a, op, c->enqueue, c->start, c->end);
		hd_op_set_stack(a, op, c->stack);
		set_prov_at(a, op, c->at_high);
		/* stack values of a second record: 0 and 1, remappable */
		if (i % 2)
			hd_op_set_op_count(a, op, INT64_C(1) << 32);
	}
	hd_store_merge(dst, a);
	ck_assert_uint_eq(dst->ops->len, G_N_ELEMENTS(cases) + 1);
	op = hd_store_op(dst, 0);
	ck_assert_int_eq(hd_op_t_end(dst, op), T0 - 5);
	ck_assert_str_eq(hd_store_stack(dst, hd_op_stack(dst, op), &nf)[0].file,
			 "d.py");
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const struct xrec_case *c = &cases[i];
		struct hd_op_extra x;

		op = hd_store_op(dst, (guint)i + 1);
		x = hd_op_extra(dst, op);
		ck_assert_int_eq(x.t_enqueue_ns, c->enqueue);
		ck_assert_int_eq(x.t_start_ns, c->start);
		ck_assert_int_eq(x.t_end_ns, c->end);
		ck_assert_uint_eq(x.at_high, c->at_high);
		ck_assert_int_eq(hd_op_op_count(dst, op),
				 i % 2 ? INT64_C(1) << 32 : -1);
		if (c->stack < 0) {
			ck_assert_int_eq(x.stack, -1);
			continue;
		}
		ck_assert_str_eq(hd_store_stack(dst, x.stack, &nf)[0].file,
				 files[c->stack]);
	}
}
END_TEST

/*
 * FR ops (enqueued, ended within a second, a stack, no opCount): 20
 * bytes an op beside the op itself.
 */
START_TEST(test_xrec_bytes)
{
	g_autoptr(hd_store) s = hd_store_new();
	struct hd_frame fr = { hd_intern("f"), hd_intern("t.py"), 3 };
	const guint n = 1000;

	hd_store_add_input(s, "fr");
	(void)hd_store_add_stack(s, &fr, 1);
	for (guint i = 0; i < n; i++) {
		struct hd_op_rec rec;
		int64_t t = T0 + (int64_t)i * 1000003;

		hd_op_rec_init(&rec);
		rec.t_enqueue_ns = t;
		rec.t_end_ns = t + (int64_t)(i * 999983) % 1000000000;
		rec.stack = 0;
		rec.prov.kind = HD_PROV_LINE;
		rec.prov.at = i;
		hd_store_add_op(s, &rec);
	}
	ck_assert_uint_eq(sizeof(struct hd_op_xrec), 20);
	ck_assert_uint_eq(g_array_get_element_size(s->op_extra), 20);
	ck_assert_uint_eq(s->op_extra->len, n);
	ck_assert_uint_ge(hd_store_kept_bytes(s), n * (32 + 20));
	for (guint i = 0; i < n; i++) {
		const struct hd_op *op = hd_store_op(s, i);
		int64_t t = T0 + (int64_t)i * 1000003;

		ck_assert_int_eq(hd_op_t_end(s, op),
				 t + (int64_t)(i * 999983) % 1000000000);
		ck_assert_int_eq(hd_op_stack(s, op), 0);
	}
}
END_TEST

#undef T0
#undef TU
#undef D_LAST

/*
 * A process of unknown rank is no rank: not -1's, not any other's, and
 * bounded like a rank.
 */
START_TEST(test_op_anon)
{
	g_autoptr(hd_store) s = hd_store_new();
	struct hd_op_rec rec;
	struct hd_op *op;

	hd_store_add_input(s, "coll.log");
	hd_op_rec_init(&rec);
	ck_assert_int_eq(hd_op_rank(&rec.op), -1);
	ck_assert(!hd_op_is_anon(&rec.op));
	ck_assert_int_eq(hd_op_anon(&rec.op), -1);
	hd_op_set_anon(&rec.op, 0);
	ck_assert_int_eq(hd_op_rank(&rec.op), -1);
	ck_assert(hd_op_is_anon(&rec.op));
	ck_assert_int_eq(hd_op_anon(&rec.op), 0);
	hd_store_add_op(s, &rec);
	hd_op_set_anon(&rec.op, HD_MAX_RANKS);
	hd_store_add_op(s, &rec);
	hd_op_set_rank(&rec.op, 3);
	ck_assert(!hd_op_is_anon(&rec.op));
	ck_assert_int_eq(hd_op_rank(&rec.op), 3);
	hd_store_add_op(s, &rec);
	hd_store_bound(s);
	/* the index past HD_MAX_RANKS is dropped, with a warning */
	ck_assert_uint_eq(s->ops->len, 2);
	op = hd_store_op(s, 0);
	ck_assert_int_eq(hd_op_anon(op), 0);
	ck_assert_int_eq(hd_op_rank(hd_store_op(s, 1)), 3);
	ck_assert_uint_eq(hd_store_input(s, 0)->nwarnings, 1);
}
END_TEST

/*
 * The op's narrow fields (40 bits of seq, 24 of rank) never hold a value
 * cut to their width: what input claims past the bounds, however far,
 * is kept out of range, and the bounds pass drops it with one warning
 * a kind; the edges themselves read back exactly.
 */
START_TEST(test_op_narrow_fields)
{
	static const int64_t seqs[] = { -1,
					0,
					HD_MAX_SEQ,
					HD_MAX_SEQ + 1,
					INT64_C(1) << 39,
					INT64_C(1) << 40,
					INT64_MAX,
					-2,
					INT64_MIN };
	static const int32_t ranks[] = {
		-1,	   0,  HD_MAX_RANKS - 1, HD_MAX_RANKS, 1 << 23, 1 << 24,
		INT32_MAX, -2, INT32_MIN
	};
	g_autoptr(hd_store) s = hd_store_new();
	struct hd_op_rec rec;

	hd_store_add_input(s, "dump.pkl");
	for (size_t i = 0; i < G_N_ELEMENTS(seqs); i++) {
		hd_op_rec_init(&rec);
		hd_op_set_rank(&rec.op, 0);
		hd_op_set_seq(&rec.op, seqs[i]);
		if (seqs[i] >= -1 && seqs[i] <= HD_MAX_SEQ)
			ck_assert_int_eq(rec.op.seq, seqs[i]);
		else
			ck_assert(rec.op.seq < -1 || rec.op.seq > HD_MAX_SEQ);
		hd_store_add_op(s, &rec);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(ranks); i++) {
		hd_op_rec_init(&rec);
		hd_op_set_rank(&rec.op, ranks[i]);
		hd_op_set_seq(&rec.op, 5);
		if (ranks[i] >= -1 && ranks[i] < HD_MAX_RANKS)
			ck_assert_int_eq(hd_op_rank(&rec.op), ranks[i]);
		else
			ck_assert(hd_op_rank(&rec.op) < -1 ||
				  hd_op_rank(&rec.op) >= HD_MAX_RANKS);
		hd_store_add_op(s, &rec);
	}
	hd_op_rec_init(&rec);
	hd_op_set_anon(&rec.op, INT32_MAX);
	hd_store_add_op(s, &rec);
	hd_store_bound(s);
	/* kept: seqs -1, 0, HD_MAX_SEQ; ranks -1, 0, HD_MAX_RANKS - 1 */
	ck_assert_uint_eq(s->ops->len, 6);
	ck_assert_int_eq(hd_store_op(s, 2)->seq, HD_MAX_SEQ);
	ck_assert_int_eq(hd_op_rank(hd_store_op(s, 5)), HD_MAX_RANKS - 1);
	/* one warning an input, at the first op dropped */
	ck_assert_uint_eq(hd_store_input(s, 0)->nwarnings, 1);
}
END_TEST

/*
 * A descriptor's id names it for as long as the tables live, past the
 * first slabs, and equal descriptors share one; the blank is id 0.
 */
START_TEST(test_desc_ids)
{
	g_autoptr(hd_store) s = hd_store_new();
	const guint n = 3 * (1u << HD_DESC_SLAB_BITS) + 7;
	struct hd_opdesc d = hd_opdesc_blank;
	struct hd_op op;

	hd_op_init(&op);
	ck_assert_uint_eq(op.desc, 0);
	ck_assert_int_eq(hd_op_desc(&op)->count_in, -1);
	ck_assert_ptr_eq(hd_opdesc_intern(&d), hd_op_desc(&op));
	for (guint i = 0; i < n; i++) {
		d.count_in = i;
		hd_op_set_desc(&op, hd_opdesc_intern(&d));
		ck_assert_int_eq(hd_op_desc(&op)->count_in, i);
	}
	for (guint i = 0; i < n; i += 4099) {
		const struct hd_opdesc *p;

		d.count_in = i;
		p = hd_opdesc_intern(&d);
		hd_op_set_desc(&op, p);
		ck_assert_ptr_eq(hd_op_desc(&op), p);
		ck_assert_int_eq(p->count_in, i);
	}
	d.count_in = -1;
	ck_assert_uint_eq(hd_opdesc_intern(&d)->id, 0);
	(void)s;
}
END_TEST

START_TEST(test_ids_and_names)
{
	static const int r[] = { 0, 2, 4 };
	g_autofree char *pg = hd_group_id_pg("mesh_tp", r, 3);
	g_autofree char *comm = hd_group_id_comm(0x5c1e2f03a9d4b871ull);

	ck_assert_str_eq(pg, "pg:mesh_tp:[0,2,4]");
	{
		/* runs fold, anything else stays as it was */
		static const struct {
			int r[12];
			size_t n;
			const char *id;
		} cases[] = {
			{ { 0, 1, 2, 3 }, 4, "pg:x:[0-3]" },
			{ { 0, 1 }, 2, "pg:x:[0,1]" },
			{ { 4, 5, 6, 9, 0, 8, 16, 24 },
			  8,
			  "pg:x:[4-6,9,0,8,...,24]" },
			{ { 3, 2, 1, 0 }, 4, "pg:x:[3,2,1,0]" },
			{ { -1, 0, 1, 2 }, 4, "pg:x:[-1,0-2]" },
			{ { 5, 5, 5 }, 3, "pg:x:[5,5,5]" },
			{ { 0, 1, 2, 2, 3, 4 }, 6, "pg:x:[0-2,2-4]" },
			{ { 0 }, 0, "pg:x:[]" },
		};
		int big[16384];

		for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
			g_autofree char *id =
				hd_group_id_pg("x", cases[i].r, cases[i].n);

			ck_assert_str_eq(id, cases[i].id);
		}
		for (int i = 0; i < 16384; i++)
			big[i] = i;
		g_autofree char *world = hd_group_id_pg("0", big, 16384);
		ck_assert_str_eq(world, "pg:0:[0-16383]");
		big[100] = 99;
		g_autofree char *dup = hd_group_id_pg("0", big, 16384);
		ck_assert_str_eq(dup, "pg:0:[0-99,99,101-16383]");
	}
	ck_assert_str_eq(comm, "comm:0x5c1e2f03a9d4b871");
	ck_assert_int_eq(hd_op_kind_parse("AllReduce"), HD_OP_ALL_REDUCE);
	ck_assert_int_eq(hd_op_kind_parse("ALLREDUCE"), HD_OP_ALL_REDUCE);
	ck_assert_int_eq(hd_op_kind_parse("_allgather_base"), HD_OP_ALL_GATHER);
	ck_assert_int_eq(hd_op_kind_parse("_reduce_scatter_base"),
			 HD_OP_REDUCE_SCATTER);
	ck_assert_int_eq(hd_op_kind_parse("all_reduce_barrier"), HD_OP_BARRIER);
	ck_assert_int_eq(hd_op_kind_parse("coalesced"), HD_OP_COALESCED);
	ck_assert_int_eq(hd_op_kind_parse("RECVANYSOURCE"), HD_OP_RECV);
	ck_assert_int_eq(hd_op_kind_parse("frobnicate"), HD_OP_UNKNOWN);
	ck_assert_int_eq(hd_op_kind_parse(NULL), HD_OP_UNKNOWN);
	ck_assert_int_eq(hd_dtype_parse("Float"), HD_DTYPE_FLOAT32);
	ck_assert_int_eq(hd_dtype_parse("BFloat16"), HD_DTYPE_BFLOAT16);
	ck_assert_int_eq(hd_dtype_parse("Half"), HD_DTYPE_FLOAT16);
	ck_assert_int_eq(hd_dtype_parse("Float8_e4m3fn"), HD_DTYPE_FP8_E4M3);
	ck_assert_int_eq(hd_dtype_parse("ComplexFloat"), HD_DTYPE_OTHER);
	ck_assert_int_eq(hd_dtype_parse(""), HD_DTYPE_UNKNOWN);
	ck_assert_str_eq(hd_op_kind_name(HD_OP_REDUCE_SCATTER),
			 "reduce_scatter");
	ck_assert_str_eq(hd_op_kind_name((enum hd_op_kind)200), "unknown");
}
END_TEST

START_TEST(test_groups_members_and_bounds)
{
	struct hd_store *s = hd_store_new();
	struct hd_group *g = hd_store_group_at(s, hd_store_group(s, "x"));

	hd_group_set_member(g, 3, 7);
	ck_assert_int_eq(g->nranks, 4);
	ck_assert_int_eq(hd_group_global_rank(g, 3), 7);
	ck_assert_int_eq(hd_group_global_rank(g, 1), -1);
	ck_assert_int_eq(hd_group_rank_of(g, 7), 3);
	/* A hostile group rank is ignored, not allocated. */
	hd_group_set_member(g, 2000000000, 1);
	hd_group_set_member(g, -5, 1);
	ck_assert_int_eq(g->nranks, 4);
	ck_assert_int_eq(hd_store_find_group(s, "x"), 0);
	ck_assert_int_eq(hd_store_find_group(s, "y"), -1);
	hd_store_free(s);
}
END_TEST

/* One naming for sentences and one for table cells, from one function. */
START_TEST(test_group_label)
{
	g_autoptr(hd_store) s = hd_store_new();
	struct hd_group *pg = hd_store_group_at(s, hd_store_group(s, "pg:0"));
	struct hd_group *comm =
		hd_store_group_at(s, hd_store_group(s, "comm:0x5c1e"));
	static const struct {
		int64_t group;
		enum hd_group_label_form form;
		const char *want;
	} cases[] = {
		{ 0, HD_GROUP_LABEL_LONG, "PG 0 (default_pg)" },
		{ 0, HD_GROUP_LABEL_SHORT, "0" },
		{ 1, HD_GROUP_LABEL_LONG, "comm 0x5c1e" },
		{ 1, HD_GROUP_LABEL_SHORT, "comm:0x5c1e" },
		{ 2, HD_GROUP_LABEL_LONG, "x" },
		{ 2, HD_GROUP_LABEL_SHORT, "x" },
		{ -1, HD_GROUP_LABEL_LONG, "?" },
		{ -1, HD_GROUP_LABEL_SHORT, "-" },
		{ 3, HD_GROUP_LABEL_SHORT, "-" },
	};

	pg->name = g_strdup("0");
	pg->desc = g_strdup("default_pg");
	comm->comm_id = 0x5c1e;
	comm->has_comm_id = true;
	hd_store_group(s, "x");
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *got =
			hd_group_label(s, cases[i].group, cases[i].form);

		ck_assert_str_eq(got, cases[i].want);
	}
	/* An undefined description is not worth printing. */
	g_free(pg->desc);
	pg->desc = g_strdup("undefined");
	{
		g_autofree char *got =
			hd_group_label(s, 0, HD_GROUP_LABEL_LONG);

		ck_assert_str_eq(got, "PG 0");
	}
}
END_TEST

START_TEST(test_warnings_capped)
{
	struct hd_store *s = hd_store_new();
	struct hd_input *in = hd_store_input(s, hd_store_add_input(s, "f"));

	for (int i = 1; i <= 100; i++)
		hd_input_warn(in, i, "bad %d", i);
	ck_assert_uint_eq(in->nwarnings, 100);
	ck_assert_uint_eq(in->warnings->len, HD_INPUT_MAX_WARNINGS);
	ck_assert_str_eq(g_ptr_array_index(in->warnings, 0), "line 1: bad 1");
	hd_store_free(s);
}
END_TEST

START_TEST(test_prov_format)
{
	struct hd_store *s = hd_store_new();
	struct hd_prov p = { .input = 0, .kind = HD_PROV_LINE, .at = 12 };
	g_autofree char *a = NULL, *b = NULL;

	hd_store_add_input(s, "logs/rank3.log");
	a = hd_prov_format(s, &p);
	p.kind = HD_PROV_RECORD;
	b = hd_prov_format(s, &p);
	ck_assert_str_eq(a, "logs/rank3.log:12");
	ck_assert_str_eq(b, "logs/rank3.log#record 12");
	hd_store_free(s);
}
END_TEST

/* Interns n descriptors that differ in count, from two threads at once. */
#define DESC_N 5000

static gpointer intern_many(gpointer data)
{
	const struct hd_opdesc **out = data;

	for (int i = 0; i < DESC_N; i++) {
		struct hd_opdesc d = hd_opdesc_blank;

		d.count_in = d.count_out = i % 97 == 0 ? -1 : i;
		d.name = hd_intern("nccl:all_reduce");
		d.dtype = HD_DTYPE_FLOAT32;
		out[i] = hd_opdesc_intern(&d);
	}
	return NULL;
}

START_TEST(test_opdesc_intern)
{
	struct hd_opdesc a = hd_opdesc_blank, b;
	const struct hd_opdesc *pa, *pb;
	static const struct hd_opdesc *t1[DESC_N], *t2[DESC_N];
	GThread *th;

	/* the blank is its own interned copy */
	ck_assert_ptr_eq(hd_opdesc_intern(&a), &hd_opdesc_blank);
	a.count_in = a.count_out = 1000;
	a.shape_in = a.shape_out = hd_intern("[[10, 100]]");
	a.dtype = HD_DTYPE_BFLOAT16;
	a.redop = HD_REDOP_SUM;
	b = a;
	b.pad[0] = 0x5a; /* padding is not part of the value */
	pa = hd_opdesc_intern(&a);
	pb = hd_opdesc_intern(&b);
	ck_assert_ptr_eq(pa, pb);
	ck_assert_int_eq(pa->pad[0], 0);
	ck_assert_int_eq(pa->count_in, 1000);
	ck_assert_str_eq(pa->shape_in, "[[10, 100]]");
	/* every field takes part in equality */
	b = a;
	b.peer = 0;
	ck_assert_ptr_ne(hd_opdesc_intern(&b), pa);
	b = a;
	b.redop = HD_REDOP_MAX;
	ck_assert_ptr_ne(hd_opdesc_intern(&b), pa);
	b = a;
	b.shape_out = hd_intern("[[10, 101]]");
	ck_assert_ptr_ne(hd_opdesc_intern(&b), pa);
	b = a;
	b.count_out = 1001;
	ck_assert_ptr_ne(hd_opdesc_intern(&b), pa);
	ck_assert_ptr_eq(hd_opdesc_intern(&a), pa);

	/* two threads agree on every pointer, values intact */
	th = g_thread_new("intern", intern_many, t2);
	intern_many(t1);
	g_thread_join(th);
	for (int i = 0; i < DESC_N; i++) {
		ck_assert_ptr_eq(t1[i], t2[i]);
		ck_assert_int_eq(t1[i]->count_in, i % 97 == 0 ? -1 : i);
		if (i > 0 && i % 97 != 0)
			ck_assert_ptr_ne(t1[i], t1[i - 1]);
	}
	ck_assert_ptr_eq(t1[0], t1[97]);
}
END_TEST

/*
 * The intern tables live as long as a store: freed with the last one,
 * made anew for the next, and a thread's descriptor cache from before is
 * never answered from (under ASan, a use of freed memory).
 */
START_TEST(test_intern_store_lifetime)
{
	struct hd_store *a = hd_store_new();
	struct hd_store *b = hd_store_new();
	struct hd_opdesc d = hd_opdesc_blank;
	const struct hd_opdesc *pd;
	const char *host;

	d.count_in = d.count_out = 4242;
	d.name = hd_intern("nccl:lifetime");
	pd = hd_opdesc_intern(&d);
	host = hd_intern("node-lifetime");
	/* one store still holds them: every pointer stays */
	hd_store_free(a);
	ck_assert_ptr_eq(hd_intern("node-lifetime"), host);
	ck_assert_ptr_eq(hd_opdesc_intern(&d), pd);
	ck_assert_int_eq(pd->count_in, 4242);
	hd_store_free(b);
	/* a new store, new tables: the same values intern again */
	a = hd_store_new();
	d.name = hd_intern("nccl:lifetime");
	ck_assert_str_eq(d.name, "nccl:lifetime");
	pd = hd_opdesc_intern(&d);
	ck_assert_int_eq(pd->count_in, 4242);
	ck_assert_str_eq(pd->name, "nccl:lifetime");
	ck_assert_ptr_eq(hd_opdesc_intern(&d), pd);
	ck_assert_str_eq(hd_intern("node-lifetime"), "node-lifetime");
	hd_store_free(a);
}
END_TEST

/* Text for a terminal: one line, no control or bidi code point. */
START_TEST(test_text_safe)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "plain text", "plain text" },
		{ "a\x1b[31mb", "a?[31mb" },
		{ "tab\tnl\nbel\a", "tab?nl?bel?" },
		{ "del\x7f", "del?" },
		{ "c1 \xc2\x9b"
		  "2J",
		  "c1 ?2J" },
		{ "rlo \xe2\x80\xae x", "rlo ? x" },
		{ "lri \xe2\x81\xa6 pdi \xe2\x81\xa9", "lri ? pdi ?" },
		{ "lrm \xe2\x80\x8e", "lrm ?" },
		{ "bad \xff"
		  " utf8",
		  "bad \xef\xbf\xbd"
		  " utf8" },
		{ "caf\xc3\xa9 \xe2\x86\x92 ok",
		  "caf\xc3\xa9 \xe2\x86\x92 ok" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
		g_autofree char *got = hd_text_safe(t[i].in);

		ck_assert_str_eq(got, t[i].out);
	}
	g_free(hd_text_safe(NULL));
}
END_TEST

/* Resident memory of this process in bytes, from /proc (0 when unknown). */
static uint64_t rss_bytes(void)
{
	g_autofree char *statm = NULL;
	unsigned long size = 0, resident = 0;

	if (!g_file_get_contents("/proc/self/statm", &statm, NULL, NULL) ||
	    sscanf(statm, "%lu %lu", &size, &resident) != 2)
		return 0;
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * Issue 12: GLib's quark table, which hd_intern() used, leaks a copy of
 * its array every 2,048 strings, so a dump of 1 M distinct keys took 2 GB.
 * A million distinct strings must cost tens of MB, not GB.
 */
/*
 * Fuzzer find (fuzz_nccl_log): a signal dropped for its rank freed its
 * text, and shrinking the array freed it again, along with the text of
 * the signal moved into its slot.
 */
START_TEST(test_bound_signals_owns_text)
{
	g_autoptr(hd_store) s = hd_store_new();
	static const int ranks[] = { 0, HD_MAX_RANKS + 5, 1, -HD_MAX_RANKS - 7,
				     2 };
	static const char *const texts[] = { "a", "bad", "b", "worse", "c" };
	struct hd_signal sig;

	hd_store_add_input(s, "x.log");
	for (size_t i = 0; i < G_N_ELEMENTS(ranks); i++) {
		hd_signal_init(&sig);
		sig.rank = ranks[i];
		sig.text = hd_unconst(texts[i]);
		hd_store_add_signal(s, &sig);
	}
	hd_store_bound(s);
	ck_assert_uint_eq(s->signals->len, 3);
	ck_assert_str_eq(g_array_index(s->signals, struct hd_signal, 0).text,
			 "a");
	ck_assert_str_eq(g_array_index(s->signals, struct hd_signal, 1).text,
			 "b");
	ck_assert_str_eq(g_array_index(s->signals, struct hd_signal, 2).text,
			 "c");
}
END_TEST

START_TEST(test_intern_linear_memory)
{
	enum { N = 1000000 };
	uint64_t before = rss_bytes(), grown;
	const char *first = NULL;
	char buf[32];

	for (int i = 0; i < N; i++) {
		const char *p;

		g_snprintf(buf, sizeof(buf), "key-%d", i);
		p = hd_intern(buf);
		if (i == 0)
			first = p;
	}
	grown = rss_bytes() - before;
	ck_assert_msg(before == 0 || grown < ((uint64_t)400 << 20),
		      "1 M interned strings took %" G_GUINT64_FORMAT " MB",
		      grown >> 20);
	ck_assert_ptr_eq(hd_intern("key-0"), first);
	ck_assert_ptr_eq(hd_intern_len("key-0xyz", 5), first);
	ck_assert_str_eq(hd_intern("key-999999"), "key-999999");
}
END_TEST

/* A thread under a budget gets the placeholder for new strings only. */
START_TEST(test_intern_limit)
{
	const char *known = hd_intern("limit-known");

	hd_intern_limit_begin(2);
	ck_assert_ptr_eq(hd_intern("limit-known"), known);
	ck_assert_str_eq(hd_intern("limit-a"), "limit-a");
	ck_assert_str_eq(hd_intern_len("limit-bcd", 7), "limit-b");
	ck_assert_ptr_eq(hd_intern("limit-c"), hd_intern_refused);
	ck_assert_ptr_eq(hd_intern_len("limit-dd", 7), hd_intern_refused);
	ck_assert_ptr_eq(hd_intern("limit-a"), hd_intern("limit-a"));
	ck_assert_uint_eq(hd_intern_limit_end(), 2);
	/* the budget is over: new strings are kept again */
	ck_assert_str_eq(hd_intern("limit-c"), "limit-c");
	ck_assert_uint_eq(hd_intern_limit_end(), 0);
}
END_TEST

/*
 * Times past 2200 (a hostile dump's time_created_ns) are forgotten by
 * hd_store_bound() with one warning, so no difference of times overflows
 * (UBSan); a trace-relative time of any size stays.
 */
START_TEST(test_bound_times)
{
	g_autoptr(hd_store) s = hd_store_new();
	uint32_t in = hd_store_add_input(s, "rank0.pkl");
	uint32_t tr = hd_store_add_input(s, "trace.json");
	struct hd_op_rec op;
	struct hd_signal sig;

	hd_store_input(s, in)->op_clock = HD_CLOCK_UTC;
	hd_store_input(s, tr)->op_clock = HD_CLOCK_TRACE;
	hd_op_rec_init(&op);
	hd_op_set_rank(&op.op, 0);
	op.prov.input = in;
	op.t_enqueue_ns = INT64_MAX;
	op.t_start_ns = -5;
	op.t_end_ns = INT64_C(1700000000) * 1000000000;
	hd_store_add_op(s, &op);
	op.prov.input = tr;
	op.t_enqueue_ns = INT64_MAX - 1;
	hd_store_add_op(s, &op);
	hd_signal_init(&sig);
	sig.prov.input = in;
	sig.time = hd_time_make(HD_TIME_NS_MAX, HD_CLOCK_LOCAL);
	hd_store_add_signal(s, &sig);
	hd_store_bound(s);
	ck_assert_uint_eq(s->ops->len, 2);
	ck_assert_int_eq(
		hd_op_t_enqueue(s, &g_array_index(s->ops, struct hd_op, 0)),
		INT64_MIN);
	ck_assert_int_eq(
		hd_op_t_start(s, &g_array_index(s->ops, struct hd_op, 0)),
		INT64_MIN);
	ck_assert_int_eq(
		hd_op_t_end(s, &g_array_index(s->ops, struct hd_op, 0)),
		INT64_C(1700000000) * 1000000000);
	ck_assert_int_eq(
		hd_op_t_enqueue(s, &g_array_index(s->ops, struct hd_op, 1)),
		INT64_MAX - 1);
	ck_assert(!hd_time_known(
		g_array_index(s->signals, struct hd_signal, 0).time));
	ck_assert_uint_eq(hd_store_input(s, in)->nwarnings, 1);
}
END_TEST

/*
 * --since/--until: records outside go, records without a time stay, and
 * UTC bounds judge only UTC times (a local time's zone is unknown).
 */
START_TEST(test_keep_window)
{
	g_autoptr(hd_store) s = hd_store_new();
	uint32_t in = hd_store_add_input(s, "w.log");
	const int64_t base = INT64_C(1700000000) * 1000000000;
	const struct hd_time times[] = {
		hd_time_make(base, HD_CLOCK_UTC),
		hd_time_make(base + 10, HD_CLOCK_UTC),
		hd_time_make(base + 20, HD_CLOCK_UTC),
		hd_time_none(),
		hd_time_make(5 * HD_NS_PER_SEC, HD_CLOCK_TIME_OF_DAY),
		hd_time_make(base + 100, HD_CLOCK_LOCAL),
	};
	struct hd_window w = { base + 5, base + 15, false };

	hd_store_input(s, in)->op_clock = HD_CLOCK_UTC;
	for (size_t i = 0; i < G_N_ELEMENTS(times); i++) {
		struct hd_op_rec op;
		struct hd_signal sig;

		hd_op_rec_init(&op);
		hd_op_set_rank(&op.op, 0);
		op.prov.input = in;
		op.t_start_ns = i < 4 ? times[i].ns : INT64_MIN;
		hd_store_add_op(s, &op);
		hd_signal_init(&sig);
		sig.time = times[i];
		sig.text = g_strdup("text");
		sig.prov.input = in;
		g_array_append_val(s->signals, sig);
	}
	hd_store_keep_window(s, &w);
	/* ops: base + 10 and the three untimed ones */
	ck_assert_uint_eq(s->ops->len, 4);
	ck_assert_int_eq(
		hd_op_t_start(s, &g_array_index(s->ops, struct hd_op, 0)),
		base + 10);
	/* signals: base + 10, the untimed one, the time of day and the
	   local time (the bounds are UTC: they cannot judge those) */
	ck_assert_uint_eq(s->signals->len, 4);
	ck_assert_int_eq(
		g_array_index(s->signals, struct hd_signal, 3).time.clock,
		HD_CLOCK_LOCAL);
	/* one warning for what was dropped, one for what was not judged */
	ck_assert_uint_eq(hd_store_input(s, 0)->nwarnings, 2);

	/* a time of day window compares each clock's time of day */
	w.since = 0;
	w.until = 4 * INT64_C(1000000000);
	w.time_of_day = true;
	hd_store_keep_window(s, &w);
	ck_assert_uint_eq(s->ops->len, 3); /* the untimed ones */
	ck_assert_int_eq(
		hd_op_t_start(s, &g_array_index(s->ops, struct hd_op, 0)),
		INT64_MIN);
	ck_assert_uint_eq(s->signals->len, 1); /* the untimed one */
}
END_TEST

/*
 * A member list shared by the groups of many stores (every rank's dump
 * repeats the world group): merging two stores that share one keeps it
 * shared, a store without members takes it in the merge, bounds and the
 * known count come from the list, membership is found by search, and a
 * write to one group's members copies them first, leaving the list and
 * every other group as they were.
 */
START_TEST(test_shared_members)
{
	const int ranks[] = { 4, 0, 2, -1, 3 };
	g_autoptr(hd_members) m = hd_members_new(ranks, G_N_ELEMENTS(ranks));
	g_autoptr(hd_members) bad = NULL;
	g_autoptr(hd_store) dst = hd_store_new();
	struct hd_store *a = hd_store_new(), *b = hd_store_new();
	const char *id = "pg:0:[4,0,2,-1,3]";
	struct hd_group *ga, *gd;
	const int far[] = { 0, HD_MAX_RANKS };

	ck_assert_uint_eq(m->nknown, 4);
	ck_assert(m->bounded);
	ck_assert(hd_members_contains(m, 3));
	ck_assert(hd_members_contains(m, 0));
	ck_assert(!hd_members_contains(m, 1));
	ck_assert(!hd_members_contains(m, -1));
	bad = hd_members_new(far, G_N_ELEMENTS(far));
	ck_assert(!bad->bounded);

	hd_store_add_input(a, "rank0");
	hd_store_add_input(b, "rank2");
	hd_group_share_members(hd_store_group_at(a, hd_store_group(a, id)), m);
	hd_group_share_members(hd_store_group_at(b, hd_store_group(b, id)), m);
	hd_store_bound(a);
	hd_store_merge(dst, a);
	hd_store_merge(dst, b);
	gd = hd_store_group_at(dst, hd_store_group(dst, id));
	ck_assert_ptr_eq(gd->shared, m);
	ck_assert_ptr_eq(gd->members, m->ranks);
	ck_assert_uint_eq(gd->nknown, 4);
	ck_assert_int_eq(hd_group_global_rank(gd, 2), 2);

	/* a write copies: the list and other groups keep their ranks */
	a = hd_store_new();
	hd_store_add_input(a, "rank1");
	ga = hd_store_group_at(a, hd_store_group(a, id));
	hd_group_share_members(ga, m);
	hd_group_set_member(ga, 3, 1);
	ck_assert_ptr_null(ga->shared);
	ck_assert_ptr_ne(ga->members, m->ranks);
	ck_assert_int_eq(hd_group_global_rank(ga, 3), 1);
	ck_assert_int_eq(g_array_index(m->ranks, int, 3), -1);
	ck_assert_int_eq(hd_group_global_rank(gd, 3), -1);
	hd_store_merge(dst, a);
	ck_assert_ptr_null(gd->shared);
	ck_assert_int_eq(hd_group_global_rank(gd, 3), 1);
	ck_assert_int_eq(g_array_index(m->ranks, int, 3), -1);
}
END_TEST

/* n inputs "rK.pkl" of ranks 0..n-1, input k one op at ts[k] ns UTC. */
static struct hd_store *timed_inputs(const int64_t *ts, guint n)
{
	struct hd_store *s = hd_store_new();

	for (guint k = 0; k < n; k++) {
		g_autofree char *name = g_strdup_printf("r%u.pkl", k);
		uint32_t in = hd_store_add_input(s, name);
		struct hd_op_rec op;

		hd_store_input(s, in)->op_clock = HD_CLOCK_UTC;
		hd_store_input(s, in)->rank = (int)k;
		hd_rank_add_input(hd_store_rank(s, (int)k), in);
		hd_op_rec_init(&op);
		hd_op_set_rank(&op.op, (int)k);
		op.prov.input = in;
		op.t_enqueue_ns = ts[k];
		hd_store_add_op(s, &op);
	}
	return s;
}

/*
 * Inputs whose UTC times lie more than an hour apart are two incidents:
 * a minority is set apart (its ops dropped, its rank left without
 * input), a tie is left for the consistency check; times near INT64_MAX
 * do not wrap the gap.
 */
START_TEST(test_keep_incident)
{
	const int64_t t0 = INT64_C(1700000000) * HD_NS_PER_SEC;
	const int64_t day = HD_NS_PER_DAY;
	const int64_t three[] = { t0, t0 - day, t0 + 1000 };
	const int64_t tie[] = { t0, t0 - day, t0 + 1000, t0 - day + 5 };
	const int64_t high[] = { INT64_MAX - 10, INT64_MAX - 1, t0 };
	guint cluster[4];
	g_autoptr(hd_store) a = timed_inputs(three, 3);
	g_autoptr(hd_store) b = timed_inputs(tie, 4);
	g_autoptr(hd_store) c = timed_inputs(high, 3);
	const struct hd_input *in;

	ck_assert_uint_eq(hd_store_incident_clusters(a, cluster), 2);
	ck_assert_uint_eq(cluster[1], 0);
	ck_assert_uint_eq(cluster[0], 1);
	ck_assert_uint_eq(cluster[2], 1);
	hd_store_keep_incident(a);
	ck_assert_uint_eq(a->ops->len, 2);
	in = hd_store_input(a, 1);
	ck_assert(in->other_incident);
	ck_assert_ptr_nonnull(strstr(in->error, "about 24 hours before"));
	ck_assert_uint_eq(hd_store_rank(a, 1)->inputs->len, 0);
	ck_assert(!hd_store_input(a, 0)->other_incident);
	/* two against two: nothing is dropped here */
	hd_store_keep_incident(b);
	ck_assert_uint_eq(b->ops->len, 4);
	ck_assert_uint_eq(hd_store_incident_clusters(b, cluster), 2);
	/* the two near INT64_MAX are one incident, t0 another */
	ck_assert_uint_eq(hd_store_incident_clusters(c, cluster), 2);
	ck_assert_uint_eq(cluster[0], cluster[1]);
	ck_assert_uint_ne(cluster[0], cluster[2]);
}
END_TEST

/*
 * Attempts per process life (hd_store_keep_attempt()).  A log of two
 * attempts (comm A, then comm B), its rank's rotated pair (the older file
 * with comm A, the newer with comm B) and a log cut before the restart
 * (comm A only): the files that hold the same comm hold the same attempt,
 * whatever each numbers it.
 */
struct att_op {
	guint input, attempt; /* local, from 1; 0: the input has one */
	const char *comm;
	uint64_t line;
};

static struct hd_store *attempt_store(const struct att_op *ops, guint n,
				      guint ninputs, const guint *nattempts)
{
	struct hd_store *s = hd_store_new();

	for (guint i = 0; i < ninputs; i++) {
		g_autofree char *name = g_strdup_printf("in%u.log", i);
		struct hd_input *in =
			hd_store_input(s, hd_store_add_input(s, name));

		in->kind = HD_INPUT_NCCL_LOG;
		for (guint k = 0; nattempts[i] >= 2 && k < nattempts[i]; k++) {
			struct hd_attempt *at = hd_input_new_attempt(in);

			at->first_line = 1 + 100 * k;
			at->last_line = 100 * (k + 1);
		}
	}
	for (guint i = 0; i < n; i++) {
		g_autofree char *id = g_strdup_printf("comm:%s", ops[i].comm);
		uint32_t g = hd_store_group(s, id);
		struct hd_group *grp = hd_store_group_at(s, g);
		struct hd_op_rec rec;

		grp->has_comm_id = true;
		grp->comm_id = g_ascii_strtoull(ops[i].comm, NULL, 16);
		hd_op_rec_init(&rec);
		hd_op_set_rank(&rec.op, 0);
		rec.op.group = g;
		rec.prov.input = ops[i].input;
		rec.prov.kind = HD_PROV_LINE;
		rec.prov.at = ops[i].line;
		rec.prov.attempt = (uint16_t)ops[i].attempt;
		hd_store_add_op(s, &rec);
	}
	return s;
}

/* How many ops of input i are left. */
static guint ops_of(const struct hd_store *s, guint i)
{
	guint n = 0;

	for (guint k = 0; k < s->ops->len; k++)
		n += g_array_index(s->ops, struct hd_op, k).input == i;
	return n;
}

START_TEST(test_keep_attempt_per_life)
{
	/* in0: attempts 1 (comm a) and 2 (comm b); in1: comm a only (cut
	   before the restart, or a rotated older file); in2: comm b only
	   (the rotated newer file) */
	static const struct att_op ops[] = {
		{ 0, 1, "a", 10 }, { 0, 1, "a", 11 }, { 0, 2, "b", 110 },
		{ 1, 0, "a", 5 },  { 1, 0, "a", 6 },  { 2, 0, "b", 7 },
	};
	static const guint natt[] = { 2, 1, 1 };
	/* ties that disagree: in3 holds comm a in its attempt 2 */
	static const struct att_op bad[] = {
		{ 0, 1, "a", 10 },
		{ 0, 2, "b", 110 },
		{ 1, 1, "b", 5 },
		{ 1, 2, "a", 150 },
	};
	static const guint natt_bad[] = { 2, 2 };
	struct hd_store *s;

	s = attempt_store(ops, G_N_ELEMENTS(ops), 3, natt);
	hd_store_keep_attempt(s, 0);
	ck_assert_uint_eq(ops_of(s, 0), 1); /* its attempt 2 */
	ck_assert_uint_eq(ops_of(s, 1), 0); /* attempt 1 only */
	ck_assert_uint_eq(ops_of(s, 2), 1); /* attempt 2: shifted by one */
	ck_assert(hd_store_input(s, 1)->attempt_none);
	ck_assert_int_eq(hd_store_input(s, 2)->attempt_shift, 1);
	ck_assert(!hd_store_input(s, 2)->attempt_none);
	/* what the cut log held is counted, for the note */
	ck_assert_uint_eq(g_array_index(hd_store_input(s, 1)->attempts,
					struct hd_attempt, 0)
				  .ops,
			  2);
	hd_store_free(s);

	s = attempt_store(ops, G_N_ELEMENTS(ops), 3, natt);
	hd_store_keep_attempt(s, 1);
	ck_assert_uint_eq(ops_of(s, 0), 2);
	ck_assert_uint_eq(ops_of(s, 1), 2);
	ck_assert_uint_eq(ops_of(s, 2), 0);
	ck_assert(hd_store_input(s, 2)->attempt_none);
	hd_store_free(s);

	/* past the last: the last, with a warning */
	s = attempt_store(ops, G_N_ELEMENTS(ops), 3, natt);
	hd_store_keep_attempt(s, 7);
	ck_assert_uint_eq(ops_of(s, 2), 1);
	ck_assert_uint_gt(hd_store_input(s, 0)->nwarnings, 0);
	hd_store_free(s);

	/* ties that contradict each other: each file keeps its own last */
	s = attempt_store(bad, G_N_ELEMENTS(bad), 2, natt_bad);
	hd_store_keep_attempt(s, 0);
	ck_assert_uint_eq(ops_of(s, 0), 1);
	ck_assert_uint_eq(ops_of(s, 1), 1);
	ck_assert_int_eq(hd_store_input(s, 1)->attempt_shift, 0);
	ck_assert(!hd_store_input(s, 0)->attempt_none);
	ck_assert(!hd_store_input(s, 1)->attempt_none);
	hd_store_free(s);
}
END_TEST

/*
 * A pid joins the one rank whose process had it, on the host asked when
 * known; a pid two hosts' ranks share (containers number alike) joins
 * neither, and says so.
 */
START_TEST(test_rank_of_pid)
{
	g_autoptr(hd_store) s = hd_store_new();
	g_autoptr(GHashTable) by_pid = NULL;
	int rank = 99;

	hd_store_rank(s, 0)->pid = 41;
	hd_store_rank(s, 0)->host = hd_intern("node-a");
	hd_store_rank(s, 1)->pid = 41;
	hd_store_rank(s, 1)->host = hd_intern("node-b");
	hd_store_rank(s, 2)->pid = 7;
	by_pid = hd_store_ranks_by_pid(s);
	ck_assert_int_eq(hd_store_rank_of_pid(by_pid, 7, NULL, &rank),
			 HD_PID_ONE_RANK);
	ck_assert_int_eq(rank, 2);
	ck_assert_int_eq(hd_store_rank_of_pid(by_pid, 41, "node-b", &rank),
			 HD_PID_ONE_RANK);
	ck_assert_int_eq(rank, 1);
	ck_assert_int_eq(hd_store_rank_of_pid(by_pid, 41, NULL, &rank),
			 HD_PID_SEVERAL_RANKS);
	ck_assert_int_eq(rank, -1);
	ck_assert_int_eq(hd_store_rank_of_pid(by_pid, 41, "node-c", &rank),
			 HD_PID_NO_RANK);
	ck_assert_int_eq(rank, -1);
	ck_assert_int_eq(hd_store_rank_of_pid(by_pid, 0, NULL, &rank),
			 HD_PID_NO_RANK);
	ck_assert_int_eq(rank, -1);
}
END_TEST

/*
 * A signal's seq, code and element counts read by what its type means:
 * an Inspector timing's are its last coll_sn, its records and its times
 * in microseconds; a timeout's seq is its SeqNum; the stored values are
 * the same fields whatever the type.
 */
START_TEST(test_signal_accessors)
{
	struct hd_signal t, w;

	hd_signal_init(&t);
	t.type = HD_SIGT_COLL_TIMING;
	t.seq = 812;
	t.code = 3;
	t.numel_in = 9000;
	t.numel_out = 4500;
	ck_assert_int_eq(hd_signal_timing_last_sn(&t), 812);
	ck_assert_int_eq(hd_signal_timing_records(&t), 3);
	ck_assert_int_eq(hd_signal_timing_max_us(&t), 9000);
	ck_assert_int_eq(hd_signal_timing_mean_us(&t), 4500);
	ck_assert_int_eq(hd_signal_stored_seq(&t), 812);
	ck_assert_int_eq(hd_signal_stored_code(&t), 3);
	hd_signal_init(&w);
	w.type = HD_SIGT_WATCHDOG_TIMEOUT;
	ck_assert_int_eq(hd_signal_seq(&w), -1);
	w.seq = 41;
	ck_assert_int_eq(hd_signal_seq(&w), 41);
	w.type = HD_SIGT_GDB_THREAD;
	w.code = 5301;
	ck_assert_int_eq(hd_signal_lwp(&w), 5301);
	w.type = HD_SIGT_PYSPY_THREAD;
	ck_assert_int_eq(hd_signal_thread_id(&w), 5301);
	w.type = HD_SIGT_ANON_PROC;
	ck_assert_int_eq(hd_signal_anon_ops(&w), 41);
}
END_TEST

/* The shared comparators order by value, whatever the width or sign. */
/*
 * hd_store_drop_empty_groups(): only the marked groups no op is in go;
 * the rest keep their order, ids and ops.  hd_input_unwarn() takes back
 * one kept warning and its count.
 */
START_TEST(test_drop_empty_groups)
{
	g_autoptr(hd_store) s = hd_store_new();
	uint32_t in = hd_store_add_input(s, "x.log");
	uint32_t g0 = hd_store_group(s, "comm:0x1");
	uint32_t g1 = hd_store_group(s, "nccl-nranks:4#0");
	uint32_t g2 = hd_store_group(s, "nccl-nranks:2#0");
	uint32_t g3 = hd_store_group(s, "nccl-nranks:8#0");
	bool cand[5] = { false, true, true, false, false };
	struct hd_input *ip = hd_store_input(s, in);

	(void)g1;
	for (int i = 0; i < 3; i++) {
		struct hd_op_rec op =
			hd_test_op(i == 2 ? g2 : g0, 0, HD_SEQ_ORDINAL, i,
				   HD_OP_ALL_REDUCE, HD_STATE_ENQUEUED);
		struct hd_opdesc d = hd_test_desc(8, 8, HD_DTYPE_FLOAT32);

		op.prov.input = in;
		hd_test_add_op(s, &op, &d);
	}
	/* g1: marked and empty, dropped; g2 marked but holds an op; g3
	   empty but not marked */
	ck_assert_uint_eq(hd_store_drop_empty_groups(s, cand), 1);
	ck_assert_uint_eq(s->groups->len, 3);
	ck_assert_str_eq(hd_store_group_at(s, 0)->id, "comm:0x1");
	ck_assert_str_eq(hd_store_group_at(s, 1)->id, "nccl-nranks:2#0");
	ck_assert_str_eq(hd_store_group_at(s, 2)->id, "nccl-nranks:8#0");
	ck_assert_int_eq(hd_store_find_group(s, "nccl-nranks:4#0"), -1);
	ck_assert_int_eq(hd_store_find_group(s, "nccl-nranks:8#0"), 2);
	ck_assert_uint_eq(g_array_index(s->ops, struct hd_op, 0).group, 0);
	ck_assert_uint_eq(g_array_index(s->ops, struct hd_op, 2).group, 1);
	(void)g3;
	/* the marks are by the groups' numbers now: g2 holds an op */
	{
		bool again[4] = { true, true, false, false };

		ck_assert_uint_eq(hd_store_drop_empty_groups(s, again), 0);
	}

	hd_input_warn(ip, 0, "rank unknown for node-a:7, its 3 ops kept");
	hd_input_warn(ip, 4, "something else");
	ck_assert(!hd_input_unwarn(ip, "rank unknown for node-a:70,"));
	ck_assert(hd_input_unwarn(ip, "rank unknown for node-a:7,"));
	ck_assert_uint_eq(ip->nwarnings, 1);
	ck_assert_uint_eq(ip->warnings->len, 1);
	ck_assert_str_eq(g_ptr_array_index(ip->warnings, 0),
			 "line 4: something else");
}
END_TEST

START_TEST(test_compare_shared)
{
	int i[] = { 3, -1, INT_MAX, INT_MIN, 0 };
	int64_t l[] = { INT64_MAX, -5, INT64_MIN, 7 };
	uint64_t u[] = { UINT64_MAX, 1, (uint64_t)INT64_MAX + 1, 0 };
	const char *str[] = { "b", "a", "ab" };

	qsort(i, G_N_ELEMENTS(i), sizeof(*i), hd_compare_int);
	ck_assert(i[0] == INT_MIN && i[1] == -1 && i[2] == 0 && i[3] == 3 &&
		  i[4] == INT_MAX);
	qsort(l, G_N_ELEMENTS(l), sizeof(*l), hd_compare_i64);
	ck_assert(l[0] == INT64_MIN && l[1] == -5 && l[2] == 7 &&
		  l[3] == INT64_MAX);
	qsort(u, G_N_ELEMENTS(u), sizeof(*u), hd_compare_u64);
	ck_assert(u[0] == 0 && u[1] == 1 && u[2] == (uint64_t)INT64_MAX + 1 &&
		  u[3] == UINT64_MAX);
	qsort(str, G_N_ELEMENTS(str), sizeof(*str), hd_compare_str);
	ck_assert_str_eq(str[0], "a");
	ck_assert_str_eq(str[1], "ab");
	ck_assert_str_eq(str[2], "b");
}
END_TEST

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_add_test(tc, test_merge_remaps);
	tcase_add_test(tc, test_compare_shared);
	tcase_add_test(tc, test_rank_of_pid);
	tcase_add_test(tc, test_signal_accessors);
	tcase_add_test(tc, test_op_packed);
	tcase_add_test(tc, test_op_narrow_fields);
	tcase_add_loop_test(tc, test_xrec_round_trip, 0,
			    G_N_ELEMENTS(xrec_cases));
	tcase_add_test(tc, test_xrec_grow);
	tcase_add_test(tc, test_xrec_op_count);
	tcase_add_test(tc, test_xrec_merge);
	tcase_add_test(tc, test_xrec_bytes);
	tcase_add_test(tc, test_desc_ids);
	tcase_add_test(tc, test_op_anon);
	tcase_add_test(tc, test_ids_and_names);
	tcase_add_test(tc, test_groups_members_and_bounds);
	tcase_add_test(tc, test_shared_members);
	tcase_add_test(tc, test_group_label);
	tcase_add_test(tc, test_warnings_capped);
	tcase_add_test(tc, test_prov_format);
	tcase_add_test(tc, test_opdesc_intern);
	tcase_add_test(tc, test_intern_store_lifetime);
	tcase_add_test(tc, test_text_safe);
	tcase_add_test(tc, test_bound_times);
	tcase_add_test(tc, test_keep_window);
	tcase_add_test(tc, test_keep_attempt_per_life);
	tcase_add_test(tc, test_keep_incident);
	tcase_add_test(tc, test_intern_linear_memory);
	tcase_add_test(tc, test_intern_limit);
	tcase_add_test(tc, test_bound_signals_owns_text);
	tcase_add_test(tc, test_drop_empty_groups);
	/* a million strings, under ASan too */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(store_suite)
