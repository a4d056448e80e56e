#!/bin/sh
# The layers stay layers: each library compiles with an include path that
# covers only itself and the layers below it, so a header of a higher (or a
# sibling) layer must not be found from it.  For every layer this compiles
# one line including each project header: the layer's own and lower ones
# must compile, every other one must fail as not found.  Then, for
# the engine and the report, that no file but the entry point includes
# the entry point's header.
set -u
: "${HD_CC:?}" "${HD_SRCDIR:?}" "${HD_BUILDDIR:?}"
: "${HD_DEP_CFLAGS=}"
cd "$HD_SRCDIR" || exit 99
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

core="src/core"
parsers="$core parsers"
engine="$core src/engine"
replay="$engine replay"
report="$replay src/report"

pass=0
fail=0
for layer in core parsers engine replay report; do
	eval "dirs=\$$layer"
	flags="-I$HD_BUILDDIR"
	for d in $dirs; do
		flags="$flags -I$d"
	done
	for h in src/core/*.h parsers/*.h src/engine/*.h replay/*.h \
		src/report/*.h src/cli/*.h; do
		dir=${h%/*}
		allowed=no
		for d in $dirs; do
			[ "$d" = "$dir" ] && allowed=yes
		done
		printf '#include "config.h"\n#include "%s"\n' "${h##*/}" \
			>"$tmp/t.c"
		# shellcheck disable=SC2086
		if $HD_CC -std=gnu11 $HD_DEP_CFLAGS $flags -fsyntax-only \
			-DPCRE2_CODE_UNIT_WIDTH=8 "$tmp/t.c" \
			>"$tmp/err" 2>&1; then
			got=yes
		elif grep -q -e 'No such file' -e 'file not found' "$tmp/err"; then
			got=no
		else
			got=broken
		fi
		if [ "$got" = "$allowed" ]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL: $layer including ${h##*/}: expected" \
				"'$allowed', got '$got'"
			head -5 "$tmp/err"
		fi
	done
done
# Inside a layer the same holds one level down: the engine's checks see
# the index, the verdict model and hd-checks.h, never the orchestrator's
# hd-engine.h, and the report's renderers never include the dispatcher's
# hd-report.h, so neither can call back into what runs it.
for rule in "src/engine hd-engine" "src/report hd-report"; do
	dir=${rule% *}
	top=${rule#* }
	for f in "$dir"/*.c "$dir"/*.h; do
		case ${f##*/} in
		"$top.c" | "$top.h") continue ;;
		esac
		if grep -q "^#include \"$top.h\"" "$f"; then
			fail=$((fail + 1))
			echo "FAIL: $f includes $top.h, the header of what runs it"
		else
			pass=$((pass + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
