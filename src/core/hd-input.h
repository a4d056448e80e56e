/*
 * The input layer: find files below the paths a user gives, open them with
 * transparent gzip/zstd decompression, and read them as a byte stream or as
 * bounded lines.  Nothing here knows about formats; parsers/ sniffs those.
 *
 * Ownership: a reader owns its file and buffers; pointers it returns stay
 * valid until the next call on the same reader.
 */
#ifndef HD_INPUT_H
#define HD_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

/* The first bytes of the decompressed stream, kept for sniffing. */
#define HD_READER_HEAD_MAX 4096
/* Lines longer than this are cut; the rest of the line is skipped. */
#define HD_LINE_MAX (64 * 1024)

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

/* Why r stopped at its budget, or NULL.  (transfer none) */
const char *hd_reader_refusal(const struct hd_reader *r);

/* What a reader has decoded, to tell copies of one input apart. */
struct hd_digest {
	uint64_t hash; /* a 64-bit hash of the decoded bytes */
	uint64_t length; /* how many there were */
	bool complete; /* the whole stream was decoded: no error, no cut */
};

/* The digest of every byte decoded so far, the sniffed head included. */
void hd_reader_digest(const struct hd_reader *r, struct hd_digest *d);

/*
 * Returns up to HD_READER_HEAD_MAX decompressed bytes from the start of the
 * stream without consuming them.  (transfer none)
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

/*
 * Bounded line iteration.  Line terminators (\n, \r\n) are stripped; a NUL
 * byte inside a line is kept (callers treat lines as byte ranges).
 */
struct hd_lines;

/* (transfer full); the reader stays owned by the caller */
struct hd_lines *hd_lines_new(struct hd_reader *r);
void hd_lines_free(struct hd_lines *l);
typedef struct hd_lines hd_lines; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_lines, hd_lines_free)

/*
 * Returns the next line in *line and *len (transfer none; valid until the next
 * call) and true, or false at end of input or on error (check *error).
 * A line longer than HD_LINE_MAX is returned cut to HD_LINE_MAX bytes with
 * *cut set; the rest of it is skipped.  The last line may lack a newline.
 */
bool hd_lines_next(struct hd_lines *l, const char **line, size_t *len,
		   bool *cut, GError **error);
/* The number of the line last returned, from 1. */
uint64_t hd_lines_lineno(const struct hd_lines *l);

/* One file hd_discover() found. */
struct hd_found {
	/* as given or found below a given directory; "-" is standard input */
	char *path;
	uint64_t dev, ino; /* the file's identity, 0 when unknown */
	/* an earlier entry that is the same file (device, inode), or -1 */
	int same_as;
};

/* Frees a struct hd_found (a GDestroyNotify). */
void hd_found_free(gpointer f);

/*
 * Walks the given paths and appends a struct hd_found for every input to
 * found (owning them: create it with hd_found_free).  Paths given are
 * taken whatever they are links to: a regular file, a directory walked
 * recursively in sorted order, or "-" for standard input; anything else (a
 * FIFO, a device) is refused.  Below a directory, hidden entries, FIFOs,
 * sockets and devices are skipped, and a symbolic link is followed only
 * to a regular file inside the given paths, never to a directory.  The
 * same file reached twice (a directory given twice, a link, a hard link)
 * is listed each time, with same_as naming the first.  What cannot be
 * read or is not followed is said in errors (char *, "cannot read 'x':
 * why").
 */
void hd_discover(char **paths, GPtrArray *found, GPtrArray *errors);

#endif
