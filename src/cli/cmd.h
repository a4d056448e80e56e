/*
 * The subcommand table: one src/cmd-<name>.c per subcommand, each exporting
 * a struct hd_cmd, looked up by exact name in src/hangdoc.c.
 */
#ifndef HD_CMD_H
#define HD_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

#include "hd-store.h"

/* Exit statuses (design.md). */
enum hd_exit {
	HD_EXIT_OK = 0,       /* analyzed, no fault found */
	HD_EXIT_FAULT = 1,    /* analyzed, at least one fault verdict */
	HD_EXIT_USAGE = 2,    /* bad command line */
	HD_EXIT_NO_INPUT = 3, /* nothing could be parsed */
	HD_EXIT_OUTPUT = 4,   /* the report could not be written */
};

struct hd_cmd {
	const char *name;
	const char *usage;   /* one line: arguments after the name */
	const char *summary; /* one line: what it does */
	const char *help;    /* the full help text */
	int (*run)(int argc, char **argv);
};

extern const struct hd_cmd hd_cmd_analyze;
extern const struct hd_cmd hd_cmd_show;
extern const struct hd_cmd hd_cmd_replay;

/* Prints "hangdoc: <msg>" to stderr. */
void hd_cmd_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/*
 * Flushes out and checks it for write errors (full disk, closed pipe).
 * Returns status when everything was written, else says why on stderr and
 * returns HD_EXIT_OUTPUT.
 */
int hd_cmd_finish_output(FILE *out, const char *name, int status);

/*
 * Where a report or plan goes (-o FILE, --plan-out FILE), written so that
 * nothing but FILE can change: a regular file (or a new name) is written
 * to a temporary file created exclusively beside it (no planted link is
 * followed) and renamed over it once complete; "-" is standard output, and
 * an existing device or FIFO is written to directly, never replaced (as
 * root, renaming over /dev/null replaced the device).
 */
struct hd_cmd_output {
	FILE *f; /* what to write to, once open */
	const char *path; /* as given, for messages and the rename */
	char *tmp; /* the temporary file, or NULL when writing directly */
};

/*
 * Opens path for a report.  Refuses an empty path, and a path that is one
 * of the inputs of store (the same file, or the same name; store may be
 * NULL), as usage errors; fails when it cannot be created.  Says why on
 * stderr.  Returns -1 when o is open, else the exit status (HD_EXIT_USAGE
 * or HD_EXIT_OUTPUT).
 */
int hd_cmd_output_open(struct hd_cmd_output *o, const char *path,
		       const struct hd_store *store);

/*
 * Completes what hd_cmd_output_open() opened: flushes and checks it, then
 * renames the temporary file over the path, or removes it when written is
 * false or a write failed, so that a failed run leaves no half report.
 * Returns status, or HD_EXIT_OUTPUT when the report could not be written.
 */
int hd_cmd_output_close(struct hd_cmd_output *o, bool written, int status);

/*
 * Matches argv[*i] against an option that takes a value, spelled exactly
 * "--name VALUE", "--name=VALUE", "-s VALUE" or "-sVALUE" (short_name may
 * be NULL).
 * Returns 1 with *value set (and *i moved past a separate value), 0 when
 * argv[*i] is not this option, -1 when the value is missing (said on
 * stderr).  *value points into argv.
 */
int hd_cmd_opt_value(int argc, char **argv, int *i, const char *long_name,
		     const char *short_name, const char **value);

/*
 * Parses a decimal integer option value within [min, max]; on failure says
 * on stderr which option and value were wrong and returns false.
 */
bool hd_cmd_parse_int(const char *opt, const char *s, int min, int max,
		      int *out);

/*
 * What every subcommand's option loop does alike with argv[i]: a PATH (or
 * anything after "--") goes to paths, "--" ends the options, and --help
 * prints help, setting *status to the exit status.  Returns true when
 * argv[i] was handled here, false for an option the caller parses.
 */
bool hd_cmd_common_arg(char **argv, int i, bool *options_done,
		       GPtrArray *paths, const char *help, int *status);

#endif
