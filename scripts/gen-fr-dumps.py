#!/usr/bin/env python3
"""Writes flight-recorder fixtures for hangdoc, byte-reproducibly.

The pickles use the opcode stream of PyTorch's C++ pickler (see
docs/format-flight-recorder.md section 2): PROTO 2, EMPTY_DICT + MARK ..
SETITEMS and EMPTY_LIST + MARK .. APPENDS always, BINUNICODE for every str,
strings memoized by value (BINPUT/LONG_BINPUT, then BINGET/LONG_BINGET),
containers memoized only when shared (frame dicts), BININT1/BININT2/BININT
by value (-1 as BININT), LONG1 with 8 bytes for every *_ns, big-endian
BINFLOAT, NEWTRUE/NEWFALSE, NONE, TUPLE2, and a final BINPUT of the top
dict before STOP.  The JSON variant follows section 3.6.

Usage:
  gen-fr-dumps.py fixtures OUTDIR      # tests/data/fr/<case>/...
  gen-fr-dumps.py bench OUTDIR NRANKS NENTRIES [--links | --stride K]
  gen-fr-dumps.py bench-jitter OUTDIR NRANKS NENTRIES   # times off by
                                                        # up to 200 us
Standard library only.
"""

import json
import os
import struct
import sys

T0 = 1700000000000000000  # fixed clock: no current time in fixtures


class Pickler:
    def __init__(self, shared=()):
        self.out = bytearray(b"\x80\x02")
        self.memo = {}  # str -> memo id
        self.objs = {}  # id(shared container) -> memo id
        self.shared = set(id(o) for o in shared)
        self.next = 0

    def put(self):
        i = self.next
        self.next += 1
        if i < 256:
            self.out += b"q" + bytes([i])
        else:
            self.out += b"r" + struct.pack("<I", i)
        return i

    def get(self, i):
        if i < 256:
            self.out += b"h" + bytes([i])
        else:
            self.out += b"j" + struct.pack("<I", i)

    def str(self, s):
        if s in self.memo:
            self.get(self.memo[s])
            return
        b = s.encode()
        self.out += b"X" + struct.pack("<I", len(b)) + b
        self.memo[s] = self.put()

    def int(self, v):
        if 0 <= v < 256:
            self.out += b"K" + bytes([v])
        elif 256 <= v < 65536:
            self.out += b"M" + struct.pack("<H", v)
        elif -(2**31) <= v < 2**31:
            self.out += b"J" + struct.pack("<i", v)
        else:
            self.long8(v)

    def long8(self, v):
        self.out += b"\x8a\x08" + struct.pack("<q", v)

    def value(self, v, key=None):
        if v is None:
            self.out += b"N"
        elif v is True:
            self.out += b"\x88"
        elif v is False:
            self.out += b"\x89"
        elif isinstance(v, int):
            if key is not None and key.endswith("_ns"):
                self.long8(v)
            else:
                self.int(v)
        elif isinstance(v, float):
            self.out += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            self.str(v)
        elif isinstance(v, tuple):
            assert len(v) == 2
            self.value(v[0])
            self.value(v[1])
            self.out += b"\x86"
        elif isinstance(v, (dict, list)):
            if id(v) in self.objs:
                self.get(self.objs[id(v)])
                return
            if isinstance(v, dict):
                self.out += b"}("
                for k, x in v.items():
                    self.str(k)
                    self.value(x, k)
                self.out += b"u"
            else:
                self.out += b"]("
                for x in v:
                    self.value(x)
                self.out += b"e"
            if id(v) in self.shared:
                self.objs[id(v)] = self.put()
        else:
            raise TypeError(type(v))

    def dump(self, top):
        self.value(top)
        self.put()
        self.out += b"."
        return bytes(self.out)


# Frames shared between entries, innermost first.
FR_C10D = {"name": "all_reduce", "filename":
           "/opt/torch/distributed/distributed_c10d.py", "line": 2501}
FR_AG = {"name": "all_gather_into_tensor", "filename":
         "/opt/torch/distributed/distributed_c10d.py", "line": 3310}
FR_P2P = {"name": "send", "filename":
          "/opt/torch/distributed/distributed_c10d.py", "line": 2001}
FR_STEP = {"name": "train_step", "filename": "train.py", "line": 88}
FR_MAIN = {"name": "main", "filename": "train.py", "line": 120}
SHARED = [FR_C10D, FR_AG, FR_P2P, FR_STEP, FR_MAIN]


def frames_for(op):
    head = FR_AG if "gather" in op else FR_P2P if op in ("send", "recv") \
        else FR_C10D
    return [head, FR_STEP, FR_MAIN]


class Rank:
    """One rank's recorder: a ring of entries over its PGs."""

    def __init__(self, rank, pgs, version="2.8", frames=True, timing=False,
                 thread=False, t0=T0):
        self.rank = rank
        self.t0 = t0  # UTC ns of its first entry
        self.pgs = pgs  # name -> (desc, [ranks]) this rank belongs to
        self.pg_ids = {n: i for i, n in enumerate(sorted(pgs, key=_pgkey))}
        self.version = version
        self.frames = frames
        self.timing = timing
        self.thread = thread
        self.jitter = 0  # ns: each time off by up to this, as real ones are
        self.entries = []
        self.coll = {n: 0 for n in pgs}
        self.p2p = {n: 0 for n in pgs}
        self.opid = {n: 0 for n in pgs}
        self.status = {}

    def _jit(self, rid, k):
        """Deterministic noise in [0, jitter): splitmix64 of rank, entry
        and k, so that no two times' offsets are related (an LCG's are:
        its steps are even, and a compressor finds them)."""
        if not self.jitter:
            return 0
        m = 0xffffffffffffffff
        x = ((self.rank << 32) ^ (rid << 2) ^ k) & m
        x = (x + 0x9e3779b97f4a7c15) & m
        x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & m
        x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & m
        return (x ^ (x >> 31)) % self.jitter

    def op(self, pg, name, ins, outs, dtype="Float", state="completed",
           p2p=False, same_seq=False, in_dt=None, out_dt=None,
           backend="nccl"):
        if p2p:
            if not same_seq:
                self.p2p[pg] += 1
        elif not same_seq:
            self.coll[pg] += 1
        self.opid[pg] += 1
        rid = len(self.entries)
        t = self.t0 + rid * 1000000 + self.rank * 1000 + self._jit(rid, 0)
        opname = name.split(" ")[0]
        e = {}
        if self.frames:
            e["frames"] = frames_for(opname)
        e["record_id"] = rid
        e["pg_id"] = self.pg_ids[pg]
        e["process_group"] = (pg, self.pgs[pg][0])
        e["collective_seq_id"] = 0 if p2p else self.coll[pg]
        e["p2p_seq_id"] = self.p2p[pg] if p2p else 0
        e["op_id"] = self.opid[pg]
        e["profiling_name"] = backend + ":" + name
        e["time_created_ns"] = t
        if self.timing and state == "completed":
            e["duration_ms"] = 0.25
        e["input_sizes"] = ins
        e["output_sizes"] = outs
        e["input_dtypes"] = in_dt if in_dt is not None else [dtype] * len(ins)
        e["output_dtypes"] = (out_dt if out_dt is not None
                              else [dtype] * len(outs))
        e["state"] = state
        e["time_discovered_started_ns"] = (
            t + 500 if state != "scheduled" and self.timing else None)
        e["time_discovered_completed_ns"] = (
            t + 900000 + self._jit(rid, 1) if state == "completed"
            else None)
        e["retired"] = state == "completed"
        e["timeout_ms"] = 600000
        e["is_p2p"] = p2p
        if self.thread:
            e["thread_id"] = str(140000000000000 + self.rank)
            e["thread_name"] = "pt_main_thread"
        self.entries.append(e)
        if not p2p:
            st = self.status.setdefault(pg, [-1, -1, -1])
            st[0] = self.coll[pg]
            if state == "completed":
                st[2] = self.coll[pg]
            if self.timing and state != "scheduled":
                st[1] = self.coll[pg]
        return e

    def top(self, keep=None):
        entries = self.entries if keep is None else self.entries[-keep:]
        cfg = {}
        for n in sorted(self.pgs, key=_pgkey):
            d, r = self.pgs[n]
            cfg[n] = {"name": n, "desc": d,
                      "ranks": "[" + ", ".join(map(str, r)) + "]"}
        top = {"version": self.version, "pg_config": cfg}
        v = tuple(int(x) for x in self.version.split("."))
        if v >= (2, 10):
            top["comm_lib_version"] = "2.21.5"
        elif v >= (2, 6):
            top["nccl_version"] = "2.21.5"
        top["pg_status"] = {
            str(self.pg_ids[n]): {
                "last_enqueued_collective": s[0],
                "last_started_collective": s[1],
                "last_completed_collective": s[2]}
            for n, s in sorted(self.status.items(),
                               key=lambda kv: self.pg_ids[kv[0]])}
        top["entries"] = entries
        return top

    def pickle(self, keep=None):
        return Pickler(SHARED).dump(self.top(keep))

    def json(self):
        top = self.top()
        for e in top["entries"]:
            e.pop("frames", None)
            e["process_group"] = list(e["process_group"])
            for k in ("time_discovered_started_ns",
                      "time_discovered_completed_ns"):
                if e[k] is None:
                    e[k] = 0
        for s in top["pg_status"].values():
            for k in s:
                s[k] = str(s[k])
        if not top["entries"]:
            del top["entries"]
        top["nccl_comm_state"] = {}
        return (json.dumps(top, sort_keys=True, separators=(",", ":"))
                .encode())


def _pgkey(n):
    return (n, "")


def world(n, name="0", desc="default_pg"):
    return {name: (desc, list(range(n)))}


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def empty_dump(version="2.5", nccl_version=None):
    top = {"version": version, "pg_config": {}}
    if nccl_version is not None:
        top["nccl_version"] = nccl_version
    top["pg_status"] = {}
    top["entries"] = []
    return Pickler().dump(top)


AR = ("all_reduce", [[4, 4]], [[4, 4]])


def allreduces(ranks, pg, n, state="completed"):
    for r in ranks:
        for _ in range(n):
            r.op(pg, *AR, state=state)


def case_simple_world(out, name, nr, fname, build, version="2.8"):
    ranks = [Rank(i, world(nr), version) for i in range(nr)]
    build(ranks)
    for r in ranks:
        if r is None:
            continue
        write(os.path.join(out, name, fname(r.rank)), r.pickle())
    return ranks


NCCL_DT = {"Float": 7}
NCCL_OP = {"all_reduce": "AllReduce", "all_gather": "AllGather",
           "broadcast": "Broadcast"}


def join_case(out, name, bad_root_rank):
    """4 ranks, a dump (ring of 20 entries) and an NCCL_DEBUG=INFO
    (INIT,COLL) log per rank, NCCL 2.21.5, of the same 33 calls: 10 steps
    of all_reduce [[4096]], all_reduce [[1024]], all_gather [[512]], a
    coalesced pair of broadcasts in step 1 (one seq, two COLL lines: the
    ring drops it), then a broadcast [[256]] from root 0 at seq 32.  With
    bad_root_rank, that rank's broadcast names root 1 and every rank is
    left scheduled in it; without, everything completed."""
    nr = 4
    ranks = [Rank(i, world(nr)) for i in range(nr)]
    logs = {r: [] for r in range(nr)}
    opcount = {r: 0 for r in range(nr)}
    comm_id = 0x7a3c9e1f5b2d4068

    def hpt(r):
        return "node-%s:%d:%d [%d] " % ("ab"[r // 2], 4000 + 17 * r,
                                        4000 + 17 * r, r % 2)

    def comm(r):
        return 0x5600d0a10000 + r * 0x1000

    for r in range(nr):
        logs[r].append(hpt(r) + "NCCL INFO NCCL version 2.21.5+cuda12.2")
        for st in ("START", "COMPLETE"):
            logs[r].append(
                hpt(r) + "NCCL INFO ncclCommInitRankConfig comm 0x%x rank %d "
                "nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%016x "
                "- Init %s" % (comm(r), r, nr, r % 2, r % 2,
                               0x1b + (r % 2) * 0x20, comm_id, st))

    def coll(r, name, count, root=0, bump=True):
        logs[r].append(
            hpt(r) + "NCCL INFO %s: opCount %x sendbuff 0x7f00aa000000 "
            "recvbuff 0x7f00aa000000 count %d datatype %d op 0 root %d comm "
            "0x%x [nranks=%d] stream 0x55e0c1c8f7a0"
            % (NCCL_OP[name], opcount[r], count, NCCL_DT["Float"], root,
               comm(r), nr))
        if bump:
            opcount[r] += 1

    for rk in ranks:
        r = rk.rank
        for step in range(10):
            for n in (4096, 1024):
                rk.op("0", "all_reduce", [[n]], [[n]])
                coll(r, "all_reduce", n)
            rk.op("0", "all_gather", [[512]], [[512 * nr]])
            coll(r, "all_gather", 512)
            if step == 1:
                rk.coll["0"] += 1
                for i in range(2):
                    rk.op("0", "broadcast", [[64]], [[64]], same_seq=True,
                          state="scheduled")
                    # one group, one kernel plan: one opCount (2.13+)
                    coll(r, "broadcast", 64, bump=i == 1)
                rk.op("0", "coalesced", [], [], same_seq=True)
        hung = bad_root_rank is not None
        rk.op("0", "broadcast", [[256]], [[256]],
              state="scheduled" if hung else "completed")
        coll(r, "broadcast", 256, root=1 if r == bad_root_rank else 0)
        write(os.path.join(out, name, "nccl_trace_rank_%d" % r),
              rk.pickle(keep=20))
        write(os.path.join(out, name, "rank%d.log" % r),
              ("\n".join(logs[r]) + "\n").encode())


def fixtures(out):
    nt = "nccl_trace_rank_{}".format
    cl = "comm_lib_trace_rank_{}.pkl".format

    # healthy: 4 ranks, 10 all_reduces, all completed.
    case_simple_world(out, "healthy", 4, nt,
                      lambda rs: allreduces(rs, "0", 10))

    # missing-rank: rank 2 never enqueued seq 8; the others are stuck at 8.
    def missing(rs):
        allreduces(rs, "0", 7)
        for r in rs:
            if r.rank != 2:
                r.op("0", *AR, state="scheduled")
    case_simple_world(out, "missing-rank", 4, nt, missing)

    # lagging-rank: all enqueued 1..8; rank 2 completed only 1..4.
    def lagging(rs):
        for r in rs:
            for s in range(1, 9):
                done = s <= (4 if r.rank == 2 else 7)
                r.op("0", *AR, state="completed" if done else "scheduled")
    case_simple_world(out, "lagging-rank", 4, nt, lagging)

    # size-mismatch: rank 1 sends [[5, 4]] at seq 6.
    def size(rs):
        allreduces(rs, "0", 5)
        for r in rs:
            sz = [[5, 4]] if r.rank == 1 else [[4, 4]]
            r.op("0", "all_reduce", sz, sz, state="scheduled")
    case_simple_world(out, "size-mismatch", 4, cl, size)

    # dtype-mismatch: rank 3 uses Half at seq 6.
    def dtype(rs):
        allreduces(rs, "0", 5)
        for r in rs:
            r.op("0", *AR, dtype="Half" if r.rank == 3 else "Float",
                 state="scheduled")
    case_simple_world(out, "dtype-mismatch", 4, cl, dtype)

    # type-mismatch: rank 0 calls all_gather where the others all_reduce.
    def typ(rs):
        allreduces(rs, "0", 5)
        for r in rs:
            if r.rank == 0:
                r.op("0", "_all_gather_base", [[4]], [[16]],
                     state="scheduled")
            else:
                r.op("0", *AR, state="scheduled")
    case_simple_world(out, "type-mismatch", 4, nt, typ)

    # p2p-unmatched: rank 0 sends p2p seq 3 to rank 1, which never posts it.
    def p2p(rs):
        r0, r1 = rs
        for s in range(2):
            r0.op("0", "send 0->1", [[1024]], [[1024]], p2p=True)
            r1.op("0", "recv 1<-0", [[1024]], [[1024]], p2p=True)
        r0.op("0", "send 0->1", [[1024]], [[1024]], p2p=True,
              state="scheduled")
    case_simple_world(out, "p2p-unmatched", 2, nt, p2p)

    # p2p-wait-chain: ranks 0, 1, 2 each have 160 scheduled sends to the
    # next rank, which never posts the recvs; rank 3 only all_reduces.
    # Waits form a chain 0 -> 1 -> 2 -> 3, 160 edges a link, no cycle: the
    # deadlock search once walked all 160^3 paths of it, for each edge
    # (minutes; 64 sends a rank took 1.7 s).
    def p2p_chain(rs):
        for r in rs:
            r.op("0", *AR)
        for r in rs[:3]:
            for _ in range(160):
                r.op("0", "send {}->{}".format(r.rank, r.rank + 1),
                     [[8]], [[8]], p2p=True, state="scheduled")
    case_simple_world(out, "p2p-wait-chain", 4, nt, p2p_chain)

    # blocked-chain: TP {0,1} "1", {2,3} "2"; DP {0,2} "3", {1,3} "4".
    # Rank 1 stops issuing (root blocker); rank 0 waits in TP "1" for it;
    # rank 2 waits in DP "3" for rank 0; rank 3 waits in DP "4" for rank 1.
    pgs = {}
    for r in range(4):
        tp = "1" if r < 2 else "2"
        dp = "3" if r % 2 == 0 else "4"
        pgs[r] = {"0": ("default_pg", [0, 1, 2, 3]),
                  tp: ("tp", [0, 1] if r < 2 else [2, 3]),
                  dp: ("dp", [0, 2] if r % 2 == 0 else [1, 3])}
    rs = [Rank(r, pgs[r]) for r in range(4)]
    for r in rs:
        r.op("0", *AR)
        tp = "1" if r.rank < 2 else "2"
        dp = "3" if r.rank % 2 == 0 else "4"
        for it in range(3):
            r.op(tp, "_all_gather_base", [[8]], [[16]])
            r.op(dp, *AR)
        if r.rank == 1:
            continue
        if r.rank == 0:
            r.op(tp, "_all_gather_base", [[8]], [[16]], state="scheduled")
            continue
        r.op(tp, "_all_gather_base", [[8]], [[16]])
        r.op(dp, *AR, state="scheduled")
    for r in rs:
        write(os.path.join(out, "blocked-chain", nt(r.rank)), r.pickle())
    # misnamed-dump: blocked-chain's rank 1 dump saved under rank 2's name,
    # rank 2's own absent: its process groups (TP {0,1}, DP {1,3}) say
    # rank 1, which the parser keeps, with a warning.
    for r in rs:
        if r.rank != 2:
            write(os.path.join(out, "misnamed-dump",
                               nt(2 if r.rank == 1 else r.rank)), r.pickle())

    # truncated-dump: healthy 2 ranks, rank 1's file cut mid-entry.
    rs = case_simple_world(out, "truncated-dump", 2, nt,
                           lambda rs: allreduces(rs, "0", 12))
    data = rs[1].pickle()
    write(os.path.join(out, "truncated-dump", nt(1)), data[:len(data) * 3 // 5])

    # empty-dump: the 87-byte dump and the 113-byte one with nccl_version.
    write(os.path.join(out, "empty-dump", nt(0)), empty_dump())
    write(os.path.join(out, "empty-dump", nt(1)),
          empty_dump("2.6", nccl_version=""))

    # missing-dump: ranks 0-2 stuck at seq 8, rank 3 wrote no file.
    def nodump(rs):
        allreduces(rs, "0", 7)
        for r in rs:
            r.op("0", *AR, state="scheduled")
    ranks = [Rank(i, world(4)) for i in range(4)]
    nodump(ranks)
    for r in ranks[:3]:
        write(os.path.join(out, "missing-dump", nt(r.rank)), r.pickle())

    # json-variant: v2.10, rank 1 never enqueued seq 5.
    ranks = [Rank(i, world(3), "2.10", thread=True) for i in range(3)]
    allreduces(ranks, "0", 4)
    for r in ranks:
        if r.rank != 1:
            r.op("0", *AR, state="scheduled")
    for r in ranks:
        write(os.path.join(out, "json-variant",
                           "comm_lib_trace_rank_{}.json".format(r.rank)),
              r.json())

    # nul-json: json-variant with "\u0000" (valid JSON) in rank 0's
    # process group description and rank 2's thread names: one bad field
    # each, the dumps read whole.
    for r in ranks:
        data = r.json()
        if r.rank == 0:
            data = data.replace(b'"desc":"default_pg"',
                                b'"desc":"default\\u0000pg"')
        elif r.rank == 2:
            data = data.replace(b'"pt_main_thread"',
                                b'"pt_main\\u0000thread"')
        assert r.rank == 1 or data != r.json()
        write(os.path.join(out, "nul-json",
                           "comm_lib_trace_rank_{}.json".format(r.rank)),
              data)

    # ring-buffer: buffer of 20 on rank 0, 26 on rank 1; healthy.
    ranks = [Rank(i, world(2)) for i in range(2)]
    allreduces(ranks, "0", 30)
    write(os.path.join(out, "ring-buffer", nt(0)), ranks[0].pickle(keep=20))
    write(os.path.join(out, "ring-buffer", nt(1)), ranks[1].pickle(keep=26))

    # coalesced: p2p batch, broadcast group, uneven reduce_scatter,
    # allreduce_coalesced and a coalescing-manager entry; all completed.
    def coal(rs):
        for r in rs:
            me, peer = r.rank, 1 - r.rank
            r.op("0", *AR)
            r.p2p["0"] += 1
            for _ in range(2):
                r.op("0", "send {}->{}".format(me, peer), [[64]], [[64]],
                     p2p=True, same_seq=True, state="scheduled")
                r.op("0", "recv {}<-{}".format(me, peer), [[64]], [[64]],
                     p2p=True, same_seq=True, state="scheduled")
            r.op("0", "coalesced", [], [], p2p=True, same_seq=True)
            r.coll["0"] += 1
            for _ in range(2):
                r.op("0", "broadcast", [[8]], [[8]], same_seq=True,
                     state="scheduled")
            r.op("0", "coalesced", [], [], same_seq=True)
            r.coll["0"] += 1
            for _ in range(2):
                r.op("0", "_reduce_oop", [[4]], [[4]], same_seq=True,
                     state="scheduled")
            r.op("0", "REDUCE_SCATTER_coalesced", [], [], same_seq=True)
            r.op("0", "allreduce_coalesced", [[4], [4]], [[4], [4]])
            r.op("0", "reduce_scatter_tensor_coalesced", [[2, 2], [2, 2]],
                 [[2], [2]])
            r.op("0", "all_reduce_barrier", [[1]], [[1]])
    case_simple_world(out, "coalesced", 2, nt, coal)

    # all-to-all-uneven: [[8]]->[[12]] vs [[12]]->[[8]] must not mismatch.
    def a2a(rs):
        allreduces(rs, "0", 2)
        rs[0].op("0", "all_to_all", [[8]], [[12]])
        rs[1].op("0", "all_to_all", [[12]], [[8]])
        allreduces(rs, "0", 1)
    case_simple_world(out, "all-to-all-uneven", 2, nt, a2a)

    # mixed-fr-nccl: rank 0 and 1 dumps (rank 1 missing seq 4 broadcast),
    # plus an NCCL_DEBUG log of both ranks that shows the broadcast roots.
    def mixed(rs):
        for r in rs:
            for _ in range(3):
                r.op("0", "broadcast", [[256]], [[256]])
        rs[0].op("0", "broadcast", [[256]], [[256]], state="scheduled")
    case_simple_world(out, "mixed-fr-nccl", 2,
                      "nccl_trace_rank_node-a_{}".format, mixed)
    log = []
    for r in range(2):
        log.append("node-a:{0}:{0} [{1}] NCCL INFO ncclCommInitRankConfig "
                   "comm 0x55e0c1d2a3b{1} rank {1} nranks 2 cudaDev {1} "
                   "nvmlDev {1} busId {1}b000 commId 0x5c1e2f03a9d4b871 - "
                   "Init COMPLETE".format(4242 + r, r))
    for op in range(4):
        for r in range(2):
            if op == 3 and r == 1:
                continue
            log.append("node-a:{0}:{0} [{1}] NCCL INFO Broadcast: opCount "
                       "{2:x} sendbuff 0x7f00aa000000 recvbuff 0x7f00aa000000"
                       " count 256 datatype 7 op 0 root 0 comm "
                       "0x55e0c1d2a3b{1} [nranks=2] stream 0x55e0c1c8f7a0"
                       .format(4242 + r, r, op))
    write(os.path.join(out, "mixed-fr-nccl", "nccl.log"),
          ("\n".join(log) + "\n").encode())

    # stale-*: missing-rank's dumps with some replaced by the same ranks'
    # dumps of a healthy run (10 all_reduces, all completed) a day
    # earlier, as a dump left over in the same directory would be.
    day = 86400 * 10**9
    old = [Rank(i, world(4), t0=T0 - day) for i in range(4)]
    allreduces(old, "0", 10)
    now = [Rank(i, world(4)) for i in range(4)]
    missing(now)
    for name, stale in (("stale-dump", (2,)), ("stale-bystander", (1,)),
                        ("stale-split", (1, 2))):
        for r in range(4):
            rk = old[r] if r in stale else now[r]
            write(os.path.join(out, name, nt(r)), rk.pickle())

    # nul-frame-name: missing-rank with a NUL byte in rank 1's frame file
    # name (memoized once, so every frame of the dump names it), bytes
    # that are not UTF-8 in rank 3's, and a NUL in rank 0's profiling_name:
    # one bad field each, not a cut dump.
    for r in range(4):
        data = now[r].pickle()
        if r == 1:
            data = data.replace(b"X\x08\x00\x00\x00train.py",
                                b"X\x08\x00\x00\x00tra\x00n.py")
        elif r == 3:
            data = data.replace(b"X\x08\x00\x00\x00train.py",
                                b"X\x08\x00\x00\x00tra\xffn.py")
        elif r == 0:
            # a corrupt op name: its type is unknown, no type mismatch
            data = data.replace(b"X\x0f\x00\x00\x00nccl:all_reduce",
                                b"X\x0f\x00\x00\x00nccl:all_\x00educe")
        assert r == 2 or data != now[r].pickle()
        write(os.path.join(out, "nul-frame-name", nt(r)), data)

    join_case(out, "join-healthy", None)
    join_case(out, "join-root-mismatch", 2)

    # restart-leftover (adv4): torchrun restarted the job five minutes
    # after attempt 1's 40 all_reduces; in attempt 2 rank 2 never enqueues
    # seq 15 and writes no dump, so its file is attempt 1's, whose seq 15
    # completed five minutes before the others entered theirs.
    t2 = T0 + 40 * 1000000 + 300 * 10**9
    for r in range(4):
        rk = Rank(r, world(4), t0=T0 if r == 2 else t2)
        allreduces([rk], "0", 40 if r == 2 else 14)
        if r != 2:
            rk.op("0", *AR, state="scheduled")
        write(os.path.join(out, "restart-leftover", nt(r)), rk.pickle())

    # stale-attempt (trust): missing-rank with rank 2's dump from a
    # healthy run of the same job twenty minutes earlier, less than an
    # hour, so not set apart as another incident: its completed seqs 8-10
    # ended before the others entered seq 8, so its record is of another
    # instance, none of this run (never "all 3 ranks" of a 4-rank PG, nor
    # rank 2 "ok").
    early = Rank(2, world(4), t0=T0 - 1200 * 10**9)
    allreduces([early], "0", 10)
    for r in range(4):
        rk = early if r == 2 else now[r]
        write(os.path.join(out, "stale-attempt", nt(r)), rk.pickle())
    # stale-attempt-size: the same, the earlier run's all_reduces of
    # another shape: its record is no vote of this run (never a
    # size_mismatch on rank 2 at seq 1)
    early = Rank(2, world(4), t0=T0 - 1200 * 10**9)
    for _ in range(10):
        early.op("0", "all_reduce", [[5, 4]], [[5, 4]])
    for r in range(4):
        rk = early if r == 2 else now[r]
        write(os.path.join(out, "stale-attempt-size", nt(r)), rk.pickle())

    # tp-hang (adv4): 8 ranks, the world PG and two tensor-parallel PGs
    # ("1": 0-3, "2": 4-7).  Rank 5 never enqueues seq 6 of PG 2, so 4, 6
    # and 7 wait there; ranks 0-3 finish their TP op and wait in world seq
    # 6, which 4-7 never reach.  The root is rank 5 alone.
    def tp_pgs(i):
        pgs = world(8)
        pgs["1" if i < 4 else "2"] = ("tp", [0, 1, 2, 3] if i < 4
                                      else [4, 5, 6, 7])
        return pgs
    rs = [Rank(i, tp_pgs(i)) for i in range(8)]
    for r in rs:
        tp = "1" if r.rank < 4 else "2"
        allreduces([r], "0", 5)
        allreduces([r], tp, 5)
        if tp == "1":
            r.op(tp, *AR)
            r.op("0", *AR, state="scheduled")
        elif r.rank != 5:
            r.op(tp, *AR, state="scheduled")
        write(os.path.join(out, "tp-hang", nt(r.rank)), r.pickle())
        # tp-hang-nodump: the same, and rank 5 wrote no dump
        if r.rank != 5:
            write(os.path.join(out, "tp-hang-nodump", nt(r.rank)),
                  r.pickle())

    # versions: one healthy 2-op dump per layout, rank 0 of {0, 1}.
    vdir = os.path.join(out, "versions")
    for v in ("2.3", "2.5", "2.6", "2.9", "2.10"):
        r = Rank(0, world(2), v, timing=(v == "2.3"), thread=(v == "2.10"))
        allreduces([r], "0", 2)
        write(os.path.join(vdir, "v{}_rank_0".format(v)), r.pickle())
    # 2.11: unknown split-size keys on entries.
    r = Rank(0, world(2), "2.11")
    allreduces([r], "0", 1)
    e = r.op("0", "all_to_all", [[8]], [[12]])
    e["input_split_sizes"] = [3, 5]
    e["output_split_sizes"] = [6, 6]
    write(os.path.join(vdir, "v2.11_rank_0"), r.pickle())
    # torch 2.2: a bare list of entries with seq_id.
    lst = []
    for s in range(1, 3):
        lst.append({"record_id": s - 1, "pg_id": 0, "seq_id": s,
                    "profiling_name": "nccl:all_reduce",
                    "time_created_ns": T0 + s,
                    "input_sizes": [[4, 4]], "output_sizes": [[4, 4]],
                    "state": "completed"})
    write(os.path.join(vdir, "torch22_rank_1"), Pickler().dump(lst))
    # "1.0": version + entries only.
    top = {"version": "1.0", "entries": lst}
    write(os.path.join(vdir, "v1.0_rank_1"), Pickler().dump(top))
    # "1.2": pg_config as a list.
    top = {"version": "1.2", "pg_config": [
        {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"}],
        "entries": lst}
    write(os.path.join(vdir, "v1.2_rank_1"), Pickler().dump(top))
    # no entries key (includeCollectives=False).
    top = {"version": "2.5", "pg_config": {}, "pg_status": {}}
    write(os.path.join(vdir, "noentries_rank_0"), Pickler().dump(top))
    # fallback dump: no frames.
    r = Rank(1, world(2), "2.8", frames=False)
    allreduces([r], "0", 2)
    write(os.path.join(vdir, "noframes_rank_1"), r.pickle())

    # pairwise scenarios of section 4.6, 2 ranks each, one op.
    pw = {
        "match": (AR, AR),
        "type": (AR, ("all_gather", [[4, 4]], [[8, 4]])),
        "size-in": (("all_reduce", [[5, 4]], [[5, 4]]), AR),
        "allreduce-inout": (("all_reduce", [[4, 4]], [[5, 4]]),) * 2,
        "gather-root": (("gather", [[4, 4]], [[4, 4], [4, 4]]),
                        ("gather", [[4, 4]], [[]])),
        "agbase-ok": (("_all_gather_base", [[8]], [[16]]),) * 2,
        "agbase-bad": (("_all_gather_base", [[8]], [[24]]),
                       ("_all_gather_base", [[8]], [[16]])),
        "variants": (("all_gather", [[8]], [[8], [8]]),
                     ("_all_gather_base", [[8]], [[16]])),
        "any-source": (("send 0->1", [[4]], [[4]]),
                       ("recv 1<-?", [[4]], [[4]])),
        "hook-rs": (("reduce_scatter", [[8], [8]], [[8]]),) * 2,
    }
    for case, (a, b) in sorted(pw.items()):
        rs = [Rank(i, world(2)) for i in range(2)]
        for r, spec in zip(rs, (a, b)):
            p2p = spec[0].startswith(("send", "recv"))
            r.op("0", *spec, p2p=p2p, state="completed")
        for r in rs:
            write(os.path.join(out, "pairwise", case, nt(r.rank)),
                  r.pickle())
    # backends, including one that contains ':'
    r = Rank(0, world(2))
    for be in ("nccl", "ncclx", "gloo", "xccl", "nccl2", "c10d",
               "unknown", "weird:backend"):
        r.op("0", *AR, backend=be)
    write(os.path.join(out, "pairwise", "backends_rank_0"), r.pickle())


def bench(out, nranks, nentries, jitter=0, links=False, stride=1):
    """Everyone stuck at the last seq, one rank missing it.  Each rank's
    dump is its own (its times differ), as real dumps are: byte-identical
    dumps under two ranks' names are a copy, which the loader refuses.
    With jitter, every time is off by up to that many ns, so the times do
    not step evenly, as real clocks do not (bench-jitter).

    With links, two dumps are written (the stuck ranks' and the missing
    rank's, with the times of rank 0) and every other rank's name is a
    hard link to the first (a copy of it every 60,000 names, ext4's
    limit being 65,000): a 131,072-rank job's dumps, each carrying a
    1 MB member list, would not fit on a disk otherwise.  hangdoc reads
    them as distinct only under HANGDOC_BENCH_READ_COPIES=1.

    With a stride above 1, the NRANKS ranks are one data-parallel group,
    "dp", of global ranks 0, K, 2K, ...: the dumps of its members only,
    as a job whose other ranks left none; the missing one is its group
    rank NRANKS / 3."""
    os.makedirs(out, exist_ok=True)
    if stride > 1:
        members = [k * stride for k in range(nranks)]
        pg = {"dp": ("dp_group", members)}
        for k, rank in enumerate(members):
            r = Rank(rank, pg)
            for s in range(nentries - 1):
                r.op("dp", *AR)
            if k != nranks // 3:
                r.op("dp", *AR, state="scheduled")
            write(os.path.join(out, "nccl_trace_rank_%d" % rank),
                  r.pickle())
        return
    pg = {"0": ("default_pg", list(range(nranks)))}
    if links:
        missing = nranks // 3
        for rank in (0, missing) if missing else (0,):
            r = Rank(0, pg)
            for s in range(nentries - 1):
                r.op("0", *AR)
            if rank != missing:
                r.op("0", *AR, state="scheduled")
            write(os.path.join(out, "nccl_trace_rank_%d" % rank), r.pickle())
        first = os.path.join(out, "nccl_trace_rank_0")
        with open(first, "rb") as f:
            data = f.read()
        links = 1
        for rank in range(1, nranks):
            if rank == missing:
                continue
            path = os.path.join(out, "nccl_trace_rank_%d" % rank)
            if links == 60000:  # ext4 allows 65,000 names a file
                write(path, data)
                first, links = path, 1
            else:
                os.link(first, path)
                links += 1
        return
    for rank in range(nranks):
        r = Rank(rank, pg)
        r.jitter = jitter
        for s in range(nentries - 1):
            r.op("0", *AR)
        if rank != nranks // 3:
            r.op("0", *AR, state="scheduled")
        path = os.path.join(out, "nccl_trace_rank_{}".format(rank))
        with open(path, "wb") as f:
            f.write(r.pickle())


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "fixtures":
        fixtures(sys.argv[2])
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "bench":
        if len(sys.argv) == 6 and sys.argv[5] != "--links":
            sys.exit(__doc__)
        bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
              links=len(sys.argv) == 6)
    elif (len(sys.argv) == 7 and sys.argv[1] == "bench" and
          sys.argv[5] == "--stride" and sys.argv[6].isdigit() and
          int(sys.argv[6]) > 0):
        bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
              stride=int(sys.argv[6]))
    elif len(sys.argv) == 5 and sys.argv[1] == "bench-jitter":
        bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), 200000)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
