#!/usr/bin/env python3
"""Metamorphic check: what a collector does to a log must not change its verdict.

    scripts/check-metamorphic.py [--hangdoc PATH] [--srcdir DIR] [T,...]

For every fixture case marked 'ok' in the expect*.tsv files under
tests/data and testdata (the held-out real sets excepted: their excerpts
are not in the tree), this copies the case's inputs through a
transformation and runs `hangdoc analyze --format json` on the copy and
on the original; the top verdict (kind, culprit ranks, confidence) must
be the same.  Transformations (default: all):

    gzpad   each text file gzipped, 1 KiB of zero padding after the data
            (gzip files padded as they are); binary inputs left as is
    crlf    CRLF line ends
    bom     a UTF-8 byte-order mark in front of each text file
    dup     every line written twice in a row (a collector's second
            delivery); JSON, py-spy, gdb and nvidia-smi inputs are no
            line logs and do change, so only NCCL/c10d/kernel cases count

It prints one line per changed case and 'N/M changed'; exit status 1 if
any line-log case changed.  It takes a few minutes; it is a tool, not a
test (the derived fixtures in tests/data/nccl hold what it found).
"""
import argparse
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

NOT_LINE_LOGS = ("/kineto/", "/fr/", "/gdb/", "/pyspy/", "/hostlogs/gpu/",
                 "/real-kineto/")


def cases(top):
    tsvs = sorted(glob.glob(top + "/tests/data/**/expect*.tsv",
                            recursive=True))
    tsvs += sorted(glob.glob(top + "/testdata/expect*.tsv"))
    seen = set()
    for tsv in tsvs:
        if "/tests/data/real/" in tsv:
            continue
        base = os.path.dirname(tsv)
        for line in open(tsv, encoding="utf-8"):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5 or parts[4] != "ok":
                continue
            words = parts[0].split()
            paths = tuple(os.path.join(base, p) for p in words
                          if not p.startswith("--"))
            if paths in seen:
                continue
            seen.add(paths)
            yield list(paths), [p for p in words if p.startswith("--")]


def verdict(hangdoc, paths, opts):
    r = subprocess.run([hangdoc, "analyze", "--format", "json"] + opts +
                       paths, capture_output=True, timeout=120)
    try:
        v = (json.loads(r.stdout).get("verdicts") or [{}])[0]
    except ValueError:
        return ("error", r.returncode)
    return (v.get("kind"), tuple(sorted(v.get("culprit_ranks") or [])),
            v.get("confidence"))


def is_text(data):
    head = data[:4096]
    return (b"\0" not in head and not head.startswith(b"\x1f\x8b") and
            not head.startswith(b"\x28\xb5\x2f\xfd") and
            not head.startswith(b"\x80"))


def transform(t, src, dst):
    data = open(src, "rb").read()
    text = is_text(data)
    out = data
    if t == "gzpad":
        if data.startswith(b"\x1f\x8b"):
            out = data + b"\0" * 1024
        elif text:
            out = gzip.compress(data, mtime=0) + b"\0" * 1024
            dst += ".gz"
    elif t == "crlf" and text:
        out = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    elif t == "bom" and text:
        out = b"\xef\xbb\xbf" + data
    elif t == "dup" and text:
        out = b"".join(l + l if l.endswith(b"\n") else l
                       for l in data.splitlines(keepends=True))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "wb") as f:
        f.write(out)
    return dst


def copy_case(t, paths, work):
    out = []
    for i, p in enumerate(paths):
        if os.path.isfile(p):
            out.append(transform(t, p, os.path.join(work, str(i),
                                                    os.path.basename(p))))
            continue
        root = os.path.join(work, str(i), os.path.basename(p.rstrip("/")))
        for d, _, files in os.walk(p):
            for f in files:
                src = os.path.join(d, f)
                transform(t, src, os.path.join(root,
                                               os.path.relpath(src, p)))
        out.append(root)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hangdoc", default="./hangdoc")
    ap.add_argument("--srcdir", default=".")
    ap.add_argument("transforms", nargs="?", default="gzpad,crlf,bom,dup")
    a = ap.parse_args()
    top = os.path.abspath(a.srcdir)
    n = changed = bad = 0
    for paths, opts in cases(top):
        base = verdict(a.hangdoc, paths, opts)
        for t in a.transforms.split(","):
            work = tempfile.mkdtemp(prefix="hd-meta-")
            try:
                v = verdict(a.hangdoc, copy_case(t, paths, work), opts)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            n += 1
            if v == base:
                continue
            changed += 1
            line_log = not any(x in p for p in paths for x in NOT_LINE_LOGS)
            bad += line_log
            print("%s\t%s\t%s -> %s%s" % (
                t, " ".join(os.path.relpath(p, top) for p in paths), base,
                v, "" if line_log else "\t(not a line log)"), flush=True)
    print("%d/%d changed" % (changed, n))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
