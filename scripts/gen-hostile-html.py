#!/usr/bin/env python3
"""Writes tests/data/fr/hostile-html: the json-variant case (rank 1 never
enqueued seq 5) with markup in every string a report prints: the process
group's name and description, a frame's name and file, the thread name.
The HTML report must show them as text, never as markup.

Usage: gen-hostile-html.py SRCDIR/tests/data/fr/json-variant OUTDIR
Standard library only; byte-reproducible."""
import json
import os
import sys

EVIL_PG = '<script>alert("pg")</script>'
EVIL_DESC = "x'><img src=x onerror=alert(1)>"
EVIL_FRAME = '<img src=x onerror=alert("frame")>'
EVIL_FILE = 'train.py"><svg onload=alert(2)>'


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(src)):
        with open(os.path.join(src, name)) as f:
            d = json.load(f)
        d["pg_config"] = {"0": {"desc": EVIL_DESC, "name": EVIL_PG,
                                "ranks": d["pg_config"]["0"]["ranks"]}}
        for e in d["entries"]:
            e["process_group"] = ["0", EVIL_PG]
            e["thread_name"] = EVIL_FRAME
            e["frames"] = [{"name": EVIL_FRAME, "filename": EVIL_FILE,
                            "line": 88}]
        with open(os.path.join(out, name), "w") as f:
            json.dump(d, f, sort_keys=True, separators=(",", ":"))


if __name__ == "__main__":
    main()
