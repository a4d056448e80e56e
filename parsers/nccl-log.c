/*
 * The NCCL_DEBUG and PyTorch c10d log parser (docs/format-nccl-log.md):
 * the line driver.  It reads the lines, has the wrappers that launchers
 * and collectors put in front of them stripped (parsers/nl-wrap.c), joins
 * hard-wrapped records, splits fused ones and attributes torn ones, and
 * hands each record to its grammar: parsers/nccl-record.c for what NCCL
 * prints (a complete COLL record of a process seen before straight to
 * its fast path, parsers/nl-coll.c), parsers/c10d-record.c for PyTorch
 * c10d, torchrun and Python.
 * At end of input, parsers/nl-attrib.c gives every record the rank of its
 * process and parsers/nl-attempt.c its job attempt.  What these share is
 * in parsers/nccl-log-internal.h.
 *
 * One pass over bounded lines.  A line is first tested with one or two
 * scans for an anchor (" NCCL INFO ", " NCCL WARN ", the c10d texts; see
 * find()); lines without one are training chatter and cost nothing more.
 *
 * Ownership: everything here is per call; the store owns what is added.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include <string.h>

#include "nl-coll.h"
#include "nl-prefix.h"
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
	bool raw = true;

	c->torn_proc = NULL;
	if (memchr(line, 0x1b, n)) {
		n = strip_ansi(line, n, c->clean);
		line = c->clean;
		raw = false;
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
				/* the fast path may read its like next time */
				c->fill_fast = raw && rec == 0;
				nl_handle_nccl(c, line, a, lvl, e, false);
				c->fill_fast = false;
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

/*
 * A complete COLL record of a process seen before, read through the
 * fast path (nl_coll_fast()); false, with nothing done, for any other
 * line.  What process_line() and feed_line() would look for first (an
 * ANSI escape, Ray's suffix, a wrapped c10d record, a fused record) a
 * line the fast path takes cannot hold: its prefix was read before on a
 * line without them, and its body is nothing but the COLL fields.
 */
static bool fast_line(struct nl_ctx *c, const char *line, size_t n)
{
	const char *e = line + n, *a, *lvl;

	if (c->no_fast)
		return false;
	if (!nl_coll_fast_quick(c, line, n)) {
		a = nccl_anchor(line, line, e, &lvl);
		if (!a || lvl[0] != 'I' || e - lvl <= 5 || lvl[4] != ' ' ||
		    !nl_coll_fast(c, line, a, lvl + 5, e))
			return false;
	}
	c->torn_proc = NULL;
	c->fast_lines++;
	return true;
}

/*
 * Whether line repeats the line before it byte for byte, the long way: a
 * collector or tee that delivered it twice, one event (the second
 * "terminate called" of a pair hid the first's what() from it).  Else it
 * becomes the one the next is compared with.  Never a COLL record: a
 * coalesced group repeats one on purpose (two broadcasts of one shape),
 * and the opCount check reads repeats of those (coll_repeated()).  Nor
 * an empty or cut line.  The fast path takes only COLL records, so both
 * ways fold the same lines.
 */
static bool repeated_line(struct nl_ctx *c, const char *line, size_t n,
			  bool cut)
{
	bool rep;

	if (cut || n == 0 || memmem(line, n, ": opCount ", 10)) {
		c->prev_line = 0;
		return false;
	}
	rep = c->prev_line && c->prev_line + 1 == c->lineno &&
	      n == c->prev_len && memcmp(line, c->prev, n) == 0;
	c->prev_line = c->lineno;
	if (rep) {
		if (!c->repeats++)
			c->first_repeat = c->lineno;
		return true;
	}
	memcpy(c->prev, line, n);
	c->prev_len = n;
	return false;
}

static void feed_line(struct nl_ctx *c, const char *line, size_t n, bool cut)
{
	bool held;

	if (!cut && !c->wrap->len && fast_line(c, line, n))
		return;
	if (repeated_line(c, line, n, cut))
		return;
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

static void finish(struct nl_ctx *c)
{
	flush_wrap(c);
	nl_crash_flush(c);
	nl_c10d_finish(c);
	nl_attribute(c);
}
/* nccl_log_set_fast(): 1 on, 0 off; and the lines it read. */
static gint fast_on = 1;
static GMutex fast_lock;
static uint64_t fast_lines;

void nccl_log_set_fast(bool on)
{
	g_atomic_int_set(&fast_on, on);
}

uint64_t nccl_log_fast_lines(void)
{
	uint64_t n;

	g_mutex_lock(&fast_lock);
	n = fast_lines;
	g_mutex_unlock(&fast_lock);
	return n;
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
	c->restarts = g_array_new(FALSE, FALSE, sizeof(struct nl_restart_line));
	c->pg_pending = g_array_new(FALSE, FALSE, sizeof(int64_t));
	c->pg_waiting =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c->pg_at_seq = g_hash_table_new_full(g_int64_hash, g_int64_equal,
					     g_free, NULL);
	c->sig_proc = g_array_new(FALSE, FALSE, sizeof(int32_t));
	c->sig_stream = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	c->dedup = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c->clean = g_malloc(MAX(HD_LINE_MAX, NL_WRAP_MAX) + 1);
	c->prev = g_malloc(HD_LINE_MAX);
	c->wrap = g_string_sized_new(256);
	c->crash_sig = -1;
	c->no_fast = !g_atomic_int_get(&fast_on);
	nl_nccl_init(c);
}

/* Frees what ctx_init() set up; the store keeps what was added. */
static void ctx_clear(struct nl_ctx *c)
{
	pcre2_match_data_free(c->md);
	nl_nccl_clear(c);
	nl_streams_clear(c);
	g_array_free(c->sig_proc, TRUE);
	g_array_free(c->sig_stream, TRUE);
	g_hash_table_destroy(c->dedup);
	g_array_free(c->restarts, TRUE);
	g_array_free(c->pg_pending, TRUE);
	g_hash_table_destroy(c->pg_waiting);
	g_hash_table_destroy(c->pg_at_seq);
	g_free(c->clean);
	g_free(c->prev);
	g_string_free(c->wrap, TRUE);
	if (c->crash_frames)
		g_array_free(c->crash_frames, TRUE);
}

/* Says how many lines came twice in a row and were read once. */
static void note_repeats(struct nl_ctx *c)
{
	if (c->repeats)
		hd_input_warn(
			c->in, c->first_repeat,
			"%" PRIu64
			" line%s came twice in a row, byte for byte (a collector or tee that delivered lines twice): each read once",
			c->repeats, c->repeats == 1 ? "" : "s");
}

bool nccl_log_parse(struct hd_reader *rd, struct hd_store *store,
		    uint32_t input, GError **error)
{
	g_autoptr(hd_lines) lines = hd_lines_new(rd);
	g_autoptr(GError) err = NULL;
	struct nl_ctx c;
	const char *line;
	size_t len;
	g_autofree char *held = NULL;
	size_t held_len = 0;
	uint64_t held_line = 0;
	bool cut, ok = true;

	ctx_init(&c, store, input);
	while (hd_lines_next(lines, &line, &len, &cut, &err)) {
		if (held) {
			/* it stopped at a hole of NUL bytes, not at the end */
			c.lineno = held_line;
			feed_line(&c, held, held_len, false);
			g_clear_pointer(&held, g_free);
		}
		c.lineno = hd_lines_lineno(lines);
		if (hd_lines_unterminated(lines)) {
			/* read once the next line shows it was not the last */
			held = g_strndup(line, len);
			held_len = len;
			held_line = c.lineno;
			continue;
		}
		feed_line(&c, line, len, cut);
	}
	c.lineno = hd_lines_lineno(lines);
	finish(&c);
	note_repeats(&c);
	if (held) {
		/*
		 * NCCL flushes each line it writes, glog and c10d end theirs:
		 * a last line without a line end is a file cut while written
		 * or copied, whatever the piece looks like.  The piece is no
		 * record (a field torn mid-value, OpType=ALL of ALLREDUCE or
		 * opCount 1 of 1d, is not that value), and what followed is
		 * unknown.
		 */
		c.in->truncated = true;
		c.in->skipped++;
		if (!err)
			hd_input_warn(
				c.in, held_line,
				"the file ends inside a line, without a line end (%zu byte%s): cut while written or copied; the torn piece is not read, and what followed is unknown",
				held_len, held_len == 1 ? "" : "s");
	}
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
	if (c.fast_lines) {
		g_mutex_lock(&fast_lock);
		fast_lines += c.fast_lines;
		g_mutex_unlock(&fast_lock);
	}
	ctx_clear(&c);
	return ok;
}
