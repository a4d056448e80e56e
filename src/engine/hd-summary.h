/*
 * What the analysis says about itself as a whole: the verdict that stands
 * when no check found a fault (an undecided hang, insufficient_data, or
 * no_fault, only where every input was read whole and progress was
 * seen), the refusal to blame anyone for inputs of several incidents,
 * and the note on the job attempts of a log that were not analyzed.
 * Internal to src/engine.
 */
#ifndef HD_SUMMARY_H
#define HD_SUMMARY_H

#include "hd-index.h"
#include "hd-verdict.h"

/*
 * Counts a->trouble_signals; then, unless a has a fault, adds the verdict
 * that stands instead: the held undecided hangs (a->held), else
 * insufficient_data or no_fault.  Runs after every check.
 */
void hd_summary_run(const struct hd_index *ix, struct hd_analysis *a);

/*
 * Sets a->hang_evidence (a hang or failure shows in the data: ranks seen
 * blocked, a timeout, an error, an abort, a dump or live stacks); without
 * it, every verdict that only a hang makes a fault (needs_hang: logs that
 * end at different points) is held to low confidence and says that
 * nothing in the data says the job hung.  Runs after the checks.
 */
void hd_summary_hold_unproven(struct hd_analysis *a);

/* Adds the insufficient_data verdict for inconsistent inputs. */
void hd_summary_refuse(struct hd_analysis *a);

/*
 * A note per set of logs holding several job attempts: which one was
 * analyzed, what the others held.
 */
void hd_summary_note_attempts(const struct hd_store *s, struct hd_analysis *a);

#endif
