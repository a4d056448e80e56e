/*
 * Replay plans: from a verdict and the store it came from, the communicator
 * a divergence happened on, its members, and per member the ordered NCCL
 * calls around the divergence (the last K positions before it plus the
 * divergent or incomplete ones), with counts as the NCCL API takes them.
 * Plans are written and read as JSON (docs/replay.md) and validated against
 * hard limits, so a hostile plan cannot make the runner allocate without
 * bound.  Nothing here needs CUDA.
 *
 * Ownership: a plan owns its ranks and their op arrays; it borrows nothing
 * from the store it was extracted from.
 */
#ifndef HD_REPLAY_PLAN_H
#define HD_REPLAY_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>
#include <jansson.h>

#include "hd-engine.h"
#include "hd-store.h"

/* Format version of the plan JSON. */
#define REPLAY_PLAN_VERSION 1
/* Limits checked by replay_plan_validate() (and so at load time). */
#define REPLAY_MAX_RANKS	1024
#define REPLAY_MAX_WINDOW	64
#define REPLAY_MAX_OPS_PER_RANK 256
#define REPLAY_MAX_OP_ELEMS	((int64_t)1 << 28)
#define REPLAY_MAX_TOTAL_ELEMS	((int64_t)1 << 36)
/* Device bytes one rank may need for its largest op (send + recv). */
#define REPLAY_MAX_RANK_BYTES ((int64_t)16 << 30)
/* Largest plan file read by replay_plan_load(). */
#define REPLAY_MAX_PLAN_BYTES (16u << 20)
#define REPLAY_DEFAULT_WINDOW 4

struct replay_op {
	enum hd_op_kind kind;
	/*
	 * Elements as the NCCL call takes them: all_gather per-rank send
	 * count, reduce_scatter per-rank recv count, all_reduce / broadcast /
	 * reduce count, send count, recv count, all_to_all total send count,
	 * gather send count, scatter recv count; -1 unknown.
	 */
	int64_t count;
	enum hd_dtype dtype;
	enum hd_redop redop;
	int peer; /* root or p2p peer as a group rank, -1 none */
	int coalesce; /* ops with the same id, adjacent, form one ncclGroup */
	int64_t seq; /* position in the source, -1 unknown */
	enum hd_op_state state; /* as recorded */
	bool divergent; /* at or after the divergent position */
};

struct replay_rank {
	int rank; /* group rank, also the index in plan->ranks */
	int global_rank; /* -1 unknown */
	GArray *ops; /* struct replay_op, in call order */
};

struct replay_plan {
	char *verdict; /* verdict kind name, or NULL (healthy plan) */
	char *group_id; /* store group id, or NULL */
	char *group_name;
	int64_t seq; /* divergent position, -1 none */
	uint8_t seq_kind; /* enum hd_seq_kind of the positions */
	int window;
	double scale;
	bool fixed; /* replay_plan_fix() was applied */
	GPtrArray *ranks; /* struct replay_rank *, by group rank */
};

struct replay_plan *replay_plan_new(void);
void replay_plan_free(struct replay_plan *p);
typedef struct replay_plan replay_plan; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(replay_plan, replay_plan_free)

/* Adds an empty rank (group rank = index).  (transfer none) */
struct replay_rank *replay_plan_add_rank(struct replay_plan *p,
					 int global_rank);

/* True for verdict kinds that name a divergence a replay can re-issue. */
bool replay_verdict_is_replayable(enum hd_verdict_kind kind);

/*
 * Extracts the plan for verdict v from store s, with the last window
 * positions before the divergence.  Fails (HD_ERROR_UNSUPPORTED) for
 * verdicts without a replayable divergence, naming why.  (transfer full)
 */
struct replay_plan *replay_plan_from_verdict(const struct hd_store *s,
					     const struct hd_verdict *v,
					     int window, GError **error);

/*
 * A plan of the last window positions of the largest group, with no
 * divergence: for replaying a healthy incident.  (transfer full)
 */
struct replay_plan *replay_plan_healthy(const struct hd_store *s, int window,
					GError **error);

/*
 * Shrinks counts by factor (0 < factor <= 1): each distinct positive count
 * maps to max(1, round(count * factor)), bumped where needed so that equal
 * counts stay equal and different counts stay different and in order.
 */
bool replay_plan_scale(struct replay_plan *p, double factor, GError **error);

/*
 * Aligns the divergence: mismatched divergent ops are made to match the
 * majority; divergent collectives some ranks lack are dropped from the
 * ranks that have them; p2p ops without a partner are dropped.
 */
void replay_plan_fix(struct replay_plan *p);

/* Checks every field against the format and the limits above. */
bool replay_plan_validate(const struct replay_plan *p, GError **error);

/* Bytes of one element of dtype, 0 for unknown/other. */
size_t replay_dtype_size(enum hd_dtype t);
/*
 * Elements of the send and receive buffers op o needs on one rank of a
 * communicator of nranks (an unknown count counts as 1).
 */
void replay_op_elems(const struct replay_op *o, int nranks, int64_t *send,
		     int64_t *recv);
/* Device bytes rank r needs for its largest op (send + recv buffers). */
int64_t replay_plan_rank_bytes(const struct replay_plan *p, int rank);

/* The plan as a JSON document (docs/replay.md).  (transfer full) */
json_t *replay_plan_build_json(const struct replay_plan *p);
/* The same, as indented text ending in a newline.  (transfer full) */
char *replay_plan_to_json(const struct replay_plan *p);
/* Parses and validates a plan.  (transfer full) */
struct replay_plan *replay_plan_from_json(const char *text, size_t len,
					  GError **error);
/*
 * Writes the plan as JSON to out; false when out failed.  Where it goes
 * (a temporary file renamed into place, never over a device) is the
 * caller's business: the CLI's safe output does it.
 */
bool replay_plan_write(const struct replay_plan *p, FILE *out);
/* Reads at most REPLAY_MAX_PLAN_BYTES.  (transfer full) */
struct replay_plan *replay_plan_load(const char *path, GError **error);

/* Rank i of p (a group rank).  (transfer none) */
static inline struct replay_rank *replay_plan_rank(const struct replay_plan *p,
						   guint i)
{
	g_assert(i < p->ranks->len);
	return g_ptr_array_index(p->ranks, i);
}

#endif
