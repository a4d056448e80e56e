# shellcheck shell=sh
# What the benchmark scripts share, sourced once $tmp names their
# temporary directory.
: "${tmp:?bench-lib.sh needs \$tmp, a temporary directory}"

# best COMMAND...: runs COMMAND three times and prints "wall cpu" in
# seconds, each the smallest seen (cpu: user + system, which a loaded
# machine's other work does not inflate as it does wall time).
best() {
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %U %S' -o "$tmp/t.txt" "$@" >/dev/null 2>&1 || true
		tail -n 1 "$tmp/t.txt"
	done | awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 + $3 < c { c = $2 + $3 }
		END { print w, c }'
}
