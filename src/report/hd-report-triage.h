/*
 * Many incidents at once (hangdoc triage) and the one-line form of one
 * incident (analyze --format jsonl).  A row is what is kept of an analysis
 * once its store and verdicts are freed: the top verdict's kind, culprits
 * and their hosts, confidence, fingerprint and first evidence item, its
 * culprits' details and next steps, when the hang began, and the counts,
 * with what the engine groups it by (hd-triage.h).  Nothing is decided
 * here: every field is copied from the analysis, and the table lays out
 * the engine's groups.
 *
 * Ownership: a row owns its strings and arrays.
 */
#ifndef HD_REPORT_TRIAGE_H
#define HD_REPORT_TRIAGE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "hd-engine.h"
#include "hd-triage.h"

struct hd_triage_row {
	char *path; /* the incident: directory, archive or PATHs given */
	char *error; /* why nothing could be analyzed, or NULL */
	const char *kind; /* static verdict kind name, or NULL */
	const char *confidence; /* static, or NULL */
	char *summary;
	char *fingerprint;
	char *fingerprint_text;
	char *call_site; /* the fingerprint's refinement, or NULL */
	/* where: the group's id as the report lists it ("pg:0:?"), or
	   NULL; the position in it, -1 none; the op (static), or NULL */
	char *group;
	int64_t seq;
	const char *op;
	char *evidence_source; /* the top verdict's first evidence item */
	char *evidence_text;
	char *performance; /* the performance note, or NULL */
	GArray *culprits; /* int */
	GPtrArray *hosts; /* char *: the culprits' hosts, unique, sorted */
	GPtrArray *errors; /* char *: inputs that could not be read */
	/* as the schema-1 report writes them (hd-report-render.h) */
	json_t *culprit_details; /* array, [] without a verdict */
	json_t *next_steps; /* array */
	json_t *hang_start; /* object or null */
	/* char *: where the top verdict's evidence was read ("path:line",
	   "path#record N"), each once, in the evidence's order, the first
	   32 */
	GPtrArray *sources;
	unsigned inputs, usable, ranks, verdicts;
	bool fault;
	bool inconsistent;
	struct hd_triage_key *key; /* what the table groups it by */
};

/* The row of an analyzed incident.  (transfer full) */
struct hd_triage_row *hd_triage_row_new(const char *path,
					const struct hd_analysis *a);
void hd_triage_row_free(struct hd_triage_row *r);

/* One compact JSON line (with its newline); false if out failed. */
bool hd_triage_write_jsonl(FILE *out, const struct hd_triage_row *r);

/*
 * The table of rows (struct hd_triage_row *) as the engine groups them
 * (hd_triage_group()): by fingerprint, most frequent first, with the
 * call sites each cause was seen at, and the culprit hosts that recur
 * across incidents; text or Markdown.  Undecided incidents
 * (insufficient_data) are listed together but never counted as one
 * cause.  False if out failed.
 */
bool hd_triage_write_table(FILE *out, const GPtrArray *rows, bool markdown);

#endif
