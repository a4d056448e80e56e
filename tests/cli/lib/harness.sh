# shellcheck shell=sh
# What the CLI test scripts share, sourced after `set -u`: $tmp, a
# temporary directory removed on exit; check DESC COMMAND..., which counts
# COMMAND's success or prints "FAIL: DESC"; and finish, the closing line
# and status.  Needs HANGDOC (the binary under test).
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() { # DESC COMMAND...
	desc=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $desc"
	fi
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
