#!/bin/sh
# The layer rule catches what it is for: plant an upward include in a copy
# of the tree and expect the build's include path or tests/layers.sh to
# refuse it.  src/core/hd-archive.c (core) gets, one at a time:
#
#   "../engine/hd-align.h"   found by the compiler (a quoted include looks
#                            in the file's own folder first), so layers.sh
#                            must fail on it, naming the file;
#   "src/engine/hd-align.h"  must not be found with the core's flags
#                            (nostdinc: no -I reaches the top of the tree);
#   "hd-align.h"             must not be found with the core's flags.
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
	cp "$HD_SRCDIR/$target" "$tmp/tree/$target" &&
		sed -i "1i #include \"$1\"" "$tmp/tree/$target" || exit 99
}
# The hole the layer test closes: the compiler finds it...
plant ../engine/hd-align.h
# shellcheck disable=SC2086
if ! $HD_CC -std=gnu11 $HD_DEP_CFLAGS $HD_CPPFLAGS_core -fsyntax-only \
	"$tmp/tree/$target" >"$tmp/err" 2>&1; then
	echo "note: the compiler refused the relative include itself"
fi
# ...and the layer test must not pass it.
if HD_LAYERS_TREE="$tmp/tree" "$HD_SRCDIR/tests/layers.sh" >"$tmp/out" 2>&1; then
	echo "FAIL: tests/layers.sh passed with ../engine/hd-align.h in $target"
	fail=1
elif ! grep -q "FAIL: $target includes by a path" "$tmp/out"; then
	echo "FAIL: tests/layers.sh failed without naming $target:"
	tail -5 "$tmp/out"
	fail=1
else
	echo "ok: layers.sh rejects ../engine/hd-align.h in $target"
fi
for spelling in src/engine/hd-align.h hd-align.h; do
	plant "$spelling"
	# shellcheck disable=SC2086
	if $HD_CC -std=gnu11 $HD_DEP_CFLAGS $HD_CPPFLAGS_core -fsyntax-only \
		"$tmp/tree/$target" >"$tmp/err" 2>&1; then
		echo "FAIL: $target compiled with \"$spelling\""
		fail=1
	elif grep -q -e 'No such file' -e 'file not found' "$tmp/err"; then
		echo "ok: the core's include path does not find \"$spelling\""
	else
		echo "FAIL: $target with \"$spelling\" broke otherwise:"
		head -5 "$tmp/err"
		fail=1
	fi
done
exit "$fail"
