/*
 * Straggler analysis on timed collectives (profiler traces, flight-recorder
 * timing): per-host clock offsets from collective end times, per-collective
 * arrival order, and the straggler verdict.  Part of the engine: reads the
 * store, writes into an analysis, never reads files.
 */
#ifndef HD_STRAGGLER_H
#define HD_STRAGGLER_H

#include "hd-store.h"
#include "hd-verdict.h"

/*
 * Fills a->arrivals and appends straggler (or insufficient_data) verdicts
 * for the groups whose ops carry start and end times.
 */
void hd_straggler_run(const struct hd_store *s, struct hd_analysis *a);

#endif
