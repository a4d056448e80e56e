/* Test helpers for the engine and the layers above. */
#ifndef HD_TEST_ENGINE_H
#define HD_TEST_ENGINE_H

#include "hd-engine.h"
#include "hd-test.h"

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

#endif
