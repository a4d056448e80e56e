/*
 * The flight-recorder parser: one PyTorch FR dump (pickle, or the JSON
 * variant) of one rank into groups, ops, stacks and pg_status signals.
 * Every dump version is read by key presence (torch 2.2's bare list of
 * entries through "2.10" and unknown later keys); truncated pickles keep
 * every entry completed before the cut.  See
 * docs/format-flight-recorder.md for the layout.
 */
#include "config.h"

#include "formats.h"
#include "rank-name.h"

#include <string.h>

#include <xxhash.h>

#include "hd-autocleanups.h"
#include "hd-budget.h"
#include "hd-const.h"
#include "hd-error.h"
#include "hd-hash.h"
#include "fr-json.h"
#include "pickle.h"
#include "hd-banned.h"

/* Dumps are at most a few hundred MB; refuse what no recorder writes. */
#define FR_MAX_BYTES ((size_t)2 << 30)
/* How far back a coalesced marker looks for its members. */
#define FR_COALESCE_LOOKBACK 4096
/* Per-thread input buffers larger than this are not kept for the next file. */
#define FR_KEEP_MAX ((size_t)64 << 20)

/*
 * What one thread reuses from file to file: the input bytes and the pickle
 * arena.  Fresh buffers per file made the kernel zero every page of them
 * again (18% of the time on a 1,024-rank incident).
 */
struct fr_scratch {
	struct pk_scratch *pk;
	uint8_t *data;
	size_t cap;
	/*
	 * The last pg_config item read: its name, interned member list and
	 * group id.  Every rank's dump repeats the same world group, whose
	 * id is O(world size) to print.
	 */
	char *pg_name;
	struct hd_members *pg_members;
	char *pg_id;
	/*
	 * The raw ranks text of the last list interned on this thread and
	 * its list and fold: the next dump's is the same bytes, found by
	 * one compare, without hashing them.
	 */
	char *last_text;
	size_t last_len;
	struct hd_members *last_members;
	char *last_fold;
	/*
	 * Per string node of the file being parsed: its interned text and,
	 * as a key, its field.  Kept zeroed between files by undoing the
	 * entries set (a few dozen, strings being memoized) rather than by
	 * clearing or reallocating tables as long as the node arena.
	 */
	const char **interned;
	uint8_t *field;
	size_t str_cap;
	GArray *str_set; /* uint32_t: the ids with an entry, to undo */
};

static void fr_scratch_free(gpointer p)
{
	struct fr_scratch *s = p;

	if (!s)
		return;
	pk_scratch_free(s->pk);
	g_free(s->data);
	g_free(s->pg_name);
	hd_members_unref(s->pg_members);
	g_free(s->pg_id);
	g_free(s->last_text);
	hd_members_unref(s->last_members);
	g_free(s->last_fold);
	g_free(s->interned);
	g_free(s->field);
	g_array_unref(s->str_set);
	g_free(s);
}

static GPrivate fr_scratch_key = G_PRIVATE_INIT(fr_scratch_free);

/*
 * pg_config member lists, interned by their raw "ranks" text: each
 * distinct list is parsed once per load, whatever the number of dumps
 * that repeat it (a dump of a 131,072-rank job carries 1 MB of it).
 * Keyed by the text's XXH3-128 and length; a hit is confirmed by
 * comparing the bytes, so a crafted collision cannot swap two lists.
 * A thread first compares with the last list it met (struct
 * fr_scratch), which is what the next dump repeats.
 */
struct fr_list {
	XXH128_hash_t hash;
	size_t len;
	char *text; /* the raw bytes, owned */
	struct hd_members *members;
	char *fold; /* hd_group_id_pg()'s "[...]" of the list */
};

static GMutex fr_lists_lock;
static GHashTable *fr_lists; /* struct fr_list * -> itself */

static guint fr_list_hash(gconstpointer p)
{
	const struct fr_list *l = p;

	return (guint)l->hash.low64;
}

static gboolean fr_list_equal(gconstpointer a, gconstpointer b)
{
	const struct fr_list *x = a, *y = b;

	return XXH128_isEqual(x->hash, y->hash) && x->len == y->len &&
	       memcmp(x->text, y->text, x->len) == 0;
}

static void fr_list_free(gpointer p)
{
	struct fr_list *l = p;

	g_free(l->text);
	hd_members_unref(l->members);
	g_free(l->fold);
	g_free(l);
}

void flight_rec_release_buffers(void)
{
	g_private_replace(&fr_scratch_key, NULL);
	g_mutex_lock(&fr_lists_lock);
	g_clear_pointer(&fr_lists, g_hash_table_unref);
	g_mutex_unlock(&fr_lists_lock);
}

static struct fr_scratch *fr_scratch_get(void)
{
	struct fr_scratch *s = g_private_get(&fr_scratch_key);

	if (!s) {
		s = g_new0(struct fr_scratch, 1);
		s->pk = pk_scratch_new();
		s->str_set = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		g_private_set(&fr_scratch_key, s);
	}
	return s;
}

void flight_rec_set_node_budget(uint32_t max_nodes)
{
	struct fr_scratch *s = fr_scratch_get();
	struct pk_limits lim = *pk_scratch_limits(s->pk);

	lim.max_nodes = max_nodes ? max_nodes : HD_BUDGET_PK_NODES;
	pk_scratch_set_limits(s->pk, &lim);
}

/*
 * hd_reader_slurp() into the thread's buffer: the whole decompressed
 * stream, failing cleanly once it exceeds max bytes.
 */
static bool slurp_into(struct hd_reader *rd, struct fr_scratch *s, size_t max,
		       size_t *len, GError **error)
{
	size_t have = 0;

	for (;;) {
		ssize_t n;

		if (have >= max) {
			uint8_t probe;

			/* Exactly max bytes is fine; one more is not. */
			n = hd_reader_read(rd, &probe, 1, error);
			if (n == 0)
				break;
			if (n > 0)
				g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
					    "'%s' is larger than %zu bytes",
					    hd_reader_path(rd), max);
			return false;
		}
		if (have == s->cap) {
			s->cap = MAX(s->cap * 2, (size_t)256 * 1024);
			s->data = g_realloc(s->data, s->cap);
		}
		n = hd_reader_read(rd, s->data + have,
				   MIN(s->cap - have, max - have), error);
		if (n < 0)
			return false;
		if (n == 0)
			break;
		have += (size_t)n;
	}
	*len = have;
	return true;
}

enum fr_field {
	F_UNSEEN = 0,
	F_UNKNOWN,
	F_FRAMES,
	F_RECORD_ID,
	F_PG_ID,
	F_PROCESS_GROUP,
	F_COLL_SEQ,
	F_P2P_SEQ,
	F_OP_ID,
	F_SEQ_ID,
	F_PROFILING_NAME,
	F_TIME_CREATED,
	F_DURATION,
	F_INPUT_SIZES,
	F_OUTPUT_SIZES,
	F_INPUT_DTYPES,
	F_OUTPUT_DTYPES,
	F_STATE,
	F_T_STARTED,
	F_T_COMPLETED,
	F_RETIRED,
	F_TIMEOUT,
	F_IS_P2P,
	F_THREAD_ID,
	F_THREAD_NAME,
	F_COUNT
};

static const char *const field_names[F_COUNT] = {
	[F_FRAMES] = "frames",
	[F_RECORD_ID] = "record_id",
	[F_PG_ID] = "pg_id",
	[F_PROCESS_GROUP] = "process_group",
	[F_COLL_SEQ] = "collective_seq_id",
	[F_P2P_SEQ] = "p2p_seq_id",
	[F_OP_ID] = "op_id",
	[F_SEQ_ID] = "seq_id",
	[F_PROFILING_NAME] = "profiling_name",
	[F_TIME_CREATED] = "time_created_ns",
	[F_DURATION] = "duration_ms",
	[F_INPUT_SIZES] = "input_sizes",
	[F_OUTPUT_SIZES] = "output_sizes",
	[F_INPUT_DTYPES] = "input_dtypes",
	[F_OUTPUT_DTYPES] = "output_dtypes",
	[F_STATE] = "state",
	[F_T_STARTED] = "time_discovered_started_ns",
	[F_T_COMPLETED] = "time_discovered_completed_ns",
	[F_RETIRED] = "retired",
	[F_TIMEOUT] = "timeout_ms",
	[F_IS_P2P] = "is_p2p",
	[F_THREAD_ID] = "thread_id",
	[F_THREAD_NAME] = "thread_name",
};

/* A growable int64_t array, cheaper than GArray for one append per field. */
struct fr_sig {
	int64_t *v;
	size_t n, cap;
};

static void sig_clear(struct fr_sig *sig)
{
	g_free(sig->v);
}

static G_GNUC_NO_INLINE void sig_grow(struct fr_sig *sig)
{
	sig->cap = MAX(2 * sig->cap, 16);
	sig->v = g_renew(int64_t, sig->v, sig->cap);
}

static inline void sig_add(struct fr_sig *sig, int64_t x)
{
	if (G_UNLIKELY(sig->n == sig->cap))
		sig_grow(sig);
	sig->v[sig->n++] = x;
}

struct fr_ctx {
	struct hd_store *store;
	struct hd_input *in;
	uint32_t input;
	struct pk_tree *t;
	uint32_t nstr; /* t->str_end: no string node from here on */
	uint8_t *field; /* node id -> enum fr_field, by key node */
	const char **interned; /* node id -> interned string */
	GArray *str_set; /* ids set in either, to undo */
	GHashTable *groups; /* interned pg name -> group index + 1 */
	GHashTable *pg_names; /* pg_id -> interned pg name */
	GHashTable *warned; /* (what, name) keys warned about, owned */
	GHashTable *render; /* rendered string -> interned */
	int64_t entry; /* the entry being read, -1 outside entries */
	GHashTable *stack_by_node; /* frames list node id -> stack id + 1 */
	GHashTable *stack_by_kids; /* GBytes of frame node ids -> stack + 1 */
	GHashTable *names; /* profiling_name (owned) -> struct fr_name * */
	struct fr_scratch *scratch; /* this thread's */
	GString *buf;
	struct fr_sig sig; /* a signature being built */
	int rank;
	/*
	 * Last-result caches: consecutive entries almost always repeat the
	 * previous entry's shapes, dtypes, names, group and frames, so
	 * comparing with the last entry's input (a signature of the values
	 * a result is computed from, or an interned pointer) skips rendering
	 * and a hash lookup per field.
	 */
	struct fr_last {
		struct fr_sig sig; /* what the result depends on */
		const char *value; /* the interned result, NULL before any */
		int64_t numel; /* sizes: the element count */
		enum hd_dtype dtype; /* dtypes: the parsed type */
	} last_sizes[2], last_dtypes;
	uint32_t last_first; /* the last dtype spelling's node, parsed */
	enum hd_dtype last_dtype;
	const uint32_t *last_frames; /* kids of the last frames list */
	uint32_t last_nframes;
	int32_t last_sid;
	uint32_t last_pn; /* the last profiling_name node and its parse */
	struct fr_name *last_fn;
	const char *last_pg; /* the last process group name and group */
	uint32_t last_group;
	int64_t last_pg_id; /* the last pg_id known to pg_names */
	bool have_pg_id;
	uint32_t last_state; /* the last known state node and its state */
	uint8_t last_op_state;
};

/* What a profiling_name says, parsed once per distinct name and file. */
struct fr_name {
	const char *name;
	uint8_t kind;
	uint8_t flags;
	int32_t peer;
};

/*
 * Bytes that are not UTF-8, or a NUL, as "\xNN"; the rest as is.  One
 * bad byte spoils one field, never the entry or the dump.  (transfer full)
 */
static char *escape_bad_text(const char *p, size_t len)
{
	GString *t = g_string_sized_new(len + 8);
	size_t i = 0;

	while (i < len) {
		gunichar u =
			g_utf8_get_char_validated(p + i, (gssize)(len - i));

		if (u == (gunichar)-1 || u == (gunichar)-2 || u == 0) {
			g_string_append_printf(t, "\\x%02x", (uint8_t)p[i]);
			i++;
			continue;
		}
		g_string_append_len(t, p + i, g_utf8_skip[(uint8_t)p[i]]);
		i += g_utf8_skip[(uint8_t)p[i]];
	}
	return g_string_free(t, FALSE);
}

/* The interned text of a string node (cached per node), or NULL. */
static const char *node_text(struct fr_ctx *c, uint32_t id)
{
	size_t len;
	const char *p;

	if (id >= c->nstr)
		return NULL;
	if (c->interned[id])
		return c->interned[id];
	if (c->t->node[id].type != PK_STR)
		return NULL;
	p = pk_str(c->t, id, &len);
	if (pk_str_bad(c->t, id)) {
		g_autofree char *esc = escape_bad_text(p, len);
		g_autofree char *where =
			c->entry >= 0
				? g_strdup_printf("entry %" G_GINT64_FORMAT,
						  c->entry)
				: g_strdup("pg_config");

		hd_input_warn(
			c->in, 0,
			"%s: a string holds a NUL byte or bytes that are not UTF-8: kept escaped as '%s'",
			where, esc);
		c->interned[id] = hd_intern(esc);
	} else {
		c->interned[id] = hd_intern_len(p, len);
	}
	g_array_append_val(c->str_set, id);
	return c->interned[id];
}

/*
 * The bytes of a string node, not interned, or NULL.  Keys, states and
 * numbers are compared or parsed from these: only strings the store keeps
 * are interned, so a dump of junk keys cannot spend the input's budget of
 * new strings (HD_BUDGET_STRINGS_PER_INPUT).  (transfer none)
 */
static const char *node_bytes(struct fr_ctx *c, uint32_t id, size_t *len)
{
	*len = 0;
	if (id >= c->nstr || c->t->node[id].type != PK_STR)
		return NULL;
	return pk_str(c->t, id, len);
}

/* Whether the string node id is s. */
static bool node_is(const char *p, size_t len, const char *s)
{
	return p && strlen(s) == len && memcmp(p, s, len) == 0;
}

/* Interns a rendered string through a lock-free per-file cache. */
static const char *intern_local(struct fr_ctx *c, const char *s)
{
	const char *v = g_hash_table_lookup(c->render, s);

	if (!v) {
		v = hd_intern(s);
		g_hash_table_insert(c->render, hd_unconst(v), hd_unconst(v));
	}
	return v;
}

/* Warns once per (what, name) pair; returns whether this was the first. */
static bool warn_once(struct fr_ctx *c, const char *what, const char *name)
{
	char *key = g_strconcat(what, "\x1f", name, NULL);

	if (g_hash_table_contains(c->warned, key)) {
		g_free(key);
		return false;
	}
	g_hash_table_add(c->warned, key);
	return true;
}

/* field_of() for a key not seen before in this file. */
static G_GNUC_NO_INLINE enum fr_field field_first(struct fr_ctx *c,
						  uint32_t key)
{
	size_t len;
	const char *s = node_bytes(c, key, &len);

	c->field[key] = F_UNKNOWN;
	g_array_append_val(c->str_set, key);
	for (int f = F_FRAMES; s && f < F_COUNT; f++)
		if (node_is(s, len, field_names[f]))
			c->field[key] = f;
	return c->field[key];
}

/* The field a key node names, F_UNKNOWN for anything else. */
static inline enum fr_field field_of(struct fr_ctx *c, uint32_t key)
{
	if (key >= c->nstr)
		return F_UNKNOWN;
	if (c->field[key] != F_UNSEEN)
		return c->field[key];
	return field_first(c, key);
}

/* An int, a decimal string (JSON pg_status), or false. */
static bool get_int(struct fr_ctx *c, uint32_t id, int64_t *v)
{
	const char *s;
	char num[32];
	size_t len;

	if (pk_int(c->t, id, v))
		return true;
	if (pk_type_of(c->t, id) == PK_FLOAT) {
		double f = pk_node(c->t, id)->v.f;

		if (f >= -9.2e18 && f <= 9.2e18) {
			*v = (int64_t)f;
			return true;
		}
		return false;
	}
	s = node_bytes(c, id, &len);
	if (s && len > 0 && len < sizeof(num)) {
		gint64 x;

		memcpy(num, s, len);
		num[len] = '\0';
		if (g_ascii_string_to_signed(num, 10, G_MININT64, G_MAXINT64,
					     &x, NULL)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/*
 * Parses pg_config's "[0, 1, 2]" (or a list of ints) into ranks.  Returns
 * false on anything else.
 */
static bool parse_ranks(struct fr_ctx *c, uint32_t id, GArray *ranks)
{
	size_t len;
	const char *p = pk_str(c->t, id, &len);

	g_array_set_size(ranks, 0);
	if (pk_type_of(c->t, id) == PK_LIST) {
		for (uint32_t i = 0; i < pk_len(c->t, id); i++) {
			int64_t v;

			if (!pk_int(c->t, pk_child(c->t, id, i), &v) || v < 0 ||
			    v > G_MAXINT)
				return false;
			int r = (int)v;
			g_array_append_val(ranks, r);
		}
		return true;
	}
	if (!p || pk_type_of(c->t, id) != PK_STR)
		return false;
	{
		size_t i = 0;

		while (i < len && p[i] == ' ')
			i++;
		if (i >= len || p[i++] != '[')
			return false;
		for (;;) {
			int64_t v = 0;
			size_t digits = 0;

			while (i < len && p[i] == ' ')
				i++;
			if (i < len && p[i] == ']' && ranks->len == 0)
				return true;
			while (i < len && g_ascii_isdigit(p[i]) &&
			       digits < 10) {
				v = v * 10 + (p[i++] - '0');
				digits++;
			}
			if (digits == 0 || v > G_MAXINT)
				return false;
			int r = (int)v;
			g_array_append_val(ranks, r);
			while (i < len && p[i] == ' ')
				i++;
			if (i < len && p[i] == ']')
				return true;
			if (i >= len || p[i++] != ',')
				return false;
		}
	}
}

/* hd_group_set_member() ignores group ranks from this on (hd-store.c). */
#define FR_MAX_GROUP_RANKS (1 << 22)

/* "[...]" of hd_group_id_pg() for ranks.  (transfer full) */
static char *fold_ranks(const struct hd_members *m)
{
	g_autofree char *id = hd_group_id_pg(
		"", (const int *)(void *)m->ranks->data, m->ranks->len);

	/* "pg::[...]" */
	return g_strdup(id + 4);
}

/*
 * The interned list of the raw ranks text p[0..len) and its fold, parsing
 * it (parse_ranks()) only when no dump gave it before.  False when it
 * does not parse.  Taken under the lock, which a load on another thread
 * (triage) may clear when it ends.  *m, *fold: (transfer full)
 */
static bool intern_ranks_text(struct fr_ctx *c, uint32_t rid, const char *p,
			      size_t len, struct hd_members **m, char **fold)
{
	struct fr_list key = { XXH3_128bits(p, len), len, hd_unconst(p), NULL,
			       NULL };
	struct fr_list *l, *had;
	g_autoptr(GArray) ranks = NULL;

	g_mutex_lock(&fr_lists_lock);
	l = fr_lists ? g_hash_table_lookup(fr_lists, &key) : NULL;
	if (l) {
		*m = hd_members_ref(l->members);
		*fold = g_strdup(l->fold);
	}
	g_mutex_unlock(&fr_lists_lock);
	if (l)
		return true;
	ranks = g_array_new(FALSE, FALSE, sizeof(int));
	if (!parse_ranks(c, rid, ranks))
		return false;
	l = g_new0(struct fr_list, 1);
	*l = key;
	l->text = g_malloc(len + 1);
	memcpy(l->text, p, len);
	l->members =
		hd_members_new((const int *)(void *)ranks->data, ranks->len);
	l->fold = fold_ranks(l->members);
	g_mutex_lock(&fr_lists_lock);
	if (!fr_lists)
		fr_lists = g_hash_table_new_full(fr_list_hash, fr_list_equal,
						 fr_list_free, NULL);
	/* another thread may have made the same list meanwhile */
	had = g_hash_table_lookup(fr_lists, l);
	if (had) {
		fr_list_free(l);
		l = had;
	} else {
		g_hash_table_add(fr_lists, l);
	}
	*m = hd_members_ref(l->members);
	*fold = g_strdup(l->fold);
	g_mutex_unlock(&fr_lists_lock);
	return true;
}

/*
 * The members of a pg_config item's "ranks" and the group id: from the
 * thread's last item when its name and list are the same, else from the
 * interned list.  NULL when the ranks do not parse.  *id: (transfer full)
 * (transfer full)
 */
static struct hd_members *item_members(struct fr_ctx *c, const char *name,
				       uint32_t rid, char **id)
{
	struct fr_scratch *s = c->scratch;
	size_t len;
	const char *p = pk_str(c->t, rid, &len);
	g_autoptr(GArray) ranks = NULL;
	struct hd_members *m;

	if (!p || pk_type_of(c->t, rid) != PK_STR) {
		/* a list of ints: rare, and not interned */
		ranks = g_array_new(FALSE, FALSE, sizeof(int));
		if (!parse_ranks(c, rid, ranks))
			return NULL;
		m = hd_members_new((const int *)(void *)ranks->data,
				   ranks->len);
		*id = hd_group_id_pg(name, (const int *)(void *)ranks->data,
				     ranks->len);
		return m;
	}
	if (!s->last_text || s->last_len != len ||
	    memcmp(s->last_text, p, len) != 0) {
		struct hd_members *lm;
		char *fold;

		if (!intern_ranks_text(c, rid, p, len, &lm, &fold))
			return NULL;
		g_free(s->last_text);
		s->last_text = g_malloc(len + 1);
		memcpy(s->last_text, p, len);
		s->last_len = len;
		hd_members_unref(s->last_members);
		s->last_members = lm;
		g_free(s->last_fold);
		s->last_fold = fold;
	}
	if (s->pg_members != s->last_members || !s->pg_name ||
	    strcmp(s->pg_name, name) != 0) {
		g_free(s->pg_name);
		s->pg_name = g_strdup(name);
		hd_members_unref(s->pg_members);
		s->pg_members = hd_members_ref(s->last_members);
		g_free(s->pg_id);
		s->pg_id = g_strconcat("pg:", name, ":", s->last_fold, NULL);
	}
	*id = g_strdup(s->pg_id);
	return hd_members_ref(s->last_members);
}

/* One pg_config item: register the group. */
static void add_pg(struct fr_ctx *c, uint32_t key, uint32_t val,
		   GPtrArray *sets)
{
	const char *name = node_text(c, pk_dict_get(c->t, val, "name"));
	const char *desc = node_text(c, pk_dict_get(c->t, val, "desc"));
	uint32_t rid = pk_dict_get(c->t, val, "ranks");
	g_autofree char *id = NULL;
	struct hd_members *m;
	struct hd_group *g;
	uint32_t gi;

	if (!name)
		name = node_text(c, key);
	if (!name || pk_type_of(c->t, val) != PK_DICT) {
		hd_input_warn(c->in, 0, "pg_config item without a name");
		return;
	}
	m = item_members(c, name, rid, &id);
	if (!m) {
		hd_input_warn(c->in, 0, "pg_config '%s': unreadable ranks",
			      name);
		return;
	}
	gi = hd_store_group(c->store, id);
	g = hd_store_group_at(c->store, gi);
	if (!g->name)
		g->name = g_strdup(name);
	if (!g->desc && desc)
		g->desc = g_strdup(desc);
	if (g->members->len == 0 && m->ranks->len <= FR_MAX_GROUP_RANKS)
		/* what hd_group_set_member() for each would do, in O(1) */
		hd_group_share_members(g, m);
	else
		for (guint i = 0; i < m->ranks->len; i++)
			hd_group_set_member(g, i,
					    g_array_index(m->ranks, int, i));
	g->nranks = m->ranks->len;
	if (g_hash_table_contains(c->groups, name))
		hd_input_warn(c->in, 0, "pg_config names '%s' twice", name);
	else
		g_hash_table_insert(c->groups, hd_unconst(name),
				    GUINT_TO_POINTER(gi + 1));
	g_ptr_array_add(sets, m);
}

static void load_pg_config(struct fr_ctx *c, uint32_t cfg, GPtrArray *sets)
{
	enum pk_type type = pk_type_of(c->t, cfg);

	if (type == PK_DICT) {
		for (uint32_t i = 0; i + 1 < pk_len(c->t, cfg); i += 2)
			add_pg(c, pk_child(c->t, cfg, i),
			       pk_child(c->t, cfg, i + 1), sets);
	} else if (type == PK_LIST) {
		/* "1.2": a list; take items that look like a pg_config value */
		for (uint32_t i = 0; i < pk_len(c->t, cfg); i++)
			add_pg(c, PK_NIL, pk_child(c->t, cfg, i), sets);
	} else if (cfg != PK_NIL) {
		hd_input_warn(c->in, 0, "pg_config is neither dict nor list");
	}
}

/*
 * The rank: file name digits confirmed by membership in every PG, else the
 * single rank every PG has in common.
 */
static int decide_rank(struct fr_ctx *c, GPtrArray *sets)
{
	int named = parsers_rank_from_filename(c->in->path);
	int common = -1, ncommon = 0;
	bool named_ok = true;

	if (sets->len == 0)
		return named;
	/* O(log n) a set: every dump's world group is as long as the job */
	for (guint s = 0; named >= 0 && s < sets->len && named_ok; s++)
		named_ok =
			hd_members_contains(g_ptr_array_index(sets, s), named);
	if (named < 0 || !named_ok) {
		const struct hd_members *first = g_ptr_array_index(sets, 0);

		for (uint32_t i = 0; i < first->nsorted; i++) {
			int r = first->sorted[i];
			bool all = true;

			if (i > 0 && r == first->sorted[i - 1])
				continue;
			for (guint s = 1; s < sets->len && all; s++)
				all = hd_members_contains(
					g_ptr_array_index(sets, s), r);
			if (all) {
				common = r;
				ncommon++;
			}
		}
	}
	if (named >= 0 && named_ok)
		return named;
	if (named >= 0 && ncommon == 1) {
		hd_input_warn(c->in, 0,
			      "file name says rank %d but every "
			      "process group holds rank %d: using %d",
			      named, common, common);
		return common;
	}
	if (named >= 0) {
		hd_input_warn(c->in, 0,
			      "rank %d from the file name is not in "
			      "every process group",
			      named);
		return named;
	}
	if (ncommon == 1)
		return common;
	hd_input_warn(c->in, 0,
		      "cannot tell the rank: no digits in the file "
		      "name and the process groups share %d ranks",
		      ncommon);
	return -1;
}

/* Appends the decimal form of v >= 0 (printf is most of the parse cost). */
static void append_dim(GString *b, int64_t v)
{
	char tmp[24];
	size_t n = sizeof(tmp);

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	g_string_append_len(b, tmp + n, (gssize)(sizeof(tmp) - n));
}

/*
 * Whether the signature just built in c->sig is the one last holds; if not,
 * last takes it (and the caller computes the new result).
 */
static bool same_as_last(struct fr_ctx *c, struct fr_last *last)
{
	struct fr_sig *a = &c->sig, *b = &last->sig;

	if (last->value && a->n == b->n &&
	    memcmp(a->v, b->v, a->n * sizeof(int64_t)) == 0)
		return true;
	b->n = 0;
	for (size_t i = 0; i < a->n; i++)
		sig_add(b, a->v[i]);
	return false;
}

/*
 * Renders sizes as "[[4, 4], [8]]" and sums numel; -1 when unknown.  The
 * text and count depend only on each shape's length and list-ness and
 * each dim (-1 for one that is not an int >= 0), so those are the
 * signature compared with the last entry's.
 */
static const char *render_sizes(struct fr_ctx *c, uint32_t id, int64_t *numel,
				struct fr_last *last)
{
	const struct pk_tree *t = c->t;
	const int64_t *sig;
	GString *b = c->buf;
	int64_t total = 0;
	bool ok = true;
	size_t at = 0;

	if (pk_type_of(t, id) != PK_LIST) {
		*numel = -1;
		return NULL;
	}
	c->sig.n = 0;
	for (uint32_t i = 0; i < t->node[id].len; i++) {
		uint32_t shape = t->kid[t->node[id].v.off + i];
		uint32_t n = pk_len(t, shape);
		const uint32_t *dims = n ? t->kid + t->node[shape].v.off : NULL;

		sig_add(&c->sig,
			(int64_t)n * 2 + (t->node[shape].type == PK_LIST));
		for (uint32_t k = 0; k < n; k++) {
			int64_t d;

			if (!pk_int(t, dims[k], &d) || d < 0)
				d = -1;
			sig_add(&c->sig, d);
		}
	}
	if (same_as_last(c, last)) {
		*numel = last->numel;
		return last->value;
	}
	sig = c->sig.v;
	g_string_truncate(b, 0);
	g_string_append_c(b, '[');
	for (uint32_t i = 0; at < c->sig.n; i++) {
		uint32_t n = (uint32_t)(sig[at] / 2);
		bool list = sig[at++] % 2;
		int64_t prod = 1;

		g_string_append(b, i ? ", [" : "[");
		for (uint32_t k = 0; k < n; k++) {
			int64_t d = sig[at++];

			if (d < 0) {
				g_string_append(b, k ? ", ?" : "?");
				ok = false;
				continue;
			}
			if (k)
				g_string_append_len(b, ", ", 2);
			append_dim(b, d);
			if (d != 0 && prod > G_MAXINT64 / d)
				ok = false;
			else
				prod *= d;
		}
		if (!list)
			ok = false;
		g_string_append_c(b, ']');
		if (ok && total > G_MAXINT64 - prod)
			ok = false;
		else if (ok)
			total += prod;
	}
	g_string_append_c(b, ']');
	last->numel = *numel = ok ? total : -1;
	last->value = intern_local(c, b->str);
	return last->value;
}

/*
 * The dtypes' source spelling ("Float,Float->Float") and type.  Dtype
 * strings are memoized, so the two lists' lengths and child node ids are
 * the signature compared with the last entry's.
 */
static void render_dtypes(struct fr_ctx *c, uint32_t in, uint32_t out,
			  struct hd_opdesc *d)
{
	struct fr_last *last = &c->last_dtypes;
	GString *b = c->buf;
	uint32_t first = PK_NIL;
	const char *s;
	char name[64];
	size_t len;

	if (in == PK_NIL && out == PK_NIL)
		return;
	c->sig.n = 0;
	for (int side = 0; side < 2; side++) {
		uint32_t l = side ? out : in;

		sig_add(&c->sig, pk_len(c->t, l));
		for (uint32_t i = 0; i < pk_len(c->t, l); i++)
			sig_add(&c->sig, pk_child(c->t, l, i));
	}
	if (same_as_last(c, last)) {
		d->dtype = last->dtype;
		d->dtype_name = last->value;
		return;
	}
	g_string_truncate(b, 0);
	for (int side = 0; side < 2; side++) {
		uint32_t l = side ? out : in;

		if (side)
			g_string_append(b, "->");
		for (uint32_t i = 0; i < pk_len(c->t, l); i++) {
			uint32_t k = pk_child(c->t, l, i);

			/* only the rendered whole is kept, and interned */
			s = node_bytes(c, k, &len);
			if (i)
				g_string_append_c(b, ',');
			if (s)
				g_string_append_len(b, s,
						    (gssize)strnlen(s, len));
			else
				g_string_append_c(b, '?');
			if (s && first == PK_NIL && side == 0)
				first = k;
		}
	}
	if (first == PK_NIL && node_bytes(c, pk_child(c->t, out, 0), &len))
		first = pk_child(c->t, out, 0);
	/* dtype strings are memoized: the same node is the same spelling */
	if (first == PK_NIL || first != c->last_first) {
		s = node_bytes(c, first, &len);
		if (s && len < sizeof(name)) {
			memcpy(name, s, len);
			name[len] = '\0';
			c->last_dtype = hd_dtype_parse(name);
		} else {
			c->last_dtype = HD_DTYPE_UNKNOWN;
		}
		c->last_first = first;
	}
	d->dtype = c->last_dtype;
	if (first != PK_NIL && d->dtype == HD_DTYPE_UNKNOWN)
		d->dtype = HD_DTYPE_OTHER;
	d->dtype_name = intern_local(c, b->str);
	last->dtype = d->dtype;
	last->value = d->dtype_name;
}

/* Frames, innermost first, deduplicated within the file. */
static int32_t add_stack(struct fr_ctx *c, uint32_t frames)
{
	gpointer v;
	uint32_t n = pk_len(c->t, frames);
	g_autoptr(GBytes) key = NULL;
	g_autoptr(GArray) fr = NULL;
	const uint32_t *kids;
	int32_t sid;

	if (pk_type_of(c->t, frames) != PK_LIST || n == 0)
		return -1;
	/*
	 * Frame dicts are memoized: the same kids are the same stack, whether
	 * or not the list itself is shared.
	 */
	kids = c->t->kid + pk_node(c->t, frames)->v.off;
	if (c->last_frames && n == c->last_nframes &&
	    memcmp(kids, c->last_frames, n * sizeof(uint32_t)) == 0)
		return c->last_sid;
	v = g_hash_table_lookup(c->stack_by_node, GUINT_TO_POINTER(frames));
	if (v)
		return GPOINTER_TO_INT(v) - 1;
	key = g_bytes_new(kids, n * sizeof(uint32_t));
	v = g_hash_table_lookup(c->stack_by_kids, key);
	if (v) {
		sid = GPOINTER_TO_INT(v) - 1;
	} else {
		fr = g_array_sized_new(FALSE, FALSE, sizeof(struct hd_frame),
				       n);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t f = pk_child(c->t, frames, i);
			struct hd_frame hf = { 0 };
			int64_t line = 0;

			hf.name = node_text(c, pk_dict_get(c->t, f, "name"));
			hf.file =
				node_text(c, pk_dict_get(c->t, f, "filename"));
			if (pk_int(c->t, pk_dict_get(c->t, f, "line"), &line) &&
			    line >= 0 && line <= G_MAXINT)
				hf.line = (int)line;
			g_array_append_val(fr, hf);
		}
		sid = hd_store_add_stack(
			c->store, (const struct hd_frame *)(void *)fr->data,
			fr->len);
		g_hash_table_insert(c->stack_by_kids, g_steal_pointer(&key),
				    GINT_TO_POINTER(sid + 1));
	}
	g_hash_table_insert(c->stack_by_node, GUINT_TO_POINTER(frames),
			    GINT_TO_POINTER(sid + 1));
	c->last_frames = kids;
	c->last_nframes = n;
	c->last_sid = sid;
	return sid;
}

/* The group of an entry from its process_group name. */
static uint32_t entry_group(struct fr_ctx *c, const char *name)
{
	gpointer v;
	g_autofree char *id = NULL;
	uint32_t gi;

	if (!name)
		name = hd_intern("?");
	/* a name, once in c->groups, keeps its group */
	if (name == c->last_pg)
		return c->last_group;
	v = g_hash_table_lookup(c->groups, name);
	if (v) {
		c->last_pg = name;
		c->last_group = GPOINTER_TO_UINT(v) - 1;
		return c->last_group;
	}
	if (warn_once(c, "pg", name))
		hd_input_warn(c->in, 0,
			      "process group '%s' is not in "
			      "pg_config",
			      name);
	id = g_strdup_printf("pg:%s:?", name);
	gi = hd_store_group(c->store, id);
	if (!hd_store_group_at(c->store, gi)->name)
		hd_store_group_at(c->store, gi)->name = g_strdup(name);
	g_hash_table_insert(c->groups, hd_unconst(name),
			    GUINT_TO_POINTER(gi + 1));
	return gi;
}

static int64_t time_or_unknown(struct fr_ctx *c, uint32_t id)
{
	int64_t v;

	if (!pk_int(c->t, id, &v) || v == 0)
		return INT64_MIN;
	return v;
}

/* "send 1->0", "recv 0<-1", "recv 1<-?": the peer part. */
static void parse_peer(const char *rest, struct hd_op *op, struct hd_opdesc *d)
{
	const char *arrow = strstr(rest, "->");

	if (!arrow)
		arrow = strstr(rest, "<-");
	if (!arrow)
		return;
	arrow += 2;
	if (*arrow == '?') {
		op->flags |= HD_OPF_ANY_SOURCE;
		return;
	}
	if (g_ascii_isdigit(*arrow)) {
		gint64 v = g_ascii_strtoll(arrow, NULL, 10);

		if (v >= 0 && v <= G_MAXINT32)
			d->peer = (int32_t)v;
	}
}

/* profiling_name -> kind, name, peer. */
static void parse_profiling_name_once(struct fr_ctx *c, const char *pn,
				      uint64_t idx, struct hd_op *op,
				      struct hd_opdesc *d)
{
	const char *colon = strrchr(pn, ':');
	const char *opn = colon ? colon + 1 : pn;
	const char *sp = strchr(opn, ' ');
	const char *name = sp ? hd_intern_len(opn, sp - opn) : hd_intern(opn);

	if (!colon && warn_once(c, "noback", pn))
		hd_input_warn(c->in, 0,
			      "entry %" G_GUINT64_FORMAT ": "
			      "profiling_name '%s' has no backend",
			      idx, pn);
	d->name = name;
	/* The coalescing end-markers are not the collectives they close. */
	if (strcmp(name, "coalesced") == 0 ||
	    strcmp(name, "ALLGATHER_coalesced") == 0 ||
	    strcmp(name, "REDUCE_SCATTER_coalesced") == 0)
		op->kind = HD_OP_COALESCED;
	else
		op->kind = hd_op_kind_parse(name);
	if (op->kind == HD_OP_UNKNOWN && warn_once(c, "op", name))
		hd_input_warn(c->in, 0,
			      "entry %" G_GUINT64_FORMAT ": unknown "
			      "op '%s'",
			      idx, name);
	if (sp)
		parse_peer(sp + 1, op, d);
}

/*
 * The same, parsed once per distinct name (the string node id): every entry
 * after the first with the same name takes the cached result (warnings are
 * once per name anyway).  Only the op name is interned, not the whole
 * profiling_name, which a hostile dump can make distinct every time.
 */
static void parse_profiling_name(struct fr_ctx *c, uint32_t id, uint64_t idx,
				 struct hd_op *op, struct hd_opdesc *d)
{
	struct fr_name *fn = NULL;
	size_t len;
	const char *raw;
	char *pn;
	bool bad = false;

	if (id == c->last_pn) {
		fn = c->last_fn;
	} else {
		raw = node_bytes(c, id, &len);
		g_string_assign(c->buf, "");
		bad = raw && pk_str_bad(c->t, id);
		if (bad) {
			/* "\1": never the key of a name that was read */
			g_autofree char *esc = escape_bad_text(raw, len);

			g_string_append_c(c->buf, '\1');
			g_string_append(c->buf, esc);
		} else {
			g_string_append_len(c->buf, raw, (gssize)len);
		}
		fn = g_hash_table_lookup(c->names, c->buf->str);
	}
	if (!fn) {
		pn = g_strdup(c->buf->str);
		struct hd_op tmp;
		struct hd_opdesc td = hd_opdesc_blank;

		hd_op_init(&tmp);
		if (bad)
			/* a corrupt name is no op type: never compared */
			hd_input_warn(
				c->in, 0,
				"entry %" G_GUINT64_FORMAT
				": profiling_name '%s' holds a NUL byte or bytes that are not UTF-8: its op type is unknown and not compared",
				idx, pn + 1);
		else
			parse_profiling_name_once(c, pn, idx, &tmp, &td);
		fn = g_new(struct fr_name, 1);
		fn->name = td.name;
		fn->kind = tmp.kind;
		fn->flags = tmp.flags;
		fn->peer = td.peer;
		g_hash_table_insert(c->names, pn, fn);
	}
	c->last_pn = id;
	c->last_fn = fn;
	d->name = fn->name;
	op->kind = fn->kind;
	op->flags |= fn->flags;
	if (fn->peer >= 0)
		d->peer = fn->peer;
}

/* An entry's state; a spelling seen before maps as it did then. */
static void entry_state(struct fr_ctx *c, uint32_t id, uint64_t idx,
			struct hd_op *op)
{
	size_t len;
	const char *st;
	enum hd_op_state state;

	if (id != PK_NIL && id == c->last_state) {
		op->state = c->last_op_state;
		return;
	}
	st = node_bytes(c, id, &len);
	if (node_is(st, len, "scheduled"))
		state = HD_STATE_ENQUEUED;
	else if (node_is(st, len, "started"))
		state = HD_STATE_STARTED;
	else if (node_is(st, len, "completed"))
		state = HD_STATE_COMPLETED;
	else {
		g_autofree char *text = st ? g_strndup(st, len) : g_strdup("?");

		if (warn_once(c, "state", text))
			hd_input_warn(c->in, 0,
				      "entry %" G_GUINT64_FORMAT
				      ": unknown state '%s'",
				      idx, text);
		return;
	}
	op->state = state;
	c->last_state = id;
	c->last_op_state = state;
}

/* Entry idx (the dict node en) into *op. */
static void load_entry(struct fr_ctx *c, const struct pk_node *en, uint64_t idx,
		       struct hd_op *op)
{
	const uint32_t *kv = c->t->kid + en->v.off;
	const uint32_t nkv = en->len, nstr = c->nstr;
	const uint8_t *field = c->field; /* field_first() writes, not moves */
	uint32_t v[F_COUNT];
	int64_t x;
	bool p2p = false;
	const char *pg_name = NULL;
	struct hd_opdesc d = hd_opdesc_blank;
	struct hd_prov prov = { 0 };

	c->entry = (int64_t)idx;
	for (int f = 0; f < F_COUNT; f++)
		v[f] = PK_NIL;
	/* the caller checked en is a dict: children are key, value, ... */
	for (uint32_t i = 0; i + 1 < nkv; i += 2) {
		enum fr_field f = kv[i] < nstr && field[kv[i]] != F_UNSEEN
					  ? field[kv[i]]
					  : field_of(c, kv[i]);

		if (f == F_UNKNOWN) {
			size_t len;
			const char *raw = node_bytes(c, kv[i], &len);
			g_autofree char *s = raw ? g_strndup(raw, len) : NULL;

			if (s && warn_once(c, "key", s))
				hd_input_warn(c->in, 0,
					      "entry %" G_GUINT64_FORMAT
					      ": unknown key '%s' ignored",
					      idx, s);
			continue;
		}
		v[f] = kv[i + 1];
	}
	hd_op_init(op);
	hd_op_set_rank(op, c->rank);
	if (pk_type_of(c->t, v[F_PROFILING_NAME]) == PK_STR)
		parse_profiling_name(c, v[F_PROFILING_NAME], idx, op, &d);
	else
		hd_input_warn(c->in, 0,
			      "entry %" G_GUINT64_FORMAT ": no profiling_name",
			      idx);
	if (pk_type_of(c->t, v[F_PROCESS_GROUP]) == PK_TUPLE ||
	    pk_type_of(c->t, v[F_PROCESS_GROUP]) == PK_LIST)
		pg_name = node_text(c, pk_child(c->t, v[F_PROCESS_GROUP], 0));
	else if (pk_type_of(c->t, v[F_PROCESS_GROUP]) == PK_STR)
		pg_name = node_text(c, v[F_PROCESS_GROUP]);
	op->group = entry_group(c, pg_name);
	/* once pg_names holds an id it keeps it: skip the last one's lookup */
	if (pg_name && pk_int(c->t, v[F_PG_ID], &x) &&
	    !(c->have_pg_id && x == c->last_pg_id)) {
		if (!g_hash_table_contains(c->pg_names, &x)) {
			int64_t *kp = g_new(int64_t, 1);

			*kp = x;
			g_hash_table_insert(c->pg_names, kp,
					    hd_unconst(pg_name));
		}
		c->last_pg_id = x;
		c->have_pg_id = true;
	}
	if (pk_int(c->t, v[F_IS_P2P], &x))
		p2p = x != 0;
	if (hd_op_kind_is_p2p(op->kind))
		p2p = true;
	if (p2p && pk_int(c->t, v[F_P2P_SEQ], &x)) {
		hd_op_set_seq(op, x);
		op->seq_kind = HD_SEQ_P2P;
	} else if (pk_int(c->t, v[F_COLL_SEQ], &x) ||
		   pk_int(c->t, v[F_SEQ_ID], &x)) {
		hd_op_set_seq(op, x);
		op->seq_kind = HD_SEQ_COLLECTIVE;
	}
	if (!p2p)
		d.peer = -1;
	d.shape_in = render_sizes(c, v[F_INPUT_SIZES], &d.count_in,
				  &c->last_sizes[0]);
	d.shape_out = render_sizes(c, v[F_OUTPUT_SIZES], &d.count_out,
				   &c->last_sizes[1]);
	render_dtypes(c, v[F_INPUT_DTYPES], v[F_OUTPUT_DTYPES], &d);
	hd_op_set_desc(op, hd_opdesc_intern(&d));
	if (v[F_STATE] != PK_NIL)
		entry_state(c, v[F_STATE], idx, op);
	if (pk_int(c->t, v[F_RETIRED], &x) && x)
		op->flags |= HD_OPF_RETIRED;
	/* time_created_ns and the others: the host's clock, UTC */
	c->in->op_clock = HD_CLOCK_UTC;
	hd_op_set_times(c->store, op, time_or_unknown(c, v[F_TIME_CREATED]),
			time_or_unknown(c, v[F_T_STARTED]),
			time_or_unknown(c, v[F_T_COMPLETED]));
	if (v[F_FRAMES] != PK_NIL)
		hd_op_set_stack(c->store, op, add_stack(c, v[F_FRAMES]));
	prov.input = c->input;
	prov.kind = HD_PROV_RECORD;
	prov.at =
		pk_int(c->t, v[F_RECORD_ID], &x) && x >= 0 ? (uint64_t)x : idx;
	hd_op_set_prov(c->store, op, &prov);
}

/* Members of a coalesced group share the seq of the marker that ends it. */
static void mark_coalesced(struct hd_op *ops, guint nops)
{
	for (guint j = 0; j < nops; j++) {
		if (ops[j].kind != HD_OP_COALESCED || ops[j].seq < 0)
			continue;
		for (guint i = j, n = 0; i > 0 && n < FR_COALESCE_LOOKBACK;
		     n++) {
			struct hd_op *o = &ops[--i];

			if (o->group != ops[j].group)
				continue;
			if (o->seq != ops[j].seq ||
			    o->seq_kind != ops[j].seq_kind ||
			    o->kind == HD_OP_COALESCED)
				break;
			o->flags |= HD_OPF_COALESCED_MEMBER;
		}
	}
}

static void load_pg_status(struct fr_ctx *c, uint32_t st)
{
	guint ncfg = g_hash_table_size(c->groups);

	if (pk_type_of(c->t, st) != PK_DICT) {
		if (st != PK_NIL)
			hd_input_warn(c->in, 0, "pg_status is not a dict");
		return;
	}
	for (uint32_t i = 0; i + 1 < pk_len(c->t, st); i += 2) {
		uint32_t k = pk_child(c->t, st, i),
			 val = pk_child(c->t, st, i + 1);
		const char *name = NULL;
		struct hd_signal sig;
		int64_t pg_id, x;

		if (!get_int(c, k, &pg_id)) {
			hd_input_warn(c->in, 0, "pg_status key is not a pg id");
			continue;
		}
		name = g_hash_table_lookup(c->pg_names, &pg_id);
		if (!name && ncfg == 1) {
			GHashTableIter it;
			gpointer key;

			g_hash_table_iter_init(&it, c->groups);
			if (g_hash_table_iter_next(&it, &key, NULL))
				name = key;
		}
		/* as many keys as groups: interning them costs no more */
		if (!name && pk_len(c->t, st) / 2 == ncfg) {
			const char *ks = node_text(c, k);

			if (ks && g_hash_table_contains(c->groups, ks))
				name = ks;
		}
		if (!name) {
			hd_input_warn(c->in, 0,
				      "pg_status for pg_id %" G_GINT64_FORMAT
				      " maps to no process group: skipped",
				      pg_id);
			continue;
		}
		hd_signal_init(&sig);
		sig.cat = HD_SIG_PROGRESS;
		sig.type = HD_SIGT_PG_STATUS;
		sig.rank = c->rank;
		sig.group_name = name;
		if (get_int(c,
			    pk_dict_get(c->t, val, "last_enqueued_collective"),
			    &x))
			sig.last_enqueued = x;
		if (get_int(c,
			    pk_dict_get(c->t, val, "last_completed_collective"),
			    &x))
			sig.last_completed = x;
		if (get_int(c,
			    pk_dict_get(c->t, val, "last_started_collective"),
			    &x))
			sig.seq = x;
		sig.prov.input = c->input;
		sig.prov.kind = HD_PROV_NONE;
		hd_store_add_signal(c->store, &sig);
	}
}

/* "2.10" -> 2010; -1 when unreadable. */
static int version_num(const char *v)
{
	gint64 maj, min = 0;
	char *end;

	if (!v)
		return -1;
	maj = g_ascii_strtoll(v, &end, 10);
	if (end == v || maj < 0 || maj > 1000)
		return -1;
	if (*end == '.')
		min = g_ascii_strtoll(end + 1, NULL, 10);
	if (min < 0 || min > 999)
		return -1;
	return (int)(maj * 1000 + min);
}

static const char *const top_keys[] = {
	"version",	   "pg_config",	   "pg_status",	       "entries",
	"nccl_comm_state", "nccl_version", "comm_lib_version",
};

/* Whether node id is a dict the file closed itself (an entry to load). */
static bool is_whole_dict(const struct pk_tree *t, uint32_t id)
{
	const struct pk_node *n = pk_node(t, id);

	return n && n->type == PK_DICT && !(n->flags & PK_F_PARTIAL);
}

static bool load_tree(struct fr_ctx *c, GError **error)
{
	struct pk_tree *t = c->t;
	uint32_t root = t->root, entries = PK_NIL, cfg = PK_NIL, st = PK_NIL;
	g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(
		(GDestroyNotify)hd_members_unref);
	const char *version = NULL, *libver = NULL;
	uint32_t n, kept = 0, lost = 0;
	guint base;

	if (pk_type_of(t, root) == PK_LIST) {
		entries = root;
	} else if (pk_type_of(t, root) == PK_DICT) {
		for (uint32_t i = 0; i + 1 < pk_len(t, root); i += 2) {
			uint32_t k = pk_child(t, root, i);
			uint32_t v = pk_child(t, root, i + 1);
			size_t kl;
			const char *ks = node_bytes(c, k, &kl);
			bool known = false;

			for (size_t j = 0; ks && j < G_N_ELEMENTS(top_keys);
			     j++)
				known = known || node_is(ks, kl, top_keys[j]);
			if (!known) {
				g_autofree char *u =
					ks ? g_strndup(ks, kl) : g_strdup("?");

				hd_input_warn(c->in, 0,
					      "unknown key '%s' ignored", u);
				continue;
			}
			if (node_is(ks, kl, "version"))
				version = node_text(c, v);
			else if (node_is(ks, kl, "pg_config"))
				cfg = v;
			else if (node_is(ks, kl, "pg_status"))
				st = v;
			else if (node_is(ks, kl, "entries"))
				entries = v;
			else if (node_is(ks, kl, "nccl_version") ||
				 node_is(ks, kl, "comm_lib_version"))
				libver = node_text(c, v);
		}
	} else {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "not a flight-recorder dump%s%s",
			    t->message ? ": " : "",
			    t->message ? t->message : "");
		return false;
	}
	if (version && version_num(version) > 2011)
		hd_input_warn(c->in, 0,
			      "dump version %s is newer than any "
			      "known; reading it by key",
			      version);
	load_pg_config(c, cfg, sets);
	if (pk_type_of(t, root) == PK_DICT && cfg == PK_NIL)
		hd_input_warn(c->in, 0, "no pg_config: group members unknown");
	c->rank = decide_rank(c, sets);
	c->in->rank = c->rank;
	if (c->rank >= 0) {
		struct hd_rank *r = hd_store_rank(c->store, c->rank);

		hd_rank_add_input(r, c->input);
		if (libver && *libver && !g_str_has_prefix(libver, "Unknown") &&
		    !r->nccl_version)
			r->nccl_version = libver;
	}
	if (entries == PK_NIL && pk_type_of(t, root) == PK_DICT &&
	    !(pk_node(t, root)->flags & PK_F_PARTIAL))
		hd_input_warn(c->in, 0,
			      "no entries: collectives were not "
			      "requested in this dump");
	else if (entries != PK_NIL && pk_type_of(t, entries) != PK_LIST)
		hd_input_warn(c->in, 0, "entries is not a list");
	n = pk_len(t, entries);
	/* the ops go straight into the store: room for the whole dicts */
	base = c->store->ops->len;
	for (uint32_t i = 0; i < n; i++)
		if (is_whole_dict(t, pk_child(t, entries, i)))
			kept++;
	g_array_set_size(c->store->ops, base + kept);
	kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t e = pk_child(t, entries, i);
		const struct pk_node *en = pk_node(t, e);

		if (!is_whole_dict(t, e)) {
			if (!en || !(en->flags & PK_F_PARTIAL))
				hd_input_warn(c->in, 0,
					      "entry %u is not a "
					      "dict: skipped",
					      i);
			lost++;
			continue;
		}
		load_entry(c, en, i,
			   &g_array_index(c->store->ops, struct hd_op,
					  base + kept));
		kept++;
	}
	/* no ops may mean no array at all: not even a zero offset from it */
	if (kept)
		mark_coalesced(
			&g_array_index(c->store->ops, struct hd_op, base),
			kept);
	c->entry = -1;
	load_pg_status(c, st);
	c->in->records = kept;
	c->in->skipped = lost;
	if (t->status != PK_OK) {
		c->in->truncated = true;
		hd_input_warn(c->in, 0,
			      "dump %s at byte %zu (%s): kept %u "
			      "entries; lost %u partial and all after it",
			      t->status == PK_TRUNCATED ? "truncated"
							: "unreadable",
			      t->stop_at, t->message, kept, lost);
	}
	if (n == 0 && t->status == PK_OK)
		c->in->empty = true;
	return true;
}

/* Parses the len bytes in the thread's buffer. */
static bool parse_bytes(struct fr_scratch *scratch, struct hd_store *store,
			uint32_t input, size_t len, GError **error)
{
	struct hd_input *in = hd_store_input(store, input);
	const uint8_t *p = scratch->data;
	g_autoptr(pk_tree) t = NULL;
	size_t at = 0;
	struct fr_ctx c = { 0 };
	bool ok;

	c.entry = -1;
	in->bytes = len;
	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		at = 3;
	while (at < len && g_ascii_isspace(p[at]))
		at++;
	if (len >= 2 && p[0] == 0x80) {
		t = pk_decode_with(p, len, scratch->pk);
		if (t->root == PK_NIL) {
			g_set_error(error, HD_ERROR,
				    t->status == PK_ERROR && strstr(t->message,
								    "refused")
					    ? HD_ERROR_REFUSED
					    : HD_ERROR_FORMAT,
				    "unreadable pickle: %s", t->message);
			return false;
		}
	} else if (len == 1 && p[0] == 0x80) {
		/* PROTO's opcode alone: cut before its protocol byte */
		g_set_error(
			error, HD_ERROR, HD_ERROR_FORMAT,
			"unreadable pickle: input ends after its first byte");
		return false;
	} else if (at < len && (p[at] == '{' || p[at] == '[')) {
		t = fr_json_decode(p + at, len - at, at,
				   pk_scratch_limits(scratch->pk)->max_nodes,
				   error);
		if (!t)
			return false;
	} else {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "neither a pickle nor JSON");
		return false;
	}
	c.scratch = scratch;
	c.store = store;
	c.in = in;
	c.input = input;
	c.t = t;
	c.rank = -1;
	c.last_pn = PK_NIL;
	c.last_first = PK_NIL;
	c.last_state = PK_NIL;
	if (scratch->str_cap < t->str_end) {
		g_free(scratch->interned);
		g_free(scratch->field);
		scratch->str_cap = t->str_end;
		scratch->interned = g_new0(const char *, scratch->str_cap);
		scratch->field = g_new0(uint8_t, scratch->str_cap);
	}
	c.nstr = t->str_end;
	c.field = scratch->field;
	c.interned = scratch->interned;
	c.str_set = scratch->str_set;
	c.groups = g_hash_table_new(g_direct_hash, g_direct_equal);
	c.pg_names = g_hash_table_new_full(hd_int64_hash, hd_int64_equal,
					   g_free, NULL);
	c.warned = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c.render = g_hash_table_new(g_str_hash, g_str_equal);
	c.stack_by_node = g_hash_table_new(g_direct_hash, g_direct_equal);
	c.stack_by_kids =
		g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
				      (GDestroyNotify)g_bytes_unref, NULL);
	c.names =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	c.buf = g_string_new(NULL);

	ok = load_tree(&c, error);
	for (guint i = 0; i < c.str_set->len; i++) {
		uint32_t id = g_array_index(c.str_set, uint32_t, i);

		c.field[id] = F_UNSEEN;
		c.interned[id] = NULL;
	}
	g_array_set_size(c.str_set, 0);
	if (scratch->str_cap * (sizeof(char *) + 1) > FR_KEEP_MAX) {
		g_clear_pointer(&scratch->interned, g_free);
		g_clear_pointer(&scratch->field, g_free);
		scratch->str_cap = 0;
	}
	g_hash_table_unref(c.groups);
	g_hash_table_unref(c.pg_names);
	g_hash_table_unref(c.warned);
	g_hash_table_unref(c.render);
	g_hash_table_unref(c.stack_by_node);
	g_hash_table_unref(c.stack_by_kids);
	g_hash_table_unref(c.names);
	g_string_free(c.buf, TRUE);
	sig_clear(&c.sig);
	for (int i = 0; i < 2; i++)
		sig_clear(&c.last_sizes[i].sig);
	sig_clear(&c.last_dtypes.sig);
	return ok;
}

bool flight_rec_parse(struct hd_reader *rd, struct hd_store *store,
		      uint32_t input, GError **error)
{
	struct hd_input *in = hd_store_input(store, input);
	struct fr_scratch *scratch = fr_scratch_get();
	size_t len = 0;
	bool ok;

	in->kind = HD_INPUT_FLIGHT_REC;
	ok = slurp_into(rd, scratch, FR_MAX_BYTES, &len, error) &&
	     parse_bytes(scratch, store, input, len, error);
	if (scratch->cap > FR_KEEP_MAX) {
		g_free(scratch->data);
		scratch->data = NULL;
		scratch->cap = 0;
	}
	return ok;
}
