/*
 * The rank x position matrix: a read-only query on a finished analysis
 * that says, for every rank of the group a verdict is about and every
 * aligned position near the divergence, what state the rank's op at that
 * position is in (completed, blocked, absent, mismatched...).  The
 * pictures of the HTML report and the Perfetto export draw it; the engine
 * computes it, so a renderer never decides which rank was absent.
 * Part of the public engine API (hd-engine.h includes it).
 *
 * Ownership: a matrix owns its arrays; it borrows the analysis's store
 * (cells name ops by index into store->ops).
 */
#ifndef HD_MATRIX_H
#define HD_MATRIX_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-verdict.h"

/* What one rank did at one position. */
enum hd_cell_state {
	HD_CELL_NO_DATA = 0, /* the rank left no data in this group */
	HD_CELL_ABSENT, /* it has ops here, none at this position */
	HD_CELL_UNRECORDED, /* before its oldest op (ring buffer rolled) */
	HD_CELL_COMPLETED,
	HD_CELL_BLOCKED, /* entered, not completed, where completions are known */
	HD_CELL_PENDING, /* entered; the source says nothing of completion */
	HD_CELL_MISMATCHED, /* a mismatch verdict names it at this position */
	HD_CELL_STATE_COUNT
};

struct hd_matrix_cell {
	uint32_t op; /* index into store->ops, UINT32_MAX none */
	uint8_t state; /* enum hd_cell_state */
};

struct hd_matrix {
	uint32_t group; /* store group index */
	uint8_t seq_kind; /* enum hd_seq_kind of the positions */
	uint8_t source; /* enum hd_input_kind the ops came from */
	int64_t divergence; /* the position the verdict is about, -1 none */
	GArray *positions; /* int64_t, ascending: the columns */
	GArray *ranks; /* int global ranks, ascending: the rows */
	GArray *culprit; /* gboolean by row: a culprit of the top verdict */
	struct hd_matrix_cell *cells; /* row-major, ranks x positions */
	bool has_times; /* some op in a cell has a start or end time */
};

/*
 * The matrix of the top verdict's group (else the per-rank table's
 * group) around its divergence: up to before positions before it and
 * after positions after it, in the sequence kind and source that group
 * has most ops in.  NULL when no group has collectives.  (transfer full)
 */
struct hd_matrix *hd_analysis_matrix(const struct hd_analysis *a, guint before,
				     guint after);
/*
 * The picture of a logs-only incident, where no op was recorded but the
 * rank table holds the c10d watchdog's counters of one PG (counters_pg;
 * its name in *pg_name): a position up to a rank's last completed is
 * completed, up to its last enqueued entered (blocked where completions
 * are counted), past it absent; a rank without that PG's counters has
 * no data.  Columns: up to before positions before the top verdict's
 * position (else the first one some rank did not complete) to the last
 * one enqueued, at most after past it.  Its cells name no op and its
 * group is UINT32_MAX.  NULL when no rank has counters.  (transfer full)
 */
struct hd_matrix *hd_analysis_counters_matrix(const struct hd_analysis *a,
					      guint before, guint after,
					      const char **pg_name);
void hd_matrix_free(struct hd_matrix *m);
typedef struct hd_matrix hd_matrix; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_matrix, hd_matrix_free)

/* The cell of row r, column c.  (transfer none) */
static inline const struct hd_matrix_cell *
hd_matrix_cell(const struct hd_matrix *m, guint r, guint c)
{
	g_assert(r < m->ranks->len && c < m->positions->len);
	return &m->cells[(size_t)r * m->positions->len + c];
}

/* "completed", "blocked", "absent", ...  (transfer none) */
const char *hd_cell_state_name(enum hd_cell_state st);

#endif
