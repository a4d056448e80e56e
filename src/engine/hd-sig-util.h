/*
 * What the signal checks share: the checks of hd-sig-*.c, run in order by
 * hd_check_signals() (hd-signals.c), and hd-c10d.c.  A signal is cited as
 * evidence up to a cap; signals are ordered in time only on clocks that
 * compare (hd_time_order()); who a signal comes from is its rank, else
 * its process.  Internal to src/engine.
 */
#ifndef HD_SIG_UTIL_H
#define HD_SIG_UTIL_H

#include <stdbool.h>

#include "hd-checks.h"
#include "hd-time.h"

/* The most evidence items a signal check cites by hd_sig_cite(). */
#define HD_SIG_MAX_EVIDENCE 6

/*
 * How much later than a failure its rank's own work must be seen for the
 * rank to have outlived it (hd_sig_outlived()): far above the clock skew
 * between hosts and the seconds an asynchronous error takes to surface,
 * far below the minutes between a crash and a restarted attempt's work.
 */
#define HD_SIG_OUTLIVED_NS (60 * HD_NS_PER_SEC)

/* Store signal i.  (transfer none) */
static inline const struct hd_signal *hd_sig_at(const struct hd_store *s,
						guint i)
{
	g_assert(i < s->signals->len);
	return &g_array_index(s->signals, struct hd_signal, i);
}

/* Whether sig was read from an NCCL/c10d log. */
static inline bool hd_sig_from_log(const struct hd_store *s,
				   const struct hd_signal *sig)
{
	return sig->prov.input < s->inputs->len &&
	       hd_store_input(s, sig->prov.input)->kind == HD_INPUT_NCCL_LOG;
}

/*
 * Cites sig (its text, else its category's name, and where it was read)
 * as evidence of v, unless v already holds HD_SIG_MAX_EVIDENCE items;
 * returns whether it did.
 */
bool hd_sig_cite(const struct hd_store *s, struct hd_verdict *v,
		 const struct hd_signal *sig);
/* hd_sig_cite() with a cap of max evidence items instead. */
bool hd_sig_cite_upto(const struct hd_store *s, struct hd_verdict *v,
		      const struct hd_signal *sig, guint max);
/*
 * Ends v, a verdict on n signals of one kind, and adds it to a: "<n>
 * <what>" as evidence when there are several, then what was ruled out.
 */
void hd_sig_verdict_end(struct hd_analysis *a, struct hd_verdict *v, guint n,
			const char *what, const char *ruled_out);
/* Drops the repeats of set (int), keeping each one's first place. */
void hd_sig_int_set_unique(GArray *set);

/*
 * Whether rank was seen working more than HD_SIG_OUTLIVED_NS after sig,
 * on a clock the two compare on (an op it enqueued, started or completed
 * then): a failure the rank outlived is of an earlier process life (the
 * error file of a previous attempt, an Xid before a restart), never what
 * stopped it.  A local wall time is compared only on the rank's own host
 * when the hosts keep different zones.  *last gets that later time.
 */
bool hd_sig_outlived(struct hd_index *ix, const struct hd_signal *sig, int rank,
		     struct hd_time *last);

/*
 * Where x is against y in time: only on clocks that compare, and across
 * hosts only beyond HD_TIME_SKEW_NS; closer is HD_ORDER_SAME.  Local times
 * of two hosts never order each other when the hosts keep different
 * zones (s->local_zones_apart).
 */
enum hd_order hd_sig_order(const struct hd_store *s, const struct hd_signal *x,
			   const struct hd_signal *y);
/*
 * -1 when x is known to come before y, or has a time and y none; else 0
 * (keep the one read first).
 */
int hd_sig_compare_time(const struct hd_store *s, const struct hd_signal *x,
			const struct hd_signal *y);
/*
 * The first of cands (const struct hd_signal *) with a time, in input
 * order: several when their times cannot order them, and *tie says
 * whether those come from different processes.  NULL when none has a
 * time.  (transfer container)
 */
GPtrArray *hd_sig_first_timed(const struct hd_store *s, const GPtrArray *cands,
			      bool *tie);
/*
 * The first watchdog timeouts in time (hd_sig_first_timed() of those
 * with a time): where the hang was first detected.  NULL when none has a
 * time.  (transfer container)
 */
GPtrArray *hd_sig_first_timeouts(const struct hd_store *s);
/*
 * The signals a check weighs as causes, gathered in input order by
 * hd_sig_cands_add(), and the first of them in time
 * (hd_sig_cands_first()).
 */
struct hd_sig_cands {
	GPtrArray *sigs; /* const struct hd_signal *, in input order */
	GArray *ranks; /* int: their ranks (>= 0), each once, first seen first */
	guint rankless; /* how many have no rank */
	bool untimed; /* some has no time */
};

void hd_sig_cands_init(struct hd_sig_cands *c);
void hd_sig_cands_clear(struct hd_sig_cands *c);
void hd_sig_cands_add(struct hd_sig_cands *c, const struct hd_signal *sig);
/*
 * The first of c in time: the first of hd_sig_first_timed() (into
 * *firsts, with *tie), else, none having a time, the first read (*firsts
 * NULL).  NULL when c holds none.  (transfer none; *firsts full)
 */
const struct hd_signal *hd_sig_cands_first(const struct hd_store *s,
					   struct hd_sig_cands *c,
					   GPtrArray **firsts, bool *tie);
/* Why the first signals could not be told apart.  (static) */
const char *hd_sig_tie_reason(const struct hd_store *s,
			      const GPtrArray *firsts);
/*
 * The distinct ranks (>= 0) of sigs, ascending; *rankless says whether
 * any has none.  (transfer full)
 */
GArray *hd_sig_ranks(const GPtrArray *sigs, bool *rankless);
/* "rank 3 (node-a)", "process node-a:812 (rank unknown)".  (transfer full) */
char *hd_sig_who(const struct hd_signal *sig);
/*
 * NET/IB's status 5, WR_FLUSH: the queue pair was already in error.  An
 * aws-ofi-nccl completion shares the type, but its "RC: 5" is a provider
 * errno (EIO), a failure of its own.
 */
bool hd_sig_ib_flush(const struct hd_signal *sig);
/* A WR_FLUSH, or an error unwind: it only follows another failure. */
bool hd_sig_net_consequence(const struct hd_signal *sig);
/* A host's link state or counters (issue 21): hd-kernel.c reads them. */
bool hd_sig_port_state(const struct hd_signal *sig);
/*
 * A network error that can start trouble: of the network category, and
 * neither a consequence nor a host's port state.
 */
bool hd_sig_net_cause(const struct hd_signal *sig);
/* sig's host: its own, else its rank's; NULL unknown.  (transfer none) */
const char *hd_sig_host(const struct hd_store *s, const struct hd_signal *sig);
/* Whether x and y come from one process as far as they tell. */
bool hd_sig_same_process(const struct hd_signal *x, const struct hd_signal *y);
/*
 * The ranks whose process had pid (on host, when host is not NULL), as
 * "rank 1 or rank 3", when two or more had it; else NULL.  *hosts (when
 * hosts is not NULL) gets their hosts when they ran on several ("trn-01
 * and trn-02"), else NULL.  For evidence of a pid that joins no rank.
 * (transfer full, both)
 */
char *hd_sig_pid_ranks(const struct hd_store *s, int32_t pid, const char *host,
		       char **hosts);
/*
 * The note for a dump of what (a "gdb backtrace", a "py-spy dump") whose
 * pid joins no rank: "gdb backtrace 'x' (pid 53) joins no rank: pid 53
 * is rank 1 or rank 3 (on trn-01 and trn-02), and the file names no
 * host".  (transfer full)
 */
char *hd_sig_unjoined_note(const struct hd_store *s, const char *what,
			   const struct hd_signal *sig);
/* Whether sig is an error unwind through communicator setup. */
bool hd_sig_is_init_unwind(const struct hd_signal *sig);
/*
 * Whether sig is a CUDA error a kernel left behind (an illegal address, a
 * trap, a hardware fault): sticky, it is reported by whichever CUDA call
 * of the process comes next.
 */
bool hd_sig_cuda_kernel_fault(const struct hd_signal *sig);

/*
 * Whether sig, a driver-class CUDA signal, is a CUDA call that failed
 * ("Cuda failure 'no CUDA-capable device is detected'") rather than a
 * library NCCL could not load (its cudawrap WARN, which it survives).
 */
bool hd_sig_driver_call_failed(const struct hd_signal *sig);
/*
 * Whether the failure at signal index i happened during communicator
 * setup: its process's error unwind, right after it, runs through init.
 * Never for a kernel fault, which only surfaced there.
 */
bool hd_sig_failed_in_init(const struct hd_store *s, guint i);
/* "node-b<41873>" -> "node-b"; an IP stays an IP.  (transfer full) */
char *hd_sig_peer_host(const char *peer);

/*
 * What a signal check leaves for the later ones to read, and what the
 * engine gives them all (made by the steps before the signal step).  The
 * table hd_check_signals() runs (hd-signals.c, signal_steps[]) states
 * for each check which of these it reads and makes, and the order is
 * asserted (hd_check_steps_ordered()) before every run.
 */
enum hd_sig_data {
	/* given: a->logs_end_early, from the group checks */
	HD_SIG_DATA_LOGS_END_EARLY = 1u << 0,
	/* missing/lagging from the c10d watchdog's counters, their waits */
	HD_SIG_DATA_COUNTER_VERDICTS = 1u << 1,
	HD_SIG_DATA_RAS_VERDICTS = 1u << 2, /* missing/lagging from RAS */
	/* network_fault, from a network error that is a cause or, at low
	   confidence, from IB flushes and closed connections alone */
	HD_SIG_DATA_NETWORK_VERDICTS = 1u << 3,
	HD_SIG_DATA_CRASH_VERDICTS = 1u << 4, /* rank_crashed */
	HD_SIG_DATA_INIT_VERDICTS = 1u << 5, /* init_failure: setup, networks */
	HD_SIG_DATA_MISMATCH_VERDICTS = 1u << 6, /* type and size mismatch */
};

/* What the engine gives the signal checks (enum hd_sig_data). */
#define HD_SIG_GIVEN HD_SIG_DATA_LOGS_END_EARLY

/* The signal checks hd_check_signals() runs, in order.  (transfer none) */
const struct hd_check_step *hd_sig_steps(size_t *n);

/* The signal checks, in the order hd_check_signals() runs them. */
void hd_sig_check_progress(struct hd_index *ix, struct hd_analysis *a);
void hd_sig_check_ras(struct hd_index *ix, struct hd_analysis *a);
void hd_sig_check_network(struct hd_index *ix, struct hd_analysis *a);
void hd_sig_check_crashes(struct hd_index *ix, struct hd_analysis *a);
void hd_sig_check_network_weak(struct hd_index *ix, struct hd_analysis *a);
void hd_sig_check_init(struct hd_index *ix, struct hd_analysis *a);
void hd_sig_check_transports(struct hd_index *ix, struct hd_analysis *a);
void hd_sig_check_coll_mismatch(struct hd_index *ix, struct hd_analysis *a);
void hd_sig_check_size_mismatch(struct hd_index *ix, struct hd_analysis *a);

#endif
