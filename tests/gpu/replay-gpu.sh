#!/bin/sh
# Replays FR fixtures on real GPUs (hangdoc replay without --dry-run) and
# checks the outcomes that do not depend on NCCL's algorithm choice:
#   missing rank        -> reproduced: the ranks that entered seq 8 block
#   missing rank --fix  -> completed
#   healthy --healthy   -> completed
#   size mismatch       -> any outcome, but the command ends and exits 0/1
# and that no replay process outlives the command.
# Exits 77 (skip) without a CUDA+NCCL build or without a visible GPU.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
: "${HD_BUILDDIR:=.}"

if ! grep -q '^#define HAVE_CUDA_NCCL 1' "$HD_BUILDDIR/config/config.h" 2>/dev/null; then
	echo "SKIP: built without CUDA and NCCL"
	exit 77
fi
if ! command -v nvidia-smi >/dev/null 2>&1 ||
	! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	echo "SKIP: no GPU visible"
	exit 77
fi
cd "$HD_SRCDIR" || exit 99
out=$(mktemp) || exit 99
trap 'rm -f "$out"' EXIT
fail=0

# expect NAME STATUS PATTERN ARGS...: exit status and a line of stdout.
expect() {
	name=$1 want=$2 pattern=$3
	shift 3
	timeout 300 "$HANGDOC" replay --timeout 10 "$@" >"$out" 2>&1
	got=$?
	if [ "$got" != "$want" ] || ! grep -q "$pattern" "$out"; then
		echo "FAIL: $name: exit $got (want $want), output:"
		head -60 "$out"
		fail=1
	else
		echo "ok: $name: $(grep -m1 "$pattern" "$out")"
	fi
}

expect missing-rank 1 '^outcome: reproduced:.*blocked in op 4 (all_reduce seq 8)' \
	tests/data/fr/missing-rank
expect missing-rank-fix 0 '^outcome: completed' --fix tests/data/fr/missing-rank
expect healthy 0 '^outcome: completed' --healthy tests/data/fr/healthy
expect healthy-json 0 '"outcome": "completed"' --healthy --format json \
	tests/data/fr/healthy
timeout 300 "$HANGDOC" replay --timeout 10 tests/data/fr/size-mismatch >"$out" 2>&1
got=$?
if [ "$got" -gt 1 ] || ! grep -q '^outcome: ' "$out"; then
	echo "FAIL: size-mismatch: exit $got"
	head -60 "$out"
	fail=1
else
	echo "ok: size-mismatch: $(grep -m1 '^outcome: ' "$out")"
fi

# Every rank process must be gone (the parent reaps or SIGKILLs them).
sleep 1
if ps -eo args= | grep -q '^[^ ]*hangdoc replay'; then
	echo "FAIL: replay processes left behind:"
	ps -eo pid=,args= | grep 'hangdoc replay'
	fail=1
fi
exit "$fail"
