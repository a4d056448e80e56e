/*
 * Comparators shared by every layer, for g_array_sort() and qsort(): one
 * definition each instead of a static copy per file.
 */
#ifndef HD_SORT_H
#define HD_SORT_H

#include <glib.h>

/* Orders ints ascending (a and b point to int). */
gint hd_compare_int(gconstpointer a, gconstpointer b);

#endif
