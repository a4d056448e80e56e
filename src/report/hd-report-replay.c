/*
 * Replay plans and outcomes for `hangdoc replay` (hd-report-replay.h).
 * The plan's text comes from hd-report-plan.c and its JSON from
 * replay-json.c; this adds the line saying what the plan was made from
 * and the per-rank results.
 */
#include "config.h"

#include "hd-report-replay.h"

#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-json.h"
#include "hd-report-util.h"
#include "hd-banned.h"

static void result_text(FILE *out, const struct replay_plan *p,
			const struct replay_result *res)
{
	fprintf(out, "outcome: %s\n", res->summary);
	if (res->ranks_share_gpus)
		fprintf(out,
			"note: ranks shared GPUs (NCCL over loopback sockets)\n");
	for (guint r = 0; r < res->ranks->len; r++) {
		const struct replay_rank_result *rr =
			g_ptr_array_index(res->ranks, r);
		const struct replay_rank *pr = g_ptr_array_index(p->ranks, r);

		fprintf(out, "rank %u", r);
		if (rr->device >= 0)
			fprintf(out, " (device %d)", rr->device);
		if (rr->error)
			fprintf(out, ": error: %s", rr->error);
		fputc('\n', out);
		for (guint i = 0; i < rr->ops->len; i++) {
			const struct replay_op_result *o = &g_array_index(
				rr->ops, struct replay_op_result, i);
			const struct replay_op *po =
				&g_array_index(pr->ops, struct replay_op, i);

			fprintf(out, "  %2u  %-14s %-8s", i,
				hd_op_kind_name(po->kind),
				replay_op_status_name(o->status));
			if (o->ms >= 0)
				fprintf(out, " %.3f ms", o->ms);
			fputc('\n', out);
		}
	}
}

static void result_json(FILE *out, const struct replay_plan *p,
			const struct replay_result *res, const char *about)
{
	g_autoptr(json_t) root = json_object();
	json_t *ranks = json_array();
	char *text;

	json_object_set_new(root, "outcome",
			    json_string(replay_outcome_name(res->outcome)));
	json_object_set_new(root, "summary", json_string(res->summary));
	json_object_set_new(root, "about", hd_json_str_or_null(about));
	json_object_set_new(root, "ranks_share_gpus",
			    json_boolean(res->ranks_share_gpus));
	for (guint r = 0; r < res->ranks->len; r++) {
		const struct replay_rank_result *rr =
			g_ptr_array_index(res->ranks, r);
		json_t *jr = json_object();
		json_t *ops = json_array();

		json_object_set_new(jr, "rank", json_integer(r));
		json_object_set_new(jr, "device",
				    rr->device >= 0 ? json_integer(rr->device)
						    : json_null());
		json_object_set_new(jr, "blocked_op",
				    rr->blocked_op >= 0
					    ? json_integer(rr->blocked_op)
					    : json_null());
		json_object_set_new(jr, "nccl_result",
				    json_integer(rr->nccl_result));
		json_object_set_new(jr, "error",
				    hd_json_str_or_null(rr->error));
		for (guint i = 0; i < rr->ops->len; i++) {
			const struct replay_op_result *o = &g_array_index(
				rr->ops, struct replay_op_result, i);
			json_t *jo = json_object();

			json_object_set_new(
				jo, "status",
				json_string(replay_op_status_name(o->status)));
			json_object_set_new(jo, "ms",
					    o->ms >= 0 ? json_real(o->ms)
						       : json_null());
			json_array_append_new(ops, jo);
		}
		json_object_set_new(jr, "ops", ops);
		json_array_append_new(ranks, jr);
	}
	json_object_set_new(root, "ranks", ranks);
	json_object_set_new(root, "plan", replay_plan_build_json(p));
	text = hd_json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text) {
		fputs(text, out);
		fputc('\n', out);
	}
	g_free(text);
}

/*
 * The plan as text, ranks whose windows are the same op for op written
 * once under one line: "ranks 0-3,5 (global 0-3,5): 4 ops".
 */
static void plan_text(FILE *out, const struct replay_plan *p)
{
	g_autofree char *header = hd_report_plan_header_text(p);
	g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
	g_autofree bool *done = g_new0(bool, p->ranks->len + 1);

	fputs(header, out);
	for (guint r = 0; r < p->ranks->len; r++)
		g_ptr_array_add(texts, hd_report_plan_rank_text(p, r));
	for (guint r = 0; r < p->ranks->len; r++) {
		const struct replay_rank *rr = g_ptr_array_index(p->ranks, r);
		const char *ops = g_ptr_array_index(texts, r);
		g_autoptr(GArray) same = g_array_new(FALSE, FALSE, sizeof(int));
		g_autoptr(GArray) global =
			g_array_new(FALSE, FALSE, sizeof(int));
		g_autofree char *list = NULL;
		g_autofree char *glist = NULL;

		if (done[r])
			continue;
		for (guint q = r; q < p->ranks->len; q++) {
			const struct replay_rank *qr =
				g_ptr_array_index(p->ranks, q);

			if (done[q] ||
			    strcmp(ops, g_ptr_array_index(texts, q)) != 0)
				continue;
			done[q] = true;
			g_array_append_val(same, qr->rank);
			if (qr->global_rank >= 0)
				g_array_append_val(global, qr->global_rank);
		}
		/* in communicator order: a data-parallel group's global
		   ranks fold by their stride ("0,8,...,8184") */
		list = hd_rank_list_text(same, HD_RANKS_ORDER);
		glist = hd_rank_list_text(global, HD_RANKS_ORDER);
		fprintf(out, "%s %s", same->len == 1 ? "rank" : "ranks", list);
		if (global->len)
			fprintf(out, " (global %s)", glist);
		fprintf(out, ": %u %s%s\n%s", rr->ops->len,
			rr->ops->len == 1 ? "op" : "ops",
			same->len > 1 ? ", the same on each" : "", ops);
	}
}

void hd_report_replay_plan(FILE *out, const struct replay_plan *p,
			   const char *about, bool json)
{
	g_autofree char *text = NULL;

	if (!json) {
		/* about quotes a verdict, which quotes the input */
		g_autofree char *clean = about ? hd_report_clean(about) : NULL;

		if (clean)
			fprintf(out, "%s\n", clean);
		plan_text(out, p);
		return;
	}
	text = replay_plan_to_json(p);
	fputs(text, out);
}

void hd_report_replay_result(FILE *out, const struct replay_plan *p,
			     const struct replay_result *res, const char *about,
			     bool json)
{
	if (json) {
		result_json(out, p, res, about);
		return;
	}
	hd_report_replay_plan(out, p, about, false);
	result_text(out, p, res);
}
