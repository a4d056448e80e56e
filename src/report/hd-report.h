/*
 * Reports: render an analysis as text (a person at a terminal), JSON
 * (schema 1 of docs/json-schema.md, for pipelines), Markdown (incident tickets) or
 * HTML (one self-contained page with pictures, to attach to a ticket).
 * Reports never decide anything: every verdict, count and ranking comes
 * from the analysis.  This is the dispatcher; the renderers it calls are
 * declared in hd-report-render.h, and `show` and `replay` have renderers
 * of their own (hd-report-show.h, hd-report-replay.h).
 */
#ifndef HD_REPORT_H
#define HD_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hd-engine.h"
#include "hd-report-opts.h"

/* The formats, each a row of formats[] in hd-report.c. */
enum hd_report_format {
	HD_REPORT_TEXT = 0,
	HD_REPORT_JSON,
	HD_REPORT_JSONL, /* one compact line (hd-report-triage.h) */
	HD_REPORT_MARKDOWN,
	HD_REPORT_HTML,
	HD_REPORT_PERFETTO, /* a Chrome JSON trace (hd-report-perfetto.h) */
	HD_REPORT_FORMAT_COUNT
};

/*
 * Parses a format's name ("text", "json", "jsonl", "markdown" or "md",
 * "html", "perfetto"); false if unknown.
 */
bool hd_report_format_parse(const char *s, enum hd_report_format *fmt);

/* "text, json, ... or perfetto": the names, for a usage message.  (static) */
const char *hd_report_format_names(void);

/* Writes the report; returns false if out failed. */
bool hd_report_write(FILE *out, enum hd_report_format fmt,
		     const struct hd_analysis *a);

/* hd_report_write() with options (NULL: the defaults). */
bool hd_report_write_opts(FILE *out, enum hd_report_format fmt,
			  const struct hd_analysis *a,
			  const struct hd_report_opts *opts);

#endif
