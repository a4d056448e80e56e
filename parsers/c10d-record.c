/*
 * The PyTorch c10d, torchrun and Python grammar of the NCCL_DEBUG log
 * parser (docs/format-nccl-log.md; the driver is parsers/nccl-log.c):
 * ProcessGroupNCCL watchdog timeouts and PG status lines, "NCCL error in:"
 * blocks, aborted communicators, heartbeat, dump and desync reports,
 * Python tracebacks, torchrun exit codes and ChildFailedError summaries,
 * DeepSpeed's, Open MPI's and srun's task exits, store and bootstrap
 * failures, CUDA out of memory.
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

#include "hd-const.h"
#include "parse-util.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's own state. */
#define NL_BLOCK_LINES 8 /* lines an "NCCL error in:" block may span */
#define NL_CFE_LINES   400 /* lines a ChildFailedError block may span */

/* Lines a traceback's ncclCommInitRank call may stand above its error. */
#define NL_INIT_CALL_LINES 8

const char *const nl_c10d_rx_src[RX_COUNT] = {
	[RX_STATUS] = "(?:at (?:NCCL )?work(?: sequence id)?: (-?\\d+)[,. ]+"
		      "(?:PG status: )?)?[Ll]ast enqueued (?:NCCL )?work: "
		      "(-?\\d+), last completed (?:NCCL )?work: (-?\\d+)",
	[RX_NCCL_ERR] = "NCCL error in: ([^,]*), (.*?)(?:, NCCL version "
			"(\\S+))?$",
	[RX_ABORTED] = "NCCL communicator was aborted on rank (-?\\d+)",
	[RX_EXIT] = "failed \\(exitcode: (-?\\d+)\\) (?:local_rank: (\\d+) "
		    "\\(pid: (\\d+)\\)|for binary located at .*? with "
		    "local_rank: (\\d+) \\(process ID: (\\d+)\\))",
	[RX_CFE_RANK] = "^\\s*rank\\s*:\\s*(\\d+)\\s*\\(local_rank:\\s*(\\d+)",
	[RX_CFE_TIME] = "^\\s*time\\s*:\\s*(\\d{4})-(\\d\\d)-(\\d\\d)_"
			"(\\d\\d):(\\d\\d):(\\d\\d)",
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
	bool grank_printed; /* grank is from "[rankG]:", not "[Rank r]" */
	struct hd_time time; /* the record's own time, or none */
	struct hd_time wrap_time; /* a wrapper's full date, or none */
	const char *group; /* interned PG name, or NULL */
	bool has_pg;
	const char *line; /* the whole line */
	const char *text; /* the line without its wrapper */
	size_t text_len;
	const char *msg; /* after the c10d and PG prefixes */
	size_t msg_len;
};

static bool is_sev(char ch)
{
	return ch == 'F' || ch == 'E' || ch == 'W' || ch == 'I' || ch == 'V';
}

/*
 * A c10d record glued to the end of other output (a tqdm progress bar
 * without its newline: "66.12it/s][E ProcessGroupNCCL.cpp:567] ..."):
 * where its "[E " starts, or NULL.
 */
static const char *glued_record(const char *p, const char *e)
{
	const char *q = find(p, e - p, "ProcessGroupNCCL.cpp:");

	if (!q)
		q = find(p, e - p, "ProcessGroupWrapper.cpp:");
	for (const char *b = q ? q - 1 : NULL; b && b >= p && q - b < 40; b--) {
		if (*b == '[' && b + 2 < e && is_sev(b[1]) &&
		    (b[2] == ' ' || g_ascii_isdigit(b[2])))
			return b;
		if (*b == ']')
			break;
	}
	return NULL;
}

/*
 * "[E305 14:02:11.123456789 file:N] ": month (not padded), day and time
 * of day; the fraction is CLOCK_MONOTONIC, so it is dropped.  No month
 * and day: a time of day only.
 */
static const char *head_bracket_glog(const char *p, const char *e,
				     struct nl_c10d *d)
{
	const char *q, *t;
	int64_t ns;

	if (!(e - p > 3 && p[0] == '[' && is_sev(p[1]) &&
	      (p[2] == ' ' || g_ascii_isdigit(p[2])) &&
	      (q = find(p, MIN((size_t)(e - p), 160), "] "))))
		return NULL;
	for (t = p + 2; t < q && g_ascii_isdigit(*t); t++)
		;
	if (t - p - 2 >= 3)
		(void)hd_time_scan_glog(p + 2, q - p - 2, false, &d->time);
	else if (t < q && *t == ' ' &&
		 hd_time_scan_hms(t + 1, q - t - 1, false, &ns))
		d->time = hd_time_make(ns, HD_CLOCK_TIME_OF_DAY);
	return q + 2;
}

/* glog: "E0305 14:02:11.123456 tid file:N] " (wall clock) */
static const char *head_glog(const char *p, const char *e, struct nl_c10d *d)
{
	const char *q;

	if (!(e - p > 6 && is_sev(p[0]) && g_ascii_isdigit(p[1]) &&
	      g_ascii_isdigit(p[4]) && p[5] == ' ' &&
	      (q = find(p, MIN((size_t)(e - p), 200), "] "))))
		return NULL;
	(void)hd_time_scan_glog(p + 1, q - p - 1, true, &d->time);
	return q + 2;
}

/* Python logging: "LEVEL:logger:msg"; no time. */
static const char *head_pylog(const char *p, const char *e, struct nl_c10d *d)
{
	static const char *const levels[] = { "WARNING:", "ERROR:", "INFO:",
					      "CRITICAL:" };
	const char *q = NULL;

	(void)d;
	for (size_t i = 0; i < G_N_ELEMENTS(levels) && !q; i++)
		if (starts(p, e - p, levels[i]))
			q = p;
	if (!q)
		return NULL;
	q = memchr(p, ':', e - p);
	q = q ? memchr(q + 1, ':', e - q - 1) : NULL;
	return q ? q + 1 : p;
}

/*
 * The headers a c10d record may start with, after any "[rankG]:", tried
 * in order; the first that matches is stripped, and gives the record's
 * time where it prints one.
 */
static const struct c10d_head {
	/* past the header at p (its time in d->time), or NULL: not this */
	const char *(*strip)(const char *p, const char *e, struct nl_c10d *d);
} c10d_heads[] = {
	{ head_bracket_glog },
	{ head_glog },
	{ head_pylog },
};

/*
 * The tags of the process group and rank that follow the header, up to
 * two ("[PG 0 Rank 3] ", "[PG ID 1 PG GUID 1(name) Rank 3] ",
 * "[Rank 3] "), tried in order at each: the pattern, the capture of the
 * PG's name (0: the tag names none) and that of the rank in it.
 */
static const struct c10d_tag {
	enum nl_rx rx;
	int group_cap;
	int rank_cap;
} c10d_tags[] = {
	{ RX_PG_GUID, 2, 4 },
	{ RX_PG_NUM, 1, 3 },
	{ RX_RANK_ONLY, 0, 1 },
};

static void c10d_prefix(struct nl_ctx *c, const char *s, size_t n,
			struct nl_c10d *d)
{
	const char *p = s, *e = s + n, *q;
	int64_t v;
	int local = -1;

	d->grank = -1;
	d->grank_printed = false;
	d->time = hd_time_none();
	d->group = NULL;
	d->has_pg = false;
	if (starts(p, e - p, "[rank")) {
		q = p + 5;
		if (scan_int(&q, e, &v) && q + 1 < e && q[0] == ']' &&
		    q[1] == ':') {
			d->grank = (int)clamp_int(v, -1, INT_MAX);
			d->grank_printed = true;
			p = q + 2;
			if (p < e && *p == ' ')
				p++;
		}
	}
	if (e - p > 3 && p[0] != '[' && (q = glued_record(p, e)))
		p = q;
	for (size_t k = 0; k < G_N_ELEMENTS(c10d_heads); k++)
		if ((q = c10d_heads[k].strip(p, e, d))) {
			p = q;
			break;
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
		const struct c10d_tag *tag = NULL;

		for (size_t i = 0; i < G_N_ELEMENTS(c10d_tags) && !tag; i++)
			if (rx(c, c10d_tags[i].rx, p, e - p))
				tag = &c10d_tags[i];
		if (!tag)
			break;
		if (tag->group_cap) {
			d->group = cap_intern(c, p, tag->group_cap);
			d->has_pg = true;
		}
		if (local < 0 && cap_int(c, p, tag->rank_cap, &v))
			local = (int)clamp_int(v, -1, INT_MAX);
		p += c->ov[1];
	}
	/*
	 * Without "[rankG]:" (PyTorch before 2.3), "[Rank r]" is the rank in
	 * the process group: the global rank for the default PG, which is
	 * the only one an old watchdog line names without a PG prefix.
	 */
	if (d->grank < 0 && local >= 0 &&
	    (!d->has_pg || (d->group && strcmp(d->group, "0") == 0)))
		d->grank = local;
	d->msg = p;
	d->msg_len = e - p;
}

static void c10d_add(struct nl_ctx *c, struct nl_c10d *d, struct hd_signal *sig)
{
	sig->rank = d->grank;
	/*
	 * The record's own time (glog's month and day: the year is inferred
	 * later from its stream), else a wrapper's date.
	 */
	sig->time = hd_time_known(d->time) ? d->time : d->wrap_time;
	/* one event on two clocks: a collector's UTC date, glog's time */
	if (d->wrap_time.clock == HD_CLOCK_UTC &&
	    (d->time.clock == HD_CLOCK_MONTH_DAY ||
	     d->time.clock == HD_CLOCK_LOCAL)) {
		if (!hd_time_known(d->st->pair_utc)) {
			d->st->pair_utc = d->wrap_time;
			d->st->pair_local = d->time;
		}
		d->st->last_utc = d->wrap_time;
		d->st->last_local = d->time;
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

/*
 * The text NCCL gave as "Last error:": it decides the category.  append is
 * false when the text is already in the signal's (the same line).
 */
static void err_block_last(struct nl_ctx *c, struct nl_stream *st,
			   const char *m, size_t n, bool append)
{
	struct hd_signal *sig = signal_at(c, st->err_sig);
	struct hd_signal tmp;

	if (append)
		signal_append(sig, m, n);
	while (n > 0 && (*m == ' ' || *m == '\t')) {
		m++;
		n--;
	}
	if (n > 0) {
		hd_signal_init(&tmp);
		nl_classify_warn(c, m, n, &tmp, NULL);
		/* an unclassified text keeps what the result string said */
		if (tmp.cat != HD_SIG_NCCL_INTERNAL ||
		    tmp.type != HD_SIGT_OTHER)
			sig->cat = tmp.cat;
		/* a classified Last error says what the block is (a duplicate
		   GPU's named ranks become the culprits) */
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
	/* srun's own lines are no part of a process's error text */
	if (has(m, n, "NCCL error in:") || starts(m, n, "srun: error: ")) {
		err_block_end(c, st);
		return false;
	}
	if (st->err_want_last) {
		err_block_last(c, st, m, n, true);
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
			err_block_last(c, st, rest, rl, true);
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

/*
 * The category an "NCCL error in:" line's result string gives when no
 * "Last error:" says more (ncclGetErrorString() wording, 2.4-2.30).
 */
static uint8_t nccl_result_cat(const char *m, size_t n)
{
	if (has(m, n, "unhandled cuda error"))
		return HD_SIG_CUDA;
	if (has(m, n, "remote process exited or there was a network error"))
		return HD_SIG_NETWORK;
	if (has(m, n, "unhandled system error"))
		return HD_SIG_INIT;
	if (has(m, n, "invalid usage") || has(m, n, "invalid argument"))
		return HD_SIG_CONFIG;
	return HD_SIG_NCCL_INTERNAL;
}

/*
 * "NCCL error: unhandled cuda error, NCCL version ..." without "in: file":
 * the form the watchdog's exception and checkForNCCLErrors give.  Only a
 * known result string follows, so prose that mentions an NCCL error is
 * not taken for one.
 */
static const char *const nccl_results[] = {
	"unhandled cuda error",
	"remote process exited or there was a network error",
	"unhandled system error",
	"internal error",
	"invalid usage",
	"invalid argument",
};

/* Whether one of NCCL's result strings starts at q (m + n its end). */
static bool nccl_result_at(const char *m, size_t n, const char *q)
{
	for (size_t i = 0; i < G_N_ELEMENTS(nccl_results); i++)
		if ((size_t)(m + n - q) >= strlen(nccl_results[i]) &&
		    memcmp(q, nccl_results[i], strlen(nccl_results[i])) == 0)
			return true;
	return false;
}

static bool nccl_error_bare(const char *m, size_t n)
{
	const char *q = find(m, n, "NCCL error: ");

	/* "NCCL failure: unhandled cuda error in x.cu at line: 86": the
	   same result in a benchmark's or framework's own words */
	if (!q && (q = find(m, n, "NCCL failure: ")))
		return nccl_result_at(m, n, q + 14);
	return q && nccl_result_at(m, n, q + 12);
}

/*
 * "ncclCommInitRank failed: unhandled system error": another framework's
 * words for a failed communicator setup (Horovod, TensorFlow's
 * UnknownError; XLA's "NCCL operation ncclCommInitRank(&comm, ...)
 * failed: ..."): the call, then within a short reach " failed: " and a
 * result string.
 */
static bool init_call_failed(const char *m, size_t n)
{
	const char *q = find(m, n, "ncclCommInit"), *f;

	if (!q)
		return false;
	f = find(q, (size_t)MIN(m + n - q, 160), " failed: ");
	return f && nccl_result_at(m, n, f + 9);
}

/*
 * The line PyTorch 2.1+ puts under "NCCL error in:", the result's enum
 * name and NCCL's own words ("ncclInternalError: Internal check
 * failed."), where a paste cut the line above: the category of its
 * name, else -1.
 */
static int nccl_result_name_cat(const char *m, size_t n)
{
	static const struct {
		const char *name;
		uint8_t cat;
	} names[] = {
		{ "ncclUnhandledCudaError: ", HD_SIG_CUDA },
		{ "ncclSystemError: ", HD_SIG_INIT },
		{ "ncclInternalError: ", HD_SIG_NCCL_INTERNAL },
		{ "ncclInvalidArgument: ", HD_SIG_CONFIG },
		{ "ncclInvalidUsage: ", HD_SIG_CONFIG },
		{ "ncclRemoteError: ", HD_SIG_NETWORK },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		if (starts(m, n, names[i].name))
			return names[i].cat;
	return -1;
}

static bool c10d_nccl_error(struct nl_ctx *c, struct nl_c10d *d)
{
	struct hd_signal sig;
	const char *m = d->msg, *q;
	size_t n = d->msg_len;

	bool init = init_call_failed(m, n);
	int named = -1;

	if (!has(m, n, "NCCL error in:") && !nccl_error_bare(m, n) && !init &&
	    (named = nccl_result_name_cat(m, n)) < 0)
		return false;
	hd_signal_init(&sig);
	sig.cat = named >= 0 ? (uint8_t)named : nccl_result_cat(m, n);
	/*
	 * Raised from ncclCommInitRank (a call in the frames just above
	 * it, as vLLM's and SGLang's pynccl print them, or named on the
	 * line): the communicator's setup failed, whatever the result
	 * says failed.
	 */
	if (init || (d->st->init_call_line &&
		     c->lineno - d->st->init_call_line <= NL_INIT_CALL_LINES))
		sig.cat = HD_SIG_INIT;
	sig.type = HD_SIGT_NCCL_ERROR;
	sig.group_name = d->group;
	c10d_add(c, d, &sig);
	d->st->err_sig = last_signal(c);
	d->st->err_left = NL_BLOCK_LINES;
	d->st->err_want_last = false;
	d->st->in_tb = false;
	c->waiting = true;
	/* flattened output keeps "Last error:" and its text on this line */
	q = find(m, n, "Last error:");
	if (q) {
		const char *rest = q + 11;
		size_t rl = (size_t)(m + n - rest);

		while (rl > 0 && *rest == ' ') {
			rest++;
			rl--;
		}
		if (rl > 0)
			err_block_last(c, d->st, rest, rl, false);
		else
			d->st->err_want_last = true;
	}
	return true;
}

/* Finds "name=" in [s, e) and returns what follows, or NULL. */
static const char *field(const char *s, const char *e, const char *name)
{
	const char *q = find(s, e - s, name);

	return q ? q + strlen(name) : NULL;
}

/*
 * The PG of a watchdog timeout line that names none.  PyTorch 2.2+ prints
 * "[Rank r] Watchdog caught collective operation timeout: WorkNCCL(...)"
 * without a PG, and the PG on the status lines that follow it ("[PG 1
 * Rank r] Exception (either an error or timeout) detected by watchdog at
 * work: N, ..."); in a paste of several ranks the lines interleave, and
 * some ranks' status lines may be cut away.  Such a timeout waits (a
 * hash lookup, not a scan) for a status line of its rank, stream and seq;
 * at end of input, one still waiting takes the one PG this input shows at
 * its seq, else no PG (HD_PG_UNNAMED): never PG 0 for want of a name.  An
 * input none of whose timeout or status lines names a PG with a seq
 * (PyTorch before 2.2, or a paste that kept none) keeps PG 0, its default
 * group's.
 */
#define NL_PG_PENDING_MAX (1 << 16)
#define NL_PG_SEQS_MAX	  (1 << 16)

/* The input shows PG group at seq; "" marks a seq two PGs show. */
static void pg_note_seq(struct nl_ctx *c, const char *group, int64_t seq)
{
	const char *had;
	int64_t *key;

	if (seq < 0 || !group)
		return;
	c->saw_pg = true;
	had = g_hash_table_lookup(c->pg_at_seq, &seq);
	if (had == group || (had && !*had) ||
	    (!had && g_hash_table_size(c->pg_at_seq) >= NL_PG_SEQS_MAX))
		return;
	key = g_new(int64_t, 1);
	*key = seq;
	/* a second PG at this seq: which one a timeout is of is unknown */
	g_hash_table_insert(c->pg_at_seq, key, hd_unconst(had ? "" : group));
}

/* The key of a waiting timeout: its stream, rank and seq. */
static void pg_wait_key(char *key, size_t n, uint32_t stream, int rank,
			int64_t seq)
{
	g_snprintf(key, n, "%u|%d|%" G_GINT64_FORMAT, stream, rank, seq);
}

/* The timeout just added names no PG: it waits for its status line. */
static void pg_wait(struct nl_ctx *c, const struct nl_c10d *d, int64_t seq)
{
	char key[64];
	int64_t at = last_signal(c);

	if (c->pg_pending->len >= NL_PG_PENDING_MAX)
		return; /* keeps PG 0, as before 2.2 */
	pg_wait_key(key, sizeof(key), d->st->index, d->grank, seq);
	g_hash_table_insert(c->pg_waiting, g_strdup(key),
			    GUINT_TO_POINTER(c->pg_pending->len));
	g_array_append_val(c->pg_pending, at);
}

/* A status line of d's rank names the PG of its waiting timeout at seq. */
static void pg_claim(struct nl_ctx *c, const struct nl_c10d *d,
		     const char *group, int64_t seq)
{
	char key[64];
	gpointer pos;

	pg_wait_key(key, sizeof(key), d->st->index, d->grank, seq);
	if (!g_hash_table_lookup_extended(c->pg_waiting, key, NULL, &pos))
		return;
	signal_at(c,
		  g_array_index(c->pg_pending, int64_t, GPOINTER_TO_UINT(pos)))
		->group_name = group;
	g_array_index(c->pg_pending, int64_t, GPOINTER_TO_UINT(pos)) = -1;
	g_hash_table_remove(c->pg_waiting, key);
}

/*
 * The timeouts still waiting take the one PG the life showed at their
 * seq (HD_PG_UNNAMED when it showed none or two); a life that named no
 * PG leaves them in PG 0.
 */
static void pg_settle(struct nl_ctx *c)
{
	for (guint i = 0; i < c->pg_pending->len && c->saw_pg; i++) {
		int64_t at = g_array_index(c->pg_pending, int64_t, i);
		struct hd_signal *t;
		const char *pg;

		if (at < 0)
			continue; /* its status line named it */
		t = signal_at(c, at);
		pg = t->seq >= 0 ? g_hash_table_lookup(c->pg_at_seq, &t->seq)
				 : NULL;
		t->group_name = pg && *pg ? pg : hd_intern(HD_PG_UNNAMED);
	}
	g_array_set_size(c->pg_pending, 0);
	g_hash_table_remove_all(c->pg_waiting);
}

void nl_c10d_finish(struct nl_ctx *c)
{
	pg_settle(c);
}

/*
 * A new process life began (nl_ctx.life): sequence numbers start again
 * and a timeout at the same seq is a new one, not a repeat of the last
 * life's, so the repeats remembered and the PGs seen at each seq are the
 * ended life's.  (A restart that hangs where the last attempt did prints
 * the same lines again; deduplicated across lives, the last attempt lost
 * its timeouts and was called healthy.)
 */
static void life_sync(struct nl_ctx *c)
{
	if (c->c10d_life == c->life)
		return;
	pg_settle(c);
	g_hash_table_remove_all(c->pg_at_seq);
	c->saw_pg = false;
	g_hash_table_remove_all(c->dedup);
	c->c10d_life = c->life;
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

/*
 * A field's value of letters, digits and '_' at f, interned; NULL when
 * none, or when anything but the field's end follows it (',', ')',
 * blank, e): a value cut or overwritten by a terminal ("_ALLGATHER_BA[45"
 * is not the op _ALLGATHER_BA).
 */
static const char *word_at(const char *f, const char *e)
{
	const char *t = f;

	while (t < e && (g_ascii_isalnum(*t) || *t == '_'))
		t++;
	if (t == f ||
	    (t < e && *t != ',' && *t != ')' && *t != ' ' && *t != '\t'))
		return NULL;
	return hd_intern_len(f, t - f);
}

static bool c10d_timeout(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *e = d->msg + d->msg_len, *w, *f, *we;
	struct hd_signal sig;
	bool damaged = false;
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
		sig.op_name = word_at(f, we);
		/* cut or overwritten (a pager's "[451/1919]" mid-name): the
		   timeout stands, its op is unknown, never another op */
		if (!sig.op_name) {
			hd_input_warn(c->in, c->lineno,
				      "watchdog timeout's OpType is damaged: "
				      "its op taken as unknown");
			damaged = true;
		}
	}
	if ((f = field(w, we, "NumelIn=")) && scan_int(&f, we, &v))
		sig.numel_in = v;
	if ((f = field(w, we, "NumelOut=")) && scan_int(&f, we, &v))
		sig.numel_out = v;
	if ((f = field(w, e, "TensorShape=")))
		sig.numel_in = sig.numel_out = shape_numel(f, e);
	if (!sig.op_name && !damaged) {
		nl_skip(c, "watchdog timeout without OpType");
		return true;
	}
	sig.group_name = d->group ? d->group : hd_intern("0");
	/*
	 * The same timeout comes back in what(): and the exception line,
	 * often without [rankG]: such a line matches any rank's.
	 */
	g_snprintf(key, sizeof(key), "T|*|%u|%s|%" G_GINT64_FORMAT "|%s",
		   d->st->index, sig.group_name, sig.seq,
		   sig.op_name ? sig.op_name : "?");
	if (d->grank < 0 && g_hash_table_contains(c->dedup, key))
		return true;
	if (!g_hash_table_contains(c->dedup, key))
		g_hash_table_insert(c->dedup, g_strdup(key),
				    GINT_TO_POINTER(0));
	g_snprintf(key, sizeof(key), "T|%d|%u|%s|%" G_GINT64_FORMAT "|%s",
		   d->grank, d->st->index, sig.group_name, sig.seq,
		   sig.op_name ? sig.op_name : "?");
	if (dedup_seen(c, key))
		return true;
	c10d_add(c, d, &sig);
	if (d->has_pg)
		pg_note_seq(c, sig.group_name, sig.seq);
	else
		pg_wait(c, d, sig.seq);
	return true;
}

/*
 * A copy of [s, e) without the runs of three or more spaces a terminal
 * leaves where it wrapped a pasted line ("collecti     ve",
 * "TensorShape     =[20, 10]").  (transfer full)
 */
static char *unwrap_spaces(const char *s, const char *e)
{
	char *out = g_malloc(e - s + 1), *o = out;

	while (s < e) {
		const char *r = s;

		while (r < e && *r == ' ')
			r++;
		if (r - s >= 3) {
			s = r;
			continue;
		}
		while (s < r)
			*o++ = *s++;
		if (s < e)
			*o++ = *s++;
	}
	*o = '\0';
	return out;
}

/* The end of the parenthesised text that opens at open ('('), or NULL. */
static const char *paren_end(const char *open, const char *e)
{
	int depth = 0;

	for (const char *q = open; q < e; q++) {
		if (*q == '(')
			depth++;
		else if (*q == ')' && --depth == 0)
			return q;
	}
	return NULL;
}

/*
 * One rank's CollectiveFingerPrint(...) from a ProcessGroupWrapper
 * mismatch message: a coll_mismatch signal of that rank, compared with
 * peer (-1: the 1.10-1.12 form names no other rank).
 */
static void fingerprint_signal(struct nl_ctx *c, struct nl_c10d *d, int rank,
			       int peer, const char *fp, const char *fe)
{
	struct hd_signal sig;
	const char *f;
	int64_t v;
	char key[256];

	hd_signal_init(&sig);
	sig.cat = HD_SIG_MISMATCH;
	sig.type = HD_SIGT_COLL_MISMATCH;
	sig.peer_rank = peer;
	if ((f = field(fp, fe, "SequenceNumber=")) && scan_int(&f, fe, &v) &&
	    v >= 0)
		sig.seq = v;
	if ((f = field(fp, fe, "OpType=")))
		sig.op_name = word_at(f, fe);
	if ((f = field(fp, fe, "TensorShape=")))
		sig.numel_in = sig.numel_out = shape_numel(f, fe);
	if ((f = field(fp, fe, "TensorDtypes=")))
		sig.dtype_name = word_at(f, fe);
	if (!sig.op_name) {
		nl_skip(c, "collective fingerprint without OpType");
		return;
	}
	sig.group_name = d->group;
	g_snprintf(key, sizeof(key),
		   "M|%d|%d|%" G_GINT64_FORMAT "|%s|%" G_GINT64_FORMAT "|%s",
		   rank, peer, sig.seq, sig.op_name, sig.numel_in,
		   sig.dtype_name ? sig.dtype_name : "");
	if (dedup_seen(c, key))
		return;
	c10d_add(c, d, &sig);
	signal_at(c, last_signal(c))->rank = rank;
}

/*
 * " is running" at r; the spaces may be gone where a terminal's wrap was
 * taken out ("isrunning").
 */
static bool is_running(const char *r, const char *e)
{
	while (r < e && *r == ' ')
		r++;
	if (!starts(r, e - r, "is"))
		return false;
	r += 2;
	while (r < e && *r == ' ')
		r++;
	return starts(r, e - r, "running");
}

/*
 * ProcessGroupWrapper (TORCH_DISTRIBUTED_DEBUG=DETAIL): "Detected mismatch
 * between collectives on ranks. Rank 1 is running collective:
 * CollectiveFingerPrint(...), but Rank 0 is running collective:
 * CollectiveFingerPrint(...)", or the 1.10-1.12 "Rank 0 is running
 * inconsistent collective: CollectiveFingerPrint(...)".
 */
static bool c10d_mismatch(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	g_autofree char *t = NULL;
	const char *e, *q, *fp[2], *fe[2];
	int ranks[2], k = 0;
	int64_t v;

	if (!has(m, n, "Detected mismatch") && !has(m, n, "FingerPrint("))
		return false;
	d->st->in_tb = false;
	t = unwrap_spaces(m, m + n);
	e = t + strlen(t);
	if (!has(t, e - t, "Detected mismatch between collectives"))
		return true; /* DETAIL's "Running collective:" chatter */
	for (q = t; k < 2 && (q = find(q, e - q, "Rank ")) != NULL;) {
		const char *r = q + 5, *open;

		q = r;
		if (!scan_int(&r, e, &v) || v < 0 || !is_running(r, e))
			continue;
		open = find(r, e - r, "CollectiveFingerPrint(");
		if (!open)
			break;
		open += strlen("CollectiveFingerPrint");
		ranks[k] = (int)clamp_int(v, 0, INT_MAX);
		fp[k] = open;
		fe[k] = paren_end(open, e);
		if (!fe[k])
			fe[k] = e; /* cut: read what is there */
		q = fe[k];
		k++;
	}
	if (k == 0) {
		nl_skip(c, "collective mismatch message without a fingerprint");
		return true;
	}
	for (int i = 0; i < k; i++)
		fingerprint_signal(c, d, ranks[i], k == 2 ? ranks[1 - i] : -1,
				   fp[i], fe[i]);
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
	if (d->has_pg && sig.seq >= 0) {
		pg_note_seq(c, sig.group_name, sig.seq);
		pg_claim(c, d, sig.group_name, sig.seq);
	}
	c10d_add(c, d, &sig);
	return true;
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
};

/* The TCPStore went away under a running job (PyTorch 2.3+). */
static const char *const store_lost_texts[] = {
	"Failed to check the \"should dump\" flag",
	"exception dump flag from the global store",
	"TCPStore server has shut down",
	"sendBytes failed",
	"recvValue failed",
	"recvBytes failed",
};

/*
 * The store's address as a store-loss line prints it: "remote=[host]:port"
 * (TCPStore's SocketImpl) or "from host:port".  Interned "host:port" (an
 * IPv6 host keeps its brackets), or NULL when the line names none.
 */
static const char *store_address(const char *m, size_t n)
{
	static const char *const keys[] = { "remote=", " from " };
	const char *e = m + n;

	for (size_t k = 0; k < G_N_ELEMENTS(keys); k++) {
		const char *p = g_strstr_len(m, (gssize)n, keys[k]);
		const char *h, *he, *colon, *pe;
		g_autofree char *addr = NULL;

		if (!p)
			continue;
		h = p + strlen(keys[k]);
		if (h < e && *h == '[') {
			he = memchr(h, ']', (size_t)(e - h));
			if (!he || he == h + 1)
				continue;
			colon = ++he;
			/* "[node]" loses its brackets; "[fe80::1]" keeps them */
			if (!memchr(h, ':', (size_t)(he - h))) {
				h++;
				he--;
			}
		} else {
			he = h;
			while (he < e && (g_ascii_isalnum(*he) || *he == '.' ||
					  *he == '-' || *he == '_'))
				he++;
			colon = he;
		}
		if (he == h || he - h > 255 || colon + 1 >= e ||
		    *colon != ':' || !g_ascii_isdigit(colon[1]))
			continue;
		pe = colon + 1;
		while (pe < e && g_ascii_isdigit(*pe) && pe - colon <= 5)
			pe++;
		addr = g_strdup_printf("%.*s:%.*s", (int)(he - h), h,
				       (int)(pe - colon - 1), colon + 1);
		p = hd_intern(addr);
		return p == hd_intern_refused ? NULL : p;
	}
	return NULL;
}

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
	"waiting for workers",
	"Timed out initializing process group in store based barrier",
	"client socket has failed to connect",
	"client socket has timed out",
	"cannot be retrieved (gai error",
	"waitForInput",
	/* torchelastic's rendezvous: the job never formed */
	"RendezvousConnectionError",
	"RendezvousTimeoutError",
};

static bool is_bootstrap(const char *m, size_t n)
{
	return any_of(m, n, bootstrap_texts, G_N_ELEMENTS(bootstrap_texts)) ||
	       (has(m, n, "TCP client failed to connect") &&
		has(m, n, "timed out")) ||
	       (has(m, n, "is setting up NCCL communicator") &&
		has(m, n, "got error"));
}

/* The text from "CUDA error: " to the end, or NULL. */
static const char *cuda_error_text(const char *t)
{
	return t ? strstr(t, "CUDA error: ") : NULL;
}

/*
 * The same CUDA error printed first without a rank, then with one, in
 * one stream: a traceback's "RuntimeError: CUDA error: X" above the
 * watchdog's "[Rank 1] NCCL watchdog thread terminated with exception:
 * CUDA error: X".  One failure, of that rank: the rankless signal (at
 * index i of this input's) takes the rank, and true is returned.
 */
static bool rankless_first(struct nl_ctx *c, struct nl_c10d *d, int64_t i)
{
	struct hd_signal *prev;
	const char *a, *b;
	size_t bn;

	if (i < 0 || i > last_signal(c))
		return false;
	prev = signal_at(c, i);
	a = cuda_error_text(prev->text);
	b = find(d->text, d->text_len, "CUDA error: ");
	if (prev->rank >= 0 || !a || !b)
		return false;
	bn = (size_t)(d->text + d->text_len - b);
	while (bn > 0 && (b[bn - 1] == ' ' || b[bn - 1] == '\r'))
		bn--;
	if (strlen(a) < bn || strncmp(a, b, bn) != 0 ||
	    (a[bn] != '\0' && a[bn] != ' ' && a[bn] != '\n'))
		return false;
	prev->rank = d->grank;
	return true;
}

static void c10d_simple(struct nl_ctx *c, struct nl_c10d *d, uint8_t cat,
			uint8_t type, const char *dedup)
{
	struct hd_signal sig;
	char key[160];

	if (dedup) {
		gpointer had = NULL;
		bool star;

		/* a repeat without a rank (what():) matches any rank's */
		g_snprintf(key, sizeof(key), "%s|*|%u", dedup, d->st->index);
		star = g_hash_table_lookup_extended(c->dedup, key, NULL, &had);
		if (d->grank < 0 && star)
			return;
		if (d->grank >= 0 && star && GPOINTER_TO_INT(had) > 0 &&
		    rankless_first(c, d, GPOINTER_TO_INT(had) - 1)) {
			g_hash_table_insert(c->dedup, g_strdup(key),
					    GINT_TO_POINTER(0));
			return;
		}
		/* a rankless first one is remembered, for rankless_first() */
		if (!star)
			g_hash_table_insert(
				c->dedup, g_strdup(key),
				GINT_TO_POINTER(
					d->grank < 0 ? (int)(last_signal(c) + 2)
						     : 0));
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

/*
 * torchrun: one process's exit; the same exit may be printed twice.  An
 * exit of no known pid (0) is never taken for another's.
 */
static void process_exit(struct nl_ctx *c, struct nl_c10d *d, int rank,
			 int local_rank, int64_t code, int64_t pid,
			 struct hd_time when)
{
	char key[96];
	gpointer v = NULL;
	struct hd_signal sig;

	g_snprintf(key, sizeof(key), "X|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT,
		   pid, code);
	if (pid > 0)
		v = g_hash_table_lookup(c->dedup, key);
	if (v) {
		struct hd_signal *old = signal_at(c, GPOINTER_TO_INT(v) - 1);

		if (old->rank < 0)
			old->rank = rank;
		if (old->local_rank < 0)
			old->local_rank = local_rank;
		if (hd_time_known(when))
			old->time = when;
		return;
	}
	if (pid > 0)
		dedup_seen(c, key);
	hd_signal_init(&sig);
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_PROCESS_EXIT;
	sig.code = (int32_t)clamp_int(code, INT32_MIN, INT32_MAX);
	sig.pid = (int32_t)clamp_int(pid, 0, INT32_MAX);
	sig.rank = rank;
	sig.local_rank = local_rank;
	/*
	 * A full date (the ChildFailedError "time :", a logging date) orders
	 * failures across lines; a glog time of day only within one day.
	 */
	if (hd_time_known(when))
		sig.time = when;
	else if (hd_time_known(d->wrap_time))
		sig.time = d->wrap_time;
	else
		sig.time = d->time;
	nl_add_signal(c, &sig, NULL, d->st, d->text, d->text_len);
	/* a launcher's line: not the process of the stream */
	signal_at(c, last_signal(c))->rank = rank;
}

/*
 * "time : 2024-03-05_14:02:11" of the last RX_CFE_TIME match in m (n
 * bytes): torchrun writes the agent's local time, zone unknown.
 */
static struct hd_time cfe_time(struct nl_ctx *c, const char *m, size_t n)
{
	struct hd_time t = hd_time_none();
	size_t at = c->ov[2];

	if (at >= n || !hd_time_scan_date(m + at, n - at, &t))
		return hd_time_none();
	return t;
}

/*
 * DeepSpeed's launcher (launch.py's sigkill_handler): "[cmd, ...,
 * '--local_rank=0', ...] exits with return code = -9", the command of
 * the worker that failed, after "Killing subprocess P" of the others.
 * An exit known by its local rank, as torchrun's; its pid is not shown.
 */
static bool deepspeed_exit(struct nl_ctx *c, struct nl_c10d *d)
{
	static const char *const flags[] = { "--local_rank=", "--local-rank=" };
	const char *m = d->msg, *e = m + d->msg_len, *q;
	int64_t code, local = -1;

	q = find(m, d->msg_len, " exits with return code = ");
	if (!q)
		return false;
	q += 26;
	if (!scan_int(&q, e, &code))
		return false;
	for (size_t i = 0; i < G_N_ELEMENTS(flags) && local < 0; i++) {
		const char *f = find(m, d->msg_len, flags[i]);

		if (f) {
			f += strlen(flags[i]);
			if (!scan_int(&f, e, &local) || local >= HD_MAX_RANKS)
				local = -1;
		}
	}
	process_exit(c, d, -1, (int)local, code, 0, hd_time_none());
	return true;
}

/* A byte of a Slurm hostlist ("gpu-b17", "gpu-b[17-18,20]"). */
static bool is_hostlist_char(char ch)
{
	return is_host_char(ch) || ch == '.' || ch == '[' || ch == ']' ||
	       ch == ',';
}

/*
 * srun's task id list at *p ("3", "0-3,5") up to the ": " after it:
 * *task the one task it names, or -1 when it names several.  False when
 * it is no such list, or names a task no job has.
 */
static bool srun_task_list(const char **p, const char *e, int64_t *task)
{
	const char *q = *p;
	int64_t lo, hi;
	int n = 0;

	*task = -1;
	for (;;) {
		if (!scan_int(&q, e, &lo) || lo < 0 || lo >= HD_MAX_RANKS)
			return false;
		hi = lo;
		if (q < e && *q == '-') {
			q++;
			if (!scan_int(&q, e, &hi) || hi < lo ||
			    hi >= HD_MAX_RANKS)
				return false;
		}
		n += lo == hi ? 1 : 2;
		if (q < e && *q == ',') {
			q++;
			continue;
		}
		break;
	}
	if (e - q < 2 || q[0] != ':' || q[1] != ' ')
		return false;
	if (n == 1)
		*task = lo;
	*p = q + 2;
	return true;
}

/*
 * The exit code of srun's status text s..e: "Exited with exit code N"
 * (1-255; 0 is no failure, and srun prints it only when verbose), a
 * strsignal() text, "(core dumped)" or not, -N, or "Out Of Memory", the
 * OOM killer's SIGKILL.  False for any other text.
 */
static bool srun_status(const char *s, const char *e, int64_t *code)
{
	const char *q;
	int64_t v;

	if (starts(s, e - s, "Exited with exit code ")) {
		q = s + 22;
		if (!scan_int(&q, e, &v) || q != e || v < 1 || v > 255)
			return false;
		*code = v;
		return true;
	}
	if (e - s == 13 && starts(s, e - s, "Out Of Memory")) {
		*code = -9;
		return true;
	}
	if (e - s > 14 && same(e - 14, " (core dumped)", 14))
		e -= 14;
	if (starts(s, e - s, "Unknown signal ")) {
		q = s + 15;
		if (!scan_int(&q, e, &v) || q != e || v < 1 || v > 64)
			return false;
		*code = -v;
		return true;
	}
	v = pu_signal_of_text(s, e);
	*code = -v;
	return v > 0;
}

/*
 * Slurm's srun, on its stderr, when tasks of its step fail: "srun: error:
 * HOSTS: task 3: Segmentation fault (core dumped)", "...: tasks 0-3,5:
 * Exited with exit code 1", "...: task 3: Out Of Memory".  One task: an
 * exit of that srun task, which is a global rank only where the input
 * shows srun's task ids are ranks (nl-attrib.c); its host when one is
 * named.  Several: the aftermath of a failure, an exit of no rank and no
 * task.  Other srun errors are not exits.
 */
static bool srun_exit(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *e = m + d->msg_len, *p, *host;
	size_t host_len;
	int64_t task, code;
	bool one_host = true;
	struct hd_signal *sig;

	/* after a wrapper's "[date]" */
	while (m < e && (*m == ' ' || *m == '\t'))
		m++;
	if (!starts(m, e - m, "srun: error: "))
		return false;
	p = host = m + 13;
	while (p < e && p - host < 256 && is_hostlist_char(*p)) {
		if (*p == '[' || *p == ',')
			one_host = false;
		p++;
	}
	host_len = (size_t)(p - host);
	if (!host_len || e - p < 2 || p[0] != ':' || p[1] != ' ')
		return false;
	p += 2;
	if (starts(p, e - p, "tasks "))
		p += 6;
	else if (starts(p, e - p, "task "))
		p += 5;
	else
		return false;
	if (!srun_task_list(&p, e, &task))
		return false;
	while (e > p && (e[-1] == ' ' || e[-1] == '\r' || e[-1] == '\t'))
		e--;
	if (!srun_status(p, e, &code))
		return false;
	process_exit(c, d, -1, -1, code, 0, hd_time_none());
	sig = signal_at(c, last_signal(c));
	sig->task = (int32_t)task;
	if (task >= 0 && one_host) {
		const char *h = hd_intern_len(host, host_len);

		sig->host = h == hd_intern_refused ? NULL : h;
	}
	return true;
}

/*
 * "srun: error: Node failure on gpu-a09": Slurm lost a node of the step
 * (its slurmd stopped answering), and the step's tasks there ended with
 * no exit of their own.  One node a line; the same node once.
 */
static bool srun_node_failure(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *e = m + d->msg_len, *host, *p, *h;
	struct hd_signal sig;
	char key[300];

	while (m < e && (*m == ' ' || *m == '\t'))
		m++;
	while (e > m && (e[-1] == ' ' || e[-1] == '\r' || e[-1] == '\t'))
		e--;
	if (!starts(m, e - m, "srun: error: Node failure on "))
		return false;
	host = p = m + 29;
	while (p < e && p - host < 256 && (is_host_char(*p) || *p == '.'))
		p++;
	if (p == host || p != e)
		return false;
	g_snprintf(key, sizeof(key), "N|%.*s", (int)(p - host), host);
	if (dedup_seen(c, key))
		return true;
	h = hd_intern_len(host, (size_t)(p - host));
	hd_signal_init(&sig);
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_NODE_FAILURE;
	c10d_add(c, d, &sig);
	/* srun's line, not of the process whose stream it is in */
	signal_at(c, last_signal(c))->rank = -1;
	signal_at(c, last_signal(c))->host = h == hd_intern_refused ? NULL : h;
	return true;
}

static bool c10d_torchrun(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	struct nl_stream *st = d->st;
	int64_t code, pid, v, local = -1;

	if (has(m, n, "sigkill_handler") && deepspeed_exit(c, d))
		return true;
	if (srun_exit(c, d) || srun_node_failure(c, d))
		return true;

	if (has(m, n, "failed (exitcode:") && rx(c, RX_EXIT, m, n) &&
	    cap_int(c, m, 1, &code) &&
	    (cap_int(c, m, 3, &pid) || cap_int(c, m, 5, &pid))) {
		if (!cap_int(c, m, 2, &local))
			(void)cap_int(c, m, 4, &local);
		process_exit(c, d, -1, (int)clamp_int(local, -1, INT_MAX), code,
			     pid, hd_time_none());
		return true;
	}
	if (has(m, n, "ChildFailedError") || has(m, n, "Failures:") ||
	    has(m, n, "Root Cause (first observed failure)")) {
		st->cfe_left = c->cfe_lines = NL_CFE_LINES;
		st->cfe_rank = -1;
		st->cfe_local = -1;
		st->cfe_time = hd_time_none();
		st->in_tb = false;
		return true;
	}
	if (st->cfe_left <= 0)
		return false;
	if (has(m, n, "time") && rx(c, RX_CFE_TIME, m, n)) {
		st->cfe_time = cfe_time(c, m, n);
		/* a dated line of the agent: the year of its stream's glog
		   times (docs/verdicts.md, "Time") */
		if (!hd_time_is_dated(st->anchor))
			st->anchor = st->cfe_time;
		return true;
	}
	if (has(m, n, "local_rank") && rx(c, RX_CFE_RANK, m, n) &&
	    cap_int(c, m, 1, &v)) {
		st->cfe_rank = (int)clamp_int(v, -1, INT_MAX);
		if (cap_int(c, m, 2, &v))
			st->cfe_local = (int)clamp_int(v, -1, INT_MAX);
		return true;
	}
	if (has(m, n, "exitcode") && rx(c, RX_CFE_EXIT, m, n) &&
	    cap_int(c, m, 1, &code) && cap_int(c, m, 2, &pid)) {
		process_exit(c, d, st->cfe_rank, st->cfe_local, code, pid,
			     st->cfe_time);
		st->cfe_rank = st->cfe_local = -1;
		st->cfe_time = hd_time_none();
		return true;
	}
	return false;
}

/*
 * MPICH's launcher (Hydra), when a process ends badly:
 *   =   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
 *   =   PID 9665 RUNNING AT NeuroRTX6000
 *   =   EXIT CODE: 9
 * then "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal
 * 9)".  One exit of that pid and host, of no rank; the exit string's
 * signal, when it names one, is what ended it.
 */
static bool c10d_hydra(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *e = d->msg + d->msg_len, *q, *h;
	size_t n = d->msg_len;
	struct nl_stream *st = d->st;
	int64_t v;

	if (has(m, n, "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES")) {
		st->hydra_left = 4;
		st->hydra_pid = 0;
		st->hydra_host = NULL;
		st->hydra_exit = -1;
		return true;
	}
	if ((q = find(m, n, "TERMINATED WITH THE EXIT STRING: ")) &&
	    st->hydra_exit >= 0 && st->hydra_exit <= last_signal(c)) {
		const char *sg = find(q, e - q, "(signal ");

		if (sg) {
			sg += 8;
			if (scan_int(&sg, e, &v) && v > 0 && v <= 64)
				signal_at(c, st->hydra_exit)->code =
					(int32_t)-v;
		}
		st->hydra_exit = -1;
		return true;
	}
	/* the block's own lines, "=   PID ...", "=   EXIT CODE: ..." */
	if (st->hydra_left <= 0 || n == 0 || m[0] != '=')
		return false;
	st->hydra_left--;
	if ((q = find(m, n, "PID ")) && find(m, n, " RUNNING AT ")) {
		q += 4;
		if (!scan_int(&q, e, &v) || v <= 0 || v > INT32_MAX)
			return true;
		st->hydra_pid = v;
		h = find(q, e - q, " RUNNING AT ") + 12;
		q = h;
		while (q < e && (is_host_char(*q) || *q == '.'))
			q++;
		st->hydra_host =
			q > h ? hd_intern_len(h, (size_t)(q - h)) : NULL;
		if (st->hydra_host == hd_intern_refused)
			st->hydra_host = NULL;
		return true;
	}
	if ((q = find(m, n, "EXIT CODE: ")) && st->hydra_pid > 0) {
		g_autofree char *t = NULL;

		q += 11;
		if (!scan_int(&q, e, &v) || v < 0 || v > 255)
			return true;
		t = g_strdup_printf(
			"mpiexec (Hydra): BAD TERMINATION of pid %" G_GINT64_FORMAT
			" running at %s, EXIT CODE: %" G_GINT64_FORMAT,
			st->hydra_pid,
			st->hydra_host ? st->hydra_host : "an unnamed host", v);
		d->text = t;
		d->text_len = strlen(t);
		process_exit(c, d, -1, -1, v, st->hydra_pid, hd_time_none());
		d->text = NULL;
		d->text_len = 0;
		signal_at(c, last_signal(c))->host = st->hydra_host;
		st->hydra_exit = last_signal(c);
		st->hydra_left = 0;
		return true;
	}
	return true;
}

/*
 * Open MPI's launcher: "mpirun detected that one or more processes exited
 * with non-zero status ..." then "Process name: [[J,1],N]" and "Exit code:
 * C" (N the MPI rank); or one line, "mpirun noticed that process rank N
 * with PID P on node H exited on signal S (...)".  Each is an exit of
 * rank N, as torchrun's.
 */
static bool c10d_mpirun(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *e = d->msg + d->msg_len, *q;
	size_t n = d->msg_len;
	struct nl_stream *st = d->st;
	int64_t v, pid = 0, code;

	if (has(m, n, "mpirun noticed that process rank ") &&
	    (q = find(m, n, "process rank ")) != NULL) {
		int64_t rank;

		q += 13;
		if (!scan_int(&q, e, &rank) || rank < 0 || rank >= HD_MAX_RANKS)
			return false;
		if ((q = find(q, e - q, "with PID ")) != NULL) {
			q += 9;
			(void)scan_int(&q, e, &pid);
		}
		if ((q = find(m, n, "exited on signal ")) != NULL) {
			q += 17;
			if (!scan_int(&q, e, &v))
				return false;
			code = -v;
		} else if ((q = find(m, n, "exit code ")) != NULL) {
			q += 10;
			if (!scan_int(&q, e, &code))
				return false;
		} else {
			return false;
		}
		process_exit(c, d, (int)clamp_int(rank, -1, INT_MAX), -1, code,
			     pid, hd_time_none());
		return true;
	}
	if (has(m, n, "mpirun detected that one or more processes exited")) {
		st->mpi_left = 12;
		st->mpi_rank = -1;
		return true;
	}
	if (st->mpi_left <= 0)
		return false;
	st->mpi_left--;
	/* "Process name: [[11192,1],8]": the last number is the rank */
	if ((q = find(m, n, "Process name:")) != NULL) {
		const char *close = find(q, e - q, "]]");

		if (!close && (q = find(q, e - q, "],")) != NULL) {
			q += 2;
			if (scan_int(&q, e, &v) && v >= 0 && v < HD_MAX_RANKS)
				st->mpi_rank = (int)v;
		}
		return true;
	}
	if ((q = find(m, n, "Exit code:")) != NULL) {
		q += 10;
		while (q < e && *q == ' ')
			q++;
		if (scan_int(&q, e, &code) && st->mpi_rank >= 0) {
			g_autofree char *t = g_strdup_printf(
				"mpirun: MPI rank %d was the first process to exit non-zero, Exit code: %" G_GINT64_FORMAT,
				st->mpi_rank, code);

			d->text = t;
			d->text_len = strlen(t);
			/* no pid is printed: a key of its own per rank */
			process_exit(c, d, st->mpi_rank, -1, code,
				     -1 - (int64_t)st->mpi_rank,
				     hd_time_none());
			d->text = NULL;
			d->text_len = 0;
		}
		st->mpi_left = 0;
		return true;
	}
	return false;
}

static bool c10d_traceback(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *name;
	size_t n = d->msg_len, nl;
	struct nl_stream *st = d->st;
	bool cuda;

	if (has(m, n, "Traceback (most recent call last)")) {
		st->in_tb = true;
		return true;
	}
	/*
	 * torchelastic's error record printed into the log ("[ERROR] ...
	 * error_handler: {", then "message": {"message": "XError: ...",):
	 * the exception it quotes, as if it ended a traceback.
	 */
	{
		const char *q = m, *e = m + n;

		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (starts(q, e - q, "\"message\": \"")) {
			const char *x = q + 12, *xe = x;

			while (xe < e && *xe != '"')
				xe++;
			if (xe > x &&
			    rx(c, RX_EXCEPTION, x, (size_t)(xe - x))) {
				m = x;
				n = (size_t)(xe - x);
				st->in_tb = true;
			}
		}
	}
	/* "RuntimeError: CUDA error: ..." says what it is without the
	   traceback above it, which a paste often cuts */
	cuda = has(m, n, ": CUDA error: ");
	if ((!st->in_tb && !cuda) || n == 0 || m[0] == ' ' || m[0] == '\t' ||
	    !rx(c, RX_EXCEPTION, m, n) || !cap(c, m, 1, &name, &nl))
		return false;
	cuda = cuda && name + nl + 14 <= m + n &&
	       memcmp(name + nl, ": CUDA error: ", 14) == 0;
	if (!st->in_tb && !cuda)
		return false;
	st->in_tb = false;
	if (has(name, nl, "OutOfMemoryError") || has(m, n, "out of memory"))
		c10d_simple(c, d, HD_SIG_CUDA, HD_SIGT_OOM, "O");
	else if (cuda)
		c10d_simple(c, d, HD_SIG_CUDA, HD_SIGT_CUDA_ERROR, "C");
	else if (is_bootstrap(m, n))
		c10d_simple(c, d, HD_SIG_INIT, HD_SIGT_BOOTSTRAP, NULL);
	else
		c10d_simple(c, d, HD_SIG_CRASH, HD_SIGT_TRACEBACK, NULL);
	return true;
}

/* At most this many op lines are read of one Horovod stall block. */
#define NL_HVD_OPS_MAX 4096

/* At most this many ranks are taken from one list another tool printed. */
#define NL_NAMED_MAX 4096

/*
 * One ranks_named signal per rank of the list at s ("4, 5, 6" up to a
 * byte in stop, or "{3, 4}", "[7]"): what another tool concluded.  kind:
 * 1 never joined (missing), 2 joined and did not finish (lagging).
 */
static void named_ranks(struct nl_ctx *c, struct nl_c10d *d, const char *s,
			const char *e, const char *stop, int kind, int64_t seq,
			const char *op)
{
	int64_t v;
	guint n = 0;

	while (s < e && n < NL_NAMED_MAX) {
		struct hd_signal sig;

		if (strchr(stop, *s))
			break;
		if (!g_ascii_isdigit(*s)) {
			s++;
			continue;
		}
		if (!scan_int(&s, e, &v) || v > INT_MAX)
			break;
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_RANKS_NAMED;
		sig.code = kind;
		sig.seq = seq;
		sig.op_name = op;
		sig.group_name = d->group;
		c10d_add(c, d, &sig);
		signal_at(c, last_signal(c))->rank = (int32_t)v;
		n++;
	}
}

/*
 * Conclusions of other tools that name ranks: Gloo's monitored barrier,
 * the flight-recorder analyzer (fr_trace) and the TORCH_NCCL_DESYNC_DEBUG
 * report.
 */
static bool c10d_named(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *e = d->msg + d->msg_len, *q, *r;
	size_t n = d->msg_len;
	struct nl_stream *st = d->st;
	int64_t v;

	/* "Ranks 4, 5 failed to pass monitoredBarrier in 2000 ms" */
	if ((q = find(m, n, " failed to pass monitoredBarrier"))) {
		r = find(m, q - m, "Ranks ");
		if (!r)
			r = find(m, q - m, "Rank ");
		if (r)
			named_ranks(c, d, r, q, "", 1, -1, NULL);
		return true;
	}
	/*
	 * Horovod's stall inspector: "Stalled ops:", then one line an op,
	 * "HorovodBroadcast_fc_weights_0 [missing ranks: 0]": the ranks
	 * that never submitted it.  Only right after that header (or
	 * another such line) of the same stream.
	 */
	if (starts(m, n, "Stalled ops:")) {
		st->hvd_left = NL_HVD_OPS_MAX;
		return true;
	}
	if (st->hvd_left > 0 && (q = find(m, n, " [missing ranks: ")) &&
	    n > 0 && m[n - 1] == ']' && q > m && !memchr(m, ' ', q - m)) {
		char key[160];

		st->hvd_left--;
		/* the same ranks missing from many ops: named once */
		g_snprintf(key, sizeof(key), "H|%u|%.*s", st->index,
			   (int)MIN(e - (q + 17), 120), q + 17);
		if (!dedup_seen(c, key))
			named_ranks(c, d, q + 17, e - 1, "]", 1, -1, NULL);
		return true;
	}
	st->hvd_left = 0;
	/* fr_trace: "Not all ranks joining collective: sequence number: S" */
	if ((q = find(m, n, "Not all ranks joining collective"))) {
		st->fr_seq = 0;
		st->fr_op = NULL;
		r = find(q, e - q, "sequence number: ");
		if (r && (r += 17) && scan_int(&r, e, &v) && v >= 0)
			st->fr_seq = v;
		return true;
	}
	if (st->fr_seq >= 0 && starts(m, n, "sequence number: ")) {
		r = m + 17;
		if (scan_int(&r, e, &v) && v >= 0)
			st->fr_seq = v;
		return true;
	}
	if (st->fr_seq >= 0 && starts(m, n, "collective: ")) {
		r = m + 12;
		if (starts(r, e - r, "nccl:"))
			r += 5;
		st->fr_op = word_at(r, e);
		return true;
	}
	if (st->fr_seq >= 0 && starts(m, n, "missing ranks: ")) {
		named_ranks(c, d, m + 15, e, "}", 1,
			    st->fr_seq ? st->fr_seq : -1, st->fr_op);
		st->fr_seq = -1;
		return true;
	}
	/* desync report: "[7] finished collective #182, but didn't join
	   collective #183", "[1, 3] joined but didn't finish collective #9" */
	if ((q = find(m, n, "didn't join collective #")) ||
	    (q = find(m, n, "didn't finish collective #"))) {
		bool join = q[7] == 'j';
		const char *hash = memchr(q, '#', e - q);
		/* a "[7] " at the start of a line reads as a rank tag */
		const char *open = memchr(d->line, '[', q - d->line);

		r = hash + 1;
		if (!open || !scan_int(&r, e, &v))
			return false;
		named_ranks(c, d, open + 1, q, "]", join ? 1 : 2, v, NULL);
		return true;
	}
	return false;
}

/* Returns false when the line said nothing this parser knows. */
static bool c10d_dispatch(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	int64_t v;

	if (d->grank >= 0 && d->grank_printed)
		hint_merge(&d->st->c10d_rank, d->grank);
	if (has(m, n, "ncclCommInitRank"))
		d->st->init_call_line = c->lineno;
	if (c10d_err_block(c, d) || c10d_nccl_error(c, d) ||
	    c10d_timeout(c, d) || c10d_status(c, d))
		return true;
	if (c10d_mismatch(c, d) || c10d_named(c, d))
		return true;
	if (has(m, n, "terminated with exception") && has(m, n, "CUDA error")) {
		/* the watchdog died of a CUDA error (2.0+): the rank crashed */
		c10d_simple(c, d, HD_SIG_CUDA, HD_SIGT_CUDA_ERROR, "C");
		return true;
	}
	if (any_of(m, n, store_lost_texts, G_N_ELEMENTS(store_lost_texts))) {
		guint before = c->store->signals->len;

		c10d_simple(c, d, HD_SIG_CRASH, HD_SIGT_STORE_LOST, "L");
		if (c->store->signals->len > before)
			signal_at(c, last_signal(c))->peer =
				store_address(m, n);
		return true;
	}
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
	if (c10d_torchrun(c, d) || c10d_mpirun(c, d) || c10d_hydra(c, d) ||
	    c10d_traceback(c, d))
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
/* clang-format off */
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
	"mismatch",	 "FingerPrint",
	"[c10d]",	 "socket",
	"CUDA error",	 "workers",
	"ranks",	 "monitoredBarrier",
	"collective",	 "restart worker",
	"mpirun",	 "Process name",
	"ncclCommInitRank", "sigkill_handler",
	"srun: error: ",    "Stalled ops:",
	"BAD TERMINATION",  "RUNNING AT",
	"EXIT CODE:",	    "EXIT STRING:",
};
/* clang-format on */

/*
 * The date torchrun's agent put on its line ("[2025-03-05 14:42:12,001]
 * torch.distributed.elastic..."), behind any wrapper: when the workers
 * were restarted, so no record of the next attempt is older.
 */
static struct hd_time agent_time(const char *line, size_t n)
{
	struct nl_wrap w;

	nl_wrap_init(&w);
	(void)nl_strip_front(line, n, &w);
	return hd_time_is_dated(w.time) ? w.time : hd_time_none();
}

void nl_c10d_line(struct nl_ctx *c, const char *line, size_t n)
{
	struct nl_wrap w;
	struct nl_c10d d;
	size_t off;

	/* a ChildFailedError block's "time :" lines have no needle */
	if (c->cfe_lines > 0)
		c->cfe_lines--;
	if (!c->waiting && c->cfe_lines == 0 &&
	    !any_of(line, n, c10d_needles, G_N_ELEMENTS(c10d_needles)))
		return;
	/* torchrun's elastic agent restarts the workers (issue 14) */
	if (has(line, n, "will restart worker group") ||
	    has(line, n, "Restarting workers")) {
		nl_restart(c, c->lineno, agent_time(line, n));
		return;
	}
	life_sync(c);
	nl_wrap_init(&w);
	off = nl_strip_front(line, n, &w);
	d.st = nl_stream_for(c, &w);
	d.line = line;
	d.text = line + off;
	d.text_len = n - off;
	d.wrap_time = hd_time_is_dated(w.time) ? w.time : hd_time_none();
	c10d_prefix(c, d.text, d.text_len, &d);
	if (d.st->cfe_left > 0)
		d.st->cfe_left--;
	c10d_dispatch(c, &d);
}
