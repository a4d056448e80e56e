/*
 * The subcommand table: one src/cmd-<name>.c per subcommand, each exporting
 * a struct hd_cmd, looked up by exact name in src/hangdoc.c.
 */
#ifndef HD_CMD_H
#define HD_CMD_H

#include <stdio.h>
#include <glib.h>

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

#endif
