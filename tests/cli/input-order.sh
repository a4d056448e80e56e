#!/bin/sh
# Every format lists the inputs in one order, the analysis's: natural
# order of their paths (nccl_trace_rank_2 before nccl_trace_rank_10),
# decided once in the engine (hd_analysis's inputs).  A 12-rank set of
# flight-recorder dumps (scripts/gen-fr-dumps.py) is analyzed as text,
# JSON, Markdown and HTML, and the ranks of the inputs each lists are
# compared with 0, 1, ..., 11 (text lists the first ten).
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
. "$HD_SRCDIR/tests/cli/lib/harness.sh"
needs python3
python3 "$HD_SRCDIR/scripts/gen-fr-dumps.py" bench "$tmp/fr" 12 38 ||
	{ fail "gen-fr-dumps.py"; finish; exit; }

# ranks FILE FROM: the ranks of the dumps named after the first line
# holding FROM, in the order named, each once.
ranks() {
	sed -n "/$2/,\$p" "$1" | grep -o 'nccl_trace_rank_[0-9]*' |
		sed 's/^nccl_trace_rank_//' | awk '!seen[$0]++' |
		tr '\n' ' '
}

want="0 1 2 3 4 5 6 7 8 9 10 11 "
for fmt in text json markdown html; do
	"$HANGDOC" analyze --no-pager --format "$fmt" "$tmp/fr" \
		>"$tmp/out.$fmt" 2>"$tmp/err"
	[ $? -eq 1 ] || fail "$fmt: exit status not 1 (a fault)"
done
got=$(ranks "$tmp/out.text" '^inputs: ')
check "text lists the inputs in natural order (got: $got)" \
	test "$got" = "0 1 2 3 4 5 6 7 8 9 "
got=$(ranks "$tmp/out.json" '"inputs": \[')
check "json lists the inputs in natural order (got: $got)" \
	test "$got" = "$want"
got=$(ranks "$tmp/out.markdown" '^## Inputs')
check "markdown lists the inputs in natural order (got: $got)" \
	test "$got" = "$want"
got=$(ranks "$tmp/out.html" '<h2>Inputs<\/h2>')
check "html lists the inputs in natural order (got: $got)" \
	test "$got" = "$want"
finish
