/*
 * The op index the checks share, built once per run: each group's ops cut
 * into lanes (one rank, one sequence kind, one source kind), sorted by
 * position and summed up (range, completion, first blocked op); which
 * ranks left any data; the wait-for edges the checks record; and how an op
 * is described in evidence.
 */
#include "config.h"

#include "hd-index.h"
#include "hd-const.h"

#include <string.h>

#include "hd-hash.h"
#include "hd-banned.h"

/*
 * Lane key: group, rank, seq kind and source kind packed into 64 bits,
 * from the top: 32 bits of group, 24 of rank + 1, 2 of seq kind and
 * HD_INPUT_KIND_BITS of source.
 */
#define KEY_SOURCE_BITS HD_INPUT_KIND_BITS
#define KEY_SEQ_SHIFT	KEY_SOURCE_BITS
#define KEY_RANK_SHIFT	(KEY_SEQ_SHIFT + 2)
#define KEY_GROUP_SHIFT (KEY_RANK_SHIFT + 24)
_Static_assert(KEY_GROUP_SHIFT == 32, "a lane key's group has 32 bits");
_Static_assert(HD_MAX_RANKS < (1 << 24), "rank + 1 fits in 24 bits");
_Static_assert(HD_SEQ_ORDINAL < 4, "seq kinds fit in 2 bits");

static uint64_t lane_key(uint32_t group, int rank, uint8_t seq_kind,
			 uint8_t source)
{
	return ((uint64_t)group << KEY_GROUP_SHIFT) |
	       ((uint64_t)(uint32_t)(rank + 1) << KEY_RANK_SHIFT) |
	       ((uint64_t)seq_kind << KEY_SEQ_SHIFT) | source;
}

/* A lane key mixes group and rank: hash all 64 bits (hd-hash.h). */
static guint lane_hash(gconstpointer p)
{
	return hd_int64_hash(p);
}

static gint compare_lane_ops(gconstpointer a, gconstpointer b, gpointer data)
{
	const struct hd_store *s = data;
	const struct hd_op *x =
		&g_array_index(s->ops, struct hd_op, *(const uint32_t *)a);
	const struct hd_op *y =
		&g_array_index(s->ops, struct hd_op, *(const uint32_t *)b);
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (ia > ib) - (ia < ib);
}

/*
 * A lane being collected: its summary, summed up op by op in the pass
 * that collects it (the op records are read in store order, a pass to
 * count each lane's ops and one to collect them), and
 * whether its ops came in seq order.
 */
struct lane_sum {
	struct hd_lane l; /* l.ops holds l.n of cap */
	uint32_t cap;
	int64_t prev; /* the seq of its last op */
	bool sorted;
};

static void lane_sum_init(struct lane_sum *sum)
{
	struct hd_lane *l = &sum->l;

	memset(sum, 0, sizeof(*sum));
	l->min_seq = l->max_seq = l->max_completed = l->first_pending = -1;
	l->first_blocked = -1;
	sum->prev = INT64_MIN;
	sum->sorted = true;
}

/*
 * Appends op, the lane's next in store order, at index idx, and counts it
 * into the summary.  The ops of an interleaved log change lane at every
 * op: a plain array, not a GArray call each.
 */
static inline void lane_sum_add(const struct hd_store *s, struct lane_sum *sum,
				const struct hd_op *op, uint32_t idx)
{
	struct hd_lane *l = &sum->l;

	g_assert(l->n < sum->cap); /* counted first (index_collect_ops()) */
	l->ops[l->n++] = idx;

	if (hd_op_stack(s, op) >= 0)
		l->has_stack = true;
	if (op->seq < sum->prev)
		sum->sorted = false;
	sum->prev = op->seq;
	if (hd_op_kind_is_p2p(op->kind))
		l->n_p2p++;
	if (l->min_seq < 0 || op->seq < l->min_seq)
		l->min_seq = op->seq;
	if (op->seq > l->max_seq)
		l->max_seq = op->seq;
	if (op->state == HD_STATE_COMPLETED || op->state == HD_STATE_STARTED)
		l->has_completion_info = true;
	if (op->state == HD_STATE_COMPLETED) {
		if (op->seq > l->max_completed)
			l->max_completed = op->seq;
		return;
	}
	if (l->first_pending < 0 || op->seq < l->first_pending)
		l->first_pending = op->seq;
	if ((op->state == HD_STATE_STARTED || op->state == HD_STATE_ENQUEUED) &&
	    (l->first_blocked < 0 || op->seq < l->first_blocked))
		l->first_blocked = op->seq;
}

/* Finishes a summed-up lane: sorted by seq when its ops were not. */
static void lane_finish(const struct hd_store *s, struct lane_sum *sum)
{
	struct hd_lane *l = &sum->l;

	if (!l->has_completion_info)
		l->first_pending = -1;
	/*
	 * The store travels with the comparison, not in a global under a
	 * lock: triage runs the engines of many incidents at once.
	 */
	if (!sum->sorted)
		g_qsort_with_data(l->ops, (gint)l->n, sizeof(uint32_t),
				  compare_lane_ops, hd_unconst(s));
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

/* One empty lane list per store group. */
static void index_init_groups(struct hd_index *ix)
{
	const struct hd_store *s = ix->store;

	ix->groups = g_array_new(FALSE, TRUE, sizeof(struct hd_group_index));
	g_array_set_size(ix->groups, s->groups->len);
	for (guint g = 0; g < s->groups->len; g++) {
		struct hd_group_index *gi = hd_index_group(ix, g);

		gi->group = g;
		gi->lanes = g_array_new(FALSE, FALSE, sizeof(struct hd_lane));
	}
}

/* Finding an op's lane: the table of lanes met, and memos in front. */
struct lane_find {
	GHashTable *lanes; /* key -> index in sums + 1 */
	struct rank_memo memo;
	uint32_t last_input;
	uint8_t last_source;
};

/*
 * The index in sums of op's lane, a new one (with its key at the same
 * index of keys) if op is the first met; or -1 for an op of no group.
 */
static gint64 lane_find(struct lane_find *f, const struct hd_store *s,
			const struct hd_op *op, GArray *keys, GArray *sums)
{
	uint64_t key;
	gpointer *slot;
	guint at;
	bool hit;

	if (op->group >= s->groups->len)
		return -1;
	/*
	 * The source kind decides the lane, so that a rank's FR entries and
	 * its trace kernels are never aligned against each other.  An
	 * input's ops are adjacent: look it up once.
	 */
	if (op->input != f->last_input) {
		f->last_input = op->input;
		f->last_source = (uint8_t)hd_store_op_source(s, op);
	}
	key = lane_key(op->group, hd_op_rank(op), op->seq_kind, f->last_source);
	/* the memo and the table hold a lane's index in sums, + 1 */
	slot = rank_memo_slot(&f->memo, hd_op_rank(op), (int64_t)key, &hit);
	if (hit)
		return GPOINTER_TO_UINT(*slot) - 1;
	at = GPOINTER_TO_UINT(g_hash_table_lookup(f->lanes, &key));
	if (at-- == 0) {
		uint64_t *kp = &g_array_index(keys, uint64_t, sums->len);

		*kp = key;
		at = sums->len;
		g_hash_table_insert(f->lanes, kp, GUINT_TO_POINTER(at + 1));
		g_array_set_size(sums, at + 1);
		lane_sum_init(&g_array_index(sums, struct lane_sum, at));
	}
	*slot = GUINT_TO_POINTER(at + 1);
	return at;
}

static void lane_find_init(struct lane_find *f, GHashTable *lanes)
{
	f->lanes = lanes;
	rank_memo_init(&f->memo);
	f->last_input = UINT32_MAX;
	f->last_source = 0;
}

/*
 * Appends every grouped op's index to its lane in sums (a new one, with
 * its key at the same index of keys, for each lane met), and counts
 * every op's rank as seen.  Two passes: the first counts each lane's
 * ops, so that its array is made once at its size; grown by doubling,
 * the arrays of an interleaved log's lanes left as much again of freed
 * copies in the heap (23 MB at peak on a 2 GB log).
 */
static void index_collect_ops(struct hd_index *ix, GArray *keys, GArray *sums)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) lanes =
		g_hash_table_new(lane_hash, g_int64_equal);
	struct rank_memo seen;
	struct lane_find f;

	rank_memo_init(&seen);
	lane_find_init(&f, lanes);
	/* Keys live in a preallocated array so the table can point at them. */
	g_array_set_size(keys, s->ops->len + 1);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		gint64 at;
		bool hit;

		if (hd_op_rank(op) < 0)
			continue;
		/* every op's rank counts as seen, grouped or not */
		(void)rank_memo_slot(&seen, hd_op_rank(op), hd_op_rank(op),
				     &hit);
		if (!hit)
			g_hash_table_insert(ix->rank_inputs,
					    GINT_TO_POINTER(hd_op_rank(op)),
					    GINT_TO_POINTER(1));
		at = lane_find(&f, s, op, keys, sums);
		if (at >= 0)
			g_array_index(sums, struct lane_sum, at).cap++;
	}
	for (guint k = 0; k < sums->len; k++) {
		struct lane_sum *sum = &g_array_index(sums, struct lane_sum, k);

		sum->l.ops = g_new(uint32_t, sum->cap);
	}
	lane_find_init(&f, lanes);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		gint64 at;

		if (hd_op_rank(op) < 0)
			continue;
		at = lane_find(&f, s, op, keys, sums);
		if (at >= 0)
			lane_sum_add(s,
				     &g_array_index(sums, struct lane_sum, at),
				     op, i);
	}
}

/* Turns each collected lane into a summed-up lane of its group. */
static void index_add_lanes(struct hd_index *ix, const GArray *keys,
			    GArray *sums)
{
	for (guint i = 0; i < sums->len; i++) {
		uint64_t key = g_array_index(keys, uint64_t, i);
		struct lane_sum *sum = &g_array_index(sums, struct lane_sum, i);
		struct hd_lane *lane = &sum->l;
		struct hd_group_index *gi;

		lane->rank = (int)((key >> KEY_RANK_SHIFT) & 0xffffffu) - 1;
		lane->seq_kind = (key >> KEY_SEQ_SHIFT) & 3;
		lane->source = key & ((1u << KEY_SOURCE_BITS) - 1);
		/* no room left over (a lane may hold millions of ops) */
		lane->ops = g_renew(uint32_t, lane->ops, lane->n);
		lane_finish(ix->store, sum);
		gi = &g_array_index(ix->groups, struct hd_group_index,
				    key >> KEY_GROUP_SHIFT);
		g_array_append_val(gi->lanes, *lane);
	}
}

/* Ranks with a readable input, a rank record with inputs, or a signal. */
static void index_mark_ranks(struct hd_index *ix)
{
	const struct hd_store *s = ix->store;
	GHashTableIter it;
	gpointer k, v;

	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (in->rank >= 0 && !in->error)
			g_hash_table_insert(ix->rank_inputs,
					    GINT_TO_POINTER(in->rank),
					    GINT_TO_POINTER(1));
	}
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

struct hd_index *hd_index_build(const struct hd_store *s)
{
	struct hd_index *ix = g_new0(struct hd_index, 1);
	g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	g_autoptr(GArray) sums =
		g_array_new(FALSE, FALSE, sizeof(struct lane_sum));

	ix->store = s;
	index_init_groups(ix);
	/* Ranks with an input, an op or a signal: the ranks seen. */
	ix->rank_inputs = g_hash_table_new(g_direct_hash, g_direct_equal);
	index_collect_ops(ix, keys, sums);
	index_add_lanes(ix, keys, sums);
	ix->waits = g_array_new(FALSE, FALSE, sizeof(struct hd_wait));
	ix->links = g_array_new(FALSE, FALSE, sizeof(struct hd_join_link));
	index_mark_ranks(ix);
	return ix;
}

void hd_index_free(struct hd_index *ix)
{
	if (!ix)
		return;
	for (guint g = 0; g < ix->groups->len; g++) {
		struct hd_group_index *gi = hd_index_group(ix, g);

		for (guint l = 0; l < gi->lanes->len; l++)
			g_free(hd_group_lane(gi, l)->ops);
		g_array_unref(gi->lanes);
	}
	g_array_unref(ix->groups);
	g_array_unref(ix->waits);
	g_array_unref(ix->links);
	g_free(ix->partner);
	g_hash_table_unref(ix->rank_inputs);
	if (ix->last_active)
		g_hash_table_unref(ix->last_active);
	g_free(ix);
}

static void last_active_fill(struct hd_index *ix)
{
	const struct hd_store *s = ix->store;

	ix->last_active = g_hash_table_new_full(g_direct_hash, g_direct_equal,
						NULL, g_free);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		int64_t ns[3];
		int64_t *last = NULL;
		int rank = hd_op_rank(op);

		/* an op without an extra record has no time */
		if (rank < 0 || !hd_op_has_extra(op))
			continue;
		ns[0] = hd_op_t_enqueue(s, op);
		ns[1] = hd_op_t_start(s, op);
		ns[2] = hd_op_t_end(s, op);
		for (size_t k = 0; k < G_N_ELEMENTS(ns); k++) {
			struct hd_time t = hd_op_time(s, op, ns[k]);

			if (!hd_time_known(t) || t.clock >= HD_CLOCK_COUNT)
				continue;
			if (!last) {
				last = g_hash_table_lookup(
					ix->last_active, GINT_TO_POINTER(rank));
				if (!last) {
					last = g_new(int64_t, HD_CLOCK_COUNT);
					for (int c = 0; c < HD_CLOCK_COUNT; c++)
						last[c] = INT64_MIN;
					g_hash_table_insert(
						ix->last_active,
						GINT_TO_POINTER(rank), last);
				}
			}
			if (t.ns > last[t.clock])
				last[t.clock] = t.ns;
		}
	}
}

struct hd_time hd_index_last_active(struct hd_index *ix, int rank,
				    enum hd_clock clock)
{
	const int64_t *last;

	if (!ix->last_active)
		last_active_fill(ix);
	last = g_hash_table_lookup(ix->last_active, GINT_TO_POINTER(rank));
	if (!last || clock >= HD_CLOCK_COUNT)
		return hd_time_none();
	return hd_time_make(last[clock], clock);
}

void hd_index_add_wait(struct hd_index *ix, int waiter, int on, int64_t group,
		       int64_t seq, const char *what,
		       const struct hd_prov *prov)
{
	struct hd_wait w = { .waiter = waiter,
			     .on = on,
			     .group = group,
			     .seq = seq,
			     .what = hd_intern(what) };

	if (prov)
		w.prov = *prov;
	g_array_append_val(ix->waits, w);
}

void hd_index_add_wait_inferred(struct hd_index *ix, int waiter, int on,
				int64_t group, int64_t seq, const char *what,
				const struct hd_prov *prov)
{
	hd_index_add_wait(ix, waiter, on, group, seq, what, prov);
	g_array_index(ix->waits, struct hd_wait, ix->waits->len - 1).inferred =
		true;
}

bool hd_index_rank_has_data(const struct hd_index *ix, int rank)
{
	return g_hash_table_contains(ix->rank_inputs, GINT_TO_POINTER(rank));
}

uint64_t hd_index_rank_attempts(const struct hd_store *s, int rank)
{
	const struct hd_rank *r = hd_store_find_rank(s, rank);
	uint64_t best = 0;

	for (guint i = 0; r && i < r->inputs->len; i++) {
		const struct hd_input *in = hd_store_input(
			s, g_array_index(r->inputs, uint32_t, i));
		uint64_t n, at;

		if (in->kind != HD_INPUT_NCCL_LOG)
			continue;
		n = in->attempts && in->attempts->len ? in->attempts->len : 1;
		at = in->attempt ? in->attempt : n;
		best = MAX(best, n << 16 | MIN(at, 0xffff));
	}
	return best;
}

/* Frames from the framework itself are not where the user is. */
static bool is_framework_frame(const struct hd_frame *f)
{
	static const char *const framework[] = {
		"torch/distributed/",
		"torch/nn/",
		"torch/_",
		"torch/utils/",
		"site-packages/torch/",
		"<frozen",
		"threading.py",
	};

	if (!f->file)
		return true;
	for (size_t i = 0; i < G_N_ELEMENTS(framework); i++)
		if (strstr(f->file, framework[i]))
			return true;
	return false;
}

int32_t hd_stack_user_frame(const struct hd_store *s, int32_t stack)
{
	size_t n;
	const struct hd_frame *frames = hd_store_stack(s, stack, &n);

	for (size_t i = 0; i < n && i < INT32_MAX; i++)
		if (!is_framework_frame(&frames[i]))
			return (int32_t)i;
	return -1;
}

const struct hd_frame *hd_op_user_frame(const struct hd_store *s,
					const struct hd_op *op)
{
	size_t n;
	const struct hd_frame *frames =
		hd_store_stack(s, hd_op_stack(s, op), &n);

	for (size_t i = 0; i < n; i++)
		if (!is_framework_frame(&frames[i]))
			return &frames[i];
	return n > 0 && frames[0].file ? &frames[0] : NULL;
}

char *hd_op_where(const struct hd_store *s, const struct hd_op *op)
{
	size_t n;
	const struct hd_frame *frames =
		hd_store_stack(s, hd_op_stack(s, op), &n);

	for (size_t i = 0; i < n; i++)
		if (!is_framework_frame(&frames[i]))
			return g_strdup_printf(
				"%s:%d in %s", frames[i].file, frames[i].line,
				frames[i].name ? frames[i].name : "?");
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

	g_string_append_printf(d, "seq %" G_GINT64_FORMAT " %s",
			       (int64_t)op->seq, hd_op_kind_name(op->kind));
	if (hd_op_desc(op)->name &&
	    strcmp(hd_op_desc(op)->name, hd_op_kind_name(op->kind)) != 0)
		g_string_append_printf(d, " (%s)", hd_op_desc(op)->name);
	if (hd_op_desc(op)->shape_in || hd_op_desc(op)->shape_out)
		g_string_append_printf(
			d, " in %s out %s",
			hd_op_desc(op)->shape_in ? hd_op_desc(op)->shape_in
						 : "?",
			hd_op_desc(op)->shape_out ? hd_op_desc(op)->shape_out
						  : "?");
	else if (hd_op_desc(op)->count_in >= 0 ||
		 hd_op_desc(op)->count_out >= 0)
		g_string_append_printf(d, " count %" G_GINT64_FORMAT,
				       hd_op_desc(op)->count_in >= 0
					       ? hd_op_desc(op)->count_in
					       : hd_op_desc(op)->count_out);
	if (hd_op_desc(op)->dtype_name)
		g_string_append_printf(d, " %s", hd_op_desc(op)->dtype_name);
	else if (hd_op_desc(op)->dtype != HD_DTYPE_UNKNOWN)
		g_string_append_printf(d, " %s",
				       hd_dtype_name(hd_op_desc(op)->dtype));
	if (hd_op_desc(op)->redop != HD_REDOP_NONE)
		g_string_append_printf(d, " op %s",
				       hd_redop_name(hd_op_desc(op)->redop));
	if (hd_op_desc(op)->peer >= 0)
		g_string_append_printf(d, " %s %d",
				       hd_op_kind_is_p2p(op->kind) ? "peer"
								   : "root",
				       hd_op_desc(op)->peer);
	g_string_append_printf(d, ", %s", hd_op_state_name(op->state));
	if (where)
		g_string_append_printf(d, ", at %s", where);
	return g_string_free(d, FALSE);
}

char *hd_ranks_text(const GArray *ranks, guint max)
{
	GString *s = g_string_new(NULL);

	for (guint i = 0; i < ranks->len && i < max; i++)
		g_string_append_printf(s, "%s%d", i ? ", " : "",
				       g_array_index(ranks, int, i));
	if (ranks->len > max)
		g_string_append_printf(s, " and %u more", ranks->len - max);
	return g_string_free(s, FALSE);
}

char *hd_op_describe(const struct hd_store *s, const struct hd_op *op)
{
	return describe(s, op, true);
}

char *hd_op_describe_bare(const struct hd_store *s, const struct hd_op *op)
{
	return describe(s, op, false);
}
