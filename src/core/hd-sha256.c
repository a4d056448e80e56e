/*
 * SHA-256 fed in pieces, on a thread of its own once the stream is large.
 * The thread takes filled chunks from one queue and gives them back
 * empty on another; a chunk of length 0 tells it to stop.  The digest's
 * context belongs to the thread from its start until it is joined.
 * libcrypto is opened by the first hasher, not linked (src/core/hd-dl.h):
 * only --sha256 needs it.
 */
#include "config.h"

#include "hd-sha256.h"

#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hd-dl.h"
#include "hd-banned.h"

/* Every libcrypto function this file calls, through ssl below. */
#define SSL_FUNCS(X)          \
	X(EVP_MD_CTX_new)     \
	X(EVP_MD_CTX_free)    \
	X(EVP_sha256)         \
	X(EVP_DigestInit_ex)  \
	X(EVP_DigestUpdate)   \
	X(EVP_DigestFinal_ex) \
	X(OPENSSL_thread_stop)

#define SSL_SYM(f) HD_DL_SYM(ssl, f)

/* Filled by hd_dl_load(&libcrypto) before a hasher is made. */
static struct {
	SSL_FUNCS(HD_DL_POINTER)
} ssl;

static const struct hd_dl_sym ssl_syms[] = { SSL_FUNCS(SSL_SYM){ NULL, NULL } };

static struct hd_dl libcrypto = { .soname = HD_LIBCRYPTO_SONAME,
				  .syms = ssl_syms };

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
		    !ssl.EVP_DigestUpdate(h->ctx, c->data, len))
			h->failed = true;
		g_async_queue_push(h->empty, c);
		if (!len) {
			ssl.OPENSSL_thread_stop();
			return NULL;
		}
	}
}

bool hd_sha256_available(GError **error)
{
	return hd_dl_load(&libcrypto, error);
}

struct hd_sha256 *hd_sha256_new(void)
{
	struct hd_sha256 *h;

	if (!hd_sha256_available(NULL))
		return NULL;
	h = g_new0(struct hd_sha256, 1);

	h->ctx = ssl.EVP_MD_CTX_new();
	if (!h->ctx || !ssl.EVP_DigestInit_ex(h->ctx, ssl.EVP_sha256(), NULL)) {
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
		if (!h->failed && !ssl.EVP_DigestUpdate(h->ctx, p, n))
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
	if (h->failed || !ssl.EVP_DigestFinal_ex(h->ctx, md, &len))
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
	/* a hasher exists only once libcrypto is loaded */
	ssl.EVP_MD_CTX_free(h->ctx);
	g_free(h);
}

void hd_sha256_thread_done(void)
{
	/* a thread that hashed nothing must not load libcrypto to say so */
	if (hd_dl_loaded(&libcrypto))
		ssl.OPENSSL_thread_stop();
}
