/*
 * The input layer: file discovery, streaming gzip/zstd decompression and
 * bounded line splitting.  Compression is detected from magic bytes, never
 * from the file name; concatenated gzip members and zstd frames (pzstd's
 * skippable ones too) are read through.  Every decoded byte passes one
 * place, decode(), which enforces the input's budget and hashes it, so
 * that copies of one input can be told apart from different inputs.
 */
#include "config.h"

#include "hd-input.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "hd-budget.h"
#include "hd-error.h"
#include "hd-banned.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HD_HASH_AVX2 1
#endif

#define RAW_BUF_SIZE (256 * 1024)

/*
 * The content hash: 64-byte stripes into eight 64-bit lanes, each adding
 * a word to its neighbour and the product of the word's keyed halves to
 * itself, the lanes scrambled every 4 KiB: the shape of XXH3's long-input
 * loop, which SSE2 runs at tens of GB/s, so hashing what the reader hands
 * out costs next to nothing beside parsing it.  Not cryptographic: it tells
 * copies of one input from different inputs, not from forgeries.
 */
#define HASH_STRIPE	   64
#define HASH_BLOCK_STRIPES 64

struct hd_hash {
	uint64_t acc[8];
	uint8_t tail[HASH_STRIPE];
	size_t tail_len;
	unsigned stripes; /* stripes into the current block */
	bool avx2; /* the same sums, four lanes a vector */
};

/*
 * Keys with no structure of their own (splitmix64 from the digits of pi).
 * Stripe s of a block is keyed with hash_key[s .. s + 7], so that stripes
 * of one block do not commute; the scramble takes the last eight.
 */
static const uint64_t hash_key[HASH_BLOCK_STRIPES + 8] = {
	0x2cb0f69f4abea221ULL, 0x9417034723148989ULL, 0xdd555950609dfe03ULL,
	0xdbafb150deb12800ULL, 0x7e789b2e6c442cb6ULL, 0xf41e5636c7e4f8c4ULL,
	0x0959d150f8fba7e4ULL, 0xa97316f13cdb9eeaULL, 0x74cd8258f9520068ULL,
	0x55c74a62e116868bULL, 0xd2f4c799a2023cbdULL, 0xdf98cb79a37b51b9ULL,
	0x396f5885524f3905ULL, 0xaf1d56386ca3b276ULL, 0xa9ffbe6b5104e85aULL,
	0x6bd0c51b9fd533b3ULL, 0x980ce91c50ab4b56ULL, 0x28ac395780fe62c5ULL,
	0x768912e3a6bcedc7ULL, 0x50b3e8c9332c7c88ULL, 0xce3bbfe520bd47daULL,
	0xcba6c8e8e0bb7c4fULL, 0xbf194db8434a346dULL, 0x7d8f2a7b60416d7fULL,
	0x0849d1f6e0e10a5eULL, 0x7654b590d064e22fULL, 0x16d1da9507df3af2ULL,
	0xf63aef1089ea30e4ULL, 0x9ade6673cc6c522bULL, 0x4c75bc274e37087cULL,
	0xd35e12b49f51f27bULL, 0x22ddf2ffcee481eaULL, 0x06007fb13c59a1f1ULL,
	0x8966a38c651ea4daULL, 0x25242f018fc01ac6ULL, 0xa73ec74fa31b717cULL,
	0x7ee0abdd9797d3a2ULL, 0x5c06ff7dc4ac1880ULL, 0x8434e41042c28a7dULL,
	0x770a372d64327351ULL, 0xeed940dad9e9c06dULL, 0x8977e93646524825ULL,
	0xa9897f0a62a51616ULL, 0xa35d4250c53f2b3aULL, 0x4072542a94b9c33eULL,
	0x3154a7a62447e8abULL, 0x686865712a1a245eULL, 0x0fba67727d7b3b98ULL,
	0x0634e2024536912fULL, 0xd9ff52a26cf9881aULL, 0x9435dc0399f932daULL,
	0x18d39fc1af93e7f0ULL, 0x12f7147c1e7f46abULL, 0xdedf66783eddb4a0ULL,
	0x6f75480614554798ULL, 0xe40e95e8ef84bde2ULL, 0xbb41fe601fefb566ULL,
	0x5c3702e4c7bf19f1ULL, 0x8c7d1d0d3d4a8ec5ULL, 0xee779996ba62dccbULL,
	0x80ccb15bf530844bULL, 0xdf56e7dc4d57959cULL, 0x9eb86a81fe90b68eULL,
	0x6a25741fa696fbd3ULL, 0x7009346385a45644ULL, 0x8f4acc8c1520dd73ULL,
	0x75a59d61ae0f8464ULL, 0xd9600a5f4b8b735cULL, 0x90ee70d4c2774058ULL,
	0x8a5f6c4b9a613341ULL, 0xbae94e097390fd42ULL, 0x653727708a8cae7cULL,
};

static void hash_init(struct hd_hash *h)
{
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < 8; i++)
		h->acc[i] = hash_key[HASH_BLOCK_STRIPES + i] ^ (uint64_t)i;
#ifdef HD_HASH_AVX2
	h->avx2 = __builtin_cpu_supports("avx2");
#endif
}

#if defined(__SSE2__)
/* n whole stripes of one block from stripe first on, two lanes a vector. */
static void hash_stripes_block(uint64_t *acc, unsigned first, const uint8_t *p,
			       size_t n)
{
	__m128i a[4];

	for (int v = 0; v < 4; v++)
		a[v] = _mm_loadu_si128(
			(const __m128i *)(const void *)(acc + 2 * v));
	for (size_t s = 0; s < n; s++, p += HASH_STRIPE) {
		const uint64_t *key = hash_key + first + s;

		for (int v = 0; v < 4; v++) {
			__m128i d = _mm_loadu_si128(
				(const __m128i *)(const void *)(p + 16 * v));
			__m128i k = _mm_loadu_si128(
				(const __m128i *)(const void *)(key + 2 * v));
			__m128i dk = _mm_xor_si128(d, k);
			/* each 64-bit half: low 32 bits times high 32 bits */
			__m128i hi =
				_mm_shuffle_epi32(dk, _MM_SHUFFLE(2, 3, 0, 1));
			__m128i prod = _mm_mul_epu32(dk, hi);
			/* the word goes to the neighbouring lane */
			__m128i swap =
				_mm_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2));

			a[v] = _mm_add_epi64(a[v], _mm_add_epi64(prod, swap));
		}
	}
	for (int v = 0; v < 4; v++)
		_mm_storeu_si128((__m128i *)(void *)(acc + 2 * v), a[v]);
}
#else
static void hash_stripes_block(uint64_t *acc, unsigned first, const uint8_t *p,
			       size_t n)
{
	for (size_t s = 0; s < n; s++, p += HASH_STRIPE) {
		const uint64_t *key = hash_key + first + s;

		for (int i = 0; i < 8; i++) {
			uint64_t w, k;

			memcpy(&w, p + 8 * i, sizeof(w));
			w = GUINT64_FROM_LE(w);
			k = w ^ key[i];
			acc[i ^ 1] += w;
			acc[i] += (k & 0xffffffffULL) * (k >> 32);
		}
	}
}
#endif

#ifdef HD_HASH_AVX2
/* The same with four lanes a vector, where the CPU has AVX2. */
__attribute__((target("avx2"))) static void
hash_stripes_block_avx2(uint64_t *acc, unsigned first, const uint8_t *p,
			size_t n)
{
	__m256i a[2];

	for (int v = 0; v < 2; v++)
		a[v] = _mm256_loadu_si256(
			(const __m256i *)(const void *)(acc + 4 * v));
	for (size_t s = 0; s < n; s++, p += HASH_STRIPE) {
		const uint64_t *key = hash_key + first + s;

		for (int v = 0; v < 2; v++) {
			__m256i d = _mm256_loadu_si256(
				(const __m256i *)(const void *)(p + 32 * v));
			__m256i k = _mm256_loadu_si256(
				(const __m256i *)(const void *)(key + 4 * v));
			__m256i dk = _mm256_xor_si256(d, k);
			__m256i hi = _mm256_shuffle_epi32(
				dk, _MM_SHUFFLE(2, 3, 0, 1));
			__m256i prod = _mm256_mul_epu32(dk, hi);
			__m256i swap = _mm256_shuffle_epi32(
				d, _MM_SHUFFLE(1, 0, 3, 2));

			a[v] = _mm256_add_epi64(a[v],
						_mm256_add_epi64(prod, swap));
		}
	}
	for (int v = 0; v < 2; v++)
		_mm256_storeu_si256((__m256i *)(void *)(acc + 4 * v), a[v]);
}
#endif

static void hash_stripes(struct hd_hash *h, const uint8_t *p, size_t n)
{
	while (n > 0) {
		size_t m = MIN(n, (size_t)(HASH_BLOCK_STRIPES - h->stripes));

#ifdef HD_HASH_AVX2
		if (h->avx2)
			hash_stripes_block_avx2(h->acc, h->stripes, p, m);
		else
#endif
			hash_stripes_block(h->acc, h->stripes, p, m);
		p += m * HASH_STRIPE;
		n -= m;
		h->stripes += m;
		if (h->stripes == HASH_BLOCK_STRIPES) {
			/* spread the high bits down before they pile up */
			for (int i = 0; i < 8; i++) {
				uint64_t a = h->acc[i];

				a ^= a >> 47;
				a ^= hash_key[HASH_BLOCK_STRIPES + i];
				h->acc[i] = a * 0x9e3779b1ULL;
			}
			h->stripes = 0;
		}
	}
}

static void hash_update(struct hd_hash *h, const uint8_t *p, size_t n)
{
	size_t whole;

	if (h->tail_len) {
		size_t take = MIN(n, HASH_STRIPE - h->tail_len);

		memcpy(h->tail + h->tail_len, p, take);
		h->tail_len += take;
		p += take;
		n -= take;
		if (h->tail_len < HASH_STRIPE)
			return;
		hash_stripes(h, h->tail, 1);
		h->tail_len = 0;
	}
	whole = n / HASH_STRIPE;
	hash_stripes(h, p, whole);
	p += whole * HASH_STRIPE;
	n -= whole * HASH_STRIPE;
	memcpy(h->tail, p, n);
	h->tail_len = n;
}

/* The 128-bit product of a and b, folded to 64 bits. */
static uint64_t mul_fold(uint64_t a, uint64_t b)
{
	uint64_t alo = a & 0xffffffffULL, ahi = a >> 32;
	uint64_t blo = b & 0xffffffffULL, bhi = b >> 32;
	uint64_t ll = alo * blo, lh = alo * bhi, hl = ahi * blo, hh = ahi * bhi;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffULL) + hl;
	uint64_t lo = (mid << 32) | (ll & 0xffffffffULL);
	uint64_t hi = hh + (lh >> 32) + (mid >> 32);

	return lo ^ hi;
}

/* The hash of everything given to h, whose length is len. */
static uint64_t hash_final(const struct hd_hash *h, uint64_t len)
{
	struct hd_hash c = *h;
	uint64_t r = len * 0x9e3779b185ebca87ULL;

	if (c.tail_len) {
		/* zero padding is unambiguous: the length is folded in */
		memset(c.tail + c.tail_len, 0, HASH_STRIPE - c.tail_len);
		hash_stripes(&c, c.tail, 1);
	}
	for (int i = 0; i < 8; i += 2)
		r += mul_fold(c.acc[i] ^ hash_key[i + 3],
			      c.acc[i + 1] ^ hash_key[i + 4]);
	r ^= r >> 37;
	r *= 0x165667919e3779f9ULL;
	r ^= r >> 32;
	return r;
}

struct hd_reader {
	char *path;
	int fd; /* -1 for memory and callback readers */
	bool may_wait; /* standard input: wait when it has nothing yet */
	const uint8_t *mem; /* memory reader data */
	size_t mem_len, mem_pos;
	hd_reader_pull_fn pull; /* callback reader source, or NULL */
	void *pull_data;
	enum hd_compression comp;

	/* Compressed input buffer. */
	uint8_t *raw;
	size_t raw_len, raw_pos;
	bool raw_eof;

	z_stream zs;
	bool zs_init;
	bool zs_member_done; /* a gzip member ended; another may follow */
	ZSTD_DCtx *zctx;
	bool zstd_frame_open;

	/* Decompressed bytes sniffed but not yet handed out. */
	uint8_t head[HD_READER_HEAD_MAX];
	size_t head_len, head_pos;
	bool head_done;

	uint64_t consumed;
	bool eof;

	/* The budget (hd_reader_set_budget()) and what it has seen. */
	uint64_t raw_total; /* bytes read from the source, before decoding */
	uint64_t decoded; /* bytes decoded, the sniffed head included */
	uint64_t max_decoded;
	unsigned max_ratio; /* 0: no ratio cap */
	const char *budget_what;
	char *refusal; /* set once past the budget: every later read fails */
	bool ended; /* the decoder reached the end of the stream */
	struct hd_hash hash;
};

/*
 * read(2) on the reader's file.  Files are opened O_NONBLOCK, so one that
 * never has data (/proc/kmsg) fails with EAGAIN instead of hanging; only
 * standard input, which the user hands over on purpose, is waited for.
 */
static ssize_t fd_read(struct hd_reader *r, void *buf, size_t n)
{
	for (;;) {
		ssize_t got = read(r->fd, buf, n);

		if (got >= 0)
			return got;
		if (errno == EINTR)
			continue;
		if ((errno == EAGAIN || errno == EWOULDBLOCK) && r->may_wait) {
			struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

			poll(&pfd, 1, -1);
			continue;
		}
		return -1;
	}
}

/* Reads more compressed (or plain) bytes into raw; false at end of input. */
static bool raw_fill(struct hd_reader *r, GError **error)
{
	ssize_t n;

	if (r->raw_pos < r->raw_len)
		return true;
	if (r->raw_eof)
		return false;
	r->raw_pos = 0;
	r->raw_len = 0;
	if (r->pull) {
		n = r->pull(r->pull_data, r->raw, RAW_BUF_SIZE, error);
		if (n <= 0) {
			r->raw_eof = n == 0;
			return false;
		}
		r->raw_len = n;
		r->raw_total += n;
		return true;
	}
	if (r->fd < 0) {
		size_t left = r->mem_len - r->mem_pos;
		size_t take = MIN(left, (size_t)RAW_BUF_SIZE);

		/* Memory readers copy in chunks, like files. */
		if (take == 0) {
			r->raw_eof = true;
			return false;
		}
		memcpy(r->raw, r->mem + r->mem_pos, take);
		r->mem_pos += take;
		r->raw_len = take;
		r->raw_total += take;
		return true;
	}
	n = fd_read(r, r->raw, RAW_BUF_SIZE);
	if (n < 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot read '%s': %s", r->path, g_strerror(errno));
		return false;
	}
	if (n == 0) {
		r->raw_eof = true;
		return false;
	}
	r->raw_len = n;
	r->raw_total += n;
	return true;
}

static ssize_t read_plain(struct hd_reader *r, uint8_t *buf, size_t n,
			  GError **error)
{
	size_t take;

	if (r->fd >= 0 && r->raw_pos >= r->raw_len && n >= RAW_BUF_SIZE) {
		/* Large reads bypass the buffer. */
		ssize_t got = fd_read(r, buf, n);

		if (got < 0) {
			g_set_error(error, HD_ERROR, HD_ERROR_IO,
				    "cannot read '%s': %s", r->path,
				    g_strerror(errno));
			return -1;
		}
		r->raw_total += got;
		return got;
	}
	if (!raw_fill(r, error))
		return error && *error ? -1 : 0;
	take = MIN(n, r->raw_len - r->raw_pos);
	memcpy(buf, r->raw + r->raw_pos, take);
	r->raw_pos += take;
	return take;
}

static ssize_t read_gzip(struct hd_reader *r, uint8_t *buf, size_t n,
			 GError **error)
{
	int rc;

	if (n > UINT_MAX) /* zlib counts in uInt: a shorter read is a read */
		n = UINT_MAX;
	r->zs.next_out = buf;
	r->zs.avail_out = (uInt)n;
	while (r->zs.avail_out == n) {
		if (r->zs.avail_in == 0) {
			if (!raw_fill(r, error)) {
				if (error && *error)
					return -1;
				if (r->zs_member_done)
					return 0;
				g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
					    "'%s': gzip stream is truncated",
					    r->path);
				return -1;
			}
			r->zs.next_in = r->raw + r->raw_pos;
			/* at most RAW_BUF_SIZE */
			r->zs.avail_in = (uInt)(r->raw_len - r->raw_pos);
			r->raw_pos = r->raw_len;
		}
		if (r->zs_member_done) {
			/* Another member follows the one that ended. */
			inflateReset(&r->zs);
			r->zs_member_done = false;
		}
		rc = inflate(&r->zs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			r->zs_member_done = true;
			if (r->zs.avail_out != n)
				break;
			continue;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "'%s': corrupt gzip data: %s", r->path,
				    r->zs.msg ? r->zs.msg : "inflate failed");
			return -1;
		}
	}
	return n - r->zs.avail_out;
}

static ssize_t read_zstd(struct hd_reader *r, uint8_t *buf, size_t n,
			 GError **error)
{
	ZSTD_outBuffer out = { buf, n, 0 };

	while (out.pos == 0) {
		ZSTD_inBuffer in;
		size_t rc;

		if (r->raw_pos >= r->raw_len && !raw_fill(r, error)) {
			if (error && *error)
				return -1;
			if (r->zstd_frame_open) {
				g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
					    "'%s': zstd stream is truncated",
					    r->path);
				return -1;
			}
			return 0;
		}
		in.src = r->raw;
		in.size = r->raw_len;
		in.pos = r->raw_pos;
		rc = ZSTD_decompressStream(r->zctx, &out, &in);
		r->raw_pos = in.pos;
		if (ZSTD_isError(rc)) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "'%s': corrupt zstd data: %s", r->path,
				    ZSTD_getErrorName(rc));
			return -1;
		}
		r->zstd_frame_open = rc != 0;
	}
	return out.pos;
}

static ssize_t read_decoded(struct hd_reader *r, uint8_t *buf, size_t n,
			    GError **error)
{
	switch (r->comp) {
	case HD_COMP_GZIP:
		return read_gzip(r, buf, n, error);
	case HD_COMP_ZSTD:
		return read_zstd(r, buf, n, error);
	case HD_COMP_NONE:
		break;
	}
	return read_plain(r, buf, n, error);
}

/*
 * A size for messages: "16 GiB", "1.5 MiB", "300 bytes" (not
 * g_format_size(), whose no-break space a grep for the message misses).
 * (transfer full)
 */
static char *size_text(uint64_t n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	int u = -1;

	while (u + 1 < (int)G_N_ELEMENTS(units) && n >> (10 * (u + 2)))
		u++;
	if (u < 0)
		return g_strdup_printf("%" G_GUINT64_FORMAT " bytes", n);
	if (n % ((uint64_t)1 << (10 * (u + 1))) == 0)
		return g_strdup_printf("%" G_GUINT64_FORMAT " %s",
				       n >> (10 * (u + 1)), units[u]);
	return g_strdup_printf(
		"%.1f %s", (double)n / (double)((uint64_t)1 << (10 * (u + 1))),
		units[u]);
}

/* Whether got more decoded bytes keep r within its budget; else says why. */
static bool within_budget(struct hd_reader *r, size_t got, GError **error)
{
	uint64_t total = r->decoded + got;
	g_autofree char *size = NULL;
	g_autofree char *from = NULL;

	if (total > r->max_decoded) {
		size = size_text(r->max_decoded);
		r->refusal = g_strdup_printf(
			"'%s' is more than %s decoded, the budget for %s; the rest is not read",
			r->path, size, r->budget_what);
	} else if (r->comp != HD_COMP_NONE && r->max_ratio &&
		   total > HD_BUDGET_RATIO_GRACE &&
		   total > (uint64_t)r->max_ratio * r->raw_total) {
		size = size_text(total);
		from = size_text(r->raw_total);
		r->refusal = g_strdup_printf(
			"'%s' decompresses more than %u to 1 (%s from %s), the budget for %s; the rest is not read",
			r->path, r->max_ratio, size, from, r->budget_what);
	} else {
		return true;
	}
	g_set_error_literal(error, HD_ERROR, HD_ERROR_TOO_BIG, r->refusal);
	return false;
}

/*
 * Every decoded byte comes through here: the budget is checked before
 * bytes are handed out, and what is handed out is hashed.
 */
static ssize_t decode(struct hd_reader *r, uint8_t *buf, size_t n,
		      GError **error)
{
	ssize_t got;

	if (r->refusal) {
		g_set_error_literal(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    r->refusal);
		return -1;
	}
	got = read_decoded(r, buf, n, error);
	if (got == 0)
		r->ended = true;
	if (got <= 0)
		return got;
	if (!within_budget(r, got, error))
		return -1;
	r->decoded += got;
	hash_update(&r->hash, buf, got);
	return got;
}

/* zstd frames, and the skippable frames pzstd writes ahead of its own. */
static bool is_zstd_magic(const uint8_t *p, size_t len)
{
	if (len < 4)
		return false;
	if (p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return true;
	return (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d &&
	       p[3] == 0x18;
}

static bool reader_setup(struct hd_reader *r, GError **error)
{
	hash_init(&r->hash);
	r->max_decoded = HD_BUDGET_DEFAULT_BYTES;
	r->max_ratio = HD_BUDGET_LOG_RATIO;
	r->budget_what = "an input";
	r->raw = g_malloc(RAW_BUF_SIZE);
	if (!raw_fill(r, error) && error && *error)
		return false;
	if (r->raw_len >= 2 && r->raw[0] == 0x1f && r->raw[1] == 0x8b) {
		r->comp = HD_COMP_GZIP;
		if (inflateInit2(&r->zs, 15 + 32) != Z_OK) {
			g_set_error(error, HD_ERROR, HD_ERROR_IO,
				    "'%s': cannot start gzip decoder", r->path);
			return false;
		}
		r->zs_init = true;
	} else if (is_zstd_magic(r->raw, r->raw_len)) {
		r->comp = HD_COMP_ZSTD;
		r->zctx = ZSTD_createDCtx();
		if (!r->zctx) {
			g_set_error(error, HD_ERROR, HD_ERROR_IO,
				    "'%s': cannot start zstd decoder", r->path);
			return false;
		}
		/* Cap the window: a hostile frame must not ask for GBs. */
		ZSTD_DCtx_setParameter(r->zctx, ZSTD_d_windowLogMax, 27);
	}
	return true;
}

/* Opens standard input for r, as "<stdin>"; left blocking, as it was given. */
static bool open_stdin(struct hd_reader *r, GError **error)
{
	r->path = g_strdup(HD_STDIN_NAME);
	r->fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	if (r->fd < 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot read standard input: %s",
			    g_strerror(errno));
		return false;
	}
	r->may_wait = true;
	return true;
}

struct hd_reader *hd_reader_open(const char *path, GError **error)
{
	g_autoptr(hd_reader) r = g_new0(struct hd_reader, 1);
	struct stat st;

	if (strcmp(path, "-") == 0) {
		if (!open_stdin(r, error))
			return NULL;
		if (!reader_setup(r, error))
			return NULL;
		return g_steal_pointer(&r);
	}
	r->path = g_strdup(path);
	/*
	 * O_NONBLOCK: opening a FIFO must not wait for a writer, and reading
	 * a file that never has data must not wait forever; neither changes
	 * anything for regular files, the only ones read.
	 */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (r->fd < 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot open '%s': %s", path, g_strerror(errno));
		return NULL;
	}
	if (fstat(r->fd, &st) != 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot read '%s': %s", path, g_strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot read '%s': is a directory", path);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot read '%s': not a regular file", path);
		return NULL;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	if (!reader_setup(r, error))
		return NULL;
	return g_steal_pointer(&r);
}

struct hd_reader *hd_reader_new_from_memory(const void *data, size_t len,
					    GError **error)
{
	g_autoptr(hd_reader) r = g_new0(struct hd_reader, 1);

	r->path = g_strdup("<memory>");
	r->fd = -1;
	r->mem = data;
	r->mem_len = len;
	if (!reader_setup(r, error))
		return NULL;
	return g_steal_pointer(&r);
}

struct hd_reader *hd_reader_new_from_callback(const char *name,
					      hd_reader_pull_fn pull,
					      void *data, GError **error)
{
	g_autoptr(hd_reader) r = g_new0(struct hd_reader, 1);

	r->path = g_strdup(name);
	r->fd = -1;
	r->pull = pull;
	r->pull_data = data;
	if (!reader_setup(r, error))
		return NULL;
	return g_steal_pointer(&r);
}

void hd_reader_free(struct hd_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->zs_init)
		inflateEnd(&r->zs);
	ZSTD_freeDCtx(r->zctx);
	g_free(r->raw);
	g_free(r->refusal);
	g_free(r->path);
	g_free(r);
}

void hd_reader_set_budget(struct hd_reader *r, uint64_t max_bytes,
			  unsigned max_ratio, const char *what)
{
	r->max_decoded = max_bytes;
	r->max_ratio = max_ratio;
	r->budget_what = what;
}

const char *hd_reader_refusal(const struct hd_reader *r)
{
	return r->refusal;
}

void hd_reader_digest(const struct hd_reader *r, struct hd_digest *d)
{
	d->length = r->decoded;
	d->hash = hash_final(&r->hash, r->decoded);
	d->complete = r->ended && !r->refusal;
}

enum hd_compression hd_reader_compression(const struct hd_reader *r)
{
	return r->comp;
}

const char *hd_reader_path(const struct hd_reader *r)
{
	return r->path;
}

const uint8_t *hd_reader_head(struct hd_reader *r, size_t *len, GError **error)
{
	if (!r->head_done) {
		while (r->head_len < HD_READER_HEAD_MAX) {
			ssize_t n =
				decode(r, r->head + r->head_len,
				       HD_READER_HEAD_MAX - r->head_len, error);

			if (n < 0)
				break;
			if (n == 0)
				break;
			r->head_len += n;
		}
		r->head_done = true;
	}
	*len = r->head_len;
	return r->head;
}

ssize_t hd_reader_read(struct hd_reader *r, void *buf, size_t n, GError **error)
{
	ssize_t got;

	if (n == 0)
		return 0;
	if (r->head_pos < r->head_len) {
		size_t take = MIN(n, r->head_len - r->head_pos);

		memcpy(buf, r->head + r->head_pos, take);
		r->head_pos += take;
		r->consumed += take;
		return take;
	}
	r->head_done = true;
	if (r->eof)
		return 0;
	got = decode(r, buf, n, error);
	if (got == 0)
		r->eof = true;
	if (got > 0)
		r->consumed += got;
	return got;
}

uint64_t hd_reader_raw_consumed(const struct hd_reader *r)
{
	return r->raw_total;
}

uint64_t hd_reader_consumed(const struct hd_reader *r)
{
	return r->consumed;
}

GBytes *hd_reader_slurp(struct hd_reader *r, size_t max, GError **error)
{
	GByteArray *a = g_byte_array_new();
	guint chunk = 64 * 1024;

	/* A GByteArray counts in guint: past that, the input is too big. */
	max = MIN(max, (size_t)G_MAXUINT - 32 * 1024 * 1024);

	for (;;) {
		ssize_t n;

		if (a->len >= max) {
			uint8_t probe;

			/* Exactly max bytes is fine; one more is not. */
			n = hd_reader_read(r, &probe, 1, error);
			if (n == 0)
				break;
			if (n > 0)
				g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
					    "'%s' is larger than %zu bytes",
					    r->path, max);
			g_byte_array_unref(a);
			return NULL;
		}
		g_byte_array_set_size(a, a->len + chunk);
		n = hd_reader_read(r, a->data + a->len - chunk,
				   MIN(chunk, max - (a->len - chunk)), error);
		if (n < 0) {
			g_byte_array_unref(a);
			return NULL;
		}
		g_byte_array_set_size(a, a->len - chunk + (guint)n);
		if (n == 0)
			break;
		if (chunk < 16 * 1024 * 1024)
			chunk *= 2;
	}
	return g_byte_array_free_to_bytes(a);
}

#define LINES_BUF_SIZE (1024 * 1024)

struct hd_lines {
	struct hd_reader *r;
	char *buf;
	size_t cap;
	size_t start, end; /* unread bytes are buf[start, end) */
	bool eof;
	bool skipping; /* inside the overflow of a cut line */
	uint64_t lineno;
};

struct hd_lines *hd_lines_new(struct hd_reader *r)
{
	struct hd_lines *l = g_new0(struct hd_lines, 1);

	l->r = r;
	l->cap = LINES_BUF_SIZE + HD_LINE_MAX;
	l->buf = g_malloc(l->cap);
	return l;
}

void hd_lines_free(struct hd_lines *l)
{
	if (!l)
		return;
	g_free(l->buf);
	g_free(l);
}

uint64_t hd_lines_lineno(const struct hd_lines *l)
{
	return l->lineno;
}

/* Moves unread bytes to the front and reads more; false at end of input. */
static bool lines_fill(struct hd_lines *l, GError **error)
{
	ssize_t n;

	if (l->eof)
		return false;
	if (l->start > 0) {
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
	}
	if (l->end >= l->cap)
		return true;
	n = hd_reader_read(l->r, l->buf + l->end, l->cap - l->end, error);
	if (n <= 0) {
		l->eof = true;
		return false;
	}
	l->end += n;
	return true;
}

bool hd_lines_next(struct hd_lines *l, const char **line, size_t *len,
		   bool *cut, GError **error)
{
	size_t scanned = 0;

	*cut = false;
	for (;;) {
		char *base = l->buf + l->start;
		size_t avail = l->end - l->start;
		char *nl = memchr(base + scanned, '\n', avail - scanned);
		size_t n;

		if (l->skipping) {
			/* Drop the rest of a cut line. */
			if (nl) {
				l->start += nl - base + 1;
				l->skipping = false;
				scanned = 0;
				continue;
			}
			l->start = l->end;
			if (!lines_fill(l, error))
				return false;
			continue;
		}
		if (nl || avail >= HD_LINE_MAX || (l->eof && avail > 0)) {
			if (nl && (size_t)(nl - base) <= HD_LINE_MAX) {
				n = nl - base;
				l->start += n + 1;
			} else if (avail >= HD_LINE_MAX) {
				n = HD_LINE_MAX;
				*cut = true;
				l->start += n;
				l->skipping = true;
			} else {
				n = avail;
				l->start += n;
			}
			if (n > 0 && base[n - 1] == '\r')
				n--;
			l->lineno++;
			*line = base;
			*len = n;
			return true;
		}
		scanned = avail;
		if (!lines_fill(l, error)) {
			if (l->end > l->start)
				continue;
			return false;
		}
		/* lines_fill() moved the data to the front. */
	}
}

static int compare_paths(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Directories deeper than this are not entered. */
#define HD_MAX_DEPTH 32

/* A file's identity: what makes two paths the same file. */
struct file_id {
	uint64_t dev, ino;
};

static guint file_id_hash(gconstpointer p)
{
	const struct file_id *id = p;

	return (guint)((id->ino * 0x9e3779b97f4a7c15ULL) ^ id->dev);
}

static gboolean file_id_equal(gconstpointer a, gconstpointer b)
{
	const struct file_id *x = a, *y = b;

	return x->dev == y->dev && x->ino == y->ino;
}

struct discover {
	GPtrArray *found; /* struct hd_found * */
	GPtrArray *errors; /* char * */
	GPtrArray *roots; /* char *: real paths of the paths given */
	GHashTable *ids; /* struct file_id -> index in found + 1 */
	GArray *open_dirs; /* struct file_id of the directories being walked */
};

void hd_found_free(gpointer p)
{
	struct hd_found *f = p;

	if (!f)
		return;
	g_free(f->path);
	g_free(f);
}

static void add_found(struct discover *d, const char *path,
		      const struct stat *st)
{
	struct hd_found *f = g_new0(struct hd_found, 1);
	struct file_id *key;
	gpointer first;

	f->path = g_strdup(path);
	f->same_as = -1;
	if (st) {
		f->dev = (uint64_t)st->st_dev;
		f->ino = (uint64_t)st->st_ino;
	}
	if (f->dev || f->ino) {
		key = g_new(struct file_id, 1);
		key->dev = f->dev;
		key->ino = f->ino;
		first = g_hash_table_lookup(d->ids, key);
		if (first) {
			f->same_as = GPOINTER_TO_INT(first) - 1;
			g_free(key);
		} else {
			g_hash_table_insert(d->ids, key,
					    GINT_TO_POINTER(d->found->len + 1));
		}
	}
	g_ptr_array_add(d->found, f);
}

/* Whether the real path p lies inside (or is) one of the given paths. */
static bool is_inside_roots(const struct discover *d, const char *p)
{
	for (guint i = 0; i < d->roots->len; i++) {
		const char *root = g_ptr_array_index(d->roots, i);
		size_t n = strlen(root);

		if (strcmp(root, "/") == 0)
			return true;
		if (strncmp(p, root, n) == 0 && (p[n] == '\0' || p[n] == '/'))
			return true;
	}
	return false;
}

static void add_error(struct discover *d, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);

static void add_error(struct discover *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_ptr_array_add(d->errors, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

/*
 * A symbolic link met below a given directory.  It is followed only to a
 * regular file inside the given paths: a link to a directory would walk a
 * tree twice or forever (two links to "." made the walk exponential), and
 * a link out of the given paths could lead anywhere (/proc/kmsg).
 */
static void follow_link(struct discover *d, const char *p)
{
	struct stat st;
	char *real;

	if (stat(p, &st) != 0) {
		add_error(d, "cannot read '%s': %s", p, g_strerror(errno));
		return;
	}
	real = realpath(p, NULL);
	if (!real) {
		add_error(d, "cannot read '%s': %s", p, g_strerror(errno));
		return;
	}
	if (!is_inside_roots(d, real)) {
		add_error(d, "'%s' links out of the given paths, not followed",
			  p);
	} else if (S_ISREG(st.st_mode)) {
		add_found(d, p, &st);
	}
	/* a directory inside is walked where it lies */
	free(real);
}

/* Whether the directory st is already being walked (a bind-mount loop). */
static bool is_open_dir(const struct discover *d, const struct stat *st)
{
	for (guint i = 0; i < d->open_dirs->len; i++) {
		const struct file_id *id =
			&g_array_index(d->open_dirs, struct file_id, i);

		if (id->dev == (uint64_t)st->st_dev &&
		    id->ino == (uint64_t)st->st_ino)
			return true;
	}
	return false;
}

static void walk_dir(struct discover *d, const char *dir,
		     const struct stat *dst, int depth)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(GDir) gd = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	struct file_id id = { (uint64_t)dst->st_dev, (uint64_t)dst->st_ino };
	const char *name;

	if (is_open_dir(d, dst)) {
		add_error(d, "'%s': a directory loop, not entered", dir);
		return;
	}
	gd = g_dir_open(dir, 0, &err);
	if (!gd) {
		add_error(d, "cannot read '%s': %s", dir, err->message);
		return;
	}
	while ((name = g_dir_read_name(gd)))
		if (name[0] != '.')
			g_ptr_array_add(names,
					g_build_filename(dir, name, NULL));
	g_ptr_array_sort(names, compare_paths);
	g_array_append_val(d->open_dirs, id);
	for (guint i = 0; i < names->len; i++) {
		const char *p = g_ptr_array_index(names, i);
		struct stat st;

		if (lstat(p, &st) != 0) {
			add_error(d, "cannot read '%s': %s", p,
				  g_strerror(errno));
		} else if (S_ISLNK(st.st_mode)) {
			follow_link(d, p);
		} else if (S_ISDIR(st.st_mode)) {
			if (depth + 1 >= HD_MAX_DEPTH)
				add_error(d, "'%s': too deep, not entered", p);
			else
				walk_dir(d, p, &st, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			add_found(d, p, &st);
		}
		/* FIFOs, sockets and devices below a directory are not inputs */
	}
	g_array_set_size(d->open_dirs, d->open_dirs->len - 1);
}

void hd_discover(char **paths, GPtrArray *found, GPtrArray *errors)
{
	struct discover d = { .found = found, .errors = errors };
	int stdin_at = -1;

	d.roots = g_ptr_array_new_with_free_func(free);
	d.ids = g_hash_table_new_full(file_id_hash, file_id_equal, g_free,
				      NULL);
	d.open_dirs = g_array_new(FALSE, FALSE, sizeof(struct file_id));
	for (char **p = paths; p && *p; p++) {
		char *real = strcmp(*p, "-") ? realpath(*p, NULL) : NULL;

		if (real)
			g_ptr_array_add(d.roots, real);
	}
	for (; paths && *paths; paths++) {
		struct stat st;

		if (strcmp(*paths, "-") == 0) {
			/* standard input: one input, however often given */
			add_found(&d, "-",
				  fstat(STDIN_FILENO, &st) == 0 ? &st : NULL);
			if (stdin_at >= 0)
				((struct hd_found *)g_ptr_array_index(
					 found, found->len - 1))
					->same_as = stdin_at;
			else
				stdin_at = (int)found->len - 1;
			continue;
		}
		if (stat(*paths, &st) != 0) {
			add_error(&d, "cannot read '%s': %s", *paths,
				  g_strerror(errno));
			continue;
		}
		if (S_ISDIR(st.st_mode))
			walk_dir(&d, *paths, &st, 0);
		else if (S_ISREG(st.st_mode))
			add_found(&d, *paths, &st);
		else
			add_error(&d, "cannot read '%s': not a regular file",
				  *paths);
	}
	g_ptr_array_unref(d.roots);
	g_hash_table_unref(d.ids);
	g_array_unref(d.open_dirs);
}
