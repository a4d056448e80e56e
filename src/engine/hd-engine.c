/*
 * The engine's orchestrator: builds the op index (hd-index.c) once, links
 * FR process groups to NCCL comms (hd-join.c), runs the checks (group
 * alignment in hd-align.c and the files hd-align.h lists, error signals
 * in hd-signals.c, arrival times in hd-straggler.c, wait-for chains in
 * hd-chains.c), joins verdicts that several sources agree on, ranks them,
 * and fills the per-group and per-rank tables.  The checks never call in here: they see the index
 * (hd-index.h), the verdict model (hd-verdict.h) and hd-checks.h only.
 */
#include "config.h"

#include "hd-engine.h"

#include <string.h>

#include "hd-checks.h"
#include "hd-consistency.h"
#include "hd-fingerprint.h"
#include "hd-next.h"
#include "hd-straggler.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-banned.h"

static bool same_culprits(const struct hd_verdict *a,
			  const struct hd_verdict *b)
{
	if (a->culprits->len != b->culprits->len)
		return false;
	/* an empty GArray may have no data at all: memcmp(NULL) is UB */
	if (!a->culprits->len)
		return true;
	return memcmp(a->culprits->data, b->culprits->data,
		      a->culprits->len * sizeof(int)) == 0;
}

static bool has_source(const struct hd_verdict *v, const char *source)
{
	for (guint i = 0; i < v->evidence->len && source; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		if (e->source && strcmp(e->source, source) == 0)
			return true;
	}
	return false;
}

/*
 * Joins verdicts that say the same thing from different sources (an FR
 * dump and the c10d log of the same hang, or a process group and the NCCL
 * comm hd-join.c linked it to): the evidence is pooled, and agreement
 * between independent sources raises the confidence.
 */
static void merge_duplicates(const struct hd_index *ix, struct hd_analysis *a)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint j = i + 1; j < a->verdicts->len;) {
			struct hd_verdict *w =
				g_ptr_array_index(a->verdicts, j);
			bool joined = w->kind == v->kind &&
				      hd_join_same_finding(ix, v, w);

			if (w->kind != v->kind || !same_culprits(v, w) ||
			    (!joined && v->group >= 0 && w->group >= 0 &&
			     v->group != w->group) ||
			    /*
			     * Seqs are comparable only within one group:
			     * a PG-name-only verdict (group -1) counts
			     * SeqNum, an NCCL comm counts COLL lines.
			     */
			    (!joined && v->group >= 0 && w->group >= 0 &&
			     v->seq >= 0 && w->seq >= 0 && v->seq != w->seq) ||
			    v->culprits->len == 0) {
				j++;
				continue;
			}
			/* The process group's verdict speaks for both. */
			if (joined && hd_join_is_pg(ix, w->group)) {
				a->verdicts->pdata[i] = w;
				a->verdicts->pdata[j] = v;
				v = w;
				w = g_ptr_array_index(a->verdicts, j);
			}
			if (v->group < 0 && w->group >= 0) {
				v->group = w->group;
				v->c10d_group = -1;
				v->seq = w->seq;
			} else if (v->group < 0 && v->c10d_group < 0) {
				v->c10d_group = w->c10d_group;
			}
			if (v->seq < 0)
				v->seq = w->seq;
			if (!v->op)
				v->op = w->op;
			if (w->confidence >= HD_CONF_MEDIUM &&
			    v->confidence >= HD_CONF_MEDIUM)
				v->confidence = HD_CONF_HIGH;
			else if (w->confidence > v->confidence)
				v->confidence = w->confidence;
			for (guint e = 0; e < w->evidence->len; e++) {
				struct hd_evidence *ev =
					g_ptr_array_index(w->evidence, e);

				if (joined && has_source(v, ev->source))
					continue;
				if (hd_evidence_is_more(ev))
					hd_verdict_add_more(v, ev->more, "%s",
							    ev->text);
				else
					hd_verdict_add_evidence(v, ev->rank,
								ev->source,
								"%s", ev->text);
			}
			/* A joined comm's are about its own positions. */
			for (guint r = 0; r < w->ruled_out->len && !joined; r++)
				g_ptr_array_add(v->ruled_out,
						g_strdup(g_ptr_array_index(
							w->ruled_out, r)));
			if (w->score > v->score)
				v->score = w->score;
			g_ptr_array_remove_index(a->verdicts, j);
		}
	}
}

static int compare_verdicts(gconstpointer pa, gconstpointer pb)
{
	const struct hd_verdict *a = *(const struct hd_verdict *const *)pa;
	const struct hd_verdict *b = *(const struct hd_verdict *const *)pb;
	double sa = a->score + 3.0 * a->confidence;
	double sb = b->score + 3.0 * b->confidence;

	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static void fill_ranks(const struct hd_index *ix, struct hd_analysis *a)
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
	int64_t best = -1;
	size_t best_n = 0;

	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->group >= 0)
			return v->group;
	}
	for (guint g = 0; g < ix->groups->len; g++) {
		const struct hd_group_index *gi = hd_index_group(ix, g);
		size_t n = 0;

		for (guint l = 0; l < gi->lanes->len; l++)
			n += hd_group_lane(gi, l)->n;
		if (n > best_n) {
			best_n = n;
			best = g;
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
 * Whether t (read from prov) should replace moment m, keeping the latest
 * (later) or the earliest time: a time on a better clock wins; on the
 * same clock only a comparable one can (times of day and trace times of
 * other inputs cannot be ordered, so the first read stays).
 */
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

		if (hd_op_rank(op) < 0 || !op_done_time(s, op, &ns))
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
static void fill_c10d_groups(const struct hd_store *s, struct hd_analysis *a)
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
 * The ranks all of whose logs hold none of the job attempt analyzed
 * (hd_input.attempt_none), ascending.  (transfer full)
 */
static GArray *ranks_of_other_attempts(const struct hd_store *s)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct hd_rank *r = value;
		bool none = false, some = false;

		for (guint i = 0; i < r->inputs->len; i++) {
			const struct hd_input *in = hd_store_input(
				s, g_array_index(r->inputs, uint32_t, i));

			if (in->attempt_none)
				none = true;
			else if (in->records)
				some = true;
		}
		if (none && !some)
			g_array_append_val(out, r->rank);
	}
	g_array_sort(out, hd_compare_int);
	return out;
}

/* The verdict when nothing else was found. */
/*
 * Trouble was seen but no check could name its cause: say what was seen
 * and what is missing, never no_fault.
 */
static void add_undecided_verdict(const struct hd_index *ix,
				  struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	guint ncat[HD_SIG_CAT_COUNT] = { 0 };
	g_autoptr(GString) seen = g_string_new(NULL);
	struct hd_verdict *v;
	guint cited = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (hd_signal_is_trouble(sig) && sig->cat < HD_SIG_CAT_COUNT)
			ncat[sig->cat]++;
	}
	for (int k = 0; k < HD_SIG_CAT_COUNT; k++)
		if (ncat[k])
			g_string_append_printf(seen, "%s%u %s",
					       seen->len ? ", " : "", ncat[k],
					       hd_signal_cat_name(k));
	v = hd_verdict_new(
		HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
		"an error or hang was seen (%s signals) but its cause could not be decided from %u ops and %u signals",
		seen->str, s->ops->len, s->signals->len);
	v->score = HD_SCORE_INSUFFICIENT;
	for (guint i = 0; i < s->signals->len && cited < 6; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		g_autofree char *src = NULL;

		if (!hd_signal_is_trouble(sig))
			continue;
		src = hd_prov_format(s, &sig->prov);
		hd_verdict_add_evidence(
			v, sig->rank,
			sig->prov.kind != HD_PROV_NONE ? src : NULL, "%s",
			sig->text ? sig->text : hd_signal_cat_name(sig->cat));
		cited++;
	}
	hd_verdict_add_ruled_out(
		v,
		"nothing: the errors above are not ones hangdoc can attribute; the first error of the failing process (its NCCL WARN with NCCL_DEBUG=INFO, or every rank's log) is missing");
	if (a->ranks_missing->len)
		hd_verdict_add_ruled_out(
			v, "nothing about %u rank%s that left no data",
			a->ranks_missing->len,
			a->ranks_missing->len == 1 ? "" : "s");
	g_ptr_array_add(a->verdicts, v);
}

/*
 * Why input in was not read whole: its error, else its first warning
 * that names a budget or a cut, else "cut short".  (transfer none)
 */
static const char *unread_why(const struct hd_input *in)
{
	if (in->error)
		return in->error;
	for (guint i = 0; in->warnings && i < in->warnings->len; i++) {
		const char *w = g_ptr_array_index(in->warnings, i);

		if (strstr(w, "budget"))
			return w;
	}
	return "cut short: what followed the cut is unknown";
}

/*
 * Healthy needs every input read whole.  An input refused (an error: a
 * budget spent, unreadable) or cut (truncated: a budget, a torn file)
 * may hold the end of a rank's record, and so the hang: what was not
 * read cannot show healthy progress.  Returns true when it added the
 * insufficient_data verdict that stands instead of no_fault.
 */
static bool add_unread_verdict(const struct hd_store *s, struct hd_analysis *a)
{
	guint refused = 0, cut = 0, cited = 0;
	bool budget = false;
	struct hd_verdict *v;

	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		/* another incident's: its rank left no data of this one */
		if (in->other_incident)
			continue;
		if (in->error)
			refused++;
		else if (in->truncated)
			cut++;
		else
			continue;
		budget |= strstr(unread_why(in), "budget") != NULL;
	}
	if (!refused && !cut)
		return false;
	v = hd_verdict_new(
		HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
		"no fault found in what was read, but %u of %u input%s %s not read whole (%u refused, %u cut short%s): data not read cannot show healthy progress",
		refused + cut, s->inputs->len, s->inputs->len == 1 ? "" : "s",
		refused + cut == 1 ? "was" : "were", refused, cut,
		budget ? ", past a budget" : "");
	v->score = HD_SCORE_INSUFFICIENT;
	/* those past a budget first: the budget is what to change */
	for (int pass = budget ? 0 : 1; pass < 2; pass++) {
		for (guint i = 0; i < s->inputs->len && cited < 8; i++) {
			const struct hd_input *in =
				g_ptr_array_index(s->inputs, i);
			bool over;

			if ((!in->error && !in->truncated) ||
			    in->other_incident)
				continue;
			over = strstr(unread_why(in), "budget") != NULL;
			if (over != (pass == 0))
				continue;
			hd_verdict_add_evidence(
				v, in->rank >= 0 ? in->rank : -1, in->path,
				"%s%s", in->error ? "not read: " : "",
				unread_why(in));
			cited++;
		}
	}
	if (refused + cut > cited)
		hd_verdict_add_more(v, refused + cut - cited,
				    "and %u more input%s not read whole",
				    refused + cut - cited,
				    refused + cut - cited == 1 ? "" : "s");
	hd_verdict_add_ruled_out(
		v,
		"nothing about what the inputs above held past where they were cut or refused: it may be where a rank stopped");
	if (budget)
		g_ptr_array_add(
			a->notes,
			g_strdup(
				"a decode budget was spent (docs/safety.md, \"Budgets\"): give the inputs not read on their own, or fewer at a time, to read them whole"));
	a->inputs_unread = true;
	g_ptr_array_add(a->verdicts, v);
	return true;
}

static void add_summary_verdict(const struct hd_index *ix,
				struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	uint64_t records = 0;
	g_autoptr(GArray) other = NULL;
	struct hd_verdict *v;

	for (guint i = 0; i < s->signals->len; i++)
		if (hd_signal_is_trouble(
			    &g_array_index(s->signals, struct hd_signal, i)))
			a->trouble_signals++;
	if (hd_analysis_has_fault(a))
		return;
	/* hangs that no fault explains are undecided, never no_fault */
	if (a->held->len) {
		while (a->held->len)
			g_ptr_array_add(a->verdicts,
					g_ptr_array_steal_index(a->held, 0));
		return;
	}
	for (guint i = 0; i < s->inputs->len; i++)
		records += ((const struct hd_input *)g_ptr_array_index(
				    s->inputs, i))
				   ->records;
	for (guint i = 0; i < a->verdicts->len; i++)
		if (((const struct hd_verdict *)g_ptr_array_index(a->verdicts,
								  i))
			    ->kind == HD_V_INSUFFICIENT_DATA)
			return;
	if (a->trouble_signals) {
		add_undecided_verdict(ix, a);
		return;
	}
	if (records == 0) {
		v = hd_verdict_new(HD_V_INSUFFICIENT_DATA, HD_CONF_HIGH,
				   "no records could be read from %u input%s",
				   s->inputs->len,
				   s->inputs->len == 1 ? "" : "s");
		v->score = HD_SCORE_INSUFFICIENT;
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	/* healthy means progress was seen: with no op, nothing was */
	if (s->ops->len == 0) {
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"no ops were read (%" G_GUINT64_FORMAT
			" record%s, %u signal%s from %u input%s, %u rank%s seen): no progress is shown, so no fault can be ruled out",
			records, records == 1 ? "" : "s", s->signals->len,
			s->signals->len == 1 ? "" : "s", s->inputs->len,
			s->inputs->len == 1 ? "" : "s", a->ranks_seen->len,
			a->ranks_seen->len == 1 ? "" : "s");
		v->score = HD_SCORE_INSUFFICIENT;
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	if (add_unread_verdict(s, a))
		return;
	other = ranks_of_other_attempts(s);
	v = hd_verdict_new(
		HD_V_NO_FAULT,
		a->ranks_missing->len || !a->ranks_seen->len ||
				a->incomplete_records || other->len
			? HD_CONF_LOW
			: HD_CONF_MEDIUM,
		"no fault found in %u op%s and %u signal%s from %u rank%s (%u input%s)",
		s->ops->len, s->ops->len == 1 ? "" : "s", s->signals->len,
		s->signals->len == 1 ? "" : "s", a->ranks_seen->len,
		a->ranks_seen->len == 1 ? "" : "s", s->inputs->len,
		s->inputs->len == 1 ? "" : "s");
	v->score = HD_SCORE_NO_FAULT;
	hd_verdict_add_ruled_out(
		v,
		"type, size, dtype, root and reduction mismatches: every aligned position agrees");
	if (a->incomplete_records)
		hd_verdict_add_ruled_out(
			v,
			"missing or lagging ranks: every member entered every position its group completed, though the record%s of %u rank%s end%s early (see the notes)",
			a->incomplete_records == 1 ? "" : "s",
			a->incomplete_records,
			a->incomplete_records == 1 ? "" : "s",
			a->incomplete_records == 1 ? "s" : "");
	else
		hd_verdict_add_ruled_out(
			v,
			"missing or lagging ranks: every rank %sreached the same position in every group",
			other->len ? "with a record of this attempt " : "");
	if (a->ranks_missing->len)
		hd_verdict_add_ruled_out(
			v, "nothing about %u rank%s that left no data",
			a->ranks_missing->len,
			a->ranks_missing->len == 1 ? "" : "s");
	if (other->len) {
		g_autofree char *rt = hd_ranks_text(other, 8);

		hd_verdict_add_ruled_out(
			v,
			"nothing about rank%s %s in the attempt analyzed: %s logs hold another attempt only (see the notes)",
			other->len == 1 ? "" : "s", rt,
			other->len == 1 ? "its" : "their");
	}
	g_ptr_array_add(a->verdicts, v);
}

static void fill_group_stats(const struct hd_index *ix, struct hd_analysis *a)
{
	g_array_set_size(a->group_stats, ix->groups->len);
	for (guint g = 0; g < ix->groups->len; g++) {
		const struct hd_group_index *gi = hd_index_group(ix, g);
		struct hd_group_stats *st = &g_array_index(
			a->group_stats, struct hd_group_stats, g);
		int64_t lo = -1, hi = -1, common_lo = -1, common_hi = -1;
		bool first = true;

		st->group = g;
		st->joined = -1;
		for (guint l = 0; l < gi->lanes->len; l++) {
			const struct hd_lane *lane = hd_group_lane(gi, l);

			if (lane->seq_kind == HD_SEQ_P2P || lane->n == 0)
				continue;
			st->ranks_with_data++;
			if (lo < 0 || lane->min_seq < lo)
				lo = lane->min_seq;
			if (lane->max_seq > hi)
				hi = lane->max_seq;
			if (first || lane->min_seq > common_lo)
				common_lo = lane->min_seq;
			if (first || lane->max_seq < common_hi)
				common_hi = lane->max_seq;
			first = false;
		}
		if (hi >= 0)
			st->positions = (uint32_t)MIN(hi - lo + 1, UINT32_MAX);
		if (!first && common_hi >= common_lo)
			st->ops_aligned = (uint32_t)MIN(
				common_hi - common_lo + 1, UINT32_MAX);
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

/* Blames nobody: the inputs are several incidents, not one. */
static void refuse_to_blame(struct hd_analysis *a)
{
	struct hd_verdict *v = hd_verdict_new(
		HD_V_INSUFFICIENT_DATA, HD_CONF_HIGH,
		"the inputs cannot all belong to one incident (%u %s): nothing is blamed; analyze each incident apart, or give --merge",
		a->conflicts->len,
		a->conflicts->len == 1 ? "conflict" : "conflicts");

	/* The conflicts themselves are a->conflicts, which reports show. */
	v->score = HD_SCORE_INSUFFICIENT;
	g_ptr_array_add(a->verdicts, v);
}

/*
 * A straggler is a fault only where it explains an observed hang or
 * timeout that no other verdict explains; otherwise its arrival
 * statistics are a performance note and the run may well be healthy.
 */
static void decide_straggler(const struct hd_store *s, struct hd_analysis *a)
{
	struct hd_perf *p = &a->perf;
	struct hd_verdict *v = p->candidate;
	bool timeout = false;
	char *text;

	if (!v)
		return;
	p->candidate = NULL;
	for (guint i = 0; i < s->signals->len && !timeout; i++)
		timeout = g_array_index(s->signals, struct hd_signal, i).cat ==
			  HD_SIG_TIMEOUT;
	if ((a->hang_seen || timeout) && !hd_analysis_has_fault(a)) {
		p->fault = true;
		text = g_strdup_printf(
			"%s; a %s was seen that nothing else explains, so it is also a straggler verdict",
			p->summary, timeout ? "timeout" : "hang");
		hd_verdict_add_ruled_out(
			v,
			"a healthy run: a %s was seen, and no other check explains it",
			timeout ? "watchdog timeout"
				: "hang (ranks blocked in an op)");
		g_ptr_array_add(a->verdicts, v);
	} else {
		text = g_strdup_printf(
			"%s; %s, so this is a performance note, not a fault",
			p->summary,
			a->hang_seen || timeout
				? "another verdict explains the hang or timeout"
				: "no hang or timeout was seen");
		/* what the verdict ruled out besides clock skew */
		for (guint i = 1; i < v->ruled_out->len; i++)
			g_ptr_array_add(a->notes, g_strdup(g_ptr_array_index(
							  v->ruled_out, i)));
		hd_verdict_free(v);
	}
	g_free(p->summary);
	p->summary = text;
}

struct hd_analysis *hd_engine_run(const struct hd_store *store)
{
	return hd_engine_run_opts(store, NULL);
}

#define MAX_ATTEMPTS_LISTED 5

/* What one attempt held, summed over the logs that share a layout. */
struct attempt_sum {
	uint32_t ops, trouble;
	const char *first_trouble; /* borrowed from the first log */
};

/*
 * "attempt 1 (lines 1-44 of the first) ended at line 44 with a torchrun
 * restart, after 3 errors or timeouts, the first: ..."
 */
static void describe_attempt(GString *t, const struct hd_attempt *at,
			     const struct attempt_sum *sum, int64_t k,
			     guint logs)
{
	g_string_append_printf(t, "; attempt %" G_GINT64_FORMAT " (", k + 1);
	if (at->last_line == G_MAXUINT64)
		g_string_append(t, "the whole file");
	else
		g_string_append_printf(
			t, "lines %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
			at->first_line, at->last_line);
	g_string_append_printf(t, "%s, %u ops)",
			       logs > 1 ? " of the first" : "", sum->ops);
	if (at->end)
		g_string_append_printf(t, " ended with %s", at->end);
	if (!sum->trouble) {
		g_string_append(t, ", with no error or timeout");
		return;
	}
	g_string_append_printf(t, ", after %u %s", sum->trouble,
			       sum->trouble == 1 ? "error or timeout"
						 : "errors or timeouts");
	if (sum->first_trouble &&
	    g_utf8_validate(sum->first_trouble, -1, NULL)) {
		g_autofree char *cut =
			g_utf8_substring(sum->first_trouble, 0, 160);

		g_string_append_printf(
			t, ", the first: %s%s", cut,
			strlen(cut) < strlen(sum->first_trouble) ? "..." : "");
	}
}

/* Adds what each attempt of o held to sum (one entry per attempt). */
static void sum_attempts(struct attempt_sum *sum, const struct hd_input *o)
{
	for (guint k = 0; k < o->attempts->len; k++) {
		const struct hd_attempt *at =
			&g_array_index(o->attempts, struct hd_attempt, k);

		sum[k].ops += at->ops;
		sum[k].trouble += at->trouble;
		if (!sum[k].first_trouble)
			sum[k].first_trouble = at->first_trouble;
	}
}

/*
 * A log that holds none of the attempt analyzed (cut before the restart,
 * or the older file of a rotated log): what it held, so that a hang
 * there is never silently dropped.  Logs of the same shape (the same
 * attempts, numbered alike) share the note.
 */
static void note_attempt_none(const struct hd_store *s, struct hd_analysis *a,
			      guint i, bool *done)
{
	const struct hd_input *in = g_ptr_array_index(s->inputs, i);
	guint n = in->attempts->len, logs = 0;
	g_autofree struct attempt_sum *sum = g_new0(struct attempt_sum, n);
	GString *t = g_string_new(NULL);

	for (guint j = i; j < s->inputs->len; j++) {
		const struct hd_input *o = g_ptr_array_index(s->inputs, j);

		if (!o->attempt_none || !o->attempts || o->attempts->len != n ||
		    o->attempt_shift != in->attempt_shift)
			continue;
		done[j] = true;
		logs++;
		sum_attempts(sum, o);
	}
	if (logs > 1)
		g_string_append_printf(t, "%u logs ('%s' and %u more) hold",
				       logs, in->path, logs - 1);
	else
		g_string_append_printf(t, "'%s' holds", in->path);
	g_string_append_printf(
		t,
		" none of the job attempt analyzed: %s comms are those of another attempt in the other logs, so none of %s records were read with it",
		logs > 1 ? "their" : "its", logs > 1 ? "their" : "its");
	for (guint k = 0; k < n && k < MAX_ATTEMPTS_LISTED; k++)
		describe_attempt(
			t, &g_array_index(in->attempts, struct hd_attempt, k),
			&sum[k], (int64_t)k + in->attempt_shift, logs);
	g_string_append(t, " (--attempt N analyzes another)");
	g_ptr_array_add(a->notes, g_string_free(t, FALSE));
}

/*
 * Logs that hold several job attempts (a hang, then a restart): which
 * one was analyzed and what the others held, so a hang before a healthy
 * restart is never silently dropped.  Logs with the same number of
 * attempts and the same one analyzed (every rank's log of one job) share
 * a note: the first names the lines, the counts are summed.
 */
static void note_attempts(const struct hd_store *s, struct hd_analysis *a)
{
	g_autofree bool *done = g_new0(bool, s->inputs->len + 1);

	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);
		guint n, logs = 0;
		g_autofree struct attempt_sum *sum = NULL;
		const struct hd_attempt *kept;
		GString *t;

		if (in->attempt_none && in->attempts && !done[i]) {
			note_attempt_none(s, a, i, done);
			continue;
		}
		if (done[i] || !in->attempts || in->attempts->len < 2 ||
		    !in->attempt)
			continue;
		n = in->attempts->len;
		sum = g_new0(struct attempt_sum, n);
		for (guint j = i; j < s->inputs->len; j++) {
			const struct hd_input *o =
				g_ptr_array_index(s->inputs, j);

			if (!o->attempts || o->attempts->len != n ||
			    o->attempt != in->attempt ||
			    o->attempt_shift != in->attempt_shift ||
			    o->attempt_none)
				continue;
			done[j] = true;
			logs++;
			sum_attempts(sum, o);
		}
		kept = &g_array_index(in->attempts, struct hd_attempt,
				      in->attempt - 1);
		t = g_string_new(NULL);
		if (logs > 1)
			g_string_append_printf(
				t,
				"%u logs hold %u job attempts each ('%s' and %u more)",
				logs, n, in->path, logs - 1);
		else
			g_string_append_printf(t, "'%s' holds %u job attempts",
					       in->path, n);
		g_string_append_printf(t,
				       "; analyzed attempt %" G_GINT64_FORMAT
				       " (lines %" G_GUINT64_FORMAT
				       "-%" G_GUINT64_FORMAT "%s)",
				       (int64_t)in->attempt + in->attempt_shift,
				       kept->first_line, kept->last_line,
				       logs > 1 ? " of the first" : "");
		for (guint k = 0, listed = 0; k < n; k++) {
			if (k + 1 == in->attempt)
				continue;
			if (listed++ == MAX_ATTEMPTS_LISTED) {
				g_string_append_printf(
					t, "; and %u more",
					n - 1 - MAX_ATTEMPTS_LISTED);
				break;
			}
			describe_attempt(t,
					 &g_array_index(in->attempts,
							struct hd_attempt, k),
					 &sum[k],
					 (int64_t)k + in->attempt_shift, logs);
		}
		g_string_append(t, " (--attempt N analyzes another)");
		g_ptr_array_add(a->notes, g_string_free(t, FALSE));
	}
}

static void run_straggler(struct hd_index *ix, struct hd_analysis *a)
{
	hd_straggler_run(ix->store, a);
}

/*
 * The checks in the order they run, and what each reads that an earlier
 * one made.  Verdicts a check reads change what it concludes (the c10d
 * check gives insufficient_data only when no earlier check concluded
 * anything; chains start from single-culprit missing/lagging verdicts and
 * follow the waits of the group, signal and c10d checks), so moving a
 * step is a change of behaviour: hd_engine_steps_ordered() refuses an
 * order where a step reads what no earlier step made.
 */
static const struct hd_check_step engine_steps[] = {
	{ "join", hd_join_run, 0, HD_DATA_JOIN },
	{ "groups", hd_check_groups, HD_DATA_JOIN,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_WAITS | HD_DATA_LOGS_END_EARLY },
	/* the c10d counters: a log that ends early is silent, not absent */
	{ "signals", hd_check_signals, HD_DATA_LOGS_END_EARLY,
	  HD_DATA_SIGNAL_VERDICTS | HD_DATA_WAITS },
	{ "c10d", hd_check_c10d,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS,
	  HD_DATA_C10D_VERDICTS | HD_DATA_WAITS },
	{ "anonymous", hd_check_anonymous, 0, HD_DATA_ANON_VERDICTS },
	{ "chains", hd_check_chains,
	  HD_DATA_WAITS | HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS,
	  HD_DATA_CHAIN_VERDICTS },
	{ "kernel", hd_check_kernel,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS,
	  HD_DATA_KERNEL_VERDICTS },
	/* py-spy (ev-a): reads every verdict that blames an absence */
	{ "pyspy", hd_check_pyspy,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS,
	  HD_DATA_PYSPY },
	/* gdb backtraces (issue 21): the same verdicts, from native stacks */
	{ "gdb", hd_check_gdb,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS,
	  HD_DATA_GDB },
	/* NCCL Inspector (issue 21): context for every verdict, no fault */
	{ "inspector", hd_check_inspector,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS,
	  HD_DATA_INSPECTOR },
	{ "straggler", run_straggler, 0, HD_DATA_STRAGGLER },
};

const struct hd_check_step *hd_engine_steps(size_t *n)
{
	*n = G_N_ELEMENTS(engine_steps);
	return engine_steps;
}

bool hd_engine_steps_ordered(const struct hd_check_step *steps, size_t n,
			     const char **bad)
{
	unsigned made = 0;

	for (size_t i = 0; i < n; i++) {
		if (steps[i].reads & ~made) {
			*bad = steps[i].name;
			return false;
		}
		made |= steps[i].makes;
	}
	*bad = NULL;
	return true;
}

/* Runs the steps in table order, once the order is known to be sound. */
static void run_checks(struct hd_index *ix, struct hd_analysis *a)
{
	const char *bad;

	if (!hd_engine_steps_ordered(engine_steps, G_N_ELEMENTS(engine_steps),
				     &bad))
		g_error("engine step '%s' reads what no earlier step made",
			bad);
	for (size_t i = 0; i < G_N_ELEMENTS(engine_steps); i++)
		engine_steps[i].run(ix, a);
}

struct hd_analysis *hd_engine_run_opts(const struct hd_store *store,
				       const struct hd_engine_opts *opts)
{
	struct hd_analysis *a = hd_analysis_new(store);
	struct hd_index *ix = hd_index_build(store);

	fill_ranks(ix, a);
	/* before the checks: a verdict of logs alone is placed in one */
	fill_c10d_groups(store, a);
	note_attempts(store, a);
	hd_consistency_run(ix, a);
	a->merged = a->conflicts->len && opts && opts->merge;
	if (hd_analysis_is_inconsistent(a)) {
		refuse_to_blame(a);
	} else {
		run_checks(ix, a);
		/* reads every verdict the steps made */
		decide_straggler(store, a);
	}
	merge_duplicates(ix, a);
	add_summary_verdict(ix, a);
	g_ptr_array_sort(a->verdicts, compare_verdicts);
	hd_fingerprint_run(ix, a);
	fill_group_stats(ix, a);
	fill_progress(ix, a);
	progress_user_frames(store, a);
	/* no "hang began" without evidence of a hang or failure */
	if (hd_analysis_has_fault(a) || hd_analysis_undecided(a))
		fill_hang_start(store, a);
	g_array_sort(a->progress, compare_progress);
	hd_next_run(a);
	hd_index_free(ix);
	return a;
}
