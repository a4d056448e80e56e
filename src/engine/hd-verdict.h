/*
 * The verdict model: what the engine concludes and how the reports read it.
 * A verdict names a kind of fault, its culprit ranks, where (group and
 * position), a confidence, and the evidence and ruled-out alternatives
 * behind it; an analysis holds the verdicts, most probable first, with the
 * tables the reports print (groups, ranks, arrivals, notes).  Part of the
 * public engine API (hd-engine.h includes it); the checks build verdicts
 * with the constructors below.
 *
 * Ownership: an analysis owns its verdicts and tables; it borrows the store
 * it was computed from, which must outlive it.  A verdict owns its
 * culprits, evidence and ruled-out texts; v->op is a static string.
 */
#ifndef HD_VERDICT_H
#define HD_VERDICT_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-ranks.h"
#include "hd-store.h"

enum hd_verdict_kind {
	HD_V_MISSING_RANK = 0,
	HD_V_LAGGING_RANK,
	HD_V_TYPE_MISMATCH,
	HD_V_SIZE_MISMATCH,
	HD_V_DTYPE_MISMATCH,
	HD_V_ROOT_MISMATCH,
	HD_V_REDOP_MISMATCH,
	HD_V_P2P_UNMATCHED,
	HD_V_BLOCKED_CHAIN,
	HD_V_STRAGGLER,
	HD_V_NETWORK_FAULT,
	HD_V_RANK_CRASHED,
	HD_V_INIT_FAILURE,
	HD_V_NO_FAULT,
	HD_V_INSUFFICIENT_DATA,
	HD_V_GPU_FAULT, /* a kernel log's Xid (issue 21) */
	HD_V_KIND_COUNT
};

/* What identifies a verdict of a kind across incidents (hd-fingerprint.c). */
enum hd_fp_field {
	HD_FP_PLACE = 0, /* kind and op only (the call site is apart) */
	HD_FP_SIGNATURE, /* and the error signal it cites */
	HD_FP_SUMMARY, /* and its summary text */
};

/* Which next steps the engine gives for a verdict of a kind (hd-next.c). */
enum hd_next_step {
	HD_NEXT_LIVE_RANKS, /* inspect the culprits live, else collect data */
	HD_NEXT_MISMATCH, /* the call sites that disagree */
	HD_NEXT_NETWORK,
	HD_NEXT_CRASH,
	HD_NEXT_INIT,
	HD_NEXT_NO_FAULT, /* nothing found: what to collect if it still hangs */
	HD_NEXT_COLLECT, /* what data to collect */
	HD_NEXT_GPU, /* a GPU's Xid: drain, reset, bug report (issue 21) */
	HD_NEXT_COUNT
};

/*
 * Everything that depends on a verdict kind, one row per kind in
 * hd-verdict.c: a new kind is a value above and a row there, plus the
 * check that gives it.
 */
struct hd_verdict_kind_info {
	const char *name; /* in reports and the JSON schema's kind enum */
	double score; /* base score: which kind explains a hang first */
	bool fault; /* counts as a fault for the exit status */
	bool mismatch; /* ranks called different things at one position */
	bool replayable; /* replay can build a plan from it */
	const char *rank_state; /* a culprit's state in the per-rank table */
	enum hd_fp_field fingerprint;
	enum hd_next_step next;
};

/*
 * What to do about Xid xid, as a next step ("drain the node and run
 * nvidia-bug-report.sh ..."), from the table in hd-kernel.c.  (transfer none)
 */
const char *hd_xid_next_step(int xid);
/*
 * The Xid an XID signal stands for: its own, or the earlier Xid a
 * cleanup's line names as its cause (hd-kernel.c).
 */
int hd_xid_of_event(const struct hd_signal *sig);

/*
 * The host of a host-state signal (hd-host-join.c): the one its line names,
 * else the host of the job its file's path names ("hosts/node-b/dmesg"),
 * or NULL.  (transfer none: interned)
 */
const char *hd_host_event_host(const struct hd_store *s,
			       const struct hd_signal *sig);

/* The row of kind k (an unknown k gets insufficient_data's).  (transfer none) */
const struct hd_verdict_kind_info *hd_verdict_kind_info(enum hd_verdict_kind k);

enum hd_confidence {
	HD_CONF_LOW = 0,
	HD_CONF_MEDIUM,
	HD_CONF_HIGH,
};

struct hd_evidence {
	int rank; /* -1 when the item is about no single rank */
	char *source; /* "path:line", "path#record N" */
	char *text;
	/*
	 * How many like items a capped list left out, when this item only
	 * counts them ("and 1,022 more ranks with the same timeout in seq
	 * 38": rank -1, no source); 0 for an item that cites something.
	 */
	uint32_t more;
};

/* Whether e only counts what a capped list left out (e->more). */
static inline bool hd_evidence_is_more(const struct hd_evidence *e)
{
	return e->more > 0;
}

/*
 * One thing for a person to do next (hd-next.c): the sentence the reports
 * print, the command in it to run, if any, and the host to run it on.
 */
struct hd_next {
	int rank; /* the rank it is about, -1 none */
	const char *host; /* interned, or NULL: where to run command */
	char *command; /* NULL, or the command the text quotes */
	char *text; /* one step, a sentence or two */
};

/*
 * What the reports say about one culprit: where it ran and where its
 * Python was.  Filled by the engine from the store and the rank table.
 */
struct hd_culprit {
	int rank;
	const char *host; /* interned, or NULL */
	int pid; /* 0 unknown */
	/* its last stack (an index into store->stacks) and the innermost
	   frame of that stack in user code, its call site; -1 none */
	int32_t stack;
	int32_t user_frame;
};

struct hd_verdict {
	enum hd_verdict_kind kind;
	GArray *culprits; /* int global ranks, ascending */
	int64_t group; /* store group index, -1 none */
	/*
	 * The c10d process group the verdict is about when no store group
	 * stands for it (logs alone: the PG only watchdog and status lines
	 * name): an index into the analysis's c10d_groups, -1 none.  Set
	 * only while group is -1 (hd_verdict_set_c10d_group()), so a
	 * verdict has one group at most.
	 */
	int64_t c10d_group;
	int64_t seq; /* position in the group, -1 none */
	const char *op; /* op kind name or NULL (static string) */
	enum hd_confidence confidence;
	char *summary;
	GPtrArray *evidence; /* struct hd_evidence * */
	GPtrArray *ruled_out; /* char * */
	double score; /* ranking: higher is the more probable root cause */
	/*
	 * The cause's identity across incidents (hd-fingerprint.c): 16 hex
	 * digits of a hash of fingerprint_text, the canonical text (kind, op,
	 * error signature: facts every kind of evidence carries; never ranks,
	 * hosts, times, paths or call sites).  call_site refines it where a
	 * stack was recorded: "train.py:train_step", or NULL.  All NULL until
	 * the engine has ranked the verdicts.
	 */
	char *fingerprint;
	char *fingerprint_text;
	char *call_site;
	int xid; /* the kernel's Xid the verdict rests on, 0 none */
	/*
	 * The host-state signal (an index into store->signals: a kernel
	 * log's event, an HCA port's state or counters, a GPU's state) the
	 * verdict rests on (host_event_cause) or cites as context on a
	 * culprit's host (hd-kernel.c); -1 none.  hd-next.c names its
	 * port or GPU in the next steps.
	 */
	int64_t host_event;
	bool host_event_cause;
	/*
	 * A failure that ended a culprit's process after the hang was
	 * detected (an index into store->signals; hd_check_late_crashes()),
	 * -1 none: hd-next.c then sends nobody to look at a live process.
	 */
	int64_t late_crash;
	/* struct hd_culprit, one per culprit in culprits' order, and the
	   next steps (struct hd_next *); empty until the engine's last step
	   (hd-next.c) */
	GArray *culprit_info;
	GPtrArray *next_steps;
	/*
	 * Only a hang makes this a fault: it names the ranks whose logs end
	 * first (enqueue-only COLL lines), which logs taken mid-run show
	 * too.  Without a->hang_evidence it is held to low confidence and
	 * its next steps are conditional (hd_summary_hold_unproven()).
	 */
	bool needs_hang;
};

/* Per-rank arrival statistics from matched, timed collectives. */
struct hd_arrival {
	int rank;
	uint32_t matched; /* collectives this rank took part in */
	uint32_t times_last; /* collectives it arrived at last */
	int64_t median_lag_ns; /* median of (its start - earliest start) */
	int64_t wait_imposed_ns; /* sum over collectives where it was last */
	int64_t clock_offset_ns; /* subtracted from its times */
	int64_t clock_uncertainty_ns;
	bool has_offset;
};

/*
 * The arrival statistics of a run, as a performance observation: the
 * rank most often last to start a matched collective and what that cost
 * the others.  A straggler is a fault only where a hang or timeout was
 * seen that nothing else explains (docs/verdicts.md, Stragglers).
 */
struct hd_perf {
	bool known;
	int rank; /* the rank most often last to start */
	uint32_t times_last, matched;
	int64_t median_margin_ns; /* its median lead over the next-latest */
	int64_t wait_imposed_ns; /* latest - earliest start, where it was last */
	int64_t others_wait_ns; /* what the other ranks waited for it, mean */
	int64_t step_ns; /* earliest start to latest end of those collectives */
	bool fault; /* also given as a straggler verdict */
	char *summary; /* one sentence */
	/* the straggler verdict until the engine decides; internal */
	struct hd_verdict *candidate;
};

struct hd_group_stats {
	uint32_t group;
	uint32_t ops_aligned; /* positions seen on every member that has data */
	uint32_t positions; /* distinct positions seen on any member */
	int ranks_with_data;
	/* the group this one is joined with (a PG and its NCCL comm,
	   hd-join.c), -1 none */
	int64_t joined;
	uint32_t joined_ops; /* dump ops given a log line by that join */
};

/* One rank's progress, for the per-rank table of the reports. */
struct hd_rank_progress {
	int rank;
	const char *host; /* interned, or NULL */
	uint32_t inputs; /* inputs that describe this rank */
	uint32_t ops; /* ops recorded for it, all groups */
	uint32_t signals; /* error/progress signals about it */
	/* the group the columns below are about: the top verdict's group,
	   else the rank's largest; -1 */
	int64_t group;
	int64_t last_enqueued; /* highest seq enqueued in that group; -1 */
	int64_t last_completed; /* highest seq completed; -1 none/unknown */
	int64_t blocked_seq; /* first incomplete seq there; -1 none */
	/* interned c10d PG name when last_enqueued and last_completed are
	   the watchdog's counters of that PG (no op of the group above was
	   recorded for the rank), else NULL */
	const char *counters_pg;
	/* static: "blocked", "absent", "crashed", "done", "no data" ... */
	const char *state;
	/* the stack of its last op with one in that group (else in any
	   group), an index into store->stacks; -1 none */
	int32_t stack;
	/* the innermost frame of that stack in user code (not torch's own),
	   -1 none: where the rank's Python was */
	int32_t user_frame;
};

/*
 * A moment the data records, for "when the hang began".  Zeroed means
 * unknown.
 */
struct hd_moment {
	bool known;
	int rank; /* the rank it was seen on, -1 none */
	struct hd_time time; /* with its clock */
	struct hd_prov prov; /* where it was read */
};

struct hd_analysis {
	const struct hd_store *store;
	/*
	 * const struct hd_input *, the store's: every input in natural
	 * order of its path (rank_2 before rank_10, hd_natural_cmp()), the
	 * one order every report lists inputs in
	 */
	GPtrArray *inputs;
	GPtrArray *verdicts; /* struct hd_verdict *, most probable first */
	GArray *group_stats; /* struct hd_group_stats, by group index */
	GArray *ranks_seen; /* int, ascending */
	GArray *ranks_missing; /* int, ascending: in the world, no data */
	int world_size; /* -1 unknown */
	GArray *arrivals; /* struct hd_arrival, by rank (may be empty) */
	GPtrArray *notes; /* char *: what the data could not decide */
	GArray *progress; /* struct hd_rank_progress, by rank ascending */
	/* error, timeout and crash signals read (not progress or context) */
	uint32_t trouble_signals;
	/* some group's ranks are blocked in an op none of them completed */
	bool hang_seen;
	/* the data shows a hang or failure: hang_seen, a timeout, an error,
	   an abort, a dump, live stacks (hd_summary_hold_unproven()) */
	bool hang_evidence;
	/* members whose record ends before a position their group
	   completed (completion proves presence, hd-frontier.c): noted,
	   never blamed, and no rank is then said to have reached the end */
	uint32_t incomplete_records;
	/* ranks (GINT_TO_POINTER) whose NCCL log ends before such a
	   position: the log was cut, so its silence after that says
	   nothing (hd-sig-progress.c), and the rank table says so */
	GHashTable *logs_end_early;
	/* ranks (GINT_TO_POINTER) whose record in a blocked group is of
	   another instance of its ops (a completion there before the others
	   entered: an earlier attempt's dump, hd-frontier.c): they left no
	   record of this run, and the rank table says so */
	GHashTable *other_instance;
	/* no fault was found, but some input was refused or cut (a budget
	   spent, unreadable, truncated): the summary is insufficient_data */
	bool inputs_unread;
	/*
	 * struct hd_verdict *: undecided hangs, moved to verdicts by the
	 * summary only when no fault verdict explains them (hd-engine.c)
	 */
	GPtrArray *held;
	struct hd_perf perf; /* known is false when no rank was last enough */
	/* when the hang began, as far as the data tells: the latest end of a
	   completed op (progress stopped after it), and the first watchdog
	   timeout (it was noticed) */
	struct hd_moment last_completed;
	struct hd_moment first_timeout;
	/* last_completed against first_timeout (enum hd_order):
	   HD_ORDER_UNKNOWN when their clocks cannot be compared */
	int8_t hang_order;
	/*
	 * Why the inputs cannot all belong to one incident (char *, one
	 * sentence each; empty when they can).  Unless merged, nothing was
	 * blamed: the only verdict says so.
	 */
	GPtrArray *conflicts;
	bool merged; /* analyzed as one incident anyway (--merge) */
	/* py-spy (ev-a): struct hd_pyspy_rank, by rank ascending */
	GArray *pyspy;
	/* struct hd_c10d_group, in the order the signals first name them,
	   and its index: name -> index + 1 */
	GArray *c10d_groups;
	GHashTable *c10d_index;
};

/*
 * A c10d process group that watchdog and status lines name ("[PG ID 0
 * PG GUID 0(default_pg) Rank 5]") and no group of the store stands for
 * (no dump or trace recorded its ops: logs only).  The reports list it
 * with the groups, so that PG 0 is not missing beside its NCCL comm.
 */
struct hd_c10d_group {
	const char *name; /* interned PG name: "0", "mesh_tp" */
	GArray *ranks; /* int: the ranks whose lines name it, ascending */
	uint32_t timeouts; /* of them, the ranks that timed out in it */
};

/*
 * A c10d PG known from log lines only: its id in JSON and for --group,
 * "pg:0:?" (the id table's form for a PG whose members no record
 * lists), and its label, "PG 0".  Raw: the name is an input's, so
 * printers clean it.  (transfer full)
 */
char *hd_c10d_group_id(const struct hd_c10d_group *g);
char *hd_c10d_group_label(const struct hd_c10d_group *g);

/* The index in a->c10d_groups of the c10d PG named name, or -1. */
int64_t hd_analysis_c10d_group_find(const struct hd_analysis *a,
				    const char *name);

/*
 * The group verdict v is about, as reports name it: its store group
 * (hd_group_label() in form), else its c10d PG ("PG 0" long, "0"
 * short); NULL when it has neither.  Raw.  (transfer full)
 */
char *hd_verdict_group_label(const struct hd_analysis *a,
			     const struct hd_verdict *v,
			     enum hd_group_label_form form);
/*
 * The id of the group v is about, as the JSON report's groups list it
 * ("comm:0x..", "pg:0:?"), or NULL.  Raw.  (transfer full)
 */
char *hd_verdict_group_id(const struct hd_analysis *a,
			  const struct hd_verdict *v);

/* Where a rank's Python is now, from a py-spy dump (hd-pyspy.c). */
struct hd_pyspy_rank {
	int rank;
	guint signal; /* its thread's signal in the store */
	int32_t frame; /* index of the innermost user frame, -1 none */
	bool in_collective; /* its stack runs through torch.distributed/NCCL */
	bool in_loader; /* ... or through a data loader */
};

/* The py-spy of rank, or NULL.  (transfer none) */
const struct hd_pyspy_rank *hd_analysis_pyspy(const struct hd_analysis *a,
					      int rank);
/* "fetch_next_batch (shard_loader.py:211)".  (transfer full) */
char *hd_pyspy_where(const struct hd_store *s, const struct hd_pyspy_rank *p);

/* An analysis of store with empty tables and no verdicts.  (transfer full) */
struct hd_analysis *hd_analysis_new(const struct hd_store *store);
void hd_analysis_free(struct hd_analysis *a);
typedef struct hd_analysis hd_analysis; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_analysis, hd_analysis_free)

/* True when the inputs conflict and were not merged (exit status 6). */
bool hd_analysis_is_inconsistent(const struct hd_analysis *a);

/* True when some verdict reports a fault (exit status 1). */
bool hd_analysis_has_fault(const struct hd_analysis *a);
/*
 * True when no verdict reports a fault but the data shows a hang or an
 * error (a WARN, a timeout, a crash, ranks blocked in an op), or inputs
 * were not read whole: the cause is undecided (exit 5).
 */
bool hd_analysis_undecided(const struct hd_analysis *a);

const char *hd_verdict_kind_name(enum hd_verdict_kind k);

/*
 * "rank 5", "ranks 1-4,6-7": which ranks a count of left-out evidence
 * items stands for, runs folded; scattered ranks whose list would run
 * past 60 columns as the first eight and a count.  (transfer full)
 */
char *hd_ranks_named(const GArray *ranks);

/* The innermost user frame of a culprit's stack, or NULL.  (transfer none) */
const struct hd_frame *hd_culprit_frame(const struct hd_store *s,
					const struct hd_culprit *c);
const char *hd_confidence_name(enum hd_confidence c);

/* Verdict construction, for engine modules.  (transfer full) */
struct hd_verdict *hd_verdict_new(enum hd_verdict_kind kind,
				  enum hd_confidence conf, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
void hd_verdict_free(struct hd_verdict *v);
void hd_verdict_add_culprit(struct hd_verdict *v, int rank);
/*
 * Places v in the c10d PG named name (interned or not) when v has no
 * store group and the analysis lists that PG among its c10d_groups;
 * otherwise leaves v as it is.  For checks that know a PG by the name
 * its log lines print.
 */
void hd_verdict_set_c10d_group(const struct hd_analysis *a,
			       struct hd_verdict *v, const char *name);
/*
 * Copies where from is (group, c10d PG, seq, op) into v, for a verdict
 * that restates another's place (a wait chain's, a host fault's).
 */
void hd_verdict_copy_place(struct hd_verdict *v, const struct hd_verdict *from);
/* Adds evidence; source is the formatted provenance (may be NULL). */
void hd_verdict_add_evidence(struct hd_verdict *v, int rank, const char *source,
			     const char *fmt, ...) G_GNUC_PRINTF(4, 5);
/*
 * Adds the item that counts the more like items (more > 0) a capped list
 * of evidence left out: "and 3 more ranks at the same op".
 */
void hd_verdict_add_more(struct hd_verdict *v, uint32_t more, const char *fmt,
			 ...) G_GNUC_PRINTF(3, 4);
void hd_verdict_add_ruled_out(struct hd_verdict *v, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);
/* Adds text to v's ruled-out list unless it is there already. */
void hd_verdict_add_ruled_out_once(struct hd_verdict *v, const char *text);
/*
 * The hosts v's culprits ran on, each once, sorted (char *, owned): what
 * an incident's summary lists beside the culprit ranks.  (transfer full)
 */
GPtrArray *hd_verdict_culprit_hosts(const struct hd_store *s,
				    const struct hd_verdict *v);
/* Whether rank is one of v's culprits; O(log n). */
bool hd_verdict_has_culprit(const struct hd_verdict *v, int rank);
/*
 * Puts the culprits' own evidence first, keeping the order within each
 * part; an item that only counts what a capped list left out
 * (hd_evidence_is_more()) stays with the item before it.
 */
void hd_verdict_order_evidence(struct hd_verdict *v);

#endif
