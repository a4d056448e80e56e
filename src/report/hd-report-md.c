/*
 * The Markdown report, for pasting into an incident ticket: a heading that
 * states the verdict, a summary table, the evidence as a list with its
 * sources in backticks (quoted log lines in code spans; a long list folds
 * into <details>), then capped tables of groups, ranks (runs of identical
 * rows folded, the culprits' rows always shown), arrivals and inputs.
 * Raw text is cleaned (hd_report_clean()) and escaped so that a log line
 * cannot break the table or the formatting around it.
 */
#include "config.h"

#include "hd-report-render.h"

#include <string.h>

#include "hd-report-util.h"
#include "hd-banned.h"

#define MD_MAX_EVIDENCE 20
#define MD_MAX_ITEMS	20
#define MD_MAX_ROWS	32
#define MD_MAX_WARNINGS 3
#define MD_MAX_CULPRITS 8
/* evidence lists longer than this fold all but the first items */
#define MD_FOLD_EVIDENCE  5
#define MD_SHOWN_EVIDENCE 3

/* Text safe inside a table cell or list item (transfer full). */
static char *md_text(const char *s)
{
	g_autofree char *clean = hd_report_clean(s);
	GString *out = g_string_new(NULL);

	for (const char *p = clean; *p; p++) {
		if (strchr("\\`*_[]<>|#", *p))
			g_string_append_c(out, '\\');
		g_string_append_c(out, *p);
	}
	return g_string_free(out, FALSE);
}

/* s in backticks, with a fence longer than any backtick run in it. */
static char *md_code(const char *s)
{
	g_autofree char *clean = hd_report_clean(s);
	size_t run = 0, longest = 0;
	g_autofree char *fence = NULL;
	GString *out = g_string_new(NULL);

	for (const char *p = clean; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = g_strnfill(longest + 1, '`');
	/* Pipes end a table cell even inside code spans. */
	g_string_append(out, fence);
	if (longest)
		g_string_append_c(out, ' ');
	for (const char *p = clean; *p; p++) {
		if (*p == '|')
			g_string_append_c(out, '\\');
		g_string_append_c(out, *p);
	}
	if (longest)
		g_string_append_c(out, ' ');
	g_string_append(out, fence);
	return g_string_free(out, FALSE);
}

/* As the text report's: what is plural, its last letter dropped for 1. */
static void md_more(FILE *out, guint more, const char *what)
{
	g_autofree char *n = hd_report_count(more);

	if (more)
		fprintf(out, "- ... and %s more %.*s\n", n,
			(int)(strlen(what) - (more == 1)), what);
}

static void md_heading(FILE *out, const struct hd_analysis *a)
{
	const struct hd_verdict *v;
	g_autofree char *ranks = NULL;

	if (!a->verdicts->len) {
		fprintf(out, "# hangdoc: no verdict\n\n");
		if (!hd_store_usable_inputs(a->store))
			fprintf(out,
				"No usable input: nothing could be "
				"parsed from the %u input file%s tried.\n\n",
				a->store->inputs->len,
				a->store->inputs->len == 1 ? "" : "s");
		return;
	}
	v = g_ptr_array_index(a->verdicts, 0);
	ranks = hd_rank_list_text(v->culprits, HD_RANKS_SET);
	if (v->culprits->len) {
		g_autofree char *many = NULL;

		/* A long list stays whole in the summary table below. */
		if (strlen(ranks) > 60)
			many = g_strdup_printf("%u", v->culprits->len);
		if (many)
			fprintf(out,
				"# hangdoc: %s, %s ranks (%s confidence)\n\n",
				hd_verdict_kind_name(v->kind), many,
				hd_confidence_name(v->confidence));
		else
			fprintf(out, "# hangdoc: %s, %s %s (%s confidence)\n\n",
				hd_verdict_kind_name(v->kind),
				v->culprits->len == 1 ? "rank" : "ranks", ranks,
				hd_confidence_name(v->confidence));
	} else {
		fprintf(out, "# hangdoc: %s (%s confidence)\n\n",
			hd_verdict_kind_name(v->kind),
			hd_confidence_name(v->confidence));
	}
}

/* A row per culprit the data knows more of: host, pid, call site. */
static void md_culprits(FILE *out, const struct hd_analysis *a,
			const struct hd_verdict *v)
{
	guint n = MIN(v->culprit_info->len, MD_MAX_CULPRITS);

	for (guint i = 0; i < n; i++) {
		const struct hd_culprit *c =
			&g_array_index(v->culprit_info, struct hd_culprit, i);
		g_autofree char *text = hd_report_culprit_text(a->store, c);
		g_autofree char *cell = text ? md_text(text) : NULL;

		if (cell)
			fprintf(out, "| rank %d | %s |\n", c->rank, cell);
	}
	if (v->culprit_info->len > n)
		fprintf(out, "| | and %u more culprits |\n",
			v->culprit_info->len - n);
}

static void md_summary(FILE *out, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	const struct hd_verdict *v;
	g_autofree char *summary = NULL;
	g_autofree char *ranks = NULL;
	g_autofree char *missing =
		hd_rank_list_text(a->ranks_missing, HD_RANKS_SET);
	g_autofree char *missing_md = md_text(missing);
	g_autofree char *group = NULL;

	fprintf(out, "| field | value |\n|---|---|\n");
	if (a->verdicts->len) {
		v = g_ptr_array_index(a->verdicts, 0);
		summary = md_text(v->summary);
		group = hd_verdict_group_label(a, v, HD_GROUP_LABEL_SHORT);
		ranks = hd_rank_list_text(v->culprits, HD_RANKS_SET);
		fprintf(out, "| verdict | `%s` |\n",
			hd_verdict_kind_name(v->kind));
		fprintf(out, "| summary | %s |\n", summary);
		fprintf(out, "| culprit ranks | %s |\n",
			*ranks ? ranks : "none");
		md_culprits(out, a, v);
		if (group) {
			g_autofree char *g = md_code(group);

			fprintf(out, "| group | %s |\n", g);
		}
		if (v->seq >= 0)
			fprintf(out, "| seq | %" G_GINT64_FORMAT " |\n",
				v->seq);
		if (v->op)
			fprintf(out, "| op | `%s` |\n", v->op);
		fprintf(out, "| confidence | %s |\n",
			hd_confidence_name(v->confidence));
		if (v->fingerprint)
			fprintf(out, "| fingerprint | `%s` |\n",
				v->fingerprint);
		if (v->call_site) {
			g_autofree char *site = md_code(v->call_site);

			fprintf(out, "| call site | %s |\n", site);
		}
	}
	fprintf(out, "| inputs | %u usable of %u |\n",
		hd_store_usable_inputs(s), s->inputs->len);
	{
		g_autofree char *n =
			hd_report_count(a->ranks_seen ? a->ranks_seen->len : 0);
		g_autofree char *ws =
			hd_report_count((uint64_t)MAX(a->world_size, 0));

		fprintf(out, "| ranks with data | %s |\n", n);
		if (a->world_size >= 0)
			fprintf(out, "| world size | %s |\n", ws);
	}
	if (a->ranks_missing && a->ranks_missing->len)
		fprintf(out, "| ranks without data | %s |\n", missing_md);
	fputc('\n', out);
}

/*
 * One evidence item: a quoted log line (its source has a line number) in a
 * code span without the prefix the source already states, a description
 * as text without a "rank N: " the item already says.
 */
static void md_evidence(FILE *out, const struct hd_store *s,
			const struct hd_evidence *e)
{
	bool quoted, label;
	const char *shown = hd_report_evidence_text(s, e, &quoted, &label);
	g_autofree char *text = quoted ? md_code(shown) : md_text(shown);

	fputs("- ", out);
	if (label)
		fprintf(out, "rank %d: ", e->rank);
	fputs(text, out);
	if (e->source) {
		g_autofree char *src = md_code(e->source);

		fprintf(out, " (%s)", src);
	}
	fputc('\n', out);
}

/*
 * A next step: its text escaped, with the commands it quotes in
 * backticks kept as code spans.
 */
static void md_span(const char *part, bool code, void *data)
{
	g_autofree char *t = code ? md_code(part) : md_text(part);

	fputs(t, data);
}

static void md_step(FILE *out, const char *text)
{
	fputs("- ", out);
	hd_report_code_spans(text, md_span, out);
	fputc('\n', out);
}

/* When the hang began, the next steps, the culprit's stack. */
static void md_next_steps(FILE *out, const struct hd_analysis *a,
			  const struct hd_verdict *v)
{
	g_autofree char *began = hd_report_hang_start(a);
	const struct hd_culprit *c =
		v->culprit_info->len
			? &g_array_index(v->culprit_info, struct hd_culprit, 0)
			: NULL;
	const struct hd_frame *frames = NULL;
	size_t n = 0, from;

	if (began) {
		g_autofree char *t = md_text(began);

		fprintf(out, "%s\n\n", t);
	}
	if (v->next_steps->len)
		fprintf(out, "## Next steps\n\n");
	for (guint i = 0; i < v->next_steps->len; i++) {
		const struct hd_next *step =
			g_ptr_array_index(v->next_steps, i);

		md_step(out, step->text);
	}
	if (v->next_steps->len)
		fputc('\n', out);
	if (c && c->stack >= 0)
		frames = hd_store_stack(a->store, c->stack, &n);
	if (!n)
		return;
	from = c->user_frame > 0 ? (size_t)c->user_frame : 0;
	/* An indented code block: no fence a frame could close. */
	fprintf(out, "## Stack of rank %d at its last op\n\n", c->rank);
	fprintf(out, "Innermost first%s:\n\n",
		from ? ", from its innermost frame in user code" : "");
	for (size_t i = from; i < n && i - from < MD_MAX_ROWS; i++) {
		g_autofree char *f = hd_report_frame_text(&frames[i]);
		g_autofree char *clean = hd_report_clean(f);

		fprintf(out, "    %s\n", clean);
	}
	if (n - from > MD_MAX_ROWS)
		fprintf(out, "    ... and %zu more frames\n",
			n - from - MD_MAX_ROWS);
	fputc('\n', out);
}

static void md_verdict_detail(FILE *out, const struct hd_analysis *a,
			      const struct hd_verdict *v)
{
	guint n = MIN(v->evidence->len, MD_MAX_EVIDENCE);
	guint open = n > MD_FOLD_EVIDENCE ? MD_SHOWN_EVIDENCE : n;

	md_next_steps(out, a, v);
	if (v->evidence->len)
		fprintf(out, "## Evidence\n\n");
	for (guint i = 0; i < n; i++) {
		if (i == open)
			fprintf(out,
				"\n<details><summary>%u more evidence "
				"items</summary>\n\n",
				v->evidence->len - open);
		md_evidence(out, a->store, g_ptr_array_index(v->evidence, i));
	}
	if (v->evidence->len > MD_MAX_EVIDENCE)
		md_more(out, v->evidence->len - MD_MAX_EVIDENCE,
			"evidence items");
	if (n > open)
		fprintf(out, "\n</details>\n");
	if (v->evidence->len)
		fputc('\n', out);
	if (v->ruled_out->len)
		fprintf(out, "## Ruled out\n\n");
	for (guint i = 0; i < v->ruled_out->len && i < MD_MAX_ITEMS; i++) {
		g_autofree char *t =
			md_text(g_ptr_array_index(v->ruled_out, i));

		fprintf(out, "- %s\n", t);
	}
	if (v->ruled_out->len > MD_MAX_ITEMS)
		md_more(out, v->ruled_out->len - MD_MAX_ITEMS, "items");
	if (v->ruled_out->len)
		fputc('\n', out);
}

static void md_other_verdicts(FILE *out, const struct hd_analysis *a)
{
	if (a->verdicts->len < 2)
		return;
	fprintf(out, "## Other verdicts\n\n"
		     "| kind | ranks | group | seq | confidence | summary |\n"
		     "|---|---|---|---|---|---|\n");
	for (guint i = 1; i < a->verdicts->len && i <= MD_MAX_ITEMS; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);
		g_autofree char *ranks =
			hd_rank_list_text(v->culprits, HD_RANKS_SET);
		g_autofree char *summary = md_text(v->summary);
		g_autofree char *label =
			hd_verdict_group_label(a, v, HD_GROUP_LABEL_SHORT);
		g_autofree char *group = label ? md_code(label) : g_strdup("");
		char seq[32] = "";

		if (v->seq >= 0)
			g_snprintf(seq, sizeof(seq), "%" G_GINT64_FORMAT,
				   v->seq);
		fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n",
			hd_verdict_kind_name(v->kind), ranks, group, seq,
			hd_confidence_name(v->confidence), summary);
	}
	fputc('\n', out);
	if (a->verdicts->len - 1 > MD_MAX_ITEMS) {
		md_more(out, a->verdicts->len - 1 - MD_MAX_ITEMS, "verdicts");
		fputc('\n', out);
	}
}

static void md_notes(FILE *out, const struct hd_analysis *a)
{
	if (!a->notes || !a->notes->len)
		return;
	fprintf(out, "## Not decided\n\n");
	for (guint i = 0; i < a->notes->len && i < MD_MAX_ITEMS; i++) {
		g_autofree char *t = md_text(g_ptr_array_index(a->notes, i));

		fprintf(out, "- %s\n", t);
	}
	if (a->notes->len > MD_MAX_ITEMS)
		md_more(out, a->notes->len - MD_MAX_ITEMS, "notes");
	fputc('\n', out);
}

static void md_groups(FILE *out, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	guint nc10d = a->c10d_groups ? a->c10d_groups->len : 0;

	if (!s->groups->len && !nc10d)
		return;
	fprintf(out, "## Groups\n\n| group | id | ranks | ops aligned |\n"
		     "|---|---|---|---|\n");
	for (guint i = 0; i < s->groups->len && i < MD_MAX_ROWS; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);
		g_autofree char *name = md_text(g->name ? g->name : "");
		g_autofree char *id = md_code(g->id);
		const struct hd_group_stats *st = hd_report_group_stats(a, i);
		g_autofree char *aligned =
			!st || !st->positions
				? g_strdup("none (no ops recorded)")
				: hd_report_count(st->ops_aligned);

		if (st && st->joined >= 0) {
			g_autofree char *other = md_code(
				hd_store_group_at(s, (uint32_t)st->joined)->id);
			char *both = g_strdup_printf("%s (joined with %s)", id,
						     other);

			g_free(id);
			id = both;
		}
		g_autofree char *nranks =
			g->nranks >= 0 ? hd_report_count((uint64_t)g->nranks)
				       : g_strdup("?");

		fprintf(out, "| %s | %s | %s | %s |\n", name, id, nranks,
			aligned);
	}
	/* c10d PGs known from log lines only: the ranks that name them */
	for (guint i = 0; i < nc10d && i < MD_MAX_ROWS; i++) {
		const struct hd_c10d_group *g =
			&g_array_index(a->c10d_groups, struct hd_c10d_group, i);
		g_autofree char *name = md_text(g->name);
		g_autofree char *raw_id = hd_c10d_group_id(g);
		g_autofree char *id = md_code(raw_id);
		g_autofree char *n = hd_report_count(g->ranks->len);
		g_autofree char *text = hd_report_c10d_group_text(g);
		g_autofree char *what = md_text(text);

		fprintf(out, "| %s | %s | %s | none (%s) |\n", name, id, n,
			what);
	}
	fputc('\n', out);
	if (s->groups->len > MD_MAX_ROWS) {
		md_more(out, s->groups->len - MD_MAX_ROWS, "groups");
		fputc('\n', out);
	}
	if (nc10d > MD_MAX_ROWS) {
		md_more(out, nc10d - MD_MAX_ROWS, "groups");
		fputc('\n', out);
	}
}

/* A rank-table row's cells but its rank's. */
static char *md_rank_cells(const struct hd_analysis *a,
			   const struct hd_rank_progress *p)
{
	g_autofree char *host = md_text(p->host ? p->host : "");
	g_autofree char *label =
		hd_group_label(a->store, p->group, HD_GROUP_LABEL_SHORT);
	g_autofree char *pg = p->counters_pg
				      ? g_strdup_printf("PG %s", p->counters_pg)
				      : NULL;
	g_autofree char *pg_code = pg ? md_code(pg) : NULL;
	/* logs only: the columns are the c10d watchdog's counters */
	g_autofree char *group =
		p->group >= 0 ? md_code(label)
		: pg_code     ? g_strdup_printf("%s (c10d counters)", pg_code)
			      : g_strdup("");
	char enq[24], done[24], state[48];

	hd_report_progress_cells(p, "", enq, done, state);
	g_autofree char *ops = hd_report_count(p->ops);

	return g_strdup_printf("%s | %u | %s | %s | %s | %s | %s", host,
			       p->inputs, ops, group, enq, done, state);
}

/*
 * The rank table, folded by the engine (hd_analysis_rank_rows()): the
 * first MD_MAX_ROWS rows, then only the culprits' rows.
 */
static void md_ranks(FILE *out, const struct hd_analysis *a)
{
	g_autoptr(hd_rank_rows) folded = NULL;

	if (!a->progress || !a->progress->len)
		return;
	folded = hd_analysis_rank_rows(a, MD_MAX_ROWS);
	fprintf(out, "## Ranks\n\n"
		     "| rank | host | inputs | ops | group | last enqueued "
		     "| last completed | state |\n"
		     "|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; i < folded->rows->len; i++) {
		const struct hd_rank_row *r =
			&g_array_index(folded->rows, struct hd_rank_row, i);
		g_autofree char *cells = NULL;

		if (!r->shown)
			continue;
		cells = md_rank_cells(a, &g_array_index(a->progress,
							struct hd_rank_progress,
							r->progress));
		/* rows were left out here: never read as adjacent */
		if (r->gap)
			fputs("| ... | | | | | | | |\n", out);
		if (r->first == r->last)
			fprintf(out, "| %d | %s |\n", r->first, cells);
		else
			fprintf(out, "| %d-%d | %s |\n", r->first, r->last,
				cells);
	}
	fputc('\n', out);
	if (folded->hidden_rows) {
		g_autofree char *nr = hd_report_count(folded->hidden_rows);
		g_autofree char *nk = hd_report_count(folded->hidden_ranks);

		fprintf(out, "- ... and %s more rows (%s ranks)\n\n", nr, nk);
	}
}

static void md_arrivals(FILE *out, const struct hd_analysis *a)
{
	if (a->perf.known && a->perf.summary) {
		g_autofree char *perf = md_text(a->perf.summary);

		fprintf(out, "## Performance\n\n%s\n\n", perf);
	}
	if (!a->arrivals || !a->arrivals->len)
		return;
	fprintf(out, "## Arrivals\n\n"
		     "| rank | matched | last | median lag | wait imposed | "
		     "clock offset |\n|---|---|---|---|---|---|\n");
	for (guint i = 0; i < a->arrivals->len && i < MD_MAX_ROWS; i++) {
		const struct hd_arrival *ar =
			&g_array_index(a->arrivals, struct hd_arrival, i);
		g_autofree char *lag = hd_report_duration(ar->median_lag_ns);
		g_autofree char *wait = hd_report_duration(ar->wait_imposed_ns);
		g_autofree char *off = hd_report_duration(ar->clock_offset_ns);
		g_autofree char *unc =
			hd_report_duration(ar->clock_uncertainty_ns);

		fprintf(out, "| %d | %u | %u | %s | %s | ", ar->rank,
			ar->matched, ar->times_last, lag, wait);
		if (ar->has_offset)
			fprintf(out, "%s ± %s |\n", off, unc);
		else
			fprintf(out, "- |\n");
	}
	fputc('\n', out);
	if (a->arrivals->len > MD_MAX_ROWS) {
		md_more(out, a->arrivals->len - MD_MAX_ROWS, "ranks");
		fputc('\n', out);
	}
}

static void md_inputs(FILE *out, const struct hd_analysis *a)
{
	const GPtrArray *inputs = a->inputs;
	guint shown = 0;

	fprintf(out, "## Inputs\n\n");
	if (!inputs->len) {
		fprintf(out, "No input files were found.\n");
		return;
	}
	fprintf(out, "| path | kind | rank | records | skipped | warnings "
		     "| problem |\n|---|---|---|---|---|---|---|\n");
	for (guint i = 0; i < inputs->len && i < MD_MAX_ROWS; i++) {
		const struct hd_input *in = g_ptr_array_index(inputs, i);
		g_autofree char *path = md_code(in->path);
		g_autofree char *err = md_text(in->error       ? in->error
					       : in->truncated ? "truncated"
					       : in->empty     ? "empty"
							       : "");
		char rank[16] = "";

		if (in->rank >= 0)
			g_snprintf(rank, sizeof(rank), "%d", in->rank);
		g_autofree char *records = hd_report_count(in->records);
		g_autofree char *skipped = hd_report_count(in->skipped);
		g_autofree char *warnings = hd_report_count(in->nwarnings);

		fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |\n", path,
			hd_input_kind_name(in->kind), rank, records, skipped,
			warnings, err);
		shown++;
	}
	fputc('\n', out);
	if (inputs->len > shown) {
		md_more(out, inputs->len - shown, "inputs");
		fputc('\n', out);
	}
	/* The first warnings, for the inputs listed above. */
	for (guint i = 0; i < shown; i++) {
		const struct hd_input *in = g_ptr_array_index(inputs, i);
		g_autofree char *path = NULL;

		if (!in->warnings || !in->warnings->len)
			continue;
		path = md_code(in->path);
		fprintf(out, "Warnings in %s:\n\n", path);
		for (guint k = 0; k < in->warnings->len && k < MD_MAX_WARNINGS;
		     k++) {
			g_autofree char *w =
				md_text(g_ptr_array_index(in->warnings, k));

			fprintf(out, "- %s\n", w);
		}
		if (in->nwarnings > MD_MAX_WARNINGS)
			md_more(out,
				(guint)(in->nwarnings - MIN(in->warnings->len,
							    MD_MAX_WARNINGS)),
				"warnings");
		fputc('\n', out);
	}
}

/* Inputs from several incidents: said before anything else. */
static void md_conflicts(FILE *out, const struct hd_analysis *a)
{
	if (!a->conflicts || !a->conflicts->len)
		return;
	fprintf(out, "> **Warning: these inputs cannot all belong to one "
		     "incident.**\n");
	for (guint i = 0; i < a->conflicts->len; i++) {
		g_autofree char *t =
			md_text(g_ptr_array_index(a->conflicts, i));

		fprintf(out, "> - %s\n", t);
	}
	fprintf(out, "> \n> %s\n\n",
		a->merged ? "Analyzed as one incident anyway (`--merge`)."
			  : "Nothing is blamed; analyze each incident apart, "
			    "or give `--merge`.");
}

void hd_report_markdown(FILE *out, const struct hd_analysis *a,
			const struct hd_report_opts *opts)
{
	md_heading(out, a);
	if (opts && opts->filter) {
		g_autofree char *header = hd_report_filter_header(opts->filter);
		g_autofree char *text = md_text(header);

		fprintf(out, "*%s*\n\n", text);
	}
	md_conflicts(out, a);
	md_summary(out, a);
	if (a->verdicts->len)
		md_verdict_detail(out, a, g_ptr_array_index(a->verdicts, 0));
	md_other_verdicts(out, a);
	md_notes(out, a);
	md_groups(out, a);
	md_ranks(out, a);
	md_arrivals(out, a);
	md_inputs(out, a);
}
