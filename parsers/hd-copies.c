/*
 * Knowing an input again (hd-copies.h): a table of contents (the XXH3
 * hash and length of each input's decoded bytes, to the first input that
 * had them) and a table of NCCL-log processes (rank, host and pid, to the
 * logs that named them; a hash of their ops' content, not their times,
 * which a collector's prefix can give, is made when a second log names
 * one).  A repeat becomes a note in its input; a copy named for another
 * rank is refused for both names' sake, since its bytes cannot say which
 * name is right.
 */
#include "config.h"

#include "hd-copies.h"

#include <string.h>

#include "hd-reader.h"

#include "hd-hash.h"
#include "hd-input.h"
#include "rank-name.h"
#include "hd-banned.h"

struct hd_copies {
	GHashTable *seen; /* struct content_key -> input index + 1 */
	/* struct proc_ident -> the logs that named it (GPtrArray of
	   struct proc_seen), each found again by its input's index and
	   where its ops begin in the load's store, which only grows */
	GHashTable *procs;
	/*
	 * uint64 length -> the input of that length whose content was not
	 * hashed (struct unhashed), or &hashed_length once one was:
	 * hd_copies_content()
	 */
	GHashTable *lengths;
};

/* An input merged with its length only, and where to read it again. */
struct unhashed {
	uint64_t length;
	char *path;
	guint input;
};

static char hashed_length;

static uint64_t *new_length(uint64_t length)
{
	uint64_t *k = g_new(uint64_t, 1);

	*k = length;
	return k;
}

static void unhashed_free(gpointer p)
{
	struct unhashed *u = p;

	if (p == &hashed_length)
		return;
	g_free(u->path);
	g_free(u);
}

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
 * rank, host and pid (struct proc_ident), and a hash and count of its
 * ops' content (not their times, which a collector's prefix can give).
 * The content is hashed only when a later log names the same process:
 * most processes are in one log, and hashing every op of every log cost
 * a twentieth of reading a large one.
 */
struct proc_ident {
	int rank, pid;
	const char *host; /* interned */
};

/* One log's records of a process, as the load met them. */
struct proc_seen {
	guint input; /* its index in the load */
	/* where its ops are once merged: from op start of the load's
	   store, up to the first op of an input past stop_input */
	guint start, stop_input;
	uint16_t last; /* the attempt compared, 0 all */
	bool hashed; /* hash and nops are known */
	uint64_t hash, nops;
};

static guint proc_ident_hash(gconstpointer p)
{
	const struct proc_ident *k = p;

	return hd_hash_u64(((uint64_t)(uint32_t)k->rank << 32) ^
			   (uint64_t)(uint32_t)k->pid ^
			   (uint64_t)g_str_hash(k->host) << 16);
}

static gboolean proc_ident_equal(gconstpointer a, gconstpointer b)
{
	const struct proc_ident *x = a, *y = b;

	return x->rank == y->rank && x->pid == y->pid && x->host == y->host;
}

static uint64_t op_content_hash(const struct hd_store *s,
				const struct hd_op *op, uint64_t group_hash)
{
	uint64_t h = group_hash;

	h = hd_hash_u64(h ^ (uint64_t)op->seq) * 31 + op->kind;
	h = hd_hash_u64(h ^ (uint64_t)hd_op_op_count(s, op)) * 31 + op->state;
	h = hd_hash_u64(h ^ (uint64_t)(uintptr_t)hd_op_desc(op)) * 31 +
	    op->flags;
	return hd_hash_u64(h ^ op->seq_kind);
}

/* Whether op of s counts for input `input` with attempt filter last. */
static inline bool op_of_log(const struct hd_store *s, const struct hd_op *op,
			     guint input, uint16_t last)
{
	return hd_op_rank(op) >= 0 && op->group < s->groups->len &&
	       op->input == input && (!last || op->attempt == last);
}

/*
 * Hashes the ops of input `input` of s from op `from` on, up to the
 * first op of an input at or past stop, of rank `rank` into one, or of
 * every rank (rank -1) into acc, by rank: drop_copied_procs()'s content.
 */
static void hash_log_ops(const struct hd_store *s, guint input, uint16_t last,
			 guint from, guint stop, int rank,
			 struct proc_seen *one, GHashTable *acc)
{
	/* the processes of the last ranks met, by rank: an interleaved log
	   changes rank on every line but cycles through a few */
	struct proc_seen *memo[64] = { NULL };
	int memo_rank[64];
	uint32_t last_group = UINT32_MAX;
	uint64_t group_hash = 0;

	for (guint i = from; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		int r = hd_op_rank(op);
		unsigned slot = (unsigned)r % 64;
		struct proc_seen *cur;

		if (op->input >= stop)
			break;
		if (!op_of_log(s, op, input, last) || (rank >= 0 && r != rank))
			continue;
		if (op->group != last_group) {
			last_group = op->group;
			group_hash =
				g_str_hash(hd_store_group_at(s, op->group)->id);
		}
		if (one) {
			cur = one;
		} else if (memo[slot] && memo_rank[slot] == r) {
			cur = memo[slot];
		} else {
			cur = g_hash_table_lookup(acc, GINT_TO_POINTER(r));
			if (!cur) {
				cur = g_new0(struct proc_seen, 1);
				g_hash_table_insert(acc, GINT_TO_POINTER(r),
						    cur);
			}
			memo[slot] = cur;
			memo_rank[slot] = r;
		}
		cur->hash = hd_hash_u64(cur->hash ^
					op_content_hash(s, op, group_hash));
		cur->nops++;
	}
}

/*
 * Hashes an earlier log's records of a process, when a later log first
 * names the same one: in dst once merged, else in s, the store being
 * merged at base, which holds it too (a digest of several logs).
 */
static void proc_seen_hash(struct proc_seen *e, int rank,
			   const struct hd_store *dst, const struct hd_store *s,
			   guint base)
{
	if (e->hashed)
		return;
	e->hashed = true;
	if (e->input < dst->inputs->len)
		hash_log_ops(dst, e->input, e->last, e->start, e->stop_input,
			     rank, e, NULL);
	else
		hash_log_ops(s, e->input - base, e->last, 0, G_MAXUINT, rank, e,
			     NULL);
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
 * warning naming that log.  procs maps struct proc_ident to the logs
 * that named the process (a GPtrArray of struct proc_seen, in load
 * order), each hashed once, when a later log names it too.
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
	g_autoptr(GHashTable) ranks =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	GHashTableIter it;
	gpointer key;
	guint base = index - k_input;
	bool again = false;
	/* a log of several attempts: its last is compared (all are still
	   there; hd_store_keep_attempt() chooses after the merge) */
	uint16_t last = in->attempts && in->attempts->len >= 2
				? (uint16_t)MIN(in->attempts->len, G_MAXUINT16)
				: 0;

	if (in->kind != HD_INPUT_NCCL_LOG || !s->ops->len)
		return;
	/* the processes it names: its ranks, or its ops' among a digest's */
	if (s->inputs->len == 1) {
		g_hash_table_iter_init(&it, s->ranks);
		while (g_hash_table_iter_next(&it, &key, NULL))
			g_hash_table_add(ranks, key);
	} else {
		int prev = -1;

		for (guint i = 0; i < s->ops->len; i++) {
			const struct hd_op *op =
				&g_array_index(s->ops, struct hd_op, i);

			if (op_of_log(s, op, k_input, last) &&
			    hd_op_rank(op) != prev) {
				prev = hd_op_rank(op);
				g_hash_table_add(ranks, GINT_TO_POINTER(prev));
			}
		}
	}
	/* an earlier log named one of them: its ops are hashed */
	g_hash_table_iter_init(&it, ranks);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		const struct hd_rank *r =
			hd_store_find_rank(s, GPOINTER_TO_INT(key));
		struct proc_ident id = { GPOINTER_TO_INT(key), 0, NULL };

		if (!r || !r->host || !r->pid)
			continue;
		id.pid = r->pid;
		id.host = r->host;
		if (g_hash_table_contains(procs, &id))
			again = true;
	}
	/*
	 * None did: each is remembered, to be hashed if a later log names
	 * it.  Else this log's processes are hashed and compared, in the
	 * order of the table of them (the order of the warnings).
	 */
	if (again)
		hash_log_ops(s, k_input, last, 0, G_MAXUINT, -1, NULL, acc);
	g_hash_table_iter_init(&it, again ? acc : ranks);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		int rank = GPOINTER_TO_INT(key);
		const struct hd_rank *r = hd_store_find_rank(s, rank);
		struct proc_ident id = { rank, 0, NULL };
		struct proc_seen *mine =
			again ? g_hash_table_lookup(acc, key) : NULL;
		struct proc_seen *first = NULL;
		GPtrArray *logs;

		if (!r || !r->host || !r->pid)
			continue;
		id.pid = r->pid;
		id.host = r->host;
		logs = g_hash_table_lookup(procs, &id);
		for (guint j = 0; mine && logs && j < logs->len && !first;
		     j++) {
			struct proc_seen *e = g_ptr_array_index(logs, j);

			proc_seen_hash(e, rank, dst, s, base);
			if (e->nops && e->hash == mine->hash &&
			    e->nops == mine->nops)
				first = e;
		}
		if (!first) {
			struct proc_seen *e = g_new0(struct proc_seen, 1);

			if (!logs) {
				struct proc_ident *k =
					g_new(struct proc_ident, 1);

				*k = id;
				logs = g_ptr_array_new_with_free_func(g_free);
				g_hash_table_insert(procs, k, logs);
			}
			if (mine) {
				*e = *mine;
				e->hashed = true;
			}
			e->input = index;
			e->start = dst->ops->len;
			e->stop_input = base + s->inputs->len;
			e->last = last;
			g_ptr_array_add(logs, e);
			continue;
		}
		g_hash_table_add(drop, key);
		hd_input_warn(in, 0,
			      "the %" G_GUINT64_FORMAT
			      " ops of rank %d (%s:%d) are the same records "
			      "as in '%s': read once",
			      mine->nops, rank, r->host, r->pid,
			      load_input_path(dst, s, base, first->input));
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
	c->procs =
		g_hash_table_new_full(proc_ident_hash, proc_ident_equal, g_free,
				      (GDestroyNotify)g_ptr_array_unref);
	c->lengths = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
					   unhashed_free);
	return c;
}

void hd_copies_free(struct hd_copies *c)
{
	if (!c)
		return;
	g_hash_table_unref(c->seen);
	g_hash_table_unref(c->procs);
	g_hash_table_unref(c->lengths);
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

/*
 * The content hash of the file at path, read again: it must decode to
 * length bytes, as it did when it was parsed, else it changed since and
 * has no content to compare (false).
 */
static bool hash_again(const char *path, uint64_t length, uint64_t *hash)
{
	g_autoptr(hd_reader) rd = hd_reader_open(path, NULL);
	g_autofree uint8_t *buf = NULL;
	struct hd_digest d;
	ssize_t n;

	if (!rd)
		return false;
	/* past length it changed: stop there */
	hd_reader_set_budget(rd, length, 0, "a second read of the same file");
	buf = g_malloc(64 * 1024);
	while ((n = hd_reader_read(rd, buf, 64 * 1024, NULL)) > 0)
		;
	hd_reader_digest(rd, &d);
	if (n < 0 || !d.complete || d.length != length)
		return false;
	*hash = d.hash;
	return true;
}

bool hd_copies_content(struct hd_copies *c, struct hd_store *dst,
		       const char *path, struct hd_digest *d)
{
	struct unhashed *was = g_hash_table_lookup(c->lengths, &d->length);

	if (was && was != (gpointer)&hashed_length) {
		uint64_t hash;

		/* an input of that length went unhashed: it is needed now */
		if (hash_again(was->path, was->length, &hash))
			hd_copies_remember(c, dst, was->input, hash,
					   was->length);
		/* frees was */
		g_hash_table_replace(c->lengths, new_length(d->length),
				     &hashed_length);
		was = (gpointer)&hashed_length;
	}
	if (!d->hashed && !was) {
		struct unhashed *u = g_new(struct unhashed, 1);

		u->length = d->length;
		u->path = g_strdup(path);
		u->input = dst->inputs->len;
		g_hash_table_insert(c->lengths, new_length(d->length), u);
		return false;
	}
	if (!d->hashed) {
		if (!hash_again(path, d->length, &d->hash))
			return false;
		d->hashed = true;
	}
	if (!was)
		g_hash_table_insert(c->lengths, new_length(d->length),
				    &hashed_length);
	return true;
}

void hd_copies_remember(struct hd_copies *c, struct hd_store *dst, guint input,
			uint64_t hash, uint64_t length)
{
	struct content_key key = { hash, length };
	struct hd_input *in = hd_store_input(dst, input);
	struct content_key *k;

	if (in->error || g_hash_table_contains(c->seen, &key))
		return;
	k = g_new(struct content_key, 1);
	*k = key;
	g_hash_table_insert(c->seen, k, GUINT_TO_POINTER(input + 1));
	in->content_hash = hash;
	in->content_length = length;
}

void hd_copies_drop_procs(struct hd_copies *c, struct hd_store *dst,
			  struct hd_store *s)
{
	drop_copied_procs(s, 0, dst, c->procs, dst->inputs->len);
}

/*
 * Two dumps of one rank (a pickle and its JSON, a dump rewritten by
 * another pickle protocol, the same dump taken twice during the hang):
 * the same process's ring buffer, known by its record ids.  Each dump's
 * ops of the rank, with the range of its record ids.
 */
struct dump_run {
	uint32_t input;
	const char *path; /* its input's (transfer none) */
	GArray *ops; /* uint32_t indices into s->ops */
	uint64_t min_id, max_id;
	GHashTable *by_id; /* record id -> op index + 1, made when compared */
};

static void dump_run_free(gpointer p)
{
	struct dump_run *d = p;

	g_array_unref(d->ops);
	if (d->by_id)
		g_hash_table_unref(d->by_id);
	g_free(d);
}

static uint64_t op_record_id(const struct hd_store *s, const struct hd_op *op)
{
	return hd_op_prov(s, op).at;
}

/* Whether two entries of one record id are one record seen twice. */
static bool same_entry(const struct hd_store *s, const struct hd_op *a,
		       const struct hd_op *b)
{
	int64_t ta = hd_op_t_enqueue(s, a), tb = hd_op_t_enqueue(s, b);

	return a->group == b->group && a->seq == b->seq &&
	       a->seq_kind == b->seq_kind && a->kind == b->kind &&
	       hd_op_desc(a) == hd_op_desc(b) &&
	       (ta == INT64_MIN || tb == INT64_MIN || ta == tb);
}

static void dump_run_index(const struct hd_store *s, struct dump_run *d)
{
	if (d->by_id)
		return;
	d->by_id = g_hash_table_new_full(hd_int64_hash, hd_int64_equal, g_free,
					 NULL);
	for (guint i = 0; i < d->ops->len; i++) {
		uint32_t at = g_array_index(d->ops, uint32_t, i);
		int64_t *k = g_new(int64_t, 1);

		*k = (int64_t)op_record_id(
			s, &g_array_index(s->ops, struct hd_op, at));
		g_hash_table_insert(d->by_id, k, GUINT_TO_POINTER(at + 1));
	}
}

/*
 * How dump y's entries stand to dump x's: -1 they contradict (another
 * instance, or no record in common: left to the checks of instances and
 * of incidents), else how many records they share, *keep_y set when y is
 * the one read where both hold a record (it is further on: later states
 * or later records).  Records only one holds must be older than the
 * other's first, or, of the one read, past the other's last (a ring
 * buffer that moved on between the two dumps): a gap is a contradiction.
 */
static gint64 dump_runs_agree(const struct hd_store *s, struct dump_run *x,
			      struct dump_run *y, bool *keep_y)
{
	bool x_ahead = x->max_id > y->max_id, y_ahead = y->max_id > x->max_id;
	gint64 shared = 0;
	struct dump_run *keep, *other;

	dump_run_index(s, y);
	for (guint i = 0; i < x->ops->len; i++) {
		const struct hd_op *a =
			&g_array_index(s->ops, struct hd_op,
				       g_array_index(x->ops, uint32_t, i));
		int64_t id = (int64_t)op_record_id(s, a);
		gpointer at = g_hash_table_lookup(y->by_id, &id);
		const struct hd_op *b;

		if (!at)
			continue;
		b = &g_array_index(s->ops, struct hd_op,
				   GPOINTER_TO_UINT(at) - 1);
		if (!same_entry(s, a, b))
			return -1;
		x_ahead |= a->state > b->state;
		y_ahead |= b->state > a->state;
		shared++;
	}
	if (!shared || (x_ahead && y_ahead))
		return -1;
	*keep_y = y_ahead;
	keep = y_ahead ? y : x;
	other = y_ahead ? x : y;
	/* the other's own records are older than the kept one's; the kept
	   one's own are outside the other's span */
	dump_run_index(s, keep);
	for (guint i = 0; i < other->ops->len; i++) {
		int64_t id = (int64_t)op_record_id(
			s,
			&g_array_index(s->ops, struct hd_op,
				       g_array_index(other->ops, uint32_t, i)));

		if (!g_hash_table_contains(keep->by_id, &id) &&
		    (uint64_t)id > keep->min_id)
			return -1;
	}
	dump_run_index(s, other);
	for (guint i = 0; i < keep->ops->len; i++) {
		int64_t id = (int64_t)op_record_id(
			s,
			&g_array_index(s->ops, struct hd_op,
				       g_array_index(keep->ops, uint32_t, i)));

		if (!g_hash_table_contains(other->by_id, &id) &&
		    (uint64_t)id > other->min_id &&
		    (uint64_t)id < other->max_id)
			return -1;
	}
	return shared;
}

static gint dump_run_cmp(gconstpointer a, gconstpointer b)
{
	const struct dump_run *x = *(const struct dump_run *const *)a;
	const struct dump_run *y = *(const struct dump_run *const *)b;

	int c = strcmp(x->path, y->path);

	return c ? c : (x->input < y->input ? -1 : x->input > y->input);
}

/* The ranks with two or more flight-recorder dumps: rank -> dump_runs. */
static GHashTable *dump_runs_of_ranks(const struct hd_store *s)
{
	GHashTable *runs =
		g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
				      (GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GHashTable) at =
		g_hash_table_new(hd_int64_hash, hd_int64_equal);
	g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) inputs =
		hd_store_ranks_inputs_of_kind(s, HD_INPUT_FLIGHT_REC, true);
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, inputs);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const GArray *ins = v;
		GPtrArray *l = g_ptr_array_new_with_free_func(dump_run_free);

		for (guint i = 0; i < ins->len; i++) {
			struct dump_run *d = g_new0(struct dump_run, 1);
			int64_t *key = g_new(int64_t, 1);

			d->input = g_array_index(ins, uint32_t, i);
			d->path = hd_store_input(s, d->input)->path;
			d->ops = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			d->min_id = UINT64_MAX;
			g_ptr_array_add(l, d);
			*key = ((int64_t)d->input << 32) |
			       (uint32_t)GPOINTER_TO_INT(k);
			g_ptr_array_add(keys, key);
			g_hash_table_insert(at, key, d);
		}
		/* by path: a digest's inputs come in another order */
		g_ptr_array_sort(l, dump_run_cmp);
		g_hash_table_insert(runs, k, l);
	}
	if (!g_hash_table_size(runs))
		return runs;
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		int64_t key =
			((int64_t)op->input << 32) | (uint32_t)hd_op_rank(op);
		struct dump_run *d;
		uint64_t id;

		if (hd_op_rank(op) < 0 || op->prov_kind != HD_PROV_RECORD ||
		    !g_hash_table_contains(runs,
					   GINT_TO_POINTER(hd_op_rank(op))) ||
		    !(d = g_hash_table_lookup(at, &key)))
			continue;
		id = op_record_id(s, op);
		g_array_append_val(d->ops, i);
		d->min_id = MIN(d->min_id, id);
		d->max_id = MAX(d->max_id, id);
	}
	return runs;
}

/* The ops dropped, by their index in the store (filtered in order). */
struct dump_drop {
	GHashTable *ops; /* op index -> itself */
	guint at;
};

static bool dump_drop_op(struct hd_op *op, void *data)
{
	struct dump_drop *dd = data;

	(void)op;
	return g_hash_table_contains(dd->ops, GUINT_TO_POINTER(dd->at++));
}

void hd_copies_merge_dumps(struct hd_store *s)
{
	g_autoptr(GHashTable) runs = dump_runs_of_ranks(s);
	g_autoptr(GHashTable) drop = NULL;
	GHashTableIter it;
	gpointer k, v;

	if (!g_hash_table_size(runs))
		return;
	drop = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_hash_table_iter_init(&it, runs);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		GPtrArray *l = v;
		int rank = GPOINTER_TO_INT(k);

		/* each dump against the first before it it agrees with */
		for (guint b = 1; b < l->len; b++) {
			struct dump_run *y = g_ptr_array_index(l, b);

			for (guint a = 0; a < b; a++) {
				struct dump_run *x = g_ptr_array_index(l, a);
				struct dump_run *keep, *other;
				bool keep_y = false;
				gint64 shared;

				if (!x->ops->len || !y->ops->len)
					continue;
				shared = dump_runs_agree(s, x, y, &keep_y);
				if (shared < 0)
					continue;
				keep = keep_y ? y : x;
				other = keep_y ? x : y;
				for (guint i = 0; i < other->ops->len; i++) {
					uint32_t at = g_array_index(
						other->ops, uint32_t, i);
					int64_t id = (int64_t)op_record_id(
						s, &g_array_index(s->ops,
								  struct hd_op,
								  at));

					if (g_hash_table_contains(keep->by_id,
								  &id))
						g_hash_table_add(
							drop,
							GUINT_TO_POINTER(at));
				}
				if ((guint)shared == x->ops->len &&
				    (guint)shared == y->ops->len)
					hd_input_warn(
						hd_store_input(s, y->input), 0,
						"two dumps of rank %d: its %" G_GINT64_FORMAT
						" records are those of '%s' (same record ids, ops and states): read once",
						rank, shared,
						hd_store_input(s, x->input)
							->path);
				else
					hd_input_warn(
						hd_store_input(s, other->input),
						0,
						"two dumps of rank %d: the %" G_GINT64_FORMAT
						" records it shares with '%s' (same record ids and ops; that dump is further on) are read from there, once",
						rank, shared,
						hd_store_input(s, keep->input)
							->path);
				/* read once: the other is not compared again */
				if (other == y) {
					g_array_set_size(y->ops, 0);
				} else {
					g_array_set_size(x->ops, 0);
				}
				break;
			}
		}
	}
	if (g_hash_table_size(drop)) {
		struct dump_drop dd = { drop, 0 };

		hd_store_filter_ops(s, dump_drop_op, &dd);
	}
}
