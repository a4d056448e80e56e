/*
 * hangdoc diff A B: two incidents, each loaded and analyzed as analyze
 * would, then compared (src/engine/hd-diff.c decides what is the same and
 * what changed) and printed as text or JSON.  The exit status answers "is
 * this the same hang": 0 when the top verdicts share a fingerprint.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "cmd.h"
#include "hd-load.h"
#include "hd-engine.h"
#include "hd-diff.h"
#include "hd-report-diff.h"
#include "hd-banned.h"

static const char help[] =
	"Compares two incidents, each a file or directory analyzed as\n"
	"`hangdoc analyze` would: the top verdicts' kinds and fingerprints\n"
	"(the same cause or not), the culprit ranks and hosts, the op and its\n"
	"position, the culprit's call site, and the exit status analyze gives\n"
	"each.  The same cause in another job, on other ranks and hosts, has\n"
	"the same fingerprint.\n"
	"\n"
	"options:\n"
	"  --format FMT   text (default) or json\n"
	"  -j, --jobs N   parse with N threads (default 0: one per CPU)\n"
	"  --merge        analyze each side as one incident even when its\n"
	"                 inputs conflict (as analyze --merge)\n"
	"  --quiet        no warnings about paths and inputs on standard error\n"
	"  -h, --help     show this help\n"
	"\n"
	"exit status:\n"
	"  0  the top verdicts share a fingerprint: the same cause\n"
	"  1  they differ (or only one side has a verdict)\n"
	"  2  usage error (bad option, not exactly two PATHs)\n"
	"  3  no usable input in A or in B: nothing to compare\n"
	"  4  the output could not be written\n"
	"\n"
	"examples:\n"
	"  hangdoc diff incidents/2024-05-01 incidents/2024-05-08\n"
	"  hangdoc diff --format json last-week/ today/ > diff.json\n";

struct side {
	struct hd_store *store;
	struct hd_analysis *a;
	int status;
};

static void side_load(struct side *s, const char *path, int jobs, bool merge,
		      bool quiet)
{
	g_autofree char *path_copy = g_strdup(path);
	char *paths[] = { path_copy, NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);

	s->store = hd_load(paths, jobs, problems);
	for (guint i = 0; i < problems->len && !quiet; i++)
		hd_cmd_error("%s",
			     (const char *)g_ptr_array_index(problems, i));
	s->a = hd_engine_run_opts(s->store,
				  &(struct hd_engine_opts){ .merge = merge });
	s->status = hd_cmd_analysis_status(s->store, s->a);
	if (!quiet && s->status == HD_EXIT_NO_INPUT)
		hd_cmd_error("no usable input in '%s'", path);
}

static void side_clear(struct side *s)
{
	hd_analysis_free(s->a);
	hd_store_free(s->store);
}

static int run(int argc, char **argv)
{
	const char *format = NULL;
	int jobs = 0;
	bool merge = false, quiet = false, json = false, ok;
	const struct hd_opt opts[] = {
		{ "format", 0, HD_OPT_STRING, &format, 0, 0 },
		{ "jobs", 'j', HD_OPT_INT, &jobs, 0, 4096 },
		{ "merge", 0, HD_OPT_FLAG, &merge, 0, 0 },
		{ "quiet", 0, HD_OPT_FLAG, &quiet, 0, 0 },
		{ NULL, 0, HD_OPT_FLAG, NULL, 0, 0 },
	};
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	g_autoptr(hd_diff) d = NULL;
	struct side sa = { 0 }, sb = { 0 };
	int status = hd_cmd_parse(&hd_cmd_diff, argc, argv, opts, paths);

	if (status != HD_CMD_CONTINUE)
		return status;
	status = hd_cmd_text_or_json(&hd_cmd_diff, format, &json);
	if (status != HD_CMD_CONTINUE)
		return status;
	if (paths->len != 2)
		return hd_cmd_usage_error(&hd_cmd_diff,
					  "diff: two PATHs needed, %u given",
					  paths->len);
	side_load(&sa, g_ptr_array_index(paths, 0), jobs, merge, quiet);
	side_load(&sb, g_ptr_array_index(paths, 1), jobs, merge, quiet);
	d = hd_diff_new(sa.a, sa.status, g_ptr_array_index(paths, 0), sb.a,
			sb.status, g_ptr_array_index(paths, 1));
	if (sa.status == HD_EXIT_NO_INPUT || sb.status == HD_EXIT_NO_INPUT)
		status = HD_EXIT_NO_INPUT;
	else
		status = d->same_cause ? HD_EXIT_OK : HD_EXIT_FAULT;
	ok = json ? hd_diff_write_json(stdout, d)
		  : hd_diff_write_text(stdout, d);
	side_clear(&sa);
	side_clear(&sb);
	if (!ok) {
		hd_cmd_finish_output(stdout, "standard output", status);
		return HD_EXIT_OUTPUT;
	}
	return hd_cmd_finish_output(stdout, "standard output", status);
}

const struct hd_cmd hd_cmd_diff = {
	.name = "diff",
	.usage = "[--format text|json] [-j N] [--merge] [--quiet] A B",
	.summary = "compare two incidents: the same cause or not",
	.help = help,
	.run = run,
};
