/*
 * Comparators and sorted int arrays shared by every layer (hd-sort.h).
 */
#include "config.h"

#include "hd-sort.h"

#include <stdint.h>
#include <string.h>

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

gint hd_compare_u64(gconstpointer a, gconstpointer b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

gint hd_compare_rank_ptr(gconstpointer pa, gconstpointer pb)
{
	const struct hd_rank *a = *(const struct hd_rank *const *)pa;
	const struct hd_rank *b = *(const struct hd_rank *const *)pb;

	return (a->rank > b->rank) - (a->rank < b->rank);
}

gint hd_compare_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void hd_ints_sort_unique(GArray *a)
{
	guint out = 0;

	g_array_sort(a, hd_compare_int);
	for (guint i = 0; i < a->len; i++)
		if (!out ||
		    g_array_index(a, int, i) != g_array_index(a, int, out - 1))
			g_array_index(a, int, out++) = g_array_index(a, int, i);
	g_array_set_size(a, out);
}

guint hd_ints_lower_bound(const GArray *sorted, int v)
{
	guint lo = 0, hi = sorted->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(sorted, int, mid) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool hd_ints_contains(const GArray *sorted, int v)
{
	guint at = hd_ints_lower_bound(sorted, v);

	return at < sorted->len && g_array_index(sorted, int, at) == v;
}

int hd_natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (g_ascii_isdigit(*a) && g_ascii_isdigit(*b)) {
			const char *sa, *sb;
			size_t la, lb;
			int d;

			/* Leading zeros do not make a number bigger. */
			while (*a == '0' && g_ascii_isdigit(a[1]))
				a++;
			while (*b == '0' && g_ascii_isdigit(b[1]))
				b++;
			for (sa = a; g_ascii_isdigit(*a); a++)
				;
			for (sb = b; g_ascii_isdigit(*b); b++)
				;
			la = (size_t)(a - sa);
			lb = (size_t)(b - sb);
			if (la != lb)
				return la < lb ? -1 : 1;
			d = memcmp(sa, sb, la);
			if (d)
				return d < 0 ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (guchar)*a < (guchar)*b ? -1 : 1;
		a++;
		b++;
	}
	return (guchar)*a < (guchar)*b ? -1 : (guchar)*a > (guchar)*b;
}

gint hd_compare_input_path(gconstpointer a, gconstpointer b)
{
	const struct hd_input *x = *(const struct hd_input *const *)a;
	const struct hd_input *y = *(const struct hd_input *const *)b;
	int d = hd_natural_cmp(x->path, y->path);

	/* Equal in natural order ("r01", "r1"): byte order decides. */
	return d ? d : strcmp(x->path, y->path);
}
