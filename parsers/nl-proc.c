/*
 * The NCCL log parser's processes and their communicators (nl-proc.h):
 * processes by host:pid and life, comms by pointer, their groups, and the
 * NCCL version a process is recorded with.
 */
#include "config.h"

#include "nl-proc.h"

#include <string.h>

#include "nl-scan.h"
#include "hd-const.h"
#include "hd-hash.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's own state. */
#define NL_MAX_PROCS (1 << 20)

static void proc_free(gpointer data)
{
	struct nl_proc *p = data;

	g_hash_table_destroy(p->live);
	g_ptr_array_free(p->comms, TRUE);
	g_hash_table_destroy(p->nth);
	g_free(p);
}

static void comm_free(gpointer data)
{
	struct nl_comm *cm = data;

	g_free(cm->ops);
	g_free(cm);
}

struct nl_proc *nl_proc_get(struct nl_ctx *c, const char *host, size_t host_len,
			    int pid)
{
	char key[160];
	struct nl_proc **slot = &c->proc_cache[(unsigned)pid % NL_PROC_CACHE];
	struct nl_proc *p = *slot;

	/* interleaved processes: a direct-mapped cache by pid */
	if (p && p->pid == pid && p->host_len == host_len &&
	    memcmp(p->host, host, host_len) == 0)
		return p;
	g_snprintf(key, sizeof(key), "%.*s:%d", (int)MIN(host_len, 128), host,
		   pid);
	p = g_hash_table_lookup(c->procs_by_key, key);
	if (!p) {
		if (c->procs->len >= NL_MAX_PROCS)
			return NULL;
		p = g_new0(struct nl_proc, 1);
		p->index = c->procs->len;
		p->host = hd_intern_len(host, MIN(host_len, 128));
		p->host_len = MIN(host_len, 128);
		p->pid = pid;
		p->c10d_rank = p->hint_rank = p->tag_rank = -1;
		p->world_rank = p->world_dev = p->rank = -1;
		p->dev = p->anon = -1;
		p->live = g_hash_table_new_full(hd_int64_hash, hd_int64_equal,
						g_free, NULL);
		p->comms = g_ptr_array_new_with_free_func(comm_free);
		p->nth = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       NULL);
		g_ptr_array_add(c->procs, p);
		g_hash_table_insert(c->procs_by_key, g_strdup(key), p);
	}
	if (p->host_len == host_len)
		*slot = p;
	return p;
}

/*
 * Whether p's process life may have ended: it tore a comm down, logged a
 * WARN or ABORT, or torchrun restarted the workers since it began.  A
 * restart that reuses the pid (pid 1 in a container) goes on in the same
 * host:pid.  A watchdog timeout alone is not enough: a log appended to
 * itself (appended-self) repeats the banner after one.
 */
static bool proc_life_ended(const struct nl_ctx *c, const struct nl_proc *p)
{
	if (p->saw_teardown || p->last_warn)
		return true;
	for (guint i = 0; i < c->restarts->len; i++)
		if (g_array_index(c->restarts, struct nl_restart_line, i).line >
		    p->first_line)
			return true;
	return false;
}

bool nl_starts_new_life(const struct nl_ctx *c, const struct nl_proc *p,
			const char *b, size_t n)
{
	const char *q;
	uint64_t id;

	if (!p->first_line || p->first_line == c->lineno ||
	    !proc_life_ended(c, p))
		return false;
	if (starts(b, n, "NCCL version ") || starts(b, n, "RCCL version "))
		return p->version != NULL;
	if (!has(b, n, "- Init ") || !(q = find(b, n, "commId 0x")))
		return false;
	q += 9;
	if (!scan_hex(&q, b + n, &id))
		return false;
	for (guint i = 0; i < p->comms->len; i++) {
		const struct nl_comm *cm = g_ptr_array_index(p->comms, i);
		const struct hd_group *g;

		if (cm->group < 0)
			continue;
		g = hd_store_group_at(c->store, (uint32_t)cm->group);
		if (g->has_comm_id && g->comm_id == id &&
		    (cm->complete || !has(b, n, "- Init COMPLETE")))
			return true;
	}
	return false;
}

struct nl_proc *nl_proc_new_life(struct nl_ctx *c, struct nl_proc *old)
{
	char key[160];
	struct nl_proc *p;

	g_snprintf(key, sizeof(key), "%.*s:%d", (int)old->host_len, old->host,
		   old->pid);
	g_hash_table_remove(c->procs_by_key, key);
	c->proc_cache[(unsigned)old->pid % NL_PROC_CACHE] = NULL;
	/* host:pid names another process now: no prefix is current */
	c->proc_epoch++;
	c->life++;
	p = nl_proc_get(c, old->host, old->host_len, old->pid);
	if (!p)
		return old;
	p->first_line = p->last_line = c->lineno;
	p->before = old;
	p->stream = old->stream;
	p->dev = old->dev;
	old->last_line = old->prev_line;
	for (guint i = 0; i < c->streams->len; i++) {
		struct nl_stream *st = g_ptr_array_index(c->streams, i);

		if (st->proc == old)
			st->proc = p;
	}
	return p;
}

void nl_proc_begins(struct nl_ctx *c, const struct nl_proc *p, int dev)
{
	char key[160];
	const struct nl_proc *q;

	if (dev < 0)
		return;
	g_snprintf(key, sizeof(key), "%.*s %d", (int)p->host_len, p->host, dev);
	q = g_hash_table_lookup(c->procs_by_slot, key);
	if (q == p)
		return;
	if (q)
		c->life++;
	g_hash_table_replace(c->procs_by_slot, g_strdup(key), hd_unconst(p));
}

int nl_proc_nth(struct nl_proc *p, const char *key)
{
	gpointer v = NULL;
	int n;

	if (g_hash_table_lookup_extended(p->nth, key, NULL, &v)) {
		n = GPOINTER_TO_INT(v);
		g_hash_table_replace(p->nth, g_strdup(key),
				     GINT_TO_POINTER(n + 1));
		return n;
	}
	g_hash_table_insert(p->nth, g_strdup(key), GINT_TO_POINTER(1));
	return 0;
}

void nl_comm_bind(struct nl_ctx *c, struct nl_comm *cm, const char *id,
		  bool has_id, uint64_t comm_id, bool low)
{
	struct hd_group *g;

	cm->group = hd_store_group(c->store, id);
	g = hd_store_group_at(c->store, (uint32_t)cm->group);
	if (cm->nranks > 0 && g->nranks < cm->nranks)
		g->nranks = cm->nranks;
	if (has_id) {
		g->has_comm_id = true;
		g->comm_id = comm_id;
	}
	if (low)
		g->low_confidence_identity = true;
}

void nl_comm_bind_nranks(struct nl_ctx *c, struct nl_proc *p,
			 struct nl_comm *cm)
{
	char key[64], id[96];
	int k;

	g_snprintf(key, sizeof(key), "n%d", cm->nranks);
	k = nl_proc_nth(p, key);
	g_snprintf(id, sizeof(id), "nccl-nranks:%d#%d", cm->nranks, k);
	nl_comm_bind(c, cm, id, false, 0, true);
}

struct nl_comm *nl_comm_new(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm = g_new0(struct nl_comm, 1);
	uint64_t *key = g_new(uint64_t, 1);

	cm->ptr = ptr;
	cm->rank = cm->nranks = cm->cuda_dev = -1;
	cm->group = -1;
	cm->last_opcount = cm->max_opcount = -1;
	g_ptr_array_add(p->comms, cm);
	/* The table owns the key; replace frees the old instance's key. */
	*key = ptr;
	g_hash_table_replace(p->live, key, cm);
	p->last = cm;
	return cm;
}

void nl_proc_comm_forget(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm = g_hash_table_lookup(p->live, &ptr);

	if (cm) {
		g_hash_table_remove(p->live, &ptr);
		if (p->last == cm)
			p->last = NULL;
	}
}

struct nl_proc *nl_rec_proc(struct nl_ctx *c, const struct nl_rec *r,
			    struct nl_stream *st, const struct nl_wrap *w)
{
	struct nl_proc *p = NULL;

	if (r->has_hpt)
		p = nl_proc_get(c, r->host, r->host_len, r->pid);
	else if (st->proc && !st->multi)
		p = st->proc; /* trimmed "[0] NCCL INFO" */
	if (p)
		nl_rec_touch(c, p, r, st, w->tag_rank);
	return p;
}

/* "2.18.3" -> 2018; 0 when unreadable. */
static int version_code(const char *v)
{
	const char *p = v, *e = v + strlen(v);
	int64_t major, minor;

	if (!scan_int(&p, e, &major) || p >= e || *p != '.')
		return 0;
	p++;
	if (!scan_int(&p, e, &minor))
		return 0;
	return (int)clamp_int(major, 0, 99) * 1000 +
	       (int)clamp_int(minor, 0, 999);
}

const char *nl_proc_version(struct nl_ctx *c, struct nl_proc *p)
{
	const char *claim = p->version;
	char buf[32];

	if (!claim && c->procs->len == 1 && !c->bare_version_conflict)
		claim = c->bare_version;
	if (p->no_token)
		return hd_intern("2.2");
	if (!p->fmt_min || (claim && version_code(claim) >= p->fmt_min))
		return claim;
	g_snprintf(buf, sizeof(buf), "%d.%d+", p->fmt_min / 1000,
		   p->fmt_min % 1000);
	if (claim)
		hd_input_warn(c->in, 0,
			      "%s:%d claims NCCL %s but its format is %s",
			      p->host, p->pid, claim, buf);
	return hd_intern(buf);
}

void nl_procs_init(struct nl_ctx *c)
{
	c->procs_by_key =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c->procs = g_ptr_array_new_with_free_func(proc_free);
	c->procs_by_slot =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

void nl_procs_clear(struct nl_ctx *c)
{
	g_hash_table_destroy(c->procs_by_key);
	g_hash_table_destroy(c->procs_by_slot);
	g_ptr_array_free(c->procs, TRUE);
}
