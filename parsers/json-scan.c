/*
 * The Chrome-trace event scanner (see json-scan.h).  The hot loop is the
 * value scanner: outside strings it looks up each byte in a table of the
 * five structural characters 16 bytes at a time (SSE2, the x86-64 baseline;
 * elsewhere a table loop), and inside strings it looks for a quote or a
 * backslash the same way (elsewhere a short table loop, then memchr()).  Nothing here recurses, and the
 * buffer never holds more than one item (at most the cap) plus one read.
 */
#include "config.h"

#include "json-scan.h"

#include <string.h>
#include <glib.h>

#include "hd-banned.h"

enum scan_state {
	S_BEGIN = 0,
	S_KEY,
	S_KEYSTR,
	S_COLON,
	S_VALUE,
	S_VALSCAN,
	S_EVENTS,
	S_EVSCAN,
	S_DONE,
	S_FAILED,
};

#define KEY_MAX 128

struct json_scan {
	struct json_scan_cb cb;
	void *ud;
	size_t cap;

	char *buf;
	size_t alloc, len, pos;
	uint64_t base_off; /* stream offset of buf[0] */

	enum scan_state state;
	bool bare; /* the document is a bare array of events */
	uint64_t nevents;
	char key[KEY_MAX];

	/* the item being scanned */
	bool in_item, skipping;
	size_t item_start;
	uint64_t item_off, item_size;
	int64_t v_depth;
	bool v_in_str, v_esc, v_scalar;
};

/* Structural bytes outside strings. */
static const uint8_t structural[256] = {
	['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1,
};
/* Bytes that end a string run. */
static const uint8_t strstop[256] = {
	['"'] = 1,
	['\\'] = 1,
};
/* Bytes that end a scalar. */
static const uint8_t delim[256] = {
	[','] = 1, ['}'] = 1,  [']'] = 1,  [':'] = 1,
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
};

struct vstate {
	int64_t depth;
	bool in_str, esc, scalar;
};

#ifdef __SSE2__
#include <emmintrin.h>

/* First byte of "{}[] at or after p, or end: 16 bytes per step. */
static inline const char *find_structural(const char *p, const char *end)
{
	const __m128i q = _mm_set1_epi8('"'), lb = _mm_set1_epi8('{'),
		      rb = _mm_set1_epi8('}'), ls = _mm_set1_epi8('['),
		      rs = _mm_set1_epi8(']');

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, q),
				     _mm_cmpeq_epi8(v, lb)),
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, rb),
						  _mm_cmpeq_epi8(v, ls)),
				     _mm_cmpeq_epi8(v, rs)));
		int bits = _mm_movemask_epi8(m);

		if (bits)
			return p + __builtin_ctz((unsigned)bits);
		p += 16;
	}
	while (p < end && !structural[(uint8_t)*p])
		p++;
	return p;
}

/* First quote or backslash at or after p, or end. */
static inline const char *find_strstop(const char *p, const char *end)
{
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		int bits = _mm_movemask_epi8(_mm_or_si128(
			_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));

		if (bits)
			return p + __builtin_ctz((unsigned)bits);
		p += 16;
	}
	while (p < end && !strstop[(uint8_t)*p])
		p++;
	return p;
}
#else
static inline const char *find_structural(const char *p, const char *end)
{
	while (p < end && !structural[(uint8_t)*p])
		p++;
	return p;
}

/* Short strings: a table loop; long ones: memchr. */
static inline const char *find_strstop(const char *p, const char *end)
{
	const char *lim = end - p > 48 ? p + 48 : end, *q, *bs;

	while (p < lim && !strstop[(uint8_t)*p])
		p++;
	if (p < lim || p == end)
		return p;
	q = memchr(p, '"', end - p);
	bs = memchr(p, '\\', (q ? q : end) - p);
	return bs ? bs : q ? q : end;
}
#endif

/*
 * Advances over [*pp, end) until the value described by v completes.
 * Returns true when it did (*pp just past it; a scalar stops at its
 * delimiter), false when the bytes ran out (*pp == end).
 */
static bool scan_slow(struct vstate *v, const char **pp, const char *end)
{
	const char *p = *pp;

	if (v->scalar) {
		while (p < end && !delim[(uint8_t)*p])
			p++;
		*pp = p;
		return p < end;
	}
	while (p < end) {
		if (v->in_str) {
			if (v->esc) {
				p++;
				v->esc = false;
				continue;
			}
			p = find_strstop(p, end);
			if (p == end)
				break;
			if (*p == '\\') {
				p++;
				v->esc = true;
				continue;
			}
			p++;
			v->in_str = false;
			if (v->depth <= 0) {
				*pp = p;
				return true;
			}
			continue;
		}
		p = find_structural(p, end);
		if (p == end)
			break;
		switch (*p++) {
		case '"':
			v->in_str = true;
			break;
		case '{':
		case '[':
			v->depth++;
			break;
		default:
			if (--v->depth <= 0) {
				*pp = p;
				return true;
			}
		}
	}
	*pp = end;
	return false;
}

#ifdef __SSE2__
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

static inline uint64_t mask16(__m128i v, char c)
{
	return (uint64_t)(unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}

/*
 * 64 bytes at a time, simdjson style: a quote mask turned into an
 * in-string mask by prefix XOR, and brackets outside strings visited bit by
 * bit (events have a handful).  Blocks holding a backslash go through the
 * byte loop, which understands escapes.
 */
static bool scan_value(struct vstate *v, const char **pp, const char *end)
{
	const char *p = *pp;

	/* Scalars and top-level strings (keys, mostly): the byte loop. */
	if (v->scalar || (v->in_str && v->depth <= 0))
		return scan_slow(v, pp, end);
	while (end - p >= 64) {
		uint64_t q = 0, bs = 0, op = 0, cl = 0, in, br;

		for (int i = 0; i < 4; i++) {
			__m128i x = _mm_loadu_si128(
				(const __m128i *)(const void *)(p + 16 * i));

			q |= mask16(x, '"') << (16 * i);
			bs |= mask16(x, '\\') << (16 * i);
			op |= (mask16(x, '{') | mask16(x, '[')) << (16 * i);
			cl |= (mask16(x, '}') | mask16(x, ']')) << (16 * i);
		}
		if (bs || v->esc) {
			const char *blk = p;

			if (scan_slow(v, &blk, p + 64)) {
				*pp = blk;
				return true;
			}
			p += 64;
			continue;
		}
		in = prefix_xor(q) ^ (v->in_str ? ~UINT64_C(0) : 0);
		br = (op | cl) & ~in;
		while (br) {
			int i = __builtin_ctzll(br);

			if (op >> i & 1) {
				v->depth++;
			} else if (--v->depth <= 0) {
				v->in_str = false;
				*pp = p + i + 1;
				return true;
			}
			br &= br - 1;
		}
		v->in_str = in >> 63 & 1;
		p += 64;
	}
	*pp = p;
	return scan_slow(v, pp, end);
}
#else
static bool scan_value(struct vstate *v, const char **pp, const char *end)
{
	return scan_slow(v, pp, end);
}
#endif

/* Sets up v for a value whose first byte is at *pp. */
static void vstate_start(struct vstate *v, const char **pp)
{
	memset(v, 0, sizeof(*v));
	if (**pp == '"') {
		v->in_str = true;
		(*pp)++;
	} else if (**pp != '{' && **pp != '[') {
		v->scalar = true;
	}
}

struct json_scan *json_scan_new(size_t cap, const struct json_scan_cb *cb,
				void *ud)
{
	struct json_scan *s = g_new0(struct json_scan, 1);

	s->cb = *cb;
	s->ud = ud;
	s->cap = cap ? cap : JSON_SCAN_ITEM_CAP;
	s->alloc = 1 << 16;
	s->buf = g_malloc(s->alloc);
	return s;
}

void json_scan_free(struct json_scan *s)
{
	if (!s)
		return;
	g_free(s->buf);
	g_free(s);
}

char *json_scan_space(struct json_scan *s, size_t want)
{
	size_t keep = s->in_item && !s->skipping ? s->item_start : s->pos;

	if (s->in_item && s->skipping)
		keep = s->pos;
	if (keep > 0) {
		memmove(s->buf, s->buf + keep, s->len - keep);
		s->len -= keep;
		s->pos -= keep;
		if (s->in_item)
			s->item_start = s->item_start >= keep
						? s->item_start - keep
						: 0;
		s->base_off += keep;
	}
	if (s->alloc - s->len < want) {
		size_t n = s->alloc;

		while (n - s->len < want)
			n *= 2;
		s->buf = g_realloc(s->buf, n);
		s->alloc = n;
	}
	return s->buf + s->len;
}

static void fail(struct json_scan *s, const char *what)
{
	s->state = S_FAILED;
	s->in_item = false;
	if (s->cb.syntax)
		s->cb.syntax(s->ud, s->base_off + s->pos, what);
}

static void item_begin(struct json_scan *s, enum scan_state next)
{
	const char *p = s->buf + s->pos;
	struct vstate v;

	s->in_item = true;
	s->skipping = false;
	s->item_start = s->pos;
	s->item_off = s->base_off + s->pos;
	s->item_size = 0;
	vstate_start(&v, &p);
	s->pos = p - s->buf;
	s->v_depth = v.depth;
	s->v_in_str = v.in_str;
	s->v_esc = v.esc;
	s->v_scalar = v.scalar;
	s->state = next;
}

/* Scans the current item; true when it completed. */
static bool item_scan(struct json_scan *s)
{
	struct vstate v = { s->v_depth, s->v_in_str, s->v_esc, s->v_scalar };
	const char *p = s->buf + s->pos;
	bool done = scan_value(&v, &p, s->buf + s->len);

	s->pos = p - s->buf;
	s->v_depth = v.depth;
	s->v_in_str = v.in_str;
	s->v_esc = v.esc;
	s->v_scalar = v.scalar;
	if (s->skipping) {
		s->item_size += s->pos - s->item_start;
		s->item_start = s->pos;
	} else if (!done && s->pos - s->item_start > s->cap) {
		/* Too big to keep: count it and drop its bytes as we go. */
		s->skipping = true;
		s->item_size = s->pos - s->item_start;
		s->item_start = s->pos;
	}
	if (done && !s->skipping && s->pos - s->item_start > s->cap) {
		/* Same verdict whatever the read sizes were. */
		s->skipping = true;
		s->item_size = s->pos - s->item_start;
		s->item_start = s->pos;
	}
	if (done)
		s->in_item = false;
	return done;
}

static void item_deliver(struct json_scan *s, bool is_event)
{
	const char *p = s->buf + s->item_start;
	size_t n = s->pos - s->item_start;

	if (s->skipping) {
		if (s->cb.oversize)
			s->cb.oversize(s->ud, is_event ? NULL : s->key,
				       s->item_off, s->item_size, s->nevents);
	} else if (is_event) {
		if (s->cb.event)
			s->cb.event(s->ud, p, n, s->item_off, s->nevents);
	} else if (s->cb.top_value) {
		s->cb.top_value(s->ud, s->key, p, n, s->item_off);
	}
	if (is_event)
		s->nevents++;
	s->skipping = false;
}

static bool skip_ws(struct json_scan *s)
{
	while (s->pos < s->len) {
		uint8_t c = (uint8_t)s->buf[s->pos];

		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			return true;
		s->pos++;
	}
	return false;
}

static void run(struct json_scan *s)
{
	for (;;) {
		char c;

		switch (s->state) {
		case S_BEGIN:
			if (s->base_off + s->pos == 0 && s->len > 0 &&
			    (uint8_t)s->buf[0] == 0xef) {
				/* A byte-order mark, maybe split across reads. */
				if (s->len < 3)
					return;
				if (memcmp(s->buf, "\xef\xbb\xbf", 3) == 0)
					s->pos = 3;
			}
			if (!skip_ws(s))
				return;
			c = s->buf[s->pos];
			if (c == '{') {
				s->state = S_KEY;
			} else if (c == '[') {
				s->bare = true;
				s->state = S_EVENTS;
			} else {
				fail(s, "not a JSON object");
				return;
			}
			s->pos++;
			break;
		case S_KEY:
			if (!skip_ws(s))
				return;
			c = s->buf[s->pos];
			if (c == ',') {
				s->pos++;
			} else if (c == '}') {
				s->pos++;
				s->state = S_DONE;
			} else if (c == '"') {
				item_begin(s, S_KEYSTR);
			} else {
				fail(s, "expected a key");
				return;
			}
			break;
		case S_KEYSTR:
			if (!item_scan(s))
				return;
			if (s->skipping) {
				s->key[0] = '\0';
			} else {
				size_t n = s->pos - s->item_start - 2;

				n = MIN(n, KEY_MAX - 1);
				memcpy(s->key, s->buf + s->item_start + 1, n);
				s->key[n] = '\0';
			}
			s->skipping = false;
			s->state = S_COLON;
			break;
		case S_COLON:
			if (!skip_ws(s))
				return;
			if (s->buf[s->pos] != ':') {
				fail(s, "expected ':' after a key");
				return;
			}
			s->pos++;
			s->state = S_VALUE;
			break;
		case S_VALUE:
			if (!skip_ws(s))
				return;
			if (s->buf[s->pos] == '[' &&
			    strcmp(s->key, "traceEvents") == 0) {
				s->pos++;
				s->state = S_EVENTS;
			} else if (strchr(",:}]", s->buf[s->pos])) {
				fail(s, "expected a value");
				return;
			} else {
				item_begin(s, S_VALSCAN);
			}
			break;
		case S_VALSCAN:
			if (!item_scan(s))
				return;
			item_deliver(s, false);
			s->state = S_KEY;
			break;
		case S_EVENTS:
			if (!skip_ws(s))
				return;
			c = s->buf[s->pos];
			if (c == ',') {
				s->pos++;
			} else if (c == ']') {
				s->pos++;
				s->state = s->bare ? S_DONE : S_KEY;
			} else if (c == '}' || c == ':') {
				fail(s, "unexpected byte in traceEvents");
				return;
			} else {
				item_begin(s, S_EVSCAN);
			}
			break;
		case S_EVSCAN:
			if (!item_scan(s))
				return;
			item_deliver(s, true);
			s->state = S_EVENTS;
			break;
		case S_DONE:
		case S_FAILED:
			s->pos = s->len;
			return;
		}
	}
}

bool json_scan_commit(struct json_scan *s, size_t n)
{
	g_assert(n <= s->alloc - s->len);
	s->len += n;
	run(s);
	return s->state != S_FAILED;
}

bool json_scan_feed(struct json_scan *s, const void *data, size_t len)
{
	char *p = json_scan_space(s, len);

	if (len)
		memcpy(p, data, len);
	return json_scan_commit(s, len);
}

enum json_scan_end json_scan_finish(struct json_scan *s, uint64_t *offset)
{
	/* A scalar at the very end is complete: EOF delimits it. */
	if (s->in_item && s->v_scalar && s->pos == s->len) {
		s->in_item = false;
		item_deliver(s, s->state == S_EVSCAN);
		s->state = s->state == S_EVSCAN ? S_EVENTS : S_KEY;
	}
	if (offset)
		*offset = s->in_item ? s->item_off : s->base_off + s->len;
	switch (s->state) {
	case S_DONE:
		return JSON_SCAN_COMPLETE;
	case S_FAILED:
		return JSON_SCAN_FAILED;
	case S_BEGIN:
		return JSON_SCAN_EMPTY;
	default:
		return JSON_SCAN_TRUNCATED;
	}
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

bool json_obj_next(const char *p, const char *end, size_t *pos,
		   const char **key, size_t *klen, const char **val,
		   size_t *vlen)
{
	const char *q = p + *pos, *k;
	struct vstate v;

	if (*pos == 0) {
		q = skip_blank(q, end);
		if (q == end || *q != '{')
			return false;
		q++;
	}
	q = skip_blank(q, end);
	if (q < end && *q == ',')
		q = skip_blank(q + 1, end);
	if (q == end || *q != '"')
		return false;
	k = q;
	vstate_start(&v, &q);
	if (!scan_value(&v, &q, end))
		return false;
	*key = k + 1;
	*klen = (size_t)(q - k) - 2;
	q = skip_blank(q, end);
	if (q == end || *q != ':')
		return false;
	q = skip_blank(q + 1, end);
	if (q == end || *q == ',' || *q == '}' || *q == ']' || *q == ':')
		return false;
	*val = q;
	vstate_start(&v, &q);
	if (!scan_value(&v, &q, end) && !v.scalar)
		return false;
	*vlen = (size_t)(q - *val);
	*pos = (size_t)(q - p);
	return true;
}

bool json_obj_get(const char *p, size_t len, const char *key, const char **val,
		  size_t *vlen)
{
	size_t pos = 0, kl, n = strlen(key);
	const char *k;

	while (json_obj_next(p, p + len, &pos, &k, &kl, val, vlen))
		if (kl == n && memcmp(k, key, n) == 0)
			return true;
	return false;
}

/* *v = *v * 10 + d, false past lim. */
static bool push_digit(uint64_t *v, unsigned d, uint64_t lim)
{
	if (*v > (lim - d) / 10)
		return false;
	*v = *v * 10 + d;
	return true;
}

bool json_raw_fixed(const char *p, size_t len, int digits, int64_t *out,
		    bool *cut)
{
	bool neg = false;
	uint64_t v = 0, lim;
	size_t i = 0;
	int fd = 0;

	if (len >= 2 && p[0] == '"' && p[len - 1] == '"') {
		p++;
		len -= 2;
	}
	if (i < len && p[i] == '-') {
		neg = true;
		i++;
	}
	if (i == len || !g_ascii_isdigit(p[i]))
		return false;
	/* INT64_MIN's magnitude is one more than INT64_MAX. */
	lim = (uint64_t)INT64_MAX + neg;
	for (; i < len && g_ascii_isdigit(p[i]); i++)
		if (!push_digit(&v, (unsigned)(p[i] - '0'), lim))
			return false;
	if (i < len && p[i] == '.' && digits > 0) {
		for (i++; i < len && g_ascii_isdigit(p[i]); i++, fd++) {
			if (fd >= digits)
				*cut = true;
			else if (!push_digit(&v, (unsigned)(p[i] - '0'), lim))
				return false;
		}
	}
	if (i != len)
		return false; /* an exponent, junk, or a fraction not asked for */
	for (; fd < digits; fd++)
		if (!push_digit(&v, 0, lim))
			return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

bool json_raw_int(const char *p, size_t len, int64_t *out)
{
	return json_raw_fixed(p, len, 0, out, NULL);
}

bool json_raw_streq(const char *p, size_t len, const char *s)
{
	size_t n = strlen(s);

	return len == n + 2 && p[0] == '"' && p[len - 1] == '"' &&
	       memcmp(p + 1, s, n) == 0;
}
