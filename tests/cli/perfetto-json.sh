#!/bin/sh
# hangdoc export --perfetto, read back with a standard JSON parser
# (python3's json): the document loads, has one process track per rank that
# has ops (as `hangdoc show --format json` lists them), every op slice sits
# on a named track, and the verdict is an instant event.  Runs on a timed
# incident (flight-recorder dumps) and an untimed one (NCCL logs), which
# must say it was laid out by sequence position.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
cd "$HD_SRCDIR" || exit 99
command -v python3 >/dev/null 2>&1 || {
	echo "SKIP: no python3"
	exit 77
}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
for case in "testdata/example-incident time" \
	"tests/data/nccl/missing-rank sequence" \
	"tests/data/kineto/straggler-eraC-gz time"; do
	path=${case% *}
	layout=${case#* }
	"$HANGDOC" export --perfetto -o "$tmp/trace.json" "$path" \
		2>"$tmp/err"
	"$HANGDOC" show --format json "$path" >"$tmp/show.json" 2>/dev/null
	if ! python3 - "$tmp/trace.json" "$tmp/show.json" "$layout" <<'PY'; then
import json
import sys

trace = json.load(open(sys.argv[1]))
show = json.load(open(sys.argv[2]))
layout = sys.argv[3]
events = trace["traceEvents"]
procs = [e["pid"] for e in events
         if e["ph"] == "M" and e["name"] == "process_name"]
assert len(procs) == len(set(procs)), "a rank has two process tracks"
ranks = {op["rank"] for op in show["ops"] if op["rank"] is not None}
assert ranks <= set(procs), "ranks without a track: %s" % (ranks - set(procs))
threads = {(e["pid"], e["tid"]) for e in events
           if e["ph"] == "M" and e["name"] == "thread_name"}
slices = [e for e in events if e["ph"] == "X"]
assert slices, "no op slices"
for e in slices:
    assert (e["pid"], e["tid"]) in threads, "slice on an unnamed track"
    assert e["dur"] > 0 and e["ts"] >= 0
assert any(e["ph"] == "i" and e["name"].startswith("verdict: ")
           for e in events), "no verdict annotation"
assert trace["otherData"]["layout"] == layout, trace["otherData"]
print("ok: %d tracks, %d slices" % (len(procs), len(slices)))
PY
		echo "FAIL: $path"
		fail=$((fail + 1))
	fi
	if [ "$layout" = sequence ] && ! grep -q "laid out by sequence" "$tmp/err"; then
		echo "FAIL: $path: no note on standard error"
		fail=$((fail + 1))
	fi
done
[ "$fail" -eq 0 ]
