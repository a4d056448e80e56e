/*
 * The rank-list parser (hd-ranklist.h): items are read one at a time into a
 * scratch array, and only a spec read whole is merged, so that a
 * malformed list changes nothing.  Ranges are kept, never expanded: a
 * list of 0-2147483647 costs one entry.
 */
#include "config.h"

#include "hd-ranklist.h"

#include <string.h>

#include "hd-ranks.h"
#include "hd-banned.h"

hd_ranklist *hd_ranklist_new(void)
{
	hd_ranklist *l = g_new0(hd_ranklist, 1);

	l->ranges = g_array_new(FALSE, FALSE, sizeof(struct hd_rank_range));
	return l;
}

void hd_ranklist_free(hd_ranklist *l)
{
	if (!l)
		return;
	g_array_unref(l->ranges);
	g_free(l);
}

/* A rank, all digits from *p up to a '-', ',' or the end; advances *p. */
static bool read_rank(const char **p, int *out)
{
	const char *s = *p;
	gint64 v = 0;

	if (!g_ascii_isdigit(*s))
		return false;
	for (; g_ascii_isdigit(*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > G_MAXINT32)
			return false;
	}
	*out = (int)v;
	*p = s;
	return true;
}

static gint compare_ranges(gconstpointer a, gconstpointer b)
{
	const struct hd_rank_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts and merges overlapping or adjacent ranges. */
static void normalize(GArray *r)
{
	guint out = 0;

	g_array_sort(r, compare_ranges);
	for (guint i = 0; i < r->len; i++) {
		struct hd_rank_range cur =
			g_array_index(r, struct hd_rank_range, i);
		struct hd_rank_range *last =
			out ? &g_array_index(r, struct hd_rank_range, out - 1)
			    : NULL;

		if (last && (gint64)cur.lo <= (gint64)last->hi + 1) {
			last->hi = MAX(last->hi, cur.hi);
			continue;
		}
		g_array_index(r, struct hd_rank_range, out++) = cur;
	}
	g_array_set_size(r, out);
}

bool hd_ranklist_add(hd_ranklist *l, const char *spec, GError **err)
{
	g_autoptr(GArray) items =
		g_array_new(FALSE, FALSE, sizeof(struct hd_rank_range));
	const char *p = spec ? spec : "";

	g_assert(l);
	for (;;) {
		const char *item = p;
		const char *end = strchr(p, ',');
		int item_len = end ? (int)(end - p) : (int)strlen(p);
		struct hd_rank_range r;

		if (!read_rank(&p, &r.lo))
			goto bad;
		r.hi = r.lo;
		if (*p == '-') {
			p++;
			if (!read_rank(&p, &r.hi))
				goto bad;
			if (r.hi < r.lo) {
				g_set_error(err, G_OPTION_ERROR,
					    G_OPTION_ERROR_BAD_VALUE,
					    "'%.*s' is a range that runs "
					    "backwards (A-B needs A <= B)",
					    item_len, item);
				return false;
			}
		}
		if (*p != ',' && *p != '\0')
			goto bad;
		g_array_append_val(items, r);
		if (!*p)
			break;
		p++;
		continue;
bad:
		if (!item_len)
			g_set_error(err, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "'%s' has an empty item (use N or A-B "
				    "items separated by commas, as 0-3,5)",
				    spec ? spec : "");
		else
			g_set_error(err, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "'%.*s' is not a rank N or a range A-B "
				    "(ranks 0 to %d, separated by commas)",
				    item_len, item, G_MAXINT32);
		return false;
	}
	g_array_append_vals(l->ranges, items->data, items->len);
	normalize(l->ranges);
	return true;
}

bool hd_ranklist_has(const hd_ranklist *l, int rank)
{
	guint lo = 0, hi = l->ranges->len;

	/* Binary search: the ranges are sorted and disjoint. */
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		const struct hd_rank_range *r =
			&g_array_index(l->ranges, struct hd_rank_range, mid);

		if (rank < r->lo)
			hi = mid;
		else if (rank > r->hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

char *hd_ranklist_format(const hd_ranklist *l)
{
	g_autoptr(GArray) runs = g_array_sized_new(
		FALSE, FALSE, sizeof(struct hd_rank_run), l->ranges->len);

	/* the ranges are runs already: written as every rank list is */
	for (guint i = 0; i < l->ranges->len; i++) {
		const struct hd_rank_range *r =
			&g_array_index(l->ranges, struct hd_rank_range, i);
		struct hd_rank_run run = { r->lo, r->hi, r->lo != r->hi };

		g_array_append_val(runs, run);
	}
	return hd_rank_runs_text(runs);
}
