#!/usr/bin/env python3
"""Rotates the NCCL logs of a fixture into parts, as logrotate leaves them.

    scripts/gen-rotated.py SRC OUT PARTS STYLE WHO

Copies every *.log of the fixture SRC to OUT with its `[rankN]:` lines
removed (so that no part but the oldest names its rank: the newer parts
are told apart only by their host:pid and opCounts), then splits the log
of rank 0 (WHO "0") or of every rank (WHO "all") into PARTS parts of equal
lines, named by STYLE:

    plain  rank0.log.2, rank0.log.1, rank0.log (oldest first)
    gz     rank0.log.2.gz, rank0.log.1.gz, rank0.log
    date   rank0.log-20240301, rank0.log-20240302, rank0.log
    hole   as plain, the newest part after a hole of NUL bytes as long as
           the older parts (copytruncate while the writer kept its offset)

PARTS 1 is the base the rotations are compared with (tests/cli/rotated.sh):
a rotated log must give the verdict, culprits and confidence of its base.
The gzip members carry no name and mtime 0, so the output is the same on
every run.
"""
import gzip
import os
import sys


def parts_of(lines, n):
    size = len(lines) // n
    return [lines[i * size:(i + 1) * size if i < n - 1 else len(lines)]
            for i in range(n)]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def rotate(out, name, lines, n, style):
    parts = parts_of(lines, n)
    older = b"".join(b"".join(p) for p in parts[:-1])
    for i, part in enumerate(parts):
        k = n - 1 - i  # 0 is the newest, under the log's own name
        data = b"".join(part)
        if k == 0:
            if style == "hole":
                data = b"\0" * len(older) + data
            write(os.path.join(out, name), data)
        elif style == "gz":
            write(os.path.join(out, "%s.%d.gz" % (name, k)),
                  gzip.compress(data, mtime=0))
        elif style == "date":
            write(os.path.join(out, "%s-202403%02d" % (name, i + 1)), data)
        else:
            write(os.path.join(out, "%s.%d" % (name, k)), data)


def main(src, out, n, style, who):
    if n < 1 or style not in ("plain", "gz", "date", "hole") or \
       who not in ("0", "all"):
        sys.exit(__doc__)
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if not name.endswith(".log"):
            continue
        with open(os.path.join(src, name), "rb") as f:
            lines = [l for l in f.read().splitlines(keepends=True)
                     if not l.startswith(b"[rank")]
        if n > 1 and (who == "all" or name == "rank0.log"):
            rotate(out, name, lines, n, style)
        else:
            write(os.path.join(out, name), b"".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4],
         sys.argv[5])
