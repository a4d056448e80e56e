/*
 * The Kineto (PyTorch profiler) Chrome-trace parser: one rank's trace in,
 * one op per NCCL collective instance out (docs: format-kineto-trace.md).
 *
 * The trace is streamed through json-scan, which hands out each event's
 * bytes.  A raw pre-filter (memmem for "nccl", "record_param_comms",
 * "c10d::", "Launch") drops the great majority of events untouched; the
 * survivors have their top-level members walked in place, launch events are
 * kept as 32-byte records, and only comm events have their args parsed with
 * cJSON.  Timestamps stay raw (integer ns, relative or absolute) until the
 * whole file, and so baseTimeNanoseconds, has been seen.
 *
 * Linking (docs/format-kineto-trace.md): kernel -> launch by correlation ->
 * innermost record_param_comms / nccl:* annotation on the launching thread
 * by time containment, with External id as a fast path.
 */
#include "config.h"

#include "formats.h"
#include "rank-name.h"

#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "hd-error.h"
#include "json-scan.h"
#include "hd-hash.h"
#include "hd-banned.h"

#define READ_CHUNK (1u << 20)
/* Relative (era C) values are below about 7.9e12 us; absolute ~1.6e15. */
#define REL_LIMIT_NS (INT64_C(7889238000000) * 1000)

struct kt_meta {
	const char *coll; /* interned Collective name */
	const char *dtype;
	const char *pg_name, *pg_desc, *pg_ranks; /* interned raw */
	int64_t in_n, out_n, seq;
	int group_size, peer_global, rank_arg;
	bool has_seq;
};

enum kt_cpu_type { KT_RPC = 0, KT_ANNOT, KT_C10D };

struct kt_cpu {
	int64_t ts, end, pid, tid, ext;
	uint64_t index;
	uint8_t type;
	bool used;
	const char *name;
	/*
	 * Raw "Input Dims" of annotations, a key of kt.dims: interned only
	 * for an annotation that becomes an op (kt_dims_interned()).
	 */
	const char *in_dims;
	struct kt_meta meta;
};

struct kt_kernel {
	int64_t ts, dur, pid, tid, corr, ext;
	uint64_t index;
	const char *name;
	struct kt_meta meta;
};

struct kt_launch {
	int64_t ts, corr, pid, tid;
};

struct kt_pg {
	const char *name, *desc;
	GArray *ranks; /* int */
};

struct kt {
	struct hd_store *store;
	struct hd_input *in;
	uint32_t input;
	GArray *kernels; /* struct kt_kernel */
	GArray *cpus; /* struct kt_cpu */
	GArray *launches; /* struct kt_launch */
	GPtrArray *pgs; /* struct kt_pg * from distributedInfo.pg_config */
	int64_t base_ns;
	bool has_base, has_rank, frac_warned, bad_args_warned;
	int rank, world_size;
	const char *host, *nccl_version;
	uint64_t nevents;
	/*
	 * This file's distinct "Input Dims" (owned) -> a slot (owned) for
	 * their interned copy, NULL until an op uses them: a trace of distinct shapes on events
	 * that match no kernel costs no strings of the input's budget
	 * (HD_BUDGET_STRINGS_PER_INPUT).
	 */
	GHashTable *dims;
};

/* The file's copy of a rendered "Input Dims".  (transfer none) */
static const char *kt_dims_local(struct kt *k, char *s)
{
	gpointer key;

	if (g_hash_table_lookup_extended(k->dims, s, &key, NULL))
		return key;
	key = g_strdup(s);
	g_hash_table_insert(k->dims, key, g_new0(const char *, 1));
	return key;
}

/* The interned copy of one of kt_dims_local()'s.  (transfer none) */
static const char *kt_dims_interned(struct kt *k, const char *local)
{
	const char **slot = g_hash_table_lookup(k->dims, local);

	if (!*slot)
		*slot = hd_intern(local);
	return *slot;
}

static void kt_pg_free(gpointer p)
{
	struct kt_pg *pg = p;

	g_array_unref(pg->ranks);
	g_free(pg);
}

static bool has(const char *p, size_t len, const char *needle, size_t n)
{
	return memmem(p, len, needle, n) != NULL;
}

/*
 * A raw JSON string value, unescaped and NUL-terminated, not interned: in
 * buf when it fits in cap bytes, else in *big, which the caller frees.
 * NULL when p is not a string.  (transfer none)
 */
static const char *raw_str_tmp(const char *p, size_t len, char *buf, size_t cap,
			       char **big)
{
	cJSON *j;

	if (len < 2 || p[0] != '"')
		return NULL;
	if (!memchr(p, '\\', len)) {
		if (len - 2 >= cap) {
			*big = g_strndup(p + 1, len - 2);
			return *big;
		}
		memcpy(buf, p + 1, len - 2);
		buf[len - 2] = '\0';
		return buf;
	}
	j = cJSON_ParseWithLength(p, len);
	if (cJSON_IsString(j))
		*big = g_strdup(j->valuestring);
	cJSON_Delete(j);
	return *big;
}

/* Interns a raw JSON string value, unescaping it when needed. */
static const char *raw_str(const char *p, size_t len)
{
	char buf[256];
	g_autofree char *big = NULL;

	return hd_intern(raw_str_tmp(p, len, buf, sizeof(buf), &big));
}

/* A number or a numeric string ("3", "[0, 1]" is not) as int64. */
static bool cj_int(const cJSON *j, int64_t *out)
{
	if (cJSON_IsNumber(j)) {
		if (j->valuedouble < -9.2e18 || j->valuedouble > 9.2e18)
			return false;
		*out = (int64_t)j->valuedouble;
		return true;
	}
	if (cJSON_IsString(j)) {
		char *e;
		long long v = strtoll(j->valuestring, &e, 10);

		if (e != j->valuestring && *e == '\0') {
			*out = v;
			return true;
		}
	}
	return false;
}

static const char *cj_str(const cJSON *obj, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(j) ? hd_intern(j->valuestring) : NULL;
}

/* Reads a member that must be an integer; warns on a wrong type. */
static bool cj_get_int(struct kt *k, const cJSON *obj, const char *key,
		       int64_t *out, uint64_t index)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!j)
		return false;
	if (cj_int(j, out))
		return true;
	if (!k->bad_args_warned)
		hd_input_warn(k->in, 0,
			      "event %" G_GUINT64_FORMAT
			      ": args '%s' has the wrong type, ignored",
			      index, key);
	k->bad_args_warned = true;
	return false;
}

static void meta_init(struct kt_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->in_n = m->out_n = m->seq = -1;
	m->group_size = m->peer_global = m->rank_arg = -1;
}

static void meta_read(struct kt *k, struct kt_meta *m, const cJSON *args,
		      uint64_t index)
{
	int64_t v;

	m->coll = cj_str(args, "Collective name");
	m->dtype = cj_str(args, "dtype");
	if (cj_get_int(k, args, "In msg nelems", &v, index) ||
	    cj_get_int(k, args, "In msg size", &v, index))
		m->in_n = v;
	if (cj_get_int(k, args, "Out msg nelems", &v, index) ||
	    cj_get_int(k, args, "Out msg size", &v, index))
		m->out_n = v;
	if (cj_get_int(k, args, "Group size", &v, index) && v > 0 &&
	    v < (1 << 24))
		m->group_size = (int)v;
	m->pg_name = cj_str(args, "Process Group Name");
	if (!m->pg_name && cj_get_int(k, args, "Process Group ID", &v, index)) {
		char buf[32];

		g_snprintf(buf, sizeof(buf), "%" G_GINT64_FORMAT, v);
		m->pg_name = hd_intern(buf);
	}
	m->pg_desc = cj_str(args, "Process Group Description");
	m->pg_ranks = cj_str(args, "Process Group Ranks");
	if (cj_get_int(k, args, "Seq", &v, index) && v >= 0) {
		m->seq = v;
		m->has_seq = true;
	}
	if ((cj_get_int(k, args, "Dst Rank", &v, index) ||
	     cj_get_int(k, args, "Src Rank", &v, index)) &&
	    v >= 0 && v < (1 << 24))
		m->peer_global = (int)v;
	if (cj_get_int(k, args, "Rank", &v, index) && v >= 0 && v < (1 << 24))
		m->rank_arg = (int)v;
}

/* NCCL kernel names, all eras (the format notes, section 6); RCCL uses the same. */
static bool is_nccl_kernel(const char *name)
{
	return g_str_has_prefix(name, "nccl") || strstr(name, "ncclKernel") ||
	       strstr(name, "ncclDevKernel") || g_str_has_prefix(name, "rccl");
}

struct ev {
	const char *ph, *cat, *name, *ts, *dur, *pid, *tid, *args;
	size_t ph_n, cat_n, name_n, ts_n, dur_n, pid_n, tid_n, args_n;
};

static void ev_fields(const char *p, size_t len, struct ev *e)
{
	size_t pos = 0, kl, vl;
	const char *key, *v;

	memset(e, 0, sizeof(*e));
	while (json_obj_next(p, p + len, &pos, &key, &kl, &v, &vl)) {
#define F(s, f)                                               \
	if (kl == sizeof(s) - 1 && memcmp(key, s, kl) == 0) { \
		e->f = v;                                     \
		e->f##_n = vl;                                \
		continue;                                     \
	}
		F("ph", ph)
		F("cat", cat)
		F("name", name)
		F("ts", ts)
		F("dur", dur)
		F("pid", pid)
		F("tid", tid)
		F("args", args)
#undef F
	}
}

/* pid/tid: int, or a string whose last digits count ("stream 7"). */
static int64_t raw_id(const char *p, size_t n)
{
	int64_t v = 0;
	size_t i = n;

	if (!p)
		return -1;
	if (json_raw_int(p, n, &v))
		return v;
	while (i > 0 && (p[i - 1] < '0' || p[i - 1] > '9'))
		i--;
	while (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9')
		i--;
	v = 0;
	for (size_t j = i;
	     j < n && p[j] >= '0' && p[j] <= '9' && v < INT64_MAX / 100; j++)
		v = v * 10 + (p[j] - '0');
	return v;
}

static bool ev_times(struct kt *k, const struct ev *e, int64_t *ts,
		     int64_t *dur, uint64_t offset)
{
	bool cut = false;

	if (!e->ts || !json_raw_fixed(e->ts, e->ts_n, 3, ts, &cut))
		return false;
	*dur = 0;
	if (e->dur && !json_raw_fixed(e->dur, e->dur_n, 3, dur, &cut))
		return false;
	if (*dur < 0)
		*dur = 0;
	if (cut && !k->frac_warned) {
		hd_input_warn(
			k->in, 0,
			"byte %" G_GUINT64_FORMAT
			": timestamp has more than 3 fraction digits, truncated to ns",
			offset);
		k->frac_warned = true;
	}
	return true;
}

static void skip_event(struct kt *k, uint64_t index, uint64_t offset,
		       const char *why)
{
	k->in->skipped++;
	hd_input_warn(k->in, 0,
		      "event %" G_GUINT64_FORMAT " at byte %" G_GUINT64_FORMAT
		      ": %s, skipped",
		      index, offset, why);
}

/*
 * Whether an event can be a comm record, from its raw cat and name only
 * (walking the members until both are seen: normally the first three).
 */
static bool prefilter(const char *p, size_t len)
{
	size_t pos = 0, kl, vl, cl = 0, nl = 0;
	const char *key, *v, *cat = NULL, *name = NULL;

	while ((!cat || !name) &&
	       json_obj_next(p, p + len, &pos, &key, &kl, &v, &vl)) {
		if (kl == 3 && memcmp(key, "cat", 3) == 0) {
			cat = v;
			cl = vl;
		} else if (kl == 4 && memcmp(key, "name", 4) == 0) {
			name = v;
			nl = vl;
		}
	}
	if (!cat || !name || cl < 2 || nl < 2)
		return false;
	cat++;
	cl -= 2;
	name++;
	nl -= 2;
	switch (cat[0]) {
	case 'k':
	case 'K': /* kernel, Kernel (legacy): ^nccl, ncclKernel, ncclDevKernel */
		return (nl >= 4 && memcmp(name, "rccl", 4) == 0) ||
		       has(name, nl, "nccl", 4);
	case 'c': /* cuda_runtime, cuda_driver, cpu_op */
		if (cl > 1 && cat[1] == 'u')
			return has(name, nl, "Launch", 6);
		return (nl == 18 &&
			memcmp(name, "record_param_comms", 18) == 0) ||
		       (nl >= 6 && memcmp(name, "c10d::", 6) == 0);
	case 'O': /* Operator */
		return (nl == 18 &&
			memcmp(name, "record_param_comms", 18) == 0) ||
		       (nl >= 6 && memcmp(name, "c10d::", 6) == 0);
	case 'R': /* Runtime (legacy) */
		return has(name, nl, "Launch", 6);
	case 'u':
	case 'U': /* user_annotation, User */
		return nl >= 5 && memcmp(name, "nccl:", 5) == 0;
	default:
		return false;
	}
}

static void on_launch(struct kt *k, const struct ev *e, uint64_t index,
		      uint64_t offset)
{
	struct kt_launch l;
	const char *v;
	size_t vl;
	int64_t dur;

	if (!e->args ||
	    !json_obj_get(e->args, e->args_n, "correlation", &v, &vl) ||
	    !json_raw_int(v, vl, &l.corr) ||
	    !ev_times(k, e, &l.ts, &dur, offset)) {
		skip_event(k, index, offset,
			   "launch event without correlation or ts");
		return;
	}
	l.pid = raw_id(e->pid, e->pid_n);
	l.tid = raw_id(e->tid, e->tid_n);
	g_array_append_val(k->launches, l);
}

static void on_event(void *ud, const char *p, size_t len, uint64_t offset,
		     uint64_t index)
{
	struct kt *k = ud;
	struct ev e;
	const char *name;
	char name_buf[256];
	g_autofree char *name_big = NULL;
	bool kernel, launch, cpu, annot;
	int64_t ts, dur;
	cJSON *args = NULL;

	k->nevents++;
	if (len == 0 || p[0] != '{') {
		skip_event(k, index, offset, "not a JSON object");
		return;
	}
	/* The pre-filter: most events are dropped on cat and name alone. */
	if (!prefilter(p, len))
		return;
	ev_fields(p, len, &e);
	if (!e.cat || !e.name || e.name_n < 2 || e.name[0] != '"')
		return; /* flows, counters, metadata: not comm records */
	if (e.ph && !json_raw_streq(e.ph, e.ph_n, "X"))
		return; /* flows (ac2g) carry names of their own */
	kernel = json_raw_streq(e.cat, e.cat_n, "kernel") ||
		 json_raw_streq(e.cat, e.cat_n, "Kernel");
	launch = json_raw_streq(e.cat, e.cat_n, "cuda_runtime") ||
		 json_raw_streq(e.cat, e.cat_n, "cuda_driver") ||
		 json_raw_streq(e.cat, e.cat_n, "Runtime");
	cpu = json_raw_streq(e.cat, e.cat_n, "cpu_op") ||
	      json_raw_streq(e.cat, e.cat_n, "Operator");
	annot = json_raw_streq(e.cat, e.cat_n, "user_annotation") ||
		json_raw_streq(e.cat, e.cat_n, "User");
	if (launch) {
		if (has(e.name, e.name_n, "Launch", 6))
			on_launch(k, &e, index, offset);
		return;
	}
	if (!kernel && !cpu && !annot)
		return;
	/* only the names of comm events are kept, and interned */
	name = raw_str_tmp(e.name, e.name_n, name_buf, sizeof(name_buf),
			   &name_big);
	if (!name)
		return;
	if (kernel && !is_nccl_kernel(name))
		return;
	if (cpu && strcmp(name, "record_param_comms") != 0 &&
	    !g_str_has_prefix(name, "c10d::"))
		return;
	if (annot && !g_str_has_prefix(name, "nccl:"))
		return;
	name = hd_intern(name);
	if (!ev_times(k, &e, &ts, &dur, offset)) {
		skip_event(k, index, offset, "comm event with a bad ts or dur");
		return;
	}
	if (e.args) {
		args = cJSON_ParseWithLength(e.args, e.args_n);
		if (!cJSON_IsObject(args)) {
			cJSON_Delete(args);
			skip_event(k, index, offset,
				   "comm event args are not an object");
			return;
		}
	}
	if (kernel) {
		struct kt_kernel kk = { .ts = ts,
					.dur = dur,
					.index = index,
					.name = name,
					.corr = -1,
					.ext = -1 };

		meta_init(&kk.meta);
		kk.pid = raw_id(e.pid, e.pid_n);
		kk.tid = raw_id(e.tid, e.tid_n);
		if (args) {
			cj_get_int(k, args, "correlation", &kk.corr, index);
			if (!cj_get_int(k, args, "External id", &kk.ext, index))
				cj_get_int(k, args, "external id", &kk.ext,
					   index);
			meta_read(k, &kk.meta, args, index);
		}
		g_array_append_val(k->kernels, kk);
	} else {
		struct kt_cpu c = { .ts = ts,
				    .end = ts + dur,
				    .index = index,
				    .name = name,
				    .ext = -1 };

		meta_init(&c.meta);
		c.type = annot					   ? KT_ANNOT
			 : strcmp(name, "record_param_comms") == 0 ? KT_RPC
								   : KT_C10D;
		c.pid = raw_id(e.pid, e.pid_n);
		c.tid = raw_id(e.tid, e.tid_n);
		if (args) {
			cj_get_int(k, args, "External id", &c.ext, index);
			if (c.type == KT_RPC)
				meta_read(k, &c.meta, args, index);
			if (c.type == KT_ANNOT) {
				char *s;
				const cJSON *j;

				j = cJSON_GetObjectItemCaseSensitive(
					args, "Input Dims");
				if (j && (s = cJSON_PrintUnformatted(j))) {
					if (strlen(s) < 1024)
						c.in_dims = kt_dims_local(k, s);
					cJSON_free(s);
				}
			}
		}
		g_array_append_val(k->cpus, c);
	}
	cJSON_Delete(args);
}

/* "[0, 1, 2]" -> ints; false when truncated ("...") or malformed. */
static bool parse_rank_list(const char *s, GArray *out)
{
	const char *p = s;

	if (!s || *s != '[')
		return false;
	p++;
	for (;;) {
		char *e;
		long v;

		while (*p == ' ')
			p++;
		if (*p == ']')
			return p[1] == '\0';
		v = strtol(p, &e, 10);
		if (e == p || v < 0 || v >= (1 << 24) || out->len >= (1 << 20))
			return false;
		{
			int iv = (int)v;

			g_array_append_val(out, iv);
		}
		p = e;
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p != ']')
			return false;
	}
}

static void read_dist_info(struct kt *k, const cJSON *di)
{
	int64_t v;
	const cJSON *cfg, *item;

	if (!cJSON_IsObject(di)) {
		hd_input_warn(k->in, 0, "distributedInfo is not an object");
		return;
	}
	if (cj_int(cJSON_GetObjectItemCaseSensitive(di, "rank"), &v) &&
	    v >= 0 && v < (1 << 24)) {
		k->rank = (int)v;
		k->has_rank = true;
	}
	if (cj_int(cJSON_GetObjectItemCaseSensitive(di, "world_size"), &v) &&
	    v > 0 && v < (1 << 24))
		k->world_size = (int)v;
	k->nccl_version = cj_str(di, "nccl_version");
	if (k->nccl_version && strcmp(k->nccl_version, "unknown") == 0)
		k->nccl_version = NULL;
	cfg = cJSON_GetObjectItemCaseSensitive(di, "pg_config");
	cJSON_ArrayForEach(item, cfg) {
		struct kt_pg *pg;
		const cJSON *r =
			cJSON_GetObjectItemCaseSensitive(item, "ranks");
		const cJSON *x;

		if (!cJSON_IsObject(item) || !cj_str(item, "pg_name"))
			continue;
		pg = g_new0(struct kt_pg, 1);
		pg->name = cj_str(item, "pg_name");
		pg->desc = cj_str(item, "pg_desc");
		pg->ranks = g_array_new(FALSE, FALSE, sizeof(int));
		if (cJSON_IsString(r)) {
			if (!parse_rank_list(r->valuestring, pg->ranks))
				g_array_set_size(pg->ranks, 0);
		} else {
			cJSON_ArrayForEach(x, r) {
				int iv;

				if (!cj_int(x, &v) || v < 0 || v >= (1 << 24))
					break;
				iv = (int)v;
				g_array_append_val(pg->ranks, iv);
			}
		}
		g_ptr_array_add(k->pgs, pg);
	}
}

static void on_top(void *ud, const char *key, const char *p, size_t len,
		   uint64_t offset)
{
	struct kt *k = ud;
	cJSON *j;
	int64_t v;

	if (strcmp(key, "baseTimeNanoseconds") == 0) {
		if (json_raw_int(p, len, &v) && v >= 0 && v < HD_TIME_NS_MAX) {
			k->base_ns = v;
			k->has_base = true;
		} else if (json_raw_int(p, len, &v)) {
			hd_input_warn(
				k->in, 0,
				"byte %" G_GUINT64_FORMAT
				": baseTimeNanoseconds %" G_GINT64_FORMAT
				" is no time between 1970 and 2200, ignored",
				offset, v);
		} else {
			hd_input_warn(k->in, 0,
				      "byte %" G_GUINT64_FORMAT
				      ": baseTimeNanoseconds is not an integer",
				      offset);
		}
	} else if (strcmp(key, "host_name") == 0) {
		k->host = raw_str(p, len);
	} else if (strcmp(key, "distributedInfo") == 0) {
		j = cJSON_ParseWithLength(p, len);
		if (!j)
			hd_input_warn(k->in, 0,
				      "byte %" G_GUINT64_FORMAT
				      ": distributedInfo is not valid JSON",
				      offset);
		else
			read_dist_info(k, j);
		cJSON_Delete(j);
	}
}

static void on_oversize(void *ud, const char *key, uint64_t offset,
			uint64_t size, uint64_t index)
{
	struct kt *k = ud;

	if (key) {
		hd_input_warn(k->in, 0,
			      "byte %" G_GUINT64_FORMAT
			      ": top-level value '%s' of %" G_GUINT64_FORMAT
			      " bytes is over the size cap, skipped",
			      offset, key, size);
		return;
	}
	k->nevents++;
	k->in->skipped++;
	hd_input_warn(k->in, 0,
		      "event %" G_GUINT64_FORMAT " at byte %" G_GUINT64_FORMAT
		      ": %" G_GUINT64_FORMAT
		      " bytes is over the size cap, skipped",
		      index, offset, size);
}

static void on_syntax(void *ud, uint64_t offset, const char *what)
{
	struct kt *k = ud;

	hd_input_warn(k->in, 0, "byte %" G_GUINT64_FORMAT ": %s", offset, what);
}

/* ---- building ops ---- */

static int cmp_cpu(const void *a, const void *b)
{
	const struct kt_cpu *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* Outer (longer) first, so the innermost is found last. */
	return x->end > y->end ? -1 : x->end < y->end ? 1 : 0;
}

/* Innermost cpu record of type on (pid, tid) whose span holds t. */
static struct kt_cpu *containing(struct kt *k, int64_t pid, int64_t tid,
				 int64_t t, int type)
{
	struct kt_cpu *c = (struct kt_cpu *)(void *)k->cpus->data;
	size_t lo = 0, hi = k->cpus->len;
	int steps = 0;

	/* First record with key > (pid, tid, t). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct kt_cpu *m = &c[mid];
		bool le = m->pid < pid ||
			  (m->pid == pid &&
			   (m->tid < tid || (m->tid == tid && m->ts <= t)));

		if (le)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && steps++ < 512) {
		struct kt_cpu *m = &c[--lo];

		if (m->pid != pid || m->tid != tid)
			break;
		if (m->type == type && m->ts <= t && t <= m->end)
			return m;
	}
	return NULL;
}

struct pending {
	struct hd_op_rec rec;
	struct hd_opdesc
		d; /* hd_op_desc(&rec.op) once interned, when it is stored */
	int64_t order; /* enqueue or start time, for ordinals */
	bool ordinal;
};

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->rec.op.group != y->rec.op.group)
		return x->rec.op.group < y->rec.op.group ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->rec.prov.at < y->rec.prov.at
		       ? -1
		       : x->rec.prov.at > y->rec.prov.at;
}

static int64_t to_abs(struct kt *k, int64_t raw)
{
	if (raw == INT64_MIN)
		return raw;
	if (k->has_base && raw < REL_LIMIT_NS)
		return k->base_ns + (raw < 0 ? 0 : raw);
	return raw;
}

/* Kind from an "nccl:..." annotation; sets *peer for "send 0->1". */
static enum hd_op_kind annot_kind(const char *name, int *peer)
{
	const char *s = name + 5;
	const char *arrow;

	if (g_str_has_prefix(s, "send ") || g_str_has_prefix(s, "recv ")) {
		arrow = strstr(s, "->");
		if (!arrow)
			arrow = strstr(s, "<-");
		if (arrow) {
			const char *num = arrow + 2;
			char *end;
			gint64 v = g_ascii_strtoll(num, &end, 10);

			/* "send 0->x": no peer, rather than rank 0 */
			if (end != num && g_ascii_isdigit(*num) && v <= INT_MAX)
				*peer = (int)v;
		}
		return s[0] == 's' ? HD_OP_SEND : HD_OP_RECV;
	}
	return hd_op_kind_parse(s);
}

/*
 * Family, redop and dtype from a kernel name (any era): the token after
 * "Kernel_" is the family; reductions carry <Op>_<type>.
 */
static enum hd_op_kind kernel_kind(const char *name, struct hd_opdesc *d)
{
	static const struct {
		const char *fam;
		enum hd_op_kind kind;
	} fams[] = {
		{ "AllReduce", HD_OP_ALL_REDUCE },
		{ "AllGather", HD_OP_ALL_GATHER },
		{ "ReduceScatter", HD_OP_REDUCE_SCATTER },
		{ "Broadcast", HD_OP_BROADCAST },
		{ "Reduce", HD_OP_REDUCE },
	};
	static const struct {
		const char *op;
		enum hd_redop r;
	} ops[] = {
		{ "_Sum_", HD_REDOP_SUM },
		{ "_Prod_", HD_REDOP_PROD },
		{ "_PreMulSum_", HD_REDOP_PREMULSUM },
		{ "_SumPostDiv_", HD_REDOP_NONE },
		{ "_MinMax_", HD_REDOP_NONE },
	};
	const char *f = strstr(name, "Kernel_");
	enum hd_op_kind kind = HD_OP_UNKNOWN;
	size_t n;

	if (!f)
		return HD_OP_UNKNOWN;
	f += 7;
	n = strcspn(f, "_(");
	for (size_t i = 0; i < G_N_ELEMENTS(fams); i++)
		if (strlen(fams[i].fam) == n && memcmp(f, fams[i].fam, n) == 0)
			kind = fams[i].kind;
	if (kind != HD_OP_ALL_REDUCE && kind != HD_OP_REDUCE_SCATTER &&
	    kind != HD_OP_REDUCE)
		return kind;
	for (size_t i = 0; i < G_N_ELEMENTS(ops); i++) {
		const char *o = strstr(f, ops[i].op);
		char ty[24];
		size_t tl;

		if (!o)
			continue;
		d->redop = ops[i].r;
		o += strlen(ops[i].op);
		tl = strcspn(o, "_(");
		if (tl < sizeof(ty)) {
			memcpy(ty, o, tl);
			ty[tl] = '\0';
			if (d->dtype == HD_DTYPE_UNKNOWN)
				d->dtype = hd_dtype_parse(ty);
		}
		break;
	}
	return kind;
}

static struct kt_pg *find_pg(struct kt *k, const char *name)
{
	for (guint i = 0; i < k->pgs->len; i++) {
		struct kt_pg *pg = g_ptr_array_index(k->pgs, i);

		if (name && strcmp(pg->name, name) == 0)
			return pg;
	}
	return NULL;
}

/* The group an op belongs to, from its metadata; -1 when there is none. */
static int64_t meta_group(struct kt *k, const struct kt_meta *m)
{
	g_autoptr(GArray) ranks = g_array_new(FALSE, FALSE, sizeof(int));
	g_autofree char *id = NULL;
	struct kt_pg *pg;
	struct hd_group *g;
	const char *desc = m->pg_desc;
	uint32_t gi;

	if (!m->pg_name)
		return -1;
	pg = find_pg(k, m->pg_name);
	if (!parse_rank_list(m->pg_ranks, ranks))
		g_array_set_size(ranks, 0);
	if (ranks->len == 0 && pg && pg->ranks->len)
		g_array_append_vals(ranks, pg->ranks->data, pg->ranks->len);
	if (!desc && pg)
		desc = pg->desc;
	if (ranks->len)
		id = hd_group_id_pg(m->pg_name, (int *)(void *)ranks->data,
				    ranks->len);
	else
		id = g_strdup_printf("pg:%s:?", m->pg_name);
	gi = hd_store_group(k->store, id);
	g = hd_store_group_at(k->store, gi);
	if (!g->name)
		g->name = g_strdup(m->pg_name);
	if (!g->desc && desc)
		g->desc = g_strdup(desc);
	if (ranks->len) {
		g->nranks = (int)ranks->len;
		for (guint i = 0; i < ranks->len; i++)
			hd_group_set_member(g, (int)i,
					    g_array_index(ranks, int, i));
	} else {
		g->low_confidence_identity = true;
		if (m->group_size > 0)
			g->nranks = m->group_size;
	}
	return gi;
}

static uint32_t stream_group(struct kt *k, int idx)
{
	g_autofree char *id = g_strdup_printf("trace-stream:%d", idx);
	uint32_t gi = hd_store_group(k->store, id);
	struct hd_group *g = hd_store_group_at(k->store, gi);

	g->low_confidence_identity = true;
	if (k->world_size > 0)
		g->nranks = k->world_size;
	return gi;
}

static void fill_meta(struct hd_op *op, struct hd_opdesc *d,
		      const struct kt_meta *m)
{
	if (m->coll)
		op->kind = hd_op_kind_parse(m->coll);
	d->count_in = m->in_n;
	d->count_out = m->out_n;
	if (m->dtype) {
		d->dtype = hd_dtype_parse(m->dtype);
		d->dtype_name = m->dtype;
		if (d->dtype == HD_DTYPE_UNKNOWN)
			d->dtype = HD_DTYPE_OTHER;
	}
}

static void set_seq(struct pending *pd, const struct kt_meta *m)
{
	if (m->has_seq) {
		hd_op_set_seq(&pd->rec.op, m->seq);
		pd->rec.op.seq_kind = hd_op_kind_is_p2p(pd->rec.op.kind)
					      ? HD_SEQ_P2P
					      : HD_SEQ_COLLECTIVE;
	} else {
		pd->ordinal = true;
		pd->rec.op.seq_kind = HD_SEQ_ORDINAL;
	}
}

static void set_peer(struct kt *k, const struct hd_op *op, struct hd_opdesc *d,
		     const struct kt_meta *m, int annot_peer)
{
	struct hd_group *g = hd_store_group_at(k->store, op->group);

	if (!hd_op_kind_is_p2p(op->kind))
		return;
	if (annot_peer >= 0)
		d->peer = annot_peer;
	else if (m->peer_global >= 0 &&
		 hd_group_rank_of(g, m->peer_global) >= 0)
		d->peer = hd_group_rank_of(g, m->peer_global);
	else if (m->rank_arg >= 0)
		d->peer = m->rank_arg; /* send/recv: the peer's group rank */
}

/* Lookups from a kernel to the CPU-side records of its launch. */
struct kt_maps {
	GHashTable *launch_by_corr; /* correlation id -> struct kt_launch */
	GHashTable *rpc_by_ext; /* external id -> struct kt_cpu (RPC) */
	GArray *streams; /* int64_t[3] {pid, tid, first ts}, by first ts */
	/* struct kt_thread -> index in streams + 1 */
	GHashTable *stream_idx;
	/* struct kt_thread -> struct kt_rpc_queue, made on first use */
	GHashTable *rpc_queues;
};

/* A (pid, tid) pair: a CPU thread or a GPU stream. */
struct kt_thread {
	int64_t pid, tid;
};

static guint kt_thread_hash(gconstpointer p)
{
	const struct kt_thread *t = p;

	return hd_hash_u64((uint64_t)t->pid ^ hd_hash_u64((uint64_t)t->tid));
}

static gboolean kt_thread_equal(gconstpointer a, gconstpointer b)
{
	const struct kt_thread *x = a, *y = b;

	return x->pid == y->pid && x->tid == y->tid;
}

/*
 * The record_param_comms of one CPU thread that a coalesced launch may
 * take (not wait or init), by end time; those before next were taken.
 */
struct kt_rpc_queue {
	GArray *idx; /* guint indices into k->cpus */
	guint next;
};

static void rpc_queue_free(gpointer p)
{
	struct kt_rpc_queue *q = p;

	g_array_unref(q->idx);
	g_free(q);
}

/* The CPU-side records a kernel is matched with; any may be NULL. */
struct kt_origin {
	struct kt_launch *launch; /* the launch of the same correlation id */
	struct kt_cpu *rpc; /* its record_param_comms */
	struct kt_cpu *annot; /* the nccl:* annotation around the launch */
	struct kt_cpu *c10d; /* the c10d:: call around the launch */
};

static int cmp_stream_first(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	/* by first ts, then by first seen (x[3]), so the order is stable */
	if (x[2] != y[2])
		return x[2] < y[2] ? -1 : 1;
	return (x[3] > y[3]) - (x[3] < y[3]);
}

/*
 * NCCL streams in the order of their first kernel (at most 4096; kernels
 * of others are grouped with the first), and a map from each to its
 * index + 1.  A table, not a walk of the streams per kernel: kernels on
 * thousands of streams made that quadratic.
 */
static GArray *nccl_streams(const struct kt *k, GHashTable *idx)
{
	GArray *first = g_array_new(FALSE, FALSE, sizeof(int64_t) * 3);
	g_autoptr(GArray) tmp = g_array_new(FALSE, FALSE, sizeof(int64_t) * 4);

	for (guint i = 0; i < k->kernels->len; i++) {
		struct kt_kernel *kk =
			&g_array_index(k->kernels, struct kt_kernel, i);
		struct kt_thread key = { kk->pid, kk->tid };
		gpointer at = g_hash_table_lookup(idx, &key);

		if (at) {
			int64_t *st =
				(int64_t *)(void *)(tmp->data +
						    (GPOINTER_TO_UINT(at) - 1) *
							    4 *
							    sizeof(int64_t));

			if (kk->ts < st[2])
				st[2] = kk->ts;
		} else if (tmp->len < 4096) {
			int64_t st[4] = { kk->pid, kk->tid, kk->ts, tmp->len };
			struct kt_thread *kp = g_new(struct kt_thread, 1);

			g_array_append_vals(tmp, st, 1);
			*kp = key;
			g_hash_table_insert(idx, kp,
					    GUINT_TO_POINTER(tmp->len));
		}
	}
	if (tmp->len > 1)
		qsort(tmp->data, tmp->len, sizeof(int64_t) * 4,
		      cmp_stream_first);
	for (guint j = 0; j < tmp->len; j++) {
		int64_t *st = (int64_t *)(void *)(tmp->data +
						  j * 4 * sizeof(int64_t));
		struct kt_thread key = { st[0], st[1] };

		g_array_append_vals(first, st, 1);
		g_hash_table_replace(idx, g_memdup(&key, sizeof(key)),
				     GUINT_TO_POINTER(j + 1));
	}
	return first;
}

static void kernel_origin(struct kt *k, const struct kt_maps *mp,
			  const struct kt_kernel *kk, struct kt_origin *o)
{
	struct kt_launch *l =
		g_hash_table_lookup(mp->launch_by_corr, &kk->corr);

	o->launch = l;
	o->rpc = o->annot = o->c10d = NULL;
	if (kk->ext >= 0 && kk->ext != kk->corr)
		o->rpc = g_hash_table_lookup(mp->rpc_by_ext, &kk->ext);
	if (l) {
		if (!o->rpc)
			o->rpc = containing(k, l->pid, l->tid, l->ts, KT_RPC);
		o->annot = containing(k, l->pid, l->tid, l->ts, KT_ANNOT);
		o->c10d = containing(k, l->pid, l->tid, l->ts, KT_C10D);
	}
}

/*
 * The op's kind, name, shape and metadata, from the kernel name, the
 * c10d call, the annotation and the record_param_comms, each overriding
 * the one before where it knows better.  Returns the metadata it used.
 */
static const struct kt_meta *
kernel_identity(struct kt *k, const struct kt_kernel *kk,
		const struct kt_origin *o, struct pending *pd, int *annot_peer)
{
	const struct kt_meta *m = &kk->meta;

	if (!m->coll && o->rpc)
		m = &o->rpc->meta;
	pd->rec.op.kind = kernel_kind(kk->name, &pd->d);
	if (o->c10d) {
		const char *n = o->c10d->name + 6;
		enum hd_op_kind ck = hd_op_kind_parse(n);

		if (ck != HD_OP_UNKNOWN)
			pd->rec.op.kind = ck;
	}
	if (o->annot) {
		enum hd_op_kind ak = annot_kind(o->annot->name, annot_peer);

		pd->d.name = o->annot->name;
		if (ak != HD_OP_UNKNOWN)
			pd->rec.op.kind = ak;
		if (o->annot->in_dims)
			pd->d.shape_in = kt_dims_interned(k, o->annot->in_dims);
	}
	if (m->coll) {
		enum hd_dtype kd = pd->d.dtype;
		enum hd_op_kind mk = hd_op_kind_parse(m->coll);

		fill_meta(&pd->rec.op, &pd->d, m);
		if (mk == HD_OP_UNKNOWN)
			pd->rec.op.kind = kernel_kind(kk->name, &pd->d);
		if (pd->d.dtype == HD_DTYPE_UNKNOWN)
			pd->d.dtype = kd;
	}
	return m;
}

/*
 * A coalesced launch: it takes the metadata of the last unused
 * record_param_comms before it on its thread (spec 8), and uses up all
 * of them.  Returns the metadata the op now goes by.
 */
static int cmp_cpu_end(const void *a, const void *b, void *data)
{
	const struct kt_cpu *cpus = data;
	guint x = *(const guint *)a, y = *(const guint *)b;

	if (cpus[x].end != cpus[y].end)
		return cpus[x].end < cpus[y].end ? -1 : 1;
	return (x > y) - (x < y);
}

/* The queue of thread (pid, tid), made on first use.  (transfer none) */
static struct kt_rpc_queue *rpc_queue(struct kt *k, const struct kt_maps *mp,
				      int64_t pid, int64_t tid)
{
	struct kt_cpu *cpus = (struct kt_cpu *)(void *)k->cpus->data;
	struct kt_thread key = { pid, tid };
	struct kt_rpc_queue *q = g_hash_table_lookup(mp->rpc_queues, &key);
	size_t lo = 0, hi = k->cpus->len;

	if (q)
		return q;
	q = g_new0(struct kt_rpc_queue, 1);
	q->idx = g_array_new(FALSE, FALSE, sizeof(guint));
	/* cpus are sorted by (pid, tid, ...): the thread's first record */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cpus[mid].pid < pid ||
		    (cpus[mid].pid == pid && cpus[mid].tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint j = (guint)lo;
	     j < k->cpus->len && cpus[j].pid == pid && cpus[j].tid == tid;
	     j++) {
		const struct kt_cpu *c = &cpus[j];

		if (c->type != KT_RPC ||
		    (c->meta.coll && (strcmp(c->meta.coll, "wait") == 0 ||
				      strcmp(c->meta.coll, "init") == 0)))
			continue;
		g_array_append_val(q->idx, j);
	}
	g_array_sort_with_data(q->idx, cmp_cpu_end, cpus);
	g_hash_table_insert(mp->rpc_queues, g_memdup(&key, sizeof(key)), q);
	return q;
}

/*
 * A coalesced launch: the record_param_comms of its thread that ended
 * before it and no earlier launch took are its members; the last of
 * them (in record order) describes it.  Each thread's records are a
 * queue by end time, so every record is looked at once in all.
 */
static const struct kt_meta *coalesced_meta(struct kt *k,
					    const struct kt_maps *mp,
					    const struct kt_launch *l,
					    struct pending *pd,
					    const struct kt_meta *m)
{
	struct kt_cpu *cpus = (struct kt_cpu *)(void *)k->cpus->data;
	struct kt_rpc_queue *q = rpc_queue(k, mp, l->pid, l->tid);
	struct kt_cpu *prev = NULL;

	pd->rec.op.kind = HD_OP_COALESCED;
	pd->rec.op.flags |= HD_OPF_COALESCED_MEMBER;
	for (; q->next < q->idx->len; q->next++) {
		struct kt_cpu *c = &cpus[g_array_index(q->idx, guint, q->next)];

		if (c->end > l->ts)
			break;
		if (c->used)
			continue;
		c->used = true;
		if (!prev || c > prev)
			prev = c;
	}
	if (!prev)
		return m;
	pd->d.count_in = prev->meta.in_n;
	pd->d.count_out = prev->meta.out_n;
	return &prev->meta;
}

/* The op's group: from its metadata, else one per NCCL stream. */
static uint32_t kernel_group(struct kt *k, const struct kt_maps *mp,
			     const struct kt_kernel *kk,
			     const struct kt_meta *m)
{
	int64_t gi = meta_group(k, m);
	struct kt_thread key = { kk->pid, kk->tid };
	guint at;

	if (gi >= 0)
		return (uint32_t)gi;
	at = GPOINTER_TO_UINT(g_hash_table_lookup(mp->stream_idx, &key));
	return stream_group(k, at ? (int)at - 1 : 0);
}

/* One completed op per NCCL kernel, described by what launched it. */
static void kernel_op(struct kt *k, const struct kt_maps *mp,
		      const struct kt_kernel *kk, GArray *pend)
{
	struct kt_origin o;
	const struct kt_meta *m;
	struct pending pd = { 0 };
	int annot_peer = -1;

	kernel_origin(k, mp, kk, &o);
	hd_op_rec_init(&pd.rec);
	pd.d = hd_opdesc_blank;
	hd_op_set_rank(&pd.rec.op, k->has_rank || k->rank >= 0 ? k->rank : -1);
	pd.d.name = kk->name;
	pd.rec.op.state = HD_STATE_COMPLETED;
	pd.rec.t_start_ns = kk->ts;
	pd.rec.t_end_ns = kk->ts + kk->dur;
	pd.rec.prov.input = k->input;
	pd.rec.prov.kind = HD_PROV_RECORD;
	pd.rec.prov.at = kk->index;
	if (o.rpc) {
		o.rpc->used = true;
		pd.rec.t_enqueue_ns = o.rpc->ts;
	} else if (o.annot) {
		pd.rec.t_enqueue_ns = o.annot->ts;
	} else if (o.launch) {
		pd.rec.t_enqueue_ns = o.launch->ts;
	}
	if (o.annot)
		o.annot->used = true;
	m = kernel_identity(k, kk, &o, &pd, &annot_peer);
	/* Coalesced: metadata of the preceding records (spec 8). */
	if ((o.annot && strcmp(o.annot->name, "nccl:coalesced") == 0) ||
	    (!m->coll && !o.annot && !o.rpc && o.launch))
		m = coalesced_meta(k, mp, o.launch, &pd, m);
	pd.rec.op.group = kernel_group(k, mp, kk, m);
	set_seq(&pd, m);
	set_peer(k, &pd.rec.op, &pd.d, m, annot_peer);
	pd.order =
		pd.rec.t_enqueue_ns != INT64_MIN ? pd.rec.t_enqueue_ns : kk->ts;
	g_array_append_val(pend, pd);
}

/* CPU records that launched no kernel in this window: enqueued ops. */
static void cpu_only_ops(struct kt *k, GArray *pend)
{
	struct kt_cpu *cpus = (struct kt_cpu *)(void *)k->cpus->data;

	for (guint i = 0; i < k->cpus->len; i++) {
		struct kt_cpu *c = &cpus[i];
		struct pending pd = { 0 };
		const char *cn = c->meta.coll;
		int64_t gi;

		if (c->type != KT_RPC || c->used)
			continue;
		if (cn && (strcmp(cn, "wait") == 0 || strcmp(cn, "init") == 0 ||
			   strcmp(cn, "barrier") == 0))
			continue; /* not ops (spec 5) */
		gi = meta_group(k, &c->meta);
		if (!cn || gi < 0) {
			/*
			 * Old records carry no name: without a kernel there
			 * is nothing to say what they were (a wait, most
			 * often).  Counted, not kept.
			 */
			k->in->skipped++;
			hd_input_warn(
				k->in, 0,
				"event %" G_GUINT64_FORMAT
				": record_param_comms without metadata or kernel, skipped",
				c->index);
			continue;
		}
		hd_op_rec_init(&pd.rec);
		pd.d = hd_opdesc_blank;
		hd_op_set_rank(&pd.rec.op, k->rank);
		pd.rec.op.group = (uint32_t)gi;
		fill_meta(&pd.rec.op, &pd.d, &c->meta);
		pd.d.name = cn;
		pd.rec.op.state = HD_STATE_ENQUEUED;
		pd.rec.t_enqueue_ns = c->ts;
		pd.rec.prov.input = k->input;
		pd.rec.prov.kind = HD_PROV_RECORD;
		pd.rec.prov.at = c->index;
		set_seq(&pd, &c->meta);
		set_peer(k, &pd.rec.op, &pd.d, &c->meta, -1);
		pd.order = c->ts;
		g_array_append_val(pend, pd);
	}
}

/*
 * Stores the pending ops in group and time order, numbering the ordinal
 * ones per group and making times absolute.
 */
static void store_pending(struct kt *k, GArray *pend)
{
	int64_t ord_next = 0;

	g_array_sort(pend, cmp_pending);
	for (guint i = 0; i < pend->len; i++) {
		struct pending *pd = &g_array_index(pend, struct pending, i);

		if (i == 0 || pd->rec.op.group !=
				      g_array_index(pend, struct pending, i - 1)
					      .rec.op.group)
			ord_next = 0;
		if (pd->ordinal)
			hd_op_set_seq(&pd->rec.op, ord_next++);
		pd->rec.t_enqueue_ns = to_abs(k, pd->rec.t_enqueue_ns);
		pd->rec.t_start_ns = to_abs(k, pd->rec.t_start_ns);
		pd->rec.t_end_ns = to_abs(k, pd->rec.t_end_ns);
		hd_op_set_desc(&pd->rec.op, hd_opdesc_intern(&pd->d));
		hd_store_add_op(k->store, &pd->rec);
	}
}

static void build_ops(struct kt *k)
{
	g_autoptr(GArray) pend =
		g_array_new(FALSE, FALSE, sizeof(struct pending));
	g_autoptr(GHashTable) launch_by_corr =
		g_hash_table_new(hd_int64_hash, hd_int64_equal);
	g_autoptr(GHashTable) rpc_by_ext =
		g_hash_table_new(hd_int64_hash, hd_int64_equal);
	g_autoptr(GArray) streams = NULL;
	g_autoptr(GHashTable) stream_idx = g_hash_table_new_full(
		kt_thread_hash, kt_thread_equal, g_free, NULL);
	g_autoptr(GHashTable) rpc_queues = g_hash_table_new_full(
		kt_thread_hash, kt_thread_equal, g_free, rpc_queue_free);
	struct kt_maps mp;
	struct kt_cpu *cpus;

	g_array_sort(k->cpus, cmp_cpu);
	cpus = (struct kt_cpu *)(void *)k->cpus->data;
	for (guint i = 0; i < k->launches->len; i++) {
		struct kt_launch *l =
			&g_array_index(k->launches, struct kt_launch, i);

		g_hash_table_insert(launch_by_corr, &l->corr, l);
	}
	for (guint i = 0; i < k->cpus->len; i++)
		if (cpus[i].type == KT_RPC && cpus[i].ext >= 0)
			g_hash_table_insert(rpc_by_ext, &cpus[i].ext, &cpus[i]);
	streams = nccl_streams(k, stream_idx);
	mp.launch_by_corr = launch_by_corr;
	mp.rpc_by_ext = rpc_by_ext;
	mp.streams = streams;
	mp.stream_idx = stream_idx;
	mp.rpc_queues = rpc_queues;
	for (guint i = 0; i < k->kernels->len; i++)
		kernel_op(k, &mp,
			  &g_array_index(k->kernels, struct kt_kernel, i),
			  pend);
	cpu_only_ops(k, pend);
	store_pending(k, pend);
}

static void finish_rank(struct kt *k)
{
	struct hd_rank *r;

	if (k->has_rank) {
		k->in->rank = k->rank;
	} else {
		int fr = parsers_rank_from_filename(k->in->path);

		if (fr >= 0) {
			hd_input_warn(
				k->in, 0,
				"no distributedInfo.rank; rank %d taken from the file name (low confidence)",
				fr);
			k->in->rank = fr;
			k->rank = fr;
		} else {
			hd_input_warn(
				k->in, 0,
				"no distributedInfo.rank and no rank in the file name: rank unknown");
			k->in->rank = -1;
			k->rank = -1;
		}
	}
	if (k->world_size > 0)
		k->store->world_size = k->world_size;
	if (k->rank < 0)
		return;
	r = hd_store_rank(k->store, k->rank);
	if (k->host)
		r->host = k->host;
	if (k->nccl_version)
		r->nccl_version = k->nccl_version;
	if (k->kernels->len && r->cuda_dev < 0) {
		int64_t dev =
			g_array_index(k->kernels, struct kt_kernel, 0).pid;

		if (dev >= 0 && dev < 4096)
			r->cuda_dev = (int)dev;
	}
	if (k->launches->len && r->pid == 0) {
		int64_t pid =
			g_array_index(k->launches, struct kt_launch, 0).pid;

		if (pid > 0 && pid < INT32_MAX)
			r->pid = (int)pid;
	}
	hd_rank_add_input(r, k->input);
}

/*
 * A stamp of the trace to tell relative from absolute by: its first
 * kernel's, else its first CPU event's or launch's; REL_LIMIT_NS (taken
 * as absolute) when it has none.
 */
static int64_t first_ts(const struct kt *k)
{
	if (k->kernels->len)
		return g_array_index(k->kernels, struct kt_kernel, 0).ts;
	if (k->cpus->len)
		return g_array_index(k->cpus, struct kt_cpu, 0).ts;
	if (k->launches->len)
		return g_array_index(k->launches, struct kt_launch, 0).ts;
	return REL_LIMIT_NS;
}

bool kineto_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		  GError **error)
{
	static const struct json_scan_cb cb = {
		.event = on_event,
		.top_value = on_top,
		.oversize = on_oversize,
		.syntax = on_syntax,
	};
	struct kt k = { 0 };
	struct json_scan *sc;
	enum json_scan_end how;
	uint64_t off = 0;
	bool ok = true, read_failed = false;
	const char *cap_env = g_getenv("HANGDOC_KINETO_EVENT_CAP");
	size_t cap = 0;

	k.store = store;
	k.input = input;
	k.in = hd_store_input(store, input);
	k.in->kind = HD_INPUT_KINETO;
	k.rank = -1;
	k.world_size = -1;
	k.kernels = g_array_new(FALSE, FALSE, sizeof(struct kt_kernel));
	k.cpus = g_array_new(FALSE, FALSE, sizeof(struct kt_cpu));
	k.launches = g_array_new(FALSE, FALSE, sizeof(struct kt_launch));
	k.pgs = g_ptr_array_new_with_free_func(kt_pg_free);
	k.dims = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	/* A smaller cap for tests, never larger than the default. */
	if (cap_env) {
		cap = (size_t)g_ascii_strtoull(cap_env, NULL, 10);
		if (cap > JSON_SCAN_ITEM_CAP)
			cap = 0;
	}
	sc = json_scan_new(cap, &cb, &k);
	for (;;) {
		GError *err = NULL;
		char *buf = json_scan_space(sc, READ_CHUNK);
		ssize_t n = hd_reader_read(rd, buf, READ_CHUNK, &err);

		if (n < 0) {
			hd_input_warn(k.in, 0,
				      "byte %" G_GUINT64_FORMAT
				      ": read failed: %s",
				      hd_reader_consumed(rd), err->message);
			g_error_free(err);
			read_failed = true;
			break;
		}
		if (n == 0)
			break;
		if (!json_scan_commit(sc, (size_t)n))
			break;
	}
	k.in->bytes = hd_reader_consumed(rd);
	how = json_scan_finish(sc, &off);
	k.in->records = k.nevents;
	if (how == JSON_SCAN_EMPTY) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "empty trace: no JSON at all");
		ok = false;
	} else if (how == JSON_SCAN_FAILED && k.nevents == 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "not a Chrome trace: no events could be read");
		ok = false;
	} else if (how != JSON_SCAN_COMPLETE || read_failed) {
		k.in->truncated = true;
		hd_input_warn(
			k.in, 0,
			"byte %" G_GUINT64_FORMAT
			": trace ends early (truncated or cut JSON); %" G_GUINT64_FORMAT
			" events read",
			off, k.nevents);
	}
	if (ok) {
		int64_t first = first_ts(&k);

		if (!k.has_base && first < REL_LIMIT_NS && first > 0)
			hd_input_warn(
				k.in, 0,
				"timestamps look relative but there is no baseTimeNanoseconds; times are not comparable across ranks");
		finish_rank(&k);
		/*
		 * One clock for the trace's ops: UTC with a base (or
		 * absolute stamps), else relative to the trace's origin.
		 * A trace cut before its first kernel (baseTimeNanoseconds
		 * is at its end) still has CPU events to tell by: their
		 * relative stamps were taken for dates in January 1970.
		 */
		k.in->op_clock = k.has_base || first >= REL_LIMIT_NS
					 ? HD_CLOCK_UTC
					 : HD_CLOCK_TRACE;
		build_ops(&k);
		if (k.nevents == 0)
			k.in->empty = true;
	}
	json_scan_free(sc);
	g_array_unref(k.kernels);
	g_array_unref(k.cpus);
	g_hash_table_unref(k.dims);
	g_array_unref(k.launches);
	g_ptr_array_unref(k.pgs);
	return ok;
}
