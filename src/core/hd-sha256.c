/*
 * SHA-256 fed in pieces, on a thread of its own once the stream is large.
 * The thread takes filled chunks from one queue and gives them back
 * empty on another; a chunk of length 0 tells it to stop.  The digest's
 * context belongs to the thread from its start until it is joined.
 */
#include "config.h"

#include "hd-sha256.h"

#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hd-banned.h"

struct chunk {
	size_t len; /* 0: stop */
	unsigned char data[HD_SHA256_CHUNK_BYTES];
};

struct hd_sha256 {
	EVP_MD_CTX *ctx;
	bool failed; /* written by the thread while it runs */
	bool finished;
	size_t inline_bytes; /* hashed on the caller's thread */
	GThread *thread; /* NULL: not started (or could not be) */
	GAsyncQueue *full, *empty; /* of struct chunk */
};

static gpointer hasher(gpointer data)
{
	struct hd_sha256 *h = data;

	for (;;) {
		struct chunk *c = g_async_queue_pop(h->full);
		size_t len = c->len;

		if (len && !h->failed &&
		    !EVP_DigestUpdate(h->ctx, c->data, len))
			h->failed = true;
		g_async_queue_push(h->empty, c);
		if (!len) {
			OPENSSL_thread_stop();
			return NULL;
		}
	}
}

struct hd_sha256 *hd_sha256_new(void)
{
	struct hd_sha256 *h = g_new0(struct hd_sha256, 1);

	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || !EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL)) {
		hd_sha256_free(h);
		return NULL;
	}
	return h;
}

/* Starts the thread; false, hashing inline, when it cannot be. */
static bool start(struct hd_sha256 *h)
{
	h->full = g_async_queue_new();
	h->empty = g_async_queue_new_full(g_free);
	for (int i = 0; i < HD_SHA256_CHUNKS; i++)
		g_async_queue_push(h->empty, g_new(struct chunk, 1));
	h->thread = g_thread_try_new("hd-sha256", hasher, h, NULL);
	return h->thread != NULL;
}

/* Tells the thread to stop and waits for it. */
static void stop(struct hd_sha256 *h)
{
	struct chunk *c;

	if (!h->thread)
		return;
	c = g_async_queue_pop(h->empty);
	c->len = 0;
	g_async_queue_push(h->full, c);
	g_thread_join(h->thread);
	h->thread = NULL;
}

void hd_sha256_update(struct hd_sha256 *h, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	g_return_if_fail(!h->finished);
	if (!h->thread &&
	    (h->full || h->inline_bytes + n <= HD_SHA256_INLINE_BYTES ||
	     !start(h))) {
		h->inline_bytes += n;
		if (!h->failed && !EVP_DigestUpdate(h->ctx, p, n))
			h->failed = true;
		return;
	}
	while (n > 0) {
		struct chunk *c = g_async_queue_pop(h->empty);

		c->len = MIN(n, sizeof(c->data));
		memcpy(c->data, p, c->len);
		g_async_queue_push(h->full, c);
		p += c->len;
		n -= c->len;
	}
}

bool hd_sha256_finish(struct hd_sha256 *h, char hex[HD_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;

	g_return_val_if_fail(!h->finished, false);
	stop(h);
	h->finished = true;
	if (h->failed || !EVP_DigestFinal_ex(h->ctx, md, &len))
		return false;
	g_assert(len * 2 == HD_SHA256_HEX_LEN);
	for (unsigned i = 0; i < len; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[HD_SHA256_HEX_LEN] = '\0';
	return true;
}

void hd_sha256_free(struct hd_sha256 *h)
{
	if (!h)
		return;
	stop(h);
	if (h->full)
		g_async_queue_unref(h->full);
	if (h->empty)
		g_async_queue_unref(h->empty);
	EVP_MD_CTX_free(h->ctx);
	g_free(h);
}

void hd_sha256_thread_done(void)
{
	OPENSSL_thread_stop();
}
