/*
 * hangdoc analyze: load everything under the given paths, run the engine
 * and write one report (text, JSON or Markdown) to stdout or to a file.
 * The exit status tells a script what was found (design.md).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "cmd.h"
#include "hd-load.h"
#include "hd-engine.h"
#include "hd-report.h"
#include "hd-banned.h"

static const char help[] =
	"Reads what a hung or failed NCCL/PyTorch job left behind (NCCL_DEBUG\n"
	"logs, c10d stderr, flight-recorder dumps, profiler traces; plain, .gz\n"
	"or .zst) from the files and directories given, and names the rank to\n"
	"blame, with the evidence for it.  Directories are searched recursively.\n"
	"\n"
	"options:\n"
	"  --format FMT   text (default, for a terminal), json (schema 1, for\n"
	"                 pipelines), jsonl (one line, as `triage` writes per\n"
	"                 incident) or markdown (md; for an incident ticket)\n"
	"  -o, --output FILE\n"
	"                 write the report to FILE instead of standard output;\n"
	"                 FILE is replaced only once the report is complete\n"
	"  -j, --jobs N   parse with N threads (default 0: one per CPU)\n"
	"  --merge        analyze inputs that cannot belong to one incident\n"
	"                 (two different dumps or logs of one rank, ...) as\n"
	"                 one anyway; the report still names the conflicts\n"
	"  -h, --help     show this help\n"
	"  --             end of options\n"
	"\n"
	"Paths that do not exist and inputs that cannot be read or parsed are\n"
	"named on standard error and in the report; the other paths are still\n"
	"analyzed.  When no path gives usable input the report says what was\n"
	"tried and why each input was unusable, and the exit status is 3.\n"
	"\n"
	"exit status:\n"
	"  0  analyzed, no fault found\n"
	"  1  analyzed, at least one fault verdict\n"
	"  2  usage error (bad option or value, no PATH)\n"
	"  3  no usable input (nothing could be parsed, or no path exists)\n"
	"  4  the report could not be written\n"
	"  6  the inputs cannot all belong to one incident; nothing was\n"
	"     blamed (see --merge)\n"
	"\n"
	"examples:\n"
	"  hangdoc analyze ./dumps\n"
	"  hangdoc analyze --format json -o verdict.json ./dumps\n"
	"  hangdoc analyze --format markdown logs/*.log.zst fr/ > ticket.md\n";

struct analyze_opts {
	enum hd_report_format format;
	const char *output;
	int jobs;
	bool merge;
};

extern const struct hd_cmd hd_cmd_analyze;

/* Returns HD_CMD_CONTINUE when the command line is fine, else the exit status. */
static int parse_args(int argc, char **argv, struct analyze_opts *o,
		      GPtrArray *paths)
{
	const char *format = NULL;
	const struct hd_opt opts[] = {
		{ "format", 0, HD_OPT_STRING, &format, 0, 0 },
		{ "output", 'o', HD_OPT_STRING, &o->output, 0, 0 },
		{ "jobs", 'j', HD_OPT_INT, &o->jobs, 0, 4096 },
		{ "merge", 0, HD_OPT_FLAG, &o->merge, 0, 0 },
		{ NULL, 0, HD_OPT_FLAG, NULL, 0, 0 },
	};
	int status = hd_cmd_parse(&hd_cmd_analyze, argc, argv, opts, paths);

	if (status != HD_CMD_CONTINUE)
		return status;
	if (format && !hd_report_format_parse(format, &o->format))
		return hd_cmd_usage_error(&hd_cmd_analyze,
					  "unknown format '%s' (use text, json, jsonl or markdown)",
					  format);
	if (!paths->len)
		return hd_cmd_usage_error(&hd_cmd_analyze, "analyze: no PATH given");
	return HD_CMD_CONTINUE;
}

/* Names every unusable input on stderr, one line each. */
static void report_unusable(const struct hd_store *s)
{
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (in->error)
			hd_cmd_error("'%s': %s", in->path, in->error);
	}
}

/*
 * Writes the report to path through path.tmp and a rename, so that a failed
 * run never leaves half a report under the name asked for.
 */
static int write_to_file(const char *path, enum hd_report_format fmt,
			 const struct hd_analysis *a, const char *label,
			 int status)
{
	g_autofree char *tmp = g_strdup_printf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	bool ok;

	if (!f) {
		hd_cmd_error("cannot create '%s': %s", tmp, g_strerror(errno));
		return HD_EXIT_OUTPUT;
	}
	ok = hd_report_write_as(f, fmt, a, label);
	status = hd_cmd_finish_output(f, tmp, ok ? status : HD_EXIT_OUTPUT);
	if (fclose(f) != 0 && status != HD_EXIT_OUTPUT) {
		hd_cmd_error("cannot write '%s': %s", tmp, g_strerror(errno));
		status = HD_EXIT_OUTPUT;
	} else if (!ok && status != HD_EXIT_OUTPUT) {
		status = HD_EXIT_OUTPUT;
	}
	if (status == HD_EXIT_OUTPUT) {
		g_unlink(tmp);
		return status;
	}
	if (g_rename(tmp, path) != 0) {
		hd_cmd_error("cannot rename '%s' to '%s': %s", tmp, path,
			     g_strerror(errno));
		g_unlink(tmp);
		return HD_EXIT_OUTPUT;
	}
	return status;
}

static int run(int argc, char **argv)
{
	struct analyze_opts o = { .format = HD_REPORT_TEXT, .jobs = 0 };
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(hd_store) store = NULL;
	g_autoptr(hd_analysis) a = NULL;
	g_autofree char *label = NULL;
	unsigned usable;
	int status;

	status = parse_args(argc, argv, &o, paths);
	if (status != HD_CMD_CONTINUE)
		return status;
	g_ptr_array_add(paths, NULL);
	store = hd_load((char **)paths->pdata, o.jobs, problems);
	for (guint i = 0; i < problems->len; i++)
		hd_cmd_error("%s", (const char *)g_ptr_array_index(problems, i));
	report_unusable(store);
	a = hd_engine_run_opts(store,
			       &(struct hd_engine_opts){ .merge = o.merge });
	usable = hd_store_usable_inputs(store);
	if (!usable) {
		hd_cmd_error("no usable input in the %u %s given",
			     paths->len - 1,
			     paths->len - 1 == 1 ? "path" : "paths");
		status = HD_EXIT_NO_INPUT;
	} else if (hd_analysis_is_inconsistent(a)) {
		hd_cmd_error("the inputs cannot all belong to one incident; "
			     "nothing is blamed (see --merge)");
		status = HD_EXIT_INCONSISTENT;
	} else {
		status = hd_analysis_has_fault(a) ? HD_EXIT_FAULT : HD_EXIT_OK;
	}
	label = g_strjoinv(" ", (char **)paths->pdata);
	if (o.output)
		return write_to_file(o.output, o.format, a, label, status);
	if (!hd_report_write_as(stdout, o.format, a, label)) {
		hd_cmd_finish_output(stdout, "standard output", status);
		return HD_EXIT_OUTPUT;
	}
	return hd_cmd_finish_output(stdout, "standard output", status);
}

const struct hd_cmd hd_cmd_analyze = {
	.name = "analyze",
	.usage = "[--format text|json|jsonl|markdown] [-o FILE] [-j N] [--merge] PATH...",
	.summary = "name the rank to blame for a hang, with evidence",
	.help = help,
	.run = run,
};
