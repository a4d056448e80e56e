/*
 * The line reader and "Field : value" helpers of the host-state text
 * parsers (gpu-state.c, ib-state.c).  Docs in state-text.h.
 */
#include "config.h"

#include <string.h>

#include "state-text.h"
#include "hd-lines.h"
#include "hd-banned.h"

bool st_starts(const char *p, size_t n, const char *s)
{
	size_t m = strlen(s);

	return n >= m && memcmp(p, s, m) == 0;
}

const char *st_value(const char *p, size_t n, size_t *vn)
{
	const char *c = memchr(p, ':', n);

	if (!c)
		return NULL;
	c++;
	while (c < p + n && (*c == ' ' || *c == '\t'))
		c++;
	*vn = (size_t)(p + n - c);
	return c;
}

uint64_t st_each_line(struct hd_reader *rd,
		      void (*fn)(void *ctx, const char *line, size_t len,
				 uint64_t lineno),
		      void *ctx, GError **error)
{
	g_autoptr(hd_lines) lines = hd_lines_new(rd);
	const char *l;
	size_t n;
	bool cut;

	while (hd_lines_next(lines, &l, &n, &cut, error)) {
		if (n && l[n - 1] == '\r')
			n--;
		fn(ctx, l, n, hd_lines_lineno(lines));
	}
	return hd_lines_lineno(lines);
}
