/*
 * Knowing an input again (the loader's, hd-load.c): the same decoded
 * bytes under another path (a log and its gzip -k copy, a dump copied
 * into a bundle twice), a copy of one rank's dump under another rank's
 * name, and the processes of an NCCL log that an earlier log already gave
 * (the same log kept twice, once under a collector's prefix).  A copy is
 * read once: it stays listed, with a note naming the input it repeats,
 * and adds nothing.  Digests are looked through, input by input, so a
 * copy that two nodes' digests hold reads as it does among raw inputs.
 *
 * Ownership: a struct hd_copies owns its tables and keeps no pointer into
 * the stores it was shown.
 */
#ifndef HD_COPIES_H
#define HD_COPIES_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-store.h"
#include "hd-reader.h"

/* The contents and processes seen so far in one load.  (transfer full) */
struct hd_copies *hd_copies_new(void);
void hd_copies_free(struct hd_copies *c);
typedef struct hd_copies hd_copies; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_copies, hd_copies_free)

/*
 * Whether two names of one content can be one input: parsers take a rank
 * from a file name, so two names with different ranks in them are two
 * ranks' inputs even when their bytes are the same.
 */
bool hd_copies_names_agree(const char *a, const char *b);

/*
 * The store of an input named name that repeats first (how: "same file
 * as", "same content as"): listed with a note saying so, first's error
 * if it had one, and nothing else.  (transfer full)
 */
struct hd_store *hd_copies_repeat_store(const char *name,
					const struct hd_input *first,
					uint64_t bytes, const char *how);

/*
 * The store to merge for s, holding one input named name whose whole
 * decoded bytes hash to (hash, length), about to become input
 * dst->inputs->len: s itself (its content now known, and kept in its
 * input for a digest made of it), or, when an earlier input of dst had
 * the content, a note in its place, s freed: a repeat, *origin set to
 * the earlier input, or, when the two names name different ranks, a copy
 * under another rank's name that is not read.  (transfer full)
 */
struct hd_store *hd_copies_input(struct hd_copies *c, struct hd_store *dst,
				 struct hd_store *s, const char *name,
				 uint64_t hash, uint64_t length, guint *origin);

/*
 * Makes the content (hash, length) known as that of dst's input, merged
 * earlier without it (its content was not hashed while no other input
 * could share it): a later input with that content repeats it.  An input
 * that could not be read is no original, as in hd_copies_input().
 */
void hd_copies_remember(struct hd_copies *c, struct hd_store *dst, guint input,
			uint64_t hash, uint64_t length);

/*
 * Whether the content d gives of the input about to become dst's next
 * one can be compared (true: d->hash is set, hashed now by reading path
 * again if d had only its length and an earlier input has that length)
 * or need not be, as no input merged before it has its length (false;
 * hashed later, by reading it again, if a later one has).  An earlier
 * input merged unhashed with d's length is hashed now and remembered.
 */
bool hd_copies_content(struct hd_copies *c, struct hd_store *dst,
		       const char *path, struct hd_digest *d);

/*
 * Drops from s, one NCCL log about to be merged into dst, the ops of
 * every process whose records an earlier log already gave (same rank,
 * host, pid and ops), with a warning naming that log.
 */
void hd_copies_drop_procs(struct hd_copies *c, struct hd_store *dst,
			  struct hd_store *s);

/*
 * The copies among s, a digest's store about to be merged into dst, and
 * the inputs before it: each input whose content key an earlier one had
 * becomes a note in place, and each log's copied processes are dropped.
 */
void hd_copies_digest(struct hd_copies *c, struct hd_store *dst,
		      struct hd_store *s);

/*
 * Reads as one the dumps of one rank that hold the same records (a
 * pickle and its JSON, one dump written twice, two dumps of one process
 * taken at different times): where both hold a record id with the same
 * op, the one further on is read and the other gives it up, with a
 * warning.  Dumps that contradict (another op or time at a record id, a
 * gap, each further on somewhere) are left as they are: two instances,
 * for the checks of instances and incidents.
 */
void hd_copies_merge_dumps(struct hd_store *s);

#endif
