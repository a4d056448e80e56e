/*
 * Group alignment: for every group, line up each rank's collectives by
 * position (collective_seq_id / trace Seq / the ordinal of an NCCL COLL
 * line), compare what every rank called at each position, find where
 * progress stops (missing and lagging ranks), pair point-to-point ops per
 * peer pair, and record who waits on whom for hd_check_chains().  An FR
 * op joined to its NCCL COLL line (hd-join.c) is compared with the root and
 * reduction op that only the line carries, and both are cited.
 *
 * Culprits are always chosen by evidence across all ranks: the minority at a
 * mismatch, the ranks absent from the blocked position.  A position below a
 * rank's first recorded op is unknown for that rank (ring buffers start at
 * different points), never a mismatch.
 */
#include "config.h"

#include <string.h>

#include "hd-checks.h"
#include "hd-banned.h"

/* Divergences reported per group and attribute before summarizing. */
#define MAX_REPORTS_PER_ATTR 5
/* Distinct values tracked per vote; more means no majority worth naming. */
#define MAX_VOTE_VALUES 64
/* Waiting ranks quoted as evidence before "and N more". */
#define MAX_EVIDENCE_RANKS 4

/* One rank's collective ops in one group and stream, keyed by position. */
struct view {
	int rank;
	uint32_t *ops; /* the lane's own array when borrowed */
	int64_t *keys; /* NULL: op i has key key_base + i */
	int64_t key_base;
	bool borrowed;
	uint32_t n;
	uint32_t cur; /* merge cursor */
	bool completion_info;
	int64_t first_pending; /* lowest key not completed, -1 none */
	int64_t max_key, min_key;
};

enum attr {
	ATTR_TYPE,
	ATTR_SIZE,
	ATTR_DTYPE,
	ATTR_ROOT,
	ATTR_REDOP,
	ATTR_COUNT
};

static const enum hd_verdict_kind attr_verdict[ATTR_COUNT] = {
	[ATTR_TYPE] = HD_V_TYPE_MISMATCH,
	[ATTR_SIZE] = HD_V_SIZE_MISMATCH,
	[ATTR_DTYPE] = HD_V_DTYPE_MISMATCH,
	[ATTR_ROOT] = HD_V_ROOT_MISMATCH,
	[ATTR_REDOP] = HD_V_REDOP_MISMATCH,
};

static const char *const attr_name[ATTR_COUNT] = {
	[ATTR_TYPE] = "collective type",
	[ATTR_SIZE] = "size",
	[ATTR_DTYPE] = "dtype",
	[ATTR_ROOT] = "root",
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
 * The value of an attribute that must be equal on every rank at one
 * position.  Returns false when the op does not say (unknown field, or an
 * attribute that does not apply to its kind).
 */
static bool attr_value(const struct hd_op *op, enum attr at, uint8_t source,
		       struct aval *out)
{
	const struct hd_opdesc *d = op->d;

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
			*out = aval_of(1, STR(d->dtype_name), 0);
			return true;
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
	const struct hd_opdesc *d = op->d;

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

struct group_ctx {
	struct hd_index *ix;
	struct hd_analysis *a;
	const struct hd_store *s;
	uint32_t group;
	const struct hd_group *g;
	uint8_t seq_kind;
	uint8_t source;
	GArray *views; /* struct view */
	uint32_t reported[ATTR_COUNT];
	uint32_t diverged[ATTR_COUNT];
	int nranks;
};

static const struct hd_op *ctx_op(const struct group_ctx *c, uint32_t i)
{
	return &g_array_index(c->s->ops, struct hd_op, i);
}

static char *ctx_source(const struct group_ctx *c, const struct hd_op *op)
{
	return hd_prov_format(c->s, &op->prov);
}

static inline int64_t view_key(const struct view *v, uint32_t i)
{
	return v->keys ? v->keys[i] : v->key_base + i;
}

static void view_clear(struct view *v)
{
	if (!v->borrowed)
		g_free(v->ops);
	g_free(v->keys);
}

static void views_free(GArray *views)
{
	for (guint i = 0; i < views->len; i++)
		view_clear(&g_array_index(views, struct view, i));
	g_array_unref(views);
}

/* Gives a borrowing view arrays of its own, holding its first v->n ops. */
static void view_own(struct view *v, const struct hd_lane *l)
{
	v->keys = g_new(int64_t, l->n + 1);
	for (uint32_t i = 0; i < v->n; i++)
		v->keys[i] = v->key_base + i;
	v->ops = g_new(uint32_t, l->n + 1);
	memcpy(v->ops, l->ops, v->n * sizeof(uint32_t));
	v->borrowed = false;
}

/*
 * Collective ops of a lane, keyed by seq or by their ordinal.  A lane of
 * collectives at consecutive keys, the usual case, lends its op array
 * and keys are computed: no copy of millions of ops.
 */
static void view_from_lane(const struct group_ctx *c, const struct hd_lane *l,
			   struct view *v)
{
	int64_t ordinal = 0;

	memset(v, 0, sizeof(*v));
	v->rank = l->rank;
	v->ops = l->ops;
	v->borrowed = true;
	v->first_pending = -1;
	v->min_key = v->max_key = -1;
	/* An NCCL log's lane: keys are positions, no op need be read. */
	if (l->n_p2p == 0 && l->seq_kind == HD_SEQ_ORDINAL &&
	    !l->has_completion_info) {
		v->n = l->n;
		if (v->n > 0) {
			v->min_key = 0;
			v->max_key = v->n - 1;
		}
		return;
	}
	for (uint32_t i = 0; i < l->n; i++) {
		const struct hd_op *op = ctx_op(c, l->ops[i]);
		int64_t key;

		if (hd_op_kind_is_p2p(op->kind))
			continue;
		key = l->seq_kind == HD_SEQ_ORDINAL ? ordinal++ : op->seq;
		if (v->n == 0)
			v->key_base = key;
		if (v->borrowed &&
		    (i != v->n || key != v->key_base + (int64_t)v->n))
			view_own(v, l);
		if (!v->borrowed) {
			v->ops[v->n] = l->ops[i];
			v->keys[v->n] = key;
		}
		v->n++;
		if (v->min_key < 0 || key < v->min_key)
			v->min_key = key;
		if (key > v->max_key)
			v->max_key = key;
		if (op->state == HD_STATE_COMPLETED ||
		    op->state == HD_STATE_STARTED)
			v->completion_info = true;
		if (op->state != HD_STATE_COMPLETED &&
		    (v->first_pending < 0 || key < v->first_pending))
			v->first_pending = key;
	}
	if (!v->completion_info)
		v->first_pending = -1;
}

static char *ranks_text(const GArray *ranks, guint max)
{
	GString *s = g_string_new(NULL);

	for (guint i = 0; i < ranks->len && i < max; i++)
		g_string_append_printf(s, "%s%d", i ? ", " : "",
				       g_array_index(ranks, int, i));
	if (ranks->len > max)
		g_string_append_printf(s, " and %u more", ranks->len - max);
	return g_string_free(s, FALSE);
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

static void report_mismatch(struct group_ctx *c, enum attr at, int64_t key,
			    const struct at_pos *pos, uint32_t npos,
			    const struct vote *vote, uint32_t member)
{
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	g_autoptr(GArray) minority = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) majority = g_array_new(FALSE, FALSE, sizeof(int));
	struct hd_verdict *v;
	uint32_t best;
	bool tie;
	const struct hd_op *ref_op;
	g_autofree char *min_text = NULL;
	g_autofree char *maj_text = NULL;
	uint32_t quoted = 0;
	bool joined = false;

	c->diverged[at]++;
	if (c->reported[at] >= MAX_REPORTS_PER_ATTR)
		return;
	c->reported[at]++;
	best = vote_majority(vote, &tie);
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
		if (aval_eq(val, vote->value[best]))
			g_array_append_val(majority, rank);
		else
			g_array_append_val(minority, rank);
	}
	min_text = ranks_text(minority, 8);
	maj_text = ranks_text(majority, 8);
	{
		const struct view *vw = &g_array_index(
			c->views, struct view, pos[vote->first[best]].view);

		ref_op = ctx_op(c, vw->ops[pos[vote->first[best]].start]);
	}
	if (tie) {
		v = hd_verdict_new(attr_verdict[at], HD_CONF_LOW,
				   "%s mismatch in %s at seq %" G_GINT64_FORMAT
				   ": ranks {%s} disagree with ranks {%s}, an even split, so either side may be wrong",
				   attr_name[at], label, key, min_text,
				   maj_text);
		for (guint i = 0; i < minority->len; i++)
			hd_verdict_add_culprit(v, g_array_index(minority, int,
								i));
		for (guint i = 0; i < majority->len; i++)
			hd_verdict_add_culprit(v, g_array_index(majority, int,
								i));
	} else {
		v = hd_verdict_new(attr_verdict[at],
				   vote->overflow ? HD_CONF_LOW
				   : majority->len >= 2 ? HD_CONF_HIGH
							: HD_CONF_MEDIUM,
				   "%s mismatch in %s at seq %" G_GINT64_FORMAT
				   ": rank%s %s differ%s from the %u other%s",
				   attr_name[at], label, key,
				   minority->len == 1 ? "" : "s", min_text,
				   minority->len == 1 ? "s" : "",
				   majority->len,
				   majority->len == 1 ? "" : "s");
		for (guint i = 0; i < minority->len; i++)
			hd_verdict_add_culprit(v, g_array_index(minority, int,
								i));
	}
	v->group = c->group;
	v->seq = key;
	v->op = hd_op_kind_name(ref_op->kind);
	v->score = HD_SCORE_MISMATCH;
	for (uint32_t p = 0; p < npos; p++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, pos[p].view);
		struct hd_op buf;
		const struct hd_op *op =
			hd_join_view(c->ix, vw->ops[pos[p].start], &buf);
		const struct hd_op *log = hd_join_partner(c->ix,
							  vw->ops[pos[p].start]);
		struct aval val;
		bool in_minority;
		g_autofree char *src = NULL;
		g_autofree char *desc = NULL;

		if (!attr_value(op, at, c->source, &val))
			continue;
		in_minority = !aval_eq(val, vote->value[best]);
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
						"rank %d's log: %s",
						vw->rank, ldesc);
			joined = true;
		}
		if (v->evidence->len >= 12)
			break;
	}
	if (joined)
		hd_verdict_add_ruled_out(v, "a misjoined log: the dump and the NCCL log were joined only where each rank's COLL lines match its last collectives one for one in kind, count and dtype at a single offset");
	if (at != ATTR_TYPE)
		hd_verdict_add_ruled_out(v, "collective type: every rank called %s at seq %" G_GINT64_FORMAT,
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
			d0 = op->d;
			kind0 = op->kind;
		} else if (op->d != d0 || op->kind != kind0) {
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

		for (int at = 0; at < ATTR_COUNT && !agrees; at++) {
			struct vote vote;

			if (type_differs)
				break;
			vote.nvalues = 0;
			vote.overflow = false;
			for (uint32_t p = 0; p < npos; p++) {
				struct hd_op buf;
				const struct hd_op *op =
					pos_op(c, pos, p, m, &buf);
				struct aval val;

				if (attr_value(op, at, c->source, &val))
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
			const struct view *vw =
				&g_array_index(c->views, struct view, pos[p].view);
			const struct hd_op *op = ctx_op(c, vw->ops[pos[p].start + m]);
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
			vote_add(&vote, aval_of(0, pos[p].end - pos[p].start, 0),
				 p);
		report_mismatch(c, ATTR_TYPE, key, pos, npos, &vote, 0);
	}
}

static int compare_int_asc(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Walks all positions in key order and compares ranks at each. */
static void check_mismatches(struct group_ctx *c)
{
	g_autofree struct at_pos *pos =
		g_new(struct at_pos, c->views->len + 1);

	for (;;) {
		int64_t key = INT64_MAX;
		uint32_t npos = 0;

		/* the views at the lowest next key, in one pass */
		for (guint i = 0; i < c->views->len; i++) {
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
			const struct view *vw =
				&g_array_index(c->views, struct view, pos[0].view);

			for (uint32_t m = pos[0].start; m < pos[0].end; m++) {
				const char *why = self_inconsistent(
					ctx_op(c, vw->ops[m]), c->nranks);

				if (why)
					report_self_inconsistent(
						c, vw, ctx_op(c, vw->ops[m]), key,
						why);
			}
		}
	}
	for (int at = 0; at < ATTR_COUNT; at++)
		if (c->diverged[at] > c->reported[at]) {
			g_autofree char *label = hd_group_label(
				c->s, c->group, HD_GROUP_LABEL_LONG);

			g_ptr_array_add(c->a->notes,
					g_strdup_printf("%s: %u more %s mismatches not listed",
							label,
							c->diverged[at] - c->reported[at],
							attr_name[at]));
		}
}

static const struct view *find_view(const struct group_ctx *c, int rank)
{
	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw = &g_array_index(c->views, struct view, i);

		if (vw->rank == rank)
			return vw;
	}
	return NULL;
}

/* The op of a view at key, or NULL. */
static const struct hd_op *view_op_at(const struct group_ctx *c,
				      const struct view *vw, int64_t key)
{
	for (uint32_t i = 0; i < vw->n; i++)
		if (view_key(vw, i) == key)
			return ctx_op(c, vw->ops[i]);
	return NULL;
}

static const struct hd_op *view_last_op(const struct group_ctx *c,
					const struct view *vw)
{
	return vw->n ? ctx_op(c, vw->ops[vw->n - 1]) : NULL;
}

/* Members of the group: its member list, else the ranks with views. */
static GArray *group_members(const struct group_ctx *c)
{
	GArray *m = g_array_new(FALSE, FALSE, sizeof(int));

	for (guint i = 0; i < c->g->members->len; i++) {
		int r = g_array_index(c->g->members, int, i);

		if (r >= 0)
			g_array_append_val(m, r);
	}
	for (guint i = 0; i < c->views->len; i++) {
		int r = g_array_index(c->views, struct view, i).rank;
		bool found = false;

		for (guint k = 0; k < m->len && !found; k++)
			found = g_array_index(m, int, k) == r;
		if (!found)
			g_array_append_val(m, r);
	}
	g_array_sort(m, compare_int_asc);
	return m;
}

static bool rank_input_truncated(const struct group_ctx *c, int rank)
{
	const struct hd_rank *r = hd_store_find_rank(c->s, rank);

	if (!r)
		return false;
	for (guint i = 0; i < r->inputs->len; i++) {
		uint32_t in = g_array_index(r->inputs, uint32_t, i);

		if (hd_store_input(c->s, in)->truncated)
			return true;
	}
	return false;
}

/*
 * Every member that left data is blocked at the same position, so the
 * collective waits on a member that left none.  That is a deduction from
 * absence, so it is said at low confidence with what is missing.
 */
static void report_by_elimination(struct group_ctx *c, int64_t frontier,
				  const GArray *waiting, const GArray *nodata,
				  const struct hd_op *blocked_op)
{
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	g_autofree char *nd = ranks_text(nodata, 8);
	const char *opname = blocked_op ? hd_op_kind_name(blocked_op->kind)
					: "collective";
	struct hd_verdict *v;

	v = hd_verdict_new(HD_V_MISSING_RANK, HD_CONF_LOW,
			   "all %u ranks of %s that left data are blocked in seq %" G_GINT64_FORMAT
			   " (%s); rank%s %s left no data, so the collective waits on %s",
			   waiting->len, label, frontier, opname,
			   nodata->len == 1 ? "" : "s", nd,
			   nodata->len == 1 ? "it" : "one of them");
	for (guint i = 0; i < nodata->len; i++)
		hd_verdict_add_culprit(v, g_array_index(nodata, int, i));
	v->group = c->group;
	v->seq = frontier;
	v->op = blocked_op ? hd_op_kind_name(blocked_op->kind) : NULL;
	v->score = HD_SCORE_MISSING - 5;
	for (guint i = 0; i < waiting->len && i < MAX_EVIDENCE_RANKS; i++) {
		int r = g_array_index(waiting, int, i);
		const struct view *vw = find_view(c, r);
		const struct hd_op *op = vw ? view_op_at(c, vw, frontier) : NULL;
		g_autofree char *src = NULL;
		g_autofree char *desc = NULL;

		if (!op)
			continue;
		src = ctx_source(c, op);
		desc = hd_op_describe(c->s, op);
		hd_verdict_add_evidence(v, r, src, "rank %d: %s", r, desc);
	}
	hd_verdict_add_ruled_out(v, "that rank%s %s hung inside seq %" G_GINT64_FORMAT
				 " rather than never reaching it: without %s data this cannot be told",
				 nodata->len == 1 ? "" : "s", nd, frontier,
				 nodata->len == 1 ? "its" : "their");
	g_ptr_array_add(c->a->notes,
			g_strdup_printf("%s: no data from rank%s %s (a missing dump or log)",
					label, nodata->len == 1 ? "" : "s", nd));
	g_ptr_array_add(c->a->verdicts, v);
}

/*
 * Where progress stops: the lowest position that some ranks entered and
 * did not finish (or, with enqueue-only data, the furthest position), and
 * the member ranks that never entered it.
 */
static bool check_frontier(struct group_ctx *c)
{
	g_autoptr(GArray) members = group_members(c);
	g_autoptr(GArray) waiting = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) absent = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) nodata = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	bool completion = false;
	bool trace = c->source == HD_INPUT_KINETO;
	int64_t frontier = -1, furthest = -1, lowest_max = INT64_MAX;
	bool lagging = false, weak = false;
	const struct hd_op *blocked_op = NULL;
	struct hd_verdict *v;
	g_autofree char *absent_text = NULL;
	g_autofree char *waiting_text = NULL;

	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw = &g_array_index(c->views, struct view, i);

		if (vw->completion_info)
			completion = true;
		if (vw->first_pending >= 0 &&
		    (frontier < 0 || vw->first_pending < frontier))
			frontier = vw->first_pending;
		if (vw->max_key > furthest)
			furthest = vw->max_key;
	}
	/*
	 * A trace holds only finished kernels, so where it ends is all it
	 * says; and only traces carrying Seq can be compared position by
	 * position (order-matched ones may be sampled).
	 */
	if (trace && c->seq_kind != HD_SEQ_COLLECTIVE)
		return false;
	if (!completion || trace)
		frontier = furthest;
	if (frontier < 0)
		return false; /* everything completed: nothing is stuck here */

	for (guint i = 0; i < members->len; i++) {
		int r = g_array_index(members, int, i);
		const struct view *vw = find_view(c, r);

		if (!vw) {
			if (hd_index_rank_has_data(c->ix, r) &&
			    c->source != HD_INPUT_KINETO)
				g_array_append_val(absent, r);
			else
				g_array_append_val(nodata, r);
			continue;
		}
		if (vw->max_key < frontier) {
			g_array_append_val(absent, r);
			if (vw->max_key < lowest_max)
				lowest_max = vw->max_key;
		} else if (completion && !trace ? vw->first_pending == frontier
						: vw->max_key >= frontier) {
			g_array_append_val(waiting, r);
			if (!blocked_op)
				blocked_op = view_op_at(c, vw, frontier);
		}
	}
	if (absent->len == 0 && waiting->len > 0 && completion &&
	    nodata->len > 0 && c->source != HD_INPUT_KINETO) {
		report_by_elimination(c, frontier, waiting, nodata, blocked_op);
		return true;
	}
	if (absent->len == 0 || waiting->len == 0)
		return false;
	for (guint i = 0; i < absent->len; i++) {
		const struct view *vw = find_view(c, g_array_index(absent, int, i));

		if (!vw || vw->max_key < frontier - 1)
			lagging = true;
	}
	absent_text = ranks_text(absent, 8);
	waiting_text = ranks_text(waiting, 8);
	{
		enum hd_confidence conf = HD_CONF_HIGH;
		const char *opname = blocked_op ? hd_op_kind_name(blocked_op->kind)
						: "collective";

		if (!completion) {
			/* Enqueue-only data (NCCL COLL lines). */
			conf = HD_CONF_MEDIUM;
			weak = true;
		}
		/* A trace may end early because its profiling window did. */
		if (absent->len > waiting->len || trace)
			conf = HD_CONF_LOW;
		if (trace)
			completion = false;
		for (guint i = 0; i < absent->len; i++)
			if (rank_input_truncated(c, g_array_index(absent, int, i)))
				conf = HD_CONF_LOW;
		if (lagging)
			v = hd_verdict_new(HD_V_LAGGING_RANK, conf,
					   "rank%s %s stopped early in %s: the other %u reached seq %" G_GINT64_FORMAT
					   " (%s)%s",
					   absent->len == 1 ? "" : "s",
					   absent_text, label, waiting->len,
					   frontier, opname,
					   completion ? " and are blocked there"
						      : "");
		else
			v = hd_verdict_new(HD_V_MISSING_RANK, conf,
					   "rank%s %s never entered seq %" G_GINT64_FORMAT
					   " (%s) of %s; %u other%s %s",
					   absent->len == 1 ? "" : "s",
					   absent_text, frontier, opname, label,
					   waiting->len,
					   waiting->len == 1 ? "" : "s",
					   completion ? "entered it and are blocked"
						      : "enqueued it");
		v->group = c->group;
		v->seq = frontier;
		v->op = blocked_op ? hd_op_kind_name(blocked_op->kind) : NULL;
		v->score = lagging ? HD_SCORE_LAGGING : HD_SCORE_MISSING;
	}
	for (guint i = 0; i < absent->len; i++) {
		int r = g_array_index(absent, int, i);
		const struct view *vw = find_view(c, r);
		const struct hd_op *last = vw ? view_last_op(c, vw) : NULL;

		hd_verdict_add_culprit(v, r);
		if (i >= MAX_EVIDENCE_RANKS * 2)
			continue;
		if (last) {
			g_autofree char *src = ctx_source(c, last);
			g_autofree char *desc = hd_op_describe_bare(c->s, last);
			g_autofree char *where = hd_op_where(c->s, last);

			if (where)
				hd_verdict_add_evidence(v, r, src,
							"rank %d last seen at %s; its last op here: %s",
							r, where, desc);
			else
				hd_verdict_add_evidence(v, r, src,
							"rank %d's last op here: %s",
							r, desc);
		} else {
			hd_verdict_add_evidence(v, r, NULL,
						"rank %d left data but recorded no op in %s",
						r, label);
		}
	}
	for (guint i = 0; i < waiting->len; i++) {
		int r = g_array_index(waiting, int, i);
		const struct view *vw = find_view(c, r);
		const struct hd_op *op = vw ? view_op_at(c, vw, frontier) : NULL;

		if (op) {
			for (guint k = 0; k < absent->len; k++)
				hd_index_add_wait(c->ix, r,
						  g_array_index(absent, int, k),
						  c->group, frontier, label,
						  &op->prov);
		}
		if (i >= MAX_EVIDENCE_RANKS || !op)
			continue;
		{
			g_autofree char *src = ctx_source(c, op);
			g_autofree char *desc = hd_op_describe(c->s, op);

			hd_verdict_add_evidence(v, r, src, "rank %d: %s", r,
						desc);
		}
	}
	if (waiting->len > MAX_EVIDENCE_RANKS)
		hd_verdict_add_evidence(v, -1, NULL,
					"and %u more ranks at the same op",
					waiting->len - MAX_EVIDENCE_RANKS);
	hd_verdict_add_ruled_out(v, "position by arrival order: ranks are compared by sequence position, not by which file was read first");
	if (weak && !trace)
		hd_verdict_add_ruled_out(v, "nothing: NCCL COLL lines show enqueue only, not completion; corroborate with watchdog timeouts");
	if (trace)
		hd_verdict_add_ruled_out(v, "nothing: a profiler trace ends where its window ended, which may differ by rank; corroborate with a dump or log");
	if (nodata->len) {
		g_autofree char *nd = ranks_text(nodata, 8);

		hd_verdict_add_ruled_out(v, "nothing about ranks {%s}: they left no data",
					 nd);
	}
	g_ptr_array_add(c->a->verdicts, v);
	return true;
}

/*
 * Every rank entered the same ops, but one finished fewer of them.  Dumps
 * are snapshots taken moments apart, so a gap of one op is noise.
 */
static void check_completion_lag(struct group_ctx *c)
{
	g_autoptr(GArray) behind = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *label = NULL;
	g_autofree char *bt = NULL;
	int64_t best = -1, worst = INT64_MAX;
	guint ahead = 0;
	struct hd_verdict *v;

	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw = &g_array_index(c->views, struct view, i);
		int64_t done = vw->first_pending >= 0 ? vw->first_pending - 1
						      : vw->max_key;

		if (!vw->completion_info)
			return;
		best = MAX(best, done);
	}
	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw = &g_array_index(c->views, struct view, i);
		int64_t done = vw->first_pending >= 0 ? vw->first_pending - 1
						      : vw->max_key;

		if (done <= best - 2) {
			g_array_append_val(behind, vw->rank);
			worst = MIN(worst, done);
		} else {
			ahead++;
		}
	}
	if (behind->len == 0 || behind->len >= ahead ||
	    c->source == HD_INPUT_KINETO)
		return;
	label = hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	bt = ranks_text(behind, 8);
	v = hd_verdict_new(HD_V_LAGGING_RANK, HD_CONF_MEDIUM,
			   "rank%s %s completed only up to seq %" G_GINT64_FORMAT
			   " of %s while %u other%s completed up to seq %" G_GINT64_FORMAT,
			   behind->len == 1 ? "" : "s", bt, worst, label, ahead,
			   ahead == 1 ? "" : "s", best);
	v->group = c->group;
	v->seq = worst + 1;
	v->score = HD_SCORE_LAGGING;
	for (guint i = 0; i < behind->len; i++) {
		int r = g_array_index(behind, int, i);
		const struct view *vw = find_view(c, r);
		const struct hd_op *op = vw ? view_op_at(c, vw, vw->first_pending) : NULL;

		hd_verdict_add_culprit(v, r);
		if (op && v->evidence->len < 8) {
			g_autofree char *src = ctx_source(c, op);
			g_autofree char *desc = hd_op_describe(c->s, op);

			if (!v->op)
				v->op = hd_op_kind_name(op->kind);
			hd_verdict_add_evidence(v, r, src,
						"rank %d's first unfinished op: %s",
						r, desc);
		}
	}
	hd_verdict_add_ruled_out(v, "a mismatch: the ops agree at every position all ranks recorded");
	hd_verdict_add_ruled_out(v, "a missing rank: every rank enqueued the same ops");
	g_ptr_array_add(c->a->verdicts, v);
}

static void check_collectives(struct group_ctx *c)
{
	const struct hd_group_index *gi =
		&g_array_index(c->ix->groups, struct hd_group_index, c->group);

	c->views = g_array_new(FALSE, FALSE, sizeof(struct view));
	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane =
			&g_array_index(gi->lanes, struct hd_lane, l);
		struct view vw;

		if (lane->seq_kind != c->seq_kind || lane->source != c->source)
			continue;
		view_from_lane(c, lane, &vw);
		if (vw.n == 0) {
			view_clear(&vw);
			continue;
		}
		g_array_append_val(c->views, vw);
	}
	/*
	 * Traces matched by kernel order alone (no Seq) may be sampled or
	 * cover different windows: a disagreement there says the alignment
	 * failed, not that a rank called the wrong op.  The straggler pass
	 * checks that alignment and says so.
	 */
	if (c->views->len > 0 &&
	    !(c->source == HD_INPUT_KINETO && c->seq_kind == HD_SEQ_ORDINAL))
		check_mismatches(c);
	if (c->views->len > 0 && !check_frontier(c))
		check_completion_lag(c);
	views_free(c->views);
	c->views = NULL;
}

/* Point-to-point ops of one direction between two ranks, in order. */
struct p2p_list {
	int from, to; /* global ranks */
	GArray *sends; /* uint32_t op index, on `from` */
	GArray *recvs; /* uint32_t op index, on `to` */
};

static void p2p_list_free(gpointer p)
{
	struct p2p_list *l = p;

	g_array_unref(l->sends);
	g_array_unref(l->recvs);
	g_free(l);
}

static struct p2p_list *p2p_get(GHashTable *pairs, int from, int to)
{
	uint64_t key = ((uint64_t)(uint32_t)from << 32) | (uint32_t)to;
	struct p2p_list *l = g_hash_table_lookup(pairs, &key);

	if (!l) {
		uint64_t *kp = g_new(uint64_t, 1);

		*kp = key;
		l = g_new0(struct p2p_list, 1);
		l->from = from;
		l->to = to;
		l->sends = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		l->recvs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		g_hash_table_insert(pairs, kp, l);
	}
	return l;
}

struct p2p_edge {
	int from, to;
	uint32_t op;
};

/* Each rank's edges, as indices into edges: rank -> GArray of guint. */
static GHashTable *p2p_out_edges(const GArray *edges)
{
	GHashTable *out = g_hash_table_new_full(NULL, NULL, NULL,
						(GDestroyNotify)g_array_unref);

	for (guint i = 0; i < edges->len; i++) {
		int from = g_array_index(edges, struct p2p_edge, i).from;
		GArray *list = g_hash_table_lookup(out, GINT_TO_POINTER(from));

		if (!list) {
			list = g_array_new(FALSE, FALSE, sizeof(guint));
			g_hash_table_insert(out, GINT_TO_POINTER(from), list);
		}
		g_array_append_val(list, i);
	}
	return out;
}

/*
 * Fills path with the shortest cycle of waits through start (start first
 * and last), if there is one.  Breadth first, each rank entered once:
 * there is an edge per unpartnered op, so two ranks can be joined by
 * hundreds of edges, and walking every path instead of every rank took
 * time exponential in the length of a chain of waits.
 */
static bool find_cycle(const GArray *edges, GHashTable *out, int start,
		       GArray *path)
{
	g_autoptr(GHashTable) parent = g_hash_table_new(NULL, NULL);
	g_autoptr(GArray) queue = g_array_new(FALSE, FALSE, sizeof(int));
	int last = -1;

	g_array_append_val(queue, start);
	for (guint q = 0; q < queue->len && last < 0; q++) {
		int at = g_array_index(queue, int, q);
		GArray *list = g_hash_table_lookup(out, GINT_TO_POINTER(at));

		for (guint i = 0; list && i < list->len; i++) {
			int to = g_array_index(edges, struct p2p_edge,
					       g_array_index(list, guint, i))
					 .to;

			if (to == start) {
				last = at;
				break;
			}
			if (g_hash_table_contains(parent, GINT_TO_POINTER(to)))
				continue;
			g_hash_table_insert(parent, GINT_TO_POINTER(to),
					    GINT_TO_POINTER(at));
			g_array_append_val(queue, to);
		}
	}
	if (last < 0)
		return false;
	/* Back from the last rank to start, then turned around. */
	g_array_set_size(path, 0);
	g_array_append_val(path, start);
	while (last != start) {
		g_array_append_val(path, last);
		last = GPOINTER_TO_INT(
			g_hash_table_lookup(parent, GINT_TO_POINTER(last)));
	}
	g_array_append_val(path, start);
	for (guint i = 0, j = path->len - 1; i < j; i++, j--) {
		int t = g_array_index(path, int, i);

		g_array_index(path, int, i) = g_array_index(path, int, j);
		g_array_index(path, int, j) = t;
	}
	return true;
}

static void check_p2p(struct group_ctx *c)
{
	const struct hd_group_index *gi =
		&g_array_index(c->ix->groups, struct hd_group_index, c->group);
	g_autoptr(GHashTable) pairs = g_hash_table_new_full(
		g_int64_hash, g_int64_equal, g_free, p2p_list_free);
	g_autoptr(GArray) edges = g_array_new(FALSE, FALSE,
					      sizeof(struct p2p_edge));
	g_autoptr(GHashTable) out = NULL;
	g_autoptr(GHashTable) tried = NULL;
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	GHashTableIter it;
	gpointer key, value;
	uint32_t unmatched = 0;

	for (guint l = 0; l < gi->lanes->len; l++) {
		const struct hd_lane *lane =
			&g_array_index(gi->lanes, struct hd_lane, l);

		for (uint32_t i = 0; i < lane->n && lane->n_p2p > 0; i++) {
			const struct hd_op *op = ctx_op(c, lane->ops[i]);
			int peer;

			if (!hd_op_kind_is_p2p(op->kind) ||
			    (op->flags & HD_OPF_ANY_SOURCE))
				continue;
			peer = hd_group_global_rank(c->g, op->d->peer);
			if (peer < 0)
				continue;
			if (op->kind == HD_OP_SEND)
				g_array_append_val(p2p_get(pairs, op->rank, peer)->sends,
						   lane->ops[i]);
			else
				g_array_append_val(p2p_get(pairs, peer, op->rank)->recvs,
						   lane->ops[i]);
		}
	}
	g_hash_table_iter_init(&it, pairs);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct p2p_list *l = value;
		guint n = MIN(l->sends->len, l->recvs->len);

		for (guint i = 0; i < n; i++) {
			const struct hd_op *snd = ctx_op(c, g_array_index(l->sends, uint32_t, i));
			const struct hd_op *rcv = ctx_op(c, g_array_index(l->recvs, uint32_t, i));

			if (snd->d->count_in >= 0 && rcv->d->count_out >= 0 &&
			    snd->d->count_in != rcv->d->count_out &&
			    c->reported[ATTR_SIZE] < MAX_REPORTS_PER_ATTR) {
				g_autofree char *s1 = ctx_source(c, snd);
				g_autofree char *s2 = ctx_source(c, rcv);
				struct hd_verdict *v = hd_verdict_new(
					HD_V_SIZE_MISMATCH, HD_CONF_MEDIUM,
					"size mismatch in %s: rank %d sends %" G_GINT64_FORMAT
					" elements to rank %d, which receives %" G_GINT64_FORMAT,
					label, l->from, snd->d->count_in, l->to,
					rcv->d->count_out);

				c->reported[ATTR_SIZE]++;
				hd_verdict_add_culprit(v, l->from);
				hd_verdict_add_culprit(v, l->to);
				v->group = c->group;
				v->seq = snd->seq;
				v->op = "send";
				v->score = HD_SCORE_MISMATCH;
				hd_verdict_add_evidence(
					v, l->from, s1,
					"rank %d: send #%u to rank %d, %" G_GINT64_FORMAT
					" elements",
					l->from, i, l->to, snd->d->count_in);
				hd_verdict_add_evidence(
					v, l->to, s2,
					"rank %d: recv #%u from rank %d, %" G_GINT64_FORMAT
					" elements",
					l->to, i, l->from, rcv->d->count_out);
				g_ptr_array_add(c->a->verdicts, v);
			}
		}
		/* Extra sends wait on the receiver; extra recvs on the sender. */
		for (guint i = n; i < l->sends->len; i++) {
			uint32_t oi = g_array_index(l->sends, uint32_t, i);
			const struct hd_op *op = ctx_op(c, oi);
			struct p2p_edge e = { l->from, l->to, oi };

			if (op->state == HD_STATE_COMPLETED)
				continue;
			g_array_append_val(edges, e);
		}
		for (guint i = n; i < l->recvs->len; i++) {
			uint32_t oi = g_array_index(l->recvs, uint32_t, i);
			const struct hd_op *op = ctx_op(c, oi);
			struct p2p_edge e = { l->to, l->from, oi };

			if (op->state == HD_STATE_COMPLETED)
				continue;
			g_array_append_val(edges, e);
		}
	}
	if (edges->len == 0)
		return;
	out = p2p_out_edges(edges);
	tried = g_hash_table_new(NULL, NULL);
	/* A cycle is a deadlock: report it once, with every member. */
	for (guint i = 0; i < edges->len; i++) {
		const struct p2p_edge *e = &g_array_index(edges, struct p2p_edge, i);
		g_autoptr(GArray) path = g_array_new(FALSE, FALSE, sizeof(int));

		/* A rank's parallel edges would only repeat its search. */
		if (!g_hash_table_add(tried, GINT_TO_POINTER(e->from)))
			continue;
		if (find_cycle(edges, out, e->from, path)) {
			GString *chain = g_string_new(NULL);
			struct hd_verdict *v;

			for (guint k = 0; k < path->len; k++)
				g_string_append_printf(chain, "%s%d",
						       k ? " -> " : "",
						       g_array_index(path, int, k));
			v = hd_verdict_new(HD_V_P2P_UNMATCHED, HD_CONF_HIGH,
					   "p2p deadlock in %s: ranks wait on each other in a cycle %s",
					   label, chain->str);
			g_string_free(chain, TRUE);
			v->group = c->group;
			v->op = "send/recv";
			v->score = HD_SCORE_P2P + 2;
			for (guint k = 0; k < path->len; k++)
				hd_verdict_add_culprit(v, g_array_index(path, int, k));
			for (guint k = 0; k < edges->len; k++) {
				const struct p2p_edge *x =
					&g_array_index(edges, struct p2p_edge, k);
				const struct hd_op *op = ctx_op(c, x->op);
				g_autofree char *src = ctx_source(c, op);
				g_autofree char *desc = hd_op_describe(c->s, op);

				if (v->evidence->len < 8)
					hd_verdict_add_evidence(v, x->from, src,
								"rank %d waits on rank %d: %s with no partner",
								x->from, x->to, desc);
			}
			hd_verdict_add_ruled_out(v, "a missing peer: every rank in the cycle left data and posted its op");
			g_ptr_array_add(c->a->verdicts, v);
			return;
		}
	}
	for (guint i = 0; i < edges->len; i++) {
		const struct p2p_edge *e = &g_array_index(edges, struct p2p_edge, i);
		const struct hd_op *op = ctx_op(c, e->op);
		g_autofree char *src = ctx_source(c, op);
		g_autofree char *desc = hd_op_describe(c->s, op);
		bool peer_data = hd_index_rank_has_data(c->ix, e->to);
		struct hd_verdict *v;

		if (unmatched++ >= MAX_REPORTS_PER_ATTR)
			break;
		v = hd_verdict_new(HD_V_P2P_UNMATCHED,
				   peer_data ? HD_CONF_MEDIUM : HD_CONF_LOW,
				   "unmatched %s in %s: rank %d's %s has no partner on rank %d%s",
				   hd_op_kind_name(op->kind), label, e->from,
				   hd_op_kind_name(op->kind), e->to,
				   peer_data ? "" : ", which left no data");
		hd_verdict_add_culprit(v, e->to);
		v->group = c->group;
		v->seq = op->seq;
		v->op = hd_op_kind_name(op->kind);
		v->score = HD_SCORE_P2P;
		hd_verdict_add_evidence(v, e->from, src, "rank %d: %s", e->from,
					desc);
		hd_index_add_wait(c->ix, e->from, e->to, c->group, op->seq,
				  label, &op->prov);
		g_ptr_array_add(c->a->verdicts, v);
	}
}

void hd_check_groups(struct hd_index *ix, struct hd_analysis *a)
{
	static const uint8_t streams[] = { HD_SEQ_COLLECTIVE, HD_SEQ_ORDINAL };
	static const uint8_t sources[] = { HD_INPUT_FLIGHT_REC, HD_INPUT_NCCL_LOG,
					   HD_INPUT_KINETO };

	for (guint g = 0; g < ix->groups->len; g++) {
		struct group_ctx c = { 0 };

		c.ix = ix;
		c.a = a;
		c.s = ix->store;
		c.group = g;
		c.g = g_ptr_array_index(ix->store->groups, g);
		c.nranks = c.g->nranks;
		for (size_t k = 0; k < G_N_ELEMENTS(sources); k++) {
			c.source = sources[k];
			for (size_t j = 0; j < G_N_ELEMENTS(streams); j++) {
				c.seq_kind = streams[j];
				check_collectives(&c);
			}
		}
		check_p2p(&c);
	}
}

/* Breadth-first from a culprit through the waits to a rank that waits on no one. */
void hd_check_chains(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	guint nverdicts = a->verdicts->len;

	for (guint i = 0; i < nverdicts; i++) {
		const struct hd_verdict *mv = g_ptr_array_index(a->verdicts, i);
		g_autoptr(GArray) chain = NULL;
		g_autoptr(GArray) steps = NULL;
		struct hd_verdict *v;
		int at;

		if ((mv->kind != HD_V_MISSING_RANK &&
		     mv->kind != HD_V_LAGGING_RANK) ||
		    mv->culprits->len != 1)
			continue;
		at = g_array_index(mv->culprits, int, 0);
		chain = g_array_new(FALSE, FALSE, sizeof(int));
		steps = g_array_new(FALSE, FALSE, sizeof(guint));
		g_array_append_val(chain, at);
		for (int depth = 0; depth < 64; depth++) {
			guint step = G_MAXUINT;
			bool loop = false;

			for (guint w = 0; w < ix->waits->len; w++) {
				const struct hd_wait *wt =
					&g_array_index(ix->waits, struct hd_wait, w);

				if (wt->waiter == at && wt->group != mv->group) {
					step = w;
					break;
				}
			}
			if (step == G_MAXUINT)
				break;
			at = g_array_index(ix->waits, struct hd_wait, step).on;
			for (guint k = 0; k < chain->len && !loop; k++)
				loop = g_array_index(chain, int, k) == at;
			g_array_append_val(steps, step);
			g_array_append_val(chain, at);
			if (loop)
				break;
		}
		if (steps->len == 0)
			continue;
		{
			GString *text = g_string_new(NULL);
			int root = g_array_index(chain, int, chain->len - 1);
			g_autofree char *first_label = hd_group_label(
				s, mv->group, HD_GROUP_LABEL_LONG);

			for (guint k = 0; k < chain->len; k++)
				g_string_append_printf(text, "%s%d",
						       k ? " -> " : "",
						       g_array_index(chain, int, k));
			v = hd_verdict_new(HD_V_BLOCKED_CHAIN, HD_CONF_HIGH,
					   "rank %d is the root blocker: rank %d, missing from %s seq %" G_GINT64_FORMAT
					   ", is itself blocked (wait chain %s)",
					   root, g_array_index(chain, int, 0),
					   first_label, mv->seq, text->str);
			g_string_free(text, TRUE);
			hd_verdict_add_culprit(v, root);
			v->group = mv->group;
			v->seq = mv->seq;
			v->op = mv->op;
			v->confidence = mv->confidence;
			v->score = HD_SCORE_CHAIN;
			for (guint k = 0; k < steps->len; k++) {
				const struct hd_wait *wt = &g_array_index(
					ix->waits, struct hd_wait,
					g_array_index(steps, guint, k));
				g_autofree char *src = hd_prov_format(s, &wt->prov);

				hd_verdict_add_evidence(v, wt->waiter,
							wt->prov.kind ? src : NULL,
							"rank %d is blocked in %s seq %" G_GINT64_FORMAT
							", waiting for rank %d",
							wt->waiter, wt->what, wt->seq,
							wt->on);
			}
			hd_verdict_add_ruled_out(v, "rank %d as the cause: it is absent from %s because it is itself blocked elsewhere",
						 g_array_index(chain, int, 0),
						 first_label);
			g_ptr_array_add(a->verdicts, v);
		}
	}
}
