/*
 * Reports: render an analysis as text (a person at a terminal), JSON
 * (schema 1 of design.md, for pipelines) or Markdown (incident tickets).
 * Reports never decide anything: every verdict, count and ranking comes
 * from the analysis.
 */
#ifndef HD_REPORT_H
#define HD_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "hd-engine.h"

enum hd_report_format {
	HD_REPORT_TEXT = 0,
	HD_REPORT_JSON,
	HD_REPORT_MARKDOWN,
};

/* Parses "text", "json", "markdown" (or "md"); false if unknown. */
bool hd_report_format_parse(const char *s, enum hd_report_format *fmt);

/* Writes the report; returns false if out failed. */
bool hd_report_write(FILE *out, enum hd_report_format fmt,
		     const struct hd_analysis *a);

void hd_report_text(FILE *out, const struct hd_analysis *a);
void hd_report_markdown(FILE *out, const struct hd_analysis *a);
/* Builds the schema-1 document.  (transfer full) */
json_t *hd_report_json_build(const struct hd_analysis *a);

/* Shared by the renderers: "0-3,5,7-9" (transfer full). */
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
