#!/usr/bin/env python3
"""Generate synthetic multi-rank PyTorch-profiler (Kineto) Chrome traces.

Each rank runs the same sequence of blocking collectives.  In truth every
collective ends at the same instant on all ranks; it starts when the rank
arrives, so a straggler (--straggler R --lag-us X, in --straggle-frac of the
collectives) starts late and has the shortest kernel.  Then each host's
clock is shifted by its offset (--offset HOST:US), which moves every
timestamp of that host: a correct tool must undo it, not blame it.

Timestamp eras (format-kineto-trace.md section 3): A integer us since the
epoch, B fractional us since the epoch, C us relative to
baseTimeNanoseconds (written after traceEvents, as real files may).
--filler N adds N non-comm events per collective (for benchmarks).

Standard library only; .zst output uses the zstd command-line tool.
"""
import argparse
import gzip
import os
import random
import subprocess
import sys

KNAME = {
    "allreduce": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "allgather": "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "broadcast": "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
}
ANNOT = {"allreduce": "nccl:all_reduce", "allgather": "nccl:_all_gather_base",
         "broadcast": "nccl:broadcast"}
BASE_NS = 1714000000 // 7889238 * 7889238 * 1000000000  # floored base, era C


def fmt_ts(ns, era):
    """Renders an absolute ns time as the era's ts text (us)."""
    if era == "A":
        return "%d" % (ns // 1000)
    if era == "B":
        return "%d.%03d" % (ns // 1000, ns % 1000)
    rel = ns - BASE_NS
    return "%d.%03d" % (rel // 1000, rel % 1000)


def fmt_dur(ns, era):
    if era == "A":
        return "%d" % (ns // 1000)
    return "%d.%03d" % (ns // 1000, ns % 1000)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--ranks-per-host", type=int, default=1)
    ap.add_argument("--colls", type=int, default=12)
    ap.add_argument("--straggler", type=int, default=-1)
    ap.add_argument("--lag-us", type=float, default=0)
    ap.add_argument("--straggle-frac", type=float, default=1.0)
    ap.add_argument("--offset", action="append", default=[],
                    help="HOST:US clock offset of host index HOST")
    ap.add_argument("--era", choices="ABC", default="C")
    ap.add_argument("--meta", choices=["full", "none"], default="full")
    ap.add_argument("--compress", choices=["none", "gz", "zst"], default="none")
    ap.add_argument("--filler", type=int, default=0)
    ap.add_argument("--only-rank", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    offs = {}
    for o in a.offset:
        h, us = o.split(":")
        offs[int(h)] = int(float(us) * 1000)
    os.makedirs(a.out, exist_ok=True)
    kinds = ["allreduce", "allgather", "broadcast"]
    t0 = 1714003000 * 10**9 + 123456789
    # True arrival and end times per collective and rank.
    sched = []
    t = t0
    for i in range(a.colls):
        kind = kinds[i % 3] if a.meta == "full" else "allreduce"
        late = rnd.random() < a.straggle_frac
        starts = []
        for r in range(a.ranks):
            s = t + rnd.randint(0, 20000)
            if r == a.straggler and late:
                s += int(a.lag_us * 1000)
            starts.append(s)
        end = max(starts) + 200000 + rnd.randint(0, 50000)
        ends = [end + rnd.randint(0, 1500) for _ in range(a.ranks)]
        sched.append((kind, starts, ends, 1024 * (i % 4 + 1)))
        t = end + 2000000
    for r in range(a.ranks):
        if a.only_rank >= 0 and r != a.only_rank:
            continue
        host = r // a.ranks_per_host
        off = offs.get(host, 0)
        write_rank(a, r, host, off, sched)


def write_rank(a, r, host, off, sched):
    era = a.era
    pid, tid = 4000 + r, 4000 + r
    ev = []
    corr = 1000
    ext = 500
    ranks = "[%s]" % ", ".join(str(i) for i in range(a.ranks))
    filler_cpu = ('{"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": %d, "tid": %d, '
                  '"ts": %s, "dur": 3, "args": {"External id": %d, "Record function id": 0, '
                  '"Ev Idx": %d, "Input Dims": [[4096, 1024], [4096, 1024]], '
                  '"Input type": ["float", "float"], "Concrete Inputs": ["", ""]}}')
    filler_k = ('{"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, '
                'at::native::MulFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::MulFunctor<float>, '
                'at::detail::Array<char*, 3>)", "pid": 0, "tid": 7, "ts": %s, "dur": 12.5, "args": '
                '{"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, '
                '"registers per thread": 16, "shared memory": 0, "blocks per SM": 1.2, "warps per SM": 4.5, '
                '"grid": [8192, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %%": 100}}')
    for seq, (kind, starts, ends, n) in enumerate(sched):
        st = starts[r] + off
        en = ends[r] + off
        enq = st - 60000
        corr += 1
        ext += 1
        meta = ""
        if a.meta == "full":
            meta = ('"Collective name": "%s", "In msg nelems": %d, "Out msg nelems": %d, '
                    '"Group size": %d, "dtype": "Float", "In split size": "[]", "Out split size": "[]", '
                    '"Process Group Name": "0", "Process Group Description": "default_pg", '
                    '"Process Group Ranks": "%s", "Seq": %d, '
                    % (kind, n, n * a.ranks if kind == "allgather" else n, a.ranks, ranks, seq + 1))
        ev.append('{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": %d, "tid": %d, '
                  '"ts": %s, "dur": %s, "args": {%s"External id": %d, "Ev Idx": %d}}'
                  % (pid, tid, fmt_ts(enq, era), fmt_dur(40000, era), meta, ext, seq))
        ev.append('{"ph": "X", "cat": "user_annotation", "name": "%s", "pid": %d, "tid": %d, '
                  '"ts": %s, "dur": %s, "args": {"External id": %d, "Input Dims": [[%d]], "Input type": ["float"]}}'
                  % (ANNOT[kind], pid, tid, fmt_ts(enq + 5000, era), fmt_dur(30000, era), ext + 10000, n))
        ev.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": %d, "tid": %d, '
                  '"ts": %s, "dur": %s, "args": {"External id": %d, "cbid": 430, "correlation": %d}}'
                  % (pid, tid, fmt_ts(enq + 10000, era), fmt_dur(8000, era), ext, corr))
        kargs = '"External id": %d, "device": 0, "stream": 52, "correlation": %d' % (ext, corr)
        if a.meta == "full":
            kargs += ", " + meta.rstrip(", ")
        ev.append('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 52, "ts": %s, "dur": %s, '
                  '"args": {%s}}' % (KNAME[kind], fmt_ts(st, era), fmt_dur(en - st, era), kargs))
        ev.append('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"}'
                  % (corr, pid, tid, fmt_ts(enq + 10000, era)))
        for j in range(a.filler):
            corr += 1
            ft = st + 1000 * j
            if j % 2:
                ev.append(filler_k % (fmt_ts(ft, era), corr, corr))
            else:
                ev.append(filler_cpu % (pid, tid, fmt_ts(ft, era), corr, j))
    ev.append('{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": %s}'
              % fmt_ts(sched[-1][2][r] + off + 1000, era))
    head = ['{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "numSms": 132}],',
            '  "host_name": "node-%d",' % host]
    di = '{"backend": "nccl", "rank": %d, "world_size": %d' % (r, a.ranks)
    if a.meta == "full":
        di += (', "pg_count": 1, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", '
               '"backend_config": "cuda:nccl", "pg_size": %d, "ranks": %s}], "nccl_version": "2.21.5"'
               % (a.ranks, ranks.replace(" ", "")))
    di += "}"
    head.append('  "distributedInfo": %s,' % di)
    body = '  "traceEvents": [\n  ' + ",\n  ".join(ev) + "\n  ]"
    tail = ""
    if era == "C":
        tail = ',\n  "baseTimeNanoseconds": %d' % BASE_NS
    doc = "\n".join(head) + "\n" + body + tail + ',\n  "traceName": "rank%d.pt.trace.json"\n}\n' % r
    path = os.path.join(a.out, "rank%d.pt.trace.json" % r)
    data = doc.encode()
    if a.compress == "gz":
        with gzip.GzipFile(path + ".gz", "wb", compresslevel=6, mtime=0) as f:
            f.write(data)
    elif a.compress == "zst":
        subprocess.run(["zstd", "-q", "-f", "-o", path + ".zst"], input=data, check=True)
    else:
        with open(path, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    sys.exit(main())
