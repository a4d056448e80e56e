/*
 * NCCL Inspector output (docs/format-nccl-inspector.md): the JSON objects
 * NCCL's inspector profiler plugin writes, one per collective per
 * communicator, one line each or pretty-printed:
 *
 *   {"header": {"id": "0x7f8c496ae9f661", "rank": 2, "n_ranks": 8, ...},
 *    "metadata": {"dump_timestamp_us": 1748030377748202,
 *                 "hostname": "node-a", "pid": 1639453, ...},
 *    "coll_perf": {"coll": "AllReduce", "coll_sn": 1407,
 *                  "coll_msg_size_bytes": 17179869184,
 *                  "coll_exec_time_us": 61974, "coll_busbw_gbs": 485.1}}
 *
 * A file holds millions of them, so they are summed as they are read:
 * one info signal of type coll_timing per communicator and rank, with
 * the last collective (seq = its coll_sn, op_name), how many were read
 * (code), the mean and the largest execution time in us (numel_out,
 * numel_in), the last dump time (UTC) and a text that says it all.  They
 * are timing evidence only: the engine notes them and never makes a
 * fault of them (src/engine/hd-inspector.c).
 *
 * Ownership: the object being read and the sums are per call; the store
 * owns what is added.
 */
#include "config.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "formats.h"
#include "parse-util.h"
#include "hd-lines.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's state. */
#define INSP_OBJECT ((size_t)64 << 10) /* bytes of one object */
#define INSP_SUMS   4096 /* communicator-rank pairs of one input */

/* What is kept of one communicator and rank. */
struct sum {
	char comm[40];
	int64_t rank, nranks, pid;
	const char *host;
	int64_t count;
	int64_t last_sn;
	const char *last_coll;
	int64_t last_ts_us; /* -1 unknown */
	double total_us, max_us;
	int64_t max_sn;
	const char *max_coll;
	uint64_t first_line;
};

struct insp {
	struct hd_store *store;
	struct hd_input *in;
	uint32_t input;
	GHashTable *index; /* "comm/rank" -> index + 1 in sums */
	GArray *sums; /* struct sum */
	GString *obj; /* the object being gathered */
	int depth; /* braces open in obj, outside strings */
	bool in_str, esc;
	uint64_t obj_line;
	bool dropped;
};

static const cJSON *item(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* A whole number in [0, 2^53), else -1. */
static int64_t num(const cJSON *o, const char *k)
{
	const cJSON *v = item(o, k);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    v->valuedouble >= 9007199254740992.0)
		return -1;
	return (int64_t)v->valuedouble;
}

static double real(const cJSON *o, const char *k)
{
	const cJSON *v = item(o, k);

	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
	    v->valuedouble > 1e15)
		return -1;
	return v->valuedouble;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = item(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void skip(struct insp *p, uint64_t line, const char *why)
{
	p->in->skipped++;
	hd_input_warn(p->in, line, "%s", why);
}

/* One whole object: added to the sum of its communicator and rank. */
static void record(struct insp *p, const char *text, size_t len, uint64_t line)
{
	cJSON *j = cJSON_ParseWithLength(text, len);
	const cJSON *h, *m, *c;
	const char *comm, *coll, *host;
	int64_t rank, sn, ts;
	double us;
	char key[64];
	struct sum *s;
	gpointer at;

	if (!j) {
		skip(p, line, "an NCCL Inspector record that does not parse");
		return;
	}
	h = item(j, "header");
	m = item(j, "metadata");
	c = item(j, "coll_perf");
	comm = str(h, "id");
	rank = num(h, "rank");
	coll = str(c, "coll");
	sn = num(c, "coll_sn");
	us = real(c, "coll_exec_time_us");
	if (!comm || rank < 0 || rank >= HD_MAX_RANKS || !coll || sn < 0 ||
	    sn >= HD_MAX_SEQ) {
		skip(p, line,
		     "an NCCL Inspector record without header.id, header.rank, "
		     "coll_perf.coll or coll_perf.coll_sn");
		cJSON_Delete(j);
		return;
	}
	g_snprintf(key, sizeof(key), "%.40s/%d", comm, (int)rank);
	if (!g_hash_table_lookup_extended(p->index, key, NULL, &at)) {
		struct sum z = { .rank = rank,
				 .nranks = num(h, "n_ranks"),
				 .pid = num(m, "pid"),
				 .last_sn = -1,
				 .last_ts_us = -1,
				 .max_sn = -1,
				 .first_line = line };

		if (p->sums->len >= INSP_SUMS) {
			if (!p->dropped)
				hd_input_warn(
					p->in, line,
					"more than %d communicator ranks: "
					"the rest skipped",
					INSP_SUMS);
			p->dropped = true;
			p->in->skipped++;
			cJSON_Delete(j);
			return;
		}
		g_strlcpy(z.comm, comm, sizeof(z.comm));
		host = str(m, "hostname");
		z.host = host ? hd_intern_len(host, MIN(strlen(host), 256))
			      : NULL;
		g_array_append_val(p->sums, z);
		at = GUINT_TO_POINTER(p->sums->len);
		g_hash_table_insert(p->index, g_strdup(key), at);
	}
	s = &g_array_index(p->sums, struct sum, GPOINTER_TO_UINT(at) - 1);
	s->count++;
	if (sn >= s->last_sn) {
		s->last_sn = sn;
		s->last_coll = hd_intern_len(coll, MIN(strlen(coll), 64));
	}
	ts = num(m, "dump_timestamp_us");
	if (ts > s->last_ts_us)
		s->last_ts_us = ts;
	if (us >= 0) {
		s->total_us += us;
		if (us > s->max_us || s->max_sn < 0) {
			s->max_us = us;
			s->max_sn = sn;
			s->max_coll =
				hd_intern_len(coll, MIN(strlen(coll), 64));
		}
	}
	p->in->records++;
	cJSON_Delete(j);
}

/* Gathers text into objects by counting braces outside strings. */
static void text_line(struct insp *p, const char *line, size_t n,
		      uint64_t lineno)
{
	for (size_t i = 0; i < n; i++) {
		char ch = line[i];

		if (p->depth == 0) {
			if (ch == '{') {
				g_string_truncate(p->obj, 0);
				p->obj_line = lineno;
				p->in_str = p->esc = false;
			} else if (!g_ascii_isspace(ch) && ch != ',' &&
				   ch != '[' && ch != ']') {
				skip(p, lineno, "text outside any JSON object");
				return;
			} else {
				continue;
			}
		}
		if (p->obj->len >= INSP_OBJECT) {
			skip(p, p->obj_line,
			     "an NCCL Inspector record over 64 KiB");
			p->depth = 0;
			g_string_truncate(p->obj, 0);
			return;
		}
		g_string_append_c(p->obj, ch);
		if (p->in_str) {
			if (p->esc)
				p->esc = false;
			else if (ch == '\\')
				p->esc = true;
			else if (ch == '"')
				p->in_str = false;
		} else if (ch == '"') {
			p->in_str = true;
		} else if (ch == '{') {
			p->depth++;
		} else if (ch == '}' && --p->depth == 0) {
			record(p, p->obj->str, p->obj->len, p->obj_line);
		}
	}
	if (p->depth > 0)
		g_string_append_c(p->obj, '\n');
}

static void emit(struct insp *p)
{
	for (guint i = 0; i < p->sums->len; i++) {
		const struct sum *s = &g_array_index(p->sums, struct sum, i);
		double mean = s->count ? s->total_us / (double)s->count : 0;
		g_autofree char *of =
			s->nranks > 0 ? g_strdup_printf("/%d", (int)s->nranks)
				      : g_strdup("");
		g_autofree char *text = NULL;
		struct hd_signal sig;

		text = g_strdup_printf(
			"NCCL Inspector: comm %s rank %d%s: %" G_GINT64_FORMAT
			" collectives, the last %s #%" G_GINT64_FORMAT
			"; exec time mean %.0f us, max %.0f us (%s #%" G_GINT64_FORMAT
			")",
			s->comm, (int)s->rank, of, s->count,
			s->last_coll ? s->last_coll : "?", s->last_sn, mean,
			s->max_us, s->max_coll ? s->max_coll : "?", s->max_sn);
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_COLL_TIMING;
		sig.rank = (int32_t)s->rank;
		sig.host = s->host;
		sig.pid =
			s->pid > 0 && s->pid <= INT32_MAX ? (int32_t)s->pid : 0;
		sig.group_name = hd_intern(s->comm);
		sig.seq = s->last_sn;
		sig.op_name = s->last_coll;
		sig.code = s->count > INT32_MAX ? INT32_MAX : (int32_t)s->count;
		sig.numel_in = (int64_t)s->max_us;
		sig.numel_out = (int64_t)mean;
		if (s->last_ts_us > 0 && s->last_ts_us < HD_TIME_NS_MAX / 1000)
			sig.time = hd_time_make(s->last_ts_us * 1000,
						HD_CLOCK_UTC);
		sig.text = text;
		sig.prov.input = p->input;
		sig.prov.kind = HD_PROV_LINE;
		sig.prov.at = s->first_line;
		hd_store_add_signal(p->store, &sig);
	}
}

bool nccl_inspector_parse(struct hd_reader *rd, struct hd_store *store,
			  uint32_t input, GError **error)
{
	g_autoptr(hd_lines) lines = hd_lines_new(rd);
	g_autoptr(GError) err = NULL;
	struct insp p = { .store = store, .input = input };
	const char *line;
	size_t len;
	bool cut;

	p.in = hd_store_input(store, input);
	p.in->kind = HD_INPUT_NCCL_INSPECTOR;
	p.index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	p.sums = g_array_new(FALSE, TRUE, sizeof(struct sum));
	p.obj = g_string_new(NULL);
	while (hd_lines_next(lines, &line, &len, &cut, &err)) {
		if (cut) {
			skip(&p, hd_lines_lineno(lines), "line cut at 64 KiB");
			p.depth = 0;
			continue;
		}
		text_line(&p, line, len, hd_lines_lineno(lines));
	}
	if (p.depth > 0) {
		p.in->truncated = true;
		skip(&p, p.obj_line, "an NCCL Inspector record cut at the end");
	}
	emit(&p);
	g_hash_table_unref(p.index);
	g_array_free(p.sums, TRUE);
	g_string_free(p.obj, TRUE);
	return pu_end_lines(p.in, hd_lines_lineno(lines), g_steal_pointer(&err),
			    error);
}
