/*
 * The listing of `hangdoc show` (hd-report-show.h): which ops and signals
 * --rank and --group select, and each as a text line with fixed columns
 * or as a JSON object.  Raw strings from the inputs are cleaned for the
 * terminal (hd_report_clean()) or made valid UTF-8 for JSON.
 */
#include "config.h"

#include "hd-report-show.h"

#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-json.h"
#include "hd-report-util.h"
#include "hd-banned.h"

static gint compare_ops(gconstpointer pa, gconstpointer pb)
{
	const struct hd_op *x = *(const struct hd_op *const *)pa;
	const struct hd_op *y = *(const struct hd_op *const *)pb;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->seq_kind != y->seq_kind)
		return x->seq_kind < y->seq_kind ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	/* Same position: keep the store's order (ops live in one array). */
	return (x > y) - (x < y);
}

/* Marks the groups --group names, by id or by name. */
static bool *match_groups(const struct hd_store *s, const char *want)
{
	bool *match = g_new0(bool, s->groups->len + 1);

	for (guint i = 0; i < s->groups->len; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);

		match[i] = !want || strcmp(g->id, want) == 0 ||
			   (g->name && strcmp(g->name, want) == 0);
	}
	return match;
}

/* A signal names its group only by PG name. */
static bool signal_in_groups(const struct hd_store *s, const bool *match,
			     const char *want, const struct hd_signal *sig)
{
	if (!want)
		return true;
	if (!sig->group_name)
		return false;
	if (strcmp(sig->group_name, want) == 0)
		return true;
	for (guint i = 0; i < s->groups->len; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);

		if (match[i] && g->name &&
		    strcmp(g->name, sig->group_name) == 0)
			return true;
	}
	return false;
}

static const char *seq_kind_name(uint8_t k)
{
	switch (k) {
	case HD_SEQ_COLLECTIVE:
		return "coll";
	case HD_SEQ_P2P:
		return "p2p";
	default:
		return "ord";
	}
}

static const char *op_dtype(const struct hd_op *op)
{
	if (op->d->dtype == HD_DTYPE_OTHER && op->d->dtype_name)
		return op->d->dtype_name;
	return hd_dtype_name(op->d->dtype);
}

/* Wall-clock ns as "seconds.nanoseconds", or "-" (into buf). */
static const char *fmt_time(int64_t ns, char *buf, size_t size)
{
	if (ns == INT64_MIN)
		return "-";
	if (ns < 0)
		g_snprintf(buf, size,
			   "-%" G_GINT64_FORMAT ".%09" G_GINT64_FORMAT,
			   -(ns / 1000000000), -(ns % 1000000000));
	else
		g_snprintf(buf, size,
			   "%" G_GINT64_FORMAT ".%09" G_GINT64_FORMAT,
			   ns / 1000000000, ns % 1000000000);
	return buf;
}

static const char *fmt_int(int64_t v, int64_t none, char *buf, size_t size)
{
	if (v == none)
		return "-";
	g_snprintf(buf, size, "%" G_GINT64_FORMAT, v);
	return buf;
}

static void op_text(FILE *out, const struct hd_store *s, const struct hd_op *op)
{
	g_autofree char *src = hd_prov_format(s, &op->prov);
	g_autofree char *csrc = hd_report_clean(src);
	g_autofree char *label =
		hd_group_label(s, op->group, HD_GROUP_LABEL_SHORT);
	g_autofree char *group = hd_report_clean(label);
	g_autofree char *name =
		hd_report_clean(op->d->name ? op->d->name : "-");
	char b[6][40];
	char peer[40] = "-";

	if (op->d->peer >= 0)
		g_snprintf(peer, sizeof(peer), "%s=%d",
			   hd_op_kind_is_p2p(op->kind) ? "peer" : "root",
			   op->d->peer);
	fprintf(out, "%-8s %5s %-4s %6s %-14s %-9s %9s %9s %-9s %-5s %-8s %s",
		group, fmt_int(op->rank, -1, b[0], sizeof(b[0])),
		seq_kind_name(op->seq_kind),
		fmt_int(op->seq, -1, b[1], sizeof(b[1])),
		hd_op_kind_name(op->kind), hd_op_state_name(op->state),
		fmt_int(op->d->count_in, -1, b[2], sizeof(b[2])),
		fmt_int(op->d->count_out, -1, b[3], sizeof(b[3])), op_dtype(op),
		op->d->redop ? hd_redop_name(op->d->redop) : "-", peer, name);
	fprintf(out, " %s", fmt_time(op->t_enqueue_ns, b[4], sizeof(b[4])));
	fprintf(out, " %s", fmt_time(op->t_start_ns, b[5], sizeof(b[5])));
	fprintf(out, " %s", fmt_time(op->t_end_ns, b[4], sizeof(b[4])));
	fprintf(out, " %s\n", csrc);
}

static void signal_text(FILE *out, const struct hd_store *s,
			const struct hd_signal *sig)
{
	g_autofree char *src = hd_prov_format(s, &sig->prov);
	g_autofree char *csrc = hd_report_clean(src);
	g_autofree char *text = hd_report_clean(sig->text);
	g_autofree char *group =
		hd_report_clean(sig->group_name ? sig->group_name : "-");
	GString *where = g_string_new(NULL);
	char rank[16] = "-";

	if (sig->rank >= 0)
		g_snprintf(rank, sizeof(rank), "%d", sig->rank);
	if (sig->seq >= 0)
		g_string_append_printf(where, " seq=%" G_GINT64_FORMAT,
				       sig->seq);
	if (sig->last_enqueued != INT64_MIN)
		g_string_append_printf(where, " E=%" G_GINT64_FORMAT,
				       sig->last_enqueued);
	if (sig->last_completed != INT64_MIN)
		g_string_append_printf(where, " C=%" G_GINT64_FORMAT,
				       sig->last_completed);
	fprintf(out, "%-13s %-16s %5s %-8s%s %s%s%s\n",
		hd_signal_cat_name(sig->cat),
		hd_report_signal_type_name(sig->type), rank, group, where->str,
		csrc, *text ? ": " : "", text);
	g_string_free(where, TRUE);
}

static json_t *op_json(const struct hd_store *s, const struct hd_op *op)
{
	g_autofree char *src = hd_prov_format(s, &op->prov);
	const struct hd_group *g = hd_store_group_at(s, op->group);
	json_t *o = json_object();

	json_object_set_new(o, "group", hd_json_string(g->id));
	json_object_set_new(o, "group_name", hd_json_string(g->name));
	json_object_set_new(o, "rank", hd_json_int_or_null(op->rank, -1));
	json_object_set_new(
		o, "seq_kind",
		json_string(op->seq_kind == HD_SEQ_COLLECTIVE ? "collective"
			    : op->seq_kind == HD_SEQ_P2P      ? "p2p"
							      : "ordinal"));
	json_object_set_new(o, "seq", hd_json_int_or_null(op->seq, -1));
	json_object_set_new(o, "kind", json_string(hd_op_kind_name(op->kind)));
	json_object_set_new(o, "name", hd_json_string(op->d->name));
	json_object_set_new(o, "state",
			    json_string(hd_op_state_name(op->state)));
	json_object_set_new(o, "count_in",
			    hd_json_int_or_null(op->d->count_in, -1));
	json_object_set_new(o, "count_out",
			    hd_json_int_or_null(op->d->count_out, -1));
	json_object_set_new(o, "shape_in", hd_json_string(op->d->shape_in));
	json_object_set_new(o, "shape_out", hd_json_string(op->d->shape_out));
	json_object_set_new(o, "dtype", hd_json_string(op_dtype(op)));
	json_object_set_new(o, "redop",
			    op->d->redop
				    ? json_string(hd_redop_name(op->d->redop))
				    : json_null());
	json_object_set_new(o, hd_op_kind_is_p2p(op->kind) ? "peer" : "root",
			    hd_json_int_or_null(op->d->peer, -1));
	json_object_set_new(o, "op_count",
			    hd_json_int_or_null(op->op_count, -1));
	json_object_set_new(o, "t_enqueue_ns",
			    hd_json_int_or_null(op->t_enqueue_ns, INT64_MIN));
	json_object_set_new(o, "t_start_ns",
			    hd_json_int_or_null(op->t_start_ns, INT64_MIN));
	json_object_set_new(o, "t_end_ns",
			    hd_json_int_or_null(op->t_end_ns, INT64_MIN));
	json_object_set_new(o, "source", hd_json_string(src));
	return o;
}

static json_t *signal_json(const struct hd_store *s,
			   const struct hd_signal *sig)
{
	g_autofree char *src = hd_prov_format(s, &sig->prov);
	json_t *o = json_object();

	json_object_set_new(o, "category",
			    json_string(hd_signal_cat_name(sig->cat)));
	json_object_set_new(o, "type",
			    json_string(hd_report_signal_type_name(sig->type)));
	json_object_set_new(o, "rank", hd_json_int_or_null(sig->rank, -1));
	json_object_set_new(o, "host", hd_json_string(sig->host));
	json_object_set_new(
		o, "pid", sig->pid > 0 ? json_integer(sig->pid) : json_null());
	json_object_set_new(o, "peer", hd_json_string(sig->peer));
	json_object_set_new(o, "peer_rank",
			    hd_json_int_or_null(sig->peer_rank, -1));
	json_object_set_new(o, "time_ns",
			    hd_json_int_or_null(sig->time_ns, INT64_MIN));
	json_object_set_new(o, "time_is_local",
			    json_boolean(sig->time_is_local));
	json_object_set_new(o, "group", hd_json_string(sig->group_name));
	json_object_set_new(o, "seq", hd_json_int_or_null(sig->seq, -1));
	json_object_set_new(o, "last_enqueued",
			    hd_json_int_or_null(sig->last_enqueued, INT64_MIN));
	json_object_set_new(
		o, "last_completed",
		hd_json_int_or_null(sig->last_completed, INT64_MIN));
	json_object_set_new(o, "op_name", hd_json_string(sig->op_name));
	json_object_set_new(o, "numel_in",
			    hd_json_int_or_null(sig->numel_in, -1));
	json_object_set_new(o, "numel_out",
			    hd_json_int_or_null(sig->numel_out, -1));
	json_object_set_new(o, "code", json_integer(sig->code));
	json_object_set_new(o, "source", hd_json_string(src));
	json_object_set_new(o, "text", hd_json_string(sig->text));
	return o;
}

void hd_report_show_select(const struct hd_store *s,
			   const struct hd_show_filter *f, GPtrArray *ops,
			   GPtrArray *signals)
{
	g_autofree bool *match = match_groups(s, f->group);

	for (guint i = 0; i < s->ops->len; i++) {
		struct hd_op *op = &g_array_index(s->ops, struct hd_op, i);

		if (f->rank >= 0 && op->rank != f->rank)
			continue;
		if (op->group >= s->groups->len || !match[op->group])
			continue;
		g_ptr_array_add(ops, op);
	}
	g_ptr_array_sort(ops, compare_ops);
	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (f->rank >= 0 && sig->rank != f->rank)
			continue;
		if (!signal_in_groups(s, match, f->group, sig))
			continue;
		g_ptr_array_add(signals, sig);
	}
}

void hd_report_show_text(FILE *out, const struct hd_store *s,
			 const GPtrArray *ops, const GPtrArray *signals)
{
	fprintf(out, "ops: %u\n", ops->len);
	if (ops->len)
		fprintf(out,
			"%-8s %5s %-4s %6s %-14s %-9s %9s %9s %-9s %-5s %-8s %s\n",
			"group", "rank", "seq", "", "kind", "state", "count_in",
			"count_out", "dtype", "redop", "peer",
			"name enqueue start end source");
	for (guint i = 0; i < ops->len; i++)
		op_text(out, s, g_ptr_array_index(ops, i));
	fprintf(out, "\nsignals: %u\n", signals->len);
	for (guint i = 0; i < signals->len; i++)
		signal_text(out, s, g_ptr_array_index(signals, i));
}

void hd_report_show_json(FILE *out, const struct hd_store *s,
			 const GPtrArray *ops, const GPtrArray *signals)
{
	g_autoptr(json_t) doc = json_object();
	json_t *jops = json_array();
	json_t *jsigs = json_array();

	for (guint i = 0; i < ops->len; i++)
		json_array_append_new(jops,
				      op_json(s, g_ptr_array_index(ops, i)));
	for (guint i = 0; i < signals->len; i++)
		json_array_append_new(
			jsigs, signal_json(s, g_ptr_array_index(signals, i)));
	json_object_set_new(doc, "ops", jops);
	json_object_set_new(doc, "signals", jsigs);
	if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0)
		fputc('\n', out);
}
