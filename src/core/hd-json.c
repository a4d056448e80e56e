/*
 * JSON emitter helpers (hd-json.h): the small jansson constructors the
 * reports, `show` and replay plans used to define each for itself.
 */
#include "config.h"

#include "hd-json.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "hd-banned.h"

/*
 * Jansson and cJSON allocate through GLib, so running out of memory aborts
 * as g_malloc() does everywhere else in hangdoc, instead of returning a
 * NULL that every json_object() caller would have to check (and that
 * json_object_set_new() would silently drop).  Runs before main().
 */
__attribute__((constructor)) static void hd_json_alloc_init(void)
{
	cJSON_Hooks hooks = { .malloc_fn = g_malloc, .free_fn = g_free };

	json_set_alloc_funcs(g_malloc, g_free);
	cJSON_InitHooks(&hooks);
}

json_t *hd_json_int_or_null(int64_t v, int64_t none)
{
	return v == none ? json_null() : json_integer(v);
}

json_t *hd_json_nonneg_or_null(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

json_t *hd_json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

char *hd_utf8_make_valid(const char *s)
{
	GString *out = g_string_sized_new(strlen(s));
	const char *p = s;
	const char *end;

	while (!g_utf8_validate(p, -1, &end)) {
		g_string_append_len(out, p, end - p);
		g_string_append(out, "\xef\xbf\xbd");
		p = end + 1;
	}
	g_string_append(out, p);
	return g_string_free(out, FALSE);
}

json_t *hd_json_string(const char *s)
{
	g_autofree char *v = NULL;

	if (!s)
		return json_null();
	if (g_utf8_validate(s, -1, NULL))
		return json_string(s);
	v = hd_utf8_make_valid(s);
	return json_string(v);
}

json_t *hd_json_int_array(const GArray *a)
{
	json_t *arr = json_array();

	for (guint i = 0; a && i < a->len; i++)
		json_array_append_new(arr,
				      json_integer(g_array_index(a, int, i)));
	return arr;
}

json_t *hd_json_string_array(const GPtrArray *a)
{
	json_t *arr = json_array();

	for (guint i = 0; a && i < a->len; i++)
		json_array_append_new(arr,
				      hd_json_string(g_ptr_array_index(a, i)));
	return arr;
}
