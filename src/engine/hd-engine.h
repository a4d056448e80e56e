/*
 * The engine: reads a resolved store, aligns each group's op sequences
 * across ranks, orders error signals, and emits verdicts with evidence.
 * It never reads files and never prints.  What it returns is the verdict
 * model of hd-verdict.h, which this header brings in, and the
 * read-only queries of hd-matrix.h (the rank picture) and hd-rows.h (how
 * the reports fold their rows).
 *
 * Ownership: an analysis owns its verdicts and tables; it borrows the store
 * it was computed from, which must outlive it.
 */
#ifndef HD_ENGINE_H
#define HD_ENGINE_H

#include "hd-store.h"
#include "hd-verdict.h"
#include "hd-matrix.h"
#include "hd-rows.h"

struct hd_engine_opts {
	/*
	 * Analyze inputs that cannot belong to one incident as one anyway
	 * (the conflicts are still reported).  Without it such inputs give
	 * one insufficient_data verdict and no blame.
	 */
	bool merge;
};

/* Runs every check over a resolved store.  (transfer full) */
struct hd_analysis *hd_engine_run(const struct hd_store *store);
/* The same with options (NULL: the defaults).  (transfer full) */
struct hd_analysis *hd_engine_run_opts(const struct hd_store *store,
				       const struct hd_engine_opts *opts);

#endif
