/*
 * Host-state events joined to ranks (hd-host-join.c), below the host-state
 * check (hd-kernel.c) and the test of an event's time (hd-host-stale.c).
 * A host event (an Xid, an OOM kill, a GPU's state, an HCA port's change
 * or counters) names a host, from its line or its file's path, and a pid,
 * a GPU's bus id or a port; it joins the rank on that host whose GPU has
 * that bus id, else whose process has that pid (a lead unless another
 * record confirms the host's numbering), or, for a port, the ranks whose
 * NCCL said they use it.  The lookups are built once per run (struct
 * hd_host_ctx), so that an Xid storm against thousands of ranks costs a
 * lookup per event.  Internal to src/engine.
 */
#ifndef HD_HOST_JOIN_H
#define HD_HOST_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "hd-checks.h"

struct xid_info; /* an Xid's class and meaning (hd-kernel.c) */

/*
 * What the joins look up, built once per run so that an Xid storm (one
 * line per channel, hundreds of thousands) against thousands of ranks
 * costs a lookup per event, not a walk over every rank.
 */
struct hd_host_ctx {
	const struct hd_store *s;
	struct hd_analysis *a; /* NULL outside hd_check_kernel() */
	/* host -> GPtrArray of const struct hd_rank *, by rank */
	GHashTable *by_host;
	/* input index + 1 -> the host its path names, or "" none */
	GHashTable *path_host;
	GPtrArray *net; /* the NET_DEVICES signals; NULL until used */
	/* rank -> the top verdict blaming it, filled on first use */
	GHashTable *blamed;
	/* "host\tport" -> struct port_memo */
	GHashTable *ports;
};

/* One host event and what it joins. */
struct hd_host_event {
	const struct hd_signal *sig;
	const char *host;
	bool by_name;
	int rank;
	const char *how; /* a port's join, in words */
	/* a GPU's or process's join: by the GPU's bus id, by the pid (with
	   the bus id, or alone), and whether a pid alone is confirmed */
	bool by_bus, by_pid, pid_sure;
	/* about every GPU of its host (no device): users are the host's
	   ranks, and rank the one a verdict blames, if any */
	bool host_wide;
	char *declined; /* why its pid joined no rank (owned), or NULL */
	const struct hd_verdict *blamed;
	const struct xid_info *xid;
	GArray *users; /* ports: the ranks that use it (owned), or NULL */
};

/* Whether sig was read from an input of a host-state kind. */
bool hd_host_from_state(const struct hd_store *s, const struct hd_signal *sig);

/* Builds k for store s; a is NULL outside hd_check_kernel(). */
void hd_host_ctx_init(struct hd_host_ctx *k, const struct hd_store *s,
		      struct hd_analysis *a);
void hd_host_ctx_clear(struct hd_host_ctx *k);

/* The ranks that ran on host, ascending.  (transfer full) */
GArray *hd_host_ranks_on(const struct hd_host_ctx *k, const char *host);
/*
 * The host of a host event: the one its line names, else the part of
 * its file's path that names a host the ranks ran on; *by_name says it
 * came from the path.  NULL when neither does.  (transfer none)
 */
const char *hd_host_of(const struct hd_host_ctx *k, const struct hd_signal *sig,
		       bool *by_name);
/* The one rank on host whose GPU has bus id dev, else -1. */
int hd_host_bus_rank(const struct hd_host_ctx *k, const char *host,
		     const char *dev);
/*
 * Whether a kernel record on host names rank's GPU by its bus id with
 * pid: the host's numbering of processes is the rank's own.
 */
bool hd_host_pid_confirmed(struct hd_host_ctx *k, const char *host, int rank,
			   int32_t pid);
/* Whether sig is about a host's GPUs and names none. */
bool hd_host_level(const struct hd_signal *sig);
/*
 * The top verdict the checks before the host-state check gave that
 * blames rank, or NULL.  (transfer none)
 */
const struct hd_verdict *hd_host_blaming(struct hd_host_ctx *k, int rank);
/*
 * The ranks on host whose NCCL said it uses HCA port dev, ascending;
 * *topo says whether an NCCL topology dump named one of them.
 * (transfer full)
 */
GArray *hd_host_port_users(struct hd_host_ctx *k, const char *host,
			   const char *dev, bool *topo);

/*
 * Joins e (sig, host and by_name set, rank -1) to a rank as its kind of
 * event is joined: a port by its users, an event about every GPU of a
 * host by the host's ranks, a GPU or a process by bus id, else pid; sets
 * e->blamed to the verdict blaming the rank joined.
 */
void hd_host_join(struct hd_host_ctx *k, struct hd_host_event *e);
/* Whether e rests on a join a person may act on without doubt. */
bool hd_host_join_sure(const struct hd_host_event *e);
/* Frees what e owns (its users, why its pid declined). */
void hd_host_event_clear(struct hd_host_event *e);

#endif
