/*
 * SHA-256 of a stream fed in pieces, for describing a file as stored
 * while it is read for parsing (issue 22).  OpenSSL's libcrypto does the
 * hashing, with the CPU's SHA instructions where it has them; it is
 * opened by the first hasher, not linked.  Past the
 * first HD_SHA256_INLINE_BYTES the pieces are copied to a thread of the
 * hasher's own, so that a parse and the hash of its file run side by
 * side instead of one after the other; at most HD_SHA256_CHUNKS chunks of
 * HD_SHA256_CHUNK_BYTES wait for it, and a feed that finds none free
 * waits for the thread.
 *
 * Ownership: one hasher is fed from one thread; hd_sha256_free() stops
 * its thread.
 */
#ifndef HD_SHA256_H
#define HD_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

/* The length of a SHA-256 in lowercase hex, without its NUL. */
#define HD_SHA256_HEX_LEN 64

/* Below this, hashing on the caller's thread costs less than a thread. */
#define HD_SHA256_INLINE_BYTES (4u << 20)
#define HD_SHA256_CHUNK_BYTES  (256u << 10)
#define HD_SHA256_CHUNKS       8

struct hd_sha256;

/*
 * Whether SHA-256 can be had: loads libcrypto (opened on first use, not
 * linked) and says why not, naming the library, when it cannot be.
 */
bool hd_sha256_available(GError **error);

/*
 * A new hasher, or NULL when libcrypto cannot be loaded or cannot make
 * one.  (transfer full)
 */
struct hd_sha256 *hd_sha256_new(void);

/* Hashes the next n bytes of buf. */
void hd_sha256_update(struct hd_sha256 *h, const void *buf, size_t n);

/*
 * Writes the SHA-256 of every byte fed as HD_SHA256_HEX_LEN lowercase hex
 * digits and a NUL into hex.  False when hashing failed; hex is then
 * untouched.  Nothing may be fed after it, and it is called once.
 */
bool hd_sha256_finish(struct hd_sha256 *h, char hex[HD_SHA256_HEX_LEN + 1]);

void hd_sha256_free(struct hd_sha256 *h);

/*
 * Releases what libcrypto keeps for the calling thread, which a hasher
 * fed on it may have made.  For threads that outlive their work (a
 * thread pool's): libcrypto frees it at the thread's exit, but not when
 * the process ends first.
 */
void hd_sha256_thread_done(void);
typedef struct hd_sha256 hd_sha256; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_sha256, hd_sha256_free)

#endif
