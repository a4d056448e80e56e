#!/bin/sh
# The man page, the shell completions and the README's usage block say
# what `hangdoc help <cmd>` says.  For every subcommand, each long option
# its help lists must be an item of its own (.TP) in the command's part of
# docs/hangdoc.1, in both completion files and, by its long or short name,
# in the command's lines of the README's usage block; and each option a
# completion, the man page or the README offers must be in the help (no
# stale ones).  The man page must render without warnings when groff is
# installed, name the version --version prints, have no empty line, and
# hold no unexpanded make or configure variable ("$(datadir)",
# "@VERSION@"); the bash completion must parse (bash -n), and the zsh one
# too when zsh is installed.  Both completions offer every command after "hangdoc help",
# as after "hangdoc"; the top-level --help and the man page list every
# exit status the README's table has; and the README's sample of
# `analyze --brief` is what the example incident gives.
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
man="$HD_SRCDIR/docs/hangdoc.1"
bashc="$HD_SRCDIR/completions/hangdoc.bash"
zshc="$HD_SRCDIR/completions/_hangdoc"
# every command the main help lists
commands=$("$HANGDOC" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
[ -n "$commands" ] || { echo "no commands in hangdoc --help"; exit 1; }
fail=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

bad() {
	echo "FAIL: $*"
	fail=1
}

# The long options of one command's help: the lines of its option list,
# "  --name ..." or "  -x, --name ...".
help_options() {
	"$HANGDOC" help "$1" |
		sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' |
		sort -u
}

# The options of one command's help as "SHORT LONG" ("o --output"), or
# " LONG" where it has no short name.
help_pairs() {
	"$HANGDOC" help "$1" |
		sed -n 's/^  \(-\([a-zA-Z]\), \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2 \3/p' |
		sort -u
}

# The options in the README's usage lines of one command ("    hangdoc
# CMD ..." and the lines that continue it), long and short.
readme_options() {
	sed -n '/^## Usage/,/^`PATH`/p' "$HD_SRCDIR/README.md" |
		awk -v c="$1" '/^    hangdoc / { on = ($2 == c) } on' |
		grep -oE -e '(^|[[ ])--?[a-z][a-z0-9-]*' | sed 's/^[[ ]//' |
		sort -u
}

# The options of one command in the bash completion: its opts='...' list,
# which may span lines, up to the closing quote.
bash_options() {
	sed -n "/^	$1)/,/^		;;/p" "$bashc" |
		sed -n "/opts='/,/'/p" | tr ' \t' '\n\n' |
		sed -n "s/^\(opts='\)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p" | sort -u
}

# The options of one command in the zsh completion: the names given to
# _arguments in its case branch, as '--name[...]', '--name=[...]' or in a
# {-x+,--name=} pair.
zsh_options() {
	sed -n "/^		$1)/,/^			;;/p" "$zshc" |
		grep -o -e "--[a-z][a-z0-9-]*[=+[]" -e "--[a-z][a-z0-9-]*}" |
		sed 's/[]=+[}]*$//' | sort -u
}

# groff escapes hyphens in the page (\-); compare the plain text.
sed 's/\\-/-/g' "$man" >"$tmp/man.txt"

for cmd in $commands; do
	help_options "$cmd" >"$tmp/help" || bad "hangdoc help $cmd failed"
	[ -s "$tmp/help" ] || bad "no options found in 'hangdoc help $cmd'"
	bash_options "$cmd" >"$tmp/bash"
	zsh_options "$cmd" >"$tmp/zsh"
	# The command's part of the man page: from ".SS cmd" to the next .SS.
	sed -n "/^\.SS $cmd\$/,/^\.S[SH] /p" "$tmp/man.txt" >"$tmp/man"
	[ -s "$tmp/man" ] || bad "hangdoc.1 has no section for '$cmd'"
	# The man page's options of the command: each .TP item's first line.
	sed -n '/^\.TP/{n;p;}' "$tmp/man" |
		grep -o -e "--[a-z][a-z0-9-]*" | sort -u >"$tmp/manopts"
	while read -r opt; do
		# --help is said once for every command, in DESCRIPTION.
		if [ "$opt" = --help ]; then
			grep -q -e "$opt\\b" "$tmp/man.txt" ||
				bad "hangdoc.1: '$cmd $opt' (in its help) is missing"
		else
			grep -qx -e "$opt" "$tmp/manopts" ||
				bad "hangdoc.1: '$cmd $opt' (in its help) is not an item (.TP) of its section"
		fi
		grep -qx -e "$opt" "$tmp/bash" ||
			bad "hangdoc.bash: '$cmd $opt' (in its help) is missing"
		grep -qx -e "$opt" "$tmp/zsh" ||
			bad "_hangdoc: '$cmd $opt' (in its help) is missing"
	done <"$tmp/help"
	for file in bash zsh; do
		while read -r opt; do
			grep -qx -e "$opt" "$tmp/help" ||
				bad "$file completion offers '$cmd $opt', not in its help"
		done <"$tmp/$file"
	done
	while read -r opt; do
		grep -qx -e "$opt" "$tmp/help" ||
			bad "hangdoc.1 documents '$cmd $opt', not in its help"
	done <"$tmp/manopts"
	# The README's usage lines, both ways (its -h/--help is said once).
	help_pairs "$cmd" >"$tmp/pairs"
	readme_options "$cmd" >"$tmp/readme"
	[ -s "$tmp/readme" ] || bad "README.md's usage block has no line for '$cmd'"
	while read -r short long; do
		# "read" leaves SHORT empty and LONG the option when there is
		# no short name.
		[ -n "$long" ] || { long=$short; short=; }
		[ "$long" = --help ] && continue
		grep -qx -e "$long" "$tmp/readme" ||
			{ [ -n "$short" ] && grep -qx -e "-$short" "$tmp/readme"; } ||
			bad "README.md: '$cmd $long' (in its help) is not in the usage block"
	done <"$tmp/pairs"
	while read -r opt; do
		grep -q -e "^$opt\$" -e "^${opt#-} " -e " $opt\$" "$tmp/pairs" ||
			bad "README.md's usage block offers '$cmd $opt', not in its help"
	done <"$tmp/readme"
done

# Every command after "hangdoc " and after "hangdoc help ", in bash (the
# completion function run as bash-completion runs it) and in zsh (the
# word list of its help branch and of its command list).
complete_bash() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_hangdoc; printf "%s\n" "${COMPREPLY[@]}"' sh "$bashc" "$@"
}
complete_bash hangdoc "" >"$tmp/bash-top" 2>&1
complete_bash hangdoc help "" >"$tmp/bash-help" 2>&1
sed -n '/^		help)/,/;;/p' "$zshc" | grep -o "(analyze[a-z ]*)" >"$tmp/zsh-help"
for cmd in $commands; do
	[ "$cmd" = help ] && continue
	grep -qx -e "$cmd" "$tmp/bash-top" ||
		bad "hangdoc.bash: 'hangdoc $cmd' is not offered"
	grep -qx -e "$cmd" "$tmp/bash-help" ||
		bad "hangdoc.bash: 'hangdoc help $cmd' is not offered"
	grep -qw -e "$cmd" "$tmp/zsh-help" ||
		bad "_hangdoc: 'hangdoc help $cmd' is not offered"
done

# The page's header names the version `hangdoc --version` prints.
version=$("$HANGDOC" --version)
grep -q "^\.TH HANGDOC 1 [0-9-]* \"$version\"" "$man" ||
	bad "hangdoc.1's .TH does not name '$version'"

# No empty line: roff reads one as a paragraph break, and an option after
# it is no longer an item of its list (it ran into the one before).
grep -n '^$' "$man" >"$tmp/empty" &&
	bad "hangdoc.1 has empty lines (use .PP or .TP): $(head -3 "$tmp/empty" | tr '\n' ' ')"

# Nothing left for make or configure to expand: the page is installed as
# it is ("$(hostname)" in an example is the shell's, and stays).
grep -En -e '\$\((prefix|exec_prefix|[a-z_]*dir|PACKAGE[A-Z_]*|VERSION)\)' \
	-e '@[A-Za-z_]+@' "$man" >"$tmp/unexpanded" &&
	bad "hangdoc.1 holds unexpanded variables: $(head -3 "$tmp/unexpanded")"

# Every exit status of the README's table, in --help and the man page.
codes=$(sed -n '/^### Exit status/,/^#/s/^| \([0-9]\) |.*/\1/p' \
	"$HD_SRCDIR/README.md")
[ -n "$codes" ] || bad "no exit status table in README.md"
"$HANGDOC" --help | sed -n '/^exit status:/,/^$/p' >"$tmp/exits"
sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$tmp/man.txt" >"$tmp/man-exits"
for c in $codes; do
	grep -Eq "(^|[ ,:])$c [a-z]" "$tmp/exits" ||
		bad "hangdoc --help lists no exit status $c"
	grep -qx -e "\.B $c" "$tmp/man-exits" ||
		bad "hangdoc.1 lists no exit status $c"
done

# The README's sample of --brief is what the example incident gives: a
# sample that drifted from the output tells a new user the wrong thing.
sed -n '/^A glance at the verdict/,/^Each verdict has/s/^    //p' \
	"$HD_SRCDIR/README.md" >"$tmp/readme-brief"
(cd "$HD_SRCDIR" && "$HANGDOC" analyze --brief --no-pager --color never \
	testdata/example-incident) >"$tmp/brief" 2>&1
[ -s "$tmp/readme-brief" ] || bad "no --brief sample in README.md"
if ! cmp -s "$tmp/readme-brief" "$tmp/brief"; then
	bad "README.md's --brief sample is not what hangdoc prints:"
	diff -u "$tmp/readme-brief" "$tmp/brief"
fi

bash -n "$bashc" || bad "bash -n $bashc"
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$zshc" || bad "zsh -n $zshc"
else
	echo "SKIP: zsh -n (no zsh)"
fi
if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$man" >"$tmp/groff" 2>&1 || bad "groff -man failed"
	if [ -s "$tmp/groff" ]; then
		bad "groff -man -ww warns on hangdoc.1:"
		cat "$tmp/groff"
	fi
else
	echo "SKIP: groff (not installed)"
fi
[ "$fail" -eq 0 ]
