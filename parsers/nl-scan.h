/*
 * The NCCL record grammar's scanners of hex, pointers and literals, below
 * every part of it (nl-proc.c, nl-coll.c, nccl-record.c): a COLL line is
 * mostly hex.  The decimal scanner and the other helpers every line goes
 * through are nl-ctx.h's.  Not for use outside the log parser.
 *
 * Ownership: nothing is allocated; every scanner reads [*p, end) and, on
 * success, steps *p past what it read.
 */
#ifndef HD_NL_SCAN_H
#define HD_NL_SCAN_H

#include <string.h>

#include "nl-ctx.h"

/* Hex digit values plus one, 0 for other bytes: the COLL line is mostly hex. */
static const uint8_t hexval1[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* At most 16 hex digits (a pointer or an opCount); false if none. */
NL_INLINE bool scan_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned d;

	while (s < end && (d = hexval1[(uint8_t)*s]) != 0) {
		v = (v << 4) | (d - 1);
		s++;
	}
	if (s == *p || s - *p > 16)
		return false;
	*out = v;
	*p = s;
	return true;
}

/* A %p value: 0x..., (nil), or bare hex (NCCL CALL). */
NL_INLINE bool scan_ptr(const char **p, const char *end, uint64_t *out)
{
	if (end - *p >= 2 && (*p)[0] == '0' && ((*p)[1] == 'x')) {
		*p += 2;
	} else if (end - *p >= 5 && same(*p, "(nil)", 5)) {
		*p += 5;
		*out = 0;
		return true;
	}
	return scan_hex(p, end, out);
}

/*
 * Expects the literal lit at *p.  Returns 1 on a match, 0 on a mismatch
 * and -1 when the text ends inside the literal (a cut record).
 */
NL_INLINE int expect(const char **p, const char *end, const char *lit)
{
	size_t k = strlen(lit);
	size_t avail = end - *p;

	if (avail < k)
		return memcmp(*p, lit, avail) == 0 ? -1 : 0;
	if (!same(*p, lit, k))
		return 0;
	*p += k;
	return 1;
}

static inline bool cap_hex(struct nl_ctx *c, const char *s, int i, uint64_t *v)
{
	const char *p;
	size_t len;

	if (!cap(c, s, i, &p, &len))
		return false;
	return scan_ptr(&p, p + len, v);
}

#endif
