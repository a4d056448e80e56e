/*
 * Discovery: walking the given paths for input files.  Directories are
 * walked in sorted order, so that the order of inputs (and of everything
 * merged from them) does not depend on the file system; each file found
 * carries its identity, so that one file reached twice is read once.  A
 * file found below a directory that cannot be looked at (a dangling link,
 * a link loop) is listed with its error, so that reports name it.
 */
#include "config.h"

#include "hd-discover.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hd-banned.h"

static int compare_paths(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Directories deeper than this are not entered. */
#define HD_MAX_DEPTH 32

/* A file's identity: what makes two paths the same file. */
struct file_id {
	uint64_t dev, ino;
};

static guint file_id_hash(gconstpointer p)
{
	const struct file_id *id = p;

	return (guint)((id->ino * 0x9e3779b97f4a7c15ULL) ^ id->dev);
}

static gboolean file_id_equal(gconstpointer a, gconstpointer b)
{
	const struct file_id *x = a, *y = b;

	return x->dev == y->dev && x->ino == y->ino;
}

struct discover {
	GPtrArray *found; /* struct hd_found * */
	GPtrArray *errors; /* char * */
	GPtrArray *roots; /* char *: real paths of the paths given */
	GHashTable *ids; /* struct file_id -> index in found + 1 */
	GArray *open_dirs; /* struct file_id of the directories being walked */
};

void hd_found_free(gpointer p)
{
	struct hd_found *f = p;

	if (!f)
		return;
	g_free(f->path);
	g_free(f->error);
	g_free(f);
}

static void add_found(struct discover *d, const char *path,
		      const struct stat *st)
{
	struct hd_found *f = g_new0(struct hd_found, 1);
	struct file_id *key;
	gpointer first;

	f->path = g_strdup(path);
	f->same_as = -1;
	if (st) {
		f->dev = (uint64_t)st->st_dev;
		f->ino = (uint64_t)st->st_ino;
		f->size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	}
	if (f->dev || f->ino) {
		key = g_new(struct file_id, 1);
		key->dev = f->dev;
		key->ino = f->ino;
		first = g_hash_table_lookup(d->ids, key);
		if (first) {
			f->same_as = GPOINTER_TO_INT(first) - 1;
			g_free(key);
		} else {
			g_hash_table_insert(d->ids, key,
					    GINT_TO_POINTER(d->found->len + 1));
		}
	}
	g_ptr_array_add(d->found, f);
}

/* Lists path, which cannot be looked at for why (errno), as an input. */
static void add_unreadable(struct discover *d, const char *path, int why)
{
	struct hd_found *f = g_new0(struct hd_found, 1);

	f->path = g_strdup(path);
	f->same_as = -1;
	f->error = g_strdup(g_strerror(why));
	g_ptr_array_add(d->found, f);
}

/* Whether the real path p lies inside (or is) one of the given paths. */
static bool is_inside_roots(const struct discover *d, const char *p)
{
	for (guint i = 0; i < d->roots->len; i++) {
		const char *root = g_ptr_array_index(d->roots, i);
		size_t n = strlen(root);

		if (strcmp(root, "/") == 0)
			return true;
		if (strncmp(p, root, n) == 0 && (p[n] == '\0' || p[n] == '/'))
			return true;
	}
	return false;
}

static void add_error(struct discover *d, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);

static void add_error(struct discover *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_ptr_array_add(d->errors, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

/*
 * A symbolic link met below a given directory.  It is followed only to a
 * regular file inside the given paths: a link to a directory would walk a
 * tree twice or forever (two links to "." made the walk exponential), and
 * a link out of the given paths could lead anywhere (/proc/kmsg).
 */
static void follow_link(struct discover *d, const char *p)
{
	struct stat st;
	char *real;

	if (stat(p, &st) != 0) {
		add_unreadable(d, p, errno);
		return;
	}
	real = realpath(p, NULL);
	if (!real) {
		add_unreadable(d, p, errno);
		return;
	}
	if (!is_inside_roots(d, real)) {
		add_error(d, "'%s' links out of the given paths, not followed",
			  p);
	} else if (S_ISREG(st.st_mode)) {
		add_found(d, p, &st);
	}
	/* a directory inside is walked where it lies */
	free(real);
}

/* Whether the directory st is already being walked (a bind-mount loop). */
static bool is_open_dir(const struct discover *d, const struct stat *st)
{
	for (guint i = 0; i < d->open_dirs->len; i++) {
		const struct file_id *id =
			&g_array_index(d->open_dirs, struct file_id, i);

		if (id->dev == (uint64_t)st->st_dev &&
		    id->ino == (uint64_t)st->st_ino)
			return true;
	}
	return false;
}

static void walk_dir(struct discover *d, const char *dir,
		     const struct stat *dst, int depth)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(GDir) gd = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	struct file_id id = { (uint64_t)dst->st_dev, (uint64_t)dst->st_ino };
	const char *name;

	if (is_open_dir(d, dst)) {
		add_error(d, "'%s': a directory loop, not entered", dir);
		return;
	}
	gd = g_dir_open(dir, 0, &err);
	if (!gd) {
		add_error(d, "cannot read '%s': %s", dir, err->message);
		return;
	}
	while ((name = g_dir_read_name(gd)))
		if (name[0] != '.')
			g_ptr_array_add(names,
					g_build_filename(dir, name, NULL));
	g_ptr_array_sort(names, compare_paths);
	g_array_append_val(d->open_dirs, id);
	for (guint i = 0; i < names->len; i++) {
		const char *p = g_ptr_array_index(names, i);
		struct stat st;

		if (lstat(p, &st) != 0) {
			add_unreadable(d, p, errno);
		} else if (S_ISLNK(st.st_mode)) {
			follow_link(d, p);
		} else if (S_ISDIR(st.st_mode)) {
			if (depth + 1 >= HD_MAX_DEPTH)
				add_error(d, "'%s': too deep, not entered", p);
			else
				walk_dir(d, p, &st, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			add_found(d, p, &st);
		}
		/* FIFOs, sockets and devices below a directory are not inputs */
	}
	g_array_set_size(d->open_dirs, d->open_dirs->len - 1);
}

void hd_discover(char **paths, GPtrArray *found, GPtrArray *errors)
{
	struct discover d = { .found = found, .errors = errors };
	int stdin_at = -1;

	d.roots = g_ptr_array_new_with_free_func(free);
	d.ids = g_hash_table_new_full(file_id_hash, file_id_equal, g_free,
				      NULL);
	d.open_dirs = g_array_new(FALSE, FALSE, sizeof(struct file_id));
	for (char **p = paths; p && *p; p++) {
		char *real = strcmp(*p, "-") ? realpath(*p, NULL) : NULL;

		if (real)
			g_ptr_array_add(d.roots, real);
	}
	for (; paths && *paths; paths++) {
		struct stat st;

		if (strcmp(*paths, "-") == 0) {
			/* standard input: one input, however often given */
			add_found(&d, "-",
				  fstat(STDIN_FILENO, &st) == 0 ? &st : NULL);
			if (stdin_at >= 0)
				((struct hd_found *)g_ptr_array_index(
					 found, found->len - 1))
					->same_as = stdin_at;
			else
				stdin_at = (int)found->len - 1;
			continue;
		}
		if (stat(*paths, &st) != 0) {
			add_error(&d, "cannot read '%s': %s", *paths,
				  g_strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode))
			walk_dir(&d, *paths, &st, 0);
		else if (S_ISREG(st.st_mode))
			add_found(&d, *paths, &st);
		else
			add_error(&d, "cannot read '%s': not a regular file",
				  *paths);
	}
	g_ptr_array_unref(d.roots);
	g_hash_table_unref(d.ids);
	g_array_unref(d.open_dirs);
}
