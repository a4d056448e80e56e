#!/bin/sh
# Incident bundles (issue 14): an incident given as a .tar, .tgz, .tar.zst
# or .zip (made here with python3 from fixtures) gives the verdicts its
# directory gives; hostile archives (a zip of 64 MiB of one byte, a member
# named ../../etc/passwd, links, a FIFO, an archive inside the archive, a
# truncated tar) are refused, labelled or skipped with a message, nothing
# is written anywhere, and no run dies of a signal; a triage of a
# directory holding an archive and a subdirectory counts two incidents.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
dir=$tmp
fail() { echo "FAIL: $*"; exit 1; }

# The verdicts of a JSON report, without what names inputs.
verdicts() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for v in d["verdicts"]:
    print(v["kind"], v["culprit_ranks"], v["group"], v["seq"], v["op"],
          v["confidence"], v["fingerprint"])
'
}

# make_archives NAME DIR: DIR as NAME.tar, NAME.tgz, NAME.zip (and
# NAME.tar.zst with the zstd tool) in $dir, members under NAME/.
make_archives() {
	python3 - "$dir/$1" "$2" "$1" <<'PY' || exit 99
import os, sys, tarfile, zipfile
out, src, name = sys.argv[1:]
for ext, mode in ((".tar", "w"), (".tgz", "w:gz")):
    with tarfile.open(out + ext, mode, format=tarfile.USTAR_FORMAT) as t:
        t.add(src, arcname=name)
with zipfile.ZipFile(out + ".zip", "w", zipfile.ZIP_DEFLATED) as z:
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            z.write(p, os.path.join(name, os.path.relpath(p, src)))
PY
	if command -v zstd >/dev/null; then
		zstd -q -o "$dir/$1.tar.zst" "$dir/$1.tar" || exit 99
	fi
}

for fixture in testdata/example-incident tests/data/fr/missing-rank; do
	name=$(basename "$fixture")
	make_archives "$name" "$HD_SRCDIR/$fixture"
	"$HANGDOC" analyze --format json "$HD_SRCDIR/$fixture" 2>/dev/null |
		verdicts >"$dir/want" || fail "$fixture: no report"
	[ -s "$dir/want" ] || fail "$fixture: no verdict"
	for a in "$dir/$name".tar "$dir/$name".tgz "$dir/$name".tar.zst \
		"$dir/$name".zip; do
		[ -f "$a" ] || continue
		"$HANGDOC" analyze --format json "$a" >"$dir/json" 2>"$dir/err"
		status=$?
		[ "$status" -lt 2 ] || fail "$a: exit $status"
		verdicts <"$dir/json" >"$dir/got" || fail "$a: no report"
		cmp -s "$dir/want" "$dir/got" ||
			{ diff "$dir/want" "$dir/got"; fail "$a: verdicts differ"; }
		grep -qF "$(basename "$a")/$name/" "$dir/json" ||
			fail "$a: inputs not named ARCHIVE/member"
	done
done

# Hostile archives, read from a directory of their own whose listing must
# not change (nothing extracted), nor anything beside it.
mkdir "$dir/h" || exit 99
python3 - "$dir/h" <<'PY' || exit 99
import io, os, sys, tarfile, zipfile
out = sys.argv[1]
log = b"node-a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
def reg(t, name, data):
    i = tarfile.TarInfo(name); i.size = len(data)
    t.addfile(i, io.BytesIO(data))
inner = io.BytesIO()
with zipfile.ZipFile(inner, "w") as z:
    z.writestr("inner.log", log)
with tarfile.open(out + "/hostile.tar", "w", format=tarfile.GNU_FORMAT) as t:
    reg(t, "../../etc/passwd", log)
    reg(t, "/abs/rank_1.log", log)
    reg(t, "ctl\x1b[31mred\x07.log", log)
    for name, kind, target in (("link", tarfile.SYMTYPE, "/etc/passwd"),
                               ("hard", tarfile.LNKTYPE, "../../etc/passwd"),
                               ("fifo", tarfile.FIFOTYPE, "")):
        i = tarfile.TarInfo(name); i.type = kind; i.linkname = target
        t.addfile(i)
    reg(t, "nested.zip", inner.getvalue())
# One member of 64 MiB of one byte: deflate's best ratio, 1028 to 1.
with zipfile.ZipFile(out + "/bomb.zip", "w", zipfile.ZIP_DEFLATED,
                     compresslevel=9) as z:
    z.writestr("bomb.log", b"x" * (64 << 20))
with tarfile.open(out + "/bomb.tgz", "w:gz", compresslevel=9) as t:
    reg(t, "bomb.log", b"x" * (64 << 20))
# A tar cut in the middle of a member's header.
with tarfile.open(out + "/whole.tar", "w") as t:
    reg(t, "rank_0.log", log * 20)
    reg(t, "rank_1.log", log * 20)
data = open(out + "/whole.tar", "rb").read()
open(out + "/cut.tar", "wb").write(data[:512 + 1536 + 100])
os.remove(out + "/whole.tar")
# A zip whose first header is followed by garbage.
open(out + "/garbage.zip", "wb").write(b"PK\x03\x04" + b"\xff" * 300)
PY
before=$(cd "$dir/h" && find . -ls | sort)
etc_before=$(ls -la "$dir/../etc" 2>&1)
cd "$dir/h" || exit 99
"$HANGDOC" analyze --format json hostile.tar >"$dir/json" 2>"$dir/err"
status=$?
[ "$status" -lt 128 ] || fail "hostile.tar: exit $status"
for what in "hostile.tar/../../etc/passwd" "hostile.tar//abs/rank_1.log"; do
	grep -qF "\"$what\"" "$dir/json" || fail "hostile.tar: no input '$what'"
done
for what in "hostile.tar/link': a symbolic link inside an archive, not followed" \
	"hostile.tar/hard': a hard link inside an archive, not followed" \
	"hostile.tar/fifo': not a regular file" \
	"hostile.tar/nested.zip': an archive inside an archive, not opened"; do
	grep -qF "$what" "$dir/err" || fail "hostile.tar: no '$what' on stderr"
done
"$HANGDOC" analyze hostile.tar >"$dir/text" 2>&1
grep -qF "hostile.tar/ctl?[31mred?.log" "$dir/text" ||
	fail "hostile.tar: control bytes of a member name not made safe"
if grep -q "$(printf '\033')" "$dir/err" "$dir/json" "$dir/text"; then
	fail "hostile.tar: an escape byte reached the output"
fi
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$dir/json" ||
	fail "hostile.tar: JSON report does not parse"
for bomb in bomb.zip bomb.tgz; do
	"$HANGDOC" analyze "$bomb" >/dev/null 2>"$dir/err"
	status=$?
	[ "$status" -lt 128 ] || fail "$bomb: exit $status"
	# the archive's ratio, or the incident's, which comes first
	grep -Eq "'$bomb.*(decompresses more than 1000 to 1|the incident's inputs decode to more than 250 times)" \
		"$dir/err" || { cat "$dir/err"; fail "$bomb: not refused"; }
done
for bad in cut.tar garbage.zip; do
	"$HANGDOC" analyze "$bad" >/dev/null 2>"$dir/err"
	status=$?
	[ "$status" -lt 128 ] || fail "$bad: exit $status"
	grep -q "'$bad" "$dir/err" || { cat "$dir/err"; fail "$bad: not named"; }
done
grep -q "cut.tar/rank_0.log" "$dir/err" ||
	{ "$HANGDOC" analyze --format json cut.tar 2>/dev/null |
		grep -q "cut.tar/rank_0.log"; } ||
	fail "cut.tar: the member before the cut is lost"
after=$(find . -ls | sort)
[ "$before" = "$after" ] || fail "reading archives changed $dir/h"
[ "$etc_before" = "$(ls -la "$dir/../etc" 2>&1)" ] ||
	fail "a member was written to $dir/../etc"
cd "$dir" || exit 99
[ ! -e /abs/rank_1.log ] || fail "a member was written to /abs"

# A triage of a directory with one archive and one subdirectory.
mkdir -p "$dir/t" || exit 99
cp -R "$HD_SRCDIR/testdata/example-incident" "$dir/t/sub" || exit 99
cp "$dir/example-incident.tgz" "$dir/t/bundle.tgz" || exit 99
echo "not an incident" >"$dir/t/notes.txt"
"$HANGDOC" triage --format jsonl "$dir/t" >"$dir/tri" 2>"$dir/err"
[ "$(wc -l <"$dir/tri")" -eq 2 ] ||
	{ cat "$dir/tri" "$dir/err"; fail "triage: not 2 incidents"; }
python3 - "$dir/tri" <<'PY' || fail "triage: the two incidents differ"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["path"].endswith("bundle.tgz"), rows
assert rows[0]["fingerprint"] == rows[1]["fingerprint"], rows
assert rows[0]["verdict"] == rows[1]["verdict"] == "missing_rank", rows
PY
echo "archives: ok"
