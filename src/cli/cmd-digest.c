/*
 * hangdoc digest: load everything under the given paths, as analyze
 * does, and write what it says as one digest (docs/format-digest.md)
 * instead of a report: a node sends its digest, not its files, and
 * analyze reads digests among its inputs with the same verdicts.
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>
#include <glib.h>

#include "cmd.h"
#include "hd-digest-file.h"
#include "hd-load.h"
#include "hd-banned.h"

static const char help[] =
	"Reads every file and directory given, as analyze does, and writes\n"
	"what they say (each input's records, ranks, groups, ops, signals and\n"
	"where each came from) as one compact binary digest, zstd-compressed.\n"
	"Give digests to analyze, alone or among other inputs: the verdicts,\n"
	"evidence and sources are those of the files they were made of.  Run\n"
	"it on each node of a large job and copy only the digests.  A digest\n"
	"of digests is a digest of all their inputs.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE\n"
	"                 write to FILE instead of standard output (- is\n"
	"                 standard output, never a terminal); a file is\n"
	"                 replaced only once the digest is complete, and an\n"
	"                 input is never overwritten\n"
	"  -j, --jobs N   parse with N threads (default 0: one per CPU)\n"
	"  --level N      zstd level, 1 to 19 (default 9); 0 writes it\n"
	"                 uncompressed\n"
	"  -h, --help     show this help\n"
	"  --             end of options\n"
	"\n"
	"exit status:\n"
	"  0  written\n"
	"  2  usage error\n"
	"  3  no usable input\n"
	"  4  the digest could not be written\n"
	"\n"
	"examples:\n"
	"  hangdoc digest -o /shared/$(hostname).hdd /var/log/job\n"
	"  hangdoc analyze /shared/*.hdd\n";

extern const struct hd_cmd hd_cmd_digest;

GBytes *hd_cmd_make_digest(char **paths, int jobs, int level,
			   GPtrArray *problems, struct hd_store **store)
{
	struct hd_load_opts lo = { .jobs = jobs,
				   .describe = true,
				   .for_digest = true };
	g_autoptr(GError) err = NULL;
	GBytes *b;

	*store = hd_load_with(paths, &lo, problems);
	hd_cmd_say_load(problems, *store);
	b = hd_digest_file_encode(*store, level, &err);
	if (!b)
		hd_cmd_error("%s", err->message);
	return b;
}

static int run(int argc, char **argv)
{
	const char *output = NULL;
	int jobs = 0, level = 9, status;
	const struct hd_opt opts[] = {
		{ "output", 'o', HD_OPT_STRING, &output, 0, 0 },
		{ "jobs", 'j', HD_OPT_INT, &jobs, 0, 4096 },
		{ "level", 0, HD_OPT_INT, &level, 0, 19 },
		{ NULL, 0, HD_OPT_FLAG, NULL, 0, 0 },
	};
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GBytes) bytes = NULL;
	g_autoptr(hd_store) store = NULL;
	struct hd_cmd_output out;
	const void *data;
	gsize len = 0;

	status = hd_cmd_parse(&hd_cmd_digest, argc, argv, opts, paths);
	if (status != HD_CMD_CONTINUE)
		return status;
	status = hd_cmd_need_paths(&hd_cmd_digest, paths);
	if (status != HD_CMD_CONTINUE)
		return status;
	if ((!output || g_str_equal(output, "-")) && isatty(STDOUT_FILENO))
		return hd_cmd_usage_error(
			&hd_cmd_digest,
			"digest: a digest is binary; give -o FILE, or redirect standard output");
	g_ptr_array_add(paths, NULL);
	bytes = hd_cmd_make_digest((char **)paths->pdata, jobs, level, problems,
				   &store);
	if (!hd_store_usable_inputs(store))
		return hd_cmd_no_usable_input(paths->len - 1);
	if (!bytes)
		return HD_EXIT_OUTPUT;
	status = hd_cmd_output_open(&out, output ? output : "-", store, NULL);
	if (status >= 0)
		return status;
	data = g_bytes_get_data(bytes, &len);
	return hd_cmd_output_close(&out, fwrite(data, 1, len, out.f) == len,
				   HD_EXIT_OK);
}

const struct hd_cmd hd_cmd_digest = {
	.name = "digest",
	.usage = "[-o FILE] [-j N] [--level N] PATH...",
	.summary = "write what one node's inputs say as a compact digest",
	.help = help,
	.run = run,
};
