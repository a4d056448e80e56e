/*
 * The common event store: every parser writes into it, the engine reads it.
 *
 * Ownership: the store owns everything reachable from it.  Strings held in
 * ops, signals, ranks and frames are interned (hd_intern()) and live while
 * any store does (the intern tables are freed with the last store);
 * strings held in inputs, groups, signal texts and warnings
 * are owned by the store and freed with it.
 *
 * A parser fills a store of its own for one input (see parsers/parsers.h);
 * the caller merges those per-input stores into one with hd_store_merge(),
 * in command-line order, so the result does not depend on thread timing.
 */
#ifndef HD_STORE_H
#define HD_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-time.h"

struct hd_store;

/* At most this many warnings are kept per input; the rest are counted. */
#define HD_INPUT_MAX_WARNINGS 20

/*
 * What the layers below the parsers need to know of an input kind, beyond
 * its name: each kind's line in HD_INPUT_KINDS says which apply.
 */
enum hd_input_kind_flags {
	HD_KIND_NONE = 0,
	/*
	 * what on-call collects from a host (kernel log, InfiniBand and GPU
	 * state): joined to ranks by host, pid, bus id or port (hd-host-join.c)
	 */
	HD_KIND_HOST_STATE = 1 << 0,
	/*
	 * its signals name a pid and no rank: hd_store_resolve() gives them
	 * the rank of the one rank whose process had that pid
	 */
	HD_KIND_RANK_BY_PID = 1 << 1,
};

/*
 * The input kinds, one line each: the enum name, the name in reports and in
 * the JSON schema's kind enum, what inputs of the kind are called in
 * prose, and its enum hd_input_kind_flags.  A new kind is a line here plus
 * its entry in the parser registry (parsers/parsers.c), which names its
 * parser; nothing else in core, the engine or the reports lists kinds.
 * UNKNOWN stays first (0: not sniffed yet, or not ours).
 */
#define HD_INPUT_KINDS(X)                                                     \
	X(UNKNOWN, "unknown", "inputs", HD_KIND_NONE)                         \
	/* NCCL_DEBUG and/or PyTorch c10d text */                             \
	X(NCCL_LOG, "nccl_log", "NCCL and c10d logs", HD_KIND_NONE)           \
	/* flight-recorder dump, pickle or JSON */                            \
	X(FLIGHT_REC, "flight_recorder", "flight-recorder dumps",             \
	  HD_KIND_NONE)                                                       \
	/* profiler Chrome trace */                                           \
	X(KINETO, "kineto_trace", "profiler traces", HD_KIND_NONE)            \
	/* dmesg, dmesg -T, journalctl -k (issue 21) */                       \
	X(KERNEL_LOG, "kernel_log", "kernel logs", HD_KIND_HOST_STATE)        \
	/* ibstat, ibstatus, ibv_devinfo, perfquery (issue 21) */             \
	X(IB_STATE, "ib_state", "InfiniBand port states", HD_KIND_HOST_STATE) \
	/* nvidia-smi -q, or its failure (issue 21) */                        \
	X(GPU_STATE, "gpu_state", "GPU states", HD_KIND_HOST_STATE)           \
	/* py-spy dump of a live process, text or --json */                   \
	X(PYSPY, "pyspy_dump", "py-spy dumps", HD_KIND_NONE)                  \
	/* hangdoc digest of other inputs (docs/format-digest.md);         \
	   only a digest that cannot be read keeps this kind */  \
	X(DIGEST, "digest", "hangdoc digests", HD_KIND_NONE)                  \
	/* gdb thread apply all bt, live or core (issue 21) */                \
	X(GDB, "gdb_backtrace", "gdb backtraces", HD_KIND_RANK_BY_PID)        \
	/* TORCHELASTIC_ERROR_FILE JSON (issue 21) */                         \
	X(TORCHELASTIC, "torchelastic_error", "torchelastic error files",     \
	  HD_KIND_NONE)                                                       \
	/* NCCL_TOPO_DUMP_FILE XML (issue 21) */                              \
	X(NCCL_TOPO, "nccl_topology", "NCCL topology dumps", HD_KIND_NONE)    \
	/* NCCL Inspector profiler plugin JSON (issue 21) */                  \
	X(NCCL_INSPECTOR, "nccl_inspector", "NCCL Inspector outputs",         \
	  HD_KIND_NONE)

/* clang-format off */
enum hd_input_kind {
#define HD_INPUT_KIND_ENUM(id, name, words, flags) HD_INPUT_##id,
	HD_INPUT_KINDS(HD_INPUT_KIND_ENUM)
#undef HD_INPUT_KIND_ENUM
	HD_INPUT_KIND_COUNT
};
/* clang-format on */

/*
 * The op index packs an op's source kind into this many bits of a lane key
 * (src/engine/hd-index.c): room for 64 kinds.
 */
#define HD_INPUT_KIND_BITS 6
_Static_assert(HD_INPUT_KIND_COUNT <= (1 << HD_INPUT_KIND_BITS),
	       "input kinds must fit in HD_INPUT_KIND_BITS");

struct hd_input {
	char *path; /* as given on the command line (or found below it) */
	enum hd_input_kind kind;
	int rank; /* global rank the whole input belongs to, or -1 */
	uint64_t bytes; /* bytes read, after decompression */
	uint64_t records;
	uint64_t skipped;
	uint64_t nwarnings; /* all warnings, kept or not */
	GPtrArray *warnings; /* char *, "line N: text", first few only */
	bool truncated; /* input ended early (cut file, no STOP, ...) */
	bool empty; /* well-formed but holds nothing (empty FR dump) */
	char *error; /* why the input could not be read at all */
	/* the file as stored (compressed or not), when the loader was asked
	   to describe it (hd_load()): its size in bytes, -1 unknown, the
	   XXH3-128 of its bytes (fast, not cryptographic) and, asked for,
	   their SHA-256, in lowercase hex, or NULL */
	int64_t file_size;
	char *xxh3_128;
	char *sha256;
	/* the file's device and inode (for -o), 0 when unknown */
	uint64_t dev, ino;
	/* what the loader knows its content by (hd_digest: XXH3-64 and
	   length of the decoded bytes) when it was the first input with
	   that content; 0 otherwise.  Kept in digests, so that copies
	   across them are found as among raw inputs. */
	uint64_t content_hash, content_length;
	/*
	 * Job attempts (issue 14): a log that holds a run and the restarts
	 * after it, as struct hd_attempt in order; NULL when the input is one
	 * attempt.  attempt is the one kept for analysis, from 1.  Attempts
	 * are per process: a record says its own (hd_prov.attempt), and an
	 * attempt's lines are the span of its processes' lines (attempts of
	 * concatenated logs overlap).
	 */
	GArray *attempts;
	uint32_t attempt;
	/*
	 * Attempts per process life across files (hd_store_keep_attempt()):
	 * the job's attempt number of this input's attempt k is k +
	 * attempt_shift, where a comm it shares with other logs ties its
	 * numbering to theirs (a rotated log's newer file), else 0; and
	 * attempt_none when the analyzed attempt is none of its own (a log
	 * cut before the restart), so every record of it was dropped.
	 */
	int32_t attempt_shift;
	bool attempt_none;
	/* the clock (enum hd_clock) of the times of its ops: one per input
	   (a dump's are UTC, a trace's UTC or trace-relative); NONE when its
	   ops carry no time.  Signals carry their own (hd_signal.time). */
	uint8_t op_clock;
	/* its records are another incident's (hd_store_keep_incident()):
	   dropped, error says why, and it describes no rank of this one */
	bool other_incident;
};

/* One attempt of a job in a text input: the span of its lines. */
struct hd_attempt {
	uint64_t first_line, last_line;
	/* static: what ended it ("a torchrun restart"), NULL for the last */
	const char *end;
	/* when it began at the latest: the date of torchrun's restart line
	   before it, or hd_time_none() (hd_store_keep_attempt() places a log
	   of one attempt by it) */
	struct hd_time begun;
	/* what it held, counted when another attempt is kept
	   (hd_store_keep_attempt()): ops, error and timeout signals, and
	   the first of those signals' text (owned), or NULL */
	uint32_t ops, trouble;
	char *first_trouble;
};

/* Where a record came from. */
enum hd_prov_kind {
	HD_PROV_NONE = 0,
	HD_PROV_LINE, /* text line number, from 1 */
	HD_PROV_RECORD, /* record index in the input (FR entry, trace event) */
	HD_PROV_OFFSET, /* byte offset in the (decompressed) input */
};

struct hd_prov {
	uint32_t input; /* index into store->inputs */
	uint16_t kind; /* enum hd_prov_kind */
	/* the job attempt of its input the record belongs to, from 1; 0:
	   by its line (hd_attempt.first_line), or the input has one */
	uint16_t attempt;
	uint64_t at;
};

struct hd_rank {
	int rank;
	const char *host; /* interned, or NULL */
	const char *addr; /* interned IP NCCL bootstraps on ("10.1.0.5"), or
			     NULL: how peers name this host in network errors */
	int pid; /* 0 when unknown */
	int cuda_dev; /* -1 when unknown */
	const char *bus_id;
	const char *nccl_version;
	const char *torch_version;
	GArray *inputs; /* uint32_t input indices describing this rank */
};

/*
 * A member list shared by the groups of many stores: every rank's dump
 * repeats the world group, as long as the job, so a parser makes the list
 * once (flight-rec.c interns it by its raw bytes) and each group points at
 * it.  Immutable once made; refcounted.
 */
struct hd_members {
	GArray *ranks; /* int: global rank by group rank, -1 unknown; never
			  changed */
	int *sorted; /* the ranks >= 0, ascending, duplicates kept */
	uint32_t nsorted;
	uint32_t nknown; /* ranks >= 0 */
	bool bounded; /* every rank in [-1, HD_MAX_RANKS) */
	gatomicrefcount ref;
};

/* A list of n ranks (copied).  (transfer full) */
struct hd_members *hd_members_new(const int *ranks, size_t n);
struct hd_members *hd_members_ref(struct hd_members *m);
void hd_members_unref(struct hd_members *m);
typedef struct hd_members hd_members; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_members, hd_members_unref)
/* Whether rank is in m, in O(log n). */
bool hd_members_contains(const struct hd_members *m, int rank);

struct hd_group {
	char *id; /* cross-rank identity, see hd_group_id_*() */
	char *name; /* PG name / NCCL comm label, or NULL */
	char *desc; /* PG description, or NULL */
	uint64_t comm_id;
	bool has_comm_id;
	int nranks; /* -1 when unknown */
	GArray *members; /* int: global rank by group rank, -1 unknown */
	/* while non-NULL, members is shared->ranks: read it, never write it
	   (hd_group_set_member() makes a copy of its own first) */
	struct hd_members *shared;
	bool low_confidence_identity; /* grouped by heuristics only */
	/* members known, and those refused by hd_group_set_member() as
	   claims past what is known (HD_CLAIM_FREE) */
	uint32_t nknown, members_refused;
};

enum hd_op_kind {
	HD_OP_UNKNOWN = 0,
	HD_OP_ALL_REDUCE,
	HD_OP_ALL_GATHER,
	HD_OP_REDUCE_SCATTER,
	HD_OP_BROADCAST,
	HD_OP_REDUCE,
	HD_OP_ALL_TO_ALL,
	HD_OP_GATHER,
	HD_OP_SCATTER,
	HD_OP_SEND,
	HD_OP_RECV,
	HD_OP_BARRIER,
	HD_OP_COALESCED,
	HD_OP_KIND_COUNT
};

/* Point-to-point: a send or a recv, whose peer is hd_op_desc(op)->peer. */
static inline bool hd_op_kind_is_p2p(enum hd_op_kind kind)
{
	return kind == HD_OP_SEND || kind == HD_OP_RECV;
}

/* A collective with a root, which hd_op_desc(op)->peer holds. */
static inline bool hd_op_kind_is_rooted(enum hd_op_kind kind)
{
	return kind == HD_OP_BROADCAST || kind == HD_OP_REDUCE ||
	       kind == HD_OP_GATHER || kind == HD_OP_SCATTER;
}

/* A collective that takes a reduction op (hd_op_desc(op)->redop). */
static inline bool hd_op_kind_is_reduction(enum hd_op_kind kind)
{
	return kind == HD_OP_ALL_REDUCE || kind == HD_OP_REDUCE ||
	       kind == HD_OP_REDUCE_SCATTER;
}

enum hd_op_state {
	HD_STATE_UNKNOWN = 0,
	HD_STATE_ENQUEUED, /* FR "scheduled", an NCCL COLL line */
	HD_STATE_STARTED,
	HD_STATE_COMPLETED,
};

/* How op->seq was obtained, which decides what it can be compared with. */
enum hd_seq_kind {
	HD_SEQ_COLLECTIVE =
		0, /* FR collective_seq_id, trace Seq, c10d SeqNum */
	HD_SEQ_P2P, /* FR p2p_seq_id, trace Seq of a p2p op */
	HD_SEQ_ORDINAL, /* position of the op in this rank's stream */
};

enum hd_dtype {
	HD_DTYPE_UNKNOWN = 0,
	HD_DTYPE_INT8,
	HD_DTYPE_UINT8,
	HD_DTYPE_INT32,
	HD_DTYPE_UINT32,
	HD_DTYPE_INT64,
	HD_DTYPE_UINT64,
	HD_DTYPE_FLOAT16,
	HD_DTYPE_FLOAT32,
	HD_DTYPE_FLOAT64,
	HD_DTYPE_BFLOAT16,
	HD_DTYPE_FP8_E4M3,
	HD_DTYPE_FP8_E5M2,
	HD_DTYPE_BOOL,
	HD_DTYPE_INT16,
	HD_DTYPE_OTHER, /* a named type outside this list: see hd_op_desc(op)->dtype_name */
};

enum hd_redop {
	HD_REDOP_NONE = 0, /* not a reduction, or unknown */
	HD_REDOP_SUM,
	HD_REDOP_PROD,
	HD_REDOP_MAX,
	HD_REDOP_MIN,
	HD_REDOP_AVG,
	HD_REDOP_PREMULSUM, /* NCCL op >= 5: one class, never compared by slot */
};

enum hd_op_flags {
	HD_OPF_COALESCED_MEMBER = 1 << 0, /* inside a coalesced group */
	HD_OPF_RETIRED = 1 << 1, /* FR retired */
	HD_OPF_TRUNCATED = 1 << 2, /* record was cut (1024-byte limit) */
	HD_OPF_ANY_SOURCE = 1 << 3, /* recv from any peer */
};

/*
 * What an op moves and how: everything about an op that is not where or
 * when it ran.  Ranks of a collective share one, and a training loop
 * repeats a handful, so descriptors are interned (hd_opdesc_intern()) and
 * an op holds a pointer: equal pointers mean equal descriptors.  They
 * live while any store does, like interned strings.
 */
struct hd_opdesc {
	int64_t count_in; /* elements sent by this rank, -1 unknown */
	int64_t count_out; /* elements received by this rank, -1 unknown */
	const char *shape_in; /* interned "[[4, 4]]", or NULL */
	const char *shape_out; /* interned */
	const char *dtype_name; /* interned source spelling, or NULL */
	const char *name; /* interned source name ("nccl:all_reduce") */
	int32_t peer; /* root (rooted collectives) or peer (p2p), as a group
			 rank; -1 unknown or none */
	uint8_t dtype; /* enum hd_dtype */
	uint8_t redop; /* enum hd_redop */
	uint8_t pad[2]; /* cleared by hd_opdesc_intern(): hashed whole */
	uint32_t id; /* what an op holds (hd_op_desc()); not hashed */
};

/*
 * Interned descriptors by id: slab id >> HD_DESC_SLAB_BITS, entry id &
 * HD_DESC_SLAB_MASK.  Slab 0 is the blank alone (id 0).  Written under
 * the table's lock before an id is handed out; read by hd_op_desc().
 */
#define HD_DESC_SLAB_BITS 16
#define HD_DESC_SLAB_MASK ((UINT32_C(1) << HD_DESC_SLAB_BITS) - 1)
#define HD_DESC_SLABS	  (1u << 15)
extern const struct hd_opdesc *hd_opdesc_slabs[HD_DESC_SLABS];

/* Unknown counts, peer and names: what hd_op_init() points at. */
extern const struct hd_opdesc hd_opdesc_blank;

/*
 * Returns the interned copy of d (pad is cleared first).  Thread-safe; a
 * per-thread cache answers repeats without the lock.  (transfer none)
 */
const struct hd_opdesc *hd_opdesc_intern(const struct hd_opdesc *d);

/*
 * What few ops carry beside the op itself: the three times (NCCL COLL
 * lines carry none), a stack, and the high half of a provenance past 32
 * bits.  This is the decoded view (hd_op_extra()); the store keeps it
 * coded in struct hd_op_xrec records, only for the ops that have any of
 * it.
 */
struct hd_op_extra {
	/* INT64_MIN when unknown; on the clock of the op's input
	   (hd_input.op_clock, hd_op_time()) */
	int64_t t_enqueue_ns;
	int64_t t_start_ns;
	int64_t t_end_ns;
	int32_t stack; /* index into store->stacks, -1 none */
	uint32_t at_high; /* hd_prov.at >> 32 */
};

/*
 * One record of hd_store.op_extra, 20 bytes: an op's struct hd_op_extra
 * coded narrow in one record, or wide in two that follow each other.
 *
 * Narrow (d_end is no HD_XREC_WIDE, at_high is 0): base is t_enqueue_ns
 * (INT64_MIN unknown), and a delta d in [1, HD_XREC_D_LAST] gives a time
 * of base + (d - 1), 0 an unknown one: d_start the start's, d_end the
 * end's.  Two values of d_start say the enqueue is unknown: with
 * HD_XREC_START_BASE the start is base and d_end is the end's delta
 * from it; with HD_XREC_END_BASE the start is unknown too and the end
 * is base (d_end 0).  All three unknown: base INT64_MIN, both deltas 0.
 * A flight-recorder op (enqueued, ended within 4 s) fits.
 *
 * Wide (whatever does not fit: an end or start before the enqueue, a
 * delta past HD_XREC_D_LAST, an at_high): the first record has d_end
 * HD_XREC_WIDE, base the enqueue, d_start at_high and the stack; the
 * second has base the start, d_start and d_end the low and high halves
 * of the end, and stack -1, so a pass over every record's stack (the
 * merge's remap) sees no stack in it.
 *
 * An op whose opCount does not fit the op (HD_OP_COUNT_WIDE) takes one
 * more record right after its one or two, whose base holds the opCount
 * (deltas 0, stack -1).  Records of an op that moved (to make room for
 * more of them at the array's end) stay behind, of no op.
 */
struct hd_op_xrec {
	uint32_t base_lo, base_hi;
	uint32_t d_start, d_end;
	int32_t stack; /* index into store->stacks, -1 none */
};

/* The last delta of a narrow record: UINT32_MAX - 3 ns past the base. */
#define HD_XREC_D_LAST (UINT32_MAX - 2)
/* d_start: the enqueue is unknown and the start is base */
#define HD_XREC_START_BASE UINT32_MAX
/* d_start: the enqueue and start are unknown and the end is base */
#define HD_XREC_END_BASE (UINT32_MAX - 1)
/* d_end: the first record of a wide pair */
#define HD_XREC_WIDE UINT32_MAX

/* An opCount the op holds itself: in [0, HD_OP_COUNT_WIDE). */
#define HD_OP_COUNT_WIDE UINT32_MAX
/* Attempts an op can say (hd_prov.attempt): 15 bits. */
#define HD_MAX_ATTEMPT 32767

/*
 * What input may claim: no job has more ranks than HD_MAX_RANKS, and no
 * sequence counter runs past HD_MAX_SEQ.  An input names at most
 * HD_MAX_RANKS processes of unknown rank (hd_op_anon()).  The op's
 * fields are sized by them: a value the bounds refuse is still held as
 * one out of range (HD_SEQ_OUT, HD_WHO_OUT), so the bounds pass
 * (hd_store_bound()) drops the op and says so rather than reading a
 * value cut to the field's width.
 */
#define HD_MAX_RANKS (1 << 22)
#define HD_MAX_SEQ   (INT64_C(1) << 38)
#define HD_SEQ_BITS  40
#define HD_WHO_BITS  24
#define HD_SEQ_OUT   (HD_MAX_SEQ + 1)
#define HD_WHO_OUT   HD_MAX_RANKS
_Static_assert(HD_SEQ_OUT < (INT64_C(1) << (HD_SEQ_BITS - 1)),
	       "a sequence number out of range still fits the op");
_Static_assert(HD_WHO_OUT < (1 << (HD_WHO_BITS - 1)),
	       "a rank out of range still fits the op");

/*
 * One collective or p2p call on one rank.  Value type, in the store's op
 * array: there is one per op of the input, hundreds of millions of them
 * at 131,072 ranks, so it is packed into 32 bytes.  seq, group, input,
 * kind, state, seq_kind and flags are plain fields (seq written through
 * hd_op_set_seq()), the descriptor an id (hd_op_desc()); the rest is read and
 * written only through the accessors below (hd_op_rank(), hd_op_prov(),
 * hd_op_op_count(), hd_op_t_end(), hd_op_stack(), ...), which find what
 * does not fit in the store's side table (struct hd_op_xrec).  Parsers
 * that build an op before storing it fill a struct hd_op_rec and hand it
 * to hd_store_add_op(); hot ones fill one in place from
 * hd_store_new_op() with the setters.
 */
struct hd_op {
	/* position in the group's sequence on this rank, -1 none; written
	   through hd_op_set_seq(), which keeps what the field cannot hold
	   out of range (HD_MAX_SEQ) */
	int64_t seq : HD_SEQ_BITS;
	uint64_t attempt : 15; /* hd_prov.attempt */
	uint64_t count_wide : 1; /* opCount in an extra record of its own */
	uint64_t kind : 4; /* enum hd_op_kind */
	uint64_t state : 2; /* enum hd_op_state */
	uint64_t seq_kind : 2; /* enum hd_seq_kind */
	uint32_t desc; /* hd_op_desc(): the id of its interned descriptor */
	uint32_t group; /* index into store->groups */
	uint32_t input; /* index into store->inputs: where it was read */
	/* hd_op_rank(): a global rank, -1 unknown; or, with anon set
	   (hd_op_anon()), which process of unknown rank of its input
	   (from 0), named by the HD_SIGT_ANON_PROC signal of the same input
	   and index (NCCL logs, issue 11).  Written by hd_op_set_rank() and
	   hd_op_set_anon(), which keep what the field cannot hold out of
	   range (HD_MAX_RANKS). */
	int32_t who : HD_WHO_BITS;
	uint32_t flags : 4; /* enum hd_op_flags */
	uint32_t anon : 1; /* who is a process of unknown rank */
	uint32_t has_extra : 1;
	uint32_t prov_kind : 2; /* enum hd_prov_kind */
	/* hd_prov.at's low 32 bits (the high ones in the extra record) */
	uint32_t at_low;
	/* with has_extra: the index of its first extra record in
	   store->op_extra (struct hd_op_xrec); else its opCount,
	   HD_OP_COUNT_WIDE when it has none (hd_op_op_count()) */
	uint32_t slot;
};

/*
 * An op with every field at full width, for parsers that build ops
 * before they store them: op's plain fields and its rank
 * (hd_op_set_rank(&rec.op, r)) as in the store, the rest here.
 * hd_op_rec_init() sets the defaults; hd_store_add_op() packs it.
 */
struct hd_op_rec {
	struct hd_op op;
	int64_t op_count; /* NCCL opCount, -1 when absent */
	int64_t t_enqueue_ns; /* INT64_MIN when unknown */
	int64_t t_start_ns;
	int64_t t_end_ns;
	int32_t stack; /* -1 none */
	struct hd_prov prov; /* prov.input is the op's input */
};

/* The extra record of an op without one: no times, no stack. */
extern const struct hd_op_extra hd_op_extra_blank;

/* op's extra record decoded, hd_op_extra_blank when it has none. */
static inline struct hd_op_extra hd_op_extra(const struct hd_store *s,
					     const struct hd_op *op);

/* The global rank of op, -1 when unknown (a process of unknown rank too). */
static inline int32_t hd_op_rank(const struct hd_op *op)
{
	return op->anon ? -1 : op->who;
}

/* op's descriptor.  (transfer none) */
static inline const struct hd_opdesc *hd_op_desc(const struct hd_op *op)
{
	return &hd_opdesc_slabs[op->desc >> HD_DESC_SLAB_BITS]
			       [op->desc & HD_DESC_SLAB_MASK];
}

/* Gives op the interned descriptor d (hd_opdesc_intern()). */
static inline void hd_op_set_desc(struct hd_op *op, const struct hd_opdesc *d)
{
	op->desc = d->id;
}

/*
 * Sets op's position; one past HD_MAX_SEQ either way is kept as
 * HD_SEQ_OUT or -HD_MAX_SEQ, which the bounds pass refuses.
 */
static inline void hd_op_set_seq(struct hd_op *op, int64_t seq)
{
	op->seq = seq > HD_MAX_SEQ    ? HD_SEQ_OUT
		  : seq < -HD_MAX_SEQ ? -HD_MAX_SEQ
				      : seq;
}

/* Whether op is of a process of unknown rank (hd_op_anon()). */
static inline bool hd_op_is_anon(const struct hd_op *op)
{
	return op->anon;
}

/*
 * Which process of unknown rank of its input op is, from 0 (the
 * HD_SIGT_ANON_PROC signal of the same input and index names it), or -1
 * when op is not of one.
 */
static inline int32_t hd_op_anon(const struct hd_op *op)
{
	return op->anon ? op->who : -1;
}

/* Gives op a global rank (-1: unknown). */
static inline void hd_op_set_rank(struct hd_op *op, int32_t rank)
{
	/* past the field: out of range, for the bounds pass to refuse */
	op->who = rank >= HD_MAX_RANKS	 ? HD_WHO_OUT
		  : rank < -HD_MAX_RANKS ? -HD_MAX_RANKS
					 : rank;
	op->anon = 0;
}

/* Makes op one of the index-th process of unknown rank of its input. */
static inline void hd_op_set_anon(struct hd_op *op, int32_t index)
{
	g_assert(index >= 0);
	op->who = index >= HD_MAX_RANKS ? HD_WHO_OUT : index;
	op->anon = 1;
}

/* Where op was read, as a struct hd_prov. */
static inline struct hd_prov hd_op_prov(const struct hd_store *s,
					const struct hd_op *op);
/* op's NCCL opCount, -1 when absent. */
static inline int64_t hd_op_op_count(const struct hd_store *s,
				     const struct hd_op *op);

/* The index-th record of s->op_extra.  (transfer none) */
static inline const struct hd_op_xrec *hd_op_xrec_at(const struct hd_store *s,
						     uint32_t index);

/* op's times (INT64_MIN unknown), on the clock of its input. */
static inline int64_t hd_op_t_enqueue(const struct hd_store *s,
				      const struct hd_op *op);
static inline int64_t hd_op_t_start(const struct hd_store *s,
				    const struct hd_op *op);
static inline int64_t hd_op_t_end(const struct hd_store *s,
				  const struct hd_op *op);

/*
 * Whether op has an extra record: without one it has no time and no
 * stack, so a pass over times can skip it (NCCL COLL ops never have one).
 */
static inline bool hd_op_has_extra(const struct hd_op *op)
{
	return op->has_extra;
}

/* op's stack, an index into store->stacks, or -1. */
static inline int32_t hd_op_stack(const struct hd_store *s,
				  const struct hd_op *op)
{
	if (!op->has_extra)
		return -1;
	/* the first record's, narrow or wide */
	return hd_op_xrec_at(s, op->slot)->stack;
}

/*
 * The setters of what may live in the extra record.  op is in s's op
 * array (or a struct hd_op_rec's op, for hd_op_set_rank() only); a
 * setter may add extra records, never moves the ops.
 */
void hd_op_set_times(struct hd_store *s, struct hd_op *op, int64_t enqueue,
		     int64_t start, int64_t end);
void hd_op_set_stack(struct hd_store *s, struct hd_op *op, int32_t stack);
void hd_op_set_op_count(struct hd_store *s, struct hd_op *op, int64_t op_count);
/* Sets op's input, attempt (at most HD_MAX_ATTEMPT), kind and at. */
void hd_op_set_prov(struct hd_store *s, struct hd_op *op,
		    const struct hd_prov *prov);

struct hd_frame {
	const char *name; /* interned function name */
	const char *file; /* interned */
	int line;
};

enum hd_signal_cat {
	HD_SIG_NETWORK = 0,
	HD_SIG_CUDA,
	HD_SIG_NCCL_INTERNAL,
	HD_SIG_TIMEOUT,
	HD_SIG_CRASH,
	HD_SIG_INIT,
	HD_SIG_CONFIG,
	HD_SIG_MISMATCH,
	HD_SIG_PROGRESS, /* not an error: a rank's progress report */
	HD_SIG_INFO, /* context only (dump signals, heartbeat after timeout) */
	HD_SIG_CAT_COUNT
};

/*
 * What a signal says, more precisely than its category: the signal
 * types, one line each: the enum name and the type's name in
 * reports (show, the Perfetto trace).  A new type is a line here; what
 * its seq, code and text mean is said in its comment and read through
 * the accessors below.  OTHER stays first.
 */
#define HD_SIGNAL_TYPES(X)                                                \
	X(OTHER, "other")                                                 \
	/* c10d: op S timed out (seq, op_name, numel) */                  \
	X(WATCHDOG_TIMEOUT, "watchdog_timeout")                           \
	/* c10d: last enqueued E / completed C */                         \
	X(PG_STATUS, "pg_status")                                         \
	/* NET/IB completion error (ib_status) */                         \
	X(IB_COMPLETION, "ib_completion")                                 \
	/* NET/IB async event */                                          \
	X(IB_ASYNC, "ib_async")                                           \
	/* socket error talking to peer */                                \
	X(SOCKET, "socket")                                               \
	/* connection closed by remote peer */                            \
	X(PEER_CLOSED, "peer_closed")                                     \
	X(CUDA_ERROR, "cuda_error")                                       \
	X(OOM, "oom")                                                     \
	/* "NCCL error in:" with Last error */                            \
	X(NCCL_ERROR, "nccl_error")                                       \
	X(COMM_ABORTED, "comm_aborted")                                   \
	X(DUPLICATE_GPU, "duplicate_gpu")                                 \
	X(SHM, "shm")                                                     \
	X(BOOTSTRAP, "bootstrap")                                         \
	/* torchrun: exitcode, signal */                                  \
	X(PROCESS_EXIT, "process_exit")                                   \
	/* Python exception */                                            \
	X(TRACEBACK, "traceback")                                         \
	/* watchdog stuck / heartbeat monitor */                          \
	X(HEARTBEAT, "heartbeat")                                         \
	/* FR dump signal / path */                                       \
	X(DUMP, "dump")                                                   \
	/* TORCH_NCCL_DESYNC_DEBUG's own conclusion */                    \
	X(DESYNC_REPORT, "desync_report")                                 \
	/* NCCL "-> N" error unwind */                                    \
	X(UNWIND, "unwind")                                               \
	X(RAS, "ras")                                                     \
	/* NCCL saw a truncated/oversized message */                      \
	X(SIZE_MISMATCH, "size_mismatch")                                 \
	/* c10d (issue 11) */                                             \
	/* ProcessGroupWrapper: one rank's fingerprint (seq, op_name, \
	   numel, dtype_name); peer_rank the rank it was compared with */   \
	X(COLL_MISMATCH, "coll_mismatch")                                 \
	/* c10d: the TCPStore went away mid-run */                        \
	X(STORE_LOST, "store_lost")                                       \
	/* another tool's conclusion naming ranks (desync report, \
	   fr_trace, monitoredBarrier): seq, op_name, the ranks in \
	   text */       \
	X(RANKS_NAMED, "ranks_named")                                     \
	/* NCCL side (issue 11) */                                        \
	/* "Mismatched collective detected" (peer_rank: the rank NCCL \
	   points at, a hint) */   \
	X(NCCL_COLL_MISMATCH, "nccl_coll_mismatch")                       \
	/* the network a process chose ("Using network IB"; text), or \
	   lost ("Failed to open libibverbs") */   \
	X(TRANSPORT, "transport")                                         \
	/* "Socket recv failed while polling": the local proxy thread \
	   is gone */   \
	X(PROXY_DIED, "proxy_died")                                       \
	/* RAS status: N ranks launched up to op K (seq K, code N); or \
	   one rank it lists (peer_rank, seq -1) */  \
	X(RAS_MISMATCH, "ras_mismatch")                                   \
	/* nccl-tests "Test NCCL failure" */                              \
	X(TEST_FAILURE, "test_failure")                                   \
	/* a process of unknown rank whose ops were kept:               \
	   hd_signal_anon_proc() = their hd_op_anon(), rank -1, host,   \
	   pid, code = its device (-1 unknown), seq = its ops */ \
	X(ANON_PROC, "anonymous_process")                                 \
	/* kernel logs (issue 21): host from the content or the file \
	   name */    \
	/* NVRM Xid: code = the Xid, device = the GPU's PCI bus id \
	   ("0000:38:00"), pid when printed */      \
	X(XID, "xid")                                                     \
	/* the kernel's OOM killer: pid, op_name = the killed \
	   process's name, code = enum hd_oom_cgroup */           \
	X(HOST_OOM, "host_oom_kill")                                      \
	/* an HCA port's link went down (code 0) or came up (code 1), \
	   or is neither (2, ib_state): device = "mlx5_0:1" */   \
	X(LINK_EVENT, "link_event")                                       \
	/* perfquery: code = error counters above 0, text names them; \
	   device when known */   \
	X(IB_COUNTERS, "ib_counters")                                     \
	/* NCCL "NET/IB : Using [0]mlx5_0:1/IB ...": the HCA ports a \
	   process uses (text) */    \
	X(NET_DEVICES, "net_devices")                                     \
	/* nvidia-smi -q, nvidia-smi's failures, the kernel's PCIe \
	   and init errors: one GPU, device = its bus id (NULL: the \
	   host's), code = enum hd_gpu_problem bits */      \
	X(GPU_STATE, "gpu_state")                                         \
	/* crash output (ev-a): a process's last words */                 \
	/* a fatal signal's handler (UCX "Caught signal", Python \
	   faulthandler): code = the signal number, stack = its frames */        \
	X(FATAL_SIGNAL, "fatal_signal")                                   \
	/* one thread of a py-spy dump: pid, code = thread id, text \
	   its header, stack = where it is now */     \
	X(PYSPY_THREAD, "pyspy_thread")                                   \
	/* issue 21 (ev-more) */                                          \
	/* one thread of a gdb backtrace: pid, code = its LWP, text \
	   its header, stack its frames */     \
	X(GDB_THREAD, "gdb_thread")                                       \
	/* NCCL Inspector, one comm and rank: group_name = comm id, \
	   seq = the last coll_sn, op_name its collective, code = \
	   records, numel_in/out = max/mean exec us */     \
	X(COLL_TIMING, "coll_timing")                                     \
	/* an NCCL WARN that reports the environment, not a failure \
	   ("Missing \"iommu=pt\"", NUMA balancing, a net plugin not \
	   loaded, NVML "Not Supported"), an event of an IB port that \
	   works ("GID table changed", "port active"), or a CUDA error \
	   of a process that exits ("driver shutting down"): context, \
	   code = enum hd_advice, text the line */     \
	X(ADVISORY, "advisory")                                           \
	/* an NCCL WARN no rule knows whose text names an error or a \
	   failure ("unhandled system error", "... failed"): trouble \
	   of no known kind, which a clean end never makes benign */    \
	X(WARN_ERROR, "warn_error")                                       \
	/* the CUDA driver could not be loaded or used: libcuda not \
	   found or a stub, too old for the runtime, not initialised \
	   (NCCL's cudawrap WARNs, a driver-class "Cuda failure"); code \
	   = the cudaError_t of "Cuda failure N", 0 none */     \
	X(CUDA_DRIVER, "cuda_driver")                                     \
	/* Slurm lost a node of the job ("srun: error: Node failure on \
	   HOST"): host the node; its tasks ended with no exit of their \
	   own, and which ranks they were the line does not say */  \
	X(NODE_FAILURE, "node_failure")

/* clang-format off */
enum hd_signal_type {
#define HD_SIGNAL_TYPE_ENUM(id, name) HD_SIGT_##id,
	HD_SIGNAL_TYPES(HD_SIGNAL_TYPE_ENUM)
#undef HD_SIGNAL_TYPE_ENUM
	HD_SIGT_COUNT,
	/* the last type, for readers that bound a stored type */
	HD_SIGT_LAST = HD_SIGT_COUNT - 1
};
/* clang-format on */
/* a signal keeps its type in 8 bits */
_Static_assert(HD_SIGT_COUNT <= 256, "signal types fit a uint8_t");

/*
 * The group_name of a c10d watchdog timeout whose input names PGs but not
 * this timeout's (parsers/c10d-record.c): a group of its own that is
 * never PG 0 and never joined with another's timeouts.
 */
#define HD_PG_UNNAMED "?"

/*
 * Where the kernel says an OOM kill's task lived (HD_SIGT_HOST_OOM's
 * code): its cgroup names a container runtime (docker, kubepods,
 * containerd, ...), or none, or no cgroup line was read.
 */
enum hd_oom_cgroup {
	HD_OOM_CGROUP_UNKNOWN = 0,
	HD_OOM_CGROUP_CONTAINER = 1,
	HD_OOM_CGROUP_HOST = 2,
};

/* What nvidia-smi -q shows wrong with a GPU (HD_SIGT_GPU_STATE's code). */
enum hd_gpu_problem {
	HD_GPU_ECC_UNCORRECTABLE = 1 << 0, /* volatile, above zero */
	HD_GPU_REMAP_PENDING = 1 << 1,
	HD_GPU_REMAP_FAILED = 1 << 2,
	HD_GPU_RETIRE_PENDING = 1 << 3,
	HD_GPU_SLOWDOWN = 1 << 4, /* HW/thermal slowdown active: a
				     performance matter, never a cause */
	HD_GPU_RESET_REQUIRED = 1 << 5, /* "GPU Reset Status": the driver
					   asks for a reset (or a drain) */
	/* lost to its host (nvidia-smi failing, kernel logs) */
	HD_GPU_LOST = 1 << 6, /* nvidia-smi cannot reach it ("Unknown
				 Error", "GPU is lost"); with no device, no
				 GPU of the host ("No devices were found") */
	HD_GPU_INIT_FAILED = 1 << 7, /* the driver could not initialise it
					("RmInitAdapter failed") */
	HD_GPU_PCIE_ERROR = 1 << 8, /* an uncorrected PCIe error (AER) */
	HD_GPU_NOT_GPU = 1 << 9, /* with PCIE_ERROR: the device is not known
				    to be a GPU (a PCIe port's report); a
				    GPU's only where a rank's busId or an
				    NVRM line names it */
};

/*
 * The fields of struct hd_signal whose meaning depends on its type (seq,
 * code) are read through the accessors below.  Compiled with
 * HD_SIGNAL_FIELDS_HIDDEN they get other names, so that a raw read does
 * not compile: tests/signal-fields.sh compiles the engine, replay, the
 * reports and the CLI so.  The store, its digests and the parsers, which
 * keep and copy the fields whatever they mean, use the names.
 */
#ifdef HD_SIGNAL_FIELDS_HIDDEN
#define HD_SIGNAL_FIELD(name) name##_through_accessors
#else
#define HD_SIGNAL_FIELD(name) name
#endif

struct hd_signal {
	uint8_t cat; /* enum hd_signal_cat */
	uint8_t type; /* enum hd_signal_type */
	int32_t rank; /* global rank, -1 unknown */
	const char *host; /* interned, or NULL */
	int32_t pid;
	/* ANON_PROC: which process of unknown rank of its input it names
	   (hd_signal_anon_proc()); -1 for every other signal */
	int32_t anon;
	const char
		*peer; /* interned peer as printed ("node-b<41873>"), or NULL */
	int32_t peer_rank; /* -1 unknown */
	struct hd_time time; /* with its clock; hd_time_none() unknown */
	const char *group_name; /* interned PG name ("0", "mesh_tp"), or NULL;
				   HD_PG_UNNAMED: a timeout of a PG not said */
	/*
	 * seq and code mean what the type says (enum hd_signal_type): read
	 * them through the accessors below, which assert the type, wherever
	 * the meaning matters.  seq is an op's SeqNum in its process group
	 * (-1 none), except for HD_SIGT_RAS_MISMATCH.
	 */
	int64_t HD_SIGNAL_FIELD(seq);
	int64_t last_enqueued; /* PG status; INT64_MIN when absent */
	int64_t last_completed;
	const char *op_name; /* interned ("ALLREDUCE"), or NULL */
	/* -1 unknown; COLL_TIMING: microseconds (hd_signal_timing_max_us());
	   XID: numel_in is the earlier Xid the line names as its cause
	   (hd_signal_xid_cause()) */
	int64_t numel_in, numel_out;
	int32_t HD_SIGNAL_FIELD(
		code); /* by type: the accessors below; 0 none */
	char *text; /* the raw line (owned, bounded), or NULL */
	struct hd_prov prov;
	/* c10d (issue 11) */
	int32_t local_rank; /* torchrun: the local rank of an exit, -1 */
	/* srun: the task id of an exit ("task 3: Killed"), -1 none or
	   several; the global rank only where the input shows srun's task
	   ids are ranks (parsers/nl-attrib.c) */
	int32_t task;
	const char *dtype_name; /* interned dtype of a fingerprint, or NULL */
	/* kernel logs (issue 21) */
	const char *device; /* interned PCI bus id or HCA port, or NULL */
	/* crash output (ev-a) */
	int32_t stack; /* index into store->stacks, innermost first; -1 */
};

/*
 * seq and code by what they mean for the signal's type.  Each asserts the
 * type: reading one type's code as another's is a bug, never data.
 */

/*
 * The op's SeqNum in its process group, -1 none: what seq means for every
 * type but RAS_MISMATCH (hd_signal_ras_op()), ANON_PROC
 * (hd_signal_anon_ops()) and COLL_TIMING (hd_signal_timing_last_sn()).
 */
static inline int64_t hd_signal_seq(const struct hd_signal *sig)
{
	g_assert(sig->type != HD_SIGT_RAS_MISMATCH &&
		 sig->type != HD_SIGT_ANON_PROC &&
		 sig->type != HD_SIGT_COLL_TIMING);
	return sig->HD_SIGNAL_FIELD(seq);
}

/*
 * seq and code as the store keeps them, whatever they mean: for what
 * carries every field of a signal as it is (the show listing, the
 * Perfetto trace's args, a fingerprint's text), never for a decision.
 */
static inline int64_t hd_signal_stored_seq(const struct hd_signal *sig)
{
	return sig->HD_SIGNAL_FIELD(seq);
}

static inline int32_t hd_signal_stored_code(const struct hd_signal *sig)
{
	return sig->HD_SIGNAL_FIELD(code);
}

/* What an ADVISORY reports (its code). */
enum hd_advice {
	HD_ADVICE_ENV = 0, /* advice on the environment */
	HD_ADVICE_PORT_EVENT = 1, /* an event of an IB port that works */
	/* a CUDA error of a process that exits: the runtime unloading
	   ("driver shutting down", cudaErrorCudartUnloading) */
	HD_ADVICE_EXIT = 2,
};

/* ADVISORY: what it reports. */
static inline enum hd_advice hd_signal_advice(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_ADVISORY);
	switch (sig->HD_SIGNAL_FIELD(code)) {
	case HD_ADVICE_PORT_EVENT:
		return HD_ADVICE_PORT_EVENT;
	case HD_ADVICE_EXIT:
		return HD_ADVICE_EXIT;
	default:
		return HD_ADVICE_ENV;
	}
}

/* PROCESS_EXIT: the exit code; -N killed by signal N. */
static inline int32_t hd_signal_exit_code(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_PROCESS_EXIT);
	return sig->HD_SIGNAL_FIELD(code);
}

/* FATAL_SIGNAL: the signal number (Linux). */
static inline int32_t hd_signal_signo(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_FATAL_SIGNAL);
	return sig->HD_SIGNAL_FIELD(code);
}

/* CUDA_ERROR: the cudaError_t NCCL printed ("Cuda failure 700"), 0 none. */
static inline int32_t hd_signal_cuda_code(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_CUDA_ERROR);
	return sig->HD_SIGNAL_FIELD(code);
}

/* UNWIND, NCCL_ERROR, TEST_FAILURE: the ncclResult_t, 0 unknown. */
static inline int32_t hd_signal_nccl_result(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_UNWIND ||
		 sig->type == HD_SIGT_NCCL_ERROR ||
		 sig->type == HD_SIGT_TEST_FAILURE);
	return sig->HD_SIGNAL_FIELD(code);
}

/*
 * IB_COMPLETION: the completion's status as printed, 0 unknown; NET/IB's
 * is an ibv_wc_status (5 WR_FLUSH), aws-ofi-nccl's "RC: N" a provider
 * errno.
 */
static inline int32_t hd_signal_ib_status(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_IB_COMPLETION);
	return sig->HD_SIGNAL_FIELD(code);
}

/* RANKS_NAMED: how the ranks are named. */
enum hd_named_as {
	HD_NAMED_CULPRIT = 1, /* missing, desynced, failed a barrier */
	HD_NAMED_LAGGING = 2, /* behind the others */
};

static inline enum hd_named_as hd_signal_named_as(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_RANKS_NAMED);
	return (enum hd_named_as)sig->HD_SIGNAL_FIELD(code);
}

/* RAS_MISMATCH: a count line ("N ranks have launched up to operation K"),
   else a line naming one rank (peer_rank). */
static inline bool hd_signal_ras_is_count(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_RAS_MISMATCH);
	return sig->HD_SIGNAL_FIELD(seq) >= 0;
}

/* RAS_MISMATCH count line: K, the operation the ranks launched up to. */
static inline int64_t hd_signal_ras_op(const struct hd_signal *sig)
{
	g_assert(hd_signal_ras_is_count(sig));
	return sig->HD_SIGNAL_FIELD(seq);
}

/* RAS_MISMATCH count line: N, how many ranks launched up to K. */
static inline int32_t hd_signal_ras_nranks(const struct hd_signal *sig)
{
	g_assert(hd_signal_ras_is_count(sig));
	return sig->HD_SIGNAL_FIELD(code);
}

/* ANON_PROC: the process it names, as hd_op_anon() gives its ops. */
static inline int32_t hd_signal_anon_proc(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_ANON_PROC);
	return sig->anon;
}

/* ANON_PROC: the process's CUDA device, -1 unknown. */
static inline int32_t hd_signal_anon_device(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_ANON_PROC);
	return sig->HD_SIGNAL_FIELD(code);
}

/* XID: the Xid number. */
static inline int32_t hd_signal_xid(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_XID);
	return sig->HD_SIGNAL_FIELD(code);
}

/*
 * XID: the earlier Xid the line names as its cause (an Xid 45's "caused
 * by previous Xid 149"), 0 none.
 */
static inline int32_t hd_signal_xid_cause(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_XID);
	return sig->numel_in > 0 && sig->numel_in < 1000000
		       ? (int32_t)sig->numel_in
		       : 0;
}

/*
 * LINK_EVENT: 0 the link went down, 1 came up, 2 neither, 3 the port is
 * disabled (down on purpose: ibstat's "Physical state: Disabled").
 */
static inline int32_t hd_signal_link_state(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_LINK_EVENT);
	return sig->HD_SIGNAL_FIELD(code);
}

/* IB_COUNTERS: how many error counters are above zero. */
static inline int32_t hd_signal_ib_errors(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_IB_COUNTERS);
	return sig->HD_SIGNAL_FIELD(code);
}

/* HOST_OOM: enum hd_oom_cgroup. */
static inline enum hd_oom_cgroup
hd_signal_oom_cgroup(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_HOST_OOM);
	return (enum hd_oom_cgroup)sig->HD_SIGNAL_FIELD(code);
}

/* GPU_STATE: enum hd_gpu_problem bits. */
static inline uint32_t hd_signal_gpu_problems(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_GPU_STATE);
	return (uint32_t)sig->HD_SIGNAL_FIELD(code);
}

/* ANON_PROC: how many ops of the process were kept. */
static inline int64_t hd_signal_anon_ops(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_ANON_PROC);
	return sig->HD_SIGNAL_FIELD(seq);
}

/* PYSPY_THREAD: the thread's id as py-spy printed it. */
static inline int32_t hd_signal_thread_id(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_PYSPY_THREAD);
	return sig->HD_SIGNAL_FIELD(code);
}

/* GDB_THREAD: the thread's LWP (the main thread's is the pid), 0 none. */
static inline int32_t hd_signal_lwp(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_GDB_THREAD);
	return sig->HD_SIGNAL_FIELD(code);
}

/* COLL_TIMING: the last collective's coll_sn on its communicator. */
static inline int64_t hd_signal_timing_last_sn(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_COLL_TIMING);
	return sig->HD_SIGNAL_FIELD(seq);
}

/* COLL_TIMING: how many Inspector records were summed. */
static inline int32_t hd_signal_timing_records(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_COLL_TIMING);
	return sig->HD_SIGNAL_FIELD(code);
}

/*
 * COLL_TIMING: the longest and the mean execution time of the summed
 * collectives, in microseconds (kept in numel_in and numel_out).
 */
static inline int64_t hd_signal_timing_max_us(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_COLL_TIMING);
	return sig->numel_in;
}

static inline int64_t hd_signal_timing_mean_us(const struct hd_signal *sig)
{
	g_assert(sig->type == HD_SIGT_COLL_TIMING);
	return sig->numel_out;
}

struct hd_store {
	GPtrArray *inputs; /* struct hd_input * */
	GHashTable *ranks; /* int rank -> struct hd_rank * */
	GPtrArray *groups; /* struct hd_group * */
	GHashTable *group_index; /* id -> index + 1 */
	GArray *ops; /* struct hd_op */
	/* struct hd_op_xrec of the ops that have any, NULL until one does;
	   records of dropped ops stay until the store is freed */
	GArray *op_extra;
	GArray *signals; /* struct hd_signal */
	GPtrArray *stacks; /* GArray of struct hd_frame, innermost first */
	int world_size; /* -1 unknown */
	/* the hosts' local clocks are not one zone: local times of two
	   hosts never order each other (hd_store_mark_local_zones()) */
	bool local_zones_apart;
};

static inline const struct hd_op_xrec *hd_op_xrec_at(const struct hd_store *s,
						     uint32_t index)
{
	g_assert(s->op_extra && index < s->op_extra->len);
	return &g_array_index(s->op_extra, struct hd_op_xrec, index);
}

/* A record's base, an int64. */
static inline int64_t hd_op_xrec_base(const struct hd_op_xrec *r)
{
	return (int64_t)(((uint64_t)r->base_hi << 32) | r->base_lo);
}

/* base + (d - 1), INT64_MIN for d 0: a narrow record's time. */
static inline int64_t hd_op_xrec_time(int64_t base, uint32_t d)
{
	/* in uint64: the coder made sure it fits */
	return d ? (int64_t)((uint64_t)base + (d - 1)) : INT64_MIN;
}

/* op's first extra record, NULL when it has none.  (transfer none) */
static inline const struct hd_op_xrec *
hd_op_xrec_first(const struct hd_store *s, const struct hd_op *op)
{
	return op->has_extra ? hd_op_xrec_at(s, op->slot) : NULL;
}

/* Each time on its own, for the passes that read one. */
static inline int64_t hd_op_t_enqueue(const struct hd_store *s,
				      const struct hd_op *op)
{
	const struct hd_op_xrec *r = hd_op_xrec_first(s, op);

	if (!r)
		return INT64_MIN;
	/* base, but with a marker of an unknown enqueue */
	return r->d_end == HD_XREC_WIDE || r->d_start <= HD_XREC_D_LAST
		       ? hd_op_xrec_base(r)
		       : INT64_MIN;
}

static inline int64_t hd_op_t_start(const struct hd_store *s,
				    const struct hd_op *op)
{
	const struct hd_op_xrec *r = hd_op_xrec_first(s, op);

	if (!r)
		return INT64_MIN;
	if (r->d_end == HD_XREC_WIDE)
		return hd_op_xrec_base(hd_op_xrec_at(s, op->slot + 1));
	if (r->d_start == HD_XREC_START_BASE)
		return hd_op_xrec_base(r);
	if (r->d_start == HD_XREC_END_BASE)
		return INT64_MIN;
	return hd_op_xrec_time(hd_op_xrec_base(r), r->d_start);
}

static inline int64_t hd_op_t_end(const struct hd_store *s,
				  const struct hd_op *op)
{
	const struct hd_op_xrec *r = hd_op_xrec_first(s, op);

	if (!r)
		return INT64_MIN;
	if (r->d_end == HD_XREC_WIDE) {
		const struct hd_op_xrec *w = hd_op_xrec_at(s, op->slot + 1);

		return (int64_t)(((uint64_t)w->d_end << 32) | w->d_start);
	}
	if (r->d_start == HD_XREC_END_BASE)
		return hd_op_xrec_base(r);
	/* against the enqueue, or the start with HD_XREC_START_BASE */
	return hd_op_xrec_time(hd_op_xrec_base(r), r->d_end);
}

static inline struct hd_op_extra hd_op_extra(const struct hd_store *s,
					     const struct hd_op *op)
{
	struct hd_op_extra x = {
		.t_enqueue_ns = hd_op_t_enqueue(s, op),
		.t_start_ns = hd_op_t_start(s, op),
		.t_end_ns = hd_op_t_end(s, op),
		.stack = hd_op_stack(s, op),
		.at_high = (uint32_t)(hd_op_prov(s, op).at >> 32),
	};

	return x;
}

static inline struct hd_prov hd_op_prov(const struct hd_store *s,
					const struct hd_op *op)
{
	struct hd_prov p = {
		.input = op->input,
		.kind = op->prov_kind,
		.attempt = op->attempt,
		.at = op->at_low,
	};

	/* only a wide record has a high half */
	if (op->has_extra) {
		const struct hd_op_xrec *r = hd_op_xrec_at(s, op->slot);

		if (r->d_end == HD_XREC_WIDE)
			p.at |= (uint64_t)r->d_start << 32;
	}
	return p;
}

static inline int64_t hd_op_op_count(const struct hd_store *s,
				     const struct hd_op *op)
{
	if (op->count_wide) {
		/* after the op's one record, or its wide pair */
		uint32_t n = hd_op_xrec_at(s, op->slot)->d_end == HD_XREC_WIDE
				     ? 2
				     : 1;

		return hd_op_xrec_base(hd_op_xrec_at(s, op->slot + n));
	}
	if (op->has_extra || op->slot == HD_OP_COUNT_WIDE)
		return -1;
	return op->slot;
}

/*
 * Interns s (NULL stays NULL): equal strings get the same pointer, valid
 * while any store lives (intern while one does).  Thread-safe; memory grows linearly with the
 * distinct strings.  Under hd_intern_limit_begin() a string that would be
 * new past the budget gives hd_intern_refused instead.  (transfer none)
 */
const char *hd_intern(const char *s);
/* Interns the first len bytes of s.  (transfer none) */
const char *hd_intern_len(const char *s, size_t len);
/* What hd_intern() gives for a string refused by the calling thread's budget. */
extern const char hd_intern_refused[];
/*
 * Lets the calling thread add at most max_new new strings to the intern
 * table until hd_intern_limit_end(), which returns how many it refused.
 * The loader brackets each input with these (HD_BUDGET_STRINGS_PER_INPUT),
 * so a hostile input cannot fill memory with names.
 */
void hd_intern_limit_begin(uint64_t max_new);
uint64_t hd_intern_limit_end(void);
/*
 * The intern tables' life: hd_store_new() holds them and hd_store_free()
 * releases them; the release of the last holder frees every interned
 * string and descriptor.  Thread-safe; calls balance.
 */
void hd_intern_hold(void);
void hd_intern_release(void);

struct hd_store *hd_store_new(void);
void hd_store_free(struct hd_store *s);
/* Handle typedef for g_autoptr() only; code says struct hd_store. */
typedef struct hd_store hd_store;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_store, hd_store_free)

/* Adds an input for path and returns its index. */
uint32_t hd_store_add_input(struct hd_store *s, const char *path);
/* What input may claim (HD_MAX_RANKS, HD_MAX_SEQ): above struct hd_op. */
/*
 * A size the input claims (a group's nranks, the world size) is believed
 * up to HD_CLAIM_FREE, or up to HD_CLAIM_PER_SHOWN times the ranks the
 * input shows (known members, ranks with data); past that it is cut to
 * what the input shows, with a warning.
 */
#define HD_CLAIM_FREE	   (1 << 14)
#define HD_CLAIM_PER_SHOWN 64

/* Whether a claimed size is believed when the input shows shown. */
static inline bool hd_claim_believed(int64_t claim, int64_t shown)
{
	return claim <= HD_CLAIM_FREE || claim <= HD_CLAIM_PER_SHOWN * shown;
}

/*
 * Holds what a freshly parsed store claims to those bounds: ops and
 * signals with a rank or seq outside them are dropped, group members and
 * input ranks outside them forgotten, each with a warning on the input
 * naming the first value; sizes claimed past what the store shows are
 * cut (HD_CLAIM_FREE).  Called on every per-file store by the parsers'
 * entry point, before anything adds or compares ranks.
 */
void hd_store_bound(struct hd_store *s);

/*
 * About the bytes of memory s's records take: ops and their extra
 * records, signals and their texts, stacks and their frames (what the
 * incident's budget counts, HD_BUDGET_INCIDENT_RECORDS).  O(signals +
 * stacks).
 */
uint64_t hd_store_kept_bytes(const struct hd_store *s);

/* Number of inputs that gave at least one record or were valid but empty. */
unsigned hd_store_usable_inputs(const struct hd_store *s);
/* (transfer none) */
struct hd_input *hd_store_input(const struct hd_store *s, uint32_t index);
/*
 * The kind of the input op came from (UNKNOWN when its provenance names
 * none): ops of different kinds are never aligned against each other.
 */
enum hd_input_kind hd_store_op_source(const struct hd_store *s,
				      const struct hd_op *op);

/*
 * Records a warning against an input: counted always, kept (with its line
 * number, 0 for none) only while fewer than HD_INPUT_MAX_WARNINGS are kept.
 */
void hd_input_warn(struct hd_input *in, uint64_t line, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

/*
 * Takes back the first kept warning of in that starts with prefix (one a
 * later step showed untrue: a process of unknown rank that another log
 * named), and its count.  Returns whether one was kept.
 */
bool hd_input_unwarn(struct hd_input *in, const char *prefix);

/* Returns the rank record, creating it.  (transfer none) */
struct hd_rank *hd_store_rank(struct hd_store *s, int rank);
/* Returns the rank record or NULL.  (transfer none) */
struct hd_rank *hd_store_find_rank(const struct hd_store *s, int rank);
/* Notes that input describes rank (no duplicates). */
void hd_rank_add_input(struct hd_rank *r, uint32_t input);

/*
 * Group identities.  Ops of different ranks are compared only when their
 * groups have the same id, so an id must be the same on every member:
 *   hd_group_id_comm(commId)              "comm:0x5c1e2f03a9d4b871"
 *   hd_group_id_pg(name, ranks, n)        "pg:<name>:[0-3,5]", "pg:tp:[0,8,...,56]"
 * Parsers without such an identity make up an id that says what it is and
 * set low_confidence_identity.  (transfer full)
 */
char *hd_group_id_comm(uint64_t comm_id);
char *hd_group_id_pg(const char *name, const int *ranks, size_t nranks);

/* Returns the index of the group with this id, creating it. */
uint32_t hd_store_group(struct hd_store *s, const char *id);
/*
 * Drops the groups cand marks (cand[i] for group i) that no op is in any
 * more, renumbering the rest in order (the ops' group indices with them:
 * only ops hold one): a comm guessed for a rotated log's newer part whose
 * ops joined the comm they continue.  Returns how many were dropped.
 */
guint hd_store_drop_empty_groups(struct hd_store *s, const bool *cand);
/* Returns the index of the group with this id, or -1. */
int64_t hd_store_find_group(const struct hd_store *s, const char *id);
/* (transfer none) */
struct hd_group *hd_store_group_at(const struct hd_store *s, uint32_t index);
/*
 * Sets group rank group_rank to global rank (grows members as needed,
 * unless group_rank is past what the known members justify: see
 * HD_CLAIM_FREE; then it counts in members_refused).
 */
void hd_group_set_member(struct hd_group *g, int group_rank, int global_rank);
/*
 * Makes g's members m's list (g holds a reference), in O(1), for a group
 * that has no members yet.
 */
void hd_group_share_members(struct hd_group *g, struct hd_members *m);
/* Gives g a members array of its own to write, if it shares one. */
void hd_group_own_members(struct hd_group *g);

/*
 * Appends an attempt to in (the first call makes the table) and returns
 * it, zeroed, for a parser that decides attempts per process.  Valid
 * until the next one is added.  (transfer none)
 */
struct hd_attempt *hd_input_new_attempt(struct hd_input *in);

/*
 * Keeps, in order and in place, the ops drop() says no to.  drop() may
 * change the op it keeps.  Every filter of the store's records is one of
 * these two calls.
 */
void hd_store_filter_ops(struct hd_store *s,
			 bool (*drop)(struct hd_op *op, void *data),
			 void *data);

/*
 * Keeps, in order and in place, the signals drop() says no to; a dropped
 * signal's text is freed once drop() has seen it.
 */
void hd_store_filter_signals(struct hd_store *s,
			     bool (*drop)(struct hd_signal *sig, void *data),
			     void *data);

/*
 * Keeps, of every input split into attempts, only the ops and signals of
 * attempt (from 1; 0 or past the last: the last) and counts what the
 * others held.  Attempts are numbered per process life, not per file:
 * logs that hold the same NCCL comm (commId) hold the same attempt, so
 * a rotated log's newer file continues the numbering of its older one
 * and an input that holds none of the attempt analyzed keeps nothing
 * (attempt_none).  Runs on the merged store of every input, before the
 * joins across inputs.
 */
void hd_store_keep_attempt(struct hd_store *s, int attempt);

/*
 * A time window (--since/--until), in ns: from since to until, both
 * included; INT64_MIN and INT64_MAX leave a side open.  With time_of_day
 * the bounds are times of day (ns since midnight) and each record is
 * judged by the time of day its own clock shows (UTC, local, month-day or
 * time of day); otherwise the bounds are UTC instants (ns since the epoch)
 * and only records on the UTC clock can be judged: a local time's zone is
 * unknown.
 */
struct hd_window {
	int64_t since, until;
	bool time_of_day;
};

/*
 * Drops the ops and signals whose time is known and outside w, with one
 * warning per input saying how many; records without a time, or whose
 * clock w cannot be compared with (local times against UTC bounds, trace
 * and boot times), are kept, and a warning counts the timed ones.
 */
void hd_store_keep_window(struct hd_store *s, const struct hd_window *w);

/*
 * Two inputs whose records lie further apart than this on the UTC clock
 * are of two incidents: every rank of a hung job stops within one
 * collective of the others.  The one place this is set.
 */
#define HD_INCIDENT_GAP_NS (3600LL * 1000000000LL)

/*
 * Sorts the inputs into incidents by the UTC times of their records:
 * cluster[i] (room for every input) receives input i's incident, from 0
 * in time order, or G_MAXUINT when it has no UTC time.  Spans closer than
 * HD_INCIDENT_GAP_NS are one incident.  Returns the number of incidents.
 */
guint hd_store_incident_clusters(const struct hd_store *s, guint *cluster);

/*
 * Keeps the incident most timed inputs belong to, when the inputs span
 * several: the records of the others are dropped, each such input gets
 * other_incident and an error naming both spans, and leaves its rank's
 * record (that rank left no data of this incident).  Without a majority
 * nothing changes (the consistency check then refuses the inputs as
 * several incidents).  Runs after hd_store_resolve().
 */
void hd_store_keep_incident(struct hd_store *s);

/*
 * Two hosts whose local-clock records (NCCL's dates without a zone,
 * glog's month and day) lie more than this apart, without overlapping,
 * do not keep one zone (host-a in UTC, host-b at +08:00): the records of
 * one hang's hosts overlap in time.  Below a quarter of an hour a zone
 * difference cannot be told from a quiet host.
 */
#define HD_ZONE_APART_NS (30LL * 60 * 1000000000LL)

/*
 * Sets s->local_zones_apart when two hosts' local-clock records lie more
 * than HD_ZONE_APART_NS apart: then a local time of one host is never
 * ordered against one of another (docs/verdicts.md, "Time").  Runs after
 * the merge.
 */
void hd_store_mark_local_zones(struct hd_store *s);

/*
 * One of op's times (t_enqueue_ns, t_start_ns or t_end_ns) on the clock of
 * its input.
 */
struct hd_time hd_op_time(const struct hd_store *s, const struct hd_op *op,
			  int64_t ns);

/* Returns the group rank of a global rank, or -1. */
int hd_group_rank_of(const struct hd_group *g, int global_rank);
/* Maps a group rank to a global rank, or -1. */
int hd_group_global_rank(const struct hd_group *g, int group_rank);

/* How hd_group_label() names a group. */
enum hd_group_label_form {
	/*
	 * For sentences: "PG 0 (default_pg)", "PG mesh_tp", "comm 0x5c1e..",
	 * else the id; "?" for no group.
	 */
	HD_GROUP_LABEL_LONG = 0,
	/* For table cells: the name, else the id; "-" for no group. */
	HD_GROUP_LABEL_SHORT,
};

/*
 * The name of group index group (-1 or out of range: no group) as every
 * report, verdict and listing prints it.  Raw: it may hold what an input
 * said, so printers clean it.  (transfer full)
 */
char *hd_group_label(const struct hd_store *s, int64_t group,
		     enum hd_group_label_form form);

/* Sets the defaults: unknown everything, no stack, no times. */
void hd_op_rec_init(struct hd_op_rec *rec);
/*
 * The same for an op alone, with no extra record: for a slot of the op
 * array a parser fills in place (its extra fields through the setters),
 * or a scratch op whose plain fields are all that is read.
 */
void hd_op_init(struct hd_op *op);
/* Packs rec into the store (extra records as needed). */
void hd_store_add_op(struct hd_store *s, const struct hd_op_rec *rec);
/*
 * Appends an op with the defaults of hd_op_rec_init() and returns it, for
 * a hot parser to fill in place with the setters.  Valid until the next
 * op is added.
 */
struct hd_op *hd_store_new_op(struct hd_store *s);
/*
 * The op at index i of s's op array.  (transfer none)
 */
static inline struct hd_op *hd_store_op(const struct hd_store *s, guint i)
{
	return &g_array_index(s->ops, struct hd_op, i);
}

/* Stores a stack (frames copied) and returns its index. */
int32_t hd_store_add_stack(struct hd_store *s, const struct hd_frame *frames,
			   size_t n);
/* Returns a stack's frames, or NULL with *n = 0.  (transfer none) */
const struct hd_frame *hd_store_stack(const struct hd_store *s, int32_t stack,
				      size_t *n);

/* Sets the defaults: unknown rank, time, peer, seq. */
void hd_signal_init(struct hd_signal *sig);
/* Copies sig into the store; sig->text is copied (cut to 1 KiB). */
void hd_store_add_signal(struct hd_store *s, const struct hd_signal *sig);

/*
 * Moves everything in src into dst, remapping input, group and stack
 * indices, and frees src.  Groups with the same id become one; ranks with
 * the same number become one, keeping what either side knew.
 */
void hd_store_merge(struct hd_store *dst, struct hd_store *src);

/*
 * The ranks by their process id, so that what names a pid and no rank
 * (a gdb backtrace, a py-spy dump) is joined with a lookup, not a walk
 * over every rank: pid -> GPtrArray of struct hd_rank *.  (transfer full)
 */
GHashTable *hd_store_ranks_by_pid(const struct hd_store *s);

/*
 * The ranks with two or more inputs of kind (an input refused whole, with
 * an error, left out when whole_only): rank -> GArray of uint32_t input
 * indices, in the rank's order.  What finds one rank read twice (a
 * rotated log, a dump written again) starts here.  (transfer full)
 */
GHashTable *hd_store_ranks_inputs_of_kind(const struct hd_store *s,
					  enum hd_input_kind kind,
					  bool whole_only);

/* How a pid joins the ranks (hd_store_rank_of_pid()). */
enum hd_pid_join {
	HD_PID_NO_RANK, /* no rank's process had it */
	HD_PID_ONE_RANK, /* one rank's did: the join */
	/* several did (two hosts' processes share it, as containers'
	   do): no join */
	HD_PID_SEVERAL_RANKS,
};

/*
 * Whether one rank's process had pid, on host when both are known, in a
 * table of hd_store_ranks_by_pid(); *rank gets that rank, else -1.
 */
enum hd_pid_join hd_store_rank_of_pid(GHashTable *by_pid, int32_t pid,
				      const char *host, int *rank);

/*
 * Cross-input joins after all merges: group members and nranks learned from
 * any rank, world size, pre-commId groups, and the rank of a gdb
 * backtrace's signals from the one rank with its pid.  Idempotent.
 */
void hd_store_resolve(struct hd_store *s);

/* Renders a provenance as "path:line", "path#record N" or "path@offset". */
char *hd_prov_format(const struct hd_store *s, const struct hd_prov *p);
/* The same for where op was read.  (transfer full) */
char *hd_op_source(const struct hd_store *s, const struct hd_op *op);

/* Names for the enums, as used in reports ("all_reduce", "completed"). */
const char *hd_op_kind_name(enum hd_op_kind k);
/* "collective", "p2p", "ordinal"; "unknown" out of range. */
const char *hd_seq_kind_name(enum hd_seq_kind k);
const char *hd_op_state_name(enum hd_op_state st);
const char *hd_dtype_name(enum hd_dtype t);
const char *hd_redop_name(enum hd_redop r);
const char *hd_signal_cat_name(enum hd_signal_cat c);
const char *hd_input_kind_name(enum hd_input_kind k);
/* What inputs of kind k are called in prose ("flight-recorder dumps"). */
const char *hd_input_kind_words(enum hd_input_kind k);
/*
 * Every kind hangdoc reads, in prose, from HD_INPUT_KINDS: "NCCL and c10d
 * logs, flight-recorder dumps, ... and NCCL Inspector outputs".
 * (transfer full)
 */
char *hd_input_kinds_text(void);
/* Kind k's enum hd_input_kind_flags; none out of range. */
unsigned hd_input_kind_flags(enum hd_input_kind k);
/* "watchdog_timeout", ...: the type's name in reports; "other" out of range. */
const char *hd_signal_type_name(enum hd_signal_type t);

/*
 * Parses the spellings every source uses for op kinds and dtypes:
 * "all_reduce", "allreduce", "AllReduce", "ALLREDUCE", "_allgather_base",
 * "Float", "float32", "BFloat16", ...  Unknown input gives *_UNKNOWN.
 */
enum hd_op_kind hd_op_kind_parse(const char *s);
enum hd_dtype hd_dtype_parse(const char *s);

/*
 * How a report writes an op kind that a source spelled s: the one
 * spelling of hd_op_kind_name() ("ALLREDUCE" is "all_reduce") when s
 * names a kind, else s as it is; NULL for NULL.  (transfer none)
 */
const char *hd_op_display_name(const char *s);

#endif
