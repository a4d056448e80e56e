/*
 * Two analyses compared (hd-diff.h).  Each side keeps copies of what it
 * needs, so the analyses and stores can go before the diff is printed.
 * The cause is compared by fingerprint only, and only between verdicts
 * that decided something (an undecided side has no cause to share); ranks, hosts, op, call site
 * and status are compared field by field, so a report can say "same
 * cause, other host" (a recurring fault moving between nodes) or "other
 * cause at the same call site".
 */
#include "config.h"

#include "hd-diff.h"

#include <string.h>

#include "hd-banned.h"

static bool has_str(const GPtrArray *arr, const char *s)
{
	for (guint i = 0; i < arr->len; i++)
		if (strcmp(g_ptr_array_index(arr, i), s) == 0)
			return true;
	return false;
}

/* "file:line in function" of rank's innermost user frame, or NULL. */
static char *rank_site(const struct hd_analysis *an, int rank)
{
	for (guint i = 0; i < an->progress->len; i++) {
		const struct hd_rank_progress *p = &g_array_index(
			an->progress, struct hd_rank_progress, i);
		const struct hd_frame *f;
		size_t n;

		if (p->rank != rank)
			continue;
		if (p->stack < 0 || p->user_frame < 0)
			return NULL;
		f = hd_store_stack(an->store, p->stack, &n);
		if (!f || (size_t)p->user_frame >= n)
			return NULL;
		f += p->user_frame;
		return g_strdup_printf("%s:%d in %s", f->file ? f->file : "?",
				       f->line, f->name ? f->name : "?");
	}
	return NULL;
}

static void side_fill(struct hd_diff_side *d, const struct hd_analysis *an,
		      int status, const char *label)
{
	const struct hd_store *s = an->store;
	const struct hd_verdict *v;

	d->label = g_strdup(label);
	d->status = status;
	d->seq = -1;
	d->culprits = g_array_new(FALSE, FALSE, sizeof(int));
	d->hosts = g_ptr_array_new_with_free_func(g_free);
	d->usable = hd_store_usable_inputs(s) > 0;
	d->verdicts = an->verdicts->len;
	if (!d->usable || !an->verdicts->len)
		return;
	v = g_ptr_array_index(an->verdicts, 0);
	d->kind = hd_verdict_kind_name(v->kind);
	d->confidence = hd_confidence_name(v->confidence);
	d->summary = g_strdup(v->summary);
	d->fingerprint = g_strdup(v->fingerprint);
	d->fingerprint_text = g_strdup(v->fingerprint_text);
	d->op = v->op;
	d->seq = v->seq;
	d->group = hd_verdict_group_label(an, v, HD_GROUP_LABEL_LONG);
	for (guint i = 0; i < v->culprits->len; i++) {
		int rank = g_array_index(v->culprits, int, i);

		g_array_append_val(d->culprits, rank);
		if (!d->site)
			d->site = rank_site(an, rank);
	}
	g_ptr_array_unref(d->hosts);
	d->hosts = hd_verdict_culprit_hosts(s, v);
}

static void side_clear(struct hd_diff_side *d)
{
	g_free(d->label);
	g_free(d->summary);
	g_free(d->fingerprint);
	g_free(d->fingerprint_text);
	g_free(d->group);
	g_free(d->site);
	if (d->culprits)
		g_array_unref(d->culprits);
	if (d->hosts)
		g_ptr_array_unref(d->hosts);
}

static enum hd_diff_same same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b && a ? HD_DIFF_SAME : HD_DIFF_UNKNOWN;
	return strcmp(a, b) == 0 ? HD_DIFF_SAME : HD_DIFF_CHANGED;
}

static enum hd_diff_same same_ranks(const GArray *a, const GArray *b)
{
	if (!a->len || !b->len)
		return HD_DIFF_UNKNOWN;
	if (a->len != b->len)
		return HD_DIFF_CHANGED;
	return memcmp(a->data, b->data, a->len * sizeof(int)) == 0
		       ? HD_DIFF_SAME
		       : HD_DIFF_CHANGED;
}

/* The op and its position: the same op kind at the same place. */
static enum hd_diff_same same_op(const struct hd_diff_side *a,
				 const struct hd_diff_side *b)
{
	if (!a->op || !b->op)
		return HD_DIFF_UNKNOWN;
	if (strcmp(a->op, b->op) != 0 || a->seq != b->seq)
		return HD_DIFF_CHANGED;
	return HD_DIFF_SAME;
}

static bool undecided(const struct hd_diff_side *s)
{
	return s->kind &&
	       strcmp(s->kind, hd_verdict_kind_name(HD_V_INSUFFICIENT_DATA)) ==
		       0;
}

struct hd_diff *hd_diff_new(const struct hd_analysis *a, int status_a,
			    const char *label_a, const struct hd_analysis *b,
			    int status_b, const char *label_b)
{
	struct hd_diff *d = g_new0(struct hd_diff, 1);

	side_fill(&d->a, a, status_a, label_a);
	side_fill(&d->b, b, status_b, label_b);
	d->hosts_common = g_ptr_array_new_with_free_func(g_free);
	d->hosts_only_a = g_ptr_array_new_with_free_func(g_free);
	d->hosts_only_b = g_ptr_array_new_with_free_func(g_free);
	d->undecided = undecided(&d->a) || undecided(&d->b);
	d->same_cause = !d->undecided && d->a.fingerprint && d->b.fingerprint &&
			strcmp(d->a.fingerprint, d->b.fingerprint) == 0;
	d->kind = same_str(d->a.kind, d->b.kind);
	d->culprits = same_ranks(d->a.culprits, d->b.culprits);
	d->op = same_op(&d->a, &d->b);
	d->site = same_str(d->a.site, d->b.site);
	d->status = d->a.status == d->b.status ? HD_DIFF_SAME : HD_DIFF_CHANGED;
	for (guint i = 0; i < d->a.hosts->len; i++) {
		const char *h = g_ptr_array_index(d->a.hosts, i);

		g_ptr_array_add(has_str(d->b.hosts, h) ? d->hosts_common
						       : d->hosts_only_a,
				g_strdup(h));
	}
	for (guint i = 0; i < d->b.hosts->len; i++) {
		const char *h = g_ptr_array_index(d->b.hosts, i);

		if (!has_str(d->a.hosts, h))
			g_ptr_array_add(d->hosts_only_b, g_strdup(h));
	}
	if (!d->a.hosts->len || !d->b.hosts->len)
		d->hosts = HD_DIFF_UNKNOWN;
	else
		d->hosts = d->hosts_only_a->len || d->hosts_only_b->len
				   ? HD_DIFF_CHANGED
				   : HD_DIFF_SAME;
	return d;
}

void hd_diff_free(struct hd_diff *d)
{
	if (!d)
		return;
	side_clear(&d->a);
	side_clear(&d->b);
	g_ptr_array_unref(d->hosts_common);
	g_ptr_array_unref(d->hosts_only_a);
	g_ptr_array_unref(d->hosts_only_b);
	g_free(d);
}

const char *hd_diff_same_name(enum hd_diff_same s)
{
	switch (s) {
	case HD_DIFF_SAME:
		return "same";
	case HD_DIFF_CHANGED:
		return "changed";
	case HD_DIFF_UNKNOWN:
		break;
	}
	return "unknown";
}
