/*
 * Replay plans: extraction from a verdict's group and position, scaling,
 * alignment (--fix), validation against hard limits, and the JSON and text
 * forms.  The format is described in docs/replay.md; every field read from
 * a plan file is checked here before the runner sees it.
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

#define PLAN_FORMAT "hangdoc-replay-plan"

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

static struct replay_rank *plan_rank(const struct replay_plan *p, guint i)
{
	g_assert(i < p->ranks->len);
	return g_ptr_array_index(p->ranks, i);
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
	int64_t in = op->d->count_in, out = op->d->count_out;

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

static gint cmp_i64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
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
	       a->d->count_in == b->d->count_in &&
	       a->d->count_out == b->d->count_out &&
	       a->d->dtype == b->d->dtype && a->d->redop == b->d->redop &&
	       a->d->peer == b->d->peer;
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

		if (op->group != gi || op->rank < 0)
			continue;
		for (guint j = 0; j < m->len && !seen; j++)
			seen = g_array_index(m, int, j) == op->rank;
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
		g_array_append_val(m, op->rank);
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
		    op->seq < limit)
			g_array_append_val(positions, op->seq);
	}
	g_array_sort(positions, cmp_i64);
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
		r = member_index(members, op->rank);
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
	ro.dtype =
		op->d->dtype <= HD_DTYPE_INT16 ? op->d->dtype : HD_DTYPE_OTHER;
	ro.redop = op->d->redop <= HD_REDOP_PREMULSUM ? op->d->redop
						      : HD_REDOP_NONE;
	ro.peer = op->d->peer >= 0 && op->d->peer < nranks ? op->d->peer : -1;
	ro.seq = op->seq;
	ro.state =
		op->state <= HD_STATE_COMPLETED ? op->state : HD_STATE_UNKNOWN;
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

bool replay_plan_scale(struct replay_plan *p, double factor, GError **error)
{
	g_autoptr(GArray) counts = NULL;
	g_autoptr(GArray) mapped = NULL;

	if (!(factor > 0.0 && factor <= 1.0)) {
		g_set_error(error, HD_ERROR, HD_ERROR_USAGE,
			    "scale must be greater than 0 and at most 1");
		return false;
	}
	counts = g_array_new(FALSE, FALSE, sizeof(int64_t));
	for (guint r = 0; r < p->ranks->len; r++) {
		GArray *ops = plan_rank(p, r)->ops;

		for (guint i = 0; i < ops->len; i++) {
			int64_t c =
				g_array_index(ops, struct replay_op, i).count;

			if (c > 0)
				g_array_append_val(counts, c);
		}
	}
	g_array_sort(counts, cmp_i64);
	mapped = g_array_new(FALSE, FALSE, sizeof(int64_t));
	for (guint i = 0, out = 0; i < counts->len; i++) {
		int64_t c = g_array_index(counts, int64_t, i);
		double x = (double)c * factor;
		int64_t m;

		if (out > 0 && g_array_index(counts, int64_t, out - 1) == c)
			continue;
		/* Far above any limit; only order matters up there. */
		if (x > 4e18)
			x = 4e18;
		m = (int64_t)llround(x);
		if (m < 1)
			m = 1;
		if (out > 0 && m <= g_array_index(mapped, int64_t, out - 1))
			m = g_array_index(mapped, int64_t, out - 1) + 1;
		g_array_index(counts, int64_t, out) = c;
		g_array_append_val(mapped, m);
		out++;
	}
	g_array_set_size(counts, mapped->len);
	for (guint r = 0; r < p->ranks->len; r++) {
		GArray *ops = plan_rank(p, r)->ops;

		for (guint i = 0; i < ops->len; i++) {
			struct replay_op *o =
				&g_array_index(ops, struct replay_op, i);
			guint a = 0, b = counts->len;

			if (o->count <= 0)
				continue;
			while (a < b) {
				guint mid = a + (b - a) / 2;

				if (g_array_index(counts, int64_t, mid) <
				    o->count)
					a = mid + 1;
				else
					b = mid;
			}
			o->count = g_array_index(mapped, int64_t, a);
		}
	}
	p->scale *= factor;
	return true;
}

static bool same_signature(const struct replay_op *a, const struct replay_op *b)
{
	return a->kind == b->kind && a->count == b->count &&
	       a->dtype == b->dtype && a->redop == b->redop &&
	       a->peer == b->peer;
}

/* Divergent collective ops of rank r (indices into its ops). */
static GArray *divergent_collectives(const struct replay_rank *r)
{
	GArray *idx = g_array_new(FALSE, FALSE, sizeof(guint));

	for (guint i = 0; i < r->ops->len; i++) {
		const struct replay_op *o =
			&g_array_index(r->ops, struct replay_op, i);

		if (o->divergent && !hd_op_kind_is_p2p(o->kind))
			g_array_append_val(idx, i);
	}
	return idx;
}

static bool same_divergence(const struct replay_rank *a, const GArray *ia,
			    const struct replay_rank *b, const GArray *ib)
{
	if (ia->len != ib->len)
		return false;
	for (guint i = 0; i < ia->len; i++)
		if (!same_signature(
			    &g_array_index(a->ops, struct replay_op,
					   g_array_index(ia, guint, i)),
			    &g_array_index(b->ops, struct replay_op,
					   g_array_index(ib, guint, i))))
			return false;
	return true;
}

static void remove_marked(GArray *ops, const bool *drop)
{
	guint out = 0;

	for (guint i = 0; i < ops->len; i++)
		if (!drop[i])
			g_array_index(ops, struct replay_op, out++) =
				g_array_index(ops, struct replay_op, i);
	g_array_set_size(ops, out);
}

/* Aligns divergent collectives: drop where some lack them, else majority. */
static void fix_collectives(struct replay_plan *p)
{
	guint n = p->ranks->len;
	g_autoptr(GPtrArray) div =
		g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
	bool some_lack = false;
	guint best = 0, best_votes = 0;

	for (guint r = 0; r < n; r++) {
		GArray *idx = divergent_collectives(plan_rank(p, r));

		some_lack |= idx->len == 0;
		g_ptr_array_add(div, idx);
	}
	for (guint r = 0; r < n; r++) {
		guint votes = 0;

		for (guint q = 0; q < n; q++)
			votes += same_divergence(
				plan_rank(p, r), g_ptr_array_index(div, r),
				plan_rank(p, q), g_ptr_array_index(div, q));
		if (votes > best_votes) {
			best = r;
			best_votes = votes;
		}
	}
	for (guint r = 0; r < n; r++) {
		struct replay_rank *rr = plan_rank(p, r);
		GArray *idx = g_ptr_array_index(div, r);
		const struct replay_rank *maj = plan_rank(p, best);
		const GArray *midx = g_ptr_array_index(div, best);
		g_autofree bool *drop = g_new0(bool, rr->ops->len + 1);

		for (guint i = 0; i < idx->len; i++) {
			guint at = g_array_index(idx, guint, i);
			struct replay_op *o =
				&g_array_index(rr->ops, struct replay_op, at);

			if (some_lack || i >= midx->len) {
				drop[at] = true;
				continue;
			}
			/* Take the majority's call, keep this rank's place. */
			const struct replay_op *m =
				&g_array_index(maj->ops, struct replay_op,
					       g_array_index(midx, guint, i));
			o->kind = m->kind;
			o->count = m->count;
			o->dtype = m->dtype;
			o->redop = m->redop;
			o->peer = m->peer;
		}
		if (!some_lack)
			for (guint i = idx->len; i < midx->len; i++) {
				struct replay_op o = g_array_index(
					maj->ops, struct replay_op,
					g_array_index(midx, guint, i));

				g_array_append_val(rr->ops, o);
			}
		remove_marked(rr->ops, drop);
	}
}

/* Pairs sends with recvs per (src, dst) in order; drops the rest. */
static void fix_p2p(struct replay_plan *p)
{
	guint n = p->ranks->len;

	for (guint a = 0; a < n; a++) {
		struct replay_rank *ra = plan_rank(p, a);
		g_autofree bool *drop_a = g_new0(bool, ra->ops->len + 1);

		for (guint i = 0; i < ra->ops->len; i++) {
			struct replay_op *o =
				&g_array_index(ra->ops, struct replay_op, i);

			if (hd_op_kind_is_p2p(o->kind) &&
			    (o->peer < 0 || (guint)o->peer >= n ||
			     (guint)o->peer == a))
				drop_a[i] = true;
		}
		remove_marked(ra->ops, drop_a);
	}
	for (guint a = 0; a < n; a++)
		for (guint b = 0; b < n; b++) {
			struct replay_rank *ra = plan_rank(p, a);
			struct replay_rank *rb = plan_rank(p, b);
			g_autofree bool *drop_a = NULL;
			g_autofree bool *drop_b = NULL;
			guint i = 0, j = 0;

			if (a == b)
				continue;
			drop_a = g_new0(bool, ra->ops->len + 1);
			drop_b = g_new0(bool, rb->ops->len + 1);
			for (;;) {
				struct replay_op *s = NULL, *r = NULL;

				for (; i < ra->ops->len; i++) {
					s = &g_array_index(ra->ops,
							   struct replay_op, i);
					if (s->kind == HD_OP_SEND &&
					    s->peer == (int)b)
						break;
				}
				for (; j < rb->ops->len; j++) {
					r = &g_array_index(rb->ops,
							   struct replay_op, j);
					if (r->kind == HD_OP_RECV &&
					    r->peer == (int)a)
						break;
				}
				if (i >= ra->ops->len || j >= rb->ops->len)
					break;
				r->count = s->count;
				r->dtype = s->dtype;
				i++;
				j++;
			}
			for (; i < ra->ops->len; i++) {
				struct replay_op *s = &g_array_index(
					ra->ops, struct replay_op, i);

				drop_a[i] = s->kind == HD_OP_SEND &&
					    s->peer == (int)b;
			}
			for (; j < rb->ops->len; j++) {
				struct replay_op *r = &g_array_index(
					rb->ops, struct replay_op, j);

				drop_b[j] = r->kind == HD_OP_RECV &&
					    r->peer == (int)a;
			}
			remove_marked(ra->ops, drop_a);
			remove_marked(rb->ops, drop_b);
		}
}

void replay_plan_fix(struct replay_plan *p)
{
	fix_collectives(p);
	fix_p2p(p);
	p->fixed = true;
}

size_t replay_dtype_size(enum hd_dtype t)
{
	switch (t) {
	case HD_DTYPE_INT8:
	case HD_DTYPE_UINT8:
	case HD_DTYPE_FP8_E4M3:
	case HD_DTYPE_FP8_E5M2:
	case HD_DTYPE_BOOL:
		return 1;
	case HD_DTYPE_FLOAT16:
	case HD_DTYPE_BFLOAT16:
	case HD_DTYPE_INT16:
		return 2;
	case HD_DTYPE_INT32:
	case HD_DTYPE_UINT32:
	case HD_DTYPE_FLOAT32:
		return 4;
	case HD_DTYPE_INT64:
	case HD_DTYPE_UINT64:
	case HD_DTYPE_FLOAT64:
		return 8;
	case HD_DTYPE_UNKNOWN:
	case HD_DTYPE_OTHER:
		break;
	}
	return 0;
}

void replay_op_elems(const struct replay_op *o, int nranks, int64_t *send,
		     int64_t *recv)
{
	int64_t c = o->count > 0 ? o->count : 1;

	*send = c;
	*recv = c;
	switch (o->kind) {
	case HD_OP_ALL_GATHER:
	case HD_OP_GATHER:
		*recv = c * nranks;
		break;
	case HD_OP_REDUCE_SCATTER:
	case HD_OP_SCATTER:
		*send = c * nranks;
		break;
	case HD_OP_SEND:
		*recv = 0;
		break;
	case HD_OP_RECV:
		*send = 0;
		break;
	default:
		break;
	}
}

int64_t replay_plan_rank_bytes(const struct replay_plan *p, int rank)
{
	const struct replay_rank *r;
	int64_t max_send = 0, max_recv = 0;

	if (rank < 0 || (guint)rank >= p->ranks->len)
		return 0;
	r = plan_rank(p, (guint)rank);
	for (guint i = 0; i < r->ops->len; i++) {
		const struct replay_op *o =
			&g_array_index(r->ops, struct replay_op, i);
		int64_t es = (int64_t)replay_dtype_size(o->dtype);
		int64_t s, v;

		/* Unknown widths are counted as the widest. */
		if (es == 0)
			es = 8;
		replay_op_elems(o, (int)p->ranks->len, &s, &v);
		if (s * es > max_send)
			max_send = s * es;
		if (v * es > max_recv)
			max_recv = v * es;
	}
	return max_send + max_recv;
}

static bool validate_op(const struct replay_op *o, int rank, guint i,
			int nranks, GError **error)
{
	const char *why = NULL;

	if ((unsigned)o->kind >= HD_OP_KIND_COUNT)
		why = "unknown kind";
	else if (o->count < -1)
		why = "negative count";
	else if (o->count > REPLAY_MAX_OP_ELEMS)
		why = "count above the limit (try --scale)";
	else if ((unsigned)o->dtype > HD_DTYPE_INT16)
		why = "unknown dtype";
	else if ((unsigned)o->redop > HD_REDOP_PREMULSUM)
		why = "unknown redop";
	else if (o->peer < -1 || o->peer >= nranks)
		why = "peer or root out of range";
	else if (hd_op_kind_is_p2p(o->kind) && (o->peer < 0 || o->peer == rank))
		why = "send/recv without a peer other than itself";
	else if (o->coalesce < -1)
		why = "bad coalesce id";
	else if (o->seq < -1)
		why = "bad seq";
	else if ((unsigned)o->state > HD_STATE_COMPLETED)
		why = "unknown state";
	if (!why)
		return true;
	g_set_error(error, HD_ERROR, HD_ERROR_FORMAT, "rank %d op %u: %s", rank,
		    i, why);
	return false;
}

bool replay_plan_validate(const struct replay_plan *p, GError **error)
{
	int64_t total = 0;
	guint n = p->ranks->len;

	if (n == 0 || n > REPLAY_MAX_RANKS) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "a plan needs 1 to %d ranks, not %u",
			    REPLAY_MAX_RANKS, n);
		return false;
	}
	if (p->window < 0 || p->window > REPLAY_MAX_WINDOW ||
	    !(p->scale > 0.0 && p->scale <= 1.0) || p->seq < -1 ||
	    p->seq_kind > HD_SEQ_ORDINAL) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "window, scale, seq or seq_kind out of range");
		return false;
	}
	for (guint r = 0; r < n; r++) {
		const struct replay_rank *rr = plan_rank(p, r);

		if (rr->rank != (int)r || rr->global_rank < -1) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "rank %u: bad rank numbers", r);
			return false;
		}
		if (rr->ops->len > REPLAY_MAX_OPS_PER_RANK) {
			g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    "rank %u: more than %d ops", r,
				    REPLAY_MAX_OPS_PER_RANK);
			return false;
		}
		for (guint i = 0; i < rr->ops->len; i++) {
			const struct replay_op *o =
				&g_array_index(rr->ops, struct replay_op, i);

			if (!validate_op(o, (int)r, i, (int)n, error))
				return false;
			total += o->count > 0 ? o->count : 1;
		}
		if (total > REPLAY_MAX_TOTAL_ELEMS) {
			g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    "the plan moves more than %" G_GINT64_FORMAT
				    " elements in all (try --scale)",
				    REPLAY_MAX_TOTAL_ELEMS);
			return false;
		}
		if (replay_plan_rank_bytes(p, (int)r) > REPLAY_MAX_RANK_BYTES) {
			g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    "rank %u needs more than %" G_GINT64_FORMAT
				    " bytes of device memory (try --scale)",
				    r, REPLAY_MAX_RANK_BYTES);
			return false;
		}
	}
	return true;
}

/* JSON. */

static const char *const seq_kind_names[] = {
	[HD_SEQ_COLLECTIVE] = "collective",
	[HD_SEQ_P2P] = "p2p",
	[HD_SEQ_ORDINAL] = "ordinal",
};

static json_t *op_to_json(const struct replay_op *o)
{
	json_t *j = json_object();

	json_object_set_new(j, "kind", json_string(hd_op_kind_name(o->kind)));
	json_object_set_new(j, "count", hd_json_nonneg_or_null(o->count));
	json_object_set_new(j, "dtype", json_string(hd_dtype_name(o->dtype)));
	json_object_set_new(j, "redop", json_string(hd_redop_name(o->redop)));
	json_object_set_new(j, "peer", hd_json_nonneg_or_null(o->peer));
	json_object_set_new(j, "coalesce", hd_json_nonneg_or_null(o->coalesce));
	json_object_set_new(j, "seq", hd_json_nonneg_or_null(o->seq));
	json_object_set_new(j, "state",
			    json_string(hd_op_state_name(o->state)));
	json_object_set_new(j, "divergent", json_boolean(o->divergent));
	return j;
}

json_t *replay_plan_build_json(const struct replay_plan *p)
{
	json_t *root = json_object();
	json_t *ranks = json_array();
	json_t *group = json_object();

	json_object_set_new(root, "format", json_string(PLAN_FORMAT));
	json_object_set_new(root, "version", json_integer(REPLAY_PLAN_VERSION));
	json_object_set_new(root, "verdict", hd_json_str_or_null(p->verdict));
	json_object_set_new(group, "id", hd_json_str_or_null(p->group_id));
	json_object_set_new(group, "name", hd_json_str_or_null(p->group_name));
	json_object_set_new(group, "nranks", json_integer(p->ranks->len));
	json_object_set_new(root, "group", group);
	json_object_set_new(root, "seq", hd_json_nonneg_or_null(p->seq));
	json_object_set_new(
		root, "seq_kind",
		json_string(seq_kind_names[p->seq_kind <= HD_SEQ_ORDINAL
						   ? p->seq_kind
						   : 0]));
	json_object_set_new(root, "window", json_integer(p->window));
	json_object_set_new(root, "scale", json_real(p->scale));
	json_object_set_new(root, "fixed", json_boolean(p->fixed));
	for (guint r = 0; r < p->ranks->len; r++) {
		const struct replay_rank *rr = plan_rank(p, r);
		json_t *jr = json_object();
		json_t *ops = json_array();

		json_object_set_new(jr, "rank", json_integer(rr->rank));
		json_object_set_new(jr, "global_rank",
				    hd_json_nonneg_or_null(rr->global_rank));
		for (guint i = 0; i < rr->ops->len; i++)
			json_array_append_new(
				ops, op_to_json(&g_array_index(
					     rr->ops, struct replay_op, i)));
		json_object_set_new(jr, "ops", ops);
		json_array_append_new(ranks, jr);
	}
	json_object_set_new(root, "ranks", ranks);
	return root;
}

char *replay_plan_to_json(const struct replay_plan *p)
{
	g_autoptr(json_t) root = replay_plan_build_json(p);
	char *text, *out;

	text = hd_json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	out = g_strconcat(text, "\n", NULL);
	g_free(text);
	return out;
}

/* Readers: each sets error naming the field. */

static bool bad_field(GError **error, const char *where, const char *field,
		      const char *what)
{
	g_set_error(error, HD_ERROR, HD_ERROR_FORMAT, "%s: '%s' %s", where,
		    field, what);
	return false;
}

/* An optional integer in [lo, hi]; null or absent gives dflt. */
static bool get_int(json_t *obj, const char *where, const char *key, int64_t lo,
		    int64_t hi, int64_t dflt, bool required, int64_t *out,
		    GError **error)
{
	json_t *v = json_object_get(obj, key);

	*out = dflt;
	if (!v)
		return required ? bad_field(error, where, key, "is missing")
				: true;
	if (json_is_null(v) && !required)
		return true;
	if (!json_is_integer(v))
		return bad_field(error, where, key, "must be an integer");
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return bad_field(error, where, key, "is out of range");
	return true;
}

/* A string looked up in names[0..n); absent gives dflt. */
static bool get_enum(json_t *obj, const char *where, const char *key,
		     const char *(*name_of)(int), int n, int dflt,
		     bool required, int *out, GError **error)
{
	json_t *v = json_object_get(obj, key);
	const char *s;

	*out = dflt;
	if (!v)
		return required ? bad_field(error, where, key, "is missing")
				: true;
	if (!json_is_string(v))
		return bad_field(error, where, key, "must be a string");
	s = json_string_value(v);
	for (int i = 0; i < n; i++)
		if (strcmp(name_of(i), s) == 0) {
			*out = i;
			return true;
		}
	return bad_field(error, where, key, "has an unknown value");
}

static bool get_bool(json_t *obj, const char *where, const char *key, bool *out,
		     GError **error)
{
	json_t *v = json_object_get(obj, key);

	*out = false;
	if (!v)
		return true;
	if (!json_is_boolean(v))
		return bad_field(error, where, key, "must be true or false");
	*out = json_is_true(v);
	return true;
}

static bool get_str(json_t *obj, const char *where, const char *key, char **out,
		    GError **error)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return true;
	if (!json_is_string(v))
		return bad_field(error, where, key, "must be a string");
	if (json_string_length(v) > 4096)
		return bad_field(error, where, key, "is too long");
	*out = g_strdup(json_string_value(v));
	return true;
}

/* Rejects keys outside allowed: a typo must not silently default. */
static bool only_keys(json_t *obj, const char *where,
		      const char *const *allowed, GError **error)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		bool ok = false;

		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = strcmp(allowed[i], key) == 0;
		if (!ok)
			return bad_field(error, where, key,
					 "is not a known field");
	}
	return true;
}

static const char *kind_name_i(int i)
{
	return hd_op_kind_name((enum hd_op_kind)i);
}

static const char *dtype_name_i(int i)
{
	return hd_dtype_name((enum hd_dtype)i);
}

static const char *redop_name_i(int i)
{
	return hd_redop_name((enum hd_redop)i);
}

static const char *state_name_i(int i)
{
	return hd_op_state_name((enum hd_op_state)i);
}

static const char *seq_kind_name_i(int i)
{
	return seq_kind_names[i];
}

static bool op_from_json(json_t *j, const char *where, int nranks,
			 struct replay_op *o, GError **error)
{
	static const char *const keys[] = { "kind",  "count", "dtype",
					    "redop", "peer",  "coalesce",
					    "seq",   "state", "divergent",
					    NULL };
	int kind, dtype, redop, state;
	int64_t count, peer, coalesce, seq;

	if (!json_is_object(j)) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "%s: an op must be an object", where);
		return false;
	}
	if (!only_keys(j, where, keys, error) ||
	    !get_enum(j, where, "kind", kind_name_i, HD_OP_KIND_COUNT, 0, true,
		      &kind, error) ||
	    !get_int(j, where, "count", -1, REPLAY_MAX_OP_ELEMS, -1, true,
		     &count, error) ||
	    !get_enum(j, where, "dtype", dtype_name_i, HD_DTYPE_INT16 + 1, 0,
		      true, &dtype, error) ||
	    !get_enum(j, where, "redop", redop_name_i, HD_REDOP_PREMULSUM + 1,
		      HD_REDOP_NONE, false, &redop, error) ||
	    !get_int(j, where, "peer", 0, nranks - 1, -1, false, &peer,
		     error) ||
	    !get_int(j, where, "coalesce", 0, INT32_MAX, -1, false, &coalesce,
		     error) ||
	    !get_int(j, where, "seq", 0, INT64_MAX, -1, false, &seq, error) ||
	    !get_enum(j, where, "state", state_name_i, HD_STATE_COMPLETED + 1,
		      HD_STATE_UNKNOWN, false, &state, error) ||
	    !get_bool(j, where, "divergent", &o->divergent, error))
		return false;
	o->kind = kind;
	o->count = count;
	o->dtype = dtype;
	o->redop = redop;
	o->peer = (int)peer;
	o->coalesce = (int)coalesce;
	o->seq = seq;
	o->state = state;
	return true;
}

/* Parses a plan file's bytes into its root object.  (transfer full) */
static json_t *plan_root(const char *text, size_t len, GError **error)
{
	json_error_t jerr;
	json_t *root;

	if (len > REPLAY_MAX_PLAN_BYTES) {
		g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
			    "plan is larger than %u bytes",
			    REPLAY_MAX_PLAN_BYTES);
		return NULL;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "not a JSON plan: line %d: %s", jerr.line,
			    jerr.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "a plan must be a JSON object");
		return NULL;
	}
	return root;
}

/* The plan's own fields: format, version, verdict, position, scale. */
static bool plan_fields_from_json(json_t *root, struct replay_plan *p,
				  GError **error)
{
	static const char *const keys[] = { "format", "version", "verdict",
					    "group",  "seq",	 "seq_kind",
					    "window", "scale",	 "fixed",
					    "ranks",  NULL };
	json_t *v;
	int64_t iv;
	int seq_kind;

	if (!only_keys(root, "plan", keys, error))
		return false;
	v = json_object_get(root, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), PLAN_FORMAT)) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "plan: 'format' must be \"%s\"", PLAN_FORMAT);
		return false;
	}
	if (!get_int(root, "plan", "version", REPLAY_PLAN_VERSION,
		     REPLAY_PLAN_VERSION, 0, true, &iv, error))
		return false;
	if (!get_str(root, "plan", "verdict", &p->verdict, error) ||
	    !get_int(root, "plan", "seq", 0, INT64_MAX, -1, false, &p->seq,
		     error) ||
	    !get_enum(root, "plan", "seq_kind", seq_kind_name_i,
		      HD_SEQ_ORDINAL + 1, HD_SEQ_COLLECTIVE, false, &seq_kind,
		      error) ||
	    !get_int(root, "plan", "window", 0, REPLAY_MAX_WINDOW,
		     REPLAY_DEFAULT_WINDOW, false, &iv, error) ||
	    !get_bool(root, "plan", "fixed", &p->fixed, error))
		return false;
	p->seq_kind = (uint8_t)seq_kind;
	p->window = (int)iv;
	v = json_object_get(root, "scale");
	if (v) {
		if (!json_is_number(v) || !(json_number_value(v) > 0.0) ||
		    json_number_value(v) > 1.0) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "plan: 'scale' must be a number in (0, 1]");
			return false;
		}
		p->scale = json_number_value(v);
	}
	return true;
}

/* The optional "group" object, whose nranks must match the ranks'. */
static bool group_from_json(json_t *root, size_t nranks, struct replay_plan *p,
			    GError **error)
{
	static const char *const group_keys[] = { "id", "name", "nranks",
						  NULL };
	json_t *group = json_object_get(root, "group");
	int64_t iv;

	if (!group || json_is_null(group))
		return true;
	if (!json_is_object(group) ||
	    !only_keys(group, "group", group_keys, error) ||
	    !get_str(group, "group", "id", &p->group_id, error) ||
	    !get_str(group, "group", "name", &p->group_name, error) ||
	    !get_int(group, "group", "nranks", (int64_t)nranks, (int64_t)nranks,
		     -1, false, &iv, error)) {
		if (error && !*error)
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "plan: 'group' must be an object");
		return false;
	}
	return true;
}

/* Rank r of the "ranks" array, appended to p with its ops. */
static bool rank_from_json(json_t *jr, size_t r, size_t nranks,
			   struct replay_plan *p, GError **error)
{
	static const char *const rank_keys[] = { "rank", "global_rank", "ops",
						 NULL };
	json_t *ops;
	struct replay_rank *rr;
	char where[64];
	int64_t rank, global;

	g_snprintf(where, sizeof(where), "rank %zu", r);
	if (!json_is_object(jr)) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "%s: must be an object", where);
		return false;
	}
	if (!only_keys(jr, where, rank_keys, error) ||
	    !get_int(jr, where, "rank", (int64_t)r, (int64_t)r, -1, true, &rank,
		     error) ||
	    !get_int(jr, where, "global_rank", 0, INT32_MAX, -1, false, &global,
		     error))
		return false;
	ops = json_object_get(jr, "ops");
	if (!json_is_array(ops) ||
	    json_array_size(ops) > REPLAY_MAX_OPS_PER_RANK) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "%s: 'ops' must be an array of at most %d ops",
			    where, REPLAY_MAX_OPS_PER_RANK);
		return false;
	}
	rr = replay_plan_add_rank(p, (int)global);
	for (size_t i = 0; i < json_array_size(ops); i++) {
		struct replay_op o = { 0 };

		g_snprintf(where, sizeof(where), "rank %zu op %zu", r, i);
		if (!op_from_json(json_array_get(ops, i), where, (int)nranks,
				  &o, error))
			return false;
		g_array_append_val(rr->ops, o);
	}
	return true;
}

struct replay_plan *replay_plan_from_json(const char *text, size_t len,
					  GError **error)
{
	g_autoptr(json_t) root = plan_root(text, len, error);
	g_autoptr(replay_plan) p = replay_plan_new();
	json_t *ranks;
	size_t nranks;

	if (!root || !plan_fields_from_json(root, p, error))
		return NULL;
	ranks = json_object_get(root, "ranks");
	if (!json_is_array(ranks) || json_array_size(ranks) == 0 ||
	    json_array_size(ranks) > REPLAY_MAX_RANKS) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "plan: 'ranks' must be an array of 1 to %d ranks",
			    REPLAY_MAX_RANKS);
		return NULL;
	}
	nranks = json_array_size(ranks);
	if (!group_from_json(root, nranks, p, error))
		return NULL;
	for (size_t r = 0; r < nranks; r++)
		if (!rank_from_json(json_array_get(ranks, r), r, nranks, p,
				    error))
			return NULL;
	if (!replay_plan_validate(p, error))
		return NULL;
	return g_steal_pointer(&p);
}

bool replay_plan_write(const struct replay_plan *p, FILE *out)
{
	g_autofree char *text = replay_plan_to_json(p);

	return fputs(text, out) >= 0 && !ferror(out);
}

struct replay_plan *replay_plan_load(const char *path, GError **error)
{
	g_autofree char *buf = NULL;
	FILE *f = fopen(path, "rb");
	size_t len;

	if (!f) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot open '%s': %s", path, g_strerror(errno));
		return NULL;
	}
	/* One byte more than the limit tells "too big" from "just fits". */
	buf = g_malloc(REPLAY_MAX_PLAN_BYTES + 1);
	len = fread(buf, 1, REPLAY_MAX_PLAN_BYTES + 1, f);
	if (ferror(f)) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO, "cannot read '%s'",
			    path);
		fclose(f);
		return NULL;
	}
	fclose(f);
	if (len > REPLAY_MAX_PLAN_BYTES) {
		g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
			    "'%s': plan is larger than %u bytes", path,
			    REPLAY_MAX_PLAN_BYTES);
		return NULL;
	}
	{
		struct replay_plan *p = replay_plan_from_json(buf, len, error);

		if (!p)
			g_prefix_error(error, "'%s': ", path);
		return p;
	}
}

/* Text. */

static void op_to_text(GString *out, const struct replay_op *o)
{
	if (o->seq >= 0)
		g_string_append_printf(out, "seq %-4" G_GINT64_FORMAT " ",
				       o->seq);
	else
		g_string_append(out, "seq ?    ");
	g_string_append(out, hd_op_kind_name(o->kind));
	if (o->count >= 0)
		g_string_append_printf(out, " count=%" G_GINT64_FORMAT,
				       o->count);
	else
		g_string_append(out, " count=?");
	g_string_append_printf(out, " dtype=%s", hd_dtype_name(o->dtype));
	if (o->redop != HD_REDOP_NONE)
		g_string_append_printf(out, " redop=%s",
				       hd_redop_name(o->redop));
	if (o->peer >= 0)
		g_string_append_printf(
			out, " %s=%d",
			hd_op_kind_is_p2p(o->kind) ? "peer" : "root", o->peer);
	g_string_append_printf(out, " (%s)", hd_op_state_name(o->state));
	if (o->divergent)
		g_string_append(out, "  <- divergent");
	g_string_append_c(out, '\n');
}

char *replay_plan_rank_text(const struct replay_plan *p, guint r)
{
	GString *out = g_string_new(NULL);
	const struct replay_rank *rr = plan_rank(p, r);
	int open = -1;

	for (guint i = 0; i < rr->ops->len; i++) {
		const struct replay_op *o =
			&g_array_index(rr->ops, struct replay_op, i);

		if (open >= 0 && o->coalesce != open) {
			g_string_append(out, "    ncclGroupEnd\n");
			open = -1;
		}
		if (o->coalesce >= 0 && o->coalesce != open) {
			g_string_append(out, "    ncclGroupStart\n");
			open = o->coalesce;
		}
		g_string_append_printf(out, "  %s%2u  ", open >= 0 ? "  " : "",
				       i);
		op_to_text(out, o);
	}
	if (open >= 0)
		g_string_append(out, "    ncclGroupEnd\n");
	return g_string_free(out, FALSE);
}

char *replay_plan_header_text(const struct replay_plan *p)
{
	GString *out = g_string_new(NULL);

	g_string_append(out, "replay plan");
	if (p->verdict)
		g_string_append_printf(out, " for %s", p->verdict);
	if (p->seq >= 0)
		g_string_append_printf(
			out, " at %s seq %" G_GINT64_FORMAT,
			seq_kind_names[p->seq_kind <= HD_SEQ_ORDINAL
					       ? p->seq_kind
					       : 0],
			p->seq);
	else
		g_string_append(out, " (no divergence)");
	g_string_append_printf(out, ", window %d, scale %g%s\n", p->window,
			       p->scale, p->fixed ? ", fixed" : "");
	g_string_append_printf(out, "communicator %s",
			       p->group_id ? p->group_id : "(unnamed)");
	if (p->group_name)
		g_string_append_printf(out, " (%s)", p->group_name);
	g_string_append_printf(out, ": %u ranks, global ranks", p->ranks->len);
	for (guint r = 0; r < p->ranks->len; r++) {
		int gr = plan_rank(p, r)->global_rank;

		if (gr >= 0)
			g_string_append_printf(out, " %d", gr);
		else
			g_string_append(out, " ?");
	}
	g_string_append_c(out, '\n');
	return g_string_free(out, FALSE);
}
