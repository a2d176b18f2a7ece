#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two dpfwd binaries side by side: each runs CONFIG for SECONDS, alternately, ROUNDS
# times, and prints busy cycles per received packet (telemetry: busy_cycles / rx_pkts
# over the lcores) and Mpps received. The way the README's "side by side" cycle
# numbers were taken: on a noisy VM only numbers from the same run compare.
#
#   scripts/ab.sh CONFIG "SECTION.KEY=VALUE ..." BIN_A BIN_B [ROUNDS] [SECONDS]
#   scripts/ab.sh configs/bench/relay-2000sessions-64b.ini "" old/dpfwd build/apps/dpfwd/dpfwd 3
#
# As root (hugepages as dpfwd finds them); needs python3. DPFWD_BUILD (for the
# config's ${DPFWD_BUILD}) defaults to build.
set -eu
if [ $# -lt 4 ]; then
	sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
cfg=$1 sets=$2 a=$3 b=$4 rounds=${5:-3} secs=${6:-6}
export DPFWD_BUILD=${DPFWD_BUILD:-build}
prefix=dpfwd-ab-$$
json=$(mktemp /tmp/dpfwd-ab-XXXXXX.json)
trap 'rm -f "$json"; rm -rf "/var/run/dpdk/$prefix"' EXIT
args=()
for s in $sets; do args+=(--set "$s"); done
for _ in $(seq "$rounds"); do
	for bin in "$a" "$b"; do
		rm -f "$json"
		if ! timeout $((secs + 60)) "$bin" -l 0,1 --file-prefix "$prefix" --no-pci --in-memory \
			-- -c "$cfg" --duration "$secs" --telemetry-json "$json" "${args[@]}" \
			>/dev/null 2>&1; then
			echo "$bin: dpfwd failed (run it by hand to see why)" >&2
			exit 1
		fi
		python3 - "$bin" "$json" "$secs" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
busy = sum(l["busy_cycles"] for l in d["lcores"])
rx = sum(l["rx_pkts"] for l in d["lcores"])
print(f"{sys.argv[1]:<44} {busy / rx if rx else float('nan'):7.2f} cycles/pkt"
      f"  rx {rx / float(sys.argv[3]) / 1e6:7.2f} Mpps")
PY
	done
done
