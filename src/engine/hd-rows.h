/*
 * How the reports fold their rows, decided once over a finished analysis
 * (or a filtered view of one) so that every format folds alike: the rank
 * table's runs of consecutive ranks whose rows are equal, and which of
 * them a table capped at some rows shows; the rank picture's runs of
 * ranks that look the same.  Renderers choose only the cap (a terminal
 * holds fewer rows than a page) and lay the rows out.  Part of the public
 * engine API (hd-engine.h includes it).
 */
#ifndef HD_ROWS_H
#define HD_ROWS_H

#include <stdbool.h>
#include <glib.h>

#include "hd-matrix.h"
#include "hd-verdict.h"

/*
 * One row of the rank table: the ranks first..last (consecutive) whose
 * progress rows are equal in every column a report prints (host, inputs,
 * ops, group, whose counters, enqueued, completed, state and where it is
 * blocked).  progress indexes a->progress: the row a report prints.
 */
struct hd_rank_row {
	guint progress;
	int first, last;
	bool shown; /* among the first max rows, or holds a culprit */
	bool gap; /* shown, and rows before it were left out */
};

struct hd_rank_rows {
	GArray *rows; /* struct hd_rank_row, every run in rank order */
	guint shown; /* rows shown */
	guint hidden_rows, hidden_ranks; /* left out, and their ranks */
};

/*
 * Every rank some verdict blames: a GArray of int, ascending, each once
 * (the rows a folded rank table must still show).  (transfer full)
 */
GArray *hd_analysis_culprit_set(const struct hd_analysis *a);

/*
 * a->progress folded: the first max rows shown, then only the rows that
 * hold a rank some verdict blames (a culprit's row is never left out).
 * (transfer full)
 */
struct hd_rank_rows *hd_analysis_rank_rows(const struct hd_analysis *a,
					   guint max);
void hd_rank_rows_free(struct hd_rank_rows *r);
typedef struct hd_rank_rows hd_rank_rows; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_rank_rows, hd_rank_rows_free)

/* A row of the rank picture: matrix rows first..last, drawn as one. */
struct hd_matrix_row {
	guint first, last;
};

/*
 * The picture's rows (struct hd_matrix_row): one per rank, or, past
 * fold_above ranks, one per run of consecutive non-culprit ranks in the
 * same state at every position.  (transfer full)
 */
GArray *hd_matrix_rows(const struct hd_matrix *m, guint fold_above);

#endif
