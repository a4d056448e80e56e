/*
 * Causes from the hosts' kernel logs, InfiniBand and GPU state (issue 21):
 * NVRM Xid reports, GPUs lost to their host (nvidia-smi failing, PCIe
 * errors, the driver failing to initialise one), the OOM killer and HCA
 * link changes, joined to ranks and set beside the verdicts the
 * collectives gave; one verdict per cause (a GPU, port or process on one
 * host).
 *
 * A kernel event names a host (from the line, or from the file's name when
 * that is a host the other evidence shows) and a process id, a GPU's PCI
 * bus id or an HCA port.  It is joined to a rank on that host by the bus
 * id NCCL's Init line printed for the rank, else by pid, which the kernel
 * prints in the host's numbering and a container's rank in its own: a pid
 * alone joins only a Python process of one rank, and is a lead (medium)
 * unless another record on the host confirms that numbering.  An event that
 * joins to a rank another check already blames is the cause behind that
 * verdict, and the verdict it gives states the chain; one that joins to no
 * blamed rank is reported for what it is, ranked below the collectives'
 * own verdicts.  Kernel times count from boot: they are never compared
 * with wall clocks, so order across hosts is never taken from them.  An
 * event of another time is noted, never a cause (set_apart()): a record
 * of an earlier boot than the log's last (kernel-log.c keeps it as
 * context), a dated event (dmesg -T, journalctl) more than an hour from
 * all of the incident's own records on its clock (a kernel log of
 * yesterday), and one its rank outlived: seen working a minute after it.
 *
 * What the joins look up (the ranks by host, each input's host from its
 * path, the NET/IB lines, the verdict blaming each rank, each port's
 * users) is built once per run (struct kctx), so that an Xid storm
 * against thousands of ranks costs a lookup per event.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hd-const.h"
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

/*
 * What the joins look up, built once per run so that an Xid storm (one
 * line per channel, hundreds of thousands) against thousands of ranks
 * costs a lookup per event, not a walk over every rank.
 */
struct kctx {
	const struct hd_store *s;
	struct hd_analysis *a; /* NULL outside hd_check_kernel() */
	/* host -> GPtrArray of const struct hd_rank *, by rank */
	GHashTable *by_host;
	/* input index + 1 -> the host its path names, or "" none */
	GHashTable *path_host;
	GPtrArray *net; /* the NET_DEVICES signals; NULL until used */
	/* rank -> the top verdict blaming it, filled on first use */
	GHashTable *blamed;
	/* "host\tport" -> struct port_memo */
	GHashTable *ports;
};

struct port_memo {
	GArray *users; /* int, ascending */
	bool topo;
};

static void port_memo_free(gpointer p)
{
	struct port_memo *m = p;

	g_array_unref(m->users);
	g_free(m);
}

static void kctx_init(struct kctx *k, const struct hd_store *s,
		      struct hd_analysis *a)
{
	GHashTableIter it;
	gpointer key, v;

	k->s = s;
	k->a = a;
	k->by_host = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
					   (GDestroyNotify)g_ptr_array_unref);
	k->path_host = g_hash_table_new(g_direct_hash, g_direct_equal);
	k->net = NULL;
	k->blamed = NULL;
	k->ports = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 port_memo_free);
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &key, &v)) {
		struct hd_rank *r = v;
		GPtrArray *on;

		if (!r->host)
			continue;
		on = g_hash_table_lookup(k->by_host, r->host);
		if (!on) {
			on = g_ptr_array_new();
			g_hash_table_insert(k->by_host, hd_unconst(r->host),
					    on);
		}
		g_ptr_array_add(on, r);
	}
	g_hash_table_iter_init(&it, k->by_host);
	while (g_hash_table_iter_next(&it, &key, &v))
		g_ptr_array_sort(v, hd_compare_rank_ptr);
}

static void kctx_clear(struct kctx *k)
{
	g_hash_table_unref(k->by_host);
	g_hash_table_unref(k->path_host);
	if (k->net)
		g_ptr_array_unref(k->net);
	if (k->blamed)
		g_hash_table_unref(k->blamed);
	g_hash_table_unref(k->ports);
}

/* The ranks that ran on host, by rank, or NULL.  (transfer none) */
static const GPtrArray *on_host(const struct kctx *k, const char *host)
{
	return host ? g_hash_table_lookup(k->by_host, host) : NULL;
}

/* The ranks that ran on host, ascending.  (transfer full) */
static GArray *ranks_on(const struct kctx *k, const char *host)
{
	const GPtrArray *on = on_host(k, host);
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));

	for (guint i = 0; on && i < on->len; i++)
		g_array_append_val(
			out, ((const struct hd_rank *)g_ptr_array_index(on, i))
				     ->rank);
	return out;
}

/* Whether some rank ran on host. */
static bool known_host(const struct kctx *k, const char *host)
{
	return on_host(k, host) != NULL;
}

/*
 * The host of a kernel event: the one its line names, else a part of its
 * file's path that names a host the ranks ran on ("hosts/node-b/dmesg",
 * "node-b.dmesg").  *by_name says it came from the path.
 */
static const char *event_host(const struct kctx *k, const struct hd_signal *sig,
			      bool *by_name)
{
	const struct hd_input *in = hd_store_input(k->s, sig->prov.input);
	gpointer key = GUINT_TO_POINTER(sig->prov.input + 1);
	const char *found = g_hash_table_lookup(k->path_host, key);
	g_auto(GStrv) parts = NULL;

	*by_name = false;
	if (sig->host)
		return sig->host;
	if (!found) {
		found = "";
		parts = in->path ? g_strsplit(in->path, "/", -1) : NULL;
		for (guint i = 0; parts && parts[i]; i++) {
			char *dot = strchr(parts[i], '.');

			if (dot && parts[i + 1] == NULL)
				*dot = '\0'; /* "node-b.dmesg.txt" -> "node-b" */
			if (parts[i][0] && known_host(k, parts[i]))
				found = hd_intern(parts[i]); /* the deepest */
		}
		g_hash_table_insert(k->path_host, key, hd_unconst(found));
	}
	if (!found[0])
		return NULL;
	*by_name = true;
	return found;
}

const char *hd_host_event_host(const struct hd_store *s,
			       const struct hd_signal *sig)
{
	struct kctx k;
	const char *host;
	bool by_name;

	if (sig->host)
		return sig->host;
	kctx_init(&k, s, NULL);
	host = event_host(&k, sig, &by_name);
	kctx_clear(&k);
	return host;
}

/* One host event and what it joins. */
struct event {
	const struct hd_signal *sig;
	const char *host;
	bool by_name;
	int rank;
	const char *how; /* a port's join, in words */
	/* a GPU's or process's join: by the GPU's bus id, by the pid (with
	   the bus id, or alone), and whether a pid alone is confirmed */
	bool by_bus, by_pid, pid_sure;
	/* about every GPU of its host (no device): users are the host's
	   ranks, and rank the one a verdict blames, if any */
	bool host_wide;
	char *declined; /* why its pid joined no rank (owned), or NULL */
	const struct hd_verdict *blamed;
	const struct xid_info *xid;
	GArray *users; /* ports: the ranks that use it (owned), or NULL */
};

/* Whether e rests on a join a person may act on without doubt. */
static bool join_sure(const struct event *e)
{
	if (e->host_wide)
		return e->rank < 0;
	return e->rank < 0 || e->by_bus || e->users || e->pid_sure;
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

/* The one rank on host whose GPU has bus id dev, else -1. */
static int bus_rank_on(const struct kctx *k, const char *host, const char *dev)
{
	const GPtrArray *on = dev ? on_host(k, host) : NULL;
	int found = -1;
	guint n = 0;

	for (guint i = 0; on && i < on->len; i++) {
		const struct hd_rank *r = g_ptr_array_index(on, i);

		if (same_bus(r->bus_id, dev)) {
			found = r->rank;
			n++;
		}
	}
	return n == 1 ? found : -1;
}

/* The ranks on host whose process had pid, ascending.  (transfer full) */
static GArray *pid_ranks_on(const struct kctx *k, const char *host, int32_t pid)
{
	const GPtrArray *on = pid > 0 ? on_host(k, host) : NULL;
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));

	for (guint i = 0; on && i < on->len; i++) {
		const struct hd_rank *r = g_ptr_array_index(on, i);

		if (r->pid == pid)
			g_array_append_val(out, r->rank);
	}
	return out;
}

/*
 * Whether a process the kernel named could be a rank's: PyTorch ranks
 * are Python processes ("python3", "python3.11"), whose main thread
 * PyTorch names "pt_main_thread".
 */
static bool name_fits(const char *name)
{
	return name && (g_str_has_prefix(name, "python") ||
			g_str_has_prefix(name, "pt_"));
}

/*
 * Whether the kernel's numbering of processes on host is rank's own: a
 * kernel record there names rank's GPU by its bus id and rank's pid.
 * A container numbers its processes apart from its host, and the kernel
 * prints the host's numbers; only such a record shows they are one.
 */
static bool pid_confirmed(struct kctx *k, const char *host, int rank,
			  int32_t pid)
{
	const struct hd_store *s = k->s;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		bool by_name;

		if (sig->type != HD_SIGT_XID || sig->pid != pid ||
		    !sig->device || !from_kernel(s, sig) ||
		    event_host(k, sig, &by_name) != host)
			continue;
		if (bus_rank_on(k, host, sig->device) == rank)
			return true;
	}
	return false;
}

/*
 * Joins a kernel event (an Xid, an OOM kill, a GPU's state) to the rank
 * on its host whose GPU it names (by NCCL's busId), else whose pid it
 * names.  The kernel prints the host's pids, and NCCL and PyTorch in a
 * container print the container's: a pid joins only when it is one
 * rank's on that host, the kernel's name for the process is a Python
 * trainer's, and the kill was not in a container's cgroup; a join by
 * pid alone is sure (e->pid_sure) only when another record on the host
 * confirms that numbering.  Why a pid joined nothing goes to
 * e->declined.
 */
static void join_rank(const struct kctx *k, struct event *e)
{
	const struct hd_store *s = k->s;
	const struct hd_signal *sig = e->sig;
	g_autoptr(GArray) with = NULL;
	int by_bus, by_pid = -1;

	e->rank = -1;
	if (!e->host) {
		g_autofree char *hosts = NULL;
		g_autofree char *who =
			hd_sig_pid_ranks(s, sig->pid, NULL, &hosts);

		if (who)
			e->declined = g_strdup_printf(
				"pid %d is %s%s%s%s in the job's logs, and the kernel log names no host: joined to neither",
				sig->pid, who, hosts ? " (on " : "",
				hosts ? hosts : "", hosts ? ")" : "");
		return;
	}
	by_bus = bus_rank_on(k, e->host, sig->device);
	with = pid_ranks_on(k, e->host, sig->pid);
	if (with->len > 1) {
		g_autofree char *who =
			hd_sig_pid_ranks(s, sig->pid, e->host, NULL);

		e->declined = g_strdup_printf(
			"pid %d on %s is %s in the job's logs (containers number their processes alike): joined to neither by it",
			sig->pid, e->host, who ? who : "several ranks");
	} else if (with->len == 1) {
		int r = g_array_index(with, int, 0);

		if (sig->type == HD_SIGT_HOST_OOM &&
		    hd_signal_oom_cgroup(sig) == HD_OOM_CGROUP_CONTAINER)
			e->declined = g_strdup_printf(
				"pid %d on %s is rank %d's in the job's logs, but the killed process was in a container (its cgroup, on the line before), and the kernel prints the host's pid, not the container's: not joined by it",
				sig->pid, e->host, r);
		else if (!name_fits(sig->op_name))
			e->declined = g_strdup_printf(
				"pid %d on %s is rank %d's in the job's logs, but the kernel names that process %s%s%s, not a Python trainer; the kernel prints the host's pids, and a container's own differ: not joined by it",
				sig->pid, e->host, r, sig->op_name ? "'" : "",
				sig->op_name ? sig->op_name : "not at all",
				sig->op_name ? "'" : "");
		else
			by_pid = r;
	}
	if (by_bus >= 0) {
		e->rank = by_bus;
		e->by_bus = true;
		e->by_pid = by_pid == by_bus;
		if (by_pid >= 0 && by_pid != by_bus) {
			g_free(e->declined);
			e->declined = g_strdup_printf(
				"its pid %d is rank %d's on %s in the job's logs, but the GPU is rank %d's: joined by the GPU",
				sig->pid, by_pid, e->host, by_bus);
		}
	} else if (by_pid >= 0) {
		/* pid_sure is the caller's: pid_confirmed() reads every
		   signal, so only for the events that become verdicts */
		e->rank = by_pid;
		e->by_pid = true;
	}
}

/*
 * The top verdict the checks before this one gave that blames rank, or
 * NULL.  (transfer none)
 */
static const struct hd_verdict *blaming(struct kctx *k, int rank)
{
	if (!k->blamed) {
		k->blamed = g_hash_table_new(g_direct_hash, g_direct_equal);
		for (guint i = 0; i < k->a->verdicts->len; i++) {
			const struct hd_verdict *v =
				g_ptr_array_index(k->a->verdicts, i);

			for (guint c = 0; c < v->culprits->len; c++) {
				gpointer r = GINT_TO_POINTER(
					g_array_index(v->culprits, int, c));
				const struct hd_verdict *best =
					g_hash_table_lookup(k->blamed, r);

				if (!best || v->score > best->score)
					g_hash_table_insert(k->blamed, r,
							    hd_unconst(v));
			}
		}
	}
	return g_hash_table_lookup(k->blamed, GINT_TO_POINTER(rank));
}

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
	/* of one GPU, its Xid says most ("fell off the bus", beside the
	   PCIe error before it) */
	if (e->sig->type == HD_SIGT_XID)
		w += 1;
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

/*
 * Whether sig is about a host's GPUs and names none: nvidia-smi found no
 * GPU, or the driver could not initialise one it does not name.
 */
static bool host_level(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_GPU_STATE && !sig->device &&
	       (hd_signal_gpu_problems(sig) &
		(HD_GPU_LOST | HD_GPU_INIT_FAILED));
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
static char *what(const struct event *e, const char *whose,
		  const struct hd_store *s)
{
	const struct hd_signal *sig = e->sig;
	/* without a host, the file tells two hosts' events apart */
	g_autofree char *unnamed =
		g_strdup_printf("the host of %s (its lines name none)",
				hd_store_input(s, sig->prov.input)->path);
	const char *host = e->host ? e->host : unnamed;

	if (sig->type == HD_SIGT_XID)
		return g_strdup_printf("%s GPU on %s%s%s%s reported Xid %d: %s",
				       whose, host, sig->device ? ", " : "",
				       sig->device ? sig->device : "",
				       sig->device ? "," : "",
				       hd_signal_xid(sig), e->xid->meaning);
	if (host_level(sig))
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
static void cite_counters(const struct kctx *k, struct hd_verdict *v,
			  const struct event *e)
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
		    hd_signal_ib_errors(c) <= 0 || !from_kernel(s, c))
			continue;
		h = event_host(k, c, &by_name);
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
static void add_context(const struct kctx *k, struct hd_analysis *a,
			const struct event *e, const char *what_text)
{
	const struct hd_store *s = k->s;
	struct hd_verdict *top = NULL;
	g_autoptr(GArray) on = NULL;
	g_autofree char *src = NULL;

	if (e->blamed || !e->host)
		return;
	on = ranks_on(k, e->host);
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
static enum hd_verdict_kind event_kind(const struct event *e)
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

static void verdict_for(const struct kctx *k, struct hd_analysis *a,
			const struct event *e, guint same)
{
	const struct hd_store *s = k->s;
	const struct hd_signal *sig = e->sig;
	enum hd_verdict_kind kind = event_kind(e);
	g_autofree char *w = what(e, e->rank >= 0 ? "its" : "a", s);
	struct hd_verdict *v;

	add_context(k, a, e, w);

	if (e->blamed && e->blamed->kind == kind &&
	    (!join_sure(e) || e->blamed->host_event_cause) &&
	    (v = writable(a, e->blamed))) {
		/*
		 * A pid alone may be another process's (a container numbers
		 * its own), and a verdict that already states one host
		 * event's chain keeps it: evidence beside the verdict, never
		 * its headline.
		 */
		cite(s, v, e);
		return;
	}
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
		cite_counters(k, v, e);
		if (same > 1)
			hd_verdict_add_evidence(
				v, -1, NULL,
				"%u host records of this cause in all (the same GPU, port or process)",
				same);
		hd_verdict_add_ruled_out(
			v,
			"ordering by kernel time: dmesg counts from each host's boot, a clock no other input shares");
		return;
	}
	if (e->blamed) {
		g_autofree char *head = g_strndup(
			e->blamed->summary, strcspn(e->blamed->summary, ";"));

		/* a pid alone states the chain, but only as a lead */
		v = hd_verdict_new(kind,
				   join_sure(e) ? HD_CONF_HIGH : HD_CONF_MEDIUM,
				   "%s: %s", head, w);
		hd_verdict_copy_place(v, e->blamed);
		v->score = e->blamed->score + 20.0;
	} else if (e->rank >= 0) {
		v = hd_verdict_new(kind, HD_CONF_MEDIUM, "rank %d: %s", e->rank,
				   w);
		/* beside the collectives' verdicts, never above them: a
		   port, or a process joined by a pid alone */
		if (sig->type == HD_SIGT_LINK_EVENT ||
		    sig->type == HD_SIGT_IB_COUNTERS || !join_sure(e))
			v->score = HD_SCORE_LAGGING - 5.0;
	} else if (e->users && e->users->len) {
		g_autofree char *ur = hd_ranks_text(e->users, 8);

		v = hd_verdict_new(kind, HD_CONF_MEDIUM, "%s; ranks %s %s", w,
				   ur, e->host_wide ? "ran there" : "use it");
		for (guint i = 0; i < e->users->len; i++)
			hd_verdict_add_culprit(v,
					       g_array_index(e->users, int, i));
		v->score = HD_SCORE_LAGGING - 5.0;
	} else if (e->users && e->host) {
		/* a port: say whose host it is, not who used it */
		g_autoptr(GArray) on = ranks_on(k, e->host);
		g_autofree char *hr = on->len ? hd_ranks_text(on, 8) : NULL;

		v = hd_verdict_new(
			kind, HD_CONF_LOW,
			"%s; %s%s%swhich ranks use it NCCL's logs do not show (its NET/IB : Using lines)",
			w, hr ? "ranks " : "", hr ? hr : "",
			hr ? " ran there, but " : "");
		v->score = HD_SCORE_LAGGING - 5.0;
	} else {
		v = hd_verdict_new(kind, HD_CONF_LOW,
				   "%s; no rank of this job is shown to %s", w,
				   sig->type == HD_SIGT_HOST_OOM
					   ? "be that process"
					   : "have used it");
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
	cite_counters(k, v, e);
	if (same > 1)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u host records of this cause in all (the same GPU, port or process)",
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
static int rank_of_proc(const struct kctx *k, const struct hd_signal *sig)
{
	const GPtrArray *on;

	if (sig->rank >= 0)
		return sig->rank;
	if (sig->pid <= 0)
		return -1;
	on = on_host(k, sig->host);
	for (guint i = 0; on && i < on->len; i++) {
		const struct hd_rank *r = g_ptr_array_index(on, i);

		if (r->pid == sig->pid)
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
static GArray *port_users(struct kctx *k, const char *host, const char *dev,
			  bool *topo)
{
	const struct hd_store *s = k->s;
	g_autofree char *key = NULL;
	struct port_memo *m;
	GArray *out;

	*topo = false;
	if (!host || !dev)
		return g_array_new(FALSE, FALSE, sizeof(int));
	/* a port that flaps is asked about once per flap: walk once */
	key = g_strdup_printf("%s\t%s", host, dev);
	m = g_hash_table_lookup(k->ports, key);
	if (m) {
		*topo = m->topo;
		return g_array_ref(m->users);
	}
	if (!k->net) {
		k->net = g_ptr_array_new();
		for (guint i = 0; i < s->signals->len; i++)
			if (hd_sig_at(s, i)->type == HD_SIGT_NET_DEVICES)
				g_ptr_array_add(k->net,
						hd_unconst(hd_sig_at(s, i)));
	}
	out = g_array_new(FALSE, FALSE, sizeof(int));
	for (guint i = 0; i < k->net->len; i++) {
		const struct hd_signal *sig = g_ptr_array_index(k->net, i);
		const char *h;
		int r;

		if (!lists_port(sig->text, dev))
			continue;
		h = net_host(s, sig);
		if (!h || strcmp(h, host) != 0)
			continue;
		r = rank_of_proc(k, sig);
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
	m = g_new(struct port_memo, 1);
	m->users = g_array_ref(out);
	m->topo = *topo;
	g_hash_table_insert(k->ports, g_steal_pointer(&key), m);
	return out;
}

/*
 * A port's event joins the rank that uses it and that a network verdict
 * already blames; else the one rank that uses it.  A port does not explain
 * a rank that never entered a collective, so only network_fault counts.
 */
static void join_port(struct kctx *k, struct event *e)
{
	bool topo;

	e->users = port_users(k, e->host, e->sig->device, &topo);
	for (guint i = 0; i < e->users->len; i++) {
		int r = g_array_index(e->users, int, i);
		const struct hd_verdict *v = blaming(k, r);

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
 * A host event that is never a cause: context beside a verdict on its
 * host, and a note saying why (the first few, nth counting them).
 */
static void context_note(const struct kctx *k, struct hd_analysis *a,
			 const struct event *e, const char *w, guint nth,
			 const char *why)
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
static void warn_xid(const struct kctx *k, struct hd_analysis *a,
		     struct event *e, guint nth)
{
	g_autofree char *w = what(e, "a", k->s);

	e->blamed = NULL;
	context_note(
		k, a, e, w, nth,
		"a warning the GPU survives, never taken as the cause of a hang");
}

static bool is_event(struct kctx *k, const struct hd_signal *sig)
{
	if (!from_kernel(k->s, sig))
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
				port_users(k, event_host(k, sig, &by_name),
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

/*
 * Whether sig, an event here, is a kernel log's record of an earlier boot
 * than the log's last: kernel-log.c keeps those as context (HD_SIG_INFO),
 * and its only other context records, links coming up, are no events.
 * (InfiniBand state keeps a disabled port as context too, and that may be
 * an event: only kernel logs show boots.)
 */
static bool of_earlier_boot(const struct hd_store *s,
			    const struct hd_signal *sig)
{
	return sig->cat == HD_SIG_INFO &&
	       hd_store_input(s, sig->prov.input)->kind == HD_INPUT_KERNEL_LOG;
}

/*
 * Whether a host event, joined as far as it joins, is of another time
 * than this incident, so never a cause; the first such event gets a note
 * saying why, the rest are counted in *n.  One question with three
 * answers, each from records the event shares a clock or a file with:
 * - of an earlier boot: its kernel log shows the host booted again after
 *   it (of_earlier_boot());
 * - another incident's: dated more than an hour from every record of
 *   this incident on its clock (event_stale());
 * - outlived: the rank it joins was seen working more than a minute after
 *   it, on a clock both compare on (hd_sig_outlived()).
 */
static bool set_apart(const struct kctx *k, struct hd_index *ix,
		      const struct spans *sp, const struct event *e, guint *n)
{
	const struct hd_store *s = k->s;
	const int64_t *span = NULL;
	struct hd_time last = hd_time_none();
	g_autofree char *src = NULL, *when = NULL, *why = NULL;

	if (of_earlier_boot(s, e->sig)) {
		if (!(*n)++)
			why = g_strdup(
				"of an earlier boot: its log shows the host booted again after it");
	} else if (event_stale(s, sp, e, &span)) {
		if (!(*n)++) {
			g_autofree char *lo = hd_time_format(
				hd_time_make(span[0], e->sig->time.clock), 0);
			g_autofree char *hi = hd_time_format(
				hd_time_make(span[1], e->sig->time.clock), 0);

			why = g_strdup_printf(
				"more than an hour from this incident's records (%s to %s): another incident's",
				lo, hi);
		}
	} else if (e->rank >= 0 &&
		   hd_sig_outlived(ix, e->sig, e->rank, &last)) {
		if (!(*n)++) {
			g_autofree char *later = hd_time_format(last, 0);

			why = g_strdup_printf(
				"joined to rank %d, which was seen working at %s, after it: the rank outlived it",
				e->rank, later);
		}
	} else {
		return false;
	}
	if (!why)
		return true;
	src = hd_prov_format(s, &e->sig->prov);
	when = hd_time_known(e->sig->time) ? hd_time_format(e->sig->time, 0)
					   : NULL;
	g_ptr_array_add(
		k->a->notes,
		g_strdup_printf("%s: a host-state event%s%s, %s: not a cause",
				src, when ? " at " : "", when ? when : "",
				why));
	return true;
}

static void event_clear(struct event *e)
{
	if (e->users)
		g_array_unref(e->users);
	e->users = NULL;
	g_clear_pointer(&e->declined, g_free);
}

/* "host|0000:3b:00", or "#3|0000:3b:00" for input 3 of no host. */
#define WHERE_KEY_MAX 320

static const char *where_key(const struct event *e, char *buf)
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
static GHashTable *gpus_named(const struct kctx *k)
{
	const struct hd_store *s = k->s;
	GHashTable *out =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char buf[WHERE_KEY_MAX];

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct event e = { .sig = sig };

		if (!sig->device || !from_kernel(s, sig) ||
		    (sig->type != HD_SIGT_XID &&
		     (sig->type != HD_SIGT_GPU_STATE ||
		      (hd_signal_gpu_problems(sig) & HD_GPU_NOT_GPU))))
			continue;
		e.host = event_host(k, sig, &e.by_name);
		g_hash_table_add(out, g_strdup(where_key(&e, buf)));
	}
	return out;
}

/*
 * A PCIe port's uncorrected error about a device no input shows to be a
 * GPU: never a GPU's fault, but context on its host and a note (the
 * first few).
 */
static void not_gpu(const struct kctx *k, struct hd_analysis *a,
		    struct event *e, guint nth)
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
	struct event lead; /* the most telling of them */
	guint count;
	guint joined;
	guint first; /* the index of its first signal, for the order */
};

/* "host|kind|device" or "host|kind|pid"; a file stands for no host. */
static char *cause_key(const struct event *e)
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

/*
 * An event about every GPU of its host (nvidia-smi found none): the
 * host's ranks use it, and it joins the one a verdict blames (the top
 * such verdict's), as a lead: which GPU failed is not shown.
 */
static void join_host(struct kctx *k, struct event *e)
{
	const struct hd_verdict *best = NULL;

	e->host_wide = true;
	if (!e->host)
		return;
	e->users = ranks_on(k, e->host);
	if (!e->users->len) {
		g_clear_pointer(&e->users, g_array_unref);
		return;
	}
	for (guint i = 0; i < e->users->len; i++) {
		int r = g_array_index(e->users, int, i);
		const struct hd_verdict *v = blaming(k, r);

		if (v && (!best || v->score > best->score)) {
			best = v;
			e->rank = r;
		}
	}
	e->blamed = best;
}

/* Joins e to a rank, as its kind of event is joined. */
static void join_event(struct kctx *k, struct event *e)
{
	if (e->sig->type == HD_SIGT_LINK_EVENT ||
	    e->sig->type == HD_SIGT_IB_COUNTERS) {
		join_port(k, e);
	} else if (host_level(e->sig)) {
		join_host(k, e);
	} else {
		join_rank(k, e);
		e->blamed = e->rank >= 0 ? blaming(k, e->rank) : NULL;
	}
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
	struct spans sp = { 0 };
	struct kctx k;
	guint after = 0, apart = 0, warned = 0, not_gpus = 0;
	char wk[WHERE_KEY_MAX];

	kctx_init(&k, s, a);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		struct event e = { 0 };
		struct cause *c = NULL;
		g_autofree char *key = NULL;
		gpointer slot;
		bool warn, other;

		if (!is_event(&k, sig))
			continue;
		e.sig = sig;
		e.rank = -1;
		e.host = event_host(&k, sig, &e.by_name);
		e.xid = sig->type == HD_SIGT_XID ? xid_info(hd_signal_xid(sig))
						 : NULL;
		if (e.xid && e.xid->cls == XID_AFTER) {
			after++;
			continue;
		}
		if (!sp.by) {
			spans_build(s, &sp);
			gpus = gpus_named(&k);
		}
		warn = e.xid && e.xid->cls == XID_WARN;
		/* a PCIe error about a device no input shows to be a GPU */
		other = !warn && sig->type == HD_SIGT_GPU_STATE &&
			(hd_signal_gpu_problems(sig) & HD_GPU_NOT_GPU) &&
			bus_rank_on(&k, e.host, sig->device) < 0 &&
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
			join_event(&k, &e);
		if (set_apart(&k, ix, &sp, &e, &apart)) {
			event_clear(&e);
			continue;
		}
		if (warn) {
			warn_xid(&k, a, &e, warned++);
			event_clear(&e);
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
			event_clear(&c->lead);
			c->lead = e;
		} else {
			event_clear(&e);
		}
	}
	if (sp.by)
		g_hash_table_unref(sp.by);
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

		if (i < KERNEL_MAX_CAUSES) {
			if (c->lead.by_pid && !c->lead.by_bus)
				c->lead.pid_sure = pid_confirmed(
					&k, c->lead.host, c->lead.rank,
					c->lead.sig->pid);
			verdict_for(&k, a, &c->lead, c->count);
			if (c->lead.host)
				g_hash_table_add(hosts, (gpointer)hd_unconst(
								c->lead.host));
		}
		event_clear(&c->lead);
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
	kctx_clear(&k);
}
