/*
 * Wait-for chains: a rank blamed as missing or lagging in one group may
 * itself be blocked in another, waiting on a third rank.  The waits the
 * other checks recorded (hd_index_add_wait()) are followed from such a
 * culprit to a rank that waits on no one, the root blocker.  A verdict
 * that names several ranks is followed from each: with 3D parallelism,
 * the members of a tensor-parallel group blocked behind one of them are
 * all absent from the data-parallel or world collective, and only the
 * one they wait for is a root.
 */
#include "config.h"

#include "hd-checks.h"
#include "hd-sort.h"
#include "hd-banned.h"

/* Waits followed from one rank at most: a loop ends a chain sooner. */
#define CHAIN_DEPTH 64
/* Chains spelled out and waits cited in one verdict; the rest counted. */
#define CHAIN_SHOWN 8
#define STEPS_CITED 16

/* The waits of each waiter, in the order recorded: rank -> GArray of guint. */
static GHashTable *waits_by_waiter(const struct hd_index *ix)
{
	GHashTable *t =
		g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
				      (GDestroyNotify)g_array_unref);

	for (guint w = 0; w < ix->waits->len; w++) {
		const struct hd_wait *wt =
			&g_array_index(ix->waits, struct hd_wait, w);
		GArray *l = g_hash_table_lookup(t, GINT_TO_POINTER(wt->waiter));

		if (!l) {
			l = g_array_new(FALSE, FALSE, sizeof(guint));
			g_hash_table_insert(t, GINT_TO_POINTER(wt->waiter), l);
		}
		g_array_append_val(l, w);
	}
	return t;
}

/*
 * Follows the waits from rank `at` in groups other than `group` (by_waiter:
 * waits_by_waiter()) until a
 * rank that waits on no one, or a loop.  Appends the ranks reached to
 * chain (at first) and the waits taken to steps; returns how many waits
 * were taken (0: at waits on no one elsewhere).
 */
static guint follow(const struct hd_index *ix, GHashTable *by_waiter, int at,
		    int64_t group, GArray *chain, GArray *steps)
{
	guint taken = 0;

	g_array_append_val(chain, at);
	for (int depth = 0; depth < CHAIN_DEPTH; depth++) {
		const GArray *mine =
			g_hash_table_lookup(by_waiter, GINT_TO_POINTER(at));
		guint step = G_MAXUINT;
		bool loop = false;

		for (guint k = 0; mine && k < mine->len; k++) {
			guint w = g_array_index(mine, guint, k);

			if (g_array_index(ix->waits, struct hd_wait, w).group !=
			    group) {
				step = w;
				break;
			}
		}
		if (step == G_MAXUINT)
			break;
		at = g_array_index(ix->waits, struct hd_wait, step).on;
		for (guint k = 0; k < chain->len && !loop; k++)
			loop = g_array_index(chain, int, k) == at;
		g_array_append_val(steps, step);
		g_array_append_val(chain, at);
		taken++;
		if (loop)
			break;
	}
	return taken;
}

static void cite_steps(const struct hd_store *s, struct hd_verdict *v,
		       const struct hd_index *ix, const GArray *steps)
{
	for (guint k = 0; k < steps->len && k < STEPS_CITED; k++) {
		const struct hd_wait *wt =
			&g_array_index(ix->waits, struct hd_wait,
				       g_array_index(steps, guint, k));
		g_autofree char *src = hd_prov_format(s, &wt->prov);

		hd_verdict_add_evidence(
			v, wt->waiter, wt->prov.kind ? src : NULL,
			"rank %d is blocked in %s seq %" G_GINT64_FORMAT
			", waiting for rank %d",
			wt->waiter, wt->what, wt->seq, wt->on);
	}
	if (steps->len > STEPS_CITED)
		hd_verdict_add_evidence(v, -1, NULL,
					"and %u more waits of the same chains",
					steps->len - STEPS_CITED);
}

/*
 * A blocked_chain verdict v takes the position, op and confidence of mv,
 * the verdict it starts from, and cites the waits it followed.  A wait on
 * a rank known only by elimination (it left no data) holds the chain to
 * low confidence, as the verdict that found it is.
 */
static void chain_from(struct hd_verdict *v, const struct hd_verdict *mv,
		       const struct hd_index *ix, const GArray *steps)
{
	hd_verdict_copy_place(v, mv);
	v->confidence = mv->confidence;
	v->needs_hang = mv->needs_hang;
	v->score = HD_SCORE_CHAIN;
	for (guint k = 0; k < steps->len; k++)
		if (g_array_index(ix->waits, struct hd_wait,
				  g_array_index(steps, guint, k))
			    .inferred)
			v->confidence = HD_CONF_LOW;
	cite_steps(ix->store, v, ix, steps);
}

/*
 * Where a culprit with no wait recorded may still be blocked: its last
 * op (in the order its input recorded them), when that op is unfinished,
 * in another group than mv's, and some member of that group left no data
 * (whose silence records no wait; a member no input even names counts
 * too).  NCCL logs show enqueues only: a rank
 * whose last call was a tensor-parallel all_reduce with a peer whose log
 * was lost (its node died) never reaches the next world collective,
 * blocked there, not missing.  Returns that op's group index, or -1; *peer
 * gets a member that left no data.
 */
static int64_t blocked_unseen(const struct hd_index *ix,
			      const struct hd_verdict *mv, int rank, int *peer)
{
	const struct hd_store *s = ix->store;
	const struct hd_op *last = NULL;
	uint64_t last_at = 0; /* where its input recorded last */
	const struct hd_group *g;
	guint with_data = 0;
	struct hd_lane_iter it;
	const struct hd_lane *ln;

	hd_lane_iter_init(&it, ix);
	while ((ln = hd_lane_iter_next(&it))) {
		const struct hd_op *op;
		uint64_t at;

		if (ln->rank != rank || !ln->n)
			continue;
		op = &g_array_index(s->ops, struct hd_op, ln->ops[ln->n - 1]);
		at = hd_op_prov(s, op).at;
		if (!last || (op->input == last->input && at > last_at)) {
			last = op;
			last_at = at;
		} else if (op->input != last->input) {
			return -1; /* several inputs: no one order */
		}
	}
	/* a verdict placed in no store group (a c10d PG that only log lines
	   name) cannot say which group is another */
	if (!last || mv->group < 0 || last->group == (uint32_t)mv->group ||
	    last->state == HD_STATE_COMPLETED || last->group >= s->groups->len)
		return -1;
	g = hd_store_group_at(s, last->group);
	for (guint m = 0; m < g->members->len; m++) {
		int r = g_array_index(g->members, int, m);

		if (r >= 0 && r != rank && !hd_index_rank_has_data(ix, r)) {
			*peer = r;
			return last->group;
		}
		if (r >= 0 && hd_index_rank_has_data(ix, r))
			with_data++;
	}
	/* a member no input names (its Init line was in the lost log) */
	if (g->nranks > 0 && with_data < (guint)g->nranks) {
		*peer = -1;
		return last->group;
	}
	return -1;
}

/*
 * A verdict whose one culprit may be blocked where no data shows it
 * (blocked_unseen()) is held to low confidence, with the reason.
 */
static void hold_if_blocked_unseen(const struct hd_index *ix,
				   struct hd_verdict *mv)
{
	int rank = g_array_index(mv->culprits, int, 0), peer = -1;
	int64_t g = blocked_unseen(ix, mv, rank, &peer);
	g_autofree char *label = NULL;

	if (g < 0 || mv->confidence == HD_CONF_LOW)
		return;
	label = hd_group_label(ix->store, (uint32_t)g, HD_GROUP_LABEL_LONG);
	mv->confidence = HD_CONF_LOW;
	if (peer >= 0)
		hd_verdict_add_ruled_out(
			mv,
			"nothing about rank %d's absence: its last op is an unfinished call in %s, whose member rank %d left no data, so rank %d may be blocked there, waiting on it",
			rank, label, peer, rank);
	else
		hd_verdict_add_ruled_out(
			mv,
			"nothing about rank %d's absence: its last op is an unfinished call in %s, a member of which left no data, so rank %d may be blocked there, waiting on it",
			rank, label, rank);
}

/* One culprit's chain: the verdict it starts from names one rank. */
static void chain_one(struct hd_index *ix, GHashTable *by_waiter,
		      struct hd_analysis *a, struct hd_verdict *mv)
{
	g_autoptr(GArray) chain = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) steps = g_array_new(FALSE, FALSE, sizeof(guint));
	g_autofree char *first_label = NULL;
	GString *text;
	struct hd_verdict *v;
	int root;

	if (!follow(ix, by_waiter, g_array_index(mv->culprits, int, 0),
		    mv->group, chain, steps)) {
		hold_if_blocked_unseen(ix, mv);
		return;
	}
	text = g_string_new(NULL);
	root = g_array_index(chain, int, chain->len - 1);
	first_label = hd_verdict_group_label(a, mv, HD_GROUP_LABEL_LONG);
	if (!first_label)
		first_label = g_strdup("its group");
	for (guint k = 0; k < chain->len; k++)
		g_string_append_printf(text, "%s%d", k ? " -> " : "",
				       g_array_index(chain, int, k));
	v = hd_verdict_new(
		HD_V_BLOCKED_CHAIN, HD_CONF_HIGH,
		"rank %d is the root blocker: rank %d, missing from %s seq %" G_GINT64_FORMAT
		", is itself blocked (wait chain %s)",
		root, g_array_index(chain, int, 0), first_label, mv->seq,
		text->str);
	g_string_free(text, TRUE);
	hd_verdict_add_culprit(v, root);
	chain_from(v, mv, ix, steps);
	hd_verdict_add_ruled_out(
		v,
		"rank %d as the cause: it is absent from %s because it is itself blocked elsewhere",
		g_array_index(chain, int, 0), first_label);
	g_ptr_array_add(a->verdicts, v);
}

static bool has_rank(const GArray *ranks, int r)
{
	for (guint i = 0; i < ranks->len; i++)
		if (g_array_index(ranks, int, i) == r)
			return true;
	return false;
}

/*
 * A verdict that names several ranks: each is followed.  When some are
 * blocked elsewhere, the roots (where their chains end, and the named
 * ranks that wait on no one) are the culprits of a blocked_chain
 * verdict, and the verdict it starts from, which blames ranks shown to be
 * waiting, is held to low confidence with the reason.
 */
static void chain_several(struct hd_index *ix, GHashTable *by_waiter,
			  struct hd_analysis *a, struct hd_verdict *mv)
{
	g_autoptr(GArray) roots = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) blocked = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) all_steps = g_array_new(FALSE, FALSE, sizeof(guint));
	g_autoptr(GString) chains = g_string_new(NULL);
	g_autofree char *who = NULL;
	g_autofree char *blamed = NULL;
	g_autofree char *first_label = NULL;
	guint shown = 0;
	struct hd_verdict *v;

	for (guint c = 0; c < mv->culprits->len; c++) {
		int at = g_array_index(mv->culprits, int, c);
		g_autoptr(GArray) chain =
			g_array_new(FALSE, FALSE, sizeof(int));
		int root;

		if (!follow(ix, by_waiter, at, mv->group, chain, all_steps)) {
			if (!has_rank(roots, at))
				g_array_append_val(roots, at);
			continue;
		}
		g_array_append_val(blocked, at);
		root = g_array_index(chain, int, chain->len - 1);
		/* a loop among the named ranks leaves none of them a root */
		if (!has_rank(roots, root))
			g_array_append_val(roots, root);
		if (shown++ >= CHAIN_SHOWN)
			continue;
		if (chains->len)
			g_string_append(chains, ", ");
		for (guint k = 0; k < chain->len; k++)
			g_string_append_printf(chains, "%s%d", k ? " -> " : "",
					       g_array_index(chain, int, k));
	}
	if (!blocked->len)
		return;
	g_array_sort(roots, hd_compare_int);
	first_label = hd_verdict_group_label(a, mv, HD_GROUP_LABEL_LONG);
	if (!first_label)
		first_label = g_strdup("its group");
	if (shown > CHAIN_SHOWN)
		g_string_append_printf(chains, " and %u more",
				       shown - CHAIN_SHOWN);
	who = hd_ranks_text(roots, CHAIN_SHOWN);
	blamed = hd_ranks_text(blocked, CHAIN_SHOWN);
	v = hd_verdict_new(
		HD_V_BLOCKED_CHAIN, HD_CONF_HIGH,
		"%s %s %s the root %s: %s %s, missing from %s seq %" G_GINT64_FORMAT
		", %s blocked (wait %s %s)",
		roots->len == 1 ? "rank" : "ranks", who,
		roots->len == 1 ? "is" : "are",
		roots->len == 1 ? "blocker" : "blockers",
		blocked->len == 1 ? "rank" : "ranks", blamed, first_label,
		mv->seq, blocked->len == 1 ? "is itself" : "are themselves",
		blocked->len == 1 ? "chain" : "chains", chains->str);
	for (guint i = 0; i < roots->len; i++)
		hd_verdict_add_culprit(v, g_array_index(roots, int, i));
	chain_from(v, mv, ix, all_steps);
	hd_verdict_add_ruled_out(
		v,
		"%s %s as the cause: %s absent from %s because %s blocked elsewhere",
		blocked->len == 1 ? "rank" : "ranks", blamed,
		blocked->len == 1 ? "it is" : "they are", first_label,
		blocked->len == 1 ? "it is itself" : "each is itself");
	hd_verdict_add_ruled_out(
		mv,
		"%s %s as the cause: %s blocked elsewhere (see the blocked_chain verdict)",
		blocked->len == 1 ? "rank" : "ranks", blamed,
		blocked->len == 1 ? "it is itself" : "each is itself");
	mv->confidence = HD_CONF_LOW;
	g_ptr_array_add(a->verdicts, v);
}

void hd_check_chains(struct hd_index *ix, struct hd_analysis *a)
{
	g_autoptr(GHashTable) by_waiter = NULL;
	guint nverdicts = a->verdicts->len;

	by_waiter = waits_by_waiter(ix);
	for (guint i = 0; i < nverdicts; i++) {
		struct hd_verdict *mv = g_ptr_array_index(a->verdicts, i);

		if (mv->kind != HD_V_MISSING_RANK &&
		    mv->kind != HD_V_LAGGING_RANK)
			continue;
		if (mv->culprits->len == 1)
			chain_one(ix, by_waiter, a, mv);
		else if (mv->culprits->len > 1)
			chain_several(ix, by_waiter, a, mv);
	}
}
