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
# no_fault (exit 0): what followed the cut is unknown.  A log that lacks
# only its final line end is cut the same way (its last line, complete
# as it looks, is the torn piece): each log is also analysed without its
# last byte, and must give what a cut inside its last line gives.
# Bounded in count, not timed.  Run by make check with HANGDOC set.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
data=$HD_SRCDIR/tests/data/nccl

# report_lines MODE FILE.json: for MODE culprits, "rank confidence kind"
# for each culprit of each verdict; for MODE verdicts, each verdict's
# kind, confidence and culprits
report_lines() {
	python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[2]))
except ValueError:
    print("unparsable")
    sys.exit(0)
for v in d.get("verdicts", []):
    if sys.argv[1] == "verdicts":
        print(v.get("kind"), v.get("confidence"), v.get("culprit_ranks"))
        continue
    for r in v.get("culprit_ranks") or []:
        print(r, v.get("confidence"), v.get("kind"))
' "$1" "$2"
}
culprits() { report_lines culprits "$1"; }
verdicts() { report_lines verdicts "$1"; }

# cut_at FIXTURE FILE OFFSET OUT: the fixture with FILE cut after OFFSET
# bytes, analysed into OUT.json; its exit status in $status
cut_at() {
	rm -rf "$tmp/case"
	cp -R "$data/$1" "$tmp/case" || exit 99
	chmod -R u+w "$tmp/case" || exit 99
	head -c "$3" "$data/$1/$2" >"$tmp/case/$2" || exit 99
	"$HANGDOC" analyze --format json "$tmp/case" >"$4.json" 2>/dev/null
	status=$?
}

# newline FIXTURE FILE: without only its final line end, FILE is a log
# cut inside its last line: the same exit status and verdicts as a cut
# in the middle of that line, and a warning that it ends inside a line
newline() {
	size=$(wc -c <"$data/$1/$2")
	last=$(tail -n 1 "$data/$1/$2" | wc -c)
	cut_at "$1" "$2" $((size - 1)) "$tmp/nl"
	nl_status=$status
	cut_at "$1" "$2" $((size - last / 2)) "$tmp/mid"
	if [ "$nl_status" -ne "$status" ] ||
		[ "$(verdicts "$tmp/nl.json")" != "$(verdicts "$tmp/mid.json")" ]; then
		fail "$1/$2 without its final line end: exit $nl_status," \
			"$(verdicts "$tmp/nl.json"); cut inside its last line:" \
			"exit $status, $(verdicts "$tmp/mid.json")"
		return
	fi
	if ! grep -q 'the file ends inside a line' "$tmp/nl.json"; then
		fail "$1/$2 without its final line end: no warning that it ends inside a line"
		return
	fi
	pass=$((pass + 1))
}

# scan FIXTURE FILE RANK HEALTHY OFFSET...
scan() {
	fx=$1 file=$2 rank=$3 healthy=$4
	shift 4
	size=$(wc -c <"$data/$fx/$file")
	step=$((size / 37 + 1))
	"$HANGDOC" analyze --format json "$data/$fx" >"$tmp/base.json" 2>/dev/null
	base=$(culprits "$tmp/base.json" | awk -v r="$rank" '$1 == r')
	# and the log without only its final line end
	offs="$* $((size - 1))"
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
newline missing-rank rank0.log
newline healthy rank1.log
newline healthy rank3.log
newline network-fault rank0.log
newline type-mismatch rank0.log
finish
