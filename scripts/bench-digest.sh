#!/bin/sh
# Measures digests (docs/format-digest.md) on flight-recorder incidents of
# scripts/gen-fr-dumps.py: the digest's size as a share of the input's,
# for the incident whose times step evenly (bench) and for one whose
# every time is off by up to 200 us (bench-jitter), with the input split
# among NODES digests as nodes would; and checks that analyze gives the
# same JSON report on the digests as on the files.
#
# usage: scripts/bench-digest.sh [NRANKS]      (default: 1024)
#   ENTRIES=2000  entries per rank (with frames)
#   NODES=8       digests the ranks are split among
#   LEVEL=9       zstd level of the digests
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hangdoc=${HANGDOC:-$top/hangdoc}
nranks=${1:-1024}
entries=${ENTRIES:-2000}
nodes=${NODES:-8}
level=${LEVEL:-9}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-digest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

for mode in bench bench-jitter; do
	inc="$tmp/$mode"
	python3 "$top/scripts/gen-fr-dumps.py" "$mode" "$inc" "$nranks" "$entries"
	in_bytes=$(cat "$inc"/* | wc -c)
	# the files in the order analyze reads them, split among the nodes
	ls "$inc" | LC_ALL=C sort >"$tmp/files"
	total=$(wc -l <"$tmp/files")
	digests=
	n=0
	while [ "$n" -lt "$nodes" ]; do
		from=$((total * n / nodes + 1))
		to=$((total * (n + 1) / nodes))
		sed -n "${from},${to}p" "$tmp/files" | sed "s|^|$inc/|" >"$tmp/part"
		# shellcheck disable=SC2046
		"$hangdoc" digest --level "$level" -o "$tmp/node$n.hdd" \
			$(cat "$tmp/part")
		digests="$digests $tmp/node$n.hdd"
		n=$((n + 1))
	done
	# shellcheck disable=SC2086
	d_bytes=$(cat $digests | wc -c)
	"$hangdoc" digest --level "$level" -o "$tmp/one.hdd" "$inc"
	one=$(wc -c <"$tmp/one.hdd")
	"$hangdoc" analyze --format json "$inc" 2>/dev/null |
		grep -v '"generated_at"\|"analysis_ms"' >"$tmp/raw.json" || true
	# shellcheck disable=SC2086
	"$hangdoc" analyze --format json $digests 2>/dev/null |
		grep -v '"generated_at"\|"analysis_ms"' >"$tmp/dg.json" || true
	same=no
	cmp -s "$tmp/raw.json" "$tmp/dg.json" && same=yes
	awk -v m="$mode" -v r="$nranks" -v i="$in_bytes" -v d="$d_bytes" \
		-v o="$one" -v n="$nodes" -v s="$same" 'BEGIN {
		printf "%s %d ranks: input %d B; %d digests %d B (%.3f%%); " \
		       "one digest %d B (%.3f%%); same report: %s\n",
		       m, r, i, n, d, 100 * d / i, o, 100 * o / i, s }'
	rm -rf "$inc"
done
