/*
 * The replay runner: executes a validated plan with CUDA and NCCL, one
 * forked process per rank, non-blocking communicators, a watchdog that
 * aborts a communicator after a timeout, and a parent that reaps every
 * child.  Built only with HAVE_CUDA_NCCL; otherwise replay_run() fails with
 * HD_ERROR_UNSUPPORTED.  The outcome is what NCCL did, not a guess.
 *
 * Ownership: a result owns its per-rank arrays and strings.
 */
#ifndef HD_REPLAY_RUN_H
#define HD_REPLAY_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "replay-plan.h"

/* True when this build can run plans (CUDA and NCCL were found). */
bool replay_run_available(void);

enum replay_outcome {
	REPLAY_COMPLETED = 0, /* every rank finished every op: not reproduced */
	REPLAY_REPRODUCED, /* some ranks blocked until the timeout */
	REPLAY_ERROR, /* NCCL or CUDA returned an error */
};

enum replay_op_status {
	REPLAY_OP_NOT_RUN = 0,
	REPLAY_OP_OK,
	REPLAY_OP_BLOCKED, /* still running at the timeout */
	REPLAY_OP_ERROR,
};

struct replay_op_result {
	enum replay_op_status status;
	double ms; /* from issue to completion (or to the timeout), or -1 */
};

struct replay_rank_result {
	int rank; /* group rank */
	int device; /* CUDA device used, -1 before it was chosen */
	GArray *ops; /* struct replay_op_result, one per plan op */
	int blocked_op; /* index of the op it was blocked in, -1 none */
	int nccl_result; /* ncclResult_t of the first failure, 0 none */
	char *error; /* ncclGetLastError() or the failure, or NULL */
	bool reported; /* the child said how it ended */
	bool setup_failed; /* no device, not enough memory: nothing ran */
	int exit_status; /* wait status of the child */
};

struct replay_result {
	enum replay_outcome outcome;
	GPtrArray *ranks; /* struct replay_rank_result *, by group rank */
	char *summary; /* one line for a person */
	bool ranks_share_gpus;
};

struct replay_options {
	double timeout_s; /* per op and for communicator setup */
};

void replay_result_free(struct replay_result *r);
typedef struct replay_result replay_result; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(replay_result, replay_result_free)

/*
 * Runs a plan (validated again here) and returns what happened.  Fails
 * only when the replay could not be attempted (no CUDA build, no GPU, not
 * enough device memory, fork failed).  (transfer full)
 */
struct replay_result *replay_run(const struct replay_plan *p,
				 const struct replay_options *opt,
				 GError **error);

const char *replay_outcome_name(enum replay_outcome o);
const char *replay_op_status_name(enum replay_op_status s);

#endif
