/*
 * The PyTorch c10d, torchrun and Python grammar of the NCCL_DEBUG log
 * parser (docs/format-nccl-log.md; the driver is parsers/nccl-log.c):
 * ProcessGroupNCCL watchdog timeouts and PG status lines, "NCCL error in:"
 * blocks, aborted communicators, heartbeat, dump and desync reports,
 * Python tracebacks, torchrun exit codes and ChildFailedError summaries,
 * store and bootstrap failures, CUDA out of memory.
 *
 * The driver hands over the lines that hold no NCCL record.  Most are
 * training chatter, turned away by a few cheap needle scans; the c10d
 * status lines and the other structured texts use PCRE2, JIT-compiled
 * once per process.  Some texts span lines ("NCCL error in:" blocks,
 * tracebacks, ChildFailedError blocks): their state is kept per output
 * stream.
 *
 * Ownership: everything here is per call; the store owns what is added.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include <string.h>

#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's own state. */
#define NL_BLOCK_LINES 8 /* lines an "NCCL error in:" block may span */
#define NL_CFE_LINES   400 /* lines a ChildFailedError block may span */

const char *const nl_c10d_rx_src[RX_COUNT] = {
	[RX_STATUS] = "(?:at (?:NCCL )?work(?: sequence id)?: (-?\\d+)[,. ]+"
		      "(?:PG status: )?)?[Ll]ast enqueued (?:NCCL )?work: "
		      "(-?\\d+), last completed (?:NCCL )?work: (-?\\d+)",
	[RX_NCCL_ERR] = "NCCL error in: ([^,]*), (.*?)(?:, NCCL version "
			"(\\S+))?$",
	[RX_ABORTED] = "NCCL communicator was aborted on rank (-?\\d+)",
	[RX_EXIT] = "failed \\(exitcode: (-?\\d+)\\) local_rank: (\\d+) "
		    "\\(pid: (\\d+)\\)",
	[RX_CFE_RANK] = "^\\s*rank\\s*:\\s*(\\d+)\\s*\\(local_rank:\\s*(\\d+)",
	[RX_CFE_EXIT] = "^\\s*exitcode\\s*:\\s*(-?\\d+)\\s*\\(pid:\\s*(\\d+)",
	[RX_EXCEPTION] = "^([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|"
			 "Interrupt|Exit))(?::|$)",
	[RX_PG_GUID] = "^\\[PG ID (\\d+) PG GUID ([^\\s(\\]]+)"
		       "(?:\\(([^)]*)\\))? Rank (-?\\d+)\\] ?",
	[RX_PG_NUM] = "^\\[PG (\\d+)(?: \\(([^)]*)\\))? Rank (-?\\d+)\\] ?",
	[RX_RANK_ONLY] = "^\\[Rank (-?\\d+)\\] ?",
};

/* ------------------------------------------------------------------ */
/* Store helpers.                                                      */

static struct hd_signal *signal_at(struct nl_ctx *c, int64_t index)
{
	return &g_array_index(c->store->signals, struct hd_signal,
			      c->sig_base + index);
}

/* Index (from sig_base) of the last signal added. */
static int64_t last_signal(struct nl_ctx *c)
{
	return (int64_t)c->store->signals->len - c->sig_base - 1;
}

/*
 * True when a signal with this key was already added (the c10d timeout
 * is repeated in what(): and the exception line); else remembers it.
 */
static bool dedup_seen(struct nl_ctx *c, const char *key)
{
	if (g_hash_table_contains(c->dedup, key))
		return true;
	g_hash_table_insert(c->dedup, g_strdup(key),
			    GINT_TO_POINTER((int)(last_signal(c) + 2)));
	return false;
}

/* ------------------------------------------------------------------ */
/* PyTorch c10d, torchrun and Python.                                  */

struct nl_c10d {
	struct nl_stream *st;
	int grank;
	int64_t time_ns;
	const char *group; /* interned PG name, or NULL */
	bool has_pg;
	const char *text; /* the line without its wrapper */
	size_t text_len;
	const char *msg; /* after the c10d and PG prefixes */
	size_t msg_len;
};

static bool is_sev(char ch)
{
	return ch == 'F' || ch == 'E' || ch == 'W' || ch == 'I' || ch == 'V';
}

static void c10d_prefix(struct nl_ctx *c, const char *s, size_t n,
			struct nl_c10d *d)
{
	const char *p = s, *e = s + n, *q;
	int64_t v, ns;

	d->grank = -1;
	d->time_ns = INT64_MIN;
	d->group = NULL;
	d->has_pg = false;
	if (starts(p, e - p, "[rank")) {
		q = p + 5;
		if (scan_int(&q, e, &v) && q + 1 < e && q[0] == ']' &&
		    q[1] == ':') {
			d->grank = (int)clamp_int(v, -1, INT_MAX);
			p = q + 2;
			if (p < e && *p == ' ')
				p++;
		}
	}
	if (e - p > 3 && p[0] == '[' && is_sev(p[1]) &&
	    (p[2] == ' ' || g_ascii_isdigit(p[2])) &&
	    (q = find(p, MIN((size_t)(e - p), 160), "] "))) {
		/* [E305 14:02:11.123456789 file:N]: the fraction is
		 * CLOCK_MONOTONIC, so only hh:mm:ss is a time of day */
		const char *t = p + 2;

		while (t < q && g_ascii_isdigit(*t))
			t++;
		if (t < q && *t == ' ' &&
		    nl_scan_hms(t + 1, q - t - 1, false, &ns))
			d->time_ns = ns;
		p = q + 2;
	} else if (e - p > 6 && is_sev(p[0]) && g_ascii_isdigit(p[1]) &&
		   g_ascii_isdigit(p[4]) && p[5] == ' ' &&
		   (q = find(p, MIN((size_t)(e - p), 200), "] "))) {
		/* glog: E0305 14:02:11.123456 tid file:N] (wall clock) */
		if (nl_scan_hms(p + 6, q - p - 6, true, &ns))
			d->time_ns = ns;
		p = q + 2;
	} else if (starts(p, e - p, "WARNING:") || starts(p, e - p, "ERROR:") ||
		   starts(p, e - p, "INFO:") || starts(p, e - p, "CRITICAL:")) {
		/* Python logging: LEVEL:logger:msg */
		q = memchr(p, ':', e - p);
		q = q ? memchr(q + 1, ':', e - q - 1) : NULL;
		if (q)
			p = q + 1;
	}
	/* what():  [PG ..] / SomeError: [PG ..] repeat the message */
	if (e - p > 6 && p[0] != '[') {
		q = find(p, MIN((size_t)(e - p), 128), "[PG ");
		if (!q)
			q = find(p, MIN((size_t)(e - p), 128), "[Rank ");
		if (q && (find(p, q - p, "what():") || find(p, q - p, ": ")))
			p = q;
	}
	for (int k = 0; k < 2 && e - p > 6 && p[0] == '['; k++) {
		if (rx(c, RX_PG_GUID, p, e - p)) {
			d->group = cap_intern(c, p, 2);
			d->has_pg = true;
		} else if (rx(c, RX_PG_NUM, p, e - p)) {
			d->group = cap_intern(c, p, 1);
			d->has_pg = true;
		} else if (!rx(c, RX_RANK_ONLY, p, e - p)) {
			break;
		}
		p += c->ov[1];
	}
	d->msg = p;
	d->msg_len = e - p;
}

static void c10d_add(struct nl_ctx *c, struct nl_c10d *d, struct hd_signal *sig)
{
	sig->rank = d->grank;
	if (d->time_ns != INT64_MIN) {
		/*
		 * c10d and glog print no date: time_ns is then ns since
		 * local midnight (still local time, time_is_local).
		 */
		sig->time_ns = d->time_ns;
		sig->time_is_local = true;
	}
	nl_add_signal(c, sig, NULL, d->st, d->text, d->text_len);
}

/* Replaces a signal's text with text + "\n" + more (bounded). */
static void signal_append(struct hd_signal *sig, const char *more, size_t n)
{
	g_autofree char *raw =
		g_strdup_printf("%s\n%.*s", sig->text ? sig->text : "",
				(int)MIN(n, 1024), more);
	char *t = g_utf8_make_valid(raw, MIN(strlen(raw), 1024));

	g_free(sig->text);
	sig->text = t;
}

static void err_block_end(struct nl_ctx *c, struct nl_stream *st)
{
	if (st->err_sig >= 0)
		c->waiting = false;
	st->err_sig = -1;
	st->err_want_last = false;
	for (guint i = 0; i < c->streams->len; i++) {
		struct nl_stream *o = g_ptr_array_index(c->streams, i);

		if (o->err_sig >= 0)
			c->waiting = true;
	}
}

/* The text NCCL gave as "Last error:": it decides the category. */
static void err_block_last(struct nl_ctx *c, struct nl_stream *st,
			   const char *m, size_t n)
{
	struct hd_signal *sig = signal_at(c, st->err_sig);
	struct hd_signal tmp;

	signal_append(sig, m, n);
	while (n > 0 && (*m == ' ' || *m == '\t')) {
		m++;
		n--;
	}
	if (n > 0) {
		hd_signal_init(&tmp);
		nl_classify_warn(c, m, n, &tmp, NULL);
		sig->cat = tmp.cat;
		/* a classified Last error says what the block is */
		if (tmp.type != HD_SIGT_OTHER)
			sig->type = tmp.type;
		if (tmp.peer_rank >= 0)
			sig->peer_rank = tmp.peer_rank;
		if (tmp.peer)
			sig->peer = tmp.peer;
		if (tmp.code)
			sig->code = tmp.code;
	}
	err_block_end(c, st);
}

/* Lines that follow "NCCL error in:" in the same stream. */
static bool c10d_err_block(struct nl_ctx *c, struct nl_c10d *d)
{
	struct nl_stream *st = d->st;
	const char *m = d->msg, *q;
	size_t n = d->msg_len;

	if (st->err_sig < 0)
		return false;
	if (has(m, n, "NCCL error in:")) {
		err_block_end(c, st);
		return false;
	}
	if (st->err_want_last) {
		err_block_last(c, st, m, n);
		return true;
	}
	q = find(m, n, "Last error:");
	if (q) {
		const char *rest = q + 11;
		size_t rl = m + n - rest;

		while (rl > 0 && *rest == ' ') {
			rest++;
			rl--;
		}
		if (rl > 0) {
			signal_append(signal_at(c, st->err_sig),
				      "Last error:", 11);
			err_block_last(c, st, rest, rl);
		} else {
			signal_append(signal_at(c, st->err_sig), m, n);
			st->err_want_last = true;
		}
		return true;
	}
	signal_append(signal_at(c, st->err_sig), m, n);
	if (--st->err_left <= 0)
		err_block_end(c, st);
	return true;
}

static bool c10d_nccl_error(struct nl_ctx *c, struct nl_c10d *d)
{
	struct hd_signal sig;
	const char *m = d->msg;
	size_t n = d->msg_len;

	if (!has(m, n, "NCCL error in:"))
		return false;
	hd_signal_init(&sig);
	sig.cat = has(m, n, "unhandled cuda error") ? HD_SIG_CUDA
						    : HD_SIG_NCCL_INTERNAL;
	sig.type = HD_SIGT_NCCL_ERROR;
	sig.group_name = d->group;
	c10d_add(c, d, &sig);
	d->st->err_sig = last_signal(c);
	d->st->err_left = NL_BLOCK_LINES;
	d->st->err_want_last = false;
	d->st->in_tb = false;
	c->waiting = true;
	return true;
}

/* Finds "name=" in [s, e) and returns what follows, or NULL. */
static const char *field(const char *s, const char *e, const char *name)
{
	const char *q = find(s, e - s, name);

	return q ? q + strlen(name) : NULL;
}

/* The number of elements of "[4, 4]": the product, -1 when unreadable. */
static int64_t shape_numel(const char *s, const char *e)
{
	int64_t numel = 1, v;
	int dims = 0;

	if (s >= e || *s != '[')
		return -1;
	s++;
	while (s < e && *s != ']') {
		if (*s == ',' || *s == ' ') {
			s++;
			continue;
		}
		if (!scan_int(&s, e, &v) || v < 0)
			return -1;
		numel = mul_or_unknown(numel, v);
		if (numel < 0)
			return -1;
		dims++;
	}
	return s < e ? numel : -1;
}

static bool c10d_timeout(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *e = d->msg + d->msg_len, *w, *f, *we;
	struct hd_signal sig;
	int64_t v;
	char key[256];

	w = find(m, d->msg_len, "WorkNCCL(");
	if (!w || !(has(m, d->msg_len, "collective operation timeout") ||
		    has(m, d->msg_len, "timed out in blocking wait")))
		return false;
	w += 9;
	we = memchr(w, ')', e - w);
	if (!we)
		we = e;
	hd_signal_init(&sig);
	sig.cat = HD_SIG_TIMEOUT;
	sig.type = HD_SIGT_WATCHDOG_TIMEOUT;
	if ((f = field(w, we, "SeqNum=")) && scan_int(&f, we, &v))
		sig.seq = v;
	if ((f = field(w, we, "OpType="))) {
		const char *t = f;

		while (t < we && (g_ascii_isalnum(*t) || *t == '_'))
			t++;
		if (t > f)
			sig.op_name = hd_intern_len(f, t - f);
	}
	if ((f = field(w, we, "NumelIn=")) && scan_int(&f, we, &v))
		sig.numel_in = v;
	if ((f = field(w, we, "NumelOut=")) && scan_int(&f, we, &v))
		sig.numel_out = v;
	if ((f = field(w, e, "TensorShape=")))
		sig.numel_in = sig.numel_out = shape_numel(f, e);
	if (!sig.op_name) {
		nl_skip(c, "watchdog timeout without OpType");
		return true;
	}
	sig.group_name = d->group ? d->group : hd_intern("0");
	/*
	 * The same timeout comes back in what(): and the exception line,
	 * often without [rankG]: such a line matches any rank's.
	 */
	g_snprintf(key, sizeof(key), "T|*|%u|%s|%" G_GINT64_FORMAT "|%s",
		   d->st->index, sig.group_name, sig.seq, sig.op_name);
	if (d->grank < 0 && g_hash_table_contains(c->dedup, key))
		return true;
	if (!g_hash_table_contains(c->dedup, key))
		g_hash_table_insert(c->dedup, g_strdup(key),
				    GINT_TO_POINTER(0));
	g_snprintf(key, sizeof(key), "T|%d|%u|%s|%" G_GINT64_FORMAT "|%s",
		   d->grank, d->st->index, sig.group_name, sig.seq,
		   sig.op_name);
	if (dedup_seen(c, key))
		return true;
	c10d_add(c, d, &sig);
	d->st->timeout_sig = d->has_pg ? -1 : last_signal(c);
	return true;
}

static bool c10d_status(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	struct hd_signal sig;
	int64_t v;
	char key[256];

	if (!has(m, n, "ast enqueued"))
		return false;
	if (!rx(c, RX_STATUS, m, n)) {
		nl_skip(c, "unreadable c10d status line");
		return true;
	}
	hd_signal_init(&sig);
	sig.cat = HD_SIG_PROGRESS;
	sig.type = HD_SIGT_PG_STATUS;
	sig.seq = cap_int(c, m, 1, &v) ? v : -1;
	if (cap_int(c, m, 2, &v))
		sig.last_enqueued = v;
	if (cap_int(c, m, 3, &v))
		sig.last_completed = v;
	sig.group_name = d->group ? d->group : hd_intern("0");
	g_snprintf(key, sizeof(key),
		   "S|%d|%u|%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT
		   "|%" G_GINT64_FORMAT,
		   d->grank, d->st->index, sig.group_name, sig.seq,
		   sig.last_enqueued, sig.last_completed);
	if (dedup_seen(c, key))
		return true;
	/* A timeout line without a PG prefix belongs to this PG. */
	if (d->st->timeout_sig >= 0 && d->has_pg && sig.seq >= 0) {
		struct hd_signal *t = signal_at(c, d->st->timeout_sig);

		if (t->seq == sig.seq && t->rank == d->grank)
			t->group_name = sig.group_name;
		d->st->timeout_sig = -1;
	}
	c10d_add(c, d, &sig);
	return true;
}

static bool any_of(const char *m, size_t n, const char *const *needles,
		   size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (has(m, n, needles[i]))
			return true;
	return false;
}

static const char *const heartbeat_texts[] = {
	"Heartbeat monitor timed out",
	"watchdog got stuck",
	"Could not acquire GIL",
};

static const char *const dump_texts[] = {
	"dump signal",
	"global timeout from another rank",
	"signal dumping",
	"Broadcasting signal",
	"preparing to dump",
	"dumping nccl trace to",
	"Flight Recorder trace successfully dumped",
	"Finished flight recorder",
	"attempting to dump debug info",
	"would have terminated the process",
	"Future for ",
	"should dump",
	"exception dump flag",
};

static const char *const desync_texts[] = {
	"didn't join",		 "didn't finish",
	"are the lagging ranks", "Failed to retrieve TORCH_NCCL_DESYNC",
	"Failed to rerieve",	 "DESYNC_DEBUG report",
};

static const char *const bootstrap_texts[] = {
	"DistStoreError",
	"DistNetworkError",
	"while trying to connect to",
	"waiting for clients",
	"Timed out initializing process group in store based barrier",
};

static bool is_bootstrap(const char *m, size_t n)
{
	return any_of(m, n, bootstrap_texts, G_N_ELEMENTS(bootstrap_texts)) ||
	       (has(m, n, "TCP client failed to connect") &&
		has(m, n, "timed out")) ||
	       (has(m, n, "is setting up NCCL communicator") &&
		has(m, n, "got error"));
}

static void c10d_simple(struct nl_ctx *c, struct nl_c10d *d, uint8_t cat,
			uint8_t type, const char *dedup)
{
	struct hd_signal sig;
	char key[160];

	if (dedup) {
		g_snprintf(key, sizeof(key), "%s|%d|%u", dedup, d->grank,
			   d->st->index);
		if (dedup_seen(c, key))
			return;
	}
	hd_signal_init(&sig);
	sig.cat = cat;
	sig.type = type;
	sig.group_name = d->group;
	c10d_add(c, d, &sig);
}

/* torchrun: one process's exit; the same exit may be printed twice. */
static void process_exit(struct nl_ctx *c, struct nl_c10d *d, int rank,
			 int64_t code, int64_t pid)
{
	char key[96];
	gpointer v;
	struct hd_signal sig;

	g_snprintf(key, sizeof(key), "X|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT,
		   pid, code);
	v = g_hash_table_lookup(c->dedup, key);
	if (v) {
		struct hd_signal *old = signal_at(c, GPOINTER_TO_INT(v) - 1);

		if (old->rank < 0)
			old->rank = rank;
		return;
	}
	dedup_seen(c, key);
	hd_signal_init(&sig);
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_PROCESS_EXIT;
	sig.code = (int32_t)clamp_int(code, INT32_MIN, INT32_MAX);
	sig.pid = (int32_t)clamp_int(pid, 0, INT32_MAX);
	sig.rank = rank;
	if (d->time_ns != INT64_MIN) {
		sig.time_ns = d->time_ns;
		sig.time_is_local = true;
	}
	nl_add_signal(c, &sig, NULL, d->st, d->text, d->text_len);
	/* a launcher's line: not the process of the stream */
	signal_at(c, last_signal(c))->rank = rank;
}

static bool c10d_torchrun(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	struct nl_stream *st = d->st;
	int64_t code, pid, v;

	if (has(m, n, "failed (exitcode:") && rx(c, RX_EXIT, m, n) &&
	    cap_int(c, m, 1, &code) && cap_int(c, m, 3, &pid)) {
		process_exit(c, d, -1, code, pid);
		return true;
	}
	if (has(m, n, "ChildFailedError") || has(m, n, "Failures:") ||
	    has(m, n, "Root Cause (first observed failure)")) {
		st->cfe_left = NL_CFE_LINES;
		st->cfe_rank = -1;
		st->in_tb = false;
		return true;
	}
	if (st->cfe_left <= 0)
		return false;
	if (has(m, n, "local_rank") && rx(c, RX_CFE_RANK, m, n) &&
	    cap_int(c, m, 1, &v)) {
		st->cfe_rank = (int)clamp_int(v, -1, INT_MAX);
		return true;
	}
	if (has(m, n, "exitcode") && rx(c, RX_CFE_EXIT, m, n) &&
	    cap_int(c, m, 1, &code) && cap_int(c, m, 2, &pid)) {
		process_exit(c, d, st->cfe_rank, code, pid);
		st->cfe_rank = -1;
		return true;
	}
	return false;
}

static bool c10d_traceback(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *name;
	size_t n = d->msg_len, nl;
	struct nl_stream *st = d->st;

	if (has(m, n, "Traceback (most recent call last)")) {
		st->in_tb = true;
		return true;
	}
	if (!st->in_tb || n == 0 || m[0] == ' ' || m[0] == '\t' ||
	    !rx(c, RX_EXCEPTION, m, n) || !cap(c, m, 1, &name, &nl))
		return false;
	st->in_tb = false;
	if (has(name, nl, "OutOfMemoryError") || has(m, n, "out of memory"))
		c10d_simple(c, d, HD_SIG_CUDA, HD_SIGT_OOM, "O");
	else if (is_bootstrap(m, n))
		c10d_simple(c, d, HD_SIG_INIT, HD_SIGT_BOOTSTRAP, NULL);
	else
		c10d_simple(c, d, HD_SIG_CRASH, HD_SIGT_TRACEBACK, NULL);
	return true;
}

/* Returns false when the line said nothing this parser knows. */
static bool c10d_dispatch(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	int64_t v;

	if (d->grank >= 0)
		hint_merge(&d->st->c10d_rank, d->grank);
	if (c10d_err_block(c, d) || c10d_nccl_error(c, d) ||
	    c10d_timeout(c, d) || c10d_status(c, d))
		return true;
	if (has(m, n, "was aborted on rank") && rx(c, RX_ABORTED, m, n)) {
		c10d_simple(c, d, HD_SIG_NCCL_INTERNAL, HD_SIGT_COMM_ABORTED,
			    NULL);
		if (cap_int(c, m, 1, &v) && d->grank < 0)
			signal_at(c, last_signal(c))->rank =
				(int32_t)clamp_int(v, -1, INT32_MAX);
		return true;
	}
	if (has(m, n, "raised the following async exception") ||
	    has(m, n, "found async exception") ||
	    has(m, n, "encountered error set by ProcessGroupNCCL") ||
	    has(m, n, "remote error detected from rank")) {
		c10d_simple(c, d, HD_SIG_NCCL_INTERNAL, HD_SIGT_NCCL_ERROR,
			    NULL);
		return true;
	}
	if (any_of(m, n, heartbeat_texts, G_N_ELEMENTS(heartbeat_texts))) {
		c10d_simple(c, d, HD_SIG_INFO, HD_SIGT_HEARTBEAT, NULL);
		return true;
	}
	if (any_of(m, n, dump_texts, G_N_ELEMENTS(dump_texts))) {
		c10d_simple(c, d, HD_SIG_INFO, HD_SIGT_DUMP, NULL);
		return true;
	}
	if (any_of(m, n, desync_texts, G_N_ELEMENTS(desync_texts))) {
		c10d_simple(c, d, HD_SIG_INFO, HD_SIGT_DESYNC_REPORT, NULL);
		return true;
	}
	if (c10d_torchrun(c, d) || c10d_traceback(c, d))
		return true;
	if (is_bootstrap(m, n)) {
		c10d_simple(c, d, HD_SIG_INIT, HD_SIGT_BOOTSTRAP, NULL);
		return true;
	}
	if (has(m, n, "CUDA out of memory") || has(m, n, "OutOfMemoryError")) {
		c10d_simple(c, d, HD_SIG_CUDA, HD_SIGT_OOM, "O");
		return true;
	}
	return false;
}

/* Cheap tests that a line may be one of the c10d/Python texts. */
static const char *const c10d_needles[] = {
	"[rank",	 "ProcessGroupNCCL",
	"WorkNCCL(",	 "NCCL",
	"Traceback",	 "Error",
	"Exception",	 "Interrupt",
	"Exit",		 "exitcode",
	"local_rank",	 "Failures:",
	"Root Cause",	 "enqueued",
	"dump",		 "Dump",
	"DESYNC",	 "didn't",
	"lagging",	 "Heartbeat",
	"watchdog",	 "store",
	"TCP",		 "imed out",
	"out of memory", "[PG ",
	"[Rank ",	 "light",
	"GIL",		 "clients",
};

void nl_c10d_line(struct nl_ctx *c, const char *line, size_t n)
{
	struct nl_wrap w;
	struct nl_c10d d;
	size_t off;

	if (!c->waiting &&
	    !any_of(line, n, c10d_needles, G_N_ELEMENTS(c10d_needles)))
		return;
	nl_wrap_init(&w);
	off = nl_strip_front(line, n, &w);
	d.st = nl_stream_for(c, &w);
	d.text = line + off;
	d.text_len = n - off;
	c10d_prefix(c, d.text, d.text_len, &d);
	if (d.st->cfe_left > 0)
		d.st->cfe_left--;
	c10d_dispatch(c, &d);
}
