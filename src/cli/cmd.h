/*
 * The subcommand table: one src/cli/cmd-<name>.c per subcommand, each
 * exporting a struct hd_cmd, looked up by exact name in src/cli/hangdoc.c,
 * and the helpers they share: one option parser, one way to say a usage
 * error, the final write check.
 */
#ifndef HD_CMD_H
#define HD_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

#include "hd-ranklist.h"
#include "hd-store.h"

/* Exit statuses (docs/verdicts.md). */
enum hd_exit {
	HD_EXIT_OK = 0, /* analyzed, no fault found */
	HD_EXIT_FAULT = 1, /* analyzed, at least one fault verdict */
	HD_EXIT_USAGE = 2, /* bad command line */
	HD_EXIT_NO_INPUT = 3, /* nothing could be parsed */
	HD_EXIT_OUTPUT = 4, /* the report could not be written */
	/* analyzed: a hang or an error was seen, its cause undecided */
	HD_EXIT_UNDECIDED = 5,
	HD_EXIT_INCONSISTENT = 6, /* inputs of several incidents, not merged */
};

struct hd_cmd {
	const char *name;
	const char *usage; /* arguments after the name; lines split by \n */
	const char *summary; /* one line: what it does */
	const char *help; /* what follows the usage in --help */
	int (*run)(int argc, char **argv);
};

extern const struct hd_cmd hd_cmd_analyze;
extern const struct hd_cmd hd_cmd_show;
extern const struct hd_cmd hd_cmd_replay;
extern const struct hd_cmd hd_cmd_export;
extern const struct hd_cmd hd_cmd_triage;
extern const struct hd_cmd hd_cmd_diff;
extern const struct hd_cmd hd_cmd_digest;

struct hd_store;
struct hd_analysis;

/*
 * The exit status analyze gives an analysis of store: HD_EXIT_NO_INPUT,
 * HD_EXIT_INCONSISTENT, HD_EXIT_FAULT, HD_EXIT_UNDECIDED or HD_EXIT_OK.
 */
int hd_cmd_analysis_status(const struct hd_store *store,
			   const struct hd_analysis *a);

/*
 * Loads paths for a digest (hd_load_opts.for_digest, every input
 * described), says what the load found wrong, and returns the digest,
 * zstd at level (0: none), or NULL after saying why; *store is the
 * store loaded, for the caller to free.  (transfer full)
 */
GBytes *hd_cmd_make_digest(char **paths, int jobs, int level,
			   GPtrArray *problems, struct hd_store **store);

/* Prints "hangdoc: <msg>" to stderr. */
void hd_cmd_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* How many load problems, and unusable inputs, are said one a line. */
#define HD_CMD_SAY_MAX 50

/*
 * Says what a load found wrong on stderr: each of problems (char *), then
 * each input of s that could not be used, the first HD_CMD_SAY_MAX of
 * each one a line and the rest counted (the report lists every input),
 * so that an archive of 2^18 bad members does not print 2^18 lines.
 */
void hd_cmd_say_load(const GPtrArray *problems, const struct hd_store *s);

/* What kind of value an option takes, and so what hd_opt.dest points at. */
enum hd_opt_kind {
	HD_OPT_FLAG, /* no value; bool */
	HD_OPT_STRING, /* const char *, pointing into argv; never empty */
	HD_OPT_INT, /* int, within [min, max] */
	HD_OPT_NUMBER, /* double, within (min, max] (min itself refused) */
	/* GPtrArray * of const char * into argv: every value, in order,
	   for an option that may be repeated (--rank 1 --rank 5) */
	HD_OPT_LIST,
};

/*
 * Output (cmd-output.c): the one module through which every subcommand
 * writes what it was asked for (docs/safety.md).
 */

/*
 * Called once at start: a write to a closed pipe becomes an error
 * (EPIPE), which hd_cmd_finish_output() turns into HD_EXIT_OUTPUT, rather
 * than a kill by SIGPIPE.
 */
void hd_cmd_output_setup(void);

/*
 * Flushes out and checks it for write errors (full disk, closed pipe).
 * Returns status when everything was written, else says why on stderr and
 * returns HD_EXIT_OUTPUT.
 */
int hd_cmd_finish_output(FILE *out, const char *name, int status);

/*
 * Where a report, trace or plan goes (-o FILE, --plan-out FILE), written
 * so that nothing but FILE can change: a regular file (or a new name) is
 * written to a temporary file created exclusively beside it (no planted
 * link is followed) and renamed over it once complete; "-" is standard
 * output, and an existing device or FIFO is written to directly, never
 * replaced (as root, renaming over /dev/null replaced the device); a FIFO
 * that no process reads is an error, never a wait.
 */
struct hd_cmd_output {
	FILE *f; /* what to write to, once open */
	const char *path; /* as given, for messages and the rename */
	char *tmp; /* the temporary file, or NULL when writing directly */
};

/*
 * Opens path for output.  Refuses an empty path, and a path that is one
 * of the inputs of store or the file also_input (the same file, or the
 * same name; store and also_input may be NULL), as usage errors; fails
 * when it cannot be created or opened.  Says why on stderr.  Returns -1
 * when o is open, else the exit status (HD_EXIT_USAGE or HD_EXIT_OUTPUT).
 */
int hd_cmd_output_open(struct hd_cmd_output *o, const char *path,
		       const struct hd_store *store, const char *also_input);

/*
 * Completes what hd_cmd_output_open() opened: flushes and checks it, then
 * renames the temporary file over the path, or removes it when written is
 * false or a write failed, so that a failed run leaves no half report.
 * Returns status, or HD_EXIT_OUTPUT when the report could not be written.
 */
int hd_cmd_output_close(struct hd_cmd_output *o, bool written, int status);

/*
 * One option of a subcommand: spelled exactly "--name", "--name=VALUE",
 * "--name VALUE", and with a short name also "-s VALUE" or "-sVALUE".
 * Names are never abbreviated.
 */
struct hd_opt {
	const char *name; /* without the dashes: "format" */
	char short_name; /* 'o', or 0 */
	enum hd_opt_kind kind;
	void *dest;
	double min, max; /* HD_OPT_INT and HD_OPT_NUMBER */
};

/* hd_cmd_parse() returns this when the command should go on. */
#define HD_CMD_CONTINUE (-1)

/*
 * The one option parser of every subcommand.  Options (a NULL-named entry
 * ends opts) may come before, between and after PATHs; "--" ends them and
 * "-" is a PATH (standard input).  PATHs go to paths.  -h and --help print
 * the command's help on stdout.  Returns HD_CMD_CONTINUE, else the exit
 * status to return at once: 0 after --help, HD_EXIT_USAGE after saying on
 * stderr what was wrong and the command's usage line.
 */
int hd_cmd_parse(const struct hd_cmd *cmd, int argc, char **argv,
		 const struct hd_opt *opts, GPtrArray *paths);

/*
 * Reads a --format that takes text or json (NULL: text) into *json.
 * Returns HD_CMD_CONTINUE, or HD_EXIT_USAGE after saying so.
 */
int hd_cmd_text_or_json(const struct hd_cmd *cmd, const char *format,
			bool *json);

/*
 * Reads --since and --until (either may be NULL) into w: a date and time
 * "YYYY-MM-DD HH:MM[:SS[.frac]]" (or with a 'T'), taken as UTC, or a time
 * of day "HH:MM[:SS[.frac]]"; both must be of one kind.  Returns
 * HD_CMD_CONTINUE, or HD_EXIT_USAGE after saying what is wrong.
 */
int hd_cmd_parse_window(const struct hd_cmd *cmd, const char *since,
			const char *until, struct hd_window *w);

/*
 * Reads every --rank value ("0-3,5") into *out (made on the first; left
 * NULL without any).  Returns HD_CMD_CONTINUE, or HD_EXIT_USAGE after
 * saying which value is wrong.
 */
int hd_cmd_parse_ranks(const struct hd_cmd *cmd, const GPtrArray *values,
		       hd_ranklist **out);

/*
 * Reads every --group value (names or ids, comma-separated) into *out, a
 * NULL-terminated array of owned strings (made on the first; left NULL
 * without any).  Returns HD_CMD_CONTINUE, or HD_EXIT_USAGE after saying
 * which value holds an empty name.
 */
int hd_cmd_parse_groups(const struct hd_cmd *cmd, const GPtrArray *values,
			GPtrArray **out);

/* HD_CMD_CONTINUE when PATHs were given, else the usage error saying not. */
int hd_cmd_need_paths(const struct hd_cmd *cmd, const GPtrArray *paths);

/*
 * Says that none of the npaths PATHs given held a usable input; returns
 * HD_EXIT_NO_INPUT.
 */
int hd_cmd_no_usable_input(guint npaths);

/* Says what is wrong, then the command's usage; returns HD_EXIT_USAGE. */
int hd_cmd_usage_error(const struct hd_cmd *cmd, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);

/* Prints the command's help: its usage line, then its help text. */
int hd_cmd_print_help(const struct hd_cmd *cmd);

#endif
