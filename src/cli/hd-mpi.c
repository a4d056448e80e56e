/*
 * analyze --mpi (hd-mpi.h): each process makes a digest of its share of
 * the inputs (hd_cmd_make_digest(), as `hangdoc digest` does), MPI gathers
 * them to rank 0, which writes them to a private directory for analyze to
 * read like any other digests.  The split keeps the files' order: process
 * r takes the r-th contiguous block of the files found, so rank 0's
 * inputs come in the order a direct analyze reads them, and the report is
 * the same.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#ifdef HAVE_MPI
#include <mpi.h>
#endif

#include "cmd.h"
#include "hd-discover.h"
#include "hd-mpi.h"
#include "hd-banned.h"

#ifdef HAVE_MPI

/* path with each "%h" this host's name and "%%" a '%'.  (transfer full) */
static char *expand_host(const char *path, const char *host, bool *had)
{
	GString *s = g_string_new(NULL);

	for (const char *p = path; *p; p++) {
		if (p[0] == '%' && p[1] == 'h') {
			g_string_append(s, host);
			*had = true;
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			g_string_append_c(s, '%');
			p++;
		} else {
			g_string_append_c(s, *p);
		}
	}
	return g_string_free(s, FALSE);
}

/*
 * The paths this process reads, NULL-ended, into mine (char *): with
 * "%h", all of them expanded when it is the first process of its host;
 * else its block of the files found, the last block also taking the
 * paths that do not exist (analyze lists those last, as inputs with
 * their error).
 */
static void my_paths(char **paths, int rank, int size, GPtrArray *mine)
{
	g_autoptr(GPtrArray) expanded = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) found =
		g_ptr_array_new_with_free_func(hd_found_free);
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	const char *host = g_get_host_name();
	bool per_host = false;
	guint from, to;

	for (char **p = paths; *p; p++)
		g_ptr_array_add(expanded, expand_host(*p, host, &per_host));
	if (per_host) {
		MPI_Comm node;
		int local = 0;

		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
				    MPI_INFO_NULL, &node);
		MPI_Comm_rank(node, &local);
		MPI_Comm_free(&node);
		for (guint i = 0; local == 0 && i < expanded->len; i++)
			g_ptr_array_add(
				mine, g_strdup(g_ptr_array_index(expanded, i)));
		return;
	}
	g_ptr_array_add(expanded, NULL);
	hd_discover((char **)expanded->pdata, found, errors);
	from = (guint)((uint64_t)found->len * (uint64_t)rank / (uint64_t)size);
	to = (guint)((uint64_t)found->len * (uint64_t)(rank + 1) /
		     (uint64_t)size);
	for (guint i = from; i < to; i++) {
		const struct hd_found *f = g_ptr_array_index(found, i);

		g_ptr_array_add(mine, g_strdup(f->path));
	}
	if (rank != size - 1)
		return;
	for (guint i = 0; i + 1 < expanded->len; i++) {
		const char *p = g_ptr_array_index(expanded, i);

		if (strcmp(p, "-") != 0 && !g_file_test(p, G_FILE_TEST_EXISTS))
			g_ptr_array_add(mine, g_strdup(p));
	}
}

/* Writes the n digests in all (lengths len) to files in a new *dir. */
static int write_digests(const char *all, const int *len, int n,
			 GPtrArray *digests, char **dir)
{
	g_autoptr(GError) err = NULL;
	size_t at = 0;

	*dir = g_dir_make_tmp("hangdoc-mpi-XXXXXX", &err);
	if (!*dir) {
		hd_cmd_error(
			"--mpi: cannot make a directory for the digests: %s",
			err->message);
		return HD_EXIT_OUTPUT;
	}
	for (int r = 0; r < n; r++) {
		char *path;

		if (!len[r])
			continue; /* a process with nothing to read */
		path = g_strdup_printf("%s/rank-%07d.hdd", *dir, r);
		g_ptr_array_add(digests, path);
		if (!g_file_set_contents(path, all + at, len[r], &err)) {
			hd_cmd_error("--mpi: %s", err->message);
			return HD_EXIT_OUTPUT;
		}
		at += (size_t)len[r];
	}
	return HD_CMD_CONTINUE;
}

int hd_mpi_gather(char **paths, int jobs, GPtrArray *digests, char **dir)
{
	g_autoptr(GPtrArray) mine = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GBytes) bytes = NULL;
	g_autoptr(hd_store) store = NULL;
	g_autofree int *lens = NULL, *offs = NULL;
	g_autofree char *all = NULL;
	const void *data = NULL;
	gsize len = 0;
	int rank = 0, size = 1, inited = 0, n, ok = 1, provided;
	int64_t total = 0;

	/* only this thread calls MPI; the loader's threads never do */
	MPI_Initialized(&inited);
	if (!inited)
		MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	my_paths(paths, rank, size, mine);
	if (mine->len) {
		g_ptr_array_add(mine, NULL);
		/* level 1: the bytes cross the job's fabric once */
		bytes = hd_cmd_make_digest((char **)mine->pdata, jobs, 1,
					   problems, &store);
		if (bytes)
			data = g_bytes_get_data(bytes, &len);
	}
	/* MPI counts are ints: a larger digest is said, and not sent */
	if (len > G_MAXINT) {
		hd_cmd_error(
			"--mpi: the digest of rank %d is %" G_GSIZE_FORMAT
			" bytes, past what one MPI message holds; not sent",
			rank, len);
		len = 0;
	}
	n = (int)len;
	if (rank == 0)
		lens = g_new0(int, size);
	MPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		offs = g_new0(int, size);
		for (int r = 0; r < size; r++) {
			offs[r] = (int)MIN(total, (int64_t)G_MAXINT);
			total += lens[r];
		}
		/* Gatherv's displacements are ints too */
		if (total > G_MAXINT) {
			hd_cmd_error(
				"--mpi: the digests add up to %" G_GINT64_FORMAT
				" bytes, past what one gather holds; write "
				"them with hangdoc digest to a shared file "
				"system instead",
				total);
			ok = 0;
		} else {
			all = g_malloc((gsize)total + 1);
		}
	}
	/* every process learns whether the gather is made: none waits */
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (ok)
		MPI_Gatherv(data, n, MPI_BYTE, all, lens, offs, MPI_BYTE, 0,
			    MPI_COMM_WORLD);
	MPI_Finalize();
	if (rank != 0)
		return HD_EXIT_OK;
	if (!ok)
		return HD_EXIT_NO_INPUT;
	return write_digests(all, lens, size, digests, dir);
}

#else

int hd_mpi_gather(char **paths, int jobs, GPtrArray *digests, char **dir)
{
	(void)paths;
	(void)jobs;
	(void)digests;
	*dir = NULL;
	hd_cmd_error("--mpi: this hangdoc was built without MPI (configure "
		     "--with-mpi; scripts/install-deps.sh installs Open MPI)");
	return HD_EXIT_USAGE;
}

#endif

void hd_mpi_done(GPtrArray *digests, const char *dir)
{
	for (guint i = 0; digests && i < digests->len; i++)
		g_unlink(g_ptr_array_index(digests, i));
	if (dir)
		g_rmdir(dir);
}
