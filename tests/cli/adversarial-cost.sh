#!/bin/sh
# Cost follows the input (issue 20): inputs built to make a quadratic
# path or a claimed size blow up are read under a CPU-time limit far
# above what they need (a linear run takes about a second; the quadratic
# paths they target took minutes: unknown-rank processes, comm pointers,
# profiler streams, a kernel log's Xid storm), and the report of a log that claims
# 4M ranks per comm stays small.  Not a timing test: only a run killed by
# the limit, or a report past the bound, fails.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
dir=$tmp
gen="$HD_SRCDIR/scripts/gen-adversarial.py"
ok() { pass=$((pass + 1)); }

# run NAME FILE [FORMAT]: analyze FILE under a 60 s CPU limit; 0 and 1
# are verdicts, anything past 3 a signal or a crash.
run() {
	# ulimit -t is not POSIX, but dash, bash, ksh and busybox have it
	# shellcheck disable=SC3045
	(ulimit -t 60; exec "$HANGDOC" analyze --format "${3:-text}" "$2") \
		>"$dir/$1.out" 2>"$dir/$1.err"
	st=$?
	if [ "$st" -le 3 ]; then
		ok
	else
		fail "$1: exit $st (killed by the CPU limit?)"
	fi
}

python3 "$gen" anon "$dir/anon.log.gz" 150000 || exit 99
run anon "$dir/anon.log.gz"
python3 "$gen" comms "$dir/comms.log.gz" 200000 || exit 99
run comms "$dir/comms.log.gz"
python3 "$gen" kineto "$dir/trace.json.gz" 100000 || exit 99
run kineto "$dir/trace.json.gz"

# adv4: an Xid storm and a flapping port on one host of a 4096-rank job:
# every event was joined by walking every rank (and, for a port, every
# NET/IB line): 117 s for 200k Xids beside 8192 ranks
python3 "$gen" kernel "$dir/kernel" 100000 || exit 99
run kernel "$dir/kernel"

# Ranks named only by "[1,N]<stdout>:" labels (issue 20): rank tables,
# votes and culprit rows of ranks x ranks took minutes; and (adv4) a
# tie of 150k torchrun exits in one second was explained pair by pair
python3 "$gen" ranks "$dir/ranks" 150000 || exit 99
for shape in status pgwrapper exit barrier; do
	run "ranks-$shape" "$dir/ranks/$shape.log.gz"
done

python3 "$gen" nranks "$dir/nranks.log" 30 || exit 99
run nranks "$dir/nranks.log" json
size=$(wc -c <"$dir/nranks.out")
if [ "$size" -lt 1000000 ]; then
	ok
else
	fail "nranks: a 30-comm log made a $size-byte report"
fi
if grep -q 'not believed\|sized to what it shows' "$dir/nranks.out"; then
	ok
else
	fail "nranks: no warning on the claimed sizes"
fi

finish
