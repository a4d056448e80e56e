/*
 * gdb backtraces (docs/format-gdb.md): what `thread apply all bt` prints
 * for a live process (gdb -p PID -batch) or a core file, with or without
 * the frame addresses and the "from /lib/....so" of frames without
 * symbols:
 *
 *   Thread 3 (Thread 0x7f21c4ff9640 (LWP 4251) "python"):
 *   #0  0x00007f21e8a4f117 in __futex_abstimed_wait_common () from /lib/...
 *   #1  0x00007f21a9d1c5e2 in ncclProxyProgress (proxyState_=0x55) at proxy.cc:868
 *   #2  ncclProxyService (_args=0x55) at proxy.cc:1437
 *
 * Each thread becomes one info signal of type gdb_thread: pid the
 * process's, code its LWP (the kernel's thread id), text its header line,
 * stack its frames innermost first.  The process's pid is the one gdb
 * names ("Attaching to process N", "[Inferior 1 (process N) detached]"),
 * else the smallest LWP (a process's first thread has the pid as its id).
 * A core file's "Program terminated with signal SIGSEGV" (or a live
 * session's "received signal") adds one crash signal of type fatal_signal
 * with the signal's number and the crashing thread's frames: the thread
 * "[Current thread is N ...]" names, else thread 1, which is the one that
 * took the signal in a core.  gdb names no rank and no host: the store's
 * resolution joins the signals to the one rank with that pid
 * (hd_store_resolve()).
 *
 * Ownership: everything here is per call; the store owns what is added.
 */
#include "config.h"

#include <string.h>

#include "formats.h"
#include "parse-util.h"
#include "hd-lines.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's state. */
#define GDB_FRAMES  256 /* frames kept of one thread */
#define GDB_THREADS 4096 /* threads kept of one input */

struct gdb {
	struct hd_store *store;
	struct hd_input *in;
	uint32_t input;
	int64_t pid; /* named by gdb, -1 none */
	int64_t min_lwp; /* the smallest LWP seen, -1 none */
	int64_t sig; /* the thread being read, -1 none */
	int64_t crash_thread; /* gdb's number of the crashing thread, -1 */
	int signo; /* the fatal signal, 0 none */
	uint64_t signo_line;
	char *signo_text; /* its line (owned) */
	GArray *frames; /* struct hd_frame */
	GArray *threads; /* struct thread */
	bool in_thread; /* a header was read: frame lines are expected */
	uint64_t lone_line; /* the first frame before any header */
	/* the frames before any header start past #0: a thread whose
	   header a paste cut off, not where gdb stopped */
	bool cut_thread;
};

/* One thread read: its signal and gdb's number for it. */
struct thread {
	guint sig;
	int64_t number;
};

/* The fatal signals gdb names, with their Linux numbers. */
static int signo_of(const char *s, const char *e)
{
	static const struct {
		const char *name;
		int signo;
	} names[] = {
		{ "SIGSEGV", 11 }, { "SIGBUS", 7 }, { "SIGABRT", 6 },
		{ "SIGFPE", 8 },   { "SIGILL", 4 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		const char *at = pu_find(s, e, names[i].name);
		size_t k = strlen(names[i].name);

		/* "SIGSEGV," not "SIGSEGVX" */
		if (at && (at + k == e || !g_ascii_isalnum(at[k])))
			return names[i].signo;
	}
	return 0;
}

static void thread_end(struct gdb *g)
{
	pu_signal_stack(g->store, g->sig, g->frames);
	g->sig = -1;
	/* before any header the frames are a lone bt's, kept */
	if (g->in_thread)
		g_array_set_size(g->frames, 0);
}

static void thread_begin(struct gdb *g, int64_t number, int64_t lwp,
			 const char *text, size_t len, uint64_t at)
{
	struct hd_signal sig;
	struct thread t;
	g_autofree char *s = g_utf8_make_valid(text, (gssize)MIN(len, 1024));

	/* a paste cut mid-thread: its frames are a thread of their own */
	if (!g->in_thread && g->cut_thread && g->frames->len) {
		static const char cut_text[] =
			"(a thread whose header the paste cut off)";
		g_autoptr(GArray) cut = g_array_sized_new(
			FALSE, FALSE, sizeof(struct hd_frame), g->frames->len);

		g_array_append_vals(cut, g->frames->data, g->frames->len);
		g->in_thread = true;
		g_array_set_size(g->frames, 0);
		thread_begin(g, -1, -1, cut_text, sizeof(cut_text) - 1,
			     g->lone_line);
		g_array_append_vals(g->frames, cut->data, cut->len);
		thread_end(g);
	}
	/* the frame gdb printed where it stopped, before the threads: the
	   bt repeats it */
	if (!g->in_thread)
		g_array_set_size(g->frames, 0);
	thread_end(g);
	g->in_thread = true;
	if (g->threads->len >= GDB_THREADS) {
		g->in->skipped++;
		if (g->threads->len == GDB_THREADS) {
			hd_input_warn(g->in, at,
				      "more than %d threads: the rest skipped",
				      GDB_THREADS);
			/* counted once: the table grows by one, no more */
			t.sig = G_MAXUINT;
			t.number = -1;
			g_array_append_val(g->threads, t);
		}
		return;
	}
	hd_signal_init(&sig);
	sig.cat = HD_SIG_INFO;
	sig.type = HD_SIGT_GDB_THREAD;
	sig.code = lwp > 0 && lwp <= INT32_MAX ? (int32_t)lwp : 0;
	sig.text = s;
	sig.prov.input = g->input;
	sig.prov.kind = HD_PROV_LINE;
	sig.prov.at = at;
	hd_store_add_signal(g->store, &sig);
	g->sig = g->store->signals->len - 1;
	t.sig = (guint)g->sig;
	t.number = number;
	g_array_append_val(g->threads, t);
	if (lwp > 0 && (g->min_lwp < 0 || lwp < g->min_lwp))
		g->min_lwp = lwp;
	g->in->records++;
}

/*
 * "Thread 3 (Thread 0x7f.. (LWP 4251) "name"):", "Thread 2 (LWP 4250):",
 * or a thread of another system's libthread_db ("Thread 1 (process N)").
 */
static bool thread_line(struct gdb *g, const char *s, const char *e,
			uint64_t at)
{
	const char *q = s + 7, *lwp_at;
	int64_t number, lwp = -1;

	if (!pu_starts(s, e, "Thread ") || !pu_dec(&q, e, &number) ||
	    !pu_starts(q, e, " ("))
		return false;
	lwp_at = pu_find(q, e, "(LWP ");
	if (lwp_at) {
		q = lwp_at + 5;
		if (!pu_dec(&q, e, &lwp))
			lwp = -1;
	} else if ((lwp_at = pu_find(q, e, "(process ")) != NULL) {
		q = lwp_at + 9;
		if (!pu_dec(&q, e, &lwp))
			lwp = -1;
	}
	thread_begin(g, number, lwp, s, e - s, at);
	return true;
}

static void frame_add(struct gdb *g, const char *name, size_t nn,
		      const char *file, size_t fn, int64_t line)
{
	struct hd_frame f;

	if (g->frames->len >= GDB_FRAMES)
		return;
	f.name = hd_intern_len(name, MIN(nn, 512));
	f.file = fn ? hd_intern_len(file, MIN(fn, 1024)) : NULL;
	f.line = line > 0 && line <= INT32_MAX ? (int)line : 0;
	g_array_append_val(g->frames, f);
}

/*
 * The end of a frame's name: the " (" that opens its arguments, outside
 * a C++ template's angle brackets, or the " at "/" from " that follows a
 * name printed without arguments.
 */
static const char *name_end(const char *s, const char *e)
{
	int depth = 0;

	for (const char *q = s; q < e; q++) {
		if (*q == '<')
			depth++;
		else if (*q == '>' && depth > 0)
			depth--;
		else if (depth == 0 && *q == ' ' && q + 1 < e &&
			 (q[1] == '(' || pu_starts(q, e, " at ") ||
			  pu_starts(q, e, " from ")))
			return q;
	}
	return e;
}

/*
 * "#1  0x00007f.. in ncclProxyProgress (p=0x55) at proxy.cc:868",
 * "#2  ncclProxyService (_args=0x55) at proxy.cc:1437" (inlined: no
 * address), "#0  0x00007f.. in ?? () from /lib/libcuda.so.1".
 */
static bool frame_line(struct gdb *g, const char *s, const char *e)
{
	const char *q = s + 1, *name, *ne, *at, *file = NULL, *fe = NULL;
	int64_t idx, line = 0;

	if (!pu_starts(s, e, "#") || !pu_dec(&q, e, &idx) || q >= e ||
	    *q != ' ')
		return false;
	while (q < e && *q == ' ')
		q++;
	if (pu_starts(q, e, "0x")) {
		const char *in = pu_find(q, e, " in ");

		if (!in) {
			/* "#5  0x0000000000000000 in ?? ()" has " in "; an
			   address alone is a frame gdb could not name */
			frame_add(g, "??", 2, NULL, 0, 0);
			return true;
		}
		q = in + 4;
	}
	name = q;
	ne = name_end(name, e);
	if (ne == name || *name == '(')
		return false;
	/* the last " at " or " from ", after the arguments */
	for (at = e; at > ne; at--) {
		if (pu_starts(at, e, " at ")) {
			const char *colon = NULL;

			file = at + 4;
			for (const char *c = e; c > file; c--)
				if (c[-1] == ':') {
					colon = c - 1;
					break;
				}
			fe = e;
			if (colon) {
				const char *l = colon + 1;

				if (pu_dec(&l, e, &line) && l == e)
					fe = colon;
				else
					line = 0;
			}
			break;
		}
		if (pu_starts(at, e, " from ")) {
			file = at + 6;
			fe = e;
			break;
		}
	}
	frame_add(g, name, ne - name, file, file ? (size_t)(fe - file) : 0,
		  line);
	return true;
}

/* Lines gdb prints around the backtraces, read and let be. */
static bool chatter(const char *s, const char *e)
{
	static const char *const known[] = {
		"GNU gdb",
		"Copyright ",
		"License GPL",
		"This is free",
		"There is NO",
		"This GDB",
		"Type \"",
		"For bug",
		"<http",
		"Find the GDB",
		"For help",
		"Reading symbols",
		"Downloading",
		"--Type <RET>",
		"---Type <return>", /* older gdb's pager */
		"warning:",
		"Core was generated",
		"(No debugging",
		"Missing separate",
		"Python Exception",
		"No symbol table",
		"Quit",
		"Backtrace stopped",
		"Error while",
		"Loaded symbols",
		"Symbols already",
		"Run till exit",
		"Using host",
		"Detaching from",
		"Download failed",
		"thread apply",
		"quit",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(known); i++)
		if (pu_starts(s, e, known[i]))
			return true;
	/* where an attach stopped it: "0x00007f.. in poll () from ..." */
	return pu_starts(s, e, "0x") && pu_find(s, e, " in ");
}

static void set_pid(struct gdb *g, const char *q, const char *e)
{
	int64_t v;

	if (pu_dec(&q, e, &v) && v > 0 && v <= INT32_MAX)
		g->pid = v;
}

/* "Program terminated with signal SIGSEGV, ..." or "... received signal" */
static void signal_line(struct gdb *g, const char *s, const char *e,
			uint64_t at)
{
	int signo = signo_of(s, e);

	if (!signo || g->signo)
		return;
	g->signo = signo;
	g->signo_line = at;
	g->signo_text = g_utf8_make_valid(s, (gssize)MIN(e - s, 1024));
}

static void text_line(struct gdb *g, const char *line, size_t n, uint64_t at)
{
	const char *s = line, *e = line + n, *q;

	while (e > s && (e[-1] == '\r' || e[-1] == ' '))
		e--;
	/* "(gdb) thread apply all bt": the prompt is not content */
	while (pu_starts(s, e, "(gdb) "))
		s += 6;
	while (s < e && *s == ' ')
		s++;
	if (s == e)
		return;
	if (*s == '#') {
		/* a frame before any header: kept for a lone bt (finish()) */
		if (!g->in_thread && !g->frames->len) {
			g->lone_line = at;
			g->cut_thread = !pu_starts(s, e, "#0 ");
		}
		/* a thread past GDB_THREADS: counted with it */
		if (g->sig < 0 && g->in_thread)
			return;
		if (frame_line(g, s, e))
			return;
	} else if (thread_line(g, s, e, at)) {
		return;
	}
	if (pu_starts(s, e, "Attaching to process ") ||
	    pu_starts(s, e, "Attaching to program")) {
		q = pu_find(s, e, "process ");
		if (q)
			set_pid(g, q + 8, e);
		return;
	}
	if (pu_starts(s, e, "[Inferior ") && (q = pu_find(s, e, "(process ")))
		set_pid(g, q + 9, e);
	if (pu_starts(s, e, "[Current thread is ")) {
		q = s + 19;
		if (!pu_dec(&q, e, &g->crash_thread))
			g->crash_thread = -1;
		return;
	}
	if (pu_starts(s, e, "Program terminated with signal ") ||
	    (pu_starts(s, e, "Thread ") &&
	     pu_find(s, e, " received signal ")) ||
	    pu_starts(s, e, "Program received signal ")) {
		signal_line(g, s, e, at);
		return;
	}
	/* "[New LWP 4250]", "[Thread debugging using libthread_db ...]" */
	if (*s == '[' || chatter(s, e))
		return;
	/* a frame's arguments wrapped onto the next line */
	if (line[0] == ' ' && g->sig >= 0)
		return;
	g->in->skipped++;
	hd_input_warn(g->in, at, "not a gdb backtrace line");
}

/* The thread that took the signal: gdb's current thread, else thread 1. */
static const struct thread *crash_thread(const struct gdb *g)
{
	const struct thread *one = NULL;

	for (guint i = 0; i < g->threads->len; i++) {
		const struct thread *t =
			&g_array_index(g->threads, struct thread, i);

		if (t->sig == G_MAXUINT)
			continue;
		if (g->crash_thread >= 0 && t->number == g->crash_thread)
			return t;
		if (t->number == 1 || (!one && t->number < 0))
			one = t;
	}
	if (!one && g->threads->len &&
	    g_array_index(g->threads, struct thread, 0).sig != G_MAXUINT)
		one = &g_array_index(g->threads, struct thread, 0);
	return one;
}

/* Gives every thread the process's pid; adds the crash, if any. */
static void finish(struct gdb *g)
{
	int32_t pid = (int32_t)(g->pid > 0 ? g->pid
				: g->min_lwp > 0 && g->min_lwp <= INT32_MAX
					? g->min_lwp
					: 0);
	const struct thread *ct;
	struct hd_signal sig;

	/* a lone bt: frames and no thread header */
	if (!g->in_thread && g->frames->len) {
		g_autoptr(GArray) lone = g_array_sized_new(
			FALSE, FALSE, sizeof(struct hd_frame), g->frames->len);

		g_array_append_vals(lone, g->frames->data, g->frames->len);

		thread_begin(g, -1, -1, "(current thread)", 16, g->lone_line);
		g_array_append_vals(g->frames, lone->data, lone->len);
		thread_end(g);
	}
	for (guint i = 0; i < g->threads->len; i++) {
		const struct thread *t =
			&g_array_index(g->threads, struct thread, i);

		if (t->sig != G_MAXUINT)
			g_array_index(g->store->signals, struct hd_signal,
				      t->sig)
				.pid = pid;
	}
	if (!g->signo)
		return;
	ct = crash_thread(g);
	hd_signal_init(&sig);
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_FATAL_SIGNAL;
	sig.code = g->signo;
	sig.pid = pid;
	sig.text = g->signo_text;
	sig.prov.input = g->input;
	sig.prov.kind = HD_PROV_LINE;
	sig.prov.at = g->signo_line;
	if (ct)
		sig.stack = g_array_index(g->store->signals, struct hd_signal,
					  ct->sig)
				    .stack;
	hd_store_add_signal(g->store, &sig);
	g->in->records++;
}

bool gdb_bt_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		  GError **error)
{
	g_autoptr(hd_lines) lines = hd_lines_new(rd);
	g_autoptr(GError) err = NULL;
	struct gdb g = { .store = store,
			 .input = input,
			 .pid = -1,
			 .min_lwp = -1,
			 .sig = -1,
			 .crash_thread = -1 };
	const char *line;
	size_t len;
	bool cut;

	g.in = hd_store_input(store, input);
	g.in->kind = HD_INPUT_GDB;
	g.frames = g_array_new(FALSE, FALSE, sizeof(struct hd_frame));
	g.threads = g_array_new(FALSE, FALSE, sizeof(struct thread));
	while (hd_lines_next(lines, &line, &len, &cut, &err)) {
		if (cut) {
			g.in->skipped++;
			hd_input_warn(g.in, hd_lines_lineno(lines),
				      "line cut at 64 KiB");
			continue;
		}
		text_line(&g, line, len, hd_lines_lineno(lines));
	}
	thread_end(&g);
	finish(&g);
	g_array_free(g.frames, TRUE);
	g_array_free(g.threads, TRUE);
	g_free(g.signo_text);
	return pu_end_lines(g.in, hd_lines_lineno(lines), g_steal_pointer(&err),
			    error);
}

/*
 * A head is a gdb backtrace when a line "Thread N (... LWP ...):" or
 * "#0  " comes before any line that is neither gdb's nor a frame, and a
 * frame line follows.
 */
/*
 * "#5  0x00007f... in name (args) at f.c:3" or "#4  name (args) at f.c:3":
 * a frame of a thread whose header the paste cut off.
 */
static bool frame_like(const char *s, const char *e)
{
	const char *q = s + 1;
	int64_t idx;

	if (!pu_starts(s, e, "#") || !pu_dec(&q, e, &idx) || q >= e ||
	    *q != ' ')
		return false;
	while (q < e && *q == ' ')
		q++;
	if (pu_starts(q, e, "0x"))
		return pu_find(q, e, " in ") != NULL;
	return q < e && (g_ascii_isalpha(*q) || *q == '_') &&
	       pu_find(q, e, " (") != NULL;
}

bool gdb_bt_sniff(const uint8_t *head, size_t len)
{
	const char *p = (const char *)head, *end;
	unsigned lines = 0;
	bool header = false;

	if (!head || !len)
		return false;
	end = p + len;
	while (p < end && lines < 200) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s = p;

		if (!nl && lines > 0)
			break; /* a cut last line says nothing */
		while (e > s && (e[-1] == '\r' || e[-1] == ' '))
			e--;
		while (pu_starts(s, e, "(gdb) "))
			s += 6;
		if (s < e) {
			const char *q = s + 7;
			int64_t v;

			lines++;
			if (pu_starts(s, e, "Thread ") && pu_dec(&q, e, &v) &&
			    pu_starts(q, e, " (") &&
			    (pu_find(q, e, "(LWP ") ||
			     pu_find(q, e, "(process ")))
				header = true;
			else if (pu_starts(s, e, "#0  ") ||
				 pu_starts(s, e, "#0 0x"))
				return header || lines <= 40;
			/* a frame before any header: a paste cut mid-thread */
			else if (!header && *s != '[' && !chatter(s, e) &&
				 !frame_like(s, e) &&
				 !pu_starts(s, e, "Attaching to ") &&
				 !pu_starts(s, e, "Program ") &&
				 !pu_starts(s, e, "thread apply") &&
				 !pu_starts(s, e, "Thread "))
				return false;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}
