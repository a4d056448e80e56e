/*
 * Readers: streaming gzip/zstd decompression under a budget.  Compression
 * is detected from magic bytes, never from the file name; concatenated
 * gzip members and zstd frames (pzstd's skippable ones too) are read
 * through, and whatever follows the last complete one that starts no other
 * (zero padding, garbage) is skipped and noted, as gzip and zstd do.  Every
 * decoded byte passes one place, decode(), which enforces the input's
 * budget and hashes it with XXH3 (libxxhash).  Asked to, a reader also
 * hashes the bytes it reads from its source, as stored, with XXH3-128
 * and, asked for it, SHA-256 (hd-sha256.h), so that a file is read once to be both parsed and
 * described.
 */
#include "config.h"

#include "hd-reader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "hd-budget.h"
#include "hd-sha256.h"
#include "hd-error.h"
#include "hd-banned.h"

#define RAW_BUF_SIZE (256 * 1024)

struct hd_reader {
	char *path;
	int fd; /* -1 for memory and callback readers */
	bool may_wait; /* standard input: wait when it has nothing yet */
	const uint8_t *mem; /* memory reader data */
	size_t mem_len, mem_pos;
	hd_reader_pull_fn pull; /* callback reader source, or NULL */
	void *pull_data;
	enum hd_compression comp;

	/* Compressed input buffer: unread bytes are raw[raw_pos, raw_len). */
	uint8_t *raw;
	size_t raw_len, raw_pos;
	bool raw_eof;

	z_stream zs;
	bool zs_init;
	bool zs_member_done; /* a gzip member ended; another may follow */
	ZSTD_DCtx *zctx;
	bool zstd_frame_open;
	char *trailing; /* what was skipped after the data, or NULL */

	/* Decompressed bytes sniffed but not yet handed out. */
	uint8_t head[HD_READER_HEAD_MAX];
	size_t head_len, head_pos;
	bool head_done;
	/* the error that stopped the head after some bytes: the read after
	   the head gives it, so that what came before it is read first */
	GError *head_error;

	uint64_t consumed;
	uint64_t nul_skipped; /* NUL bytes skipped as no content */
	bool eof;

	/*
	 * Text in UTF-16 (what PowerShell 5's ">" writes: a byte-order mark,
	 * then two bytes a character) is transcoded to UTF-8 as it is read
	 * (decode_text()).  The decoded bytes wait in u16 until then.
	 */
	enum { ENC_UNKNOWN, ENC_AS_IS, ENC_UTF16LE, ENC_UTF16BE } enc;
	uint8_t *u16;
	size_t u16_pos, u16_len;
	bool u16_end; /* decode() has nothing more */
	uint8_t u8[4]; /* one character that did not fit the caller's buffer */
	size_t u8_pos, u8_len;
	/* a read error after some transcoded bytes: the next read's */
	GError *u16_error;

	/* The budget (hd_reader_set_budget()) and what it has seen. */
	uint64_t raw_total; /* bytes read from the source, before decoding */
	uint64_t decoded; /* bytes decoded, the sniffed head included */
	uint64_t max_decoded;
	unsigned max_ratio; /* 0: no ratio cap */
	const char *budget_what;
	char *refusal; /* set once past the budget: every later read fails */
	bool ended; /* the decoder reached the end of the stream */
	XXH3_state_t *hash; /* of the decoded bytes */
	bool no_hash; /* hd_reader_skip_content_hash(): stop hashing them */
	struct hd_budget_pool *pool; /* the incident's, or NULL */
	bool pool_stored, pool_decoded; /* what r adds to it */
	bool pool_refused; /* refusal is the pool's */
	/* of the source's bytes as stored, when asked to: XXH3-128, and
	   SHA-256 when asked for, else NULL */
	XXH3_state_t *stored_xxh;
	struct hd_sha256 *stored_sha;
	bool stored_failed; /* a source read failed: no hashes */
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

/*
 * Reads up to n bytes from the source (file, memory or callback) into buf,
 * hashing them as stored when asked to, and counting them nowhere: the
 * count, 0 at its end, -1 with error set.
 */
static ssize_t source_pull(struct hd_reader *r, uint8_t *buf, size_t n,
			   GError **error)
{
	ssize_t got;

	if (r->pull) {
		got = r->pull(r->pull_data, buf, n, error);
	} else if (r->fd < 0) {
		/* Memory readers copy in chunks, like files. */
		got = (ssize_t)MIN(n, r->mem_len - r->mem_pos);
		memcpy(buf, r->mem + r->mem_pos, got);
		r->mem_pos += got;
	} else {
		got = fd_read(r, buf, n);
		if (got < 0)
			g_set_error(error, HD_ERROR, HD_ERROR_IO,
				    "read error: %s", g_strerror(errno));
	}
	if (got < 0)
		r->stored_failed = true;
	if (got > 0 && r->stored_xxh &&
	    XXH3_128bits_update(r->stored_xxh, buf, (size_t)got) != XXH_OK)
		r->stored_failed = true;
	if (got > 0 && r->stored_sha)
		hd_sha256_update(r->stored_sha, buf, (size_t)got);
	return got;
}

/* source_pull(), counting the bytes against the budgets. */
static ssize_t source_read(struct hd_reader *r, uint8_t *buf, size_t n,
			   GError **error)
{
	ssize_t got = source_pull(r, buf, n, error);

	if (got > 0) {
		r->raw_total += got;
		if (r->pool_stored)
			hd_budget_pool_add_stored(r->pool, got);
	}
	return got;
}

/*
 * Makes at least need unread bytes wait in raw, moving what is left to the
 * front, unless the source ends first.  Returns how many wait, or -1 with
 * error set.
 */
static ssize_t raw_peek(struct hd_reader *r, size_t need, GError **error)
{
	g_assert(need <= RAW_BUF_SIZE);
	while (r->raw_len - r->raw_pos < need && !r->raw_eof) {
		size_t left = r->raw_len - r->raw_pos;
		ssize_t n;

		memmove(r->raw, r->raw + r->raw_pos, left);
		r->raw_pos = 0;
		r->raw_len = left;
		n = source_read(r, r->raw + left, RAW_BUF_SIZE - left, error);
		if (n < 0)
			return -1;
		if (n == 0)
			r->raw_eof = true;
		r->raw_len += n;
	}
	return (ssize_t)(r->raw_len - r->raw_pos);
}

/* Reads more compressed (or plain) bytes into raw; false at end of input. */
static bool raw_fill(struct hd_reader *r, GError **error)
{
	if (r->raw_pos < r->raw_len)
		return true;
	return raw_peek(r, 1, error) > 0;
}

/*
 * Skips the rest of the source after the compressed data ended, noting
 * what it was (format names the data: "gzip").  The bytes are counted, not
 * kept; the read stops at no budget, as it decodes nothing.
 */
static bool skip_trailing(struct hd_reader *r, const char *format,
			  GError **error)
{
	uint64_t n = 0;
	bool zeros = true;

	for (;;) {
		const uint8_t *p = r->raw + r->raw_pos;
		size_t len = r->raw_len - r->raw_pos;

		for (size_t i = 0; i < len && zeros; i++)
			zeros = p[i] == 0;
		n += len;
		r->raw_pos = r->raw_len;
		if (!raw_fill(r, error)) {
			if (error && *error)
				return false;
			break;
		}
	}
	r->trailing = g_strdup_printf(
		"%" G_GUINT64_FORMAT " %s after the %s data, ignored", n,
		zeros ? (n == 1 ? "byte of zero padding"
				: "bytes of zero padding")
		      : (n == 1 ? "byte of something else"
				: "bytes of something else"),
		format);
	return true;
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

static bool is_gzip_magic(const uint8_t *p, size_t len)
{
	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/*
 * After a complete gzip member or zstd frame: whether another one follows
 * (true), or the data ended (false, error unset), skipping and noting
 * whatever follows that starts none.
 */
static bool next_unit(struct hd_reader *r, const char *format,
		      bool (*is_magic)(const uint8_t *, size_t), size_t magic,
		      GError **error)
{
	ssize_t have = raw_peek(r, magic, error);

	if (have < 0)
		return false;
	if (have == 0)
		return false;
	if (is_magic(r->raw + r->raw_pos, (size_t)have))
		return true;
	skip_trailing(r, format, error);
	return false;
}

static ssize_t read_plain(struct hd_reader *r, uint8_t *buf, size_t n,
			  GError **error)
{
	size_t take;

	if (r->fd >= 0 && r->raw_pos >= r->raw_len && n >= RAW_BUF_SIZE) {
		/* Large reads bypass the buffer. */
		return source_read(r, buf, n, error);
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
		if (r->zs_member_done) {
			/* Another member may follow the one that ended. */
			if (!next_unit(r, "gzip", is_gzip_magic, 2, error))
				return error && *error ? -1 : 0;
			inflateReset(&r->zs);
			r->zs_member_done = false;
		}
		if (!raw_fill(r, error)) {
			if (error && *error)
				return -1;
			g_set_error_literal(error, HD_ERROR, HD_ERROR_FORMAT,
					    "gzip data cut short");
			return -1;
		}
		r->zs.next_in = r->raw + r->raw_pos;
		/* at most RAW_BUF_SIZE */
		r->zs.avail_in = (uInt)(r->raw_len - r->raw_pos);
		rc = inflate(&r->zs, Z_NO_FLUSH);
		r->raw_pos = r->raw_len - r->zs.avail_in;
		if (rc == Z_STREAM_END) {
			r->zs_member_done = true;
			continue;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "corrupt gzip data: %s",
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

		if (!r->zstd_frame_open) {
			/* Another frame may follow the one that ended. */
			if (!next_unit(r, "zstd", is_zstd_magic, 4, error))
				return error && *error ? -1 : 0;
		} else if (!raw_fill(r, error)) {
			if (error && *error)
				return -1;
			g_set_error_literal(error, HD_ERROR, HD_ERROR_FORMAT,
					    "zstd data cut short");
			return -1;
		}
		in.src = r->raw;
		in.size = r->raw_len;
		in.pos = r->raw_pos;
		rc = ZSTD_decompressStream(r->zctx, &out, &in);
		r->raw_pos = in.pos;
		if (ZSTD_isError(rc)) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "corrupt zstd data: %s",
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
			"more than %s decoded, the budget for %s; the rest is not read",
			size, r->budget_what);
	} else if (r->comp != HD_COMP_NONE && r->max_ratio &&
		   total > HD_BUDGET_RATIO_GRACE &&
		   total > (uint64_t)r->max_ratio * r->raw_total) {
		size = size_text(total);
		from = size_text(r->raw_total);
		r->refusal = g_strdup_printf(
			"decompresses more than %u to 1 (%s from %s), the budget for %s; the rest is not read",
			r->max_ratio, size, from, r->budget_what);
	} else if (r->pool_decoded &&
		   !hd_budget_pool_add_decoded(r->pool, got, &r->refusal)) {
		r->pool_refused = true; /* r->refusal says why */
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
	if (!r->no_hash && XXH3_64bits_update(r->hash, buf, got) != XXH_OK)
		g_error("XXH3_64bits_update failed"); /* only on NULL input */
	return got;
}

#define U16_BUF_SIZE (64 * 1024)

/*
 * UTF-16 by its byte-order mark (*bom gets its length), or by ASCII text
 * with every other byte 0 (no mark: a converter's output), else as is:
 * without UTF-8's mark (EF BB BF, which Windows tools and some
 * collectors write first), since it is no text of the file's.
 */
static int sniff_encoding(const uint8_t *p, size_t n, size_t *bom)
{
	size_t le = 0, be = 0;

	*bom = 0;
	if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
		*bom = 3;
		return ENC_AS_IS;
	}
	if (n >= 2 && p[0] == 0xff && p[1] == 0xfe) {
		*bom = 2;
		return ENC_UTF16LE;
	}
	if (n >= 2 && p[0] == 0xfe && p[1] == 0xff) {
		*bom = 2;
		return ENC_UTF16BE;
	}
	for (size_t i = 0; i + 1 < n && i < 64; i += 2) {
		le += p[i] >= 0x09 && p[i] < 0x7f && p[i + 1] == 0;
		be += p[i] == 0 && p[i + 1] >= 0x09 && p[i + 1] < 0x7f;
	}
	if (n >= 16 && le * 2 >= MIN(n, 64))
		return ENC_UTF16LE;
	if (n >= 16 && be * 2 >= MIN(n, 64))
		return ENC_UTF16BE;
	return ENC_AS_IS;
}

/* c as UTF-8 into out (room for 4); returns its length. */
static size_t put_utf8(uint32_t c, uint8_t *out)
{
	if (c < 0x80) {
		out[0] = (uint8_t)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (uint8_t)(0xc0 | (c >> 6));
		out[1] = (uint8_t)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (uint8_t)(0xe0 | (c >> 12));
		out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (uint8_t)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (uint8_t)(0xf0 | (c >> 18));
	out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (uint8_t)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * The next character of the staged UTF-16 bytes, or -1 when more bytes
 * are needed; *used gets the bytes it took.  A lone surrogate, or an odd
 * last byte at the end, is U+FFFD.
 */
static int32_t next_utf16(const struct hd_reader *r, size_t *used)
{
	const uint8_t *p = r->u16 + r->u16_pos;
	size_t n = r->u16_len - r->u16_pos;
	bool be = r->enc == ENC_UTF16BE;
	uint32_t u, v;

	if (n < 2) {
		*used = n;
		return n && r->u16_end ? 0xfffd : -1;
	}
	u = be ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
	*used = 2;
	if (u < 0xd800 || u >= 0xe000)
		return (int32_t)u;
	if (u >= 0xdc00)
		return 0xfffd;
	if (n < 4)
		return r->u16_end ? 0xfffd : -1;
	v = be ? (uint32_t)p[2] << 8 | p[3] : (uint32_t)p[3] << 8 | p[2];
	if (v < 0xdc00 || v >= 0xe000)
		return 0xfffd;
	*used = 4;
	return (int32_t)(0x10000 + ((u - 0xd800) << 10) + (v - 0xdc00));
}

/*
 * decode() for the consumers: the decoded bytes as they are, or, for
 * UTF-16 text, transcoded to UTF-8.  The budget and the content hash
 * count the bytes decode() gave, before transcoding.
 */
static ssize_t decode_text(struct hd_reader *r, uint8_t *buf, size_t n,
			   GError **error)
{
	size_t out = 0;

	if (r->u16_error) {
		g_propagate_error(error, g_steal_pointer(&r->u16_error));
		return -1;
	}
	if (r->enc == ENC_UNKNOWN) {
		ssize_t got;
		size_t bom;

		/*
		 * No more than asked for (a budget may follow the head),
		 * but the three bytes of a mark.
		 */
		r->u16 = g_malloc(U16_BUF_SIZE);
		got = decode(r, r->u16, MIN(MAX(n, 3), U16_BUF_SIZE), error);
		if (got < 0)
			return got;
		r->u16_len = (size_t)got;
		r->u16_end = got == 0;
		r->enc = sniff_encoding(r->u16, r->u16_len, &bom);
		r->u16_pos = bom;
	}
	if (r->enc == ENC_AS_IS) {
		if (r->u16_pos < r->u16_len) {
			size_t take = MIN(n, r->u16_len - r->u16_pos);

			memcpy(buf, r->u16 + r->u16_pos, take);
			r->u16_pos += take;
			return (ssize_t)take;
		}
		return decode(r, buf, n, error);
	}
	while (out < n) {
		size_t used = 0;
		int32_t c;

		if (r->u8_pos < r->u8_len) {
			buf[out++] = r->u8[r->u8_pos++];
			continue;
		}
		c = next_utf16(r, &used);
		if (c < 0 && !r->u16_end) {
			GError *err = NULL;
			ssize_t got;

			memmove(r->u16, r->u16 + r->u16_pos,
				r->u16_len - r->u16_pos);
			r->u16_len -= r->u16_pos;
			r->u16_pos = 0;
			got = decode(r, r->u16 + r->u16_len,
				     U16_BUF_SIZE - r->u16_len, &err);
			if (got < 0 && out) {
				/* what came before the error is read first */
				r->u16_error = err;
				return (ssize_t)out;
			}
			if (got < 0) {
				g_propagate_error(error, err);
				return got;
			}
			r->u16_end = got == 0;
			r->u16_len += (size_t)got;
			continue;
		}
		if (c < 0)
			break; /* the end */
		r->u16_pos += used;
		r->u8_len = put_utf8((uint32_t)c, r->u8);
		r->u8_pos = 0;
	}
	return (ssize_t)out;
}

static bool reader_setup(struct hd_reader *r, GError **error)
{
	r->hash = XXH3_createState();
	if (!r->hash || XXH3_64bits_reset(r->hash) != XXH_OK) {
		g_set_error_literal(error, HD_ERROR, HD_ERROR_IO,
				    "out of memory for the content hash");
		return false;
	}
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
				    "cannot start the gzip decoder");
			return false;
		}
		r->zs_init = true;
	} else if (is_zstd_magic(r->raw, r->raw_len)) {
		r->comp = HD_COMP_ZSTD;
		r->zctx = ZSTD_createDCtx();
		/* Cap the window: a hostile frame must not ask for GBs. */
		if (!r->zctx || ZSTD_isError(ZSTD_DCtx_setParameter(
					r->zctx, ZSTD_d_windowLogMax,
					HD_BUDGET_ZSTD_WINDOW_LOG))) {
			g_set_error_literal(error, HD_ERROR, HD_ERROR_IO,
					    "cannot start the zstd decoder");
			return false;
		}
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
		g_set_error(error, HD_ERROR, HD_ERROR_IO, "cannot open: %s",
			    g_strerror(errno));
		return NULL;
	}
	if (fstat(r->fd, &st) != 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO, "cannot read: %s",
			    g_strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot read: is a directory");
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot read: not a regular file");
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

void hd_reader_hash_stored(struct hd_reader *r, bool sha256)
{
	g_return_if_fail(r && !r->stored_xxh);
	/* nothing read yet but the sniffed bytes, which wait in raw */
	g_return_if_fail(r->raw_pos == 0 && r->raw_total == r->raw_len);
	r->stored_xxh = XXH3_createState();
	if (!r->stored_xxh || XXH3_128bits_reset(r->stored_xxh) != XXH_OK ||
	    XXH3_128bits_update(r->stored_xxh, r->raw, r->raw_len) != XXH_OK)
		r->stored_failed = true;
	if (!sha256)
		return;
	r->stored_sha = hd_sha256_new();
	if (r->stored_sha)
		hd_sha256_update(r->stored_sha, r->raw, r->raw_len);
	else
		r->stored_failed = true;
}

bool hd_reader_stored_hashes(struct hd_reader *r, struct hd_stored *out)
{
	g_autofree uint8_t *buf = NULL;
	uint64_t total = r->raw_total;
	XXH128_canonical_t canon;

	if (!r->stored_xxh || r->stored_failed)
		return false;
	if (!r->raw_eof) {
		buf = g_malloc(RAW_BUF_SIZE);
		for (;;) {
			ssize_t got = source_pull(r, buf, RAW_BUF_SIZE, NULL);

			if (got < 0)
				return false;
			if (got == 0)
				break;
			total += (uint64_t)got;
		}
		/* r reads nothing more: what it has not decoded is gone */
		r->raw_eof = true;
		r->raw_pos = r->raw_len = 0;
	}
	if (r->stored_failed)
		return false;
	/* a second call would finish a finished digest */
	r->stored_failed = true;
	out->has_sha256 = false;
	if (r->stored_sha) {
		if (!hd_sha256_finish(r->stored_sha, out->sha256))
			return false;
		out->has_sha256 = true;
	}
	XXH128_canonicalFromHash(&canon, XXH3_128bits_digest(r->stored_xxh));
	for (size_t i = 0; i < sizeof(canon.digest); i++)
		g_snprintf(out->xxh3_128 + 2 * i, 3, "%02x", canon.digest[i]);
	out->size = total;
	return true;
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
	XXH3_freeState(r->hash);
	XXH3_freeState(r->stored_xxh);
	hd_sha256_free(r->stored_sha);
	g_free(r->trailing);
	g_free(r->u16);
	g_free(r->raw);
	g_free(r->refusal);
	g_free(r->path);
	g_clear_error(&r->head_error);
	g_clear_error(&r->u16_error);
	g_free(r);
}

void hd_reader_set_budget(struct hd_reader *r, uint64_t max_bytes,
			  unsigned max_ratio, const char *what)
{
	r->max_decoded = max_bytes;
	r->max_ratio = max_ratio;
	r->budget_what = what;
	/*
	 * The head was decoded before the kind, and so the budget, was
	 * known: a budget below it (HANGDOC_MAX_INPUT_SIZE=1K) holds too.
	 */
	if (r->decoded > max_bytes && !r->refusal) {
		g_autofree char *size = size_text(max_bytes);

		r->refusal = g_strdup_printf(
			"more than %s decoded, the budget for %s; the rest is not read",
			size, what);
	}
}

void hd_reader_set_pool(struct hd_reader *r, struct hd_budget_pool *pool,
			bool stored, bool decoded)
{
	g_assert(!r->pool || r->pool == pool);
	r->pool = pool;
	if (stored && !r->pool_stored) {
		r->pool_stored = true;
		hd_budget_pool_add_stored(pool, r->raw_total);
	}
	if (decoded && !r->pool_decoded) {
		char *why = NULL;

		r->pool_decoded = true;
		if (!hd_budget_pool_add_decoded(pool, r->decoded, &why) &&
		    !r->refusal) {
			r->refusal = why;
			r->pool_refused = true;
		} else
			g_free(why);
	}
}

const char *hd_reader_refusal(const struct hd_reader *r)
{
	return r->refusal;
}

bool hd_reader_refused_by_pool(const struct hd_reader *r)
{
	return r->pool_refused;
}

const char *hd_reader_trailing(const struct hd_reader *r)
{
	return r->trailing;
}

void hd_reader_digest(const struct hd_reader *r, struct hd_digest *d)
{
	d->length = r->decoded;
	d->hashed = !r->no_hash;
	d->hash = d->hashed ? XXH3_64bits_digest(r->hash) : 0;
	d->complete = r->ended && !r->refusal;
}

void hd_reader_skip_content_hash(struct hd_reader *r)
{
	r->no_hash = true;
}

enum hd_compression hd_reader_compression(const struct hd_reader *r)
{
	return r->comp;
}

const char *hd_reader_path(const struct hd_reader *r)
{
	return r->path;
}

/* Drops the NUL bytes at the start of the head; true when it held only them. */
static bool head_skip_nul(struct hd_reader *r)
{
	size_t z = 0;

	while (z < r->head_len && r->head[z] == 0)
		z++;
	if (!z)
		return false;
	memmove(r->head, r->head + z, r->head_len - z);
	r->head_len -= z;
	r->nul_skipped += z;
	r->consumed += z;
	return r->head_len == 0;
}

const uint8_t *hd_reader_head(struct hd_reader *r, size_t *len, GError **error)
{
	bool leading = true; /* still at the start of the stream */

	if (!r->head_done) {
		GError *err = NULL;

		while (r->head_len < HD_READER_HEAD_MAX) {
			ssize_t n = decode_text(
				r, r->head + r->head_len,
				HD_READER_HEAD_MAX - r->head_len, &err);

			if (n <= 0)
				break;
			r->head_len += n;
			if (leading)
				leading = head_skip_nul(r);
		}
		r->head_done = true;
		if (err && r->head_len)
			r->head_error = err;
		else if (err)
			g_propagate_error(error, err);
	}
	*len = r->head_len;
	return r->head;
}

const char *hd_reader_encoding(const struct hd_reader *r)
{
	return r->enc == ENC_UTF16LE   ? "UTF-16LE"
	       : r->enc == ENC_UTF16BE ? "UTF-16BE"
				       : NULL;
}

uint64_t hd_reader_nul_skipped(const struct hd_reader *r)
{
	return r->nul_skipped;
}

void hd_reader_add_nul(struct hd_reader *r, uint64_t n)
{
	r->nul_skipped += n;
}

ssize_t hd_reader_read(struct hd_reader *r, void *buf, size_t n, GError **error)
{
	ssize_t got;

	if (n == 0)
		return 0;
	/*
	 * A budget below the head (hd_reader_set_budget()): the head is
	 * handed out up to the budget, as decode() would have, then refused.
	 */
	if (r->refusal && r->decoded > r->max_decoded &&
	    r->head_pos < r->head_len) {
		if (r->head_pos >= r->max_decoded) {
			g_set_error_literal(error, HD_ERROR, HD_ERROR_TOO_BIG,
					    r->refusal);
			return -1;
		}
		n = MIN(n, r->max_decoded - r->head_pos);
	}
	if (r->head_pos < r->head_len) {
		size_t take = MIN(n, r->head_len - r->head_pos);

		memcpy(buf, r->head + r->head_pos, take);
		r->head_pos += take;
		r->consumed += take;
		return take;
	}
	r->head_done = true;
	if (r->head_error) {
		g_propagate_error(error, g_steal_pointer(&r->head_error));
		return -1;
	}
	if (r->eof)
		return 0;
	got = decode_text(r, buf, n, error);
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
					    "larger than %zu bytes", max);
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
