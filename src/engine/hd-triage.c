/*
 * Incidents grouped by cause (hd-triage.h).  A host blamed in several
 * incidents is the node to drain, so it is counted apart.
 */
#include "config.h"

#include "hd-triage.h"

#include <string.h>

#include "hd-const.h"
#include "hd-banned.h"

struct hd_triage_key *hd_triage_key_new(const struct hd_analysis *a)
{
	struct hd_triage_key *k = g_new0(struct hd_triage_key, 1);
	const struct hd_verdict *v =
		a->verdicts->len ? g_ptr_array_index(a->verdicts, 0) : NULL;

	k->class = HD_TRIAGE_UNANALYZED;
	k->fault = hd_analysis_has_fault(a);
	k->usable = hd_store_usable_inputs(a->store) > 0;
	if (v && v->kind == HD_V_INSUFFICIENT_DATA)
		k->class = HD_TRIAGE_UNDECIDED;
	else if (v && v->fingerprint)
		k->class = HD_TRIAGE_CAUSE;
	if (v) {
		k->fingerprint = g_strdup(v->fingerprint);
		k->call_site = g_strdup(v->call_site);
		k->hosts = hd_verdict_culprit_hosts(a->store, v);
	} else {
		k->hosts = g_ptr_array_new_with_free_func(g_free);
	}
	return k;
}

void hd_triage_key_free(struct hd_triage_key *k)
{
	if (!k)
		return;
	g_free(k->fingerprint);
	g_free(k->call_site);
	g_ptr_array_unref(k->hosts);
	g_free(k);
}

/*
 * What a key is grouped and ordered by: its fingerprint, else a name in
 * parentheses, which sorts before any fingerprint (hex digits).
 */
static const char *group_key(const struct hd_triage_key *k)
{
	switch (k->class) {
	case HD_TRIAGE_CAUSE:
		return k->fingerprint;
	case HD_TRIAGE_UNDECIDED:
		return "(undecided)";
	case HD_TRIAGE_UNANALYZED:
		break;
	}
	return "(not analyzed)";
}

static gint compare_groups(gconstpointer pa, gconstpointer pb, gpointer data)
{
	const struct hd_triage_group *a = pa, *b = pb;
	const char *const *key_of = data;

	if (a->incidents->len != b->incidents->len)
		return a->incidents->len > b->incidents->len ? -1 : 1;
	/* a group's key is its first incident's */
	return strcmp(key_of[g_array_index(a->incidents, guint, 0)],
		      key_of[g_array_index(b->incidents, guint, 0)]);
}

static gint compare_hosts(gconstpointer pa, gconstpointer pb)
{
	const struct hd_triage_host *a = pa, *b = pb;

	if (a->incidents != b->incidents)
		return a->incidents > b->incidents ? -1 : 1;
	return strcmp(a->host, b->host);
}

static void group_clear(gpointer p)
{
	struct hd_triage_group *g = p;

	g_array_unref(g->incidents);
	g_ptr_array_unref(g->call_sites);
}

struct hd_triage *hd_triage_group(const struct hd_triage_key *const *keys,
				  guint n)
{
	struct hd_triage *t = g_new0(struct hd_triage, 1);
	g_autoptr(GHashTable) by_key =
		g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) host_n =
		g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GPtrArray) hosts_of = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_hash_table_unref);
	g_autofree const char **key_of = g_new0(const char *, n + 1);
	GHashTableIter it;
	gpointer key, value;

	t->groups = g_array_new(FALSE, FALSE, sizeof(struct hd_triage_group));
	g_array_set_clear_func(t->groups, group_clear);
	t->hosts = g_array_new(FALSE, FALSE, sizeof(struct hd_triage_host));
	for (guint i = 0; i < n; i++) {
		const struct hd_triage_key *k = keys[i];
		const char *gk = group_key(k);
		gpointer at;
		struct hd_triage_group *g;
		GHashTable *ghosts;

		key_of[i] = gk;
		t->faults += k->fault;
		t->unusable += !k->usable;
		if (!g_hash_table_lookup_extended(by_key, gk, NULL, &at)) {
			struct hd_triage_group ng = {
				k->class,
				k->class == HD_TRIAGE_CAUSE ? k->fingerprint
							    : NULL,
				g_array_new(FALSE, FALSE, sizeof(guint)),
				g_ptr_array_new(),
				0,
			};

			at = GUINT_TO_POINTER(t->groups->len);
			g_array_append_val(t->groups, ng);
			g_ptr_array_add(
				hosts_of,
				g_hash_table_new(g_str_hash, g_str_equal));
			g_hash_table_insert(by_key, hd_unconst(gk), at);
		}
		g = &g_array_index(t->groups, struct hd_triage_group,
				   GPOINTER_TO_UINT(at));
		ghosts = g_ptr_array_index(hosts_of, GPOINTER_TO_UINT(at));
		g_array_append_val(g->incidents, i);
		if (k->call_site) {
			bool known = false;

			for (guint s = 0; s < g->call_sites->len && !known; s++)
				known = strcmp(g_ptr_array_index(g->call_sites,
								 s),
					       k->call_site) == 0;
			if (!known)
				g_ptr_array_add(g->call_sites, k->call_site);
		}
		for (guint h = 0; h < k->hosts->len; h++) {
			const char *host = g_ptr_array_index(k->hosts, h);

			g_hash_table_add(ghosts, hd_unconst(host));
			g_hash_table_insert(
				host_n, hd_unconst(host),
				GUINT_TO_POINTER(
					GPOINTER_TO_UINT(g_hash_table_lookup(
						host_n, host)) +
					1));
		}
	}
	for (guint i = 0; i < t->groups->len; i++) {
		struct hd_triage_group *g =
			&g_array_index(t->groups, struct hd_triage_group, i);

		g->hosts = g_hash_table_size(g_ptr_array_index(hosts_of, i));
		t->causes += g->class != HD_TRIAGE_UNDECIDED;
	}
	g_array_sort_with_data(t->groups, compare_groups, key_of);
	g_hash_table_iter_init(&it, host_n);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct hd_triage_host h = { key, GPOINTER_TO_UINT(value) };

		if (h.incidents > 1)
			g_array_append_val(t->hosts, h);
	}
	g_array_sort(t->hosts, compare_hosts);
	return t;
}

void hd_triage_free(struct hd_triage *t)
{
	if (!t)
		return;
	g_array_unref(t->groups);
	g_array_unref(t->hosts);
	g_free(t);
}
