#!/bin/sh
# Scores hangdoc on the host-log fixtures of issue 21 (kernel logs and
# InfiniBand state beside a job's logs, tests/data/hostlogs/expect.tsv):
# every case must match.  Skips (77) without python3.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
command -v python3 >/dev/null 2>&1 || exit 77
cd "$HD_SRCDIR" || exit 99
exec python3 scripts/score-corpus.py --hangdoc "$HANGDOC" --misses \
	tests/data/hostlogs/expect.tsv tests/data/hostlogs
