#!/bin/sh
# Scores the top verdict of every fixture under tests/data and testdata
# against the expectations written beside them (expect*.tsv, from what each
# fixture was built to show, never from hangdoc's output): a disagreement,
# a known failure that now passes, or a fixture directory no line names
# fails, naming the fixture.  See scripts/check-expect.py.  Skips (77)
# without python3.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
command -v python3 >/dev/null 2>&1 || exit 77
exec python3 "$HD_SRCDIR/scripts/check-expect.py" --hangdoc "$HANGDOC" \
	--srcdir "$HD_SRCDIR"
