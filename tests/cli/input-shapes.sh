#!/bin/sh
# Input shapes that decoders and line splitters accept (issue 20): a .gz
# with zero padding or garbage after its last member, concatenated gzip
# members, a .zst with bytes after its last frame, a log with \r-only line
# ends, logs with holes of NUL bytes, UTF-16 logs, a text log with "ustar" at byte 257, a symbolic link loop in a
# walked directory, and an archive of 300 members that cannot be used.  Each is made here from testdata/example-incident and
# must give the verdicts the plain incident gives (or, for the link loop,
# list the link as an unreadable input in the report); errors name their
# file once.  A healthy incident beside an unreadable or cut input is
# insufficient_data, never no_fault.  Run by make check with HANGDOC and HD_SRCDIR set.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3 gzip
dir=$tmp
src=$HD_SRCDIR/testdata/example-incident

# The verdicts of a JSON report on stdin, without what names inputs, and
# its unusable inputs (but for the link loop's own links).
verdicts() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for v in d["verdicts"]:
    print(v["kind"], v["culprit_ranks"], v["group"], v["seq"], v["op"],
          v["confidence"], v["fingerprint"], v["summary"])
for i in d["inputs"]:
    if i["error"] and "loop-" not in i["path"]:
        print("unusable input:", i["path"], i["error"])
'
}

# The warnings and errors of the inputs of a JSON report on stdin.
input_notes() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for i in d["inputs"]:
    for w in i["warnings"]:
        print(i["path"], "warning:", w)
    if i["error"]:
        print(i["path"], "error:", i["error"])
'
}

# incident NAME: a copy of the example incident's logs (only them: the
# logs alone name the culprit, so a log read wrong changes the verdict).
incident() {
	mkdir -p "$dir/$1" || exit 99
	cp "$src/logs/node-a.log" "$dir/$1/" || exit 99
	cp "$src/logs/node-b.log.gz" "$dir/$1/" || exit 99
}

# same_verdicts NAME: analyze of $dir/NAME gives the plain incident's
# verdicts and exit status.
same_verdicts() {
	"$HANGDOC" analyze --format json "$dir/$1" >"$dir/$1.json" \
		2>"$dir/$1.err"
	status=$?
	[ "$status" -eq "$want_status" ] ||
		fail "$1: exit $status, the plain incident gives $want_status"
	verdicts <"$dir/$1.json" >"$dir/$1.got" || {
		fail "$1: no report"
		return
	}
	cmp -s "$dir/want" "$dir/$1.got" || {
		fail "$1: verdicts differ from the plain incident's"
		diff "$dir/want" "$dir/$1.got"
	}
}

# noted NAME TEXT: an input of $dir/NAME's report says TEXT.
noted() {
	input_notes <"$dir/$1.json" | grep -qF -- "$2" || {
		fail "$1: no input says '$2'"
		input_notes <"$dir/$1.json"
	}
}

incident plain
"$HANGDOC" analyze --format json "$dir/plain" >"$dir/plain.json" 2>/dev/null
want_status=$?
verdicts <"$dir/plain.json" >"$dir/want" || exit 99
grep -q "^missing_rank \[5\]" "$dir/want" || {
	echo "the plain incident no longer blames rank 5:"
	cat "$dir/want"
	exit 99
}

# A complete .gz followed by zero padding (gzip -t says OK): the culprit's
# log was taken as cut short, which exempted it.
incident padded
(gzip -dc "$src/logs/node-b.log.gz" | gzip -c; head -c 512 /dev/zero) \
	>"$dir/padded/node-b.log.gz"
gzip -t "$dir/padded/node-b.log.gz" 2>/dev/null ||
	fail "gzip -t refuses the padded fixture"
same_verdicts padded
noted padded "512 bytes of zero padding after the gzip data, ignored"

# Garbage after the member, and two members: both members are read.
incident garbage
(printf 'not gzip at all\n' >"$dir/tail" &&
	gzip -dc "$src/logs/node-b.log.gz" | head -n 8 | gzip -c &&
	gzip -dc "$src/logs/node-b.log.gz" | tail -n +9 | gzip -c &&
	cat "$dir/tail") >"$dir/garbage/node-b.log.gz"
same_verdicts garbage
noted garbage "16 bytes of something else after the gzip data, ignored"

# The same with zstd, frames and all.
if command -v zstd >/dev/null; then
	incident zst
	rm "$dir/zst/node-b.log.gz"
	(gzip -dc "$src/logs/node-b.log.gz" | zstd -q -c &&
		head -c 100 /dev/zero) >"$dir/zst/node-b.log.zst"
	same_verdicts zst
	noted zst "100 bytes of zero padding after the zstd data, ignored"
fi

# \r-only line ends: every line was one record fused into the next.
incident cr
tr '\n' '\r' <"$src/logs/node-a.log" >"$dir/cr/node-a.log"
gzip -dc "$src/logs/node-b.log.gz" | tr '\n' '\r' | gzip -c \
	>"$dir/cr/node-b.log.gz"
same_verdicts cr

# NUL holes (adv4): the culprit's log truncated by logrotate's
# copytruncate while its writer kept its offset starts with a hole of
# zeros (it was "unrecognized format, skipped", and with it the culprit's
# record); node-a's has a hole where a crash lost unflushed lines, longer
# than a line (it swallowed the line after it).
incident nul
(head -c 100000 /dev/zero && gzip -dc "$src/logs/node-b.log.gz") | gzip -c \
	>"$dir/nul/node-b.log.gz"
(head -n 5 "$src/logs/node-a.log" && head -c 70000 /dev/zero &&
	tail -n +6 "$src/logs/node-a.log") >"$dir/nul/node-a.log"
same_verdicts nul
noted nul "100000 NUL bytes skipped"
noted nul "70000 NUL bytes skipped"
# a file of zeros only (preallocated, never written) says so
mkdir -p "$dir/zeros" && head -c 5000 /dev/zero >"$dir/zeros/rank0.log"
"$HANGDOC" analyze "$dir/zeros" >/dev/null 2>"$dir/zeros.err"
grep -q "holds only NUL bytes (5000)" "$dir/zeros.err" ||
	fail "a file of zeros: not said"

# UTF-16 (adv4): PowerShell 5's ">" writes UTF-16LE with a mark and
# CRLF line ends; the logs were "unrecognized format, skipped" (exit 3).
incident utf16
python3 - "$src/logs/node-a.log" "$dir/utf16/node-a.log" <<'PY' || exit 99
import sys
text = open(sys.argv[1], encoding="utf-8").read().replace("\n", "\r\n")
open(sys.argv[2], "wb").write(text.encode("utf-16"))
PY
gzip -dc "$src/logs/node-b.log.gz" | python3 -c '
import sys
sys.stdout.buffer.write(sys.stdin.buffer.read().decode().encode("utf-16-be"))
' | gzip -c >"$dir/utf16/node-b.log.gz"
same_verdicts utf16
noted utf16 "UTF-16LE text, read as UTF-8"
noted utf16 "UTF-16BE text, read as UTF-8"

# A text log with "ustar" at byte 257 is no tar: it stays a log.
incident ustar
python3 - "$src/logs/node-a.log" "$dir/ustar/node-a.log" <<'PY' || exit 99
import sys
text = open(sys.argv[1], "rb").read()
pad = b"[default0]:node-a:4242:4242 [0] NCCL INFO padding "
line = pad + b"x" * (257 - len(pad)) + b"ustar00 here\n"
assert line.index(b"ustar") == 257
open(sys.argv[2], "wb").write(line + text)
PY
same_verdicts ustar

# A link loop below a walked directory is an input with its error in the
# report, not only a line on stderr.
incident loop
ln -s loop-b "$dir/loop/loop-a" && ln -s loop-a "$dir/loop/loop-b" || exit 99
same_verdicts loop
noted loop "loop-a error:"
noted loop "loop-b error:"

# A corrupt .gz: the lines before the corruption are read, the input
# is cut short with a warning that says why, and no message names the
# file twice.
incident corrupt
head -c 300 "$src/logs/node-b.log.gz" >"$dir/corrupt/node-b.log.gz"
printf 'junk that is not deflate data at all................' \
	>>"$dir/corrupt/node-b.log.gz"
"$HANGDOC" analyze --format json "$dir/corrupt" >"$dir/corrupt.json" \
	2>"$dir/corrupt.err"
noted corrupt "node-b.log.gz warning: line"
noted corrupt "input ends early: gzip data"
python3 -c '
import json, sys
d = json.load(sys.stdin)
cut = [i for i in d["inputs"] if i["path"].endswith("node-b.log.gz")]
sys.exit(0 if cut and cut[0]["truncated"] and cut[0]["records"] > 0 else 1)
' <"$dir/corrupt.json" || fail "corrupt .gz: not read up to the corruption"
if grep "node-b.log.gz.*node-b.log.gz" "$dir/corrupt.err"; then
	fail "corrupt .gz: the path is said twice in one message"
fi

# An archive of many members that cannot be used (a 2^18-entry tar
# printed 2^18 lines): stderr names the first 50 and counts the rest; the
# report still lists each.
python3 - "$dir/links.tar" <<'PY' || exit 99
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as t:
    for i in range(300):
        ti = tarfile.TarInfo("links/l%03d" % i)
        ti.type = tarfile.SYMTYPE
        ti.linkname = "/etc/passwd"
        t.addfile(ti)
PY
"$HANGDOC" analyze --format json "$dir/links.tar" "$dir/plain" \
	>"$dir/links.json" 2>"$dir/links.err"
n=$(wc -l <"$dir/links.err")
[ "$n" -le 60 ] || fail "links.tar: $n lines on stderr"
grep -q "^hangdoc: 250 more inputs could not be used" "$dir/links.err" ||
	fail "links.tar: the inputs past the first 50 are not counted"
m=$(input_notes <"$dir/links.json" | grep -c "links/l.*error: a symbolic link")
[ "$m" -eq 300 ] || fail "links.tar: $m of 300 links listed in the report"

# no_fault needs every input read whole: a healthy incident beside an
# input that could not be read (a link loop) or was cut (a dump cut in
# half, which may hide where its rank stopped) is insufficient_data, exit
# 5, naming that input; the healthy incident alone stays no_fault.
# top_kind NAME: the top verdict's kind and whether its evidence names an
# input below $dir/NAME/$2.
top_of() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verdicts"][0]
print(v["kind"], any(sys.argv[2] in (e.get("source") or "")
                     for e in v["evidence"]))
' "$dir/$1.json" "$2"
}
healthy() {
	mkdir -p "$dir/$1" || exit 99
	cp "$HD_SRCDIR"/tests/data/fr/healthy/* "$dir/$1/" || exit 99
}
healthy healthy
"$HANGDOC" analyze --format json "$dir/healthy" >"$dir/healthy.json" 2>/dev/null
status=$?
[ "$status" -eq 0 ] && [ "$(top_of healthy -)" = "no_fault False" ] ||
	fail "healthy: exit $status, $(top_of healthy -), not no_fault"
healthy hloop
ln -s loop-b "$dir/hloop/loop-a" && ln -s loop-a "$dir/hloop/loop-b" || exit 99
healthy hcut
f=$(ls "$dir/hcut" | tail -n 1)
head -c "$(($(wc -c <"$dir/hcut/$f") / 2))" "$HD_SRCDIR/tests/data/fr/healthy/$f" \
	>"$dir/hcut/$f" || exit 99
for h in "hloop loop-a" "hcut $f"; do
	set -- $h
	"$HANGDOC" analyze --format json "$dir/$1" >"$dir/$1.json" 2>/dev/null
	status=$?
	[ "$status" -eq 5 ] || fail "$1: exit $status, not 5"
	[ "$(top_of "$1" "$2")" = "insufficient_data True" ] ||
		fail "$1: $(top_of "$1" "$2"), not insufficient_data naming $2"
done

finish
