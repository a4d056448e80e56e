#!/usr/bin/env python3
"""Writes the host-log fixtures of issue 21 under tests/data/hostlogs/.

Each case is a folder: a small NCCL + c10d log of a 4-rank job on two hosts
(trn-01: ranks 0, 1; trn-02: ranks 2, 3), written in the shapes torchrun,
NCCL and PyTorch print, plus the hosts' kernel logs or InfiniBand state in
the shapes dmesg, dmesg -T, journalctl -k, ibstat, ibstatus, ibv_devinfo
and perfquery print.  Own hosts, pids, serials and numbers throughout.
tests/data/hostlogs/expect.tsv states the verdict each case must give.

    python3 scripts/gen-hostlogs.py [OUTDIR]
"""
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "tests", "data", "hostlogs")

# rank -> (host, pid, local rank, busId as NCCL prints it, addr)
RANKS = {
    0: ("trn-01", 7101, 0, "1b000", "10.0.1.1"),
    1: ("trn-01", 7102, 1, "3b000", "10.0.1.1"),
    2: ("trn-02", 7103, 0, "1b000", "10.0.1.2"),
    3: ("trn-02", 7104, 1, "3b000", "10.0.1.2"),
}
COMM = "0x3a7c5e19d2b04f61"
HCA = {0: "mlx5_0", 1: "mlx5_1", 2: "mlx5_0", 3: "mlx5_1"}


# The same job in containers: each host's processes have the same pids
# (52, 53), so a pid alone names a rank on each host.
RANKS_SAME_PIDS = {
    0: ("trn-01", 52, 0, "1b000", "10.0.1.1"),
    1: ("trn-01", 53, 1, "3b000", "10.0.1.1"),
    2: ("trn-02", 52, 0, "1b000", "10.0.1.2"),
    3: ("trn-02", 53, 1, "3b000", "10.0.1.2"),
}


def nccl_log(silent=3, net_ib=False, ib_error=False, ranks=None):
    """The job's merged stderr: every rank inits; rank `silent` never
    enqueues seq 52 and the others time out in it."""
    ranks = ranks or RANKS
    out = []
    for r, (host, pid, lr, bus, addr) in ranks.items():
        p = f"[default{lr}]:{host}:{pid}:{pid} [{lr}] NCCL INFO "
        out.append(p + f"Bootstrap : Using eth0:{addr}<0>")
        if net_ib:
            out.append(p + f"NET/IB : Using [0]{HCA[r]}:1/IB ; OOB "
                       f"eth0:{addr}<0>")
            out.append(p + "Using network IB")
        out.append(p + f"ncclCommInitRankConfig comm 0x55d1c0e4{r:04x} "
                   f"rank {r} nranks 4 cudaDev {lr} nvmlDev {lr} "
                   f"busId {bus} commId {COMM} - Init COMPLETE")
    if ib_error:
        host, pid, lr, _, _ = ranks[silent]
        out.append(f"[default{lr}]:{host}:{pid}:{pid + 90} [{lr}] "
                   "transport/net_ib.cc:1742 NCCL WARN NET/IB : Got "
                   "completion from peer 10.0.1.1<53118> with status=12 "
                   "opcode=0 len=0 vendor err 129 (Recv) localGid "
                   "::ffff:10.0.1.2 remoteGid ::ffff:10.0.1.1")
    for r, (host, pid, lr, _, _) in ranks.items():
        t = f"E1121 04:10:{12 + r:02d}.50012{r}000"
        if r == silent and not ib_error:
            out.append(
                f"[default{lr}]:[rank{r}]:[{t} ProcessGroupNCCL.cpp:1664] "
                f"[PG ID 0 PG GUID 0(default_pg) Rank {r}] Received a dump "
                "signal due to a collective timeout from  rank 0 and we "
                "will try our best to dump the debug info. Last enqueued "
                "NCCL work: 51, last completed NCCL work: 51.")
            continue
        out.append(
            f"[default{lr}]:[rank{r}]:[{t} ProcessGroupNCCL.cpp:632] "
            f"[PG ID 0 PG GUID 0(default_pg) Rank {r}] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=52, "
            "OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
            "Timeout(ms)=600000) ran for 600017 milliseconds before timing "
            "out.")
        out.append(
            f"[default{lr}]:[rank{r}]:[{t} ProcessGroupNCCL.cpp:2168] "
            f"[PG ID 0 PG GUID 0(default_pg) Rank {r}]  failure detected "
            "by watchdog at work sequence id: 52 PG status: last enqueued "
            "work: 52, last completed work: 51")
    return "\n".join(out) + "\n"


DMESG_BOOT = [
    "[    0.000000] Linux version 6.5.0-1017-nvidia (buildd@bos03) "
    "(gcc-12 12.3.0) #17-Ubuntu SMP",
    "[    9.812114] nvidia: module license 'NVIDIA' taints kernel.",
    "[   11.204577] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  "
    "550.90.07",
    "[   19.377020] mlx5_core 0000:0c:00.0 mlx5_0: Port: 1 Link ACTIVE",
    "[   19.377561] mlx5_core 0000:4c:00.0 mlx5_1: Port: 1 Link ACTIVE",
]


def dmesg(lines):
    return "\n".join(DMESG_BOOT + lines) + "\n"


IBSTAT_CA = """CA '{ca}'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.40.1000
\tHardware version: 0
\tNode GUID: 0x7c8c0903002e{n:02x}10
\tSystem image GUID: 0x7c8c0903002e{n:02x}10
\tPort 1:
\t\tState: {state}
\t\tPhysical state: {phys}
\t\tRate: {rate}
\t\tBase lid: {lid}
\t\tLMC: 0
\t\tSM lid: 1
\t\tCapability mask: 0xa651e848
\t\tPort GUID: 0x7c8c0903002e{n:02x}10
\t\tLink layer: InfiniBand
"""


def ibstat(down=None, disabled=(), cas=("mlx5_0", "mlx5_1")):
    """ibstat of the host's HCAs: `down` polling for a link, those in
    `disabled` switched off (an unused port of a card)."""
    out = ""
    for n, ca in enumerate(cas):
        if ca == down:
            out += IBSTAT_CA.format(ca=ca, n=n, state="Down",
                                    phys="Polling", rate=10, lid=65535)
        elif ca in disabled:
            out += IBSTAT_CA.format(ca=ca, n=n, state="Down",
                                    phys="Disabled", rate=10, lid=0)
        else:
            out += IBSTAT_CA.format(ca=ca, n=n, state="Active",
                                    phys="LinkUp", rate=400, lid=21 + n)
    return out


def pasted(text, command):
    """Output as people paste it: the command above, tabs as 8 spaces."""
    return command + "\n" + text.expandtabs(8)


def perfquery(lid, port, bad):
    names = ["SymbolErrorCounter", "LinkErrorRecoveryCounter",
             "LinkDownedCounter", "PortRcvErrors",
             "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
             "PortXmitDiscards", "PortXmitConstraintErrors",
             "PortRcvConstraintErrors"]
    out = [f"# Port counters: Lid {lid} port {port} (CapMask: 0x5A00)",
           f"PortSelect:......................{port}",
           "CounterSelect:...................0x0000"]
    for n in names:
        out.append(f"{n + ':':.<33}{bad.get(n, 0)}")
    out += ["CounterSelect2:..................0x00",
            f"{'LocalLinkIntegrityErrors:':.<33}0",
            f"{'ExcessiveBufferOverrunErrors:':.<33}"
            f"{bad.get('ExcessiveBufferOverrunErrors', 0)}",
            f"{'VL15Dropped:':.<33}0",
            "PortXmitData:....................48213377216",
            "PortRcvData:.....................48190655104",
            "PortXmitPkts:....................91366012",
            "PortRcvPkts:.....................91340087"]
    return "\n".join(out) + "\n"


IBSTATUS = """Infiniband device '{ca}' port 1 status:
\tdefault gid:\t fe80:0000:0000:0000:7c8c:0903:002e:{n:02x}10
\tbase lid:\t 0x{lid:x}
\tsm lid:\t\t 0x1
\tstate:\t\t 4: ACTIVE
\tphys state:\t 5: LinkUp
\trate:\t\t 400 Gb/sec (4X NDR)
\tlink_layer:\t InfiniBand

"""

DEVINFO = """hca_id:\t{ca}
\ttransport:\t\t\tInfiniBand (0)
\tfw_ver:\t\t\t\t28.40.1000
\tnode_guid:\t\t\t7c8c:0903:002e:{n:02x}10
\tvendor_id:\t\t\t0x02c9
\tvendor_part_id:\t\t\t4129
\thw_ver:\t\t\t\t0x0
\tphys_port_cnt:\t\t\t1
\t\tport:\t1
\t\t\tstate:\t\t\tPORT_ACTIVE (4)
\t\t\tmax_mtu:\t\t4096 (5)
\t\t\tactive_mtu:\t\t4096 (5)
\t\t\tsm_lid:\t\t\t1
\t\t\tport_lid:\t\t{lid}
\t\t\tport_lmc:\t\t0x00
\t\t\tlink_layer:\t\tInfiniBand

"""


SMI_GPU = """GPU 00000000:{bus}:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Product Brand                         : NVIDIA
    Persistence Mode                      : Enabled
    Serial Number                         : 165362400{n:04d}
    GPU UUID                              : GPU-4f1c2a7e-0b3d-4e55-9a61-2c8d7e10{n:04d}
    Clocks Event Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Not Active
        HW Slowdown                       : {slow}
            HW Thermal Slowdown           : {slow}
            HW Power Brake Slowdown       : Not Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    ECC Errors
        Volatile
            SRAM Correctable              : 0
            SRAM Uncorrectable Parity     : 0
            SRAM Uncorrectable SEC-DED    : 0
            DRAM Correctable              : {corr}
            DRAM Uncorrectable            : {unc}
        Aggregate
            SRAM Correctable              : 0
            SRAM Uncorrectable Parity     : 0
            SRAM Uncorrectable SEC-DED    : 0
            DRAM Correctable              : {corr}
            DRAM Uncorrectable            : {unc}
    Retired Pages
        Single Bit ECC                    : N/A
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : {unc}
        Pending                           : {pending}
        Remapping Failure Occurred        : No
        Bank Remap Availability Histogram
            Max                           : 2560 bank(s)
            High                          : 0 bank(s)
            Partial                       : 0 bank(s)
            Low                           : 0 bank(s)
            None                          : 0 bank(s)
    Temperature
        GPU Current Temp                  : {temp} C
"""


def nvidia_smi(gpus):
    out = ["", "==============NVSMI LOG==============", "",
           "Timestamp                                 : Tue Nov 21 "
           "04:12:40 2023",
           "Driver Version                            : 550.90.07",
           "CUDA Version                              : 12.4", "",
           f"Attached GPUs                             : {len(gpus)}"]
    text = "\n".join(out) + "\n"
    for n, (bus, bad, slow) in enumerate(gpus):
        text += SMI_GPU.format(
            bus=bus, n=n, slow="Active" if slow else "Not Active",
            corr=3 if bad else 0, unc=2 if bad else 0,
            pending="Yes" if bad else "No", temp=91 if slow else 44)
        text += "\n"
    return text


# py-spy of pid 53 inside all_reduce: joined to rank 3 it would refute
# rank 3's absence, joined to rank 1 it would say nothing true
PYSPY_53 = """Process 53: /usr/bin/python3 -u pretrain.py --cfg base.yaml
Python v3.11.9 (/usr/bin/python3.11)

Thread 53 (active): "MainThread"
    all_reduce (torch/distributed/distributed_c10d.py:2288)
    wrapper (torch/distributed/c10d_logger.py:83)
    reduce_grads (pretrain.py:141)
    main (pretrain.py:202)
    <module> (pretrain.py:215)
"""

# a core of pid 53 whose NCCL proxy thread took SIGSEGV: joined to rank 1
# it would blame a rank that timed out like the others
GDB_CORE_53 = """[New LWP 53]
[New LWP 88]
Core was generated by `/usr/bin/python3 -u pretrain.py --cfg base.yaml'.
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x00007f6a0c41e2b0 in ncclProxyProgress (proxyState_=0x55b1e0d2c010) at proxy.cc:868
[Current thread is 1 (Thread 0x7f69e37fe640 (LWP 88))]
(gdb) thread apply all bt

Thread 2 (Thread 0x7f6a2f0c1740 (LWP 53) "python3"):
#0  0x00007f6a2f42bd7f in poll () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f6a1d7e05d1 in cuStreamSynchronize () from /lib/x86_64-linux-gnu/libcuda.so.1

Thread 1 (Thread 0x7f69e37fe640 (LWP 88) "python3"):
#0  0x00007f6a0c41e2b0 in ncclProxyProgress (proxyState_=0x55b1e0d2c010) at proxy.cc:868
#1  0x00007f6a2f3acac3 in start_thread () from /lib/x86_64-linux-gnu/libc.so.6
"""


def write(case, name, text):
    path = os.path.join(OUT, case, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def job_with(case, name, lines):
    """A case: the job's log, and beside it a host's log of these lines."""
    write(case, "job.log", nccl_log())
    write(case, name, "\n".join(lines) + "\n")


def main():
    # kernel logs
    write("kernel/xid79-dmesg", "job.log", nccl_log())
    write("kernel/xid79-dmesg", "hosts/trn-02/dmesg.txt", dmesg([
        "[91806.220417] NVRM: GPU at PCI:0000:3b:00: "
        "GPU-8e21f0c4-55b9-4d0e-a1c7-3f6d92b04e18",
        "[91806.220423] NVRM: GPU Board Serial Number: 1653624007711",
        "[91806.220428] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
        "name=<unknown>, GPU has fallen off the bus.",
        "[91806.220461] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
        "[91806.274008] NVRM: A GPU crash dump has been created. If "
        "possible, please run",
        "               NVRM: nvidia-bug-report.sh as root to collect this "
        "data before",
        "               NVRM: the NVIDIA kernel module is unloaded.",
    ]))
    job_with("kernel/xid79-dmesg-T", "trn-02.dmesg-T.txt", [
        "[Tue Nov 21 03:59:48 2023] mlx5_core 0000:4c:00.0 mlx5_1: Port: "
        "1 Link ACTIVE",
        "[Tue Nov 21 04:00:02 2023] NVRM: Xid (PCI:0000:3b:00): 79, "
        "pid=7104, name=python3, GPU has fallen off the bus.",
        "[Tue Nov 21 04:00:02 2023] NVRM: GPU 0000:3b:00.0: GPU has "
        "fallen off the bus.",
    ])
    job_with("kernel/oom-journal", "kern.log", [
        "-- Logs begin at Mon 2023-11-20 08:12:40 UTC, end at Tue "
        "2023-11-21 04:20:01 UTC. --",
        "Nov 21 03:59:57 trn-02 kernel: python3 invoked oom-killer: "
        "gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
        "oom_score_adj=0",
        "Nov 21 03:59:57 trn-02 kernel: oom-kill:constraint=CONSTRAINT_NONE,"
        "nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
        "task_memcg=/user.slice,task=python3,pid=7104,uid=1000",
        "Nov 21 03:59:57 trn-02 kernel: Out of memory: Killed process 7104 "
        "(python3) total-vm:201344512kB, anon-rss:1946239824kB, "
        "file-rss:80112kB, shmem-rss:12kB, UID:1000 pgtables:390212kB "
        "oom_score_adj:0",
    ])
    job_with("kernel/xid13-iso", "journal.txt", [
        "2023-11-21T03:59:31+0000 trn-02 kernel: NVRM: Xid "
        "(PCI:0000:3b:00): 13, pid=7104, name=python3, Graphics "
        "Exception: ESR 0x51a730=0x7000a 0x51a734=0x0",
        "2023-11-21T03:59:31+0000 trn-02 kernel: NVRM: Xid "
        "(PCI:0000:3b:00): 43, pid=7104, name=python3, Ch 00000008",
    ])
    # /var/log/syslog: other programs' lines between the kernel's
    job_with("kernel/syslog-mixed", "syslog", [
        "Nov 21 03:59:40 trn-02 systemd[1]: Started Session 412 of User "
        "train.",
        "Nov 21 03:59:41 trn-02 dcgm-exporter[2211]: level=info msg=\"scrape "
        "done\" duration=31ms",
        "Nov 21 03:59:42 trn-02 kernel: NVRM: Xid (PCI:0000:3b:00): 79, "
        "pid=7104, name=python3, GPU has fallen off the bus.",
        "Nov 21 03:59:42 trn-02 kernel: NVRM: GPU 0000:3b:00.0: GPU has "
        "fallen off the bus.",
        "Nov 21 03:59:43 trn-02 nvidia-persistenced[1702]: device "
        "0000:3b:00.0 - failed to query",
        "Nov 21 03:59:44 trn-02 sshd[40122]: Accepted publickey for train",
    ])
    # journalctl -k of a newer driver: "fallen off the bus" without an Xid,
    # its continuation lines each with the journal's prefix
    job_with("kernel/fallen-journal", "kern.log", [
        "Nov 21 03:59:41 trn-02 kernel: mlx5_core 0000:4c:00.0 mlx5_1: "
        "Port: 1 Link ACTIVE",
        "Nov 21 03:59:42 trn-02 kernel: NVRM: The NVIDIA GPU 0000:3b:00.0",
        "Nov 21 03:59:42 trn-02 kernel: NVRM: (PCI ID: 10de:2330) "
        "installed in this system has",
        "Nov 21 03:59:42 trn-02 kernel: NVRM: fallen off the bus and is "
        "not responding to commands.",
    ])
    # journal lines without their date, cut at the pager's width (">")
    job_with("kernel/journal-nodate-cut", "journal.txt", [
        "trn-02 kernel: NVRM: GPU at PCI:0000:3b:00: "
        "GPU-8e21f0c4-55b9-4d0e-a1c7-3f6d92b04e18",
        "trn-02 kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=7104, "
        "name=python3, Ch 00000008, intr 0000>",
        "trn-02 kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=7104, "
        "name=python3, Ch 00000008, intr 0000>",
    ])
    write("kernel/xid-other-host", "job.log", nccl_log())
    write("kernel/xid-other-host", "hosts/trn-17/dmesg.txt", dmesg([
        "[4418.001277] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
        "name=<unknown>, GPU has fallen off the bus.",
    ]))
    # two hosts' events, each its own cause: rank 1's GPU on trn-01 and
    # rank 3's on trn-02 both fell off the bus
    write("kernel/xid79-two-hosts", "job.log", nccl_log())
    for host, t in (("trn-01", "90211.004117"), ("trn-02", "91806.220428")):
        write("kernel/xid79-two-hosts", f"hosts/{host}/dmesg.txt", dmesg([
            f"[{t}] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
            "name=<unknown>, GPU has fallen off the bus.",
        ]))
    # rank 3's GPU fell off the bus on trn-02, and on trn-01 the port rank
    # 0's NCCL uses is down: two causes, each reported
    write("kernel/xid79-and-port", "job.log", nccl_log(net_ib=True))
    write("kernel/xid79-and-port", "hosts/trn-02/dmesg.txt", dmesg([
        "[91806.220428] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
        "name=<unknown>, GPU has fallen off the bus.",
    ]))
    write("kernel/xid79-and-port", "hosts/trn-01/ibstat.txt",
          ibstat(down="mlx5_0"))
    write("kernel/xid45-only", "dmesg.txt", dmesg([
        "[7133.412009] NVRM: Xid (PCI:0000:1b:00): 45, pid=30911, "
        "name=python3, Ch 00000010",
    ]))
    write("kernel/nvlink-only", "dmesg.txt", dmesg([
        "[5120.338104] NVRM: Xid (PCI:0000:1b:00): 74, pid=30911, "
        "name=python3, NVLink: fatal error detected on link 6"
        "(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
    ]))
    # Xid 45 names the Xid it cleans up after: the kernel's own cause
    write("kernel/xid45-caused-nvlink", "dmesg.txt", dmesg([
        "[6210.118304] NVRM: Xid (PCI:0000:%s:00): 45, pid=30911, "
        "name=python3, Ch 0000000%d, errorString CTX SWITCH TIMEOUT, "
        "Info 0x0 caused by previous Xid %d" % (bus, ch, prev)
        for ch, (bus, prev) in enumerate([("1b", 149), ("3b", 149),
                                           ("5b", 145), ("9b", 145)])
    ]))
    write("kernel/xid45-caused-79", "job.log", nccl_log())
    write("kernel/xid45-caused-79", "hosts/trn-02/dmesg.txt", dmesg([
        "[91806.503112] NVRM: Xid (PCI:0000:3b:00): 45, pid=7104, "
        "name=python3, Ch 00000008 caused by previous Xid 79",
    ]))
    # dmesg -t (no stamps, no host): the driver's tags begin each line
    write("kernel/notime-xid79", "job.log", nccl_log())
    write("kernel/notime-xid79", "hosts/trn-02/dmesg-t.txt", "\n".join([
        "NVRM: GPU at PCI:0000:3b:00: "
        "GPU-8e21f0c4-55b9-4d0e-a1c7-3f6d92b04e18",
        "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
        "name=<unknown>, GPU has fallen off the bus.",
        "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
        "NVRM: kgspRcAndNotifyAllChannels_IMPL: RC all channels for "
        "critical error 79.",
    ]) + "\n")
    write("kernel/notime-alone", "kern.txt", "\n".join([
        "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  "
        "570.86.15",
        "nvidia-nvlink: Nvlink Core is being initialized, major device "
        "number 508",
        "NVRM: Xid (PCI:0000:9b:00): 79, GPU has fallen off the bus.",
        "NVRM: GPU 0000:9b:00.0: GPU has fallen off the bus.",
    ]) + "\n")
    write("kernel/healthy-dmesg", "dmesg.txt", dmesg([
        "[  131.004412] EXT4-fs (nvme0n1p2): mounted filesystem with "
        "ordered data mode.",
    ]))
    # InfiniBand state
    write("ib/port-down-chain", "job.log", nccl_log(net_ib=True,
                                                    ib_error=True))
    write("ib/port-down-chain", "hosts/trn-02/ibstat.txt",
          ibstat(down="mlx5_1"))
    write("ib/port-down-missing", "job.log", nccl_log(net_ib=True))
    write("ib/port-down-missing", "hosts/trn-02/ib.txt",
          ibstat(down="mlx5_1") + perfquery(65535, 1, {
              "LinkDownedCounter": 4, "SymbolErrorCounter": 2291,
              "PortRcvErrors": 17}))
    # a card's unused port switched off beside the ports NCCL uses: no
    # fault, alone or beside a rank that never entered
    write("ib/disabled-unused", "ibstat.txt", pasted(
        ibstat(disabled=("mlx5_2",), cas=("mlx5_0", "mlx5_1", "mlx5_2")),
        "$ ibstat"))
    write("ib/disabled-unused-job", "job.log", nccl_log(net_ib=True))
    write("ib/disabled-unused-job", "hosts/trn-02/ibstat.txt", pasted(
        ibstat(disabled=("mlx5_2",), cas=("mlx5_0", "mlx5_1", "mlx5_2")),
        "root@trn-02:~# ibstat"))
    # the port rank 3's NCCL uses is switched off: the chain
    write("ib/disabled-used", "job.log", nccl_log(net_ib=True,
                                                  ib_error=True))
    write("ib/disabled-used", "hosts/trn-02/ibstat.txt",
          ibstat(disabled=("mlx5_1",)))
    write("ib/perfquery-only", "perfquery.txt", perfquery(22, 1, {
        "LinkDownedCounter": 2, "SymbolErrorCounter": 117,
        "ExcessiveBufferOverrunErrors": 3}))
    write("ib/healthy", "ibstatus.txt",
          IBSTATUS.format(ca="mlx5_0", n=0, lid=21) +
          IBSTATUS.format(ca="mlx5_1", n=1, lid=22))
    write("ib/healthy", "ibv_devinfo.txt",
          DEVINFO.format(ca="mlx5_0", n=0, lid=21) +
          DEVINFO.format(ca="mlx5_1", n=1, lid=22))
    write("ib/healthy", "perfquery.txt", perfquery(21, 1, {}))
    # the example incident's node-b (golden CLI cases add these to it)
    write("example-xid", "hosts/node-b/dmesg.txt", dmesg([
        "[84211.552187] NVRM: GPU at PCI:0000:38:00: "
        "GPU-5b7e1c4a-2f0d-4a9e-8c31-7d2e9f4b6a10",
        "[84211.552199] NVRM: Xid (PCI:0000:38:00): 79, pid=4247, "
        "name=python, GPU has fallen off the bus.",
        "[84211.552230] NVRM: GPU 0000:38:00.0: GPU has fallen off the bus.",
    ]))
    # issue 18: the same Xid, but dmesg -T dates it the day before the
    # example's hang (node-b's logs are 2026-11-21, local): another
    # incident's, never the cause
    write("example-stale-xid", "hosts/node-b/dmesg-T.txt", "\n".join([
        "[Fri Nov 20 03:10:00 2026] Linux version 6.5.0-1017-nvidia "
        "(buildd@bos03) (gcc-12 12.3.0) #17-Ubuntu SMP",
        "[Fri Nov 20 03:10:09 2026] nvidia: module license 'NVIDIA' "
        "taints kernel.",
        "[Fri Nov 20 04:12:11 2026] NVRM: GPU at PCI:0000:38:00: "
        "GPU-5b7e1c4a-2f0d-4a9e-8c31-7d2e9f4b6a10",
        "[Fri Nov 20 04:12:11 2026] NVRM: Xid (PCI:0000:38:00): 79, "
        "pid=4247, name=python, GPU has fallen off the bus.",
    ]) + "\n")
    write("example-ib", "hosts/node-b/ibstat.txt", ibstat(down="mlx5_1"))
    # adv4: node-b's kern.log reaching back a week, to an Xid 79 on rank
    # 5's GPU (0000:38:00) before a reboot: of an earlier boot, never the
    # cause of this hang
    write("example-xid-old-boot", "hosts/node-b/kern.log", "\n".join([
        "Nov 14 11:02:10 node-b kernel: [91806.220428] NVRM: Xid "
        "(PCI:0000:38:00): 79, pid=3100, name=python, GPU has fallen off "
        "the bus.",
        "Nov 14 11:02:10 node-b kernel: [91806.220461] NVRM: GPU "
        "0000:38:00.0: GPU has fallen off the bus.",
        "Nov 14 11:40:00 node-b kernel: [    0.000000] Linux version "
        "6.5.0-1017-nvidia (buildd@bos03) (gcc-12 12.3.0) #17-Ubuntu SMP",
        "Nov 14 11:40:12 node-b kernel: [   19.377561] mlx5_core "
        "0000:4c:00.0 mlx5_1: Port: 1 Link ACTIVE",
    ]) + "\n")
    # adv4: node-b's journal with an application Xid on rank 5's GPU half
    # an hour before rank 5's last completed op (a previous attempt's
    # fault; torchrun restarted the workers): rank 5 outlived it
    write("example-xid-outlived", "hosts/node-b/journal.txt", "\n".join([
        "2026-11-21T02:41:07+0000 node-b kernel: NVRM: Xid "
        "(PCI:0000:38:00): 13, pid=3100, name=python, Graphics "
        "Exception: ESR 0x51a730=0x7000a 0x51a734=0x0",
        "2026-11-21T02:41:07+0000 node-b kernel: NVRM: Xid "
        "(PCI:0000:38:00): 43, pid=3100, name=python, Ch 00000008",
    ]) + "\n")
    # joins that must not be made: a pid that is a rank's on each host, a
    # kernel log that names no host, a bus id every host has
    same = nccl_log(ranks=RANKS_SAME_PIDS)
    write("joins/pid-two-hosts-pyspy", "job.log", same)
    write("joins/pid-two-hosts-pyspy", "pyspy-53.txt", PYSPY_53)
    write("joins/pid-two-hosts-gdb", "job.log", same)
    write("joins/pid-two-hosts-gdb", "core-53-bt.txt", GDB_CORE_53)
    write("joins/pid-two-hosts-dmesg", "job.log", same)
    write("joins/pid-two-hosts-dmesg", "dmesg.txt", dmesg([
        "[91806.220428] NVRM: Xid (PCI:0000:3b:00): 79, pid=53, "
        "name=python3, GPU has fallen off the bus.",
    ]))
    write("joins/bus-two-hosts-smi", "job.log", same)
    write("joins/bus-two-hosts-smi", "nvidia-smi-q.txt",
          nvidia_smi([("1B", False, False), ("3B", True, False)]))
    # the same Xid in a journal that names trn-02: joined, by its pid there
    write("joins/pid-host-journal", "job.log", same)
    write("joins/pid-host-journal", "journal.txt",
          "Nov 21 03:59:31 trn-02 kernel: NVRM: Xid (PCI:0000:3b:00): 79, "
          "pid=53, name=python3, GPU has fallen off the bus.\n")
    # containers (ranks 0, 1 are pids 52, 53 on trn-01): the kernel prints
    # the host's pids, so a host process with pid 53 is not rank 1
    write("joins/container-oom-unrelated", "job.log", same)
    write("joins/container-oom-unrelated", "hosts/trn-01/journal.txt",
          "\n".join([
              "Nov 21 03:58:10 trn-01 kernel: systemd-journal invoked "
              "oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|"
              "__GFP_COMP), order=0, oom_score_adj=-250",
              "Nov 21 03:58:10 trn-01 kernel: oom-kill:constraint="
              "CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,"
              "global_oom,task_memcg=/system.slice/systemd-journald."
              "service,task=systemd-journal,pid=53,uid=0",
              "Nov 21 03:58:10 trn-01 kernel: Out of memory: Killed "
              "process 53 (systemd-journal) total-vm:1204312kB, "
              "anon-rss:801220kB, file-rss:0kB, shmem-rss:0kB, UID:0 "
              "pgtables:2212kB oom_score_adj:-250",
          ]) + "\n")
    # a Python process in a pod's cgroup, host pid 53: rank 1's own host
    # pid would be another number
    write("joins/container-oom-kubepods", "job.log", same)
    write("joins/container-oom-kubepods", "hosts/trn-01/dmesg.txt", dmesg([
        "[91702.118230] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_"
        "KERNEL), order=0, oom_score_adj=994",
        "[91702.118301] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask="
        "(null),cpuset=cri-containerd-5e0b7d21c4a9.scope,mems_allowed=0-1,"
        "oom_memcg=/kubepods.slice/kubepods-burstable.slice/kubepods-"
        "burstable-pod61c2f0a8.slice,task_memcg=/kubepods.slice/kubepods-"
        "burstable.slice/kubepods-burstable-pod61c2f0a8.slice/cri-"
        "containerd-5e0b7d21c4a9.scope,task=python3,pid=53,uid=0",
        "[91702.118355] Memory cgroup out of memory: Killed process 53 "
        "(python3) total-vm:8212304kB, anon-rss:4190212kB, file-rss:"
        "70112kB, shmem-rss:0kB, UID:0 pgtables:9212kB oom_score_adj:994",
    ]))
    # a Python process with host pid 53 and no cgroup line: rank 1 by pid
    # alone, a lead below the collectives' verdict, never above it
    write("joins/container-oom-python", "job.log", same)
    write("joins/container-oom-python", "hosts/trn-01/dmesg.txt", dmesg([
        "[91702.118355] Out of memory: Killed process 53 (python3) "
        "total-vm:8212304kB, anon-rss:4190212kB, file-rss:70112kB, "
        "shmem-rss:0kB, UID:0 pgtables:9212kB oom_score_adj:0",
    ]))
    # a GPU lost to its host, shown only by nvidia-smi failing: rank 3's
    # GPU (busId 3b000 on trn-02) it cannot reach
    write("gpu/smi-unknown-error", "job.log", nccl_log())
    write("gpu/smi-unknown-error", "hosts/trn-02/nvidia-smi.txt",
          "root@trn-02:~# nvidia-smi\n"
          "Unable to determine the device handle for GPU0000:3B:00.0: "
          "Unknown Error\n")
    # the host from the prompt, the file beside the log; "GPU is lost"
    write("gpu/smi-gpu-lost", "job.log", nccl_log())
    write("gpu/smi-gpu-lost", "smi-after-hang.txt",
          "[train@trn-02 ~]$ nvidia-smi -q -d ECC\n"
          "Unable to determine the device handle for GPU 0000:3B:00.0: GPU "
          "is lost.  Reboot the system to recover this GPU\n")
    # no GPU at all on trn-02: every rank there lost it, a lead for rank 3
    write("gpu/smi-no-devices", "job.log", nccl_log())
    write("gpu/smi-no-devices", "hosts/trn-02/nvidia-smi.txt",
          "No devices were found\n")
    # nvidia-smi's error line inside the job's own stderr: the log is the
    # job's, never read as nvidia-smi's
    log = nccl_log().split("\n")
    log.insert(3, "Unable to determine the device handle for GPU0000:1B:00.0: "
               "Unknown Error")
    write("gpu/smi-line-in-log", "job.log", "\n".join(log))
    # kernel: a PCIe port's fatal AER about rank 3's GPU, the nvidia
    # driver's own AER line, and the GPU off the bus without an Xid
    write("kernel/aer-fallen", "job.log", nccl_log())
    write("kernel/aer-fallen", "hosts/trn-02/dmesg.txt", dmesg([
        "[91805.904511] pcieport 0000:3a:00.0: AER: Corrected error "
        "received: 0000:3a:00.0",
        "[91805.904530] pcieport 0000:3a:00.0: PCIe Bus Error: severity="
        "Corrected, type=Data Link Layer, (Transmitter ID)",
        "[91806.118342] pcieport 0000:3a:00.0: AER: Uncorrected (Fatal) "
        "error received: 0000:3b:00.0",
        "[91806.118360] nvidia 0000:3b:00.0: PCIe Bus Error: severity="
        "Uncorrected (Fatal), type=Transaction Layer, (Requester ID)",
        "[91806.118371] nvidia 0000:3b:00.0:   device [10de:2330] error "
        "status/mask=00004000/00000000",
        "[91806.118380] nvidia 0000:3b:00.0:    [14] CmpltTO                "
        "(First)",
        "[91806.118402] nvidia 0000:3b:00.0: AER: can't recover (no "
        "error_detected callback)",
        "[91806.220417] NVRM: GPU at PCI:0000:3b:00: "
        "GPU-8e21f0c4-55b9-4d0e-a1c7-3f6d92b04e18",
        "[91806.220461] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
    ]))
    # a root port's own fatal error, no GPU line: context, not a GPU fault
    write("kernel/aer-port-only", "job.log", nccl_log())
    write("kernel/aer-port-only", "hosts/trn-02/dmesg.txt", dmesg([
        "[91806.118342] pcieport 0000:00:03.0: AER: Uncorrected (Fatal) "
        "error received: id=0018",
        "[91806.118359] pcieport 0000:00:03.0: PCIe Bus Error: severity="
        "Uncorrected (Fatal), type=Transaction Layer, id=0018(Receiver "
        "ID)",
        "[91806.118367] pcieport 0000:00:03.0:    [ 5] Surprise Down Error "
        "   (First)",
    ]))
    # the driver cannot bring rank 3's GPU up again, each time it tries
    write("kernel/rminit-failed", "job.log", nccl_log())
    write("kernel/rminit-failed", "hosts/trn-02/dmesg.txt", dmesg([
        f"[{t}] NVRM: GPU 0000:3b:00.0: " + m
        for t in ("91911.604117", "91912.771930", "91913.902256")
        for m in ("RmInitAdapter failed! (0x24:0x65:1417)",
                  "rm_init_adapter failed, device minor number 1")
    ]))
    # dmesg -H of a host with only corrected PCIe errors: never a fault
    write("kernel/aer-corrected-human", "dmesg-H.txt", "\n".join([
        "[Nov21 03:58] pcieport 0000:00:01.1: AER: Corrected error message "
        "received from 0000:00:01.1",
        "[  +0.000012] pcieport 0000:00:01.1: PCIe Bus Error: severity="
        "Correctable, type=Data Link Layer, (Receiver ID)",
        "[  +0.000004] pcieport 0000:00:01.1:   device [1022:1483] error "
        "status/mask=00000080/00006000",
        "[  +0.000003] pcieport 0000:00:01.1:    [ 7] BadDLLP",
    ]) + "\n")
    # GPU state
    write("gpu/remap-pending/hosts/trn-02", "nvidia-smi-q.txt",
          nvidia_smi([("1B", False, False), ("3B", True, False)]))
    write("gpu/remap-pending", "job.log", nccl_log())
    write("gpu/slowdown-only", "nvidia-smi-q.txt",
          nvidia_smi([("1B", False, True), ("3B", False, False)]))
    write("example-gpu", "hosts/node-b/nvidia-smi-q.txt",
          nvidia_smi([("18", False, False), ("38", True, False),
                      ("58", False, False), ("78", False, False)]))


if __name__ == "__main__":
    main()
