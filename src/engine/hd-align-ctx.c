/*
 * The alignment context's views (hd-align-ctx.h): each lane of a group,
 * source and sequence kind cut down to its collectives and keyed by
 * position, borrowing the lane's op array where it can.
 */
#include "config.h"

#include <string.h>

#include "hd-align-ctx.h"
#include "hd-banned.h"

static void view_clear(struct view *v)
{
	if (!v->borrowed)
		g_free(v->ops);
	g_free(v->keys);
}

static void views_free(GArray *views)
{
	for (guint i = 0; i < views->len; i++)
		view_clear(&g_array_index(views, struct view, i));
	g_array_unref(views);
}

/* Gives a borrowing view arrays of its own, holding its first v->n ops. */
static void view_own(struct view *v, const struct hd_lane *l)
{
	v->keys = g_new(int64_t, l->n + 1);
	for (uint32_t i = 0; i < v->n; i++)
		v->keys[i] = v->key_base + i;
	v->ops = g_new(uint32_t, l->n + 1);
	memcpy(v->ops, l->ops, v->n * sizeof(uint32_t));
	v->borrowed = false;
}

/*
 * Collective ops of a lane, keyed by seq or by their ordinal.  A lane of
 * collectives at consecutive keys, the usual case, lends its op array
 * and keys are computed: no copy of millions of ops.
 */
static void view_from_lane(const struct group_ctx *c, const struct hd_lane *l,
			   struct view *v)
{
	int64_t ordinal = 0;

	memset(v, 0, sizeof(*v));
	v->rank = l->rank;
	v->ops = l->ops;
	v->borrowed = true;
	v->first_pending = -1;
	v->min_key = v->max_key = -1;
	/* An NCCL log's lane: keys are positions, no op need be read. */
	if (l->n_p2p == 0 && l->seq_kind == HD_SEQ_ORDINAL &&
	    !l->has_completion_info) {
		v->n = l->n;
		if (v->n > 0) {
			v->min_key = 0;
			v->max_key = v->n - 1;
		}
		return;
	}
	for (uint32_t i = 0; i < l->n; i++) {
		const struct hd_op *op = ctx_op(c, l->ops[i]);
		int64_t key;

		if (hd_op_kind_is_p2p(op->kind))
			continue;
		key = l->seq_kind == HD_SEQ_ORDINAL ? ordinal++ : op->seq;
		if (v->n == 0)
			v->key_base = key;
		if (v->borrowed &&
		    (i != v->n || key != v->key_base + (int64_t)v->n))
			view_own(v, l);
		if (!v->borrowed) {
			v->ops[v->n] = l->ops[i];
			v->keys[v->n] = key;
		}
		v->n++;
		if (v->min_key < 0 || key < v->min_key)
			v->min_key = key;
		if (key > v->max_key)
			v->max_key = key;
		if (op->state == HD_STATE_COMPLETED ||
		    op->state == HD_STATE_STARTED)
			v->completion_info = true;
		if (op->state != HD_STATE_COMPLETED &&
		    (v->first_pending < 0 || key < v->first_pending))
			v->first_pending = key;
	}
	if (!v->completion_info)
		v->first_pending = -1;
}

void hd_align_views_build(struct group_ctx *c)
{
	const struct hd_group_index *gi = hd_index_group(c->ix, c->group);

	c->views = g_array_new(FALSE, FALSE, sizeof(struct view));
	c->view_of_rank = g_hash_table_new(NULL, NULL);
	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane = hd_group_lane(gi, l);
		struct view vw;

		if (lane->seq_kind != c->seq_kind || lane->source != c->source)
			continue;
		view_from_lane(c, lane, &vw);
		if (vw.n == 0) {
			view_clear(&vw);
			continue;
		}
		g_array_append_val(c->views, vw);
		if (!g_hash_table_contains(c->view_of_rank,
					   GINT_TO_POINTER(vw.rank)))
			g_hash_table_insert(c->view_of_rank,
					    GINT_TO_POINTER(vw.rank),
					    GUINT_TO_POINTER(c->views->len));
	}
}

void hd_align_views_free(struct group_ctx *c)
{
	if (c->views)
		views_free(c->views);
	c->views = NULL;
	g_clear_pointer(&c->view_of_rank, g_hash_table_unref);
	g_clear_pointer(&c->foreign, g_hash_table_unref);
}
