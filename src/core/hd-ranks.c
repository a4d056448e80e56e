/*
 * Rank lists folded into runs and written (hd-ranks.h).
 */
#include "config.h"

#include "hd-ranks.h"

#include <stdint.h>

#include "hd-sort.h"
#include "hd-banned.h"

/* Four ranks at one stride read as a pattern; three are written out. */
#define STRIDE_RUN 4

GArray *hd_rank_runs(const int *ranks, size_t n, enum hd_rank_fold how)
{
	GArray *runs = g_array_new(FALSE, FALSE, sizeof(struct hd_rank_run));
	g_autoptr(GArray) set = NULL;
	const int *r = ranks;

	if (how == HD_RANKS_SET && n) {
		set = g_array_sized_new(FALSE, FALSE, sizeof(int), (guint)n);
		g_array_append_vals(set, ranks, (guint)n);
		hd_ints_sort_unique(set);
		r = (const int *)(const void *)set->data;
		n = set->len;
	}
	for (size_t i = 0; i < n;) {
		struct hd_rank_run run = { r[i], r[i], 0 };
		size_t j = i + 1;
		int64_t step = 0;

		if (r[i] >= 0 && j < n && r[j] >= 0)
			step = (int64_t)r[j] - r[i];
		if (how == HD_RANKS_SET && step != 1)
			step = 0;
		while (step > 0 && j < n && r[j] >= 0 &&
		       (int64_t)r[j] - r[j - 1] == step)
			j++;
		if ((step == 1 && j - i >= 2) ||
		    (step > 1 && j - i >= STRIDE_RUN)) {
			run.last = r[j - 1];
			run.step = (int)step;
			i = j;
		} else {
			i++;
		}
		g_array_append_val(runs, run);
	}
	return runs;
}

char *hd_rank_runs_text(const GArray *runs)
{
	GString *s = g_string_new(NULL);

	for (guint i = 0; runs && i < runs->len; i++) {
		const struct hd_rank_run *run =
			&g_array_index(runs, struct hd_rank_run, i);

		if (i)
			g_string_append_c(s, ',');
		if (run->first < 0)
			g_string_append_c(s, '?');
		else if (run->step == 0 || run->first == run->last)
			g_string_append_printf(s, "%d", run->first);
		else if (run->step == 1)
			g_string_append_printf(s, "%d-%d", run->first,
					       run->last);
		else
			g_string_append_printf(s, "%d,%d,...,%d", run->first,
					       run->first + run->step,
					       run->last);
	}
	return g_string_free(s, FALSE);
}

char *hd_rank_list_text(const GArray *ranks, enum hd_rank_fold how)
{
	g_autoptr(GArray) runs = hd_rank_runs(
		ranks ? (const int *)(const void *)ranks->data : NULL,
		ranks ? ranks->len : 0, how);

	return hd_rank_runs_text(runs);
}
