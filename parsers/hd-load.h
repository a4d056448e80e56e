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

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-store.h"

/* How far a load has got, for a progress line; sizes are the files' own. */
struct hd_load_progress {
	guint files_done;
	guint files_total;
	uint64_t bytes_done; /* sizes of the files done */
	uint64_t bytes_total; /* sizes of all files found, 0 unknown */
};

/*
 * Called on the thread that called hd_load_with(), once when the files are
 * found and once after each file is parsed and merged.  It must not touch
 * the store.
 */
typedef void (*hd_load_progress_fn)(const struct hd_load_progress *p,
				    void *data);

struct hd_load_opts {
	int jobs; /* parser threads, 0: one per CPU */
	/* set each input's file_size and xxh3_128, and with sha256 its
	   sha256 (hashed as it is read) */
	bool describe;
	bool sha256;
	hd_load_progress_fn progress; /* or NULL */
	void *progress_data;
	/* of logs that hold several job attempts, the one to keep, from 1;
	   0: the last (hd_store_keep_attempt()) */
	int attempt;
	/* keep only records in this window (NULL: all) */
	const struct hd_window *window;
	/*
	 * for a digest (docs/format-digest.md): keep every attempt and every
	 * record whatever attempt and window say, and leave the joins of
	 * hd_store_resolve() to the analysis that reads every node's digest
	 */
	bool for_digest;
};

/*
 * Loads every file below paths with up to jobs parser threads (0: one per
 * CPU).  Files that cannot be opened or parsed still become inputs, with
 * their error set, so reports can name them.  Paths that do not exist at
 * all are appended to problems (char *).  (transfer full)
 */
struct hd_store *hd_load(char **paths, int jobs, GPtrArray *problems);

/* hd_load() with the options above.  (transfer full) */
struct hd_store *hd_load_with(char **paths, const struct hd_load_opts *opts,
			      GPtrArray *problems);

#endif
