/*
 * Ops of processes whose rank is unknown (issue 11): NCCL COLL lines
 * pasted without the Init lines that give a process its rank.  The
 * parser keeps them under anonymous ranks (<= -2, one per process and
 * input) and names each process with an HD_SIGT_ANON_PROC signal; the
 * index leaves them out.  Here the processes of one comm identity (same
 * nranks, same creation order) are aligned by opCount when every op has
 * one, else by ordinal, and the first position where they disagree in
 * kind, count or dtype is reported, naming the minority processes by
 * host:pid and device.  Always at low confidence: the processes' ranks,
 * and whether they are members of one communicator, are not known.
 */
#include "config.h"

#include <string.h>

#include "hd-checks.h"
#include "hd-banned.h"

/* One process's ops in one group, in record order. */
struct anon_lane {
	uint32_t input;
	int rank; /* anonymous (<= -2) or a known rank */
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

/* The process an anonymous rank of an input stands for. */
static const struct hd_signal *anon_proc(const struct hd_store *s,
					 uint32_t input, int rank)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type == HD_SIGT_ANON_PROC && sig->rank == rank &&
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
	p = anon_proc(s, l->input, l->rank);
	if (!p)
		return g_strdup("a process of unknown rank");
	if (p->code >= 0)
		return g_strdup_printf("process %s:%d [dev %d]", p->host,
				       p->pid, p->code);
	return g_strdup_printf("process %s:%d", p->host, p->pid);
}

static void lane_free(gpointer data)
{
	struct anon_lane *l = data;

	g_array_unref(l->ops);
	g_free(l);
}

static int64_t op_pos(const struct hd_op *op, bool by_count)
{
	return by_count ? op->op_count : op->seq;
}

struct sort_ctx {
	const struct hd_store *s;
	bool by_count;
};

static gint compare_pos(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct sort_ctx *c = data;
	int64_t x = op_pos(op_at(c->s, *(const uint32_t *)a), c->by_count);
	int64_t y = op_pos(op_at(c->s, *(const uint32_t *)b), c->by_count);

	return (x > y) - (x < y);
}

/* What is compared, in order; 0 when the ops agree. */
static enum hd_verdict_kind differ(const struct hd_op *x, const struct hd_op *y)
{
	if (x->kind != y->kind)
		return HD_V_TYPE_MISMATCH;
	if (x->d->count_in != y->d->count_in ||
	    x->d->count_out != y->d->count_out)
		return HD_V_SIZE_MISMATCH;
	if (x->d->dtype != y->d->dtype)
		return HD_V_DTYPE_MISMATCH;
	return HD_V_KIND_COUNT;
}

static char *op_text(const struct hd_op *op)
{
	return g_strdup_printf(
		"%s count %" G_GINT64_FORMAT " %s", hd_op_kind_name(op->kind),
		op->d->count_in >= 0 ? op->d->count_in : op->d->count_out,
		hd_dtype_name(op->d->dtype));
}

/*
 * Votes at one position: ops[i] of lanes[i].  Reports and returns true
 * at the first attribute some lanes disagree on.
 */
static bool vote(struct anon_ctx *c, uint32_t group, GPtrArray *lanes,
		 const struct hd_op **ops, bool by_count, int64_t pos)
{
	const struct hd_store *s = c->s;
	g_autofree guint *agree = g_new0(guint, lanes->len);
	enum hd_verdict_kind kind = HD_V_KIND_COUNT;
	guint best = 0, present = 0, minority = 0;
	g_autoptr(GString) who = g_string_new(NULL);
	g_autofree char *mine = NULL, *theirs = NULL, *label = NULL;
	struct hd_verdict *v;
	bool tie = false;

	for (guint i = 0; i < lanes->len; i++) {
		if (!ops[i])
			continue;
		present++;
		for (guint k = 0; k < lanes->len; k++) {
			enum hd_verdict_kind d;

			if (!ops[k])
				continue;
			d = differ(ops[i], ops[k]);
			if (d == HD_V_KIND_COUNT)
				agree[i]++;
			else if (kind == HD_V_KIND_COUNT || d < kind)
				kind = d;
		}
	}
	if (present < 2 || kind == HD_V_KIND_COUNT)
		return false;
	for (guint i = 0; i < lanes->len; i++)
		if (ops[i] && agree[i] > agree[best])
			best = i;
	if (!ops[best])
		for (guint i = 0; i < lanes->len; i++)
			if (ops[i])
				best = i;
	for (guint i = 0; i < lanes->len; i++)
		if (ops[i] && agree[i] == agree[best] &&
		    differ(ops[i], ops[best]) != HD_V_KIND_COUNT)
			tie = true;
	for (guint i = 0; i < lanes->len; i++) {
		g_autofree char *name = NULL;

		if (!ops[i] ||
		    (!tie && differ(ops[i], ops[best]) == HD_V_KIND_COUNT))
			continue;
		minority++;
		if (minority <= 4) {
			name = lane_name(s, lanes->pdata[i]);
			g_string_append_printf(who, "%s%s",
					       who->len ? ", " : "", name);
		}
		if (!mine)
			mine = op_text(ops[i]);
	}
	if (minority > 4)
		g_string_append_printf(who, " and %u more", minority - 4);
	theirs = op_text(ops[best]);
	label = hd_group_label(s, group, HD_GROUP_LABEL_LONG);
	if (tie)
		v = hd_verdict_new(
			kind, HD_CONF_LOW,
			"processes disagree at %s%" G_GINT64_MODIFIER
			"x of %s, an even split between %s: either side may be wrong; their ranks are unknown",
			by_count ? "opCount 0x" : "position 0x", pos, label,
			who->str);
	else
		v = hd_verdict_new(
			kind, HD_CONF_LOW,
			"%s called %s at %s%" G_GINT64_MODIFIER
			"x of %s, where %u other%s called %s; rank unknown (no Init line in the excerpt)",
			who->str, mine, by_count ? "opCount 0x" : "position 0x",
			pos, label, agree[best], agree[best] == 1 ? "" : "s",
			theirs);
	v->group = group;
	v->seq = by_count ? -1 : pos;
	v->op = hd_op_kind_name(ops[best]->kind);
	v->score = HD_SCORE_MISMATCH - 10;
	for (guint i = 0, cited = 0; i < lanes->len && cited < 8; i++) {
		const struct anon_lane *l = lanes->pdata[i];
		g_autofree char *src = NULL, *name = NULL, *t = NULL;
		bool odd;

		if (!ops[i])
			continue;
		odd = tie || differ(ops[i], ops[best]) != HD_V_KIND_COUNT;
		if (!odd && cited >= minority + 2)
			continue;
		if (odd && l->rank >= 0)
			hd_verdict_add_culprit(v, l->rank);
		src = hd_prov_format(s, &ops[i]->prov);
		name = lane_name(s, l);
		t = op_text(ops[i]);
		hd_verdict_add_evidence(v, l->rank >= 0 ? l->rank : -1, src,
					"%s: %s", name, t);
		cited++;
	}
	hd_verdict_add_ruled_out(
		v,
		"nothing: these processes are grouped by comm size and creation order only; their Init lines (NCCL_DEBUG_SUBSYS=INIT) would give their ranks and comm");
	g_ptr_array_add(c->a->verdicts, v);
	return true;
}

/*
 * Aligns the lanes of one group, position by position in order, and
 * reports the first disagreement.
 */
static void check_group(struct anon_ctx *c, uint32_t group, GPtrArray *lanes)
{
	const struct hd_store *s = c->s;
	bool by_count = true;
	g_autofree const struct hd_op **ops = NULL;
	g_autofree guint *cur = NULL;
	struct sort_ctx ctx;

	if (lanes->len < 2)
		return;
	for (guint i = 0; i < lanes->len; i++)
		by_count = by_count &&
			   ((struct anon_lane *)lanes->pdata[i])->by_count;
	/* engines of several incidents run at once (triage): no globals */
	ctx = (struct sort_ctx){ s, by_count };
	for (guint i = 0; i < lanes->len; i++)
		g_array_sort_with_data(
			((struct anon_lane *)lanes->pdata[i])->ops, compare_pos,
			&ctx);
	ops = g_new0(const struct hd_op *, lanes->len);
	cur = g_new0(guint, lanes->len);
	for (;;) {
		int64_t p = INT64_MAX;

		for (guint i = 0; i < lanes->len; i++) {
			const struct anon_lane *l = lanes->pdata[i];

			if (cur[i] < l->ops->len)
				p = MIN(p,
					op_pos(op_at(s, g_array_index(l->ops,
								      uint32_t,
								      cur[i])),
					       by_count));
		}
		if (p == INT64_MAX)
			return;
		for (guint i = 0; i < lanes->len; i++) {
			const struct anon_lane *l = lanes->pdata[i];
			const struct hd_op *op =
				cur[i] < l->ops->len
					? op_at(s,
						g_array_index(l->ops, uint32_t,
							      cur[i]))
					: NULL;

			ops[i] = op && op_pos(op, by_count) == p ? op : NULL;
			/* a second op at one position: skip duplicates */
			while (cur[i] < l->ops->len &&
			       op_pos(op_at(s, g_array_index(l->ops, uint32_t,
							     cur[i])),
				      by_count) == p)
				cur[i]++;
		}
		if (vote(c, group, lanes, ops, by_count, p))
			return;
	}
}

void hd_check_anonymous(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct anon_ctx c = { s, a };
	g_autoptr(GHashTable) groups = NULL; /* group -> GPtrArray of lanes */
	g_autoptr(GHashTable) anon_groups = NULL;
	GHashTableIter it;
	gpointer k, val;
	guint nanon = 0;

	for (guint i = 0; i < s->ops->len; i++)
		nanon += op_at(s, i)->rank <= -2;
	if (!nanon || s->ops->len > (1u << 20))
		return;
	anon_groups = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (guint i = 0; i < s->ops->len; i++)
		if (op_at(s, i)->rank <= -2)
			g_hash_table_add(anon_groups,
					 GUINT_TO_POINTER(op_at(s, i)->group));
	groups = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
				       (GDestroyNotify)g_ptr_array_unref);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op = op_at(s, i);
		GPtrArray *lanes;
		struct anon_lane *l = NULL;

		if (op->rank == -1 || op->seq_kind != HD_SEQ_ORDINAL ||
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
		for (guint j = 0; j < lanes->len && !l; j++) {
			struct anon_lane *x = lanes->pdata[j];

			if (x->rank == op->rank &&
			    (op->rank >= 0 || x->input == op->prov.input))
				l = x;
		}
		if (!l) {
			l = g_new0(struct anon_lane, 1);
			l->input = op->prov.input;
			l->rank = op->rank;
			l->ops = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			l->by_count = true;
			g_ptr_array_add(lanes, l);
		}
		g_array_append_val(l->ops, i);
		if (op->op_count < 0)
			l->by_count = false;
	}
	g_hash_table_iter_init(&it, groups);
	while (g_hash_table_iter_next(&it, &k, &val))
		check_group(&c, GPOINTER_TO_UINT(k), val);
}
