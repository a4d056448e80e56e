/*
 * The calls between the files of the NCCL_DEBUG / PyTorch c10d log
 * parser: the line driver (nccl-log.c), wrapper stripping (nl-wrap.c),
 * process attribution and attempts at end of input (nl-attrib.c,
 * nl-attempt.c), the NCCL record grammar (nccl-record.c), the crash
 * grammar (crash-record.c) and the c10d / torchrun grammar
 * (c10d-record.c).  What they share below them has headers of its own:
 * the parse state, scanners, regex and store helpers (nl-ctx.h), the
 * record grammar's hex scanners (nl-scan.h), processes and comms
 * (nl-proc.h), record prefixes (nl-prefix.h) and the COLL record and its
 * fast path (nl-coll.h).  Not for use outside those files.
 *
 * Ownership: the parse state belongs to one nccl_log_parse() call; the
 * store owns what is added to it.
 */
#ifndef HD_NCCL_LOG_INTERNAL_H
#define HD_NCCL_LOG_INTERNAL_H

#include <string.h>

#include "nl-ctx.h"

/* ------------------------------------------------------------------ */
/* Wrappers (nl-wrap.c).                                               */

/*
 * Strips launcher and collector wrappers from the front of s and notes
 * what they said.  Returns the offset of the content.
 */
size_t nl_strip_front(const char *s, size_t n, struct nl_wrap *w);

static inline void nl_wrap_init(struct nl_wrap *w)
{
	w->mpi_rank = w->srun_task = w->local_rank = w->ray_pid = -1;
	w->tag_rank = w->worker_rank = -1;
	w->host = NULL;
	w->host_len = 0;
	w->time = hd_time_none();
}

/*
 * The stream the wrapper in s names, cached for runs of the same wrapper:
 * every NCCL record asks.  (transfer none)
 */
static inline struct nl_stream *nl_wrap_stream(struct nl_ctx *c, const char *s,
					       size_t n, struct nl_wrap *w)
{
	struct nl_stream *st;

	nl_wrap_init(w);
	if (n == 0)
		return c->dflt;
	if (n == c->wrap_cache_len && memcmp(s, c->wrap_cache, n) == 0) {
		*w = c->wrap_info;
		return c->wrap_stream;
	}
	(void)nl_strip_front(s, n, w);
	st = nl_stream_for(c, w);
	if (n <= sizeof(c->wrap_cache)) {
		memcpy(c->wrap_cache, s, n);
		c->wrap_cache_len = n;
		c->wrap_info = *w;
		c->wrap_stream = st;
	}
	return st;
}

/* ------------------------------------------------------------------ */
/* End of input (nl-attrib.c, nl-attempt.c).                           */

/*
 * Decides each process's rank and gives every op and signal of the input
 * the rank of its process (or stream); fills groups and ranks.  Runs once,
 * after the last line.
 */
void nl_attribute(struct nl_ctx *c);

/*
 * Numbers the job attempts of the input (issue 20) from its processes,
 * once their ranks are decided, and gives each record its attempt.
 */
void nl_split_attempts(struct nl_ctx *c);

/* ------------------------------------------------------------------ */
/* The NCCL record grammar (nccl-record.c).                            */

/*
 * Sets up c's processes, record prefix cache, COLL op names and fast path
 * (nl_procs_init(), nl_prefixes_init(), nl_coll_init()).
 */
void nl_nccl_init(struct nl_ctx *c);
/* Frees what nl_nccl_init() set up. */
void nl_nccl_clear(struct nl_ctx *c);

/*
 * Parses "NCCL version X..." in s, the claim of p (NULL: a bare version
 * line); false when s holds none.
 */
bool nl_parse_version(struct nl_ctx *c, struct nl_proc *p, const char *s,
		      size_t n);

/*
 * Handles an NCCL record whose level word starts at lvl (anchor a is the
 * start of "NCCL " or, for 2.2, of the level word).  end bounds it.
 */
void nl_handle_nccl(struct nl_ctx *c, const char *line, const char *a,
		    const char *lvl, const char *end, bool no_token);

/*
 * Handles the body [b, end) of a WARN pasted without "NCCL WARN" and
 * without a prefix: a signal of no process.
 */
void nl_handle_bare_warn(struct nl_ctx *c, const char *b, const char *end);

/*
 * Reads a line of an NCCL RAS status report (2.24+: "#0-0 (id) MISMATCH",
 * "N ranks have launched up to operation K", "Rank R -- GPU G managed by
 * process P on node H"); false when the line is none.
 */
bool nl_ras_line(struct nl_ctx *c, const char *line, size_t n);

/*
 * Reads an nccl-tests failure line ("Test NCCL failure F:L 'result'",
 * "host pid P: Test failure F:L"); false when the line is none.
 */
bool nl_test_failure_line(struct nl_ctx *c, const char *line, size_t n);

/* ------------------------------------------------------------------ */
/* The crash grammar (crash-record.c).                                 */

/*
 * A fatal signal handler's header or a line of its block: returns true
 * when the line was taken.
 */
bool nl_crash_line(struct nl_ctx *c, const char *line, size_t n);

/* Ends the block being read, storing its frames. */
void nl_crash_flush(struct nl_ctx *c);

/* ------------------------------------------------------------------ */
/* The PyTorch c10d / torchrun / Python grammar (c10d-record.c).       */

/* Handles a line that holds no NCCL record. */
void nl_c10d_line(struct nl_ctx *c, const char *line, size_t n);

/*
 * At end of input: the PG of each watchdog timeout whose line named none
 * and whose status line never came (docs/formats.md, "c10d").
 */
void nl_c10d_finish(struct nl_ctx *c);

#endif
