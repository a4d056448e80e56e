#!/bin/sh
# hangdoc diff over generated incidents (scripts/gen-triage-incidents.py):
# two incidents of one cause in different jobs (other hosts and addresses)
# are the same cause (exit 0, same_cause true, the hosts told apart);
# incidents of different causes differ (exit 1); an unreadable one leaves
# nothing to compare (exit 3).  One hang seen through its dumps and through
# its logs is one cause (the call site only the dumps show is a refinement);
# two undecided analyses are never one cause, even of the same input.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
dir=$tmp
python3 "$HD_SRCDIR/scripts/gen-triage-incidents.py" "$dir/inc" 10 || exit 99
# inc-0000 and inc-0001 are network faults, inc-0004 a missing rank
"$HANGDOC" diff --format json "$dir/inc/inc-0000" "$dir/inc/inc-0001" \
	>"$dir/same.json" 2>"$dir/err"
status=$?
[ "$status" -eq 0 ] || { echo "FAIL: same cause, exit $status"; cat "$dir/err"; exit 1; }
python3 - "$dir/same.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["same_cause"] is True, d
assert d["a"]["verdict"] == d["b"]["verdict"] == "network_fault", d
assert d["a"]["fingerprint"] == d["b"]["fingerprint"], d
assert d["a"]["culprit_hosts"] != d["b"]["culprit_hosts"], d
assert d["same"]["hosts"] == "changed", d
PY
"$HANGDOC" diff "$dir/inc/inc-0000" "$dir/inc/inc-0004" >"$dir/out" 2>&1
status=$?
[ "$status" -eq 1 ] || { echo "FAIL: different causes, exit $status"; exit 1; }
grep -q "^cause      different causes" "$dir/out" ||
	{ echo "FAIL: no 'different causes'"; cat "$dir/out"; exit 1; }
"$HANGDOC" diff "$dir/inc/inc-0000" "$dir/inc/zz-unreadable" >/dev/null 2>&1
status=$?
[ "$status" -eq 3 ] || { echo "FAIL: unreadable side, exit $status"; exit 1; }
ex="$HD_SRCDIR/testdata/example-incident"
"$HANGDOC" diff --format json "$ex/fr" "$ex/logs" >"$dir/kinds.json" 2>"$dir/err"
status=$?
[ "$status" -eq 0 ] || { echo "FAIL: dumps vs logs, exit $status"; cat "$dir/kinds.json"; exit 1; }
python3 - "$dir/kinds.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["same_cause"] is True and d["undecided"] is False, d
assert d["a"]["fingerprint"] == d["b"]["fingerprint"], d
PY
und="$HD_SRCDIR/tests/data/real-shaped/partial-timeouts/pt-mostly-silent"
"$HANGDOC" diff "$und" "$und" >"$dir/out" 2>&1
status=$?
[ "$status" -eq 1 ] || { echo "FAIL: undecided vs undecided, exit $status"; cat "$dir/out"; exit 1; }
grep -q "^cause      not comparable: both are undecided" "$dir/out" ||
	{ echo "FAIL: undecided called a cause"; cat "$dir/out"; exit 1; }
echo "diff: ok"
