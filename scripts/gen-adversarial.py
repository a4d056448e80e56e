#!/usr/bin/env python3
"""Inputs whose cost, not whose verdict, is the attack (issue 20).

  gen-adversarial.py anon OUT N      N hosts, one COLL line each, no Init
                                     lines: N processes of unknown rank
                                     (gzip when OUT ends in .gz)
  gen-adversarial.py comms OUT N     one process, N comms whose pointers
                                     share their low 32 bits, one COLL line
                                     each (gzip)
  gen-adversarial.py kineto OUT N    a profiler trace of N kernels on N
                                     streams, no collective metadata, as
                                     many record_param_comms on another
                                     thread, correlation ids i << 32 (gzip)
  gen-adversarial.py nranks OUT N    N comms, each claiming 4194304 ranks
  gen-adversarial.py ranks DIR N     N ranks named only by mpirun's
                                     "[1,N]<stdout>:" labels, one log per
                                     shape (gzip): c10d watchdog status lines,
                                     ProcessGroupWrapper fingerprints,
                                     torchrun exits, monitoredBarrier lines
                                     (scripts/bench-ranks.sh times them)
  gen-adversarial.py kernel DIR N    a job of 4096 ranks on 512 hosts
                                     (DIR/job.log: Init and NET/IB lines)
                                     and one host's dmesg with an Xid
                                     storm and a flapping port, N lines
                                     each (DIR/hosts/node-0007/dmesg.txt)

The tests run them under ulimit (tests/cli/adversarial-cost.sh);
scripts/bench-adversarial.sh times them against an older binary.
Deterministic: the same arguments give the same bytes.
"""
import gzip
import json
import os
import sys

COLL = ("{host}:{pid}:{pid} [{dev}] NCCL INFO AllReduce: opCount {oc:x} "
        "sendbuff 0x7f00aa000000 recvbuff 0x7f00aa000000 count {count} "
        "datatype 7 op 0 root 0 comm 0x{comm:x} [nranks=8] "
        "stream 0x55e0c1c8f7a0\n")


def write(out, text):
    """Writes text to out, gzipped (reproducibly) when out ends in .gz."""
    if out.endswith(".gz"):
        with gzip.GzipFile(out, "wb", mtime=0) as f:
            f.write(text.encode())
    else:
        with open(out, "w") as f:
            f.write(text)


def anon(out, n):
    # every process at its own opCount
    write(out, "".join(COLL.format(host="node-%d" % i, pid=4000, dev=0,
                                   oc=i, count=1024, comm=0x5600d0a10000)
                       for i in range(n)))


def comms(out, n):
    lines = [COLL.format(host="node-a", pid=4000, dev=0, oc=0, count=1024,
                         comm=(i + 1) << 32 | 0x0a10) for i in range(n)]
    # no Init lines: each comm is new when its first COLL is read
    with gzip.GzipFile(out, "wb", mtime=0) as f:
        f.write("".join(lines).encode())


def kineto(out, n):
    events = []
    t = 1000
    for i in range(n):
        corr = (i + 1) << 32
        events.append({"ph": "X", "cat": "cuda_runtime",
                       "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                       "ts": t, "dur": 2, "args": {"correlation": corr}})
        events.append({"ph": "X", "cat": "kernel",
                       "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                       "pid": 0, "tid": 7 + i, "ts": t + 5, "dur": 3,
                       "args": {"correlation": corr, "stream": 7 + i,
                                "device": 0}})
        # a record_param_comms without metadata on another thread
        events.append({"ph": "X", "cat": "cpu_op",
                       "name": "record_param_comms", "pid": 100,
                       "tid": 101, "ts": t + 1, "dur": 1,
                       "args": {"External id": i + 1}})
        t += 10
    trace = {"schemaVersion": 1, "distributedInfo": {"rank": 0,
             "world_size": 2, "backend": "nccl"},
             "traceEvents": events}
    with gzip.GzipFile(out, "wb", mtime=0) as f:
        f.write(json.dumps(trace).encode())


def nranks(out, n):
    with open(out, "w") as f:
        f.write("node-a:4000:4000 [0] NCCL INFO NCCL version 2.19.3+cuda12.2\n")
        for i in range(n):
            ptr = 0x5600d0a10000 + i * 0x1000
            f.write("node-a:4000:4000 [0] NCCL INFO comm 0x%x rank %d "
                    "nranks 4194304 cudaDev 0 nvmlDev 0 busId 1b000 commId "
                    "0x%016x - Init COMPLETE\n" % (ptr, 4194300 - i,
                                                     0xabc000 + i))
            f.write(COLL.format(host="node-a", pid=4000, dev=0, oc=0,
                                count=1024, comm=ptr))


def kernel(out, n):
    ranks = 4096
    os.makedirs(os.path.join(out, "hosts", "node-0007"), exist_ok=True)
    with open(os.path.join(out, "job.log"), "w") as f:
        for r in range(ranks):
            p = "node-%04d:%d:%d [%d] NCCL INFO " % (r // 8, 10000 + r,
                                                    10000 + r, r % 8)
            f.write(p + "NET/IB : Using [0]mlx5_%d:1/IB ; OOB "
                    "eth0:10.0.%d.%d<0>\n" % (r % 8, r // 256, r % 256))
            f.write(p + "ncclCommInitRankConfig comm 0x%x rank %d nranks "
                    "%d cudaDev %d nvmlDev %d busId %x000 commId "
                    "0x1234567812345678 - Init COMPLETE\n"
                    % (0x5600000000 + r * 16, r, ranks, r % 8, r % 8,
                       0x1b + (r % 8) * 0x20))
    with open(os.path.join(out, "hosts", "node-0007", "dmesg.txt"),
              "w") as f:
        f.write("[    0.000000] Linux version 6.5.0\n")
        for i in range(n):
            t = "[%d.%06d] " % (1000 + i // 1000, i % 1000000)
            f.write(t + "NVRM: Xid (PCI:0000:%02x:00): 13, "
                    "pid='<unknown>', name=<unknown>, Graphics Exception\n"
                    % (0x1b + (i % 8) * 0x20))
            f.write(t + "mlx5_core 0000:4c:00.0 mlx5_%d: Port: 1 Link "
                    "DOWN\n" % (i % 8))


def ranks(out, n):
    os.makedirs(out, exist_ok=True)
    shapes = {
        "status": "[rank{r}]:[E1121 03:22:44.1 ProcessGroupNCCL.cpp:1] "
                  "[PG ID 0 PG GUID 0(default_pg) Rank {r}]  failure "
                  "detected by watchdog at work sequence id: {s} PG "
                  "status: last enqueued work: {s}, last completed work: "
                  "{c}\n",
        "pgwrapper": "RuntimeError: Detected mismatch between collectives "
                     "on ranks. Rank {r} is running collective: "
                     "CollectiveFingerPrint(SequenceNumber=5, "
                     "OpType=ALLREDUCE, TensorShape=[{r}], "
                     "TensorDtypes=Float), but Rank 0 is running "
                     "collective: CollectiveFingerPrint(SequenceNumber=5, "
                     "OpType=BROADCAST, TensorShape=[1], "
                     "TensorDtypes=Float).\n",
        "exit": "E0921 17:48:55.902000 5521 api.py:869] failed (exitcode: "
                "-9) local_rank: {r} (pid: {pid}) of binary: /bin/python3\n",
        "barrier": "RuntimeError: [Rank {r}]: Rank {nxt} failed to pass "
                   "monitoredBarrier in 6 ms\n",
    }
    for name, fmt in shapes.items():
        write(os.path.join(out, name + ".log.gz"), "".join(
            "[1,%d]<stdout>:" % r + fmt.format(
                r=r, s=38 + r % 2, c=37 + r % 2, pid=5000 + r,
                nxt=(r + 1) % n) for r in range(n)))


if __name__ == "__main__":
    mode, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"anon": anon, "comms": comms, "kineto": kineto,
     "nranks": nranks, "kernel": kernel, "ranks": ranks}[mode](out, n)
