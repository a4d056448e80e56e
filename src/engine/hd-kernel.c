/*
 * Causes from the hosts' kernel logs (issue 21): NVRM Xid reports, the OOM
 * killer and HCA link changes, joined to ranks and set beside the verdicts
 * the collectives gave.
 *
 * A kernel event names a host (from the line, or from the file's name when
 * that is a host the other evidence shows) and a process id, a GPU's PCI
 * bus id or an HCA port.  It is joined to a rank on that host by pid, else
 * by the bus id NCCL's Init line printed for the rank.  An event that
 * joins to a rank another check already blames is the cause behind that
 * verdict, and the verdict it gives states the chain; one that joins to no
 * blamed rank is reported for what it is, ranked below the collectives'
 * own verdicts.  Kernel times count from boot: they are never compared
 * with wall clocks, so order across hosts is never taken from them.  A
 * dated event (dmesg -T, journalctl) on a clock the incident's own
 * records share, more than an hour from all of them, is another
 * incident's (a kernel log of yesterday): noted, never a cause.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

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

static bool from_kernel(const struct hd_store *s, const struct hd_signal *sig)
{
	enum hd_input_kind k;

	if (sig->prov.input >= s->inputs->len)
		return false;
	k = hd_store_input(s, sig->prov.input)->kind;
	return hd_input_kind_flags(k) & HD_KIND_HOST_STATE;
}

/* The ranks that ran on host, ascending.  (transfer full) */
static GArray *ranks_on(const struct hd_store *s, const char *host)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const struct hd_rank *r = v;

		if (r->host && strcmp(r->host, host) == 0)
			g_array_append_val(out, r->rank);
	}
	g_array_sort(out, hd_compare_int);
	return out;
}

/* Whether some rank ran on host. */
static bool known_host(const struct hd_store *s, const char *host)
{
	g_autoptr(GArray) on = ranks_on(s, host);

	return on->len > 0;
}

/*
 * The host of a kernel event: the one its line names, else a part of its
 * file's path that names a host the ranks ran on ("hosts/node-b/dmesg",
 * "node-b.dmesg").  *by_name says it came from the path.
 */
static const char *event_host(const struct hd_store *s,
			      const struct hd_signal *sig, bool *by_name);

const char *hd_host_event_host(const struct hd_store *s,
			       const struct hd_signal *sig)
{
	bool by_name;

	return event_host(s, sig, &by_name);
}

static const char *event_host(const struct hd_store *s,
			      const struct hd_signal *sig, bool *by_name)
{
	const struct hd_input *in = hd_store_input(s, sig->prov.input);
	g_auto(GStrv) parts = NULL;
	const char *found = NULL;

	*by_name = false;
	if (sig->host)
		return sig->host;
	if (!in->path)
		return NULL;
	parts = g_strsplit(in->path, "/", -1);
	for (guint i = 0; parts[i]; i++) {
		char *dot = strchr(parts[i], '.');

		if (dot && parts[i + 1] == NULL)
			*dot = '\0'; /* "node-b.dmesg.txt" -> "node-b" */
		if (parts[i][0] && known_host(s, parts[i]))
			found = hd_intern(parts[i]); /* the deepest wins */
	}
	*by_name = found != NULL;
	return found;
}

/* NCCL's busId ("38000", or "0000:38:00.0") as "0000:38:00", or NULL. */
static bool same_bus(const char *nccl, const char *pci)
{
	char buf[24];

	if (!nccl || !pci)
		return false;
	if (strchr(nccl, ':')) {
		g_snprintf(buf, sizeof(buf), "%s", nccl);
		if (strlen(buf) == 7)
			return g_ascii_strncasecmp(buf, pci + 5, 5) == 0;
		return g_ascii_strncasecmp(buf, pci, 10) == 0;
	} else {
		guint64 id = g_ascii_strtoull(nccl, NULL, 16);

		g_snprintf(buf, sizeof(buf), "%04x:%02x:%02x",
			   (unsigned)((id >> 20) & 0xffff),
			   (unsigned)((id >> 12) & 0xff),
			   (unsigned)((id >> 4) & 0xff));
		return g_ascii_strcasecmp(buf, pci) == 0;
	}
}

/* The rank a kernel event on host belongs to, or -1; *how says by what. */
static int join_rank(const struct hd_store *s, const struct hd_signal *sig,
		     const char *host, const char **how)
{
	GHashTableIter it;
	gpointer k, v;
	int by_pid = -1, by_bus = -1;
	guint nbus = 0;

	*how = NULL;
	if (!host)
		return -1;
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const struct hd_rank *r = v;

		if (!r->host || strcmp(r->host, host) != 0)
			continue;
		if (sig->pid > 0 && r->pid == sig->pid)
			by_pid = r->rank;
		if (sig->device && same_bus(r->bus_id, sig->device)) {
			by_bus = r->rank;
			nbus++;
		}
	}
	if (by_pid >= 0) {
		*how = "by its pid";
		return by_pid;
	}
	if (by_bus >= 0 && nbus == 1) {
		*how = "by the GPU's bus id in NCCL's Init line";
		return by_bus;
	}
	return -1;
}

/* The top verdict so far that blames rank, or NULL.  (transfer none) */
static const struct hd_verdict *blaming(const struct hd_analysis *a, int rank)
{
	const struct hd_verdict *best = NULL;

	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint c = 0; c < v->culprits->len; c++)
			if (g_array_index(v->culprits, int, c) == rank &&
			    (!best || v->score > best->score))
				best = v;
	}
	return best;
}

struct event {
	const struct hd_signal *sig;
	const char *host;
	bool by_name;
	int rank;
	const char *how;
	const struct hd_verdict *blamed;
	const struct xid_info *xid;
	GArray *users; /* ports: the ranks that use it (owned), or NULL */
};

/* More telling first: joined to a blamed rank, then to a rank, then HW. */
static int event_weight(const struct event *e)
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
	return w;
}

static void cite(const struct hd_store *s, struct hd_verdict *v,
		 const struct event *e)
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
	if (e->rank >= 0 && e->sig->pid > 0 &&
	    strcmp(e->how, "by its pid") == 0)
		hd_verdict_add_evidence(
			v, e->rank, NULL,
			"joined to rank %d by its pid (%d on %s)", e->rank,
			e->sig->pid, e->host);
	else if (e->rank >= 0)
		hd_verdict_add_evidence(
			v, e->rank, NULL, "joined to rank %d %s (%s on %s)",
			e->rank, e->how, e->sig->device, e->host);
}

/*
 * What the event is, in words, of a GPU or process that is the rank's
 * ("its") or of none known ("a").  (transfer full)
 */
static char *what(const struct event *e, const char *whose)
{
	const struct hd_signal *sig = e->sig;
	const char *host = e->host ? e->host : "a host the log does not name";

	if (sig->type == HD_SIGT_XID)
		return g_strdup_printf("%s GPU on %s%s%s%s reported Xid %d: %s",
				       whose, host, sig->device ? ", " : "",
				       sig->device ? sig->device : "",
				       sig->device ? "," : "",
				       hd_signal_xid(sig), e->xid->meaning);
	if (sig->type == HD_SIGT_GPU_STATE)
		return g_strdup_printf("%s GPU on %s%s%s%s shows %s", whose,
				       host, sig->device ? ", " : "",
				       sig->device ? sig->device : "",
				       sig->device ? "," : "",
				       sig->text && strchr(sig->text, ':')
					       ? strrchr(sig->text, ':') + 2
					       : "a problem");
	if (sig->type == HD_SIGT_HOST_OOM)
		return g_strdup_printf(
			"the kernel's OOM killer killed %s process %d (%s) on %s",
			whose, sig->pid, sig->op_name ? sig->op_name : "?",
			host);
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
static void cite_counters(const struct hd_store *s, struct hd_verdict *v,
			  const struct event *e)
{
	if (!e->host || e->sig->type == HD_SIGT_XID ||
	    e->sig->type == HD_SIGT_HOST_OOM)
		return;
	for (guint i = 0; i < s->signals->len && v->evidence->len < 8; i++) {
		const struct hd_signal *c = hd_sig_at(s, i);
		g_autofree char *src = NULL;
		bool by_name;
		const char *h;

		if (c == e->sig || c->type != HD_SIGT_IB_COUNTERS ||
		    hd_signal_ib_errors(c) <= 0 || !from_kernel(s, c))
			continue;
		h = event_host(s, c, &by_name);
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
static void add_context(const struct hd_store *s, struct hd_analysis *a,
			const struct event *e, const char *what_text)
{
	struct hd_verdict *top = NULL;
	g_autoptr(GArray) on = NULL;
	g_autofree char *src = NULL;

	if (e->blamed || !e->host)
		return;
	on = ranks_on(s, e->host);
	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		if (!hd_verdict_kind_info(v->kind)->fault ||
		    (top && v->score <= top->score))
			continue;
		for (guint c = 0; c < v->culprits->len; c++)
			for (guint k = 0; k < on->len; k++)
				if (g_array_index(v->culprits, int, c) ==
				    g_array_index(on, int, k))
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

static void verdict_for(const struct hd_store *s, struct hd_analysis *a,
			const struct event *e, guint same)
{
	const struct hd_signal *sig = e->sig;
	enum hd_verdict_kind kind =
		sig->type == HD_SIGT_HOST_OOM ? HD_V_RANK_CRASHED
		: sig->type == HD_SIGT_LINK_EVENT ||
				sig->type == HD_SIGT_IB_COUNTERS ||
				(e->xid && e->xid->cls == XID_NVLINK)
			? HD_V_NETWORK_FAULT
			: HD_V_GPU_FAULT;
	g_autofree char *w = what(e, e->rank >= 0 ? "its" : "a");
	struct hd_verdict *v;

	add_context(s, a, e, w);

	if (e->blamed && e->blamed->kind == kind &&
	    (v = writable(a, e->blamed))) {
		/*
		 * The event explains a verdict of its own kind (a port down
		 * under the rank that saw the first network error): that
		 * verdict states the chain.  A verdict of its own beside it
		 * would be merged into it, and its headline lost.
		 */
		g_autofree char *head =
			g_strndup(v->summary, strcspn(v->summary, ";"));

		g_free(v->summary);
		v->summary = g_strdup_printf("%s: %s", head, w);
		v->confidence = HD_CONF_HIGH;
		v->score += 20.0;
		v->host_event = signal_index(s, sig);
		v->host_event_cause = true;
		if (sig->type == HD_SIGT_XID)
			v->xid = hd_signal_xid(sig);
		cite(s, v, e);
		cite_counters(s, v, e);
		if (same > 1)
			hd_verdict_add_evidence(
				v, -1, NULL,
				"%u kernel events of this kind in all", same);
		hd_verdict_add_ruled_out(
			v,
			"ordering by kernel time: dmesg counts from each host's boot, a clock no other input shares");
		return;
	}
	if (e->blamed) {
		g_autofree char *head = g_strndup(
			e->blamed->summary, strcspn(e->blamed->summary, ";"));

		v = hd_verdict_new(kind, HD_CONF_HIGH, "%s: %s", head, w);
		hd_verdict_copy_place(v, e->blamed);
		v->score = e->blamed->score + 20.0;
	} else if (e->rank >= 0) {
		v = hd_verdict_new(kind, HD_CONF_MEDIUM, "rank %d: %s", e->rank,
				   w);
		/* beside the collectives' verdicts, never above them */
		if (sig->type == HD_SIGT_LINK_EVENT ||
		    sig->type == HD_SIGT_IB_COUNTERS)
			v->score = HD_SCORE_LAGGING - 5.0;
	} else if (e->users && e->users->len) {
		g_autofree char *ur = hd_ranks_text(e->users, 8);

		v = hd_verdict_new(kind, HD_CONF_MEDIUM, "%s; ranks %s use it",
				   w, ur);
		for (guint i = 0; i < e->users->len; i++)
			hd_verdict_add_culprit(v,
					       g_array_index(e->users, int, i));
		v->score = HD_SCORE_LAGGING - 5.0;
	} else if (e->users && e->host) {
		/* a port: say whose host it is, not who used it */
		g_autoptr(GArray) on = ranks_on(s, e->host);
		g_autofree char *hr = on->len ? hd_ranks_text(on, 8) : NULL;

		v = hd_verdict_new(
			kind, HD_CONF_LOW,
			"%s; %s%s%swhich ranks use it NCCL's logs do not show (its NET/IB : Using lines)",
			w, hr ? "ranks " : "", hr ? hr : "",
			hr ? " ran there, but " : "");
		v->score = HD_SCORE_LAGGING - 5.0;
	} else {
		v = hd_verdict_new(
			kind, HD_CONF_LOW,
			"%s; no rank of this job is shown to have used it", w);
		v->score = HD_SCORE_LAGGING - 5.0;
	}
	if (e->rank >= 0)
		hd_verdict_add_culprit(v, e->rank);
	v->xid = sig->type == HD_SIGT_XID ? hd_signal_xid(sig) : 0;
	v->host_event = signal_index(s, sig);
	v->host_event_cause = true;
	cite(s, v, e);
	if (e->blamed)
		hd_verdict_add_evidence(
			v, e->rank, NULL, "and independently (%s): %s",
			hd_verdict_kind_info(e->blamed->kind)->name,
			e->blamed->summary);
	cite_counters(s, v, e);
	if (same > 1)
		hd_verdict_add_evidence(v, -1, NULL,
					"%u kernel events of this kind in all",
					same);
	hd_verdict_add_ruled_out(
		v,
		"ordering by kernel time: dmesg counts from each host's boot, a clock no other input shares");
	g_ptr_array_add(a->verdicts, v);
}

/* Whether text lists HCA port dev ("[0]mlx5_0:1/IB"). */
static bool lists_port(const char *text, const char *dev)
{
	size_t n = strlen(dev);

	for (const char *p = text ? strstr(text, dev) : NULL; p;
	     p = strstr(p + 1, dev))
		if (p > text && p[-1] == ']' &&
		    (p[n] == '/' || p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* The rank of a process NCCL named, by its rank or its host and pid. */
static int rank_of_proc(const struct hd_store *s, const struct hd_signal *sig)
{
	GHashTableIter it;
	gpointer k, v;

	if (sig->rank >= 0)
		return sig->rank;
	if (!sig->host || sig->pid <= 0)
		return -1;
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const struct hd_rank *r = v;

		if (r->host && strcmp(r->host, sig->host) == 0 &&
		    r->pid == sig->pid)
			return r->rank;
	}
	return -1;
}

/*
 * The host of a net_devices signal: its process's, else (an NCCL
 * topology dump, which names a rank and no host) its rank's.
 */
static const char *net_host(const struct hd_store *s,
			    const struct hd_signal *sig)
{
	const struct hd_rank *r;

	if (sig->host || sig->rank < 0)
		return sig->host;
	r = hd_store_find_rank(s, sig->rank);
	return r ? r->host : NULL;
}

/*
 * The ranks on host whose NCCL said it uses HCA port dev, ascending;
 * *topo says whether an NCCL topology dump named one of them.
 */
static GArray *port_users(const struct hd_store *s, const char *host,
			  const char *dev, bool *topo)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));

	*topo = false;
	for (guint i = 0; host && dev && i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		const char *h;
		int r;

		if (sig->type != HD_SIGT_NET_DEVICES ||
		    !lists_port(sig->text, dev))
			continue;
		h = net_host(s, sig);
		if (!h || strcmp(h, host) != 0)
			continue;
		r = rank_of_proc(s, sig);
		if (r < 0)
			continue;
		g_array_append_val(out, r);
		*topo |= hd_store_input(s, sig->prov.input)->kind ==
			 HD_INPUT_NCCL_TOPO;
	}
	g_array_sort(out, hd_compare_int);
	for (guint i = 1; i < out->len;)
		if (g_array_index(out, int, i) ==
		    g_array_index(out, int, i - 1))
			g_array_remove_index(out, i);
		else
			i++;
	return out;
}

/*
 * A port's event joins the rank that uses it and that a network verdict
 * already blames; else the one rank that uses it.  A port does not explain
 * a rank that never entered a collective, so only network_fault counts.
 */
static void join_port(const struct hd_analysis *a, struct event *e)
{
	const struct hd_store *s = a->store;
	bool topo;

	e->users = port_users(s, e->host, e->sig->device, &topo);
	for (guint i = 0; i < e->users->len; i++) {
		int r = g_array_index(e->users, int, i);
		const struct hd_verdict *v = blaming(a, r);

		if (v && v->kind == HD_V_NETWORK_FAULT) {
			e->rank = r;
			e->blamed = v;
			break;
		}
	}
	if (e->rank < 0 && e->users->len == 1)
		e->rank = g_array_index(e->users, int, 0);
	e->how =
		topo ? "by the HCA port its NCCL uses (NET/IB : Using, or "
		       "the NIC nearest its GPU in NCCL's topology dump)"
		     : "by the HCA port its NCCL said it uses (NET/IB : Using)";
}

/*
 * An Xid the GPU survives (a recorded row remapping, a high single-bit
 * ECC rate) stops no process: never a verdict, so a healthy run stays
 * healthy.  On the host of a blamed rank it is context for that verdict;
 * anywhere, a note (the first few).
 */
static void warn_xid(const struct hd_store *s, struct hd_analysis *a,
		     struct event *e, guint nth)
{
	g_autofree char *w = what(e, "a");

	e->blamed = NULL;
	add_context(s, a, e, w);
	if (nth < 4)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"%s: a warning the GPU survives, never taken as the cause of a hang",
				w));
}

static bool is_event(const struct hd_store *s, const struct hd_signal *sig)
{
	if (!from_kernel(s, sig))
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
			g_autoptr(GArray) users =
				port_users(s, event_host(s, sig, &by_name),
					   sig->device, &topo);

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

/*
 * The span of the incident's own records (not host state) on each clock,
 * over every host and, for local wall clocks, per host: where a kernel
 * event's date must fall to be this incident's.
 */
struct spans {
	GHashTable *by; /* "clock|host" or "clock|" -> int64_t[2] */
};

static void span_widen(GHashTable *by, struct hd_time t, const char *host)
{
	for (int k = 0; k < 2; k++) {
		g_autofree char *key = g_strdup_printf("%d|%s", t.clock,
						       k && host ? host : "");
		int64_t *sp;

		if (k && !host)
			break;
		sp = g_hash_table_lookup(by, key);
		if (!sp) {
			sp = g_new(int64_t, 2);
			sp[0] = sp[1] = t.ns;
			g_hash_table_insert(by, g_steal_pointer(&key), sp);
		}
		sp[0] = MIN(sp[0], t.ns);
		sp[1] = MAX(sp[1], t.ns);
	}
}

static void spans_build(const struct hd_store *s, struct spans *sp)
{
	sp->by = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		const char *host = sig->host;

		if (from_kernel(s, sig) || !hd_time_known(sig->time))
			continue;
		if (!host && sig->rank >= 0) {
			const struct hd_rank *r =
				hd_store_find_rank(s, sig->rank);

			host = r ? r->host : NULL;
		}
		span_widen(sp->by, sig->time, host);
	}
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		const struct hd_rank *r;
		struct hd_time t;

		/* an op without an extra record has no time */
		if (!hd_op_has_extra(op))
			continue;
		r = hd_store_find_rank(s, hd_op_rank(op));
		t = hd_op_time(s, op,
			       hd_op_t_start(s, op) != INT64_MIN
				       ? hd_op_t_start(s, op)
				       : hd_op_t_enqueue(s, op));
		if (hd_time_known(t))
			span_widen(sp->by, t, r ? r->host : NULL);
		t = hd_op_time(s, op, hd_op_t_end(s, op));
		if (hd_time_known(t))
			span_widen(sp->by, t, r ? r->host : NULL);
	}
}

/*
 * Whether e's date lies more than an hour (two for a local wall clock,
 * which may have jumped at a DST change) from every record of the
 * incident on its clock: UTC against UTC; local against local, of its
 * own host when the hosts keep different zones.  Boot-relative times and
 * clocks the incident does not share say nothing.  *span: the incident's.
 */
static bool event_stale(const struct hd_store *s, const struct spans *sp,
			const struct event *e, const int64_t **span)
{
	struct hd_time t = e->sig->time;
	bool local = t.clock == HD_CLOCK_LOCAL || t.clock == HD_CLOCK_MONTH_DAY;
	g_autofree char *key = NULL;
	int64_t gap = local ? HD_INCIDENT_GAP_NS + HD_DST_SHIFT_NS
			    : HD_INCIDENT_GAP_NS;

	if (!hd_time_known(t) || (t.clock != HD_CLOCK_UTC && !local))
		return false;
	if (local && s->local_zones_apart && !e->host)
		return false;
	key = g_strdup_printf("%d|%s", t.clock,
			      local && s->local_zones_apart ? e->host : "");
	*span = g_hash_table_lookup(sp->by, key);
	if (!*span)
		return false;
	/* all within 1970..2200 (hd_store_bound()): no overflow */
	return t.ns < (*span)[0] - gap || t.ns > (*span)[1] + gap;
}

static void note_stale(const struct hd_store *s, struct hd_analysis *a,
		       const struct event *e, const int64_t *span, guint *n)
{
	g_autofree char *when = NULL, *lo = NULL, *hi = NULL, *src = NULL;

	if ((*n)++)
		return;
	when = hd_time_format(e->sig->time, 0);
	lo = hd_time_format(hd_time_make(span[0], e->sig->time.clock), 0);
	hi = hd_time_format(hd_time_make(span[1], e->sig->time.clock), 0);
	src = hd_prov_format(s, &e->sig->prov);
	g_ptr_array_add(
		a->notes,
		g_strdup_printf(
			"%s: a host-state event at %s, more than an hour from this incident's records (%s to %s): another incident's, not a cause",
			src, when, lo, hi));
}

static void event_clear(struct event *e)
{
	if (e->users)
		g_array_unref(e->users);
	e->users = NULL;
}

void hd_check_kernel(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct event best = { 0 };
	struct spans sp = { 0 };
	guint same = 0, after = 0, stale = 0, warned = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct event e = { 0 };
		const int64_t *span;

		if (!is_event(s, sig))
			continue;
		e.sig = sig;
		e.rank = -1;
		e.host = event_host(s, sig, &e.by_name);
		if (!sp.by)
			spans_build(s, &sp);
		if (event_stale(s, &sp, &e, &span)) {
			note_stale(s, a, &e, span, &stale);
			continue;
		}
		e.xid = sig->type == HD_SIGT_XID ? xid_info(hd_signal_xid(sig))
						 : NULL;
		if (e.xid && e.xid->cls == XID_AFTER) {
			after++;
			continue;
		}
		if (sig->type == HD_SIGT_LINK_EVENT ||
		    sig->type == HD_SIGT_IB_COUNTERS) {
			join_port(a, &e);
		} else {
			e.rank = join_rank(s, sig, e.host, &e.how);
			e.blamed = e.rank >= 0 ? blaming(a, e.rank) : NULL;
		}
		if (e.xid && e.xid->cls == XID_WARN) {
			warn_xid(s, a, &e, warned++);
			event_clear(&e);
			continue;
		}
		if (!best.sig || event_weight(&e) > event_weight(&best)) {
			event_clear(&best);
			best = e;
		} else {
			event_clear(&e);
		}
	}
	if (sp.by)
		g_hash_table_unref(sp.by);
	if (stale > 1)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"and %u more host-state events far from this incident's records: not causes",
				stale - 1));
	if (after)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"%u Xid 45 report%s in kernel logs (cleanup after an earlier error or a kill): not a cause",
				after, after == 1 ? "" : "s"));
	if (!best.sig)
		return;
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (is_event(s, sig) && sig->type == best.sig->type &&
		    sig->code == best.sig->code)
			same++;
	}
	verdict_for(s, a, &best, same);
	event_clear(&best);
}
