/*
 * Where every subcommand's output goes, and the one way it is written:
 * analyze -o, digest -o, export -o and replay --plan-out all open their
 * file here, so that the same promises hold for each (docs/safety.md): an
 * input is never overwritten, a device or FIFO is written to and never
 * replaced, a regular file is replaced only by a complete report through a
 * temporary file no planted link can take, and a FIFO nobody reads fails
 * at once instead of hanging.  The final write check on standard output (git's
 * "check stdout before exiting") lives here too: a closed pipe is exit
 * status 4, the same for every subcommand.
 */
#include "config.h"

#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "hd-banned.h"

void hd_cmd_output_setup(void)
{
	/*
	 * A reader that goes away (`hangdoc analyze ... | head -c1`) makes
	 * writes fail with EPIPE, which hd_cmd_finish_output() reports as
	 * exit status 4, instead of killing hangdoc with SIGPIPE (141 in a
	 * shell), a status no subcommand documents.
	 */
	signal(SIGPIPE, SIG_IGN);
}

int hd_cmd_finish_output(FILE *out, const char *name, int status)
{
	int err = 0;

	if (fflush(out) != 0)
		err = errno;
	if (ferror(out)) {
		if (err == EPIPE)
			hd_cmd_error("cannot write '%s': the reader closed it",
				     name);
		else
			hd_cmd_error("cannot write '%s': %s", name,
				     err ? g_strerror(err) : "write error");
		return HD_EXIT_OUTPUT;
	}
	return status;
}

/* Whether st is the file at path (both given), by device and inode. */
static bool same_file(const char *path, const struct stat *st)
{
	struct stat o;

	return path && stat(path, &o) == 0 && o.st_dev == st->st_dev &&
	       o.st_ino == st->st_ino;
}

/*
 * Whether path, which exists as st (or NULL), is one of store's inputs or
 * the file also_input (either may be NULL).
 */
static bool is_input(const struct hd_store *store, const char *also_input,
		     const char *path, const struct stat *st)
{
	if (also_input && (strcmp(also_input, path) == 0 ||
			   (st && same_file(also_input, st))))
		return true;
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

/* How long a FIFO may take to get its reader: 40 x 50 ms, 2 s. */
#define HD_FIFO_GRACE_TRIES   40
#define HD_FIFO_GRACE_STEP_US 50000

/*
 * Opens an existing device or FIFO for writing, as it is.  O_NONBLOCK
 * makes opening a FIFO that no process reads fail with ENXIO instead of
 * waiting forever for a reader; once open, writes block again, as on any
 * pipe.  What was opened must still be what stat() saw: never a regular
 * file written in place.
 */
static int open_direct(struct hd_cmd_output *o, const struct stat *seen)
{
	int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	int flags;

	/*
	 * A reader started beside hangdoc (`cat fifo & hangdoc -o fifo`) may
	 * not have opened its end yet: give it a bounded grace, never more.
	 */
	for (int tries = 0;
	     fd < 0 && errno == ENXIO && S_ISFIFO(seen->st_mode) &&
	     tries < HD_FIFO_GRACE_TRIES;
	     tries++) {
		g_usleep(HD_FIFO_GRACE_STEP_US);
		fd = open(o->path,
			  O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	}

	if (fd < 0) {
		if (errno == ENXIO && S_ISFIFO(seen->st_mode))
			hd_cmd_error("cannot write '%s': it is a FIFO that no "
				     "process reads",
				     o->path);
		else
			hd_cmd_error("cannot write '%s': %s", o->path,
				     g_strerror(errno));
		return HD_EXIT_OUTPUT;
	}
	if (fstat(fd, &st) != 0 || st.st_dev != seen->st_dev ||
	    st.st_ino != seen->st_ino || S_ISREG(st.st_mode) ||
	    S_ISDIR(st.st_mode)) {
		hd_cmd_error("cannot write '%s': it changed while opened",
			     o->path);
		close(fd);
		return HD_EXIT_OUTPUT;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
	    !(o->f = fdopen(fd, "w"))) {
		hd_cmd_error("cannot write '%s': %s", o->path,
			     g_strerror(errno));
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
	fd = g_mkstemp_full(o->tmp, O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0666);
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
		       const struct hd_store *store, const char *also_input)
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
	if (is_input(store, also_input, path, exists ? &st : NULL)) {
		hd_cmd_error("'%s' is one of the inputs, not overwritten",
			     path);
		return HD_EXIT_USAGE;
	}
	if (exists && S_ISDIR(st.st_mode)) {
		hd_cmd_error("cannot write '%s': is a directory", path);
		return HD_EXIT_OUTPUT;
	}
	if (exists && !S_ISREG(st.st_mode))
		return open_direct(o, &st);
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
