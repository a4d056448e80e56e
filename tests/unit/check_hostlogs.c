/*
 * The host-state inputs of issue 21: kernel logs (dmesg, dmesg -T,
 * journalctl -k), InfiniBand port state (ibstat, ibstatus, ibv_devinfo,
 * perfquery) and GPU state (nvidia-smi -q): what each line shape gives, what the sniffer claims and
 * leaves alone, malformed input, and the engine's joins to ranks on the
 * fixtures of tests/data/hostlogs.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "hd-load.h"
#include "hd-test-engine.h"
#include "hd-test-parse.h"
#include "hd-banned.h"

static const struct hd_signal *sig(const struct hd_store *s, guint i)
{
	ck_assert_uint_lt(i, s->signals->len);
	return &g_array_index(s->signals, struct hd_signal, i);
}

static enum hd_input_kind sniff(const char *text)
{
	return parsers_sniff((const uint8_t *)text, strlen(text));
}

START_TEST(test_sniff)
{
	ck_assert_int_eq(sniff("[    0.000000] Linux version 6.5.0\n"
			       "[    1.000000] x\n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_eq(sniff("[Tue Nov 21 04:00:02 2023] NVRM: Xid "
			       "(PCI:0000:3b:00): 79, pid=1, x\n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_eq(sniff("-- Logs begin at Mon 2023-11-20. --\n"
			       "Nov 21 03:59:57 trn-02 kernel: hello\n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_eq(sniff("kernel: NVRM: Xid (PCI:...): 145, x\n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_eq(sniff("CA 'mlx5_0'\n\tCA type: MT4129\n"),
			 HD_INPUT_IB_STATE);
	ck_assert_int_eq(sniff("# Port counters: Lid 3 port 1\n"),
			 HD_INPUT_IB_STATE);
	ck_assert_int_eq(sniff("hca_id:\tmlx5_0\n"), HD_INPUT_IB_STATE);
	ck_assert_int_eq(sniff("\n==============NVSMI LOG==============\n"),
			 HD_INPUT_GPU_STATE);
	/* NCCL and c10d text stays theirs, even with a kernel-like line */
	ck_assert_int_eq(sniff("node-b:4247:4247 [1] NCCL INFO Bootstrap : "
			       "Using eth0:10.1.0.6<0>\n"
			       "[    1.000000] x\n"),
			 HD_INPUT_NCCL_LOG);
	ck_assert_int_eq(sniff("[rank3]:[E1121 03:22:44.123 "
			       "ProcessGroupNCCL.cpp:632] x\n"),
			 HD_INPUT_NCCL_LOG);
	ck_assert_int_eq(sniff("[default0]:node-a:1:1 [0] NCCL INFO x\n"),
			 HD_INPUT_NCCL_LOG);
	/* a kernel line among mostly other text is not a kernel log */
	ck_assert_int_ne(sniff("hello\n[    1.000000] x\nworld\nmore\n"),
			 HD_INPUT_KERNEL_LOG);
}
END_TEST

START_TEST(test_dmesg_xid)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"[    0.000000] Linux version 6.5.0\n"
		"[91806.220428] NVRM: Xid (PCI:0000:3B:00): 79, "
		"pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
		"[91807.5] NVRM: Xid (PCI:0000:1b:00): 13, pid=7104, "
		"name=python3, Graphics Exception\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert_int_eq(in->kind, HD_INPUT_KERNEL_LOG);
	ck_assert_uint_eq(in->records, 2);
	ck_assert_uint_eq(in->skipped, 0);
	ck_assert_int_eq(sig(s, 0)->type, HD_SIGT_XID);
	ck_assert_int_eq(sig(s, 0)->code, 79);
	ck_assert_str_eq(sig(s, 0)->device, "0000:3b:00");
	ck_assert_int_eq(sig(s, 0)->pid, 0);
	/* a boot-relative stamp is a clock of its own, no wall time */
	ck_assert_int_eq(sig(s, 0)->time.clock, HD_CLOCK_BOOT);
	ck_assert_int_eq(sig(s, 0)->time.ns, 91806220428000LL);
	ck_assert_ptr_null(sig(s, 0)->host);
	ck_assert_int_eq(sig(s, 1)->code, 13);
	ck_assert_int_eq(sig(s, 1)->pid, 7104);
	ck_assert_int_eq(sig(s, 1)->time.ns, 91807500000000LL);
}
END_TEST

START_TEST(test_dmesg_T_and_journal)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"[Tue Nov 21 04:00:02 2023] NVRM: Xid (PCI:0000:3b:00): 79, "
		"pid=7104, name=python3, GPU has fallen off the bus.\n"
		"Nov 21 03:59:57 trn-02 kernel: Out of memory: Killed process "
		"7104 (python3) total-vm:2kB\n"
		"2023-11-21T03:59:31+0100 trn-03 kernel: mlx5_core 0000:4c:00.0 "
		"mlx5_1: Port: 1 Link DOWN\n"
		"2023-11-21T03:59:32+0100 trn-03 kernel: mlx5_core 0000:4c:00.0 "
		"mlx5_1: Port: 1 Link INIT\n"
		"May 23 09:17:30 trn-04 kernel: [  618.609820] mlx5_core "
		"0000:4c:00.0 mlx5_1: Port: 1 Link ACTIVE\n",
		NULL);

	ck_assert_uint_eq(hd_store_input(s, 0)->records, 4);
	/* dmesg -T: local wall time, no zone */
	ck_assert_int_eq(sig(s, 0)->time.ns, 1700539202LL * 1000000000);
	ck_assert_int_eq(sig(s, 0)->time.clock, HD_CLOCK_LOCAL);
	ck_assert_int_eq(sig(s, 1)->type, HD_SIGT_HOST_OOM);
	ck_assert_int_eq(sig(s, 1)->pid, 7104);
	ck_assert_str_eq(sig(s, 1)->op_name, "python3");
	ck_assert_str_eq(sig(s, 1)->host, "trn-02");
	/* journalctl's short format has no year: no wall time */
	ck_assert_int_eq(sig(s, 1)->time.clock, HD_CLOCK_NONE);
	ck_assert_int_eq(sig(s, 2)->type, HD_SIGT_LINK_EVENT);
	ck_assert_int_eq(sig(s, 2)->code, 0);
	ck_assert_int_eq(sig(s, 2)->cat, HD_SIG_NETWORK);
	ck_assert_str_eq(sig(s, 2)->device, "mlx5_1:1");
	ck_assert_str_eq(sig(s, 2)->host, "trn-03");
	/* ISO with a zone: UTC */
	ck_assert_int_eq(sig(s, 2)->time.ns, 1700535571LL * 1000000000);
	ck_assert_int_eq(sig(s, 2)->time.clock, HD_CLOCK_UTC);
	/* syslog with the dmesg stamp inside; a link up is no trouble */
	ck_assert_int_eq(sig(s, 3)->code, 1);
	ck_assert_int_eq(sig(s, 3)->cat, HD_SIG_INFO);
	ck_assert_int_eq(sig(s, 3)->time.clock, HD_CLOCK_BOOT);
	ck_assert_int_eq(sig(s, 3)->time.ns, 618609820000LL);
	ck_assert_str_eq(sig(s, 3)->host, "trn-04");
}
END_TEST

/*
 * The kernel log's dates go through hd-time's one date parser: an ISO
 * fraction is kept, and a day that does not exist gives no wall time
 * rather than one made up from the next month.
 */
START_TEST(test_kernel_dates)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"2023-11-21T03:59:31.250Z trn-03 kernel: mlx5_core "
		"0000:4c:00.0 mlx5_1: Port: 1 Link DOWN\n"
		"[Thu Feb 30 04:00:02 2023] NVRM: Xid (PCI:0000:3b:00): 79, "
		"pid=7104, name=python3, GPU has fallen off the bus.\n"
		"2023-02-29T03:59:31Z trn-03 kernel: mlx5_core "
		"0000:4c:00.0 mlx5_1: Port: 1 Link DOWN\n",
		NULL);

	ck_assert_uint_ge(s->signals->len, 1);
	ck_assert_int_eq(sig(s, 0)->time.clock, HD_CLOCK_UTC);
	ck_assert_int_eq(sig(s, 0)->time.ns,
			 1700539171LL * 1000000000 + 250000000);
	for (guint i = 1; i < s->signals->len; i++)
		ck_assert_int_ne(sig(s, i)->time.clock, HD_CLOCK_LOCAL);
	for (guint i = 1; i < s->signals->len; i++)
		ck_assert_int_ne(sig(s, i)->time.clock, HD_CLOCK_UTC);
}
END_TEST

START_TEST(test_fallen_multiline)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
		"               NVRM: (PCI ID: 10de:26b5) installed in this "
		"system has\n"
		"               NVRM: fallen off the bus and is not responding "
		"to commands.\n",
		NULL);

	ck_assert_uint_eq(hd_store_input(s, 0)->records, 1);
	ck_assert_int_eq(sig(s, 0)->code, 79);
	ck_assert_str_eq(sig(s, 0)->device, "0000:b3:00");
}
END_TEST

START_TEST(test_kernel_malformed)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"[    1.000000] ok\n"
		"[    2.000000] NVRM: Xid (PCI:0000:3b:00): , pid=1\n"
		"[    3.000000] NVRM: Xid (PCI:0000:3b:00\n"
		"[    4.000000] Out of memory: Killed process (python)\n"
		"this is not a kernel line\n"
		"[    5.000000] NVRM: Xid (PCI:...): 145, link 11\n"
		"[99999999999999999999.1] x\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	/* the anonymised bus id stays unknown; the Xid is kept */
	ck_assert_uint_eq(in->records, 1);
	ck_assert_ptr_null(sig(s, 0)->device);
	ck_assert_int_eq(sig(s, 0)->code, 145);
	ck_assert_uint_eq(in->skipped, 5);
	ck_assert_uint_eq(in->nwarnings, 5);
	ck_assert(strstr(g_ptr_array_index(in->warnings, 0), "line 2"));
}
END_TEST

START_TEST(test_ibstat)
{
	g_autofree char *path =
		hd_test_path("tests/data/hostlogs/ib/port-down-missing/"
			     "hosts/trn-02/ib.txt");
	g_autoptr(hd_store) s = hd_test_parse_file(path, NULL, NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert_int_eq(in->kind, HD_INPUT_IB_STATE);
	ck_assert_uint_eq(in->records, 3);
	ck_assert_uint_eq(in->skipped, 0);
	ck_assert_str_eq(sig(s, 0)->device, "mlx5_0:1");
	ck_assert_int_eq(sig(s, 0)->code, 1);
	ck_assert_str_eq(sig(s, 1)->device, "mlx5_1:1");
	ck_assert_int_eq(sig(s, 1)->code, 0);
	ck_assert_int_eq(sig(s, 1)->cat, HD_SIG_NETWORK);
	/* perfquery by LID, named by the ibstat section that gave it */
	ck_assert_int_eq(sig(s, 2)->type, HD_SIGT_IB_COUNTERS);
	ck_assert_int_eq(sig(s, 2)->code, 3);
	ck_assert_str_eq(sig(s, 2)->device, "mlx5_1:1");
	ck_assert(strstr(sig(s, 2)->text, "LinkDownedCounter=4"));
	ck_assert(strstr(sig(s, 2)->text, "SymbolErrorCounter=2291"));
}
END_TEST

START_TEST(test_ibstatus_devinfo)
{
	g_autofree char *a =
		hd_test_path("tests/data/hostlogs/ib/healthy/ibstatus.txt");
	g_autofree char *b =
		hd_test_path("tests/data/hostlogs/ib/healthy/ibv_devinfo.txt");
	g_autoptr(hd_store) s = hd_test_parse_file(a, NULL, NULL);
	g_autoptr(hd_store) t = hd_test_parse_file(b, NULL, NULL);

	ck_assert_uint_eq(hd_store_input(s, 0)->records, 2);
	ck_assert_str_eq(sig(s, 1)->device, "mlx5_1:1");
	ck_assert_int_eq(sig(s, 1)->code, 1);
	ck_assert_uint_eq(hd_store_input(t, 0)->records, 2);
	ck_assert_str_eq(sig(t, 0)->device, "mlx5_0:1");
	ck_assert_int_eq(sig(t, 0)->code, 1);
	ck_assert_int_eq(sig(t, 0)->cat, HD_SIG_INFO);
}
END_TEST

START_TEST(test_ib_malformed)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_IB_STATE,
		"CA 'mlx5_0\n"
		"\tPort 1:\n"
		"\t\tState: Active\n"
		"garbage at the top level\n"
		"CA 'mlx5_1'\n"
		"\tPort 1:\n"
		"\t\tPhysical state: LinkUp\n"
		"# Port counters: Lid port\n"
		"LinkDownedCounter:....99999999999999999999999\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	/* a port without its HCA's name, one without a state, a stray line */
	ck_assert_uint_eq(in->skipped, 3);
	ck_assert_uint_eq(in->records, 1);
	ck_assert_int_eq(sig(s, 0)->type, HD_SIGT_IB_COUNTERS);
	ck_assert_ptr_null(sig(s, 0)->device);
}
END_TEST

START_TEST(test_nvidia_smi)
{
	g_autofree char *path = hd_test_path(
		"tests/data/hostlogs/gpu/remap-pending/hosts/trn-02/"
		"nvidia-smi-q.txt");
	g_autofree char *slow =
		hd_test_path("tests/data/hostlogs/gpu/slowdown-only/"
			     "nvidia-smi-q.txt");
	g_autoptr(hd_store) s = hd_test_parse_file(path, NULL, NULL);
	g_autoptr(hd_store) t = hd_test_parse_file(slow, NULL, NULL);

	ck_assert_int_eq(hd_store_input(s, 0)->kind, HD_INPUT_GPU_STATE);
	ck_assert_uint_eq(hd_store_input(s, 0)->records, 2);
	ck_assert_str_eq(sig(s, 0)->device, "0000:1b:00");
	ck_assert_int_eq(sig(s, 0)->code, 0);
	ck_assert_int_eq(sig(s, 0)->cat, HD_SIG_INFO);
	ck_assert_str_eq(sig(s, 1)->device, "0000:3b:00");
	/* the aggregate counters are history: only volatile ones count */
	ck_assert_int_eq(sig(s, 1)->code,
			 HD_GPU_ECC_UNCORRECTABLE | HD_GPU_REMAP_PENDING);
	ck_assert_int_eq(sig(s, 1)->cat, HD_SIG_CUDA);
	/* a slowdown is recorded, but is no trouble */
	ck_assert_int_eq(sig(t, 0)->code, HD_GPU_SLOWDOWN);
	ck_assert_int_eq(sig(t, 0)->cat, HD_SIG_INFO);
}
END_TEST

START_TEST(test_nvidia_smi_malformed)
{
	g_autoptr(hd_store) s =
		hd_test_parse_str(HD_INPUT_GPU_STATE,
				  "==============NVSMI LOG==============\n"
				  "GPU zz:yy\n"
				  "    ECC Errors\n"
				  "        Volatile\n"
				  "            Double Bit\n"
				  "                Total : 7\n"
				  "GPU 00000000:3B:00.0\n"
				  "    ECC Errors\n"
				  "        Volatile\n"
				  "            Double Bit\n"
				  "                Device Memory : 4\n"
				  "        Aggregate\n"
				  "            Double Bit\n"
				  "                Device Memory : 9\n",
				  NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert_uint_eq(in->skipped, 1);
	ck_assert_uint_eq(in->records, 1);
	/* older drivers' "Double Bit" under Volatile */
	ck_assert_int_eq(sig(s, 0)->code, HD_GPU_ECC_UNCORRECTABLE);
}
END_TEST

/* Loads a fixture folder and runs the engine.  (transfer full) */
static struct hd_analysis *analyze(const char *rel, struct hd_store **s)
{
	g_autofree char *path = hd_test_path(rel);
	char *paths[] = { path, NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);

	*s = hd_load(paths, 1, problems);
	return hd_engine_run(*s);
}

START_TEST(test_join_bus_id)
{
	struct hd_store *s;
	g_autoptr(hd_analysis) a =
		analyze("tests/data/hostlogs/kernel/xid79-dmesg", &s);
	const struct hd_verdict *v = g_ptr_array_index(a->verdicts, 0);

	/* no pid in the line: NCCL's busId 3b000 is 0000:3b:00 on trn-02 */
	ck_assert_int_eq(v->kind, HD_V_GPU_FAULT);
	ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
	ck_assert_uint_eq(v->culprits->len, 1);
	ck_assert_int_eq(g_array_index(v->culprits, int, 0), 3);
	ck_assert_int_eq(v->xid, 79);
	ck_assert(strstr(v->summary, "0000:3b:00"));
	ck_assert_ptr_nonnull(hd_test_verdict(a, HD_V_MISSING_RANK));
	hd_store_free(s);
}
END_TEST

START_TEST(test_other_host_no_blame)
{
	struct hd_store *s;
	g_autoptr(hd_analysis) a =
		analyze("tests/data/hostlogs/kernel/xid-other-host", &s);
	const struct hd_verdict *v = g_ptr_array_index(a->verdicts, 0);
	const struct hd_verdict *g = hd_test_verdict(a, HD_V_GPU_FAULT);

	ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->confidence, HD_CONF_LOW);
	ck_assert_uint_eq(g->culprits->len, 0);
	hd_store_free(s);
}
END_TEST

START_TEST(test_port_users)
{
	struct hd_store *s;
	g_autoptr(hd_analysis) a =
		analyze("tests/data/hostlogs/ib/port-down-missing", &s);
	const struct hd_verdict *n = hd_test_verdict(a, HD_V_NETWORK_FAULT);

	/* the port does not explain a rank that never entered: it stays
	   below missing_rank, naming the rank that uses it */
	ck_assert_int_eq(
		((const struct hd_verdict *)g_ptr_array_index(a->verdicts, 0))
			->kind,
		HD_V_MISSING_RANK);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->confidence, HD_CONF_MEDIUM);
	ck_assert_int_eq(g_array_index(n->culprits, int, 0), 3);
	ck_assert(strstr(n->summary, "mlx5_1:1"));
	hd_store_free(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hostlogs");
	TCase *tc = tcase_create("parse");
	TCase *bad = tcase_create("malformed");
	TCase *eng = tcase_create("engine");

	tcase_add_test(tc, test_sniff);
	tcase_add_test(tc, test_dmesg_xid);
	tcase_add_test(tc, test_dmesg_T_and_journal);
	tcase_add_test(tc, test_kernel_dates);
	tcase_add_test(tc, test_fallen_multiline);
	tcase_add_test(tc, test_ibstat);
	tcase_add_test(tc, test_ibstatus_devinfo);
	tcase_add_test(tc, test_nvidia_smi);
	suite_add_tcase(s, tc);
	tcase_add_test(bad, test_kernel_malformed);
	tcase_add_test(bad, test_ib_malformed);
	tcase_add_test(bad, test_nvidia_smi_malformed);
	suite_add_tcase(s, bad);
	tcase_set_timeout(eng, 60);
	tcase_add_test(eng, test_join_bus_id);
	tcase_add_test(eng, test_other_host_no_blame);
	tcase_add_test(eng, test_port_users);
	suite_add_tcase(s, eng);
	return s;
}

HD_TEST_MAIN(suite)
