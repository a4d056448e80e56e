/*
 * Causes from the hosts' kernel logs, InfiniBand and GPU state (issue 21):
 * NVRM Xid reports, GPUs lost to their host (nvidia-smi failing, PCIe
 * errors, the driver failing to initialise one), the OOM killer and HCA
 * link changes, set beside the verdicts the collectives gave; one verdict
 * per cause (a GPU, port or process on one host).
 *
 * Each event is joined to a rank (hd-host-join.c) and tested for being of
 * another time (hd-host-stale.c); this file turns what is left into
 * causes and verdicts.  An event that joins to a rank another check
 * already blames is the cause behind that verdict, and the verdict it
 * gives states the chain; one that joins to no blamed rank is reported
 * for what it is, ranked below the collectives' own verdicts.  Kernel
 * times count from boot: they are never compared with wall clocks, so
 * order across hosts is never taken from them.  kernel_decide() chooses
 * what an event's verdict is, kernel_build() states it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hd-const.h"
#include "hd-host-join.h"
#include "hd-host-stale.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

enum xid_class {
	XID_HW, /* the GPU or its driver failed: drain and reset */
	XID_APP, /* the process on the GPU faulted (usually a bug) */
	XID_NVLINK, /* an NVLink error: an interconnect fault */
	XID_AFTER, /* follows another failure: never a cause */
	XID_WARN, /* a warning the GPU survives: context, never a cause */
};

struct xid_info {
	int xid;
	enum xid_class cls;
	const char *meaning;
};

/* The common Xids (docs/format-kernel-log.md holds the same table). */
static const struct xid_info xids[] = {
	{ 13, XID_APP,
	  "graphics engine exception (often an out-of-range access)" },
	{ 31, XID_APP, "GPU memory page fault (an illegal address)" },
	{ 43, XID_APP, "GPU stopped processing (the process hit a fault)" },
	{ 45, XID_AFTER,
	  "preemptive cleanup after an earlier error or a kill" },
	{ 48, XID_HW, "double-bit ECC error" },
	{ 61, XID_HW, "internal micro-controller breakpoint" },
	{ 62, XID_HW, "internal micro-controller halt" },
	{ 63, XID_WARN, "ECC page retirement or row remapping recorded" },
	{ 64, XID_HW, "ECC page retirement or row remapping failed" },
	{ 74, XID_NVLINK, "NVLink error" },
	{ 79, XID_HW, "the GPU fell off the bus" },
	{ 92, XID_WARN, "high single-bit ECC error rate" },
	{ 94, XID_HW, "contained ECC error" },
	{ 95, XID_HW, "uncontained ECC error" },
	{ 109, XID_HW, "context switch timeout" },
	{ 119, XID_HW, "GSP RPC timeout" },
	{ 120, XID_HW, "GSP error" },
	{ 137, XID_NVLINK, "NVLink privilege error" },
	{ 144, XID_NVLINK, "NVLink SAW error" },
	{ 145, XID_NVLINK, "NVLink RLW error" },
	{ 146, XID_NVLINK, "NVLink TLW error" },
	{ 147, XID_NVLINK, "NVLink TREX error" },
	{ 148, XID_NVLINK, "NVLink NVLPW control error" },
	{ 149, XID_NVLINK, "NVLink NETIR error" },
	{ 150, XID_NVLINK, "NVLink MSE error" },
	{ 154, XID_HW,
	  "the driver asks for a recovery action (reset or reboot)" },
};

static const struct xid_info unknown_xid = { 0, XID_HW,
					     "an Xid outside hangdoc's table" };

static const struct xid_info *xid_info(int xid)
{
	for (size_t i = 0; i < G_N_ELEMENTS(xids); i++)
		if (xids[i].xid == xid)
			return &xids[i];
	return &unknown_xid;
}

/*
 * The Xid an event stands for: its own, or for a cleanup (Xid 45) whose
 * line names the earlier Xid it follows ("caused by previous Xid 149"),
 * that one: the kernel's own word for the cause.
 */
int hd_xid_of_event(const struct hd_signal *sig)
{
	int xid = hd_signal_xid(sig), cause = hd_signal_xid_cause(sig);

	if (cause && xid_info(xid)->cls == XID_AFTER &&
	    xid_info(cause)->cls != XID_AFTER)
		return cause;
	return xid;
}

const char *hd_xid_next_step(int xid)
{
	switch (xid_info(xid)->cls) {
	case XID_APP:
		return "the process on that GPU faulted: read its own traceback, and rerun it under `compute-sanitizer` to find the access";
	case XID_NVLINK:
		return "an NVLink fault: `nvidia-smi nvlink -e` for its error counters on that host, then drain it and run `nvidia-bug-report.sh` there";
	case XID_WARN:
		return "a warning the GPU survives, not a stop: reset the GPU when it is idle (a recorded row remapping takes effect then) and watch `nvidia-smi -q -d ECC,ROW_REMAPPER` there";
	case XID_AFTER:
	case XID_HW:
	default:
		return "drain the node, run `nvidia-bug-report.sh` there, and reset the GPU (or reboot) before it takes jobs again";
	}
}

/* More telling first: joined to a blamed rank, then to a rank, then HW. */
static int event_weight(const struct hd_host_event *e)
{
	int w = 0;

	if (e->blamed)
		w += 8;
	if (e->rank >= 0)
		w += 4;
	if ((e->xid && e->xid->cls == XID_HW) ||
	    e->sig->type == HD_SIGT_GPU_STATE)
		w += 2;
	if (e->sig->type == HD_SIGT_HOST_OOM)
		w += 2;
	/* of one GPU, its Xid says most ("fell off the bus", beside the
	   PCIe error before it) */
	if (e->sig->type == HD_SIGT_XID)
		w += 1;
	return w;
}

static void cite(const struct hd_store *s, struct hd_verdict *v,
		 const struct hd_host_event *e)
{
	g_autofree char *src = hd_prov_format(s, &e->sig->prov);

	if (e->sig->type == HD_SIGT_LINK_EVENT && e->sig->device) {
		size_t n = strcspn(e->sig->device, ":");

		hd_verdict_add_evidence(
			v, e->rank, src, "link %s on hca %.*s port %s: %s",
			hd_signal_link_state(e->sig) == 3 ? "disabled" : "down",
			(int)n, e->sig->device,
			e->sig->device[n] ? e->sig->device + n + 1 : "?",
			e->sig->text);
	} else {
		hd_verdict_add_evidence(v, e->rank, src, "%s", e->sig->text);
	}
	if (e->by_name)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"host %s taken from the file's path (its lines do not name the host)",
			e->host);
	else if (e->host)
		hd_verdict_add_evidence(
			v, -1, NULL, "host %s named by the kernel log's lines",
			e->host);
	if (e->rank >= 0 && e->by_bus && e->by_pid)
		hd_verdict_add_evidence(
			v, e->rank, NULL,
			"joined to rank %d by the GPU's bus id in NCCL's Init line (%s on %s), and its pid (%d) is rank %d's too",
			e->rank, e->sig->device, e->host, e->sig->pid, e->rank);
	else if (e->rank >= 0 && e->by_bus)
		hd_verdict_add_evidence(
			v, e->rank, NULL,
			"joined to rank %d by the GPU's bus id in NCCL's Init line (%s on %s)",
			e->rank, e->sig->device, e->host);
	else if (e->rank >= 0 && e->by_pid && e->pid_sure)
		hd_verdict_add_evidence(
			v, e->rank, NULL,
			"joined to rank %d by its pid (%d on %s), which another kernel record there confirms: it names rank %d's GPU with the same pid",
			e->rank, e->sig->pid, e->host, e->rank);
	else if (e->rank >= 0 && e->by_pid)
		hd_verdict_add_evidence(
			v, e->rank, NULL,
			"joined to rank %d by its pid alone (%d on %s): the kernel prints the host's process ids, which are the rank's own only outside a container, and nothing on %s confirms them",
			e->rank, e->sig->pid, e->host, e->host);
	else if (e->host_wide && e->users) {
		g_autofree char *ur = hd_ranks_text(e->users, 8);

		hd_verdict_add_evidence(
			v, e->rank, NULL,
			"the record names no GPU, so it concerns every rank on %s (ranks %s)%s",
			e->host, ur,
			e->rank >= 0
				? "; joined to the one another verdict blames"
				: "");
	} else if (e->rank >= 0)
		hd_verdict_add_evidence(
			v, e->rank, NULL, "joined to rank %d %s (%s on %s)",
			e->rank, e->how, e->sig->device, e->host);
	if (e->declined)
		hd_verdict_add_evidence(v, -1, NULL, "%s", e->declined);
}

/* What a GPU's state shows, in words ("is lost: ...").  (transfer full) */
static char *gpu_problem_text(const struct hd_signal *sig)
{
	uint32_t p = hd_signal_gpu_problems(sig);

	if (p & HD_GPU_LOST)
		return g_strdup("is lost: nvidia-smi cannot reach it");
	if (p & HD_GPU_INIT_FAILED)
		return g_strdup(
			"could not be initialised by the driver (RmInitAdapter failed)");
	if (p & HD_GPU_PCIE_ERROR)
		return g_strdup("reported an uncorrected PCIe error (AER)");
	/* nvidia-smi -q: "nvidia-smi -q: GPU 0000:3b:00: what it shows" */
	if (sig->text && g_str_has_prefix(sig->text, "nvidia-smi -q: ") &&
	    g_strrstr(sig->text, ": "))
		return g_strdup_printf("shows %s",
				       g_strrstr(sig->text, ": ") + 2);
	return g_strdup("shows a problem");
}

/*
 * What the event is, in words, of a GPU or process that is the rank's
 * ("its") or of none known ("a").  (transfer full)
 */
static char *what(const struct hd_host_event *e, const char *whose,
		  const struct hd_store *s)
{
	const struct hd_signal *sig = e->sig;
	/* without a host, the file tells two hosts' events apart */
	g_autofree char *unnamed =
		g_strdup_printf("the host of %s (its lines name none)",
				hd_store_input(s, sig->prov.input)->path);
	const char *host = e->host ? e->host : unnamed;

	if (sig->type == HD_SIGT_XID &&
	    hd_xid_of_event(sig) != hd_signal_xid(sig))
		return g_strdup_printf(
			"%s GPU on %s%s%s%s reported Xid %d, a cleanup its line says previous Xid %d caused: %s",
			whose, host, sig->device ? ", " : "",
			sig->device ? sig->device : "", sig->device ? "," : "",
			hd_signal_xid(sig), hd_xid_of_event(sig),
			e->xid->meaning);
	if (sig->type == HD_SIGT_XID)
		return g_strdup_printf("%s GPU on %s%s%s%s reported Xid %d: %s",
				       whose, host, sig->device ? ", " : "",
				       sig->device ? sig->device : "",
				       sig->device ? "," : "",
				       hd_signal_xid(sig), e->xid->meaning);
	if (hd_host_level(sig))
		return g_strdup_printf(
			(hd_signal_gpu_problems(sig) & HD_GPU_LOST)
				? "nvidia-smi on %s reaches no GPU (\"%.80s\")"
				: "the NVIDIA driver on %s could not initialise a GPU (\"%.80s\")",
			host, sig->text ? sig->text : "?");
	if (sig->type == HD_SIGT_GPU_STATE) {
		g_autofree char *shows = gpu_problem_text(sig);

		return g_strdup_printf("%s GPU on %s%s%s%s %s", whose, host,
				       sig->device ? ", " : "",
				       sig->device ? sig->device : "",
				       sig->device ? "," : "", shows);
	}
	if (sig->type == HD_SIGT_HOST_OOM)
		return g_strdup_printf(
			"the kernel's OOM killer killed %sprocess %d (%s) on %s",
			strcmp(whose, "its") == 0 ? "its " : "", sig->pid,
			sig->op_name ? sig->op_name : "?", host);
	if (sig->type == HD_SIGT_IB_COUNTERS)
		return g_strdup_printf(
			"HCA port %s on %s counted link errors (%s; since the counters were last cleared, so when is unknown)",
			sig->device ? sig->device : "(lid only)", host,
			sig->text ? sig->text : "?");
	return g_strdup_printf(
		"HCA port %s on %s is %s", sig->device ? sig->device : "?",
		host, hd_signal_link_state(sig) == 3 ? "disabled" : "down");
}

/* The same port's error counters beside its state, as evidence. */
static void cite_counters(const struct hd_host_ctx *k, struct hd_verdict *v,
			  const struct hd_host_event *e)
{
	const struct hd_store *s = k->s;

	if (!e->host || e->sig->type == HD_SIGT_XID ||
	    e->sig->type == HD_SIGT_HOST_OOM)
		return;
	for (guint i = 0; i < s->signals->len && v->evidence->len < 8; i++) {
		const struct hd_signal *c = hd_sig_at(s, i);
		g_autofree char *src = NULL;
		bool by_name;
		const char *h;

		if (c == e->sig || c->type != HD_SIGT_IB_COUNTERS ||
		    hd_signal_ib_errors(c) <= 0 || !hd_host_from_state(s, c))
			continue;
		h = hd_host_of(k, c, &by_name);
		if (h != e->host || (c->device && e->sig->device &&
				     c->device != e->sig->device))
			continue;
		src = hd_prov_format(s, &c->prov);
		hd_verdict_add_evidence(v, e->rank, src, "%s", c->text);
	}
}

/* The index of sig in the store's signals. */
static int64_t signal_index(const struct hd_store *s,
			    const struct hd_signal *sig)
{
	return sig - &g_array_index(s->signals, struct hd_signal, 0);
}

/*
 * An event that explains no verdict but happened on the host of a rank one
 * blames is context for the top such verdict: it gets the line as
 * evidence, saying what it does not show, and its next steps name it.
 */
static void add_context(const struct hd_host_ctx *k, struct hd_analysis *a,
			const struct hd_host_event *e, const char *what_text)
{
	const struct hd_store *s = k->s;
	struct hd_verdict *top = NULL;
	g_autoptr(GArray) on = NULL;
	g_autofree char *src = NULL;

	if (e->blamed || !e->host)
		return;
	on = hd_host_ranks_on(k, e->host);
	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (!hd_verdict_kind_info(v->kind)->fault ||
		    (top && v->score <= top->score))
			continue;
		for (guint c = 0; c < v->culprits->len; c++)
			if (hd_ints_contains(
				    on, g_array_index(v->culprits, int, c)))
				top = v;
	}
	if (!top)
		return;
	src = hd_prov_format(s, &e->sig->prov);
	hd_verdict_add_evidence(
		top, -1, src,
		"also on that host: %s (whether it caused this is not shown)",
		what_text);
	if (top->host_event < 0) {
		top->host_event = signal_index(s, e->sig);
		top->host_event_cause = false;
	}
}

/* The verdict of a->verdicts that is v, writable.  (transfer none) */
static struct hd_verdict *writable(struct hd_analysis *a,
				   const struct hd_verdict *v)
{
	for (guint i = 0; i < a->verdicts->len; i++)
		if (g_ptr_array_index(a->verdicts, i) == v)
			return g_ptr_array_index(a->verdicts, i);
	return NULL;
}

/* The verdict an event gives. */
static enum hd_verdict_kind event_kind(const struct hd_host_event *e)
{
	switch (e->sig->type) {
	case HD_SIGT_HOST_OOM:
		return HD_V_RANK_CRASHED;
	case HD_SIGT_LINK_EVENT:
	case HD_SIGT_IB_COUNTERS:
		return HD_V_NETWORK_FAULT;
	default:
		return e->xid && e->xid->cls == XID_NVLINK ? HD_V_NETWORK_FAULT
							   : HD_V_GPU_FAULT;
	}
}

/* The shape of the verdict a cause gives, as kernel_decide() chose it. */
enum kernel_shape {
	/*
	 * Evidence beside the verdict that blames its rank: a pid alone may
	 * be another process's (a container numbers its own), and a verdict
	 * that already states one host event's chain keeps it.
	 */
	KERNEL_BESIDE,
	/*
	 * The blaming verdict, of the event's own kind (a port down under
	 * the rank that saw the first network error), states the chain: a
	 * verdict of its own beside it would be merged into it, and its
	 * headline lost.
	 */
	KERNEL_RESTATE,
	/* a verdict of its own: the chain behind the blaming verdict */
	KERNEL_BEHIND,
	KERNEL_RANK, /* joined to a rank no verdict blames */
	KERNEL_USERS, /* the ranks that use it, or that ran on its host */
	KERNEL_PORT_HOST, /* a port whose users NCCL's logs do not show */
	KERNEL_NOBODY, /* no rank of the job is shown to be it or use it */
};

/* What kernel_decide() chose for one cause; kernel_build() states it. */
struct kernel_decision {
	enum kernel_shape shape;
	enum hd_verdict_kind kind;
	enum hd_confidence conf;
	/* KERNEL_BESIDE and KERNEL_RESTATE: the verdict written */
	struct hd_verdict *target;
	/* beside the collectives' verdicts, never above them */
	bool below;
};

/*
 * Chooses what the lead event e of a cause gives, from its kind, its join
 * and the verdict that already blames its rank.
 */
static void kernel_decide(struct hd_analysis *a, const struct hd_host_event *e,
			  struct kernel_decision *d)
{
	const struct hd_signal *sig = e->sig;
	struct hd_verdict *blamed = NULL;

	*d = (struct kernel_decision){ .kind = event_kind(e),
				       .conf = HD_CONF_MEDIUM };
	if (e->blamed && e->blamed->kind == d->kind)
		blamed = writable(a, e->blamed);
	if (blamed && (!hd_host_join_sure(e) || e->blamed->host_event_cause)) {
		d->shape = KERNEL_BESIDE;
		d->target = blamed;
	} else if (blamed) {
		d->shape = KERNEL_RESTATE;
		d->target = blamed;
		d->conf = HD_CONF_HIGH;
	} else if (e->blamed) {
		/* a pid alone states the chain, but only as a lead */
		d->shape = KERNEL_BEHIND;
		d->conf = hd_host_join_sure(e) ? HD_CONF_HIGH : HD_CONF_MEDIUM;
	} else if (e->rank >= 0) {
		/* a port, or a process joined by a pid alone, is a lead */
		d->shape = KERNEL_RANK;
		d->below = sig->type == HD_SIGT_LINK_EVENT ||
			   sig->type == HD_SIGT_IB_COUNTERS ||
			   !hd_host_join_sure(e);
	} else if (e->users && e->users->len) {
		d->shape = KERNEL_USERS;
		d->below = true;
	} else if (e->users && e->host) {
		d->shape = KERNEL_PORT_HOST;
		d->conf = HD_CONF_LOW;
		d->below = true;
	} else {
		d->shape = KERNEL_NOBODY;
		d->conf = HD_CONF_LOW;
		d->below = true;
	}
}

/*
 * States decision d on e, a cause of same host records: the verdict (a
 * new one, or the blaming one restated), its summary and its evidence;
 * and e as context beside a verdict on its host that it does not explain.
 */
static void kernel_build(const struct hd_host_ctx *k, struct hd_analysis *a,
			 const struct hd_host_event *e,
			 const struct kernel_decision *d, guint same)
{
	const struct hd_store *s = k->s;
	const struct hd_signal *sig = e->sig;
	g_autofree char *w = what(e, e->rank >= 0 ? "its" : "a", s);
	g_autofree char *head = NULL;
	struct hd_verdict *v = d->target;

	add_context(k, a, e, w);
	switch (d->shape) {
	case KERNEL_BESIDE:
		cite(s, v, e);
		return;
	case KERNEL_RESTATE:
		head = g_strndup(v->summary, strcspn(v->summary, ";"));
		g_free(v->summary);
		v->summary = g_strdup_printf("%s: %s", head, w);
		v->confidence = d->conf;
		v->score += 20.0;
		break;
	case KERNEL_BEHIND:
		head = g_strndup(e->blamed->summary,
				 strcspn(e->blamed->summary, ";"));
		v = hd_verdict_new(d->kind, d->conf, "%s: %s", head, w);
		hd_verdict_copy_place(v, e->blamed);
		v->score = e->blamed->score + 20.0;
		break;
	case KERNEL_RANK:
		v = hd_verdict_new(d->kind, d->conf, "rank %d: %s", e->rank, w);
		break;
	case KERNEL_USERS: {
		g_autofree char *ur = hd_ranks_text(e->users, 8);

		v = hd_verdict_new(d->kind, d->conf, "%s; ranks %s %s", w, ur,
				   e->host_wide ? "ran there" : "use it");
		for (guint i = 0; i < e->users->len; i++)
			hd_verdict_add_culprit(v,
					       g_array_index(e->users, int, i));
		break;
	}
	case KERNEL_PORT_HOST: {
		/* a port: say whose host it is, not who used it */
		g_autoptr(GArray) on = hd_host_ranks_on(k, e->host);
		g_autofree char *hr = on->len ? hd_ranks_text(on, 8) : NULL;

		v = hd_verdict_new(
			d->kind, d->conf,
			"%s; %s%s%swhich ranks use it NCCL's logs do not show (its NET/IB : Using lines)",
			w, hr ? "ranks " : "", hr ? hr : "",
			hr ? " ran there, but " : "");
		break;
	}
	case KERNEL_NOBODY:
	default:
		v = hd_verdict_new(d->kind, d->conf,
				   "%s; no rank of this job is shown to %s", w,
				   sig->type == HD_SIGT_HOST_OOM
					   ? "be that process"
					   : "have used it");
		break;
	}
	if (d->below)
		v->score = HD_SCORE_LAGGING - 5.0;
	if (d->shape != KERNEL_RESTATE && e->rank >= 0)
		hd_verdict_add_culprit(v, e->rank);
	if (sig->type == HD_SIGT_XID)
		v->xid = hd_xid_of_event(sig);
	v->host_event = signal_index(s, sig);
	v->host_event_cause = true;
	cite(s, v, e);
	if (d->shape == KERNEL_BEHIND)
		hd_verdict_add_evidence(
			v, e->rank, NULL, "and independently (%s): %s",
			hd_verdict_kind_info(e->blamed->kind)->name,
			e->blamed->summary);
	cite_counters(k, v, e);
	if (same > 1)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u host records of this cause in all (the same GPU, port or process)",
			same);
	/* dmesg -T's and the journal's dates are wall times, not boot's */
	if (sig->time.clock == HD_CLOCK_BOOT)
		hd_verdict_add_ruled_out(
			v,
			"ordering by kernel time: dmesg counts from each host's boot, a clock no other input shares");
	if (d->shape != KERNEL_RESTATE)
		g_ptr_array_add(a->verdicts, v);
}

/*
 * A host event that is never a cause: context beside a verdict on its
 * host, and a note saying why (the first few, nth counting them).
 */
static void context_note(const struct hd_host_ctx *k, struct hd_analysis *a,
			 const struct hd_host_event *e, const char *w,
			 guint nth, const char *why)
{
	add_context(k, a, e, w);
	if (nth < 4)
		g_ptr_array_add(a->notes, g_strdup_printf("%s: %s", w, why));
}

/*
 * An Xid the GPU survives (a recorded row remapping, a high single-bit
 * ECC rate) stops no process: never a verdict, so a healthy run stays
 * healthy.  On the host of a blamed rank it is context for that verdict;
 * anywhere, a note (the first few).
 */
static void warn_xid(const struct hd_host_ctx *k, struct hd_analysis *a,
		     struct hd_host_event *e, guint nth)
{
	g_autofree char *w = what(e, "a", k->s);

	e->blamed = NULL;
	context_note(
		k, a, e, w, nth,
		"a warning the GPU survives, never taken as the cause of a hang");
}

static bool is_event(struct hd_host_ctx *k, const struct hd_signal *sig)
{
	if (!hd_host_from_state(k->s, sig))
		return false;
	switch (sig->type) {
	case HD_SIGT_XID:
	case HD_SIGT_HOST_OOM:
		return true;
	case HD_SIGT_LINK_EVENT:
		/* up: no fault; disabled on purpose: a fault only where a
		   rank is shown to use the port */
		if (hd_signal_link_state(sig) == 3) {
			bool by_name, topo;
			g_autoptr(GArray) users = hd_host_port_users(
				k, hd_host_of(k, sig, &by_name), sig->device,
				&topo);

			return users->len > 0;
		}
		return hd_signal_link_state(sig) == 0;
	case HD_SIGT_IB_COUNTERS:
		return hd_signal_ib_errors(sig) > 0;
	case HD_SIGT_GPU_STATE:
		/* a slowdown is a performance matter, never a hang's cause */
		return (hd_signal_gpu_problems(sig) & ~HD_GPU_SLOWDOWN) != 0;
	default:
		return false;
	}
}

/* "host|0000:3b:00", or "#3|0000:3b:00" for input 3 of no host. */
#define WHERE_KEY_MAX 320

static const char *where_key(const struct hd_host_event *e, char *buf)
{
	if (e->host)
		g_snprintf(buf, WHERE_KEY_MAX, "%s|%s", e->host,
			   e->sig->device ? e->sig->device : "");
	else
		g_snprintf(buf, WHERE_KEY_MAX, "#%u|%s",
			   (unsigned)e->sig->prov.input,
			   e->sig->device ? e->sig->device : "");
	return buf;
}

/*
 * The devices the NVIDIA driver or nvidia-smi names as GPUs, by host
 * (where_key()): a PCIe port's error report about one of them is a
 * GPU's.  (transfer full)
 */
static GHashTable *gpus_named(const struct hd_host_ctx *k)
{
	const struct hd_store *s = k->s;
	GHashTable *out =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char buf[WHERE_KEY_MAX];

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct hd_host_event e = { .sig = sig };

		if (!sig->device || !hd_host_from_state(s, sig) ||
		    (sig->type != HD_SIGT_XID &&
		     (sig->type != HD_SIGT_GPU_STATE ||
		      (hd_signal_gpu_problems(sig) & HD_GPU_NOT_GPU))))
			continue;
		e.host = hd_host_of(k, sig, &e.by_name);
		g_hash_table_add(out, g_strdup(where_key(&e, buf)));
	}
	return out;
}

/*
 * A PCIe port's uncorrected error about a device no input shows to be a
 * GPU: never a GPU's fault, but context on its host and a note (the
 * first few).
 */
static void not_gpu(const struct hd_host_ctx *k, struct hd_analysis *a,
		    struct hd_host_event *e, guint nth)
{
	g_autofree char *w = g_strdup_printf(
		"an uncorrected PCIe error on %s on %s, a PCIe port or a device no input shows to be a GPU",
		e->sig->device ? e->sig->device : "a device",
		e->host ? e->host : "a host the log does not name");

	context_note(
		k, a, e, w, nth,
		"not taken as a GPU's fault (a GPU below that port may be lost: its own lines would say)");
}

/* Host events turned into verdicts, at most; the rest are counted. */
#define KERNEL_MAX_CAUSES 8
/* Events of one cause joined to ranks, at most: the rest join alike. */
#define KERNEL_JOINS_PER_CAUSE 4

/*
 * One cause: the events of one GPU, port or process on one host (a file
 * of its own when no host is known) that give one kind of verdict.
 */
struct cause {
	struct hd_host_event lead; /* the most telling of them */
	guint count;
	guint joined;
	guint first; /* the index of its first signal, for the order */
};

/* "host|kind|device" or "host|kind|pid"; a file stands for no host. */
static char *cause_key(const struct hd_host_event *e)
{
	const struct hd_signal *sig = e->sig;
	g_autofree char *where =
		e->host ? g_strdup(e->host)
			: g_strdup_printf("#%u", (unsigned)sig->prov.input);

	if (sig->device)
		return g_strdup_printf("%s|%d|%s", where, (int)event_kind(e),
				       sig->device);
	return g_strdup_printf("%s|%d|%d|%d", where, (int)event_kind(e),
			       (int)sig->type, (int)sig->pid);
}

static int compare_causes(gconstpointer pa, gconstpointer pb)
{
	const struct cause *x = pa, *y = pb;
	int wx = event_weight(&x->lead), wy = event_weight(&y->lead);

	if (wx != wy)
		return wx > wy ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

void hd_check_kernel(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GArray) causes =
		g_array_new(FALSE, TRUE, sizeof(struct cause));
	g_autoptr(GHashTable) at =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) hosts = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) gpus = NULL;
	struct hd_host_spans sp = { 0 };
	struct hd_host_ctx k;
	guint after = 0, apart = 0, warned = 0, not_gpus = 0;
	char wk[WHERE_KEY_MAX];

	hd_host_ctx_init(&k, s, a);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct hd_host_event e = { 0 };
		struct cause *c = NULL;
		g_autofree char *key = NULL;
		gpointer slot;
		bool warn, other;

		if (!is_event(&k, sig))
			continue;
		e.sig = sig;
		e.rank = -1;
		e.host = hd_host_of(&k, sig, &e.by_name);
		e.xid = sig->type == HD_SIGT_XID
				? xid_info(hd_xid_of_event(sig))
				: NULL;
		if (e.xid && e.xid->cls == XID_AFTER) {
			after++;
			continue;
		}
		if (!sp.by) {
			hd_host_spans_build(s, &sp);
			gpus = gpus_named(&k);
		}
		warn = e.xid && e.xid->cls == XID_WARN;
		/* a PCIe error about a device no input shows to be a GPU */
		other = !warn && sig->type == HD_SIGT_GPU_STATE &&
			(hd_signal_gpu_problems(sig) & HD_GPU_NOT_GPU) &&
			hd_host_bus_rank(&k, e.host, sig->device) < 0 &&
			!g_hash_table_contains(gpus, where_key(&e, wk));
		if (!warn && !other) {
			key = cause_key(&e);
			if (g_hash_table_lookup_extended(at, key, NULL, &slot))
				c = &g_array_index(causes, struct cause,
						   GPOINTER_TO_UINT(slot));
		}
		if (c && c->joined >= KERNEL_JOINS_PER_CAUSE)
			e.rank = c->lead.rank; /* the same GPU, port or
						  process again: joins alike */
		else if (!other)
			hd_host_join(&k, &e);
		if (hd_host_set_apart(&k, ix, &sp, &e, &apart)) {
			hd_host_event_clear(&e);
			continue;
		}
		if (warn) {
			warn_xid(&k, a, &e, warned++);
			hd_host_event_clear(&e);
			continue;
		}
		if (other) {
			not_gpu(&k, a, &e, not_gpus++);
			continue;
		}
		if (!c) {
			struct cause z = { .first = i };

			g_hash_table_insert(at, g_steal_pointer(&key),
					    GUINT_TO_POINTER(causes->len));
			g_array_append_val(causes, z);
			c = &g_array_index(causes, struct cause,
					   causes->len - 1);
		}
		c->count++;
		if (c->joined >= KERNEL_JOINS_PER_CAUSE)
			continue;
		c->joined++;
		if (!c->lead.sig || event_weight(&e) > event_weight(&c->lead)) {
			hd_host_event_clear(&c->lead);
			c->lead = e;
		} else {
			hd_host_event_clear(&e);
		}
	}
	hd_host_spans_clear(&sp);
	if (apart > 1)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"and %u more host-state event%s of an earlier boot, another incident or a life their rank outlived: not %s",
				apart - 1, apart == 2 ? "" : "s",
				apart == 2 ? "a cause" : "causes"));
	if (after)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"%u Xid 45 report%s in kernel logs (cleanup after an earlier error or a kill): not a cause",
				after, after == 1 ? "" : "s"));
	/* the most telling first: the ones that explain a verdict lead */
	g_array_sort(causes, compare_causes);
	for (guint i = 0; i < causes->len; i++) {
		struct cause *c = &g_array_index(causes, struct cause, i);
		struct kernel_decision d;

		if (i < KERNEL_MAX_CAUSES) {
			if (c->lead.by_pid && !c->lead.by_bus)
				c->lead.pid_sure = hd_host_pid_confirmed(
					&k, c->lead.host, c->lead.rank,
					c->lead.sig->pid);
			kernel_decide(a, &c->lead, &d);
			kernel_build(&k, a, &c->lead, &d, c->count);
			if (c->lead.host)
				g_hash_table_add(hosts, (gpointer)hd_unconst(
								c->lead.host));
		}
		hd_host_event_clear(&c->lead);
	}
	if (causes->len > KERNEL_MAX_CAUSES)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"%u more host events (other GPUs, ports or processes) are not reported as verdicts: the %u most telling are",
				causes->len - KERNEL_MAX_CAUSES,
				KERNEL_MAX_CAUSES));
	if (g_hash_table_size(hosts) > 1)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"host events on %u hosts are reported each on its own: kernel times count from each host's boot, so which came first is not decided",
				g_hash_table_size(hosts)));
	hd_host_ctx_clear(&k);
}
