/*
 * The JSON report: schema 1 of docs/json-schema.md, key for key and in the
 * documented order, so pipelines can rely on it.  Additive keys come after
 * the schema's keys of the same object.  Every string that came from an
 * input goes through hd_json_string(), because raw log lines may
 * hold bytes that are not UTF-8 and jansson refuses those.  When it was
 * made and how long the analysis took come from the caller (opts).
 */
#include "config.h"

#include "hd-report-render.h"

#include "hd-autocleanups.h"
#include "hd-json.h"
#include "hd-report-util.h"
#include "hd-banned.h"

static json_t *input_json(const struct hd_input *in)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", hd_json_string(in->path));
	json_object_set_new(o, "kind",
			    json_string(hd_input_kind_name(in->kind)));
	json_object_set_new(o, "rank", hd_json_int_or_null(in->rank, -1));
	json_object_set_new(o, "records",
			    json_integer((json_int_t)in->records));
	json_object_set_new(o, "skipped",
			    json_integer((json_int_t)in->skipped));
	json_object_set_new(o, "warnings", hd_json_string_array(in->warnings));
	/* Additive keys. */
	json_object_set_new(o, "warnings_total",
			    json_integer((json_int_t)in->nwarnings));
	json_object_set_new(o, "truncated", json_boolean(in->truncated));
	json_object_set_new(o, "empty", json_boolean(in->empty));
	json_object_set_new(o, "error", hd_json_string(in->error));
	json_object_set_new(o, "size",
			    in->file_size >= 0 ? json_integer(in->file_size)
					       : json_null());
	json_object_set_new(o, "xxh3_128", hd_json_string(in->xxh3_128));
	json_object_set_new(o, "sha256", hd_json_string(in->sha256));
	return o;
}

static json_t *group_json(const struct hd_analysis *a, uint32_t index)
{
	const struct hd_group *g = hd_store_group_at(a->store, index);
	const struct hd_group_stats *st = hd_report_group_stats(a, index);
	json_t *o = json_object();
	json_t *members = json_array();

	for (guint i = 0; g->members && i < g->members->len; i++)
		json_array_append_new(
			members,
			hd_json_int_or_null(g_array_index(g->members, int, i),
					    -1));
	json_object_set_new(o, "id", hd_json_string(g->id));
	json_object_set_new(o, "name", hd_json_string(g->name));
	json_object_set_new(o, "desc", hd_json_string(g->desc));
	json_object_set_new(o, "ranks", members);
	json_object_set_new(o, "ops_aligned",
			    json_integer(st ? st->ops_aligned : 0));
	json_object_set_new(
		o, "joined_with",
		st && st->joined >= 0
			? hd_json_string(hd_store_group_at(a->store,
							   (uint32_t)st->joined)
						 ->id)
			: json_null());
	/* additive */
	json_object_set_new(o, "known_from", json_string("records"));
	return o;
}

/*
 * Additive: a c10d PG known from log lines only (struct hd_c10d_group),
 * in the shape of a group: its ranks are those whose lines name it.
 */
static json_t *c10d_group_json(const struct hd_c10d_group *g)
{
	g_autofree char *id = hd_c10d_group_id(g);
	json_t *o = json_object();

	json_object_set_new(o, "id", hd_json_string(id));
	json_object_set_new(o, "name", hd_json_string(g->name));
	json_object_set_new(o, "desc", json_null());
	json_object_set_new(o, "ranks", hd_json_int_array(g->ranks));
	json_object_set_new(o, "ops_aligned", json_integer(0));
	json_object_set_new(o, "joined_with", json_null());
	json_object_set_new(o, "known_from", json_string("c10d_lines"));
	json_object_set_new(o, "timed_out", json_integer(g->timeouts));
	return o;
}

/*
 * Additive evidence keys: the source split into the input's path and the
 * position in it: "line", "record" or "offset", null when not known.
 */
static void source_parts(const struct hd_store *s, const char *source,
			 json_t *eo)
{
	enum hd_report_pos pos = HD_REPORT_POS_NONE;
	size_t len = 0;
	uint64_t at = 0;
	bool found = hd_report_source_split(s, source, &len, &pos, &at);
	g_autofree char *path = found ? g_strndup(source, len) : NULL;

	json_object_set_new(eo, "path", hd_json_string(path));
	json_object_set_new(eo, "line",
			    pos == HD_REPORT_POS_LINE
				    ? json_integer((json_int_t)at)
				    : json_null());
	json_object_set_new(eo, "record",
			    pos == HD_REPORT_POS_RECORD
				    ? json_integer((json_int_t)at)
				    : json_null());
	json_object_set_new(eo, "offset",
			    pos == HD_REPORT_POS_OFFSET
				    ? json_integer((json_int_t)at)
				    : json_null());
}

/* Additive: one row per rank of the engine's progress table. */
static json_t *progress_json(const struct hd_analysis *a)
{
	json_t *rows = json_array();

	for (guint i = 0; a->progress && i < a->progress->len; i++) {
		const struct hd_rank_progress *p =
			&g_array_index(a->progress, struct hd_rank_progress, i);
		const struct hd_group *g = NULL;
		json_t *o = json_object();

		if (p->group >= 0 && (guint64)p->group < a->store->groups->len)
			g = hd_store_group_at(a->store, (uint32_t)p->group);
		json_object_set_new(o, "rank", json_integer(p->rank));
		json_object_set_new(o, "host", hd_json_string(p->host));
		json_object_set_new(o, "state", hd_json_string(p->state));
		json_object_set_new(o, "group",
				    g ? hd_json_string(g->id) : json_null());
		json_object_set_new(o, "last_enqueued",
				    hd_json_int_or_null(p->last_enqueued, -1));
		json_object_set_new(o, "last_completed",
				    hd_json_int_or_null(p->last_completed, -1));
		json_object_set_new(o, "blocked_at",
				    hd_json_int_or_null(p->blocked_seq, -1));
		json_object_set_new(o, "inputs", json_integer(p->inputs));
		json_object_set_new(o, "ops", json_integer(p->ops));
		json_object_set_new(o, "counters_pg",
				    hd_json_string(p->counters_pg));
		json_array_append_new(rows, o);
	}
	return rows;
}

/* "2023-11-14T22:13:20Z" (transfer full). */
static json_t *rfc3339(int64_t secs)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(secs);
	g_autofree char *s =
		dt ? g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ") : NULL;

	return s ? json_string(s) : json_null();
}

/* Additive: a verdict's culprits, where they ran and where they were. */
json_t *hd_report_json_culprits(const struct hd_analysis *a,
				const struct hd_verdict *v)
{
	json_t *arr = json_array();

	for (guint i = 0; i < v->culprit_info->len; i++) {
		const struct hd_culprit *c =
			&g_array_index(v->culprit_info, struct hd_culprit, i);
		const struct hd_frame *f = hd_culprit_frame(a->store, c);
		g_autofree char *site = f ? hd_report_frame_text(f) : NULL;
		json_t *o = json_object();

		json_object_set_new(o, "rank", json_integer(c->rank));
		json_object_set_new(o, "host", hd_json_string(c->host));
		json_object_set_new(o, "pid", hd_json_int_or_null(c->pid, 0));
		json_object_set_new(o, "call_site", hd_json_string(site));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Additive: the engine's next steps for a verdict. */
json_t *hd_report_json_next_steps(const struct hd_verdict *v)
{
	json_t *arr = json_array();

	for (guint i = 0; i < v->next_steps->len; i++) {
		const struct hd_next *n = g_ptr_array_index(v->next_steps, i);
		json_t *o = json_object();

		json_object_set_new(o, "text", hd_json_string(n->text));
		json_object_set_new(o, "command", hd_json_string(n->command));
		json_object_set_new(o, "host", hd_json_string(n->host));
		json_object_set_new(o, "rank",
				    hd_json_int_or_null(n->rank, -1));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Additive: a moment of the hang's start with its clock, or null. */
static json_t *moment_json(const struct hd_analysis *a,
			   const struct hd_moment *m)
{
	g_autofree char *when = NULL;
	g_autofree char *src = NULL;
	json_t *o;

	if (!m->known)
		return json_null();
	when = hd_time_format(m->time, 3);
	src = hd_prov_format(a->store, &m->prov);
	o = json_object();
	json_object_set_new(o, "time", hd_json_string(when));
	json_object_set_new(o, "ns", json_integer(m->time.ns));
	json_object_set_new(o, "clock",
			    json_string(hd_clock_name(m->time.clock)));
	json_object_set_new(o, "rank", hd_json_int_or_null(m->rank, -1));
	json_object_set_new(o, "source", hd_json_string(src));
	return o;
}

json_t *hd_report_json_hang_start(const struct hd_analysis *a)
{
	json_t *o;

	if (!a->last_completed.known && !a->first_timeout.known)
		return json_null();
	o = json_object();
	json_object_set_new(o, "last_completed",
			    moment_json(a, &a->last_completed));
	json_object_set_new(o, "first_timeout",
			    moment_json(a, &a->first_timeout));
	return o;
}

void hd_report_json_verdict_id(json_t *o, const struct hd_report_verdict_id *id,
			       const enum hd_report_verdict_key *keys)
{
	for (; *keys != HD_VKEY_END; keys++) {
		switch (*keys) {
		case HD_VKEY_KIND:
		case HD_VKEY_VERDICT:
			json_object_set_new(
				o, *keys == HD_VKEY_KIND ? "kind" : "verdict",
				hd_json_string(id->kind));
			break;
		case HD_VKEY_CULPRIT_RANKS:
			json_object_set_new(o, "culprit_ranks",
					    hd_json_int_array(id->culprits));
			break;
		case HD_VKEY_CULPRIT_HOSTS:
			json_object_set_new(o, "culprit_hosts",
					    hd_json_string_array(id->hosts));
			break;
		case HD_VKEY_CONFIDENCE:
			json_object_set_new(o, "confidence",
					    hd_json_string(id->confidence));
			break;
		case HD_VKEY_FINGERPRINT:
			json_object_set_new(o, "fingerprint",
					    hd_json_string(id->fingerprint));
			break;
		case HD_VKEY_FINGERPRINT_TEXT:
			json_object_set_new(
				o, "fingerprint_text",
				hd_json_string(id->fingerprint_text));
			break;
		case HD_VKEY_CALL_SITE:
			json_object_set_new(o, "call_site",
					    hd_json_string(id->call_site));
			break;
		case HD_VKEY_GROUP:
			json_object_set_new(o, "group",
					    hd_json_string(id->group));
			break;
		case HD_VKEY_SEQ:
			json_object_set_new(o, "seq",
					    hd_json_int_or_null(id->seq, -1));
			break;
		case HD_VKEY_OP:
			json_object_set_new(o, "op", hd_json_string(id->op));
			break;
		case HD_VKEY_SUMMARY:
			json_object_set_new(o, "summary",
					    hd_json_string(id->summary));
			break;
		case HD_VKEY_END:
		default:
			g_assert_not_reached();
		}
	}
}

static json_t *verdict_json(const struct hd_analysis *a,
			    const struct hd_verdict *v)
{
	static const enum hd_report_verdict_key head[] = {
		HD_VKEY_KIND,	 HD_VKEY_CULPRIT_RANKS,
		HD_VKEY_GROUP,	 HD_VKEY_SEQ,
		HD_VKEY_OP,	 HD_VKEY_CONFIDENCE,
		HD_VKEY_SUMMARY, HD_VKEY_END,
	};
	/* additive keys */
	static const enum hd_report_verdict_key tail[] = {
		HD_VKEY_FINGERPRINT,
		HD_VKEY_FINGERPRINT_TEXT,
		HD_VKEY_CALL_SITE,
		HD_VKEY_END,
	};
	json_t *o = json_object();
	json_t *ev = json_array();
	g_autofree char *group = hd_verdict_group_id(a, v);
	const struct hd_report_verdict_id id = {
		.kind = hd_verdict_kind_name(v->kind),
		.confidence = hd_confidence_name(v->confidence),
		.culprits = v->culprits,
		.fingerprint = v->fingerprint,
		.fingerprint_text = v->fingerprint_text,
		.call_site = v->call_site,
		.group = group,
		.seq = v->seq,
		.op = v->op,
		.summary = v->summary,
	};

	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);
		json_t *eo = json_object();

		json_object_set_new(eo, "rank",
				    hd_json_int_or_null(e->rank, -1));
		json_object_set_new(eo, "source", hd_json_string(e->source));
		json_object_set_new(eo, "text", hd_json_string(e->text));
		source_parts(a->store, e->source, eo);
		/* additive: the count of the items a capped list left out */
		json_object_set_new(eo, "more",
				    hd_json_int_or_null(e->more, 0));
		json_array_append_new(ev, eo);
	}
	hd_report_json_verdict_id(o, &id, head);
	json_object_set_new(o, "evidence", ev);
	json_object_set_new(o, "ruled_out", hd_json_string_array(v->ruled_out));
	hd_report_json_verdict_id(o, &id, tail);
	json_object_set_new(o, "culprits", hd_report_json_culprits(a, v));
	json_object_set_new(o, "next_steps", hd_report_json_next_steps(v));
	return o;
}

static json_t *arrival_json(const struct hd_arrival *ar)
{
	json_t *o = json_object();

	json_object_set_new(o, "rank", json_integer(ar->rank));
	json_object_set_new(o, "matched", json_integer(ar->matched));
	json_object_set_new(o, "times_last", json_integer(ar->times_last));
	json_object_set_new(o, "median_lag_ns",
			    json_integer(ar->median_lag_ns));
	json_object_set_new(o, "wait_imposed_ns",
			    json_integer(ar->wait_imposed_ns));
	json_object_set_new(o, "clock_offset_ns",
			    ar->has_offset ? json_integer(ar->clock_offset_ns)
					   : json_null());
	json_object_set_new(o, "clock_uncertainty_ns",
			    ar->has_offset
				    ? json_integer(ar->clock_uncertainty_ns)
				    : json_null());
	return o;
}

/* The performance note, or null when no rank was last often enough. */
static json_t *perf_json(const struct hd_perf *p)
{
	json_t *o;

	if (!p->known)
		return json_null();
	o = json_object();
	json_object_set_new(o, "rank", json_integer(p->rank));
	json_object_set_new(o, "times_last", json_integer(p->times_last));
	json_object_set_new(o, "matched", json_integer(p->matched));
	json_object_set_new(o, "median_margin_ns",
			    json_integer(p->median_margin_ns));
	json_object_set_new(o, "wait_imposed_ns",
			    json_integer(p->wait_imposed_ns));
	json_object_set_new(o, "others_wait_ns",
			    json_integer(p->others_wait_ns));
	json_object_set_new(o, "step_ns", hd_json_int_or_null(p->step_ns, -1));
	json_object_set_new(o, "fault", json_boolean(p->fault));
	json_object_set_new(o, "summary", hd_json_string(p->summary));
	return o;
}

json_t *hd_report_json_build(const struct hd_analysis *a,
			     const struct hd_report_opts *opts)
{
	const struct hd_store *s = a->store;
	json_t *doc = json_object();
	json_t *tool = json_object();
	json_t *inputs = json_array();
	json_t *ranks = json_object();
	json_t *groups = json_array();
	json_t *verdicts = json_array();
	json_t *arrivals = json_array();

	json_object_set_new(tool, "name", json_string("hangdoc"));
	json_object_set_new(tool, "version", json_string(PACKAGE_VERSION));
	/* the analysis's order: natural, as every format lists them */
	for (guint i = 0; i < a->inputs->len; i++)
		json_array_append_new(
			inputs, input_json(g_ptr_array_index(a->inputs, i)));
	json_object_set_new(ranks, "world_size",
			    hd_json_int_or_null(a->world_size, -1));
	json_object_set_new(ranks, "seen", hd_json_int_array(a->ranks_seen));
	json_object_set_new(ranks, "missing",
			    hd_json_int_array(a->ranks_missing));
	/* Additive. */
	json_object_set_new(ranks, "table", progress_json(a));
	for (guint i = 0; i < s->groups->len; i++)
		json_array_append_new(groups, group_json(a, i));
	for (guint i = 0; a->c10d_groups && i < a->c10d_groups->len; i++)
		json_array_append_new(
			groups,
			c10d_group_json(&g_array_index(
				a->c10d_groups, struct hd_c10d_group, i)));
	for (guint i = 0; i < a->verdicts->len; i++)
		json_array_append_new(
			verdicts,
			verdict_json(a, g_ptr_array_index(a->verdicts, i)));
	for (guint i = 0; a->arrivals && i < a->arrivals->len; i++)
		json_array_append_new(
			arrivals, arrival_json(&g_array_index(
					  a->arrivals, struct hd_arrival, i)));

	json_object_set_new(doc, "schema", json_integer(1));
	json_object_set_new(doc, "tool", tool);
	json_object_set_new(doc, "inputs", inputs);
	json_object_set_new(doc, "ranks", ranks);
	json_object_set_new(doc, "groups", groups);
	json_object_set_new(doc, "verdicts", verdicts);
	/* Additive keys. */
	json_object_set_new(doc, "arrivals", arrivals);
	json_object_set_new(doc, "notes", hd_json_string_array(a->notes));
	json_object_set_new(doc, "fault",
			    json_boolean(hd_analysis_has_fault(a)));
	json_object_set_new(doc, "generated_at",
			    opts && opts->generated_at >= 0
				    ? rfc3339(opts->generated_at)
				    : json_null());
	json_object_set_new(doc, "analysis_ms",
			    opts && opts->elapsed_ms >= 0
				    ? json_integer(opts->elapsed_ms)
				    : json_null());
	json_object_set_new(doc, "inconsistent_inputs",
			    hd_json_string_array(a->conflicts));
	json_object_set_new(doc, "merged", json_boolean(a->merged));
	json_object_set_new(doc, "performance", perf_json(&a->perf));
	json_object_set_new(doc, "hang_start", hd_report_json_hang_start(a));
	/* only when some ranks are shown (analyze --rank/--group) */
	if (opts && opts->filter)
		json_object_set_new(doc, "filter",
				    hd_report_filter_json(opts->filter));
	return doc;
}
