#!/bin/sh
# Malformed and hostile inputs: hangdoc analyze must never crash (exit >= 128)
# or hang on them, must give the documented exit status, and must name the
# file it could not use on stderr or in the report.  Run by make check with
# HANGDOC, HD_SRCDIR and HD_BUILDDIR set; prints "N passed, N failed".
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
[ -x "$HANGDOC" ] || { echo "no hangdoc binary at $HANGDOC"; exit 99; }
pass=0
fail=0
skip=0
tmp=$(mktemp -d) || exit 99
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
out=$tmp/stdout
err=$tmp/stderr

ok() {
	pass=$((pass + 1))
}

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	echo "--- stderr:"
	head -c 2000 "$err"
	echo "--- stdout (first lines):"
	head -n 15 "$out" | cut -c1-200
}

# run ARGS...: runs hangdoc with a time limit, sets $rc.
run() {
	timeout 60 "$HANGDOC" "$@" >"$out" 2>"$err"
	rc=$?
}

# expect_rc DESC ALLOWED...: the last run ended with one of the statuses.
expect_rc() {
	desc=$1
	shift
	if [ "$rc" -ge 124 ]; then
		bad "$desc: crashed or hung (exit $rc)"
		return 1
	fi
	for want in "$@"; do
		if [ "$rc" -eq "$want" ]; then
			ok
			return 0
		fi
	done
	bad "$desc: exit $rc, expected one of: $*"
	return 1
}

# expect_named DESC STRING: stderr or stdout of the last run names STRING.
expect_named() {
	if grep -qF -- "$2" "$err" || grep -qF -- "$2" "$out"; then
		ok
	else
		bad "$1: '$2' not named on stderr or in the report"
	fi
}

# A real NCCL_DEBUG=INFO COLL line (format-nccl-log.md, section 3).
coll_line() {
	printf '%s\n' "node-a:4242:4242 [1] NCCL INFO AllReduce: opCount $1 sendbuff 0x7f00aa000000 recvbuff 0x7f00aa000000 count 262144 datatype 7 op 0 root 0 comm 0x55e0c1d2a3b0 [nranks=8] stream 0x55e0c1c8f7a0"
}

init_line() {
	printf '%s\n' "node-a:4242:4242 [1] NCCL INFO comm 0x55e0c1d2a3b0 rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 1b000 commId 0x5c1e2f03a9d4b871 - Init COMPLETE"
}

small_log() {
	printf '%s\n' "node-a:4242:4242 [1] NCCL INFO Bootstrap : Using eth0:10.1.0.5<0>"
	init_line
	coll_line 3d
	coll_line 3e
	coll_line 3f
}

# Until the NCCL log parser has landed a valid log is itself unusable; the
# cases that need one then only check that nothing crashes.
small_log >"$tmp/probe.log"
run analyze "$tmp/probe.log"
nccl_ok=0
if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then
	nccl_ok=1
else
	echo "note: the NCCL log parser reads nothing yet (exit $rc);" \
		"valid-log cases only check for crashes"
fi
# ALLOWED statuses for a run on input that holds a valid NCCL log.
# With an input cut or refused (a budget, a missing file), no fault in
# the rest is undecided (exit 5), never no_fault (exit 0): $unread.
if [ "$nccl_ok" -eq 1 ]; then
	valid="0 1"
	unread="1 5"
else
	valid="0 1 3"
	unread="1 3 5"
fi

# 1. An empty file.
: >"$tmp/empty.log"
run analyze "$tmp/empty.log"
expect_rc "empty file" 3
expect_named "empty file" "empty.log"

# 2. Binary garbage: a fixed byte pattern, 64 KiB.
i=0
: >"$tmp/garbage.bin"
while [ $i -lt 256 ]; do
	printf '\000\377\201\033[2J\376\002PK\003\004\177ELF\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037 \200\201\202\203\204\205\206\207\210\211\212\213\214\215\216\217\220\221\222\223\224\225\226\227\230\231\232\233\234\235\236\237\240\241\242\243\244\245\246\247\250\251\252\253\254\255\256\257\260\261\262\263\264\265\266\267\270\271\272\273\274\275\276\277\300\301\302\303\304\305\306\307\310\311\312\313\314\315\316\317\320\321\322\323\324\325\326\327\330\331\332\333\334\335\336\337\340\341\342\343\344\345\346\347\350\351\352\353\354\355\356\357\360\361\362\363\364\365\366\367\370\371\372\373\374\375\376\377' >>"$tmp/garbage.bin"
	i=$((i + 1))
done
run analyze "$tmp/garbage.bin"
expect_rc "binary garbage" 3
expect_named "binary garbage" "garbage.bin"
# The JSON report stays valid even so.
run analyze --format json "$tmp/garbage.bin"
expect_rc "binary garbage, json" 3
expect_named "binary garbage, json" '"path": "'"$tmp/garbage.bin"'"'

# 3. A 50 MB line, then a valid NCCL line.
{
	init_line
	head -c 52428800 /dev/zero | tr '\0' x
	printf '\n'
	coll_line 3f
} >"$tmp/longline.log"
# shellcheck disable=SC2086
run analyze "$tmp/longline.log"
expect_rc "50 MB line" $valid
if [ "$nccl_ok" -eq 1 ]; then
	run show "$tmp/longline.log"
	expect_rc "50 MB line, show" 0
	if grep -q "all_reduce" "$out"; then
		ok
	else
		bad "50 MB line: the NCCL line after it was not read"
	fi
fi

# 4. A truncated last record: no newline, cut mid-token.  The input is
# cut short (what followed is unknown), so with no fault in the rest the
# verdict is insufficient_data, never no_fault.
{
	small_log
	printf '%s' "node-a:4242:4242 [1] NCCL INFO AllReduce: opCount 40 sendbuff 0x7f00aa0"
} >"$tmp/cut.log"
run analyze "$tmp/cut.log"
expect_rc "truncated last line" 5
expect_named "truncated last line" "the file ends inside a line"

# 5. An unreadable file (root reads it anyway: skip then).
small_log >"$tmp/secret.log"
chmod 000 "$tmp/secret.log"
if cat "$tmp/secret.log" >/dev/null 2>&1; then
	echo "note: running as root, unreadable-file case skipped"
	skip=$((skip + 1))
else
	run analyze "$tmp/secret.log"
	expect_rc "unreadable file" 3
	expect_named "unreadable file" "secret.log"
fi
chmod 644 "$tmp/secret.log"

# 6. A directory without logs.
mkdir "$tmp/nologs" "$tmp/nologs/sub"
printf 'just some notes\nnothing to see\n' >"$tmp/nologs/README.txt"
run analyze "$tmp/nologs"
expect_rc "directory without logs" 3
expect_named "directory without logs" "README.txt"
mkdir "$tmp/emptydir"
run analyze "$tmp/emptydir"
expect_rc "empty directory" 3
if [ -s "$err" ]; then ok; else bad "empty directory: nothing on stderr"; fi

# 7. A path that does not exist: exit 3 (no usable input), named on stderr;
# beside a good path it is named and the good one is still analyzed, but
# not called healthy: the missing file may have held a rank's record, so
# no fault in the rest is insufficient_data (exit 5), never no_fault.
run analyze "$tmp/does-not-exist.log"
expect_rc "nonexistent path" 3
if grep -qF "does-not-exist.log" "$err"; then ok; else
	bad "nonexistent path: not named on stderr"; fi
small_log >"$tmp/good.log"
# shellcheck disable=SC2086
run analyze "$tmp/does-not-exist.log" "$tmp/good.log"
expect_rc "nonexistent beside a good path" $unread
if grep -q "^no_fault" "$out"; then
	bad "nonexistent beside a good path: no_fault"; else ok; fi
if grep -qF "does-not-exist.log" "$err"; then ok; else
	bad "nonexistent beside a good path: not named on stderr"; fi

# 8. Bad usage: exit 2, nothing on stdout.
for args in "--bogus $tmp/good.log" "--format xml $tmp/good.log" \
	"--format" "-j x $tmp/good.log" "-j -1 $tmp/good.log" "" \
	"--Format json $tmp/good.log"; do
	# shellcheck disable=SC2086
	run analyze $args
	expect_rc "usage: analyze $args" 2
	if [ -s "$out" ]; then bad "usage: analyze $args: wrote to stdout"; else ok; fi
	if [ -s "$err" ]; then ok; else bad "usage: analyze $args: no message"; fi
done
run show --rank x "$tmp/good.log"
expect_rc "usage: show --rank x" 2
run show --format markdown "$tmp/good.log"
expect_rc "usage: show --format markdown" 2

# 9. .gz and .zst of a small log read the same as the plain file.  The same
# name in three directories keeps the reports comparable byte for byte.
mkdir "$tmp/plain" "$tmp/gz" "$tmp/zst"
small_log >"$tmp/plain/rank1.log"
# A fixed generated_at and no analysis time (SOURCE_DATE_EPOCH).
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH
for fmt in text json markdown; do
	(cd "$tmp/plain" && timeout 60 "$HANGDOC" analyze --format $fmt \
		rank1.log >"$tmp/plain.$fmt" 2>/dev/null)
done
for c in gz zst; do
	if [ $c = gz ]; then
		tool=gzip
		gzip -c "$tmp/plain/rank1.log" >"$tmp/gz/rank1.log" 2>/dev/null
	else
		tool=zstd
		zstd -q -c "$tmp/plain/rank1.log" >"$tmp/zst/rank1.log" 2>/dev/null
	fi
	if [ ! -s "$tmp/$c/rank1.log" ]; then
		echo "note: no $tool, .$c case skipped"
		skip=$((skip + 1))
		continue
	fi
	for fmt in text json markdown; do
		(cd "$tmp/$c" && timeout 60 "$HANGDOC" analyze --format $fmt \
			rank1.log >"$tmp/$c.$fmt" 2>/dev/null)
		rc=$?
		expect_rc ".$c $fmt" $valid
		# The JSON report identifies each file as stored: its size
		# and hashes differ by design; the rest must not.
		if [ $fmt = json ]; then
			for f in "$tmp/plain.$fmt" "$tmp/$c.$fmt"; do
				grep -v '"size":\|"sha256":\|"xxh3_128":' "$f" >"$f.cmp"
				mv "$f.cmp" "$f"
			done
		fi
		if cmp -s "$tmp/plain.$fmt" "$tmp/$c.$fmt"; then ok; else
			bad ".$c $fmt differs from the plain file"
			diff "$tmp/plain.$fmt" "$tmp/$c.$fmt" | head -20
		fi
	done
done

# 10. A truncated .gz: what came before the cut may be used, the file is
# named, nothing crashes.
{
	small_log
	i=0
	while [ $i -lt 2000 ]; do
		coll_line "$(printf '%x' $((i + 64)))"
		i=$((i + 1))
	done
} | gzip -c >"$tmp/whole.log.gz" 2>/dev/null
if [ -s "$tmp/whole.log.gz" ]; then
	size=$(wc -c <"$tmp/whole.log.gz")
	head -c $((size / 2)) "$tmp/whole.log.gz" >"$tmp/cut.log.gz"
	# shellcheck disable=SC2086
	run analyze "$tmp/cut.log.gz"
	expect_rc "truncated .gz" $unread
	expect_named "truncated .gz" "cut.log.gz"
	run analyze --format json "$tmp/cut.log.gz"
	expect_rc "truncated .gz, json" $unread
else
	skip=$((skip + 1))
fi

# 11. -o FILE: written whole through a rename; a failed write leaves nothing.
run analyze -o "$tmp/report.txt" "$tmp/good.log"
if [ -s "$out" ]; then bad "-o: wrote to stdout"; else ok; fi
if [ -s "$tmp/report.txt" ] && [ ! -e "$tmp/report.txt.tmp" ]; then ok; else
	bad "-o: report.txt missing or report.txt.tmp left behind"; fi
# shellcheck disable=SC2086
run analyze -o "$tmp/no-such-dir/report.txt" "$tmp/good.log"
expect_rc "-o into a missing directory" 4
if [ -e /dev/full ]; then
	timeout 60 "$HANGDOC" analyze "$tmp/good.log" >/dev/full 2>"$err"
	rc=$?
	expect_rc "stdout is /dev/full" 4
fi

# 12. A trace event holding a 1 GB string (a sparse file, so nothing is
# written): skipped with a warning, the kernel after it still read, and
# memory bounded by the cap on one event, not by the string.
big=$tmp/big.pt.trace.json
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","ts":1,"dur":1,"name":"' >"$big"
if truncate -s +1G "$big" 2>/dev/null; then
	printf '"},{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":7,"ts":100,"dur":5,"args":{"correlation":9}}],"distributedInfo":{"backend":"nccl","rank":0,"world_size":1}}' >>"$big"
	# Cap the address space where the binary runs under one (ASan's
	# shadow memory does not, so the cap is probed first).
	if (ulimit -v 1000000 && "$HANGDOC" --version) >/dev/null 2>&1; then
		cap="ulimit -v 1000000;"
	else
		cap=
	fi
	sh -c "$cap timeout 120 \"\$0\" analyze --format json \"\$1\"" \
		"$HANGDOC" "$big" >"$out" 2>"$err"
	rc=$?
	expect_rc "1 GB string in a trace" 0 1
	expect_named "1 GB string in a trace" "big.pt.trace.json"
	if grep -q '"records": [1-9]' "$out" &&
	   grep -q 'over the size cap' "$out"; then ok; else
		bad "1 GB string: not skipped with a warning, or the kernel after it not read"; fi
	rm -f "$big"
else
	skip=$((skip + 1))
fi

# Prefixless NCCL records (issue 11): a WARN body at column 0 cut in the
# middle of every token, a bare "F:L WARN" of 2.2 with a 60 KB message, a
# known body with no NCCL token glued to binary, a lone "NCCL WARN".
{
	printf 'NCCL WARN\n'
	printf 'NCCL WARN NET/IB : Got completion from peer \n'
	printf 'NCCL INFO init.cc:\n'
	printf 'NCCL INFO init.cc:12 -> \n'
	printf 'include/socket.h:9 WARN '
	head -c 61440 /dev/zero | tr '\0' y
	printf '\n'
	printf 'NET/IB : Got completion from peer with error 99999999999999999999\n'
	printf 'NET/IB : Got completion\001\377\376 with error 5\n'
	printf '[7]\n[7]h:1:2 [0] x.cc:1 NCCL WARN\n'
	printf 'Duplicate GPU detected : rank 99999999999 and rank -4\n'
} >"$tmp/prefixless.log"
run analyze "$tmp/prefixless.log"
expect_rc "prefixless NCCL records" 1 5
run analyze --format json "$tmp/prefixless.log"
expect_rc "prefixless NCCL records, json" 1 5

# Issue 12, hostile and repeated inputs.  count_ops PATH...: the number of
# ops `hangdoc show` prints for the paths.
count_ops() {
	timeout 60 "$HANGDOC" show "$@" 2>/dev/null | grep -c "seq "
}

# 13. The same input read twice is read once: a log and its gzip -k copy,
# the same directory given twice, a link into the tree.  The repeat stays
# listed, with a note naming the first, and adds no ops.
mkdir "$tmp/twice"
small_log >"$tmp/twice/rank1.log"
ops_once=$(count_ops "$tmp/twice")
if gzip -k "$tmp/twice/rank1.log" 2>/dev/null; then
	run analyze --format json "$tmp/twice"
	expect_rc "log and its gzip -k copy" $valid
	expect_named "log and its gzip -k copy" \
		"same content as '$tmp/twice/rank1.log', read once"
	n=$(count_ops "$tmp/twice")
	if [ "$n" -eq "$ops_once" ]; then ok; else
		bad "log and its gzip -k copy: $n ops, not $ops_once"; fi
	rm -f "$tmp/twice/rank1.log.gz"
	# the compressed copy first: the log, of a size no other file has,
	# is read without its content hash and hashed when it is needed
	gzip -c "$tmp/twice/rank1.log" >"$tmp/twice/rank1.gz"
	run analyze --format json "$tmp/twice"
	expect_rc "gzip copy before the log" $valid
	expect_named "gzip copy before the log" \
		"same content as '$tmp/twice/rank1.gz', read once"
	n=$(count_ops "$tmp/twice")
	if [ "$n" -eq "$ops_once" ]; then ok; else
		bad "gzip copy before the log: $n ops, not $ops_once"; fi
	rm -f "$tmp/twice/rank1.gz"
else
	skip=$((skip + 1))
fi
run analyze --format json "$tmp/twice" "$tmp/twice"
expect_rc "directory given twice" $valid
expect_named "directory given twice" \
	"same file as '$tmp/twice/rank1.log', read once"
n=$(count_ops "$tmp/twice" "$tmp/twice")
if [ "$n" -eq "$ops_once" ]; then ok; else
	bad "directory given twice: $n ops, not $ops_once"; fi
ln -s rank1.log "$tmp/twice/zz-link.log"
run analyze "$tmp/twice"
expect_rc "link into the tree" $valid
expect_named "link into the tree" "same file as '$tmp/twice/rank1.log'"
n=$(count_ops "$tmp/twice")
if [ "$n" -eq "$ops_once" ]; then ok; else
	bad "link into the tree: $n ops, not $ops_once"; fi

# 14. The walk follows no link to a directory and none out of the given
# paths; FIFOs are never opened unless standard input.  Two links to "."
# made the walk exponential; a link to /proc/kmsg blocked it forever.
mkdir "$tmp/walk" "$tmp/walk/logs" "$tmp/outside"
small_log >"$tmp/walk/logs/rank1.log"
small_log >"$tmp/outside/secret.log"
ln -s . "$tmp/walk/logs/self1"
ln -s . "$tmp/walk/logs/self2"
ln -s ../../outside/secret.log "$tmp/walk/logs/escape.log"
ln -s ../../outside "$tmp/walk/logs/escape-dir"
mkfifo "$tmp/walk/logs/pipe" 2>/dev/null
run analyze --format json "$tmp/walk"
expect_rc "links to . and out of the tree" $valid
expect_named "link out of the tree" "escape.log' links out of the given paths"
if grep -q "secret.log\|escape.log\"" "$out"; then
	bad "link out of the tree: the file it leads to was read"; else ok; fi
n=$(count_ops "$tmp/walk")
if [ "$n" -eq "$ops_once" ]; then ok; else
	bad "links to .: $n ops, not $ops_once"; fi
if [ -p "$tmp/walk/logs/pipe" ]; then
	run analyze "$tmp/walk/logs/pipe" "$tmp/good.log"
	expect_rc "FIFO given as PATH" $valid
	expect_named "FIFO given as PATH" "'$tmp/walk/logs/pipe': not a regular file"
else
	skip=$((skip + 1))
fi
timeout 60 "$HANGDOC" analyze - <"$tmp/good.log" >"$out" 2>"$err"
rc=$?
expect_rc "- reads standard input" $valid
expect_named "- reads standard input" "<stdin> (nccl_log"

# 15. -o: never an input, never through a planted link, never renamed
# over a device or a FIFO (as root, -o /dev/null replaced the device).
small_log >"$tmp/o-in.log"
cp "$tmp/o-in.log" "$tmp/o-in.copy"
run analyze -o "$tmp/o-in.log" "$tmp/o-in.log"
expect_rc "-o is an input" 2
expect_named "-o is an input" "is one of the inputs"
if cmp -s "$tmp/o-in.log" "$tmp/o-in.copy"; then ok; else
	bad "-o is an input: the input was overwritten"; fi
small_log >"$tmp/o-in.log"
ln -s o-in.log "$tmp/alias.log"
run analyze -o "$tmp/alias.log" "$tmp/twice" "$tmp/o-in.log"
expect_rc "-o is an input through a link" 2
if cmp -s "$tmp/o-in.log" "$tmp/o-in.copy"; then ok; else
	bad "-o is an input through a link: the input was overwritten"; fi
: >"$tmp/victim"
ln -s victim "$tmp/planted.txt.tmp"
run analyze -o "$tmp/planted.txt" "$tmp/good.log"
expect_rc "-o with a planted FILE.tmp link" $valid
if [ ! -s "$tmp/victim" ] && [ -s "$tmp/planted.txt" ]; then ok; else
	bad "-o with a planted FILE.tmp link: wrote through the link"; fi
run analyze -o - "$tmp/good.log"
expect_rc "-o -" $valid
if [ -s "$out" ] && [ ! -e ./- ] && [ ! -e "$tmp/-" ]; then ok; else
	bad "-o -: the report is not on standard output"; fi
run analyze -o "" "$tmp/good.log"
expect_rc "-o ''" 2
if mkfifo "$tmp/report.fifo" 2>/dev/null; then
	timeout 60 cat "$tmp/report.fifo" >"$tmp/from-fifo" &
	reader=$!
	run analyze -o "$tmp/report.fifo" "$tmp/good.log"
	expect_rc "-o FIFO" $valid
	if [ -p "$tmp/report.fifo" ]; then ok; else
		bad "-o FIFO: the FIFO was replaced"; fi
	if [ -p "$tmp/report.fifo" ]; then wait "$reader"; else
		kill "$reader" 2>/dev/null; fi
	if [ -s "$tmp/from-fifo" ]; then ok; else
		bad "-o FIFO: nothing came through the FIFO"; fi
else
	skip=$((skip + 1))
fi
if mknod "$tmp/null" c 1 3 2>/dev/null; then
	run analyze -o "$tmp/null" "$tmp/good.log"
	expect_rc "-o device" $valid
	if [ -c "$tmp/null" ]; then ok; else
		bad "-o device: the device node was replaced"; fi
else
	skip=$((skip + 1))
fi

# 16. Budgets: past its kind's decoded size, or a decompression ratio no
# real dump reaches, an input is refused, named, and the others kept.
{
	i=0
	while [ $i -lt 40 ]; do
		small_log
		i=$((i + 1))
	done
} >"$tmp/over.log"
HANGDOC_MAX_INPUT_SIZE=2K timeout 60 "$HANGDOC" analyze --format json \
	"$tmp/over.log" "$tmp/good.log" >"$out" 2>"$err"
rc=$?
expect_rc "log over HANGDOC_MAX_INPUT_SIZE" $unread
expect_named "log over HANGDOC_MAX_INPUT_SIZE" \
	"'$tmp/over.log': more than 2 KiB decoded, the budget for an NCCL or c10d log"
# A budget below the 4 KiB head that decides an input's kind holds too
# (adv4: a 4 KB dump was read whole under HANGDOC_MAX_INPUT_SIZE=1K).
HANGDOC_MAX_INPUT_SIZE=1K timeout 60 "$HANGDOC" analyze --format json \
	"$HD_SRCDIR/testdata/example-incident/fr/nccl_trace_rank_0" \
	"$tmp/good.log" >"$out" 2>"$err"
rc=$?
expect_named "dump over a budget below its head" \
	"nccl_trace_rank_0': more than 1 KiB decoded, the budget for a flight-recorder pickle"
if command -v zstd >/dev/null 2>&1; then
	mkdir "$tmp/bombs"
	{ init_line; coll_line 3f | awk '{ for (i = 0; i < 600000; i++) print }'; } |
		zstd -q -c >"$tmp/bombs/log.zst"
	{ printf '\200\002'; head -c 67108864 /dev/zero | tr '\0' N; } |
		zstd -q -c >"$tmp/bombs/none.pkl.zst"
	{ printf '{"entries":['; head -c 33554432 /dev/zero | tr '\0' 0 |
		sed 's/0/0,/g'; printf '0]}'; } |
		zstd -q -c >"$tmp/bombs/dump.json.zst"
	for b in log.zst none.pkl.zst dump.json.zst; do
		# shellcheck disable=SC2086
		run analyze --format json "$tmp/bombs/$b" "$tmp/good.log"
		expect_rc "bomb $b" $unread
		# its own ratio or the incident's, whichever comes first
		if grep -Eq "'$tmp/bombs/$b': (decompresses more than|the incident's inputs decode to more than 250 times)" \
			"$err" "$out"; then ok; else
			bad "bomb $b: no budget named"; fi
		if grep -q '"path": "'"$tmp/good.log"'"' "$out"; then ok; else
			bad "bomb $b: the other input was not kept"; fi
	done
else
	skip=$((skip + 1))
fi

# 17. -j is capped at a few threads per CPU: -j 4096 started 4096
# threads, each with its stack and buffers, for 64 files.  They are
# counted while the load waits on standard input.
mkdir "$tmp/many"
i=0
while [ $i -lt 64 ]; do
	small_log >"$tmp/many/rank$i.log"
	i=$((i + 1))
done
if [ -d /proc/self/task ] && mkfifo "$tmp/jin" 2>/dev/null; then
	# no timeout(1) in between: its pid would be counted
	"$HANGDOC" analyze -j 4096 - "$tmp/many" <"$tmp/jin" >"$out" \
		2>"$err" &
	pid=$!
	exec 3>"$tmp/jin"
	sleep 1
	threads=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
	exec 3>&-
	wait "$pid"
	rc=$?
	expect_rc "-j 4096" $unread
	cpus=$(nproc 2>/dev/null || echo 1)
	if [ "$threads" -ge 2 ] && [ "$threads" -le $((4 * cpus + 2)) ]; then
		ok
	else
		bad "-j 4096: $threads threads for $cpus CPUs"
	fi
else
	skip=$((skip + 1))
fi

# 18. replay --plan-out goes through the same safe output as -o: a device
# is written to, never renamed over (as root, the plan's rename replaced
# /dev/null for the whole machine).
if [ -c /dev/null ]; then
	run replay --window 2 --plan-out /dev/null "$HD_SRCDIR/tests/data/fr/missing-rank"
	expect_rc "replay --plan-out /dev/null" 0
	if [ -c /dev/null ]; then ok; else
		bad "replay --plan-out replaced /dev/null"; fi
fi

# 19. Fuzzer finds, kept as seeds: each is analyzed whole (under the
# sanitizer build these are the crashes they were).
#  - signal-bad-rank-double-free: a signal dropped for its rank had its
#    text freed twice, and a kept one's freed while in use.
for seed in corpus-nccl/signal-bad-rank-double-free; do
	run analyze "$HD_SRCDIR/tests/fuzz/$seed"
	expect_rc "fuzzer find $seed" 0 1 3
	# ASan exits 1, which analyze may too: its report tells them apart
	if grep -q -e 'Sanitizer' -e 'runtime error' "$err"; then
		bad "fuzzer find $seed: sanitizer report"
	else
		ok
	fi
done

# 20. Times at the ends of int64 (an FR dump's time_discovered_completed_ns
# of 2^63-1, a time_created_ns of 1): every output that lays ops out on a
# clock (the HTML timeline, the Perfetto export) spans them without an
# overflow (the sanitizer build aborts on one).
for args in "analyze --format html" "analyze --format json" "export" \
	"analyze"; do
	# shellcheck disable=SC2086
	run $args "$HD_SRCDIR/tests/data/fr/absurd-times"
	expect_rc "$args on times at the ends of int64" 0 1 5
	if grep -q -e 'Sanitizer' -e 'runtime error' "$err"; then
		bad "$args on times at the ends of int64: sanitizer report"
	else
		ok
	fi
done

echo "$pass passed, $fail failed${skip:+, $skip skipped}"
[ "$fail" -eq 0 ]
