/*
 * Host events of another time than the incident, set apart: kernel times
 * count from boot and are never compared with wall clocks, but a record
 * of an earlier boot than the log's last (kernel-log.c keeps it as
 * context), a dated event (dmesg -T, journalctl) more than an hour from
 * all of the incident's own records on its clock (a kernel log of
 * yesterday), and one its rank outlived (seen working a minute after it)
 * are noted, never a cause.  See hd-host-stale.h.
 */
#include "config.h"

#include "hd-host-stale.h"
#include "hd-sig-util.h"
#include "hd-banned.h"

static void span_widen(GHashTable *by, struct hd_time t, const char *host)
{
	for (int k = 0; k < 2; k++) {
		g_autofree char *key = g_strdup_printf("%d|%s", t.clock,
						       k && host ? host : "");
		int64_t *sp;

		if (k && !host)
			break;
		sp = g_hash_table_lookup(by, key);
		if (!sp) {
			sp = g_new(int64_t, 2);
			sp[0] = sp[1] = t.ns;
			g_hash_table_insert(by, g_steal_pointer(&key), sp);
		}
		sp[0] = MIN(sp[0], t.ns);
		sp[1] = MAX(sp[1], t.ns);
	}
}

void hd_host_spans_build(const struct hd_store *s, struct hd_host_spans *sp)
{
	sp->by = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		const char *host = sig->host;

		if (hd_host_from_state(s, sig) || !hd_time_known(sig->time))
			continue;
		if (!host && sig->rank >= 0) {
			const struct hd_rank *r =
				hd_store_find_rank(s, sig->rank);

			host = r ? r->host : NULL;
		}
		span_widen(sp->by, sig->time, host);
	}
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		const struct hd_rank *r;
		struct hd_time t;

		/* an op without an extra record has no time */
		if (!hd_op_has_extra(op))
			continue;
		r = hd_store_find_rank(s, hd_op_rank(op));
		t = hd_op_time(s, op,
			       hd_op_t_start(s, op) != INT64_MIN
				       ? hd_op_t_start(s, op)
				       : hd_op_t_enqueue(s, op));
		if (hd_time_known(t))
			span_widen(sp->by, t, r ? r->host : NULL);
		t = hd_op_time(s, op, hd_op_t_end(s, op));
		if (hd_time_known(t))
			span_widen(sp->by, t, r ? r->host : NULL);
	}
}

/*
 * Whether e's date lies more than an hour (two for a local wall clock,
 * which may have jumped at a DST change) from every record of the
 * incident on its clock: UTC against UTC; local against local, of its
 * own host when the hosts keep different zones.  Boot-relative times and
 * clocks the incident does not share say nothing.  *span: the incident's.
 */
static bool event_stale(const struct hd_store *s,
			const struct hd_host_spans *sp,
			const struct hd_host_event *e, const int64_t **span)
{
	struct hd_time t = e->sig->time;
	bool local = t.clock == HD_CLOCK_LOCAL || t.clock == HD_CLOCK_MONTH_DAY;
	g_autofree char *key = NULL;
	int64_t gap = local ? HD_INCIDENT_GAP_NS + HD_DST_SHIFT_NS
			    : HD_INCIDENT_GAP_NS;

	if (!hd_time_known(t) || (t.clock != HD_CLOCK_UTC && !local))
		return false;
	if (local && s->local_zones_apart && !e->host)
		return false;
	key = g_strdup_printf("%d|%s", t.clock,
			      local && s->local_zones_apart ? e->host : "");
	*span = g_hash_table_lookup(sp->by, key);
	if (!*span)
		return false;
	/* all within 1970..2200 (hd_store_bound()): no overflow */
	return t.ns < (*span)[0] - gap || t.ns > (*span)[1] + gap;
}

/*
 * Whether sig, an event here, is a kernel log's record of an earlier boot
 * than the log's last: kernel-log.c keeps those as context (HD_SIG_INFO),
 * and its only other context records, links coming up, are no events.
 * (InfiniBand state keeps a disabled port as context too, and that may be
 * an event: only kernel logs show boots.)
 */
static bool of_earlier_boot(const struct hd_store *s,
			    const struct hd_signal *sig)
{
	return sig->cat == HD_SIG_INFO &&
	       hd_store_input(s, sig->prov.input)->kind == HD_INPUT_KERNEL_LOG;
}

/*
 * Whether a host event, joined as far as it joins, is of another time
 * than this incident, so never a cause; the first such event gets a note
 * saying why, the rest are counted in *n.  One question with three
 * answers, each from records the event shares a clock or a file with:
 * - of an earlier boot: its kernel log shows the host booted again after
 *   it (of_earlier_boot());
 * - another incident's: dated more than an hour from every record of
 *   this incident on its clock (event_stale());
 * - outlived: the rank it joins was seen working more than a minute after
 *   it, on a clock both compare on (hd_sig_outlived()).
 */
bool hd_host_set_apart(const struct hd_host_ctx *k, struct hd_index *ix,
		       const struct hd_host_spans *sp,
		       const struct hd_host_event *e, guint *n)
{
	const struct hd_store *s = k->s;
	const int64_t *span = NULL;
	struct hd_time last = hd_time_none();
	g_autofree char *src = NULL, *when = NULL, *why = NULL;

	if (of_earlier_boot(s, e->sig)) {
		if (!(*n)++)
			why = g_strdup(
				"of an earlier boot: its log shows the host booted again after it");
	} else if (event_stale(s, sp, e, &span)) {
		if (!(*n)++) {
			g_autofree char *lo = hd_time_format(
				hd_time_make(span[0], e->sig->time.clock), 0);
			g_autofree char *hi = hd_time_format(
				hd_time_make(span[1], e->sig->time.clock), 0);

			why = g_strdup_printf(
				"more than an hour from this incident's records (%s to %s): another incident's",
				lo, hi);
		}
	} else if (e->rank >= 0 &&
		   hd_sig_outlived(ix, e->sig, e->rank, &last)) {
		if (!(*n)++) {
			g_autofree char *later = hd_time_format(last, 0);

			why = g_strdup_printf(
				"joined to rank %d, which was seen working at %s, after it: the rank outlived it",
				e->rank, later);
		}
	} else {
		return false;
	}
	if (!why)
		return true;
	src = hd_prov_format(s, &e->sig->prov);
	when = hd_time_known(e->sig->time) ? hd_time_format(e->sig->time, 0)
					   : NULL;
	g_ptr_array_add(
		k->a->notes,
		g_strdup_printf("%s: a host-state event%s%s, %s: not a cause",
				src, when ? " at " : "", when ? when : "",
				why));
	return true;
}

void hd_host_spans_clear(struct hd_host_spans *sp)
{
	if (sp->by)
		g_hash_table_unref(sp->by);
	sp->by = NULL;
}
