/*
 * What to do next, decided once for every report: for each verdict, its
 * culprits' own evidence first (hd_verdict_order_evidence()), who its
 * culprits are (host, pid, the call site of their last stack) and the
 * next steps an on-call engineer takes, by the verdict kind's hd_next_step
 * (the hook table below).  A step is a sentence, the command it quotes
 * and the host to run it on; the renderers only lay them out.  Runs last,
 * after the rank table (the culprits' stacks come from it).
 */
#include "config.h"

#include "hd-next.h"

#include <stdarg.h>
#include <string.h>

#include "hd-const.h"
#include "hd-index.h"
#include "hd-sig-util.h"
#include "hd-text.h"
#include "hd-banned.h"

/* Next steps are given for the first verdicts only (the others are rarely
   read, and a step may scan the signals). */
#define NEXT_VERDICTS 16
/* Culprits given a step of their own before "the same for ranks ...". */
#define NEXT_RANKS 2

struct next_ctx {
	const struct hd_analysis *a;
	struct hd_verdict *v;
};

static void add_step(struct next_ctx *c, int rank, const char *host,
		     const char *command, const char *fmt, ...)
	G_GNUC_PRINTF(5, 6);
static void add_step(struct next_ctx *c, int rank, const char *host,
		     const char *command, const char *fmt, ...)
{
	struct hd_next *n = g_new0(struct hd_next, 1);
	va_list ap;

	n->rank = rank;
	n->host = host;
	n->command = g_strdup(command);
	va_start(ap, fmt);
	n->text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_ptr_array_add(c->v->next_steps, n);
}

/* The host a rank ran on, or NULL.  (transfer none) */
static const char *rank_host(const struct hd_analysis *a, int rank)
{
	const struct hd_rank *r = hd_store_find_rank(a->store, rank);

	return r ? r->host : NULL;
}

/* The culprit details of rank in v, or NULL.  (transfer none) */
static const struct hd_culprit *culprit(const struct hd_verdict *v, int rank)
{
	for (guint i = 0; i < v->culprit_info->len; i++) {
		const struct hd_culprit *c =
			&g_array_index(v->culprit_info, struct hd_culprit, i);

		if (c->rank == rank)
			return c;
	}
	return NULL;
}

/* The innermost user frame of a rank's last stack, or NULL. */
static const struct hd_frame *user_frame(const struct hd_analysis *a,
					 GHashTable *rows, int rank)
{
	guint row = GPOINTER_TO_UINT(
		g_hash_table_lookup(rows, GINT_TO_POINTER(rank)));
	const struct hd_rank_progress *p;
	struct hd_culprit c;

	if (!row)
		return NULL;
	p = &g_array_index(a->progress, struct hd_rank_progress, row - 1);
	c.stack = p->stack;
	c.user_frame = p->user_frame;
	return hd_culprit_frame(a->store, &c);
}

/* "train.py:88 in train_step" (transfer full). */
static char *frame_text(const struct hd_frame *f)
{
	return g_strdup_printf("%s:%d in %s", f->file ? f->file : "?", f->line,
			       f->name ? f->name : "?");
}

/* The first signal of rank in category cat, or NULL. */
static const struct hd_signal *rank_signal(const struct hd_analysis *a,
					   int rank, enum hd_signal_cat cat)
{
	const struct hd_store *s = a->store;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->rank == rank && sig->cat == cat)
			return sig;
	}
	return NULL;
}

/* "hca mlx5_1" in a quoted NCCL line: the HCA's name, or NULL. */
static char *hca_name(const char *text)
{
	const char *p = text ? strstr(text, " hca ") : NULL;
	size_t n;

	if (!p)
		return NULL;
	p += 5;
	n = strcspn(p, " ,;)");
	return n ? g_strndup(p, n) : NULL;
}

/* The host of the rank that bootstrapped on addr or is named so. */
static const char *host_of_peer(const struct hd_analysis *a, const char *peer)
{
	g_autofree char *name = NULL;
	GHashTableIter it;
	gpointer value;

	if (!peer)
		return NULL;
	name = g_strndup(peer, strcspn(peer, "<"));
	g_hash_table_iter_init(&it, a->store->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct hd_rank *r = value;

		if (r->host && ((r->addr && strcmp(r->addr, name) == 0) ||
				strcmp(r->host, name) == 0))
			return r->host;
	}
	return NULL;
}

/* "on node-b" or "on the host of rank 5" (transfer full). */
static char *on_host(const struct hd_analysis *a, int rank)
{
	const char *h = rank_host(a, rank);

	return h ? g_strdup_printf("on %s", h)
		 : g_strdup_printf("on the host of rank %d", rank);
}

/* The failure that ended rank's process after the hang, or NULL. */
static const struct hd_signal *late_crash(const struct hd_analysis *a,
					  const struct hd_verdict *v, int rank)
{
	const struct hd_signal *sig;

	if (v->late_crash < 0 ||
	    (guint64)v->late_crash >= a->store->signals->len)
		return NULL;
	sig = &g_array_index(a->store->signals, struct hd_signal,
			     v->late_crash);
	return sig->rank == rank ? sig : NULL;
}

/*
 * A rank stuck or slow: where it is now, and where it was; a rank whose
 * process died after the hang: where it was when it died.
 */
static void next_live_rank(struct next_ctx *c, int rank)
{
	const struct hd_analysis *a = c->a;
	const struct hd_signal *late = late_crash(a, c->v, rank);
	const struct hd_culprit *cu = culprit(c->v, rank);
	const struct hd_frame *f = hd_culprit_frame(a->store, cu);
	const char *host = rank_host(a, rank);
	g_autofree char *on = on_host(a, rank);
	const struct hd_pyspy_rank *ps = hd_analysis_pyspy(a, rank);
	/* nothing says the job hung: where it is now, if it still runs */
	bool maybe = c->v->needs_hang && !a->hang_evidence;
	const char *ifrun = maybe ? "if the job is still running, " : "";
	const char *now = maybe ? "where it is now and whether it is stuck"
				: "where it is stuck now";

	if (late) {
		/* Its process is gone: there is nothing live to look at. */
		g_autofree char *src = hd_prov_format(a->store, &late->prov);

		add_step(c, rank, host, NULL,
			 "rank %d's process is gone: it failed after the hang "
			 "was detected (%s); %s",
			 rank, src,
			 late->stack >= 0
				 ? "the stack of that failure, in the "
				   "evidence, is where it was instead of in "
				   "the op"
				 : "its log up to then says where it was "
				   "instead of in the op");
	} else if (ps) {
		/* A py-spy dump already says where it is now. */
		g_autofree char *where = hd_pyspy_where(a->store, ps);

		add_step(c, rank, host, NULL,
			 "py-spy shows rank %d now in %s, %s", rank, where,
			 ps->in_collective ? "inside a collective"
					   : "outside any collective");
		if (ps->in_loader && !ps->in_collective)
			add_step(c, rank, host, NULL,
				 "it waits for its data loader: check the "
				 "loader's worker processes and the storage "
				 "or queue it reads (a dead worker, a stalled "
				 "mount), then why that rank's input alone "
				 "stopped");
	} else if (cu && cu->pid > 0) {
		g_autofree char *cmd =
			g_strdup_printf("py-spy dump --pid %d", cu->pid);

		add_step(c, rank, host, cmd,
			 "%srank %d ran %s as pid %d: run `%s` there to see "
			 "%s (add --native for C++ frames)",
			 ifrun, rank, on, cu->pid, cmd, now);
	} else if (host) {
		add_step(c, rank, host, "py-spy dump --pid PID",
			 "%srank %d ran %s; its pid is not in the data: find "
			 "it there (ps, nvidia-smi) and run `py-spy dump "
			 "--pid PID`",
			 ifrun, rank, on);
	} else {
		add_step(c, rank, NULL, "py-spy dump --pid PID",
			 "%srank %d's host and pid are not in the data: find "
			 "them (the launcher's or scheduler's rank placement, "
			 "then ps or nvidia-smi there) and run `py-spy dump "
			 "--pid PID`",
			 ifrun, rank);
	}
	if (f) {
		g_autofree char *where = frame_text(f);

		add_step(c, rank, NULL, NULL, "its Python was last seen at %s",
			 where);
	}
}

static void next_steps_data(struct next_ctx *c)
{
	const struct hd_store *s = c->a->store;
	bool kinds[HD_INPUT_KIND_COUNT] = { false };

	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (!in->error && (unsigned)in->kind < HD_INPUT_KIND_COUNT)
			kinds[in->kind] = true;
	}
	if (!kinds[HD_INPUT_FLIGHT_REC])
		add_step(c, -1, NULL,
			 "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 "
			 "TORCH_NCCL_DUMP_ON_TIMEOUT=1",
			 "flight-recorder dumps: run with "
			 "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and "
			 "TORCH_NCCL_DUMP_ON_TIMEOUT=1 (files under "
			 "TORCH_NCCL_DEBUG_INFO_TEMP_FILE)");
	if (!kinds[HD_INPUT_NCCL_LOG])
		add_step(c, -1, NULL,
			 "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL,NET",
			 "NCCL logs: NCCL_DEBUG=INFO "
			 "NCCL_DEBUG_SUBSYS=INIT,COLL,NET with every rank's "
			 "stderr kept");
	if (c->a->ranks_missing->len) {
		g_autofree char *m =
			hd_rank_list_text(c->a->ranks_missing, HD_RANKS_SET);

		add_step(c, -1, NULL, NULL,
			 "the files of the ranks that left none: %s", m);
	}
	add_step(c, -1, NULL, "py-spy dump --pid PID",
		 "while the job still hangs: `py-spy dump --pid PID` on "
		 "every rank's host");
}

static void next_live_ranks(struct next_ctx *c, GHashTable *rows)
{
	const struct hd_verdict *v = c->v;

	(void)rows;
	for (guint i = 0; i < v->culprits->len && i < NEXT_RANKS; i++)
		next_live_rank(c, g_array_index(v->culprits, int, i));
	if (v->culprits->len > NEXT_RANKS) {
		g_autofree char *all =
			hd_rank_list_text(v->culprits, HD_RANKS_SET);

		add_step(c, -1, NULL, NULL, "the same for ranks %s", all);
	}
	if (!v->culprits->len)
		next_steps_data(c);
}

static void next_mismatch(struct next_ctx *c, GHashTable *rows)
{
	const struct hd_analysis *a = c->a;
	const struct hd_verdict *v = c->v;
	int bad = v->culprits->len ? g_array_index(v->culprits, int, 0) : -1;
	const struct hd_frame *fc, *fo = NULL;
	int other = -1;

	if (bad < 0)
		return;
	fc = user_frame(a, rows, bad);
	/* A rank of the majority, as the evidence cites them. */
	for (guint i = 0; i < v->evidence->len && other < 0; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		if (e->rank >= 0 && !hd_verdict_has_culprit(v, e->rank))
			other = e->rank;
	}
	if (other >= 0)
		fo = user_frame(a, rows, other);
	if (fc && fo) {
		g_autofree char *wc = frame_text(fc);
		g_autofree char *wo = frame_text(fo);

		add_step(c, bad, NULL, NULL,
			 "the call sites that disagree: rank %d at %s, rank "
			 "%d at %s",
			 bad, wc, other, wo);
		if (strcmp(wc, wo) == 0)
			add_step(c, -1, NULL, NULL,
				 "the same line on both: compare the "
				 "arguments (sizes, dtype, root) each rank "
				 "passes there");
	} else if (other >= 0) {
		add_step(c, bad, NULL, NULL,
			 "compare the code paths of rank %d and rank %d up "
			 "to this op; the data holds no stack for %s",
			 bad, other, fc ? "the other" : "the culprit");
	}
	add_step(c, -1, NULL, NULL,
		 "look for a rank-dependent branch or shape (data "
		 "loader, uneven last batch, `if rank == ...`)");
}

/*
 * The host-state signal v rests on or cites (hd-kernel.c), or NULL.
 * (transfer none)
 */
static const struct hd_signal *host_event(const struct hd_analysis *a,
					  const struct hd_verdict *v)
{
	if (v->host_event < 0 ||
	    (guint64)v->host_event >= a->store->signals->len)
		return NULL;
	return &g_array_index(a->store->signals, struct hd_signal,
			      v->host_event);
}

/*
 * The step for an HCA port that is down or counted errors (its device is
 * "mlx5_1:1"): the port's own state and counters.  why says what is known
 * of its part in the hang.  False when sig names no port.
 */
static bool port_step(struct next_ctx *c, const struct hd_signal *sig, int rank,
		      const char *host, const char *why)
{
	g_autofree char *hca = NULL;
	g_autofree char *cmd = NULL;
	const char *port;

	if (!sig->device || !strchr(sig->device, ':') ||
	    (sig->type != HD_SIGT_LINK_EVENT &&
	     sig->type != HD_SIGT_IB_COUNTERS))
		return false;
	hca = g_strndup(sig->device, strcspn(sig->device, ":"));
	port = strchr(sig->device, ':') + 1;
	cmd = g_strdup_printf("ibstat %s %s", hca, port);
	add_step(c, rank, host, cmd,
		 "on %s: HCA port %s %s: `%s` (state, physical state, rate) "
		 "and `perfquery -C %s -P %s` (symbol, link-down and "
		 "port-receive error counters), then its cable and switch "
		 "port%s",
		 host ? host : "the host of its ibstat", sig->device,
		 sig->type != HD_SIGT_LINK_EVENT  ? "counted link errors"
		 : hd_signal_link_state(sig) == 3 ? "is disabled"
						  : "is down",
		 cmd, hca, port, why);
	return true;
}

static void next_network(struct next_ctx *c, GHashTable *rows)
{
	const struct hd_analysis *a = c->a;
	const struct hd_verdict *v = c->v;
	int bad = v->culprits->len ? g_array_index(v->culprits, int, 0) : -1;
	const struct hd_signal *sig =
		bad >= 0 ? rank_signal(a, bad, HD_SIG_NETWORK) : NULL;
	const struct hd_evidence *e0 =
		v->evidence->len ? g_ptr_array_index(v->evidence, 0) : NULL;
	g_autofree char *hca = hca_name(e0 ? e0->text : NULL);
	g_autofree char *on =
		bad >= 0 ? on_host(a, bad) : g_strdup("on the failing host");
	const char *host = bad >= 0 ? rank_host(a, bad) : NULL;
	const char *peer_host = sig ? host_of_peer(a, sig->peer) : NULL;
	const struct hd_signal *ev =
		v->host_event_cause ? host_event(a, v) : NULL;
	bool named;

	(void)rows;
	/* issue 21: an NVLink Xid is the GPU's interconnect, not the HCA */
	if (v->xid) {
		add_step(c, bad, host, NULL, "%s: %s", on,
			 hd_xid_next_step(v->xid));
		return;
	}
	/* a port the verdict rests on (ibstat, perfquery, a link event) */
	named = ev &&
		port_step(c, ev, bad, hd_host_event_host(a->store, ev), "");
	if (named) {
		/* the port's own steps said it */
	} else if (hca) {
		g_autofree char *cmd = g_strdup_printf("ibstat %s", hca);

		add_step(c, bad, host, cmd,
			 "%s: `ibstat %s` (port state, rate) and `perfquery "
			 "-C %s` (symbol, link-down and port-receive error "
			 "counters)",
			 on, hca, hca);
	} else {
		add_step(c, bad, host, "ibstat",
			 "%s: `ibstat` and `perfquery` on the HCA NCCL "
			 "uses (NCCL_IB_HCA), or the NIC's counters for "
			 "sockets",
			 on);
	}
	if (sig && sig->peer)
		add_step(c, -1, peer_host, NULL,
			 "the peer %s%s%s%s: the same counters there, and "
			 "the cable or switch port between them",
			 sig->peer, peer_host ? " (" : "",
			 peer_host ? peer_host : "", peer_host ? ")" : "");
	add_step(c, -1, NULL, "dmesg",
		 "`dmesg` on both hosts for link flaps, and the fabric "
		 "manager's logs");
}

/* Whether rank's log holds a CUDA call failed on a driver-class error. */
static bool driver_failed(const struct hd_store *s, int rank)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->rank == rank && hd_sig_driver_call_failed(sig))
			return true;
	}
	return false;
}

/* The node Slurm lost whose line evidence e cites, or NULL. */
static const struct hd_signal *node_failure_cited(const struct hd_store *s,
						  const struct hd_evidence *e)
{
	for (guint i = 0; i < s->signals->len && e->text; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type == HD_SIGT_NODE_FAILURE && sig->host &&
		    sig->text && strcmp(sig->text, e->text) == 0)
			return sig;
	}
	return NULL;
}

static void next_crash(struct next_ctx *c, GHashTable *rows)
{
	const struct hd_analysis *a = c->a;
	const struct hd_verdict *v = c->v;
	int bad = v->culprits->len ? g_array_index(v->culprits, int, 0) : -1;

	/* a node Slurm lost: its ranks went down together, with the host */
	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);
		const struct hd_signal *node;
		g_autofree char *cmd = NULL;

		if (!e->source)
			continue;
		if (!(node = node_failure_cited(a->store, e)))
			break;
		cmd = g_strdup_printf("scontrol show node %s", node->host);
		add_step(c, -1, NULL, NULL, "the error, at %s: %s", e->source,
			 hd_text_strip_log_prefix(e->text));
		add_step(
			c, -1, node->host, cmd,
			"Slurm lost %s: `%s` for its Reason, and that host's "
			"kernel log (journalctl -k, dmesg) around the time for "
			"why it went down",
			node->host, cmd);
		return;
	}
	/*
	 * Several culprits: the verdict could not tell which failed first,
	 * so no rank (least of all the lowest-numbered) is called the cause.
	 */
	if (v->culprits->len > 1) {
		GString *rt = g_string_new(NULL);

		for (guint k = 0; k < v->culprits->len && k < 8; k++) {
			int r = g_array_index(v->culprits, int, k);

			for (guint i = 0; i < v->evidence->len; i++) {
				const struct hd_evidence *e =
					g_ptr_array_index(v->evidence, i);

				if (!e->source || e->rank != r)
					continue;
				add_step(c, r, NULL, NULL,
					 "rank %d's first error, at %s: %s", r,
					 e->source,
					 hd_text_strip_log_prefix(e->text));
				break;
			}
		}
		for (guint i = 0; i < v->culprits->len && i < 8; i++)
			g_string_append_printf(
				rt, "%s%d", i ? ", " : "",
				g_array_index(v->culprits, int, i));
		if (v->culprits->len > 8)
			g_string_append_printf(rt, " and %u more",
					       v->culprits->len - 8);
		add_step(c, -1, NULL, NULL,
			 "which of these failed first is not known: read the "
			 "logs of ranks %s up to each one's first error and "
			 "compare their times; none is known to cause the "
			 "others' errors",
			 rt->str);
		g_string_free(rt, TRUE);
		return;
	}
	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);

		if (!e->source)
			continue;
		add_step(c, e->rank, NULL, NULL, "the error, at %s: %s",
			 e->source, hd_text_strip_log_prefix(e->text));
		break;
	}
	if (bad >= 0) {
		const struct hd_frame *f = user_frame(a, rows, bad);
		g_autofree char *on = on_host(a, bad);

		if (f) {
			g_autofree char *where = frame_text(f);

			add_step(c, bad, NULL, NULL,
				 "rank %d's Python was last seen at %s", bad,
				 where);
		}
		add_step(c, bad, rank_host(a, bad), NULL,
			 "read rank %d's log %s up to the error for its "
			 "cause; the other ranks' errors follow from it",
			 bad, on);
		if (driver_failed(a->store, bad))
			add_step(
				c, bad, rank_host(a, bad), NULL,
				"its GPU stopped answering mid-run: run "
				"nvidia-smi %s and read the kernel log there "
				"(dmesg, journalctl -k) for an Xid (79: fallen "
				"off the bus); give hangdoc that log to tie "
				"the two",
				on);
	}
}

/* What to check for each kind of setup failure the culprits reported. */
static void next_init(struct next_ctx *c, GHashTable *rows)
{
	const struct hd_store *s = c->a->store;
	bool seen[HD_SIGT_COUNT] = { false };
	bool any = false;

	(void)rows;
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type >= HD_SIGT_COUNT || seen[sig->type] ||
		    !hd_verdict_has_culprit(c->v, sig->rank))
			continue;
		seen[sig->type] = true;
		switch (sig->type) {
		case HD_SIGT_DUPLICATE_GPU:
			add_step(c, -1, NULL, NULL,
				 "two ranks share a GPU: check "
				 "CUDA_VISIBLE_DEVICES and that each process "
				 "calls torch.cuda.set_device(LOCAL_RANK)");
			any = true;
			break;
		case HD_SIGT_SHM:
			add_step(c, -1, NULL, NULL,
				 "/dev/shm is too small: raise it "
				 "(docker --shm-size, a memory-backed "
				 "emptyDir) or set NCCL_SHM_DISABLE=1");
			any = true;
			break;
		case HD_SIGT_CUDA_DRIVER:
			add_step(c, -1, NULL, NULL,
				 "the CUDA driver on the culprit's host: run "
				 "nvidia-smi there; check that libcuda.so (or "
				 "NCCL_CUDA_PATH) is the driver's and not a "
				 "stub, that the driver is as new as the CUDA "
				 "runtime the job uses, and on NVSwitch hosts "
				 "that nvidia-fabricmanager runs");
			any = true;
			break;
		case HD_SIGT_BOOTSTRAP:
		case HD_SIGT_STORE_LOST:
			add_step(c, -1, NULL, NULL,
				 "bootstrap: check MASTER_ADDR and "
				 "MASTER_PORT, that the port is open between "
				 "hosts, and NCCL_SOCKET_IFNAME");
			any = true;
			break;
		default:
			break;
		}
	}
	if (!any)
		add_step(c, -1, NULL, NULL,
			 "check the launch configuration the evidence "
			 "names (devices, NCCL_* and MASTER_* variables) on "
			 "the culprit ranks");
}

static void next_no_fault(struct next_ctx *c, GHashTable *rows)
{
	(void)rows;
	add_step(c, -1, NULL, NULL,
		 "no fault in what was read; if the job still "
		 "hangs, collect:");
	next_steps_data(c);
}

static void next_collect(struct next_ctx *c, GHashTable *rows)
{
	(void)rows;
	next_steps_data(c);
}

/* issue 21: a GPU's Xid; what to do is hd_xid_next_step()'s */
static void next_gpu(struct next_ctx *c, GHashTable *rows)
{
	const struct hd_verdict *v = c->v;
	int rank = v->culprits->len ? g_array_index(v->culprits, int, 0) : -1;

	(void)rows;
	if (rank >= 0) {
		g_autofree char *on = on_host(c->a, rank);

		add_step(c, rank, rank_host(c->a, rank), NULL,
			 "rank %d ran %s: %s", rank, on,
			 hd_xid_next_step(v->xid));
	} else {
		add_step(c, -1, NULL, NULL,
			 "on the host the kernel log came from: %s",
			 hd_xid_next_step(v->xid));
	}
	add_step(
		c, rank, rank >= 0 ? rank_host(c->a, rank) : NULL,
		"nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER,PERFORMANCE",
		"the GPU's own state there: `nvidia-smi -q -d "
		"ECC,PAGE_RETIREMENT,ROW_REMAPPER,PERFORMANCE`");
}

/*
 * A host-state event on a culprit's host that the verdict cites without
 * resting on it (hd-kernel.c's "also on that host"): what to check of it,
 * saying that it is not shown to be the cause.
 */
static void next_host_context(struct next_ctx *c)
{
	const struct hd_signal *sig = host_event(c->a, c->v);
	const char *host;

	if (!sig || c->v->host_event_cause)
		return;
	host = hd_host_event_host(c->a->store, sig);
	if (port_step(c, sig, -1, host,
		      "; it is not shown to have caused this, but fix it "
		      "before the job runs there again"))
		return;
	if (sig->type == HD_SIGT_XID)
		add_step(c, -1, host, NULL,
			 "also on %s, a GPU reported Xid %d (not shown to "
			 "have caused this): %s",
			 host ? host : "that host", hd_xid_of_event(sig),
			 hd_xid_next_step(hd_xid_of_event(sig)));
	else if (sig->type == HD_SIGT_GPU_STATE &&
		 (hd_signal_gpu_problems(sig) & HD_GPU_NOT_GPU)) {
		g_autofree char *cmd = g_strdup_printf(
			"lspci -vvv -s %s", sig->device ? sig->device : "?");

		add_step(c, -1, host, cmd,
			 "also on %s, PCIe device %s reported an uncorrected "
			 "error (not shown to have caused this): `%s` there "
			 "for its error status, and the kernel log around it "
			 "for a GPU that dropped",
			 host ? host : "that host",
			 sig->device ? sig->device : "?", cmd);
	} else if (sig->type == HD_SIGT_GPU_STATE)
		add_step(c, -1, host,
			 "nvidia-smi -q -d "
			 "ECC,PAGE_RETIREMENT,ROW_REMAPPER,PERFORMANCE",
			 "also on %s, a GPU's state shows a problem (not "
			 "shown to have caused this): `nvidia-smi -q -d "
			 "ECC,PAGE_RETIREMENT,ROW_REMAPPER,PERFORMANCE` there",
			 host ? host : "that host");
	else if (sig->type == HD_SIGT_HOST_OOM)
		add_step(c, -1, host, NULL,
			 "also on %s, the kernel's OOM killer killed pid %d "
			 "(not shown to have caused this): what else used "
			 "that host's memory",
			 host ? host : "that host", sig->pid);
}

/* The next steps of each hd_next_step, which the verdict kind names. */
static void (*const next_step_hooks[])(struct next_ctx *, GHashTable *) = {
	[HD_NEXT_LIVE_RANKS] = next_live_ranks,
	[HD_NEXT_MISMATCH] = next_mismatch,
	[HD_NEXT_NETWORK] = next_network,
	[HD_NEXT_CRASH] = next_crash,
	[HD_NEXT_INIT] = next_init,
	[HD_NEXT_NO_FAULT] = next_no_fault,
	[HD_NEXT_COLLECT] = next_collect,
	[HD_NEXT_GPU] = next_gpu,
};
_Static_assert(G_N_ELEMENTS(next_step_hooks) == HD_NEXT_COUNT,
	       "every next step has a hook");

static void fill_culprits(const struct hd_analysis *a, GHashTable *rows,
			  struct hd_verdict *v)
{
	g_array_set_size(v->culprit_info, 0);
	for (guint i = 0; i < v->culprits->len; i++) {
		int rank = g_array_index(v->culprits, int, i);
		const struct hd_rank *r = hd_store_find_rank(a->store, rank);
		guint row = GPOINTER_TO_UINT(
			g_hash_table_lookup(rows, GINT_TO_POINTER(rank)));
		struct hd_culprit c = { rank, NULL, 0, -1, -1 };

		if (r) {
			c.host = r->host;
			c.pid = r->pid > 0 ? r->pid : 0;
		}
		if (row) {
			const struct hd_rank_progress *p = &g_array_index(
				a->progress, struct hd_rank_progress, row - 1);

			c.stack = p->stack;
			c.user_frame = p->user_frame;
		}
		g_array_append_val(v->culprit_info, c);
	}
}

void hd_next_run(struct hd_analysis *a)
{
	g_autoptr(GHashTable) rows =
		g_hash_table_new(g_direct_hash, g_direct_equal);

	for (guint i = 0; i < a->progress->len; i++)
		g_hash_table_insert(
			rows,
			GINT_TO_POINTER(g_array_index(a->progress,
						      struct hd_rank_progress,
						      i)
						.rank),
			GUINT_TO_POINTER(i + 1));
	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);
		struct next_ctx c = { a, v };

		hd_verdict_order_evidence(v);
		fill_culprits(a, rows, v);
		g_ptr_array_set_size(v->next_steps, 0);
		if (i < NEXT_VERDICTS) {
			next_step_hooks[hd_verdict_kind_info(v->kind)->next](
				&c, rows);
			next_host_context(&c);
		}
	}
}
