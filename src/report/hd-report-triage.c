/*
 * Triage rows and their renderers (hd-report-triage.h): the JSON line of
 * one incident, and the table of many grouped by fingerprint with the
 * culprit hosts that recur.  A host blamed in several incidents is the
 * node to drain, so it is listed apart.
 */
#include "config.h"

#include "hd-report-triage.h"

#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-json.h"
#include "hd-report-render.h"
#include "hd-report-util.h"
#include "hd-const.h"
#include "hd-banned.h"

#define MAX_EXAMPLES 3
#define MAX_ERRORS   5
#define MAX_HOSTS    10
#define MAX_SOURCES  32

static struct hd_triage_row *row_alloc(const char *path)
{
	struct hd_triage_row *r = g_new0(struct hd_triage_row, 1);

	r->path = g_strdup(path);
	r->culprits = g_array_new(FALSE, FALSE, sizeof(int));
	r->hosts = g_ptr_array_new_with_free_func(g_free);
	r->errors = g_ptr_array_new_with_free_func(g_free);
	r->culprit_details = json_array();
	r->next_steps = json_array();
	r->hang_start = json_null();
	r->sources = g_ptr_array_new_with_free_func(g_free);
	r->seq = -1;
	return r;
}

struct hd_triage_row *hd_triage_row_new(const char *path,
					const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	struct hd_triage_row *r = row_alloc(path);
	const struct hd_verdict *v = NULL;

	r->inputs = s->inputs->len;
	r->usable = hd_store_usable_inputs(s);
	r->ranks = a->ranks_seen->len;
	r->verdicts = a->verdicts->len;
	r->fault = hd_analysis_has_fault(a);
	r->performance = a->perf.known ? g_strdup(a->perf.summary) : NULL;
	r->inconsistent = hd_analysis_is_inconsistent(a);
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (in->error && r->errors->len < MAX_ERRORS)
			g_ptr_array_add(r->errors,
					g_strdup_printf("'%s': %s", in->path,
							in->error));
	}
	if (!r->usable)
		r->error = g_strdup("no usable input");
	if (a->verdicts->len)
		v = g_ptr_array_index(a->verdicts, 0);
	if (!v)
		return r;
	r->kind = hd_verdict_kind_name(v->kind);
	r->confidence = hd_confidence_name(v->confidence);
	r->summary = g_strdup(v->summary);
	r->fingerprint = g_strdup(v->fingerprint);
	r->fingerprint_text = g_strdup(v->fingerprint_text);
	r->call_site = g_strdup(v->call_site);
	r->group = hd_verdict_group_id(a, v);
	r->seq = v->seq;
	r->op = v->op;
	json_decref(r->culprit_details);
	r->culprit_details = hd_report_json_culprits(a, v);
	json_decref(r->next_steps);
	r->next_steps = hd_report_json_next_steps(v);
	json_decref(r->hang_start);
	r->hang_start = hd_report_json_hang_start(a);
	if (v->evidence->len) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, 0);

		r->evidence_source = g_strdup(e->source);
		r->evidence_text = g_strdup(e->text);
	}
	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);
		bool seen = false;

		if (!e->source || r->sources->len >= MAX_SOURCES)
			continue;
		for (guint k = 0; k < r->sources->len && !seen; k++)
			seen = strcmp(g_ptr_array_index(r->sources, k),
				      e->source) == 0;
		if (!seen)
			g_ptr_array_add(r->sources, g_strdup(e->source));
	}
	g_array_append_vals(r->culprits, v->culprits->data, v->culprits->len);
	g_ptr_array_unref(r->hosts);
	r->hosts = hd_verdict_culprit_hosts(s, v);
	return r;
}

void hd_triage_row_free(struct hd_triage_row *r)
{
	if (!r)
		return;
	g_free(r->path);
	g_free(r->error);
	g_free(r->summary);
	g_free(r->fingerprint);
	g_free(r->fingerprint_text);
	g_free(r->call_site);
	g_free(r->group);
	g_free(r->evidence_source);
	g_free(r->evidence_text);
	g_free(r->performance);
	g_array_unref(r->culprits);
	g_ptr_array_unref(r->hosts);
	g_ptr_array_unref(r->errors);
	json_decref(r->culprit_details);
	json_decref(r->next_steps);
	json_decref(r->hang_start);
	g_ptr_array_unref(r->sources);
	g_free(r);
}

bool hd_triage_write_jsonl(FILE *out, const struct hd_triage_row *r)
{
	static const enum hd_report_verdict_key head[] = {
		HD_VKEY_VERDICT,       HD_VKEY_CULPRIT_RANKS,
		HD_VKEY_CULPRIT_HOSTS, HD_VKEY_CONFIDENCE,
		HD_VKEY_FINGERPRINT,   HD_VKEY_SUMMARY,
		HD_VKEY_END,
	};
	/* additive: the fingerprint's text, the call site; where it is */
	static const enum hd_report_verdict_key fp[] = {
		HD_VKEY_FINGERPRINT_TEXT, HD_VKEY_END
	};
	static const enum hd_report_verdict_key site[] = { HD_VKEY_CALL_SITE,
							   HD_VKEY_END };
	static const enum hd_report_verdict_key where[] = {
		HD_VKEY_GROUP, HD_VKEY_SEQ, HD_VKEY_OP, HD_VKEY_END
	};
	const struct hd_report_verdict_id id = {
		.kind = r->kind,
		.confidence = r->confidence,
		.culprits = r->culprits,
		.hosts = r->hosts,
		.fingerprint = r->fingerprint,
		.fingerprint_text = r->fingerprint_text,
		.call_site = r->call_site,
		.group = r->group,
		.seq = r->seq,
		.op = r->op,
		.summary = r->summary,
	};
	g_autoptr(json_t) o = json_object();
	json_t *counts = json_object();
	json_t *ev = json_null();

	if (r->evidence_text) {
		ev = json_object();
		json_object_set_new(ev, "source",
				    hd_json_string(r->evidence_source));
		json_object_set_new(ev, "text",
				    hd_json_string(r->evidence_text));
	}
	json_object_set_new(counts, "inputs", json_integer(r->inputs));
	json_object_set_new(counts, "usable", json_integer(r->usable));
	json_object_set_new(counts, "ranks", json_integer(r->ranks));
	json_object_set_new(counts, "verdicts", json_integer(r->verdicts));
	json_object_set_new(o, "path", hd_json_string(r->path));
	hd_report_json_verdict_id(o, &id, head);
	json_object_set_new(o, "evidence", ev);
	json_object_set_new(o, "counts", counts);
	json_object_set_new(o, "fault", json_boolean(r->fault));
	json_object_set_new(o, "inconsistent", json_boolean(r->inconsistent));
	json_object_set_new(o, "error", hd_json_string(r->error));
	json_object_set_new(o, "errors", hd_json_string_array(r->errors));
	hd_report_json_verdict_id(o, &id, fp);
	json_object_set_new(o, "performance", hd_json_string(r->performance));
	hd_report_json_verdict_id(o, &id, site);
	json_object_set(o, "culprits", r->culprit_details);
	json_object_set(o, "next_steps", r->next_steps);
	json_object_set(o, "hang_start", r->hang_start);
	json_object_set_new(o, "evidence_sources",
			    hd_json_string_array(r->sources));
	hd_report_json_verdict_id(o, &id, where);
	if (!hd_json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER))
		return false;
	fputc('\n', out);
	return !ferror(out);
}

/* Incidents of one fingerprint (or one error class). */
struct cause {
	const char *key;
	GPtrArray *rows; /* struct hd_triage_row *, borrowed */
	GHashTable *hosts; /* host -> 1 */
};

static void cause_free(gpointer p)
{
	struct cause *c = p;

	g_ptr_array_unref(c->rows);
	g_hash_table_unref(c->hosts);
	g_free(c);
}

static gint compare_causes(gconstpointer pa, gconstpointer pb)
{
	const struct cause *a = *(const struct cause *const *)pa;
	const struct cause *b = *(const struct cause *const *)pb;

	if (a->rows->len != b->rows->len)
		return a->rows->len > b->rows->len ? -1 : 1;
	return strcmp(a->key, b->key);
}

struct host_count {
	const char *host;
	guint n;
};

static gint compare_hosts(gconstpointer pa, gconstpointer pb)
{
	const struct host_count *a = pa, *b = pb;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->host, b->host);
}

#define MAX_SITES      3
#define UNDECIDED_KEY  "(undecided)"
#define UNANALYZED_KEY "(not analyzed)"

/*
 * "network_fault all_reduce at train.py:step" for the rows of one cause:
 * the kind and op its fingerprint names, then the call sites its
 * incidents were seen at (the refinement), as many as fit.
 * (transfer full)
 */
static char *cause_text(const struct cause *c)
{
	const struct hd_triage_row *r = g_ptr_array_index(c->rows, 0);
	g_autoptr(GPtrArray) sites = g_ptr_array_new();
	GString *t;

	if (strcmp(c->key, UNDECIDED_KEY) == 0)
		return g_strdup("undecided (insufficient_data): no cause named,"
				" not grouped");
	if (!r->kind)
		return g_strdup_printf("not analyzed: %s",
				       r->error ? r->error : "?");
	t = g_string_new(r->kind);
	if (r->fingerprint_text && strstr(r->fingerprint_text, "; op=")) {
		const char *op = strstr(r->fingerprint_text, "; op=") + 5;

		g_string_append_printf(t, " %.*s", (int)strcspn(op, ";"), op);
	}
	for (guint i = 0; i < c->rows->len; i++) {
		const struct hd_triage_row *x = g_ptr_array_index(c->rows, i);
		bool known = false;

		if (!x->call_site)
			continue;
		for (guint k = 0; k < sites->len && !known; k++)
			known = strcmp(g_ptr_array_index(sites, k),
				       x->call_site) == 0;
		if (!known)
			g_ptr_array_add(sites, x->call_site);
	}
	for (guint k = 0; k < sites->len && k < MAX_SITES; k++)
		g_string_append_printf(
			t, "%s%s", k ? ", " : " at ",
			(const char *)g_ptr_array_index(sites, k));
	if (sites->len > MAX_SITES)
		g_string_append_printf(t, " and %u more call sites",
				       sites->len - MAX_SITES);
	return g_string_free(t, FALSE);
}

/* The key a row is grouped by. */
static const char *row_key(const struct hd_triage_row *r)
{
	if (r->kind && strcmp(r->kind, "insufficient_data") == 0)
		return UNDECIDED_KEY;
	return r->fingerprint ? r->fingerprint : UNANALYZED_KEY;
}

static char *examples(const struct cause *c)
{
	GString *t = g_string_new(NULL);

	for (guint i = 0; i < c->rows->len && i < MAX_EXAMPLES; i++) {
		const struct hd_triage_row *r = g_ptr_array_index(c->rows, i);
		g_autofree char *clean = hd_report_clean(r->path);

		g_string_append_printf(t, "%s%s", i ? ", " : "", clean);
	}
	if (c->rows->len > MAX_EXAMPLES)
		g_string_append_printf(t, " and %u more",
				       c->rows->len - MAX_EXAMPLES);
	return g_string_free(t, FALSE);
}

bool hd_triage_write_table(FILE *out, const GPtrArray *rows, bool markdown)
{
	g_autoptr(GHashTable) by_key =
		g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GPtrArray) causes =
		g_ptr_array_new_with_free_func(cause_free);
	g_autoptr(GHashTable) host_n =
		g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GArray) hosts =
		g_array_new(FALSE, FALSE, sizeof(struct host_count));
	GHashTableIter it;
	gpointer key, value;
	guint faults = 0, errors = 0, ncauses;

	for (guint i = 0; i < rows->len; i++) {
		struct hd_triage_row *r = g_ptr_array_index(rows, i);
		const char *k = row_key(r);
		struct cause *c = g_hash_table_lookup(by_key, k);

		faults += r->fault;
		errors += r->error != NULL;
		if (!c) {
			c = g_new0(struct cause, 1);
			c->key = k;
			c->rows = g_ptr_array_new();
			c->hosts = g_hash_table_new(g_str_hash, g_str_equal);
			g_hash_table_insert(by_key, hd_unconst(k), c);
			g_ptr_array_add(causes, c);
		}
		g_ptr_array_add(c->rows, r);
		for (guint h = 0; h < r->hosts->len; h++) {
			const char *host = g_ptr_array_index(r->hosts, h);

			g_hash_table_add(c->hosts, hd_unconst(host));
			g_hash_table_insert(
				host_n, hd_unconst(host),
				GUINT_TO_POINTER(
					GPOINTER_TO_UINT(g_hash_table_lookup(
						host_n, host)) +
					1));
		}
	}
	g_ptr_array_sort(causes, compare_causes);
	ncauses = causes->len;
	if (g_hash_table_contains(by_key, UNDECIDED_KEY))
		ncauses--;
	g_hash_table_iter_init(&it, host_n);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct host_count hc = { key, GPOINTER_TO_UINT(value) };

		if (hc.n > 1)
			g_array_append_val(hosts, hc);
	}
	g_array_sort(hosts, compare_hosts);

	if (markdown)
		fprintf(out,
			"# hangdoc triage: %u %s, %u %s\n\n"
			"%u with a fault, %u not analyzed.\n\n"
			"| incidents | cause | fingerprint | hosts | examples |\n"
			"|---|---|---|---|---|\n",
			rows->len, rows->len == 1 ? "incident" : "incidents",
			ncauses, ncauses == 1 ? "cause" : "causes", faults,
			errors);
	else
		fprintf(out,
			"%u %s, %u %s (%u with a fault, %u not analyzed)\n\n",
			rows->len, rows->len == 1 ? "incident" : "incidents",
			ncauses, ncauses == 1 ? "cause" : "causes", faults,
			errors);
	for (guint i = 0; i < causes->len; i++) {
		const struct cause *c = g_ptr_array_index(causes, i);
		const struct hd_triage_row *first =
			g_ptr_array_index(c->rows, 0);
		g_autofree char *what = cause_text(c);
		g_autofree char *clean = hd_report_clean(what);
		g_autofree char *ex = examples(c);
		guint nh = g_hash_table_size(c->hosts);
		const char *fp = strcmp(c->key, UNDECIDED_KEY) == 0 ||
						 !first->fingerprint
					 ? "-"
					 : first->fingerprint;

		if (markdown) {
			/* A call site is read from a stack: no cell ends in it. */
			g_auto(GStrv) cells = g_strsplit(clean, "|", -1);

			g_free(clean);
			clean = g_strjoinv("\\|", cells);
		}

		if (markdown)
			fprintf(out, "| %u | %s | `%s` | %u | %s |\n",
				c->rows->len, clean, fp, nh, ex);
		else
			fprintf(out, "%u %s: %s, %u %s\n  fingerprint %s; %s\n",
				c->rows->len,
				c->rows->len == 1 ? "incident" : "incidents",
				clean, nh, nh == 1 ? "host" : "hosts", fp, ex);
	}
	if (hosts->len) {
		fprintf(out,
			markdown
				? "\n## Hosts blamed in more than one incident\n\n"
				  "| host | incidents |\n|---|---|\n"
				: "\nhosts blamed in more than one incident:\n");
		for (guint i = 0; i < hosts->len && i < MAX_HOSTS; i++) {
			const struct host_count *hc =
				&g_array_index(hosts, struct host_count, i);
			g_autofree char *h = hd_report_clean(hc->host);

			fprintf(out,
				markdown ? "| %s | %u |\n" : "  %-24s %u\n", h,
				hc->n);
		}
		if (hosts->len > MAX_HOSTS)
			fprintf(out,
				markdown ? "\n%u more hosts\n"
					 : "  ... %u more hosts\n",
				hosts->len - MAX_HOSTS);
	}
	return !ferror(out);
}
