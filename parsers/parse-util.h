/*
 * What the parsers of small text and JSON formats share (gdb-bt.c,
 * pyspy.c, torchelastic.c, nccl-topo.c, nccl-inspector.c, kernel-log.c,
 * crash-record.c, c10d-record.c, and through state-text.c gpu-state.c and
 * ib-state.c): scanning a span [s, e) of bytes, a signal's number from
 * its text, reading a whole small input under its cap, giving a signal
 * the frames read for it, and ending an input that a read error cut, so
 * that every one of them keeps what it read and says the same thing.
 * Below the parsers that use it.
 */
#ifndef HD_PARSE_UTIL_H
#define HD_PARSE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "hd-input.h"
#include "hd-store.h"

/* Whether the span [s, e) starts with prefix. */
bool pu_starts(const char *s, const char *e, const char *prefix);

/*
 * The Linux number of the signal whose glibc strsignal() text [s, e) is
 * exactly ("Segmentation fault" 11, "Killed" 9), as srun and Python's
 * faulthandler print them; 0 for any other text.
 */
int pu_signal_of_text(const char *s, const char *e);

/* The first needle in [s, e), or NULL.  (transfer none) */
const char *pu_find(const char *s, const char *e, const char *needle);

/*
 * Reads the decimal digits at *s (before e) into *out, moving *s past
 * them; digits past the 18th are passed over, so *out never overflows.
 * False when there is none.
 */
bool pu_dec(const char **s, const char *e, int64_t *out);

/*
 * The whole decompressed content of rd, at most max bytes; past that an
 * HD_ERROR_FORMAT error "<what> over N MiB" (what: "a py-spy JSON dump").
 * (transfer full)
 */
GBytes *pu_slurp(struct hd_reader *rd, size_t max, const char *what,
		 GError **error);

/*
 * Gives signal sig of s (none when sig is negative or past the end) the
 * frames (struct hd_frame, innermost first) as its stack, if there are
 * any: the end of a thread or backtrace read frame by frame.
 */
void pu_signal_stack(struct hd_store *s, int64_t sig, const GArray *frames);

/*
 * The whole of rd (pu_slurp()) parsed as one JSON document, or NULL with
 * an HD_ERROR_FORMAT error "<what> that does not parse (cut?)".
 * (transfer full: cJSON_Delete())
 */
struct cJSON *pu_slurp_json(struct hd_reader *rd, size_t max, const char *what,
			    GError **error);

/*
 * Ends input in of a line parser once its line loop stopped at line
 * lineno, err the read error that stopped it, or NULL (transfer full):
 * an input a read error cut is truncated, the error its own when it gave
 * no record (false: unusable), else a warning "input ends early" at the
 * line; an input read whole that gave no record is empty.
 */
bool pu_end_lines(struct hd_input *in, uint64_t lineno, GError *err,
		  GError **error);

#endif
