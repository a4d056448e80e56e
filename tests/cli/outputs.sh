#!/bin/sh
# Every subcommand that writes a file (analyze -o, export -o, replay
# --plan-out) goes through one output module and keeps the same promises
# (docs/safety.md): an input is never overwritten, a device or FIFO is
# written to and never replaced, a link planted where a temporary file
# could be predicted is never followed, a FIFO nobody reads fails at once
# (exit 4) instead of hanging, and a reader that closes the pipe gives
# exit status 4 for every subcommand.  Runs as root in CI too: it works
# in a temporary directory and never names a system device as an output
# (the device it writes to is a null device it makes there).
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
src=$HD_SRCDIR/testdata/example-incident
cp -R "$src" "$tmp/in"
log=$tmp/in/logs/node-a.log
# runs hangdoc with its arguments; $rc gets the status, $tmp/err stderr
hd() {
	"$HANGDOC" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# the same, killed after 20 s: a hang is a failure, not a stuck test
hd_bounded() {
	timeout 20 "$HANGDOC" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# FIFO OUT ARGS...: runs hangdoc ARGS with FIFO opened for reading first
# (so hangdoc finds a reader, without a race), copies what comes through
# into OUT, prints the exit status; killed after 20 s.
fifo_read() {
	fifo=$1
	into=$2
	shift 2
	python3 -c '
import os, select, subprocess, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
data, end = b"", time.time() + 20
while time.time() < end:
    done = p.poll() is not None
    select.select([fd], [], [], 0.05)
    try:
        chunk = os.read(fd, 65536)
    except BlockingIOError:
        chunk = b""
    data += chunk
    if done and not chunk:
        break
if p.poll() is None:
    p.kill()
open(sys.argv[2], "wb").write(data)
print(p.wait())
' "$fifo" "$into" "$HANGDOC" "$@"
}

cp "$log" "$tmp/log.orig"
mknod -m 666 "$tmp/null" c 1 3 2>/dev/null || echo "no mknod (not root): devices not checked"

# The three ways of writing a file, as "command args before the file".
for way in "analyze -o" "export -o" "replay --plan-out"; do
	name=$(echo "$way" | tr ' ' '_')

	# An input is refused, unchanged, whether named or reached by a link.
	hd $way "$log" "$tmp/in"
	check "$way onto an input is a usage error" [ "$rc" -eq 2 ]
	check "$way onto an input says so" \
		grep -q "is one of the inputs, not overwritten" "$tmp/err"
	check "$way leaves the input as it was" cmp -s "$log" "$tmp/log.orig"
	ln -s "$log" "$tmp/link-$name"
	hd $way "$tmp/link-$name" "$tmp/in"
	check "$way onto a link to an input is refused" [ "$rc" -eq 2 ]
	check "$way leaves the input behind the link as it was" \
		cmp -s "$log" "$tmp/log.orig"

	# A device is written to and stays a device: a null device made in
	# the temporary directory (as root), never the system's /dev/null,
	# which a broken build would replace for everyone.
	if [ -c "$tmp/null" ]; then
		hd $way "$tmp/null" "$tmp/in"
		check "$way onto a device succeeds" [ "$rc" -le 1 ]
		check "$way leaves the device a character device" \
			[ -c "$tmp/null" ]
	fi

	# A link planted at every name a writer could predict is not followed.
	out=$tmp/$name.json
	echo keep >"$tmp/victim-$name"
	for p in "$out.tmp" "$tmp/.$name.json.tmp" "$tmp/$name.json~"; do
		ln -s "$tmp/victim-$name" "$p"
	done
	hd $way "$out" "$tmp/in"
	check "$way writes a new file" [ -s "$out" ]
	check "$way's status is the command's own" [ "$rc" -le 1 ]
	check "$way does not write through a planted link" \
		grep -qx keep "$tmp/victim-$name"
	check "$way leaves the planted link a link" [ -L "$out.tmp" ]
	check "$way leaves no temporary file" \
		sh -c "! ls -a '$tmp' | grep -Eq '^\.$name\.json\.[[:alnum:]]{6}\$'"

	# A FIFO: written to when someone reads, an error when nobody does.
	mkfifo "$tmp/fifo-$name"
	rc=$(fifo_read "$tmp/fifo-$name" "$tmp/read-$name" $way \
		"$tmp/fifo-$name" "$tmp/in")
	check "$way into a read FIFO succeeds" [ "$rc" -le 1 ]
	check "$way into a read FIFO delivers the output" \
		[ -s "$tmp/read-$name" ]
	check "$way leaves the FIFO a FIFO" [ -p "$tmp/fifo-$name" ]
	hd_bounded $way "$tmp/fifo-$name" "$tmp/in"
	check "$way into a FIFO nobody reads fails, never hangs" \
		[ "$rc" -eq 4 ]
	check "$way into a FIFO nobody reads says why" \
		grep -q "a FIFO that no process reads" "$tmp/err"

	# A directory is not replaced.
	mkdir "$tmp/dir-$name"
	hd $way "$tmp/dir-$name" "$tmp/in"
	check "$way onto a directory fails" [ "$rc" -eq 4 ]
	check "$way leaves the directory" [ -d "$tmp/dir-$name" ]
done

# replay --plan-out onto the plan read with --plan.
"$HANGDOC" replay --plan-out "$tmp/plan.json" "$tmp/in" 2>/dev/null
cp "$tmp/plan.json" "$tmp/plan.orig"
ln -s "$tmp/plan.json" "$tmp/plan-link.json"
hd replay --plan "$tmp/plan.json" --plan-out "$tmp/plan-link.json"
check "--plan-out onto the --plan file (by a link) is refused" [ "$rc" -eq 2 ]
check "--plan-out leaves the plan read as it was" \
	cmp -s "$tmp/plan.json" "$tmp/plan.orig"

# A reader that has closed the pipe: exit status 4 and a short message for
# every subcommand, never a kill by SIGPIPE (141 in a shell).  The pipe's
# read end is closed before hangdoc starts, so every write fails, however
# short the output (`| head -c1` races with a short one).
closed_pipe() { # ARGS...: prints the exit status, stderr into $tmp/err
	python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
sys.stderr.buffer.write(p.stderr)
print(p.returncode if p.returncode >= 0 else 128 - p.returncode)
' "$HANGDOC" "$@" 2>"$tmp/err"
}
for args in "analyze $tmp/in" "analyze --format json $tmp/in" \
	"show $tmp/in" "export $tmp/in" "triage $tmp/in $tmp/in/logs" \
	"diff $tmp/in $tmp/in/logs" "replay --dry-run $tmp/in" "--help" \
	"help analyze" "--version"; do
	# shellcheck disable=SC2086
	rc=$(closed_pipe $args)
	check "'$args' into a closed pipe exits 4 (was $rc)" [ "$rc" = 4 ]
	check "'$args' into a closed pipe says why once" \
		[ "$(grep -c "cannot write 'standard output'" "$tmp/err")" = 1 ]
done
# the same through a shell pipe, with output longer than a pipe holds
mkdir "$tmp/long"
i=0
while [ $i -lt 1500 ]; do
	echo "node-a:4017:4017 [1] NCCL INFO AllReduce: opCount $i sendbuff 0x7f00aa000000 recvbuff 0x7f00aa000000 count 4096 datatype 7 op 0 root 0 comm 0x5600d0a11000 [nranks=4] stream 0x55e0c1c8f7a0"
	i=$((i + 1))
done >"$tmp/long/rank1.log"
rc=$( ("$HANGDOC" show "$tmp/long" 2>/dev/null; echo $? >"$tmp/rc") |
	head -c1 >/dev/null; cat "$tmp/rc")
check "show | head -c1 exits 4 (was $rc)" [ "$rc" = 4 ]

finish
