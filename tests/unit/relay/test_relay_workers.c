/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The relay on two workers (tests/ring_rig.c; both graphs walked in turn on the
 * test thread): port0, the clients' side, is worker 0's, port1, the backends'
 * side, worker 1's, as when a NIC hashes a backend's answers to another worker
 * than its session's. Worker 0 owns relay ports 20000-20007, worker 1
 * 20008-20015, so every answer to a session of worker 0 reaches worker 1 and
 * is handed over. Frames are built and checked with pktcraft (its own
 * checksums, not dpfwd's).
 *
 *   client 198.18.0.2 --- port0 198.18.0.1/24   port1 198.18.1.1/24 --- backend 198.18.1.2
 *   [relay0] listen 198.18.0.1:5000 -> 198.18.1.2:6000 from 198.18.1.1:20000-20015
 */
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "dp_drop.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_relay.h"
#include "dp_test.h"
#include "relay_priv.h"
#include "ring_rig.h"

#define CLIENT  0xc6120002u /* 198.18.0.2 */
#define LISTEN  0xc6120001u /* 198.18.0.1 */
#define BACKEND 0xc6120102u /* 198.18.1.2 */
#define SOURCE  0xc6120101u /* 198.18.1.1 */

static const uint8_t client_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t backend_mac[6] = { 0x02, 0, 0, 0, 0x01, 0x02 };

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "[mempool]\n"
				  "size = 8192\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_w0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "[port1]\n"
				  "dev = net_ring_w1\n"
				  "ip4 = 198.18.1.1/24\n"
				  "[lcores]\n"
				  "rx = (0,0,1),(1,0,2)\n"
				  "[neighbors]\n"
				  "neigh = 198.18.0.2 lladdr 02:00:00:00:00:02 port 0\n"
				  "neigh = 198.18.1.2 lladdr 02:00:00:00:01:02 port 1\n"
				  "[relay0]\n"
				  "listen = 198.18.0.1:5000\n"
				  "backend = 198.18.1.2:6000\n"
				  "source = 198.18.1.1\n"
				  "ports = 20000-20015\n"
				  "timeout = 30\n";

static struct ring_rig rig = {
	.name = "relayw",
	.prefix = 'w',
	.nb_ports = 2,
	/* three lcores on two CPUs: the workers' threads only wait, the test walks */
	.lcores = "0,1,2@1",
	.nb_txq = 2,
	.config_text = config_text,
};

/* ---- workers ---- */

static struct dp_relay_stats stats_mark[2];

/* Mark the drop counters (every worker's) and each worker's relay counters. */
static void
snap(void)
{
	uint16_t w;

	ring_rig_drops_mark(&rig);
	for (w = 0; w < 2; w++)
		CU_ASSERT(dp_relay_stats_get(w, &stats_mark[w]) == 0);
}

static struct dp_relay_stats
moved(uint16_t w)
{
	struct dp_relay_stats now, d;

	dp_relay_stats_get(w, &now);
	d = now;
	d.created -= stats_mark[w].created;
	d.handoffs -= stats_mark[w].handoffs;
	d.handoffs_in -= stats_mark[w].handoffs_in;
	d.to_backend -= stats_mark[w].to_backend;
	d.to_client -= stats_mark[w].to_client;
	return d;
}

/* Worker @p w walks @p n times, flushing its TX buffers after each. */
static void
walk(uint16_t w, uint64_t n)
{
	dp_graph_worker_run(dp_workers[w], n);
	dp_graph_worker_flush(dp_workers[w]);
}

/* ---- frames ---- */

/* A UDP datagram of 64 payload bytes (pattern @p seed) on port @p port. */
static void
inject_udp(int port, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint32_t seed)
{
	uint8_t f[256];
	struct dp_pkt_spec s;
	size_t len = 0;

	dp_pkt_spec_init(&s);
	memcpy(s.dst_mac, &dp_ports[port].mac, 6);
	memcpy(s.src_mac, port == 0 ? client_mac : backend_mac, 6);
	s.src_ip4 = src;
	s.dst_ip4 = dst;
	s.sport = sport;
	s.dport = dport;
	s.ttl = 9;
	s.frame_len = 0;
	s.payload_len = 64;
	s.flow_id = seed;
	CU_ASSERT_FATAL(dp_pkt_build(&s, f, sizeof(f), &len) == 0);
	ring_rig_inject(&rig, port, f, len);
}

/*
 * @p m is the relayed datagram of pattern @p seed, to @p dmac out of port @p port,
 * from @p src:@p sport to @p dst:@p dport: addresses, ports, TTL 64 (the relay
 * is its new source), both checksums by pktcraft's sum, the payload.
 */
static bool
relayed_ok(const struct rte_mbuf *m, int port, const uint8_t *dmac, uint32_t src, uint16_t sport,
	uint32_t dst, uint16_t dport, uint32_t seed)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = f + 14, *udp = ip + 20;
	bool ok = m->nb_segs == 1 && m->pkt_len >= 14 + 20 + 8 + 64;
	unsigned int i;

	ok = ok && memcmp(f, dmac, 6) == 0 && memcmp(f + 6, &dp_ports[port].mac, 6) == 0;
	ok = ok && dp_pkt_get32(ip + 12) == src && dp_pkt_get32(ip + 16) == dst && ip[8] == 64;
	ok = ok && dp_pkt_get16(udp) == sport && dp_pkt_get16(udp + 2) == dport;
	ok = ok && dp_pkt_ipv4_hdr_cksum_ok(ip) && dp_pkt_udp_cksum_ok(f, m->pkt_len);
	for (i = 0; ok && i < 64; i++)
		ok = udp[8 + i] == dp_pkt_payload_byte(seed, i);
	return ok;
}

/* A new session on worker 0 from client port @p cport: its relay port (0: none). */
static uint16_t
session_of(uint16_t cport)
{
	struct rte_mbuf *out[4];
	uint16_t rport = 0;
	unsigned int n;

	inject_udp(0, CLIENT, cport, LISTEN, 5000, cport);
	walk(0, 4);
	n = ring_rig_drain(&rig, 1, out, 4);
	CU_ASSERT_EQUAL(n, 1);
	if (n == 1) {
		rport = dp_pkt_get16(rte_pktmbuf_mtod(out[0], const uint8_t *) + 34);
		CU_ASSERT(relayed_ok(out[0], 1, backend_mac, SOURCE, rport, BACKEND, 6000, cport));
	}
	rte_pktmbuf_free_bulk(out, n);
	/* worker 0's half of the relay ports */
	CU_ASSERT(rport >= 20000 && rport <= 20007);
	return rport;
}

/* ---- tests ---- */

/* The backend's answer reaches worker 1, which hands it to worker 0: relayed once. */
static void
test_relay_workers_answer_is_handed_to_the_owner(void)
{
	struct rte_mbuf *out[4];
	uint16_t rport;
	unsigned int n;

	snap();
	rport = session_of(41000);
	CU_ASSERT_FATAL(rport != 0);
	inject_udp(1, BACKEND, 6000, SOURCE, rport, 7);
	walk(1, 4);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(moved(1).handoffs, 1);
	walk(0, 4);
	n = ring_rig_drain(&rig, 0, out, 4);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT(relayed_ok(out[0], 0, client_mac, LISTEN, 5000, CLIENT, 41000, 7));
	rte_pktmbuf_free_bulk(out, n);
	CU_ASSERT_EQUAL(moved(0).handoffs_in, 1);
	CU_ASSERT_EQUAL(moved(0).to_client, 1);
	CU_ASSERT_EQUAL(moved(0).created, 1);
	CU_ASSERT_EQUAL(ring_rig_graph_drops_total(&rig), 0);
}

/*
 * Worker 0 does not walk (it is busy) while 1100 answers reach worker 1: the
 * hand-off ring takes what it holds (RELAY_HANDOFF_RING slots, one kept empty
 * by rte_ring), the rest are dropped as relay_handoff_full, nothing else. When
 * worker 0 walks again it relays the oldest answers, in order, every one.
 */
static void
test_relay_workers_full_handoff_ring_counts_drops(void)
{
	const unsigned int sent = 1100, fits = RELAY_HANDOFF_RING - 1;
	struct rte_mbuf *out[64];
	unsigned int i, k, n, got = 0, bad = 0;
	uint64_t handoff_full1;
	uint16_t rport;

	rport = session_of(41001);
	CU_ASSERT_FATAL(rport != 0);
	snap();
	handoff_full1 = dp_workers[1]->stats.drops[DP_DROP_RELAY_HANDOFF_FULL];
	/* in two rounds: port1's RX ring holds 1023 */
	for (i = 0; i < sent; i++) {
		inject_udp(1, BACKEND, 6000, SOURCE, rport, 1000 + i);
		if (i == 999 || i == sent - 1)
			walk(1, 64);
	}
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(moved(1).handoffs, fits);
	CU_ASSERT_EQUAL(dp_workers[1]->stats.drops[DP_DROP_RELAY_HANDOFF_FULL] - handoff_full1,
		sent - fits);
	CU_ASSERT_EQUAL(ring_rig_graph_dropped(&rig, DP_DROP_RELAY_HANDOFF_FULL), sent - fits);
	CU_ASSERT_EQUAL(ring_rig_graph_drops_total(&rig), sent - fits);
	/* worker 0 catches up: one burst of the ring a walk */
	for (k = 0; k < 2 * fits / 32; k++) {
		walk(0, 1);
		while ((n = ring_rig_drain(&rig, 0, out, 64)) > 0) {
			for (i = 0; i < n; i++)
				bad += !relayed_ok(out[i], 0, client_mac, LISTEN, 5000, CLIENT,
					41001, 1000 + got + i);
			got += n;
			rte_pktmbuf_free_bulk(out, n);
		}
	}
	CU_ASSERT_EQUAL(got, fits);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(moved(0).handoffs_in, fits);
	CU_ASSERT_EQUAL(moved(0).to_client, fits);
	CU_ASSERT_EQUAL(ring_rig_graph_drops_total(&rig), sent - fits);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 0);
}

static void
test_relay_workers_no_mbuf_leak(void)
{
	walk(0, 4);
	walk(1, 4);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), 0);
}

static const struct dp_test tests[] = {
	{ "test_relay_workers_answer_is_handed_to_the_owner",
		test_relay_workers_answer_is_handed_to_the_owner },
	{ "test_relay_workers_full_handoff_ring_counts_drops",
		test_relay_workers_full_handoff_ring_counts_drops },
	{ "test_relay_workers_no_mbuf_leak", test_relay_workers_no_mbuf_leak },
	{ NULL, NULL },
};

int
main(void)
{
	return ring_rig_run(&rig, "relay_workers", tests);
}
