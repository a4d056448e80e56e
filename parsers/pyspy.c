/*
 * py-spy dumps (docs/format-pyspy.md): where each thread of one live
 * Python process is now, as `py-spy dump --pid P` prints it (with or
 * without --native and --locals) or as its --json array.
 *
 *   Process 4247: python train.py --config x
 *   Python v3.10.12 (/usr/bin/python3.10)
 *
 *   Thread 4247 (idle): "MainThread"
 *       wait (threading.py:320)
 *       fetch_next_batch (shard_loader.py:211)
 *           Arguments:
 *               self: <ShardLoader at 0x7f..>
 *
 * Each thread becomes one info signal of type pyspy_thread: pid the
 * process's, code its thread id (clamped), text its header line, stack
 * its frames innermost first.  A dump names no rank and no host: the
 * engine joins it to a rank by pid (src/engine/hd-pyspy.c).  Several
 * dumps pasted into one file are read one after the other.
 *
 * Ownership: everything here is per call; the store owns what is added.
 */
#include "config.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "formats.h"
#include "parse-util.h"
#include "hd-lines.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's state. */
#define PYSPY_FRAMES	 256 /* frames kept of one thread */
#define PYSPY_THREADS	 4096 /* threads kept of one input */
#define PYSPY_JSON_BYTES ((size_t)64 << 20) /* a --json dump read whole */

struct pyspy {
	struct hd_store *store;
	struct hd_input *in;
	uint32_t input;
	int64_t pid; /* of the "Process N:" being read, -1 none */
	int64_t sig; /* the thread being read, -1 none */
	GArray *frames; /* struct hd_frame */
	uint64_t threads;
};

static void thread_end(struct pyspy *p)
{
	pu_signal_stack(p->store, p->sig, p->frames);
	p->sig = -1;
	g_array_set_size(p->frames, 0);
}

static void thread_begin(struct pyspy *p, int64_t tid, const char *text,
			 size_t len, uint64_t at, enum hd_prov_kind kind)
{
	struct hd_signal sig;
	g_autofree char *t = g_utf8_make_valid(text, (gssize)MIN(len, 1024));

	thread_end(p);
	if (p->threads >= PYSPY_THREADS) {
		p->in->skipped++;
		if (p->threads++ == PYSPY_THREADS)
			hd_input_warn(p->in, at,
				      "more than %d threads: the rest skipped",
				      PYSPY_THREADS);
		return;
	}
	p->threads++;
	hd_signal_init(&sig);
	sig.cat = HD_SIG_INFO;
	sig.type = HD_SIGT_PYSPY_THREAD;
	sig.pid = p->pid > 0 && p->pid <= INT32_MAX ? (int32_t)p->pid : 0;
	sig.code = tid >= 0 && tid <= INT32_MAX ? (int32_t)tid : 0;
	sig.text = t;
	sig.prov.input = p->input;
	sig.prov.kind = kind;
	sig.prov.at = at;
	hd_store_add_signal(p->store, &sig);
	p->sig = p->store->signals->len - 1;
	p->in->records++;
}

static void frame_add(struct pyspy *p, const char *name, size_t nn,
		      const char *file, size_t fn, int64_t line)
{
	struct hd_frame f;

	if (p->sig < 0 || p->frames->len >= PYSPY_FRAMES)
		return;
	f.name = hd_intern_len(name, MIN(nn, 512));
	f.file = fn ? hd_intern_len(file, MIN(fn, 1024)) : NULL;
	f.line = line > 0 && line <= INT32_MAX ? (int)line : 0;
	g_array_append_val(p->frames, f);
}

/* "Thread 4247 (idle): ..." or "Thread 0x7F3C6E6D7740 (active)". */
static bool thread_line(struct pyspy *p, const char *s, const char *e,
			uint64_t at)
{
	const char *q = s + 7;
	int64_t tid = -1;

	if (!pu_starts(s, e, "Thread ") || !memchr(s, '(', e - s))
		return false;
	if (pu_starts(q, e, "(")) {
		/* "Thread (idle): \"MainThread\"", pasted without its id */
		const char *close = memchr(q, ')', e - q);

		if (!close || close + 1 >= e || close[1] != ':')
			return false;
		thread_begin(p, -1, s, e - s, at, HD_PROV_LINE);
		return true;
	}
	if (pu_starts(q, e, "0x") || pu_starts(q, e, "0X")) {
		q += 2;
		while (q < e && g_ascii_isxdigit(*q))
			q++;
	} else if (!pu_dec(&q, e, &tid)) {
		return false;
	}
	if (q >= e || *q != ' ')
		return false;
	thread_begin(p, tid, s, e - s, at, HD_PROV_LINE);
	return true;
}

/* "    name (file:line)" or "    name (lib.so)" (native, no line). */
static bool frame_line(struct pyspy *p, const char *s, const char *e)
{
	const char *open, *close = e - 1, *colon, *q;
	int64_t line = 0;

	if (e - s < 4 || close <= s || *close != ')')
		return false;
	for (open = close; open > s && *open != '('; open--)
		;
	/* "fn (f.py:3)": the last " (" before the closing one */
	while (open > s && open[-1] != ' ') {
		for (open--; open > s && *open != '('; open--)
			;
	}
	if (open <= s || *open != '(' || open[-1] != ' ')
		return false;
	colon = NULL;
	for (q = close; q > open; q--)
		if (*q == ':') {
			colon = q;
			break;
		}
	if (colon) {
		q = colon + 1;
		if (!pu_dec(&q, close, &line) || q != close) {
			colon = NULL;
			line = 0;
		}
	}
	frame_add(p, s, open - 1 - s, open + 1,
		  (colon ? colon : close) - open - 1, line);
	return true;
}

static void text_line(struct pyspy *p, const char *line, size_t n, uint64_t at)
{
	const char *s = line, *e = line + n, *t;
	int64_t v;
	size_t indent;

	while (e > s && (e[-1] == '\r' || e[-1] == ' '))
		e--;
	for (t = s; t < e && *t == ' '; t++)
		;
	indent = t - s;
	if (t == e)
		return;
	if (indent == 0 && pu_starts(t, e, "Process ")) {
		const char *q = t + 8;

		thread_end(p);
		if (pu_dec(&q, e, &v) && q < e && *q == ':') {
			p->pid = v;
			return;
		}
		p->pid = -1;
		p->in->skipped++;
		hd_input_warn(p->in, at, "a process line without its pid");
		return;
	}
	if (indent == 0 &&
	    (pu_starts(t, e, "Python v") || pu_starts(t, e, "Error: ") ||
	     pu_starts(t, e, "Collecting") || pu_starts(t, e, "py-spy") ||
	     memmem(t, e - t, "py-spy dump", 11)))
		return; /* its header, and the command pasted above it */
	if (indent == 0 && thread_line(p, t, e, at))
		return;
	/* --locals: "Arguments:", "Locals:" and their values */
	if (indent >= 8)
		return;
	if (indent >= 4 && p->sig >= 0 && frame_line(p, t, e))
		return;
	p->in->skipped++;
	hd_input_warn(p->in, at, "not a py-spy dump line");
}

static bool parse_text(struct pyspy *p, struct hd_reader *rd, GError **error)
{
	g_autoptr(hd_lines) lines = hd_lines_new(rd);
	g_autoptr(GError) err = NULL;
	const char *line;
	size_t len;
	bool cut;

	while (hd_lines_next(lines, &line, &len, &cut, &err)) {
		if (cut) {
			p->in->skipped++;
			hd_input_warn(p->in, hd_lines_lineno(lines),
				      "line cut at 64 KiB");
			continue;
		}
		text_line(p, line, len, hd_lines_lineno(lines));
	}
	thread_end(p);
	return pu_end_lines(p->in, hd_lines_lineno(lines),
			    g_steal_pointer(&err), error);
}

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int64_t json_int(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    v->valuedouble > (double)INT64_MAX / 2)
		return -1;
	return (int64_t)v->valuedouble;
}

/* One element of the --json array: a thread. */
static void json_thread(struct pyspy *p, const cJSON *t, uint64_t index)
{
	const cJSON *frames = cJSON_GetObjectItemCaseSensitive(t, "frames");
	const cJSON *f;
	const char *name = json_str(t, "thread_name");
	const cJSON *active = cJSON_GetObjectItemCaseSensitive(t, "active");
	int64_t tid = json_int(t, "os_thread_id");
	g_autofree char *head = NULL;

	if (!cJSON_IsObject(t) || !cJSON_IsArray(frames)) {
		p->in->skipped++;
		hd_input_warn(p->in, 0,
			      "record %" G_GUINT64_FORMAT
			      ": not a py-spy thread (no frames)",
			      index + 1);
		return;
	}
	p->pid = json_int(t, "pid");
	if (tid < 0)
		tid = json_int(t, "thread_id");
	head = g_strdup_printf("Thread %" G_GINT64_FORMAT " (%s)%s%s%s", tid,
			       cJSON_IsTrue(active) ? "active" : "idle",
			       name ? ": \"" : "", name ? name : "",
			       name ? "\"" : "");
	thread_begin(p, tid, head, strlen(head), index + 1, HD_PROV_RECORD);
	cJSON_ArrayForEach(f, frames) {
		const char *fn = json_str(f, "name");
		const char *file = json_str(f, "short_filename");

		if (!file)
			file = json_str(f, "filename");
		if (!fn) {
			p->in->skipped++;
			continue;
		}
		frame_add(p, fn, strlen(fn), file, file ? strlen(file) : 0,
			  json_int(f, "line"));
	}
	thread_end(p);
}

static bool parse_json(struct pyspy *p, struct hd_reader *rd, GError **error)
{
	cJSON *j = pu_slurp_json(rd, PYSPY_JSON_BYTES, "a py-spy JSON dump",
				 error);
	cJSON *t;
	uint64_t index = 0;

	if (!j)
		return false;
	/* one dump is an array of threads; a list of dumps, of arrays */
	cJSON_ArrayForEach(t, j) {
		if (cJSON_IsArray(t)) {
			const cJSON *u;

			cJSON_ArrayForEach(u, t)
				json_thread(p, u, index++);
		} else {
			json_thread(p, t, index++);
		}
	}
	cJSON_Delete(j);
	return true;
}

bool pyspy_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		 GError **error)
{
	const uint8_t *head;
	size_t hl = 0, at = 0;
	struct pyspy p = {
		.store = store, .input = input, .pid = -1, .sig = -1
	};
	bool ok;

	p.in = hd_store_input(store, input);
	p.in->kind = HD_INPUT_PYSPY;
	p.frames = g_array_new(FALSE, FALSE, sizeof(struct hd_frame));
	head = hd_reader_head(rd, &hl, NULL);
	while (head && at < hl && g_ascii_isspace(head[at]))
		at++;
	if (head && at < hl && head[at] == '[')
		ok = parse_json(&p, rd, error);
	else
		ok = parse_text(&p, rd, error);
	g_array_free(p.frames, TRUE);
	if (ok && p.in->records == 0)
		p.in->empty = true;
	return ok;
}
