/*
 * hangdoc replay: loads an incident, analyzes it, turns the chosen verdict
 * into a replay plan (replay/replay-plan.h), and prints it (--dry-run),
 * saves it (--plan-out), or runs it on GPUs (replay/replay-run.h) and says
 * whether the hang came back.  --plan runs a saved plan instead.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
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
	long verdict; /* 1-based, 0 = first replayable */
	int window;
	double scale; /* 0 = not given */
	double timeout_s;
	const char *plan_in, *plan_out;
};

static const char help[] =
	"usage: hangdoc replay [options] PATH...\n"
	"       hangdoc replay [options] --plan FILE\n"
	"\n"
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
	"  --plan-out FILE    write the plan as JSON (see docs/replay.md)\n"
	"  --plan FILE        use a saved plan instead of analyzing PATHs\n"
	"  --timeout S        seconds each op (and setup) may take (default 30)\n"
	"  --fix              align the divergent op first: replay the fix\n"
	"  --healthy          with no divergence, replay the last K ops of the\n"
	"                     largest group\n"
	"  --format text|json output format (default text)\n"
	"\n"
	"exit status: 0 plan printed or replay completed (not reproduced),\n"
	"1 reproduced or NCCL error, 2 usage error or the request cannot be\n"
	"served (no replayable divergence, bad plan, built without CUDA and\n"
	"NCCL, no GPU), 3 no usable input, 4 output could not be written\n";

static bool parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = g_ascii_strtod(s, &end);
	return errno == 0 && end != s && *end == '\0';
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *out >= lo &&
	       *out <= hi;
}

static int usage_error(const char *msg, const char *arg)
{
	hd_cmd_error("%s '%s'", msg, arg);
	fprintf(stderr, "see 'hangdoc help replay'\n");
	return HD_EXIT_USAGE;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum {
		O_DRY = 256,
		O_VERDICT,
		O_WINDOW,
		O_SCALE,
		O_PLAN_OUT,
		O_PLAN,
		O_TIMEOUT,
		O_FIX,
		O_HEALTHY,
		O_FORMAT,
		O_HELP
	};
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "verdict", required_argument, NULL, O_VERDICT },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "scale", required_argument, NULL, O_SCALE },
		{ "plan-out", required_argument, NULL, O_PLAN_OUT },
		{ "plan", required_argument, NULL, O_PLAN },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "fix", no_argument, NULL, O_FIX },
		{ "healthy", no_argument, NULL, O_HEALTHY },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	long l;
	int c;

	o->window = REPLAY_DEFAULT_WINDOW;
	o->timeout_s = 30;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_DRY:
			o->dry_run = true;
			break;
		case O_VERDICT:
			if (!parse_long(optarg, 1, 1000000, &o->verdict))
				return usage_error(
					"--verdict needs a number from 1, not",
					optarg);
			break;
		case O_WINDOW:
			if (!parse_long(optarg, 0, REPLAY_MAX_WINDOW, &l))
				return usage_error(
					"--window needs a number from 0 to 64, not",
					optarg);
			o->window = (int)l;
			break;
		case O_SCALE:
			if (!parse_double(optarg, &o->scale) ||
			    !(o->scale > 0.0 && o->scale <= 1.0))
				return usage_error(
					"--scale needs a number above 0 and at most 1, not",
					optarg);
			break;
		case O_PLAN_OUT:
			o->plan_out = optarg;
			break;
		case O_PLAN:
			o->plan_in = optarg;
			break;
		case O_TIMEOUT:
			if (!parse_double(optarg, &o->timeout_s) ||
			    !(o->timeout_s > 0.0 &&
			      o->timeout_s <= MAX_TIMEOUT_S))
				return usage_error(
					"--timeout needs seconds above 0 and at most 3600, not",
					optarg);
			break;
		case O_FIX:
			o->fix = true;
			break;
		case O_HEALTHY:
			o->healthy = true;
			break;
		case O_FORMAT:
			if (strcmp(optarg, "json") == 0)
				o->json = true;
			else if (strcmp(optarg, "text") != 0)
				return usage_error("unknown format", optarg);
			break;
		case O_HELP:
			fputs(help, stdout);
			return -1;
		default:
			return usage_error("unknown or incomplete option",
					   argv[optind - 1]);
		}
	}
	if (o->plan_in && optind < argc)
		return usage_error("--plan takes no PATH, got", argv[optind]);
	if (o->plan_in && (o->verdict || o->healthy))
		return usage_error("--plan cannot be combined with",
				   o->verdict ? "--verdict" : "--healthy");
	if (!o->plan_in && optind >= argc) {
		hd_cmd_error("replay needs a PATH or --plan FILE");
		fprintf(stderr, "see 'hangdoc help replay'\n");
		return HD_EXIT_USAGE;
	}
	return 0;
}

/* Loads, analyzes and extracts.  Returns an exit status, 0 for a plan. */
static int plan_from_paths(char **paths, const struct opts *o,
			   struct replay_plan **out, char **about)
{
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(hd_store) s = NULL;
	g_autoptr(hd_analysis) a = NULL;
	g_autoptr(GError) err = NULL;
	const struct hd_verdict *v = NULL;
	guint vi = 0;

	s = hd_load(paths, 0, problems);
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
				"there is no verdict %ld: the analysis gave %u",
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
	g_autoptr(replay_result) res = NULL;
	g_autoptr(GError) err = NULL;
	g_autofree char *about = NULL;
	struct replay_options ro = { 0 };
	int status = parse_opts(argc, argv, &o);

	if (status == -1) /* --help */
		return hd_cmd_finish_output(stdout, "standard output",
					    HD_EXIT_OK);
	if (status)
		return status;
	if (o.plan_in) {
		p = replay_plan_load(o.plan_in, &err);
		if (!p) {
			hd_cmd_error("%s", err->message);
			return HD_EXIT_USAGE;
		}
	} else {
		status = plan_from_paths(argv + optind, &o, &p, &about);
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
	if (o.plan_out && !replay_plan_save(p, o.plan_out, &err)) {
		hd_cmd_error("cannot write the plan: %s", err->message);
		return HD_EXIT_OUTPUT;
	}
	if (o.dry_run) {
		hd_report_replay_plan(stdout, p, about, o.json);
		return hd_cmd_finish_output(stdout, "standard output",
					    HD_EXIT_OK);
	}
	if (!replay_run_available()) {
		/* --plan-out alone is served: the plan is written. */
		if (o.plan_out)
			return HD_EXIT_OK;
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
	.usage =
		"[--dry-run] [--verdict N] [--window K] [--scale F] [--plan-out FILE] [--plan FILE] [--timeout S] [--fix] [--healthy] [--format text|json] PATH...",
	.summary = "turn a verdict into NCCL calls and replay them on GPUs",
	.help = help,
	.run = run,
};
