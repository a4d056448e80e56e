/*
 * The listing of `hangdoc show`: the ops and signals a store holds,
 * selected by rank and group, one per line as text or as a JSON document
 * ({"ops": [...], "signals": [...]}).  It decides nothing: it shows what
 * the parsers stored.
 *
 * Ownership: the selected arrays borrow ops and signals from the store.
 */
#ifndef HD_REPORT_SHOW_H
#define HD_REPORT_SHOW_H

#include <stdio.h>
#include <glib.h>

#include "hd-store.h"

/* What to list. */
struct hd_show_filter {
	int rank; /* global rank, -1: every rank */
	const char *group; /* group id or name, NULL: every group */
};

/*
 * Appends to ops the store's ops that f selects (struct hd_op *, sorted by
 * group, rank, sequence kind and position, store order within one), and
 * to signals its signals that f selects (struct hd_signal *, store order).
 * A signal names its group only by PG name, so --group matches it by name.
 */
void hd_report_show_select(const struct hd_store *s,
			   const struct hd_show_filter *f, GPtrArray *ops,
			   GPtrArray *signals);

/* Writes the ops and signals as text: a header, one line each. */
void hd_report_show_text(FILE *out, const struct hd_store *s,
			 const GPtrArray *ops, const GPtrArray *signals);
/* Writes them as one JSON document. */
void hd_report_show_json(FILE *out, const struct hd_store *s,
			 const GPtrArray *ops, const GPtrArray *signals);

#endif
