/*
 * The alignment context: what the group checks (hd-votes.c,
 * hd-frontier.c, hd-p2p.c) and their orchestrator (hd-align.c) share.
 * The views (one rank's collectives in one group, keyed by position), the
 * per-group context every check reads and counts into, and the accessors
 * on them.  Below the checks: it calls none of them.
 *
 * Internal to src/engine.  Ownership: a context borrows the index, the
 * analysis and the store; it owns its views (hd_align_views_build(),
 * hd_align_views_free()).
 */
#ifndef HD_ALIGN_CTX_H
#define HD_ALIGN_CTX_H

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
	/* rank -> index + 1 of its first view, with views */
	GHashTable *view_of_rank;
	/* ranks (GINT_TO_POINTER) whose views are of another instance of
	   the group's ops (hd_align_find_other_instance()), or NULL */
	GHashTable *foreign;
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
	return hd_op_source(c->s, op);
}

static inline int64_t view_key(const struct view *v, uint32_t i)
{
	return v->keys ? v->keys[i] : v->key_base + i;
}

/*
 * Builds c->views: one per lane of c's group, source and sequence kind
 * that holds a collective.
 */
void hd_align_views_build(struct group_ctx *c);
/* Frees c->views and sets it to NULL. */
void hd_align_views_free(struct group_ctx *c);

#endif
