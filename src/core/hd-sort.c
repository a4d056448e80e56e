/*
 * Comparators shared by every layer (hd-sort.h).
 */
#include "config.h"

#include "hd-sort.h"

#include <stdint.h>

#include "hd-store.h"
#include "hd-banned.h"

gint hd_compare_int(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

gint hd_compare_i64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

gint hd_compare_rank_ptr(gconstpointer pa, gconstpointer pb)
{
	const struct hd_rank *a = *(const struct hd_rank *const *)pa;
	const struct hd_rank *b = *(const struct hd_rank *const *)pb;

	return (a->rank > b->rank) - (a->rank < b->rank);
}
