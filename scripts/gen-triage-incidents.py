#!/usr/bin/env python3
"""Writes N incident folders of mixed causes for `hangdoc triage` tests.

Each incident is a copy of one fixture of tests/data/ with its hosts and
addresses rewritten (hosts drawn from a small pool, so some recur), so the
same cause appears in many "jobs".  OUTDIR/expect.tsv lists each incident
and its cause.  One extra incident, `zz-unreadable`, holds only garbage.
Byte-reproducible: a fixed seed.

    scripts/gen-triage-incidents.py OUTDIR [N]
"""
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


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
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
        base = os.path.join(src, fixture)
        for f in sorted(os.listdir(base)):
            if f.startswith(".") or f.endswith(".md"):
                continue
            with open(os.path.join(base, f), "rb") as fh:
                data = fh.read()
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
