/*
 * Group alignment: for every group, line up each rank's collectives by
 * position (collective_seq_id / trace Seq / the ordinal of an NCCL COLL
 * line), compare what every rank called at each position, find where
 * progress stops (missing and lagging ranks), pair point-to-point ops per
 * peer pair, and record who waits on whom for hd_check_chains().  This
 * file builds the views and runs those jobs for every group, source and
 * stream; hd-align.h says which file does which, and the views are built
 * in hd-align-ctx.c.
 *
 * Culprits are always chosen by evidence across all ranks: the minority at a
 * mismatch, the ranks absent from the blocked position.  A position below a
 * rank's first recorded op is unknown for that rank (ring buffers start at
 * different points), never a mismatch.
 */
#include "config.h"

#include <string.h>

#include "hd-align.h"
#include "hd-banned.h"

/* Fraction of opCount steps that must be exactly +1 to trust opCount. */
#define OPCOUNT_UNIT_SHARE 0.9
/* Notes about lines lost inside a group of calls, per comm. */
#define MAX_GROUP_NOTES 5

/*
 * Whether every view's ops carry an opCount that never falls and, from
 * one value to the next, nearly always rises by one: NCCL 2.3-2.7, and
 * 2.13+ where the calls of one ncclGroupStart/End share an opCount
 * (format-nccl-log.md, opCount).  Then opCount, not the line's ordinal,
 * says which call is which, and a jump or a short group shows a line
 * that the log lost.
 */
static bool opcount_informative(const struct group_ctx *c)
{
	uint64_t steps = 0, units = 0;
	int64_t lo = INT64_MAX, hi = -1;

	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);
		int64_t prev = -1;

		for (uint32_t j = 0; j < vw->n; j++) {
			int64_t oc =
				hd_op_op_count(c->s, ctx_op(c, vw->ops[j]));

			if (oc < 0 || (j > 0 && oc < prev))
				return false;
			/* both >= 0: the difference cannot overflow */
			if (j > 0 && oc != prev) {
				steps++;
				units += oc - prev == 1;
			}
			prev = oc;
			lo = MIN(lo, oc);
			hi = MAX(hi, oc);
		}
	}
	/*
	 * Keys are opCounts less the lowest (opcount_base()), plus the extra
	 * lines of groups: a span wider than any sequence (HD_MAX_SEQ) is no
	 * counter of one comm, and could not be keyed without overflow.
	 */
	if (hi >= 0 && hi - lo > HD_MAX_SEQ)
		return false;
	return steps >= 4 && (double)units >= OPCOUNT_UNIT_SHARE * steps;
}

/*
 * Whether some view's opCounts span a different number of values than
 * it has lines (a jump, or calls grouped under one opCount): the only
 * case where keying by opCount can change anything, found from each
 * view's first and last op instead of a pass over millions.
 */
static bool any_irregular(const struct group_ctx *c)
{
	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);
		int64_t first = hd_op_op_count(c->s, ctx_op(c, vw->ops[0]));
		int64_t last =
			hd_op_op_count(c->s, ctx_op(c, vw->ops[vw->n - 1]));

		/* last < first first: opCounts are any 64 bits of input */
		if (first >= 0 &&
		    (last < first || last - first != (int64_t)vw->n - 1))
			return true;
	}
	return false;
}

/* One opCount value and the most lines any rank gave it. */
struct oc_slot {
	int64_t oc;
	uint32_t lines; /* the most lines one rank logged with this opCount */
	int64_t key; /* the key of its first line */
};

static int compare_slot(const void *a, const void *b)
{
	const struct oc_slot *x = a, *y = b;

	if (x->oc != y->oc)
		return x->oc < y->oc ? -1 : 1;
	return (x->lines < y->lines) - (x->lines > y->lines);
}

/* Lines of vw from index j that share op j's opCount. */
static uint32_t run_length(const struct group_ctx *c, const struct view *vw,
			   uint32_t j)
{
	int64_t oc = hd_op_op_count(c->s, ctx_op(c, vw->ops[j]));
	uint32_t k = j;

	while (k < vw->n && hd_op_op_count(c->s, ctx_op(c, vw->ops[k])) == oc)
		k++;
	return k - j;
}

/*
 * The slots of every opCount any rank logged, ascending, each with the
 * most lines one rank gave it and the key of its first line: the opCount
 * itself plus the extra lines of the groups below it, so that without
 * grouped calls keys are opCounts.
 */
static GArray *opcount_slots(const struct group_ctx *c)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct oc_slot));
	guint out = 0;
	int64_t extra = 0, base = 0;

	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);

		for (uint32_t j = 0; j < vw->n;) {
			struct oc_slot sl = { 0 };

			sl.oc = hd_op_op_count(c->s, ctx_op(c, vw->ops[j]));
			sl.lines = run_length(c, vw, j);
			g_array_append_val(all, sl);
			j += sl.lines;
		}
	}
	/* by opCount, the most lines first: keep the first of each */
	g_array_sort(all, compare_slot);
	/*
	 * Keys are opCounts as they are, unless counting from the lowest is
	 * needed to stay within HD_MAX_SEQ (a counter near 2^63): the span
	 * is at most HD_MAX_SEQ (opcount_informative()), and extra at most
	 * the lines read, so no key overflows.
	 */
	if (all->len &&
	    g_array_index(all, struct oc_slot, all->len - 1).oc > HD_MAX_SEQ)
		base = g_array_index(all, struct oc_slot, 0).oc;
	for (guint i = 0; i < all->len; i++) {
		struct oc_slot *sl = &g_array_index(all, struct oc_slot, i);

		if (out &&
		    g_array_index(all, struct oc_slot, out - 1).oc == sl->oc)
			continue;
		sl->key = sl->oc - base + extra;
		extra += sl->lines - 1;
		g_array_index(all, struct oc_slot, out++) = *sl;
	}
	g_array_set_size(all, out);
	return all;
}

static const struct oc_slot *find_slot(const GArray *slots, int64_t oc)
{
	guint lo = 0, hi = slots->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		const struct oc_slot *sl =
			&g_array_index(slots, struct oc_slot, mid);

		if (sl->oc == oc)
			return sl;
		if (sl->oc < oc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void note_short_group(struct group_ctx *c, const struct view *vw,
			     const struct hd_op *op, uint32_t have,
			     uint32_t want, guint *notes)
{
	g_autofree char *src = NULL;

	if ((*notes)++ >= MAX_GROUP_NOTES)
		return;
	src = ctx_source(c, op);
	g_ptr_array_add(
		c->a->notes,
		g_strdup_printf(
			"%s: rank %d's log holds %u of the %u COLL lines with opCount %" G_GINT64_MODIFIER
			"x (calls grouped under one opCount): %u line(s) missing; that group is not compared on rank %d",
			src, vw->rank, have, want, hd_op_op_count(c->s, op),
			want - have, vw->rank));
}

static void note_jump(struct group_ctx *c, const struct view *vw,
		      const struct hd_op *prev, const struct hd_op *op,
		      int64_t gap)
{
	g_autofree char *src = ctx_source(c, op);

	g_ptr_array_add(
		c->a->notes,
		g_strdup_printf(
			"%s: rank %d's opCount jumps %" G_GINT64_MODIFIER
			"x -> %" G_GINT64_MODIFIER "x: %" G_GINT64_FORMAT
			" COLL line(s) missing from its log; ops aligned by opCount, the missing ones not compared",
			src, vw->rank, hd_op_op_count(c->s, prev),
			hd_op_op_count(c->s, op), gap));
}

/*
 * Rekeys one view by the slots; the lines of a group shorter than the
 * longest any rank logged are dropped from the view (which call was lost
 * cannot be told, so none of them is compared).  Returns lines lost.
 */
static uint64_t rekey_view(struct group_ctx *c, struct view *vw,
			   const GArray *slots, guint *notes)
{
	const uint32_t *src_ops = vw->ops;
	uint32_t *ops = g_new(uint32_t, vw->n + 1);
	int64_t *keys = g_new(int64_t, vw->n + 1);
	const struct hd_op *prev = NULL;
	uint64_t lost = 0;
	uint32_t n = 0;

	for (uint32_t j = 0; j < vw->n;) {
		const struct hd_op *op = ctx_op(c, src_ops[j]);
		uint32_t len = run_length(c, vw, j);
		const struct oc_slot *sl =
			find_slot(slots, hd_op_op_count(c->s, op));

		g_assert(sl && sl->lines >= len);
		if (prev &&
		    hd_op_op_count(c->s, op) - hd_op_op_count(c->s, prev) > 1) {
			lost += (uint64_t)(hd_op_op_count(c->s, op) -
					   hd_op_op_count(c->s, prev) - 1);
			note_jump(c, vw, prev, op,
				  hd_op_op_count(c->s, op) -
					  hd_op_op_count(c->s, prev) - 1);
		}
		if (len < sl->lines) {
			lost += sl->lines - len;
			note_short_group(c, vw, op, len, sl->lines, notes);
		} else {
			for (uint32_t k = 0; k < len; k++) {
				ops[n] = src_ops[j + k];
				keys[n++] = sl->key + k;
			}
		}
		prev = op;
		j += len;
	}
	if (!vw->borrowed)
		g_free(vw->ops);
	g_free(vw->keys);
	vw->ops = ops;
	vw->keys = keys;
	vw->borrowed = false;
	vw->n = n;
	vw->min_key = n ? keys[0] : -1;
	vw->max_key = n ? keys[n - 1] : -1;
	return lost;
}

/*
 * An NCCL log that lost a COLL line (a torn write, a cut paste) shifts
 * every later line of that rank by one: aligned by ordinal, each of them
 * would look like a mismatch.  Where opCount can be trusted, keys come
 * from opCounts (one per line of a group of calls sharing one); each
 * jump and each short group is said in a note, and the group's verdicts
 * are held to medium confidence since a log is known to be incomplete.
 * Returns the number of lines found missing.
 */
static uint64_t realign_by_opcount(struct group_ctx *c)
{
	g_autoptr(GArray) slots = NULL;
	uint64_t lost = 0;
	guint notes = 0;

	if (c->source != HD_INPUT_NCCL_LOG || c->seq_kind != HD_SEQ_ORDINAL ||
	    c->views->len < 2 || !any_irregular(c) || !opcount_informative(c))
		return 0;
	slots = opcount_slots(c);
	for (guint i = 0; i < c->views->len; i++)
		lost += rekey_view(c, &g_array_index(c->views, struct view, i),
				   slots, &notes);
	if (notes > MAX_GROUP_NOTES)
		g_ptr_array_add(
			c->a->notes,
			g_strdup_printf(
				"and %u more groups of calls with lines missing",
				notes - MAX_GROUP_NOTES));
	return lost;
}

/* Holds the verdicts from index first on, of this group, to medium. */
static void cap_confidence(struct group_ctx *c, guint first)
{
	for (guint i = first; i < c->a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(c->a->verdicts, i);

		if (v->group == (int64_t)c->group &&
		    v->confidence > HD_CONF_MEDIUM) {
			v->confidence = HD_CONF_MEDIUM;
			hd_verdict_add_ruled_out(
				v,
				"confidence held to medium: a log of this group lost COLL lines (see notes)");
		}
	}
}

static void check_collectives(struct group_ctx *c)
{
	uint64_t lost;
	guint first;

	hd_align_views_build(c);
	/*
	 * Traces matched by kernel order alone (no Seq) may be sampled or
	 * cover different windows: a disagreement there says the alignment
	 * failed, not that a rank called the wrong op.  The straggler pass
	 * checks that alignment and says so.
	 */
	lost = realign_by_opcount(c);
	/* a dump of an earlier attempt is no record of this run's ops */
	if (c->views->len > 0)
		hd_align_find_other_instance(c);
	first = c->a->verdicts->len;
	if (c->views->len > 0 &&
	    !(c->source == HD_INPUT_KINETO && c->seq_kind == HD_SEQ_ORDINAL))
		hd_align_check_votes(c);
	if (c->views->len > 0 && !hd_align_check_frontier(c))
		hd_align_check_completion_lag(c);
	if (lost)
		cap_confidence(c, first);
	hd_align_views_free(c);
}

void hd_check_groups(struct hd_index *ix, struct hd_analysis *a)
{
	static const uint8_t streams[] = { HD_SEQ_COLLECTIVE, HD_SEQ_ORDINAL };

	for (guint g = 0; g < ix->groups->len; g++) {
		struct group_ctx c = { 0 };

		c.ix = ix;
		c.a = a;
		c.s = ix->store;
		c.group = g;
		c.g = g_ptr_array_index(ix->store->groups, g);
		c.nranks = c.g->nranks;
		/* every kind but UNKNOWN, each on its own */
		for (uint8_t k = HD_INPUT_UNKNOWN + 1; k < HD_INPUT_KIND_COUNT;
		     k++) {
			c.source = k;
			for (size_t j = 0; j < G_N_ELEMENTS(streams); j++) {
				c.seq_kind = streams[j];
				check_collectives(&c);
			}
		}
		hd_align_check_p2p(&c);
	}
}
