/*
 * Helpers shared by the subcommands: error messages on stderr, option
 * values on the command line, and the final write check on the report
 * stream (git's "check stdout before exiting").
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "hd-banned.h"

void hd_cmd_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hangdoc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int hd_cmd_finish_output(FILE *out, const char *name, int status)
{
	int err = 0;

	if (fflush(out) != 0)
		err = errno;
	if (ferror(out)) {
		hd_cmd_error("cannot write '%s': %s", name,
			     err ? g_strerror(err) : "write error");
		return HD_EXIT_OUTPUT;
	}
	return status;
}

int hd_cmd_opt_value(int argc, char **argv, int *i, const char *long_name,
		     const char *short_name, const char **value)
{
	const char *arg = argv[*i];
	size_t n = strlen(long_name);

	if (strncmp(arg, long_name, n) == 0 && arg[n] == '=') {
		*value = arg + n + 1;
		if (!**value) {
			hd_cmd_error("option '%s' needs a value", long_name);
			return -1;
		}
		return 1;
	}
	/* "-j2", as getopt takes it */
	if (short_name && short_name[1] && !short_name[2] &&
	    strncmp(arg, short_name, 2) == 0 && arg[2]) {
		*value = arg + 2;
		return 1;
	}
	if (strcmp(arg, long_name) != 0 &&
	    (!short_name || strcmp(arg, short_name) != 0))
		return 0;
	if (*i + 1 >= argc) {
		hd_cmd_error("option '%s' needs a value", arg);
		return -1;
	}
	(*i)++;
	*value = argv[*i];
	return 1;
}

bool hd_cmd_parse_int(const char *opt, const char *s, int min, int max,
		      int *out)
{
	gint64 v;

	if (!g_ascii_string_to_signed(s, 10, min, max, &v, NULL)) {
		hd_cmd_error("option '%s': '%s' is not a number from %d to %d",
			     opt, s, min, max);
		return false;
	}
	*out = (int)v;
	return true;
}

bool hd_cmd_common_arg(char **argv, int i, bool *options_done,
		       GPtrArray *paths, const char *help, int *status)
{
	const char *arg = argv[i];

	if (*options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
		g_ptr_array_add(paths, argv[i]);
		return true;
	}
	if (strcmp(arg, "--") == 0) {
		*options_done = true;
		return true;
	}
	if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
		fputs(help, stdout);
		*status = hd_cmd_finish_output(stdout, "standard output",
					       HD_EXIT_OK);
		return true;
	}
	return false;
}
