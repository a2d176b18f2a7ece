# SPDX-License-Identifier: BSD-3-Clause
# bash completion for dpfwd (installed as bash-completion/completions/dpfwd):
# EAL options before "--", dpfwd's own after it
_dpfwd() {
	local cur prev words cword
	_init_completion || return
	local eal="-l --lcores --main-lcore -a --allow --vdev --no-pci --no-huge --in-memory -m
		--socket-mem --huge-dir --file-prefix --log-level --iova-mode --help --"
	local app="--config --duration --telemetry-json --telemetry-interval --stats --set
		--check --config-reference --help --version"
	local i after=0
	for ((i = 1; i < cword; i++)); do
		[[ ${words[i]} == -- ]] && after=1
	done
	case $prev in
	-c | --config)
		_filedir ini
		return
		;;
	-j | --telemetry-json)
		_filedir json
		return
		;;
	--huge-dir)
		_filedir -d
		return
		;;
	-d | --duration | -i | --telemetry-interval | -S | --set | -l | --lcores | \
		--main-lcore | -a | --allow | --vdev | -m | --socket-mem | --file-prefix | \
		--log-level | --iova-mode)
		return
		;;
	esac
	if ((after)); then
		COMPREPLY=($(compgen -W "$app" -- "$cur"))
	else
		COMPREPLY=($(compgen -W "$eal $app" -- "$cur"))
	fi
}
complete -F _dpfwd dpfwd
