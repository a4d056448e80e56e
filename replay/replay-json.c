/*
 * The plan's JSON form (docs/replay.md): building it, and reading it back
 * with every field checked before the runner sees it.
 */
#include "config.h"

#include "replay-plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-error.h"
#include "hd-json.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-banned.h"

#define PLAN_FORMAT "hangdoc-replay-plan"

static json_t *op_to_json(const struct replay_op *o)
{
	json_t *j = json_object();

	json_object_set_new(j, "kind", json_string(hd_op_kind_name(o->kind)));
	json_object_set_new(j, "count", hd_json_nonneg_or_null(o->count));
	json_object_set_new(j, "dtype", json_string(hd_dtype_name(o->dtype)));
	json_object_set_new(j, "redop", json_string(hd_redop_name(o->redop)));
	json_object_set_new(j, "peer", hd_json_nonneg_or_null(o->peer));
	json_object_set_new(j, "coalesce", hd_json_nonneg_or_null(o->coalesce));
	json_object_set_new(j, "seq", hd_json_nonneg_or_null(o->seq));
	json_object_set_new(j, "state",
			    json_string(hd_op_state_name(o->state)));
	json_object_set_new(j, "divergent", json_boolean(o->divergent));
	return j;
}

json_t *replay_plan_build_json(const struct replay_plan *p)
{
	json_t *root = json_object();
	json_t *ranks = json_array();
	json_t *group = json_object();

	json_object_set_new(root, "format", json_string(PLAN_FORMAT));
	json_object_set_new(root, "version", json_integer(REPLAY_PLAN_VERSION));
	json_object_set_new(root, "verdict", hd_json_str_or_null(p->verdict));
	json_object_set_new(group, "id", hd_json_str_or_null(p->group_id));
	json_object_set_new(group, "name", hd_json_str_or_null(p->group_name));
	json_object_set_new(group, "nranks", json_integer(p->ranks->len));
	json_object_set_new(root, "group", group);
	json_object_set_new(root, "seq", hd_json_nonneg_or_null(p->seq));
	json_object_set_new(
		root, "seq_kind",
		json_string(hd_seq_kind_name(
			p->seq_kind <= HD_SEQ_ORDINAL ? p->seq_kind : 0)));
	json_object_set_new(root, "window", json_integer(p->window));
	json_object_set_new(root, "scale", json_real(p->scale));
	json_object_set_new(root, "fixed", json_boolean(p->fixed));
	for (guint r = 0; r < p->ranks->len; r++) {
		const struct replay_rank *rr = replay_plan_rank(p, r);
		json_t *jr = json_object();
		json_t *ops = json_array();

		json_object_set_new(jr, "rank", json_integer(rr->rank));
		json_object_set_new(jr, "global_rank",
				    hd_json_nonneg_or_null(rr->global_rank));
		for (guint i = 0; i < rr->ops->len; i++)
			json_array_append_new(
				ops, op_to_json(&g_array_index(
					     rr->ops, struct replay_op, i)));
		json_object_set_new(jr, "ops", ops);
		json_array_append_new(ranks, jr);
	}
	json_object_set_new(root, "ranks", ranks);
	return root;
}

char *replay_plan_to_json(const struct replay_plan *p)
{
	g_autoptr(json_t) root = replay_plan_build_json(p);
	char *text, *out;

	text = hd_json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	out = g_strconcat(text, "\n", NULL);
	g_free(text);
	return out;
}

/* Readers: each sets error naming the field. */

static bool bad_field(GError **error, const char *where, const char *field,
		      const char *what)
{
	g_set_error(error, HD_ERROR, HD_ERROR_FORMAT, "%s: '%s' %s", where,
		    field, what);
	return false;
}

/* An optional integer in [lo, hi]; null or absent gives dflt. */
static bool get_int(json_t *obj, const char *where, const char *key, int64_t lo,
		    int64_t hi, int64_t dflt, bool required, int64_t *out,
		    GError **error)
{
	json_t *v = json_object_get(obj, key);

	*out = dflt;
	if (!v)
		return required ? bad_field(error, where, key, "is missing")
				: true;
	if (json_is_null(v) && !required)
		return true;
	if (!json_is_integer(v))
		return bad_field(error, where, key, "must be an integer");
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return bad_field(error, where, key, "is out of range");
	return true;
}

/* A string looked up in names[0..n); absent gives dflt. */
static bool get_enum(json_t *obj, const char *where, const char *key,
		     const char *(*name_of)(int), int n, int dflt,
		     bool required, int *out, GError **error)
{
	json_t *v = json_object_get(obj, key);
	const char *s;

	*out = dflt;
	if (!v)
		return required ? bad_field(error, where, key, "is missing")
				: true;
	if (!json_is_string(v))
		return bad_field(error, where, key, "must be a string");
	s = json_string_value(v);
	for (int i = 0; i < n; i++)
		if (strcmp(name_of(i), s) == 0) {
			*out = i;
			return true;
		}
	return bad_field(error, where, key, "has an unknown value");
}

static bool get_bool(json_t *obj, const char *where, const char *key, bool *out,
		     GError **error)
{
	json_t *v = json_object_get(obj, key);

	*out = false;
	if (!v)
		return true;
	if (!json_is_boolean(v))
		return bad_field(error, where, key, "must be true or false");
	*out = json_is_true(v);
	return true;
}

static bool get_str(json_t *obj, const char *where, const char *key, char **out,
		    GError **error)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return true;
	if (!json_is_string(v))
		return bad_field(error, where, key, "must be a string");
	if (json_string_length(v) > 4096)
		return bad_field(error, where, key, "is too long");
	*out = g_strdup(json_string_value(v));
	return true;
}

/* Rejects keys outside allowed: a typo must not silently default. */
static bool only_keys(json_t *obj, const char *where,
		      const char *const *allowed, GError **error)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		bool ok = false;

		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = strcmp(allowed[i], key) == 0;
		if (!ok)
			return bad_field(error, where, key,
					 "is not a known field");
	}
	return true;
}

static const char *kind_name_i(int i)
{
	return hd_op_kind_name((enum hd_op_kind)i);
}

static const char *dtype_name_i(int i)
{
	return hd_dtype_name((enum hd_dtype)i);
}

static const char *redop_name_i(int i)
{
	return hd_redop_name((enum hd_redop)i);
}

static const char *state_name_i(int i)
{
	return hd_op_state_name((enum hd_op_state)i);
}

static const char *seq_kind_name_i(int i)
{
	return hd_seq_kind_name(i);
}

static bool op_from_json(json_t *j, const char *where, int nranks,
			 struct replay_op *o, GError **error)
{
	static const char *const keys[] = { "kind",  "count", "dtype",
					    "redop", "peer",  "coalesce",
					    "seq",   "state", "divergent",
					    NULL };
	int kind, dtype, redop, state;
	int64_t count, peer, coalesce, seq;

	if (!json_is_object(j)) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "%s: an op must be an object", where);
		return false;
	}
	if (!only_keys(j, where, keys, error) ||
	    !get_enum(j, where, "kind", kind_name_i, HD_OP_KIND_COUNT, 0, true,
		      &kind, error) ||
	    !get_int(j, where, "count", -1, REPLAY_MAX_OP_ELEMS, -1, true,
		     &count, error) ||
	    !get_enum(j, where, "dtype", dtype_name_i, HD_DTYPE_INT16 + 1, 0,
		      true, &dtype, error) ||
	    !get_enum(j, where, "redop", redop_name_i, HD_REDOP_PREMULSUM + 1,
		      HD_REDOP_NONE, false, &redop, error) ||
	    !get_int(j, where, "peer", 0, nranks - 1, -1, false, &peer,
		     error) ||
	    !get_int(j, where, "coalesce", 0, INT32_MAX, -1, false, &coalesce,
		     error) ||
	    !get_int(j, where, "seq", 0, INT64_MAX, -1, false, &seq, error) ||
	    !get_enum(j, where, "state", state_name_i, HD_STATE_COMPLETED + 1,
		      HD_STATE_UNKNOWN, false, &state, error) ||
	    !get_bool(j, where, "divergent", &o->divergent, error))
		return false;
	o->kind = kind;
	o->count = count;
	o->dtype = dtype;
	o->redop = redop;
	o->peer = (int)peer;
	o->coalesce = (int)coalesce;
	o->seq = seq;
	o->state = state;
	return true;
}

/* Parses a plan file's bytes into its root object.  (transfer full) */
static json_t *plan_root(const char *text, size_t len, GError **error)
{
	json_error_t jerr;
	json_t *root;

	if (len > REPLAY_MAX_PLAN_BYTES) {
		g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
			    "plan is larger than %u bytes",
			    REPLAY_MAX_PLAN_BYTES);
		return NULL;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "not a JSON plan: line %d: %s", jerr.line,
			    jerr.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "a plan must be a JSON object");
		return NULL;
	}
	return root;
}

/* The plan's own fields: format, version, verdict, position, scale. */
static bool plan_fields_from_json(json_t *root, struct replay_plan *p,
				  GError **error)
{
	static const char *const keys[] = { "format", "version", "verdict",
					    "group",  "seq",	 "seq_kind",
					    "window", "scale",	 "fixed",
					    "ranks",  NULL };
	json_t *v;
	int64_t iv;
	int seq_kind;

	if (!only_keys(root, "plan", keys, error))
		return false;
	v = json_object_get(root, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), PLAN_FORMAT)) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "plan: 'format' must be \"%s\"", PLAN_FORMAT);
		return false;
	}
	if (!get_int(root, "plan", "version", REPLAY_PLAN_VERSION,
		     REPLAY_PLAN_VERSION, 0, true, &iv, error))
		return false;
	if (!get_str(root, "plan", "verdict", &p->verdict, error) ||
	    !get_int(root, "plan", "seq", 0, INT64_MAX, -1, false, &p->seq,
		     error) ||
	    !get_enum(root, "plan", "seq_kind", seq_kind_name_i,
		      HD_SEQ_ORDINAL + 1, HD_SEQ_COLLECTIVE, false, &seq_kind,
		      error) ||
	    !get_int(root, "plan", "window", 0, REPLAY_MAX_WINDOW,
		     REPLAY_DEFAULT_WINDOW, false, &iv, error) ||
	    !get_bool(root, "plan", "fixed", &p->fixed, error))
		return false;
	p->seq_kind = (uint8_t)seq_kind;
	p->window = (int)iv;
	v = json_object_get(root, "scale");
	if (v) {
		if (!json_is_number(v) || !(json_number_value(v) > 0.0) ||
		    json_number_value(v) > 1.0) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "plan: 'scale' must be a number in (0, 1]");
			return false;
		}
		p->scale = json_number_value(v);
	}
	return true;
}

/* The optional "group" object, whose nranks must match the ranks'. */
static bool group_from_json(json_t *root, size_t nranks, struct replay_plan *p,
			    GError **error)
{
	static const char *const group_keys[] = { "id", "name", "nranks",
						  NULL };
	json_t *group = json_object_get(root, "group");
	int64_t iv;

	if (!group || json_is_null(group))
		return true;
	if (!json_is_object(group) ||
	    !only_keys(group, "group", group_keys, error) ||
	    !get_str(group, "group", "id", &p->group_id, error) ||
	    !get_str(group, "group", "name", &p->group_name, error) ||
	    !get_int(group, "group", "nranks", (int64_t)nranks, (int64_t)nranks,
		     -1, false, &iv, error)) {
		if (error && !*error)
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "plan: 'group' must be an object");
		return false;
	}
	return true;
}

/* Rank r of the "ranks" array, appended to p with its ops. */
static bool rank_from_json(json_t *jr, size_t r, size_t nranks,
			   struct replay_plan *p, GError **error)
{
	static const char *const rank_keys[] = { "rank", "global_rank", "ops",
						 NULL };
	json_t *ops;
	struct replay_rank *rr;
	char where[64];
	int64_t rank, global;

	g_snprintf(where, sizeof(where), "rank %zu", r);
	if (!json_is_object(jr)) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "%s: must be an object", where);
		return false;
	}
	if (!only_keys(jr, where, rank_keys, error) ||
	    !get_int(jr, where, "rank", (int64_t)r, (int64_t)r, -1, true, &rank,
		     error) ||
	    !get_int(jr, where, "global_rank", 0, INT32_MAX, -1, false, &global,
		     error))
		return false;
	ops = json_object_get(jr, "ops");
	if (!json_is_array(ops) ||
	    json_array_size(ops) > REPLAY_MAX_OPS_PER_RANK) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "%s: 'ops' must be an array of at most %d ops",
			    where, REPLAY_MAX_OPS_PER_RANK);
		return false;
	}
	rr = replay_plan_add_rank(p, (int)global);
	for (size_t i = 0; i < json_array_size(ops); i++) {
		struct replay_op o = { 0 };

		g_snprintf(where, sizeof(where), "rank %zu op %zu", r, i);
		if (!op_from_json(json_array_get(ops, i), where, (int)nranks,
				  &o, error))
			return false;
		g_array_append_val(rr->ops, o);
	}
	return true;
}

struct replay_plan *replay_plan_from_json(const char *text, size_t len,
					  GError **error)
{
	g_autoptr(json_t) root = plan_root(text, len, error);
	g_autoptr(replay_plan) p = replay_plan_new();
	json_t *ranks;
	size_t nranks;

	if (!root || !plan_fields_from_json(root, p, error))
		return NULL;
	ranks = json_object_get(root, "ranks");
	if (!json_is_array(ranks) || json_array_size(ranks) == 0 ||
	    json_array_size(ranks) > REPLAY_MAX_RANKS) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "plan: 'ranks' must be an array of 1 to %d ranks",
			    REPLAY_MAX_RANKS);
		return NULL;
	}
	nranks = json_array_size(ranks);
	if (!group_from_json(root, nranks, p, error))
		return NULL;
	for (size_t r = 0; r < nranks; r++)
		if (!rank_from_json(json_array_get(ranks, r), r, nranks, p,
				    error))
			return NULL;
	if (!replay_plan_validate(p, error))
		return NULL;
	return g_steal_pointer(&p);
}

bool replay_plan_write(const struct replay_plan *p, FILE *out)
{
	g_autofree char *text = replay_plan_to_json(p);

	return fputs(text, out) >= 0 && !ferror(out);
}

struct replay_plan *replay_plan_load(const char *path, GError **error)
{
	g_autofree char *buf = NULL;
	FILE *f = fopen(path, "rb");
	size_t len;

	if (!f) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot open '%s': %s", path, g_strerror(errno));
		return NULL;
	}
	/* One byte more than the limit tells "too big" from "just fits". */
	buf = g_malloc(REPLAY_MAX_PLAN_BYTES + 1);
	len = fread(buf, 1, REPLAY_MAX_PLAN_BYTES + 1, f);
	if (ferror(f)) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO, "cannot read '%s'",
			    path);
		fclose(f);
		return NULL;
	}
	fclose(f);
	if (len > REPLAY_MAX_PLAN_BYTES) {
		g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
			    "'%s': plan is larger than %u bytes", path,
			    REPLAY_MAX_PLAN_BYTES);
		return NULL;
	}
	{
		struct replay_plan *p = replay_plan_from_json(buf, len, error);

		if (!p)
			g_prefix_error(error, "'%s': ", path);
		return p;
	}
}
