/*
 * Lines: a reader's bytes split into lines of at most HD_LINE_MAX bytes,
 * from a buffer refilled as it empties.  A line ends at \n, \r\n or a lone
 * \r; the searches for \n, for \r and for NUL remember where they got
 * to, so that a file with no \n at all (\r line ends) is not scanned
 * again for every line, nor one with no \r or NUL (nearly every log) for
 * either.  NUL bytes are no text: a run of them is a hole a writer left
 * (logrotate's copytruncate under a writer that kept its offset, a crash
 * before the data reached the disk), skipped and counted on the reader,
 * and a line that stops at one is cut there.
 */
#include "config.h"

#include "hd-lines.h"

#include <string.h>

#include "hd-banned.h"

#define LINES_BUF_SIZE (1024 * 1024)

struct hd_lines {
	struct hd_reader *r;
	char *buf;
	size_t cap;
	size_t start, end; /* unread bytes are buf[start, end) */
	bool eof;
	bool unterminated; /* the last line returned had no line end */
	bool nul_ended; /* it stopped at a NUL: the next one shares its number */
	bool skipping; /* inside the overflow of a cut line */
	bool after_cr; /* the last line ended at \r: a \n next belongs to it */
	/* The first \n at or after start is buf[nl_at] when nl_valid;
	   otherwise there is none in buf[start, nl_scanned). */
	bool nl_valid;
	size_t nl_at, nl_scanned;
	/* The same for \r, and for NUL. */
	bool cr_valid;
	size_t cr_at, cr_scanned;
	bool nul_valid;
	size_t nul_at, nul_scanned;
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

bool hd_lines_unterminated(const struct hd_lines *l)
{
	return l->unterminated;
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
		l->nl_at -= l->nl_valid ? l->start : 0;
		l->nl_scanned -= MIN(l->nl_scanned, l->start);
		l->cr_at -= l->cr_valid ? l->start : 0;
		l->cr_scanned -= MIN(l->cr_scanned, l->start);
		l->nul_at -= l->nul_valid ? l->start : 0;
		l->nul_scanned -= MIN(l->nul_scanned, l->start);
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

/* Consumes n bytes from start. */
static void lines_skip(struct hd_lines *l, size_t n)
{
	l->start += n;
	if (l->nl_valid && l->nl_at < l->start)
		l->nl_valid = false;
	if (l->cr_valid && l->cr_at < l->start)
		l->cr_valid = false;
	if (l->nul_valid && l->nul_at < l->start)
		l->nul_valid = false;
}

/*
 * The first byte ch at or after start, remembered in *valid and *at, or
 * known absent from buf[start, *scanned): each byte is searched once.
 */
static void find_byte(struct hd_lines *l, char ch, bool *valid, size_t *at,
		      size_t *scanned)
{
	size_t from;
	char *p;

	if (*valid)
		return;
	from = MAX(*scanned, l->start);
	p = memchr(l->buf + from, ch, l->end - from);
	if (p) {
		*valid = true;
		*at = p - l->buf;
	} else {
		*scanned = l->end;
	}
}

/* The first \n or \r among the unread bytes, or NULL. */
static char *find_eol(struct hd_lines *l)
{
	find_byte(l, '\n', &l->nl_valid, &l->nl_at, &l->nl_scanned);
	find_byte(l, '\r', &l->cr_valid, &l->cr_at, &l->cr_scanned);
	if (l->cr_valid && (!l->nl_valid || l->cr_at < l->nl_at))
		return l->buf + l->cr_at;
	return l->nl_valid ? l->buf + l->nl_at : NULL;
}

/*
 * The first NUL among the next upto unread bytes, or NULL.  Searched
 * once for the whole buffer, like \r, not once a line: a line's search
 * costs a call whatever it finds, and nearly every log has none.
 */
static const char *find_nul(struct hd_lines *l, size_t upto)
{
	find_byte(l, '\0', &l->nul_valid, &l->nul_at, &l->nul_scanned);
	return l->nul_valid && l->nul_at < l->start + upto ? l->buf + l->nul_at
							   : NULL;
}

bool hd_lines_next(struct hd_lines *l, const char **line, size_t *len,
		   bool *cut, GError **error)
{
	*cut = false;
	for (;;) {
		char *base = l->buf + l->start;
		size_t avail = l->end - l->start;
		char *eol;
		size_t n;

		if (l->after_cr) {
			/* \r\n is one line end, whatever the buffer cut */
			if (avail == 0) {
				if (!lines_fill(l, error))
					return false;
				continue;
			}
			if (base[0] == '\n')
				lines_skip(l, 1);
			l->after_cr = false;
			continue;
		}
		if (!l->skipping && avail && base[0] == '\0') {
			size_t z = 0;

			while (z < avail && base[z] == '\0')
				z++;
			lines_skip(l, z);
			hd_reader_add_nul(l->r, z);
			if (z == avail && !lines_fill(l, error) &&
			    l->end == l->start)
				return false;
			continue;
		}
		eol = find_eol(l);
		if (l->skipping) {
			/* Drop the rest of a cut line. */
			if (eol) {
				l->after_cr = *eol == '\r';
				lines_skip(l, eol - base + 1);
				l->skipping = false;
				continue;
			}
			lines_skip(l, avail);
			if (!lines_fill(l, error))
				return false;
			continue;
		}
		if (eol || avail >= HD_LINE_MAX || (l->eof && avail > 0)) {
			size_t upto = eol && (size_t)(eol - base) <= HD_LINE_MAX
					      ? (size_t)(eol - base)
					      : MIN(avail, HD_LINE_MAX);
			const char *nul = find_nul(l, upto);
			bool shares = l->nul_ended;

			l->unterminated = false;
			l->nul_ended = false;
			if (nul) {
				/* a hole in the line: the text stops here */
				n = nul - base;
				lines_skip(l, n);
				l->unterminated = true;
				l->nul_ended = true;
			} else if (eol && (size_t)(eol - base) <= HD_LINE_MAX) {
				n = eol - base;
				l->after_cr = *eol == '\r';
				lines_skip(l, n + 1);
			} else if (avail >= HD_LINE_MAX) {
				n = HD_LINE_MAX;
				*cut = true;
				lines_skip(l, n);
				l->skipping = true;
			} else {
				n = avail;
				lines_skip(l, n);
				l->unterminated = true;
			}
			if (!shares)
				l->lineno++;
			/* UTF-8's mark where a file was appended to another */
			if (n >= 3 && (uint8_t)base[0] == 0xef &&
			    (uint8_t)base[1] == 0xbb &&
			    (uint8_t)base[2] == 0xbf) {
				base += 3;
				n -= 3;
			}
			*line = base;
			*len = n;
			return true;
		}
		if (!lines_fill(l, error)) {
			if (l->end > l->start)
				continue;
			return false;
		}
		/* lines_fill() moved the data to the front. */
	}
}
