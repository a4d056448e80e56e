/*
 * The common event store: inputs, ranks, groups, ops, signals and stacks,
 * with the merge that joins per-input stores and the resolve pass that
 * makes cross-input joins once everything is in.  The intern tables are in
 * hd-intern.c, the filters (attempts, bounds, time window) in
 * hd-store-filter.c, the enum names in hd-names.c.
 */
#include "config.h"

#include "hd-store.h"

#include <stdarg.h>
#include <string.h>

#include "hd-sort.h"
#include "hd-banned.h"

static void input_free(gpointer p)
{
	struct hd_input *in = p;

	if (!in)
		return;
	g_free(in->path);
	g_ptr_array_unref(in->warnings);
	g_free(in->error);
	g_free(in->sha256);
	g_free(in->xxh3_128);
	if (in->attempts)
		g_array_unref(in->attempts);
	g_free(in);
}

static void attempt_clear(gpointer p)
{
	g_free(((struct hd_attempt *)p)->first_trouble);
}

struct hd_attempt *hd_input_new_attempt(struct hd_input *in)
{
	struct hd_attempt at = { .begun = hd_time_none() };

	if (!in->attempts) {
		in->attempts =
			g_array_new(FALSE, TRUE, sizeof(struct hd_attempt));
		g_array_set_clear_func(in->attempts, attempt_clear);
	}
	g_array_append_val(in->attempts, at);
	return &g_array_index(in->attempts, struct hd_attempt,
			      in->attempts->len - 1);
}

static void rank_free(gpointer p)
{
	struct hd_rank *r = p;

	if (!r)
		return;
	g_array_unref(r->inputs);
	g_free(r);
}

static void group_free(gpointer p)
{
	struct hd_group *g = p;

	if (!g)
		return;
	g_free(g->id);
	g_free(g->name);
	g_free(g->desc);
	g_array_unref(g->members);
	hd_members_unref(g->shared);
	g_free(g);
}

static void signal_clear(gpointer p)
{
	struct hd_signal *sig = p;

	g_free(sig->text);
}

static void stack_free(gpointer p)
{
	if (p)
		g_array_unref(p);
}

struct hd_store *hd_store_new(void)
{
	struct hd_store *s = g_new0(struct hd_store, 1);

	hd_intern_hold();
	s->inputs = g_ptr_array_new_with_free_func(input_free);
	s->ranks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					 rank_free);
	s->groups = g_ptr_array_new_with_free_func(group_free);
	s->group_index = g_hash_table_new(g_str_hash, g_str_equal);
	s->ops = g_array_new(FALSE, FALSE, sizeof(struct hd_op));
	s->signals = g_array_new(FALSE, FALSE, sizeof(struct hd_signal));
	g_array_set_clear_func(s->signals, signal_clear);
	s->stacks = g_ptr_array_new_with_free_func(stack_free);
	s->world_size = -1;
	return s;
}

void hd_store_free(struct hd_store *s)
{
	if (!s)
		return;
	g_ptr_array_unref(s->inputs);
	g_hash_table_unref(s->ranks);
	g_hash_table_unref(s->group_index);
	g_ptr_array_unref(s->groups);
	g_array_unref(s->ops);
	if (s->op_extra)
		g_array_unref(s->op_extra);
	g_array_unref(s->signals);
	g_ptr_array_unref(s->stacks);
	g_free(s);
	/* last: the store's strings and descriptors are interned */
	hd_intern_release();
}

uint32_t hd_store_add_input(struct hd_store *s, const char *path)
{
	struct hd_input *in = g_new0(struct hd_input, 1);

	in->path = g_strdup(path);
	in->rank = -1;
	in->file_size = -1;
	in->warnings = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(s->inputs, in);
	return s->inputs->len - 1;
}

struct hd_input *hd_store_input(const struct hd_store *s, uint32_t index)
{
	/* Callers hold indices the store gave out: a bad one is a bug. */
	g_assert(index < s->inputs->len);
	return g_ptr_array_index(s->inputs, index);
}

uint64_t hd_store_kept_bytes(const struct hd_store *s)
{
	/* a GArray of frames: its header and its malloc chunk's */
	const uint64_t stack_overhead = 64;
	uint64_t n = (uint64_t)s->ops->len * sizeof(struct hd_op) +
		     (uint64_t)s->signals->len * sizeof(struct hd_signal);

	if (s->op_extra)
		n += (uint64_t)s->op_extra->len * sizeof(struct hd_op_xrec);
	for (guint i = 0; i < s->signals->len; i++) {
		const char *text =
			g_array_index(s->signals, struct hd_signal, i).text;

		if (text)
			n += strlen(text) + 1;
	}
	for (guint i = 0; i < s->stacks->len; i++)
		n += stack_overhead +
		     (uint64_t)((GArray *)g_ptr_array_index(s->stacks, i))
				     ->len *
			     sizeof(struct hd_frame);
	return n;
}

enum hd_input_kind hd_store_op_source(const struct hd_store *s,
				      const struct hd_op *op)
{
	if (op->input < s->inputs->len)
		return hd_store_input(s, op->input)->kind;
	return HD_INPUT_UNKNOWN;
}

void hd_input_warn(struct hd_input *in, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	g_autofree char *msg = NULL;

	in->nwarnings++;
	if (in->warnings->len >= HD_INPUT_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (line)
		g_ptr_array_add(in->warnings,
				g_strdup_printf("line %" G_GUINT64_FORMAT
						": %s",
						line, msg));
	else
		g_ptr_array_add(in->warnings, g_steal_pointer(&msg));
}

bool hd_input_unwarn(struct hd_input *in, const char *prefix)
{
	for (guint i = 0; i < in->warnings->len; i++) {
		if (!g_str_has_prefix(g_ptr_array_index(in->warnings, i),
				      prefix))
			continue;
		g_ptr_array_remove_index(in->warnings, i); /* frees it */
		in->nwarnings--;
		return true;
	}
	return false;
}

struct hd_rank *hd_store_find_rank(const struct hd_store *s, int rank)
{
	return g_hash_table_lookup(s->ranks, GINT_TO_POINTER(rank));
}

struct hd_rank *hd_store_rank(struct hd_store *s, int rank)
{
	struct hd_rank *r = hd_store_find_rank(s, rank);

	if (r)
		return r;
	r = g_new0(struct hd_rank, 1);
	r->rank = rank;
	r->cuda_dev = -1;
	r->inputs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	g_hash_table_insert(s->ranks, GINT_TO_POINTER(rank), r);
	return r;
}

void hd_rank_add_input(struct hd_rank *r, uint32_t input)
{
	for (guint i = 0; i < r->inputs->len; i++)
		if (g_array_index(r->inputs, uint32_t, i) == input)
			return;
	g_array_append_val(r->inputs, input);
}

char *hd_group_id_comm(uint64_t comm_id)
{
	return g_strdup_printf("comm:0x%016" G_GINT64_MODIFIER "x", comm_id);
}

/*
 * Runs of three or more ranks at one stride are written as a range, so the
 * id of a 16k-rank world is "pg:0:[0-16383]", not 100 KB that every dump
 * would hash: "a-b" for three or more at stride 1, "a,a+d,...,b" for four
 * or more at another.  Only runs from a non-negative rank are folded,
 * which keeps the text one-to-one with the list.
 */
char *hd_group_id_pg(const char *name, const int *ranks, size_t nranks)
{
	GString *s = g_string_new("pg:");

	g_string_append(s, name ? name : "?");
	g_string_append(s, ":[");
	for (size_t i = 0; i < nranks;) {
		size_t j = i + 1;
		int64_t step = 0;

		if (ranks[i] >= 0 && j < nranks)
			step = (int64_t)ranks[j] - ranks[i];
		while (step > 0 && j < nranks &&
		       (int64_t)ranks[j] - ranks[j - 1] == step)
			j++;
		if (i)
			g_string_append_c(s, ',');
		if (step > 0 && j - i >= (step == 1 ? 3u : 4u)) {
			if (step == 1)
				g_string_append_printf(s, "%d-%d", ranks[i],
						       ranks[j - 1]);
			else
				g_string_append_printf(s, "%d,%d,...,%d",
						       ranks[i], ranks[i + 1],
						       ranks[j - 1]);
			i = j;
		} else {
			g_string_append_printf(s, "%d", ranks[i]);
			i++;
		}
	}
	g_string_append_c(s, ']');
	return g_string_free(s, FALSE);
}

int64_t hd_store_find_group(const struct hd_store *s, const char *id)
{
	gpointer v = g_hash_table_lookup(s->group_index, id);

	return v ? (int64_t)GPOINTER_TO_UINT(v) - 1 : -1;
}

uint32_t hd_store_group(struct hd_store *s, const char *id)
{
	int64_t found = hd_store_find_group(s, id);
	struct hd_group *g;

	if (found >= 0)
		return (uint32_t)found;
	g = g_new0(struct hd_group, 1);
	g->id = g_strdup(id);
	g->nranks = -1;
	g->members = g_array_new(FALSE, FALSE, sizeof(int));
	g_ptr_array_add(s->groups, g);
	g_hash_table_insert(s->group_index, g->id,
			    GUINT_TO_POINTER(s->groups->len));
	return s->groups->len - 1;
}

guint hd_store_drop_empty_groups(struct hd_store *s, const bool *cand)
{
	guint n = s->groups->len, kept = 0;
	g_autofree uint32_t *map = g_new(uint32_t, n + 1);
	g_autofree bool *used = g_new0(bool, n + 1);
	GPtrArray *old = s->groups;

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->group < n)
			used[op->group] = true;
	}
	for (guint g = 0; g < n; g++)
		map[g] = cand[g] && !used[g] ? UINT32_MAX : kept++;
	if (kept == n)
		return 0;
	for (guint i = 0; i < s->ops->len; i++) {
		struct hd_op *op = &g_array_index(s->ops, struct hd_op, i);

		if (op->group < n)
			op->group = map[op->group];
	}
	s->groups = g_ptr_array_new_full(kept, group_free);
	g_hash_table_remove_all(s->group_index);
	for (guint g = 0; g < n; g++) {
		struct hd_group *grp = g_ptr_array_index(old, g);

		if (map[g] == UINT32_MAX) {
			group_free(grp);
			continue;
		}
		g_ptr_array_add(s->groups, grp);
		g_hash_table_insert(s->group_index, grp->id,
				    GUINT_TO_POINTER(s->groups->len));
	}
	g_ptr_array_set_free_func(old, NULL);
	g_ptr_array_unref(old);
	return n - kept;
}

struct hd_group *hd_store_group_at(const struct hd_store *s, uint32_t index)
{
	g_assert(index < s->groups->len);
	return g_ptr_array_index(s->groups, index);
}

/* Group sizes beyond this are refused: no job has more ranks. */
#define HD_MAX_GROUP_RANKS HD_MAX_RANKS

struct hd_members *hd_members_new(const int *ranks, size_t n)
{
	struct hd_members *m = g_new0(struct hd_members, 1);

	g_assert(n <= G_MAXUINT32);
	m->ranks = g_array_sized_new(FALSE, FALSE, sizeof(int), (guint)n);
	g_array_append_vals(m->ranks, ranks, (guint)n);
	m->sorted = g_new(int, n + 1);
	m->bounded = true;
	for (size_t i = 0; i < n; i++) {
		if (ranks[i] >= 0)
			m->sorted[m->nsorted++] = ranks[i];
		if (ranks[i] < -1 || ranks[i] >= HD_MAX_RANKS)
			m->bounded = false;
	}
	m->nknown = m->nsorted;
	qsort(m->sorted, m->nsorted, sizeof(int), hd_compare_int);
	g_atomic_ref_count_init(&m->ref);
	return m;
}

struct hd_members *hd_members_ref(struct hd_members *m)
{
	g_atomic_ref_count_inc(&m->ref);
	return m;
}

void hd_members_unref(struct hd_members *m)
{
	if (!m || !g_atomic_ref_count_dec(&m->ref))
		return;
	g_array_unref(m->ranks);
	g_free(m->sorted);
	g_free(m);
}

bool hd_members_contains(const struct hd_members *m, int rank)
{
	return bsearch(&rank, m->sorted, m->nsorted, sizeof(int),
		       hd_compare_int) != NULL;
}

void hd_group_share_members(struct hd_group *g, struct hd_members *m)
{
	g_assert(g->members->len == 0 && !g->shared);
	g_array_unref(g->members);
	g->members = g_array_ref(m->ranks);
	g->shared = hd_members_ref(m);
	g->nknown = m->nknown;
}

void hd_group_own_members(struct hd_group *g)
{
	GArray *own;

	if (!g->shared)
		return;
	own = g_array_sized_new(FALSE, FALSE, sizeof(int), g->members->len);
	g_array_append_vals(own, g->members->data, g->members->len);
	g_array_unref(g->members);
	g->members = own;
	g_clear_pointer(&g->shared, hd_members_unref);
}

void hd_group_set_member(struct hd_group *g, int group_rank, int global_rank)
{
	int unknown = -1;

	if (group_rank < 0 || group_rank >= HD_MAX_GROUP_RANKS)
		return;
	hd_group_own_members(g);
	/* a slot far past the members known is a claim: bounded */
	if ((guint)group_rank >= g->members->len &&
	    !hd_claim_believed(group_rank, (int64_t)g->nknown + 1)) {
		g->members_refused++;
		return;
	}
	if (global_rank >= 0 &&
	    ((guint)group_rank >= g->members->len ||
	     g_array_index(g->members, int, group_rank) < 0))
		g->nknown++;
	while (g->members->len <= (guint)group_rank)
		g_array_append_val(g->members, unknown);
	g_array_index(g->members, int, group_rank) = global_rank;
	if (g->nranks < (int)g->members->len)
		g->nranks = g->members->len;
}

int hd_group_rank_of(const struct hd_group *g, int global_rank)
{
	for (guint i = 0; i < g->members->len; i++)
		if (g_array_index(g->members, int, i) == global_rank)
			return i;
	return -1;
}

int hd_group_global_rank(const struct hd_group *g, int group_rank)
{
	if (group_rank < 0 || (guint)group_rank >= g->members->len)
		return -1;
	return g_array_index(g->members, int, group_rank);
}

char *hd_group_label(const struct hd_store *s, int64_t group,
		     enum hd_group_label_form form)
{
	const struct hd_group *g;

	if (group < 0 || (guint64)group >= s->groups->len)
		return g_strdup(form == HD_GROUP_LABEL_SHORT ? "-" : "?");
	g = hd_store_group_at(s, (uint32_t)group);
	if (form == HD_GROUP_LABEL_SHORT)
		return g_strdup(g->name ? g->name : g->id);
	if (g->name && g->desc && strcmp(g->desc, "undefined") != 0)
		return g_strdup_printf("PG %s (%s)", g->name, g->desc);
	if (g->name)
		return g_strdup_printf("PG %s", g->name);
	if (g->has_comm_id)
		return g_strdup_printf("comm 0x%" G_GINT64_MODIFIER "x",
				       g->comm_id);
	return g_strdup(g->id);
}

/*
 * The op record's size is what memory and the engine's passes cost per
 * op of the input: keep it at 40 bytes (docs/benchmarks.md).
 */
G_STATIC_ASSERT(sizeof(struct hd_op) == 32);
/* what an op with times or a stack adds: one of them, mostly */
G_STATIC_ASSERT(sizeof(struct hd_op_xrec) == 20);
G_STATIC_ASSERT(_Alignof(struct hd_op_xrec) == 4);
G_STATIC_ASSERT(sizeof(struct hd_opdesc) == 64);
/* the bit fields hold every value of their enums */
G_STATIC_ASSERT(HD_OP_KIND_COUNT <= 16);
G_STATIC_ASSERT(HD_STATE_COMPLETED < 4);
G_STATIC_ASSERT(HD_SEQ_ORDINAL < 4);
G_STATIC_ASSERT(HD_PROV_OFFSET < 4);
G_STATIC_ASSERT(HD_OPF_ANY_SOURCE < 16);
G_STATIC_ASSERT(HD_MAX_RANKS <= INT32_MAX);

const struct hd_opdesc hd_opdesc_blank = {
	.count_in = -1,
	.count_out = -1,
	.peer = -1,
};

const struct hd_op_extra hd_op_extra_blank = {
	.t_enqueue_ns = INT64_MIN,
	.t_start_ns = INT64_MIN,
	.t_end_ns = INT64_MIN,
	.stack = -1,
};

static const struct hd_op blank_op = {
	.who = -1,
	.seq = -1,
	.desc = 0, /* hd_opdesc_blank */
	.slot = HD_OP_COUNT_WIDE,
};

void hd_op_init(struct hd_op *op)
{
	*op = blank_op;
}

void hd_op_rec_init(struct hd_op_rec *rec)
{
	rec->op = blank_op;
	rec->op_count = -1;
	rec->t_enqueue_ns = INT64_MIN;
	rec->t_start_ns = INT64_MIN;
	rec->t_end_ns = INT64_MIN;
	rec->stack = -1;
	memset(&rec->prov, 0, sizeof(rec->prov));
}

/* A record of no time and no stack (an opCount record's deltas). */
static const struct hd_op_xrec xrec_blank = {
	.base_lo = 0,
	.base_hi = UINT32_C(1) << 31, /* INT64_MIN */
	.stack = -1,
};

static struct hd_op_xrec *xrec_at(struct hd_store *s, uint32_t index)
{
	g_assert(s->op_extra && index < s->op_extra->len);
	return &g_array_index(s->op_extra, struct hd_op_xrec, index);
}

static void xrec_set_base(struct hd_op_xrec *r, int64_t base)
{
	r->base_lo = (uint32_t)(uint64_t)base;
	r->base_hi = (uint32_t)((uint64_t)base >> 32);
}

/* The records op's times, stack and at_high take: 1 narrow, 2 wide. */
static guint xrec_own(struct hd_store *s, const struct hd_op *op)
{
	return xrec_at(s, op->slot)->d_end == HD_XREC_WIDE ? 2 : 1;
}

/* Appends n blank extra records and returns the index of the first. */
static uint32_t extra_new(struct hd_store *s, guint n)
{
	guint at;

	if (!s->op_extra)
		s->op_extra =
			g_array_new(FALSE, FALSE, sizeof(struct hd_op_xrec));
	at = s->op_extra->len;
	/*
	 * At most three records an op, and ops are counted in a guint: the
	 * incident's op budget (HD_BUDGET_INCIDENT_OPS) keeps them far
	 * below this.
	 */
	g_assert(n <= 3 && at <= UINT32_MAX - 3);
	for (guint i = 0; i < n; i++)
		g_array_append_val(s->op_extra, xrec_blank);
	return at;
}

/*
 * Gives op (which has records) own records for its times and one for
 * its opCount when count: what it had is kept, the opCount record after
 * the own ones.  In place when op's records end the array; else they
 * move to its end and the old ones are left, of no op.
 */
static void extra_grow(struct hd_store *s, struct hd_op *op, guint own,
		       bool count)
{
	guint had = xrec_own(s, op);
	guint from = op->slot, n = had + op->count_wide;
	struct hd_op_xrec keep[3];

	g_assert(own >= had && (count || !op->count_wide));
	memcpy(keep, xrec_at(s, from), n * sizeof(*keep));
	if (from + n == s->op_extra->len)
		(void)extra_new(s, own + count - n);
	else
		op->slot = extra_new(s, own + count);
	/* the own records first, then the opCount's, if any */
	memcpy(xrec_at(s, op->slot), keep, had * sizeof(*keep));
	for (guint i = had; i < own; i++)
		*xrec_at(s, op->slot + i) = xrec_blank;
	if (count)
		*xrec_at(s, op->slot + own) =
			op->count_wide ? keep[had] : xrec_blank;
}

/* Gives op, which has none, its first extra record. */
static void extra_make(struct hd_store *s, struct hd_op *op)
{
	int64_t oc = hd_op_op_count(s, op);

	op->slot = extra_new(s, 1);
	op->has_extra = 1;
	if (oc != -1)
		hd_op_set_op_count(s, op, oc);
}

/* op's first extra record, made if it has none.  (transfer none) */
static inline struct hd_op_xrec *extra_of(struct hd_store *s, struct hd_op *op)
{
	if (G_UNLIKELY(!op->has_extra))
		extra_make(s, op);
	return xrec_at(s, op->slot);
}

/* d of t against base, 0 for unknown; false when it is not narrow. */
static bool narrow_delta(int64_t base, int64_t t, uint32_t *d)
{
	uint64_t diff;

	if (t == INT64_MIN) {
		*d = 0;
		return true;
	}
	if (t < base)
		return false;
	diff = (uint64_t)t - (uint64_t)base;
	if (diff > HD_XREC_D_LAST - 1u)
		return false;
	*d = (uint32_t)diff + 1;
	return true;
}

/* x coded in one record (hd_op_xrec), or false when it does not fit. */
static bool xrec_narrow(const struct hd_op_extra *x, struct hd_op_xrec *r)
{
	int64_t base = INT64_MIN;

	if (x->at_high)
		return false;
	r->stack = x->stack;
	r->d_start = r->d_end = 0;
	if (x->t_enqueue_ns != INT64_MIN) {
		base = x->t_enqueue_ns;
		if (!narrow_delta(base, x->t_start_ns, &r->d_start) ||
		    !narrow_delta(base, x->t_end_ns, &r->d_end))
			return false;
	} else if (x->t_start_ns != INT64_MIN) {
		base = x->t_start_ns;
		r->d_start = HD_XREC_START_BASE;
		if (!narrow_delta(base, x->t_end_ns, &r->d_end))
			return false;
	} else if (x->t_end_ns != INT64_MIN) {
		base = x->t_end_ns;
		r->d_start = HD_XREC_END_BASE;
	}
	xrec_set_base(r, base);
	return true;
}

/* x coded in the wide pair r[0], r[1]. */
static void xrec_wide(const struct hd_op_extra *x, struct hd_op_xrec *r)
{
	xrec_set_base(&r[0], x->t_enqueue_ns);
	r[0].d_start = x->at_high;
	r[0].d_end = HD_XREC_WIDE;
	r[0].stack = x->stack;
	xrec_set_base(&r[1], x->t_start_ns);
	r[1].d_start = (uint32_t)(uint64_t)x->t_end_ns;
	r[1].d_end = (uint32_t)((uint64_t)x->t_end_ns >> 32);
	r[1].stack = -1;
}

/*
 * Stores x as op's extra record: narrow while it fits, else wide (a
 * narrow op grows a second record, which may move its records).  Once
 * wide, an op stays wide.
 */
static void extra_put(struct hd_store *s, struct hd_op *op,
		      const struct hd_op_extra *x)
{
	struct hd_op_xrec *r = extra_of(s, op), n;

	if (r->d_end != HD_XREC_WIDE) {
		if (xrec_narrow(x, &n)) {
			*r = n;
			return;
		}
		extra_grow(s, op, 2, op->count_wide);
	}
	xrec_wide(x, xrec_at(s, op->slot));
}

void hd_op_set_times(struct hd_store *s, struct hd_op *op, int64_t enqueue,
		     int64_t start, int64_t end)
{
	const struct hd_op_xrec *r;
	struct hd_op_extra x;

	if (!op->has_extra && enqueue == INT64_MIN && start == INT64_MIN &&
	    end == INT64_MIN)
		return;
	r = extra_of(s, op);
	x.t_enqueue_ns = enqueue;
	x.t_start_ns = start;
	x.t_end_ns = end;
	/* the stack and at_high it has (hd_op_xrec) */
	x.stack = r->stack;
	x.at_high = r->d_end == HD_XREC_WIDE ? r->d_start : 0;
	extra_put(s, op, &x);
}

void hd_op_set_stack(struct hd_store *s, struct hd_op *op, int32_t stack)
{
	if (!op->has_extra && stack < 0)
		return;
	/* the first record's, narrow or wide */
	extra_of(s, op)->stack = stack < 0 ? -1 : stack;
}

void hd_op_set_op_count(struct hd_store *s, struct hd_op *op, int64_t op_count)
{
	if (!op->has_extra) {
		if (op_count >= -1 && op_count < HD_OP_COUNT_WIDE) {
			op->slot = op_count < 0 ? HD_OP_COUNT_WIDE
						: (uint32_t)op_count;
			return;
		}
		(void)extra_of(s, op);
	}
	if (!op->count_wide) {
		if (op_count == -1)
			return;
		/* a record right after the op's own */
		extra_grow(s, op, xrec_own(s, op), true);
		op->count_wide = 1;
	}
	xrec_set_base(xrec_at(s, op->slot + xrec_own(s, op)), op_count);
}

void hd_op_set_prov(struct hd_store *s, struct hd_op *op,
		    const struct hd_prov *prov)
{
	uint32_t high = (uint32_t)(prov->at >> 32);

	op->input = prov->input;
	g_assert(prov->kind <= HD_PROV_OFFSET);
	g_assert(prov->attempt <= HD_MAX_ATTEMPT);
	op->prov_kind = prov->kind;
	op->attempt = prov->attempt;
	op->at_low = (uint32_t)prov->at;
	/* a narrow record's at_high is 0 */
	if (high || (op->has_extra && xrec_own(s, op) == 2)) {
		struct hd_op_extra x;

		(void)extra_of(s, op);
		x = hd_op_extra(s, op);
		x.at_high = high;
		extra_put(s, op, &x);
	}
}

void hd_store_add_op(struct hd_store *s, const struct hd_op_rec *rec)
{
	struct hd_op *op = hd_store_new_op(s);

	*op = rec->op;
	op->has_extra = 0;
	op->count_wide = 0;
	op->slot = HD_OP_COUNT_WIDE;
	hd_op_set_op_count(s, op, rec->op_count);
	hd_op_set_times(s, op, rec->t_enqueue_ns, rec->t_start_ns,
			rec->t_end_ns);
	hd_op_set_stack(s, op, rec->stack);
	hd_op_set_prov(s, op, &rec->prov);
}

struct hd_op *hd_store_new_op(struct hd_store *s)
{
	struct hd_op *op;

	g_array_set_size(s->ops, s->ops->len + 1);
	op = &g_array_index(s->ops, struct hd_op, s->ops->len - 1);
	*op = blank_op;
	return op;
}

int32_t hd_store_add_stack(struct hd_store *s, const struct hd_frame *frames,
			   size_t n)
{
	GArray *a;

	g_assert(n <= G_MAXUINT); /* parsers bound a stack's frames */
	a = g_array_sized_new(FALSE, FALSE, sizeof(struct hd_frame), (guint)n);
	g_array_append_vals(a, frames, (guint)n);
	g_ptr_array_add(s->stacks, a);
	return s->stacks->len - 1;
}

const struct hd_frame *hd_store_stack(const struct hd_store *s, int32_t stack,
				      size_t *n)
{
	GArray *a;

	*n = 0;
	if (stack < 0 || (guint)stack >= s->stacks->len)
		return NULL;
	a = g_ptr_array_index(s->stacks, stack);
	*n = a->len;
	return (const struct hd_frame *)(void *)a->data;
}

void hd_signal_init(struct hd_signal *sig)
{
	memset(sig, 0, sizeof(*sig));
	sig->rank = -1;
	sig->peer_rank = -1;
	sig->anon = -1;
	sig->time = hd_time_none();
	sig->seq = -1;
	sig->last_enqueued = INT64_MIN;
	sig->last_completed = INT64_MIN;
	sig->numel_in = -1;
	sig->numel_out = -1;
	sig->local_rank = -1;
	sig->task = -1;
	sig->stack = -1;
}

#define HD_SIGNAL_TEXT_MAX 1024

void hd_store_add_signal(struct hd_store *s, const struct hd_signal *sig)
{
	struct hd_signal copy = *sig;

	if (sig->text)
		copy.text = g_strndup(sig->text, HD_SIGNAL_TEXT_MAX);
	g_array_append_val(s->signals, copy);
}

static void merge_rank(struct hd_rank *dst, const struct hd_rank *src,
		       const uint32_t *input_map)
{
	if (!dst->host)
		dst->host = src->host;
	if (!dst->addr)
		dst->addr = src->addr;
	if (!dst->pid)
		dst->pid = src->pid;
	if (dst->cuda_dev < 0)
		dst->cuda_dev = src->cuda_dev;
	if (!dst->bus_id)
		dst->bus_id = src->bus_id;
	if (!dst->nccl_version)
		dst->nccl_version = src->nccl_version;
	if (!dst->torch_version)
		dst->torch_version = src->torch_version;
	for (guint i = 0; i < src->inputs->len; i++)
		hd_rank_add_input(
			dst,
			input_map[g_array_index(src->inputs, uint32_t, i)]);
}

static void merge_group(struct hd_group *dst, const struct hd_group *src)
{
	bool src_members_known = false;

	if (!dst->name && src->name)
		dst->name = g_strdup(src->name);
	if (!dst->desc && src->desc)
		dst->desc = g_strdup(src->desc);
	if (!dst->has_comm_id && src->has_comm_id) {
		dst->comm_id = src->comm_id;
		dst->has_comm_id = true;
	}
	if (src->nranks > dst->nranks)
		dst->nranks = src->nranks;
	/*
	 * Every rank's dump repeats the world group: nothing new to learn,
	 * in O(1) when both share one list.
	 */
	if (src->shared && dst->shared == src->shared) {
		src_members_known = true;
	} else if (src->shared && dst->members->len == 0) {
		hd_group_share_members(dst, src->shared);
		src_members_known = true;
	} else if (src->members->len > 0 &&
		   src->members->len <= dst->members->len &&
		   memcmp(src->members->data, dst->members->data,
			  src->members->len * sizeof(int)) == 0) {
		src_members_known = true;
	}
	for (guint i = 0; !src_members_known && i < src->members->len; i++) {
		int m = g_array_index(src->members, int, i);

		if (m >= 0 && hd_group_global_rank(dst, i) < 0)
			hd_group_set_member(dst, i, m);
	}
	dst->low_confidence_identity =
		dst->low_confidence_identity && src->low_confidence_identity;
}

static bool is_identity(const uint32_t *map, guint n)
{
	for (guint i = 0; i < n; i++)
		if (map[i] != i)
			return false;
	return true;
}

void hd_store_merge(struct hd_store *dst, struct hd_store *src)
{
	bool identity;
	g_autofree uint32_t *input_map = NULL;
	g_autofree uint32_t *group_map = NULL;
	g_autofree int32_t *stack_map = NULL;
	GHashTableIter it;
	gpointer key, value;

	input_map = g_new(uint32_t, src->inputs->len + 1);
	for (guint i = 0; i < src->inputs->len; i++) {
		g_ptr_array_add(dst->inputs, g_ptr_array_index(src->inputs, i));
		input_map[i] = dst->inputs->len - 1;
	}
	/* The inputs now belong to dst. */
	g_ptr_array_set_free_func(src->inputs, NULL);

	group_map = g_new(uint32_t, src->groups->len + 1);
	for (guint i = 0; i < src->groups->len; i++) {
		struct hd_group *g = g_ptr_array_index(src->groups, i);
		uint32_t d = hd_store_group(dst, g->id);

		merge_group(g_ptr_array_index(dst->groups, d), g);
		group_map[i] = d;
	}

	stack_map = g_new(int32_t, src->stacks->len + 1);
	for (guint i = 0; i < src->stacks->len; i++) {
		g_ptr_array_add(dst->stacks, g_ptr_array_index(src->stacks, i));
		stack_map[i] = dst->stacks->len - 1;
	}
	g_ptr_array_set_free_func(src->stacks, NULL);

	g_hash_table_iter_init(&it, src->ranks);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct hd_rank *r = value;

		merge_rank(hd_store_rank(dst, r->rank), r, input_map);
	}

	/*
	 * One bulk copy (none at all into an empty store: a single big log
	 * hands its array over), then the index remap in place, which the
	 * first input into an empty store does not need.
	 */
	identity = is_identity(input_map, src->inputs->len) &&
		   is_identity(group_map, src->groups->len);
	for (guint i = 0; i < src->stacks->len && identity; i++)
		identity = stack_map[i] == (int32_t)i;
	if (src->ops->len) {
		guint base = dst->ops->len;
		uint32_t xbase = 0;
		/* src's extra records in dst: [xbase, xend) */
		guint xend = src->op_extra ? src->op_extra->len : 0;
		struct hd_op *ops;

		if (base == 0) {
			GArray *t = dst->ops;

			dst->ops = src->ops;
			src->ops = t;
			/* dst's records, if any, are of no op it holds */
			t = dst->op_extra;
			dst->op_extra = src->op_extra;
			src->op_extra = t;
		} else {
			g_array_append_vals(dst->ops, src->ops->data,
					    src->ops->len);
			if (src->op_extra && src->op_extra->len) {
				if (!dst->op_extra)
					dst->op_extra = g_array_new(
						FALSE, FALSE,
						sizeof(struct hd_op_xrec));
				xbase = dst->op_extra->len;
				g_assert(src->op_extra->len <=
					 UINT32_MAX - 2 - xbase);
				xend += xbase;
				g_array_append_vals(dst->op_extra,
						    src->op_extra->data,
						    src->op_extra->len);
			}
		}
		for (guint i = xbase; i < xend && !identity; i++) {
			/* a wide pair's second record and an opCount's
			   have stack -1 (struct hd_op_xrec) */
			struct hd_op_xrec *x = &g_array_index(
				dst->op_extra, struct hd_op_xrec, i);

			if (x->stack >= 0)
				x->stack = stack_map[x->stack];
		}
		ops = &g_array_index(dst->ops, struct hd_op, base);
		for (guint i = 0;
		     i < dst->ops->len - base && (!identity || xbase); i++) {
			struct hd_op *op = &ops[i];

			op->group = group_map[op->group];
			op->input = input_map[op->input];
			if (op->has_extra)
				op->slot += xbase;
		}
	}

	for (guint i = 0; i < src->signals->len; i++) {
		struct hd_signal sig =
			g_array_index(src->signals, struct hd_signal, i);

		sig.prov.input = input_map[sig.prov.input];
		if (sig.stack >= 0)
			sig.stack = stack_map[sig.stack];
		g_array_append_val(dst->signals, sig);
	}
	/* Signal texts now belong to dst. */
	g_array_set_clear_func(src->signals, NULL);

	if (src->world_size > dst->world_size)
		dst->world_size = src->world_size;
	hd_store_free(src);
}

/*
 * torchrun's one-line exit ("failed (exitcode: 1) local_rank: 0 ...")
 * names only a local rank.  On a single node the local rank is the global
 * one: taken when no exit maps a local rank to another global rank (a
 * ChildFailedError "rank : 9 (local_rank: 1)" means several nodes) and the
 * ranks and signals name one host, and no other.
 */
static void resolve_local_ranks(struct hd_store *s)
{
	const char *host = NULL;
	GHashTableIter it;
	gpointer k, val;
	bool any = false;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type == HD_SIGT_PROCESS_EXIT && sig->local_rank >= 0) {
			if (sig->rank >= 0 && sig->rank != sig->local_rank)
				return;
			if (sig->rank < 0)
				any = true;
		}
		if (sig->host && sig->host[0]) {
			if (host && strcmp(host, sig->host) != 0)
				return;
			host = sig->host;
		}
	}
	if (!any)
		return;
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &val)) {
		const struct hd_rank *r = val;

		if (r->host && r->host[0]) {
			if (host && strcmp(host, r->host) != 0)
				return;
			host = r->host;
		}
	}
	/*
	 * No host named at all (a launcher's lines alone): nothing shows
	 * one node, and on any node but the first the local rank is
	 * another rank's global one.  The exit stays of local rank only.
	 */
	if (!host)
		return;
	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type == HD_SIGT_PROCESS_EXIT && sig->rank < 0 &&
		    sig->local_rank >= 0)
			sig->rank = sig->local_rank;
	}
}

GHashTable *hd_store_ranks_by_pid(const struct hd_store *s)
{
	GHashTable *t =
		g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
				      (GDestroyNotify)g_ptr_array_unref);
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct hd_rank *r = v;
		GPtrArray *l;

		if (r->pid <= 0)
			continue;
		l = g_hash_table_lookup(t, GINT_TO_POINTER(r->pid));
		if (!l) {
			l = g_ptr_array_new();
			g_hash_table_insert(t, GINT_TO_POINTER(r->pid), l);
		}
		g_ptr_array_add(l, r);
	}
	return t;
}

GHashTable *hd_store_ranks_inputs_of_kind(const struct hd_store *s,
					  enum hd_input_kind kind,
					  bool whole_only)
{
	GHashTable *t =
		g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
				      (GDestroyNotify)g_array_unref);
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const struct hd_rank *r = v;
		GArray *l = NULL;

		for (guint i = 0; r->inputs && i < r->inputs->len; i++) {
			uint32_t in = g_array_index(r->inputs, uint32_t, i);

			if (in >= s->inputs->len ||
			    hd_store_input(s, in)->kind != kind ||
			    (whole_only && hd_store_input(s, in)->error))
				continue;
			if (!l)
				l = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			g_array_append_val(l, in);
		}
		if (l && l->len > 1)
			g_hash_table_insert(t, GINT_TO_POINTER(r->rank), l);
		else if (l)
			g_array_unref(l);
	}
	return t;
}

enum hd_pid_join hd_store_rank_of_pid(GHashTable *by_pid, int32_t pid,
				      const char *host, int *rank)
{
	const GPtrArray *l =
		pid > 0 ? g_hash_table_lookup(by_pid, GINT_TO_POINTER(pid))
			: NULL;
	enum hd_pid_join join = HD_PID_NO_RANK;

	*rank = -1;
	for (guint i = 0; l && i < l->len; i++) {
		const struct hd_rank *r = g_ptr_array_index(l, i);

		if (host && r->host && strcmp(host, r->host) != 0)
			continue;
		if (join == HD_PID_ONE_RANK) {
			*rank = -1;
			return HD_PID_SEVERAL_RANKS;
		}
		join = HD_PID_ONE_RANK;
		*rank = r->rank;
	}
	return join;
}

/*
 * An input of a kind that names a pid and no rank (HD_KIND_RANK_BY_PID: a
 * gdb backtrace): its signals take the rank of the one rank whose process
 * had that pid.
 */
static void resolve_pid_signals(struct hd_store *s)
{
	g_autoptr(GHashTable) by_pid = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		const struct hd_input *in;
		int rank;

		if (sig->rank >= 0 || sig->pid <= 0 ||
		    sig->prov.input >= s->inputs->len)
			continue;
		in = g_ptr_array_index(s->inputs, sig->prov.input);
		if (!(hd_input_kind_flags(in->kind) & HD_KIND_RANK_BY_PID))
			continue;
		if (!by_pid)
			by_pid = hd_store_ranks_by_pid(s);
		hd_store_rank_of_pid(by_pid, sig->pid, sig->host, &rank);
		sig->rank = rank; /* -1 unless one rank had the pid */
	}
}

void hd_store_resolve(struct hd_store *s)
{
	int world = s->world_size;

	resolve_local_ranks(s);
	resolve_pid_signals(s);

	/* The largest group with known members is the best world estimate. */
	for (guint i = 0; i < s->groups->len; i++) {
		struct hd_group *g = g_ptr_array_index(s->groups, i);

		if (g->nranks > world)
			world = g->nranks;
		for (guint m = 0; m < g->members->len; m++) {
			int r = g_array_index(g->members, int, m);

			if (r >= world)
				world = r + 1;
		}
	}
	s->world_size = world;
}

char *hd_prov_format(const struct hd_store *s, const struct hd_prov *p)
{
	const char *path = "?";

	if (p->input < s->inputs->len)
		path = hd_store_input(s, p->input)->path;
	switch ((enum hd_prov_kind)p->kind) {
	case HD_PROV_LINE:
		return g_strdup_printf("%s:%" G_GUINT64_FORMAT, path, p->at);
	case HD_PROV_RECORD:
		return g_strdup_printf("%s#record %" G_GUINT64_FORMAT, path,
				       p->at);
	case HD_PROV_OFFSET:
		return g_strdup_printf("%s@%" G_GUINT64_FORMAT, path, p->at);
	case HD_PROV_NONE:
		break;
	}
	return g_strdup(path);
}

char *hd_op_source(const struct hd_store *s, const struct hd_op *op)
{
	struct hd_prov p = hd_op_prov(s, op);

	return hd_prov_format(s, &p);
}

unsigned hd_store_usable_inputs(const struct hd_store *s)
{
	unsigned n = 0;

	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (!in->error && (in->records > 0 || in->empty))
			n++;
	}
	return n;
}
