/*
 * The text report, for a person at an 80-column terminal at 3 AM: the top
 * verdict on the first line, then its evidence, what was ruled out, the
 * other verdicts, what could not be decided, compact rank and arrival
 * tables and the inputs.  Every line goes through emit(), which cleans raw
 * input bytes and cuts the line at 80 columns with "...", except source
 * locations, which are never cut.  Every list is capped so that a 16k-rank
 * incident still gives a report that fits on a few screens.
 */
#include "config.h"

#include "hd-report-render.h"

#include <stdarg.h>
#include <string.h>

#include "hd-report-util.h"
#include "hd-banned.h"

#define WIDTH 80
#define MAX_EVIDENCE 10
#define MAX_RULED_OUT 8
#define MAX_VERDICTS 8
#define MAX_NOTES 8
#define MAX_GROUPS 8
#define MAX_RANK_ROWS 16
#define MAX_ARRIVALS 10
#define MAX_INPUTS 10
#define MAX_WARNINGS 3
#define MAX_WRAP_LINES 4

/* Cuts a clean string to width columns, ending it with "..." when cut. */
static char *fit(const char *clean, size_t width)
{
	const char *end;

	if ((size_t)g_utf8_strlen(clean, -1) <= width)
		return g_strdup(clean);
	end = g_utf8_offset_to_pointer(clean, (glong)width - 3);
	return g_strdup_printf("%.*s...", (int)(end - clean), clean);
}

static void emit_str(FILE *out, const char *s)
{
	g_autofree char *clean = hd_report_clean(s);
	g_autofree char *line = fit(clean, WIDTH);

	fputs(line, out);
	fputc('\n', out);
}

static void emit(FILE *out, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void emit(FILE *out, const char *fmt, ...)
{
	g_autofree char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	emit_str(out, s);
}

/*
 * Word-wraps text after indent (continuation lines are indented as far),
 * at most max_lines lines; the last one is cut with "..." when text does
 * not fit.
 */
static void emit_wrapped(FILE *out, const char *indent, const char *text,
			 int max_lines)
{
	g_autofree char *clean = hd_report_clean(text);
	g_autofree char *blank = g_strnfill(strlen(indent), ' ');
	const char *p = clean;
	size_t room = WIDTH - strlen(indent);

	for (int n = 0; *p && n < max_lines; n++) {
		const char *brk = NULL;
		const char *q = p;
		size_t cols = 0;

		while (*q && cols < room) {
			if (*q == ' ')
				brk = q;
			q = g_utf8_next_char(q);
			cols++;
		}
		if (!*q || n == max_lines - 1) {
			emit(out, "%s%s", n ? blank : indent, p);
			return;
		}
		if (*q == ' ')
			brk = q;
		if (!brk || brk == p)
			brk = q;
		emit(out, "%s%.*s", n ? blank : indent, (int)(brk - p), p);
		p = brk;
		while (*p == ' ')
			p++;
	}
}

static void emit_more(FILE *out, const char *indent, guint more,
		      const char *what)
{
	g_autofree char *n = hd_report_count(more);

	if (more)
		emit(out, "%s... and %s more %s", indent, n, what);
}

static const char *plural(guint64 n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* "rank 3", "ranks 0-3,5" or "" (transfer full). */
static char *culprit_text(const struct hd_verdict *v)
{
	g_autofree char *list = hd_report_rank_list(v->culprits);

	if (!v->culprits->len)
		return g_strdup("");
	return g_strdup_printf("%s %s", plural(v->culprits->len, "rank",
					       "ranks"),
			       list);
}

/* "group 0 seq 42 all_reduce", or the parts known (transfer full). */
static char *where_text(const struct hd_analysis *a,
			const struct hd_verdict *v)
{
	GString *s = g_string_new(NULL);

	if (v->group >= 0) {
		g_autofree char *label = hd_group_label(a->store, v->group,
							HD_GROUP_LABEL_SHORT);

		g_string_append_printf(s, "group %s", label);
	}
	if (v->seq >= 0)
		g_string_append_printf(s, "%sseq %" G_GINT64_FORMAT,
				       s->len ? " " : "", v->seq);
	if (v->op)
		g_string_append_printf(s, "%s%s", s->len ? " " : "", v->op);
	return g_string_free(s, FALSE);
}

/* "kind [conf] ranks X, group G seq N op: summary" (transfer full). */
static char *verdict_line(const struct hd_analysis *a,
			  const struct hd_verdict *v)
{
	g_autofree char *who = culprit_text(v);
	g_autofree char *where = where_text(a, v);
	GString *s = g_string_new(NULL);

	g_string_append_printf(s, "%s [%s]", hd_verdict_kind_name(v->kind),
			       hd_confidence_name(v->confidence));
	if (*who)
		g_string_append_printf(s, " %s", who);
	if (*where)
		g_string_append_printf(s, "%s %s", *who ? "," : "", where);
	g_string_append_printf(s, ": %s", v->summary ? v->summary : "");
	return g_string_free(s, FALSE);
}

static void emit_evidence(FILE *out, const struct hd_evidence *e)
{
	g_autofree char *src = hd_report_clean(e->source);
	size_t src_cols = g_utf8_strlen(src, -1);

	if (!*src) {
		emit(out, "  %s", e->text ? e->text : "");
	} else if (src_cols + 4 + 24 <= WIDTH) {
		emit(out, "  %s: %s", src, e->text ? e->text : "");
	} else {
		/* The location stays whole, even past the last column. */
		fprintf(out, "  %s:\n", src);
		emit(out, "    %s", e->text ? e->text : "");
	}
}

static void top_verdict(FILE *out, const struct hd_analysis *a,
			const struct hd_verdict *v)
{
	g_autofree char *line = verdict_line(a, v);
	g_autofree char *clean = hd_report_clean(line);

	emit_str(out, clean);
	if ((size_t)g_utf8_strlen(clean, -1) > WIDTH) {
		g_autofree char *who = hd_report_rank_list(v->culprits);

		/* The first line was cut: give its parts in full. */
		emit_wrapped(out, "  summary: ", v->summary, MAX_WRAP_LINES);
		if (v->culprits->len > 1)
			emit_wrapped(out, "  culprit ranks: ", who,
				     MAX_WRAP_LINES);
	}
	if (v->fingerprint)
		emit(out, "  fingerprint %s", v->fingerprint);
	if (v->evidence->len) {
		emit(out, "%s", "");
		emit(out, "evidence:");
	}
	for (guint i = 0; i < v->evidence->len && i < MAX_EVIDENCE; i++)
		emit_evidence(out, g_ptr_array_index(v->evidence, i));
	if (v->evidence->len > MAX_EVIDENCE)
		emit_more(out, "  ", v->evidence->len - MAX_EVIDENCE,
			  "evidence items");
	if (v->ruled_out->len) {
		emit(out, "%s", "");
		emit(out, "ruled out:");
	}
	for (guint i = 0; i < v->ruled_out->len && i < MAX_RULED_OUT; i++)
		emit(out, "  - %s",
		     (const char *)g_ptr_array_index(v->ruled_out, i));
	if (v->ruled_out->len > MAX_RULED_OUT)
		emit_more(out, "  ", v->ruled_out->len - MAX_RULED_OUT,
			  "ruled out");
}

static void no_verdict(FILE *out, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	unsigned usable = hd_store_usable_inputs(s);

	if (!s->inputs->len)
		emit(out, "no verdict: no input files found");
	else if (!usable)
		emit(out, "no verdict: no usable input (%u %s tried)",
		     s->inputs->len, plural(s->inputs->len, "file", "files"));
	else
		emit(out, "no verdict: the analysis reached no conclusion");
}

static void other_verdicts(FILE *out, const struct hd_analysis *a)
{
	guint n = a->verdicts->len;

	if (n < 2)
		return;
	emit(out, "%s", "");
	emit(out, "other verdicts:");
	for (guint i = 1; i < n && i <= MAX_VERDICTS; i++) {
		g_autofree char *line =
			verdict_line(a, g_ptr_array_index(a->verdicts, i));

		emit(out, "  %s", line);
	}
	if (n - 1 > MAX_VERDICTS)
		emit_more(out, "  ", n - 1 - MAX_VERDICTS, "verdicts");
}

static void notes(FILE *out, const struct hd_analysis *a)
{
	if (!a->notes || !a->notes->len)
		return;
	emit(out, "%s", "");
	emit(out, "not decided:");
	for (guint i = 0; i < a->notes->len && i < MAX_NOTES; i++)
		emit_wrapped(out, "  - ", g_ptr_array_index(a->notes, i), 2);
	if (a->notes->len > MAX_NOTES)
		emit_more(out, "  ", a->notes->len - MAX_NOTES, "notes");
}

/* A group's short label for the rank table: its name, or "#index". */
static char *group_tag(const struct hd_store *s, uint32_t index)
{
	const struct hd_group *g = hd_store_group_at(s, index);

	if (g->name && strlen(g->name) <= 12)
		return g_strdup(g->name);
	return g_strdup_printf("#%u", index);
}

static void groups(FILE *out, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;

	if (!s->groups->len)
		return;
	emit(out, "%s", "");
	emit(out, "groups: %u", s->groups->len);
	for (guint i = 0; i < s->groups->len && i < MAX_GROUPS; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);
		const struct hd_group_stats *st = hd_report_group_stats(a, i);
		g_autofree char *tag = group_tag(s, i);
		g_autofree char *nranks =
			g->nranks >= 0 ? g_strdup_printf("%d", g->nranks)
				       : g_strdup("?");

		emit(out, "  %-12s %s ranks, %u ops aligned, %s%s", tag, nranks,
		     st ? st->ops_aligned : 0, g->id,
		     g->low_confidence_identity ? " (guessed)" : "");
		if (st && st->joined >= 0)
			emit(out, "  %-12s joined with %s (%u ops matched)", "",
			     hd_store_group_at(s, (uint32_t)st->joined)->id,
			     st->joined_ops);
	}
	if (s->groups->len > MAX_GROUPS)
		emit_more(out, "  ", s->groups->len - MAX_GROUPS, "groups");
}

static bool is_culprit(const struct hd_analysis *a, int first, int last)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint k = 0; k < v->culprits->len; k++) {
			int c = g_array_index(v->culprits, int, k);

			if (c >= first && c <= last)
				return true;
		}
	}
	return false;
}

struct table_row {
	int rank;
	char *body; /* everything but the rank */
};

static void table_row_clear(gpointer p)
{
	g_free(((struct table_row *)p)->body);
}

/* Rows from the engine's per-rank progress (the usual case). */
static void progress_rows(const struct hd_analysis *a, GArray *table)
{
	const struct hd_store *s = a->store;

	for (guint i = 0; i < a->progress->len; i++) {
		const struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);
		g_autofree char *ops = hd_report_count(p->ops);
		g_autofree char *tag = p->group >= 0
					       ? group_tag(s, (uint32_t)p->group)
					       : g_strdup("-");
		char host[11], enq[24], done[24], state[48];
		struct table_row row = { p->rank, NULL };

		g_snprintf(host, sizeof(host), "%s", p->host ? p->host : "-");
		hd_report_progress_cells(p, "-", enq, done, state);
		row.body = g_strdup_printf("%-10s %3u %7s %-8.8s %6s %6s  %s",
					   host, p->inputs, ops, tag, enq, done,
					   state);
		g_array_append_val(table, row);
	}
}

static void rank_table(FILE *out, const struct hd_analysis *a)
{
	g_autoptr(GArray) table = g_array_new(FALSE, FALSE,
					      sizeof(struct table_row));
	g_autofree char *missing = hd_report_rank_list(a->ranks_missing);
	guint shown = 0, hidden_rows = 0, hidden_ranks = 0;
	guint i = 0, nseen = a->ranks_seen->len;

	/* The rows are the engine's: the report only lays them out. */
	g_array_set_clear_func(table, table_row_clear);
	if (a->progress)
		progress_rows(a, table);
	if (!table->len && !a->ranks_missing->len)
		return;
	emit(out, "%s", "");
	if (a->world_size >= 0)
		emit(out, "ranks: %u with data, world size %d", nseen,
		     a->world_size);
	else
		emit(out, "ranks: %u with data, world size unknown", nseen);
	if (a->ranks_missing->len)
		emit_wrapped(out, "  no data from: ", missing, MAX_WRAP_LINES);
	if (!table->len)
		return;
	emit(out, "  %-11s %-10s %3s %7s %-8s %6s %6s  %s", "rank", "host",
	     "in", "ops", "group", "last", "done", "state");
	while (i < table->len) {
		const struct table_row *row =
			&g_array_index(table, struct table_row, i);
		int first = row->rank;
		int last = first;
		char range[32];

		/* Collapse a run of consecutive ranks with identical rows. */
		while (i + 1 < table->len) {
			const struct table_row *next = &g_array_index(
				table, struct table_row, i + 1);

			if (next->rank != last + 1 ||
			    strcmp(next->body, row->body) != 0)
				break;
			last++;
			i++;
		}
		i++;
		if (first == last)
			g_snprintf(range, sizeof(range), "%d", first);
		else
			g_snprintf(range, sizeof(range), "%d-%d", first, last);
		if (shown < MAX_RANK_ROWS || is_culprit(a, first, last)) {
			emit(out, "  %-11s %s", range, row->body);
			shown++;
		} else {
			hidden_rows++;
			hidden_ranks += (guint)(last - first + 1);
		}
	}
	if (hidden_rows) {
		g_autofree char *nr = hd_report_count(hidden_rows);
		g_autofree char *nk = hd_report_count(hidden_ranks);

		emit(out, "  ... and %s more rows (%s ranks)", nr, nk);
	}
}

static gint compare_arrival(gconstpointer pa, gconstpointer pb)
{
	const struct hd_arrival *x = pa, *y = pb;

	if (x->wait_imposed_ns != y->wait_imposed_ns)
		return x->wait_imposed_ns > y->wait_imposed_ns ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void arrival_table(FILE *out, const struct hd_analysis *a)
{
	g_autoptr(GArray) sorted = NULL;

	if (!a->arrivals || !a->arrivals->len)
		return;
	sorted = g_array_sized_new(FALSE, FALSE, sizeof(struct hd_arrival),
				   a->arrivals->len);
	g_array_append_vals(sorted, a->arrivals->data, a->arrivals->len);
	g_array_sort(sorted, compare_arrival);
	emit(out, "%s", "");
	emit(out, "arrivals (largest wait imposed first):");
	emit(out, "  %-7s %8s %6s %11s %12s  %s", "rank", "matched", "last",
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
			emit(out, "  %-7d %8u %6u %11s %12s  %s +/- %s",
			     ar->rank, ar->matched, ar->times_last, lag, wait,
			     off, unc);
		else
			emit(out, "  %-7d %8u %6u %11s %12s  -", ar->rank,
			     ar->matched, ar->times_last, lag, wait);
	}
	if (sorted->len > MAX_ARRIVALS)
		emit_more(out, "  ", sorted->len - MAX_ARRIVALS, "ranks");
}

static void input_line(FILE *out, const struct hd_input *in)
{
	g_autofree char *path = hd_report_clean(in->path);
	g_autofree char *recs = hd_report_count(in->records);
	g_autofree char *skip = hd_report_count(in->skipped);
	g_autofree char *detail = NULL;
	char rank[32] = "";

	if (in->rank >= 0)
		g_snprintf(rank, sizeof(rank), ", rank %d", in->rank);
	detail = g_strdup_printf("%s%s: %s records, %s skipped%s%s",
				 hd_input_kind_name(in->kind), rank, recs, skip,
				 in->truncated ? ", truncated" : "",
				 in->empty ? ", empty" : "");
	if (g_utf8_strlen(path, -1) + g_utf8_strlen(detail, -1) + 5 <=
	    WIDTH) {
		emit(out, "  %s (%s)", path, detail);
	} else {
		/* The path stays whole, even past the last column. */
		fprintf(out, "  %s\n", path);
		emit(out, "    (%s)", detail);
	}
	for (guint i = 0; in->warnings && i < in->warnings->len &&
			  i < MAX_WARNINGS;
	     i++)
		emit(out, "    warning: %s",
		     (const char *)g_ptr_array_index(in->warnings, i));
	if (in->nwarnings > MAX_WARNINGS &&
	    in->warnings && in->warnings->len > 0)
		emit_more(out, "    ",
			  (guint)(in->nwarnings - MIN(in->warnings->len,
						       MAX_WARNINGS)),
			  "warnings");
}

static void inputs(FILE *out, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	guint usable = 0, bad = 0, shown = 0;

	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (in->error)
			bad++;
		else
			usable++;
	}
	emit(out, "%s", "");
	if (!s->inputs->len) {
		emit(out, "inputs: none found");
		return;
	}
	emit(out, "inputs: %u read, %u unusable", usable, bad);
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (in->error)
			continue;
		if (shown++ < MAX_INPUTS)
			input_line(out, in);
	}
	if (usable > MAX_INPUTS)
		emit_more(out, "  ", usable - MAX_INPUTS, "inputs");
	if (!bad)
		return;
	emit(out, "unusable inputs:");
	shown = 0;
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);
		g_autofree char *path = NULL;
		g_autofree char *why = NULL;

		if (!in->error || shown++ >= MAX_INPUTS)
			continue;
		path = hd_report_clean(in->path);
		why = hd_report_clean(in->error);
		if (g_utf8_strlen(path, -1) + g_utf8_strlen(why, -1) + 4 <=
		    WIDTH) {
			emit(out, "  %s: %s", path, why);
		} else {
			fprintf(out, "  %s:\n", path);
			emit(out, "    %s", why);
		}
	}
	if (bad > MAX_INPUTS)
		emit_more(out, "  ", bad - MAX_INPUTS, "unusable inputs");
}

/* Inputs from several incidents: said before anything else. */
static void conflicts(FILE *out, const struct hd_analysis *a)
{
	if (!a->conflicts || !a->conflicts->len)
		return;
	emit(out, "WARNING: these inputs cannot all belong to one incident:");
	for (guint i = 0; i < a->conflicts->len; i++)
		emit_wrapped(out, "  - ", g_ptr_array_index(a->conflicts, i),
			     MAX_WRAP_LINES);
	emit(out, "%s",
	     a->merged ? "analyzed as one incident anyway (--merge)"
		       : "nothing is blamed: analyze each incident "
			 "apart, or give --merge");
	emit(out, "%s", "");
}

void hd_report_text(FILE *out, const struct hd_analysis *a)
{
	conflicts(out, a);
	if (a->verdicts->len)
		top_verdict(out, a, g_ptr_array_index(a->verdicts, 0));
	else
		no_verdict(out, a);
	other_verdicts(out, a);
	notes(out, a);
	groups(out, a);
	rank_table(out, a);
	arrival_table(out, a);
	inputs(out, a);
}
