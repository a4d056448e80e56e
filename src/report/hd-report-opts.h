/*
 * What a report says beyond the analysis: how wide the text may be,
 * whether it is coloured or brief, and when and how fast it was made.  The caller measures (reports never read
 * a clock or the environment).  Shared by the dispatcher (hd-report.h)
 * and the renderers, which must not include the dispatcher's header.
 */
#ifndef HD_REPORT_OPTS_H
#define HD_REPORT_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <jansson.h>

struct hd_analysis;

/*
 * A display filter (analyze --rank/--group): the engine ran on every
 * input, and the report shows only these ranks' rows, evidence and
 * tracks, saying so in a header line.  Verdicts about other ranks keep
 * their headline.  Built by hd_report_filter_new() (hd-report-filter.c).
 */
struct hd_report_filter {
	GArray *ranks; /* int, ascending: the ranks shown */
	char *ranks_text; /* the --rank lists as one ("0-3,5"), or NULL */
	GPtrArray *groups; /* char *: the --group values, or NULL */
	int of; /* ranks in the job */
};

struct hd_report_opts {
	int width; /* text: columns, 0 for 80 */
	/* JSON: generated_at, seconds since the epoch; -1 gives null */
	int64_t generated_at;
	/* JSON: load and analysis time in ms; -1 gives null */
	int64_t elapsed_ms;
	/* jsonl: the incident's label ("path"), or NULL */
	const char *label;
	/* text: colour the headline, confidence and culprit (SGR codes) */
	bool color;
	/* text: only the headline, the next step and one evidence item */
	bool brief;
	/* what to show (NULL: everything); the caller owns it */
	const struct hd_report_filter *filter;
};

/*
 * The filter of the ranks the job has (seen, missing, below its world
 * size) that want_rank accepts (NULL: all) and that belong to one of
 * groups (NULL-terminated ids or names; NULL: any group).  NULL with err
 * set when a group is not in the data (the message lists the groups) or
 * no rank of the job is left.  ranks_text is what --rank said, or NULL.
 * (transfer full)
 */
struct hd_report_filter *
hd_report_filter_new(const struct hd_analysis *a, const char *ranks_text,
		     bool (*want_rank)(const void *data, int rank),
		     const void *rank_data, const char *const *groups,
		     GError **err);
void hd_report_filter_free(struct hd_report_filter *f); /* NULL-safe */
typedef struct hd_report_filter hd_report_filter;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_report_filter, hd_report_filter_free)

/* Whether f shows rank (a NULL filter shows every rank). */
bool hd_report_filter_has(const struct hd_report_filter *f, int rank);

/* "showing ranks 0-3,5 of 8 (--rank 0-3,5)": the header line.
   (transfer full) */
char *hd_report_filter_header(const struct hd_report_filter *f);

/* The report's "filter" object (docs/json-schema.md).  (transfer full) */
json_t *hd_report_filter_json(const struct hd_report_filter *f);

/*
 * A view of a that shows what f selects: the per-rank table, arrivals and
 * py-spy rows of the ranks shown only, and every verdict with the
 * evidence and next steps of those ranks (and those about no rank).  It
 * borrows a, which must outlive it; free it with hd_report_view_free()
 * only.  (transfer full)
 */
struct hd_analysis *hd_report_view_new(const struct hd_analysis *a,
				       const struct hd_report_filter *f);
void hd_report_view_free(struct hd_analysis *view); /* NULL-safe */

#endif
