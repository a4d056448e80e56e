/*
 * Rank lists as text, the one formatter of every layer: the engine's
 * summaries and next steps, every report's culprits, missing ranks and
 * rank tables, replay plans and the command line's --rank lists.  A list
 * is first folded into runs (struct hd_rank_run), then the runs are
 * written; a caller that already holds runs (a --rank list's ranges)
 * writes them alone.  Needs nothing but GLib.
 *
 * Group ids fold their member lists by rules of their own
 * (hd_group_id_pg()): an id is an identity, hashed across dumps, and
 * never changes with how lists are shown.
 */
#ifndef HD_RANKS_H
#define HD_RANKS_H

#include <stddef.h>
#include <glib.h>

/* How a list of ranks is read. */
enum hd_rank_fold {
	/*
	 * As a set: sorted, each rank once, two or more consecutive ranks
	 * as "a-b": "0-3,5,7-9" (culprits, missing ranks, a display filter).
	 */
	HD_RANKS_SET = 0,
	/*
	 * In the list's order: two or more consecutive ranks as "a-b", four
	 * or more at one stride as "a,b,...,z", a rank below 0 (unknown) as
	 * "?", nothing sorted or merged: "0,8,...,8184", "0-3,8,?" (a
	 * communicator's members, whose order is the communicator's).
	 */
	HD_RANKS_ORDER,
};

/*
 * One run: first, first + step, ..., last.  step 0 is a single rank
 * (first == last; below 0: unknown), step 1 a range.
 */
struct hd_rank_run {
	int first, last;
	int step;
};

/* ranks[0..n) folded as how says (GArray of struct hd_rank_run).
   (transfer full) */
GArray *hd_rank_runs(const int *ranks, size_t n, enum hd_rank_fold how);
/* The runs written: "0-3", "0,8,...,56", "5", "?", comma-separated.
   (transfer full) */
char *hd_rank_runs_text(const GArray *runs);
/* The GArray of int ranks (NULL: empty) folded and written.
   (transfer full) */
char *hd_rank_list_text(const GArray *ranks, enum hd_rank_fold how);

#endif
