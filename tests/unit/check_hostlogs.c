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
#include <glib/gstdio.h>

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
	/* dmesg -t: no stamp, no host, the driver's tag first */
	ck_assert_int_eq(sniff("NVRM: GPU at PCI:0000:06:00: GPU-0b6b\n"
			       "NVRM: Xid (PCI:0000:06:00): 79, GPU has "
			       "fallen off the bus.\n"),
			 HD_INPUT_KERNEL_LOG);
	/* a tag inside prose, or a tag with nothing after it, is not one */
	ck_assert_int_ne(sniff("see NVRM: Xid 79 below\nNVRM: \n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_ne(sniff("NVRM: Xid (PCI:0000:06:00): 79, x\nhello\n"
			       "world\nmore\n"),
			 HD_INPUT_KERNEL_LOG);
	/* a kernel line among mostly other text is not a kernel log */
	ck_assert_int_ne(sniff("hello\n[    1.000000] x\nworld\nmore\n"),
			 HD_INPUT_KERNEL_LOG);
	/* a paste that begins with the shell prompt and its command */
	ck_assert_int_eq(sniff("root@node4:~# dmesg -T | grep NVRM\n"
			       "[Tue Nov 21 04:00:02 2023] NVRM: Xid "
			       "(PCI:0000:3b:00): 79, x\n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_eq(sniff("[root@gpu01 ~]# journalctl -k\n"
			       "Nov 21 03:59:57 trn-02 kernel: NVRM: Xid "
			       "(PCI:0000:3b:00): 79, x\n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_eq(sniff("$ dmesg\n[    1.000000] NVRM: loading\n"),
			 HD_INPUT_KERNEL_LOG);
	/* the prompt's copy, where every line of the paste came twice */
	ck_assert_int_eq(
		sniff("$ dmesg\n$ dmesg\n[    1.000000] NVRM: loading\n"
		      "[    1.000000] NVRM: loading\n"),
		HD_INPUT_KERNEL_LOG);
	/* only the first line may be one, and the rest must be kernel's */
	ck_assert_int_ne(sniff("root@node4:~# uptime\nroot@node4:~# ls\n"
			       "[    1.000000] x\n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_ne(sniff("root@node4:~# cat notes\nhello\n"
			       "[    1.000000] x\n"),
			 HD_INPUT_KERNEL_LOG);
	ck_assert_int_ne(sniff("a # b\n[    1.000000] x\n"),
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
	/* the process name a pid join needs; "<unknown>" is none */
	ck_assert_ptr_null(sig(s, 0)->op_name);
	ck_assert_str_eq(sig(s, 1)->op_name, "python3");
}
END_TEST

/*
 * talosctl dmesg: the node, the kernel's facility, a right-aligned level,
 * a UTC date to the ns; another facility's line is no kernel line.
 */
START_TEST(test_talos_lines)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"10.0.3.21: kern:    info: [2026-02-11T08:13:58.402117893Z]: "
		"nvidia-nvlink: Nvlink Core is being initialized\n"
		"10.0.3.21: kern: warning: [2026-02-11T09:41:07.118290112Z]: "
		"NVRM: Xid (PCI:0000:3b:00): 79, pid=51337, name=pt_main_thread, "
		"GPU has fallen off the bus.\n"
		"10.0.3.21: daemon: info: [2026-02-11T09:41:08Z]: machined "
		"NVRM: Xid (PCI:0000:3b:00): 79, x\n"
		"10.0.3.21: kern: warning: [2026-02-11 cut\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert_int_eq(in->kind, HD_INPUT_KERNEL_LOG);
	ck_assert_uint_eq(s->signals->len, 1);
	ck_assert_int_eq(sig(s, 0)->type, HD_SIGT_XID);
	ck_assert_int_eq(sig(s, 0)->code, 79);
	ck_assert_str_eq(sig(s, 0)->host, "10.0.3.21");
	ck_assert_int_eq(sig(s, 0)->pid, 51337);
	ck_assert_int_eq(sig(s, 0)->time.clock, HD_CLOCK_UTC);
	/* 2026-02-11T09:41:07.118290112Z */
	ck_assert_int_eq(sig(s, 0)->time.ns, 1770802867118290112LL);
	ck_assert_uint_eq(in->skipped, 2);
}
END_TEST

/*
 * dmesg -t: bare driver lines are records with no time and no host; a
 * line that is neither prefixed nor tagged is skipped with its warning.
 */
START_TEST(test_bare_driver_lines)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"NVRM: GPU at PCI:0000:06:00: GPU-0b6b7808\n"
		"NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.\n"
		"...\n"
		"NVRM: Xid (PCI:0000:06:00): 79 cut\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert_uint_ge(in->records, 1);
	ck_assert_uint_eq(in->skipped, 1);
	ck_assert_int_eq(sig(s, 0)->type, HD_SIGT_XID);
	ck_assert_int_eq(sig(s, 0)->code, 79);
	ck_assert_str_eq(sig(s, 0)->device, "0000:06:00");
	ck_assert(!hd_time_known(sig(s, 0)->time));
	ck_assert_ptr_null(sig(s, 0)->host);
	ck_assert_str_eq(g_ptr_array_index(in->warnings, 0),
			 "line 3: not a kernel log line");
}
END_TEST

/*
 * An Xid 45 (channel cleanup) names the Xid it follows: " caused by
 * previous Xid 149".  Only a number, and never the line's own.
 */
START_TEST(test_xid_cause)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"[    0.000000] Linux version 6.5.0\n"
		"[6210.1] NVRM: Xid (PCI:0000:1b:00): 45, pid=30911, "
		"name=python3, Ch 00000001 caused by previous Xid 149\n"
		"[6210.2] NVRM: Xid (PCI:0000:3b:00): 45, pid=30911, "
		"name=python3, Ch 00000002\n"
		"[6210.3] NVRM: Xid (PCI:0000:5b:00): 45, pid=30911, "
		"name=python3, Ch 00000003 caused by previous Xid \n"
		"[6210.4] NVRM: Xid (PCI:0000:9b:00): 45, pid=30911, "
		"name=python3, Ch 00000004 caused by previous Xid 45\n"
		"[6210.5] NVRM: Xid (PCI:0000:9b:00): 45, pid=30911, "
		"name=python3, caused by previous Xid 99999999999\n",
		NULL);

	ck_assert_uint_eq(hd_store_input(s, 0)->records, 5);
	ck_assert_int_eq(hd_signal_xid(sig(s, 0)), 45);
	ck_assert_int_eq(hd_signal_xid_cause(sig(s, 0)), 149);
	ck_assert_int_eq(hd_signal_xid_cause(sig(s, 1)), 0);
	ck_assert_int_eq(hd_signal_xid_cause(sig(s, 2)), 0);
	ck_assert_int_eq(hd_signal_xid_cause(sig(s, 3)), 0);
	/* six digits at most: a longer number is none */
	ck_assert_int_eq(hd_signal_xid_cause(sig(s, 4)), 0);
}
END_TEST

/*
 * The cgroup line before an OOM kill says whether the killed task was in
 * a container (whose pids the job's logs print, not the kernel's): both
 * the newer "oom-kill:...task_memcg=" and the older "Task in ... killed"
 * shapes, and only for the kill of the pid it names.
 */
START_TEST(test_oom_cgroup)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"[ 10.1] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"
		"cpuset=cri-containerd-7f3a.scope,mems_allowed=0-1,oom_memcg="
		"/kubepods.slice/kubepods-burstable.slice,task_memcg=/kubepods."
		"slice/kubepods-burstable.slice/cri-containerd-7f3a.scope,"
		"task=python3,pid=53,uid=0\n"
		"[ 10.2] Memory cgroup out of memory: Killed process 53 "
		"(python3) total-vm:9kB\n"
		"[ 20.1] Task in /docker/0c5d91e2 killed as a result of limit "
		"of /docker/0c5d91e2\n"
		"[ 20.2] Memory cgroup out of memory: Kill process 61 (python) "
		"score 1000 or sacrifice child\n"
		"[ 30.1] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),"
		"cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice,"
		"task=python3,pid=7104,uid=1000\n"
		"[ 30.2] Out of memory: Killed process 7104 (python3)\n"
		"[ 40.1] oom-kill:constraint=CONSTRAINT_NONE,task_memcg=/docker/"
		"ab12,task=java,pid=900,uid=0\n"
		"[ 40.2] Out of memory: Killed process 901 (python3)\n"
		"[ 50.2] Out of memory: Killed process 902 (python3)\n",
		NULL);

	ck_assert_uint_eq(hd_store_input(s, 0)->records, 5);
	ck_assert_int_eq(hd_signal_oom_cgroup(sig(s, 0)),
			 HD_OOM_CGROUP_CONTAINER);
	ck_assert_int_eq(sig(s, 0)->pid, 53);
	ck_assert_int_eq(hd_signal_oom_cgroup(sig(s, 1)),
			 HD_OOM_CGROUP_CONTAINER);
	ck_assert_int_eq(sig(s, 1)->pid, 61);
	ck_assert_int_eq(hd_signal_oom_cgroup(sig(s, 2)), HD_OOM_CGROUP_HOST);
	/* a cgroup line of another pid says nothing of this kill */
	ck_assert_int_eq(hd_signal_oom_cgroup(sig(s, 3)),
			 HD_OOM_CGROUP_UNKNOWN);
	ck_assert_int_eq(hd_signal_oom_cgroup(sig(s, 4)),
			 HD_OOM_CGROUP_UNKNOWN);
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
 * Lines a paste quoted: a markdown or mail quote ("> ", "> > ") and a
 * diff's added lines ("+> "), read as the lines they quote; the quote
 * is no part of the message, and prose after a quote is still prose.
 */
START_TEST(test_quoted_lines)
{
	static const char text[] =
		"+> [Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, "
		"pid='<unknown>', name=<unknown>, Graphics SM Warp Exception\n"
		"> > [Fri Aug 30 11:43:14 2024] NVRM: Xid (PCI:0000:cb:00): "
		"109, pid=1797828, name=pt_main_thread, Ch 00000008\n"
		"+NVRM: Xid (PCI:0000:cb:00): 79, pid=1, GPU has fallen off the "
		"bus.\n";
	g_autoptr(hd_store) s = NULL;

	ck_assert_int_eq(sniff(text), HD_INPUT_KERNEL_LOG);
	ck_assert_int_ne(sniff("> the GPU seems to hang\n> any idea?\n"),
			 HD_INPUT_KERNEL_LOG);
	s = hd_test_parse_str(HD_INPUT_KERNEL_LOG, text, NULL);
	ck_assert_uint_eq(hd_store_input(s, 0)->records, 3);
	ck_assert_int_eq(sig(s, 0)->code, 13);
	ck_assert_int_eq(sig(s, 0)->time.clock, HD_CLOCK_LOCAL);
	ck_assert_int_eq(sig(s, 1)->code, 109);
	ck_assert_int_eq(sig(s, 1)->pid, 1797828);
	ck_assert_int_eq(sig(s, 2)->code, 79);
	ck_assert_int_eq(sig(s, 2)->time.clock, HD_CLOCK_NONE);
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

/*
 * The fallen-off message continued on prefixed journal lines: one record,
 * with the host and boot time of the line that named the GPU; the same
 * indented under a dmesg stamp keeps that stamp too.
 */
START_TEST(test_fallen_journal)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"Feb 14 05:03:41 gpu-7 kernel: NVRM: The NVIDIA GPU "
		"0000:b3:00.0\n"
		"Feb 14 05:03:41 gpu-7 kernel: NVRM: (PCI ID: 10de:26b5) "
		"installed in this system has\n"
		"Feb 14 05:03:41 gpu-7 kernel: NVRM: fallen off the bus and is "
		"not responding to commands.\n"
		"[ 1843.308145] NVRM: The NVIDIA GPU 0000:1b:00.0\n"
		"               NVRM: fallen off the bus and is not "
		"responding to commands.\n",
		NULL);

	ck_assert_uint_eq(hd_store_input(s, 0)->records, 2);
	ck_assert_int_eq(sig(s, 0)->code, 79);
	ck_assert_str_eq(sig(s, 0)->device, "0000:b3:00");
	ck_assert_str_eq(sig(s, 0)->host, "gpu-7");
	ck_assert_str_eq(sig(s, 1)->device, "0000:1b:00");
	ck_assert_int_eq(sig(s, 1)->time.clock, HD_CLOCK_BOOT);
	ck_assert_int_eq(sig(s, 1)->time.ns, 1843308145000LL);
}
END_TEST

/*
 * A syslog or journal of every program: the kernel's lines read, the
 * others context; but a head that holds NCCL's or PyTorch's lines is
 * their log, and such a line later in a syslog is skipped with a warning,
 * never read as nothing.  Journal lines without their date name the host.
 */
/*
 * A syslog or ISO stamp whose host (and "kernel:") a paste cut out: the
 * driver's tag after the spaces is still the kernel's line, with no
 * host; any other word there is not.
 */
START_TEST(test_stamp_without_host)
{
	static const char cut[] =
		"Aug 19 11:36:35  NVRM: Xid (PCI:0000:02:00): 31, pid=5521, "
		"name=python3, Ch 00000005\n"
		"  MMU Fault: ENGINE CE2 faulted @ 0x100_07600000\n"
		"Aug 19 11:38:39 NVRM: Xid (PCI:0000:01:00): 79, GPU has "
		"fallen off the bus.\n"
		"2025-08-19T11:38:40+0000 NVRM: Xid (PCI:0000:03:00): 48, "
		"pid=5521, name=python3, An uncorrectable double bit error\n";
	g_autoptr(hd_store) s = NULL;

	ck_assert_int_eq(sniff(cut), HD_INPUT_KERNEL_LOG);
	s = hd_test_parse_str(HD_INPUT_KERNEL_LOG, cut, NULL);
	ck_assert_uint_eq(hd_store_input(s, 0)->records, 3);
	ck_assert_uint_eq(hd_store_input(s, 0)->skipped, 0);
	ck_assert_int_eq(sig(s, 0)->code, 31);
	ck_assert_int_eq(sig(s, 0)->pid, 5521);
	ck_assert_ptr_null(sig(s, 0)->host);
	ck_assert_int_eq(sig(s, 1)->code, 79);
	ck_assert_str_eq(sig(s, 1)->device, "0000:01:00");
	/* the ISO stamp keeps its time */
	ck_assert_int_eq(sig(s, 2)->code, 48);
	ck_assert_int_eq(sig(s, 2)->time.clock, HD_CLOCK_UTC);
	/* a word that is no driver's tag after the stamp: no kernel line */
	ck_assert_int_ne(sniff("Aug 19 11:36:35  python3: Xid 31 seen\n"
			       "Aug 19 11:36:36  python3: again\n"),
			 HD_INPUT_KERNEL_LOG);
}
END_TEST

START_TEST(test_syslog_shapes)
{
	static const char mixed[] =
		"May 15 08:57:29 red llama-swap[80783]: INFO slot task\n"
		"May 15 08:57:36 red kernel: NVRM: Xid (PCI:0000:01:00): 31, "
		"pid=80798, name=llama-server, Ch 00000008\n"
		"May 15 08:57:36 red llama-swap[80783]: CUDA error: an "
		"illegal memory access was encountered\n"
		"May 15 08:57:37 red systemd[1]: llama.service: failed\n"
		"May 15 08:57:38 red python[4242]: [rank3]:[E515 08:57:38.1 "
		"ProcessGroupNCCL.cpp:632] Watchdog caught collective "
		"operation timeout\n";
	g_autoptr(hd_store) s = NULL;
	g_autoptr(hd_store) d = NULL;
	const struct hd_input *in;

	/* the head holds a PyTorch line: not the kernel's to read */
	ck_assert_int_ne(sniff(mixed), HD_INPUT_KERNEL_LOG);
	/* without it, a kernel log */
	ck_assert_int_eq(sniff("May 15 08:57:29 red llama-swap[80783]: a\n"
			       "May 15 08:57:36 red kernel: NVRM: Xid "
			       "(PCI:0000:01:00): 31, pid=80798\n"
			       "May 15 08:57:37 red systemd[1]: b\n"),
			 HD_INPUT_KERNEL_LOG);
	/* other programs alone: no kernel line, no kernel log */
	ck_assert_int_ne(sniff("May 15 08:57:29 red sshd[1]: a\n"
			       "May 15 08:57:37 red systemd[1]: b\n"),
			 HD_INPUT_KERNEL_LOG);
	/* an NCCL log that a service wrote to the journal */
	ck_assert_int_ne(sniff("May 15 08:57:29 red kernel: x\n"
			       "May 15 08:57:30 red python[7]: red:7:7 [0] "
			       "NCCL INFO Bootstrap : Using eth0\n"),
			 HD_INPUT_KERNEL_LOG);
	s = hd_test_parse_str(HD_INPUT_KERNEL_LOG, mixed, NULL);
	in = hd_store_input(s, 0);
	ck_assert_uint_eq(in->records, 1);
	ck_assert_int_eq(sig(s, 0)->code, 31);
	ck_assert_str_eq(sig(s, 0)->host, "red");
	ck_assert_int_eq(sig(s, 0)->pid, 80798);
	/* the PyTorch line: skipped, with a warning naming it */
	ck_assert_uint_eq(in->skipped, 1);
	ck_assert_uint_eq(in->nwarnings, 1);
	ck_assert(strstr(g_ptr_array_index(in->warnings, 0), "line 5"));
	d = hd_test_parse_str(HD_INPUT_UNKNOWN,
			      "archlinux kernel: NVRM: GPU at PCI:0000:08:00: "
			      "GPU-926e\n"
			      "archlinux kernel: NVRM: Xid (PCI:0000:08:00): "
			      "13, pid='<unknown>', name=<unknown>, Graphi>\n",
			      NULL);
	ck_assert_int_eq(hd_store_input(d, 0)->kind, HD_INPUT_KERNEL_LOG);
	ck_assert_uint_eq(hd_store_input(d, 0)->records, 1);
	ck_assert_str_eq(sig(d, 0)->host, "archlinux");
	ck_assert_int_eq(sig(d, 0)->code, 13);
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
		"[99999999999999999999.1] x\n"
		/* a cut cgroup line, then a kill with a cut name */
		"[    6.000000] oom-kill:constraint=CONSTRAINT_NONE,task_memcg=\n"
		"[    7.000000] Out of memory: Killed process 12 (pyth\n"
		"[    8.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=9, name=\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	/* the anonymised bus id stays unknown; the Xid is kept */
	ck_assert_uint_eq(in->records, 3);
	ck_assert_ptr_null(sig(s, 0)->device);
	ck_assert_int_eq(sig(s, 0)->code, 145);
	/* a kill is kept without its name; an empty cgroup is outside a
	   container, never in one */
	ck_assert_int_eq(sig(s, 1)->pid, 12);
	ck_assert_ptr_null(sig(s, 1)->op_name);
	ck_assert_int_ne(hd_signal_oom_cgroup(sig(s, 1)),
			 HD_OOM_CGROUP_CONTAINER);
	ck_assert_int_eq(sig(s, 2)->pid, 9);
	ck_assert_ptr_null(sig(s, 2)->op_name);
	ck_assert_uint_eq(in->skipped, 5);
	ck_assert_uint_eq(in->nwarnings, 5);
	ck_assert(strstr(g_ptr_array_index(in->warnings, 0), "line 2"));
}
END_TEST

/*
 * adv4: a journal or kern.log that reaches back across reboots.  Records
 * before the last boot it shows (the kernel's banner, journalctl's "--
 * Boot" marker) are of an earlier boot: kept, as context, with a warning
 * naming the boot's line; the ones after stay records of this boot.
 */
START_TEST(test_earlier_boot)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"-- Boot 6a1e0c4b2f5d4c7e9b1a3f2d8e7c6b5a --\n"
		"Nov 14 11:02:10 node-b kernel: NVRM: Xid (PCI:0000:38:00): 79, "
		"pid=3100, name=python, GPU has fallen off the bus.\n"
		"Nov 14 11:02:11 node-b kernel: mlx5_core 0000:4c:00.0 mlx5_1: "
		"Port: 1 Link DOWN\n"
		"-- Boot 0b2c4d6e8f1a3c5e7a9b1d3f5e7c9a1b --\n"
		"Nov 21 03:10:02 node-b kernel: NVRM: Xid (PCI:0000:38:00): 13, "
		"pid=4247, name=python, Graphics Exception\n"
		"Nov 21 03:11:00 node-b kernel: [    0.000000] Linux version "
		"6.5.0\n"
		"Nov 21 03:12:00 node-b kernel: NVRM: Xid (PCI:0000:38:00): 43, "
		"pid=4247, name=python, Ch 00000008\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert_uint_eq(in->records, 4);
	ck_assert_uint_eq(s->signals->len, 4);
	/* before the banner on line 6: the first three, kept as context */
	ck_assert_int_eq(sig(s, 0)->type, HD_SIGT_XID);
	ck_assert_int_eq(sig(s, 0)->cat, HD_SIG_INFO);
	ck_assert_int_eq(sig(s, 1)->type, HD_SIGT_LINK_EVENT);
	ck_assert_int_eq(sig(s, 1)->cat, HD_SIG_INFO);
	ck_assert_int_eq(sig(s, 2)->cat, HD_SIG_INFO);
	/* after it: a record of this boot */
	ck_assert_int_eq(sig(s, 3)->type, HD_SIGT_XID);
	ck_assert_int_eq(sig(s, 3)->code, 43);
	ck_assert_int_eq(sig(s, 3)->cat, HD_SIG_CUDA);
	ck_assert_uint_eq(in->nwarnings, 1);
	ck_assert(strstr(g_ptr_array_index(in->warnings, 0), "line 6"));
	ck_assert(strstr(g_ptr_array_index(in->warnings, 0),
			 "3 records before this line are of an earlier boot"));
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

/*
 * Times past what nanoseconds hold (found by fuzz_hostlogs): a boot stamp
 * of ten digits of seconds is no stamp, a year past 2200 no wall time;
 * neither overflows.
 */
START_TEST(test_kernel_times_bounded)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"[    1.000000] ok\n"
		"[9999999999.999999] NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n"
		"[Tue Nov 21 04:00:02 9999] NVRM: Xid (PCI:0000:3b:00): 13, "
		"pid=2\n"
		"9999-11-21T03:59:31Z trn-02 kernel: NVRM: Xid "
		"(PCI:0000:3b:00): 31, pid=3\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	/* the boot stamp: no kernel prefix, skipped with a warning */
	ck_assert_uint_eq(in->skipped, 1);
	ck_assert_uint_eq(in->records, 2);
	ck_assert_int_eq(sig(s, 0)->code, 13);
	ck_assert_int_eq(sig(s, 1)->code, 31);
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

/* Drivers 535 and newer say when a GPU needs a reset: a problem. */
START_TEST(test_nvidia_smi_reset_status)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_UNKNOWN,
		"\n==============NVSMI LOG==============\n\n"
		"Driver Version                            : 535.104.05\n\n"
		"GPU 00000000:3B:00.0\n"
		"    GPU Reset Status\n"
		"        Reset Required                    : No\n"
		"        Drain and Reset Recommended       : Yes\n"
		"GPU 00000000:1B:00.0\n"
		"    GPU Reset Status\n"
		"        Reset Required                    : No\n"
		"        Drain and Reset Recommended       : N/A\n",
		NULL);

	ck_assert_int_eq(hd_store_input(s, 0)->kind, HD_INPUT_GPU_STATE);
	ck_assert_uint_eq(hd_store_input(s, 0)->records, 2);
	ck_assert_str_eq(sig(s, 0)->device, "0000:3b:00");
	ck_assert_int_eq(sig(s, 0)->code, HD_GPU_RESET_REQUIRED);
	ck_assert_int_eq(sig(s, 0)->cat, HD_SIG_CUDA);
	ck_assert(strstr(sig(s, 0)->text, "the driver asks for a GPU reset"));
	ck_assert_int_eq(sig(s, 1)->code, 0);
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

/*
 * nvidia-smi failing prints only an error line or two: read when the
 * file holds nothing else (a prompt line that runs it aside), never when
 * such a line sits in another log.
 */
START_TEST(test_smi_failure_sniff)
{
	ck_assert_int_eq(sniff("Unable to determine the device handle for "
			       "GPU0000:3B:00.0: Unknown Error\n"),
			 HD_INPUT_GPU_STATE);
	ck_assert_int_eq(sniff("[root@bh174 x]# nvidia-smi\n"
			       "Unable to determine the device handle for "
			       "GPU 0000:0B:00.0: Unknown Error\n"),
			 HD_INPUT_GPU_STATE);
	ck_assert_int_eq(sniff("$ sudo nvidia-smi -q\nNo devices were found"),
			 HD_INPUT_GPU_STATE);
	ck_assert_int_eq(sniff("NVIDIA-SMI has failed because it couldn't "
			       "communicate with the NVIDIA driver. Make sure "
			       "that the latest NVIDIA driver is installed and "
			       "running.\n\n"),
			 HD_INPUT_GPU_STATE);
	/* another program's lines around it: that program's log */
	ck_assert_int_ne(sniff("starting job 42\n"
			       "Unable to determine the device handle for "
			       "GPU0000:3B:00.0: Unknown Error\n"),
			 HD_INPUT_GPU_STATE);
	ck_assert_int_ne(sniff("No devices were found\nretrying in 5 s\n"),
			 HD_INPUT_GPU_STATE);
	ck_assert_int_ne(sniff("No devices were found in the cache\n"),
			 HD_INPUT_GPU_STATE);
	/* a prompt alone, or a prompt after the error, is no output */
	ck_assert_int_ne(sniff("$ nvidia-smi\n"), HD_INPUT_GPU_STATE);
	ck_assert_int_ne(sniff("No devices were found\n$ nvidia-smi\n"),
			 HD_INPUT_GPU_STATE);
	ck_assert_int_ne(sniff("$ nvidia-smix\nNo devices were found\n"),
			 HD_INPUT_GPU_STATE);
}
END_TEST

START_TEST(test_smi_failure)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_GPU_STATE,
		"root@trn-02:~# nvidia-smi\n"
		"Unable to determine the device handle for GPU0000:3B:00.0: "
		"Unknown Error\n"
		"Unable to determine the device handle for GPU 0000:5e:00.0: "
		"GPU is lost.  Reboot the system to recover this GPU\n"
		"Unable to determine the device handle for GPU 0000:7a:00.0: "
		"Insufficient Permissions\n"
		/* a mangled bus id: a GPU it cannot reach, of no known bus */
		"Unable to determine the device handle for GPU 000:BA:80.0: "
		"Unknown Error\n"
		"No devices were found\n"
		"some other line\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert_int_eq(in->kind, HD_INPUT_GPU_STATE);
	ck_assert_uint_eq(in->records, 5);
	ck_assert_uint_eq(in->skipped, 1);
	ck_assert(strstr(g_ptr_array_index(in->warnings, 0), "line 7"));
	ck_assert_str_eq(sig(s, 0)->device, "0000:3b:00");
	ck_assert_str_eq(sig(s, 0)->host, "trn-02");
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 0)), HD_GPU_LOST);
	ck_assert_int_eq(sig(s, 0)->cat, HD_SIG_CUDA);
	ck_assert_str_eq(sig(s, 1)->device, "0000:5e:00");
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 1)), HD_GPU_LOST);
	/* not reachable for another reason: no problem of the GPU's */
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 2)), 0);
	ck_assert_int_eq(sig(s, 2)->cat, HD_SIG_INFO);
	ck_assert_ptr_null(sig(s, 3)->device);
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 3)), HD_GPU_LOST);
	ck_assert_ptr_null(sig(s, 4)->device);
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 4)), HD_GPU_LOST);
}
END_TEST

/*
 * The kernel's view of a GPU lost to its host: PCIe AER errors (a port's
 * about a device below it, the nvidia driver's about its own GPU), the
 * GPU off the bus without an Xid, the driver failing to initialise it;
 * corrected errors and a message's detail lines are context.
 */
START_TEST(test_kernel_gpu_lost)
{
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KERNEL_LOG,
		"[ 1.0] pcieport 0000:00:02.0: AER: Corrected error received: "
		"id=0010\n"
		"[ 2.0] pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error "
		"received: id=0010\n"
		"[ 2.1] pcieport 0000:00:02.0: PCIe Bus Error: severity="
		"Uncorrected (Fatal), type=Transaction Layer, id=0010(Receiver "
		"ID)\n"
		"[ 2.2] nvidia 0000:02:00.0: device has no AER-aware driver\n"
		"[ 3.0] pcieport 0000:3a:00.0: AER: Uncorrectable (Non-Fatal) "
		"error message received from 0000:3b:00.0\n"
		"[ 4.0] NVRM: Xid (PCI:0000:09:00): 79, pid=0, GPU has fallen "
		"off the bus.\n"
		"[ 4.1] NVRM: GPU 0000:09:00.0: GPU has fallen off the bus.\n"
		"[ 5.0] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
		"[ 6.0] NVRM: GPU 0000:81:00.0: RmInitAdapter failed! "
		"(0x25:0x40:1470)\n"
		"[ 6.1] NVRM: RmInitAdapter: osInitNvMapping failed, bailing out "
		"of RmInitAdapter\n"
		"[ 7.0] NVRM: RmInitAdapter failed! (0x26:0xffff:1127)\n"
		"[Nov21 03:58] pcieport 0000:00:01.1: AER: Corrected error "
		"message received from 0000:00:01.1\n"
		"[  +0.000012] pcieport 0000:00:01.1: AER: Multiple Uncorrected "
		"(Fatal) error received: 0000:00:01.1\n",
		NULL);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert_uint_eq(in->skipped, 0);
	ck_assert_uint_eq(in->records, 8);
	/* a port's error about itself: id=0010 is 00:02.0 */
	ck_assert_int_eq(sig(s, 0)->type, HD_SIGT_GPU_STATE);
	ck_assert_str_eq(sig(s, 0)->device, "0000:00:02");
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 0)),
			  HD_GPU_PCIE_ERROR | HD_GPU_NOT_GPU);
	/* the nvidia driver's line is of its own GPU */
	ck_assert_str_eq(sig(s, 1)->device, "0000:02:00");
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 1)), HD_GPU_PCIE_ERROR);
	/* a port's about the device below it: a GPU only if one says so */
	ck_assert_str_eq(sig(s, 2)->device, "0000:3b:00");
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 2)),
			  HD_GPU_PCIE_ERROR | HD_GPU_NOT_GPU);
	/* the Xid 79 and its "GPU ...: fallen off" line are one record */
	ck_assert_int_eq(sig(s, 3)->type, HD_SIGT_XID);
	ck_assert_str_eq(sig(s, 3)->device, "0000:09:00");
	ck_assert_int_eq(sig(s, 4)->type, HD_SIGT_XID);
	ck_assert_int_eq(sig(s, 4)->code, 79);
	ck_assert_str_eq(sig(s, 4)->device, "0000:01:00");
	ck_assert_int_eq(sig(s, 5)->type, HD_SIGT_GPU_STATE);
	ck_assert_str_eq(sig(s, 5)->device, "0000:81:00");
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 5)),
			  HD_GPU_INIT_FAILED);
	/* an older driver names no GPU: the host's */
	ck_assert_ptr_null(sig(s, 6)->device);
	ck_assert_uint_eq(hd_signal_gpu_problems(sig(s, 6)),
			  HD_GPU_INIT_FAILED);
	/* dmesg -H stamps are prefixes without a time */
	ck_assert_str_eq(sig(s, 7)->device, "0000:00:01");
	ck_assert(!hd_time_known(sig(s, 7)->time));
}
END_TEST

/*
 * GPUs lost to their host in the engine: a PCIe port's error is a GPU's
 * only where a rank's busId says the device is one; nvidia-smi finding no
 * GPU concerns every rank of its host, a lead for the one blamed there.
 */
static struct hd_analysis *analyze_with_dmesg(const char *lines,
					      struct hd_store **s);
static bool notes_have(const struct hd_analysis *a, const char *text);
static bool evidence_has(const struct hd_verdict *v, const char *text);
static bool steps_have(const struct hd_verdict *v, const char *text);
static struct hd_analysis *analyze(const char *rel, struct hd_store **s);

START_TEST(test_gpu_lost_engine)
{
	struct hd_store *s;
	const struct hd_verdict *v;

	{
		g_autoptr(hd_analysis) a = analyze_with_dmesg(
			"[98.0] pcieport 0000:3a:00.0: AER: Uncorrected (Fatal) "
			"error received: 0000:3b:00.0",
			&s);

		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_GPU_FAULT);
		ck_assert_int_eq(g_array_index(v->culprits, int, 0), 3);
		ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
		ck_assert(strstr(v->summary, "uncorrected PCIe error"));
		hd_store_free(s);
	}
	{
		g_autoptr(hd_analysis) a =
			analyze("tests/data/hostlogs/kernel/aer-port-only", &s);

		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
		ck_assert_ptr_null(hd_test_verdict(a, HD_V_GPU_FAULT));
		ck_assert(notes_have(a, "not taken as a GPU's fault"));
		ck_assert(evidence_has(v, "also on that host: an uncorrected "
					  "PCIe error on 0000:00:03"));
		ck_assert(steps_have(v, "lspci -vvv -s 0000:00:03"));
		hd_store_free(s);
	}
	{
		g_autoptr(hd_analysis) a =
			analyze("tests/data/hostlogs/gpu/smi-no-devices", &s);

		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_GPU_FAULT);
		ck_assert_int_eq(v->confidence, HD_CONF_MEDIUM);
		ck_assert_uint_eq(v->culprits->len, 1);
		ck_assert_int_eq(g_array_index(v->culprits, int, 0), 3);
		ck_assert(strstr(v->summary, "nvidia-smi on trn-02 reaches no "
					     "GPU"));
		ck_assert(evidence_has(v, "every rank on trn-02 (ranks 2, 3)"));
		hd_store_free(s);
	}
	/* no GPU on trn-02, with nobody blamed: the host's ranks, a lead */
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/gpu/smi-no-devices/hosts", &s);

		v = hd_test_verdict(a, HD_V_GPU_FAULT);
		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(v->culprits->len, 0);
		ck_assert_int_eq(v->confidence, HD_CONF_LOW);
		hd_store_free(s);
	}
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

/*
 * A folder holding the 4-rank job of tests/data/hostlogs (rank 3, pid 7104
 * on trn-02, never enters seq 52) and trn-02's dmesg with one line; NULL
 * job: the dmesg alone.  (transfer full: remove with rm_tree())
 */
static char *job_with_dmesg(bool job, const char *dmesg_line)
{
	g_autofree char *log = NULL;
	g_autofree char *src =
		hd_test_path("tests/data/hostlogs/kernel/xid79-dmesg/job.log");
	char *dir = g_dir_make_tmp("hd-xid-XXXXXX", NULL);
	g_autofree char *host = g_build_filename(dir, "hosts", "trn-02", NULL);
	g_autofree char *dmesg = g_build_filename(host, "dmesg.txt", NULL);
	g_autofree char *joblog = g_build_filename(dir, "job.log", NULL);
	g_autofree char *text = g_strdup_printf(
		"[    9.812114] nvidia: module license 'NVIDIA' taints kernel.\n"
		"%s\n",
		dmesg_line);

	ck_assert_ptr_nonnull(dir);
	ck_assert_int_eq(g_mkdir_with_parents(host, 0700), 0);
	ck_assert(g_file_set_contents(dmesg, text, -1, NULL));
	if (job) {
		ck_assert(g_file_get_contents(src, &log, NULL, NULL));
		ck_assert(g_file_set_contents(joblog, log, -1, NULL));
	}
	return dir;
}

static void rm_tree(char *dir)
{
	g_autofree char *host = g_build_filename(dir, "hosts", "trn-02", NULL);
	g_autofree char *hosts = g_build_filename(dir, "hosts", NULL);
	g_autofree char *dmesg = g_build_filename(host, "dmesg.txt", NULL);
	g_autofree char *joblog = g_build_filename(dir, "job.log", NULL);

	(void)g_unlink(dmesg);
	(void)g_unlink(joblog);
	(void)g_rmdir(host);
	(void)g_rmdir(hosts);
	(void)g_rmdir(dir);
	g_free(dir);
}

static bool steps_have(const struct hd_verdict *v, const char *text)
{
	for (guint i = 0; i < v->next_steps->len; i++)
		if (strstr(((const struct hd_next *)g_ptr_array_index(
				    v->next_steps, i))
				   ->text,
			   text))
			return true;
	return false;
}

static bool notes_have(const struct hd_analysis *a, const char *text)
{
	for (guint i = 0; i < a->notes->len; i++)
		if (strstr(g_ptr_array_index(a->notes, i), text))
			return true;
	return false;
}

static bool evidence_has(const struct hd_verdict *v, const char *text)
{
	for (guint i = 0; i < v->evidence->len; i++)
		if (strstr(((const struct hd_evidence *)g_ptr_array_index(
				    v->evidence, i))
				   ->text,
			   text))
			return true;
	return false;
}

/*
 * Every Xid of the documented table (docs/format-kernel-log.md), on rank
 * 3's GPU by its pid: the verdict its class gives, the meaning in the
 * chain, the next step its class asks for.
 */
START_TEST(test_xid_table)
{
	static const struct {
		int xid;
		enum hd_verdict_kind kind; /* HD_V_MISSING_RANK: no verdict
					      of its own */
		const char *meaning; /* in the summary or the evidence */
		const char *step; /* in a next step */
	} table[] = {
		{ 13, HD_V_GPU_FAULT, "graphics engine exception",
		  "compute-sanitizer" },
		{ 31, HD_V_GPU_FAULT, "GPU memory page fault",
		  "compute-sanitizer" },
		{ 43, HD_V_GPU_FAULT, "GPU stopped processing",
		  "compute-sanitizer" },
		{ 45, HD_V_MISSING_RANK, NULL, NULL },
		{ 48, HD_V_GPU_FAULT, "double-bit ECC error",
		  "nvidia-bug-report.sh" },
		{ 61, HD_V_GPU_FAULT, "micro-controller breakpoint",
		  "nvidia-bug-report.sh" },
		{ 62, HD_V_GPU_FAULT, "micro-controller halt",
		  "nvidia-bug-report.sh" },
		{ 63, HD_V_MISSING_RANK, "row remapping recorded",
		  "reset the GPU when it is idle" },
		{ 64, HD_V_GPU_FAULT, "row remapping failed",
		  "nvidia-bug-report.sh" },
		{ 74, HD_V_NETWORK_FAULT, "NVLink error",
		  "nvidia-smi nvlink -e" },
		{ 79, HD_V_GPU_FAULT, "fell off the bus",
		  "nvidia-bug-report.sh" },
		{ 92, HD_V_MISSING_RANK, "high single-bit ECC error rate",
		  "reset the GPU when it is idle" },
		{ 94, HD_V_GPU_FAULT, "contained ECC error",
		  "nvidia-bug-report.sh" },
		{ 95, HD_V_GPU_FAULT, "uncontained ECC error",
		  "nvidia-bug-report.sh" },
		{ 109, HD_V_GPU_FAULT, "context switch timeout",
		  "nvidia-bug-report.sh" },
		{ 119, HD_V_GPU_FAULT, "GSP RPC timeout",
		  "nvidia-bug-report.sh" },
		{ 120, HD_V_GPU_FAULT, "GSP error", "nvidia-bug-report.sh" },
		{ 154, HD_V_GPU_FAULT, "recovery action",
		  "nvidia-bug-report.sh" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
		g_autofree char *line = g_strdup_printf(
			"[91806.220428] NVRM: Xid (PCI:0000:3b:00): %d, "
			"pid=7104, name=python3, details",
			table[i].xid);
		char *dir = job_with_dmesg(true, line);
		char *paths[] = { dir, NULL };
		g_autoptr(GPtrArray) problems =
			g_ptr_array_new_with_free_func(g_free);
		g_autoptr(hd_store) s = hd_load(paths, 1, problems);
		g_autoptr(hd_analysis) a = hd_engine_run(s);
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, 0);
		g_autofree char *said = g_strdup_printf("Xid %d", table[i].xid);

		ck_assert_msg(v->kind == table[i].kind,
			      "Xid %d: top verdict %s", table[i].xid,
			      hd_verdict_kind_name(v->kind));
		ck_assert_uint_eq(v->culprits->len, 1);
		ck_assert_int_eq(g_array_index(v->culprits, int, 0), 3);
		ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
		if (table[i].kind != HD_V_MISSING_RANK) {
			/* the chain: the absence, then its GPU's Xid */
			ck_assert_int_eq(v->xid, table[i].xid);
			ck_assert_msg(
				strstr(v->summary, "never entered") &&
					strstr(v->summary, said) &&
					strstr(v->summary, table[i].meaning),
				"Xid %d: %s", table[i].xid, v->summary);
		} else if (table[i].meaning) {
			/* a warning: beside the verdict, never its cause */
			ck_assert_ptr_null(hd_test_verdict(a, HD_V_GPU_FAULT));
			ck_assert(evidence_has(v, "also on that host"));
			ck_assert(evidence_has(v, table[i].meaning));
			ck_assert(notes_have(a, said));
		} else {
			/* 45 follows another failure: a note */
			ck_assert_ptr_null(hd_test_verdict(a, HD_V_GPU_FAULT));
			ck_assert(notes_have(a, "Xid 45"));
		}
		if (table[i].step)
			ck_assert_msg(steps_have(v, table[i].step),
				      "Xid %d: no step with '%s'", table[i].xid,
				      table[i].step);
		rm_tree(dir);
	}
}
END_TEST

/* The top verdict of the job beside trn-02's dmesg of lines.  */
static struct hd_analysis *analyze_with_dmesg(const char *lines,
					      struct hd_store **s)
{
	char *dir = job_with_dmesg(true, lines);
	char *paths[] = { dir, NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	struct hd_analysis *a;

	*s = hd_load(paths, 1, problems);
	a = hd_engine_run(*s);
	rm_tree(dir);
	return a;
}

/* The verdict of kind k that names rank, or NULL. */
static const struct hd_verdict *verdict_on(const struct hd_analysis *a,
					   enum hd_verdict_kind k, int rank)
{
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);

		for (guint c = 0; v->kind == k && c < v->culprits->len; c++)
			if (g_array_index(v->culprits, int, c) == rank)
				return v;
	}
	return NULL;
}

/* Exactly one gpu_fault verdict. */
static void n_gpu_faults_is_one(const struct hd_analysis *a)
{
	guint n = 0;

	for (guint i = 0; i < a->verdicts->len; i++)
		n += ((const struct hd_verdict *)g_ptr_array_index(a->verdicts,
								   i))
			     ->kind == HD_V_GPU_FAULT;
	ck_assert_uint_eq(n, 1);
}

/*
 * The kernel prints the host's pids; NCCL and PyTorch in a container
 * print the container's (docs/format-kernel-log.md, "Joining to ranks").
 * Rank 3 is pid 7104 on trn-02 with busId 3b000 and never enters seq 52;
 * rank 2 is pid 7103 with busId 1b000.
 */
START_TEST(test_pid_join_rules)
{
	struct hd_store *s;
	const struct hd_verdict *v, *top;

	/* a pid alone, a Python process: the chain, but only as a lead */
	{
		g_autoptr(hd_analysis) a = analyze_with_dmesg(
			"[99.1] Out of memory: Killed process 7104 (python3)",
			&s);

		v = verdict_on(a, HD_V_RANK_CRASHED, 3);
		ck_assert_ptr_nonnull(v);
		ck_assert_int_eq(v->confidence, HD_CONF_MEDIUM);
		ck_assert(strstr(v->summary, "OOM killer"));
		ck_assert(evidence_has(v, "by its pid alone (7104 on trn-02)"));
		hd_store_free(s);
	}
	/* confirmed: an Xid there names rank 3's GPU with that pid */
	{
		g_autoptr(hd_analysis) a = analyze_with_dmesg(
			"[98.0] NVRM: Xid (PCI:0000:3b:00): 13, pid=7104, "
			"name=python3, Graphics Exception\n"
			"[99.1] Out of memory: Killed process 7104 (python3)",
			&s);

		v = verdict_on(a, HD_V_RANK_CRASHED, 3);
		ck_assert_ptr_nonnull(v);
		ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
		ck_assert(evidence_has(v, "another kernel record there "
					  "confirms"));
		hd_store_free(s);
	}
	/* not a Python process: the pid is another process's */
	{
		g_autoptr(hd_analysis) a = analyze_with_dmesg(
			"[99.1] Out of memory: Killed process 7104 (sshd)", &s);

		top = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(top->kind, HD_V_MISSING_RANK);
		v = hd_test_verdict(a, HD_V_RANK_CRASHED);
		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(v->culprits->len, 0);
		ck_assert_int_eq(v->confidence, HD_CONF_LOW);
		ck_assert(evidence_has(v, "names that process 'sshd'"));
		hd_store_free(s);
	}
	/* killed in a container's cgroup: its host pid is not rank 3's */
	{
		g_autoptr(hd_analysis) a = analyze_with_dmesg(
			"[99.0] oom-kill:constraint=CONSTRAINT_MEMCG,"
			"task_memcg=/docker/0c5d91e2,task=python3,pid=7104,"
			"uid=0\n"
			"[99.1] Memory cgroup out of memory: Killed process "
			"7104 (python3)",
			&s);

		ck_assert_ptr_null(verdict_on(a, HD_V_RANK_CRASHED, 3));
		v = hd_test_verdict(a, HD_V_RANK_CRASHED);
		ck_assert_ptr_nonnull(v);
		ck_assert(evidence_has(v, "was in a container"));
		hd_store_free(s);
	}
	/* the GPU and the pid name different ranks: the GPU decides */
	{
		g_autoptr(hd_analysis) a = analyze_with_dmesg(
			"[98.0] NVRM: Xid (PCI:0000:1b:00): 79, pid=7104, "
			"name=python3, GPU has fallen off the bus.",
			&s);

		v = hd_test_verdict(a, HD_V_GPU_FAULT);
		ck_assert_ptr_nonnull(v);
		ck_assert_int_eq(g_array_index(v->culprits, int, 0), 2);
		ck_assert(evidence_has(v, "but the GPU is rank 2's"));
		ck_assert_ptr_null(verdict_on(a, HD_V_GPU_FAULT, 3));
		hd_store_free(s);
	}
}
END_TEST

/*
 * One verdict per cause: two hosts' events are each reported, the one
 * that explains the absence first, each with its own chain.
 */
START_TEST(test_two_host_events)
{
	struct hd_store *s;
	const struct hd_verdict *v;

	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/kernel/xid79-two-hosts", &s);

		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_GPU_FAULT);
		ck_assert_int_eq(g_array_index(v->culprits, int, 0), 3);
		ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
		ck_assert(strstr(v->summary, "never entered"));
		v = verdict_on(a, HD_V_GPU_FAULT, 1);
		ck_assert_ptr_nonnull(v);
		ck_assert_int_eq(v->confidence, HD_CONF_MEDIUM);
		ck_assert(strstr(v->summary, "trn-01, 0000:3b:00"));
		ck_assert_int_eq(v->xid, 79);
		ck_assert(notes_have(a, "host events on 2 hosts"));
		hd_store_free(s);
	}
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/kernel/xid79-and-port", &s);

		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_GPU_FAULT);
		ck_assert_int_eq(g_array_index(v->culprits, int, 0), 3);
		v = verdict_on(a, HD_V_NETWORK_FAULT, 0);
		ck_assert_ptr_nonnull(v);
		ck_assert(strstr(v->summary, "mlx5_0:1 on trn-01"));
		/* a port does not explain an absence: below the collectives */
		ck_assert_ptr_eq(verdict_on(a, HD_V_MISSING_RANK, 3),
				 g_ptr_array_index(a->verdicts, 1));
		hd_store_free(s);
	}
	/* no host known: each file's event is its own, never one */
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/kernel/xid79-two-hosts/hosts", &s);
		guint n = 0;

		for (guint i = 0; i < a->verdicts->len; i++) {
			v = g_ptr_array_index(a->verdicts, i);
			if (v->kind != HD_V_GPU_FAULT)
				continue;
			n++;
			ck_assert_int_eq(v->confidence, HD_CONF_LOW);
			ck_assert_uint_eq(v->culprits->len, 0);
			ck_assert(strstr(v->summary,
					 n == 1 ? "trn-01/dmesg.txt"
						: "trn-02/dmesg.txt"));
		}
		ck_assert_uint_eq(n, 2);
		hd_store_free(s);
	}
	/* the same GPU's records are one cause, counted */
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/kernel/journal-nodate-cut", &s);

		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_GPU_FAULT);
		ck_assert(evidence_has(v, "2 host records of this cause"));
		n_gpu_faults_is_one(a);
		hd_store_free(s);
	}
}
END_TEST

/*
 * Next steps adapt to what the host state shows: a port down names the
 * port and its counters, whether the verdict rests on it or only cites it
 * beside a rank that never entered; a py-spy dump in a data loader names
 * the loader.
 */
START_TEST(test_next_steps_adapt)
{
	struct hd_store *s;
	g_autoptr(hd_analysis) chain =
		analyze("tests/data/hostlogs/ib/port-down-chain", &s);
	const struct hd_verdict *v = g_ptr_array_index(chain->verdicts, 0);
	const struct hd_next *n;

	ck_assert_int_eq(v->kind, HD_V_NETWORK_FAULT);
	ck_assert(strstr(v->summary, "HCA port mlx5_1:1 on trn-02 is down"));
	n = g_ptr_array_index(v->next_steps, 0);
	ck_assert_str_eq(n->command, "ibstat mlx5_1 1");
	ck_assert_str_eq(n->host, "trn-02");
	ck_assert(strstr(n->text, "perfquery -C mlx5_1 -P 1"));
	hd_store_free(s);
	{
		g_autoptr(hd_analysis) a = NULL;
		g_autofree char *ex = hd_test_path("testdata/example-incident");
		g_autofree char *ib =
			hd_test_path("tests/data/hostlogs/example-ib");
		g_autofree char *ps =
			hd_test_path("tests/data/pyspy/loader-wait");
		char *paths[] = { ex, ib, ps, NULL };
		g_autoptr(GPtrArray) problems =
			g_ptr_array_new_with_free_func(g_free);

		s = hd_load(paths, 1, problems);
		a = hd_engine_run(s);
		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
		ck_assert(steps_have(v, "ibstat mlx5_1 1"));
		ck_assert(steps_have(v, "not shown to have caused this"));
		ck_assert(steps_have(v, "waits for its data loader"));
		ck_assert(!steps_have(v, "run `py-spy dump"));
		hd_store_free(s);
	}
}
END_TEST

/*
 * Joins that would be guesses are not made (issue 21): a pid that is a
 * rank's on two hosts (containers), a kernel log or nvidia-smi -q that
 * names no host (every host has a GPU at 0000:3b:00).  The same line in a
 * journal that names its host joins.
 */
START_TEST(test_joins_ambiguous)
{
	struct hd_store *s;
	const struct hd_verdict *v, *g;

	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/joins/pid-two-hosts-pyspy", &s);

		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_uint_eq(a->pyspy->len, 0);
		ck_assert(notes_have(a, "py-spy dump"));
		ck_assert(notes_have(a, "pid 53 is rank 1 or rank 3"));
		ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
		ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
		ck_assert(!evidence_has(v, "py-spy"));
		ck_assert(!strstr(v->summary, "py-spy"));
		hd_store_free(s);
	}
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/joins/pid-two-hosts-gdb", &s);

		ck_assert(notes_have(a, "(pid 53) joins no rank: pid 53 is "
					"rank 1 or rank 3 (on trn-01 and "
					"trn-02)"));
		for (guint i = 0; i < a->verdicts->len; i++) {
			v = g_ptr_array_index(a->verdicts, i);
			if (v->kind == HD_V_RANK_CRASHED)
				ck_assert_uint_eq(v->culprits->len, 0);
		}
		/* a low crash naming nobody stays below a high absence */
		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
		ck_assert_int_eq(v->confidence, HD_CONF_HIGH);
		g = hd_test_verdict(a, HD_V_RANK_CRASHED);
		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(g->confidence, HD_CONF_LOW);
		ck_assert(evidence_has(g, "pid 53 is rank 1 or rank 3"));
		ck_assert(strstr(g->summary, "process 53"));
		hd_store_free(s);
	}
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/joins/pid-two-hosts-dmesg", &s);

		g = hd_test_verdict(a, HD_V_GPU_FAULT);
		ck_assert_ptr_nonnull(g);
		ck_assert_uint_eq(g->culprits->len, 0);
		ck_assert_int_eq(g->confidence, HD_CONF_LOW);
		ck_assert(evidence_has(g, "pid 53 is rank 1 or rank 3"));
		hd_store_free(s);
	}
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/joins/bus-two-hosts-smi", &s);

		g = hd_test_verdict(a, HD_V_GPU_FAULT);
		ck_assert_ptr_nonnull(g);
		ck_assert_uint_eq(g->culprits->len, 0);
		ck_assert_int_eq(g->confidence, HD_CONF_LOW);
		hd_store_free(s);
	}
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/joins/pid-host-journal", &s);

		v = g_ptr_array_index(a->verdicts, 0);
		ck_assert_int_eq(v->kind, HD_V_GPU_FAULT);
		ck_assert_int_eq(g_array_index(v->culprits, int, 0), 3);
		ck_assert(evidence_has(v, "joined to rank 3 by the GPU's bus "
					  "id in NCCL's Init line (0000:3b:00 "
					  "on trn-02), and its pid (53) is "
					  "rank 3's too"));
		hd_store_free(s);
	}
}
END_TEST

/*
 * A port switched off ("Physical state: Disabled", an unused port of a
 * card) is not a link that failed: no event alone, none beside a rank no
 * NCCL line puts on it; the output after what was pasted above it.
 */
START_TEST(test_ib_disabled)
{
	g_autoptr(hd_store) s =
		hd_test_parse_str(HD_INPUT_UNKNOWN,
				  "$ ibstat\n"
				  "CA 'mlx5_0'\n"
				  "        CA type: MT4125\n"
				  "        Port 1:\n"
				  "                State: Down\n"
				  "                Physical state: Disabled\n"
				  "                Link layer: Ethernet\n"
				  "CA 'mlx5_1'\n"
				  "        Port 1:\n"
				  "                State: Down\n"
				  "                Physical state: Polling\n",
				  NULL);
	struct hd_store *j;

	ck_assert_int_eq(hd_store_input(s, 0)->kind, HD_INPUT_IB_STATE);
	ck_assert_uint_eq(hd_store_input(s, 0)->records, 2);
	/* the command line: skipped, with a warning */
	ck_assert_uint_eq(hd_store_input(s, 0)->skipped, 1);
	ck_assert_int_eq(sig(s, 0)->code, 3);
	ck_assert_int_eq(sig(s, 0)->cat, HD_SIG_INFO);
	ck_assert_int_eq(sig(s, 1)->code, 0);
	ck_assert_int_eq(sig(s, 1)->cat, HD_SIG_NETWORK);
	{
		g_autoptr(hd_analysis) a =
			analyze("tests/data/hostlogs/ib/disabled-unused", &j);

		ck_assert(!hd_analysis_has_fault(a));
		hd_store_free(j);
	}
	{
		g_autoptr(hd_analysis) a = analyze(
			"tests/data/hostlogs/ib/disabled-unused-job", &j);
		const struct hd_verdict *v = g_ptr_array_index(a->verdicts, 0);

		ck_assert_int_eq(v->kind, HD_V_MISSING_RANK);
		ck_assert(!evidence_has(v, "mlx5_2"));
		ck_assert_ptr_null(hd_test_verdict(a, HD_V_NETWORK_FAULT));
		hd_store_free(j);
	}
}
END_TEST

/* A warning Xid on a healthy host is no fault; a hardware one is. */
START_TEST(test_xid_warning_alone)
{
	static const int xids[] = { 63, 92, 79 };

	for (size_t i = 0; i < G_N_ELEMENTS(xids); i++) {
		g_autofree char *line = g_strdup_printf(
			"[91806.220428] NVRM: Xid (PCI:0000:3b:00): %d, "
			"pid=7104, name=python3, details",
			xids[i]);
		char *dir = job_with_dmesg(false, line);
		char *paths[] = { dir, NULL };
		g_autoptr(GPtrArray) problems =
			g_ptr_array_new_with_free_func(g_free);
		g_autoptr(hd_store) s = hd_load(paths, 1, problems);
		g_autoptr(hd_analysis) a = hd_engine_run(s);

		ck_assert_msg(hd_analysis_has_fault(a) == (xids[i] == 79),
			      "Xid %d alone", xids[i]);
		rm_tree(dir);
	}
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
	tcase_add_test(tc, test_talos_lines);
	tcase_add_test(tc, test_bare_driver_lines);
	tcase_add_test(tc, test_xid_cause);
	tcase_add_test(tc, test_oom_cgroup);
	tcase_add_test(tc, test_dmesg_T_and_journal);
	tcase_add_test(tc, test_quoted_lines);
	tcase_add_test(tc, test_kernel_dates);
	tcase_add_test(tc, test_earlier_boot);
	tcase_add_test(tc, test_fallen_multiline);
	tcase_add_test(tc, test_fallen_journal);
	tcase_add_test(tc, test_syslog_shapes);
	tcase_add_test(tc, test_stamp_without_host);
	tcase_add_test(tc, test_ibstat);
	tcase_add_test(tc, test_ibstatus_devinfo);
	tcase_add_test(tc, test_nvidia_smi);
	tcase_add_test(tc, test_nvidia_smi_reset_status);
	tcase_add_test(tc, test_smi_failure_sniff);
	tcase_add_test(tc, test_smi_failure);
	tcase_add_test(tc, test_kernel_gpu_lost);
	suite_add_tcase(s, tc);
	tcase_add_test(bad, test_kernel_malformed);
	tcase_add_test(bad, test_kernel_times_bounded);
	tcase_add_test(bad, test_ib_malformed);
	tcase_add_test(eng, test_ib_disabled);
	tcase_add_test(bad, test_nvidia_smi_malformed);
	suite_add_tcase(s, bad);
	tcase_set_timeout(eng, 60);
	tcase_add_test(eng, test_join_bus_id);
	tcase_add_test(eng, test_other_host_no_blame);
	tcase_add_test(eng, test_port_users);
	tcase_add_test(eng, test_xid_table);
	tcase_add_test(eng, test_xid_warning_alone);
	tcase_add_test(eng, test_next_steps_adapt);
	tcase_add_test(eng, test_joins_ambiguous);
	tcase_add_test(eng, test_pid_join_rules);
	tcase_add_test(eng, test_two_host_events);
	tcase_add_test(eng, test_gpu_lost_engine);
	suite_add_tcase(s, eng);
	return s;
}

HD_TEST_MAIN(suite)
