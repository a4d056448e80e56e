/*
 * A replay plan as text for a person: the header (verdict, position,
 * communicator) and each rank's ops.  Renders the plan; decides nothing.
 */
#include "config.h"

#include "hd-report-replay.h"

#include <string.h>

#include "hd-report-util.h"
#include "hd-banned.h"

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

char *hd_report_plan_rank_text(const struct replay_plan *p, guint r)
{
	GString *out = g_string_new(NULL);
	const struct replay_rank *rr = replay_plan_rank(p, r);
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

char *hd_report_plan_header_text(const struct replay_plan *p)
{
	GString *out = g_string_new(NULL);

	g_string_append(out, "replay plan");
	if (p->verdict)
		g_string_append_printf(out, " for %s", p->verdict);
	if (p->seq >= 0)
		g_string_append_printf(
			out, " at %s seq %" G_GINT64_FORMAT,
			hd_seq_kind_name(p->seq_kind <= HD_SEQ_ORDINAL
						 ? p->seq_kind
						 : 0),
			p->seq);
	else
		g_string_append(out, " (no divergence)");
	g_string_append_printf(out, ", window %d, scale %g%s\n", p->window,
			       p->scale, p->fixed ? ", fixed" : "");
	g_string_append_printf(out, "communicator %s",
			       p->group_id ? p->group_id : "(unnamed)");
	if (p->group_name)
		g_string_append_printf(out, " (%s)", p->group_name);
	{
		g_autofree char *n = hd_report_count(p->ranks->len);
		g_autoptr(GArray) global = g_array_sized_new(
			FALSE, FALSE, sizeof(int), p->ranks->len);
		g_autofree char *list = NULL;

		/* in communicator order, runs folded: "0-1023",
		   "0,8,...,8184", "0-3,8,?" */
		for (guint r = 0; r < p->ranks->len; r++)
			g_array_append_val(global,
					   replay_plan_rank(p, r)->global_rank);
		list = hd_rank_list_text(global, HD_RANKS_ORDER);
		g_string_append_printf(out, ": %s rank%s, global ranks %s", n,
				       p->ranks->len == 1 ? "" : "s", list);
	}
	g_string_append_c(out, '\n');
	return g_string_free(out, FALSE);
}
