/*
 * hangdoc diff's renderers (hd-report-diff.h).  Text says, per field,
 * whether it is the same or changed and the value on each side ("A -> B"
 * when changed, once when the same), then each side's summary; JSON gives
 * both sides in full and the comparisons by name.  Everything read from
 * an input is cleaned before it is printed.
 */
#include "config.h"

#include "hd-report-diff.h"

#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-json.h"
#include "hd-report-render.h"
#include "hd-report-util.h"
#include "hd-banned.h"

#define WIDTH 80

/* What analyze's exit status means, for the text report. */
static const char *status_name(int status)
{
	switch (status) {
	case 0:
		return "no fault";
	case 1:
		return "fault";
	case 3:
		return "no usable input";
	case 5:
		return "undecided";
	case 6:
		return "inconsistent input";
	default:
		return "?";
	}
}

/* "rank 2", "ranks 0-3", "none".  (transfer full) */
static char *ranks_text(const GArray *ranks)
{
	g_autofree char *list = NULL;

	if (!ranks->len)
		return g_strdup("none");
	list = hd_rank_list_text(ranks, HD_RANKS_SET);
	return g_strdup_printf("%s %s", ranks->len == 1 ? "rank" : "ranks",
			       list);
}

static char *hosts_text(const GPtrArray *hosts)
{
	GString *t;

	if (!hosts->len)
		return g_strdup("none");
	t = g_string_new(NULL);
	for (guint i = 0; i < hosts->len; i++) {
		g_autofree char *h =
			hd_report_clean(g_ptr_array_index(hosts, i));

		g_string_append_printf(t, "%s%s", i ? ", " : "", h);
	}
	return g_string_free(t, FALSE);
}

/* "all_reduce at seq 8 of PG 0 (default_pg)", or "none".  (transfer full) */
static char *op_text(const struct hd_diff_side *s)
{
	g_autofree char *group = s->group ? hd_report_clean(s->group) : NULL;
	GString *t = g_string_new(s->op ? s->op : "none");

	if (s->seq >= 0)
		g_string_append_printf(t, " at seq %" G_GINT64_FORMAT, s->seq);
	if (group)
		g_string_append_printf(t, " of %s", group);
	return g_string_free(t, FALSE);
}

static char *verdict_text(const struct hd_diff_side *s)
{
	if (!s->kind)
		return g_strdup(s->usable ? "none" : "no usable input");
	return g_strdup_printf("%s, %s confidence", s->kind, s->confidence);
}

static char *status_text(int status)
{
	return g_strdup_printf("%d (%s)", status, status_name(status));
}

/* One field: "name  same: x" or "name  changed: a -> b". */
static void field(FILE *out, const char *name, enum hd_diff_same same,
		  const char *a, const char *b)
{
	g_autofree char *text = NULL;
	g_autofree char *first = g_strdup_printf("%-10s ", name);
	g_autofree char *wrapped = NULL;

	if (same == HD_DIFF_SAME || strcmp(a, b) == 0)
		text = g_strdup_printf("%s: %s", hd_diff_same_name(same), a);
	else
		text = g_strdup_printf("%s: %s -> %s", hd_diff_same_name(same),
				       a, b);
	wrapped = hd_report_wrap(text, first, "           ", WIDTH);
	fprintf(out, "%s\n", wrapped);
}

static void summary(FILE *out, const char *name, const struct hd_diff_side *s)
{
	g_autofree char *clean = hd_report_clean(s->summary);
	g_autofree char *first = g_strdup_printf("%s: ", name);
	g_autofree char *wrapped = NULL;

	if (!s->summary)
		return;
	wrapped = hd_report_wrap(clean, first, "   ", WIDTH);
	fprintf(out, "%s\n", wrapped);
}

static const char *undecided_sides(const struct hd_diff *d)
{
	bool a = d->a.kind && strcmp(d->a.kind, "insufficient_data") == 0;
	bool b = d->b.kind && strcmp(d->b.kind, "insufficient_data") == 0;

	return a && b ? "both are" : a ? "A is" : "B is";
}

bool hd_diff_write_text(FILE *out, const struct hd_diff *d)
{
	g_autofree char *la = hd_report_clean(d->a.label);
	g_autofree char *lb = hd_report_clean(d->b.label);
	g_autofree char *va = verdict_text(&d->a), *vb = verdict_text(&d->b);
	g_autofree char *ca = ranks_text(d->a.culprits);
	g_autofree char *cb = ranks_text(d->b.culprits);
	g_autofree char *ha = hosts_text(d->a.hosts);
	g_autofree char *hb = hosts_text(d->b.hosts);
	g_autofree char *oa = op_text(&d->a), *ob = op_text(&d->b);
	g_autofree char *sa = status_text(d->a.status);
	g_autofree char *sb = status_text(d->b.status);
	g_autofree char *fa = hd_report_clean(d->a.fingerprint_text);
	g_autofree char *fb = hd_report_clean(d->b.fingerprint_text);
	g_autofree char *cause = NULL, *wrapped = NULL;

	fprintf(out, "A: %s\nB: %s\n\n", la, lb);
	if (d->same_cause)
		cause = g_strdup_printf("the same cause: fingerprint %s (%s)",
					d->a.fingerprint, fa);
	else if (d->undecided)
		cause = g_strdup_printf(
			"not comparable: %s undecided (insufficient_data), "
			"and an undecided analysis names no cause",
			undecided_sides(d));
	else if (d->a.fingerprint && d->b.fingerprint)
		cause = g_strdup_printf("different causes: fingerprint %s (%s) "
					"-> %s (%s)",
					d->a.fingerprint, fa, d->b.fingerprint,
					fb);
	else
		cause = g_strdup("not comparable: one side has no verdict");
	wrapped = hd_report_wrap(cause, "cause      ", "           ", WIDTH);
	fprintf(out, "%s\n", wrapped);
	field(out, "verdict", d->kind, va, vb);
	field(out, "culprits", d->culprits, ca, cb);
	field(out, "hosts", d->hosts, ha, hb);
	field(out, "op", d->op, oa, ob);
	field(out, "call site", d->site, d->a.site ? d->a.site : "none",
	      d->b.site ? d->b.site : "none");
	field(out, "exit", d->status, sa, sb);
	if (d->hosts == HD_DIFF_CHANGED && d->hosts_common->len) {
		g_autofree char *common = hosts_text(d->hosts_common);

		fprintf(out, "%-10s %s\n", "in both", common);
	}
	if (d->a.summary || d->b.summary)
		fputc('\n', out);
	summary(out, "A", &d->a);
	summary(out, "B", &d->b);
	return !ferror(out);
}

static json_t *side_json(const struct hd_diff_side *s)
{
	static const enum hd_report_verdict_key keys[] = {
		HD_VKEY_VERDICT,
		HD_VKEY_CONFIDENCE,
		HD_VKEY_FINGERPRINT,
		HD_VKEY_FINGERPRINT_TEXT,
		HD_VKEY_CULPRIT_RANKS,
		HD_VKEY_CULPRIT_HOSTS,
		HD_VKEY_GROUP,
		HD_VKEY_SEQ,
		HD_VKEY_OP,
		HD_VKEY_CALL_SITE,
		HD_VKEY_SUMMARY,
		HD_VKEY_END,
	};
	const struct hd_report_verdict_id id = {
		.kind = s->kind,
		.confidence = s->confidence,
		.culprits = s->culprits,
		.hosts = s->hosts,
		.fingerprint = s->fingerprint,
		.fingerprint_text = s->fingerprint_text,
		.call_site = s->site,
		.group = s->group,
		.seq = s->seq,
		.op = s->op,
		.summary = s->summary,
	};
	json_t *o = json_object();

	json_object_set_new(o, "path", hd_json_string(s->label));
	json_object_set_new(o, "usable", json_boolean(s->usable));
	json_object_set_new(o, "exit", json_integer(s->status));
	hd_report_json_verdict_id(o, &id, keys);
	json_object_set_new(o, "verdicts", json_integer(s->verdicts));
	return o;
}

bool hd_diff_write_json(FILE *out, const struct hd_diff *d)
{
	g_autoptr(json_t) o = json_object();
	json_t *same = json_object();
	json_t *hosts = json_object();

	json_object_set_new(same, "verdict",
			    json_string(hd_diff_same_name(d->kind)));
	json_object_set_new(same, "culprits",
			    json_string(hd_diff_same_name(d->culprits)));
	json_object_set_new(same, "hosts",
			    json_string(hd_diff_same_name(d->hosts)));
	json_object_set_new(same, "op", json_string(hd_diff_same_name(d->op)));
	json_object_set_new(same, "call_site",
			    json_string(hd_diff_same_name(d->site)));
	json_object_set_new(same, "exit",
			    json_string(hd_diff_same_name(d->status)));
	json_object_set_new(hosts, "both",
			    hd_json_string_array(d->hosts_common));
	json_object_set_new(hosts, "only_a",
			    hd_json_string_array(d->hosts_only_a));
	json_object_set_new(hosts, "only_b",
			    hd_json_string_array(d->hosts_only_b));
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "tool", json_string("hangdoc diff"));
	json_object_set_new(o, "same_cause", json_boolean(d->same_cause));
	json_object_set_new(o, "undecided", json_boolean(d->undecided));
	json_object_set_new(o, "a", side_json(&d->a));
	json_object_set_new(o, "b", side_json(&d->b));
	json_object_set_new(o, "same", same);
	json_object_set_new(o, "hosts", hosts);
	if (!hd_json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		return false;
	fputc('\n', out);
	return !ferror(out);
}
