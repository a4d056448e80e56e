#!/bin/sh
# analyze --mpi (docs/format-digest.md): under mpirun --oversubscribe -np 3
# on this machine, the processes split the inputs, digest their share and
# gather the digests to rank 0, whose report must equal a direct analyze's
# (all but its time fields) with the same exit status; and with a "%h" in
# a path, the first process of each host reads that host's directory.
# Skips (77) when hangdoc was built without MPI or mpirun is missing; a
# build without MPI must then refuse --mpi as a usage error that says why.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
: "${HD_BUILDDIR:?HD_BUILDDIR must name the build tree}"
if ! grep -q '^#define HAVE_MPI 1' "$HD_BUILDDIR/config/config.h"; then
	"$HANGDOC" analyze --mpi "$HD_SRCDIR/tests/data/fr/healthy" \
		>/dev/null 2>"${TMPDIR:-/tmp}/hd-mpi.$$"
	status=$?
	grep -q "built without MPI" "${TMPDIR:-/tmp}/hd-mpi.$$"
	said=$?
	rm -f "${TMPDIR:-/tmp}/hd-mpi.$$"
	if [ "$status" -ne 2 ] || [ "$said" -ne 0 ]; then
		echo "FAIL: --mpi without MPI: exit $status, want 2 and a reason"
		exit 1
	fi
	exit 77
fi
command -v mpirun >/dev/null 2>&1 || exit 77
# containers run tests as root, which Open MPI refuses unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI keeps allocations to its exit: not hangdoc's leaks
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$HD_SRCDIR/tests/cli/mpi-lsan.supp"
dir=$(mktemp -d) || exit 99
trap 'rm -rf "$dir"' EXIT
fail=0
cd "$HD_SRCDIR" || exit 99

# compare <label> <direct paths> -- <mpi paths>
compare() {
	label=$1
	shift
	direct=
	while [ "$1" != -- ]; do
		direct="$direct $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	"$HANGDOC" analyze --format json $direct >"$dir/direct.json" \
		2>/dev/null
	want=$?
	mpirun --oversubscribe -np 3 "$HANGDOC" analyze --mpi --format json \
		-o "$dir/mpi.json" "$@" >"$dir/mpirun.out" 2>&1
	got=$?
	grep -v '"generated_at"\|"analysis_ms"' "$dir/direct.json" \
		>"$dir/a" || exit 99
	grep -v '"generated_at"\|"analysis_ms"' "$dir/mpi.json" \
		>"$dir/b" 2>/dev/null
	if [ "$got" -ne "$want" ] || ! cmp -s "$dir/a" "$dir/b"; then
		echo "FAIL: $label: exit $got under mpirun, $want direct"
		diff "$dir/a" "$dir/b" | head -20
		tail -20 "$dir/mpirun.out"
		fail=1
	else
		echo "ok: $label"
	fi
}

compare "one dump directory" tests/data/fr/missing-rank -- \
	tests/data/fr/missing-rank
compare "logs and dumps" testdata/example-incident -- \
	testdata/example-incident
compare "fewer files than processes" tests/data/fr/p2p-unmatched -- \
	tests/data/fr/p2p-unmatched
compare "a log copied under a prefix" tests/data/nccl/prefix-copy -- \
	tests/data/nccl/prefix-copy
compare "several paths, one missing" tests/data/pyspy/loader-wait \
	tests/data/crash "$dir/no-such-file" -- \
	tests/data/pyspy/loader-wait tests/data/crash "$dir/no-such-file"

# %h: this host's directory, read once for its three processes
host=$(hostname)
mkdir -p "$dir/nodes/$host" || exit 99
cp tests/data/fr/missing-rank/* "$dir/nodes/$host/" || exit 99
compare "%h names this host's directory" "$dir/nodes/$host" -- \
	"$dir/nodes/%h"
exit $fail
