/*
 * Comparators shared by every layer, for g_array_sort() and qsort(), and
 * the sorted int arrays (rank sets) they make: one definition each
 * instead of a static copy per file.
 */
#ifndef HD_SORT_H
#define HD_SORT_H

#include <stdbool.h>
#include <glib.h>

/* Orders ints ascending (a and b point to int). */
gint hd_compare_int(gconstpointer a, gconstpointer b);
/* Orders int64_t ascending. */
gint hd_compare_i64(gconstpointer a, gconstpointer b);
/* Orders uint64_t ascending. */
gint hd_compare_u64(gconstpointer a, gconstpointer b);
/* Orders struct hd_rank pointers by rank (a and b point to the pointers). */
gint hd_compare_rank_ptr(gconstpointer a, gconstpointer b);
/* Orders strings by strcmp() (a and b point to char *). */
gint hd_compare_str(gconstpointer a, gconstpointer b);
/*
 * Natural order of two strings: runs of digits compare as numbers of any
 * length ("rank_2" before "rank_10" before "rank_1000"; "r007" equals
 * "r7"), the rest byte by byte.  The order every report lists inputs in
 * (hd_analysis's inputs).
 */
int hd_natural_cmp(const char *a, const char *b);
/*
 * Orders struct hd_input pointers by path in natural order, byte order
 * where that ties ("r01" and "r1"): a and b point to the pointers.
 */
gint hd_compare_input_path(gconstpointer a, gconstpointer b);

/*
 * Sorts a (a GArray of int) ascending and keeps each value once: a rank
 * set, for hd_ints_lower_bound().
 */
void hd_ints_sort_unique(GArray *a);
/* The index of the first value of sorted (a sorted GArray of int) >= v. */
guint hd_ints_lower_bound(const GArray *sorted, int v);
/* Whether sorted (a sorted GArray of int) holds v. */
bool hd_ints_contains(const GArray *sorted, int v);

#endif
