/*
 * Unit tests of the NCCL_DEBUG / PyTorch c10d log parser: each Init era,
 * COLL lines and their enums, attribution across wrappers and interleaved
 * processes, WARN and c10d signals, and hostile input.
 */
#include "config.h"

#include <string.h>

#include "formats.h"
#include "hd-test-parse.h"

#define CM  "0x5600d0a1b2c0"
#define CID "0x5c1e2f03a9d4b871"

static struct hd_input *in0(struct hd_store *s)
{
	return hd_store_input(s, 0);
}

static const char *group_id(struct hd_store *s, const struct hd_op *op)
{
	return hd_store_group_at(s, op->group)->id;
}

/* Strings made by coll(), freed after each test. */
static GPtrArray *pool;

static void pool_clear(void)
{
	if (pool)
		g_ptr_array_set_size(pool, 0);
}

/* An NCCL COLL line, owned by the pool.  (transfer none) */
static char *coll(const char *prefix, const char *op, unsigned opcount,
		  const char *send, const char *recv, long count, int dtype,
		  int redop, int root, const char *comm, int nranks)
{
	char *l = g_strdup_printf("%sNCCL INFO %s: opCount %x sendbuff %s "
				  "recvbuff %s count %ld datatype %d op %d "
				  "root %d comm %s [nranks=%d] stream "
				  "0x55e0c1c8f7a0\n",
				  prefix, op, opcount, send, recv, count, dtype,
				  redop, root, comm, nranks);

	if (!pool)
		pool = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(pool, l);
	return l;
}

#define HP "node-a:4242:4242 [1] "
#define INIT_216                                                          \
	HP "NCCL INFO comm " CM " rank 1 nranks 4 cudaDev 1 busId 3b000 " \
	   "commId " CID " - Init COMPLETE\n"

/* ---- Init formats (the format notes, section 4) ---- */

START_TEST(test_init_eras)
{
	static const struct {
		const char *line;
		const char *id;
		bool low;
	} cases[] = {
		{ HP "NCCL INFO comm " CM
		     " rank 1 nranks 4 cudaDev 1 nvmlDev 1 "
		     "- Init COMPLETE\n",
		  "nccl-nranks:4#0", true }, /* 2.4 */
		{ HP "NCCL INFO comm " CM " rank 1 nranks 4 cudaDev 1 busId "
		     "3b000 - Init COMPLETE\n",
		  "nccl-nranks:4#0", true }, /* 2.5-2.15 */
		{ INIT_216, "comm:" CID, false }, /* 2.16 */
		{ HP
		  "NCCL INFO comm " CM " rank 1 nranks 4 cudaDev 1 nvmlDev 1 "
		  "busId 3b000 commId " CID " - Init START\n" HP
		  "NCCL INFO comm " CM " rank 1 nranks 4 cudaDev 1 nvmlDev 1 "
		  "busId 3b000 commId " CID " - Init COMPLETE\n",
		  "comm:" CID, false }, /* 2.18 */
		{ HP "NCCL INFO ncclCommInitRank comm " CM " rank 1 nranks 4 "
		     "cudaDev 1 nvmlDev 1 busId 3b000 commId " CID
		     " - Init COMPLETE\n",
		  "comm:" CID, false }, /* 2.21 */
		{ HP "NCCL INFO [Rank 1] "
		     "ncclCommInitRankConfig comm " CM
		     " rank 1 nranks 4 cudaDev 3 "
		     "nvmlDev 3 busId 3b000 commId " CID " - Init START\n",
		  "comm:" CID, false }, /* 2.30 START */
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text =
			g_strconcat(cases[i].line,
				    coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7,
					 0, 0, CM, 4),
				    NULL);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
		struct hd_group *g;

		ck_assert_uint_eq(s->ops->len, 1);
		g = hd_store_group_at(s, op_at(s, 0)->group);
		ck_assert_str_eq(g->id, cases[i].id);
		ck_assert_int_eq(g->low_confidence_identity, cases[i].low);
		ck_assert_int_eq(g->nranks, 4);
		/* rank 1 of the world comm is global rank 1 */
		ck_assert_int_eq(hd_group_global_rank(g, 1), 1);
		ck_assert_int_eq(hd_op_rank(op_at(s, 0)), 1);
		ck_assert_int_eq(in0(s)->skipped, 0);
	}
}
END_TEST

START_TEST(test_init_split)
{
	/* 2.21 split with commId; 2.23 without (no space before "- Init
	 * START"); 2.24 splitCount; 2.30 childCount. */
	const char *text = INIT_216 HP
		"NCCL INFO ncclCommSplit comm 0x5600d0000001 rank 0 nranks 2 "
		"cudaDev 1 nvmlDev 1 busId 3b000 parent " CM
		" color 1 key 0 commId 0x1111 - Init COMPLETE\n" HP
		"NCCL INFO ncclCommSplit comm 0x5600d0000002 rank 0 nranks 2 "
		"cudaDev 1 nvmlDev 1 busId 3b000 parent " CM
		" color 7 key 0- Init START\n" HP
		"NCCL INFO ncclCommSplit comm 0x5600d0000002 rank 0 nranks 2 "
		"cudaDev 1 nvmlDev 1 busId 3b000 parent " CM
		" color 7 key 0 - Init COMPLETE\n" HP
		"NCCL INFO ncclCommSplit comm 0x5600d0000003 rank 1 nranks 2 "
		"cudaDev 1 nvmlDev 1 busId 3b000 parent " CM
		" splitCount 3 color 2 key 1 - Init COMPLETE\n" HP
		"NCCL INFO ncclCommSplit comm 0x5600d0000004 rank 1 nranks 2 "
		"cudaDev 1 nvmlDev 1 busId 3b000 parent " CM
		" childCount 4 color 2 key 1 - Init COMPLETE\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_int_ge(hd_store_find_group(s, "comm:0x0000000000001111"), 0);
	ck_assert_int_ge(hd_store_find_group(s, "split:" CID ":7:n0:2"), 0);
	ck_assert_int_ge(hd_store_find_group(s, "split:" CID ":2:3:2"), 0);
	ck_assert_int_ge(hd_store_find_group(s, "split:" CID ":2:4:2"), 0);
	/* START + COMPLETE of the 2.23 split is one comm, one group */
	ck_assert_uint_eq(s->groups->len, 5);
	ck_assert_int_eq(hd_store_group_at(s, (uint32_t)hd_store_find_group(
						      s, "split:" CID ":2:3:2"))
				 ->low_confidence_identity,
			 false);
	ck_assert_int_eq(in0(s)->skipped, 0);
}
END_TEST

START_TEST(test_init_pre216_order_and_reuse)
{
	/* Two 2-rank comms: #0 and #1.  A pointer reused after Destroy
	 * COMPLETE is a new comm with its own ordinal. */
	g_autofree char *text = g_strconcat(
		HP "NCCL INFO comm 0xa rank 1 nranks 4 cudaDev 1 busId 3b000 "
		   "- Init COMPLETE\n" HP
		   "NCCL INFO comm 0xb rank 0 nranks 2 cudaDev 1 busId 3b000 "
		   "- Init COMPLETE\n",
		coll(HP, "Send", 0, "(nil)", "0x1", 4, 7, 0, 1, "0xb", 2),
		HP "NCCL INFO comm 0xb rank 0 nranks 2 cudaDev 1 busId 3b000 - "
		   "Destroy COMPLETE\n" HP
		   "NCCL INFO comm 0xb rank 1 nranks 2 cudaDev 1 busId 3b000 "
		   "- Init COMPLETE\n",
		coll(HP, "Recv", 0, "(nil)", "0x1", 4, 7, 0, 0, "0xb", 2),
		NULL);
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_uint_eq(s->ops->len, 2);
	ck_assert_str_eq(group_id(s, op_at(s, 0)), "nccl-nranks:2#0");
	ck_assert_str_eq(group_id(s, op_at(s, 1)), "nccl-nranks:2#1");
	ck_assert_int_eq(op_at(s, 0)->seq, 0);
	ck_assert_int_eq(op_at(s, 1)->seq, 0);
	/* world comm (4 ranks) gives the global rank */
	ck_assert_int_eq(hd_op_rank(op_at(s, 1)), 1);
	ck_assert_int_eq(hd_group_global_rank(
				 hd_store_group_at(s, op_at(s, 1)->group), 1),
			 1);
}
END_TEST

/* ---- COLL lines (the format notes, section 3) ---- */

START_TEST(test_coll_enums)
{
	static const enum hd_dtype dt[] = {
		HD_DTYPE_INT8,	   HD_DTYPE_UINT8,    HD_DTYPE_INT32,
		HD_DTYPE_UINT32,   HD_DTYPE_INT64,    HD_DTYPE_UINT64,
		HD_DTYPE_FLOAT16,  HD_DTYPE_FLOAT32,  HD_DTYPE_FLOAT64,
		HD_DTYPE_BFLOAT16, HD_DTYPE_FP8_E4M3, HD_DTYPE_FP8_E5M2,
	};
	static const enum hd_redop ro[] = {
		HD_REDOP_SUM,	    HD_REDOP_PROD, HD_REDOP_MAX,
		HD_REDOP_MIN,	    HD_REDOP_AVG,  HD_REDOP_PREMULSUM,
		HD_REDOP_PREMULSUM,
	};
	GString *t = g_string_new(INIT_216);
	g_autoptr(hd_store) s = NULL;

	for (int i = 0; i < 13; i++) {
		char *l = coll(HP, "AllReduce", 0, "0x1", "0x1", 8, i, 0, 0, CM,
			       4);

		g_string_append(t, l);
	}
	for (int i = 0; i < 7; i++) {
		char *l = coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7,
			       i == 6 ? 9 : i, 0, CM, 4);

		g_string_append(t, l);
	}
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	g_string_free(t, TRUE);
	ck_assert_uint_eq(s->ops->len, 20);
	for (int i = 0; i < 12; i++)
		ck_assert_int_eq(hd_op_desc(op_at(s, i))->dtype, dt[i]);
	ck_assert_int_eq(hd_op_desc(op_at(s, 12))->dtype, HD_DTYPE_OTHER);
	ck_assert_ptr_nonnull(hd_op_desc(op_at(s, 12))->dtype_name);
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(hd_op_desc(op_at(s, 13 + i))->redop, ro[i]);
	/* opCount stays 0 (2.8): seq is the ordinal */
	for (guint i = 0; i < s->ops->len; i++) {
		ck_assert_int_eq(op_at(s, i)->seq, i);
		ck_assert_int_eq(hd_op_op_count(s, op_at(s, i)), 0);
		ck_assert_int_eq(op_at(s, i)->seq_kind, HD_SEQ_ORDINAL);
		ck_assert_int_eq(op_at(s, i)->state, HD_STATE_ENQUEUED);
	}
}
END_TEST

START_TEST(test_coll_counts_and_eras)
{
	g_autofree char *text = g_strconcat(
		INIT_216,
		coll(HP, "AllGather", 0x3f, "0x1", "0x2", 100, 7, 0, 0, CM, 4),
		coll(HP, "ReduceScatter", 0x40, "0x1", "0x2", 100, 7, 0, 0, CM,
		     4),
		coll(HP, "Broadcast", 0x41, "0x1", "0x1", 5, 7, 0, 2, CM, 4),
		/* <= 2.11 Send/Recv buffers */
		coll(HP, "Send", 0x42, "0x1", "(nil)", 6, 7, 0, 3, CM, 4),
		coll(HP, "Recv", 0x42, "(nil)", "0x1", 6, 7, 0, 0, CM, 4),
		/* 2.12+ */
		coll(HP, "Send", 0x43, "(nil)", "0x1", 7, 7, 0, 2, CM, 4),
		coll(HP, "AlltoAll", 0x44, "0x1", "0x2", 9, 7, 0, 0, CM, 4),
		NULL);
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_uint_eq(s->ops->len, 7);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->count_in, 100);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->count_out, 400);
	ck_assert_int_eq(hd_op_op_count(s, op_at(s, 0)), 0x3f);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->redop, HD_REDOP_NONE);
	ck_assert_int_eq(hd_op_desc(op_at(s, 1))->count_in, 400);
	ck_assert_int_eq(hd_op_desc(op_at(s, 1))->count_out, 100);
	ck_assert_int_eq(hd_op_desc(op_at(s, 2))->peer, 2);
	ck_assert_int_eq(op_at(s, 3)->kind, HD_OP_SEND);
	ck_assert_int_eq(hd_op_desc(op_at(s, 3))->peer, 3);
	ck_assert_int_eq(hd_op_desc(op_at(s, 3))->count_in, 6);
	ck_assert_int_eq(hd_op_desc(op_at(s, 3))->count_out, -1);
	ck_assert_int_eq(op_at(s, 4)->kind, HD_OP_RECV);
	ck_assert_int_eq(hd_op_desc(op_at(s, 4))->peer, 0);
	ck_assert_int_eq(hd_op_desc(op_at(s, 4))->count_out, 6);
	ck_assert_int_eq(hd_op_desc(op_at(s, 5))->peer, 2);
	ck_assert_int_eq(op_at(s, 6)->kind, HD_OP_ALL_TO_ALL);
	ck_assert_int_eq(hd_op_desc(op_at(s, 6))->count_in, 9);
	ck_assert_str_eq(hd_op_desc(op_at(s, 6))->name, "AlltoAll");
	ck_assert_str_eq(hd_op_desc(op_at(s, 0))->name, "AllGather");
	ck_assert_int_eq(op_at(s, 6)->seq, 6);
	ck_assert_int_eq(hd_op_prov(s, op_at(s, 6)).at, 8);
	ck_assert_int_eq(hd_op_prov(s, op_at(s, 6)).kind, HD_PROV_LINE);
}
END_TEST

START_TEST(test_coll_cut_1024)
{
	/* A record cut at the 1024-byte buffer: kept, flagged truncated. */
	char *full = coll(HP, "AllReduce", 1, "0x1", "0x1", 8, 7, 0, 0, CM, 4);
	g_autofree char *cut = g_strndup(full, strlen(full) - 30);
	g_autofree char *early = g_strndup(full, 60);
	g_autofree char *host = g_strnfill(1023 - (strlen(full) - 17), 'h');
	g_autofree char *longp = g_strdup_printf("%s:4242:4242 [1] ", host);
	char *l1023 = coll(longp, "AllReduce", 2, "0x1", "0x1", 8, 7, 0, 0,
			   "0x77", 4);
	g_autofree char *text = NULL;
	g_autoptr(hd_store) s = NULL;

	/* cut inside the last pointer: whole-looking, but 1023 bytes */
	l1023[1023] = '\0';
	text = g_strconcat(
		INIT_216, cut, "\n", early, "\n", longp,
		"NCCL INFO comm 0x77 rank 2 nranks 4 cudaDev 1 busId "
		"3b000 commId " CID " - Init COMPLETE\n",
		l1023, "\n", NULL);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	ck_assert_uint_eq(s->ops->len, 2);
	ck_assert(op_at(s, 0)->flags & HD_OPF_TRUNCATED);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->count_in, 8);
	ck_assert(op_at(s, 1)->flags & HD_OPF_TRUNCATED);
	/* cut before the comm pointer: skipped with a reason */
	ck_assert_int_eq(in0(s)->skipped, 1);
}
END_TEST

START_TEST(test_rank_unknown_skipped)
{
	/*
	 * No Init, no hint: the process's rank stays unknown, and its ops
	 * are kept under an anonymous rank, named by a signal (issue 11).
	 */
	g_autofree char *text = g_strconcat(
		coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0, CM, 4),
		coll(HP, "AllReduce", 1, "0x1", "0x1", 8, 7, 0, 0, CM, 4),
		NULL);
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	struct hd_input *in = in0(s);

	ck_assert_uint_eq(s->ops->len, 2);
	/* one process of unknown rank, the first of its input */
	ck_assert_int_eq(hd_op_rank(op_at(s, 0)), -1);
	ck_assert(hd_op_is_anon(op_at(s, 0)));
	ck_assert_int_eq(hd_op_anon(op_at(s, 0)), 0);
	ck_assert_int_eq(hd_op_anon(op_at(s, 1)), 0);
	ck_assert_int_eq(in->skipped, 0);
	ck_assert_int_eq(in->records, 2);
	ck_assert_int_eq(sig_type(s, HD_SIGT_ANON_PROC)->rank, -1);
	ck_assert_int_eq(hd_signal_anon_proc(sig_type(s, HD_SIGT_ANON_PROC)),
			 0);
	ck_assert_ptr_nonnull(sig_type(s, HD_SIGT_ANON_PROC)->host);
	ck_assert_ptr_nonnull(
		strstr(g_ptr_array_index(in->warnings, 0), "rank unknown"));
}
END_TEST

/* NCCL 2.3's rank lines give the rank; near misses do not. */
START_TEST(test_init_23_rank_lines)
{
	g_autofree char *text = g_strconcat(
		"h23:5:6 [1] NCCL INFO rank 1 nranks 4\n",
		"h23:5:7 [1] NCCL INFO comm " CM " rank 1 nranks 4\n",
		coll("h23:5:5 [1] ", "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0,
		     CM, 4),
		"h23:6:6 [2] NCCL INFO rank 2 nranks 4 extra words\n",
		"h23:6:6 [2] NCCL INFO comm " CM " rank 9 nranks 4\n",
		"h23:6:6 [2] NCCL INFO comm zz rank 2 nranks 4\n",
		"h23:6:6 [2] NCCL INFO rank -1 nranks 4\n",
		coll("h23:6:6 [2] ", "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0,
		     CM, 4),
		NULL);
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_uint_eq(s->ops->len, 2);
	ck_assert_int_eq(hd_op_rank(op_at(s, 0)), 1);
	/* every line of the second process was malformed: anonymous */
	ck_assert_int_eq(hd_op_rank(op_at(s, 1)), -1);
	ck_assert_int_eq(hd_op_anon(op_at(s, 1)), 0);
}
END_TEST

/* ---- Attribution ---- */

START_TEST(test_interleaved_torchrun)
{
	/* Two processes in one torchrun file; c10d lines carry [rankG]. */
	GString *t = g_string_new(NULL);
	g_autoptr(hd_store) s = NULL;

	for (int r = 0; r < 2; r++)
		g_string_append_printf(
			t,
			"[default%d]:node-a:%d:%d [%d] NCCL INFO comm 0x%d rank "
			"%d nranks 2 cudaDev %d busId %d000 commId " CID
			" - Init COMPLETE\n",
			r, 100 + r, 100 + r, r, 10 + r, r, r, r + 1);
	for (int i = 0; i < 3; i++)
		for (int r = 1; r >= 0; r--) {
			char pre[64], comm[16];
			char *l = NULL;

			g_snprintf(pre, sizeof(pre),
				   "[default%d]:node-a:%d:%d [%d] ", r, 100 + r,
				   100 + r, r);
			g_snprintf(comm, sizeof(comm), "0x%d", 10 + r);
			l = coll(pre, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0,
				 comm, 2);
			g_string_append(t, l);
		}
	g_string_append(t, "[default1]:[rank1]:[E305 14:02:11.1 "
			   "ProcessGroupNCCL.cpp:640] [PG 0 Rank 1] Watchdog "
			   "caught collective operation timeout: "
			   "WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=8, "
			   "NumelOut=8, Timeout(ms)=1000) ran for 1001 "
			   "milliseconds before timing out.\n");
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	g_string_free(t, TRUE);
	ck_assert_uint_eq(s->ops->len, 6);
	for (guint i = 0; i < 6; i++) {
		ck_assert_int_eq(hd_op_rank(op_at(s, i)), i % 2 == 0 ? 1 : 0);
		ck_assert_int_eq(op_at(s, i)->seq, i / 2);
	}
	ck_assert_int_eq(hd_store_find_rank(s, 1)->pid, 101);
	ck_assert_int_eq(hd_store_find_rank(s, 0)->cuda_dev, 0);
	ck_assert_str_eq(hd_store_find_rank(s, 1)->bus_id, "2000");
	ck_assert_int_eq(sig_type(s, HD_SIGT_WATCHDOG_TIMEOUT)->pid, 101);
	/* two ranks: the input is not one rank's */
	ck_assert_int_eq(in0(s)->rank, -1);
}
END_TEST

START_TEST(test_interleaved_many_processes)
{
	/*
	 * More processes than the parser's prefix and process caches hold
	 * (64 each), interleaved line by line, hosts and pids chosen so
	 * prefixes share lengths and most bytes: every op must still land
	 * on its own rank, in order.
	 */
	enum { NPROC = 150, NOPS = 3 };
	GString *t = g_string_new(NULL);
	g_autoptr(hd_store) s = NULL;

	for (int r = 0; r < NPROC; r++)
		g_string_append_printf(
			t,
			"node-%c:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks "
			"%d cudaDev %d busId %d000 commId " CID
			" - Init COMPLETE\n",
			'a' + r % 2, 1000 + r / 2, 1000 + r / 2, r % 8,
			0x1000 + r, r, NPROC, r % 8, r % 8);
	for (int i = 0; i < NOPS; i++)
		for (int r = 0; r < NPROC; r++) {
			char pre[64], comm[16];

			g_snprintf(pre, sizeof(pre), "node-%c:%d:%d [%d] ",
				   'a' + r % 2, 1000 + r / 2, 1000 + r / 2,
				   r % 8);
			g_snprintf(comm, sizeof(comm), "0x%x", 0x1000 + r);
			g_string_append(t,
					coll(pre, "AllReduce", i, "0x1", "0x1",
					     8 + r, 7, 0, 0, comm, NPROC));
		}
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	g_string_free(t, TRUE);
	ck_assert_uint_eq(s->ops->len, NPROC * NOPS);
	for (guint i = 0; i < NPROC * NOPS; i++) {
		ck_assert_int_eq(hd_op_rank(op_at(s, i)), (int)(i % NPROC));
		ck_assert_int_eq(op_at(s, i)->seq, (int)(i / NPROC));
		ck_assert_int_eq(hd_op_desc(op_at(s, i))->count_in,
				 8 + (int)(i % NPROC));
	}
	ck_assert_int_eq(hd_store_find_rank(s, 149)->pid, 1074);
	ck_assert_str_eq(hd_store_find_rank(s, 149)->host, "node-b");
	ck_assert_uint_eq(in0(s)->skipped, 0);
}
END_TEST

START_TEST(test_bootstrap_address)
{
	/*
	 * The address a process bootstraps on is how other hosts' IB and
	 * socket errors name it.  The first one per process is kept; an
	 * alias interface, IPv6, and lines that name no address.
	 */
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"node-a:10:10 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.5<0>\n"
		"node-a:10:10 [0] NCCL INFO Bootstrap : Using eth1:10.9.9.9<0>\n"
		"node-a:10:10 [0] NCCL INFO comm 0x10 rank 0 nranks 4 cudaDev 0 "
		"busId 1000 commId " CID " - Init COMPLETE\n"
		"node-b:11:11 [0] NCCL INFO Bootstrap : Using eth0:1:10.1.0.6<0>\n"
		"node-b:11:11 [0] NCCL INFO comm 0x11 rank 1 nranks 4 cudaDev 0 "
		"busId 1000 commId " CID " - Init COMPLETE\n"
		"node-c:12:12 [0] NCCL INFO Bootstrap : Using ib0:fe80::1<0>\n"
		"node-c:12:12 [0] NCCL INFO comm 0x12 rank 2 nranks 4 cudaDev 0 "
		"busId 1000 commId " CID " - Init COMPLETE\n"
		"node-d:13:13 [0] NCCL INFO Bootstrap : Using eth0:<0>\n"
		"node-d:13:13 [0] NCCL INFO Bootstrap : Using garbage\n"
		"node-d:13:13 [0] NCCL INFO comm 0x13 rank 3 nranks 4 cudaDev 0 "
		"busId 1000 commId " CID " - Init COMPLETE\n");

	ck_assert_str_eq(hd_store_find_rank(s, 0)->addr, "10.1.0.5");
	ck_assert_str_eq(hd_store_find_rank(s, 1)->addr, "10.1.0.6");
	ck_assert_str_eq(hd_store_find_rank(s, 2)->addr, "fe80::1");
	ck_assert_ptr_null(hd_store_find_rank(s, 3)->addr);
}
END_TEST

START_TEST(test_c10d_rank_beats_world_rank)
{
	/* The c10d [rankG] of the same stream wins over the comm rank. */
	g_autofree char *text = g_strconcat(
		INIT_216,
		coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0, CM, 4),
		"[rank5]:[W305 14:02:11.1 ProcessGroupNCCL.cpp:1] [PG 0 Rank "
		"5] Received a dump signal from this local rank and will start "
		"to dump the debug info. Last enqueued NCCL work: 3, last "
		"completed NCCL work: 2.\n",
		NULL);
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_int_eq(hd_op_rank(op_at(s, 0)), 5);
	ck_assert_int_eq(in0(s)->rank, 5);
	ck_assert_int_eq(sig_at(s, 0)->type, HD_SIGT_PG_STATUS);
	ck_assert_int_eq(sig_at(s, 0)->seq, -1);
	ck_assert_int_eq(sig_at(s, 0)->last_enqueued, 3);
	ck_assert_int_eq(sig_at(s, 0)->last_completed, 2);
}
END_TEST

START_TEST(test_wrappers)
{
	/* Each wrapper: the line parses, and the rank hint is kept. */
	static const struct {
		const char *prefix;
		int rank; /* expected global rank (no Init gives one) */
	} cases[] = {
		{ "[1,5]<stdout>:node-a:4242:4242 [1] ", 5 },
		/* a rank tag is weaker than the world comm's rank */
		{ "[5] node-a:4242:4242 [1] ", 1 },
		{ "12: node-a:4242:4242 [1] ", 12 },
		{ "node-a: node-a:4242:4242 [1] ", 1 },
		{ "(WorkerDict pid=4242, ip=10.1.0.5) node-a:4242:4242 [1] ",
		  1 },
		{ "[default3]:node-a:4242:4242 [1] ", 1 },
		{ "2025-03-02 10:15:07.2154 node-a >> node-a:4242:4242 [1] ",
		  1 },
		{ "2025-03-02T10:15:07.215Z: node-a:4242:4242 [1] ", 1 },
		{ "[2025-03-02 10:15:07] node-a:4242:4242 [1] ", 1 },
		{ " 2025-03-02 10:15 node-a:4242:4242 [1] ", 1 },
		{ "bench.node-a [stderr] node-a:4242:4242 [1] ", 1 },
		{ "\x1b[36mnode-a:4242:4242 [1] ", 1 },
		{ "[36mnode-a:4242:4242 [1] ", 1 },
		{ ":4242:4242 [1] ", 1 },
		/* a worker's own label, as srun's task: the rank */
		{ "(VllmWorker rank=5 pid=4242) node-a:4242:4242 [1] ", 5 },
		/* two prefixes on one line: the text is the last one's */
		{ "(VllmWorker rank=2 pid=4241) (VllmWorker rank=5 pid=4242) "
		  "node-a:4242:4242 [1] ",
		  5 },
		/* a TP index is no rank; nor is a rank= after the pid */
		{ "(Worker_TP3 pid=4242) node-a:4242:4242 [1] ", 1 },
		{ "(Worker pid=4242 rank=5) node-a:4242:4242 [1] ", 1 },
		{ "(Worker rank=5x pid=4242) node-a:4242:4242 [1] ", 1 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		/* the Init line carries the same wrapper, so ranks 5 and 12
		 * come from the hint, the others from the comm rank 1 */
		g_autofree char *init = g_strdup_printf(
			"%sNCCL INFO comm " CM " rank 1 nranks 16 cudaDev 1 "
			"busId 3b000 commId " CID " - Init COMPLETE\n",
			cases[i].prefix);
		char *l = coll(cases[i].prefix, "AllReduce", 0, "0x1", "0x1", 8,
			       7, 0, 0, CM, 16);
		g_autofree char *text = g_strconcat(init, l, NULL);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

		ck_assert_msg(s->ops->len == 1, "case %zu: %u ops", i,
			      s->ops->len);
		ck_assert_msg(hd_op_rank(op_at(s, 0)) == cases[i].rank,
			      "case %zu: rank %d", i, hd_op_rank(op_at(s, 0)));
		ck_assert_int_eq(in0(s)->skipped, 0);
		if (i == 13)
			ck_assert_str_eq(
				hd_store_find_rank(s, 1)->host ? "x" : "", "");
		else
			ck_assert_str_eq(
				hd_store_find_rank(s, cases[i].rank)->host,
				"node-a");
	}
}
END_TEST

START_TEST(test_worker_label_signals)
{
	/* A worker's labelled traceback is its rank's; Ray's label is none. */
	static const char text[] =
		"(VllmWorker rank=3 pid=406) ERROR 07-23 19:34:50 [mp.py:487] "
		"Traceback (most recent call last):\n"
		"(VllmWorker rank=3 pid=406) ERROR 07-23 19:34:50 [mp.py:487] "
		"  File \"/w.py\", line 4, in load\n"
		"(VllmWorker rank=3 pid=406) ERROR 07-23 19:34:50 [mp.py:487] "
		"torch.OutOfMemoryError: CUDA out of memory. Tried to "
		"allocate 2.00 GiB.\n"
		"(RayWorkerWrapper pid=291, ip=10.0.0.8) ERROR 07-23 19:34:51 "
		"[mp.py:487] torch.OutOfMemoryError: CUDA out of memory. "
		"Tried to allocate 4.00 GiB.\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	int ranked = 0, rankless = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *g = sig_at(s, i);

		if (g->type != HD_SIGT_OOM)
			continue;
		if (g->rank == 3)
			ranked++;
		else if (g->rank == -1)
			rankless++;
	}
	ck_assert_int_eq(ranked, 1);
	ck_assert_int_eq(rankless, 1);
}
END_TEST

START_TEST(test_exit_noise)
{
	/*
	 * "driver shutting down" in a c10d exception or terminate's what()
	 * is the process's exit, and so is the unwind after such a WARN;
	 * a CUDA error of another text stays one.
	 */
	g_autofree char *text = g_strconcat(
		INIT_216,
		"terminate called after throwing an instance of "
		"'c10::CUDAError'\n"
		"  what():  CUDA error: driver shutting down\n",
		HP "include/alloc.h:250 NCCL WARN Cuda failure 4 'driver "
		   "shutting down'\n",
		HP "NCCL INFO transport/net.cc:836 -> 1\n",
		HP "include/alloc.h:250 NCCL WARN Cuda failure 700 'an illegal "
		   "memory access was encountered'\n",
		HP "NCCL INFO enqueue.cc:1200 -> 1\n", NULL);
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	guint exits = 0, unwinds_info = 0, unwinds_trouble = 0, cuda = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *g = sig_at(s, i);

		if (g->type == HD_SIGT_ADVISORY &&
		    hd_signal_advice(g) == HD_ADVICE_EXIT) {
			ck_assert_int_eq(g->cat, HD_SIG_INFO);
			exits++;
		} else if (g->type == HD_SIGT_UNWIND) {
			if (g->cat == HD_SIG_INFO)
				unwinds_info++;
			else
				unwinds_trouble++;
		} else if (g->type == HD_SIGT_CUDA_ERROR) {
			cuda++;
		}
	}
	ck_assert_uint_eq(exits, 2);
	ck_assert_uint_eq(unwinds_info, 1);
	ck_assert_uint_eq(unwinds_trouble, 1);
	ck_assert_uint_eq(cuda, 1);
}
END_TEST

START_TEST(test_trimmed_repeated_fused_torn)
{
	char *l1 = coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0, CM, 4);
	char *l2 = coll("node-a:4242:4242 [1] ", "Broadcast", 1, "0x1", "0x1",
			8, 7, 0, 0, CM, 4);
	char *l3 = coll("[1] ", "Reduce", 2, "0x1", "0x1", 8, 7, 0, 1, CM, 4);
	g_autofree char *fused = NULL, *torn = NULL, *text = NULL;
	g_autoptr(hd_store) s = NULL;

	/* fused: two records on one line, padded with spaces */
	l1[strlen(l1) - 1] = '\0';
	fused = g_strconcat(l1, "      ", l2, NULL);
	/* torn: a prefix with no body, then the body alone */
	torn = g_strdup_printf(HP "NCCL INFO \n%s", strstr(l2, "Broadcast:"));
	text = g_strconcat(INIT_216, fused, torn, l3,
			   "(Worker pid=1) " HP
			   "NCCL INFO Recv: opCount 3 sendbuff (nil) recvbuff "
			   "0x1 count 8 datatype 7 op 0 root 2 comm " CM
			   " [nranks=4] stream (nil) [repeated 7x across "
			   "cluster]\n",
			   NULL);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	ck_assert_uint_eq(s->ops->len, 5);
	ck_assert_int_eq(op_at(s, 0)->kind, HD_OP_ALL_REDUCE);
	ck_assert_int_eq(op_at(s, 1)->kind, HD_OP_BROADCAST);
	ck_assert_int_eq(hd_op_prov(s, op_at(s, 1)).at, 2);
	ck_assert_int_eq(op_at(s, 2)->kind, HD_OP_BROADCAST);
	ck_assert_int_eq(hd_op_prov(s, op_at(s, 2)).at, 4); /* the torn body */
	ck_assert_int_eq(op_at(s, 3)->kind, HD_OP_REDUCE); /* trimmed */
	ck_assert_int_eq(hd_op_desc(op_at(s, 3))->peer, 1);
	ck_assert_int_eq(op_at(s, 4)->kind, HD_OP_RECV);
	for (guint i = 0; i < 5; i++)
		ck_assert_int_eq(op_at(s, i)->seq, i);
	ck_assert_int_eq(in0(s)->skipped, 0);
}
END_TEST

START_TEST(test_torn_unknown_provenance)
{
	/* two processes, a body with no prefix: no one to own it */
	g_autofree char *text = g_strconcat(
		INIT_216,
		"node-b:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 "
		"busId 1000 commId " CID " - Init COMPLETE\n",
		"Broadcast: opCount 1 sendbuff 0x1 recvbuff 0x1 count 8 "
		"datatype 7 op 0 root 0 comm 0x1 [nranks=4] stream (nil)\n",
		NULL);
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_uint_eq(s->ops->len, 0);
	ck_assert_int_eq(in0(s)->skipped, 1);
}
END_TEST

/* ---- WARN and unwind (the format notes, sections 2, 5, 6) ---- */

/*
 * The WARN rules (nl-warn.c) in order: one line per rule, and the pairs
 * where the order decides (a socket recv failure while polling is a dead
 * proxy, not a socket error; "Message truncated" is bootstrap, "message
 * truncated" a size mismatch).
 */
START_TEST(test_warn_rules)
{
	static const struct {
		const char *text;
		enum hd_signal_cat cat;
		enum hd_signal_type type;
	} cases[] = {
		{ "NET/IB : collective mismatch error", HD_SIG_MISMATCH,
		  HD_SIGT_SIZE_MISMATCH },
		{ "NET/IB : Got completion from peer 10.0.0.2<5> with status=12",
		  HD_SIG_NETWORK, HD_SIGT_IB_COMPLETION },
		/* an event of a port that works is a note (NCCL goes on) */
		{ "NET/IB : Got async event : GID table changed", HD_SIG_INFO,
		  HD_SIGT_ADVISORY },
		{ "NET/IB : message truncated", HD_SIG_MISMATCH,
		  HD_SIGT_SIZE_MISMATCH },
		{ "Mismatched collective detected at and around rank 3",
		  HD_SIG_MISMATCH, HD_SIGT_NCCL_COLL_MISMATCH },
		{ "bootstrap : Message truncated", HD_SIG_INIT,
		  HD_SIGT_BOOTSTRAP },
		{ "Failed to open libibverbs.so", HD_SIG_INFO,
		  HD_SIGT_TRANSPORT },
		{ "Call to ibv_create_qp failed", HD_SIG_NETWORK,
		  HD_SIGT_OTHER },
		{ "Socket recv failed while polling for opId=1", HD_SIG_CRASH,
		  HD_SIGT_PROXY_DIED },
		{ "Call to bind failed : Address in use", HD_SIG_INIT,
		  HD_SIGT_SOCKET },
		{ "Socket send failed", HD_SIG_NETWORK, HD_SIGT_SOCKET },
		{ "no socket interface found", HD_SIG_CONFIG, HD_SIGT_SOCKET },
		{ "Invalid config blocking attribute", HD_SIG_CONFIG,
		  HD_SIGT_OTHER },
		{ "Connect to 10.0.0.3<7> failed", HD_SIG_INIT,
		  HD_SIGT_SOCKET },
		/* 2.19+: the connect gives up in socketPollConnect */
		{ "socketPollConnect poll() failed, ret 1, error Connection "
		  "timed out, revents 8, connect to 10.0.0.3:41237",
		  HD_SIG_INIT, HD_SIGT_SOCKET },
		{ "socketPollConnect poll() returned 1, no POLLOUT events",
		  HD_SIG_INIT, HD_SIGT_SOCKET },
		/* a network transport's own error; not NET/Plugin's, and
		   not a transport line that names no error */
		{ "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
		  HD_SIG_NETWORK, HD_SIGT_OTHER },
		{ "NET/IB : Unable to open device mlx5_3", HD_SIG_NETWORK,
		  HD_SIGT_OTHER },
		{ "NET/IB : No device found.", HD_SIG_NCCL_INTERNAL,
		  HD_SIGT_OTHER },
		{ "[Proxy Service 2] Failed to execute operation Connect from "
		  "rank 5",
		  HD_SIG_NETWORK, HD_SIGT_SOCKET },
		{ "mismatch in rank count", HD_SIG_INIT, HD_SIGT_BOOTSTRAP },
		{ "Cuda failure 'invalid argument'", HD_SIG_CUDA,
		  HD_SIGT_CUDA_ERROR },
		{ "Failed to CUDA host alloc", HD_SIG_CUDA, HD_SIGT_OOM },
		{ "failed to extend /dev/shm/x", HD_SIG_CONFIG, HD_SIGT_SHM },
		{ "comm 0x1 was revoked", HD_SIG_NCCL_INTERNAL,
		  HD_SIGT_COMM_ABORTED },
		/* trust (issue 18): advice on the environment, after every
		   error rule (an error it also names wins) */
		{ "Missing \"iommu=pt\" from kernel command line which can "
		  "lead to system instablity or hang!",
		  HD_SIG_INFO, HD_SIGT_ADVISORY },
		{ "NUMA auto balancing enabled which can lead to variability "
		  "in the RCCL performance! Disable by \"sudo sysctl "
		  "kernel.numa_balancing=0\"",
		  HD_SIG_INFO, HD_SIGT_ADVISORY },
		{ "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
		  "libnccl-net.so: cannot open shared object file: No such "
		  "file or directory",
		  HD_SIG_INFO, HD_SIGT_ADVISORY },
		{ "nvmlwrap.cc:98 NVML_FAILURE Not Supported", HD_SIG_INFO,
		  HD_SIGT_ADVISORY },
		{ "Cuda failure 'operation not supported' (nvml Not Supported)",
		  HD_SIG_CUDA, HD_SIGT_CUDA_ERROR },
		{ "nvmlDeviceGetNvLinkCapability() failed: Not Supported",
		  HD_SIG_INFO, HD_SIGT_ADVISORY },
		{ "NET/Plugin: Could not find: libnccl-net.so. Using internal "
		  "network plugin.",
		  HD_SIG_INFO, HD_SIGT_ADVISORY },
		/* issue 20 (MED-3): advice with an error on the same line is
		   the line without the advice; an error word inside the
		   advice's own phrases is not one, each other one is */
		{ "Missing \"iommu=pt\" from kernel command line which can "
		  "lead to system instablity or hang! ncclCommInitRank "
		  "failed: unhandled system error",
		  HD_SIG_NCCL_INTERNAL, HD_SIGT_WARN_ERROR },
		{ "NUMA auto balancing enabled which can lead to variability "
		  "in the RCCL performance! Socket recv failed",
		  HD_SIG_NETWORK, HD_SIGT_SOCKET },
		{ "NET/Plugin: Could not find: libnccl-net.so. Could not "
		  "connect to 10.0.0.3",
		  HD_SIG_NCCL_INTERNAL, HD_SIGT_WARN_ERROR },
		{ "nvmlwrap.cc:98 NVML_FAILURE Not Supported; bootstrap.cc:77 "
		  "NCCL timed out",
		  HD_SIG_NCCL_INTERNAL, HD_SIGT_WARN_ERROR },
		{ "nvmlDeviceGetNvLinkCapability() failed: Not Supported "
		  "ncclCommInitRank() failed",
		  HD_SIG_NCCL_INTERNAL, HD_SIGT_WARN_ERROR },
		/* no rule's, but an error in NCCL's words: never advice */
		{ "Unhandled system error while calling ncclCommInitRank",
		  HD_SIG_NCCL_INTERNAL, HD_SIGT_WARN_ERROR },
		{ "NET/Plugin : Plugin init failed", HD_SIG_NCCL_INTERNAL,
		  HD_SIGT_WARN_ERROR },
		{ "Widget count 3 is above the 2 recommended",
		  HD_SIG_NCCL_INTERNAL,
		  HD_SIGT_OTHER }, /* more IB events: a port that works is a note; a port error
		   and every fatal event are faults */
		{ "NET/IB : mlx5_0:1 GID table changed", HD_SIG_INFO,
		  HD_SIGT_ADVISORY },
		{ "NET/IB : mlx5_0:1 Got non-fatal async event: port "
		  "active(9)",
		  HD_SIG_INFO, HD_SIGT_ADVISORY },
		{ "NET/IB : Got async event : client reregistration",
		  HD_SIG_INFO, HD_SIGT_ADVISORY },
		{ "NET/IB : mlx5_0:1 Got non-fatal async event: port error(10)",
		  HD_SIG_NETWORK, HD_SIGT_IB_ASYNC },
		{ "NET/IB : Got async event : port error", HD_SIG_NETWORK,
		  HD_SIGT_IB_ASYNC },
		{ "NET/IB : Got async event : path migration request error",
		  HD_SIG_NETWORK, HD_SIGT_IB_ASYNC },
		{ "NET/IB : mlx5_0:1 async fatal event on QP (0x1) qpn=7: "
		  "local work queue catastrophic error",
		  HD_SIG_NETWORK, HD_SIGT_IB_ASYNC },
		{ "NET/IB : mlx5_0:1 async fatal event: local catastrophic "
		  "error after port active",
		  HD_SIG_NETWORK, HD_SIGT_IB_ASYNC },
		/* the CUDA runtime unloading as the process exits */
		{ "Cuda failure 4 'driver shutting down'", HD_SIG_INFO,
		  HD_SIGT_ADVISORY },
		{ "Cuda failure 'driver shutting down'; Socket recv failed",
		  HD_SIG_NETWORK, HD_SIGT_SOCKET },
		/* a benign event's line that names another error is that */
		{ "NET/IB : Got async event : port active; Call to "
		  "ibv_modify_qp failed",
		  HD_SIG_NETWORK, HD_SIGT_IB_ASYNC },
	};
	g_autoptr(GString) text = g_string_new(NULL);
	g_autoptr(hd_store) s = NULL;

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
		g_string_append_printf(text, HP "misc/x.cc:1 NCCL WARN %s\n",
				       cases[i].text);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text->str);
	ck_assert_uint_eq(s->signals->len, G_N_ELEMENTS(cases));
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		const struct hd_signal *g = sig_at(s, i);

		ck_assert_msg(
			g->cat == cases[i].cat && g->type == cases[i].type,
			"'%s': cat %d type %d", cases[i].text, g->cat, g->type);
		/* a port's event and an exit's error say so */
		if (g->type == HD_SIGT_ADVISORY)
			ck_assert_int_eq(
				hd_signal_advice(g),
				strstr(cases[i].text, "NET/IB")
					? HD_ADVICE_PORT_EVENT
				: strstr(cases[i].text, "shutting down")
					? HD_ADVICE_EXIT
					: HD_ADVICE_ENV);
	}
	/* the captures: peer, rank, code */
	ck_assert_str_eq(sig_at(s, 1)->peer, "10.0.0.2<5>");
	ck_assert_int_eq(sig_at(s, 1)->code, 12);
	ck_assert_int_eq(sig_at(s, 4)->peer_rank, 3);
	ck_assert_str_eq(sig_at(s, 14)->peer, "10.0.0.3:41237");
	ck_assert_int_eq(sig_at(s, 19)->peer_rank, 5);
}
END_TEST

/*
 * Destroy COMPLETE proves the comm's ops completed, unless a WARN that is
 * not advice came after its first op: advice on the environment (a net
 * plugin not found at the first connect) does not stop the proof, an
 * error in NCCL's words or one of no known kind does.
 */
START_TEST(test_destroy_after_advice)
{
	static const struct {
		const char *warn;
		bool proved;
	} cases[] = {
		{ "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : "
		  "libnccl-net.so: cannot open shared object file",
		  true },
		{ "Unhandled system error while connecting", false },
		{ "Widget count 3 is above the 2 recommended", false },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text = g_strconcat(
			INIT_216,
			coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0, CM,
			     4),
			HP "misc/x.cc:1 NCCL WARN ", cases[i].warn, "\n",
			coll(HP, "AllReduce", 1, "0x1", "0x1", 8, 7, 0, 0, CM,
			     4),
			HP "NCCL INFO comm " CM " rank 1 nranks 4 cudaDev 1 "
			   "busId 3b000 - Destroy COMPLETE\n",
			NULL);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

		ck_assert_uint_eq(s->ops->len, 2);
		for (guint k = 0; k < 2; k++)
			ck_assert_msg((op_at(s, k)->state ==
				       HD_STATE_COMPLETED) == cases[i].proved,
				      "'%s': op %u state %d", cases[i].warn, k,
				      op_at(s, k)->state);
	}
}
END_TEST

START_TEST(test_warn_forms)
{
	const char *text = INIT_216
		"NCCL version 2.18.3+cuda12.2\n"
		"\n" HP "misc/socket.cc:71 NCCL WARN Cuda failure 'out of "
		"memory'\n"
		"\n"
		"[2025-03-02 10:15:07] " HP
		"misc/socket.cc:71 NCCL WARN socketProgress: Connection closed "
		"by remote peer node-b<41873>\n" HP
		"misc/socket.cc:71 (socketProgress) NCCL WARN Duplicate GPU "
		"detected : rank 1 and rank 2 both on CUDA device 3b000\n" HP
		"NCCL INFO misc/socket.cc:60 -> 3 (Connection reset by peer)\n" HP
		"NCCL INFO init.cc:1530 -> 5 [Async thread]\n" HP
		"transport/shm.cc:12 NCCL WARN Error while creating shared "
		"memory segment /dev/shm/nccl-x (size 1)\n" HP
		"misc/x.cc:1 NCCL WARN something nobody has seen\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	struct hd_signal *g;

	ck_assert_uint_eq(s->signals->len, 7);
	g = sig_at(s, 0);
	ck_assert_int_eq(g->type, HD_SIGT_OOM);
	ck_assert_int_eq(g->cat, HD_SIG_CUDA);
	ck_assert(!hd_time_known(g->time));
	ck_assert_int_eq(g->rank, 1);
	ck_assert_int_eq(g->pid, 4242);
	ck_assert_int_eq(g->prov.at, 4);
	g = sig_at(s, 1);
	ck_assert_int_eq(g->type, HD_SIGT_PEER_CLOSED);
	ck_assert_int_eq(g->cat, HD_SIG_CRASH);
	ck_assert_str_eq(g->peer, "node-b<41873>");
	ck_assert_int_eq(g->time.clock, HD_CLOCK_LOCAL);
	/* 2025-03-02 10:15:07 as if UTC */
	ck_assert_int_eq(g->time.ns, G_GINT64_CONSTANT(1740910507000000000));
	ck_assert(g_str_has_prefix(g->text, HP));
	ck_assert_int_eq(sig_at(s, 2)->type, HD_SIGT_DUPLICATE_GPU);
	ck_assert_int_eq(sig_at(s, 2)->cat, HD_SIG_INIT);
	ck_assert_int_eq(sig_at(s, 3)->type, HD_SIGT_UNWIND);
	ck_assert_int_eq(sig_at(s, 3)->code, 3);
	ck_assert_int_eq(sig_at(s, 4)->code, 5);
	ck_assert_int_eq(sig_at(s, 5)->type, HD_SIGT_SHM);
	ck_assert_int_eq(sig_at(s, 5)->cat, HD_SIG_CONFIG);
	ck_assert_int_eq(sig_at(s, 6)->type, HD_SIGT_OTHER);
	ck_assert_int_eq(sig_at(s, 6)->cat, HD_SIG_NCCL_INTERNAL);
	/* (func) and a WARN timestamp say >= 2.30: the format wins */
	ck_assert_str_eq(hd_store_find_rank(s, 1)->nccl_version, "2.30+");
}
END_TEST

START_TEST(test_warn_22_no_token)
{
	const char *text =
		"node-a:4242:4242 [1] INFO comm 0xa rank 1 nranks 4 cudaDev 1 "
		"nvmlDev 1 - Init COMPLETE\n"
		"node-a:4242:4242 [1] misc/ibvwrap.cu:100 WARN Call to "
		"ibv_reg_mr failed\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_uint_eq(s->signals->len, 1);
	ck_assert_int_eq(sig_at(s, 0)->cat, HD_SIG_NETWORK);
	ck_assert_int_eq(sig_at(s, 0)->rank, 1);
	ck_assert_str_eq(hd_store_find_rank(s, 1)->nccl_version, "2.2");
}
END_TEST

START_TEST(test_ib_completion_eras)
{
	static const struct {
		const char *msg;
		const char *peer;
		int status;
	} cases[] = {
		{ "NET/IB : Got completion with error 12, opcode 0, len 0, "
		  "vendor err 129",
		  NULL, 12 },
		{ "NET/IB : Got completion from peer 10.1.0.6<36123> with error "
		  "12, opcode 0, len 0, vendor err 129 (Send) localGid ::1 "
		  "remoteGids ::2",
		  "10.1.0.6<36123>", 12 },
		{ "NET/IB: Got completion from peer 10.1.0.6<36123> with "
		  "status=5 opcode=0 len=0 vendor err 249 (Recv) hca mlx5_0",
		  "10.1.0.6<36123>", 5 },
		{ "NET/IB: Got completion from peer 10.1.0.6<36123> with "
		  "status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) "
		  "reqSize=0 vendor_err=129 req_type=Send localGid ::1 hca "
		  "mlx5_0",
		  "10.1.0.6<36123>", 12 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text = g_strdup_printf(
			INIT_216 "\n" HP "transport/net_ib.cc:1 NCCL WARN %s\n",
			cases[i].msg);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
		struct hd_signal *g = sig_type(s, HD_SIGT_IB_COMPLETION);

		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(g->cat, HD_SIG_NETWORK);
		ck_assert_int_eq(g->code, cases[i].status);
		if (cases[i].peer)
			ck_assert_str_eq(g->peer, cases[i].peer);
		else
			ck_assert_ptr_null(g->peer);
	}
}
END_TEST

/* ---- c10d shapes of real logs (issue 11) ---- */

START_TEST(test_c10d_old_watchdog_ranks)
{
	/* three ranks in one file, one glued to a progress bar, a what():
	   repeat without SeqNum: three signals, ranks from [Rank r] */
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"eval 12%|##  | 40/330 [00:09<01:02, 4.61it/s][E "
		"ProcessGroupNCCL.cpp:590] [Rank 4] Watchdog caught collective "
		"operation timeout: WorkNCCL(OpType=ALLREDUCE, "
		"Timeout(ms)=60000) ran for 61020 milliseconds before timing "
		"out.\n"
		"[E ProcessGroupNCCL.cpp:590] [Rank 6] Watchdog caught "
		"collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
		"Timeout(ms)=60000) ran for 61022 milliseconds before timing "
		"out.\n"
		"[E ProcessGroupNCCL.cpp:871] [Rank 5] NCCL watchdog thread "
		"terminated with exception: [Rank 5] Watchdog caught collective "
		"operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
		"Timeout(ms)=60000) ran for 61024 milliseconds before timing "
		"out.\n"
		"  what():  [Rank 5] NCCL watchdog thread terminated with "
		"exception: [Rank 5] Watchdog caught collective operation "
		"timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
		"Timeout(ms)=60000) ran for 61024 milliseconds before timing "
		"out.\n"
		/* a PG-local [Rank r] of another PG is not a global rank */
		"[E ProcessGroupNCCL.cpp:590] [PG 3 Rank 1] Watchdog caught "
		"collective operation timeout: WorkNCCL(SeqNum=2, "
		"OpType=BROADCAST, Timeout(ms)=60000) ran for 61030 "
		"milliseconds before timing out.\n"
		/* cut mid-record: no OpType, skipped */
		"[E ProcessGroupNCCL.cpp:590] [Rank 7] Watchdog caught "
		"collective operation timeout: WorkNCCL(SeqNum=9, Op\n");
	int want[] = { 4, 6, 5, -1 };

	ck_assert_uint_eq(count_type(s, HD_SIGT_WATCHDOG_TIMEOUT), 4);
	for (guint i = 0; i < 4; i++)
		ck_assert_int_eq(sig_at(s, i)->rank, want[i]);
	ck_assert_int_eq(sig_at(s, 0)->seq, -1);
	ck_assert_int_eq(sig_at(s, 2)->seq, 9);
	ck_assert_str_eq(sig_at(s, 3)->group_name, "3");
	ck_assert_uint_ge(in0(s)->skipped, 1);
}
END_TEST

START_TEST(test_c10d_fingerprints)
{
	static const char *const to =
		"TensorDeviceTypes=TensorOptions(dtype=float (default), "
		"device=cuda, layout=Strided (default), requires_grad=false "
		"(default), pinned_memory=false (default), "
		"memory_format=(nullopt))";
	g_autofree char *text = g_strdup_printf(
		/* 2.1+: two fingerprints, the differ suffix */
		"[rank3]: RuntimeError: Detected mismatch between collectives "
		"on ranks. Rank 3 is running collective: "
		"CollectiveFingerPrint(SequenceNumber=21, OpType=ALLGATHER, "
		"TensorShape=[6, 2], TensorDtypes=Half, %s), but Rank 2 is "
		"running collective: CollectiveFingerPrint(SequenceNumber=21"
		"OpType=ALLGATHER).Collectives differ in the following "
		"aspects: \tTensor Tensor shapes: 12vs 0\n"
		/* 1.10 one fingerprint, hard-wrapped inside TensorShape */
		"RuntimeError: Detected mismatch between collectives on ranks. "
		"Rank 1 is running inconsistent collective: "
		"CollectiveFingerPrint(OpType=REDUCE, TensorShape\n"
		"=[3, 3], TensorDtypes=Float, %s\n"
		/* terminal-wrapped words */
		"Detected mismatch between collectives on ranks. Rank 0 is "
		"running colle     ctive: CollectiveFingerPrint(OpType=BROAD"
		"     CAST, TensorShape=[1], TensorDtypes=Long)\n"
		/* DETAIL chatter and a message without a fingerprint */
		"[I ProcessGroupWrapper.cpp:563] [Rank 0] Running collective: "
		"CollectiveFingerPrint(SequenceNumber=20, OpType=ALLREDUCE)\n"
		"RuntimeError: Detected mismatch between collectives on ranks. "
		"Rank 9 is\n",
		to, to);
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	struct hd_signal *g;

	ck_assert_uint_eq(count_type(s, HD_SIGT_COLL_MISMATCH), 4);
	g = sig_at(s, 0);
	ck_assert_int_eq(g->rank, 3);
	ck_assert_int_eq(g->peer_rank, 2);
	ck_assert_int_eq(g->seq, 21);
	ck_assert_int_eq(g->numel_in, 12);
	ck_assert_str_eq(g->dtype_name, "Half");
	g = sig_at(s, 1);
	ck_assert_int_eq(g->rank, 2);
	ck_assert_int_eq(g->seq, 21);
	ck_assert_str_eq(g->op_name, "ALLGATHER");
	ck_assert_int_eq(g->numel_in, -1);
	g = sig_at(s, 2);
	ck_assert_int_eq(g->rank, 1);
	ck_assert_int_eq(g->peer_rank, -1);
	ck_assert_int_eq(g->numel_in, 9);
	g = sig_at(s, 3);
	ck_assert_int_eq(g->rank, 0);
	ck_assert_str_eq(g->op_name, "BROADCAST");
	ck_assert_uint_ge(in0(s)->skipped, 1);
}
END_TEST

/*
 * Another framework's words for a failed communicator setup: the call,
 * " failed: " and NCCL's result string, on one line.
 */
START_TEST(test_init_call_failed)
{
	static const struct {
		const char *text;
		guint init; /* NCCL errors of communicator setup */
	} cases[] = {
		{ "tensorflow.python.framework.errors_impl.UnknownError:  "
		  "ncclCommInitRank failed: unhandled system error\n",
		  1 },
		{ "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: "
		  "nccl_utils.cc:297: NCCL operation ncclCommInitRank(&comm, "
		  "nranks, id, rank) failed: unhandled cuda error\n",
		  1 },
		/* no result string after it: prose, not an error */
		{ "note: ncclCommInitRank failed: see the docs\n", 0 },
	};

	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, cases[k].text);
		guint init = 0;

		for (guint i = 0; i < s->signals->len; i++)
			if (sig_at(s, i)->type == HD_SIGT_NCCL_ERROR &&
			    sig_at(s, i)->cat == HD_SIG_INIT)
				init++;
		ck_assert_msg(init == cases[k].init, "case %zu: %u", k, init);
	}
}
END_TEST

START_TEST(test_c10d_exit_local_rank)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"ERROR:torch.distributed.elastic.multiprocessing.api:failed "
		"(exitcode: -9) local_rank: 3 (pid: 4410) of binary: /bin/py\n"
		"[2026-01-02 10:00:01,5] torch.distributed.elastic."
		"multiprocessing.api: [ERROR] failed (exitcode: 1) for binary "
		"located at /bin/py with local_rank: 1 (process ID: 4408)\n"
		/* absurd: no pid */
		"failed (exitcode: 1) local_rank: 2 (pid: ) of binary: x\n"
		"Failures:\n"
		"  time      : 2026-01-02_09:59:58\n"
		"  rank      : 11 (local_rank: 3)\n"
		"  exitcode  : -9 (pid: 4410)\n"
		"  time      : 2026-13-40_99:99:99\n"
		"  rank      : 9 (local_rank: 1)\n"
		"  exitcode  : 1 (pid: 4408)\n");
	struct hd_signal *g;

	ck_assert_uint_eq(count_type(s, HD_SIGT_PROCESS_EXIT), 2);
	g = sig_at(s, 0);
	ck_assert_int_eq(g->local_rank, 3);
	ck_assert_int_eq(g->rank, 11);
	ck_assert_int_eq(g->code, -9);
	/* the summary's date wins over none */
	ck_assert(hd_time_is_dated(g->time));
	g = sig_at(s, 1);
	ck_assert_int_eq(g->local_rank, 1);
	ck_assert_int_eq(g->rank, 9);
	ck_assert_int_eq(g->pid, 4408);
}
END_TEST

/*
 * DeepSpeed's launcher: the failed worker's command with its local rank,
 * its return code; no pid, so two nodes' lines are two exits; a line
 * without the return code is none.
 */
START_TEST(test_deepspeed_exit)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"[2025-06-02 09:52:03,660] [INFO] [launch.py:428:sigkill_handler] "
		"Killing subprocess 88120\n"
		"[2025-06-02 09:52:03,702] [ERROR] [launch.py:434:sigkill_handler]"
		" ['/bin/py', '-u', 't.py', '--local_rank=1', '--x'] exits with "
		"return code = -9\n"
		"[2025-06-02 09:52:04,001] [ERROR] [launch.py:434:sigkill_handler]"
		" ['/bin/py', 't.py', '--local-rank=3'] exits with return code = "
		"-9\n"
		"[2025-06-02 09:52:05,001] [ERROR] [launch.py:434:sigkill_handler]"
		" ['/bin/py', 't.py'] exits with return code = 1\n"
		"[2025-06-02 09:52:06,001] [ERROR] [launch.py:434:sigkill_handler]"
		" ['/bin/py', 't.py', '--local_rank=9'] exits with return code\n");
	struct hd_signal *g;

	ck_assert_uint_eq(count_type(s, HD_SIGT_PROCESS_EXIT), 3);
	g = sig_at(s, 0);
	ck_assert_int_eq(g->type, HD_SIGT_PROCESS_EXIT);
	ck_assert_int_eq(g->code, -9);
	ck_assert_int_eq(g->local_rank, 1);
	ck_assert_int_eq(g->rank, -1);
	ck_assert_int_eq(g->pid, 0);
	ck_assert_int_eq(sig_at(s, 1)->local_rank, 3);
	ck_assert_int_eq(sig_at(s, 2)->local_rank, -1);
	ck_assert_int_eq(sig_at(s, 2)->code, 1);
}
END_TEST

/*
 * Slurm's srun: "srun: error: HOSTS: task N: STATUS" is an exit of srun
 * task N (its host when one is named), with the code of the status:
 * "Exited with exit code N", a strsignal() text as -N, "Out Of Memory"
 * as -9.  A line of several tasks is an exit of no task.
 */
START_TEST(test_srun_exit)
{
	static const struct {
		const char *line;
		int code, task;
		const char *host;
	} cases[] = {
		{ "srun: error: gpu-b17: task 3: Exited with exit code 1\n", 1,
		  3, "gpu-b17" },
		{ "srun: error: gpu-b17: task 3: Exited with exit code 255\n",
		  255, 3, "gpu-b17" },
		{ "srun: error: gpu-b17: task 5: Segmentation fault (core "
		  "dumped)\n",
		  -11, 5, "gpu-b17" },
		{ "srun: error: gpu-b17: task 5: Segmentation fault\n", -11, 5,
		  "gpu-b17" },
		{ "srun: error: gpu-b17: task 0: Killed\n", -9, 0, "gpu-b17" },
		{ "srun: error: gpu-b17: task 2: Aborted (core dumped)\n", -6,
		  2, "gpu-b17" },
		{ "srun: error: gpu-b17: task 4: Terminated\n", -15, 4,
		  "gpu-b17" },
		{ "srun: error: gpu-b17: task 1: Bus error (core dumped)\n", -7,
		  1, "gpu-b17" },
		{ "srun: error: gpu-b17: task 1: Floating point exception\n",
		  -8, 1, "gpu-b17" },
		{ "srun: error: gpu-b17: task 1: Illegal instruction\n", -4, 1,
		  "gpu-b17" },
		{ "srun: error: gpu-b17: task 1: Trace/breakpoint trap\n", -5,
		  1, "gpu-b17" },
		{ "srun: error: gpu-b17: task 1: User defined signal 2\n", -12,
		  1, "gpu-b17" },
		{ "srun: error: gpu-b17: task 1: Hangup\n", -1, 1, "gpu-b17" },
		{ "srun: error: gpu-b17: task 1: Unknown signal 40\n", -40, 1,
		  "gpu-b17" },
		{ "srun: error: gpu-b17: task 6: Out Of Memory\n", -9, 6,
		  "gpu-b17" },
		/* CRLF, a collector's date and a pdsh host in front */
		{ "srun: error: gpu-b17: task 7: Killed\r\n", -9, 7,
		  "gpu-b17" },
		{ "[2025-06-02 09:52:03] srun: error: n001.cluster: task 2: "
		  "Killed\n",
		  -9, 2, "n001.cluster" },
		{ "login-1: srun: error: gpu-b17: task 2: Killed\n", -9, 2,
		  "gpu-b17" },
		/* one task of a bracketed list: no one host is named */
		{ "srun: error: gpu-b[17]: task 3: Killed\n", -9, 3, NULL },
		{ "srun: error: gpu-b17: task 3-3: Killed\n", -9, 3,
		  "gpu-b17" },
		/* several tasks: the aftermath, no task */
		{ "srun: error: gpu-b[17-18,20]: tasks 0-7,9: Killed\n", -9, -1,
		  NULL },
		{ "srun: error: gpu-b17: tasks 0-7: Exited with exit code 1\n",
		  1, -1, NULL },
		{ "srun: error: gpu-b17: tasks 0,5: Terminated\n", -15, -1,
		  NULL },
		{ "srun: error: gpu-b17,gpu-b18: tasks 0-31: Killed\n", -9, -1,
		  NULL },
	};

	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, cases[k].line);
		struct hd_signal *g = sig_type(s, HD_SIGT_PROCESS_EXIT);

		ck_assert_msg(g != NULL, "case %zu: no exit", k);
		ck_assert_uint_eq(count_type(s, HD_SIGT_PROCESS_EXIT), 1);
		ck_assert_msg(g->code == cases[k].code, "case %zu: code %d", k,
			      g->code);
		ck_assert_msg(g->task == cases[k].task, "case %zu: task %d", k,
			      g->task);
		/* no label shows tasks are ranks */
		ck_assert_int_eq(g->rank, -1);
		ck_assert_int_eq(g->local_rank, -1);
		ck_assert_int_eq(g->pid, 0);
		ck_assert_int_eq(g->cat, HD_SIG_CRASH);
		if (cases[k].host)
			ck_assert_str_eq(g->host ? g->host : "(null)",
					 cases[k].host);
		else
			ck_assert_msg(g->host == NULL, "case %zu: host %s", k,
				      g->host);
		ck_assert(g->text && strstr(g->text, "srun: error: "));
	}
	{
		g_autoptr(hd_store) s = hd_test_parse_ok(
			HD_INPUT_NCCL_LOG,
			"srun: error: gpu-b17: task 6: Out Of Memory\n");

		ck_assert(strstr(sig_at(s, 0)->text, "Out Of Memory"));
	}
}
END_TEST

/*
 * Cut or malformed srun exit lines, and srun's other errors, are no
 * exits: nothing is read from them, nothing crashes.
 */
START_TEST(test_srun_exit_malformed)
{
	static const char *const lines[] = {
		"srun: error: gpu1: task",
		"srun: error: gpu1: task ",
		"srun: error: gpu1: task 3",
		"srun: error: gpu1: task 3:",
		"srun: error: gpu1: task 3: ",
		"srun: error: gpu1: task 3: Kil",
		"srun: error: gpu1: task x: Killed",
		"srun: error: gpu1: task -3: Killed",
		"srun: error: gpu1: task 7-3: Killed",
		"srun: error: gpu1: tasks 0-: Killed",
		"srun: error: gpu1: tasks 0,: Killed",
		"srun: error: gpu1: task 4194304: Killed",
		"srun: error: gpu1: task 99999999999999999999999: Killed",
		"srun: error: gpu1: tasks 0-99999999999999999999999: Killed",
		"srun: error: gpu1: task 3: Killed by a bear",
		"srun: error: gpu1: task 3: Segmentation fault (core dumped) x",
		"srun: error: gpu1: task 3: (core dumped)",
		"srun: error: gpu1: task 3: Exited with exit code",
		"srun: error: gpu1: task 3: Exited with exit code 0",
		"srun: error: gpu1: task 3: Exited with exit code -1",
		"srun: error: gpu1: task 3: Exited with exit code 256",
		"srun: error: gpu1: task 3: Exited with exit code "
		"99999999999999999999999",
		"srun: error: gpu1: task 3: Exited with exit code 1 (x)",
		"srun: error: gpu1: task 3: Unknown signal 0",
		"srun: error: gpu1: task 3: Unknown signal 999",
		"srun: error: gpu1: task 3: Out Of Memory!",
		"srun: error: : task 3: Killed",
		"srun: error: gpu 1: task 3: Killed",
		"srun: error: gpu1 task 3: Killed",
		"srun: error: gpu1: job 3: Killed",
		"srun: error:",
		"srun: error: ",
		"srun: gpu1: task 3: Killed",
		"srun: error: Unable to create step for job 4242: Memory "
		"required by task is not available",
		"srun: error: Timed out waiting for job step to complete",
		"srun: error: Node failure on gpu-7",
		"srun: error: Task launch for StepId=4242.0 failed on node "
		"gpu-7: Invalid node name specified",
		"srun: error: Application launch failed: Invalid node name "
		"specified",
		"srun: error: gpu-7: task 3: launch failed: Unspecified error",
		"srun: Job step aborted: Waiting up to 32 seconds for job step "
		"to finish.",
		"srun: gpu-b17: task 0: Completed",
		"note: srun: error: gpu1: task 3: Killed",
	};

	for (size_t k = 0; k < G_N_ELEMENTS(lines); k++) {
		g_autofree char *text = g_strdup_printf("%s\n", lines[k]);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

		ck_assert_msg(count_type(s, HD_SIGT_PROCESS_EXIT) == 0,
			      "line %zu read as an exit: %s", k, lines[k]);
	}
	/* a line cut at every byte: never more than the one exit */
	{
		static const char whole[] =
			"srun: error: gpu-b[17-18]: tasks 0-3,5: Segmentation "
			"fault (core dumped)";

		for (size_t cut = 0; cut <= sizeof(whole) - 1; cut++) {
			g_autofree char *text =
				g_strdup_printf("%.*s\n", (int)cut, whole);
			g_autoptr(hd_store) s =
				hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

			ck_assert_uint_le(count_type(s, HD_SIGT_PROCESS_EXIT),
					  1);
		}
	}
}
END_TEST

/*
 * Whether srun's task is the rank: labels that agree with [rankN] say
 * so; one that contradicts, a label over several ranks, or no label at
 * all leave the rank unknown and the exit known by its task.
 */
START_TEST(test_srun_exit_ranks)
{
	static const char warn[] =
		"]:[W ProcessGroupNCCL.cpp:2302] Warning: "
		"TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for "
		"point-to-point collectives. (function operator())\n";
	static const char exit5[] =
		"srun: error: gpu-b18: task 5: Segmentation fault (core "
		"dumped)\n"
		"srun: error: gpu-b[17-18]: tasks 0-4,6-7: Aborted (core "
		"dumped)\n";
	static const struct {
		const char *labels; /* "task:rank ..." lines of warn */
		int rank;
	} cases[] = {
		{ "0:0 5:5", 5 }, /* one task per rank */
		{ "5:5", 5 },
		{ "0:0", 5 }, /* tasks are ranks: 5 too */
		{ "1:9", -1 }, /* one torchrun a node */
		{ "0:0 1:9", -1 }, /* one contradiction is enough */
		{ "0:0 0:3 1:1", -1 }, /* task 0 holds two ranks */
		{ "", -1 }, /* no label */
		{ "-:5", -1 }, /* [rank5] without an srun label */
	};

	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		g_autoptr(GString) t = g_string_new(NULL);
		g_auto(GStrv) pairs = g_strsplit(cases[k].labels, " ", -1);
		g_autoptr(hd_store) s = NULL;
		struct hd_signal *g;
		guint n = 0;

		for (guint i = 0; pairs[i]; i++) {
			char **tr;

			if (!pairs[i][0])
				continue;
			tr = g_strsplit(pairs[i], ":", 2);
			if (strcmp(tr[0], "-") == 0)
				g_string_append_printf(t, "[rank%s%s", tr[1],
						       warn);
			else
				g_string_append_printf(t, "%s: [rank%s%s",
						       tr[0], tr[1], warn);
			g_strfreev(tr);
		}
		g_string_append(t, exit5);
		s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
		for (guint i = 0; i < s->signals->len; i++) {
			g = sig_at(s, i);
			if (g->type != HD_SIGT_PROCESS_EXIT)
				continue;
			if (n++ == 0) {
				ck_assert_int_eq(g->task, 5);
				ck_assert_str_eq(g->host, "gpu-b18");
				ck_assert_int_eq(g->code, -11);
				ck_assert_msg(g->rank == cases[k].rank,
					      "case %zu: rank %d", k, g->rank);
			} else {
				/* several tasks: never a rank */
				ck_assert_int_eq(g->task, -1);
				ck_assert_int_eq(g->rank, -1);
				ck_assert_int_eq(g->code, -6);
				ck_assert(g->host == NULL);
			}
		}
		ck_assert_uint_eq(n, 2);
	}
}
END_TEST

/*
 * Two ranks under one srun label ("0: [rank0]:", "0: [rank3]:") show the
 * label is a node's index (one torchrun a node): an NCCL line under it
 * gets no rank from it.  It was rank 0's, at medium confidence.  One
 * rank per label still gives the label's rank.
 */
START_TEST(test_srun_label_two_ranks)
{
	static const char *const heads[] = {
		"0: [rank0]:[W1202 09:14:02.118 ProcessGroupNCCL.cpp:4115] x\n"
		"0: [rank3]:[W1202 09:14:02.120 ProcessGroupNCCL.cpp:4115] x\n",
		"0: [rank0]:[W1202 09:14:02.118 ProcessGroupNCCL.cpp:4115] x\n",
	};
	static const int want[] = { -1, 0 };

	for (size_t k = 0; k < G_N_ELEMENTS(heads); k++) {
		g_autofree char *t = g_strconcat(
			heads[k],
			"0: gpu-n01:51210:51266 [3] transport/net_ib.cc:1295 "
			"NCCL WARN NET/IB : Got completion from peer "
			"10.20.0.12<51011> with status=12 opcode=0 len=0 "
			"vendor err 129 (Send)\n",
			NULL);
		g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t);
		const struct hd_signal *g = NULL;

		for (guint i = 0; i < s->signals->len; i++)
			if (sig_at(s, i)->type == HD_SIGT_IB_COMPLETION)
				g = sig_at(s, i);
		ck_assert_ptr_nonnull(g);
		ck_assert_msg(g->rank == want[k], "case %zu: rank %d", k,
			      g->rank);
	}
}
END_TEST

/* srun's line ends an "NCCL error in:" block: it is no part of it. */
START_TEST(test_srun_exit_ends_error_block)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/"
		"ProcessGroupNCCL.cpp:1275, unhandled system error, NCCL "
		"version 2.18.1\n"
		"srun: error: gpu-b17: task 1: Exited with exit code 1\n"
		"srun: error: gpu-b18: task 0: Exited with exit code 1\n");
	struct hd_signal *g = sig_type(s, HD_SIGT_NCCL_ERROR);

	ck_assert(g != NULL);
	ck_assert(!strstr(g->text, "srun"));
	ck_assert_uint_eq(count_type(s, HD_SIGT_PROCESS_EXIT), 2);
}
END_TEST

/*
 * A store-loss line's store address (the engine maps it to a rank by
 * host): "remote=[host]:port", "from host:port", an IPv6 host in
 * brackets; none for a line that names no address or a broken one.
 */
START_TEST(test_c10d_store_address)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "[rank6]:[W1204 06:31:58.1 TCPStore.cpp:122] [c10d] recvValue "
		  "failed on SocketImpl(fd=61, addr=[gpu-b03]:51512, "
		  "remote=[gpu-b01]:29400): Connection reset by peer\n",
		  "gpu-b01:29400" },
		{ "[rank1]:[W1204 06:31:58.1 TCPStore.cpp:122] [c10d] recvBytes "
		  "failed from 10.1.2.3:29500: Connection reset by peer\n",
		  "10.1.2.3:29500" },
		{ "[rank1]:[W1204 06:31:58.1 TCPStore.cpp:122] [c10d] sendBytes "
		  "failed on SocketImpl(fd=3, remote=[fe80::1]:29500)\n",
		  "[fe80::1]:29500" },
		{ "[rank1]:[W1204 06:31:58.1 TCPStore.cpp:122] [c10d] sendBytes "
		  "failed on SocketImpl(fd=3, remote=[]:29500)\n",
		  NULL },
		{ "[rank1]:[W1204 06:31:58.1 TCPStore.cpp:122] [c10d] sendBytes "
		  "failed on SocketImpl(fd=3, remote=[node-x:\n",
		  NULL },
		{ "[rank1]:[W1204 06:31:58.1 TCPStore.cpp:122] [c10d] recvValue "
		  "failed from node-y: reset\n",
		  NULL },
		{ "[rank5]:[W1204 06:31:58.1 ProcessGroupNCCL.cpp:1748] [PG ID 0 "
		  "PG GUID 0 Rank 5] Failed to check the \"should dump\" flag "
		  "on TCPStore, (maybe TCPStore server has shut down too "
		  "early), with error: Connection reset by peer\n",
		  NULL },
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, cases[i].line);
		struct hd_signal *g = sig_type(s, HD_SIGT_STORE_LOST);

		ck_assert_msg(g != NULL, "case %u: no store_lost", i);
		if (cases[i].want)
			ck_assert_str_eq(g->peer ? g->peer : "(null)",
					 cases[i].want);
		else
			ck_assert_msg(g->peer == NULL, "case %u: peer %s", i,
				      g->peer);
	}
}
END_TEST

START_TEST(test_c10d_store_cuda_named)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"[rank2]:[W112 01:02:03.1 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG "
		"GUID 0 Rank 2] Failed to check the \"should dump\" flag on "
		"TCPStore, (maybe TCPStore server has shut down too early), "
		"with error: Broken pipe\n"
		"[W socket.cpp:601] [c10d] The client socket has failed to "
		"connect to [head-0]:29511 (errno: 111 - Connection refused).\n"
		"[rank1]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 1] Process "
		"group watchdog thread terminated with exception: CUDA error: "
		"misaligned address\n"
		"  what():  [PG 0 Rank 1] Process group watchdog thread "
		"terminated with exception: CUDA error: misaligned address\n"
		"RuntimeError: [Rank 0]: Ranks 3, 12 failed to pass "
		"monitoredBarrier in 30000 ms\n"
		"Not all ranks joining collective: sequence number: 88\n"
		"collective: nccl:all_gather\n"
		"missing ranks: {1, 2}\n"
		"\t   - [4, 5] joined but didn't finish collective #31 (count "
		"from 1)\n"
		"DistBackendError: NCCL error in: x.cpp:1, remote process "
		"exited or there was a network error, NCCL version 2.19.3\n");
	struct hd_signal *g;

	g = sig_type(s, HD_SIGT_STORE_LOST);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->rank, 2);
	g = sig_type(s, HD_SIGT_BOOTSTRAP);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(count_type(s, HD_SIGT_CUDA_ERROR), 1);
	ck_assert_int_eq(sig_type(s, HD_SIGT_CUDA_ERROR)->rank, 1);
	ck_assert_uint_eq(count_type(s, HD_SIGT_DUMP), 0);
	ck_assert_uint_eq(count_type(s, HD_SIGT_RANKS_NAMED), 6);
	for (guint i = 0; i < s->signals->len; i++) {
		g = sig_at(s, i);
		if (g->type == HD_SIGT_RANKS_NAMED && g->rank == 2) {
			ck_assert_int_eq(g->seq, 88);
			ck_assert_int_eq(g->code, 1);
			ck_assert_str_eq(g->op_name, "all_gather");
		}
		if (g->type == HD_SIGT_RANKS_NAMED && g->rank == 5) {
			ck_assert_int_eq(g->seq, 31);
			ck_assert_int_eq(g->code, 2);
		}
	}
	ck_assert_int_eq(sig_type(s, HD_SIGT_NCCL_ERROR)->cat, HD_SIG_NETWORK);
}
END_TEST

START_TEST(test_c10d_wrap_before_record)
{
	/* cut before WorkNCCL(, and a status line cut after "detected" */
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"host-a [stderr] [rank3]:[E221 03:10:44.7 "
		"ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective "
		"operation timeout: \n"
		"WorkNCCL(SeqNum=40, OpType=REDUCE, NumelIn=1, NumelOut=1, "
		"Timeout(ms)=600000) ran for 600011 milliseconds before timing "
		"out.\n"
		"host-a [stderr] [rank3]:[E221 03:10:44.8 "
		"ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 3] "
		"Exception (either an error or timeout) detected\n"
		"by watchdog at work: 40, last enqueued \n"
		"NCCL work: 41, last completed NCCL work: 39.\n");
	struct hd_signal *g = sig_type(s, HD_SIGT_WATCHDOG_TIMEOUT);

	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->rank, 3);
	ck_assert_int_eq(g->seq, 40);
	ck_assert_str_eq(g->op_name, "REDUCE");
	g = sig_type(s, HD_SIGT_PG_STATUS);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->last_enqueued, 41);
	ck_assert_int_eq(g->last_completed, 39);
}
END_TEST

/* ---- c10d (the format notes, section 8) ---- */

/*
 * nl_counters_complete(): the watchdog's "last completed NCCL work: N"
 * completes the first N COLL lines of the one comm of the rank that holds
 * exactly as many lines as the process group enqueued works, and nothing
 * when that comm is not known: two comms of that many lines, a count
 * that differs (a coalesced call, a cut log), or counters that make no
 * sense.
 */
static struct hd_store *counters_log(int ncomms, int nops, const char *status)
{
	GString *t = g_string_new(NULL);
	struct hd_store *s;

	for (int c = 0; c < ncomms; c++) {
		g_autofree char *cm = g_strdup_printf("0x5600d0a1b2c%d", c);

		g_string_append_printf(t,
				       HP
				       "NCCL INFO comm %s rank 1 nranks 4 "
				       "cudaDev 1 busId 3b000 commId "
				       "0x5c1e2f03a9d4b87%d - Init COMPLETE\n",
				       cm, c);
		for (int k = 0; k < nops; k++)
			g_string_append(t, coll(HP, "AllReduce", (unsigned)k,
						"0x7f0", "0x7f0", 1024, 7, 0, 0,
						cm, 4));
	}
	g_string_append_printf(
		t,
		"[rank1]:[E305 14:32:11.1 ProcessGroupNCCL.cpp:1690] [PG 0 "
		"(default_pg) Rank 1] Exception (either an error or timeout) "
		"detected by watchdog at work: 3, %s\n",
		status);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	g_string_free(t, TRUE);
	nl_counters_complete(s);
	return s;
}

static guint completed_ops(struct hd_store *s)
{
	guint n = 0;

	for (guint i = 0; i < s->ops->len; i++)
		n += op_at(s, i)->state == HD_STATE_COMPLETED;
	return n;
}

START_TEST(test_counters_complete)
{
	static const char *const none[] = {
		/* a count that is not the comm's (a coalesced call) */
		"last enqueued NCCL work: 4, last completed NCCL work: 2.",
		/* more completed than enqueued, a negative, a huge one */
		"last enqueued NCCL work: 3, last completed NCCL work: 9.",
		"last enqueued NCCL work: -3, last completed NCCL work: -2.",
		("last enqueued NCCL work: 99999999999999999999999, last "
		 "completed NCCL work: 99999999999999999999999."),
	};
	struct hd_store *s;

	s = counters_log(1, 3,
			 "last enqueued NCCL work: 3, last completed NCCL "
			 "work: 2.");
	ck_assert_uint_eq(s->ops->len, 3);
	ck_assert_int_eq(op_at(s, 0)->state, HD_STATE_COMPLETED);
	ck_assert_int_eq(op_at(s, 1)->state, HD_STATE_COMPLETED);
	ck_assert_int_eq(op_at(s, 2)->state, HD_STATE_ENQUEUED);
	hd_store_free(s);
	/* two comms of three lines: which one is PG 0 is unknown */
	s = counters_log(2, 3,
			 "last enqueued NCCL work: 3, last completed NCCL "
			 "work: 2.");
	ck_assert_uint_eq(s->ops->len, 6);
	ck_assert_uint_eq(completed_ops(s), 0);
	hd_store_free(s);
	for (size_t i = 0; i < G_N_ELEMENTS(none); i++) {
		s = counters_log(1, 3, none[i]);
		ck_assert_msg(completed_ops(s) == 0, "%s", none[i]);
		hd_store_free(s);
	}
}
END_TEST

START_TEST(test_c10d_timeout_forms)
{
	static const struct {
		const char *line;
		int rank;
		const char *group;
		int64_t seq, numel;
	} cases[] = {
		/* <= 2.1 prefix, <= 1.11 fields */
		{ "[E ProcessGroupNCCL.cpp:455] [Rank 3] Watchdog caught "
		  "collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
		  "TensorShape=[32, 32], Timeout(ms)=1800000) ran for 1800123 "
		  "milliseconds before timing out.",
		  3, "0", -1, 1024 },
		/* 2.2-2.3 prefix, 1.12-2.0 fields */
		{ "[rank3]:[E ProcessGroupNCCL.cpp:1490] [Rank 3] Watchdog "
		  "caught collective operation timeout: WorkNCCL(SeqNum=17, "
		  "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800123 "
		  "milliseconds before timing out.",
		  3, "0", 17, -1 },
		/* 2.4+ prefix, 2.1+ fields, PG prefix */
		{ "[rank3]:[E305 14:02:11.123456789 ProcessGroupNCCL.cpp:640] "
		  "[PG ID 2 PG GUID 5(mesh_tp) Rank 1] Watchdog caught "
		  "collective operation timeout: WorkNCCL(SeqNum=17, "
		  "OpType=_ALLGATHER_BASE, NumelIn=1024, NumelOut=8192, "
		  "Timeout(ms)=600000) ran for 600023 milliseconds before "
		  "timing out.",
		  3, "5", 17, 1024 },
		{ "[rank3]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:640] [PG 1 "
		  "(mesh_tp) Rank 1] Work WorkNCCL(SeqNum=9, OpType=BROADCAST, "
		  "NumelIn=4, NumelOut=4, Timeout(ms)=600000) timed out in "
		  "blocking wait.",
		  3, "1", 9, 4 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		/* what() repeats the message after the C++ prefix */
		const char *msg = strstr(cases[i].line, "] [") + 2;
		g_autofree char *text = g_strdup_printf(
			"%s\nterminate called after throwing an instance of "
			"'c10::DistBackendError'\n  what():  %s\n",
			cases[i].line, msg);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
		struct hd_signal *g = sig_type(s, HD_SIGT_WATCHDOG_TIMEOUT);

		ck_assert_ptr_nonnull(g);
		/* repeated in what(): still one signal */
		ck_assert_uint_eq(count_type(s, HD_SIGT_WATCHDOG_TIMEOUT), 1);
		ck_assert_int_eq(g->cat, HD_SIG_TIMEOUT);
		ck_assert_int_eq(g->rank, cases[i].rank);
		ck_assert_str_eq(g->group_name, cases[i].group);
		ck_assert_int_eq(g->seq, cases[i].seq);
		ck_assert_int_eq(g->numel_in, cases[i].numel);
		ck_assert_ptr_nonnull(g->op_name);
	}
}
END_TEST

START_TEST(test_c10d_status_wordings)
{
	static const char *const lines[] = {
		"[rank2]:[E ProcessGroupNCCL.cpp:1] [PG 0 Rank 2] Timeout at "
		"NCCL work: 41, last enqueued NCCL work: 41, last completed "
		"NCCL work: 40.",
		"[rank2]:[E305 1:02:03.1 ProcessGroupNCCL.cpp:1] [PG 0 Rank 2] "
		"Exception (either an error or timeout) detected by watchdog at "
		"work: 41, last enqueued NCCL work: 41, last completed NCCL "
		"work: 40.",
		"[rank2]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [PG ID 0 PG "
		"GUID 0(default_pg) Rank 2]  failure detected by watchdog at "
		"work sequence id: 41 PG status: last enqueued work: 41, last "
		"completed work: 40",
		"[rank2]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [PG ID 0 PG "
		"GUID 0(default_pg) Rank 2] Received a dump signal due to a "
		"collective timeout from this local rank and we will try our "
		"best to dump the debug info. Last enqueued NCCL work: 41, last "
		"completed NCCL work: 40.This is most likely caused by ...",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(lines); i++) {
		/* a line without its line end would be a torn one */
		g_autofree char *text = g_strdup_printf("%s\n", lines[i]);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
		struct hd_signal *g = sig_type(s, HD_SIGT_PG_STATUS);

		ck_assert_msg(g != NULL, "case %zu", i);
		ck_assert_int_eq(g->cat, HD_SIG_PROGRESS);
		ck_assert_int_eq(g->rank, 2);
		ck_assert_int_eq(g->seq, i == 3 ? -1 : 41);
		ck_assert_int_eq(g->last_enqueued, 41);
		ck_assert_int_eq(g->last_completed, 40);
		ck_assert_str_eq(g->group_name, "0");
	}
}
END_TEST

START_TEST(test_c10d_timeout_takes_status_pg)
{
	/* "[Rank r]" on the timeout, "[PG 1 ..]" on its status line */
	const char *text =
		"[rank1]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [Rank 1] "
		"Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
		"Timeout(ms)=1) ran for 2 milliseconds before timing out.\n"
		"[rank1]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [PG 1 "
		"(mesh_tp) Rank 1] Timeout at NCCL work: 7, last enqueued NCCL "
		"work: 7, last completed NCCL work: 6.\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_str_eq(sig_type(s, HD_SIGT_WATCHDOG_TIMEOUT)->group_name,
			 "1");
	/* "E305": March 5 (c10d pads no month), year unknown */
	ck_assert_int_eq(sig_at(s, 0)->time.clock, HD_CLOCK_MONTH_DAY);
	ck_assert_int_eq(sig_at(s, 0)->time.ns,
			 (31 + 29 + 4) * HD_NS_PER_DAY +
				 G_GINT64_CONSTANT(50531000000000));
}
END_TEST

/*
 * An OpType a terminal cut or overwrote (a pager's "[451/1919]" mid-name,
 * a cut before the comma that leaves no known op) keeps its timeout with
 * the op unknown and says so; a whole name after it is still read.
 */
START_TEST(test_c10d_timeout_damaged_optype)
{
	static const char *const types[] = { "_ALLGATHER_BA[451/1919]n=8",
					     "ALLRED(", "", "ALLREDUCE" };

	for (size_t i = 0; i < G_N_ELEMENTS(types); i++) {
		g_autofree char *text = g_strdup_printf(
			"[rank2]:[E816 00:34:01.1 ProcessGroupNCCL.cpp:629] "
			"[Rank 2] Watchdog caught collective operation "
			"timeout: WorkNCCL(SeqNum=41, OpType=%s, NumelOut=8, "
			"Timeout(ms)=600000) ran for 600004 milliseconds "
			"before timing out.\n",
			types[i]);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
		const struct hd_signal *t =
			sig_type(s, HD_SIGT_WATCHDOG_TIMEOUT);
		bool whole = i == G_N_ELEMENTS(types) - 1;

		ck_assert_ptr_nonnull(t);
		ck_assert_int_eq(hd_signal_seq(t), 41);
		if (whole)
			ck_assert_str_eq(t->op_name, "ALLREDUCE");
		else
			ck_assert_ptr_null(t->op_name);
		ck_assert(hd_test_has_warning(hd_store_input(s, 0),
					      "OpType is damaged") == !whole);
	}
}
END_TEST

/*
 * Lines a paste kept without what stood above them: an exception that
 * names a CUDA error without its traceback's header, and the result's
 * name line of an NCCL error block without its "NCCL error in:" line.
 * The same words inside prose are no signal.
 */
START_TEST(test_c10d_cut_heads)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"[rank2]: RuntimeError: CUDA error: an illegal memory access "
		"was encountered\n"
		"[rank2]: CUDA kernel errors might be asynchronously reported\n"
		"ncclRemoteError: A call failed possibly due to a network "
		"error or a remote process exiting prematurely.\n"
		"Last error:\n"
		"Proxy Call to rank 3 failed (Setup)\n");
	g_autoptr(hd_store) prose = NULL;
	const struct hd_signal *g;

	g = sig_type(s, HD_SIGT_CUDA_ERROR);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->rank, 2);
	ck_assert_int_eq(g->cat, HD_SIG_CUDA);
	g = sig_type(s, HD_SIGT_NCCL_ERROR);
	ck_assert_ptr_nonnull(g);
	/* the Last error decides: a proxy call failed during setup */
	ck_assert_int_eq(g->cat, HD_SIG_INIT);
	ck_assert_ptr_nonnull(strstr(g->text, "Proxy Call to rank 3"));
	prose = hd_test_parse_str(
		HD_INPUT_NCCL_LOG,
		"[rank1]: we saw RuntimeError: CUDA error: x on a retry\n"
		"[rank1]: see ncclRemoteError: in the docs\n",
		NULL);
	ck_assert_ptr_null(sig_type(prose, HD_SIGT_CUDA_ERROR));
	ck_assert_ptr_null(sig_type(prose, HD_SIGT_NCCL_ERROR));
}
END_TEST

/*
 * srun's "Node failure on HOST": a node_failure of that host and of no
 * rank, even in a stream whose lines are a rank's; once a node; only
 * the whole line, a host and nothing after it.
 */
START_TEST(test_srun_node_failure)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"[rank0]:[E1102 03:51:09.3 ProcessGroupNCCL.cpp:1] [Rank 0] "
		"Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
		"Timeout(ms)=1) ran for 2 milliseconds before timing out.\n"
		"srun: error: Node failure on dgx-b14.cluster.internal\n"
		"srun: error: Node failure on dgx-b14.cluster.internal\n"
		"srun: error: Node failure on \n"
		"srun: error: Node failure on dgx-b15 after 3 retries\n");
	guint n = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *g = sig_at(s, i);

		if (g->type != HD_SIGT_NODE_FAILURE)
			continue;
		n++;
		ck_assert_int_eq(g->rank, -1);
		ck_assert_int_eq(g->cat, HD_SIG_CRASH);
		ck_assert_str_eq(g->host, "dgx-b14.cluster.internal");
	}
	ck_assert_uint_eq(n, 1);
}
END_TEST

/*
 * A CUDA error printed first without a rank (a traceback's exception)
 * and then by a rank's watchdog, in one stream: one failure, of that
 * rank.  Another error's text keeps both.
 */
START_TEST(test_cuda_error_rankless_first)
{
	static const char *const second[] = {
		"CUDA error: uncorrectable ECC error encountered",
		"CUDA error: an illegal memory access was encountered",
	};

	for (size_t k = 0; k < G_N_ELEMENTS(second); k++) {
		g_autofree char *text = g_strdup_printf(
			"RuntimeError: CUDA error: uncorrectable ECC error "
			"encountered\n"
			"[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog "
			"thread terminated with exception: %s\n",
			second[k]);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
		guint n = 0, ranked = 0;

		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *g = sig_at(s, i);

			if (g->type != HD_SIGT_CUDA_ERROR)
				continue;
			n++;
			ranked += g->rank == 1;
		}
		ck_assert_uint_eq(n, k == 0 ? 1 : 2);
		ck_assert_uint_eq(ranked, 1);
		/* the one kept is the first line's, now rank 1's */
		if (k == 0)
			ck_assert_int_eq(
				sig_type(s, HD_SIGT_CUDA_ERROR)->prov.at, 1);
	}
}
END_TEST

/*
 * Horovod's stall inspector: the op lines after "Stalled ops:" name the
 * ranks missing from each op, once per list; such a line without the
 * header, or with more than one word before the list, names nobody.
 */
START_TEST(test_horovod_stalled_ops)
{
	static const struct {
		const char *text;
		guint named;
	} cases[] = {
		{ "Stalled ops:\n"
		  "HorovodAllreduce_a_0 [missing ranks: 2, 5]\n"
		  "HorovodAllreduce_b_0 [missing ranks: 2, 5]\n"
		  "HorovodBroadcast_c_0 [missing ranks: 7]\n",
		  3 },
		{ "HorovodAllreduce_a_0 [missing ranks: 2, 5]\n", 0 },
		{ "Stalled ops:\n"
		  "we saw HorovodAllreduce_a_0 [missing ranks: 2, 5]\n",
		  0 },
		{ "Stalled ops:\nHorovodAllreduce_a_0 [missing ranks: 2, 5\n",
		  0 },
	};

	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		g_autoptr(hd_store) s = hd_test_parse_str(HD_INPUT_NCCL_LOG,
							  cases[k].text, NULL);
		guint named = 0;

		for (guint i = 0; i < s->signals->len; i++)
			if (sig_at(s, i)->type == HD_SIGT_RANKS_NAMED) {
				named++;
				/* no input becomes a named rank's */
				ck_assert_int_eq(hd_store_input(s, 0)->rank,
						 -1);
			}
		ck_assert_msg(named == cases[k].named, "case %zu: %u", k,
			      named);
	}
}
END_TEST

/*
 * MPICH Hydra's "BAD TERMINATION" block: one exit of its pid and host,
 * of no rank, its code the exit string's signal when it names one; a
 * block without its PID line, or with an exit code out of range, gives
 * none.
 */
START_TEST(test_hydra_bad_termination)
{
	static const struct {
		const char *text;
		int32_t code; /* 0: no exit */
	} cases[] = {
		{ "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
		  "=   PID 9665 RUNNING AT node-r3.lab\n"
		  "=   EXIT CODE: 9\n"
		  "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed "
		  "(signal 9)\n",
		  -9 },
		{ "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
		  "=   PID 9665 RUNNING AT node-r3.lab\n"
		  "=   EXIT CODE: 3\n",
		  3 },
		{ "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
		  "=   EXIT CODE: 9\n",
		  0 },
		{ "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
		  "=   PID 9665 RUNNING AT node-r3.lab\n"
		  "=   EXIT CODE: 900\n",
		  0 },
		{ "=   PID 9665 RUNNING AT node-r3.lab\n=   EXIT CODE: 9\n",
		  0 },
	};

	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		g_autoptr(hd_store) s = hd_test_parse_str(HD_INPUT_NCCL_LOG,
							  cases[k].text, NULL);
		const struct hd_signal *x = sig_type(s, HD_SIGT_PROCESS_EXIT);

		if (!cases[k].code) {
			ck_assert_msg(!x, "case %zu", k);
			continue;
		}
		ck_assert_msg(x, "case %zu", k);
		ck_assert_int_eq(x->rank, -1);
		ck_assert_int_eq(x->pid, 9665);
		ck_assert_str_eq(x->host, "node-r3.lab");
		ck_assert_int_eq(hd_signal_exit_code(x), cases[k].code);
	}
	/* lines of no block right after its header are still read */
	{
		g_autoptr(hd_store) s = hd_test_parse_str(
			HD_INPUT_NCCL_LOG,
			"=   BAD TERMINATION OF ONE OF YOUR APPLICATION "
			"PROCESSES\n"
			"Traceback (most recent call last):\n"
			"ValueError: bad shape\n",
			NULL);

		ck_assert_ptr_nonnull(sig_type(s, HD_SIGT_TRACEBACK));
	}
}
END_TEST

/*
 * torchelastic's rendezvous errors are setup failures, at a traceback's
 * end and quoted by its error record in a log ("message": "X: ...");
 * a quoted text that is no exception is nothing.
 */
START_TEST(test_rendezvous_errors)
{
	static const struct {
		const char *text;
		int type; /* -1: no signal */
	} cases[] = {
		{ "Traceback (most recent call last):\n"
		  "  File \"x.py\", line 1, in <module>\n"
		  "torch.distributed.elastic.rendezvous.api."
		  "RendezvousConnectionError: The connection to the C10d "
		  "store has failed.\n",
		  HD_SIGT_BOOTSTRAP },
		{ "[ERROR] 2022-03-14 08:03:11,455 error_handler: {\n"
		  "  \"message\": {\n"
		  "    \"message\": \"RendezvousTimeoutError: The rendezvous "
		  "did not complete.\",\n",
		  HD_SIGT_BOOTSTRAP },
		{ "    \"message\": \"ValueError: bad shape\",\n",
		  HD_SIGT_TRACEBACK },
		{ "    \"message\": \"an Error happened somewhere\",\n", -1 },
	};

	for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
		g_autoptr(hd_store) s = hd_test_parse_str(HD_INPUT_NCCL_LOG,
							  cases[k].text, NULL);
		guint n = 0;

		for (guint i = 0; i < s->signals->len; i++)
			if (sig_at(s, i)->type == HD_SIGT_BOOTSTRAP ||
			    sig_at(s, i)->type == HD_SIGT_TRACEBACK) {
				n++;
				ck_assert_int_eq(sig_at(s, i)->type,
						 cases[k].type);
			}
		ck_assert_msg(n == (cases[k].type < 0 ? 0u : 1u), "case %zu",
			      k);
	}
}
END_TEST

/* The timeout's signal of rank r at seq (it names no PG), or NULL. */
static const struct hd_signal *timeout_of(struct hd_store *s, int r,
					  int64_t seq)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *g = sig_at(s, i);

		if (g->type == HD_SIGT_WATCHDOG_TIMEOUT && g->rank == r &&
		    g->seq == seq)
			return g;
	}
	return NULL;
}

START_TEST(test_c10d_timeout_pg_interleaved)
{
	/*
	 * Ranks' lines interleave, and rank 2's status line is cut away:
	 * each timeout takes its own rank's status, not the last timeout's;
	 * rank 2's takes the one PG the input shows at seq 7.  Rank 3's
	 * seq 9 is shown by PGs 0 and 2: its PG is not known, and it is
	 * not PG 0.
	 */
	const char *text =
		"[rank1]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [Rank 1] "
		"Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
		"Timeout(ms)=1) ran for 2 milliseconds before timing out.\n"
		"[rank2]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [Rank 2] "
		"Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
		"Timeout(ms)=1) ran for 2 milliseconds before timing out.\n"
		"[rank1]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [PG 1 Rank 1] "
		"Timeout at NCCL work: 7, last enqueued NCCL work: 8, last "
		"completed NCCL work: 6.\n"
		"[rank3]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [Rank 3] "
		"Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=9, OpType=BROADCAST, NumelIn=1, NumelOut=1, "
		"Timeout(ms)=1) ran for 2 milliseconds before timing out.\n"
		"[rank4]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [PG 0 Rank 4] "
		"Timeout at NCCL work: 9, last enqueued NCCL work: 9, last "
		"completed NCCL work: 8.\n"
		"[rank5]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [PG 2 Rank 5] "
		"Timeout at NCCL work: 9, last enqueued NCCL work: 9, last "
		"completed NCCL work: 8.\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_str_eq(timeout_of(s, 1, 7)->group_name, "1");
	ck_assert_str_eq(timeout_of(s, 2, 7)->group_name, "1");
	ck_assert_str_eq(timeout_of(s, 3, 9)->group_name, HD_PG_UNNAMED);
}
END_TEST

START_TEST(test_c10d_nccl_error_block)
{
	const char *text =
		"[rank4]: Traceback (most recent call last):\n"
		"[rank4]:   File \"train.py\", line 3, in <module>\n"
		"[rank4]: torch.distributed.DistBackendError: NCCL error in: "
		"../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
		"remote process exited or there was a network error, NCCL "
		"version 2.21.5\n"
		"[rank4]: ncclRemoteError: A call failed possibly due to a "
		"network error or a remote process exiting prematurely.\n"
		"[rank4]: Last error:\n"
		"[rank4]: NET/IB: Got completion from peer 10.1.0.6<36123> with "
		"status=12 opcode=0 len=0 vendor err 129 (Send)\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	/* the classified Last error gives the block its type (issue 11) */
	struct hd_signal *g = sig_type(s, HD_SIGT_IB_COMPLETION);

	ck_assert_uint_eq(s->signals->len, 1);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->rank, 4);
	ck_assert_int_eq(g->cat, HD_SIG_NETWORK);
	ck_assert_int_eq(g->code, 12);
	ck_assert_str_eq(g->peer, "10.1.0.6<36123>");
	ck_assert_ptr_nonnull(strstr(g->text, "Last error:"));
	ck_assert_ptr_nonnull(strstr(g->text, "Got completion"));
	ck_assert_int_eq(in0(s)->rank, 4);
}
END_TEST

/*
 * The watchdog's "NCCL error: <result>" has no "in: file", and flattened
 * output keeps "Last error:" and its text on the same line; prose that
 * mentions an NCCL error is no record (held-out set 3).
 */
START_TEST(test_c10d_nccl_error_bare)
{
	const char *text =
		"[rank2]:[E0411 07:42:19.516203411 ProcessGroupNCCL.cpp:1571] "
		"[PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog "
		"thread terminated with exception: NCCL error: remote process "
		"exited or there was a network error, NCCL version 2.21.5    "
		"ncclRemoteError: A call failed.    Last error:    NET/IB : Got "
		"completion from peer 10.4.3.17<51123> with error 12, opcode 0, "
		"len 0, vendor err 129 (Recv)    Exception raised from x\n"
		"\n"
		"INFO see the wiki on NCCL error: handling before filing\n"
		"INFO an NCCL error: none so far\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	struct hd_signal *g = sig_type(s, HD_SIGT_IB_COMPLETION);

	ck_assert_uint_eq(s->signals->len, 1);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->rank, 2);
	ck_assert_int_eq(g->cat, HD_SIG_NETWORK);
	ck_assert_int_eq(g->code, 12);
	ck_assert_str_eq(g->peer, "10.4.3.17<51123>");
	/* the line is the text once, not again after itself */
	ck_assert_ptr_null(strstr(strstr(g->text, "Got completion") + 1,
				  "Got completion"));
}
END_TEST

START_TEST(test_torchrun_child_failed)
{
	const char *text =
		"E0305 14:02:11.123000 900 torch/distributed/elastic/"
		"multiprocessing/api.py:869] failed (exitcode: -6) local_rank: "
		"1 (pid: 4243) of binary: /usr/bin/python\n"
		"Traceback (most recent call last):\n"
		"  File \"/usr/bin/torchrun\", line 8, in <module>\n"
		"torch.distributed.elastic.multiprocessing.errors."
		"ChildFailedError: \n"
		"============================================================\n"
		"train.py FAILED\n"
		"------------------------------------------------------------\n"
		"Failures:\n"
		"[1]:\n"
		"  time      : 2025-03-05_14:02:11\n"
		"  host      : node-a\n"
		"  rank      : 3 (local_rank: 1)\n"
		"  exitcode  : -6 (pid: 4243)\n"
		"  error_file: <N/A>\n"
		"  traceback : Signal 6 (SIGABRT) received by PID 4243\n"
		"------------------------------------------------------------\n"
		"Root Cause (first observed failure):\n"
		"[0]:\n"
		"  time      : 2025-03-05_14:02:10\n"
		"  host      : node-a\n"
		"  rank      : 2 (local_rank: 0)\n"
		"  exitcode  : 1 (pid: 4242)\n"
		"  error_file: <N/A>\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	struct hd_signal *a, *b;

	ck_assert_uint_eq(count_type(s, HD_SIGT_PROCESS_EXIT), 2);
	ck_assert_uint_eq(count_type(s, HD_SIGT_TRACEBACK), 0);
	a = sig_at(s, 0);
	b = sig_at(s, 1);
	ck_assert_int_eq(a->code, -6);
	ck_assert_int_eq(a->pid, 4243);
	ck_assert_int_eq(a->rank, 3); /* learned from the Failures item */
	ck_assert_int_eq(a->cat, HD_SIG_CRASH);
	ck_assert_int_eq(b->code, 1);
	ck_assert_int_eq(b->rank, 2);
	/* launcher lines describe several ranks, not the input's */
	ck_assert_int_eq(in0(s)->rank, -1);
}
END_TEST

START_TEST(test_oom_and_traceback)
{
	const char *text =
		"[rank0]: Traceback (most recent call last):\n"
		"[rank0]:   File \"train.py\", line 3, in <module>\n"
		"[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to "
		"allocate 2.00 GiB.\n"
		"[rank1]: Traceback (most recent call last):\n"
		"[rank1]:   File \"train.py\", line 9, in step\n"
		"[rank1]: ValueError: bad batch\n"
		"[rank2]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:1] [PG 0 Rank 2] "
		"ProcessGroupNCCL's watchdog got stuck for 480 seconds without "
		"making progress in monitoring enqueued collectives.\n"
		"[rank2]: torch.distributed.DistStoreError: Timed out after 901 "
		"seconds waiting for clients. 3/4 clients joined.\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_int_eq(sig_type(s, HD_SIGT_OOM)->rank, 0);
	ck_assert_int_eq(sig_type(s, HD_SIGT_OOM)->cat, HD_SIG_CUDA);
	ck_assert_int_eq(sig_type(s, HD_SIGT_TRACEBACK)->rank, 1);
	ck_assert_int_eq(sig_type(s, HD_SIGT_TRACEBACK)->cat, HD_SIG_CRASH);
	ck_assert_int_eq(sig_type(s, HD_SIGT_HEARTBEAT)->cat, HD_SIG_INFO);
	ck_assert_int_eq(sig_type(s, HD_SIGT_BOOTSTRAP)->cat, HD_SIG_INIT);
	ck_assert_uint_eq(s->signals->len, 4);
}
END_TEST

START_TEST(test_hard_wrap)
{
	const char *text =
		"[rank3]:[E305 14:02:11.1 ProcessGroupNCCL.cpp:640] [PG 0 Rank "
		"3] Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=17, OpType=ALLREDUCE, Num\n"
		"elIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for 600023 "
		"milliseconds before timing out.\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	struct hd_signal *g = sig_type(s, HD_SIGT_WATCHDOG_TIMEOUT);

	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->numel_in, 1024);
	ck_assert_int_eq(g->prov.at, 1);
}
END_TEST

/* ---- hostile input ---- */

START_TEST(test_malformed)
{
	static const unsigned char garbage[] = {
		0x00, 0xff, 0xfe, 'N',	'C',  'C',  'L',  ' ',
		'I',  'N',  'F',  'O',	' ',  0x00, 0x80, '\n',
		0xc3, 0x28, '\r', '\n', 0x1b, '[',  '3',
	};
	g_autoptr(GError) err = NULL;
	bool ok;
	g_autoptr(hd_store) e =
		hd_test_parse(HD_INPUT_NCCL_LOG, "e", "", 0, &ok, &err);
	g_autoptr(hd_store) g = NULL;

	ck_assert(ok);
	ck_assert_int_eq(in0(e)->records, 0);
	g = hd_test_parse(HD_INPUT_NCCL_LOG, "g", garbage, sizeof(garbage), &ok,
			  &err);
	ck_assert(ok);
	ck_assert_uint_eq(g->ops->len, 0);
	{
		/* fuzzer find: year 0012 overflowed int64 ns (UBSan) */
		g_autoptr(hd_store) y = hd_test_parse_ok(
			HD_INPUT_NCCL_LOG,
			"\n[0012-03-02 10:15:07] " HP
			"x.cc:1 NCCL WARN socketProgress: Connection closed by "
			"remote peer b<1>\n");

		ck_assert_uint_eq(y->signals->len, 1);
		ck_assert(!hd_time_known(sig_at(y, 0)->time));
	}
}
END_TEST

START_TEST(test_huge_line)
{
	/* a 50 MB line is cut by the reader and costs no 50 MB */
	size_t n = 50u << 20;
	char *buf = g_malloc(n + 512);
	char *tail = coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0, CM, 4);
	g_autoptr(GError) err = NULL;
	size_t off;
	bool ok;
	g_autoptr(hd_store) s = NULL;

	memcpy(buf, INIT_216, strlen(INIT_216));
	off = strlen(INIT_216);
	memset(buf + off, 'x', n - off);
	memcpy(buf + n - 200, " NCCL WARN x", 12);
	buf[n - 1] = '\n';
	memcpy(buf + n, tail, strlen(tail));
	s = hd_test_parse(HD_INPUT_NCCL_LOG, "big", buf, n + strlen(tail), &ok,
			  &err);
	g_free(buf);
	ck_assert(ok);
	ck_assert_uint_eq(s->ops->len, 1);
	ck_assert_int_eq(hd_op_prov(s, op_at(s, 0)).at, 3);
	ck_assert_ptr_nonnull(
		strstr(g_ptr_array_index(in0(s)->warnings, 0), "cut"));
}
END_TEST

START_TEST(test_crlf_nul_utf8_no_newline)
{
	char *l1 = coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0, CM, 4);
	char *l2 = coll(HP, "AllReduce", 1, "0x1", "0x1", 8, 7, 0, 0, CM, 4);
	GString *t = g_string_new(INIT_216);
	g_autoptr(GError) err = NULL;
	bool ok;
	g_autoptr(hd_store) s = NULL;

	l1[strlen(l1) - 1] = '\r';
	g_string_append(t, l1);
	g_string_append(t, "\n");
	/* a WARN with NUL and bad UTF-8 inside */
	g_string_append(t, HP "x.cc:1 NCCL WARN bad \xc3\x28 byte ");
	g_string_append_c(t, '\0');
	g_string_append(t, " after nul\n");
	/* the last line, cut mid-record with no newline: not read */
	g_string_append_len(t, l2, strlen(l2) - 20);
	s = hd_test_parse(HD_INPUT_NCCL_LOG, "t", t->str, t->len, &ok, &err);
	g_string_free(t, TRUE);
	ck_assert(ok);
	ck_assert_uint_eq(s->ops->len, 1);
	ck_assert_int_eq(op_at(s, 0)->flags, 0);
	ck_assert(in0(s)->truncated);
	ck_assert_uint_eq(in0(s)->skipped, 1);
	ck_assert_uint_eq(s->signals->len, 1);
	ck_assert(g_utf8_validate(sig_at(s, 0)->text, -1, NULL));
}
END_TEST

/*
 * A last line without a line end is a cut whatever the piece looks like
 * (issue 20): a byte or three of a prefix, an application's text, or a
 * watchdog timeout torn inside OpType, which is no record of op "ALL".
 */
START_TEST(test_torn_piece_any_shape)
{
	static const char *const tails[] = {
		"nod",
		"n",
		"step 30 loss 2.2",
		"[rank0]:[E305 14:32:11.123456789 ProcessGroupNCCL.cpp:640] "
		"[Rank 0] Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=31, OpType=ALL",
	};

	for (guint i = 0; i < G_N_ELEMENTS(tails); i++) {
		char *l1 = coll(HP, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0,
				CM, 4);
		GString *t = g_string_new(INIT_216);
		g_autoptr(GError) err = NULL;
		bool ok;
		g_autoptr(hd_store) s = NULL;

		g_string_append(t, l1);
		g_string_append(t, tails[i]);
		s = hd_test_parse(HD_INPUT_NCCL_LOG, "t", t->str, t->len, &ok,
				  &err);
		g_string_free(t, TRUE);
		ck_assert(ok);
		ck_assert_msg(in0(s)->truncated, "tail %u", i);
		ck_assert_uint_eq(in0(s)->skipped, 1);
		ck_assert_uint_eq(s->ops->len, 1);
		ck_assert_uint_eq(s->signals->len, 0);
	}
}
END_TEST

/* ---- fixtures (scripts/gen-nccl-logs.py) ---- */

START_TEST(test_fixture_torchrun_interleaved)
{
	/* four local ranks in one torchrun file; rank 3 misses op 12 */
	g_autofree char *path =
		hd_test_path("tests/data/nccl/torchrun-interleaved/train.log");
	g_autoptr(GError) err = NULL;
	bool ok;
	g_autoptr(hd_store) s = hd_test_parse_file(path, &ok, &err);
	int last[4] = { -1, -1, -1, -1 };

	ck_assert(ok);
	ck_assert_int_eq(in0(s)->skipped, 0);
	ck_assert_uint_eq(s->ops->len, 4 * 13 - 1);
	for (guint i = 0; i < s->ops->len; i++) {
		struct hd_op *op = op_at(s, i);

		ck_assert_int_ge(hd_op_rank(op), 0);
		ck_assert_int_lt(hd_op_rank(op), 4);
		ck_assert_int_eq(op->seq, last[hd_op_rank(op)] + 1);
		last[hd_op_rank(op)] = (int)op->seq;
	}
	ck_assert_int_eq(last[3], 11);
	ck_assert_int_eq(last[0], 12);
	ck_assert_uint_eq(count_type(s, HD_SIGT_WATCHDOG_TIMEOUT), 3);
	ck_assert_uint_eq(count_type(s, HD_SIGT_PROCESS_EXIT), 1);
	for (int r = 0; r < 4; r++)
		ck_assert_int_eq(hd_store_find_rank(s, r)->pid, 4000 + r * 17);
}
END_TEST

/* Issue 11: WARN bodies classify_warn did not know, in their real shapes. */
START_TEST(test_warn_bodies_issue11)
{
	static const struct {
		const char *body;
		int cat, type;
	} cases[] = {
		{ "NET/IB : req 0/1 tag 3 peer 10.2.0.4<5001> collective "
		  "mismatch error, local size 4096 remote size 8192",
		  HD_SIG_MISMATCH, HD_SIGT_SIZE_MISMATCH },
		{ "Call to bind failed: Address already in use", HD_SIG_INIT,
		  HD_SIGT_SOCKET },
		{ "Call to bind failed : Cannot assign requested address",
		  HD_SIG_INIT, HD_SIGT_SOCKET },
		{ "Net : Socket creation failed : Address family not "
		  "supported by protocol",
		  HD_SIG_CONFIG, HD_SIGT_SOCKET },
		{ "ncclSocketInit: connecting to address  with family 7 is "
		  "neither AF_INET(2) nor AF_INET6(10)",
		  HD_SIG_CONFIG, HD_SIGT_SOCKET },
		{ "Attribute arch of node cpu not found", HD_SIG_CONFIG,
		  HD_SIGT_OTHER },
		{ "NCCL cannot be captured in a graph if either it wasn't "
		  "built with CUDA runtime >= 11.3 or if the installed CUDA "
		  "driver < R465.",
		  HD_SIG_CONFIG, HD_SIGT_OTHER },
		{ "Invalid config blocking attribute value 7", HD_SIG_CONFIG,
		  HD_SIGT_OTHER },
		{ "NET/Socket : socket progress error", HD_SIG_NETWORK,
		  HD_SIGT_SOCKET },
		{ "Socket recv failed while polling for opId=0x7f01",
		  HD_SIG_CRASH, HD_SIGT_PROXY_DIED },
		{ "Failed to open libibverbs.so[.1]", HD_SIG_INFO,
		  HD_SIGT_TRANSPORT },
		{ "[Proxy Service 3] Failed to execute operation Connect from "
		  "rank 9, retcode 6",
		  HD_SIG_NETWORK, HD_SIGT_SOCKET },
		/* near misses stay unclassified */
		{ "Attribute arch of node cpu", HD_SIG_NCCL_INTERNAL,
		  HD_SIGT_OTHER },
		{ "bind the widget", HD_SIG_NCCL_INTERNAL, HD_SIGT_OTHER },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text = g_strdup_printf(
			"hx-4:10:11 [0] misc/x.cc:1 NCCL WARN %s\n",
			cases[i].body);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

		ck_assert_uint_eq(s->signals->len, 1);
		ck_assert_msg(sig_at(s, 0)->cat == cases[i].cat &&
				      sig_at(s, 0)->type == cases[i].type,
			      "%s: cat %d type %d", cases[i].body,
			      sig_at(s, 0)->cat, sig_at(s, 0)->type);
	}
}
END_TEST

/*
 * Issue 21: NCCL's cudawrap WARNs when it cannot load the CUDA driver,
 * and the "Cuda failure" texts of a driver missing, too old or not ready,
 * are cuda_driver: a named cause.  A kernel's fault, another CUDA error
 * and the graph-capture WARN that mentions the driver are not.
 */
START_TEST(test_warn_cuda_driver)
{
	static const struct {
		const char *body;
		int cat, type, code;
	} cases[] = {
		{ "Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') "
		  ": libcuda.so: cannot open shared object file: No such file "
		  "or directory",
		  HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, 0 },
		{ "Failed to find CUDA library in /opt/drv/ "
		  "(NCCL_CUDA_PATH=/opt/drv/)",
		  HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, 0 },
		{ "Failed to load CUDA missing symbol cuGetProcAddress",
		  HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, 0 },
		{ "cuDriverGetVersion failed with 34", HD_SIG_CUDA,
		  HD_SIGT_CUDA_DRIVER, 0 },
		{ "CUDA Driver version found is 11020. Minimum requirement is "
		  "11030",
		  HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, 0 },
		{ "Cuda failure 'initialization error'", HD_SIG_CUDA,
		  HD_SIGT_CUDA_DRIVER, 0 },
		{ "Cuda failure 35 'CUDA driver version is insufficient for "
		  "CUDA runtime version'",
		  HD_SIG_CUDA, HD_SIGT_CUDA_DRIVER, 35 },
		{ "Cuda failure 802 'system not yet initialized'", HD_SIG_CUDA,
		  HD_SIGT_CUDA_DRIVER, 802 },
		{ "CUDA error: cudaErrorInsufficientDriver", HD_SIG_CUDA,
		  HD_SIGT_CUDA_DRIVER, 0 },
		/* near misses */
		{ "Cuda failure 700 'an illegal memory access was "
		  "encountered'",
		  HD_SIG_CUDA, HD_SIGT_CUDA_ERROR, 700 },
		{ "Cuda failure 'invalid argument'", HD_SIG_CUDA,
		  HD_SIGT_CUDA_ERROR, 0 },
		{ "NCCL cannot be captured in a graph if either it wasn't "
		  "built with CUDA runtime >= 11.3 or if the installed CUDA "
		  "driver < R465.",
		  HD_SIG_CONFIG, HD_SIGT_OTHER, 0 },
		/* no rule's, but it names an error: never benign */
		{ "the initialization error budget is 3", HD_SIG_NCCL_INTERNAL,
		  HD_SIGT_WARN_ERROR, 0 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text = g_strdup_printf(
			"hx-4:10:11 [0] misc/cudawrap.cc:1 NCCL WARN %s\n",
			cases[i].body);
		g_autoptr(hd_store) s =
			hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

		ck_assert_uint_eq(s->signals->len, 1);
		ck_assert_msg(sig_at(s, 0)->cat == cases[i].cat &&
				      sig_at(s, 0)->type == cases[i].type &&
				      sig_at(s, 0)->code == cases[i].code,
			      "%s: cat %d type %d code %d", cases[i].body,
			      sig_at(s, 0)->cat, sig_at(s, 0)->type,
			      sig_at(s, 0)->code);
	}
}
END_TEST

/* ... and a c10d block whose Last error says so takes the type. */
START_TEST(test_last_error_cuda_driver)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"[rank2]: torch.distributed.DistBackendError: NCCL error in: "
		"x.cpp:1, unhandled cuda error (run with NCCL_DEBUG=INFO for "
		"details), NCCL version 2.18.5\n"
		"[rank2]: ncclUnhandledCudaError: Call to CUDA function "
		"failed.\n"
		"[rank2]: Last error:\n"
		"[rank2]: Cuda failure 'initialization error'\n");

	ck_assert_uint_eq(s->signals->len, 1);
	ck_assert_int_eq(sig_at(s, 0)->type, HD_SIGT_CUDA_DRIVER);
	ck_assert_int_eq(sig_at(s, 0)->cat, HD_SIG_CUDA);
	ck_assert_int_eq(sig_at(s, 0)->rank, 2);
}
END_TEST

START_TEST(test_warn_mismatched_collective_hint)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"hy:1:2 [0] init.cu:1190 NCCL WARN Mismatched collective "
		"detected, please check your collective calls at and around "
		"rank 6. You can use NCCL_DEBUG=INFO\n"
		"hy:1:2 [0] init.cu:1190 NCCL WARN Mismatched collective "
		"detected, please check your collective calls at and around "
		"rank\n");

	ck_assert_uint_eq(count_type(s, HD_SIGT_NCCL_COLL_MISMATCH), 2);
	ck_assert_int_eq(sig_at(s, 0)->peer_rank, 6);
	/* cut before the number: no hint */
	ck_assert_int_eq(sig_at(s, 1)->peer_rank, -1);
}
END_TEST

/* Records whose prefix a reporter cut off: read, without a process. */
START_TEST(test_prefixless_records)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"pq-1:5:5 [0] NCCL INFO Using network IB\n"
		"NCCL WARN NET/IB : Got async event : port error\n"
		"transport/nvls.cc:160 NCCL WARN Cuda failure 'invalid "
		"argument'\n"
		"NCCL INFO init.cc:1090 -> 1\n"
		"include/socket.h:340 WARN Net : Socket creation failed : x\n"
		"NET/IB : Got completion from peer with error 5, opcode 0, len "
		"8, vendor err 249 (Send)\n"
		"[trainer2|0]:ncclSocketInit: connecting to address  with "
		"family 1 is neither AF_INET(2) nor AF_INET6(10)\n");

	ck_assert_ptr_nonnull(sig_type(s, HD_SIGT_IB_ASYNC));
	ck_assert_ptr_null(sig_type(s, HD_SIGT_IB_ASYNC)->host);
	ck_assert_ptr_nonnull(sig_type(s, HD_SIGT_CUDA_ERROR));
	ck_assert_ptr_null(sig_type(s, HD_SIGT_CUDA_ERROR)->host);
	ck_assert_int_eq(sig_type(s, HD_SIGT_UNWIND)->code, 1);
	ck_assert_ptr_null(sig_type(s, HD_SIGT_UNWIND)->host);
	ck_assert_int_eq(sig_type(s, HD_SIGT_IB_COMPLETION)->code, 5);
	ck_assert_ptr_null(sig_type(s, HD_SIGT_IB_COMPLETION)->peer);
	ck_assert_uint_eq(count_type(s, HD_SIGT_SOCKET), 2);
	/* the one process of the file is not given the pasted lines */
	ck_assert_ptr_nonnull(sig_type(s, HD_SIGT_TRANSPORT)->host);
}
END_TEST

/* Near misses of the prefixless shapes are chatter. */
START_TEST(test_prefixless_near_misses)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"NCCLX WARN not a record\n"
		"the NET/IB : Got completion was mentioned in passing\n"
		"socket.h WARN no line number\n"
		"a b:12 WARN two tokens before the level\n"
		"test_CudaFailureOutOfMemory.java:12 WARNING flaky\n"
		"Cuda failure 'out of memory' in my Java test name\n"
		"NCCL INFO just context\n");

	ck_assert_uint_eq(s->signals->len, 0);
}
END_TEST

/* horovod glues its rank tag to the record prefix */
START_TEST(test_horovod_glued_tag)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"[12]hv-7:31:40 [1] misc/socket.cc:500 NCCL WARN Net : Call to "
		"recv from 10.0.0.9<4444> failed : Connection timed out\n"
		"[x]hv-7:31:40 [1] NCCL INFO misc/socket.cc:520 -> 2\n");

	ck_assert_int_eq(sig_at(s, 0)->rank, 12);
	ck_assert_str_eq(sig_at(s, 0)->host, "hv-7");
}
END_TEST

/* A classified Last error gives the c10d block its type. */
START_TEST(test_last_error_type_copied)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"torch.distributed.DistBackendError: NCCL error in: x.cpp:1, "
		"invalid usage (run with NCCL_DEBUG=WARN for details), NCCL "
		"version 2.19.3\n"
		"ncclInvalidUsage: This usually reflects invalid usage.\n"
		"Last error:\n"
		"Duplicate GPU detected : rank 3 and rank 4 both on CUDA device "
		"1a000\n");

	ck_assert_uint_eq(s->signals->len, 1);
	ck_assert_int_eq(sig_at(s, 0)->type, HD_SIGT_DUPLICATE_GPU);
	ck_assert_int_eq(sig_at(s, 0)->cat, HD_SIG_INIT);
}
END_TEST

START_TEST(test_using_network_once)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG, "ua:1:1 [0] NCCL INFO Using network Socket\n"
				   "ua:1:1 [0] NCCL INFO Using network Socket\n"
				   "ub:2:2 [0] NCCL INFO Using network IB\n");

	ck_assert_uint_eq(count_type(s, HD_SIGT_TRANSPORT), 2);
	ck_assert_int_eq(sig_at(s, 0)->cat, HD_SIG_INFO);
}
END_TEST

/* NCCL RAS status report entries (2.24+), and what is not one. */
START_TEST(test_ras_status_entry)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"Rank 3 -- GPU 0 managed by process 1 on node outside\n"
		"  7 ranks have launched up to operation 9\n"
		"#0-0 (00ff) INCOMPLETE\n"
		"#2-1 (0a0b0c) MISMATCH\n"
		"  Communicator ranks have different AllGather operation "
		"counts\n"
		"  6 ranks have launched up to operation 31\n"
		"  2 ranks have launched up to operation 32\n"
		"  Rank 5 -- GPU 1 managed by process 4411 on node 10.0.0.8\n"
		"  Rank 99999999 -- GPU 1 managed by process 1 on node x\n"
		"  0 ranks have launched up to operation 3\n"
		"  Rank 6 -- GPU\n"
		"#3 (1) MISMATCH\n"
		"  Rank 7 -- GPU 1 managed by process 1 on node late\n");
	guint heads = 0, counts = 0, ranks = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		struct hd_signal *g = sig_at(s, i);

		ck_assert_int_eq(g->type, HD_SIGT_RAS_MISMATCH);
		if (g->cat == HD_SIG_TIMEOUT)
			heads++;
		else if (g->seq >= 0)
			counts++;
		else
			ranks++;
		ck_assert_int_eq(g->rank, -1);
	}
	ck_assert_uint_eq(heads, 1);
	ck_assert_uint_eq(counts, 2);
	/* rank 5, and "Rank 6 -- GPU" cut short but still a rank line */
	ck_assert_uint_eq(ranks, 2);
	/* the op name comes after the entry's first line */
	ck_assert_ptr_null(sig_at(s, 0)->op_name);
	ck_assert_str_eq(sig_at(s, 1)->op_name, "AllGather");
	for (guint i = 0; i < s->signals->len; i++)
		if (sig_at(s, i)->peer_rank == 5) {
			ck_assert_str_eq(sig_at(s, i)->host, "10.0.0.8");
			ck_assert_int_eq(sig_at(s, i)->pid, 4411);
		}
}
END_TEST

/* nccl-tests failure lines and RCCL's banner. */
START_TEST(test_nccl_tests_failure_and_rccl)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"RCCL version 2.20.5+hip6.2 Unknown\n"
		"box-1: Test NCCL failure common.cu:12 'internal error - "
		"please report this issue to the NCCL developers / '\n"
		" .. box-1 pid 77: Test failure common.cu:9\n"
		": Test failure\n"
		"Test NCCL failure\n"
		"my Test failures were many\n");

	/* the fragments without a location are not the harness's lines */
	ck_assert_uint_eq(count_type(s, HD_SIGT_TEST_FAILURE), 2);
	ck_assert_uint_eq(s->signals->len, 2);
	ck_assert_str_eq(sig_at(s, 0)->host, "box-1");
	ck_assert_int_eq(sig_at(s, 0)->code, 3);
	ck_assert_str_eq(sig_at(s, 1)->host, "box-1");
	ck_assert_int_eq(sig_at(s, 1)->pid, 77);
	/* the banner is a version, not a signal */
	ck_assert_uint_eq(in0(s)->records, 3);
}
END_TEST

/* ---- Job attempts per process, records read twice (issue 20) ---- */

/* One process's log: banner, Init, n AllReduces from opCount 0. */
static void proc_log(GString *t, const char *host, int pid, int rank,
		     const char *comm_id, int n)
{
	char pre[64];

	g_snprintf(pre, sizeof(pre), "%s:%d:%d [%d] ", host, pid, pid, rank);
	g_string_append_printf(t, "%sNCCL INFO NCCL version 2.19.3+cuda12.2\n",
			       pre);
	g_string_append_printf(t,
			       "%sNCCL INFO comm 0x%x rank %d nranks 2 cudaDev "
			       "%d busId 1b000 commId %s - Init COMPLETE\n",
			       pre, pid, rank, rank, comm_id);
	for (int i = 0; i < n; i++) {
		char comm[16];

		g_snprintf(comm, sizeof(comm), "0x%x", pid);
		g_string_append(t, coll(pre, "AllReduce", i, "0x1", "0x1", 8, 7,
					0, 0, comm, 2));
	}
}

START_TEST(test_attempts_per_process)
{
	g_autoptr(GString) t = g_string_new(NULL);
	struct hd_store *s;
	guint ranks[2] = { 0, 0 };

	/* cat rank0.log rank1.log, each a run and a restart */
	proc_log(t, "node-a", 100, 0, "0x1111", 5);
	proc_log(t, "node-a", 200, 0, "0x2222", 3);
	proc_log(t, "node-a", 101, 1, "0x1111", 5);
	proc_log(t, "node-a", 201, 1, "0x2222", 3);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	ck_assert_ptr_nonnull(in0(s)->attempts);
	ck_assert_uint_eq(in0(s)->attempts->len, 2);
	ck_assert_uint_eq(s->ops->len, 16);
	hd_store_keep_attempt(s, 0);
	/* the last attempt of each rank: the 3 ops of pids 200 and 201 */
	ck_assert_uint_eq(s->ops->len, 6);
	for (guint i = 0; i < s->ops->len; i++) {
		ck_assert_int_eq(hd_op_prov(s, op_at(s, i)).attempt, 2);
		ranks[hd_op_rank(op_at(s, i))]++;
	}
	ck_assert_uint_eq(ranks[0], 3);
	ck_assert_uint_eq(ranks[1], 3);
	hd_store_free(s);

	/* two ranks' logs concatenated, no restart: one attempt, all ops */
	g_string_truncate(t, 0);
	proc_log(t, "node-a", 100, 0, "0x1111", 5);
	proc_log(t, "node-a", 101, 1, "0x1111", 4);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	ck_assert_ptr_null(in0(s)->attempts);
	hd_store_keep_attempt(s, 0);
	ck_assert_uint_eq(s->ops->len, 9);
	hd_store_free(s);
}
END_TEST

/*
 * A WARN before a comm's Init COMPLETE (NCCL's cudawrap WARNs before any
 * comm, a setup WARN NCCL survives) is no end of the process's life: the
 * COMPLETE of the comm its START began is that comm coming up, not a
 * restart, so the WARN stays in the one attempt with the ops.
 */
START_TEST(test_warn_before_init_complete)
{
	const char *pre = "node-a:100:100 [0] ";
	g_autofree char *t = g_strdup_printf(
		"%sNCCL INFO NCCL version 2.21.5+cuda12.2\n"
		"%smisc/cudawrap.cc:188 NCCL WARN Failed to find CUDA library "
		"libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open "
		"shared object file\n"
		"%sNCCL INFO ncclCommInitRankConfig comm 0x64 rank 0 nranks 2 "
		"cudaDev 0 nvmlDev 0 busId 1b000 commId 0x1111 - Init START\n"
		"%sNCCL INFO ncclCommInitRankConfig comm 0x64 rank 0 nranks 2 "
		"cudaDev 0 nvmlDev 0 busId 1b000 commId 0x1111 - Init "
		"COMPLETE\n"
		"%s",
		pre, pre, pre, pre,
		coll(pre, "AllReduce", 0, "0x1", "0x1", 8, 7, 0, 0, "0x64", 2));
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t);

	ck_assert_ptr_null(in0(s)->attempts);
	hd_store_keep_attempt(s, 0);
	ck_assert_uint_eq(s->ops->len, 1);
	ck_assert_uint_eq(count_type(s, HD_SIGT_CUDA_DRIVER), 1);
}
END_TEST

/*
 * A restart that reuses the pid (pid 1 in a container), the old life's
 * last ops and its watchdog timeout printed after the new life's Init
 * line (issue 20, MED-2): the ops are on a comm the new life never made,
 * the timeout is before torchrun's restart, so both are attempt 1's.
 */
static void reused_pid_log(GString *t, bool init2, const char *when)
{
	const char *pre = "node-a:1:1 [0] ";

	g_string_append_printf(
		t,
		"%sNCCL INFO NCCL version 2.19.3+cuda12.2\n"
		"%sNCCL INFO comm 0x64 rank 0 nranks 2 cudaDev 0 busId 1b000 "
		"commId 0x1111 - Init COMPLETE\n",
		pre, pre);
	for (int i = 0; i < 3; i++)
		g_string_append(t, coll(pre, "AllReduce", i, "0x1", "0x1", 8, 7,
					0, 0, "0x64", 2));
	g_string_append_printf(
		t,
		"[2025-03-05 14:42:12,002] torch.distributed.elastic.agent."
		"server.api: [INFO] [default] Restarting workers (restart 1 "
		"of 3)\n"
		"%sNCCL INFO NCCL version 2.19.3+cuda12.2\n",
		pre);
	if (init2)
		g_string_append_printf(t,
				       "%sNCCL INFO comm 0x65 rank 0 nranks 2 "
				       "cudaDev 0 busId 1b000 commId 0x2222 - "
				       "Init COMPLETE\n",
				       pre);
	for (int i = 3; i < 5; i++)
		g_string_append(t, coll(pre, "AllReduce", i, "0x1", "0x1", 8, 7,
					0, 0, "0x64", 2));
	g_string_append_printf(
		t,
		"[rank0]:[E305 %s.123456789 ProcessGroupNCCL.cpp:640] [Rank 0] "
		"Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=6, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, "
		"Timeout(ms)=600000) ran for 600000 milliseconds before timing "
		"out.\n",
		when);
	for (int i = 0; i < 2; i++)
		g_string_append(t, coll(pre, "AllReduce", i, "0x1", "0x1", 8, 7,
					0, 0, init2 ? "0x65" : "0x66", 2));
}

/* The attempt of the watchdog timeout, of the ops at opCount >= 3. */
static void reused_pid_check(struct hd_store *s, int tail, int timeout)
{
	guint ntail = 0, nsig = 0;

	ck_assert_ptr_nonnull(in0(s)->attempts);
	ck_assert_uint_eq(in0(s)->attempts->len, 2);
	ck_assert_uint_eq(s->ops->len, 7);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op = op_at(s, i);

		if (hd_op_op_count(s, op) >= 3) {
			ck_assert_int_eq(hd_op_prov(s, op).attempt, tail);
			ntail++;
		}
	}
	ck_assert_uint_eq(ntail, 2);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT) {
			ck_assert_int_eq(sig->prov.attempt, timeout);
			nsig++;
		}
	}
	ck_assert_uint_eq(nsig, 1);
}

START_TEST(test_pid_reused_tail_late)
{
	g_autoptr(GString) t = g_string_new(NULL);
	struct hd_store *s;

	/* the old life's tail, its timeout 2 s before the restart */
	reused_pid_log(t, true, "14:42:10");
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	reused_pid_check(s, 1, 1);
	hd_store_keep_attempt(s, 0);
	ck_assert_uint_eq(s->ops->len, 2);
	hd_store_free(s);

	/* a timeout after the restart is the new life's */
	g_string_truncate(t, 0);
	reused_pid_log(t, true, "14:42:30");
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	reused_pid_check(s, 1, 2);
	hd_store_free(s);

	/* within a second of it: not ordered, left where it was read */
	g_string_truncate(t, 0);
	reused_pid_log(t, true, "14:42:12");
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	reused_pid_check(s, 1, 2);
	hd_store_free(s);

	/* a new life that logs no Init line cannot tell its comms from
	   the old life's: the records stay where they were read */
	g_string_truncate(t, 0);
	reused_pid_log(t, false, "14:42:10");
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	reused_pid_check(s, 2, 1);
	hd_store_free(s);
}
END_TEST

START_TEST(test_records_read_twice)
{
	g_autoptr(GString) t = g_string_new(NULL);
	struct hd_store *s;
	const char *pre = "node-a:100:100 [0] ";

	/* a shipper's repeat of ops 1-3 after op 4, then op 5 */
	proc_log(t, "node-a", 100, 0, "0x1111", 5);
	for (int i = 1; i <= 3; i++)
		g_string_append(t, coll(pre, "AllReduce", i, "0x1", "0x1", 8, 7,
					0, 0, "0x64", 2));
	g_string_append(t, coll(pre, "AllReduce", 5, "0x1", "0x1", 8, 7, 0, 0,
				"0x64", 2));
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	ck_assert_uint_eq(s->ops->len, 6);
	for (guint i = 0; i < s->ops->len; i++) {
		ck_assert_int_eq(op_at(s, i)->seq, i);
		ck_assert_int_eq(hd_op_op_count(s, op_at(s, i)), i);
	}
	ck_assert_uint_ge(in0(s)->nwarnings, 1);
	hd_store_free(s);

	/* the whole log appended to itself: read once */
	g_string_truncate(t, 0);
	proc_log(t, "node-a", 100, 0, "0x1111", 4);
	g_string_append(t, t->str);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	ck_assert_uint_eq(s->ops->len, 4);
	ck_assert_ptr_null(in0(s)->attempts);
	hd_store_free(s);

	/* a coalesced group of two identical broadcasts: both kept */
	g_string_truncate(t, 0);
	proc_log(t, "node-a", 100, 0, "0x1111", 2);
	for (int i = 0; i < 2; i++)
		g_string_append(t, coll(pre, "Broadcast", 2, "0x1", "0x1", 8, 7,
					0, 0, "0x64", 2));
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	ck_assert_uint_eq(s->ops->len, 4);
	ck_assert_int_eq(hd_op_op_count(s, op_at(s, 3)), 2);
	hd_store_free(s);
}
END_TEST

/* t with every line written twice in a row.  (transfer full) */
static GString *every_line_twice(const char *t)
{
	GString *out = g_string_new(NULL);
	g_auto(GStrv) lines = g_strsplit(t, "\n", -1);

	for (guint i = 0; lines[i]; i++) {
		if (!lines[i + 1] && !*lines[i])
			break; /* after the last line end */
		for (int k = 0; k < 2; k++)
			g_string_append_printf(out, "%s\n", lines[i]);
	}
	return out;
}

/*
 * A collector that delivered every line twice in a row: each line is one
 * event, read once, and a warning counts them; COLL records too, since
 * the log's other lines show the doubling.  The second "terminate
 * called" of a pair no longer hides the first's what() from it.  Without
 * a doubled line elsewhere, two identical COLL records in a row are two
 * ops of a coalesced group (test_records_read_twice), and a line
 * repeated later (not right after itself) is not folded.
 */
START_TEST(test_lines_delivered_twice)
{
	g_autoptr(GString) t = g_string_new(NULL);
	g_autoptr(GString) twice = NULL;
	struct hd_store *s;
	const struct hd_input *in;
	bool warned = false;

	proc_log(t, "node-a", 100, 0, "0x1111", 4);
	g_string_append(t, "terminate called after throwing an instance of "
			   "'c10::CUDAError'\n"
			   "  what():  CUDA error: driver shutting down\n");
	twice = every_line_twice(t->str);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, twice->str);
	in = in0(s);
	ck_assert_uint_eq(s->ops->len, 4);
	for (guint i = 0; i < s->ops->len; i++)
		ck_assert_int_eq(op_at(s, i)->seq, i);
	for (guint i = 0; i < in->warnings->len; i++)
		warned |= strstr(g_ptr_array_index(in->warnings, i),
				 "4 lines came twice in a row") != NULL;
	ck_assert(warned);
	/* the terminate is the runtime unloading: no crash signal */
	for (guint i = 0; i < s->signals->len; i++)
		ck_assert_int_ne(sig_at(s, i)->cat, HD_SIG_CRASH);
	hd_store_free(s);

	/* the same line twice, but not in a row: both read */
	g_string_truncate(t, 0);
	g_string_append(t,
			"node-a:100:100 [0] NCCL INFO Bootstrap : Using "
			"eth0:10.0.0.1<0>\n"
			"node-a:100:100 [0] NCCL INFO cudaDriverVersion 12020\n"
			"node-a:100:100 [0] NCCL INFO Bootstrap : Using "
			"eth0:10.0.0.1<0>\n");
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	ck_assert_uint_eq(in0(s)->nwarnings, 0);
	hd_store_free(s);
}
END_TEST

/*
 * Every clock a log line can carry is kept (issue 18): NCCL's local stamp,
 * a collector's UTC date and an offset, glog's month and day (year from a
 * dated line of the same stream only), and no date from a malformed one.
 */
START_TEST(test_line_clocks)
{
	const char *text =
		"[2026-06-14 09:05:10] " HP
		"x.cc:1 NCCL WARN Cuda failure 'out of memory'\n"
		"2026-06-14T01:05:11Z: " HP
		"x.cc:1 NCCL WARN Cuda failure 'out of memory'\n"
		"2026-06-14T09:05:12+08:00: " HP
		"x.cc:1 NCCL WARN Cuda failure 'out of memory'\n"
		"[2026-02-30 09:05:13] " HP
		"x.cc:1 NCCL WARN Cuda failure 'out of memory'\n"
		"[rank1]:[E0614 09:15:13.203113000 ProcessGroupNCCL.cpp:632] "
		"[PG ID 0 PG GUID 0(default_pg) Rank 1] Watchdog caught "
		"collective operation timeout: WorkNCCL(SeqNum=7, "
		"OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1) ran "
		"for 2 milliseconds before timing out.\n"
		"[default3]:[rank3]:[E0614 09:15:14.1 ProcessGroupNCCL.cpp:632] "
		"[PG ID 0 PG GUID 0(default_pg) Rank 3] Watchdog caught "
		"collective operation timeout: WorkNCCL(SeqNum=7, "
		"OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1) ran "
		"for 2 milliseconds before timing out.\n";
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);
	const int64_t day = hd_days_from_civil(2026, 6, 14) * HD_NS_PER_DAY;
	g_autofree char *md = NULL;

	ck_assert_uint_eq(s->signals->len, 6);
	ck_assert_int_eq(sig_at(s, 0)->time.clock, HD_CLOCK_LOCAL);
	ck_assert_int_eq(sig_at(s, 0)->time.ns,
			 day + (9 * 3600 + 5 * 60 + 10) * HD_NS_PER_SEC);
	ck_assert_int_eq(sig_at(s, 1)->time.clock, HD_CLOCK_UTC);
	ck_assert_int_eq(sig_at(s, 1)->time.ns,
			 day + (1 * 3600 + 5 * 60 + 11) * HD_NS_PER_SEC);
	ck_assert_int_eq(sig_at(s, 2)->time.clock, HD_CLOCK_UTC);
	ck_assert_int_eq(sig_at(s, 2)->time.ns,
			 day + (1 * 3600 + 5 * 60 + 12) * HD_NS_PER_SEC);
	/* February 30 is no date */
	ck_assert(!hd_time_known(sig_at(s, 3)->time));
	/* the unlabelled watchdog line: the year of the file's first dated
	   unlabelled line */
	ck_assert_int_eq(sig_at(s, 4)->time.clock, HD_CLOCK_LOCAL);
	ck_assert_int_eq(sig_at(s, 4)->time.ns,
			 day + (9 * 3600 + 15 * 60 + 13) * HD_NS_PER_SEC);
	/* [default3]: a stream with no date of its own takes the year of
	   the unlabelled lines (the launcher's, same node) */
	ck_assert_int_eq(sig_at(s, 5)->time.clock, HD_CLOCK_LOCAL);
	{
		/* without any dated line the year stays unknown */
		g_autoptr(hd_store) y = hd_test_parse_ok(
			HD_INPUT_NCCL_LOG,
			"[rank1]:[E0614 09:15:13.203113000 "
			"ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID "
			"0(default_pg) Rank 1] Watchdog caught collective "
			"operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, "
			"NumelIn=1, NumelOut=1, Timeout(ms)=1) ran for 2 "
			"milliseconds before timing out.\n");

		ck_assert_int_eq(sig_at(y, 0)->time.clock, HD_CLOCK_MONTH_DAY);
		md = hd_time_format(sig_at(y, 0)->time, 0);
		ck_assert_str_eq(
			md, "06-14 09:15:13 (local, year and zone unknown)");
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nccl_log");
	TCase *tc = tcase_create("init");
	TCase *tcc = tcase_create("coll");
	TCase *ta = tcase_create("attribution");
	TCase *tw = tcase_create("warn");
	TCase *tt = tcase_create("c10d");
	TCase *tm = tcase_create("malformed");

	TCase *all[] = { tc, tcc, ta, tw, tt, tm };

	for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
		tcase_add_checked_fixture(all[i], NULL, pool_clear);
	tcase_add_test(tc, test_init_eras);
	tcase_add_test(tc, test_init_split);
	tcase_add_test(tc, test_init_pre216_order_and_reuse);
	suite_add_tcase(s, tc);
	tcase_add_test(tcc, test_coll_enums);
	tcase_add_test(tcc, test_coll_counts_and_eras);
	tcase_add_test(tcc, test_coll_cut_1024);
	tcase_add_test(tcc, test_rank_unknown_skipped);
	suite_add_tcase(s, tcc);
	tcase_add_test(ta, test_interleaved_torchrun);
	tcase_add_test(ta, test_interleaved_many_processes);
	tcase_add_test(ta, test_bootstrap_address);
	tcase_add_test(ta, test_c10d_rank_beats_world_rank);
	tcase_add_test(ta, test_wrappers);
	tcase_add_test(ta, test_worker_label_signals);
	tcase_add_test(ta, test_exit_noise);
	tcase_add_test(ta, test_deepspeed_exit);
	tcase_add_test(ta, test_srun_exit);
	tcase_add_test(ta, test_srun_label_two_ranks);
	tcase_add_test(ta, test_srun_exit_malformed);
	tcase_add_test(ta, test_srun_exit_ranks);
	tcase_add_test(ta, test_srun_exit_ends_error_block);
	tcase_add_test(ta, test_init_call_failed);
	tcase_add_test(ta, test_trimmed_repeated_fused_torn);
	tcase_add_test(ta, test_torn_unknown_provenance);
	suite_add_tcase(s, ta);
	tcase_add_test(tw, test_warn_forms);
	tcase_add_test(tw, test_destroy_after_advice);
	tcase_add_test(tw, test_warn_rules);
	tcase_add_test(tw, test_warn_22_no_token);
	tcase_add_test(tw, test_ib_completion_eras);
	suite_add_tcase(s, tw);
	tcase_add_test(tt, test_c10d_timeout_forms);
	tcase_add_test(tt, test_counters_complete);
	tcase_add_test(tt, test_c10d_status_wordings);
	tcase_add_test(tt, test_c10d_timeout_takes_status_pg);
	tcase_add_test(tt, test_c10d_timeout_damaged_optype);
	tcase_add_test(tt, test_c10d_cut_heads);
	tcase_add_test(tt, test_srun_node_failure);
	tcase_add_test(tt, test_cuda_error_rankless_first);
	tcase_add_test(tt, test_horovod_stalled_ops);
	tcase_add_test(tt, test_hydra_bad_termination);
	tcase_add_test(tt, test_rendezvous_errors);
	tcase_add_test(tt, test_c10d_timeout_pg_interleaved);
	tcase_add_test(tt, test_c10d_nccl_error_block);
	tcase_add_test(tt, test_c10d_nccl_error_bare);
	tcase_add_test(tt, test_torchrun_child_failed);
	tcase_add_test(tt, test_oom_and_traceback);
	tcase_add_test(tt, test_hard_wrap);
	tcase_add_test(tt, test_c10d_old_watchdog_ranks);
	tcase_add_test(tt, test_c10d_fingerprints);
	tcase_add_test(tt, test_c10d_exit_local_rank);
	tcase_add_test(tt, test_c10d_store_cuda_named);
	tcase_add_test(tt, test_c10d_store_address);
	tcase_add_test(tt, test_c10d_wrap_before_record);
	suite_add_tcase(s, tt);
	tcase_set_timeout(tm, 60);
	tcase_add_test(tm, test_malformed);
	tcase_add_test(tm, test_huge_line);
	tcase_add_test(tw, test_warn_bodies_issue11);
	tcase_add_test(tw, test_warn_mismatched_collective_hint);
	tcase_add_test(tw, test_warn_cuda_driver);
	tcase_add_test(ta, test_warn_before_init_complete);
	tcase_add_test(tt, test_last_error_cuda_driver);
	tcase_add_test(tw, test_prefixless_records);
	tcase_add_test(tm, test_prefixless_near_misses);
	tcase_add_test(ta, test_horovod_glued_tag);
	tcase_add_test(tt, test_last_error_type_copied);
	tcase_add_test(tw, test_using_network_once);
	tcase_add_test(tw, test_ras_status_entry);
	tcase_add_test(tc, test_init_23_rank_lines);
	tcase_add_test(tw, test_nccl_tests_failure_and_rccl);
	tcase_add_test(tm, test_crlf_nul_utf8_no_newline);
	tcase_add_test(tm, test_torn_piece_any_shape);
	tcase_add_test(tm, test_fixture_torchrun_interleaved);
	tcase_add_test(ta, test_attempts_per_process);
	tcase_add_test(ta, test_pid_reused_tail_late);
	tcase_add_test(ta, test_records_read_twice);
	tcase_add_test(ta, test_lines_delivered_twice);
	tcase_add_test(tm, test_line_clocks);
	suite_add_tcase(s, tm);
	return s;
}

HD_TEST_MAIN(suite)
