#!/bin/sh
# Control characters never reach a terminal.  Inputs (and their file
# names) carrying ESC sequences, BEL, C1 controls (U+009B is CSI on some
# terminals) and bidirectional overrides and isolates go through every
# human-facing output: analyze as text and Markdown, show, replay
# --dry-run, and the messages on stderr.  None of those bytes may come out.
# With --color always, the report's own colour codes (SGR: bold, red,
# yellow, green, reset) are the only escapes allowed, and must be there.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
mkdir "$tmp/in"
python3 "$HD_SRCDIR/tests/cli/lib/hostile-incident.py" "$tmp/in" \
	'\x1b[31mRED\x1b[0m\u009b2J\u202eevil\u2066x\x07' \
	'rank0\x1b[2J\u202e.log' \
	'[rank0]:[E1121 03:22:44.123456789 ProcessGroupNCCL.cpp:1 ] [PG ID 0 PG GUID 0({bad}) Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=10, NumelOut=10, Timeout(ms)=600000) ran for 600041 milliseconds before timing out.' ||
	exit 99
missing=$(printf '%s/no\033[2Jsuch\342\200\256' "$tmp")
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
finish
