/*
 * NCCL record prefixes ("host:pid:tid [dev] "), below the record grammar
 * (nl-coll.c, nccl-record.c) and the driver: the walk back from a
 * record's anchor, and the cache of the prefixes seen (NL_PREFIX_CACHE
 * of them, two-way), which the COLL fast path reads too.  Not for use
 * outside the log parser.
 *
 * Ownership: the cache belongs to the parse state (nl_prefixes_init(),
 * nl_prefixes_clear()); a struct nl_rec points into the line it was read
 * from.
 */
#ifndef HD_NL_PREFIX_H
#define HD_NL_PREFIX_H

#include <string.h>

#include "nl-ctx.h"

#define NL_PREFIX_CACHE 64 /* record prefixes remembered */
#define NL_PREFIX_MAX	64 /* longest prefix remembered */

/*
 * A record prefix seen before ("node-a:4000:4000 [0] "): an interleaved
 * log repeats a few of them on every line, so nl_rec_prefix()'s walk back
 * is done once per distinct prefix.  Offsets are from the line start.
 */
struct nl_prefix {
	char text[NL_PREFIX_MAX];
	uint8_t len; /* 0: empty slot */
	bool ok;
	struct nl_rec rec; /* host and start: see the offsets */
	int host_off, start_off; /* from the line start; host -1: NULL */
	/*
	 * With fast: what nl_handle_nccl() made of this prefix on a raw
	 * line, its process as of proc_epoch epoch (nl_coll_fast()).
	 */
	bool fast;
	uint32_t epoch;
	struct nl_proc *p;
	struct nl_stream *st;
	int tag_rank; /* the wrapper's */
};

/* Sets up c's prefix cache. */
void nl_prefixes_init(struct nl_ctx *c);
/* Frees what nl_prefixes_init() set up. */
void nl_prefixes_clear(struct nl_ctx *c);

/*
 * Walks back from the anchor at a (the 'N' of "NCCL", or the level word
 * of a 2.2 record) over an optional "F:L", "(func)" or TRACE time, and
 * "[dev]", to "host:pid:tid".  False when neither "[dev]" nor "H:P:T" is
 * there.  A record with "[dev]" only is the trimmed form.
 */
bool nl_rec_prefix_walk(const char *line, const char *a, struct nl_rec *r);
/*
 * nl_rec_prefix_walk(), remembered per distinct prefix text; sets
 * c->last_prefix to the prefix's cache entry (NULL for an empty prefix or
 * one too long to remember).
 */
bool nl_rec_prefix(struct nl_ctx *c, const char *line, const char *a,
		   struct nl_rec *r);

/* The cache slot of the prefix [s, s + n). */
static inline unsigned nl_prefix_slot(const char *s, size_t n)
{
	uint64_t h = n, w;
	const char *e = s + n;

	if (n < 8) {
		for (; n > 0; n--)
			h = (h ^ (uint8_t)*s++) * 0x9e3779b97f4a7c15ull;
		return (unsigned)(h >> 58) % NL_PREFIX_CACHE;
	}
	for (; e - s > 8; s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	}
	/* the last 8 bytes, which may overlap the word before */
	memcpy(&w, e - 8, 8);
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 58) % NL_PREFIX_CACHE;
}

/* memcmp(a, b, n) == 0 for a prefix: words, the last one overlapping. */
static inline bool nl_prefix_same(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	size_t i = 0;

	if (n < 8)
		return memcmp(a, b, n) == 0;
	for (; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

/* The remembered prefix [s, s + n), 0 < n < NL_PREFIX_MAX, or NULL. */
static inline struct nl_prefix *nl_prefix_find(struct nl_ctx *c, const char *s,
					       size_t n)
{
	unsigned h = nl_prefix_slot(s, n);

	for (unsigned way = 0; way < 2; way++) {
		struct nl_prefix *e = &c->prefix_cache[h ^ way];

		if (e->len == n && nl_prefix_same(e->text, s, n))
			return e;
	}
	return NULL;
}

#endif
