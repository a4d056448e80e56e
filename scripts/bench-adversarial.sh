#!/bin/sh
# Times the inputs of scripts/gen-adversarial.py (issue 20) with two
# hangdoc binaries in one run, and prints each one's CPU seconds, peak RSS
# and the ratio: the fixes for quadratic paths and claimed sizes,
# measured against the binary before them.
#   scripts/bench-adversarial.sh OLD_HANGDOC NEW_HANGDOC
set -eu
old=${1:?old hangdoc}
new=${2:?new hangdoc}
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# cpu BIN FILE FORMAT: "user+sys seconds, peak KB, report bytes"
cpu() {
	/usr/bin/time -f '%U %S %M' -o "$dir/t" \
		"$1" analyze --format "$3" "$2" >"$dir/out" 2>/dev/null || true
	awk -v b="$(wc -c <"$dir/out")" '{ printf "%.2f %d %d", $1 + $2, $3, b }' \
		"$dir/t"
}

printf '%-8s %8s %10s %12s | %8s %10s %12s | %s\n' case old_s old_KB old_bytes \
	new_s new_KB new_bytes ratio
for spec in "anon anon.log.gz 20000 text" "comms comms.log.gz 50000 text" \
	"kineto trace.json.gz 20000 text" "nranks nranks.log 30 json"; do
	# shellcheck disable=SC2086 # split on purpose: the spec's words
	set -- $spec
	python3 "$top/scripts/gen-adversarial.py" "$1" "$dir/$2" "$3"
	o=$(cpu "$old" "$dir/$2" "$4")
	n=$(cpu "$new" "$dir/$2" "$4")
	# shellcheck disable=SC2086 # split on purpose: three numbers each
	set -- "$1" $o $n
	awk -v c="$1" -v os="$2" -v ok="$3" -v ob="$4" -v ns="$5" -v nk="$6" \
		-v nb="$7" 'BEGIN {
		printf "%-8s %8.2f %10d %12d | %8.2f %10d %12d | %.0fx\n",
			c, os, ok, ob, ns, nk, nb, os / (ns > 0.01 ? ns : 0.01) }'
done
