/*
 * The Perfetto / Chrome trace export (hd-report-perfetto.h).  Events are
 * written one per line as they are made, so a 16k-rank store never holds
 * its whole trace as a JSON tree.  Times are microseconds from the
 * earliest time in the store (kept whole in otherData.time_base_ns), so
 * a double keeps nanosecond precision.  Without any time, an op sits at
 * its sequence position, one millisecond per position, and otherData and
 * the trace's first instant say so.
 */
#include "config.h"

#include "hd-report-perfetto.h"

#include <stdlib.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-hash.h"
#include "hd-json.h"
#include "hd-report-util.h"
#include "hd-banned.h"

/* Sequence layout: one position is this many microseconds. */
#define SEQ_US	     1000.0
#define SEQ_DUR_US   900.0
#define MAX_EVIDENCE 20

struct writer {
	FILE *out;
	bool first;
};

/* Writes ev (stolen) as the next element of traceEvents. */
static void emit(struct writer *w, json_t *ev)
{
	g_autofree char *text =
		hd_json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (text) {
		fputs(w->first ? "\n" : ",\n", w->out);
		fputs(text, w->out);
		w->first = false;
	}
	json_decref(ev);
}

static json_t *event(const char *ph, const char *name, int pid, int64_t tid)
{
	json_t *ev = json_object();

	json_object_set_new(ev, "ph", json_string(ph));
	json_object_set_new(ev, "name", hd_json_string(name));
	json_object_set_new(ev, "pid", json_integer(pid));
	json_object_set_new(ev, "tid", json_integer(tid));
	return ev;
}

static void meta(struct writer *w, const char *what, int pid, int64_t tid,
		 const char *key, json_t *value)
{
	json_t *ev = event("M", what, pid, tid);
	json_t *args = json_object();

	json_object_set_new(args, key, value);
	json_object_set_new(ev, "args", args);
	emit(w, ev);
}

static int64_t op_begin(const struct hd_op *op)
{
	if (op->t_start_ns != INT64_MIN)
		return op->t_start_ns;
	if (op->t_enqueue_ns != INT64_MIN)
		return op->t_enqueue_ns;
	return op->t_end_ns;
}

/* Thread id of a group: its index plus one (0 is the process's own). */
static int64_t group_tid(uint32_t group)
{
	return (int64_t)group + 1;
}

static gint compare_u64(gconstpointer pa, gconstpointer pb)
{
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;

	return (x > y) - (x < y);
}

/* The keys of a set of uint64 (held as pointers to them), sorted. */
static GArray *sorted_keys(GHashTable *set)
{
	GArray *keys = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	GHashTableIter it;
	gpointer k;

	g_hash_table_iter_init(&it, set);
	while (g_hash_table_iter_next(&it, &k, NULL))
		g_array_append_val(keys, *(uint64_t *)k);
	g_array_sort(keys, compare_u64);
	return keys;
}

static void set_add(GHashTable *set, uint64_t v)
{
	uint64_t *key;

	if (g_hash_table_contains(set, &v))
		return;
	key = g_new(uint64_t, 1);
	*key = v;
	g_hash_table_add(set, key);
}

/* Process and thread names: every rank with data, every (rank, group). */
static void names(struct writer *w, const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	g_autoptr(GHashTable) ranks = g_hash_table_new_full(
		hd_int64_hash, hd_int64_equal, g_free, NULL);
	g_autoptr(GHashTable) tracks = g_hash_table_new_full(
		hd_int64_hash, hd_int64_equal, g_free, NULL);
	g_autoptr(GArray) rank_keys = NULL;
	g_autoptr(GArray) track_keys = NULL;

	for (guint i = 0; i < a->ranks_seen->len; i++)
		set_add(ranks, (uint64_t)g_array_index(a->ranks_seen, int, i));
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->rank < 0)
			continue;
		set_add(ranks, (uint64_t)op->rank);
		set_add(tracks, (uint64_t)op->rank << 32 | op->group);
	}
	rank_keys = sorted_keys(ranks);
	for (guint i = 0; i < rank_keys->len; i++) {
		int rank = (int)g_array_index(rank_keys, uint64_t, i);
		const struct hd_rank *r = hd_store_find_rank(s, rank);
		g_autofree char *name =
			r && r->host
				? g_strdup_printf("rank %d (%s)", rank, r->host)
				: g_strdup_printf("rank %d", rank);

		meta(w, "process_name", rank, 0, "name", hd_json_string(name));
		meta(w, "process_sort_index", rank, 0, "sort_index",
		     json_integer(rank));
	}
	track_keys = sorted_keys(tracks);
	for (guint i = 0; i < track_keys->len; i++) {
		uint64_t k = g_array_index(track_keys, uint64_t, i);
		int rank = (int)(k >> 32);
		uint32_t group = (uint32_t)k;
		g_autofree char *label =
			hd_group_label(s, group, HD_GROUP_LABEL_LONG);

		meta(w, "thread_name", rank, group_tid(group), "name",
		     hd_json_string(label));
		meta(w, "thread_sort_index", rank, group_tid(group),
		     "sort_index", json_integer(group));
	}
}

static const char *seq_kind_name(uint8_t k)
{
	return k == HD_SEQ_COLLECTIVE ? "collective"
	       : k == HD_SEQ_P2P      ? "p2p"
				      : "ordinal";
}

static json_t *op_args(const struct hd_store *s, const struct hd_op *op)
{
	g_autofree char *src = hd_prov_format(s, &op->prov);
	const struct hd_group *g = hd_store_group_at(s, op->group);
	json_t *args = json_object();

	json_object_set_new(args, "seq", hd_json_int_or_null(op->seq, -1));
	json_object_set_new(args, "seq_kind",
			    json_string(seq_kind_name(op->seq_kind)));
	json_object_set_new(args, "state",
			    json_string(hd_op_state_name(op->state)));
	json_object_set_new(args, "group", hd_json_string(g->id));
	json_object_set_new(args, "count_in",
			    hd_json_int_or_null(op->d->count_in, -1));
	json_object_set_new(args, "count_out",
			    hd_json_int_or_null(op->d->count_out, -1));
	json_object_set_new(args, "dtype",
			    json_string(hd_dtype_name(op->d->dtype)));
	json_object_set_new(args, "source", hd_json_string(src));
	return args;
}

/* The clock of an op's times (its input's). */
static enum hd_clock op_clock(const struct hd_store *s, const struct hd_op *op)
{
	return op->prov.input < s->inputs->len
		       ? hd_store_input(s, op->prov.input)->op_clock
		       : HD_CLOCK_NONE;
}

/*
 * The one clock the timeline uses: UTC when an op has it, else local, else
 * the clock of the first timed op when every timed op is of its input
 * (a trace's own clock means nothing beside another's).  NONE: by
 * sequence.
 */
static enum hd_clock timeline_clock(const struct hd_store *s)
{
	enum hd_clock best = HD_CLOCK_NONE;
	uint32_t input = UINT32_MAX;
	bool one_input = true;

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		enum hd_clock k = op_clock(s, op);

		if (op->rank < 0 || op_begin(op) == INT64_MIN)
			continue;
		if (k == HD_CLOCK_UTC)
			return k;
		if (k == HD_CLOCK_LOCAL)
			best = k;
		else if (best == HD_CLOCK_NONE || best != HD_CLOCK_LOCAL) {
			if (input != UINT32_MAX && input != op->prov.input)
				one_input = false;
			input = op->prov.input;
			if (best == HD_CLOCK_NONE)
				best = k;
		}
	}
	if (best != HD_CLOCK_LOCAL && !one_input)
		return HD_CLOCK_NONE;
	return best;
}

static void ops(struct writer *w, const struct hd_analysis *a, int64_t base,
		int64_t last, struct hd_perfetto_info *info)
{
	const struct hd_store *s = a->store;

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		json_t *ev;
		double ts, dur;

		if (op->rank < 0)
			continue;
		if (info->by_sequence) {
			ts = (double)MAX(op->seq, 0) * SEQ_US;
			dur = SEQ_DUR_US;
		} else {
			int64_t b = op_begin(op), e = op->t_end_ns;

			if (b == INT64_MIN) {
				info->untimed++;
				continue;
			}
			if (op_clock(s, op) != info->clock) {
				info->other_clock++;
				continue;
			}
			/* Never completed: it runs to the end of the data. */
			if (e == INT64_MIN || e < b)
				e = op->state == HD_STATE_COMPLETED ? b : last;
			ts = (double)hd_report_sub_sat(b, base) / 1e3;
			dur = MAX((double)hd_report_sub_sat(e, b) / 1e3, 0.001);
		}
		ev = event("X", hd_op_kind_name(op->kind), op->rank,
			   group_tid(op->group));
		json_object_set_new(ev, "cat",
				    json_string(hd_op_kind_is_p2p(op->kind)
							? "p2p"
							: "collective"));
		json_object_set_new(ev, "ts", json_real(ts));
		json_object_set_new(ev, "dur", json_real(dur));
		json_object_set_new(ev, "args", op_args(s, op));
		emit(w, ev);
		info->events++;
	}
}

static json_t *verdict_args(const struct hd_verdict *v)
{
	json_t *args = json_object();
	json_t *ev = json_array();

	json_object_set_new(args, "kind",
			    json_string(hd_verdict_kind_name(v->kind)));
	json_object_set_new(args, "culprits", hd_json_int_array(v->culprits));
	json_object_set_new(args, "confidence",
			    json_string(hd_confidence_name(v->confidence)));
	json_object_set_new(args, "summary", hd_json_string(v->summary));
	json_object_set_new(args, "seq", hd_json_int_or_null(v->seq, -1));
	for (guint i = 0; i < v->evidence->len && i < MAX_EVIDENCE; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);
		json_t *item = json_object();

		json_object_set_new(item, "rank",
				    hd_json_int_or_null(e->rank, -1));
		json_object_set_new(item, "source", hd_json_string(e->source));
		json_object_set_new(item, "text", hd_json_string(e->text));
		json_array_append_new(ev, item);
	}
	json_object_set_new(args, "evidence", ev);
	return args;
}

/* Where the divergence sits on the trace's time axis, in microseconds. */
static double divergence_ts(const struct hd_analysis *a,
			    const struct hd_verdict *v, int64_t base,
			    int64_t last, bool by_sequence)
{
	const struct hd_store *s = a->store;
	int64_t t = INT64_MAX;

	if (by_sequence)
		return (double)MAX(v->seq, 0) * SEQ_US;
	for (guint i = 0; v->seq >= 0 && i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if ((int64_t)op->group == v->group && op->seq == v->seq &&
		    op->seq_kind != HD_SEQ_P2P && op_begin(op) != INT64_MIN)
			t = MIN(t, op_begin(op));
	}
	return (double)hd_report_sub_sat(t == INT64_MAX ? last : t, base) / 1e3;
}

static void annotations(struct writer *w, const struct hd_analysis *a,
			int64_t base, int64_t last, bool by_sequence)
{
	const struct hd_verdict *v;
	g_autofree char *ranks = NULL;
	g_autofree char *title = NULL;
	double ts;
	json_t *ev;

	if (!a->verdicts->len)
		return;
	v = g_ptr_array_index(a->verdicts, 0);
	ranks = hd_report_rank_list(v->culprits);
	title = *ranks ? g_strdup_printf("verdict: %s, rank%s %s",
					 hd_verdict_kind_name(v->kind),
					 v->culprits->len == 1 ? "" : "s",
					 ranks)
		       : g_strdup_printf("verdict: %s",
					 hd_verdict_kind_name(v->kind));
	ts = divergence_ts(a, v, base, last, by_sequence);
	/* On the whole trace: the verdict at the divergence. */
	ev = event("i", title, 0, 0);
	json_object_set_new(ev, "s", json_string("g"));
	json_object_set_new(ev, "ts", json_real(ts));
	json_object_set_new(ev, "args", verdict_args(v));
	emit(w, ev);
	/* On each culprit's own tracks, where it should have been. */
	for (guint i = 0; i < v->culprits->len && i < 64; i++) {
		int rank = g_array_index(v->culprits, int, i);
		g_autofree char *name = NULL;

		if (v->group >= 0 && v->seq >= 0)
			name = g_strdup_printf(
				"divergence: %s seq %" G_GINT64_FORMAT,
				hd_verdict_kind_name(v->kind), v->seq);
		else
			name = g_strdup_printf("culprit: %s",
					       hd_verdict_kind_name(v->kind));
		ev = event("i", name, rank,
			   v->group >= 0 ? group_tid((uint32_t)v->group) : 0);
		json_object_set_new(ev, "s", json_string("p"));
		json_object_set_new(ev, "ts", json_real(ts));
		json_object_set_new(ev, "args",
				    json_pack("{s:s}", "summary", v->summary));
		emit(w, ev);
	}
}

bool hd_report_perfetto(FILE *out, const struct hd_analysis *a,
			struct hd_perfetto_info *info)
{
	const struct hd_store *s = a->store;
	struct writer w = { out, true };
	int64_t base = INT64_MAX, last = INT64_MIN;
	g_autoptr(json_t) other = json_object();
	char *text;

	*info = (struct hd_perfetto_info){ 0 };
	info->clock = (uint8_t)timeline_clock(s);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		int64_t b = op_begin(op);

		if (b == INT64_MIN || info->clock == HD_CLOCK_NONE ||
		    op_clock(s, op) != info->clock)
			continue;
		base = MIN(base, b);
		last = MAX(last, MAX(b, op->t_end_ns));
	}
	info->by_sequence = base == INT64_MAX;
	if (!info->by_sequence)
		/* room after the last time, for ops that never ended */
		last = hd_report_add_sat(
			last, MAX(hd_report_sub_sat(last, base) / 10, 1000));
	/* first, so that hangdoc knows its own export (parsers.c) */
	fprintf(out, "{\"generator\": \"hangdoc %s\",\n", PACKAGE_VERSION);
	fputs("\"traceEvents\": [", out);
	names(&w, a);
	ops(&w, a, base, last, info);
	annotations(&w, a, base, last, info->by_sequence);
	fputs("\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": ", out);
	json_object_set_new(other, "tool",
			    json_string("hangdoc " PACKAGE_VERSION));
	json_object_set_new(
		other, "layout",
		json_string(info->by_sequence ? "sequence" : "time"));
	json_object_set_new(
		other, "note",
		json_string(
			info->by_sequence
				? "no op has a timestamp: ops are laid out by sequence position, 1 ms per position"
				: "wall-clock times as each source recorded them, not corrected across hosts; microseconds from time_base_ns"));
	json_object_set_new(other, "time_base_ns",
			    info->by_sequence ? json_null()
					      : json_integer(base));
	json_object_set_new(
		other, "time_clock",
		json_string(hd_clock_name((enum hd_clock)info->clock)));
	json_object_set_new(other, "ops_on_other_clocks",
			    json_integer((json_int_t)info->other_clock));
	json_object_set_new(other, "ops_without_time",
			    json_integer((json_int_t)info->untimed));
	text = hd_json_dumps(other, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputs(text ? text : "{}", out);
	g_free(text);
	fputs("\n}\n", out);
	return !ferror(out);
}
