#!/bin/sh
# shellcheck disable=SC2154 # the layers' flags are read through eval
# What the layers above the store may read of its model (see
# docs/architecture.md, The store):
#
# 1. A signal's seq and code mean what its type says, so the engine,
#    replay, the reports and the CLI read them only through the typed
#    accessors of src/core/hd-store.h.  The compiler holds it: with
#    HD_SIGNAL_FIELDS_HIDDEN the two fields have other names, and every
#    source of those layers is compiled so (-fsyntax-only) with its
#    layer's flags; a raw sig->code or sig->seq does not compile.  A
#    planted raw read must be refused.  KNOWN names files another change
#    owns that still read a field raw: each must still be refused, and
#    one that compiles fails the test until it is taken off the list.
# 2. Reports never list input kinds: no source of src/report names an
#    HD_INPUT_<kind> but HD_INPUT_UNKNOWN (none); they ask the kind's
#    flags (HD_KIND_HOST_STATE, ...) or its name.  HD_STORE_READS_TREE
#    (default HD_SRCDIR) names the tree to scan.
set -u
: "${HD_CC:?}" "${HD_SRCDIR:?}"
: "${HD_DEP_CFLAGS=}"
tree=${HD_STORE_READS_TREE:-$HD_SRCDIR}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# hd-sig-progress.c reads the SeqNum of timeouts and PG status raw; its
# owner's change routes it through hd_signal_seq().
KNOWN="src/engine/hd-sig-progress.c"

pass=0
fail=0
# refused LAYER FILE: true when FILE does not compile for a raw read
# of a hidden field, false when it compiles; exits on any other error.
compile() {
	eval "flags=\${HD_CPPFLAGS_$1:?HD_CPPFLAGS_$1 must hold its flags}"
	# shellcheck disable=SC2086
	$HD_CC -std=gnu11 $HD_DEP_CFLAGS $flags -DHD_SIGNAL_FIELDS_HIDDEN \
		-fsyntax-only "$2" >"$tmp/err" 2>&1 && return 0
	grep -q -E "no member named .(seq|code)" "$tmp/err" && return 1
	return 2
}
for rule in "engine src/engine" "replay replay" "report src/report" \
	"cli src/cli"; do
	layer=${rule% *}
	dir=${rule#* }
	for f in "$tree/$dir"/*.c; do
		[ -e "$f" ] || continue
		rel=$dir/${f##*/}
		known=no
		for k in $KNOWN; do
			[ "$k" = "$rel" ] && known=yes
		done
		compile "$layer" "$f"
		got=$?
		if [ "$got" -eq 2 ]; then
			fail=$((fail + 1))
			echo "FAIL: $rel does not compile with its layer's flags:"
			head -5 "$tmp/err"
		elif [ "$got" -eq 0 ] && [ "$known" = yes ]; then
			fail=$((fail + 1))
			echo "XPASS: $rel reads no signal field raw now: take it" \
				"off KNOWN in tests/store-reads.sh"
		elif [ "$got" -eq 1 ] && [ "$known" = no ]; then
			fail=$((fail + 1))
			echo "FAIL: $rel reads a signal's seq or code raw (read" \
				"it through its type's accessor in hd-store.h):"
			grep -E "no member named .(seq|code)" "$tmp/err" | head -5
		else
			pass=$((pass + 1))
		fi
	done
done
printf '%s\n' '#include "config.h"' '#include "hd-store.h"' \
	'int planted(const struct hd_signal *sig);' \
	'int planted(const struct hd_signal *sig) { return sig->code; }' \
	>"$tmp/planted.c"
compile engine "$tmp/planted.c"
if [ $? -eq 1 ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL: a planted raw read of a signal's code was not refused"
	head -5 "$tmp/err"
fi
for f in "$tree/src/report"/*.c "$tree/src/report"/*.h; do
	[ -e "$f" ] || continue
	# the kinds, not the list's own names (HD_INPUT_KINDS, _KIND_COUNT)
	bad=$(grep -n -o -E 'HD_INPUT_[A-Z0-9_]+' "$f" |
		grep -v -E ':HD_INPUT_(UNKNOWN|KINDS|KIND_[A-Z_]+|MAX_[A-Z_]+)$')
	if [ -n "$bad" ]; then
		fail=$((fail + 1))
		echo "FAIL: src/report/${f##*/} lists input kinds (ask the" \
			"kind's flags or name instead):"
		echo "$bad"
	else
		pass=$((pass + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
