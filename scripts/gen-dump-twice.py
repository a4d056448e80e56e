#!/usr/bin/env python3
"""Two dumps of one rank (issue 20, H3): tests/data/fr/dump-twice/.

  gen-dump-twice.py [OUT]     (OUT defaults to tests/data/fr/dump-twice)

Derived from tests/data/fr/healthy and missing-rank: each case is their
dumps plus a second dump of one rank that is equal in content but not in
bytes (another pickle protocol, the JSON of the same dump), an earlier
dump of the same process, or one that contradicts it.  Deterministic: the
same fixtures give the same bytes.  README.md in OUT says what each case
is and what it must give.
"""
import json
import os
import pickle
import shutil
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FR = os.path.join(TOP, "tests", "data", "fr")


def load(case, rank):
    with open(os.path.join(FR, case, "nccl_trace_rank_%d" % rank), "rb") as f:
        return pickle.load(f)


def plain(v):
    """The JSON shape of a dump: tuples become lists (json-variant)."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def base(out, name, case):
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(FR, case), d)
    return d


def write_pickle(path, dump):
    with open(path, "wb") as f:
        pickle.dump(dump, f, protocol=4)


def write_json(path, dump):
    with open(path, "w") as f:
        json.dump(plain(dump), f, sort_keys=True, separators=(",", ":"))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(FR, "dump-twice")
    os.makedirs(out, exist_ok=True)
    # healthy, rank 1's dump pickled again with protocol 4
    d = base(out, "pickle4", "healthy")
    write_pickle(os.path.join(d, "nccl_trace_rank_1.pkl"), load("healthy", 1))
    # healthy, rank 1's dump also as JSON
    d = base(out, "json", "healthy")
    write_json(os.path.join(d, "nccl_trace_rank_1.json"), load("healthy", 1))
    # missing-rank, rank 1 as JSON too and rank 3 as a protocol-4 pickle
    d = base(out, "missing-json", "missing-rank")
    write_json(os.path.join(d, "nccl_trace_rank_1.json"),
               load("missing-rank", 1))
    write_pickle(os.path.join(d, "nccl_trace_rank_3.pkl"),
                 load("missing-rank", 3))
    # missing-rank, plus rank 1's dump taken earlier: its first 6 entries,
    # the last of them still started
    d = base(out, "missing-earlier", "missing-rank")
    early = load("missing-rank", 1)
    early["entries"] = early["entries"][:6]
    early["entries"][-1]["state"] = "started"
    early["entries"][-1]["time_discovered_completed_ns"] = None
    write_pickle(os.path.join(d, "earlier_nccl_trace_rank_1"), early)
    # missing-rank, plus a dump of rank 1 whose record 3 is another op:
    # two instances, never one lane of doubled ops
    d = base(out, "contradict", "missing-rank")
    other = load("missing-rank", 1)
    other["entries"][3]["input_sizes"] = [[8, 4]]
    other["entries"][3]["output_sizes"] = [[8, 4]]
    write_pickle(os.path.join(d, "other_nccl_trace_rank_1"), other)


if __name__ == "__main__":
    main()
