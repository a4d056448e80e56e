/*
 * Unit tests of the crash grammar of the text-log parser
 * (parsers/crash-record.c): UCX's fatal-signal block and Python's
 * faulthandler dump become one fatal_signal with its frames; Open MPI's
 * abort lines are exits of a rank; aws-ofi-nccl completion errors are
 * network signals.  Hostile and cut blocks stay bounded and never lose
 * the signal.
 */
#include "config.h"

#include <string.h>

#include "hd-test-parse.h"

#define UCX_HEAD \
	"[gpu-7:4411 :0:4502] Caught signal 7 (Bus error: nonexistent physical address)\n"
#define UCX_BT	"==== backtrace (tid:   4502) ====\n"
#define UCX_F0	" 0 0x0000000000042520 __sigaction()  ???:0\n"
#define UCX_F1	" 1 0x000000000008c1f2 ncclShmOpen()  ???:0\n"
#define UCX_F2	" 2 0x000000000008d5a0 \?\?\?()  /opt/nccl/lib/libnccl.so.2:0\n"
#define UCX_END "=================================\n"

START_TEST(test_ucx_block)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG, UCX_HEAD UCX_BT UCX_F0 UCX_F1 UCX_F2 UCX_END
		"after the block\n");
	const struct hd_signal *g = sig_type(s, HD_SIGT_FATAL_SIGNAL);
	const struct hd_frame *f;
	size_t n = 0;

	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->cat, HD_SIG_CRASH);
	ck_assert_int_eq(g->code, 7);
	ck_assert_str_eq(g->host, "gpu-7");
	ck_assert_int_eq(g->pid, 4411);
	f = hd_store_stack(s, g->stack, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(f[0].name, "__sigaction");
	ck_assert_str_eq(f[1].name, "ncclShmOpen");
	ck_assert_str_eq(f[2].name, "?"
				    "??");
	ck_assert_str_eq(f[2].file, "/opt/nccl/lib/libnccl.so.2");
	ck_assert_uint_eq(count_type(s, HD_SIGT_FATAL_SIGNAL), 1);
}
END_TEST

START_TEST(test_ucx_joins_process_and_label)
{
	/* the NCCL process with the handler's host:pid gives the rank */
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"gpu-7:4411:4411 [2] NCCL INFO ncclCommInitRank comm 0x55aa "
		"rank 2 nranks 4 cudaDev 2 busId 3b000 - Init START\n" UCX_HEAD
			UCX_BT UCX_F1);
	g_autoptr(hd_store) m =
		hd_test_parse_ok(HD_INPUT_NCCL_LOG, "[1,6]<stderr>:" UCX_HEAD
						    "[1,6]<stderr>:" UCX_BT
						    "[1,6]<stderr>:" UCX_F1);
	size_t n = 0;

	ck_assert_int_eq(sig_type(s, HD_SIGT_FATAL_SIGNAL)->rank, 2);
	/* cut after its frames (no closing rule): the frames stay */
	(void)hd_store_stack(s, sig_type(s, HD_SIGT_FATAL_SIGNAL)->stack, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(sig_type(m, HD_SIGT_FATAL_SIGNAL)->rank, 6);
	(void)hd_store_stack(m, sig_type(m, HD_SIGT_FATAL_SIGNAL)->stack, &n);
	ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(test_faulthandler_current_thread)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"[rank3]:Fatal Python error: Segmentation fault\n"
		"[rank3]:\n"
		"[rank3]:Thread 0x00007f00aa (most recent call first):\n"
		"[rank3]:  File \"/usr/lib/python3.11/threading.py\", line 331 in wait\n"
		"[rank3]:\n"
		"[rank3]:Current thread 0x00007f00bb (most recent call first):\n"
		"[rank3]:  File \"/job/loader.py\", line 211 in fetch_next_batch\n"
		"[rank3]:  File \"/job/train.py\", line 40 in <module>\n"
		"[rank3]:\n"
		"[rank3]:Thread 0x00007f00cc (most recent call first):\n"
		"[rank3]:  File \"/usr/lib/python3.11/queue.py\", line 180 in get\n"
		"[rank3]:\n"
		"[rank3]:Extension modules: torch._C (total: 1)\n");
	const struct hd_signal *g = sig_type(s, HD_SIGT_FATAL_SIGNAL);
	const struct hd_frame *f;
	size_t n = 0;

	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->code, 11);
	ck_assert_int_eq(g->rank, 3);
	f = hd_store_stack(s, g->stack, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(f[0].name, "fetch_next_batch");
	ck_assert_str_eq(f[0].file, "/job/loader.py");
	ck_assert_int_eq(f[0].line, 211);
	ck_assert_str_eq(f[1].name, "<module>");
}
END_TEST

START_TEST(test_faulthandler_aborted_only_thread)
{
	/* no "Current thread": the first thread's frames */
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"Fatal Python error: Aborted\n\n"
		"Thread 0x00007f00aa (most recent call first):\n"
		"  File \"/job/step.py\", line 9 in step\n");
	const struct hd_signal *g = sig_type(s, HD_SIGT_FATAL_SIGNAL);
	size_t n = 0;

	ck_assert_int_eq(g->code, 6);
	(void)hd_store_stack(s, g->stack, &n);
	ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(test_malformed)
{
	g_autoptr(GString) t = g_string_new(NULL);
	g_autoptr(hd_store) s = NULL;
	g_autoptr(hd_store) junk = NULL;
	const struct hd_signal *g;
	size_t n = 0;

	/* a block far longer than any handler prints: frames capped */
	g_string_append(t, UCX_HEAD UCX_BT);
	for (int i = 0; i < 5000; i++)
		g_string_append_printf(t, " %d 0x%016x f%d()  ???:0\n", i, i,
				       i);
	s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, t->str);
	g = sig_type(s, HD_SIGT_FATAL_SIGNAL);
	(void)hd_store_stack(s, g->stack, &n);
	ck_assert_uint_le(n, 64);
	ck_assert_uint_gt(n, 0);
	/* headers without a number, frames without a header, torn frames */
	junk = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"Caught signal \n"
		"Caught signal 99999999999999999999 (x)\n"
		"Fatal Python error: something else\n"
		/* a signal's name inside other words is no signal */
		"Fatal Python error: _enter_buffered_busy: could not acquire "
		"lock: Aborted at shutdown\n"
		"Fatal Python error: Segmentation faults\n"
		" 3 0x00000000 ncclGroupEnd()  ???:0\n"
		"  File \"x.py\", line 3 in f\n"
		"[h:1 :0:2] Caught signal 11 (Segmentation fault)\n"
		" 0 0x\n"
		" 1 0x00 (\n"
		" 2 notaddr f()  ???:0\n"
		"  File \"unterminated, line 4 in g\n"
		"[rank]:Fatal Python error: Bus error\n"
		"[rank9999999999999]:Fatal Python error: Bus error\n");
	/* "[rank]:" is no rank prefix; a rank no job has is dropped */
	ck_assert_uint_eq(count_type(junk, HD_SIGT_FATAL_SIGNAL), 2);
	ck_assert_int_eq(sig_at(junk, junk->signals->len - 1)->rank, -1);
	g = sig_type(junk, HD_SIGT_FATAL_SIGNAL);
	ck_assert_int_eq(g->code, 11);
	(void)hd_store_stack(junk, g->stack, &n);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_mpirun_exits)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"-------------------------------------------------------\n"
		"Primary job  terminated normally, but 1 process returned\n"
		"a non-zero exit code. Per user-direction, the job has been "
		"aborted.\n"
		"mpirun detected that one or more processes exited with "
		"non-zero status, thus causing\n"
		"the job to be terminated. The first process to do so was:\n"
		"\n"
		"  Process name: [[5120,1],3]\n"
		"  Exit code:    4\n"
		"mpirun noticed that process rank 7 with PID 991 on node n2 "
		"exited on signal 9 (Killed).\n"
		/* a block that names no rank, and a stray Exit code */
		"mpirun detected that one or more processes exited with "
		"non-zero status\n"
		"  Process name: [[5120,1]\n"
		"  Exit code:    4\n"
		"  Exit code:    5\n");
	const struct hd_signal *a, *b;

	ck_assert_uint_eq(count_type(s, HD_SIGT_PROCESS_EXIT), 2);
	a = sig_type(s, HD_SIGT_PROCESS_EXIT);
	ck_assert_int_eq(a->rank, 3);
	ck_assert_int_eq(a->code, 4);
	b = sig_at(s, s->signals->len - 1);
	ck_assert_int_eq(b->type, HD_SIGT_PROCESS_EXIT);
	ck_assert_int_eq(b->rank, 7);
	ck_assert_int_eq(b->code, -9);
	ck_assert_int_eq(b->pid, 991);
}
END_TEST

START_TEST(test_ofi_completion)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_NCCL_LOG,
		"efa-1:80:81 [0] ofi_process_cq:1102 NCCL WARN NET/OFI Request "
		"0x7f01 completed with error. RC: 12. Error: x\n"
		"efa-1:80:81 [0] ofi_process_cq:1102 NCCL WARN NET/OFI Request "
		"0x7f02 completed with error. RC: \n");
	const struct hd_signal *g = sig_at(s, 0);

	ck_assert_uint_eq(count_type(s, HD_SIGT_IB_COMPLETION), 2);
	ck_assert_int_eq(g->cat, HD_SIG_NETWORK);
	ck_assert_int_eq(g->code, 12);
	ck_assert_int_eq(sig_at(s, 1)->code, 0);
}
END_TEST

/*
 * An NCCL error raised right below a frame that calls ncclCommInitRank
 * (pynccl) is setup's; the same error further from it, or below another
 * call, keeps the category its result gives.
 */
/* The category of the one NCCL error the text holds. */
static int nccl_error_cat(const char *text)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_NCCL_LOG, text);

	ck_assert_uint_eq(count_type(s, HD_SIGT_NCCL_ERROR), 1);
	for (guint i = 0; i < s->signals->len; i++)
		if (sig_at(s, i)->type == HD_SIGT_NCCL_ERROR)
			return sig_at(s, i)->cat;
	return -1;
}

#define INIT_FRAME "    self.comm = lib.ncclCommInitRank(n, uid, rank)\n"
#define CUDA_RAISE                                                  \
	"RuntimeError: NCCL error: unhandled cuda error (run with " \
	"NCCL_DEBUG=INFO for details)\n"

/*
 * An NCCL error raised right below a frame that calls ncclCommInitRank
 * (pynccl) is setup's; the same error further from it, or below another
 * call, keeps the category its result gives.
 */
START_TEST(test_nccl_error_from_init_call)
{
	ck_assert_int_eq(
		nccl_error_cat("  File \"pynccl.py\", line 88\n" INIT_FRAME
				       CUDA_RAISE),
		HD_SIG_INIT);
	ck_assert_int_eq(nccl_error_cat(INIT_FRAME "a\nb\nc\nd\ne\nf\ng\nh\n"
						   "i\n" CUDA_RAISE),
			 HD_SIG_CUDA);
	ck_assert_int_eq(
		nccl_error_cat("    lib.ncclAllReduce(buf, buf, n, dt, "
			       "op, comm, stream)\n" CUDA_RAISE),
		HD_SIG_CUDA);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("crash");
	TCase *tc = tcase_create("crash");

	tcase_add_test(tc, test_ucx_block);
	tcase_add_test(tc, test_ucx_joins_process_and_label);
	tcase_add_test(tc, test_faulthandler_current_thread);
	tcase_add_test(tc, test_nccl_error_from_init_call);
	tcase_add_test(tc, test_faulthandler_aborted_only_thread);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_mpirun_exits);
	tcase_add_test(tc, test_ofi_completion);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(suite)
