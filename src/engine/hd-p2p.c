/*
 * Point-to-point pairing: per group, each rank's sends to a peer are
 * paired in order with the peer's recvs from it.  Paired ops must agree
 * in size; an unpaired op that did not complete waits on its peer.  A
 * cycle of such waits is a deadlock, reported once with every member;
 * otherwise each unpaired op is reported and its wait recorded for
 * hd_check_chains().
 */
#include "config.h"

#include "hd-align-ctx.h"
#include "hd-align.h"
#include "hd-hash.h"
#include "hd-banned.h"

/* Point-to-point ops of one direction between two ranks, in order. */
struct p2p_list {
	int from, to; /* global ranks */
	GArray *sends; /* uint32_t op index, on `from` */
	GArray *recvs; /* uint32_t op index, on `to` */
};

static void p2p_list_free(gpointer p)
{
	struct p2p_list *l = p;

	g_array_unref(l->sends);
	g_array_unref(l->recvs);
	g_free(l);
}

static struct p2p_list *p2p_get(GHashTable *pairs, int from, int to)
{
	uint64_t key = ((uint64_t)(uint32_t)from << 32) | (uint32_t)to;
	struct p2p_list *l = g_hash_table_lookup(pairs, &key);

	if (!l) {
		uint64_t *kp = g_new(uint64_t, 1);

		*kp = key;
		l = g_new0(struct p2p_list, 1);
		l->from = from;
		l->to = to;
		l->sends = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		l->recvs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		g_hash_table_insert(pairs, kp, l);
	}
	return l;
}

struct p2p_edge {
	int from, to;
	uint32_t op;
};

/* Each rank's edges, as indices into edges: rank -> GArray of guint. */
static GHashTable *p2p_out_edges(const GArray *edges)
{
	GHashTable *out = g_hash_table_new_full(NULL, NULL, NULL,
						(GDestroyNotify)g_array_unref);

	for (guint i = 0; i < edges->len; i++) {
		int from = g_array_index(edges, struct p2p_edge, i).from;
		GArray *list = g_hash_table_lookup(out, GINT_TO_POINTER(from));

		if (!list) {
			list = g_array_new(FALSE, FALSE, sizeof(guint));
			g_hash_table_insert(out, GINT_TO_POINTER(from), list);
		}
		g_array_append_val(list, i);
	}
	return out;
}

/*
 * Fills path with the shortest cycle of waits through start (start first
 * and last), if there is one.  Breadth first, each rank entered once:
 * there is an edge per unpartnered op, so two ranks can be joined by
 * hundreds of edges, and walking every path instead of every rank took
 * time exponential in the length of a chain of waits.
 */
static bool find_cycle(const GArray *edges, GHashTable *out, int start,
		       GArray *path)
{
	g_autoptr(GHashTable) parent = g_hash_table_new(NULL, NULL);
	g_autoptr(GArray) queue = g_array_new(FALSE, FALSE, sizeof(int));
	int last = -1;

	g_array_append_val(queue, start);
	for (guint q = 0; q < queue->len && last < 0; q++) {
		int at = g_array_index(queue, int, q);
		GArray *list = g_hash_table_lookup(out, GINT_TO_POINTER(at));

		for (guint i = 0; list && i < list->len; i++) {
			int to = g_array_index(edges, struct p2p_edge,
					       g_array_index(list, guint, i))
					 .to;

			if (to == start) {
				last = at;
				break;
			}
			if (g_hash_table_contains(parent, GINT_TO_POINTER(to)))
				continue;
			g_hash_table_insert(parent, GINT_TO_POINTER(to),
					    GINT_TO_POINTER(at));
			g_array_append_val(queue, to);
		}
	}
	if (last < 0)
		return false;
	/* Back from the last rank to start, then turned around. */
	g_array_set_size(path, 0);
	g_array_append_val(path, start);
	while (last != start) {
		g_array_append_val(path, last);
		last = GPOINTER_TO_INT(
			g_hash_table_lookup(parent, GINT_TO_POINTER(last)));
	}
	g_array_append_val(path, start);
	for (guint i = 0, j = path->len - 1; i < j; i++, j--) {
		int t = g_array_index(path, int, i);

		g_array_index(path, int, i) = g_array_index(path, int, j);
		g_array_index(path, int, j) = t;
	}
	return true;
}

/* The group's sends and recvs with a known peer, per direction. */
static GHashTable *p2p_pairs(const struct group_ctx *c)
{
	const struct hd_group_index *gi = hd_index_group(c->ix, c->group);
	GHashTable *pairs = g_hash_table_new_full(hd_int64_hash, hd_int64_equal,
						  g_free, p2p_list_free);

	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane = hd_group_lane(gi, l);

		for (uint32_t i = 0; i < lane->n && lane->n_p2p > 0; i++) {
			const struct hd_op *op = ctx_op(c, lane->ops[i]);
			int peer;

			if (!hd_op_kind_is_p2p(op->kind) ||
			    (op->flags & HD_OPF_ANY_SOURCE))
				continue;
			peer = hd_group_global_rank(c->g, hd_op_desc(op)->peer);
			if (peer < 0)
				continue;
			if (op->kind == HD_OP_SEND)
				g_array_append_val(
					p2p_get(pairs, hd_op_rank(op), peer)
						->sends,
					lane->ops[i]);
			else
				g_array_append_val(
					p2p_get(pairs, peer, hd_op_rank(op))
						->recvs,
					lane->ops[i]);
		}
	}
	return pairs;
}

/* A send and the recv paired with it disagree on the element count. */
static void p2p_report_size(struct group_ctx *c, const struct p2p_list *l,
			    guint i, const char *label)
{
	const struct hd_op *snd =
		ctx_op(c, g_array_index(l->sends, uint32_t, i));
	const struct hd_op *rcv =
		ctx_op(c, g_array_index(l->recvs, uint32_t, i));
	g_autofree char *s1 = ctx_source(c, snd);
	g_autofree char *s2 = ctx_source(c, rcv);
	struct hd_verdict *v = hd_verdict_new(
		HD_V_SIZE_MISMATCH, HD_CONF_MEDIUM,
		"size mismatch in %s: rank %d sends %" G_GINT64_FORMAT
		" elements to rank %d, which receives %" G_GINT64_FORMAT,
		label, l->from, hd_op_desc(snd)->count_in, l->to,
		hd_op_desc(rcv)->count_out);

	c->reported[ATTR_SIZE]++;
	hd_verdict_add_culprit(v, l->from);
	hd_verdict_add_culprit(v, l->to);
	v->group = c->group;
	v->seq = snd->seq;
	v->op = "send";
	v->score = HD_SCORE_MISMATCH;
	hd_verdict_add_evidence(
		v, l->from, s1,
		"rank %d: send #%u to rank %d, %" G_GINT64_FORMAT " elements",
		l->from, i, l->to, hd_op_desc(snd)->count_in);
	hd_verdict_add_evidence(
		v, l->to, s2,
		"rank %d: recv #%u from rank %d, %" G_GINT64_FORMAT " elements",
		l->to, i, l->from, hd_op_desc(rcv)->count_out);
	g_ptr_array_add(c->a->verdicts, v);
}

/* Compares the sizes of the first n sends and recvs, paired in order. */
static void p2p_check_sizes(struct group_ctx *c, const struct p2p_list *l,
			    guint n, const char *label)
{
	for (guint i = 0; i < n; i++) {
		const struct hd_op *snd =
			ctx_op(c, g_array_index(l->sends, uint32_t, i));
		const struct hd_op *rcv =
			ctx_op(c, g_array_index(l->recvs, uint32_t, i));

		if (hd_op_desc(snd)->count_in >= 0 &&
		    hd_op_desc(rcv)->count_out >= 0 &&
		    hd_op_desc(snd)->count_in != hd_op_desc(rcv)->count_out &&
		    c->reported[ATTR_SIZE] < MAX_REPORTS_PER_ATTR)
			p2p_report_size(c, l, i, label);
	}
}

/*
 * The ops past the first n that did not complete: extra sends wait on the
 * receiver, extra recvs on the sender.
 */
static void p2p_unpaired(const struct group_ctx *c, const struct p2p_list *l,
			 guint n, GArray *edges)
{
	for (guint i = n; i < l->sends->len; i++) {
		uint32_t oi = g_array_index(l->sends, uint32_t, i);
		struct p2p_edge e = { l->from, l->to, oi };

		if (ctx_op(c, oi)->state != HD_STATE_COMPLETED)
			g_array_append_val(edges, e);
	}
	for (guint i = n; i < l->recvs->len; i++) {
		uint32_t oi = g_array_index(l->recvs, uint32_t, i);
		struct p2p_edge e = { l->to, l->from, oi };

		if (ctx_op(c, oi)->state != HD_STATE_COMPLETED)
			g_array_append_val(edges, e);
	}
}

/* The deadlock verdict for a cycle of waits, citing the unpaired ops. */
static void p2p_report_cycle(struct group_ctx *c, const GArray *edges,
			     const GArray *path, const char *label)
{
	GString *chain = g_string_new(NULL);
	struct hd_verdict *v;

	for (guint k = 0; k < path->len; k++)
		g_string_append_printf(chain, "%s%d", k ? " -> " : "",
				       g_array_index(path, int, k));
	v = hd_verdict_new(
		HD_V_P2P_UNMATCHED, HD_CONF_HIGH,
		"p2p deadlock in %s: ranks wait on each other in a cycle %s",
		label, chain->str);
	g_string_free(chain, TRUE);
	v->group = c->group;
	v->op = "send/recv";
	v->score = HD_SCORE_P2P + 2;
	for (guint k = 0; k < path->len; k++)
		hd_verdict_add_culprit(v, g_array_index(path, int, k));
	for (guint k = 0; k < edges->len; k++) {
		const struct p2p_edge *x =
			&g_array_index(edges, struct p2p_edge, k);
		const struct hd_op *op = ctx_op(c, x->op);
		g_autofree char *src = ctx_source(c, op);
		g_autofree char *desc = hd_op_describe(c->s, op);

		if (v->evidence->len < 8)
			hd_verdict_add_evidence(
				v, x->from, src,
				"rank %d waits on rank %d: %s with no partner",
				x->from, x->to, desc);
	}
	hd_verdict_add_ruled_out(
		v,
		"a missing peer: every rank in the cycle left data and posted its op");
	g_ptr_array_add(c->a->verdicts, v);
}

/* A cycle is a deadlock: reports the first one found, once. */
static bool p2p_find_deadlock(struct group_ctx *c, const GArray *edges,
			      const char *label)
{
	g_autoptr(GHashTable) out = p2p_out_edges(edges);
	g_autoptr(GHashTable) tried = g_hash_table_new(NULL, NULL);

	for (guint i = 0; i < edges->len; i++) {
		const struct p2p_edge *e =
			&g_array_index(edges, struct p2p_edge, i);
		g_autoptr(GArray) path = g_array_new(FALSE, FALSE, sizeof(int));

		/* A rank's parallel edges would only repeat its search. */
		if (!g_hash_table_add(tried, GINT_TO_POINTER(e->from)))
			continue;
		if (find_cycle(edges, out, e->from, path)) {
			p2p_report_cycle(c, edges, path, label);
			return true;
		}
	}
	return false;
}

/* Reports the first few unpaired ops and records who waits on whom. */
static void p2p_report_unmatched(struct group_ctx *c, const GArray *edges,
				 const char *label)
{
	for (guint i = 0; i < edges->len && i < MAX_REPORTS_PER_ATTR; i++) {
		const struct p2p_edge *e =
			&g_array_index(edges, struct p2p_edge, i);
		const struct hd_op *op = ctx_op(c, e->op);
		g_autofree char *src = ctx_source(c, op);
		g_autofree char *desc = hd_op_describe(c->s, op);
		bool peer_data = hd_index_rank_has_data(c->ix, e->to);
		struct hd_verdict *v;
		struct hd_prov prov;

		v = hd_verdict_new(
			HD_V_P2P_UNMATCHED,
			peer_data ? HD_CONF_MEDIUM : HD_CONF_LOW,
			"unmatched %s in %s: rank %d's %s has no partner on rank %d%s",
			hd_op_kind_name(op->kind), label, e->from,
			hd_op_kind_name(op->kind), e->to,
			peer_data ? "" : ", which left no data");
		hd_verdict_add_culprit(v, e->to);
		v->group = c->group;
		v->seq = op->seq;
		v->op = hd_op_kind_name(op->kind);
		v->score = HD_SCORE_P2P;
		hd_verdict_add_evidence(v, e->from, src, "rank %d: %s", e->from,
					desc);
		prov = hd_op_prov(c->s, op);
		hd_index_add_wait(c->ix, e->from, e->to, c->group, op->seq,
				  label, &prov);
		g_ptr_array_add(c->a->verdicts, v);
	}
}

void hd_align_check_p2p(struct group_ctx *c)
{
	g_autoptr(GHashTable) pairs = p2p_pairs(c);
	g_autoptr(GArray) edges =
		g_array_new(FALSE, FALSE, sizeof(struct p2p_edge));
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	GHashTableIter it;
	gpointer key, value;

	g_hash_table_iter_init(&it, pairs);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		const struct p2p_list *l = value;
		guint n = MIN(l->sends->len, l->recvs->len);

		p2p_check_sizes(c, l, n, label);
		p2p_unpaired(c, l, n, edges);
	}
	if (edges->len > 0 && !p2p_find_deadlock(c, edges, label))
		p2p_report_unmatched(c, edges, label);
}
