/*
 * gdb backtraces as corroboration (docs/verdicts.md, "gdb backtraces",
 * issue 21): the store has joined each backtrace's threads to the one
 * rank whose process had its pid (hd_store_resolve()).  Here the main
 * thread (the one whose LWP is the pid) says where that rank is now:
 *
 *  - inside an NCCL collective or c10d's call of one (ncclAllReduce,
 *    ncclGroupEnd, ProcessGroupNCCL::allreduce ...): a verdict that
 *    blames the rank for never entering an op is refuted (confidence
 *    low), as a py-spy dump would;
 *  - inside NCCL's setup (ncclCommInitRank, ncclCommSplit, ncclShmOpen,
 *    bootstrap ...): it is elsewhere, and NCCL itself is where it waits;
 *  - waiting on the GPU (a cuda* or cu* call): neither;
 *  - elsewhere: the blame is corroborated.
 *
 * Threads in NCCL's proxy (ncclProxyProgress, ncclProxyService) are
 * named: their stacks show NCCL's own progress on that rank.  A crash
 * in a core file is a fatal_signal like any other and the signal check
 * decides it (rank_crashed); this step only adds, as its evidence,
 * where the crashed rank's other threads were.  Reads the store and the verdicts already made; never the files.
 */
#include "config.h"

#include <string.h>

#include "hd-checks.h"
#include "hd-sig-util.h"
#include "hd-banned.h"

/* Notes about backtraces that join no rank, before the rest are dropped. */
#define GDB_MAX_NOTES 8

enum where {
	WHERE_OTHER = 0,
	WHERE_CUDA, /* a CUDA runtime or driver call */
	WHERE_NCCL_SETUP, /* communicator setup or teardown */
	WHERE_NCCL_COLL, /* a collective, p2p or group call */
};

/* One rank's backtrace: its main thread and its proxy threads. */
struct gdb_rank {
	int rank;
	guint main; /* signal index of the main thread */
	guint threads;
	guint proxies; /* threads with an ncclProxy* frame */
	const char *proxy_fn; /* the first proxy thread's NCCL frame */
	enum where where;
	int32_t frame; /* the telling frame of the main thread, -1 none */
};

static bool name_starts(const struct hd_frame *f, const char *prefix)
{
	return f->name && g_str_has_prefix(f->name, prefix);
}

static bool name_has(const struct hd_frame *f, const char *needle)
{
	return f->name && strstr(f->name, needle);
}

static enum where frame_where(const struct hd_frame *f)
{
	static const char *const coll[] = {
		"ncclAllReduce", "ncclAllGather", "ncclReduceScatter",
		"ncclBroadcast", "ncclReduce",	  "ncclSend",
		"ncclRecv",	 "ncclGroupEnd",  "ncclEnqueueCheck",
		"ncclAlltoAll",	 "ncclBcast",	  "ncclGather",
		"ncclScatter",
	};
	static const char *const c10d[] = {
		"ProcessGroupNCCL::allreduce",
		"ProcessGroupNCCL::allgather",
		"ProcessGroupNCCL::reduce_scatter",
		"ProcessGroupNCCL::_reduce_scatter_base",
		"ProcessGroupNCCL::_allgather_base",
		"ProcessGroupNCCL::broadcast",
		"ProcessGroupNCCL::barrier",
		"ProcessGroupNCCL::alltoall",
		"ProcessGroupNCCL::send",
		"ProcessGroupNCCL::recv",
		"ProcessGroupNCCL::collective",
		/* waiting for a collective's work to finish */
		"ProcessGroupNCCL::WorkNCCL::",
	};
	static const char *const setup[] = {
		"ncclCommInitRank",   "ncclCommInitAll",
		"ncclCommSplit",      "ncclShmOpen",
		"bootstrap",	      "ncclTransportP2pSetup",
		"initTransportsRank", "ncclCommDestroy",
		"ncclCommAbort",      "ncclCommFinalize",
		"ncclGetUniqueId",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(coll); i++)
		if (name_starts(f, coll[i]))
			return WHERE_NCCL_COLL;
	for (size_t i = 0; i < G_N_ELEMENTS(c10d); i++)
		if (name_has(f, c10d[i]))
			return WHERE_NCCL_COLL;
	for (size_t i = 0; i < G_N_ELEMENTS(setup); i++)
		if (name_starts(f, setup[i]))
			return WHERE_NCCL_SETUP;
	if (name_starts(f, "cuda") ||
	    (f->name && f->name[0] == 'c' && f->name[1] == 'u' &&
	     g_ascii_isupper(f->name[2])) ||
	    (f->file &&
	     (strstr(f->file, "libcuda.so") || strstr(f->file, "libcudart"))))
		return WHERE_CUDA;
	return WHERE_OTHER;
}

/* Not where the rank is: the C library, the kernel's waits, unknowns. */
static bool frame_is_plumbing(const struct hd_frame *f)
{
	static const char *const names[] = {
		"__",		"_dl_",	  "pthread_", "futex",	   "poll",
		"epoll",	"select", "syscall",  "nanosleep", "clock_",
		"sched_yield",	"read",	  "recv",     "write",	   "send",
		"start_thread", "clone",  "??",	      "sem_",	   "wait",
		"std::",	"_Py",	  "Py",	      "take_gil",
	};

	if (!f->name)
		return true;
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		if (g_str_has_prefix(f->name, names[i]))
			return true;
	return f->file &&
	       (strstr(f->file, "libc.so") || strstr(f->file, "libpthread") ||
		strstr(f->file, "libpython"));
}

/* Fills where and frame from a main thread's frames. */
static void classify(struct gdb_rank *g, const struct hd_frame *f, size_t n)
{
	g->where = WHERE_OTHER;
	g->frame = -1;
	for (size_t k = 0; k < n; k++) {
		enum where w = frame_where(&f[k]);

		/* the innermost NCCL frame, else CUDA, tells the most; a
		   named frame more than one gdb could not name */
		if (w > g->where ||
		    (w == g->where && w != WHERE_OTHER && g->frame >= 0 &&
		     f[g->frame].name && strcmp(f[g->frame].name, "??") == 0 &&
		     f[k].name && strcmp(f[k].name, "??") != 0)) {
			g->where = w;
			g->frame = (int32_t)k;
		}
	}
	for (size_t k = 0; g->frame < 0 && k < n; k++)
		if (!frame_is_plumbing(&f[k]))
			g->frame = (int32_t)k;
}

/* "ncclCommInitRank (init.cc:1620)".  (transfer full) */
static char *frame_text(const struct hd_store *s, const struct gdb_rank *g)
{
	size_t n = 0;
	const struct hd_frame *f =
		hd_store_stack(s, hd_sig_at(s, g->main)->stack, &n);

	if (!n)
		return g_strdup("no frames");
	f = g->frame >= 0 && (size_t)g->frame < n ? &f[g->frame] : &f[0];
	if (f->file && f->line > 0)
		return g_strdup_printf("%s (%s:%d)", f->name ? f->name : "??",
				       f->file, f->line);
	if (f->file)
		return g_strdup_printf("%s (%s)", f->name ? f->name : "??",
				       f->file);
	return g_strdup(f->name ? f->name : "??");
}

static const char *where_text(enum where w)
{
	switch (w) {
	case WHERE_NCCL_COLL:
		return "inside an NCCL collective";
	case WHERE_NCCL_SETUP:
		return "inside NCCL's communicator setup, not a collective";
	case WHERE_CUDA:
		return "waiting on the GPU (a CUDA call)";
	case WHERE_OTHER:
		break;
	}
	return "outside NCCL and CUDA";
}

/* The first ncclProxy* frame of a stack, or NULL. */
static const char *proxy_frame(const struct hd_frame *f, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (name_starts(&f[k], "ncclProxy"))
			return f[k].name;
	return NULL;
}

static int compare_rank(gconstpointer a, gconstpointer b)
{
	const struct gdb_rank *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* One struct gdb_rank per rank with joined gdb threads, by rank. */
static GArray *join_threads(const struct hd_store *s, struct hd_analysis *a)
{
	GArray *out = g_array_new(FALSE, TRUE, sizeof(struct gdb_rank));
	g_autoptr(GHashTable) at = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) unjoined = g_hash_table_new(NULL, NULL);
	guint notes = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		const struct hd_frame *f;
		struct gdb_rank *g;
		gpointer slot;
		size_t n = 0;
		const char *px;

		if (sig->type != HD_SIGT_GDB_THREAD)
			continue;
		if (sig->rank < 0) {
			/* once per input: its pid joins no rank */
			if (g_hash_table_add(
				    unjoined,
				    GUINT_TO_POINTER(sig->prov.input + 1)) &&
			    notes++ < GDB_MAX_NOTES)
				g_ptr_array_add(
					a->notes,
					hd_sig_unjoined_note(s, "gdb backtrace",
							     sig));
			continue;
		}
		if (!g_hash_table_lookup_extended(
			    at, GINT_TO_POINTER(sig->rank), NULL, &slot)) {
			struct gdb_rank z = { .rank = sig->rank,
					      .main = i,
					      .frame = -1 };

			slot = GUINT_TO_POINTER(out->len);
			g_hash_table_insert(at, GINT_TO_POINTER(sig->rank),
					    slot);
			g_array_append_val(out, z);
		}
		g = &g_array_index(out, struct gdb_rank,
				   GPOINTER_TO_UINT(slot));
		g->threads++;
		/* the main thread's LWP is the process's pid */
		if (hd_signal_lwp(sig) > 0 && hd_signal_lwp(sig) == sig->pid &&
		    hd_signal_lwp(hd_sig_at(s, g->main)) != sig->pid)
			g->main = i;
		f = hd_store_stack(s, sig->stack, &n);
		px = proxy_frame(f, n);
		if (px) {
			if (!g->proxies)
				g->proxy_fn = px;
			g->proxies++;
		}
	}
	for (guint i = 0; i < out->len; i++) {
		struct gdb_rank *g = &g_array_index(out, struct gdb_rank, i);
		size_t n = 0;
		const struct hd_frame *f =
			hd_store_stack(s, hd_sig_at(s, g->main)->stack, &n);

		classify(g, f, n);
	}
	g_array_sort(out, compare_rank);
	return out;
}

static void annotate(const struct hd_store *s, const GArray *ranks,
		     struct hd_verdict *v, bool first)
{
	/* a crash is decided by its signal: where the others are is context */
	bool absence = v->kind == HD_V_MISSING_RANK;
	guint in = 0, out = 0;
	const struct gdb_rank *only = NULL;

	for (guint i = 0; i < ranks->len; i++) {
		const struct gdb_rank *g =
			&g_array_index(ranks, struct gdb_rank, i);
		const struct hd_signal *m = hd_sig_at(s, g->main);
		g_autofree char *src = NULL;
		g_autofree char *where = NULL;

		if (!hd_verdict_has_culprit(v, g->rank))
			continue;
		if (g->where == WHERE_NCCL_COLL)
			in++;
		else if (g->where != WHERE_CUDA)
			out++;
		if (v->culprits->len == 1)
			only = g;
		if (!first)
			continue;
		src = hd_prov_format(s, &m->prov);
		where = frame_text(s, g);
		hd_verdict_add_evidence(
			v, g->rank, src,
			"gdb: rank %d (pid %d) has its main thread in %s, %s",
			g->rank, m->pid, where, where_text(g->where));
		if (g->proxies)
			hd_verdict_add_evidence(
				v, g->rank, NULL,
				"gdb: %u NCCL proxy thread%s of rank %d, the first in %s",
				g->proxies, g->proxies == 1 ? "" : "s", g->rank,
				g->proxy_fn);
	}
	if (!absence)
		return;
	/*
	 * The headline states the chain in every format (the summary is no
	 * part of missing_rank's fingerprint), as for py-spy; a CUDA wait
	 * neither corroborates nor refutes, and is left to the evidence.
	 */
	if (only && only->where != WHERE_CUDA && v->summary) {
		g_autofree char *where = frame_text(s, only);
		char *old = v->summary;

		v->summary = g_strdup_printf(
			"%s; %sgdb shows its main thread in %s, %s", old,
			only->where == WHERE_NCCL_COLL ? "yet " : "", where,
			where_text(only->where));
		g_free(old);
	}
	hd_live_judge_absence(v, in, out, first, "gdb", "an NCCL collective",
			      "its main thread");
}

struct gdb_ctx {
	const struct hd_store *s;
	const GArray *ranks;
};

static void annotate_one(struct hd_verdict *v, bool first, void *data)
{
	struct gdb_ctx *c = data;

	annotate(c->s, c->ranks, v, first);
}

static bool blames_rank(const struct hd_verdict *v)
{
	return v->kind == HD_V_MISSING_RANK || v->kind == HD_V_RANK_CRASHED ||
	       v->kind == HD_V_GPU_FAULT;
}

void hd_check_gdb(struct hd_index *ix, struct hd_analysis *a)
{
	g_autoptr(GArray) ranks = join_threads(ix->store, a);
	struct gdb_ctx c = { ix->store, ranks };

	if (ranks->len)
		hd_live_each_blame(a, blames_rank, annotate_one, &c);
}
