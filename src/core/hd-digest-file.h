/*
 * Digests (docs/format-digest.md): what one node's inputs say, as the
 * store the parsers made of them, written compactly so that a node can
 * send it instead of its files, and read back into a store that the
 * engine cannot tell from the one the files give.
 *
 * A digest holds every entity the engine reads: the inputs (name, kind,
 * sizes, SHA-256, warnings, errors, attempts), ranks, groups with their
 * members, op descriptors, ops, signals and stacks, each string once.
 * Provenance is kept as it was, so evidence read from a digest still cites
 * the original file and line.  The bytes start with HD_DIGEST_MAGIC and a
 * version; files are zstd-compressed (the reader decodes them like any
 * other compressed input).
 *
 * This is the one file that knows the layout: a field added to the store
 * is a line in the writer and one in the reader here, and a bump of
 * HD_DIGEST_VERSION.  A digest is untrusted input: the reader checks every
 * count against the bytes left, every index against what it indexes and
 * every enum against its range, and fails with a message naming the
 * section and byte offset, never crashes.
 */
#ifndef HD_DIGEST_FILE_H
#define HD_DIGEST_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "hd-store.h"

/* The first bytes of a digest (decoded): binary, so never a text log. */
#define HD_DIGEST_MAGIC	    "\x89hangdoc-digest\r\n\x1a\n"
#define HD_DIGEST_MAGIC_LEN 19
/* The layout this hangdoc writes and reads. */
#define HD_DIGEST_VERSION 5

/* Whether head (decoded bytes) starts a digest. */
bool hd_digest_file_sniff(const uint8_t *head, size_t len);

/*
 * Encodes s, a store of loaded inputs (before hd_store_resolve(), whose
 * joins the analysis makes once over every node), as digest bytes:
 * uncompressed when level is 0, else zstd at that level.  (transfer full)
 */
GBytes *hd_digest_file_encode(const struct hd_store *s, int level,
			      GError **error);

/*
 * Decodes a digest (uncompressed: what a reader gives) into s, whose
 * input `input` is the digest's own: it becomes the digest's first input
 * and the others are appended after it, so every record keeps its
 * provenance.  Returns false with error set when the bytes are not a
 * well-formed digest of this version; s then holds what was decoded
 * before the fault, every index in it valid.
 */
bool hd_digest_file_decode(const uint8_t *p, size_t len, struct hd_store *s,
			   uint32_t input, GError **error);

#endif
