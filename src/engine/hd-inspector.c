/*
 * NCCL Inspector timings (docs/format-nccl-inspector.md, issue 21): the
 * parser summed each communicator's collectives per rank (coll_timing
 * signals).  They are context and performance notes, never a fault: the
 * plugin writes what completed, so a healthy run shows every rank at the
 * same collective, and a hung one shows where each rank's completions
 * stop, at the grain of the plugin's dump interval.
 *
 *  - per communicator, when the ranks' last collectives differ, a note
 *    names the ranks behind (a lag of one dump is normal: no blame);
 *  - per communicator of at least three ranks, a rank whose mean
 *    execution time is over twice the ranks' median is a performance
 *    note;
 *  - a verdict that blames a rank with timings gets, as evidence, that
 *    rank's last completed collective on each communicator.
 *
 * Reads the store's signals and the verdicts already made; never files.
 */
#include "config.h"

#include <string.h>

#include "hd-checks.h"
#include "hd-const.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

/* Notes of this step, before the rest are dropped. */
#define INSP_MAX_NOTES 8

/* The coll_timing signals of one communicator, as indices. */
static void one_comm(const struct hd_store *s, const GArray *idx,
		     const char *comm, struct hd_analysis *a, guint *notes)
{
	g_autoptr(GArray) behind = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) means = g_array_new(FALSE, FALSE, sizeof(int64_t));
	int64_t top = -1, median;

	for (guint i = 0; i < idx->len; i++) {
		const struct hd_signal *sig =
			hd_sig_at(s, g_array_index(idx, guint, i));

		int64_t mean = hd_signal_timing_mean_us(sig);

		top = MAX(top, hd_signal_timing_last_sn(sig));
		g_array_append_val(means, mean);
	}
	for (guint i = 0; i < idx->len; i++) {
		const struct hd_signal *sig =
			hd_sig_at(s, g_array_index(idx, guint, i));
		int r = sig->rank;

		if (hd_signal_timing_last_sn(sig) < top)
			g_array_append_val(behind, r);
	}
	if (behind->len && (*notes)++ < INSP_MAX_NOTES) {
		g_autofree char *rt = NULL;

		g_array_sort(behind, hd_compare_int);
		rt = hd_ranks_text(behind, 8);
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"NCCL Inspector, comm %s: rank%s %s completed fewer collectives than the others (up to #%" G_GINT64_FORMAT
				" on the rest); the plugin dumps periodically, so one interval of lag is normal",
				comm, behind->len == 1 ? "" : "s", rt, top));
	}
	if (idx->len < 3)
		return;
	g_array_sort(means, hd_compare_i64);
	median = g_array_index(means, int64_t, means->len / 2);
	for (guint i = 0; median > 0 && i < idx->len; i++) {
		const struct hd_signal *sig =
			hd_sig_at(s, g_array_index(idx, guint, i));

		if (hd_signal_timing_mean_us(sig) <= 2 * median ||
		    (*notes)++ >= INSP_MAX_NOTES)
			continue;
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"NCCL Inspector, comm %s: rank %d's collectives took %" G_GINT64_FORMAT
				" us on average against a median of %" G_GINT64_FORMAT
				" us across its ranks: a performance note, not a hang's cause",
				comm, sig->rank, hd_signal_timing_mean_us(sig),
				median));
	}
}

static void annotate(const struct hd_store *s, struct hd_verdict *v)
{
	int rank = g_array_index(v->culprits, int, 0);

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		g_autofree char *src = NULL;

		if (sig->type != HD_SIGT_COLL_TIMING || sig->rank != rank)
			continue;
		src = hd_prov_format(s, &sig->prov);
		hd_verdict_add_evidence(
			v, rank, src,
			"NCCL Inspector: rank %d's last completed collective on comm %s was %s #%" G_GINT64_FORMAT
			" (%d read)",
			rank, sig->group_name ? sig->group_name : "?",
			sig->op_name ? hd_op_display_name(sig->op_name) : "?",
			hd_signal_timing_last_sn(sig),
			hd_signal_timing_records(sig));
	}
}

void hd_check_inspector(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) comms = g_hash_table_new_full(
		NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
	g_autoptr(GPtrArray) order = g_ptr_array_new();
	g_autoptr(GHashTable) done = g_hash_table_new(NULL, NULL);
	guint notes = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		GArray *idx;

		if (sig->type != HD_SIGT_COLL_TIMING || !sig->group_name)
			continue;
		/* interned: the pointer is the communicator */
		idx = g_hash_table_lookup(comms, sig->group_name);
		if (!idx) {
			idx = g_array_new(FALSE, FALSE, sizeof(guint));
			g_hash_table_insert(comms, hd_unconst(sig->group_name),
					    idx);
			g_ptr_array_add(order, hd_unconst(sig->group_name));
		}
		g_array_append_val(idx, i);
	}
	if (!order->len)
		return;
	for (guint i = 0; i < order->len; i++)
		one_comm(s, g_hash_table_lookup(comms, order->pdata[i]),
			 order->pdata[i], a, &notes);
	/*
	 * The same blame seen by two sources is two verdicts that the
	 * engine merges later: the evidence goes to the first.
	 */
	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->culprits->len &&
		    g_hash_table_add(
			    done, GINT_TO_POINTER(
					  (g_array_index(v->culprits, int, 0) +
					   1) * 64 +
					  (int)v->kind)))
			annotate(s, v);
	}
}
