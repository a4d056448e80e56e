/*
 * The JSON variant of a flight-recorder dump (fr-json.h): decoded with
 * jansson into the pickle reader's tree, so that flight-rec.c reads one
 * shape whichever the dump is; a dump past the node budget or cut short
 * keeps its whole values, as a pickle does.
 */
#include "config.h"

#include "fr-json.h"

#include <string.h>

#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-budget.h"
#include "hd-error.h"
#include "hd-banned.h"

/*
 * What a pass over JSON text found before any of it is built: the nodes
 * its tree needs (containers, keys and values; an upper bound, exact but
 * for empty containers) and where the text can be cut so that what comes
 * before, closed, is a document of whole values.  jansson's DOM costs tens
 * of bytes a value, so counting first keeps a dump of millions of tiny
 * values from costing gigabytes before the node budget is seen.
 */
struct fr_json_scan {
	uint64_t nodes;
	size_t over_at; /* where the budget ran out: nodes > max */
	bool over;
	bool too_deep;
	bool open; /* the text ends inside a string or container */
	/* The last ',' outside strings and the containers open there. */
	size_t cut;
	int cut_depth; /* 0: no cut */
	char close[PK_MAX_DEPTH + 1];
};

static void json_prescan(const uint8_t *p, size_t len, uint64_t max,
			 struct fr_json_scan *sc)
{
	int depth = 0;
	bool in_str = false;

	memset(sc, 0, sizeof(*sc));
	sc->nodes = 1; /* the top-level value */
	for (size_t i = 0; i < len; i++) {
		uint8_t c = p[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		switch (c) {
		case '"':
			in_str = true;
			break;
		case '[':
		case '{':
			if (depth > PK_MAX_DEPTH) {
				sc->too_deep = true;
				return;
			}
			/*
			 * Opened below the cut with no ',' since: not JSON,
			 * and the prefix before the cut would not be either.
			 */
			if (depth < sc->cut_depth)
				sc->cut_depth = 0;
			sc->close[depth++] = c == '[' ? ']' : '}';
			sc->nodes += 2; /* it and its first member */
			break;
		case ']':
		case '}':
			if (depth > 0)
				depth--;
			break;
		case ',':
			sc->cut = i;
			sc->cut_depth = depth;
			sc->nodes++;
			break;
		case ':':
			sc->nodes++;
			break;
		default:
			break;
		}
		if (sc->nodes > max) {
			sc->over = true;
			sc->over_at = i;
			return;
		}
	}
	sc->open = in_str || depth > 0;
}

/*
 * JSON value -> tree node, or PK_NIL past max_nodes, past PK_MAX_DEPTH or
 * when a builder refuses.  NULL-safe.
 */
static uint32_t from_json(struct pk_tree *t, json_t *j, int depth,
			  uint32_t max_nodes)
{
	g_autoptr(GArray) kids = NULL;

	if (depth > PK_MAX_DEPTH || t->nnodes >= max_nodes)
		return PK_NIL;
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		const char *k;
		json_t *v;

		kids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		json_object_foreach(j, k, v) {
			uint32_t ki, vi;

			if (t->nnodes >= max_nodes)
				return PK_NIL;
			ki = pk_add_str(t, k, strlen(k));
			if (ki == PK_NIL)
				return PK_NIL;
			vi = from_json(t, v, depth + 1, max_nodes);
			if (vi == PK_NIL)
				return PK_NIL;
			g_array_append_val(kids, ki);
			g_array_append_val(kids, vi);
		}
		if (kids->len > UINT32_MAX / 2 || t->nnodes >= max_nodes)
			return PK_NIL;
		return pk_add_container(t, PK_DICT,
					(const uint32_t *)(void *)kids->data,
					kids->len);
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *v;

		kids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
		json_array_foreach(j, i, v) {
			uint32_t vi = from_json(t, v, depth + 1, max_nodes);

			if (vi == PK_NIL)
				return PK_NIL;
			g_array_append_val(kids, vi);
		}
		if (kids->len > UINT32_MAX / 2 || t->nnodes >= max_nodes)
			return PK_NIL;
		return pk_add_container(t, PK_LIST,
					(const uint32_t *)(void *)kids->data,
					kids->len);
	}
	case JSON_STRING:
		return pk_add_str(t, json_string_value(j),
				  json_string_length(j));
	case JSON_INTEGER:
		return pk_add_scalar(t, PK_INT, json_integer_value(j), 0);
	case JSON_REAL:
		return pk_add_scalar(t, PK_FLOAT, 0, json_real_value(j));
	case JSON_TRUE:
	case JSON_FALSE:
		return pk_add_scalar(t, PK_BOOL, json_is_true(j), 0);
	case JSON_NULL:
		break;
	}
	return pk_add_scalar(t, PK_NONE, 0, 0);
}

/*
 * Flags the containers a cut closed, as the pickle salvage does: the root
 * and, below it, the last child of each, depth levels in all.
 */
static void mark_partial(struct pk_tree *t, int depth)
{
	uint32_t id = t->root;

	for (int d = 0; d < depth && pk_node(t, id); d++) {
		t->node[id].flags |= PK_F_PARTIAL;
		id = pk_child(t, id, pk_len(t, id) - 1);
	}
}

struct pk_tree *fr_json_decode(const uint8_t *p, size_t len, size_t base,
			       uint32_t max_nodes, GError **error)
{
	json_error_t jerr;
	g_autoptr(json_t) j = NULL;
	g_autoptr(GString) prefix = NULL;
	g_autofree char *why = NULL;
	struct fr_json_scan sc;
	enum pk_status status = PK_OK;
	struct pk_tree *t;

	json_prescan(p, len, max_nodes, &sc);
	if (sc.too_deep) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "JSON nested deeper than %d", PK_MAX_DEPTH);
		return NULL;
	}
	if (sc.over) {
		why = g_strdup_printf("more than %" G_GUINT32_FORMAT
				      " JSON values, the budget for a dump",
				      max_nodes);
		hd_budget_note("%s", why);
		if (sc.cut_depth == 0) {
			g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    "%s; nothing before it to keep", why);
			return NULL;
		}
		status = PK_ERROR;
	} else if (sc.open && sc.cut_depth > 0) {
		why = g_strdup("input ends inside a JSON value");
		status = PK_TRUNCATED;
	}
	if (status != PK_OK) {
		prefix = g_string_new_len((const char *)p, (gssize)sc.cut);
		for (int d = sc.cut_depth - 1; d >= 0; d--)
			g_string_append_c(prefix, sc.close[d]);
		j = json_loadb(prefix->str, prefix->len, JSON_ALLOW_NUL, &jerr);
	} else {
		j = json_loadb((const char *)p, len, JSON_ALLOW_NUL, &jerr);
	}
	if (!j) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "invalid JSON at byte %d: %s", jerr.position,
			    jerr.text);
		return NULL;
	}
	t = pk_tree_new(p, len);
	t->root = from_json(t, j, 0, max_nodes);
	if (t->root == PK_NIL) {
		pk_tree_free(t);
		g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
			    "JSON tree larger than %" G_GUINT32_FORMAT
			    " nodes, the budget for a dump",
			    max_nodes);
		return NULL;
	}
	if (status != PK_OK) {
		mark_partial(t, sc.cut_depth);
		t->status = status;
		t->stop_at = base + (status == PK_ERROR ? sc.over_at : len);
		t->message = g_steal_pointer(&why);
	}
	return t;
}
