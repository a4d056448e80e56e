/*
 * Test helpers for the parsers and the layers above: parsing a buffer or a
 * file into a fresh store through parsers_parse_input(), the loader's own
 * entry point, and reading what it holds (ops, signals, warnings).
 */
#ifndef HD_TEST_PARSE_H
#define HD_TEST_PARSE_H

#include <string.h>

#include "hd-error.h"
#include "hd-input.h"
#include "hd-store.h"
#include "hd-test.h"
#include "parsers.h"

/*
 * Parses len bytes of data as kind (HD_INPUT_UNKNOWN: sniff) into a new store
 * holding one input named name.  *ok is false when the input
 * ended with an error, which *error then holds.
 * (transfer full)
 */
static inline struct hd_store *hd_test_parse(enum hd_input_kind kind,
					     const char *name, const void *data,
					     size_t len, bool *ok,
					     GError **error)
{
	struct hd_reader *rd = hd_reader_new_from_memory(data, len, error);
	struct hd_store *s;
	const struct hd_input *in;

	if (!rd) {
		if (ok)
			*ok = false;
		return hd_store_new();
	}
	s = parsers_parse_input(rd, name, kind);
	hd_reader_free(rd);
	in = hd_store_input(s, 0);
	if (in->error)
		g_set_error_literal(error, HD_ERROR, HD_ERROR_FORMAT,
				    in->error);
	if (ok)
		*ok = !in->error;
	return s;
}

/* Parses a NUL-terminated string as an input named name.  (transfer full) */
static inline struct hd_store *hd_test_parse_named(enum hd_input_kind kind,
						   const char *name,
						   const char *text, bool *ok)
{
	g_autoptr(GError) err = NULL;

	return hd_test_parse(kind, name, text, strlen(text), ok, &err);
}

/* Parses a NUL-terminated string.  (transfer full) */
static inline struct hd_store *hd_test_parse_str(enum hd_input_kind kind,
						 const char *text, bool *ok)
{
	return hd_test_parse_named(kind, "test.log", text, ok);
}

/* Parses a NUL-terminated string, asserted usable.  (transfer full) */
static inline struct hd_store *hd_test_parse_ok(enum hd_input_kind kind,
						const char *text)
{
	g_autoptr(GError) err = NULL;
	bool ok = false;
	struct hd_store *s =
		hd_test_parse(kind, "t.log", text, strlen(text), &ok, &err);

	ck_assert_msg(ok, "parse failed: %s", err ? err->message : "?");
	return s;
}

/* Parses a file (compressed or not) by its path.  (transfer full) */
static inline struct hd_store *hd_test_parse_file(const char *path, bool *ok,
						  GError **error)
{
	struct hd_store *s = parsers_parse_file(path);
	const struct hd_input *in = hd_store_input(s, 0);

	if (in->error)
		g_set_error_literal(error, HD_ERROR, HD_ERROR_FORMAT,
				    in->error);
	if (ok)
		*ok = !in->error;
	return s;
}

/* Whether one of in's warnings holds needle. */
static inline bool hd_test_has_warning(const struct hd_input *in,
				       const char *needle)
{
	for (guint i = 0; i < in->warnings->len; i++)
		if (strstr(g_ptr_array_index(in->warnings, i), needle))
			return true;
	return false;
}

/* Op i of s, asserted in range.  (transfer none) */
static inline struct hd_op *op_at(struct hd_store *s, guint i)
{
	ck_assert_uint_lt(i, s->ops->len);
	return &g_array_index(s->ops, struct hd_op, i);
}

/* Signal i of s, asserted in range.  (transfer none) */
static inline struct hd_signal *sig_at(struct hd_store *s, guint i)
{
	ck_assert_uint_lt(i, s->signals->len);
	return &g_array_index(s->signals, struct hd_signal, i);
}

/*
 * The first signal of a type, or NULL.  Not inlined: GCC's
 * -Wnull-dereference would then flag every test that reads a field of
 * one it asserted.  (transfer none)
 */
G_GNUC_NO_INLINE G_GNUC_UNUSED static struct hd_signal *
sig_type(struct hd_store *s, int type)
{
	for (guint i = 0; i < s->signals->len; i++)
		if (sig_at(s, i)->type == type)
			return sig_at(s, i);
	return NULL;
}

/* How many signals of a type s holds. */
static inline guint count_type(struct hd_store *s, int type)
{
	guint n = 0;

	for (guint i = 0; i < s->signals->len; i++)
		n += sig_at(s, i)->type == type;
	return n;
}

#endif
