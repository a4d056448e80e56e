#!/bin/sh
# One style: every C source and header in the tree must be as clang-format
# (.clang-format at the root) writes it.  Prints the files that are not and
# exits 1; fix them with `clang-format -i FILE`.
set -u
cd "$(dirname "$0")/.." || exit 2
command -v clang-format >/dev/null 2>&1 || {
	echo "check-format: clang-format is not installed"
	exit 2
}
bad=0
for f in $(git ls-files '*.c' '*.h'); do
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "not formatted: $f"
		bad=1
	fi
done
[ "$bad" -eq 0 ] && echo "check-format: every C file is formatted"
exit "$bad"
