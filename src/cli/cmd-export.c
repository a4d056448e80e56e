/*
 * hangdoc export: load everything under the given paths, run the engine
 * and write the merged timeline for a trace viewer (--perfetto: the Chrome
 * JSON trace format of ui.perfetto.dev and chrome://tracing), with the
 * divergence and the verdict as annotations.
 */
#include "config.h"

#include <stdio.h>
#include <glib.h>

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
	"                 write to FILE instead of standard output (- is\n"
	"                 standard output); a file is replaced only once the\n"
	"                 trace is complete, a device or FIFO is written to,\n"
	"                 and an input is never overwritten\n"
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

/* Writes the trace to path (hd_cmd_output_open()): never an input. */
static int write_trace(const char *path, const struct hd_store *store,
		       const struct hd_analysis *a,
		       struct hd_perfetto_info *info)
{
	struct hd_cmd_output out;
	int refused = hd_cmd_output_open(&out, path, store, NULL);

	if (refused >= 0)
		return refused;
	return hd_cmd_output_close(&out, hd_report_perfetto(out.f, a, info),
				   HD_EXIT_OK);
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
	status = hd_cmd_need_paths(&hd_cmd_export, paths);
	if (status != HD_CMD_CONTINUE)
		return status;
	g_ptr_array_add(paths, NULL);
	store = hd_load((char **)paths->pdata, jobs, problems);
	hd_cmd_say_load(problems, store);
	if (!hd_store_usable_inputs(store))
		return hd_cmd_no_usable_input(paths->len - 1);
	a = hd_engine_run(store);
	status = write_trace(output ? output : "-", store, a, &info);
	if (status != HD_EXIT_OK)
		return status;
	if (info.by_sequence && !info.events)
		hd_cmd_error("note: no op was read and no event has a time; "
			     "the events are laid out in order, 1 ms apart");
	else if (info.by_sequence)
		hd_cmd_error("note: no op has a timestamp; ops are laid out by "
			     "sequence position, 1 ms per position");
	else if (info.untimed)
		hd_cmd_error("note: %" G_GUINT64_FORMAT " ops without a "
			     "timestamp left out of the timeline",
			     info.untimed);
	if (!info.by_sequence && info.other_clock)
		hd_cmd_error("note: %" G_GUINT64_FORMAT " ops on another clock "
			     "than the timeline's (%s) left out of it",
			     info.other_clock, hd_clock_name(info.clock));
	return status;
}

const struct hd_cmd hd_cmd_export = {
	.name = "export",
	.usage = "[--perfetto] [-o FILE] [-j N] PATH...",
	.summary = "write every rank's ops as a trace for ui.perfetto.dev",
	.help = help,
	.run = run,
};
