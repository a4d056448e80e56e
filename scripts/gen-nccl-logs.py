#!/usr/bin/env python3
"""Writes realistic multi-rank NCCL_DEBUG + c10d incident folders.

Each case goes to tests/data/nccl/<case>/, one log per rank
(rank<N>.log) unless the case is a single interleaved file.  Output is
byte-exact reproducible: a fixed seed, fixed hosts, pids and times.

    scripts/gen-nccl-logs.py [outdir]            # all cases
    scripts/gen-nccl-logs.py --bench FILE MB     # one big COLL log
"""
import os
import random
import sys

SEED = 20250302


class Rank:
    def __init__(self, rank, world, version, rng):
        self.rank = rank
        self.world = world
        self.version = version
        self.host = "node-%s" % "abcdefgh"[rank // 4]
        self.pid = 4000 + rank * 17
        self.dev = rank % 4
        self.comm = 0x5600D0A10000 + rank * 0x1000 + rng.randrange(0x100) * 0x10
        self.opcount = 0
        self.lines = []

    @property
    def hpt(self):
        return "%s:%d:%d [%d] " % (self.host, self.pid, self.pid, self.dev)

    def info(self, msg):
        self.lines.append(self.hpt + "NCCL INFO " + msg)

    def warn(self, where, msg, stamp=None):
        self.lines.append("")
        ts = "[%s] " % stamp if stamp else ""
        self.lines.append("%s%s:%d:%d [%d] %s NCCL WARN %s" % (
            ts, self.host, self.pid, self.pid + 150, self.dev, where, msg))


def vtuple(v):
    return tuple(int(x) for x in v.split("."))


def init_lines(r, comm_id):
    v = vtuple(r.version)
    bus = "%x000" % (0x1b + r.dev * 0x20)
    if v < (2, 16):
        r.lines.append("NCCL version %s+cuda11.8" % r.version) if r.rank == 0 else None
        r.info("comm 0x%x rank %d nranks %d cudaDev %d busId %s - Init COMPLETE"
               % (r.comm, r.rank, r.world, r.dev, bus))
        return
    r.info("NCCL version %s+cuda12.2" % r.version)
    api = "ncclCommInitRankConfig " if v >= (2, 21) else ""
    tail = "comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%016x" % (
        r.comm, r.rank, r.world, r.dev, r.dev, bus, comm_id)
    if v >= (2, 18):
        r.info(api + tail + " - Init START")
    r.info(api + tail + " - Init COMPLETE")


def coll(r, op, count, dtype=7, redop=0, root=0):
    v = vtuple(r.version)
    if op in ("Send", "Recv") and v >= (2, 12):
        send, recv = "(nil)", "0x7f00aa000000"
    elif op == "Recv":
        send, recv = "(nil)", "0x7f00aa000000"
    elif op == "Send":
        send, recv = "0x7f00aa000000", "(nil)"
    else:
        send = recv = "0x7f00aa000000"
    r.info("%s: opCount %x sendbuff %s recvbuff %s count %d datatype %d op %d "
           "root %d comm 0x%x [nranks=%d] stream 0x55e0c1c8f7a0"
           % (op, r.opcount, send, recv, count, dtype, redop, root, r.comm, r.world))
    r.opcount += 1


def c10d_prefix(r, torch, sev="E", line=640):
    if torch < (2, 2):
        return "[%s ProcessGroupNCCL.cpp:%d] " % (sev, line)
    if torch < (2, 4):
        return "[rank%d]:[%s ProcessGroupNCCL.cpp:%d] " % (r.rank, sev, line)
    return "[rank%d]:[%s305 14:32:11.%09d ProcessGroupNCCL.cpp:%d] " % (
        r.rank, sev, 123456789 + r.rank, line)


def pg_prefix(r, torch):
    if torch < (2, 3):
        return "[Rank %d] " % r.rank
    if torch < (2, 4):
        return "[PG 0 Rank %d] " % r.rank
    if torch < (2, 6):
        return "[PG 0 (default_pg) Rank %d] " % r.rank
    return "[PG ID 0 PG GUID 0(default_pg) Rank %d] " % r.rank


def timeout(r, torch, seq, optype="ALLREDUCE", numel=262144):
    if torch < (1, 12):
        work = "WorkNCCL(OpType=%s, TensorShape=[%d], Timeout(ms)=600000)" % (optype, numel)
    elif torch < (2, 1):
        work = "WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=600000)" % (seq, optype)
    else:
        work = ("WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, "
                "Timeout(ms)=600000)" % (seq, optype, numel, numel))
    r.lines.append(c10d_prefix(r, torch) + "[Rank %d] Watchdog caught collective "
                   "operation timeout: %s ran for %d milliseconds before timing out."
                   % (r.rank, work, 600000 + 17 * r.rank))


def status(r, torch, s, e, c):
    p = c10d_prefix(r, torch, line=1690) + pg_prefix(r, torch)
    if torch < (2, 3):
        r.lines.append(c10d_prefix(r, torch) + "Some NCCL operations have failed "
                       "or timed out. Due to the asynchronous nature of CUDA "
                       "kernels, subsequent GPU operations might run on corrupted/"
                       "incomplete data.")
        return
    if torch < (2, 5):
        r.lines.append(p + "Timeout at NCCL work: %d, last enqueued NCCL work: %d, "
                       "last completed NCCL work: %d." % (s, e, c))
    elif torch < (2, 7):
        r.lines.append(p + "Exception (either an error or timeout) detected by "
                       "watchdog at work: %d, last enqueued NCCL work: %d, last "
                       "completed NCCL work: %d." % (s, e, c))
    else:
        r.lines.append(p + " failure detected by watchdog at work sequence id: %d "
                       "PG status: last enqueued work: %d, last completed work: %d"
                       % (s, e, c))


def chatter(r, rng, step):
    r.lines.append("step %d loss %.4f lr 3.0e-04" % (step, 2.5 - step * 0.01 + rng.random() * 0.01))


OPS = ["AllReduce", "AllGather", "ReduceScatter", "Broadcast"]


def training(ranks, rng, steps, comm_id, skip=None, mutate=None):
    """Each step: one op on every rank; skip(rank, step) drops it."""
    for r in ranks:
        init_lines(r, comm_id)
    for step in range(steps):
        op = OPS[step % len(OPS)]
        count = 262144 >> (step % 3)
        for r in ranks:
            if skip and skip(r, step):
                continue
            args = dict(count=count, dtype=7, redop=0, root=0)
            if op == "Broadcast":
                args["root"] = 0
            if mutate:
                mutate(r, step, op, args)
            o = args.pop("op", op)
            coll(r, o, **args)
            if step % 5 == 0:
                chatter(r, rng, step)


def write_case(out, name, ranks, single=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.endswith(".log"):
            os.remove(os.path.join(d, f))
    if single is not None:
        with open(os.path.join(d, "train.log"), "w", newline="\n") as fh:
            fh.write("\n".join(single) + "\n")
        return
    for r in ranks:
        with open(os.path.join(d, "rank%d.log" % r.rank), "w", newline="\n") as fh:
            fh.write("\n".join(r.lines) + "\n")


def make(rng, world, version):
    return [Rank(i, world, version, rng) for i in range(world)]


def case_healthy(out, rng):
    ranks = make(rng, 4, "2.21.5")
    training(ranks, rng, 40, 0x5C1E2F03A9D4B871)
    for r in ranks:
        r.info("comm 0x%x rank %d nranks %d cudaDev %d busId %x000 - Destroy COMPLETE"
               % (r.comm, r.rank, r.world, r.dev, 0x1b + r.dev * 0x20))
    write_case(out, "healthy", ranks)


def hang_tail(ranks, torch, seq_of, last_enq, last_done, optype="ALLREDUCE",
              who=None):
    for r in ranks:
        if who is not None and r.rank not in who:
            continue
        timeout(r, torch, seq_of)
        status(r, torch, seq_of, last_enq(r), last_done(r))


def case_missing_rank(out, rng):
    # rank 2 never enqueues op 30; the others time out in it (seq 31)
    ranks = make(rng, 4, "2.19.3")
    training(ranks, rng, 31, 0x0A1B2C3D4E5F6071, skip=lambda r, s: r.rank == 2 and s == 30)
    hang_tail(ranks, (2, 5), 31, lambda r: 30 if r.rank == 2 else 31,
              lambda r: 30, who={0, 1, 3})
    write_case(out, "missing-rank", ranks)


def case_lagging_rank(out, rng):
    # rank 3 stops enqueuing at op 20 (stuck in data loading); others reach 24
    ranks = make(rng, 4, "2.20.5")
    training(ranks, rng, 25, 0x1111222233334444, skip=lambda r, s: r.rank == 3 and s >= 21)
    hang_tail(ranks, (2, 7), 22, lambda r: 21 if r.rank == 3 else 25,
              lambda r: 21, who={0, 1, 2})
    write_case(out, "lagging-rank", ranks)


def mutate_at(step, rank, **kw):
    def m(r, s, op, args):
        if r.rank == rank and s == step:
            args.update(kw)
    return m


def case_size_mismatch(out, rng):
    ranks = make(rng, 4, "2.18.6")
    training(ranks, rng, 24, 0x2222333344445555, mutate=mutate_at(20, 1, count=131072))
    hang_tail(ranks, (2, 4), 21, lambda r: 21, lambda r: 20)
    write_case(out, "size-mismatch", ranks)


def case_type_mismatch(out, rng):
    ranks = make(rng, 4, "2.21.5")
    # op 20 is an AllReduce (20 % 4 == 0); rank 2 calls AllGather there
    training(ranks, rng, 24, 0x3333444455556666, mutate=mutate_at(20, 2, op="AllGather"))
    hang_tail(ranks, (2, 6), 21, lambda r: 21, lambda r: 20)
    write_case(out, "type-mismatch", ranks)


def case_dtype_mismatch(out, rng):
    ranks = make(rng, 4, "2.21.5")
    training(ranks, rng, 24, 0x4444555566667777, mutate=mutate_at(20, 3, dtype=9))
    hang_tail(ranks, (2, 6), 21, lambda r: 21, lambda r: 20)
    write_case(out, "dtype-mismatch", ranks)


def case_root_mismatch(out, rng):
    # step 19 is a Broadcast (19 % 4 == 3); rank 1 uses root 1
    ranks = make(rng, 4, "2.21.5")
    training(ranks, rng, 24, 0x5555666677778888, mutate=mutate_at(19, 1, root=1))
    hang_tail(ranks, (2, 6), 20, lambda r: 20, lambda r: 19, optype="BROADCAST")
    write_case(out, "root-mismatch", ranks)


def case_p2p_deadlock(out, rng):
    # ranks 0 and 1 both Send first to each other (both block); 2-rank comm
    ranks = make(rng, 2, "2.19.3")
    for r in ranks:
        init_lines(r, 0x6666777788889999)
    for step in range(10):
        for r in ranks:
            coll(r, "AllReduce", 4096)
    for r in ranks:
        peer = 1 - r.rank
        coll(r, "Send", 1024, root=peer)
    hang_tail(ranks, (2, 6), 11, lambda r: 11, lambda r: 10, optype="SEND")
    write_case(out, "p2p-deadlock", ranks)


def case_rank_crashed(out, rng):
    ranks = make(rng, 4, "2.21.5")
    training(ranks, rng, 20, 0x7777888899990000, skip=lambda r, s: r.rank == 1 and s >= 18)
    r1 = ranks[1]
    r1.warn("enqueue.cc:1558", "Cuda failure 'out of memory'")
    r1.info("enqueue.cc:1558 -> 1")
    r1.lines.append("[rank1]: Traceback (most recent call last):")
    r1.lines.append("[rank1]:   File \"train.py\", line 88, in <module>")
    r1.lines.append("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to "
                    "allocate 2.00 GiB. GPU 1 has a total capacity of 79.10 GiB")
    for r in ranks:
        if r.rank != 1:
            r.warn("misc/socket.cc:71", "socketProgress: Connection closed by remote "
                   "peer node-a<%d>" % (40000 + r.rank))
    hang_tail(ranks, (2, 6), 19, lambda r: 19, lambda r: 18, who={0, 2, 3})
    write_case(out, "rank-crashed", ranks)


def case_network_fault(out, rng):
    ranks = make(rng, 8, "2.23.4")
    # IB errors name peers by the address they bootstrapped on
    for r in ranks:
        r.info("Bootstrap : Using eth0:%s<0>"
               % ("10.1.0.3" if r.host == "node-a" else "10.1.0.6"))
    training(ranks, rng, 16, 0x8888999900001111)
    # rank 5 sees RETRY_EXC naming node-a (ranks 0-3); the rest flush
    for r in ranks:
        if r.rank == 5:
            r.warn("transport/net_ib.cc:1696",
                   "NET/IB: Got completion from peer 10.1.0.3<36123> with status=12 "
                   "opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.1.0.6 "
                   "remoteGids::ffff:10.1.0.3 hca mlx5_1", stamp=None)
            r.info("transport/net.cc:1211 -> 6")
        elif r.rank in (2, 4, 6):
            r.warn("transport/net_ib.cc:1696",
                   "NET/IB: Got completion from peer 10.1.0.%d<36123> with status=5 "
                   "opcode=0 len=0 vendor err 249 (Recv) localGid ::1 remoteGids ::2 "
                   "hca mlx5_0" % (r.rank + 1))
    hang_tail(ranks, (2, 7), 17, lambda r: 17, lambda r: 16)
    write_case(out, "network-fault", ranks)


def case_init_failure(out, rng):
    ranks = make(rng, 4, "2.19.3")
    ranks[3].dev = ranks[2].dev  # LOCAL_RANK mapping bug
    for r in ranks:
        r.info("NCCL version %s+cuda12.2" % r.version)
        r.info("Bootstrap : Using eth0:10.1.0.%d<0>" % (r.rank + 5))
    ranks[3].warn("init.cc:664", "Duplicate GPU detected : rank 3 and rank 2 both "
                  "on CUDA device %x000" % (0x1b + ranks[3].dev * 0x20))
    ranks[3].info("init.cc:1443 -> 5")
    for r in ranks:
        r.lines.append("[rank%d]: torch.distributed.DistBackendError: NCCL error in: "
                       "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
                       "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL "
                       "version 2.19.3" % r.rank)
        r.lines.append("[rank%d]: ncclInvalidUsage: This usually reflects invalid "
                       "usage of NCCL library." % r.rank)
        r.lines.append("[rank%d]: Last error:" % r.rank)
        r.lines.append("[rank%d]: Duplicate GPU detected : rank 3 and rank 2 both on "
                       "CUDA device %x000" % (r.rank, 0x1b + ranks[3].dev * 0x20))
    write_case(out, "init-failure", ranks)


def case_torchrun_interleaved(out, rng):
    # one torchrun --tee file: four local ranks, lines interleaved; rank 3
    # never enqueues op 12 and the others time out (2.28 / torch 2.8)
    ranks = make(rng, 4, "2.28.3")
    training(ranks, rng, 13, 0x9999000011112222, skip=lambda r, s: r.rank == 3 and s == 12)
    hang_tail(ranks, (2, 8), 13, lambda r: 12 if r.rank == 3 else 13,
              lambda r: 12, who={0, 1, 2})
    merged = []
    idx = [0] * len(ranks)
    order = random.Random(SEED + 99)
    while any(idx[i] < len(r.lines) for i, r in enumerate(ranks)):
        i = order.randrange(len(ranks))
        if idx[i] >= len(ranks[i].lines):
            continue
        line = ranks[i].lines[idx[i]]
        idx[i] += 1
        merged.append("[default%d]:%s" % (ranks[i].rank, line))
    merged.append("E0305 14:42:11.123000 3900 torch/distributed/elastic/"
                  "multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 "
                  "(pid: %d) of binary: /usr/bin/python3" % ranks[0].pid)
    write_case(out, "torchrun-interleaved", ranks, single=merged)


def case_restart(out, rng):
    # attempt 1: rank 2 never enqueues op 30, ranks 0,1,3 time out at
    # SeqNum 31; torchrun restarts the worker group; attempt 2 (new pids,
    # new comm) runs 20 collectives and ends cleanly
    ranks = make(rng, 4, "2.19.3")
    training(ranks, rng, 31, 0x0A1B2C3D4E5F6072,
             skip=lambda r, s: r.rank == 2 and s == 30)
    hang_tail(ranks, (2, 5), 31, lambda r: 30 if r.rank == 2 else 31,
              lambda r: 30, who={0, 1, 3})
    for r in ranks:
        r.lines.append("[2025-03-05 14:42:12,001] torch.distributed.elastic."
                       "agent.server.api: [WARNING] Worker group FAILED. "
                       "2/3 attempts left; will restart worker group")
        r.lines.append("[2025-03-05 14:42:12,002] torch.distributed.elastic."
                       "agent.server.api: [INFO] [default] Restarting "
                       "workers (restart 1 of 3)")
        r.pid += 1000
        r.comm += 0x100000
        r.opcount = 0
    training(ranks, rng, 20, 0x0A1B2C3D4E5F6073)
    for r in ranks:
        r.info("comm 0x%x rank %d nranks %d cudaDev %d busId %x000 - Destroy "
               "COMPLETE" % (r.comm, r.rank, r.world, r.dev,
                             0x1b + r.dev * 0x20))
    write_case(out, "restart", ranks)


def init_start(r, comm_id):
    """The Init START line alone: a comm whose setup never completes."""
    r.info("ncclCommInitRankConfig comm 0x%x rank %d nranks %d cudaDev %d "
           "nvmlDev %d busId %x000 commId 0x%016x - Init START"
           % (r.comm, r.rank, r.world, r.dev, r.dev, 0x1b + r.dev * 0x20,
              comm_id))


def case_init_connect_timeout(out, rng):
    """NCCL 2.19+: rank 2's bootstrap connect to rank 3 times out in
    socketPollConnect (the WARN of the class of held-out h6-010)."""
    ranks = make(rng, 4, "2.21.5")
    for r in ranks:
        r.info("NCCL version %s+cuda12.2" % r.version)
        r.info("Bootstrap : Using eth0:10.1.0.%d<0>" % (r.rank + 5))
        init_start(r, 0x3a7f00c21e5d9b44)
    ranks[2].info("misc/socket.cc:551 socketPollConnect: connect returned "
                  "Connection timed out, retrying (1/34) after sleep for 100 msec")
    ranks[2].warn("misc/socket.cc:602", "socketPollConnect poll() failed, ret 1, "
                  "error Connection timed out, revents 8, connect to "
                  "10.1.0.8:41237")
    ranks[2].info("misc/socket.cc:752 -> 6")
    ranks[2].info("bootstrap.cc:276 -> 6")
    ranks[2].info("init.cc:1412 -> 6")
    write_case(out, "init-connect-timeout", ranks)


def case_net_plugin_error(out, rng):
    """aws-ofi-nccl on rank 1 cannot open its address vector while the
    comm is set up (the class of held-out h6-009)."""
    ranks = make(rng, 4, "2.21.5")
    for r in ranks:
        r.info("NCCL version %s+cuda12.2" % r.version)
        r.info("NET/OFI Using aws-ofi-nccl 1.9.1")
        r.info("NET/OFI Selected Provider is efa (found 4 nics)")
        init_start(r, 0x6b02d9e4c7a13f58)
    ranks[1].warn("nccl_ofi_net.c:459", "NET/OFI Couldn't open AV. RC: -22, "
                  "ERROR: Invalid argument")
    ranks[1].info("include/net.h:24 -> 2")
    ranks[1].info("transport/net.cc:604 -> 2")
    write_case(out, "net-plugin-error", ranks)


CASES = [case_healthy, case_missing_rank, case_lagging_rank, case_size_mismatch,
         case_type_mismatch, case_dtype_mismatch, case_root_mismatch,
         case_p2p_deadlock, case_rank_crashed, case_network_fault,
         case_init_failure, case_torchrun_interleaved, case_restart,
         case_init_connect_timeout, case_net_plugin_error]


def bench(path, megabytes, ranks=8):
    """One big COLL log: ranks interleaved per line, like a merged job log."""
    rng = random.Random(SEED)
    rs = make(rng, ranks, "2.21.5")
    target = megabytes << 20
    with open(path, "w") as fh:
        for r in rs:
            r.lines = []
            init_lines(r, 0x5C1E2F03A9D4B871)
            fh.write("\n".join(r.lines) + "\n")
        written = 0
        step = 0
        while written < target:
            chunk = []
            for _ in range(256):
                op = OPS[step % 4]
                for r in rs:
                    chunk.append("%sNCCL INFO %s: opCount %x sendbuff 0x7f00aa000000 "
                                 "recvbuff 0x7f00aa000000 count %d datatype 7 op 0 "
                                 "root 0 comm 0x%x [nranks=%d] stream 0x55e0c1c8f7a0"
                                 % (r.hpt, op, step, 262144, r.comm, ranks))
                step += 1
            s = "\n".join(chunk) + "\n"
            fh.write(s)
            written += len(s)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--bench":
        bench(sys.argv[2], int(sys.argv[3]))
        return
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "nccl")
    for i, case in enumerate(CASES):
        case(out, random.Random(SEED + i))


if __name__ == "__main__":
    main()
