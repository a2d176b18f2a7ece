/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rig that the malformed-frame corpus (tests/unit/fwd/test_malformed.c)
 * and the datapath fuzzer (tests/fuzz/fuzz_datapath.c) share: the same ports,
 * MACs, addresses, routes and neighbors, so that every frame of the corpus is
 * a meaningful seed for the fuzzer.
 *
 *   host 198.18.0.2 / 2001:db8:10::2 --- port0 198.18.0.1/24, 2001:db8:10::1/64
 *                                        port1 198.18.101.1/24, 2001:db8:101::1/64
 *                                              --- gw 198.18.101.2 / 2001:db8:101::2
 *                                              198.18.1.0/24, 2001:db8:1::/48 via gw
 *                                              198.18.5.0/24 via 198.18.101.9 (unresolved)
 *                                        port2 (no address)
 *
 * Fuzzer input: | port (byte, mod MALFORMED_NB_PORTS) | split (byte) | frame ... |
 * split 0: one segment; otherwise the frame's first split bytes are the first
 * segment and the rest a second one (when the frame is longer than split).
 */
#ifndef DP_TEST_MALFORMED_RIG_H
#define DP_TEST_MALFORMED_RIG_H

#define MALFORMED_NB_PORTS 3
#define MALFORMED_HDR_LEN  2 /* port, split */
/* room for a 9000-byte IP datagram (a jumbo frame) in one mbuf, after the headroom */
#define MALFORMED_DATA_ROOM 9344
/* the ports' MTU: the longest frame the data room holds, with room for a VLAN tag */
#define MALFORMED_MTU       "9198"
#define MALFORMED_MAX_FRAME (MALFORMED_DATA_ROOM - 128 - 4)

#define MALFORMED_CONFIG(p)                                                                        \
	"[dpfwd]\n"                                                                                \
	"burst = 32\n"                                                                             \
	"icmp_rate = 1000000\n"                                                                    \
	"icmp_burst = 100000\n"                                                                    \
	"neigh_max = 16\n"                                                                         \
	"neigh_hold = 2\n"                                                                         \
	"[mempool]\n"                                                                              \
	"size = 4095\n"                                                                            \
	"cache = 32\n"                                                                             \
	"data_room = 9344\n"                                                                       \
	"[port0]\n"                                                                                \
	"dev = net_ring_" p "0\n"                                                                  \
	"mtu = " MALFORMED_MTU "\n"                                                                \
	"ip4 = 198.18.0.1/24\n"                                                                    \
	"ip6 = 2001:db8:10::1/64\n"                                                                \
	"[port1]\n"                                                                                \
	"dev = net_ring_" p "1\n"                                                                  \
	"mtu = " MALFORMED_MTU "\n"                                                                \
	"ip4 = 198.18.101.1/24\n"                                                                  \
	"ip6 = 2001:db8:101::1/64\n"                                                               \
	"[port2]\n"                                                                                \
	"dev = net_ring_" p "2\n"                                                                  \
	"mtu = " MALFORMED_MTU "\n"                                                                \
	"[lcores]\n"                                                                               \
	"rx = (0,0,1),(1,0,1),(2,0,1)\n"                                                           \
	"[routes]\n"                                                                               \
	"route = 198.18.1.0/24 via 198.18.101.2 port 1\n"                                          \
	"route = 198.18.5.0/24 via 198.18.101.9 port 1\n"                                          \
	"route = 2001:db8:1::/48 via 2001:db8:101::2 port 1\n"                                     \
	"[neighbors]\n"                                                                            \
	"neigh = 198.18.0.2 lladdr 02:00:00:00:00:02 port 0\n"                                     \
	"neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1\n"                                   \
	"neigh = 2001:db8:10::2 lladdr 02:00:00:00:00:02 port 0\n"                                 \
	"neigh = 2001:db8:101::2 lladdr 02:00:00:00:01:02 port 1\n"

#endif /* DP_TEST_MALFORMED_RIG_H */
