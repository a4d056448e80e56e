/*
 * Whether two stores parsed from the same bytes are the same store, for
 * the tests that read an input two ways (the NCCL log parser's COLL fast
 * path against its long way) and for the fuzzer that does the same: the
 * op and extra records byte for byte, and everything else through the
 * digest encoding, which holds every entity the engine reads (inputs with
 * their counts and warnings, ranks, groups, descriptors, signals,
 * stacks).  No Check here: the fuzzer includes it too.
 */
#ifndef HD_TEST_SAME_H
#define HD_TEST_SAME_H

#include <string.h>

#include "hd-digest-file.h"
#include "hd-store.h"

/*
 * The first difference between stores a and b, or NULL when there is
 * none.  (transfer full)
 */
static inline char *hd_test_store_diff(const struct hd_store *a,
				       const struct hd_store *b)
{
	GBytes *da, *db;
	GError *ea = NULL, *eb = NULL;
	char *diff = NULL;

	if (a->ops->len != b->ops->len)
		return g_strdup_printf("%u ops against %u", a->ops->len,
				       b->ops->len);
	for (guint i = 0; i < a->ops->len; i++)
		if (memcmp(hd_store_op(a, i), hd_store_op(b, i),
			   sizeof(struct hd_op)) != 0)
			return g_strdup_printf("op %u differs", i);
	/* the side table is made when a first op needs it */
	if ((a->op_extra ? a->op_extra->len : 0) !=
	    (b->op_extra ? b->op_extra->len : 0))
		return g_strdup("the extra records differ in number");
	if (a->op_extra && a->op_extra->len &&
	    memcmp(a->op_extra->data, b->op_extra->data,
		   a->op_extra->len * sizeof(struct hd_op_xrec)) != 0)
		return g_strdup("the extra records differ");
	for (guint i = 0; i < a->inputs->len && i < b->inputs->len; i++) {
		const struct hd_input *x = hd_store_input(a, i);
		const struct hd_input *y = hd_store_input(b, i);

		if (x->records != y->records || x->skipped != y->skipped ||
		    x->nwarnings != y->nwarnings ||
		    x->truncated != y->truncated || x->bytes != y->bytes)
			return g_strdup_printf(
				"input %u: %" G_GUINT64_FORMAT
				" records, %" G_GUINT64_FORMAT
				" skipped, %" G_GUINT64_FORMAT
				" warnings against %" G_GUINT64_FORMAT
				", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT,
				i, (guint64)x->records, (guint64)x->skipped,
				(guint64)x->nwarnings, (guint64)y->records,
				(guint64)y->skipped, (guint64)y->nwarnings);
	}
	da = hd_digest_file_encode(a, 0, &ea);
	db = hd_digest_file_encode(b, 0, &eb);
	if (!da || !db) {
		if (!!da != !!db || strcmp(ea->message, eb->message) != 0)
			diff = g_strdup_printf("encoding: %s against %s",
					       ea ? ea->message : "ok",
					       eb ? eb->message : "ok");
	} else if (!g_bytes_equal(da, db)) {
		diff = g_strdup("the digests differ");
	}
	if (da)
		g_bytes_unref(da);
	if (db)
		g_bytes_unref(db);
	g_clear_error(&ea);
	g_clear_error(&eb);
	return diff;
}

#endif
