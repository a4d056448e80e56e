#!/bin/sh
# Control characters never reach a terminal.  Inputs (and their file
# names) carrying ESC sequences, BEL, C1 controls (U+009B is CSI on some
# terminals) and bidirectional overrides and isolates go through every
# human-facing output: analyze as text and Markdown, show, replay
# --dry-run, and the messages on stderr.  None of those bytes may come out.
# With --color always, the report's own colour codes (SGR: bold, red,
# yellow, green, reset) are the only escapes allowed, and must be there.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in"
python3 - "$tmp/in" <<'PY' || exit 99
import json, os, sys
d = sys.argv[1]
bad = "\x1b[31mRED\x1b[0m\u009b2J\u202eevil\u2066x\u0007"
log = [
    "node-a:100:100 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 "
    "nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE",
    "node-a:100:100 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got "
    "completion from peer 10.0.0.2<1234> with error 12, opcode 0, len 0, "
    "vendor err 129 " + bad,
    "[rank0]:[E1121 03:22:44.123456789 ProcessGroupNCCL.cpp:1 ] [PG ID 0 "
    "PG GUID 0(" + bad + ") Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=10, "
    "NumelOut=10, Timeout(ms)=600000) ran for 600041 milliseconds before "
    "timing out.",
]
with open(os.path.join(d, "rank0\x1b[2J\u202e.log"), "w") as f:
    f.write("\n".join(log) + "\n")
def entry(seq, state):
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
for r in range(2):
    n = 3 if r == 0 else 2
    doc = {"comm_lib_version": "2.21.5", "version": "2.4", "rank": r,
           "entries": [entry(s, "completed" if s < n else "scheduled")
                       for s in range(1, n + 1)],
           "pg_config": {"0": {"desc": bad, "name": "0",
                               "ranks": "[0, 1]"}}}
    with open(os.path.join(d, "comm_lib_trace_rank_%d.json" % r), "w") as f:
        json.dump(doc, f)
PY
missing=$(printf '%s/no\033[2Jsuch\342\200\256' "$tmp")
pass=0
fail=0
for args in "analyze" "analyze --format markdown" "show" \
	"replay --dry-run --healthy" "analyze --color always" \
	"analyze --brief --color always"; do
	# shellcheck disable=SC2086
	timeout 60 "$HANGDOC" $args "$tmp/in" "$missing" >"$tmp/out" 2>&1
	if python3 - "$tmp/out" "$args" <<'PY'; then
import re, sys
b = open(sys.argv[1], "rb").read()
if "--color always" in sys.argv[2]:
    sgr = re.compile(rb"\x1b\[(?:0|1|1;31|32|33)m")
    if not sgr.search(b):
        print("  no colour with --color always")
        sys.exit(1)
    b = sgr.sub(b"", b)
bad = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]"
                 rb"|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")
hits = [m.start() for m in bad.finditer(b)]
for at in hits[:3]:
    s = b.rfind(b"\n", 0, at) + 1
    print("  control byte in:", repr(b[s:b.find(b"\n", at)][:120]))
# the verdict was still written: the check must not pass on empty output
sys.exit(1 if hits or len(b) < 100 else 0)
PY
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: hangdoc $args let control characters through"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
