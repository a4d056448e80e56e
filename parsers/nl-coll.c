/*
 * The NCCL COLL record (nl-coll.h): its grammar, the op it keeps, and its
 * fast path.  The COLL line is parsed by hand: it is almost all of a COLL
 * log.
 */
#include "config.h"

#include "nl-coll.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "nl-proc.h"
#include "nl-scan.h"
#include "hd-banned.h"

/* ------------------------------------------------------------------ */
/* The COLL grammar.                                                   */

/* The COLL op names, by their index in coll_ops[]. */
enum coll_op {
	CO_ALL_REDUCE,
	CO_ALL_GATHER,
	CO_REDUCE_SCATTER,
	CO_BROADCAST,
	CO_REDUCE,
	CO_SEND,
	CO_RECV,
	CO_ALL_TO_ALL,
	CO_GATHER,
	CO_SCATTER,
	CO_COUNT
};

static const struct {
	const char *name;
	size_t len;
	enum hd_op_kind kind;
} coll_ops[CO_COUNT] = {
#define COLL_OP(i, name, kind) [i] = { name, sizeof(name) - 1, kind }
	COLL_OP(CO_ALL_REDUCE, "AllReduce", HD_OP_ALL_REDUCE),
	COLL_OP(CO_ALL_GATHER, "AllGather", HD_OP_ALL_GATHER),
	COLL_OP(CO_REDUCE_SCATTER, "ReduceScatter", HD_OP_REDUCE_SCATTER),
	COLL_OP(CO_BROADCAST, "Broadcast", HD_OP_BROADCAST),
	COLL_OP(CO_REDUCE, "Reduce", HD_OP_REDUCE),
	COLL_OP(CO_SEND, "Send", HD_OP_SEND),
	COLL_OP(CO_RECV, "Recv", HD_OP_RECV),
	COLL_OP(CO_ALL_TO_ALL, "AlltoAll", HD_OP_ALL_TO_ALL),
	COLL_OP(CO_GATHER, "Gather", HD_OP_GATHER),
	COLL_OP(CO_SCATTER, "Scatter", HD_OP_SCATTER),
#undef COLL_OP
};

/* Whether the k bytes at body are op name i. */
NL_INLINE bool coll_op_is(const char *body, size_t k, enum coll_op i)
{
	return k == coll_ops[i].len && same(body, coll_ops[i].name, k);
}

int nl_coll_op(const char *body, size_t n, size_t *name_len)
{
	size_t k = 0, lim = MIN(n, 16);
	int i = -1;

	/* every line of a COLL log asks: no memchr() call */
#ifdef __SSE2__
	if (n >= 16) {
		__m128i v =
			_mm_loadu_si128((const __m128i *)(const void *)body);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(v, _mm_set1_epi8(':')));

		k = m ? (size_t)__builtin_ctz(m) : 16;
	} else
#endif
	{
		while (k < lim && body[k] != ':')
			k++;
	}
	if (k == lim || !starts(body + k, n - k, ": opCount "))
		return -1;
	/* only the names of that length */
	switch (k) {
	case 4:
		i = coll_op_is(body, k, CO_SEND)   ? CO_SEND
		    : coll_op_is(body, k, CO_RECV) ? CO_RECV
						   : -1;
		break;
	case 6:
		i = coll_op_is(body, k, CO_REDUCE)   ? CO_REDUCE
		    : coll_op_is(body, k, CO_GATHER) ? CO_GATHER
						     : -1;
		break;
	case 7:
		i = coll_op_is(body, k, CO_SCATTER) ? CO_SCATTER : -1;
		break;
	case 8:
		i = coll_op_is(body, k, CO_ALL_TO_ALL) ? CO_ALL_TO_ALL : -1;
		break;
	case 9:
		i = coll_op_is(body, k, CO_ALL_REDUCE)	 ? CO_ALL_REDUCE
		    : coll_op_is(body, k, CO_ALL_GATHER) ? CO_ALL_GATHER
		    : coll_op_is(body, k, CO_BROADCAST)	 ? CO_BROADCAST
							 : -1;
		break;
	case 13:
		i = coll_op_is(body, k, CO_REDUCE_SCATTER) ? CO_REDUCE_SCATTER
							   : -1;
		break;
	default:
		break;
	}
	if (i >= 0)
		*name_len = k;
	return i;
}

static const enum hd_dtype nccl_dtypes[] = {
	HD_DTYPE_INT8,	   HD_DTYPE_UINT8,    HD_DTYPE_INT32,
	HD_DTYPE_UINT32,   HD_DTYPE_INT64,    HD_DTYPE_UINT64,
	HD_DTYPE_FLOAT16,  HD_DTYPE_FLOAT32,  HD_DTYPE_FLOAT64,
	HD_DTYPE_BFLOAT16, HD_DTYPE_FP8_E4M3, HD_DTYPE_FP8_E5M2,
};

static bool is_reduction(enum hd_op_kind k)
{
	return k == HD_OP_ALL_REDUCE || k == HD_OP_REDUCE ||
	       k == HD_OP_REDUCE_SCATTER;
}

/* The fields of a COLL record, as far as its text goes. */
struct nl_coll {
	uint64_t opcount, comm;
	uint64_t sendbuf, recvbuf, stream; /* 0 unknown */
	int64_t count, dtype, redop, root, nranks; /* -1 unknown */
	bool cut; /* the text ends early */
};

/*
 * Scans the fields after the op name in [s, end).  False, the line
 * skipped, when they are malformed or end before the comm pointer.
 */
static bool coll_scan(struct nl_ctx *c, const char *s, const char *end,
		      struct nl_coll *f)
{
	int r = 1;
	bool have_comm = false, nranks_ok = false;

	f->opcount = f->comm = 0;
	f->sendbuf = f->recvbuf = f->stream = 0;
	f->count = f->dtype = f->redop = f->root = f->nranks = -1;
	f->cut = false;
	/*
	 * Each step: a literal, then a value; stop at the first failure.
	 * r == -1 or s == end at the failure means the text ran out.
	 */
	if ((r = expect(&s, end, ": opCount ")) == 1 &&
	    scan_hex(&s, end, &f->opcount) &&
	    (r = expect(&s, end, " sendbuff ")) == 1 &&
	    scan_ptr(&s, end, &f->sendbuf) &&
	    (r = expect(&s, end, " recvbuff ")) == 1 &&
	    scan_ptr(&s, end, &f->recvbuf) &&
	    (r = expect(&s, end, " count ")) == 1 &&
	    scan_int(&s, end, &f->count) &&
	    (r = expect(&s, end, " datatype ")) == 1 &&
	    scan_int(&s, end, &f->dtype) &&
	    (r = expect(&s, end, " op ")) == 1 &&
	    scan_int(&s, end, &f->redop) &&
	    (r = expect(&s, end, " root ")) == 1 &&
	    scan_int(&s, end, &f->root) &&
	    (r = expect(&s, end, " comm ")) == 1 &&
	    scan_ptr(&s, end, &f->comm) &&
	    /* a pointer at the very end may itself be cut */
	    (have_comm = s < end) && (r = expect(&s, end, " [nranks=")) == 1 &&
	    scan_int(&s, end, &f->nranks) && (r = expect(&s, end, "]")) == 1 &&
	    (nranks_ok = true) && (r = expect(&s, end, " stream ")) == 1 &&
	    scan_ptr(&s, end, &f->stream)) {
		/* complete; what follows may be a fused record */
		c->coll_stop = s;
		return true;
	}
	f->cut = r == -1 || s == end;
	if (!f->cut || !have_comm) {
		nl_skip(c, f->cut ? "COLL record cut before its comm pointer"
				  : "malformed COLL record");
		return false;
	}
	/* nranks is trusted only with its closing bracket */
	if (!nranks_ok)
		f->nranks = -1;
	return true;
}

/*
 * The comm at ptr in p that a COLL record with nranks (-1 unknown) names.
 * NULL, the line skipped, when it can be put in no group.
 */
static struct nl_comm *coll_comm(struct nl_ctx *c, struct nl_proc *p,
				 uint64_t ptr, int64_t nranks)
{
	struct nl_comm *cm = nl_proc_comm(p, ptr);

	if (!cm) {
		/* No Init line for it (INIT not logged): guess by nranks. */
		cm = nl_comm_new(p, ptr);
		cm->nranks = (int)nranks;
		if (nranks > 0)
			nl_comm_bind_nranks(c, p, cm);
	}
	if (cm->group < 0 && nranks > 0) {
		cm->nranks = (int)nranks;
		nl_comm_bind_nranks(c, p, cm);
	}
	if (cm->group < 0) {
		nl_skip(c, "COLL record of an unknown comm without nranks");
		return NULL;
	}
	return cm;
}

/*
 * What a COLL record moves, in a comm of nranks: dtype, reduction,
 * counts in and out, root or peer.  (transfer none: interned)
 */
static const struct hd_opdesc *
coll_desc(struct nl_ctx *c, int which, const struct nl_coll *f, int64_t nranks)
{
	enum hd_op_kind kind = coll_ops[which].kind;
	struct hd_opdesc d = hd_opdesc_blank;

	d.name = c->coll_names[which];
	if (f->dtype >= 0 && f->dtype < (int64_t)G_N_ELEMENTS(nccl_dtypes)) {
		d.dtype = (uint8_t)nccl_dtypes[f->dtype];
	} else if (f->dtype >= 0) {
		char name[32];

		g_snprintf(name, sizeof(name), "ncclDataType %d",
			   (int)clamp_int(f->dtype, 0, INT_MAX));
		d.dtype = HD_DTYPE_OTHER;
		d.dtype_name = hd_intern(name);
	}
	if (is_reduction(kind) && f->redop >= 0)
		d.redop = f->redop >= 5 ? HD_REDOP_PREMULSUM
					: (uint8_t)(HD_REDOP_SUM + f->redop);
	switch (kind) {
	case HD_OP_ALL_GATHER:
		d.count_in = f->count;
		d.count_out = mul_or_unknown(f->count, nranks);
		break;
	case HD_OP_REDUCE_SCATTER:
		d.count_out = f->count;
		d.count_in = mul_or_unknown(f->count, nranks);
		break;
	case HD_OP_SEND:
		d.count_in = f->count;
		break;
	case HD_OP_RECV:
		d.count_out = f->count;
		break;
	default:
		d.count_in = d.count_out = f->count;
		break;
	}
	if ((kind == HD_OP_BROADCAST || kind == HD_OP_REDUCE ||
	     kind == HD_OP_GATHER || kind == HD_OP_SCATTER ||
	     kind == HD_OP_SEND || kind == HD_OP_RECV) &&
	    f->root >= 0)
		d.peer = (int32_t)clamp_int(f->root, 0, INT32_MAX);
	return hd_opdesc_intern(&d);
}

/*
 * Whether a COLL record of comm cm was read before: a record delivered
 * twice (an at-least-once log shipper, a log appended to itself, the same
 * log under two prefixes).  NCCL numbers a comm's ops in order, so only a
 * record whose opCount is not past the largest kept can be one; it is,
 * when a kept op of that opCount says the same (kind and descriptor,
 * which is interned).  Members of a coalesced group share an opCount and
 * may say the same: a record right after a kept one of its opCount is one
 * of them.  Normal records cost a compare; looking back costs a binary
 * search of the comm's ops.
 */
static bool coll_repeated(struct nl_ctx *c, const struct nl_comm *cm,
			  int64_t opcount, const struct hd_op *op)
{
	const uint32_t *ix = cm->ops;
	const struct hd_op *ops =
		(const struct hd_op *)(void *)c->store->ops->data;
	guint lo = 0, hi = cm->nops;

	if (opcount > cm->max_opcount ||
	    (cm->last_kept && opcount == cm->last_opcount))
		return false;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (hd_op_op_count(c->store, &ops[ix[mid]]) < opcount)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint k = 0; lo < cm->nops && k < 64; lo++, k++) {
		const struct hd_op *o = &ops[ix[lo]];

		if (hd_op_op_count(c->store, o) != opcount)
			break;
		if (o->kind == op->kind && hd_op_desc(o) == hd_op_desc(op) &&
		    o->flags == op->flags)
			return true;
	}
	return false;
}

/* Every field of a COLL record f of op which, mixed into one word. */
static uint64_t coll_key(int which, const struct nl_coll *f)
{
	const uint64_t v[] = { (uint64_t)which,	   f->opcount,
			       f->sendbuf,	   f->recvbuf,
			       f->stream,	   (uint64_t)f->count,
			       (uint64_t)f->dtype, (uint64_t)f->redop,
			       (uint64_t)f->root,  (uint64_t)f->nranks };
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < G_N_ELEMENTS(v); i++)
		h = (h ^ v[i]) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/*
 * Whether f, of cm, repeats cm's last COLL record on the line right
 * before it, field for field, in a log whose other lines came twice in a
 * row too (nccl-log.c folds those): a collector's second delivery, one
 * record.  Without such lines, the pair is two ops of a coalesced group
 * (one opCount for the group), which coll_repeated() keeps.
 */
static bool coll_twice(const struct nl_ctx *c, const struct nl_comm *cm,
		       const struct nl_coll *f, uint64_t key)
{
	return key && !f->cut && cm->last_kept &&
	       cm->last_line + 1 == c->lineno && cm->last_key == key &&
	       cm->last_opcount == (int64_t)f->opcount;
}

/* Descriptors remembered by the COLL fast path (coll_desc_memo()). */
#define NL_DESC_MEMO 64

struct nl_desc_memo {
	int64_t count, dtype, redop, root, nranks;
	int which; /* -1: empty */
	const struct hd_opdesc *d;
};

/*
 * coll_desc(), remembered: a training loop moves the same few tensors
 * over and over, so most COLL records repeat a descriptor already
 * interned.  The same key gives the same interned pointer.
 */
static const struct hd_opdesc *coll_desc_memo(struct nl_ctx *c, int which,
					      const struct nl_coll *f,
					      int64_t nranks)
{
	uint64_t h = ((uint64_t)f->count * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)f->dtype << 8) ^ ((uint64_t)f->redop << 16) ^
		     ((uint64_t)f->root << 24) ^ ((uint64_t)nranks << 40) ^
		     (uint64_t)which;
	struct nl_desc_memo *m;

	h *= 0xff51afd7ed558ccdull;
	/* two ways: the newest in m[0], the one it displaced in m[1] */
	m = &c->desc_memo[((h >> 58) % NL_DESC_MEMO) & ~(uint64_t)1];
	for (unsigned way = 0; way < 2; way++) {
		if (m[way].which == which && m[way].count == f->count &&
		    m[way].dtype == f->dtype && m[way].redop == f->redop &&
		    m[way].root == f->root && m[way].nranks == nranks)
			return m[way].d;
	}
	m[1] = m[0];
	m->d = coll_desc(c, which, f, nranks);
	m->which = which;
	m->count = f->count;
	m->dtype = f->dtype;
	m->redop = f->redop;
	m->root = f->root;
	m->nranks = nranks;
	return m->d;
}

/*
 * The life of p's host:pid that a COLL record on the comm at ptr is of:
 * p, unless p never made that comm while it logs the comms it makes
 * (an Init line), and a life before p made it at an Init line and did
 * not tear it down.  A restart that reuses the pid (pid 1 in a
 * container) may print the old life's last records after the new life's
 * first (issue 20, MED-2); a comm the new life never made is not its.
 */
static struct nl_proc *coll_life(struct nl_proc *p, uint64_t ptr)
{
	struct nl_proc *q = p;

	if (!p->made_init || !p->before || nl_proc_comm(p, ptr))
		return p;
	for (unsigned k = 0; k < 4 && (q = q->before); k++) {
		const struct nl_comm *cm = g_hash_table_lookup(q->live, &ptr);

		if (cm)
			return cm->init ? q : p;
	}
	return p;
}

/*
 * Keeps the op of a scanned COLL record f of process p; memo: find its
 * descriptor through coll_desc_memo() (the fast path; the long way
 * interns it each time, so that tests compare the two).
 */
static void coll_commit(struct nl_ctx *c, struct nl_proc *p, int which,
			const struct nl_coll *f, bool full_buffer, bool memo)
{
	struct nl_comm *cm;
	struct hd_op *op;
	int64_t nranks;
	uint64_t key;
	bool cut;

	if (f->count < 0 || f->nranks == 0 || f->nranks > (1 << 22)) {
		nl_skip(c, "COLL record with an impossible count or nranks");
		return;
	}
	if (p->before) {
		struct nl_proc *q = coll_life(p, f->comm);

		if (q != p) {
			q->last_line = MAX(q->last_line, c->lineno);
			p = q;
		}
	}
	cm = coll_comm(c, p, f->comm, f->nranks);
	if (!cm)
		return;

	op = hd_store_new_op(c->store);
	op->group = (uint32_t)cm->group;
	op->seq_kind = HD_SEQ_ORDINAL;
	op->kind = (uint8_t)coll_ops[which].kind;
	hd_op_set_op_count(c->store, op, (int64_t)f->opcount);
	op->state = HD_STATE_ENQUEUED;
	nranks = f->nranks < 0 ? cm->nranks : f->nranks;
	hd_op_set_desc(op, memo ? coll_desc_memo(c, which, f, nranks)
				: coll_desc(c, which, f, nranks));
	/* A record that filled NCCL's buffer was cut, even if it parsed. */
	cut = f->cut;
	if (full_buffer && !cut) {
		cut = true;
		hd_input_warn(c->in, c->lineno,
			      "COLL record fills the 1024-byte buffer, kept "
			      "as truncated");
	} else if (cut) {
		hd_input_warn(c->in, c->lineno,
			      "COLL record cut mid-token, kept as truncated");
	}
	if (cut)
		op->flags |= HD_OPF_TRUNCATED;
	/* needed only where the log's lines came twice (coll_twice()) */
	key = c->repeats ? coll_key(which, f) : 0;
	cm->last_kept = !coll_twice(c, cm, f, key) &&
			!coll_repeated(c, cm, (int64_t)f->opcount, op);
	cm->last_opcount = (int64_t)f->opcount;
	cm->last_key = key;
	cm->last_line = c->lineno;
	if (!cm->last_kept) {
		p->ndup++;
		g_array_set_size(c->store->ops, c->store->ops->len - 1);
		return;
	}
	cm->max_opcount = MAX(cm->max_opcount, (int64_t)f->opcount);
	if (cm->nops == cm->ops_cap) {
		g_assert(cm->ops_cap < G_MAXUINT32 / 2);
		cm->ops_cap = MAX(cm->ops_cap * 2, 64);
		cm->ops = g_renew(uint32_t, cm->ops, cm->ops_cap);
	}
	cm->ops[cm->nops++] = c->store->ops->len - 1;
	op->seq = cm->ncoll++;
	{
		struct hd_prov prov = { .input = c->input,
					.kind = HD_PROV_LINE,
					.at = c->lineno };

		hd_op_set_prov(c->store, op, &prov);
	}
	/* its process, until nl_attribute() gives it its rank */
	g_assert(p->index <= INT32_MAX);
	hd_op_set_rank(op, (int32_t)p->index);
	c->in->records++;
}

void nl_parse_coll(struct nl_ctx *c, struct nl_proc *p, int which,
		   const char *body, size_t n, size_t name_len,
		   bool full_buffer)
{
	struct nl_coll f;

	if (!coll_scan(c, body + name_len, body + n, &f))
		return;
	coll_commit(c, p, which, &f, full_buffer, false);
}

/* ------------------------------------------------------------------ */
/* The COLL fast path.                                                 */

/*
 * Nearly every line of a large NCCL log is a complete COLL record of a
 * process seen before.  nl_coll_fast() reads such a line in one pass:
 * its prefix is looked up among those nl_handle_nccl() read before on a
 * raw line (nl_coll_fast_fill()), its fields are scanned by
 * coll_scan_fast(), which accepts exactly the complete records that
 * coll_scan() reads to the end of the line and nothing else, and the op
 * is kept by the same coll_commit().  Any other line, or one this path
 * is unsure of, goes the long way, which is the reference: a unit test
 * and the fuzzer compare the two stores byte for byte.
 */

/* Bit i set when s[i] is a hex digit, for the 16 bytes at s. */
NL_INLINE unsigned hex_mask16(const char *s)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	/* unsigned range checks as signed compares, biased by 128 */
	__m128i dig = _mm_cmplt_epi8(
		_mm_add_epi8(v, _mm_set1_epi8((char)(-'0' - 128))),
		_mm_set1_epi8((char)(10 - 128)));
	__m128i let = _mm_cmplt_epi8(
		_mm_add_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)),
			     _mm_set1_epi8((char)(-'a' - 128))),
		_mm_set1_epi8((char)(6 - 128)));

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, let));
#else
	unsigned m = 0;

	for (unsigned i = 0; i < 16; i++)
		m |= (hexval1[(uint8_t)s[i]] != 0) << i;
	return m;
#endif
}

/*
 * The value of the 16 bytes at s read as hex digits, the first the most
 * significant; bytes that are not digits give garbage nibbles, which a
 * caller shifts out.
 */
NL_INLINE uint64_t hex_value16(const char *s)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i low = _mm_set1_epi8(0x0f);
	/* '0'..'9' -> 0..9; 'a'..'f', 'A'..'F' -> 1..6, plus 9 */
	__m128i alpha = _mm_and_si128(_mm_srli_epi16(v, 6), _mm_set1_epi8(1));
	__m128i nib = _mm_and_si128(
		_mm_add_epi8(_mm_and_si128(v, low),
			     _mm_add_epi8(_mm_slli_epi16(alpha, 3), alpha)),
		low);
	/* each 16-bit lane: its first nibble high, its second low */
	__m128i pair = _mm_or_si128(
		_mm_and_si128(_mm_slli_epi16(nib, 4), _mm_set1_epi16(0xf0)),
		_mm_srli_epi16(nib, 8));
	uint64_t x = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pair, pair));

	return __builtin_bswap64(x);
#else
	uint64_t v = 0;

	for (unsigned i = 0; i < 16; i++)
		v = (v << 4) | ((hexval1[(uint8_t)s[i]] - 1u) & 0xf);
	return v;
#endif
}

/* A literal of the COLL grammar, zero-padded to a 16-byte load. */
struct nl_lit {
	char s[16];
	unsigned len;
};

#define NL_LIT(str)                  \
	{                            \
		str, sizeof(str) - 1 \
	}
static const struct nl_lit lit_opcount = NL_LIT(": opCount ");
static const struct nl_lit lit_sendbuff = NL_LIT(" sendbuff 0x");
static const struct nl_lit lit_recvbuff = NL_LIT(" recvbuff 0x");
static const struct nl_lit lit_count = NL_LIT(" count ");
static const struct nl_lit lit_datatype = NL_LIT(" datatype ");
static const struct nl_lit lit_op = NL_LIT(" op ");
static const struct nl_lit lit_root = NL_LIT(" root ");
static const struct nl_lit lit_comm = NL_LIT(" comm 0x");
static const struct nl_lit lit_nranks = NL_LIT(" [nranks=");
static const struct nl_lit lit_stream = NL_LIT("] stream 0x");
#undef NL_LIT

/* The literal l at *q, stepped over; the text ends at end. */
NL_INLINE bool fast_lit(const char **q, const char *end, const struct nl_lit *l)
{
#ifdef __SSE2__
	if (end - *q >= 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)*q);
		__m128i b =
			_mm_loadu_si128((const __m128i *)(const void *)l->s);
		unsigned want = (1u << l->len) - 1;

		if (((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) &
		     want) != want)
			return false;
		*q += l->len;
		return true;
	}
#endif
	if ((size_t)(end - *q) < l->len || memcmp(*q, l->s, l->len) != 0)
		return false;
	*q += l->len;
	return true;
}

/*
 * scan_hex() at *q, the text from lo to end: 1 to 16 hex digits, a run
 * of 17 or more refused.  out NULL: checked, not read.  Sixteen bytes at
 * a time; near the end, the last sixteen of the text.
 */
NL_INLINE bool fast_hex(const char *lo, const char **q, const char *end,
			uint64_t *out)
{
	const char *s = *q;
	unsigned m, k;
	uint64_t v;

	if (end - s >= 16) {
		m = hex_mask16(s);
		if (m == 0xffff) {
			if (end - s > 16 && hexval1[(uint8_t)s[16]])
				return false;
			k = 16;
		} else {
			k = (unsigned)__builtin_ctz(~m);
		}
		if (k == 0)
			return false;
		if (out)
			*out = hex_value16(s) >> (4 * (16 - k));
		*q = s + k;
		return true;
	}
	if (end - lo >= 16 && end > s) {
		/* the last 16 bytes, of which the n from s on count */
		unsigned n = (unsigned)(end - s);

		m = hex_mask16(end - 16) >> (16 - n);
		k = (unsigned)__builtin_ctz(~m);
		if (k == 0)
			return false;
		if (out) {
			/* the n bytes from s are the last of the value */
			v = hex_value16(end - 16) &
			    (UINT64_MAX >> (64 - 4 * n));
			*out = v >> (4 * (n - k));
		}
		*q = s + k;
		return true;
	}
	v = 0;
	for (k = 0; s + k < end && hexval1[(uint8_t)s[k]]; k++) {
		if (k == 16)
			return false;
		v = (v << 4) | (hexval1[(uint8_t)s[k]] - 1u);
	}
	if (k == 0)
		return false;
	if (out)
		*out = v;
	*q = s + k;
	return true;
}

/*
 * scan_int() at *q, the text ending at end, of at most 18 digits; false
 * for more (scan_int() keeps the first 18 of them, and the long way
 * reads that rare line).  One digit is the common case; up to 7 are read
 * a word at a time: a byte is a digit when its high nibble is 3 and its
 * low one below 10, and the digits are summed in pairs, fours and
 * eights.
 */
NL_INLINE bool fast_int(const char **q, const char *end, int64_t *out)
{
	const char *s = *q, *d;
	uint64_t w, bad;
	int64_t v = 0;
	bool neg = s < end && *s == '-';

	s += neg;
	if (end - s >= 8) {
		if ((unsigned)(s[0] - '0') < 10 &&
		    (unsigned)(s[1] - '0') >= 10) {
			*out = neg ? -(s[0] - '0') : s[0] - '0';
			*q = s + 1;
			return true;
		}
		memcpy(&w, s, 8);
		bad = ((w & 0xf0f0f0f0f0f0f0f0ull) ^ 0x3030303030303030ull) |
		      (((w & 0x0f0f0f0f0f0f0f0full) + 0x0606060606060606ull) &
		       0x1010101010101010ull);
		if (bad) {
			unsigned k = (unsigned)__builtin_ctzll(bad) / 8;

			if (k == 0)
				return false;
			/* the digits to the top bytes, zeros before them */
			w <<= 8 * (8 - k);
			w = ((w & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
			w = ((w & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
			w = ((w & 0x0000ffff0000ffffull) * 42949672960001ull) >>
			    32;
			*out = neg ? -(int64_t)w : (int64_t)w;
			*q = s + k;
			return true;
		}
	}
	d = s;
	while (s < end && (unsigned)(*s - '0') < 10) {
		if (s - d == 18)
			return false; /* a 19th digit: before v overflows */
		v = v * 10 + (*s++ - '0');
	}
	if (s == d)
		return false;
	*out = neg ? -v : v;
	*q = s;
	return true;
}

/*
 * coll_scan() of a complete record that ends at end, and only of one:
 * false, with nothing noted, for anything else, which coll_scan()
 * decides (pointers other than 0x..., above all).
 */
static bool coll_scan_fast(const char *s, const char *end, struct nl_coll *f)
{
	const char *lo = s;

	f->cut = false;
	return fast_lit(&s, end, &lit_opcount) &&
	       fast_hex(lo, &s, end, &f->opcount) &&
	       fast_lit(&s, end, &lit_sendbuff) &&
	       fast_hex(lo, &s, end, NULL) &&
	       fast_lit(&s, end, &lit_recvbuff) &&
	       fast_hex(lo, &s, end, NULL) && fast_lit(&s, end, &lit_count) &&
	       fast_int(&s, end, &f->count) &&
	       fast_lit(&s, end, &lit_datatype) &&
	       fast_int(&s, end, &f->dtype) && fast_lit(&s, end, &lit_op) &&
	       fast_int(&s, end, &f->redop) && fast_lit(&s, end, &lit_root) &&
	       fast_int(&s, end, &f->root) && fast_lit(&s, end, &lit_comm) &&
	       fast_hex(lo, &s, end, &f->comm) &&
	       fast_lit(&s, end, &lit_nranks) &&
	       fast_int(&s, end, &f->nranks) &&
	       fast_lit(&s, end, &lit_stream) && fast_hex(lo, &s, end, NULL) &&
	       s == end;
}

/* The body from b to end of a line whose known prefix is e's. */
static bool coll_fast_body(struct nl_ctx *c, struct nl_prefix *e,
			   const char *line, const char *b, const char *end)
{
	size_t name_len;
	struct nl_coll f;
	int which;

	if (!e->fast || e->epoch != c->proc_epoch)
		return false;
	which = nl_coll_op(b, end - b, &name_len);
	if (which < 0 || !coll_scan_fast(b + name_len, end, &f))
		return false;
	/*
	 * Its pointers matter only to coll_twice(), in a log whose lines
	 * came twice: read there by the long way's scan, which accepts
	 * every record this one does.
	 */
	if (c->repeats && !coll_scan(c, b + name_len, end, &f))
		return false;
	/* from here on, what nl_handle_nccl() does with this line */
	nl_rec_touch(c, e->p, &e->rec, e->st, e->tag_rank);
	coll_commit(c, e->p, which, &f, end - (line + e->start_off) >= 1023,
		    true);
	c->coll_stop = end;
	return true;
}

/* The slot of nl_ctx.fast_quick for a line: its first 16 bytes. */
static unsigned quick_slot(const char *line)
{
	uint64_t w0, w1;

	memcpy(&w0, line, 8);
	memcpy(&w1, line + 8, 8);
	return (unsigned)(((w0 * 0x9e3779b97f4a7c15ull) ^
			   (w1 * 0xc2b2ae3d27d4eb4full)) >>
			  58) %
	       NL_FAST_QUICK;
}

bool nl_coll_fast(struct nl_ctx *c, const char *line, const char *a,
		  const char *b, const char *end)
{
	size_t n = a - line;
	struct nl_prefix *e;

	if (n == 0 || n >= NL_PREFIX_MAX)
		return false;
	e = nl_prefix_find(c, line, n);
	if (!e || !coll_fast_body(c, e, line, b, end))
		return false;
	if (n >= 16)
		c->fast_quick[quick_slot(line)] = e;
	return true;
}

/*
 * The prefixes that took the fast path, by their first 16 bytes: a line
 * that starts with one of them, then "NCCL INFO ", has its anchor right
 * there (the prefix held no anchor when it was read, and the bytes an
 * anchor test reads are the same), so neither the anchor search nor the
 * prefix's hash is needed.
 */
bool nl_coll_fast_quick(struct nl_ctx *c, const char *line, size_t n)
{
	struct nl_prefix *e;

	if (n < 32)
		return false;
	e = c->fast_quick[quick_slot(line)];
	if (!e || e->len < 16 || e->len + 10u >= n ||
	    !nl_prefix_same(e->text, line, e->len) ||
	    !same(line + e->len, "NCCL INFO ", 10))
		return false;
	return coll_fast_body(c, e, line, line + e->len + 10, line + n);
}

void nl_coll_fast_fill(struct nl_ctx *c, struct nl_prefix *e, const char *line,
		       const char *a, struct nl_proc *p, struct nl_stream *st,
		       const struct nl_wrap *w)
{
	if (!e || !e->ok || !e->rec.has_hpt || !p || hd_time_known(w->time) ||
	    memchr(line, '(', a - line))
		return;
	e->fast = true;
	e->epoch = c->proc_epoch;
	e->p = p;
	e->st = st;
	e->tag_rank = w->tag_rank;
}

void nl_coll_init(struct nl_ctx *c)
{
	c->desc_memo = g_new0(struct nl_desc_memo, NL_DESC_MEMO);
	c->fast_quick = g_new0(struct nl_prefix *, NL_FAST_QUICK);
	for (size_t i = 0; i < NL_DESC_MEMO; i++)
		c->desc_memo[i].which = -1;
	for (size_t i = 0; i < G_N_ELEMENTS(coll_ops); i++)
		c->coll_names[i] = hd_intern(coll_ops[i].name);
}

void nl_coll_clear(struct nl_ctx *c)
{
	g_free(c->desc_memo);
	g_free(c->fast_quick);
}
