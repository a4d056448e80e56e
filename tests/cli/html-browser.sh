#!/bin/sh
# The HTML report in a real browser: headless Chromium renders the example
# incident, its logs alone, a generated 1,024-rank incident and the
# hostile-html fixture to PNG and to a DOM dump.  Each page must load
# without a script error or a Content-Security-Policy refusal (the page
# fetches nothing and runs no script), the DOM must hold the verdict, and
# the hostile page must hold its markup as text, never as elements.
#
# Without Chromium the test fails: CI installs it (scripts/install-deps.sh).
# A developer without one may set HD_NO_BROWSER=1 to skip (exit 77).
# HD_CHROMIUM names the browser binary when it is not on PATH.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
cd "$HD_SRCDIR" || exit 99

browser=${HD_CHROMIUM:-}
if [ -z "$browser" ]; then
	for b in chromium chromium-browser google-chrome; do
		if command -v "$b" >/dev/null 2>&1; then
			browser=$b
			break
		fi
	done
fi
if [ -z "$browser" ]; then
	if [ "${HD_NO_BROWSER:-0}" = 1 ]; then
		echo "SKIP: no chromium (HD_NO_BROWSER=1)"
		exit 77
	fi
	echo "FAIL: no chromium on PATH; install it (scripts/install-deps.sh)" \
		"or set HD_NO_BROWSER=1 to skip"
	exit 1
fi

tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() {
	pass=$((pass + 1))
}
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# browse NAME: renders $tmp/NAME.html to NAME.png, NAME.dom, NAME.log.
browse() {
	page="file://$tmp/$1.html"
	flags="--headless --disable-gpu --no-sandbox --hide-scrollbars
		--user-data-dir=$tmp/profile --no-first-run
		--enable-logging=stderr --v=0"
	# shellcheck disable=SC2086
	timeout 120 "$browser" $flags --window-size=1400,1000 \
		--screenshot="$tmp/$1.png" "$page" >/dev/null 2>"$tmp/$1.log"
	# shellcheck disable=SC2086
	timeout 120 "$browser" $flags --dump-dom "$page" \
		>"$tmp/$1.dom" 2>>"$tmp/$1.log"
	if [ "$(head -c 8 "$tmp/$1.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = \
		89504e470d0a1a0a ]; then
		ok
	else
		bad "$1: no PNG screenshot"
		tail -5 "$tmp/$1.log"
	fi
	if grep -e 'Uncaught' -e 'Refused to' -e 'CONSOLE.*[Ee]rror' \
		"$tmp/$1.log" >"$tmp/$1.errors"; then
		bad "$1: errors while loading"
		head -5 "$tmp/$1.errors"
	else
		ok
	fi
}

# expect NAME TEXT: the DOM of NAME holds TEXT.
expect() {
	if grep -q -F -e "$2" "$tmp/$1.dom"; then
		ok
	else
		bad "$1: '$2' not in the page"
	fi
}

"$HANGDOC" analyze --format html -o "$tmp/example.html" \
	testdata/example-incident
[ $? -eq 1 ] || bad "example: analyze did not exit 1"
browse example
expect example "missing_rank"
expect example "rank 5 never entered seq 38"
expect example "Ranks and positions"
expect example "Timeline"

# Logs only: the picture from the watchdog's counters, its cells links.
"$HANGDOC" analyze --format html -o "$tmp/logs.html" \
	testdata/example-incident/logs
[ $? -eq 1 ] || bad "logs: analyze did not exit 1"
browse logs
expect logs "Ranks and positions"
expect logs "rank 5 absent, 7 ranks blocked"
expect logs '<a href="#ev-1">'

python3 scripts/gen-fr-dumps.py bench "$tmp/r1024" 1024 24 || exit 99
"$HANGDOC" analyze --format html -o "$tmp/r1024.html" "$tmp/r1024"
[ $? -eq 1 ] || bad "r1024: analyze did not exit 1"
browse r1024
expect r1024 "rank 341 never entered"
expect r1024 "ranks 0-340 (341)"
size=$(wc -c <"$tmp/r1024.html")
if [ "$size" -lt 200000 ]; then
	ok
else
	bad "r1024: the page is $size bytes, more than 200 kB"
fi

"$HANGDOC" analyze --format html -o "$tmp/hostile.html" \
	tests/data/fr/hostile-html
browse hostile
expect hostile "onerror=alert"
# The markup must be text: no element of the kinds the fixture smuggles.
if grep -q -i -e '<script' -e '<img' -e '<svg onload' "$tmp/hostile.dom"; then
	bad "hostile: markup from the input became an element"
else
	ok
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
