/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet pool with no buffer left (mempool exhaustion), in one
 * process: two net_ring ports, the worker graph and the control lcore walked
 * on the test thread (tests/ring_rig.h). The test takes every free buffer, as
 * a NIC's RX rings or a slow application would, while packets need dpfwd to
 * make frames of its own (ARP requests and replies); then gives them back.
 *
 * Checks: what cannot be sent is a counted drop (ctl_nomem), an ARP reply
 * (made in the request's own buffer) still goes out, nothing crashes or leaks, the packets held for the neighbor stay held (bounded by
 * neigh_hold), and once buffers are back the same neighbor resolves at its
 * next retransmission, the held packets go out byte for byte, new traffic
 * flows, and the pool is back at its baseline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dp_ctl.h"
#include "dp_drop.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_test.h"
#include "ring_rig.h"

#define NB_PORTS 2
#define POOL     1024
#define IP_HOST  0xc6120002u /* 198.18.0.2, a host behind port0 */
#define IP_PORT1 0xc6126501u /* 198.18.101.1 */
#define IP_GW    0xc6126502u /* 198.18.101.2, the gateway of 198.18.1.0/24 */
#define IP_DST   0xc6120105u /* 198.18.1.5 */
#define IP_OTHER 0xc6126509u /* 198.18.101.9, another host behind port1 */

static const uint8_t host_mac[6] = { 0x02, 0x11, 0, 0, 0, 0x02 };
static const uint8_t gw_mac[6] = { 0x02, 0x22, 0, 0, 0, 0x02 };
static const uint8_t other_mac[6] = { 0x02, 0x33, 0, 0, 0, 0x09 };

/* cache 0: every free buffer is in the ring, so the test can take them all */
static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "neigh_hold = 3\n"
				  "neigh_retrans_ms = 100\n"
				  "neigh_probes = 10\n"
				  "neigh_failed_ms = 300\n"
				  "[mempool]\n"
				  "size = 1024\n"
				  "cache = 0\n"
				  "[port0]\n"
				  "dev = net_ring_x0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "[port1]\n"
				  "dev = net_ring_x1\n"
				  "ip4 = 198.18.101.1/24\n"
				  "[lcores]\n"
				  "rx = (0,0,1), (1,0,1)\n"
				  "[routes]\n"
				  "route = 198.18.1.0/24 via 198.18.101.2 port 1\n";

static struct ring_rig rig = {
	.name = "pool_exhausted",
	.prefix = 'x',
	.nb_ports = NB_PORTS,
	.config_text = config_text,
};

static struct rte_mbuf *held[POOL];
static unsigned int nb_held;

/* Take every free buffer of the pool. */
static void
exhaust(void)
{
	struct rte_mempool *mp = dp_mem_pool_get(0);
	struct rte_mbuf *m;

	while (nb_held < POOL && (m = rte_pktmbuf_alloc(mp)) != NULL)
		held[nb_held++] = m;
	CU_ASSERT_EQUAL(rte_mempool_avail_count(mp), 0);
}

static void
give_back(void)
{
	rte_pktmbuf_free_bulk(held, nb_held);
	nb_held = 0;
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ms * 1000000 };

	nanosleep(&ts, NULL);
}

static size_t
udp_to(uint8_t *buf, uint32_t dst, uint16_t sport)
{
	return ring_rig_udp4(buf, 0, host_mac, IP_HOST, dst, sport);
}

/* ARP requests for @p tip that port 1 sent; everything else it sent goes to @p other. */
static unsigned int
arp_requests(uint32_t tip, struct rte_mbuf **other, unsigned int *nb_other)
{
	struct rte_mbuf *out[64];
	unsigned int n, i, c = 0;

	*nb_other = 0;
	n = ring_rig_drain(&rig, 1, out, 64);
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);
		uint32_t t;

		memcpy(&t, d + 38, 4);
		if (d[12] == 0x08 && d[13] == 0x06) {
			c += d[21] == 1 && ntohl(t) == tip;
			rte_pktmbuf_free(out[i]);
		} else {
			other[(*nb_other)++] = out[i];
		}
	}
	return c;
}

static void
test_pool_exhausted_arp_counted_then_resolves(void)
{
	struct rte_mbuf *out[64];
	uint8_t f[2048], sent[3][128];
	uint64_t nomem = dp_graph_drops(DP_DROP_CTL_NOMBUF);
	unsigned int i, n, reqs = 0, tries;
	size_t len = 0;
	int32_t nh;
	uint32_t be = htonl(IP_GW);

	/* three packets for a gateway nobody has resolved, then no buffer left */
	for (i = 0; i < 3; i++) {
		len = udp_to(f, IP_DST, (uint16_t)(100 + i));
		memcpy(sent[i], f, len);
		ring_rig_inject(&rig, 0, f, len);
	}
	exhaust();
	for (i = 0; i < 4; i++) {
		ring_rig_step();
		sleep_ms(110); /* past neigh_retrans_ms: each round tries a request again */
	}
	CU_ASSERT_EQUAL(arp_requests(IP_GW, out, &n), 0);
	CU_ASSERT_EQUAL(n, 0); /* nothing forwarded: it is held */
	CU_ASSERT(dp_graph_drops(DP_DROP_CTL_NOMBUF) - nomem >= 2);
	/* a host's ARP request for our address is still answered: the reply is
	 * made in the request's own buffer */
	give_back();
	ring_rig_inject(&rig, 1, f,
		ring_rig_arp(f, 1, (const uint8_t[6]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
			other_mac, IP_OTHER, (const uint8_t[6]){ 0 }, IP_PORT1));
	exhaust();
	ring_rig_step();
	n = ring_rig_drain(&rig, 1, out, 64);
	CU_ASSERT_EQUAL(n, 1);
	if (n == 1) {
		const uint8_t *d = rte_pktmbuf_mtod(out[0], const uint8_t *);

		CU_ASSERT(d[12] == 0x08 && d[13] == 0x06 && d[21] == 2); /* a reply */
		CU_ASSERT(memcmp(d, other_mac, 6) == 0);
	}
	rte_pktmbuf_free_bulk(out, n);

	/* buffers back: the next retransmission asks, the answer releases the held ones */
	give_back();
	nh = dp_neigh_get(4, (const uint8_t *)&be, 1, false);
	CU_ASSERT_FATAL(nh > 0);
	for (tries = 0; tries < 20 && reqs == 0; tries++) {
		sleep_ms(110);
		ring_rig_step();
		reqs = arp_requests(IP_GW, out, &n);
		rte_pktmbuf_free_bulk(out, n);
	}
	CU_ASSERT_FATAL(reqs >= 1);
	ring_rig_inject(&rig, 1, f,
		ring_rig_arp(f, 2, dp_ports[1].mac.addr_bytes, gw_mac, IP_GW,
			dp_ports[1].mac.addr_bytes, IP_PORT1));
	ring_rig_step();
	CU_ASSERT(dp_fwd.nh[nh].flags & DP_FWD_NH_F_RESOLVED);
	CU_ASSERT_EQUAL(arp_requests(IP_GW, out, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	for (i = 0; i < n; i++) {
		const uint8_t *g = rte_pktmbuf_mtod(out[i], const uint8_t *);

		CU_ASSERT_EQUAL(out[i]->pkt_len, len);
		CU_ASSERT(memcmp(g, gw_mac, 6) == 0);
		CU_ASSERT(memcmp(g + 6, &dp_ports[1].mac, 6) == 0);
		CU_ASSERT_EQUAL(g[14 + 8], sent[i][14 + 8] - 1); /* TTL */
		CU_ASSERT_TRUE(dp_pkt_ipv4_hdr_cksum_ok(g + 14));
		CU_ASSERT(memcmp(g + 14 + 12, sent[i] + 14 + 12, len - 26) == 0);
	}
	rte_pktmbuf_free_bulk(out, n);

	/* and new traffic flows */
	ring_rig_inject(&rig, 0, f, udp_to(f, IP_DST, 300));
	ring_rig_step();
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 1);
}

static void
test_pool_exhausted_no_mbuf_leak(void)
{
	ring_rig_step();
	ring_rig_drain_free(&rig, 0);
	ring_rig_drain_free(&rig, 1);
	CU_ASSERT_EQUAL(nb_held, 0);
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
	give_back();
	ring_rig_cleanup(&rig);
	return 0;
}

static const struct dp_test tests[] = {
	{ "test_pool_exhausted_arp_counted_then_resolves",
		test_pool_exhausted_arp_counted_then_resolves },
	{ "test_pool_exhausted_no_mbuf_leak", test_pool_exhausted_no_mbuf_leak },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("pool_exhausted", tests, suite_init, suite_cleanup);
}
