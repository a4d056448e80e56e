/*
 * Lines: a reader's bytes split into bounded lines.  A line ends at \n,
 * \r\n or a lone \r (old Mac line ends, or a progress bar redrawn in
 * place), so that no line end fuses records.
 *
 * Ownership: the lines iterator borrows its reader.
 */
#ifndef HD_LINES_H
#define HD_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-reader.h"

/* Lines longer than this are cut; the rest of the line is skipped. */
#define HD_LINE_MAX (64 * 1024)

/*
 * Bounded line iteration.  Line terminators (\n, \r\n, \r) are stripped.
 * NUL bytes are no text (a hole a truncated or crashed writer left): a
 * run of them is skipped and counted on the reader (hd_reader_nul_skipped()),
 * and a line that reaches one stops there, unterminated; the text after
 * the hole is the next line, with the same number (no line end was
 * crossed).
 */
struct hd_lines;

/* (transfer full); the reader stays owned by the caller */
struct hd_lines *hd_lines_new(struct hd_reader *r);
void hd_lines_free(struct hd_lines *l);
typedef struct hd_lines hd_lines; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_lines, hd_lines_free)

/*
 * Returns the next line in *line and *len (transfer none; valid until the next
 * call) and true, or false at end of input or on error (check *error).
 * A line longer than HD_LINE_MAX is returned cut to HD_LINE_MAX bytes with
 * *cut set; the rest of it is skipped.  The last line may lack a newline.
 */
bool hd_lines_next(struct hd_lines *l, const char **line, size_t *len,
		   bool *cut, GError **error);
/* The number of the line last returned, from 1. */
uint64_t hd_lines_lineno(const struct hd_lines *l);
/*
 * Whether the line last returned had no line end: it ended at the end of
 * input (the file was cut inside that line, a torn write or copy, unless
 * its writer never ends its last line) or at a hole of NUL bytes.
 */
bool hd_lines_unterminated(const struct hd_lines *l);

#endif
