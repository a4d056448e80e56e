/*
 * Mismatch votes: at each position of a group, what every rank called is
 * compared attribute by attribute (type, size, dtype, root, reduction
 * op), and the ranks that differ from the majority are the culprits; an
 * even split blames both sides at low confidence.  An op whose own sizes
 * contradict each other is reported by itself.  An FR op joined to its
 * NCCL COLL line (hd-join.c) is compared with the root and reduction op
 * that only the line carries, and both are cited.
 */
#include "config.h"

#include <string.h>

#include "hd-align-ctx.h"
#include "hd-align.h"
#include "hd-text.h"
#include "hd-banned.h"

/* Distinct values tracked per vote; more means no majority worth naming. */
#define MAX_VOTE_VALUES 64

static const enum hd_verdict_kind attr_verdict[ATTR_COUNT] = {
	[ATTR_TYPE] = HD_V_TYPE_MISMATCH,   [ATTR_SIZE] = HD_V_SIZE_MISMATCH,
	[ATTR_DTYPE] = HD_V_DTYPE_MISMATCH, [ATTR_ROOT] = HD_V_ROOT_MISMATCH,
	[ATTR_REDOP] = HD_V_REDOP_MISMATCH,
};

static const char *const attr_name[ATTR_COUNT] = {
	[ATTR_TYPE] = "collective type", [ATTR_SIZE] = "size",
	[ATTR_DTYPE] = "dtype",		 [ATTR_ROOT] = "root",
	[ATTR_REDOP] = "reduction op",
};

/*
 * An attribute's value, compared exactly, never as a hash: a hash of a
 * (kind, name) or (count in, count out) pair can collide, and a collision
 * is a mismatch that goes unreported.  tag keeps the forms of one
 * attribute apart (a shape string against an element count).
 */
struct aval {
	uint64_t a, b;
	uint8_t tag;
};

static bool aval_eq(struct aval x, struct aval y)
{
	return x.a == y.a && x.b == y.b && x.tag == y.tag;
}

static struct aval aval_of(uint8_t tag, uint64_t a, uint64_t b)
{
	struct aval v = { a, b, tag };

	return v;
}

struct vote {
	struct aval value[MAX_VOTE_VALUES];
	uint32_t count[MAX_VOTE_VALUES];
	uint32_t first[MAX_VOTE_VALUES]; /* index into the position's views */
	uint32_t nvalues;
	bool overflow;
};

static void vote_add(struct vote *v, struct aval value, uint32_t who)
{
	for (uint32_t i = 0; i < v->nvalues; i++) {
		if (aval_eq(v->value[i], value)) {
			v->count[i]++;
			return;
		}
	}
	if (v->nvalues == MAX_VOTE_VALUES) {
		v->overflow = true;
		return;
	}
	v->value[v->nvalues] = value;
	v->count[v->nvalues] = 1;
	v->first[v->nvalues] = who;
	v->nvalues++;
}

/* Index of the majority value; *tie when the top two counts are equal. */
static uint32_t vote_majority(const struct vote *v, bool *tie)
{
	uint32_t best = 0;

	*tie = false;
	for (uint32_t i = 1; i < v->nvalues; i++)
		if (v->count[i] > v->count[best])
			best = i;
	for (uint32_t i = 0; i < v->nvalues; i++)
		if (i != best && v->count[i] == v->count[best])
			*tie = true;
	return best;
}

/*
 * The side of a rooted op every rank holds alike: a gather's output and a
 * scatter's input are the root's alone (a non-root's is empty, "[[]]"),
 * and a broadcast or reduce is compared on what each rank puts in.
 * Returns 1 for the output side, 0 for the input side, -1 for both (an
 * op that is not rooted).
 */
static int rooted_side(enum hd_op_kind kind)
{
	if (kind == HD_OP_SCATTER)
		return 1;
	return hd_op_kind_is_rooted(kind) ? 0 : -1;
}

/*
 * One side of a source's dtype spelling "in,in->out" (interned), or the
 * whole spelling when it has no arrow; NULL when that side is empty.
 */
static const char *dtype_side(const char *name, int side)
{
	const char *arrow = side < 0 ? NULL : strstr(name, "->");

	if (!arrow)
		return name;
	if (side == 0)
		return arrow == name
			       ? NULL
			       : hd_intern_len(name, (size_t)(arrow - name));
	return arrow[2] ? hd_intern(arrow + 2) : NULL;
}

/*
 * The value of an attribute that must be equal on every rank at one
 * position.  Returns false when the op does not say (unknown field, or an
 * attribute that does not apply to its kind).
 */
static bool attr_value(const struct hd_op *op, enum attr at, uint8_t source,
		       struct aval *out)
{
	const struct hd_opdesc *d = hd_op_desc(op);

	/* Interned strings: equal text, equal pointer. */
#define STR(x) ((uint64_t)(uintptr_t)(x))
	switch (at) {
	case ATTR_TYPE:
		/* FR names tell variants apart (_all_gather_base). */
		*out = aval_of(0, op->kind,
			       source == HD_INPUT_FLIGHT_REC ? STR(d->name)
							     : 0);
		return op->kind != HD_OP_UNKNOWN || d->name;
	case ATTR_SIZE:
		switch (op->kind) {
		case HD_OP_ALL_TO_ALL:
		case HD_OP_COALESCED:
		case HD_OP_UNKNOWN:
			return false;
		case HD_OP_ALL_GATHER:
		case HD_OP_GATHER:
			/* Every rank sends the same; the root's output differs. */
			if (d->shape_in)
				*out = aval_of(1, STR(d->shape_in), 0);
			else if (d->count_in >= 0)
				*out = aval_of(0, (uint64_t)d->count_in, 0);
			else
				return false;
			return true;
		case HD_OP_REDUCE_SCATTER:
		case HD_OP_SCATTER:
			if (d->shape_out)
				*out = aval_of(1, STR(d->shape_out), 0);
			else if (d->count_out >= 0)
				*out = aval_of(0, (uint64_t)d->count_out, 0);
			else
				return false;
			return true;
		case HD_OP_BROADCAST:
		case HD_OP_REDUCE:
			/* what each rank puts in; the root's output is its own */
			if (d->shape_in)
				*out = aval_of(1, STR(d->shape_in), 0);
			else if (d->count_in >= 0)
				*out = aval_of(0, (uint64_t)d->count_in, 0);
			else
				return false;
			return true;
		default:
			if (d->shape_in || d->shape_out) {
				*out = aval_of(1, STR(d->shape_in),
					       STR(d->shape_out));
				return true;
			}
			if (d->count_in < 0 && d->count_out < 0)
				return false;
			*out = aval_of(0, (uint64_t)d->count_in,
				       (uint64_t)d->count_out);
			return true;
		}
	case ATTR_DTYPE:
		if (op->kind == HD_OP_COALESCED)
			return false;
		if (d->dtype_name) {
			const char *side = dtype_side(d->dtype_name,
						      rooted_side(op->kind));

			*out = aval_of(1, STR(side), 0);
			return side != NULL;
		}
		*out = aval_of(0, d->dtype, 0);
		return d->dtype != HD_DTYPE_UNKNOWN;
	case ATTR_ROOT:
		*out = aval_of(0, (uint64_t)d->peer, 0);
		return hd_op_kind_is_rooted(op->kind) && d->peer >= 0;
	case ATTR_REDOP:
		*out = aval_of(0, d->redop, 0);
		return hd_op_kind_is_reduction(op->kind) &&
		       d->redop != HD_REDOP_NONE;
	case ATTR_COUNT:
		break;
	}
#undef STR
	return false;
}

/*
 * Sizes an op contradicts by itself: an all_reduce whose output differs
 * from its input, an all_gather whose output is not nranks inputs.
 */
static const char *self_inconsistent(const struct hd_op *op, int nranks)
{
	const struct hd_opdesc *d = hd_op_desc(op);

	if (d->count_in < 0 || d->count_out < 0)
		return NULL;
	switch (op->kind) {
	case HD_OP_ALL_REDUCE:
		if (d->shape_in && d->shape_out)
			return d->shape_in != d->shape_out
				       ? "input and output shapes differ"
				       : NULL;
		return d->count_in != d->count_out
			       ? "input and output counts differ"
			       : NULL;
	case HD_OP_ALL_GATHER:
		if (nranks > 0 && d->count_out != d->count_in * nranks)
			return "output is not group size x input";
		return NULL;
	case HD_OP_REDUCE_SCATTER:
		if (nranks > 0 && d->count_in != d->count_out * nranks)
			return "input is not group size x output";
		return NULL;
	default:
		return NULL;
	}
}

/* The ops of each view at position key: [start, end) into view->ops. */
struct at_pos {
	uint32_t view;
	uint32_t start, end;
};

/* Member m of position p, as the vote sees it (with any joined log line). */
static const struct hd_op *pos_op(const struct group_ctx *c,
				  const struct at_pos *pos, uint32_t p,
				  uint32_t m, struct hd_op *buf)
{
	const struct view *vw =
		&g_array_index(c->views, struct view, pos[p].view);

	return hd_join_view(c->ix, vw->ops[pos[p].start + m], buf);
}

/* The ranks whose member-th op at a position has the best value, or not. */
static void vote_sides(const struct group_ctx *c, enum attr at,
		       const struct at_pos *pos, uint32_t npos,
		       struct aval best, uint32_t member, GArray *majority,
		       GArray *minority)
{
	for (uint32_t p = 0; p < npos; p++) {
		struct hd_op buf;
		const struct hd_op *op = pos_op(
			c, pos, p, MIN(member, pos[p].end - pos[p].start - 1),
			&buf);
		int rank =
			g_array_index(c->views, struct view, pos[p].view).rank;
		struct aval val;

		if (!attr_value(op, at, c->source, &val))
			continue;
		if (aval_eq(val, best))
			g_array_append_val(majority, rank);
		else
			g_array_append_val(minority, rank);
	}
}

/*
 * The mismatch verdict blaming the minority or, on an even split, both
 * sides; without evidence.
 */
static struct hd_verdict *mismatch_verdict(const struct group_ctx *c,
					   enum attr at, int64_t key,
					   const struct vote *vote, bool tie,
					   const GArray *majority,
					   const GArray *minority)
{
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	g_autofree char *min_text = hd_ranks_text(minority, 8);
	g_autofree char *maj_text = hd_ranks_text(majority, 8);
	struct hd_verdict *v;

	if (tie) {
		v = hd_verdict_new(
			attr_verdict[at], HD_CONF_LOW,
			"%s mismatch in %s at seq %" G_GINT64_FORMAT
			": ranks {%s} disagree with ranks {%s}, an even split, so either side may be wrong",
			attr_name[at], label, key, min_text, maj_text);
		for (guint i = 0; i < minority->len; i++)
			hd_verdict_add_culprit(v,
					       g_array_index(minority, int, i));
		for (guint i = 0; i < majority->len; i++)
			hd_verdict_add_culprit(v,
					       g_array_index(majority, int, i));
		return v;
	}
	g_clear_pointer(&maj_text, g_free);
	maj_text = hd_text_count(majority->len);
	v = hd_verdict_new(attr_verdict[at],
			   vote->overflow	? HD_CONF_LOW
			   : majority->len >= 2 ? HD_CONF_HIGH
						: HD_CONF_MEDIUM,
			   "%s mismatch in %s at seq %" G_GINT64_FORMAT
			   ": rank%s %s differ%s from the %s other%s",
			   attr_name[at], label, key,
			   minority->len == 1 ? "" : "s", min_text,
			   minority->len == 1 ? "s" : "", maj_text,
			   majority->len == 1 ? "" : "s");
	for (guint i = 0; i < minority->len; i++)
		hd_verdict_add_culprit(v, g_array_index(minority, int, i));
	return v;
}

/*
 * Cites every minority rank's op at the position and two of the
 * majority's, each with its joined log line if it has one.  True when
 * some cited op had one.
 */
static bool mismatch_cite(const struct group_ctx *c, struct hd_verdict *v,
			  enum attr at, const struct at_pos *pos, uint32_t npos,
			  struct aval best)
{
	uint32_t quoted = 0;
	bool joined = false;

	for (uint32_t p = 0; p < npos; p++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, pos[p].view);
		struct hd_op buf;
		const struct hd_op *op =
			hd_join_view(c->ix, vw->ops[pos[p].start], &buf);
		const struct hd_op *log =
			hd_join_partner(c->ix, vw->ops[pos[p].start]);
		struct aval val;
		bool in_minority;
		g_autofree char *src = NULL;
		g_autofree char *desc = NULL;

		if (!attr_value(op, at, c->source, &val))
			continue;
		in_minority = !aval_eq(val, best);
		/* Every minority rank, and a few of the majority. */
		if (!in_minority && quoted >= 2)
			continue;
		if (!in_minority)
			quoted++;
		/* Each item says what its own source says. */
		src = ctx_source(c, op);
		desc = hd_op_describe(c->s, ctx_op(c, vw->ops[pos[p].start]));
		hd_verdict_add_evidence(v, vw->rank, src, "rank %d: %s",
					vw->rank, desc);
		/* What only the joined log says, where it says it. */
		if (log) {
			g_autofree char *lsrc = ctx_source(c, log);
			g_autofree char *ldesc = hd_join_describe(c->s, log);

			hd_verdict_add_evidence(v, vw->rank, lsrc,
						"rank %d's log: %s", vw->rank,
						ldesc);
			joined = true;
		}
		if (v->evidence->len >= 12)
			break;
	}
	return joined;
}

static void report_mismatch(struct group_ctx *c, enum attr at, int64_t key,
			    const struct at_pos *pos, uint32_t npos,
			    const struct vote *vote, uint32_t member)
{
	g_autoptr(GArray) minority = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) majority = g_array_new(FALSE, FALSE, sizeof(int));
	const struct at_pos *ref;
	const struct hd_op *ref_op;
	struct hd_verdict *v;
	uint32_t best;
	bool tie;

	best = vote_majority(vote, &tie);
	vote_sides(c, at, pos, npos, vote->value[best], member, majority,
		   minority);
	/* a majority no rank is on is no vote: never "differ from the 0
	   others" */
	if (!tie && !majority->len)
		return;
	c->diverged[at]++;
	if (c->reported[at] >= MAX_REPORTS_PER_ATTR)
		return;
	c->reported[at]++;
	/* the first op voting with the majority names the collective */
	ref = &pos[vote->first[best]];
	ref_op = ctx_op(c, g_array_index(c->views, struct view, ref->view)
				   .ops[ref->start]);
	v = mismatch_verdict(c, at, key, vote, tie, majority, minority);
	v->group = c->group;
	v->seq = key;
	v->op = hd_op_kind_name(ref_op->kind);
	v->score = HD_SCORE_MISMATCH;
	if (mismatch_cite(c, v, at, pos, npos, vote->value[best]))
		hd_verdict_add_ruled_out(
			v,
			"a misjoined log: the dump and the NCCL log were joined only where each rank's COLL lines match its last collectives one for one in kind, count and dtype at a single offset");
	if (at != ATTR_TYPE)
		hd_verdict_add_ruled_out(
			v,
			"collective type: every rank called %s at seq %" G_GINT64_FORMAT,
			hd_op_kind_name(ref_op->kind), key);
	g_ptr_array_add(c->a->verdicts, v);
}

static void report_self_inconsistent(struct group_ctx *c, const struct view *vw,
				     const struct hd_op *op, int64_t key,
				     const char *why)
{
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	g_autofree char *src = ctx_source(c, op);
	g_autofree char *desc = hd_op_describe(c->s, op);
	struct hd_verdict *v;

	c->diverged[ATTR_SIZE]++;
	if (c->reported[ATTR_SIZE] >= MAX_REPORTS_PER_ATTR)
		return;
	c->reported[ATTR_SIZE]++;
	v = hd_verdict_new(HD_V_SIZE_MISMATCH, HD_CONF_MEDIUM,
			   "size mismatch in %s at seq %" G_GINT64_FORMAT
			   ": rank %d's %s is malformed (%s)",
			   label, key, vw->rank, hd_op_kind_name(op->kind),
			   why);
	hd_verdict_add_culprit(v, vw->rank);
	v->group = c->group;
	v->seq = key;
	v->op = hd_op_kind_name(op->kind);
	v->score = HD_SCORE_MISMATCH;
	hd_verdict_add_evidence(v, vw->rank, src, "rank %d: %s", vw->rank,
				desc);
	g_ptr_array_add(c->a->verdicts, v);
}

/*
 * Whether every rank that has a value for an attribute has the same one,
 * for all attributes of member m: what a vote would find, in one pass,
 * for the position that agrees (nearly all of them).
 */
static bool member_agrees(const struct group_ctx *c, const struct at_pos *pos,
			  uint32_t npos, uint32_t m, bool *uniform)
{
	struct aval ref[ATTR_COUNT];
	bool seen[ATTR_COUNT] = { false };
	const struct hd_opdesc *d0 = NULL;
	uint8_t kind0 = 0;
	uint32_t p;

	/*
	 * Attributes are a function of kind and descriptor, and descriptors
	 * are interned: the same pair on every rank agrees on everything.
	 */
	for (p = 0; p < npos; p++) {
		struct hd_op buf;
		const struct hd_op *op = pos_op(c, pos, p, m, &buf);

		if (p == 0) {
			d0 = hd_op_desc(op);
			kind0 = op->kind;
		} else if (hd_op_desc(op) != d0 || op->kind != kind0) {
			break;
		}
	}
	*uniform = p == npos;
	if (*uniform)
		return true;
	for (p = 0; p < npos; p++) {
		struct hd_op buf;
		const struct hd_op *op = pos_op(c, pos, p, m, &buf);

		for (int at = 0; at < ATTR_COUNT; at++) {
			struct aval val;

			if (!attr_value(op, at, c->source, &val))
				continue;
			if (!seen[at]) {
				seen[at] = true;
				ref[at] = val;
			} else if (!aval_eq(ref[at], val)) {
				return false;
			}
		}
	}
	return true;
}

/*
 * Like with like: which kind of value (a shape or a count, a dtype's name
 * or its number) the ranks at this position are compared on, as most of
 * them give it; -1 when the two kinds are equally common, and nothing is
 * compared.  A trace with no kernels gives shapes where another rank's
 * kernels give counts: `[[1024]]` and 1024 are not a mismatch.
 */
static int like_tag(const struct group_ctx *c, const struct at_pos *pos,
		    uint32_t npos, uint32_t m, enum attr at)
{
	uint32_t n[2] = { 0, 0 };

	for (uint32_t p = 0; p < npos; p++) {
		struct hd_op buf;
		const struct hd_op *op = pos_op(c, pos, p, m, &buf);
		struct aval val;

		if (attr_value(op, at, c->source, &val))
			n[val.tag != 0]++;
	}
	if (n[0] && n[1] && n[0] == n[1])
		return -1;
	return n[1] > n[0];
}

/* Compares what every rank called at one position. */
static void check_position(struct group_ctx *c, int64_t key,
			   const struct at_pos *pos, uint32_t npos)
{
	uint32_t min_len = UINT32_MAX, max_len = 0;

	for (uint32_t p = 0; p < npos; p++) {
		uint32_t len = pos[p].end - pos[p].start;

		min_len = MIN(min_len, len);
		max_len = MAX(max_len, len);
	}
	/* Each member of a coalesced group is compared with its peers. */
	for (uint32_t m = 0; m < min_len; m++) {
		bool type_differs = false, uniform;
		bool agrees = member_agrees(c, pos, npos, m, &uniform);
		int tag;

		for (int at = 0; at < ATTR_COUNT && !agrees; at++) {
			struct vote vote;

			if (type_differs)
				break;
			vote.nvalues = 0;
			vote.overflow = false;
			tag = like_tag(c, pos, npos, m, at);
			for (uint32_t p = 0; p < npos; p++) {
				struct hd_op buf;
				const struct hd_op *op =
					pos_op(c, pos, p, m, &buf);
				struct aval val;

				if (tag >= 0 &&
				    attr_value(op, at, c->source, &val) &&
				    val.tag == tag)
					vote_add(&vote, val, p);
			}
			if (vote.nvalues > 1 || vote.overflow) {
				report_mismatch(c, at, key, pos, npos, &vote,
						m);
				/* Other fields of different ops say nothing. */
				if (at == ATTR_TYPE)
					type_differs = true;
			}
		}
		if (type_differs)
			continue;
		/* one kind and descriptor: one answer for every rank */
		if (uniform) {
			const struct view *vw = &g_array_index(
				c->views, struct view, pos[0].view);

			if (!self_inconsistent(
				    ctx_op(c, vw->ops[pos[0].start + m]),
				    c->nranks))
				continue;
		}
		for (uint32_t p = 0; p < npos; p++) {
			const struct view *vw = &g_array_index(
				c->views, struct view, pos[p].view);
			const struct hd_op *op =
				ctx_op(c, vw->ops[pos[p].start + m]);
			const char *why = self_inconsistent(op, c->nranks);

			if (why)
				report_self_inconsistent(c, vw, op, key, why);
		}
	}
	if (min_len != max_len) {
		struct vote vote;

		vote.nvalues = 0;
		vote.overflow = false;
		for (uint32_t p = 0; p < npos; p++)
			vote_add(&vote,
				 aval_of(0, pos[p].end - pos[p].start, 0), p);
		report_mismatch(c, ATTR_TYPE, key, pos, npos, &vote, 0);
	}
}

/*
 * Keys a block covers, and the most ops one view may have in it, for
 * block_agrees().
 */
#define BLOCK_KEYS 64
#define BLOCK_OPS  256

/* What block_agrees() compares of one op: member_agrees()'s pair. */
struct block_op {
	int64_t key;
	const struct hd_opdesc *desc;
	uint8_t kind;
};

/*
 * Whether the votes at keys [lo, lo + BLOCK_KEYS) would find nothing:
 * every live view with ops there has the same ones as the first such
 * view (the same keys, kinds and joined descriptors, so every position
 * is uniform, as member_agrees() says), and each of those ops is
 * self-consistent.  Then the cursors move past the block and true is
 * returned; else nothing moves, and the block takes the walk by key.
 *
 * It reads each view's ops in the block in order, view after view: a
 * rank's ops lie together in the store and the ranks' do not, so the
 * walk by key, every rank at each key, reads 131,072 ranks' ops out of
 * cache and TLB one at a time.  ends: nlive slots of scratch.
 */
static bool block_agrees(struct group_ctx *c, const guint *live, guint nlive,
			 int64_t lo, uint32_t *ends)
{
	int64_t hi = lo + BLOCK_KEYS;
	struct block_op ref[BLOCK_OPS];
	uint32_t nref = 0;
	bool have_ref = false;

	for (guint j = 0; j < nlive; j++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, live[j]);
		uint32_t e = vw->cur, n;

		while (e < vw->n && view_key(vw, e) < hi) {
			if (e - vw->cur == BLOCK_OPS)
				return false;
			e++;
		}
		n = e - vw->cur;
		ends[j] = e;
		if (n == 0)
			continue;
		if (have_ref && n != nref)
			return false;
		for (uint32_t k = 0; k < n; k++) {
			struct hd_op buf;
			const struct hd_op *op =
				hd_join_view(c->ix, vw->ops[vw->cur + k], &buf);
			struct block_op b = { view_key(vw, vw->cur + k),
					      hd_op_desc(op), op->kind };

			if (!have_ref) {
				if (self_inconsistent(op, c->nranks))
					return false;
				ref[k] = b;
			} else if (b.key != ref[k].key ||
				   b.desc != ref[k].desc ||
				   b.kind != ref[k].kind) {
				return false;
			}
		}
		if (!have_ref) {
			have_ref = true;
			nref = n;
		}
	}
	for (guint j = 0; j < nlive; j++)
		g_array_index(c->views, struct view, live[j]).cur = ends[j];
	return true;
}

/* Walks all positions in key order and compares ranks at each. */
void hd_align_check_votes(struct group_ctx *c)
{
	g_autofree struct at_pos *pos = g_new(struct at_pos, c->views->len + 1);
	/* the views that take part: a rank of another instance never does */
	g_autofree guint *live = g_new(guint, c->views->len + 1);
	g_autofree uint32_t *ends = g_new(uint32_t, c->views->len + 1);
	/* keys below this take the walk by key: their block did not agree */
	int64_t walk_until = INT64_MIN;
	guint nlive = 0;

	for (guint i = 0; i < c->views->len; i++)
		if (!c->foreign ||
		    !g_hash_table_contains(
			    c->foreign,
			    GINT_TO_POINTER(
				    g_array_index(c->views, struct view, i)
					    .rank)))
			live[nlive++] = i;
	for (;;) {
		int64_t key = INT64_MAX;
		uint32_t npos = 0;

		/* the views at the lowest next key, in one pass */
		for (guint j = 0; j < nlive; j++) {
			guint i = live[j];
			const struct view *vw =
				&g_array_index(c->views, struct view, i);
			int64_t k;

			if (vw->cur >= vw->n)
				continue;
			k = view_key(vw, vw->cur);
			if (k < key) {
				key = k;
				npos = 0;
			}
			if (k == key)
				pos[npos++].view = i;
		}
		if (key == INT64_MAX)
			break;
		if (key >= walk_until && npos >= 2) {
			if (key <= INT64_MAX - BLOCK_KEYS &&
			    block_agrees(c, live, nlive, key, ends))
				continue;
			walk_until = key <= INT64_MAX - BLOCK_KEYS
					     ? key + BLOCK_KEYS
					     : INT64_MAX;
		}
		for (uint32_t p = 0; p < npos; p++) {
			struct view *vw = &g_array_index(c->views, struct view,
							 pos[p].view);

			pos[p].start = vw->cur;
			while (vw->cur < vw->n && view_key(vw, vw->cur) == key)
				vw->cur++;
			pos[p].end = vw->cur;
		}
		if (npos >= 2)
			check_position(c, key, pos, npos);
		else if (npos == 1) {
			const struct view *vw = &g_array_index(
				c->views, struct view, pos[0].view);

			for (uint32_t m = pos[0].start; m < pos[0].end; m++) {
				const char *why = self_inconsistent(
					ctx_op(c, vw->ops[m]), c->nranks);

				if (why)
					report_self_inconsistent(
						c, vw, ctx_op(c, vw->ops[m]),
						key, why);
			}
		}
	}
	for (int at = 0; at < ATTR_COUNT; at++)
		if (c->diverged[at] > c->reported[at]) {
			g_autofree char *label = hd_group_label(
				c->s, c->group, HD_GROUP_LABEL_LONG);

			g_ptr_array_add(
				c->a->notes,
				g_strdup_printf(
					"%s: %u more %s mismatches not listed",
					label,
					c->diverged[at] - c->reported[at],
					attr_name[at]));
		}
}
