/*
 * The NCCL / c10d log parser's wrapper and timestamp-prefix stripping
 * (docs/format-nccl-log.md): what launchers (mpirun, srun, torchrun, Ray,
 * pdsh) and log collectors put in front of a line is read off its front
 * and noted in a struct nl_wrap (a rank label, a host, a date), so that
 * the driver and both grammars see the record itself.  Pure scanning: no
 * parse state, nothing stored.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include "hd-banned.h"

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

/*
 * Ray "(WorkerDict pid=4242, ip=10.1.0.5) " or a worker's own label
 * "(VllmWorker rank=3 pid=406) " (vLLM's multiprocess executor, and
 * those made in its shape), whose ") " is at q.  rank= is the worker's
 * rank in its engine's world: a label of the stream, as srun's task is.
 * Two of them on one line (a worker wrote its prefix, another its whole
 * line before the first's text): the text is the last one's.
 */
static size_t strip_ray(const char *p, const char *q, struct nl_wrap *w)
{
	const char *at = find(p, q - p, "pid="), *pid, *r;
	int64_t v;

	if (!at || (at[-1] != ' ' && at[-1] != '('))
		return 0;
	pid = at + 4;
	if (scan_int(&pid, q, &v))
		w->ray_pid = (int)clamp_int(v, 0, INT_MAX);
	/* "rank=" before "pid=" */
	r = find(p, at - p, " rank=");
	w->worker_rank = -1;
	if (r) {
		r += 6;
		if (scan_int(&r, q, &v) && v >= 0 && v < HD_MAX_RANKS &&
		    (*r == ' ' || *r == ')'))
			w->worker_rank = (int)v;
	}
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
