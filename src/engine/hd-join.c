/*
 * The join of a rank's flight-recorder dump with its NCCL_DEBUG log: each
 * FR process group is linked to the NCCL comm of the same ranks, and each
 * FR op to the COLL line of the same call, so that what only the log
 * carries (the root of a broadcast or reduce, the reduction op, opCount)
 * takes part in the FR group's comparisons.  PyTorch never prints the comm
 * pointer, so the link rests on the op sequences alone, and is made only
 * where they leave one choice: a wrong link would put one call's root on
 * another and blame a healthy rank, so when in doubt nothing is joined and
 * a note says why.
 *
 * A pair (process group P, comm C) is tried when C has the same nranks and
 * its known members sit at the same group ranks as P's (so a COLL root, a
 * comm rank, is a P rank).  On each member with both a dump and a log:
 *
 *  - the dump's final run is taken: its last consecutive collective seqs
 *    that each map to exactly one COLL line (one uncoalesced all_reduce,
 *    all_gather, reduce_scatter, broadcast or reduce of one tensor);
 *  - an offset d (log ordinal = FR seq + d) is accepted when every op of
 *    the run agrees with the line it falls on in kind, element count and
 *    dtype.  Ordinals count from the comm's Init line and FR seqs from the
 *    process group's first collective, which opened the comm, and each seq
 *    is at least one line, so d >= -1; the log holds the dump's last op, so
 *    the run ends inside the log.  Only offsets in those bounds are tried;
 *  - the rank is aligned when exactly one offset fits a run of at least
 *    JOIN_MIN_OVERLAP ops, ambiguous when several do, and contradicts the
 *    pair when none does.
 *
 * P and C are linked when at least two members aligned, none contradicts,
 * C is the only comm that fits P and P the only process group that fits C,
 * and on every rank the linked ops keep the same relative order in the dump
 * and in the log as those of the rank's other links (communicator creation
 * and use order agree).
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "hd-checks.h"
#include "hd-const.h"
#include "hd-banned.h"

/* Ops a rank's run must have, all agreeing, before it counts as aligned. */
#define JOIN_MIN_OVERLAP 4
/* Op comparisons in all; past it the ranks left are undecided. */
#define JOIN_MAX_COMPARES (UINT64_C(1) << 26)
/* Notes about the join, before "N more". */
#define JOIN_MAX_NOTES 8

enum fit {
	FIT_NONE = 0, /* nothing to compare, or too little */
	FIT_ALIGNED, /* exactly one offset fits */
	FIT_AMBIGUOUS, /* several offsets fit */
	FIT_CONTRADICTS /* no offset fits */
};

/* One FR op and the COLL line of the same call. */
struct op_join {
	uint32_t fr, log;
	int rank;
	uint32_t pair; /* index into the pairs */
};

/* A (process group, comm) pair that was tried. */
struct pair {
	uint32_t pg, comm; /* store group indices */
	uint32_t pi, ci; /* indices into the candidate lists */
	uint32_t tried; /* members with both a dump and a log */
	uint32_t aligned, ambiguous, contradicts;
	int ambiguous_rank, contradicts_rank;
	GArray *joins; /* struct op_join, of the aligned ranks */
	bool linked;
};

/* A process group's lanes by rank and its group ranks, built once. */
struct pg_side {
	uint32_t group;
	GHashTable *lanes; /* rank -> const struct hd_lane * */
	GHashTable *grank; /* rank -> group rank + 1 */
};

struct join_ctx {
	struct hd_index *ix;
	struct hd_analysis *a;
	const struct hd_store *s;
	uint32_t notes;
};

static const struct hd_op *op_at(const struct hd_store *s, uint32_t i)
{
	return &g_array_index(s->ops, struct hd_op, i);
}

static void join_note(struct join_ctx *c, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);

static void join_note(struct join_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->notes++ >= JOIN_MAX_NOTES)
		return;
	va_start(ap, fmt);
	g_ptr_array_add(c->a->notes, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

/* The element count NCCL prints for an op of this kind. */
static int64_t coll_count(const struct hd_op *op)
{
	switch (op->kind) {
	case HD_OP_ALL_GATHER:
		return hd_op_desc(op)->count_in; /* per-rank send count */
	case HD_OP_REDUCE_SCATTER:
		return hd_op_desc(op)->count_out; /* per-rank receive count */
	default:
		return hd_op_desc(op)->count_in;
	}
}

/*
 * An FR op that PyTorch issues as exactly one COLL line: one tensor, no
 * coalescing, a kind NCCL prints as itself.  Everything else (coalesced
 * groups, all_to_all and gather as send/recv bursts, barriers) may print
 * any number of lines, so the offset is not known across it.
 */
static bool is_single_call(const struct hd_op *op)
{
	const char *shape;

	switch (op->kind) {
	case HD_OP_ALL_REDUCE:
	case HD_OP_ALL_GATHER:
	case HD_OP_REDUCE_SCATTER:
	case HD_OP_BROADCAST:
	case HD_OP_REDUCE:
		break;
	default:
		return false;
	}
	if (op->flags & HD_OPF_COALESCED_MEMBER)
		return false;
	if (hd_op_desc(op)->name &&
	    (strstr(hd_op_desc(op)->name, "coalesced") ||
	     strstr(hd_op_desc(op)->name, "_oop")))
		return false;
	/* Several tensors on the side NCCL counts are several calls. */
	shape = op->kind == HD_OP_REDUCE_SCATTER ? hd_op_desc(op)->shape_out
						 : hd_op_desc(op)->shape_in;
	if (!shape || strstr(shape, "], ["))
		return false;
	return coll_count(op) >= 0;
}

/* PyTorch hands NCCL a bool tensor as uint8. */
static uint8_t dtype_class(uint8_t t)
{
	return t == HD_DTYPE_BOOL ? HD_DTYPE_UINT8 : t;
}

/* Could this COLL line be the call that recorded this FR op? */
static bool call_agrees(const struct hd_op *fr, const struct hd_op *log)
{
	if (fr->kind != log->kind || coll_count(fr) != coll_count(log))
		return false;
	if (hd_op_desc(fr)->dtype == HD_DTYPE_UNKNOWN ||
	    hd_op_desc(log)->dtype == HD_DTYPE_UNKNOWN)
		return true;
	if (hd_op_desc(fr)->dtype == HD_DTYPE_OTHER ||
	    hd_op_desc(log)->dtype == HD_DTYPE_OTHER)
		return false;
	return dtype_class(hd_op_desc(fr)->dtype) ==
	       dtype_class(hd_op_desc(log)->dtype);
}

static bool single_at(const struct hd_store *s, const struct hd_lane *l,
		      uint32_t i)
{
	int64_t seq = op_at(s, l->ops[i])->seq;

	if (i > 0 && op_at(s, l->ops[i - 1])->seq == seq)
		return false;
	if (i + 1 < l->n && op_at(s, l->ops[i + 1])->seq == seq)
		return false;
	return is_single_call(op_at(s, l->ops[i]));
}

static bool follows(int64_t a, int64_t b)
{
	return a != INT64_MAX && a + 1 == b;
}

/*
 * Aligns one rank's dump (fr) with its COLL lines (log); on FIT_ALIGNED
 * appends the joined ops to joins.
 */
static enum fit fit_rank(const struct hd_store *s, const struct hd_lane *fr,
			 const struct hd_lane *log, int rank, uint32_t pair,
			 GArray *joins, uint64_t *budget)
{
	uint32_t first = fr->n, n, found = 0;
	int64_t s_a, s_b, m = log->n, lo, hi, at = 0;

	/* The final run of consecutive single-call seqs. */
	while (first > 0 && single_at(s, fr, first - 1) &&
	       (first == fr->n || follows(op_at(s, fr->ops[first - 1])->seq,
					  op_at(s, fr->ops[first])->seq)))
		first--;
	n = fr->n - first;
	if (n < JOIN_MIN_OVERLAP || m == 0 || *budget < (uint64_t)m)
		return FIT_NONE;
	*budget -= (uint64_t)m;
	/* One comm instance from its Init line: ordinals 0, 1, ... */
	for (int64_t i = 0; i < m; i++)
		if (op_at(s, log->ops[i])->seq != i)
			return FIT_NONE;
	s_a = op_at(s, fr->ops[first])->seq;
	s_b = op_at(s, fr->ops[fr->n - 1])->seq;
	if (s_a < 0)
		return FIT_NONE;
	lo = MAX(-1, -s_a);
	hi = m - 1 - s_b;
	for (int64_t d = hi; d >= lo; d--) {
		bool ok = true;

		for (uint32_t k = 0; k < n && ok; k++) {
			if (*budget == 0)
				return FIT_NONE;
			--*budget;
			ok = call_agrees(op_at(s, fr->ops[first + k]),
					 op_at(s, log->ops[s_a + k + d]));
		}
		if (ok && found++ == 0)
			at = d;
		if (found > 1)
			return FIT_AMBIGUOUS;
	}
	if (!found)
		return lo > hi ? FIT_NONE : FIT_CONTRADICTS;
	for (uint32_t k = 0; k < n; k++) {
		struct op_join j = { fr->ops[first + k], log->ops[s_a + k + at],
				     rank, pair };

		g_array_append_val(joins, j);
	}
	return FIT_ALIGNED;
}

static bool is_pg_group(const struct hd_group *g)
{
	if (g->has_comm_id || g->nranks < 2 ||
	    g->members->len != (guint)g->nranks)
		return false;
	for (guint i = 0; i < g->members->len; i++)
		if (g_array_index(g->members, int, i) < 0)
			return false;
	return true;
}

/* Same size, and every member the comm knows at the same group rank. */
static bool same_members(const struct hd_group *pg, const struct hd_group *cm)
{
	guint known = 0;

	if (cm->nranks != pg->nranks || cm->members->len > pg->members->len)
		return false;
	for (guint i = 0; i < cm->members->len; i++) {
		int r = g_array_index(cm->members, int, i);

		if (r < 0)
			continue;
		if (r != g_array_index(pg->members, int, i))
			return false;
		known++;
	}
	return known >= 2;
}

static bool has_lanes(const struct hd_group_index *gi, uint8_t seq_kind,
		      uint8_t source)
{
	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane = hd_group_lane(gi, l);

		if (lane->seq_kind == seq_kind && lane->source == source &&
		    lane->n > 0)
			return true;
	}
	return false;
}

static void pg_side_init(const struct hd_index *ix, uint32_t g,
			 struct pg_side *p)
{
	const struct hd_group_index *gi = hd_index_group(ix, g);
	const struct hd_group *grp = g_ptr_array_index(ix->store->groups, g);

	p->group = g;
	p->lanes = g_hash_table_new(g_direct_hash, g_direct_equal);
	p->grank = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane = hd_group_lane(gi, l);

		if (lane->seq_kind == HD_SEQ_COLLECTIVE &&
		    lane->source == HD_INPUT_FLIGHT_REC)
			g_hash_table_insert(p->lanes,
					    GINT_TO_POINTER(lane->rank),
					    hd_unconst(lane));
	}
	for (guint i = 0; i < grp->members->len; i++)
		g_hash_table_insert(
			p->grank,
			GINT_TO_POINTER(g_array_index(grp->members, int, i)),
			GUINT_TO_POINTER(i + 1));
}

static void pg_side_clear(struct pg_side *p)
{
	g_hash_table_unref(p->lanes);
	g_hash_table_unref(p->grank);
}

static void try_pair(const struct hd_index *ix, const struct pg_side *p,
		     uint32_t comm, uint32_t index, struct pair *pr,
		     uint64_t *budget)
{
	const struct hd_store *s = ix->store;
	const struct hd_group_index *gi = hd_index_group(ix, comm);
	const struct hd_group *cg = g_ptr_array_index(s->groups, comm);

	pr->pg = p->group;
	pr->comm = comm;
	pr->ambiguous_rank = pr->contradicts_rank = -1;
	pr->joins = g_array_new(FALSE, FALSE, sizeof(struct op_join));
	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *log = hd_group_lane(gi, l);
		const struct hd_lane *fr;
		guint gr;

		if (log->seq_kind != HD_SEQ_ORDINAL ||
		    log->source != HD_INPUT_NCCL_LOG)
			continue;
		fr = g_hash_table_lookup(p->lanes, GINT_TO_POINTER(log->rank));
		gr = GPOINTER_TO_UINT(g_hash_table_lookup(
			p->grank, GINT_TO_POINTER(log->rank)));
		/* Its comm rank must be its PG rank, or roots mean nothing. */
		if (!fr || !gr ||
		    hd_group_global_rank(cg, (int)gr - 1) != log->rank)
			continue;
		pr->tried++;
		switch (fit_rank(s, fr, log, log->rank, index, pr->joins,
				 budget)) {
		case FIT_ALIGNED:
			pr->aligned++;
			break;
		case FIT_AMBIGUOUS:
			pr->ambiguous++;
			if (pr->ambiguous_rank < 0)
				pr->ambiguous_rank = log->rank;
			break;
		case FIT_CONTRADICTS:
			pr->contradicts++;
			if (pr->contradicts_rank < 0)
				pr->contradicts_rank = log->rank;
			break;
		case FIT_NONE:
			break;
		}
	}
}

static bool pair_fits(const struct pair *pr)
{
	return pr->aligned > 0 && pr->contradicts == 0;
}

static void note_unlinked(struct join_ctx *c, const struct pair *pr)
{
	g_autofree char *pl = hd_group_label(c->s, pr->pg, HD_GROUP_LABEL_LONG);
	g_autofree char *cl =
		hd_group_label(c->s, pr->comm, HD_GROUP_LABEL_LONG);

	if (pr->contradicts)
		join_note(
			c,
			"%s: not joined with %s: rank %d's COLL lines disagree with its dump",
			pl, cl, pr->contradicts_rank);
	else if (pr->aligned < 2 && pr->ambiguous)
		join_note(
			c,
			"%s: not joined with %s: rank %d's COLL lines fit its dump at more than one position",
			pl, cl, pr->ambiguous_rank);
	else if (pr->aligned < 2)
		join_note(
			c,
			"%s: not joined with %s: %u rank%s aligned over %d or more ops, 2 needed",
			pl, cl, pr->aligned, pr->aligned == 1 ? "" : "s",
			JOIN_MIN_OVERLAP);
}

static int compare_order(gconstpointer pa, gconstpointer pb, gpointer data)
{
	const struct op_join *a = pa, *b = pb;
	const struct hd_store *s = data;
	const struct hd_op *fa = op_at(s, a->fr), *fb = op_at(s, b->fr);
	const struct hd_op *la = op_at(s, a->log), *lb = op_at(s, b->log);

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (fa->input != fb->input)
		return fa->input < fb->input ? -1 : 1;
	if (la->input != lb->input)
		return la->input < lb->input ? -1 : 1;
	if (hd_op_prov(s, fa).at != hd_op_prov(s, fb).at)
		return hd_op_prov(s, fa).at < hd_op_prov(s, fb).at ? -1 : 1;
	return (a->fr > b->fr) - (a->fr < b->fr);
}

/*
 * Across the links of one rank, the dump's record order and the log's line
 * order must agree: two comms swapped between two process groups fit each
 * op sequence alone but not their interleaving.
 */
static void check_order(struct join_ctx *c, GArray *pairs)
{
	g_autoptr(GArray) all =
		g_array_new(FALSE, FALSE, sizeof(struct op_join));
	guint links = 0;

	for (guint p = 0; p < pairs->len; p++) {
		const struct pair *pr = &g_array_index(pairs, struct pair, p);

		if (pr->linked) {
			g_array_append_vals(all, pr->joins->data,
					    pr->joins->len);
			links++;
		}
	}
	if (links < 2)
		return;
	g_array_sort_with_data(all, compare_order, hd_unconst(c->s));
	for (guint i = 1; i < all->len; i++) {
		const struct op_join *x =
			&g_array_index(all, struct op_join, i - 1);
		const struct op_join *y =
			&g_array_index(all, struct op_join, i);
		const struct hd_op *fx = op_at(c->s, x->fr),
				   *fy = op_at(c->s, y->fr);
		const struct hd_op *lx = op_at(c->s, x->log),
				   *ly = op_at(c->s, y->log);
		struct pair *px = &g_array_index(pairs, struct pair, x->pair);
		struct pair *py = &g_array_index(pairs, struct pair, y->pair);

		if (x->rank != y->rank || fx->input != fy->input ||
		    lx->input != ly->input || x->pair == y->pair ||
		    hd_op_prov(c->s, lx).at <= hd_op_prov(c->s, ly).at ||
		    (!px->linked && !py->linked))
			continue;
		{
			g_autofree char *a1 = hd_group_label(
				c->s, px->pg, HD_GROUP_LABEL_LONG);
			g_autofree char *a2 = hd_group_label(
				c->s, py->pg, HD_GROUP_LABEL_LONG);

			join_note(
				c,
				"%s and %s: not joined with NCCL comms: rank %d's dump and log order their ops differently",
				a1, a2, x->rank);
		}
		px->linked = py->linked = false;
	}
}

/* How many pairs fit each process group and comm, and were tried. */
struct join_tally {
	uint32_t *pg_fits; /* by index into pgs */
	uint32_t *pg_tried; /* by index into pgs */
	uint32_t *comm_fits; /* by index into comms */
};

/*
 * The candidates: process groups with FR collectives, and comms of at
 * least two ranks, identified for sure, with NCCL-log collectives.
 */
static void join_candidates(const struct hd_index *ix, GArray *pgs,
			    GArray *comms)
{
	const struct hd_store *s = ix->store;

	for (guint g = 0; g < ix->groups->len; g++) {
		const struct hd_group_index *gi = hd_index_group(ix, g);
		const struct hd_group *grp = g_ptr_array_index(s->groups, g);

		if (is_pg_group(grp) &&
		    has_lanes(gi, HD_SEQ_COLLECTIVE, HD_INPUT_FLIGHT_REC)) {
			struct pg_side p = { .group = g };

			g_array_append_val(pgs, p);
		} else if (!grp->low_confidence_identity && grp->nranks >= 2 &&
			   has_lanes(gi, HD_SEQ_ORDINAL, HD_INPUT_NCCL_LOG)) {
			g_array_append_val(comms, g);
		}
	}
}

/*
 * Tries every comm against every process group of the same members,
 * within the comparison budget, keeping the pairs tried and counting
 * those that fit.
 */
static void join_try_pairs(const struct hd_index *ix, const GArray *pgs,
			   const GArray *comms, GArray *pairs,
			   struct join_tally *t)
{
	const struct hd_store *s = ix->store;
	uint64_t budget = JOIN_MAX_COMPARES;

	for (guint ci = 0; ci < comms->len; ci++) {
		uint32_t cg = g_array_index(comms, uint32_t, ci);

		for (guint pi = 0; pi < pgs->len; pi++) {
			const struct pg_side *p =
				&g_array_index(pgs, struct pg_side, pi);
			struct pair pr = { 0 };

			if (!same_members(
				    g_ptr_array_index(s->groups, p->group),
				    g_ptr_array_index(s->groups, cg)))
				continue;
			try_pair(ix, p, cg, pairs->len, &pr, &budget);
			if (pr.tried == 0) {
				g_array_unref(pr.joins);
				continue;
			}
			pr.pi = pi;
			pr.ci = ci;
			t->pg_tried[pi]++;
			if (pair_fits(&pr)) {
				t->pg_fits[pi]++;
				t->comm_fits[ci]++;
			}
			g_array_append_val(pairs, pr);
		}
	}
}

/*
 * Links the pairs that fit where nothing else fits either side, and notes
 * once per group why the others are not linked.
 */
static void join_decide(struct join_ctx *c, GArray *pairs,
			const struct join_tally *t, guint npgs, guint ncomms)
{
	g_autofree bool *pg_noted = g_new0(bool, npgs + 1);
	g_autofree bool *comm_noted = g_new0(bool, ncomms + 1);

	for (guint i = 0; i < pairs->len; i++) {
		struct pair *pr = &g_array_index(pairs, struct pair, i);
		bool fits = pair_fits(pr);

		if (fits && t->pg_fits[pr->pi] == 1 &&
		    t->comm_fits[pr->ci] == 1 && pr->aligned >= 2) {
			pr->linked = true;
		} else if (fits && t->pg_fits[pr->pi] > 1) {
			g_autofree char *pl = hd_group_label(
				c->s, pr->pg, HD_GROUP_LABEL_LONG);

			if (!pg_noted[pr->pi])
				join_note(
					c,
					"%s: not joined with an NCCL comm: %u comms of the same ranks fit its op sequence",
					pl, t->pg_fits[pr->pi]);
			pg_noted[pr->pi] = true;
		} else if (fits && t->comm_fits[pr->ci] > 1) {
			g_autofree char *cl = hd_group_label(
				c->s, pr->comm, HD_GROUP_LABEL_LONG);

			if (!comm_noted[pr->ci])
				join_note(
					c,
					"%s: not joined with a process group: %u process groups of the same ranks fit its op sequence",
					cl, t->comm_fits[pr->ci]);
			comm_noted[pr->ci] = true;
		} else if (t->pg_tried[pr->pi] == 1) {
			/* The only comm of its ranks: say why it is not it. */
			note_unlinked(c, pr);
		}
	}
}

/* Records the linked pairs in the index; frees every pair's joins. */
static void join_apply(struct hd_index *ix, GArray *pairs)
{
	const struct hd_store *s = ix->store;

	for (guint i = 0; i < pairs->len; i++) {
		struct pair *pr = &g_array_index(pairs, struct pair, i);
		struct hd_join_link link = { pr->pg, pr->comm, pr->aligned,
					     pr->joins->len };

		if (pr->linked) {
			if (!ix->partner) {
				ix->partner = g_new(uint32_t, s->ops->len + 1);
				memset(ix->partner, 0xff,
				       (s->ops->len + 1) * sizeof(uint32_t));
			}
			for (guint k = 0; k < pr->joins->len; k++) {
				const struct op_join *j = &g_array_index(
					pr->joins, struct op_join, k);

				ix->partner[j->fr] = j->log;
			}
			g_array_append_val(ix->links, link);
		}
		g_array_unref(pr->joins);
	}
}

void hd_join_run(struct hd_index *ix, struct hd_analysis *a)
{
	struct join_ctx c = { ix, a, ix->store, 0 };
	g_autoptr(GArray) pgs =
		g_array_new(FALSE, FALSE, sizeof(struct pg_side));
	g_autoptr(GArray) comms = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	g_autoptr(GArray) pairs = g_array_new(FALSE, TRUE, sizeof(struct pair));
	g_autofree uint32_t *pg_fits = NULL;
	g_autofree uint32_t *pg_tried = NULL;
	g_autofree uint32_t *comm_fits = NULL;
	struct join_tally t;

	join_candidates(ix, pgs, comms);
	/* Dumps alone or logs alone: nothing to join. */
	if (pgs->len == 0 || comms->len == 0)
		return;
	for (guint i = 0; i < pgs->len; i++) {
		struct pg_side *p = &g_array_index(pgs, struct pg_side, i);

		pg_side_init(ix, p->group, p);
	}
	t.pg_fits = pg_fits = g_new0(uint32_t, pgs->len + 1);
	t.pg_tried = pg_tried = g_new0(uint32_t, pgs->len + 1);
	t.comm_fits = comm_fits = g_new0(uint32_t, comms->len + 1);
	join_try_pairs(ix, pgs, comms, pairs, &t);
	join_decide(&c, pairs, &t, pgs->len, comms->len);
	check_order(&c, pairs);
	join_apply(ix, pairs);
	if (c.notes > JOIN_MAX_NOTES)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"%u more notes about joining dumps with NCCL logs not listed",
				c.notes - JOIN_MAX_NOTES));
	for (guint i = 0; i < pgs->len; i++)
		pg_side_clear(&g_array_index(pgs, struct pg_side, i));
}

const struct hd_op *hd_join_partner(const struct hd_index *ix, uint32_t i)
{
	if (!ix->partner || i >= ix->store->ops->len ||
	    ix->partner[i] == UINT32_MAX)
		return NULL;
	return op_at(ix->store, ix->partner[i]);
}

const struct hd_op *hd_join_view(const struct hd_index *ix, uint32_t i,
				 struct hd_op *buf)
{
	const struct hd_op *op = op_at(ix->store, i);
	const struct hd_op *log = hd_join_partner(ix, i);
	struct hd_opdesc d;

	/* A line cut mid-record may end in half a root. */
	if (!log || (log->flags & HD_OPF_TRUNCATED))
		return op;
	d = *hd_op_desc(op);
	if (d.peer < 0 && hd_op_kind_is_rooted(log->kind) &&
	    hd_op_desc(log)->peer >= 0)
		d.peer = hd_op_desc(log)->peer;
	if (d.redop == HD_REDOP_NONE)
		d.redop = hd_op_desc(log)->redop;
	if (d.peer == hd_op_desc(op)->peer && d.redop == hd_op_desc(op)->redop)
		return op;
	*buf = *op;
	hd_op_set_desc(buf, hd_opdesc_intern(&d));
	return buf;
}

char *hd_join_describe(const struct hd_store *s, const struct hd_op *log)
{
	GString *d = g_string_new(hd_op_desc(log)->name
					  ? hd_op_desc(log)->name
					  : hd_op_kind_name(log->kind));

	if (hd_op_kind_is_rooted(log->kind) && hd_op_desc(log)->peer >= 0)
		g_string_append_printf(d, " root %d", hd_op_desc(log)->peer);
	if (hd_op_desc(log)->redop != HD_REDOP_NONE)
		g_string_append_printf(d, " op %s",
				       hd_redop_name(hd_op_desc(log)->redop));
	if (coll_count(log) >= 0)
		g_string_append_printf(d, " count %" G_GINT64_FORMAT,
				       coll_count(log));
	if (hd_op_desc(log)->dtype_name)
		g_string_append_printf(d, " %s", hd_op_desc(log)->dtype_name);
	else if (hd_op_desc(log)->dtype != HD_DTYPE_UNKNOWN)
		g_string_append_printf(d, " %s",
				       hd_dtype_name(hd_op_desc(log)->dtype));
	if (hd_op_op_count(s, log) >= 0)
		g_string_append_printf(d, " opCount 0x%" G_GINT64_MODIFIER "x",
				       hd_op_op_count(s, log));
	if (log->flags & HD_OPF_TRUNCATED)
		g_string_append(d, " (line cut short)");
	return g_string_free(d, FALSE);
}

static bool linked(const struct hd_index *ix, int64_t a, int64_t b)
{
	for (guint i = 0; i < ix->links->len; i++) {
		const struct hd_join_link *l =
			&g_array_index(ix->links, struct hd_join_link, i);

		if ((l->pg == a && l->comm == b) ||
		    (l->pg == b && l->comm == a))
			return true;
	}
	return false;
}

bool hd_join_same_finding(const struct hd_index *ix, const struct hd_verdict *v,
			  const struct hd_verdict *w)
{
	if (v->group < 0 || w->group < 0 || v->group == w->group ||
	    !linked(ix, v->group, w->group))
		return false;
	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		for (guint k = 0; k < w->evidence->len && e->source; k++) {
			const struct hd_evidence *f =
				g_ptr_array_index(w->evidence, k);

			if (f->source && strcmp(e->source, f->source) == 0)
				return true;
		}
	}
	return false;
}

bool hd_join_is_pg(const struct hd_index *ix, int64_t g)
{
	for (guint i = 0; i < ix->links->len; i++)
		if (g_array_index(ix->links, struct hd_join_link, i).pg == g)
			return true;
	return false;
}
