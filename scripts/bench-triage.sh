#!/bin/sh
# Measures `hangdoc triage -j 2` against `-j 1` over N generated incidents
# (scripts/gen-triage-incidents.py --ops K: mixed causes, 8 ranks and K
# collectives per rank, so fixed per-incident costs do not dominate); best
# of R runs of each.
#
# A shared machine may not give this process two cores however parallel
# it is, so the same runs also time a control: the two halves of the batch
# as two `-j 1` processes side by side.  The control's ratio is the most
# the machine gave at that time; compare the triage ratio with it.
#
#     scripts/bench-triage.sh [N] [R] [K]      (K 0: the small fixtures)
set -eu
n=${1:-200}
runs=${2:-3}
ops=${3:-400}
here=$(cd "$(dirname "$0")/.." && pwd)
hangdoc=${HANGDOC:-$here/hangdoc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$here/scripts/gen-triage-incidents.py" --ops "$ops" "$dir/inc" "$n"
mkdir "$dir/a" "$dir/b"
i=0
for d in "$dir"/inc/*/; do
	half=a
	[ $((i % 2)) -eq 1 ] && half=b
	ln -s "$d" "$dir/$half/$(basename "$d")"
	i=$((i + 1))
done
now() { date +%s%N; }
once() {
	case $1 in
	control)
		"$hangdoc" triage -j 1 --format jsonl "$dir/a" >/dev/null 2>&1 &
		"$hangdoc" triage -j 1 --format jsonl "$dir/b" >/dev/null 2>&1 || :
		wait || : ;;
	*)
		"$hangdoc" triage -j "$1" --format jsonl "$dir/inc" \
			>/dev/null 2>&1 || : ;;
	esac
}
# Best of R, the variants interleaved so that a burst of load elsewhere
# hits them alike.
b1= b2= bc=
for _ in $(seq "$runs"); do
	for v in 1 2 control; do
		t0=$(now)
		once "$v"
		t=$(($(now) - t0))
		case $v in
		1) [ -z "$b1" ] || [ "$t" -lt "$b1" ] && b1=$t ;;
		2) [ -z "$b2" ] || [ "$t" -lt "$b2" ] && b2=$t ;;
		*) [ -z "$bc" ] || [ "$t" -lt "$bc" ] && bc=$t ;;
		esac
	done
done
echo "load: $(uptime | sed 's/.*load average/load average/')"
size="8 ranks x $ops ops"
[ "$ops" -gt 0 ] || size="copies of the small test fixtures"
awk -v a="$b1" -v b="$b2" -v c="$bc" -v n="$n" -v sz="$size" 'BEGIN {
	printf "%d incidents, %s: -j 1 %.3f s, -j 2 %.3f s, " \
	       "ratio %.2f; control (two -j 1 processes) %.3f s, ratio %.2f\n",
	       n, sz, a / 1e9, b / 1e9, a / b, c / 1e9, a / c }'
