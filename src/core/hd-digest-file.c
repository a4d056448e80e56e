/*
 * Digest files (hd-digest-file.h, docs/format-digest.md): the writer,
 * which reads a store, and the reader, which fills one.  Both walk the
 * sections in one order: strings, inputs, ranks, groups, stacks, op
 * descriptors, ops, signals, the world size, then an end mark.  Numbers
 * are LEB128 varints (signed ones zigzag-coded); strings are indices into
 * the table written first (0: NULL), so each distinct string is stored
 * once; ops are written a column at a time, each value as the difference
 * from the op before, so that zstd finds the repeats a training loop
 * makes.
 *
 * Adapting to a store change: the fields of each entity are read and
 * written by the pair of functions named for it (put_op()/get_op(), ...).
 */
#include "config.h"

#include "hd-digest-file.h"

#include <string.h>
#include <zstd.h>

#include "hd-const.h"
#include "hd-error.h"
#include "hd-sha256.h"
#include "hd-banned.h"

bool hd_digest_file_sniff(const uint8_t *head, size_t len)
{
	return len >= HD_DIGEST_MAGIC_LEN &&
	       memcmp(head, HD_DIGEST_MAGIC, HD_DIGEST_MAGIC_LEN) == 0;
}

/* Section tags, in the order they come; each is checked on reading. */
enum {
	SEC_STRINGS = 1,
	SEC_INPUTS,
	SEC_RANKS,
	SEC_GROUPS,
	SEC_STACKS,
	SEC_DESCS,
	SEC_OPS,
	SEC_SIGNALS,
	SEC_WORLD,
	SEC_END,
};

static const char *const section_names[] = {
	"?",	  "strings",	    "inputs", "ranks",	 "groups",
	"stacks", "op descriptors", "ops",    "signals", "world size",
	"end",
};

/* ------------------------------------------------------------ writer */

struct writer {
	GByteArray *body;
	GHashTable *strings; /* string -> index + 1 (borrowed keys) */
	GPtrArray *table; /* const char *, in index order */
};

static void put_u(GByteArray *b, uint64_t v)
{
	uint8_t buf[10];
	guint n = 0;

	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		buf[n++] = (uint8_t)(c | (v ? 0x80 : 0));
	} while (v);
	g_byte_array_append(b, buf, n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void put_s(GByteArray *b, int64_t v)
{
	put_u(b, zigzag(v));
}

/* The difference of two values, wrapping, so that any pair codes. */
static void put_delta(GByteArray *b, int64_t v, int64_t prev)
{
	put_s(b, (int64_t)((uint64_t)v - (uint64_t)prev));
}

static void put_str(struct writer *w, const char *s)
{
	gpointer at;

	if (!s) {
		put_u(w->body, 0);
		return;
	}
	at = g_hash_table_lookup(w->strings, s);
	if (!at) {
		g_ptr_array_add(w->table, hd_unconst(s));
		at = GUINT_TO_POINTER(w->table->len);
		g_hash_table_insert(w->strings, hd_unconst(s), at);
	}
	put_u(w->body, GPOINTER_TO_UINT(at));
}

static void put_input(struct writer *w, const struct hd_input *in)
{
	GByteArray *b = w->body;
	guint na = in->attempts ? in->attempts->len : 0;

	put_str(w, in->path);
	put_u(b, in->kind);
	put_s(b, in->rank);
	put_u(b, in->bytes);
	put_u(b, in->records);
	put_u(b, in->skipped);
	put_u(b, in->nwarnings);
	put_u(b, in->warnings->len);
	for (guint i = 0; i < in->warnings->len; i++)
		put_str(w, g_ptr_array_index(in->warnings, i));
	put_u(b, (in->truncated ? 1u : 0u) | (in->empty ? 2u : 0u));
	put_str(w, in->error);
	put_s(b, in->file_size);
	put_str(w, in->sha256);
	put_str(w, in->xxh3_128);
	put_u(b, na);
	for (guint i = 0; i < na; i++) {
		const struct hd_attempt *a =
			&g_array_index(in->attempts, struct hd_attempt, i);

		put_u(b, a->first_line);
		put_u(b, a->last_line);
		put_str(w, a->end);
		put_u(b, a->ops);
		put_u(b, a->trouble);
		put_str(w, a->first_trouble);
		put_s(b, a->begun.ns);
		put_u(b, a->begun.clock);
	}
	put_u(b, in->attempt);
	put_u(b, in->op_clock);
	put_u(b, in->content_hash);
	put_u(b, in->content_length);
}

static gint cmp_rank(gconstpointer a, gconstpointer b)
{
	const struct hd_rank *x = *(const struct hd_rank *const *)a;
	const struct hd_rank *y = *(const struct hd_rank *const *)b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void put_rank(struct writer *w, const struct hd_rank *r)
{
	GByteArray *b = w->body;

	put_s(b, r->rank);
	put_str(w, r->host);
	put_str(w, r->addr);
	put_s(b, r->pid);
	put_s(b, r->cuda_dev);
	put_str(w, r->bus_id);
	put_str(w, r->nccl_version);
	put_str(w, r->torch_version);
	put_u(b, r->inputs->len);
	for (guint i = 0; i < r->inputs->len; i++)
		put_u(b, g_array_index(r->inputs, uint32_t, i));
}

static void put_group(struct writer *w, const struct hd_group *g)
{
	GByteArray *b = w->body;
	int prev = -1;

	put_str(w, g->id);
	put_str(w, g->name);
	put_str(w, g->desc);
	put_u(b, g->comm_id);
	put_u(b, (g->has_comm_id ? 1u : 0u) |
			 (g->low_confidence_identity ? 2u : 0u));
	put_s(b, g->nranks);
	put_u(b, g->nknown);
	put_u(b, g->members_refused);
	/* members as steps: 0..n-1 codes as n ones */
	put_u(b, g->members->len);
	for (guint i = 0; i < g->members->len; i++) {
		int m = g_array_index(g->members, int, i);

		put_delta(b, m, prev);
		prev = m;
	}
}

static void put_stack(struct writer *w, const GArray *frames)
{
	put_u(w->body, frames->len);
	for (guint i = 0; i < frames->len; i++) {
		const struct hd_frame *f =
			&g_array_index(frames, struct hd_frame, i);

		put_str(w, f->name);
		put_str(w, f->file);
		put_s(w->body, f->line);
	}
}

static void put_desc(struct writer *w, const struct hd_opdesc *d)
{
	GByteArray *b = w->body;

	put_s(b, d->count_in);
	put_s(b, d->count_out);
	put_str(w, d->shape_in);
	put_str(w, d->shape_out);
	put_str(w, d->dtype_name);
	put_str(w, d->name);
	put_s(b, d->peer);
	put_u(b, d->dtype);
	put_u(b, d->redop);
}

/*
 * The op columns: each a field of struct hd_op as an int64, written as
 * the difference from the op before.  The one list both sides use.
 */
enum op_col {
	OC_RANK,
	OC_GROUP,
	OC_SEQ,
	OC_SEQ_KIND,
	OC_KIND,
	OC_STATE,
	OC_FLAGS,
	OC_STACK,
	OC_DESC,
	OC_OP_COUNT,
	OC_T_ENQUEUE,
	OC_T_START,
	OC_T_END,
	OC_PROV_INPUT,
	OC_PROV_KIND,
	OC_PROV_ATTEMPT,
	OC_PROV_AT,
	OC_ANON,
	OC_COUNT
};

static int64_t op_get(const struct hd_store *s, const struct hd_op *op,
		      enum op_col c, GHashTable *descs)
{
	switch (c) {
	case OC_RANK:
		return hd_op_rank(op);
	case OC_GROUP:
		return op->group;
	case OC_SEQ:
		return op->seq;
	case OC_SEQ_KIND:
		return op->seq_kind;
	case OC_KIND:
		return op->kind;
	case OC_STATE:
		return op->state;
	case OC_FLAGS:
		return op->flags;
	case OC_STACK:
		return hd_op_stack(s, op);
	case OC_DESC:
		return GPOINTER_TO_INT(
			       g_hash_table_lookup(descs, hd_op_desc(op))) -
		       1;
	case OC_OP_COUNT:
		return hd_op_op_count(s, op);
	case OC_T_ENQUEUE:
		return hd_op_t_enqueue(s, op);
	case OC_T_START:
		return hd_op_t_start(s, op);
	case OC_T_END:
		return hd_op_t_end(s, op);
	case OC_PROV_INPUT:
		return op->input;
	case OC_PROV_KIND:
		return op->prov_kind;
	case OC_PROV_ATTEMPT:
		return op->attempt;
	case OC_PROV_AT:
		return (int64_t)hd_op_prov(s, op).at;
	case OC_ANON:
		return hd_op_anon(op);
	case OC_COUNT:
		break;
	}
	g_assert_not_reached();
}

static void put_ops(struct writer *w, const struct hd_store *s)
{
	g_autoptr(GHashTable) descs =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autoptr(GPtrArray) order = g_ptr_array_new();

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (!g_hash_table_contains(descs, hd_op_desc(op))) {
			g_ptr_array_add(order, hd_unconst(hd_op_desc(op)));
			g_hash_table_insert(descs, hd_unconst(hd_op_desc(op)),
					    GUINT_TO_POINTER(order->len));
		}
	}
	put_u(w->body, SEC_DESCS);
	put_u(w->body, order->len);
	for (guint i = 0; i < order->len; i++)
		put_desc(w, g_ptr_array_index(order, i));
	put_u(w->body, SEC_OPS);
	put_u(w->body, s->ops->len);
	for (int c = 0; c < OC_COUNT; c++) {
		int64_t prev = 0;

		for (guint i = 0; i < s->ops->len; i++) {
			int64_t v = op_get(s, hd_store_op(s, i), (enum op_col)c,
					   descs);

			put_delta(w->body, v, prev);
			prev = v;
		}
	}
}

static void put_prov(GByteArray *b, const struct hd_prov *p)
{
	put_u(b, p->input);
	put_u(b, p->kind);
	put_u(b, p->attempt);
	put_u(b, p->at);
}

static void put_signal(struct writer *w, const struct hd_signal *sig)
{
	GByteArray *b = w->body;

	put_u(b, sig->cat);
	put_u(b, sig->type);
	put_s(b, sig->rank);
	put_str(w, sig->host);
	put_s(b, sig->pid);
	put_str(w, sig->peer);
	put_s(b, sig->peer_rank);
	put_s(b, sig->time.ns);
	put_u(b, sig->time.clock);
	put_str(w, sig->group_name);
	put_s(b, sig->seq);
	put_s(b, sig->last_enqueued);
	put_s(b, sig->last_completed);
	put_str(w, sig->op_name);
	put_s(b, sig->numel_in);
	put_s(b, sig->numel_out);
	put_s(b, sig->code);
	put_str(w, sig->text);
	put_prov(b, &sig->prov);
	put_s(b, sig->local_rank);
	put_str(w, sig->dtype_name);
	put_str(w, sig->device);
	put_s(b, sig->stack);
	put_s(b, sig->anon);
	put_s(b, sig->task);
}

static void put_body(struct writer *w, const struct hd_store *s)
{
	GByteArray *b = w->body;
	g_autoptr(GPtrArray) ranks = g_ptr_array_new();
	GHashTableIter it;
	gpointer value;

	put_u(b, SEC_INPUTS);
	put_u(b, s->inputs->len);
	for (guint i = 0; i < s->inputs->len; i++)
		put_input(w, hd_store_input(s, i));
	/* ranks in rank order, so one store always gives one digest */
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value))
		g_ptr_array_add(ranks, value);
	g_ptr_array_sort(ranks, cmp_rank);
	put_u(b, SEC_RANKS);
	put_u(b, ranks->len);
	for (guint i = 0; i < ranks->len; i++)
		put_rank(w, g_ptr_array_index(ranks, i));
	put_u(b, SEC_GROUPS);
	put_u(b, s->groups->len);
	for (guint i = 0; i < s->groups->len; i++)
		put_group(w, hd_store_group_at(s, i));
	put_u(b, SEC_STACKS);
	put_u(b, s->stacks->len);
	for (guint i = 0; i < s->stacks->len; i++)
		put_stack(w, g_ptr_array_index(s->stacks, i));
	put_ops(w, s);
	put_u(b, SEC_SIGNALS);
	put_u(b, s->signals->len);
	for (guint i = 0; i < s->signals->len; i++)
		put_signal(w, &g_array_index(s->signals, struct hd_signal, i));
	put_u(b, SEC_WORLD);
	put_s(b, s->world_size);
	put_u(b, SEC_END);
}

GBytes *hd_digest_file_encode(const struct hd_store *s, int level,
			      GError **error)
{
	struct writer w;
	g_autoptr(GByteArray) out = g_byte_array_new();
	g_autofree void *z = NULL;
	size_t bound, n;

	w.body = g_byte_array_new();
	w.strings = g_hash_table_new(g_str_hash, g_str_equal);
	w.table = g_ptr_array_new();
	put_body(&w, s);
	g_byte_array_append(out, (const guint8 *)HD_DIGEST_MAGIC,
			    HD_DIGEST_MAGIC_LEN);
	put_u(out, HD_DIGEST_VERSION);
	put_u(out, SEC_STRINGS);
	put_u(out, w.table->len);
	for (guint i = 0; i < w.table->len; i++) {
		const char *str = g_ptr_array_index(w.table, i);
		size_t len = strlen(str);

		put_u(out, len);
		g_byte_array_append(out, (const guint8 *)str, (guint)len);
	}
	g_byte_array_append(out, w.body->data, w.body->len);
	g_byte_array_unref(w.body);
	g_hash_table_unref(w.strings);
	g_ptr_array_unref(w.table);
	if (level <= 0)
		return g_byte_array_free_to_bytes(g_steal_pointer(&out));
	bound = ZSTD_compressBound(out->len);
	z = g_malloc(bound);
	n = ZSTD_compress(z, bound, out->data, out->len, level);
	if (ZSTD_isError(n)) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot compress the digest: %s",
			    ZSTD_getErrorName(n));
		return NULL;
	}
	return g_bytes_new(z, n);
}

/* ------------------------------------------------------------ reader */

struct reader {
	const uint8_t *start, *p, *end;
	int section; /* for messages */
	bool bad;
	char *why; /* the first fault */
	/* the string table: where each string lies, and its interned copy */
	const uint8_t **str;
	size_t *str_len;
	const char **interned;
	uint64_t nstr;
	/* the store's index of the digest's input k */
	uint32_t *input_map;
	uint64_t ninputs;
	const struct hd_opdesc **descs;
	uint64_t ndescs;
	uint32_t nstacks;
	uint32_t ngroups;
};

static void fail(struct reader *r, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	g_autofree char *msg = NULL;

	if (r->bad)
		return;
	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	r->bad = true;
	r->why = g_strdup_printf("%s, in its %s at byte %" G_GSIZE_FORMAT, msg,
				 section_names[r->section],
				 (gsize)(r->p - r->start));
	r->p = r->end;
}

static uint64_t get_u(struct reader *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t c;

		if (r->p >= r->end) {
			fail(r, "the digest ends in the middle of a number");
			return 0;
		}
		c = *r->p++;
		if (shift == 63 && c > 1)
			break;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	fail(r, "a number longer than 64 bits");
	return 0;
}

static int64_t get_s(struct reader *r)
{
	uint64_t v = get_u(r);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A number in [lo, hi], else a fault naming what it is. */
static int64_t get_range(struct reader *r, int64_t lo, int64_t hi,
			 const char *what)
{
	int64_t v = get_s(r);

	if (v < lo || v > hi) {
		fail(r, "%s %" G_GINT64_FORMAT " is out of range", what, v);
		return lo;
	}
	return v;
}

static uint64_t get_urange(struct reader *r, uint64_t hi, const char *what)
{
	uint64_t v = get_u(r);

	if (v > hi) {
		fail(r, "%s %" G_GUINT64_FORMAT " is out of range", what, v);
		return 0;
	}
	return v;
}

/*
 * A count of items each at least min_bytes long: never more than the
 * bytes left can hold, so no claim allocates past the digest's size.
 */
static uint64_t get_count(struct reader *r, uint64_t min_bytes, uint64_t max,
			  const char *what)
{
	uint64_t n = get_u(r);
	uint64_t left = (uint64_t)(r->end - r->p);

	if (n > max || n > left / min_bytes) {
		fail(r, "%" G_GUINT64_FORMAT " %s claimed, more than %s", n,
		     what,
		     n > max ? "a digest may hold" : "the bytes left hold");
		return 0;
	}
	return n;
}

static void expect_section(struct reader *r, int sec)
{
	uint64_t got = get_u(r);

	r->section = sec;
	if (!r->bad && got != (uint64_t)sec)
		fail(r, "section %" G_GUINT64_FORMAT " where %s was due", got,
		     section_names[sec]);
}

static uint64_t get_str_index(struct reader *r)
{
	uint64_t i = get_u(r);

	if (i > r->nstr) {
		fail(r, "string %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, i,
		     r->nstr);
		return 0;
	}
	return i;
}

/* A string for an interned field.  (transfer none) */
static const char *get_istr(struct reader *r)
{
	uint64_t i = get_str_index(r);

	if (!i)
		return NULL;
	if (!r->interned[i - 1])
		r->interned[i - 1] = hd_intern_len((const char *)r->str[i - 1],
						   r->str_len[i - 1]);
	return r->interned[i - 1];
}

/* A string for an owned field.  (transfer full) */
static char *get_ostr(struct reader *r)
{
	uint64_t i = get_str_index(r);

	if (!i)
		return NULL;
	return g_strndup((const char *)r->str[i - 1], r->str_len[i - 1]);
}

static uint32_t get_input_index(struct reader *r)
{
	uint64_t k = get_u(r);

	if (k >= r->ninputs) {
		fail(r, "input %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, k,
		     r->ninputs);
		return r->input_map ? r->input_map[0] : 0;
	}
	return r->input_map[k];
}

static void get_strings(struct reader *r)
{
	r->section = SEC_STRINGS;
	r->nstr = get_count(r, 1, G_MAXUINT32, "strings");
	r->str = g_new0(const uint8_t *, r->nstr + 1);
	r->str_len = g_new0(size_t, r->nstr + 1);
	r->interned = g_new0(const char *, r->nstr + 1);
	for (uint64_t i = 0; i < r->nstr && !r->bad; i++) {
		uint64_t len = get_u(r);

		if (len > (uint64_t)(r->end - r->p)) {
			fail(r,
			     "a string of %" G_GUINT64_FORMAT
			     " bytes past the end",
			     len);
			break;
		}
		if (memchr(r->p, 0, len)) {
			fail(r, "a string with a NUL byte");
			break;
		}
		r->str[i] = r->p;
		r->str_len[i] = len;
		r->p += len;
	}
}

static void get_attempts(struct reader *r, struct hd_input *in)
{
	uint64_t n = get_count(r, 8, G_MAXUINT16, "attempts");

	for (uint64_t i = 0; i < n && !r->bad; i++) {
		struct hd_attempt *a = hd_input_new_attempt(in);
		int64_t ns;
		uint8_t clock;

		a->first_line = get_u(r);
		a->last_line = get_u(r);
		a->end = get_istr(r);
		a->ops = (uint32_t)get_urange(r, G_MAXUINT32, "op count");
		a->trouble = (uint32_t)get_urange(r, G_MAXUINT32, "count");
		a->first_trouble = get_ostr(r);
		ns = get_s(r);
		clock = (uint8_t)get_urange(r, HD_CLOCK_COUNT - 1, "clock");
		a->begun = hd_time_make(ns, (enum hd_clock)clock);
	}
	in->attempt = (uint32_t)get_urange(r, n, "kept attempt");
}

static void get_input(struct reader *r, struct hd_input *in)
{
	uint64_t nw, flags;

	g_free(in->path);
	in->path = get_ostr(r);
	if (!in->path) {
		fail(r, "an input without a name");
		in->path = g_strdup("?");
	}
	in->kind = (enum hd_input_kind)get_urange(r, HD_INPUT_KIND_COUNT - 1,
						  "input kind");
	in->rank = (int)get_range(r, -1, HD_MAX_RANKS - 1, "input rank");
	in->bytes = get_u(r);
	in->records = get_u(r);
	in->skipped = get_u(r);
	in->nwarnings = get_u(r);
	nw = get_count(r, 1, HD_INPUT_MAX_WARNINGS, "warnings");
	for (uint64_t i = 0; i < nw && !r->bad; i++) {
		char *w = get_ostr(r);

		if (w)
			g_ptr_array_add(in->warnings, w);
	}
	if (in->nwarnings < in->warnings->len)
		in->nwarnings = in->warnings->len;
	flags = get_urange(r, 3, "input flags");
	in->truncated = flags & 1;
	in->empty = flags & 2;
	g_free(in->error);
	in->error = get_ostr(r);
	in->file_size = get_range(r, -1, INT64_MAX, "file size");
	g_free(in->sha256);
	in->sha256 = get_ostr(r);
	if (in->sha256 && strlen(in->sha256) != HD_SHA256_HEX_LEN)
		fail(r, "a SHA-256 of %zu digits", strlen(in->sha256));
	g_free(in->xxh3_128);
	in->xxh3_128 = get_ostr(r);
	if (in->xxh3_128 && strlen(in->xxh3_128) != 32)
		fail(r, "an XXH3-128 of %zu digits", strlen(in->xxh3_128));
	/* a digest read again is its inputs; only a broken one stays */
	if (in->kind == HD_INPUT_DIGEST && !in->error)
		fail(r, "a digest input that is neither read nor broken");
	get_attempts(r, in);
	in->op_clock = (uint8_t)get_urange(r, HD_CLOCK_COUNT - 1, "clock");
	in->content_hash = get_u(r);
	in->content_length = get_u(r);
}

static void get_inputs(struct reader *r, struct hd_store *s, uint32_t input)
{
	expect_section(r, SEC_INPUTS);
	r->ninputs = get_count(r, 16, G_MAXUINT32 - s->inputs->len, "inputs");
	if (r->bad)
		return;
	r->input_map = g_new(uint32_t, r->ninputs + 1);
	for (uint64_t k = 0; k < r->ninputs && !r->bad; k++) {
		uint32_t at = k == 0 ? input : hd_store_add_input(s, "?");

		r->input_map[k] = at;
		get_input(r, hd_store_input(s, at));
	}
	/* only the inputs made so far may be named */
	if (r->bad)
		r->ninputs = 0;
}

static void get_ranks(struct reader *r, struct hd_store *s)
{
	uint64_t n;

	expect_section(r, SEC_RANKS);
	n = get_count(r, 9, HD_MAX_RANKS, "ranks");
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		int rank = (int)get_range(r, -HD_MAX_RANKS, HD_MAX_RANKS - 1,
					  "rank");
		struct hd_rank *rk;
		uint64_t ni;

		if (r->bad)
			break;
		if (hd_store_find_rank(s, rank)) {
			fail(r, "rank %d twice", rank);
			break;
		}
		rk = hd_store_rank(s, rank);
		rk->host = get_istr(r);
		rk->addr = get_istr(r);
		rk->pid = (int)get_range(r, G_MININT32, G_MAXINT32, "pid");
		rk->cuda_dev = (int)get_range(r, -1, G_MAXINT32, "CUDA device");
		rk->bus_id = get_istr(r);
		rk->nccl_version = get_istr(r);
		rk->torch_version = get_istr(r);
		ni = get_count(r, 1, r->ninputs, "inputs of a rank");
		for (uint64_t k = 0; k < ni && !r->bad; k++) {
			uint32_t in = get_input_index(r);

			if (!r->bad)
				hd_rank_add_input(rk, in);
		}
	}
}

static void get_groups(struct reader *r, struct hd_store *s)
{
	uint64_t n;

	expect_section(r, SEC_GROUPS);
	n = get_count(r, 9, G_MAXINT32, "groups");
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		g_autofree char *id = get_ostr(r);
		struct hd_group *g;
		uint64_t flags, nm;
		int64_t prev = -1;
		uint32_t at;

		if (!id || hd_store_find_group(s, id) >= 0) {
			fail(r,
			     id ? "group '%s' twice" : "a group without id%s",
			     id ? id : "");
			break;
		}
		at = hd_store_group(s, id);
		g = hd_store_group_at(s, at);
		g->name = get_ostr(r);
		g->desc = get_ostr(r);
		g->comm_id = get_u(r);
		flags = get_urange(r, 3, "group flags");
		g->has_comm_id = flags & 1;
		g->low_confidence_identity = flags & 2;
		g->nranks = (int)get_range(r, -1, HD_MAX_RANKS, "group size");
		g->nknown = (uint32_t)get_urange(r, HD_MAX_RANKS, "count");
		g->members_refused =
			(uint32_t)get_urange(r, G_MAXUINT32, "count");
		nm = get_count(r, 1, HD_MAX_RANKS, "members");
		if (r->bad)
			break;
		g_array_set_size(g->members, (guint)nm);
		for (uint64_t m = 0; m < nm && !r->bad; m++) {
			int64_t v =
				(int64_t)((uint64_t)prev + (uint64_t)get_s(r));

			if (v < -1 || v >= HD_MAX_RANKS) {
				fail(r, "member %" G_GINT64_FORMAT, v);
				v = -1;
			}
			g_array_index(g->members, int, m) = (int)v;
			prev = v;
		}
		if (g->nknown > g->members->len)
			g->nknown = g->members->len;
		r->ngroups = s->groups->len;
	}
}

static void get_stacks(struct reader *r, struct hd_store *s)
{
	uint64_t n;

	expect_section(r, SEC_STACKS);
	n = get_count(r, 1, G_MAXINT32, "stacks");
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		uint64_t nf = get_count(r, 3, G_MAXUINT32, "frames");
		g_autofree struct hd_frame *f = g_new0(struct hd_frame, nf + 1);

		for (uint64_t k = 0; k < nf && !r->bad; k++) {
			f[k].name = get_istr(r);
			f[k].file = get_istr(r);
			f[k].line = (int)get_range(r, G_MININT32, G_MAXINT32,
						   "line");
		}
		if (r->bad)
			break;
		hd_store_add_stack(s, f, nf);
		r->nstacks = s->stacks->len;
	}
}

static void get_descs(struct reader *r)
{
	expect_section(r, SEC_DESCS);
	r->ndescs = get_count(r, 9, G_MAXINT32, "op descriptors");
	r->descs = g_new0(const struct hd_opdesc *, r->ndescs + 1);
	for (uint64_t i = 0; i < r->ndescs && !r->bad; i++) {
		struct hd_opdesc d = hd_opdesc_blank;

		d.count_in = get_range(r, -1, INT64_MAX, "count");
		d.count_out = get_range(r, -1, INT64_MAX, "count");
		d.shape_in = get_istr(r);
		d.shape_out = get_istr(r);
		d.dtype_name = get_istr(r);
		d.name = get_istr(r);
		d.peer = (int32_t)get_range(r, -1, G_MAXINT32, "peer");
		d.dtype = (uint8_t)get_urange(r, HD_DTYPE_OTHER, "dtype");
		d.redop =
			(uint8_t)get_urange(r, HD_REDOP_PREMULSUM, "reduction");
		r->descs[i] = hd_opdesc_intern(&d);
	}
}

/* One column value of op c, checked, into op, which is in s. */
static void op_set(struct reader *r, struct hd_store *s, struct hd_op *op,
		   enum op_col c, int64_t v)
{
	bool ok = true;
	struct hd_prov prov;
	int64_t t[3];

	switch (c) {
	case OC_RANK:
		ok = v >= INT32_MIN && v <= INT32_MAX;
		hd_op_set_rank(op, (int32_t)v);
		break;
	case OC_GROUP:
		ok = v >= 0 && v < r->ngroups;
		op->group = ok ? (uint32_t)v : 0;
		break;
	case OC_SEQ:
		hd_op_set_seq(op, v);
		break;
	case OC_SEQ_KIND:
		ok = v >= 0 && v <= HD_SEQ_ORDINAL;
		op->seq_kind = ok ? (uint8_t)v : 0;
		break;
	case OC_KIND:
		ok = v >= 0 && v < HD_OP_KIND_COUNT;
		op->kind = ok ? (uint8_t)v : 0;
		break;
	case OC_STATE:
		ok = v >= 0 && v <= HD_STATE_COMPLETED;
		op->state = ok ? (uint8_t)v : 0;
		break;
	case OC_FLAGS:
		ok = v >= 0 && v <= (HD_OPF_ANY_SOURCE << 1) - 1;
		op->flags = ok ? (uint8_t)v : 0;
		break;
	case OC_STACK:
		ok = v >= -1 && v < (int64_t)r->nstacks;
		hd_op_set_stack(s, op, ok ? (int32_t)v : -1);
		break;
	case OC_DESC:
		ok = v >= 0 && (uint64_t)v < r->ndescs;
		hd_op_set_desc(op, ok ? r->descs[v] : &hd_opdesc_blank);
		break;
	case OC_OP_COUNT:
		hd_op_set_op_count(s, op, v);
		break;
	case OC_T_ENQUEUE:
	case OC_T_START:
	case OC_T_END:
		t[0] = hd_op_t_enqueue(s, op);
		t[1] = hd_op_t_start(s, op);
		t[2] = hd_op_t_end(s, op);
		t[c - OC_T_ENQUEUE] = v;
		hd_op_set_times(s, op, t[0], t[1], t[2]);
		break;
	case OC_PROV_INPUT:
		ok = v >= 0 && (uint64_t)v < r->ninputs;
		op->input = ok ? r->input_map[v] : 0;
		break;
	case OC_PROV_KIND:
		ok = v >= 0 && v <= HD_PROV_OFFSET;
		op->prov_kind = ok ? (uint8_t)v : 0;
		break;
	case OC_PROV_ATTEMPT:
		ok = v >= 0 && v <= HD_MAX_ATTEMPT;
		op->attempt = ok ? (uint16_t)v : 0;
		break;
	case OC_PROV_AT:
		prov = hd_op_prov(s, op);
		prov.at = (uint64_t)v;
		hd_op_set_prov(s, op, &prov);
		break;
	case OC_ANON:
		/* a process of unknown rank has no rank */
		ok = v == -1 ||
		     (v >= 0 && v <= INT32_MAX && hd_op_rank(op) == -1);
		if (ok && v >= 0)
			hd_op_set_anon(op, (int32_t)v);
		break;
	case OC_COUNT:
		break;
	}
	if (!ok)
		fail(r,
		     "op column %d: value %" G_GINT64_FORMAT " is out of range",
		     (int)c, v);
}

static void get_ops(struct reader *r, struct hd_store *s)
{
	uint64_t n;
	guint base = s->ops->len;

	expect_section(r, SEC_OPS);
	/* every column codes each op in one byte at least */
	n = get_count(r, OC_COUNT, G_MAXUINT32 - base, "ops");
	if (r->bad || !n)
		return;
	if (!r->ninputs) {
		fail(r, "ops without an input");
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		(void)hd_store_new_op(s);
	for (int c = 0; c < OC_COUNT && !r->bad; c++) {
		int64_t prev = 0;

		for (uint64_t i = 0; i < n && !r->bad; i++) {
			int64_t v =
				(int64_t)((uint64_t)prev + (uint64_t)get_s(r));

			op_set(r, s, hd_store_op(s, base + (guint)i),
			       (enum op_col)c, v);
			prev = v;
		}
	}
	/* a column cut short leaves ops half made: none is kept */
	if (r->bad)
		g_array_set_size(s->ops, base);
}

static void get_signal(struct reader *r, struct hd_signal *sig)
{
	int64_t ns;
	uint8_t clock;

	sig->cat = (uint8_t)get_urange(r, HD_SIG_CAT_COUNT - 1, "category");
	sig->type = (uint8_t)get_urange(r, HD_SIGT_LAST, "type");
	sig->rank = (int32_t)get_range(r, G_MININT32, G_MAXINT32, "rank");
	sig->host = get_istr(r);
	sig->pid = (int32_t)get_range(r, G_MININT32, G_MAXINT32, "pid");
	sig->peer = get_istr(r);
	sig->peer_rank = (int32_t)get_range(r, G_MININT32, G_MAXINT32, "rank");
	ns = get_s(r);
	clock = (uint8_t)get_urange(r, HD_CLOCK_COUNT - 1, "clock");
	sig->time = hd_time_make(ns, (enum hd_clock)clock);
	sig->group_name = get_istr(r);
	sig->seq = get_s(r);
	sig->last_enqueued = get_s(r);
	sig->last_completed = get_s(r);
	sig->op_name = get_istr(r);
	sig->numel_in = get_s(r);
	sig->numel_out = get_s(r);
	sig->code = (int32_t)get_range(r, G_MININT32, G_MAXINT32, "code");
	sig->text = get_ostr(r);
	sig->prov.input = get_input_index(r);
	sig->prov.kind = (uint16_t)get_urange(r, HD_PROV_OFFSET, "prov");
	sig->prov.attempt = (uint16_t)get_urange(r, HD_MAX_ATTEMPT, "attempt");
	sig->prov.at = get_u(r);
	sig->local_rank =
		(int32_t)get_range(r, G_MININT32, G_MAXINT32, "local rank");
	sig->dtype_name = get_istr(r);
	sig->device = get_istr(r);
	sig->stack =
		(int32_t)get_range(r, -1, (int64_t)r->nstacks - 1, "stack");
	sig->anon = (int32_t)get_range(r, -1, G_MAXINT32, "anonymous process");
	sig->task = (int32_t)get_range(r, -1, HD_MAX_RANKS - 1, "srun task");
	/* only the signal that names one says a process of unknown rank */
	if (!r->bad && sig->anon >= 0 && sig->type != HD_SIGT_ANON_PROC)
		fail(r, "a signal of type %u names a process of unknown rank",
		     sig->type);
}

static void get_signals(struct reader *r, struct hd_store *s)
{
	uint64_t n;

	expect_section(r, SEC_SIGNALS);
	n = get_count(r, 28, G_MAXUINT32, "signals");
	if (n && !r->ninputs)
		fail(r, "signals without an input");
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		struct hd_signal sig;

		hd_signal_init(&sig);
		get_signal(r, &sig);
		if (!r->bad)
			hd_store_add_signal(s, &sig);
		g_free(sig.text);
	}
}

static void reader_clear(struct reader *r)
{
	g_free(r->str);
	g_free(r->str_len);
	g_free(r->interned);
	g_free(r->input_map);
	g_free(r->descs);
	g_free(r->why);
}

/* Empties s back to its input `input` alone, as the digest it was. */
static void reset_store(struct hd_store *s, uint32_t input, const char *name)
{
	struct hd_input *in;

	g_ptr_array_set_size(s->inputs, input + 1);
	in = hd_store_input(s, input);
	g_free(in->path);
	in->path = g_strdup(name);
	in->kind = HD_INPUT_DIGEST;
	in->rank = -1;
	in->records = in->skipped = in->nwarnings = 0;
	g_ptr_array_set_size(in->warnings, 0);
	in->truncated = in->empty = false;
	g_clear_pointer(&in->error, g_free);
	in->file_size = -1;
	g_clear_pointer(&in->sha256, g_free);
	g_clear_pointer(&in->xxh3_128, g_free);
	g_clear_pointer(&in->attempts, g_array_unref);
	in->attempt = 0;
	in->op_clock = HD_CLOCK_NONE;
	g_hash_table_remove_all(s->ranks);
	g_hash_table_remove_all(s->group_index);
	g_ptr_array_set_size(s->groups, 0);
	g_array_set_size(s->ops, 0);
	g_array_set_size(s->signals, 0);
	g_ptr_array_set_size(s->stacks, 0);
	s->world_size = -1;
}

bool hd_digest_file_decode(const uint8_t *p, size_t len, struct hd_store *s,
			   uint32_t input, GError **error)
{
	struct reader r = { .start = p, .p = p, .end = p + len };
	g_autofree char *name = g_strdup(hd_store_input(s, input)->path);
	uint64_t version;

	g_assert(s->inputs->len == input + 1 && !s->ops->len &&
		 !s->signals->len && !s->groups->len && !s->stacks->len);
	if (!hd_digest_file_sniff(p, len)) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "not a hangdoc digest");
		return false;
	}
	r.p += HD_DIGEST_MAGIC_LEN;
	version = get_u(&r);
	if (!r.bad && version != HD_DIGEST_VERSION) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "a digest of format version %" G_GUINT64_FORMAT
			    "; this hangdoc reads version %d",
			    version, HD_DIGEST_VERSION);
		reader_clear(&r);
		return false;
	}
	expect_section(&r, SEC_STRINGS);
	get_strings(&r);
	get_inputs(&r, s, input);
	get_ranks(&r, s);
	get_groups(&r, s);
	get_stacks(&r, s);
	get_descs(&r);
	get_ops(&r, s);
	get_signals(&r, s);
	expect_section(&r, SEC_WORLD);
	s->world_size = (int)get_range(&r, -1, HD_MAX_RANKS, "world size");
	expect_section(&r, SEC_END);
	if (!r.bad && r.p != r.end)
		fail(&r, "%" G_GSIZE_FORMAT " bytes after the end mark",
		     (gsize)(r.end - r.p));
	if (r.bad) {
		/* all or nothing: a digest is one message, not records */
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "a malformed digest: %s; nothing of it is used",
			    r.why);
		reset_store(s, input, name);
		reader_clear(&r);
		return false;
	}
	reader_clear(&r);
	return true;
}
