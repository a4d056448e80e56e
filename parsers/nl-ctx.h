/*
 * The NCCL / c10d log parser's shared state and helpers, below the driver
 * (nccl-log.c) and both grammars (nccl-record.c, c10d-record.c): the
 * per-file parse state, the scanners every line goes through, the regex
 * helpers and the store helpers that add a signal, skip a line, find a
 * stream or note a restart.  Calls nothing above it.  Not for use outside
 * the log parser.
 *
 * Ownership: the parse state belongs to one nccl_log_parse() call; the
 * store owns what is added to it.
 */
#ifndef HD_NL_CTX_H
#define HD_NL_CTX_H

#include <string.h>

#include "formats.h"
#include "hd-autocleanups.h"
#include "hd-time.h"

/* Processes remembered by pid, for interleaved logs (struct nl_ctx). */
#define NL_PROC_CACHE 64
/* Fast-path prefixes remembered by their first bytes (nl_coll_fast_quick()). */
#define NL_FAST_QUICK 64

/* ------------------------------------------------------------------ */
/* Regular expressions, compiled once per process.                     */

enum nl_rx {
	/* nccl-record.c */
	RX_INIT,
	RX_TEARDOWN,
	RX_VERSION,
	RX_UNWIND,
	RX_IB_COMPL,
	RX_PEER,
	RX_REMOTE_PEER,
	RX_SOCK_PEER,
	RX_CONNECT_PEER,
	RX_CUDA_CODE,
	RX_HINT_RANK,
	RX_FROM_RANK,
	/* c10d-record.c */
	RX_STATUS,
	RX_NCCL_ERR,
	RX_ABORTED,
	RX_EXIT,
	RX_CFE_RANK,
	RX_CFE_TIME,
	RX_CFE_EXIT,
	RX_EXCEPTION,
	RX_PG_GUID,
	RX_PG_NUM,
	RX_RANK_ONLY,
	RX_COUNT
};

/*
 * The patterns of each grammar, by id; NULL at the other grammar's ids.
 * Defined in the file of the grammar.
 */
extern const char *const nl_nccl_rx_src[RX_COUNT];
extern const char *const nl_c10d_rx_src[RX_COUNT];
/* Both compiled, once per process, before the first line is read. */
extern pcre2_code *nl_rx_code[RX_COUNT];

/* ------------------------------------------------------------------ */
/* Parser state.                                                       */

/* One communicator instance in one process. */
struct nl_comm {
	uint64_t ptr;
	int rank, nranks, cuda_dev;
	int64_t group; /* store group index, -1 none */
	int64_t ncoll; /* COLL lines so far: the next op's seq */
	int64_t last_opcount; /* of the last COLL line read, -1 none */
	int64_t max_opcount; /* the largest kept, -1 none */
	bool last_kept; /* that line was not a repeat */
	/* that line's fields mixed (nl-coll.c's coll_key()), its number */
	uint64_t last_key, last_line;
	/* the store indices of its ops, nops of them in ops_cap; NULL
	   none (every COLL line appends: a plain array) */
	uint32_t *ops;
	uint32_t nops, ops_cap;
	const char *bus_id;
	bool complete;
	bool init; /* made at an Init line, not guessed from a COLL one */
};

struct nl_proc {
	uint32_t index;
	const char *host; /* interned; "" when empty */
	size_t host_len;
	int pid;
	int c10d_rank, hint_rank, tag_rank; /* -1 none, -2 conflicting */
	bool hint_srun; /* hint_rank came from an srun task or vLLM worker label */
	int world_nranks, world_rank, world_dev;
	const char *world_bus;
	const char *addr; /* interned bootstrap IP, or NULL */
	int rank; /* decided at end of input */
	/* when its rank stays unknown: which process of unknown rank of
	   the input it is (hd_op_anon()), -1 none */
	int anon;
	/* the [dev] of its records, -1: a thread that never set the
	   device shows [0] (the watchdog's Abort line), so a label other
	   than 0 wins over 0 */
	int dev;
	const char *version; /* claimed */
	int fmt_min; /* major*1000+minor the format implies, 0 */
	bool no_token; /* 2.2 format seen */
	bool saw_teardown;
	uint64_t last_warn; /* line of its last WARN or ABORT record, 0 */
	/* the same, but not a WARN that is only advice (HD_SIGT_ADVISORY:
	   the environment, not a failure), 0 */
	uint64_t last_trouble;
	bool saw_network; /* "Using network X" read */
	GHashTable *live; /* ptr (uint64 *) -> struct nl_comm * */
	GPtrArray *comms; /* struct nl_comm *, all instances, owned */
	GHashTable *nth; /* key string -> count, creation order */
	struct nl_comm *last;
	uint64_t ndropped;
	/* its records' lines and its first stream: a job attempt is per
	   process (finish()); attempt from 1, decided at end of input */
	uint64_t first_line, last_line;
	uint64_t prev_line; /* last_line before the latest record */
	uint32_t stream;
	uint16_t attempt;
	/* COLL records read again (nl_parse_coll()): not kept */
	uint64_t ndup;
	/* the life of its host:pid before this one, NULL none
	   (nl_proc_new_life()); a comm made at an Init line of this one */
	struct nl_proc *before;
	bool made_init;
};

/* An output stream: the lines one wrapper label (or none) marks. */
struct nl_stream {
	uint32_t index;
	struct nl_proc *proc; /* the one process seen in it */
	bool multi; /* more than one process seen */
	int c10d_rank; /* [rankG] seen; -2 conflicting */
	int hint_rank; /* mpirun/srun label */
	bool hint_srun; /* hint_rank is an srun task or vLLM worker label */
	int worker_rank; /* vLLM's worker label, -1 none (nl_strip_front()) */
	int srun_task; /* srun -l's task label, -1 none */
	/* "NCCL error in:" block being collected */
	int64_t err_sig; /* signal index, -1 none */
	int err_left;
	bool err_want_last;
	/* Python traceback: waiting for the exception line */
	bool in_tb;
	/* the last line that called ncclCommInitRank (a traceback's frame,
	   pynccl's call), 0 none: an NCCL error right after it is setup's */
	uint64_t init_call_line;
	/* torchrun ChildFailedError block */
	int cfe_left;
	int cfe_rank, cfe_local;
	struct hd_time cfe_time; /* its "time :", local */
	/* fr_trace's "Not all ranks joining collective" block */
	int64_t fr_seq; /* -1 none */
	/* op lines of Horovod's "Stalled ops:" block still taken */
	int hvd_left;
	const char *fr_op; /* interned, or NULL */
	/* its first dated time (a wrapper's or NCCL's date): the year of
	   its glog month-day times (docs/verdicts.md, "Time") */
	struct hd_time anchor;
	/* the first and the last line that showed one event on two
	   clocks: a UTC date in front and the record's own local time
	   (docs/verdicts.md, "Time": alignment) */
	struct hd_time pair_utc, pair_local, last_utc, last_local;
	/* Open MPI's abort block (c10d-record.c): lines left, its rank */
	int mpi_left;
	int mpi_rank;
	/* MPICH Hydra's "BAD TERMINATION" block: lines left, its pid and
	   host, and the exit it gave (an index of this input's signals, -1
	   none) for the "EXIT STRING" line after it */
	int hydra_left;
	int64_t hydra_pid;
	const char *hydra_host;
	int64_t hydra_exit;
};

/* What a wrapper prefix said. */
struct nl_wrap {
	int mpi_rank, srun_task, local_rank, ray_pid, tag_rank;
	int worker_rank; /* vLLM's "(VllmWorker rank=N pid=P)" */
	const char *host; /* pdsh, not NUL-terminated */
	size_t host_len;
	struct hd_time time; /* a date it carried, or none */
};

/* A parsed NCCL record prefix. */
struct nl_rec {
	const char *host;
	size_t host_len;
	int pid, tid, dev;
	bool has_hpt;
	const char *start; /* first byte of the record (after wrappers) */
};

/* The shape of the crash block being read (crash-record.c). */
enum nl_crash_style {
	NL_CRASH_NONE = 0,
	NL_CRASH_NATIVE, /* numbered native frames (UCX) */
	NL_CRASH_PYTHON, /* faulthandler, frames kept */
	NL_CRASH_PY_OTHER, /* faulthandler, another thread: skipped */
	NL_CRASH_TERMINATE, /* C++ terminate: what(), c10's frames */
};

/* A line of torchrun's agent restarting the workers. */
struct nl_restart_line {
	uint64_t line;
	struct hd_time time; /* its date, or hd_time_none() */
};

struct nl_ctx {
	struct hd_store *store;
	struct hd_input *in;
	uint32_t input;
	uint64_t lineno;
	/*
	 * The last line the long way read, to fold a line that repeats it
	 * right after it (nccl-log.c's repeated_line()): its bytes (room
	 * for HD_LINE_MAX), length and number, 0 none; how many were
	 * folded, and the first.
	 */
	char *prev;
	size_t prev_len;
	uint64_t prev_line, repeats, first_repeat;
	pcre2_match_data *md;
	PCRE2_SIZE *ov;

	GHashTable *procs_by_key; /* "host:pid" -> struct nl_proc * */
	GPtrArray *procs;
	/* "host dev" -> the latest process that recorded on that GPU */
	GHashTable *procs_by_slot;
	/*
	 * The process life the input is in, bumped where a restart shows
	 * (torchrun restarts the workers, a host:pid starts a new life, a
	 * new process records on a GPU an earlier one did): what a line
	 * means only within one life (c10d's repeats of a timeout, the PG a
	 * sequence number is of) is scoped by it.  c10d_life: the life the
	 * c10d grammar's state is of (c10d-record.c).
	 */
	uint32_t life, c10d_life;
	GHashTable *streams_by_key;
	GPtrArray *streams;
	struct nl_stream *dflt;
	struct nl_proc *proc_cache[NL_PROC_CACHE];
	struct nl_prefix *prefix_cache; /* nl-prefix.c's */
	struct nl_prefix *last_prefix; /* nl_rec_prefix()'s entry, or NULL */
	const char *coll_stop; /* where the last COLL parse stopped */
	/* the COLL fast path (nl-coll.c, nl_coll_fast()): bumped when
	   a host:pid starts a new life, which makes every remembered
	   prefix's process stale */
	uint32_t proc_epoch;
	bool fill_fast; /* this record starts a raw line: remember it */
	bool no_fast; /* every line the long way (tests compare both) */
	uint64_t fast_lines; /* lines it read */
	struct nl_desc_memo *desc_memo; /* nl-coll.c's */
	struct nl_prefix **fast_quick; /* NL_FAST_QUICK of them */

	/* wrapper cache: the last wrapper bytes and their stream */
	char wrap_cache[128];
	size_t wrap_cache_len;
	struct nl_stream *wrap_stream;
	struct nl_wrap wrap_info;

	guint op_base, sig_base;
	GArray *sig_proc; /* int32_t proc index per signal, -1 none */
	GArray *sig_stream; /* uint32_t stream index per signal */
	GHashTable *dedup; /* signal key -> index + 1 */

	const char *bare_version;
	bool bare_version_conflict;
	bool warned_cut;
	bool waiting; /* some stream wants its next line */
	/* this input shows srun's task ids are its ranks (nl-attrib.c):
	   an srun task's exit is that rank's */
	bool srun_tasks_ranks;
	int cfe_lines; /* lines a ChildFailedError block may still span */
	/* RAS status report: inside a "#a-b (id) MISMATCH" entry */
	bool ras_open;
	const char *ras_op; /* interned op name of the entry, or NULL */
	struct nl_proc *torn_proc; /* a prefix with no body, last line */

	char *clean; /* ANSI-stripped copy of the line */
	GString *wrap; /* a held hard-wrapped record */
	uint64_t wrap_line;
	int wrap_count;

	/* crash output (crash-record.c): the fatal signal whose frames
	   are being read */
	int64_t crash_sig; /* signal index in the store, -1 none */
	int crash_left; /* lines the block may still span */
	int crash_style; /* enum nl_crash_style */
	bool crash_current; /* faulthandler: the current thread's frames */
	GArray *crash_frames; /* struct hd_frame, innermost first */

	const char *coll_names[16];
	/* torchrun's "will restart worker group" lines: what ended an
	   attempt, when one ends before them, and when the next began */
	GArray *restarts; /* struct nl_restart_line */

	/* c10d watchdog timeouts whose line names no PG (c10d-record.c):
	   a status line of the same rank and seq names it, else the one PG
	   the input shows at that seq, at end of input */
	GArray *pg_pending; /* int64_t signal index (from sig_base), -1 done */
	GHashTable *pg_waiting; /* "stream|rank|seq" -> its pg_pending slot */
	GHashTable *pg_at_seq; /* int64_t seq -> interned PG, or "" (two) */
	bool saw_pg; /* some timeout or status line names a PG and seq */
};

/* ------------------------------------------------------------------ */
/* Small scanners.                                                     */

/*
 * The scanners below run several times on every line.  They are forced
 * inline so that strlen() of their literal arguments folds to a constant
 * and the compares become a few loads.
 */
#define NL_INLINE static inline __attribute__((always_inline))

/*
 * memcmp(a, b, k) == 0 for a constant k: at most two overlapping word
 * compares once inlined, where GCC would call memcmp().
 */
NL_INLINE bool same(const char *a, const char *b, size_t k)
{
	uint64_t x, y;
	uint32_t u, v;

	if (k > 16)
		return memcmp(a, b, k) == 0;
	if (k >= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
		memcpy(&x, a + k - 8, 8);
		memcpy(&y, b + k - 8, 8);
		return x == y;
	}
	if (k >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return false;
		memcpy(&u, a + k - 4, 4);
		memcpy(&v, b + k - 4, 4);
		return u == v;
	}
	for (; k > 0; k--)
		if (*a++ != *b++)
			return false;
	return true;
}

/*
 * memmem() for this parser's short needles: memchr() (vectorized) for the
 * needle's first byte that is not a space, which is rare in log text,
 * then one compare.  glibc's memmem() walks every byte.
 */
NL_INLINE const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle), i = 0;
	const char *e = s + n, *q;

	if (k == 0 || k > n)
		return k == 0 ? s : NULL;
	while (i < k - 1 && needle[i] == ' ')
		i++;
	for (q = s + i; q < e && (q = memchr(q, needle[i], e - q)); q++) {
		const char *at = q - i;

		if ((size_t)(e - at) < k)
			return NULL;
		if (same(at, needle, k))
			return at;
	}
	return NULL;
}

NL_INLINE bool has(const char *s, size_t n, const char *needle)
{
	return find(s, n, needle) != NULL;
}

/* Whether s holds one of the k needles. */
NL_INLINE bool any_of(const char *s, size_t n, const char *const *needles,
		      size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (has(s, n, needles[i]))
			return true;
	return false;
}

NL_INLINE bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && same(s, prefix, k);
}

/* Parses decimal digits at *p (optional '-'); false if none. */
NL_INLINE bool scan_int(const char **p, const char *end, int64_t *out)
{
	const char *s = *p;
	bool neg = false;
	int64_t v = 0;
	int digits = 0;

	if (s < end && *s == '-') {
		neg = true;
		s++;
	}
	while (s < end && (unsigned)(*s - '0') < 10) {
		if (digits < 18)
			v = v * 10 + (*s - '0');
		digits++;
		s++;
	}
	if (!digits)
		return false;
	*out = neg ? -v : v;
	*p = s;
	return true;
}

/*
 * An op's process, until nl_attribute() gives the op its rank: the parser
 * keeps the process's index in procs in the op's rank (no array beside
 * the ops, which cost 4 bytes a COLL line).
 */
static inline guint nl_op_proc(const struct hd_op *op)
{
	g_assert(hd_op_rank(op) >= 0);
	return (guint)hd_op_rank(op);
}

static inline int64_t clamp_int(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* a * b, or -1 when either is unknown or the product overflows. */
static inline int64_t mul_or_unknown(int64_t a, int64_t b)
{
	int64_t r;

	if (a < 0 || b <= 0 || __builtin_mul_overflow(a, b, &r))
		return -1;
	return r;
}

/* A byte of a host name (not '.': callers decide). */
static inline bool is_host_char(char ch)
{
	return g_ascii_isalnum(ch) || ch == '-' || ch == '_';
}

/* Raises the NCCL version p's record format implies to at least code. */
static inline void fmt_min(struct nl_proc *p, int code)
{
	if (p && code > p->fmt_min)
		p->fmt_min = code;
}

/* Merges a rank hint: the first value stays, a different one is -2. */
static inline void hint_merge(int *slot, int v)
{
	if (v < 0 || *slot == -2)
		return;
	if (*slot == -1)
		*slot = v;
	else if (*slot != v)
		*slot = -2;
}

/* ------------------------------------------------------------------ */
/* Regex helpers.                                                      */

static inline bool rx(struct nl_ctx *c, enum nl_rx id, const char *s, size_t n)
{
	int rc = pcre2_match(nl_rx_code[id], (PCRE2_SPTR)s, n, 0, 0, c->md,
			     NULL);

	return rc > 0;
}

/* Capture i of the last match; false when it did not take part. */
static inline bool cap(struct nl_ctx *c, const char *s, int i, const char **p,
		       size_t *len)
{
	PCRE2_SIZE a = c->ov[2 * i], b = c->ov[2 * i + 1];

	if (a == PCRE2_UNSET || b < a)
		return false;
	*p = s + a;
	*len = b - a;
	return true;
}

static inline bool cap_int(struct nl_ctx *c, const char *s, int i, int64_t *v)
{
	const char *p;
	size_t len;

	if (!cap(c, s, i, &p, &len))
		return false;
	return scan_int(&p, p + len, v);
}

static inline const char *cap_intern(struct nl_ctx *c, const char *s, int i)
{
	const char *p;
	size_t len;

	if (!cap(c, s, i, &p, &len))
		return NULL;
	return hd_intern_len(p, len);
}

/* ------------------------------------------------------------------ */
/* Store helpers (nl-ctx.c).                                           */

/*
 * Adds sig (text: the record, cut to 1024 bytes) to the store, made by
 * process p (or NULL) in stream st, at the current line.
 */
void nl_add_signal(struct nl_ctx *c, struct hd_signal *sig, struct nl_proc *p,
		   struct nl_stream *st, const char *text, size_t text_len);

/* Counts the current line as skipped, with a warning that says why. */
void nl_skip(struct nl_ctx *c, const char *why);

/* The stream the hints of a wrapper name.  (transfer none) */
struct nl_stream *nl_stream_for(struct nl_ctx *c, const struct nl_wrap *w);

/*
 * The stream of records pasted without a prefix: no process is ever
 * attributed to it.  (transfer none)
 */
struct nl_stream *nl_stream_bare(struct nl_ctx *c);

/*
 * torchrun's agent said it restarts the workers at line `line`, at `time`
 * (its own date, hd_time_none() when it has none).  Attempts
 * are decided per process at end of input (a new process where one of the
 * same stream, host and rank was before); this says why one ended, and
 * starts a new process life (nl_ctx.life).
 */
void nl_restart(struct nl_ctx *c, uint64_t line, struct hd_time time);

/*
 * Sets the category, type, peer and code of a WARN (or Last error) text
 * (nl-warn.c, a table of rules).
 */
void nl_classify_warn(struct nl_ctx *c, const char *m, size_t n,
		      struct hd_signal *sig, struct nl_proc *p);

/* Sets up c's streams and its default stream (c->dflt). */
void nl_streams_init(struct nl_ctx *c);
/* Frees what nl_streams_init() set up. */
void nl_streams_clear(struct nl_ctx *c);

#endif
