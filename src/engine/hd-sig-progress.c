/*
 * The c10d watchdog's timeouts and per-PG counters: in each process group
 * whose ranks time out in one position, the members whose counters stop
 * short of it (or whose logs say nothing of it) never enqueued the op the
 * others wait in.  Ranks timed out at different positions issued
 * different collectives; all timed out together names no one.
 */
#include "config.h"

#include <string.h>

#include "hd-sig-util.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-text.h"
#include "hd-banned.h"

/* What one rank said about one PG. */
struct pg_report {
	int rank;
	int64_t timeout_seq; /* -1 none */
	const struct hd_signal *timeout;
	int64_t enqueued, completed; /* INT64_MIN unknown */
	const struct hd_signal *status;
};

struct pg_reports {
	const char *name; /* interned */
	GArray *reports; /* struct pg_report */
	/* rank -> its index in reports + 1: a lookup, never a scan per rank */
	GHashTable *index;
};

/* rank's report in p, or NULL.  (transfer none) */
static const struct pg_report *report_of(const struct pg_reports *p, int rank)
{
	guint at = GPOINTER_TO_UINT(
		g_hash_table_lookup(p->index, GINT_TO_POINTER(rank)));

	return at ? &g_array_index(p->reports, struct pg_report, at - 1) : NULL;
}

static struct pg_report *report_for(struct pg_reports *p, int rank)
{
	struct pg_report r = { rank, -1, NULL, INT64_MIN, INT64_MIN, NULL };
	guint at = GPOINTER_TO_UINT(
		g_hash_table_lookup(p->index, GINT_TO_POINTER(rank)));

	if (at)
		return &g_array_index(p->reports, struct pg_report, at - 1);
	g_array_append_val(p->reports, r);
	g_hash_table_insert(p->index, GINT_TO_POINTER(rank),
			    GUINT_TO_POINTER(p->reports->len));
	return &g_array_index(p->reports, struct pg_report,
			      p->reports->len - 1);
}

/* The store group a PG name refers to on these ranks, or -1. */
static int64_t find_pg_group(const struct hd_store *s, const char *name,
			     const struct pg_reports *p)
{
	int64_t found = -1;

	for (guint g = 0; g < s->groups->len; g++) {
		const struct hd_group *grp = g_ptr_array_index(s->groups, g);
		g_autoptr(GHashTable) members = NULL;
		bool all = true;

		if (!grp->name || strcmp(grp->name, name) != 0)
			continue;
		members = g_hash_table_new(NULL, NULL);
		for (guint i = 0; i < grp->members->len; i++)
			g_hash_table_add(members,
					 GINT_TO_POINTER(g_array_index(
						 grp->members, int, i)));
		for (guint i = 0; i < p->reports->len && all; i++)
			all = g_hash_table_contains(
				members,
				GINT_TO_POINTER(g_array_index(p->reports,
							      struct pg_report,
							      i)
							.rank));
		if (!all)
			continue;
		if (found >= 0)
			return -1; /* ambiguous: names are reused after splits */
		found = g;
	}
	return found;
}

/* The most common timed-out seq (the lowest on a tie). */
static int64_t common_timeout(const struct pg_reports *p)
{
	g_autoptr(GArray) seqs = g_array_new(FALSE, FALSE, sizeof(int64_t));
	int64_t best = -1;
	guint best_n = 0;

	for (guint i = 0; i < p->reports->len; i++) {
		int64_t s = g_array_index(p->reports, struct pg_report, i)
				    .timeout_seq;

		if (s >= 0)
			g_array_append_val(seqs, s);
	}
	/* sorted, each run of equal seqs counted once: n log n, not n^2 */
	g_array_sort(seqs, hd_compare_i64);
	for (guint i = 0; i < seqs->len;) {
		int64_t s = g_array_index(seqs, int64_t, i);
		guint n = 0;

		for (; i < seqs->len && g_array_index(seqs, int64_t, i) == s;
		     i++)
			n++;
		if (n > best_n || (n == best_n && s < best)) {
			best = s;
			best_n = n;
		}
	}
	return best;
}

/*
 * The ranks whose inputs say something of their run past the
 * communicator's setup: an op, or a signal other than context.  A log
 * that holds only a rank's Init lines records nothing of what it did
 * after (the rest of the file may be lost, cut, or another file's), so
 * its silence is no data, not a rank that never arrived.  (transfer full)
 */
static GHashTable *ranks_that_speak(const struct hd_index *ix)
{
	const struct hd_store *s = ix->store;
	GHashTable *set = g_hash_table_new(NULL, NULL);
	struct hd_lane_iter it;
	const struct hd_lane *lane;

	hd_lane_iter_init(&it, ix);
	while ((lane = hd_lane_iter_next(&it)))
		if (lane->n && lane->rank >= 0)
			g_hash_table_add(set, GINT_TO_POINTER(lane->rank));
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->rank >= 0 && sig->cat != HD_SIG_INFO)
			g_hash_table_add(set, GINT_TO_POINTER(sig->rank));
	}
	return set;
}

/*
 * Did this rank leave a c10d/NCCL log whose silence speaks?  A log cut
 * short (a torn last record, a budget) may have lost the very timeout
 * it is silent about: what the rank did after the cut is unknown.  So
 * may one that ends before a position its group completed (completion
 * proves presence, hd-frontier.c): the rank went on, its log did not;
 * and one that records nothing past the rank's Init lines (speaks, from
 * ranks_that_speak()): it says nothing at all of the run.
 */
static bool rank_has_log(const struct hd_store *s, const struct hd_analysis *a,
			 GHashTable *speaks, int rank)
{
	const struct hd_rank *r = hd_store_find_rank(s, rank);
	bool any = false;

	if (!r ||
	    g_hash_table_contains(a->logs_end_early, GINT_TO_POINTER(rank)) ||
	    !g_hash_table_contains(speaks, GINT_TO_POINTER(rank)))
		return false;
	for (guint i = 0; i < r->inputs->len; i++) {
		const struct hd_input *in = hd_store_input(
			s, g_array_index(r->inputs, uint32_t, i));

		if (in->kind != HD_INPUT_NCCL_LOG)
			continue;
		if (in->truncated)
			return false;
		any = true;
	}
	return any;
}

/*
 * Whether some NCCL/c10d log of rank's was cut short: its silence about
 * a timeout is no evidence, so it is never the one left by elimination.
 */
static bool rank_log_cut(const struct hd_store *s, int rank)
{
	const struct hd_rank *r = hd_store_find_rank(s, rank);

	for (guint i = 0; r && i < r->inputs->len; i++) {
		const struct hd_input *in = hd_store_input(
			s, g_array_index(r->inputs, uint32_t, i));

		if (in->kind == HD_INPUT_NCCL_LOG && in->truncated)
			return true;
	}
	return false;
}

/*
 * Whether rank's logs read the same job attempt as some reporting rank's:
 * a log that ends before a restart, or one of a rank dropped by an
 * elastic scale-down, says nothing about the others' attempt.
 */
static bool same_attempt(const struct hd_store *s, const struct pg_reports *p,
			 int rank)
{
	uint64_t mine = hd_index_rank_attempts(s, rank);

	for (guint k = 0; k < p->reports->len; k++)
		if (hd_index_rank_attempts(
			    s, g_array_index(p->reports, struct pg_report, k)
				       .rank) == mine)
			return true;
	return false;
}

/* A PG whose ranks time out in one position, as its members' reports say. */
struct pg_hang {
	int64_t seq; /* the position most ranks time out in */
	int64_t group; /* the store group, -1 when only a name */
	const char *name; /* interned PG name, as the lines print it */
	const char *label; /* "PG 0 (default_pg)" */
	/* the op a timeout printed, as reports spell it ("all_reduce"),
	   or NULL */
	const char *opname;
	GArray *waiting; /* int: ranks in seq, timed out or enqueued */
	GArray *absent; /* int: ranks their counters show behind */
	GArray *inferred; /* int: ranks whose log says nothing of it */
	GArray *nodata; /* int: ranks without a log */
	GArray *ahead; /* int: ranks timed out at a later seq */
	bool lagging; /* some absent rank is more than one behind */
	bool no_seq; /* the timeouts print no SeqNum (PyTorch < 1.12) */
	GHashTable *speaks; /* ranks_that_speak() */
	/* how the PG's size is known: 0 its group or the store's world,
	   1 an all_gather's NumelOut / NumelIn, 2 the ranks seen only */
	int size_from;
};

/*
 * The size of PG "0" as its timeouts show it: an all_gather's output is
 * size x its input (a reduce_scatter's input size x its output), and a
 * rank r that reports means at least r + 1 ranks.  *from says which.
 */
static int pg0_size(const struct hd_store *s, const struct pg_reports *p,
		    int *from)
{
	int size = s->world_size > 0 ? s->world_size : 0, seen = 0;

	*from = 0;
	for (guint i = 0; i < p->reports->len; i++) {
		const struct pg_report *rep =
			&g_array_index(p->reports, struct pg_report, i);
		const struct hd_signal *t = rep->timeout;
		int64_t k = 0;

		seen = MAX(seen, rep->rank + 1);
		if (!t || !t->op_name || t->numel_in <= 0 || t->numel_out <= 0)
			continue;
		if (strstr(t->op_name, "ALLGATHER") &&
		    t->numel_out % t->numel_in == 0)
			k = t->numel_out / t->numel_in;
		else if (strstr(t->op_name, "REDUCE_SCATTER") &&
			 t->numel_in % t->numel_out == 0)
			k = t->numel_in / t->numel_out;
		if (k > size && k <= (1 << 22)) {
			size = (int)k;
			*from = 1;
		}
	}
	if (seen > size) {
		size = seen;
		*from = 2;
	}
	return size;
}

/* The PG's members: its group's, else the world for PG 0, and reporters. */
static GArray *pg_members(const struct hd_store *s, const struct pg_reports *p,
			  int64_t group, int *size_from)
{
	GArray *members = g_array_new(FALSE, FALSE, sizeof(int));
	int size;

	if (group >= 0) {
		const struct hd_group *grp =
			g_ptr_array_index(s->groups, group);

		for (guint i = 0; i < grp->members->len; i++)
			if (g_array_index(grp->members, int, i) >= 0)
				g_array_append_val(
					members,
					g_array_index(grp->members, int, i));
	} else if (strcmp(p->name, "0") == 0 &&
		   (size = pg0_size(s, p, size_from)) > 0) {
		for (int r = 0; r < MIN(size, 1 << 22); r++)
			g_array_append_val(members, r);
	}
	for (guint i = 0; i < p->reports->len; i++)
		g_array_append_val(
			members,
			g_array_index(p->reports, struct pg_report, i).rank);
	g_array_sort(members, hd_compare_int);
	/* each rank once: sorted, so repeats are neighbours */
	for (guint i = 0, out = 0; i <= members->len; i++) {
		if (i == members->len) {
			g_array_set_size(members, out);
			break;
		}
		if (!out || g_array_index(members, int, i) !=
				    g_array_index(members, int, out - 1))
			g_array_index(members, int, out++) =
				g_array_index(members, int, i);
	}
	return members;
}

/* rank's NCCL-log collectives in group g (a comm): its COLL lines. */
static int64_t comm_colls(const struct hd_index *ix, uint32_t g, int rank)
{
	const struct hd_group_index *gi = hd_index_group(ix, g);

	for (guint l = 0; gi && l < gi->lanes->len; l++) {
		const struct hd_lane *lane = hd_group_lane(gi, l);

		if (lane->rank == rank && lane->source == HD_INPUT_NCCL_LOG &&
		    lane->seq_kind == HD_SEQ_ORDINAL)
			return lane->n_p2p ? -1 : (int64_t)lane->n;
	}
	return 0;
}

/*
 * The comm that is this PG, as the watchdog counters show it (the way
 * parsers/nl-counters.c maps them): the one comm in which some reporting
 * rank holds exactly as many COLL lines as works it enqueued, with no
 * other comm doing so for any reporter.  Its k-th COLL line of a rank is
 * then the PG's work k.  -1 when none or several fit.
 */
static int64_t pg_comm(const struct hd_index *ix, const struct pg_reports *p)
{
	const struct hd_store *s = ix->store;
	int64_t found = -1;

	for (guint i = 0; i < p->reports->len; i++) {
		const struct pg_report *rep =
			&g_array_index(p->reports, struct pg_report, i);

		if (rep->enqueued == INT64_MIN || rep->enqueued <= 0)
			continue;
		for (guint g = 0; g < s->groups->len; g++) {
			if (comm_colls(ix, g, rep->rank) != rep->enqueued)
				continue;
			if (found >= 0 && found != (int64_t)g)
				return -1;
			found = g;
		}
	}
	return found;
}

/*
 * Whether rank's log shows it enqueued work seq of the PG: its COLL
 * lines in the PG's comm reach the seq-th.  A log cut before its
 * watchdog spoke still says that much.
 */
static bool log_enqueued(const struct hd_index *ix, int64_t comm, int rank,
			 int64_t seq)
{
	return comm >= 0 && seq > 0 &&
	       comm_colls(ix, (uint32_t)comm, rank) >= seq;
}

/* Sorts each member by what it reported about h->seq. */
static void pg_sort_members(const struct hd_index *ix,
			    const struct hd_analysis *a,
			    const struct pg_reports *p, const GArray *members,
			    struct pg_hang *h)
{
	const struct hd_store *s = ix->store;
	int64_t seq = h->seq;
	int64_t comm = h->no_seq ? -1 : pg_comm(ix, p);

	for (guint i = 0; i < members->len; i++) {
		int r = g_array_index(members, int, i);
		const struct pg_report *rep = report_of(p, r);
		if (rep && rep->timeout_seq == seq) {
			g_array_append_val(h->waiting, r);
			/* one spelling in a report: "all_reduce", not
			   "ALLREDUCE" */
			if (!h->opname && rep->timeout->op_name)
				h->opname = hd_op_display_name(
					rep->timeout->op_name);
		} else if (rep && rep->enqueued != INT64_MIN &&
			   rep->enqueued < seq) {
			g_array_append_val(h->absent, r);
			if (rep->enqueued < seq - 1)
				h->lagging = true;
		} else if (rep && rep->enqueued != INT64_MIN) {
			/* Enqueued it: waiting, whatever it printed. */
			g_array_append_val(h->waiting, r);
		} else if (rep && rep->timeout_seq >= 0) {
			/* Timed out elsewhere in this PG: its works complete
			   in order, so it completed none from there on, and
			   more than one behind is behind as counters are. */
			if (rep->timeout_seq < seq) {
				g_array_append_val(h->absent, r);
				if (rep->timeout_seq < seq - 1)
					h->lagging = true;
			} else {
				g_array_append_val(h->ahead, r);
			}
		} else if (log_enqueued(ix, comm, r, seq)) {
			/* its COLL lines reach it: waiting, though silent */
			g_array_append_val(h->waiting, r);
		} else if (rank_has_log(s, a, h->speaks, r) &&
			   same_attempt(s, p, r)) {
			g_array_append_val(h->inferred, r);
		} else {
			g_array_append_val(h->nodata, r);
		}
	}
}

/* Everyone present timed out together: no rank can be named. */
/* Cites each report's watchdog timeout, up to the evidence cap. */
static void cite_timeouts(const struct hd_store *s, struct hd_verdict *v,
			  const struct pg_reports *p)
{
	for (guint i = 0;
	     i < p->reports->len && v->evidence->len < HD_SIG_MAX_EVIDENCE;
	     i++) {
		const struct pg_report *rep =
			&g_array_index(p->reports, struct pg_report, i);

		if (rep->timeout)
			hd_sig_cite(s, v, rep->timeout);
	}
}

/*
 * Whether the ranks that timed out are all of the PG: its size is known
 * apart from them (its group's member list, or the world or an
 * all_gather's shape for PG 0) and they are that many, two at least.  A
 * lone rank's timeout, or ranks that are all the PG shows only because
 * nothing else of it was read, say nothing of the others.
 */
static bool pg_size_known(const struct hd_store *s, const struct pg_reports *p,
			  const struct pg_hang *h)
{
	int size = -1;

	if (h->waiting->len < 2)
		return false;
	if (h->group >= 0) {
		const struct hd_group *grp =
			g_ptr_array_index(s->groups, h->group);

		size = MAX(grp->nranks, (int)grp->members->len);
	} else if (strcmp(p->name, "0") == 0 && h->size_from != 2) {
		size = pg0_size(s, p, &(int){ 0 });
	}
	return size > 0 && h->waiting->len >= (guint)size;
}

/*
 * Places v where the PG's ranks time out: its store group, else the c10d
 * PG its lines name (logs alone), which the reports list with the groups.
 */
static void pg_place(const struct hd_analysis *a, struct hd_verdict *v,
		     const struct pg_hang *h)
{
	v->group = h->group;
	hd_verdict_set_c10d_group(a, v, h->name);
}

/* Whether some rank of h->nodata left a log that holds nothing of its run. */
static bool any_silent_log(const struct hd_store *s, const struct pg_hang *h)
{
	for (guint i = 0; i < h->nodata->len; i++) {
		int r = g_array_index(h->nodata, int, i);
		const struct hd_rank *rk = hd_store_find_rank(s, r);

		if (g_hash_table_contains(h->speaks, GINT_TO_POINTER(r)))
			continue;
		for (guint k = 0; rk && k < rk->inputs->len; k++)
			if (hd_store_input(
				    s, g_array_index(rk->inputs, uint32_t, k))
				    ->kind == HD_INPUT_NCCL_LOG)
				return true;
	}
	return false;
}

/*
 * The members that left nothing of the PG: never blamed for it unless
 * by elimination (every other member left data); a note names them and
 * what to collect.
 */
static void note_nodata(struct hd_analysis *a, struct hd_verdict *v,
			const struct pg_hang *h)
{
	g_autofree char *nd = NULL;
	bool one = h->nodata->len == 1;

	if (!h->nodata->len)
		return;
	nd = hd_ranks_text(h->nodata, 8);
	hd_verdict_add_ruled_out(
		v,
		"nothing about rank%s %s: no log of %s says anything of %s (none was read, or it ends early, or holds nothing past the Init lines); collect %s stderr with the c10d watchdog lines, or a flight-recorder dump with TORCH_NCCL_DUMP_ON_TIMEOUT=1",
		one ? "" : "s", nd, one ? "it" : "theirs", h->label,
		one ? "its" : "their");
	g_ptr_array_add(a->notes,
			g_strdup_printf("%s: no data from rank%s %s", h->label,
					one ? "" : "s", nd));
}

static void report_pg_no_culprit(const struct hd_store *s,
				 struct hd_analysis *a,
				 const struct pg_reports *p,
				 const struct pg_hang *h)
{
	struct hd_verdict *v;

	if (h->nodata->len && h->group < 0 && h->size_from == 2) {
		g_autofree char *nd = hd_ranks_text(h->nodata, 8);
		g_autofree char *where =
			h->no_seq ? g_strdup("the op (no SeqNum printed)")
				  : g_strdup_printf("seq %" G_GINT64_FORMAT,
						    h->seq);
		int top = h->waiting->len + (int)h->nodata->len - 1;
		g_autofree char *nw = hd_text_count(h->waiting->len);

		/* the members are 0 .. the highest reporter: a lower bound */
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"%s rank%s of %s timed out in %s (%s); the data does not give the group's size (ranks up to %d reported), so rank%s %s and any above %d may have left no log: which one never arrived cannot be shown",
			nw, h->waiting->len == 1 ? "" : "s", h->label, where,
			h->opname ? h->opname : "?", top,
			h->nodata->len == 1 ? "" : "s", nd, top);
	} else if (h->nodata->len) {
		g_autofree char *nd = hd_ranks_text(h->nodata, 8);
		g_autofree char *nw = hd_text_count(h->waiting->len);

		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"%s rank%s timed out in %s seq %" G_GINT64_FORMAT
			" (%s); ranks {%s} left no log of that job attempt%s, so which one never arrived cannot be shown",
			nw, h->waiting->len == 1 ? "" : "s", h->label, h->seq,
			h->opname ? h->opname : "?", nd,
			any_silent_log(s, h)
				? " that says anything of it (some hold nothing past their Init lines)"
				: "");
	} else if (!pg_size_known(s, p, h)) {
		g_autofree char *wt = hd_ranks_text(h->waiting, 8);

		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_LOW,
			"rank%s %s timed out in %s seq %" G_GINT64_FORMAT
			" (%s); the other members of %s and its size are unknown (no data from them), so whether one never arrived cannot be told",
			h->waiting->len == 1 ? "" : "s", wt, h->label, h->seq,
			h->opname ? h->opname : "?", h->label);
	} else {
		g_autofree char *nw = hd_text_count(h->waiting->len);

		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"all %s ranks of %s timed out together in seq %" G_GINT64_FORMAT
			" (%s): none is missing, so the hang is inside the collective (network, GPU or NCCL); the data shows no error that explains it",
			nw, h->label, h->seq, h->opname ? h->opname : "?");
	}
	pg_place(a, v, h);
	v->seq = h->no_seq ? -1 : h->seq;
	v->score = HD_SCORE_INSUFFICIENT;
	cite_timeouts(s, v, p);
	note_nodata(a, v, h);
	g_ptr_array_add(a->verdicts, v);
}

/* The missing or lagging verdict for the absent and silent ranks. */
static struct hd_verdict *pg_verdict(const struct hd_analysis *a,
				     const struct pg_hang *h)
{
	g_autoptr(GArray) culprits = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *ct = NULL;
	g_autofree char *nw = hd_text_count(h->waiting->len);
	const char *opname = h->opname ? h->opname : "?";
	enum hd_confidence conf;
	struct hd_verdict *v;

	g_array_append_vals(culprits, h->absent->data, h->absent->len);
	g_array_append_vals(culprits, h->inferred->data, h->inferred->len);
	g_array_sort(culprits, hd_compare_int);
	ct = hd_ranks_text(culprits, 8);
	/* Counters say it outright; silence only suggests it. */
	conf = h->inferred->len == 0 ? HD_CONF_HIGH : HD_CONF_MEDIUM;
	if (culprits->len > h->waiting->len)
		conf = HD_CONF_LOW;
	if (h->lagging)
		v = hd_verdict_new(
			HD_V_LAGGING_RANK, conf,
			"rank%s %s fell behind in %s: %s other%s time%s out in seq %" G_GINT64_FORMAT
			" (%s)",
			culprits->len == 1 ? "" : "s", ct, h->label, nw,
			h->waiting->len == 1 ? "" : "s",
			h->waiting->len == 1 ? "s" : "", h->seq, opname);
	else
		v = hd_verdict_new(
			HD_V_MISSING_RANK, conf,
			"rank%s %s never entered seq %" G_GINT64_FORMAT
			" (%s) of %s; %s other%s timed out waiting in it",
			culprits->len == 1 ? "" : "s", ct, h->seq, opname,
			h->label, nw, h->waiting->len == 1 ? "" : "s");
	for (guint i = 0; i < culprits->len; i++)
		hd_verdict_add_culprit(v, g_array_index(culprits, int, i));
	pg_place(a, v, h);
	v->seq = h->seq;
	v->op = h->opname ? hd_op_kind_name(hd_op_kind_parse(h->opname)) : NULL;
	if (v->op && strcmp(v->op, "unknown") == 0)
		v->op = NULL;
	v->score = h->lagging ? HD_SCORE_LAGGING : HD_SCORE_MISSING;
	return v;
}

/*
 * Cites each culprit's status line (else its own timeout) first, then one of the others'
 * timeouts with the count of the rest (a thousand identical lines say
 * no more than one), and records that every rank timed out in h->seq
 * waits on every culprit.
 */
static void pg_cite(struct hd_index *ix, struct hd_analysis *a,
		    struct hd_verdict *v, const struct pg_reports *p,
		    const struct pg_hang *h)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GArray) others = g_array_new(FALSE, FALSE, sizeof(int));

	for (guint i = 0; i < p->reports->len; i++) {
		const struct pg_report *rep =
			&g_array_index(p->reports, struct pg_report, i);

		/* its counters, else its own timeout where it stopped */
		if (hd_verdict_has_culprit(v, rep->rank) &&
		    (rep->status || rep->timeout))
			hd_sig_cite(s, v,
				    rep->status ? rep->status : rep->timeout);
	}
	for (guint i = 0; i < h->inferred->len; i++)
		hd_verdict_add_evidence(
			v, g_array_index(h->inferred, int, i), NULL,
			"rank %d's log reports no timeout and no progress for %s",
			g_array_index(h->inferred, int, i), h->label);
	for (guint i = 0; i < p->reports->len; i++) {
		const struct pg_report *rep =
			&g_array_index(p->reports, struct pg_report, i);

		if (hd_verdict_has_culprit(v, rep->rank) || !rep->timeout ||
		    rep->timeout_seq != h->seq)
			continue;
		for (guint k = 0; k < v->culprits->len; k++)
			hd_index_add_wait(ix, rep->rank,
					  g_array_index(v->culprits, int, k),
					  h->group, h->seq, h->label,
					  &rep->timeout->prov);
		/* always: the count of the rest below refers to it */
		if (!others->len)
			hd_sig_cite_upto(s, v, rep->timeout, G_MAXUINT);
		g_array_append_val(others, rep->rank);
	}
	if (others->len > 1) {
		g_autofree char *n = hd_text_count(others->len - 1);
		g_autofree char *rt = NULL;

		g_array_remove_index(others, 0);
		rt = hd_ranks_named(others);
		hd_verdict_add_more(
			v, others->len,
			"and %s more rank%s with the same timeout in seq %" G_GINT64_FORMAT
			" (%s)",
			n, others->len == 1 ? "" : "s", h->seq, rt);
	}
	note_nodata(a, v, h);
	hd_verdict_add_ruled_out(
		v,
		"torchrun's \"Root Cause\" and the first rank to time out: both are only the earliest to notice");
}

/*
 * Where the ranks of one PG time out in the same position, the members
 * whose counters stop short of it (or whose logs say nothing) are the
 * culprits.
 */
/* Where a verdict says the hang is: "seq 412", or the op alone. */
static char *pg_where(const struct pg_hang *h)
{
	if (h->no_seq)
		return g_strdup("the op (no SeqNum printed)");
	return g_strdup_printf("seq %" G_GINT64_FORMAT, h->seq);
}

/*
 * Every rank that reported timed out in one position, and the PG's size
 * shows ranks that never said anything: in a log that carries the
 * others' timeouts, those are the ones that never arrived.  Said only by
 * elimination, and only when the silent ranks are not the majority (then
 * their logs are more likely just not there).
 */
static void report_pg_silent(struct hd_index *ix, struct hd_analysis *a,
			     const struct pg_reports *p,
			     const struct pg_hang *h)
{
	const struct hd_store *s = ix->store;
	g_autofree char *nd = hd_ranks_text(h->nodata, 8);
	g_autofree char *where = pg_where(h);
	g_autofree char *nw = hd_text_count(h->waiting->len);
	g_autofree char *size =
		hd_text_count(h->waiting->len + (uint64_t)h->nodata->len);
	struct hd_verdict *v;

	v = hd_verdict_new(
		HD_V_MISSING_RANK,
		h->size_from == 1 ? HD_CONF_MEDIUM : HD_CONF_LOW,
		"rank%s %s never reported, while %s other%s timed out in %s (%s) of %s: by elimination, %s never entered it",
		h->nodata->len == 1 ? "" : "s", nd, nw,
		h->waiting->len == 1 ? "" : "s", where,
		h->opname ? h->opname : "?", h->label,
		h->nodata->len == 1 ? "it" : "they");
	for (guint i = 0; i < h->nodata->len; i++)
		hd_verdict_add_culprit(v, g_array_index(h->nodata, int, i));
	pg_place(a, v, h);
	v->seq = h->no_seq ? -1 : h->seq;
	v->op = h->opname ? hd_op_kind_name(hd_op_kind_parse(h->opname)) : NULL;
	if (v->op && strcmp(v->op, "unknown") == 0)
		v->op = NULL;
	v->score = HD_SCORE_MISSING - 5;
	for (guint i = 0; i < p->reports->len; i++) {
		const struct pg_report *rep =
			&g_array_index(p->reports, struct pg_report, i);

		if (!rep->timeout || rep->timeout_seq != h->seq)
			continue;
		for (guint k = 0; k < h->nodata->len; k++)
			hd_index_add_wait(ix, rep->rank,
					  g_array_index(h->nodata, int, k),
					  h->group, h->seq, h->label,
					  &rep->timeout->prov);
		hd_sig_cite(s, v, rep->timeout);
	}
	hd_verdict_add_evidence(
		v, -1, NULL, "%s has %s ranks, as %s", h->label, size,
		h->size_from == 0 ? "its group or the world size shows"
		: h->size_from == 1
			? "the all_gather's NumelOut / NumelIn shows"
			: "the highest rank that reported shows (a lower bound)");
	hd_verdict_add_ruled_out(
		v,
		"that ranks {%s} timed out too: their log is not in the input, or they printed nothing",
		nd);
	g_ptr_array_add(a->verdicts, v);
}

/*
 * Ranks of one PG time out at different seqs: some are already past the
 * position the others are stuck in, which needs the ranks to have issued
 * different collectives (order or count).  Which side is wrong cannot be
 * told from the timeouts: the ranks behind are named, at low confidence.
 */
static void report_pg_apart(const struct hd_store *s, struct hd_analysis *a,
			    const struct pg_reports *p, const struct pg_hang *h)
{
	g_autofree char *wt = hd_ranks_text(h->waiting, 8);
	g_autofree char *at = hd_ranks_text(h->ahead, 8);
	struct hd_verdict *v;

	v = hd_verdict_new(
		HD_V_LAGGING_RANK, HD_CONF_LOW,
		"rank%s %s time out in seq %" G_GINT64_FORMAT
		" (%s) of %s while rank%s %s already passed it and time out later: the ranks issued different collectives; either side may be wrong",
		h->waiting->len == 1 ? "" : "s", wt, h->seq,
		h->opname ? h->opname : "?", h->label,
		h->ahead->len == 1 ? "" : "s", at);
	for (guint i = 0; i < h->waiting->len; i++)
		hd_verdict_add_culprit(v, g_array_index(h->waiting, int, i));
	pg_place(a, v, h);
	v->seq = h->seq;
	v->score = HD_SCORE_LAGGING;
	cite_timeouts(s, v, p);
	hd_verdict_add_ruled_out(
		v,
		"a hang inside one collective: the ranks are not in the same one");
	g_ptr_array_add(a->verdicts, v);
}

static void check_pg(struct hd_index *ix, struct hd_analysis *a,
		     struct pg_reports *p, GHashTable *speaks)
{
	const struct hd_store *s = ix->store;
	struct pg_hang h = { .seq = common_timeout(p) };
	g_autoptr(GArray) members = NULL;
	g_autoptr(GArray) waiting = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) absent = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) inferred = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) nodata = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) ahead = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *label = NULL;
	struct hd_verdict *v;

	if (h.seq < 0)
		return;
	/* seq 0 is how hd_sig_check_progress() keeps a timeout without SeqNum */
	h.no_seq = h.seq == 0;
	h.group = find_pg_group(s, p->name, p);
	h.name = p->name;
	label = h.group >= 0 ? hd_group_label(s, h.group, HD_GROUP_LABEL_LONG)
		: strcmp(p->name, HD_PG_UNNAMED) == 0
			? g_strdup("a PG the timeout lines do not name")
			: g_strdup_printf("PG %s", p->name);
	h.label = label;
	h.waiting = waiting;
	h.absent = absent;
	h.inferred = inferred;
	h.nodata = nodata;
	h.ahead = ahead;
	h.speaks = speaks;
	members = pg_members(s, p, h.group, &h.size_from);
	pg_sort_members(ix, a, p, members, &h);
	if (absent->len == 0 && inferred->len == 0 && ahead->len) {
		report_pg_apart(s, a, p, &h);
		return;
	}
	if (absent->len == 0 && inferred->len == 0) {
		/*
		 * elimination: every other member left a log (issue 18).
		 * Members counted up to the highest rank that reported
		 * (size_from 2) are a lower bound: ranks past it may be
		 * silent too, and the one below it would be named only for
		 * its number.
		 */
		if (nodata->len == 1 && waiting->len && h.group < 0 &&
		    h.size_from != 2 &&
		    hd_store_usable_inputs(s) == s->inputs->len &&
		    !rank_log_cut(s, g_array_index(nodata, int, 0)))
			report_pg_silent(ix, a, p, &h);
		else
			report_pg_no_culprit(s, a, p, &h);
		return;
	}
	v = pg_verdict(a, &h);
	pg_cite(ix, a, v, p, &h);
	g_ptr_array_add(a->verdicts, v);
}

void hd_sig_check_progress(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) pgs =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autoptr(GPtrArray) order = g_ptr_array_new();
	g_autoptr(GHashTable) speaks = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct pg_reports *p;
		struct pg_report *rep;
		const char *name;

		if (sig->rank < 0 || !hd_sig_from_log(s, sig))
			continue;
		if (sig->type != HD_SIGT_WATCHDOG_TIMEOUT &&
		    sig->type != HD_SIGT_PG_STATUS)
			continue;
		name = sig->group_name ? sig->group_name : hd_intern("0");
		p = g_hash_table_lookup(pgs, name);
		if (!p) {
			p = g_new0(struct pg_reports, 1);
			p->name = name;
			p->reports = g_array_new(FALSE, FALSE,
						 sizeof(struct pg_report));
			p->index = g_hash_table_new(NULL, NULL);
			g_hash_table_insert(pgs, hd_unconst(name), p);
			g_ptr_array_add(order, p);
		}
		rep = report_for(p, sig->rank);
		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT) {
			/* 0: no SeqNum (PyTorch < 1.12), which counts from 1 */
			int64_t seq = sig->seq >= 0 ? sig->seq : 0;

			if (rep->timeout_seq < 0 || seq < rep->timeout_seq) {
				rep->timeout_seq = seq;
				rep->timeout = sig;
			}
		}
		if (sig->last_enqueued != INT64_MIN) {
			/* The latest report wins: counters only grow. */
			if (rep->enqueued == INT64_MIN ||
			    sig->last_enqueued >= rep->enqueued) {
				rep->enqueued = sig->last_enqueued;
				rep->completed = sig->last_completed;
				rep->status = sig;
			}
			if (sig->type == HD_SIGT_PG_STATUS && sig->seq >= 0 &&
			    rep->timeout_seq < 0 &&
			    sig->last_completed < sig->seq) {
				rep->timeout_seq = sig->seq;
				rep->timeout = sig;
			}
		}
	}
	if (order->len)
		speaks = ranks_that_speak(ix);
	for (guint i = 0; i < order->len; i++) {
		struct pg_reports *p = g_ptr_array_index(order, i);

		check_pg(ix, a, p, speaks);
		g_array_unref(p->reports);
		g_hash_table_unref(p->index);
		g_free(p);
	}
}
