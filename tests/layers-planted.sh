#!/bin/sh
# The layer rule catches what it is for: plant an upward include in a copy
# of the tree and expect the build's include path or tests/layers.sh to
# refuse it.  src/core/hd-archive.c (core) gets, one at a time, each
# spelling below, with who must refuse it:
#
#   lint  tests/layers.sh must fail, naming the file (the compiler may find
#         the header: a quoted include looks in the file's own folder
#         first, and ".." climbs out of any -I folder, the core's included);
#   cc    the core's flags must not find it (nostdinc: no -I reaches the
#         top of the tree or another layer);
#   both  both.
set -u
: "${HD_CC:?}" "${HD_SRCDIR:?}" "${HD_BUILDDIR:?}" "${HD_CPPFLAGS_core:?}"
: "${HD_DEP_CFLAGS=}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
for d in src/core parsers src/engine replay src/report src/cli; do
	mkdir -p "$tmp/tree/$d" && cp "$HD_SRCDIR/$d"/*.[ch] "$tmp/tree/$d/" ||
		exit 99
done
target=src/core/hd-archive.c
fail=0
plant() { # SPELLING: the tree's copy of $target with it included first
	{ printf '#include %s\n' "$1" && cat "$HD_SRCDIR/$target"; } \
		>"$tmp/tree/$target" || exit 99
}
# refused_by_lint: tests/layers.sh fails on the planted tree, naming it.
refused_by_lint() {
	if HD_LAYERS_TREE="$tmp/tree" "$HD_SRCDIR/tests/layers.sh" \
		>"$tmp/out" 2>&1; then
		why="tests/layers.sh passed"
		return 1
	elif ! grep -q "FAIL: $target includes by a path" "$tmp/out"; then
		why="tests/layers.sh failed without naming $target: $(tail -3 "$tmp/out")"
		return 1
	fi
	return 0
}
# refused_by_cc: the core's flags do not find the header.
refused_by_cc() {
	# shellcheck disable=SC2086
	if $HD_CC -std=gnu11 $HD_DEP_CFLAGS $HD_CPPFLAGS_core -fsyntax-only \
		"$tmp/tree/$target" >"$tmp/err" 2>&1; then
		why="$target compiled with the core's flags"
		return 1
	elif ! grep -q -e 'No such file' -e 'file not found' "$tmp/err"; then
		why="$target broke otherwise: $(head -3 "$tmp/err")"
		return 1
	fi
	return 0
}
while read -r spelling who; do
	plant "$spelling"
	ok=yes
	why=
	case $who in
	lint | both) refused_by_lint || ok=no ;;
	esac
	case $who in
	cc | both) [ "$ok" = yes ] && { refused_by_cc || ok=no; } ;;
	esac
	if [ "$ok" = yes ]; then
		echo "ok: $spelling in $target refused ($who)"
	else
		echo "FAIL: $spelling in $target not refused ($who): $why"
		fail=1
	fi
done <<'SPELLINGS'
"../engine/hd-align.h"		lint
<../engine/hd-align.h>		lint
"../../parsers/parsers.h"	lint
<../../parsers/parsers.h>	lint
<../../src/engine/hd-align.h>	lint
<hd-align.h>			both
<engine/hd-align.h>		both
<src/engine/hd-align.h>		both
"src/engine/hd-align.h"		both
"engine/hd-align.h"		both
"hd-align.h"			cc
SPELLINGS
exit "$fail"
