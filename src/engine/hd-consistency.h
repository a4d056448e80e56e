/*
 * Inputs that cannot belong to one incident: two inputs of one kind for the
 * same rank that tell different stories (different world sizes, no NCCL
 * commId in common, times more than an hour apart, different calls or a
 * different last position in one group), or one process group name with
 * two overlapping member lists.  Internal to src/engine; what it finds is
 * a->conflicts, and the orchestrator decides what to do with it.
 */
#ifndef HD_CONSISTENCY_H
#define HD_CONSISTENCY_H

#include "hd-index.h"
#include "hd-verdict.h"

/* Appends one sentence per conflict found to a->conflicts. */
void hd_consistency_run(const struct hd_index *ix, struct hd_analysis *a);

#endif
