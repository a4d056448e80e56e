/*
 * What the checks share besides the index: the base scores that rank
 * verdict kinds against each other, the FR/NCCL join (hd-join.c) that
 * runs before them, and their entry points, which the orchestrator
 * (hd-engine.c) calls in order.  A check appends verdicts to a->verdicts
 * and notes to a->notes, and reads the index; it never calls the
 * orchestrator.  Internal to src/engine.
 */
#ifndef HD_CHECKS_H
#define HD_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

#include "hd-index.h"
#include "hd-store.h"
#include "hd-verdict.h"

/* Base scores: which verdict explains a hang first (docs/verdicts.md, ranking). */
#define HD_SCORE_GPU	      91.0
#define HD_SCORE_CRASH	      90.0
#define HD_SCORE_INIT	      88.0
#define HD_SCORE_NETWORK      85.0
#define HD_SCORE_MISMATCH     80.0
#define HD_SCORE_CHAIN	      78.0
#define HD_SCORE_P2P	      75.0
#define HD_SCORE_MISSING      70.0
#define HD_SCORE_CRASH_AFTER  65.0
#define HD_SCORE_LAGGING      60.0
#define HD_SCORE_STRAGGLER    30.0
#define HD_SCORE_INSUFFICIENT 10.0
#define HD_SCORE_NO_FAULT     0.0

/*
 * Joins each FR process group to the NCCL comm of the same ranks where the
 * evidence leaves one choice (hd-join.c), filling ix->links and
 * ix->partner; where it declines, a->notes says why.  Run before the checks.
 */
void hd_join_run(struct hd_index *ix, struct hd_analysis *a);
/* The NCCL-log op joined to store op i, or NULL.  (transfer none) */
const struct hd_op *hd_join_partner(const struct hd_index *ix, uint32_t i);
/*
 * Store op i as the checks compare it: the op itself, or a copy in *buf
 * given the root and reduction op that only its joined log line carries.
 * (transfer none)
 */
const struct hd_op *hd_join_view(const struct hd_index *ix, uint32_t i,
				 struct hd_op *buf);
/* Evidence text for the log side of a joined op.  (transfer full) */
char *hd_join_describe(const struct hd_store *s, const struct hd_op *log_op);
/*
 * True when v and w report one finding through a joined pair of groups:
 * one is the process group, the other its comm, and they cite the same
 * log line.
 */
bool hd_join_same_finding(const struct hd_index *ix, const struct hd_verdict *v,
			  const struct hd_verdict *w);
/* True when group g is the process-group side of a link. */
bool hd_join_is_pg(const struct hd_index *ix, int64_t g);

/*
 * True when sig reports trouble: an error, a timeout, a crash or an error
 * unwind; false for progress reports, context and clean exits.
 */
bool hd_signal_is_trouble(const struct hd_signal *sig);

/*
 * The ranks on host, named by its hostname or by the address its ranks
 * bootstrapped on ("node-b<41873>", "10.0.0.2", "gpu-b01.dc"; hostnames
 * compared up to their first '.'), ascending; *name receives the
 * hostname of a host found by address, or NULL.  (transfer full)
 */
GArray *hd_ranks_on_peer_host(const struct hd_store *s, const char *host,
			      const char **name);

/*
 * What a step of the engine leaves for later steps to read.  The table of
 * steps (hd-engine.c, engine_steps[]) states, for each, which of these it
 * reads and which it makes, and hd_check_steps_ordered() asserts that
 * every read was made by an earlier step.
 */
enum hd_step_data {
	HD_DATA_JOIN = 1u << 0, /* ix->links, ix->partner (hd-join.c) */
	HD_DATA_WAITS = 1u << 1, /* ix->waits: who waits on whom */
	HD_DATA_GROUP_VERDICTS = 1u << 2, /* mismatch, missing, lagging, p2p */
	HD_DATA_SIGNAL_VERDICTS = 1u << 3, /* network, crash, init, counters */
	HD_DATA_C10D_VERDICTS = 1u << 4, /* PyTorch's own conclusions */
	HD_DATA_ANON_VERDICTS = 1u << 5, /* processes of unknown rank */
	HD_DATA_CHAIN_VERDICTS = 1u << 6, /* blocked_chain */
	HD_DATA_STRAGGLER = 1u << 7, /* straggler verdict or its notes */
	HD_DATA_KERNEL_VERDICTS = 1u << 8, /* kernel-log causes (issue 21) */
	HD_DATA_PYSPY = 1u << 9, /* a->pyspy, verdicts annotated (ev-a) */
	HD_DATA_GDB = 1u << 10, /* verdicts annotated from gdb (issue 21) */
	HD_DATA_INSPECTOR = 1u << 11, /* NCCL Inspector notes (issue 21) */
	/* a->logs_end_early: logs that end before a completed position */
	HD_DATA_LOGS_END_EARLY = 1u << 12,
	HD_DATA_LATE_CRASHES = 1u << 13, /* crashes after the hang stated */
};

/*
 * One step of a table of checks run in order: the engine's steps
 * (engine_steps[], bits of enum hd_step_data), and the signal checks
 * inside one of them (hd-signals.c, signal_steps[], bits of enum
 * hd_sig_data).
 */
struct hd_check_step {
	const char *name;
	void (*run)(struct hd_index *ix, struct hd_analysis *a);
	unsigned reads; /* made by earlier steps, or given to the table */
	unsigned makes;
};

/* The steps hd_engine_run() runs, in order.  (transfer none) */
const struct hd_check_step *hd_engine_steps(size_t *n);
/*
 * True when every step of steps reads only what given (made before the
 * table runs) or earlier steps make; else false, with *bad the name of
 * the first step that reads too early.
 */
static inline bool hd_check_steps_ordered(const struct hd_check_step *steps,
					  size_t n, unsigned given,
					  const char **bad)
{
	unsigned made = given;

	for (size_t i = 0; i < n; i++) {
		if (steps[i].reads & ~made) {
			*bad = steps[i].name;
			return false;
		}
		made |= steps[i].makes;
	}
	*bad = NULL;
	return true;
}

/* The checks.  Each appends verdicts to a->verdicts. */
void hd_check_groups(struct hd_index *ix, struct hd_analysis *a);
void hd_check_signals(struct hd_index *ix, struct hd_analysis *a);
/*
 * PyTorch's own conclusions and c10d texts (hd-c10d.c); run after the
 * group and signal checks, as it reads the verdicts they found.
 */
void hd_check_c10d(struct hd_index *ix, struct hd_analysis *a);
/*
 * Xids, OOM kills, link changes and GPU state from the hosts (hd-kernel.c,
 * over hd-host-join.c and hd-host-stale.c; issue 21)
 */
void hd_check_kernel(struct hd_index *ix, struct hd_analysis *a);
/*
 * Compares the ops of processes of unknown rank (hd-anon.c), naming
 * them by host:pid, at low confidence.
 */
void hd_check_anonymous(struct hd_index *ix, struct hd_analysis *a);
/* Follows the waits of both to root blockers (blocked_chain). */
void hd_check_chains(struct hd_index *ix, struct hd_analysis *a);
/*
 * Joins py-spy dumps to ranks by pid and corroborates or refutes the
 * verdicts that blame a rank's absence (hd-pyspy.c).
 */
void hd_check_pyspy(struct hd_index *ix, struct hd_analysis *a);
/*
 * Says where the threads of each rank's gdb backtrace are and
 * corroborates or refutes the verdicts that blame a rank's absence
 * (hd-gdb.c, issue 21).
 */
void hd_check_gdb(struct hd_index *ix, struct hd_analysis *a);
/*
 * What the live stacks of py-spy and gdb share (hd-live.c).  Calls
 * fn(v, first, data) for each verdict, kept or held, that want() takes
 * and that names a culprit; first is true for the first of a kind and a
 * first culprit: the same absence seen by two sources is two verdicts the
 * engine merges later, and the evidence goes to the first.
 */
void hd_live_each_blame(
	struct hd_analysis *a, bool (*want)(const struct hd_verdict *v),
	void (*fn)(struct hd_verdict *v, bool first, void *data), void *data);
/*
 * What live stacks say of v, which blames its culprits for never entering
 * an op: with `in` of them inside a collective now and `out` elsewhere,
 * all inside refutes the blame (confidence low, and with first evidence
 * that tool contradicts it); all elsewhere corroborates it (ruled out,
 * once: the rank stuck in the same collective).  inside: what tool calls
 * inside ("an NCCL collective"); seen: what it shows elsewhere ("its
 * main thread").
 */
void hd_live_judge_absence(struct hd_verdict *v, guint in, guint out,
			   bool first, const char *tool, const char *inside,
			   const char *seen);

/*
 * A failure that ended its rank's process after the hang was detected
 * (the rank printed a dump signal or heartbeat line before it): stated
 * on the verdicts that blame the rank's absence, else a low rank_crashed
 * of its own; never the hang's cause (hd-sig-crash.c, issue 21).
 */
void hd_check_late_crashes(struct hd_index *ix, struct hd_analysis *a);

/*
 * NCCL Inspector timings as notes and as context for the verdicts that
 * blame a rank; never a verdict (hd-inspector.c, issue 21).
 */
void hd_check_inspector(struct hd_index *ix, struct hd_analysis *a);

#endif
