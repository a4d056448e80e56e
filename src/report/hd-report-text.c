/*
 * The text report, for a person at a terminal at 3 AM: the top verdict
 * (kind, culprits with their hosts, the op, the confidence) and its
 * summary, when the hang began, what to do next, the culprit's stack,
 * then its evidence, what was ruled out, the other verdicts, what could
 * not be decided, the groups, a compact rank table, arrivals and the
 * inputs.  Every line goes through emit(), which cleans raw input bytes
 * and wraps at the width asked for with a hanging indent: nothing is cut.
 * Lists are capped (with "... and N more") so that a 16k-rank incident
 * still gives a report that fits on a few screens.
 */
#include "config.h"

#include "hd-report-render.h"

#include <stdarg.h>
#include <string.h>

#include "hd-report-util.h"
#include "hd-const.h"
#include "hd-banned.h"

#define MAX_EVIDENCE  10
#define MAX_RULED_OUT 8
#define MAX_VERDICTS  8
#define MAX_NOTES     8
#define MAX_GROUPS    8
#define MAX_RANK_ROWS 16
#define MAX_ARRIVALS  10
#define MAX_INPUTS    10
#define MAX_WARNINGS  3
#define MAX_HOSTS     8
#define MAX_FRAMES    32

/* What every section writes to. */
struct text {
	FILE *out;
	const struct hd_analysis *a;
	int width;
	bool color; /* SGR codes around the headline's parts */
};

/* Writes text, cleaned, wrapped after first with rest as hanging indent. */
static void emit_wrap(const struct text *t, const char *first, const char *rest,
		      const char *text)
{
	g_autofree char *clean = hd_report_clean(text);
	g_autofree char *lines = hd_report_wrap(clean, first, rest, t->width);

	fputs(lines, t->out);
	fputc('\n', t->out);
}

/*
 * Writes text that holds colour marks (HD_MARK_*) around parts the caller
 * cleaned itself: wrapped, then painted (or the marks removed).
 */
static void emit_marked(const struct text *t, const char *first,
			const char *rest, const char *marked)
{
	g_autofree char *lines = hd_report_wrap(marked, first, rest, t->width);
	g_autofree char *painted = hd_report_paint(lines, t->color);

	fputs(painted, t->out);
	fputc('\n', t->out);
}

/* One formatted item, wrapped with an indent of the item's own indent + 2. */
static void emit(const struct text *t, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);
static void emit(const struct text *t, const char *fmt, ...)
{
	g_autofree char *s = NULL;
	g_autofree char *first = NULL;
	g_autofree char *rest = NULL;
	size_t lead, hang;
	va_list ap;

	va_start(ap, fmt);
	s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	lead = strspn(s, " ");
	/* "  - item" hangs under the item's text, anything else 2 further. */
	if (s[lead] == '-' && s[lead + 1] == ' ') {
		lead += 2;
		hang = lead;
	} else {
		hang = lead + 2;
	}
	first = g_strndup(s, lead);
	rest = g_strnfill(hang, ' ');
	emit_wrap(t, first, rest, s + lead);
}

static void blank(const struct text *t)
{
	fputc('\n', t->out);
}

/* "... and 3 more frames"; what is plural, its last letter dropped for 1. */
static void emit_more(const struct text *t, const char *indent, guint more,
		      const char *what)
{
	g_autofree char *n = hd_report_count(more);

	if (more)
		emit(t, "%s... and %s more %.*s", indent, n,
		     (int)(strlen(what) - (more == 1)), what);
}

static const char *plural(guint64 n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* "1 op aligned", "4,327,424 ops aligned".  (transfer full) */
static char *count_noun(guint64 n, const char *one, const char *many)
{
	g_autofree char *c = hd_report_count(n);

	return g_strdup_printf("%s %s", c, plural(n, one, many));
}

/*
 * "rank 5 (node-b)", "ranks 2-3 (node-a)", "ranks 0-7 (node-a, node-b)",
 * or "" without culprits.  (transfer full)
 */
static char *culprit_text(const struct hd_analysis *a,
			  const struct hd_verdict *v)
{
	g_autofree char *list = hd_rank_list_text(v->culprits, HD_RANKS_SET);
	g_autoptr(GPtrArray) hosts = g_ptr_array_new();
	g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
	GString *s;

	if (!v->culprits->len)
		return g_strdup("");
	s = g_string_new(NULL);
	g_string_append_printf(s, "%s %s",
			       plural(v->culprits->len, "rank", "ranks"), list);
	for (guint i = 0; i < v->culprit_info->len; i++) {
		const char *h =
			g_array_index(v->culprit_info, struct hd_culprit, i)
				.host;

		/* Interned: equal hosts are equal pointers. */
		if (h && g_hash_table_add(seen, hd_unconst(h)))
			g_ptr_array_add(hosts, hd_unconst(h));
	}
	for (guint i = 0; i < hosts->len && i < MAX_HOSTS; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : " (",
				       (const char *)hosts->pdata[i]);
	if (hosts->len > MAX_HOSTS)
		g_string_append_printf(s, " and %u more hosts",
				       hosts->len - MAX_HOSTS);
	if (hosts->len)
		g_string_append_c(s, ')');
	return g_string_free(s, FALSE);
}

/* "group 0 seq 42 all_reduce", or the parts known (transfer full). */
static char *where_text(const struct hd_analysis *a, const struct hd_verdict *v)
{
	g_autofree char *label =
		hd_verdict_group_label(a, v, HD_GROUP_LABEL_SHORT);
	GString *s = g_string_new(NULL);

	if (label)
		g_string_append_printf(s, "group %s", label);
	if (v->seq >= 0)
		g_string_append_printf(s, "%sseq %" G_GINT64_FORMAT,
				       s->len ? " " : "", v->seq);
	if (v->op)
		g_string_append_printf(s, "%s%s", s->len ? " " : "", v->op);
	return g_string_free(s, FALSE);
}

/* "kind [conf] ranks X (hosts), group G seq N op" (transfer full). */
static char *verdict_head(const struct hd_analysis *a,
			  const struct hd_verdict *v)
{
	g_autofree char *who = culprit_text(a, v);
	g_autofree char *where = where_text(a, v);
	GString *s = g_string_new(NULL);

	g_string_append_printf(s, "%s [%s]", hd_verdict_kind_name(v->kind),
			       hd_confidence_name(v->confidence));
	if (*who)
		g_string_append_printf(s, " %s", who);
	if (*where)
		g_string_append_printf(s, "%s %s", *who ? "," : "", where);
	return g_string_free(s, FALSE);
}

/* The mark of a confidence: green high, yellow medium, else bold red. */
static const char *confidence_mark(enum hd_confidence c)
{
	switch (c) {
	case HD_CONF_HIGH:
		return HD_MARK_GOOD;
	case HD_CONF_MEDIUM:
		return HD_MARK_WARN;
	default:
		return HD_MARK_BAD;
	}
}

/*
 * verdict_head() with colour marks around the kind, the confidence and
 * the culprits; every part from an input is cleaned here, because the
 * marks must survive (transfer full).
 */
static char *verdict_head_marked(const struct hd_analysis *a,
				 const struct hd_verdict *v)
{
	g_autofree char *who_raw = culprit_text(a, v);
	g_autofree char *where_raw = where_text(a, v);
	g_autofree char *who = hd_report_clean(who_raw);
	g_autofree char *where = hd_report_clean(where_raw);
	GString *s = g_string_new(NULL);

	g_string_append_printf(
		s, HD_MARK_BAD "%s" HD_MARK_END " [%s%s" HD_MARK_END "]",
		hd_verdict_kind_name(v->kind), confidence_mark(v->confidence),
		hd_confidence_name(v->confidence));
	if (*who)
		g_string_append_printf(s, " " HD_MARK_BOLD "%s" HD_MARK_END,
				       who);
	if (*where)
		g_string_append_printf(s, "%s %s", *who ? "," : "", where);
	return g_string_free(s, FALSE);
}

/*
 * Whether v's evidence gives each item's text on its source's line:
 * only when every source shown is short (a quarter of the width, about),
 * so that one list never mixes the two layouts.
 */
static bool evidence_inline(const struct text *t, const struct hd_verdict *v)
{
	for (guint i = 0; i < v->evidence->len && i < MAX_EVIDENCE; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);
		g_autofree char *src =
			e->source ? hd_report_clean(e->source) : NULL;

		if (src && hd_report_columns(src) + 4 > (size_t)t->width / 2)
			return false;
	}
	return true;
}

/*
 * One evidence item: its source, then the quoted text (a log line
 * without the prefix its source already states), hanging under it, or
 * on the source's line when inline (evidence_inline()).
 */
static void emit_evidence(const struct text *t, const struct hd_evidence *e,
			  bool inline_text)
{
	g_autofree char *src = hd_report_clean(e->source);
	const char *text = hd_report_strip_log_prefix(e->text ? e->text : "");

	if (!*src) {
		emit_wrap(t, "  ", "    ", text);
	} else if (inline_text) {
		g_autofree char *first = g_strdup_printf("  %s: ", src);

		emit_wrap(t, first, "    ", text);
	} else {
		g_autofree char *first = g_strdup_printf("%s:", src);

		emit_wrap(t, "  ", "    ", first);
		emit_wrap(t, "    ", "    ", text);
	}
}

static void hang_start(const struct text *t, const struct hd_analysis *a)
{
	g_autofree char *s = hd_report_hang_start(a);

	if (s)
		emit_wrap(t, "", "  ", s);
}

/* What an on-call engineer does next: the engine's steps, laid out. */
static void next_steps(const struct text *t, const struct hd_verdict *v)
{
	blank(t);
	emit(t, "next steps:");
	for (guint i = 0; i < v->next_steps->len; i++) {
		const struct hd_next *n = g_ptr_array_index(v->next_steps, i);

		emit_wrap(t, "  - ", "    ", n->text);
	}
}

/*
 * The culprit's last stack, innermost user frame first, then the frames
 * outside it, then the framework frames it had called into.
 */
static void culprit_stack(const struct text *t, const struct hd_verdict *v)
{
	const struct hd_analysis *a = t->a;
	const struct hd_culprit *p;
	const struct hd_frame *frames;
	size_t n, from;
	int rank;

	if (!v->culprit_info->len)
		return;
	p = &g_array_index(v->culprit_info, struct hd_culprit, 0);
	rank = p->rank;
	if (p->stack < 0)
		return;
	frames = hd_store_stack(a->store, p->stack, &n);
	if (!n)
		return;
	from = p->user_frame >= 0 ? (size_t)p->user_frame : 0;
	blank(t);
	emit(t, "stack of rank %d at its last op (innermost first):", rank);
	for (size_t i = from; i < n && i - from < MAX_FRAMES; i++) {
		g_autofree char *f = hd_report_frame_text(&frames[i]);

		emit(t, "  %s", f);
	}
	if (n - from > MAX_FRAMES)
		emit_more(t, "  ", (guint)(n - from - MAX_FRAMES), "frames");
	if (!from)
		return;
	emit(t, "  called into (framework, innermost first):");
	for (size_t i = 0; i < from && i < MAX_FRAMES; i++) {
		g_autofree char *f = hd_report_frame_text(&frames[i]);

		emit(t, "    %s", f);
	}
	if (from > MAX_FRAMES)
		emit_more(t, "    ", (guint)(from - MAX_FRAMES), "frames");
}

static void top_verdict(const struct text *t, const struct hd_verdict *v)
{
	g_autofree char *head = verdict_head_marked(t->a, v);
	bool inline_text = evidence_inline(t, v);

	emit_marked(t, "", "  ", head);
	if (v->summary)
		emit_wrap(t, "  ", "  ", v->summary);
	/* emit() cleans what it prints: the site is read from a stack. */
	if (v->fingerprint && v->call_site)
		emit(t, "  fingerprint %s, call site %s", v->fingerprint,
		     v->call_site);
	else if (v->fingerprint)
		emit(t, "  fingerprint %s", v->fingerprint);
	hang_start(t, t->a);
	next_steps(t, v);
	culprit_stack(t, v);
	if (v->evidence->len) {
		blank(t);
		emit(t, "evidence:");
	}
	for (guint i = 0; i < v->evidence->len && i < MAX_EVIDENCE; i++)
		emit_evidence(t, g_ptr_array_index(v->evidence, i),
			      inline_text);
	if (v->evidence->len > MAX_EVIDENCE)
		emit_more(t, "  ", v->evidence->len - MAX_EVIDENCE,
			  "evidence items");
	if (v->ruled_out->len) {
		blank(t);
		emit(t, "ruled out:");
	}
	for (guint i = 0; i < v->ruled_out->len && i < MAX_RULED_OUT; i++)
		emit(t, "  - %s",
		     (const char *)g_ptr_array_index(v->ruled_out, i));
	if (v->ruled_out->len > MAX_RULED_OUT)
		emit_more(t, "  ", v->ruled_out->len - MAX_RULED_OUT,
			  "ruled out");
}

/*
 * --brief: the headline, the summary, the first next step and the first
 * evidence item, for a glance (and for a pager-free terminal).
 */
static void top_verdict_brief(const struct text *t, const struct hd_verdict *v)
{
	g_autofree char *head = verdict_head_marked(t->a, v);

	emit_marked(t, "", "  ", head);
	if (v->summary)
		emit_wrap(t, "  ", "  ", v->summary);
	if (v->next_steps->len) {
		const struct hd_next *n = g_ptr_array_index(v->next_steps, 0);

		emit(t, "next step:");
		emit_wrap(t, "  - ", "    ", n->text);
	}
	if (v->evidence->len) {
		emit(t, "evidence (1 of %u):", v->evidence->len);
		emit_evidence(t, g_ptr_array_index(v->evidence, 0),
			      evidence_inline(t, v));
	}
}

static void no_verdict(const struct text *t)
{
	const struct hd_store *s = t->a->store;
	unsigned usable = hd_store_usable_inputs(s);

	if (!s->inputs->len)
		emit(t, "no verdict: no input files found");
	else if (!usable)
		emit(t, "no verdict: no usable input (%u %s tried)",
		     s->inputs->len, plural(s->inputs->len, "file", "files"));
	else
		emit(t, "no verdict: the analysis reached no conclusion");
}

static void other_verdicts(const struct text *t)
{
	const struct hd_analysis *a = t->a;
	guint n = a->verdicts->len;

	if (n < 2)
		return;
	blank(t);
	emit(t, "other verdicts:");
	for (guint i = 1; i < n && i <= MAX_VERDICTS; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);
		g_autofree char *head = verdict_head(a, v);

		emit(t, "  - %s: %s", head, v->summary ? v->summary : "");
	}
	if (n - 1 > MAX_VERDICTS)
		emit_more(t, "  ", n - 1 - MAX_VERDICTS, "verdicts");
}

static void notes(const struct text *t)
{
	const struct hd_analysis *a = t->a;

	if (!a->notes || !a->notes->len)
		return;
	blank(t);
	emit(t, "not decided:");
	for (guint i = 0; i < a->notes->len && i < MAX_NOTES; i++)
		emit(t, "  - %s", (const char *)g_ptr_array_index(a->notes, i));
	if (a->notes->len > MAX_NOTES)
		emit_more(t, "  ", a->notes->len - MAX_NOTES, "notes");
}

/*
 * The groups, by the name people know them by.  A group whose ranks share
 * no position (an NCCL comm seen only at init, say) says so instead of
 * "0 ops aligned"; a c10d PG known from log lines only comes last.
 */
static void groups(const struct text *t)
{
	const struct hd_analysis *a = t->a;
	const struct hd_store *s = a->store;
	guint nc10d = a->c10d_groups ? a->c10d_groups->len : 0;

	if (!s->groups->len && !nc10d)
		return;
	blank(t);
	emit(t, "groups: %u", s->groups->len + nc10d);
	for (guint i = 0; i < s->groups->len && i < MAX_GROUPS; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);
		const struct hd_group_stats *st = hd_report_group_stats(a, i);
		g_autofree char *label =
			hd_group_label(s, i, HD_GROUP_LABEL_LONG);
		g_autofree char *nranks =
			g->nranks >= 0 ? hd_report_count((uint64_t)g->nranks)
				       : g_strdup("?");
		g_autofree char *ops = NULL;
		g_autofree char *joined = NULL;

		if (!st || !st->positions)
			ops = g_strdup("no ops recorded");
		else if (!st->ops_aligned)
			ops = g_strdup("no position all its ranks reached");
		else
			ops = count_noun(st->ops_aligned, "op aligned",
					 "ops aligned");
		if (st && st->joined >= 0) {
			g_autofree char *matched = count_noun(
				st->joined_ops, "op matched", "ops matched");

			joined = g_strdup_printf(
				"; joined with %s (%s)",
				hd_store_group_at(s, (uint32_t)st->joined)->id,
				matched);
		}
		emit(t, "  - %s: %s ranks, %s; id %s%s%s", label, nranks, ops,
		     g->id, g->low_confidence_identity ? " (guessed)" : "",
		     joined ? joined : "");
	}
	if (s->groups->len > MAX_GROUPS)
		emit_more(t, "  ", s->groups->len - MAX_GROUPS, "groups");
	for (guint i = 0; i < nc10d && i < MAX_GROUPS; i++) {
		const struct hd_c10d_group *g =
			&g_array_index(a->c10d_groups, struct hd_c10d_group, i);
		g_autofree char *label = hd_c10d_group_label(g);
		g_autofree char *text = hd_report_c10d_group_text(g);
		g_autofree char *id = hd_c10d_group_id(g);

		emit(t, "  - %s: %s; id %s", label, text, id);
	}
	if (nc10d > MAX_GROUPS)
		emit_more(t, "  ", nc10d - MAX_GROUPS, "groups");
}

/* A shown row of the rank table: its ranks and its cells. */
struct table_row {
	const struct hd_rank_row *row;
	char range[32];
	char *cells[6]; /* host, files, ops, enqueued, completed, state */
};

static void table_row_clear(gpointer p)
{
	struct table_row *row = p;

	for (size_t i = 0; i < G_N_ELEMENTS(row->cells); i++)
		g_free(row->cells[i]);
}

/* The cells of the rank table's row r, from the engine's progress. */
static void table_row_fill(const struct hd_analysis *a,
			   const struct hd_rank_row *r, struct table_row *row)
{
	const struct hd_rank_progress *p = &g_array_index(
		a->progress, struct hd_rank_progress, r->progress);
	char enq[24], done[24], state[48];

	hd_report_progress_cells(p, "-", enq, done, state);
	row->row = r;
	g_snprintf(row->range, sizeof(row->range),
		   r->first == r->last ? "%d" : "%d-%d", r->first, r->last);
	row->cells[0] = hd_report_clean(p->host ? p->host : "-");
	row->cells[1] = g_strdup_printf("%u", p->inputs);
	row->cells[2] = hd_report_count(p->ops);
	row->cells[3] = g_strdup(enq);
	row->cells[4] = g_strdup(done);
	row->cells[5] = g_strdup(state);
}

/*
 * The rank table: the engine folds it (hd_analysis_rank_rows()), the
 * first MAX_RANK_ROWS rows, then the culprits'; here it is laid out.
 */
static void rank_table(const struct text *t)
{
	static const char *const heads[] = { "rank", "host",	 "inputs",
					     "ops",  "enqueued", "completed",
					     "state" };
	/* left-aligned columns; the others are numbers */
	static const bool left[] = { true,  true,  false, false,
				     false, false, true };
	const struct hd_analysis *a = t->a;
	g_autoptr(hd_rank_rows) folded =
		hd_analysis_rank_rows(a, MAX_RANK_ROWS);
	g_autoptr(GArray) table =
		g_array_new(FALSE, TRUE, sizeof(struct table_row));
	g_autofree char *missing =
		hd_rank_list_text(a->ranks_missing, HD_RANKS_SET);
	size_t w[G_N_ELEMENTS(heads)];
	guint nseen = a->ranks_seen->len;
	int64_t group = -1;
	const char *counters = NULL;

	g_array_set_clear_func(table, table_row_clear);
	if (!folded->rows->len && !a->ranks_missing->len)
		return;
	blank(t);
	{
		g_autofree char *n = hd_report_count(nseen);
		g_autofree char *ws =
			a->world_size >= 0
				? hd_report_count((uint64_t)a->world_size)
				: g_strdup("unknown");

		emit(t, "ranks: %s with data, world size %s", n, ws);
	}
	if (a->ranks_missing->len)
		emit_wrap(t, "  no data from: ", "    ", missing);
	if (!folded->rows->len)
		return;
	group = g_array_index(a->progress, struct hd_rank_progress, 0).group;
	for (guint i = 0; i < a->progress->len && !counters; i++)
		counters =
			g_array_index(a->progress, struct hd_rank_progress, i)
				.counters_pg;
	if (counters) {
		emit(t,
		     "  (enqueued, completed: the c10d watchdog's counters of "
		     "PG %s)",
		     counters);
	} else if (group >= 0) {
		g_autofree char *label =
			hd_group_label(a->store, group, HD_GROUP_LABEL_LONG);

		emit(t, "  (enqueued, completed: the last positions in %s)",
		     label);
	}
	for (guint i = 0; i < folded->rows->len; i++) {
		const struct hd_rank_row *r =
			&g_array_index(folded->rows, struct hd_rank_row, i);
		struct table_row row = { .row = NULL };

		if (!r->shown)
			continue;
		table_row_fill(a, r, &row);
		g_array_append_val(table, row);
	}
	for (size_t c = 0; c < G_N_ELEMENTS(heads); c++)
		w[c] = strlen(heads[c]);
	for (guint i = 0; i < table->len; i++) {
		const struct table_row *row =
			&g_array_index(table, struct table_row, i);

		w[0] = MAX(w[0], strlen(row->range));
		for (size_t c = 0; c < G_N_ELEMENTS(row->cells); c++)
			w[c + 1] =
				MAX(w[c + 1], hd_report_columns(row->cells[c]));
	}
	for (guint i = 0; i <= table->len; i++) {
		GString *line = g_string_new(" ");
		const char *cells[G_N_ELEMENTS(heads)];

		if (i == 0) {
			for (size_t c = 0; c < G_N_ELEMENTS(heads); c++)
				cells[c] = heads[c];
		} else {
			const struct table_row *row =
				&g_array_index(table, struct table_row, i - 1);

			cells[0] = row->range;
			/* rows were left out here: never read as adjacent */
			if (row->row->gap)
				fputs("  ...\n", t->out);
			for (size_t c = 0; c < G_N_ELEMENTS(row->cells); c++)
				cells[c + 1] = row->cells[c];
		}
		for (size_t c = 0; c < G_N_ELEMENTS(heads); c++) {
			size_t pad = w[c] - hd_report_columns(cells[c]);
			bool last = c + 1 == G_N_ELEMENTS(heads);

			g_string_append_c(line, ' ');
			if (!left[c])
				for (size_t k = 0; k < pad; k++)
					g_string_append_c(line, ' ');
			g_string_append(line, cells[c]);
			if (left[c] && !last)
				for (size_t k = 0; k < pad; k++)
					g_string_append_c(line, ' ');
		}
		fputs(line->str, t->out);
		fputc('\n', t->out);
		g_string_free(line, TRUE);
	}
	if (folded->hidden_rows) {
		g_autofree char *nr = hd_report_count(folded->hidden_rows);
		g_autofree char *nk = hd_report_count(folded->hidden_ranks);

		emit(t, "  ... and %s more rows (%s ranks)", nr, nk);
	}
}

static gint compare_arrival(gconstpointer pa, gconstpointer pb)
{
	const struct hd_arrival *x = pa, *y = pb;

	if (x->wait_imposed_ns != y->wait_imposed_ns)
		return x->wait_imposed_ns > y->wait_imposed_ns ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The arrival statistics as a performance note (not a verdict). */
static void performance(const struct text *t)
{
	const struct hd_perf *p = &t->a->perf;

	if (!p->known || !p->summary)
		return;
	blank(t);
	emit(t, "performance:");
	emit_wrap(t, "  ", "  ", p->summary);
}

static void arrival_table(const struct text *t)
{
	const struct hd_analysis *a = t->a;
	g_autoptr(GArray) sorted = NULL;

	performance(t);
	if (!a->arrivals || !a->arrivals->len)
		return;
	sorted = g_array_sized_new(FALSE, FALSE, sizeof(struct hd_arrival),
				   a->arrivals->len);
	g_array_append_vals(sorted, a->arrivals->data, a->arrivals->len);
	g_array_sort(sorted, compare_arrival);
	blank(t);
	emit(t, "arrivals (largest wait imposed first):");
	emit(t, "  %-7s %8s %6s %11s %12s  %s", "rank", "matched", "last",
	     "median lag", "wait imposed", "clock offset");
	for (guint i = 0; i < sorted->len && i < MAX_ARRIVALS; i++) {
		const struct hd_arrival *ar =
			&g_array_index(sorted, struct hd_arrival, i);
		g_autofree char *lag = hd_report_duration(ar->median_lag_ns);
		g_autofree char *wait = hd_report_duration(ar->wait_imposed_ns);
		g_autofree char *off = hd_report_duration(ar->clock_offset_ns);
		g_autofree char *unc =
			hd_report_duration(ar->clock_uncertainty_ns);

		if (ar->has_offset)
			emit(t, "  %-7d %8u %6u %11s %12s  %s +/- %s", ar->rank,
			     ar->matched, ar->times_last, lag, wait, off, unc);
		else
			emit(t, "  %-7d %8u %6u %11s %12s  -", ar->rank,
			     ar->matched, ar->times_last, lag, wait);
	}
	if (sorted->len > MAX_ARRIVALS)
		emit_more(t, "  ", sorted->len - MAX_ARRIVALS, "ranks");
}

static void input_line(const struct text *t, const struct hd_input *in)
{
	g_autofree char *recs = hd_report_count(in->records);
	g_autofree char *skip = hd_report_count(in->skipped);
	g_autofree char *line = NULL;
	char rank[32] = "";

	if (in->rank >= 0)
		g_snprintf(rank, sizeof(rank), ", rank %d", in->rank);
	line = g_strdup_printf("%s (%s%s: %s records, %s skipped%s%s)",
			       in->path, hd_input_kind_name(in->kind), rank,
			       recs, skip, in->truncated ? ", truncated" : "",
			       in->empty ? ", empty" : "");
	emit_wrap(t, "  ", "    ", line);
	for (guint i = 0;
	     in->warnings && i < in->warnings->len && i < MAX_WARNINGS; i++)
		emit(t, "    warning: %s",
		     (const char *)g_ptr_array_index(in->warnings, i));
	if (in->nwarnings > MAX_WARNINGS && in->warnings &&
	    in->warnings->len > 0)
		emit_more(t, "    ",
			  (guint)(in->nwarnings -
				  MIN(in->warnings->len, MAX_WARNINGS)),
			  "warnings");
}

static void inputs(const struct text *t)
{
	const GPtrArray *sorted = t->a->inputs;
	g_autofree char *n_usable = NULL, *n_bad = NULL;
	guint usable = 0, bad = 0, shown = 0;

	for (guint i = 0; i < sorted->len; i++) {
		const struct hd_input *in = g_ptr_array_index(sorted, i);

		if (in->error)
			bad++;
		else
			usable++;
	}
	blank(t);
	if (!sorted->len) {
		emit(t, "inputs: none found");
		return;
	}
	n_usable = hd_report_count(usable);
	n_bad = hd_report_count(bad);
	emit(t, "inputs: %s read, %s unusable", n_usable, n_bad);
	for (guint i = 0; i < sorted->len; i++) {
		const struct hd_input *in = g_ptr_array_index(sorted, i);

		if (in->error)
			continue;
		if (shown++ < MAX_INPUTS)
			input_line(t, in);
	}
	if (usable > MAX_INPUTS)
		emit_more(t, "  ", usable - MAX_INPUTS, "inputs");
	if (!bad)
		return;
	emit(t, "unusable inputs:");
	shown = 0;
	for (guint i = 0; i < sorted->len; i++) {
		const struct hd_input *in = g_ptr_array_index(sorted, i);

		if (!in->error || shown++ >= MAX_INPUTS)
			continue;
		emit(t, "  %s: %s", in->path, in->error);
	}
	if (bad > MAX_INPUTS)
		emit_more(t, "  ", bad - MAX_INPUTS, "unusable inputs");
}

/* Inputs from several incidents: said before anything else. */
static void conflicts(const struct text *t)
{
	const struct hd_analysis *a = t->a;

	if (!a->conflicts || !a->conflicts->len)
		return;
	emit(t, "WARNING: these inputs cannot all belong to one incident:");
	for (guint i = 0; i < a->conflicts->len; i++)
		emit_wrap(t, "  - ", "    ",
			  g_ptr_array_index(a->conflicts, i));
	emit(t, "%s",
	     a->merged ? "analyzed as one incident anyway (--merge)"
		       : "nothing is blamed: analyze each incident "
			 "apart, or give --merge");
	blank(t);
}

/*
 * No input gave a record: no verdict, table or figures to show, only what
 * was read and why none of it could be used.
 */
static void no_usable_input(const struct text *t)
{
	const struct hd_store *s = t->a->store;
	guint n = s->inputs->len;

	if (!n) {
		emit(t, "no usable input: no input was found");
		return;
	}
	{
		/* every kind the parsers know, never a list kept here */
		g_autofree char *kinds = hd_input_kinds_text();
		g_autofree char *head = g_strdup_printf(
			"no usable input: hangdoc reads %s, and found no "
			"record of them in what was given:",
			kinds);

		emit_wrap(t, "", "  ", head);
	}
	for (guint i = 0; i < n && i < MAX_INPUTS; i++) {
		const struct hd_input *in = g_ptr_array_index(t->a->inputs, i);
		g_autofree char *line = g_strdup_printf(
			"%s: %s", in->path,
			in->error	? in->error
			: in->truncated ? "no record before it was cut"
					: "no record");

		emit_wrap(t, "  ", "    ", line);
	}
	if (n > MAX_INPUTS)
		emit_more(t, "  ", n - MAX_INPUTS, "inputs");
}

void hd_report_text(FILE *out, const struct hd_analysis *a,
		    const struct hd_report_opts *opts)
{
	const struct text t = { out, a, opts->width > 0 ? opts->width : 80,
				opts->color };

	if (!hd_store_usable_inputs(a->store) && !a->conflicts->len) {
		no_usable_input(&t);
		return;
	}
	if (opts->filter) {
		g_autofree char *header = hd_report_filter_header(opts->filter);
		g_autofree char *wrapped =
			hd_report_wrap(header, "", "  ", t.width);

		fprintf(out, "%s\n\n", wrapped);
	}
	conflicts(&t);
	if (opts->brief) {
		if (a->verdicts->len)
			top_verdict_brief(&t,
					  g_ptr_array_index(a->verdicts, 0));
		else
			no_verdict(&t);
		return;
	}
	if (a->verdicts->len)
		top_verdict(&t, g_ptr_array_index(a->verdicts, 0));
	else
		no_verdict(&t);
	other_verdicts(&t);
	notes(&t);
	groups(&t);
	rank_table(&t);
	arrival_table(&t);
	inputs(&t);
}
