/*
 * Verdicts from error and progress signals: the c10d watchdog's timeouts and
 * per-PG counters (who never enqueued the op the others time out in),
 * network faults (who saw the first one, and which peer), crashed ranks
 * (who died first while the others wait), and communicator setup failures.
 *
 * Consequences are not causes: IB WR_FLUSH errors, error-unwind lines, the
 * SIGABRT a watchdog sends its own process, and torchrun's "Root Cause"
 * (just the earliest exit) never pick a culprit.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hd-checks.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-banned.h"

#define MAX_EVIDENCE 6

static const struct hd_signal *sig_at(const struct hd_store *s, guint i)
{
	return &g_array_index(s->signals, struct hd_signal, i);
}

static bool from_log(const struct hd_store *s, const struct hd_signal *sig)
{
	return sig->prov.input < s->inputs->len &&
	       hd_store_input(s, sig->prov.input)->kind == HD_INPUT_NCCL_LOG;
}

static void add_signal_evidence(const struct hd_store *s, struct hd_verdict *v,
				const struct hd_signal *sig)
{
	g_autofree char *src = hd_prov_format(s, &sig->prov);
	const char *text = sig->text ? sig->text : hd_signal_cat_name(sig->cat);

	hd_verdict_add_evidence(v, sig->rank,
				sig->prov.kind != HD_PROV_NONE ? src : NULL,
				"%s", text);
}

/*
 * Drops the repeats of set, keeping each int's first place: one pass
 * with a hash of those seen, so adding n ranks costs n, never n^2 (an
 * input can name a hundred thousand ranks).
 */
static void int_set_unique(GArray *set)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
	guint out = 0;

	for (guint i = 0; i < set->len; i++) {
		int v = g_array_index(set, int, i);

		if (g_hash_table_add(seen, GINT_TO_POINTER(v)))
			g_array_index(set, int, out++) = v;
	}
	g_array_set_size(set, out);
}

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

/* Did this rank leave a c10d/NCCL log at all? */
static bool rank_has_log(const struct hd_store *s, int rank)
{
	const struct hd_rank *r = hd_store_find_rank(s, rank);

	if (!r)
		return false;
	for (guint i = 0; i < r->inputs->len; i++)
		if (hd_store_input(s, g_array_index(r->inputs, uint32_t, i))
			    ->kind == HD_INPUT_NCCL_LOG)
			return true;
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
	const char *label; /* "PG 0 (default_pg)" */
	const char *opname; /* as a timeout printed it, or NULL */
	GArray *waiting; /* int: ranks in seq, timed out or enqueued */
	GArray *absent; /* int: ranks their counters show behind */
	GArray *inferred; /* int: ranks whose log says nothing of it */
	GArray *nodata; /* int: ranks without a log */
	GArray *ahead; /* int: ranks timed out at a later seq */
	bool lagging; /* some absent rank is more than one behind */
	bool no_seq; /* the timeouts print no SeqNum (PyTorch < 1.12) */
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

/* Sorts each member by what it reported about h->seq. */
static void pg_sort_members(const struct hd_store *s,
			    const struct pg_reports *p, const GArray *members,
			    struct pg_hang *h)
{
	int64_t seq = h->seq;

	for (guint i = 0; i < members->len; i++) {
		int r = g_array_index(members, int, i);
		const struct pg_report *rep = report_of(p, r);
		if (rep && rep->timeout_seq == seq) {
			g_array_append_val(h->waiting, r);
			if (!h->opname && rep->timeout->op_name)
				h->opname = rep->timeout->op_name;
		} else if (rep && rep->enqueued != INT64_MIN &&
			   rep->enqueued < seq) {
			g_array_append_val(h->absent, r);
			if (rep->enqueued < seq - 1)
				h->lagging = true;
		} else if (rep && rep->enqueued != INT64_MIN) {
			/* Enqueued it: waiting, whatever it printed. */
			g_array_append_val(h->waiting, r);
		} else if (rep && rep->timeout_seq >= 0) {
			/* Timed out elsewhere in this PG. */
			if (rep->timeout_seq < seq)
				g_array_append_val(h->absent, r);
			else
				g_array_append_val(h->ahead, r);
		} else if (rank_has_log(s, r) && same_attempt(s, p, r)) {
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
	     i < p->reports->len && v->evidence->len < MAX_EVIDENCE; i++) {
		const struct pg_report *rep =
			&g_array_index(p->reports, struct pg_report, i);

		if (rep->timeout)
			add_signal_evidence(s, v, rep->timeout);
	}
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

		/* the members are 0 .. the highest reporter: a lower bound */
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"%u rank%s of %s timed out in %s (%s); the data does not give the group's size (ranks up to %d reported), so rank%s %s and any above %d may have left no log: which one never arrived cannot be shown",
			h->waiting->len, h->waiting->len == 1 ? "" : "s",
			h->label, where, h->opname ? h->opname : "?", top,
			h->nodata->len == 1 ? "" : "s", nd, top);
	} else if (h->nodata->len) {
		g_autofree char *nd = hd_ranks_text(h->nodata, 8);

		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"%u ranks timed out in %s seq %" G_GINT64_FORMAT
			" (%s); ranks {%s} left no log of that job attempt, so which one never arrived cannot be shown",
			h->waiting->len, h->label, h->seq,
			h->opname ? h->opname : "?", nd);
	} else {
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"all %u ranks of %s timed out together in seq %" G_GINT64_FORMAT
			" (%s): none is missing, so the hang is inside the collective (network, GPU or NCCL); the data shows no error that explains it",
			h->waiting->len, h->label, h->seq,
			h->opname ? h->opname : "?");
	}
	v->group = h->group;
	v->seq = h->no_seq ? -1 : h->seq;
	v->score = HD_SCORE_INSUFFICIENT;
	cite_timeouts(s, v, p);
	g_ptr_array_add(a->verdicts, v);
}

/* The missing or lagging verdict for the absent and silent ranks. */
static struct hd_verdict *pg_verdict(const struct pg_hang *h)
{
	g_autoptr(GArray) culprits = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *ct = NULL;
	/* one spelling in a report: "all_reduce", not "ALLREDUCE" */
	const char *opname = h->opname ? hd_op_display_name(h->opname) : "?";
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
			"rank%s %s fell behind in %s: %u other%s time%s out in seq %" G_GINT64_FORMAT
			" (%s)",
			culprits->len == 1 ? "" : "s", ct, h->label,
			h->waiting->len, h->waiting->len == 1 ? "" : "s",
			h->waiting->len == 1 ? "s" : "", h->seq, opname);
	else
		v = hd_verdict_new(
			HD_V_MISSING_RANK, conf,
			"rank%s %s never entered seq %" G_GINT64_FORMAT
			" (%s) of %s; %u other%s timed out waiting in it",
			culprits->len == 1 ? "" : "s", ct, h->seq, opname,
			h->label, h->waiting->len,
			h->waiting->len == 1 ? "" : "s");
	for (guint i = 0; i < culprits->len; i++)
		hd_verdict_add_culprit(v, g_array_index(culprits, int, i));
	v->group = h->group;
	v->seq = h->seq;
	v->op = h->opname ? hd_op_kind_name(hd_op_kind_parse(h->opname)) : NULL;
	if (v->op && strcmp(v->op, "unknown") == 0)
		v->op = NULL;
	v->score = h->lagging ? HD_SCORE_LAGGING : HD_SCORE_MISSING;
	return v;
}

/* "1,017" (transfer full). */
static char *count_text(guint n)
{
	char digits[16];
	GString *s = g_string_new(NULL);
	size_t len = (size_t)g_snprintf(digits, sizeof(digits), "%u", n);

	for (size_t i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			g_string_append_c(s, ',');
		g_string_append_c(s, digits[i]);
	}
	return g_string_free(s, FALSE);
}

/*
 * Cites each culprit's status line first, then one of the others'
 * timeouts with the count of the rest (a thousand identical lines say
 * no more than one), and records that every rank timed out in h->seq
 * waits on every culprit.
 */
static void pg_cite(struct hd_index *ix, struct hd_verdict *v,
		    const struct pg_reports *p, const struct pg_hang *h)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GArray) others = g_array_new(FALSE, FALSE, sizeof(int));

	for (guint i = 0; i < p->reports->len; i++) {
		const struct pg_report *rep =
			&g_array_index(p->reports, struct pg_report, i);

		if (rep->status && hd_verdict_has_culprit(v, rep->rank))
			add_signal_evidence(s, v, rep->status);
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
		if (!others->len)
			add_signal_evidence(s, v, rep->timeout);
		g_array_append_val(others, rep->rank);
	}
	if (others->len > 1) {
		g_autofree char *n = count_text(others->len - 1);
		g_autofree char *rt = NULL;

		g_array_remove_index(others, 0);
		rt = hd_rank_list_text(others);
		/* a list of scattered ranks says nothing a count does not */
		if (strlen(rt) > 60) {
			g_free(rt);
			rt = hd_ranks_text(others, 8);
		}
		hd_verdict_add_evidence(
			v, -1, NULL,
			"and %s more rank%s with the same timeout in seq %" G_GINT64_FORMAT
			" (%s %s)",
			n, others->len == 1 ? "" : "s", h->seq,
			others->len == 1 ? "rank" : "ranks", rt);
	}
	if (h->nodata->len) {
		g_autofree char *nd = hd_ranks_text(h->nodata, 8);

		hd_verdict_add_ruled_out(
			v, "nothing about ranks {%s}: they left no log", nd);
	}
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
	struct hd_verdict *v;

	v = hd_verdict_new(
		HD_V_MISSING_RANK,
		h->size_from == 1 ? HD_CONF_MEDIUM : HD_CONF_LOW,
		"rank%s %s never reported, while %u other%s timed out in %s (%s) of %s: by elimination, %s never entered it",
		h->nodata->len == 1 ? "" : "s", nd, h->waiting->len,
		h->waiting->len == 1 ? "" : "s", where,
		h->opname ? hd_op_display_name(h->opname) : "?", h->label,
		h->nodata->len == 1 ? "it" : "they");
	for (guint i = 0; i < h->nodata->len; i++)
		hd_verdict_add_culprit(v, g_array_index(h->nodata, int, i));
	v->group = h->group;
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
		if (v->evidence->len < MAX_EVIDENCE)
			add_signal_evidence(s, v, rep->timeout);
	}
	hd_verdict_add_evidence(
		v, -1, NULL, "%s has %d ranks, as %s", h->label,
		h->waiting->len + (int)h->nodata->len,
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
		h->opname ? hd_op_display_name(h->opname) : "?", h->label,
		h->ahead->len == 1 ? "" : "s", at);
	for (guint i = 0; i < h->waiting->len; i++)
		hd_verdict_add_culprit(v, g_array_index(h->waiting, int, i));
	v->group = h->group;
	v->seq = h->seq;
	v->score = HD_SCORE_LAGGING;
	cite_timeouts(s, v, p);
	hd_verdict_add_ruled_out(
		v,
		"a hang inside one collective: the ranks are not in the same one");
	g_ptr_array_add(a->verdicts, v);
}

static void check_pg(struct hd_index *ix, struct hd_analysis *a,
		     struct pg_reports *p)
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
	/* seq 0 is how check_progress() keeps a timeout without SeqNum */
	h.no_seq = h.seq == 0;
	h.group = find_pg_group(s, p->name, p);
	label = h.group >= 0 ? hd_group_label(s, h.group, HD_GROUP_LABEL_LONG)
			     : g_strdup_printf("PG %s", p->name);
	h.label = label;
	h.waiting = waiting;
	h.absent = absent;
	h.inferred = inferred;
	h.nodata = nodata;
	h.ahead = ahead;
	members = pg_members(s, p, h.group, &h.size_from);
	pg_sort_members(s, p, members, &h);
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
		    hd_store_usable_inputs(s) == s->inputs->len)
			report_pg_silent(ix, a, p, &h);
		else
			report_pg_no_culprit(s, a, p, &h);
		return;
	}
	v = pg_verdict(&h);
	pg_cite(ix, v, p, &h);
	g_ptr_array_add(a->verdicts, v);
}

static void check_progress(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) pgs =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autoptr(GPtrArray) order = g_ptr_array_new();

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);
		struct pg_reports *p;
		struct pg_report *rep;
		const char *name;

		if (sig->rank < 0 || !from_log(s, sig))
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
	for (guint i = 0; i < order->len; i++) {
		struct pg_reports *p = g_ptr_array_index(order, i);

		check_pg(ix, a, p);
		g_array_unref(p->reports);
		g_hash_table_unref(p->index);
		g_free(p);
	}
}

bool hd_signal_is_trouble(const struct hd_signal *sig)
{
	switch (sig->cat) {
	case HD_SIG_PROGRESS:
	case HD_SIG_INFO:
		return false;
	default:
		break;
	}
	if (sig->type == HD_SIGT_PROCESS_EXIT && sig->code == 0)
		return false;
	if (sig->type == HD_SIGT_DUMP)
		return false;
	return true;
}

/* IB status 5 (WR_FLUSH) only follows another failure. */
static bool is_consequence(const struct hd_signal *sig)
{
	if (sig->type == HD_SIGT_UNWIND)
		return true;
	if (sig->type == HD_SIGT_IB_COMPLETION && sig->code == 5)
		return true;
	return false;
}

/* A host's link state or counters (issue 21): hd-kernel.c reads them. */
static bool is_port_state(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_LINK_EVENT ||
	       sig->type == HD_SIGT_IB_COUNTERS;
}

/*
 * Where signal x is against y in time: compared only on clocks that can
 * be (hd_time_comparable()), and across hosts only beyond HD_TIME_SKEW_NS,
 * the clock skew hosts of a healthy job may have; closer is HD_ORDER_SAME.
 */
static enum hd_order sig_order(const struct hd_signal *x,
			       const struct hd_signal *y)
{
	enum hd_time_scope scope =
		x->prov.input == y->prov.input ? HD_SCOPE_INPUT
		: x->host && y->host && strcmp(x->host, y->host) == 0
			? HD_SCOPE_HOST
			: HD_SCOPE_APART;

	return hd_time_order(x->time, y->time, scope,
			     scope == HD_SCOPE_APART ? HD_TIME_SKEW_NS : 0);
}

/*
 * -1 when x is known to come before y, or has a time and y none (a signal
 * without a time is placed after those with one); else 0 (keep the one
 * read first).
 */
static int compare_sig_time(const struct hd_signal *x,
			    const struct hd_signal *y)
{
	if (hd_time_known(x->time) && !hd_time_known(y->time))
		return -1;
	return sig_order(x, y) == HD_ORDER_BEFORE ? -1 : 0;
}

/*
 * Of the candidates, those no other candidate is known to precede: one
 * when the times order them, several when they tie within the skew or
 * are on clocks that cannot be compared (or have no time).  In input
 * order.  (transfer container)
 */
static GPtrArray *first_signals(const GPtrArray *cands)
{
	/* the earliest of each group of mutually comparable clocks: clock
	   kind, plus the input (or host) for clocks that only compare
	   there */
	g_autoptr(GHashTable) mins =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GPtrArray) near = g_ptr_array_new();
	GPtrArray *out = g_ptr_array_new();

	for (int pass = 0; pass < 2; pass++) {
		for (guint i = 0; i < cands->len; i++) {
			const struct hd_signal *x = g_ptr_array_index(cands, i);
			char *key = g_strdup_printf(
				"%d|%u|%s", x->time.clock,
				x->time.clock == HD_CLOCK_TIME_OF_DAY ||
						x->time.clock == HD_CLOCK_TRACE
					? x->prov.input
					: 0,
				x->time.clock == HD_CLOCK_BOOT && x->host
					? x->host
					: "");
			const struct hd_signal *m =
				g_hash_table_lookup(mins, key);

			if (pass == 0) {
				if (!m || x->time.ns < m->time.ns)
					g_hash_table_replace(mins, key,
							     hd_unconst(x));
				else
					g_free(key);
				continue;
			}
			g_free(key);
			/* nothing earlier than the group's earliest can
			   precede it; only those near it are candidates */
			if (sig_order(m, x) != HD_ORDER_BEFORE)
				g_ptr_array_add(near, hd_unconst(x));
		}
	}
	/* the exact test among those (bounded: a tie of hundreds is kept
	   whole) */
	for (guint i = 0; i < near->len; i++) {
		const struct hd_signal *x = g_ptr_array_index(near, i);
		bool preceded = false;

		for (guint j = 0;
		     j < near->len && near->len <= 512 && !preceded; j++)
			preceded = j != i &&
				   sig_order(g_ptr_array_index(near, j), x) ==
					   HD_ORDER_BEFORE;
		if (!preceded)
			g_ptr_array_add(out, hd_unconst(x));
	}
	return out;
}

static bool same_process(const struct hd_signal *x, const struct hd_signal *y);

/*
 * The first of the candidates with a time (first_signals()), and whether
 * they tie across processes; NULL when none has a time (a signal without
 * one is placed after those with one, as it always was).
 */
static GPtrArray *first_timed(const GPtrArray *cands, bool *tie)
{
	g_autoptr(GPtrArray) timed = g_ptr_array_new();
	GPtrArray *firsts;

	*tie = false;
	for (guint i = 0; i < cands->len; i++)
		if (hd_time_known(((const struct hd_signal *)g_ptr_array_index(
					   cands, i))
					  ->time))
			g_ptr_array_add(timed, g_ptr_array_index(cands, i));
	if (!timed->len)
		return NULL;
	firsts = first_signals(timed);
	for (guint i = 1; i < firsts->len; i++) {
		const struct hd_signal *x = g_ptr_array_index(firsts, 0);
		const struct hd_signal *y = g_ptr_array_index(firsts, i);

		/* one rank's own failures (its log and its stderr) are
		   no tie; different ranks, or processes, are */
		if (x->rank >= 0 && y->rank >= 0 ? x->rank != y->rank
						 : !same_process(x, y))
			*tie = true;
	}
	return firsts;
}

/*
 * Why the first signals could not be told apart: they tie within the
 * skew, or some cannot be compared.  (static)
 */
static const char *tie_reason(const GPtrArray *firsts)
{
	for (guint i = 0; i < firsts->len; i++)
		for (guint j = i + 1; j < firsts->len; j++)
			if (sig_order(g_ptr_array_index(firsts, i),
				      g_ptr_array_index(firsts, j)) ==
			    HD_ORDER_UNKNOWN)
				return "their times are missing or on clocks that cannot be compared";
	return "their times lie within the clock skew of different hosts (or are equal), which is no order";
}

/* The distinct ranks (>= 0) of signals, ascending, and whether any has none. */
static GArray *signal_ranks(const GPtrArray *sigs, bool *rankless)
{
	GArray *r = g_array_new(FALSE, FALSE, sizeof(int));

	*rankless = false;
	for (guint i = 0; i < sigs->len; i++) {
		const struct hd_signal *sig = g_ptr_array_index(sigs, i);

		if (sig->rank >= 0)
			g_array_append_val(r, sig->rank);
		else
			*rankless = true;
	}
	int_set_unique(r);
	g_array_sort(r, hd_compare_int);
	return r;
}

/* Who a signal comes from: its rank, else its process.  (transfer full) */
static char *sig_who(const struct hd_signal *sig)
{
	if (sig->rank >= 0)
		return g_strdup_printf(
			"rank %d%s%s%s", sig->rank, sig->host ? " (" : "",
			sig->host ? sig->host : "", sig->host ? ")" : "");
	if (sig->host && sig->pid > 0)
		return g_strdup_printf("process %s:%d (rank unknown)",
				       sig->host, sig->pid);
	if (sig->host)
		return g_strdup_printf("host %s (rank unknown)", sig->host);
	return g_strdup(
		"a process whose host and rank the excerpt does not show");
}

/* Whether two signals come from one process as far as they tell. */
static bool same_process(const struct hd_signal *x, const struct hd_signal *y)
{
	if (x->prov.input != y->prov.input && !(x->host && y->host))
		return false;
	if (x->host && y->host)
		return strcmp(x->host, y->host) == 0 && x->pid == y->pid;
	return !x->host && !y->host;
}

/* An unwind line through communicator setup (init, bootstrap, group). */
static bool is_init_unwind(const struct hd_signal *sig)
{
	const char *t = sig->text;

	if (sig->type != HD_SIGT_UNWIND || !t)
		return false;
	return strstr(t, "init.cc:") || strstr(t, "init.cu:") ||
	       strstr(t, "bootstrap.cc:") || strstr(t, "bootstrap.cu:") ||
	       (strstr(t, "group.cc:") && strstr(t, "[Async thread]"));
}

/*
 * Whether the failure at index i happened during communicator setup: its
 * process's error unwind, right after it, runs through init or bootstrap.
 */
static bool failed_in_init(const struct hd_store *s, guint i)
{
	const struct hd_signal *sig = sig_at(s, i);

	for (guint k = i + 1, seen = 0; k < s->signals->len && seen < 32; k++) {
		const struct hd_signal *u = sig_at(s, k);

		if (!same_process(sig, u))
			continue;
		if (u->type != HD_SIGT_UNWIND)
			return false;
		seen++;
		if (is_init_unwind(u))
			return true;
	}
	return false;
}

/* "node-b<41873>" -> "node-b"; an IP stays an IP.  (transfer full) */
static char *peer_host(const char *peer)
{
	const char *lt = strchr(peer, '<');
	size_t n = lt ? (size_t)(lt - peer) : strlen(peer);
	char *h = g_strndup(peer, n);
	char *dot;

	g_strstrip(h);
	/* Hostnames are cut at the first '.', as NCCL prints them. */
	if (!g_ascii_isdigit(h[0]) && (dot = strchr(h, '.')))
		*dot = '\0';
	return h;
}

/*
 * Ranks on a host, named by its hostname or by the address it bootstrapped
 * on (what IB and socket errors print).  *name receives the hostname of a
 * host found by address, or NULL.
 */
static GArray *ranks_on_host(const struct hd_store *s, const char *host,
			     const char **name)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));
	GHashTableIter it;
	gpointer k, val;

	if (name)
		*name = NULL;
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &val)) {
		const struct hd_rank *r = val;

		if (!host)
			continue;
		if (r->host && strcmp(r->host, host) == 0) {
			g_array_append_val(out, r->rank);
		} else if (r->addr && strcmp(r->addr, host) == 0) {
			g_array_append_val(out, r->rank);
			if (name && r->host)
				*name = r->host;
		}
	}
	g_array_sort(out, hd_compare_int);
	return out;
}

/*
 * No network error that is a cause and no crash: IB flush errors alone
 * (the first failure is on another host, or was not pasted), or a
 * connection a peer closed, still show the network failed; at low (flush) or medium
 * (closed) confidence, without a culprit rank when none is shown.
 */
static void check_network_weak(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *flush = NULL, *closed = NULL;
	g_autofree char *who = NULL;
	struct hd_verdict *v;

	/* only where no network error or crash explains the trouble */
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *w = g_ptr_array_index(a->verdicts, i);

		if (w->kind == HD_V_NETWORK_FAULT ||
		    w->kind == HD_V_RANK_CRASHED)
			return;
	}

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig->type == HD_SIGT_IB_COMPLETION && sig->code == 5 &&
		    (!flush || compare_sig_time(sig, flush) < 0))
			flush = sig;
		if (sig->type == HD_SIGT_PEER_CLOSED &&
		    sig->cat != HD_SIG_INFO &&
		    (!closed || compare_sig_time(sig, closed) < 0))
			closed = sig;
	}
	if (flush) {
		who = sig_who(flush);
		v = hd_verdict_new(
			HD_V_NETWORK_FAULT, HD_CONF_LOW,
			"only IB flush errors (status 5, WR_FLUSH) were seen, first by %s%s%s: the network failed, but the first failure is elsewhere (another host, or not in the excerpt)",
			who, flush->peer ? " with peer " : "",
			flush->peer ? flush->peer : "");
		add_signal_evidence(s, v, flush);
		hd_verdict_add_ruled_out(
			v,
			"nothing: a flush error follows another failure; that failure's WARN (on this host or its peer) is missing");
	} else if (closed) {
		who = sig_who(closed);
		v = hd_verdict_new(
			HD_V_NETWORK_FAULT, HD_CONF_MEDIUM,
			"%s saw its connection closed by peer %s: that peer's process died or the link dropped",
			who, closed->peer ? closed->peer : "?");
		if (closed->rank >= 0)
			hd_verdict_add_culprit(v, closed->rank);
		add_signal_evidence(s, v, closed);
		hd_verdict_add_ruled_out(
			v,
			"nothing: whether the peer crashed or the link dropped needs the peer's log");
	} else {
		return;
	}
	v->score = HD_SCORE_NETWORK;
	g_ptr_array_add(a->verdicts, v);
}

/*
 * Network errors first seen by several processes that the times cannot
 * order (a tie within the skew, or clocks that cannot be compared): each
 * is named, at low confidence, whichever file was read first.
 */
static void network_tie(const struct hd_store *s, struct hd_analysis *a,
			const GPtrArray *firsts)
{
	bool rankless;
	g_autoptr(GArray) ranks = signal_ranks(firsts, &rankless);
	g_autofree char *rt = hd_ranks_text(ranks, 8);
	struct hd_verdict *v = hd_verdict_new(
		HD_V_NETWORK_FAULT, HD_CONF_LOW,
		"ranks %s%s saw network errors, and which came first cannot be told: %s",
		ranks->len ? rt : "?",
		rankless ? " and processes of unknown rank" : "",
		tie_reason(firsts));

	for (guint i = 0; i < ranks->len; i++)
		hd_verdict_add_culprit(v, g_array_index(ranks, int, i));
	v->score = HD_SCORE_NETWORK;
	for (guint i = 0; i < firsts->len && v->evidence->len < MAX_EVIDENCE;
	     i++)
		add_signal_evidence(s, v, g_ptr_array_index(firsts, i));
	hd_verdict_add_ruled_out(
		v,
		"nothing: the first failure is among these; their logs' other lines, or times on one clock, would tell which");
	g_ptr_array_add(a->verdicts, v);
}

static void check_network(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL;
	g_autoptr(GArray) reporters = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *host = NULL;
	g_autoptr(GArray) peer_ranks = NULL;
	struct hd_verdict *v;
	guint same_peer = 0, nsig = 0;
	int peer_rank = -1;
	const char *peer_name = NULL; /* the host of a peer named by address */
	g_autoptr(GPtrArray) cands = g_ptr_array_new();
	g_autoptr(GPtrArray) firsts = NULL;
	bool tie = false;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		/* a host's port state is hd-kernel.c's (boot clock) */
		if (sig->cat != HD_SIG_NETWORK || is_consequence(sig) ||
		    is_port_state(sig))
			continue;
		nsig++;
		if (sig->rank >= 0)
			g_array_append_val(reporters, sig->rank);
		if (!first)
			first = sig;
		g_ptr_array_add(cands, hd_unconst(sig));
	}
	int_set_unique(reporters);
	if (!first)
		return;
	firsts = first_timed(cands, &tie);
	if (firsts)
		first = g_ptr_array_index(firsts, 0);
	if (tie) {
		network_tie(s, a, firsts);
		return;
	}
	if (first->peer) {
		host = peer_host(first->peer);
		peer_ranks = ranks_on_host(s, host, &peer_name);
		peer_rank = first->peer_rank;
		if (peer_rank < 0 && peer_ranks->len == 1)
			peer_rank = g_array_index(peer_ranks, int, 0);
		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *sig = sig_at(s, i);
			g_autofree char *h = NULL;

			if (sig->cat != HD_SIG_NETWORK || !sig->peer ||
			    sig == first || is_port_state(sig))
				continue;
			h = peer_host(sig->peer);
			if (strcmp(h, host) == 0)
				same_peer++;
		}
	}
	{
		g_autofree char *who = sig_who(first);
		g_autofree char *peer = NULL;

		const char *on = peer_name ? peer_name : "";
		const char *sep = peer_name ? ", " : "";

		if (first->peer && peer_rank >= 0)
			peer = g_strdup_printf(" with peer %s (%s%srank %d)",
					       first->peer, on, sep, peer_rank);
		else if (first->peer && peer_ranks && peer_ranks->len > 1) {
			g_autofree char *pr = hd_ranks_text(peer_ranks, 8);

			peer = g_strdup_printf(
				" with peer %s (%s%shost of ranks %s)",
				first->peer, on, sep, pr);
		} else if (first->peer)
			peer = g_strdup_printf(" with peer %s", first->peer);
		v = hd_verdict_new(
			HD_V_NETWORK_FAULT,
			same_peer > 0 ||
					(hd_time_known(first->time) && nsig > 1)
				? HD_CONF_HIGH
				: HD_CONF_MEDIUM,
			"%s saw the first network error%s%s", who,
			peer ? peer : "",
			!hd_time_known(first->time) && nsig > 1
				? " (no timestamps: order unknown)"
				: "");
	}
	if (first->rank >= 0)
		hd_verdict_add_culprit(v, first->rank);
	if (peer_rank >= 0)
		hd_verdict_add_culprit(v, peer_rank);
	v->score = HD_SCORE_NETWORK;
	add_signal_evidence(s, v, first);
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < MAX_EVIDENCE; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig != first && sig->cat == HD_SIG_NETWORK &&
		    !is_consequence(sig) && !is_port_state(sig))
			add_signal_evidence(s, v, sig);
	}
	if (same_peer)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u other network error%s the same peer host %s",
			same_peer, same_peer == 1 ? " names" : "s name", host);
	if (reporters->len > 1)
		hd_verdict_add_evidence(v, -1, NULL,
					"%u ranks reported network errors",
					reporters->len);
	hd_verdict_add_ruled_out(
		v,
		"IB WR_FLUSH errors and error-unwind lines: consequences of the first failure");
	g_ptr_array_add(a->verdicts, v);
}

/* Did this rank's watchdog time out (so its abort is a consequence)? */
static bool rank_timed_out(const struct hd_store *s, int rank)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig->rank == rank && sig->type == HD_SIGT_WATCHDOG_TIMEOUT)
			return true;
	}
	return false;
}

/*
 * Whether the log holds an error that makes a Python process exit with
 * code 1 (c10d, issue 11): a ProcessGroupWrapper mismatch, an "NCCL
 * error in:" or a setup failure; that exit is then its echo.
 */
static bool has_explained_exit(const struct hd_store *s)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig->type == HD_SIGT_COLL_MISMATCH ||
		    sig->type == HD_SIGT_NCCL_ERROR ||
		    sig->type == HD_SIGT_DUPLICATE_GPU ||
		    sig->cat == HD_SIG_INIT || sig->cat == HD_SIG_CONFIG)
			return true;
	}
	return false;
}

/* A failure that starts trouble, rather than one that follows it. */
static bool is_crash_cause(const struct hd_store *s,
			   const struct hd_signal *sig)
{
	switch (sig->type) {
	case HD_SIGT_CUDA_ERROR:
	case HD_SIGT_OOM:
	case HD_SIGT_PROXY_DIED:
		return true;
	case HD_SIGT_TRACEBACK:
		/* An exception raised by the watchdog or NCCL is a consequence. */
		return !(sig->text && (strstr(sig->text, "DistBackendError") ||
				       strstr(sig->text, "NCCL") ||
				       strstr(sig->text, "Watchdog") ||
				       strstr(sig->text, "timed out") ||
				       strstr(sig->text, "DistNetworkError")));
	case HD_SIGT_FATAL_SIGNAL:
		/* SIGABRT after a timeout is the watchdog's own abort */
		return !(sig->code == 6 && rank_timed_out(s, sig->rank));
	case HD_SIGT_PROCESS_EXIT:
		/* -6 after a timeout is the watchdog's own abort; -15 the agent's. */
		if (sig->code == -15)
			return false;
		/* exit 1 is the exception of an error the log shows itself */
		if (sig->code == 1 && has_explained_exit(s))
			return false;
		if (sig->code == -6 && rank_timed_out(s, sig->rank))
			return false;
		return sig->code != 0;
	default:
		return false;
	}
}

/* The name of a fatal signal's number, Linux numbering. */
static const char *signal_name(int signo)
{
	switch (signo) {
	case 4:
		return "SIGILL";
	case 6:
		return "SIGABRT";
	case 7:
		return "SIGBUS";
	case 8:
		return "SIGFPE";
	case 9:
		return "SIGKILL";
	case 11:
		return "SIGSEGV";
	default:
		return "signal";
	}
}

/* Whether a frame is NCCL's: its function or its library. */
static bool frame_is_nccl(const struct hd_frame *f)
{
	return (f->name && (g_str_has_prefix(f->name, "nccl") ||
			    g_str_has_prefix(f->name, "rccl"))) ||
	       (f->file &&
		(strstr(f->file, "libnccl") || strstr(f->file, "librccl")));
}

/* The innermost NCCL frame of a fatal signal's stack, or NULL. */
static const struct hd_frame *nccl_frame(const struct hd_store *s,
					 const struct hd_signal *sig)
{
	size_t n = 0;
	const struct hd_frame *f = hd_store_stack(s, sig->stack, &n);

	for (size_t i = 0; i < n; i++)
		if (frame_is_nccl(&f[i]) && f[i].name &&
		    strcmp(f[i].name, "???") != 0)
			return &f[i];
	for (size_t i = 0; i < n; i++)
		if (frame_is_nccl(&f[i]))
			return &f[i];
	return NULL;
}

/* "fatal signal 7 (SIGBUS) inside NCCL (ncclGroupEnd)".  (transfer full) */
static char *fatal_what(const struct hd_store *s, const struct hd_signal *sig)
{
	const struct hd_frame *f = nccl_frame(s, sig);

	if (f)
		return g_strdup_printf("fatal signal %d (%s) inside NCCL (%s)",
				       sig->code, signal_name(sig->code),
				       f->name ? f->name : "libnccl");
	return g_strdup_printf("fatal signal %d (%s)", sig->code,
			       signal_name(sig->code));
}

/*
 * A fatal signal's frames as evidence, and what an NCCL frame on the
 * crashing stack says: the crash is inside NCCL, not the training code;
 * SIGBUS there is a mapped shared-memory segment with no memory behind it.
 */
static void fatal_evidence(const struct hd_store *s, struct hd_verdict *v,
			   const struct hd_signal *sig)
{
	size_t n = 0;
	const struct hd_frame *f;
	GString *t;

	if (sig->type != HD_SIGT_FATAL_SIGNAL)
		return;
	f = hd_store_stack(s, sig->stack, &n);
	if (n) {
		t = g_string_new("crashing stack, innermost first: ");
		for (size_t i = 0; i < n && i < 6; i++) {
			g_string_append_printf(t, "%s%s", i ? " <- " : "",
					       f[i].name ? f[i].name : "?");
			if (f[i].file && f[i].line > 0)
				g_string_append_printf(t, " (%s:%d)", f[i].file,
						       f[i].line);
		}
		if (n > 6)
			g_string_append_printf(t, " <- %zu more", n - 6);
		hd_verdict_add_evidence(v, sig->rank, NULL, "%s", t->str);
		g_string_free(t, TRUE);
	}
	if (!nccl_frame(s, sig))
		return;
	if (sig->code == 7)
		hd_verdict_add_evidence(
			v, sig->rank, NULL,
			"SIGBUS inside NCCL: a shared-memory segment NCCL mapped (/dev/shm, its setup of the SHM transport or proxy) has no memory behind it; /dev/shm is too small or full (a container's default is 64 MB)");
	else
		hd_verdict_add_evidence(
			v, sig->rank, NULL,
			"an NCCL function is on the crashing stack: NCCL itself (its setup, proxy or transport) failed, not the training code");
}

static void check_crashes(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL;
	g_autoptr(GArray) crashed = g_array_new(FALSE, FALSE, sizeof(int));
	guint timeouts = 0, closed_naming = 0, rankless = 0;
	struct hd_verdict *v;
	bool timed = true, tie = false;
	g_autoptr(GPtrArray) cands = g_ptr_array_new();
	g_autoptr(GPtrArray) firsts = NULL;
	g_autofree char *what = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT)
			timeouts++;
		if (!is_crash_cause(s, sig))
			continue;
		/* A failure in communicator setup is check_init's. */
		if (from_log(s, sig) && sig->type != HD_SIGT_PROCESS_EXIT &&
		    sig->type != HD_SIGT_FATAL_SIGNAL && failed_in_init(s, i))
			continue;
		/*
		 * Without a rank only NCCL's own failures (CUDA, its proxy)
		 * say enough; an exit or exception could be anyone's.
		 */
		if (sig->rank < 0 && sig->type != HD_SIGT_CUDA_ERROR &&
		    sig->type != HD_SIGT_OOM &&
		    sig->type != HD_SIGT_PROXY_DIED &&
		    sig->type != HD_SIGT_FATAL_SIGNAL)
			continue;
		if (sig->rank >= 0)
			g_array_append_val(crashed, sig->rank);
		else
			rankless++;
		if (!hd_time_known(sig->time))
			timed = false;
		if (!first)
			first = sig;
		g_ptr_array_add(cands, hd_unconst(sig));
	}
	int_set_unique(crashed);
	if (!first)
		return;
	firsts = first_timed(cands, &tie);
	if (firsts)
		first = g_ptr_array_index(firsts, 0);
	/* Peers that saw a connection closed by the crashed rank's host. */
	if (first->host) {
		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *sig = sig_at(s, i);
			g_autofree char *h = NULL;

			if (sig->type != HD_SIGT_PEER_CLOSED || !sig->peer)
				continue;
			h = peer_host(sig->peer);
			if (strcmp(h, first->host) == 0)
				closed_naming++;
		}
	}
	g_array_sort(crashed, hd_compare_int);
	if (tie) {
		bool rl;
		g_autoptr(GArray) tied = signal_ranks(firsts, &rl);
		g_autofree char *ct = hd_ranks_text(tied, 8);

		v = hd_verdict_new(
			HD_V_RANK_CRASHED, HD_CONF_LOW,
			"ranks %s%s failed, and which failed first cannot be told: %s",
			tied->len ? ct : "?",
			rl ? " and processes of unknown rank" : "",
			tie_reason(firsts));
		for (guint i = 0; i < tied->len; i++)
			hd_verdict_add_culprit(v, g_array_index(tied, int, i));
		v->score = HD_SCORE_CRASH;
		for (guint i = 0;
		     i < firsts->len && v->evidence->len < MAX_EVIDENCE; i++)
			add_signal_evidence(s, v, g_ptr_array_index(firsts, i));
		for (guint i = 0;
		     i < s->signals->len && v->evidence->len < MAX_EVIDENCE;
		     i++) {
			const struct hd_signal *sig = sig_at(s, i);

			if (sig->rank >= 0 && is_crash_cause(s, sig) &&
			    !g_ptr_array_find(firsts, sig, NULL))
				add_signal_evidence(s, v, sig);
		}
		if (timeouts)
			hd_verdict_add_evidence(
				v, -1, NULL,
				"%u watchdog timeout%s on other ranks follow%s",
				timeouts, timeouts == 1 ? "" : "s",
				timeouts == 1 ? "s" : "");
		hd_verdict_add_ruled_out(
			v,
			"nothing: the first failure is among these; times on one clock would tell which");
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	if (crashed->len + rankless == 1 || timed) {
		g_autofree char *who =
			first->rank >= 0
				? g_strdup_printf("rank %d", first->rank)
				: sig_who(first);

		v = hd_verdict_new(
			HD_V_RANK_CRASHED,
			first->rank < 0		    ? HD_CONF_LOW
			: timeouts || closed_naming ? HD_CONF_HIGH
						    : HD_CONF_MEDIUM,
			"%s failed first (%s)%s", who,
			first->type == HD_SIGT_OOM ? "CUDA out of memory"
			: first->type == HD_SIGT_CUDA_ERROR   ? "CUDA error"
			: first->type == HD_SIGT_PROCESS_EXIT ? "process exited"
			: first->type == HD_SIGT_PROXY_DIED
				? "its NCCL proxy thread died"
			: first->type == HD_SIGT_FATAL_SIGNAL
				? (what = fatal_what(s, first))
				: "exception",
			timeouts
				? "; the other ranks then timed out waiting for it"
				: "");
		if (first->rank >= 0)
			hd_verdict_add_culprit(v, first->rank);
	} else {
		g_autofree char *ct = hd_ranks_text(crashed, 8);

		v = hd_verdict_new(
			HD_V_RANK_CRASHED, HD_CONF_LOW,
			"ranks %s%s failed, and without timestamps which failed first cannot be told",
			ct, rankless ? " and processes of unknown rank" : "");
		for (guint i = 0; i < crashed->len; i++)
			hd_verdict_add_culprit(v,
					       g_array_index(crashed, int, i));
	}
	v->score = HD_SCORE_CRASH;
	add_signal_evidence(s, v, first);
	fatal_evidence(s, v, first);
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < MAX_EVIDENCE; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig != first && sig->rank >= 0 && is_crash_cause(s, sig))
			add_signal_evidence(s, v, sig);
	}
	if (timeouts)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u watchdog timeout%s on other ranks follow%s",
			timeouts, timeouts == 1 ? "" : "s",
			timeouts == 1 ? "s" : "");
	if (closed_naming)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u peers saw their connection closed by %s",
			closed_naming, first->host);
	hd_verdict_add_ruled_out(
		v,
		"SIGABRT from a rank's own watchdog and SIGTERM from the agent: consequences, not causes");
	hd_verdict_add_ruled_out(
		v,
		"torchrun's \"Root Cause\": it only names the earliest exit, to the second");
	g_ptr_array_add(a->verdicts, v);
}

/* "Duplicate GPU detected : rank 1 and rank 3 both on ..." */
static void duplicate_gpu_ranks(const char *text, struct hd_verdict *v)
{
	const char *p = text ? strstr(text, "rank ") : NULL;

	for (int k = 0; p && k < 2; k++) {
		char *end;
		long r = strtol(p + 5, &end, 10);

		if (end != p + 5 && r >= 0 && r < (1 << 22))
			hd_verdict_add_culprit(v, (int)r);
		p = strstr(end, "rank ");
	}
}

/*
 * Which init signal explains the others: NCCL's own WARN names the cause,
 * while "NCCL error in:" on every rank only echoes it as its Last error.
 */
static bool is_echo(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_NCCL_ERROR ||
	       (sig->text && strstr(sig->text, "NCCL error in:"));
}

static int init_rank(const struct hd_signal *sig)
{
	int r;

	switch (sig->type) {
	case HD_SIGT_DUPLICATE_GPU:
		r = 3;
		break;
	case HD_SIGT_NCCL_ERROR:
		r = 0;
		break;
	case HD_SIGT_SHM:
		r = 2;
		break;
	default:
		r = 1;
		break;
	}
	/* the WARN itself before a rank's echo of it as its Last error */
	return 2 * r + !is_echo(sig);
}

/* Whether sig is a setup failure check_init weighs. */
static bool is_init_candidate(const struct hd_store *s, guint i)
{
	const struct hd_signal *sig = sig_at(s, i);

	if (sig->cat == HD_SIG_INIT || sig->cat == HD_SIG_CONFIG)
		return true;
	/* a CUDA error or a dead proxy while the comm was being set up */
	return (sig->type == HD_SIGT_CUDA_ERROR || sig->type == HD_SIGT_OOM ||
		sig->type == HD_SIGT_PROXY_DIED) &&
	       from_log(s, sig) && failed_in_init(s, i);
}

static const char *init_what(const struct hd_signal *sig)
{
	switch (sig->type) {
	case HD_SIGT_DUPLICATE_GPU:
		return "two ranks on one GPU";
	case HD_SIGT_NCCL_ERROR:
		if (sig->cat == HD_SIG_CONFIG)
			return "configuration error";
		return "NCCL returned an error (its result is in the evidence; the WARN saying why is not in the data)";
	case HD_SIGT_SHM:
		return "/dev/shm too small or full";
	case HD_SIGT_CUDA_ERROR:
	case HD_SIGT_OOM:
		return "a CUDA call failed while the communicator was set up";
	case HD_SIGT_PROXY_DIED:
		return "the local proxy died while the communicator was set up";
	case HD_SIGT_SOCKET:
		return sig->cat == HD_SIG_CONFIG
			       ? "configuration error (network interface, address family or transport)"
			       : "a bootstrap socket could not be bound or connected";
	default:
		return sig->cat == HD_SIG_CONFIG ? "configuration error"
						 : "bootstrap or store failure";
	}
}

/*
 * No WARN says why, but an error unwind runs through bootstrap or init:
 * communicator setup failed with that result, the cause not shown.
 */
static void check_init_unwinds(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL;
	g_autofree char *who = NULL;
	struct hd_verdict *v;
	guint n = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (!is_init_unwind(sig) || sig->code == 0)
			continue;
		n++;
		if (!first)
			first = sig;
	}
	if (!first)
		return;
	who = sig_who(first);
	v = hd_verdict_new(
		HD_V_INIT_FAILURE, HD_CONF_LOW,
		"communicator setup failed on %s with NCCL result %d%s: only NCCL's error unwind is in the data, not the WARN that says why",
		who, first->code,
		first->code == 2 ? " (system error: a socket or bootstrap call)"
		: first->code == 1 ? " (CUDA error)"
		: first->code == 3 ? " (internal error)"
		: first->code == 6 ? " (remote error)"
				   : "");
	if (first->rank >= 0)
		hd_verdict_add_culprit(v, first->rank);
	v->score = s->ops->len ? HD_SCORE_INIT - 20 : HD_SCORE_INIT;
	add_signal_evidence(s, v, first);
	if (n > 1)
		hd_verdict_add_evidence(v, -1, NULL,
					"%u unwind lines run through setup", n);
	hd_verdict_add_ruled_out(
		v,
		"nothing: the first WARN of the failing process (NCCL_DEBUG=WARN or INFO) is missing");
	g_ptr_array_add(a->verdicts, v);
}

static void check_init(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct hd_verdict *v = NULL;
	const struct hd_signal *first = NULL;
	g_autofree char *who = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (!is_init_candidate(s, i))
			continue;
		if (!first || init_rank(sig) > init_rank(first) ||
		    (init_rank(sig) == init_rank(first) &&
		     compare_sig_time(sig, first) < 0))
			first = sig;
	}
	if (!first) {
		check_init_unwinds(ix, a);
		return;
	}
	if (first->rank >= 0)
		v = hd_verdict_new(HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
				   "communicator setup failed on rank %d: %s",
				   first->rank, init_what(first));
	else if (first->host) {
		who = sig_who(first);
		v = hd_verdict_new(HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
				   "communicator setup failed on %s: %s", who,
				   init_what(first));
	} else
		v = hd_verdict_new(HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
				   "communicator setup failed: %s",
				   init_what(first));
	if (first->type == HD_SIGT_DUPLICATE_GPU) {
		duplicate_gpu_ranks(first->text, v);
		v->confidence = HD_CONF_HIGH;
	}
	if (v->culprits->len == 0 && first->rank >= 0)
		hd_verdict_add_culprit(v, first->rank);
	/* Setup errors after collectives ran are less likely the cause. */
	v->score = s->ops->len ? HD_SCORE_INIT - 20 : HD_SCORE_INIT;
	add_signal_evidence(s, v, first);
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < MAX_EVIDENCE; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig != first && is_init_candidate(s, i))
			add_signal_evidence(s, v, sig);
	}
	g_ptr_array_add(a->verdicts, v);
}

/*
 * Hosts that chose different networks: one fell back to sockets (no
 * libibverbs) while another uses IB.  The comm cannot connect them.
 */
static void check_transports(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) by_net =
		g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
				      (GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GPtrArray) nets = g_ptr_array_new();
	g_autoptr(GString) sides = g_string_new(NULL);
	struct hd_verdict *v;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);
		const char *t =
			sig->text ? strstr(sig->text, "Using network ") : NULL;
		g_autofree char *net = NULL;
		GPtrArray *hosts;

		if (sig->type != HD_SIGT_TRANSPORT || !t || !sig->host)
			continue;
		net = g_strndup(t + 14, strcspn(t + 14, " \t\r\n"));
		hosts = g_hash_table_lookup(by_net, net);
		if (!hosts) {
			hosts = g_ptr_array_new();
			g_ptr_array_add(nets, hd_unconst(hd_intern(net)));
			g_hash_table_insert(by_net, hd_unconst(hd_intern(net)),
					    hosts);
		}
		if (!g_ptr_array_find(hosts, sig->host, NULL))
			g_ptr_array_add(hosts, hd_unconst(sig->host));
	}
	if (nets->len < 2)
		return;
	for (guint i = 0; i < nets->len; i++) {
		GPtrArray *hosts = g_hash_table_lookup(by_net, nets->pdata[i]);

		g_string_append_printf(sides, "%s%s on", i ? "; " : "",
				       (const char *)nets->pdata[i]);
		for (guint k = 0; k < hosts->len && k < 4; k++)
			g_string_append_printf(sides, " %s",
					       (const char *)hosts->pdata[k]);
		if (hosts->len > 4)
			g_string_append_printf(sides, " and %u more",
					       hosts->len - 4);
	}
	v = hd_verdict_new(
		HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
		"hosts chose different networks (%s): configuration error, the communicator cannot connect them",
		sides->str);
	v->score = s->ops->len ? HD_SCORE_INIT - 20 : HD_SCORE_INIT;
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < MAX_EVIDENCE; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig->type == HD_SIGT_TRANSPORT)
			add_signal_evidence(s, v, sig);
	}
	hd_verdict_add_ruled_out(
		v,
		"nothing: a host without libibverbs falls back to sockets; install rdma-core there or set NCCL_IB_DISABLE=1 everywhere");
	g_ptr_array_add(a->verdicts, v);
}

/*
 * NCCL 2.4's "Mismatched collective detected ... at and around rank N":
 * ranks are at different collectives; N is where NCCL looked, a hint.
 */
static void check_coll_mismatch(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL;
	struct hd_verdict *v;
	guint n = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig->type != HD_SIGT_NCCL_COLL_MISMATCH)
			continue;
		n++;
		if (!first)
			first = sig;
	}
	if (!first)
		return;
	if (first->peer_rank >= 0)
		v = hd_verdict_new(
			HD_V_TYPE_MISMATCH, HD_CONF_LOW,
			"NCCL detected mismatched collectives at and around rank %d: ranks called different collectives at one position (kind or order); which rank is wrong is not shown",
			first->peer_rank);
	else
		v = hd_verdict_new(
			HD_V_TYPE_MISMATCH, HD_CONF_LOW,
			"NCCL detected mismatched collectives: ranks called different collectives at one position (kind or order); which rank is wrong is not shown");
	v->score = HD_SCORE_MISMATCH - 5;
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < MAX_EVIDENCE; i++)
		if (sig_at(s, i)->type == HD_SIGT_NCCL_COLL_MISMATCH)
			add_signal_evidence(s, v, sig_at(s, i));
	if (n > 1)
		hd_verdict_add_evidence(v, -1, NULL, "%u such warnings", n);
	hd_verdict_add_ruled_out(
		v,
		"nothing: the rank NCCL names is where it looked, not necessarily the culprit; COLL logs (NCCL_DEBUG_SUBSYS=COLL) of every rank would show it");
	g_ptr_array_add(a->verdicts, v);
}

/* NCCL itself saw a message of the wrong size. */
static void check_mismatch_signals(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct hd_verdict *v = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = sig_at(s, i);

		if (sig->cat != HD_SIG_MISMATCH ||
		    sig->type == HD_SIGT_COLL_MISMATCH ||
		    sig->type == HD_SIGT_NCCL_COLL_MISMATCH)
			continue;
		if (!v) {
			v = hd_verdict_new(
				HD_V_SIZE_MISMATCH, HD_CONF_LOW,
				"NCCL saw a message of the wrong size%s%s: ranks disagree on a collective's size or order",
				sig->rank >= 0 ? " on rank " : "", "");
			if (sig->rank >= 0) {
				g_free(v->summary);
				v->summary = g_strdup_printf(
					"NCCL on rank %d saw a message of the wrong size%s%s: ranks disagree on a collective's size or order",
					sig->rank, sig->peer ? " from " : "",
					sig->peer ? sig->peer : "");
			}
			v->score = HD_SCORE_MISMATCH - 5;
			hd_verdict_add_ruled_out(
				v,
				"which rank is wrong: NCCL only sees the two ends of one transfer");
		}
		if (v->evidence->len < MAX_EVIDENCE)
			add_signal_evidence(s, v, sig);
	}
	if (v)
		g_ptr_array_add(a->verdicts, v);
}

/* One "#a-b (id) MISMATCH" entry of an NCCL RAS status report. */
struct ras_entry {
	const struct hd_signal *head;
	GPtrArray *counts; /* signals "N ranks have launched up to op K" */
	GPtrArray *ranks; /* signals "Rank R -- GPU ..." */
	GArray *rank_of; /* int: index in counts of the line before each */
	bool interleaved; /* a count line follows a rank line */
};

/*
 * Decides an entry from its counts, never from which ranks it lists: the
 * ranks at the lowest operation count are behind.  RAS may list either
 * side (the smaller group), so the listed ranks are matched to a count
 * by position, or by size when that is unique.
 */
static void ras_decide(const struct hd_store *s, struct hd_analysis *a,
		       struct ras_entry *e)
{
	g_autoptr(GArray) culprits = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *ct = NULL;
	const struct hd_signal *low = NULL, *next = NULL;
	int64_t total = 0;
	int listed = -1; /* index in counts of the listed ranks' line */
	guint low_i = 0, n_same = 0;
	enum hd_confidence conf = HD_CONF_MEDIUM;
	struct hd_verdict *v;
	const char *op;

	for (guint i = 0; i < e->counts->len; i++) {
		const struct hd_signal *c = e->counts->pdata[i];

		total += c->code;
		if (!low || c->seq < low->seq) {
			low = c;
			low_i = i;
		}
	}
	if (e->counts->len < 2)
		return;
	for (guint i = 0; i < e->counts->len; i++) {
		const struct hd_signal *c = e->counts->pdata[i];

		if (c != low && (!next || c->seq < next->seq))
			next = c;
	}
	if (e->ranks->len && e->interleaved) {
		listed = g_array_index(e->rank_of, int, 0);
		for (guint i = 0; i < e->ranks->len; i++)
			if (g_array_index(e->rank_of, int, i) != listed)
				listed = -2; /* several sides: by position */
	} else if (e->ranks->len) {
		for (guint i = 0; i < e->counts->len; i++)
			if (((const struct hd_signal *)e->counts->pdata[i])
				    ->code == (int32_t)e->ranks->len) {
				listed = (int)i;
				n_same++;
			}
		if (n_same != 1)
			listed = -1;
	}
	if (listed == -2) {
		for (guint i = 0; i < e->ranks->len; i++)
			if (g_array_index(e->rank_of, int, i) == (int)low_i)
				g_array_append_val(culprits,
						   ((const struct hd_signal *)
							    e->ranks->pdata[i])
							   ->peer_rank);
	} else if (listed == (int)low_i) {
		for (guint i = 0; i < e->ranks->len; i++)
			g_array_append_val(
				culprits,
				((const struct hd_signal *)e->ranks->pdata[i])
					->peer_rank);
	} else if (listed >= 0 && e->counts->len == 2 && total <= (1 << 16)) {
		/* the listed ranks are ahead: the others are behind */
		g_autoptr(GHashTable) named = g_hash_table_new(NULL, NULL);

		for (guint i = 0; i < e->ranks->len; i++)
			g_hash_table_add(
				named,
				GINT_TO_POINTER(((const struct hd_signal *)
							 e->ranks->pdata[i])
							->peer_rank));
		for (int r = 0; r < (int)total; r++)
			if (!g_hash_table_contains(named, GINT_TO_POINTER(r)))
				g_array_append_val(culprits, r);
		conf = HD_CONF_LOW;
	} else {
		conf = HD_CONF_LOW;
	}
	int_set_unique(culprits);
	if (culprits->len != (guint)low->code) {
		/* what was read does not add up: name no one */
		g_array_set_size(culprits, 0);
		conf = HD_CONF_LOW;
	}
	g_array_sort(culprits, hd_compare_int);
	ct = hd_ranks_text(culprits, 8);
	op = low->op_name ? low->op_name : "collective";
	v = hd_verdict_new(
		next && next->seq > low->seq + 1 ? HD_V_LAGGING_RANK
						 : HD_V_MISSING_RANK,
		conf,
		"%d rank%s%s%s%s stopped at %s operation %" G_GINT64_FORMAT
		" while %" G_GINT64_FORMAT
		" others launched up to %" G_GINT64_FORMAT " (NCCL RAS status)",
		low->code, low->code == 1 ? "" : "s", culprits->len ? " (" : "",
		culprits->len ? ct : "", culprits->len ? ")" : "", op, low->seq,
		total - low->code, next ? next->seq : low->seq);
	for (guint i = 0; i < culprits->len; i++)
		hd_verdict_add_culprit(v, g_array_index(culprits, int, i));
	v->score = next && next->seq > low->seq + 1 ? HD_SCORE_LAGGING
						    : HD_SCORE_MISSING;
	add_signal_evidence(s, v, e->head);
	for (guint i = 0; i < e->counts->len; i++)
		add_signal_evidence(s, v, e->counts->pdata[i]);
	for (guint i = 0; i < e->ranks->len && v->evidence->len < 8; i++)
		add_signal_evidence(s, v, e->ranks->pdata[i]);
	if (listed >= 0 && listed != (int)low_i)
		hd_verdict_add_ruled_out(
			v,
			"the %u ranks RAS lists: they are ahead (operation %" G_GINT64_FORMAT
			"), not behind",
			e->ranks->len,
			((const struct hd_signal *)e->counts->pdata[listed])
				->seq);
	if (!culprits->len)
		hd_verdict_add_ruled_out(
			v,
			"nothing: which ranks are behind cannot be told from what RAS listed");
	hd_verdict_add_ruled_out(
		v,
		"ranks are the communicator's (equal to global ranks for the world communicator)");
	g_ptr_array_add(a->verdicts, v);
}

static void check_ras(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct ras_entry e = { 0 };

	for (guint i = 0; i <= s->signals->len; i++) {
		const struct hd_signal *sig =
			i < s->signals->len ? sig_at(s, i) : NULL;
		bool head = sig && sig->type == HD_SIGT_RAS_MISMATCH &&
			    sig->cat == HD_SIG_TIMEOUT;

		if (e.head &&
		    (!sig || head || sig->prov.input != e.head->prov.input)) {
			ras_decide(s, a, &e);
			g_ptr_array_unref(e.counts);
			g_ptr_array_unref(e.ranks);
			g_array_unref(e.rank_of);
			memset(&e, 0, sizeof(e));
		}
		if (head) {
			e.head = sig;
			e.counts = g_ptr_array_new();
			e.ranks = g_ptr_array_new();
			e.rank_of = g_array_new(FALSE, FALSE, sizeof(int));
			continue;
		}
		if (!e.head || !sig || sig->type != HD_SIGT_RAS_MISMATCH)
			continue;
		if (sig->seq >= 0) {
			if (e.ranks->len)
				e.interleaved = true;
			g_ptr_array_add(e.counts, hd_unconst(sig));
		} else {
			int at = (int)e.counts->len - 1;

			g_ptr_array_add(e.ranks, hd_unconst(sig));
			g_array_append_val(e.rank_of, at);
		}
	}
}

void hd_check_signals(struct hd_index *ix, struct hd_analysis *a)
{
	check_progress(ix, a);
	check_ras(ix, a);
	check_network(ix, a);
	check_crashes(ix, a);
	check_network_weak(ix, a);
	check_init(ix, a);
	check_transports(ix, a);
	check_coll_mismatch(ix, a);
	check_mismatch_signals(ix, a);
}

GArray *hd_ranks_on_peer_host(const struct hd_store *s, const char *host,
			      const char **name)
{
	g_autofree char *h = peer_host(host);

	return ranks_on_host(s, h, name);
}
