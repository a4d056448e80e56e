#!/bin/sh
# The documents and the tree agree.
#
# docs/architecture.md, both ways.  Every source file
# of src/, parsers/ and replay/ is named in it: as "name.c" or "name.h",
# as "name.[ch]", or by its stem in backticks ("`rank-name`"), so a new
# file cannot go unmapped.  And every source file it names exists: a name with a folder
# ("src/core/hd-store.h") at that path from the top of the tree, a bare
# name ("hd-align.c") somewhere in the source folders or generated from
# one of them (config.h from config/config.h.in); "x.[ch]" names both x.c
# and x.h.  Skipped: patterns ("check_<fmt>.c"), and paths whose first
# folder is not one of the tree's (the doc's examples of spellings an
# include must not use, "../engine/hd-align.h").  A renamed or split file
# then cannot leave the map of the code behind.
#
# Then the README and docs/ as a reader follows them: every relative link
# resolves to a file and every #anchor to a heading; docs/README.md lists
# every document; each file the README's source tour names is in its
# row's folder; the README's build section names every configure option;
# each verdict kind the engine has (its kind table in hd-verdict.c) is in
# the JSON schemas' enums, the README's verdict table and docs/verdicts.md's
# kinds table, and no other; each environment variable the code reads is
# in the man page's ENVIRONMENT, but for the benchmarks' and tests' own;
# each path of the tree the docs cite exists; every fuzzer is in
# docs/safety.md's list and in what CI runs; and every key of the JSON
# schemas is described in docs/json-schema.md, and the input kinds of the
# store are those of the schema and of json-schema.md.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
cd "$HD_SRCDIR" || exit 99
doc=docs/architecture.md
[ -r "$doc" ] || exit 99
pass=0
fail=0
names=$(grep -oE '[A-Za-z0-9_./<>-]*[A-Za-z0-9_>-]\.(\[ch\]|(c|h|sh|tap)\b)' \
	"$doc" | grep -v '[<>]' | sort -u)
for n in $names; do
	case $n in
	*.\[ch\]) set -- "${n%.\[ch\]}.c" "${n%.\[ch\]}.h" ;;
	*) set -- "$n" ;;
	esac
	for f in "$@"; do
		case $f in
		../* | ./*) continue ;;
		*/*)
			[ -d "${f%%/*}" ] || continue
			[ -f "$f" ] && found=yes || found=no
			;;
		*)
			found=no
			if [ -n "$(find src parsers replay tests scripts config \
				\( -name "$f" -o -name "$f.in" \) -type f \
				2>/dev/null | head -1)" ]; then
				found=yes
			fi
			;;
		esac
		if [ "$found" = yes ]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL: $doc names $f, which is not in the tree"
		fi
	done
done
# Each source file named, in one of the three spellings.
for f in $(find src parsers replay -name '*.[ch]' -type f | sort); do
	b=${f##*/}
	stem=${b%.*}
	edge='(^|[^A-Za-z0-9_-])'
	if grep -qE -e "$edge$stem\.${b##*.}([^A-Za-z0-9_]|\$)" \
		-e "$edge$stem\.\[ch\]" -e "\`$stem\`" "$doc"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $f is not named in $doc"
	fi
done

ok() { pass=$((pass + 1)); }
ko() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# Links.  GitHub's anchor of a heading: lower case, punctuation but '-'
# and '_' dropped, each space a '-'.  Links inside code (fenced blocks and
# `spans`) are text, not links.
anchors() { # FILE: its headings' anchors, one a line
	awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ /, ""); print }' "$1" |
		tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}
for md in README.md docs/*.md; do
	dir=$(dirname "$md")
	awk '/^```/ { code = !code; next } !code' "$md" | sed -e 's/`[^`]*`//g' |
		grep -oE '\]\([^) ]+\)' | sed -e 's/^](//' -e 's/)$//' |
		grep -vE '^[a-z]+:' | sort -u >"$tmp/links"
	while read -r l; do
		file=${l%%#*}
		anchor=
		case $l in *'#'*) anchor=${l#*#} ;; esac
		target=$md
		[ -n "$file" ] && target=$dir/$file
		if [ ! -e "$target" ]; then
			ko "$md links to $l: there is no $target"
		elif [ -n "$anchor" ] && ! anchors "$target" | grep -qx -e "$anchor"; then
			ko "$md links to $l: $target has no heading #$anchor"
		else
			ok
		fi
	done <"$tmp/links"
done

# The index of docs/.
for f in docs/*.md docs/*.json docs/*.1; do
	b=${f#docs/}
	[ "$b" = README.md ] && continue
	if grep -qF "]($b)" docs/README.md; then ok; else
		ko "docs/README.md does not list $b"
	fi
done

# The README's source tour: each file a row names, in that row's folder.
sed -n '/^## Source tour/,/^## /s/^| `\([a-z/]*\)\/` |/\1 &/p' README.md >"$tmp/tour"
while read -r folder row; do
	for n in $(printf '%s\n' "$row" | grep -oE '`[a-z0-9_.-]+\.[ch]`' | tr -d '`'); do
		if [ -f "$folder/$n" ]; then ok; else
			ko "README.md's source tour names $folder/$n, which is not in the tree"
		fi
	done
done <"$tmp/tour"
[ -s "$tmp/tour" ] || ko "README.md has no source tour table"

# configure's options, in the README's build section.
sed -n '/^## Building and testing/,/^## /p' README.md >"$tmp/build"
for o in $(sed -n 's/^AC_ARG_\(WITH\|ENABLE\)(\[\([a-z-]*\)\].*/\1-\2/p' configure.ac); do
	name=${o#*-}
	if grep -qE -e "--(with|without|enable|disable)-$name\b" "$tmp/build"; then ok; else
		ko "README.md's build section does not name configure's $(echo "${o%%-*}" |
			tr 'A-Z' 'a-z') option '$name'"
	fi
done

# schema_enum SCHEMA VALUE: the values of every enum of SCHEMA that holds
# VALUE, sorted, one a line.
schema_enum() {
	python3 -c 'import json, sys
def walk(o):
    if isinstance(o, dict):
        e = o.get("enum")
        if isinstance(e, list) and sys.argv[2] in e:
            print("\n".join(e))
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(json.load(open(sys.argv[1])))' "$1" "$2" >"$tmp/enum" &&
		sort -u "$tmp/enum"
}

# Verdict kinds.  The engine's: the names in hd-verdict.c's kind table.
sed -n 's/^[[:space:]]*\.name = "\([a-z0-9_]*\)",$/\1/p' src/engine/hd-verdict.c |
	sort -u >"$tmp/kinds"
[ -s "$tmp/kinds" ] || ko "no verdict kinds found in src/engine/hd-verdict.c"
# The README's table ("type/size/dtype/root/redop_mismatch" is five).
sed -n '/^## Verdicts/,/^## /s/^| \([a-z0-9_/]*\) |.*/\1/p' README.md |
	grep -v '^kind$' | while IFS= read -r k; do
		case $k in
		*/*_*)
			suffix=_${k#*_}
			printf '%s\n' "${k%%_*}" | tr / '\n' | sed "s/\$/$suffix/"
			;;
		*) printf '%s\n' "$k" ;;
		esac
	done | sort -u >"$tmp/kinds-readme"
sed -n '/^## Kinds/,/^#/s/^| `\([a-z0-9_]*\)` |.*/\1/p' docs/verdicts.md |
	sort -u >"$tmp/kinds-verdicts"
for f in report incident diff; do
	schema_enum "docs/$f.schema.json" missing_rank >"$tmp/kinds-$f" ||
		ko "docs/$f.schema.json could not be read"
done
for where in readme verdicts report incident diff; do
	if cmp -s "$tmp/kinds" "$tmp/kinds-$where"; then ok; else
		ko "verdict kinds of $where differ from the engine's (< engine, > $where):"
		diff "$tmp/kinds" "$tmp/kinds-$where"
	fi
done

# Input kinds.  The store's list (HD_INPUT_KINDS in hd-store.h) is the
# enum of an input's kind in report.schema.json and the list in
# json-schema.md's input table.
sed -n '/^#define HD_INPUT_KINDS/,/^$/s/.*X([A-Z_]*, "\([a-z_]*\)".*/\1/p' \
	src/core/hd-store.h | sort -u >"$tmp/ikinds"
[ -s "$tmp/ikinds" ] || ko "no input kinds found in src/core/hd-store.h"
schema_enum docs/report.schema.json nccl_log >"$tmp/ikinds-schema" ||
	ko "docs/report.schema.json could not be read"
sed -n 's/^| `kind` | \(`"[a-z_]*"`.*\)/\1/p' docs/json-schema.md | head -1 |
	grep -o '`"[a-z_]*"`' | tr -d '`"' | sort -u >"$tmp/ikinds-doc"
for where in schema doc; do
	if cmp -s "$tmp/ikinds" "$tmp/ikinds-$where"; then ok; else
		ko "input kinds of the $where differ from hd-store.h's (< store, > $where):"
		diff "$tmp/ikinds" "$tmp/ikinds-$where"
	fi
done

# Environment variables: each the code reads is in the man page's
# ENVIRONMENT.  Not for users: HANGDOC_BENCH_* (the benchmark scripts')
# and HANGDOC_KINETO_EVENT_CAP (a smaller event cap for tests).
grep -ohE '(g_getenv|getenv|size_from_env)\("[A-Z_]+"' src parsers replay -r \
	--include='*.c' | sed 's/.*("//; s/"$//' | sort -u |
	grep -vE '^HANGDOC_(BENCH_|KINETO_EVENT_CAP$)' >"$tmp/env"
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' docs/hangdoc.1 | sed 's/\\-/-/g' >"$tmp/man-env"
while read -r v; do
	if grep -qx -e "\.B $v" "$tmp/man-env"; then ok; else
		ko "the code reads \$$v, and hangdoc.1's ENVIRONMENT does not say it"
	fi
done <"$tmp/env"
[ -s "$tmp/env" ] || ko "no environment variable found in the code"

# Paths of the tree that the README and docs/ cite in backticks
# ("`tests/data/fr/missing-rank`"): each exists, as written or as a
# source file ("`parsers/nccl-log`" is parsers/nccl-log.c; a fuzzer's
# name is its .c).  Patterns ("*", "<fmt>") are skipped.
grep -ohE '`(tests|testdata|scripts|src|parsers|replay|docs|completions)/[A-Za-z0-9_./-]+`' \
	README.md docs/*.md | tr -d '`' | sort -u >"$tmp/paths"
# A test's log ("tests/cli/golden.log") is written by make check into the
# build tree, which is not this one under distcheck: it stands if the test
# it logs is here.
while read -r p; do
	case $p in
	*.log) t=${p%.log} ;;
	*) t= ;;
	esac
	if [ -e "$p" ] || [ -e "$p.c" ]; then ok
	elif [ -n "$t" ] && { [ -e "$t.tap" ] || [ -e "$t.sh" ] || [ -e "$t.c" ]; }; then ok
	else
		ko "the docs cite $p, which is not in the tree"
	fi
done <"$tmp/paths"

# Every fuzzer (tests/fuzz/fuzz_*.c) is in docs/safety.md's list of what
# is fuzzed, and in what CI runs when .ci/run is there (not in a tarball).
for f in tests/fuzz/fuzz_*.c; do
	h=$(basename "$f" .c)
	if sed -n '/^## Fuzzed/,/^## /p' docs/safety.md | grep -q "^| \`$h\` |"; then ok; else
		ko "docs/safety.md's Fuzzed table does not list $h"
	fi
	if [ -f .ci/run ]; then
		if grep -qw -e "${h#fuzz_}" .ci/run; then ok; else
			ko ".ci/run does not run $h"
		fi
	fi
done

# Every key the four JSON schemas define is described in
# docs/json-schema.md, as `key` or "key".
for f in report show incident diff; do
	python3 -c 'import json, sys
keys = set()
def walk(o):
    if isinstance(o, dict):
        if isinstance(o.get("properties"), dict):
            keys.update(o["properties"])
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(json.load(open(sys.argv[1])))
print("\n".join(sorted(keys)))' "docs/$f.schema.json" >"$tmp/keys" ||
		ko "docs/$f.schema.json could not be read"
	while read -r k; do
		if grep -qF -e "\`$k\`" -e "\"$k\"" docs/json-schema.md; then ok; else
			ko "docs/$f.schema.json defines '$k', which docs/json-schema.md does not describe"
		fi
	done <"$tmp/keys"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
