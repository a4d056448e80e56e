#!/bin/sh
# Every JSON hangdoc writes escapes what a terminal, an editor or a
# JavaScript parser would act on: DEL, C1 controls (U+009B is CSI on some
# terminals), the bidirectional controls (U+061C, U+200E-F, U+202A-E,
# U+2066-9) and U+2028/U+2029.  jansson leaves them raw; one writer
# (hd_json_dumps()) escapes them as \uXXXX for every emitter: analyze
# json and jsonl, show, diff, export, triage, replay plans and results.
# Each output must hold none of those bytes raw, still parse, and still
# carry the characters (escaped), so the check cannot pass on output that
# simply dropped them.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in"
python3 - "$tmp/in" <<'PY' || exit 99
import json, os, sys
d = sys.argv[1]
bad = "A\x7fB\u009bC\u202eD\u2066E\u200fF\u061cG\u2028H\u2029I"
log = [
    "node-a:100:100 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 "
    "nvmlDev 0 busId 1000 commId 0xabc - Init COMPLETE",
    "node-a:100:100 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got "
    "completion from peer 10.0.0.2<1234> with error 12, opcode 0, len 0, "
    "vendor err 129 " + bad,
]
with open(os.path.join(d, "rank0" + bad + ".log"), "w") as f:
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
mkdir "$tmp/t"
cp -R "$tmp/in" "$tmp/t/a"
cp -R "$tmp/in" "$tmp/t/b"
pass=0
fail=0
# KIND (json, jsonl, or plan: JSON that need not carry them) ARGS...: the output of hangdoc ARGS is checked
check() {
	kind=$1
	shift
	timeout 60 "$HANGDOC" "$@" >"$tmp/out" 2>/dev/null
	if python3 - "$kind" "$tmp/out" <<'PY'; then
import json, re, sys
kind, path = sys.argv[1], sys.argv[2]
b = open(path, "rb").read()
raw = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]"
                 rb"|\xe2\x81[\xa6-\xa9]")
hits = [m.start() for m in raw.finditer(b)]
for at in hits[:3]:
    print("  raw control in:", repr(b[max(0, at - 40):at + 10]))
text = b.decode("utf-8")
# split at "\n" only: str.splitlines() also splits at U+2028
docs = [json.loads(l) for l in text.split("\n") if l.strip()] \
    if kind == "jsonl" else [json.loads(text)]
def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
kept = kind == "plan" or any("\u202e" in s for d in docs for s in strings(d))
if not kept:
    print("  the characters were not carried (escaped) at all")
sys.exit(1 if hits or not kept else 0)
PY
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: hangdoc $* wrote raw controls, or bad JSON"
	fi
}
check json analyze --format json "$tmp/in"
check jsonl analyze --format jsonl "$tmp/in"
check json show --format json "$tmp/in"
check json diff --format json "$tmp/t/a" "$tmp/t/b"
check json export "$tmp/in"
check jsonl triage --format jsonl "$tmp/t"
# a plan carries no text of the inputs: no raw controls, and it parses
check plan replay --dry-run --healthy --format json "$tmp/in"
check plan replay --plan-out - --healthy "$tmp/in"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
