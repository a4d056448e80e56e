/*
 * Helpers shared by the subcommands: error messages on stderr and option
 * values on the command line.  Where reports go is cmd-output.c.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "hd-text.h"
#include "hd-const.h"
#include "hd-engine.h"
#include "hd-banned.h"

/* "hangdoc: " and the message, made safe: it may hold a file's name. */
static void say(const char *fmt, va_list ap) G_GNUC_PRINTF(1, 0);
static void say(const char *fmt, va_list ap)
{
	g_autofree char *msg = g_strdup_vprintf(fmt, ap);
	g_autofree char *safe = hd_text_safe(msg);

	fprintf(stderr, "hangdoc: %s\n", safe);
}

void hd_cmd_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void hd_cmd_say_load(const GPtrArray *problems, const struct hd_store *s)
{
	guint said = 0, unusable = 0;

	for (guint i = 0; problems && i < problems->len; i++)
		if (said++ < HD_CMD_SAY_MAX)
			hd_cmd_error("%s", (const char *)g_ptr_array_index(
						   problems, i));
	if (said > HD_CMD_SAY_MAX)
		hd_cmd_error("%u more problems reading the inputs, not said",
			     said - HD_CMD_SAY_MAX);
	for (guint i = 0; s && i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (in->error && unusable++ < HD_CMD_SAY_MAX)
			hd_cmd_error("'%s': %s", in->path, in->error);
	}
	if (unusable > HD_CMD_SAY_MAX)
		hd_cmd_error(
			"%u more inputs could not be used (the report lists each with why)",
			unusable - HD_CMD_SAY_MAX);
}

static void print_usage(FILE *out, const struct hd_cmd *cmd)
{
	const char *u = cmd->usage;
	bool first = true;

	/* each line of the usage after "usage: hangdoc NAME " */
	while (*u) {
		const char *nl = strchr(u, '\n');
		int len = nl ? (int)(nl - u) : (int)strlen(u);

		fprintf(out, "%s hangdoc %s %.*s\n",
			first ? "usage:" : "      ", cmd->name, len, u);
		first = false;
		u += len + (nl != NULL);
	}
}

int hd_cmd_analysis_status(const struct hd_store *store,
			   const struct hd_analysis *a)
{
	if (!hd_store_usable_inputs(store))
		return HD_EXIT_NO_INPUT;
	if (hd_analysis_is_inconsistent(a))
		return HD_EXIT_INCONSISTENT;
	if (hd_analysis_has_fault(a))
		return HD_EXIT_FAULT;
	if (hd_analysis_undecided(a))
		return HD_EXIT_UNDECIDED;
	/* read, but not one op: nothing shows the job was healthy either */
	return store->ops->len ? HD_EXIT_OK : HD_EXIT_NO_INPUT;
}

int hd_cmd_usage_error(const struct hd_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	print_usage(stderr, cmd);
	return HD_EXIT_USAGE;
}

int hd_cmd_parse_ranks(const struct hd_cmd *cmd, const GPtrArray *values,
		       hd_ranklist **out)
{
	for (guint i = 0; i < values->len; i++) {
		g_autoptr(GError) err = NULL;

		if (!*out)
			*out = hd_ranklist_new();
		if (!hd_ranklist_add(*out, g_ptr_array_index(values, i), &err))
			return hd_cmd_usage_error(cmd, "option '--rank': %s",
						  err->message);
	}
	return HD_CMD_CONTINUE;
}

int hd_cmd_parse_groups(const struct hd_cmd *cmd, const GPtrArray *values,
			GPtrArray **out)
{
	if (!values->len)
		return HD_CMD_CONTINUE;
	*out = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; i < values->len; i++) {
		const char *value = g_ptr_array_index(values, i);
		g_auto(GStrv) parts = g_strsplit(value, ",", -1);

		for (char **p = parts; *p; p++) {
			if (!**p)
				return hd_cmd_usage_error(
					cmd,
					"option '--group': '%s' has an empty group name",
					value);
			g_ptr_array_add(*out, g_strdup(*p));
		}
	}
	g_ptr_array_add(*out, NULL);
	return HD_CMD_CONTINUE;
}

int hd_cmd_need_paths(const struct hd_cmd *cmd, const GPtrArray *paths)
{
	if (paths->len)
		return HD_CMD_CONTINUE;
	return hd_cmd_usage_error(cmd, "%s: no PATH given", cmd->name);
}

int hd_cmd_no_usable_input(guint npaths)
{
	hd_cmd_error("no usable input in the %u %s given", npaths,
		     npaths == 1 ? "path" : "paths");
	return HD_EXIT_NO_INPUT;
}

int hd_cmd_text_or_json(const struct hd_cmd *cmd, const char *format,
			bool *json)
{
	*json = format && strcmp(format, "json") == 0;
	if (format && !*json && strcmp(format, "text") != 0)
		return hd_cmd_usage_error(
			cmd, "unknown format '%s' for '%s' (use text or json)",
			format, cmd->name);
	return HD_CMD_CONTINUE;
}

/*
 * One bound: *ns and whether it was a time of day; false if unreadable.
 * A date goes through the project's one date parser (hd_time_scan_date():
 * years 1970 to 2200, real days only); without a zone it is UTC, with "Z"
 * or an offset the offset applies.  A time of day is "HH:MM[:SS[.frac]]".
 */
static bool parse_when(const char *s, int64_t *ns, bool *tod)
{
	size_t n = strlen(s), used;
	struct hd_time t;

	used = hd_time_scan_date(s, n, &t);
	if (used) {
		*ns = t.ns;
		*tod = false;
		return used == n;
	}
	used = hd_time_scan_hms(s, n, true, ns);
	*tod = true;
	return used && used == n;
}

int hd_cmd_parse_window(const struct hd_cmd *cmd, const char *since,
			const char *until, struct hd_window *w)
{
	bool tod_since = false, tod_until = false;

	w->since = INT64_MIN;
	w->until = INT64_MAX;
	w->time_of_day = false;
	if (since && !parse_when(since, &w->since, &tod_since))
		return hd_cmd_usage_error(
			cmd,
			"option '--since': '%s' is not a time (YYYY-MM-DD HH:MM[:SS] in UTC, years 1970 to 2200, or HH:MM[:SS])",
			since);
	if (until && !parse_when(until, &w->until, &tod_until))
		return hd_cmd_usage_error(
			cmd,
			"option '--until': '%s' is not a time (YYYY-MM-DD HH:MM[:SS] in UTC, years 1970 to 2200, or HH:MM[:SS])",
			until);
	if (since && until && tod_since != tod_until)
		return hd_cmd_usage_error(
			cmd,
			"--since and --until must both be dates and times, or both times of day");
	w->time_of_day = tod_since || tod_until;
	if (w->time_of_day && !since)
		w->since = 0;
	if (w->since > w->until)
		return hd_cmd_usage_error(cmd, "--since is after --until");
	return HD_CMD_CONTINUE;
}

int hd_cmd_print_help(const struct hd_cmd *cmd)
{
	print_usage(stdout, cmd);
	fputc('\n', stdout);
	fputs(cmd->help, stdout);
	return hd_cmd_finish_output(stdout, "standard output", HD_EXIT_OK);
}

/* The option argv[i] names, or NULL; *inline_value gets "=VALUE"'s. */
static const struct hd_opt *match(const struct hd_opt *opts, const char *arg,
				  const char **inline_value)
{
	*inline_value = NULL;
	for (const struct hd_opt *o = opts; o->name; o++) {
		size_t n = strlen(o->name);

		if (arg[1] == '-' && strncmp(arg + 2, o->name, n) == 0 &&
		    (arg[2 + n] == '\0' || arg[2 + n] == '=')) {
			if (arg[2 + n] == '=')
				*inline_value = arg + 3 + n;
			return o;
		}
		if (o->short_name && arg[1] == o->short_name) {
			if (arg[2] == '\0')
				return o;
			if (o->kind != HD_OPT_FLAG) { /* "-j2" */
				*inline_value = arg + 2;
				return o;
			}
		}
	}
	return NULL;
}

/* Stores value into o->dest; false (said) when it does not fit. */
static bool store(const struct hd_cmd *cmd, const struct hd_opt *o,
		  const char *spelled, const char *value)
{
	char *end;
	double d;
	gint64 v;

	switch (o->kind) {
	case HD_OPT_FLAG:
		*(bool *)o->dest = true;
		return true;
	case HD_OPT_STRING:
		*(const char **)o->dest = value;
		return true;
	case HD_OPT_LIST:
		g_ptr_array_add(*(GPtrArray **)o->dest, hd_unconst(value));
		return true;
	case HD_OPT_INT:
		if (g_ascii_string_to_signed(value, 10, (gint64)o->min,
					     (gint64)o->max, &v, NULL)) {
			*(int *)o->dest = (int)v;
			return true;
		}
		hd_cmd_usage_error(
			cmd,
			"option '%s': '%s' is not a number from %.0f to %.0f",
			spelled, value, o->min, o->max);
		return false;
	case HD_OPT_NUMBER:
		errno = 0;
		d = g_ascii_strtod(value, &end);
		if (errno == 0 && end != value && *end == '\0' && d > o->min &&
		    d <= o->max) {
			*(double *)o->dest = d;
			return true;
		}
		hd_cmd_usage_error(
			cmd,
			"option '%s': '%s' is not a number above %g and at most %g",
			spelled, value, o->min, o->max);
		return false;
	}
	return false;
}

int hd_cmd_parse(const struct hd_cmd *cmd, int argc, char **argv,
		 const struct hd_opt *opts, GPtrArray *paths)
{
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value;
		g_autofree char *spelled = NULL;
		const struct hd_opt *o;

		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			g_ptr_array_add(paths, argv[i]);
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			options_done = true;
			continue;
		}
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
			return hd_cmd_print_help(cmd);
		o = match(opts, arg, &value);
		if (!o)
			return hd_cmd_usage_error(
				cmd, "unknown option '%s' for '%s'", arg,
				cmd->name);
		spelled = g_strdup_printf("--%s", o->name);
		if (o->kind == HD_OPT_FLAG) {
			if (value)
				return hd_cmd_usage_error(
					cmd, "option '%s' takes no value",
					spelled);
		} else if (!value) {
			if (i + 1 >= argc)
				return hd_cmd_usage_error(
					cmd, "option '%s' needs a value",
					spelled);
			value = argv[++i];
		}
		if (value && !*value)
			return hd_cmd_usage_error(
				cmd, "option '%s' needs a value", spelled);
		if (!store(cmd, o, spelled, value))
			return HD_EXIT_USAGE;
	}
	return HD_CMD_CONTINUE;
}
