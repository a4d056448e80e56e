/*
 * hangdoc show: print the normalized ops, one per line, sorted by group,
 * rank and sequence, and the signals (errors, timeouts, progress reports)
 * after them, for people who want to look for themselves (like
 * fr_trace -j).  It decides nothing: it shows what the parsers stored.
 * This file parses the options and loads; src/report/hd-report-show.c
 * selects and prints.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "cmd.h"
#include "hd-ranklist.h"
#include "hd-load.h"
#include "hd-report-show.h"
#include "hd-store.h"
#include "hd-banned.h"

static const char help[] =
	"Prints what hangdoc read from the files and directories given: every\n"
	"collective and p2p op it found, one per line, sorted by group, rank and\n"
	"sequence position, then the signals (NCCL warnings, c10d watchdog\n"
	"timeouts and progress reports, crashes).  Each line ends with where it\n"
	"came from (file:line, file#record N).  Nothing is judged: use\n"
	"'hangdoc analyze' for a verdict.\n"
	"\n"
	"options:\n"
	"  --rank LIST    only ops and signals of the global ranks in LIST:\n"
	"                 ranks and ranges separated by commas (\"0-3,5\"); may\n"
	"                 be repeated (the union); a rank or range that left no\n"
	"                 data is an error that lists the ranks that did\n"
	"  --group G      only the groups whose id or name is G (\"0\", \"mesh_tp\",\n"
	"                 \"comm:0x5c1e2f03a9d4b871\"); several separated by\n"
	"                 commas, or repeated; a group not in the data is an\n"
	"                 error that lists the groups\n"
	"  --seq A-B      only sequence positions A to B (or --seq N: only N);\n"
	"                 signals only when they name a position in the range\n"
	"  --state S      only ops in state S: enqueued, started, completed or\n"
	"                 unknown, several separated by commas\n"
	"  --last N       only the last N ops of each rank in each group (after\n"
	"                 the other filters)\n"
	"  --format FMT   text (default) or json: {\"ops\": [...], \"signals\": [...]}\n"
	"  -j, --jobs N   parse with N threads (default 0: one per CPU)\n"
	"  -h, --help     show this help\n"
	"  --             end of options\n"
	"\n"
	"The filters combine: an op is listed when it passes every one given.\n"
	"Signals have no state: --state and --last leave them listed.\n"
	"\n"
	"Text columns, as wide as their widest cell: group (name, else id),\n"
	"rank, sequence kind (coll: the collective sequence number, p2p: the\n"
	"p2p one, ord: position in the rank's stream) and number (#), op kind,\n"
	"state, element counts in/out, dtype, reduction, root or peer (group\n"
	"rank), source name, enqueue, start and end times and the source.\n"
	"Times are UTC to the microsecond, \"2023-11-14 22:13:20.000001\"; when\n"
	"every time listed falls on one day, the header names the day and the\n"
	"columns hold the time of day.  '-' means unknown.  JSON keeps integer\n"
	"nanoseconds since the epoch.\n"
	"\n"
	"exit status:\n"
	"  0  input was read (even when the filters matched nothing; that is\n"
	"     said on standard error)\n"
	"  2  usage error (also: --rank names a rank with no data, --group a\n"
	"     group that is not there)\n"
	"  3  no usable input\n"
	"  4  the output could not be written\n"
	"\n"
	"examples:\n"
	"  hangdoc show ./dumps\n"
	"  hangdoc show --rank 3 --group 0 ./dumps | less\n"
	"  hangdoc show --rank 0-3,5 ./dumps\n"
	"  hangdoc show --last 3 --state enqueued,started ./dumps\n"
	"  hangdoc show --seq 36-40 --group 0 ./dumps\n"
	"  hangdoc show --format json ./dumps | jq '.signals[]'\n";

struct show_opts {
	bool json;
	struct hd_show_filter filter;
	int jobs;
	hd_ranklist *ranks; /* NULL: every rank */
	GPtrArray *groups; /* NULL-terminated, or NULL: every group */
};

static bool want_rank(const void *data, int r)
{
	return hd_ranklist_has(data, r);
}

extern const struct hd_cmd hd_cmd_show;

/* Returns HD_CMD_CONTINUE when the command line is fine, else the exit status. */
static int parse_args(int argc, char **argv, struct show_opts *o,
		      GPtrArray *paths)
{
	const char *format = NULL;
	const char *seq = NULL;
	const char *state = NULL;
	g_autoptr(GPtrArray) ranks = g_ptr_array_new();
	g_autoptr(GPtrArray) groups = g_ptr_array_new();
	const struct hd_opt opts[] = {
		{ "format", 0, HD_OPT_STRING, &format, 0, 0 },
		{ "rank", 0, HD_OPT_LIST, &ranks, 0, 0 },
		{ "group", 0, HD_OPT_LIST, &groups, 0, 0 },
		{ "seq", 0, HD_OPT_STRING, &seq, 0, 0 },
		{ "state", 0, HD_OPT_STRING, &state, 0, 0 },
		{ "last", 0, HD_OPT_INT, &o->filter.last, 1, G_MAXINT32 },
		{ "jobs", 'j', HD_OPT_INT, &o->jobs, 0, 4096 },
		{ NULL, 0, HD_OPT_FLAG, NULL, 0, 0 },
	};
	int status = hd_cmd_parse(&hd_cmd_show, argc, argv, opts, paths);

	if (status != HD_CMD_CONTINUE)
		return status;
	status = hd_cmd_text_or_json(&hd_cmd_show, format, &o->json);
	if (status != HD_CMD_CONTINUE)
		return status;
	status = hd_cmd_parse_ranks(&hd_cmd_show, ranks, &o->ranks);
	if (status != HD_CMD_CONTINUE)
		return status;
	if (o->ranks) {
		o->filter.want_rank = want_rank;
		o->filter.rank_data = o->ranks;
	}
	status = hd_cmd_parse_groups(&hd_cmd_show, groups, &o->groups);
	if (status != HD_CMD_CONTINUE)
		return status;
	if (o->groups)
		o->filter.groups = (const char *const *)o->groups->pdata;
	if (seq && !hd_report_show_parse_seq(seq, &o->filter.seq_min,
					     &o->filter.seq_max))
		return hd_cmd_usage_error(
			&hd_cmd_show,
			"option '--seq': '%s' is not N or A-B (sequence numbers, A <= B)",
			seq);
	if (state) {
		const char *bad;
		size_t bad_len;

		if (!hd_report_show_parse_states(state, &o->filter.states, &bad,
						 &bad_len))
			return hd_cmd_usage_error(
				&hd_cmd_show,
				"option '--state': unknown state '%.*s' (use %s)",
				(int)bad_len, bad, hd_show_state_names);
	}
	return hd_cmd_need_paths(&hd_cmd_show, paths);
}

static bool filtered(const struct hd_show_filter *f)
{
	return f->want_rank || f->groups || f->seq_min >= 0 || f->states ||
	       f->last;
}

/* The first range of the list that holds no rank with data, or NULL. */
static const struct hd_rank_range *empty_range(const hd_ranklist *l,
					       const GArray *have)
{
	for (guint i = 0; i < l->ranges->len; i++) {
		const struct hd_rank_range *r =
			&g_array_index(l->ranges, struct hd_rank_range, i);
		bool found = false;

		for (guint k = 0; k < have->len && !found; k++) {
			int h = g_array_index(have, int, k);

			found = h >= r->lo && h <= r->hi;
		}
		if (!found)
			return r;
	}
	return NULL;
}

/*
 * Refuses a --rank or --group that names nothing in the data, listing
 * what is there (a typo should not look like "no ops").
 */
static int check_filter_names(const struct show_opts *o,
			      const struct hd_store *s)
{
	if (o->ranks) {
		g_autoptr(GArray) have = hd_report_show_rank_array(s);
		const struct hd_rank_range *r = empty_range(o->ranks, have);

		if (r) {
			g_autofree char *list = hd_report_show_ranks(s);
			g_autofree char *what =
				r->lo == r->hi
					? g_strdup_printf("rank %d", r->lo)
					: g_strdup_printf("ranks %d-%d", r->lo,
							  r->hi);

			return hd_cmd_usage_error(
				&hd_cmd_show,
				"option '--rank': no data of %s; ranks with data: %s",
				what, *list ? list : "none");
		}
	}
	for (guint i = 0; o->groups && i + 1 < o->groups->len; i++) {
		const char *g = g_ptr_array_index(o->groups, i);

		if (!hd_report_show_has_group(s, g)) {
			g_autofree char *list = hd_report_show_groups(s);

			return hd_cmd_usage_error(
				&hd_cmd_show,
				"option '--group': no group '%s'; groups: %s",
				g, *list ? list : "none");
		}
	}
	return HD_CMD_CONTINUE;
}

static void show_opts_clear(struct show_opts *o)
{
	hd_ranklist_free(o->ranks);
	if (o->groups)
		g_ptr_array_unref(o->groups);
}

static int run_show(struct show_opts *po, int argc, char **argv);

static int run(int argc, char **argv)
{
	struct show_opts o = {
		.filter = { .seq_min = -1, .seq_max = -1 },
	};
	int status = run_show(&o, argc, argv);

	show_opts_clear(&o);
	return status;
}

static int run_show(struct show_opts *po, int argc, char **argv)
{
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) ops = g_ptr_array_new();
	g_autoptr(GPtrArray) sigs = g_ptr_array_new();
	g_autoptr(hd_store) s = NULL;
	int status;

	status = parse_args(argc, argv, po, paths);
	if (status != HD_CMD_CONTINUE)
		return status;
	g_ptr_array_add(paths, NULL);
	s = hd_load((char **)paths->pdata, po->jobs, problems);
	hd_cmd_say_load(problems, s);
	if (!hd_store_usable_inputs(s))
		return hd_cmd_no_usable_input(paths->len - 1);

	status = check_filter_names(po, s);
	if (status != HD_CMD_CONTINUE)
		return status;
	hd_report_show_select(s, &po->filter, ops, sigs);
	if (!ops->len && !sigs->len)
		hd_cmd_error("no ops or signals %s",
			     filtered(&po->filter) ? "match the filters"
						   : "found");
	if (po->json)
		hd_report_show_json(stdout, s, ops, sigs);
	else
		hd_report_show_text(stdout, s, ops, sigs);
	return hd_cmd_finish_output(stdout, "standard output", HD_EXIT_OK);
}

const struct hd_cmd hd_cmd_show = {
	.name = "show",
	.usage =
		"[--rank LIST] [--group G] [--seq A-B] [--state S] [--last N] [--format text|json] [-j N] PATH...",
	.summary = "list the ops and signals read, for a look of your own",
	.help = help,
	.run = run,
};
