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

#endif
