/*
 * Shared helpers for the Check unit tests: a main() per suite, paths into
 * the source tree, parsing a buffer into a fresh store, and finding a
 * verdict in an analysis.
 */
#ifndef HD_TEST_H
#define HD_TEST_H

#include <check.h>
#include <glib.h>
#include <stdlib.h>

#include "hd-engine.h"
#include "hd-input.h"
#include "hd-store.h"
#include "parsers.h"

#define HD_TEST_MAIN(suite_fn)                                           \
	int main(void)                                                   \
	{                                                                \
		SRunner *sr = srunner_create(suite_fn());                \
		int failed;                                              \
		srunner_run_all(sr, CK_NORMAL);                          \
		failed = srunner_ntests_failed(sr);                      \
		srunner_free(sr);                                        \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;             \
	}

/* The first verdict of a kind, or NULL.  (transfer none) */
static inline const struct hd_verdict *
hd_test_verdict(const struct hd_analysis *a, enum hd_verdict_kind kind)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (v->kind == kind)
			return v;
	}
	return NULL;
}

/* A path below the source tree.  (transfer full) */
static inline char *hd_test_path(const char *rel)
{
	return g_build_filename(HD_SRCDIR, rel, NULL);
}

/* A path below ../shared beside the source tree.  (transfer full) */
static inline char *hd_test_shared_path(const char *rel)
{
	return g_build_filename(HD_SRCDIR, "..", "shared", rel, NULL);
}

/*
 * Parses len bytes of data as kind (HD_INPUT_UNKNOWN: sniff) into a new store
 * holding one input named name.  *ok receives the parser's return value.
 * (transfer full)
 */
static inline struct hd_store *hd_test_parse(enum hd_input_kind kind,
					     const char *name,
					     const void *data, size_t len,
					     bool *ok, GError **error)
{
	struct hd_store *s = hd_store_new();
	uint32_t in = hd_store_add_input(s, name);
	struct hd_reader *rd = hd_reader_new_from_memory(data, len, error);
	bool res = false;

	if (rd) {
		if (kind == HD_INPUT_UNKNOWN) {
			size_t hl;
			const uint8_t *h = hd_reader_head(rd, &hl, error);

			kind = parsers_sniff(h, hl);
		}
		res = parsers_parse(kind, rd, s, in, error);
		hd_reader_free(rd);
	}
	if (ok)
		*ok = res;
	return s;
}

/* Parses a NUL-terminated string.  (transfer full) */
static inline struct hd_store *hd_test_parse_str(enum hd_input_kind kind,
						 const char *text, bool *ok)
{
	g_autoptr(GError) err = NULL;

	return hd_test_parse(kind, "test.log", text, strlen(text), ok, &err);
}

/* Parses a file (compressed or not) by its path.  (transfer full) */
static inline struct hd_store *hd_test_parse_file(const char *path, bool *ok,
						  GError **error)
{
	struct hd_store *s = hd_store_new();
	uint32_t in = hd_store_add_input(s, path);
	struct hd_reader *rd = hd_reader_open(path, error);
	bool res = false;

	if (rd) {
		size_t hl;
		const uint8_t *h = hd_reader_head(rd, &hl, error);

		res = parsers_parse(parsers_sniff(h, hl), rd, s, in, error);
		hd_reader_free(rd);
	}
	if (ok)
		*ok = res;
	return s;
}

#endif
