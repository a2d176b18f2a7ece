/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datapath in one process: EAL on --no-huge, three net_ring ports whose
 * rings the test fills and drains, the real graph walked on the test thread
 * for a bounded number of iterations. Each test injects crafted frames and
 * asserts where every one went: out of which port with which bytes, or into
 * which drop counter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_icmp4.h"
#include "dp_mem.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_run.h"
#include "dp_telemetry.h"
#include "dp_test.h"
#include "dp_trace.h"
#include "ring_rig.h"

#define NB_PORTS      3
#define TX1_RING_SIZE 128 /* small on purpose: the tx_full test fills it */

static const uint8_t neigh_mac[2][6] = {
	{ 0x02, 0, 0, 0, 0x01, 0x02 },
	{ 0x02, 0, 0, 0, 0x02, 0x02 },
};

static const char config_text[] =
	"[dpfwd]\n"
	"burst = 32\n"
	/* every packet timed: the delay tests count them one by one; the sampling
	 * test sets its own */
	"delay_stats_sample = 1\n"
	"[mempool]\n"
	"cache = 32\n"
	"[port0]\n"
	"dev = net_ring_t0\n"
	"ip4 = 198.18.0.1/24\n"
	"[port1]\n"
	"dev = net_ring_t1\n"
	"ip4 = 198.18.101.1/24\n"
	"[port2]\n"
	"dev = net_ring_t2\n"
	"ip4 = 198.18.102.1/24\n"
	"[lcores]\n"
	"rx = (0,0,1)\n"
	"[routes]\n"
	"route = 198.18.1.0/24 via 198.18.101.2 port 1\n"
	"route = 198.18.2.0/24 via 198.18.102.2 port 2\n"
	"route = 198.18.3.0/24 via 198.18.103.2 port 2\n" /* gateway with no neighbor */
	"[neighbors]\n"
	"neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1\n"
	"neigh = 198.18.102.2 lladdr 02:00:00:00:02:02 port 2\n"
	/* the sender of every test frame: ICMP errors about them go back out of port0 */
	"neigh = 198.18.0.2 lladdr 02:00:00:00:00:02 port 0\n";

static struct ring_rig rig = {
	.name = "graph",
	.prefix = 't',
	.nb_ports = NB_PORTS,
	.tx_size = { 0, TX1_RING_SIZE, 0 },
	.config_text = config_text,
};

static struct dp_worker *
worker(void)
{
	return dp_workers[0];
}

/* Build one frame for port0 and put it on port0's RX ring. */
static void
inject_frame(const uint8_t *frame, size_t len)
{
	ring_rig_inject(&rig, 0, frame, len);
}

static void
spec_to(struct dp_pkt_spec *s, uint32_t dst, uint8_t ttl, uint16_t sport)
{
	dp_pkt_spec_init(s);
	memcpy(s->dst_mac, &dp_ports[0].mac, 6);
	s->src_ip4 = 0xc6120002; /* 198.18.0.2 */
	s->dst_ip4 = dst;
	s->ttl = ttl;
	s->sport = sport;
	s->frame_len = 64;
	s->flow_id = sport;
}

static size_t
build(const struct dp_pkt_spec *s, uint8_t *buf)
{
	size_t len = 0;

	CU_ASSERT_FATAL(dp_pkt_build(s, buf, 2048, &len) == 0);
	return len;
}

static void
run_graph(void)
{
	dp_graph_worker_run(worker(), 8);
}

/* Dequeue everything a port sent; returns the count. */
static unsigned int
drain_tx(int port, struct rte_mbuf **out, unsigned int max)
{
	return ring_rig_drain(&rig, port, out, max);
}

static void
snap_drops(void)
{
	ring_rig_drops_mark(&rig);
}

/* Exactly one counter moved, by one, and it is @p want. */
static void
assert_only_drop(enum dp_drop_reason want)
{
	unsigned int r;

	for (r = 0; r < DP_DROP_MAX; r++) {
		uint64_t d = ring_rig_dropped(&rig, r);

		if (r == (unsigned int)want) {
			if (d != 1)
				fprintf(stderr, "\n  %s moved by %lu, expected 1\n",
					dp_drop_name(r), (unsigned long)d);
			CU_ASSERT_EQUAL(d, 1);
		} else {
			if (d != 0)
				fprintf(stderr, "\n  %s moved by %lu, expected 0 (want %s)\n",
					dp_drop_name(r), (unsigned long)d, dp_drop_name(want));
			CU_ASSERT_EQUAL(d, 0);
		}
	}
}

static void
test_graph_forwards_and_rewrites_both_routes(void)
{
	struct rte_mbuf *out[2][128];
	uint8_t frame[2048], expect[2][64][2048];
	unsigned int n[2], i, k;
	struct dp_pkt_spec s;
	uint64_t tx_before = worker()->stats.tx_pkts;

	for (i = 0; i < 128; i++) {
		unsigned int route = i % 2;
		size_t len;

		spec_to(&s, route ? 0xc6120207 : 0xc6120107, (uint8_t)(2 + i),
			(uint16_t)(1000 + i));
		len = build(&s, frame);
		memcpy(expect[route][i / 2], frame, len);
		inject_frame(frame, len);
	}
	run_graph();
	n[0] = drain_tx(1, out[0], 128);
	n[1] = drain_tx(2, out[1], 128);
	CU_ASSERT_EQUAL(n[0], 64);
	CU_ASSERT_EQUAL(n[1], 64);
	CU_ASSERT_EQUAL(worker()->stats.tx_pkts - tx_before, 128);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < n[k]; i++) {
			const uint8_t *got = rte_pktmbuf_mtod(out[k][i], const uint8_t *);
			const uint8_t *exp = expect[k][i];
			const struct rte_ipv4_hdr *ip = (const void *)(got + 14);

			CU_ASSERT_EQUAL(out[k][i]->pkt_len, 60);
			CU_ASSERT(memcmp(got, neigh_mac[k], 6) == 0);
			CU_ASSERT(memcmp(got + 6, &dp_ports[1 + k].mac, 6) == 0);
			/* TTL one less, checksum valid, all else unchanged */
			CU_ASSERT_EQUAL(got[14 + 8], exp[14 + 8] - 1);
			CU_ASSERT_TRUE(dp_pkt_ipv4_hdr_cksum_ok(got + 14));
			{
				/* equal to a full recompute (rte_ipv4_cksum wants the field 0) */
				struct rte_ipv4_hdr copy = *ip;

				copy.hdr_checksum = 0;
				CU_ASSERT_EQUAL(rte_ipv4_cksum(&copy), ip->hdr_checksum);
			}
			CU_ASSERT(memcmp(got + 12, exp + 12, 14 + 8 - 12) == 0);
			CU_ASSERT_EQUAL(got[14 + 9], exp[14 + 9]);
			CU_ASSERT(memcmp(got + 14 + 12, exp + 14 + 12, 60 - 26) == 0);
			CU_ASSERT_TRUE(dp_pkt_udp_cksum_ok(got, 60));
		}
		rte_pktmbuf_free_bulk(out[k], n[k]);
	}
}

static void
one_drop_case(const uint8_t *frame, size_t len, enum dp_drop_reason want)
{
	struct rte_mbuf *out[8];

	snap_drops();
	inject_frame(frame, len);
	run_graph();
	CU_ASSERT_EQUAL(drain_tx(1, out, 8) + drain_tx(2, out, 8), 0);
	assert_only_drop(want);
}

/* Take what the worker handed to the control lcore; checks each packet's kind. */
static unsigned int
drain_punts(enum dp_punt_kind want, unsigned int max)
{
	/* zeroed: the analyser loses what the dequeue wrote in DPDK's unrolled copy */
	struct rte_mbuf *m[64] = { NULL };
	unsigned int n, i;

	n = rte_ring_dequeue_burst(worker()->punt_ring, (void **)m, RTE_MIN(max, 64u), NULL);
	for (i = 0; i < n; i++) {
		if (want != DP_PUNT_NONE)
			CU_ASSERT_EQUAL(dp_mbuf_meta(m[i], dp_mbuf_meta_offset)->punt, want);
	}
	rte_pktmbuf_free_bulk(m, n);
	return n;
}

/* A frame the worker cannot finish alone: punted (not dropped, not sent) as @p kind. */
static void
one_punt_case(const uint8_t *frame, size_t len, enum dp_punt_kind kind)
{
	struct rte_mbuf *out[8];
	unsigned int r;

	snap_drops();
	inject_frame(frame, len);
	run_graph();
	CU_ASSERT_EQUAL(drain_tx(1, out, 8) + drain_tx(2, out, 8), 0);
	for (r = 0; r < DP_DROP_MAX; r++)
		CU_ASSERT_EQUAL(ring_rig_dropped(&rig, r), 0);
	CU_ASSERT_EQUAL(drain_punts(kind, 8), 1);
}

static void
test_graph_each_malformed_packet_has_its_drop_reason(void)
{
	static const struct {
		enum dp_pkt_defect defect;
		enum dp_drop_reason reason;
	} cases[] = {
		{ DP_PKT_TRUNCATED_L3, DP_DROP_IP4_TRUNCATED },
		{ DP_PKT_BAD_VERSION, DP_DROP_IP4_VERSION },
		{ DP_PKT_BAD_IHL, DP_DROP_IP4_IHL },
		{ DP_PKT_BAD_CKSUM, DP_DROP_IP4_CKSUM },
		{ DP_PKT_LEN_GT_FRAME, DP_DROP_IP4_LEN },
		{ DP_PKT_TTL0, DP_DROP_IP4_TTL },
		{ DP_PKT_TTL1, DP_DROP_IP4_TTL },
		{ DP_PKT_NON_IP, DP_DROP_NOT_IP4 },
	};
	uint8_t frame[2048];
	struct dp_pkt_spec s;
	unsigned int i;
	size_t len;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		spec_to(&s, 0xc6120107, 64, 2000);
		len = build(&s, frame);
		CU_ASSERT_FATAL(dp_pkt_corrupt(frame, &len, cases[i].defect) == 0);
		one_drop_case(frame, len, cases[i].reason);
	}
	/* ARP: to the control lcore */
	spec_to(&s, 0xc6120107, 64, 2000);
	CU_ASSERT_FATAL(dp_pkt_build_arp(&s, frame, sizeof(frame), &len) == 0);
	one_punt_case(frame, len, DP_PUNT_ARP);
	/* no route */
	spec_to(&s, 0xc612c801, 64, 2000); /* 198.18.200.1 */
	one_drop_case(frame, build(&s, frame), DP_DROP_IP4_NO_ROUTE);
	/* to the router itself */
	spec_to(&s, 0xc6120001, 64, 2000); /* 198.18.0.1 */
	one_drop_case(frame, build(&s, frame), DP_DROP_IP4_LOCAL);
	/* route whose gateway has no neighbor entry: held by the control lcore */
	spec_to(&s, 0xc6120301, 64, 2000); /* 198.18.3.1 */
	one_punt_case(frame, build(&s, frame), DP_PUNT_NEIGH4);
	/* martians: loopback source, multicast destination */
	spec_to(&s, 0xc6120107, 64, 2000);
	s.src_ip4 = 0x7f000001;
	one_drop_case(frame, build(&s, frame), DP_DROP_IP4_MARTIAN);
	spec_to(&s, 0xe0000005, 64, 2000);
	one_drop_case(frame, build(&s, frame), DP_DROP_IP4_MARTIAN);
	/* unicast for another host */
	spec_to(&s, 0xc6120107, 64, 2000);
	s.dst_mac[5] ^= 0x55;
	one_drop_case(frame, build(&s, frame), DP_DROP_L2_OTHER_HOST);
	/* IPv4 in a broadcast frame (RFC 1812 5.3.4) */
	spec_to(&s, 0xc6120107, 64, 2000);
	memset(s.dst_mac, 0xff, 6);
	one_drop_case(frame, build(&s, frame), DP_DROP_L2_MCAST_IP4);
	/* VLAN tagged */
	spec_to(&s, 0xc6120107, 64, 2000);
	s.has_vlan = true;
	s.vlan_tci = 100;
	one_drop_case(frame, build(&s, frame), DP_DROP_VLAN);
	/* shorter than an Ethernet header */
	one_drop_case(frame, 10, DP_DROP_L2_TOO_SHORT);
}

/* Insert 4 bytes of IP options (NOP, NOP, NOP, EOL) after a 20-byte header. */
static size_t
add_ip_options(uint8_t *frame, size_t len)
{
	static const uint8_t opts[4] = { 1, 1, 1, 0 };
	uint8_t *ip = frame + 14;
	uint16_t tlen = (uint16_t)((ip[2] << 8 | ip[3]) + 4);
	uint16_t ck;

	memmove(ip + 24, ip + 20, len - 34);
	memcpy(ip + 20, opts, 4);
	ip[0] = 0x46;
	ip[2] = (uint8_t)(tlen >> 8);
	ip[3] = (uint8_t)tlen;
	ip[10] = ip[11] = 0;
	ck = dp_pkt_cksum(ip, 24);
	memcpy(ip + 10, &ck, 2);
	return len + 4;
}

/* Put @p frame on port0's RX ring with the RX checksum flag @p ck (net_ring
 * hands the mbuf over as it is). */
static void
inject_flagged(const uint8_t *frame, size_t len, uint64_t ck)
{
	struct rte_mbuf *m = ring_rig_mbuf(0, frame, len);

	m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_RX_IP_CKSUM_MASK) | ck;
	CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], m) == 0);
}

/* One frame with checksum flag @p ck: forwarded on port 1, or dropped as a bad checksum. */
static void
flagged_case(const uint8_t *frame, size_t len, uint64_t ck, bool forwarded)
{
	struct rte_mbuf *out[8];
	unsigned int n;

	snap_drops();
	inject_flagged(frame, len, ck);
	run_graph();
	dp_graph_worker_flush(worker());
	n = drain_tx(1, out, 8);
	CU_ASSERT_EQUAL(n, forwarded ? 1u : 0u);
	rte_pktmbuf_free_bulk(out, n);
	if (forwarded) {
		unsigned int r;

		for (r = 0; r < DP_DROP_MAX; r++)
			CU_ASSERT_EQUAL(ring_rig_dropped(&rig, r), 0);
	} else {
		assert_only_drop(DP_DROP_IP4_CKSUM);
	}
}

/*
 * The NIC's checksum verdict (the mbuf's RX flag) counts only when a port the
 * worker polls has IPv4 checksum offload on: then "bad" is a drop and "good"
 * spares the software check; without the offload the flag is not read (no
 * PMD sets it then) and only the software check decides. Both through the
 * fast path and, with IP options, the slow one.
 */
static void
test_graph_rx_cksum_flag_counts_with_the_offload_only(void)
{
	struct dp_worker *w = worker();
	const bool check = w->ip4_cksum_check, offload = w->rx_ip4_cksum;
	uint8_t good[2048], bad[2048];
	struct dp_pkt_spec s;
	size_t glen, blen;
	int opts;

	CU_ASSERT_FALSE(offload); /* net_ring has none */
	for (opts = 0; opts < 2; opts++) {
		spec_to(&s, 0xc6120107, 64, 2000);
		glen = build(&s, good);
		memcpy(bad, good, glen);
		blen = glen;
		CU_ASSERT_FATAL(dp_pkt_corrupt(bad, &blen, DP_PKT_BAD_CKSUM) == 0);
		if (opts) {
			glen = add_ip_options(good, glen);
			blen = add_ip_options(bad, blen);
			bad[14 + 10] ^= 0x5a; /* add_ip_options() made its sum right again */
		}
		/* no offload: the flag is not read */
		w->ip4_cksum_check = false;
		flagged_case(good, glen, RTE_MBUF_F_RX_IP_CKSUM_BAD, true);
		w->ip4_cksum_check = true;
		flagged_case(good, glen, RTE_MBUF_F_RX_IP_CKSUM_BAD, true);
		flagged_case(bad, blen, RTE_MBUF_F_RX_IP_CKSUM_GOOD, false);
		/* with the offload: the NIC's verdict, checked or not */
		w->rx_ip4_cksum = true;
		w->ip4_cksum_check = false;
		flagged_case(good, glen, RTE_MBUF_F_RX_IP_CKSUM_BAD, false);
		flagged_case(bad, blen, RTE_MBUF_F_RX_IP_CKSUM_GOOD, true);
		w->ip4_cksum_check = true;
		flagged_case(good, glen, RTE_MBUF_F_RX_IP_CKSUM_BAD, false);
		flagged_case(bad, blen, RTE_MBUF_F_RX_IP_CKSUM_GOOD, true);
		/* unknown: the software check, when it is on */
		flagged_case(bad, blen, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, false);
		w->ip4_cksum_check = false;
		flagged_case(bad, blen, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, true);
		w->rx_ip4_cksum = offload;
		w->ip4_cksum_check = check;
	}
}

/*
 * Good and bad packets interleaved in one burst, so that every node takes its
 * mixed paths (two edges, and three or more: drop + both ports): each good
 * packet still leaves on its port, in order and rewritten, and each bad one
 * is counted once under its reason. Options-bearing headers leave the fast
 * path and are forwarded by the slow one.
 */
static void
test_graph_mixed_bursts_split_exactly(void)
{
	enum kind {
		GOOD1,
		GOOD2,
		OPTS2,
		TTL1,
		CKSUM,
		MARTIAN,
		NO_ROUTE,
		UNRESOLVED,
		ARP,
		OTHER_HOST,
		NB_KIND
	};
	static const enum dp_drop_reason why[NB_KIND] = {
		[TTL1] = DP_DROP_IP4_TTL,
		[CKSUM] = DP_DROP_IP4_CKSUM,
		[MARTIAN] = DP_DROP_IP4_MARTIAN,
		[NO_ROUTE] = DP_DROP_IP4_NO_ROUTE,
		[UNRESOLVED] = DP_DROP_MAX,
		[ARP] = DP_DROP_MAX, /* punted, not dropped */
		[OTHER_HOST] = DP_DROP_L2_OTHER_HOST,
	};
	unsigned int want_punts = 0;
	static uint8_t expect[2][96][128];
	static size_t expect_len[2][96];
	struct rte_mbuf *out[2][128];
	unsigned int nexp[2] = { 0, 0 }, got[2], i, k, r;
	uint64_t want_drops[DP_DROP_MAX] = { 0 };
	uint8_t frame[2048];
	struct dp_pkt_spec s;
	size_t len;

	snap_drops();
	/* 3 bursts of 32; a prime stride mixes the kinds differently in each */
	for (i = 0; i < 96; i++) {
		enum kind kd = (enum kind)((i * 7) % NB_KIND);
		uint16_t sport = (uint16_t)(3000 + i);

		switch (kd) {
		case GOOD1:
		case GOOD2:
		case OPTS2:
			spec_to(&s, kd == GOOD1 ? 0xc6120109 : 0xc6120209, 9, sport);
			len = build(&s, frame);
			if (kd == OPTS2)
				len = add_ip_options(frame, len);
			k = kd == GOOD1 ? 0 : 1;
			memcpy(expect[k][nexp[k]], frame, len);
			expect_len[k][nexp[k]++] = len;
			break;
		case TTL1:
			spec_to(&s, 0xc6120109, 1, sport);
			len = build(&s, frame);
			break;
		case CKSUM:
			spec_to(&s, 0xc6120209, 9, sport);
			len = build(&s, frame);
			CU_ASSERT_FATAL(dp_pkt_corrupt(frame, &len, DP_PKT_BAD_CKSUM) == 0);
			break;
		case MARTIAN:
			spec_to(&s, 0xc6120109, 9, sport);
			s.src_ip4 = 0xf0000001; /* 240.0.0.1 */
			len = build(&s, frame);
			break;
		case NO_ROUTE:
			spec_to(&s, 0xc612c801, 9, sport);
			len = build(&s, frame);
			break;
		case UNRESOLVED:
			spec_to(&s, 0xc6120301, 9, sport);
			len = build(&s, frame);
			break;
		case ARP:
			spec_to(&s, 0xc6120109, 9, sport);
			CU_ASSERT_FATAL(dp_pkt_build_arp(&s, frame, sizeof(frame), &len) == 0);
			break;
		default:
			spec_to(&s, 0xc6120109, 9, sport);
			s.dst_mac[0] ^= 0x04;
			len = build(&s, frame);
			break;
		}
		if (kd > OPTS2 && why[kd] == DP_DROP_MAX)
			want_punts++;
		else if (kd > OPTS2)
			want_drops[why[kd]]++;
		inject_frame(frame, len);
	}
	run_graph();
	got[0] = drain_tx(1, out[0], 128);
	got[1] = drain_tx(2, out[1], 128);
	CU_ASSERT_EQUAL(drain_punts(DP_PUNT_NONE, 128), want_punts);
	CU_ASSERT_EQUAL(got[0], nexp[0]);
	CU_ASSERT_EQUAL(got[1], nexp[1]);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < got[k] && i < nexp[k]; i++) {
			const uint8_t *g = rte_pktmbuf_mtod(out[k][i], const uint8_t *);
			const uint8_t *e = expect[k][i];
			size_t l = expect_len[k][i];

			CU_ASSERT_EQUAL(out[k][i]->pkt_len, l);
			CU_ASSERT(memcmp(g, neigh_mac[k], 6) == 0);
			CU_ASSERT_EQUAL(g[14 + 8], e[14 + 8] - 1);
			CU_ASSERT_TRUE(dp_pkt_ipv4_hdr_cksum_ok(g + 14));
			/* same flow, same order: the UDP source port and payload are unchanged */
			CU_ASSERT(memcmp(g + 14 + 12, e + 14 + 12, l - 26) == 0);
		}
		rte_pktmbuf_free_bulk(out[k], got[k]);
	}
	for (r = 0; r < DP_DROP_MAX; r++) {
		uint64_t d = ring_rig_dropped(&rig, r);

		if (d != want_drops[r])
			fprintf(stderr, "\n  %s moved by %lu, expected %lu\n", dp_drop_name(r),
				(unsigned long)d, (unsigned long)want_drops[r]);
		CU_ASSERT_EQUAL(d, want_drops[r]);
	}
}

static void
test_graph_tx_full_is_counted_not_stuck(void)
{
	uint8_t frame[2048];
	struct rte_mbuf *out[512];
	struct dp_pkt_spec s;
	uint64_t full_before = worker()->stats.drops[DP_DROP_TX_FULL];
	unsigned int i, got;
	size_t len;

	/* port1's TX ring holds 127: send 300 to it without draining */
	for (i = 0; i < 300; i++) {
		spec_to(&s, 0xc6120109, 64, (uint16_t)(3000 + i));
		len = build(&s, frame);
		inject_frame(frame, len);
	}
	dp_graph_worker_run(worker(), 16);
	dp_graph_worker_flush(worker());
	got = drain_tx(1, out, 256);
	CU_ASSERT_EQUAL(got, TX1_RING_SIZE - 1);
	CU_ASSERT_EQUAL(worker()->stats.drops[DP_DROP_TX_FULL] - full_before, 300 - got);
	rte_pktmbuf_free_bulk(out, got);
	/* and the port works again */
	spec_to(&s, 0xc6120109, 64, 4000);
	inject_frame(frame, build(&s, frame));
	run_graph();
	dp_graph_worker_flush(worker());
	got = drain_tx(1, out, 256);
	CU_ASSERT_EQUAL(got, 1);
	rte_pktmbuf_free_bulk(out, got);
}

static void
test_graph_small_batches_wait_for_the_drain_timer(void)
{
	uint8_t frame[2048];
	struct rte_mbuf *out[8];
	struct dp_pkt_spec s;
	uint64_t saved = worker()->drain_tsc;

	worker()->drain_tsc = UINT64_MAX; /* never drain by time */
	worker()->flush_idle = false;     /* tx_flush_idle = off */
	spec_to(&s, 0xc6120109, 64, 5000);
	inject_frame(frame, build(&s, frame));
	run_graph();
	CU_ASSERT_EQUAL(drain_tx(1, out, 8), 0); /* held in the TX buffer */
	dp_graph_worker_flush(worker());
	CU_ASSERT_EQUAL(drain_tx(1, out, 8), 1);
	rte_pktmbuf_free(out[0]);
	worker()->flush_idle = true;
	worker()->drain_tsc = saved;
}

/* tx_flush_idle (the default): a lone packet leaves at the end of its walk,
 * since the RX queue came back short; a full burst waits for nothing either. */
static void
test_graph_small_batches_leave_when_rx_is_idle(void)
{
	uint8_t frame[2048];
	struct rte_mbuf *out[8];
	struct dp_pkt_spec s;
	uint64_t saved = worker()->drain_tsc;

	CU_ASSERT_TRUE(worker()->flush_idle);
	worker()->drain_tsc = UINT64_MAX;
	spec_to(&s, 0xc6120109, 64, 5001);
	inject_frame(frame, build(&s, frame));
	dp_graph_worker_run(worker(), 1);
	CU_ASSERT_EQUAL(drain_tx(1, out, 8), 1);
	rte_pktmbuf_free_bulk(out, 1);
	worker()->drain_tsc = saved;
}

static void
test_graph_telemetry_counts_add_up_and_json_is_valid(void)
{
	char path[160];
	json_t *snap, *back, *lc, *nodes, *fwd;
	json_error_t jerr;
	uint64_t rx, tx, drops;

	snap = dp_telemetry_snapshot();
	CU_ASSERT_FATAL(snap != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(snap, "schema_version")),
		DP_TELEMETRY_SCHEMA_VERSION);
	CU_ASSERT(json_integer_value(json_object_get(snap, "tsc_hz")) > 0);
	lc = json_array_get(json_object_get(snap, "lcores"), 0);
	CU_ASSERT_FATAL(lc != NULL);
	rx = json_integer_value(json_object_get(lc, "rx_pkts"));
	tx = json_integer_value(json_object_get(lc, "tx_pkts"));
	/* every packet freed: the errors and those consumed (ARP/ND learned from) */
	drops = json_integer_value(json_object_get(json_object_get(snap, "drops"), "total")) +
		json_integer_value(json_object_get(json_object_get(snap, "drops"), "consumed"));
	CU_ASSERT(rx > 0);
	/* in + made by the control lcore + ICMP errors originated = out + dropped +
	 * handed to the control lcore, once the TX buffers are flushed (a packet that
	 * gets an ICMP error is a drop, and the error one more packet) */
	CU_ASSERT(json_integer_value(json_object_get(lc, "punted")) > 0);
	{
		struct dp_icmp4_stats ist;

		dp_icmp4_stats_get(&ist);
		CU_ASSERT(ist.errors_sent > 0);
		CU_ASSERT_EQUAL(
			rx + json_integer_value(json_object_get(lc, "injected")) + ist.errors,
			tx + drops + json_integer_value(json_object_get(lc, "punted")));
	}
	nodes = json_object_get(snap, "nodes");
	fwd = json_object_get(nodes, "ip4_fwd");
	CU_ASSERT_FATAL(fwd != NULL);
	CU_ASSERT(json_integer_value(json_object_get(fwd, "pkts")) > 0);
	CU_ASSERT(json_is_real(json_object_get(fwd, "cycles_per_pkt")));
	CU_ASSERT(json_object_get(nodes, "port_tx-1") != NULL);
	CU_ASSERT(json_is_array(json_object_get(snap, "ports")));
	CU_ASSERT(json_is_array(json_object_get(snap, "mempools")));
	CU_ASSERT(json_object_get(lc, "instructions") != NULL);
	/* instructions: a number, or null with the reason */
	if (json_is_null(json_object_get(lc, "instructions")))
		CU_ASSERT(json_is_string(json_object_get(lc, "instructions_unavailable")));

	snprintf(path, sizeof(path), "%s/snap.json", rig.tmpdir);
	CU_ASSERT_EQUAL(dp_telemetry_json_write(path, snap), 0);
	back = json_load_file(path, 0, &jerr);
	CU_ASSERT_FATAL(back != NULL);
	CU_ASSERT_TRUE(json_equal(json_object_get(back, "drops"), json_object_get(snap, "drops")));
	json_decref(back);
	json_decref(snap);
	unlink(path);
}

/* Every packet sent is in the delay histogram once, with its own RX stamp:
 * packets held back in the TX buffer for ~2 ms show it, the others do not. */
static void
test_graph_delay_histogram_times_every_sent_packet(void)
{
	struct dp_hist *h = &worker()->delay.hist;
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t count0 = h->count, max0 = h->max, tx0;
	struct rte_mbuf *out[64];
	uint8_t frame[2048];
	struct dp_pkt_spec s;
	uint64_t saved = worker()->drain_tsc;
	json_t *snap, *tot;
	unsigned int i, n;
	size_t len;

	CU_ASSERT_TRUE_FATAL(worker()->delay_stats);
	dp_graph_worker_flush(worker());
	tx0 = worker()->stats.tx_pkts;
	/* 32 packets: a full burst, sent within the walk */
	for (i = 0; i < 32; i++) {
		spec_to(&s, 0xc6120107, 64, (uint16_t)(2000 + i));
		len = build(&s, frame);
		inject_frame(frame, len);
	}
	run_graph();
	CU_ASSERT_EQUAL(worker()->stats.tx_pkts - tx0, 32);
	CU_ASSERT_EQUAL(h->count - count0, 32);
	/* well under a millisecond: stamped at RX, timed at TX in the same walk */
	CU_ASSERT(h->max == max0 || h->max < hz / 1000);
	/* one packet that waits in the TX buffer for the drain timer (never due
	 * here), then is flushed 2 ms later: its delay includes the wait */
	worker()->drain_tsc = UINT64_MAX;
	worker()->flush_idle = false;
	spec_to(&s, 0xc6120107, 64, 2100);
	len = build(&s, frame);
	inject_frame(frame, len);
	run_graph();
	CU_ASSERT_EQUAL(h->count - count0, 32);
	rte_delay_us_block(2000);
	dp_graph_worker_flush(worker());
	worker()->drain_tsc = saved;
	worker()->flush_idle = true;
	CU_ASSERT_EQUAL(h->count - count0, 33);
	CU_ASSERT(h->max >= 2 * hz / 1000);
	CU_ASSERT(h->max < 2 * hz); /* a stamp, not garbage */
	n = drain_tx(1, out, 64);
	CU_ASSERT_EQUAL(n, 33);
	rte_pktmbuf_free_bulk(out, n);

	/* the telemetry section: count and ordered quantiles in ns */
	snap = dp_telemetry_snapshot();
	CU_ASSERT_FATAL(snap != NULL);
	tot = json_object_get(json_object_get(snap, "delay"), "total");
	CU_ASSERT_FATAL(tot != NULL);
	CU_ASSERT_EQUAL((uint64_t)json_integer_value(json_object_get(tot, "count")), h->count);
	CU_ASSERT(json_real_value(json_object_get(tot, "p50_ns")) <=
		  json_real_value(json_object_get(tot, "p99_ns")));
	CU_ASSERT(json_real_value(json_object_get(tot, "p99_ns")) <=
		  json_real_value(json_object_get(tot, "max_ns")) * 1.25);
	CU_ASSERT(json_real_value(json_object_get(tot, "max_ns")) >= 2e6);
	CU_ASSERT(json_is_array(json_object_get(tot, "buckets_cycles")));
	json_decref(snap);
}

/* With delay_stats_sample = N, one full TX burst in N on average is timed and
 * each of its packets counts N times; a partial burst is always timed, each
 * packet once. The histogram's count estimates the packets sent. */
static void
test_graph_delay_sample_times_one_full_burst_in_n(void)
{
	enum { SAMPLE = 8, BURSTS = 256 };
	struct dp_hist *h = &worker()->delay.hist;
	const uint64_t count0 = h->count;
	struct rte_mbuf *out[64];
	uint8_t frame[2048];
	struct dp_pkt_spec s;
	uint64_t timed, tx0;
	unsigned int b, i, n;
	size_t len;

	dp_graph_worker_flush(worker());
	tx0 = worker()->stats.tx_pkts;
	worker()->delay_sample = SAMPLE;
	spec_to(&s, 0xc6120107, 64, 2000);
	len = build(&s, frame);
	/* full bursts of 32, each sent within its walk */
	for (b = 0; b < BURSTS; b++) {
		for (i = 0; i < 32; i++)
			inject_frame(frame, len);
		run_graph();
		n = drain_tx(1, out, 64);
		CU_ASSERT_EQUAL(n, 32);
		rte_pktmbuf_free_bulk(out, n);
	}
	CU_ASSERT_EQUAL(worker()->stats.tx_pkts - tx0, 32 * BURSTS);
	timed = h->count - count0;
	/* whole bursts of SAMPLE x 32 each, about one burst in SAMPLE (the
	 * number timed is 32 +- 3 here: 16..48 is five standard deviations) */
	CU_ASSERT_EQUAL(timed % (SAMPLE * 32), 0);
	CU_ASSERT(timed >= 32 * BURSTS / 2 && timed <= 32 * BURSTS * 3 / 2);
	/* a partial burst (one packet, flushed after the walk) counts once */
	inject_frame(frame, len);
	run_graph();
	dp_graph_worker_flush(worker());
	CU_ASSERT_EQUAL(h->count - count0, timed + 1);
	n = drain_tx(1, out, 64);
	CU_ASSERT_EQUAL(n, 1);
	rte_pktmbuf_free_bulk(out, n);
	/* back to every burst, from the next one on */
	worker()->delay_sample = 1;
	for (i = 0; i < NB_PORTS; i++)
		worker()->txq_cfg[i]->delay_skip = 1;
}

/* dp_delay_note/commit on their own: runs of equal stamps become one
 * histogram update each, every packet is counted once at its own delay, and
 * more runs than the pending list holds are timed early, not lost. */
static void
test_graph_delay_runs_are_counted_once_each(void)
{
	enum { RUNS = 3 * DP_DELAY_PEND, PER = 3, N = RUNS * PER };
	static struct dp_delay_hist h;
	static struct dp_delay_pend p;
	struct rte_mbuf *m[N];
	const uint64_t base = rte_rdtsc() - 1000000;
	uint64_t bytes = 0, noted_bytes = 0, low = 0, total = 0;
	unsigned int i, b;

	dp_delay_init(&h);
	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_alloc_bulk(dp_mem_pool_get(0), m, N), 0);
	/* run r: stamp base - 1000 r, so its delay at commit is >= 1000 r + 1e6 */
	for (i = 0; i < N; i++) {
		dp_mbuf_meta(m[i], dp_mbuf_meta_offset)->rx_tsc = base - 1000 * (i / PER);
		m[i]->pkt_len = 60 + i;
		bytes += 60 + i;
		low += 1000000 + 1000 * (i / PER);
	}
	/* in two sends, the second starting mid-run */
	dp_delay_note(&h, &p, m, N / 2 + 1, 1, dp_mbuf_meta_offset, &noted_bytes);
	dp_delay_note(&h, &p, m + N / 2 + 1, N - N / 2 - 1, 1, dp_mbuf_meta_offset, &noted_bytes);
	CU_ASSERT_EQUAL(noted_bytes, bytes);
	CU_ASSERT(p.n <= DP_DELAY_PEND);
	CU_ASSERT(h.hist.count < N); /* some were timed early, the rest wait */
	dp_delay_commit(&h, &p, rte_rdtsc());
	CU_ASSERT_EQUAL(p.n, 0);
	CU_ASSERT_EQUAL(h.hist.count, N);
	CU_ASSERT(h.hist.sum >= low);
	CU_ASSERT(h.hist.max >= 1000000 + 1000 * (RUNS - 1));
	CU_ASSERT(h.hist.max < rte_get_tsc_hz()); /* well under a second here */
	for (b = 0; b < DP_DELAY_BUCKETS; b++)
		total += dp_hist_counts(&h.hist)[b];
	CU_ASSERT_EQUAL(total, N);
	/* nothing below the smallest delay */
	for (b = 0; b < dp_hist_index(1000000, DP_DELAY_SUB_BITS); b++)
		CU_ASSERT_EQUAL(dp_hist_counts(&h.hist)[b], 0);
	rte_pktmbuf_free_bulk(m, N);
}

static void
test_graph_no_mbuf_leak_after_traffic(void)
{
	ring_rig_flush_drain_all(&rig);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), 0);
}

/* A tap that marks every received packet as trace 7 and closes it as it leaves. */
static void
trace_test_tap(struct dp_worker *w, uint16_t port, uint16_t queue, bool tx, struct rte_mbuf **pkts,
	uint16_t n)
{
	uint16_t i;

	RTE_SET_USED(w);
	RTE_SET_USED(queue);
	for (i = 0; i < n; i++)
		if (!tx)
			dp_trace_mark(pkts[i], 7, dp_port_index[port], "port_rx", "rx");
		else if (dp_trace_marked(pkts[i]))
			dp_trace_close(pkts[i], "tx", "tx");
}

/* The nodes of trace 7's records, in time order, joined by ' ', in @p out. */
static void
trace_test_path(char *out, size_t len)
{
	const struct dp_trace_rec *recs[16];
	unsigned int nr = 0, i, j;
	uint16_t b;

	for (b = 0; b <= dp_nb_workers; b++) {
		const struct dp_trace_buf *buf = dp_trace_bufs[b];

		for (i = 0; i < buf->n && nr < RTE_DIM(recs); i++)
			if (buf->rec[i].id == 7)
				recs[nr++] = &buf->rec[i];
	}
	for (i = 1; i < nr; i++)
		for (j = i; j > 0 && recs[j - 1]->tsc > recs[j]->tsc; j--) {
			const struct dp_trace_rec *t = recs[j];

			recs[j] = recs[j - 1];
			recs[j - 1] = t;
		}
	out[0] = '\0';
	for (i = 0; i < nr; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", recs[i]->node);
}

/* Run one forwarded packet with the test tap set and the trace armed or not: its path. */
static void
trace_test_run(bool armed, char *path, size_t len)
{
	struct rte_mbuf *out[4];
	uint8_t frame[2048];
	struct dp_pkt_spec s;
	uint32_t closed = dp_trace_closed;

	CU_ASSERT_FATAL(dp_trace_init() == 0);
	CU_ASSERT_FATAL(dp_trace_bufs_alloc(dp_nb_workers) == 0);
	dp_trace_bufs_reset();
	dp_trace_armed = armed;
	dp_graph_tap = trace_test_tap;
	spec_to(&s, 0xc6120107, 64, 4242);
	inject_frame(frame, build(&s, frame));
	run_graph();
	dp_graph_worker_flush(worker());
	dp_graph_tap = NULL;
	dp_trace_armed = 0;
	CU_ASSERT_EQUAL(drain_tx(1, out, 4), 1);
	CU_ASSERT_FALSE(dp_trace_marked(out[0])); /* the trace closed as it left */
	CU_ASSERT_EQUAL(dp_trace_closed - closed, 1);
	rte_pktmbuf_free(out[0]);
	trace_test_path(path, len);
	dp_trace_bufs_reset();
}

static void
test_graph_trace_records_each_node_a_marked_packet_visits(void)
{
	char path[256];

	trace_test_run(true, path, sizeof(path));
	CU_ASSERT_STRING_EQUAL(path, "port_rx ip4_fwd tx");
}

static void
test_graph_trace_not_armed_walks_without_the_hook(void)
{
	char path[256];

	/* marked, but the walk is the untraced one: no node's record */
	trace_test_run(false, path, sizeof(path));
	CU_ASSERT_STRING_EQUAL(path, "port_rx tx");
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
	{ "test_graph_forwards_and_rewrites_both_routes",
		test_graph_forwards_and_rewrites_both_routes },
	{ "test_graph_each_malformed_packet_has_its_drop_reason",
		test_graph_each_malformed_packet_has_its_drop_reason },
	{ "test_graph_mixed_bursts_split_exactly", test_graph_mixed_bursts_split_exactly },
	{ "test_graph_rx_cksum_flag_counts_with_the_offload_only",
		test_graph_rx_cksum_flag_counts_with_the_offload_only },
	{ "test_graph_tx_full_is_counted_not_stuck", test_graph_tx_full_is_counted_not_stuck },
	{ "test_graph_small_batches_wait_for_the_drain_timer",
		test_graph_small_batches_wait_for_the_drain_timer },
	{ "test_graph_small_batches_leave_when_rx_is_idle",
		test_graph_small_batches_leave_when_rx_is_idle },
	{ "test_graph_telemetry_counts_add_up_and_json_is_valid",
		test_graph_telemetry_counts_add_up_and_json_is_valid },
	{ "test_graph_delay_histogram_times_every_sent_packet",
		test_graph_delay_histogram_times_every_sent_packet },
	{ "test_graph_delay_sample_times_one_full_burst_in_n",
		test_graph_delay_sample_times_one_full_burst_in_n },
	{ "test_graph_delay_runs_are_counted_once_each",
		test_graph_delay_runs_are_counted_once_each },
	{ "test_graph_trace_records_each_node_a_marked_packet_visits",
		test_graph_trace_records_each_node_a_marked_packet_visits },
	{ "test_graph_trace_not_armed_walks_without_the_hook",
		test_graph_trace_not_armed_walks_without_the_hook },
	{ "test_graph_no_mbuf_leak_after_traffic", test_graph_no_mbuf_leak_after_traffic },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("graph", tests, suite_init, suite_cleanup);
}
