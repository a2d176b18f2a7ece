#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two dpfwd binaries side by side: each runs CONFIG for SECONDS, alternately, ROUNDS
# times, and prints busy cycles per received packet (telemetry: busy_cycles / rx_pkts
# over the lcores) and Mpps received. The way the README's "side by side" cycle
# numbers were taken: on a noisy VM only numbers from the same run compare.
# AB_TOGETHER=1: both at once each round, on swapped cores (A's worker on CPU 1 and
# B's on CPU 0, then the other way), and the median of the rounds' B/A ratios.
#
#   scripts/ab.sh CONFIG "SECTION.KEY=VALUE ..." BIN_A BIN_B [ROUNDS] [SECONDS]
#   scripts/ab.sh configs/bench/relay-2000sessions-64b.ini "" old/dpfwd build/apps/dpfwd/dpfwd 3
#   AB_TOGETHER=1 scripts/ab.sh configs/bench/relay-2000sessions-64b.ini "" old/dpfwd new/dpfwd 12 3
#
# As root (hugepages as dpfwd finds them); needs python3. DPFWD_BUILD (for the
# config's ${DPFWD_BUILD}) defaults to build.
set -eu
if [ $# -lt 4 ]; then
	sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
cfg=$1 sets=$2 a=$3 b=$4 rounds=${5:-3} secs=${6:-6}
together=${AB_TOGETHER:-0}
export DPFWD_BUILD=${DPFWD_BUILD:-build}
prefix=dpfwd-ab-$$
tmp=$(mktemp -d /tmp/dpfwd-ab-XXXXXX)
trap 'rm -rf "$tmp" /var/run/dpdk/"$prefix"-*' EXIT
args=()
for s in $sets; do args+=(--set "$s"); done

# run NAME BIN LCORES: dpfwd on CONFIG, its telemetry JSON in $tmp/NAME.json
run() {
	rm -f "$tmp/$1.json"
	if ! timeout $((secs + 60)) "$2" --lcores "$3" --file-prefix "$prefix-$1" --no-pci \
		--in-memory -- -c "$cfg" --duration "$secs" --telemetry-json "$tmp/$1.json" \
		"${args[@]}" >/dev/null 2>&1; then
		echo "$2: dpfwd failed (run it by hand to see why)" >&2
		return 1
	fi
}

# cycles NAME: busy cycles per received packet and Mpps of that run
cycles() {
	python3 - "$tmp/$1.json" "$secs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
busy = sum(l["busy_cycles"] for l in d["lcores"])
rx = sum(l["rx_pkts"] for l in d["lcores"])
print(f"{busy / rx if rx else float('nan'):.2f} {rx / float(sys.argv[2]) / 1e6:.2f}")
PY
}

if [ "$together" = 1 ]; then
	: >"$tmp/ratios"
	for r in $(seq "$rounds"); do
		if ((r % 2)); then la=0@0,1@1 lb=0@1,1@0; else la=0@1,1@0 lb=0@0,1@1; fi
		run A "$a" "$la" &
		pa=$!
		run B "$b" "$lb" &
		pb=$!
		# both waited for, either failing ends the script (run said why)
		wait "$pa" || st=1
		wait "$pb" || st=1
		[ "${st:-0}" = 0 ] || exit 1
		read -r ca ma < <(cycles A)
		read -r cb mb < <(cycles B)
		ratio=$(python3 -c "print(f'{$cb / $ca:.3f}')")
		echo "$ratio" >>"$tmp/ratios"
		printf 'round %-3s A %7s cycles/pkt (%s Mpps)  B %7s (%s Mpps)  B/A %s\n' \
			"$r" "$ca" "$ma" "$cb" "$mb" "$ratio"
	done
	python3 - "$tmp/ratios" <<'PY'
import statistics, sys
r = [float(x) for x in open(sys.argv[1])]
q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
print(f"B/A median {statistics.median(r):.3f} over {len(r)} rounds (quartiles {q[0]:.3f}-{q[2]:.3f})")
PY
	exit 0
fi
for _ in $(seq "$rounds"); do
	for bin in "$a" "$b"; do
		run one "$bin" 0,1
		read -r c m < <(cycles one)
		printf '%-44s %7s cycles/pkt  rx %7s Mpps\n' "$bin" "$c" "$m"
	done
done
