/*
 * The engine's orchestrator: builds the op index (hd-index.c) once, runs
 * the steps of engine_steps[] in their asserted order (the FR/NCCL join,
 * then the checks), decides whether a straggler is a fault, joins
 * verdicts that several sources agree on, ranks them, and has the summary
 * verdict (hd-summary.c), the fingerprints, the tables (hd-tables.c) and
 * the next steps (hd-next.c) filled.  The checks never call in here: they
 * see the index (hd-index.h), the verdict model (hd-verdict.h) and
 * hd-checks.h only.
 */
#include "config.h"

#include "hd-engine.h"

#include <string.h>

#include "hd-checks.h"
#include "hd-consistency.h"
#include "hd-fingerprint.h"
#include "hd-next.h"
#include "hd-straggler.h"
#include "hd-summary.h"
#include "hd-tables.h"
#include "hd-banned.h"

static bool same_culprits(const struct hd_verdict *a,
			  const struct hd_verdict *b)
{
	if (a->culprits->len != b->culprits->len)
		return false;
	/* an empty GArray may have no data at all: memcmp(NULL) is UB */
	if (!a->culprits->len)
		return true;
	return memcmp(a->culprits->data, b->culprits->data,
		      a->culprits->len * sizeof(int)) == 0;
}

static bool has_source(const struct hd_verdict *v, const char *source)
{
	for (guint i = 0; i < v->evidence->len && source; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		if (e->source && strcmp(e->source, source) == 0)
			return true;
	}
	return false;
}

/*
 * Joins verdicts that say the same thing from different sources (an FR
 * dump and the c10d log of the same hang, or a process group and the NCCL
 * comm hd-join.c linked it to): the evidence is pooled, and agreement
 * between independent sources raises the confidence.
 */
static void merge_duplicates(const struct hd_index *ix, struct hd_analysis *a)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint j = i + 1; j < a->verdicts->len;) {
			struct hd_verdict *w =
				g_ptr_array_index(a->verdicts, j);
			bool joined = w->kind == v->kind &&
				      hd_join_same_finding(ix, v, w);

			if (w->kind != v->kind || !same_culprits(v, w) ||
			    (!joined && v->group >= 0 && w->group >= 0 &&
			     v->group != w->group) ||
			    /*
			     * Seqs are comparable only within one group:
			     * a PG-name-only verdict (group -1) counts
			     * SeqNum, an NCCL comm counts COLL lines.
			     */
			    (!joined && v->group >= 0 && w->group >= 0 &&
			     v->seq >= 0 && w->seq >= 0 && v->seq != w->seq) ||
			    v->culprits->len == 0) {
				j++;
				continue;
			}
			/* The process group's verdict speaks for both. */
			if (joined && hd_join_is_pg(ix, w->group)) {
				a->verdicts->pdata[i] = w;
				a->verdicts->pdata[j] = v;
				v = w;
				w = g_ptr_array_index(a->verdicts, j);
			}
			if (v->group < 0 && w->group >= 0) {
				v->group = w->group;
				v->c10d_group = -1;
				v->seq = w->seq;
			} else if (v->group < 0 && v->c10d_group < 0) {
				v->c10d_group = w->c10d_group;
			}
			if (v->seq < 0)
				v->seq = w->seq;
			if (!v->op)
				v->op = w->op;
			if (v->late_crash < 0)
				v->late_crash = w->late_crash;
			if (w->confidence >= HD_CONF_MEDIUM &&
			    v->confidence >= HD_CONF_MEDIUM)
				v->confidence = HD_CONF_HIGH;
			else if (w->confidence > v->confidence)
				v->confidence = w->confidence;
			for (guint e = 0; e < w->evidence->len; e++) {
				struct hd_evidence *ev =
					g_ptr_array_index(w->evidence, e);

				if (joined && has_source(v, ev->source))
					continue;
				if (hd_evidence_is_more(ev))
					hd_verdict_add_more(v, ev->more, "%s",
							    ev->text);
				else
					hd_verdict_add_evidence(v, ev->rank,
								ev->source,
								"%s", ev->text);
			}
			/* A joined comm's are about its own positions. */
			for (guint r = 0; r < w->ruled_out->len && !joined; r++)
				g_ptr_array_add(v->ruled_out,
						g_strdup(g_ptr_array_index(
							w->ruled_out, r)));
			if (w->score > v->score)
				v->score = w->score;
			g_ptr_array_remove_index(a->verdicts, j);
		}
	}
}

/* A verdict and its place in the ranking. */
struct ranked {
	struct hd_verdict *v;
	double key;
	guint at; /* its index before sorting, the last tie-break */
};

static int compare_ranked(gconstpointer pa, gconstpointer pb)
{
	const struct ranked *x = pa, *y = pb;
	const struct hd_verdict *a = x->v, *b = y->v;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * Sorts verdicts most probable first: by score + 3 x confidence, then
 * kind, group and seq.  A verdict that names nobody never goes above one
 * that names a culprit at a higher confidence (a low crash of a process
 * no input places, above a high missing rank): its key is set just below
 * the lowest of those.  The keys are computed once, so the order is a
 * total one.
 */
static void rank_verdicts(GPtrArray *verdicts)
{
	g_autoptr(GArray) r = g_array_sized_new(
		FALSE, FALSE, sizeof(struct ranked), verdicts->len);

	for (guint i = 0; i < verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(verdicts, i);
		struct ranked e = { v, v->score + 3.0 * v->confidence, i };

		g_array_append_val(r, e);
	}
	for (guint i = 0; i < r->len; i++) {
		struct ranked *n = &g_array_index(r, struct ranked, i);

		if (n->v->culprits->len)
			continue;
		for (guint k = 0; k < r->len; k++) {
			const struct ranked *c =
				&g_array_index(r, struct ranked, k);

			if (c->v->culprits->len &&
			    c->v->confidence > n->v->confidence &&
			    n->key >= c->v->score + 3.0 * c->v->confidence)
				n->key = c->v->score + 3.0 * c->v->confidence -
					 0.001;
		}
	}
	g_array_sort(r, compare_ranked);
	for (guint i = 0; i < r->len; i++)
		verdicts->pdata[i] = g_array_index(r, struct ranked, i).v;
}

/*
 * A straggler is a fault only where it explains an observed hang or
 * timeout that no other verdict explains; otherwise its arrival
 * statistics are a performance note and the run may well be healthy.
 */
static void decide_straggler(const struct hd_store *s, struct hd_analysis *a)
{
	struct hd_perf *p = &a->perf;
	struct hd_verdict *v = p->candidate;
	bool timeout = false;
	char *text;

	if (!v)
		return;
	p->candidate = NULL;
	for (guint i = 0; i < s->signals->len && !timeout; i++)
		timeout = g_array_index(s->signals, struct hd_signal, i).cat ==
			  HD_SIG_TIMEOUT;
	if ((a->hang_seen || timeout) && !hd_analysis_has_fault(a)) {
		p->fault = true;
		text = g_strdup_printf(
			"%s; a %s was seen that nothing else explains, so it is also a straggler verdict",
			p->summary, timeout ? "timeout" : "hang");
		hd_verdict_add_ruled_out(
			v,
			"a healthy run: a %s was seen, and no other check explains it",
			timeout ? "watchdog timeout"
				: "hang (ranks blocked in an op)");
		g_ptr_array_add(a->verdicts, v);
	} else {
		text = g_strdup_printf(
			"%s; %s, so this is a performance note, not a fault",
			p->summary,
			a->hang_seen || timeout
				? "another verdict explains the hang or timeout"
				: "no hang or timeout was seen");
		/* what the verdict ruled out besides clock skew */
		for (guint i = 1; i < v->ruled_out->len; i++)
			g_ptr_array_add(a->notes, g_strdup(g_ptr_array_index(
							  v->ruled_out, i)));
		hd_verdict_free(v);
	}
	g_free(p->summary);
	p->summary = text;
}

struct hd_analysis *hd_engine_run(const struct hd_store *store)
{
	return hd_engine_run_opts(store, NULL);
}
static void run_straggler(struct hd_index *ix, struct hd_analysis *a)
{
	hd_straggler_run(ix->store, a);
}

/*
 * The checks in the order they run, and what each reads that an earlier
 * one made.  Verdicts a check reads change what it concludes (the c10d
 * check gives insufficient_data only when no earlier check concluded
 * anything; chains start from single-culprit missing/lagging verdicts and
 * follow the waits of the group, signal and c10d checks), so moving a
 * step is a change of behaviour: hd_check_steps_ordered() refuses an
 * order where a step reads what no earlier step made.
 */
static const struct hd_check_step engine_steps[] = {
	{ "join", hd_join_run, 0, HD_DATA_JOIN },
	{ "groups", hd_check_groups, HD_DATA_JOIN,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_WAITS | HD_DATA_LOGS_END_EARLY },
	/* the c10d counters: a log that ends early is silent, not absent */
	{ "signals", hd_check_signals, HD_DATA_LOGS_END_EARLY,
	  HD_DATA_SIGNAL_VERDICTS | HD_DATA_WAITS },
	{ "c10d", hd_check_c10d,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS,
	  HD_DATA_C10D_VERDICTS | HD_DATA_WAITS },
	{ "anonymous", hd_check_anonymous, 0, HD_DATA_ANON_VERDICTS },
	{ "chains", hd_check_chains,
	  HD_DATA_WAITS | HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS,
	  HD_DATA_CHAIN_VERDICTS },
	{ "kernel", hd_check_kernel,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS,
	  HD_DATA_KERNEL_VERDICTS },
	/* py-spy (ev-a): reads every verdict that blames an absence */
	{ "pyspy", hd_check_pyspy,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS,
	  HD_DATA_PYSPY },
	/* gdb backtraces (issue 21): the same verdicts, from native stacks */
	{ "gdb", hd_check_gdb,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS,
	  HD_DATA_GDB },
	/* crashes after the hang (issue 21): the verdicts that blame an
	   absence, once py-spy and gdb have judged them */
	{ "late crashes", hd_check_late_crashes,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS |
		  HD_DATA_PYSPY | HD_DATA_GDB,
	  HD_DATA_LATE_CRASHES },
	/* NCCL Inspector (issue 21): context for every verdict, no fault */
	{ "inspector", hd_check_inspector,
	  HD_DATA_GROUP_VERDICTS | HD_DATA_SIGNAL_VERDICTS |
		  HD_DATA_C10D_VERDICTS | HD_DATA_CHAIN_VERDICTS,
	  HD_DATA_INSPECTOR },
	{ "straggler", run_straggler, 0, HD_DATA_STRAGGLER },
};

const struct hd_check_step *hd_engine_steps(size_t *n)
{
	*n = G_N_ELEMENTS(engine_steps);
	return engine_steps;
}

/* Runs the steps in table order, once the order is known to be sound. */
static void run_checks(struct hd_index *ix, struct hd_analysis *a)
{
	const char *bad;

	if (!hd_check_steps_ordered(engine_steps, G_N_ELEMENTS(engine_steps), 0,
				    &bad))
		g_error("engine step '%s' reads what no earlier step made",
			bad);
	for (size_t i = 0; i < G_N_ELEMENTS(engine_steps); i++)
		engine_steps[i].run(ix, a);
}

struct hd_analysis *hd_engine_run_opts(const struct hd_store *store,
				       const struct hd_engine_opts *opts)
{
	struct hd_analysis *a = hd_analysis_new(store);
	struct hd_index *ix = hd_index_build(store);

	hd_tables_ranks(ix, a);
	/* before the checks: a verdict of logs alone is placed in one */
	hd_tables_c10d_groups(store, a);
	hd_summary_note_attempts(store, a);
	hd_consistency_run(ix, a);
	a->merged = a->conflicts->len && opts && opts->merge;
	if (hd_analysis_is_inconsistent(a)) {
		hd_summary_refuse(a);
	} else {
		run_checks(ix, a);
		/* reads every verdict the steps made */
		decide_straggler(store, a);
	}
	/* reads hang_seen, which the checks set */
	hd_summary_hold_unproven(a);
	merge_duplicates(ix, a);
	hd_summary_run(ix, a);
	rank_verdicts(a->verdicts);
	hd_fingerprint_run(ix, a);
	hd_tables_fill(ix, a);
	hd_next_run(a);
	hd_index_free(ix);
	return a;
}
