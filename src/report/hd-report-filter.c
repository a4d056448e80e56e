/*
 * Display filters (analyze --rank/--group, fr_trace's --selected-ranks
 * and --pg-filters habit; hd-report-opts.h).  The engine always runs on
 * every input, so a rank left out of the display is never taken for
 * absent and blamed; this file only narrows what a report shows, by
 * building a view of the analysis whose per-rank tables and evidence
 * hold the ranks shown.  Every renderer then draws the view as it would
 * the analysis; the text, Markdown and JSON reports add the header line
 * or object saying what is shown.
 */
#include "config.h"

#include "hd-report-opts.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hd-const.h"
#include "hd-engine.h"
#include "hd-json.h"
#include "hd-report-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

bool hd_report_filter_has(const struct hd_report_filter *f, int rank)
{
	if (!f)
		return true;
	return bsearch(&rank, f->ranks->data, f->ranks->len, sizeof(int),
		       hd_compare_int) != NULL;
}

/* Whether --group's name is c10d PG g's, by name or id. */
static bool c10d_group_named(const struct hd_c10d_group *g, const char *name)
{
	g_autofree char *id = hd_c10d_group_id(g);

	return strcmp(g->name, name) == 0 || strcmp(id, name) == 0;
}

/* "0, mesh_tp, comm:0x..": the groups as --group may name them. */
static char *group_names(const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < s->groups->len; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);
		g_autofree char *name =
			hd_report_clean(g->name ? g->name : g->id);

		g_string_append_printf(out, "%s%s", out->len ? ", " : "", name);
	}
	for (guint i = 0; i < a->c10d_groups->len; i++) {
		g_autofree char *name = hd_report_clean(
			g_array_index(a->c10d_groups, struct hd_c10d_group, i)
				.name);

		g_string_append_printf(out, "%s%s", out->len ? ", " : "", name);
	}
	return g_string_free(out, FALSE);
}

/*
 * Marks the members of the groups named (by id or name) in members; a
 * c10d PG known from log lines only has the ranks whose lines name it.
 */
static bool group_members(const struct hd_analysis *a, const char *const *want,
			  GHashTable *members, GError **err)
{
	const struct hd_store *s = a->store;
	g_autofree bool *match = g_new0(bool, s->groups->len + 1);

	for (const char *const *w = want; *w; w++) {
		const char *const one[] = { *w, NULL };
		bool found = false;

		for (guint i = 0; i < s->groups->len; i++)
			if (hd_report_group_named(hd_store_group_at(s, i), one))
				found = match[i] = true;
		for (guint i = 0; i < a->c10d_groups->len; i++) {
			const struct hd_c10d_group *g = &g_array_index(
				a->c10d_groups, struct hd_c10d_group, i);

			if (!c10d_group_named(g, *w))
				continue;
			found = true;
			for (guint k = 0; k < g->ranks->len; k++)
				g_hash_table_add(members,
						 GINT_TO_POINTER(g_array_index(
							 g->ranks, int, k)));
		}
		if (!found) {
			g_autofree char *list = group_names(a);
			g_autofree char *name = hd_report_clean(*w);

			g_set_error(
				err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
				"option '--group': no group '%s'; groups: %s",
				name, *list ? list : "none");
			return false;
		}
	}
	for (guint i = 0; i < s->groups->len; i++) {
		const struct hd_group *g = hd_store_group_at(s, i);

		for (guint k = 0; match[i] && g->members && k < g->members->len;
		     k++) {
			int r = g_array_index(g->members, int, k);

			if (r >= 0)
				g_hash_table_add(members, GINT_TO_POINTER(r));
		}
	}
	/* ranks seen in a group whose members were never listed */
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (hd_op_rank(op) >= 0 && match[op->group])
			g_hash_table_add(members,
					 GINT_TO_POINTER(hd_op_rank(op)));
	}
	return true;
}

/* The ranks of the job: seen, missing, and below its world size. */
static GArray *job_ranks(const struct hd_analysis *a)
{
	g_autoptr(GHashTable) set = g_hash_table_new(NULL, NULL);
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));
	GHashTableIter it;
	gpointer k;

	for (guint i = 0; i < a->ranks_seen->len; i++)
		g_hash_table_add(set, GINT_TO_POINTER(g_array_index(
					      a->ranks_seen, int, i)));
	for (guint i = 0; i < a->ranks_missing->len; i++)
		g_hash_table_add(set, GINT_TO_POINTER(g_array_index(
					      a->ranks_missing, int, i)));
	for (int r = 0; r < a->world_size && r < HD_MAX_RANKS; r++)
		g_hash_table_add(set, GINT_TO_POINTER(r));
	g_hash_table_iter_init(&it, set);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		int r = GPOINTER_TO_INT(k);

		g_array_append_val(out, r);
	}
	g_array_sort(out, hd_compare_int);
	return out;
}

struct hd_report_filter *
hd_report_filter_new(const struct hd_analysis *a, const char *ranks_text,
		     bool (*want_rank)(const void *data, int rank),
		     const void *rank_data, const char *const *groups,
		     GError **err)
{
	g_autoptr(GArray) job = job_ranks(a);
	g_autoptr(GHashTable) members = NULL;
	struct hd_report_filter *f;

	if (groups) {
		members = g_hash_table_new(NULL, NULL);
		if (!group_members(a, groups, members, err))
			return NULL;
	}
	f = g_new0(struct hd_report_filter, 1);
	f->ranks = g_array_new(FALSE, FALSE, sizeof(int));
	f->of = (int)job->len;
	f->ranks_text = g_strdup(ranks_text);
	for (guint i = 0; i < job->len; i++) {
		int r = g_array_index(job, int, i);

		if ((!want_rank || want_rank(rank_data, r)) &&
		    (!members ||
		     g_hash_table_contains(members, GINT_TO_POINTER(r))))
			g_array_append_val(f->ranks, r);
	}
	if (groups) {
		f->groups = g_ptr_array_new_with_free_func(g_free);
		for (const char *const *g = groups; *g; g++)
			g_ptr_array_add(f->groups, g_strdup(*g));
	}
	if (!f->ranks->len) {
		g_autofree char *list = hd_rank_list_text(job, HD_RANKS_SET);

		g_set_error(
			err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			"option '--%s': no rank of the job is selected; the job's ranks: %s",
			ranks_text ? "rank" : "group", *list ? list : "none");
		hd_report_filter_free(f);
		return NULL;
	}
	return f;
}

void hd_report_filter_free(struct hd_report_filter *f)
{
	if (!f)
		return;
	g_array_unref(f->ranks);
	g_free(f->ranks_text);
	if (f->groups)
		g_ptr_array_unref(f->groups);
	g_free(f);
}

/* "0, mesh_tp" (transfer full) */
static char *groups_text(const struct hd_report_filter *f)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; f->groups && i < f->groups->len; i++) {
		g_autofree char *name =
			hd_report_clean(g_ptr_array_index(f->groups, i));

		g_string_append_printf(out, "%s%s", i ? ", " : "", name);
	}
	return g_string_free(out, FALSE);
}

char *hd_report_filter_header(const struct hd_report_filter *f)
{
	g_autofree char *list = hd_rank_list_text(f->ranks, HD_RANKS_SET);
	g_autofree char *groups = groups_text(f);
	g_autofree char *of = hd_report_count((uint64_t)MAX(f->of, 0));
	GString *out = g_string_new(NULL);

	g_string_append_printf(out, "showing rank%s %s of %s",
			       f->ranks->len == 1 ? "" : "s", list, of);
	if (f->groups)
		g_string_append_printf(out, " (group%s %s)",
				       f->groups->len == 1 ? "" : "s", groups);
	g_string_append(out,
			"; the analysis used every rank, and verdicts about "
			"other ranks keep their headline");
	return g_string_free(out, FALSE);
}

json_t *hd_report_filter_json(const struct hd_report_filter *f)
{
	g_autofree char *list = hd_rank_list_text(f->ranks, HD_RANKS_SET);
	json_t *o = json_object();

	json_object_set_new(o, "ranks", hd_json_string(list));
	json_object_set_new(o, "rank_option",
			    hd_json_str_or_null(f->ranks_text));
	json_object_set_new(o, "groups",
			    f->groups ? hd_json_string_array(f->groups)
				      : json_null());
	json_object_set_new(o, "shown", json_integer(f->ranks->len));
	json_object_set_new(o, "of", json_integer(f->of));
	return o;
}

/* keep_ranks() reads a rank from the start of each entry */
_Static_assert(offsetof(struct hd_rank_progress, rank) == 0, "rank first");
_Static_assert(offsetof(struct hd_arrival, rank) == 0, "rank first");
_Static_assert(offsetof(struct hd_pyspy_rank, rank) == 0, "rank first");

/* The entries of arr (elements of size, an int rank first) f shows. */
static GArray *keep_ranks(const GArray *arr, const struct hd_report_filter *f)
{
	guint size;
	GArray *out;

	if (!arr)
		return NULL;
	size = g_array_get_element_size(hd_unconst(arr));
	out = g_array_sized_new(FALSE, FALSE, size, 0);
	for (guint i = 0; i < arr->len; i++) {
		const char *e = arr->data + (size_t)i * size;
		int rank;

		memcpy(&rank, e, sizeof(rank));
		if (hd_report_filter_has(f, rank))
			g_array_append_vals(out, e, 1);
	}
	return out;
}

static struct hd_verdict *view_verdict(const struct hd_verdict *v,
				       const struct hd_report_filter *f)
{
	struct hd_verdict *c = g_new(struct hd_verdict, 1);

	*c = *v;
	c->evidence = g_ptr_array_new();
	for (guint i = 0, kept = 0; i < v->evidence->len; i++) {
		struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		/* a count of left-out items goes with the item before it */
		if (hd_evidence_is_more(e)
			    ? kept
			    : e->rank < 0 || hd_report_filter_has(f, e->rank)) {
			g_ptr_array_add(c->evidence, e);
			kept = 1;
		} else {
			kept = 0;
		}
	}
	c->next_steps = g_ptr_array_new();
	for (guint i = 0; v->next_steps && i < v->next_steps->len; i++) {
		struct hd_next *n = g_ptr_array_index(v->next_steps, i);

		if (n->rank < 0 || hd_report_filter_has(f, n->rank))
			g_ptr_array_add(c->next_steps, n);
	}
	return c;
}

struct hd_analysis *hd_report_view_new(const struct hd_analysis *a,
				       const struct hd_report_filter *f)
{
	struct hd_analysis *view = g_new(struct hd_analysis, 1);

	*view = *a;
	view->progress = keep_ranks(a->progress, f);
	view->arrivals = keep_ranks(a->arrivals, f);
	view->pyspy = keep_ranks(a->pyspy, f);
	view->verdicts = g_ptr_array_new();
	for (guint i = 0; i < a->verdicts->len; i++)
		g_ptr_array_add(
			view->verdicts,
			view_verdict(g_ptr_array_index(a->verdicts, i), f));
	return view;
}

void hd_report_view_free(struct hd_analysis *view)
{
	if (!view)
		return;
	for (guint i = 0; i < view->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(view->verdicts, i);

		g_ptr_array_unref(v->evidence);
		g_ptr_array_unref(v->next_steps);
		g_free(v);
	}
	g_ptr_array_unref(view->verdicts);
	if (view->progress)
		g_array_unref(view->progress);
	if (view->arrivals)
		g_array_unref(view->arrivals);
	if (view->pyspy)
		g_array_unref(view->pyspy);
	g_free(view);
}
