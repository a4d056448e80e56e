/*
 * Shared helpers for the Check unit tests of every layer: a main() per
 * suite and paths into the source tree.  hd-test-parse.h (parsers and up)
 * parses through the parsers' one entry point; hd-test-engine.h (engine and
 * up) finds verdicts.
 */
#ifndef HD_TEST_H
#define HD_TEST_H

#include <check.h>
#include <glib.h>
#include <stdlib.h>

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

#endif
