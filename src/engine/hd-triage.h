/*
 * Many incidents grouped by cause (hangdoc triage), decided here and only
 * laid out by the triage renderers.  Each incident is analyzed on its own
 * and its analysis freed, so what grouping needs of it is kept first, as
 * a key (hd_triage_key_new()); the keys of every incident, in path order,
 * then give the causes, most frequent first, with the call sites each was
 * seen at, and the culprit hosts blamed in more than one incident (the
 * nodes to drain).  An undecided incident (insufficient_data) is listed
 * with the others like it but never counted as one cause.
 *
 * Ownership: a key owns its strings; a triage borrows the keys it was
 * computed from, which must outlive it.
 */
#ifndef HD_TRIAGE_H
#define HD_TRIAGE_H

#include <stdbool.h>
#include <glib.h>

#include "hd-verdict.h"

/* What an incident is grouped by. */
enum hd_triage_class {
	HD_TRIAGE_CAUSE = 0, /* a fingerprint: one cause */
	HD_TRIAGE_UNDECIDED, /* insufficient_data: no cause named */
	HD_TRIAGE_UNANALYZED, /* no verdict at all */
};

/* What triage keeps of one incident's analysis to group it. */
struct hd_triage_key {
	enum hd_triage_class class;
	char *fingerprint; /* the top verdict's, or NULL */
	char *call_site; /* its refinement, or NULL */
	GPtrArray *hosts; /* char *: the culprits' hosts, unique, sorted */
	bool fault; /* some verdict is a fault */
	bool usable; /* some input could be used */
};

/* The key of an analyzed incident.  (transfer full) */
struct hd_triage_key *hd_triage_key_new(const struct hd_analysis *a);
void hd_triage_key_free(struct hd_triage_key *k);

/* The incidents of one cause. */
struct hd_triage_group {
	enum hd_triage_class class;
	const char *fingerprint; /* a key's; NULL unless class is CAUSE */
	GArray *incidents; /* guint: indexes of the keys, in their order */
	/* const char *, the keys': the call sites its incidents were seen
	   at, each once, first seen first */
	GPtrArray *call_sites;
	guint hosts; /* distinct culprit hosts over its incidents */
};

/* A culprit host blamed in more than one incident. */
struct hd_triage_host {
	const char *host; /* a key's */
	guint incidents;
};

struct hd_triage {
	/* struct hd_triage_group, most incidents first, then by
	   fingerprint (the undecided and the unanalyzed before any) */
	GArray *groups;
	/* struct hd_triage_host, most incidents first, then by name */
	GArray *hosts;
	guint causes; /* groups that are one cause: all but the undecided */
	guint faults; /* incidents with a fault */
	guint unusable; /* incidents of which no input could be used */
};

/* keys[0..n), in path order, grouped.  (transfer full) */
struct hd_triage *hd_triage_group(const struct hd_triage_key *const *keys,
				  guint n);
void hd_triage_free(struct hd_triage *t);
typedef struct hd_triage hd_triage; /* for g_autoptr() */
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hd_triage, hd_triage_free)

#endif
