/*
 * The NCCL record grammar of the NCCL_DEBUG log parser
 * (docs/format-nccl-log.md; the driver is parsers/nccl-log.c): everything
 * NCCL itself prints, dispatched by level and body.  Init, teardown,
 * version and Bootstrap lines, WARN signatures (network, CUDA, config,
 * bootstrap...; nl-warn.c's table), unwind ("file:line -> code") lines,
 * local-rank and RAS peer failures, RAS status reports and nccl-tests
 * failures.  Below it: the COLL record and its fast path (nl-coll.c),
 * record prefixes (nl-prefix.c), processes and comms (nl-proc.c) and the
 * scanners (nl-scan.h).
 *
 * NCCL records are taken apart from the anchor backwards (record prefix
 * "host:pid:tid [dev]", then whatever wrapper a launcher or collector put
 * in front) and forwards (the message).  The rarer grammars (Init,
 * teardown, WARN signatures) use PCRE2, JIT-compiled once per process.
 *
 * Ownership: everything here is per call; the store owns what is added.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include <string.h>

#include "nl-coll.h"
#include "nl-prefix.h"
#include "nl-proc.h"
#include "nl-scan.h"
#include "hd-banned.h"

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
/* Version, Init and teardown lines.                                   */

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
		g_snprintf(count_s, sizeof(count_s), "n%d", nl_proc_nth(p, id));
	}
	g_snprintf(id, sizeof(id), "split:%s:%d:%s:%d", parent_id,
		   (int)clamp_int(f->color, INT_MIN, INT_MAX), count_s,
		   (int)f->nranks);
	nl_comm_bind(c, cm, id, false, 0, false);
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

		nl_comm_bind(c, cm, id, true, f->comm_id, false);
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
		nl_comm_bind_nranks(c, p, cm);
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
	cm = nl_proc_comm(p, f.ptr);
	if (cm && init_repeated(c, cm, &f)) {
		p->ndup++;
		return;
	}
	/* Only START -> COMPLETE continues a comm; else the pointer is new. */
	if (!cm || cm->complete || !f.complete || cm->group < 0 ||
	    cm->nranks != f.nranks || cm->rank != f.rank)
		cm = nl_comm_new(p, f.ptr);
	cm->rank = (int)f.rank;
	cm->nranks = (int)f.nranks;
	cm->cuda_dev = (int)clamp_int(f.dev, -1, INT_MAX);
	cm->bus_id = cap_intern(c, s, 6);
	if (f.complete)
		cm->complete = true;
	cm->init = p->made_init = true;

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
		cm = nl_proc_comm(p, ptr);
		if (!cm || cm->rank != (int)rank || cm->nranks != (int)nranks) {
			cm = nl_comm_new(p, ptr);
			cm->rank = (int)rank;
			cm->nranks = (int)nranks;
			cm->complete = true;
			cm->init = p->made_init = true;
			nl_comm_bind_nranks(c, p, cm);
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
 * torn down without finishing them.  A WARN that is only advice (the
 * environment, HD_SIGT_ADVISORY) is no error.
 */
static void destroy_proves_completion(struct nl_ctx *c, const struct nl_proc *p,
				      const struct nl_comm *cm)
{
	struct hd_op *ops = (struct hd_op *)(void *)c->store->ops->data;

	if (!cm || !cm->nops ||
	    p->last_trouble >= hd_op_prov(c->store, &ops[cm->ops[0]]).at)
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
		destroy_proves_completion(c, p, nl_proc_comm(p, ptr));
	nl_proc_comm_forget(p, ptr);
}

/* ------------------------------------------------------------------ */
/* INFO, WARN and ABORT records, RAS reports, nccl-tests failures.     */

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
		p = nl_rec_proc(c, &r, st, &w);
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
	if (p && is_info && nl_starts_new_life(c, p, b, end - b))
		p = nl_proc_new_life(c, p);
	if (p && !is_info) {
		p->last_warn = c->lineno;
		/* a WARN's, once it is known not to be advice (below) */
		if (!is_warn)
			p->last_trouble = c->lineno;
	}
	if (is_info) {
		handle_info(c, p, st, r.start, end - r.start, b, end - b);
		if (c->fill_fast && c->coll_stop == end)
			nl_coll_fast_fill(c, pe, line, a, p, st, &w);
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
		if (p && sig.type != HD_SIGT_ADVISORY)
			p->last_trouble = c->lineno;
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
/* Per-file state.                                                     */

void nl_nccl_init(struct nl_ctx *c)
{
	nl_procs_init(c);
	nl_prefixes_init(c);
	nl_coll_init(c);
}

void nl_nccl_clear(struct nl_ctx *c)
{
	nl_procs_clear(c);
	nl_prefixes_clear(c);
	nl_coll_clear(c);
}
