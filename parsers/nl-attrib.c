/*
 * The NCCL / c10d log parser's process attribution, run at end of input
 * by nl_attribute(): every NCCL record belongs to a process (host:pid),
 * whose global rank is decided from the strongest evidence seen (a c10d
 * "[rankG]:" prefix in the same output stream, an mpirun/srun rank label,
 * its rank in its world communicator, a "[N]" tag).  Ops and signals then
 * take the rank of their process or stream; a process whose rank stays
 * unknown keeps its ops as a process of unknown rank that a signal names.
 * Groups learn their members; ranks their host, pid, device and version.
 */
#include "config.h"

#include "nccl-log-internal.h"

#include "nl-proc.h"
#include "hd-banned.h"

static int proc_rank(const struct nl_proc *p)
{
	if (p->c10d_rank >= 0)
		return p->c10d_rank;
	if (p->hint_rank >= 0)
		return p->hint_rank;
	if (p->world_rank >= 0)
		return p->world_rank;
	if (p->tag_rank >= 0)
		return p->tag_rank;
	return -1;
}

/*
 * The one rank all of an input's records belong to: rank is the last seen
 * (-1 none), one turns false once two differ.
 */
struct nl_input_rank {
	int rank;
	bool one;
};

static void input_rank_see(struct nl_input_rank *ir, int rank)
{
	if (ir->rank >= 0 && ir->rank != rank)
		ir->one = false;
	ir->rank = rank;
}

/* Decides each process's global rank from the strongest evidence seen. */
static void decide_ranks(struct nl_ctx *c)
{
	bool srun_not_ranks = false, srun_agrees = false, srun_other = false;

	for (guint i = 0; i < c->streams->len; i++) {
		struct nl_stream *st = g_ptr_array_index(c->streams, i);

		if (st->proc && !st->multi && st->c10d_rank >= 0)
			hint_merge(&st->proc->c10d_rank, st->c10d_rank);
		/*
		 * srun -l labels lines with its task id, which is the rank
		 * only when srun starts one task per rank; with one torchrun
		 * per node it is the node's index.  A "2: [rank18]:" line
		 * shows which, and so do two ranks under one label ("0:
		 * [rank0]:", "0: [rank3]:", -2): then no label in this
		 * input is a rank.
		 */
		if (st->hint_srun &&
		    ((st->c10d_rank >= 0 && st->c10d_rank != st->hint_rank) ||
		     st->c10d_rank == -2))
			srun_not_ranks = true;
		/*
		 * The same evidence says whether the task srun names in its
		 * exit lines is a rank: an srun label whose stream prints
		 * its own rank as [rankG], and none whose stream prints
		 * another rank or several.
		 */
		if (st->srun_task >= 0 && st->c10d_rank == st->srun_task)
			srun_agrees = true;
		if (st->srun_task >= 0 && st->c10d_rank != -1 &&
		    st->c10d_rank != st->srun_task)
			srun_other = true;
	}
	c->srun_tasks_ranks = srun_agrees && !srun_other && !srun_not_ranks;
	for (guint i = 0; i < c->procs->len && srun_not_ranks; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if (p->hint_srun)
			p->hint_rank = -1;
	}
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		p->rank = proc_rank(p);
	}
}

/*
 * Ops: the rank of their process.  A process whose rank stays unknown
 * keeps its ops as a process of unknown rank (hd_op_set_anon(): 0, 1, ...
 * in order of first op), so that the engine can still compare them
 * across processes.  Past HD_MAX_RANKS of them hd_store_bound() drops
 * the rest, with a warning.
 */
static void attribute_ops(struct nl_ctx *c)
{
	GArray *ops = c->store->ops;
	int nanon = 0;

	for (guint i = c->op_base; i < ops->len; i++) {
		struct hd_op *op = &g_array_index(ops, struct hd_op, i);
		struct nl_proc *p = g_ptr_array_index(c->procs, nl_op_proc(op));

		if (p->rank < 0) {
			if (p->anon < 0)
				p->anon = nanon < INT_MAX ? nanon++ : INT_MAX;
			p->ndropped++;
			hd_op_set_anon(op, p->anon);
			continue;
		}
		hd_op_set_rank(op, p->rank);
	}
}

/* Names each anonymous process of attribute_ops() with a signal. */
static void name_anonymous(struct nl_ctx *c)
{
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);
		struct hd_signal sig;

		if (p->anon < 0)
			continue;
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_ANON_PROC;
		sig.anon = p->anon;
		sig.host = p->host;
		sig.pid = p->pid;
		sig.code = p->dev;
		sig.seq = (int64_t)p->ndropped;
		sig.prov.input = c->input;
		sig.prov.kind = HD_PROV_NONE;
		hd_store_add_signal(c->store, &sig);
		hd_input_warn(c->in, 0,
			      "rank unknown for %s:%d, its %" G_GUINT64_FORMAT
			      " ops kept as an anonymous process",
			      p->host, p->pid, p->ndropped);
	}
}

/* Signals: the rank of their process or stream. */
/*
 * What a launcher printed of a process or a node (torchrun's and srun's
 * exits, srun's "Node failure on HOST"): never of the process whose
 * stream the line is in.
 */
static bool launcher_sig(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_PROCESS_EXIT ||
	       sig->type == HD_SIGT_NODE_FAILURE;
}

/*
 * A stream whose lines showed events on a UTC date and on its own local
 * time gives its local clock's offset; *offset, or false.  Two such lines
 * at least 10 s apart must agree: both on the offset, and on how much
 * time passed (within a tenth), so that a date a collector stamped when
 * it copied the file (the same date on every line) aligns nothing.
 */
static bool stream_offset(struct nl_ctx *c, struct nl_stream *st,
			  int64_t *offset)
{
	struct hd_time first = st->pair_local, last = st->last_local;
	int64_t a, b, span, drift;

	if (!hd_time_known(first) || !hd_time_known(last))
		return false;
	if (!hd_time_infer_year(&first, st->anchor))
		(void)hd_time_infer_year(&first, c->dflt->anchor);
	if (!hd_time_infer_year(&last, st->anchor))
		(void)hd_time_infer_year(&last, c->dflt->anchor);
	if (!hd_time_align_offset(first, st->pair_utc, &a) ||
	    !hd_time_align_offset(last, st->last_utc, &b) || a != b)
		return false;
	span = last.ns - first.ns;
	drift = (st->last_utc.ns - st->pair_utc.ns) - span;
	if (span < 10 * HD_NS_PER_SEC || drift > span / 10 ||
	    drift < -span / 10)
		return false;
	*offset = a;
	return true;
}

static void attribute_signals(struct nl_ctx *c, struct nl_input_rank *ir)
{
	g_autofree int64_t *offset = g_new(int64_t, c->streams->len);
	g_autofree bool *aligned = g_new0(bool, c->streams->len);

	for (guint k = 0; k < c->streams->len; k++)
		aligned[k] = stream_offset(c, g_ptr_array_index(c->streams, k),
					   &offset[k]);
	for (guint i = c->sig_base; i < c->store->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(c->store->signals, struct hd_signal, i);
		int32_t pi =
			g_array_index(c->sig_proc, int32_t, i - c->sig_base);
		struct nl_stream *st = g_ptr_array_index(
			c->streams, g_array_index(c->sig_stream, uint32_t,
						  i - c->sig_base));
		struct nl_proc *p =
			pi >= 0 ? g_ptr_array_index(c->procs, pi) : NULL;

		if (sig->type == HD_SIGT_NODE_FAILURE)
			p = NULL;
		else if (!p && st->proc && !st->multi && !launcher_sig(sig))
			p = st->proc;
		/* srun's exit of one task: its rank, where tasks are ranks */
		if (sig->type == HD_SIGT_PROCESS_EXIT && sig->rank < 0 &&
		    sig->task >= 0 && c->srun_tasks_ranks)
			sig->rank = sig->task;
		/* glog's month and day take the year of a dated record of
		   the same stream, else of the file's unlabelled lines */
		if (!hd_time_infer_year(&sig->time, st->anchor))
			(void)hd_time_infer_year(&sig->time, c->dflt->anchor);
		/* the stream's local clock aligned to UTC by evidence */
		if (aligned[st->index] && sig->time.clock == HD_CLOCK_LOCAL)
			sig->time = hd_time_make(
				sig->time.ns - offset[st->index], HD_CLOCK_UTC);
		if (sig->rank < 0 && p)
			sig->rank = p->rank;
		if (sig->rank < 0 && st->c10d_rank >= 0 && !launcher_sig(sig))
			sig->rank = st->c10d_rank;
		/* a vLLM worker's own line: the worker's rank */
		if (sig->rank < 0 && st->worker_rank >= 0 &&
		    st->c10d_rank < 0 && !launcher_sig(sig))
			sig->rank = st->worker_rank;
		if (!sig->host && p) {
			sig->host = p->host;
			sig->pid = p->pid;
		}
		/* another tool's conclusion names ranks, whose data it is
		   not */
		if (sig->rank >= 0 && sig->type != HD_SIGT_RANKS_NAMED) {
			hd_rank_add_input(hd_store_rank(c->store, sig->rank),
					  c->input);
			if (!launcher_sig(sig))
				input_rank_see(ir, sig->rank);
		}
	}
}

/* Groups and ranks: what each process with a rank tells of them. */
static void fill_ranks(struct nl_ctx *c, struct nl_input_rank *ir)
{
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);
		struct hd_rank *r;

		if (p->rank < 0)
			continue;
		input_rank_see(ir, p->rank);
		for (guint k = 0; k < p->comms->len; k++) {
			struct nl_comm *cm = g_ptr_array_index(p->comms, k);

			if (cm->group >= 0 && cm->rank >= 0)
				hd_group_set_member(
					hd_store_group_at(c->store,
							  (uint32_t)cm->group),
					cm->rank, p->rank);
		}
		r = hd_store_rank(c->store, p->rank);
		if (!r->host && p->host[0])
			r->host = p->host;
		if (!r->addr)
			r->addr = p->addr;
		if (!r->pid)
			r->pid = p->pid;
		if (r->cuda_dev < 0)
			r->cuda_dev = p->world_dev;
		if (!r->bus_id)
			r->bus_id = p->world_bus;
		if (!r->nccl_version)
			r->nccl_version = nl_proc_version(c, p);
		hd_rank_add_input(r, c->input);
	}
}

/* Says how many COLL records each process had twice. */
static void note_duplicates(struct nl_ctx *c)
{
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if (p->ndup)
			hd_input_warn(c->in, 0,
				      "%" G_GUINT64_FORMAT
				      " records of %s:%d read twice "
				      "(a log shipper's repeat, or the same "
				      "log twice): read once",
				      p->ndup, p->host, p->pid);
	}
}

/*
 * A CUDA error that says "driver shutting down" (cudaErrorCudartUnloading:
 * the runtime unloads because its process exits; a c10d exception, the
 * what() of C++'s terminate, an NCCL error's "Last error:") is no
 * failure: its process was exiting, whatever made it (docs/verdicts.md).
 * Read once its text is whole (a terminate's what() comes a line later).
 */
static void exit_noise(struct nl_ctx *c)
{
	/* per process: whether its last WARN was such an error, whose
	   error unwind ("transport/net.cc:836 -> 1") follows it */
	g_autofree bool *unloading = g_new0(bool, c->procs->len + 1);

	for (guint i = c->sig_base; i < c->store->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(c->store->signals, struct hd_signal, i);
		int32_t pi =
			g_array_index(c->sig_proc, int32_t, i - c->sig_base);
		bool *u = pi >= 0 && (guint)pi < c->procs->len ? &unloading[pi]
							       : NULL;

		if (sig->type == HD_SIGT_ADVISORY &&
		    hd_signal_advice(sig) == HD_ADVICE_EXIT) {
			if (u)
				*u = true;
			continue;
		}
		if (sig->type == HD_SIGT_UNWIND) {
			if (u && *u)
				sig->cat = HD_SIG_INFO;
			continue;
		}
		if (u && sig->cat != HD_SIG_INFO)
			*u = false;
		if (sig->cat == HD_SIG_INFO || sig->cat == HD_SIG_PROGRESS ||
		    (sig->type != HD_SIGT_TRACEBACK &&
		     sig->type != HD_SIGT_CUDA_ERROR &&
		     sig->type != HD_SIGT_NCCL_ERROR) ||
		    !sig->text || !strstr(sig->text, "driver shutting down"))
			continue;
		sig->cat = HD_SIG_INFO;
		sig->type = HD_SIGT_ADVISORY;
		sig->code = HD_ADVICE_EXIT;
		if (u)
			*u = true;
	}
}

void nl_attribute(struct nl_ctx *c)
{
	struct nl_input_rank ir = { .rank = -1, .one = true };

	exit_noise(c);
	decide_ranks(c);
	nl_split_attempts(c);
	note_duplicates(c);
	attribute_ops(c);
	attribute_signals(c, &ir);
	name_anonymous(c);
	fill_ranks(c, &ir);
	if (ir.one && ir.rank >= 0)
		c->in->rank = ir.rank;
}
