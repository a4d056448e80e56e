#!/usr/bin/env python3
"""Writes N incident folders of mixed causes for `hangdoc triage` tests.

Each incident is a copy of one fixture of tests/data/ with its hosts and
addresses rewritten (hosts drawn from a small pool, so some recur), so the
same cause appears in many "jobs".  OUTDIR/expect.tsv lists each incident
and its cause.  One extra incident, `zz-unreadable`, holds only garbage.
Byte-reproducible: a fixed seed.

With --ops K the incidents are not copies of the small fixtures but
generated at a realistic size for benchmarks: 8 ranks on two hosts, K
collectives each (NCCL_DEBUG logs or flight-recorder dumps), the same
causes and shares, so fixed per-incident costs do not dominate.

    scripts/gen-triage-incidents.py [--ops K] OUTDIR [N]
"""
import importlib.util
import os
import random
import sys

SEED = 20250314
# cause -> fixture, by share of the batch
CAUSES = [
    ("network-fault", "tests/data/nccl/network-fault", 4),
    ("missing-rank", "tests/data/fr/missing-rank", 2),
    ("rank-crashed", "tests/data/nccl/rank-crashed", 1),
    ("init-failure", "tests/data/nccl/init-failure", 1),
    ("size-mismatch", "tests/data/fr/size-mismatch", 1),
    ("healthy", "tests/data/nccl/healthy", 1),
]


_MODS = {}


def load(name):
    if name in _MODS:
        return _MODS[name]
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        name.replace("-", "_"), os.path.join(here, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _MODS[name] = mod
    return mod


def sized(cause, ops, rng):
    """{file name: bytes} of one incident of the cause, K ops per rank."""
    nl, fr = load("gen-nccl-logs"), load("gen-fr-dumps")
    files = {}
    if cause in ("missing-rank", "size-mismatch"):
        def build(rs):
            fr.allreduces(rs, "0", ops - 1)
            for r in rs:
                sz = [[5, 4]] if cause == "size-mismatch" and r.rank == 1 \
                    else [[4, 4]]
                if cause == "missing-rank" and r.rank == 2:
                    continue
                r.op("0", "all_reduce", sz, sz, state="scheduled")
        rs = [fr.Rank(i, fr.world(8), "2.8") for i in range(8)]
        build(rs)
        for r in rs:
            files["nccl_trace_rank_%d" % r.rank] = r.pickle()
        return files
    ranks = nl.make(rng, 8, "2.21.5")
    if cause == "network-fault":
        for r in ranks:
            r.info("Bootstrap : Using eth0:%s<0>"
                   % ("10.1.0.3" if r.host == "node-a" else "10.1.0.6"))
    skip = None
    if cause == "rank-crashed":
        skip = lambda r, s: r.rank == 1 and s >= ops - 2  # noqa: E731
    nl.training(ranks, rng, ops, 0x8888999900001111, skip=skip)
    if cause == "network-fault":
        ranks[5].warn("transport/net_ib.cc:1696",
                      "NET/IB: Got completion from peer 10.1.0.3<36123> with "
                      "status=12 opcode=0 len=0 vendor err 129 (Send) localGid "
                      "::ffff:10.1.0.6 remoteGids::ffff:10.1.0.3 hca mlx5_1")
        nl.hang_tail(ranks, (2, 7), ops + 1, lambda r: ops + 1,
                     lambda r: ops)
    elif cause == "rank-crashed":
        ranks[1].warn("enqueue.cc:1558", "Cuda failure 'out of memory'")
        nl.hang_tail(ranks, (2, 6), ops - 1, lambda r: ops - 1,
                     lambda r: ops - 2, who={0, 2, 3, 4, 5, 6, 7})
    elif cause == "init-failure":
        ranks[3].warn("init.cc:664", "Duplicate GPU detected : rank 3 and "
                      "rank 2 both on CUDA device 5b000")
    for r in ranks:
        files["rank%d.log" % r.rank] = ("\n".join(r.lines) + "\n").encode()
    return files


def main():
    args = sys.argv[1:]
    ops = 0
    if args and args[0] == "--ops":
        ops = int(args[1])
        args = args[2:]
    out = args[0]
    n = int(args[1]) if len(args) > 1 else 200
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    rng = random.Random(SEED)
    wheel = [c for c in CAUSES for _ in range(c[2])]
    pool = ["gpu-%03d" % rng.randrange(1000) for _ in range(24)]
    os.makedirs(out, exist_ok=True)
    expect = []
    for i in range(n):
        cause, fixture, _ = wheel[i % len(wheel)]
        name = "inc-%04d" % i
        hosts = rng.sample(pool, 2)
        net = "10.%d.%d." % (rng.randrange(256), rng.randrange(256))
        subst = [("node-a", hosts[0]), ("node-b", hosts[1]), ("10.1.0.", net)]
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        if ops:
            files = sized(cause, ops, rng)
        else:
            files = {}
            base = os.path.join(src, fixture)
            for f in os.listdir(base):
                if f.startswith(".") or f.endswith(".md"):
                    continue
                with open(os.path.join(base, f), "rb") as fh:
                    files[f] = fh.read()
        for f, data in sorted(files.items()):
            if f.endswith(".log"):
                text = data.decode()
                for a, b in subst:
                    text = text.replace(a, b)
                data = text.encode()
            with open(os.path.join(d, f), "wb") as fh:
                fh.write(data)
        expect.append((name, cause))
    bad = os.path.join(out, "zz-unreadable")
    os.makedirs(bad, exist_ok=True)
    with open(os.path.join(bad, "rank0.log"), "wb") as fh:
        fh.write(bytes(rng.randrange(256) for _ in range(4096)))
    expect.append(("zz-unreadable", "unreadable"))
    with open(os.path.join(out, "expect.tsv"), "w") as fh:
        for name, cause in expect:
            fh.write("%s\t%s\n" % (name, cause))


if __name__ == "__main__":
    main()
