#!/bin/sh
# A log rotated into any number of parts is one process's lane (H4 of
# issue 20): for several NCCL fixtures, rank 0's log and every rank's log
# are rotated into 3 and 4 parts (plain .2/.1/log, gzip .2.gz/.1.gz, dated
# -YYYYMMDD, and copytruncate's hole of NUL bytes) by
# scripts/gen-rotated.py, and every verdict (kind, culprits, confidence)
# must be the one of the same logs unrotated.  Before, the newest part
# stayed an anonymous process: an extra lagging_rank on rank 0, and a
# healthy run at low confidence instead of medium.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
gen="$HD_SRCDIR/scripts/gen-rotated.py"

# verdicts DIR: one line per verdict, "kind confidence culprits"
verdicts() {
	"$HANGDOC" analyze --no-pager --format json "$1" 2>/dev/null |
		python3 -c '
import json, sys
for v in json.load(sys.stdin)["verdicts"]:
    print(v["kind"], v["confidence"],
          ",".join(str(c["rank"]) for c in v.get("culprits") or []))'
}

for fx in healthy missing-rank type-mismatch size-mismatch dtype-mismatch \
	root-mismatch network-fault rank-crashed; do
	src="$HD_SRCDIR/tests/data/nccl/$fx"
	python3 "$gen" "$src" "$tmp/$fx-base" 1 plain 0 || exit 99
	want=$(verdicts "$tmp/$fx-base")
	[ -n "$want" ] || { fail "$fx: no verdict unrotated"; continue; }
	for n in 3 4; do
		for style in plain gz date hole; do
			for who in 0 all; do
				d="$tmp/$fx-$n-$style-$who"
				python3 "$gen" "$src" "$d" "$n" "$style" \
					"$who" || exit 99
				got=$(verdicts "$d")
				check "$fx in $n $style parts ($who): '$got', want '$want'" \
					test "$got" = "$want"
				rm -rf "$d"
			done
		done
	done
done
finish
