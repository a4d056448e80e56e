# bash completion for hangdoc(1)                           -*- shell-script -*-
# Installed as $(datadir)/bash-completion/completions/hangdoc.  Every long
# option of every subcommand's --help is listed here, and only those:
# tests/cli/docs-options.sh checks both ways.

_hangdoc()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}

	# The subcommand: the first word after "hangdoc" that is not an option.
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			cmd=${COMP_WORDS[i]}
			break
			;;
		esac
	done

	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W 'analyze show replay export triage diff digest help
			--help --version' -- "$cur"))
		return
	fi

	local opts
	case $cmd in
	analyze)
		opts='--format --output --jobs --width --brief --color --no-pager --sha256 --quiet --merge --attempt --since --until --rank --group --mpi --help'
		case $prev in
		--format)
			COMPREPLY=($(compgen -W 'text json jsonl markdown md html perfetto' -- "$cur"))
			return
			;;
		-o | --output)
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		--color)
			COMPREPLY=($(compgen -W 'auto always never' -- "$cur"))
			return
			;;
		-j | --jobs | --width | --attempt | --since | --until | --rank | --group) return ;;
		esac
		;;
	diff)
		opts='--format --jobs --merge --quiet --help'
		case $prev in
		--format)
			COMPREPLY=($(compgen -W 'text json' -- "$cur"))
			return
			;;
		-j | --jobs) return ;;
		esac
		;;
	triage)
		opts='--format --jobs --quiet --help'
		case $prev in
		--format)
			COMPREPLY=($(compgen -W 'text jsonl markdown md' -- "$cur"))
			return
			;;
		-j | --jobs) return ;;
		esac
		if [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -d -- "$cur"))
			return
		fi
		;;
	show)
		opts='--rank --group --seq --state --last --format --jobs --help'
		case $prev in
		--format)
			COMPREPLY=($(compgen -W 'text json' -- "$cur"))
			return
			;;
		--state)
			# a comma-separated list: complete the name after the last comma
			local head=
			[[ $cur == *,* ]] && head=${cur%,*},
			COMPREPLY=($(compgen -P "$head" -W 'enqueued started completed unknown' -- "${cur##*,}"))
			return
			;;
		--rank | --group | --seq | --last | -j | --jobs) return ;;
		esac
		;;
	replay)
		opts='--dry-run --verdict --window --scale --plan-out --plan
			--timeout --fix --healthy --format --help'
		case $prev in
		--format)
			COMPREPLY=($(compgen -W 'text json' -- "$cur"))
			return
			;;
		--plan | --plan-out)
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		--verdict | --window | --scale | --timeout) return ;;
		esac
		;;
	export)
		opts='--perfetto --output --jobs --help'
		case $prev in
		-o | --output)
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		-j | --jobs) return ;;
		esac
		;;
	digest)
		opts='--output --jobs --level --help'
		case $prev in
		-o | --output)
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		-j | --jobs | --level) return ;;
		esac
		;;
	help)
		if [[ $COMP_CWORD -eq $((i + 1)) ]]; then
			COMPREPLY=($(compgen -W 'analyze show replay export triage diff digest' -- "$cur"))
		fi
		return
		;;
	*)
		return
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		# PATH...: files and directories
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
} &&
	complete -o filenames -o bashdefault -F _hangdoc hangdoc
