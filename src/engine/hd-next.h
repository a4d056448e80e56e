/*
 * The engine's last step: each verdict's culprit details and next steps
 * (struct hd_culprit, struct hd_next in hd-verdict.h), so that every
 * report gives the same ones.  Internal to src/engine.
 */
#ifndef HD_NEXT_H
#define HD_NEXT_H

#include "hd-verdict.h"

/*
 * Fills v->culprit_info of every verdict of a, and v->next_steps of the
 * first ones, from the store and a's rank table (which must be sorted
 * and final).
 */
void hd_next_run(struct hd_analysis *a);

#endif
