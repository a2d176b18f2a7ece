#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two dpfwd binaries side by side: each runs CONFIG for SECONDS, alternately, ROUNDS
# times, and prints busy cycles per received packet (telemetry: busy_cycles / rx_pkts
# over the lcores) and Mpps received: how docs/performance.md's side-by-side numbers
# are taken (docs/benchmarking.md); on a noisy VM only numbers from the same run compare.
# AB_TOGETHER=1: both at once each round, on swapped cores (A's worker on CPU 1 and
# B's on CPU 0, then the other way), and the median of the rounds' B/A ratios.
# AB_SET_A / AB_SET_B: overrides for one side only, after the common ones (one binary,
# two settings: pass it as both BIN_A and BIN_B).
# AB_CFG_B: B runs this config instead of CONFIG (one binary, two jobs: the relay beside
# forwarding, each on its own config; "SECTION.KEY=VALUE ..." still applies to both).
# AB_CPU=1: cycles per packet on the CPU instead of busy: the worker threads' run time
# (perf stat -e task-clock, a software event: no PMU needed) x TSC Hz / packets. When
# other programs share the CPUs, busy cycles count the time the worker waited for one;
# these do not.
#
#   scripts/ab.sh CONFIG "SECTION.KEY=VALUE ..." BIN_A BIN_B [ROUNDS] [SECONDS]
#   scripts/ab.sh configs/bench/relay-2000sessions-64b.ini "" old/dpfwd build/apps/dpfwd/dpfwd 3
#   AB_TOGETHER=1 scripts/ab.sh configs/bench/relay-2000sessions-64b.ini "" old/dpfwd new/dpfwd 12 3
#   AB_TOGETHER=1 AB_SET_A="dpfwd.node_stats=off dpfwd.delay_stats=off" \
#     scripts/ab.sh configs/bench/fwd-2000flows-64b.ini "" build/apps/dpfwd/dpfwd build/apps/dpfwd/dpfwd 10 3
#   AB_TOGETHER=1 AB_CFG_B=configs/bench/relay-2000sessions-64b.ini \
#     scripts/ab.sh configs/bench/fwd-2000flows-64b.ini "" build/apps/dpfwd/dpfwd build/apps/dpfwd/dpfwd 10 3
#
# As root (hugepages as dpfwd finds them); needs python3. DPFWD_BUILD (for the
# config's ${DPFWD_BUILD}) defaults to build.
set -eu
if [ $# -lt 4 ]; then
	sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
cfg=$1 sets=$2 a=$3 b=$4 rounds=${5:-3} secs=${6:-6}
together=${AB_TOGETHER:-0}
oncpu=${AB_CPU:-0}
export DPFWD_BUILD=${DPFWD_BUILD:-build}
prefix=dpfwd-ab-$$
tmp=$(mktemp -d /tmp/dpfwd-ab-XXXXXX)
trap 'rm -rf "$tmp" /var/run/dpdk/"$prefix"-*' EXIT
args=() args_a=() args_b=()
for s in $sets; do args+=(--set "$s"); done
for s in ${AB_SET_A:-}; do args_a+=(--set "$s"); done
for s in ${AB_SET_B:-}; do args_b+=(--set "$s"); done

# run NAME BIN LCORES [SIDE]: dpfwd on CONFIG, its telemetry JSON in $tmp/NAME.json;
# SIDE (a or b) adds that side's overrides
run() {
	local side=() c_run=$cfg
	case "${4:-}" in
	a) side=("${args_a[@]}") ;;
	b) side=("${args_b[@]}") c_run=${AB_CFG_B:-$cfg} ;;
	esac
	local pid tids c t i
	rm -f "$tmp/$1.json" "$tmp/$1.perf"
	timeout $((secs + 60)) "$2" --lcores "$3" --file-prefix "$prefix-$1" --no-pci \
		--in-memory -- -c "$c_run" --duration "$secs" --telemetry-json "$tmp/$1.json" \
		"${args[@]}" "${side[@]}" >/dev/null 2>&1 &
	pid=$!
	if [ "$oncpu" = 1 ]; then
		# dpfwd is timeout's child; EAL names its worker threads rte-worker-<lcore>,
		# and they start before forwarding does
		tids=
		for i in $(seq 500); do
			for c in $(pgrep -P "$pid"); do
				for t in /proc/"$c"/task/*; do
					case "$(cat "$t/comm" 2>/dev/null)" in
					rte-worker-*) tids=${tids:+$tids,}${t##*/} ;;
					esac
				done
			done
			[ -n "$tids" ] && break
			sleep 0.02
		done
		if [ -n "$tids" ]; then
			perf stat -e task-clock -x, -t "$tids" -o "$tmp/$1.perf" 2>/dev/null || true
		fi
	fi
	if ! wait "$pid"; then
		echo "$2: dpfwd failed (run it by hand to see why)" >&2
		return 1
	fi
}

# cycles NAME: busy (AB_CPU=1: on-CPU) cycles per received packet and Mpps of that run
cycles() {
	python3 - "$tmp/$1.json" "$secs" "$oncpu" "$tmp/$1.perf" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
busy = sum(l["busy_cycles"] for l in d["lcores"])
rx = sum(l["rx_pkts"] for l in d["lcores"])
if sys.argv[3] == "1":
    # perf -x, lines: value,unit,event,...; task-clock in msec
    ms = [float(l.split(",")[0]) for l in open(sys.argv[4]) if ",task-clock," in l]
    busy = ms[0] / 1e3 * d["tsc_hz"] if ms else float("nan")
print(f"{busy / rx if rx else float('nan'):.2f} {rx / float(sys.argv[2]) / 1e6:.2f}")
PY
}

if [ "$together" = 1 ]; then
	: >"$tmp/ratios"
	for r in $(seq "$rounds"); do
		if ((r % 2)); then la=0@0,1@1 lb=0@1,1@0; else la=0@1,1@0 lb=0@0,1@1; fi
		run A "$a" "$la" a &
		pa=$!
		run B "$b" "$lb" b &
		pb=$!
		# both waited for, either failing ends the script (run said why)
		wait "$pa" || st=1
		wait "$pb" || st=1
		[ "${st:-0}" = 0 ] || exit 1
		read -r ca ma < <(cycles A)
		read -r cb mb < <(cycles B)
		# a side with no reading (perf stat read nothing): the round is left out
		ratio=$(python3 -c "import math, sys
a, b = map(float, sys.argv[1:])
print(f'{b / a:.3f}' if a > 0 and not math.isnan(b) else 'nan')" "$ca" "$cb")
		[ "$ratio" = nan ] || echo "$ratio" >>"$tmp/ratios"
		printf 'round %-3s A %7s cycles/pkt (%s Mpps)  B %7s (%s Mpps)  B/A %s\n' \
			"$r" "$ca" "$ma" "$cb" "$mb" "$ratio"
	done
	python3 - "$tmp/ratios" <<'PY'
import statistics, sys
r = [float(x) for x in open(sys.argv[1])]
if not r:
    sys.exit("ab.sh: no round gave both sides a reading")
q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
print(f"B/A median {statistics.median(r):.3f} over {len(r)} rounds (quartiles {q[0]:.3f}-{q[2]:.3f})")
PY
	exit 0
fi
for _ in $(seq "$rounds"); do
	for side in a b; do
		if [ "$side" = a ]; then bin=$a; else bin=$b; fi
		run one "$bin" 0,1 "$side"
		read -r c m < <(cycles one)
		printf '%s %-44s %7s cycles/pkt  rx %7s Mpps\n' "${side^^}" "$bin" "$c" "$m"
	done
done
