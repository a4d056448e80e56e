/*
 * Verdict fingerprints: a short identity of a verdict's cause that stays
 * the same across incidents of that cause (other jobs, ranks, hosts, times,
 * checkouts) and differs between causes, so that a batch of incidents can
 * be grouped and "the same hang as last week" recognised, whether it was
 * seen through dumps, logs, traces or all of them.  Internal to
 * src/engine; reports read v->fingerprint, v->fingerprint_text and the
 * call-site refinement v->call_site.
 *
 * Ownership: every function returning a string returns a new one.
 */
#ifndef HD_FINGERPRINT_H
#define HD_FINGERPRINT_H

#include "hd-index.h"
#include "hd-verdict.h"

/* The version prefix of every canonical text; bump when the text changes. */
#define HD_FINGERPRINT_VERSION "fp2"

/*
 * An error text with what varies between incidents of one cause taken
 * out: the hosts and addresses the store knows (and any IPv4 address) as
 * "<host>"/"<ip>", file paths as "<path>", hex as "<hex>", every run of
 * digits (ranks, pids, times, counts, line numbers) as "N", runs of white
 * space as one space; cut to 240 bytes.  s may be NULL.  (transfer full)
 */
char *hd_fingerprint_normalize(const char *text, const struct hd_store *s);

/* 16 lowercase hex digits of the 64-bit FNV-1a hash of text.  (transfer full) */
char *hd_fingerprint_hash(const char *text);

/* Fills fingerprint, fingerprint_text and call_site of every verdict of a. */
void hd_fingerprint_run(const struct hd_index *ix, struct hd_analysis *a);

#endif
