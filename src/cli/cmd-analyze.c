/*
 * hangdoc analyze: load everything under the given paths, run the engine
 * and write one report (text, JSON or Markdown) to stdout or to a file.
 * The exit status tells a script what was found (design.md).
 */
#include "config.h"

#include <stdio.h>
#include <glib.h>

#include "cmd.h"
#include "hd-load.h"
#include "hd-engine.h"
#include "hd-report.h"
#include "hd-banned.h"

static const char help[] =
	"usage: hangdoc analyze [--format text|json|markdown] [-o FILE] [-j N]\n"
	"                       PATH...\n"
	"\n"
	"Reads what a hung or failed NCCL/PyTorch job left behind (NCCL_DEBUG\n"
	"logs, c10d stderr, flight-recorder dumps, profiler traces; plain, .gz\n"
	"or .zst) from the files and directories given, and names the rank to\n"
	"blame, with the evidence for it.  Directories are searched recursively.\n"
	"\n"
	"options:\n"
	"  --format FMT   text (default, for a terminal), json (schema 1, for\n"
	"                 pipelines) or markdown (md; for an incident ticket)\n"
	"  -o, --output FILE\n"
	"                 write the report to FILE instead of standard output\n"
	"                 (- is standard output); a file is replaced only once\n"
	"                 the report is complete, a device or FIFO is written\n"
	"                 to, and an input is never overwritten\n"
	"  -j, --jobs N   parse with N threads (default 0: one per CPU)\n"
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
	"\n"
	"examples:\n"
	"  hangdoc analyze ./dumps\n"
	"  hangdoc analyze --format json -o verdict.json ./dumps\n"
	"  hangdoc analyze --format markdown logs/*.log.zst fr/ > ticket.md\n";

struct analyze_opts {
	enum hd_report_format format;
	const char *output;
	int jobs;
};

/* Returns -1 when the command line is fine, else the exit status. */
static int parse_args(int argc, char **argv, struct analyze_opts *o,
		      GPtrArray *paths)
{
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *val = NULL;
		int m, status = -1;

		if (hd_cmd_common_arg(argv, i, &options_done, paths, help,
				      &status)) {
			if (status >= 0)
				return status;
			continue;
		}
		m = hd_cmd_opt_value(argc, argv, &i, "--format", NULL, &val);
		if (m == 1) {
			if (!hd_report_format_parse(val, &o->format)) {
				hd_cmd_error("unknown format '%s' (use text, json or markdown)",
					     val);
				return HD_EXIT_USAGE;
			}
			continue;
		}
		if (m == 0)
			m = hd_cmd_opt_value(argc, argv, &i, "--output", "-o",
					     &val);
		if (m == 1) {
			if (!*val) {
				hd_cmd_error("option '%s' needs a file name",
					     arg);
				fputs("usage: hangdoc analyze [--format text|json|markdown] [-o FILE] [-j N] PATH...\n",
				      stderr);
				return HD_EXIT_USAGE;
			}
			o->output = val;
			continue;
		}
		if (m == 0)
			m = hd_cmd_opt_value(argc, argv, &i, "--jobs", "-j",
					     &val);
		if (m == 1) {
			if (!hd_cmd_parse_int("--jobs", val, 0, 4096, &o->jobs))
				return HD_EXIT_USAGE;
			continue;
		}
		if (m == 0)
			hd_cmd_error("unknown option '%s' for 'analyze'", arg);
		fputs("usage: hangdoc analyze [--format text|json|markdown] [-o FILE] [-j N] PATH...\n",
		      stderr);
		return HD_EXIT_USAGE;
	}
	if (!paths->len) {
		hd_cmd_error("analyze: no PATH given");
		fputs("usage: hangdoc analyze [--format text|json|markdown] [-o FILE] [-j N] PATH...\n",
		      stderr);
		return HD_EXIT_USAGE;
	}
	return -1;
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

/* Writes the report to path (hd_cmd_output_open()): never an input. */
static int write_to_file(const char *path, enum hd_report_format fmt,
			 const struct hd_analysis *a,
			 const struct hd_store *store, int status)
{
	struct hd_cmd_output out;
	int refused = hd_cmd_output_open(&out, path, store);

	if (refused >= 0)
		return refused;
	return hd_cmd_output_close(&out, hd_report_write(out.f, fmt, a),
				   status);
}

static int run(int argc, char **argv)
{
	struct analyze_opts o = { .format = HD_REPORT_TEXT, .jobs = 0 };
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(hd_store) store = NULL;
	g_autoptr(hd_analysis) a = NULL;
	unsigned usable;
	int status;

	status = parse_args(argc, argv, &o, paths);
	if (status >= 0)
		return status;
	g_ptr_array_add(paths, NULL);
	store = hd_load((char **)paths->pdata, o.jobs, problems);
	for (guint i = 0; i < problems->len; i++)
		hd_cmd_error("%s", (const char *)g_ptr_array_index(problems, i));
	report_unusable(store);
	a = hd_engine_run(store);
	usable = hd_store_usable_inputs(store);
	if (!usable) {
		hd_cmd_error("no usable input in the %u %s given",
			     paths->len - 1,
			     paths->len - 1 == 1 ? "path" : "paths");
		status = HD_EXIT_NO_INPUT;
	} else {
		status = hd_analysis_has_fault(a) ? HD_EXIT_FAULT : HD_EXIT_OK;
	}
	if (o.output)
		return write_to_file(o.output, o.format, a, store, status);
	if (!hd_report_write(stdout, o.format, a)) {
		hd_cmd_finish_output(stdout, "standard output", status);
		return HD_EXIT_OUTPUT;
	}
	return hd_cmd_finish_output(stdout, "standard output", status);
}

const struct hd_cmd hd_cmd_analyze = {
	.name = "analyze",
	.usage = "[--format text|json|markdown] [-o FILE] [-j N] PATH...",
	.summary = "name the rank to blame for a hang, with evidence",
	.help = help,
	.run = run,
};
