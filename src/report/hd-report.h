/*
 * Reports: render an analysis as text (a person at a terminal), JSON
 * (schema 1 of design.md, for pipelines) or Markdown (incident tickets).
 * Reports never decide anything: every verdict, count and ranking comes
 * from the analysis.  This is the dispatcher; the renderers it calls are
 * declared in hd-report-render.h, and `show` and `replay` have renderers
 * of their own (hd-report-show.h, hd-report-replay.h).
 */
#ifndef HD_REPORT_H
#define HD_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "hd-engine.h"

enum hd_report_format {
	HD_REPORT_TEXT = 0,
	HD_REPORT_JSON,
	HD_REPORT_MARKDOWN,
	HD_REPORT_JSONL, /* one compact line (hd-report-triage.h) */
};

/* Parses "text", "json", "jsonl", "markdown" (or "md"); false if unknown. */
bool hd_report_format_parse(const char *s, enum hd_report_format *fmt);

/* Writes the report; returns false if out failed. */
bool hd_report_write(FILE *out, enum hd_report_format fmt,
		     const struct hd_analysis *a);
/* The same, naming the incident label (jsonl's "path"; may be NULL). */
bool hd_report_write_as(FILE *out, enum hd_report_format fmt,
			const struct hd_analysis *a, const char *label);

#endif
