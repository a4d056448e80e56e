/*
 * Ops of processes whose rank is unknown (issue 11): NCCL COLL lines
 * pasted without the Init lines that give a process its rank.  The
 * parser keeps them as processes of unknown rank (hd_op_anon(), one per
 * process and input) and names each with an HD_SIGT_ANON_PROC signal; the
 * index leaves them out.  Here the processes of one comm identity (same
 * nranks, same creation order) are aligned by opCount when every op has
 * one, else by ordinal, and the first position where they disagree in
 * kind, count or dtype is reported, naming the minority processes by
 * host:pid and device.  Always at low confidence: the processes' ranks,
 * and whether they are members of one communicator, are not known.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hd-checks.h"
#include "hd-hash.h"
#include "hd-banned.h"

/* One process's ops in one group, in record order. */
struct anon_lane {
	uint32_t input;
	int rank; /* a known rank, -1 for a process of unknown rank */
	int anon; /* which process of unknown rank of input it is, -1 */
	GArray *ops; /* uint32_t store op indices */
	bool by_count; /* every op has an opCount */
};

struct anon_ctx {
	const struct hd_store *s;
	struct hd_analysis *a;
};

static const struct hd_op *op_at(const struct hd_store *s, uint32_t i)
{
	return &g_array_index(s->ops, struct hd_op, i);
}

/* The signal naming process anon of unknown rank of an input. */
static const struct hd_signal *anon_proc(const struct hd_store *s,
					 uint32_t input, int anon)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type == HD_SIGT_ANON_PROC &&
		    hd_signal_anon_proc(sig) == anon &&
		    sig->prov.input == input)
			return sig;
	}
	return NULL;
}

/* "process node-a:4242 [dev 3]" or "rank 5".  (transfer full) */
static char *lane_name(const struct hd_store *s, const struct anon_lane *l)
{
	const struct hd_signal *p;

	if (l->rank >= 0)
		return g_strdup_printf("rank %d", l->rank);
	p = anon_proc(s, l->input, l->anon);
	if (!p)
		return g_strdup("a process of unknown rank");
	if (hd_signal_anon_device(p) >= 0)
		return g_strdup_printf("process %s:%d [dev %d]", p->host,
				       p->pid, hd_signal_anon_device(p));
	return g_strdup_printf("process %s:%d", p->host, p->pid);
}

static void lane_free(gpointer data)
{
	struct anon_lane *l = data;

	g_array_unref(l->ops);
	g_free(l);
}

static int64_t op_pos(const struct hd_store *s, const struct hd_op *op,
		      bool by_count)
{
	return by_count ? hd_op_op_count(s, op) : op->seq;
}

/* What is compared, in order; 0 when the ops agree. */
static enum hd_verdict_kind differ(const struct hd_op *x, const struct hd_op *y)
{
	if (x->kind != y->kind)
		return HD_V_TYPE_MISMATCH;
	if (hd_op_desc(x)->count_in != hd_op_desc(y)->count_in ||
	    hd_op_desc(x)->count_out != hd_op_desc(y)->count_out)
		return HD_V_SIZE_MISMATCH;
	if (hd_op_desc(x)->dtype != hd_op_desc(y)->dtype)
		return HD_V_DTYPE_MISMATCH;
	return HD_V_KIND_COUNT;
}

static char *op_text(const struct hd_op *op)
{
	return g_strdup_printf(
		"%s count %" G_GINT64_FORMAT " %s", hd_op_kind_name(op->kind),
		hd_op_desc(op)->count_in >= 0 ? hd_op_desc(op)->count_in
					      : hd_op_desc(op)->count_out,
		hd_dtype_name(hd_op_desc(op)->dtype));
}

/* One lane's op at the position being voted on. */
struct anon_at {
	const struct anon_lane *lane;
	const struct hd_op *op;
	guint agree; /* present ops that agree with it, itself included */
};

/* Orders ops by what differ() compares: kind, counts, dtype. */
static gint compare_sig(gconstpointer a, gconstpointer b)
{
	const struct hd_op *x = (*(const struct anon_at *const *)a)->op;
	const struct hd_op *y = (*(const struct anon_at *const *)b)->op;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (hd_op_desc(x)->count_in != hd_op_desc(y)->count_in)
		return hd_op_desc(x)->count_in < hd_op_desc(y)->count_in ? -1
									 : 1;
	if (hd_op_desc(x)->count_out != hd_op_desc(y)->count_out)
		return hd_op_desc(x)->count_out < hd_op_desc(y)->count_out ? -1
									   : 1;
	return (hd_op_desc(x)->dtype > hd_op_desc(y)->dtype) -
	       (hd_op_desc(x)->dtype < hd_op_desc(y)->dtype);
}

/*
 * Counts, for each op, the ops that agree with it, and returns the first
 * attribute some disagree on (HD_V_KIND_COUNT: none).  Sorting by what
 * is compared makes this n log n where comparing every pair was n^2.
 */
static enum hd_verdict_kind tally(struct anon_at *at, guint n)
{
	g_autofree struct anon_at **by = g_new(struct anon_at *, n + 1);
	bool kinds = false, counts = false, dtypes = false;
	guint run = 0;

	for (guint i = 0; i < n; i++)
		by[i] = &at[i];
	qsort(by, n, sizeof(*by), compare_sig);
	for (guint i = 0; i < n; i++) {
		const struct hd_op *x = by[i]->op, *y = by[run]->op;

		if (differ(x, y) != HD_V_KIND_COUNT) {
			for (guint k = run; k < i; k++)
				by[k]->agree = i - run;
			run = i;
		}
	}
	for (guint k = run; k < n; k++)
		by[k]->agree = n - run;
	for (guint i = 1; i < n; i++) {
		kinds |= at[i].op->kind != at[0].op->kind;
		counts |= hd_op_desc(at[i].op)->count_in !=
				  hd_op_desc(at[0].op)->count_in ||
			  hd_op_desc(at[i].op)->count_out !=
				  hd_op_desc(at[0].op)->count_out;
		dtypes |= hd_op_desc(at[i].op)->dtype !=
			  hd_op_desc(at[0].op)->dtype;
	}
	return kinds	? HD_V_TYPE_MISMATCH
	       : counts ? HD_V_SIZE_MISMATCH
	       : dtypes ? HD_V_DTYPE_MISMATCH
			: HD_V_KIND_COUNT;
}

/* What anon_decide() chose at one position; anon_build() states it. */
struct anon_decision {
	enum hd_verdict_kind kind; /* the first attribute in dispute */
	enum hd_confidence conf;
	GArray *culprits; /* int: the known ranks of the odd lanes */
	guint best; /* index of an op of the largest agreeing set */
	bool tie; /* no set is larger: every lane is odd */
	guint minority; /* the odd lanes */
};

/* Whether lane i of at is odd in decision d: outvoted, or in a tie. */
static bool anon_odd(const struct anon_decision *d, const struct anon_at *at,
		     guint i)
{
	return d->tie || differ(at[i].op, at[d->best].op) != HD_V_KIND_COUNT;
}

/*
 * Votes at one position: the n lanes that have an op there, in lane
 * order.  True at the first attribute some lanes disagree on, with *d
 * filled (its culprits the caller frees).
 */
static bool anon_decide(struct anon_at *at, guint n, struct anon_decision *d)
{
	enum hd_verdict_kind kind;

	if (n < 2)
		return false;
	kind = tally(at, n);
	if (kind == HD_V_KIND_COUNT)
		return false;
	*d = (struct anon_decision){ .kind = kind, .conf = HD_CONF_LOW };
	for (guint i = 0; i < n; i++)
		if (at[i].agree > at[d->best].agree)
			d->best = i;
	for (guint i = 0; i < n; i++)
		if (at[i].agree == at[d->best].agree &&
		    differ(at[i].op, at[d->best].op) != HD_V_KIND_COUNT)
			d->tie = true;
	d->culprits = g_array_new(FALSE, FALSE, sizeof(int));
	for (guint i = 0; i < n; i++) {
		if (!anon_odd(d, at, i))
			continue;
		d->minority++;
		if (at[i].lane->rank >= 0)
			g_array_append_val(d->culprits, at[i].lane->rank);
	}
	return true;
}

/*
 * The verdict of decision d at position pos of group, naming the odd
 * processes and citing their ops (and a few of the others').
 */
static void anon_build(struct anon_ctx *c, uint32_t group,
		       const struct anon_at *at, guint n, bool by_count,
		       int64_t pos, const struct anon_decision *d)
{
	const struct hd_store *s = c->s;
	const struct anon_at *best = &at[d->best];
	g_autoptr(GString) who = g_string_new(NULL);
	g_autofree char *mine = NULL, *theirs = NULL, *label = NULL;
	struct hd_verdict *v;
	guint named = 0;

	for (guint i = 0; i < n; i++) {
		g_autofree char *name = NULL;

		if (!anon_odd(d, at, i))
			continue;
		if (++named <= 4) {
			name = lane_name(s, at[i].lane);
			g_string_append_printf(who, "%s%s",
					       who->len ? ", " : "", name);
		}
		if (!mine)
			mine = op_text(at[i].op);
	}
	if (d->minority > 4)
		g_string_append_printf(who, " and %u more", d->minority - 4);
	theirs = op_text(best->op);
	label = hd_group_label(s, group, HD_GROUP_LABEL_LONG);
	if (d->tie)
		v = hd_verdict_new(
			d->kind, d->conf,
			"processes disagree at %s%" G_GINT64_MODIFIER
			"x of %s, an even split between %s: either side may be wrong; their ranks are unknown",
			by_count ? "opCount 0x" : "position 0x", pos, label,
			who->str);
	else
		v = hd_verdict_new(
			d->kind, d->conf,
			"%s called %s at %s%" G_GINT64_MODIFIER
			"x of %s, where %u other%s called %s; rank unknown (no Init line in the excerpt)",
			who->str, mine, by_count ? "opCount 0x" : "position 0x",
			pos, label, best->agree, best->agree == 1 ? "" : "s",
			theirs);
	v->group = group;
	v->seq = by_count ? -1 : pos;
	v->op = hd_op_kind_name(best->op->kind);
	v->score = HD_SCORE_MISMATCH - 10;
	for (guint i = 0; i < d->culprits->len; i++)
		hd_verdict_add_culprit(v, g_array_index(d->culprits, int, i));
	for (guint i = 0, cited = 0; i < n && cited < 8; i++) {
		const struct anon_lane *l = at[i].lane;
		g_autofree char *src = NULL, *name = NULL, *t = NULL;

		if (!anon_odd(d, at, i) && cited >= d->minority + 2)
			continue;
		src = hd_op_source(s, at[i].op);
		name = lane_name(s, l);
		t = op_text(at[i].op);
		hd_verdict_add_evidence(v, l->rank >= 0 ? l->rank : -1, src,
					"%s: %s", name, t);
		cited++;
	}
	hd_verdict_add_ruled_out(
		v,
		"nothing: these processes are grouped by comm size and creation order only; their Init lines (NCCL_DEBUG_SUBSYS=INIT) would give their ranks and comm");
	g_ptr_array_add(c->a->verdicts, v);
}

/* An op of a lane at a position, for the merge of check_group(). */
struct anon_pos {
	int64_t pos;
	guint lane;
	const struct hd_op *op;
};

static gint compare_anon_pos(gconstpointer a, gconstpointer b)
{
	const struct anon_pos *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return (x->lane > y->lane) - (x->lane < y->lane);
}

/*
 * Aligns the lanes of one group, position by position in order, and
 * reports the first disagreement.  One sorted list of every lane's ops
 * (a lane's second op at one position left out) costs n log n in the
 * ops, however many lanes hold one op each.
 */
static void check_group(struct anon_ctx *c, uint32_t group, GPtrArray *lanes)
{
	const struct hd_store *s = c->s;
	bool by_count = true;
	g_autoptr(GArray) all = NULL;
	g_autofree struct anon_at *at = NULL;
	struct anon_decision d;
	guint n = 0;

	if (lanes->len < 2)
		return;
	for (guint i = 0; i < lanes->len; i++)
		by_count = by_count &&
			   ((struct anon_lane *)lanes->pdata[i])->by_count;
	all = g_array_new(FALSE, FALSE, sizeof(struct anon_pos));
	for (guint i = 0; i < lanes->len; i++) {
		const struct anon_lane *l = lanes->pdata[i];

		for (guint k = 0; k < l->ops->len; k++) {
			struct anon_pos ap;

			ap.op = op_at(s, g_array_index(l->ops, uint32_t, k));
			ap.pos = op_pos(s, ap.op, by_count);
			ap.lane = i;
			g_array_append_val(all, ap);
		}
	}
	/* stable on (pos, lane): a lane's first op at a position leads */
	g_array_sort(all, compare_anon_pos);
	at = g_new(struct anon_at, lanes->len);
	for (guint i = 0; i < all->len;) {
		int64_t p = g_array_index(all, struct anon_pos, i).pos;

		n = 0;
		for (; i < all->len &&
		       g_array_index(all, struct anon_pos, i).pos == p;
		     i++) {
			const struct anon_pos *ap =
				&g_array_index(all, struct anon_pos, i);

			/* a second op at one position: skip duplicates */
			if (n && at[n - 1].lane == lanes->pdata[ap->lane])
				continue;
			at[n].lane = lanes->pdata[ap->lane];
			at[n].op = ap->op;
			at[n].agree = 0;
			n++;
		}
		if (anon_decide(at, n, &d)) {
			anon_build(c, group, at, n, by_count, p, &d);
			g_array_unref(d.culprits);
			return;
		}
	}
}

/* What makes a lane: a group and a rank, or a process of unknown rank
   and the input whose process it numbers. */
struct lane_key {
	uint32_t group, input;
	int32_t rank, anon;
};

static guint lane_key_hash(gconstpointer p)
{
	const struct lane_key *k = p;

	return hd_hash_u64(((uint64_t)k->group << 32 | k->input) ^
			   hd_hash_u64((uint64_t)(uint32_t)k->rank << 32 |
				       (uint32_t)k->anon));
}

static gboolean lane_key_equal(gconstpointer a, gconstpointer b)
{
	const struct lane_key *x = a, *y = b;

	return x->group == y->group && x->input == y->input &&
	       x->rank == y->rank && x->anon == y->anon;
}

void hd_check_anonymous(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct anon_ctx c = { s, a };
	g_autoptr(GHashTable) groups = NULL; /* group -> GPtrArray of lanes */
	g_autoptr(GHashTable) anon_groups = NULL;
	/* lane_key -> its lane: a table, not a walk of the group's lanes,
	   which was quadratic with one op per process */
	g_autoptr(GHashTable) lane_of = g_hash_table_new_full(
		lane_key_hash, lane_key_equal, g_free, NULL);
	struct lane_key key;
	GHashTableIter it;
	gpointer k, val;
	guint nanon = 0;

	for (guint i = 0; i < s->ops->len; i++)
		nanon += hd_op_is_anon(op_at(s, i));
	if (!nanon || s->ops->len > (1u << 20))
		return;
	anon_groups = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (guint i = 0; i < s->ops->len; i++)
		if (hd_op_is_anon(op_at(s, i)))
			g_hash_table_add(anon_groups,
					 GUINT_TO_POINTER(op_at(s, i)->group));
	groups = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
				       (GDestroyNotify)g_ptr_array_unref);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op = op_at(s, i);
		GPtrArray *lanes;
		struct anon_lane *l = NULL;

		if ((hd_op_rank(op) == -1 && !hd_op_is_anon(op)) ||
		    op->seq_kind != HD_SEQ_ORDINAL ||
		    !g_hash_table_contains(anon_groups,
					   GUINT_TO_POINTER(op->group)))
			continue;
		lanes = g_hash_table_lookup(groups,
					    GUINT_TO_POINTER(op->group));
		if (!lanes) {
			lanes = g_ptr_array_new_with_free_func(lane_free);
			g_hash_table_insert(groups, GUINT_TO_POINTER(op->group),
					    lanes);
		}
		key.group = op->group;
		key.rank = hd_op_rank(op);
		key.anon = hd_op_anon(op);
		key.input = hd_op_is_anon(op) ? op->input : 0;
		l = g_hash_table_lookup(lane_of, &key);
		if (!l) {
			struct lane_key *kp = g_new(struct lane_key, 1);

			l = g_new0(struct anon_lane, 1);
			l->input = op->input;
			l->rank = hd_op_rank(op);
			l->anon = hd_op_anon(op);
			l->ops = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			l->by_count = true;
			g_ptr_array_add(lanes, l);
			*kp = key;
			g_hash_table_insert(lane_of, kp, l);
		}
		g_array_append_val(l->ops, i);
		if (hd_op_op_count(s, op) < 0)
			l->by_count = false;
	}
	g_hash_table_iter_init(&it, groups);
	while (g_hash_table_iter_next(&it, &k, &val))
		check_group(&c, GPOINTER_TO_UINT(k), val);
}
