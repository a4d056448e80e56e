/*
 * The listing of `hangdoc show` (hd-report-show.h): which ops and signals
 * --rank, --group, --seq, --state and --last select, and each as a row of
 * aligned text columns (UTC times) or as a JSON object.  Raw strings from the inputs are cleaned for the
 * terminal (hd_report_clean()) or made valid UTF-8 for JSON.
 */
#include "config.h"

#include "hd-report-show.h"

#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-const.h"
#include "hd-json.h"
#include "hd-report-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

static gint compare_ops(gconstpointer pa, gconstpointer pb)
{
	const struct hd_op *x = *(const struct hd_op *const *)pa;
	const struct hd_op *y = *(const struct hd_op *const *)pb;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (hd_op_rank(x) != hd_op_rank(y))
		return hd_op_rank(x) < hd_op_rank(y) ? -1 : 1;
	/* processes of unknown rank: each its own, after the unknown ones */
	if (hd_op_anon(x) != hd_op_anon(y))
		return hd_op_anon(x) < hd_op_anon(y) ? -1 : 1;
	if (hd_op_is_anon(x) && x->input != y->input)
		return x->input < y->input ? -1 : 1;
	if (x->seq_kind != y->seq_kind)
		return x->seq_kind < y->seq_kind ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	/* Same position: keep the store's order (ops live in one array). */
	return (x > y) - (x < y);
}

/* Marks the groups --group names, by id or by name. */
static bool *match_groups(const struct hd_store *s, const char *const *want)
{
	bool *match = g_new0(bool, s->groups->len + 1);

	for (guint i = 0; i < s->groups->len; i++)
		match[i] = !want ||
			   hd_report_group_named(hd_store_group_at(s, i), want);
	return match;
}

/* A signal names its group only by PG name. */
static bool signal_in_groups(const struct hd_store *s, const bool *match,
			     const char *const *want,
			     const struct hd_signal *sig)
{
	if (!want)
		return true;
	if (!sig->group_name)
		return false;
	for (const char *const *w = want; *w; w++)
		if (strcmp(sig->group_name, *w) == 0)
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
	if (hd_op_desc(op)->dtype == HD_DTYPE_OTHER &&
	    hd_op_desc(op)->dtype_name)
		return hd_op_desc(op)->dtype_name;
	return hd_dtype_name(hd_op_desc(op)->dtype);
}

/*
 * A table of text cells printed in columns as wide as their widest cell;
 * cells are cleaned UTF-8, so a character is a column.
 */
struct table {
	guint ncols;
	const char *align; /* 'l' or 'r' per column */
	GPtrArray *cells; /* char *, row-major, owned */
};

static void table_init(struct table *t, guint ncols, const char *align)
{
	g_assert(strlen(align) == ncols);
	t->ncols = ncols;
	t->align = align;
	t->cells = g_ptr_array_new_with_free_func(g_free);
}

static void table_clear(struct table *t)
{
	g_clear_pointer(&t->cells, g_ptr_array_unref);
}

/* Appends one cell (transfer full); rows fill up left to right. */
static void table_add(struct table *t, char *cell)
{
	g_ptr_array_add(t->cells, cell);
}

/*
 * Writes the rows.  A column empty in every row is left out; the last
 * column is not padded, so no line ends in blanks.
 */
static void table_write(FILE *out, const struct table *t)
{
	g_autofree long *width = g_new0(long, t->ncols);
	guint last = 0;

	g_assert(t->cells->len % t->ncols == 0);
	for (guint i = 0; i < t->cells->len; i++) {
		long w = g_utf8_strlen(g_ptr_array_index(t->cells, i), -1);

		if (w > width[i % t->ncols])
			width[i % t->ncols] = w;
	}
	for (guint c = 0; c < t->ncols; c++)
		if (width[c])
			last = c;
	for (guint r = 0; r < t->cells->len / t->ncols; r++) {
		bool first = true;

		for (guint c = 0; c <= last; c++) {
			const char *cell =
				g_ptr_array_index(t->cells, r * t->ncols + c);
			long pad = width[c] - g_utf8_strlen(cell, -1);

			if (!width[c])
				continue;
			if (!first)
				fputc(' ', out);
			first = false;
			if (t->align[c] == 'r')
				fprintf(out, "%*s", (int)pad, "");
			fputs(cell, out);
			if (t->align[c] != 'r' && c != last)
				fprintf(out, "%*s", (int)pad, "");
		}
		fputc('\n', out);
	}
}

/* The UTC date and time of wall-clock ns, or NULL past GDateTime's range. */
static GDateTime *utc_of(int64_t ns)
{
	int64_t sec = ns / 1000000000;

	if (ns % 1000000000 < 0)
		sec--;
	return g_date_time_new_from_unix_utc(sec);
}

/*
 * Wall-clock ns as UTC "2023-11-14 22:13:20.000001", or only the time of
 * day without with_date; "-" when unknown (transfer full).  Microseconds:
 * the finest any source records a wall-clock time in is the NCCL log's.
 */
static char *fmt_time(int64_t ns, bool with_date, enum hd_clock clock)
{
	g_autoptr(GDateTime) t = NULL;
	int64_t frac;
	g_autofree char *whole = NULL;

	if (ns == INT64_MIN)
		return g_strdup("-");
	/* not UTC (a trace's own clock): the time says its clock */
	if (clock != HD_CLOCK_UTC)
		return hd_time_format(hd_time_make(ns, clock), 6);
	t = utc_of(ns);
	if (!t)
		return g_strdup_printf("%" G_GINT64_FORMAT " ns", ns);
	frac = ns % 1000000000;
	if (frac < 0)
		frac += 1000000000;
	whole = g_date_time_format(t, with_date ? "%Y-%m-%d %H:%M:%S"
						: "%H:%M:%S");
	return g_strdup_printf("%s.%06" G_GINT64_FORMAT "%s", whole,
			       frac / 1000, with_date ? " UTC" : "");
}

/*
 * The one UTC day every known time of ops falls on, "2023-11-14", or
 * NULL when they span days or none is known (transfer full).
 */
static char *common_day(const struct hd_store *s, const GPtrArray *ops)
{
	char *day = NULL;

	for (guint i = 0; i < ops->len; i++) {
		const struct hd_op *op = g_ptr_array_index(ops, i);
		const int64_t ts[] = { hd_op_t_enqueue(s, op),
				       hd_op_t_start(s, op),
				       hd_op_t_end(s, op) };

		if (hd_op_t_enqueue(s, op) != INT64_MIN &&
		    hd_op_time(s, op, hd_op_t_enqueue(s, op)).clock !=
			    HD_CLOCK_UTC)
			goto out_mixed;

		for (size_t k = 0; k < G_N_ELEMENTS(ts); k++) {
			g_autoptr(GDateTime) t = NULL;
			g_autofree char *d = NULL;

			if (ts[k] == INT64_MIN)
				continue;
			t = utc_of(ts[k]);
			if (!t)
				goto out_mixed;
			d = g_date_time_format(t, "%Y-%m-%d");
			if (!day)
				day = g_steal_pointer(&d);
			else if (strcmp(day, d) != 0)
				goto out_mixed;
		}
	}
	return day;
out_mixed:
	g_free(day);
	return NULL;
}

static char *fmt_int(int64_t v, int64_t none)
{
	if (v == none)
		return g_strdup("-");
	return g_strdup_printf("%" G_GINT64_FORMAT, v);
}

enum { OP_COLS = 16 };
static const char op_align[] = "lrlrllrrllllllll";

static void op_row(struct table *t, const struct hd_store *s,
		   const struct hd_op *op, bool with_date)
{
	g_autofree char *src = hd_op_source(s, op);
	g_autofree char *label =
		hd_group_label(s, op->group, HD_GROUP_LABEL_SHORT);

	table_add(t, hd_report_clean(label));
	table_add(t, fmt_int(hd_op_rank(op), -1));
	table_add(t, g_strdup(seq_kind_name(op->seq_kind)));
	table_add(t, fmt_int(op->seq, -1));
	table_add(t, g_strdup(hd_op_kind_name(op->kind)));
	table_add(t, g_strdup(hd_op_state_name(op->state)));
	table_add(t, fmt_int(hd_op_desc(op)->count_in, -1));
	table_add(t, fmt_int(hd_op_desc(op)->count_out, -1));
	table_add(t, hd_report_clean(op_dtype(op)));
	table_add(t, g_strdup(hd_op_desc(op)->redop
				      ? hd_redop_name(hd_op_desc(op)->redop)
				      : "-"));
	if (hd_op_desc(op)->peer >= 0)
		table_add(t,
			  g_strdup_printf("%s=%d",
					  hd_op_kind_is_p2p(op->kind) ? "peer"
								      : "root",
					  hd_op_desc(op)->peer));
	else
		table_add(t, g_strdup("-"));
	table_add(t, hd_report_clean(hd_op_desc(op)->name ? hd_op_desc(op)->name
							  : "-"));
	enum hd_clock clock = op->input < s->inputs->len
				      ? hd_store_input(s, op->input)->op_clock
				      : HD_CLOCK_NONE;

	table_add(t, fmt_time(hd_op_t_enqueue(s, op), with_date, clock));
	table_add(t, fmt_time(hd_op_t_start(s, op), with_date, clock));
	table_add(t, fmt_time(hd_op_t_end(s, op), with_date, clock));
	table_add(t, hd_report_clean(src));
}

enum { SIGNAL_COLS = 6 };
static const char signal_align[] = "llrlll";

static void signal_row(struct table *t, const struct hd_store *s,
		       const struct hd_signal *sig)
{
	g_autofree char *src = hd_prov_format(s, &sig->prov);
	g_autofree char *csrc = hd_report_clean(src);
	g_autofree char *text = hd_report_clean(sig->text);
	GString *where = g_string_new(NULL);

	/* the listing shows seq and code as stored, whatever the type */
	if (hd_signal_stored_seq(sig) >= 0)
		g_string_append_printf(where, " seq=%" G_GINT64_FORMAT,
				       hd_signal_stored_seq(sig));
	if (sig->last_enqueued != INT64_MIN)
		g_string_append_printf(where, " E=%" G_GINT64_FORMAT,
				       sig->last_enqueued);
	if (sig->last_completed != INT64_MIN)
		g_string_append_printf(where, " C=%" G_GINT64_FORMAT,
				       sig->last_completed);
	table_add(t, g_strdup(hd_signal_cat_name(sig->cat)));
	table_add(t, g_strdup(hd_signal_type_name(sig->type)));
	table_add(t, fmt_int(sig->rank, -1));
	table_add(t, hd_report_clean(sig->group_name ? sig->group_name : "-"));
	table_add(t, g_strdup(where->len ? where->str + 1 : ""));
	table_add(t, g_strdup_printf("%s%s%s", csrc, *text ? ": " : "", text));
	g_string_free(where, TRUE);
}

static json_t *op_json(const struct hd_store *s, const struct hd_op *op)
{
	g_autofree char *src = hd_op_source(s, op);
	const struct hd_group *g = hd_store_group_at(s, op->group);
	json_t *o = json_object();

	json_object_set_new(o, "group", hd_json_string(g->id));
	json_object_set_new(o, "group_name", hd_json_string(g->name));
	json_object_set_new(o, "rank", hd_json_int_or_null(hd_op_rank(op), -1));
	json_object_set_new(
		o, "seq_kind",
		json_string(op->seq_kind == HD_SEQ_COLLECTIVE ? "collective"
			    : op->seq_kind == HD_SEQ_P2P      ? "p2p"
							      : "ordinal"));
	json_object_set_new(o, "seq", hd_json_int_or_null(op->seq, -1));
	json_object_set_new(o, "kind", json_string(hd_op_kind_name(op->kind)));
	json_object_set_new(o, "name", hd_json_string(hd_op_desc(op)->name));
	json_object_set_new(o, "state",
			    json_string(hd_op_state_name(op->state)));
	json_object_set_new(o, "count_in",
			    hd_json_int_or_null(hd_op_desc(op)->count_in, -1));
	json_object_set_new(o, "count_out",
			    hd_json_int_or_null(hd_op_desc(op)->count_out, -1));
	json_object_set_new(o, "shape_in",
			    hd_json_string(hd_op_desc(op)->shape_in));
	json_object_set_new(o, "shape_out",
			    hd_json_string(hd_op_desc(op)->shape_out));
	json_object_set_new(o, "dtype", hd_json_string(op_dtype(op)));
	json_object_set_new(
		o, "redop",
		hd_op_desc(op)->redop
			? json_string(hd_redop_name(hd_op_desc(op)->redop))
			: json_null());
	json_object_set_new(o, hd_op_kind_is_p2p(op->kind) ? "peer" : "root",
			    hd_json_int_or_null(hd_op_desc(op)->peer, -1));
	json_object_set_new(o, "op_count",
			    hd_json_int_or_null(hd_op_op_count(s, op), -1));
	json_object_set_new(
		o, "t_enqueue_ns",
		hd_json_int_or_null(hd_op_t_enqueue(s, op), INT64_MIN));
	json_object_set_new(
		o, "t_start_ns",
		hd_json_int_or_null(hd_op_t_start(s, op), INT64_MIN));
	json_object_set_new(o, "t_end_ns",
			    hd_json_int_or_null(hd_op_t_end(s, op), INT64_MIN));
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
			    json_string(hd_signal_type_name(sig->type)));
	json_object_set_new(o, "rank", hd_json_int_or_null(sig->rank, -1));
	json_object_set_new(o, "host", hd_json_string(sig->host));
	json_object_set_new(
		o, "pid", sig->pid > 0 ? json_integer(sig->pid) : json_null());
	json_object_set_new(o, "peer", hd_json_string(sig->peer));
	json_object_set_new(o, "peer_rank",
			    hd_json_int_or_null(sig->peer_rank, -1));
	json_object_set_new(o, "time_ns",
			    hd_json_int_or_null(sig->time.ns, INT64_MIN));
	json_object_set_new(o, "time_clock",
			    json_string(hd_clock_name(sig->time.clock)));
	json_object_set_new(o, "group", hd_json_string(sig->group_name));
	json_object_set_new(o, "seq",
			    hd_json_int_or_null(hd_signal_stored_seq(sig), -1));
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
	json_object_set_new(o, "code",
			    json_integer(hd_signal_stored_code(sig)));
	json_object_set_new(o, "source", hd_json_string(src));
	json_object_set_new(o, "text", hd_json_string(sig->text));
	return o;
}

static bool seq_selected(const struct hd_show_filter *f, int64_t seq)
{
	if (f->seq_min < 0 && f->seq_max < 0)
		return true;
	return seq >= f->seq_min && seq <= f->seq_max;
}

/* Keeps the last n ops of each run of one group and rank (ops sorted). */
static void keep_last(GPtrArray *ops, guint from, int n)
{
	guint out = from;
	guint i = from;

	while (i < ops->len) {
		const struct hd_op *op = g_ptr_array_index(ops, i);
		guint end = i;

		while (end < ops->len) {
			const struct hd_op *next = g_ptr_array_index(ops, end);

			if (next->group != op->group ||
			    hd_op_rank(next) != hd_op_rank(op))
				break;
			end++;
		}
		for (guint k = end - i > (guint)n ? end - (guint)n : i; k < end;
		     k++)
			ops->pdata[out++] = ops->pdata[k];
		i = end;
	}
	g_ptr_array_set_size(ops, out);
}

void hd_report_show_select(const struct hd_store *s,
			   const struct hd_show_filter *f, GPtrArray *ops,
			   GPtrArray *signals)
{
	g_autofree bool *match = match_groups(s, f->groups);
	guint from = ops->len;

	for (guint i = 0; i < s->ops->len; i++) {
		struct hd_op *op = &g_array_index(s->ops, struct hd_op, i);

		if (f->want_rank && !f->want_rank(f->rank_data, hd_op_rank(op)))
			continue;
		if (op->group >= s->groups->len || !match[op->group])
			continue;
		if (!seq_selected(f, op->seq))
			continue;
		if (f->states && !(f->states & (1u << op->state)))
			continue;
		g_ptr_array_add(ops, op);
	}
	g_ptr_array_sort(ops, compare_ops);
	if (f->last > 0)
		keep_last(ops, from, f->last);
	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (f->want_rank && !f->want_rank(f->rank_data, sig->rank))
			continue;
		if (!signal_in_groups(s, match, f->groups, sig))
			continue;
		if (!seq_selected(f, hd_signal_stored_seq(sig)))
			continue;
		g_ptr_array_add(signals, sig);
	}
}

void hd_report_show_text(FILE *out, const struct hd_store *s,
			 const GPtrArray *ops, const GPtrArray *signals)
{
	g_autofree char *day = common_day(s, ops);
	g_autofree char *n = hd_report_count(ops->len);
	struct table t;

	if (day)
		fprintf(out, "ops: %s (times UTC, %s)\n", n, day);
	else if (ops->len)
		fprintf(out, "ops: %s (times with their dates and clocks)\n",
			n);
	else
		fprintf(out, "ops: 0\n");
	if (ops->len) {
		static const char *const head[OP_COLS] = {
			"group",    "rank",    "seq",	   "#",
			"kind",	    "state",   "count_in", "count_out",
			"dtype",    "redop",   "peer",	   "name",
			"enqueued", "started", "ended",	   "source",
		};

		table_init(&t, OP_COLS, op_align);
		for (size_t c = 0; c < OP_COLS; c++)
			table_add(&t, g_strdup(head[c]));
		for (guint i = 0; i < ops->len; i++)
			op_row(&t, s, g_ptr_array_index(ops, i), !day);
		table_write(out, &t);
		table_clear(&t);
	}
	/* counted as the ops are: "signals: 2,047" beside "ops: 38,911" */
	g_free(n);
	n = hd_report_count(signals->len);
	fprintf(out, "\nsignals: %s\n", n);
	table_init(&t, SIGNAL_COLS, signal_align);
	for (guint i = 0; i < signals->len; i++)
		signal_row(&t, s, g_ptr_array_index(signals, i));
	table_write(out, &t);
	table_clear(&t);
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
	if (hd_json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		fputc('\n', out);
}

const char hd_show_state_names[] = "enqueued, started, completed, unknown";

bool hd_report_show_parse_states(const char *value, unsigned *states,
				 const char **bad, size_t *bad_len)
{
	static const enum hd_op_state all[] = {
		HD_STATE_ENQUEUED,
		HD_STATE_STARTED,
		HD_STATE_COMPLETED,
		HD_STATE_UNKNOWN,
	};
	const char *p = value;

	*states = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		bool found = false;

		for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
			const char *name = hd_op_state_name(all[i]);

			if (strlen(name) == len && strncmp(p, name, len) == 0) {
				*states |= 1u << all[i];
				found = true;
			}
		}
		if (!found) {
			*bad = p;
			*bad_len = len;
			return false;
		}
		if (!p[len])
			return true;
		p += len + 1;
	}
}

/* A decimal sequence number, digits only. */
static bool parse_seq_number(const char *text, int64_t *v)
{
	guint64 u;

	if (!g_ascii_isdigit(*text))
		return false;
	if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXINT64, &u, NULL))
		return false;
	*v = (int64_t)u;
	return true;
}

bool hd_report_show_parse_seq(const char *value, int64_t *min, int64_t *max)
{
	const char *dash = strchr(value, '-');
	g_autofree char *first = NULL;

	if (!dash) {
		if (!parse_seq_number(value, min))
			return false;
		*max = *min;
		return true;
	}
	first = g_strndup(value, (gsize)(dash - value));
	return parse_seq_number(first, min) &&
	       parse_seq_number(dash + 1, max) && *min <= *max;
}

static void add_rank(GHashTable *seen, GArray *ranks, int r)
{
	if (r < 0 || g_hash_table_contains(seen, GINT_TO_POINTER(r + 1)))
		return;
	g_hash_table_add(seen, GINT_TO_POINTER(r + 1));
	g_array_append_val(ranks, r);
}

GArray *hd_report_show_rank_array(const struct hd_store *s)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
	GArray *ranks = g_array_new(FALSE, FALSE, sizeof(int));

	for (guint i = 0; i < s->ops->len; i++)
		add_rank(seen, ranks,
			 hd_op_rank(&g_array_index(s->ops, struct hd_op, i)));
	for (guint i = 0; i < s->signals->len; i++)
		add_rank(seen, ranks,
			 g_array_index(s->signals, struct hd_signal, i).rank);
	g_array_sort(ranks, hd_compare_int);
	return ranks;
}

char *hd_report_show_ranks(const struct hd_store *s)
{
	g_autoptr(GArray) ranks = hd_report_show_rank_array(s);
	g_autofree char *list = hd_rank_list_text(ranks, HD_RANKS_SET);
	g_auto(GStrv) runs = g_strsplit(list, ",", -1);

	return g_strjoinv(", ", runs);
}

/* Whether a group of the store is named (by id or name) name. */
static bool store_has_group(const struct hd_store *s, const char *name)
{
	const char *const one[] = { name, NULL };

	for (guint i = 0; i < s->groups->len; i++)
		if (hd_report_group_named(hd_store_group_at(s, i), one))
			return true;
	return false;
}

/*
 * The PG names signals carry that no store group has (with logs alone,
 * PG 0 is known from the watchdog's lines only), each once, in the order
 * first met.  (transfer container)
 */
static GPtrArray *signal_only_groups(const struct hd_store *s)
{
	GPtrArray *names = g_ptr_array_new();
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

	/* the store's names and ids first: one lookup per signal */
	for (guint i = 0; i < s->groups->len; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);

		g_hash_table_add(seen, g->id);
		if (g->name)
			g_hash_table_add(seen, g->name);
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const char *name =
			g_array_index(s->signals, struct hd_signal, i)
				.group_name;

		if (name && g_hash_table_add(seen, hd_unconst(name)))
			g_ptr_array_add(names, hd_unconst(name));
	}
	return names;
}

char *hd_report_show_groups(const struct hd_store *s)
{
	GString *out = g_string_new(NULL);
	g_autoptr(GPtrArray) more = signal_only_groups(s);

	for (guint i = 0; i < s->groups->len; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);
		g_autofree char *name =
			hd_report_clean(g->name ? g->name : g->id);

		g_string_append_printf(out, "%s%s", out->len ? ", " : "", name);
	}
	for (guint i = 0; i < more->len; i++) {
		g_autofree char *name = hd_report_clean(more->pdata[i]);

		g_string_append_printf(out, "%s%s", out->len ? ", " : "", name);
	}
	return g_string_free(out, FALSE);
}

bool hd_report_show_has_group(const struct hd_store *s, const char *want)
{
	g_autoptr(GPtrArray) more = NULL;

	if (store_has_group(s, want))
		return true;
	/* a PG only signals name: its signals are shown (by name) */
	more = signal_only_groups(s);
	for (guint i = 0; i < more->len; i++)
		if (strcmp(more->pdata[i], want) == 0)
			return true;
	return false;
}
