/*
 * The intern tables of the stores (hd-store.h): strings (hd_intern(),
 * with a per-thread budget) and op descriptors (hd_opdesc_intern()).
 * Both are thread-safe and grow linearly.  They live as long as a store
 * does: every hd_store_new() holds them (hd_intern_hold()), and the
 * hd_store_free() of the last store frees them, so a pointer handed out
 * stays valid while any store lives, and a process that frees its
 * stores (a fuzzer, a test) leaves nothing behind.
 */
#include "config.h"

#include "hd-store.h"
#include "hd-const.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "hd-banned.h"

/*
 * The intern table.  GLib's g_intern_string() keeps every quark in an
 * array that it copies, leaking the old one, each 2,048 strings: memory
 * grows with the square of the distinct strings (1 M keys of a hostile
 * dump took 2 GB).  This table grows linearly: strings are packed into a
 * GStringChunk and found through one hash set, both freed with the last
 * store.
 */
static GMutex intern_lock;
static unsigned intern_holders; /* stores alive; under intern_lock */
/* Bumped each time the tables are freed: a thread's cache of an older
   generation is stale. */
static gint intern_gen = 1;
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

/*
 * The descriptor table.  Descriptors are carved from slabs freed with the
 * string table by the release of the last store (hd_intern_release()),
 * so a pointer handed out stays valid while any store lives, and the
 * table holds at most one per op read: bounded by the input.  A
 * descriptor's id names its slab and entry (hd_opdesc_slabs, hd_op_desc());
 * slab 0 holds the blank alone, so the first slab carved is slab 1.  The
 * records budget (HD_BUDGET_INCIDENT_RECORDS) keeps the ops, and so the
 * descriptors, far below the 2^31 ids the slabs can name.
 */
#define DESC_SLAB  (1u << HD_DESC_SLAB_BITS)
#define DESC_CACHE 256

const struct hd_opdesc *hd_opdesc_slabs[HD_DESC_SLABS] = {
	[0] = &hd_opdesc_blank,
};

static GMutex desc_lock;
static GHashTable *desc_table;
static unsigned desc_nslabs = 1; /* slabs carved, slab 0 too */
static struct hd_opdesc *desc_slab;
static unsigned desc_slab_used = DESC_SLAB;
static _Thread_local const struct hd_opdesc *desc_cache[DESC_CACHE];
static _Thread_local const struct hd_opdesc *desc_last;
static _Thread_local gint desc_gen; /* intern_gen of the cache */

/* Frees every slab but the blank's.  Under desc_lock. */
static void desc_slabs_free(void)
{
	for (unsigned i = 1; i < desc_nslabs; i++) {
		g_free(hd_unconst(hd_opdesc_slabs[i]));
		hd_opdesc_slabs[i] = NULL;
	}
	desc_nslabs = 1;
	desc_slab = NULL;
	desc_slab_used = DESC_SLAB;
}

/* Carves the next slab; its ids start at its index << HD_DESC_SLAB_BITS.
   Under desc_lock. */
static void desc_slab_new(void)
{
	g_assert(desc_nslabs < HD_DESC_SLABS);
	desc_slab = g_new(struct hd_opdesc, DESC_SLAB);
	hd_opdesc_slabs[desc_nslabs++] = desc_slab;
	desc_slab_used = 0;
}

void hd_intern_hold(void)
{
	g_mutex_lock(&intern_lock);
	intern_holders++;
	g_mutex_unlock(&intern_lock);
}

void hd_intern_release(void)
{
	g_mutex_lock(&intern_lock);
	g_assert(intern_holders > 0);
	if (--intern_holders > 0) {
		g_mutex_unlock(&intern_lock);
		return;
	}
	g_clear_pointer(&intern_set, g_hash_table_unref);
	g_clear_pointer(&intern_chunk, g_string_chunk_free);
	g_mutex_lock(&desc_lock);
	g_clear_pointer(&desc_table, g_hash_table_unref);
	desc_slabs_free();
	g_atomic_int_inc(&intern_gen);
	g_mutex_unlock(&desc_lock);
	g_mutex_unlock(&intern_lock);
}

static guint desc_hash(gconstpointer p)
{
	uint64_t w[offsetof(struct hd_opdesc, id) / 8];
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

	/* a cache from before the tables were last freed points nowhere */
	if (G_UNLIKELY(desc_gen != g_atomic_int_get(&intern_gen))) {
		memset(desc_cache, 0, sizeof(desc_cache));
		desc_last = NULL;
		desc_gen = g_atomic_int_get(&intern_gen);
	}
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
		if (desc_slab_used == DESC_SLAB)
			desc_slab_new();
		found = &desc_slab[desc_slab_used];
		*found = key;
		found->id = (desc_nslabs - 1) << HD_DESC_SLAB_BITS |
			    desc_slab_used++;
		g_hash_table_add(desc_table, found);
	}
	g_mutex_unlock(&desc_lock);
	*slot = found;
	return desc_last = found;
}
