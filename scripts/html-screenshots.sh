#!/bin/sh
# Regenerates the screenshots of the HTML report that the docs show
# (docs/img/html-*.png): the example incident, its logs alone (the picture
# drawn from the watchdog's counters), a 1,024-rank incident of dumps and
# logs (generated dumps beside tests/data/scale's log: hosts and pids
# known), the same log alone, and the healthy DLRM trace (the arrival
# chart's performance note).  Needs a
# built ./hangdoc, python3 and Chromium; not run in CI (screenshots vary
# with fonts and browser versions).  Run from the source tree:
#
#     scripts/html-screenshots.sh [OUTDIR]      # default docs/img
#
# HD_CHROMIUM names the browser when it is not chromium on PATH.
set -eu
out=${1:-docs/img}
hangdoc=$(realpath "${HANGDOC:-./hangdoc}")
browser=${HD_CHROMIUM:-chromium}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# shot NAME WIDTH HEIGHT DIR ARGS...: renders hangdoc's page of ARGS, run
# in DIR (paths as the page shows them), to OUT/NAME.png.
shot() {
	name=$1 w=$2 h=$3 dir=$4
	shift 4
	(cd "$dir" && "$hangdoc" analyze --format html \
		-o "$tmp/$name.html" "$@") || :
	# every stage drawn before the shot: on a loaded machine the page
	# was caught half painted (the rank picture cut off)
	"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/profile" --no-first-run \
		--run-all-compositor-stages-before-draw \
		--virtual-time-budget=3000 \
		--window-size="$w,$h" --screenshot="$out/$name.png" \
		"file://$tmp/$name.html" >/dev/null 2>&1
	# Fewer colours where pngquant is at hand: the pages are flat.
	if command -v pngquant >/dev/null 2>&1; then
		pngquant --force --skip-if-larger --output "$out/$name.png" \
			64 "$out/$name.png" || :
	fi
	echo "$out/$name.png: $(wc -c <"$out/$name.png") bytes"
}

# the job of tests/data/scale/missing-rank-1024: 38 all_reduces, rank 341
# never enqueues the last
mkdir -p "$tmp/incident-1024"
python3 scripts/gen-fr-dumps.py bench "$tmp/incident-1024/fr" 1024 38 \
	>/dev/null
cp -r tests/data/scale/missing-rank-1024 "$tmp/incident-1024/logs"
shot html-8 1280 900 . testdata/example-incident
shot html-logs 1280 900 . testdata/example-incident/logs
shot html-1024 1280 900 "$tmp" incident-1024
shot html-logs-1024 1280 900 . tests/data/scale/missing-rank-1024
shot html-dlrm 1280 1500 . tests/data/real-kineto/param-dlrm-8rank.tar.gz
