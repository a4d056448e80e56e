/*
 * NCCL RAS status reports: an entry "#a-b (id) MISMATCH" lists how many
 * ranks launched up to which operation; the ranks at the lowest count are
 * behind, decided from the counts, never from which ranks RAS lists.
 */
#include "config.h"

#include <string.h>

#include "hd-const.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

/* The most lines of one RAS entry cited: more than a signal check's. */
#define RAS_MAX_EVIDENCE 8

/* One "#a-b (id) MISMATCH" entry of an NCCL RAS status report. */
struct ras_entry {
	const struct hd_signal *head;
	GPtrArray *counts; /* signals "N ranks have launched up to op K" */
	GPtrArray *ranks; /* signals "Rank R -- GPU ..." */
	GArray *rank_of; /* int: index in counts of the line before each */
	bool interleaved; /* a count line follows a rank line */
};

/* What ras_decide() chose for one entry; ras_build() states it. */
struct ras_decision {
	enum hd_verdict_kind kind; /* missing, or lagging past one op */
	enum hd_confidence conf;
	GArray *culprits; /* int, ascending; empty when they cannot be told */
	const struct hd_signal *low; /* the count line of the ranks behind */
	const struct hd_signal *next; /* the next count up, or NULL */
	int64_t total; /* ranks the count lines add up to */
	/* the count line of the ranks RAS lists, when they are ahead */
	const struct hd_signal *ahead;
};

/* Which count line the ranks an entry lists stand under. */
enum ras_listed {
	RAS_LISTED_UNKNOWN, /* none listed, or no count line fits them */
	RAS_LISTED_ONE, /* one count line, by position or by size */
	/* several: each rank line under the count line before it */
	RAS_LISTED_BY_POSITION,
};

/*
 * Where the listed ranks of e stand: under the count line before them
 * when rank and count lines interleave, else under the one count line of
 * their number (*at: its index in counts, for RAS_LISTED_ONE).
 */
static enum ras_listed ras_listed(const struct ras_entry *e, guint *at)
{
	guint n_same = 0;
	int first;

	*at = 0;
	if (!e->ranks->len)
		return RAS_LISTED_UNKNOWN;
	if (e->interleaved) {
		first = g_array_index(e->rank_of, int, 0);
		for (guint i = 0; i < e->ranks->len; i++)
			if (g_array_index(e->rank_of, int, i) != first)
				return RAS_LISTED_BY_POSITION;
		if (first < 0) /* rank lines before every count line */
			return RAS_LISTED_UNKNOWN;
		*at = (guint)first;
		return RAS_LISTED_ONE;
	}
	for (guint i = 0; i < e->counts->len; i++)
		if (hd_signal_ras_nranks(e->counts->pdata[i]) ==
		    (int32_t)e->ranks->len) {
			*at = i;
			n_same++;
		}
	return n_same == 1 ? RAS_LISTED_ONE : RAS_LISTED_UNKNOWN;
}

/*
 * Decides an entry from its counts, never from which ranks it lists: the
 * ranks at the lowest operation count are behind.  RAS may list either
 * side (the smaller group), so the listed ranks are matched to a count
 * by position, or by size when that is unique.  False when the entry
 * has fewer than two counts (nothing is behind anything); else fills *d,
 * whose culprits the caller frees.
 */
static bool ras_decide(const struct ras_entry *e, struct ras_decision *d)
{
	const struct hd_signal *low = NULL, *next = NULL;
	int64_t total = 0;
	enum ras_listed how;
	guint listed, low_i = 0; /* indices in counts */
	enum hd_confidence conf = HD_CONF_MEDIUM;
	GArray *culprits;

	for (guint i = 0; i < e->counts->len; i++) {
		const struct hd_signal *c = e->counts->pdata[i];

		total += hd_signal_ras_nranks(c);
		if (!low || hd_signal_ras_op(c) < hd_signal_ras_op(low)) {
			low = c;
			low_i = i;
		}
	}
	if (e->counts->len < 2)
		return false;
	for (guint i = 0; i < e->counts->len; i++) {
		const struct hd_signal *c = e->counts->pdata[i];

		if (c != low &&
		    (!next || hd_signal_ras_op(c) < hd_signal_ras_op(next)))
			next = c;
	}
	how = ras_listed(e, &listed);
	culprits = g_array_new(FALSE, FALSE, sizeof(int));
	if (how == RAS_LISTED_BY_POSITION) {
		for (guint i = 0; i < e->ranks->len; i++)
			if (g_array_index(e->rank_of, int, i) == (int)low_i)
				g_array_append_val(culprits,
						   ((const struct hd_signal *)
							    e->ranks->pdata[i])
							   ->peer_rank);
	} else if (how == RAS_LISTED_ONE && listed == low_i) {
		for (guint i = 0; i < e->ranks->len; i++)
			g_array_append_val(
				culprits,
				((const struct hd_signal *)e->ranks->pdata[i])
					->peer_rank);
	} else if (how == RAS_LISTED_ONE && e->counts->len == 2 &&
		   total <= (1 << 16)) {
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
	hd_sig_int_set_unique(culprits);
	if (culprits->len != (guint)hd_signal_ras_nranks(low)) {
		/* what was read does not add up: name no one */
		g_array_set_size(culprits, 0);
		conf = HD_CONF_LOW;
	}
	g_array_sort(culprits, hd_compare_int);
	*d = (struct ras_decision){
		.kind = next && hd_signal_ras_op(next) >
						hd_signal_ras_op(low) + 1
				? HD_V_LAGGING_RANK
				: HD_V_MISSING_RANK,
		.conf = conf,
		.culprits = culprits,
		.low = low,
		.next = next,
		.total = total,
		.ahead = how == RAS_LISTED_ONE && listed != low_i
				 ? e->counts->pdata[listed]
				 : NULL,
	};
	return true;
}

/* The verdict of decision d on entry e, with the entry's lines cited. */
static void ras_build(const struct hd_store *s, struct hd_analysis *a,
		      const struct ras_entry *e, const struct ras_decision *d)
{
	const struct hd_signal *low = d->low;
	int32_t behind = hd_signal_ras_nranks(low);
	int64_t at = hd_signal_ras_op(low);
	int64_t up_to = d->next ? hd_signal_ras_op(d->next) : at;
	g_autofree char *ct = hd_ranks_text(d->culprits, 8);
	const char *op =
		low->op_name ? hd_op_display_name(low->op_name) : "collective";
	guint n = d->culprits->len;
	struct hd_verdict *v;

	v = hd_verdict_new(
		d->kind, d->conf,
		"%d rank%s%s%s%s stopped at %s operation %" G_GINT64_FORMAT
		" while %" G_GINT64_FORMAT
		" others launched up to %" G_GINT64_FORMAT " (NCCL RAS status)",
		behind, behind == 1 ? "" : "s", n ? " (" : "", n ? ct : "",
		n ? ")" : "", op, at, d->total - behind, up_to);
	for (guint i = 0; i < n; i++)
		hd_verdict_add_culprit(v, g_array_index(d->culprits, int, i));
	v->score = d->kind == HD_V_LAGGING_RANK ? HD_SCORE_LAGGING
						: HD_SCORE_MISSING;
	/* the entry's lines, whole where it is short */
	hd_sig_cite_upto(s, v, e->head, RAS_MAX_EVIDENCE);
	for (guint i = 0; i < e->counts->len; i++)
		hd_sig_cite_upto(s, v, e->counts->pdata[i], RAS_MAX_EVIDENCE);
	for (guint i = 0; i < e->ranks->len; i++)
		hd_sig_cite_upto(s, v, e->ranks->pdata[i], RAS_MAX_EVIDENCE);
	if (d->ahead)
		hd_verdict_add_ruled_out(
			v,
			"the %u ranks RAS lists: they are ahead (operation %" G_GINT64_FORMAT
			"), not behind",
			e->ranks->len, hd_signal_ras_op(d->ahead));
	if (!n)
		hd_verdict_add_ruled_out(
			v,
			"nothing: which ranks are behind cannot be told from what RAS listed");
	hd_verdict_add_ruled_out(
		v,
		"ranks are the communicator's (equal to global ranks for the world communicator)");
	g_ptr_array_add(a->verdicts, v);
}

void hd_sig_check_ras(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct ras_entry e = { 0 };

	for (guint i = 0; i <= s->signals->len; i++) {
		const struct hd_signal *sig =
			i < s->signals->len ? hd_sig_at(s, i) : NULL;
		bool head = sig && sig->type == HD_SIGT_RAS_MISMATCH &&
			    sig->cat == HD_SIG_TIMEOUT;

		if (e.head &&
		    (!sig || head || sig->prov.input != e.head->prov.input)) {
			struct ras_decision d;

			if (ras_decide(&e, &d)) {
				ras_build(s, a, &e, &d);
				g_array_unref(d.culprits);
			}
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
		if (hd_signal_ras_is_count(sig)) {
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
