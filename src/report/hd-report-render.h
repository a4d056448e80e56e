/*
 * The analysis renderers the dispatcher (hd-report.c) calls, one per
 * format.  Internal to src/report: callers outside it use
 * hd_report_write().  A renderer reads the analysis and its store and
 * writes; it never calls the dispatcher.
 */
#ifndef HD_REPORT_RENDER_H
#define HD_REPORT_RENDER_H

#include <stdio.h>
#include <jansson.h>

#include "hd-engine.h"
#include "hd-report-opts.h"

/*
 * hd-report-text.c: wrapped at opts->width columns (0: 80), coloured when
 * opts->color, only the essentials when opts->brief.
 */
void hd_report_text(FILE *out, const struct hd_analysis *a,
		    const struct hd_report_opts *opts);
/* hd-report-md.c */
void hd_report_markdown(FILE *out, const struct hd_analysis *a,
			const struct hd_report_opts *opts);
/* hd-report-html.c: one self-contained page */
void hd_report_html(FILE *out, const struct hd_analysis *a);
/*
 * hd-report-json.c: the schema-1 document; opts may be NULL.
 * (transfer full)
 */
json_t *hd_report_json_build(const struct hd_analysis *a,
			     const struct hd_report_opts *opts);
/*
 * Parts of that document that the other JSON shapes (the jsonl line,
 * the Perfetto verdict's args) carry too, so that each says it the same
 * way: a verdict's culprits with host, pid and call site, its next
 * steps, and when the hang began (null when unknown).  (transfer full)
 */
json_t *hd_report_json_culprits(const struct hd_analysis *a,
				const struct hd_verdict *v);
json_t *hd_report_json_next_steps(const struct hd_verdict *v);
json_t *hd_report_json_hang_start(const struct hd_analysis *a);

#endif
