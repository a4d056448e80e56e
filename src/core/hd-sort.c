/*
 * Comparators shared by every layer (hd-sort.h).
 */
#include "config.h"

#include "hd-sort.h"

#include "hd-banned.h"

gint hd_compare_int(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}
