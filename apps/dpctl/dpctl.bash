# SPDX-License-Identifier: BSD-3-Clause
# bash completion for dpctl (installed as bash-completion/completions/dpctl)
_dpctl() {
	local cur prev words cword
	_init_completion || return
	local opts="--file-prefix --socket --json --timeout --verbose --help --version"
	case $prev in
	--socket)
		_filedir
		return
		;;
	--file-prefix | --timeout | --interval | -i | --worker | -f | --filter | -c | --count | \
		-d | --duration | -s | --snaplen)
		return
		;;
	-w | --write)
		# capture's file; show graph's worker
		[[ " ${words[*]} " == *" capture "* ]] && _filedir
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --all --dot --interval --worker --undo --decode
			--rx --tx --both --filter --count --duration --snaplen --write --stop" -- "$cur"))
		return
	fi
	# the words after the options: command, then what it takes
	local i cmd="" sub=""
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--socket | --file-prefix | --timeout | --interval | -i | --worker | -w | --write | -f | \
			--filter | -c | --count | -d | --duration | -s | --snaplen) ((i++)) ;;
		-*) ;;
		*)
			if [[ -z $cmd ]]; then
				cmd=${words[i]}
			elif [[ -z $sub ]]; then
				sub=${words[i]}
			fi
			;;
		esac
	done
	case $cmd in
	"")
		COMPREPLY=($(compgen -W "show route capture clear list raw" -- "$cur"))
		;;
	show)
		[[ -z $sub ]] && COMPREPLY=($(compgen -W "info ports lcores runtime drops routes
			neighbors relay endpoints pools delay graph ctl icmp linux" -- "$cur"))
		;;
	route)
		[[ -z $sub ]] && COMPREPLY=($(compgen -W "list add del reload" -- "$cur"))
		[[ $sub == reload ]] && _filedir
		;;
	capture)
		[[ -z $sub ]] && COMPREPLY=($(compgen -W "all 0 1 2 3" -- "$cur"))
		;;
	raw)
		[[ -z $sub ]] && COMPREPLY=($(compgen -W "/ /help /info /eal/params /dpfwd/run/info
			/dpfwd/graph/nodes /dpfwd/graph/lcores /dpfwd/graph/drops /dpfwd/port/stats
			/dpfwd/mem/pools" -- "$cur"))
		;;
	esac
}
complete -F _dpctl dpctl
