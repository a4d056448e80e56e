/*
 * hangdoc replay: loads an incident, analyzes it, turns the chosen verdict
 * into a replay plan (replay/replay-plan.h), and prints it (--dry-run),
 * saves it (--plan-out), or runs it on GPUs (replay/replay-run.h) and says
 * whether the hang came back.  --plan runs a saved plan instead.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "cmd.h"
#include "hd-load.h"
#include "hd-engine.h"
#include "hd-error.h"
#include "hd-report-replay.h"
#include "hd-store.h"
#include "replay-plan.h"
#include "replay-run.h"
#include "hd-banned.h"

#define MAX_TIMEOUT_S 3600.0

struct opts {
	bool dry_run, fix, healthy, json;
	int verdict; /* 1-based, 0 = first replayable */
	int window;
	double scale; /* 0 = not given */
	double timeout_s;
	const char *plan_in, *plan_out;
};

static const char help[] =
	"Turn a verdict into a per-rank plan of NCCL calls (the communicator,\n"
	"its ranks, and per rank the ops around the divergence) and run it on\n"
	"GPUs to see whether the hang comes back.\n"
	"\n"
	"options:\n"
	"  --dry-run          print the plan, run nothing\n"
	"  --verdict N        use verdict N (1 = the first, as analyze numbers\n"
	"                     them); default: the first with a divergence\n"
	"  --window K         ops before the divergence per rank (default 4,\n"
	"                     at most 64)\n"
	"  --scale F          shrink element counts by F (0 < F <= 1), keeping\n"
	"                     equal counts equal and different ones different\n"
	"  --plan-out FILE    write the plan as JSON (see docs/replay.md); alone\n"
	"                     (without --dry-run) it writes and exits 0, running\n"
	"                     nothing\n"
	"  --plan FILE        use a saved plan instead of analyzing PATHs\n"
	"  --timeout S        seconds each op (and setup) may take (default 30)\n"
	"  --fix              align the divergent op first: replay the fix\n"
	"  --healthy          with no divergence, replay the last K ops of the\n"
	"                     largest group\n"
	"  --format text|json output format (default text)\n"
	"  -h, --help         show this help\n"
	"  --                 end of options\n"
	"\n"
	"exit status: 0 plan printed or replay completed (not reproduced),\n"
	"1 reproduced or NCCL error, 2 usage error or the request cannot be\n"
	"served (no replayable divergence, bad plan, built without CUDA and\n"
	"NCCL, no GPU), 3 no usable input, 4 output could not be written\n";

extern const struct hd_cmd hd_cmd_replay;

/* Returns HD_CMD_CONTINUE when the command line is fine, else the exit status. */
static int parse_opts(int argc, char **argv, struct opts *o, GPtrArray *paths)
{
	const char *format = NULL;
	const struct hd_opt opts[] = {
		{ "dry-run", 0, HD_OPT_FLAG, &o->dry_run, 0, 0 },
		{ "verdict", 0, HD_OPT_INT, &o->verdict, 1, 1000000 },
		{ "window", 0, HD_OPT_INT, &o->window, 0, REPLAY_MAX_WINDOW },
		{ "scale", 0, HD_OPT_NUMBER, &o->scale, 0, 1 },
		{ "plan-out", 0, HD_OPT_STRING, &o->plan_out, 0, 0 },
		{ "plan", 0, HD_OPT_STRING, &o->plan_in, 0, 0 },
		{ "timeout", 0, HD_OPT_NUMBER, &o->timeout_s, 0,
		  MAX_TIMEOUT_S },
		{ "fix", 0, HD_OPT_FLAG, &o->fix, 0, 0 },
		{ "healthy", 0, HD_OPT_FLAG, &o->healthy, 0, 0 },
		{ "format", 0, HD_OPT_STRING, &format, 0, 0 },
		{ NULL, 0, HD_OPT_FLAG, NULL, 0, 0 },
	};
	int status;

	o->window = REPLAY_DEFAULT_WINDOW;
	o->timeout_s = 30;
	status = hd_cmd_parse(&hd_cmd_replay, argc, argv, opts, paths);
	if (status != HD_CMD_CONTINUE)
		return status;
	status = hd_cmd_text_or_json(&hd_cmd_replay, format, &o->json);
	if (status != HD_CMD_CONTINUE)
		return status;
	if (o->plan_in && paths->len)
		return hd_cmd_usage_error(&hd_cmd_replay,
					  "--plan takes no PATH, got '%s'",
					  (const char *)paths->pdata[0]);
	if (o->plan_in && (o->verdict || o->healthy))
		return hd_cmd_usage_error(
			&hd_cmd_replay, "--plan cannot be combined with '%s'",
			o->verdict ? "--verdict" : "--healthy");
	if (!o->plan_in && !paths->len)
		return hd_cmd_usage_error(&hd_cmd_replay,
					  "replay needs a PATH or --plan FILE");
	return HD_CMD_CONTINUE;
}

/*
 * Loads into *store, analyzes and extracts.  Returns an exit status, 0 for
 * a plan.
 */
static int plan_from_paths(char **paths, const struct opts *o,
			   struct replay_plan **out, char **about,
			   struct hd_store **store)
{
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	struct hd_store *s;
	g_autoptr(hd_analysis) a = NULL;
	g_autoptr(GError) err = NULL;
	const struct hd_verdict *v = NULL;
	guint vi = 0;

	s = *store = hd_load(paths, 0, problems);
	for (guint i = 0; i < problems->len; i++)
		hd_cmd_error("%s",
			     (const char *)g_ptr_array_index(problems, i));
	if (!s || hd_store_usable_inputs(s) == 0) {
		hd_cmd_error("no usable input");
		return HD_EXIT_NO_INPUT;
	}
	a = hd_engine_run(s);
	if (o->verdict > 0) {
		if ((guint)o->verdict > a->verdicts->len) {
			hd_cmd_error(
				"there is no verdict %d: the analysis gave %u",
				o->verdict, a->verdicts->len);
			return HD_EXIT_USAGE;
		}
		vi = (guint)o->verdict - 1;
		v = g_ptr_array_index(a->verdicts, vi);
	} else {
		for (vi = 0; vi < a->verdicts->len && !v; vi++) {
			const struct hd_verdict *c =
				g_ptr_array_index(a->verdicts, vi);

			if (replay_verdict_is_replayable(c->kind) &&
			    c->group >= 0)
				v = c;
		}
		vi--;
	}
	if (v && (replay_verdict_is_replayable(v->kind) || !o->healthy)) {
		*out = replay_plan_from_verdict(s, v, o->window, &err);
		if (*out) {
			*about = g_strdup_printf("verdict %u: %s: %s", vi + 1,
						 hd_verdict_kind_name(v->kind),
						 v->summary);
			return 0;
		}
		if (!o->healthy) {
			hd_cmd_error("verdict %u: %s", vi + 1, err->message);
			return HD_EXIT_USAGE;
		}
		g_clear_error(&err);
	}
	if (!o->healthy) {
		if (a->verdicts->len == 0)
			hd_cmd_error(
				"no replayable divergence: the analysis gave no verdicts (use --healthy to replay the last ops)");
		else
			hd_cmd_error(
				"no replayable divergence: the analysis found %s, which names no collective that ranks disagree on (use --healthy to replay the last ops)",
				hd_verdict_kind_name(
					((const struct hd_verdict *)
						 g_ptr_array_index(a->verdicts,
								   0))
						->kind));
		return HD_EXIT_USAGE;
	}
	*out = replay_plan_healthy(s, o->window, &err);
	if (!*out) {
		hd_cmd_error("%s", err->message);
		return HD_EXIT_USAGE;
	}
	*about = g_strdup(
		"no divergence: the last ops of the largest group (--healthy)");
	return 0;
}

static int run(int argc, char **argv)
{
	struct opts o = { 0 };
	g_autoptr(replay_plan) p = NULL;
	g_autoptr(hd_store) store = NULL;
	g_autoptr(replay_result) res = NULL;
	g_autoptr(GError) err = NULL;
	g_autofree char *about = NULL;
	struct replay_options ro = { 0 };
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	int status = parse_opts(argc, argv, &o, paths);

	if (status != HD_CMD_CONTINUE)
		return status;
	g_ptr_array_add(paths, NULL);
	if (o.plan_in) {
		p = replay_plan_load(o.plan_in, &err);
		if (!p) {
			hd_cmd_error("%s", err->message);
			return HD_EXIT_USAGE;
		}
	} else {
		status = plan_from_paths((char **)paths->pdata, &o, &p, &about,
					 &store);
		if (status)
			return status;
	}
	if (o.scale > 0 && !replay_plan_scale(p, o.scale, &err)) {
		hd_cmd_error("%s", err->message);
		return HD_EXIT_USAGE;
	}
	if (o.fix)
		replay_plan_fix(p);
	if (!replay_plan_validate(p, &err)) {
		hd_cmd_error("the plan cannot be replayed: %s", err->message);
		return HD_EXIT_USAGE;
	}
	if (o.plan_out) {
		struct hd_cmd_output out;

		status = hd_cmd_output_open(&out, o.plan_out, store, o.plan_in);
		if (status >= 0)
			return status;
		status = hd_cmd_output_close(&out, replay_plan_write(p, out.f),
					     HD_EXIT_OK);
		if (status != HD_EXIT_OK)
			return status;
	}
	if (o.dry_run) {
		hd_report_replay_plan(stdout, p, about, o.json);
		return hd_cmd_finish_output(stdout, "standard output",
					    HD_EXIT_OK);
	}
	/* --plan-out alone writes the plan and stops: nothing is run. */
	if (o.plan_out)
		return HD_EXIT_OK;
	if (!replay_run_available()) {
		hd_cmd_error(
			"hangdoc was built without CUDA and NCCL; use --dry-run or --plan-out");
		return HD_EXIT_USAGE;
	}
	ro.timeout_s = o.timeout_s;
	res = replay_run(p, &ro, &err);
	if (!res) {
		hd_cmd_error("cannot replay: %s", err->message);
		return HD_EXIT_USAGE;
	}
	hd_report_replay_result(stdout, p, res, about, o.json);
	return hd_cmd_finish_output(
		stdout, "standard output",
		res->outcome == REPLAY_COMPLETED ? HD_EXIT_OK : HD_EXIT_FAULT);
}

const struct hd_cmd hd_cmd_replay = {
	.name = "replay",
	.usage = "[options] PATH...\n[options] --plan FILE",
	.summary = "turn a verdict into NCCL calls and replay them on GPUs",
	.help = help,
	.run = run,
};
