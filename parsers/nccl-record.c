/*
 * The NCCL record grammar of the NCCL_DEBUG log parser
 * (docs/format-nccl-log.md; the driver is parsers/nccl-log.c): everything
 * NCCL itself prints.  Init, COLL, teardown, version and Bootstrap lines,
 * WARN signatures (network, CUDA, config, bootstrap...), unwind
 * ("file:line -> code") lines, local-rank and RAS peer failures.
 *
 * NCCL records are taken apart from the anchor backwards (record prefix
 * "host:pid:tid [dev]", parsed once per distinct prefix, then whatever
 * wrapper a launcher or collector put in front) and forwards (the
 * message).  The COLL line, which is almost all of a COLL log, is parsed
 * by hand; the rarer grammars (Init, teardown, WARN signatures) use PCRE2,
 * JIT-compiled once per process.
 *
 * Ownership: everything here is per call; the store owns what is added.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "hd-hash.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's own state. */
#define NL_MAX_PROCS	(1 << 20)
#define NL_PREFIX_CACHE 64 /* record prefixes remembered */
#define NL_PREFIX_MAX	64 /* longest prefix remembered */

const char *const nl_nccl_rx_src[RX_COUNT] = {
	[RX_INIT] = "comm (0x[0-9a-fA-F]+|\\(nil\\)) rank (\\d+) nranks (\\d+)"
		    " cudaDev (-?\\d+)(?: nvmlDev (-?\\d+))?"
		    "(?: busId ([0-9a-fA-F]+))?"
		    "(?: parent (0x[0-9a-fA-F]+|\\(nil\\)))?"
		    "(?: (?:splitCount|childCount) (\\d+))?"
		    "(?: color (-?\\d+))?(?: key (-?\\d+))?"
		    "(?: commId 0x([0-9a-fA-F]+))? ?- Init (START|COMPLETE)",
	[RX_TEARDOWN] = "comm (0x[0-9a-fA-F]+) .*- (Destroy|Abort) "
			"(COMPLETE|START)",
	[RX_VERSION] = "[NR]CCL version (\\d+\\.\\d+(?:\\.\\d+)?)([^+\\s]*)"
		       "(?:\\+cuda(\\d+\\.\\d+))?",
	[RX_UNWIND] = "^(\\S+:\\d+) -> (-?\\d+)",
	[RX_IB_COMPL] = "Got completion (?:from peer (?:(\\S+) )?)?with "
			"(?:error |status=(?:[A-Za-z_]+\\()?)(\\d+)",
	[RX_PEER] = "peer (\\S+)",
	[RX_REMOTE_PEER] = "remote peer (\\S+)",
	[RX_SOCK_PEER] = "(?:from|to) (\\S+) failed",
	[RX_CONNECT_PEER] = "[Cc]onnect(?:ion)? to (\\S+)",
	[RX_CUDA_CODE] = "Cuda failure (\\d+)",
	[RX_HINT_RANK] = "at and around rank (\\d+)",
	[RX_FROM_RANK] = "from rank (\\d+)",
};

/* ------------------------------------------------------------------ */
/* Scanners of the record grammar.                                     */

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

static bool cap_hex(struct nl_ctx *c, const char *s, int i, uint64_t *v)
{
	const char *p;
	size_t len;

	if (!cap(c, s, i, &p, &len))
		return false;
	return scan_ptr(&p, p + len, v);
}

/* ------------------------------------------------------------------ */
/* Processes and comms.                                                */

static void proc_free(gpointer data)
{
	struct nl_proc *p = data;

	g_hash_table_destroy(p->live);
	g_ptr_array_free(p->comms, TRUE);
	g_hash_table_destroy(p->nth);
	g_free(p);
}

static void comm_free(gpointer data)
{
	struct nl_comm *cm = data;

	g_free(cm->ops);
	g_free(cm);
}

static struct nl_proc *proc_get(struct nl_ctx *c, const char *host,
				size_t host_len, int pid)
{
	char key[160];
	struct nl_proc **slot = &c->proc_cache[(unsigned)pid % NL_PROC_CACHE];
	struct nl_proc *p = *slot;

	/* interleaved processes: a direct-mapped cache by pid */
	if (p && p->pid == pid && p->host_len == host_len &&
	    memcmp(p->host, host, host_len) == 0)
		return p;
	g_snprintf(key, sizeof(key), "%.*s:%d", (int)MIN(host_len, 128), host,
		   pid);
	p = g_hash_table_lookup(c->procs_by_key, key);
	if (!p) {
		if (c->procs->len >= NL_MAX_PROCS)
			return NULL;
		p = g_new0(struct nl_proc, 1);
		p->index = c->procs->len;
		p->host = hd_intern_len(host, MIN(host_len, 128));
		p->host_len = MIN(host_len, 128);
		p->pid = pid;
		p->c10d_rank = p->hint_rank = p->tag_rank = -1;
		p->world_rank = p->world_dev = p->rank = -1;
		p->dev = p->anon = -1;
		p->live = g_hash_table_new_full(hd_int64_hash, hd_int64_equal,
						g_free, NULL);
		p->comms = g_ptr_array_new_with_free_func(comm_free);
		p->nth = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       NULL);
		g_ptr_array_add(c->procs, p);
		g_hash_table_insert(c->procs_by_key, g_strdup(key), p);
	}
	if (p->host_len == host_len)
		*slot = p;
	return p;
}

/*
 * Whether p's process life may have ended: it tore a comm down, logged a
 * WARN or ABORT, or torchrun restarted the workers since it began.  A
 * restart that reuses the pid (pid 1 in a container) goes on in the same
 * host:pid.  A watchdog timeout alone is not enough: a log appended to
 * itself (appended-self) repeats the banner after one.
 */
static bool proc_life_ended(const struct nl_ctx *c, const struct nl_proc *p)
{
	if (p->saw_teardown || p->last_warn)
		return true;
	for (guint i = 0; i < c->restarts->len; i++)
		if (g_array_index(c->restarts, uint64_t, i) > p->first_line)
			return true;
	return false;
}

/*
 * Whether the INFO body b of p starts a new life of its host:pid: a
 * second NCCL version banner (NCCL prints it once per process), or a new
 * Init of a commId p already initialized, after p's life may have ended.
 * A log appended to itself repeats its banner too, but with nothing
 * ending the first copy's life.  The COMPLETE of a comm whose START this
 * life printed is that comm coming up, a WARN between the two or not.
 */
static bool starts_new_life(const struct nl_ctx *c, const struct nl_proc *p,
			    const char *b, size_t n)
{
	const char *q;
	uint64_t id;

	if (!p->first_line || p->first_line == c->lineno ||
	    !proc_life_ended(c, p))
		return false;
	if (starts(b, n, "NCCL version ") || starts(b, n, "RCCL version "))
		return p->version != NULL;
	if (!has(b, n, "- Init ") || !(q = find(b, n, "commId 0x")))
		return false;
	q += 9;
	if (!scan_hex(&q, b + n, &id))
		return false;
	for (guint i = 0; i < p->comms->len; i++) {
		const struct nl_comm *cm = g_ptr_array_index(p->comms, i);
		const struct hd_group *g;

		if (cm->group < 0)
			continue;
		g = hd_store_group_at(c->store, (uint32_t)cm->group);
		if (g->has_comm_id && g->comm_id == id &&
		    (cm->complete || !has(b, n, "- Init COMPLETE")))
			return true;
	}
	return false;
}

/*
 * A new process life of old's host:pid, from this line on: later records
 * of that host:pid, and the streams old printed to, are the new one's.
 */
static struct nl_proc *proc_new_life(struct nl_ctx *c, struct nl_proc *old)
{
	char key[160];
	struct nl_proc *p;

	g_snprintf(key, sizeof(key), "%.*s:%d", (int)old->host_len, old->host,
		   old->pid);
	g_hash_table_remove(c->procs_by_key, key);
	c->proc_cache[(unsigned)old->pid % NL_PROC_CACHE] = NULL;
	/* host:pid names another process now: no prefix is current */
	c->proc_epoch++;
	p = proc_get(c, old->host, old->host_len, old->pid);
	if (!p)
		return old;
	p->first_line = p->last_line = c->lineno;
	p->stream = old->stream;
	p->dev = old->dev;
	old->last_line = old->prev_line;
	for (guint i = 0; i < c->streams->len; i++) {
		struct nl_stream *st = g_ptr_array_index(c->streams, i);

		if (st->proc == old)
			st->proc = p;
	}
	return p;
}

static void stream_add_proc(struct nl_stream *st, struct nl_proc *p)
{
	if (!st->proc)
		st->proc = p;
	else if (st->proc != p)
		st->multi = true;
	if (st->hint_rank >= 0) {
		hint_merge(&p->hint_rank, st->hint_rank);
		p->hint_srun |= st->hint_srun;
	}
}

/* Counts the creation order of comms with the same key in a process. */
static int proc_nth(struct nl_proc *p, const char *key)
{
	gpointer v = NULL;
	int n;

	if (g_hash_table_lookup_extended(p->nth, key, NULL, &v)) {
		n = GPOINTER_TO_INT(v);
		g_hash_table_replace(p->nth, g_strdup(key),
				     GINT_TO_POINTER(n + 1));
		return n;
	}
	g_hash_table_insert(p->nth, g_strdup(key), GINT_TO_POINTER(1));
	return 0;
}

static void comm_bind(struct nl_ctx *c, struct nl_comm *cm, const char *id,
		      bool has_id, uint64_t comm_id, bool low)
{
	struct hd_group *g;

	cm->group = hd_store_group(c->store, id);
	g = hd_store_group_at(c->store, (uint32_t)cm->group);
	if (cm->nranks > 0 && g->nranks < cm->nranks)
		g->nranks = cm->nranks;
	if (has_id) {
		g->has_comm_id = true;
		g->comm_id = comm_id;
	}
	if (low)
		g->low_confidence_identity = true;
}

/* Binds a comm to the low-confidence "nccl-nranks:N#k" identity. */
static void comm_bind_nranks(struct nl_ctx *c, struct nl_proc *p,
			     struct nl_comm *cm)
{
	char key[64], id[96];
	int k;

	g_snprintf(key, sizeof(key), "n%d", cm->nranks);
	k = proc_nth(p, key);
	g_snprintf(id, sizeof(id), "nccl-nranks:%d#%d", cm->nranks, k);
	comm_bind(c, cm, id, false, 0, true);
}

static struct nl_comm *comm_new(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm = g_new0(struct nl_comm, 1);
	uint64_t *key = g_new(uint64_t, 1);

	cm->ptr = ptr;
	cm->rank = cm->nranks = cm->cuda_dev = -1;
	cm->group = -1;
	cm->last_opcount = cm->max_opcount = -1;
	g_ptr_array_add(p->comms, cm);
	/* The table owns the key; replace frees the old instance's key. */
	*key = ptr;
	g_hash_table_replace(p->live, key, cm);
	p->last = cm;
	return cm;
}

static void proc_comm_forget(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm = g_hash_table_lookup(p->live, &ptr);

	if (cm) {
		g_hash_table_remove(p->live, &ptr);
		if (p->last == cm)
			p->last = NULL;
	}
}

static struct nl_comm *proc_comm(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm;

	if (p->last && p->last->ptr == ptr)
		return p->last;
	cm = g_hash_table_lookup(p->live, &ptr);
	if (cm)
		p->last = cm;
	return cm;
}

/* ------------------------------------------------------------------ */
/* Record prefixes.                                                    */

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

static unsigned prefix_slot(const char *s, size_t n)
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
static inline bool prefix_same(const char *a, const char *b, size_t n)
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
static struct nl_prefix *prefix_find(struct nl_ctx *c, const char *s, size_t n)
{
	unsigned h = prefix_slot(s, n);

	for (unsigned way = 0; way < 2; way++) {
		struct nl_prefix *e = &c->prefix_cache[h ^ way];

		if (e->len == n && prefix_same(e->text, s, n))
			return e;
	}
	return NULL;
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
	e = prefix_find(c, line, n);
	if (e) {
		*r = e->rec;
		r->host = e->host_off < 0 ? NULL : line + e->host_off;
		r->start = line + e->start_off;
		c->last_prefix = e;
		return e->ok;
	}
	/* two-way: a prefix lives in slot h or its neighbour */
	h = prefix_slot(line, n);
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

/* ------------------------------------------------------------------ */
/* NCCL records.                                                       */

/* The COLL op names, by their index in coll_ops[]. */
enum coll_op {
	CO_ALL_REDUCE,
	CO_ALL_GATHER,
	CO_REDUCE_SCATTER,
	CO_BROADCAST,
	CO_REDUCE,
	CO_SEND,
	CO_RECV,
	CO_ALL_TO_ALL,
	CO_GATHER,
	CO_SCATTER,
	CO_COUNT
};

static const struct {
	const char *name;
	size_t len;
	enum hd_op_kind kind;
} coll_ops[CO_COUNT] = {
#define COLL_OP(i, name, kind) [i] = { name, sizeof(name) - 1, kind }
	COLL_OP(CO_ALL_REDUCE, "AllReduce", HD_OP_ALL_REDUCE),
	COLL_OP(CO_ALL_GATHER, "AllGather", HD_OP_ALL_GATHER),
	COLL_OP(CO_REDUCE_SCATTER, "ReduceScatter", HD_OP_REDUCE_SCATTER),
	COLL_OP(CO_BROADCAST, "Broadcast", HD_OP_BROADCAST),
	COLL_OP(CO_REDUCE, "Reduce", HD_OP_REDUCE),
	COLL_OP(CO_SEND, "Send", HD_OP_SEND),
	COLL_OP(CO_RECV, "Recv", HD_OP_RECV),
	COLL_OP(CO_ALL_TO_ALL, "AlltoAll", HD_OP_ALL_TO_ALL),
	COLL_OP(CO_GATHER, "Gather", HD_OP_GATHER),
	COLL_OP(CO_SCATTER, "Scatter", HD_OP_SCATTER),
#undef COLL_OP
};

/* Whether the k bytes at body are op name i. */
NL_INLINE bool coll_op_is(const char *body, size_t k, enum coll_op i)
{
	return k == coll_ops[i].len && same(body, coll_ops[i].name, k);
}

int nl_coll_op(const char *body, size_t n, size_t *name_len)
{
	size_t k = 0, lim = MIN(n, 16);
	int i = -1;

	/* every line of a COLL log asks: no memchr() call */
#ifdef __SSE2__
	if (n >= 16) {
		__m128i v =
			_mm_loadu_si128((const __m128i *)(const void *)body);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(v, _mm_set1_epi8(':')));

		k = m ? (size_t)__builtin_ctz(m) : 16;
	} else
#endif
	{
		while (k < lim && body[k] != ':')
			k++;
	}
	if (k == lim || !starts(body + k, n - k, ": opCount "))
		return -1;
	/* only the names of that length */
	switch (k) {
	case 4:
		i = coll_op_is(body, k, CO_SEND)   ? CO_SEND
		    : coll_op_is(body, k, CO_RECV) ? CO_RECV
						   : -1;
		break;
	case 6:
		i = coll_op_is(body, k, CO_REDUCE)   ? CO_REDUCE
		    : coll_op_is(body, k, CO_GATHER) ? CO_GATHER
						     : -1;
		break;
	case 7:
		i = coll_op_is(body, k, CO_SCATTER) ? CO_SCATTER : -1;
		break;
	case 8:
		i = coll_op_is(body, k, CO_ALL_TO_ALL) ? CO_ALL_TO_ALL : -1;
		break;
	case 9:
		i = coll_op_is(body, k, CO_ALL_REDUCE)	 ? CO_ALL_REDUCE
		    : coll_op_is(body, k, CO_ALL_GATHER) ? CO_ALL_GATHER
		    : coll_op_is(body, k, CO_BROADCAST)	 ? CO_BROADCAST
							 : -1;
		break;
	case 13:
		i = coll_op_is(body, k, CO_REDUCE_SCATTER) ? CO_REDUCE_SCATTER
							   : -1;
		break;
	default:
		break;
	}
	if (i >= 0)
		*name_len = k;
	return i;
}

static const enum hd_dtype nccl_dtypes[] = {
	HD_DTYPE_INT8,	   HD_DTYPE_UINT8,    HD_DTYPE_INT32,
	HD_DTYPE_UINT32,   HD_DTYPE_INT64,    HD_DTYPE_UINT64,
	HD_DTYPE_FLOAT16,  HD_DTYPE_FLOAT32,  HD_DTYPE_FLOAT64,
	HD_DTYPE_BFLOAT16, HD_DTYPE_FP8_E4M3, HD_DTYPE_FP8_E5M2,
};

static bool is_reduction(enum hd_op_kind k)
{
	return k == HD_OP_ALL_REDUCE || k == HD_OP_REDUCE ||
	       k == HD_OP_REDUCE_SCATTER;
}

/* The fields of a COLL record, as far as its text goes. */
struct nl_coll {
	uint64_t opcount, comm;
	int64_t count, dtype, redop, root, nranks; /* -1 unknown */
	bool cut; /* the text ends early */
};

/*
 * Scans the fields after the op name in [s, end).  False, the line
 * skipped, when they are malformed or end before the comm pointer.
 */
static bool coll_scan(struct nl_ctx *c, const char *s, const char *end,
		      struct nl_coll *f)
{
	uint64_t sendbuf, recvbuf, stream;
	int r = 1;
	bool have_comm = false, nranks_ok = false;

	f->opcount = f->comm = 0;
	f->count = f->dtype = f->redop = f->root = f->nranks = -1;
	f->cut = false;
	/*
	 * Each step: a literal, then a value; stop at the first failure.
	 * r == -1 or s == end at the failure means the text ran out.
	 */
	if ((r = expect(&s, end, ": opCount ")) == 1 &&
	    scan_hex(&s, end, &f->opcount) &&
	    (r = expect(&s, end, " sendbuff ")) == 1 &&
	    scan_ptr(&s, end, &sendbuf) &&
	    (r = expect(&s, end, " recvbuff ")) == 1 &&
	    scan_ptr(&s, end, &recvbuf) &&
	    (r = expect(&s, end, " count ")) == 1 &&
	    scan_int(&s, end, &f->count) &&
	    (r = expect(&s, end, " datatype ")) == 1 &&
	    scan_int(&s, end, &f->dtype) &&
	    (r = expect(&s, end, " op ")) == 1 &&
	    scan_int(&s, end, &f->redop) &&
	    (r = expect(&s, end, " root ")) == 1 &&
	    scan_int(&s, end, &f->root) &&
	    (r = expect(&s, end, " comm ")) == 1 &&
	    scan_ptr(&s, end, &f->comm) &&
	    /* a pointer at the very end may itself be cut */
	    (have_comm = s < end) && (r = expect(&s, end, " [nranks=")) == 1 &&
	    scan_int(&s, end, &f->nranks) && (r = expect(&s, end, "]")) == 1 &&
	    (nranks_ok = true) && (r = expect(&s, end, " stream ")) == 1 &&
	    scan_ptr(&s, end, &stream)) {
		/* complete; what follows may be a fused record */
		c->coll_stop = s;
		return true;
	}
	f->cut = r == -1 || s == end;
	if (!f->cut || !have_comm) {
		nl_skip(c, f->cut ? "COLL record cut before its comm pointer"
				  : "malformed COLL record");
		return false;
	}
	/* nranks is trusted only with its closing bracket */
	if (!nranks_ok)
		f->nranks = -1;
	return true;
}

/*
 * The comm at ptr in p that a COLL record with nranks (-1 unknown) names.
 * NULL, the line skipped, when it can be put in no group.
 */
static struct nl_comm *coll_comm(struct nl_ctx *c, struct nl_proc *p,
				 uint64_t ptr, int64_t nranks)
{
	struct nl_comm *cm = proc_comm(p, ptr);

	if (!cm) {
		/* No Init line for it (INIT not logged): guess by nranks. */
		cm = comm_new(p, ptr);
		cm->nranks = (int)nranks;
		if (nranks > 0)
			comm_bind_nranks(c, p, cm);
	}
	if (cm->group < 0 && nranks > 0) {
		cm->nranks = (int)nranks;
		comm_bind_nranks(c, p, cm);
	}
	if (cm->group < 0) {
		nl_skip(c, "COLL record of an unknown comm without nranks");
		return NULL;
	}
	return cm;
}

/*
 * What a COLL record moves, in a comm of nranks: dtype, reduction,
 * counts in and out, root or peer.  (transfer none: interned)
 */
static const struct hd_opdesc *
coll_desc(struct nl_ctx *c, int which, const struct nl_coll *f, int64_t nranks)
{
	enum hd_op_kind kind = coll_ops[which].kind;
	struct hd_opdesc d = hd_opdesc_blank;

	d.name = c->coll_names[which];
	if (f->dtype >= 0 && f->dtype < (int64_t)G_N_ELEMENTS(nccl_dtypes)) {
		d.dtype = (uint8_t)nccl_dtypes[f->dtype];
	} else if (f->dtype >= 0) {
		char name[32];

		g_snprintf(name, sizeof(name), "ncclDataType %d",
			   (int)clamp_int(f->dtype, 0, INT_MAX));
		d.dtype = HD_DTYPE_OTHER;
		d.dtype_name = hd_intern(name);
	}
	if (is_reduction(kind) && f->redop >= 0)
		d.redop = f->redop >= 5 ? HD_REDOP_PREMULSUM
					: (uint8_t)(HD_REDOP_SUM + f->redop);
	switch (kind) {
	case HD_OP_ALL_GATHER:
		d.count_in = f->count;
		d.count_out = mul_or_unknown(f->count, nranks);
		break;
	case HD_OP_REDUCE_SCATTER:
		d.count_out = f->count;
		d.count_in = mul_or_unknown(f->count, nranks);
		break;
	case HD_OP_SEND:
		d.count_in = f->count;
		break;
	case HD_OP_RECV:
		d.count_out = f->count;
		break;
	default:
		d.count_in = d.count_out = f->count;
		break;
	}
	if ((kind == HD_OP_BROADCAST || kind == HD_OP_REDUCE ||
	     kind == HD_OP_GATHER || kind == HD_OP_SCATTER ||
	     kind == HD_OP_SEND || kind == HD_OP_RECV) &&
	    f->root >= 0)
		d.peer = (int32_t)clamp_int(f->root, 0, INT32_MAX);
	return hd_opdesc_intern(&d);
}

/*
 * Whether a COLL record of comm cm was read before: a record delivered
 * twice (an at-least-once log shipper, a log appended to itself, the same
 * log under two prefixes).  NCCL numbers a comm's ops in order, so only a
 * record whose opCount is not past the largest kept can be one; it is,
 * when a kept op of that opCount says the same (kind and descriptor,
 * which is interned).  Members of a coalesced group share an opCount and
 * may say the same: a record right after a kept one of its opCount is one
 * of them.  Normal records cost a compare; looking back costs a binary
 * search of the comm's ops.
 */
static bool coll_repeated(struct nl_ctx *c, const struct nl_comm *cm,
			  int64_t opcount, const struct hd_op *op)
{
	const uint32_t *ix = cm->ops;
	const struct hd_op *ops =
		(const struct hd_op *)(void *)c->store->ops->data;
	guint lo = 0, hi = cm->nops;

	if (opcount > cm->max_opcount ||
	    (cm->last_kept && opcount == cm->last_opcount))
		return false;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (hd_op_op_count(c->store, &ops[ix[mid]]) < opcount)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint k = 0; lo < cm->nops && k < 64; lo++, k++) {
		const struct hd_op *o = &ops[ix[lo]];

		if (hd_op_op_count(c->store, o) != opcount)
			break;
		if (o->kind == op->kind && o->d == op->d &&
		    o->flags == op->flags)
			return true;
	}
	return false;
}

/* Descriptors remembered by the COLL fast path (coll_desc_memo()). */
#define NL_DESC_MEMO 64

struct nl_desc_memo {
	int64_t count, dtype, redop, root, nranks;
	int which; /* -1: empty */
	const struct hd_opdesc *d;
};

/*
 * coll_desc(), remembered: a training loop moves the same few tensors
 * over and over, so most COLL records repeat a descriptor already
 * interned.  The same key gives the same interned pointer.
 */
static const struct hd_opdesc *coll_desc_memo(struct nl_ctx *c, int which,
					      const struct nl_coll *f,
					      int64_t nranks)
{
	uint64_t h = ((uint64_t)f->count * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)f->dtype << 8) ^ ((uint64_t)f->redop << 16) ^
		     ((uint64_t)f->root << 24) ^ ((uint64_t)nranks << 40) ^
		     (uint64_t)which;
	struct nl_desc_memo *m;

	h *= 0xff51afd7ed558ccdull;
	/* two ways: the newest in m[0], the one it displaced in m[1] */
	m = &c->desc_memo[((h >> 58) % NL_DESC_MEMO) & ~(uint64_t)1];
	for (unsigned way = 0; way < 2; way++) {
		if (m[way].which == which && m[way].count == f->count &&
		    m[way].dtype == f->dtype && m[way].redop == f->redop &&
		    m[way].root == f->root && m[way].nranks == nranks)
			return m[way].d;
	}
	m[1] = m[0];
	m->d = coll_desc(c, which, f, nranks);
	m->which = which;
	m->count = f->count;
	m->dtype = f->dtype;
	m->redop = f->redop;
	m->root = f->root;
	m->nranks = nranks;
	return m->d;
}

/*
 * Keeps the op of a scanned COLL record f of process p; memo: find its
 * descriptor through coll_desc_memo() (the fast path; the long way
 * interns it each time, so that tests compare the two).
 */
static void coll_commit(struct nl_ctx *c, struct nl_proc *p, int which,
			const struct nl_coll *f, bool full_buffer, bool memo)
{
	struct nl_comm *cm;
	struct hd_op *op;
	int64_t nranks;
	bool cut;

	if (f->count < 0 || f->nranks == 0 || f->nranks > (1 << 22)) {
		nl_skip(c, "COLL record with an impossible count or nranks");
		return;
	}
	cm = coll_comm(c, p, f->comm, f->nranks);
	if (!cm)
		return;

	op = hd_store_new_op(c->store);
	op->group = (uint32_t)cm->group;
	op->seq_kind = HD_SEQ_ORDINAL;
	op->kind = (uint8_t)coll_ops[which].kind;
	hd_op_set_op_count(c->store, op, (int64_t)f->opcount);
	op->state = HD_STATE_ENQUEUED;
	nranks = f->nranks < 0 ? cm->nranks : f->nranks;
	op->d = memo ? coll_desc_memo(c, which, f, nranks)
		     : coll_desc(c, which, f, nranks);
	/* A record that filled NCCL's buffer was cut, even if it parsed. */
	cut = f->cut;
	if (full_buffer && !cut) {
		cut = true;
		hd_input_warn(c->in, c->lineno,
			      "COLL record fills the 1024-byte buffer, kept "
			      "as truncated");
	} else if (cut) {
		hd_input_warn(c->in, c->lineno,
			      "COLL record cut mid-token, kept as truncated");
	}
	if (cut)
		op->flags |= HD_OPF_TRUNCATED;
	cm->last_kept = !coll_repeated(c, cm, (int64_t)f->opcount, op);
	cm->last_opcount = (int64_t)f->opcount;
	if (!cm->last_kept) {
		p->ndup++;
		g_array_set_size(c->store->ops, c->store->ops->len - 1);
		return;
	}
	cm->max_opcount = MAX(cm->max_opcount, (int64_t)f->opcount);
	if (cm->nops == cm->ops_cap) {
		g_assert(cm->ops_cap < G_MAXUINT32 / 2);
		cm->ops_cap = MAX(cm->ops_cap * 2, 64);
		cm->ops = g_renew(uint32_t, cm->ops, cm->ops_cap);
	}
	cm->ops[cm->nops++] = c->store->ops->len - 1;
	op->seq = cm->ncoll++;
	{
		struct hd_prov prov = { .input = c->input,
					.kind = HD_PROV_LINE,
					.at = c->lineno };

		hd_op_set_prov(c->store, op, &prov);
	}
	/* its process, until nl_attribute() gives it its rank */
	g_assert(p->index <= INT32_MAX);
	hd_op_set_rank(op, (int32_t)p->index);
	c->in->records++;
}

void nl_parse_coll(struct nl_ctx *c, struct nl_proc *p, int which,
		   const char *body, size_t n, size_t name_len,
		   bool full_buffer)
{
	struct nl_coll f;

	if (!coll_scan(c, body + name_len, body + n, &f))
		return;
	coll_commit(c, p, which, &f, full_buffer, false);
}

/* "2.18.3" -> 2018; 0 when unreadable. */
static int version_code(const char *v)
{
	const char *p = v, *e = v + strlen(v);
	int64_t major, minor;

	if (!scan_int(&p, e, &major) || p >= e || *p != '.')
		return 0;
	p++;
	if (!scan_int(&p, e, &minor))
		return 0;
	return (int)clamp_int(major, 0, 99) * 1000 +
	       (int)clamp_int(minor, 0, 999);
}

bool nl_parse_version(struct nl_ctx *c, struct nl_proc *p, const char *s,
		      size_t n)
{
	const char *v;
	size_t vl, sl;
	g_autofree char *full = NULL;
	const char *sfx;

	if (!rx(c, RX_VERSION, s, n) || !cap(c, s, 1, &v, &vl))
		return false;
	if (!cap(c, s, 2, &sfx, &sl))
		sl = 0;
	full = g_strdup_printf("%.*s%.*s", (int)vl, v, (int)MIN(sl, 32),
			       sl ? sfx : "");
	if (p) {
		p->version = hd_intern(full);
	} else if (!c->bare_version) {
		c->bare_version = hd_intern(full);
	} else if (strcmp(c->bare_version, full) != 0) {
		c->bare_version_conflict = true;
	}
	c->in->records++;
	return true;
}

/* The fields of an Init line. */
struct nl_init {
	uint64_t ptr, parent, comm_id;
	int64_t rank, nranks, dev, count, color;
	bool complete, has_parent, has_id, has_count;
};

/*
 * Reads an Init START or COMPLETE line; false when it is unreadable.
 * Leaves the match in c for the captures read later.
 */
static bool init_scan(struct nl_ctx *c, const char *s, size_t n,
		      struct nl_init *f)
{
	const char *st;
	size_t stl;

	f->ptr = f->parent = f->comm_id = 0;
	f->rank = f->nranks = f->dev = f->count = -1;
	f->color = 0;
	if (!rx(c, RX_INIT, s, n) || !cap_hex(c, s, 1, &f->ptr) ||
	    !cap_int(c, s, 2, &f->rank) || !cap_int(c, s, 3, &f->nranks) ||
	    !cap(c, s, 12, &st, &stl) || f->nranks <= 0 ||
	    f->nranks > (1 << 22) || f->rank < 0 || f->rank >= f->nranks)
		return false;
	f->complete = stl == 8; /* COMPLETE */
	cap_int(c, s, 4, &f->dev);
	f->has_parent = cap_hex(c, s, 7, &f->parent);
	f->has_count = cap_int(c, s, 8, &f->count);
	cap_int(c, s, 9, &f->color);
	f->has_id = cap_hex(c, s, 11, &f->comm_id);
	return true;
}

/*
 * Binds a comm split from a parent comm of group pg to the identity
 * "split:PARENT:COLOR:COUNT:NRANKS".
 */
static void comm_bind_split(struct nl_ctx *c, struct nl_proc *p,
			    struct nl_comm *cm, struct hd_group *pg,
			    const struct nl_init *f)
{
	char parent_id[96], count_s[32], id[256];

	if (pg->has_comm_id)
		g_snprintf(parent_id, sizeof(parent_id),
			   "0x%016" G_GINT64_MODIFIER "x", pg->comm_id);
	else
		g_snprintf(parent_id, sizeof(parent_id), "%s", pg->id);
	if (f->has_count) {
		g_snprintf(count_s, sizeof(count_s), "%d",
			   (int)clamp_int(f->count, 0, INT_MAX));
	} else {
		/* 2.23: no splitCount; count splits alike */
		g_snprintf(id, sizeof(id), "s%s:%d:%d", parent_id,
			   (int)f->color, (int)f->nranks);
		g_snprintf(count_s, sizeof(count_s), "n%d", proc_nth(p, id));
	}
	g_snprintf(id, sizeof(id), "split:%s:%d:%s:%d", parent_id,
		   (int)clamp_int(f->color, INT_MIN, INT_MAX), count_s,
		   (int)f->nranks);
	comm_bind(c, cm, id, false, 0, false);
}

/*
 * Puts a comm new at its Init line in a group: by commId when the line
 * has one, else as a split of a parent whose group is trusted, else by
 * nranks.
 */
static void init_bind(struct nl_ctx *c, struct nl_proc *p, struct nl_comm *cm,
		      const struct nl_init *f)
{
	struct nl_comm *pc = f->has_parent && !f->has_id
				     ? g_hash_table_lookup(p->live, &f->parent)
				     : NULL;

	if (f->has_id) {
		g_autofree char *id = hd_group_id_comm(f->comm_id);

		comm_bind(c, cm, id, true, f->comm_id, false);
	} else if (pc && pc->group >= 0 &&
		   !hd_store_group_at(c->store, (uint32_t)pc->group)
			    ->low_confidence_identity) {
		comm_bind_split(
			c, p, cm,
			hd_store_group_at(c->store, (uint32_t)pc->group), f);
	} else {
		if (f->has_parent)
			hd_input_warn(c->in, c->lineno,
				      "split parent %#" G_GINT64_MODIFIER
				      "x not found in %s:%d, grouped "
				      "by nranks",
				      f->parent, p->host, p->pid);
		comm_bind_nranks(c, p, cm);
	}
}

/*
 * Whether an Init line repeats what live comm cm already read: the same
 * pointer, rank, nranks and commId, which NCCL gives each comm it
 * creates once.  The record was delivered twice (see coll_repeated()).
 */
static bool init_repeated(struct nl_ctx *c, const struct nl_comm *cm,
			  const struct nl_init *f)
{
	const struct hd_group *g;

	/* START then COMPLETE is one comm coming up, not a repeat */
	if ((!cm->complete && f->complete) || !f->has_id || cm->group < 0 ||
	    cm->nranks != f->nranks || cm->rank != f->rank)
		return false;
	g = hd_store_group_at(c->store, (uint32_t)cm->group);
	return g->has_comm_id && g->comm_id == f->comm_id;
}

static void parse_init(struct nl_ctx *c, struct nl_proc *p, const char *s,
		       size_t n)
{
	struct nl_init f;
	struct nl_comm *cm;

	if (!init_scan(c, s, n, &f)) {
		nl_skip(c, "unreadable Init line");
		return;
	}
	cm = proc_comm(p, f.ptr);
	if (cm && init_repeated(c, cm, &f)) {
		p->ndup++;
		return;
	}
	/* Only START -> COMPLETE continues a comm; else the pointer is new. */
	if (!cm || cm->complete || !f.complete || cm->group < 0 ||
	    cm->nranks != f.nranks || cm->rank != f.rank)
		cm = comm_new(p, f.ptr);
	cm->rank = (int)f.rank;
	cm->nranks = (int)f.nranks;
	cm->cuda_dev = (int)clamp_int(f.dev, -1, INT_MAX);
	cm->bus_id = cap_intern(c, s, 6);
	if (f.complete)
		cm->complete = true;

	if (f.has_id)
		fmt_min(p, 2016);
	else if (f.has_parent)
		fmt_min(p, 2023);
	if (f.has_count)
		fmt_min(p, find(s, n, "childCount") ? 2030 : 2024);

	if (cm->group < 0)
		init_bind(c, p, cm, &f);
	/* The world comm: largest nranks, first created. */
	if (f.nranks > p->world_nranks) {
		p->world_nranks = (int)f.nranks;
		p->world_rank = (int)f.rank;
		p->world_dev = cm->cuda_dev;
		p->world_bus = cm->bus_id;
	}
	c->in->records++;
}

/*
 * NCCL 2.3's rank lines: "comm 0x7f58 rank 4 nranks 8" (no cudaDev, no
 * "- Init"), printed once the comm is up, and "rank 6 nranks 8" before
 * it.  Both give the process its rank in a comm of nranks; the first
 * also the comm its COLL lines name.  False when b is neither.
 */
static bool parse_init_23(struct nl_ctx *c, struct nl_proc *p, const char *b,
			  size_t n)
{
	const char *q = b, *e = b + n;
	uint64_t ptr = 0;
	int64_t rank, nranks;
	bool has_ptr = false;
	struct nl_comm *cm;

	if (starts(q, e - q, "comm ")) {
		q += 5;
		if (!scan_ptr(&q, e, &ptr) || !starts(q, e - q, " "))
			return false;
		q++;
		has_ptr = true;
	}
	if (!starts(q, e - q, "rank "))
		return false;
	q += 5;
	if (!scan_int(&q, e, &rank) || !starts(q, e - q, " nranks "))
		return false;
	q += 8;
	if (!scan_int(&q, e, &nranks) || nranks <= 0 || nranks > (1 << 22) ||
	    rank < 0 || rank >= nranks)
		return false;
	/* anything after it is another line's shape: not 2.3's */
	while (q < e && (*q == ' ' || *q == '\r'))
		q++;
	if (q != e)
		return false;
	if (has_ptr) {
		cm = proc_comm(p, ptr);
		if (!cm || cm->rank != (int)rank || cm->nranks != (int)nranks) {
			cm = comm_new(p, ptr);
			cm->rank = (int)rank;
			cm->nranks = (int)nranks;
			cm->complete = true;
			comm_bind_nranks(c, p, cm);
		}
	}
	if (nranks > p->world_nranks) {
		p->world_nranks = (int)nranks;
		p->world_rank = (int)rank;
	}
	c->in->records++;
	return true;
}

/*
 * "Destroy COMPLETE": ncclCommDestroy() returns only after the comm's
 * work on the device is done, so every op this process enqueued on cm
 * completed (docs/verdicts.md, "Completion proves presence").  Not after
 * a WARN or ABORT of the process during cm's ops: a comm in error may be
 * torn down without finishing them.
 */
static void destroy_proves_completion(struct nl_ctx *c, const struct nl_proc *p,
				      const struct nl_comm *cm)
{
	struct hd_op *ops = (struct hd_op *)(void *)c->store->ops->data;

	if (!cm || !cm->nops ||
	    p->last_warn >= hd_op_prov(c->store, &ops[cm->ops[0]]).at)
		return;
	for (guint i = 0; i < cm->nops; i++)
		ops[cm->ops[i]].state = HD_STATE_COMPLETED;
}

static void parse_teardown(struct nl_ctx *c, struct nl_proc *p, const char *s,
			   size_t n)
{
	uint64_t ptr;
	const char *w;
	size_t wl;

	if (!rx(c, RX_TEARDOWN, s, n) || !cap_hex(c, s, 1, &ptr) ||
	    !cap(c, s, 3, &w, &wl))
		return;
	p->saw_teardown = true;
	if (wl != 8)
		return;
	/* COMPLETE: the pointer may be reused */
	if (starts(w - 8, 8, "Destroy "))
		destroy_proves_completion(c, p, proc_comm(p, ptr));
	proc_comm_forget(p, ptr);
}

/* WARN bodies that say the setup or the configuration is wrong. */
/* The process a record belongs to, from its prefix or its stream. */
/*
 * What a record of p, with prefix r, in stream st, after a wrapper that
 * named rank tag_rank (-1 none), says of p.
 */
static void rec_touch(struct nl_ctx *c, struct nl_proc *p,
		      const struct nl_rec *r, struct nl_stream *st,
		      int tag_rank)
{
	if (!p->first_line) {
		p->first_line = c->lineno;
		p->stream = st->index;
	}
	p->prev_line = p->last_line;
	p->last_line = c->lineno;
	stream_add_proc(st, p);
	if (tag_rank >= 0)
		hint_merge(&p->tag_rank, tag_rank);
	if (r->dev >= 0)
		p->dev = r->dev;
}

static struct nl_proc *rec_proc(struct nl_ctx *c, const struct nl_rec *r,
				struct nl_stream *st, const struct nl_wrap *w)
{
	struct nl_proc *p = NULL;

	if (r->has_hpt)
		p = proc_get(c, r->host, r->host_len, r->pid);
	else if (st->proc && !st->multi)
		p = st->proc; /* trimmed "[0] NCCL INFO" */
	if (p)
		rec_touch(c, p, r, st, w->tag_rank);
	return p;
}

/* ------------------------------------------------------------------ */
/* The COLL fast path.                                                 */

/*
 * Nearly every line of a large NCCL log is a complete COLL record of a
 * process seen before.  nl_coll_fast() reads such a line in one pass:
 * its prefix is looked up among those nl_handle_nccl() read before on a
 * raw line (nl_coll_fast_fill()), its fields are scanned by
 * coll_scan_fast(), which accepts exactly the complete records that
 * coll_scan() reads to the end of the line and nothing else, and the op
 * is kept by the same coll_commit().  Any other line, or one this path
 * is unsure of, goes the long way, which is the reference: a unit test
 * and the fuzzer compare the two stores byte for byte.
 */

/* Bit i set when s[i] is a hex digit, for the 16 bytes at s. */
NL_INLINE unsigned hex_mask16(const char *s)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	/* unsigned range checks as signed compares, biased by 128 */
	__m128i dig = _mm_cmplt_epi8(
		_mm_add_epi8(v, _mm_set1_epi8((char)(-'0' - 128))),
		_mm_set1_epi8((char)(10 - 128)));
	__m128i let = _mm_cmplt_epi8(
		_mm_add_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)),
			     _mm_set1_epi8((char)(-'a' - 128))),
		_mm_set1_epi8((char)(6 - 128)));

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, let));
#else
	unsigned m = 0;

	for (unsigned i = 0; i < 16; i++)
		m |= (hexval1[(uint8_t)s[i]] != 0) << i;
	return m;
#endif
}

/*
 * The value of the 16 bytes at s read as hex digits, the first the most
 * significant; bytes that are not digits give garbage nibbles, which a
 * caller shifts out.
 */
NL_INLINE uint64_t hex_value16(const char *s)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i low = _mm_set1_epi8(0x0f);
	/* '0'..'9' -> 0..9; 'a'..'f', 'A'..'F' -> 1..6, plus 9 */
	__m128i alpha = _mm_and_si128(_mm_srli_epi16(v, 6), _mm_set1_epi8(1));
	__m128i nib = _mm_and_si128(
		_mm_add_epi8(_mm_and_si128(v, low),
			     _mm_add_epi8(_mm_slli_epi16(alpha, 3), alpha)),
		low);
	/* each 16-bit lane: its first nibble high, its second low */
	__m128i pair = _mm_or_si128(
		_mm_and_si128(_mm_slli_epi16(nib, 4), _mm_set1_epi16(0xf0)),
		_mm_srli_epi16(nib, 8));
	uint64_t x = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pair, pair));

	return __builtin_bswap64(x);
#else
	uint64_t v = 0;

	for (unsigned i = 0; i < 16; i++)
		v = (v << 4) | ((hexval1[(uint8_t)s[i]] - 1u) & 0xf);
	return v;
#endif
}

/* A literal of the COLL grammar, zero-padded to a 16-byte load. */
struct nl_lit {
	char s[16];
	unsigned len;
};

#define NL_LIT(str)                  \
	{                            \
		str, sizeof(str) - 1 \
	}
static const struct nl_lit lit_opcount = NL_LIT(": opCount ");
static const struct nl_lit lit_sendbuff = NL_LIT(" sendbuff 0x");
static const struct nl_lit lit_recvbuff = NL_LIT(" recvbuff 0x");
static const struct nl_lit lit_count = NL_LIT(" count ");
static const struct nl_lit lit_datatype = NL_LIT(" datatype ");
static const struct nl_lit lit_op = NL_LIT(" op ");
static const struct nl_lit lit_root = NL_LIT(" root ");
static const struct nl_lit lit_comm = NL_LIT(" comm 0x");
static const struct nl_lit lit_nranks = NL_LIT(" [nranks=");
static const struct nl_lit lit_stream = NL_LIT("] stream 0x");
#undef NL_LIT

/* The literal l at *q, stepped over; the text ends at end. */
NL_INLINE bool fast_lit(const char **q, const char *end, const struct nl_lit *l)
{
#ifdef __SSE2__
	if (end - *q >= 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)*q);
		__m128i b =
			_mm_loadu_si128((const __m128i *)(const void *)l->s);
		unsigned want = (1u << l->len) - 1;

		if (((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) &
		     want) != want)
			return false;
		*q += l->len;
		return true;
	}
#endif
	if ((size_t)(end - *q) < l->len || memcmp(*q, l->s, l->len) != 0)
		return false;
	*q += l->len;
	return true;
}

/*
 * scan_hex() at *q, the text from lo to end: 1 to 16 hex digits, a run
 * of 17 or more refused.  out NULL: checked, not read.  Sixteen bytes at
 * a time; near the end, the last sixteen of the text.
 */
NL_INLINE bool fast_hex(const char *lo, const char **q, const char *end,
			uint64_t *out)
{
	const char *s = *q;
	unsigned m, k;
	uint64_t v;

	if (end - s >= 16) {
		m = hex_mask16(s);
		if (m == 0xffff) {
			if (end - s > 16 && hexval1[(uint8_t)s[16]])
				return false;
			k = 16;
		} else {
			k = (unsigned)__builtin_ctz(~m);
		}
		if (k == 0)
			return false;
		if (out)
			*out = hex_value16(s) >> (4 * (16 - k));
		*q = s + k;
		return true;
	}
	if (end - lo >= 16 && end > s) {
		/* the last 16 bytes, of which the n from s on count */
		unsigned n = (unsigned)(end - s);

		m = hex_mask16(end - 16) >> (16 - n);
		k = (unsigned)__builtin_ctz(~m);
		if (k == 0)
			return false;
		if (out) {
			/* the n bytes from s are the last of the value */
			v = hex_value16(end - 16) &
			    (UINT64_MAX >> (64 - 4 * n));
			*out = v >> (4 * (n - k));
		}
		*q = s + k;
		return true;
	}
	v = 0;
	for (k = 0; s + k < end && hexval1[(uint8_t)s[k]]; k++) {
		if (k == 16)
			return false;
		v = (v << 4) | (hexval1[(uint8_t)s[k]] - 1u);
	}
	if (k == 0)
		return false;
	if (out)
		*out = v;
	*q = s + k;
	return true;
}

/*
 * scan_int() at *q, the text ending at end, of at most 18 digits; false
 * for more (scan_int() keeps the first 18 of them, and the long way
 * reads that rare line).  One digit is the common case; up to 7 are read
 * a word at a time: a byte is a digit when its high nibble is 3 and its
 * low one below 10, and the digits are summed in pairs, fours and
 * eights.
 */
NL_INLINE bool fast_int(const char **q, const char *end, int64_t *out)
{
	const char *s = *q, *d;
	uint64_t w, bad;
	int64_t v = 0;
	bool neg = s < end && *s == '-';

	s += neg;
	if (end - s >= 8) {
		if ((unsigned)(s[0] - '0') < 10 &&
		    (unsigned)(s[1] - '0') >= 10) {
			*out = neg ? -(s[0] - '0') : s[0] - '0';
			*q = s + 1;
			return true;
		}
		memcpy(&w, s, 8);
		bad = ((w & 0xf0f0f0f0f0f0f0f0ull) ^ 0x3030303030303030ull) |
		      (((w & 0x0f0f0f0f0f0f0f0full) + 0x0606060606060606ull) &
		       0x1010101010101010ull);
		if (bad) {
			unsigned k = (unsigned)__builtin_ctzll(bad) / 8;

			if (k == 0)
				return false;
			/* the digits to the top bytes, zeros before them */
			w <<= 8 * (8 - k);
			w = ((w & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
			w = ((w & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
			w = ((w & 0x0000ffff0000ffffull) * 42949672960001ull) >>
			    32;
			*out = neg ? -(int64_t)w : (int64_t)w;
			*q = s + k;
			return true;
		}
	}
	d = s;
	while (s < end && (unsigned)(*s - '0') < 10) {
		if (s - d == 18)
			return false; /* a 19th digit: before v overflows */
		v = v * 10 + (*s++ - '0');
	}
	if (s == d)
		return false;
	*out = neg ? -v : v;
	*q = s;
	return true;
}

/*
 * coll_scan() of a complete record that ends at end, and only of one:
 * false, with nothing noted, for anything else, which coll_scan()
 * decides (pointers other than 0x..., above all).
 */
static bool coll_scan_fast(const char *s, const char *end, struct nl_coll *f)
{
	const char *lo = s;

	f->cut = false;
	return fast_lit(&s, end, &lit_opcount) &&
	       fast_hex(lo, &s, end, &f->opcount) &&
	       fast_lit(&s, end, &lit_sendbuff) &&
	       fast_hex(lo, &s, end, NULL) &&
	       fast_lit(&s, end, &lit_recvbuff) &&
	       fast_hex(lo, &s, end, NULL) && fast_lit(&s, end, &lit_count) &&
	       fast_int(&s, end, &f->count) &&
	       fast_lit(&s, end, &lit_datatype) &&
	       fast_int(&s, end, &f->dtype) && fast_lit(&s, end, &lit_op) &&
	       fast_int(&s, end, &f->redop) && fast_lit(&s, end, &lit_root) &&
	       fast_int(&s, end, &f->root) && fast_lit(&s, end, &lit_comm) &&
	       fast_hex(lo, &s, end, &f->comm) &&
	       fast_lit(&s, end, &lit_nranks) &&
	       fast_int(&s, end, &f->nranks) &&
	       fast_lit(&s, end, &lit_stream) && fast_hex(lo, &s, end, NULL) &&
	       s == end;
}

/* The body from b to end of a line whose known prefix is e's. */
static bool coll_fast_body(struct nl_ctx *c, struct nl_prefix *e,
			   const char *line, const char *b, const char *end)
{
	size_t name_len;
	struct nl_coll f;
	int which;

	if (!e->fast || e->epoch != c->proc_epoch)
		return false;
	which = nl_coll_op(b, end - b, &name_len);
	if (which < 0 || !coll_scan_fast(b + name_len, end, &f))
		return false;
	/* from here on, what nl_handle_nccl() does with this line */
	rec_touch(c, e->p, &e->rec, e->st, e->tag_rank);
	coll_commit(c, e->p, which, &f, end - (line + e->start_off) >= 1023,
		    true);
	c->coll_stop = end;
	return true;
}

/* The slot of nl_ctx.fast_quick for a line: its first 16 bytes. */
static unsigned quick_slot(const char *line)
{
	uint64_t w0, w1;

	memcpy(&w0, line, 8);
	memcpy(&w1, line + 8, 8);
	return (unsigned)(((w0 * 0x9e3779b97f4a7c15ull) ^
			   (w1 * 0xc2b2ae3d27d4eb4full)) >>
			  58) %
	       NL_FAST_QUICK;
}

bool nl_coll_fast(struct nl_ctx *c, const char *line, const char *a,
		  const char *b, const char *end)
{
	size_t n = a - line;
	struct nl_prefix *e;

	if (n == 0 || n >= NL_PREFIX_MAX)
		return false;
	e = prefix_find(c, line, n);
	if (!e || !coll_fast_body(c, e, line, b, end))
		return false;
	if (n >= 16)
		c->fast_quick[quick_slot(line)] = e;
	return true;
}

/*
 * The prefixes that took the fast path, by their first 16 bytes: a line
 * that starts with one of them, then "NCCL INFO ", has its anchor right
 * there (the prefix held no anchor when it was read, and the bytes an
 * anchor test reads are the same), so neither the anchor search nor the
 * prefix's hash is needed.
 */
bool nl_coll_fast_quick(struct nl_ctx *c, const char *line, size_t n)
{
	struct nl_prefix *e;

	if (n < 32)
		return false;
	e = c->fast_quick[quick_slot(line)];
	if (!e || e->len < 16 || e->len + 10u >= n ||
	    !prefix_same(e->text, line, e->len) ||
	    !same(line + e->len, "NCCL INFO ", 10))
		return false;
	return coll_fast_body(c, e, line, line + e->len + 10, line + n);
}

/*
 * Remembers what nl_handle_nccl() made of the prefix of a raw line whose
 * COLL record it read to the line's end, for nl_coll_fast(): its process
 * (as of now), stream and wrapper.  Only prefixes with host:pid:tid (a
 * trimmed one's process depends on the stream's history), no date in a
 * wrapper (each line's differs), and no '(' (the driver's test for a
 * wrapped c10d record looks for one).
 */
static void fast_fill(struct nl_ctx *c, struct nl_prefix *e, const char *line,
		      const char *a, struct nl_proc *p, struct nl_stream *st,
		      const struct nl_wrap *w)
{
	if (!e || !e->ok || !e->rec.has_hpt || !p || hd_time_known(w->time) ||
	    memchr(line, '(', a - line))
		return;
	e->fast = true;
	e->epoch = c->proc_epoch;
	e->p = p;
	e->st = st;
	e->tag_rank = w->tag_rank;
}

/*
 * "Bootstrap : Using eth0:10.1.0.5<0>": the address other processes
 * name this host by in their network errors ("peer 10.1.0.5<41873>").
 * The first one a process prints is kept; anything that is not an IPv4
 * or IPv6 address is ignored.
 */
static void parse_bootstrap_addr(struct nl_proc *p, const char *b, size_t n)
{
	const char *s = memchr(b, ':', n), *e = b + n, *a, *q;

	/* past "Bootstrap :" to "IFNAME:ADDR<port>" */
	s = s ? find(s + 1, e - s - 1, "Using ") : NULL;
	if (!s || p->addr)
		return;
	s += 6;
	q = memchr(s, ':', e - s);
	if (!q)
		return;
	a = q + 1;
	for (q = a; q < e && *q != '<' && *q != ' '; q++)
		if (!g_ascii_isxdigit(*q) && *q != '.' && *q != ':' &&
		    *q != '%' && !g_ascii_isalnum(*q))
			return;
	if (q == a || q - a > 64 ||
	    (!memchr(a, '.', q - a) && !memchr(a, ':', q - a)))
		return;
	/* an IPv4 address after an alias ("eth0:1:10.1.0.5") */
	if (memchr(a, '.', q - a))
		for (const char *t = q; t > a; t--)
			if (t[-1] == ':') {
				a = t;
				break;
			}
	p->addr = hd_intern_len(a, q - a);
}

static void handle_info(struct nl_ctx *c, struct nl_proc *p,
			struct nl_stream *st, const char *rec, size_t rec_len,
			const char *b, size_t n)
{
	size_t name_len;
	int which;
	struct hd_signal sig;
	int64_t v;

	if (n == 0) {
		c->torn_proc = p; /* a prefix whose body may come next */
		return;
	}
	which = nl_coll_op(b, n, &name_len);
	if (which >= 0) {
		if (!p) {
			nl_skip(c, "COLL record with no host:pid:tid");
			return;
		}
		/* NCCL's record buffer holds 1023 bytes and a NUL */
		nl_parse_coll(c, p, which, b, n, name_len, rec_len >= 1023);
		return;
	}
	if (!p) {
		/* an unwind pasted without its prefix still shows a failure */
		if (has(b, n, " -> ") && rx(c, RX_UNWIND, b, n)) {
			hd_signal_init(&sig);
			sig.cat = HD_SIG_NCCL_INTERNAL;
			sig.type = HD_SIGT_UNWIND;
			if (cap_int(c, b, 2, &v))
				sig.code = (int32_t)clamp_int(v, INT32_MIN,
							      INT32_MAX);
			nl_add_signal(c, &sig, NULL, st, rec, rec_len);
		} else if (has(b, n, "- Init ")) {
			nl_skip(c, "NCCL record with no host:pid:tid");
		}
		return;
	}
	if (starts(b, n, "comm ") || starts(b, n, "rank ")) {
		if (!has(b, n, "- Init") && parse_init_23(c, p, b, n))
			return;
	}
	if (has(b, n, "- Init ") || has(b, n, "- Init")) {
		if (has(b, n, "Init START") || has(b, n, "Init COMPLETE"))
			parse_init(c, p, b, n);
		return;
	}
	if (has(b, n, " COMPLETE") || has(b, n, " START")) {
		if (has(b, n, "- Destroy ") || has(b, n, "- Abort "))
			parse_teardown(c, p, b, n);
		return;
	}
	if (starts(b, n, "NCCL version ") || starts(b, n, "RCCL version ")) {
		nl_parse_version(c, p, b, n);
		return;
	}
	if (starts(b, n, "Bootstrap : Using ") ||
	    starts(b, n, "Bootstrap: Using ")) {
		parse_bootstrap_addr(p, b, n);
		return;
	}
	if (starts(b, n, "NET/IB : Using ") || starts(b, n, "NET/IB: Using ")) {
		/* the HCA ports this process uses (issue 21) */
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_NET_DEVICES;
		nl_add_signal(c, &sig, p, st, rec, rec_len);
		return;
	}
	if (starts(b, n, "Using network ")) {
		/* the network this process chose, once: hosts may differ */
		if (p->saw_network)
			return;
		p->saw_network = true;
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_TRANSPORT;
		nl_add_signal(c, &sig, p, st, rec, rec_len);
		return;
	}
	hd_signal_init(&sig);
	if (has(b, n, " -> ") && rx(c, RX_UNWIND, b, n)) {
		sig.cat = HD_SIG_NCCL_INTERNAL;
		sig.type = HD_SIGT_UNWIND;
		if (cap_int(c, b, 2, &v))
			sig.code = (int32_t)clamp_int(v, INT32_MIN, INT32_MAX);
	} else if (has(b, n, "Cuda failure")) {
		nl_classify_warn(c, b, n, &sig, p);
	} else if (has(b, n, "Connection closed by localRank")) {
		/* normal at teardown; mid-run a local rank died */
		sig.cat = p->saw_teardown ? HD_SIG_INFO : HD_SIG_CRASH;
		sig.type = HD_SIGT_PEER_CLOSED;
	} else if (starts(b, n, "RAS ") &&
		   (has(b, n, " as DEAD") || has(b, n, "timeout error"))) {
		sig.cat = has(b, n, " as DEAD") ? HD_SIG_CRASH : HD_SIG_NETWORK;
		sig.type = HD_SIGT_RAS;
		if (rx(c, RX_PEER, b, n))
			sig.peer = cap_intern(c, b, 1);
	} else {
		return; /* informational: topology, channels, env */
	}
	nl_add_signal(c, &sig, p, st, rec, rec_len);
}

void nl_handle_nccl(struct nl_ctx *c, const char *line, const char *a,
		    const char *lvl, const char *end, bool no_token)
{
	struct nl_rec r;
	struct nl_wrap w;
	struct nl_stream *st;
	struct nl_proc *p = NULL;
	const char *b;
	bool is_warn = lvl[0] == 'W', is_info = lvl[0] == 'I';
	bool ok = nl_rec_prefix(c, line, a, &r);
	struct nl_prefix *pe = c->last_prefix;

	if (ok) {
		st = nl_wrap_stream(c, line, r.start - line, &w);
		p = rec_proc(c, &r, st, &w);
		if (p && no_token)
			p->no_token = true;
	} else {
		/*
		 * No "[dev]" and no "host:pid:tid": the reporter cut the
		 * prefix off; which process printed it is unknown.
		 */
		nl_wrap_init(&w);
		st = nl_stream_bare(c);
		r.start = a;
	}
	b = lvl + (is_warn ? 5 : is_info ? 5 : 0);
	if (b > end)
		b = end;
	if (p && is_info && starts_new_life(c, p, b, end - b))
		p = proc_new_life(c, p);
	if (p && !is_info)
		p->last_warn = c->lineno;
	if (is_info) {
		handle_info(c, p, st, r.start, end - r.start, b, end - b);
		if (c->fill_fast && c->coll_stop == end)
			fast_fill(c, pe, line, a, p, st, &w);
	} else if (is_warn) {
		struct hd_signal sig;

		hd_signal_init(&sig);
		nl_classify_warn(c, b, end - b, &sig, p);
		if (hd_time_known(w.time)) {
			sig.time = w.time;
			fmt_min(p, 2026);
		}
		if (a > line && a[-1] == ' ' && a - 1 > line && a[-2] == ')')
			fmt_min(p, 2030);
		if (!ok)
			hd_input_warn(c->in, c->lineno,
				      "NCCL WARN with no host:pid:tid, kept "
				      "without a process");
		nl_add_signal(c, &sig, p, st, r.start, end - r.start);
	} else if (lvl[0] == 'A' && p) {
		struct hd_signal sig;

		hd_signal_init(&sig);
		sig.cat = HD_SIG_CRASH;
		nl_add_signal(c, &sig, p, st, r.start, end - r.start);
	}
}

void nl_handle_bare_warn(struct nl_ctx *c, const char *b, const char *end)
{
	struct nl_stream *st = nl_stream_bare(c);
	struct hd_signal sig;

	hd_signal_init(&sig);
	nl_classify_warn(c, b, end - b, &sig, NULL);
	hd_input_warn(c->in, c->lineno,
		      "NCCL WARN text with no \"NCCL WARN\" and no "
		      "host:pid:tid, kept without a process");
	nl_add_signal(c, &sig, NULL, st, b, end - b);
}

/*
 * nccl-tests: "host: Test NCCL failure common.cu:1291 'unhandled cuda
 * error (run with NCCL_DEBUG=INFO for details) / '" and " .. host pid
 * 31965: Test failure common.cu:1165".  The harness reports the result
 * NCCL returned: trouble, but not a cause of its own.
 */
bool nl_test_failure_line(struct nl_ctx *c, const char *line, size_t n)
{
	const char *e = line + n, *q, *h, *he;
	struct hd_signal sig;
	int64_t pid;

	q = find(line, n, "Test NCCL failure ");
	if (!q)
		q = find(line, n, ": Test failure ");
	if (!q)
		return false;
	hd_signal_init(&sig);
	sig.cat = HD_SIG_NCCL_INTERNAL;
	sig.type = HD_SIGT_TEST_FAILURE;
	/* the host before ": Test", after an optional " .. " */
	he = q[0] == ':' ? q : q - 2;
	if (he > line && he < e && he[0] == ':') {
		h = he;
		while (h > line && (is_host_char(h[-1]) || h[-1] == '.'))
			h--;
		/* " .. host pid 31965: Test failure" */
		if (he - h > 0 && h - line >= 5 && starts(h - 5, 5, " pid ")) {
			const char *d = h;

			if (scan_int(&d, he, &pid))
				sig.pid = (int32_t)clamp_int(pid, 0, INT32_MAX);
			he = h - 5;
			h = he;
			while (h > line &&
			       (is_host_char(h[-1]) || h[-1] == '.'))
				h--;
		}
		if (he > h)
			sig.host = hd_intern_len(h, MIN(he - h, 128));
	}
	if (has(q, e - q, "unhandled cuda error"))
		sig.code = 1;
	else if (has(q, e - q, "unhandled system error"))
		sig.code = 2;
	else if (has(q, e - q, "internal error"))
		sig.code = 3;
	else if (has(q, e - q, "invalid argument"))
		sig.code = 4;
	else if (has(q, e - q, "invalid usage"))
		sig.code = 5;
	else if (has(q, e - q, "remote process exited"))
		sig.code = 6;
	nl_add_signal(c, &sig, NULL, nl_stream_bare(c), line, n);
	return true;
}

/* A RAS signal of no process, at the current line. */
static void ras_add(struct nl_ctx *c, struct hd_signal *sig, const char *s,
		    size_t n)
{
	sig->type = HD_SIGT_RAS_MISMATCH;
	sig->op_name = c->ras_op;
	nl_add_signal(c, sig, NULL, nl_stream_bare(c), s, n);
}

bool nl_ras_line(struct nl_ctx *c, const char *line, size_t n)
{
	const char *s = line, *e = line + n, *q;
	int64_t a, b, k;
	struct hd_signal sig;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (s == e ||
	    (*s != '#' && *s != 'R' && *s != 'C' && !g_ascii_isdigit(*s)))
		return false;
	if (*s == '#') {
		/* "#0-0 (fa93daea854b060b) MISMATCH": an entry opens */
		q = s + 1;
		c->ras_open = false;
		c->ras_op = NULL;
		if (!scan_int(&q, e, &a) || q >= e || *q++ != '-' ||
		    !scan_int(&q, e, &b) || !starts(q, e - q, " (") ||
		    !(q = memchr(q, ')', e - q)) ||
		    !starts(q, e - q, ") MISMATCH"))
			return false;
		c->ras_open = true;
		hd_signal_init(&sig);
		sig.cat = HD_SIG_TIMEOUT; /* ranks stand at different ops */
		sig.seq = -1;
		ras_add(c, &sig, s, e - s);
		return true;
	}
	if (!c->ras_open)
		return false;
	if (starts(s, e - s, "Communicator ranks have different ")) {
		q = s + 34;
		k = find(q, e - q, " operation counts")
			    ? (int64_t)(find(q, e - q, " operation counts") - q)
			    : -1;
		if (k > 0 && k < 32)
			c->ras_op = hd_intern_len(q, (size_t)k);
		return true;
	}
	hd_signal_init(&sig);
	sig.cat = HD_SIG_PROGRESS;
	q = s;
	if (scan_int(&q, e, &a) &&
	    starts(q, e - q, " ranks have launched up to operation ")) {
		q += 37;
		if (!scan_int(&q, e, &k) || a <= 0 || a > (1 << 22) || k < 0)
			return false;
		sig.seq = k;
		sig.code = (int32_t)a;
		ras_add(c, &sig, s, e - s);
		return true;
	}
	/* "Rank 12 -- GPU 4 managed by process 323032 on node H" */
	if (starts(s, e - s, "Rank ")) {
		const char *node;
		int64_t pid = 0;

		q = s + 5;
		if (!scan_int(&q, e, &a) || a < 0 || a >= (1 << 22) ||
		    !starts(q, e - q, " -- "))
			return false;
		sig.seq = -1;
		sig.peer_rank = (int32_t)a; /* a comm rank */
		if ((q = find(q, e - q, "by process ")) != NULL) {
			q += 11;
			if (scan_int(&q, e, &pid))
				sig.pid = (int32_t)clamp_int(pid, 0, INT32_MAX);
		}
		if ((node = find(s, e - s, " on node ")) != NULL) {
			node += 9;
			q = node;
			while (q < e && *q != ' ')
				q++;
			if (q > node)
				sig.host =
					hd_intern_len(node, MIN(q - node, 128));
		}
		ras_add(c, &sig, s, e - s);
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* End of input and per-file state.                                    */

const char *nl_proc_version(struct nl_ctx *c, struct nl_proc *p)
{
	const char *claim = p->version;
	char buf[32];

	if (!claim && c->procs->len == 1 && !c->bare_version_conflict)
		claim = c->bare_version;
	if (p->no_token)
		return hd_intern("2.2");
	if (!p->fmt_min || (claim && version_code(claim) >= p->fmt_min))
		return claim;
	g_snprintf(buf, sizeof(buf), "%d.%d+", p->fmt_min / 1000,
		   p->fmt_min % 1000);
	if (claim)
		hd_input_warn(c->in, 0,
			      "%s:%d claims NCCL %s but its format is %s",
			      p->host, p->pid, claim, buf);
	return hd_intern(buf);
}

void nl_nccl_init(struct nl_ctx *c)
{
	c->procs_by_key =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c->procs = g_ptr_array_new_with_free_func(proc_free);
	c->prefix_cache = g_new0(struct nl_prefix, NL_PREFIX_CACHE);
	c->desc_memo = g_new0(struct nl_desc_memo, NL_DESC_MEMO);
	c->fast_quick = g_new0(struct nl_prefix *, NL_FAST_QUICK);
	for (size_t i = 0; i < NL_DESC_MEMO; i++)
		c->desc_memo[i].which = -1;
	for (size_t i = 0; i < G_N_ELEMENTS(coll_ops); i++)
		c->coll_names[i] = hd_intern(coll_ops[i].name);
}

void nl_nccl_clear(struct nl_ctx *c)
{
	g_hash_table_destroy(c->procs_by_key);
	g_ptr_array_free(c->procs, TRUE);
	g_free(c->prefix_cache);
	g_free(c->desc_memo);
	g_free(c->fast_quick);
}
