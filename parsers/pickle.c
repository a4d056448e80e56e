/*
 * The safe pickle reader: a stack machine over the data opcodes of pickle
 * protocols 2-5 that builds a node arena (pickle.h).  Every length is
 * checked against the bytes left, the memo is bounded by the input size,
 * nesting is capped, and any opcode that would import, call or build an
 * object is refused with its name and offset.
 */
#include "config.h"

#include "pickle.h"

#include <string.h>

#include "hd-budget.h"
#include "hd-banned.h"

struct pk_dec {
	struct pk_tree *t;
	const uint8_t *p;
	size_t pos;
	size_t len;
	uint32_t *st; /* the stack: node ids */
	size_t sn, scap;
	uint32_t *mk; /* marks: stack heights */
	size_t mn, mcap;
	uint32_t *memo; /* node ids, PK_NIL unset: memo_len used of memo_cap */
	size_t memo_len, memo_cap;
	GString *err;
	struct pk_limits lim;
	uint32_t nstrings; /* string and bytes nodes made */
};

/* Arenas larger than this are freed rather than kept for the next input. */
#define PK_SCRATCH_KEEP_MAX ((size_t)64 << 20)

struct pk_scratch {
	struct pk_node *node;
	size_t node_cap;
	uint32_t *kid;
	size_t kid_cap;
	uint32_t *memo;
	size_t memo_cap;
	uint32_t *st; /* the decoder's stack */
	size_t scap;
	struct pk_limits lim;
};

/* What a real dump can need: src/core/hd-budget.h says why. */
static const struct pk_limits pk_default_limits = {
	.max_nodes = HD_BUDGET_PK_NODES,
	.max_kids = HD_BUDGET_PK_KIDS,
	.max_strings = HD_BUDGET_PK_STRINGS,
};

struct pk_scratch *pk_scratch_new(void)
{
	struct pk_scratch *s = g_new0(struct pk_scratch, 1);

	s->lim = pk_default_limits;
	return s;
}

void pk_scratch_set_limits(struct pk_scratch *s, const struct pk_limits *lim)
{
	s->lim = *lim;
}

const struct pk_limits *pk_scratch_limits(const struct pk_scratch *s)
{
	return &s->lim;
}

void pk_scratch_free(struct pk_scratch *s)
{
	if (!s)
		return;
	g_free(s->node);
	g_free(s->kid);
	g_free(s->memo);
	g_free(s->st);
	g_free(s);
}

/* Whether a tree's array of cap elements should replace the scratch's. */
static bool worth_keeping(size_t cap, size_t size, size_t have_cap)
{
	return cap * size <= PK_SCRATCH_KEEP_MAX && cap > have_cap;
}

struct pk_tree *pk_tree_new(const uint8_t *buf, size_t len)
{
	struct pk_tree *t = g_new0(struct pk_tree, 1);

	t->buf = buf;
	t->len = len;
	t->owned = g_byte_array_new();
	t->cap = g_hash_table_new(g_direct_hash, g_direct_equal);
	t->root = PK_NIL;
	return t;
}

void pk_tree_free(struct pk_tree *t)
{
	if (!t)
		return;
	if (t->home && t->node &&
	    worth_keeping(t->node_cap, sizeof(struct pk_node),
			  t->home->node_cap)) {
		g_free(t->home->node);
		t->home->node = t->node;
		t->home->node_cap = t->node_cap;
	} else {
		g_free(t->node);
	}
	if (t->home && t->kid &&
	    worth_keeping(t->kid_cap, sizeof(uint32_t), t->home->kid_cap)) {
		g_free(t->home->kid);
		t->home->kid = t->kid;
		t->home->kid_cap = t->kid_cap;
	} else {
		g_free(t->kid);
	}
	g_byte_array_unref(t->owned);
	g_hash_table_unref(t->cap);
	g_free(t->message);
	g_free(t);
}

static struct pk_node *node_at(const struct pk_tree *t, uint32_t id)
{
	/* ids on the stack, in marks and in the memo are nodes made */
	g_assert(id < t->nnodes);
	return &t->node[id];
}

/* Grows *buf (of *cap elements of size) to hold at least need. */
static void *grow(void *buf, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 256;

	while (c < need)
		c *= 2;
	*cap = c;
	return g_realloc_n(buf, c, size);
}

static G_GNUC_NO_INLINE void grow_nodes(struct pk_tree *t)
{
	size_t cap = t->node_cap;

	/* inputs are capped well below 2^32 bytes, one node a byte */
	g_assert(cap < UINT32_MAX / 2);
	t->node = grow(t->node, &cap, t->nnodes + 1, sizeof(struct pk_node));
	t->node_cap = (uint32_t)cap;
}

/*
 * A node of type holding int i (or nothing): the decoder makes one for
 * almost every opcode, so this is inline and writes the node in one go.
 */
static inline uint32_t new_node_int(struct pk_tree *t, enum pk_type type,
				    int64_t i)
{
	if (G_UNLIKELY(t->nnodes == t->node_cap))
		grow_nodes(t);
	t->node[t->nnodes] = (struct pk_node){ .type = type, .v.i = i };
	return t->nnodes++;
}

static inline uint32_t new_node(struct pk_tree *t, enum pk_type type)
{
	return new_node_int(t, type, 0);
}

static void kid_reserve(struct pk_tree *t, size_t n)
{
	if (t->nkids + n > t->kid_cap)
		t->kid = grow(t->kid, &t->kid_cap, t->nkids + n,
			      sizeof(uint32_t));
}

uint32_t pk_add_scalar(struct pk_tree *t, enum pk_type type, int64_t i,
		       double f)
{
	uint32_t id = new_node_int(t, type, i);

	if (type == PK_FLOAT)
		node_at(t, id)->v.f = f;
	return id;
}

/*
 * g_utf8_validate() with its rules (no NUL byte either), eight bytes at a
 * time while the text is ASCII, which names, paths and rank lists are.
 */
static bool valid_utf8(const uint8_t *p, size_t n)
{
	size_t i = 0;

	/* 64 bytes a step, which the compiler vectorizes: 1.7 times the
	   eight-byte words before (25 to 42 GB/s on 1 MB of digits) */
	for (; i + 64 <= n; i += 64) {
		uint8_t bad = 0;

		for (int j = 0; j < 64; j++)
			bad |= (uint8_t)(p[i + j] - 1) >=
			       0x7f; /* NUL, >= 0x80 */
		if (bad)
			break;
	}
	for (; i < n; i++)
		if (p[i] == 0 || p[i] >= 0x80)
			return g_utf8_validate((const char *)p, (gssize)n,
					       NULL);
	return true;
}

uint32_t pk_add_str(struct pk_tree *t, const char *s, size_t len)
{
	uint32_t id = new_node(t, PK_STR);
	struct pk_node *n = node_at(t, id);

	n->flags = PK_F_OWNED;
	n->v.off = t->owned->len;
	t->str_end = id + 1;
	n->len = (uint32_t)MIN(len, (size_t)UINT32_MAX);
	g_byte_array_append(t->owned, (const guint8 *)s, n->len);
	/* JSON's "\u0000" is valid JSON, and one bad field */
	if (!valid_utf8((const uint8_t *)s, n->len))
		n->flags |= PK_F_BADTEXT;
	return id;
}

/*
 * Where n more children of container cn (id c) go: n slots of the kid array,
 * keeping its children contiguous.  A container whose children are not at
 * the end of the kid array moves there with room to spare, so repeated
 * batches cost amortized O(1) per child.
 */
static uint32_t *kid_slots(struct pk_tree *t, uint32_t c, struct pk_node *cn,
			   uint32_t n)
{
	uint32_t cap;
	size_t start;

	/* Only a container that had children can have been moved (below). */
	if (cn->len == 0) {
		cn->v.off = t->nkids;
		kid_reserve(t, n);
		t->nkids += n;
		return t->kid + cn->v.off;
	}
	cap = g_hash_table_size(t->cap) ? GPOINTER_TO_UINT(g_hash_table_lookup(
						  t->cap, GUINT_TO_POINTER(c)))
					: 0;
	if (cap >= cn->len + n)
		return t->kid + cn->v.off + cn->len;
	if (cap == 0 && cn->v.off + cn->len == t->nkids) {
		kid_reserve(t, n);
		t->nkids += n;
		return t->kid + cn->v.off + cn->len;
	}
	start = t->nkids;
	cap = 2 * (cn->len + n);
	kid_reserve(t, cap);
	t->nkids += cap;
	memmove(t->kid + start, t->kid + cn->v.off, cn->len * sizeof(uint32_t));
	cn->v.off = start;
	g_hash_table_insert(t->cap, GUINT_TO_POINTER(c), GUINT_TO_POINTER(cap));
	return t->kid + start + cn->len;
}

/*
 * Appends kids to container c.  Fails (false) on a frozen container, on c
 * itself among the kids, or when c would get too deep, and then changes
 * nothing.  Each child's node is read once to check it and touched once
 * more to freeze it, which cannot be one pass: a failure must not leave
 * children frozen.
 */
static bool append_kids(struct pk_tree *t, uint32_t c, const uint32_t *kids,
			uint32_t n)
{
	struct pk_node *node = t->node;
	struct pk_node *cn = &node[c];
	uint16_t depth = cn->depth;
	unsigned deepest = 0;
	uint32_t *dst;

	if (cn->flags & PK_F_ATTACHED)
		return false;
	/* for the check, c reads as too deep to be its own child */
	cn->depth = UINT16_MAX;
	for (uint32_t i = 0; i < n; i++)
		deepest = MAX(deepest, node[kids[i]].depth);
	cn->depth = depth;
	if (deepest + 1 > PK_MAX_DEPTH)
		return false;
	if (n == 0) {
		cn->depth = MAX(depth, 1);
		return true;
	}
	if ((uint64_t)cn->len + n > UINT32_MAX / 2)
		return false;
	dst = kid_slots(t, c, cn, n);
	for (uint32_t i = 0; i < n; i++) {
		dst[i] = kids[i];
		node[kids[i]].flags |= PK_F_ATTACHED;
	}
	cn->len += n;
	cn->depth = (uint16_t)MAX(depth, deepest + 1);
	return true;
}

uint32_t pk_add_container(struct pk_tree *t, enum pk_type type,
			  const uint32_t *kids, uint32_t n)
{
	uint32_t id = new_node(t, type);

	if (!append_kids(t, id, kids, n))
		return PK_NIL;
	return id;
}

static bool is_container(enum pk_type type)
{
	return pk_is_container_type(type);
}

bool pk_str_bad(struct pk_tree *t, uint32_t id)
{
	struct pk_node *n;
	size_t len;
	const char *p;

	if (id >= t->nnodes || t->node[id].type != PK_STR)
		return false;
	n = &t->node[id];
	if (n->flags & PK_F_UNCHECKED) {
		p = pk_str(t, id, &len);
		if (!valid_utf8((const uint8_t *)p, len))
			n->flags |= PK_F_BADTEXT;
		n->flags &= (uint8_t)~PK_F_UNCHECKED;
	}
	return n->flags & PK_F_BADTEXT;
}

const char *pk_str(const struct pk_tree *t, uint32_t id, size_t *len)
{
	const struct pk_node *n = pk_node(t, id);

	*len = 0;
	if (!n || (n->type != PK_STR && n->type != PK_BYTES))
		return NULL;
	*len = n->len;
	if (n->flags & PK_F_OWNED)
		return (const char *)t->owned->data + n->v.off;
	return (const char *)t->buf + n->v.off;
}

bool pk_str_eq(const struct pk_tree *t, uint32_t id, const char *s)
{
	size_t len, sl = strlen(s);
	const char *p = pk_str(t, id, &len);

	return p && len == sl && memcmp(p, s, len) == 0;
}

uint32_t pk_dict_get(const struct pk_tree *t, uint32_t dict, const char *key)
{
	uint32_t n;

	if (pk_type_of(t, dict) != PK_DICT)
		return PK_NIL;
	n = pk_len(t, dict);
	for (uint32_t i = 0; i + 1 < n; i += 2)
		if (pk_str_eq(t, pk_child(t, dict, i), key))
			return pk_child(t, dict, i + 1);
	return PK_NIL;
}

/* Decoder. */

static bool fail(struct pk_dec *d, size_t at, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

static bool fail(struct pk_dec *d, size_t at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_string_vprintf(d->err, fmt, ap);
	va_end(ap);
	g_string_append_printf(d->err, " at offset %zu", at);
	d->t->stop_at = at;
	return false;
}

static inline bool need(struct pk_dec *d, size_t n, size_t at)
{
	if (d->len - d->pos < n) {
		d->t->status = PK_TRUNCATED;
		return fail(d, at, "input ends inside an opcode");
	}
	return true;
}

static inline uint64_t rd_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline uint32_t rd_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return GUINT32_FROM_LE(v);
}

static G_GNUC_NO_INLINE void grow_stack(struct pk_dec *d)
{
	d->st = grow(d->st, &d->scap, d->sn + 1, sizeof(uint32_t));
}

static inline void push(struct pk_dec *d, uint32_t id)
{
	if (G_UNLIKELY(d->sn == d->scap))
		grow_stack(d);
	d->st[d->sn++] = id;
}

/*
 * The stack's height as the node ids and marks store it: within_limits()
 * between runs of ops keeps it near lim.max_kids, a uint32_t budget far
 * below UINT32_MAX (each op pushes at most one id).
 */
static inline uint32_t stack_len(const struct pk_dec *d)
{
	g_assert(d->sn < UINT32_MAX);
	return (uint32_t)d->sn;
}

/* Steps over an operand of n bytes need() has checked; returns its start. */
static inline const uint8_t *take(struct pk_dec *d, size_t n)
{
	g_assert(n <= d->len - d->pos);
	d->pos += n;
	return d->p + d->pos - n;
}

static inline bool pop(struct pk_dec *d, uint32_t *id, size_t at)
{
	uint32_t floor = d->mn ? d->mk[d->mn - 1] : 0;

	if (d->sn <= floor)
		return fail(d, at, "stack underflow");
	*id = d->st[d->sn - 1];
	d->sn = d->sn - 1;
	return true;
}

static inline bool top(struct pk_dec *d, uint32_t *id, size_t at)
{
	uint32_t floor = d->mn ? d->mk[d->mn - 1] : 0;

	if (d->sn <= floor)
		return fail(d, at, "stack underflow");
	*id = d->st[d->sn - 1];
	return true;
}

static inline bool pop_mark(struct pk_dec *d, uint32_t *mark, size_t at)
{
	if (d->mn == 0)
		return fail(d, at, "no mark on the stack");
	*mark = d->mk[d->mn - 1];
	d->mn = d->mn - 1;
	return true;
}

static bool memo_put(struct pk_dec *d, uint64_t key, size_t at)
{
	uint32_t id = PK_NIL;

	/* Every memo entry costs at least one byte of input. */
	if (key >= d->len || key >= UINT32_MAX)
		return fail(d, at, "memo id %" G_GUINT64_FORMAT " too large",
			    key);
	if (!top(d, &id, at))
		return false;
	if (key >= d->memo_len) {
		if (key >= d->memo_cap)
			d->memo = grow(d->memo, &d->memo_cap, key + 1,
				       sizeof(uint32_t));
		for (size_t i = d->memo_len; i < key; i++)
			d->memo[i] = PK_NIL;
		d->memo_len = key + 1;
	}
	d->memo[key] = id;
	return true;
}

/* BINGET and friends: the most common opcode in a dump, hence inline. */
static inline bool memo_get(struct pk_dec *d, uint64_t key, size_t at)
{
	uint32_t id;

	if (G_UNLIKELY(key >= d->memo_len || (id = d->memo[key]) == PK_NIL))
		return fail(d, at, "memo id %" G_GUINT64_FORMAT " not set",
			    key);
	push(d, id);
	return true;
}

static bool push_str(struct pk_dec *d, enum pk_type type, size_t n, size_t at)
{
	uint32_t id;
	struct pk_node *nd;
	bool bad;

	if (n > d->len - d->pos) {
		d->t->status = PK_TRUNCATED;
		return fail(d, at, "string of %zu bytes runs past the end", n);
	}
	if (n > UINT32_MAX)
		return fail(d, at, "string of %zu bytes too long", n);
	/* a long string is checked when a consumer asks (pk_str_bad()) */
	bad = type == PK_STR && n <= PK_STR_CHECKED &&
	      !valid_utf8(d->p + d->pos, n);
	if (d->nstrings >= d->lim.max_strings) {
		fail(d, at,
		     "more than %" G_GUINT32_FORMAT
		     " strings, the budget for a dump",
		     d->lim.max_strings);
		hd_budget_note("pickle: %s", d->err->str);
		return false;
	}
	d->nstrings++;
	id = new_node(d->t, type);
	nd = node_at(d->t, id);
	nd->v.off = d->pos;
	nd->len = (uint32_t)n;
	if (bad)
		nd->flags |= PK_F_BADTEXT;
	if (type == PK_STR && n > PK_STR_CHECKED)
		nd->flags |= PK_F_UNCHECKED;
	d->t->str_end = id + 1;
	d->pos += n;
	push(d, id);
	return true;
}

/* Little-endian two's complement of 0..8 bytes. */
static inline bool push_long(struct pk_dec *d, uint64_t n, size_t at)
{
	uint64_t u = 0;

	if (n > 8)
		return fail(d, at,
			    "integer of %" G_GUINT64_FORMAT
			    " bytes exceeds 64 bits",
			    n);
	if (!need(d, n, at))
		return false;
	if (n == 8) {
		/* what PyTorch writes for every *_ns value */
		memcpy(&u, d->p + d->pos, sizeof(u));
		u = GUINT64_FROM_LE(u);
	} else if (n > 0) {
		u = rd_le(d->p + d->pos, (unsigned)n);
		if ((u >> (8 * n - 1)) & 1)
			u |= ~(uint64_t)0 << (8 * n);
	}
	d->pos += n;
	push(d, new_node_int(d->t, PK_INT, (int64_t)u));
	return true;
}

/* Protocol 0 numbers: decimal text up to a newline. */
static bool push_text_num(struct pk_dec *d, uint8_t op, size_t at)
{
	const uint8_t *nl = memchr(d->p + d->pos, '\n', d->len - d->pos);
	char buf[64];
	size_t n;
	char *end;

	if (!nl) {
		d->t->status = PK_TRUNCATED;
		return fail(d, at, "number runs past the end");
	}
	n = (size_t)(nl - (d->p + d->pos));
	if (n == 0 || n >= sizeof(buf))
		return fail(d, at, "bad text number");
	memcpy(buf, d->p + d->pos, n);
	buf[n] = '\0';
	d->pos += n + 1;
	if (op == 'L' && buf[n - 1] == 'L')
		buf[--n] = '\0';
	if (op == 'I' && (strcmp(buf, "00") == 0 || strcmp(buf, "01") == 0)) {
		push(d, pk_add_scalar(d->t, PK_BOOL, buf[1] == '1', 0));
		return true;
	}
	if (op == 'F') {
		double f = g_ascii_strtod(buf, &end);

		if (*end)
			return fail(d, at, "bad text float");
		push(d, pk_add_scalar(d->t, PK_FLOAT, 0, f));
		return true;
	}
	{
		gint64 v;

		if (!g_ascii_string_to_signed(buf, 10, G_MININT64, G_MAXINT64,
					      &v, NULL))
			return fail(d, at, "bad text integer");
		push(d, pk_add_scalar(d->t, PK_INT, v, 0));
	}
	return true;
}

static inline bool new_container(struct pk_dec *d, enum pk_type type,
				 uint32_t from, size_t at)
{
	uint32_t n = stack_len(d) - from;
	uint32_t id;

	if (n == 0) {
		/* EMPTY_DICT, EMPTY_LIST: what pk_add_container() would do */
		id = new_node(d->t, type);
		d->t->node[id].depth = 1;
		push(d, id);
		return true;
	}
	id = pk_add_container(d->t, type, &d->st[from], n);
	if (id == PK_NIL)
		return fail(d, at, "nesting deeper than %d", PK_MAX_DEPTH);
	d->sn = from;
	push(d, id);
	return true;
}

/* Moves stack[from..] into the container at stack[from - 1]. */
static bool fill(struct pk_dec *d, enum pk_type want, uint32_t from, size_t at)
{
	uint32_t c, n = stack_len(d) - from;

	if (from == 0 || (d->mn && from <= d->mk[d->mn - 1]))
		return fail(d, at, "no container below the items");
	c = d->st[from - 1];
	if (node_at(d->t, c)->type != want)
		return fail(d, at, "items added to a non-%s",
			    want == PK_DICT ? "dict" : "list");
	if (want == PK_DICT && n % 2)
		return fail(d, at, "odd number of dict items");
	if (!append_kids(d->t, c, n ? &d->st[from] : NULL, n))
		return fail(d, at,
			    "container modified after use, or nested "
			    "deeper than %d",
			    PK_MAX_DEPTH);
	d->sn = from;
	return true;
}

static const char *refused_name(uint8_t op)
{
	switch (op) {
	case 'c':
		return "GLOBAL";
	case 0x93:
		return "STACK_GLOBAL";
	case 'R':
		return "REDUCE";
	case 'b':
		return "BUILD";
	case 'i':
		return "INST";
	case 'o':
		return "OBJ";
	case 0x81:
		return "NEWOBJ";
	case 0x92:
		return "NEWOBJ_EX";
	case 'P':
		return "PERSID";
	case 'Q':
		return "BINPERSID";
	case 0x82:
		return "EXT1";
	case 0x83:
		return "EXT2";
	case 0x84:
		return "EXT4";
	case 0x96:
		return "BYTEARRAY8";
	case 0x97:
		return "NEXT_BUFFER";
	case 0x98:
		return "READONLY_BUFFER";
	case 0x8f:
		return "EMPTY_SET";
	case 0x90:
		return "ADDITEMS";
	case 0x91:
		return "FROZENSET";
	case 'V':
		return "UNICODE";
	case 'S':
		return "STRING";
	case 'p':
		return "PUT";
	case 'g':
		return "GET";
	}
	return NULL;
}

/* Runs one opcode; false on error, truncation or STOP (d->t->status). */
static bool step(struct pk_dec *d, bool *stop)
{
	size_t at = d->pos;
	uint8_t op = d->p[d->pos++];
	uint32_t a = 0, m = 0;
	const char *name;

	switch (op) {
	case 0x80: /* PROTO */
		if (!need(d, 1, at))
			return false;
		if (d->p[d->pos] < 2 || d->p[d->pos] > 5)
			return fail(d, at, "unsupported protocol %u",
				    d->p[d->pos]);
		d->pos++;
		return true;
	case 0x95: /* FRAME: a length hint only */
		if (!need(d, 8, at))
			return false;
		d->pos += 8;
		return true;
	case '.': /* STOP */
		if (!pop(d, &a, at))
			return false;
		d->t->root = a;
		*stop = true;
		return true;
	case '(':
		if (d->mn >= PK_MAX_DEPTH)
			return fail(d, at, "nesting deeper than %d",
				    PK_MAX_DEPTH);
		a = stack_len(d);
		if (d->mn == d->mcap)
			d->mk = grow(d->mk, &d->mcap, d->mn + 1,
				     sizeof(uint32_t));
		d->mk[d->mn++] = a;
		return true;
	case '}':
		return new_container(d, PK_DICT, stack_len(d), at);
	case ']':
		return new_container(d, PK_LIST, stack_len(d), at);
	case ')':
		return new_container(d, PK_TUPLE, stack_len(d), at);
	case 'd':
		if (!pop_mark(d, &m, at))
			return false;
		if ((d->sn - m) % 2)
			return fail(d, at, "odd number of dict items");
		return new_container(d, PK_DICT, m, at);
	case 'l':
		return pop_mark(d, &m, at) && new_container(d, PK_LIST, m, at);
	case 't':
		return pop_mark(d, &m, at) && new_container(d, PK_TUPLE, m, at);
	case 0x85: /* TUPLE1..3 */
	case 0x86:
	case 0x87: {
		uint32_t n = op - 0x84;
		uint32_t floor = d->mn ? d->mk[d->mn - 1] : 0;

		if (d->sn < floor + n)
			return fail(d, at, "stack underflow");
		return new_container(d, PK_TUPLE, stack_len(d) - n, at);
	}
	case 'u': /* SETITEMS */
		return pop_mark(d, &m, at) && fill(d, PK_DICT, m, at);
	case 'e': /* APPENDS */
		return pop_mark(d, &m, at) && fill(d, PK_LIST, m, at);
	case 's': /* SETITEM */
		if (d->sn < 3)
			return fail(d, at, "stack underflow");
		return fill(d, PK_DICT, stack_len(d) - 2, at);
	case 'a': /* APPEND */
		if (d->sn < 2)
			return fail(d, at, "stack underflow");
		return fill(d, PK_LIST, stack_len(d) - 1, at);
	case '0': /* POP */
		if (d->mn && d->mk[d->mn - 1] == d->sn) {
			d->mn = d->mn - 1;
			return true;
		}
		return pop(d, &a, at);
	case '1': /* POP_MARK */
		if (!pop_mark(d, &m, at))
			return false;
		d->sn = m;
		return true;
	case '2': /* DUP */
		if (!top(d, &a, at))
			return false;
		push(d, a);
		return true;
	case 'X':
		return need(d, 4, at) &&
		       push_str(d, PK_STR, rd_u32(take(d, 4)), at);
	case 0x8c:
		return need(d, 1, at) && push_str(d, PK_STR, *take(d, 1), at);
	case 0x8d:
		return need(d, 8, at) &&
		       push_str(d, PK_STR, rd_le(take(d, 8), 8), at);
	case 'U': /* SHORT_BINSTRING (protocol 1 str): bytes */
	case 'C':
		return need(d, 1, at) && push_str(d, PK_BYTES, *take(d, 1), at);
	case 'T':
	case 'B':
		return need(d, 4, at) &&
		       push_str(d, PK_BYTES, rd_le(take(d, 4), 4), at);
	case 0x8e:
		return need(d, 8, at) &&
		       push_str(d, PK_BYTES, rd_le(take(d, 8), 8), at);
	case 'q':
		return need(d, 1, at) && memo_put(d, d->p[d->pos++], at);
	case 'r':
		return need(d, 4, at) && memo_put(d, rd_u32(take(d, 4)), at);
	case 0x94: /* MEMOIZE */
		return memo_put(d, d->memo_len, at);
	case 'h':
		return need(d, 1, at) && memo_get(d, d->p[d->pos++], at);
	case 'j':
		return need(d, 4, at) && memo_get(d, rd_u32(take(d, 4)), at);
	case 'K':
		if (!need(d, 1, at))
			return false;
		push(d, new_node_int(d->t, PK_INT, d->p[d->pos++]));
		return true;
	case 'M':
		if (!need(d, 2, at))
			return false;
		push(d, new_node_int(d->t, PK_INT,
				     (int64_t)rd_le(d->p + d->pos, 2)));
		d->pos += 2;
		return true;
	case 'J':
		if (!need(d, 4, at))
			return false;
		push(d, new_node_int(d->t, PK_INT,
				     (int32_t)rd_u32(d->p + d->pos)));
		d->pos += 4;
		return true;
	case 0x8a: /* LONG1 */
		if (!need(d, 1, at))
			return false;
		return push_long(d, d->p[d->pos++], at);
	case 0x8b: /* LONG4 */
		if (!need(d, 4, at))
			return false;
		d->pos += 4;
		return push_long(d, rd_le(d->p + d->pos - 4, 4), at);
	case 'L':
	case 'I':
	case 'F':
		return push_text_num(d, op, at);
	case 'G': {
		uint64_t u = 0;
		double f;

		if (!need(d, 8, at))
			return false;
		for (int i = 0; i < 8; i++)
			u = (u << 8) | d->p[d->pos + i];
		d->pos += 8;
		memcpy(&f, &u, sizeof(f));
		push(d, pk_add_scalar(d->t, PK_FLOAT, 0, f));
		return true;
	}
	case 0x88:
	case 0x89:
		push(d, new_node_int(d->t, PK_BOOL, op == 0x88));
		return true;
	case 'N':
		push(d, new_node(d->t, PK_NONE));
		return true;
	}
	name = refused_name(op);
	if (name)
		return fail(d, at, "refused opcode %s (0x%02x)", name, op);
	return fail(d, at, "unknown opcode 0x%02x", op);
}

/* The longest opcode run_common() takes: LONG1 with 8 bytes. */
#define PK_COMMON_MAX 10

/*
 * The opcodes PyTorch's writer emits for entries (memo fetches, small
 * ints, LONG1, None, bools, marks, empty containers, TUPLE2, SETITEMS and
 * APPENDS), with the hot state in locals: step() costs three times the
 * instructions per opcode.  It stops before an opcode it does not take,
 * one that would fail, or one within PK_COMMON_MAX bytes of the end,
 * having changed nothing for it, so that step() runs that opcode with
 * every check and message of its own.
 */
static G_GNUC_NO_INLINE void run_common(struct pk_dec *d)
{
	struct pk_tree *t = d->t;
	const uint8_t *p = d->p;
	const uint32_t *memo = d->memo;
	size_t memo_len = d->memo_len;
	size_t pos = d->pos;
	uint32_t *st = d->st;
	size_t sn = d->sn, scap = d->scap;
	uint32_t max_nodes = d->lim.max_nodes;
	size_t max_kids = d->lim.max_kids;
	size_t end;

	if (d->len - pos < PK_COMMON_MAX)
		return;
	end = d->len - PK_COMMON_MAX;
	/*
	 * Every opcode here pushes at most one item and makes at most one
	 * node; children are bounded by the stack.  The budget is checked
	 * here too: a run of NONE opcodes is one call.
	 */
	while (pos <= end && sn < scap && t->nnodes < max_nodes &&
	       t->nkids < max_kids) {
		uint8_t op = p[pos];
		uint64_t key, u = 0;
		uint32_t id, n;
		enum pk_type want;

		/* BINGET: nearly half the opcodes, ahead of the switch */
		if (op == 'h' && p[pos + 1] < memo_len &&
		    memo[p[pos + 1]] != PK_NIL) {
			st[sn++] = memo[p[pos + 1]];
			pos += 2;
			continue;
		}
		switch (op) {
		case 'h':
		case 'j':
			key = op == 'h' ? p[pos + 1] : rd_u32(p + pos + 1);
			if (key >= memo_len || memo[key] == PK_NIL)
				goto out;
			st[sn++] = memo[key];
			pos += op == 'h' ? 2 : 5;
			continue;
		case 'K':
			st[sn++] = new_node_int(t, PK_INT, p[pos + 1]);
			pos += 2;
			continue;
		case 'M':
			st[sn++] = new_node_int(t, PK_INT,
						(int64_t)rd_le(p + pos + 1, 2));
			pos += 3;
			continue;
		case 'J':
			st[sn++] = new_node_int(t, PK_INT,
						(int32_t)rd_u32(p + pos + 1));
			pos += 5;
			continue;
		case 0x8a: /* LONG1, as push_long() */
			n = p[pos + 1];
			if (n > 8)
				goto out;
			if (n == 8) {
				memcpy(&u, p + pos + 2, sizeof(u));
				u = GUINT64_FROM_LE(u);
			} else if (n > 0) {
				u = rd_le(p + pos + 2, n);
				if ((u >> (8 * n - 1)) & 1)
					u |= ~(uint64_t)0 << (8 * n);
			}
			st[sn++] = new_node_int(t, PK_INT, (int64_t)u);
			pos += 2 + n;
			continue;
		case 'N':
			st[sn++] = new_node(t, PK_NONE);
			pos++;
			continue;
		case 0x88:
		case 0x89:
			st[sn++] = new_node_int(t, PK_BOOL, op == 0x88);
			pos++;
			continue;
		case '(':
			if (d->mn >= PK_MAX_DEPTH || d->mn == d->mcap)
				goto out;
			d->mk[d->mn++] = (uint32_t)sn;
			pos++;
			continue;
		case '}':
		case ']':
			/* as new_container() with no items */
			id = new_node(t, op == '}' ? PK_DICT : PK_LIST);
			t->node[id].depth = 1;
			st[sn++] = id;
			pos++;
			continue;
		case 0x86: /* TUPLE2 */
			if (sn < (d->mn ? d->mk[d->mn - 1] : 0) + 2 ||
			    MAX(t->node[st[sn - 2]].depth,
				t->node[st[sn - 1]].depth) +
					    1 >
				    PK_MAX_DEPTH)
				goto out;
			/* cannot fail now: a new tuple, children not too deep */
			id = pk_add_container(t, PK_TUPLE, &st[sn - 2], 2);
			sn -= 2;
			st[sn++] = id;
			pos++;
			continue;
		case 'u':
		case 'e':
			/* as pop_mark() and fill(), undone by a failure */
			want = op == 'u' ? PK_DICT : PK_LIST;
			if (d->mn == 0)
				goto out;
			key = d->mk[d->mn - 1];
			if (key == 0 ||
			    (d->mn > 1 && key <= d->mk[d->mn - 2]) ||
			    t->node[st[key - 1]].type != want ||
			    (want == PK_DICT && (sn - key) % 2) ||
			    !append_kids(t, st[key - 1], &st[key],
					 (uint32_t)(sn - key)))
				goto out;
			d->mn--;
			sn = key;
			pos++;
			continue;
		}
		break;
	}
out:
	d->pos = pos;
	d->sn = sn;
}

/*
 * Closes every open mark with what it holds, innermost first, so entries
 * completed before a cut survive.  Containers closed here are PARTIAL;
 * anything that cannot be placed (a tuple's items, a dangling dict key) is
 * dropped.
 */
static void salvage(struct pk_dec *d)
{
	/*
	 * The last object pushed may still have been waiting for its items
	 * (EMPTY_DICT cut before MARK): it cannot count as complete.
	 */
	if (d->sn) {
		uint32_t last = d->st[d->sn - 1];

		if (is_container(node_at(d->t, last)->type))
			node_at(d->t, last)->flags |= PK_F_PARTIAL;
	}
	while (d->mn) {
		uint32_t m = d->mk[d->mn - 1];
		uint32_t n = stack_len(d) - m;

		d->mn = d->mn - 1;
		if (m > 0) {
			uint32_t c = d->st[m - 1];
			struct pk_node *cn = node_at(d->t, c);

			if (cn->type == PK_DICT)
				n -= n % 2;
			if ((cn->type == PK_DICT || cn->type == PK_LIST) &&
			    append_kids(d->t, c, n ? &d->st[m] : NULL, n))
				node_at(d->t, c)->flags |= PK_F_PARTIAL;
		}
		d->sn = m;
	}
	if (d->sn)
		d->t->root = d->st[0];
}

/*
 * Whether the tree is still within the decoder's budget; else says which
 * part ran out.  One opcode adds at most one node or stack item, so
 * checking between opcodes keeps every array within a few of its cap.
 */
static bool within_limits(struct pk_dec *d)
{
	const struct pk_tree *t = d->t;

	if (t->nnodes >= d->lim.max_nodes)
		fail(d, d->pos,
		     "more than %" G_GUINT32_FORMAT
		     " nodes, the budget for a dump",
		     d->lim.max_nodes);
	else if (t->nkids >= d->lim.max_kids || d->sn >= d->lim.max_kids)
		fail(d, d->pos,
		     "more than %" G_GUINT32_FORMAT
		     " items in containers, the budget for a dump",
		     d->lim.max_kids);
	else
		return true;
	hd_budget_note("pickle: %s", d->err->str);
	return false;
}

struct pk_tree *pk_decode_with(const uint8_t *buf, size_t len,
			       struct pk_scratch *s)
{
	struct pk_dec d = {
		.p = buf,
		.len = len,
	};
	/*
	 * FR dumps hold about one node per 5 bytes and one child per 2.5 (keys
	 * and repeated strings are memo references): reserve that much up
	 * front so the arena is not copied as it grows.
	 */
	const struct pk_limits *lim = s ? &s->lim : &pk_default_limits;
	size_t node_want = MIN(len / 5 + 256, (size_t)lim->max_nodes + 1);
	size_t kid_want = MIN(len / 2 + 256, (size_t)lim->max_kids + 1);
	bool stop = false;

	d.lim = *lim;
	d.t = pk_tree_new(buf, len);
	d.t->home = s;
	if (s && s->node_cap >= node_want) {
		d.t->node = g_steal_pointer(&s->node);
		d.t->node_cap = (uint32_t)s->node_cap;
		s->node_cap = 0;
	} else {
		d.t->node_cap = (uint32_t)node_want;
		d.t->node = g_new(struct pk_node, d.t->node_cap);
	}
	if (s && s->kid_cap >= kid_want) {
		d.t->kid = g_steal_pointer(&s->kid);
		d.t->kid_cap = s->kid_cap;
		s->kid_cap = 0;
	} else {
		d.t->kid_cap = kid_want;
		d.t->kid = g_new(uint32_t, d.t->kid_cap);
	}
	if (s) {
		d.memo = g_steal_pointer(&s->memo);
		d.memo_cap = s->memo_cap;
		s->memo_cap = 0;
		d.st = g_steal_pointer(&s->st);
		d.scap = s->scap;
		s->scap = 0;
	}
	d.err = g_string_new(NULL);
	while (!stop) {
		run_common(&d);
		if (!within_limits(&d)) {
			d.t->status = PK_ERROR;
			break;
		}
		if (d.pos >= d.len) {
			d.t->status = PK_TRUNCATED;
			fail(&d, d.pos, "input ends before STOP");
			break;
		}
		if (!step(&d, &stop)) {
			if (d.t->status == PK_OK)
				d.t->status = PK_ERROR;
			break;
		}
	}
	if (stop) {
		d.t->stop_at = d.pos;
	} else {
		d.t->message = g_strdup(d.err->str);
		salvage(&d);
	}
	if (s && d.memo_cap * sizeof(uint32_t) <= PK_SCRATCH_KEEP_MAX) {
		s->memo = g_steal_pointer(&d.memo);
		s->memo_cap = d.memo_cap;
	}
	if (s && d.scap * sizeof(uint32_t) <= PK_SCRATCH_KEEP_MAX) {
		s->st = g_steal_pointer(&d.st);
		s->scap = d.scap;
	}
	g_free(d.memo);
	g_free(d.st);
	g_free(d.mk);
	g_string_free(d.err, TRUE);
	return d.t;
}

struct pk_tree *pk_decode(const uint8_t *buf, size_t len)
{
	return pk_decode_with(buf, len, NULL);
}
