/*
 * The store's filters (hd-store.h): job attempts (hd_store_keep_attempt()),
 * the bounds on what input may claim (hd_store_bound()) and the time
 * window (hd_store_keep_window()).  Each drops records in place, counting
 * and naming what it dropped.
 */
#include "config.h"

#include "hd-store.h"

#include <stdarg.h>
#include <string.h>

#include "hd-banned.h"

void hd_store_filter_ops(struct hd_store *s,
			 bool (*drop)(struct hd_op *op, void *data), void *data)
{
	guint out = 0;

	for (guint i = 0; i < s->ops->len; i++) {
		struct hd_op *op = &g_array_index(s->ops, struct hd_op, i);

		if (drop(op, data))
			continue;
		if (out != i)
			g_array_index(s->ops, struct hd_op, out) = *op;
		out++;
	}
	g_array_set_size(s->ops, out);
}

/*
 * The array's clear function runs on the slots past the kept ones when it
 * shrinks: each was dropped (and cleared) or moved from, so none may
 * still own its text.
 */
void hd_store_filter_signals(struct hd_store *s,
			     bool (*drop)(struct hd_signal *sig, void *data),
			     void *data)
{
	guint out = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (drop(sig, data)) {
			/* what the array's clear function would do */
			g_clear_pointer(&sig->text, g_free);
			continue;
		}
		if (out != i) {
			g_array_index(s->signals, struct hd_signal, out) = *sig;
			sig->text = NULL;
		}
		out++;
	}
	g_array_set_size(s->signals, out);
}

/* The attempt of in that line falls in, from 0. */
static guint attempt_of(const struct hd_input *in, uint64_t line)
{
	guint k = 0;

	while (k + 1 < in->attempts->len &&
	       line >= g_array_index(in->attempts, struct hd_attempt, k + 1)
			       .first_line)
		k++;
	return k;
}

/*
 * Whether a record at prov is kept; counts it in its attempt when not.
 * keep[i] is the attempt kept of input i, G_MAXUINT for all.
 */
static bool keep_prov(const struct hd_store *s, const guint *keep,
		      const struct hd_prov *prov, struct hd_attempt **drop)
{
	const struct hd_input *in;
	guint k;

	*drop = NULL;
	if (prov->input >= s->inputs->len || keep[prov->input] == G_MAXUINT ||
	    prov->kind != HD_PROV_LINE)
		return true;
	in = g_ptr_array_index(s->inputs, prov->input);
	k = prov->attempt && prov->attempt <= in->attempts->len
		    ? prov->attempt - 1u
		    : attempt_of(in, prov->at);
	/* G_MAXUINT - 1: none of its attempts is kept */
	if (k == keep[prov->input])
		return true;
	*drop = &g_array_index(in->attempts, struct hd_attempt, k);
	return false;
}

struct attempt_ctx {
	const struct hd_store *s;
	const guint *keep;
};

static bool attempt_drop_op(struct hd_op *op, void *data)
{
	const struct attempt_ctx *ac = data;
	struct hd_prov prov = hd_op_prov(ac->s, op);
	struct hd_attempt *drop;

	if (keep_prov(ac->s, ac->keep, &prov, &drop))
		return false;
	drop->ops++;
	return true;
}

static bool attempt_drop_signal(struct hd_signal *sig, void *data)
{
	const struct attempt_ctx *ac = data;
	struct hd_attempt *drop;

	if (keep_prov(ac->s, ac->keep, &sig->prov, &drop))
		return false;
	if (sig->cat != HD_SIG_PROGRESS && sig->cat != HD_SIG_INFO &&
	    drop->trouble++ == 0)
		drop->first_trouble = g_strdup(sig->text);
	return true;
}

/*
 * Attempts per process life, not per file.  A rank's log rotated where a
 * restart began holds attempt 1 in its older file and attempt 2 in its
 * newer one, and each file numbers its own from 1; a log cut before a
 * restart holds attempt 1 only.  NCCL names each communicator it makes
 * (commId): one comm is one attempt, so two logs that hold the same comm
 * hold the same attempt, whatever each calls it.  The inputs tied so form
 * components in which each input's attempts are shifted to one numbering
 * (global = local + shift), found by a union-find with offsets over the
 * inputs; a component whose ties disagree keeps each file's own numbers.
 */
struct att_link {
	guint parent;
	int64_t shift; /* this input's global attempt minus its parent's */
	bool bad; /* (at the root) two ties disagree */
};

static guint link_find(struct att_link *l, guint i, int64_t *shift)
{
	int64_t sum = 0;
	guint r = i;

	while (l[r].parent != r) {
		sum += l[r].shift;
		r = l[r].parent;
	}
	/* path compression, keeping each input's offset to the root */
	for (guint k = i; l[k].parent != r;) {
		guint next = l[k].parent;
		int64_t rest = sum - l[k].shift;

		l[k].parent = r;
		l[k].shift = sum;
		sum = rest;
		k = next;
	}
	*shift = l[i].parent == i ? 0 : l[i].shift;
	return r;
}

/* Ties local attempt a of input i to local attempt b of input j. */
static void link_tie(struct att_link *l, guint i, int64_t a, guint j, int64_t b)
{
	int64_t si, sj;
	guint ri = link_find(l, i, &si), rj = link_find(l, j, &sj);

	/* a + shift(i) == b + shift(j) */
	if (ri == rj) {
		if (a + si != b + sj)
			l[ri].bad = true;
		return;
	}
	l[rj].parent = ri;
	l[rj].shift = a + si - b - sj;
	l[ri].bad |= l[rj].bad;
}

/* Local attempt (from 1) of a record of in at prov. */
static int64_t local_attempt(const struct hd_input *in,
			     const struct hd_prov *prov)
{
	if (!in->attempts || in->attempts->len < 2)
		return 1;
	if (prov->attempt && prov->attempt <= in->attempts->len)
		return prov->attempt;
	return (int64_t)attempt_of(in, prov->at) + 1;
}

static guint64 input_group_key(guint input, uint32_t group)
{
	return ((guint64)input << 32) | group;
}

/*
 * Without commIds (NCCL before 2.16) nothing names a comm across logs, so
 * a log of one attempt (cut before a restart, or of a rank an elastic
 * restart dropped) is placed among the attempts of a log that holds
 * several by what each attempt was: its size (the largest comm it made,
 * the job's world: an elastic restart changes it) and its time (no record
 * of an attempt is older than torchrun's restart line that began it).
 */
struct att_facts {
	guint cnt; /* its attempts */
	int64_t *world; /* per local attempt, from 1: its largest comm */
	bool has_id; /* it holds a comm NCCL named (commId) */
	/* a log of one attempt: its records' times, per clock */
	int64_t lo[HD_CLOCK_COUNT], hi[HD_CLOCK_COUNT];
};

/* Clock skew between hosts a restart time is trusted across. */
#define ATT_TIME_SLACK_NS HD_NS_PER_SEC

static void facts_time(struct att_facts *f, struct hd_time t)
{
	if (!hd_time_known(t))
		return;
	f->lo[t.clock] = MIN(f->lo[t.clock], t.ns);
	f->hi[t.clock] = MAX(f->hi[t.clock], t.ns);
}

static void facts_op_time(const struct hd_store *s, struct att_facts *f,
			  const struct hd_op *op)
{
	int64_t t[3] = { hd_op_t_enqueue(s, op), hd_op_t_start(s, op),
			 hd_op_t_end(s, op) };

	for (guint k = 0; k < G_N_ELEMENTS(t); k++)
		if (t[k] != INT64_MIN)
			facts_time(f, hd_op_time(s, op, t[k]));
}

static struct att_facts *gather_facts(const struct hd_store *s)
{
	guint n = s->inputs->len;
	struct att_facts *f = g_new0(struct att_facts, n + 1);

	for (guint i = 0; i < n; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		f[i].cnt = in->attempts && in->attempts->len >= 2
				   ? in->attempts->len
				   : 1;
		f[i].world = g_new0(int64_t, f[i].cnt + 1);
		for (guint c = 0; c < HD_CLOCK_COUNT; c++) {
			f[i].lo[c] = INT64_MAX;
			f[i].hi[c] = INT64_MIN;
		}
	}
	for (guint k = 0; k < s->ops->len; k++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, k);
		const struct hd_group *g;
		struct att_facts *fi;
		int64_t a = 1;

		if (op->input >= n || op->group >= s->groups->len ||
		    ((const struct hd_input *)g_ptr_array_index(s->inputs,
								op->input))
				    ->kind != HD_INPUT_NCCL_LOG)
			continue;
		fi = &f[op->input];
		g = g_ptr_array_index(s->groups, op->group);
		if (fi->cnt >= 2) {
			struct hd_prov prov = hd_op_prov(s, op);

			a = local_attempt(
				g_ptr_array_index(s->inputs, op->input), &prov);
		} else {
			facts_op_time(s, fi, op);
		}
		fi->has_id |= g->has_comm_id;
		fi->world[a] = MAX(fi->world[a], (int64_t)g->nranks);
	}
	for (guint k = 0; k < s->signals->len; k++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, k);

		if (sig->prov.input < n && f[sig->prov.input].cnt < 2)
			facts_time(&f[sig->prov.input], sig->time);
	}
	return f;
}

static void free_facts(struct att_facts *f, guint n)
{
	for (guint i = 0; i < n; i++)
		g_free(f[i].world);
	g_free(f);
}

/*
 * Where x's records lie against time b: -1 all before it, 1 all after,
 * 0 when unknown (no time of theirs compares with b) or across it.  A
 * month-day time (c10d's "E305 14:32:11") takes the year of b.
 */
static int time_side(const struct att_facts *x, struct hd_time b)
{
	int64_t lo, hi;

	if (!hd_time_is_dated(b))
		return 0;
	lo = x->lo[b.clock];
	hi = x->hi[b.clock];
	if (b.clock == HD_CLOCK_LOCAL &&
	    x->lo[HD_CLOCK_MONTH_DAY] <= x->hi[HD_CLOCK_MONTH_DAY]) {
		struct hd_time a = hd_time_make(x->lo[HD_CLOCK_MONTH_DAY],
						HD_CLOCK_MONTH_DAY);
		struct hd_time z = hd_time_make(x->hi[HD_CLOCK_MONTH_DAY],
						HD_CLOCK_MONTH_DAY);

		if (!hd_time_infer_year(&a, b) || !hd_time_infer_year(&z, b))
			return 0;
		lo = MIN(lo, a.ns);
		hi = MAX(hi, z.ns);
	}
	if (lo > hi)
		return 0;
	if (hi < b.ns - ATT_TIME_SLACK_NS)
		return -1;
	if (lo > b.ns + ATT_TIME_SLACK_NS)
		return 1;
	return 0;
}

/* The one attempt of y (from 1) of x's size, or 0. */
static int64_t fit_by_size(const struct att_facts *x, const struct att_facts *y)
{
	int64_t fit = 0;

	if (x->world[1] <= 0)
		return 0;
	for (guint a = 1; a <= y->cnt; a++) {
		if (y->world[a] != x->world[1])
			continue;
		if (fit)
			return 0;
		fit = a;
	}
	return fit;
}

/*
 * The one attempt of y (from 1) x's records lie within: after the
 * restart that began it and before the one that began the next.
 */
static int64_t fit_by_time(const struct att_facts *x, const struct att_facts *y,
			   const struct hd_input *yin)
{
	int64_t fit = 0;

	for (guint a = 1; a <= y->cnt; a++) {
		const struct hd_attempt *at =
			&g_array_index(yin->attempts, struct hd_attempt, a - 1);

		if (a > 1 && time_side(x, at->begun) != 1)
			continue;
		if (a < y->cnt && time_side(x, (at + 1)->begun) != -1)
			continue;
		if (fit)
			return 0;
		fit = a;
	}
	return fit;
}

/*
 * Ties each log of one attempt that no commId tied (and that names no
 * comm by one) to the attempt of each log of several that its size or
 * its time fits; where the two disagree that log ties it to nothing.
 * Ties that contradict each other mark the component bad, as commIds do.
 */
static void tie_by_size_and_time(const struct hd_store *s, struct att_link *l,
				 bool *tied)
{
	guint n = s->inputs->len;
	struct att_facts *f;
	bool several = false;

	/* most loads hold no restart: no pass over their ops */
	for (guint i = 0; i < n && !several; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		several = in->kind == HD_INPUT_NCCL_LOG && in->attempts &&
			  in->attempts->len >= 2;
	}
	if (!several)
		return;
	f = gather_facts(s);
	for (guint x = 0; x < n; x++) {
		const struct hd_input *xin = g_ptr_array_index(s->inputs, x);

		if (xin->kind != HD_INPUT_NCCL_LOG || tied[x] ||
		    f[x].cnt != 1 || f[x].has_id)
			continue;
		for (guint y = 0; y < n; y++) {
			const struct hd_input *yin =
				g_ptr_array_index(s->inputs, y);
			int64_t by_size, by_time, a;

			if (y == x || yin->kind != HD_INPUT_NCCL_LOG ||
			    f[y].cnt < 2)
				continue;
			by_size = fit_by_size(&f[x], &f[y]);
			by_time = fit_by_time(&f[x], &f[y], yin);
			if (by_size && by_time && by_size != by_time)
				continue;
			a = by_size ? by_size : by_time;
			if (!a)
				continue;
			link_tie(l, y, a, x, 1);
			tied[x] = tied[y] = true;
		}
	}
	free_facts(f, n);
}

/*
 * Fills shift[i] (global attempt = local + shift) and last[i] (the last
 * global attempt of input i's component), for every input; an input tied
 * to no other, or in a component whose ties disagree, keeps its own
 * numbers (shift 0, last its own count).
 */
static void align_attempts(const struct hd_store *s, int64_t *shift,
			   int64_t *last, bool *tied)
{
	guint n = s->inputs->len;
	g_autofree struct att_link *l = g_new0(struct att_link, n + 1);
	g_autofree int64_t *lo = g_new(int64_t, n + 1);
	g_autofree int64_t *hi = g_new(int64_t, n + 1);
	/* comm group -> (input << 32 | local attempt) that first held it */
	g_autoptr(GHashTable) first = g_hash_table_new_full(
		g_int64_hash, g_int64_equal, g_free, g_free);
	g_autoptr(GHashTable) seen = g_hash_table_new_full(
		g_int64_hash, g_int64_equal, g_free, NULL);
	/* the last key met: a log's ops mostly repeat it */
	guint64 last_key = 0;
	bool have_last = false;

	for (guint i = 0; i < n; i++) {
		l[i].parent = i;
		tied[i] = false;
	}
	for (guint k = 0; k < s->ops->len; k++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, k);
		const struct hd_input *in;
		const struct hd_group *g;
		struct hd_prov prov;
		guint64 key;
		int64_t a, *at;
		gint64 *gk;

		if (op->input >= n || op->group >= s->groups->len)
			continue;
		in = g_ptr_array_index(s->inputs, op->input);
		g = g_ptr_array_index(s->groups, op->group);
		if (in->kind != HD_INPUT_NCCL_LOG || !g->has_comm_id ||
		    g->low_confidence_identity)
			continue;
		/* a log of one attempt needs no provenance: the common case */
		if (!in->attempts || in->attempts->len < 2) {
			a = 1;
		} else {
			prov = hd_op_prov(s, op);
			a = local_attempt(in, &prov);
		}
		/* each (input, comm, attempt) once: a log has many ops */
		key = input_group_key(op->input, op->group) ^
		      ((guint64)a << 56);
		if (have_last && key == last_key)
			continue;
		last_key = key;
		have_last = true;
		if (g_hash_table_contains(seen, &key))
			continue;
		gk = g_new(gint64, 1);
		*gk = (gint64)key;
		g_hash_table_add(seen, gk);
		at = g_hash_table_lookup(first, &(gint64){ op->group });
		if (!at) {
			int64_t *v = g_new(int64_t, 2);

			gk = g_new(gint64, 1);
			*gk = op->group;
			v[0] = op->input;
			v[1] = a;
			g_hash_table_insert(first, gk, v);
			continue;
		}
		if ((guint)at[0] == op->input) {
			/* one comm in two attempts of one file: no tie holds */
			if (at[1] != a) {
				int64_t sh;

				l[link_find(l, op->input, &sh)].bad = true;
			}
			continue;
		}
		link_tie(l, (guint)at[0], at[1], op->input, a);
		tied[at[0]] = tied[op->input] = true;
	}
	tie_by_size_and_time(s, l, tied);
	/* each component's lowest first and highest last attempt */
	for (guint i = 0; i < n; i++) {
		lo[i] = INT64_MAX;
		hi[i] = INT64_MIN;
	}
	for (guint i = 0; i < n; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);
		int64_t cnt = in->attempts && in->attempts->len >= 2
				      ? in->attempts->len
				      : 1;
		guint r = link_find(l, i, &shift[i]);

		lo[r] = MIN(lo[r], 1 + shift[i]);
		hi[r] = MAX(hi[r], cnt + shift[i]);
	}
	for (guint i = 0; i < n; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);
		int64_t sh;
		guint r = link_find(l, i, &sh);

		if (!tied[i] || l[r].bad) {
			shift[i] = 0;
			last[i] = in->attempts && in->attempts->len >= 2
					  ? in->attempts->len
					  : 1;
			tied[i] = false;
			continue;
		}
		/* numbered from 1 in each component */
		shift[i] = sh - (lo[r] - 1);
		last[i] = hi[r] - (lo[r] - 1);
	}
}

/* Gives in a one-attempt table spanning it, to count what it held. */
static void whole_as_attempt(struct hd_input *in)
{
	struct hd_attempt *at;

	if (in->attempts && in->attempts->len)
		return;
	at = hd_input_new_attempt(in);
	at->first_line = 1;
	at->last_line = G_MAXUINT64;
}

void hd_store_keep_attempt(struct hd_store *s, int attempt)
{
	guint n = s->inputs->len;
	g_autofree guint *keep = g_new(guint, n + 1);
	g_autofree int64_t *shift = g_new0(int64_t, n + 1);
	g_autofree int64_t *last = g_new0(int64_t, n + 1);
	g_autofree bool *tied = g_new0(bool, n + 1);
	struct attempt_ctx ac = { s, keep };
	bool any = false;

	align_attempts(s, shift, last, tied);
	for (guint i = 0; i < n; i++) {
		struct hd_input *in = g_ptr_array_index(s->inputs, i);
		guint cnt = in->attempts && in->attempts->len >= 2
				    ? in->attempts->len
				    : 1;
		int64_t want, local;
		struct hd_attempt *end;

		keep[i] = G_MAXUINT;
		in->attempt_shift =
			(int32_t)CLAMP(shift[i], -G_MAXUINT16, G_MAXUINT16);
		in->attempt_none = false;
		if (cnt < 2 && !tied[i])
			continue;
		if (attempt > last[i])
			hd_input_warn(
				in, 0,
				"no attempt %d: this log holds %" G_GINT64_FORMAT
				"; analyzed the last",
				attempt, last[i]);
		want = attempt > 0 && attempt <= last[i] ? attempt : last[i];
		local = want - shift[i];
		if (local >= 1 && local <= (int64_t)cnt && cnt < 2)
			continue; /* its one attempt is the one analyzed */
		whole_as_attempt(in);
		end = &g_array_index(in->attempts, struct hd_attempt,
				     in->attempts->len - 1);
		if (!end->last_line)
			end->last_line = G_MAXUINT64;
		if (local >= 1 && local <= (int64_t)cnt) {
			keep[i] = (guint)local - 1;
			in->attempt = keep[i] + 1;
		} else {
			/* none of its attempts is the one analyzed */
			keep[i] = G_MAXUINT - 1;
			in->attempt = 0;
			in->attempt_none = true;
		}
		any = true;
	}
	if (!any)
		return;
	hd_store_filter_ops(s, attempt_drop_op, &ac);
	hd_store_filter_signals(s, attempt_drop_signal, &ac);
}

static bool rank_ok(int64_t r)
{
	return r >= -1 && r < HD_MAX_RANKS;
}

static bool seq_ok(int64_t seq)
{
	return seq >= -1 && seq <= HD_MAX_SEQ;
}

/*
 * v as the input said it, or, for a value an op's field keeps past the
 * bounds (hd_op_set_seq(), hd_op_set_rank()), as far as it is known.
 */
static char *bound_value(const char *what, int64_t v)
{
	bool seq = strcmp(what, "seq") == 0;
	bool rank = strcmp(what, "rank") == 0;

	if ((seq && v == HD_SEQ_OUT) || (rank && v == HD_WHO_OUT))
		return g_strdup_printf("past %" G_GINT64_FORMAT, v - 1);
	if ((seq && v == -HD_MAX_SEQ) || (rank && v == -HD_MAX_RANKS))
		return g_strdup_printf("of %" G_GINT64_FORMAT " or less", v);
	return g_strdup_printf("%" G_GINT64_FORMAT, v);
}

/* One warning per input and kind of value, at the record or line. */
static void bound_warn(struct hd_store *s, const struct hd_prov *p,
		       const char *what, int64_t v, uint32_t *warned)
{
	g_autofree char *where = NULL;
	g_autofree char *value = NULL;
	struct hd_input *in;
	bool line = p && p->kind == HD_PROV_LINE;

	if (!s->inputs->len || (*warned)++)
		return;
	in = hd_store_input(s, p && p->input < s->inputs->len ? p->input : 0);
	where = p && !line ? g_strdup_printf("record %" G_GUINT64_FORMAT ": ",
					     p->at)
			   : g_strdup("");
	value = bound_value(what, v);
	hd_input_warn(
		in, line ? p->at : 0,
		"%s%s %s is out of range (ranks below %d, sequence numbers up to 2^38): dropped",
		where, what, value, HD_MAX_RANKS);
}

/*
 * An absolute time (UTC or local) must lie in 1970..2199: past that,
 * differences of times overflow.  Returns false when *ns was cleared.
 */
static bool time_ok(enum hd_clock clock, int64_t *ns)
{
	if (*ns == INT64_MIN ||
	    (clock != HD_CLOCK_UTC && clock != HD_CLOCK_LOCAL &&
	     clock != HD_CLOCK_NONE) ||
	    (*ns >= 0 && *ns < HD_TIME_NS_MAX))
		return true;
	*ns = INT64_MIN;
	return false;
}

/* Says once per store that a time was out of range and forgotten. */
static void bound_time_warn(struct hd_store *s, const struct hd_prov *p,
			    int64_t v, uint32_t *warned)
{
	bool line = p && p->kind == HD_PROV_LINE;

	if (!s->inputs->len || (*warned)++)
		return;
	hd_input_warn(hd_store_input(
			      s, p && p->input < s->inputs->len ? p->input : 0),
		      line ? p->at : 0,
		      "%s%" G_GINT64_FORMAT
		      " ns is no time between 1970 and 2200: taken as unknown",
		      line ? "" : "a record's time ", v);
}

struct bound_ctx {
	struct hd_store *s;
	uint32_t warned, twarned;
	/* the clock of the last op's input: an input's ops are adjacent */
	uint32_t last_input;
	enum hd_clock clock;
};

static bool bound_drop_op(struct hd_op *op, void *data)
{
	struct bound_ctx *b = data;
	struct hd_store *s = b->s;
	struct hd_prov prov;
	/* an anonymous process's index is bounded like a rank */
	int64_t who = hd_op_is_anon(op) ? hd_op_anon(op) : hd_op_rank(op);

	if (op->input != b->last_input) {
		b->last_input = op->input;
		b->clock = op->input < s->inputs->len
				   ? hd_store_input(s, op->input)->op_clock
				   : HD_CLOCK_NONE;
	}
	if (op->has_extra) {
		struct hd_op_extra x = hd_op_extra(s, op);
		int64_t ts[] = { x.t_enqueue_ns, x.t_start_ns, x.t_end_ns };
		int64_t bad = INT64_MIN;

		for (size_t k = 0; k < G_N_ELEMENTS(ts); k++) {
			int64_t v = ts[k];

			if (!time_ok(b->clock, &ts[k]) && bad == INT64_MIN)
				bad = v;
		}
		/* a time forgotten: the record coded again */
		if (bad != INT64_MIN) {
			hd_op_set_times(s, op, ts[0], ts[1], ts[2]);
			prov = hd_op_prov(s, op);
			bound_time_warn(s, &prov, bad, &b->twarned);
		}
	}
	if (rank_ok(who) && seq_ok(op->seq))
		return false;
	/* the provenance only for a warning */
	prov = hd_op_prov(s, op);
	bound_warn(s, &prov, rank_ok(who) ? "seq" : "rank",
		   rank_ok(who) ? op->seq : who, &b->warned);
	return true;
}

static bool bound_drop(struct hd_signal *sig, void *data)
{
	struct bound_ctx *b = data;

	/* an anonymous process's index is bounded like a rank */
	int64_t rank = rank_ok(sig->rank) ? sig->anon : sig->rank;

	if (!rank_ok(rank) || !seq_ok(sig->seq)) {
		bound_warn(b->s, &sig->prov, rank_ok(rank) ? "seq" : "rank",
			   rank_ok(rank) ? sig->seq : rank, &b->warned);
		return true;
	}
	if (!rank_ok(sig->peer_rank))
		sig->peer_rank = -1;
	if (!time_ok(sig->time.clock, &sig->time.ns))
		sig->time = hd_time_none();
	return false;
}

static void bound_groups(struct hd_store *s)
{
	uint32_t warned = 0;

	for (guint i = 0; i < s->groups->len; i++) {
		struct hd_group *g = g_ptr_array_index(s->groups, i);

		/* a shared list was checked once, when it was made */
		if (g->shared && !g->shared->bounded)
			hd_group_own_members(g);
		for (guint m = 0; !g->shared && m < g->members->len; m++) {
			int *r = &g_array_index(g->members, int, m);

			if (*r >= -1 && *r < HD_MAX_RANKS)
				continue;
			bound_warn(s, NULL, "group member rank", *r, &warned);
			*r = -1;
		}
		if (g->nranks < 0 || g->nranks > HD_MAX_RANKS)
			g->nranks = (int)g->members->len;
	}
}

/* The ranks a store shows: known group members, or ranks with data. */
static int64_t shown_ranks(const struct hd_store *s, const struct hd_group *g)
{
	int64_t known = g && g->shared ? g->shared->nknown : 0;

	for (guint m = 0; g && !g->shared && m < g->members->len; m++)
		known += g_array_index(g->members, int, m) >= 0;
	return MAX(known, (int64_t)g_hash_table_size(s->ranks));
}

/*
 * Sizes the input claims (a group's nranks, the world size) cost memory
 * and output in proportion to the claim: one Init line claiming 4M ranks
 * must not make a report list 4M missing ranks.  A claim past what the
 * store shows is cut to what it shows, with a warning.
 */
static void bound_claims(struct hd_store *s)
{
	bool warned = false;
	int64_t most = 0;

	for (guint i = 0; i < s->groups->len; i++) {
		struct hd_group *g = g_ptr_array_index(s->groups, i);
		int64_t shown = shown_ranks(s, g);

		if (g->members_refused && !warned && s->inputs->len) {
			hd_input_warn(
				hd_store_input(s, 0), 0,
				"group '%s': %u members at group ranks far past the %u known were not believed (warned once)",
				g->id, g->members_refused, g->nknown);
			warned = true;
		}
		if (g->nranks >= 0 && !hd_claim_believed(g->nranks, shown)) {
			if (!warned && s->inputs->len)
				hd_input_warn(
					hd_store_input(s, 0), 0,
					"group '%s' claims %d ranks but the input shows %" G_GINT64_FORMAT
					": sized to what it shows (warned once)",
					g->id, g->nranks, shown);
			warned = true;
			g->nranks = (int)g->members->len;
		}
		most = MAX(most, g->nranks);
	}
	if (s->world_size > most &&
	    !hd_claim_believed(s->world_size, shown_ranks(s, NULL))) {
		if (s->inputs->len)
			hd_input_warn(
				hd_store_input(s, 0), 0,
				"world size %d claimed but the input shows %" G_GINT64_FORMAT
				" ranks: not believed",
				s->world_size, shown_ranks(s, NULL));
		s->world_size = -1;
	}
}

void hd_store_bound(struct hd_store *s)
{
	GHashTableIter it;
	gpointer key, value;
	uint32_t warned = 0;

	{
		struct bound_ctx b = { .s = s, .last_input = UINT32_MAX };
		struct bound_ctx bs = { .s = s, .last_input = UINT32_MAX };

		hd_store_filter_ops(s, bound_drop_op, &b);
		hd_store_filter_signals(s, bound_drop, &bs);
	}
	bound_groups(s);
	bound_claims(s);
	for (guint i = 0; i < s->inputs->len; i++) {
		struct hd_input *in = hd_store_input(s, i);

		if (in->rank < -1 || in->rank >= HD_MAX_RANKS) {
			struct hd_prov p = { .input = i, .kind = HD_PROV_LINE };

			bound_warn(s, &p, "rank", in->rank, &warned);
			in->rank = -1;
		}
	}
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &key, &value))
		if (!rank_ok(((struct hd_rank *)value)->rank))
			g_hash_table_iter_remove(&it);
	if (s->world_size < -1 || s->world_size > HD_MAX_RANKS)
		s->world_size = -1;
}

/*
 * Whether a time lies outside w; *unjudged counts known times whose clock
 * w cannot be compared with.
 */
static bool outside_window(const struct hd_window *w, struct hd_time t,
			   uint64_t *unjudged)
{
	int64_t v = t.ns;

	if (!hd_time_known(t))
		return false;
	if (w->time_of_day) {
		switch (t.clock) {
		case HD_CLOCK_UTC:
		case HD_CLOCK_LOCAL:
		case HD_CLOCK_MONTH_DAY:
		case HD_CLOCK_TIME_OF_DAY:
			v %= HD_NS_PER_DAY;
			if (v < 0)
				v += HD_NS_PER_DAY;
			break;
		default:
			(*unjudged)++;
			return false;
		}
	} else if (t.clock != HD_CLOCK_UTC) {
		(*unjudged)++;
		return false;
	}
	return v < w->since || v > w->until;
}

struct window_ctx {
	const struct hd_store *s;
	const struct hd_window *w;
	uint64_t ops, sigs, unjudged;
};

/* An op's time: when it started, else was enqueued, else ended. */
static struct hd_time op_time(const struct hd_store *s, const struct hd_op *op)
{
	struct hd_op_extra x = hd_op_extra(s, op);

	if (x.t_start_ns != INT64_MIN)
		return hd_op_time(s, op, x.t_start_ns);
	if (x.t_enqueue_ns != INT64_MIN)
		return hd_op_time(s, op, x.t_enqueue_ns);
	return hd_op_time(s, op, x.t_end_ns);
}

static bool window_drop_op(struct hd_op *op, void *data)
{
	struct window_ctx *wc = data;

	if (!outside_window(wc->w, op_time(wc->s, op), &wc->unjudged))
		return false;
	wc->ops++;
	return true;
}

static bool window_drop_signal(struct hd_signal *sig, void *data)
{
	struct window_ctx *wc = data;

	if (!outside_window(wc->w, sig->time, &wc->unjudged))
		return false;
	wc->sigs++;
	return true;
}

struct hd_time hd_op_time(const struct hd_store *s, const struct hd_op *op,
			  int64_t ns)
{
	if (ns == INT64_MIN || op->input >= s->inputs->len)
		return hd_time_none();
	return hd_time_make(ns, hd_store_input(s, op->input)->op_clock);
}

void hd_store_keep_window(struct hd_store *s, const struct hd_window *w)
{
	struct window_ctx wc = { s, w, 0, 0, 0 };

	if (!w ||
	    (!w->time_of_day && w->since == INT64_MIN && w->until == INT64_MAX))
		return;
	hd_store_filter_ops(s, window_drop_op, &wc);
	hd_store_filter_signals(s, window_drop_signal, &wc);
	if ((wc.ops || wc.sigs) && s->inputs->len)
		hd_input_warn(hd_store_input(s, 0), 0,
			      "%" G_GUINT64_FORMAT " ops and %" G_GUINT64_FORMAT
			      " signals outside --since/--until, not analyzed",
			      wc.ops, wc.sigs);
	if (wc.unjudged && s->inputs->len)
		hd_input_warn(
			hd_store_input(s, 0), 0,
			"%" G_GUINT64_FORMAT
			" records kept whatever --since/--until say: their times are %s",
			wc.unjudged,
			w->time_of_day
				? "trace- or boot-relative"
				: "local of unknown zone (or relative), and the bounds are UTC");
}
