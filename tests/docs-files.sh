#!/bin/sh
# docs/architecture.md and the tree agree, both ways.  Every source file
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
