#!/usr/bin/env python3
"""Score hangdoc's top verdict on every fixture against written expectations.

    scripts/check-expect.py [--hangdoc PATH] [--srcdir DIR] [AREA...]

Each fixture area (a directory directly under tests/data, and testdata)
that holds fixtures has one or more expect*.tsv files beside them, written
from what each fixture was built to show (its README or generator), never
from hangdoc's output, so that regenerating the golden outputs cannot
change a verdict silently.  One case a line, tab-separated, '#' starts a
comment:

    paths <TAB> kinds <TAB> culprits <TAB> confidence <TAB> status <TAB> note

paths      one or more fixture directories or files, relative to the TSV,
           separated by spaces, analysed together; a word starting with
           '--' is passed to `hangdoc analyze` as an option (--attempt=1)
kinds      the acceptable kinds of the top verdict, separated by '|'
culprits   its exact culprit ranks, comma-separated; '-' for none; '*' when
           what the fixture shows names no rank (then only the kind and
           confidence are scored); alternatives separated by '|' ("3|2,3")
confidence the lowest acceptable confidence (low, medium, high), or a
           range "low..medium" when the fixture shows a confidence must
           also be held down
status     ok     the case must match;
           xfail  a known failure: hangdoc does not (yet) give what the
                  fixture was built for; the note says why.  Matching it is
                  an unexpected pass (XPASS), reported as a failure so that
                  the line gets corrected to 'ok';
           skip   not an incident (parser test data); the note says why
note       free text; required for xfail and skip

A crash (a signal) or a run without JSON output is a failure whatever the
status.  Every directory under an area that directly holds a file other
than README*, *.md, *.tsv and hidden ones must be named by some line (itself, or a file
in it), so a new fixture cannot escape scoring.

Prints one line per case (ok, FAIL, XFAIL, XPASS, SKIP) and a summary.
Exit status: 0 when every case is as expected and every fixture is
covered, 1 otherwise, 2 on a usage error.
"""
import argparse
import json
import os
import subprocess
import sys

CONFIDENCE = {"low": 0, "medium": 1, "high": 2}
STATUSES = ("ok", "xfail", "skip")
# Files that are notes, not inputs (tests/data/real holds only notes: the
# expectations of an external corpus, in scripts/score-corpus.py's format).
NOT_FIXTURE = (".md", ".tsv")


def is_fixture_file(name):
    # hidden files are skipped by hangdoc's own walk too
    return not (name.startswith(("README", ".")) or
                name.endswith(NOT_FIXTURE))


def fixture_dirs(area):
    """Every directory under area that directly holds a fixture file."""
    found = []
    for d, _, files in os.walk(area):
        if any(is_fixture_file(f) for f in files):
            found.append(os.path.normpath(d))
    return sorted(found)


class Case:
    def __init__(self, tsv, n, fields):
        self.where = f"{tsv}:{n}"
        base = os.path.dirname(tsv)
        words = fields[0].split()
        self.label = fields[0]
        self.paths = [os.path.normpath(os.path.join(base, w))
                      for w in words if not w.startswith("--")]
        self.options = [w for w in words if w.startswith("--")]
        self.kinds = frozenset(fields[1].split("|"))
        self.culprits = None
        if fields[2] != "*":
            self.culprits = []
            for alt in fields[2].split("|"):
                if alt == "-":
                    self.culprits.append(frozenset())
                    continue
                try:
                    self.culprits.append(
                        frozenset(int(r) for r in alt.split(",")))
                except ValueError:
                    raise ValueError(f"bad culprits '{fields[2]}'")
        lo, _, hi = fields[3].partition("..")
        if lo not in CONFIDENCE or (hi and hi not in CONFIDENCE):
            raise ValueError(f"bad confidence '{fields[3]}'")
        self.conf_lo = CONFIDENCE[lo]
        self.conf_hi = CONFIDENCE[hi] if hi else CONFIDENCE["high"]
        self.status = fields[4]
        if self.status not in STATUSES:
            raise ValueError(f"status '{self.status}' is not one of "
                             f"{', '.join(STATUSES)}")
        self.note = fields[5] if len(fields) > 5 else ""
        if self.status != "ok" and not self.note.strip():
            raise ValueError(f"a {self.status} line needs a note saying why")
        if not self.paths:
            raise ValueError("no path")


def parse_tsv(tsv, errors):
    cases = []
    with open(tsv, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) < 5:
                errors.append(f"{tsv}:{n}: want paths, kinds, culprits, "
                              "confidence, status and a note, "
                              "tab-separated")
                continue
            try:
                cases.append(Case(tsv, n, fields))
            except ValueError as e:
                errors.append(f"{tsv}:{n}: {e}")
    return cases


def run(hangdoc, case):
    """(kind, culprits, confidence) of the top verdict, or an error text."""
    try:
        r = subprocess.run([hangdoc, "analyze", "--format", "json"] +
                           case.options + ["--"] + case.paths,
                           capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "timed out"
    if r.returncode < 0:
        return f"killed by signal {-r.returncode}"
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        return f"exit {r.returncode} without JSON"
    verdicts = doc.get("verdicts") or []
    if not verdicts:
        return ("none", frozenset(), None)
    v = verdicts[0]
    return (v.get("kind"), frozenset(v.get("culprit_ranks") or []),
            v.get("confidence"))


def show(ranks):
    return ",".join(str(r) for r in sorted(ranks)) or "-"


def judge(case, got):
    """(matched, text of what was got)."""
    if isinstance(got, str):
        return None, got
    kind, ranks, conf = got
    text = f"{kind} [{show(ranks)}] {conf}"
    ok = kind in case.kinds
    if case.culprits is not None:
        ok = ok and ranks in case.culprits
    c = CONFIDENCE.get(conf, -1)
    ok = ok and case.conf_lo <= c <= case.conf_hi
    return ok, text


def want_text(case):
    names = {v: k for k, v in CONFIDENCE.items()}
    culprits = ("*" if case.culprits is None else
                "|".join(show(c) for c in case.culprits))
    conf = names[case.conf_lo]
    if case.conf_hi != CONFIDENCE["high"]:
        conf += ".." + names[case.conf_hi]
    return f"{'|'.join(sorted(case.kinds))} [{culprits}] {conf}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hangdoc", default=os.environ.get("HANGDOC",
                                                        "./hangdoc"))
    ap.add_argument("--srcdir", default=os.environ.get("HD_SRCDIR", "."))
    ap.add_argument("areas", nargs="*",
                    help="areas to check (default: every directory under "
                    "tests/data, and testdata)")
    a = ap.parse_args()
    os.chdir(a.srcdir)
    hangdoc = os.path.abspath(a.hangdoc) if os.sep in a.hangdoc \
        else a.hangdoc
    areas = a.areas or sorted(
        [os.path.join("tests/data", d) for d in os.listdir("tests/data")
         if os.path.isdir(os.path.join("tests/data", d))] + ["testdata"])

    errors, counts = [], {"ok": 0, "FAIL": 0, "XFAIL": 0, "XPASS": 0,
                          "SKIP": 0}
    for area in areas:
        dirs = fixture_dirs(area)
        if not dirs:
            continue
        tsvs = sorted(os.path.join(area, f) for f in os.listdir(area)
                      if f.startswith("expect") and f.endswith(".tsv"))
        if not tsvs:
            errors.append(f"{area}: fixtures but no expect*.tsv")
            continue
        covered = set()
        for tsv in tsvs:
            for case in parse_tsv(tsv, errors):
                for p in case.paths:
                    covered.add(p if os.path.isdir(p) else
                                os.path.dirname(p))
                missing = [p for p in case.paths if not os.path.exists(p)]
                if missing:
                    errors.append(f"{case.where}: no such fixture "
                                  f"'{missing[0]}'")
                    continue
                if case.status == "skip":
                    counts["SKIP"] += 1
                    print(f"SKIP  {case.label}  ({case.note})")
                    continue
                ok, text = judge(case, run(hangdoc, case))
                if ok is None:
                    tag = "FAIL"
                elif case.status == "ok":
                    tag = "ok" if ok else "FAIL"
                else:
                    tag = "XPASS" if ok else "XFAIL"
                counts[tag] += 1
                line = (f"{tag:<5} {case.label}  want {want_text(case)}  "
                        f"got {text}")
                if tag == "XPASS":
                    line += (f"  -- now as the fixture was built for: mark "
                             f"it ok in {case.where}")
                elif tag != "ok":
                    line += f"  ({case.where}: {case.note})" \
                        if case.note else f"  ({case.where})"
                print(line)
        for d in dirs:
            if d not in covered:
                errors.append(f"{d}: a fixture directory that no line of "
                              f"{', '.join(tsvs)} names")
    for e in errors:
        print(f"ERROR {e}")
    print("expect: " + ", ".join(f"{v} {k}" for k, v in counts.items()) +
          f", {len(errors)} errors")
    return 1 if counts["FAIL"] or counts["XPASS"] or errors else 0


if __name__ == "__main__":
    sys.exit(main())
