/*
 * Two incidents compared (hangdoc diff): "is this the same hang as last
 * week".  Each side is what its analysis concluded (top verdict, its
 * fingerprint, culprit ranks and hosts, op, position and call site, the
 * status analyze would exit with); the diff decides what is the same and
 * what changed, so that reports only print it.  Same cause means the top
 * verdicts share a fingerprint (hd-fingerprint.h) and both decided
 * something: other ranks, hosts, times and evidence kinds do not make
 * another cause, and two undecided analyses (insufficient_data) are never
 * one cause, whatever their texts.
 *
 * Ownership: a diff owns its sides and lists; it keeps no pointer into the
 * analyses, which may be freed once it is built.
 */
#ifndef HD_DIFF_H
#define HD_DIFF_H

#include <stdbool.h>
#include <glib.h>

#include "hd-verdict.h"

/* One incident as the diff sees it. */
struct hd_diff_side {
	char *label; /* the PATHs given, as the user wrote them */
	bool usable; /* some input could be parsed */
	int status; /* the exit status analyze gives it */
	const char *kind; /* static verdict kind name, or NULL */
	const char *confidence; /* static, or NULL */
	char *summary;
	char *fingerprint; /* 16 hex digits, or NULL */
	char *fingerprint_text; /* its canonical text, or NULL */
	GArray *culprits; /* int, ascending */
	GPtrArray *hosts; /* char *: the culprits' hosts, sorted, unique */
	char *group; /* the verdict's group label, or NULL */
	int64_t seq; /* its position, -1 none */
	const char *op; /* static op kind name, or NULL */
	char *site; /* "train.py:88 in train_step", or NULL */
	unsigned verdicts; /* how many verdicts the analysis holds */
};

/* Whether a field is the same on both sides. */
enum hd_diff_same {
	HD_DIFF_SAME = 0,
	HD_DIFF_CHANGED,
	HD_DIFF_UNKNOWN, /* absent on one side or both */
};

struct hd_diff {
	struct hd_diff_side a, b;
	bool same_cause; /* both decided, fingerprints equal */
	bool undecided; /* a side's top verdict is insufficient_data */
	enum hd_diff_same kind, culprits, hosts, op, site, status;
	GPtrArray *hosts_common; /* char *: culprit hosts on both sides */
	GPtrArray *hosts_only_a; /* char *: only in a */
	GPtrArray *hosts_only_b; /* char *: only in b */
};

/*
 * Compares two analyses; status_a and status_b are the exit statuses
 * analyze would give each (the caller's numbering), label_a and label_b
 * how to name them.  An analysis without usable input has no verdict
 * side.  (transfer full)
 */
struct hd_diff *hd_diff_new(const struct hd_analysis *a, int status_a,
			    const char *label_a, const struct hd_analysis *b,
			    int status_b, const char *label_b);
void hd_diff_free(struct hd_diff *d);
typedef struct hd_diff hd_diff; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_diff, hd_diff_free)

/* The name of a comparison: "same", "changed", "unknown".  (transfer none) */
const char *hd_diff_same_name(enum hd_diff_same s);

#endif
