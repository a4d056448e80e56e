/*
 * `hangdoc export --perfetto`: the merged timeline of every rank's
 * collectives in the Chrome JSON trace format that ui.perfetto.dev and
 * chrome://tracing open.  One process per rank, one thread per group it
 * has ops in; the divergence and the verdict are instant events with the
 * evidence in their args.  It draws what the store and the analysis hold;
 * it decides nothing.
 */
#ifndef HD_REPORT_PERFETTO_H
#define HD_REPORT_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hd-engine.h"

/* What the export did, for the caller to tell the user. */
struct hd_perfetto_info {
	bool by_sequence; /* no op had a time: laid out by position */
	uint64_t events; /* op events written */
	uint64_t untimed; /* ops left out: no time while others had one */
	/* ops left out: timed on another clock than the timeline's (a
	   trace's own clock beside UTC dumps) */
	uint64_t other_clock;
	uint8_t clock; /* enum hd_clock of the timeline */
};

/*
 * Writes the trace of a's store and verdicts to out; fills info.  Returns
 * false when out failed.
 */
bool hd_report_perfetto(FILE *out, const struct hd_analysis *a,
			struct hd_perfetto_info *info);

#endif
