/*
 * Process attribution across the NCCL logs of one incident, after the
 * merge (nl_continue_procs()).  A log that starts in the middle of a
 * process's life (the newer file of a rotated log, whose Init lines are in
 * the older one) cannot tell which comm its COLL records belong to, so
 * they go to a comm guessed by size ("nccl-nranks:N#k"), and, when nothing
 * else in it names the rank of their host:pid, to an anonymous process
 * (HD_SIGT_ANON_PROC).  Here another log of the incident completes them:
 *
 *  - an anonymous process takes the rank that every other log gives its
 *    host:pid, if exactly one (never a pid several ranks had: pid 1 in
 *    containers);
 *  - each guessed comm of that rank in that log continues the one comm of
 *    the rank, of the same size, whose last opCount is one before its
 *    first (NCCL numbers a comm's calls): a real comm, or the guessed comm
 *    of another log that itself continues one, so that a log rotated into
 *    any number of parts (.2, .1, log) is one chain, joined in opCount
 *    order whatever the files' names; its ops move to the real comm at the
 *    chain's start, after the ops of every part before it: one lane, in
 *    order;
 *  - a comm runs its ops in order, so a completed op (a clean Destroy in
 *    the newer file) completes the rank's earlier ops there too.
 *
 * Anything less certain changes nothing: a part that could continue two
 * comms, or whose part before it does not move, stays where it was.  A few
 * passes over the ops, and tables as large as the comms and processes,
 * each looked up by key: bounded by the input.
 *
 * Then nl_drop_earlier_copies(): a log that holds the first ops of another
 * log of its rank (a copy taken during the hang) gives them up to it.
 */
#include "config.h"

#include "formats.h"

#include "hd-hash.h"
#include "hd-banned.h"

/*
 * A process of one input: its rank, or (rank -1) which process of unknown
 * rank it is (hd_op_anon(), below HD_MAX_RANKS once bounded), as one
 * number.
 */
static int64_t proc_key(uint32_t input, int rank, int anon)
{
	return ((int64_t)input << 32) |
	       (anon >= 0 ? (UINT32_C(1) << 31) | (uint32_t)anon
			  : (uint32_t)rank);
}

/* A (process, comm) of one input: key of the tables below. */
static int64_t *key_new(uint32_t input, int rank, int anon, uint32_t group)
{
	int64_t *k = g_new(int64_t, 2);

	k[0] = proc_key(input, rank, anon);
	k[1] = group;
	return k;
}

static guint key_hash(gconstpointer p)
{
	const int64_t *k = p;

	return hd_hash_u64((uint64_t)k[0] * 31 + (uint64_t)k[1]);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const int64_t *x = a, *y = b;

	return x[0] == y[0] && x[1] == y[1];
}

static int64_t *int64_dup(int64_t v)
{
	int64_t *p = g_new(int64_t, 1);

	*p = v;
	return p;
}

/* The end of a rank's ops in a real comm, over all logs. */
struct lane_tail {
	int64_t max_oc, max_seq;
	int64_t done; /* the last position completed by what moves in, -1 */
};

/* A guessed comm of a rank (or anonymous process) in one log. */
struct cont {
	uint32_t input, from, to;
	int rank, anon; /* its process: a rank, or one of unknown rank */
	int to_rank; /* -1 until decided */
	int64_t min_seq, max_seq, min_oc, max_oc;
	int64_t shift; /* added to the seq of its ops */
	uint64_t nops;
	/* what it continues: a real comm's tail, or the part before it */
	struct lane_tail *tail;
	struct cont *pred;
	GPtrArray *succ; /* the parts that continue it, or NULL */
	bool ok; /* continues exactly one comm, through parts that move */
	bool placed; /* to and shift set */
};

static void cont_free(gpointer p)
{
	struct cont *ct = p;

	if (ct->succ)
		g_ptr_array_unref(ct->succ);
	g_free(ct);
}

static bool guessed(const struct hd_store *s, uint32_t g)
{
	/* the merge keeps low_confidence_identity only where all agree */
	return g_str_has_prefix(hd_store_group_at(s, g)->id, "nccl-nranks:");
}

/* The one rank whose host and pid are host:pid, or -1. */
static int rank_of_proc(const struct hd_store *s, const char *host, int pid)
{
	GHashTableIter it;
	gpointer value;
	int found = -1;

	if (!host || !pid)
		return -1;
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct hd_rank *r = value;

		if (r->rank < 0 || r->pid != pid || g_strcmp0(r->host, host))
			continue;
		if (found >= 0)
			return -1; /* a pid several ranks had */
		found = r->rank;
	}
	return found;
}

/*
 * Where a lane of a rank ends: its rank, its comm's size and the opCount
 * that would come next.  What a guessed comm starting at that opCount
 * continues, if it is the only one there.
 */
struct end_key {
	int64_t rank, nranks, next_oc;
};

struct lane_end {
	struct end_key k;
	struct lane_tail *tail; /* a real comm's, or NULL */
	uint32_t group; /* the real comm, with tail */
	struct cont *ct; /* else a guessed comm's */
	unsigned n; /* how many lanes end there */
};

static guint end_hash(gconstpointer p)
{
	const struct end_key *k = p;

	return hd_hash_u64(
		hd_hash_u64((uint64_t)k->rank * 31 + (uint64_t)k->nranks) ^
		(uint64_t)k->next_oc);
}

static gboolean end_equal(gconstpointer a, gconstpointer b)
{
	const struct end_key *x = a, *y = b;

	return x->rank == y->rank && x->nranks == y->nranks &&
	       x->next_oc == y->next_oc;
}

static void add_end(GHashTable *ends, int rank, int nranks, int64_t last_oc,
		    struct lane_tail *tail, uint32_t group, struct cont *ct)
{
	struct end_key k = { rank, nranks, last_oc + 1 };
	struct lane_end *e;

	if (rank < 0 || last_oc < 0)
		return;
	e = g_hash_table_lookup(ends, &k);
	if (!e) {
		e = g_new0(struct lane_end, 1);
		e->k = k;
		g_hash_table_insert(ends, &e->k, e);
	}
	e->tail = tail;
	e->group = group;
	e->ct = ct;
	e->n++;
}

/* Reads the tails of real comms and the guessed comms, in one pass. */
static void scan_ops(const struct hd_store *s, const bool *is_guessed,
		     GHashTable *tails, GHashTable *conts)
{
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		g_autofree int64_t *k = NULL;

		int64_t oc;

		if (op->seq_kind != HD_SEQ_ORDINAL ||
		    op->group >= s->groups->len ||
		    (hd_op_rank(op) == -1 && !hd_op_is_anon(op)) ||
		    op->input >= s->inputs->len ||
		    ((const struct hd_input *)g_ptr_array_index(s->inputs,
								op->input))
				    ->kind != HD_INPUT_NCCL_LOG)
			continue;
		oc = hd_op_op_count(s, op);
		if (!is_guessed[op->group]) {
			struct lane_tail *t;

			if (hd_op_rank(op) < 0)
				continue;
			k = key_new(0, hd_op_rank(op), -1, op->group);
			t = g_hash_table_lookup(tails, k);
			if (!t) {
				t = g_new(struct lane_tail, 1);
				t->max_oc = oc;
				t->max_seq = op->seq;
				t->done = -1;
				g_hash_table_insert(tails, g_steal_pointer(&k),
						    t);
			}
			t->max_oc = MAX(t->max_oc, oc);
			t->max_seq = MAX(t->max_seq, op->seq);
		} else {
			struct cont *ct;

			k = key_new(op->input, hd_op_rank(op), hd_op_anon(op),
				    op->group);
			ct = g_hash_table_lookup(conts, k);
			if (!ct) {
				ct = g_new0(struct cont, 1);
				ct->input = op->input;
				ct->rank = hd_op_rank(op);
				ct->anon = hd_op_anon(op);
				ct->from = op->group;
				ct->to_rank = -1;
				ct->min_seq = ct->max_seq = op->seq;
				ct->min_oc = ct->max_oc = -1;
				g_hash_table_insert(conts, g_steal_pointer(&k),
						    ct);
			}
			ct->min_seq = MIN(ct->min_seq, op->seq);
			ct->max_seq = MAX(ct->max_seq, op->seq);
			if (oc >= 0 && (ct->min_oc < 0 || oc < ct->min_oc))
				ct->min_oc = oc;
			ct->max_oc = MAX(ct->max_oc, oc);
		}
	}
}

/*
 * What each guessed comm continues: the one lane of its rank and size
 * that ends just before its first opCount, a real comm's or another log's
 * guessed comm (a part of the same rotated log), never its own log's.
 */
static void link_conts(const struct hd_store *s, GHashTable *tails,
		       GPtrArray *all, GPtrArray *failed)
{
	g_autoptr(GHashTable) ends =
		g_hash_table_new_full(end_hash, end_equal, NULL, g_free);
	GHashTableIter it;
	gpointer key, value;

	g_hash_table_iter_init(&it, tails);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		const int64_t *k = key;
		struct lane_tail *t = value;

		add_end(ends, (int)(uint32_t)k[0],
			hd_store_group_at(s, (uint32_t)k[1])->nranks, t->max_oc,
			t, (uint32_t)k[1], NULL);
	}
	for (guint i = 0; i < all->len; i++) {
		struct cont *ct = g_ptr_array_index(all, i);

		add_end(ends, ct->to_rank,
			hd_store_group_at(s, ct->from)->nranks, ct->max_oc,
			NULL, 0, ct);
	}
	for (guint i = 0; i < all->len; i++) {
		struct cont *ct = g_ptr_array_index(all, i);
		struct end_key k = { ct->to_rank,
				     hd_store_group_at(s, ct->from)->nranks,
				     ct->min_oc };
		const struct lane_end *e =
			ct->to_rank >= 0 && ct->min_oc >= 1
				? g_hash_table_lookup(ends, &k)
				: NULL;

		/* none, two lanes it could continue, or its own log's */
		if (!e || e->n != 1 || (e->ct && e->ct->input == ct->input)) {
			g_ptr_array_add(failed, ct);
			continue;
		}
		ct->ok = true;
		if (e->tail) {
			ct->tail = e->tail;
			ct->to = e->group;
			continue;
		}
		ct->pred = e->ct;
		if (!e->ct->succ)
			e->ct->succ = g_ptr_array_new();
		g_ptr_array_add(e->ct->succ, ct);
	}
}

/* Sets where ct's ops go, after the parts before it (all ok). */
static void place(struct cont *ct)
{
	g_autoptr(GPtrArray) chain = g_ptr_array_new();

	/* opCounts fall along pred: the walk ends */
	for (struct cont *c = ct; c && !c->placed; c = c->pred)
		g_ptr_array_add(chain, c);
	for (guint i = chain->len; i-- > 0;) {
		struct cont *c = g_ptr_array_index(chain, i);

		if (c->pred) {
			c->to = c->pred->to;
			c->shift = c->pred->max_seq + c->pred->shift + 1 -
				   c->min_seq;
		} else {
			c->shift = c->tail->max_seq + 1 - c->min_seq;
		}
		c->placed = true;
	}
}

/*
 * Decides each guessed comm's rank and comm.  A process of unknown rank
 * moves only when all its guessed comms in that log continue one, and a
 * part moves only when the part before it does: what does not move
 * holds back what continues it, in one pass over a work list.
 */
static void decide(const struct hd_store *s, GHashTable *tails,
		   GHashTable *conts, GHashTable *anon_rank)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new();
	g_autoptr(GPtrArray) failed = g_ptr_array_new();
	/* a process of unknown rank of one log -> its guessed comms */
	g_autoptr(GHashTable) of_proc =
		g_hash_table_new_full(hd_int64_hash, hd_int64_equal, g_free,
				      (GDestroyNotify)g_ptr_array_unref);
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, conts);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		struct cont *ct = value;
		int64_t proc = proc_key(ct->input, ct->rank, ct->anon);

		if (ct->rank >= 0)
			ct->to_rank = ct->rank;
		else if (g_hash_table_contains(anon_rank, &proc))
			ct->to_rank = GPOINTER_TO_INT(
				g_hash_table_lookup(anon_rank, &proc));
		g_ptr_array_add(all, ct);
		if (ct->rank < 0) {
			GPtrArray *l = g_hash_table_lookup(of_proc, &proc);

			if (!l) {
				l = g_ptr_array_new();
				g_hash_table_insert(of_proc, int64_dup(proc),
						    l);
			}
			g_ptr_array_add(l, ct);
		}
	}
	link_conts(s, tails, all, failed);
	while (failed->len) {
		struct cont *ct =
			g_ptr_array_steal_index_fast(failed, failed->len - 1);
		int64_t proc = proc_key(ct->input, ct->rank, ct->anon);
		gpointer key = NULL, list = NULL;
		g_autoptr(GPtrArray) l = NULL;

		/* each process's comms are held back once */
		if (ct->rank < 0 &&
		    g_hash_table_steal_extended(of_proc, &proc, &key, &list)) {
			g_free(key);
			l = list;
		}
		ct->ok = false;
		for (guint i = 0; ct->succ && i < ct->succ->len; i++) {
			struct cont *next = g_ptr_array_index(ct->succ, i);

			if (next->ok) {
				next->ok = false;
				g_ptr_array_add(failed, next);
			}
		}
		for (guint i = 0; l && i < l->len; i++) {
			struct cont *other = g_ptr_array_index(l, i);

			if (other->ok) {
				other->ok = false;
				g_ptr_array_add(failed, other);
			}
		}
	}
	for (guint i = 0; i < all->len; i++) {
		struct cont *ct = g_ptr_array_index(all, i);

		if (ct->ok)
			place(ct);
	}
}

/* Moves the ops of the comms decided ok; notes what completed. */
static void move_ops(struct hd_store *s, const bool *is_guessed,
		     GHashTable *tails, GHashTable *conts)
{
	bool any_done = false;

	for (guint i = 0; i < s->ops->len; i++) {
		struct hd_op *op = &g_array_index(s->ops, struct hd_op, i);
		g_autofree int64_t *k = NULL;
		g_autofree int64_t *tk = NULL;
		struct cont *ct;

		if (op->group >= s->groups->len || !is_guessed[op->group] ||
		    op->seq_kind != HD_SEQ_ORDINAL)
			continue;
		k = key_new(op->input, hd_op_rank(op), hd_op_anon(op),
			    op->group);
		ct = g_hash_table_lookup(conts, k);
		if (!ct || !ct->ok)
			continue;
		hd_op_set_rank(op, ct->to_rank);
		op->group = ct->to;
		hd_op_set_seq(op, op->seq + ct->shift);
		ct->nops++;
		if (op->state == HD_STATE_COMPLETED) {
			struct lane_tail *t;

			tk = key_new(0, hd_op_rank(op), -1, op->group);
			t = g_hash_table_lookup(tails, tk);
			t->done = MAX(t->done, op->seq);
			any_done = true;
		}
	}
	/* a comm runs in order: what came before a completed op completed */
	for (guint i = 0; any_done && i < s->ops->len; i++) {
		struct hd_op *op = &g_array_index(s->ops, struct hd_op, i);
		g_autofree int64_t *k = NULL;
		const struct lane_tail *t;

		if (hd_op_rank(op) < 0 || op->group >= s->groups->len ||
		    is_guessed[op->group] || op->seq_kind != HD_SEQ_ORDINAL)
			continue;
		k = key_new(0, hd_op_rank(op), -1, op->group);
		t = g_hash_table_lookup(tails, k);
		if (t && op->seq < t->done)
			op->state = HD_STATE_COMPLETED;
	}
}

/* Whether sig names a process of unknown rank that moved (moved: keys). */
static bool of_moved_proc(struct hd_signal *sig, void *moved)
{
	int64_t proc;

	if (sig->type != HD_SIGT_ANON_PROC)
		return false;
	proc = proc_key(sig->prov.input, -1, hd_signal_anon_proc(sig));
	return g_hash_table_contains(moved, &proc);
}

/* Signals, ranks and warnings of what moved; anonymous ones named. */
static void note_moves(struct hd_store *s, GHashTable *conts)
{
	/* a moved process of unknown rank of one input -> its rank */
	g_autoptr(GHashTable) moved = g_hash_table_new_full(
		hd_int64_hash, hd_int64_equal, g_free, NULL);
	/* "input host pid" of each -> its rank */
	g_autoptr(GHashTable) named =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, conts);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct cont *ct = value;
		struct hd_input *in = hd_store_input(s, ct->input);

		if (!ct->ok || !ct->nops)
			continue;
		hd_rank_add_input(hd_store_rank(s, ct->to_rank), ct->input);
		if (in->rank < 0)
			in->rank = ct->to_rank;
		hd_input_warn(
			in, 0,
			"%" G_GUINT64_FORMAT
			" ops of a comm this log has no Init line for are rank "
			"%d's, after its ops in %s of another log of this "
			"incident (a rotated log): its opCounts go on",
			ct->nops, ct->to_rank,
			hd_store_group_at(s, ct->to)->id);
	}
	g_hash_table_iter_init(&it, conts);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct cont *ct = value;

		if (ct->ok && ct->anon >= 0)
			g_hash_table_insert(
				moved,
				int64_dup(proc_key(ct->input, -1, ct->anon)),
				GINT_TO_POINTER(ct->to_rank));
	}
	if (!g_hash_table_size(moved))
		return;
	/* an anonymous process moved with its comms: named now */
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		int64_t proc;
		gpointer rank;

		if (sig->type != HD_SIGT_ANON_PROC || !sig->host || !sig->pid)
			continue;
		proc = proc_key(sig->prov.input, -1, hd_signal_anon_proc(sig));
		if (g_hash_table_lookup_extended(moved, &proc, NULL, &rank)) {
			g_autofree char *said = g_strdup_printf(
				"rank unknown for %s:%d,", sig->host, sig->pid);

			g_hash_table_insert(
				named,
				g_strdup_printf("%u %s %d", sig->prov.input,
						sig->host, sig->pid),
				rank);
			/* named now: the warning above says so instead */
			(void)hd_input_unwarn(
				hd_store_input(s, sig->prov.input), said);
		}
	}
	/* its signals (a WARN in the newer file) are that rank's too */
	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		g_autofree char *k = NULL;
		gpointer rank;

		if (sig->type == HD_SIGT_ANON_PROC || sig->rank >= 0 ||
		    !sig->host || !sig->pid)
			continue;
		k = g_strdup_printf("%u %s %d", sig->prov.input, sig->host,
				    sig->pid);
		if (g_hash_table_lookup_extended(named, k, NULL, &rank))
			sig->rank = GPOINTER_TO_INT(rank);
	}
	hd_store_filter_signals(s, of_moved_proc, moved);
}

void nl_continue_procs(struct hd_store *s)
{
	g_autofree bool *is_guessed = g_new0(bool, s->groups->len + 1);
	g_autoptr(GHashTable) tails =
		g_hash_table_new_full(key_hash, key_equal, g_free, g_free);
	g_autoptr(GHashTable) conts =
		g_hash_table_new_full(key_hash, key_equal, g_free, cont_free);
	g_autoptr(GHashTable) anon_rank = g_hash_table_new_full(
		g_int64_hash, g_int64_equal, g_free, NULL);
	bool any = false;

	for (guint g = 0; g < s->groups->len; g++)
		any |= is_guessed[g] = guessed(s, g);
	if (!any)
		return;
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		int rank;

		if (sig->type != HD_SIGT_ANON_PROC ||
		    (rank = rank_of_proc(s, sig->host, sig->pid)) < 0)
			continue;
		g_hash_table_insert(
			anon_rank,
			int64_dup(proc_key(sig->prov.input, -1,
					   hd_signal_anon_proc(sig))),
			GINT_TO_POINTER(rank));
	}
	scan_ops(s, is_guessed, tails, conts);
	if (!g_hash_table_size(conts))
		return;
	decide(s, tails, conts, anon_rank);
	move_ops(s, is_guessed, tails, conts);
	note_moves(s, conts);
	/* a guessed comm whose ops all joined the one they continue is
	   no group of the job */
	(void)hd_store_drop_empty_groups(s, is_guessed);
}

/*
 * Earlier copies (adv4).  A rank's log copied during the hang (a snapshot
 * an on-call engineer took) beside the final one holds the first ops of
 * the same process, with states the later lines had not yet completed:
 * the two disagreed on those states and the incident was refused as two.
 * A log whose ops of a rank are the first ops of another log of that rank
 * (the same groups, positions, calls and opCounts; states and times
 * aside) is an earlier copy: its ops of that rank are read from the
 * other, with a warning.  Only ranks with two NCCL logs are looked at.
 */

/* The ops of one rank in one NCCL log, in the order read. */
struct copy_run {
	uint32_t input;
	GArray *ops; /* uint32_t indices into s->ops */
};

static void copy_run_free(gpointer p)
{
	struct copy_run *c = p;

	g_array_unref(c->ops);
	g_free(c);
}

/* Whether two ops are one record, as far as a copy can tell. */
static bool same_record(const struct hd_store *s, const struct hd_op *a,
			const struct hd_op *b)
{
	return a->group == b->group && a->seq == b->seq &&
	       a->seq_kind == b->seq_kind && a->kind == b->kind &&
	       hd_op_op_count(s, a) == hd_op_op_count(s, b) &&
	       hd_op_desc(a) == hd_op_desc(b);
}

/*
 * Whether run a's ops are the first ops of run b.  Only in comms with an
 * NCCL commId, which a new process (a restart, another job) never shares:
 * without one, the next attempt's log (torchrun's attempt_1/) starts with
 * the same calls as the last one's, and a shorter hang would pass for a
 * copy of the longer run before it.
 */
static bool is_prefix(const struct hd_store *s, const struct copy_run *a,
		      const struct copy_run *b)
{
	if (!a->ops->len || a->ops->len > b->ops->len)
		return false;
	for (guint i = 0; i < a->ops->len; i++)
		if (!hd_store_group_at(
			     s,
			     g_array_index(s->ops, struct hd_op,
					   g_array_index(a->ops, uint32_t, i))
				     .group)
			     ->has_comm_id ||
		    !same_record(
			    s,
			    &g_array_index(s->ops, struct hd_op,
					   g_array_index(a->ops, uint32_t, i)),
			    &g_array_index(s->ops, struct hd_op,
					   g_array_index(b->ops, uint32_t, i))))
			return false;
	return true;
}

/* The ranks with two or more NCCL logs: rank -> GPtrArray of copy_run. */
static GHashTable *runs_of_ranks(const struct hd_store *s)
{
	GHashTable *runs =
		g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
				      (GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GHashTable) inputs =
		hd_store_ranks_inputs_of_kind(s, HD_INPUT_NCCL_LOG, false);
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, inputs);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const GArray *ins = v;
		GPtrArray *l = g_ptr_array_new_with_free_func(copy_run_free);

		for (guint i = 0; i < ins->len; i++) {
			struct copy_run *c = g_new(struct copy_run, 1);

			c->input = g_array_index(ins, uint32_t, i);
			c->ops = g_array_new(FALSE, FALSE, sizeof(uint32_t));
			g_ptr_array_add(l, c);
		}
		g_hash_table_insert(runs, k, l);
	}
	return runs;
}

/* Whether op is of a rank whose ops its input gives up (drop: keys). */
static bool of_earlier_copy(struct hd_op *op, void *drop)
{
	int64_t key = ((int64_t)op->input << 32) | (uint32_t)hd_op_rank(op);

	return hd_op_rank(op) >= 0 && g_hash_table_contains(drop, &key);
}

void nl_drop_earlier_copies(struct hd_store *s)
{
	g_autoptr(GHashTable) runs = runs_of_ranks(s);
	g_autoptr(GHashTable) drop = NULL;
	GHashTableIter it;
	gpointer k, v;

	if (!g_hash_table_size(runs))
		return;
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		GPtrArray *l =
			hd_op_rank(op) >= 0
				? g_hash_table_lookup(
					  runs, GINT_TO_POINTER(hd_op_rank(op)))
				: NULL;

		for (guint j = 0; l && j < l->len; j++) {
			struct copy_run *c = g_ptr_array_index(l, j);

			if (c->input == op->input) {
				g_array_append_val(c->ops, i);
				break;
			}
		}
	}
	drop = g_hash_table_new_full(hd_int64_hash, hd_int64_equal, g_free,
				     NULL);
	g_hash_table_iter_init(&it, runs);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		GPtrArray *l = v;

		for (guint a = 0; a < l->len; a++) {
			const struct copy_run *x = g_ptr_array_index(l, a);

			for (guint b = 0; b < l->len; b++) {
				const struct copy_run *y =
					g_ptr_array_index(l, b);

				/* equal runs: the later one is the copy */
				if (a == b || !is_prefix(s, x, y) ||
				    (x->ops->len == y->ops->len && a < b))
					continue;
				g_hash_table_add(
					drop,
					int64_dup(
						((int64_t)x->input << 32) |
						(uint32_t)GPOINTER_TO_INT(k)));
				hd_input_warn(
					hd_store_input(s, x->input), 0,
					"its %u ops of rank %d are the first ops of '%s' (a copy of that log taken earlier): read from there",
					x->ops->len, GPOINTER_TO_INT(k),
					hd_store_input(s, y->input)->path);
				break;
			}
		}
	}
	if (g_hash_table_size(drop))
		hd_store_filter_ops(s, of_earlier_copy, drop);
}
