#!/bin/sh
# hangdoc triage over 200 generated incidents of six causes and one
# unreadable one (scripts/gen-triage-incidents.py, into a temporary
# directory): every incident gets a line, incidents of one cause share one
# fingerprint and different causes do not, the unreadable one gives an
# error for itself only (on standard error too, unless --quiet), and the
# text table groups them most frequent first.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
dir=$tmp
python3 "$HD_SRCDIR/scripts/gen-triage-incidents.py" "$dir/inc" 200 || exit 99
"$HANGDOC" triage -j 2 --format jsonl "$dir/inc" >"$dir/out.jsonl" 2>"$dir/err"
status=$?
[ "$status" -eq 1 ] || { echo "FAIL: triage exit $status, not 1"; exit 1; }
grep -q "zz-unreadable': no usable input" "$dir/err" ||
	{ echo "FAIL: no error line for the unreadable incident"; exit 1; }
python3 - "$dir/inc/expect.tsv" "$dir/out.jsonl" <<'PY' || exit 1
import collections, json, os, sys
expect = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[1]))
rows = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(expect) == 201, (len(rows), len(expect))
fps = collections.defaultdict(set)
for r in rows:
    cause = expect[os.path.basename(r["path"])]
    fps[cause].add(r["fingerprint"])
    if cause == "unreadable":
        assert r["error"] == "no usable input", r
    else:
        assert r["error"] is None and r["counts"]["usable"] > 0, r
for cause, s in fps.items():
    assert len(s) == 1, (cause, s)
allfp = [next(iter(s)) for s in fps.values()]
assert len(set(allfp)) == len(allfp), fps
kinds = {expect[os.path.basename(r["path"])]: r["verdict"] for r in rows}
assert kinds["network-fault"] == "network_fault", kinds
assert kinds["missing-rank"] == "missing_rank", kinds
assert kinds["healthy"] == "no_fault", kinds
PY
"$HANGDOC" triage -j 1 "$dir/inc" >"$dir/out.txt" 2>/dev/null
head -3 "$dir/out.txt" | grep -q "^80 incidents: network_fault" ||
	{ echo "FAIL: text table not grouped"; head -5 "$dir/out.txt"; exit 1; }
grep -q "^hosts blamed in more than one incident:" "$dir/out.txt" ||
	{ echo "FAIL: no recurring hosts"; exit 1; }
# -j 1 and -j 2 give the same lines.
"$HANGDOC" triage -j 1 --format jsonl "$dir/inc" 2>/dev/null |
	cmp -s - "$dir/out.jsonl" || { echo "FAIL: -j 1 differs"; exit 1; }
# One hang through its dumps and through its logs is one cause, its call
# site shown; two undecided incidents are listed but never one cause.
mkdir "$dir/mix" || exit 99
cp -R "$HD_SRCDIR/testdata/example-incident/fr" "$dir/mix/dumps" &&
	cp -R "$HD_SRCDIR/testdata/example-incident/logs" "$dir/mix/logs" &&
	cp -R "$HD_SRCDIR/tests/data/real-shaped/partial-timeouts/pt-mostly-silent" \
		"$dir/mix/und1" &&
	cp -R "$dir/mix/und1" "$dir/mix/und2" || exit 99
# distcheck's source tree is read-only, and so would the copies be
chmod -R u+w "$dir/mix" || exit 99
"$HANGDOC" triage -j 1 "$dir/mix" >"$dir/mix.txt" 2>/dev/null
head -1 "$dir/mix.txt" | grep -q "^4 incidents, 1 cause (2 with a fault" ||
	{ echo "FAIL: mixed evidence or undecided miscounted"; cat "$dir/mix.txt"; exit 1; }
grep -q "^2 incidents: missing_rank all_reduce at train.py:train_step," "$dir/mix.txt" ||
	{ echo "FAIL: dumps and logs not one cause"; cat "$dir/mix.txt"; exit 1; }
grep -q "^2 incidents: undecided (insufficient_data)" "$dir/mix.txt" ||
	{ echo "FAIL: undecided not listed apart"; cat "$dir/mix.txt"; exit 1; }
# --quiet keeps the unreadable incident to its row, and changes nothing
# else.
"$HANGDOC" triage -j 2 --quiet --format jsonl "$dir/inc" >"$dir/quiet.jsonl" \
	2>"$dir/quiet.err"
[ ! -s "$dir/quiet.err" ] ||
	{ echo "FAIL: --quiet still wrote:"; head -3 "$dir/quiet.err"; exit 1; }
cmp -s "$dir/quiet.jsonl" "$dir/out.jsonl" ||
	{ echo "FAIL: --quiet changed the lines"; exit 1; }
echo "triage: ok"
