/*
 * The NCCL_DEBUG and PyTorch c10d log parser (docs/format-nccl-log.md):
 * the driver.  It reads the lines, strips the wrappers that launchers and
 * collectors put in front of them, joins hard-wrapped records, splits
 * fused ones and attributes torn ones, and hands each record to its
 * grammar: parsers/nccl-record.c for what NCCL prints,
 * parsers/c10d-record.c for PyTorch c10d, torchrun and Python.  What the
 * three share is in parsers/nccl-log-internal.h.
 *
 * One pass over bounded lines.  A line is first tested with one or two
 * scans for an anchor (" NCCL INFO ", " NCCL WARN ", the c10d texts; see
 * find()); lines without one are training chatter and cost nothing more.
 *
 * Attribution: every NCCL record belongs to a process (host:pid).  A
 * process's global rank is decided at end of input, from the strongest
 * evidence seen: a c10d "[rankG]:" prefix in the same output stream, an
 * mpirun/srun rank label, or its rank in its world communicator (the Init
 * COMPLETE with the largest nranks, first created).  Ops are stored as they
 * are read, with the process that made them on the side, and get their rank
 * at end of input; ops of processes whose rank stays unknown are dropped and
 * counted as skipped.
 *
 * Ownership: everything here is per call; the store owns what is added.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include <string.h>

#include "hd-error.h"
#include "hd-hash.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's own state. */
#define NL_WRAP_MAX   4096 /* a hard-wrapped record, joined */
#define NL_WRAP_LINES 4 /* continuation lines joined at most */

/* ------------------------------------------------------------------ */
/* Regular expressions, compiled once per process.                     */

static gpointer rx_compile(gpointer unused)
{
	for (int i = 0; i < RX_COUNT; i++) {
		const char *src = nl_nccl_rx_src[i] ? nl_nccl_rx_src[i]
						    : nl_c10d_rx_src[i];
		int err;
		PCRE2_SIZE off;

		nl_rx_code[i] =
			pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, 0,
				      &err, &off, NULL);
		g_assert(nl_rx_code[i]);
		/* Without a JIT, pcre2_match() interprets: slower, same. */
		(void)pcre2_jit_compile(nl_rx_code[i], PCRE2_JIT_COMPLETE);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Timestamps.                                                         */

/*
 * Dates are read by hd_time_scan_date() (src/core/hd-time.c), the one
 * date parser: with "Z" or an offset a date is UTC, without it local of
 * unknown zone.
 */
static size_t scan_datetime(const char *s, size_t n, struct hd_time *t)
{
	return hd_time_scan_date(s, n, t);
}

/* ------------------------------------------------------------------ */
/* Wrappers.                                                           */

/* mpirun "[job,rank]<stdout>:" */
static size_t strip_mpirun(const char *p, size_t rem, struct nl_wrap *w)
{
	const char *q = p + 1, *e = p + rem;
	int64_t v, r;

	if (!scan_int(&q, e, &v) || q >= e || *q != ',')
		return 0;
	q++;
	if (!scan_int(&q, e, &r) || q >= e || *q != ']')
		return 0;
	q++;
	if (e - q >= 9 && q[0] == '<' &&
	    (starts(q, e - q, "<stdout>:") || starts(q, e - q, "<stderr>:"))) {
		w->mpi_rank = (int)clamp_int(r, 0, INT_MAX);
		return q + 9 - p;
	}
	return 0;
}

/* torchrun "[defaultN]:" */
static size_t strip_torchrun(const char *p, size_t rem, struct nl_wrap *w)
{
	const char *q, *e = p + rem;
	int64_t v;

	if (!starts(p, rem, "[default"))
		return 0;
	q = p + 8;
	if (scan_int(&q, e, &v) && q + 1 < e && q[0] == ']' && q[1] == ':') {
		w->local_rank = (int)clamp_int(v, 0, INT_MAX);
		return q + 2 - p;
	}
	return 0;
}

/* "[YYYY-MM-DD hh:mm:ss]" of a collector, or NCCL's own time */
static size_t strip_bracket_time(const char *p, size_t rem, struct nl_wrap *w)
{
	struct hd_time t;
	size_t used = scan_datetime(p + 1, rem - 1, &t);

	if (!used)
		return 0;
	w->time = t;
	used += 1;
	return used < rem && p[used] == ']' ? used + 1 : 0;
}

/*
 * "[N] ": a rank or viewer tag; or horovod's "[N]" glued to the record
 * ("[15]node-a:83:91 [0] ..."), which ends the wrapper text before a
 * record prefix.
 */
static size_t strip_tag_rank(const char *p, size_t rem, struct nl_wrap *w)
{
	const char *q = p + 1, *e = p + rem;
	int64_t v;

	if (scan_int(&q, e, &v) && v >= 0 && q < e && q[0] == ']' &&
	    (q + 1 == e || q[1] == ' ')) {
		if (q + 1 == e) {
			w->tag_rank = (int)clamp_int(v, 0, INT_MAX);
			return q + 1 - p;
		}
		w->tag_rank = (int)clamp_int(v, 0, INT_MAX);
		return q + 2 - p;
	}
	return 0;
}

/* a bare ANSI colour "[36m" */
static size_t strip_bare_colour(const char *p, size_t rem)
{
	const char *q = p + 1, *e = p + rem;

	while (q < e && (g_ascii_isdigit(*q) || *q == ';'))
		q++;
	return q > p + 1 && q < e && *q == 'm' ? (size_t)(q + 1 - p) : 0;
}

/* The wrappers that open with '[', tried in this order. */
static size_t strip_bracket(const char *p, size_t rem, struct nl_wrap *w)
{
	size_t used = strip_mpirun(p, rem, w);

	if (!used)
		used = strip_torchrun(p, rem, w);
	if (!used)
		used = strip_bracket_time(p, rem, w);
	if (!used)
		used = strip_tag_rank(p, rem, w);
	if (!used)
		used = strip_bare_colour(p, rem);
	/* [stdout] / [stderr] viewer tags */
	if (!used &&
	    (starts(p, rem, "[stdout] ") || starts(p, rem, "[stderr] ")))
		used = 9;
	return used;
}

/* Ray "(WorkerDict pid=4242, ip=10.1.0.5) ", whose ") " is at q. */
static size_t strip_ray(const char *p, const char *q, struct nl_wrap *w)
{
	const char *pid = find(p, q - p, "pid=");
	int64_t v;

	if (!pid)
		return 0;
	pid += 4;
	if (scan_int(&pid, q, &v))
		w->ray_pid = (int)clamp_int(v, 0, INT_MAX);
	return q + 2 - p;
}

/* An escape written out as text: "^[[0;36m". */
static size_t strip_caret_escape(const char *p, size_t rem)
{
	const char *q = p + 3, *e = p + rem;

	while (q < e && (g_ascii_isdigit(*q) || *q == ';'))
		q++;
	return q < e && g_ascii_isalpha(*q) ? (size_t)(q + 1 - p) : 0;
}

/* A collector's date: "2024-03-05T14:02:11Z: ", "... host >> ". */
static size_t strip_date(const char *p, size_t rem, struct nl_wrap *w)
{
	const char *q;
	struct hd_time t;
	size_t used = scan_datetime(p, rem, &t);

	if (!used)
		return 0;
	w->time = t;
	if (used + 1 < rem && p[used] == ':' && p[used + 1] == ' ') {
		used += 2;
	} else if (used < rem && p[used] == ' ') {
		/* "host >> " of a collector */
		q = find(p + used, MIN(rem - used, 80), " >> ");
		used++;
		if (q)
			used = q + 4 - p;
	}
	return used;
}

/* srun task "12: " */
static size_t strip_srun_task(const char *p, size_t rem, struct nl_wrap *w)
{
	const char *q = p, *e = p + rem;
	int64_t v;

	if (scan_int(&q, e, &v) && q + 1 < e && q[0] == ':' && q[1] == ' ') {
		w->srun_task = (int)clamp_int(v, 0, INT_MAX);
		return q + 2 - p;
	}
	return 0;
}

/* pdsh "host: ", or "bench.node-a [stderr] " */
static size_t strip_host(const char *p, size_t rem, struct nl_wrap *w)
{
	size_t k = 0;
	bool hosty = false;

	while (k < rem && k < 64 && (is_host_char(p[k]) || p[k] == '.')) {
		if (g_ascii_isdigit(p[k]) || p[k] == '-')
			hosty = true;
		k++;
	}
	if (hosty && k + 1 < rem && p[k] == ':' && p[k + 1] == ' ') {
		w->host = p;
		w->host_len = k;
		return k + 2;
	}
	if (k + 9 <= rem && p[k] == ' ' &&
	    (starts(p + k + 1, rem - k - 1, "[stderr] ") ||
	     starts(p + k + 1, rem - k - 1, "[stdout] ")))
		return k + 10;
	return 0;
}

size_t nl_strip_front(const char *s, size_t n, struct nl_wrap *w)
{
	size_t at = 0;

	for (int round = 0; round < 12 && at < n; round++) {
		const char *p = s + at, *q;
		size_t rem = n - at, used = 0;
		struct hd_time t;

		if (p[0] == '[') {
			used = strip_bracket(p, rem, w);
		} else if (p[0] == '(' && (q = find(p, MIN(rem, 256), ") "))) {
			used = strip_ray(p, q, w);
		} else if (p[0] == ' ' && rem > 1 && g_ascii_isdigit(p[1])) {
			/* the space before a date: the date is next */
			used = scan_datetime(p + 1, rem - 1, &t) ? 1 : 0;
		} else if (starts(p, rem, "^[[")) {
			used = strip_caret_escape(p, rem);
		} else if (g_ascii_isdigit(p[0])) {
			used = strip_date(p, rem, w);
			if (!used)
				used = strip_srun_task(p, rem, w);
		}
		if (!used && is_host_char(p[0]))
			used = strip_host(p, rem, w);
		if (!used)
			break;
		at += used;
	}
	return at;
}

/* ------------------------------------------------------------------ */
/* Lines.                                                              */

/* Removes ESC sequences; out holds at least n bytes. */
static size_t strip_ansi(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != 0x1b) {
			out[o++] = s[i];
			continue;
		}
		if (i + 1 < n && s[i + 1] == '[') {
			size_t j = i + 2;

			while (j < n && (g_ascii_isdigit(s[j]) || s[j] == ';' ||
					 s[j] == '?'))
				j++;
			i = j < n ? j : n - 1;
		} else if (i + 1 < n) {
			i++;
		}
	}
	return o;
}

/*
 * Finds the next NCCL record anchor in [s, e): the 'N' of "NCCL " with
 * a level word after it, or a bare version line.  *lvl receives the
 * level word.
 */
static const char *nccl_anchor(const char *line, const char *s, const char *e,
			       const char **lvl)
{
	const char *q;

	while ((q = find(s, e - s, "NCCL ")) != NULL) {
		const char *l = q + 5;
		size_t rem = e - l;

		s = l;
		/*
		 * After a space, or at column 0: a reporter cut the prefix
		 * off ("NCCL WARN NET/IB : ..."); read without a process.
		 */
		if ((q == line || q[-1] == ' ') &&
		    (starts(l, rem, "INFO ") || starts(l, rem, "WARN ") ||
		     starts(l, rem, "CALL ") || starts(l, rem, "TRACE ") ||
		     starts(l, rem, "ABORT") ||
		     (rem == 4 &&
		      (starts(l, rem, "INFO") || starts(l, rem, "WARN"))))) {
			*lvl = l;
			return q;
		}
		if (starts(l, rem, "version ")) {
			struct nl_wrap w;

			nl_wrap_init(&w);
			if (nl_strip_front(line, q - line, &w) ==
			    (size_t)(q - line)) {
				*lvl = l;
				return q;
			}
		}
	}
	return NULL;
}

/* A second record fused onto this one: where it starts, or NULL. */
static const char *fused_next(const char *body, const char *e)
{
	const char *s = body, *q;

	while ((q = find(s, e - s, " NCCL ")) != NULL) {
		struct nl_rec r;

		s = q + 6;
		if (!starts(s, e - s, "INFO ") && !starts(s, e - s, "WARN "))
			continue;
		if (nl_rec_prefix_walk(body, q + 1, &r) && r.has_hpt)
			return r.start;
	}
	return NULL;
}

/*
 * "include/socket.h:344" at s: a source file and line, as NCCL prints
 * them before the level word (relative, or absolute for RCCL).
 */
static bool is_file_line(const char *s, size_t n)
{
	const char *colon = NULL;
	bool dot = false;
	size_t k;

	for (k = 0; k < n && k < 256 && s[k] != ' '; k++) {
		if (s[k] == ':')
			colon = s + k;
		else if (s[k] == '.')
			dot = true;
	}
	if (!colon || !dot || colon == s || colon + 1 == s + k)
		return false;
	for (const char *d = colon + 1; d < s + k; d++)
		if (!g_ascii_isdigit(*d))
			return false;
	return true;
}

static bool tier2_old_nccl(struct nl_ctx *c, const char *line, size_t n)
{
	const char *q, *lvl = NULL;
	struct nl_rec r;
	struct nl_wrap w;
	size_t off;

	if ((q = find(line, n, "] INFO ")))
		lvl = q + 2;
	else if ((q = find(line, n, " WARN ")))
		lvl = q + 1;
	if (!lvl)
		return false;
	if (nl_rec_prefix(c, line, lvl, &r) && r.has_hpt && r.dev >= 0) {
		nl_handle_nccl(c, line, lvl, lvl, line + n, true);
		return true;
	}
	/* "F:L WARN msg" of 2.2 pasted without "host:pid:tid [dev]" */
	if (lvl[0] != 'W')
		return false;
	nl_wrap_init(&w);
	off = nl_strip_front(line, n, &w);
	if (line + off >= lvl ||
	    !is_file_line(line + off, lvl - 1 - line - off))
		return false;
	for (const char *t = line + off; t < lvl - 1; t++)
		if (*t == ' ')
			return false;
	nl_handle_nccl(c, line, lvl, lvl, line + n, true);
	return true;
}

/*
 * WARN bodies that are NCCL's own words even with no "NCCL WARN" before
 * them (a reporter pasted only the message).  Only at the start of the
 * line, after wrappers: the same words inside other text are not NCCL's.
 */
static const char *const known_bodies[] = {
	"NET/IB : Got completion",
	"NET/IB: Got completion",
	"NET/IB : Got async event",
	"NET/IB : collective mismatch error",
	"Net : Connection closed by remote peer",
	"Net : Call to recv from",
	"Duplicate GPU detected : rank",
	"Call to ibv_",
	"ncclSocketInit: connecting to address",
};

static bool tier3_known_body(struct nl_ctx *c, const char *line, size_t n)
{
	struct nl_wrap w;
	size_t off;
	const char *b;

	/* a line that belongs to an open c10d error block is not ours */
	if (c->waiting || n < 12)
		return false;
	nl_wrap_init(&w);
	off = nl_strip_front(line, n, &w);
	/* TorchX "[role|N]:" and "[roleN]:" */
	if (off < n && line[off] == '[') {
		const char *q = memchr(line + off, ']', MIN(n - off, 64));

		if (q && q + 1 < line + n && q[1] == ':')
			off = q + 2 - line;
	}
	b = line + off;
	if (n - off < 12 || (b[0] != 'N' && b[0] != 'D' && b[0] != 'C' &&
			     b[0] != 'n' && b[0] != 'R'))
		return false;
	/* RCCL's banner: "RCCL version 2.20.5+hip6.2 ..." */
	if (starts(b, n - off, "RCCL version "))
		return nl_parse_version(c, NULL, b, n - off);
	for (size_t i = 0; i < G_N_ELEMENTS(known_bodies); i++) {
		if (starts(b, n - off, known_bodies[i])) {
			nl_handle_bare_warn(c, b, line + n);
			return true;
		}
	}
	return false;
}

/* A COLL body that lost its prefix (torn line). */
static bool tier2_torn(struct nl_ctx *c, const char *line, size_t n,
		       struct nl_proc *torn)
{
	struct nl_wrap w;
	size_t off, name_len;
	int which;
	struct nl_stream *st;
	struct nl_proc *p;

	if (!find(line, n, ": opCount "))
		return false;
	nl_wrap_init(&w);
	off = nl_strip_front(line, n, &w);
	while (off < n && line[off] == ' ')
		off++;
	which = nl_coll_op(line + off, n - off, &name_len);
	if (which < 0)
		return false;
	st = nl_stream_for(c, &w);
	p = torn ? torn : (st->proc && !st->multi) ? st->proc : NULL;
	if (!p) {
		nl_skip(c,
			"torn COLL record: body without a prefix, provenance "
			"unknown");
		return true;
	}
	hd_input_warn(c->in, c->lineno,
		      "torn COLL record: body without a prefix, attributed to "
		      "%s:%d",
		      p->host, p->pid);
	nl_parse_coll(c, p, which, line + off, n - off, name_len, false);
	return true;
}

static void process_line(struct nl_ctx *c, const char *line, size_t n)
{
	const char *e, *a, *lvl, *q;
	struct nl_proc *torn = c->torn_proc;
	int rec;

	c->torn_proc = NULL;
	if (memchr(line, 0x1b, n)) {
		n = strip_ansi(line, n, c->clean);
		line = c->clean;
	}
	/* Ray's dedup suffix: the line stands for several ranks */
	if (n > 0 && line[n - 1] == ']' && (q = find(line, n, " [repeated ")) &&
	    has(q, line + n - q, "across cluster]"))
		n = q - line;
	e = line + n;
	for (rec = 0; rec < 16; rec++) {
		const char *next = NULL, *end = e;

		a = nccl_anchor(line, line, e, &lvl);
		if (!a)
			break;
		if (lvl[0] == 'v') {
			/* bare version line: comm-rank-0 processes only */
			nl_parse_version(c, NULL, a, e - a);
			return;
		}
		if ((lvl[0] == 'I' || lvl[0] == 'W') && lvl + 5 < e) {
			size_t nl;

			/*
			 * A COLL record parses up to its stream pointer: only
			 * text left after it can be a fused record, so the
			 * common line pays no second scan.
			 */
			if (lvl[0] == 'I' &&
			    nl_coll_op(lvl + 5, e - lvl - 5, &nl) >= 0) {
				c->coll_stop = NULL;
				nl_handle_nccl(c, line, a, lvl, e, false);
				if (!c->coll_stop || e - c->coll_stop < 8)
					return;
				next = fused_next(c->coll_stop, e);
				if (!next)
					return;
				line = next;
				continue;
			}
			next = fused_next(lvl + 5, e);
			if (next) {
				end = next;
				while (end > lvl + 5 && end[-1] == ' ')
					end--;
			}
		}
		nl_handle_nccl(c, line, a, lvl, end, false);
		if (!next)
			return;
		line = next;
	}
	if (rec > 0)
		return;
	if (nl_crash_line(c, line, n))
		return;
	if (tier2_old_nccl(c, line, n) || tier2_torn(c, line, n, torn) ||
	    tier3_known_body(c, line, n) || nl_ras_line(c, line, n) ||
	    nl_test_failure_line(c, line, n))
		return;
	nl_c10d_line(c, line, n);
}

/* Whether the parentheses from q to e are left open. */
static bool parens_open(const char *q, const char *e)
{
	int depth = 0;

	for (; q < e; q++) {
		if (*q == '(')
			depth++;
		else if (*q == ')' && depth > 0)
			depth--;
	}
	return depth > 0;
}

/* c10d texts a terminal may break just before their record. */
#define TAIL(s)                  \
	{                        \
		s, sizeof(s) - 1 \
	}
static const struct {
	const char *s;
	size_t len;
} wrap_tails[] = {
	TAIL("operation timeout:"), /* ... WorkNCCL(...) on the next line */
	TAIL("thread terminated"), /* ... with exception: ... */
	TAIL(") detected"), /* ... by watchdog at work: ... */
	TAIL("last enqueued"), /* ... NCCL work: ... */
};
#undef TAIL

/*
 * Whether a line opens a c10d record that a terminal may have
 * hard-wrapped: a WorkNCCL( or CollectiveFingerPrint( record left open,
 * or a watchdog text cut just before its record.  holds_record: the
 * line has the record's opening itself.
 */
static bool opens_wrap(const char *line, size_t n, bool *holds_record)
{
	const char *q = NULL;
	size_t k = n;

	/* both records open with '(': most lines (COLL records) have none */
	if (memchr(line, '(', n)) {
		q = find(line, n, "WorkNCCL(");
		if (!q)
			q = find(line, n, "CollectiveFingerPrint(");
	}
	*holds_record = q != NULL;
	if (n < 60)
		return false;
	if (q)
		return parens_open(q, line + n);
	while (k > 0 && line[k - 1] == ' ')
		k--;
	/* every tail ends in ':' or 'd': most lines are done here */
	if (k == 0 || (line[k - 1] != ':' && line[k - 1] != 'd'))
		return false;
	for (size_t i = 0; i < G_N_ELEMENTS(wrap_tails); i++) {
		size_t t = wrap_tails[i].len;

		if (k >= t && memcmp(line + k - t, wrap_tails[i].s, t) == 0)
			return true;
	}
	return false;
}

/*
 * Whether a line may continue a held wrapped record: it starts no record
 * of its own (no wrapper, no bracketed prefix, no NCCL anchor); a
 * "WorkNCCL(" line continues a text cut just before it.
 */
static bool continues_wrap(struct nl_ctx *c, const char *line, size_t n)
{
	struct nl_wrap w;
	bool held;

	if (n == 0 || line[0] == '[' || has(line, n, " NCCL INFO ") ||
	    has(line, n, " NCCL WARN ") || has(line, n, "[rank"))
		return false;
	if (starts(line, n, "WorkNCCL("))
		return !(opens_wrap(c->wrap->str, c->wrap->len, &held) && held);
	if (has(line, n, "WorkNCCL(") || has(line, n, "Detected mismatch") ||
	    has(line, n, "Traceback") || has(line, n, "Error: "))
		return false;
	nl_wrap_init(&w);
	return nl_strip_front(line, n, &w) == 0;
}

static void flush_wrap(struct nl_ctx *c)
{
	uint64_t saved = c->lineno;

	if (!c->wrap->len)
		return;
	c->lineno = c->wrap_line;
	process_line(c, c->wrap->str, c->wrap->len);
	c->lineno = saved;
	g_string_truncate(c->wrap, 0);
	c->wrap_count = 0;
}

static void feed_line(struct nl_ctx *c, const char *line, size_t n, bool cut)
{
	bool held;

	if (cut && !c->warned_cut) {
		c->warned_cut = true;
		hd_input_warn(c->in, c->lineno,
			      "line longer than %d bytes, cut (warned once)",
			      HD_LINE_MAX);
	}
	if (c->wrap->len) {
		if (!cut && continues_wrap(c, line, n) &&
		    c->wrap_count < NL_WRAP_LINES &&
		    c->wrap->len + n <= NL_WRAP_MAX) {
			g_string_append_len(c->wrap, line, n);
			c->wrap_count++;
			if (!opens_wrap(c->wrap->str, c->wrap->len, &held))
				flush_wrap(c);
			return;
		}
		flush_wrap(c);
	}
	if (!cut && opens_wrap(line, n, &held) && n < NL_WRAP_MAX) {
		g_string_append_len(c->wrap, line, n);
		c->wrap_line = c->lineno;
		c->wrap_count = 0;
		return;
	}
	process_line(c, line, n);
}

/* ------------------------------------------------------------------ */
/* End of input: ranks, groups, and the fix-ups they allow.            */

static int proc_rank(const struct nl_proc *p)
{
	if (p->c10d_rank >= 0)
		return p->c10d_rank;
	if (p->hint_rank >= 0)
		return p->hint_rank;
	if (p->world_rank >= 0)
		return p->world_rank;
	if (p->tag_rank >= 0)
		return p->tag_rank;
	return -1;
}

/*
 * The one rank all of an input's records belong to: rank is the last seen
 * (-1 none), one turns false once two differ.
 */
struct nl_input_rank {
	int rank;
	bool one;
};

static void input_rank_see(struct nl_input_rank *ir, int rank)
{
	if (ir->rank >= 0 && ir->rank != rank)
		ir->one = false;
	ir->rank = rank;
}

/* Decides each process's global rank from the strongest evidence seen. */
static void decide_ranks(struct nl_ctx *c)
{
	bool srun_not_ranks = false;

	for (guint i = 0; i < c->streams->len; i++) {
		struct nl_stream *st = g_ptr_array_index(c->streams, i);

		if (st->proc && !st->multi && st->c10d_rank >= 0)
			hint_merge(&st->proc->c10d_rank, st->c10d_rank);
		/*
		 * srun -l labels lines with its task id, which is the rank
		 * only when srun starts one task per rank; with one torchrun
		 * per node it is the node's index.  A "2: [rank18]:" line
		 * shows which: then no label in this input is a rank.
		 */
		if (st->hint_srun && st->c10d_rank >= 0 &&
		    st->c10d_rank != st->hint_rank)
			srun_not_ranks = true;
	}
	for (guint i = 0; i < c->procs->len && srun_not_ranks; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if (p->hint_srun)
			p->hint_rank = -1;
	}
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		p->rank = proc_rank(p);
	}
}

/*
 * Ops: the rank of their process.  A process whose rank stays unknown
 * keeps its ops under an anonymous rank (-2, -3, ... in order of first
 * op), so that the engine can still compare them across processes.
 */
static void attribute_ops(struct nl_ctx *c)
{
	GArray *ops = c->store->ops;
	int nanon = 0;

	for (guint i = c->op_base; i < ops->len; i++) {
		struct hd_op *op = &g_array_index(ops, struct hd_op, i);
		uint32_t pi =
			g_array_index(c->op_proc, uint32_t, i - c->op_base);
		struct nl_proc *p = g_ptr_array_index(c->procs, pi);

		if (p->rank < 0) {
			if (!p->anon && nanon < INT_MAX - 2)
				p->anon = -2 - nanon++;
			p->ndropped++;
			op->rank = p->anon;
			continue;
		}
		op->rank = p->rank;
	}
}

/* Names each anonymous process of attribute_ops() with a signal. */
static void name_anonymous(struct nl_ctx *c)
{
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);
		struct hd_signal sig;

		if (!p->anon)
			continue;
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_ANON_PROC;
		sig.rank = p->anon;
		sig.host = p->host;
		sig.pid = p->pid;
		sig.code = p->dev;
		sig.seq = (int64_t)p->ndropped;
		sig.prov.input = c->input;
		sig.prov.kind = HD_PROV_NONE;
		hd_store_add_signal(c->store, &sig);
		hd_input_warn(c->in, 0,
			      "rank unknown for %s:%d, its %" G_GUINT64_FORMAT
			      " ops kept as an anonymous process",
			      p->host, p->pid, p->ndropped);
	}
}

/* Signals: the rank of their process or stream. */
/*
 * A stream whose lines showed events on a UTC date and on its own local
 * time gives its local clock's offset; *offset, or false.  Two such lines
 * at least 10 s apart must agree: both on the offset, and on how much
 * time passed (within a tenth), so that a date a collector stamped when
 * it copied the file (the same date on every line) aligns nothing.
 */
static bool stream_offset(struct nl_ctx *c, struct nl_stream *st,
			  int64_t *offset)
{
	struct hd_time first = st->pair_local, last = st->last_local;
	int64_t a, b, span, drift;

	if (!hd_time_known(first) || !hd_time_known(last))
		return false;
	if (!hd_time_infer_year(&first, st->anchor))
		(void)hd_time_infer_year(&first, c->dflt->anchor);
	if (!hd_time_infer_year(&last, st->anchor))
		(void)hd_time_infer_year(&last, c->dflt->anchor);
	if (!hd_time_align_offset(first, st->pair_utc, &a) ||
	    !hd_time_align_offset(last, st->last_utc, &b) || a != b)
		return false;
	span = last.ns - first.ns;
	drift = (st->last_utc.ns - st->pair_utc.ns) - span;
	if (span < 10 * HD_NS_PER_SEC || drift > span / 10 ||
	    drift < -span / 10)
		return false;
	*offset = a;
	return true;
}

static void attribute_signals(struct nl_ctx *c, struct nl_input_rank *ir)
{
	g_autofree int64_t *offset = g_new(int64_t, c->streams->len);
	g_autofree bool *aligned = g_new0(bool, c->streams->len);

	for (guint k = 0; k < c->streams->len; k++)
		aligned[k] = stream_offset(c, g_ptr_array_index(c->streams, k),
					   &offset[k]);
	for (guint i = c->sig_base; i < c->store->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(c->store->signals, struct hd_signal, i);
		int32_t pi =
			g_array_index(c->sig_proc, int32_t, i - c->sig_base);
		struct nl_stream *st = g_ptr_array_index(
			c->streams, g_array_index(c->sig_stream, uint32_t,
						  i - c->sig_base));
		struct nl_proc *p =
			pi >= 0 ? g_ptr_array_index(c->procs, pi) : NULL;

		if (!p && st->proc && !st->multi &&
		    sig->type != HD_SIGT_PROCESS_EXIT)
			p = st->proc;
		/* glog's month and day take the year of a dated record of
		   the same stream, else of the file's unlabelled lines */
		if (!hd_time_infer_year(&sig->time, st->anchor))
			(void)hd_time_infer_year(&sig->time, c->dflt->anchor);
		/* the stream's local clock aligned to UTC by evidence */
		if (aligned[st->index] && sig->time.clock == HD_CLOCK_LOCAL)
			sig->time = hd_time_make(
				sig->time.ns - offset[st->index], HD_CLOCK_UTC);
		if (sig->rank < 0 && p)
			sig->rank = p->rank;
		if (sig->rank < 0 && st->c10d_rank >= 0 &&
		    sig->type != HD_SIGT_PROCESS_EXIT)
			sig->rank = st->c10d_rank;
		if (!sig->host && p) {
			sig->host = p->host;
			sig->pid = p->pid;
		}
		if (sig->rank >= 0) {
			hd_rank_add_input(hd_store_rank(c->store, sig->rank),
					  c->input);
			if (sig->type != HD_SIGT_PROCESS_EXIT)
				input_rank_see(ir, sig->rank);
		}
	}
}

/* Groups and ranks: what each process with a rank tells of them. */
static void fill_ranks(struct nl_ctx *c, struct nl_input_rank *ir)
{
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);
		struct hd_rank *r;

		if (p->rank < 0)
			continue;
		input_rank_see(ir, p->rank);
		for (guint k = 0; k < p->comms->len; k++) {
			struct nl_comm *cm = g_ptr_array_index(p->comms, k);

			if (cm->group >= 0 && cm->rank >= 0)
				hd_group_set_member(
					hd_store_group_at(c->store,
							  (uint32_t)cm->group),
					cm->rank, p->rank);
		}
		r = hd_store_rank(c->store, p->rank);
		if (!r->host && p->host[0])
			r->host = p->host;
		if (!r->addr)
			r->addr = p->addr;
		if (!r->pid)
			r->pid = p->pid;
		if (r->cuda_dev < 0)
			r->cuda_dev = p->world_dev;
		if (!r->bus_id)
			r->bus_id = p->world_bus;
		if (!r->nccl_version)
			r->nccl_version = nl_proc_version(c, p);
		hd_rank_add_input(r, c->input);
	}
}

/* Says how many COLL records each process had twice. */
static void note_duplicates(struct nl_ctx *c)
{
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if (p->ndup)
			hd_input_warn(c->in, 0,
				      "%" G_GUINT64_FORMAT
				      " records of %s:%d read twice "
				      "(a log shipper's repeat, or the same "
				      "log twice): read once",
				      p->ndup, p->host, p->pid);
	}
}

/*
 * The slot a process fills: its first stream and its rank (when the rank
 * is unknown, its host and device).  A later process in the same slot, begun
 * after the earlier one's last record, is a restart of it; processes in
 * other slots (logs of other ranks concatenated, a console sorted by
 * rank) are not, wherever they sit in the file.
 */
static char *proc_slot(const struct nl_proc *p)
{
	if (p->rank >= 0)
		return g_strdup_printf("%u rank %d", p->stream, p->rank);
	return g_strdup_printf("%u %s dev %d", p->stream, p->host, p->dev);
}

/* Whether torchrun said it restarts the workers between lines a and b. */
static bool restart_between(const struct nl_ctx *c, uint64_t a, uint64_t b)
{
	for (guint i = 0; i < c->restarts->len; i++) {
		uint64_t l = g_array_index(c->restarts, uint64_t, i);

		if (l >= a && l <= b)
			return true;
	}
	return false;
}

/* Numbers each process's attempt; returns how many attempts there are. */
static guint number_attempts(struct nl_ctx *c)
{
	g_autoptr(GHashTable) last =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint most = 1;

	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);
		char *slot = proc_slot(p);
		struct nl_proc *q = g_hash_table_lookup(last, slot);

		p->attempt = 1;
		if (q && p->first_line) {
			/* overlapping: two processes at once, not a restart */
			p->attempt = q->last_line < p->first_line &&
						     q->attempt < G_MAXUINT16
					     ? q->attempt + 1
					     : q->attempt;
		}
		most = MAX(most, p->attempt);
		g_hash_table_replace(last, slot, p);
	}
	return most;
}

/*
 * The attempt of a signal made by no process: that of the latest process
 * of its stream (of its rank, when it has one) begun at or before it,
 * else the first of its stream, else 1.
 */
static uint16_t signal_attempt(const struct nl_ctx *c,
			       const struct hd_signal *sig, uint32_t stream)
{
	const struct nl_proc *best = NULL, *first = NULL;

	for (guint i = 0; i < c->procs->len; i++) {
		const struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if (p->stream != stream || !p->first_line ||
		    (sig->rank >= 0 && p->rank >= 0 && p->rank != sig->rank))
			continue;
		if (!first)
			first = p;
		if (p->first_line <= sig->prov.at &&
		    (!best || p->first_line >= best->first_line))
			best = p;
	}
	if (!best)
		best = first;
	return best ? best->attempt : 1;
}

/* Widens an attempt's span of lines to cover first..last. */
static void span_add(struct hd_attempt *at, uint64_t first, uint64_t last)
{
	if (!at->first_line || first < at->first_line)
		at->first_line = first;
	at->last_line = MAX(at->last_line, last);
}

/*
 * Job attempts, per process (issue 20): each record takes the attempt of
 * its process, and each attempt's lines are the span of its processes'.
 */
static void split_attempts(struct nl_ctx *c)
{
	guint n = number_attempts(c);
	GArray *ops = c->store->ops, *sigs = c->store->signals;
	uint64_t orphans = 0;
	bool sig_search;
	const struct nl_proc *latest = NULL;
	guint swept = 0;

	if (n < 2)
		return;
	/* a signal of no process searches the processes: bounded work */
	for (guint i = 0; i < c->sig_proc->len; i++)
		orphans += g_array_index(c->sig_proc, int32_t, i) < 0;
	sig_search = orphans * c->procs->len <= (UINT64_C(1) << 26);
	for (guint k = 0; k < n; k++)
		(void)hd_input_new_attempt(c->in);
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if (!p->first_line)
			continue;
		span_add(&g_array_index(c->in->attempts, struct hd_attempt,
					p->attempt - 1),
			 p->first_line, p->last_line);
	}
	for (guint k = 0; k + 1 < n; k++) {
		struct hd_attempt *at =
			&g_array_index(c->in->attempts, struct hd_attempt, k);
		const struct hd_attempt *next = &g_array_index(
			c->in->attempts, struct hd_attempt, k + 1);

		at->end = restart_between(c, at->first_line, next->first_line)
				  ? "a torchrun restart"
				  : "a new process of the same rank";
	}
	for (guint i = c->op_base; i < ops->len; i++) {
		struct hd_op *op = &g_array_index(ops, struct hd_op, i);
		const struct nl_proc *p = g_ptr_array_index(
			c->procs,
			g_array_index(c->op_proc, uint32_t, i - c->op_base));

		op->prov.attempt = p->attempt;
	}
	for (guint i = c->sig_base; i < sigs->len; i++) {
		struct hd_signal *sig =
			&g_array_index(sigs, struct hd_signal, i);
		int32_t pi =
			g_array_index(c->sig_proc, int32_t, i - c->sig_base);
		uint32_t st =
			g_array_index(c->sig_stream, uint32_t, i - c->sig_base);

		/* the latest process begun before it, of any stream */
		while (swept < c->procs->len &&
		       ((const struct nl_proc *)g_ptr_array_index(c->procs,
								  swept))
				       ->first_line <= sig->prov.at)
			latest = g_ptr_array_index(c->procs, swept++);
		if (pi >= 0)
			sig->prov.attempt =
				((const struct nl_proc *)g_ptr_array_index(
					 c->procs, pi))
					->attempt;
		else if (sig_search)
			sig->prov.attempt = signal_attempt(c, sig, st);
		else
			sig->prov.attempt = latest ? latest->attempt : 1;
		if (sig->prov.attempt && sig->prov.kind == HD_PROV_LINE)
			span_add(&g_array_index(c->in->attempts,
						struct hd_attempt,
						sig->prov.attempt - 1),
				 sig->prov.at, sig->prov.at);
	}
}

static void finish(struct nl_ctx *c)
{
	struct nl_input_rank ir = { .rank = -1, .one = true };

	flush_wrap(c);
	nl_crash_flush(c);
	decide_ranks(c);
	split_attempts(c);
	note_duplicates(c);
	attribute_ops(c);
	attribute_signals(c, &ir);
	name_anonymous(c);
	fill_ranks(c, &ir);
	if (ir.one && ir.rank >= 0)
		c->in->rank = ir.rank;
}

/* Sets up c to read input of store; compiles the patterns once. */
static void ctx_init(struct nl_ctx *c, struct hd_store *store, uint32_t input)
{
	static GOnce once = G_ONCE_INIT;

	g_once(&once, rx_compile, NULL);
	memset(c, 0, sizeof(*c));
	c->store = store;
	c->input = input;
	c->in = hd_store_input(store, input);
	c->in->kind = HD_INPUT_NCCL_LOG;
	c->md = pcre2_match_data_create(32, NULL);
	if (!c->md) /* as g_malloc() does when memory runs out */
		g_error("out of memory for a PCRE2 match block");
	c->ov = pcre2_get_ovector_pointer(c->md);
	nl_streams_init(c);
	c->op_base = store->ops->len;
	c->sig_base = store->signals->len;
	c->restarts = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	c->op_proc = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	c->sig_proc = g_array_new(FALSE, FALSE, sizeof(int32_t));
	c->sig_stream = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	c->dedup = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c->clean = g_malloc(MAX(HD_LINE_MAX, NL_WRAP_MAX) + 1);
	c->wrap = g_string_sized_new(256);
	c->crash_sig = -1;
	nl_nccl_init(c);
}

/* Frees what ctx_init() set up; the store keeps what was added. */
static void ctx_clear(struct nl_ctx *c)
{
	pcre2_match_data_free(c->md);
	nl_nccl_clear(c);
	nl_streams_clear(c);
	g_array_free(c->op_proc, TRUE);
	g_array_free(c->sig_proc, TRUE);
	g_array_free(c->sig_stream, TRUE);
	g_hash_table_destroy(c->dedup);
	g_array_free(c->restarts, TRUE);
	g_free(c->clean);
	g_string_free(c->wrap, TRUE);
	if (c->crash_frames)
		g_array_free(c->crash_frames, TRUE);
}

bool nccl_log_parse(struct hd_reader *rd, struct hd_store *store,
		    uint32_t input, GError **error)
{
	g_autoptr(hd_lines) lines = hd_lines_new(rd);
	g_autoptr(GError) err = NULL;
	struct nl_ctx c;
	const char *line;
	size_t len;
	bool cut, ok = true;

	ctx_init(&c, store, input);
	while (hd_lines_next(lines, &line, &len, &cut, &err)) {
		c.lineno = hd_lines_lineno(lines);
		feed_line(&c, line, len, cut);
	}
	c.lineno = hd_lines_lineno(lines);
	finish(&c);
	if (err) {
		/* What was read before a read error stays valid. */
		c.in->truncated = true;
		if (c.in->records == 0 && c.lineno == 0) {
			g_propagate_error(error, g_steal_pointer(&err));
			ok = false;
		} else {
			hd_input_warn(c.in, c.lineno, "input ends early: %s",
				      err->message);
		}
	}
	c.in->bytes = hd_reader_consumed(rd);
	ctx_clear(&c);
	return ok;
}
