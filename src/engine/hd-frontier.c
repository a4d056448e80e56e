/*
 * The blocked frontier: the lowest position some ranks entered and did not
 * finish (or, with enqueue-only data, the furthest one), the member ranks
 * that never entered it (missing, or lagging when further behind), and
 * the wait edges from the blocked ranks to them.  When every rank that
 * left data is blocked there, the culprit is deduced among those that left
 * none.  Without a frontier, a rank that finished fewer of the same ops
 * is lagging.  A position below a rank's first recorded op is unknown for
 * that rank (ring buffers start at different points).
 */
#include "config.h"

#include "hd-align.h"
#include "hd-banned.h"

/* Waiting ranks quoted as evidence before "and N more". */
#define MAX_EVIDENCE_RANKS 4

static int compare_int_asc(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static const struct view *find_view(const struct group_ctx *c, int rank)
{
	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);

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
	g_autofree char *nd = hd_align_ranks_text(nodata, 8);
	const char *opname =
		blocked_op ? hd_op_kind_name(blocked_op->kind) : "collective";
	struct hd_verdict *v;

	v = hd_verdict_new(
		HD_V_MISSING_RANK, HD_CONF_LOW,
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
		const struct hd_op *op =
			vw ? view_op_at(c, vw, frontier) : NULL;
		g_autofree char *src = NULL;
		g_autofree char *desc = NULL;

		if (!op)
			continue;
		src = ctx_source(c, op);
		desc = hd_op_describe(c->s, op);
		hd_verdict_add_evidence(v, r, src, "rank %d: %s", r, desc);
	}
	hd_verdict_add_ruled_out(
		v,
		"that rank%s %s hung inside seq %" G_GINT64_FORMAT
		" rather than never reaching it: without %s data this cannot be told",
		nodata->len == 1 ? "" : "s", nd, frontier,
		nodata->len == 1 ? "its" : "their");
	g_ptr_array_add(
		c->a->notes,
		g_strdup_printf(
			"%s: no data from rank%s %s (a missing dump or log)",
			label, nodata->len == 1 ? "" : "s", nd));
	g_ptr_array_add(c->a->verdicts, v);
}

/*
 * Where progress stops: the lowest position that some ranks entered and
 * did not finish (or, with enqueue-only data, the furthest position), and
 * the member ranks that never entered it.
 */
bool hd_align_check_frontier(struct group_ctx *c)
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
		const struct view *vw =
			&g_array_index(c->views, struct view, i);

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
		const struct view *vw =
			find_view(c, g_array_index(absent, int, i));

		if (!vw || vw->max_key < frontier - 1)
			lagging = true;
	}
	absent_text = hd_align_ranks_text(absent, 8);
	waiting_text = hd_align_ranks_text(waiting, 8);
	{
		enum hd_confidence conf = HD_CONF_HIGH;
		const char *opname = blocked_op
					     ? hd_op_kind_name(blocked_op->kind)
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
			if (rank_input_truncated(c,
						 g_array_index(absent, int, i)))
				conf = HD_CONF_LOW;
		if (lagging)
			v = hd_verdict_new(
				HD_V_LAGGING_RANK, conf,
				"rank%s %s stopped early in %s: the other %u reached seq %" G_GINT64_FORMAT
				" (%s)%s",
				absent->len == 1 ? "" : "s", absent_text, label,
				waiting->len, frontier, opname,
				completion ? " and are blocked there" : "");
		else
			v = hd_verdict_new(
				HD_V_MISSING_RANK, conf,
				"rank%s %s never entered seq %" G_GINT64_FORMAT
				" (%s) of %s; %u other%s %s",
				absent->len == 1 ? "" : "s", absent_text,
				frontier, opname, label, waiting->len,
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
				hd_verdict_add_evidence(
					v, r, src,
					"rank %d last seen at %s; its last op here: %s",
					r, where, desc);
			else
				hd_verdict_add_evidence(
					v, r, src, "rank %d's last op here: %s",
					r, desc);
		} else {
			hd_verdict_add_evidence(
				v, r, NULL,
				"rank %d left data but recorded no op in %s", r,
				label);
		}
	}
	for (guint i = 0; i < waiting->len; i++) {
		int r = g_array_index(waiting, int, i);
		const struct view *vw = find_view(c, r);
		const struct hd_op *op =
			vw ? view_op_at(c, vw, frontier) : NULL;

		if (op) {
			for (guint k = 0; k < absent->len; k++)
				hd_index_add_wait(
					c->ix, r, g_array_index(absent, int, k),
					c->group, frontier, label, &op->prov);
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
	hd_verdict_add_ruled_out(
		v,
		"position by arrival order: ranks are compared by sequence position, not by which file was read first");
	if (weak && !trace)
		hd_verdict_add_ruled_out(
			v,
			"nothing: NCCL COLL lines show enqueue only, not completion; corroborate with watchdog timeouts");
	if (trace)
		hd_verdict_add_ruled_out(
			v,
			"nothing: a profiler trace ends where its window ended, which may differ by rank; corroborate with a dump or log");
	if (nodata->len) {
		g_autofree char *nd = hd_align_ranks_text(nodata, 8);

		hd_verdict_add_ruled_out(
			v, "nothing about ranks {%s}: they left no data", nd);
	}
	g_ptr_array_add(c->a->verdicts, v);
	return true;
}

/*
 * Every rank entered the same ops, but one finished fewer of them.  Dumps
 * are snapshots taken moments apart, so a gap of one op is noise.
 */
void hd_align_check_completion_lag(struct group_ctx *c)
{
	g_autoptr(GArray) behind = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *label = NULL;
	g_autofree char *bt = NULL;
	int64_t best = -1, worst = INT64_MAX;
	guint ahead = 0;
	struct hd_verdict *v;

	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);
		int64_t done = vw->first_pending >= 0 ? vw->first_pending - 1
						      : vw->max_key;

		if (!vw->completion_info)
			return;
		best = MAX(best, done);
	}
	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);
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
	bt = hd_align_ranks_text(behind, 8);
	v = hd_verdict_new(
		HD_V_LAGGING_RANK, HD_CONF_MEDIUM,
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
		const struct hd_op *op =
			vw ? view_op_at(c, vw, vw->first_pending) : NULL;

		hd_verdict_add_culprit(v, r);
		if (op && v->evidence->len < 8) {
			g_autofree char *src = ctx_source(c, op);
			g_autofree char *desc = hd_op_describe(c->s, op);

			if (!v->op)
				v->op = hd_op_kind_name(op->kind);
			hd_verdict_add_evidence(
				v, r, src, "rank %d's first unfinished op: %s",
				r, desc);
		}
	}
	hd_verdict_add_ruled_out(
		v,
		"a mismatch: the ops agree at every position all ranks recorded");
	hd_verdict_add_ruled_out(
		v, "a missing rank: every rank enqueued the same ops");
	g_ptr_array_add(c->a->verdicts, v);
}
