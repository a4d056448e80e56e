#!/bin/sh
# libarchive, libcrypto, the CUDA runtime and NCCL are opened on first use,
# never linked (docs/architecture.md, "Libraries loaded on first use"):
#  - hangdoc's NEEDED entries name none of them (readelf -d, or objdump -p);
#  - where libarchive and libcrypto cannot be loaded (an empty file of each
#    soname first on LD_LIBRARY_PATH), hangdoc starts, analyses what needs
#    neither as before, gives an archive input the error that names it and
#    the library, analyses the rest, and refuses --sha256 saying why;
#  - with glibc's LD_DEBUG, a run without an archive or --sha256 loads
#    neither, and one with them loads each.
# Skipped (77) without readelf and objdump.  Run by make check with
# HANGDOC and HD_BUILDDIR set.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
: "${HD_BUILDDIR:?HD_BUILDDIR must name the build tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs tar sha256sum
if command -v readelf >/dev/null 2>&1; then
	needed=$(readelf -d "$HANGDOC" | awk '/\(NEEDED\)/ { print $NF }' |
		tr -d '[]')
elif command -v objdump >/dev/null 2>&1; then
	needed=$(objdump -p "$HANGDOC" | awk '$1 == "NEEDED" { print $2 }')
else
	echo "SKIP: neither readelf nor objdump is installed"
	exit 77
fi

# soname NAME: config.h's HD_NAME_SONAME, or nothing.
soname() {
	sed -n "s/^#define HD_$1_SONAME \"\(.*\)\"\$/\1/p" \
		"$HD_BUILDDIR/config/config.h"
}
archive_so=$(soname LIBARCHIVE)
crypto_so=$(soname LIBCRYPTO)
[ -n "$archive_so" ] && [ -n "$crypto_so" ] || {
	echo "no HD_LIBARCHIVE_SONAME or HD_LIBCRYPTO_SONAME in config.h"
	exit 99
}

# The libraries are not linked; libc is (the list was read at all).
check "NEEDED lists libc" sh -c 'echo "$1" | grep -q "^libc\.so"' - "$needed"
for lib in libarchive libcrypto libnccl libcudart; do
	if echo "$needed" | grep -q "^$lib\.so"; then
		fail "hangdoc is linked with $lib: $(echo "$needed" | grep "^$lib\.so")"
	else
		pass=$((pass + 1))
	fi
done

fr=$HD_SRCDIR/tests/data/fr/missing-rank
tar -cf "$tmp/fr.tar" -C "$HD_SRCDIR/tests/data/fr" missing-rank || exit 99
sum=$(sha256sum "$fr/nccl_trace_rank_0" | cut -d' ' -f1)
mkdir "$tmp/shadow" || exit 99
for so in "$archive_so" "$crypto_so" $(soname CUDART) $(soname NCCL); do
	: >"$tmp/shadow/$so" || exit 99
done

# run NAME [VAR=VALUE...] -- ARGS...: hangdoc ARGS, NAME.out, NAME.err,
# NAME.rc.
run() {
	name=$1
	shift
	vars=
	while [ "$1" != -- ]; do
		vars="$vars $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	env $vars "$HANGDOC" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
# expect NAME STATUS: NAME ended with STATUS.
expect() {
	got=$(cat "$tmp/$1.rc")
	if [ "$got" = "$2" ]; then
		pass=$((pass + 1))
	else
		fail "$1: exit $got, want $2; stderr:"
		head -5 "$tmp/$1.err"
	fi
}
# has NAME SUFFIX TEXT: NAME.SUFFIX holds TEXT (fixed string).
has() {
	check "$1.$2 holds '$3'" grep -qF -- "$3" "$tmp/$1.$2"
}

shadow=LD_LIBRARY_PATH=$tmp/shadow

# Unshadowed: the archive gives its verdict, and --sha256 sha256sum's hash.
run tar -- analyze "$tmp/fr.tar"
expect tar 1
has tar out 'missing_rank [high] rank 2'
run sha -- analyze --format json --sha256 "$fr"
expect sha 1
has sha out "\"sha256\": \"$sum\""

# Neither library can be loaded.
run version "$shadow" -- --version
expect version 0
run plain "$shadow" -- analyze --format json "$fr"
expect plain 1
has plain out '"kind": "missing_rank"'
run tar-shadow "$shadow" -- analyze "$tmp/fr.tar" "$fr"
expect tar-shadow 1
has tar-shadow err "'$tmp/fr.tar': cannot read the archive: cannot load $archive_so: "
has tar-shadow out 'missing_rank [high] rank 2'
run tar-json "$shadow" -- analyze --format json "$tmp/fr.tar" "$fr"
expect tar-json 1
has tar-json out "\"error\": \"cannot read the archive: cannot load $archive_so: "
run sha-shadow "$shadow" -- analyze --format json --sha256 "$fr"
expect sha-shadow 2
has sha-shadow err "hangdoc: --sha256: cannot load $crypto_so: "
check "sha-shadow: no report" test ! -s "$tmp/sha-shadow.out"

# Loaded when used, not before (glibc's loader says what it opens).
run debug LD_DEBUG=files -- --version
if grep -q 'file=' "$tmp/debug.err"; then
	run lazy LD_DEBUG=files -- analyze --format json "$fr"
	check "lazy: libarchive not loaded" sh -c \
		'! grep -q "file=$1 " "$2"' - "$archive_so" "$tmp/lazy.err"
	check "lazy: libcrypto not loaded" sh -c \
		'! grep -q "file=$1 " "$2"' - "$crypto_so" "$tmp/lazy.err"
	run used LD_DEBUG=files -- analyze --format json --sha256 "$tmp/fr.tar"
	has used err "file=$archive_so "
	has used err "file=$crypto_so "
else
	echo "lazy-libs: the loader has no LD_DEBUG; what is loaded not checked"
fi

finish
