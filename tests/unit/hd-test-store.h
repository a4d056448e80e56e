/*
 * Test helpers that build a store's ops by hand: an op record at a place,
 * a descriptor of its counts, and the two added together.
 */
#ifndef HD_TEST_STORE_H
#define HD_TEST_STORE_H

#include <stdint.h>

#include "hd-store.h"

/* A blank op of rank at (group, seq_kind, seq), of kind, in state st. */
static inline struct hd_op_rec hd_test_op(uint32_t group, int rank,
					  uint8_t seq_kind, int64_t seq,
					  enum hd_op_kind kind,
					  enum hd_op_state st)
{
	struct hd_op_rec op;

	hd_op_rec_init(&op);
	hd_op_set_rank(&op.op, rank);
	op.op.group = group;
	op.op.seq_kind = seq_kind;
	op.op.seq = seq;
	op.op.kind = kind;
	op.op.state = st;
	return op;
}

/* A blank descriptor moving count_in and count_out of dt (-1: unknown). */
static inline struct hd_opdesc hd_test_desc(int64_t count_in, int64_t count_out,
					    enum hd_dtype dt)
{
	struct hd_opdesc d = hd_opdesc_blank;

	d.count_in = count_in;
	d.count_out = count_out;
	d.dtype = dt;
	return d;
}

/* Adds op to s, moving what d describes (interned). */
static inline void hd_test_add_op(struct hd_store *s, struct hd_op_rec *op,
				  const struct hd_opdesc *d)
{
	hd_op_set_desc(&op->op, hd_opdesc_intern(d));
	hd_store_add_op(s, op);
}

#endif
