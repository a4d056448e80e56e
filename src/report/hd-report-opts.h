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
};

#endif
