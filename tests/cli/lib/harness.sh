# shellcheck shell=sh
# What the CLI test scripts share, sourced after `set -u`: $tmp, a
# temporary directory removed on exit; needs CMD..., which skips the test
# (77) unless each CMD is installed; check DESC COMMAND..., which counts
# COMMAND's success or prints "FAIL: DESC"; fail MESSAGE, a failure
# found otherwise; and finish, the closing line and status.  Needs
# HANGDOC (the binary under test).
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
fail() { # MESSAGE...
	echo "FAIL: $*"
	fail=$((fail + 1))
}
needs() { # CMD...
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null 2>&1 || exit 77
	done
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
