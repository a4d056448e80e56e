/*
 * The Perfetto / Chrome trace export (`hangdoc export --perfetto`,
 * `hangdoc analyze --format perfetto`): the merged timeline of every
 * rank's collectives in the Chrome JSON trace format that ui.perfetto.dev
 * and chrome://tracing open.  One process per rank that has something to
 * show, one thread per group it has ops in, one for its errors, timeouts
 * and host state; hosts whose records joined no rank have a process of
 * their own.  The verdicts are instant events with the evidence in their
 * args, and flow arrows run from each blocked rank's wait to the culprit.
 * It draws what the store and the analysis hold; it decides nothing.
 * docs/format-perfetto.md describes the output.
 */
#ifndef HD_REPORT_PERFETTO_H
#define HD_REPORT_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hd-engine.h"
#include "hd-report-opts.h"

/* What the export did, for the caller to tell the user. */
struct hd_perfetto_info {
	bool by_sequence; /* no op had a time: laid out by position */
	/* no op was read: laid out by the signals' own times */
	bool by_signals;
	uint64_t events; /* op events written */
	uint64_t untimed; /* ops left out: no time while others had one */
	/* ops left out: timed on another clock than the timeline's (a
	   trace's own clock beside UTC dumps) */
	uint64_t other_clock;
	uint64_t signals; /* signal events written */
	/* of those, placed after the end: no time, or another clock */
	uint64_t off_clock;
	/* alike events of many ranks with no other track, counted in one
	   event on the job's track instead of drawn on theirs */
	uint64_t folded;
	uint64_t verdicts; /* verdict events on the whole trace */
	uint64_t flows, flows_left_out; /* flow arrows drawn, not drawn */
	uint64_t tracks; /* processes (ranks, hosts) with a track */
	uint8_t clock; /* enum hd_clock of the timeline */
};

/*
 * Writes the trace of a's store and verdicts to out; fills info.  Returns
 * false when out failed.
 */
bool hd_report_perfetto(FILE *out, const struct hd_analysis *a,
			struct hd_perfetto_info *info);

/* The same, drawing only the ranks filter shows (NULL: all).  */
bool hd_report_perfetto_filtered(FILE *out, const struct hd_analysis *a,
				 const struct hd_report_filter *filter,
				 struct hd_perfetto_info *info);

#endif
