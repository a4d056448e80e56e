/*
 * Comparators shared by every layer, for g_array_sort() and qsort(): one
 * definition each instead of a static copy per file.
 */
#ifndef HD_SORT_H
#define HD_SORT_H

#include <glib.h>

/* Orders ints ascending (a and b point to int). */
gint hd_compare_int(gconstpointer a, gconstpointer b);
/* Orders int64_t ascending. */
gint hd_compare_i64(gconstpointer a, gconstpointer b);
/* Orders struct hd_rank pointers by rank (a and b point to the pointers). */
gint hd_compare_rank_ptr(gconstpointer a, gconstpointer b);

#endif
