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
	if (k == keep[prov->input])
		return true;
	*drop = &g_array_index(in->attempts, struct hd_attempt, k);
	return false;
}

void hd_store_keep_attempt(struct hd_store *s, int attempt)
{
	g_autofree guint *keep = g_new(guint, s->inputs->len + 1);
	struct hd_attempt *drop;
	bool any = false;
	guint n;

	for (guint i = 0; i < s->inputs->len; i++) {
		struct hd_input *in = g_ptr_array_index(s->inputs, i);
		struct hd_attempt *last;

		keep[i] = G_MAXUINT;
		if (!in->attempts || in->attempts->len < 2)
			continue;
		last = &g_array_index(in->attempts, struct hd_attempt,
				      in->attempts->len - 1);
		if (!last->last_line)
			last->last_line = G_MAXUINT64;
		if (attempt > (int)in->attempts->len)
			hd_input_warn(
				in, 0,
				"no attempt %d: this log holds %u; analyzed the last",
				attempt, in->attempts->len);
		keep[i] = attempt > 0 && attempt <= (int)in->attempts->len
				  ? (guint)attempt - 1
				  : in->attempts->len - 1;
		in->attempt = keep[i] + 1;
		any = true;
	}
	if (!any)
		return;
	n = 0;
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		struct hd_prov prov = hd_op_prov(s, op);

		if (!keep_prov(s, keep, &prov, &drop)) {
			drop->ops++;
			continue;
		}
		if (n != i)
			g_array_index(s->ops, struct hd_op, n) = *op;
		n++;
	}
	g_array_set_size(s->ops, n);
	n = 0;
	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (!keep_prov(s, keep, &sig->prov, &drop)) {
			if (sig->cat != HD_SIG_PROGRESS &&
			    sig->cat != HD_SIG_INFO && drop->trouble++ == 0)
				drop->first_trouble = g_strdup(sig->text);
			g_free(sig->text);
			sig->text = NULL;
			continue;
		}
		if (n != i) {
			g_array_index(s->signals, struct hd_signal, n) = *sig;
			/* moved: the clear on shrinking must not free it */
			sig->text = NULL;
		}
		n++;
	}
	g_array_set_size(s->signals, n);
}

static bool rank_ok(int64_t r)
{
	return r >= -1 && r < HD_MAX_RANKS;
}

static bool seq_ok(int64_t seq)
{
	return seq >= -1 && seq <= HD_MAX_SEQ;
}

/* One warning per input and kind of value, at the record or line. */
static void bound_warn(struct hd_store *s, const struct hd_prov *p,
		       const char *what, int64_t v, uint32_t *warned)
{
	g_autofree char *where = NULL;
	struct hd_input *in;
	bool line = p && p->kind == HD_PROV_LINE;

	if (!s->inputs->len || (*warned)++)
		return;
	in = hd_store_input(s, p && p->input < s->inputs->len ? p->input : 0);
	where = p && !line ? g_strdup_printf("record %" G_GUINT64_FORMAT ": ",
					     p->at)
			   : g_strdup("");
	hd_input_warn(
		in, line ? p->at : 0,
		"%s%s %" G_GINT64_FORMAT
		" is out of range (ranks below %d, sequence numbers up to 2^48): dropped",
		where, what, v, HD_MAX_RANKS);
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

static void bound_ops(struct hd_store *s)
{
	uint32_t warned = 0, out = 0, twarned = 0;

	for (guint i = 0; i < s->ops->len; i++) {
		struct hd_op *op = &g_array_index(s->ops, struct hd_op, i);
		enum hd_clock clock =
			op->input < s->inputs->len
				? hd_store_input(s, op->input)->op_clock
				: HD_CLOCK_NONE;
		struct hd_prov prov = hd_op_prov(s, op);
		/* an anonymous process's index is bounded like a rank */
		int64_t who =
			hd_op_is_anon(op) ? hd_op_anon(op) : hd_op_rank(op);

		if (op->has_extra) {
			struct hd_op_extra *x = &g_array_index(
				s->op_extra, struct hd_op_extra, op->slot);
			int64_t *ts[] = { &x->t_enqueue_ns, &x->t_start_ns,
					  &x->t_end_ns };
			int64_t bad = INT64_MIN;

			for (size_t k = 0; k < G_N_ELEMENTS(ts); k++) {
				int64_t v = *ts[k];

				if (!time_ok(clock, ts[k]) && bad == INT64_MIN)
					bad = v;
			}
			if (bad != INT64_MIN)
				bound_time_warn(s, &prov, bad, &twarned);
		}

		if (!rank_ok(who) || !seq_ok(op->seq)) {
			bound_warn(s, &prov, rank_ok(who) ? "seq" : "rank",
				   rank_ok(who) ? op->seq : who, &warned);
			continue;
		}
		if (out != i)
			g_array_index(s->ops, struct hd_op, out) = *op;
		out++;
	}
	g_array_set_size(s->ops, out);
}

/*
 * Keeps the signals drop() says no to, in order.  The array's clear
 * function runs on the slots past the kept ones when it shrinks: each was
 * dropped (and cleared) or moved from, so none may still own its text.
 */
static void signals_filter(struct hd_store *s,
			   bool (*drop)(struct hd_signal *sig, void *data),
			   void *data)
{
	uint32_t out = 0;

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

struct bound_ctx {
	struct hd_store *s;
	uint32_t warned;
};

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

static void bound_signals(struct hd_store *s)
{
	struct bound_ctx b = { s, 0 };

	signals_filter(s, bound_drop, &b);
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

	bound_ops(s);
	bound_signals(s);
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
	const struct hd_window *w;
	uint64_t dropped, unjudged;
};

static bool window_drop(struct hd_signal *sig, void *data)
{
	struct window_ctx *wc = data;

	if (!outside_window(wc->w, sig->time, &wc->unjudged))
		return false;
	wc->dropped++;
	return true;
}

/* An op's time: when it started, else was enqueued, else ended. */
static struct hd_time op_time(const struct hd_store *s, const struct hd_op *op)
{
	const struct hd_op_extra *x = hd_op_extra(s, op);

	if (x->t_start_ns != INT64_MIN)
		return hd_op_time(s, op, x->t_start_ns);
	if (x->t_enqueue_ns != INT64_MIN)
		return hd_op_time(s, op, x->t_enqueue_ns);
	return hd_op_time(s, op, x->t_end_ns);
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
	uint64_t ops = 0, sigs = 0, unjudged = 0;
	guint out = 0;

	if (!w ||
	    (!w->time_of_day && w->since == INT64_MIN && w->until == INT64_MAX))
		return;
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (outside_window(w, op_time(s, op), &unjudged)) {
			ops++;
			continue;
		}
		if (out != i)
			g_array_index(s->ops, struct hd_op, out) = *op;
		out++;
	}
	g_array_set_size(s->ops, out);
	{
		struct window_ctx wc = { w, 0, 0 };

		signals_filter(s, window_drop, &wc);
		sigs = wc.dropped;
		unjudged += wc.unjudged;
	}
	if ((ops || sigs) && s->inputs->len)
		hd_input_warn(hd_store_input(s, 0), 0,
			      "%" G_GUINT64_FORMAT " ops and %" G_GUINT64_FORMAT
			      " signals outside --since/--until, not analyzed",
			      ops, sigs);
	if (unjudged && s->inputs->len)
		hd_input_warn(
			hd_store_input(s, 0), 0,
			"%" G_GUINT64_FORMAT
			" records kept whatever --since/--until say: their times are %s",
			unjudged,
			w->time_of_day
				? "trace- or boot-relative"
				: "local of unknown zone (or relative), and the bounds are UTC");
}
