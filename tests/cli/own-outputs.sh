#!/bin/sh
# hangdoc's own outputs left in an evidence directory are recognised and
# skipped: a report quotes log lines, which read back as logs would count
# twice.  Every format of analyze, show's listings and the Perfetto export
# are written into a copy of the example incident; the analysis of that
# copy must name each as not read and give the same verdict as before.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
src=$HD_SRCDIR/testdata/example-incident
cp -R "$src" "$tmp/in"
for f in text json jsonl markdown html; do
	"$HANGDOC" analyze --format "$f" "$src" >"$tmp/in/report.$f" 2>/dev/null
done
"$HANGDOC" show "$src" >"$tmp/in/show.txt" 2>/dev/null
"$HANGDOC" show --format json "$src" >"$tmp/in/show.json" 2>/dev/null
"$HANGDOC" export --perfetto -o "$tmp/in/trace.json" "$src" 2>/dev/null
"$HANGDOC" analyze --format json "$src" 2>/dev/null |
	python3 -c 'import json,sys; v=json.load(sys.stdin)["verdicts"][0]; print(v["kind"], v["culprit_ranks"])' \
		>"$tmp/want"
"$HANGDOC" analyze --format json "$tmp/in" 2>"$tmp/err" >"$tmp/got.json"
python3 -c 'import json,sys; v=json.load(sys.stdin)["verdicts"][0]; print(v["kind"], v["culprit_ranks"])' \
	<"$tmp/got.json" >"$tmp/got"
check "the verdict is the one without the outputs beside it" \
	cmp -s "$tmp/want" "$tmp/got"
for f in report.text report.json report.jsonl report.markdown report.html \
	show.txt show.json trace.json; do
	check "$f is said to be hangdoc's own and not read" \
		grep -q "in/$f': a hangdoc .*not read as evidence" "$tmp/err"
done
finish
