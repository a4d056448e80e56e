/*
 * The parser registry: which parser reads which input kind (sniffing,
 * dispatch, budgets), and the one way to parse one input.  The parsers
 * themselves are declared in formats.h.
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
#ifndef HD_PARSERS_H
#define HD_PARSERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "hd-input.h"
#include "hd-store.h"

/*
 * What hangdoc wrote, when head is the start of one of its own outputs (a
 * report in any format, a show listing, a Perfetto export): left in an
 * evidence directory, it must not be read back as logs.  NULL otherwise.
 */
const char *parsers_own_output(const uint8_t *head, size_t len);

/* The first decompressed bytes of an input, as sniffing sees them. */
struct parsers_head {
	const uint8_t *p;
	size_t len;
	/*
	 * The first byte that is not blank (after a UTF-8 BOM), -1 none; a
	 * '[' not followed by '{' reads as 't' (a "[rank3]:" log line).
	 */
	int first;
};

void parsers_head_init(struct parsers_head *h, const uint8_t *head, size_t len);

/* What reading one input of a kind may cost (hd_reader_set_budget()). */
struct parsers_budget {
	uint64_t bytes; /* decompressed bytes */
	unsigned ratio; /* decompressed : compressed */
	const char *what; /* "a profiler trace": names the input in errors */
};

/*
 * One entry of the registry: everything the loader needs to know about an
 * input kind.  Its name in reports is hd_input_kind_name(kind).
 */
struct parsers_entry {
	enum hd_input_kind kind;
	/* Whether the head is this kind's; entries are tried in order. */
	bool (*sniff)(const struct parsers_head *h);
	/* The parser, with the contract of formats.h. */
	bool (*parse)(struct hd_reader *rd, struct hd_store *store,
		      uint32_t input, GError **error);
	/* The budget of an input of this kind whose head is h. */
	struct parsers_budget (*budget)(const struct parsers_head *h);
	/* Frees the calling thread's scratch buffers; NULL: none kept. */
	void (*release_buffers)(void);
};

/* The registry entry of kind; NULL for HD_INPUT_UNKNOWN.  (transfer none) */
const struct parsers_entry *parsers_entry(enum hd_input_kind kind);

/*
 * Decides the format from the first decompressed bytes of an input: the
 * first registry entry whose sniff claims them, else HD_INPUT_UNKNOWN.
 */
enum hd_input_kind parsers_sniff(const uint8_t *head, size_t len);

/* The budget for an input of kind whose first bytes are head. */
struct parsers_budget parsers_budget(enum hd_input_kind kind,
				     const uint8_t *head, size_t len);

/*
 * The one way to parse one input, used by the loader, the tests and the
 * fuzzers: reads rd (sniffing its kind unless kind is given) into a new
 * store whose only input is named name.  It never fails: what went wrong is
 * the input's error or its warnings, and what was read before stays.
 * (transfer full)
 */
struct hd_store *parsers_parse_input(struct hd_reader *rd, const char *name,
				     enum hd_input_kind kind);
/* The same for the file at path, decompressed as needed.  (transfer full) */
struct hd_store *parsers_parse_file(const char *path);
/*
 * Parsers may keep scratch buffers per thread from file to file; this frees
 * the calling thread's (threads that exit free theirs).
 */
void parsers_release_buffers(void);

/* Runs the parser for kind on rd. */
bool parsers_parse(enum hd_input_kind kind, struct hd_reader *rd,
		   struct hd_store *store, uint32_t input, GError **error);

#include "formats.h"

#endif
