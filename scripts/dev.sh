#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's two commands. On a fresh Debian 12 machine, as root:
#   scripts/dev.sh run    install what is missing, build, reserve hugepages, run
#                         dpfwd on configs/default.ini for a few seconds, show telemetry
#   scripts/dev.sh test   same set-up, then every test (meson test: unit + func + netns + lint),
#                         then unit + func + netns again built with ASan + UBSan
#                         (DPFWD_SANITIZE=0: not), then every libFuzzer target for a bounded
#                         time (DPFWD_FUZZ=0: not; DPFWD_FUZZ_SECONDS: each target's time);
#                         the ASan and fuzz builds and clang-tidy run at idle priority beside
#                         the tests;
#                         after each, a summary (scripts/testlog.py) that shows every skip
#                         as SKIP with its reason. Strict mode (CI=true or DPFWD_STRICT=1;
#                         DPFWD_STRICT=0 turns it off): any skip, or a registered test that
#                         did not run, fails the command.
# Both are safe to run twice. DPFWD_RUN_SECONDS changes the run length.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${DPFWD_BUILD_DIR:-$ROOT/build}"
# the same sources built with AddressSanitizer + UndefinedBehaviorSanitizer (gcc)
ASAN_BUILD="${DPFWD_ASAN_BUILD_DIR:-$ROOT/build-asan}"
# the fuzz targets (tests/fuzz) built with clang: libFuzzer, ASan, UBSan
FUZZ_BUILD="${DPFWD_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
PKGS=(dpdk dpdk-dev libdpdk-dev dpdk-doc meson ninja-build pkg-config gcc libcunit1-dev
	libpcap-dev libmnl-dev libjansson-dev libmicrohttpd-dev libsystemd-dev python3 python3-pyelftools python3-matplotlib
	ministat curl clang-format clang-tidy jq clang libclang-rt-14-dev
	python3-flake8 # suite lint: python_style
	scdoc python3-jsonschema python3-prometheus-client python3-scapy
	iproute2 ethtool iputils-ping traceroute iperf3 tshark socat netcat-openbsd # tests/netns (hosts in namespaces)
	frr # tests/netns: the FRR tests
	bird2 # tests/netns: the BIRD test (its packaged service is stopped: install_deps)
	sockperf nsd dnsperf dnsutils) # tests/preload (socat too; nsd, dnsperf, dig: preload_dns)

say() { printf '\033[1m== %s\033[0m\n' "$*"; }

# Strict mode as scripts/testlog.py decides it (exit 0: on).
strict() {
	python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import testlog
sys.exit(0 if testlog.strict_mode()[0] else 1)' "$ROOT/scripts"
}

# A whole step skipped (the sanitizer build, fuzzing): said, and in strict mode a failure.
step_skipped() {
	say "$1 skipped: $2"
	if strict; then
		echo "strict mode: a skipped step fails the run (DPFWD_STRICT=0 allows it)" >&2
		return 1
	fi
}

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "dev.sh: run as root (DPDK needs hugepages and device access)" >&2
		exit 1
	fi
}

install_deps() {
	local missing=()
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		say "packages: all present"
		return
	fi
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	# bird2 enables and starts its service (/etc/bird/bird.conf, in the host's namespace);
	# the tests run their own BIRD: the one this install started is stopped and disabled
	if [[ " ${missing[*]} " == *" bird2 "* ]] && [ -d /run/systemd/system ]; then
		systemctl disable --now bird.service >/dev/null 2>&1 || true
	fi
}

build() {
	if [ ! -f "$BUILD/build.ninja" ]; then
		say "configuring $BUILD"
		meson setup "$BUILD" "$ROOT" >/dev/null
	fi
	say "building"
	ninja -C "$BUILD" >/dev/null
}

# 2 MiB pages: 1024 of them (2 GiB) unless as many are already there. When the
# kernel refuses, dpfwd falls back to --no-huge by itself and says so.
hugepages() {
	local nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	local want=1024
	if [ -w "$nr" ] && [ "$(cat "$nr")" -lt "$want" ]; then
		echo "$want" >"$nr" 2>/dev/null || true
	fi
	if ! grep -q hugetlbfs /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true
	fi
	local free
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if [ "${free:-0}" -gt 0 ] && grep -q hugetlbfs /proc/mounts; then
		say "hugepages: $free free 2 MiB pages"
	else
		say "hugepages: none could be reserved; dpfwd will run with --no-huge"
	fi
}

setup() {
	need_root "$@"
	install_deps
	build
	hugepages
}

cmd_run() {
	local secs="${DPFWD_RUN_SECONDS:-5}"
	local json="$BUILD/telemetry.json"
	# EAL's runtime folder (the telemetry socket's): removed after the run when the run made it
	local rundir=/var/run/dpdk made=()
	[ -d "$rundir" ] || made+=("$rundir")
	[ -d "$rundir/rte" ] || made=("$rundir/rte" "${made[@]}")
	say "dpfwd on configs/default.ini for ${secs}s (pcap 2000 flows x 64 B -> 2 routes -> net_null)"
	"$BUILD/apps/dpfwd/dpfwd" -- -c "$ROOT/configs/default.ini" --duration "$secs" \
		--stats --telemetry-json "$json" &
	local pid=$!
	sleep 2
	say "DPDK telemetry while it runs: dpdk-telemetry.py, /dpfwd/graph/nodes"
	echo /dpfwd/graph/nodes | dpdk-telemetry.py 2>/dev/null | python3 -m json.tool || true
	wait "$pid"
	[ ${#made[@]} -eq 0 ] || rmdir "${made[@]}" 2>/dev/null || true
	say "telemetry JSON ($json): cycles per packet by node, drops, mempool"
	jq '{interval: .interval | {rx_pps, tx_pps, tx_gbps, drops},
		nodes: (.nodes | map_values(.cycles_per_pkt)),
		drops: .drops.total,
		delay_ns: (.delay.total | {count, p50_ns, p99_ns, p999_ns, max_ns, jitter_ns}),
		mempool: (.mempools[0] | {size, in_use, in_use_baseline}),
		instructions: (.lcores[0] | {insn_per_pkt, instructions_unavailable})}' "$json"
}

# The summary of the last `meson test` in build $1 (scripts/testlog.py): per suite the tests
# registered, run, passed, failed, skipped; per CUnit suite registered, run, failed, not run
# (a failed suite init runs none); every skip with its reason. Fails on a failure, and in
# strict mode on a skip or a registered test of suites $2... that did not run.
summary() {
	local build=$1 args=() s
	shift
	for s; do
		case $s in
		--*) args+=("$s") ;; # --no-suite=X: left out on purpose
		*) args+=("--suite=$s") ;;
		esac
	done
	say "summary ($build)"
	python3 "$ROOT/scripts/testlog.py" "$build" "${args[@]}"
}

# Set meson option $2 of build $1 to $3 unless it has that value already.
build_option() {
	if [ "$(meson introspect --buildoptions "$1" |
		jq -r --arg n "$2" '.[] | select(.name == $n) | .value')" != "$3" ]; then
		meson configure "$1" -D"$2=$3" >/dev/null
	fi
}

# The unit, func and netns suites again in the ASan + UBSan build. Every process the tests start
# (dpfwd, dpgen, libdpsock applications) inherits the options: any report aborts that
# process and is also written to $ASAN_BUILD/sanitizer-logs, which must stay empty (a
# test that tolerates a child's failure cannot hide a finding).
asan_build() {
	local out
	# -O1, as the sanitizers' documentation advises: the instrumented fast path at -O3 takes
	# twice as long to compile, and the tests need its behaviour, not its speed
	if [ ! -f "$ASAN_BUILD/build.ninja" ]; then
		say "configuring $ASAN_BUILD (-Db_sanitize=address,undefined, -O1)"
		meson setup "$ASAN_BUILD" "$ROOT" -Db_sanitize=address,undefined -Db_lundef=false \
			-Doptimization=1 -Dc_args=-fno-omit-frame-pointer >/dev/null
	else
		build_option "$ASAN_BUILD" optimization 1
	fi
	say "building $ASAN_BUILD"
	if ! out=$(ninja -C "$ASAN_BUILD" 2>&1); then
		printf '%s\n' "$out" | grep -v '^\[[0-9]*/[0-9]*\] ' | tail -n 40
		exit 1
	fi
}

sanitized_tests() {
	local logs="$ASAN_BUILD/sanitizer-logs" rc=0
	bg_wait asan_build || exit 1
	rm -rf "$logs"
	mkdir -p "$logs"
	# suite once is left out: FRR's and BIRD's daemons driving the Linux control plane (the
	# dpfwd code they reach is the linuxcp tests') and dpbench's run (its Python, on a
	# dpfwd the fwd tests run here): about two minutes that would find nothing new
	say "meson test under ASan + UBSan (suites: unit, func, netns; not once)"
	# the soak is 45 s in the first run; 10 s here keep the whole under 15 minutes
	DPFWD_SOAK_SECONDS="${DPFWD_SOAK_SECONDS:-10}" \
		ASAN_OPTIONS="log_path=$logs/asan:abort_on_error=1:halt_on_error=1:detect_leaks=1" \
		LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp:print_suppressions=0" \
		UBSAN_OPTIONS="log_path=$logs/ubsan:abort_on_error=1:halt_on_error=1:print_stacktrace=1" \
		meson test -C "$ASAN_BUILD" --suite unit --suite func --suite netns --no-suite once \
		--print-errorlogs --num-processes 2 || rc=1
	summary "$ASAN_BUILD" unit func netns --no-suite=once || rc=1
	if [ -n "$(ls -A "$logs")" ]; then
		say "sanitizer reports ($logs):"
		cat "$logs"/*
		exit 1
	fi
	say "sanitizers: no reports"
	[ "$rc" = 0 ] || exit 1
}

# Every libFuzzer target (tests/fuzz/fuzz_*.c) in the clang build $FUZZ_BUILD for
# DPFWD_FUZZ_SECONDS each (15), DPFWD_FUZZ_JOBS at a time (2): with seven targets about a
# minutes on 2 cores. Each starts from its checked-in seeds and what it found in earlier
# runs here ($FUZZ_BUILD/tests/fuzz/fuzz-work-<name>/corpus, never committed: README,
# Fuzzing, says how to merge new inputs into the corpora). Fails on any crash, leak, timeout
# or sanitizer report, and names the input that did it. Skipped, like the sanitizer build,
# when meson test arguments are given or DPFWD_FUZZ=0.
fuzz_names() {
	local f n
	for f in "$ROOT"/tests/fuzz/fuzz_*.c; do
		n=${f##*/fuzz_}
		echo "${n%.c}"
	done
}

fuzz_build() {
	local secs="${DPFWD_FUZZ_SECONDS:-15}" names out
	mapfile -t names < <(fuzz_names)
	if [ ! -f "$FUZZ_BUILD/build.ninja" ]; then
		say "configuring $FUZZ_BUILD (clang, -Dfuzz=true: libFuzzer, ASan, UBSan)"
		CC=clang meson setup "$FUZZ_BUILD" "$ROOT" -Dfuzz=true -Dfuzz_seconds="$secs" \
			-Doptimization=1 >/dev/null
	else
		build_option "$FUZZ_BUILD" fuzz_seconds "$secs"
		build_option "$FUZZ_BUILD" optimization 1
	fi
	# the targets only: apps/ (a static dpfwd under ASan) would double the build
	say "building the fuzz targets in $FUZZ_BUILD"
	if ! out=$(ninja -C "$FUZZ_BUILD" -j "$(nproc)" "${names[@]/#/tests/fuzz/fuzz_}" 2>&1); then
		printf '%s\n' "$out" | tail -n 40
		exit 1
	fi
}

fuzz_tests() {
	local secs="${DPFWD_FUZZ_SECONDS:-15}" jobs="${DPFWD_FUZZ_JOBS:-2}"
	local dir="$FUZZ_BUILD/tests/fuzz" names n rc=0 stamp found
	if [ $# -gt 0 ]; then
		say "fuzzing skipped: meson test arguments were given"
		return
	elif [ "${DPFWD_FUZZ:-1}" = 0 ]; then
		step_skipped fuzzing "DPFWD_FUZZ=0"
		return
	fi
	mapfile -t names < <(fuzz_names)
	bg_wait fuzz_build || exit 1
	say "fuzzing: ${#names[@]} targets, ${secs} s each, $jobs at a time (DPFWD_FUZZ_SECONDS, DPFWD_FUZZ_JOBS)"
	stamp="$FUZZ_BUILD/.fuzz-start"
	touch "$stamp"
	meson test -C "$FUZZ_BUILD" --setup fuzz --suite fuzz --no-rebuild --print-errorlogs \
		--num-processes "$jobs" || rc=$?
	say "fuzzing: inputs run and coverage (edges, features) per target"
	printf '  %-11s %10s %8s %6s %7s %7s %5s\n' target inputs inputs/s edges features corpus new
	for n in "${names[@]}"; do
		awk -v t="$n" '
			/^#[0-9]+[ \t].*cov: / { for (i = 1; i < NF; i++) if ($i ~ /^(cov|ft|corp):$/) v[$i] = $(i + 1) }
			/^stat::number_of_executed_units:/ { runs = $2 }
			/^stat::average_exec_per_sec:/ { rate = $2 }
			/^stat::new_units_added:/ { added = $2 }
			END { sub(/\/.*/, "", v["corp:"])
			      printf "  %-11s %10s %8s %6s %7s %7s %5s\n", t, runs, rate, v["cov:"],
				     v["ft:"], v["corp:"], added }' "$dir/fuzz-work-$n/fuzz.log" 2>/dev/null ||
			printf '  %-11s (no log)\n' "$n"
	done
	found=$(find "$dir" -path "$dir/fuzz-work-*" -newer "$stamp" \( -name 'crash-*' -o \
		-name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) 2>/dev/null || true)
	rm -f "$stamp"
	if [ "$rc" != 0 ] || [ -n "$found" ]; then
		say "fuzzing found something; the inputs (replay: $dir/fuzz_<name> FILE):"
		printf '  %s\n' $found
		exit 1
	fi
	say "fuzzing: no finding"
}

# Work that needs CPUs but not a quiet machine (the sanitizer and fuzz builds, clang-tidy)
# runs beside the tests under SCHED_IDLE: most tests run one at a time, a dpfwd worker
# polling on one core and the test waiting, and a test that wants a CPU gets it first.
# The ASan build goes first (its tests come next), the fuzz build and clang-tidy after it.
# Each job has its own process group (ended if dev.sh stops early) and a log,
# $BUILD/bg-NAME.log, shown when the job fails.
declare -A BG_PID=()

# bg_start NAME [--after JOB] COMMAND...: COMMAND in the background (once JOB has ended).
bg_start() {
	local name=$1 after=
	shift
	if [ "$1" = --after ]; then
		after=${BG_PID[$2]:-}
		shift 2
	fi
	set -m
	(
		chrt -i -p 0 "$BASHPID" >/dev/null 2>&1 || true
		while [ -n "$after" ] && kill -0 "$after" 2>/dev/null; do
			sleep 1
		done
		"$@"
	) >"$BUILD/bg-$name.log" 2>&1 &
	BG_PID[$name]=$!
	set +m
}

# Wait for job $1 and return its status.
bg_wait() {
	local rc=0
	wait "${BG_PID[$1]}" || rc=$?
	unset "BG_PID[$1]"
	if [ "$rc" != 0 ]; then
		say "$1 failed (exit $rc): the end of $BUILD/bg-$1.log"
		tail -n 40 "$BUILD/bg-$1.log"
	fi
	return "$rc"
}

# End the jobs still running: each job's process group, or where a job did not get a group of
# its own, its processes from the top down.
bg_stop() {
	local p
	for p in "${BG_PID[@]}"; do
		if [ "$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')" = "$p" ]; then
			kill -- "-$p" 2>/dev/null || true
		else
			kill_tree "$p"
		fi
	done
}

kill_tree() {
	local c kids
	kill -STOP "$1" 2>/dev/null || return 0 # no new children while they are listed
	kids=$(pgrep -P "$1" || true)
	kill "$1" 2>/dev/null || true
	kill -CONT "$1" 2>/dev/null || true
	for c in $kids; do
		kill_tree "$c"
	done
}

tidy() {
	sh "$ROOT/scripts/tidy.sh" "$ROOT" "$BUILD"
}

cmd_test() {
	local rc=0
	if [ $# -gt 0 ]; then
		say "meson test $*"
		meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@" || rc=1
		summary "$BUILD" || rc=1 # the tests asked for, not every suite's
		[ "$rc" = 0 ] || exit 1
		say "sanitizer build skipped: meson test arguments were given"
		fuzz_tests "$@"
		return
	fi
	trap bg_stop EXIT
	[ "${DPFWD_SANITIZE:-1}" = 0 ] || bg_start asan_build asan_build
	[ "${DPFWD_FUZZ:-1}" = 0 ] || bg_start fuzz_build --after asan_build fuzz_build
	bg_start tidy --after asan_build tidy
	say "meson test (suites: unit, func, netns, lint; beside the tests: the ASan build, then the fuzz build and clang-tidy)"
	meson test -C "$BUILD" --print-errorlogs --num-processes 2 --no-suite tidy || rc=1
	summary "$BUILD" unit func netns lint --no-suite=tidy || rc=1
	[ "$rc" = 0 ] || exit 1
	if [ "${DPFWD_SANITIZE:-1}" = 0 ]; then
		step_skipped "sanitizer build" "DPFWD_SANITIZE=0" || rc=1
	else
		sanitized_tests
	fi
	fuzz_tests
	say "clang-tidy (suite tidy, run beside the tests: scripts/tidy.sh)"
	if bg_wait tidy; then
		tail -n 1 "$BUILD/bg-tidy.log"
	else
		rc=1
	fi
	[ "$rc" = 0 ]
}

case "${1:-}" in
run)
	setup "$@"
	cmd_run
	;;
test)
	shift
	setup "$@"
	cmd_test "$@"
	;;
*)
	echo "usage: $0 run|test [meson test args]" >&2
	exit 2
	;;
esac
