/*
 * The JSON emitter helpers every layer that writes JSON shares (the
 * reports, `show`, replay plans and results): jansson values for fields
 * that may be unknown, and strings made safe for jansson, which refuses
 * invalid UTF-8.
 *
 * Ownership: every function returns a new reference (transfer full), for
 * json_object_set_new() and json_array_append_new() to steal.
 */
#ifndef HD_JSON_H
#define HD_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <glib.h>
#include <jansson.h>

/* v, or null when it is none (the field's "unknown").  (transfer full) */
json_t *hd_json_int_or_null(int64_t v, int64_t none);
/* v, or null when it is negative.  (transfer full) */
json_t *hd_json_nonneg_or_null(int64_t v);

/*
 * s as jansson's json_string() takes it, or null for NULL.  Like
 * json_string(), it gives NULL (and json_object_set_new() then sets
 * nothing) for invalid UTF-8: use it for strings hangdoc made itself.
 * (transfer full)
 */
json_t *hd_json_str_or_null(const char *s);

/*
 * s with every invalid UTF-8 byte replaced by U+FFFD, for strings that
 * came from an input; NULL gives null.  (transfer full)
 */
json_t *hd_json_string(const char *s);

/* An array of the ints in a (NULL: empty).  (transfer full) */
json_t *hd_json_int_array(const GArray *a);
/* An array of the strings in a, each as hd_json_string() makes it. */
json_t *hd_json_string_array(const GPtrArray *a);

/* A copy of s with every invalid UTF-8 byte replaced by U+FFFD. */
char *hd_utf8_make_valid(const char *s);

/*
 * Whether c is written as "\uXXXX" in every JSON hangdoc writes: what
 * hd_text_is_control() names (DEL, C1 controls such as U+009B, the CSI
 * of some terminals, and the bidirectional controls U+061C, U+200E-F,
 * U+202A-E, U+2066-9), and U+2028 and U+2029, which end a line in
 * JavaScript and in some editors.  jansson escapes only C0 controls.
 */
bool hd_json_must_escape(gunichar c);

/*
 * text, JSON as jansson writes it (valid UTF-8), with each code point
 * hd_json_must_escape() names written as "\u" and four lower-case hex
 * digits.  (transfer full)
 */
char *hd_json_escape_text(const char *text);

/*
 * The one way hangdoc turns a jansson value into JSON text:
 * json_dumps(json, flags), then hd_json_escape_text().  NULL when jansson
 * fails.  (transfer full, g_free)
 */
char *hd_json_dumps(const json_t *json, size_t flags);

/* hd_json_dumps() written to out, without a newline; false on failure. */
bool hd_json_dumpf(const json_t *json, FILE *out, size_t flags);

#endif
