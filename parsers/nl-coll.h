/*
 * The NCCL COLL record ("AllReduce: opCount 1a sendbuff 0x... comm 0x...
 * [nranks=8] stream 0x..."), which is almost all of a COLL log: its
 * grammar, the op it keeps (its comm and group, its interned descriptor,
 * records delivered twice dropped), and its fast path, which reads a
 * complete record of a process seen before in one pass and must give the
 * store the long way gives (tests/unit/check_nccl_fast.c and the fuzzer
 * compare the two).  Below the rest of the record grammar
 * (nccl-record.c) and the driver; above processes (nl-proc.h), prefixes
 * (nl-prefix.h) and the scanners (nl-scan.h).  Not for use outside the
 * log parser.
 *
 * Ownership: the descriptor memo and the fast path's tables belong to the
 * parse state (nl_coll_init(), nl_coll_clear()); the store owns the ops.
 */
#ifndef HD_NL_COLL_H
#define HD_NL_COLL_H

#include "nl-ctx.h"
#include "nl-prefix.h"

/* Sets up c's COLL op names, descriptor memo and fast-path table. */
void nl_coll_init(struct nl_ctx *c);
/* Frees what nl_coll_init() set up. */
void nl_coll_clear(struct nl_ctx *c);

/* The COLL op name at the start of body ("AllReduce: opCount"), or -1. */
int nl_coll_op(const char *body, size_t n, size_t *name_len);

/*
 * Parses a COLL body of process p; which and name_len are what
 * nl_coll_op() said.  A record whose text ends early (the 1024-byte cut,
 * or a killed process) is kept, flagged truncated, once its comm is known;
 * so is one that filled NCCL's buffer (full_buffer).  Sets c->coll_stop
 * where a complete record ends.
 */
void nl_parse_coll(struct nl_ctx *c, struct nl_proc *p, int which,
		   const char *body, size_t n, size_t name_len,
		   bool full_buffer);

/*
 * Reads the raw line [line, end) through the COLL fast path when it is a
 * complete COLL record (body b, after "INFO ") whose prefix [line, a)
 * nl_handle_nccl() read before: the same store as the long way.  False,
 * with nothing done, for any other line.
 */
bool nl_coll_fast(struct nl_ctx *c, const char *line, const char *a,
		  const char *b, const char *end);
/*
 * nl_coll_fast() of the raw line [line, line + n) when it starts with a
 * prefix that took the fast path before, found without the anchor
 * search; false, with nothing done, otherwise (the anchor path decides).
 */
bool nl_coll_fast_quick(struct nl_ctx *c, const char *line, size_t n);

/*
 * Remembers what nl_handle_nccl() made of the prefix of a raw line whose
 * COLL record it read to the line's end, for nl_coll_fast(): its process
 * (as of now), stream and wrapper.  Only prefixes with host:pid:tid (a
 * trimmed one's process depends on the stream's history), no date in a
 * wrapper (each line's differs), and no '(' (the driver's test for a
 * wrapped c10d record looks for one).
 */
void nl_coll_fast_fill(struct nl_ctx *c, struct nl_prefix *e, const char *line,
		       const char *a, struct nl_proc *p, struct nl_stream *st,
		       const struct nl_wrap *w);

#endif
