/*
 * Incident bundles: a tar (plain, gzip or zstd) or zip archive read as if
 * it were a directory.  Each regular-file member is handed out as a reader
 * of its own, streamed from the archive through libarchive; nothing is
 * ever written to disk, and a member's path is only a label.
 *
 * Ownership: an archive borrows the reader it reads from; a member's reader
 * reads from the archive and must be freed before the next member is asked
 * for.
 */
#ifndef HD_ARCHIVE_H
#define HD_ARCHIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-input.h"

struct hd_archive;

/*
 * Whether head, the first decoded bytes of an input, starts an archive:
 * "ustar" at offset 257 (a tar, whatever compressed it: the reader has
 * decoded that) or a zip's local header or end record ("PK\3\4",
 * "PK\5\6").  A compressed log stays a log.
 */
bool hd_archive_has_magic(const uint8_t *head, size_t len);

/*
 * Starts reading the archive that outer, not yet read from, holds (its
 * sniffed head is fine).  outer must outlive the archive; its budget
 * should be set for the archive as a whole.  (transfer full)
 */
struct hd_archive *hd_archive_new(struct hd_reader *outer, GError **error);
void hd_archive_free(struct hd_archive *a);
typedef struct hd_archive hd_archive; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_archive, hd_archive_free)

/* One member hd_archive_next() gives. */
struct hd_archive_member {
	/* "ARCHIVE/member/path", a label only, never opened */
	char *name;
	/* the member's bytes (decompressed if it is a .gz or .zst itself),
	   or NULL when it is skipped */
	struct hd_reader *reader;
	/* why the member is not read (a link, a device, bad first bytes), or
	   NULL */
	char *skipped;
};

/* Frees what m holds and zeroes it; NULL-safe. */
void hd_archive_member_clear(struct hd_archive_member *m);

/*
 * Moves to the next member worth naming: a regular file, with a reader, or
 * a link, a special file or a file whose first bytes cannot be read, with
 * why it is skipped (directories are passed over).  m must be clear.  Returns false at the end (error unset) or when
 * the archive cannot be read on (error set: corrupt, truncated, or past a
 * budget of HD_BUDGET_ARCHIVE_*, naming the archive and the member).
 */
bool hd_archive_next(struct hd_archive *a, struct hd_archive_member *m,
		     GError **error);

#endif
