/*
 * The HTML report: one self-contained page (inline CSS and SVG, no script,
 * nothing fetched) to attach to an incident ticket.  Above the fold, what
 * to know and do: the verdict card (summary, culprits with host, pid and
 * call site, when the hang began, the next steps, all decided by the
 * analysis) and the rank picture.  Then the other pictures, the evidence,
 * the rank table, the other verdicts, groups and inputs.
 *
 * The rank picture is the rank x position matrix around the divergence
 * (hd_analysis_matrix(), runs of identical ranks folded into one row when
 * there are many, hd_matrix_rows()).  When no op was recorded (logs
 * only), the engine draws it from the c10d watchdog's counters in the
 * rank table (hd_analysis_counters_matrix()).  Every cell links to the evidence
 * item that cites its own record, the op at that position (id "ev-N"),
 * else to the rank's row of the rank table (id "rank-R"), else to the
 * table; a cell of no record (absent there, or drawn from the counters)
 * links to its rank's first evidence item.  The arrival chart colours a
 * rank as a fault only where the analysis made it one (a straggler
 * verdict); otherwise the rank most often last is a performance note.
 *
 * Every string that came from an input (paths, hosts, group names, frame
 * names inside evidence, log lines) goes through html_text(), which cleans
 * it (hd_report_clean()) and escapes the five HTML metacharacters, so a
 * dump cannot inject markup.  Nothing is put in an attribute unescaped.
 */
#include "config.h"

#include "hd-report-render.h"

#include <string.h>

#include "hd-report-util.h"
#include "hd-banned.h"

#define HTML_MAX_EVIDENCE  40
#define HTML_OPEN_EVIDENCE 5
#define HTML_MAX_ITEMS	   20
#define HTML_MAX_GROUPS	   32
#define HTML_MAX_INPUTS	   200
/* Positions drawn before and after the divergence. */
#define HTML_BEFORE 12
#define HTML_AFTER  3
/* Positions drawn before the divergence from the watchdog's counters. */
#define HTML_COUNTERS_BEFORE 4
/* Beyond this many ranks, runs of identical rows are folded into one. */
#define HTML_FOLD_ABOVE 256
/* Rows drawn at most, after folding. */
#define HTML_MAX_ROWS	  512
#define HTML_MAX_ARRIVALS 48
/* Rank-table rows drawn before only the culprits' rows are. */
#define HTML_MAX_RANK_ROWS 64
/* Culprits given a row of details in the verdict card. */
#define HTML_MAX_CULPRITS 8
#define HTML_MAX_FRAMES	  24

/*
 * The page being written, and where the rank picture's cells link: the
 * first evidence item drawn citing each record, the first drawn for each
 * rank, and the rank-table row each rank is shown in.
 */
struct page {
	FILE *out;
	const struct hd_analysis *a;
	const struct hd_verdict *v; /* the top verdict, or NULL */
	GHashTable *evidence; /* rank -> index of its first item drawn */
	GHashTable *cited; /* source -> index of the first item citing it */
	GHashTable *rows; /* rank -> first rank of its rank-table row */
	struct hd_rank_rows *ranks; /* the rank table's rows, folded */
	GPtrArray *cells; /* char *: each shown row's cells, escaped */
	bool has_evidence; /* the evidence list is drawn */
	bool has_ranks; /* the rank table is drawn */
};

/* Appends s, cleaned and escaped for text and attribute values. */
static void html_append(GString *out, const char *s)
{
	g_autofree char *clean = hd_report_clean(s);

	for (const char *p = clean; *p; p++) {
		switch (*p) {
		case '&':
			g_string_append(out, "&amp;");
			break;
		case '<':
			g_string_append(out, "&lt;");
			break;
		case '>':
			g_string_append(out, "&gt;");
			break;
		case '"':
			g_string_append(out, "&quot;");
			break;
		case '\'':
			g_string_append(out, "&#39;");
			break;
		default:
			g_string_append_c(out, *p);
		}
	}
}

/* s made safe for HTML text and attributes.  (transfer full) */
static char *html_text(const char *s)
{
	GString *out = g_string_new(NULL);

	html_append(out, s);
	return g_string_free(out, FALSE);
}

/* Writes s escaped. */
static void put(FILE *out, const char *s)
{
	g_autofree char *t = html_text(s);

	fputs(t, out);
}

static const char *const css =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:0;color:#1d2330;background:#f6f7f9}"
	"main{max-width:1320px;margin:0 auto;padding:20px 28px 40px}"
	"h1{font-size:22px;margin:4px 0 8px}h2{font-size:17px;margin:28px 0 8px;"
	"border-bottom:1px solid #d8dce3;padding-bottom:4px}"
	".card{background:#fff;border:1px solid #d8dce3;border-radius:8px;"
	"padding:14px 18px;margin:10px 0}"
	".card>h2:first-child{margin-top:4px}"
	".fault{border-left:6px solid #c62828}.ok{border-left:6px solid #2e7d32}"
	".badge{display:inline-block;padding:1px 8px;border-radius:10px;"
	"font-size:12px;font-weight:600;color:#fff;vertical-align:middle}"
	".high{background:#2e7d32}.medium{background:#ef8f00}.low{background:#757575}"
	".kind{font-family:ui-monospace,Menlo,Consolas,monospace;"
	"background:#eef1f6;padding:1px 6px;border-radius:4px}"
	"table{border-collapse:collapse;margin:6px 0}"
	"td,th{text-align:left;padding:3px 10px 3px 0;vertical-align:top}"
	"th{font-weight:600;color:#4a5263}"
	"table.grid td,table.grid th{border-bottom:1px solid #e6e9ef;padding:3px 10px}"
	"code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;"
	"background:#f1f3f7;padding:0 4px;border-radius:3px;word-break:break-all}"
	"ul.ev{padding-left:18px}ul.ev li{margin:4px 0}"
	".src{color:#59607a;font-size:12px}"
	".culprit{color:#c62828;font-weight:700}"
	".legend span{display:inline-block;margin-right:14px;font-size:12px}"
	".legend i{display:inline-block;width:12px;height:12px;margin-right:4px;"
	"vertical-align:-2px;border:1px solid #9aa1ad}"
	".scroll{overflow-x:auto}"
	"svg text{font:11px ui-monospace,Menlo,Consolas,monospace;fill:#1d2330}"
	".note{color:#59607a;font-size:12.5px}"
	"footer{color:#8a90a0;font-size:12px;margin-top:30px}";

/* Fill colours by enum hd_cell_state. */
static const char *const cell_fill[HD_CELL_STATE_COUNT] = {
	[HD_CELL_NO_DATA] = "#8d939e",	  [HD_CELL_ABSENT] = "#ffffff",
	[HD_CELL_UNRECORDED] = "#eceef2", [HD_CELL_COMPLETED] = "#7cc47f",
	[HD_CELL_BLOCKED] = "#f3b63f",	  [HD_CELL_PENDING] = "#9cc8ea",
	[HD_CELL_MISMATCHED] = "#d7301f",
};

static const char *host_of(const struct hd_store *s, int rank)
{
	const struct hd_rank *r = hd_store_find_rank(s, rank);

	return r ? r->host : NULL;
}

/* "5 (node-b)", "0-3,7": ranks with their host when one. */
static void put_ranks_with_hosts(FILE *out, const struct hd_store *s,
				 const GArray *ranks)
{
	g_autofree char *list = NULL;

	if (!ranks->len) {
		fputs("none", out);
		return;
	}
	if (ranks->len > 8) {
		list = hd_rank_list_text(ranks, HD_RANKS_SET);
		fputs("<span class=\"culprit\">", out);
		put(out, list);
		fputs("</span>", out);
		return;
	}
	for (guint i = 0; i < ranks->len; i++) {
		int r = g_array_index(ranks, int, i);
		const char *host = host_of(s, r);

		fprintf(out, "%s<span class=\"culprit\">%d</span>",
			i ? ", " : "", r);
		if (host) {
			fputs(" (", out);
			put(out, host);
			fputc(')', out);
		}
	}
}

static void html_head(FILE *out, const struct hd_analysis *a)
{
	const struct hd_verdict *v =
		a->verdicts->len ? g_ptr_array_index(a->verdicts, 0) : NULL;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" "
	      "content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n",
	      out);
	fputs("<title>hangdoc: ", out);
	if (v) {
		g_autofree char *ranks =
			hd_rank_list_text(v->culprits, HD_RANKS_SET);

		fputs(hd_verdict_kind_name(v->kind), out);
		if (*ranks) {
			fputs(v->culprits->len == 1 ? ", rank " : ", ranks ",
			      out);
			put(out, ranks);
		}
	} else {
		fputs("no verdict", out);
	}
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n",
		css);
}

/* A heading and a list of strings (char *), escaped, capped. */
static void html_list(FILE *out, const char *heading, const GPtrArray *items)
{
	if (!items->len)
		return;
	fprintf(out, "%s\n<ul class=\"ev\">\n", heading);
	for (guint i = 0; i < items->len && i < HTML_MAX_ITEMS; i++) {
		fputs("<li>", out);
		put(out, g_ptr_array_index(items, i));
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* The evidence items drawn: the first HTML_MAX_EVIDENCE. */
static guint evidence_drawn(const struct hd_verdict *v)
{
	return MIN(v->evidence->len, HTML_MAX_EVIDENCE);
}

/*
 * The evidence list: item i has the id "ev-<i+1>", the cells' targets;
 * each item as Markdown shows it (a log line without the prefix its
 * source states, "rank N" said once).
 */
static void html_evidence(FILE *out, const struct hd_store *s,
			  const struct hd_verdict *v)
{
	guint n = evidence_drawn(v);

	if (!n)
		return;
	fputs("<h2 id=\"evidence\">Evidence</h2>\n<ul class=\"ev\">\n", out);
	for (guint i = 0; i < n; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);
		bool quoted, label;
		const char *text =
			hd_report_evidence_text(s, e, &quoted, &label);

		/* The first few open, the rest one click away. */
		if (i == HTML_OPEN_EVIDENCE)
			fprintf(out,
				"</ul>\n<details><summary>%u more evidence "
				"item%s</summary>\n<ul class=\"ev\">\n",
				v->evidence->len - HTML_OPEN_EVIDENCE,
				v->evidence->len - HTML_OPEN_EVIDENCE == 1
					? ""
					: "s");
		fprintf(out, "<li id=\"ev-%u\">", i + 1);
		if (label)
			fprintf(out, "<b>rank %d</b>: ", e->rank);
		put(out, text);
		if (e->source) {
			fputs("<br><span class=\"src\">", out);
			fputs("source: <code>", out);
			put(out, e->source);
			fputs("</code></span>", out);
		}
		fputs("</li>\n", out);
	}
	if (v->evidence->len > HTML_MAX_EVIDENCE)
		fprintf(out, "<li class=\"note\">... and %u more items</li>\n",
			v->evidence->len - HTML_MAX_EVIDENCE);
	fputs("</ul>\n", out);
	if (v->evidence->len > HTML_OPEN_EVIDENCE)
		fputs("</details>\n", out);
}

/* A next step: its text escaped, the commands it quotes in <code>. */
static void html_span(const char *part, bool code, void *data)
{
	FILE *out = data;

	if (code)
		fputs("<code>", out);
	put(out, part);
	if (code)
		fputs("</code>", out);
}

static void html_step(FILE *out, const char *text)
{
	fputs("<li>", out);
	hd_report_code_spans(text, html_span, out);
	fputs("</li>\n", out);
}

/* When the hang began and the next steps: what to do, above the fold. */
static void html_next_steps(FILE *out, const struct hd_analysis *a,
			    const struct hd_verdict *v)
{
	g_autofree char *began = hd_report_hang_start(a);

	if (began) {
		fputs("<p>", out);
		put(out, began);
		fputs("</p>\n", out);
	}
	if (!v->next_steps->len)
		return;
	fputs("<h3 id=\"next-steps\">Next steps</h3>\n<ul>\n", out);
	for (guint i = 0; i < v->next_steps->len; i++) {
		const struct hd_next *step =
			g_ptr_array_index(v->next_steps, i);

		html_step(out, step->text);
	}
	fputs("</ul>\n", out);
}

/* One row per culprit the analysis knows more of: host, pid, call site. */
static void html_culprits(FILE *out, const struct hd_analysis *a,
			  const struct hd_verdict *v)
{
	guint n = MIN(v->culprit_info->len, HTML_MAX_CULPRITS);

	for (guint i = 0; i < n; i++) {
		const struct hd_culprit *c =
			&g_array_index(v->culprit_info, struct hd_culprit, i);
		g_autofree char *text = hd_report_culprit_text(a->store, c);

		if (!text)
			continue;
		fprintf(out, "<tr><th>rank %d</th><td>", c->rank);
		put(out, text);
		fputs("</td></tr>\n", out);
	}
	if (v->culprit_info->len > n)
		fprintf(out,
			"<tr><th></th><td class=\"note\">and %u more "
			"culprits</td></tr>\n",
			v->culprit_info->len - n);
}

/* The first culprit's last stack, innermost user frame first, folded. */
static void html_stack(FILE *out, const struct hd_analysis *a,
		       const struct hd_verdict *v)
{
	const struct hd_culprit *c;
	const struct hd_frame *frames;
	size_t n = 0, from;

	if (!v->culprit_info->len)
		return;
	c = &g_array_index(v->culprit_info, struct hd_culprit, 0);
	if (c->stack < 0)
		return;
	frames = hd_store_stack(a->store, c->stack, &n);
	if (!n)
		return;
	from = c->user_frame > 0 && (size_t)c->user_frame < n
		       ? (size_t)c->user_frame
		       : 0;
	fprintf(out,
		"<details><summary>Stack of rank %d at its last op "
		"(innermost first%s)</summary>\n<ol class=\"stack\">\n",
		c->rank, from ? ", from its innermost frame in user code" : "");
	for (size_t i = from; i < n && i - from < HTML_MAX_FRAMES; i++) {
		g_autofree char *f = hd_report_frame_text(&frames[i]);

		fputs("<li><code>", out);
		put(out, f);
		fputs("</code></li>\n", out);
	}
	fputs("</ol>\n", out);
	if (n - from > HTML_MAX_FRAMES)
		fprintf(out, "<p class=\"note\">... and %zu more frames</p>\n",
			n - from - HTML_MAX_FRAMES);
	fputs("</details>\n", out);
}

static void html_verdict(FILE *out, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	const struct hd_verdict *v;
	g_autofree char *label = NULL;

	if (!a->verdicts->len) {
		fputs("<h1>hangdoc: no verdict</h1>\n", out);
		fprintf(out,
			"<div class=\"card\">No usable input: nothing could be "
			"parsed from the %u input file%s tried.</div>\n",
			s->inputs->len, s->inputs->len == 1 ? "" : "s");
		return;
	}
	v = g_ptr_array_index(a->verdicts, 0);
	label = hd_verdict_group_label(a, v, HD_GROUP_LABEL_LONG);
	fputs("<h1>hangdoc: <span class=\"kind\">", out);
	fputs(hd_verdict_kind_name(v->kind), out);
	fputs("</span>", out);
	if (v->culprits->len) {
		fputs(v->culprits->len == 1 ? " rank " : " ranks ", out);
		put_ranks_with_hosts(out, s, v->culprits);
	}
	fprintf(out, " <span class=\"badge %s\">%s confidence</span></h1>\n",
		hd_confidence_name(v->confidence),
		hd_confidence_name(v->confidence));
	fprintf(out, "<div class=\"card %s\" id=\"verdict\">\n<p><b>",
		hd_analysis_has_fault(a) ? "fault" : "ok");
	put(out, v->summary);
	fputs("</b></p>\n<table>\n", out);
	/* The kind and the confidence are in the heading above. */
	fputs("<tr><th>culprit ranks</th><td>", out);
	put_ranks_with_hosts(out, s, v->culprits);
	fputs("</td></tr>\n", out);
	html_culprits(out, a, v);
	if (label) {
		fputs("<tr><th>group</th><td><code>", out);
		put(out, label);
		fputs("</code></td></tr>\n", out);
	}
	if (v->seq >= 0 || v->op) {
		fputs("<tr><th>position</th><td>", out);
		if (v->seq >= 0)
			fprintf(out, "seq %" G_GINT64_FORMAT " ", v->seq);
		if (v->op)
			fprintf(out, "<code>%s</code>", v->op);
		fputs("</td></tr>\n", out);
	}
	{
		guint seen = a->ranks_seen ? a->ranks_seen->len : 0;
		g_autofree char *usable =
			hd_report_count(hd_store_usable_inputs(s));
		g_autofree char *inputs = hd_report_count(s->inputs->len);
		g_autofree char *ranks = hd_report_count(seen);
		g_autofree char *world =
			hd_report_count((uint64_t)MAX(a->world_size, 0));

		fprintf(out,
			"<tr><th>inputs</th><td>%s usable of %s; %s rank%s "
			"with data",
			usable, inputs, ranks, seen == 1 ? "" : "s");
		if (a->world_size >= 0)
			fprintf(out, " of %s", world);
	}
	fputs("</td></tr>\n</table>\n", out);
	html_next_steps(out, a, v);
	html_stack(out, a, v);
	/* The arrival chart's note, where the verdict card can be read. */
	if (a->perf.known && !a->perf.fault && a->perf.summary) {
		fputs("<p class=\"note\">Performance note, not a fault: ", out);
		put(out, a->perf.summary);
		fputs(a->arrivals && a->arrivals->len
			      ? " (<a href=\"#arrivals\">arrivals</a>)</p>\n"
			      : "</p>\n",
		      out);
	}
	fputs("</div>\n", out);
}

/* The top verdict's evidence and ruled-out, below the pictures. */
static void html_verdict_evidence(const struct page *pg)
{
	const struct hd_verdict *v = pg->v;

	if (!v || (!evidence_drawn(v) && !v->ruled_out->len))
		return;
	fputs("<div class=\"card\">\n", pg->out);
	html_evidence(pg->out, pg->a->store, v);
	html_list(pg->out, "<h3>Ruled out</h3>", v->ruled_out);
	fputs("</div>\n", pg->out);
}

/* The label of a displayed row (transfer full, escaped). */
static char *row_label(const struct hd_store *s, const struct hd_matrix *m,
		       const struct hd_matrix_row *row)
{
	GString *out = g_string_new(NULL);

	if (row->first == row->last) {
		int rank = g_array_index(m->ranks, int, row->first);
		const char *host = host_of(s, rank);

		g_string_append_printf(out, "rank %d", rank);
		if (host) {
			g_string_append(out, " \xc2\xb7 ");
			html_append(out, host);
		}
	} else {
		g_autoptr(GArray) ranks =
			g_array_new(FALSE, FALSE, sizeof(int));
		g_autofree char *list = NULL;
		g_autofree char *n = NULL;

		g_array_append_vals(ranks,
				    &g_array_index(m->ranks, int, row->first),
				    row->last - row->first + 1);
		list = hd_rank_list_text(ranks, HD_RANKS_SET);
		n = hd_report_count(row->last - row->first + 1);
		g_string_append_printf(out, "ranks %s (%s)", list, n);
	}
	return g_string_free(out, FALSE);
}

static void legend(FILE *out, const bool *used, bool culprit)
{
	fputs("<p class=\"legend\">", out);
	for (int st = 0; st < HD_CELL_STATE_COUNT; st++)
		if (used[st])
			fprintf(out,
				"<span><i style=\"background:%s\"></i>%s</span>",
				cell_fill[st], hd_cell_state_name(st));
	if (culprit)
		fputs("<span><i style=\"background:#fff;border:2px solid "
		      "#c62828\"></i>culprit</span>",
		      out);
	fputs("</p>\n", out);
}

/* One cell's tooltip and accessible name: what was there. */
static void cell_title(FILE *out, const struct hd_store *s,
		       const struct hd_matrix *m,
		       const struct hd_matrix_row *row, guint c)
{
	const struct hd_matrix_cell *cell = hd_matrix_cell(m, row->first, c);
	int64_t pos = g_array_index(m->positions, int64_t, c);
	g_autofree char *label = row_label(s, m, row);

	fprintf(out, "<title>%s, seq %" G_GINT64_FORMAT ": %s", label, pos,
		hd_cell_state_name(cell->state));
	if (cell->op != UINT32_MAX) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, cell->op);
		g_autofree char *src = hd_op_source(s, op);

		fprintf(out, " %s (", hd_op_kind_name(op->kind));
		put(out, src);
		fputc(')', out);
	}
	fputs("</title>", out);
}

/* A row's label left of the picture, red for a culprit; none when the
   rows are too thin to read. */
static void row_label_svg(FILE *out, int label_w, int y, int rh, bool culprit,
			  const char *label)
{
	if (rh < 11)
		return;
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>%s</text>\n",
		label_w - 8, y + rh - 4,
		culprit ? " style=\"fill:#c62828;font-weight:700\"" : "",
		label);
}

/* The evidence item drawn for rank, or -1. */
static int64_t evidence_of(const struct page *pg, int rank)
{
	gpointer v;

	if (g_hash_table_lookup_extended(pg->evidence, GINT_TO_POINTER(rank),
					 NULL, &v))
		return GPOINTER_TO_UINT(v);
	return -1;
}

/*
 * The id cell c of a displayed row links to: the evidence item that
 * cites the record behind it (the op at that position; in a folded row,
 * the first rank's whose record is cited); a cell of no record (absent
 * there, or drawn from the watchdog's counters) links to its rank's
 * first evidence item instead.  Else the rank-table row of the row's first rank, else the
 * table or the evidence list; NULL when the page has none.
 * (transfer full)
 */
static char *cell_target(const struct page *pg, const struct hd_matrix *m,
			 const struct hd_matrix_row *row, guint c)
{
	const struct hd_store *s = pg->a->store;
	int first = g_array_index(m->ranks, int, row->first);
	bool records = false;
	gpointer v;

	for (guint r = row->first; r <= row->last; r++) {
		const struct hd_matrix_cell *cell = hd_matrix_cell(m, r, c);
		g_autofree char *src = NULL;

		if (cell->op == UINT32_MAX)
			continue;
		records = true;
		src = hd_op_source(
			s, &g_array_index(s->ops, struct hd_op, cell->op));
		if (g_hash_table_lookup_extended(pg->cited, src, NULL, &v))
			return g_strdup_printf("ev-%u",
					       GPOINTER_TO_UINT(v) + 1);
	}
	for (guint r = row->first; r <= row->last && !records; r++) {
		int64_t ev = evidence_of(pg, g_array_index(m->ranks, int, r));

		if (ev >= 0)
			return g_strdup_printf("ev-%" G_GINT64_FORMAT, ev + 1);
	}
	if (g_hash_table_lookup_extended(pg->rows, GINT_TO_POINTER(first), NULL,
					 &v))
		return g_strdup_printf("rank-%d", GPOINTER_TO_INT(v));
	if (pg->has_ranks)
		return g_strdup("ranks");
	if (pg->has_evidence)
		return g_strdup("evidence");
	return NULL;
}

/*
 * What the picture shows at the divergence column (or the last one), in
 * words: its text alternative.  (transfer full)
 */
static char *matrix_alt(const struct hd_matrix *m, const GArray *rows)
{
	guint count[HD_CELL_STATE_COUNT] = { 0 };
	int single[HD_CELL_STATE_COUNT];
	guint c = m->positions->len - 1;
	GString *alt = g_string_new(NULL);
	const char *sep = "";
	g_autofree char *nranks = hd_report_count(m->ranks->len);
	g_autofree char *nrows = hd_report_count(rows->len);

	for (guint i = 0; i < m->positions->len; i++)
		if (g_array_index(m->positions, int64_t, i) == m->divergence)
			c = i;
	for (guint r = 0; r < m->ranks->len; r++) {
		uint8_t st = hd_matrix_cell(m, r, c)->state;

		if (!count[st]++)
			single[st] = g_array_index(m->ranks, int, r);
	}
	g_string_append_printf(alt,
			       "Rank picture: %s ranks in %s rows by %u "
			       "positions; at seq %" G_GINT64_FORMAT ": ",
			       nranks, nrows, m->positions->len,
			       g_array_index(m->positions, int64_t, c));
	for (int st = 0; st < HD_CELL_STATE_COUNT; st++) {
		if (!count[st])
			continue;
		if (count[st] == 1)
			g_string_append_printf(alt, "%srank %d %s", sep,
					       single[st],
					       hd_cell_state_name(st));
		else {
			g_autofree char *n = hd_report_count(count[st]);

			g_string_append_printf(alt, "%s%s ranks %s", sep, n,
					       hd_cell_state_name(st));
		}
		sep = ", ";
	}
	g_string_append_c(alt, '.');
	return g_string_free(alt, FALSE);
}

/*
 * The rank picture.  about says what a column is (escaped HTML); each
 * cell is a link to the evidence of its own record (cell_target()).
 */
static void html_matrix(const struct page *pg, const struct hd_matrix *m,
			const GArray *rows, const char *about)
{
	FILE *out = pg->out;
	const struct hd_store *s = pg->a->store;
	guint ncols = m->positions->len;
	guint nrows = MIN(rows->len, HTML_MAX_ROWS);
	int cw = 26, label_w = 230, head_h = 46;
	int rh = nrows <= 48 ? 18 : nrows <= 160 ? 11 : 6;
	int width = label_w + cw * (int)ncols + 10;
	int height = head_h + rh * (int)nrows + 6;
	bool used[HD_CELL_STATE_COUNT] = { false };
	bool any_culprit = false;
	g_autofree char *alt = matrix_alt(m, rows);

	fputs("<h2 id=\"picture\">Ranks and positions</h2>\n<p class=\"note\">",
	      out);
	fprintf(out, "Each row is a rank%s, each column %s, around ",
		rows->len < m->ranks->len ? " (or a run of ranks that look "
					    "the same)"
					  : "",
		about);
	if (m->divergence >= 0)
		fprintf(out,
			"the divergence at seq %" G_GINT64_FORMAT
			" (outlined).",
			m->divergence);
	else
		fputs("where progress stops.", out);
	{
		g_autofree char *n = hd_report_count(m->ranks->len);
		g_autofree char *nrow = hd_report_count(rows->len);

		bool records = false;

		for (size_t i = 0; i < (size_t)m->ranks->len * ncols; i++)
			records |= m->cells[i].op != UINT32_MAX;
		fprintf(out,
			" %s rank%s, %s row%s. A cell links to %s, else to "
			"its row of the rank table.</p>\n",
			n, m->ranks->len == 1 ? "" : "s", nrow,
			rows->len == 1 ? "" : "s",
			records ? "the evidence item that cites its record"
				: "its rank's first evidence item");
	}
	for (guint r = 0; r < nrows; r++) {
		const struct hd_matrix_row *row =
			&g_array_index(rows, struct hd_matrix_row, r);

		any_culprit |= g_array_index(m->culprit, gboolean, row->first);
		for (guint c = 0; c < ncols; c++)
			used[hd_matrix_cell(m, row->first, c)->state] = true;
	}
	legend(out, used, any_culprit);
	fprintf(out,
		"<div class=\"scroll\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" role=\"group\" "
		"aria-labelledby=\"picture-alt\">\n"
		"<desc id=\"picture-alt\">%s</desc>\n",
		width, height, alt);
	for (guint c = 0; c < ncols; c++) {
		int64_t pos = g_array_index(m->positions, int64_t, c);
		int x = label_w + cw * (int)c + cw / 2;

		fprintf(out,
			"<text x=\"%d\" y=\"%d\" transform=\"rotate(-50 %d %d)\"%s>"
			"%" G_GINT64_FORMAT "</text>\n",
			x, head_h - 4, x, head_h - 4,
			pos == m->divergence ? " style=\"font-weight:700\""
					     : "",
			pos);
	}
	for (guint r = 0; r < nrows; r++) {
		const struct hd_matrix_row *row =
			&g_array_index(rows, struct hd_matrix_row, r);
		bool culprit = g_array_index(m->culprit, gboolean, row->first);
		g_autofree char *label = row_label(s, m, row);
		int y = head_h + rh * (int)r;

		row_label_svg(out, label_w, y, rh, culprit, label);
		for (guint c = 0; c < ncols; c++) {
			const struct hd_matrix_cell *cell =
				hd_matrix_cell(m, row->first, c);
			g_autofree char *target = cell_target(pg, m, row, c);

			/* The title first: the link's accessible name. */
			if (target) {
				fprintf(out, "<a href=\"#%s\">", target);
				cell_title(out, s, m, row, c);
			}
			fprintf(out,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				"fill=\"%s\" stroke=\"#c5cad3\" stroke-width=\"0.5\">",
				label_w + cw * (int)c, y, cw - 1, rh - 1,
				cell_fill[cell->state]);
			if (!target)
				cell_title(out, s, m, row, c);
			fputs(target ? "</rect></a>\n" : "</rect>\n", out);
		}
		if (culprit)
			fprintf(out,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				"fill=\"none\" stroke=\"#c62828\" stroke-width=\"2\" "
				"pointer-events=\"none\"/>\n",
				label_w - 1, y - 1, cw * (int)ncols + 1,
				rh + 1);
	}
	for (guint c = 0; c < ncols; c++)
		if (g_array_index(m->positions, int64_t, c) == m->divergence)
			fprintf(out,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				"fill=\"none\" stroke=\"#1d2330\" stroke-width=\"1.5\" "
				"stroke-dasharray=\"4 2\" pointer-events=\"none\"/>\n",
				label_w + cw * (int)c - 1, head_h - 2, cw + 1,
				rh * (int)nrows + 3);
	fputs("</svg></div>\n", out);
	if (rows->len > nrows)
		fprintf(out, "<p class=\"note\">%u more rows not drawn.</p>\n",
			rows->len - nrows);
}

/* When an op began: start, else enqueue; INT64_MIN unknown. */
static int64_t op_begin(const struct hd_store *s, const struct hd_op *op)
{
	return hd_op_t_start(s, op) != INT64_MIN ? hd_op_t_start(s, op)
						 : hd_op_t_enqueue(s, op);
}

/* The clock of an op's times (its input's). */
static enum hd_clock op_clock(const struct hd_store *s, const struct hd_op *op)
{
	return op->input < s->inputs->len
		       ? hd_store_input(s, op->input)->op_clock
		       : HD_CLOCK_NONE;
}

/*
 * The one clock the timeline draws: UTC when some op has it, else local;
 * ops on other clocks (trace-relative) cannot share its axis.
 */
static enum hd_clock timeline_clock(const struct hd_store *s,
				    const struct hd_matrix *m,
				    const GArray *rows, guint nrows)
{
	enum hd_clock best = HD_CLOCK_NONE;

	for (guint r = 0; r < nrows; r++) {
		const struct hd_matrix_row *row =
			&g_array_index(rows, struct hd_matrix_row, r);

		for (guint c = 0; c < m->positions->len; c++) {
			const struct hd_matrix_cell *cell =
				hd_matrix_cell(m, row->first, c);
			enum hd_clock k;

			if (cell->op == UINT32_MAX)
				continue;
			k = op_clock(s, &g_array_index(s->ops, struct hd_op,
						       cell->op));
			if (k == HD_CLOCK_UTC)
				return k;
			/* hosts in different zones share no local axis */
			if (k == HD_CLOCK_LOCAL && !s->local_zones_apart)
				best = k;
		}
	}
	return best;
}

static void html_timeline(FILE *out, const struct hd_analysis *a,
			  const struct hd_matrix *m, const GArray *rows)
{
	const struct hd_store *s = a->store;
	guint ncols = m->positions->len;
	guint nrows = MIN(rows->len, HTML_MAX_ROWS);
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	int label_w = 230, plot_w = 900, head_h = 22;
	int rh = nrows <= 48 ? 18 : nrows <= 160 ? 11 : 6;
	g_autofree char *start = NULL;
	enum hd_clock clock = timeline_clock(s, m, rows, nrows);

	if (clock == HD_CLOCK_NONE)
		return;
	for (guint r = 0; r < nrows; r++) {
		const struct hd_matrix_row *row =
			&g_array_index(rows, struct hd_matrix_row, r);

		for (guint c = 0; c < ncols; c++) {
			const struct hd_matrix_cell *cell =
				hd_matrix_cell(m, row->first, c);
			const struct hd_op *op;

			if (cell->op == UINT32_MAX)
				continue;
			op = &g_array_index(s->ops, struct hd_op, cell->op);
			if (op_clock(s, op) != clock)
				continue;
			if (op_begin(s, op) != INT64_MIN) {
				t0 = MIN(t0, op_begin(s, op));
				t1 = MAX(t1, op_begin(s, op));
			}
			if (hd_op_t_end(s, op) != INT64_MIN) {
				t0 = MIN(t0, hd_op_t_end(s, op));
				t1 = MAX(t1, hd_op_t_end(s, op));
			}
		}
	}
	if (t0 == INT64_MAX)
		return;
	if (t1 <= t0)
		t1 = hd_report_add_sat(t0, 1000);
	/* Room on the right for the ops still running when the data ends. */
	t1 = hd_report_add_sat(t1, hd_report_sub_sat(t1, t0) / 8);
	if (t1 <= t0) /* t0 is INT64_MAX: a span of one */
		t0 = t1 - 1;
	start = hd_time_format(hd_time_make(t0, clock), 3);
	fputs("<h2>Timeline</h2>\n<p class=\"note\">", out);
	fprintf(out,
		"The same ops on the clock each source recorded (not corrected "
		"across hosts), from %s; ops on other clocks are not drawn. "
		"%s Ops that never completed run to the right edge.</p>\n",
		start,
		rows->len < m->ranks->len
			? "A folded row shows the first rank of its run."
			: "");
	fprintf(out,
		"<div class=\"scroll\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"timeline\">\n",
		label_w + plot_w + 60, head_h + rh * (int)nrows + 8);
	for (int i = 0; i <= 4; i++) {
		int x = label_w + plot_w * i / 4;
		g_autofree char *d =
			hd_report_duration(hd_report_sub_sat(t1, t0) / 4 * i);

		fprintf(out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#dde1e8\"/>"
			"<text x=\"%d\" y=\"14\" text-anchor=\"middle\">+%s</text>\n",
			x, head_h, x, head_h + rh * (int)nrows, x, d);
	}
	for (guint r = 0; r < nrows; r++) {
		const struct hd_matrix_row *row =
			&g_array_index(rows, struct hd_matrix_row, r);
		bool culprit = g_array_index(m->culprit, gboolean, row->first);
		g_autofree char *label = row_label(s, m, row);
		int y = head_h + rh * (int)r;

		row_label_svg(out, label_w, y, rh, culprit, label);
		for (guint c = 0; c < ncols; c++) {
			const struct hd_matrix_cell *cell =
				hd_matrix_cell(m, row->first, c);
			const struct hd_op *op;
			int64_t b, e;
			double x0, x1;

			if (cell->op == UINT32_MAX)
				continue;
			op = &g_array_index(s->ops, struct hd_op, cell->op);
			if (op_clock(s, op) != clock)
				continue;
			b = op_begin(s, op);
			e = hd_op_t_end(s, op);
			if (b == INT64_MIN)
				b = e;
			if (b == INT64_MIN)
				continue;
			if (e == INT64_MIN || e < b)
				e = cell->state == HD_CELL_COMPLETED ? b : t1;
			x0 = label_w +
			     (double)plot_w * (double)hd_report_sub_sat(b, t0) /
				     (double)hd_report_sub_sat(t1, t0);
			x1 = label_w +
			     (double)plot_w * (double)hd_report_sub_sat(e, t0) /
				     (double)hd_report_sub_sat(t1, t0);
			fprintf(out,
				"<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\" stroke=\"%s\" stroke-width=\"0.6\">",
				x0, y + 1, MAX(x1 - x0, 1.5), MAX(rh - 3, 2),
				cell_fill[cell->state],
				g_array_index(m->positions, int64_t, c) ==
						m->divergence
					? "#1d2330"
					: "#7a808c");
			cell_title(out, s, m, row, c);
			fputs("</rect>\n", out);
		}
	}
	fputs("</svg></div>\n", out);
}

static gint compare_wait(gconstpointer pa, gconstpointer pb)
{
	const struct hd_arrival *x = *(const struct hd_arrival *const *)pa;
	const struct hd_arrival *y = *(const struct hd_arrival *const *)pb;

	if (x->wait_imposed_ns != y->wait_imposed_ns)
		return x->wait_imposed_ns < y->wait_imposed_ns ? 1 : -1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
 * The arrival chart.  Its colours follow the verdict: the rank most often
 * last is red only where the analysis made it a straggler verdict;
 * otherwise it is a performance note, drawn in the same neutral hue as
 * the others, darker, and labelled so.
 */
static void html_arrivals(FILE *out, const struct hd_analysis *a)
{
	g_autoptr(GPtrArray) shown = g_ptr_array_new();
	int64_t max_lag = 1;
	int label_w = 90, plot_w = 700, rh = 16;
	int fault = a->perf.known && a->perf.fault ? a->perf.rank : -1;
	int note = a->perf.known && !a->perf.fault ? a->perf.rank : -1;

	/* A performance note is in the verdict card already. */
	if (a->perf.known && a->perf.fault && a->perf.summary) {
		fputs("<h2>Straggler</h2>\n<p class=\"note\">", out);
		put(out, a->perf.summary);
		fputs("</p>\n", out);
	}
	if (!a->arrivals || !a->arrivals->len)
		return;
	for (guint i = 0; i < a->arrivals->len; i++)
		g_ptr_array_add(shown, &g_array_index(a->arrivals,
						      struct hd_arrival, i));
	/* Many ranks: the ones that made the others wait the most. */
	if (shown->len > HTML_MAX_ARRIVALS) {
		g_ptr_array_sort(shown, compare_wait);
		g_ptr_array_set_size(shown, HTML_MAX_ARRIVALS);
	}
	for (guint i = 0; i < shown->len; i++) {
		const struct hd_arrival *ar = g_ptr_array_index(shown, i);

		max_lag = MAX(max_lag, ar->median_lag_ns);
	}
	fputs("<h2 id=\"arrivals\">Arrivals</h2>\n<p class=\"note\">Median "
	      "lag behind the "
	      "first rank to arrive at each matched collective, after clock "
	      "correction; the count is how often the rank arrived last.",
	      out);
	if (a->arrivals->len > shown->len)
		fprintf(out, " The %u of %u ranks that imposed the most wait.",
			shown->len, a->arrivals->len);
	fputs("</p>\n<p class=\"legend\"><span><i style=\"background:"
	      "#a9b8cc\"></i>rank</span>",
	      out);
	if (note >= 0)
		fputs("<span><i style=\"background:#4f5f7a\"></i>most often "
		      "last: a performance note, not a fault</span>",
		      out);
	if (fault >= 0)
		fputs("<span><i style=\"background:#d7301f\"></i>straggler "
		      "verdict</span>",
		      out);
	fputs("</p>\n", out);
	fprintf(out,
		"<div class=\"scroll\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"Arrival "
		"chart: median lag of %u ranks",
		label_w + plot_w + 260, rh * (int)shown->len + 4, shown->len);
	if (fault >= 0)
		fprintf(out, "; rank %d is a straggler verdict", fault);
	else if (note >= 0)
		fprintf(out,
			"; rank %d, most often last, is a performance note, "
			"not a fault",
			note);
	fputs("\">\n", out);
	for (guint i = 0; i < shown->len; i++) {
		const struct hd_arrival *ar = g_ptr_array_index(shown, i);
		g_autofree char *lag = hd_report_duration(ar->median_lag_ns);
		g_autofree char *wait = hd_report_duration(ar->wait_imposed_ns);
		double w = (double)plot_w * (double)MAX(ar->median_lag_ns, 0) /
			   (double)max_lag;
		int y = rh * (int)i;
		const char *fill = ar->rank == fault  ? "#d7301f"
				   : ar->rank == note ? "#4f5f7a"
						      : "#a9b8cc";
		const char *mark = ar->rank == fault  ? " \xc2\xb7 straggler"
				   : ar->rank == note ? " \xc2\xb7 performance "
							"note"
						      : "";

		fprintf(out,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %d</text>"
			"<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
			"<title>rank %d: median lag %s, last %u of %u, wait imposed %s</title></rect>"
			"<text x=\"%.1f\" y=\"%d\">%s, last %u/%u%s</text>\n",
			label_w - 8, y + rh - 4, ar->rank, label_w, y + 2,
			MAX(w, 1.0), rh - 4, fill, ar->rank, lag,
			ar->times_last, ar->matched, wait,
			label_w + MAX(w, 1.0) + 6, y + rh - 4, lag,
			ar->times_last, ar->matched, mark);
	}
	fputs("</svg></div>\n", out);
}

/* The rank picture (from the ops, else the watchdog's counters), the
   timeline, the arrival chart. */
static void html_pictures(const struct page *pg)
{
	const struct hd_analysis *a = pg->a;
	g_autoptr(hd_matrix) m = hd_analysis_matrix(a, HTML_BEFORE, HTML_AFTER);
	g_autoptr(GArray) rows = NULL;
	g_autofree char *about = NULL;

	if (m && m->ranks->len && m->positions->len) {
		g_autofree char *glabel =
			hd_group_label(a->store, m->group, HD_GROUP_LABEL_LONG);
		g_autofree char *label = html_text(glabel);

		about = g_strdup_printf(
			"a position of <code>%s</code> (%s sequence, from %s)",
			label,
			m->seq_kind == HD_SEQ_ORDINAL ? "ordinal"
						      : "collective",
			hd_input_kind_name(m->source));
		rows = hd_matrix_rows(m, HTML_FOLD_ABOVE);
		html_matrix(pg, m, rows, about);
		if (m->has_times)
			html_timeline(pg->out, a, m, rows);
	} else {
		const char *name = NULL;

		g_clear_pointer(&m, hd_matrix_free);
		m = hd_analysis_counters_matrix(a, HTML_COUNTERS_BEFORE,
						HTML_AFTER, &name);
		if (m) {
			g_autofree char *label = html_text(name);

			about = g_strdup_printf(
				"a collective of PG <code>%s</code>, from the "
				"c10d watchdog's counters, since no op was "
				"recorded (a rank is completed up to its last "
				"completed work, blocked up to its last "
				"enqueued one, absent past it)",
				label);
			rows = hd_matrix_rows(m, HTML_FOLD_ABOVE);
			html_matrix(pg, m, rows, about);
		}
	}
	html_arrivals(pg->out, a);
}

/* A rank-table row without its rank, escaped.  (transfer full) */
static char *rank_cells(const struct hd_analysis *a,
			const struct hd_rank_progress *p)
{
	GString *o = g_string_new("<td>");
	char enq[24], done[24], state[48];
	g_autofree char *ops = hd_report_count(p->ops);

	hd_report_progress_cells(p, "", enq, done, state);
	html_append(o, p->host ? p->host : "");
	g_string_append_printf(o, "</td><td>%u</td><td>%s</td><td>", p->inputs,
			       ops);
	if (p->group >= 0) {
		g_autofree char *label = hd_group_label(a->store, p->group,
							HD_GROUP_LABEL_SHORT);

		g_string_append(o, "<code>");
		html_append(o, label);
		g_string_append(o, "</code>");
	} else if (p->counters_pg) {
		/* logs only: the columns are the c10d watchdog's counters */
		g_string_append(o, "<code>PG ");
		html_append(o, p->counters_pg);
		g_string_append(o, "</code> (c10d counters)");
	}
	g_string_append_printf(o, "</td><td>%s</td><td>%s</td><td>", enq, done);
	html_append(o, state);
	g_string_append(o, "</td>");
	return g_string_free(o, FALSE);
}

/*
 * The rank table's rows, folded by the engine (hd_analysis_rank_rows()):
 * the first HTML_MAX_RANK_ROWS rows, then only the rows holding a
 * culprit.  Keeps the cells of the rows shown and which row shows each
 * rank.
 */
static void rank_runs(struct page *pg)
{
	const struct hd_analysis *a = pg->a;

	pg->ranks = hd_analysis_rank_rows(a, HTML_MAX_RANK_ROWS);
	for (guint i = 0; i < pg->ranks->rows->len; i++) {
		const struct hd_rank_row *r =
			&g_array_index(pg->ranks->rows, struct hd_rank_row, i);

		if (!r->shown) {
			g_ptr_array_add(pg->cells, NULL);
			continue;
		}
		g_ptr_array_add(
			pg->cells,
			rank_cells(a, &g_array_index(a->progress,
						     struct hd_rank_progress,
						     r->progress)));
		for (int rank = r->first;; rank++) {
			g_hash_table_insert(pg->rows, GINT_TO_POINTER(rank),
					    GINT_TO_POINTER(r->first));
			if (rank == r->last)
				break;
		}
	}
	pg->has_ranks = pg->ranks->rows->len > 0;
}

/* The rank table: row ids "rank-<first rank>", the cells' targets. */
static void html_ranks(const struct page *pg)
{
	const struct hd_analysis *a = pg->a;
	FILE *out = pg->out;
	const char *counters = NULL;
	g_autoptr(GArray) culprits = NULL;

	if (!pg->has_ranks)
		return;
	culprits = hd_analysis_culprit_set(a);
	for (guint i = 0; i < a->progress->len && !counters; i++)
		counters =
			g_array_index(a->progress, struct hd_rank_progress, i)
				.counters_pg;
	fputs("<h2 id=\"ranks\">Ranks</h2>\n", out);
	if (counters) {
		fputs("<p class=\"note\">Last enqueued and last completed: the "
		      "c10d watchdog's counters of PG <code>",
		      out);
		put(out, counters);
		fputs("</code>.</p>\n", out);
	}
	fputs("<table class=\"grid\">\n<tr><th scope=\"col\">rank</th>"
	      "<th scope=\"col\">host</th><th scope=\"col\">inputs</th>"
	      "<th scope=\"col\">ops</th><th scope=\"col\">group</th>"
	      "<th scope=\"col\">last enqueued</th>"
	      "<th scope=\"col\">last completed</th>"
	      "<th scope=\"col\">state</th></tr>\n",
	      out);
	for (guint i = 0; i < pg->ranks->rows->len; i++) {
		const struct hd_rank_row *r =
			&g_array_index(pg->ranks->rows, struct hd_rank_row, i);
		bool culprit;

		if (!r->shown)
			continue;
		culprit = hd_report_rank_set_hits(culprits, r->first, r->last);
		/* rows were left out here: never read as adjacent */
		if (r->gap)
			fputs("<tr><th scope=\"row\">...</th>"
			      "<td colspan=\"7\"></td></tr>\n",
			      out);
		fprintf(out, "<tr id=\"rank-%d\"><th scope=\"row\"%s>%d",
			r->first, culprit ? " class=\"culprit\"" : "",
			r->first);
		if (r->last != r->first)
			fprintf(out, "-%d", r->last);
		fprintf(out, "</th>%s</tr>\n",
			(const char *)g_ptr_array_index(pg->cells, i));
	}
	fputs("</table>\n", out);
	if (pg->ranks->hidden_rows) {
		g_autofree char *nr = hd_report_count(pg->ranks->hidden_rows);
		g_autofree char *nk = hd_report_count(pg->ranks->hidden_ranks);

		fprintf(out,
			"<p class=\"note\">... and %s more rows (%s ranks).</p>\n",
			nr, nk);
	}
}

static void html_other_verdicts(FILE *out, const struct hd_analysis *a)
{
	if (a->verdicts->len > 1) {
		fputs("<h2>Other verdicts</h2>\n<table class=\"grid\">\n"
		      "<tr><th>kind</th><th>ranks</th><th>confidence</th>"
		      "<th>summary</th></tr>\n",
		      out);
		for (guint i = 1; i < a->verdicts->len && i <= HTML_MAX_ITEMS;
		     i++) {
			const struct hd_verdict *v =
				g_ptr_array_index(a->verdicts, i);
			g_autofree char *ranks =
				hd_rank_list_text(v->culprits, HD_RANKS_SET);

			fprintf(out,
				"<tr><td><span class=\"kind\">%s</span></td><td>",
				hd_verdict_kind_name(v->kind));
			put(out, *ranks ? ranks : "-");
			fprintf(out, "</td><td>%s</td><td>",
				hd_confidence_name(v->confidence));
			put(out, v->summary);
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
	}
	html_list(out, "<h2>Not decided</h2>", a->notes);
}

/* A group's size, "1,024", else "?", in buf.  (transfer none) */
static const char *nranks_text(const struct hd_group *g, char buf[32])
{
	g_autofree char *n =
		g->nranks >= 0 ? hd_report_count((uint64_t)g->nranks) : NULL;

	g_snprintf(buf, 32, "%s", n ? n : "?");
	return buf;
}

/*
 * Every group: those with ops, then those without (an NCCL comm seen at
 * init only), then the c10d PGs known from log lines only.
 */
static void html_groups(FILE *out, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	guint nc10d = a->c10d_groups ? a->c10d_groups->len : 0;
	guint shown = 0, left = 0;

	if (!s->groups->len && !nc10d)
		return;
	fputs("<h2>Groups</h2>\n<table class=\"grid\">\n<tr><th>group</th>"
	      "<th>ranks with data</th><th>positions</th><th>aligned</th></tr>\n",
	      out);
	for (int pass = 0; pass < 2; pass++) {
		for (guint g = 0; g < s->groups->len; g++) {
			const struct hd_group_stats *st =
				hd_report_group_stats(a, g);
			bool ops = st && st->positions;
			g_autofree char *label = NULL;
			char nranks[32];

			if (ops != (pass == 0))
				continue;
			if (shown >= HTML_MAX_GROUPS) {
				left++;
				continue;
			}
			shown++;
			label = hd_group_label(s, g, HD_GROUP_LABEL_LONG);
			fputs("<tr><td><code>", out);
			put(out, label);
			if (ops)
				fprintf(out,
					"</code></td><td>%d</td><td>%u</td>"
					"<td>%u</td></tr>\n",
					st->ranks_with_data, st->positions,
					st->ops_aligned);
			else
				/* its members, as its records list them */
				fprintf(out,
					"</code></td><td>%s</td><td>0</td>"
					"<td>no ops recorded</td></tr>\n",
					nranks_text(hd_store_group_at(s, g),
						    nranks));
		}
	}
	for (guint i = 0; i < nc10d; i++) {
		const struct hd_c10d_group *g =
			&g_array_index(a->c10d_groups, struct hd_c10d_group, i);
		g_autofree char *label = NULL;
		g_autofree char *text = NULL;
		g_autofree char *n = hd_report_count(g->ranks->len);

		if (shown >= HTML_MAX_GROUPS) {
			left++;
			continue;
		}
		shown++;
		label = hd_c10d_group_label(g);
		text = hd_report_c10d_group_text(g);
		fputs("<tr><td><code>", out);
		put(out, label);
		fprintf(out, "</code></td><td>%s</td><td>0</td><td>", n);
		put(out, text);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (left)
		fprintf(out, "<p class=\"note\">... and %u more groups</p>\n",
			left);
}

static void html_inputs(FILE *out, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;

	fprintf(out,
		"<h2>Inputs</h2>\n<details><summary>%u input%s, %u usable</summary>\n"
		"<table class=\"grid\">\n<tr><th>path</th><th>kind</th>"
		"<th>rank</th><th>records</th><th>warnings</th></tr>\n",
		s->inputs->len, s->inputs->len == 1 ? "" : "s",
		hd_store_usable_inputs(s));
	for (guint i = 0; i < a->inputs->len && i < HTML_MAX_INPUTS; i++) {
		const struct hd_input *in = g_ptr_array_index(a->inputs, i);

		fputs("<tr><td><code>", out);
		put(out, in->path);
		fprintf(out, "</code></td><td>%s</td><td>",
			hd_input_kind_name(in->kind));
		if (in->rank >= 0)
			fprintf(out, "%d", in->rank);
		fprintf(out, "</td><td>%" G_GUINT64_FORMAT "</td><td>",
			in->records);
		if (in->error) {
			fputs("error: ", out);
			put(out, in->error);
		} else if (in->nwarnings) {
			fprintf(out, "%" G_GUINT64_FORMAT, in->nwarnings);
			if (in->warnings->len) {
				fputs(" (first: ", out);
				put(out, g_ptr_array_index(in->warnings, 0));
				fputc(')', out);
			}
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (s->inputs->len > HTML_MAX_INPUTS)
		fprintf(out, "<p class=\"note\">... and %u more inputs</p>\n",
			s->inputs->len - HTML_MAX_INPUTS);
	fputs("</details>\n", out);
}

static void page_init(struct page *pg, FILE *out, const struct hd_analysis *a)
{
	*pg = (struct page){ .out = out, .a = a };
	pg->v = a->verdicts->len ? g_ptr_array_index(a->verdicts, 0) : NULL;
	pg->evidence = g_hash_table_new(NULL, NULL);
	pg->cited = g_hash_table_new(g_str_hash, g_str_equal);
	pg->rows = g_hash_table_new(NULL, NULL);
	pg->cells = g_ptr_array_new_with_free_func(g_free);
	if (pg->v) {
		guint n = evidence_drawn(pg->v);

		/* Backwards, so that each rank keeps its first item. */
		for (guint i = n; i-- > 0;) {
			const struct hd_evidence *e =
				g_ptr_array_index(pg->v->evidence, i);

			if (e->rank >= 0)
				g_hash_table_insert(pg->evidence,
						    GINT_TO_POINTER(e->rank),
						    GUINT_TO_POINTER(i));
			/* an anchor per cited record: its first item */
			if (e->source)
				g_hash_table_insert(pg->cited, e->source,
						    GUINT_TO_POINTER(i));
		}
		pg->has_evidence = n > 0;
	}
	rank_runs(pg);
}

static void page_clear(struct page *pg)
{
	g_hash_table_unref(pg->evidence);
	g_hash_table_unref(pg->cited);
	g_hash_table_unref(pg->rows);
	hd_rank_rows_free(pg->ranks);
	g_ptr_array_unref(pg->cells);
}

/*
 * The order is the point: the verdict card (with the next steps) and the
 * rank picture first, then the evidence the picture links to.
 */
void hd_report_html(FILE *out, const struct hd_analysis *a)
{
	struct page pg;

	page_init(&pg, out, a);
	html_head(out, a);
	html_verdict(out, a);
	html_pictures(&pg);
	html_verdict_evidence(&pg);
	html_ranks(&pg);
	html_other_verdicts(out, a);
	html_groups(out, a);
	html_inputs(out, a);
	fprintf(out,
		"<footer>hangdoc %s. A self-contained page: no script, "
		"nothing fetched.</footer>\n</main>\n</body>\n</html>\n",
		PACKAGE_VERSION);
	page_clear(&pg);
}
