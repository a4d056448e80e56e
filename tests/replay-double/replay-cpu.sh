#!/bin/sh
# Real replays on the CPU: "hangdoc replay" with the runner built against
# the CPU test double of CUDA and NCCL (tests/replay-double/hangdoc-cpu,
# docs/replay.md).  Plans come from the fixtures, written by the shipped
# hangdoc (--dry-run --plan-out), or from tests/replay-double/plans.  Each
# replay runs under timeout(1) in a session of its own; afterwards no
# process of that session and no shared file of the double may be left.
# Replays run a few at a time; hanging ones use --timeout 1, so the script
# takes a few seconds.  Prints "N passed, N failed".
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
: "${HD_BUILDDIR:=.}"
cpu=$HD_BUILDDIR/tests/replay-double/hangdoc-cpu
[ -x "$cpu" ] || { echo "no CPU replay binary at $cpu"; exit 99; }
[ -r /proc/self/stat ] || { echo "SKIP: needs /proc"; exit 77; }
case $cpu in /*) ;; *) cpu=$PWD/$cpu ;; esac
cd "$HD_SRCDIR" || exit 99
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
# Crash cases abort(): no core files in the build tree.
ulimit -c 0 2>/dev/null
plans=tests/replay-double/plans
pass=0
fail=0
jobs=0
batch=
slow=0
names=

# plan NAME HANGDOC-REPLAY-ARGS...: writes $tmp/NAME.json with the shipped
# hangdoc (--dry-run, so a CUDA build does not try to run it).
plan() {
	name=$1
	shift
	if ! "$HANGDOC" replay --dry-run --plan-out "$tmp/$name.json" "$@" \
		>/dev/null 2>"$tmp/$name.plan-err"; then
		echo "FAIL: cannot write plan $name:"
		cat "$tmp/$name.plan-err"
		fail=$((fail + 1))
	fi
}

# start NAME STATUS [VAR=VALUE...] -- ARGS...: starts "hangdoc-cpu replay
# ARGS" in the background, in a new session (its id goes to NAME.sid),
# with the double's trace in NAME.trace and its shared files in NAME.shm.
# At most twelve run at once, not counting those started with slow=1 (which
# mostly sleep).
start() {
	name=$1
	echo "$2" >"$tmp/$name.want"
	shift 2
	vars=
	while [ $# -gt 0 ]; do
		case $1 in
		--)
			shift
			break
			;;
		*) vars="$vars $1" ;;
		esac
		shift
	done
	mkdir "$tmp/$name.shm"
	# shellcheck disable=SC2086
	(
		timeout 30 sh -c 'echo $$ >"$0"; exec setsid "$@"' \
			"$tmp/$name.sid" env $vars \
			HD_FAKE_TRACE="$tmp/$name.trace" \
			HD_FAKE_SHM_DIR="$tmp/$name.shm" \
			"$cpu" replay "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
		echo $? >"$tmp/$name.rc"
	) &
	names="$names $name"
	[ "$slow" = 1 ] && return
	batch="$batch $!"
	jobs=$((jobs + 1))
	if [ "$jobs" -ge 12 ]; then
		# shellcheck disable=SC2086
		wait $batch
		batch=
		jobs=0
	fi
}

# Writes "PID SESSION" for every process to $tmp/sessions.
scan_sessions() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk '{
		rest = $0
		sub(/^.*\) /, "", rest)
		split(rest, f, " ")
		print $1, f[4]
	}' >"$tmp/sessions"
}

bad() {
	fail=$((fail + 1))
	echo "FAIL: $name: $*"
	echo "--- stdout:"
	head -n 40 "$tmp/$name.out"
	echo "--- stderr:"
	head -n 10 "$tmp/$name.err"
}

# check NAME: exit status, no process left in its session (as of the last
# scan_sessions), no shared file left by the double, no sanitizer report.
check() {
	name=$1
	rc=$(cat "$tmp/$name.rc" 2>/dev/null || echo none)
	want=$(cat "$tmp/$name.want")
	sid=$(cat "$tmp/$name.sid" 2>/dev/null || echo none)
	left=$(awk -v sid="$sid" '$2 == sid { print $1 }' "$tmp/sessions")
	if [ -n "$left" ]; then
		bad "processes left behind: $left"
		# shellcheck disable=SC2086
		kill -9 $left 2>/dev/null
		return
	fi
	if [ -n "$(ls "$tmp/$name.shm")" ]; then
		bad "shared files left behind: $(ls "$tmp/$name.shm")"
		return
	fi
	if [ "$rc" != "$want" ]; then
		bad "exit $rc, want $want"
		return
	fi
	# Under --enable-sanitizers a report could hide behind exit 1.
	if grep -q 'Sanitizer\|runtime error:' "$tmp/$name.err"; then
		bad "sanitizer report"
		return
	fi
	pass=$((pass + 1))
}

# line NAME TEXT: stdout has exactly this line.
line() {
	name=$1
	if grep -qxF -- "$2" "$tmp/$name.out"; then
		pass=$((pass + 1))
	else
		bad "no line '$2'"
	fi
}

# has NAME FILE-SUFFIX PATTERN: NAME.SUFFIX matches the basic regex.
has() {
	name=$1
	if grep -q -- "$3" "$tmp/$name.$2"; then
		pass=$((pass + 1))
	else
		bad "$2 does not match '$3'"
	fi
}

# count NAME FILE-SUFFIX PATTERN N: N lines of NAME.SUFFIX match.
count() {
	name=$1
	got=$(grep -c -- "$3" "$tmp/$name.$2")
	if [ "$got" = "$4" ]; then
		pass=$((pass + 1))
	else
		bad "$got lines of $2 match '$3', want $4"
	fi
}

# ops NAME RANK STATUS...: the per-op statuses of RANK, times left out.
ops() {
	name=$1
	rank=$2
	shift 2
	want=$(echo "$*")
	got=$(awk -v r="rank $rank" '
		/^outcome: / { result = 1; next }
		!result { next }
		$0 ~ "^" r "( |:|$)" { on = 1; next }
		/^rank / { on = 0 }
		on && /^  / { printf "%s%s", sep, $3; sep = " " }
	' "$tmp/$name.out")
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		bad "rank $rank ops '$got', want '$want'"
	fi
}

fr=tests/data/fr
nccl=tests/data/nccl

# The slowest first, to overlap the rest: the parent waits timeout x (ops + 2) for a rank stuck in
# a call, then the grace period (1 s in this build) before SIGKILL.
slow=1
start hang-call 1 HD_FAKE_HANG_RANK=1 HD_FAKE_HANG_AT=0 -- \
	--timeout 0.5 --window 1 --healthy $fr/healthy
slow=0

# Plans: every divergence kind the plan tests cover, each with its --fix.
plan missing-rank $fr/missing-rank
plan missing-rank-fix --fix $fr/missing-rank
plan size-mismatch $fr/size-mismatch
plan size-mismatch-fix --fix --scale 0.25 $fr/size-mismatch
plan dtype-mismatch $fr/dtype-mismatch
plan dtype-mismatch-fix --fix $fr/dtype-mismatch
plan type-mismatch $fr/type-mismatch
plan type-mismatch-fix --fix $fr/type-mismatch
plan root-mismatch $nccl/root-mismatch
plan root-mismatch-fix --fix $nccl/root-mismatch
# Dumps carry no root: a root mismatch found by joining them to the NCCL
# logs replays from the logs alone (docs/replay.md, known limits).
plan root-mismatch-logs $fr/join-root-mismatch/rank0.log \
	$fr/join-root-mismatch/rank1.log $fr/join-root-mismatch/rank2.log \
	$fr/join-root-mismatch/rank3.log
plan p2p-unmatched $fr/p2p-unmatched
plan p2p-unmatched-fix --fix $fr/p2p-unmatched
plan p2p-deadlock $nccl/p2p-deadlock
plan p2p-deadlock-fix --fix $nccl/p2p-deadlock
plan blocked-chain $fr/blocked-chain
plan blocked-chain-fix --fix $fr/blocked-chain
# Its "lagging" rank shows seqs unfinished that the others completed: a
# stale record, not a verdict (docs/verdicts.md), so --healthy replays it.
plan lagging-rank --healthy $fr/lagging-rank
plan healthy --healthy $fr/healthy
plan nccl-missing-rank $nccl/missing-rank

# Divergences hang until --timeout (1 s) and reproduce.
start missing-rank 1 -- --timeout 1 --plan "$tmp/missing-rank.json"
start size-mismatch 1 -- --timeout 1 --plan "$tmp/size-mismatch.json"
start dtype-mismatch 1 -- --timeout 1 --plan "$tmp/dtype-mismatch.json"
start type-mismatch 1 -- --timeout 1 --plan "$tmp/type-mismatch.json"
start root-mismatch 1 -- --timeout 1 --plan "$tmp/root-mismatch.json"
start root-mismatch-logs 1 -- --timeout 1 \
	--plan "$tmp/root-mismatch-logs.json"
start redop-mismatch 1 -- --timeout 1 --plan $plans/redop-mismatch.json
start p2p-unmatched 1 -- --timeout 1 --plan "$tmp/p2p-unmatched.json"
start p2p-deadlock 1 -- --timeout 1 --plan "$tmp/p2p-deadlock.json"
start blocked-chain 1 -- --timeout 1 --plan "$tmp/blocked-chain.json"
start nccl-missing-rank 1 -- --timeout 1 --plan "$tmp/nccl-missing-rank.json"
start coalesced-short 1 -- --timeout 1 --plan $plans/coalesced-short.json
# all_to_all (grouped send/recv) whose partner never calls it.
start all-to-all-missing 1 -- --timeout 1 \
	--plan $plans/all-to-all-missing.json
start missing-rank-json 1 -- --timeout 1 --format json \
	--plan "$tmp/missing-rank.json"
# From the incident itself: analysis threads, then the fork.
start missing-rank-paths 1 -- --timeout 1 $fr/missing-rank
# Calls that return ncclSuccess at once (no ncclInProgress).
start missing-rank-sync 1 HD_FAKE_LAUNCH_POLLS=0 -- --timeout 1 \
	--plan "$tmp/missing-rank.json"
# A crash, an NCCL error, a rank stuck inside a call or in its abort.
start crash 1 HD_FAKE_CRASH_RANK=2 HD_FAKE_CRASH_AT=1 -- --timeout 1 \
	--plan "$tmp/healthy.json"
start crash-init 1 HD_FAKE_CRASH_RANK=2 HD_FAKE_CRASH_AT=init -- \
	--timeout 1 --plan "$tmp/healthy.json"
start crash-uid 1 HD_FAKE_CRASH_AT=uid -- --timeout 1 \
	--plan "$tmp/healthy.json"
start remote-error 1 HD_FAKE_ERROR_RANK=1 HD_FAKE_ERROR_AT=2 -- \
	--timeout 1 --plan "$tmp/healthy.json"
start hang-abort 0 HD_FAKE_HANG_RANK=1 HD_FAKE_HANG_AT=abort -- \
	--timeout 1 --plan "$tmp/healthy.json"

# Healthy plans, --fix plans and the lagging rank complete.
for p in healthy missing-rank-fix size-mismatch-fix dtype-mismatch-fix \
	type-mismatch-fix root-mismatch-fix p2p-unmatched-fix \
	p2p-deadlock-fix blocked-chain-fix lagging-rank; do
	start "$p" 0 -- --timeout 10 --plan "$tmp/$p.json"
done
start healthy-json 0 -- --timeout 10 --format json --plan "$tmp/healthy.json"
start healthy-sync 0 HD_FAKE_LAUNCH_POLLS=0 -- --timeout 10 \
	--plan "$tmp/healthy.json"
# all_to_all, gather and scatter, each followed by another call.
start grouped-ops 0 -- --timeout 10 --plan $plans/grouped-ops.json
# Barriers recorded as uint8, float16 and bool (replayed as a float32).
start barrier-narrow 0 -- --timeout 10 --plan $plans/barrier-narrow.json
start shared-gpus 0 HD_FAKE_GPUS=2 -- --timeout 10 --plan "$tmp/healthy.json"
start missing-rank-fix-paths 0 -- --timeout 10 --fix $fr/missing-rank
# Not attempted: no device, or not enough device memory.
start no-gpu 2 HD_FAKE_GPUS=0 -- --timeout 10 --plan "$tmp/healthy.json"
start no-memory 2 HD_FAKE_MEM_FREE=100 -- --timeout 10 \
	--plan "$tmp/healthy.json"
# Nor when CUDA and NCCL (here the double) cannot be loaded: the runner
# copied away from the double opens nothing and forks no rank.
mkdir "$tmp/alone" && cp "$cpu" "$tmp/alone/" || exit 99
cpu_beside=$cpu
cpu=$tmp/alone/hangdoc-cpu
start no-library 2 -- --timeout 10 --plan "$tmp/healthy.json"
cpu=$cpu_beside
wait
scan_sessions
for name in $names; do
	check "$name"
done

r0='rank 0 blocked in op'
r1='rank 1 blocked in op'
r2='rank 2 blocked in op'
r3='rank 3 blocked in op'
line missing-rank "outcome: reproduced: $r0 4 (all_reduce seq 8); $r1 4 (all_reduce seq 8); $r3 4 (all_reduce seq 8)"
ops missing-rank 0 ok ok ok ok blocked
ops missing-rank 2 ok ok ok ok
# Every rank aborts its communicator at the end, blocked or not.
count missing-rank trace 'ncclCommAbort$' 4
line size-mismatch "outcome: reproduced: $r0 4 (all_reduce seq 6); $r1 4 (all_reduce seq 6); $r2 4 (all_reduce seq 6); $r3 4 (all_reduce seq 6)"
line dtype-mismatch "outcome: reproduced: $r0 4 (all_reduce seq 6); $r1 4 (all_reduce seq 6); $r2 4 (all_reduce seq 6); $r3 4 (all_reduce seq 6)"
line type-mismatch "outcome: reproduced: $r0 4 (all_gather seq 6); $r1 4 (all_reduce seq 6); $r2 4 (all_reduce seq 6); $r3 4 (all_reduce seq 6)"
line root-mismatch "outcome: reproduced: $r0 4 (broadcast seq 19); $r1 4 (broadcast seq 19); $r2 4 (broadcast seq 19); $r3 4 (broadcast seq 19)"
line root-mismatch-logs "outcome: reproduced: $r0 4 (broadcast seq 32); $r1 4 (broadcast seq 32); $r2 4 (broadcast seq 32); $r3 4 (broadcast seq 32)"
line redop-mismatch "outcome: reproduced: $r0 2 (all_reduce seq 2); $r1 2 (all_reduce seq 2)"
line p2p-unmatched "outcome: reproduced: $r0 2 (send seq 3)"
ops p2p-unmatched 1 ok ok
line p2p-deadlock "outcome: reproduced: $r0 4 (send seq 10); $r1 4 (send seq 10)"
line blocked-chain "outcome: reproduced: $r1 3 (all_reduce seq 4)"
line nccl-missing-rank "outcome: reproduced: $r0 4 (reduce_scatter seq 30); $r1 4 (reduce_scatter seq 30); $r3 4 (reduce_scatter seq 30)"
# A batch completes as a whole: rank 0 blocks in its first op.
line coalesced-short "outcome: reproduced: $r0 1 (all_reduce seq 1)"
ops coalesced-short 0 ok blocked blocked
ops coalesced-short 1 ok ok
line all-to-all-missing "outcome: reproduced: $r0 1 (all_to_all seq 1)"
ops all-to-all-missing 1 ok
has missing-rank-json out '"outcome": "reproduced"'
count missing-rank-json out '"blocked_op": 4' 3
line missing-rank-paths "outcome: reproduced: $r0 4 (all_reduce seq 8); $r1 4 (all_reduce seq 8); $r3 4 (all_reduce seq 8)"
line missing-rank-sync "outcome: reproduced: $r0 4 (all_reduce seq 8); $r1 4 (all_reduce seq 8); $r3 4 (all_reduce seq 8)"

line crash "outcome: error: rank 2: rank process exited without reporting (ncclResult -1)"
ops crash 0 ok blocked not_run not_run
line crash-init "outcome: error: rank 0: communicator setup timed out (ncclResult 7); rank 1: communicator setup timed out (ncclResult 7); rank 2: rank process exited without reporting (ncclResult -1); rank 3: communicator setup timed out (ncclResult 7)"
line crash-uid "outcome: error: rank 0: rank process exited without reporting (ncclResult -1); rank 1: no NCCL unique id from rank 0 (ncclResult -1); rank 2: no NCCL unique id from rank 0 (ncclResult -1); rank 3: no NCCL unique id from rank 0 (ncclResult -1)"
line remote-error "outcome: error: rank 1: remote process exited or there was a network error: test double: injected remote error (HD_FAKE_ERROR_AT) (ncclResult 6)"
ops remote-error 1 ok ok error not_run
# Stuck in ncclCommAbort: SIGKILLed after the grace period.
line hang-abort "outcome: completed: every rank finished every op, not reproduced"
has hang-abort err 'rank 1 hangs in ncclCommAbort'
line hang-call "outcome: error: rank 1: rank did not report before the deadline (ncclResult -1)"
ops hang-call 0 blocked

for p in healthy missing-rank-fix size-mismatch-fix dtype-mismatch-fix \
	type-mismatch-fix root-mismatch-fix p2p-unmatched-fix \
	p2p-deadlock-fix blocked-chain-fix lagging-rank healthy-sync \
	shared-gpus missing-rank-fix-paths grouped-ops barrier-narrow; do
	line "$p" "outcome: completed: every rank finished every op, not reproduced"
done
count healthy out ' ok  ' 16
ops grouped-ops 0 ok ok ok ok ok
ops grouped-ops 1 ok ok ok ok ok
has healthy-json out '"outcome": "completed"'
# More ranks than GPUs: devices shared, each rank its own NCCL "host".
line shared-gpus "note: ranks shared GPUs (NCCL over loopback sockets)"
line shared-gpus "rank 3 (device 1)"
has shared-gpus trace 'rank 2: ncclCommInitRankConfig .* NCCL_HOSTID hangdoc-replay-2$'
has no-gpu err 'cannot replay: rank 0: no CUDA device visible'
has no-memory err 'cannot replay: rank 0: not enough free memory on device 0: 128 bytes per rank, 100 free'
has no-library err 'cannot replay: the CUDA and NCCL libraries could not be loaded (cannot load libhd-replay-double.so: .*); use --dry-run or --plan-out$'
name=no-library
if [ -e "$tmp/no-library.trace" ]; then
	bad "a rank ran without the double"
else
	pass=$((pass + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
