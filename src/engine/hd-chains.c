/*
 * Wait-for chains: a rank blamed as missing or lagging in one group may
 * itself be blocked in another, waiting on a third rank.  The waits the
 * other checks recorded (hd_index_add_wait()) are followed from such a
 * culprit to a rank that waits on no one, the root blocker.
 */
#include "config.h"

#include "hd-checks.h"
#include "hd-banned.h"

/* Breadth-first from a culprit through the waits to a rank that waits on no one. */
void hd_check_chains(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	guint nverdicts = a->verdicts->len;

	for (guint i = 0; i < nverdicts; i++) {
		const struct hd_verdict *mv = g_ptr_array_index(a->verdicts, i);
		g_autoptr(GArray) chain = NULL;
		g_autoptr(GArray) steps = NULL;
		struct hd_verdict *v;
		int at;

		if ((mv->kind != HD_V_MISSING_RANK &&
		     mv->kind != HD_V_LAGGING_RANK) ||
		    mv->culprits->len != 1)
			continue;
		at = g_array_index(mv->culprits, int, 0);
		chain = g_array_new(FALSE, FALSE, sizeof(int));
		steps = g_array_new(FALSE, FALSE, sizeof(guint));
		g_array_append_val(chain, at);
		for (int depth = 0; depth < 64; depth++) {
			guint step = G_MAXUINT;
			bool loop = false;

			for (guint w = 0; w < ix->waits->len; w++) {
				const struct hd_wait *wt = &g_array_index(
					ix->waits, struct hd_wait, w);

				if (wt->waiter == at &&
				    wt->group != mv->group) {
					step = w;
					break;
				}
			}
			if (step == G_MAXUINT)
				break;
			at = g_array_index(ix->waits, struct hd_wait, step).on;
			for (guint k = 0; k < chain->len && !loop; k++)
				loop = g_array_index(chain, int, k) == at;
			g_array_append_val(steps, step);
			g_array_append_val(chain, at);
			if (loop)
				break;
		}
		if (steps->len == 0)
			continue;
		{
			GString *text = g_string_new(NULL);
			int root = g_array_index(chain, int, chain->len - 1);
			g_autofree char *first_label = hd_verdict_group_label(
				a, mv, HD_GROUP_LABEL_LONG);

			for (guint k = 0; k < chain->len; k++)
				g_string_append_printf(
					text, "%s%d", k ? " -> " : "",
					g_array_index(chain, int, k));
			v = hd_verdict_new(
				HD_V_BLOCKED_CHAIN, HD_CONF_HIGH,
				"rank %d is the root blocker: rank %d, missing from %s seq %" G_GINT64_FORMAT
				", is itself blocked (wait chain %s)",
				root, g_array_index(chain, int, 0),
				first_label ? first_label : "its group",
				mv->seq, text->str);
			g_string_free(text, TRUE);
			hd_verdict_add_culprit(v, root);
			hd_verdict_copy_place(v, mv);
			v->confidence = mv->confidence;
			v->score = HD_SCORE_CHAIN;
			for (guint k = 0; k < steps->len; k++) {
				const struct hd_wait *wt = &g_array_index(
					ix->waits, struct hd_wait,
					g_array_index(steps, guint, k));
				g_autofree char *src =
					hd_prov_format(s, &wt->prov);

				hd_verdict_add_evidence(
					v, wt->waiter,
					wt->prov.kind ? src : NULL,
					"rank %d is blocked in %s seq %" G_GINT64_FORMAT
					", waiting for rank %d",
					wt->waiter, wt->what, wt->seq, wt->on);
			}
			hd_verdict_add_ruled_out(
				v,
				"rank %d as the cause: it is absent from %s because it is itself blocked elsewhere",
				g_array_index(chain, int, 0), first_label);
			g_ptr_array_add(a->verdicts, v);
		}
	}
}
