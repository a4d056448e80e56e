#!/usr/bin/env python3
"""Writes a 1,024-rank c10d incident for the report tests, byte-reproducibly.

One torchrun-style stderr log for all ranks (128 hosts of 8 GPUs), gzipped
with a fixed mtime: every rank but 341 times out in all_reduce 38 of PG 0
with "last enqueued work: 38, last completed work: 37"; rank 341 only
reports, on a dump signal, that it enqueued and completed 37.  Expected
verdict: missing_rank, rank 341 (tests/data/scale/README.md).

    scripts/gen-scale-incident.py OUTDIR     # OUTDIR/missing-rank-1024/
Standard library only.
"""
import gzip
import os
import sys

NRANKS = 1024
CULPRIT = 341
PG = "[PG ID 0 PG GUID 0(default_pg) Rank %d]"


def lines():
    for r in range(NRANKS):
        host = "node-%03d" % (r // 8)
        pid = 4000 + r
        yield ("[default%d]:%s:%d:%d [%d] NCCL INFO ncclCommInitRankConfig "
               "comm 0x5600d0a%05x rank %d nranks %d cudaDev %d nvmlDev %d "
               "busId %d8000 commId 0x5c1e2f03a9d4b871 - Init COMPLETE"
               % (r % 8, host, pid, pid, r % 8, r, r, NRANKS, r % 8, r % 8,
                  r % 8))
    for r in range(NRANKS):
        stamp = "E1121 03:22:%02d.%09d" % (44 + r % 10, 123456789 + r)
        pre = "[default%d]:[rank%d]:[%s " % (r % 8, r, stamp)
        pg = PG % r
        if r == CULPRIT:
            yield (pre + "ProcessGroupNCCL.cpp:1664] " + pg + " Received a "
                   "dump signal due to a collective timeout from  rank 0 "
                   "and we will try our best to dump the debug info. Last "
                   "enqueued NCCL work: 37, last completed NCCL work: 37.")
            continue
        yield (pre + "ProcessGroupNCCL.cpp:632] " + pg + " Watchdog caught "
               "collective operation timeout: WorkNCCL(SeqNum=38, "
               "OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, "
               "Timeout(ms)=600000) ran for 600041 milliseconds before "
               "timing out.")
        yield (pre + "ProcessGroupNCCL.cpp:2168] " + pg + "  failure "
               "detected by watchdog at work sequence id: 38 PG status: "
               "last enqueued work: 38, last completed work: 37")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = os.path.join(sys.argv[1], "missing-rank-1024")
    os.makedirs(d, exist_ok=True)
    data = ("\n".join(lines()) + "\n").encode()
    with open(os.path.join(d, "torchrun.log.gz"), "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0,
                           compresslevel=9) as z:
            z.write(data)


if __name__ == "__main__":
    main()
