/*
 * The NCCL / c10d log parser's store helpers (nl-ctx.h), which the driver
 * and both grammars call: signals, skipped lines, output streams and job
 * restarts.
 */
#include "config.h"

#include "nl-ctx.h"

#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's own state. */
#define NL_MAX_STREAMS (1 << 16)

/* Compiled by the driver, once per process, before the first line. */
pcre2_code *nl_rx_code[RX_COUNT];

static struct nl_stream *stream_get(struct nl_ctx *c, const char *key)
{
	struct nl_stream *st = g_hash_table_lookup(c->streams_by_key, key);

	if (st)
		return st;
	if (c->streams->len >= NL_MAX_STREAMS)
		return c->dflt;
	st = g_new0(struct nl_stream, 1);
	st->index = c->streams->len;
	st->c10d_rank = st->hint_rank = st->worker_rank = -1;
	st->srun_task = -1;
	st->err_sig = st->fr_seq = st->hydra_exit = -1;
	st->cfe_rank = st->cfe_local = -1;
	st->cfe_time = hd_time_none();
	st->anchor = hd_time_none();
	st->pair_utc = st->pair_local = hd_time_none();
	st->last_utc = st->last_local = hd_time_none();
	g_ptr_array_add(c->streams, st);
	g_hash_table_insert(c->streams_by_key, g_strdup(key), st);
	return st;
}

void nl_add_signal(struct nl_ctx *c, struct hd_signal *sig, struct nl_proc *p,
		   struct nl_stream *st, const char *text, size_t text_len)
{
	int32_t pi = p ? (int32_t)p->index : -1;
	uint32_t si = st ? st->index : 0;
	g_autofree char *t = NULL;

	if (p) {
		sig->host = p->host;
		sig->pid = p->pid;
	}
	if (text) {
		t = g_utf8_make_valid(text, (gssize)MIN(text_len, 1024));
		sig->text = t;
	}
	sig->prov.input = c->input;
	sig->prov.kind = HD_PROV_LINE;
	sig->prov.at = c->lineno;
	hd_store_add_signal(c->store, sig);
	sig->text = NULL;
	g_array_append_val(c->sig_proc, pi);
	g_array_append_val(c->sig_stream, si);
	c->in->records++;
}

void nl_skip(struct nl_ctx *c, const char *why)
{
	c->in->skipped++;
	hd_input_warn(c->in, c->lineno, "%s", why);
}

struct nl_stream *nl_stream_bare(struct nl_ctx *c)
{
	/* a key no wrapper makes ("m%d s%d ...") */
	return stream_get(c, "bare");
}

struct nl_stream *nl_stream_for(struct nl_ctx *c, const struct nl_wrap *w)
{
	char key[128];
	struct nl_stream *st;

	if (w->mpi_rank < 0 && w->srun_task < 0 && w->local_rank < 0 &&
	    w->ray_pid < 0 && !w->host) {
		if (!hd_time_is_dated(c->dflt->anchor) &&
		    hd_time_is_dated(w->time))
			c->dflt->anchor = w->time;
		return c->dflt;
	}
	g_snprintf(key, sizeof(key), "m%d s%d t%d r%d w%d h%.*s", w->mpi_rank,
		   w->srun_task, w->local_rank, w->ray_pid, w->worker_rank,
		   (int)MIN(w->host_len, 64), w->host ? w->host : "");
	st = stream_get(c, key);
	if (!hd_time_is_dated(st->anchor) && hd_time_is_dated(w->time))
		st->anchor = w->time;
	if (st->hint_rank == -1) {
		/* mpirun's rank, else vLLM's worker (inside srun's task,
		   when srun starts an engine a node), else srun's task */
		st->hint_rank = w->mpi_rank >= 0      ? w->mpi_rank
				: w->worker_rank >= 0 ? w->worker_rank
						      : w->srun_task;
		st->hint_srun = w->mpi_rank < 0 && st->hint_rank >= 0;
	}
	if (st->worker_rank == -1)
		st->worker_rank = w->worker_rank;
	if (st->srun_task == -1)
		st->srun_task = w->srun_task;
	return st;
}

void nl_restart(struct nl_ctx *c, uint64_t line, struct hd_time time)
{
	struct nl_restart_line r = { .line = line, .time = time };

	g_array_append_val(c->restarts, r);
	c->life++;
}

void nl_streams_init(struct nl_ctx *c)
{
	c->streams_by_key =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c->streams = g_ptr_array_new_with_free_func(g_free);
	c->dflt = stream_get(c, "");
}

void nl_streams_clear(struct nl_ctx *c)
{
	g_hash_table_destroy(c->streams_by_key);
	g_ptr_array_free(c->streams, TRUE);
}
