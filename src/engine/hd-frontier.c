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

#include "hd-align-ctx.h"
#include "hd-align.h"
#include "hd-sort.h"
#include "hd-text.h"
#include "hd-banned.h"

/* Waiting ranks quoted as evidence before "and N more". */
#define MAX_EVIDENCE_RANKS 4

/* Ascending ranks as ranges: "0, 2, 4-7".  (transfer full) */
static char *ranks_ranges(const GArray *ranks)
{
	GString *t = g_string_new(NULL);

	for (guint i = 0; i < ranks->len;) {
		int lo = g_array_index(ranks, int, i);
		guint j = i;

		while (j + 1 < ranks->len &&
		       g_array_index(ranks, int, j + 1) ==
			       g_array_index(ranks, int, j) + 1)
			j++;
		g_string_append_printf(t, "%s%d", t->len ? ", " : "", lo);
		if (j > i)
			g_string_append_printf(t, "-%d",
					       g_array_index(ranks, int, j));
		i = j + 1;
	}
	return g_string_free(t, FALSE);
}

static const struct view *find_view(const struct group_ctx *c, int rank)
{
	/* a lookup, not a walk: members times views at 131k ranks */
	guint at = GPOINTER_TO_UINT(
		g_hash_table_lookup(c->view_of_rank, GINT_TO_POINTER(rank)));

	return at ? &g_array_index(c->views, struct view, at - 1) : NULL;
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

/*
 * Collectives whose completion on one rank needs every member's part:
 * a rank completed one only after every member entered it.  A rooted
 * op is left out (a root's small broadcast can finish into the next
 * rank's buffers before that rank calls it), and so are p2p ops.
 */
static bool proves_presence(enum hd_op_kind kind)
{
	return kind == HD_OP_ALL_REDUCE || kind == HD_OP_ALL_GATHER ||
	       kind == HD_OP_REDUCE_SCATTER || kind == HD_OP_ALL_TO_ALL ||
	       kind == HD_OP_BARRIER;
}

/*
 * Where the blocked members entered their first unfinished op: sorted by
 * that position, with the earliest and latest UTC time of entry up to
 * each (prefix extremes), so that a completion can be checked against
 * every member blocked at or below it in one search.
 */
struct entry_times {
	int64_t key; /* a blocked member's first unfinished position */
	int64_t lo, hi; /* UTC ns of entry, over keys up to key */
};

static gint compare_entry_times(gconstpointer pa, gconstpointer pb)
{
	const struct entry_times *a = pa, *b = pb;

	return (a->key > b->key) - (a->key < b->key);
}

static GArray *blocked_entry_times(const struct group_ctx *c)
{
	GArray *e = g_array_new(FALSE, FALSE, sizeof(struct entry_times));

	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);
		const struct hd_op *op;
		struct entry_times x;
		struct hd_time t;

		if (!vw->completion_info || vw->first_pending < 0)
			continue;
		op = view_op_at(c, vw, vw->first_pending);
		t = op ? hd_op_time(c->s, op, hd_op_t_enqueue(c->s, op))
		       : hd_time_none();
		if (!hd_time_known(t) || t.clock != HD_CLOCK_UTC)
			continue;
		x.key = vw->first_pending;
		x.lo = x.hi = t.ns;
		g_array_append_val(e, x);
	}
	g_array_sort(e, compare_entry_times);
	for (guint i = 1; i < e->len; i++) {
		struct entry_times *x =
			&g_array_index(e, struct entry_times, i);
		const struct entry_times *p =
			&g_array_index(e, struct entry_times, i - 1);

		x->lo = MIN(x->lo, p->lo);
		x->hi = MAX(x->hi, p->hi);
	}
	return e;
}

/*
 * Whether op, completed at position key, can prove that the members
 * blocked at or below key were there: a completion more than an hour
 * (HD_INCIDENT_GAP_NS) from when one of them entered its unfinished op,
 * on the UTC clock, is a record of another incident (a dump left from an
 * earlier run), and proves nothing about this one.  So is a completion
 * before one of them entered (beyond the clock skew between hosts): the
 * collective it completed could not have ended before every member
 * entered it, so it was another instance of that position, an earlier
 * attempt's (a rank that died in a restarted job leaves its previous
 * attempt's dump, minutes older than the others').  Times on other
 * clocks, or none, do not rule a completion out.  *far receives the
 * entry time it is furthest from, *before whether the completion came
 * before it.
 */
static bool completion_of_incident(const struct group_ctx *c,
				   const GArray *entries,
				   const struct hd_op *op, int64_t key,
				   int64_t *far, bool *before)
{
	int64_t ns;
	struct hd_time t;
	guint lo = 0, hi = entries->len;
	const struct entry_times *x;

	ns = hd_op_t_end(c->s, op) != INT64_MIN ? hd_op_t_end(c->s, op)
						: hd_op_t_enqueue(c->s, op);
	t = hd_op_time(c->s, op, ns);
	if (!hd_time_known(t) || t.clock != HD_CLOCK_UTC)
		return true;
	/* the last entry at or below key */
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(entries, struct entry_times, mid).key <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return true;
	x = &g_array_index(entries, struct entry_times, lo - 1);
	*before = t.ns < x->hi;
	/* |t - entry| > gap for an entry in [x->lo, x->hi]: the difference
	   of two int64, larger first, fits a uint64 (no overflow); a real
	   completion time (not the enqueue time in its place) before an
	   entry by more than the skew is another instance */
	if (t.ns < x->hi &&
	    (uint64_t)x->hi - (uint64_t)t.ns >
		    (uint64_t)(hd_op_t_end(c->s, op) != INT64_MIN
				       ? HD_TIME_SKEW_NS
				       : HD_INCIDENT_GAP_NS)) {
		*far = x->hi;
		return false;
	}
	if (t.ns > x->lo &&
	    (uint64_t)t.ns - (uint64_t)x->lo > (uint64_t)HD_INCIDENT_GAP_NS) {
		*far = x->lo;
		return false;
	}
	return true;
}

/* Says once per group which completion was set aside, and why. */
static void note_other_incident(const struct group_ctx *c, int rank,
				int64_t key, const struct hd_op *op,
				int64_t far, bool before)
{
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	g_autofree char *when = NULL, *entry = NULL, *note = NULL;
	int64_t ns = hd_op_t_end(c->s, op) != INT64_MIN
			     ? hd_op_t_end(c->s, op)
			     : hd_op_t_enqueue(c->s, op);

	when = hd_time_format(hd_op_time(c->s, op, ns), 0);
	entry = hd_time_format(hd_time_make(far, HD_CLOCK_UTC), 0);
	/* a day-old dump is said to be another incident's, as it is */
	if (before && hd_op_t_end(c->s, op) != INT64_MIN &&
	    (uint64_t)far - (uint64_t)hd_op_t_end(c->s, op) <=
		    (uint64_t)HD_INCIDENT_GAP_NS)
		note = g_strdup_printf(
			"%s: rank %d's completed seq %" G_GINT64_FORMAT
			" (%s) ended before a blocked rank entered its op (%s), which that collective needed: another instance of it (an earlier attempt's record), so it proves no rank's presence in this one",
			label, rank, key, when, entry);
	else
		note = g_strdup_printf(
			"%s: rank %d's completed seq %" G_GINT64_FORMAT
			" (%s) is more than an hour from when a blocked rank entered its op (%s): a record of another incident, so it proves no rank's presence in this one",
			label, rank, key, when, entry);
	for (guint i = 0; i < c->a->notes->len; i++)
		if (strcmp(g_ptr_array_index(c->a->notes, i), note) == 0)
			return;
	g_ptr_array_add(c->a->notes, g_steal_pointer(&note));
}

/*
 * The highest position of c that some rank completed and that every
 * member had to enter (see proves_presence()), or -1; *by the rank.
 * Only a completion of this incident counts (completion_of_incident()):
 * the ranks with a completion that does not are added to other (when not
 * NULL), as their record is of another instance of the group's ops.
 */
static int64_t group_completed(const struct group_ctx *c, int *by,
			       GHashTable *other)
{
	g_autoptr(GArray) entries = blocked_entry_times(c);
	int64_t best = -1;

	*by = -1;
	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);
		bool noted = false;

		if (!vw->completion_info)
			continue;
		for (uint32_t k = 0; k < vw->n; k++) {
			const struct hd_op *op = ctx_op(c, vw->ops[k]);
			int64_t key = view_key(vw, k);
			int64_t far;
			bool before = false;

			if (key <= best || op->state != HD_STATE_COMPLETED ||
			    !proves_presence(op->kind))
				continue;
			if (!completion_of_incident(c, entries, op, key, &far,
						    &before)) {
				if (!noted)
					note_other_incident(c, vw->rank, key,
							    op, far, before);
				if (other)
					g_hash_table_add(
						other,
						GINT_TO_POINTER(vw->rank));
				noted = true;
				continue;
			}
			best = key;
			*by = vw->rank;
		}
	}
	return best;
}

void hd_align_find_other_instance(struct group_ctx *c)
{
	int by;

	g_clear_pointer(&c->foreign, g_hash_table_unref);
	c->foreign = g_hash_table_new(NULL, NULL);
	group_completed(c, &by, c->foreign);
}

/* The lowest position above after that vw did not complete, or -1. */
static int64_t view_pending_after(const struct group_ctx *c,
				  const struct view *vw, int64_t after)
{
	int64_t low = -1;

	if (!vw->completion_info)
		return -1;
	for (uint32_t k = 0; k < vw->n; k++) {
		int64_t key = view_key(vw, k);

		if (key > after && (low < 0 || key < low) &&
		    ctx_op(c, vw->ops[k])->state != HD_STATE_COMPLETED)
			low = key;
	}
	return low;
}

/* Members of the group: its member list, else the ranks with views. */
static GArray *group_members(const struct group_ctx *c)
{
	GArray *m = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) extra = g_array_new(FALSE, FALSE, sizeof(int));
	guint known;

	for (guint i = 0; i < c->g->members->len; i++) {
		int r = g_array_index(c->g->members, int, i);

		if (r >= 0)
			g_array_append_val(m, r);
	}
	/* the ranks with a view that are not members, each once, sorted */
	g_array_sort(m, hd_compare_int);
	known = m->len;
	for (guint i = 0; i < c->views->len; i++)
		g_array_append_val(
			extra, g_array_index(c->views, struct view, i).rank);
	g_array_sort(extra, hd_compare_int);
	for (guint i = 0; i < extra->len; i++) {
		int r = g_array_index(extra, int, i);

		if ((i == 0 || r != g_array_index(extra, int, i - 1)) &&
		    (known == 0 ||
		     !bsearch(&r, m->data, known, sizeof(int), hd_compare_int)))
			g_array_append_val(m, r);
	}
	g_array_sort(m, hd_compare_int);
	return m;
}

/* Whether an input of rank's, of the kind c compares, was cut short. */
static bool rank_input_truncated(const struct group_ctx *c, int rank)
{
	const struct hd_rank *r = hd_store_find_rank(c->s, rank);

	if (!r)
		return false;
	for (guint i = 0; i < r->inputs->len; i++) {
		const struct hd_input *in = hd_store_input(
			c->s, g_array_index(r->inputs, uint32_t, i));

		if (in->truncated && in->kind == c->source)
			return true;
	}
	return false;
}

/*
 * A rank whose data ends where its input was cut is not behind: what it
 * did after the cut is unknown.  Says so in a note, once per group.
 */
static void note_cut(const struct group_ctx *c, const GArray *cut,
		     int64_t after)
{
	g_autofree char *label = NULL;
	g_autofree char *rt = NULL;
	g_autofree char *note = NULL;

	if (!cut->len)
		return;
	label = hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	rt = hd_ranks_text(cut, 8);
	if (after < 0)
		note = g_strdup_printf(
			"%s: the input of rank%s %s was cut short before %s first op here: what %s did is unknown, so %s not blamed",
			label, cut->len == 1 ? "" : "s", rt,
			cut->len == 1 ? "its" : "their",
			cut->len == 1 ? "it" : "they",
			cut->len == 1 ? "it is" : "they are");
	else
		note = g_strdup_printf(
			"%s: the input of rank%s %s was cut short: what %s did after seq %" G_GINT64_FORMAT
			" is unknown, so %s not blamed for stopping there",
			label, cut->len == 1 ? "" : "s", rt,
			cut->len == 1 ? "it" : "they", after,
			cut->len == 1 ? "it is" : "they are");
	/* the frontier and the completion lag may both see the cut */
	for (guint i = 0; i < c->a->notes->len; i++)
		if (strcmp(g_ptr_array_index(c->a->notes, i), note) == 0)
			return;
	g_ptr_array_add(c->a->notes, g_steal_pointer(&note));
}

/*
 * Whether some input is not usable (empty, cut before its first record,
 * of no known format, a byte copy under another rank's name, which may
 * be either rank's): it may be the data of a rank that seems to
 * have left none, so nobody is blamed by elimination.  An input set
 * apart as another incident's (hd_store_keep_incident()) is not one.
 */
static bool input_unread(const struct hd_store *s)
{
	guint other = 0;

	/* another incident's input is no rank's data of this one */
	for (guint i = 0; i < s->inputs->len; i++)
		other += ((const struct hd_input *)g_ptr_array_index(s->inputs,
								     i))
				 ->other_incident;
	return hd_store_usable_inputs(s) + other < s->inputs->len;
}

/*
 * Every member that left data is blocked at the same position, so the
 * collective waits on a member that left none, or whose record is of
 * another instance of these ops (foreign: a leftover of an earlier
 * attempt).  That is a deduction from absence, so it is said at low
 * confidence with what is missing.
 */
static void report_by_elimination(struct group_ctx *c, int64_t frontier,
				  const GArray *waiting, const GArray *nodata,
				  bool foreign, const struct hd_op *blocked_op)
{
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	g_autofree char *nd = hd_ranks_text(nodata, 8);
	const char *opname =
		blocked_op ? hd_op_kind_name(blocked_op->kind) : "collective";
	g_autofree char *nw = hd_text_count(waiting->len);
	bool one = nodata->len == 1;
	struct hd_verdict *v;

	if (foreign)
		v = hd_verdict_new(
			HD_V_MISSING_RANK, HD_CONF_LOW,
			"all %s ranks of %s with a record of this run are blocked in seq %" G_GINT64_FORMAT
			" (%s); the record of rank%s %s is of another instance of these ops (%s completed seq %" G_GINT64_FORMAT
			" cannot be the one they are blocked in), so %s left none of this run, and the collective waits on %s",
			nw, label, frontier, opname, one ? "" : "s", nd,
			one ? "its" : "their", frontier, one ? "it" : "they",
			one ? "it" : "one of them");
	else
		v = hd_verdict_new(
			HD_V_MISSING_RANK, HD_CONF_LOW,
			"all %s ranks of %s that left data are blocked in seq %" G_GINT64_FORMAT
			" (%s); rank%s %s left no data, so the collective waits on %s",
			nw, label, frontier, opname, one ? "" : "s", nd,
			one ? "it" : "one of them");
	for (guint i = 0; i < nodata->len; i++)
		hd_verdict_add_culprit(v, g_array_index(nodata, int, i));
	v->group = c->group;
	v->seq = frontier;
	v->op = blocked_op ? hd_op_kind_name(blocked_op->kind) : NULL;
	v->score = HD_SCORE_MISSING - 5;
	for (guint i = 0; i < waiting->len; i++) {
		int r = g_array_index(waiting, int, i);
		const struct view *vw = find_view(c, r);
		const struct hd_op *op =
			vw ? view_op_at(c, vw, frontier) : NULL;
		g_autofree char *src = NULL;
		g_autofree char *desc = NULL;

		if (!op)
			continue;
		/* one member without data: each waiting one waits on it, as
		   far as elimination tells (for hd_check_chains()) */
		if (nodata->len == 1) {
			struct hd_prov prov = hd_op_prov(c->s, op);

			hd_index_add_wait_inferred(
				c->ix, r, g_array_index(nodata, int, 0),
				c->group, frontier, label, &prov);
		}
		if (i >= MAX_EVIDENCE_RANKS)
			continue;
		src = ctx_source(c, op);
		desc = hd_op_describe(c->s, op);
		hd_verdict_add_evidence(v, r, src, "rank %d: %s", r, desc);
	}
	hd_verdict_add_ruled_out(
		v,
		"that rank%s %s hung inside seq %" G_GINT64_FORMAT
		" rather than never reaching it: without %s %s this cannot be told",
		one ? "" : "s", nd, frontier, one ? "its" : "their",
		foreign ? "record of this run" : "data");
	g_ptr_array_add(
		c->a->notes,
		foreign ? g_strdup_printf(
				  "%s: no record of this run from rank%s %s (%s input holds another instance of these ops: a dump left from an earlier attempt?)",
				  label, one ? "" : "s", nd,
				  one ? "its" : "their")
			: g_strdup_printf(
				  "%s: no data from rank%s %s (a missing dump or log)",
				  label, one ? "" : "s", nd));
	g_ptr_array_add(c->a->verdicts, v);
}

/* Where a group's progress stops, and where each member is relative to it. */
struct frontier {
	int64_t key; /* the position the group is stuck at */
	bool completion; /* some view says which of its ops completed */
	bool trace; /* the views are profiler traces */
	int64_t done; /* highest position every member entered, or -1 */
	int done_by; /* a rank that completed it */
	GArray *waiting; /* int: members at the frontier */
	GArray *absent; /* int: members with data that never reached it */
	GArray *nodata; /* int: members that left no data */
	GArray *cut; /* int: members whose data ends at their input's cut */
	GArray *incomplete; /* int: members whose record ends before done */
	GArray *stale; /* int: members whose unfinished op done contradicts */
	GArray *elsewhere; /* int: silent members that read another attempt */
	/* int: members whose record is of another instance of these ops (a
	   completion of theirs cannot be this one's, completion_of_incident()):
	   they left no usable record, like members without data */
	GArray *foreign;
	int64_t cut_at; /* the furthest position those reached */
	const struct hd_op *blocked_op; /* a waiting member's op there */
};

static void frontier_clear(struct frontier *f)
{
	g_clear_pointer(&f->waiting, g_array_unref);
	g_clear_pointer(&f->absent, g_array_unref);
	g_clear_pointer(&f->nodata, g_array_unref);
	g_clear_pointer(&f->cut, g_array_unref);
	g_clear_pointer(&f->incomplete, g_array_unref);
	g_clear_pointer(&f->stale, g_array_unref);
	g_clear_pointer(&f->elsewhere, g_array_unref);
	g_clear_pointer(&f->foreign, g_array_unref);
}

/*
 * The lowest position some ranks entered and did not finish or, when no
 * view knows completion (or the views are traces), the furthest one.
 * A position below one the group completed cannot be where it is stuck:
 * an unfinished op there is a stale record (see struct frontier.stale).
 * False when nothing is stuck, or when the views cannot say.
 */
static bool frontier_find(const struct group_ctx *c, struct frontier *f)
{
	int64_t furthest = -1;

	f->key = -1;
	f->completion = false;
	f->trace = c->source == HD_INPUT_KINETO;
	f->done = group_completed(c, &f->done_by, NULL);
	for (guint i = 0; i < c->views->len; i++) {
		const struct view *vw =
			&g_array_index(c->views, struct view, i);
		int64_t pending = view_pending_after(c, vw, f->done);

		if (vw->completion_info)
			f->completion = true;
		if (pending >= 0 && (f->key < 0 || pending < f->key))
			f->key = pending;
		if (vw->max_key > furthest)
			furthest = vw->max_key;
	}
	/*
	 * A trace holds only finished kernels, so where it ends is all it
	 * says; and only traces carrying Seq can be compared position by
	 * position (order-matched ones may be sampled).
	 */
	if (f->trace && c->seq_kind != HD_SEQ_COLLECTIVE)
		return false;
	if (!f->completion || f->trace)
		f->key = furthest;
	/* everything completed: nothing is stuck here */
	return f->key >= 0;
}

/* Whether vw is blocked at the frontier: its op there is unfinished. */
static bool frontier_waits(const struct group_ctx *c, const struct frontier *f,
			   const struct view *vw)
{
	const struct hd_op *op;

	if (!f->completion || f->trace)
		return vw->max_key >= f->key;
	op = view_op_at(c, vw, f->key);
	return op && op->state != HD_STATE_COMPLETED;
}

/*
 * A dropped attempt keeps its members: whether rank, silent in c's
 * group, read another job attempt than every rank with ops there (its
 * log restarted and theirs did not, or the other way round).  Then its
 * silence says nothing about this group.
 */
static bool other_attempt(const struct group_ctx *c, int rank)
{
	uint64_t mine = hd_index_rank_attempts(c->s, rank);

	if (!mine)
		return false;
	for (guint i = 0; i < c->views->len; i++)
		if (hd_index_rank_attempts(
			    c->s,
			    g_array_index(c->views, struct view, i).rank) ==
		    mine)
			return false;
	return true;
}

static void note_elsewhere(const struct group_ctx *c, const GArray *ranks)
{
	g_autofree char *label = NULL;
	g_autofree char *rt = NULL;

	if (!ranks->len)
		return;
	label = hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	rt = ranks_ranges(ranks);
	g_ptr_array_add(
		c->a->notes,
		g_strdup_printf(
			"%s: its ops come from logs of another job attempt than those of rank%s %s (their logs restarted a different number of times, or were analyzed at another attempt): whether %s reached it is unknown, so %s not blamed",
			label, ranks->len == 1 ? "" : "s", rt,
			ranks->len == 1 ? "it" : "they",
			ranks->len == 1 ? "it is" : "they are"));
}

/*
 * r's record ends before what the group completed.  An NCCL log that
 * does stopped where the rank did not: it was cut, and its silence after
 * that says nothing (a->logs_end_early).
 */
static void mark_incomplete(const struct group_ctx *c, struct frontier *f,
			    int r)
{
	g_array_append_val(f->incomplete, r);
	if (c->source == HD_INPUT_NCCL_LOG)
		g_hash_table_add(c->a->logs_end_early, GINT_TO_POINTER(r));
}

/* Sorts the group's members into waiting, absent and no data. */
static void frontier_sort_members(const struct group_ctx *c, struct frontier *f)
{
	g_autoptr(GArray) members = group_members(c);

	f->waiting = g_array_new(FALSE, FALSE, sizeof(int));
	f->absent = g_array_new(FALSE, FALSE, sizeof(int));
	f->nodata = g_array_new(FALSE, FALSE, sizeof(int));
	f->cut = g_array_new(FALSE, FALSE, sizeof(int));
	f->incomplete = g_array_new(FALSE, FALSE, sizeof(int));
	f->stale = g_array_new(FALSE, FALSE, sizeof(int));
	f->elsewhere = g_array_new(FALSE, FALSE, sizeof(int));
	f->foreign = g_array_new(FALSE, FALSE, sizeof(int));
	f->cut_at = -1;
	f->blocked_op = NULL;
	for (guint i = 0; i < members->len; i++) {
		int r = g_array_index(members, int, i);
		const struct view *vw = find_view(c, r);

		if (!vw) {
			if (!hd_index_rank_has_data(c->ix, r) ||
			    c->source == HD_INPUT_KINETO)
				g_array_append_val(f->nodata, r);
			else if (rank_input_truncated(c, r))
				/* cut before its first op here */
				g_array_append_val(f->cut, r);
			else if (f->done >= 0)
				mark_incomplete(c, f, r);
			else if (other_attempt(c, r))
				g_array_append_val(f->elsewhere, r);
			else
				g_array_append_val(f->absent, r);
			continue;
		}
		if (f->completion && vw->first_pending >= 0 &&
		    vw->first_pending <= f->done)
			g_array_append_val(f->stale, r);
		if (vw->max_key < f->key && rank_input_truncated(c, r)) {
			g_array_append_val(f->cut, r);
			f->cut_at = MAX(f->cut_at, vw->max_key);
		} else if (vw->max_key < f->done) {
			mark_incomplete(c, f, r);
		} else if (vw->max_key < f->key) {
			g_array_append_val(f->absent, r);
		} else if (frontier_waits(c, f, vw)) {
			g_array_append_val(f->waiting, r);
			if (!f->blocked_op)
				f->blocked_op = view_op_at(c, vw, f->key);
		} else if (c->foreign &&
			   g_hash_table_contains(c->foreign,
						 GINT_TO_POINTER(r))) {
			/* it "completed" where the others are blocked: that
			   record is another instance's, none of this one */
			g_array_append_val(f->foreign, r);
			g_hash_table_add(c->a->other_instance,
					 GINT_TO_POINTER(r));
		}
	}
}

/*
 * Completion proves presence: a member whose record ends before a
 * position the group completed entered it all the same, so its record is
 * incomplete (an empty, cut or wrapped dump, a rotated log), and an
 * unfinished op below it is a stale record.  Neither is blamed; a note
 * says so, once per group.
 */
static void note_completion_proof(const struct group_ctx *c,
				  const GArray *ranks, int64_t done, int by,
				  bool stale)
{
	g_autofree char *label = NULL;
	g_autofree char *rt = NULL;
	g_autofree char *note = NULL;
	bool one = ranks->len == 1;

	if (!ranks->len)
		return;
	label = hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	rt = hd_ranks_text(ranks, 8);
	if (!stale)
		c->a->incomplete_records += ranks->len;
	if (!stale && c->source == HD_INPUT_NCCL_LOG)
		note = g_strdup_printf(
			"%s: rank%s %s: %s log%s end%s early (cut?), before seq %" G_GINT64_FORMAT
			", which rank %d completed and every member had to enter: %s incomplete, so %s neither missing nor lagging",
			label, one ? "" : "s", rt, one ? "its" : "their",
			one ? "" : "s", one ? "s" : "", done, by,
			one ? "it is" : "they are",
			one ? "that rank is" : "those ranks are");
	else if (stale)
		note = g_strdup_printf(
			"%s: rank%s %s still show%s an op at or below seq %" G_GINT64_FORMAT
			" unfinished, but rank %d completed seq %" G_GINT64_FORMAT
			", which needs every member: %s record%s stale, not behind, and %s not blamed for it",
			label, one ? "" : "s", rt, one ? "s" : "", done, by,
			done, one ? "its" : "their", one ? " is" : "s are",
			one ? "it is" : "they are");
	else
		note = g_strdup_printf(
			"%s: the record%s of rank%s %s end%s before seq %" G_GINT64_FORMAT
			", which rank %d completed and every member had to enter: %s incomplete (an empty, cut or wrapped dump, a rotated log), so %s neither missing nor lagging",
			label, one ? "" : "s", one ? "" : "s", rt,
			one ? "s" : "", done, by, one ? "it is" : "they are",
			one ? "that rank is" : "those ranks are");
	for (guint i = 0; i < c->a->notes->len; i++)
		if (strcmp(g_ptr_array_index(c->a->notes, i), note) == 0)
			return;
	g_ptr_array_add(c->a->notes, g_steal_pointer(&note));
}

/* Waiting rank r's op at the frontier, or NULL.  (transfer none) */
static const struct hd_op *waiting_op(const struct group_ctx *c,
				      const struct frontier *f, int r)
{
	const struct view *vw = find_view(c, r);

	return vw ? view_op_at(c, vw, f->key) : NULL;
}

/* Cites waiting rank r's op. */
static void cite_waiting_op(const struct group_ctx *c, struct hd_verdict *v,
			    int r, const struct hd_op *op)
{
	g_autofree char *src = ctx_source(c, op);
	g_autofree char *desc = hd_op_describe(c->s, op);

	hd_verdict_add_evidence(v, r, src, "rank %d: %s", r, desc);
}

/* Counts the waiting ranks past those cited, and says which they are. */
static void cite_more_waiting(const struct frontier *f, struct hd_verdict *v)
{
	guint more = f->waiting->len - MAX_EVIDENCE_RANKS;
	g_autoptr(GArray) rest = NULL;
	g_autofree char *n = NULL;
	g_autofree char *rt = NULL;

	if (f->waiting->len <= MAX_EVIDENCE_RANKS)
		return;
	rest = g_array_sized_new(FALSE, FALSE, sizeof(int), more);
	g_array_append_vals(rest,
			    &g_array_index(f->waiting, int, MAX_EVIDENCE_RANKS),
			    more);
	n = hd_text_count(more);
	rt = hd_ranks_named(rest);
	hd_verdict_add_more(v, more, "and %s more rank%s at the same op (%s)",
			    n, more == 1 ? "" : "s", rt);
}

/*
 * Every member with a complete record is blocked at the frontier, but
 * the others cannot be told apart: several left no data, or a record
 * ends early.  A hang was seen; who never arrived is undecided.
 */
static void report_undecided_frontier(struct group_ctx *c,
				      const struct frontier *f)
{
	g_autofree char *label =
		hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	const char *opname = f->blocked_op
				     ? hd_op_kind_name(f->blocked_op->kind)
				     : "collective";
	g_autoptr(GArray) unknown = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *ut = NULL;
	g_autofree char *nw = hd_text_count(f->waiting->len);
	g_autofree char *nm = NULL;
	g_autoptr(GArray) members = NULL;
	struct hd_verdict *v;

	g_array_append_vals(unknown, f->nodata->data, f->nodata->len);
	g_array_append_vals(unknown, f->incomplete->data, f->incomplete->len);
	g_array_append_vals(unknown, f->cut->data, f->cut->len);
	g_array_append_vals(unknown, f->elsewhere->data, f->elsewhere->len);
	g_array_append_vals(unknown, f->foreign->data, f->foreign->len);
	g_array_sort(unknown, hd_compare_int);
	ut = ranks_ranges(unknown);
	members = group_members(c);
	nm = hd_text_count(members->len);
	if (unknown->len)
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"%s rank%s of %s %s blocked in seq %" G_GINT64_FORMAT
			" (%s); no complete record from rank%s %s, so which rank never arrived cannot be told",
			nw, f->waiting->len == 1 ? "" : "s", label,
			f->waiting->len == 1 ? "is" : "are", f->key, opname,
			unknown->len == 1 ? "" : "s", ut);
	else if (f->waiting->len >= members->len)
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"all %s ranks of %s entered seq %" G_GINT64_FORMAT
			" (%s) and none completed it: no rank is behind, so the hang is inside the collective (network, GPU or NCCL), or the dumps were taken while it ran",
			nw, label, f->key, opname);
	else
		/* never "all" of a group some members of which say nothing */
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"%s of the %s ranks of %s entered seq %" G_GINT64_FORMAT
			" (%s) and none of them completed it; the records of the others do not show them there or behind, so which rank the collective waits on cannot be told",
			nw, nm, label, f->key, opname);
	v->group = c->group;
	v->seq = f->key;
	v->op = f->blocked_op ? hd_op_kind_name(f->blocked_op->kind) : NULL;
	v->score = HD_SCORE_INSUFFICIENT;
	for (guint i = 0; i < f->waiting->len && i < MAX_EVIDENCE_RANKS; i++) {
		int r = g_array_index(f->waiting, int, i);
		const struct hd_op *op = waiting_op(c, f, r);

		if (op)
			cite_waiting_op(c, v, r, op);
	}
	cite_more_waiting(f, v);
	if (f->nodata->len) {
		g_autofree char *nd = ranks_ranges(f->nodata);

		hd_verdict_add_ruled_out(
			v,
			"nothing about rank%s %s: no data (collect %s flight-recorder dump, TORCH_NCCL_DUMP_ON_TIMEOUT=1, or NCCL_DEBUG=INFO log)",
			f->nodata->len == 1 ? "" : "s", nd,
			f->nodata->len == 1 ? "its" : "their");
		g_ptr_array_add(
			c->a->notes,
			g_strdup_printf("%s: no data from rank%s %s", label,
					f->nodata->len == 1 ? "" : "s", nd));
	}
	if (f->foreign->len) {
		g_autofree char *ft = ranks_ranges(f->foreign);

		hd_verdict_add_ruled_out(
			v,
			"nothing about rank%s %s: %s record is of another instance of these ops (a dump left from an earlier attempt?); collect %s dump of this run",
			f->foreign->len == 1 ? "" : "s", ft,
			f->foreign->len == 1 ? "its" : "their",
			f->foreign->len == 1 ? "its" : "their");
	}
	if (f->incomplete->len || f->cut->len)
		hd_verdict_add_ruled_out(
			v,
			"nothing about ranks whose record ends early: a larger flight-recorder buffer (TORCH_NCCL_TRACE_BUFFER_SIZE) or an uncut dump would show where they stopped");
	g_ptr_array_add(c->a->held, v);
	c->a->hang_seen = true;
}

/* Missing, or lagging when some absent rank is more than one op behind. */
static bool frontier_is_lag(const struct group_ctx *c, const struct frontier *f)
{
	for (guint i = 0; i < f->absent->len; i++) {
		const struct view *vw =
			find_view(c, g_array_index(f->absent, int, i));

		if (!vw || vw->max_key < f->key - 1)
			return true;
	}
	return false;
}

/* How far the data lets the absent ranks be blamed. */
static enum hd_confidence frontier_confidence(const struct group_ctx *c,
					      const struct frontier *f)
{
	enum hd_confidence conf = HD_CONF_HIGH;

	/* Enqueue-only data (NCCL COLL lines). */
	if (!f->completion)
		conf = HD_CONF_MEDIUM;
	/* A trace may end early because its profiling window did. */
	if (f->absent->len > f->waiting->len || f->trace)
		conf = HD_CONF_LOW;
	for (guint i = 0; i < f->absent->len; i++) {
		const struct view *vw =
			find_view(c, g_array_index(f->absent, int, i));

		if (rank_input_truncated(c, g_array_index(f->absent, int, i)))
			conf = HD_CONF_LOW;
		/* others' completion (c10d counters on a log), but the
		   absent rank's own record shows enqueues only */
		else if (vw && !vw->completion_info && conf == HD_CONF_HIGH)
			conf = HD_CONF_MEDIUM;
	}
	return conf;
}

/* The missing_rank or lagging_rank verdict, without its evidence. */
static struct hd_verdict *frontier_verdict(const struct group_ctx *c,
					   const struct frontier *f,
					   const char *label)
{
	g_autofree char *absent_text = hd_ranks_text(f->absent, 8);
	const char *opname = f->blocked_op
				     ? hd_op_kind_name(f->blocked_op->kind)
				     : "collective";
	enum hd_confidence conf = frontier_confidence(c, f);
	/* a trace shows finished kernels: nobody is seen blocked */
	bool blocked = f->completion && !f->trace;
	bool lagging = frontier_is_lag(c, f);
	guint nwait = f->waiting->len;
	g_autofree char *nwait_text = hd_text_count(nwait);
	struct hd_verdict *v;

	if (lagging)
		v = hd_verdict_new(
			HD_V_LAGGING_RANK, conf,
			"rank%s %s stopped early in %s: the other %s reached seq %" G_GINT64_FORMAT
			" (%s)%s",
			f->absent->len == 1 ? "" : "s", absent_text, label,
			nwait_text, f->key, opname,
			!blocked     ? ""
			: nwait == 1 ? " and is blocked there"
				     : " and are blocked there");
	else
		v = hd_verdict_new(
			HD_V_MISSING_RANK, conf,
			"rank%s %s never entered seq %" G_GINT64_FORMAT
			" (%s) of %s; %s other%s %s",
			f->absent->len == 1 ? "" : "s", absent_text, f->key,
			opname, label, nwait_text, nwait == 1 ? "" : "s",
			!blocked     ? "enqueued it"
			: nwait == 1 ? "entered it and is blocked"
				     : "entered it and are blocked");
	v->group = c->group;
	v->seq = f->key;
	v->op = f->blocked_op ? hd_op_kind_name(f->blocked_op->kind) : NULL;
	v->score = lagging ? HD_SCORE_LAGGING : HD_SCORE_MISSING;
	/* enqueue-only logs that end at different points: a fault only if
	   the job hung (hd_summary_hold_unproven()) */
	v->needs_hang = !f->completion && !f->trace;
	return v;
}

/* Blames the absent ranks, citing the last op each recorded here. */
static void frontier_cite_absent(const struct group_ctx *c,
				 const struct frontier *f, struct hd_verdict *v,
				 const char *label)
{
	for (guint i = 0; i < f->absent->len; i++) {
		int r = g_array_index(f->absent, int, i);
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
}

/*
 * Records that each waiting rank waits on every absent one (for
 * hd_check_chains()), and cites the first few waiting ranks' ops.
 */
static void frontier_cite_waiting(const struct group_ctx *c,
				  const struct frontier *f,
				  struct hd_verdict *v, const char *label)
{
	for (guint i = 0; i < f->waiting->len; i++) {
		int r = g_array_index(f->waiting, int, i);
		const struct hd_op *op = waiting_op(c, f, r);
		struct hd_prov prov;

		if (!op)
			continue;
		prov = hd_op_prov(c->s, op);
		for (guint k = 0; k < f->absent->len; k++)
			hd_index_add_wait(c->ix, r,
					  g_array_index(f->absent, int, k),
					  c->group, f->key, label, &prov);
		if (i < MAX_EVIDENCE_RANKS)
			cite_waiting_op(c, v, r, op);
	}
	cite_more_waiting(f, v);
}

/* What the verdict does not rest on, and what the data cannot show. */
static void frontier_ruled_out(const struct frontier *f, struct hd_verdict *v)
{
	hd_verdict_add_ruled_out(
		v,
		"position by arrival order: ranks are compared by sequence position, not by which file was read first");
	if (!f->completion && !f->trace)
		hd_verdict_add_ruled_out(
			v,
			"nothing: NCCL COLL lines show enqueue only, not completion; corroborate with watchdog timeouts");
	if (f->trace)
		hd_verdict_add_ruled_out(
			v,
			"nothing: a profiler trace ends where its window ended, which may differ by rank; corroborate with a dump or log");
	if (f->nodata->len) {
		g_autofree char *nd = ranks_ranges(f->nodata);

		hd_verdict_add_ruled_out(
			v, "nothing about ranks {%s}: they left no data", nd);
	}
	if (f->foreign->len) {
		g_autofree char *ft = ranks_ranges(f->foreign);

		hd_verdict_add_ruled_out(
			v,
			"nothing about ranks {%s}: their record is of another instance of these ops",
			ft);
	}
}

/*
 * Drops from ranks those whose input was cut short: the completion lag
 * check says so of them in its own note.
 */
static void drop_truncated(const struct group_ctx *c, GArray *ranks)
{
	for (guint i = ranks->len; i-- > 0;)
		if (rank_input_truncated(c, g_array_index(ranks, int, i)))
			g_array_remove_index(ranks, i);
}

/*
 * Where progress stops: the frontier, the member ranks that never entered
 * it, and the verdict that blames them (or, when every rank with data is
 * blocked there, the ranks without).
 */
bool hd_align_check_frontier(struct group_ctx *c)
{
	struct frontier f = { 0 };
	g_autofree char *label = NULL;
	struct hd_verdict *v;
	bool found = false;
	bool blocked;

	if (!frontier_find(c, &f)) {
		/*
		 * Nothing is stuck, but a member whose record ends before
		 * what the group completed still has an incomplete record
		 * (a log cut short after a clean run): say so.
		 */
		if (f.done >= 0 && !f.trace) {
			f.key = -1;
			frontier_sort_members(c, &f);
			drop_truncated(c, f.incomplete);
			note_completion_proof(c, f.incomplete, f.done,
					      f.done_by, false);
		}
		frontier_clear(&f);
		return false;
	}
	frontier_sort_members(c, &f);
	note_cut(c, f.cut, f.cut_at);
	note_completion_proof(c, f.incomplete, f.done, f.done_by, false);
	note_completion_proof(c, f.stale, f.done, f.done_by, true);
	note_elsewhere(c, f.elsewhere);
	blocked = f.completion && !f.trace && f.waiting->len > 0;
	if (blocked)
		c->a->hang_seen = true;
	if (f.absent->len > 0 && f.waiting->len > 0) {
		label = hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
		v = frontier_verdict(c, &f, label);
		frontier_cite_absent(c, &f, v, label);
		frontier_cite_waiting(c, &f, v, label);
		frontier_ruled_out(&f, v);
		g_ptr_array_add(c->a->verdicts, v);
		found = true;
	} else if (blocked && f.nodata->len + f.foreign->len == 1 &&
		   !f.incomplete->len && !f.cut->len && !f.elsewhere->len &&
		   !input_unread(c->s)) {
		/* every other member left a complete record: elimination */
		report_by_elimination(c, f.key, f.waiting,
				      f.nodata->len ? f.nodata : f.foreign,
				      f.foreign->len > 0, f.blocked_op);
		found = true;
	} else if (blocked) {
		report_undecided_frontier(c, &f);
	}
	frontier_clear(&f);
	return found;
}

/*
 * Every rank entered the same ops, but one finished fewer of them.  Dumps
 * are snapshots taken moments apart, so a gap of one op is noise.
 */
void hd_align_check_completion_lag(struct group_ctx *c)
{
	g_autoptr(GArray) behind = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) cut = g_array_new(FALSE, FALSE, sizeof(int));
	int64_t cut_at = -1;
	g_autofree char *label = NULL;
	g_autofree char *bt = NULL;
	g_autofree char *ahead_text = NULL;
	int64_t best = -1, worst = INT64_MAX, proof;
	guint ahead = 0;
	int by;
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

		if (done <= best - 2 && rank_input_truncated(c, vw->rank)) {
			g_array_append_val(cut, vw->rank);
			cut_at = MAX(cut_at, done);
		} else if (done <= best - 2) {
			g_array_append_val(behind, vw->rank);
			worst = MIN(worst, done);
		} else {
			ahead++;
		}
	}
	note_cut(c, cut, cut_at);
	if (behind->len == 0 || behind->len >= ahead ||
	    c->source == HD_INPUT_KINETO)
		return;
	/*
	 * Completion proves presence: a rank completed seq done, which every
	 * member had to run, so what a rank shows unfinished at or below it
	 * is a stale record (the frontier check notes it), not a lag; only a
	 * rank whose first unfinished op is past it may be behind.
	 */
	proof = group_completed(c, &by, NULL);
	if (proof >= 0) {
		g_autoptr(GArray) proven =
			g_array_new(FALSE, FALSE, sizeof(int));

		worst = INT64_MAX;
		for (guint i = 0; i < behind->len; i++) {
			int r = g_array_index(behind, int, i);
			const struct view *vw = find_view(c, r);
			int64_t at = vw && vw->first_pending >= 0
					     ? vw->first_pending - 1
					     : (vw ? vw->max_key : -1);

			if (at + 1 <= proof) {
				g_array_append_val(proven, r);
				g_array_remove_index(behind, i--);
			} else {
				worst = MIN(worst, at);
			}
		}
		note_completion_proof(c, proven, proof, by, true);
		if (!behind->len)
			return;
	}
	label = hd_group_label(c->s, c->group, HD_GROUP_LABEL_LONG);
	bt = hd_ranks_text(behind, 8);
	ahead_text = hd_text_count(ahead);
	v = hd_verdict_new(
		HD_V_LAGGING_RANK, HD_CONF_MEDIUM,
		"rank%s %s completed only up to seq %" G_GINT64_FORMAT
		" of %s while %s other%s completed up to seq %" G_GINT64_FORMAT,
		behind->len == 1 ? "" : "s", bt, worst, label, ahead_text,
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
