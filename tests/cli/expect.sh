#!/bin/sh
# Scores the top verdict of every fixture under tests/data and testdata
# against the expectations written beside them (expect*.tsv, from what each
# fixture was built to show, never from hangdoc's output): a disagreement,
# a known failure that now passes, or a fixture directory no line names
# fails, naming the fixture.  See scripts/check-expect.py.  First the
# checker itself is shown to fail on each of those.  Skips (77) without
# python3.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
check="$HD_SRCDIR/scripts/check-expect.py"
dir=$tmp
mkdir -p "$dir/area" || exit 99
cp -R "$HD_SRCDIR/tests/data/fr/healthy" "$dir/area/case" || exit 99
# distcheck's source tree is read-only, and so would the copies be
chmod -R u+w "$dir/area" || exit 99
T=$(printf '\t')
# expect <tsv line> <exit status> <pattern the output must hold>
expect() {
	printf '%s\n' "$1" >"$dir/area/expect.tsv"
	python3 "$check" --hangdoc "$HANGDOC" --srcdir "$dir" area \
		>"$dir/out" 2>&1
	status=$?
	[ "$status" -eq "$2" ] && grep -q "$3" "$dir/out" || {
		echo "FAIL: checker on '$1': exit $status, want $2 and '$3'"
		cat "$dir/out"
		exit 1
	}
}
expect "case${T}no_fault${T}-${T}low${T}ok${T}healthy" 0 "^ok    case"
expect "case${T}missing_rank${T}2${T}low${T}ok${T}wrong" 1 "^FAIL  case"
expect "case${T}no_fault${T}-${T}high${T}ok${T}too sure" 1 "^FAIL  case"
expect "case${T}missing_rank${T}2${T}low${T}xfail${T}known" 0 "^XFAIL case"
expect "case${T}no_fault${T}-${T}low${T}xfail${T}known" 1 "^XPASS case"
expect "case${T}no_fault${T}-${T}low${T}xfail${T}" 1 "needs a note"
mkdir "$dir/area/new" && cp "$dir/area/case/nccl_trace_rank_0" "$dir/area/new/" ||
	exit 99
expect "case${T}no_fault${T}-${T}low${T}ok${T}healthy" 1 "^ERROR .*area/new: a fixture directory"
exec python3 "$check" --hangdoc "$HANGDOC" --srcdir "$HD_SRCDIR"
