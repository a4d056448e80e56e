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
 * different zones.
 */
#include "config.h"

#include "hd-store.h"

#include <string.h>

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
 * op's extra record when op has UTC times to read (its input's clock is
 * UTC), else NULL: an op without one (NCCL COLL ops) has no time.
 */
static const struct hd_op_extra *
utc_times(const struct hd_store *s, const bool *utc, const struct hd_op *op)
{
	if (!hd_op_has_extra(op) || op->input >= s->inputs->len ||
	    !utc[op->input])
		return NULL;
	return hd_op_extra(s, op);
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
		const struct hd_op_extra *x = utc_times(s, utc, op);

		if (!x)
			continue;
		widen(&sp[op->input],
		      hd_time_make(x->t_enqueue_ns, HD_CLOCK_UTC));
		widen(&sp[op->input],
		      hd_time_make(x->t_start_ns, HD_CLOCK_UTC));
		widen(&sp[op->input], hd_time_make(x->t_end_ns, HD_CLOCK_UTC));
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
		const struct hd_op_extra *x = utc_times(s, utc, op);
		guint k;

		if (!x || (k = cluster[op->input]) >= nclusters)
			continue;
		{
			const int64_t ts[3] = { x->t_enqueue_ns, x->t_start_ns,
						x->t_end_ns };

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

void hd_store_keep_incident(struct hd_store *s)
{
	guint n = s->inputs->len, nclusters, best = 0, ntimed = 0, out;
	g_autofree guint *cluster = g_new(guint, n + 1);
	g_autofree guint *count = NULL;
	g_autofree int64_t *lo = NULL, *hi = NULL;
	g_autofree char *theirs = NULL;

	if (n < 2)
		return;
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
	out = 0;
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->input < n &&
		    hd_store_input(s, op->input)->other_incident)
			continue;
		if (out != i)
			g_array_index(s->ops, struct hd_op, out) = *op;
		out++;
	}
	g_array_set_size(s->ops, out);
	out = 0;
	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->prov.input < n &&
		    hd_store_input(s, sig->prov.input)->other_incident) {
			/* what the array's clear function would do */
			g_clear_pointer(&sig->text, g_free);
			continue;
		}
		if (out != i) {
			g_array_index(s->signals, struct hd_signal, out) = *sig;
			sig->text = NULL;
		}
		out++;
	}
	g_array_set_size(s->signals, out);
}
