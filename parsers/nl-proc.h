/*
 * The NCCL log parser's processes and their communicators, below the
 * record grammar (nl-coll.c, nccl-record.c): a process per host:pid and
 * per life of it, the comms it created (live by pointer, every instance
 * kept) and the groups they are bound to, the process a record belongs
 * to, and the NCCL version a process is recorded with.  Not for use
 * outside the log parser.
 *
 * Ownership: the processes and comms belong to the parse state (struct
 * nl_ctx, freed by nl_procs_clear()); groups and strings to the store.
 */
#ifndef HD_NL_PROC_H
#define HD_NL_PROC_H

#include "nl-ctx.h"

/* Sets up c's processes. */
void nl_procs_init(struct nl_ctx *c);
/* Frees what nl_procs_init() set up, every process and comm. */
void nl_procs_clear(struct nl_ctx *c);

/*
 * The process host:pid (host cut to 128 bytes), made on first sight; NULL
 * past the bound on processes.  (transfer none)
 */
struct nl_proc *nl_proc_get(struct nl_ctx *c, const char *host, size_t host_len,
			    int pid);

/*
 * Whether the INFO body [b, b + n) of p starts a new life of its host:pid:
 * a second NCCL version banner (NCCL prints it once per process), or a new
 * Init of a commId p already initialized, after p's life may have ended
 * (it tore a comm down, logged a WARN or ABORT, or torchrun restarted the
 * workers since it began).  A log appended to itself repeats its banner
 * too, but with nothing ending the first copy's life.  The COMPLETE of
 * a comm whose START this life printed is that comm coming up, a WARN
 * between the two or not.
 */
bool nl_starts_new_life(const struct nl_ctx *c, const struct nl_proc *p,
			const char *b, size_t n);

/*
 * A new process life of old's host:pid, from this line on: later records
 * of that host:pid, and the streams old printed to, are the new one's.
 * Old itself past the bound on processes.  (transfer none)
 */
struct nl_proc *nl_proc_new_life(struct nl_ctx *c, struct nl_proc *old);

/* Counts the creation order of comms with the same key in a process. */
int nl_proc_nth(struct nl_proc *p, const char *key);

/*
 * Puts cm in the group of identity id (its commId when has_id; low: the
 * identity is a guess, low_confidence_identity).
 */
void nl_comm_bind(struct nl_ctx *c, struct nl_comm *cm, const char *id,
		  bool has_id, uint64_t comm_id, bool low);
/* Binds a comm to the low-confidence "nccl-nranks:N#k" identity. */
void nl_comm_bind_nranks(struct nl_ctx *c, struct nl_proc *p,
			 struct nl_comm *cm);

/*
 * A new comm instance at ptr in p, live (an older instance at ptr is not
 * any more) and p's last.  (transfer none)
 */
struct nl_comm *nl_comm_new(struct nl_proc *p, uint64_t ptr);
/* The comm at ptr in p is not live any more (its pointer may be reused). */
void nl_proc_comm_forget(struct nl_proc *p, uint64_t ptr);

/* The live comm at ptr in p, or NULL: every COLL record asks. */
static inline struct nl_comm *nl_proc_comm(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm;

	if (p->last && p->last->ptr == ptr)
		return p->last;
	cm = g_hash_table_lookup(p->live, &ptr);
	if (cm)
		p->last = cm;
	return cm;
}

/* st has seen a record of p. */
static inline void nl_stream_add_proc(struct nl_stream *st, struct nl_proc *p)
{
	if (!st->proc)
		st->proc = p;
	else if (st->proc != p)
		st->multi = true;
	if (st->hint_rank >= 0) {
		hint_merge(&p->hint_rank, st->hint_rank);
		p->hint_srun |= st->hint_srun;
	}
}

/*
 * What a record of p, with prefix r, in stream st, after a wrapper that
 * named rank tag_rank (-1 none), says of p.
 */
/*
 * p records for the first time, on GPU dev (-1 unknown): a process of
 * its host that recorded on that GPU before it is one it restarts, and a
 * new process life begins (nl_ctx.life).
 */
void nl_proc_begins(struct nl_ctx *c, const struct nl_proc *p, int dev);

static inline void nl_rec_touch(struct nl_ctx *c, struct nl_proc *p,
				const struct nl_rec *r, struct nl_stream *st,
				int tag_rank)
{
	if (!p->first_line) {
		p->first_line = c->lineno;
		p->stream = st->index;
		nl_proc_begins(c, p, r->dev);
	}
	p->prev_line = p->last_line;
	p->last_line = c->lineno;
	nl_stream_add_proc(st, p);
	if (tag_rank >= 0)
		hint_merge(&p->tag_rank, tag_rank);
	if (r->dev > 0 || (r->dev == 0 && p->dev < 0))
		p->dev = r->dev;
}

/*
 * The process a record with prefix r belongs to, in stream st after
 * wrapper w: its host:pid, or a trimmed record's stream's one process;
 * NULL when neither says.  Notes the record in it (nl_rec_touch()).
 * (transfer none)
 */
struct nl_proc *nl_rec_proc(struct nl_ctx *c, const struct nl_rec *r,
			    struct nl_stream *st, const struct nl_wrap *w);

/*
 * The NCCL version to record for p: the format wins over what a line
 * claims.  (transfer none: interned)
 */
const char *nl_proc_version(struct nl_ctx *c, struct nl_proc *p);

#endif
