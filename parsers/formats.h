/*
 * The entry points of the format parsers, below the registry that sniffs
 * and dispatches (parsers.h): the parsers include this and rank-name.h,
 * never parsers.h.
 *
 * The parsers: one per source format, each turning one input into records
 * of a store (src/hd-store.h).  Parsers never print and never exit: problems
 * go to the input's warnings (hd_input_warn()) or, when nothing at all could
 * be read, to the GError.
 *
 * Ownership: a parser borrows the reader and the store; everything it makes
 * is handed to the store.
 *
 * Contract shared by every parser:
 *  - store holds exactly the input `input` (index) when the parser is
 *    called, and the parser fills in that input's kind, rank (when the whole
 *    input is one rank), records, skipped and truncated;
 *  - every record read either lands in the store or is counted in skipped
 *    with a warning that says why (line or byte offset included);
 *  - memory is bounded by the records kept, never by the input size;
 *  - a false return means the input was unusable as a whole; records added
 *    before a mid-file failure stay in the store.
 */
#ifndef HD_FORMATS_H
#define HD_FORMATS_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-input.h"
#include "hd-store.h"

/* NCCL_DEBUG output and PyTorch c10d / torchrun messages (parsers/nccl-log.c). */
bool nccl_log_parse(struct hd_reader *rd, struct hd_store *store,
		    uint32_t input, GError **error);
/*
 * Whether nccl_log_parse() reads the complete COLL records of processes
 * it has seen through its fast path (on by default).  Process-wide; the
 * tests turn it off to compare the two ways, which give the same store.
 */
void nccl_log_set_fast(bool on);
/* Lines read through that fast path so far, by every parse (tests). */
uint64_t nccl_log_fast_lines(void);
/*
 * After the merge: gives the anonymous processes of NCCL logs that continue
 * a process another log of the incident names (a rotated log) its rank,
 * comms and positions (parsers/nl-continue.c).
 */
void nl_continue_procs(struct hd_store *s);
/*
 * After the merge and the incident split: marks completed the NCCL ops
 * that a rank's c10d watchdog counters ("last completed NCCL work: N")
 * show completed, where its process group maps to one comm of the rank
 * (parsers/nl-counters.c).
 */
void nl_counters_complete(struct hd_store *s);

/*
 * After nl_continue_procs(): a log whose ops of a rank are the first ops
 * of another log of that rank (a copy taken earlier, during the hang)
 * gives them up to the other, with a warning (parsers/nl-continue.c).
 */
void nl_drop_earlier_copies(struct hd_store *s);

/* PyTorch flight-recorder dumps, pickle or JSON (parsers/flight-rec.c). */
bool flight_rec_parse(struct hd_reader *rd, struct hd_store *store,
		      uint32_t input, GError **error);

/*
 * The FR parser keeps its buffers per thread from file to file; this frees
 * the calling thread's (threads that exit free theirs).
 */
void flight_rec_release_buffers(void);
/*
 * Sets the node budget of the dumps, pickle or JSON, that the calling thread
 * parses next (tests); 0 restores HD_BUDGET_PK_NODES.
 */
void flight_rec_set_node_budget(uint32_t max_nodes);

/* Kineto / PyTorch profiler Chrome traces (parsers/kineto.c). */
bool kineto_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		  GError **error);

/*
 * Kernel logs: dmesg, dmesg -T, journalctl -k (parsers/kernel-log.c).
 * kernel_log_sniff() says whether a head is one.
 */
bool kernel_log_sniff(const uint8_t *head, size_t len);
bool kernel_log_parse(struct hd_reader *rd, struct hd_store *store,
		      uint32_t input, GError **error);

/* ibstat, ibstatus, ibv_devinfo, perfquery output (parsers/ib-state.c). */
bool ib_state_sniff(const uint8_t *head, size_t len);
bool ib_state_parse(struct hd_reader *rd, struct hd_store *store,
		    uint32_t input, GError **error);

/* nvidia-smi -q output (parsers/gpu-state.c). */
bool gpu_state_sniff(const uint8_t *head, size_t len);
bool gpu_state_parse(struct hd_reader *rd, struct hd_store *store,
		     uint32_t input, GError **error);

/*
 * hangdoc digests (parsers/digest.c): the stores of the inputs a digest
 * was made of, with their own provenance; the digest's input becomes the
 * first of them and the others are added after it.
 */
bool digest_sniff(const uint8_t *head, size_t len);
bool digest_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		  GError **error);

/* py-spy dumps, text or --json (parsers/pyspy.c). */
bool pyspy_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		 GError **error);

/*
 * gdb `thread apply all bt` output, live or core (parsers/gdb-bt.c).
 * gdb_bt_sniff() says whether a head is one.
 */
bool gdb_bt_sniff(const uint8_t *head, size_t len);
bool gdb_bt_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		  GError **error);

/* TORCHELASTIC_ERROR_FILE JSON (parsers/torchelastic.c). */
bool torchelastic_sniff(const uint8_t *head, size_t len);
bool torchelastic_parse(struct hd_reader *rd, struct hd_store *store,
			uint32_t input, GError **error);

/* NCCL_TOPO_DUMP_FILE XML (parsers/nccl-topo.c). */
bool nccl_topo_sniff(const uint8_t *head, size_t len);
bool nccl_topo_parse(struct hd_reader *rd, struct hd_store *store,
		     uint32_t input, GError **error);

/* NCCL Inspector plugin JSON (parsers/nccl-inspector.c). */
bool nccl_inspector_parse(struct hd_reader *rd, struct hd_store *store,
			  uint32_t input, GError **error);

#endif
