#!/usr/bin/env python3
"""Write the seed corpus of tests/fuzz/fuzz_mixed.c from the fixtures.

    scripts/gen-fuzz-mixed-seeds.py [OUT_DIR]   (default tests/fuzz/corpus-mixed)

Each seed is one incident of several kinds of input (logs, flight-recorder
dumps, Kineto traces, compressed or not) in the harness's format: an
options byte, then parts separated by b"\\xfeHD\\xfe", each part a name byte
(which file name and rank the harness gives it) and the file's bytes.
Run from the source tree; the output is byte-reproducible.
"""
import os
import sys

SEP = b"\xfeHD\xfe"
# The harness's NAMES table, in order, and its HOSTS.
NAMES = ["rank.log", "nccl_trace_rank_", "comm_lib_trace_rank_.json",
         "worker.pt.trace.json", "node-.log.gz", "trace_rank_.pkl",
         "job-.out", "rank.json.zst", "hosts/HOST/state.txt"]
HOSTS = ["node-a", "node-b", "trn-01", "trn-02", "gpu-a", "gpu-b", "trn-17",
         "node-c"]


def name_byte(kind, rank):
    return bytes([NAMES.index(kind) + len(NAMES) * rank])


def part(path, kind, rank):
    with open(path, "rb") as f:
        return name_byte(kind, rank) + f.read()


def files(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d))


def rank_of(path):
    digits = "".join(c if c.isdigit() else " " for c in
                     os.path.basename(path)).split()
    return int(digits[-1]) % 8 if digits else 0


def auto(path):
    """A part named like the file: dumps as dumps, logs as logs, a file
    in a host's folder (hosts/node-b/dmesg.txt) in that host's folder."""
    base = os.path.basename(path)
    host = os.path.basename(os.path.dirname(path))
    if os.path.basename(os.path.dirname(os.path.dirname(path))) == "hosts":
        return part(path, "hosts/HOST/state.txt", HOSTS.index(host))
    if "trace_rank" in base and base.endswith(".json"):
        kind = "comm_lib_trace_rank_.json"
    elif "trace_rank" in base:
        kind = "nccl_trace_rank_"
    elif ".pt.trace" in base or base.endswith((".json.gz", ".json")):
        kind = "worker.pt.trace.json"
    elif base.endswith(".gz"):
        kind = "node-.log.gz"
    else:
        kind = "rank.log"
    return part(path, kind, rank_of(path))


SEEDS = {
    # dumps + both node logs (one gzipped) of the example incident
    "example-incident": (0, ["testdata/example-incident/fr/" + f for f in
                             ("nccl_trace_rank_0", "nccl_trace_rank_1",
                              "nccl_trace_rank_4", "nccl_trace_rank_5")] +
                         files("testdata/example-incident/logs")),
    "join-root-mismatch": (0, files("tests/data/fr/join-root-mismatch")),
    "mixed-fr-nccl": (1, files("tests/data/fr/mixed-fr-nccl")),
    "json-dumps-c10d": (0, files("tests/data/fr/json-variant") +
                        files("tests/data/real-shaped/store-loss/"
                              "store-lost-midrun")),
    "kineto-nccl": (0, files("tests/data/kineto/straggler-eraB-nometa") +
                    files("tests/data/nccl/p2p-deadlock")),
    "kineto-gz-logs": (0, files("tests/data/kineto/straggler-eraC-gz")[:2] +
                       files("tests/data/nccl/network-fault")[:4]),
    "restart-attempt-1": (2, files("tests/data/nccl/restart")),
    "network-fault": (0, files("tests/data/nccl/network-fault")),
    # issue 21: a gdb core backtrace, a live one, a torchelastic error
    # file and a C++ terminate beside the example incident's logs
    "example-gdb-core": (0, files("testdata/example-incident/logs") +
                         files("tests/data/gdb/proxy-crash")),
    "example-gdb-live": (0, files("testdata/example-incident/logs") +
                         files("tests/data/gdb/init-wait") +
                         files("tests/data/gdb/refuted")),
    "example-torchelastic": (0, files("testdata/example-incident/logs") +
                             files("tests/data/torchelastic/rank5-error") +
                             files("tests/data/crash/terminate-rank5")),
    # an NCCL topology dump beside ibstat and the job's log
    "topo-port-down": (0, ["tests/data/topo/port-down-topo/job.log"] +
                       files("tests/data/topo/port-down-topo/hosts/trn-02")),
    # the example incident's logs with what on-call collects from node-b
    # (its kernel log with an Xid, ibstat with a port down, nvidia-smi -q,
    # attributed by their folder), a py-spy dump of rank 5 and of rank 2,
    # and a faulthandler dump
    "example-host-state": (0, files("testdata/example-incident/logs") +
                           files("tests/data/hostlogs/example-xid/hosts/"
                                 "node-b") +
                           files("tests/data/hostlogs/example-ib/hosts/"
                                 "node-b") +
                           files("tests/data/hostlogs/example-gpu/hosts/"
                                 "node-b")),
    "example-pyspy-crash": (0, files("testdata/example-incident/logs") +
                            files("tests/data/pyspy/loader-wait") +
                            files("tests/data/pyspy/loader-wait-json") +
                            files("tests/data/crash/faulthandler-rank5")),
    # a 4-rank job's log with trn-02's kernel log, ibstat and nvidia-smi
    "hostlogs-trn": (0, ["tests/data/hostlogs/ib/port-down-chain/job.log"] +
                     files("tests/data/hostlogs/ib/port-down-chain/hosts/"
                           "trn-02") +
                     files("tests/data/hostlogs/kernel/xid79-dmesg/hosts/"
                           "trn-02") +
                     files("tests/data/hostlogs/gpu/remap-pending/hosts/"
                           "trn-02")),
    # issue 21: a faulthandler dump of rank 5 after its dump-signal line
    # (the crash came after the hang), and as its only output
    "example-crash-after": (0, ["testdata/example-incident/fr/"
                                "nccl_trace_rank_5"] +
                            files("testdata/example-incident/logs") +
                            files("tests/data/crash/faulthandler-rank5")),
    "example-crash-only": (0, ["tests/data/crash/faulthandler-only-rank5/"
                               "fr/nccl_trace_rank_4"] +
                           files("tests/data/crash/faulthandler-only-rank5/"
                                 "logs") +
                           ["tests/data/crash/faulthandler-only-rank5/"
                            "rank5-stderr.log"]),
    # NCCL Inspector records, one per line and pretty-printed
    "inspector": (0, files("testdata/example-incident/logs") +
                  files("tests/data/inspector/example") +
                  files("tests/data/inspector/healthy")),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus-mixed"
    os.makedirs(out, exist_ok=True)
    for name, (opts, paths) in sorted(SEEDS.items()):
        paths = [p for p in paths if not p.endswith(("README.md", ".tsv"))]
        data = bytes([opts]) + SEP.join(auto(p) for p in paths)
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
