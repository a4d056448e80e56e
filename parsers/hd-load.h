/*
 * Loading an incident: discover the files under the given paths, sniff and
 * parse each one (in parallel), merge the per-input stores in path order,
 * and resolve cross-input joins.  Shared by every subcommand that reads
 * dumps.
 *
 * Ownership: the returned store belongs to the caller.
 */
#ifndef HD_ANALYZE_H
#define HD_ANALYZE_H

#include <glib.h>

#include "hd-store.h"

/*
 * Loads every file below paths (hd_discover()) with up to jobs parser
 * threads (0: one per CPU; never more than HD_BUDGET_JOBS_PER_CPU per
 * CPU).  Files that cannot be opened or parsed still become inputs, with
 * their error set, so reports can name them.  Each is read under the
 * budget of its kind (src/core/hd-budget.h; HANGDOC_MAX_INPUT_SIZE
 * replaces the decoded-bytes caps).  An input that repeats an earlier one
 * (the same file, or the same decoded bytes, with no other rank in its
 * name) is listed with a note naming the first and adds nothing else.
 * Paths that do not exist or are not followed, and inputs cut short by
 * their budget, are appended to problems (char *).  (transfer full)
 */
struct hd_store *hd_load(char **paths, int jobs, GPtrArray *problems);

#endif
