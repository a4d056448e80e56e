/*
 * The listing of `hangdoc show`: the ops and signals a store holds,
 * selected by rank, group, sequence range, state and count, one per line
 * as aligned text columns (times in UTC) or as a JSON document
 * ({"ops": [...], "signals": [...]}).  It decides nothing: it shows what
 * the parsers stored.
 *
 * Ownership: the selected arrays borrow ops and signals from the store.
 */
#ifndef HD_REPORT_SHOW_H
#define HD_REPORT_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>

#include "hd-store.h"

/* What to list. */
struct hd_show_filter {
	/* whether to list global rank r; NULL: every rank */
	bool (*want_rank)(const void *data, int r);
	const void *rank_data; /* want_rank's data */
	/* group ids or names, NULL-terminated; NULL: every group */
	const char *const *groups;
	int64_t seq_min, seq_max; /* sequence range, both -1: every position */
	unsigned states; /* 1 << enum hd_op_state for each wanted, 0: any */
	int last; /* only the last N ops per rank and group, 0: all */
};

/* The op state names --state accepts, for messages: "enqueued, ...". */
extern const char hd_show_state_names[];

/*
 * Parses a --state value: one or more state names separated by commas
 * ("enqueued,started") into a mask of 1 << enum hd_op_state.  Returns
 * false when a name is not a state; *bad then points at it inside value
 * (its length in *bad_len).
 */
bool hd_report_show_parse_states(const char *value, unsigned *states,
				 const char **bad, size_t *bad_len);

/*
 * Parses a --seq value, "N" or "A-B" (A <= B, both >= 0).  Returns false
 * when value is neither.
 */
bool hd_report_show_parse_seq(const char *value, int64_t *min, int64_t *max);

/*
 * The global ranks that left an op or a signal, folded into runs:
 * "0-7, 12" (transfer full); "" when none.
 */
char *hd_report_show_ranks(const struct hd_store *s);

/*
 * The global ranks that left an op or a signal, sorted, each once
 * (of int; transfer full).
 */
GArray *hd_report_show_rank_array(const struct hd_store *s);

/*
 * The groups, "0 (default_pg), mesh_tp, comm:0x5c1e..." as --group takes
 * them: the name when there is one, else the id; then the PG names only
 * signals carry (logs alone: "0") (transfer full).
 */
char *hd_report_show_groups(const struct hd_store *s);

/*
 * True when a group of the store has want as its id or its name, or a
 * signal names a PG want that no group of the store has.
 */
bool hd_report_show_has_group(const struct hd_store *s, const char *want);

/*
 * Appends to ops the store's ops that f selects (struct hd_op *, sorted by
 * group, rank, sequence kind and position, store order within one), and
 * to signals its signals that f selects (struct hd_signal *, store order).
 * A signal names its group only by PG name, so --group matches it by name.
 * The sequence range selects signals that name a sequence number in it;
 * states and last select ops only (signals have neither).
 */
void hd_report_show_select(const struct hd_store *s,
			   const struct hd_show_filter *f, GPtrArray *ops,
			   GPtrArray *signals);

/*
 * Writes the ops and signals as text: a header, one line each, columns
 * as wide as their widest cell among the rows written.  Times are UTC,
 * "2023-11-14 22:13:20.000001"; when every time shown falls on one day,
 * the date is said once in the header and the cells hold the time of day.
 */
void hd_report_show_text(FILE *out, const struct hd_store *s,
			 const GPtrArray *ops, const GPtrArray *signals);
/* Writes them as one JSON document. */
void hd_report_show_json(FILE *out, const struct hd_store *s,
			 const GPtrArray *ops, const GPtrArray *signals);

#endif
