/*
 * What NCCL itself saw of ranks that disagree: its "Mismatched collective
 * detected" warning (kind or order), and messages of the wrong size.
 * Neither shows which rank is wrong: both are low confidence.
 */
#include "config.h"

#include "hd-sig-util.h"
#include "hd-banned.h"

/*
 * NCCL 2.4's "Mismatched collective detected ... at and around rank N":
 * ranks are at different collectives; N is where NCCL looked, a hint.
 */
void hd_sig_check_coll_mismatch(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL;
	struct hd_verdict *v;
	guint n = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->type != HD_SIGT_NCCL_COLL_MISMATCH)
			continue;
		n++;
		if (!first)
			first = sig;
	}
	if (!first)
		return;
	if (first->peer_rank >= 0)
		v = hd_verdict_new(
			HD_V_TYPE_MISMATCH, HD_CONF_LOW,
			"NCCL detected mismatched collectives at and around rank %d: ranks called different collectives at one position (kind or order); which rank is wrong is not shown",
			first->peer_rank);
	else
		v = hd_verdict_new(
			HD_V_TYPE_MISMATCH, HD_CONF_LOW,
			"NCCL detected mismatched collectives: ranks called different collectives at one position (kind or order); which rank is wrong is not shown");
	v->score = HD_SCORE_MISMATCH - 5;
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < HD_SIG_MAX_EVIDENCE; i++)
		if (hd_sig_at(s, i)->type == HD_SIGT_NCCL_COLL_MISMATCH)
			hd_sig_cite(s, v, hd_sig_at(s, i));
	hd_sig_verdict_end(
		a, v, n, "such warnings",
		"nothing: the rank NCCL names is where it looked, not necessarily the culprit; COLL logs (NCCL_DEBUG_SUBSYS=COLL) of every rank would show it");
}

/* NCCL itself saw a message of the wrong size. */
void hd_sig_check_size_mismatch(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct hd_verdict *v = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->cat != HD_SIG_MISMATCH ||
		    sig->type == HD_SIGT_COLL_MISMATCH ||
		    sig->type == HD_SIGT_NCCL_COLL_MISMATCH)
			continue;
		if (!v) {
			v = hd_verdict_new(
				HD_V_SIZE_MISMATCH, HD_CONF_LOW,
				"NCCL saw a message of the wrong size%s%s: ranks disagree on a collective's size or order",
				sig->rank >= 0 ? " on rank " : "", "");
			if (sig->rank >= 0) {
				g_free(v->summary);
				v->summary = g_strdup_printf(
					"NCCL on rank %d saw a message of the wrong size%s%s: ranks disagree on a collective's size or order",
					sig->rank, sig->peer ? " from " : "",
					sig->peer ? sig->peer : "");
			}
			v->score = HD_SCORE_MISMATCH - 5;
			hd_verdict_add_ruled_out(
				v,
				"which rank is wrong: NCCL only sees the two ends of one transfer");
		}
		hd_sig_cite(s, v, sig);
	}
	if (v)
		g_ptr_array_add(a->verdicts, v);
}
