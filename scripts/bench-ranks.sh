#!/bin/sh
# Whether analyzing many ranks costs their number or its square: each of
# the shapes that used to be quadratic (ranks from mpirun "[1,N]<stdout>:"
# labels with c10d watchdog status lines, ProcessGroupWrapper fingerprints,
# torchrun exit lines, Gloo monitoredBarrier lines naming ranks) is
# generated at N and 4N ranks and analyzed as text; the report is the
# ratio of the two times (best of R).  Linear work gives about 4, a
# quadratic path about 16.
#
#     scripts/bench-ranks.sh [N] [R]
set -eu
n=${1:-25000}
runs=${2:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
hangdoc=${HANGDOC:-$here/hangdoc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gen() { # SHAPE N FILE
	python3 - "$1" "$2" "$3" <<'PY'
import sys
shape, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "w") as f:
    for r in range(n):
        p = "[1,%d]<stdout>:" % r
        if shape == "status":
            s = 38 + r % 2
            f.write(p + "[rank%d]:[E1121 03:22:44.1 ProcessGroupNCCL.cpp:1] "
                    "[PG ID 0 PG GUID 0(default_pg) Rank %d]  failure "
                    "detected by watchdog at work sequence id: %d PG "
                    "status: last enqueued work: %d, last completed work: "
                    "%d\n" % (r, r, s, s, s - 1))
        elif shape == "pgwrapper":
            f.write(p + "RuntimeError: Detected mismatch between "
                    "collectives on ranks. Rank %d is running collective: "
                    "CollectiveFingerPrint(SequenceNumber=5, "
                    "OpType=ALLREDUCE, TensorShape=[%d], "
                    "TensorDtypes=Float), but Rank 0 is running "
                    "collective: CollectiveFingerPrint(SequenceNumber=5, "
                    "OpType=BROADCAST, TensorShape=[1], "
                    "TensorDtypes=Float).\n" % (r, r))
        elif shape == "exit":
            f.write(p + "E0921 17:48:55.902000 5521 api.py:869] failed "
                    "(exitcode: -9) local_rank: %d (pid: %d) of binary: "
                    "/bin/python3\n" % (r, 5000 + r))
        else:
            f.write(p + "RuntimeError: [Rank %d]: Rank %d failed to pass "
                    "monitoredBarrier in 6 ms\n" % (r, (r + 1) % n))
PY
}
now() { date +%s%N; }
best() { # FILE: the best of R runs, in ms
	b=
	for _ in $(seq "$runs"); do
		t0=$(now)
		"$hangdoc" analyze "$1" >/dev/null 2>&1 || :
		t=$((($(now) - t0) / 1000000))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}
printf '%-10s %10s %10s %6s\n' shape "N=$n ms" "N=$((4 * n)) ms" ratio
for shape in status pgwrapper exit barrier; do
	gen "$shape" "$n" "$dir/small.log"
	gen "$shape" $((4 * n)) "$dir/large.log"
	s=$(best "$dir/small.log")
	l=$(best "$dir/large.log")
	printf '%-10s %10s %10s %6s\n' "$shape" "$s" "$l" \
		"$(python3 -c "print('%.1f' % ($l / max($s, 1)))")"
done
