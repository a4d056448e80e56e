#!/bin/sh
# Measures `hangdoc triage -j 2` against `-j 1` over N generated incidents
# (scripts/gen-triage-incidents.py, mixed causes); best of R runs of each.
#
#     scripts/bench-triage.sh [N] [R]
set -eu
n=${1:-200}
runs=${2:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
hangdoc=${HANGDOC:-$here/hangdoc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$here/scripts/gen-triage-incidents.py" "$dir/inc" "$n"
best() {
	b=
	for _ in $(seq "$runs"); do
		t0=$(date +%s%N)
		"$hangdoc" triage -j "$1" --format jsonl "$dir/inc" >/dev/null 2>&1 || :
		t=$(( $(date +%s%N) - t0 ))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}
t1=$(best 1)
t2=$(best 2)
awk -v a="$t1" -v b="$t2" -v n="$n" 'BEGIN {
	printf "%d incidents: -j 1 %.3f s, -j 2 %.3f s, ratio %.2f\n",
	       n, a / 1e9, b / 1e9, a / b }'
