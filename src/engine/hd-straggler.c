/*
 * Straggler analysis (spec: format-kineto-trace.md section 9).  Timed ops
 * of different ranks are matched by (group, seq kind, seq); each matched
 * position is sanity-checked (kind, count, dtype), and when too many
 * disagree the traces are declared unalignable instead of blamed.  Clock
 * offsets are estimated per host from the end times of blocking
 * collectives, which finish almost together everywhere; after correction,
 * the rank that starts a collective last is the one the others wait for.
 * A rank that is last persistently, by a margin well above the clock
 * uncertainty, is a straggler; a rank whose clock is merely offset is not.
 */
#include "config.h"

#include "hd-straggler.h"

#include <stdlib.h>
#include <string.h>

#include "hd-checks.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-banned.h"

/* Positions that may disagree before alignment is refused. */
#define MAX_DISAGREE_FRAC 0.10
/* Collectives a rank must be last in, at least, to be a straggler. */
#define MIN_MATCHED 5
/* Below this start spread a collective has no meaningful last arrival. */
#define MIN_SPREAD_NS 5000

struct pos {
	uint32_t group;
	uint8_t seq_kind;
	int64_t seq;
	GArray *ops; /* guint op indices, one per rank */
	bool bad;
};

struct clock {
	GArray *diffs; /* int64 end_clock - end_ref */
	int64_t offset, unc;
	bool has;
};

static void pos_free(gpointer p)
{
	struct pos *x = p;

	g_array_unref(x->ops);
	g_free(x);
}

static int cmp_pos(gconstpointer a, gconstpointer b)
{
	const struct pos *x = *(struct pos *const *)a;
	const struct pos *y = *(struct pos *const *)b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->seq_kind != y->seq_kind)
		return x->seq_kind < y->seq_kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Median of n values (sorts them). */
static int64_t median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), hd_compare_i64);
	if (n % 2)
		return v[n / 2];
	return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

static int64_t mad(const int64_t *v, size_t n, int64_t med)
{
	g_autofree int64_t *d = g_new(int64_t, n ? n : 1);

	for (size_t i = 0; i < n; i++)
		d[i] = v[i] > med ? v[i] - med : med - v[i];
	return n ? median(d, n) : 0;
}

static bool is_blocking(int kind)
{
	return kind == HD_OP_ALL_REDUCE || kind == HD_OP_ALL_GATHER ||
	       kind == HD_OP_REDUCE_SCATTER || kind == HD_OP_BROADCAST;
}

static const struct hd_op *op_at(const struct hd_store *s, const struct pos *p,
				 guint i)
{
	return &g_array_index(s->ops, struct hd_op,
			      g_array_index(p->ops, guint, i));
}

/* Why a position's ops cannot be the same collective, or NULL. */
static const char *disagreement(const struct hd_store *s, const struct pos *p)
{
	const struct hd_op *a = op_at(s, p, 0);

	for (guint i = 1; i < p->ops->len; i++) {
		const struct hd_op *b = op_at(s, p, i);

		if (a->kind != b->kind)
			return "kind";
		if (hd_op_desc(a)->dtype && hd_op_desc(b)->dtype &&
		    hd_op_desc(a)->dtype != hd_op_desc(b)->dtype)
			return "dtype";
		if (a->kind != HD_OP_ALL_TO_ALL &&
		    !hd_op_kind_is_p2p(a->kind) &&
		    hd_op_desc(a)->count_in >= 0 &&
		    hd_op_desc(b)->count_in >= 0 &&
		    hd_op_desc(a)->count_in != hd_op_desc(b)->count_in)
			return "count";
	}
	return NULL;
}

static char *fmt_ns(int64_t ns)
{
	int64_t a = ns < 0 ? -ns : ns;
	const char *sign = ns < 0 ? "-" : "";

	if (a >= 1000000000)
		return g_strdup_printf("%s%.2f s", sign, a / 1e9);
	if (a >= 1000000)
		return g_strdup_printf("%s%.2f ms", sign, a / 1e6);
	if (a >= 1000)
		return g_strdup_printf("%s%.1f us", sign, a / 1e3);
	return g_strdup_printf("%s%" G_GINT64_FORMAT " ns", sign, a);
}

struct ctx {
	const struct hd_store *s;
	struct hd_analysis *a;
	GPtrArray *positions; /* struct pos *, sorted */
	GArray *ranks; /* int, ascending */
	GHashTable *clock_of; /* rank -> clock index + 1 */
	GPtrArray *clocks; /* struct clock * */
	int ref_clock;
	/* earliest start and latest end of the tallied positions, corrected */
	int64_t span_lo, span_hi;
};

static int clock_idx(struct ctx *c, int rank)
{
	return GPOINTER_TO_INT(g_hash_table_lookup(c->clock_of,
						   GINT_TO_POINTER(rank))) -
	       1;
}

static void clock_free(gpointer p)
{
	struct clock *k = p;

	g_array_unref(k->diffs);
	g_free(k);
}

static void collect(struct ctx *c)
{
	g_autoptr(GHashTable) byk =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	/* "host|clock" -> clock index: ranks of one host share a clock */
	g_autoptr(GHashTable) hosts =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	/* rank -> the clock (enum hd_clock) + 1 its ops are read on */
	g_autoptr(GHashTable) rank_kind =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	const struct hd_store *s = c->s;

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		char key[96];
		struct pos *p;
		bool dup = false;
		enum hd_clock kind;
		gpointer seen;

		if (hd_op_rank(op) < 0 || op->seq < 0 ||
		    hd_op_t_start(s, op) == INT64_MIN ||
		    hd_op_t_end(s, op) == INT64_MIN)
			continue;
		/*
		 * One clock per rank: a rank's dump (UTC) and its trace
		 * (trace-relative) cannot be corrected by one offset; the
		 * first clock read is kept.
		 */
		kind = (enum hd_clock)hd_op_time(s, op, hd_op_t_start(s, op))
			       .clock;
		seen = g_hash_table_lookup(rank_kind,
					   GINT_TO_POINTER(hd_op_rank(op)));
		if (!seen)
			g_hash_table_insert(rank_kind,
					    GINT_TO_POINTER(hd_op_rank(op)),
					    GINT_TO_POINTER((int)kind + 1));
		else if (GPOINTER_TO_INT(seen) != (int)kind + 1)
			continue;
		g_snprintf(key, sizeof(key), "%u/%u/%" G_GINT64_FORMAT,
			   op->group, op->seq_kind, (int64_t)op->seq);
		p = g_hash_table_lookup(byk, key);
		if (!p) {
			p = g_new0(struct pos, 1);
			p->group = op->group;
			p->seq_kind = op->seq_kind;
			p->seq = op->seq;
			p->ops = g_array_new(FALSE, FALSE, sizeof(guint));
			g_hash_table_insert(byk, g_strdup(key), p);
			g_ptr_array_add(c->positions, p);
		}
		for (guint j = 0; j < p->ops->len && !dup; j++)
			dup = hd_op_rank(op_at(s, p, j)) == hd_op_rank(op);
		if (!dup)
			g_array_append_val(p->ops, i);
		if (!g_hash_table_contains(c->clock_of,
					   GINT_TO_POINTER(hd_op_rank(op)))) {
			const struct hd_rank *r =
				hd_store_find_rank(s, hd_op_rank(op));
			/* a trace's own clock is its input's alone */
			g_autofree char *hk =
				r && r->host && kind != HD_CLOCK_TRACE
					? g_strdup_printf("%s|%d", r->host,
							  (int)kind)
					: NULL;
			int idx;

			if (hk && g_hash_table_contains(hosts, hk)) {
				idx = GPOINTER_TO_INT(
					g_hash_table_lookup(hosts, hk));
			} else {
				struct clock *k = g_new0(struct clock, 1);

				k->diffs = g_array_new(FALSE, FALSE,
						       sizeof(int64_t));
				g_ptr_array_add(c->clocks, k);
				idx = (int)c->clocks->len - 1;
				if (hk)
					g_hash_table_insert(
						hosts, g_steal_pointer(&hk),
						GINT_TO_POINTER(idx));
			}
			g_hash_table_insert(c->clock_of,
					    GINT_TO_POINTER(hd_op_rank(op)),
					    GINT_TO_POINTER(idx + 1));
			{
				int who = hd_op_rank(op);

				g_array_append_val(c->ranks, who);
			}
		}
	}
	g_ptr_array_sort(c->positions, cmp_pos);
}

/* Median end time of the ranks of clock k at position p, or INT64_MIN. */
static int64_t clock_end(struct ctx *c, const struct pos *p, int k)
{
	int64_t v[64];
	size_t n = 0;

	for (guint i = 0; i < p->ops->len && n < G_N_ELEMENTS(v); i++) {
		const struct hd_op *op = op_at(c->s, p, i);

		if (clock_idx(c, hd_op_rank(op)) == k)
			v[n++] = hd_op_t_end(c->s, op);
	}
	return n ? median(v, n) : INT64_MIN;
}

static void estimate_offsets(struct ctx *c)
{
	c->ref_clock = clock_idx(c, g_array_index(c->ranks, int, 0));
	for (guint i = 0; i < c->positions->len; i++) {
		struct pos *p = g_ptr_array_index(c->positions, i);
		int64_t ref;

		if (p->bad || p->ops->len < 2 ||
		    !is_blocking(op_at(c->s, p, 0)->kind) ||
		    (op_at(c->s, p, 0)->flags & HD_OPF_COALESCED_MEMBER))
			continue;
		ref = clock_end(c, p, c->ref_clock);
		if (ref == INT64_MIN)
			continue;
		for (guint k = 0; k < c->clocks->len; k++) {
			struct clock *ck = g_ptr_array_index(c->clocks, k);
			int64_t e, d;

			if ((int)k == c->ref_clock)
				continue;
			e = clock_end(c, p, (int)k);
			if (e == INT64_MIN)
				continue;
			d = e - ref;
			g_array_append_val(ck->diffs, d);
		}
	}
	for (guint k = 0; k < c->clocks->len; k++) {
		struct clock *ck = g_ptr_array_index(c->clocks, k);
		int64_t *v = (int64_t *)(void *)ck->diffs->data;
		size_t n = ck->diffs->len, m = 0;
		int64_t med, dev;

		if ((int)k == c->ref_clock) {
			ck->has = true;
			continue;
		}
		if (n == 0)
			continue;
		med = median(v, n);
		dev = mad(v, n, med);
		/* Drop outliers: more than 5 MADs (at least 10 us) away. */
		for (size_t i = 0; i < n; i++) {
			int64_t d = v[i] > med ? v[i] - med : med - v[i];

			if (d <= MAX(5 * dev, 10000))
				v[m++] = v[i];
		}
		ck->offset = median(v, m);
		ck->unc = MAX(mad(v, m, ck->offset), 1000);
		ck->has = true;
	}
}

struct rank_acc {
	GArray *lags; /* int64 */
	GArray *margins; /* int64, where it was last */
	uint32_t matched, last;
	int64_t waited;
	int64_t others_waited; /* summed over the other ranks */
	guint example; /* op index of the collective it led most */
	int64_t example_margin;
	bool has_example;
};

/*
 * The performance note: who was last how often, and what it cost the
 * others against the time the matched collectives spanned.
 */
static void fill_perf(struct ctx *c, const struct rank_acc *acc, guint nr,
		      int best, int64_t margin)
{
	struct hd_perf *p = &c->a->perf;
	g_autofree char *mtxt = fmt_ns(margin);
	g_autofree char *wtxt = NULL;
	g_autofree char *stxt = NULL;

	p->known = true;
	p->rank = g_array_index(c->ranks, int, best);
	p->times_last = acc[best].last;
	p->matched = acc[best].matched;
	p->median_margin_ns = margin;
	p->wait_imposed_ns = acc[best].waited;
	p->others_wait_ns = nr > 1 ? acc[best].others_waited / (nr - 1) : 0;
	p->step_ns = c->span_hi > c->span_lo ? c->span_hi - c->span_lo : -1;
	wtxt = fmt_ns(p->others_wait_ns);
	if (p->step_ns > 0) {
		stxt = fmt_ns(p->step_ns);
		p->summary = g_strdup_printf(
			"rank %d started last in %u of %u matched collectives, by a median %s; the other ranks waited %s each for it, %.1f%% of the %s those collectives spanned",
			p->rank, p->times_last, p->matched, mtxt, wtxt,
			100.0 * (double)p->others_wait_ns / (double)p->step_ns,
			stxt);
	} else {
		p->summary = g_strdup_printf(
			"rank %d started last in %u of %u matched collectives, by a median %s; the other ranks waited %s each for it",
			p->rank, p->times_last, p->matched, mtxt, wtxt);
	}
}

static void add_verdict(struct ctx *c, struct rank_acc *acc, guint nr,
			uint32_t considered, bool ordinal_only,
			GPtrArray *ruled)
{
	const struct hd_store *s = c->s;
	int best = -1;
	double share;
	int64_t margin, unc = 0;
	struct hd_verdict *v;
	enum hd_confidence conf;
	g_autofree char *mtxt = NULL, *wtxt = NULL, *utxt = NULL;
	g_autofree char *src = NULL;
	struct clock *ck;

	for (guint i = 0; i < nr; i++)
		if (best < 0 || acc[i].last > acc[best].last)
			best = (int)i;
	if (best < 0 || acc[best].last == 0)
		return;
	share = acc[best].matched ? (double)acc[best].last / acc[best].matched
				  : 0;
	margin = median((int64_t *)(void *)acc[best].margins->data,
			acc[best].margins->len);
	for (guint k = 0; k < c->clocks->len; k++) {
		ck = g_ptr_array_index(c->clocks, k);
		unc = MAX(unc, ck->unc);
	}
	mtxt = fmt_ns(margin);
	utxt = fmt_ns(unc);
	if (acc[best].matched < MIN_MATCHED || share <= 0.5 ||
	    acc[best].last < 3 || margin < 3 * unc + MIN_SPREAD_NS) {
		if (acc[best].last >= 2)
			g_ptr_array_add(
				c->a->notes,
				g_strdup_printf(
					"no persistent straggler: rank %d arrived last in %u of %u matched collectives (median margin %s, clock uncertainty %s)",
					g_array_index(c->ranks, int, best),
					acc[best].last, acc[best].matched, mtxt,
					utxt));
		return;
	}
	conf = share >= 0.8 && acc[best].matched >= 10 ? HD_CONF_HIGH
						       : HD_CONF_MEDIUM;
	if (ordinal_only && conf > HD_CONF_MEDIUM)
		conf = HD_CONF_MEDIUM;
	wtxt = fmt_ns(acc[best].waited);
	v = hd_verdict_new(
		HD_V_STRAGGLER, conf,
		"rank %d is a straggler: last to arrive at %u of %u matched collectives, by a median %s, imposing %s of waiting",
		g_array_index(c->ranks, int, best), acc[best].last,
		acc[best].matched, mtxt, wtxt);
	v->score = HD_SCORE_STRAGGLER;
	hd_verdict_add_culprit(v, g_array_index(c->ranks, int, best));
	if (acc[best].has_example) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, acc[best].example);

		src = hd_op_source(s, op);
	}
	hd_verdict_add_evidence(
		v, g_array_index(c->ranks, int, best), src,
		"last arrival in %u of %u matched collectives (%.0f%%); median lead of the last over the next-latest rank %s; clock uncertainty %s",
		acc[best].last, acc[best].matched, share * 100, mtxt, utxt);
	for (guint i = 0; i < nr; i++) {
		g_autofree char *lag = NULL;
		int64_t ml;

		if ((int)i == best || !acc[i].lags->len)
			continue;
		ml = median((int64_t *)(void *)acc[i].lags->data,
			    acc[i].lags->len);
		lag = fmt_ns(ml);
		hd_verdict_add_evidence(
			v, g_array_index(c->ranks, int, i), NULL,
			"rank %d: last in %u of %u; median start %s after the earliest rank",
			g_array_index(c->ranks, int, i), acc[i].last,
			acc[i].matched, lag);
	}
	hd_verdict_add_ruled_out(
		v,
		"clock skew: start times compared in %u collectives after per-host offset correction",
		considered);
	for (guint i = 0; i < ruled->len; i++)
		hd_verdict_add_ruled_out(v, "%s",
					 (char *)g_ptr_array_index(ruled, i));
	fill_perf(c, acc, nr, best, margin);
	/* a fault only where it explains a hang: hd-engine.c decides */
	c->a->perf.candidate = v;
}

/* What the sanity check of the matched positions found. */
struct sanity {
	uint32_t multi; /* positions matched on two ranks or more */
	uint32_t bad; /* of those, positions whose ops disagree */
	const struct pos *first_bad;
	const char *first_why; /* what the first bad one disagrees on */
	bool ordinal_only; /* every matched position is an ordinal */
};

/* Marks the positions whose ops cannot be one collective. */
static void check_positions(struct ctx *c, struct sanity *k)
{
	memset(k, 0, sizeof(*k));
	k->ordinal_only = true;
	for (guint i = 0; i < c->positions->len; i++) {
		struct pos *p = g_ptr_array_index(c->positions, i);
		const char *why;

		if (p->ops->len < 2)
			continue;
		k->multi++;
		if (p->seq_kind != HD_SEQ_ORDINAL)
			k->ordinal_only = false;
		why = disagreement(c->s, p);
		if (why) {
			p->bad = true;
			k->bad++;
			if (!k->first_bad) {
				k->first_bad = p;
				k->first_why = why;
			}
		}
	}
}

/* Too many positions disagree: the traces are not aligned, say so. */
static void report_unalignable(struct ctx *c, const struct sanity *k)
{
	const struct hd_store *s = c->s;
	const struct pos *p = k->first_bad;
	struct hd_group *g = hd_store_group_at(s, p->group);
	const struct hd_op *x = op_at(s, p, 0);
	const struct hd_op *y = op_at(s, p, 1);
	struct hd_verdict *v = hd_verdict_new(
		HD_V_INSUFFICIENT_DATA, HD_CONF_HIGH,
		"the traces cannot be aligned: %u of %u matched collective positions disagree on kind, count or dtype (sampled or filtered traces, or different profiling windows); no straggler is named",
		k->bad, k->multi);
	g_autofree char *sx = hd_op_source(s, x);
	g_autofree char *sy = hd_op_source(s, y);

	v->group = p->group;
	v->seq = p->seq;
	hd_verdict_add_evidence(
		v, hd_op_rank(x), sx,
		"group %s position %" G_GINT64_FORMAT ": rank %d has %s (%s)",
		g->id, p->seq, hd_op_rank(x), hd_op_kind_name(x->kind),
		hd_op_desc(x)->name ? hd_op_desc(x)->name : "?");
	hd_verdict_add_evidence(
		v, hd_op_rank(y), sy,
		"group %s position %" G_GINT64_FORMAT
		": rank %d has %s (%s); they differ in %s",
		g->id, p->seq, hd_op_rank(y), hd_op_kind_name(y->kind),
		hd_op_desc(y)->name ? hd_op_desc(y)->name : "?", k->first_why);
	g_ptr_array_add(c->a->verdicts, v);
}

/*
 * Adds one position's arrivals to the ranks' tallies: every rank's lag
 * behind the earliest start, and for the last to start, by more than the
 * clocks' uncertainty, the wait it imposed.  False when some rank's clock
 * has no offset, so the position cannot be compared.
 */
static bool tally_position(struct ctx *c, const struct pos *p,
			   struct rank_acc *acc, guint nr)
{
	const struct hd_store *s = c->s;
	int64_t earliest = INT64_MAX, latest = INT64_MIN, second = INT64_MIN,
		tol = MIN_SPREAD_NS;
	int last = -1;
	guint last_op = 0;

	for (guint j = 0; j < p->ops->len; j++) {
		const struct hd_op *op = op_at(s, p, j);
		struct clock *ck = g_ptr_array_index(
			c->clocks, clock_idx(c, hd_op_rank(op)));
		int64_t st;

		if (!ck->has)
			return false; /* no common time base */
		st = hd_op_t_start(s, op) - ck->offset;
		tol = MAX(tol, 3 * ck->unc);
		c->span_lo = MIN(c->span_lo, st);
		if (hd_op_t_end(s, op) != INT64_MIN)
			c->span_hi = MAX(c->span_hi,
					 hd_op_t_end(s, op) - ck->offset);
		earliest = MIN(earliest, st);
		if (st > latest) {
			second = latest;
			latest = st;
			last = hd_op_rank(op);
			last_op = g_array_index(p->ops, guint, j);
		} else if (st > second) {
			second = st;
		}
	}
	for (guint j = 0; j < p->ops->len; j++) {
		const struct hd_op *op = op_at(s, p, j);
		struct clock *ck = g_ptr_array_index(
			c->clocks, clock_idx(c, hd_op_rank(op)));
		guint ri;
		int64_t lag = hd_op_t_start(s, op) - ck->offset - earliest;

		for (ri = 0; ri < nr; ri++)
			if (g_array_index(c->ranks, int, ri) == hd_op_rank(op))
				break;
		acc[ri].matched++;
		g_array_append_val(acc[ri].lags, lag);
		if (hd_op_rank(op) != last && latest - earliest > tol)
			for (guint k = 0; k < nr; k++)
				if (g_array_index(c->ranks, int, k) == last)
					acc[k].others_waited +=
						latest - (lag + earliest);
		if (hd_op_rank(op) == last && latest - earliest > tol) {
			int64_t m = latest - second;

			acc[ri].last++;
			acc[ri].waited += latest - earliest;
			g_array_append_val(acc[ri].margins, m);
			if (!acc[ri].has_example ||
			    m > acc[ri].example_margin) {
				acc[ri].example = last_op;
				acc[ri].example_margin = m;
				acc[ri].has_example = true;
			}
		}
	}
	return true;
}

/*
 * Fills a->arrivals from the tallies; a clock offset worth correcting
 * goes to ruled (the verdict's ruled-out list), an unknown one to notes.
 */
static void fill_arrivals(struct ctx *c, struct rank_acc *acc, guint nr,
			  GPtrArray *ruled)
{
	int ref = g_array_index(c->ranks, int, 0);

	for (guint i = 0; i < nr; i++) {
		int r = g_array_index(c->ranks, int, i);
		struct clock *ck =
			g_ptr_array_index(c->clocks, clock_idx(c, r));
		struct hd_arrival ar = { 0 };

		ar.rank = r;
		ar.matched = acc[i].matched;
		ar.times_last = acc[i].last;
		ar.median_lag_ns =
			acc[i].lags->len
				? median((int64_t *)(void *)acc[i].lags->data,
					 acc[i].lags->len)
				: 0;
		ar.wait_imposed_ns = acc[i].waited;
		ar.clock_offset_ns = ck->offset;
		ar.clock_uncertainty_ns = ck->unc;
		ar.has_offset = ck->has;
		g_array_append_val(c->a->arrivals, ar);
		if (ck->has && clock_idx(c, r) != c->ref_clock &&
		    (ck->offset > MAX(3 * ck->unc, 50000) ||
		     -ck->offset > MAX(3 * ck->unc, 50000))) {
			g_autofree char *o = fmt_ns(
				ck->offset < 0 ? -ck->offset : ck->offset);
			g_autofree char *u = fmt_ns(ck->unc);

			g_ptr_array_add(
				ruled,
				g_strdup_printf(
					"clock offset: rank %d's clock is %s%s (+-%s) from rank %d's, corrected",
					r, ck->offset < 0 ? "-" : "+", o, u,
					ref));
		}
		if (!ck->has)
			g_ptr_array_add(
				c->a->notes,
				g_strdup_printf(
					"rank %d: no blocking collective matched with rank %d's clock, so its clock offset is unknown and its arrivals were not compared",
					r, ref));
	}
}

/* Tallies the arrivals, fills the table and gives the verdict. */
static void analyze_arrivals(struct ctx *c, bool ordinal_only)
{
	struct hd_analysis *a = c->a;
	guint nr = c->ranks->len;
	g_autoptr(GPtrArray) ruled = g_ptr_array_new_with_free_func(g_free);
	g_autofree struct rank_acc *acc = g_new0(struct rank_acc, nr);
	uint32_t considered = 0;

	for (guint i = 0; i < nr; i++) {
		acc[i].lags = g_array_new(FALSE, FALSE, sizeof(int64_t));
		acc[i].margins = g_array_new(FALSE, FALSE, sizeof(int64_t));
	}
	for (guint i = 0; i < c->positions->len; i++) {
		const struct pos *p = g_ptr_array_index(c->positions, i);

		if (p->bad || p->ops->len < 2 ||
		    hd_op_kind_is_p2p(op_at(c->s, p, 0)->kind))
			continue;
		if (tally_position(c, p, acc, nr))
			considered++;
	}
	fill_arrivals(c, acc, nr, ruled);
	add_verdict(c, acc, nr, considered, ordinal_only, ruled);
	/* Without a straggler verdict to carry them, they are notes. */
	if (!a->perf.candidate)
		for (guint i = 0; i < ruled->len; i++)
			g_ptr_array_add(a->notes,
					g_strdup(g_ptr_array_index(ruled, i)));
	for (guint i = 0; i < nr; i++) {
		g_array_unref(acc[i].lags);
		g_array_unref(acc[i].margins);
	}
}

void hd_straggler_run(const struct hd_store *s, struct hd_analysis *a)
{
	struct ctx c = { .s = s, .a = a };
	struct sanity k;

	c.span_lo = INT64_MAX;
	c.span_hi = INT64_MIN;
	c.positions = g_ptr_array_new_with_free_func(pos_free);
	c.ranks = g_array_new(FALSE, FALSE, sizeof(int));
	c.clock_of = g_hash_table_new(g_direct_hash, g_direct_equal);
	c.clocks = g_ptr_array_new_with_free_func(clock_free);
	collect(&c);
	g_array_sort(c.ranks, hd_compare_int);
	if (c.ranks->len < 2)
		goto out;
	check_positions(&c, &k);
	if (k.multi == 0)
		goto out;
	if (k.bad > 0 && (double)k.bad / k.multi > MAX_DISAGREE_FRAC) {
		report_unalignable(&c, &k);
		goto out;
	}
	if (k.bad)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"%u of %u matched collective positions disagree on kind, count or dtype and were left out of the arrival statistics",
				k.bad, k.multi));
	estimate_offsets(&c);
	analyze_arrivals(&c, k.ordinal_only);
out:
	g_ptr_array_unref(c.positions);
	g_array_unref(c.ranks);
	g_hash_table_unref(c.clock_of);
	g_ptr_array_unref(c.clocks);
}
