/*
 * Readers: one input's bytes, from a file, standard input, memory or an
 * archive member, with gzip and zstd decoded transparently (known by their
 * magic bytes, never by the file name).  Every decoded byte is counted
 * against the input's budget and hashed, so that copies of one input can be
 * told apart from different inputs.  Nothing here knows about formats.
 *
 * Errors say what went wrong, not where: the caller names the input (it
 * files them against one), so that no message repeats the path.
 *
 * Ownership: a reader owns its file and buffers; pointers it returns stay
 * valid until the next call on the same reader.
 */
#ifndef HD_READER_H
#define HD_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <glib.h>

#include "hd-sha256.h"

/* The first bytes of the decompressed stream, kept for sniffing. */
#define HD_READER_HEAD_MAX 4096

enum hd_compression {
	HD_COMP_NONE = 0,
	HD_COMP_GZIP,
	HD_COMP_ZSTD,
};

struct hd_reader;

/* What standard input ("-") is called in messages and reports. */
#define HD_STDIN_NAME "<stdin>"

/*
 * Opens path for reading, detecting gzip and zstd from the magic bytes;
 * "-" is standard input.  Only regular files are read: anything else (a
 * FIFO, a device) is refused without waiting on it.  The budget is
 * HD_BUDGET_DEFAULT_BYTES at HD_BUDGET_LOG_RATIO until
 * hd_reader_set_budget().  (transfer full)
 */
struct hd_reader *hd_reader_open(const char *path, GError **error);
/*
 * Wraps a memory buffer (not copied; must outlive the reader), detecting
 * compression the same way.  For tests and fuzzers.  (transfer full)
 */
struct hd_reader *hd_reader_new_from_memory(const void *data, size_t len,
					    GError **error);
/*
 * Pulls up to n more bytes of a stream into buf: the count, 0 at its end,
 * -1 with error set when it cannot go on.
 */
typedef ssize_t (*hd_reader_pull_fn)(void *data, void *buf, size_t n,
				     GError **error);
/*
 * Reads the stream pull gives (an archive member), named name in messages,
 * detecting compression the same way.  data must outlive the reader.
 * (transfer full)
 */
struct hd_reader *hd_reader_new_from_callback(const char *name,
					      hd_reader_pull_fn pull,
					      void *data, GError **error);
void hd_reader_free(struct hd_reader *r);
typedef struct hd_reader hd_reader; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_reader, hd_reader_free)

enum hd_compression hd_reader_compression(const struct hd_reader *r);
const char *hd_reader_path(const struct hd_reader *r);

/*
 * Sets what reading r may cost (src/core/hd-budget.h): at most max_bytes
 * decoded bytes, and, once HD_BUDGET_RATIO_GRACE bytes are decoded from a
 * compressed input, at most max_ratio decoded bytes per compressed byte
 * (0: no ratio cap).  what names the kind of input in messages ("an NCCL
 * log").  A read past either fails with HD_ERROR_TOO_BIG, naming the file
 * and the budget, and so does every read after it; what was read before
 * stays valid.  what must outlive r.
 */
void hd_reader_set_budget(struct hd_reader *r, uint64_t max_bytes,
			  unsigned max_ratio, const char *what);

/* The budget one incident's readers share (hd-budget.h). */
struct hd_budget_pool;

/*
 * Makes r add to pool, the budget of its incident: if stored, the bytes it
 * reads from its source (a file; not an archive member, whose archive
 * reads them from disk), and if decoded, the bytes it decodes (an input
 * parsed; not an archive, whose members count theirs).  What r has read
 * so far is added now, and only once however often this is called.  Past
 * the pool's budget, reads fail as past r's own.  pool must outlive r.
 */
void hd_reader_set_pool(struct hd_reader *r, struct hd_budget_pool *pool,
			bool stored, bool decoded);

/* Why r stopped at its budget, or NULL.  (transfer none) */
const char *hd_reader_refusal(const struct hd_reader *r);
/* Whether that budget was the incident's (hd_reader_set_pool()). */
bool hd_reader_refused_by_pool(const struct hd_reader *r);

/*
 * What was ignored after the end of the compressed data, or NULL: zero
 * padding or other bytes after a complete gzip member or zstd frame, which
 * gzip and zstd also skip ("512 bytes of zero padding after the gzip data,
 * ignored").  Known once the stream has been read to its end.
 * (transfer none)
 */
const char *hd_reader_trailing(const struct hd_reader *r);

/*
 * "UTF-16LE" or "UTF-16BE" when the decoded stream is UTF-16 text (a
 * byte-order mark, or ASCII with every other byte 0: what PowerShell 5's
 * ">" and some converters write), handed out transcoded to UTF-8; NULL
 * when it is handed out as it is.  Known once the head was read.
 */
const char *hd_reader_encoding(const struct hd_reader *r);

/*
 * NUL bytes skipped as no content: at the start of the stream
 * (hd_reader_head()) and, in text, by the line splitter (hd-lines.h),
 * which counts them here with hd_reader_add_nul().
 */
uint64_t hd_reader_nul_skipped(const struct hd_reader *r);
void hd_reader_add_nul(struct hd_reader *r, uint64_t n);

/*
 * What a reader has decoded, to tell copies of one input apart.  The hash
 * is XXH3-64 (libxxhash) of the decoded bytes: a non-cryptographic content
 * hash, which tells copies of one input from different inputs, not from
 * forgeries.  It depends on the bytes alone, never on how they were
 * compressed or read.
 */
struct hd_digest {
	uint64_t hash; /* XXH3-64 of the decoded bytes, seed 0 */
	uint64_t length; /* how many there were */
	bool complete; /* the whole stream was decoded: no error, no cut */
	bool hashed; /* hash is set: hd_reader_skip_content_hash() was not */
};

/* The digest of every byte decoded so far, the sniffed head included. */
void hd_reader_digest(const struct hd_reader *r, struct hd_digest *d);

/*
 * Stops hashing the decoded bytes: the digest then gives their length
 * only.  For an input whose content no other input can share (the loader
 * hashes it again, by reading it again, if one turns out to).
 */
void hd_reader_skip_content_hash(struct hd_reader *r);

/*
 * Makes r also hash the bytes it reads from its source as stored (before
 * any decompression) with XXH3-128, a fast non-cryptographic hash, and
 * with sha256 also SHA-256: what sha256sum gives for the file, once
 * hd_reader_stored_hashes() has read what the parse left.  Call it right
 * after opening, before anything is read: the bytes read to sniff the
 * compression are hashed now.
 */
void hd_reader_hash_stored(struct hd_reader *r, bool sha256);

/* The length of an XXH3-128 in lowercase hex, without its NUL. */
#define HD_XXH3_128_HEX_LEN 32

/* What hd_reader_stored_hashes() gives. */
struct hd_stored {
	uint64_t size; /* bytes the source held */
	/* XXH3-128 (seed 0) of them, canonical (big-endian) lowercase hex,
	   as xxhsum -H2 prints it */
	char xxh3_128[HD_XXH3_128_HEX_LEN + 1];
	bool has_sha256; /* asked for */
	char sha256[HD_SHA256_HEX_LEN + 1];
};

/*
 * Reads what is left of r's source without decoding it (nor counting it
 * against any budget: it is hashed, not parsed), and gives the hashes of
 * every byte the source held, and their count, in out.  False when r was
 * not made to hash (hd_reader_hash_stored()) or a read failed; out is
 * then undefined.  r reads nothing after it.
 */
bool hd_reader_stored_hashes(struct hd_reader *r, struct hd_stored *out);

/*
 * Returns up to HD_READER_HEAD_MAX decompressed bytes from the start of the
 * stream without consuming them.  NUL bytes at the start of the stream are
 * skipped first and counted (hd_reader_nul_skipped()): no input format
 * starts with one, and a text log may (a log truncated by logrotate's
 * copytruncate while its writer kept its offset starts with a hole of
 * zeros).  (transfer none)  A read error is set in *error only when it
 * left no byte; one that stopped the head after some is the error of the
 * hd_reader_read() that follows the head's bytes, so a short input cut
 * inside its compressed stream is read up to the cut.
 */
const uint8_t *hd_reader_head(struct hd_reader *r, size_t *len, GError **error);

/*
 * Reads up to n decompressed bytes into buf.  Returns the count, 0 at end of
 * stream, -1 with error set on a read or decompression failure (a
 * truncated compressed stream is such a failure; what was read before it
 * stays valid).
 */
ssize_t hd_reader_read(struct hd_reader *r, void *buf, size_t n,
		       GError **error);

/* Bytes read from the source so far, before any decompression. */
uint64_t hd_reader_raw_consumed(const struct hd_reader *r);

/* Total decompressed bytes handed out so far. */
uint64_t hd_reader_consumed(const struct hd_reader *r);

/*
 * Reads the whole decompressed stream into memory, failing cleanly (not
 * aborting) once it exceeds max bytes.  (transfer full)
 */
GBytes *hd_reader_slurp(struct hd_reader *r, size_t max, GError **error);

#endif
