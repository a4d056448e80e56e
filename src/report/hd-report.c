/*
 * The report dispatcher: format names and hd_report_write(), which hands
 * an analysis to the renderer of the format asked for (hd-report-text.c,
 * hd-report-json.c, hd-report-md.c, hd-report-html.c, hd-report-perfetto.c,
 * and the jsonl line of hd-report-triage.c), through a filtered view of
 * the analysis when the report shows some ranks only (hd-report-filter.c).
 * Renderers never call back in here.
 */
#include "config.h"

#include "hd-report.h"

#include <string.h>

#include "hd-autocleanups.h"
#include "hd-json.h"
#include "hd-report-render.h"
#include "hd-report-perfetto.h"
#include "hd-report-triage.h"
#include "hd-banned.h"

bool hd_report_format_parse(const char *s, enum hd_report_format *fmt)
{
	if (strcmp(s, "text") == 0)
		*fmt = HD_REPORT_TEXT;
	else if (strcmp(s, "json") == 0)
		*fmt = HD_REPORT_JSON;
	else if (strcmp(s, "jsonl") == 0)
		*fmt = HD_REPORT_JSONL;
	else if (strcmp(s, "markdown") == 0 || strcmp(s, "md") == 0)
		*fmt = HD_REPORT_MARKDOWN;
	else if (strcmp(s, "html") == 0)
		*fmt = HD_REPORT_HTML;
	else if (strcmp(s, "perfetto") == 0)
		*fmt = HD_REPORT_PERFETTO;
	else
		return false;
	return true;
}

bool hd_report_write(FILE *out, enum hd_report_format fmt,
		     const struct hd_analysis *a)
{
	return hd_report_write_opts(out, fmt, a, NULL);
}

static bool write_view(FILE *out, enum hd_report_format fmt,
		       const struct hd_analysis *a,
		       const struct hd_report_opts *opts);

bool hd_report_write_opts(FILE *out, enum hd_report_format fmt,
			  const struct hd_analysis *a,
			  const struct hd_report_opts *opts)
{
	const struct hd_report_opts defaults = { 80,	-1,    -1,  NULL,
						 false, false, NULL };
	struct hd_analysis *view;
	bool ok;

	if (!opts)
		opts = &defaults;
	/* Perfetto draws the store's ops itself: it takes the filter. */
	if (!opts->filter || fmt == HD_REPORT_PERFETTO)
		return write_view(out, fmt, a, opts);
	view = hd_report_view_new(a, opts->filter);
	ok = write_view(out, fmt, view, opts);
	hd_report_view_free(view);
	return ok;
}

/* Writes a (the analysis, or a filtered view of it) as fmt. */
static bool write_view(FILE *out, enum hd_report_format fmt,
		       const struct hd_analysis *a,
		       const struct hd_report_opts *opts)
{
	switch (fmt) {
	case HD_REPORT_JSONL: {
		struct hd_triage_row *r = hd_triage_row_new(opts->label, a);
		bool ok = hd_triage_write_jsonl(out, r);

		hd_triage_row_free(r);
		return ok;
	}
	case HD_REPORT_TEXT:
		hd_report_text(out, a, opts);
		break;
	case HD_REPORT_MARKDOWN:
		hd_report_markdown(out, a, opts);
		break;
	case HD_REPORT_PERFETTO: {
		struct hd_perfetto_info info;

		return hd_report_perfetto_filtered(out, a, opts->filter, &info);
	}
	case HD_REPORT_HTML:
		hd_report_html(out, a);
		break;
	case HD_REPORT_JSON: {
		g_autoptr(json_t) doc = hd_report_json_build(a, opts);

		if (!hd_json_dumpf(doc, out,
				   JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			return false;
		fputc('\n', out);
		break;
	}
	}
	return !ferror(out);
}
