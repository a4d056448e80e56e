/*
 * Group alignment: the entry points of its jobs, which the orchestrator
 * (hd-align.c) runs for every group, source and stream.  The context they
 * share (views, counters) is in hd-align-ctx.h, below all of them.
 *
 *   hd-align.c     builds the views and runs the jobs per group and stream
 *   hd-votes.c     compares what every rank called at each position
 *   hd-frontier.c  where progress stops: missing and lagging ranks
 *   hd-p2p.c       pairs point-to-point ops and finds deadlock cycles
 *   hd-chains.c    follows the waits the others record to a root blocker
 *
 * Internal to src/engine.
 */
#ifndef HD_ALIGN_H
#define HD_ALIGN_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-align-ctx.h"

/*
 * Sets c->foreign: the ranks whose record in c is of another instance of
 * its ops, one of whose completions could not be this run's (it ended
 * before a blocked member entered, hd-frontier.c).  Their views are no
 * record of this run: the votes skip them, the frontier counts them as
 * members that left none.
 */
void hd_align_find_other_instance(struct group_ctx *c);
/*
 * Compares every position of c's views across ranks and reports type,
 * size, dtype, root and reduction-op mismatches (hd-votes.c).
 */
void hd_align_check_votes(struct group_ctx *c);
/*
 * Reports the ranks that never entered the position the others are
 * blocked in (hd-frontier.c); true when a verdict was given.
 */
bool hd_align_check_frontier(struct group_ctx *c);
/* Reports ranks that finished fewer of the same ops (hd-frontier.c). */
void hd_align_check_completion_lag(struct group_ctx *c);
/* Pairs c's group's sends and recvs; reports unmatched ones and cycles. */
void hd_align_check_p2p(struct group_ctx *c);

#endif
