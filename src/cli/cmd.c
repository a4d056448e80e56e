/*
 * Helpers shared by the subcommands: error messages on stderr, option
 * values on the command line, the output file written safely, and the
 * final write check on the report stream (git's "check stdout before
 * exiting").
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

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

/* Whether path, which exists as st (or NULL), is one of store's inputs. */
static bool is_input(const struct hd_store *store, const char *path,
		     const struct stat *st)
{
	for (guint i = 0; store && i < store->inputs->len; i++) {
		const struct hd_input *in = hd_store_input(store, i);

		if (strcmp(in->path, path) == 0)
			return true;
		if (st && (in->dev || in->ino) &&
		    in->dev == (uint64_t)st->st_dev &&
		    in->ino == (uint64_t)st->st_ino)
			return true;
	}
	return false;
}

/* Opens an existing device or FIFO for writing, as it is. */
static int open_direct(struct hd_cmd_output *o)
{
	int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		hd_cmd_error("cannot write '%s': %s", o->path,
			     g_strerror(errno));
		if (fd >= 0)
			close(fd);
		return HD_EXIT_OUTPUT;
	}
	return -1;
}

/*
 * Creates the temporary file beside path: hidden, so that a walk of the
 * directory skips it, and made by mkstemp (O_CREAT | O_EXCL), so that a
 * file or link planted under a predictable name cannot take the write.
 */
static int open_temporary(struct hd_cmd_output *o)
{
	g_autofree char *dir = g_path_get_dirname(o->path);
	g_autofree char *base = g_path_get_basename(o->path);
	int fd;

	o->tmp = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
	fd = g_mkstemp_full(o->tmp, O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0) {
		hd_cmd_error("cannot create '%s': %s", o->path,
			     g_strerror(errno));
		g_clear_pointer(&o->tmp, g_free);
		return HD_EXIT_OUTPUT;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		hd_cmd_error("cannot create '%s': %s", o->path,
			     g_strerror(errno));
		close(fd);
		g_unlink(o->tmp);
		g_clear_pointer(&o->tmp, g_free);
		return HD_EXIT_OUTPUT;
	}
	return -1;
}

int hd_cmd_output_open(struct hd_cmd_output *o, const char *path,
		       const struct hd_store *store)
{
	struct stat st;
	bool exists;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!path || !*path) {
		hd_cmd_error("the output file name is empty");
		return HD_EXIT_USAGE;
	}
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return -1;
	}
	exists = stat(path, &st) == 0;
	if (is_input(store, path, exists ? &st : NULL)) {
		hd_cmd_error("'%s' is one of the inputs, not overwritten",
			     path);
		return HD_EXIT_USAGE;
	}
	if (exists && S_ISDIR(st.st_mode)) {
		hd_cmd_error("cannot write '%s': is a directory", path);
		return HD_EXIT_OUTPUT;
	}
	if (exists && !S_ISREG(st.st_mode))
		return open_direct(o);
	return open_temporary(o);
}

int hd_cmd_output_close(struct hd_cmd_output *o, bool written, int status)
{
	const char *name = o->f == stdout ? "standard output" : o->path;

	if (!o->f)
		return status;
	status = hd_cmd_finish_output(o->f, name,
				      written ? status : HD_EXIT_OUTPUT);
	if (o->f != stdout && fclose(o->f) != 0 && status != HD_EXIT_OUTPUT) {
		hd_cmd_error("cannot write '%s': %s", name, g_strerror(errno));
		status = HD_EXIT_OUTPUT;
	}
	o->f = NULL;
	if (o->tmp && status == HD_EXIT_OUTPUT) {
		g_unlink(o->tmp);
	} else if (o->tmp && g_rename(o->tmp, o->path) != 0) {
		hd_cmd_error("cannot rename '%s' to '%s': %s", o->tmp, o->path,
			     g_strerror(errno));
		g_unlink(o->tmp);
		status = HD_EXIT_OUTPUT;
	}
	g_clear_pointer(&o->tmp, g_free);
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
