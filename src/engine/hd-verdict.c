/*
 * The verdict model (hd-verdict.h): constructing verdicts and their
 * evidence, the names reports print for kinds and confidences, and the
 * analysis that holds them.  No analysis is done here.
 */
#include "config.h"

#include "hd-verdict.h"

#include "hd-checks.h"

#include <stdarg.h>
#include <string.h>

#include "hd-const.h"
#include "hd-sort.h"

#include "hd-banned.h"

static void evidence_free(gpointer p)
{
	struct hd_evidence *e = p;

	if (!e)
		return;
	g_free(e->source);
	g_free(e->text);
	g_free(e);
}

static void next_free(gpointer p)
{
	struct hd_next *n = p;

	if (!n)
		return;
	g_free(n->command);
	g_free(n->text);
	g_free(n);
}

struct hd_verdict *hd_verdict_new(enum hd_verdict_kind kind,
				  enum hd_confidence conf, const char *fmt, ...)
{
	struct hd_verdict *v = g_new0(struct hd_verdict, 1);
	va_list ap;

	v->kind = kind;
	v->confidence = conf;
	v->score = hd_verdict_kind_info(kind)->score;
	v->culprits = g_array_new(FALSE, FALSE, sizeof(int));
	v->group = -1;
	v->c10d_group = -1;
	v->seq = -1;
	v->host_event = -1;
	v->late_crash = -1;
	v->evidence = g_ptr_array_new_with_free_func(evidence_free);
	v->ruled_out = g_ptr_array_new_with_free_func(g_free);
	v->culprit_info = g_array_new(FALSE, TRUE, sizeof(struct hd_culprit));
	v->next_steps = g_ptr_array_new_with_free_func(next_free);
	va_start(ap, fmt);
	v->summary = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	return v;
}

void hd_verdict_free(struct hd_verdict *v)
{
	if (!v)
		return;
	g_array_unref(v->culprits);
	g_free(v->summary);
	g_ptr_array_unref(v->evidence);
	g_ptr_array_unref(v->ruled_out);
	g_free(v->fingerprint);
	g_free(v->fingerprint_text);
	g_free(v->call_site);
	g_array_unref(v->culprit_info);
	g_ptr_array_unref(v->next_steps);
	g_free(v);
}

void hd_verdict_add_culprit(struct hd_verdict *v, int rank)
{
	guint n = v->culprits->len, at;

	/*
	 * The list stays sorted and unique.  Checks add ranks in ascending
	 * order nearly always, so the common case appends; anything else is
	 * placed by binary search (a 100k-member group once took 94 s when
	 * every add re-sorted).
	 */
	if (n == 0 || g_array_index(v->culprits, int, n - 1) < rank) {
		g_array_append_val(v->culprits, rank);
		return;
	}
	at = hd_ints_lower_bound(v->culprits, rank);
	if (g_array_index(v->culprits, int, at) != rank)
		g_array_insert_val(v->culprits, at, rank);
}

void hd_verdict_add_evidence(struct hd_verdict *v, int rank, const char *source,
			     const char *fmt, ...)
{
	struct hd_evidence *e = g_new0(struct hd_evidence, 1);
	va_list ap;

	e->rank = rank;
	e->source = g_strdup(source);
	va_start(ap, fmt);
	e->text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_ptr_array_add(v->evidence, e);
}

void hd_verdict_add_ruled_out_once(struct hd_verdict *v, const char *text)
{
	for (guint i = 0; i < v->ruled_out->len; i++)
		if (strcmp(g_ptr_array_index(v->ruled_out, i), text) == 0)
			return;
	hd_verdict_add_ruled_out(v, "%s", text);
}

GPtrArray *hd_verdict_culprit_hosts(const struct hd_store *s,
				    const struct hd_verdict *v)
{
	GPtrArray *hosts = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; i < v->culprits->len; i++) {
		const struct hd_rank *rk = hd_store_find_rank(
			s, g_array_index(v->culprits, int, i));

		if (rk && rk->host &&
		    g_hash_table_add(seen, hd_unconst(rk->host)))
			g_ptr_array_add(hosts, g_strdup(rk->host));
	}
	g_ptr_array_sort(hosts, hd_compare_str);
	return hosts;
}

void hd_verdict_add_more(struct hd_verdict *v, uint32_t more, const char *fmt,
			 ...)
{
	struct hd_evidence *e = g_new0(struct hd_evidence, 1);
	va_list ap;

	g_return_if_fail(more > 0);
	e->rank = -1;
	e->more = more;
	va_start(ap, fmt);
	e->text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_ptr_array_add(v->evidence, e);
}

bool hd_verdict_has_culprit(const struct hd_verdict *v, int rank)
{
	return hd_ints_contains(v->culprits, rank);
}

void hd_verdict_order_evidence(struct hd_verdict *v)
{
	GPtrArray *ev = v->evidence;
	g_autoptr(GPtrArray) rest = g_ptr_array_new();
	guint out = 0;
	bool culprit = false;

	if (!v->culprits->len)
		return;
	for (guint i = 0; i < ev->len; i++) {
		struct hd_evidence *e = g_ptr_array_index(ev, i);

		if (!hd_evidence_is_more(e) || i == 0)
			culprit = e->rank >= 0 &&
				  hd_verdict_has_culprit(v, e->rank);
		if (culprit)
			ev->pdata[out++] = e;
		else
			g_ptr_array_add(rest, e);
	}
	for (guint i = 0; i < rest->len; i++)
		ev->pdata[out++] = rest->pdata[i];
}

void hd_verdict_add_ruled_out(struct hd_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_ptr_array_add(v->ruled_out, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

/*
 * The verdict kinds: docs/verdicts.md says what each means.  Fields left
 * out are false, and HD_FP_PLACE.
 */
static const struct hd_verdict_kind_info verdict_kinds[] = {
	[HD_V_MISSING_RANK] = {
		.name = "missing_rank",
		.score = HD_SCORE_MISSING,
		.fault = true,
		.replayable = true,
		.rank_state = "absent",
		.next = HD_NEXT_LIVE_RANKS,
	},
	[HD_V_LAGGING_RANK] = {
		.name = "lagging_rank",
		.score = HD_SCORE_LAGGING,
		.fault = true,
		.replayable = true,
		.rank_state = "lagging",
		.next = HD_NEXT_LIVE_RANKS,
	},
	[HD_V_TYPE_MISMATCH] = {
		.name = "type_mismatch",
		.score = HD_SCORE_MISMATCH,
		.fault = true,
		.mismatch = true,
		.replayable = true,
		.rank_state = "culprit",
		.next = HD_NEXT_MISMATCH,
	},
	[HD_V_SIZE_MISMATCH] = {
		.name = "size_mismatch",
		.score = HD_SCORE_MISMATCH,
		.fault = true,
		.mismatch = true,
		.replayable = true,
		.rank_state = "culprit",
		.next = HD_NEXT_MISMATCH,
	},
	[HD_V_DTYPE_MISMATCH] = {
		.name = "dtype_mismatch",
		.score = HD_SCORE_MISMATCH,
		.fault = true,
		.mismatch = true,
		.replayable = true,
		.rank_state = "culprit",
		.next = HD_NEXT_MISMATCH,
	},
	[HD_V_ROOT_MISMATCH] = {
		.name = "root_mismatch",
		.score = HD_SCORE_MISMATCH,
		.fault = true,
		.mismatch = true,
		.replayable = true,
		.rank_state = "culprit",
		.next = HD_NEXT_MISMATCH,
	},
	[HD_V_REDOP_MISMATCH] = {
		.name = "redop_mismatch",
		.score = HD_SCORE_MISMATCH,
		.fault = true,
		.mismatch = true,
		.replayable = true,
		.rank_state = "culprit",
		.next = HD_NEXT_MISMATCH,
	},
	[HD_V_P2P_UNMATCHED] = {
		.name = "p2p_unmatched",
		.score = HD_SCORE_P2P,
		.fault = true,
		.replayable = true,
		.rank_state = "culprit",
		.next = HD_NEXT_LIVE_RANKS,
	},
	[HD_V_BLOCKED_CHAIN] = {
		.name = "blocked_chain",
		.score = HD_SCORE_CHAIN,
		.fault = true,
		.replayable = true,
		.rank_state = "absent",
		.next = HD_NEXT_LIVE_RANKS,
	},
	[HD_V_STRAGGLER] = {
		.name = "straggler",
		.score = HD_SCORE_STRAGGLER,
		.fault = true,
		.rank_state = "straggler",
		.next = HD_NEXT_LIVE_RANKS,
	},
	[HD_V_NETWORK_FAULT] = {
		.name = "network_fault",
		.score = HD_SCORE_NETWORK,
		.fault = true,
		.rank_state = "culprit",
		.fingerprint = HD_FP_SIGNATURE,
		.next = HD_NEXT_NETWORK,
	},
	[HD_V_RANK_CRASHED] = {
		.name = "rank_crashed",
		.score = HD_SCORE_CRASH,
		.fault = true,
		.rank_state = "crashed",
		.fingerprint = HD_FP_SIGNATURE,
		.next = HD_NEXT_CRASH,
	},
	[HD_V_INIT_FAILURE] = {
		.name = "init_failure",
		.score = HD_SCORE_INIT,
		.fault = true,
		.rank_state = "culprit",
		.fingerprint = HD_FP_SIGNATURE,
		.next = HD_NEXT_INIT,
	},
	[HD_V_NO_FAULT] = {
		.name = "no_fault",
		.score = HD_SCORE_NO_FAULT,
		.rank_state = "culprit",
		/* healthy is one cause, whatever was read and counted */
		.next = HD_NEXT_NO_FAULT,
	},
	[HD_V_INSUFFICIENT_DATA] = {
		.name = "insufficient_data",
		.score = HD_SCORE_INSUFFICIENT,
		.rank_state = "culprit",
		.fingerprint = HD_FP_SUMMARY,
		.next = HD_NEXT_COLLECT,
	},
	/* issue 21: a GPU's Xid in a kernel log (hd-kernel.c) */
	[HD_V_GPU_FAULT] = {
		.name = "gpu_fault",
		.score = HD_SCORE_GPU,
		.fault = true,
		.rank_state = "culprit",
		.fingerprint = HD_FP_SIGNATURE,
		.next = HD_NEXT_GPU,
	},
};
_Static_assert(G_N_ELEMENTS(verdict_kinds) == HD_V_KIND_COUNT,
	       "every verdict kind has a row");

const struct hd_verdict_kind_info *hd_verdict_kind_info(enum hd_verdict_kind k)
{
	if ((unsigned)k >= HD_V_KIND_COUNT)
		k = HD_V_INSUFFICIENT_DATA;
	return &verdict_kinds[k];
}

const char *hd_verdict_kind_name(enum hd_verdict_kind k)
{
	if ((unsigned)k >= HD_V_KIND_COUNT)
		return "unknown";
	return verdict_kinds[k].name;
}

char *hd_ranks_named(const GArray *ranks)
{
	g_autofree char *rt = hd_rank_list_text(ranks, HD_RANKS_SET);

	/* a list of scattered ranks says nothing a count does not */
	if (strlen(rt) > 60) {
		g_free(rt);
		rt = hd_ranks_text(ranks, 8);
	}
	return g_strdup_printf("%s %s", ranks->len == 1 ? "rank" : "ranks", rt);
}

const struct hd_frame *hd_culprit_frame(const struct hd_store *s,
					const struct hd_culprit *c)
{
	const struct hd_frame *frames;
	size_t n;

	if (!c || c->stack < 0 || c->user_frame < 0)
		return NULL;
	frames = hd_store_stack(s, c->stack, &n);
	return (size_t)c->user_frame < n ? &frames[c->user_frame] : NULL;
}

const char *hd_confidence_name(enum hd_confidence c)
{
	switch (c) {
	case HD_CONF_HIGH:
		return "high";
	case HD_CONF_MEDIUM:
		return "medium";
	case HD_CONF_LOW:
		break;
	}
	return "low";
}

bool hd_analysis_has_fault(const struct hd_analysis *a)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (hd_verdict_kind_info(v->kind)->fault)
			return true;
	}
	return false;
}

bool hd_analysis_undecided(const struct hd_analysis *a)
{
	return (a->trouble_signals > 0 || a->hang_seen || a->inputs_unread) &&
	       !hd_analysis_has_fault(a);
}

bool hd_analysis_is_inconsistent(const struct hd_analysis *a)
{
	return a->conflicts->len > 0 && !a->merged;
}

void hd_verdict_set_c10d_group(const struct hd_analysis *a,
			       struct hd_verdict *v, const char *name)
{
	if (v->group < 0 && name)
		v->c10d_group = hd_analysis_c10d_group_find(a, name);
}

void hd_verdict_copy_place(struct hd_verdict *v, const struct hd_verdict *from)
{
	v->group = from->group;
	v->c10d_group = from->c10d_group;
	v->seq = from->seq;
	v->op = from->op;
}

char *hd_c10d_group_id(const struct hd_c10d_group *g)
{
	return g_strdup_printf("pg:%s:?", g->name);
}

char *hd_c10d_group_label(const struct hd_c10d_group *g)
{
	return g_strdup_printf("PG %s", g->name);
}

int64_t hd_analysis_c10d_group_find(const struct hd_analysis *a,
				    const char *name)
{
	/* a lookup: one verdict per PG may ask, and PGs are many */
	guint at = name ? GPOINTER_TO_UINT(
				  g_hash_table_lookup(a->c10d_index, name))
			: 0;

	return (int64_t)at - 1;
}

/* v's c10d PG, or NULL.  (transfer none) */
static const struct hd_c10d_group *verdict_c10d(const struct hd_analysis *a,
						const struct hd_verdict *v)
{
	if (v->group >= 0 || v->c10d_group < 0 || !a->c10d_groups ||
	    (guint64)v->c10d_group >= a->c10d_groups->len)
		return NULL;
	return &g_array_index(a->c10d_groups, struct hd_c10d_group,
			      v->c10d_group);
}

char *hd_verdict_group_label(const struct hd_analysis *a,
			     const struct hd_verdict *v,
			     enum hd_group_label_form form)
{
	const struct hd_c10d_group *g = verdict_c10d(a, v);

	if (v->group >= 0 && (guint64)v->group < a->store->groups->len)
		return hd_group_label(a->store, v->group, form);
	if (!g)
		return NULL;
	return form == HD_GROUP_LABEL_SHORT ? g_strdup(g->name)
					    : hd_c10d_group_label(g);
}

char *hd_verdict_group_id(const struct hd_analysis *a,
			  const struct hd_verdict *v)
{
	const struct hd_c10d_group *g = verdict_c10d(a, v);

	if (v->group >= 0 && (guint64)v->group < a->store->groups->len)
		return g_strdup(
			hd_store_group_at(a->store, (uint32_t)v->group)->id);
	return g ? hd_c10d_group_id(g) : NULL;
}

static void c10d_group_clear(gpointer p)
{
	struct hd_c10d_group *g = p;

	if (g->ranks)
		g_array_unref(g->ranks);
}

struct hd_analysis *hd_analysis_new(const struct hd_store *store)
{
	struct hd_analysis *a = g_new0(struct hd_analysis, 1);

	a->store = store;
	a->inputs = g_ptr_array_sized_new(store->inputs->len);
	for (guint i = 0; i < store->inputs->len; i++)
		g_ptr_array_add(a->inputs, g_ptr_array_index(store->inputs, i));
	g_ptr_array_sort(a->inputs, hd_compare_input_path);
	a->verdicts =
		g_ptr_array_new_with_free_func((GDestroyNotify)hd_verdict_free);
	a->group_stats =
		g_array_new(FALSE, TRUE, sizeof(struct hd_group_stats));
	a->ranks_seen = g_array_new(FALSE, FALSE, sizeof(int));
	a->ranks_missing = g_array_new(FALSE, FALSE, sizeof(int));
	a->arrivals = g_array_new(FALSE, TRUE, sizeof(struct hd_arrival));
	a->notes = g_ptr_array_new_with_free_func(g_free);
	a->progress = g_array_new(FALSE, TRUE, sizeof(struct hd_rank_progress));
	a->conflicts = g_ptr_array_new_with_free_func(g_free);
	a->held =
		g_ptr_array_new_with_free_func((GDestroyNotify)hd_verdict_free);
	a->pyspy = g_array_new(FALSE, TRUE, sizeof(struct hd_pyspy_rank));
	a->logs_end_early = g_hash_table_new(NULL, NULL);
	a->other_instance = g_hash_table_new(NULL, NULL);
	a->c10d_groups = g_array_new(FALSE, TRUE, sizeof(struct hd_c10d_group));
	g_array_set_clear_func(a->c10d_groups, c10d_group_clear);
	a->c10d_index = g_hash_table_new(g_str_hash, g_str_equal);
	a->world_size = store->world_size;
	return a;
}

void hd_analysis_free(struct hd_analysis *a)
{
	if (!a)
		return;
	g_ptr_array_unref(a->inputs);
	g_ptr_array_unref(a->verdicts);
	g_array_unref(a->group_stats);
	g_array_unref(a->ranks_seen);
	g_array_unref(a->ranks_missing);
	g_array_unref(a->arrivals);
	g_ptr_array_unref(a->notes);
	g_array_unref(a->progress);
	g_ptr_array_unref(a->conflicts);
	g_ptr_array_unref(a->held);
	g_array_unref(a->pyspy);
	g_hash_table_unref(a->logs_end_early);
	g_hash_table_unref(a->other_instance);
	g_array_unref(a->c10d_groups);
	g_hash_table_unref(a->c10d_index);
	g_free(a->perf.summary);
	hd_verdict_free(a->perf.candidate);
	g_free(a);
}
