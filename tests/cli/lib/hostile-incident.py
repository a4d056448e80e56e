#!/usr/bin/env python3
"""Writes a small incident whose every text field carries a hostile string.

Usage: hostile-incident.py DIR BAD LOGNAME [LINE...]

BAD and LOGNAME are Python escapes ("\\x1b[31m", "\\u202e"), decoded here
so that the shell passes plain ASCII.  DIR gets LOGNAME, an NCCL log (an
Init line, an IB completion error ending in BAD, and each LINE with
"{bad}" replaced by BAD), and the flight-recorder dumps of two ranks
whose PG description, thread names and frames are BAD, rank 1 a
collective behind.  Shared by json-escaping.sh and terminal-safety.sh.
"""
import json
import os
import sys


def unescape(s):
    return s.encode("latin-1").decode("unicode_escape")


def entry(seq, state, bad):
    return {"collective_seq_id": seq, "input_dtypes": ["Float"],
            "input_sizes": [[4, 4]], "is_p2p": False, "op_id": seq,
            "output_dtypes": ["Float"], "output_sizes": [[4, 4]],
            "p2p_seq_id": 0, "pg_id": 0, "process_group": ["0", bad],
            "profiling_name": "nccl:all_reduce", "record_id": seq - 1,
            "retired": True, "state": state, "thread_id": "1",
            "thread_name": bad, "time_created_ns": 1700000000000000000 + seq,
            "time_discovered_completed_ns": 0,
            "time_discovered_started_ns": 0, "timeout_ms": 600000,
            "frames": [{"name": bad, "filename": "t" + bad + ".py",
                        "line": 88}]}


def main():
    d, bad, logname = sys.argv[1], unescape(sys.argv[2]), \
        unescape(sys.argv[3])
    log = [
        "node-a:100:100 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 "
        "nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE",
        "node-a:100:100 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got "
        "completion from peer 10.0.0.2<1234> with error 12, opcode 0, "
        "len 0, vendor err 129 " + bad,
    ] + [line.replace("{bad}", bad) for line in sys.argv[4:]]
    with open(os.path.join(d, logname), "w") as f:
        f.write("\n".join(log) + "\n")
    for r in range(2):
        n = 3 if r == 0 else 2
        doc = {"comm_lib_version": "2.21.5", "version": "2.4", "rank": r,
               "entries": [entry(s, "completed" if s < n else "scheduled",
                                 bad) for s in range(1, n + 1)],
               "pg_config": {"0": {"desc": bad, "name": "0",
                                   "ranks": "[0, 1]"}}}
        path = os.path.join(d, "comm_lib_trace_rank_%d.json" % r)
        with open(path, "w") as f:
            json.dump(doc, f)


if __name__ == "__main__":
    main()
