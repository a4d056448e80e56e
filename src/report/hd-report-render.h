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

/*
 * The keys that say which verdict a JSON object is about, each written
 * one way (hd-report-json.c) in the report's verdicts, the jsonl line of
 * triage and diff's sides; each shape lists the ones it carries, in its
 * own order, ending in HD_VKEY_END.
 */
enum hd_report_verdict_key {
	HD_VKEY_END = 0,
	HD_VKEY_KIND, /* "kind": the object is the verdict */
	HD_VKEY_VERDICT, /* "verdict": the kind, in an object about more */
	HD_VKEY_CULPRIT_RANKS,
	HD_VKEY_CULPRIT_HOSTS,
	HD_VKEY_CONFIDENCE,
	HD_VKEY_FINGERPRINT,
	HD_VKEY_FINGERPRINT_TEXT,
	HD_VKEY_CALL_SITE,
	HD_VKEY_GROUP,
	HD_VKEY_SEQ,
	HD_VKEY_OP,
	HD_VKEY_SUMMARY,
};

/* What those keys say; a NULL string is null, seq -1 none.  (borrowed) */
struct hd_report_verdict_id {
	const char *kind;
	const char *confidence;
	const GArray *culprits; /* int, ascending */
	const GPtrArray *hosts; /* char *: the culprits' hosts */
	const char *fingerprint;
	const char *fingerprint_text;
	const char *call_site;
	const char *group;
	int64_t seq;
	const char *op;
	const char *summary;
};

/* Sets keys (ending in HD_VKEY_END) of o from id, in that order. */
void hd_report_json_verdict_id(json_t *o, const struct hd_report_verdict_id *id,
			       const enum hd_report_verdict_key *keys);

#endif
