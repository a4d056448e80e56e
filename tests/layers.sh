#!/bin/sh
# shellcheck disable=SC2034,SC2154 # the layers are read through eval
# The layers stay layers, and the compiler is what holds them (see
# docs/architecture.md, Layers).  Three checks:
#
# 1. Each library compiles with the include path the Makefile gives it
#    (HD_CPPFLAGS_<layer>, which must cover only itself and the layers
#    below it): one line including each project header by its name must
#    compile for the layer's own and lower headers and fail as not found
#    for every other; and no header may be found by a path from the top of
#    the tree ("src/engine/hd-align.h"), so no -I reaches the top.
# 2. A quoted include also searches the including file's folder, which the
#    compiler cannot be told to skip, and any include, quoted or angle,
#    reaches out of a -I folder through "..": so every #include of the
#    layers' and the CLI's sources names a project header in quotes
#    without a folder, and a system header never through "..".  Rejected:
#    a quoted spelling with a folder ("../engine/x.h", "engine/x.h"), any
#    spelling with ".." (<../engine/x.h>), a project header's name in
#    angle brackets (<x.h>, <engine/x.h>), and computed includes.  That
#    leaves the including file's folder its own layer and each -I folder
#    the layer it names.  HD_LAYERS_TREE (default HD_SRCDIR) names the
#    tree to scan; tests/layers-planted.sh points it at a planted copy.
# 3. For the engine and the report, no file but the entry point includes
#    the entry point's header.
set -u
: "${HD_CC:?}" "${HD_SRCDIR:?}" "${HD_BUILDDIR:?}"
: "${HD_DEP_CFLAGS=}"
tree=${HD_LAYERS_TREE:-$HD_SRCDIR}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

core="src/core"
parsers="$core parsers"
engine="$core src/engine"
replay="$engine replay"
report="$replay src/report"
hdirs="src/core parsers src/engine replay src/report src/cli"

pass=0
fail=0
# try LAYER SPELLING: got=yes (compiles), no (not found) or broken.
try() {
	eval "flags=\${HD_CPPFLAGS_$1:?HD_CPPFLAGS_$1 must hold its flags}"
	printf '#include "config.h"\n#include "%s"\n' "$2" >"$tmp/t.c"
	# shellcheck disable=SC2086
	if $HD_CC -std=gnu11 $HD_DEP_CFLAGS $flags -fsyntax-only \
		"$tmp/t.c" >"$tmp/err" 2>&1; then
		got=yes
	elif grep -q -e 'No such file' -e 'file not found' "$tmp/err"; then
		got=no
	else
		got=broken
	fi
}
verdict() { # LAYER SPELLING EXPECTED
	if [ "$got" = "$3" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $1 including \"$2\": expected '$3', got '$got'"
		head -5 "$tmp/err"
	fi
}
for layer in core parsers engine replay report; do
	eval "dirs=\$$layer"
	for d in $hdirs; do
		for h in "$HD_SRCDIR/$d"/*.h; do
			[ -e "$h" ] || continue
			name=${h##*/}
			allowed=no
			for a in $dirs; do
				[ "$a" = "$d" ] && allowed=yes
			done
			try "$layer" "$name"
			verdict "$layer" "$name" "$allowed"
			try "$layer" "$d/$name"
			verdict "$layer" "$d/$name" no
		done
	done
done
# Every project header's name, for the angle-bracket rule.
names=
for d in $hdirs; do
	for h in "$HD_SRCDIR/$d"/*.h; do
		[ -e "$h" ] && names="$names ${h##*/}"
	done
done
# bad_includes FILE: each refused #include line, with its number and why.
bad_includes() {
	awk -v names="$names" '
	BEGIN {
		n = split(names, a, " ")
		for (i = 1; i <= n; i++)
			project[a[i]] = 1
	}
	/^[[:space:]]*#[[:space:]]*include/ {
		s = $0
		sub(/^[[:space:]]*#[[:space:]]*include[[:space:]]*/, "", s)
		open = substr(s, 1, 1)
		if (open == "\"")
			shut = "\""
		else if (open == "<")
			shut = ">"
		else {
			print FNR ": " $0 " (a macro)"
			next
		}
		path = substr(s, 2)
		end = index(path, shut)
		if (end > 0)
			path = substr(path, 1, end - 1)
		base = path
		sub(/.*\//, "", base)
		if (path ~ /(^|\/)\.\.(\/|$)/)
			why = "through .."
		else if (open == "\"" && index(path, "/") > 0)
			why = "by a folder"
		else if (open == "<" && (base in project))
			why = "a project header in <>"
		else
			next
		print FNR ": " $0 " (" why ")"
	}' "$1"
}
for d in $hdirs; do
	for f in "$tree/$d"/*.c "$tree/$d"/*.h; do
		[ -e "$f" ] || continue
		bad=$(bad_includes "$f")
		if [ -n "$bad" ]; then
			fail=$((fail + 1))
			echo "FAIL: $d/${f##*/} includes by a path, a macro or <>" \
				"(name a project header alone, in quotes; see" \
				"docs/architecture.md):"
			echo "$bad"
		else
			pass=$((pass + 1))
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
	for f in "$tree/$dir"/*.c "$tree/$dir"/*.h; do
		case ${f##*/} in
		"$top.c" | "$top.h") continue ;;
		esac
		if grep -q "^#include \"$top.h\"" "$f"; then
			fail=$((fail + 1))
			echo "FAIL: $dir/${f##*/} includes $top.h, the header of" \
				"what runs it"
		else
			pass=$((pass + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
