/*
 * hangdoc triage: every immediate subdirectory of each DIR given is one
 * incident, and so is every archive there (a tar, tar.gz, tar.zst or zip
 * bundle, known by its content).  Incidents are analyzed in parallel, one per worker thread,
 * each loaded with one parser thread, and only a small row of each is kept
 * (hd-report-triage.h), so memory follows the largest incident, not the
 * batch.  One incident that cannot be read gives an error row; the others
 * go on.  Output: one JSON line per incident in path order, or a table
 * grouped by fingerprint.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <glib.h>

#include "cmd.h"
#include "hd-archive.h"
#include "hd-input.h"
#include "hd-load.h"
#include "hd-engine.h"
#include "hd-report-triage.h"
#include "hd-banned.h"

static const char help[] =
	"Analyzes many incidents at once: each immediate subdirectory of each\n"
	"DIR is one incident, and so is each archive there (.tar, .tar.gz,\n"
	".tar.zst, .zip, known by content), analyzed as `hangdoc analyze`\n"
	"would (inputs that cannot belong to one incident are not blamed).  Incidents are\n"
	"analyzed in parallel; a bad incident gives an error for itself only.\n"
	"\n"
	"options:\n"
	"  --format FMT   text (default): incidents grouped by fingerprint,\n"
	"                 most frequent cause first, then the culprit hosts\n"
	"                 that recur; markdown (md): the same as a table;\n"
	"                 jsonl: one JSON line per incident, in path order\n"
	"  -j, --jobs N   analyze N incidents at a time (default 0: one per CPU)\n"
	"  --quiet        no message on standard error about an incident that\n"
	"                 could not be read (its row still says why)\n"
	"  -h, --help     show this help\n"
	"\n"
	"exit status:\n"
	"  0  every incident analyzed or reported, none with a fault\n"
	"  1  at least one incident with a fault verdict\n"
	"  2  usage error\n"
	"  3  no incident found under the DIRs given\n"
	"  4  the output could not be written\n"
	"\n"
	"examples:\n"
	"  hangdoc triage -j 8 /incidents\n"
	"  hangdoc triage --format jsonl /incidents > triage.jsonl\n";

enum triage_format { TRIAGE_TEXT, TRIAGE_MARKDOWN, TRIAGE_JSONL };

struct incident {
	char *path;
	struct hd_triage_row *row; /* filled by a worker */
};

static void incident_clear(struct incident *in)
{
	g_free(in->path);
	hd_triage_row_free(in->row);
}

static void analyze_one(gpointer data, gpointer user)
{
	struct incident *in = data;
	char *paths[] = { in->path, NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(hd_store) store = hd_load(paths, 1, problems);
	g_autoptr(hd_analysis) a = hd_engine_run(store);

	in->row = hd_triage_row_new(in->path, a);
	for (guint i = 0; i < problems->len && in->row->errors->len < 5; i++)
		g_ptr_array_add(in->row->errors,
				g_strdup(g_ptr_array_index(problems, i)));
}

static gint compare_paths(gconstpointer a, gconstpointer b)
{
	return strcmp(((const struct incident *)a)->path,
		      ((const struct incident *)b)->path);
}

/* Whether the regular file path is an archive, by its first bytes. */
static bool is_archive_file(const char *path)
{
	g_autoptr(hd_reader) rd = hd_reader_open(path, NULL);
	const uint8_t *head;
	size_t len = 0;

	if (!rd)
		return false;
	head = hd_reader_head(rd, &len, NULL);
	return hd_archive_has_magic(head, len);
}

/* Appends the incidents directly below dir; false (said) if unreadable. */
static bool list_incidents(const char *dir, GArray *incidents)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(GDir) d = g_dir_open(dir, 0, &err);
	const char *name;

	if (!d) {
		hd_cmd_error("cannot read '%s': %s", dir, err->message);
		return false;
	}
	while ((name = g_dir_read_name(d))) {
		g_autofree char *p = NULL;
		struct stat st;

		if (name[0] == '.')
			continue;
		p = g_build_filename(dir, name, NULL);
		if (stat(p, &st) != 0 ||
		    !(S_ISDIR(st.st_mode) ||
		      (S_ISREG(st.st_mode) && is_archive_file(p))))
			continue;
		g_array_append_val(
			incidents,
			((struct incident){ g_steal_pointer(&p), NULL }));
	}
	return true;
}

static int run(int argc, char **argv)
{
	const char *format = NULL;
	int jobs = 0;
	bool quiet = false;
	enum triage_format fmt = TRIAGE_TEXT;
	const struct hd_opt opts[] = {
		{ "format", 0, HD_OPT_STRING, &format, 0, 0 },
		{ "jobs", 'j', HD_OPT_INT, &jobs, 0, 4096 },
		{ "quiet", 0, HD_OPT_FLAG, &quiet, 0, 0 },
		{ NULL, 0, HD_OPT_FLAG, NULL, 0, 0 },
	};
	g_autoptr(GPtrArray) dirs = g_ptr_array_new();
	g_autoptr(GArray) incidents =
		g_array_new(FALSE, TRUE, sizeof(struct incident));
	g_autoptr(GPtrArray) rows = g_ptr_array_new();
	bool fault = false, ok = true;
	int status = hd_cmd_parse(&hd_cmd_triage, argc, argv, opts, dirs);

	if (status != HD_CMD_CONTINUE)
		return status;
	if (format && strcmp(format, "jsonl") == 0)
		fmt = TRIAGE_JSONL;
	else if (format &&
		 (strcmp(format, "markdown") == 0 || strcmp(format, "md") == 0))
		fmt = TRIAGE_MARKDOWN;
	else if (format && strcmp(format, "text") != 0)
		return hd_cmd_usage_error(
			&hd_cmd_triage,
			"unknown format '%s' (use text, jsonl or markdown)",
			format);
	if (!dirs->len)
		return hd_cmd_usage_error(&hd_cmd_triage,
					  "triage: no DIR given");
	g_array_set_clear_func(incidents, (GDestroyNotify)incident_clear);
	for (guint i = 0; i < dirs->len; i++)
		list_incidents(g_ptr_array_index(dirs, i), incidents);
	g_array_sort(incidents, compare_paths);
	if (!incidents->len) {
		hd_cmd_error(
			"no incident directory or archive below the %u %s given",
			dirs->len, dirs->len == 1 ? "DIR" : "DIRs");
		return HD_EXIT_NO_INPUT;
	}
	if (jobs <= 0)
		jobs = g_get_num_processors();
	if (jobs > 1 && incidents->len > 1) {
		GThreadPool *pool = g_thread_pool_new(
			analyze_one, NULL, MIN(jobs, (int)incidents->len), TRUE,
			NULL);

		for (guint i = 0; i < incidents->len; i++)
			g_thread_pool_push(
				pool,
				&g_array_index(incidents, struct incident, i),
				NULL);
		g_thread_pool_free(pool, FALSE, TRUE);
	} else {
		for (guint i = 0; i < incidents->len; i++)
			analyze_one(
				&g_array_index(incidents, struct incident, i),
				NULL);
	}
	for (guint i = 0; i < incidents->len; i++) {
		struct hd_triage_row *r =
			g_array_index(incidents, struct incident, i).row;

		fault |= r->fault;
		g_ptr_array_add(rows, r);
		if (r->error && !quiet)
			hd_cmd_error("'%s': %s", r->path, r->error);
		if (fmt == TRIAGE_JSONL)
			ok = ok && hd_triage_write_jsonl(stdout, r);
	}
	if (fmt != TRIAGE_JSONL)
		ok = hd_triage_write_table(stdout, rows,
					   fmt == TRIAGE_MARKDOWN);
	status = fault ? HD_EXIT_FAULT : HD_EXIT_OK;
	if (!ok) {
		hd_cmd_finish_output(stdout, "standard output", status);
		return HD_EXIT_OUTPUT;
	}
	return hd_cmd_finish_output(stdout, "standard output", status);
}

const struct hd_cmd hd_cmd_triage = {
	.name = "triage",
	.usage = "[-j N] [--quiet] [--format text|jsonl|markdown] DIR...",
	.summary = "analyze many incidents, grouped by cause",
	.help = help,
	.run = run,
};
