/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbors and ARP, end to end in one process: two net_ring ports, the real
 * worker graph walked on the test thread, and the control lcore's work run by
 * calling dp_ctl_poll() in between, as dp_run_loop() does. Frames go in as
 * bytes and are checked as bytes when they come out.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_graph_worker.h>
#include <rte_ring.h>

#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_run.h"
#include "dp_test.h"
#include "ring_rig.h"

#define NB_PORTS 2

/* a host on port0's subnet, and the gateway of 198.18.1.0/24 on port1 */
static const uint8_t host_mac[6] = { 0x02, 0x11, 0, 0, 0, 0x02 };
static const uint8_t gw_mac[6] = { 0x02, 0x22, 0, 0, 0, 0x02 };
static const uint8_t gw_mac2[6] = { 0x02, 0x22, 0, 0, 0, 0x99 };
#define IP_PORT0 0xc6120001u                                    /* 198.18.0.1 */
#define IP_HOST  0xc6120002u                                    /* 198.18.0.2 */
#define IP_PORT1 0xc6126501u                                    /* 198.18.101.1 */
#define IP_GW    0xc6126502u                                    /* 198.18.101.2 */
static const uint8_t mac7_host[6] = { 0x02, 0x77, 0, 0, 0, 7 }; /* 198.18.0.7, learned */

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "neigh_hold = 3\n"
				  "neigh_retrans_ms = 100\n"
				  "neigh_probes = 2\n"
				  "neigh_failed_ms = 1000\n"
				  "neigh_reachable_ms = 2000\n"
				  "[mempool]\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_n0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "[port1]\n"
				  "dev = net_ring_n1\n"
				  "ip4 = 198.18.101.1/24\n"
				  "[lcores]\n"
				  "rx = (0,0,1), (1,0,1)\n"
				  "[routes]\n"
				  "route = 198.18.1.0/24 via 198.18.101.2 port 1\n";

static struct ring_rig rig = {
	.name = "neigh",
	.prefix = 'n',
	.nb_ports = NB_PORTS,
	.config_text = config_text,
};

static struct dp_worker *
worker(void)
{
	return dp_workers[0];
}

static void
inject(int port, const uint8_t *frame, size_t len)
{
	ring_rig_inject(&rig, port, frame, len);
}

static unsigned int
drain(int port, struct rte_mbuf **out, unsigned int max)
{
	return ring_rig_drain(&rig, port, out, max);
}

static void
drain_free(void)
{
	unsigned int p;

	for (p = 0; p < NB_PORTS; p++)
		ring_rig_drain_free(&rig, (int)p);
}

/*
 * Drain port @p port; count ARP requests for @p tip (a neighbor's probes may
 * go out at any time: other frames are freed unless @p keep takes them).
 */
static unsigned int
requests_for(int port, uint32_t tip, struct rte_mbuf **keep, unsigned int *nkeep)
{
	struct rte_mbuf *out[64];
	unsigned int n, i, c = 0;

	if (nkeep != NULL)
		*nkeep = 0;
	n = drain(port, out, 64);
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);
		uint32_t t;

		memcpy(&t, d + 38, 4);
		if (d[12] == 0x08 && d[13] == 0x06) {
			c += d[21] == 1 && ntohl(t) == tip;
			rte_pktmbuf_free(out[i]);
		} else if (keep != NULL) {
			keep[(*nkeep)++] = out[i];
		} else {
			rte_pktmbuf_free(out[i]);
		}
	}
	return c;
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* An ARP frame as dpfwd must send it: checks every field. */
static void
assert_arp(const struct rte_mbuf *m, uint16_t op, const uint8_t *eth_dst, int port, uint32_t sip,
	const uint8_t *tha, uint32_t tip)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t want[60];

	CU_ASSERT_EQUAL_FATAL(m->pkt_len, 60);
	ring_rig_arp(want, op, eth_dst, dp_ports[port].mac.addr_bytes, sip, tha, tip);
	CU_ASSERT(memcmp(d, want, 60) == 0);
	if (memcmp(d, want, 60) != 0) {
		unsigned int i;

		fprintf(stderr, "\n  got : ");
		for (i = 0; i < 42; i++)
			fprintf(stderr, "%02x", d[i]);
		fprintf(stderr, "\n  want: ");
		for (i = 0; i < 42; i++)
			fprintf(stderr, "%02x", want[i]);
		fprintf(stderr, "\n");
	}
}

/* A UDP packet from a host behind port @p in towards @p dst. */
static size_t
udp_to(uint8_t *buf, int in, uint32_t dst, uint16_t sport)
{
	return ring_rig_udp4(
		buf, in, in == 0 ? host_mac : gw_mac, in == 0 ? IP_HOST : 0xc6120107, dst, sport);
}

static int32_t
neigh_of(uint32_t ip, uint16_t port)
{
	uint32_t be = htonl(ip);

	return dp_neigh_get(4, (const uint8_t *)&be, port, false);
}

static bool
resolved_to(int32_t nh, const uint8_t *mac)
{
	const struct dp_fwd_nh *e = &dp_fwd.nh[nh];

	return (e->flags & DP_FWD_NH_F_RESOLVED) && memcmp(&e->l2.dst_addr, mac, 6) == 0;
}

static void
test_neigh_announces_each_address(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	struct rte_mbuf *out[8];
	unsigned int n;

	CU_ASSERT_EQUAL(dp_arp_announce(), 2);
	ring_rig_step();
	n = drain(0, out, 8);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	assert_arp(out[0], 1, bcast, 0, IP_PORT0, zero, IP_PORT0);
	rte_pktmbuf_free_bulk(out, n);
	n = drain(1, out, 8);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	assert_arp(out[0], 1, bcast, 1, IP_PORT1, zero, IP_PORT1);
	rte_pktmbuf_free_bulk(out, n);
}

static void
test_neigh_answers_arp_for_own_address_and_learns_sender(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	struct rte_mbuf *out[8];
	uint8_t f[60];
	unsigned int n;
	int32_t nh;

	inject(0, f, ring_rig_arp(f, 1, bcast, host_mac, IP_HOST, zero, IP_PORT0));
	ring_rig_step();
	n = drain(0, out, 8);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	assert_arp(out[0], 2, host_mac, 0, IP_PORT0, host_mac, IP_HOST);
	rte_pktmbuf_free_bulk(out, n);
	CU_ASSERT_EQUAL(drain(1, out, 8), 0);
	/* RFC 826: a request for us creates the sender's entry */
	nh = neigh_of(IP_HOST, 0);
	CU_ASSERT_FATAL(nh > 0);
	CU_ASSERT_TRUE(resolved_to(nh, host_mac));
}

static void
test_neigh_ignores_and_counts_other_arp(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	uint64_t bad = dp_graph_drops(DP_DROP_ARP_BAD);
	uint64_t other = dp_graph_drops(DP_DROP_ARP_NOT_FOR_US);
	struct rte_mbuf *out[8];
	uint8_t f[60];
	size_t len;

	/* for another address: no reply, no entry for a stranger */
	inject(0, f, ring_rig_arp(f, 1, bcast, gw_mac2, 0xc6120063, zero, 0xc6120064));
	/* hardware length 8, protocol type IPv6, opcode 7: malformed */
	len = ring_rig_arp(f, 1, bcast, host_mac, IP_HOST, zero, IP_PORT0);
	f[18] = 8;
	inject(0, f, len);
	len = ring_rig_arp(f, 1, bcast, host_mac, IP_HOST, zero, IP_PORT0);
	f[16] = 0x86;
	f[17] = 0xdd;
	inject(0, f, len);
	inject(0, f, ring_rig_arp(f, 7, bcast, host_mac, IP_HOST, zero, IP_PORT0));
	/* truncated */
	ring_rig_arp(f, 1, bcast, host_mac, IP_HOST, zero, IP_PORT0);
	inject(0, f, 30);
	ring_rig_step();
	CU_ASSERT_EQUAL(drain(0, out, 8) + drain(1, out, 8), 0);
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_ARP_NOT_FOR_US) - other, 1);
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_ARP_BAD) - bad, 4);
	CU_ASSERT_TRUE(neigh_of(0xc6120063, 0) < 0);
}

/*
 * A route through a gateway with no MAC: the first packets are held (the
 * newest neigh_hold of them), one broadcast request goes out; the reply
 * releases them in order, rewritten as ip4_output would have; later packets
 * take the fast path without the control lcore.
 */
static void
test_neigh_resolves_gateway_and_releases_held_packets(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	uint64_t full = dp_graph_drops(DP_DROP_NEIGH_HOLD_FULL);
	struct rte_mbuf *out[16];
	uint8_t f[2048], sent[5][128];
	uint64_t punted;
	unsigned int n, i;
	size_t len = 0;
	int32_t nh;

	for (i = 0; i < 5; i++) {
		len = udp_to(f, 0, 0xc6120105, (uint16_t)(100 + i));
		memcpy(sent[i], f, len);
		inject(0, f, len);
	}
	ring_rig_step();
	n = drain(1, out, 16);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	assert_arp(out[0], 1, bcast, 1, IP_PORT1, zero, IP_GW);
	rte_pktmbuf_free_bulk(out, n);
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_NEIGH_HOLD_FULL) - full, 2);
	nh = neigh_of(IP_GW, 1);
	CU_ASSERT_FATAL(nh > 0);
	CU_ASSERT_FALSE(resolved_to(nh, gw_mac));

	/* the reply, to port1's MAC */
	inject(1, f,
		ring_rig_arp(f, 2, dp_ports[1].mac.addr_bytes, gw_mac, IP_GW,
			dp_ports[1].mac.addr_bytes, IP_PORT1));
	ring_rig_step();
	CU_ASSERT_TRUE(resolved_to(nh, gw_mac));
	n = drain(1, out, 16);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	for (i = 0; i < n; i++) {
		const uint8_t *g = rte_pktmbuf_mtod(out[i], const uint8_t *);
		const uint8_t *e = sent[2 + i]; /* the oldest two were dropped */

		CU_ASSERT_EQUAL(out[i]->pkt_len, len);
		CU_ASSERT(memcmp(g, gw_mac, 6) == 0);
		CU_ASSERT(memcmp(g + 6, &dp_ports[1].mac, 6) == 0);
		CU_ASSERT_EQUAL(g[14 + 8], e[14 + 8] - 1);
		CU_ASSERT_TRUE(dp_pkt_ipv4_hdr_cksum_ok(g + 14));
		CU_ASSERT(memcmp(g + 12, e + 12, 14 + 8 - 12) == 0);
		CU_ASSERT(memcmp(g + 14 + 12, e + 14 + 12, len - 26) == 0);
	}
	rte_pktmbuf_free_bulk(out, n);

	/* now the fast path: nothing is punted */
	punted = worker()->stats.punted;
	inject(0, f, udp_to(f, 0, 0xc6120106, 200));
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
	CU_ASSERT_EQUAL(worker()->stats.punted, punted);
	n = drain(1, out, 16);
	CU_ASSERT_EQUAL(n, 1);
	if (n == 1)
		CU_ASSERT(memcmp(rte_pktmbuf_mtod(out[0], const uint8_t *), gw_mac, 6) == 0);
	rte_pktmbuf_free_bulk(out, n);

	/* an announcement with a new MAC moves the neighbor at once */
	inject(1, f, ring_rig_arp(f, 1, bcast, gw_mac2, IP_GW, zero, IP_GW));
	ring_rig_step();
	CU_ASSERT_TRUE(resolved_to(nh, gw_mac2));
	inject(0, f, udp_to(f, 0, 0xc6120106, 201));
	ring_rig_step();
	n = drain(1, out, 16);
	CU_ASSERT_EQUAL(n, 1);
	if (n == 1)
		CU_ASSERT(memcmp(rte_pktmbuf_mtod(out[0], const uint8_t *), gw_mac2, 6) == 0);
	rte_pktmbuf_free_bulk(out, n);
}

/* A host on a connected subnet gets its own neighbor entry, by destination. */
static void
test_neigh_connected_host_is_resolved_by_destination(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	const uint8_t *mac7 = mac7_host;
	struct rte_mbuf *out[8];
	uint8_t f[2048];
	unsigned int n;

	inject(1, f, udp_to(f, 1, 0xc6120007, 300)); /* 198.18.0.7 */
	ring_rig_step();
	n = drain(0, out, 8);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	assert_arp(out[0], 1, bcast, 0, IP_PORT0, zero, 0xc6120007);
	rte_pktmbuf_free_bulk(out, n);
	inject(0, f,
		ring_rig_arp(f, 2, dp_ports[0].mac.addr_bytes, mac7, 0xc6120007,
			dp_ports[0].mac.addr_bytes, IP_PORT0));
	ring_rig_step();
	requests_for(0, 0, out, &n);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(out[0], const uint8_t *), mac7, 6) == 0);
	rte_pktmbuf_free_bulk(out, n);
	/* the next one goes without the control lcore (neighbor hash on the worker) */
	n = (unsigned int)worker()->stats.punted;
	inject(1, f, udp_to(f, 1, 0xc6120007, 301));
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
	CU_ASSERT_EQUAL(worker()->stats.punted, n);
	requests_for(0, 0, out, &n);
	CU_ASSERT_EQUAL(n, 1);
	rte_pktmbuf_free_bulk(out, n);
}

/*
 * The host resolved in the test before has its adjacency: the lookup gives
 * its own next hop, so ip4_fwd sends to it (ip4_output sees none of its
 * packets). A route more specific than the subnet takes the host's packets
 * and the adjacency goes; deleting that route brings it back. The adjacency
 * is not a route to delete.
 */
static void
test_neigh_resolved_host_gets_an_adjacency(void)
{
	const int32_t host = neigh_of(0xc6120007, 0), gw = neigh_of(IP_GW, 1);
	struct rte_node *out4 = rte_graph_node_get_by_name("worker-1", "ip4_output");
	struct rte_mbuf *out[8];
	uint64_t via_output;
	uint8_t f[2048];
	char err[256] = "";
	unsigned int n;

	const uint32_t routes0 = DP_FWD_IP4_ROUTES(), adj0 = dp_fwd.ip4.nb_adj;

	CU_ASSERT_FATAL(host > 0 && gw > 0);
	CU_ASSERT_FATAL(out4 != NULL);
	CU_ASSERT(adj0 >= 1);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xc6120007), (uint32_t)host);
	/* the subnet's other hosts still go by the connected route */
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xc6120008), dp_fwd.connected4[0]);
	via_output = out4->total_objs;
	inject(1, f, udp_to(f, 1, 0xc6120007, 302));
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
	CU_ASSERT_EQUAL(out4->total_objs, via_output);
	n = drain(0, out, 8);
	CU_ASSERT_EQUAL(n, 1);
	if (n == 1)
		CU_ASSERT(memcmp(rte_pktmbuf_mtod(out[0], const uint8_t *), mac7_host, 6) == 0);
	rte_pktmbuf_free_bulk(out, n);

	/* a more specific route wins: the host's packets follow it */
	CU_ASSERT_EQUAL(
		ring_rig_route(true, "198.18.0.4/30 via 198.18.101.2 port 1", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xc6120007), (uint32_t)gw);
	CU_ASSERT(!(dp_fwd.nh[host].flags & DP_FWD_NH_F_ADJ));
	/* counted as routes apart */
	CU_ASSERT_EQUAL(DP_FWD_IP4_ROUTES(), routes0 + 1);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_adj, adj0 - 1);
	CU_ASSERT_EQUAL(ring_rig_route(false, "198.18.0.4/30", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xc6120007), (uint32_t)host);
	CU_ASSERT(dp_fwd.nh[host].flags & DP_FWD_NH_F_ADJ);
	/* not a route */
	CU_ASSERT_EQUAL(ring_rig_route(false, "198.18.0.7/32", err, sizeof(err)), -EINVAL);
	CU_ASSERT(strstr(err, "adjacency") != NULL);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xc6120007), (uint32_t)host);
	/* a /32 the user makes is the user's */
	CU_ASSERT_EQUAL(
		ring_rig_route(true, "198.18.0.7/32 via 198.18.101.2 port 1", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xc6120007), (uint32_t)gw);
	CU_ASSERT_EQUAL(ring_rig_route(false, "198.18.0.7/32", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xc6120007), (uint32_t)host);
	CU_ASSERT_EQUAL(DP_FWD_IP4_ROUTES(), routes0);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_adj, adj0);
}

/* Nobody answers: neigh_probes requests, then the held packet is dropped as
 * failed; while failed, packets are dropped without new requests; after
 * neigh_failed_ms the neighbor may be asked again. */
static void
test_neigh_unanswered_fails_then_retries(void)
{
	uint64_t failed = dp_graph_drops(DP_DROP_NEIGH_FAILED);
	struct rte_mbuf *out[8];
	unsigned int requests = 0, i, n;
	uint8_t f[2048];

	inject(1, f, udp_to(f, 1, 0xc6120009, 400)); /* 198.18.0.9: silent */
	for (i = 0; i < 12; i++) {                   /* 600 ms: retrans 100 ms x 2 probes */
		ring_rig_step();
		requests += requests_for(0, 0xc6120009, NULL, NULL);
		sleep_ms(50);
		if (dp_graph_drops(DP_DROP_NEIGH_FAILED) != failed)
			break;
	}
	CU_ASSERT_EQUAL(requests, 2);
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_NEIGH_FAILED) - failed, 1);
	/* failed: dropped at once, no request */
	inject(1, f, udp_to(f, 1, 0xc6120009, 401));
	ring_rig_step();
	CU_ASSERT_EQUAL(requests_for(0, 0xc6120009, out, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_NEIGH_FAILED) - failed, 2);
	/* after neigh_failed_ms: asked again (the failed state lasts long enough that a
	 * loaded machine's late step above still finds it) */
	sleep_ms(1100);
	ring_rig_step();
	inject(1, f, udp_to(f, 1, 0xc6120009, 402));
	ring_rig_step();
	CU_ASSERT_EQUAL(requests_for(0, 0xc6120009, NULL, NULL), 1);
	/* and fails again (its held packet counted) before the suite goes on */
	for (i = 0; i < 12; i++) {
		sleep_ms(50);
		ring_rig_step();
		requests_for(0, 0, NULL, NULL);
	}
}

static void
test_neigh_subnet_broadcast_is_not_a_neighbor(void)
{
	uint64_t d = dp_graph_drops(DP_DROP_NEIGH_UNRESOLVED);
	struct rte_mbuf *out[8];
	uint8_t f[2048];

	inject(1, f, udp_to(f, 1, 0xc61200ff, 500)); /* 198.18.0.255 */
	ring_rig_step();
	CU_ASSERT_EQUAL(drain(0, out, 8), 0);
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_NEIGH_UNRESOLVED) - d, 1);
}

/* Confirmed neighbors turn stale after neigh_reachable_ms and are probed by
 * unicast; an answer keeps them, silence takes their MAC away. */
static void
test_neigh_reachable_turns_stale_and_is_probed(void)
{
	struct rte_mbuf *out[8];
	int32_t nh = neigh_of(IP_GW, 1);
	unsigned int i, n, probes = 0;

	CU_ASSERT_FATAL(nh > 0);
	drain_free();
	/* stale since the announcement; probed after min(5 s, reachable time) */
	for (i = 0; i < 80 && probes == 0; i++) {
		sleep_ms(50);
		ring_rig_step();
		n = drain(1, out, 8);
		if (n > 0) {
			/* unicast to the known MAC */
			CU_ASSERT(
				memcmp(rte_pktmbuf_mtod(out[0], const uint8_t *), gw_mac2, 6) == 0);
			CU_ASSERT_EQUAL(rte_pktmbuf_mtod(out[0], const uint8_t *)[21], 1);
		}
		probes += n;
		rte_pktmbuf_free_bulk(out, n);
	}
	CU_ASSERT_EQUAL(probes, 1);
	CU_ASSERT_TRUE(resolved_to(nh, gw_mac2)); /* still usable while probed */
	/* no answer: after the probes, unresolved */
	for (i = 0; i < 20; i++) {
		sleep_ms(50);
		ring_rig_step();
		drain_free();
	}
	CU_ASSERT_FALSE(dp_fwd.nh[nh].flags & DP_FWD_NH_F_RESOLVED);
}

/* test_neigh_lookups_while_the_table_changes: what the reader saw. */
struct neigh_reader {
	volatile bool stop;
	uint32_t ip_be;
	int32_t want;
	uint8_t mac_a[6], mac_b[6];
	uint64_t reads, not_found, wrong_index, torn_mac;
};

/* A worker's view of one neighbor, as fast as it can: its lookup and its MAC. */
static void *
neigh_reader_main(void *arg)
{
	struct neigh_reader *r = arg;

	while (!r->stop) {
		const int32_t idx = dp_neigh_find4(r->ip_be, 1);
		uint8_t l2[12];

		r->reads++;
		if (idx < 0) {
			r->not_found++;
			continue;
		}
		if (idx != r->want) {
			r->wrong_index++;
			continue;
		}
		/* the rewrite's copy: destination and source MACs at once */
		memcpy(l2, &dp_fwd.nh[idx].l2, sizeof(l2));
		if (memcmp(l2, r->mac_a, 6) != 0 && memcmp(l2, r->mac_b, 6) != 0)
			r->torn_mac++;
	}
	return NULL;
}

/*
 * Workers read the neighbor table without locks while the control lcore
 * changes it (docs/routing.md: rte_hash's lock-free lookups, a MAC changed by one
 * 8-byte store): a thread looks one neighbor up and copies its MACs in a
 * loop while this one flips that neighbor's MAC back and forth and adds 200
 * other neighbors; the reader always finds the same entry and never a MAC
 * that is neither the old nor the new one.
 */
static void
test_neigh_lookups_while_the_table_changes(void)
{
	static struct neigh_reader r = {
		.mac_a = { 0x02, 0x33, 0x44, 0x55, 0x66, 0x01 },
		.mac_b = { 0x02, 0xcc, 0xbb, 0xaa, 0x99, 0x02 },
	};
	const uint32_t host = 0xc6126532u; /* 198.18.101.50 */
	const uint32_t host_be = rte_cpu_to_be_32(host);
	pthread_attr_t attr;
	cpu_set_t cpus;
	pthread_t t;
	unsigned int i;

	dp_neigh_learn(4, (const uint8_t *)&host_be, 1, (const struct rte_ether_addr *)r.mac_a,
		false, true);
	r.ip_be = host_be;
	r.want = dp_neigh_find4(host_be, 1);
	CU_ASSERT_FATAL(r.want > 0);
	r.stop = false;
	/* on the other CPU, as a worker is (the EAL main thread, this one, is on CPU 0) */
	CU_ASSERT_EQUAL_FATAL(pthread_attr_init(&attr), 0);
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, &attr, neigh_reader_main, &r), 0);
	pthread_attr_destroy(&attr);
	while (r.reads == 0) /* started */
		sched_yield();
	for (i = 0; i < 200000; i++) {
		const struct rte_ether_addr *mac =
			(const struct rte_ether_addr *)(i & 1 ? r.mac_b : r.mac_a);

		dp_neigh_learn(4, (const uint8_t *)&host_be, 1, mac, false, false);
		if (i % 1000 == 0) {
			/* another host, a new key in the hash: 198.18.101.60-.209, 198.18.0.64-.113 */
			const uint32_t other = rte_cpu_to_be_32(
				(i / 1000 < 150 ? 0xc612653cu : 0xc6120040u) + i / 1000 % 150);

			dp_neigh_learn(4, (const uint8_t *)&other, i / 1000 < 150 ? 1 : 0,
				(const struct rte_ether_addr *)r.mac_a, false, true);
		}
	}
	r.stop = true;
	pthread_join(t, NULL);
	printf("(%lu lookups and MAC copies beside 200000 changes) ", (unsigned long)r.reads);
	CU_ASSERT(r.reads > 1000);
	CU_ASSERT_EQUAL(r.not_found, 0);
	CU_ASSERT_EQUAL(r.wrong_index, 0);
	CU_ASSERT_EQUAL(r.torn_mac, 0);
}

/*
 * The hold queues' cap for all neighbors together (1024: what keeps the pool
 * from being held by unresolved neighbors): 400 on-link hosts that never
 * answer, 3 packets each (neigh_hold = 3), make 1024 held and the rest
 * counted neigh_hold_full; the pool's in-use count grows by those 1024 at
 * most; when the neighbors fail, every held packet is freed (neigh_failed).
 */
static void
test_neigh_hold_queues_capped_for_all_neighbors(void)
{
	const unsigned int hosts = 400, per = 3;
	const uint64_t full0 = dp_graph_drops(DP_DROP_NEIGH_HOLD_FULL);
	const uint64_t failed0 = dp_graph_drops(DP_DROP_NEIGH_FAILED);
	const int64_t in0 = dp_mem_in_use_over_baseline();
	char err[256] = "";
	uint8_t f[2048];
	unsigned int h, k, i;

	CU_ASSERT_EQUAL_FATAL(ring_rig_route(true, "198.18.64.0/22 port 1", err, sizeof(err)), 0);
	for (h = 0; h < hosts; h++) {
		for (k = 0; k < per; k++)
			inject(0, f, udp_to(f, 0, 0xc6124001u + h, (uint16_t)(1000 + k)));
		if (h % 8 == 7) {
			ring_rig_step();
			drain_free(); /* the ARP requests */
		}
	}
	ring_rig_step();
	drain_free();
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_NEIGH_HOLD_FULL) - full0, hosts * per - 1024);
	CU_ASSERT(dp_mem_in_use_over_baseline() - in0 <= 1024 + 64); /* + the burst in flight */
	CU_ASSERT(dp_mem_in_use_over_baseline() - in0 >= 1024);
	/* nobody answers: each neighbor fails (2 probes, 100 ms apart) and frees its packets */
	for (i = 0; i < 40 && dp_graph_drops(DP_DROP_NEIGH_FAILED) - failed0 < 1024; i++) {
		sleep_ms(50);
		ring_rig_step();
		drain_free();
	}
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_NEIGH_FAILED) - failed0, 1024);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), in0);
	CU_ASSERT_EQUAL(ring_rig_route(false, "198.18.64.0/22", err, sizeof(err)), 0);
}

static void
test_neigh_no_mbuf_leak(void)
{
	ring_rig_step();
	drain_free();
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), 0);
}

static int
suite_init(void)
{
	return ring_rig_setup(&rig);
}

static int
suite_cleanup(void)
{
	ring_rig_cleanup(&rig);
	return 0;
}

static const struct dp_test tests[] = {
	{ "test_neigh_announces_each_address", test_neigh_announces_each_address },
	{ "test_neigh_answers_arp_for_own_address_and_learns_sender",
		test_neigh_answers_arp_for_own_address_and_learns_sender },
	{ "test_neigh_ignores_and_counts_other_arp", test_neigh_ignores_and_counts_other_arp },
	{ "test_neigh_resolves_gateway_and_releases_held_packets",
		test_neigh_resolves_gateway_and_releases_held_packets },
	{ "test_neigh_connected_host_is_resolved_by_destination",
		test_neigh_connected_host_is_resolved_by_destination },
	{ "test_neigh_resolved_host_gets_an_adjacency",
		test_neigh_resolved_host_gets_an_adjacency },
	{ "test_neigh_unanswered_fails_then_retries", test_neigh_unanswered_fails_then_retries },
	{ "test_neigh_subnet_broadcast_is_not_a_neighbor",
		test_neigh_subnet_broadcast_is_not_a_neighbor },
	{ "test_neigh_reachable_turns_stale_and_is_probed",
		test_neigh_reachable_turns_stale_and_is_probed },
	{ "test_neigh_lookups_while_the_table_changes",
		test_neigh_lookups_while_the_table_changes },
	{ "test_neigh_hold_queues_capped_for_all_neighbors",
		test_neigh_hold_queues_capped_for_all_neighbors },
	{ "test_neigh_no_mbuf_leak", test_neigh_no_mbuf_leak },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("neigh", tests, suite_init, suite_cleanup);
}
