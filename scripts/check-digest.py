#!/usr/bin/env python3
"""Check that digests change nothing: the equality property of `hangdoc digest`.

    scripts/check-digest.py [--hangdoc PATH] [--srcdir DIR] [--tap] [AREA...]

For every case of the fixture expectations (the expect*.tsv rows that
scripts/check-expect.py scores, skip rows included), the inputs that
`hangdoc analyze` reads are split, in the order it reads them, into 2 to 4
groups (fewer when there are fewer files; the count is a hash of the case,
so each run splits alike).  Each group is digested with `hangdoc digest`,
except, when there are three groups or more, the last, which stays raw, so
digests mixed with raw inputs are checked too.  Then `analyze --format
json` on the digests (and the raw group) must give the same report as on
the raw inputs: the same verdicts with their kinds, culprits, confidence,
fingerprints, evidence text and sources, the same inputs, ranks, groups
and notes, and the same exit status.  Only the report's time fields
(generated_at, analysis_ms) may differ.

Prints TAP with --tap (one test a case, named by its fixture), else one
line a case.  Exit status 0 when every case is equal, 1 otherwise.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import zlib

TIME_FIELDS = ("generated_at", "analysis_ms")


def load_expect(srcdir):
    path = os.path.join(srcdir, "scripts", "check-expect.py")
    spec = importlib.util.spec_from_file_location("check_expect", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def analyze(hangdoc, options, paths):
    r = subprocess.run([hangdoc, "analyze", "--format", "json"] + options +
                       ["--"] + paths, capture_output=True, timeout=300)
    if r.returncode < 0:
        return r.returncode, None, r.stderr.decode(errors="replace")
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        return r.returncode, None, r.stderr.decode(errors="replace")
    for f in TIME_FIELDS:
        doc.pop(f, None)
    return r.returncode, doc, ""


def files_read(doc):
    """The files analyze read, in its order; archive members go with theirs."""
    files = []
    for inp in doc.get("inputs") or []:
        p = inp.get("path")
        if p and os.path.isfile(p) and p not in files:
            files.append(p)
    return files


def split(files, label):
    want = 2 + zlib.crc32(label.encode()) % 3
    k = max(1, min(want, len(files)))
    groups, at = [], 0
    for g in range(k):
        n = (len(files) - at) // (k - g)
        groups.append(files[at:at + n])
        at += n
    return groups


def first_difference(a, b, where="report"):
    if type(a) is not type(b):
        return f"{where}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}: present on one side only"
            d = first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if a == b else \
        f"{where}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"


def check_case(hangdoc, case, tmp):
    """None when equal, else what differs."""
    rc, raw, err = analyze(hangdoc, case.options, case.paths)
    if raw is None:
        return f"raw analyze gave no report (exit {rc}): {err[:300]}"
    files = files_read(raw)
    if not files:
        return None  # nothing read: nothing to digest
    groups = split(files, case.label)
    args = []
    for i, g in enumerate(groups):
        if len(groups) >= 3 and i == len(groups) - 1:
            args += g
            continue
        out = os.path.join(tmp, f"part{i}.hdd")
        r = subprocess.run([hangdoc, "digest", "-o", out, "--"] + g,
                           capture_output=True, timeout=300)
        if r.returncode not in (0, 3):
            return (f"digest of {len(g)} files: exit {r.returncode}: "
                    f"{r.stderr.decode(errors='replace')[:300]}")
        if r.returncode == 3:
            args += g  # no usable input there: given raw, as it was
        else:
            args.append(out)
    drc, dig, err = analyze(hangdoc, case.options, args)
    if dig is None:
        return f"analyze of digests gave no report (exit {drc}): {err[:300]}"
    if drc != rc:
        return f"exit status {drc} on the digests, {rc} on the raw inputs"
    return first_difference(raw, dig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hangdoc", default=os.environ.get("HANGDOC",
                                                        "./hangdoc"))
    ap.add_argument("--srcdir", default=os.environ.get("HD_SRCDIR", "."))
    ap.add_argument("--tap", action="store_true")
    ap.add_argument("areas", nargs="*")
    a = ap.parse_args()
    expect = load_expect(a.srcdir)
    hangdoc = os.path.abspath(a.hangdoc) if os.sep in a.hangdoc \
        else a.hangdoc
    os.chdir(a.srcdir)
    areas = a.areas or sorted(
        [os.path.join("tests/data", d) for d in os.listdir("tests/data")
         if os.path.isdir(os.path.join("tests/data", d))] + ["testdata"])
    cases, errors = [], []
    for area in areas:
        # an area of notes only (tests/data/real) is not scored there either
        if not expect.fixture_dirs(area):
            continue
        tsvs = sorted(os.path.join(area, f) for f in os.listdir(area)
                      if f.startswith("expect") and f.endswith(".tsv"))
        for tsv in tsvs:
            cases += [c for c in expect.parse_tsv(tsv, errors)
                      if all(os.path.exists(p) for p in c.paths)]
    if a.tap:
        print(f"1..{len(cases) + 1}")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, case in enumerate(cases, 1):
            name = " ".join(case.paths + case.options)
            why = check_case(hangdoc, case, tmp)
            if why:
                failed += 1
            if a.tap:
                print(f"{'not ok' if why else 'ok'} {n} - {name}")
                if why:
                    print(f"# {why}")
            else:
                print(f"{'FAIL' if why else 'ok':<5} {name}" +
                      (f"  {why}" if why else ""))
    bad = "; ".join(errors)
    if a.tap:
        print(f"{'not ok' if errors else 'ok'} {len(cases) + 1} - "
              f"every expect*.tsv line read{': ' + bad if bad else ''}")
    elif errors:
        print(f"ERROR {bad}")
    return 1 if failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
