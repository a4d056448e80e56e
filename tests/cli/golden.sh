#!/bin/sh
# Golden CLI tests (zstd style).  Each tests/cli/<cmd>-<case>.args holds the
# arguments of one hangdoc run, with paths relative to the source tree; the
# matching .out holds its expected standard output, then, when the run wrote
# to standard error, a line "[stderr]" and what it wrote, and a last line
# "[exit N]".  HANGDOC_REGEN=1 rewrites the .out files from the current
# output instead of comparing ("accept new output").
set -u
# Reproducible reports: a fixed generated_at, no analysis time.
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
cd "$HD_SRCDIR" || exit 99
pass=0
fail=0
tmp=$(mktemp) || exit 99
err=$(mktemp) || exit 99
trap 'rm -f "$tmp" "$err"' EXIT
for args_file in tests/cli/*.args; do
	[ -e "$args_file" ] || continue
	name=${args_file%.args}
	# Arguments are split on whitespace; no quoting is needed in practice.
	# shellcheck disable=SC2046
	"$HANGDOC" $(cat "$args_file") >"$tmp" 2>"$err"
	status=$?
	if [ -s "$err" ]; then
		echo "[stderr]" >>"$tmp"
		cat "$err" >>"$tmp"
	fi
	echo "[exit $status]" >>"$tmp"
	if [ "${HANGDOC_REGEN:-0}" = 1 ]; then
		cp "$tmp" "$name.out"
		echo "regenerated $name.out"
		continue
	fi
	if cmp -s "$tmp" "$name.out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name"
		diff -u "$name.out" "$tmp" | head -40
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
