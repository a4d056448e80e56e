/*
 * Verdicts from what PyTorch itself concluded or saw, beyond the watchdog
 * counters of hd-signals.c: ProcessGroupWrapper's collective fingerprints
 * (TORCH_DISTRIBUTED_DEBUG=DETAIL), watchdog timeouts of one process group
 * that disagree on the op at the same SeqNum, a TCPStore lost under a
 * running job, and the rule that watchdog timeouts are never "no fault".
 *
 * A fingerprint mismatch is data (each rank's own op); the vote is the one
 * of docs/verdicts.md: the minority is the culprit, a tie names every rank
 * at low confidence.
 */
#include "config.h"

#include <string.h>

#include "hd-sig-util.h"
#include "hd-hash.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-text.h"
#include "hd-banned.h"

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* What one rank was running at one position, as one source printed it. */
struct c10d_op {
	int rank;
	int64_t seq; /* -1 unknown */
	const char *op; /* as printed ("ALLREDUCE") */
	int64_t numel; /* -1 unknown */
	const char *dtype; /* or NULL */
	const struct hd_signal *sig;
};

/* The attribute a position's ops are compared on. */
enum c10d_attr { ATTR_OP, ATTR_NUMEL, ATTR_DTYPE, ATTR_COUNT };

static bool attr_known(const struct c10d_op *o, enum c10d_attr at)
{
	switch (at) {
	case ATTR_OP:
		/* a name of no op (cut, overwritten) is no side of a vote */
		return o->op && hd_op_kind_parse(o->op) != HD_OP_UNKNOWN;
	case ATTR_NUMEL:
		return o->numel >= 0;
	case ATTR_DTYPE:
		return o->dtype != NULL;
	default:
		return false;
	}
}

static bool attr_equal(const struct c10d_op *x, const struct c10d_op *y,
		       enum c10d_attr at)
{
	switch (at) {
	case ATTR_OP:
		return same_str(x->op, y->op);
	case ATTR_NUMEL:
		return x->numel == y->numel;
	case ATTR_DTYPE:
		return same_str(x->dtype, y->dtype);
	default:
		return true;
	}
}

/* A known attribute as a key of a hash that attr_equal() agrees with. */
static gpointer attr_key(const struct c10d_op *o, enum c10d_attr at)
{
	switch (at) {
	case ATTR_OP:
		return hd_unconst(o->op);
	case ATTR_NUMEL:
		return hd_unconst(&o->numel);
	default:
		return hd_unconst(o->dtype);
	}
}

static void attr_text(const struct c10d_op *o, enum c10d_attr at, char *buf,
		      size_t n)
{
	switch (at) {
	case ATTR_OP:
		g_snprintf(buf, n, "%s",
			   o->op ? hd_op_display_name(o->op) : "?");
		break;
	case ATTR_NUMEL:
		g_snprintf(buf, n, "%" G_GINT64_FORMAT " elements", o->numel);
		break;
	default:
		g_snprintf(buf, n, "%s", o->dtype ? o->dtype : "?");
		break;
	}
}

/*
 * Votes on one attribute of the ops of one position (one op per rank).
 * Returns the verdict, or NULL when every rank that has the attribute
 * agrees.  what: "fingerprints" or "timeouts", for the summary.
 */
static struct hd_verdict *vote(const struct hd_store *s, const GArray *ops,
			       enum c10d_attr at, const char *where,
			       const char *what)
{
	static const enum hd_verdict_kind kinds[ATTR_COUNT] = {
		HD_V_TYPE_MISMATCH, HD_V_SIZE_MISMATCH, HD_V_DTYPE_MISMATCH
	};
	static const char *const names[ATTR_COUNT] = { "op type", "size",
						       "dtype" };
	g_autoptr(GArray) count = g_array_new(FALSE, TRUE, sizeof(guint));
	g_autoptr(GArray) culprits = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GHashTable) first_of =
		at == ATTR_NUMEL ? g_hash_table_new(g_int64_hash, g_int64_equal)
				 : g_hash_table_new(g_str_hash, g_str_equal);
	gpointer at_first;
	g_autofree char *ct = NULL;
	g_autofree char *best_text = NULL;
	guint best = 0, second = 0, distinct = 0, known = 0;
	const struct c10d_op *maj = NULL;
	struct hd_verdict *v;
	char a[64], b[64];
	bool tie;

	g_array_set_size(count, ops->len);
	for (guint i = 0; i < ops->len; i++) {
		const struct c10d_op *o =
			&g_array_index(ops, struct c10d_op, i);
		guint first = i;

		if (!attr_known(o, at))
			continue;
		known++;
		/* the first op with this value, by hash: never a scan */
		if (g_hash_table_lookup_extended(first_of, attr_key(o, at),
						 NULL, &at_first))
			first = GPOINTER_TO_UINT(at_first);
		else
			g_hash_table_insert(first_of, attr_key(o, at),
					    GUINT_TO_POINTER(i));
		if (first == i)
			distinct++;
		g_array_index(count, guint, first)++;
	}
	if (distinct < 2 || known < 2)
		return NULL;
	for (guint i = 0; i < ops->len; i++) {
		guint n = g_array_index(count, guint, i);

		if (n > best) {
			second = best;
			best = n;
			maj = &g_array_index(ops, struct c10d_op, i);
		} else if (n > second) {
			second = n;
		}
	}
	tie = best == second;
	for (guint i = 0; i < ops->len; i++) {
		const struct c10d_op *o =
			&g_array_index(ops, struct c10d_op, i);

		if (attr_known(o, at) && (tie || !attr_equal(o, maj, at)))
			g_array_append_val(culprits, o->rank);
	}
	g_array_sort(culprits, hd_compare_int);
	ct = hd_ranks_text(culprits, 8);
	attr_text(maj, at, a, sizeof(a));
	if (tie) {
		v = hd_verdict_new(
			kinds[at], HD_CONF_LOW,
			"ranks %s disagree on the %s of %s (%s): an even split, so either side may be wrong",
			ct, names[at], where, what);
	} else {
		const struct c10d_op *mino = NULL;

		for (guint i = 0; i < ops->len && !mino; i++) {
			const struct c10d_op *o =
				&g_array_index(ops, struct c10d_op, i);

			if (attr_known(o, at) && !attr_equal(o, maj, at))
				mino = o;
		}
		attr_text(mino, at, b, sizeof(b));
		best_text = hd_text_count(best);
		v = hd_verdict_new(
			kinds[at], best >= 2 ? HD_CONF_HIGH : HD_CONF_MEDIUM,
			"rank%s %s ran %s where %s other%s ran %s at %s (%s)",
			culprits->len == 1 ? "" : "s", ct, b, best_text,
			best == 1 ? "" : "s", a, where, what);
	}
	for (guint i = 0; i < culprits->len; i++)
		hd_verdict_add_culprit(v, g_array_index(culprits, int, i));
	v->score = HD_SCORE_MISMATCH;
	for (guint i = 0; i < ops->len; i++)
		hd_sig_cite(s, v, g_array_index(ops, struct c10d_op, i).sig);
	return v;
}

/* The first attribute the ops of one position disagree on, as a verdict. */
static struct hd_verdict *compare_ops(const struct hd_store *s,
				      const GArray *ops, const char *where,
				      const char *what)
{
	for (int at = ATTR_OP; at < ATTR_COUNT; at++) {
		struct hd_verdict *v =
			vote(s, ops, (enum c10d_attr)at, where, what);

		if (v)
			return v;
	}
	return NULL;
}

/*
 * Keeps each rank's first op in ops: one pass with a hash of the ranks
 * seen, so a hundred thousand fingerprints cost their number, not its
 * square.
 */
static void first_op_per_rank(GArray *ops)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
	guint out = 0;

	for (guint i = 0; i < ops->len; i++) {
		struct c10d_op o = g_array_index(ops, struct c10d_op, i);

		if (g_hash_table_add(seen, GINT_TO_POINTER(o.rank)))
			g_array_index(ops, struct c10d_op, out++) = o;
	}
	g_array_set_size(ops, out);
}

/* The key of the fingerprints rank sent about peer. */
static gpointer pair_key(int rank, int peer)
{
	return GSIZE_TO_POINTER(((gsize)(guint32)rank << 32) | (guint32)peer);
}

/* Both halves of a pair_key() mixed (g_direct_hash() keeps the low 32). */
static guint pair_hash(gconstpointer key)
{
	guint64 v = (guint64)GPOINTER_TO_SIZE(key);

	v ^= v >> 33;
	v *= G_GUINT64_CONSTANT(0xff51afd7ed558ccd);
	v ^= v >> 33;
	return (guint)v;
}

/*
 * A pair whose seqs differ: the first fingerprint (in signal order) of
 * the first one that has a partner, the partner being the other rank's
 * message about it at a lower seq (in *partner, the higher one).  Each
 * (rank, peer) pair keeps its
 * fingerprints in order with the running minimum of their seqs, so the
 * first partner below a seq is a binary search, not a scan of every
 * signal per signal.
 */
static const struct hd_signal *find_apart(const struct hd_store *s,
					  const struct hd_signal **partner)
{
	g_autoptr(GHashTable) pairs =
		g_hash_table_new_full(pair_hash, g_direct_equal, NULL,
				      (GDestroyNotify)g_ptr_array_unref);
	const struct hd_signal *apart = NULL;

	if (sizeof(gsize) < 8)
		return NULL; /* pair_key() needs 64 bits */
	for (guint k = 0; k < s->signals->len; k++) {
		const struct hd_signal *o2 = hd_sig_at(s, k);
		gpointer key = pair_key(o2->rank, o2->peer_rank);
		GPtrArray *list;

		if (o2->type != HD_SIGT_COLL_MISMATCH || hd_signal_seq(o2) < 0)
			continue;
		list = g_hash_table_lookup(pairs, key);
		if (!list) {
			list = g_ptr_array_new();
			g_hash_table_insert(pairs, key, list);
		}
		/* keep only new running minima: the first below any seq */
		if (!list->len ||
		    hd_signal_seq(o2) <
			    hd_signal_seq(list->pdata[list->len - 1]))
			g_ptr_array_add(list, hd_unconst(o2));
	}
	for (guint i = 0; i < s->signals->len && !apart; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		GPtrArray *list;
		guint lo = 0, hi;

		if (sig->type != HD_SIGT_COLL_MISMATCH || sig->rank < 0 ||
		    hd_signal_seq(sig) < 0)
			continue;
		list = g_hash_table_lookup(pairs,
					   pair_key(sig->peer_rank, sig->rank));
		if (!list)
			continue;
		/* seqs fall along list: the first one below sig's seq */
		hi = list->len;
		while (lo < hi) {
			guint mid = lo + (hi - lo) / 2;

			if (hd_signal_seq(list->pdata[mid]) <
			    hd_signal_seq(sig))
				hi = mid;
			else
				lo = mid + 1;
		}
		if (lo < list->len) {
			apart = list->pdata[lo];
			*partner = sig;
		}
	}
	return apart;
}

/*
 * Two fingerprints of one ProcessGroupWrapper message at different
 * SequenceNumbers that also name different ops.  The wrapper compares the
 * ranks while every one of them is inside its check, so none of them is
 * late: they are running different collectives, a type mismatch, which of
 * the two is wrong untold.  NULL when their ops agree or are not shown.
 */
static struct hd_verdict *apart_op_mismatch(const struct hd_store *s,
					    const struct hd_signal *lo,
					    const struct hd_signal *hi)
{
	g_autoptr(GArray) ops =
		g_array_new(FALSE, FALSE, sizeof(struct c10d_op));
	const struct hd_signal *both[2] = { lo, hi };
	g_autofree char *where = NULL;
	struct hd_verdict *v;

	for (int k = 0; k < 2; k++) {
		struct c10d_op o = { both[k]->rank,
				     hd_signal_seq(both[k]),
				     both[k]->op_name,
				     -1,
				     NULL,
				     both[k] };

		g_array_append_val(ops, o);
	}
	where = g_strdup_printf(
		"the ProcessGroupWrapper check, where rank %d is at SequenceNumber %" G_GINT64_FORMAT
		" and rank %d at %" G_GINT64_FORMAT,
		lo->rank, hd_signal_seq(lo), hi->rank, hd_signal_seq(hi));
	v = vote(s, ops, ATTR_OP, where, "ProcessGroupWrapper fingerprints");
	if (!v)
		return NULL;
	v->seq = hd_signal_seq(lo);
	hd_verdict_add_ruled_out(
		v,
		"a rank behind the others: the wrapper compares ranks that are all inside its check");
	hd_verdict_add_ruled_out(
		v,
		"the exceptions and exits that follow: ProcessGroupWrapper raises them on every rank");
	return v;
}

/*
 * ProcessGroupWrapper fingerprints: grouped by SequenceNumber (one group
 * for the 1.10-1.12 form, which prints none), voted on op type, size and
 * dtype.  A pair whose seqs differ is a rank that has not issued as many
 * collectives; a lone fingerprint shows a mismatch but not its kind.
 */
static void check_fingerprints(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) by_seq =
		g_hash_table_new_full(hd_int64_hash, hd_int64_equal, g_free,
				      (GDestroyNotify)g_array_unref);
	g_autoptr(GPtrArray) order = g_ptr_array_new();
	const struct hd_signal *apart = NULL, *lone = NULL, *partner = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct c10d_op o;
		int64_t seq;
		GArray *ops;

		if (sig->type != HD_SIGT_COLL_MISMATCH || sig->rank < 0)
			continue;
		seq = hd_signal_seq(sig);
		o = (struct c10d_op){ sig->rank,       seq,
				      sig->op_name,    sig->numel_in,
				      sig->dtype_name, sig };
		ops = g_hash_table_lookup(by_seq, &seq);
		if (!ops) {
			int64_t *key = g_new(int64_t, 1);

			*key = seq;
			ops = g_array_new(FALSE, FALSE, sizeof(struct c10d_op));
			g_hash_table_insert(by_seq, key, ops);
			g_ptr_array_add(order, ops);
		}
		g_array_append_val(ops, o);
	}
	for (guint i = 0; i < order->len; i++)
		first_op_per_rank(g_ptr_array_index(order, i));
	/* the other rank of the same message at another seq */
	apart = find_apart(s, &partner);
	for (guint i = 0; i < order->len; i++) {
		GArray *ops = g_ptr_array_index(order, i);
		const struct c10d_op *o0 =
			&g_array_index(ops, struct c10d_op, 0);
		g_autofree char *where =
			o0->seq >= 0
				? g_strdup_printf(
					  "SequenceNumber %" G_GINT64_FORMAT,
					  o0->seq)
				: g_strdup("the collective");
		struct hd_verdict *v;

		if (ops->len < 2) {
			if (!lone)
				lone = o0->sig;
			continue;
		}
		v = compare_ops(s, ops, where,
				"ProcessGroupWrapper fingerprints");
		if (!v)
			continue;
		v->seq = o0->seq;
		hd_verdict_set_c10d_group(a, v, o0->sig->group_name);
		v->op = o0->op ? hd_op_kind_name(hd_op_kind_parse(o0->op))
			       : NULL;
		if (v->op && strcmp(v->op, "unknown") == 0)
			v->op = NULL;
		hd_verdict_add_ruled_out(
			v,
			"the exceptions and exits that follow: ProcessGroupWrapper raises them on every rank");
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	if (apart) {
		struct hd_verdict *v = apart_op_mismatch(s, apart, partner);

		if (!v) {
			v = hd_verdict_new(
				HD_V_LAGGING_RANK, HD_CONF_LOW,
				"rank %d is at SequenceNumber %" G_GINT64_FORMAT
				" of a process group where rank %d is further: it issued fewer collectives there (ProcessGroupWrapper fingerprints)",
				apart->rank, hd_signal_seq(apart),
				apart->peer_rank);
			hd_verdict_add_culprit(v, apart->rank);
			v->seq = hd_signal_seq(apart);
			v->score = HD_SCORE_LAGGING;
			hd_sig_cite(s, v, apart);
		}
		hd_verdict_set_c10d_group(a, v, apart->group_name);
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	if (lone) {
		struct hd_verdict *v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"rank %d reported a collective mismatch, but the fingerprint of the rank it disagrees with is not in the input: the kind of mismatch and the culprit cannot be told",
			lone->rank);

		v->score = HD_SCORE_INSUFFICIENT;
		hd_verdict_set_c10d_group(a, v, lone->group_name);
		hd_sig_cite(s, v, lone);
		g_ptr_array_add(a->verdicts, v);
	}
}

/* An op whose ranks all move the same count (not all_to_all, p2p, ...). */
static bool same_numel_op(const char *op)
{
	return op && (strstr(op, "ALLREDUCE") || strstr(op, "BROADCAST") ||
		      strstr(op, "ALLGATHER") || strstr(op, "REDUCE_SCATTER") ||
		      strcmp(op, "REDUCE") == 0);
}

/*
 * Watchdog timeouts of one PG at the same SeqNum that name different ops
 * or sizes: the ranks entered different collectives at that position.
 */
static void check_timeout_ops(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) pos = g_hash_table_new_full(
		g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
	g_autoptr(GPtrArray) order = g_ptr_array_new();

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct c10d_op o;
		g_autofree char *key = NULL;
		GArray *ops;

		/* timeouts of a PG not named may be of different PGs */
		if (sig->type != HD_SIGT_WATCHDOG_TIMEOUT || sig->rank < 0 ||
		    hd_signal_seq(sig) < 0 ||
		    (sig->group_name &&
		     strcmp(sig->group_name, HD_PG_UNNAMED) == 0))
			continue;
		o = (struct c10d_op){ sig->rank,    hd_signal_seq(sig),
				      sig->op_name, sig->numel_in,
				      NULL,	    sig };
		if (!same_numel_op(sig->op_name))
			o.numel = -1;
		key = g_strdup_printf("%s|%" G_GINT64_FORMAT,
				      sig->group_name ? sig->group_name : "0",
				      hd_signal_seq(sig));
		ops = g_hash_table_lookup(pos, key);
		if (!ops) {
			ops = g_array_new(FALSE, FALSE, sizeof(struct c10d_op));
			g_hash_table_insert(pos, g_steal_pointer(&key), ops);
			g_ptr_array_add(order, ops);
		}
		g_array_append_val(ops, o);
	}
	for (guint i = 0; i < order->len; i++)
		first_op_per_rank(g_ptr_array_index(order, i));
	for (guint i = 0; i < order->len; i++) {
		GArray *ops = g_ptr_array_index(order, i);
		const struct c10d_op *o0 =
			&g_array_index(ops, struct c10d_op, 0);
		g_autofree char *where = NULL;
		struct hd_verdict *v;

		if (ops->len < 2)
			continue;
		where = g_strdup_printf(
			"SeqNum %" G_GINT64_FORMAT " of PG %s", o0->seq,
			o0->sig->group_name ? o0->sig->group_name : "0");
		/* NumelIn differs legitimately only across op types */
		v = compare_ops(s, ops, where, "watchdog timeouts");
		if (!v)
			continue;
		/* an excerpt may leave out ranks: a majority is not shown */
		if (v->confidence == HD_CONF_HIGH)
			v->confidence = HD_CONF_MEDIUM;
		v->seq = o0->seq;
		hd_verdict_set_c10d_group(
			a, v, o0->sig->group_name ? o0->sig->group_name : "0");
		hd_verdict_add_ruled_out(
			v,
			"a hang inside one collective: the ranks time out in different ones");
		g_ptr_array_add(a->verdicts, v);
	}
}

/* "gpu-b01:29400" -> "gpu-b01", "[fe80::1]:29400" -> "fe80::1".  (full) */
static char *store_host(const char *addr)
{
	const char *colon = strrchr(addr, ':');

	if (addr[0] == '[' && strchr(addr, ']'))
		return g_strndup(addr + 1,
				 (size_t)(strchr(addr, ']') - addr - 1));
	return g_strndup(addr, colon ? (size_t)(colon - addr) : strlen(addr));
}

/*
 * The TCPStore went away under a running job: ranks fail to reach it.
 * Its host most likely went away first, but which rank that is comes
 * only from evidence, never from a rank number (torchrun puts the store
 * in the agent on MASTER_ADDR's host, which may hold any ranks, or none):
 * the address the lines name, mapped to the one rank that host holds.
 * Otherwise no rank is blamed: the verdict says which host served the
 * store, when the lines name it, and that its log is what to collect.
 * The confidence is low with one reporter and medium with several.
 */
static void check_store_lost(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GArray) reporters = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) on_host = NULL;
	g_autofree char *rt = NULL, *host = NULL;
	const char *addr = NULL, *hostname = NULL;
	bool addrs_differ = false, reporter_on_host = false;
	guint nsig = 0;
	int culprit = -1;
	struct hd_verdict *v;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		bool seen = false;

		if (sig->type != HD_SIGT_STORE_LOST)
			continue;
		nsig++;
		if (sig->peer && !addr)
			addr = sig->peer;
		else if (sig->peer && strcmp(sig->peer, addr) != 0)
			addrs_differ = true;
		for (guint k = 0; k < reporters->len; k++)
			seen |= g_array_index(reporters, int, k) == sig->rank;
		if (!seen && sig->rank >= 0)
			g_array_append_val(reporters, sig->rank);
	}
	if (nsig == 0)
		return;
	g_array_sort(reporters, hd_compare_int);
	rt = reporters->len ? hd_ranks_text(reporters, 8)
			    : g_strdup("a process of unknown rank");
	if (addr && !addrs_differ) {
		host = store_host(addr);
		on_host = hd_ranks_on_peer_host(s, host, &hostname);
		for (guint k = 0; k < on_host->len; k++)
			for (guint j = 0; j < reporters->len; j++)
				reporter_on_host |=
					g_array_index(on_host, int, k) ==
					g_array_index(reporters, int, j);
		if (on_host->len == 1 && !reporter_on_host)
			culprit = g_array_index(on_host, int, 0);
	}
	if (culprit >= 0) {
		v = hd_verdict_new(
			HD_V_RANK_CRASHED,
			reporters->len >= 2 ? HD_CONF_MEDIUM : HD_CONF_LOW,
			"rank%s %s lost the TCPStore at %s mid-run: its host%s%s, rank %d, most likely went away first",
			reporters->len == 1 ? "" : "s", rt, addr,
			hostname ? " " : "", hostname ? hostname : "", culprit);
		hd_verdict_add_culprit(v, culprit);
	} else {
		v = hd_verdict_new(
			HD_V_RANK_CRASHED, HD_CONF_LOW,
			"rank%s %s lost the TCPStore%s%s mid-run: the store's host most likely went away first; which rank ran there is not shown",
			reporters->len == 1 ? "" : "s", rt,
			addr && !addrs_differ ? " at " : "",
			addr && !addrs_differ ? addr : "");
	}
	v->score = HD_SCORE_CRASH;
	for (guint i = 0; i < s->signals->len; i++)
		if (hd_sig_at(s, i)->type == HD_SIGT_STORE_LOST)
			hd_sig_cite(s, v, hd_sig_at(s, i));
	if (culprit >= 0)
		hd_verdict_add_evidence(
			v, culprit, NULL,
			"the store's host %s holds rank %d alone among the ranks the input places",
			host, culprit);
	else if (addrs_differ)
		g_ptr_array_add(
			a->notes,
			g_strdup(
				"the store-loss lines name different store addresses: which host served the store is not decided; collect the log of the host in MASTER_ADDR (its launcher and processes)"));
	else if (addr)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"the TCPStore was served from %s; %s: collect that host's own log (its launcher and processes) for why it went away",
				addr,
				!on_host->len
					? "no rank in the input is placed on that host"
				: reporter_on_host
					? "a rank there lost the store too, so the store's process is not one of the ranks shown"
					: "that host holds several ranks, so which one served the store is not shown"));
	else
		g_ptr_array_add(
			a->notes,
			g_strdup(
				"the store-loss lines do not name the store's address: collect the log of the host in MASTER_ADDR (its launcher and processes) for why the store went away"));
	hd_verdict_add_ruled_out(
		v,
		"the reporting ranks: losing the store is what they saw, not what they did");
	if (culprit < 0)
		hd_verdict_add_ruled_out(
			v,
			"nothing: the store's host is not mapped to one rank; rank numbers alone do not say where the store ran");
	g_ptr_array_add(a->verdicts, v);
}

/*
 * Watchdog timeouts mean something hung: when nothing else was concluded
 * (their ranks unknown, or the counters could not decide), say so rather
 * than let the summary call it "no fault".
 */
static void check_timeouts_seen(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL;
	guint n = 0;
	struct hd_verdict *v;

	if (a->verdicts->len)
		return;
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->type != HD_SIGT_WATCHDOG_TIMEOUT)
			continue;
		if (!first)
			first = sig;
		n++;
	}
	if (!first)
		return;
	v = hd_verdict_new(
		HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
		"%u watchdog timeout%s read, but not which ranks never arrived: the input names too few ranks or positions",
		n, n == 1 ? "" : "s");
	v->score = HD_SCORE_INSUFFICIENT;
	hd_sig_cite(s, v, first);
	g_ptr_array_add(a->verdicts, v);
}

/*
 * What other tools concluded (Gloo's monitored barrier, fr_trace, the
 * desync report): the ranks they name, one verdict per (kind, seq), at
 * medium confidence; agreeing verdicts from the data raise it when the
 * engine merges duplicates.
 */
static void check_named(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	/* key -> the ranks its signals name; one pass over the signals */
	g_autoptr(GHashTable) named = g_hash_table_new_full(
		g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
	g_autoptr(GPtrArray) firsts = g_ptr_array_new();
	g_autoptr(GPtrArray) lists = g_ptr_array_new();

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		g_autofree char *key = NULL;
		GArray *ranks;

		if (sig->type != HD_SIGT_RANKS_NAMED || sig->rank < 0)
			continue;
		key = g_strdup_printf("%d|%" G_GINT64_FORMAT "|%u",
				      (int)hd_signal_named_as(sig),
				      hd_signal_seq(sig), sig->prov.input);
		ranks = g_hash_table_lookup(named, key);
		if (!ranks) {
			ranks = g_array_new(FALSE, FALSE, sizeof(int));
			g_hash_table_insert(named, g_steal_pointer(&key),
					    ranks);
			g_ptr_array_add(firsts, hd_unconst(sig));
			g_ptr_array_add(lists, ranks);
		}
		g_array_append_val(ranks, sig->rank);
	}
	for (guint i = 0; i < firsts->len; i++) {
		const struct hd_signal *sig = firsts->pdata[i];
		GArray *ranks = lists->pdata[i];
		g_autofree char *rt = NULL;
		struct hd_verdict *v;
		bool lag = hd_signal_named_as(sig) == HD_NAMED_LAGGING;

		hd_ints_sort_unique(ranks);
		rt = hd_ranks_text(ranks, 8);
		v = hd_verdict_new(lag ? HD_V_LAGGING_RANK : HD_V_MISSING_RANK,
				   HD_CONF_MEDIUM,
				   "%s %s %s%s%s (as another tool concluded)",
				   ranks->len == 1 ? "rank" : "ranks", rt,
				   lag ? "joined but did not finish"
				       : "never joined",
				   hd_signal_seq(sig) >= 0 ? " collective "
							   : " the collective",
				   "");
		if (hd_signal_seq(sig) >= 0) {
			g_free(v->summary);
			v->summary = g_strdup_printf(
				"%s %s %s collective %" G_GINT64_FORMAT
				"%s%s (as another tool concluded)",
				ranks->len == 1 ? "rank" : "ranks", rt,
				lag ? "joined but did not finish"
				    : "never joined",
				hd_signal_seq(sig), sig->op_name ? " " : "",
				sig->op_name ? hd_op_display_name(sig->op_name)
					     : "");
		}
		for (guint k = 0; k < ranks->len; k++)
			hd_verdict_add_culprit(v, g_array_index(ranks, int, k));
		v->seq = hd_signal_seq(sig);
		hd_verdict_set_c10d_group(a, v, sig->group_name);
		v->score = lag ? HD_SCORE_LAGGING : HD_SCORE_MISSING;
		hd_sig_cite(s, v, sig);
		hd_verdict_add_ruled_out(
			v,
			"nothing the tool did not print: its own inputs are not checked here");
		g_ptr_array_add(a->verdicts, v);
	}
}

void hd_check_c10d(struct hd_index *ix, struct hd_analysis *a)
{
	check_named(ix, a);
	check_fingerprints(ix, a);
	check_timeout_ops(ix, a);
	check_store_lost(ix, a);
	check_timeouts_seen(ix, a);
}
