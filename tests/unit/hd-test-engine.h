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

/* The top verdict of a, asserted present.  (transfer none) */
static inline const struct hd_verdict *hd_test_top(const struct hd_analysis *a)
{
	ck_assert_uint_gt(a->verdicts->len, 0);
	return g_ptr_array_index(a->verdicts, 0);
}

/* Asserts that v blames exactly the n ranks of want, ascending. */
static inline void hd_test_assert_culprits(const struct hd_verdict *v,
					   const int *want, guint n)
{
	ck_assert_msg(v->culprits->len == n, "%s: %u culprits, want %u (%s)",
		      hd_verdict_kind_name(v->kind), v->culprits->len, n,
		      v->summary);
	for (guint i = 0; i < n; i++)
		ck_assert_int_eq(g_array_index(v->culprits, int, i), want[i]);
}

#endif
