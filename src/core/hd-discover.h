/*
 * Discovery: the input files below the paths a user gives, in a stable
 * order, each with its identity so that one file reached twice is read
 * once.
 */
#ifndef HD_DISCOVER_H
#define HD_DISCOVER_H

#include <stdint.h>
#include <glib.h>

/* One file hd_discover() found. */
struct hd_found {
	/* as given or found below a given directory; "-" is standard input */
	char *path;
	uint64_t dev, ino; /* the file's identity, 0 when unknown */
	uint64_t size; /* its size when found, 0 when unknown or empty */
	/* an earlier entry that is the same file (device, inode), or -1 */
	int same_as;
	/* why a file found below a directory cannot be looked at (a dangling
	   link, a link loop), or NULL: it is listed, not read */
	char *error;
};

/* Frees a struct hd_found (a GDestroyNotify). */
void hd_found_free(gpointer f);

/*
 * Walks the given paths and appends a struct hd_found for every input to
 * found (owning them: create it with hd_found_free).  Paths given are
 * taken whatever they are links to: a regular file, a directory walked
 * recursively in sorted order, or "-" for standard input; anything else (a
 * FIFO, a device) is refused.  Below a directory, hidden entries, FIFOs,
 * sockets and devices are skipped, and a symbolic link is followed only
 * to a regular file inside the given paths, never to a directory.  The
 * same file reached twice (a directory given twice, a link, a hard link)
 * is listed each time, with same_as naming the first.  A file below a
 * directory that cannot be looked at is listed with its error set; what
 * else cannot be read or is not followed (a path given that does not
 * exist, a directory loop, a link out of the given paths) is said in
 * errors (char *, "cannot read 'x': why").
 */
void hd_discover(char **paths, GPtrArray *found, GPtrArray *errors);

#endif
