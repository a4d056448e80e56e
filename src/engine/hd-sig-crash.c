/*
 * Crashed ranks: who failed first (a CUDA error, OOM, a dead proxy, an
 * exception, a fatal signal, a nonzero exit) while the others wait.  The
 * SIGABRT a watchdog sends its own process, the agent's SIGTERM, an exit
 * that only echoes an error the log shows, and torchrun's "Root Cause"
 * (just the earliest exit) never pick a culprit; nor does an exit known
 * by a local rank or an srun task alone, the weakest failure.
 */
#include "config.h"

#include <string.h>

#include "hd-const.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

/*
 * The ranks whose watchdog reported a timeout: each was alive, blocked in
 * a collective, when it fired.  (transfer full)
 */
static GHashTable *timed_out_ranks(const struct hd_store *s)
{
	GHashTable *t = g_hash_table_new(g_direct_hash, g_direct_equal);

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->rank >= 0 && sig->type == HD_SIGT_WATCHDOG_TIMEOUT)
			g_hash_table_add(t, GINT_TO_POINTER(sig->rank));
	}
	return t;
}

/*
 * Did this rank's watchdog time out?  Then what killed its process (a
 * fatal signal, a kill) came after: a process that died first prints no
 * timeout.  So it is a consequence (the watchdog's own SIGABRT, a segfault
 * while ncclCommAbort() tears the comm down, the agent's kill), never the
 * first failure.
 */
static bool rank_timed_out(GHashTable *timed_out, int rank)
{
	return rank >= 0 &&
	       g_hash_table_contains(timed_out, GINT_TO_POINTER(rank));
}

/*
 * Whether sig ends its process: a fatal signal, an exit, C++'s terminate
 * (it aborts).  A Python exception need not: the interpreter can go on,
 * or block in the process group's teardown, its watchdog still running.
 */
static bool ends_process(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_FATAL_SIGNAL ||
	       sig->type == HD_SIGT_PROCESS_EXIT ||
	       (sig->type == HD_SIGT_TRACEBACK && sig->text &&
		strstr(sig->text, "terminate called after throwing"));
}

/*
 * Whether sig, a c10d status line, was printed once the hang was
 * detected: not before the first watchdog timeout (firsts, of
 * hd_sig_first_timed(); the first few compared), on a clock the two
 * compare on.
 */
static bool status_after_timeout(const struct hd_store *s,
				 const struct hd_signal *sig,
				 const GPtrArray *firsts)
{
	if (!firsts || !hd_sig_from_log(s, sig) || !hd_time_known(sig->time))
		return false;
	for (guint i = 0; i < firsts->len && i < 8; i++) {
		enum hd_order o =
			hd_sig_order(s, sig, g_ptr_array_index(firsts, i));

		if (o == HD_ORDER_AFTER || o == HD_ORDER_SAME)
			return true;
	}
	return false;
}

/*
 * Each rank's last sign of life after a hang was detected: a line its
 * process printed in answer to a timeout, its own or another rank's (a
 * dump signal received, its heartbeat monitor firing, a status line no
 * earlier than the first watchdog timeout).  rank -> that signal, the
 * latest with a time where several have one.  (transfer full)
 */
static GHashTable *alive_after_hang(const struct hd_store *s)
{
	GHashTable *t = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autoptr(GPtrArray) firsts = hd_sig_first_timeouts(s);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		const struct hd_signal *had;

		if (sig->rank < 0 || (sig->type != HD_SIGT_DUMP &&
				      sig->type != HD_SIGT_HEARTBEAT &&
				      !(sig->type == HD_SIGT_PG_STATUS &&
					status_after_timeout(s, sig, firsts))))
			continue;
		had = g_hash_table_lookup(t, GINT_TO_POINTER(sig->rank));
		if (!had || (hd_time_known(sig->time) &&
			     (!hd_time_known(had->time) ||
			      hd_sig_order(s, sig, had) == HD_ORDER_AFTER)))
			g_hash_table_insert(t, GINT_TO_POINTER(sig->rank),
					    hd_unconst(sig));
	}
	return t;
}

/*
 * The sign of life that places sig, a failure that ends its rank's
 * process, after the hang was detected: a process that died prints
 * nothing more, so a failure with no time of its own, or a time after
 * that line, came after it, and did not cause the hang.  NULL when there
 * is none, when the two are told apart as processes (their pids or
 * hosts differ), or when sig's time puts it first or cannot be ordered.
 * (transfer none)
 */
static const struct hd_signal *crash_after_hang(const struct hd_store *s,
						GHashTable *alive,
						const struct hd_signal *sig)
{
	const struct hd_signal *l;

	if (sig->rank < 0 || !ends_process(sig))
		return NULL;
	l = g_hash_table_lookup(alive, GINT_TO_POINTER(sig->rank));
	if (!l || (sig->pid > 0 && l->pid > 0 && sig->pid != l->pid) ||
	    (sig->host && l->host && strcmp(sig->host, l->host) != 0))
		return NULL;
	if (!hd_time_known(sig->time))
		return l;
	return hd_sig_order(s, sig, l) == HD_ORDER_AFTER ? l : NULL;
}

/*
 * Whether the log holds an error that makes a Python process exit with
 * code 1 (c10d, issue 11): a ProcessGroupWrapper mismatch, an "NCCL
 * error in:", a setup failure or a CUDA driver NCCL could not use; that
 * exit is then its echo.
 */
static bool has_explained_exit(const struct hd_store *s)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->type == HD_SIGT_COLL_MISMATCH ||
		    sig->type == HD_SIGT_NCCL_ERROR ||
		    sig->type == HD_SIGT_DUPLICATE_GPU ||
		    sig->type == HD_SIGT_CUDA_DRIVER ||
		    sig->cat == HD_SIG_INIT || sig->cat == HD_SIG_CONFIG)
			return true;
	}
	return false;
}

/*
 * Whether sig, a driver-class CUDA failure (no device, the driver not
 * initialised), came after its rank's collectives ran, in the same
 * input: the GPU it had was lost mid-run (fallen off the bus), which
 * fails the rank.  A rank with no collectives failed its setup instead
 * (hd-sig-init.c), and a library NCCL could not load (its cudawrap
 * WARN) is no failure of a call at all: NCCL goes on without it.
 */
static bool driver_lost_mid_run(struct hd_index *ix,
				const struct hd_signal *sig)
{
	const struct hd_store *s = ix->store;
	struct hd_lane_iter it;
	const struct hd_lane *lane;

	if (sig->rank < 0 || !hd_sig_from_log(s, sig) ||
	    !hd_sig_driver_call_failed(sig))
		return false;
	hd_lane_iter_init(&it, ix);
	while ((lane = hd_lane_iter_next(&it))) {
		struct hd_prov p;

		if (lane->rank != sig->rank || !lane->n)
			continue;
		p = hd_op_prov(s, hd_index_op(ix, lane->ops[0]));
		if (p.input == sig->prov.input && p.kind == HD_PROV_LINE &&
		    p.at < sig->prov.at)
			return true;
	}
	return false;
}

/* A failure that starts trouble, rather than one that follows it. */
static bool is_crash_cause(struct hd_index *ix, GHashTable *timed_out,
			   const struct hd_signal *sig)
{
	const struct hd_store *s = ix->store;

	switch (sig->type) {
	case HD_SIGT_CUDA_ERROR:
	case HD_SIGT_OOM:
	case HD_SIGT_PROXY_DIED:
	case HD_SIGT_NODE_FAILURE:
		return true;
	case HD_SIGT_CUDA_DRIVER:
		return driver_lost_mid_run(ix, sig);
	case HD_SIGT_TRACEBACK:
		/* An exception raised by the watchdog or NCCL is a consequence. */
		return !(sig->text && (strstr(sig->text, "DistBackendError") ||
				       strstr(sig->text, "NCCL") ||
				       strstr(sig->text, "Watchdog") ||
				       strstr(sig->text, "timed out") ||
				       strstr(sig->text, "DistNetworkError")));
	case HD_SIGT_FATAL_SIGNAL:
		/* after its own timeout: the watchdog's abort, a segfault in
		   the teardown (a core of ncclProxyProgress) */
		return !rank_timed_out(timed_out, sig->rank);
	case HD_SIGT_PROCESS_EXIT:
		/* -15 is the agent's */
		if (hd_signal_exit_code(sig) == -15)
			return false;
		/* exit 1 is the exception of an error the log shows itself */
		if (hd_signal_exit_code(sig) == 1 && has_explained_exit(s))
			return false;
		/* killed by a signal after its own timeout (-6: the
		   watchdog's abort) */
		if (hd_signal_exit_code(sig) < 0 &&
		    rank_timed_out(timed_out, sig->rank))
			return false;
		/* a SIGABRT of a worker known by its local rank alone,
		   once a watchdog timed out: the watchdog's abort, whose
		   rank cannot be told from the exit, is the likeliest */
		if (hd_signal_exit_code(sig) == -6 && sig->rank < 0 &&
		    g_hash_table_size(timed_out) > 0)
			return false;
		return hd_signal_exit_code(sig) != 0;
	case HD_SIGT_NCCL_ERROR:
		/* "NCCL error: unhandled cuda error": a CUDA failure of its
		   process, weak (nccl_weak()); NCCL's other results are
		   setup, network or a peer's.  Once any watchdog timed out
		   it may be what the abort left, as NCCL's exceptions are */
		return sig->cat == HD_SIG_CUDA &&
		       g_hash_table_size(timed_out) == 0;
	default:
		return false;
	}
}

/*
 * An NCCL error a framework raised for a CUDA failure of its process
 * ("RuntimeError: NCCL error: unhandled cuda error", vLLM's pynccl, a
 * c10d exception): a failure, but one that names neither what failed
 * nor, often, the rank; NCCL's own WARN or the CUDA error says more.  A
 * candidate only where nothing else failed, as an exit known by its
 * local rank is.
 */
static bool nccl_weak(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_NCCL_ERROR;
}

/* The name of a fatal signal's number, Linux numbering. */
static const char *signal_name(int signo)
{
	switch (signo) {
	case 1:
		return "SIGHUP";
	case 2:
		return "SIGINT";
	case 3:
		return "SIGQUIT";
	case 4:
		return "SIGILL";
	case 5:
		return "SIGTRAP";
	case 6:
		return "SIGABRT";
	case 7:
		return "SIGBUS";
	case 8:
		return "SIGFPE";
	case 9:
		return "SIGKILL";
	case 10:
		return "SIGUSR1";
	case 11:
		return "SIGSEGV";
	case 12:
		return "SIGUSR2";
	case 13:
		return "SIGPIPE";
	case 14:
		return "SIGALRM";
	case 15:
		return "SIGTERM";
	case 24:
		return "SIGXCPU";
	case 25:
		return "SIGXFSZ";
	case 31:
		return "SIGSYS";
	default:
		return "signal";
	}
}

/* Whether a frame is NCCL's: its function or its library. */
static bool frame_is_nccl(const struct hd_frame *f)
{
	return (f->name && (g_str_has_prefix(f->name, "nccl") ||
			    g_str_has_prefix(f->name, "rccl"))) ||
	       (f->file &&
		(strstr(f->file, "libnccl") || strstr(f->file, "librccl")));
}

/* The innermost NCCL frame of a fatal signal's stack, or NULL. */
static const struct hd_frame *nccl_frame(const struct hd_store *s,
					 const struct hd_signal *sig)
{
	size_t n = 0;
	const struct hd_frame *f = hd_store_stack(s, sig->stack, &n);

	for (size_t i = 0; i < n; i++)
		if (frame_is_nccl(&f[i]) && f[i].name &&
		    strcmp(f[i].name, "???") != 0)
			return &f[i];
	for (size_t i = 0; i < n; i++)
		if (frame_is_nccl(&f[i]))
			return &f[i];
	return NULL;
}

/* The innermost frame of a stack that has a file and line, or NULL. */
static const struct hd_frame *line_frame(const struct hd_store *s,
					 const struct hd_signal *sig)
{
	size_t n = 0;
	const struct hd_frame *f = hd_store_stack(s, sig->stack, &n);

	for (size_t i = 0; i < n; i++)
		if (f[i].file && f[i].line > 0 && f[i].name)
			return &f[i];
	return NULL;
}

/*
 * "fatal signal 7 (SIGBUS) inside NCCL (ncclGroupEnd)", or where the
 * crashing stack has a line (a faulthandler dump): "fatal signal 11
 * (SIGSEGV) in fetch_next_batch (loader.py:211)".  (transfer full)
 */
static char *fatal_what(const struct hd_store *s, const struct hd_signal *sig)
{
	const struct hd_frame *f = nccl_frame(s, sig);
	int32_t signo = hd_signal_signo(sig);

	if (f)
		return g_strdup_printf("fatal signal %d (%s) inside NCCL (%s)",
				       signo, signal_name(signo),
				       f->name ? f->name : "libnccl");
	f = line_frame(s, sig);
	if (f)
		return g_strdup_printf("fatal signal %d (%s) in %s (%s:%d)",
				       signo, signal_name(signo), f->name,
				       f->file, f->line);
	return g_strdup_printf("fatal signal %d (%s)", signo,
			       signal_name(signo));
}

/*
 * A fatal signal's frames as evidence, and what an NCCL frame on the
 * crashing stack says: the crash is inside NCCL, not the training code;
 * SIGBUS there is a mapped shared-memory segment with no memory behind it.
 */
static void fatal_evidence(const struct hd_store *s, struct hd_verdict *v,
			   const struct hd_signal *sig)
{
	size_t n = 0;
	const struct hd_frame *f;
	GString *t;

	/* an exception's stack too (a torchelastic error file, issue 21) */
	if (sig->type != HD_SIGT_FATAL_SIGNAL && sig->stack < 0)
		return;
	f = hd_store_stack(s, sig->stack, &n);
	if (n) {
		t = g_string_new(sig->type == HD_SIGT_FATAL_SIGNAL
					 ? "crashing stack, innermost first: "
					 : "raising stack, innermost first: ");
		for (size_t i = 0; i < n && i < 6; i++) {
			g_string_append_printf(t, "%s%s", i ? " <- " : "",
					       f[i].name ? f[i].name : "?");
			if (f[i].file && f[i].line > 0)
				g_string_append_printf(t, " (%s:%d)", f[i].file,
						       f[i].line);
		}
		if (n > 6)
			g_string_append_printf(t, " <- %zu more", n - 6);
		hd_verdict_add_evidence(v, sig->rank, NULL, "%s", t->str);
		g_string_free(t, TRUE);
	}
	if (sig->type != HD_SIGT_FATAL_SIGNAL || !nccl_frame(s, sig))
		return;
	if (hd_signal_signo(sig) == 7)
		hd_verdict_add_evidence(
			v, sig->rank, NULL,
			"SIGBUS inside NCCL: a shared-memory segment NCCL mapped (/dev/shm, its setup of the SHM transport or proxy) has no memory behind it; /dev/shm is too small or full (a container's default is 64 MB)");
	else
		hd_verdict_add_evidence(
			v, sig->rank, NULL,
			"an NCCL function is on the crashing stack: NCCL itself (its setup, proxy or transport) failed, not the training code");
}

/* How check_crashes() found the failures ordered. */
enum crash_shape {
	CRASH_FIRST, /* one failed first: the times say so, or it is alone */
	CRASH_TIE, /* the first ones cannot be told apart */
	CRASH_UNORDERED, /* several, some without a time */
};

/* What crash_decide() chose; crash_build() states it. */
struct crash_decision {
	enum crash_shape shape;
	enum hd_confidence conf;
	GArray *culprits; /* int, ascending */
	const struct hd_signal *first; /* the failure the verdict leads with */
	GPtrArray *firsts; /* the tied first failures (CRASH_TIE), or NULL */
	bool rankless; /* some of those named are of unknown rank */
	guint timeouts; /* watchdog timeouts in the store */
	guint closed_naming; /* peers that saw first's host close on them */
};

static void crash_decision_clear(struct crash_decision *d)
{
	g_clear_pointer(&d->culprits, g_array_unref);
	g_clear_pointer(&d->firsts, g_ptr_array_unref);
}

/*
 * A failure whose rank is seen working well after it (an error file of an
 * earlier attempt beside this hang's dumps): not a cause.  The first one
 * and how many, for the note.
 */
struct outlived {
	const struct hd_signal *first;
	struct hd_time last; /* first's rank's later work */
	guint n;
};

static bool crash_outlived(struct hd_index *ix, const struct hd_signal *sig,
			   struct outlived *o)
{
	struct hd_time last;

	if (!hd_sig_outlived(ix, sig, sig->rank, &last))
		return false;
	if (o) {
		if (!o->first) {
			o->first = sig;
			o->last = last;
		}
		o->n++;
	}
	return true;
}

/*
 * A worker's exit the launcher reports by its local rank alone
 * ("failed (exitcode: -9) local_rank: 5 (pid: 2630)"), its global rank
 * not in the data: a worker died, though which rank it was is not shown.
 * It is a candidate only when no failure of a known rank is.
 */
static bool local_exit(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_PROCESS_EXIT && sig->rank < 0 &&
	       sig->local_rank >= 0;
}

/*
 * Where each process of a log first logged a network error that can start
 * trouble: a process writes its lines in order, so a failure it logged
 * after one came after its network had failed (a CUDA error in the
 * teardown that followed, NCCL's test aborting), and is not the cause.
 * Only signals of one log, with a host and a pid, are compared.
 */
struct net_key {
	uint32_t input;
	int32_t pid;
	const char *host; /* interned */
};

static guint net_key_hash(gconstpointer p)
{
	const struct net_key *k = p;

	return (guint)k->input * 31u + (guint)k->pid * 131u +
	       g_direct_hash(k->host);
}

static gboolean net_key_equal(gconstpointer a, gconstpointer b)
{
	const struct net_key *x = a, *y = b;

	return x->input == y->input && x->pid == y->pid && x->host == y->host;
}

static bool net_keyed(const struct hd_store *s, const struct hd_signal *sig,
		      struct net_key *k)
{
	if (!hd_sig_from_log(s, sig) || sig->prov.kind != HD_PROV_LINE ||
	    sig->pid <= 0 || !sig->host)
		return false;
	*k = (struct net_key){ sig->prov.input, sig->pid, sig->host };
	return true;
}

/* (input, host, pid) -> its first network error.  (transfer full) */
static GHashTable *first_net_errors(const struct hd_store *s)
{
	GHashTable *t = g_hash_table_new_full(net_key_hash, net_key_equal,
					      g_free, NULL);

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		const struct hd_signal *had;
		struct net_key k;

		if (!hd_sig_net_cause(sig) || !net_keyed(s, sig, &k))
			continue;
		had = g_hash_table_lookup(t, &k);
		if (!had || sig->prov.at < had->prov.at)
			g_hash_table_insert(t, g_memdup(&k, sizeof(k)),
					    hd_unconst(sig));
	}
	return t;
}

/*
 * A task's exit srun reports by its task id alone ("srun: error: gpu-b17:
 * task 3: Segmentation fault"), the input not showing srun's task ids are
 * ranks: with one torchrun a node the task is the node's index.  As weak
 * as an exit known by its local rank.
 */
static bool srun_exit(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_PROCESS_EXIT && sig->rank < 0 &&
	       sig->task >= 0;
}

/*
 * A node Slurm lost ("srun: error: Node failure on HOST"): its tasks
 * ended, which ranks they were the line does not say.  As weak as an
 * exit srun reports by its task.
 */
static bool node_failure(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_NODE_FAILURE && sig->rank < 0;
}

/* The short name of a host: up to its first '.'. */
static size_t host_short_len(const char *h)
{
	const char *dot = strchr(h, '.');

	return dot ? (size_t)(dot - h) : strlen(h);
}

/*
 * The ranks the data places on host (a rank's own host, from its NCCL
 * lines or a launcher's), by the host's short name, ascending, into out.
 */
static void ranks_on_host(const struct hd_store *s, const char *host,
			  GArray *out)
{
	GHashTableIter it;
	gpointer v;
	size_t n;

	if (!host)
		return;
	n = host_short_len(host);
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		const struct hd_rank *r = v;

		if (r->host && host_short_len(r->host) == n &&
		    strncmp(r->host, host, n) == 0)
			g_array_append_val(out, r->rank);
	}
	g_array_sort(out, hd_compare_int);
}

/*
 * A process MPICH's launcher reports by pid and host alone ("BAD
 * TERMINATION ... PID 9665 RUNNING AT host, EXIT CODE: 9"): which rank
 * it ran is not shown.  As weak as an exit srun reports by its task.
 */
static bool hydra_exit(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_PROCESS_EXIT && sig->rank < 0 &&
	       sig->pid > 0 && sig->text &&
	       g_str_has_prefix(sig->text, "mpiexec (Hydra): ");
}

/* An exit that names no global rank but one process or node of the job. */
static bool weak_exit(const struct hd_signal *sig)
{
	return local_exit(sig) || srun_exit(sig) || node_failure(sig) ||
	       hydra_exit(sig);
}

/* Whether sig is an exit or a node's loss srun reported. */
static bool srun_line(const struct hd_signal *sig)
{
	return (sig->type == HD_SIGT_PROCESS_EXIT ||
		sig->type == HD_SIGT_NODE_FAILURE) &&
	       sig->text && strstr(sig->text, "srun: error: ");
}

/*
 * The first exit srun reported in each input: input -> signal.  srun
 * prints the exits in the order it receives them, so a later line of the
 * same input is of a task that failed after it (killed by srun, or in
 * the job's teardown), never the first failure, whether the first one is
 * a cause or a consequence.  (transfer full)
 */
static GHashTable *srun_firsts(const struct hd_store *s)
{
	GHashTable *t = g_hash_table_new(g_direct_hash, g_direct_equal);

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		gpointer k = GUINT_TO_POINTER(sig->prov.input);

		if (srun_line(sig) && !g_hash_table_contains(t, k))
			g_hash_table_insert(t, k, hd_unconst(sig));
	}
	return t;
}

/* The network error of sig's own process before it, or NULL. */
static const struct hd_signal *own_net_error_before(const struct hd_store *s,
						    GHashTable *nets,
						    const struct hd_signal *sig)
{
	const struct hd_signal *n;
	struct net_key k;

	if (sig->cat == HD_SIG_NETWORK || !net_keyed(s, sig, &k))
		return NULL;
	n = g_hash_table_lookup(nets, &k);
	return n && n->prov.at < sig->prov.at ? n : NULL;
}

/* The failures set aside as after their own network error, for a note. */
struct after_net {
	const struct hd_signal *first; /* the first such failure */
	const struct hd_signal *net; /* its process's network error */
	guint n;
};

/* Whether sig is an exit srun reported after another in its input. */
static bool srun_later(GHashTable *firsts, const struct hd_signal *sig)
{
	return srun_line(sig) &&
	       g_hash_table_lookup(firsts, GUINT_TO_POINTER(sig->prov.input)) !=
		       sig;
}

/*
 * Chooses which rank failed first among the failures that start trouble
 * (is_crash_cause()) and that their rank did not outlive, by time where
 * the clocks compare.  False when there is none; else fills *d
 * (crash_decision_clear() it).
 */
static bool crash_decide(struct hd_index *ix, GHashTable *timed_out,
			 GHashTable *alive, GHashTable *sruns,
			 struct crash_decision *d, struct outlived *o,
			 struct after_net *an)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first;
	struct hd_sig_cands c, local;
	guint timeouts = 0, closed_naming = 0;
	bool tie;
	GPtrArray *firsts;

	g_autoptr(GHashTable) nets = first_net_errors(s);
	const struct hd_signal *net;

	hd_sig_cands_init(&c);
	hd_sig_cands_init(&local);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT)
			timeouts++;
		if (!is_crash_cause(ix, timed_out, sig) ||
		    srun_later(sruns, sig))
			continue;
		/* A failure in communicator setup is check_init's. */
		if (hd_sig_from_log(s, sig) &&
		    sig->type != HD_SIGT_PROCESS_EXIT &&
		    sig->type != HD_SIGT_FATAL_SIGNAL &&
		    hd_sig_failed_in_init(s, i))
			continue;
		/*
		 * Without a rank only NCCL's own failures (CUDA, its proxy)
		 * say enough; an exit or exception could be anyone's.
		 */
		if (sig->rank < 0 && sig->type != HD_SIGT_CUDA_ERROR &&
		    sig->type != HD_SIGT_OOM &&
		    sig->type != HD_SIGT_PROXY_DIED &&
		    sig->type != HD_SIGT_FATAL_SIGNAL && !weak_exit(sig) &&
		    !nccl_weak(sig))
			continue;
		if (crash_outlived(ix, sig, o))
			continue;
		if ((net = own_net_error_before(s, nets, sig))) {
			if (!an->n++) {
				an->first = sig;
				an->net = net;
			}
			continue;
		}
		/* after the hang: hd_check_late_crashes() says so */
		if (crash_after_hang(s, alive, sig))
			continue;
		/* the weakest: only where nothing else failed */
		hd_sig_cands_add(weak_exit(sig) || nccl_weak(sig) ? &local : &c,
				 sig);
	}
	if (c.sigs->len == 0) {
		struct hd_sig_cands t = c;

		c = local;
		local = t;
	}
	hd_sig_cands_clear(&local);
	first = hd_sig_cands_first(s, &c, &firsts, &tie);
	if (!first) {
		hd_sig_cands_clear(&c);
		return false;
	}
	/* Peers that saw a connection closed by the crashed rank's host. */
	if (first->host) {
		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *sig = hd_sig_at(s, i);
			g_autofree char *h = NULL;

			if (sig->type != HD_SIGT_PEER_CLOSED || !sig->peer)
				continue;
			h = hd_sig_peer_host(sig->peer);
			if (strcmp(h, first->host) == 0)
				closed_naming++;
		}
	}
	g_array_sort(c.ranks, hd_compare_int);
	*d = (struct crash_decision){
		.first = first,
		.firsts = firsts,
		.timeouts = timeouts,
		.closed_naming = closed_naming,
	};
	if (tie) {
		d->shape = CRASH_TIE;
		d->conf = HD_CONF_LOW;
		d->culprits = hd_sig_ranks(firsts, &d->rankless);
	} else if (c.ranks->len + c.rankless == 1 || !c.untimed) {
		d->shape = CRASH_FIRST;
		d->conf = first->rank < 0	      ? HD_CONF_LOW
			  : timeouts || closed_naming ? HD_CONF_HIGH
						      : HD_CONF_MEDIUM;
		d->culprits = g_array_new(FALSE, FALSE, sizeof(int));
		if (first->rank >= 0)
			g_array_append_val(d->culprits, first->rank);
		else if (node_failure(first))
			ranks_on_host(s, first->host, d->culprits);
	} else {
		d->shape = CRASH_UNORDERED;
		d->conf = HD_CONF_LOW;
		d->rankless = c.rankless > 0;
		d->culprits = g_steal_pointer(&c.ranks);
	}
	hd_sig_cands_clear(&c);
	return true;
}

/*
 * What srun said of a task's exit: "killed by SIGSEGV, core dumped",
 * "exit code 1", "Out Of Memory: killed by SIGKILL".  (transfer full)
 */
static char *srun_what(const struct hd_signal *sig)
{
	int32_t code = hd_signal_exit_code(sig);
	const char *text = sig->text ? sig->text : "";
	g_autofree char *name = NULL;

	if (code > 0)
		return g_strdup_printf("exit code %d", code);
	if (code == 0 || code == INT32_MIN)
		return g_strdup("process exited");
	name = strcmp(signal_name(-code), "signal") == 0
		       ? g_strdup_printf("signal %d", -code)
		       : g_strdup(signal_name(-code));
	return g_strdup_printf(
		"%skilled by %s%s",
		strstr(text, "Out Of Memory") ? "Out Of Memory: " : "", name,
		strstr(text, "(core dumped)") ? ", core dumped" : "");
}

/*
 * A CUDA error that names a fault of the GPU itself, not of the code
 * that ran on it: an uncorrectable ECC error (cudaErrorECCUncorrectable,
 * 214).  The rank's process stopped because its GPU's memory failed.
 */
static bool cuda_ecc(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_CUDA_ERROR &&
	       (hd_signal_cuda_code(sig) == 214 ||
		(sig->text && strstr(sig->text, "uncorrectable ECC error")));
}

/* "CUDA error", "fatal signal 7 (SIGBUS) ...".  (transfer full) */
static char *crash_what(const struct hd_store *s, const struct hd_signal *sig)
{
	switch (sig->type) {
	case HD_SIGT_OOM:
		return g_strdup("CUDA out of memory");
	case HD_SIGT_CUDA_ERROR:
		return g_strdup(
			cuda_ecc(sig) ? "CUDA error: uncorrectable ECC error, "
					"a fault of its GPU's memory"
				      : "CUDA error");
	case HD_SIGT_CUDA_DRIVER:
		return g_strdup("its GPU or driver lost mid-run: a CUDA "
				"driver error after its collectives ran");
	case HD_SIGT_PROCESS_EXIT:
		return sig->task >= 0 || hydra_exit(sig)
			       ? srun_what(sig)
			       : g_strdup("process exited");
	case HD_SIGT_PROXY_DIED:
		return g_strdup("its NCCL proxy thread died");
	case HD_SIGT_NODE_FAILURE:
		return g_strdup("Slurm: node failure; its tasks ended without "
				"an exit of their own");
	case HD_SIGT_NCCL_ERROR:
		return g_strdup("NCCL error: unhandled cuda error");
	case HD_SIGT_FATAL_SIGNAL:
		return fatal_what(s, sig);
	default:
		return g_strdup("exception");
	}
}

/* The summary of decision d.  (transfer full) */
static char *crash_summary(const struct hd_store *s,
			   const struct crash_decision *d)
{
	const struct hd_signal *first = d->first;
	g_autofree char *ct = hd_ranks_text(d->culprits, 8);
	g_autofree char *who = NULL;
	g_autofree char *what = NULL;
	g_autofree char *ranks_text = NULL;
	const char *tail = "";

	switch (d->shape) {
	case CRASH_TIE:
		return g_strdup_printf(
			"ranks %s%s failed, and which failed first cannot be told: %s",
			d->culprits->len ? ct : "?",
			d->rankless ? " and processes of unknown rank" : "",
			hd_sig_tie_reason(s, d->firsts));
	case CRASH_UNORDERED:
		return g_strdup_printf(
			"ranks %s%s failed, and without timestamps which failed first cannot be told",
			ct,
			d->rankless ? " and processes of unknown rank" : "");
	case CRASH_FIRST:
	default:
		break;
	}
	if (first->rank >= 0)
		who = g_strdup_printf("rank %d", first->rank);
	else if (srun_exit(first)) {
		who = g_strdup_printf(
			"srun task %d on %s%s", first->task,
			first->host ? "host " : "a node the data does not name",
			first->host ? first->host : "");
		tail = " (its global rank is not in the data)";
	} else if (node_failure(first)) {
		who = g_strdup_printf("host %s",
				      first->host ? first->host : "?");
		if (d->culprits->len)
			ranks_text =
				g_strdup_printf(" (ranks %s ran there)", ct);
		tail = ranks_text
			       ? ranks_text
			       : " (which ranks ran there is not in the data)";
	} else if (local_exit(first)) {
		g_autofree char *pid =
			first->pid > 0
				? g_strdup_printf(" (pid %d)", first->pid)
				: g_strdup("");

		who = g_strdup_printf(
			"the worker of local rank %d%s of %s%s (its global rank is not in the data)",
			first->local_rank, pid,
			first->host ? "host " : "a node the data does not name",
			first->host ? first->host : "");
	} else
		who = hd_sig_who(first);
	what = crash_what(s, first);
	return g_strdup_printf(
		"%s failed first (%s)%s%s", who, what, tail,
		d->timeouts ? "; the other ranks then timed out waiting for it"
			    : "");
}

/*
 * A failure of no rank whose pid is several ranks' (containers number
 * their processes alike): say which, and that the pid cannot choose.
 */
static void pid_evidence(const struct hd_store *s, struct hd_verdict *v,
			 const struct hd_signal *sig)
{
	g_autofree char *hosts = NULL;
	g_autofree char *who = NULL;

	if (sig->rank >= 0)
		return;
	who = hd_sig_pid_ranks(s, sig->pid, sig->host, &hosts);
	if (!who)
		return;
	hd_verdict_add_evidence(
		v, -1, NULL,
		"pid %d is %s%s%s%s in the job's logs; %s, so which of them failed is not shown",
		sig->pid, who, hosts ? " (on " : "", hosts ? hosts : "",
		hosts ? ")" : "",
		sig->host ? "they ran on the same host"
			  : "the failure's output names no host");
}

/* The verdict of decision d, with the failures cited.  (transfer full) */
static struct hd_verdict *crash_build(struct hd_index *ix,
				      GHashTable *timed_out, GHashTable *alive,
				      GHashTable *sruns,
				      const struct crash_decision *d)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = d->first;
	g_autofree char *summary = crash_summary(s, d);
	struct hd_verdict *v =
		hd_verdict_new(HD_V_RANK_CRASHED, d->conf, "%s", summary);

	for (guint i = 0; i < d->culprits->len; i++)
		hd_verdict_add_culprit(v, g_array_index(d->culprits, int, i));
	v->score = HD_SCORE_CRASH;
	/* the process stopped because its GPU failed: the GPU's verdict,
	   with a hardware fault's next steps (drain, reset) */
	if (d->shape == CRASH_FIRST && cuda_ecc(first)) {
		v->kind = HD_V_GPU_FAULT;
		v->score = HD_SCORE_GPU;
	}
	if (d->shape == CRASH_TIE) {
		for (guint i = 0; i < d->firsts->len &&
				  v->evidence->len < HD_SIG_MAX_EVIDENCE;
		     i++)
			hd_sig_cite(s, v, g_ptr_array_index(d->firsts, i));
	} else {
		hd_sig_cite(s, v, first);
		fatal_evidence(s, v, first);
		pid_evidence(s, v, first);
	}
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < HD_SIG_MAX_EVIDENCE;
	     i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->rank < 0 || !is_crash_cause(ix, timed_out, sig) ||
		    srun_later(sruns, sig) || crash_outlived(ix, sig, NULL) ||
		    crash_after_hang(s, alive, sig))
			continue;
		if (d->shape == CRASH_TIE
			    ? !g_ptr_array_find(d->firsts, sig, NULL)
			    : sig != first)
			hd_sig_cite(s, v, sig);
	}
	if (d->timeouts)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u watchdog timeout%s on other ranks follow%s",
			d->timeouts, d->timeouts == 1 ? "" : "s",
			d->timeouts == 1 ? "s" : "");
	if (d->shape == CRASH_TIE) {
		hd_verdict_add_ruled_out(
			v,
			"nothing: the first failure is among these; times on one clock would tell which");
		return v;
	}
	if (d->closed_naming)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u peers saw their connection closed by %s",
			d->closed_naming, first->host);
	hd_verdict_add_ruled_out(
		v,
		"SIGABRT from a rank's own watchdog and SIGTERM from the agent: consequences, not causes");
	hd_verdict_add_ruled_out(
		v,
		"torchrun's \"Root Cause\": it only names the earliest exit, to the second");
	return v;
}

/* Says which failures were set aside as outlived by their ranks. */
static void note_outlived(const struct hd_store *s, struct hd_analysis *a,
			  const struct outlived *o)
{
	g_autofree char *src = NULL;
	g_autofree char *at = NULL;
	g_autofree char *later = NULL;

	if (!o->n)
		return;
	src = hd_prov_format(s, &o->first->prov);
	at = hd_time_format(o->first->time, 0);
	later = hd_time_format(o->last, 0);
	g_ptr_array_add(
		a->notes,
		g_strdup_printf(
			"rank %d's failure at %s (%s) is not a cause: the rank was seen working at %s, after it (a failure of an earlier process life, such as a previous attempt's error file); %u such failure%s set aside",
			o->first->rank, at, src, later, o->n,
			o->n == 1 ? "" : "s"));
}

/* Says which failures were set aside as after their own network error. */
static void note_after_net(const struct hd_store *s, struct hd_analysis *a,
			   const struct after_net *an)
{
	g_autofree char *src = NULL;
	g_autofree char *net = NULL;
	g_autofree char *who = NULL;

	if (!an->n)
		return;
	src = hd_prov_format(s, &an->first->prov);
	net = hd_prov_format(s, &an->net->prov);
	who = hd_sig_who(an->first);
	g_ptr_array_add(
		a->notes,
		g_strdup_printf(
			"the failure of %s at %s is not a cause: its process logged a network error before it, at %s, and writes its lines in order (what the network's failure left); %u such failure%s set aside",
			who, src, net, an->n, an->n == 1 ? "" : "s"));
}

void hd_sig_check_crashes(struct hd_index *ix, struct hd_analysis *a)
{
	g_autoptr(GHashTable) timed_out = timed_out_ranks(ix->store);
	g_autoptr(GHashTable) alive = alive_after_hang(ix->store);
	g_autoptr(GHashTable) sruns = srun_firsts(ix->store);
	struct crash_decision d;
	struct outlived o = { 0 };
	struct after_net an = { 0 };
	bool found = crash_decide(ix, timed_out, alive, sruns, &d, &o, &an);

	note_outlived(ix->store, a, &o);
	note_after_net(ix->store, a, &an);
	if (!found)
		return;
	g_ptr_array_add(a->verdicts,
			crash_build(ix, timed_out, alive, sruns, &d));
	crash_decision_clear(&d);
}

/* A failure after the hang, and the verdicts that took it. */
struct late_crash {
	const struct hd_store *s;
	const struct hd_signal *crash;
	guint index; /* crash's in store->signals */
	const struct hd_signal *alive; /* the line that places it after */
	bool taken;
};

/* "at 2026-11-21 03:22:45.123 (local, zone unknown)", or "".  (full) */
static char *at_time(struct hd_time t)
{
	g_autofree char *f = NULL;

	if (!hd_time_known(t))
		return g_strdup("");
	f = hd_time_format(t, 3);
	return g_strdup_printf(" at %s", f);
}

/* The evidence that places c->crash after the hang, on v. */
static void late_evidence(struct late_crash *c, struct hd_verdict *v)
{
	const struct hd_signal *sig = c->crash, *l = c->alive;
	g_autofree char *src = hd_prov_format(c->s, &l->prov);
	g_autofree char *when = at_time(l->time);

	hd_sig_cite_upto(c->s, v, sig, v->evidence->len + 1);
	fatal_evidence(c->s, v, sig);
	hd_verdict_add_evidence(
		v, sig->rank, src,
		"rank %d was alive after the hang was detected: its process printed %s%s; one that died prints nothing more, so this failure%s came after, and did not cause the hang",
		sig->rank,
		l->type == HD_SIGT_HEARTBEAT ? "its heartbeat monitor's line"
		: l->type == HD_SIGT_DUMP    ? "a flight-recorder dump line"
					     : "its watchdog's status line",
		when,
		hd_time_known(sig->time) ? ""
					 : ", which has no time of its own,");
}

static bool blames_absence(const struct hd_verdict *v)
{
	return v->kind == HD_V_MISSING_RANK;
}

/*
 * A verdict that blames the crashed rank's absence states the chain: the
 * rank never entered the op, and crashed after the hang.  The headline
 * says so when the rank is its only culprit (the summary is no part of
 * missing_rank's fingerprint).
 */
static void late_annotate(struct hd_verdict *v, bool first, void *data)
{
	struct late_crash *c = data;
	g_autofree char *what = NULL;
	char *old;

	if (!hd_verdict_has_culprit(v, c->crash->rank))
		return;
	c->taken = true;
	v->late_crash = c->index;
	/* every copy says it (the engine merges them later); evidence once */
	if (first)
		late_evidence(c, v);
	if (v->culprits->len != 1 || !v->summary)
		return;
	what = crash_what(c->s, c->crash);
	old = v->summary;
	v->summary = g_strdup_printf(
		"%s; it then failed (%s), after the hang was detected", old,
		what);
	g_free(old);
}

/*
 * A crash no verdict that blames an absence took: it stands on its own,
 * low, below the verdicts that name a cause (the hang's cause is not
 * shown).
 */
static void late_verdict(struct late_crash *c, struct hd_analysis *a)
{
	g_autofree char *what = crash_what(c->s, c->crash);
	struct hd_verdict *v = hd_verdict_new(
		HD_V_RANK_CRASHED, HD_CONF_LOW,
		"rank %d failed (%s) after the hang was detected: the failure did not cause the hang, and what did is not shown",
		c->crash->rank, what);

	hd_verdict_add_culprit(v, c->crash->rank);
	v->score = HD_SCORE_CRASH_AFTER;
	v->late_crash = c->index;
	late_evidence(c, v);
	hd_verdict_add_ruled_out(
		v,
		"this failure as the hang's cause: the rank's process was still running after the hang was detected");
	g_ptr_array_add(a->verdicts, v);
}

void hd_check_late_crashes(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) alive = alive_after_hang(s);
	g_autoptr(GHashTable) timed_out = NULL;
	g_autoptr(GHashTable) done = NULL;

	if (!g_hash_table_size(alive))
		return;
	timed_out = timed_out_ranks(s);
	done = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct late_crash c = { s, sig, i, NULL, false };

		if (!is_crash_cause(ix, timed_out, sig) ||
		    crash_outlived(ix, sig, NULL) ||
		    !(c.alive = crash_after_hang(s, alive, sig)) ||
		    !g_hash_table_add(done, GINT_TO_POINTER(sig->rank)))
			continue;
		hd_live_each_blame(a, blames_absence, late_annotate, &c);
		if (!c.taken)
			late_verdict(&c, a);
	}
}
