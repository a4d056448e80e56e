/*
 * One incident out of inputs of several (hd-store.h): a dump left over
 * from an earlier run among the dumps of this hang.  Each input's records
 * span some time on the UTC clock (a dump's time_created_ns, a trace's
 * base time, a dated line with a zone); inputs whose spans are more than
 * HD_INCIDENT_GAP_NS apart cannot be one hang, since every rank of a hung
 * job stops within one collective of the others.  The inputs fall into
 * clusters of spans that touch (within the gap); when one cluster holds
 * most of the timed inputs, the others are set apart as another
 * incident's: their records are dropped, the input says why, and its rank
 * counts as one that left no data.  Without such a majority nothing is
 * dropped, and the consistency check refuses the lot (hd-consistency.c).
 * Only UTC times are compared: local clocks of different hosts may be in
 * different zones.  Whether they are is told here too, from the hosts'
 * local-clock records (hd_store_mark_local_zones()).
 */
#include "config.h"

#include "hd-store.h"

#include <string.h>

#include "hd-const.h"
#include "hd-banned.h"

struct span {
	guint input;
	int64_t lo, hi; /* UTC ns; lo INT64_MIN: no UTC time */
};

static void widen(struct span *sp, struct hd_time t)
{
	if (!hd_time_known(t) || t.clock != HD_CLOCK_UTC)
		return;
	if (sp->lo == INT64_MIN || t.ns < sp->lo)
		sp->lo = t.ns;
	if (sp->lo == INT64_MIN || sp->hi == INT64_MIN || t.ns > sp->hi)
		sp->hi = t.ns;
}

/*
 * Whether the ops of each input are on the UTC clock (hd_input.op_clock):
 * the only times these passes read.  (transfer full)
 */
static bool *inputs_utc(const struct hd_store *s)
{
	bool *utc = g_new(bool, s->inputs->len + 1);

	for (guint i = 0; i < s->inputs->len; i++)
		utc[i] = hd_store_input(s, i)->op_clock == HD_CLOCK_UTC;
	return utc;
}

/*
 * Fills x with op's extra record when op has UTC times to read (its
 * input's clock is UTC), else returns false: an op without one (NCCL COLL
 * ops) has no time.
 */
static bool utc_times(const struct hd_store *s, const bool *utc,
		      const struct hd_op *op, struct hd_op_extra *x)
{
	if (!hd_op_has_extra(op) || op->input >= s->inputs->len ||
	    !utc[op->input])
		return false;
	*x = hd_op_extra(s, op);
	return true;
}

static gint compare_span(gconstpointer pa, gconstpointer pb)
{
	const struct span *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return (a->input > b->input) - (a->input < b->input);
}

/* hi + the gap, saturated: times near INT64_MAX must not wrap. */
static int64_t reach(int64_t hi)
{
	return hi > INT64_MAX - HD_INCIDENT_GAP_NS ? INT64_MAX
						   : hi + HD_INCIDENT_GAP_NS;
}

guint hd_store_incident_clusters(const struct hd_store *s, guint *cluster)
{
	guint n = s->inputs->len, ntimed = 0, k = 0;
	g_autofree struct span *sp = g_new(struct span, n + 1);
	g_autofree bool *utc = inputs_utc(s);
	int64_t hi = INT64_MIN;

	for (guint i = 0; i < n; i++) {
		sp[i].input = i;
		sp[i].lo = sp[i].hi = INT64_MIN;
		cluster[i] = G_MAXUINT;
	}
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		struct hd_op_extra x;

		if (!utc_times(s, utc, op, &x))
			continue;
		widen(&sp[op->input],
		      hd_time_make(x.t_enqueue_ns, HD_CLOCK_UTC));
		widen(&sp[op->input], hd_time_make(x.t_start_ns, HD_CLOCK_UTC));
		widen(&sp[op->input], hd_time_make(x.t_end_ns, HD_CLOCK_UTC));
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->prov.input < n)
			widen(&sp[sig->prov.input], sig->time);
	}
	/* the timed spans first, by start; then single linkage */
	for (guint i = 0; i < n; i++)
		if (sp[i].lo != INT64_MIN)
			sp[ntimed++] = sp[i];
	qsort(sp, ntimed, sizeof(*sp), compare_span);
	for (guint i = 0; i < ntimed; i++) {
		if (i > 0 && sp[i].lo > reach(hi))
			k++;
		if (i == 0 || sp[i].hi > hi)
			hi = sp[i].hi;
		cluster[sp[i].input] = k;
	}
	return ntimed ? k + 1 : 0;
}

/* "2023-11-14 22:13:20 UTC to 22:13:20": one input's span, for a reader. */
static char *span_text(int64_t lo, int64_t hi)
{
	g_autofree char *a = hd_time_format(hd_time_make(lo, HD_CLOCK_UTC), 0);
	g_autofree char *b = hd_time_format(hd_time_make(hi, HD_CLOCK_UTC), 0);

	return g_strdup_printf("%s to %s", a, b);
}

/* How far apart, to the nearest hour (the gap is more than one). */
static char *gap_text(int64_t a_hi, int64_t b_lo)
{
	/* both below HD_TIME_NS_MAX or at worst INT64 extremes: in uint64 */
	uint64_t d = b_lo >= a_hi ? (uint64_t)b_lo - (uint64_t)a_hi
				  : (uint64_t)a_hi - (uint64_t)b_lo;
	uint64_t hour = 3600u * (uint64_t)HD_NS_PER_SEC;
	uint64_t h = d / hour + (d % hour >= hour / 2);

	if (h >= 48)
		return g_strdup_printf("about %" G_GUINT64_FORMAT " days",
				       (h + 12) / 24);
	return g_strdup_printf("about %" G_GUINT64_FORMAT " hours", h);
}

/*
 * The UTC span of each cluster's inputs, lo[k] .. hi[k]: one pass over the
 * records, whatever the number of clusters.
 */
static void cluster_spans(const struct hd_store *s, const guint *cluster,
			  int64_t *lo, int64_t *hi, guint nclusters)
{
	g_autofree bool *utc = inputs_utc(s);

	for (guint k = 0; k < nclusters; k++) {
		lo[k] = INT64_MAX;
		hi[k] = INT64_MIN;
	}
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		struct hd_op_extra x;
		guint k;

		if (!utc_times(s, utc, op, &x) ||
		    (k = cluster[op->input]) >= nclusters)
			continue;
		{
			const int64_t ts[3] = { x.t_enqueue_ns, x.t_start_ns,
						x.t_end_ns };

			for (int j = 0; j < 3; j++) {
				if (ts[j] == INT64_MIN)
					continue;
				lo[k] = MIN(lo[k], ts[j]);
				hi[k] = MAX(hi[k], ts[j]);
			}
		}
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		guint k;

		if (sig->prov.input >= s->inputs->len ||
		    (k = cluster[sig->prov.input]) >= nclusters ||
		    !hd_time_known(sig->time) ||
		    sig->time.clock != HD_CLOCK_UTC)
			continue;
		lo[k] = MIN(lo[k], sig->time.ns);
		hi[k] = MAX(hi[k], sig->time.ns);
	}
}

/* Takes input i off its rank's record: it describes no rank of this hang. */
static void detach_from_rank(struct hd_store *s, guint i)
{
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		struct hd_rank *r = value;

		for (guint j = 0; r->inputs && j < r->inputs->len;) {
			if (g_array_index(r->inputs, uint32_t, j) == i)
				g_array_remove_index(r->inputs, j);
			else
				j++;
		}
	}
}

/* Whether a record of input `input` is of an input set apart. */
static bool of_other_incident(const struct hd_store *s, uint32_t input)
{
	return input < s->inputs->len &&
	       hd_store_input(s, input)->other_incident;
}

static bool other_incident_op(struct hd_op *op, void *data)
{
	return of_other_incident(data, op->input);
}

static bool other_incident_signal(struct hd_signal *sig, void *data)
{
	return of_other_incident(data, sig->prov.input);
}

/* Sets apart the inputs of another incident by their UTC times. */
static void set_apart_by_utc(struct hd_store *s)
{
	guint n = s->inputs->len, nclusters, best = 0, ntimed = 0;
	g_autofree guint *cluster = g_new(guint, n + 1);
	g_autofree guint *count = NULL;
	g_autofree int64_t *lo = NULL, *hi = NULL;
	g_autofree char *theirs = NULL;

	nclusters = hd_store_incident_clusters(s, cluster);
	if (nclusters < 2)
		return;
	count = g_new0(guint, nclusters);
	for (guint i = 0; i < n; i++)
		if (cluster[i] != G_MAXUINT) {
			count[cluster[i]]++;
			ntimed++;
		}
	for (guint k = 1; k < nclusters; k++)
		if (count[k] > count[best])
			best = k;
	/* no majority: which is the hang cannot be told; refused later */
	if (count[best] * 2 <= ntimed)
		return;
	lo = g_new(int64_t, nclusters);
	hi = g_new(int64_t, nclusters);
	cluster_spans(s, cluster, lo, hi, nclusters);
	theirs = span_text(lo[best], hi[best]);
	for (guint i = 0; i < n; i++) {
		struct hd_input *in = hd_store_input(s, i);
		g_autofree char *mine = NULL, *gap = NULL;
		g_autofree char *rank_note = NULL;
		guint k = cluster[i];
		bool before;

		if (k == G_MAXUINT || k == best)
			continue;
		mine = span_text(lo[k], hi[k]);
		rank_note =
			in->rank >= 0
				? g_strdup_printf(
					  ", so rank %d left no data of this one",
					  in->rank)
				: g_strdup("");
		before = hi[k] < lo[best];
		gap = before ? gap_text(hi[k], lo[best])
			     : gap_text(hi[best], lo[k]);
		in->other_incident = true;
		g_free(in->error);
		in->error = g_strdup_printf(
			"from another incident: its records (%s) are %s %s those of the other %u input%s (%s); not analyzed with them%s",
			mine, gap, before ? "before" : "after", count[best],
			count[best] == 1 ? "" : "s", theirs, rank_note);
		detach_from_rank(s, i);
	}
}

/* Drops the records of every input set apart. */
static void drop_set_apart(struct hd_store *s)
{
	hd_store_filter_ops(s, other_incident_op, s);
	hd_store_filter_signals(s, other_incident_signal, s);
}

/*
 * NCCL names each communicator it makes (commId), and every member's log
 * prints it.  The NCCL logs tied by the comms they share are one job run;
 * a log of one rank whose comms (of two ranks or more) no other log
 * holds, beside a run that ties logs of several ranks, is another run's:
 * a log of yesterday left in the directory, in place of its rank's or
 * beside it.  Logs of another whole job (several ranks tied among
 * themselves) are left to the consistency check, which refuses the mix.  Its rank then
 * left no data of this one (as a stale dump's: hd_store_keep_incident()).
 * Logs without a commId (NCCL before 2.16, a rotated newer file) tie
 * nothing and are never set apart so.
 */
/* The root of i, halving the path on the way (union-find). */
static guint root_of(guint *parent, guint i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

static void set_apart_foreign_logs(struct hd_store *s)
{
	guint n = s->inputs->len, best = G_MAXUINT, best_n = 0;
	bool tie = false;
	g_autofree guint *parent = g_new(guint, n + 1);
	g_autofree bool *has = g_new0(bool, n + 1);
	/* comm group -> first input that held it, + 1 */
	g_autoptr(GHashTable) first = g_hash_table_new(NULL, NULL);
	/* component root -> its ranks (a set) */
	g_autoptr(GHashTable) ranks = g_hash_table_new_full(
		NULL, NULL, NULL, (GDestroyNotify)g_hash_table_unref);
	GHashTableIter it;
	gpointer key, value;

	for (guint i = 0; i < n; i++)
		parent[i] = i;
	for (guint k = 0; k < s->ops->len; k++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, k);
		const struct hd_group *g;
		guint at, a, b;

		if (op->input >= n || op->group >= s->groups->len ||
		    hd_store_input(s, op->input)->kind != HD_INPUT_NCCL_LOG)
			continue;
		g = hd_store_group_at(s, op->group);
		if (!g->has_comm_id || g->low_confidence_identity ||
		    g->nranks < 2)
			continue;
		has[op->input] = true;
		at = GPOINTER_TO_UINT(g_hash_table_lookup(
			first, GUINT_TO_POINTER(op->group + 1)));
		if (!at) {
			g_hash_table_insert(first,
					    GUINT_TO_POINTER(op->group + 1),
					    GUINT_TO_POINTER(op->input + 1));
			continue;
		}
		a = root_of(parent, at - 1);
		b = root_of(parent, op->input);
		if (a != b)
			parent[b] = a;
	}
	/* each component's ranks, from its ops */
	for (guint k = 0; k < s->ops->len; k++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, k);
		GHashTable *set;
		guint r;

		if (op->input >= n || !has[op->input] || hd_op_rank(op) < 0)
			continue;
		r = root_of(parent, op->input);
		set = g_hash_table_lookup(ranks, GUINT_TO_POINTER(r + 1));
		if (!set) {
			set = g_hash_table_new(NULL, NULL);
			g_hash_table_insert(ranks, GUINT_TO_POINTER(r + 1),
					    set);
		}
		g_hash_table_add(set, GINT_TO_POINTER(hd_op_rank(op) + 1));
	}
	g_hash_table_iter_init(&it, ranks);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		guint size = g_hash_table_size(value);

		if (size > best_n) {
			best_n = size;
			best = GPOINTER_TO_UINT(key) - 1;
			tie = false;
		} else if (size == best_n) {
			tie = true;
		}
	}
	/* one run ties logs of several ranks, and only one does */
	if (best == G_MAXUINT || best_n < 2 || tie)
		return;
	for (guint i = 0; i < n; i++) {
		struct hd_input *in = hd_store_input(s, i);
		GHashTable *set;
		guint r;

		if (!has[i] || in->other_incident)
			continue;
		r = root_of(parent, i);
		set = g_hash_table_lookup(ranks, GUINT_TO_POINTER(r + 1));
		/* a stray log of one rank; logs of another whole job (ranks
		   of their own) are a conflict the consistency check names */
		if (r == best || !set || g_hash_table_size(set) != 1)
			continue;
		in->other_incident = true;
		g_free(in->error);
		in->error = g_strdup_printf(
			"from another run: its NCCL communicators (commId) are in none of the other logs, which share theirs among %u ranks; not analyzed with them",
			best_n);
		detach_from_rank(s, i);
	}
}

void hd_store_keep_incident(struct hd_store *s)
{
	if (s->inputs->len < 2)
		return;
	set_apart_by_utc(s);
	set_apart_foreign_logs(s);
	drop_set_apart(s);
}

/*
 * The hosts' local clocks: per clock kind (local dates, glog's month and
 * day), the earliest last record of any host and the latest first one.
 * When one host's records all end more than HD_ZONE_APART_NS before
 * another's begin, the two do not keep one zone.
 */
void hd_store_mark_local_zones(struct hd_store *s)
{
	static const enum hd_clock kinds[] = { HD_CLOCK_LOCAL,
					       HD_CLOCK_MONTH_DAY };
	g_autoptr(GHashTable) spans =
		g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);

	s->local_zones_apart = false;
	for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
		int64_t min_hi = INT64_MAX, max_lo = INT64_MIN;
		GHashTableIter it;
		gpointer value;

		g_hash_table_remove_all(spans);
		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *sig =
				&g_array_index(s->signals, struct hd_signal, i);
			const char *host = sig->host;
			int64_t *sp;

			if (!hd_time_known(sig->time) ||
			    sig->time.clock != kinds[k])
				continue;
			if (!host && sig->rank >= 0) {
				const struct hd_rank *r =
					hd_store_find_rank(s, sig->rank);

				host = r ? r->host : NULL;
			}
			if (!host || !*host)
				continue;
			sp = g_hash_table_lookup(spans, host);
			if (!sp) {
				sp = g_new(int64_t, 2);
				sp[0] = sp[1] = sig->time.ns;
				/* interned: the pointer is the key's life */
				g_hash_table_insert(spans, hd_unconst(host),
						    sp);
			}
			sp[0] = MIN(sp[0], sig->time.ns);
			sp[1] = MAX(sp[1], sig->time.ns);
		}
		if (g_hash_table_size(spans) < 2)
			continue;
		g_hash_table_iter_init(&it, spans);
		while (g_hash_table_iter_next(&it, NULL, &value)) {
			const int64_t *sp = value;

			min_hi = MIN(min_hi, sp[1]);
			max_lo = MAX(max_lo, sp[0]);
		}
		/* both within 1970..2200 (hd_store_bound()): no overflow */
		if (max_lo > min_hi && max_lo - min_hi > HD_ZONE_APART_NS)
			s->local_zones_apart = true;
	}
}
