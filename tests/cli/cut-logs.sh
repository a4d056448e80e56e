#!/bin/sh
# A log cut at any byte never blames its rank (issue 20, "Bad luck,
# round two"): a text log whose last line has no line end was cut while
# written or copied, whatever the torn piece looks like ("nod" of a
# "node-a:" prefix, OpType=ALL of ALLREDUCE, NumelIn=26214 of 262144),
# so what its rank did after the cut is unknown.  Four fixture logs are
# cut at about 40 offsets each (every Nth byte, plus the offsets the
# adversarial pass found); each cut set is analysed, and no verdict may
# name the cut rank at medium or high confidence unless the uncut set
# names it too.  A healthy set with a log cut inside a line is never
# no_fault (exit 0): what followed the cut is unknown.  Bounded in count,
# not timed.  Run by make check with HANGDOC set.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
data=$HD_SRCDIR/tests/data/nccl

# culprits FILE.json: "rank confidence" for each culprit of each verdict
culprits() {
	python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print("unparsable")
    sys.exit(0)
for v in d.get("verdicts", []):
    for r in v.get("culprit_ranks") or []:
        print(r, v.get("confidence"), v.get("kind"))
' "$1"
}

# scan FIXTURE FILE RANK HEALTHY OFFSET...
scan() {
	fx=$1 file=$2 rank=$3 healthy=$4
	shift 4
	size=$(wc -c <"$data/$fx/$file")
	step=$((size / 37 + 1))
	"$HANGDOC" analyze --format json "$data/$fx" >"$tmp/base.json" 2>/dev/null
	base=$(culprits "$tmp/base.json" | awk -v r="$rank" '$1 == r')
	offs="$*"
	o=1
	while [ "$o" -lt "$size" ]; do
		offs="$offs $o"
		o=$((o + step))
	done
	rm -rf "$tmp/case"
	cp -R "$data/$fx" "$tmp/case" || exit 99
	chmod -R u+w "$tmp/case" || exit 99
	for off in $offs; do
		head -c "$off" "$data/$fx/$file" >"$tmp/case/$file" || exit 99
		"$HANGDOC" analyze --format json "$tmp/case" >"$tmp/out.json" \
			2>"$tmp/err"
		status=$?
		case $status in
		0 | 1 | 5 | 6) ;;
		*)
			fail "$fx/$file cut at $off: exit $status"
			continue
			;;
		esac
		got=$(culprits "$tmp/out.json" |
			awk -v r="$rank" '$1 == r && $2 != "low"')
		if [ -n "$got" ] && [ -z "$base" ]; then
			fail "$fx/$file cut at $off: rank $rank blamed: $got"
			continue
		fi
		# a cut inside a line: the byte before the cut is no line end
		last=$(head -c "$off" "$data/$fx/$file" | tail -c 1 | od -An -c |
			tr -d ' ')
		if [ "$healthy" = yes ] && [ "$last" != '\n' ] &&
			[ "$status" -eq 0 ]; then
			fail "$fx/$file cut at $off, inside a line: no_fault (exit 0)"
			continue
		fi
		pass=$((pass + 1))
	done
}

scan missing-rank rank0.log 0 no 6228 6594 6615
scan healthy rank1.log 1 yes 8057
scan network-fault rank0.log 0 no 3391
scan type-mismatch rank0.log 0 no 222
finish
