/*
 * The common event store: inputs, ranks, groups, ops, signals and stacks,
 * with the merge that joins per-input stores and the resolve pass that
 * makes cross-input joins once everything is in.
 */
#include "config.h"

#include "hd-store.h"
#include "hd-const.h"

#include <stdarg.h>
#include <string.h>

#include "hd-banned.h"

/*
 * The intern table.  GLib's g_intern_string() keeps every quark in an
 * array that it copies, leaking the old one, each 2,048 strings: memory
 * grows with the square of the distinct strings (1 M keys of a hostile
 * dump took 2 GB).  This table grows linearly: strings are packed into a
 * GStringChunk and found through one hash set, both never freed, so a
 * pointer handed out stays valid for the whole process.
 */
static GMutex intern_lock;
static GHashTable *intern_set;
static GStringChunk *intern_chunk;
/* The calling thread's budget, while hd_intern_limit_begin() holds. */
static _Thread_local bool intern_limited;
static _Thread_local uint64_t intern_left;
static _Thread_local uint64_t intern_refused;

const char hd_intern_refused[] = "<over the string budget>";

/* Interns the NUL-terminated s under the lock. */
static const char *intern_nul(const char *s)
{
	const char *p;

	g_mutex_lock(&intern_lock);
	if (G_UNLIKELY(!intern_set)) {
		intern_set = g_hash_table_new(g_str_hash, g_str_equal);
		intern_chunk = g_string_chunk_new(64 * 1024);
	}
	p = g_hash_table_lookup(intern_set, s);
	if (!p) {
		if (intern_limited && intern_left == 0) {
			intern_refused++;
			p = hd_intern_refused;
		} else {
			if (intern_limited)
				intern_left--;
			p = g_string_chunk_insert(intern_chunk, s);
			g_hash_table_add(intern_set, hd_unconst(p));
		}
	}
	g_mutex_unlock(&intern_lock);
	return p;
}

const char *hd_intern(const char *s)
{
	return s ? intern_nul(s) : NULL;
}

const char *hd_intern_len(const char *s, size_t len)
{
	char buf[256];
	g_autofree char *big = NULL;
	const char *p;

	if (!s)
		return NULL;
	if (len < sizeof(buf)) {
		memcpy(buf, s, len);
		buf[len] = '\0';
		p = buf;
	} else {
		big = g_strndup(s, len);
		p = big;
	}
	return intern_nul(p);
}

void hd_intern_limit_begin(uint64_t max_new)
{
	intern_limited = true;
	intern_left = max_new;
	intern_refused = 0;
}

uint64_t hd_intern_limit_end(void)
{
	uint64_t refused = intern_refused;

	intern_limited = false;
	intern_left = 0;
	intern_refused = 0;
	return refused;
}

static void input_free(gpointer p)
{
	struct hd_input *in = p;

	if (!in)
		return;
	g_free(in->path);
	g_ptr_array_unref(in->warnings);
	g_free(in->error);
	g_free(in->sha256);
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
	struct hd_attempt at = { 0 };

	if (!in->attempts) {
		in->attempts =
			g_array_new(FALSE, TRUE, sizeof(struct hd_attempt));
		g_array_set_clear_func(in->attempts, attempt_clear);
	}
	g_array_append_val(in->attempts, at);
	return &g_array_index(in->attempts, struct hd_attempt,
			      in->attempts->len - 1);
}

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

		if (!keep_prov(s, keep, &op->prov, &drop)) {
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
	g_array_unref(s->signals);
	g_ptr_array_unref(s->stacks);
	g_free(s);
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

struct hd_group *hd_store_group_at(const struct hd_store *s, uint32_t index)
{
	g_assert(index < s->groups->len);
	return g_ptr_array_index(s->groups, index);
}

/* Group sizes beyond this are refused: no job has more ranks. */
#define HD_MAX_GROUP_RANKS HD_MAX_RANKS

static bool claim_believed(int64_t claim, int64_t shown)
{
	return claim <= HD_CLAIM_FREE || claim <= HD_CLAIM_PER_SHOWN * shown;
}

void hd_group_set_member(struct hd_group *g, int group_rank, int global_rank)
{
	int unknown = -1;

	if (group_rank < 0 || group_rank >= HD_MAX_GROUP_RANKS)
		return;
	/* a slot far past the members known is a claim: bounded */
	if ((guint)group_rank >= g->members->len &&
	    !claim_believed(group_rank, (int64_t)g->nknown + 1)) {
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

G_STATIC_ASSERT(sizeof(struct hd_op) == 80);
G_STATIC_ASSERT(sizeof(struct hd_opdesc) == 56);

const struct hd_opdesc hd_opdesc_blank = {
	.count_in = -1,
	.count_out = -1,
	.peer = -1,
};

/*
 * The descriptor table.  Descriptors are carved from slabs that are never
 * freed, so a pointer handed out stays valid for the whole process, and
 * the table holds at most one per op read: bounded by the input.
 */
#define DESC_SLAB  1024
#define DESC_CACHE 256

static GMutex desc_lock;
static GHashTable *desc_table;
static struct hd_opdesc *desc_slab;
static unsigned desc_slab_used = DESC_SLAB;
static _Thread_local const struct hd_opdesc *desc_cache[DESC_CACHE];
static _Thread_local const struct hd_opdesc *desc_last;

static guint desc_hash(gconstpointer p)
{
	uint64_t w[sizeof(struct hd_opdesc) / 8];
	uint64_t h = 0x243f6a8885a308d3ULL;

	memcpy(w, p, sizeof(w));
	for (size_t i = 0; i < G_N_ELEMENTS(w); i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return (guint)(h ^ (h >> 32));
}

static inline bool desc_same(const struct hd_opdesc *a,
			     const struct hd_opdesc *b)
{
	return a->count_in == b->count_in && a->count_out == b->count_out &&
	       a->shape_in == b->shape_in && a->shape_out == b->shape_out &&
	       a->dtype_name == b->dtype_name && a->name == b->name &&
	       a->peer == b->peer && a->dtype == b->dtype &&
	       a->redop == b->redop;
}

static gboolean desc_equal(gconstpointer a, gconstpointer b)
{
	return desc_same(a, b);
}

const struct hd_opdesc *hd_opdesc_intern(const struct hd_opdesc *d)
{
	struct hd_opdesc key;
	const struct hd_opdesc **slot;
	struct hd_opdesc *found;
	guint h;

	/* a parser's ops mostly repeat the one before */
	if (desc_last && desc_same(desc_last, d))
		return desc_last;
	key = *d;
	memset(key.pad, 0, sizeof(key.pad));
	h = desc_hash(&key);
	slot = &desc_cache[h % DESC_CACHE];
	if (*slot && desc_same(*slot, &key))
		return desc_last = *slot;
	g_mutex_lock(&desc_lock);
	if (!desc_table) {
		/* the blank is interned too, so equal means the same pointer */
		desc_table = g_hash_table_new(desc_hash, desc_equal);
		g_hash_table_add(desc_table, hd_unconst(&hd_opdesc_blank));
	}
	found = g_hash_table_lookup(desc_table, &key);
	if (!found) {
		if (desc_slab_used == DESC_SLAB) {
			desc_slab = g_new(struct hd_opdesc, DESC_SLAB);
			desc_slab_used = 0;
		}
		found = &desc_slab[desc_slab_used++];
		*found = key;
		g_hash_table_add(desc_table, found);
	}
	g_mutex_unlock(&desc_lock);
	*slot = found;
	return desc_last = found;
}

static const struct hd_op blank_op = {
	.rank = -1,
	.seq = -1,
	.d = &hd_opdesc_blank,
	.op_count = -1,
	.t_enqueue_ns = INT64_MIN,
	.t_start_ns = INT64_MIN,
	.t_end_ns = INT64_MIN,
	.stack = -1,
};

void hd_op_init(struct hd_op *op)
{
	*op = blank_op;
}

void hd_store_add_op(struct hd_store *s, const struct hd_op *op)
{
	g_array_append_vals(s->ops, op, 1);
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
	sig->time = hd_time_none();
	sig->seq = -1;
	sig->last_enqueued = INT64_MIN;
	sig->last_completed = INT64_MIN;
	sig->numel_in = -1;
	sig->numel_out = -1;
	sig->local_rank = -1;
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
	/* Every rank's dump repeats the world group: nothing new to learn. */
	if (src->members->len > 0 && src->members->len <= dst->members->len &&
	    memcmp(src->members->data, dst->members->data,
		   src->members->len * sizeof(int)) == 0)
		src_members_known = true;
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
		struct hd_op *ops;

		if (base == 0) {
			GArray *t = dst->ops;

			dst->ops = src->ops;
			src->ops = t;
		} else {
			g_array_append_vals(dst->ops, src->ops->data,
					    src->ops->len);
		}
		ops = &g_array_index(dst->ops, struct hd_op, base);
		for (guint i = 0; i < dst->ops->len - base && !identity; i++) {
			struct hd_op *op = &ops[i];

			op->group = group_map[op->group];
			op->prov.input = input_map[op->prov.input];
			if (op->stack >= 0)
				op->stack = stack_map[op->stack];
		}
	}

	for (guint i = 0; i < src->signals->len; i++) {
		struct hd_signal sig =
			g_array_index(src->signals, struct hd_signal, i);

		sig.prov.input = input_map[sig.prov.input];
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
 * ranks and signals name at most one host.
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
	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type == HD_SIGT_PROCESS_EXIT && sig->rank < 0 &&
		    sig->local_rank >= 0)
			sig->rank = sig->local_rank;
	}
}

void hd_store_resolve(struct hd_store *s)
{
	int world = s->world_size;

	resolve_local_ranks(s);

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

static const char *const op_kind_names[HD_OP_KIND_COUNT] = {
	[HD_OP_UNKNOWN] = "unknown",
	[HD_OP_ALL_REDUCE] = "all_reduce",
	[HD_OP_ALL_GATHER] = "all_gather",
	[HD_OP_REDUCE_SCATTER] = "reduce_scatter",
	[HD_OP_BROADCAST] = "broadcast",
	[HD_OP_REDUCE] = "reduce",
	[HD_OP_ALL_TO_ALL] = "all_to_all",
	[HD_OP_GATHER] = "gather",
	[HD_OP_SCATTER] = "scatter",
	[HD_OP_SEND] = "send",
	[HD_OP_RECV] = "recv",
	[HD_OP_BARRIER] = "barrier",
	[HD_OP_COALESCED] = "coalesced",
};

const char *hd_op_kind_name(enum hd_op_kind k)
{
	if ((unsigned)k >= HD_OP_KIND_COUNT)
		return "unknown";
	return op_kind_names[k];
}

const char *hd_op_state_name(enum hd_op_state st)
{
	switch (st) {
	case HD_STATE_ENQUEUED:
		return "enqueued";
	case HD_STATE_STARTED:
		return "started";
	case HD_STATE_COMPLETED:
		return "completed";
	case HD_STATE_UNKNOWN:
		break;
	}
	return "unknown";
}

static const char *const dtype_names[] = {
	[HD_DTYPE_UNKNOWN] = "unknown",
	[HD_DTYPE_INT8] = "int8",
	[HD_DTYPE_UINT8] = "uint8",
	[HD_DTYPE_INT32] = "int32",
	[HD_DTYPE_UINT32] = "uint32",
	[HD_DTYPE_INT64] = "int64",
	[HD_DTYPE_UINT64] = "uint64",
	[HD_DTYPE_FLOAT16] = "float16",
	[HD_DTYPE_FLOAT32] = "float32",
	[HD_DTYPE_FLOAT64] = "float64",
	[HD_DTYPE_BFLOAT16] = "bfloat16",
	[HD_DTYPE_FP8_E4M3] = "float8_e4m3",
	[HD_DTYPE_FP8_E5M2] = "float8_e5m2",
	[HD_DTYPE_BOOL] = "bool",
	[HD_DTYPE_INT16] = "int16",
	[HD_DTYPE_OTHER] = "other",
};

const char *hd_dtype_name(enum hd_dtype t)
{
	if ((unsigned)t >= G_N_ELEMENTS(dtype_names))
		return "unknown";
	return dtype_names[t];
}

const char *hd_redop_name(enum hd_redop r)
{
	switch (r) {
	case HD_REDOP_SUM:
		return "sum";
	case HD_REDOP_PROD:
		return "prod";
	case HD_REDOP_MAX:
		return "max";
	case HD_REDOP_MIN:
		return "min";
	case HD_REDOP_AVG:
		return "avg";
	case HD_REDOP_PREMULSUM:
		return "premulsum";
	case HD_REDOP_NONE:
		break;
	}
	return "none";
}

const char *hd_signal_cat_name(enum hd_signal_cat c)
{
	static const char *const names[HD_SIG_CAT_COUNT] = {
		[HD_SIG_NETWORK] = "network",
		[HD_SIG_CUDA] = "cuda",
		[HD_SIG_NCCL_INTERNAL] = "nccl_internal",
		[HD_SIG_TIMEOUT] = "timeout",
		[HD_SIG_CRASH] = "crash",
		[HD_SIG_INIT] = "init",
		[HD_SIG_CONFIG] = "config",
		[HD_SIG_MISMATCH] = "mismatch",
		[HD_SIG_PROGRESS] = "progress",
		[HD_SIG_INFO] = "info",
	};

	if ((unsigned)c >= HD_SIG_CAT_COUNT)
		return "unknown";
	return names[c];
}

const char *hd_input_kind_name(enum hd_input_kind k)
{
	switch (k) {
	case HD_INPUT_NCCL_LOG:
		return "nccl_log";
	case HD_INPUT_FLIGHT_REC:
		return "flight_recorder";
	case HD_INPUT_KINETO:
		return "kineto_trace";
	case HD_INPUT_UNKNOWN:
		break;
	}
	return "unknown";
}

/* Lowercases s without '_', so "all_reduce", "AllReduce", "ALLREDUCE" meet. */
static void squash(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s && n + 1 < size; s++) {
		if (*s == '_' || *s == ' ' || *s == '-')
			continue;
		out[n++] = g_ascii_tolower(*s);
	}
	out[n] = '\0';
}

enum hd_op_kind hd_op_kind_parse(const char *s)
{
	static const struct {
		const char *name;
		enum hd_op_kind kind;
	} table[] = {
		{ "allreduce", HD_OP_ALL_REDUCE },
		{ "allreducecoalesced", HD_OP_ALL_REDUCE },
		{ "allreducesparse", HD_OP_ALL_REDUCE },
		{ "allgather", HD_OP_ALL_GATHER },
		{ "allgatherbase", HD_OP_ALL_GATHER },
		{ "allgathercoalesced", HD_OP_ALL_GATHER },
		{ "allgatherintotensorcoalesced", HD_OP_ALL_GATHER },
		{ "allgatherintotensor", HD_OP_ALL_GATHER },
		{ "reducescatter", HD_OP_REDUCE_SCATTER },
		{ "reducescatterbase", HD_OP_REDUCE_SCATTER },
		{ "reducescattertensor", HD_OP_REDUCE_SCATTER },
		{ "reducescattertensorcoalesced", HD_OP_REDUCE_SCATTER },
		{ "broadcast", HD_OP_BROADCAST },
		{ "broadcastoop", HD_OP_BROADCAST },
		{ "reduce", HD_OP_REDUCE },
		{ "reduceoop", HD_OP_REDUCE },
		{ "alltoall", HD_OP_ALL_TO_ALL },
		{ "alltoallbase", HD_OP_ALL_TO_ALL },
		{ "alltoallsingle", HD_OP_ALL_TO_ALL },
		{ "alltoallv", HD_OP_ALL_TO_ALL },
		{ "gather", HD_OP_GATHER },
		{ "scatter", HD_OP_SCATTER },
		{ "send", HD_OP_SEND },
		{ "recv", HD_OP_RECV },
		{ "recvanysource", HD_OP_RECV },
		{ "barrier", HD_OP_BARRIER },
		{ "allreducebarrier", HD_OP_BARRIER },
		{ "coalesced", HD_OP_COALESCED },
		{ "allgathercoalesced", HD_OP_ALL_GATHER },
	};
	char buf[64];

	if (!s)
		return HD_OP_UNKNOWN;
	squash(s, buf, sizeof(buf));
	for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
		if (strcmp(buf, table[i].name) == 0)
			return table[i].kind;
	return HD_OP_UNKNOWN;
}

enum hd_dtype hd_dtype_parse(const char *s)
{
	static const struct {
		const char *name;
		enum hd_dtype t;
	} table[] = {
		{ "float", HD_DTYPE_FLOAT32 },
		{ "float32", HD_DTYPE_FLOAT32 },
		{ "f32", HD_DTYPE_FLOAT32 },
		{ "half", HD_DTYPE_FLOAT16 },
		{ "float16", HD_DTYPE_FLOAT16 },
		{ "f16", HD_DTYPE_FLOAT16 },
		{ "bfloat16", HD_DTYPE_BFLOAT16 },
		{ "bf16", HD_DTYPE_BFLOAT16 },
		{ "double", HD_DTYPE_FLOAT64 },
		{ "float64", HD_DTYPE_FLOAT64 },
		{ "f64", HD_DTYPE_FLOAT64 },
		{ "int", HD_DTYPE_INT32 },
		{ "int32", HD_DTYPE_INT32 },
		{ "i32", HD_DTYPE_INT32 },
		{ "long", HD_DTYPE_INT64 },
		{ "int64", HD_DTYPE_INT64 },
		{ "i64", HD_DTYPE_INT64 },
		{ "byte", HD_DTYPE_UINT8 },
		{ "uint8", HD_DTYPE_UINT8 },
		{ "u8", HD_DTYPE_UINT8 },
		{ "char", HD_DTYPE_INT8 },
		{ "int8", HD_DTYPE_INT8 },
		{ "i8", HD_DTYPE_INT8 },
		{ "short", HD_DTYPE_INT16 },
		{ "int16", HD_DTYPE_INT16 },
		{ "bool", HD_DTYPE_BOOL },
		{ "uint32", HD_DTYPE_UINT32 },
		{ "u32", HD_DTYPE_UINT32 },
		{ "uint64", HD_DTYPE_UINT64 },
		{ "u64", HD_DTYPE_UINT64 },
		{ "float8e4m3fn", HD_DTYPE_FP8_E4M3 },
		{ "float8e4m3", HD_DTYPE_FP8_E4M3 },
		{ "f8e4m3", HD_DTYPE_FP8_E4M3 },
		{ "float8e5m2", HD_DTYPE_FP8_E5M2 },
		{ "f8e5m2", HD_DTYPE_FP8_E5M2 },
		{ "ncclfloat32", HD_DTYPE_FLOAT32 },
		{ "ncclfloat16", HD_DTYPE_FLOAT16 },
		{ "ncclbfloat16", HD_DTYPE_BFLOAT16 },
		{ "ncclfloat64", HD_DTYPE_FLOAT64 },
		{ "ncclint32", HD_DTYPE_INT32 },
		{ "ncclint64", HD_DTYPE_INT64 },
	};
	char buf[64];

	if (!s || !*s)
		return HD_DTYPE_UNKNOWN;
	squash(s, buf, sizeof(buf));
	for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
		if (strcmp(buf, table[i].name) == 0)
			return table[i].t;
	return HD_DTYPE_OTHER;
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

static bool rank_ok(int64_t r)
{
	return r >= -HD_MAX_RANKS && r < HD_MAX_RANKS;
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
			op->prov.input < s->inputs->len
				? hd_store_input(s, op->prov.input)->op_clock
				: HD_CLOCK_NONE;
		int64_t *ts[] = { &op->t_enqueue_ns, &op->t_start_ns,
				  &op->t_end_ns };
		int64_t bad = INT64_MIN;

		for (size_t k = 0; k < G_N_ELEMENTS(ts); k++) {
			int64_t v = *ts[k];

			if (!time_ok(clock, ts[k]) && bad == INT64_MIN)
				bad = v;
		}
		if (bad != INT64_MIN)
			bound_time_warn(s, &op->prov, bad, &twarned);

		if (!rank_ok(op->rank) || !seq_ok(op->seq)) {
			bound_warn(s, &op->prov,
				   rank_ok(op->rank) ? "seq" : "rank",
				   rank_ok(op->rank) ? op->seq : op->rank,
				   &warned);
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
			signal_clear(sig);
			sig->text = NULL;
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

	if (!rank_ok(sig->rank) || !seq_ok(sig->seq)) {
		bound_warn(
			b->s, &sig->prov, rank_ok(sig->rank) ? "seq" : "rank",
			rank_ok(sig->rank) ? sig->seq : sig->rank, &b->warned);
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

		for (guint m = 0; m < g->members->len; m++) {
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
	int64_t known = 0;

	for (guint m = 0; g && m < g->members->len; m++)
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
		if (g->nranks >= 0 && !claim_believed(g->nranks, shown)) {
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
	    !claim_believed(s->world_size, shown_ranks(s, NULL))) {
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
	if (op->t_start_ns != INT64_MIN)
		return hd_op_time(s, op, op->t_start_ns);
	if (op->t_enqueue_ns != INT64_MIN)
		return hd_op_time(s, op, op->t_enqueue_ns);
	return hd_op_time(s, op, op->t_end_ns);
}

struct hd_time hd_op_time(const struct hd_store *s, const struct hd_op *op,
			  int64_t ns)
{
	if (ns == INT64_MIN || op->prov.input >= s->inputs->len)
		return hd_time_none();
	return hd_time_make(ns, hd_store_input(s, op->prov.input)->op_clock);
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
