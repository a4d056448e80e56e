/*
 * A safe reader for the data subset of Python pickles (protocols 2-5), as
 * written by PyTorch's C++ pickler for flight-recorder dumps and by Python
 * tools that re-pickle them.  It builds a compact value tree and never
 * executes anything: GLOBAL, REDUCE, BUILD, object and extension opcodes
 * are refused.
 *
 * Ownership: a tree borrows the input buffer (strings point into it) and
 * owns its node arena; everything a tree returns lives as long as the tree.
 *
 * The tree is acyclic: a container cannot gain children once it is inside
 * another, so a memo reference never closes a loop, and the depth of every
 * node is known and capped at PK_MAX_DEPTH.  Shared (memoized) values are
 * one node with several parents, so node ids identify memoized strings and
 * frames.
 */
#ifndef HD_PICKLE_H
#define HD_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

/* Nesting deeper than this is refused. */
#define PK_MAX_DEPTH 64
/* "No node": a missing dict key, an empty tree. */
#define PK_NIL UINT32_MAX

enum pk_type {
	PK_NONE = 0,
	PK_BOOL,
	PK_INT,
	PK_FLOAT,
	PK_STR,
	PK_BYTES,
	PK_LIST,
	PK_TUPLE,
	PK_DICT, /* children are key, value, key, value, ... */
	PK_MARK, /* internal to the decoder, never in a finished tree */
};

enum pk_node_flags {
	PK_F_PARTIAL =
		1 << 0, /* container closed by salvage, not by the file */
	PK_F_OWNED = 1 << 1, /* string bytes live in the tree, not the input */
	PK_F_ATTACHED = 1 << 2, /* already inside a container: frozen */
	/* a PK_STR whose bytes are not UTF-8, or hold a NUL: kept as read,
	   one bad field, which consumers show escaped (never a cut) */
	PK_F_BADTEXT = 1 << 3,
	/* a PK_STR of more than PK_STR_CHECKED bytes not checked yet:
	   pk_str_bad() checks it when first asked */
	PK_F_UNCHECKED = 1 << 4,
};

/*
 * Strings up to this long are checked for UTF-8 as they are decoded;
 * longer ones (a 131,072-rank member list is 1 MB of text, which the
 * flight-recorder parser reads as raw bytes) only when a consumer asks
 * (pk_str_bad()), so that no pass over them is made for nothing.
 */
#define PK_STR_CHECKED 256

/* 16 bytes; all nodes of a tree live in one array. */
struct pk_node {
	uint8_t type; /* enum pk_type */
	uint8_t flags; /* enum pk_node_flags */
	uint16_t depth; /* 0 for scalars, 1 + deepest child for containers */
	uint32_t len; /* string bytes, or child count */
	union {
		int64_t i; /* PK_INT, PK_BOOL */
		double f; /* PK_FLOAT */
		uint64_t off; /* PK_STR/PK_BYTES: byte offset; containers:
				 index of the first child in the kid array */
	} v;
};

enum pk_status {
	PK_OK = 0,
	PK_TRUNCATED, /* input ended before STOP: the tree is salvaged */
	PK_ERROR, /* corruption or a refused opcode: salvaged up to it */
};

struct pk_scratch;

/*
 * What decoding one pickle may build (HD_BUDGET_PK_* by default): past a
 * cap decoding stops with PK_ERROR and a message naming the cap, the
 * tree salvaged as for a cut.  Strings count string and bytes nodes,
 * which PyTorch's pickler memoizes: they are the distinct strings.
 */
struct pk_limits {
	uint32_t max_nodes;
	uint32_t max_kids; /* child slots, and items on the stack */
	uint32_t max_strings;
};

struct pk_tree {
	const uint8_t *buf; /* the input, borrowed */
	size_t len;
	struct pk_node *node; /* the arena: nnodes used of node_cap */
	uint32_t nnodes, node_cap;
	uint32_t *kid; /* children of containers, by node id */
	size_t nkids, kid_cap;
	GByteArray *owned; /* bytes of PK_F_OWNED strings */
	GHashTable *cap; /* node id -> reserved child slots (relocated) */
	uint32_t root; /* PK_NIL when nothing was decoded */
	uint32_t str_end; /* 1 + the highest PK_STR/PK_BYTES node id, or 0:
			      per-string tables need no more entries */
	enum pk_status status;
	size_t stop_at; /* byte offset where decoding ended or failed */
	char *message; /* why, for PK_TRUNCATED and PK_ERROR */
	struct pk_scratch *home; /* takes the arena back on free, or NULL */
};

/*
 * Decodes len bytes of buf, which must outlive the tree.  Always returns a
 * tree: check tree->status.  On truncation or error, every container still
 * open is closed with what it held, flagged PK_F_PARTIAL, and the bottom of
 * the stack becomes the root.  (transfer full)
 */
struct pk_tree *pk_decode(const uint8_t *buf, size_t len);

/*
 * Scratch space for decoding many inputs one after the other on one thread:
 * a freed tree's node and child arrays go back to the scratch it was decoded
 * with and are reused by the next pk_decode_with(), so a large arena is
 * allocated (and zeroed by the kernel) once rather than once per input.
 * Not thread-safe: one scratch per thread, outliving its trees.
 */
struct pk_scratch *pk_scratch_new(void); /* (transfer full) */
void pk_scratch_free(struct pk_scratch *s);

/* Replaces the budget of the pickles decoded with s (tests, tools). */
void pk_scratch_set_limits(struct pk_scratch *s, const struct pk_limits *lim);

/* The budget of the pickles decoded with s.  (transfer none) */
const struct pk_limits *pk_scratch_limits(const struct pk_scratch *s);

/* pk_decode() with the arena taken from s.  (transfer full) */
struct pk_tree *pk_decode_with(const uint8_t *buf, size_t len,
			       struct pk_scratch *s);

/* An empty tree for building by hand (pk_add_*).  (transfer full) */
struct pk_tree *pk_tree_new(const uint8_t *buf, size_t len);
void pk_tree_free(struct pk_tree *t);
typedef struct pk_tree pk_tree; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(pk_tree, pk_tree_free)

/* Builders: each returns the new node's id. */
uint32_t pk_add_scalar(struct pk_tree *t, enum pk_type type, int64_t i,
		       double f);
/* Copies the string into the tree. */
uint32_t pk_add_str(struct pk_tree *t, const char *s, size_t len);
/*
 * Adds a container holding kids[0..n) (for a dict: key, value, ...).
 * Returns PK_NIL when that would nest deeper than PK_MAX_DEPTH.
 */
uint32_t pk_add_container(struct pk_tree *t, enum pk_type type,
			  const uint32_t *kids, uint32_t n);

/*
 * The accessors below are inline: the flight-recorder parser calls them a
 * few dozen times per entry, and as calls they were a tenth of its time.
 */

static inline bool pk_is_container_type(uint8_t type)
{
	return type == PK_LIST || type == PK_TUPLE || type == PK_DICT;
}

/* (transfer none); NULL for PK_NIL or a bad id */
static inline const struct pk_node *pk_node(const struct pk_tree *t,
					    uint32_t id)
{
	if (!t || id >= t->nnodes)
		return NULL;
	return &t->node[id];
}

/* The type of a node, PK_NONE for PK_NIL. */
static inline enum pk_type pk_type_of(const struct pk_tree *t, uint32_t id)
{
	const struct pk_node *n = pk_node(t, id);

	return n ? (enum pk_type)n->type : PK_NONE;
}

/* Child count of a container, 0 otherwise. */
static inline uint32_t pk_len(const struct pk_tree *t, uint32_t id)
{
	const struct pk_node *n = pk_node(t, id);

	return n && pk_is_container_type(n->type) ? n->len : 0;
}

/* Child i of a container, PK_NIL when out of range. */
static inline uint32_t pk_child(const struct pk_tree *t, uint32_t id,
				uint32_t i)
{
	const struct pk_node *n = pk_node(t, id);

	uint32_t kid;

	if (!n || !pk_is_container_type(n->type) || i >= n->len)
		return PK_NIL;
	kid = t->kid[n->v.off + i];
	/* Acyclic and capped (see the top): a child is strictly shallower. */
	g_assert(kid < t->nnodes && t->node[kid].depth < n->depth);
	return kid;
}

/*
 * The bytes of a PK_STR or PK_BYTES node (not NUL-terminated), or NULL.
 * (transfer none)
 */
const char *pk_str(const struct pk_tree *t, uint32_t id, size_t *len);
/*
 * Whether string node id holds bytes that are not UTF-8, or a NUL (what
 * PK_F_BADTEXT says, checked now for a long string).  The tree's one
 * writer after decoding: not to be called on one tree from two threads.
 */
bool pk_str_bad(struct pk_tree *t, uint32_t id);
/* Whether node id is a string equal to s. */
bool pk_str_eq(const struct pk_tree *t, uint32_t id, const char *s);
/* The value under string key in a dict, PK_NIL when absent (linear). */
uint32_t pk_dict_get(const struct pk_tree *t, uint32_t dict, const char *key);
/* An int or bool node's value into *v. */
static inline bool pk_int(const struct pk_tree *t, uint32_t id, int64_t *v)
{
	const struct pk_node *n = pk_node(t, id);

	if (!n || (n->type != PK_INT && n->type != PK_BOOL))
		return false;
	*v = n->v.i;
	return true;
}

#endif
