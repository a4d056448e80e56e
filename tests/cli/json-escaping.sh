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
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
mkdir "$tmp/in"
python3 "$HD_SRCDIR/tests/cli/lib/hostile-incident.py" "$tmp/in" \
	'A\x7fB\u009bC\u202eD\u2066E\u200fF\u061cG\u2028H\u2029I' \
	'rank0A\x7fB\u009bC\u202eD\u2066E\u200fF\u061cG\u2028H\u2029I.log' ||
	exit 99
mkdir "$tmp/t"
cp -R "$tmp/in" "$tmp/t/a"
cp -R "$tmp/in" "$tmp/t/b"
# KIND (json, jsonl, or plan: JSON that need not carry them) ARGS...: the
# output of hangdoc ARGS is checked
check_json() {
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
check_json json analyze --format json "$tmp/in"
check_json jsonl analyze --format jsonl "$tmp/in"
check_json json show --format json "$tmp/in"
check_json json diff --format json "$tmp/t/a" "$tmp/t/b"
check_json json export "$tmp/in"
check_json jsonl triage --format jsonl "$tmp/t"
# a plan carries no text of the inputs: no raw controls, and it parses
check_json plan replay --dry-run --healthy --format json "$tmp/in"
check_json plan replay --plan-out - --healthy "$tmp/in"
finish
