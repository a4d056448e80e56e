/*
 * What the live stacks of py-spy dumps (hd-pyspy.c) and gdb backtraces
 * (hd-gdb.c) share (hd-checks.h): the walk over the verdicts that blame
 * a rank, and what a blamed rank's stack says of a missing_rank verdict.
 * A stack is taken after the hang, so it can refute a blame (the rank is
 * in a collective now) or back it (it is elsewhere), never make one.
 */
#include "config.h"

#include "hd-checks.h"

#include "hd-banned.h"

void hd_live_each_blame(
	struct hd_analysis *a, bool (*want)(const struct hd_verdict *v),
	void (*fn)(struct hd_verdict *v, bool first, void *data), void *data)
{
	g_autoptr(GHashTable) done = g_hash_table_new(NULL, NULL);
	GPtrArray *lists[] = { a->verdicts, a->held };

	for (size_t l = 0; l < G_N_ELEMENTS(lists); l++) {
		for (guint i = 0; i < lists[l]->len; i++) {
			struct hd_verdict *v = g_ptr_array_index(lists[l], i);
			int64_t key;

			if (!v->culprits->len || !want(v))
				continue;
			/* once per first culprit and kind */
			key = ((int64_t)g_array_index(v->culprits, int, 0) +
			       1) * HD_V_KIND_COUNT +
			      v->kind;
			fn(v,
			   g_hash_table_add(done, GSIZE_TO_POINTER((gsize)key)),
			   data);
		}
	}
}

void hd_live_judge_absence(struct hd_verdict *v, guint in, guint out,
			   bool first, const char *tool, const char *inside,
			   const char *seen)
{
	if (in && !out) {
		/* it entered a collective after all: the blame is refuted */
		v->confidence = HD_CONF_LOW;
		if (first)
			hd_verdict_add_evidence(
				v, -1, NULL,
				"%s contradicts this verdict: the rank blamed for never entering the op is inside %s now (a later op, or the logs lag)",
				tool, inside);
	} else if (out && !in && first) {
		g_autofree char *text = g_strdup_printf(
			"the blamed rank being stuck in the same collective: %s shows %s elsewhere",
			tool, seen);

		hd_verdict_add_ruled_out_once(v, text);
	}
}
