/*
 * hangdoc analyze: load everything under the given paths, run the engine
 * and write one report (text, JSON or Markdown) to stdout or to a file.
 * The exit status tells a script what was found (docs/verdicts.md).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <glib.h>

#include "cmd.h"
#include "hd-term.h"
#include "hd-load.h"
#include "hd-mpi.h"
#include "hd-engine.h"
#include "hd-ranklist.h"
#include "hd-report.h"
#include "hd-sha256.h"
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
	"                 incident), markdown (md; for an incident ticket),\n"
	"                 html (one self-contained page with pictures) or\n"
	"                 perfetto (a Chrome JSON trace for ui.perfetto.dev)\n"
	"  -o, --output FILE\n"
	"                 write the report to FILE instead of standard output\n"
	"                 (- is standard output); a file is replaced only once\n"
	"                 the report is complete, a device or FIFO is written\n"
	"                 to, and an input is never overwritten\n"
	"  -j, --jobs N   parse with N threads (default 0: one per CPU)\n"
	"  --width N      wrap the text report at N columns (40 to 1000);\n"
	"                 default: the terminal's width ($COLUMNS, else the\n"
	"                 terminal's own) when standard output is one, else 80\n"
	"  --brief        text: only the verdict's headline (kind, confidence,\n"
	"                 culprit), its summary, the first next step and the\n"
	"                 first evidence item\n"
	"  --color WHEN   colour the text report's headline, confidence and\n"
	"                 culprit: auto (default: when standard output is a\n"
	"                 terminal and NO_COLOR is unset or empty), always or\n"
	"                 never\n"
	"  --no-pager     do not page a text report; by default one written to\n"
	"                 a terminal goes through $PAGER (else less -FRX)\n"
	"  --sha256       json: give each file's SHA-256 too, beside its fast\n"
	"                 non-cryptographic xxh3_128 (costs a hash at about\n"
	"                 2 GB/s a core)\n"
	"  --quiet        say nothing on standard error but fatal errors (no\n"
	"                 warnings about paths and inputs, no progress line)\n"
	"  --merge        analyze inputs that cannot belong to one incident\n"
	"                 (two different dumps or logs of one rank, ...) as\n"
	"                 one anyway; the report still names the conflicts\n"
	"  --attempt N    of logs that hold several job attempts (a run, then\n"
	"                 restarts: a new process in the place of one of the\n"
	"                 same rank), analyze attempt N (from 1)\n"
	"                 instead of the last; the report lists the others;\n"
	"                 an N no input holds is a usage error\n"
	"  --since TIME   analyze only what happened from TIME on, where the\n"
	"                 records carry times (records without one are kept):\n"
	"                 \"YYYY-MM-DD HH:MM[:SS]\" in UTC (judges only UTC\n"
	"                 records: NCCL and c10d lines, local time of\n"
	"                 unknown zone, are kept), or a time of day\n"
	"                 \"HH:MM[:SS]\" matched against every record's own\n"
	"                 clock\n"
	"  --until TIME   the same, up to TIME\n"
	"  --rank LIST    show only the global ranks in LIST (\"0-3,5\": ranks\n"
	"                 and ranges separated by commas; may be repeated, the\n"
	"                 union): their rows, evidence and tracks, with a\n"
	"                 header line saying so.  A display filter: the\n"
	"                 analysis still reads every input (a rank left out is\n"
	"                 never taken for absent), and verdicts about other\n"
	"                 ranks keep their headline\n"
	"  --group G      show only the ranks of group G (its id or name, as\n"
	"                 `show --group` takes it); several separated by\n"
	"                 commas, or repeated (the union); with --rank, the\n"
	"                 ranks in both.  A group not in the data is a usage\n"
	"                 error that lists the groups\n"
	"  --mpi          run under mpirun or srun: each process digests its\n"
	"                 share of the files (or, where a path holds %h, the\n"
	"                 first process of each host reads it with %h its host\n"
	"                 name), MPI gathers the digests to rank 0, which\n"
	"                 writes the report; needs a build with MPI\n"
	"  -h, --help     show this help\n"
	"  --             end of options\n"
	"\n"
	"Digests (hangdoc digest) may be given among the paths: they read as\n"
	"the files they were made of.\n"
	"\n"
	"Paths that do not exist and inputs that cannot be read or parsed are\n"
	"named on standard error and in the report; the other paths are still\n"
	"analyzed.  While big inputs load, a progress line on standard error\n"
	"(a terminal only) says how far it has got.  SOURCE_DATE_EPOCH, when\n"
	"set, is the JSON report's generated_at, and its analysis_ms is null.  When no path gives usable input the report says what was\n"
	"tried and why each input was unusable, and the exit status is 3.\n"
	"\n"
	"exit status:\n"
	"  0  analyzed, no fault found\n"
	"  1  analyzed, at least one fault verdict\n"
	"  2  usage error (bad option or value, no PATH)\n"
	"  3  no usable input (nothing could be parsed, no path exists, or\n"
	"     not one op was read, so nothing shows progress)\n"
	"  4  the report could not be written\n"
	"  5  analyzed, a hang or an error was seen (an NCCL WARN, a timeout,\n"
	"     a crash) but its cause could not be decided (insufficient_data)\n"
	"  6  the inputs cannot all belong to one incident; nothing was\n"
	"     blamed (see --merge)\n"
	"\n"
	"examples:\n"
	"  hangdoc analyze ./dumps\n"
	"  hangdoc analyze --format json -o verdict.json ./dumps\n"
	"  hangdoc analyze --format markdown logs/*.log.zst fr/ > ticket.md\n"
	"  hangdoc analyze --format html -o incident.html ./dumps\n"
	"  hangdoc analyze --rank 0-3,5 ./dumps\n"
	"  hangdoc analyze --format perfetto -o hang.json ./dumps\n"
	"  mpirun -np 512 hangdoc analyze --mpi -o hang.json --format json \\\n"
	"      '/local/%h/dumps'\n";

struct analyze_opts {
	enum hd_report_format format;
	const char *output;
	int jobs;
	int width; /* 0: from the terminal, else 80 */
	bool quiet;
	bool merge;
	bool brief;
	bool no_pager;
	bool sha256; /* describe inputs with SHA-256 too (JSON) */
	enum hd_color_mode color;
	int attempt; /* 0: the last */
	struct hd_window window; /* --since/--until */
	hd_ranklist *ranks; /* --rank, or NULL */
	char *ranks_text; /* the same written back ("0-3,5"), or NULL */
	GPtrArray *groups; /* --group values, NULL-terminated, or NULL */
	bool mpi; /* --mpi: digests gathered by MPI (hd-mpi.h) */
};

static bool want_rank(const void *data, int r)
{
	return hd_ranklist_has(data, r);
}

extern const struct hd_cmd hd_cmd_analyze;

/* Returns HD_CMD_CONTINUE when the command line is fine, else the exit status. */
static int parse_args(int argc, char **argv, struct analyze_opts *o,
		      GPtrArray *paths)
{
	const char *format = NULL, *since = NULL, *until = NULL;
	const char *color = NULL;
	g_autoptr(GPtrArray) ranks = g_ptr_array_new();
	g_autoptr(GPtrArray) groups = g_ptr_array_new();
	const struct hd_opt opts[] = {
		{ "format", 0, HD_OPT_STRING, &format, 0, 0 },
		{ "output", 'o', HD_OPT_STRING, &o->output, 0, 0 },
		{ "jobs", 'j', HD_OPT_INT, &o->jobs, 0, 4096 },
		{ "width", 0, HD_OPT_INT, &o->width, 40, 1000 },
		{ "quiet", 0, HD_OPT_FLAG, &o->quiet, 0, 0 },
		{ "merge", 0, HD_OPT_FLAG, &o->merge, 0, 0 },
		{ "brief", 0, HD_OPT_FLAG, &o->brief, 0, 0 },
		{ "color", 0, HD_OPT_STRING, &color, 0, 0 },
		{ "no-pager", 0, HD_OPT_FLAG, &o->no_pager, 0, 0 },
		{ "sha256", 0, HD_OPT_FLAG, &o->sha256, 0, 0 },
		{ "attempt", 0, HD_OPT_INT, &o->attempt, 1, 1000000 },
		{ "since", 0, HD_OPT_STRING, &since, 0, 0 },
		{ "until", 0, HD_OPT_STRING, &until, 0, 0 },
		{ "rank", 0, HD_OPT_LIST, &ranks, 0, 0 },
		{ "group", 0, HD_OPT_LIST, &groups, 0, 0 },
		{ "mpi", 0, HD_OPT_FLAG, &o->mpi, 0, 0 },
		{ NULL, 0, HD_OPT_FLAG, NULL, 0, 0 },
	};
	int status = hd_cmd_parse(&hd_cmd_analyze, argc, argv, opts, paths);

	if (status != HD_CMD_CONTINUE)
		return status;
	status = hd_cmd_parse_ranks(&hd_cmd_analyze, ranks, &o->ranks);
	if (status != HD_CMD_CONTINUE)
		return status;
	if (o->ranks)
		o->ranks_text = hd_ranklist_format(o->ranks);
	status = hd_cmd_parse_groups(&hd_cmd_analyze, groups, &o->groups);
	if (status != HD_CMD_CONTINUE)
		return status;
	status = hd_cmd_parse_window(&hd_cmd_analyze, since, until, &o->window);
	if (status != HD_CMD_CONTINUE)
		return status;
	if (format && !hd_report_format_parse(format, &o->format))
		return hd_cmd_usage_error(&hd_cmd_analyze,
					  "unknown format '%s' (use %s)",
					  format, hd_report_format_names());
	if (!hd_term_color_parse(color, &o->color))
		return hd_cmd_usage_error(
			&hd_cmd_analyze,
			"option '--color': '%s' is not auto, always or never",
			color);
	return hd_cmd_need_paths(&hd_cmd_analyze, paths);
}

/*
 * --attempt N names an attempt some input holds: asking for attempt 2 of
 * logs that hold one would analyze the last one under the name of
 * another.  Returns HD_CMD_CONTINUE, or HD_EXIT_USAGE after saying which
 * attempts there are.
 */
static int check_attempt(const struct hd_store *s, int attempt)
{
	guint most = 1;

	if (attempt <= 0)
		return HD_CMD_CONTINUE;
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		/* numbered per process life: a rotated log's newer file
		   holds the job's attempt k + its shift */
		if (in->attempts)
			most = MAX(most,
				   (guint)MAX(0, (int64_t)in->attempts->len +
							 in->attempt_shift));
		else if (in->attempt_shift > 0)
			most = MAX(most, 1u + (guint)in->attempt_shift);
	}
	if ((guint)attempt <= most)
		return HD_CMD_CONTINUE;
	if (most == 1)
		return hd_cmd_usage_error(
			&hd_cmd_analyze,
			"option '--attempt': there is no attempt %d: the inputs hold one job attempt (no restart was seen)",
			attempt);
	return hd_cmd_usage_error(
		&hd_cmd_analyze,
		"option '--attempt': there is no attempt %d: the inputs hold attempts 1 to %u",
		attempt, most);
}

/* Writes the report to path (hd_cmd_output_open()): never an input. */
static int write_to_file(const char *path, enum hd_report_format fmt,
			 const struct hd_analysis *a,
			 const struct hd_report_opts *ro,
			 const struct hd_store *store, int status)
{
	struct hd_cmd_output out;
	int refused = hd_cmd_output_open(&out, path, store, NULL);

	if (refused >= 0)
		return refused;
	return hd_cmd_output_close(
		&out, hd_report_write_opts(out.f, fmt, a, ro), status);
}

/*
 * Writes a text report to standard output, through a pager when it is a
 * terminal (hd_term_pager()); a pager that cannot start is skipped.
 */
static int write_paged(const struct analyze_opts *o,
		       const struct hd_analysis *a,
		       const struct hd_report_opts *ro, int status)
{
	const char *cmd = hd_term_pager(isatty(STDOUT_FILENO), o->no_pager,
					g_getenv("PAGER"));
	struct hd_pager pager = { NULL };

	if (!cmd || !hd_pager_open(&pager, cmd)) {
		if (!hd_report_write_opts(stdout, o->format, a, ro)) {
			hd_cmd_finish_output(stdout, "standard output", status);
			return HD_EXIT_OUTPUT;
		}
		return hd_cmd_finish_output(stdout, "standard output", status);
	}
	hd_report_write_opts(pager.f, o->format, a, ro);
	hd_pager_close(&pager);
	return status;
}

/*
 * The text width when none was asked for: the terminal's when the report
 * goes to one ($COLUMNS, else the terminal's own size), else 80.
 */
static int text_width(const struct analyze_opts *o)
{
	const char *env = g_getenv("COLUMNS");
	struct winsize ws;
	gint64 cols;

	if (o->width)
		return o->width;
	if (o->output || !isatty(STDOUT_FILENO))
		return 80;
	if (env && g_ascii_string_to_signed(env, 10, 1, 100000, &cols, NULL))
		return (int)CLAMP(cols, 40, 1000);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return CLAMP(ws.ws_col, 40, 1000);
	return 80;
}

/* The progress line's state: drawn only after a moment, and not too often. */
struct progress {
	gint64 start_us;
	gint64 drawn_us; /* last drawn, 0 never */
};

static void draw_progress(const struct hd_load_progress *p, void *data)
{
	struct progress *pr = data;
	gint64 now = g_get_monotonic_time();
	double secs = (double)(now - pr->start_us) / 1e6;
	double mb = (double)p->bytes_done / 1e6;
	double rate = secs > 0 ? mb / secs : 0;
	char eta[32] = "?";

	/* Small inputs load before anyone could read a line. */
	if (now - pr->start_us < 500000 ||
	    (pr->drawn_us && now - pr->drawn_us < 100000 &&
	     p->files_done < p->files_total))
		return;
	pr->drawn_us = now;
	if (rate > 0 && p->bytes_total >= p->bytes_done) {
		double left = ((double)p->bytes_total / 1e6 - mb) / rate;

		g_snprintf(eta, sizeof(eta), "%d:%02d", (int)left / 60,
			   (int)left % 60);
	}
	fprintf(stderr,
		"\rhangdoc: %u/%u files, %.0f/%.0f MB, %.0f MB/s, ETA %s\033[K",
		p->files_done, p->files_total, mb, (double)p->bytes_total / 1e6,
		rate, eta);
	fflush(stderr);
}

/* Clears the progress line, if one was drawn. */
static void end_progress(const struct progress *pr)
{
	if (pr->drawn_us) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/*
 * When the report was made: SOURCE_DATE_EPOCH when set (reproducible
 * output: the analysis time is then left out), else now.
 */
static void report_times(struct hd_report_opts *ro, gint64 start_us)
{
	const char *epoch = g_getenv("SOURCE_DATE_EPOCH");
	guint64 secs;

	if (epoch &&
	    g_ascii_string_to_unsigned(epoch, 10, 0, G_MAXINT64, &secs, NULL)) {
		ro->generated_at = (int64_t)secs;
		ro->elapsed_ms = -1;
		return;
	}
	ro->generated_at = g_get_real_time() / G_USEC_PER_SEC;
	ro->elapsed_ms = (g_get_monotonic_time() - start_us) / 1000;
}

static int run_analyze(struct analyze_opts *po, GPtrArray *paths, char **load);

static int run_mpi_or_direct(struct analyze_opts *o, int argc, char **argv)
{
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	g_autoptr(GPtrArray) digests = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *dir = NULL;
	int status;

	status = parse_args(argc, argv, o, paths);
	if (status != HD_CMD_CONTINUE)
		return status;
	g_ptr_array_add(paths, NULL);
	if (!o->mpi)
		return run_analyze(o, paths, (char **)paths->pdata);
	/* rank 0 analyzes the digests; the other processes are done */
	status = hd_mpi_gather((char **)paths->pdata, o->jobs, digests, &dir);
	if (status == HD_CMD_CONTINUE) {
		g_ptr_array_add(digests, NULL);
		status = run_analyze(o, paths, (char **)digests->pdata);
		g_ptr_array_remove_index(digests, digests->len - 1);
	}
	hd_mpi_done(digests, dir);
	return status;
}

static int run(int argc, char **argv)
{
	struct analyze_opts o = { .format = HD_REPORT_TEXT, .jobs = 0 };
	int status = run_mpi_or_direct(&o, argc, argv);

	hd_ranklist_free(o.ranks);
	g_free(o.ranks_text);
	if (o.groups)
		g_ptr_array_unref(o.groups);
	return status;
}

/*
 * Loads load (the paths given, or the digests --mpi gathered), analyzes
 * and reports, naming the report for paths.
 */
static int run_analyze(struct analyze_opts *po, GPtrArray *paths, char **load)
{
	struct analyze_opts o = *po;
	struct progress prog = { g_get_monotonic_time(), 0 };
	struct hd_load_opts lo = { 0 };
	struct hd_report_opts ro = { 80, -1, -1, NULL, false, false, NULL };
	g_autoptr(hd_report_filter) filter = NULL;
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(hd_store) store = NULL;
	g_autoptr(hd_analysis) a = NULL;
	g_autofree char *label = NULL;
	g_autoptr(GError) sha_err = NULL;
	int status;

	lo.jobs = o.jobs;
	lo.attempt = o.attempt;
	lo.window = &o.window;
	lo.describe = o.format == HD_REPORT_JSON;
	lo.sha256 = o.sha256;
	/* before reading anything: the hash is what was asked for */
	if (lo.describe && lo.sha256 && !hd_sha256_available(&sha_err)) {
		hd_cmd_error("--sha256: %s", sha_err->message);
		return HD_EXIT_USAGE;
	}
	if (!o.quiet && isatty(STDERR_FILENO)) {
		lo.progress = draw_progress;
		lo.progress_data = &prog;
	}
	store = hd_load_with(load, &lo, problems);
	end_progress(&prog);
	status = check_attempt(store, o.attempt);
	if (status != HD_CMD_CONTINUE)
		return status;
	if (!o.quiet)
		hd_cmd_say_load(problems, store);
	a = hd_engine_run_opts(store,
			       &(struct hd_engine_opts){ .merge = o.merge });
	if (o.ranks || o.groups) {
		g_autoptr(GError) err = NULL;

		filter = hd_report_filter_new(
			a, o.ranks_text, o.ranks ? want_rank : NULL, o.ranks,
			o.groups ? (const char *const *)o.groups->pdata : NULL,
			&err);
		if (!filter)
			return hd_cmd_usage_error(&hd_cmd_analyze, "%s",
						  err->message);
		ro.filter = filter;
	}
	ro.width = text_width(&o);
	report_times(&ro, prog.start_us);
	status = hd_cmd_analysis_status(store, a);
	if (status == HD_EXIT_NO_INPUT && hd_store_usable_inputs(store))
		hd_cmd_error(
			"no op was read from the %u %s given: nothing shows progress",
			paths->len - 1, paths->len - 1 == 1 ? "path" : "paths");
	else if (status == HD_EXIT_NO_INPUT)
		hd_cmd_no_usable_input(paths->len - 1);
	else if (status == HD_EXIT_INCONSISTENT)
		hd_cmd_error("the inputs cannot all belong to one incident; "
			     "nothing is blamed (see --merge)");
	label = g_strjoinv(" ", (char **)paths->pdata);
	ro.label = label;
	ro.brief = o.brief;
	ro.color = !o.output &&
		   hd_term_use_color(o.color, isatty(STDOUT_FILENO),
				     g_getenv("NO_COLOR"), g_getenv("TERM"));
	if (o.output)
		return write_to_file(o.output, o.format, a, &ro, store, status);
	if (o.format == HD_REPORT_TEXT && !o.brief)
		return write_paged(&o, a, &ro, status);
	if (!hd_report_write_opts(stdout, o.format, a, &ro)) {
		hd_cmd_finish_output(stdout, "standard output", status);
		return HD_EXIT_OUTPUT;
	}
	return hd_cmd_finish_output(stdout, "standard output", status);
}

const struct hd_cmd hd_cmd_analyze = {
	.name = "analyze",
	.usage =
		"[--format FMT] [-o FILE] [-j N] [--width N] [--brief] [--color WHEN] [--no-pager] [--sha256] [--quiet] [--merge] [--attempt N] [--since TIME] [--until TIME] [--rank LIST] [--group G] [--mpi] PATH...",
	.summary = "name the rank to blame for a hang, with evidence",
	.help = help,
	.run = run,
};
