/*
 * Rank lists on the command line, as fr_trace's --selected-ranks takes
 * them: "0-3,5", ranks and inclusive ranges separated by commas, and the
 * union of every list given (--rank 1 --rank 5 is 1,5).  The one parser
 * of every option that names ranks; it needs nothing but GLib and the
 * rank-list formatter (hd-ranks.c), so the unit tests build it alone.
 */
#ifndef HD_RANKLIST_H
#define HD_RANKLIST_H

#include <stdbool.h>
#include <glib.h>

/* One run of ranks, lo <= hi, both >= 0. */
struct hd_rank_range {
	int lo, hi;
};

/*
 * The ranks named so far: sorted, disjoint, non-adjacent ranges (so
 * "0-3,4" and "4,0-3" are the same list).
 */
struct hd_ranklist {
	GArray *ranges; /* of struct hd_rank_range */
};

typedef struct hd_ranklist hd_ranklist;

hd_ranklist *hd_ranklist_new(void);
void hd_ranklist_free(hd_ranklist *l); /* NULL-safe */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_ranklist, hd_ranklist_free)

/*
 * Adds the ranks of spec, "N" or "A-B" items separated by commas (decimal,
 * 0 to 2147483647, A <= B, no spaces, no empty item).  Returns false and
 * sets err (naming the item) when spec is malformed; l is then unchanged.
 */
bool hd_ranklist_add(hd_ranklist *l, const char *spec, GError **err);

/* Whether rank is in the list. */
bool hd_ranklist_has(const hd_ranklist *l, int rank);

/* The list written back, "0-3,5" (transfer full); "" when empty. */
char *hd_ranklist_format(const hd_ranklist *l);

#endif
