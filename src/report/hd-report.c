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

static bool write_text(FILE *out, const struct hd_analysis *a,
		       const struct hd_report_opts *opts)
{
	hd_report_text(out, a, opts);
	return !ferror(out);
}

static bool write_json(FILE *out, const struct hd_analysis *a,
		       const struct hd_report_opts *opts)
{
	g_autoptr(json_t) doc = hd_report_json_build(a, opts);

	if (!hd_json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		return false;
	fputc('\n', out);
	return !ferror(out);
}

static bool write_markdown(FILE *out, const struct hd_analysis *a,
			   const struct hd_report_opts *opts)
{
	hd_report_markdown(out, a, opts);
	return !ferror(out);
}

static bool write_html(FILE *out, const struct hd_analysis *a,
		       const struct hd_report_opts *opts)
{
	hd_report_html(out, a);
	return !ferror(out);
}

static bool write_jsonl(FILE *out, const struct hd_analysis *a,
			const struct hd_report_opts *opts)
{
	struct hd_triage_row *r = hd_triage_row_new(opts->label, a);
	bool ok = hd_triage_write_jsonl(out, r);

	hd_triage_row_free(r);
	return ok && !ferror(out);
}

static bool write_perfetto(FILE *out, const struct hd_analysis *a,
			   const struct hd_report_opts *opts)
{
	struct hd_perfetto_info info;

	return hd_report_perfetto_filtered(out, a, opts->filter, &info);
}

/*
 * The formats: a new one is a value of enum hd_report_format, its row
 * here and its renderer (hd-report-render.h).  A format that draws the
 * store itself takes the rank and group filter (own_filter); the others
 * are handed a filtered view of the analysis.
 */
static const struct {
	const char *name, *alias;
	bool own_filter;
	bool (*write)(FILE *out, const struct hd_analysis *a,
		      const struct hd_report_opts *opts);
} formats[] = {
	[HD_REPORT_TEXT] = { "text", NULL, false, write_text },
	[HD_REPORT_JSON] = { "json", NULL, false, write_json },
	[HD_REPORT_JSONL] = { "jsonl", NULL, false, write_jsonl },
	[HD_REPORT_MARKDOWN] = { "markdown", "md", false, write_markdown },
	[HD_REPORT_HTML] = { "html", NULL, false, write_html },
	[HD_REPORT_PERFETTO] = { "perfetto", NULL, true, write_perfetto },
};
_Static_assert(G_N_ELEMENTS(formats) == HD_REPORT_FORMAT_COUNT,
	       "every report format has a row");

bool hd_report_format_parse(const char *s, enum hd_report_format *fmt)
{
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
		if (strcmp(s, formats[i].name) == 0 ||
		    (formats[i].alias && strcmp(s, formats[i].alias) == 0)) {
			*fmt = (enum hd_report_format)i;
			return true;
		}
	}
	return false;
}

const char *hd_report_format_names(void)
{
	static gsize once;
	static char *names;

	if (g_once_init_enter(&once)) {
		GString *t = g_string_new(NULL);
		const size_t n = G_N_ELEMENTS(formats);

		for (size_t i = 0; i < n; i++)
			g_string_append_printf(t, "%s%s",
					       i == 0	   ? ""
					       : i + 1 < n ? ", "
							   : " or ",
					       formats[i].name);
		names = g_string_free(t, FALSE);
		g_once_init_leave(&once, 1);
	}
	return names;
}

bool hd_report_write(FILE *out, enum hd_report_format fmt,
		     const struct hd_analysis *a)
{
	return hd_report_write_opts(out, fmt, a, NULL);
}

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
	g_return_val_if_fail((unsigned)fmt < HD_REPORT_FORMAT_COUNT, false);
	if (!opts->filter || formats[fmt].own_filter)
		return formats[fmt].write(out, a, opts);
	view = hd_report_view_new(a, opts->filter);
	ok = formats[fmt].write(out, view, opts);
	hd_report_view_free(view);
	return ok;
}
