/*
 * Host-state events joined to ranks: the host an event names, the rank on
 * it whose GPU (by NCCL's busId) or process (by pid) it names, the ranks
 * whose NCCL uses a port, and the verdict that already blames each rank.
 * The kernel prints the host's pids, and NCCL and PyTorch in a container
 * print the container's: a pid alone joins only a Python process of one
 * rank, and is a lead unless another record on the host confirms that
 * numbering.  See hd-host-join.h.
 */
#include "config.h"

#include <string.h>

#include "hd-const.h"
#include "hd-host-join.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

bool hd_host_from_state(const struct hd_store *s, const struct hd_signal *sig)
{
	enum hd_input_kind k;

	if (sig->prov.input >= s->inputs->len)
		return false;
	k = hd_store_input(s, sig->prov.input)->kind;
	return hd_input_kind_flags(k) & HD_KIND_HOST_STATE;
}

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

void hd_host_ctx_init(struct hd_host_ctx *k, const struct hd_store *s,
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

void hd_host_ctx_clear(struct hd_host_ctx *k)
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
static const GPtrArray *on_host(const struct hd_host_ctx *k, const char *host)
{
	return host ? g_hash_table_lookup(k->by_host, host) : NULL;
}

/* The ranks that ran on host, ascending.  (transfer full) */
GArray *hd_host_ranks_on(const struct hd_host_ctx *k, const char *host)
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
static bool known_host(const struct hd_host_ctx *k, const char *host)
{
	return on_host(k, host) != NULL;
}

/*
 * The host of a kernel event: the one its line names, else a part of its
 * file's path that names a host the ranks ran on ("hosts/node-b/dmesg",
 * "node-b.dmesg").  *by_name says it came from the path.
 */
const char *hd_host_of(const struct hd_host_ctx *k, const struct hd_signal *sig,
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
	struct hd_host_ctx k;
	const char *host;
	bool by_name;

	if (sig->host)
		return sig->host;
	hd_host_ctx_init(&k, s, NULL);
	host = hd_host_of(&k, sig, &by_name);
	hd_host_ctx_clear(&k);
	return host;
}

/* Whether e rests on a join a person may act on without doubt. */
bool hd_host_join_sure(const struct hd_host_event *e)
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
int hd_host_bus_rank(const struct hd_host_ctx *k, const char *host,
		     const char *dev)
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
static GArray *pid_ranks_on(const struct hd_host_ctx *k, const char *host,
			    int32_t pid)
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
bool hd_host_pid_confirmed(struct hd_host_ctx *k, const char *host, int rank,
			   int32_t pid)
{
	const struct hd_store *s = k->s;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		bool by_name;

		if (sig->type != HD_SIGT_XID || sig->pid != pid ||
		    !sig->device || !hd_host_from_state(s, sig) ||
		    hd_host_of(k, sig, &by_name) != host)
			continue;
		if (hd_host_bus_rank(k, host, sig->device) == rank)
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
static void join_rank(const struct hd_host_ctx *k, struct hd_host_event *e)
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
	by_bus = hd_host_bus_rank(k, e->host, sig->device);
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
		/* pid_sure is the caller's: hd_host_pid_confirmed() reads every
		   signal, so only for the events that become verdicts */
		e->rank = by_pid;
		e->by_pid = true;
	}
}

/*
 * The top verdict the checks before this one gave that blames rank, or
 * NULL.  (transfer none)
 */
const struct hd_verdict *hd_host_blaming(struct hd_host_ctx *k, int rank)
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

/*
 * Whether sig is about a host's GPUs and names none: nvidia-smi found no
 * GPU, or the driver could not initialise one it does not name.
 */
bool hd_host_level(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_GPU_STATE && !sig->device &&
	       (hd_signal_gpu_problems(sig) &
		(HD_GPU_LOST | HD_GPU_INIT_FAILED));
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
static int rank_of_proc(const struct hd_host_ctx *k,
			const struct hd_signal *sig)
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
 * The ranks on host whose NCCL said it uses HCA port dev, ascending;
 * *topo says whether an NCCL topology dump named one of them.
 */
GArray *hd_host_port_users(struct hd_host_ctx *k, const char *host,
			   const char *dev, bool *topo)
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
		/* an NCCL topology dump names a rank and no host */
		h = hd_sig_host(s, sig);
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
static void join_port(struct hd_host_ctx *k, struct hd_host_event *e)
{
	bool topo;

	e->users = hd_host_port_users(k, e->host, e->sig->device, &topo);
	for (guint i = 0; i < e->users->len; i++) {
		int r = g_array_index(e->users, int, i);
		const struct hd_verdict *v = hd_host_blaming(k, r);

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

void hd_host_event_clear(struct hd_host_event *e)
{
	if (e->users)
		g_array_unref(e->users);
	e->users = NULL;
	g_clear_pointer(&e->declined, g_free);
}

/*
 * An event about every GPU of its host (nvidia-smi found none): the
 * host's ranks use it, and it joins the one a verdict blames (the top
 * such verdict's), as a lead: which GPU failed is not shown.
 */
static void join_host(struct hd_host_ctx *k, struct hd_host_event *e)
{
	const struct hd_verdict *best = NULL;

	e->host_wide = true;
	if (!e->host)
		return;
	e->users = hd_host_ranks_on(k, e->host);
	if (!e->users->len) {
		g_clear_pointer(&e->users, g_array_unref);
		return;
	}
	for (guint i = 0; i < e->users->len; i++) {
		int r = g_array_index(e->users, int, i);
		const struct hd_verdict *v = hd_host_blaming(k, r);

		if (v && (!best || v->score > best->score)) {
			best = v;
			e->rank = r;
		}
	}
	e->blamed = best;
}

/* Joins e to a rank, as its kind of event is joined. */
void hd_host_join(struct hd_host_ctx *k, struct hd_host_event *e)
{
	if (e->sig->type == HD_SIGT_LINK_EVENT ||
	    e->sig->type == HD_SIGT_IB_COUNTERS) {
		join_port(k, e);
	} else if (hd_host_level(e->sig)) {
		join_host(k, e);
	} else {
		join_rank(k, e);
		e->blamed = e->rank >= 0 ? hd_host_blaming(k, e->rank) : NULL;
	}
}
