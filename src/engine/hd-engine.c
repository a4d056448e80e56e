/*
 * The engine: builds the op index once, links FR process groups to NCCL
 * comms (hd-join.c), runs the checks (group alignment in hd-align.c, error
 * signals in hd-signals.c, arrival times in hd-straggler.c), joins
 * verdicts that several sources agree on, follows wait-for chains to their
 * root, and ranks the verdicts.
 */
#include "config.h"

#include "hd-engine.h"

#include <stdarg.h>
#include <string.h>

#include "hd-engine-internal.h"
#include "hd-straggler.h"
#include "hd-banned.h"

static void evidence_free(gpointer p)
{
	struct hd_evidence *e = p;

	if (!e)
		return;
	g_free(e->source);
	g_free(e->text);
	g_free(e);
}

struct hd_verdict *hd_verdict_new(enum hd_verdict_kind kind,
				  enum hd_confidence conf, const char *fmt, ...)
{
	struct hd_verdict *v = g_new0(struct hd_verdict, 1);
	va_list ap;

	v->kind = kind;
	v->confidence = conf;
	v->culprits = g_array_new(FALSE, FALSE, sizeof(int));
	v->group = -1;
	v->seq = -1;
	v->evidence = g_ptr_array_new_with_free_func(evidence_free);
	v->ruled_out = g_ptr_array_new_with_free_func(g_free);
	va_start(ap, fmt);
	v->summary = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	return v;
}

void hd_verdict_free(struct hd_verdict *v)
{
	if (!v)
		return;
	g_array_unref(v->culprits);
	g_free(v->summary);
	g_ptr_array_unref(v->evidence);
	g_ptr_array_unref(v->ruled_out);
	g_free(v);
}

static gint compare_int(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void hd_verdict_add_culprit(struct hd_verdict *v, int rank)
{
	for (guint i = 0; i < v->culprits->len; i++)
		if (g_array_index(v->culprits, int, i) == rank)
			return;
	g_array_append_val(v->culprits, rank);
	g_array_sort(v->culprits, compare_int);
}

void hd_verdict_add_evidence(struct hd_verdict *v, int rank,
			     const char *source, const char *fmt, ...)
{
	struct hd_evidence *e = g_new0(struct hd_evidence, 1);
	va_list ap;

	e->rank = rank;
	e->source = g_strdup(source);
	va_start(ap, fmt);
	e->text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_ptr_array_add(v->evidence, e);
}

void hd_verdict_add_ruled_out(struct hd_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_ptr_array_add(v->ruled_out, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

static const char *const verdict_names[HD_V_KIND_COUNT] = {
	[HD_V_MISSING_RANK] = "missing_rank",
	[HD_V_LAGGING_RANK] = "lagging_rank",
	[HD_V_TYPE_MISMATCH] = "type_mismatch",
	[HD_V_SIZE_MISMATCH] = "size_mismatch",
	[HD_V_DTYPE_MISMATCH] = "dtype_mismatch",
	[HD_V_ROOT_MISMATCH] = "root_mismatch",
	[HD_V_REDOP_MISMATCH] = "redop_mismatch",
	[HD_V_P2P_UNMATCHED] = "p2p_unmatched",
	[HD_V_BLOCKED_CHAIN] = "blocked_chain",
	[HD_V_STRAGGLER] = "straggler",
	[HD_V_NETWORK_FAULT] = "network_fault",
	[HD_V_RANK_CRASHED] = "rank_crashed",
	[HD_V_INIT_FAILURE] = "init_failure",
	[HD_V_NO_FAULT] = "no_fault",
	[HD_V_INSUFFICIENT_DATA] = "insufficient_data",
};

const char *hd_verdict_kind_name(enum hd_verdict_kind k)
{
	if ((unsigned)k >= HD_V_KIND_COUNT)
		return "unknown";
	return verdict_names[k];
}

const char *hd_confidence_name(enum hd_confidence c)
{
	switch (c) {
	case HD_CONF_HIGH:
		return "high";
	case HD_CONF_MEDIUM:
		return "medium";
	case HD_CONF_LOW:
		break;
	}
	return "low";
}

bool hd_analysis_has_fault(const struct hd_analysis *a)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->kind != HD_V_NO_FAULT &&
		    v->kind != HD_V_INSUFFICIENT_DATA)
			return true;
	}
	return false;
}

void hd_analysis_free(struct hd_analysis *a)
{
	if (!a)
		return;
	g_ptr_array_unref(a->verdicts);
	g_array_unref(a->group_stats);
	g_array_unref(a->ranks_seen);
	g_array_unref(a->ranks_missing);
	g_array_unref(a->arrivals);
	g_ptr_array_unref(a->notes);
	g_array_unref(a->progress);
	g_free(a);
}

/* Lane key: group, rank, seq kind and source kind packed into 64 bits. */
static uint64_t lane_key(uint32_t group, int rank, uint8_t seq_kind,
			 uint8_t source)
{
	return ((uint64_t)group << 36) | ((uint64_t)(uint32_t)(rank + 1) << 4) |
	       ((uint64_t)seq_kind << 2) | source;
}

static const struct hd_store *sort_store;

static int compare_lane_ops(const void *a, const void *b)
{
	const struct hd_op *x =
		&g_array_index(sort_store->ops, struct hd_op, *(const uint32_t *)a);
	const struct hd_op *y =
		&g_array_index(sort_store->ops, struct hd_op, *(const uint32_t *)b);
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (ia > ib) - (ia < ib);
}

static G_LOCK_DEFINE(sort_lock);

/* Sorts a lane by seq when it is not, and sums up its ops in one pass. */
static void lane_finish(const struct hd_store *s, struct hd_lane *l)
{
	bool sorted = true;
	int64_t prev = INT64_MIN;

	l->min_seq = l->max_seq = l->max_completed = l->first_pending = -1;
	l->first_blocked = -1;
	l->n_p2p = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, l->ops[i]);

		if (op->seq < prev)
			sorted = false;
		prev = op->seq;
		if (hd_op_kind_is_p2p(op->kind))
			l->n_p2p++;
		if (l->min_seq < 0 || op->seq < l->min_seq)
			l->min_seq = op->seq;
		if (op->seq > l->max_seq)
			l->max_seq = op->seq;
		if (op->state == HD_STATE_COMPLETED ||
		    op->state == HD_STATE_STARTED)
			l->has_completion_info = true;
		if (op->state == HD_STATE_COMPLETED) {
			if (op->seq > l->max_completed)
				l->max_completed = op->seq;
			continue;
		}
		if (l->first_pending < 0 || op->seq < l->first_pending)
			l->first_pending = op->seq;
		if ((op->state == HD_STATE_STARTED ||
		     op->state == HD_STATE_ENQUEUED) &&
		    (l->first_blocked < 0 || op->seq < l->first_blocked))
			l->first_blocked = op->seq;
	}
	if (!l->has_completion_info)
		l->first_pending = -1;
	if (!sorted) {
		G_LOCK(sort_lock);
		sort_store = s;
		qsort(l->ops, l->n, sizeof(uint32_t), compare_lane_ops);
		G_UNLOCK(sort_lock);
	}
}

/*
 * The source kind of an op decides which lane it joins, so that a rank's
 * flight-recorder entries and its trace kernels are never aligned against
 * each other.
 */
static uint8_t op_source(const struct hd_store *s, const struct hd_op *op)
{
	if (op->prov.input < s->inputs->len)
		return (uint8_t)hd_store_input(s, op->prov.input)->kind & 3;
	return 0;
}

/*
 * A direct-mapped memo of the last value seen per rank slot, in front of
 * a hash table: an interleaved log changes rank on every op but cycles
 * through a few ranks, so most lookups stop here.
 */
#define RANK_MEMO 64

struct rank_memo {
	int64_t key[RANK_MEMO];
	gpointer val[RANK_MEMO];
};

static void rank_memo_init(struct rank_memo *m)
{
	for (int i = 0; i < RANK_MEMO; i++)
		m->key[i] = INT64_MIN;
}

static gpointer *rank_memo_slot(struct rank_memo *m, int rank, int64_t key,
				 bool *hit)
{
	unsigned i = (unsigned)rank % RANK_MEMO;

	*hit = m->key[i] == key;
	m->key[i] = key;
	return &m->val[i];
}

struct hd_index *hd_index_build(const struct hd_store *s)
{
	struct hd_index *ix = g_new0(struct hd_index, 1);
	g_autoptr(GHashTable) lanes = g_hash_table_new(g_int64_hash,
						       g_int64_equal);
	g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	g_autoptr(GPtrArray) lists = g_ptr_array_new();
	struct rank_memo memo, seen;
	uint32_t last_input = UINT32_MAX;
	uint8_t last_source = 0;
	/* a lane's consecutive ops are appended together, not one by one */
	uint32_t pend[256];
	guint npend = 0;
	GArray *pend_list = NULL;

	ix->store = s;
	ix->groups = g_array_new(FALSE, TRUE, sizeof(struct hd_group_index));
	g_array_set_size(ix->groups, s->groups->len);
	for (guint g = 0; g < s->groups->len; g++) {
		struct hd_group_index *gi =
			&g_array_index(ix->groups, struct hd_group_index, g);

		gi->group = g;
		gi->lanes = g_array_new(FALSE, FALSE, sizeof(struct hd_lane));
	}
	rank_memo_init(&memo);
	rank_memo_init(&seen);
	/* Ranks with an input, an op or a signal: the ranks seen. */
	ix->rank_inputs = g_hash_table_new(g_direct_hash, g_direct_equal);
	/* Keys live in a preallocated array so the table can point at them. */
	g_array_set_size(keys, s->ops->len + 1);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op = &g_array_index(s->ops, struct hd_op, i);
		uint64_t key;
		GArray *list;
		uint32_t idx = i;
		gpointer *slot;
		bool hit;

		if (op->rank < 0)
			continue;
		/* every op's rank counts as seen, grouped or not */
		slot = rank_memo_slot(&seen, op->rank, op->rank, &hit);
		if (!hit)
			g_hash_table_insert(ix->rank_inputs,
					    GINT_TO_POINTER(op->rank),
					    GINT_TO_POINTER(1));
		if (op->group >= s->groups->len)
			continue;
		/* An input's ops are adjacent: look its kind up once. */
		if (op->prov.input != last_input) {
			last_input = op->prov.input;
			last_source = op_source(s, op);
		}
		key = lane_key(op->group, op->rank, op->seq_kind, last_source);
		slot = rank_memo_slot(&memo, op->rank, (int64_t)key, &hit);
		if (hit) {
			list = *slot;
		} else {
			list = g_hash_table_lookup(lanes, &key);
			if (!list) {
				uint64_t *kp = &g_array_index(keys, uint64_t,
							      lists->len);

				*kp = key;
				list = g_array_new(FALSE, FALSE,
						   sizeof(uint32_t));
				g_hash_table_insert(lanes, kp, list);
				g_ptr_array_add(lists, list);
			}
			*slot = list;
		}
		if (list != pend_list || npend == G_N_ELEMENTS(pend)) {
			if (npend)
				g_array_append_vals(pend_list, pend, npend);
			pend_list = list;
			npend = 0;
		}
		pend[npend++] = idx;
	}
	if (npend)
		g_array_append_vals(pend_list, pend, npend);
	for (guint i = 0; i < lists->len; i++) {
		GArray *list = g_ptr_array_index(lists, i);
		uint64_t key = g_array_index(keys, uint64_t, i);
		struct hd_lane lane = { 0 };
		struct hd_group_index *gi;

		lane.rank = (int)((key >> 4) & 0xffffffffu) - 1;
		lane.seq_kind = (key >> 2) & 3;
		lane.source = key & 3;
		lane.n = list->len;
		lane.ops = (uint32_t *)(void *)g_array_free(list, FALSE);
		lane_finish(s, &lane);
		gi = &g_array_index(ix->groups, struct hd_group_index,
				    key >> 36);
		g_array_append_val(gi->lanes, lane);
	}
	ix->waits = g_array_new(FALSE, FALSE, sizeof(struct hd_wait));
	ix->links = g_array_new(FALSE, FALSE, sizeof(struct hd_join_link));
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (in->rank >= 0 && !in->error)
			g_hash_table_insert(ix->rank_inputs,
					    GINT_TO_POINTER(in->rank),
					    GINT_TO_POINTER(1));
	}
	{
		GHashTableIter it;
		gpointer k, v;

		g_hash_table_iter_init(&it, s->ranks);
		while (g_hash_table_iter_next(&it, &k, &v)) {
			const struct hd_rank *r = v;

			if (r->inputs->len > 0)
				g_hash_table_insert(ix->rank_inputs, k,
						    GINT_TO_POINTER(1));
		}
		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *sig =
				&g_array_index(s->signals, struct hd_signal, i);

			if (sig->rank >= 0)
				g_hash_table_insert(ix->rank_inputs,
						    GINT_TO_POINTER(sig->rank),
						    GINT_TO_POINTER(1));
		}
	}
	return ix;
}

void hd_index_free(struct hd_index *ix)
{
	if (!ix)
		return;
	for (guint g = 0; g < ix->groups->len; g++) {
		struct hd_group_index *gi =
			&g_array_index(ix->groups, struct hd_group_index, g);

		for (guint l = 0; l < gi->lanes->len; l++)
			g_free(g_array_index(gi->lanes, struct hd_lane, l).ops);
		g_array_unref(gi->lanes);
	}
	g_array_unref(ix->groups);
	g_array_unref(ix->waits);
	g_array_unref(ix->links);
	g_free(ix->partner);
	g_hash_table_unref(ix->rank_inputs);
	g_free(ix);
}

const struct hd_lane *hd_index_lane(const struct hd_index *ix, uint32_t group,
				    int rank, uint8_t seq_kind)
{
	const struct hd_group_index *gi;

	if (group >= ix->groups->len)
		return NULL;
	gi = &g_array_index(ix->groups, struct hd_group_index, group);
	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane =
			&g_array_index(gi->lanes, struct hd_lane, l);

		if (lane->rank == rank && lane->seq_kind == seq_kind)
			return lane;
	}
	return NULL;
}

void hd_index_add_wait(struct hd_index *ix, int waiter, int on, int64_t group,
		       int64_t seq, const char *what,
		       const struct hd_prov *prov)
{
	struct hd_wait w = { waiter, on, group, seq, hd_intern(what), { 0 } };

	if (prov)
		w.prov = *prov;
	g_array_append_val(ix->waits, w);
}

bool hd_index_rank_has_data(const struct hd_index *ix, int rank)
{
	return g_hash_table_contains(ix->rank_inputs, GINT_TO_POINTER(rank));
}

/* Frames from the framework itself are not where the user is. */
static bool is_framework_frame(const struct hd_frame *f)
{
	static const char *const framework[] = {
		"torch/distributed/", "torch/nn/", "torch/_", "torch/utils/",
		"site-packages/torch/", "<frozen", "threading.py",
	};

	if (!f->file)
		return true;
	for (size_t i = 0; i < G_N_ELEMENTS(framework); i++)
		if (strstr(f->file, framework[i]))
			return true;
	return false;
}

char *hd_op_where(const struct hd_store *s, const struct hd_op *op)
{
	size_t n;
	const struct hd_frame *frames = hd_store_stack(s, op->stack, &n);

	for (size_t i = 0; i < n; i++)
		if (!is_framework_frame(&frames[i]))
			return g_strdup_printf("%s:%d in %s", frames[i].file,
					       frames[i].line,
					       frames[i].name ? frames[i].name
							      : "?");
	if (n > 0 && frames[0].file)
		return g_strdup_printf("%s:%d in %s", frames[0].file,
				       frames[0].line,
				       frames[0].name ? frames[0].name : "?");
	return NULL;
}

static char *describe(const struct hd_store *s, const struct hd_op *op,
		      bool with_where)
{
	GString *d = g_string_new(NULL);
	g_autofree char *where = with_where ? hd_op_where(s, op) : NULL;

	g_string_append_printf(d, "seq %" G_GINT64_FORMAT " %s", op->seq,
			       hd_op_kind_name(op->kind));
	if (op->d->name && strcmp(op->d->name, hd_op_kind_name(op->kind)) != 0)
		g_string_append_printf(d, " (%s)", op->d->name);
	if (op->d->shape_in || op->d->shape_out)
		g_string_append_printf(d, " in %s out %s",
				       op->d->shape_in ? op->d->shape_in : "?",
				       op->d->shape_out ? op->d->shape_out
							: "?");
	else if (op->d->count_in >= 0 || op->d->count_out >= 0)
		g_string_append_printf(d, " count %" G_GINT64_FORMAT,
				       op->d->count_in >= 0 ? op->d->count_in
							    : op->d->count_out);
	if (op->d->dtype_name)
		g_string_append_printf(d, " %s", op->d->dtype_name);
	else if (op->d->dtype != HD_DTYPE_UNKNOWN)
		g_string_append_printf(d, " %s", hd_dtype_name(op->d->dtype));
	if (op->d->redop != HD_REDOP_NONE)
		g_string_append_printf(d, " op %s",
				       hd_redop_name(op->d->redop));
	if (op->d->peer >= 0)
		g_string_append_printf(d, " %s %d",
				       hd_op_kind_is_p2p(op->kind) ? "peer"
								   : "root",
				       op->d->peer);
	g_string_append_printf(d, ", %s", hd_op_state_name(op->state));
	if (where)
		g_string_append_printf(d, ", at %s", where);
	return g_string_free(d, FALSE);
}

char *hd_op_describe(const struct hd_store *s, const struct hd_op *op)
{
	return describe(s, op, true);
}

char *hd_op_describe_bare(const struct hd_store *s, const struct hd_op *op)
{
	return describe(s, op, false);
}

static bool same_culprits(const struct hd_verdict *a, const struct hd_verdict *b)
{
	if (a->culprits->len != b->culprits->len)
		return false;
	return memcmp(a->culprits->data, b->culprits->data,
		      a->culprits->len * sizeof(int)) == 0;
}

static bool has_source(const struct hd_verdict *v, const char *source)
{
	for (guint i = 0; i < v->evidence->len && source; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		if (e->source && strcmp(e->source, source) == 0)
			return true;
	}
	return false;
}

/*
 * Joins verdicts that say the same thing from different sources (an FR
 * dump and the c10d log of the same hang, or a process group and the NCCL
 * comm hd-join.c linked it to): the evidence is pooled, and agreement
 * between independent sources raises the confidence.
 */
static void merge_duplicates(const struct hd_index *ix, struct hd_analysis *a)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint j = i + 1; j < a->verdicts->len;) {
			struct hd_verdict *w = g_ptr_array_index(a->verdicts, j);
			bool joined = w->kind == v->kind &&
				      hd_join_same_finding(ix, v, w);

			if (w->kind != v->kind || !same_culprits(v, w) ||
			    (!joined && v->group >= 0 && w->group >= 0 &&
			     v->group != w->group) ||
			    /*
			     * Seqs are comparable only within one group:
			     * a PG-name-only verdict (group -1) counts
			     * SeqNum, an NCCL comm counts COLL lines.
			     */
			    (!joined && v->group >= 0 && w->group >= 0 &&
			     v->seq >= 0 && w->seq >= 0 && v->seq != w->seq) ||
			    v->culprits->len == 0) {
				j++;
				continue;
			}
			/* The process group's verdict speaks for both. */
			if (joined && hd_join_is_pg(ix, w->group)) {
				a->verdicts->pdata[i] = w;
				a->verdicts->pdata[j] = v;
				v = w;
				w = g_ptr_array_index(a->verdicts, j);
			}
			if (v->group < 0 && w->group >= 0) {
				v->group = w->group;
				v->seq = w->seq;
			}
			if (v->seq < 0)
				v->seq = w->seq;
			if (!v->op)
				v->op = w->op;
			if (w->confidence >= HD_CONF_MEDIUM &&
			    v->confidence >= HD_CONF_MEDIUM)
				v->confidence = HD_CONF_HIGH;
			else if (w->confidence > v->confidence)
				v->confidence = w->confidence;
			for (guint e = 0; e < w->evidence->len; e++) {
				struct hd_evidence *ev =
					g_ptr_array_index(w->evidence, e);

				if (joined && has_source(v, ev->source))
					continue;
				hd_verdict_add_evidence(v, ev->rank, ev->source,
							"%s", ev->text);
			}
			/* A joined comm's are about its own positions. */
			for (guint r = 0; r < w->ruled_out->len && !joined; r++)
				g_ptr_array_add(v->ruled_out,
						g_strdup(g_ptr_array_index(
							w->ruled_out, r)));
			if (w->score > v->score)
				v->score = w->score;
			g_ptr_array_remove_index(a->verdicts, j);
		}
	}
}

static int compare_verdicts(gconstpointer pa, gconstpointer pb)
{
	const struct hd_verdict *a = *(const struct hd_verdict *const *)pa;
	const struct hd_verdict *b = *(const struct hd_verdict *const *)pb;
	double sa = a->score + 3.0 * a->confidence;
	double sb = b->score + 3.0 * b->confidence;

	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static void fill_ranks(const struct hd_index *ix, struct hd_analysis *a)
{
	g_autoptr(GList) keys = g_hash_table_get_keys(ix->rank_inputs);
	int world = a->world_size;

	for (GList *l = keys; l; l = l->next) {
		int r = GPOINTER_TO_INT(l->data);

		g_array_append_val(a->ranks_seen, r);
	}
	g_array_sort(a->ranks_seen, compare_int);
	for (guint i = 0; i < a->ranks_seen->len && world >= 0; i++) {
		int r = g_array_index(a->ranks_seen, int, i);

		if (r >= world)
			world = -1 - r; /* more ranks than any group said */
	}
	if (world < -1) {
		g_ptr_array_add(a->notes,
				g_strdup_printf("rank %d is outside the world size %d that the groups report",
						-1 - world, a->world_size));
	} else if (a->world_size > 0) {
		/* Cap what a hostile world size can make us list. */
		int w = MIN(a->world_size, 1 << 22);
		guint k = 0;

		for (int r = 0; r < w; r++) {
			while (k < a->ranks_seen->len &&
			       g_array_index(a->ranks_seen, int, k) < r)
				k++;
			if (k >= a->ranks_seen->len ||
			    g_array_index(a->ranks_seen, int, k) != r)
				g_array_append_val(a->ranks_missing, r);
		}
	}
}

/* The group the per-rank table is about: the top verdict's, else the biggest. */
static int64_t progress_group(const struct hd_index *ix,
			      const struct hd_analysis *a)
{
	int64_t best = -1;
	size_t best_n = 0;

	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->group >= 0)
			return v->group;
	}
	for (guint g = 0; g < ix->groups->len; g++) {
		const struct hd_group_index *gi =
			&g_array_index(ix->groups, struct hd_group_index, g);
		size_t n = 0;

		for (guint l = 0; l < gi->lanes->len; l++)
			n += g_array_index(gi->lanes, struct hd_lane, l).n;
		if (n > best_n) {
			best_n = n;
			best = g;
		}
	}
	return best;
}

static const char *culprit_state(const struct hd_analysis *a, int rank)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint c = 0; c < v->culprits->len; c++) {
			if (g_array_index(v->culprits, int, c) != rank)
				continue;
			switch (v->kind) {
			case HD_V_RANK_CRASHED:
				return "crashed";
			case HD_V_MISSING_RANK:
			case HD_V_BLOCKED_CHAIN:
				return "absent";
			case HD_V_LAGGING_RANK:
				return "lagging";
			case HD_V_STRAGGLER:
				return "straggler";
			default:
				return "culprit";
			}
		}
	}
	return NULL;
}

/* Does any lane of rank in group g know which ops completed? */
static bool rank_has_completion(const struct hd_index *ix, int64_t g, int rank)
{
	const struct hd_group_index *gi;

	if (g < 0 || (guint64)g >= ix->groups->len)
		return false;
	gi = &g_array_index(ix->groups, struct hd_group_index, g);
	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane =
			&g_array_index(gi->lanes, struct hd_lane, l);

		if (lane->rank == rank && lane->has_completion_info)
			return true;
	}
	return false;
}

/* What a lane says about its rank's progress in the progress group. */
static void progress_from_lane(const struct hd_lane *lane,
			       struct hd_rank_progress *p)
{
	if (lane->max_seq > p->last_enqueued)
		p->last_enqueued = lane->max_seq;
	if (lane->max_completed > p->last_completed)
		p->last_completed = lane->max_completed;
	if (lane->first_blocked >= 0 &&
	    (p->blocked_seq < 0 || lane->first_blocked < p->blocked_seq))
		p->blocked_seq = lane->first_blocked;
}

static void fill_progress(const struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	int64_t g = progress_group(ix, a);
	g_autoptr(GHashTable) rows = g_hash_table_new(g_direct_hash,
						      g_direct_equal);

	for (guint i = 0; i < a->ranks_seen->len; i++) {
		struct hd_rank_progress p = { 0 };
		const struct hd_rank *r;

		p.rank = g_array_index(a->ranks_seen, int, i);
		r = hd_store_find_rank(s, p.rank);
		p.host = r ? r->host : NULL;
		p.inputs = r ? r->inputs->len : 0;
		p.group = g;
		p.last_enqueued = p.last_completed = p.blocked_seq = -1;
		g_array_append_val(a->progress, p);
		g_hash_table_insert(rows, GINT_TO_POINTER(p.rank),
				    GUINT_TO_POINTER(a->progress->len));
	}
	/* From the lanes: only the progress group's ops are read. */
	for (guint gl = 0; gl < ix->groups->len; gl++) {
		const struct hd_group_index *gi =
			&g_array_index(ix->groups, struct hd_group_index, gl);

		for (guint l = 0; l < gi->lanes->len; l++) {
			const struct hd_lane *lane =
				&g_array_index(gi->lanes, struct hd_lane, l);
			guint row = GPOINTER_TO_UINT(g_hash_table_lookup(
				rows, GINT_TO_POINTER(lane->rank)));
			struct hd_rank_progress *p;

			if (!row)
				continue;
			p = &g_array_index(a->progress, struct hd_rank_progress,
					   row - 1);
			p->ops += lane->n;
			if ((int64_t)gl == g && lane->seq_kind != HD_SEQ_P2P)
				progress_from_lane(lane, p);
		}
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		guint row = GPOINTER_TO_UINT(g_hash_table_lookup(
			rows, GINT_TO_POINTER(sig->rank)));

		if (!row || sig->cat == HD_SIG_INFO)
			continue;
		g_array_index(a->progress, struct hd_rank_progress, row - 1)
			.signals++;
		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT)
			g_array_index(a->progress, struct hd_rank_progress,
				      row - 1)
				.state = "timed out";
	}
	for (guint i = 0; i < a->progress->len; i++) {
		struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);
		const char *st = culprit_state(a, p->rank);

		/* Without completion info an enqueued op says nothing. */
		if (p->last_completed < 0 && !rank_has_completion(ix, g, p->rank))
			p->blocked_seq = -1;
		/* A culprit first, then what its ops say, then its signals. */
		if (st)
			p->state = st;
		else if (p->blocked_seq >= 0)
			p->state = "blocked";
		else if (p->state && strcmp(p->state, "timed out") == 0)
			p->state = "timed out";
		else if (p->ops == 0 && p->signals == 0)
			p->state = "no ops";
		else
			p->state = "ok";
	}
	for (guint i = 0; i < a->ranks_missing->len && i < 4096; i++) {
		struct hd_rank_progress p = { 0 };

		p.rank = g_array_index(a->ranks_missing, int, i);
		p.group = g;
		p.last_enqueued = p.last_completed = p.blocked_seq = -1;
		p.state = "no data";
		g_array_append_val(a->progress, p);
	}
}

static gint compare_progress(gconstpointer pa, gconstpointer pb)
{
	const struct hd_rank_progress *a = pa, *b = pb;

	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The verdict when nothing else was found. */
static void add_summary_verdict(const struct hd_index *ix,
				struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	uint64_t records = 0;
	struct hd_verdict *v;

	if (hd_analysis_has_fault(a))
		return;
	for (guint i = 0; i < s->inputs->len; i++)
		records += ((const struct hd_input *)g_ptr_array_index(
				    s->inputs, i))
				   ->records;
	for (guint i = 0; i < a->verdicts->len; i++)
		if (((const struct hd_verdict *)g_ptr_array_index(a->verdicts,
								  i))
			    ->kind == HD_V_INSUFFICIENT_DATA)
			return;
	if (records == 0) {
		v = hd_verdict_new(HD_V_INSUFFICIENT_DATA, HD_CONF_HIGH,
				   "no records could be read from %u input%s",
				   s->inputs->len,
				   s->inputs->len == 1 ? "" : "s");
		v->score = HD_SCORE_INSUFFICIENT;
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	v = hd_verdict_new(HD_V_NO_FAULT,
			   a->ranks_missing->len ? HD_CONF_LOW : HD_CONF_MEDIUM,
			   "no fault found in %u ops and %u signals from %u ranks (%u inputs)",
			   s->ops->len, s->signals->len, a->ranks_seen->len,
			   s->inputs->len);
	v->score = HD_SCORE_NO_FAULT;
	hd_verdict_add_ruled_out(v, "type, size, dtype, root and reduction mismatches: every aligned position agrees");
	hd_verdict_add_ruled_out(v, "missing or lagging ranks: every rank reached the same position in every group");
	if (a->ranks_missing->len)
		hd_verdict_add_ruled_out(v, "nothing about %u ranks that left no data",
					 a->ranks_missing->len);
	g_ptr_array_add(a->verdicts, v);
}

static void fill_group_stats(const struct hd_index *ix, struct hd_analysis *a)
{
	g_array_set_size(a->group_stats, ix->groups->len);
	for (guint g = 0; g < ix->groups->len; g++) {
		const struct hd_group_index *gi =
			&g_array_index(ix->groups, struct hd_group_index, g);
		struct hd_group_stats *st =
			&g_array_index(a->group_stats, struct hd_group_stats, g);
		int64_t lo = -1, hi = -1, common_lo = -1, common_hi = -1;
		bool first = true;

		st->group = g;
		st->joined = -1;
		for (guint l = 0; l < gi->lanes->len; l++) {
			const struct hd_lane *lane =
				&g_array_index(gi->lanes, struct hd_lane, l);

			if (lane->seq_kind == HD_SEQ_P2P || lane->n == 0)
				continue;
			st->ranks_with_data++;
			if (lo < 0 || lane->min_seq < lo)
				lo = lane->min_seq;
			if (lane->max_seq > hi)
				hi = lane->max_seq;
			if (first || lane->min_seq > common_lo)
				common_lo = lane->min_seq;
			if (first || lane->max_seq < common_hi)
				common_hi = lane->max_seq;
			first = false;
		}
		if (hi >= 0)
			st->positions = (uint32_t)MIN(hi - lo + 1, UINT32_MAX);
		if (!first && common_hi >= common_lo)
			st->ops_aligned = (uint32_t)MIN(common_hi - common_lo + 1,
							UINT32_MAX);
	}
	for (guint i = 0; ix->links && i < ix->links->len; i++) {
		const struct hd_join_link *l =
			&g_array_index(ix->links, struct hd_join_link, i);
		struct hd_group_stats *pg = &g_array_index(
			a->group_stats, struct hd_group_stats, l->pg);
		struct hd_group_stats *comm = &g_array_index(
			a->group_stats, struct hd_group_stats, l->comm);

		pg->joined = l->comm;
		comm->joined = l->pg;
		pg->joined_ops = comm->joined_ops = l->ops;
	}
}

struct hd_analysis *hd_engine_run(const struct hd_store *store)
{
	struct hd_analysis *a = g_new0(struct hd_analysis, 1);
	struct hd_index *ix;

	a->store = store;
	a->verdicts = g_ptr_array_new_with_free_func(
		(GDestroyNotify)hd_verdict_free);
	a->group_stats = g_array_new(FALSE, TRUE, sizeof(struct hd_group_stats));
	a->ranks_seen = g_array_new(FALSE, FALSE, sizeof(int));
	a->ranks_missing = g_array_new(FALSE, FALSE, sizeof(int));
	a->arrivals = g_array_new(FALSE, TRUE, sizeof(struct hd_arrival));
	a->notes = g_ptr_array_new_with_free_func(g_free);
	a->progress = g_array_new(FALSE, TRUE, sizeof(struct hd_rank_progress));
	a->world_size = store->world_size;

	ix = hd_index_build(store);
	fill_ranks(ix, a);
	hd_join_run(ix, a);
	hd_check_groups(ix, a);
	hd_check_signals(ix, a);
	hd_check_chains(ix, a);
	hd_straggler_run(store, a);
	merge_duplicates(ix, a);
	add_summary_verdict(ix, a);
	g_ptr_array_sort(a->verdicts, compare_verdicts);
	fill_group_stats(ix, a);
	fill_progress(ix, a);
	g_array_sort(a->progress, compare_progress);
	hd_index_free(ix);
	return a;
}
