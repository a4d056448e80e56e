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
 * Loads every file below paths with up to jobs parser threads (0: one per
 * CPU).  Files that cannot be opened or parsed still become inputs, with
 * their error set, so reports can name them.  Paths that do not exist at
 * all are appended to problems (char *).  (transfer full)
 */
struct hd_store *hd_load(char **paths, int jobs, GPtrArray *problems);

#endif
