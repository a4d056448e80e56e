/*
 * The reports' rows, folded once (hd-rows.h).  It reads a finished
 * analysis and changes nothing.
 */
#include "config.h"

#include "hd-rows.h"

#include <string.h>

#include "hd-sort.h"
#include "hd-banned.h"

/* Equal in every column a report prints: the rows fold. */
static bool same_progress(const struct hd_rank_progress *x,
			  const struct hd_rank_progress *y)
{
	/* hosts and PG names are interned: the same name, the same pointer */
	return x->host == y->host && x->inputs == y->inputs &&
	       x->ops == y->ops && x->group == y->group &&
	       x->counters_pg == y->counters_pg &&
	       x->last_enqueued == y->last_enqueued &&
	       x->last_completed == y->last_completed &&
	       x->blocked_seq == y->blocked_seq &&
	       g_strcmp0(x->state, y->state) == 0;
}

GArray *hd_analysis_culprit_set(const struct hd_analysis *a)
{
	GArray *set = g_array_new(FALSE, FALSE, sizeof(int));

	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		g_array_append_vals(set, v->culprits->data, v->culprits->len);
	}
	hd_ints_sort_unique(set);
	return set;
}

struct hd_rank_rows *hd_analysis_rank_rows(const struct hd_analysis *a,
					   guint max)
{
	struct hd_rank_rows *r = g_new0(struct hd_rank_rows, 1);
	guint n = a->progress ? a->progress->len : 0;
	g_autoptr(GArray) culprits = hd_analysis_culprit_set(a);
	bool gap = false;

	r->rows = g_array_new(FALSE, FALSE, sizeof(struct hd_rank_row));
	for (guint i = 0; i < n;) {
		const struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);
		struct hd_rank_row row = { i, p->rank, p->rank, false, false };
		guint at;

		for (i++; i < n; i++) {
			const struct hd_rank_progress *q = &g_array_index(
				a->progress, struct hd_rank_progress, i);

			if (q->rank != row.last + 1 || !same_progress(p, q))
				break;
			row.last = q->rank;
		}
		at = hd_ints_lower_bound(culprits, row.first);
		row.shown = r->shown < max ||
			    (at < culprits->len &&
			     g_array_index(culprits, int, at) <= row.last);
		if (row.shown) {
			/* rows were left out here: never read as adjacent */
			row.gap = gap;
			gap = false;
			r->shown++;
		} else {
			r->hidden_rows++;
			r->hidden_ranks += (guint)(row.last - row.first + 1);
			gap = true;
		}
		g_array_append_val(r->rows, row);
	}
	return r;
}

void hd_rank_rows_free(struct hd_rank_rows *r)
{
	if (!r)
		return;
	g_array_unref(r->rows);
	g_free(r);
}

/* Two matrix rows look the same: neither a culprit, every cell alike. */
static bool same_matrix_row(const struct hd_matrix *m, guint x, guint y)
{
	if (g_array_index(m->culprit, gboolean, x) ||
	    g_array_index(m->culprit, gboolean, y))
		return false;
	for (guint c = 0; c < m->positions->len; c++)
		if (hd_matrix_cell(m, x, c)->state !=
		    hd_matrix_cell(m, y, c)->state)
			return false;
	return true;
}

GArray *hd_matrix_rows(const struct hd_matrix *m, guint fold_above)
{
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(struct hd_matrix_row));
	bool fold = m->ranks->len > fold_above;

	for (guint r = 0; r < m->ranks->len; r++) {
		struct hd_matrix_row *last =
			rows->len ? &g_array_index(rows, struct hd_matrix_row,
						   rows->len - 1)
				  : NULL;

		if (fold && last && same_matrix_row(m, last->last, r)) {
			last->last = r;
			continue;
		}
		g_array_append_val(rows, ((struct hd_matrix_row){ r, r }));
	}
	return rows;
}
