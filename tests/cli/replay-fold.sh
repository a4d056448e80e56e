#!/bin/sh
# replay --dry-run folds ranks at 1,024 (issue 23): the ranks whose
# windows are the same op for op are written once, under one line, and
# rank lists fold their runs, so a 1,024-rank plan is a dozen lines, not
# 1,024 rank numbers on one.  Two jobs from scripts/gen-fr-dumps.py, each
# of 1,024 ranks stuck in all_reduce 38 that group rank 1024/3 = 341
# never enqueued: the world of ranks 0-1023 (PG 0), and a data-parallel
# group "dp" of global ranks 0, 8, ..., 8184 (rank 341 is global 2728),
# whose global ranks fold by their stride as the group id does.  The
# JSON plan keeps every rank.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
cd "$HD_SRCDIR" || exit 99
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
python3 scripts/gen-fr-dumps.py bench "$tmp/world" 1024 38 || exit 99
python3 scripts/gen-fr-dumps.py bench "$tmp/dp" 1024 38 --stride 8 ||
	exit 99

plan() { # DIR OUT: the dry-run plan of the top verdict, window 2
	"$HANGDOC" replay --dry-run --window 2 "$1" >"$2" 2>"$tmp/err" &&
		! [ -s "$tmp/err" ]
}

# The two plans differ in their ranks only: the same windows of ops.
ops='   0  seq 36   all_reduce count=16 dtype=float32 (completed)
   1  seq 37   all_reduce count=16 dtype=float32 (completed)'
want() { # FILE VERDICT COMMUNICATOR RANKS RANK: the expected plan
	cat >"$1" <<OUT
verdict 1: missing_rank: $2; 1,023 others entered it and are blocked
replay plan for missing_rank at collective seq 38, window 2, scale 1
communicator $3
ranks 0-340,342-1023 (global $4): 3 ops, the same on each
$ops
   2  seq 38   all_reduce count=16 dtype=float32 (enqueued)  <- divergent
rank 341 (global $5): 2 ops
$ops
OUT
}
want "$tmp/world.want" \
	"rank 341 never entered seq 38 (all_reduce) of PG 0 (default_pg)" \
	"pg:0:[0-1023] (0): 1,024 ranks, global ranks 0-1023" \
	"0-340,342-1023" 341
want "$tmp/dp.want" \
	"rank 2728 never entered seq 38 (all_reduce) of PG dp (dp_group)" \
	"pg:dp:[0,8,...,8184] (dp): 1,024 ranks, global ranks 0,8,...,8184" \
	"0,8,...,2720,2736,2744,...,8184" 2728

for job in world dp; do
	check "$job: dry run" plan "$tmp/$job" "$tmp/$job.out"
	check "$job: the plan, ranks folded" \
		diff -u "$tmp/$job.want" "$tmp/$job.out"
	check "$job: no line past 200 columns" \
		awk 'length > 200 { bad = 1 } END { exit bad }' "$tmp/$job.out"
done

# the machine form keeps every rank, the culprit's window short by one
"$HANGDOC" replay --dry-run --format json --window 2 "$tmp/dp" \
	>"$tmp/dp.json" 2>"$tmp/err"
check "dp json: 1,024 ranks, 341 is global 2728 with 2 ops" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
r = p["ranks"]
ok = (len(r) == 1024 and [x["rank"] for x in r] == list(range(1024)) and
      [x["global_rank"] for x in r] == list(range(0, 8192, 8)) and
      all(len(x["ops"]) == (2 if x["rank"] == 341 else 3) for x in r))
sys.exit(0 if ok else 1)' "$tmp/dp.json"
finish
