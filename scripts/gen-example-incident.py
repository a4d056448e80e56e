#!/usr/bin/env python3
"""Writes testdata/example-incident: the incident README's first command runs.

An 8-rank job on two nodes (torch ~2.5, NCCL 2.21.5) hangs: rank 5 is stuck
in its data loader and never enqueues all_reduce seq 38 of the default PG.
The other seven ranks enqueue it, time out after 10 minutes and dump their
flight recorders; rank 5 dumps on the peer's signal.  torchrun then reports
rank 0 as the "Root Cause" (the first to exit, by SIGABRT from its own
watchdog), which is not the culprit.

What is left behind, as a user would copy it off the cluster:
  logs/node-a.log     torchrun --tee output of ranks 0-3 (NCCL INFO + c10d)
  logs/node-b.log.gz  the same for ranks 4-7, gzipped
  fr/nccl_trace_rank_N  one flight-recorder pickle per rank

One clock story (tests/unit/check_engine.c checks it): the nodes keep
UTC as their local time.  Seq 1-37 complete from 2026-11-21 03:12:43 UTC
(the dumps' time_created_ns); seq 38 is enqueued right after, and ten
minutes later (Timeout(ms)=600000) the watchdogs fire at 03:22:44-47
(glog "E1121", no year: torchrun's dated "time :" line gives it); torchrun
sees rank 0 exit at 03:22:50 and reports at 03:22:51.

With --crashed, the same incident as left behind when rank 5's process
died while the others waited (tests/data/crash/faulthandler-only-rank5):
rank 5 wrote no flight-recorder dump and printed no dump-signal line, and
its only output after its Init line is a Python faulthandler dump
(Segmentation fault in its data loader) in rank5-stderr.log.  node-b.log
is not gzipped.

Usage: gen-example-incident.py [--crashed] OUTDIR   (byte-reproducible)
"""
import gzip
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "genfr", os.path.join(HERE, "gen-fr-dumps.py"))
genfr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(genfr)

NRANKS = 8
STUCK = 5
SEQ = 38          # the all_reduce rank 5 never enqueues
COMM_ID = 0x5C1E2F03A9D4B871
HOSTS = ["node-a", "node-b"]
# 2026-11-21 03:12:43 UTC: the first dumped entry
T0 = 1795230763 * 1000000000


# rank 5's last words when it crashed (faulthandler, torchrun's prefix)
FAULTHANDLER = """\
[rank5]:Fatal Python error: Segmentation fault
[rank5]:
[rank5]:Thread 0x00007f3a9c7fe640 (most recent call first):
[rank5]:  File "/usr/lib/python3.10/threading.py", line 324 in wait
[rank5]:  File "/usr/lib/python3.10/threading.py", line 607 in wait
[rank5]:
[rank5]:Current thread 0x00007f3b2e1a7740 (most recent call first):
[rank5]:  File "/srv/train/data/shard_loader.py", line 211 in fetch_next_batch
[rank5]:  File "/srv/train/data/shard_loader.py", line 96 in __next__
[rank5]:  File "/srv/train/train.py", line 85 in train_step
[rank5]:  File "/srv/train/train.py", line 120 in main
[rank5]:
[rank5]:Extension modules: numpy.core._multiarray_umath, torch._C (total: 2)
"""


def fr_dumps(out, crashed=False):
    for r in range(NRANKS):
        if crashed and r == STUCK:
            continue
        rk = genfr.Rank(r, genfr.world(NRANKS), "2.5", t0=T0)
        for s in range(1, SEQ):
            if s % 6 == 0:
                rk.op("0", "_all_gather_base", [[1024]], [[8192]],
                      dtype="BFloat16")
            else:
                rk.op("0", "all_reduce", [[4096, 1024]], [[4096, 1024]],
                      dtype="BFloat16")
        if r != STUCK:
            rk.op("0", "all_reduce", [[4096, 1024]], [[4096, 1024]],
                  dtype="BFloat16", state="scheduled")
        genfr.write(os.path.join(out, "fr", "nccl_trace_rank_%d" % r),
                    rk.pickle(keep=24))


def prefix(local, rank=None):
    p = "[default%d]:" % local
    return p + ("[rank%d]:" % rank if rank is not None else "")


def node_log(node, crashed=False):
    host = HOSTS[node]
    lines = []
    for local in range(4):
        r = node * 4 + local
        pid = 4242 + r
        lines.append(prefix(local) + "%s:%d:%d [%d] NCCL INFO Bootstrap : "
                     "Using eth0:10.1.0.%d<0>" % (host, pid, pid, local,
                                                  5 + node))
        if r == 0:
            lines.append(prefix(local) + "NCCL version 2.21.5+cuda12.4")
        lines.append(prefix(local) + "%s:%d:%d [%d] NCCL INFO "
                     "ncclCommInitRankConfig comm 0x5600d0a1b%03x rank %d "
                     "nranks %d cudaDev %d nvmlDev %d busId %x000 commId "
                     "0x%x - Init COMPLETE" % (
                         host, pid, pid, local, r, r, NRANKS, local, local,
                         0x18 + 0x20 * local, COMM_ID))
    lines.append("[default0]:step 36 loss 2.4417 (1.02 s/it)")
    for local in range(4):
        r = node * 4 + local
        t = "[E1121 03:%02d:%02d.%09d ProcessGroupNCCL.cpp:632] " % (
            22, 44 + local, 123456789 + r)
        pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d] " % r
        if r == STUCK and crashed:
            continue
        if r == STUCK:
            lines.append(prefix(local, r) + t.replace("632", "1664") + pg +
                         "Received a dump signal due to a collective "
                         "timeout from  rank 0 and we will try our best to "
                         "dump the debug info. Last enqueued NCCL work: %d, "
                         "last completed NCCL work: %d.This is most likely "
                         "caused by incorrect usages of collectives, e.g., "
                         "wrong sizes used across ranks, the order of "
                         "collectives is not same for all ranks or the "
                         "scheduled collective, for some reason, didn't "
                         "run. Additionally, this can be caused by GIL "
                         "deadlock or other reasons such as network "
                         "errors or bugs in the communications library "
                         "(e.g. NCCL), etc." % (SEQ - 1, SEQ - 1))
            continue
        lines.append(prefix(local, r) + t + pg + "Watchdog caught collective "
                     "operation timeout: WorkNCCL(SeqNum=%d, "
                     "OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, "
                     "Timeout(ms)=600000) ran for 600041 milliseconds before "
                     "timing out." % SEQ)
        lines.append(prefix(local, r) + t.replace("632", "2168") + pg +
                     " failure detected by watchdog at work sequence id: %d "
                     "PG status: last enqueued work: %d, last completed "
                     "work: %d" % (SEQ, SEQ, SEQ - 1))
    if node == 0:
        lines += [
            "E1121 03:22:51.204000 4200 torch/distributed/elastic/"
            "multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 "
            "(pid: 4242) of binary: /usr/bin/python3",
            "torch.distributed.elastic.multiprocessing.errors."
            "ChildFailedError:",
            "============================================================",
            "train.py FAILED",
            "------------------------------------------------------------",
            "Failures:",
            "  <NO_OTHER_FAILURES>",
            "------------------------------------------------------------",
            "Root Cause (first observed failure):",
            "[0]:",
            "  time      : 2026-11-21_03:22:50",
            "  host      : node-a",
            "  rank      : 0 (local_rank: 0)",
            "  exitcode  : -6 (pid: 4242)",
            "  error_file: <N/A>",
            "  traceback : Signal 6 (SIGABRT) received by PID 4242",
            "============================================================",
        ]
    return ("\n".join(lines) + "\n").encode()


def main():
    args = sys.argv[1:]
    crashed = args[:1] == ["--crashed"]
    if crashed:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    fr_dumps(out, crashed)
    genfr.write(os.path.join(out, "logs", "node-a.log"), node_log(0))
    if not crashed:
        genfr.write(os.path.join(out, "logs", "node-b.log.gz"),
                    gzip.compress(node_log(1), mtime=0))
        return
    genfr.write(os.path.join(out, "logs", "node-b.log"),
                node_log(1, crashed))
    genfr.write(os.path.join(out, "rank5-stderr.log"),
                FAULTHANDLER.encode())


if __name__ == "__main__":
    main()
