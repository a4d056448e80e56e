/*
 * What a plan needs (element sizes, buffer bytes per rank) and its
 * validation against the hard limits of replay-plan.h, so that a hostile
 * plan cannot make the runner allocate without bound.
 */
#include "config.h"

#include "replay-plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-error.h"
#include "hd-json.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-banned.h"

size_t replay_dtype_size(enum hd_dtype t)
{
	switch (t) {
	case HD_DTYPE_INT8:
	case HD_DTYPE_UINT8:
	case HD_DTYPE_FP8_E4M3:
	case HD_DTYPE_FP8_E5M2:
	case HD_DTYPE_BOOL:
		return 1;
	case HD_DTYPE_FLOAT16:
	case HD_DTYPE_BFLOAT16:
	case HD_DTYPE_INT16:
		return 2;
	case HD_DTYPE_INT32:
	case HD_DTYPE_UINT32:
	case HD_DTYPE_FLOAT32:
		return 4;
	case HD_DTYPE_INT64:
	case HD_DTYPE_UINT64:
	case HD_DTYPE_FLOAT64:
		return 8;
	case HD_DTYPE_UNKNOWN:
	case HD_DTYPE_OTHER:
		break;
	}
	return 0;
}

void replay_op_elems(const struct replay_op *o, int nranks, int64_t *send,
		     int64_t *recv)
{
	int64_t c = o->count > 0 ? o->count : 1;

	*send = c;
	*recv = c;
	switch (o->kind) {
	case HD_OP_ALL_GATHER:
	case HD_OP_GATHER:
		*recv = c * nranks;
		break;
	case HD_OP_REDUCE_SCATTER:
	case HD_OP_SCATTER:
		*send = c * nranks;
		break;
	case HD_OP_SEND:
		*recv = 0;
		break;
	case HD_OP_RECV:
		*send = 0;
		break;
	default:
		break;
	}
}

int64_t replay_plan_rank_bytes(const struct replay_plan *p, int rank)
{
	const struct replay_rank *r;
	int64_t max_send = 0, max_recv = 0;

	if (rank < 0 || (guint)rank >= p->ranks->len)
		return 0;
	r = replay_plan_rank(p, (guint)rank);
	for (guint i = 0; i < r->ops->len; i++) {
		const struct replay_op *o =
			&g_array_index(r->ops, struct replay_op, i);
		int64_t es = (int64_t)replay_dtype_size(o->dtype);
		int64_t s, v;

		/* Unknown widths are counted as the widest. */
		if (es == 0)
			es = 8;
		replay_op_elems(o, (int)p->ranks->len, &s, &v);
		if (s * es > max_send)
			max_send = s * es;
		if (v * es > max_recv)
			max_recv = v * es;
	}
	return max_send + max_recv;
}

static bool validate_op(const struct replay_op *o, int rank, guint i,
			int nranks, GError **error)
{
	const char *why = NULL;

	if ((unsigned)o->kind >= HD_OP_KIND_COUNT)
		why = "unknown kind";
	else if (o->count < -1)
		why = "negative count";
	else if (o->count > REPLAY_MAX_OP_ELEMS)
		why = "count above the limit (try --scale)";
	else if ((unsigned)o->dtype > HD_DTYPE_INT16)
		why = "unknown dtype";
	else if ((unsigned)o->redop > HD_REDOP_PREMULSUM)
		why = "unknown redop";
	else if (o->peer < -1 || o->peer >= nranks)
		why = "peer or root out of range";
	else if (hd_op_kind_is_p2p(o->kind) && (o->peer < 0 || o->peer == rank))
		why = "send/recv without a peer other than itself";
	else if (o->coalesce < -1)
		why = "bad coalesce id";
	else if (o->seq < -1)
		why = "bad seq";
	else if ((unsigned)o->state > HD_STATE_COMPLETED)
		why = "unknown state";
	if (!why)
		return true;
	g_set_error(error, HD_ERROR, HD_ERROR_FORMAT, "rank %d op %u: %s", rank,
		    i, why);
	return false;
}

bool replay_plan_validate(const struct replay_plan *p, GError **error)
{
	int64_t total = 0;
	guint n = p->ranks->len;

	if (n == 0 || n > REPLAY_MAX_RANKS) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "a plan needs 1 to %d ranks, not %u",
			    REPLAY_MAX_RANKS, n);
		return false;
	}
	if (p->window < 0 || p->window > REPLAY_MAX_WINDOW ||
	    !(p->scale > 0.0 && p->scale <= 1.0) || p->seq < -1 ||
	    p->seq_kind > HD_SEQ_ORDINAL) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "window, scale, seq or seq_kind out of range");
		return false;
	}
	for (guint r = 0; r < n; r++) {
		const struct replay_rank *rr = replay_plan_rank(p, r);

		if (rr->rank != (int)r || rr->global_rank < -1) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "rank %u: bad rank numbers", r);
			return false;
		}
		if (rr->ops->len > REPLAY_MAX_OPS_PER_RANK) {
			g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    "rank %u: more than %d ops", r,
				    REPLAY_MAX_OPS_PER_RANK);
			return false;
		}
		for (guint i = 0; i < rr->ops->len; i++) {
			const struct replay_op *o =
				&g_array_index(rr->ops, struct replay_op, i);

			if (!validate_op(o, (int)r, i, (int)n, error))
				return false;
			total += o->count > 0 ? o->count : 1;
		}
		if (total > REPLAY_MAX_TOTAL_ELEMS) {
			g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    "the plan moves more than %" G_GINT64_FORMAT
				    " elements in all (try --scale)",
				    REPLAY_MAX_TOTAL_ELEMS);
			return false;
		}
		if (replay_plan_rank_bytes(p, (int)r) > REPLAY_MAX_RANK_BYTES) {
			g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    "rank %u needs more than %" G_GINT64_FORMAT
				    " bytes of device memory (try --scale)",
				    r, REPLAY_MAX_RANK_BYTES);
			return false;
		}
	}
	return true;
}
