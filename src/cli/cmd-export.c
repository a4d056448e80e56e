/*
 * hangdoc export: load everything under the given paths, run the engine
 * and write the merged timeline for a trace viewer (--perfetto: the Chrome
 * JSON trace format of ui.perfetto.dev and chrome://tracing), with the
 * divergence and the verdict as annotations.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "cmd.h"
#include "hd-load.h"
#include "hd-engine.h"
#include "hd-report-perfetto.h"
#include "hd-banned.h"

static const char help[] =
	"Writes every rank's collectives and p2p ops, from all the files and\n"
	"directories given, as one trace: a process per rank, a thread per\n"
	"group, each op a slice with its sequence position, state, counts and\n"
	"source; the top verdict an instant event at the divergence, with its\n"
	"evidence.  Times are wall-clock as each source recorded them; where no\n"
	"op has a time, ops are laid out by sequence position (1 ms each), and\n"
	"the trace and standard error say so.\n"
	"\n"
	"options:\n"
	"  --perfetto     the Chrome JSON trace format (the only format, and the\n"
	"                 default), for ui.perfetto.dev and chrome://tracing\n"
	"  -o, --output FILE\n"
	"                 write to FILE instead of standard output; FILE is\n"
	"                 replaced only once the trace is complete\n"
	"  -j, --jobs N   parse with N threads (default 0: one per CPU)\n"
	"  -h, --help     show this help\n"
	"  --             end of options\n"
	"\n"
	"exit status:\n"
	"  0  written\n"
	"  2  usage error\n"
	"  3  no usable input\n"
	"  4  the trace could not be written\n"
	"\n"
	"examples:\n"
	"  hangdoc export --perfetto -o hang.json ./dumps\n";

extern const struct hd_cmd hd_cmd_export;

static int write_trace(FILE *f, const char *name, const struct hd_analysis *a,
		       struct hd_perfetto_info *info)
{
	bool ok = hd_report_perfetto(f, a, info);

	return hd_cmd_finish_output(f, name, ok ? HD_EXIT_OK : HD_EXIT_OUTPUT);
}

/* Writes through path.tmp and a rename: never half a trace under path. */
static int write_to_file(const char *path, const struct hd_analysis *a,
			 struct hd_perfetto_info *info)
{
	g_autofree char *tmp = g_strdup_printf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int status;

	if (!f) {
		hd_cmd_error("cannot create '%s': %s", tmp, g_strerror(errno));
		return HD_EXIT_OUTPUT;
	}
	status = write_trace(f, tmp, a, info);
	if (fclose(f) != 0 && status == HD_EXIT_OK) {
		hd_cmd_error("cannot write '%s': %s", tmp, g_strerror(errno));
		status = HD_EXIT_OUTPUT;
	}
	if (status == HD_EXIT_OK && g_rename(tmp, path) != 0) {
		hd_cmd_error("cannot rename '%s' to '%s': %s", tmp, path,
			     g_strerror(errno));
		status = HD_EXIT_OUTPUT;
	}
	if (status != HD_EXIT_OK)
		g_unlink(tmp);
	return status;
}

static int run(int argc, char **argv)
{
	bool perfetto = false;
	const char *output = NULL;
	int jobs = 0, status;
	const struct hd_opt opts[] = {
		{ "perfetto", 0, HD_OPT_FLAG, &perfetto, 0, 0 },
		{ "output", 'o', HD_OPT_STRING, &output, 0, 0 },
		{ "jobs", 'j', HD_OPT_INT, &jobs, 0, 4096 },
		{ NULL, 0, HD_OPT_FLAG, NULL, 0, 0 },
	};
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(hd_store) store = NULL;
	g_autoptr(hd_analysis) a = NULL;
	struct hd_perfetto_info info;

	status = hd_cmd_parse(&hd_cmd_export, argc, argv, opts, paths);
	if (status != HD_CMD_CONTINUE)
		return status;
	if (!paths->len)
		return hd_cmd_usage_error(&hd_cmd_export,
					  "export: no PATH given");
	g_ptr_array_add(paths, NULL);
	store = hd_load((char **)paths->pdata, jobs, problems);
	hd_cmd_say_load(problems, store);
	if (!hd_store_usable_inputs(store)) {
		hd_cmd_error("no usable input in the %u %s given",
			     paths->len - 1,
			     paths->len - 1 == 1 ? "path" : "paths");
		return HD_EXIT_NO_INPUT;
	}
	a = hd_engine_run(store);
	status = output ? write_to_file(output, a, &info)
			: write_trace(stdout, "standard output", a, &info);
	if (status != HD_EXIT_OK)
		return status;
	if (info.by_sequence)
		hd_cmd_error("note: no op has a timestamp; ops are laid out by "
			     "sequence position, 1 ms per position");
	else if (info.untimed)
		hd_cmd_error("note: %" G_GUINT64_FORMAT " ops without a "
			     "timestamp left out of the timeline",
			     info.untimed);
	return status;
}

const struct hd_cmd hd_cmd_export = {
	.name = "export",
	.usage = "[--perfetto] [-o FILE] [-j N] PATH...",
	.summary = "write every rank's ops as a trace for ui.perfetto.dev",
	.help = help,
	.run = run,
};
