/*
 * JSON emitter helpers (hd-json.h): the small jansson constructors the
 * reports, `show` and replay plans used to define each for itself, and
 * the one writer of JSON text every emitter goes through, which escapes
 * what jansson leaves raw.
 */
#include "config.h"

#include "hd-json.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "hd-text.h"

#include "hd-const.h"
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

bool hd_json_must_escape(gunichar c)
{
	return hd_text_is_control(c) || c == 0x2028 || c == 0x2029;
}

char *hd_json_escape_text(const char *text)
{
	GString *out = g_string_sized_new(strlen(text) + 16);

	for (const char *p = text; *p;) {
		const char *next = hd_utf8_next(p);
		gunichar c = g_utf8_get_char_validated(p, next - p);

		/*
		 * jansson's text is valid UTF-8, and these code points can
		 * only stand inside a string, where "\uXXXX" means the same.
		 */
		if (c != (gunichar)-1 && c != (gunichar)-2 && c >= 0x20 &&
		    hd_json_must_escape(c))
			g_string_append_printf(out, "\\u%04x", (unsigned)c);
		else
			g_string_append_len(out, p, next - p);
		p = next;
	}
	return g_string_free(out, FALSE);
}

char *hd_json_dumps(const json_t *json, size_t flags)
{
	char *raw = json_dumps(json, flags);
	char *text;

	if (!raw)
		return NULL;
	text = hd_json_escape_text(raw);
	g_free(raw); /* jansson allocates with g_malloc() */
	return text;
}

bool hd_json_dumpf(const json_t *json, FILE *out, size_t flags)
{
	g_autofree char *text = hd_json_dumps(json, flags);

	return text && fputs(text, out) >= 0;
}
