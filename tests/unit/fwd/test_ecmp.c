/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP routes (several next hops, weighted), end to end in one process: three
 * net_ring ports, the real worker graph walked on the test thread, the control
 * lcore's work run in between (ring_rig.h). Flows are UDP packets told apart by
 * their source port; the next hop a flow took is the destination MAC it left
 * with. Also the parser's errors, named file:line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_ethdev.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd_config.h"
#include "dp_fwd_group.h"
#include "dp_graph.h"
#include "dp_neigh.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_telemetry.h"
#include "dp_test.h"
#include "ring_rig.h"

#define NB_PORTS 3

#define IP_HOST  0xc6120002u /* 198.18.0.2, behind port0 */
#define IP_A     0xc6126502u /* 198.18.101.2, port1 */
#define IP_C     0xc6126503u /* 198.18.101.3, port1 */
#define IP_B     0xc6126602u /* 198.18.102.2, port2 */
#define NET_W    0xc6120100u /* 198.18.1.0/24: A weight 1, B weight 3 */
#define NET_F    0xc6120200u /* 198.18.2.0/24: A, B, C weight 1 each */
#define NET_WIDE 0xc6130000u /* 198.19.0.0/16: A weight 1, B weight 3 (NET_W's group) */

static const uint8_t host_mac[6] = { 0x02, 0x11, 0, 0, 0, 0x02 };
static const uint8_t mac_a[6] = { 0x02, 0xaa, 0, 0, 0, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0xbb, 0, 0, 0, 0x02 };
static const uint8_t mac_c[6] = { 0x02, 0xcc, 0, 0, 0, 0x03 };
static const uint8_t mac_d[6] = { 0x02, 0xdd, 0, 0, 0, 0x04 }; /* IPv6 neighbors */
static const uint8_t mac_e[6] = { 0x02, 0xee, 0, 0, 0, 0x05 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t zero_mac[6];

static const char config_text[] =
	"[dpfwd]\n"
	"burst = 32\n"
	"neigh_retrans_ms = 100\n"
	"neigh_probes = 2\n"
	"neigh_failed_ms = 300\n"
	"neigh_reachable_ms = 1000\n"
	"[mempool]\n"
	"cache = 32\n"
	"[port0]\n"
	"dev = net_ring_e0\n"
	"ip4 = 198.18.0.1/24\n"
	"ip6 = 2001:db8:10::1/64\n"
	"[port1]\n"
	"dev = net_ring_e1\n"
	"ip4 = 198.18.101.1/24\n"
	"ip6 = 2001:db8:101::1/64\n"
	"[port2]\n"
	"dev = net_ring_e2\n"
	"ip4 = 198.18.102.1/24\n"
	"ip6 = 2001:db8:102::1/64\n"
	"[lcores]\n"
	"rx = (0,0,1), (1,0,1), (2,0,1)\n"
	"[neighbors]\n"
	"neigh = 2001:db8:101::2 lladdr 02:dd:00:00:00:04 port 1\n"
	"neigh = 2001:db8:102::2 lladdr 02:ee:00:00:00:05 port 2\n"
	"[routes]\n"
	"route = 198.18.1.0/24 via 198.18.101.2 port 1 via 198.18.102.2 port 2 weight 3\n"
	"route = 198.18.2.0/24 via 198.18.101.2 port 1 via 198.18.102.2 port 2 via 198.18.101.3 "
	"port 1\n"
	"route = 2001:db8:1::/48 via 2001:db8:101::2 port 1 via 2001:db8:102::2 port 2\n"
	"route = 198.19.0.0/16 via 198.18.101.2 port 1 via 198.18.102.2 port 2 weight 3\n";

static struct ring_rig rig = {
	.name = "ecmp",
	.prefix = 'e',
	.nb_ports = NB_PORTS,
	.config_text = config_text,
};

/* Which next hop a flow left by: its destination MAC (0: none yet, 1..5: A..E, 9: other). */
enum { HOP_NONE, HOP_A, HOP_B, HOP_C, HOP_D, HOP_E, HOP_OTHER = 9 };

static int
hop_of_mac(const uint8_t *mac)
{
	const uint8_t *const macs[] = { mac_a, mac_b, mac_c, mac_d, mac_e };
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(macs); i++)
		if (memcmp(mac, macs[i], 6) == 0)
			return (int)i + 1;
	return HOP_OTHER;
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int32_t
neigh_of(uint32_t ip, uint16_t port)
{
	uint32_t be = htonl(ip);

	return dp_neigh_get(4, (const uint8_t *)&be, port, false);
}

/* A gratuitous ARP from a gateway: it gives (or keeps) its MAC. */
static void
announce(int port, const uint8_t *mac, uint32_t ip)
{
	uint8_t f[64];

	ring_rig_inject(&rig, port, f, ring_rig_arp(f, 1, bcast, mac, ip, zero_mac, ip));
}

/* Gateways B and C (and A when @p with_a) announce themselves: they stay known. */
static void
keep_alive(bool with_a)
{
	if (with_a)
		announce(1, mac_a, IP_A);
	announce(2, mac_b, IP_B);
	announce(1, mac_c, IP_C);
	ring_rig_step();
}

/* Frames to flow @p k: to @p net's host (k % 200) + 1, from source port 1000 + k. */
static size_t
flow4(uint8_t *f, uint32_t net, unsigned int k)
{
	return ring_rig_udp4(f, 0, host_mac, IP_HOST, net | (k % 200 + 1), (uint16_t)(1000 + k));
}

/* A UDP frame from the host to 2001:db8:1::@p host (in the ECMP /48), source port @p sport. */
static size_t
udp6(uint8_t *f, unsigned int host, uint16_t sport)
{
	struct dp_pkt_spec s;
	size_t len = 0;

	dp_pkt_spec_init(&s);
	memcpy(s.dst_mac, &dp_ports[0].mac, 6);
	memcpy(s.src_mac, host_mac, 6);
	s.ip_version = 6;
	inet_pton(AF_INET6, "2001:db8:10::2", s.src_ip6);
	inet_pton(AF_INET6, "2001:db8:1::", s.dst_ip6);
	s.dst_ip6[14] = (uint8_t)(host >> 8);
	s.dst_ip6[15] = (uint8_t)host;
	s.ttl = 20;
	s.sport = sport;
	s.frame_len = 80;
	CU_ASSERT_FATAL(dp_pkt_build(&s, f, 2048, &len) == 0);
	return len;
}

static size_t
flow6(uint8_t *f, unsigned int k)
{
	return udp6(f, k % 200 + 1, (uint16_t)(1000 + k));
}

/*
 * Send flows 0..n-1 (IPv6 when @p v6, else to @p net) once each, in bursts, and
 * record in @p hop the next hop each left by. @return the frames that came out
 * (ARP frames aside).
 */
static unsigned int
send_flows(uint32_t net, bool v6, unsigned int n, uint8_t *hop)
{
	struct rte_mbuf *out[64];
	uint8_t f[2048];
	unsigned int k = 0, got = 0, i, c, p;

	while (k < n) {
		for (c = 0; c < 32 && k < n; c++, k++)
			ring_rig_inject(&rig, 0, f, v6 ? flow6(f, k) : flow4(f, net, k));
		ring_rig_step();
		for (p = 1; p < NB_PORTS; p++) {
			while ((c = ring_rig_drain(&rig, (int)p, out, 64)) > 0) {
				for (i = 0; i < c; i++) {
					const uint8_t *d =
						rte_pktmbuf_mtod(out[i], const uint8_t *);
					const unsigned int l4 = v6 ? 14 + 40 : 14 + 20;
					unsigned int flow;

					if (d[12] == 0x08 && d[13] == 0x06)
						continue; /* the router's ARP */
					flow = dp_pkt_get16(d + l4) - 1000u;
					if (flow < n)
						hop[flow] = (uint8_t)hop_of_mac(d);
					got++;
				}
				rte_pktmbuf_free_bulk(out, c);
			}
		}
	}
	return got;
}

static void
count_hops(const uint8_t *hop, unsigned int n, unsigned int *count)
{
	unsigned int k;

	memset(count, 0, sizeof(*count) * 10);
	for (k = 0; k < n; k++)
		count[hop[k]]++;
}

#define NB_FLOWS 4000

/* Flows that differ in one field: the source port, or the destination address. */
enum flow_field { FIELD_SPORT, FIELD_DST };

/* Frames to flow @p k of those differing in @p field alone: IPv4 to NET_WIDE,
 * else IPv6 to 2001:db8:1::/48; flow k has source port 1000 + k, or destination
 * address the prefix's plus k + 1 (source port 1000). */
static size_t
flow_one_field(uint8_t *f, bool v6, enum flow_field field, unsigned int k)
{
	const unsigned int sport = field == FIELD_SPORT ? 1000 + k : 1000;
	const unsigned int host = field == FIELD_DST ? k + 1 : 1;

	if (!v6)
		return ring_rig_udp4(f, 0, host_mac, IP_HOST, NET_WIDE | host, (uint16_t)sport);
	return udp6(f, host, (uint16_t)sport);
}

/*
 * Send flows 0..n-1 of flow_one_field() once each, in bursts, and record in
 * @p hop the next hop each left by (known by its source port or by the last
 * two bytes of its destination). @return the frames that came out (ARP aside).
 */
static unsigned int
send_one_field(bool v6, enum flow_field field, unsigned int n, uint8_t *hop)
{
	const unsigned int l3 = 14, l4 = v6 ? l3 + 40 : l3 + 20;
	const unsigned int dst_low = v6 ? l3 + 8 + 16 + 14 : l3 + 16 + 2;
	struct rte_mbuf *out[64];
	uint8_t f[2048];
	unsigned int k = 0, got = 0, i, c, p;

	while (k < n) {
		for (c = 0; c < 32 && k < n; c++, k++)
			ring_rig_inject(&rig, 0, f, flow_one_field(f, v6, field, k));
		ring_rig_step();
		for (p = 1; p < NB_PORTS; p++) {
			while ((c = ring_rig_drain(&rig, (int)p, out, 64)) > 0) {
				for (i = 0; i < c; i++) {
					const uint8_t *d =
						rte_pktmbuf_mtod(out[i], const uint8_t *);
					unsigned int flow;

					if (d[12] == 0x08 && d[13] == 0x06)
						continue; /* the router's ARP */
					flow = field == FIELD_SPORT
						       ? dp_pkt_get16(d + l4) - 1000u
						       : dp_pkt_get16(d + dst_low) - 1u;
					if (flow < n)
						hop[flow] = (uint8_t)hop_of_mac(d);
					got++;
				}
				rte_pktmbuf_free_bulk(out, c);
			}
		}
	}
	return got;
}

/* ---- the datapath ---- */

/* Weights 1 and 3: a quarter and three quarters of the flows, within 5 points. */
static void
test_ecmp_flows_spread_by_weight(void)
{
	static uint8_t hop[NB_FLOWS];
	unsigned int count[10];

	keep_alive(true);
	memset(hop, 0, sizeof(hop));
	CU_ASSERT_EQUAL(send_flows(NET_W, false, NB_FLOWS, hop), NB_FLOWS);
	count_hops(hop, NB_FLOWS, count);
	EXPECT(count[HOP_A] + count[HOP_B] == NB_FLOWS, "A %u B %u of %u (others %u %u)",
		count[HOP_A], count[HOP_B], NB_FLOWS, count[HOP_NONE], count[HOP_OTHER]);
	EXPECT(count[HOP_A] > NB_FLOWS * 20 / 100 && count[HOP_A] < NB_FLOWS * 30 / 100,
		"weight 1 of 4: %u of %u flows", count[HOP_A], NB_FLOWS);
	EXPECT(count[HOP_B] > NB_FLOWS * 70 / 100 && count[HOP_B] < NB_FLOWS * 80 / 100,
		"weight 3 of 4: %u of %u flows", count[HOP_B], NB_FLOWS);
}

/*
 * Flows that differ in one field alone spread by the weights too, within 5
 * points: the source port only, the destination address only; IPv4 over
 * weights 1 and 3, IPv6 over 1 and 1.
 */
static void
test_ecmp_flows_differing_in_one_field_spread_by_weight(void)
{
	static const struct {
		bool v6;
		enum flow_field field;
		const char *what;
		int first, second; /* the next hops: weights 1 and 3 (IPv4), 1 and 1 */
		unsigned int pct;  /* the first's share of the weights, in percent */
	} cases[] = {
		{ false, FIELD_SPORT, "IPv4, source port only", HOP_A, HOP_B, 25 },
		{ false, FIELD_DST, "IPv4, destination only", HOP_A, HOP_B, 25 },
		{ true, FIELD_SPORT, "IPv6, source port only", HOP_D, HOP_E, 50 },
		{ true, FIELD_DST, "IPv6, destination only", HOP_D, HOP_E, 50 },
	};
	static uint8_t hop[NB_FLOWS];
	unsigned int count[10], first, i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		keep_alive(true);
		memset(hop, 0, sizeof(hop));
		CU_ASSERT_EQUAL(
			send_one_field(cases[i].v6, cases[i].field, NB_FLOWS, hop), NB_FLOWS);
		count_hops(hop, NB_FLOWS, count);
		first = count[cases[i].first];
		EXPECT(first + count[cases[i].second] == NB_FLOWS, "%s: %u and %u of %u",
			cases[i].what, first, count[cases[i].second], NB_FLOWS);
		EXPECT(first * 100 > NB_FLOWS * (cases[i].pct - 5) &&
				first * 100 < NB_FLOWS * (cases[i].pct + 5),
			"%s: the first next hop (%u%% of the weights) took %u of %u flows",
			cases[i].what, cases[i].pct, first, NB_FLOWS);
	}
}

/* Every flow takes the same next hop every time, with its other fields changing. */
static void
test_ecmp_flow_always_takes_same_next_hop(void)
{
	static uint8_t first[NB_FLOWS], again[NB_FLOWS];
	unsigned int round, k, moved = 0;

	keep_alive(true);
	memset(first, 0, sizeof(first));
	CU_ASSERT_EQUAL(send_flows(NET_F, false, NB_FLOWS, first), NB_FLOWS);
	for (round = 0; round < 3; round++) {
		keep_alive(true);
		memset(again, 0, sizeof(again));
		CU_ASSERT_EQUAL(send_flows(NET_F, false, NB_FLOWS, again), NB_FLOWS);
		for (k = 0; k < NB_FLOWS; k++)
			moved += again[k] != first[k];
	}
	EXPECT(moved == 0, "%u flows took another next hop in a later round", moved);
	for (k = 0; k < NB_FLOWS; k++)
		if (first[k] != HOP_A && first[k] != HOP_B && first[k] != HOP_C)
			break;
	EXPECT(k == NB_FLOWS, "flow %u left by hop %u", k, k < NB_FLOWS ? first[k] : 0);
}

/* /dpfwd/route/list (dpctl route list) of 198.18.2.0/24 while A is down: the route as
 * its route file line, and the group's next hops with their weights and state. */
static void
list_shows_group_down(void)
{
	static const char *const want[] = {
		"via 198.18.101.2 port 1 weight 1 down (0 of 256 buckets)",
		"via 198.18.102.2 port 2 weight 1 live",
		"via 198.18.101.3 port 1 weight 1 live",
	};
	static const char want_route[] = "198.18.2.0/24 via 198.18.101.2 port 1 weight 1 via "
					 "198.18.102.2 port 2 weight 1 via 198.18.101.3 port 1 "
					 "weight 1 # ecmp group ";
	json_t *res = NULL, *routes, *groups;
	char err[256] = "";
	const char *route;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(dp_telemetry_action_run(
				      "/dpfwd/route/list", "198.18.2.0/24", &res, err, sizeof(err)),
		0);
	routes = json_object_get(res, "routes");
	groups = json_object_get(res, "groups");
	CU_ASSERT_FATAL(json_array_size(routes) == 1 && json_array_size(groups) == 3);
	route = json_string_value(json_array_get(routes, 0));
	if (route == NULL)
		route = "(none)";
	EXPECT(strncmp(route, want_route, strlen(want_route)) == 0, "route line '%s'", route);
	for (i = 0; i < DP_ARRAY_SIZE(want); i++) {
		const char *g = json_string_value(json_array_get(groups, i));

		if (g == NULL)
			g = "(none)";
		EXPECT(strstr(g, want[i]) != NULL, "group line %u '%s' lacks '%s'", i, g, want[i]);
	}
	json_decref(res);
}

/*
 * Next hop A's neighbor fails (its probes go unanswered): A's flows move to B
 * and C, B's and C's stay where they were; A is asked again while down, and
 * once it answers, its flows come back and nothing else moves.
 */
static void
test_ecmp_failed_next_hop_moves_only_its_flows_and_they_return(void)
{
	static uint8_t before[NB_FLOWS], during[NB_FLOWS], after[NB_FLOWS];
	const int32_t a = neigh_of(IP_A, 1);
	unsigned int count[10], k, i, moved_other = 0, to_a = 0, back = 0;
	unsigned int asked = 0;
	struct rte_mbuf *out[64];
	char line[160];
	unsigned int c;
	uint32_t group;

	CU_ASSERT_FATAL(a > 0);
	group = dp_fwd_lookup4(NET_F | 1);
	CU_ASSERT_FATAL(group < dp_fwd.nb_nh && (dp_fwd.nh[group].flags & DP_FWD_NH_F_GROUP));
	keep_alive(true);
	memset(before, 0, sizeof(before));
	CU_ASSERT_EQUAL(send_flows(NET_F, false, NB_FLOWS, before), NB_FLOWS);
	count_hops(before, NB_FLOWS, count);
	CU_ASSERT(count[HOP_A] > 0 && count[HOP_B] > 0 && count[HOP_C] > 0);

	/* A silent, B and C answering: A fails after its probes */
	for (i = 0; i < 100 && !dp_neigh_is_down((uint32_t)a); i++) {
		sleep_ms(50);
		keep_alive(false);
		for (k = 1; k < NB_PORTS; k++)
			ring_rig_drain_free(&rig, (int)k);
	}
	CU_ASSERT_FATAL(dp_neigh_is_down((uint32_t)a));
	CU_ASSERT(dp_fwd_group_member_format(group, 0, line, sizeof(line)) > 0);
	EXPECT(strstr(line, "198.18.101.2 port 1 weight 1 down") != NULL, "member 0: '%s'", line);
	CU_ASSERT(dp_fwd_group_member_format(group, 1, line, sizeof(line)) > 0);
	EXPECT(strstr(line, "198.18.102.2 port 2 weight 1 live") != NULL, "member 1: '%s'", line);
	list_shows_group_down();

	memset(during, 0, sizeof(during));
	CU_ASSERT_EQUAL(send_flows(NET_F, false, NB_FLOWS, during), NB_FLOWS);
	for (k = 0; k < NB_FLOWS; k++) {
		to_a += during[k] == HOP_A;
		if (before[k] != HOP_A)
			moved_other += during[k] != before[k];
	}
	EXPECT(to_a == 0, "%u flows still to the failed next hop", to_a);
	EXPECT(moved_other == 0, "%u flows of live next hops moved", moved_other);
	count_hops(during, NB_FLOWS, count);
	/* A's third went to both others: each now has more than its own third */
	EXPECT(count[HOP_B] > NB_FLOWS * 40 / 100 && count[HOP_C] > NB_FLOWS * 40 / 100,
		"after A failed: B %u C %u of %u", count[HOP_B], count[HOP_C], NB_FLOWS);

	/* while down, A is asked again (no packet goes to it to make that happen) */
	for (i = 0; i < 40 && asked == 0; i++) {
		sleep_ms(50);
		keep_alive(false);
		while ((c = ring_rig_drain(&rig, 1, out, 64)) > 0) {
			for (k = 0; k < c; k++) {
				const uint8_t *d = rte_pktmbuf_mtod(out[k], const uint8_t *);

				asked += d[12] == 0x08 && d[13] == 0x06 && d[21] == 1 &&
					 dp_pkt_get32(d + 38) == IP_A;
			}
			rte_pktmbuf_free_bulk(out, c);
		}
	}
	EXPECT(asked > 0, "the failed next hop was not asked again");

	/* A answers: its flows come back */
	keep_alive(true);
	CU_ASSERT_FALSE(dp_neigh_is_down((uint32_t)a));
	memset(after, 0, sizeof(after));
	CU_ASSERT_EQUAL(send_flows(NET_F, false, NB_FLOWS, after), NB_FLOWS);
	for (k = 0; k < NB_FLOWS; k++)
		back += after[k] == before[k];
	EXPECT(back == NB_FLOWS, "%u of %u flows on their next hop after recovery", back, NB_FLOWS);
}

/* Port 2's link goes down: next hop B (behind it) is skipped, its flows take A;
 * A's flows stay; when the link is back, B's flows return. */
static void
test_ecmp_link_down_skips_next_hop_until_up(void)
{
	static uint8_t before[NB_FLOWS], during[NB_FLOWS], after[NB_FLOWS];
	const uint16_t pid = dp_ports[2].port_id;
	unsigned int k, i, moved_a = 0, to_b = 0, back = 0;

	keep_alive(true);
	memset(before, 0, sizeof(before));
	CU_ASSERT_EQUAL(send_flows(NET_W, false, NB_FLOWS, before), NB_FLOWS);
	CU_ASSERT_EQUAL_FATAL(rte_eth_dev_set_link_down(pid), 0);
	/* the control lcore's link poll (every 10 ms) sees it */
	for (i = 0; i < 50 && __atomic_load_n(&dp_port_up[pid], __ATOMIC_RELAXED); i++) {
		sleep_ms(10);
		ring_rig_step();
	}
	CU_ASSERT_FALSE(__atomic_load_n(&dp_port_up[pid], __ATOMIC_RELAXED));
	memset(during, 0, sizeof(during));
	CU_ASSERT_EQUAL(send_flows(NET_W, false, NB_FLOWS, during), NB_FLOWS);
	for (k = 0; k < NB_FLOWS; k++) {
		to_b += during[k] == HOP_B;
		moved_a += before[k] == HOP_A && during[k] != HOP_A;
	}
	EXPECT(to_b == 0, "%u flows to the next hop whose link is down", to_b);
	EXPECT(moved_a == 0, "%u flows of the live next hop moved", moved_a);
	CU_ASSERT_EQUAL_FATAL(rte_eth_dev_set_link_up(pid), 0);
	for (i = 0; i < 50 && !__atomic_load_n(&dp_port_up[pid], __ATOMIC_RELAXED); i++) {
		sleep_ms(10);
		ring_rig_step();
	}
	CU_ASSERT_TRUE(__atomic_load_n(&dp_port_up[pid], __ATOMIC_RELAXED));
	keep_alive(true);
	memset(after, 0, sizeof(after));
	CU_ASSERT_EQUAL(send_flows(NET_W, false, NB_FLOWS, after), NB_FLOWS);
	for (k = 0; k < NB_FLOWS; k++)
		back += after[k] == before[k];
	EXPECT(back == NB_FLOWS, "%u of %u flows on their next hop after the link came back", back,
		NB_FLOWS);
}

/* IPv6: two static neighbors, weight 1 each: about half each, every flow sticks. */
static void
test_ecmp_ip6_flows_spread_and_stick(void)
{
	static uint8_t hop[NB_FLOWS], again[NB_FLOWS];
	unsigned int count[10], k, moved = 0;

	memset(hop, 0, sizeof(hop));
	CU_ASSERT_EQUAL(send_flows(0, true, NB_FLOWS, hop), NB_FLOWS);
	count_hops(hop, NB_FLOWS, count);
	EXPECT(count[HOP_D] + count[HOP_E] == NB_FLOWS, "D %u E %u of %u", count[HOP_D],
		count[HOP_E], NB_FLOWS);
	EXPECT(count[HOP_D] > NB_FLOWS * 45 / 100 && count[HOP_D] < NB_FLOWS * 55 / 100,
		"weight 1 of 2: %u of %u flows", count[HOP_D], NB_FLOWS);
	memset(again, 0, sizeof(again));
	CU_ASSERT_EQUAL(send_flows(0, true, NB_FLOWS, again), NB_FLOWS);
	for (k = 0; k < NB_FLOWS; k++)
		moved += again[k] != hop[k];
	EXPECT(moved == 0, "%u IPv6 flows moved", moved);
}

/* The flow's hash: the NIC's RSS hash when given; the 5-tuple's; the addresses'
 * for a fragment (whose ports, if any, are not looked at). */
static void
test_ecmp_flow_hash_rss_tuple_and_fragments(void)
{
	uint8_t f[2048];
	size_t len = flow4(f, NET_W, 7);
	struct rte_mbuf *m1 = ring_rig_mbuf(0, f, len), *m2, *m3, *m4;
	uint8_t *ip;

	CU_ASSERT_FATAL(m1 != NULL);
	/* same flow, other identification and TTL: same hash */
	ip = f + 14;
	dp_pkt_put16(ip + 4, 0x1234);
	ip[8] = 33;
	m2 = ring_rig_mbuf(0, f, len);
	/* other source port: (almost surely) another hash */
	dp_pkt_put16(ip + 20, 4444);
	m3 = ring_rig_mbuf(0, f, len);
	/* a first fragment (MF) of that datagram with yet another port: the addresses' hash */
	dp_pkt_put16(ip + 6, 0x2000);
	dp_pkt_put16(ip + 20, 5555);
	m4 = ring_rig_mbuf(0, f, len);
	CU_ASSERT_FATAL(m2 != NULL && m3 != NULL && m4 != NULL);
	CU_ASSERT_EQUAL(dp_fwd_flow_hash4(m1), dp_fwd_flow_hash4(m2));
	CU_ASSERT_NOT_EQUAL(dp_fwd_flow_hash4(m1), dp_fwd_flow_hash4(m3));
	dp_pkt_put16(ip + 20, 6666);
	rte_pktmbuf_free(m3);
	m3 = ring_rig_mbuf(0, f, len);
	CU_ASSERT_FATAL(m3 != NULL);
	CU_ASSERT_EQUAL(dp_fwd_flow_hash4(m3), dp_fwd_flow_hash4(m4));
	CU_ASSERT_NOT_EQUAL(dp_fwd_flow_hash4(m4), dp_fwd_flow_hash4(m1));
	/* the NIC's hash wins */
	m1->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	m1->hash.rss = 0xdeadbeef;
	CU_ASSERT_EQUAL(dp_fwd_flow_hash4(m1), 0xdeadbeef);
	rte_pktmbuf_free(m1);
	rte_pktmbuf_free(m2);
	rte_pktmbuf_free(m3);
	rte_pktmbuf_free(m4);
}

/* A packet that reaches ip4_output with a group as its next hop (the control
 * lcore's, another node's) leaves by the member of its flow, as ip4_fwd sends it. */
static void
test_ecmp_output_picks_member_for_group_next_hop(void)
{
	struct rte_mbuf *out[64];
	uint8_t f[2048], hop[8];
	const uint32_t group = dp_fwd_lookup4(NET_W | 1);
	struct rte_graph *graph = rte_graph_lookup("worker-1");
	struct rte_node *out4 = rte_graph_node_get_by_name("worker-1", "ip4_output");
	struct rte_mbuf *m;
	unsigned int n = 0, p, c;
	int want;

	keep_alive(true);
	memset(hop, 0, sizeof(hop));
	CU_ASSERT_FATAL(send_flows(NET_W, false, 1, hop) == 1);
	want = hop[0];
	m = ring_rig_mbuf(0, f, flow4(f, NET_W, 0));
	CU_ASSERT_FATAL(m != NULL && graph != NULL && out4 != NULL);
	dp_mbuf_meta(m, dp_mbuf_meta_offset)->nh = group;
	/* in the node's own stream, its function called as a walk calls it; the
	 * next walk sends what it passed on */
	out4->objs[0] = m;
	out4->idx = 1;
	CU_ASSERT_EQUAL(out4->process(graph, out4, out4->objs, 1), 1);
	out4->idx = 0;
	ring_rig_step();
	for (p = 1; p < NB_PORTS; p++) {
		while ((c = ring_rig_drain(&rig, (int)p, out, 64)) > 0) {
			unsigned int i;

			for (i = 0; i < c; i++) {
				const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);

				if (d[12] == 0x08 && d[13] == 0x00) {
					EXPECT(hop_of_mac(d) == want,
						"left by %d, ip4_fwd sent by %d", hop_of_mac(d),
						want);
					n++;
				}
			}
			rte_pktmbuf_free_bulk(out, c);
		}
	}
	CU_ASSERT_EQUAL(n, 1);
}

/* ---- routes: the parser, route add ---- */

struct bad_route {
	const char *line;
	const char *why;
};

static const struct bad_route bad_routes[] = {
	{ "198.18.5.0/24 via 198.18.101.2 port 1 weight 0 via 198.18.102.2 port 2",
		"bad weight '0' of next hop 198.18.101.2" },
	{ "198.18.5.0/24 via 198.18.101.2 port 1 via 198.18.102.2 port 2 weight 256",
		"bad weight '256' of next hop 198.18.102.2" },
	{ "198.18.5.0/24 via 198.18.101.2 port 1 via 198.18.102.2 port 2 via 198.18.101.2 port 1",
		"next hop 198.18.101.2 port 1 twice" },
	{ "2001:db8:5::/48 via 2001:db8:101::2 port 1 weight 0 via 2001:db8:102::2 port 2",
		"bad weight '0' of next hop 2001:db8:101::2" },
	{ "2001:db8:5::/48 via 2001:db8:101::2 port 1 via 2001:db8:101::2 port 1",
		"next hop 2001:db8:101::2 port 1 twice" },
	{ "198.18.5.0/24 via 198.18.101.2 port 1 via 198.18.102.2 port 2 weight",
		"bad weight '' of next hop 198.18.102.2" },
	{ "198.18.5.0/24 via 198.18.101.2 port 1 via 2001:db8::2 port 2",
		"bad gateway '198.18.101.2' (expected an IPv6 address: one family per route)" },
};

/* 17 next hops: 10.0.0.1 .. 10.0.0.17 on port 1 */
static void
seventeen(char *buf, size_t len, bool v6)
{
	size_t n = (size_t)snprintf(buf, len, v6 ? "2001:db8:5::/48" : "198.18.5.0/24");
	unsigned int i;

	for (i = 1; i <= DP_FWD_ECMP_MAX + 1; i++)
		n += (size_t)snprintf(buf + n, len - n,
			v6 ? " via 2001:db8:101::%u port 1" : " via 10.0.0.%u port 1", i);
}

static void
test_ecmp_route_parse_good(void)
{
	struct dp_fwd_config_route4 r;
	struct dp_fwd_config_route6 r6;
	struct dp_fwd_config_paths paths;
	char err[DP_CONFIG_ERR_LEN] = "", line[1024];
	size_t n;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(dp_fwd_config_route4_parse_paths(
				      "198.18.5.0/24 via 198.18.101.2 port 1 weight 2 via "
				      "198.18.102.2 port 2",
				      &r, &paths, err, sizeof(err)),
		0);
	CU_ASSERT_EQUAL(r.prefix, 0xc6120500u);
	CU_ASSERT_EQUAL(r.plen, 24);
	CU_ASSERT_PTR_EQUAL(r.paths, &paths);
	CU_ASSERT_EQUAL(paths.nb, 2);
	CU_ASSERT(paths.p[0].gw == IP_A && paths.p[0].port == 1 && paths.p[0].weight == 2);
	CU_ASSERT(paths.p[1].gw == IP_B && paths.p[1].port == 2 && paths.p[1].weight == 1);
	CU_ASSERT(r.has_gw && r.gw == IP_A && r.port == 1);

	/* one next hop, with a weight: a plain route */
	CU_ASSERT_EQUAL(dp_fwd_config_route4_parse_paths("198.18.5.0/24 via 198.18.101.2 port 1 "
							 "weight 9",
				&r, &paths, err, sizeof(err)),
		0);
	CU_ASSERT_PTR_NULL(r.paths);
	CU_ASSERT(r.has_gw && r.gw == IP_A && r.port == 1);

	/* 16 next hops, IPv6, weight 255 */
	n = (size_t)snprintf(line, sizeof(line), "2001:db8:5::/48");
	for (i = 1; i <= DP_FWD_ECMP_MAX; i++)
		n += (size_t)snprintf(
			line + n, sizeof(line) - n, " via 2001:db8:101::%x port 1 weight 255", i);
	CU_ASSERT_EQUAL_FATAL(
		dp_fwd_config_route6_parse_paths(line, &r6, &paths, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(paths.nb, DP_FWD_ECMP_MAX);
	CU_ASSERT_EQUAL(paths.p[15].weight, 255);
	CU_ASSERT_EQUAL(paths.p[15].gw6[15], 0x10);
	CU_ASSERT_PTR_EQUAL(r6.paths, &paths);

	/* where one next hop is all there may be (the plain parser) */
	CU_ASSERT_EQUAL(dp_fwd_config_route4_parse("198.18.5.0/24 via 198.18.101.2 port 1 via "
						   "198.18.102.2 port 2",
				&r, err, sizeof(err)),
		-EINVAL);
	EXPECT(strstr(err, "several next hops") != NULL, "error '%s'", err);
}

/* Every bad route in a route file: its error names the file and the line. */
static void
test_ecmp_route_file_errors_name_file_and_line(void)
{
	char dir[] = "/tmp/dpfwd-test-ecmp-routes-XXXXXX";
	char path[PATH_MAX], text[2048], want[PATH_MAX + 64];
	char err[DP_CONFIG_ERR_LEN];
	unsigned int i, cases = DP_ARRAY_SIZE(bad_routes) + 2;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	for (i = 0; i < cases; i++) {
		struct dp_config cfg;
		const char *why;
		char route[1024];
		int rc;

		if (i < DP_ARRAY_SIZE(bad_routes)) {
			snprintf(route, sizeof(route), "%s", bad_routes[i].line);
			why = bad_routes[i].why;
		} else {
			seventeen(route, sizeof(route), i == cases - 1);
			why = "more than 16 next hops";
		}
		/* the bad route on line 3 */
		snprintf(text, sizeof(text),
			"# routes\n198.18.6.0/24 via 198.18.101.2 port 1 via 198.18.102.2 port "
			"2\n%s\n198.18.7.0/24 port 1\n",
			route);
		dp_test_write_file(dir, "routes.txt", text, path, sizeof(path));
		dp_config_init(&cfg);
		err[0] = '\0';
		rc = dp_fwd_config_route_file_load(&cfg, path, err, sizeof(err));
		EXPECT(rc == -EINVAL, "'%s': rc %d", route, rc);
		snprintf(want, sizeof(want), "%s:3: ", path);
		EXPECT(strncmp(err, want, strlen(want)) == 0, "'%s': error '%s' not at %s", route,
			err, want);
		EXPECT(strstr(err, why) != NULL, "'%s': error '%s' lacks '%s'", route, err, why);
		dp_config_free(&cfg);
	}
	unlink(path);
	rmdir(dir);
}

/* A config's ECMP route to a port it does not define: the route's line. */
static void
test_ecmp_route_to_undefined_port_names_config_line(void)
{
	char dir[] = "/tmp/dpfwd-test-ecmp-cfg-XXXXXX";
	char path[PATH_MAX], want[PATH_MAX + 64], err[DP_CONFIG_ERR_LEN] = "";
	struct dp_config cfg;
	int rc;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	dp_test_write_file(dir, "ecmp.ini",
		"[port0]\n"
		"dev = net_null0\n"
		"[port1]\n"
		"dev = net_null1\n"
		"[lcores]\n"
		"rx = (0,0,1), (1,0,1)\n"
		"[routes]\n"
		"route = 198.18.5.0/24 via 198.18.101.2 port 1 via 198.18.102.2 port 2\n",
		path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	if (rc == 0)
		rc = dp_config_validate(&cfg, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	snprintf(want, sizeof(want), "%s:8: route to port 2, which is not defined", path);
	EXPECT(strstr(err, want) != NULL, "error '%s' lacks '%s'", err, want);
	dp_config_free(&cfg);
	unlink(path);
	rmdir(dir);
}

/* route add (dpctl's, /dpfwd/route/add's): ECMP routes go in and work, and the
 * parser's errors come back. */
static void
test_ecmp_route_add_and_its_errors(void)
{
	static uint8_t hop[1000];
	char err[256], line[1024];
	unsigned int count[10], i;
	uint32_t nh;

	keep_alive(true);
	/* the same next hops and weights as 198.18.1.0/24: the same group */
	CU_ASSERT_EQUAL_FATAL(ring_rig_route(true,
				      "198.18.8.0/24 via 198.18.101.2 port 1 weight 1 via "
				      "198.18.102.2 port 2 weight 3",
				      err, sizeof(err)),
		0);
	nh = dp_fwd_lookup4(0xc6120801);
	CU_ASSERT_EQUAL(nh, dp_fwd_lookup4(NET_W | 1));
	/* other weights: another group, which the flows follow */
	CU_ASSERT_EQUAL_FATAL(ring_rig_route(true,
				      "198.18.8.0/24 via 198.18.101.2 port 1 weight 1 via "
				      "198.18.102.2 port 2 weight 1",
				      err, sizeof(err)),
		0);
	nh = dp_fwd_lookup4(0xc6120801);
	CU_ASSERT(nh != dp_fwd_lookup4(NET_W | 1) && (dp_fwd.nh[nh].flags & DP_FWD_NH_F_GROUP));
	memset(hop, 0, sizeof(hop));
	CU_ASSERT_EQUAL(send_flows(0xc6120800, false, 1000, hop), 1000);
	count_hops(hop, 1000, count);
	EXPECT(count[HOP_A] > 400 && count[HOP_B] > 400 && count[HOP_A] + count[HOP_B] == 1000,
		"A %u B %u", count[HOP_A], count[HOP_B]);
	for (i = 0; i < DP_ARRAY_SIZE(bad_routes); i++) {
		err[0] = '\0';
		EXPECT(ring_rig_route(true, bad_routes[i].line, err, sizeof(err)) == -EINVAL,
			"'%s' added", bad_routes[i].line);
		EXPECT(strstr(err, bad_routes[i].why) != NULL, "'%s': error '%s' lacks '%s'",
			bad_routes[i].line, err, bad_routes[i].why);
	}
	seventeen(line, sizeof(line), false);
	CU_ASSERT_EQUAL(ring_rig_route(true, line, err, sizeof(err)), -EINVAL);
	EXPECT(strstr(err, "more than 16 next hops") != NULL, "error '%s'", err);
	CU_ASSERT_EQUAL(ring_rig_route(true,
				"198.18.9.0/24 via 198.18.101.2 port 1 via 198.18.102.2 port 7",
				err, sizeof(err)),
		-EINVAL);
	EXPECT(strstr(err, "port 7 does not exist") != NULL, "error '%s'", err);
	CU_ASSERT_EQUAL(ring_rig_route(false, "198.18.8.0/24", err, sizeof(err)), 0);
}

static const struct dp_test tests[] = {
	{ "test_ecmp_route_parse_good", test_ecmp_route_parse_good },
	{ "test_ecmp_route_file_errors_name_file_and_line",
		test_ecmp_route_file_errors_name_file_and_line },
	{ "test_ecmp_route_to_undefined_port_names_config_line",
		test_ecmp_route_to_undefined_port_names_config_line },
	{ "test_ecmp_flow_hash_rss_tuple_and_fragments",
		test_ecmp_flow_hash_rss_tuple_and_fragments },
	{ "test_ecmp_flows_spread_by_weight", test_ecmp_flows_spread_by_weight },
	{ "test_ecmp_flows_differing_in_one_field_spread_by_weight",
		test_ecmp_flows_differing_in_one_field_spread_by_weight },
	{ "test_ecmp_flow_always_takes_same_next_hop", test_ecmp_flow_always_takes_same_next_hop },
	{ "test_ecmp_ip6_flows_spread_and_stick", test_ecmp_ip6_flows_spread_and_stick },
	{ "test_ecmp_output_picks_member_for_group_next_hop",
		test_ecmp_output_picks_member_for_group_next_hop },
	{ "test_ecmp_failed_next_hop_moves_only_its_flows_and_they_return",
		test_ecmp_failed_next_hop_moves_only_its_flows_and_they_return },
	{ "test_ecmp_link_down_skips_next_hop_until_up",
		test_ecmp_link_down_skips_next_hop_until_up },
	{ "test_ecmp_route_add_and_its_errors", test_ecmp_route_add_and_its_errors },
	{ NULL, NULL },
};

int
main(void)
{
	return ring_rig_run(&rig, "ecmp", tests);
}
