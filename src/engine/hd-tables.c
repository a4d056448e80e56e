/*
 * The analysis's tables (hd-tables.h): the ranks seen and missing, the
 * per-group figures, the per-rank progress table (whose group is the top
 * verdict's, else the biggest; positions from its lanes, else from the
 * c10d watchdog's counters, never both in one table) and the moments the
 * hang began (the last completion, the first watchdog timeout, each on
 * its most telling clock).
 */
#include "config.h"

#include "hd-tables.h"

#include <string.h>

#include "hd-const.h"
#include "hd-sort.h"
#include "hd-banned.h"

void hd_tables_ranks(const struct hd_index *ix, struct hd_analysis *a)
{
	g_autoptr(GList) keys = g_hash_table_get_keys(ix->rank_inputs);
	int world = a->world_size;

	for (GList *l = keys; l; l = l->next) {
		int r = GPOINTER_TO_INT(l->data);

		g_array_append_val(a->ranks_seen, r);
	}
	g_array_sort(a->ranks_seen, hd_compare_int);
	for (guint i = 0; i < a->ranks_seen->len && world >= 0; i++) {
		int r = g_array_index(a->ranks_seen, int, i);

		if (r >= world)
			world = -1 - r; /* more ranks than any group said */
	}
	if (world < -1) {
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"rank %d is outside the world size %d that the groups report",
				-1 - world, a->world_size));
	} else if (a->world_size > 0) {
		/* Cap what a hostile world size can make us list. */
		int w = MIN(a->world_size, 1 << 22);
		guint k = 0;

		for (int r = 0; r < w; r++) {
			while (k < a->ranks_seen->len &&
			       g_array_index(a->ranks_seen, int, k) < r)
				k++;
			if (k >= a->ranks_seen->len ||
			    g_array_index(a->ranks_seen, int, k) != r)
				g_array_append_val(a->ranks_missing, r);
		}
	}
}

/* The group the per-rank table is about: the top verdict's, else the biggest. */
static int64_t progress_group(const struct hd_index *ix,
			      const struct hd_analysis *a)
{
	struct hd_lane_iter it;
	const struct hd_lane *lane;
	int64_t best = -1, cur = -1;
	size_t best_n = 0, n = 0;

	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->group >= 0)
			return v->group;
	}
	/* the first group whose ops outnumber every earlier group's */
	hd_lane_iter_init(&it, ix);
	while ((lane = hd_lane_iter_next(&it))) {
		if ((int64_t)it.group != cur) {
			cur = it.group;
			n = 0;
		}
		n += lane->n;
		if (n > best_n) {
			best_n = n;
			best = cur;
		}
	}
	return best;
}

/*
 * rank -> the state its first blaming verdict gives it, for every
 * culprit: built once, so the rows cost ranks plus culprits, never their
 * product.  (transfer full)
 */
static GHashTable *culprit_states(const struct hd_analysis *a)
{
	GHashTable *states = g_hash_table_new(NULL, NULL);

	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint c = 0; c < v->culprits->len; c++) {
			gpointer rank = GINT_TO_POINTER(
				g_array_index(v->culprits, int, c));

			if (!g_hash_table_contains(states, rank))
				g_hash_table_insert(
					states, rank,
					hd_unconst(hd_verdict_kind_info(v->kind)
							   ->rank_state));
		}
	}
	return states;
}

/* The ranks of group g some lane of which knows which ops completed. */
static GHashTable *ranks_with_completion(const struct hd_index *ix, int64_t g)
{
	GHashTable *set = g_hash_table_new(NULL, NULL);
	const struct hd_group_index *gi;

	if (g < 0 || (guint64)g >= ix->groups->len)
		return set;
	gi = hd_index_group(ix, (guint)g);
	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane = hd_group_lane(gi, l);

		if (lane->has_completion_info)
			g_hash_table_add(set, GINT_TO_POINTER(lane->rank));
	}
	return set;
}

/* What a lane says about its rank's progress in the progress group. */
static void progress_from_lane(const struct hd_lane *lane,
			       struct hd_rank_progress *p)
{
	if (lane->max_seq > p->last_enqueued)
		p->last_enqueued = lane->max_seq;
	if (lane->max_completed > p->last_completed)
		p->last_completed = lane->max_completed;
	if (lane->first_blocked >= 0 &&
	    (p->blocked_seq < 0 || lane->first_blocked < p->blocked_seq))
		p->blocked_seq = lane->first_blocked;
}

/*
 * The stack of a lane's last op that has one, so a rank's table row can
 * say where its Python last was: one from the progress group (in_group)
 * beats one from another group; otherwise the first lane that has one
 * wins.  Until progress_user_frames() runs, user_frame marks whether the
 * stack came from the progress group (1) or not (0).
 */
static void progress_stack(const struct hd_index *ix,
			   const struct hd_lane *lane, bool in_group,
			   struct hd_rank_progress *p)
{
	/* a lane of log ops has none: not read again, op by op */
	if (!lane->has_stack ||
	    (p->stack >= 0 && (p->user_frame == 1 || !in_group)))
		return;
	for (uint32_t k = lane->n; k > 0; k--) {
		const struct hd_op *op = hd_index_op(ix, lane->ops[k - 1]);

		if (hd_op_stack(ix->store, op) >= 0) {
			p->stack = hd_op_stack(ix->store, op);
			p->user_frame = in_group ? 1 : 0;
			return;
		}
	}
}

/* Resolves the marks progress_stack() left into frame indices. */
static void progress_user_frames(const struct hd_store *s,
				 struct hd_analysis *a)
{
	for (guint i = 0; i < a->progress->len; i++) {
		struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);

		p->user_frame =
			p->stack >= 0 ? hd_stack_user_frame(s, p->stack) : -1;
	}
}

/* The time of a completed op's end (else start, else enqueue), or false. */
static bool op_done_time(const struct hd_store *s, const struct hd_op *op,
			 int64_t *ns)
{
	if (op->state != HD_STATE_COMPLETED)
		return false;
	*ns = hd_op_t_end(s, op) != INT64_MIN	  ? hd_op_t_end(s, op)
	      : hd_op_t_start(s, op) != INT64_MIN ? hd_op_t_start(s, op)
						  : hd_op_t_enqueue(s, op);
	return *ns != INT64_MIN;
}

/* How much a clock tells, for choosing between moments: higher better. */
static int clock_rank(enum hd_clock c)
{
	switch (c) {
	case HD_CLOCK_UTC:
		return 4;
	case HD_CLOCK_LOCAL:
		return 3;
	case HD_CLOCK_MONTH_DAY:
		return 2;
	case HD_CLOCK_TIME_OF_DAY:
		return 1;
	default:
		return 0;
	}
}

/*
 * t against u, read from inputs a and b: within one input on any clock
 * that compares there; across inputs local wall times only where the
 * hosts keep one zone (hd_store_mark_local_zones()).
 */
static enum hd_order moment_order(const struct hd_store *s, struct hd_time t,
				  uint32_t a, struct hd_time u, uint32_t b)
{
	if (a != b && s->local_zones_apart &&
	    (t.clock == HD_CLOCK_LOCAL || t.clock == HD_CLOCK_MONTH_DAY))
		return HD_ORDER_UNKNOWN;
	return hd_time_order(t, u, a == b ? HD_SCOPE_INPUT : HD_SCOPE_APART, 0);
}

/*
 * Whether t (read from prov) should replace moment m, keeping the latest
 * (later) or the earliest time: a time on a better clock wins; on the
 * same clock only a comparable one can (times of day and trace times of
 * other inputs cannot be ordered, so the first read stays).
 */
static bool moment_better(const struct hd_store *s, const struct hd_moment *m,
			  struct hd_time t, const struct hd_prov *prov,
			  bool later)
{
	enum hd_order o;

	if (!hd_time_known(t) || clock_rank(t.clock) == 0)
		return false;
	if (!m->known || clock_rank(t.clock) > clock_rank(m->time.clock))
		return true;
	if (clock_rank(t.clock) < clock_rank(m->time.clock))
		return false;
	o = moment_order(s, t, prov->input, m->time, m->prov.input);
	return later ? o == HD_ORDER_AFTER : o == HD_ORDER_BEFORE;
}

/*
 * When the hang began: the latest end of a completed op (nothing made
 * progress after it) and the first watchdog timeout (when it was
 * noticed), each on the most telling clock that has one (UTC, then
 * local, then glog's month and day, then a time of day); and whether the
 * two can be ordered at all.
 */
static void fill_hang_start(const struct hd_store *s, struct hd_analysis *a)
{
	struct hd_moment *done = &a->last_completed;
	struct hd_moment *first = &a->first_timeout;

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		struct hd_time t;
		struct hd_prov prov;
		int64_t ns;

		if (hd_op_rank(op) < 0 || !op_done_time(s, op, &ns) ||
		    g_hash_table_contains(a->other_instance,
					  GINT_TO_POINTER(hd_op_rank(op))))
			continue;
		t = hd_op_time(s, op, ns);
		prov = hd_op_prov(s, op);
		if (!moment_better(s, done, t, &prov, true))
			continue;
		done->known = true;
		done->time = t;
		done->rank = hd_op_rank(op);
		done->prov = hd_op_prov(s, op);
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type != HD_SIGT_WATCHDOG_TIMEOUT ||
		    !moment_better(s, first, sig->time, &sig->prov, false))
			continue;
		first->known = true;
		first->time = sig->time;
		first->rank = sig->rank;
		first->prov = sig->prov;
	}
	a->hang_order =
		(int8_t)(done->known && first->known
				 ? moment_order(s, done->time, done->prov.input,
						first->time, first->prov.input)
				 : HD_ORDER_UNKNOWN);
}

/*
 * Ranks without ops in the table's group (logs only) still have the c10d
 * watchdog's counters ("last enqueued work: 38, last completed work:
 * 37"): the columns show the highest of one PG's, named in counters_pg.
 */
static void progress_counters(struct hd_rank_progress *p,
			      const struct hd_signal *sig)
{
	if (sig->last_enqueued == INT64_MIN && sig->last_completed == INT64_MIN)
		return;
	if (!p->counters_pg && (p->last_enqueued >= 0 ||
				p->last_completed >= 0 || !sig->group_name))
		return;
	if (p->counters_pg && p->counters_pg != sig->group_name)
		return;
	p->counters_pg = sig->group_name;
	if (sig->last_enqueued != INT64_MIN)
		p->last_enqueued = MAX(p->last_enqueued, sig->last_enqueued);
	if (sig->last_completed != INT64_MIN)
		p->last_completed = MAX(p->last_completed, sig->last_completed);
}

static void fill_progress(const struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	int64_t g = progress_group(ix, a);
	struct hd_lane_iter it;
	const struct hd_lane *lane;
	g_autoptr(GHashTable) rows =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autoptr(GHashTable) states = NULL;
	g_autoptr(GHashTable) completion = NULL;
	bool lanes_known = false;

	for (guint i = 0; i < a->ranks_seen->len; i++) {
		struct hd_rank_progress p = { 0 };
		const struct hd_rank *r;

		p.rank = g_array_index(a->ranks_seen, int, i);
		r = hd_store_find_rank(s, p.rank);
		p.host = r ? r->host : NULL;
		p.inputs = r ? r->inputs->len : 0;
		p.group = g;
		p.last_enqueued = p.last_completed = p.blocked_seq = -1;
		p.stack = p.user_frame = -1;
		g_array_append_val(a->progress, p);
		g_hash_table_insert(rows, GINT_TO_POINTER(p.rank),
				    GUINT_TO_POINTER(a->progress->len));
	}
	/* From the lanes: only the progress group's ops are read. */
	hd_lane_iter_init(&it, ix);
	while ((lane = hd_lane_iter_next(&it))) {
		guint row = GPOINTER_TO_UINT(
			g_hash_table_lookup(rows, GINT_TO_POINTER(lane->rank)));
		struct hd_rank_progress *p;

		if (!row)
			continue;
		p = &g_array_index(a->progress, struct hd_rank_progress,
				   row - 1);
		p->ops += lane->n;
		if ((int64_t)it.group == g && lane->seq_kind != HD_SEQ_P2P)
			progress_from_lane(lane, p);
		progress_stack(ix, lane, (int64_t)it.group == g, p);
	}
	/* the counters stand in only where no rank has positions there:
	   one table never mixes the two */
	for (guint i = 0; i < a->progress->len && !lanes_known; i++) {
		const struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);

		lanes_known = p->last_enqueued >= 0 || p->last_completed >= 0;
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		guint row = GPOINTER_TO_UINT(
			g_hash_table_lookup(rows, GINT_TO_POINTER(sig->rank)));

		if (!row || sig->cat == HD_SIG_INFO)
			continue;
		g_array_index(a->progress, struct hd_rank_progress, row - 1)
			.signals++;
		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT)
			g_array_index(a->progress, struct hd_rank_progress,
				      row - 1)
				.state = "timed out";
		if (!lanes_known)
			progress_counters(
				&g_array_index(a->progress,
					       struct hd_rank_progress,
					       row - 1),
				sig);
	}
	states = culprit_states(a);
	completion = ranks_with_completion(ix, g);
	for (guint i = 0; i < a->progress->len; i++) {
		struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);
		const char *st =
			g_hash_table_lookup(states, GINT_TO_POINTER(p->rank));

		/* Without completion info an enqueued op says nothing. */
		if (p->last_completed < 0 &&
		    !g_hash_table_contains(completion,
					   GINT_TO_POINTER(p->rank)))
			p->blocked_seq = -1;
		/*
		 * A record of another instance (an earlier attempt's dump)
		 * says nothing of this run: neither its positions nor its
		 * stack are this run's, whatever it is blamed for.
		 */
		if (g_hash_table_contains(a->other_instance,
					  GINT_TO_POINTER(p->rank))) {
			p->last_enqueued = p->last_completed = -1;
			p->blocked_seq = -1;
			p->stack = -1;
			p->state = "other instance";
			continue;
		}
		/* A culprit first, then what its ops say, then its signals. */
		if (st)
			p->state = st;
		else if (g_hash_table_contains(a->logs_end_early,
					       GINT_TO_POINTER(p->rank)))
			p->state = "log ends early";
		else if (p->blocked_seq >= 0)
			p->state = "blocked";
		else if (p->state && strcmp(p->state, "timed out") == 0)
			p->state = "timed out";
		else if (p->ops == 0 && p->signals == 0)
			p->state = "no ops";
		else
			p->state = "ok";
	}
	for (guint i = 0; i < a->ranks_missing->len && i < 4096; i++) {
		struct hd_rank_progress p = { 0 };

		p.rank = g_array_index(a->ranks_missing, int, i);
		p.group = g;
		p.last_enqueued = p.last_completed = p.blocked_seq = -1;
		p.stack = p.user_frame = -1;
		p.state = "no data";
		g_array_append_val(a->progress, p);
	}
}

/* The PG names of the store's groups, as a set of strings. */
static GHashTable *store_pg_names(const struct hd_store *s)
{
	GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint g = 0; g < s->groups->len; g++) {
		const struct hd_group *grp = hd_store_group_at(s, g);

		if (grp->name)
			g_hash_table_add(names, grp->name);
	}
	return names;
}

/*
 * The c10d process groups that signals name and no store group stands
 * for (struct hd_c10d_group): each with the ranks that name it, once.
 */
void hd_tables_c10d_groups(const struct hd_store *s, struct hd_analysis *a)
{
	/* interned name -> its index in a->c10d_groups + 1, or G_MAXUINT
	   for a PG of the store */
	g_autoptr(GHashTable) index = g_hash_table_new(NULL, NULL);
	/* by group: its ranks + 1 seen, and those that timed out */
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_hash_table_unref);
	g_autoptr(GPtrArray) timed_out = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_hash_table_unref);
	/* one lookup per name: no scan of the groups per signal */
	g_autoptr(GHashTable) pgs = store_pg_names(s);

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		gpointer name = hd_unconst(sig->group_name);
		gpointer rank = GINT_TO_POINTER(sig->rank + 1);
		struct hd_c10d_group *g;
		guint at;

		if (!sig->group_name || sig->rank < 0)
			continue;
		at = GPOINTER_TO_UINT(g_hash_table_lookup(index, name));
		if (!at) {
			struct hd_c10d_group fresh = { sig->group_name, NULL,
						       0 };

			at = g_hash_table_contains(pgs, sig->group_name)
				     ? G_MAXUINT
				     : a->c10d_groups->len + 1;
			g_hash_table_insert(index, name, GUINT_TO_POINTER(at));
			if (at != G_MAXUINT) {
				fresh.ranks =
					g_array_new(FALSE, FALSE, sizeof(int));
				g_array_append_val(a->c10d_groups, fresh);
				g_hash_table_insert(a->c10d_index, name,
						    GUINT_TO_POINTER(at));
				g_ptr_array_add(seen,
						g_hash_table_new(NULL, NULL));
				g_ptr_array_add(timed_out,
						g_hash_table_new(NULL, NULL));
			}
		}
		if (at == G_MAXUINT)
			continue;
		g = &g_array_index(a->c10d_groups, struct hd_c10d_group,
				   at - 1);
		if (g_hash_table_add(seen->pdata[at - 1], rank))
			g_array_append_val(g->ranks, sig->rank);
		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT &&
		    g_hash_table_add(timed_out->pdata[at - 1], rank))
			g->timeouts++;
	}
	for (guint i = 0; i < a->c10d_groups->len; i++)
		g_array_sort(
			g_array_index(a->c10d_groups, struct hd_c10d_group, i)
				.ranks,
			hd_compare_int);
}

static gint compare_progress(gconstpointer pa, gconstpointer pb)
{
	const struct hd_rank_progress *a = pa, *b = pb;

	return (a->rank > b->rank) - (a->rank < b->rank);
}

/*
 * The seqs one group's lanes of collectives span (lo..hi), and those every
 * one of them spans (common_lo..common_hi); first until a lane is seen.
 */
struct seq_span {
	int64_t lo, hi, common_lo, common_hi;
	bool first;
};

static void fill_group_stats(const struct hd_index *ix, struct hd_analysis *a)
{
	g_autofree struct seq_span *spans =
		g_new(struct seq_span, ix->groups->len);
	struct hd_lane_iter it;
	const struct hd_lane *lane;

	g_array_set_size(a->group_stats, ix->groups->len);
	for (guint g = 0; g < ix->groups->len; g++) {
		struct hd_group_stats *st = &g_array_index(
			a->group_stats, struct hd_group_stats, g);

		st->group = g;
		st->joined = -1;
		spans[g] = (struct seq_span){ -1, -1, -1, -1, true };
	}
	hd_lane_iter_init(&it, ix);
	while ((lane = hd_lane_iter_next(&it))) {
		struct hd_group_stats *st = &g_array_index(
			a->group_stats, struct hd_group_stats, it.group);
		struct seq_span *sp = &spans[it.group];

		if (lane->seq_kind == HD_SEQ_P2P || lane->n == 0)
			continue;
		st->ranks_with_data++;
		if (sp->lo < 0 || lane->min_seq < sp->lo)
			sp->lo = lane->min_seq;
		if (lane->max_seq > sp->hi)
			sp->hi = lane->max_seq;
		if (sp->first || lane->min_seq > sp->common_lo)
			sp->common_lo = lane->min_seq;
		if (sp->first || lane->max_seq < sp->common_hi)
			sp->common_hi = lane->max_seq;
		sp->first = false;
	}
	for (guint g = 0; g < ix->groups->len; g++) {
		struct hd_group_stats *st = &g_array_index(
			a->group_stats, struct hd_group_stats, g);
		const struct seq_span *sp = &spans[g];

		if (sp->hi >= 0)
			st->positions =
				(uint32_t)MIN(sp->hi - sp->lo + 1, UINT32_MAX);
		if (!sp->first && sp->common_hi >= sp->common_lo)
			st->ops_aligned = (uint32_t)MIN(
				sp->common_hi - sp->common_lo + 1, UINT32_MAX);
	}
	for (guint i = 0; ix->links && i < ix->links->len; i++) {
		const struct hd_join_link *l =
			&g_array_index(ix->links, struct hd_join_link, i);
		struct hd_group_stats *pg = &g_array_index(
			a->group_stats, struct hd_group_stats, l->pg);
		struct hd_group_stats *comm = &g_array_index(
			a->group_stats, struct hd_group_stats, l->comm);

		pg->joined = l->comm;
		comm->joined = l->pg;
		pg->joined_ops = comm->joined_ops = l->ops;
	}
}

void hd_tables_fill(const struct hd_index *ix, struct hd_analysis *a)
{
	fill_group_stats(ix, a);
	fill_progress(ix, a);
	progress_user_frames(ix->store, a);
	/* no "hang began" without evidence of a hang or failure */
	if ((hd_analysis_has_fault(a) || hd_analysis_undecided(a)) &&
	    a->hang_evidence)
		fill_hang_start(ix->store, a);
	g_array_sort(a->progress, compare_progress);
}
