/*
 * What one input may cost: every budget hangdoc sets on what it reads, in
 * one place, each with why it is that number.  An input past a budget is
 * refused with a message that names it and the budget; what was read from
 * other inputs is kept.  docs/safety.md lists these for users.
 *
 * The numbers are sized from what a real dump of each kind can need, with
 * room to spare, so that only a hostile or broken input reaches them.
 */
#ifndef HD_BUDGET_H
#define HD_BUDGET_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

/*
 * Notes that reading the current input stopped at a budget ("more than N
 * nodes, the budget for a dump"), for the loader to say on stderr: a
 * parser that salvages what came before may only warn, and warnings past
 * the first few are counted, not kept.  Per thread, the first note since
 * the last hd_budget_take_note() only; no memory is allocated.
 */
void hd_budget_note(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* The calling thread's note, cleared, or NULL.  (transfer full) */
char *hd_budget_take_note(void);

/*
 * Decoded bytes, per input.
 *
 * NCCL_DEBUG / c10d logs and profiler traces are streamed: memory grows
 * with the records kept (a 40-byte op per ~190-byte COLL line), not with
 * the file, so the cap bounds time more than memory.  The largest
 * per-process logs seen are a few GB; 16 GiB is ~90 M COLL lines, ~7 GB of
 * op records.  A 1 GB trace is already a large one (bench-kineto.sh).
 */
#define HD_BUDGET_LOG_BYTES   ((uint64_t)16 << 30)
#define HD_BUDGET_TRACE_BYTES ((uint64_t)16 << 30)
/*
 * Flight-recorder dumps are read whole, then decoded into a tree.  A
 * pickled entry is ~130 bytes without frames and ~1 KB with them
 * (gen-fr-dumps.py, 20,000 entries in 2.6 MB); 1 GiB holds a million
 * entries with frames, 500 times the recorder's default of 2,000.  The JSON
 * variant repeats every key (3.4 times the pickle) and its parser builds a
 * DOM of several times the text: 512 MiB is again about a million entries.
 */
#define HD_BUDGET_FR_PICKLE_BYTES ((uint64_t)1 << 30)
#define HD_BUDGET_FR_JSON_BYTES	  ((uint64_t)512 << 20)
/*
 * Digests (docs/format-digest.md) are read whole and decoded into the
 * store: a few bytes an op after the column coding, so 2 GiB holds far
 * more ops than one node's inputs give (a 1,024-rank incident of 2,000
 * entries a rank, 2 M ops, digests to about 10 MB).  The ratio is the
 * logs': the columns of a training loop's ops compress far better than
 * any dump.
 */
#define HD_BUDGET_DIGEST_BYTES ((uint64_t)2 << 30)
/* Inputs whose kind is not known yet (the sniffed head, memory readers). */
#define HD_BUDGET_DEFAULT_BYTES HD_BUDGET_LOG_BYTES

/*
 * Decompression ratio (decoded / compressed bytes), checked once more than
 * HD_BUDGET_RATIO_GRACE bytes are decoded, so that small files of repeated
 * lines pass whatever their ratio.  Measured with zstd -19 --long: a
 * synthetic COLL log (every line alike but its counter) 167:1, a JSON FR
 * dump of identical entries 57:1, a pickled one 9:1; real ones, with
 * timestamps that differ, compress less.  gzip itself cannot pass ~1032:1;
 * zstd and pzstd reach 30,000:1 and more on a bomb.  Dumps get the lower
 * cap because they are held whole in memory and grow when decoded.
 */
#define HD_BUDGET_RATIO_GRACE ((uint64_t)16 << 20)
#define HD_BUDGET_LOG_RATIO   1000
#define HD_BUDGET_TRACE_RATIO 1000
#define HD_BUDGET_FR_RATIO    250

/*
 * Pickle trees (parsers/pickle.c).  An entry is ~26 nodes (one per 5
 * bytes, gen-fr-dumps.py) plus its frames; 2^25 nodes is a million
 * entries at 32 nodes each, 512 MiB of 16-byte nodes.  Child slots: a
 * frame list is one slot per frame, shared frames being memo references;
 * 2^27 is 128 per entry.  Strings: PyTorch's pickler memoizes every
 * string, so string nodes are distinct strings: names, files, states, PG
 * names; a real dump holds thousands.  2^20 leaves room for a hundred
 * times that.  The JSON variant builds the same tree and gets the same
 * node budget, counted on the text before jansson builds its DOM; its
 * strings are not memoized (every key is repeated), so no string cap.
 */
#define HD_BUDGET_PK_NODES   ((uint32_t)1 << 25)
#define HD_BUDGET_PK_KIDS    ((uint32_t)1 << 27)
#define HD_BUDGET_PK_STRINGS ((uint32_t)1 << 20)

/*
 * New distinct strings one input may add to the process-wide intern table
 * (hd_intern()): hosts, versions, op, group and frame names.  Real inputs
 * add at most thousands; past the budget the input is refused, since
 * strings it could not keep would read as the same placeholder.
 */
#define HD_BUDGET_STRINGS_PER_INPUT ((uint64_t)1 << 20)

/*
 * Archives (incident bundles: tar, tar.gz, tar.zst, zip).  Each member is
 * read under the budget of its own kind, as a file would be; the archive
 * as a whole has budgets of its own, so that a bundle of many members
 * cannot cost what one input may not.  Members: 2^18 entries of any type
 * is 16,384 ranks with 16 files each.  Bytes: the members' bytes as stored
 * in the archive (before a .gz member's own decompression), 64 GiB, four
 * logs at their budget.  Ratio: those bytes per byte of the archive file,
 * checked past HD_BUDGET_RATIO_GRACE like a compressed input's; the same
 * 1000 : 1 as logs, which deflate (zip, tar.gz) cannot pass by much, so a
 * zip of zeros is refused while any real bundle passes.
 */
#define HD_BUDGET_ARCHIVE_MEMBERS ((uint64_t)1 << 18)
#define HD_BUDGET_ARCHIVE_BYTES	  ((uint64_t)64 << 30)
#define HD_BUDGET_ARCHIVE_RATIO	  1000

/*
 * The largest zstd window a frame may ask for, as a power of two: 2^27 is
 * 128 MiB, what zstd --long writes, and the memory one zstd reader may
 * hold for it.  A frame asking for more is refused as corrupt instead of
 * costing gigabytes.  zstd sizes its window to the frame's content, so
 * small files cost little whatever their level.
 */
#define HD_BUDGET_ZSTD_WINDOW_LOG 27

/*
 * One incident (every file and archive member one load reads): its inputs'
 * budgets add up, so that what a load costs follows the incident, however
 * it is split.  Three sums, each for what it bounds:
 *
 * - Memory: the records the parsed inputs keep (ops and their extra
 *   records, signals and their texts, stacks; hd_store_kept_bytes()), at
 *   most HD_BUDGET_INCIDENT_RECORDS.  Memory follows these, not the bytes
 *   read: a 131,072-rank job's dumps are 122 GiB with 500 entries a rank,
 *   nearly all of it the member list every dump repeats, which is kept
 *   once; its 65 M ops keep 3.4 GB.  16 GiB is two thirds of the 24 GiB
 *   machines this is measured on: 131,072 ranks of 500 entries or of
 *   2,000 (262 M ops of 52 bytes, about 14 GB with the rest) are read
 *   whole; more are read as far as the budget goes.  An input whose
 *   records would pass it keeps none (its memory is freed), so the kept
 *   records never pass the budget by more than the inputs being parsed
 *   at once.
 * - Decompression: past HD_BUDGET_RATIO_GRACE decoded in all, the decoded
 *   bytes may not pass HD_BUDGET_INCIDENT_RATIO times the bytes read from
 *   disk (files as stored, archives included): 300 tiny .zst files, each
 *   within the grace, or one 8 MB .zst at 750 : 1 (4.1 GB of memory
 *   before) are refused past 250 : 1.  250 is the flight-recorder ratio,
 *   above the 167 : 1 of a synthetic COLL log, every line alike but its
 *   counter, at zstd -19 --long; real incidents, with timestamps and other
 *   ranks' plain files, compress far less.
 * - Time: the decoded bytes, at most HD_BUDGET_INCIDENT_BYTES in all.
 *   Bytes read past cost time (about a second of CPU a GiB of dumps, a
 *   few a GiB of logs), not memory: 1 TiB is a bound on a run's time,
 *   seven times the largest incident measured (146 GiB of dumps, 131,072
 *   ranks of 2,000 entries).  Until issue 22 this was 64 GiB, which also
 *   stood for memory and refused half of a real 131,072-rank incident.
 *
 * An input past a budget is refused like one past its own (what was read
 * before stays, except past the records' budget, above), and so is every
 * later one: the incident fails, not the run (triage goes on with the next
 * incident).
 */
#define HD_BUDGET_INCIDENT_RATIO   250
#define HD_BUDGET_INCIDENT_BYTES   ((uint64_t)1 << 40)
#define HD_BUDGET_INCIDENT_RECORDS ((uint64_t)16 << 30)

/*
 * The sums of one incident, shared by the readers of a load (which may run
 * on several threads).  Readers add to them (hd_reader_set_pool()).
 */
struct hd_budget_pool;

/* (transfer full) */
struct hd_budget_pool *hd_budget_pool_new(uint64_t max_bytes,
					  unsigned max_ratio,
					  uint64_t max_records);
void hd_budget_pool_free(struct hd_budget_pool *p);
typedef struct hd_budget_pool hd_budget_pool; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_budget_pool, hd_budget_pool_free)

/* Adds n bytes read from disk. */
void hd_budget_pool_add_stored(struct hd_budget_pool *p, uint64_t n);
/*
 * Adds n decoded bytes and says whether the incident is still within its
 * budget; if not, why, in *why.  (transfer full)
 */
bool hd_budget_pool_add_decoded(struct hd_budget_pool *p, uint64_t n,
				char **why);
/*
 * Adds the n bytes an input's parsed records keep (hd_store_kept_bytes())
 * and says whether the incident is still within its budget; if not, why,
 * in *why, and every later hd_budget_pool_add_decoded() refuses too.
 * (transfer full)
 */
bool hd_budget_pool_add_records(struct hd_budget_pool *p, uint64_t n,
				char **why);

/* Parser threads: more than this many per CPU only costs memory. */
#define HD_BUDGET_JOBS_PER_CPU 4

#endif
