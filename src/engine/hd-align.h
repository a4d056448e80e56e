/*
 * Group alignment, shared by the files that do its four jobs: the views
 * (one rank's collectives in one group, keyed by position) and the
 * per-group context every job reads and counts into.
 *
 *   hd-align.c     builds the views and runs the jobs per group and stream
 *   hd-votes.c     compares what every rank called at each position
 *   hd-frontier.c  where progress stops: missing and lagging ranks
 *   hd-p2p.c       pairs point-to-point ops and finds deadlock cycles
 *   hd-chains.c    follows the waits the others record to a root blocker
 *
 * Internal to src/engine.  Ownership: a context borrows the index, the
 * analysis and the store; its views are freed by hd-align.c.
 */
#ifndef HD_ALIGN_H
#define HD_ALIGN_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-checks.h"

/* Divergences reported per group and attribute before summarizing. */
#define MAX_REPORTS_PER_ATTR 5

/* One rank's collective ops in one group and stream, keyed by position. */
struct view {
	int rank;
	uint32_t *ops; /* the lane's own array when borrowed */
	int64_t *keys; /* NULL: op i has key key_base + i */
	int64_t key_base;
	bool borrowed;
	uint32_t n;
	uint32_t cur; /* merge cursor */
	bool completion_info;
	int64_t first_pending; /* lowest key not completed, -1 none */
	int64_t max_key, min_key;
};

enum attr {
	ATTR_TYPE,
	ATTR_SIZE,
	ATTR_DTYPE,
	ATTR_ROOT,
	ATTR_REDOP,
	ATTR_COUNT
};

struct group_ctx {
	struct hd_index *ix;
	struct hd_analysis *a;
	const struct hd_store *s;
	uint32_t group;
	const struct hd_group *g;
	uint8_t seq_kind;
	uint8_t source;
	GArray *views; /* struct view */
	uint32_t reported[ATTR_COUNT];
	uint32_t diverged[ATTR_COUNT];
	int nranks;
};

static inline const struct hd_op *ctx_op(const struct group_ctx *c, uint32_t i)
{
	return &g_array_index(c->s->ops, struct hd_op, i);
}

/* Where op came from, as evidence cites it.  (transfer full) */
static inline char *ctx_source(const struct group_ctx *c,
			       const struct hd_op *op)
{
	return hd_prov_format(c->s, &op->prov);
}

static inline int64_t view_key(const struct view *v, uint32_t i)
{
	return v->keys ? v->keys[i] : v->key_base + i;
}

/*
 * Compares every position of c's views across ranks and reports type,
 * size, dtype, root and reduction-op mismatches (hd-votes.c).
 */
void hd_align_check_votes(struct group_ctx *c);
/*
 * Reports the ranks that never entered the position the others are
 * blocked in (hd-frontier.c); true when a verdict was given.
 */
bool hd_align_check_frontier(struct group_ctx *c);
/* Reports ranks that finished fewer of the same ops (hd-frontier.c). */
void hd_align_check_completion_lag(struct group_ctx *c);
/* Pairs c's group's sends and recvs; reports unmatched ones and cycles. */
void hd_align_check_p2p(struct group_ctx *c);

#endif
