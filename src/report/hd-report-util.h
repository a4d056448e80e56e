/*
 * Helpers every report renderer shares: the analysis renderers, `show`
 * and `replay` alike.  They format; they decide nothing.
 */
#ifndef HD_REPORT_UTIL_H
#define HD_REPORT_UTIL_H

#include <stdint.h>
#include <glib.h>

#include "hd-engine.h"
#include "hd-store.h"

/* "0-3,5,7-9" (transfer full). */
char *hd_report_rank_list(const GArray *ranks);

/*
 * Makes a raw string from an input safe to print: invalid UTF-8 bytes become
 * U+FFFD and control characters (escape sequences included) become '?'.
 * NULL gives "".  (transfer full)
 */
char *hd_report_clean(const char *s);

/* The engine's figures for a group, or NULL.  (transfer none) */
const struct hd_group_stats *hd_report_group_stats(const struct hd_analysis *a,
						   uint32_t group);

/* "15,000".  (transfer full) */
char *hd_report_count(uint64_t n);

/* "850 ns", "12.3 us", "4.56 ms", "1.20 s", "3.0 min".  (transfer full) */
char *hd_report_duration(int64_t ns);

/* "watchdog_timeout", "ib_completion", ...  (transfer none) */
const char *hd_report_signal_type_name(enum hd_signal_type t);

/*
 * The cells of one rank-table row shared by the text and Markdown tables:
 * last enqueued, last completed and the state ("blocked at 38"), with
 * empty standing for an unknown value.
 */
void hd_report_progress_cells(const struct hd_rank_progress *p,
			      const char *empty, char enq[24], char done[24],
			      char state[48]);

#endif
