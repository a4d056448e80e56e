/*
 * Whether a host event is of another time than the incident
 * (hd-host-stale.c): of an earlier boot, dated more than an hour from
 * every record of the incident on its clock, or outlived by its rank.
 * Such an event is noted, never a cause.  Internal to src/engine.
 */
#ifndef HD_HOST_STALE_H
#define HD_HOST_STALE_H

#include <stdbool.h>

#include "hd-host-join.h"

/*
 * The span of the incident's own records (not host state) on each clock,
 * over every host and, for local wall clocks, per host: where a kernel
 * event's date must fall to be this incident's.
 */
struct hd_host_spans {
	GHashTable *by; /* "clock|host" or "clock|" -> int64_t[2] */
};

/* Fills sp from s's records that are not host state. */
void hd_host_spans_build(const struct hd_store *s, struct hd_host_spans *sp);
void hd_host_spans_clear(struct hd_host_spans *sp);

/*
 * Whether host event e, joined as far as it joins, is of another time
 * than this incident, so never a cause: the first such event gets a note
 * in k->a->notes saying why, the rest are counted in *n.
 */
bool hd_host_set_apart(const struct hd_host_ctx *k, struct hd_index *ix,
		       const struct hd_host_spans *sp,
		       const struct hd_host_event *e, guint *n);

#endif
