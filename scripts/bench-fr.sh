#!/bin/sh
# Benchmarks hangdoc on large flight-recorder incidents against a plain
# Python load-and-group baseline (pickle.load every file, group entries by
# (pg, seq)), in the same run.  Prints seconds, the ratio, peak RSS and the
# input size for each rank count.
#
# usage: scripts/bench-fr.sh [NRANKS...]     (default: 1024 16384)
#   ENTRIES=2000  entries per rank (with frames)
#   BASELINE_MAX=4096  skip the Python baseline above this many ranks
#                      (it is then extrapolated linearly, marked as such)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
entries=${ENTRIES:-2000}
baseline_max=${BASELINE_MAX:-4096}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-fr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
[ $# -gt 0 ] || set -- 1024 16384

cat >"$tmp/baseline.py" <<'PY'
import os, pickle, sys
from collections import defaultdict
groups = defaultdict(list)
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    with open(os.path.join(d, name), "rb") as f:
        dump = pickle.load(f)
    for e in dump.get("entries", []):
        key = (e["process_group"][0], e["collective_seq_id"])
        groups[key].append((name, e["state"]))
print(len(groups), "collectives")
PY

# peak RSS in MiB and elapsed seconds from /usr/bin/time -v
rss() { awk -F': ' '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$1"; }
secs() {
	awk -F': ' '/Elapsed \(wall clock\)/ {
		n = split($2, p, ":"); s = 0
		for (i = 1; i <= n; i++) s = s * 60 + p[i]
		printf "%.2f", s }' "$1"
}
# CPU seconds (user + sys) from /usr/bin/time -v
cpu() {
	awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 }
		END { printf "%.2f", s }' "$1"
}

for n in "$@"; do
	dir="$tmp/ranks-$n"
	t0=$(date +%s)
	python3 "$top/scripts/gen-fr-dumps.py" bench "$dir" "$n" "$entries"
	gen=$(( $(date +%s) - t0 ))
	bytes=$(find "$dir" -type f -exec cat {} + | wc -c)
	# the median of three runs: one run in three on a shared box is off
	for k in 1 2 3; do
		/usr/bin/time -v "$top/hangdoc" analyze "$dir" >"$tmp/out-$n" \
			2>"$tmp/time-$n-$k" || true
		echo "$(secs "$tmp/time-$n-$k") $k"
	done | sort -n | sed -n 2p >"$tmp/median-$n"
	k=$(cut -d' ' -f2 "$tmp/median-$n")
	hd_s=$(secs "$tmp/time-$n-$k")
	hd_cpu=$(cpu "$tmp/time-$n-$k")
	hd_rss=$(rss "$tmp/time-$n-$k")
	verdict=$(head -1 "$tmp/out-$n" | cut -c1-70)
	if [ "$n" -le "$baseline_max" ]; then
		/usr/bin/time -v python3 "$tmp/baseline.py" "$dir" \
			>/dev/null 2>"$tmp/ptime-$n"
		py_s=$(secs "$tmp/ptime-$n")
		py_cpu=$(cpu "$tmp/ptime-$n")
		py_rss=$(rss "$tmp/ptime-$n")
		py_note=measured
		last_py_per_rank=$(echo "$py_s $n" | awk '{print $1 / $2}')
	else
		py_s=$(echo "${last_py_per_rank:-0} $n" |
			awk '{printf "%.2f", $1 * $2}')
		py_rss='?'
		py_cpu='?'
		py_note="EXTRAPOLATED linearly from the last measured run"
	fi
	ratio=$(echo "$py_s $hd_s" | awk '{ if ($2 > 0) printf "%.1f", $1 / $2;
					     else print "inf" }')
	echo "ranks=$n entries/rank=$entries input=$((bytes / 1048576)) MiB" \
		"(generated in ${gen}s)"
	echo "  hangdoc analyze (median of 3): ${hd_s}s (CPU ${hd_cpu}s)," \
		"peak RSS ${hd_rss} MiB;" \
		"first line: $verdict"
	echo "  python baseline: ${py_s}s (CPU ${py_cpu}s)," \
		"peak RSS ${py_rss} MiB ($py_note)"
	echo "  ratio python/hangdoc: ${ratio}x"
	rm -rf "$dir"
done
