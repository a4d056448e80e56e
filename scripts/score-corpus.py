#!/usr/bin/env python3
"""Score hangdoc's top verdict on a corpus of incidents.

    scripts/score-corpus.py [--hangdoc PATH] [--misses] EXPECT CORPUS_DIR

CORPUS_DIR holds one directory per case; EXPECT is a tab-separated file,
one case a line ('#' starts a comment):

    id <TAB> kind[|kind...] <TAB> culprits <TAB> note

kind is what a careful engineer would conclude from the case's text alone,
in hangdoc's verdict vocabulary; several kinds separated by '|' are each
acceptable.  culprits is a comma-separated list of global ranks, '-' for
none, or '*' when the text names no rank (then only the kind is scored).

For each case this runs `hangdoc analyze --format json CASE_DIR` and
compares the first verdict: its kind must be one of the expected kinds and,
unless culprits is '*', its culprit set must equal the expected one.  It
prints one line per case and a closing line 'score: P/N (X%)'.  Exit
status: 0 when every case matched, 1 otherwise, 2 on a usage error.
"""
import argparse
import json
import os
import subprocess
import sys


def parse_expect(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) < 3:
                sys.exit(f"{path}:{n}: want id, kind and culprits, "
                         "tab-separated")
            cid, kinds, culprits = parts[0], parts[1], parts[2]
            note = parts[3] if len(parts) > 3 else ""
            if culprits == "*":
                want = None
            elif culprits == "-":
                want = frozenset()
            else:
                try:
                    want = frozenset(int(c) for c in culprits.split(","))
                except ValueError:
                    sys.exit(f"{path}:{n}: bad culprits '{culprits}'")
            cases.append((cid, frozenset(kinds.split("|")), want, note))
    return cases


def top_verdict(hangdoc, case_dir):
    """(kind, culprits) of the first verdict, or an ('error: ...', None)."""
    try:
        r = subprocess.run([hangdoc, "analyze", "--format", "json",
                            case_dir], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "error: timed out", frozenset()
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        return f"error: exit {r.returncode}, no JSON", frozenset()
    verdicts = doc.get("verdicts") or []
    if not verdicts:
        return "none", frozenset()
    v = verdicts[0]
    # schema 1 names them culprit_ranks (docs/json-schema.md)
    culprits = v.get("culprit_ranks", v.get("culprits"))
    return v.get("kind", "?"), frozenset(culprits or [])


def show(ranks):
    if ranks is None:
        return "*"
    return ",".join(str(r) for r in sorted(ranks)) or "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hangdoc", default=os.environ.get("HANGDOC",
                                                        "./hangdoc"))
    ap.add_argument("--misses", action="store_true",
                    help="print only the cases that did not match")
    ap.add_argument("expect")
    ap.add_argument("corpus")
    a = ap.parse_args()

    cases = parse_expect(a.expect)
    if not cases:
        sys.exit(f"{a.expect}: no cases")
    ok = 0
    for cid, kinds, want, note in cases:
        case_dir = os.path.join(a.corpus, cid)
        if not os.path.isdir(case_dir):
            got, ranks = "error: no such case directory", frozenset()
        else:
            got, ranks = top_verdict(a.hangdoc, case_dir)
        hit = got in kinds and (want is None or ranks == want)
        ok += hit
        if hit and a.misses:
            continue
        print(f"{'ok  ' if hit else 'MISS'} {cid:<8} want "
              f"{'|'.join(sorted(kinds))} [{show(want)}]  got {got} "
              f"[{show(ranks)}]" + (f"  ({note})" if note and not hit
                                    else ""))
    print(f"score: {ok}/{len(cases)} ({100.0 * ok / len(cases):.1f}%)")
    return 0 if ok == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
