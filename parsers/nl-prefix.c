/*
 * NCCL record prefixes (nl-prefix.h): "host:pid:tid [dev]" read back from
 * the anchor, once per distinct prefix text.
 */
#include "config.h"

#include "nl-prefix.h"

#include <string.h>

#include "hd-banned.h"

/* "[12]": a device index in brackets. */
static bool dev_token(const char *tok, const char *end, int *dev)
{
	const char *q = tok + 1;
	int64_t v;

	if (end - tok < 3 || tok[0] != '[' || end[-1] != ']')
		return false;
	if (!scan_int(&q, end - 1, &v) || q != end - 1)
		return false;
	*dev = (int)clamp_int(v, -1, INT_MAX);
	return true;
}

/* Whether [tok, end) ends in ":pid:tid". */
static bool hpt_tail(const char *tok, const char *end)
{
	const char *q = end;

	for (int part = 0; part < 2; part++) {
		const char *e = q;

		while (q > tok && g_ascii_isdigit(q[-1]))
			q--;
		if (q == e || q == tok || q[-1] != ':')
			return false;
		q--;
	}
	return true;
}

/*
 * Parses "host:pid:tid" ending at e (host may be empty, and may be glued
 * to a wrapper before it: "[1,5]<stdout>:node-a:4242:4242").
 */
static bool hpt_back(const char *line, const char *e, struct nl_rec *r)
{
	const char *q = e;
	int64_t v[2];

	for (int part = 0; part < 2; part++) {
		const char *end = q, *d;

		while (q > line && g_ascii_isdigit(q[-1]))
			q--;
		d = q;
		if (q == end || q == line || q[-1] != ':' ||
		    !scan_int(&d, end, &v[part]))
			return false;
		q--;
	}
	e = q;
	while (q > line && is_host_char(q[-1]))
		q--;
	/* a bare colour code glued to the host: "[36mnode-a" */
	if (q > line && (q[-1] == '[' || q[-1] == ';')) {
		const char *t = q;

		while (t < e && g_ascii_isdigit(*t))
			t++;
		if (t > q && t < e && *t == 'm')
			q = t + 1;
	}
	r->host = q;
	r->host_len = e - q;
	r->tid = (int)clamp_int(v[0], 0, INT_MAX);
	r->pid = (int)clamp_int(v[1], 0, INT_MAX);
	r->has_hpt = true;
	r->start = q;
	return true;
}

bool nl_rec_prefix_walk(const char *line, const char *a, struct nl_rec *r)
{
	const char *p = a, *tok, *tok_end;
	bool found = false;

	memset(r, 0, sizeof(*r));
	r->dev = -1;
	r->start = a;
	for (int t = 0; t < 5 && p > line; t++) {
		while (p > line && p[-1] == ' ')
			p--;
		tok_end = p;
		while (p > line && p[-1] != ' ')
			p--;
		tok = p;
		if (dev_token(tok, tok_end, &r->dev)) {
			r->start = tok;
			found = true;
			break;
		}
		/* NCCL CALL records have no [dev]: H:P:T right before. */
		if (t == 0 && hpt_tail(tok, tok_end)) {
			p = tok_end;
			found = true;
			break;
		}
	}
	if (!found)
		return false;
	while (p > line && p[-1] == ' ')
		p--;
	return hpt_back(line, p, r) || r->dev >= 0;
}

bool nl_rec_prefix(struct nl_ctx *c, const char *line, const char *a,
		   struct nl_rec *r)
{
	size_t n = a - line;
	struct nl_prefix *e;
	unsigned h;
	bool ok;

	c->last_prefix = NULL;
	if (n == 0 || n >= NL_PREFIX_MAX)
		return nl_rec_prefix_walk(line, a, r);
	e = nl_prefix_find(c, line, n);
	if (e) {
		*r = e->rec;
		r->host = e->host_off < 0 ? NULL : line + e->host_off;
		r->start = line + e->start_off;
		c->last_prefix = e;
		return e->ok;
	}
	/* two-way: a prefix lives in slot h or its neighbour */
	h = nl_prefix_slot(line, n);
	e = &c->prefix_cache[h];
	if (e->len != 0 && c->prefix_cache[h ^ 1].len == 0)
		e = &c->prefix_cache[h ^ 1];
	ok = nl_rec_prefix_walk(line, a, r);
	memcpy(e->text, line, n);
	e->len = (uint8_t)n;
	e->ok = ok;
	e->fast = false;
	c->last_prefix = e;
	e->rec = *r;
	e->host_off = r->host ? (int)(r->host - line) : -1;
	e->start_off = (int)(r->start - line);
	return ok;
}

void nl_prefixes_init(struct nl_ctx *c)
{
	c->prefix_cache = g_new0(struct nl_prefix, NL_PREFIX_CACHE);
}

void nl_prefixes_clear(struct nl_ctx *c)
{
	g_free(c->prefix_cache);
}
