/*
 * What `hangdoc replay` prints: the plan (--dry-run), and the outcome of
 * running one with the plan it ran, as text for a person or as one JSON
 * document.  It reports what the runner saw; it decides nothing.
 */
#ifndef HD_REPORT_REPLAY_H
#define HD_REPORT_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "replay-plan.h"
#include "replay-run.h"

/* Its first lines: the verdict, position and communicator.  (transfer full) */
char *hd_report_plan_header_text(const struct replay_plan *p);
/* Its op lines of rank r, without the "rank N" line.  (transfer full) */
char *hd_report_plan_rank_text(const struct replay_plan *p, guint r);

/*
 * Writes plan p: as text after the line about (what the plan was made
 * from; NULL for none), or as the plan's JSON, which has no place for it.
 */
void hd_report_replay_plan(FILE *out, const struct replay_plan *p,
			   const char *about, bool json);

/*
 * Writes the outcome res of running p: as text, about, the plan and each
 * rank's ops with their status; as JSON, the outcome, about, each rank's
 * results and the plan in one document.
 */
void hd_report_replay_result(FILE *out, const struct replay_plan *p,
			     const struct replay_result *res, const char *about,
			     bool json);

#endif
