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
#   LINKS_MIN=32768  from this many ranks on, write two dumps and
#                    hard-link every other rank's name to the first
#                    (gen-fr-dumps.py bench --links): a 131,072-rank
#                    job's dumps each carry its 1 MB member list, 146 GiB
#                    in all, which no disk here holds.  hangdoc still
#                    opens and parses every file: HANGDOC_BENCH_READ_COPIES
#                    makes it merge them as distinct ranks, which it
#                    otherwise refuses as copies (docs/safety.md)
#   HANGDOC=./hangdoc  the binary to measure
#   RUNS=3  hangdoc runs per rank count; the median is reported
#   BASELINE_HANGDOC=  another build (main's) run on the same dumps in the
#                      same loop, and the ratios to it
# 131072 ranks: pass it (scripts/bench-fr.sh 16384 32768 65536 131072).
# The incident's budget (src/core/hd-budget.h) bounds the records kept
# (16 GiB), not the bytes read: 131,072 ranks of 500 entries are read
# whole, and of 2,000 entries (about 14 GB of records, 52 bytes an op);
# what a larger run keeps past the budget is refused, which the report
# then says.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
entries=${ENTRIES:-2000}
baseline_max=${BASELINE_MAX:-4096}
links_min=${LINKS_MIN:-32768}
runs=${RUNS:-3}
base_bin=${BASELINE_HANGDOC:-}
hangdoc=${HANGDOC:-$top/hangdoc}
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

# measure BINARY TAG: sets m_s, m_cpu, m_rss of the median of RUNS runs
# (one run in three on a shared box is off)
measure() {
	for k in $(seq "$runs"); do
		HANGDOC_BENCH_READ_COPIES=${links:+1} /usr/bin/time -v \
			"$1" analyze "$dir" >"$tmp/out-$2-$n" \
			2>"$tmp/time-$2-$n-$k" || true
		echo "$(secs "$tmp/time-$2-$n-$k") $k"
	done | sort -n | sed -n "$(((runs + 1) / 2))p" >"$tmp/median-$n"
	k=$(cut -d' ' -f2 "$tmp/median-$n")
	m_s=$(secs "$tmp/time-$2-$n-$k")
	m_cpu=$(cpu "$tmp/time-$2-$n-$k")
	m_rss=$(rss "$tmp/time-$2-$n-$k")
}

for n in "$@"; do
	dir="$tmp/ranks-$n"
	t0=$(date +%s)
	links=
	[ "$n" -lt "$links_min" ] || links=--links
	python3 "$top/scripts/gen-fr-dumps.py" bench "$dir" "$n" "$entries" \
		$links
	gen=$(( $(date +%s) - t0 ))
	# every name counts, hard links included: each is read
	bytes=$(find "$dir" -type f -printf '%s\n' |
		awk '{ s += $1 } END { printf "%.0f", s }')
	# the other binary first, when asked for, then the one measured
	if [ -n "$base_bin" ]; then
		measure "$base_bin" base
		b_s=$m_s b_cpu=$m_cpu b_rss=$m_rss
	fi
	measure "$hangdoc" hd
	hd_s=$m_s hd_cpu=$m_cpu hd_rss=$m_rss
	verdict=$(head -1 "$tmp/out-hd-$n" | cut -c1-70)
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
	echo "  hangdoc analyze (median of $runs): ${hd_s}s (CPU ${hd_cpu}s)," \
		"peak RSS ${hd_rss} MiB;" \
		"first line: $verdict"
	echo "  python baseline: ${py_s}s (CPU ${py_cpu}s)," \
		"peak RSS ${py_rss} MiB ($py_note)"
	echo "  ratio python/hangdoc: ${ratio}x"
	if [ -n "$base_bin" ]; then
		echo "  $base_bin (same run): ${b_s}s (CPU ${b_cpu}s)," \
			"peak RSS ${b_rss} MiB;" \
			"first line: $(head -1 "$tmp/out-base-$n" | cut -c1-70)"
		echo "$b_s $hd_s $b_cpu $hd_cpu $b_rss $hd_rss" | awk '{
			printf "  ratio hangdoc/baseline binary: wall %.2f," \
			       " CPU %.2f, peak RSS %.2f\n",
			       $2 / $1, $4 / $3, $6 / $5 }'
	fi
	rm -rf "$dir"
done
