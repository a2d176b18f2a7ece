#!/bin/sh
# anchors.sh BUILD -- build the forwarding-benchmark anchor DPDK's l3fwd
# out of tree from the Debian-shipped example sources, into
# BUILD/anchors/dpdk-l3fwd.  Idempotent: rebuilds only when the example
# sources, this script or the installed DPDK change.  Nothing from DPDK is
# copied into the repository; the copy lives under BUILD/anchors/.
#
# Layout:  BUILD/anchors/l3fwd-src/l3fwd   (copy of examples/l3fwd, patched)
#          BUILD/anchors/l3fwd-src/common  (copy of examples/common; the
#                                           Makefile uses -I../common)
#          BUILD/anchors/dpdk-l3fwd        (the binary, DPDK shared: the
#                                           examples' default)
#          BUILD/anchors/dpdk-l3fwd-static (DPDK linked statically, as the
#                                           dpfwd executable is by default)
#          BUILD/anchors/dpdk-l3fwd.stamp  (what it was built from)
#
# Environment: DPDK_EXAMPLES (default /usr/share/dpdk/examples),
#              PKGCONF (default pkg-config), CC.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD" >&2
	exit 2
fi
BUILD=$1
EX=${DPDK_EXAMPLES:-/usr/share/dpdk/examples}
PKGCONF=${PKGCONF:-pkg-config}
OUT=$BUILD/anchors
SRC=$OUT/l3fwd-src
BIN=$OUT/dpdk-l3fwd
STAMP=$OUT/dpdk-l3fwd.stamp

[ -f "$EX/l3fwd/main.c" ] || { echo "anchors.sh: $EX/l3fwd not found (install dpdk-doc)" >&2; exit 1; }
[ -d "$EX/common" ] || { echo "anchors.sh: $EX/common not found" >&2; exit 1; }
$PKGCONF --exists libdpdk || { echo "anchors.sh: pkg-config cannot find libdpdk (install libdpdk-dev)" >&2; exit 1; }

# Fingerprint of everything the binary depends on.
want=$( {
	echo "dpdk $($PKGCONF --modversion libdpdk)"
	echo "cflags $($PKGCONF --cflags libdpdk)"
	echo "cc ${CC:-cc} $(${CC:-cc} -dumpversion 2>/dev/null || true)"
	sha256sum "$0" | cut -d' ' -f1
	cd "$EX" && find l3fwd common -type f | LC_ALL=C sort | xargs sha256sum
} | sha256sum | cut -d' ' -f1)

if [ -x "$BIN" ] && [ -x "$BIN-static" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
	echo "anchors.sh: $BIN is up to date"
	exit 0
fi

echo "anchors.sh: building $BIN from $EX/l3fwd"
mkdir -p "$OUT"
rm -rf "$SRC" "$OUT/l3fwd-build.log"
mkdir -p "$SRC"
cp -r "$EX/l3fwd" "$SRC/l3fwd"
cp -r "$EX/common" "$SRC/common"

# --- Patch (the only change made to l3fwd) ------------------------------
# l3fwd 22.11 always requests RTE_ETH_RX_OFFLOAD_CHECKSUM (IPv4/UDP/TCP
# checksum offload) in its global port_conf, and the virtual ports used by
# the rig (net_pcap, net_null) advertise rx_offload_capa = 0, so
# rte_eth_dev_configure() fails with "requested Rx offloads 0xe doesn't
# match Rx offloads capabilities 0x0".  Mask the requested offloads by the
# device capabilities, at port level and at queue level (the queue setup
# copies the unmasked global port_conf).  On a NIC with the offload the
# behaviour is unchanged.  Note that l3fwd never checks the result of the
# checksum offload anyway (it does not verify IPv4 header checksums).
M=$SRC/l3fwd/main.c
sed -i \
	-e '/^\t\tlocal_port_conf\.rx_adv_conf\.rss_conf\.rss_hf &=$/i\
\t\tlocal_port_conf.rxmode.offloads \&= dev_info.rx_offload_capa; /* dpbench: mask RX offloads by capa */' \
	-e 's/^\(\t*\)rxq_conf\.offloads = port_conf\.rxmode\.offloads;$/\1rxq_conf.offloads = port_conf.rxmode.offloads \& dev_info.rx_offload_capa; \/* dpbench: mask RX offloads by capa *\//' \
	"$M"
n=$(grep -c 'dpbench: mask RX offloads by capa' "$M" || true)
if [ "$n" != 2 ]; then
	echo "anchors.sh: l3fwd patch did not apply ($n of 2 sites); l3fwd sources changed?" >&2
	exit 1
fi

# --- Patch 2: room for big route files ----------------------------------
# l3fwd's FIB lookup (--lookup=fib) makes its IPv4 table with room for 2^16
# routes, so `dpbench.py fwd-anchor --routes 1000000` (the same generated table
# as dpfwd's) could not load.  Give it room for 2^21 routes.  Its LPM tables
# stay as they are (1024 rules): rte_lpm's adds scan the rules linearly (a 1M
# table takes minutes), so the big-table anchor is l3fwd on rte_fib, as dpfwd.
F=$SRC/l3fwd/l3fwd_fib.c
sed -i -e 's/^\(\t*\)config_ipv4\.max_routes = (1 << 16);$/\1config_ipv4.max_routes = (1 << 21); \/* dpbench: big route files *\//' "$F"
n=$(grep -c 'dpbench: big route files' "$F" || true)
if [ "$n" != 1 ]; then
	echo "anchors.sh: l3fwd FIB size patch did not apply ($n of 1 sites); l3fwd sources changed?" >&2
	exit 1
fi

# Build with the example's own Makefile (shared linkage, pkg-config libdpdk).
# shared (the examples' default, dpdk-l3fwd) and static (dpdk-l3fwd-static: DPDK's
# static libraries, as dpfwd links them by default; the same cflags)
for link in shared static; do
	make -C "$SRC/l3fwd" PKGCONF="$PKGCONF" ${CC:+CC="$CC"} -j"$(nproc 2>/dev/null || echo 1)" \
		"$link" >>"$OUT/l3fwd-build.log" 2>&1 || {
		echo "anchors.sh: l3fwd ($link) build failed, see $OUT/l3fwd-build.log:" >&2
		tail -20 "$OUT/l3fwd-build.log" >&2
		exit 1
	}
done
cp "$SRC/l3fwd/build/l3fwd-shared" "$BIN.tmp"
mv -f "$BIN.tmp" "$BIN"
cp "$SRC/l3fwd/build/l3fwd-static" "$BIN-static.tmp"
mv -f "$BIN-static.tmp" "$BIN-static"
echo "$want" >"$STAMP"
echo "anchors.sh: built $BIN"
