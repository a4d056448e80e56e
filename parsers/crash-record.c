/*
 * The crash grammar of the NCCL_DEBUG log parser (docs/format-crash.md;
 * the driver is parsers/nccl-log.c): what a dying process prints to its
 * stderr when a fatal signal's handler runs, read where it appears among
 * a rank's other lines.
 *
 *  - UCX's handler (also installed by Open MPI, HPC-X and the NCCL
 *    plugins built on UCX): "[host:pid :0:tid] Caught signal 7 (Bus
 *    error: ...)", then "==== backtrace (tid: N) ====" and numbered
 *    frames " 2 0x... ncclGroupEnd()  ???:0", closed by a "====" rule;
 *  - Python's faulthandler: "Fatal Python error: Segmentation fault",
 *    one block per thread ("Current thread 0x... (most recent call
 *    first):" and "Thread 0x..."), each '  File "f.py", line N in fn';
 *  - the C++ runtime's "terminate called after throwing an instance of
 *    'T'" for an uncaught exception, then "  what():  text" and, for
 *    c10's exceptions, "Exception raised from fn at file:line" and
 *    "frame #N: fn + 0x.. (0x.. in lib.so)" lines (issue 21).  It
 *    becomes a crash signal of type traceback (an exception, as a
 *    Python one), its text the type and what(); the what() line is
 *    also left to the c10d grammar, which reads the watchdog's own
 *    messages in it.
 *
 * Each becomes one crash signal of type fatal_signal, code the signal
 * number, its frames (innermost first; the current thread's for
 * faulthandler) stored as a stack of the store.  One frame parser serves
 * both shapes.  A block is bounded in lines and frames; a frame line
 * outside a block is text like any other.
 *
 * Ownership: the block being read is the parse state's; the store owns
 * the signal and the stack once added.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include <string.h>

#include "parse-util.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's own state. */
#define CRASH_LINES  256 /* lines one block may span */
#define CRASH_FRAMES 64 /* frames kept of one stack */

/* Stores the frames read so far on the block's signal and ends it. */
void nl_crash_flush(struct nl_ctx *c)
{
	pu_signal_stack(c->store, c->crash_sig, c->crash_frames);
	c->crash_sig = -1;
	c->crash_left = 0;
	c->crash_style = NL_CRASH_NONE;
	if (c->crash_frames)
		g_array_set_size(c->crash_frames, 0);
}

static void frame_add(struct nl_ctx *c, const char *name, size_t nn,
		      const char *file, size_t fn, int line)
{
	struct hd_frame f;

	if (c->crash_frames->len >= CRASH_FRAMES)
		return;
	f.name = hd_intern_len(name, nn);
	f.file = fn ? hd_intern_len(file, fn) : NULL;
	f.line = line;
	g_array_append_val(c->crash_frames, f);
}

/*
 * " 5 0x00000000000489b1 ???()  /usr/lib/libnccl.so.2:0": a UCX frame.
 * Returns false when the line is not one.
 */
static bool native_frame(struct nl_ctx *c, const char *s, const char *e)
{
	const char *name, *paren, *file, *colon;
	int64_t idx, line = 0;

	while (s < e && *s == ' ')
		s++;
	if (!scan_int(&s, e, &idx) || idx < 0 || s >= e || *s != ' ')
		return false;
	while (s < e && *s == ' ')
		s++;
	if (e - s < 3 || s[0] != '0' || s[1] != 'x')
		return false;
	while (s < e && *s != ' ')
		s++;
	while (s < e && *s == ' ')
		s++;
	name = s;
	paren = memchr(s, '(', e - s);
	if (!paren || paren == name)
		return false;
	s = paren;
	while (s < e && *s != ' ')
		s++;
	while (s < e && *s == ' ')
		s++;
	file = s;
	colon = NULL;
	for (const char *q = e; q > file; q--)
		if (q[-1] == ':') {
			colon = q - 1;
			break;
		}
	if (colon) {
		const char *q = colon + 1;

		if (!scan_int(&q, e, &line))
			line = 0;
	}
	frame_add(c, name, paren - name, file,
		  colon ? (size_t)(colon - file) : (size_t)(e - file),
		  (int)clamp_int(line, 0, INT32_MAX));
	return true;
}

/* '  File "shard_loader.py", line 211 in fetch_next_batch' */
static bool python_frame(struct nl_ctx *c, const char *s, const char *e)
{
	const char *file, *q, *name;
	int64_t line = 0;

	while (s < e && *s == ' ')
		s++;
	if (!starts(s, e - s, "File \""))
		return false;
	file = s + 6;
	q = memchr(file, '"', e - file);
	if (!q)
		return false;
	s = q + 1;
	if (!starts(s, e - s, ", line "))
		return false;
	s += 7;
	if (!scan_int(&s, e, &line))
		return false;
	if (!starts(s, e - s, " in "))
		return false;
	name = s + 4;
	while (e > name && e[-1] == ' ')
		e--;
	if (e == name)
		return false;
	frame_add(c, name, e - name, file, q - file,
		  (int)clamp_int(line, 0, INT32_MAX));
	return true;
}

/* Starts a block: adds the signal now, its frames when the block ends. */
static void crash_begin(struct nl_ctx *c, struct nl_stream *st, int rank,
			enum nl_crash_style style, int signo, const char *host,
			size_t host_len, int64_t pid, const char *text,
			size_t text_len)
{
	struct hd_signal sig;

	nl_crash_flush(c);
	if (!c->crash_frames)
		c->crash_frames =
			g_array_new(FALSE, FALSE, sizeof(struct hd_frame));
	struct nl_proc *p = NULL;
	char key[160];

	hd_signal_init(&sig);
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_FATAL_SIGNAL;
	sig.code = signo;
	/* "[rank5]:", else the launcher's label of the stream */
	sig.rank = rank >= 0 ? rank : st->hint_rank;
	/* a process whose NCCL records name it: the signal is its */
	if (host_len && host_len <= 128 && pid > 0) {
		g_snprintf(key, sizeof(key), "%.*s:%d", (int)host_len, host,
			   (int)clamp_int(pid, 0, INT32_MAX));
		p = g_hash_table_lookup(c->procs_by_key, key);
	}
	nl_add_signal(c, &sig, p, st, text, text_len);
	c->crash_sig = c->store->signals->len - 1;
	/* else the handler's own prefix names it */
	if (host_len && !p) {
		struct hd_signal *s = &g_array_index(
			c->store->signals, struct hd_signal, c->crash_sig);

		s->host = hd_intern_len(host, host_len);
		s->pid = (int32_t)clamp_int(pid, 0, INT32_MAX);
	}
	c->crash_style = style;
	c->crash_left = CRASH_LINES;
	c->crash_current = false;
}

/* faulthandler's "Fatal Python error: Segmentation fault": its signal. */
static int fatal_signo(const char *s, const char *e)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return pu_signal_of_text(s, e);
}

/*
 * "[host:pid :0:tid] Caught signal 7 (Bus error: ...)": the prefix is
 * optional (a collector may strip it).
 */
static bool ucx_header(struct nl_ctx *c, struct nl_stream *st, int rank,
		       const char *s, const char *e)
{
	const char *at = find(s, e - s, "Caught signal "), *q, *host = NULL;
	size_t host_len = 0;
	int64_t signo, pid = 0;

	if (!at)
		return false;
	q = at + 14;
	if (!scan_int(&q, e, &signo) || signo <= 0 || signo > 64)
		return false;
	if (s < at && *s == '[') {
		const char *colon = memchr(s, ':', at - s);

		if (colon && colon > s + 1) {
			const char *p = colon + 1;

			host = s + 1;
			host_len = colon - host;
			if (!scan_int(&p, at, &pid))
				pid = 0;
		}
	}
	crash_begin(c, st, rank, NL_CRASH_NATIVE, (int)signo, host, host_len,
		    pid, s, e - s);
	return true;
}

/* One line inside a block; false when it ended the block. */
static bool crash_body(struct nl_ctx *c, const char *s, const char *e)
{
	const char *t = s;

	while (t < e && *t == ' ')
		t++;
	if (c->crash_style == NL_CRASH_NATIVE) {
		if (starts(t, e - t, "==== backtrace"))
			return true;
		if (native_frame(c, s, e))
			return true;
		/* "=================================" closes it */
		if (starts(t, e - t, "===")) {
			nl_crash_flush(c);
			return true;
		}
		return false;
	}
	/* faulthandler */
	if (t == e)
		return true;
	if (starts(t, e - t, "Current thread ")) {
		g_array_set_size(c->crash_frames, 0);
		c->crash_current = true;
		return true;
	}
	if (starts(t, e - t, "Thread 0x")) {
		/* another thread: its frames only while none is current */
		if (c->crash_current || c->crash_frames->len)
			c->crash_style = NL_CRASH_PY_OTHER;
		return true;
	}
	if (starts(t, e - t, "Stack (most recent call first)"))
		return true;
	if (starts(t, e - t, "File \"")) {
		if (c->crash_style == NL_CRASH_PYTHON)
			python_frame(c, s, e);
		return true;
	}
	if (starts(t, e - t, "<no Python frame>"))
		return true;
	return false;
}

/*
 * "Exception raised from checkTimeout at ../c10d/ProcessGroupNCCL.cpp:565
 * (most recent call first):" and "frame #3: fn + 0x1d2 (0x7f.. in
 * /usr/lib/libtorch_cuda.so)": the frames of a c10 exception.
 */
static bool terminate_body(struct nl_ctx *c, const char *t, const char *e)
{
	const char *q, *name, *ne, *file;
	int64_t v, line = 0;

	if (starts(t, e - t, "Exception raised from ")) {
		name = t + 22;
		q = find(name, e - name, " at ");
		if (!q)
			return true;
		ne = q;
		file = q + 4;
		q = find(file, e - file, " (most recent");
		if (!q)
			q = e;
		for (const char *k = q; k > file; k--)
			if (k[-1] == ':') {
				const char *l = k;

				if (scan_int(&l, q, &line) && l == q) {
					q = k - 1;
				} else {
					line = 0;
				}
				break;
			}
		frame_add(c, name, ne - name, file, q - file,
			  (int)clamp_int(line, 0, INT32_MAX));
		return true;
	}
	if (!starts(t, e - t, "frame #"))
		return false;
	q = t + 7;
	if (!scan_int(&q, e, &v) || e - q < 2 || q[0] != ':')
		return false;
	name = q + 1;
	while (name < e && *name == ' ')
		name++;
	ne = find(name, e - name, " + 0x");
	if (!ne)
		ne = find(name, e - name, " (0x");
	if (!ne)
		ne = find(name, e - name, " [0x");
	if (!ne)
		ne = e;
	file = find(ne, e - ne, " in ");
	if (file) {
		file += 4;
		q = e;
		while (q > file && (q[-1] == ')' || q[-1] == ' '))
			q--;
	} else {
		q = file;
	}
	if (ne > name)
		frame_add(c, name, ne - name, file,
			  file ? (size_t)(q - file) : 0, 0);
	return true;
}

/* "terminate called after throwing an instance of 'T'": a crash. */
static bool terminate_header(struct nl_ctx *c, struct nl_stream *st, int rank,
			     const char *s, const char *e)
{
	struct hd_signal *sig;

	if (!starts(s, e - s,
		    "terminate called after throwing an instance of "))
		return false;
	crash_begin(c, st, rank, NL_CRASH_TERMINATE, 0, NULL, 0, 0, s, e - s);
	sig = &g_array_index(c->store->signals, struct hd_signal, c->crash_sig);
	sig->type = HD_SIGT_TRACEBACK;
	sig->code = 0;
	return true;
}

/* "  what():  text": the exception's message joins the signal's text. */
static void terminate_what(struct nl_ctx *c, const char *t, const char *e)
{
	struct hd_signal *sig = &g_array_index(c->store->signals,
					       struct hd_signal, c->crash_sig);
	const char *m = t + 7;
	char *text;

	while (m < e && *m == ' ')
		m++;
	text = g_strdup_printf("%s: %.*s", sig->text ? sig->text : "",
			       (int)MIN(e - m, 1024), m);
	g_free(sig->text);
	sig->text = g_utf8_make_valid(text, (gssize)MIN(strlen(text), 1024));
	g_free(text);
}

bool nl_crash_line(struct nl_ctx *c, const char *line, size_t n)
{
	struct nl_wrap w;
	struct nl_stream *st;
	const char *s, *e = line + n;
	size_t off;
	int signo, rank = -1;

	if (c->crash_sig < 0 && !has(line, n, "Caught signal ") &&
	    !has(line, n, "Fatal Python error: ") &&
	    !has(line, n, "terminate called after throwing"))
		return false;
	nl_wrap_init(&w);
	off = nl_strip_front(line, n, &w);
	s = line + off;
	/* torchrun --tee / PyTorch's own "[rank5]:" */
	if (starts(s, e - s, "[rank")) {
		const char *q = s + 5;
		int64_t v;

		if (scan_int(&q, e, &v) && e - q >= 2 && q[0] == ']' &&
		    q[1] == ':') {
			/* a rank no job has is no rank */
			if (v >= 0 && v < HD_MAX_RANKS)
				rank = (int)v;
			s = q + 2;
		}
	}
	if (c->crash_sig >= 0) {
		/* a frame of another thread after the current one's */
		if (c->crash_style == NL_CRASH_PY_OTHER &&
		    starts(s, e - s, "Current thread ")) {
			c->crash_style = NL_CRASH_PYTHON;
			g_array_set_size(c->crash_frames, 0);
			c->crash_current = true;
			return true;
		}
		if (c->crash_style == NL_CRASH_TERMINATE) {
			const char *t = s;

			while (t < e && *t == ' ')
				t++;
			/* left to the c10d grammar too: not consumed */
			if (starts(t, e - t, "what():") &&
			    --c->crash_left > 0) {
				terminate_what(c, t, e);
				return false;
			}
			if (t < e && --c->crash_left > 0 &&
			    terminate_body(c, t, e))
				return true;
		} else if (c->crash_style == NL_CRASH_PY_OTHER) {
			const char *t = s;

			while (t < e && *t == ' ')
				t++;
			if (t == e || starts(t, e - t, "File \"") ||
			    starts(t, e - t, "Thread 0x"))
				return true;
		} else if (--c->crash_left > 0 && crash_body(c, s, e)) {
			return true;
		}
		nl_crash_flush(c);
	}
	st = nl_stream_for(c, &w);
	if (has(s, e - s, "Caught signal ") && ucx_header(c, st, rank, s, e))
		return true;
	if (terminate_header(c, st, rank, s, e))
		return true;
	if (starts(s, e - s, "Fatal Python error: ") &&
	    (signo = fatal_signo(s + 20, e)) > 0) {
		crash_begin(c, st, rank, NL_CRASH_PYTHON, signo, NULL, 0, 0, s,
			    e - s);
		return true;
	}
	return false;
}
