/*
 * Inputs that cannot belong to one incident (hd-consistency.h).  Each rank
 * of a hung job leaves one dump and one log; when a rank has two inputs of
 * the same kind, they must tell one story.  Two stories for one rank, or
 * one process group name with two different overlapping member lists, mean
 * that several incidents were given as one, and any blame computed across
 * them would be made up.  Only ranks with two inputs of one kind are
 * walked, so the usual incident costs a pass over the ranks and groups.
 */
#include "config.h"

#include "hd-consistency.h"

#include <stdarg.h>
#include <string.h>

#include "hd-hash.h"
#include "hd-sort.h"
#include "hd-banned.h"

/* Conflicts listed; the rest are counted. */
#define MAX_CONFLICTS 12
/*
 * Two inputs of one rank further apart than HD_INCIDENT_GAP_NS
 * (hd-store.h), on one clock, are two incidents.  Times on clocks that
 * cannot be compared (a dated NCCL line and glog's month and day, a
 * dump's UTC and a log's local time) never set two inputs apart.
 */

struct input_summary {
	bool watched; /* its rank has another input of its kind */
	/* per clock (enum hd_clock): INT64_MIN when unknown */
	int64_t t_min[HD_CLOCK_COUNT], t_max[HD_CLOCK_COUNT];
	int nranks; /* largest group its ops belong to; -1 */
	GHashTable *comm_ids; /* uint64 commIds of its NCCL comms, or NULL */
};

struct conflicts {
	struct hd_analysis *a;
	guint total;
};

static void conflict(struct conflicts *c, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);
static void conflict(struct conflicts *c, const char *fmt, ...)
{
	va_list ap;

	c->total++;
	if (c->a->conflicts->len >= MAX_CONFLICTS)
		return;
	va_start(ap, fmt);
	g_ptr_array_add(c->a->conflicts, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

static const struct hd_input *input_at(const struct hd_store *s, uint32_t i)
{
	return g_ptr_array_index(s->inputs, i);
}

/* Marks the inputs of ranks that have two or more of one kind. */
static bool mark_watched(const struct hd_store *s, struct input_summary *sum)
{
	GHashTableIter it;
	gpointer value;
	bool any = false;

	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct hd_rank *r = value;

		for (guint i = 0; r->inputs && i < r->inputs->len; i++) {
			uint32_t x = g_array_index(r->inputs, uint32_t, i);

			for (guint j = i + 1; j < r->inputs->len; j++) {
				uint32_t y =
					g_array_index(r->inputs, uint32_t, j);

				if (x < s->inputs->len && y < s->inputs->len &&
				    input_at(s, x)->kind ==
					    input_at(s, y)->kind &&
				    input_at(s, x)->kind != HD_INPUT_UNKNOWN) {
					sum[x].watched = sum[y].watched = true;
					any = true;
				}
			}
		}
	}
	return any;
}

static void widen(struct input_summary *in, struct hd_time t)
{
	int64_t *lo, *hi;

	if (!hd_time_known(t) || t.clock >= HD_CLOCK_COUNT)
		return;
	lo = &in->t_min[t.clock];
	hi = &in->t_max[t.clock];
	if (*lo == INT64_MIN || t.ns < *lo)
		*lo = t.ns;
	if (*hi == INT64_MIN || t.ns > *hi)
		*hi = t.ns;
}

/*
 * Whether a and b cover times more than HD_INCIDENT_GAP_NS apart on a
 * clock both have and that compares across inputs; the clock in *clock.
 */
static bool far_apart(const struct input_summary *a,
		      const struct input_summary *b, enum hd_clock *clock)
{
	static const enum hd_clock clocks[] = { HD_CLOCK_UTC, HD_CLOCK_LOCAL,
						HD_CLOCK_MONTH_DAY };

	for (size_t i = 0; i < G_N_ELEMENTS(clocks); i++) {
		enum hd_clock k = clocks[i];
		struct hd_time amin = hd_time_make(a->t_min[k], k),
			       amax = hd_time_make(a->t_max[k], k),
			       bmin = hd_time_make(b->t_min[k], k),
			       bmax = hd_time_make(b->t_max[k], k);
		/* a wall clock may have jumped an hour at a DST change */
		int64_t gap = k == HD_CLOCK_UTC
				      ? HD_INCIDENT_GAP_NS
				      : HD_INCIDENT_GAP_NS + HD_DST_SHIFT_NS;

		if ((hd_time_order(amax, bmin, HD_SCOPE_APART, gap) ==
		     HD_ORDER_BEFORE) ||
		    (hd_time_order(bmax, amin, HD_SCOPE_APART, gap) ==
		     HD_ORDER_BEFORE)) {
			*clock = k;
			return true;
		}
	}
	return false;
}

static void summarize(const struct hd_store *s, struct input_summary *sum)
{
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		struct input_summary *in;
		const struct hd_group *g;

		if (op->input >= s->inputs->len || !sum[op->input].watched)
			continue;
		in = &sum[op->input];
		widen(in, hd_op_time(s, op, hd_op_t_enqueue(s, op)));
		widen(in, hd_op_time(s, op, hd_op_t_start(s, op)));
		widen(in, hd_op_time(s, op, hd_op_t_end(s, op)));
		if (op->group >= s->groups->len)
			continue;
		g = hd_store_group_at(s, op->group);
		if (g->nranks > in->nranks)
			in->nranks = g->nranks;
		if (g->has_comm_id) {
			if (!in->comm_ids)
				in->comm_ids = g_hash_table_new_full(
					hd_int64_hash, hd_int64_equal, g_free,
					NULL);
			if (!g_hash_table_contains(in->comm_ids, &g->comm_id)) {
				uint64_t *id = g_new(uint64_t, 1);

				*id = g->comm_id;
				g_hash_table_add(in->comm_ids, id);
			}
		}
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->prov.input < s->inputs->len &&
		    sum[sig->prov.input].watched)
			widen(&sum[sig->prov.input], sig->time);
	}
}

static bool share_a_comm(GHashTable *x, GHashTable *y)
{
	GHashTableIter it;
	gpointer key;

	g_hash_table_iter_init(&it, x);
	while (g_hash_table_iter_next(&it, &key, NULL))
		if (g_hash_table_contains(y, key))
			return true;
	return false;
}

/* How many inputs of kind describe rank. */
static guint inputs_of_kind(const struct hd_store *s, int rank,
			    enum hd_input_kind kind)
{
	const struct hd_rank *r = hd_store_find_rank(s, rank);
	guint n = 0;

	for (guint i = 0; r && r->inputs && i < r->inputs->len; i++) {
		uint32_t x = g_array_index(r->inputs, uint32_t, i);

		if (x < s->inputs->len && input_at(s, x)->kind == kind)
			n++;
	}
	return n;
}

/*
 * Whether one log of another rank than rank names a comm of x and one of
 * y: then two logs of rank that name no commId in common are still one
 * job (a rotated log split where a restart began: the other ranks' logs
 * hold both attempts' Init lines, even where only one attempt is kept).
 * Group members do not say which log named them, so only a member with
 * one log of the kind counts: two jobs run side by side on one node
 * (ranks 0-3 on GPUs 0-3, ranks 0-3 again on GPUs 4-7) make every rank
 * a member of a comm of each, but through two logs, never one.
 */
static bool bridged(const struct hd_store *s, int rank, GHashTable *x,
		    GHashTable *y, enum hd_input_kind kind)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);

	for (guint i = 0; i < s->groups->len; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);
		guint now;

		if (!g->has_comm_id)
			continue;
		now = (g_hash_table_contains(x, &g->comm_id) ? 1u : 0u) |
		      (g_hash_table_contains(y, &g->comm_id) ? 2u : 0u);
		for (guint k = 0; now && k < g->members->len; k++) {
			int m = g_array_index(g->members, int, k);
			guint had;

			if (m < 0 || m == rank)
				continue;
			had = GPOINTER_TO_UINT(
				g_hash_table_lookup(seen, GINT_TO_POINTER(m)));
			if ((had | now) == 3u &&
			    inputs_of_kind(s, m, kind) == 1)
				return true;
			g_hash_table_insert(seen, GINT_TO_POINTER(m),
					    GUINT_TO_POINTER(had | now));
		}
	}
	return false;
}

/* Compares every pair of one rank's inputs of one kind, as wholes. */
static void compare_pairs(const struct hd_store *s,
			  const struct input_summary *sum, struct conflicts *c)
{
	g_autoptr(GPtrArray) ranks = g_ptr_array_new();
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value))
		g_ptr_array_add(ranks, value);
	/* In rank order, so reports do not depend on hashing. */
	g_ptr_array_sort(ranks, hd_compare_rank_ptr);
	for (guint k = 0; k < ranks->len; k++) {
		const struct hd_rank *r = g_ptr_array_index(ranks, k);

		for (guint i = 0; r->inputs && i < r->inputs->len; i++) {
			uint32_t x = g_array_index(r->inputs, uint32_t, i);

			for (guint j = i + 1; j < r->inputs->len; j++) {
				uint32_t y =
					g_array_index(r->inputs, uint32_t, j);
				const struct input_summary *a = &sum[x],
							   *b = &sum[y];
				const struct hd_input *ia = input_at(s, x),
						      *ib = input_at(s, y);
				enum hd_clock clock = HD_CLOCK_NONE;

				if (!a->watched || !b->watched ||
				    ia->kind != ib->kind)
					continue;
				if (a->nranks > 0 && b->nranks > 0 &&
				    a->nranks != b->nranks)
					conflict(
						c,
						"rank %d: '%s' is from a job of %d ranks, '%s' from one of %d",
						r->rank, ia->path, a->nranks,
						ib->path, b->nranks);
				else if (a->comm_ids && b->comm_ids &&
					 !share_a_comm(a->comm_ids,
						       b->comm_ids) &&
					 !bridged(s, r->rank, a->comm_ids,
						  b->comm_ids, ia->kind))
					conflict(
						c,
						"rank %d: '%s' and '%s' name no NCCL commId in common",
						r->rank, ia->path, ib->path);
				else if (far_apart(a, b, &clock))
					conflict(
						c,
						"rank %d: '%s' and '%s' cover times more than an hour apart (%s clock)",
						r->rank, ia->path, ib->path,
						hd_clock_name(clock));
			}
		}
	}
}

/* Where one input's ops end in a lane. */
struct lane_end {
	uint32_t input;
	int64_t min_seq, max_seq;
	const struct hd_op *at_max;
};

/*
 * Two inputs of one kind that hold the same rank's ops in one group must
 * hold the same ops: the same call at each position they share, and the
 * same last position (a hung rank's progress does not move between dumps).
 */
static void compare_lanes(const struct hd_index *ix,
			  const struct input_summary *sum, struct conflicts *c)
{
	const struct hd_store *s = ix->store;
	struct hd_lane_iter it;
	const struct hd_lane *lane;

	hd_lane_iter_init(&it, ix);
	while ((lane = hd_lane_iter_next(&it))) {
		g_autoptr(GArray) ends = NULL;
		const struct hd_op *prev = NULL;
		bool said = false;

		if (lane->n == 0 ||
		    !sum[hd_index_op(ix, lane->ops[0])->input].watched)
			continue;
		ends = g_array_new(FALSE, FALSE, sizeof(struct lane_end));
		for (uint32_t i = 0; i < lane->n; i++) {
			const struct hd_op *op = hd_index_op(ix, lane->ops[i]);
			struct lane_end *e = NULL;

			if (prev && !said && prev->seq == op->seq &&
			    prev->input != op->input &&
			    (prev->kind != op->kind ||
			     hd_op_desc(prev) != hd_op_desc(op) ||
			     prev->state != op->state)) {
				g_autofree char *label = hd_group_label(
					s, it.group, HD_GROUP_LABEL_LONG);
				g_autofree char *x =
					hd_op_describe_bare(s, prev);
				g_autofree char *y = hd_op_describe_bare(s, op);

				conflict(
					c,
					"rank %d: '%s' and '%s' disagree on %s: %s; %s",
					lane->rank,
					input_at(s, prev->input)->path,
					input_at(s, op->input)->path, label, x,
					y);
				said = true;
			}
			prev = op;
			for (guint k = 0; k < ends->len; k++)
				if (g_array_index(ends, struct lane_end, k)
					    .input == op->input)
					e = &g_array_index(ends,
							   struct lane_end, k);
			if (!e) {
				struct lane_end ne = { op->input, op->seq,
						       op->seq, op };

				if (ends->len < 16)
					g_array_append_val(ends, ne);
			} else if (op->seq >= e->max_seq) {
				e->max_seq = op->seq;
				e->at_max = op;
			}
			if (e && op->seq < e->min_seq)
				e->min_seq = op->seq;
		}
		for (guint k = 1; k < ends->len && !said; k++) {
			const struct lane_end *x =
				&g_array_index(ends, struct lane_end, 0);
			const struct lane_end *y =
				&g_array_index(ends, struct lane_end, k);
			g_autofree char *label = NULL;

			/*
			 * A cut input ends early: that says nothing; nor do
			 * inputs that hold spans of the lane that do not
			 * overlap (a rotated log's older and newer file).
			 */
			if (x->max_seq == y->max_seq ||
			    x->max_seq < y->min_seq ||
			    y->max_seq < x->min_seq ||
			    input_at(s, x->input)->truncated ||
			    input_at(s, y->input)->truncated)
				continue;
			label = hd_group_label(s, it.group,
					       HD_GROUP_LABEL_LONG);
			conflict(
				c,
				"rank %d: two %s disagree: '%s' ends at %s seq %" G_GINT64_FORMAT
				", '%s' at seq %" G_GINT64_FORMAT,
				lane->rank,
				hd_input_kind_words(
					input_at(s, x->input)->kind),
				input_at(s, x->input)->path, label, x->max_seq,
				input_at(s, y->input)->path, y->max_seq);
			said = true;
		}
	}
}

/* One process group name, two overlapping member lists. */
static void compare_group_names(const struct hd_store *s, struct conflicts *c)
{
	/* "name" -> GHashTable rank -> group index + 1 */
	g_autoptr(GHashTable) by_name =
		g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
				      (GDestroyNotify)g_hash_table_unref);

	for (guint gi = 0; gi < s->groups->len; gi++) {
		const struct hd_group *g = hd_store_group_at(s, gi);
		GHashTable *members;
		bool said = false;

		if (!g->name || g->low_confidence_identity || !g->members ||
		    strncmp(g->id, "pg:", 3) != 0)
			continue;
		members = g_hash_table_lookup(by_name, g->name);
		if (!members) {
			members =
				g_hash_table_new(g_direct_hash, g_direct_equal);
			g_hash_table_insert(by_name, g->name, members);
		}
		for (guint m = 0; m < g->members->len; m++) {
			int r = g_array_index(g->members, int, m);
			guint other;

			if (r < 0)
				continue;
			other = GPOINTER_TO_UINT(g_hash_table_lookup(
				members, GINT_TO_POINTER(r)));
			if (other && other != gi + 1 && !said) {
				const struct hd_group *o =
					hd_store_group_at(s, other - 1);

				conflict(
					c,
					"process group '%s' has two member lists that share rank %d: %s and %s",
					g->name, r, o->id, g->id);
				said = true;
			}
			if (!other)
				g_hash_table_insert(members, GINT_TO_POINTER(r),
						    GUINT_TO_POINTER(gi + 1));
		}
	}
}

/*
 * Inputs of any ranks whose UTC times fall into several incidents that no
 * majority decides between (hd_store_keep_incident() already set apart
 * the inputs of a minority): one conflict per incident after the first,
 * naming an input of each.
 */
static void compare_incidents(const struct hd_store *s, struct conflicts *c)
{
	g_autofree guint *cluster = g_new(guint, s->inputs->len + 1);
	guint n = hd_store_incident_clusters(s, cluster);
	g_autofree guint *first = NULL, *count = NULL;

	if (n < 2)
		return;
	first = g_new(guint, n);
	count = g_new0(guint, n);
	for (guint k = 0; k < n; k++)
		first[k] = G_MAXUINT;
	for (guint i = 0; i < s->inputs->len; i++) {
		if (cluster[i] == G_MAXUINT)
			continue;
		if (first[cluster[i]] == G_MAXUINT)
			first[cluster[i]] = i;
		count[cluster[i]]++;
	}
	for (guint k = 1; k < n; k++)
		conflict(
			c,
			"'%s' (and %u more input%s) and '%s' (and %u more) cover times more than an hour apart (UTC clock), and neither set is most of the inputs: two incidents",
			input_at(s, first[k - 1])->path, count[k - 1] - 1,
			count[k - 1] == 2 ? "" : "s",
			input_at(s, first[k])->path, count[k] - 1);
}

void hd_consistency_run(const struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct conflicts c = { a, 0 };
	g_autofree struct input_summary *sum =
		g_new0(struct input_summary, s->inputs->len + 1);

	for (guint i = 0; i < s->inputs->len; i++) {
		for (int k = 0; k < HD_CLOCK_COUNT; k++)
			sum[i].t_min[k] = sum[i].t_max[k] = INT64_MIN;
		sum[i].nranks = -1;
	}
	if (mark_watched(s, sum)) {
		summarize(s, sum);
		compare_pairs(s, sum, &c);
		compare_lanes(ix, sum, &c);
	}
	compare_incidents(s, &c);
	compare_group_names(s, &c);
	if (c.total > a->conflicts->len)
		g_ptr_array_add(a->conflicts,
				g_strdup_printf("... and %u more conflicts",
						c.total - a->conflicts->len));
	for (guint i = 0; i < s->inputs->len; i++)
		if (sum[i].comm_ids)
			g_hash_table_unref(sum[i].comm_ids);
}
