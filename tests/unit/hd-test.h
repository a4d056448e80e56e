/*
 * Shared helpers for the Check unit tests of every layer: a main() per
 * suite, paths into the source tree, and gzip-compressed test data.  hd-test-parse.h (parsers and up)
 * parses through the parsers' one entry point; hd-test-engine.h (engine and
 * up) finds verdicts.
 */
#ifndef HD_TEST_H
#define HD_TEST_H

#include <check.h>
#include <glib.h>
#include <stdlib.h>
#include <zlib.h>

#define HD_TEST_MAIN(suite_fn)                               \
	int main(void)                                       \
	{                                                    \
		SRunner *sr = srunner_create(suite_fn());    \
		int failed;                                  \
		srunner_run_all(sr, CK_NORMAL);              \
		failed = srunner_ntests_failed(sr);          \
		srunner_free(sr);                            \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS; \
	}

/* A path below the source tree.  (transfer full) */
static inline char *hd_test_path(const char *rel)
{
	return g_build_filename(HD_SRCDIR, rel, NULL);
}

/* len bytes of text as one gzip member.  (transfer full) */
static inline GBytes *hd_test_gzip(const void *text, size_t len)
{
	z_stream zs = { 0 };
	size_t cap = compressBound(len) + 64;
	uint8_t *out = g_malloc(cap);

	deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	zs.next_in = (Bytef *)(uintptr_t)text;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	deflateEnd(&zs);
	return g_bytes_new_take(out, zs.total_out);
}

#endif
