/*
 * Knowing an input again (hd-copies.h): a table of contents (the XXH3
 * hash and length of each input's decoded bytes, to the first input that
 * had them) and a table of NCCL-log processes (rank, host, pid and a hash
 * of their ops' content, not their times, which a collector's prefix can
 * give).  A repeat becomes a note in its input; a copy named for another
 * rank is refused for both names' sake, since its bytes cannot say which
 * name is right.
 */
#include "config.h"

#include "hd-copies.h"

#include <string.h>

#include "hd-hash.h"
#include "hd-input.h"
#include "rank-name.h"
#include "hd-banned.h"

struct hd_copies {
	GHashTable *seen; /* struct content_key -> input index + 1 */
	GHashTable *procs; /* struct proc_key -> input index + 1 */
};

/* (a benchmark hard links one dump as every rank's) */
bool hd_copies_names_agree(const char *a, const char *b)
{
	int ra = parsers_rank_from_filename(a);
	int rb = parsers_rank_from_filename(b);

	return ra < 0 || rb < 0 || ra == rb;
}

/* Says on in, which repeats first (how: "same content as"), that it does. */
static void note_repeat(struct hd_input *in, const struct hd_input *first,
			const char *how)
{
	in->rank = first->rank;
	if (first->error)
		in->error = g_strdup_printf("%s '%s', read once: %s", how,
					    first->path, first->error);
	else
		hd_input_warn(in, 0, "%s '%s', read once", how, first->path);
}

/*
 * Says on in, byte-identical to first but named for another rank (rank
 * 1's dump copied as rank 2's), and on first, that one of the two is a
 * copy: the content cannot tell which name is right, so in is not read
 * for its rank (an unusable input, which the CLI reports).
 */
static void note_impostor(struct hd_input *in, struct hd_input *first)
{
	int rank = parsers_rank_from_filename(in->path);
	int frank = parsers_rank_from_filename(first->path);

	in->rank = rank;
	in->error = g_strdup_printf(
		"byte-identical to '%s', the input of rank %d, but named for "
		"rank %d: a copy under another rank's name; not read, rank %d "
		"has no trustworthy input",
		first->path, frank, rank, rank);
	hd_input_warn(first, 0,
		      "byte-identical to '%s', named for rank %d: one of the "
		      "two is a copy",
		      in->path, rank);
}

/* A store of one input named name, of kind, that holds nothing. */
static struct hd_store *note_store(const char *name, enum hd_input_kind kind,
				   uint64_t bytes, struct hd_input **in)
{
	struct hd_store *s = hd_store_new();

	*in = hd_store_input(s, hd_store_add_input(s, name));
	(*in)->kind = kind;
	(*in)->bytes = bytes;
	return s;
}

struct hd_store *hd_copies_repeat_store(const char *name,
					const struct hd_input *first,
					uint64_t bytes, const char *how)
{
	struct hd_input *in;
	struct hd_store *s = note_store(name, first->kind, bytes, &in);

	note_repeat(in, first, how);
	return s;
}

/* Key of the content table: a digest's hash and length. */
struct content_key {
	uint64_t hash, length;
};

static guint content_hash(gconstpointer p)
{
	return (guint)((const struct content_key *)p)->hash;
}

static gboolean content_equal(gconstpointer a, gconstpointer b)
{
	const struct content_key *x = a, *y = b;

	return x->hash == y->hash && x->length == y->length;
}

/*
 * A process's records in one NCCL log, to know them again in another (the
 * same log kept twice, once under a "[default3]:" or date prefix): its
 * rank, host and pid, and a hash and count of its ops' content (not their
 * times, which a collector's prefix can give).
 */
struct proc_key {
	int rank, pid;
	const char *host; /* interned */
	uint64_t hash, nops;
};

static guint proc_key_hash(gconstpointer p)
{
	const struct proc_key *k = p;

	return hd_hash_u64(k->hash ^ ((uint64_t)(uint32_t)k->rank << 32) ^
			   (uint64_t)(uint32_t)k->pid ^ k->nops);
}

static gboolean proc_key_equal(gconstpointer a, gconstpointer b)
{
	const struct proc_key *x = a, *y = b;

	return x->rank == y->rank && x->pid == y->pid && x->host == y->host &&
	       x->hash == y->hash && x->nops == y->nops;
}

static uint64_t op_content_hash(const struct hd_store *s,
				const struct hd_op *op, uint64_t group_hash)
{
	uint64_t h = group_hash;

	h = hd_hash_u64(h ^ (uint64_t)op->seq) * 31 + op->kind;
	h = hd_hash_u64(h ^ (uint64_t)hd_op_op_count(s, op)) * 31 + op->state;
	h = hd_hash_u64(h ^ (uint64_t)(uintptr_t)op->d) * 31 + op->flags;
	return hd_hash_u64(h ^ op->seq_kind);
}

/*
 * The path of input index of the load: in dst, or, past its end, input
 * index - base of s, the store about to be merged at base.
 */
static const char *load_input_path(const struct hd_store *dst,
				   const struct hd_store *s, guint base,
				   guint index)
{
	if (index < dst->inputs->len)
		return hd_store_input(dst, index)->path;
	return hd_store_input(s, index - base)->path;
}

/* The ops of the processes of one input dropped as copies. */
struct proc_drop {
	guint input;
	uint16_t last; /* of a log of several attempts, the last; else 0 */
	GHashTable *ranks; /* rank -> itself */
};

static bool proc_drop_op(struct hd_op *op, void *data)
{
	const struct proc_drop *pd = data;

	return op->input == pd->input &&
	       (!pd->last || op->attempt == pd->last) &&
	       g_hash_table_contains(pd->ranks,
				     GINT_TO_POINTER(hd_op_rank(op)));
}

/* Every record of one input. */
static bool input_op(struct hd_op *op, void *data)
{
	return op->input == GPOINTER_TO_UINT(data);
}

static bool input_signal(struct hd_signal *sig, void *data)
{
	return sig->prov.input == GPOINTER_TO_UINT(data);
}

/*
 * Drops from s, whose input k is an NCCL log about to become input
 * `index`, the ops of input k of every process whose records an earlier
 * log already gave (same rank, host, pid and ops): read once, with a
 * warning naming that log.  procs maps struct proc_key to the input index
 * that had it first.
 */
static void drop_copied_procs(struct hd_store *s, guint k_input,
			      struct hd_store *dst, GHashTable *procs,
			      guint index)
{
	struct hd_input *in = hd_store_input(s, k_input);
	g_autoptr(GHashTable) acc = g_hash_table_new_full(
		g_direct_hash, g_direct_equal, NULL, g_free);
	g_autoptr(GHashTable) drop =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autofree uint64_t *gh = g_new(uint64_t, s->groups->len + 1);
	GHashTableIter it;
	gpointer key, value;
	/* the processes of the last ranks met, by rank: an interleaved log
	   changes rank on every line but cycles through a few */
	struct proc_key *memo[64] = { NULL };
	/* a log of several attempts: its last is compared (all are still
	   there; hd_store_keep_attempt() chooses after the merge) */
	uint16_t last = in->attempts && in->attempts->len >= 2
				? (uint16_t)MIN(in->attempts->len, G_MAXUINT16)
				: 0;

	if (in->kind != HD_INPUT_NCCL_LOG || !s->ops->len)
		return;
	for (guint g = 0; g < s->groups->len; g++)
		gh[g] = g_str_hash(hd_store_group_at(s, g)->id);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		int rank = hd_op_rank(op);
		struct proc_key **slot = &memo[(unsigned)rank % 64];
		struct proc_key *cur = *slot;

		if (rank < 0 || op->group >= s->groups->len ||
		    op->input != k_input || (last && op->attempt != last))
			continue;
		if (!cur || cur->rank != rank)
			cur = g_hash_table_lookup(acc, GINT_TO_POINTER(rank));
		if (!cur) {
			cur = g_new0(struct proc_key, 1);
			cur->rank = rank;
			g_hash_table_insert(acc, GINT_TO_POINTER(rank), cur);
		}
		*slot = cur;
		cur->hash = hd_hash_u64(cur->hash ^
					op_content_hash(s, op, gh[op->group]));
		cur->nops++;
	}
	g_hash_table_iter_init(&it, acc);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct proc_key *k = value;
		const struct hd_rank *r = hd_store_find_rank(s, k->rank);
		gpointer first;

		if (!r || !r->host || !r->pid)
			continue;
		k->host = r->host;
		k->pid = r->pid;
		first = g_hash_table_lookup(procs, k);
		if (!first) {
			struct proc_key *copy = g_new(struct proc_key, 1);

			*copy = *k;
			g_hash_table_insert(procs, copy,
					    GUINT_TO_POINTER(index + 1));
			continue;
		}
		g_hash_table_add(drop, GINT_TO_POINTER(k->rank));
		hd_input_warn(in, 0,
			      "the %" G_GUINT64_FORMAT
			      " ops of rank %d (%s:%d) are the same records "
			      "as in '%s': read once",
			      k->nops, k->rank, k->host, k->pid,
			      load_input_path(dst, s, index - k_input,
					      GPOINTER_TO_UINT(first) - 1));
	}
	if (g_hash_table_size(drop)) {
		struct proc_drop pd = { k_input, last, drop };

		hd_store_filter_ops(s, proc_drop_op, &pd);
	}
}

/*
 * Input k of s, a digest's store, repeats input `first` of the load
 * (same content): it becomes, in place, the note hd_copies_input() would
 * have made of it, so a copy that another node's digest holds reads as it
 * does among raw inputs.
 */
static void digest_input_repeats(struct hd_store *dst, struct hd_store *s,
				 guint k, guint first)
{
	struct hd_input *in = hd_store_input(s, k);
	struct hd_input *orig =
		first < dst->inputs->len ? hd_store_input(dst, first) : NULL;
	GHashTableIter it;
	gpointer value;

	if (!orig)
		return; /* the digest already read it once */
	hd_store_filter_ops(s, input_op, GUINT_TO_POINTER(k));
	hd_store_filter_signals(s, input_signal, GUINT_TO_POINTER(k));
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		GArray *ins = ((struct hd_rank *)value)->inputs;

		for (guint i = 0; i < ins->len; i++)
			if (g_array_index(ins, uint32_t, i) == k)
				g_array_remove_index(ins, i--);
	}
	in->records = in->skipped = in->nwarnings = 0;
	g_ptr_array_set_size(in->warnings, 0);
	in->truncated = in->empty = false;
	g_clear_pointer(&in->error, g_free);
	g_clear_pointer(&in->attempts, g_array_unref);
	in->attempt = 0;
	in->op_clock = HD_CLOCK_NONE;
	in->content_hash = in->content_length = 0;
	if (hd_copies_names_agree(orig->path, in->path))
		note_repeat(in, orig, "same content as");
	else
		note_impostor(in, orig);
}

/*
 * The copies among a digest's inputs and the inputs before it, found as
 * among raw inputs: an input whose content an earlier one had (its
 * content key, which the digest kept) is read once, and so are the
 * processes of an NCCL log that an earlier log gave.  Within one digest
 * that was done when it was made.  s is about to be merged into dst.
 */
void hd_copies_digest(struct hd_copies *c, struct hd_store *dst,
		      struct hd_store *s)
{
	guint base = dst->inputs->len;

	for (guint k = 0; k < s->inputs->len; k++) {
		struct hd_input *in = hd_store_input(s, k);
		struct content_key key = { in->content_hash,
					   in->content_length };
		gpointer at;

		if (in->content_length) {
			at = g_hash_table_lookup(c->seen, &key);
			if (!at) {
				struct content_key *copy =
					g_new(struct content_key, 1);

				*copy = key;
				g_hash_table_insert(
					c->seen, copy,
					GUINT_TO_POINTER(base + k + 1));
			} else {
				digest_input_repeats(dst, s, k,
						     GPOINTER_TO_UINT(at) - 1);
				continue;
			}
		}
		drop_copied_procs(s, k, dst, c->procs, base + k);
	}
}

struct hd_copies *hd_copies_new(void)
{
	struct hd_copies *c = g_new(struct hd_copies, 1);

	c->seen = g_hash_table_new_full(content_hash, content_equal, g_free,
					NULL);
	c->procs = g_hash_table_new_full(proc_key_hash, proc_key_equal, g_free,
					 NULL);
	return c;
}

void hd_copies_free(struct hd_copies *c)
{
	if (!c)
		return;
	g_hash_table_unref(c->seen);
	g_hash_table_unref(c->procs);
	g_free(c);
}

struct hd_store *hd_copies_input(struct hd_copies *c, struct hd_store *dst,
				 struct hd_store *s, const char *name,
				 uint64_t hash, uint64_t length, guint *origin)
{
	struct content_key key = { hash, length };
	const struct hd_input *parsed = hd_store_input(s, 0);
	gpointer at = g_hash_table_lookup(c->seen, &key);
	const struct hd_input *first =
		at ? hd_store_input(dst, GPOINTER_TO_UINT(at) - 1) : NULL;
	struct hd_store *note;

	if (!first) {
		struct content_key *k;

		if (parsed->error)
			return s;
		k = g_new(struct content_key, 1);
		*k = key;
		g_hash_table_insert(c->seen, k,
				    GUINT_TO_POINTER(dst->inputs->len + 1));
		/* a digest made of this says what to know it by */
		hd_store_input(s, 0)->content_hash = hash;
		hd_store_input(s, 0)->content_length = length;
		return s;
	}
	if (hd_copies_names_agree(first->path, name)) {
		*origin = GPOINTER_TO_UINT(at) - 1;
		note = hd_copies_repeat_store(name, first, parsed->bytes,
					      "same content as");
	} else {
		struct hd_input *in;

		note = note_store(name, parsed->kind, parsed->bytes, &in);
		note_impostor(in,
			      hd_store_input(dst, GPOINTER_TO_UINT(at) - 1));
	}
	hd_store_free(s);
	return note;
}

void hd_copies_drop_procs(struct hd_copies *c, struct hd_store *dst,
			  struct hd_store *s)
{
	drop_copied_procs(s, 0, dst, c->procs, dst->inputs->len);
}
