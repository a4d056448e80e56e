/*
 * The rank x position matrix (hd-matrix.h): which group and stream the
 * pictures are about, which positions around the divergence, and each
 * rank's state at each of them; and, with logs only, the same from the
 * watchdog's counters in the rank table.  It reads the store and the finished
 * verdicts once more; it adds no verdict and changes nothing.
 */
#include "config.h"

#include "hd-matrix.h"

#include "hd-sort.h"
#include "hd-banned.h"

/* What one rank's ops in the chosen stream say, over all positions. */
struct rank_span {
	int64_t min_seq, max_seq;
	bool completion_info; /* some op completed or has an end time */
};

static const char *const cell_names[HD_CELL_STATE_COUNT] = {
	[HD_CELL_NO_DATA] = "no data",
	[HD_CELL_ABSENT] = "absent",
	[HD_CELL_UNRECORDED] = "not recorded",
	[HD_CELL_COMPLETED] = "completed",
	[HD_CELL_BLOCKED] = "blocked",
	[HD_CELL_PENDING] = "entered",
	[HD_CELL_MISMATCHED] = "mismatched",
};

const char *hd_cell_state_name(enum hd_cell_state st)
{
	return st < HD_CELL_STATE_COUNT ? cell_names[st] : "?";
}

void hd_matrix_free(struct hd_matrix *m)
{
	if (!m)
		return;
	g_array_unref(m->positions);
	g_array_unref(m->ranks);
	g_array_unref(m->culprit);
	g_free(m->cells);
	g_free(m);
}

static bool is_mismatch(enum hd_verdict_kind k)
{
	return hd_verdict_kind_info(k)->mismatch;
}

/* The group the pictures are about: the first verdict's, else the table's. */
static int64_t matrix_group(const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	g_autofree guint *count = NULL;
	int64_t best = -1;

	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->group >= 0 && (guint64)v->group < s->groups->len)
			return v->group;
	}
	for (guint i = 0; i < a->progress->len; i++) {
		const struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);

		if (p->group >= 0 && (guint64)p->group < s->groups->len)
			return p->group;
	}
	if (!s->groups->len)
		return -1;
	count = g_new0(guint, s->groups->len);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->group < s->groups->len && op->seq_kind != HD_SEQ_P2P &&
		    ++count[op->group] > (best >= 0 ? count[best] : 0))
			best = op->group;
	}
	return best;
}

/* True when op belongs in the matrix's stream. */
static bool in_stream(const struct hd_store *s, const struct hd_matrix *m,
		      const struct hd_op *op)
{
	return op->group == m->group && hd_op_rank(op) >= 0 && op->seq >= 0 &&
	       op->seq_kind == m->seq_kind &&
	       hd_store_op_source(s, op) == m->source;
}

/* The sequence kind and source with the most of the group's collectives. */
static bool choose_stream(const struct hd_store *s, struct hd_matrix *m)
{
	/* [seq kind: collective or ordinal][source] */
	guint count[2][HD_INPUT_KIND_COUNT] = { { 0 } };
	/*
	 * flight-recorder first: its states say what completed; kinds not
	 * named here follow in enum order, then UNKNOWN
	 */
	static const uint8_t first[] = { HD_INPUT_FLIGHT_REC, HD_INPUT_KINETO,
					 HD_INPUT_NCCL_LOG };
	uint8_t order[HD_INPUT_KIND_COUNT];
	guint best = 0, n = 0;

	for (guint i = 0; i < G_N_ELEMENTS(first); i++)
		order[n++] = first[i];
	for (uint8_t k = HD_INPUT_UNKNOWN + 1; k < HD_INPUT_KIND_COUNT; k++)
		if (!memchr(first, k, sizeof(first)))
			order[n++] = k;
	order[n++] = HD_INPUT_UNKNOWN;
	g_assert(n == HD_INPUT_KIND_COUNT);

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->group != m->group || op->seq_kind == HD_SEQ_P2P)
			continue;
		count[op->seq_kind == HD_SEQ_ORDINAL]
		     [hd_store_op_source(s, op)]++;
	}
	for (guint k = 0; k < 2; k++) {
		for (guint i = 0; i < n; i++) {
			if (count[k][order[i]] > best) {
				best = count[k][order[i]];
				m->seq_kind =
					k ? HD_SEQ_ORDINAL : HD_SEQ_COLLECTIVE;
				m->source = order[i];
			}
		}
	}
	return best > 0;
}

/* Where the pictures centre: the verdict's position, else the frontier. */
static int64_t matrix_center(const struct hd_analysis *a,
			     const struct hd_matrix *m, GHashTable *spans,
			     int64_t max_all)
{
	const struct hd_store *s = a->store;
	int64_t frontier = -1;

	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->group == (int64_t)m->group && v->seq >= 0)
			return v->seq;
	}
	/* The lowest position some rank entered and did not complete. */
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		const struct rank_span *sp;

		if (!in_stream(s, m, op) || op->state == HD_STATE_COMPLETED)
			continue;
		sp = g_hash_table_lookup(spans,
					 GINT_TO_POINTER(hd_op_rank(op)));
		if (sp && sp->completion_info &&
		    (frontier < 0 || op->seq < frontier))
			frontier = op->seq;
	}
	return frontier >= 0 ? frontier : max_all;
}

/* Rows: the group's members and every rank with ops in the stream. */
static void fill_rows(const struct hd_store *s, struct hd_matrix *m,
		      GHashTable *spans)
{
	const struct hd_group *g = hd_store_group_at(s, m->group);
	g_autoptr(GHashTable) seen =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	GHashTableIter it;
	gpointer key;

	for (guint i = 0; g->members && i < g->members->len; i++) {
		int r = g_array_index(g->members, int, i);

		if (r >= 0)
			g_hash_table_add(seen, GINT_TO_POINTER(r + 1));
	}
	g_hash_table_iter_init(&it, spans);
	while (g_hash_table_iter_next(&it, &key, NULL))
		g_hash_table_add(seen,
				 GINT_TO_POINTER(GPOINTER_TO_INT(key) + 1));
	g_hash_table_iter_init(&it, seen);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		int r = GPOINTER_TO_INT(key) - 1;

		g_array_append_val(m->ranks, r);
	}
	g_array_sort(m->ranks, hd_compare_int);
}

static void fill_cells(const struct hd_analysis *a, struct hd_matrix *m,
		       GHashTable *spans)
{
	const struct hd_store *s = a->store;
	guint ncols = m->positions->len;
	int64_t lo = g_array_index(m->positions, int64_t, 0);
	g_autoptr(GHashTable) row_of =
		g_hash_table_new(g_direct_hash, g_direct_equal);
	const struct hd_verdict *top =
		a->verdicts->len ? g_ptr_array_index(a->verdicts, 0) : NULL;

	m->cells = g_new0(struct hd_matrix_cell,
			  (size_t)m->ranks->len * MAX(ncols, 1));
	g_array_set_size(m->culprit, m->ranks->len);
	for (guint r = 0; r < m->ranks->len; r++) {
		int rank = g_array_index(m->ranks, int, r);
		const struct rank_span *sp =
			g_hash_table_lookup(spans, GINT_TO_POINTER(rank));

		/* a record of another instance holds nothing of this run */
		if (g_hash_table_contains(a->other_instance,
					  GINT_TO_POINTER(rank)))
			sp = NULL;
		g_hash_table_insert(row_of, GINT_TO_POINTER(rank),
				    GUINT_TO_POINTER(r + 1));
		for (guint c = 0; c < ncols; c++) {
			struct hd_matrix_cell *cell =
				&m->cells[(size_t)r * ncols + c];
			int64_t pos = lo + c;

			cell->op = UINT32_MAX;
			if (!sp)
				cell->state = HD_CELL_NO_DATA;
			else if (pos < sp->min_seq)
				cell->state = HD_CELL_UNRECORDED;
			else
				cell->state = HD_CELL_ABSENT;
		}
	}
	/* Each culprit's row, found by rank: never rows times culprits. */
	for (guint c = 0; top && c < top->culprits->len; c++) {
		guint row = GPOINTER_TO_UINT(g_hash_table_lookup(
			row_of,
			GINT_TO_POINTER(g_array_index(top->culprits, int, c))));

		if (row)
			g_array_index(m->culprit, gboolean, row - 1) = TRUE;
	}
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		const struct rank_span *sp;
		struct hd_matrix_cell *cell;
		guint row;

		if (!in_stream(s, m, op) || op->seq < lo ||
		    op->seq >= lo + (int64_t)ncols)
			continue;
		row = GPOINTER_TO_UINT(g_hash_table_lookup(
			row_of, GINT_TO_POINTER(hd_op_rank(op))));
		if (!row ||
		    g_hash_table_contains(a->other_instance,
					  GINT_TO_POINTER(hd_op_rank(op))))
			continue;
		cell = &m->cells[(size_t)(row - 1) * ncols + (op->seq - lo)];
		if (cell->op != UINT32_MAX)
			continue; /* the first op at a position speaks for it */
		sp = g_hash_table_lookup(spans,
					 GINT_TO_POINTER(hd_op_rank(op)));
		cell->op = i;
		if (op->state == HD_STATE_COMPLETED)
			cell->state = HD_CELL_COMPLETED;
		else if (sp && sp->completion_info)
			cell->state = HD_CELL_BLOCKED;
		else
			cell->state = HD_CELL_PENDING;
		if (hd_op_t_start(s, op) != INT64_MIN ||
		    hd_op_t_enqueue(s, op) != INT64_MIN ||
		    hd_op_t_end(s, op) != INT64_MIN)
			m->has_times = true;
	}
	/* Mismatch verdicts name their minority at a position. */
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (!is_mismatch(v->kind) || v->group != (int64_t)m->group ||
		    v->seq < lo || v->seq >= lo + (int64_t)ncols)
			continue;
		for (guint c = 0; c < v->culprits->len; c++) {
			guint row = GPOINTER_TO_UINT(g_hash_table_lookup(
				row_of, GINT_TO_POINTER(g_array_index(
						v->culprits, int, c))));

			if (row)
				m->cells[(size_t)(row - 1) * ncols +
					 (v->seq - lo)]
					.state = HD_CELL_MISMATCHED;
		}
	}
}

struct hd_matrix *hd_analysis_matrix(const struct hd_analysis *a, guint before,
				     guint after)
{
	const struct hd_store *s = a->store;
	int64_t group = matrix_group(a);
	g_autoptr(GHashTable) spans = NULL;
	struct hd_matrix *m;
	int64_t min_all = -1, max_all = -1, center, lo, hi;

	if (group < 0)
		return NULL;
	m = g_new0(struct hd_matrix, 1);
	m->group = (uint32_t)group;
	m->divergence = -1;
	m->positions = g_array_new(FALSE, FALSE, sizeof(int64_t));
	m->ranks = g_array_new(FALSE, FALSE, sizeof(int));
	m->culprit = g_array_new(FALSE, TRUE, sizeof(gboolean));
	if (!choose_stream(s, m)) {
		hd_matrix_free(m);
		return NULL;
	}
	spans = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
				      g_free);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		struct rank_span *sp;

		if (!in_stream(s, m, op))
			continue;
		sp = g_hash_table_lookup(spans,
					 GINT_TO_POINTER(hd_op_rank(op)));
		if (!sp) {
			sp = g_new0(struct rank_span, 1);
			sp->min_seq = sp->max_seq = op->seq;
			g_hash_table_insert(
				spans, GINT_TO_POINTER(hd_op_rank(op)), sp);
		}
		sp->min_seq = MIN(sp->min_seq, op->seq);
		sp->max_seq = MAX(sp->max_seq, op->seq);
		if (op->state == HD_STATE_COMPLETED ||
		    hd_op_t_end(s, op) != INT64_MIN)
			sp->completion_info = true;
		if (min_all < 0 || op->seq < min_all)
			min_all = op->seq;
		max_all = MAX(max_all, op->seq);
	}
	center = matrix_center(a, m, spans, max_all);
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->group == (int64_t)m->group && v->seq >= 0) {
			m->divergence = v->seq;
			break;
		}
	}
	lo = MAX(min_all, center - (int64_t)before);
	hi = MIN(max_all, center + (int64_t)after);
	hi = MAX(hi, center);
	lo = MIN(lo, center);
	for (int64_t p = lo; p <= hi; p++)
		g_array_append_val(m->positions, p);
	fill_rows(s, m, spans);
	fill_cells(a, m, spans);
	return m;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

struct hd_matrix *hd_analysis_counters_matrix(const struct hd_analysis *a,
					      guint before, guint after,
					      const char **pg_name)
{
	const struct hd_verdict *v =
		a->verdicts->len ? g_ptr_array_index(a->verdicts, 0) : NULL;
	guint n = a->progress ? a->progress->len : 0;
	const char *name = NULL;
	int64_t frontier = INT64_MAX, hi = -1, first, last;
	struct hd_matrix *m;

	for (guint i = 0; i < n && !name; i++)
		name = g_array_index(a->progress, struct hd_rank_progress, i)
			       .counters_pg;
	if (!name)
		return NULL;
	for (guint i = 0; i < n; i++) {
		const struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);

		/* Interned: the same PG is the same pointer. */
		if (p->counters_pg != name || p->last_enqueued < 0)
			continue;
		hi = MAX(hi, p->last_enqueued);
		frontier = MIN(frontier, add_sat(MAX(p->last_completed, 0), 1));
	}
	if (hi < 0)
		return NULL;
	m = g_new0(struct hd_matrix, 1);
	m->group = UINT32_MAX;
	m->seq_kind = HD_SEQ_COLLECTIVE;
	m->source = HD_INPUT_UNKNOWN;
	m->divergence =
		v && v->seq >= 0 && v->seq - 1 <= hi ? v->seq : frontier;
	first = MAX(m->divergence - (int64_t)before, 0);
	last = MIN(MAX(hi, m->divergence),
		   add_sat(m->divergence, (int64_t)after));
	m->positions = g_array_new(FALSE, FALSE, sizeof(int64_t));
	m->ranks = g_array_new(FALSE, FALSE, sizeof(int));
	m->culprit = g_array_new(FALSE, FALSE, sizeof(gboolean));
	/* At most before + after + 1, whatever the counters say. */
	for (int64_t q = first;; q++) {
		g_array_append_val(m->positions, q);
		if (q >= last)
			break;
	}
	m->cells = g_new0(struct hd_matrix_cell, (size_t)n * m->positions->len);
	for (guint i = 0; i < n; i++) {
		const struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);
		gboolean culprit = v && hd_verdict_has_culprit(v, p->rank);

		g_array_append_val(m->ranks, p->rank);
		g_array_append_val(m->culprit, culprit);
		for (guint c = 0; c < m->positions->len; c++) {
			struct hd_matrix_cell *cell =
				&m->cells[(size_t)i * m->positions->len + c];
			int64_t q = g_array_index(m->positions, int64_t, c);

			cell->op = UINT32_MAX;
			if (p->counters_pg != name || p->last_enqueued < 0)
				cell->state = HD_CELL_NO_DATA;
			else if (q <= p->last_completed)
				cell->state = HD_CELL_COMPLETED;
			else if (q <= p->last_enqueued)
				cell->state = p->last_completed >= 0
						      ? HD_CELL_BLOCKED
						      : HD_CELL_PENDING;
			else
				cell->state = HD_CELL_ABSENT;
		}
	}
	*pg_name = name;
	return m;
}
