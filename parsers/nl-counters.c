/*
 * The c10d watchdog's counters as completion of NCCL ops, after the merge
 * (nl_counters_complete()).  An NCCL log's COLL lines record only the
 * enqueue, but the same process's watchdog says how far its process
 * group got: "last enqueued NCCL work: 31, last completed NCCL work: 30".
 * A process group's works run in order on its stream, so works 1 to 30
 * completed; and where the group's works are the rank's COLL lines of one
 * comm, one call each, those are its first 30 ops there.  Completion
 * proves presence (docs/verdicts.md), so a rank whose log ends before
 * them (a log cut inside the hang) has an incomplete record, never a
 * missing one.
 *
 * The counters and the COLL lines may come from two files of the rank
 * (its stderr and its NCCL_DEBUG_FILE), so this runs over the merged
 * store.  A process group is taken for a comm of the rank only when
 * exactly one of the rank's comms holds exactly as many COLL lines as the
 * group enqueued works, none of them p2p, no other group of the rank
 * claims that comm.  A coalesced call (one work, several COLL lines), a
 * p2p op or a cut log leaves the counts unequal, and nothing is marked.  Bounded by one pass over the
 * signals and one over the ops.
 */
#include "config.h"

#include <string.h>

#include "formats.h"

#include "hd-const.h"
#include "hd-hash.h"
#include "hd-banned.h"

/* What the watchdog of one rank said of one process group. */
struct pg_counters {
	int rank;
	const char *pg; /* interned name */
	int64_t enqueued, completed;
	int64_t group; /* the comm it maps to, -1 none or ambiguous */
};

/* A rank's ops in one comm, from NCCL logs. */
struct comm_ops {
	int rank;
	uint32_t group;
	GArray *ops; /* uint32_t store indices */
	bool p2p; /* holds a send or recv */
	guint claims; /* process groups that map to it */
};

static guint pair_hash(gconstpointer p)
{
	const struct comm_ops *c = p;

	return hd_hash_u64(((uint64_t)(uint32_t)c->rank << 32) | c->group);
}

static gboolean pair_equal(gconstpointer a, gconstpointer b)
{
	const struct comm_ops *x = a, *y = b;

	return x->rank == y->rank && x->group == y->group;
}

static void comm_ops_free(gpointer p)
{
	struct comm_ops *c = p;

	g_array_unref(c->ops);
	g_free(c);
}

static bool from_log(const struct hd_store *s, uint32_t input)
{
	return input < s->inputs->len &&
	       hd_store_input(s, input)->kind == HD_INPUT_NCCL_LOG;
}

/* Each (rank, PG)'s latest counters: they only grow. */
static GPtrArray *collect_counters(const struct hd_store *s)
{
	g_autoptr(GHashTable) by_key =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GPtrArray *all = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		g_autofree char *key = NULL;
		struct pg_counters *pc;

		if (sig->rank < 0 || !sig->group_name ||
		    sig->last_enqueued == INT64_MIN ||
		    sig->last_completed == INT64_MIN ||
		    sig->last_enqueued <= 0 || sig->last_completed <= 0 ||
		    sig->last_completed > sig->last_enqueued ||
		    !from_log(s, sig->prov.input))
			continue;
		key = g_strdup_printf("%d|%s", sig->rank, sig->group_name);
		pc = g_hash_table_lookup(by_key, key);
		if (!pc) {
			pc = g_new0(struct pg_counters, 1);
			pc->rank = sig->rank;
			pc->pg = sig->group_name;
			pc->group = -1;
			g_hash_table_insert(by_key, g_steal_pointer(&key), pc);
			g_ptr_array_add(all, pc);
		}
		if (sig->last_enqueued >= pc->enqueued) {
			pc->enqueued = sig->last_enqueued;
			pc->completed = MAX(pc->completed, sig->last_completed);
		}
	}
	return all;
}

static gint compare_by_seq(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct hd_store *s = data;
	const struct hd_op *x =
		&g_array_index(s->ops, struct hd_op, *(const uint32_t *)a);
	const struct hd_op *y =
		&g_array_index(s->ops, struct hd_op, *(const uint32_t *)b);

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The NCCL-log ops of the ranks with counters, by (rank, comm). */
static GHashTable *collect_comm_ops(const struct hd_store *s,
				    const GPtrArray *counters)
{
	g_autoptr(GHashTable) ranks = g_hash_table_new(NULL, NULL);
	GHashTable *by = g_hash_table_new_full(pair_hash, pair_equal,
					       comm_ops_free, NULL);

	for (guint i = 0; i < counters->len; i++)
		g_hash_table_add(
			ranks,
			GINT_TO_POINTER(
				((const struct pg_counters *)counters->pdata[i])
					->rank));
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		struct comm_ops probe = { .rank = hd_op_rank(op),
					  .group = op->group };
		struct comm_ops *c;
		uint32_t at = i;

		if (probe.rank < 0 || op->seq_kind != HD_SEQ_ORDINAL ||
		    !g_hash_table_contains(ranks,
					   GINT_TO_POINTER(probe.rank)) ||
		    !from_log(s, op->input))
			continue;
		c = g_hash_table_lookup(by, &probe);
		if (!c) {
			c = g_new0(struct comm_ops, 1);
			*c = probe;
			c->ops = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			g_hash_table_add(by, c);
		}
		c->p2p |= hd_op_kind_is_p2p(op->kind);
		g_array_append_val(c->ops, at);
	}
	return by;
}

/* The one comm of pc's rank whose ops are pc's works, or NULL. */
static struct comm_ops *map_pg(const struct hd_store *s, GHashTable *by,
			       const struct pg_counters *pc)
{
	GHashTableIter it;
	gpointer key;
	struct comm_ops *found = NULL;

	g_hash_table_iter_init(&it, by);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		struct comm_ops *c = key;

		if (c->rank != pc->rank || c->p2p ||
		    (int64_t)c->ops->len != pc->enqueued)
			continue;
		if (found)
			return NULL; /* two comms fit: which is unknown */
		found = c;
	}
	if (found)
		g_array_sort_with_data(found->ops, compare_by_seq,
				       hd_unconst(s));
	return found;
}

void nl_counters_complete(struct hd_store *s)
{
	g_autoptr(GPtrArray) counters = collect_counters(s);
	g_autoptr(GHashTable) by = NULL;
	g_autoptr(GPtrArray) mapped = NULL;

	if (!counters->len)
		return;
	by = collect_comm_ops(s, counters);
	mapped = g_ptr_array_new();
	for (guint i = 0; i < counters->len; i++) {
		struct pg_counters *pc = counters->pdata[i];
		struct comm_ops *c = map_pg(s, by, pc);

		if (c)
			c->claims++;
		g_ptr_array_add(mapped, c);
	}
	for (guint i = 0; i < counters->len; i++) {
		const struct pg_counters *pc = counters->pdata[i];
		const struct comm_ops *c = mapped->pdata[i];

		/* two process groups on one comm: neither is known */
		if (!c || c->claims != 1)
			continue;
		for (int64_t k = 0; k < pc->completed; k++) {
			struct hd_op *op = &g_array_index(
				s->ops, struct hd_op,
				g_array_index(c->ops, uint32_t, k));

			op->state = HD_STATE_COMPLETED;
		}
	}
}
