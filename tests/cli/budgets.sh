#!/bin/sh
# What a load costs follows the incident's size on disk (issue 20): the
# budgets of its inputs add up across files and archive members.  Made
# here: 300 .zst logs of a few hundred bytes, each far within its own
# budget (they decoded to gigabytes of records in all), the same as a tar,
# and one .zst log at about 570 : 1 (within the old 1000 : 1 per log).
# Each is analysed under `ulimit -v` (1.5 GiB, with two parser threads so
# that the bound does not depend on the machine's CPUs): the run must end
# normally, say the incident's budget once with a count of the rest, and
# keep the healthy input given beside it, and say insufficient_data
# (exit 5), never no_fault: what was not read cannot show progress.  Not
# timed.  Run by make check
# with HANGDOC set.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3 zstd
dir=$tmp
limit_kb=1572864
# ulimit -v is not POSIX, but dash, bash and busybox sh have it; where the
# shell lacks it, or the binary cannot start under it at all (AddressSanitizer
# reserves terabytes of address space), the runs go unbounded and only the
# messages are checked.
# shellcheck disable=SC3045
if (ulimit -v "$limit_kb" && exec "$HANGDOC" --version) >/dev/null 2>&1; then
	limit() { ulimit -v "$limit_kb"; }
else
	echo "budgets: no ulimit -v for this shell or binary; memory not bounded"
	limit() { :; }
fi

# A COLL log of n lines whose counter changes every 1000 lines: about
# 3700 : 1 at zstd -19.
coll_log() {
	python3 - "$1" <<'PY'
import sys
line = ("node-a:4000:4000 [0] NCCL INFO AllReduce: opCount %x sendbuff "
        "0x7f00aa000000 recvbuff 0x7f00aa000000 count 262144 datatype 7 "
        "op 0 root 0 comm 0x5600d0a10990 [nranks=8] stream 0x55e0c1c8f7a0\n")
out = sys.stdout
for i in range(int(sys.argv[1])):
    out.write(line % (i // 1000))
PY
}

# analyze NAME PATH...: analyze under the memory limit; sets $status.
# Every incident here is healthy as far as it is read, but spends its
# budget: what was not read cannot show healthy progress, so the verdict
# is insufficient_data (exit 5), never no_fault, and its evidence names
# an input not read with the budget.
analyze() {
	name=$1
	shift
	(limit && exec "$HANGDOC" analyze -j 2 --format json \
		"$@") >"$dir/$name.json" 2>"$dir/$name.err"
	status=$?
	[ "$status" -eq 5 ] || {
		fail "$name: exit $status, not 5 (insufficient_data)"
		head -c 1000 "$dir/$name.err"
	}
	python3 - "$dir/$name.json" <<'PY' || fail "$name: verdict"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit("no JSON report")
v = d["verdicts"][0]
if v["kind"] != "insufficient_data":
    sys.exit("top verdict %s: %s" % (v["kind"], v["summary"]))
if not any(e.get("source") and "the budget for one incident" in e["text"]
           for e in v["evidence"]):
    sys.exit("the evidence names no input past the budget")
if any(x["kind"] == "no_fault" for x in d["verdicts"]):
    sys.exit("no_fault beside it")
PY
}

# spent NAME: the incident's budget is said once, the rest counted.
spent() {
	n=$(grep -c "the incident's inputs decode to more than 250 times" \
		"$dir/$1.err")
	[ "$n" -eq 1 ] ||
		fail "$1: the incident's budget said $n times on stderr, not once"
}

# A healthy log to give beside the hostile ones: it must stay in the report.
printf '%s\n' \
	"node-z:9:9 [0] NCCL INFO ncclCommInitRankConfig comm 0x5600d0a1b004 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5c1e2f03a9d4b871 - Init COMPLETE" \
	>"$dir/healthy.log"

mkdir "$dir/many" || exit 99
coll_log 5000 | zstd -q -19 -c >"$dir/one.zst" || exit 99
i=0
while [ "$i" -lt 300 ]; do
	cp "$dir/one.zst" "$dir/many/rank$i.log.zst" || exit 99
	i=$((i + 1))
done
analyze many "$dir/many" "$dir/healthy.log"
spent many
grep -q "more inputs were not read whole: the incident's budget" \
	"$dir/many.err" || fail "many: the other refused inputs not counted"
grep -q '"path": "'"$dir/healthy.log"'"' "$dir/many.json" ||
	fail "many: the healthy input was not kept"

# The same as one tar: members add up as files do.
(cd "$dir" && tar -cf many.tar many) || exit 99
analyze tar "$dir/many.tar" "$dir/healthy.log"
spent tar
grep -q '"path": "'"$dir/healthy.log"'"' "$dir/tar.json" ||
	fail "tar: the healthy input was not kept"

# One log at about 570 : 1 (zstd -3): 32 MB from some 57 KB, within the
# old 1000 : 1 of a log, which read it whole (8 MB of such a log at 750 : 1
# cost 4.1 GB).
python3 - >"$dir/big.log" <<'PY'
import sys
line = ("node-a:4000:4000 [0] NCCL INFO AllReduce: opCount %x sendbuff "
        "0x7f00aa000000 recvbuff 0x7f00aa000000 count 262144 datatype 7 "
        "op 0 root 0 comm 0x5600d0a10990 [nranks=8] stream 0x55e0c1c8f7a0\n")
sys.stdout.write("".join(line % (i // 8) for i in range(170000)))
PY
zstd -q -3 -c "$dir/big.log" >"$dir/big.log.zst" || exit 99
rm "$dir/big.log"
analyze big "$dir/big.log.zst" "$dir/healthy.log"
spent big
grep -q '"path": "'"$dir/healthy.log"'"' "$dir/big.json" ||
	fail "big: the healthy input was not kept"

# Plain logs whose records add up (issue 22): memory follows the records
# kept, not the bytes read, so the incident's budget counts them
# (HANGDOC_MAX_INCIDENT_RECORDS lowers it from 16 GiB to 1 MiB here): 40
# logs of 2000 COLL lines, 80 KB of ops each, are read until the records
# pass it; an input past it keeps nothing, the rest are refused.
mkdir "$dir/records" || exit 99
coll_log 2000 >"$dir/one.log" || exit 99
i=0
while [ "$i" -lt 40 ]; do
	# a rank of its own, so that no log is a copy of another
	sed "s/^node-a:4000:4000/node-a:$((4000 + i)):$((4000 + i))/" \
		"$dir/one.log" >"$dir/records/rank$i.log" || exit 99
	i=$((i + 1))
done
HANGDOC_MAX_INCIDENT_RECORDS=1M analyze records "$dir/records" \
	"$dir/healthy.log"
n=$(grep -c "the incident's records take more than 1 MiB" \
	"$dir/records.err")
# once for the rest, and once more for each input parsed whole beside the
# one that spent it (-j 2), which keeps nothing either
[ "$n" -ge 1 ] && [ "$n" -le 2 ] ||
	fail "records: the records' budget said $n times on stderr, not 1-2"
grep -q "more inputs were not read whole: the incident's budget" \
	"$dir/records.err" || fail "records: the other refused inputs not counted"
python3 - "$dir/records.json" <<'PY' || fail "records: inputs"
import json, sys
d = json.load(open(sys.argv[1]))
logs = [i for i in d["inputs"] if "/records/" in i["path"]]
read = [i for i in logs if not i.get("error") and not i["truncated"]]
if len(logs) != 40:
    sys.exit("%d of the 40 logs listed" % len(logs))
# 1 MiB of 40-byte ops and their file's signals: 12 or 13 logs of 2000
if not 5 <= len(read) <= 20:
    sys.exit("%d logs read whole under a 1 MiB budget" % len(read))
PY
# a bad size is said, and the budget stays
HANGDOC_MAX_INCIDENT_RECORDS=lots "$HANGDOC" analyze "$dir/healthy.log" \
	>/dev/null 2>"$dir/bad-size.err"
grep -q "HANGDOC_MAX_INCIDENT_RECORDS: 'lots' is not a size" \
	"$dir/bad-size.err" || fail "records: a bad size not said"

# Triage: the incident that spends its budget fails alone; the healthy
# incident beside it keeps its verdict.
if [ -n "${HD_SRCDIR:-}" ]; then
	mkdir "$dir/triage" || exit 99
	cp -R "$HD_SRCDIR/testdata/example-incident" "$dir/triage/good" &&
		mv "$dir/many" "$dir/triage/bad" || exit 99
	(limit && exec "$HANGDOC" triage "$dir/triage") \
		>"$dir/triage.out" 2>"$dir/triage.err"
	status=$?
	[ "$status" -le 1 ] || fail "triage: exit $status"
	grep -q "missing_rank.*" "$dir/triage.out" ||
		fail "triage: the healthy incident lost its verdict"
	grep -q "2 incidents" "$dir/triage.out" ||
		fail "triage: not both incidents reported"
fi

finish
