/*
 * The op index the engine builds once per run and every check reads: each
 * group's ops in lanes (one rank, sequence kind and source kind each, in
 * seq order), the ranks that left data, the FR/NCCL join links and the
 * wait-for edges the checks add.  Internal to src/engine.
 *
 * Ownership: an index borrows the store; arrays inside belong to the index.
 */
#ifndef HD_INDEX_H
#define HD_INDEX_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-store.h"

/* One rank's ops in one group and stream, in seq order. */
struct hd_lane {
	int rank;
	uint8_t seq_kind;
	uint8_t source; /* enum hd_input_kind of the ops' inputs */
	uint32_t *ops; /* indices into store->ops, sorted by seq, then record */
	uint32_t n;
	int64_t min_seq, max_seq; /* over ops; -1 when n == 0 */
	int64_t max_completed; /* -1 none */
	int64_t first_pending; /* lowest seq not completed; -1 none */
	/* lowest seq started or enqueued and not completed; -1 none */
	int64_t first_blocked;
	uint32_t n_p2p; /* sends and recvs among the ops */
	bool has_completion_info; /* some op completed or was timed */
	bool has_stack; /* some op has a stack (flight-recorder dumps) */
};

/* One group's lanes. */
struct hd_group_index {
	uint32_t group;
	GArray *lanes; /* struct hd_lane */
};

struct hd_index {
	const struct hd_store *store;
	GArray *groups; /* struct hd_group_index, by group index */
	GHashTable *rank_inputs; /* rank -> number of inputs */
	GArray *waits; /* struct hd_wait, filled by the checks */
	GArray *links; /* struct hd_join_link, filled by hd_join_run() */
	/* by op index: the NCCL-log op joined to an FR op, UINT32_MAX none;
	   NULL when nothing joined */
	uint32_t *partner;
	/* rank -> int64_t[HD_CLOCK_COUNT], the latest op time on each
	   clock (INT64_MIN none); NULL until hd_index_last_active() */
	GHashTable *last_active;
};

/* An FR process group joined to the NCCL comm of the same ranks. */
struct hd_join_link {
	uint32_t pg; /* store group index of the process group */
	uint32_t comm; /* store group index of the comm */
	uint32_t ranks; /* members whose op sequences were aligned */
	uint32_t ops; /* FR ops given an NCCL-log partner */
};

/* "waiter is blocked in (group, seq) until on arrives." */
struct hd_wait {
	int waiter;
	int on;
	int64_t group; /* store group index, -1 when only a PG name is known */
	int64_t seq;
	const char *what; /* interned: "PG 0 seq 41 all_reduce" */
	struct hd_prov prov; /* where the waiter is seen blocked */
	/* on is only inferred: the one member that left no data, while every
	   member with data waits (hd_index_add_wait_inferred()) */
	bool inferred;
};

struct hd_index *hd_index_build(const struct hd_store *s);
void hd_index_free(struct hd_index *ix);

/* The lanes of group g.  (transfer none) */
static inline struct hd_group_index *hd_index_group(const struct hd_index *ix,
						    guint g)
{
	return &g_array_index(ix->groups, struct hd_group_index, g);
}

/* Lane l of a group.  (transfer none) */
static inline struct hd_lane *hd_group_lane(const struct hd_group_index *gi,
					    guint l)
{
	return &g_array_index(gi->lanes, struct hd_lane, l);
}

/*
 * Every lane of every group, group by group, lanes in index order:
 *
 *	struct hd_lane_iter it;
 *	const struct hd_lane *lane;
 *
 *	hd_lane_iter_init(&it, ix);
 *	while ((lane = hd_lane_iter_next(&it)))
 *		... it.group is lane's group index ...
 */
struct hd_lane_iter {
	const struct hd_index *ix;
	guint group; /* of the lane last returned */
	guint next; /* its index in the group, + 1 */
};

static inline void hd_lane_iter_init(struct hd_lane_iter *it,
				     const struct hd_index *ix)
{
	it->ix = ix;
	it->group = 0;
	it->next = 0;
}

/* The next lane, NULL after the last.  (transfer none) */
static inline struct hd_lane *hd_lane_iter_next(struct hd_lane_iter *it)
{
	while (it->group < it->ix->groups->len) {
		const struct hd_group_index *gi =
			hd_index_group(it->ix, it->group);

		if (it->next < gi->lanes->len)
			return hd_group_lane(gi, it->next++);
		it->group++;
		it->next = 0;
	}
	return NULL;
}

/* True when rank left any input at all. */
bool hd_index_rank_has_data(const struct hd_index *ix, int rank);
/*
 * The job attempts of rank's NCCL/c10d logs, as a number: how many its
 * logs held times 65536 plus the one analyzed (1 and 1 for a log never
 * restarted); 0 when it left no log.  Two ranks whose numbers differ
 * read different attempts, so one's silence says nothing of the other's
 * groups (a log cut before the restart, an elastic scale-down).
 */
uint64_t hd_index_rank_attempts(const struct hd_store *s, int rank);

static inline const struct hd_op *hd_index_op(const struct hd_index *ix,
					      uint32_t i)
{
	/* lanes and views hold indices the store gave out */
	g_assert(i < ix->store->ops->len);
	return &g_array_index(ix->store->ops, struct hd_op, i);
}

/*
 * The innermost frame outside torch itself, else the innermost frame with a
 * file, else NULL.  (transfer none)
 */
const struct hd_frame *hd_op_user_frame(const struct hd_store *s,
					const struct hd_op *op);
/* "train.py:88 in train_step", innermost user frame, or NULL (transfer full) */
char *hd_op_where(const struct hd_store *s, const struct hd_op *op);
/* The innermost frame of a stack in user code (hd_op_where()'s), or -1. */
int32_t hd_stack_user_frame(const struct hd_store *s, int32_t stack);
/* One-line description of an op for evidence.  (transfer full) */
char *hd_op_describe(const struct hd_store *s, const struct hd_op *op);
/* The same without the stack location.  (transfer full) */
char *hd_op_describe_bare(const struct hd_store *s, const struct hd_op *op);

/*
 * The latest time rank was seen working on clock: the last enqueue, start
 * or end time of its ops on that clock, unknown when there is none.  The
 * table is built on first use, in one pass over the ops.
 */
struct hd_time hd_index_last_active(struct hd_index *ix, int rank,
				    enum hd_clock clock);

/* "1, 2, 3 and 5 more": the first max ranks.  (transfer full) */
char *hd_ranks_text(const GArray *ranks, guint max);

/* Adds a wait edge. */
void hd_index_add_wait(struct hd_index *ix, int waiter, int on, int64_t group,
		       int64_t seq, const char *what,
		       const struct hd_prov *prov);
/* The same, for a rank on waited for only by elimination (no data). */
void hd_index_add_wait_inferred(struct hd_index *ix, int waiter, int on,
				int64_t group, int64_t seq, const char *what,
				const struct hd_prov *prov);

#endif
