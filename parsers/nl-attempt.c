/*
 * The NCCL / c10d log parser's job attempts (issue 20), decided at end of
 * input by nl_split_attempts(), once ranks are known: a later process in
 * the slot of an earlier one (its stream and rank), begun after the
 * earlier one's last record, is a restart of it.  Every record takes the
 * attempt of its process, and each attempt's lines are the span of its
 * processes' lines.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include "hd-banned.h"

/*
 * The slot a process fills: its first stream and its rank (when the rank
 * is unknown, its host and device).  A later process in the same slot, begun
 * after the earlier one's last record, is a restart of it; processes in
 * other slots (logs of other ranks concatenated, a console sorted by
 * rank) are not, wherever they sit in the file.
 */
static char *proc_slot(const struct nl_proc *p)
{
	if (p->rank >= 0)
		return g_strdup_printf("%u rank %d", p->stream, p->rank);
	return g_strdup_printf("%u %s dev %d", p->stream, p->host, p->dev);
}

/* torchrun's last restart of the workers between lines a and b, or NULL. */
static const struct nl_restart_line *restart_between(const struct nl_ctx *c,
						     uint64_t a, uint64_t b)
{
	const struct nl_restart_line *found = NULL;

	for (guint i = 0; i < c->restarts->len; i++) {
		const struct nl_restart_line *r =
			&g_array_index(c->restarts, struct nl_restart_line, i);

		if (r->line >= a && r->line <= b)
			found = r;
	}
	return found;
}

/* Numbers each process's attempt; returns how many attempts there are. */
static guint number_attempts(struct nl_ctx *c)
{
	g_autoptr(GHashTable) last =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint most = 1;

	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);
		char *slot = proc_slot(p);
		struct nl_proc *q = g_hash_table_lookup(last, slot);

		p->attempt = 1;
		if (q && p->first_line) {
			/* overlapping: two processes at once, not a restart,
			   unless p is the next life of q's host:pid, whose
			   last records may come after p's first */
			p->attempt = (q->last_line < p->first_line ||
				      p->before == q) &&
						     q->attempt < HD_MAX_ATTEMPT
					     ? q->attempt + 1
					     : q->attempt;
		}
		most = MAX(most, p->attempt);
		g_hash_table_replace(last, slot, p);
	}
	return most;
}

/*
 * The attempt of a signal made by no process: that of the latest process
 * of its stream (of its rank, when it has one) begun at or before it,
 * else the first of its stream; when its stream has no process (c10d
 * lines under a label the NCCL lines lack), the same over every stream;
 * else 1.
 */
static uint16_t signal_attempt(const struct nl_ctx *c,
			       const struct hd_signal *sig, uint32_t stream,
			       bool any_stream)
{
	const struct nl_proc *best = NULL, *first = NULL;

	for (guint i = 0; i < c->procs->len; i++) {
		const struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if ((!any_stream && p->stream != stream) || !p->first_line ||
		    (sig->rank >= 0 && p->rank >= 0 && p->rank != sig->rank))
			continue;
		if (!first)
			first = p;
		if (p->first_line <= sig->prov.at &&
		    (!best || p->first_line >= best->first_line))
			best = p;
	}
	if (!best)
		best = first;
	if (!best && !any_stream)
		return signal_attempt(c, sig, stream, true);
	return best ? best->attempt : 1;
}

/*
 * Attempt a of a signal, or an earlier one when the signal's time is
 * before the torchrun restart that began a, on the same host's clock:
 * the old life's last lines, printed after the new life's first (a pid
 * reused, stdout flushed late; issue 20, MED-2).  A month-day time takes
 * the restart's year.  Times a second apart or closer are not ordered.
 */
static uint16_t signal_attempt_by_time(const struct nl_ctx *c,
				       const struct hd_signal *sig, uint16_t a)
{
	while (a > 1 && a <= c->in->attempts->len) {
		const struct hd_attempt *at = &g_array_index(
			c->in->attempts, struct hd_attempt, a - 1);
		struct hd_time t = sig->time;

		if (!hd_time_known(t) || !hd_time_is_dated(at->begun))
			break;
		(void)hd_time_infer_year(&t, at->begun);
		if (hd_time_order(t, at->begun, HD_SCOPE_INPUT,
				  HD_NS_PER_SEC) != HD_ORDER_BEFORE)
			break;
		a--;
	}
	return a;
}

/* Widens an attempt's span of lines to cover first..last. */
static void span_add(struct hd_attempt *at, uint64_t first, uint64_t last)
{
	if (!at->first_line || first < at->first_line)
		at->first_line = first;
	at->last_line = MAX(at->last_line, last);
}

/*
 * Job attempts, per process (issue 20): each record takes the attempt of
 * its process, and each attempt's lines are the span of its processes'.
 */
void nl_split_attempts(struct nl_ctx *c)
{
	guint n = number_attempts(c);
	GArray *ops = c->store->ops, *sigs = c->store->signals;
	uint64_t orphans = 0;
	bool sig_search;
	const struct nl_proc *latest = NULL;
	guint swept = 0;

	if (n < 2)
		return;
	/* a signal of no process searches the processes: bounded work */
	for (guint i = 0; i < c->sig_proc->len; i++)
		orphans += g_array_index(c->sig_proc, int32_t, i) < 0;
	sig_search = orphans * c->procs->len <= (UINT64_C(1) << 26);
	for (guint k = 0; k < n; k++)
		(void)hd_input_new_attempt(c->in);
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if (!p->first_line)
			continue;
		span_add(&g_array_index(c->in->attempts, struct hd_attempt,
					p->attempt - 1),
			 p->first_line, p->last_line);
	}
	for (guint k = 0; k + 1 < n; k++) {
		struct hd_attempt *at =
			&g_array_index(c->in->attempts, struct hd_attempt, k);
		struct hd_attempt *next = &g_array_index(
			c->in->attempts, struct hd_attempt, k + 1);
		const struct nl_restart_line *r =
			restart_between(c, at->first_line, next->first_line);

		at->end = r ? "a torchrun restart"
			    : "a new process of the same rank";
		if (r)
			next->begun = r->time;
	}
	for (guint i = c->op_base; i < ops->len; i++) {
		struct hd_op *op = &g_array_index(ops, struct hd_op, i);
		const struct nl_proc *p =
			g_ptr_array_index(c->procs, nl_op_proc(op));

		op->attempt = p->attempt;
	}
	for (guint i = c->sig_base; i < sigs->len; i++) {
		struct hd_signal *sig =
			&g_array_index(sigs, struct hd_signal, i);
		int32_t pi =
			g_array_index(c->sig_proc, int32_t, i - c->sig_base);
		uint32_t st =
			g_array_index(c->sig_stream, uint32_t, i - c->sig_base);

		/* the latest process begun before it, of any stream */
		while (swept < c->procs->len &&
		       ((const struct nl_proc *)g_ptr_array_index(c->procs,
								  swept))
				       ->first_line <= sig->prov.at)
			latest = g_ptr_array_index(c->procs, swept++);
		if (pi >= 0)
			sig->prov.attempt =
				((const struct nl_proc *)g_ptr_array_index(
					 c->procs, pi))
					->attempt;
		else if (sig_search)
			sig->prov.attempt = signal_attempt(c, sig, st, false);
		else
			sig->prov.attempt = latest ? latest->attempt : 1;
		sig->prov.attempt =
			signal_attempt_by_time(c, sig, sig->prov.attempt);
		if (sig->prov.attempt && sig->prov.kind == HD_PROV_LINE)
			span_add(&g_array_index(c->in->attempts,
						struct hd_attempt,
						sig->prov.attempt - 1),
				 sig->prov.at, sig->prov.at);
	}
}
