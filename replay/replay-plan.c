/*
 * Replay plans: the plan itself and its extraction from a verdict's group
 * and position.  Scaling and alignment (--fix) are in replay-fix.c,
 * sizes and validation against hard limits in replay-validate.c, the JSON
 * form in replay-json.c; the text form is a report
 * (src/report/hd-report-plan.c).
 */
#include "config.h"

#include "replay-plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-error.h"
#include "hd-json.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-banned.h"

static void rank_free(gpointer p)
{
	struct replay_rank *r = p;

	if (!r)
		return;
	g_array_unref(r->ops);
	g_free(r);
}

struct replay_plan *replay_plan_new(void)
{
	struct replay_plan *p = g_new0(struct replay_plan, 1);

	p->seq = -1;
	p->seq_kind = HD_SEQ_COLLECTIVE;
	p->window = REPLAY_DEFAULT_WINDOW;
	p->scale = 1.0;
	p->ranks = g_ptr_array_new_with_free_func(rank_free);
	return p;
}

void replay_plan_free(struct replay_plan *p)
{
	if (!p)
		return;
	g_free(p->verdict);
	g_free(p->group_id);
	g_free(p->group_name);
	g_ptr_array_unref(p->ranks);
	g_free(p);
}

struct replay_rank *replay_plan_add_rank(struct replay_plan *p, int global_rank)
{
	struct replay_rank *r = g_new0(struct replay_rank, 1);

	r->rank = (int)p->ranks->len;
	r->global_rank = global_rank;
	r->ops = g_array_new(FALSE, TRUE, sizeof(struct replay_op));
	g_ptr_array_add(p->ranks, r);
	return r;
}

bool replay_verdict_is_replayable(enum hd_verdict_kind kind)
{
	return hd_verdict_kind_info(kind)->replayable;
}

/*
 * The element count the NCCL call for this op takes, derived from what the
 * source recorded (per-rank in/out counts).
 */
static int64_t nccl_count(const struct hd_op *op, int nranks)
{
	int64_t in = hd_op_desc(op)->count_in, out = hd_op_desc(op)->count_out;

	switch ((enum hd_op_kind)op->kind) {
	case HD_OP_ALL_GATHER:
		if (in >= 0)
			return in;
		if (out >= 0 && nranks > 0 && out % nranks == 0)
			return out / nranks;
		return -1;
	case HD_OP_REDUCE_SCATTER:
		if (out >= 0)
			return out;
		if (in >= 0 && nranks > 0 && in % nranks == 0)
			return in / nranks;
		return -1;
	case HD_OP_RECV:
	case HD_OP_SCATTER:
		return out >= 0 ? out : in;
	default:
		return in >= 0 ? in : out;
	}
}

/* The seq kinds to try, most fitting first. */
static uint8_t pick_seq_kind(const struct hd_store *s, uint32_t gi, bool p2p)
{
	static const uint8_t coll_order[] = { HD_SEQ_COLLECTIVE, HD_SEQ_ORDINAL,
					      HD_SEQ_P2P };
	static const uint8_t p2p_order[] = { HD_SEQ_P2P, HD_SEQ_ORDINAL,
					     HD_SEQ_COLLECTIVE };
	const uint8_t *order = p2p ? p2p_order : coll_order;
	uint64_t n[3] = { 0, 0, 0 };

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->group == gi && op->seq_kind < 3 && op->seq >= 0)
			n[op->seq_kind]++;
	}
	for (size_t i = 0; i < 3; i++)
		if (n[order[i]] > 0)
			return order[i];
	return order[0];
}

/* Store ops of one rank, sorted by seq then store order. */
static gint cmp_op_ptr(gconstpointer a, gconstpointer b)
{
	const struct hd_op *x = *(const struct hd_op *const *)a;
	const struct hd_op *y = *(const struct hd_op *const *)b;

	if (x->seq != y->seq)
		return (x->seq > y->seq) - (x->seq < y->seq);
	return (x > y) - (x < y);
}

static bool same_call(const struct hd_op *a, const struct hd_op *b)
{
	return a->seq == b->seq && a->kind == b->kind &&
	       hd_op_desc(a)->count_in == hd_op_desc(b)->count_in &&
	       hd_op_desc(a)->count_out == hd_op_desc(b)->count_out &&
	       hd_op_desc(a)->dtype == hd_op_desc(b)->dtype &&
	       hd_op_desc(a)->redop == hd_op_desc(b)->redop &&
	       hd_op_desc(a)->peer == hd_op_desc(b)->peer;
}

/*
 * Group rank -> global rank for the group: its member table when it has
 * one, else the distinct global ranks seen in its ops, in order.
 */
static GArray *group_members(const struct hd_store *s, uint32_t gi,
			     GError **error)
{
	const struct hd_group *g = hd_store_group_at(s, gi);
	GArray *m = g_array_new(FALSE, FALSE, sizeof(int));
	int n = g->members ? (int)g->members->len : 0;

	if (g->nranks > n)
		n = g->nranks;
	if (n > REPLAY_MAX_RANKS) {
		g_set_error(
			error, HD_ERROR, HD_ERROR_TOO_BIG,
			"group '%s' has %d ranks, more than the %d a replay supports",
			g->id, n, REPLAY_MAX_RANKS);
		g_array_unref(m);
		return NULL;
	}
	if (n > 0) {
		for (int i = 0; i < n; i++) {
			int gr = hd_group_global_rank(g, i);

			g_array_append_val(m, gr);
		}
		return m;
	}
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		bool seen = false;

		if (op->group != gi || hd_op_rank(op) < 0)
			continue;
		for (guint j = 0; j < m->len && !seen; j++)
			seen = g_array_index(m, int, j) == hd_op_rank(op);
		if (seen)
			continue;
		if (m->len >= REPLAY_MAX_RANKS) {
			g_set_error(
				error, HD_ERROR, HD_ERROR_TOO_BIG,
				"group '%s' has more than the %d ranks a replay supports",
				g->id, REPLAY_MAX_RANKS);
			g_array_unref(m);
			return NULL;
		}
		{
			int r = hd_op_rank(op);

			g_array_append_val(m, r);
		}
	}
	g_array_sort(m, hd_compare_int);
	return m;
}

static int member_index(const GArray *m, int global_rank)
{
	if (global_rank < 0)
		return -1;
	for (guint i = 0; i < m->len; i++)
		if (g_array_index(m, int, i) == global_rank)
			return (int)i;
	return -1;
}

/*
 * Builds the plan of group gi: the last window positions below div, plus
 * (when div >= 0) the ops at div, or for p2p at and after it.  div < 0
 * means no divergence (healthy plan).
 */
/* The lowest of the last `window` distinct positions below limit. */
static int64_t window_start(const struct hd_store *s, uint32_t gi, uint8_t sk,
			    int64_t limit, int window)
{
	g_autoptr(GArray) positions =
		g_array_new(FALSE, FALSE, sizeof(int64_t));
	int64_t lo = limit;

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->group == gi && op->seq_kind == sk && op->seq >= 0 &&
		    op->seq < limit) {
			int64_t seq = op->seq;

			g_array_append_val(positions, seq);
		}
	}
	g_array_sort(positions, hd_compare_i64);
	for (guint i = positions->len, distinct = 0;
	     i > 0 && distinct < (guint)window; i--) {
		int64_t v = g_array_index(positions, int64_t, i - 1);

		if (v != lo) {
			lo = v;
			distinct++;
		}
	}
	return lo;
}

/*
 * The group's ops in [lo, limit) or at the divergence div (for p2p, at
 * and after it), one array of struct hd_op * per member, in store order.
 */
static GPtrArray *ops_by_member(const struct hd_store *s, uint32_t gi,
				uint8_t sk, const GArray *members, int64_t lo,
				int64_t limit, int64_t div, bool p2p)
{
	GPtrArray *per_rank = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_ptr_array_unref);

	for (guint r = 0; r < members->len; r++)
		g_ptr_array_add(per_rank, g_ptr_array_new());
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		bool in_window = op->seq >= lo && op->seq < limit;
		bool at_div =
			div >= 0 && (p2p ? op->seq >= div : op->seq == div);
		int r;

		if (op->group != gi || op->seq_kind != sk || op->seq < 0)
			continue;
		if (!in_window && !at_div)
			continue;
		r = member_index(members, hd_op_rank(op));
		if (r < 0)
			continue;
		g_ptr_array_add(g_ptr_array_index(per_rank, r), hd_unconst(op));
	}
	return per_rank;
}

/* The NCCL call for op, with its fields clamped to what plans hold. */
static struct replay_op replay_op_of(const struct hd_op *op, int nranks,
				     int64_t div)
{
	struct replay_op ro = { 0 };

	ro.divergent = div >= 0 && op->seq >= div;
	ro.kind = op->kind < HD_OP_KIND_COUNT ? op->kind : HD_OP_UNKNOWN;
	ro.count = nccl_count(op, nranks);
	ro.dtype = hd_op_desc(op)->dtype <= HD_DTYPE_INT16
			   ? hd_op_desc(op)->dtype
			   : HD_DTYPE_OTHER;
	ro.redop = hd_op_desc(op)->redop <= HD_REDOP_PREMULSUM
			   ? hd_op_desc(op)->redop
			   : HD_REDOP_NONE;
	ro.peer = hd_op_desc(op)->peer >= 0 && hd_op_desc(op)->peer < nranks
			  ? hd_op_desc(op)->peer
			  : -1;
	ro.seq = op->seq;
	ro.state = (enum hd_op_state)op->state;
	return ro;
}

/*
 * Appends member rr's ops (sorted here) to its plan: one call per call
 * seen by several sources, at most REPLAY_MAX_WINDOW past the divergence,
 * adjacent coalesced members numbered as one ncclGroup from
 * *next_coalesce.
 */
static bool add_member_ops(struct replay_rank *rr, GPtrArray *ops, int nranks,
			   uint8_t sk, int64_t div, int *next_coalesce,
			   GError **error)
{
	const struct hd_op *prev = NULL;
	int cur_coalesce = -1;
	guint ndiv = 0;

	g_ptr_array_sort(ops, cmp_op_ptr);
	for (guint i = 0; i < ops->len; i++) {
		const struct hd_op *op = g_ptr_array_index(ops, i);
		struct replay_op ro;
		bool member = op->flags & HD_OPF_COALESCED_MEMBER;

		/* The same call seen by two sources is one call. */
		if (prev && same_call(prev, op))
			continue;
		ro = replay_op_of(op, nranks, div);
		/* p2p at and after the divergence: a bounded tail */
		if (ro.divergent && ++ndiv > REPLAY_MAX_WINDOW)
			break;
		if (rr->ops->len >= REPLAY_MAX_OPS_PER_RANK) {
			g_set_error(
				error, HD_ERROR, HD_ERROR_TOO_BIG,
				"rank %d has more than %d ops in the window",
				rr->rank, REPLAY_MAX_OPS_PER_RANK);
			return false;
		}
		/*
		 * Adjacent coalesced members form one ncclGroup; with
		 * collective positions a batch shares its position.
		 */
		if (!member) {
			cur_coalesce = -1;
		} else if (cur_coalesce < 0 || !prev ||
			   !(prev->flags & HD_OPF_COALESCED_MEMBER) ||
			   (sk == HD_SEQ_COLLECTIVE && prev->seq != op->seq)) {
			cur_coalesce = (*next_coalesce)++;
		}
		ro.coalesce = cur_coalesce;
		g_array_append_val(rr->ops, ro);
		prev = op;
	}
	return true;
}

static struct replay_plan *build(const struct hd_store *s, uint32_t gi,
				 int64_t div, int window, bool p2p,
				 GError **error)
{
	const struct hd_group *g = hd_store_group_at(s, gi);
	g_autoptr(replay_plan) p = NULL;
	g_autoptr(GArray) members = NULL;
	g_autoptr(GPtrArray) per_rank = NULL;
	int64_t lo, limit = div >= 0 ? div : INT64_MAX;
	int nranks, next_coalesce = 0;
	uint8_t sk;

	if (window < 0 || window > REPLAY_MAX_WINDOW) {
		g_set_error(error, HD_ERROR, HD_ERROR_USAGE,
			    "window %d is out of range (0 to %d)", window,
			    REPLAY_MAX_WINDOW);
		return NULL;
	}
	members = group_members(s, gi, error);
	if (!members)
		return NULL;
	nranks = (int)members->len;
	if (nranks == 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_UNSUPPORTED,
			    "group '%s' has no known members", g->id);
		return NULL;
	}
	sk = pick_seq_kind(s, gi, p2p);
	lo = window_start(s, gi, sk, limit, window);
	per_rank = ops_by_member(s, gi, sk, members, lo, limit, div, p2p);

	p = replay_plan_new();
	p->group_id = g_strdup(g->id);
	p->group_name = g_strdup(g->name);
	p->seq = div;
	p->seq_kind = sk;
	p->window = window;
	for (int r = 0; r < nranks; r++) {
		struct replay_rank *rr =
			replay_plan_add_rank(p, g_array_index(members, int, r));

		if (!add_member_ops(rr, g_ptr_array_index(per_rank, r), nranks,
				    sk, div, &next_coalesce, error))
			return NULL;
	}
	return g_steal_pointer(&p);
}

/*
 * For a verdict with a group but no position (a p2p deadlock cycle): the
 * first position some rank did not complete (for p2p verdicts, the first
 * such send/recv: logs without completion states leave every op
 * incomplete), or -1.
 */
static int64_t first_incomplete(const struct hd_store *s, uint32_t gi, bool p2p)
{
	uint8_t sk = pick_seq_kind(s, gi, p2p);
	int64_t first = -1;

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->group == gi && op->seq_kind == sk && op->seq >= 0 &&
		    op->state != HD_STATE_COMPLETED &&
		    (!p2p || hd_op_kind_is_p2p(op->kind)) &&
		    (first < 0 || op->seq < first))
			first = op->seq;
	}
	return first;
}

struct replay_plan *replay_plan_from_verdict(const struct hd_store *s,
					     const struct hd_verdict *v,
					     int window, GError **error)
{
	struct replay_plan *p;
	int64_t div = -1;

	if (!replay_verdict_is_replayable(v->kind)) {
		g_set_error(
			error, HD_ERROR, HD_ERROR_UNSUPPORTED,
			"no replayable divergence: a %s verdict names no collective that ranks disagree on (use --healthy to replay the last ops)",
			hd_verdict_kind_name(v->kind));
		return NULL;
	}
	if (v->group >= 0 && v->group < (int64_t)s->groups->len)
		div = v->seq >= 0
			      ? v->seq
			      : first_incomplete(s, (uint32_t)v->group,
						 v->kind == HD_V_P2P_UNMATCHED);
	if (div < 0) {
		g_set_error(
			error, HD_ERROR, HD_ERROR_UNSUPPORTED,
			"no replayable divergence: the %s verdict names no group and position",
			hd_verdict_kind_name(v->kind));
		return NULL;
	}
	p = build(s, (uint32_t)v->group, div, window,
		  v->kind == HD_V_P2P_UNMATCHED, error);
	if (p)
		p->verdict = g_strdup(hd_verdict_kind_name(v->kind));
	return p;
}

struct replay_plan *replay_plan_healthy(const struct hd_store *s, int window,
					GError **error)
{
	g_autofree uint64_t *nops = g_new0(uint64_t, s->groups->len + 1);
	int64_t best = -1;
	int best_members = -1;
	uint64_t best_ops = 0;

	/* One pass over the ops: stores can hold millions. */
	for (guint i = 0; i < s->ops->len; i++) {
		uint32_t g = g_array_index(s->ops, struct hd_op, i).group;

		if (g < s->groups->len)
			nops[g]++;
	}
	for (guint gi = 0; gi < s->groups->len; gi++) {
		const struct hd_group *g = hd_store_group_at(s, gi);
		int n = g->members ? (int)g->members->len : 0;

		if (g->nranks > n)
			n = g->nranks;
		if (nops[gi] == 0)
			continue;
		if (n > best_members ||
		    (n == best_members && nops[gi] > best_ops)) {
			best = gi;
			best_members = n;
			best_ops = nops[gi];
		}
	}
	if (best < 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_UNSUPPORTED,
			    "no group with recorded ops to replay");
		return NULL;
	}
	return build(s, (uint32_t)best, -1, window, false, error);
}
