/*
 * The analysis's tables, filled by the orchestrator once the verdicts are
 * final: the ranks seen and missing, per-group figures, the per-rank
 * progress table and when the hang began.  They state what the index and
 * the verdicts hold; they decide nothing.  Internal to src/engine.
 */
#ifndef HD_TABLES_H
#define HD_TABLES_H

#include "hd-index.h"
#include "hd-verdict.h"

/*
 * Fills a->ranks_seen (every rank the index saw, ascending) and
 * a->ranks_missing (ranks of the world that left no data); notes a rank
 * past the world size.  Runs before the checks, which read both.
 */
void hd_tables_ranks(const struct hd_index *ix, struct hd_analysis *a);

/*
 * Fills a->c10d_groups: the c10d process groups that signals name and no
 * store group stands for, each with the ranks that name it.  Runs before
 * the checks, which place a verdict of logs alone in one.
 */
void hd_tables_c10d_groups(const struct hd_store *s, struct hd_analysis *a);

/*
 * Fills a->group_stats, the per-rank table a->progress (sorted by rank;
 * each culprit's state from its first blaming verdict), and, when a has
 * a fault or an undecided hang, when the hang began.  Runs once the
 * verdicts are ranked.
 */
void hd_tables_fill(const struct hd_index *ix, struct hd_analysis *a);

#endif
