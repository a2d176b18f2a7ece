/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 802.1Q sub-interfaces in the datapath: EAL on --no-huge, two net_ring ports,
 * port0 with sub-interfaces 0.100 and 0.200, the real graph walked on the test
 * thread. Crafted frames go in on port0; each test asserts the bytes that came
 * out, or the drop reason counted. The tag is written here by hand (TPID 0x8100,
 * then the TCI, IEEE 802.1Q 9.3): an oracle apart from rte_vlan_insert().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "dp_test.h"
#include "dp_trace.h"
#include "ring_rig.h"

#define SUBIF_100 2 /* config port indexes: after port0 and port1, in section order */
#define SUBIF_200 3

static const uint8_t sender_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "[port0]\n"
				  "dev = net_ring_v0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "ip6 = 2001:db8::1/64\n"
				  "[port0.100]\n"
				  "ip4 = 198.18.100.1/24\n"
				  "ip6 = 2001:db8:100::1/64\n"
				  "[port0.200]\n"
				  "ip4 = 198.18.200.1/24\n"
				  "[port0.400]\n"
				  "ip6 = 2001:db8:400::2/64\n"
				  "mac = 02:00:00:aa:bb:cc\n"
				  "[port1]\n"
				  "dev = net_ring_v1\n"
				  "ip4 = 198.18.101.1/24\n"
				  "ip6 = 2001:db8:1::3/64\n"
				  "[lcores]\n"
				  "rx = (0,0,1), (1,0,1)\n"
				  "[routes]\n"
				  "route = 198.18.1.0/24 via 198.18.101.2 port 1\n"
				  "route = 198.18.2.0/24 via 198.18.200.2 port 0.200\n"
				  "route = 2001:db8:2::/64 via 2001:db8:100::2 port 0.100\n"
				  "[neighbors]\n"
				  "neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1\n"
				  "neigh = 198.18.200.2 lladdr 02:00:00:00:02:02 port 0.200\n"
				  "neigh = 2001:db8:100::2 lladdr 02:00:00:00:01:64 port 0.100\n";

static struct ring_rig rig = {
	.name = "vlan",
	.prefix = 'v',
	.nb_ports = 2,
	.config_text = config_text,
};

/* Untagged frame @p f of @p len bytes tagged @p vid in place, by hand. @return its length. */
static size_t
tag_insert(uint8_t *f, size_t len, uint16_t vid)
{
	memmove(f + 16, f + 12, len - 12);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = (uint8_t)(vid >> 8);
	f[15] = (uint8_t)vid;
	return len + 4;
}

/* A UDP frame to port0 from 198.18.x.2 to @p dst, tagged @p vid unless 0. */
static size_t
frame(uint8_t *f, uint32_t src, uint32_t dst, uint16_t vid)
{
	size_t len = ring_rig_udp4(f, 0, sender_mac, src, dst, 1234);

	return vid == 0 ? len : tag_insert(f, len, vid);
}

static void
run_graph(void)
{
	dp_graph_worker_run(dp_workers[0], 8);
	dp_graph_worker_flush(dp_workers[0]);
}

static uint64_t
vlan_rx(uint16_t idx)
{
	return dp_port_vlan_stats[dp_workers[0]->lcore_id].s[idx - dp_nb_phys_ports].rx_pkts;
}

static const struct dp_port_vlan_stats *
vlan_stats(uint16_t idx)
{
	return &dp_port_vlan_stats[dp_workers[0]->lcore_id].s[idx - dp_nb_phys_ports];
}

static void
test_vlan_tagged_frame_leaves_untagged_by_port1(void)
{
	uint8_t in[2048], plain[2048];
	struct rte_mbuf *out[4];
	size_t len = frame(in, 0xc6126402, 0xc6120109, 100); /* 198.18.100.2 -> 198.18.1.9 */
	size_t plain_len = frame(plain, 0xc6126402, 0xc6120109, 0);
	uint64_t rx = vlan_rx(SUBIF_100);
	const uint8_t *p;

	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, in, len);
	run_graph();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 1, out, 4), 1);
	p = rte_pktmbuf_mtod(out[0], const uint8_t *);
	CU_ASSERT_EQUAL(out[0]->pkt_len, plain_len);
	CU_ASSERT(p[12] == 0x08 && p[13] == 0x00);
	CU_ASSERT_EQUAL(p[14 + 8], 19); /* TTL 20, one less */
	/* the IP packet after TTL and checksum: the untagged frame's */
	CU_ASSERT(memcmp(p + 14 + 12, plain + 14 + 12, plain_len - 14 - 12) == 0);
	CU_ASSERT_EQUAL(vlan_rx(SUBIF_100), rx + 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	rte_pktmbuf_free(out[0]);
}

/* Bursts of several frames: all of one VLAN (port_rx's own check takes the tags off),
 * and VLANs and untagged mixed (eth_classify frame by frame); each frame leaves port1
 * untagged with the IP packet of its untagged twin, in order. */
static void
test_vlan_bursts_one_vlan_and_mixed(void)
{
	static const uint16_t one[4] = { 100, 100, 100, 100 };
	static const uint16_t mixed[4] = { 100, 0, 200, 100 };
	const uint16_t *vids[2] = { one, mixed };
	uint8_t in[2048], plain[2048];
	struct rte_mbuf *out[8];
	unsigned int k, i;

	for (k = 0; k < 2; k++) {
		uint64_t rx100 = vlan_rx(SUBIF_100), rx200 = vlan_rx(SUBIF_200);
		unsigned int n100 = 0, n200 = 0;

		ring_rig_drops_mark(&rig);
		for (i = 0; i < 4; i++) {
			const uint16_t vid = vids[k][i];
			const uint32_t src = vid == 100   ? 0xc6126402
					     : vid == 200 ? 0xc612c802
							  : 0xc6120002;

			ring_rig_inject(&rig, 0, in, frame(in, src, 0xc6120110 + i, vid));
			n100 += vid == 100;
			n200 += vid == 200;
		}
		run_graph();
		CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 1, out, 8), 4);
		for (i = 0; i < 4; i++) {
			const uint16_t vid = vids[k][i];
			const uint32_t src = vid == 100   ? 0xc6126402
					     : vid == 200 ? 0xc612c802
							  : 0xc6120002;
			const size_t plain_len = frame(plain, src, 0xc6120110 + i, 0);
			const uint8_t *p = rte_pktmbuf_mtod(out[i], const uint8_t *);

			CU_ASSERT_EQUAL(out[i]->pkt_len, plain_len);
			CU_ASSERT(p[12] == 0x08 && p[13] == 0x00);
			CU_ASSERT_EQUAL(p[14 + 8], 19);
			CU_ASSERT(memcmp(p + 14 + 12, plain + 14 + 12, plain_len - 14 - 12) == 0);
		}
		rte_pktmbuf_free_bulk(out, 4);
		CU_ASSERT_EQUAL(vlan_rx(SUBIF_100), rx100 + n100);
		CU_ASSERT_EQUAL(vlan_rx(SUBIF_200), rx200 + n200);
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	}
}

static void
test_vlan_routed_to_sub_interface_leaves_tagged_vid_200(void)
{
	static const uint8_t tag[6] = { 0x81, 0x00, 0x00, 200, 0x08, 0x00 };
	static const uint8_t neigh[6] = { 0x02, 0, 0, 0, 0x02, 0x02 };
	uint8_t in[2048];
	struct rte_mbuf *out[4];
	size_t len;
	unsigned int k;

	/* untagged from port0's network, and tagged from VLAN 100: both to VLAN 200 */
	for (k = 0; k < 2; k++) {
		const uint32_t src = k == 0 ? 0xc6120002 : 0xc6126402;
		const uint64_t tx = vlan_stats(SUBIF_200)->tx_pkts;
		const uint64_t tx_bytes = vlan_stats(SUBIF_200)->tx_bytes;
		uint8_t plain[2048];
		const size_t plain_len = frame(plain, src, 0xc6120209, 0);
		const uint8_t *p;

		len = frame(in, src, 0xc6120209, k == 0 ? 0 : 100);
		ring_rig_drops_mark(&rig);
		ring_rig_inject(&rig, 0, in, len);
		run_graph();
		CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 4), 1);
		p = rte_pktmbuf_mtod(out[0], const uint8_t *);
		CU_ASSERT_EQUAL(out[0]->pkt_len, plain_len + 4);
		CU_ASSERT_EQUAL(out[0]->data_len, plain_len + 4);
		CU_ASSERT(memcmp(p, neigh, 6) == 0);
		CU_ASSERT(memcmp(p + 6, &dp_ports[0].mac, 6) == 0);
		CU_ASSERT(memcmp(p + 12, tag, sizeof(tag)) == 0);
		CU_ASSERT_EQUAL(p[18 + 8], 19);
		/* the header's checksum right after TTL - 1 (DPDK's sum as the oracle), the
		 * rest of the packet the untagged frame's */
		CU_ASSERT_EQUAL(rte_raw_cksum(p + 18, sizeof(struct rte_ipv4_hdr)), 0xffff);
		CU_ASSERT(memcmp(p + 18 + 12, plain + 14 + 12, plain_len - 14 - 12) == 0);
		CU_ASSERT_EQUAL(vlan_stats(SUBIF_200)->tx_pkts, tx + 1);
		CU_ASSERT_EQUAL(vlan_stats(SUBIF_200)->tx_bytes, tx_bytes + plain_len + 4);
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
		rte_pktmbuf_free(out[0]);
	}
}

/* A frame routed to a sub-interface with no room in front of it for the tag: not
 * sent, counted as vlan_tag_failed, its mbuf freed. */
static void
test_vlan_no_headroom_for_the_tag_is_vlan_tag_failed(void)
{
	struct dp_worker *w = dp_workers[0];
	uint8_t in[2048];
	struct rte_mbuf *out[4];
	const size_t len = frame(in, 0xc6120002, 0xc6120209, 0);
	struct rte_mbuf *m = ring_rig_mbuf(0, in, len);
	const uint64_t before = w->stats.drops[DP_DROP_VLAN_TAG_FAILED];
	const unsigned int in_use = rte_mempool_in_use_count(m->pool);
	const uint64_t tx = vlan_stats(SUBIF_200)->tx_pkts;

	/* the frame at the very start of the buffer */
	memmove(m->buf_addr, rte_pktmbuf_mtod(m, uint8_t *), len);
	m->data_off = 0;
	CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], m) == 0);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drain(&rig, 0, out, 4), 0);
	CU_ASSERT_EQUAL(w->stats.drops[DP_DROP_VLAN_TAG_FAILED], before + 1);
	CU_ASSERT_EQUAL(vlan_stats(SUBIF_200)->tx_pkts, tx);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(m->pool), in_use - 1);
}

static void
test_vlan_unknown_vid_is_vlan_unknown(void)
{
	uint8_t in[2048];
	size_t len = frame(in, 0xc6126402, 0xc6120109, 300);

	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, in, len);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0), 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_VLAN_UNKNOWN), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
}

static void
test_vlan_untagged_frame_stays_with_port0(void)
{
	uint8_t in[2048];
	struct rte_mbuf *out[4];
	size_t len = frame(in, 0xc6120002, 0xc6120109, 0);
	uint64_t rx100 = vlan_rx(SUBIF_100), rx200 = vlan_rx(SUBIF_200);

	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, in, len);
	run_graph();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 1, out, 4), 1);
	CU_ASSERT_EQUAL(out[0]->pkt_len, len);
	CU_ASSERT_EQUAL(vlan_rx(SUBIF_100), rx100);
	CU_ASSERT_EQUAL(vlan_rx(SUBIF_200), rx200);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	rte_pktmbuf_free(out[0]);
}

/* With the device's VLAN insert: the TCI in the mbuf, the bytes untouched. */
static void
test_vlan_insert_offload_sets_the_tci_only(void)
{
	struct dp_worker *w = dp_workers[0];
	struct dp_worker_txq *q = w->txq_cfg[SUBIF_200];
	uint8_t in[2048];
	size_t len = frame(in, 0xc6120002, 0xc6120209, 0);
	struct rte_mbuf *m = ring_rig_mbuf(0, in, len);

	q->vlan_insert = true;
	CU_ASSERT_EQUAL(dp_txq_vlan_push(w, q, &m, 1), 1);
	q->vlan_insert = false;
	CU_ASSERT_EQUAL(m->vlan_tci, 200);
	CU_ASSERT((m->ol_flags & RTE_MBUF_F_TX_VLAN) != 0);
	CU_ASSERT_EQUAL(m->pkt_len, len);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, const uint8_t *), in, len) == 0);
	rte_pktmbuf_free(m);
}

/* A shared buffer cannot take the tag in place: freed (its reference) and counted. */
static void
test_vlan_shared_mbuf_is_vlan_tag_failed(void)
{
	struct dp_worker *w = dp_workers[0];
	struct dp_worker_txq *q = w->txq_cfg[SUBIF_200];
	uint8_t in[2048];
	size_t len = frame(in, 0xc6120002, 0xc6120209, 0);
	struct rte_mbuf *m = ring_rig_mbuf(0, in, len);
	struct rte_mbuf *pkts[1] = { m };
	uint64_t before = w->stats.drops[DP_DROP_VLAN_TAG_FAILED];

	rte_mbuf_refcnt_update(m, 1);
	CU_ASSERT_EQUAL(dp_txq_vlan_push(w, q, pkts, 1), 0);
	CU_ASSERT_EQUAL(w->stats.drops[DP_DROP_VLAN_TAG_FAILED], before + 1);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
	rte_pktmbuf_free(m);
}

/* A route added while running names the sub-interface as N.VID; one that does not exist
 * is refused. */
static void
test_vlan_route_added_at_run_time_names_port_n_vid(void)
{
	uint8_t in[2048];
	struct rte_mbuf *out[4];
	char err[256] = "";
	size_t len = frame(in, 0xc6120002, 0xc6120309, 0); /* -> 198.18.3.9 */

	CU_ASSERT_EQUAL(
		ring_rig_route(true, "198.18.3.0/24 via 198.18.200.2 port 0.999", err, sizeof(err)),
		-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "port 0.999 does not exist");
	CU_ASSERT_EQUAL_FATAL(
		ring_rig_route(true, "198.18.3.0/24 via 198.18.200.2 port 0.200", err, sizeof(err)),
		0);
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, in, len);
	run_graph();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 4), 1);
	CU_ASSERT_EQUAL(rte_pktmbuf_mtod(out[0], const uint8_t *)[15], 200);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	rte_pktmbuf_free(out[0]);
}

/* A frame of VLAN @p vid (0: untagged) as a device that takes tags off hands it
 * over: without the tag, the TCI in the mbuf, priority 5 beside the VID. */
static void
inject_stripped(uint32_t src, uint32_t dst, uint16_t vid)
{
	uint8_t f[2048];
	size_t len = frame(f, src, dst, 0);
	struct rte_mbuf *m = ring_rig_mbuf(0, f, len);

	if (vid != 0) {
		m->vlan_tci = (uint16_t)(5 << 13 | vid);
		m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	}
	CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], m) == 0);
}

/*
 * port0 as a device with VLAN_STRIP: bursts of one VLAN (port_rx's own pass),
 * VLANs and untagged mixed (eth_classify), untagged only, an unknown VLAN, and a
 * frame of VLAN 100 routed to VLAN 200 (tagged again in software on the way
 * out). What leaves port1 is each frame's untagged twin, TTL one less, with no
 * VLAN flag left.
 */
static void
test_vlan_tags_taken_off_by_the_device(void)
{
	static const uint16_t bursts[3][4] = {
		{ 100, 100, 100, 100 },
		{ 100, 0, 200, 100 },
		{ 0, 0, 0, 0 },
	};
	static const uint8_t tag200[6] = { 0x81, 0x00, 0x00, 200, 0x08, 0x00 };
	struct dp_graph_port_l2 *l2 = &dp_graph_port_l2[dp_ports[0].port_id];
	uint8_t plain[2048];
	struct rte_mbuf *out[8];
	unsigned int k, i;
	size_t len;

	l2->vlan_strip = true;
	for (k = 0; k < RTE_DIM(bursts); k++) {
		uint64_t rx100 = vlan_rx(SUBIF_100), rx200 = vlan_rx(SUBIF_200);
		unsigned int n100 = 0, n200 = 0;

		ring_rig_drops_mark(&rig);
		for (i = 0; i < 4; i++) {
			const uint16_t vid = bursts[k][i];

			inject_stripped(vid == 100   ? 0xc6126402
					: vid == 200 ? 0xc612c802
						     : 0xc6120002,
				0xc6120110 + i, vid);
			n100 += vid == 100;
			n200 += vid == 200;
		}
		run_graph();
		CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 1, out, 8), 4);
		for (i = 0; i < 4; i++) {
			const uint16_t vid = bursts[k][i];
			const uint8_t *p = rte_pktmbuf_mtod(out[i], const uint8_t *);

			len = frame(plain,
				vid == 100   ? 0xc6126402
				: vid == 200 ? 0xc612c802
					     : 0xc6120002,
				0xc6120110 + i, 0);
			CU_ASSERT_EQUAL(out[i]->pkt_len, len);
			CU_ASSERT(p[12] == 0x08 && p[13] == 0x00);
			CU_ASSERT_EQUAL(p[14 + 8], 19);
			CU_ASSERT(memcmp(p + 14 + 12, plain + 14 + 12, len - 14 - 12) == 0);
			CU_ASSERT((out[i]->ol_flags &
					  (RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_VLAN |
						  RTE_MBUF_F_TX_VLAN)) == 0);
		}
		rte_pktmbuf_free_bulk(out, 4);
		CU_ASSERT_EQUAL(vlan_rx(SUBIF_100), rx100 + n100);
		CU_ASSERT_EQUAL(vlan_rx(SUBIF_200), rx200 + n200);
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	}

	ring_rig_drops_mark(&rig);
	inject_stripped(0xc6126402, 0xc6120109, 300);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1) + ring_rig_drain_free(&rig, 0), 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_VLAN_UNKNOWN), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);

	ring_rig_drops_mark(&rig);
	inject_stripped(0xc6126402, 0xc6120209, 100);
	run_graph();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 4), 1);
	len = frame(plain, 0xc6126402, 0xc6120209, 200);
	CU_ASSERT_EQUAL(out[0]->pkt_len, len);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(out[0], const uint8_t *) + 12, tag200, sizeof(tag200)) ==
		  0);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	rte_pktmbuf_free(out[0]);
	l2->vlan_strip = false;
}

/*
 * port0's multicast filter list holds its sub-interfaces' groups too, each
 * once: the solicited-node group of an address is ff02::1:ffXX:XXXX of its
 * last 24 bits (RFC 4291 2.7.1), its MAC 33:33 and the group's last 32 bits
 * (RFC 2464 7); a link-local address ends in its MAC's last 3 bytes (EUI-64).
 */
static void
test_vlan_sub_interface_groups_in_port_multicast_list(void)
{
	const uint8_t *m0 = dp_ports[0].mac.addr_bytes;
	const uint8_t want[][6] = {
		{ 0x33, 0x33, 0, 0, 0, 0x01 },             /* all-nodes */
		{ 0x33, 0x33, 0xff, m0[3], m0[4], m0[5] }, /* port0 and 0.100 link-local */
		{ 0x33, 0x33, 0xff, 0, 0, 0x01 },          /* 2001:db8::1, 2001:db8:100::1 */
		{ 0x33, 0x33, 0xff, 0xaa, 0xbb, 0xcc },    /* 0.400 link-local, own MAC */
		{ 0x33, 0x33, 0xff, 0, 0, 0x02 },          /* 2001:db8:400::2 */
	};
	struct rte_ether_addr macs[DP_ND_MCAST_MACS_MAX];
	uint32_t n, i, k;

	n = dp_nd_mcast_macs(0, macs);
	CU_ASSERT_EQUAL_FATAL(n, RTE_DIM(want));
	for (i = 0; i < RTE_DIM(want); i++) {
		uint32_t found = 0;

		for (k = 0; k < n; k++)
			found += memcmp(macs[k].addr_bytes, want[i], 6) == 0;
		CU_ASSERT_EQUAL(found, 1);
	}
	/* port1's own address only: 2001:db8:1::3, no sub-interface's */
	n = dp_nd_mcast_macs(1, macs);
	CU_ASSERT_EQUAL(n, 3);
	for (k = 0; k < n; k++)
		CU_ASSERT(memcmp(macs[k].addr_bytes, want[4], 6) != 0);
}

static const uint8_t neigh_200[6] = { 0x02, 0, 0, 0, 0x02, 0x02 };
static const uint8_t neigh_101[6] = { 0x02, 0, 0, 0, 0x01, 0x02 };
static const uint8_t neigh6_100[6] = { 0x02, 0, 0, 0, 0x01, 0x64 };

/*
 * What forwarding the untagged frame @p plain (@p len bytes, IPv4 or IPv6) must send
 * to @p dst_mac out of a port with MAC @p src_mac, tagged @p vid unless 0, into @p f:
 * the MACs, TTL - 1 with the header checksum summed anew (rte_ipv4_cksum(), not the
 * datapath's incremental update) or hop limit - 1, then the tag. @return its length.
 */
static size_t
forwarded(uint8_t *f, const uint8_t *plain, size_t len, const uint8_t *dst_mac,
	const uint8_t *src_mac, uint16_t vid)
{
	memcpy(f, plain, len);
	memcpy(f, dst_mac, 6);
	memcpy(f + 6, src_mac, 6);
	if (f[12] == 0x08) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);

		ip->time_to_live--;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		f[14 + 7]--;
	}
	return vid == 0 ? len : tag_insert(f, len, vid);
}

/* A UDP/IPv6 frame to port0's MAC from the sender, @p src -> @p dst, hop limit 20, 10
 * bytes of payload (the router reads no UDP checksum: 0). @return its length. */
static size_t
udp6_frame(uint8_t *f, const char *src, const char *dst)
{
	static const uint8_t payload[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	memset(f, 0, 72);
	memcpy(f, &dp_ports[0].mac, 6);
	memcpy(f + 6, sender_mac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[19] = 18; /* payload length */
	f[20] = 17;
	f[21] = 20;
	CU_ASSERT_FATAL(inet_pton(AF_INET6, src, f + 22) == 1);
	CU_ASSERT_FATAL(inet_pton(AF_INET6, dst, f + 38) == 1);
	f[54] = 0x04;
	f[55] = 0xd2; /* 1234 */
	f[56] = 0x16;
	f[57] = 0x2e; /* 5678 */
	f[59] = 18;
	memcpy(f + 62, payload, sizeof(payload));
	return 72;
}

/* Is @p m's frame @p want (@p len bytes) in one segment? Dumps both when not. */
static bool
frame_equal(const struct rte_mbuf *m, const uint8_t *want, size_t len)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	size_t i;

	if (m->pkt_len == len && m->data_len == len && m->nb_segs == 1 && memcmp(p, want, len) == 0)
		return true;
	fprintf(stderr, "\n  got  (%u):", m->pkt_len);
	for (i = 0; i < m->data_len; i++)
		fprintf(stderr, " %02x", p[i]);
	fprintf(stderr, "\n  want (%zu):", len);
	for (i = 0; i < len; i++)
		fprintf(stderr, " %02x", want[i]);
	fprintf(stderr, "\n");
	return false;
}

/*
 * Bursts of 4 forwarded frames, each compared whole with its frame built apart
 * (forwarded()): tagged VLAN 100 in and tagged VLAN 200 out, untagged in and VLAN 200
 * out, VLAN 100 in and untagged out of port1; IPv6 untagged in and out of VLAN 100,
 * and VLAN 100 in and out. A sub-interface's next hop carries its tag
 * (DP_FWD_NH_F_TAGGED); its counters count the tag.
 */
static void
test_vlan_forwarded_frames_equal_frames_built_apart(void)
{
	static const struct {
		uint16_t in_vid;
		uint32_t src;
		uint32_t dst; /* + the frame's number */
		int out_port;
		const uint8_t *mac;
		uint16_t out_vid;
	} cases[] = {
		{ 100, 0xc6126402, 0xc6120210, 0, neigh_200, 200 },
		{ 0, 0xc6120002, 0xc6120220, 0, neigh_200, 200 },
		{ 100, 0xc6126402, 0xc6120130, 1, neigh_101, 0 },
	};
	const uint16_t v6_in_vid[2] = { 0, 100 };
	uint8_t in[2048], plain[2048], want[4][2048];
	size_t want_len[4];
	struct rte_mbuf *out[8];
	unsigned int k, i;

	CU_ASSERT(dp_fwd.nh[dp_fwd_lookup4(0xc6120209)].flags & DP_FWD_NH_F_TAGGED);
	CU_ASSERT_FALSE(dp_fwd.nh[dp_fwd_lookup4(0xc6120109)].flags & DP_FWD_NH_F_TAGGED);
	for (k = 0; k < RTE_DIM(cases); k++) {
		const uint16_t out_idx = cases[k].out_vid == 200 ? SUBIF_200 : 1;
		const uint64_t tx = cases[k].out_vid != 0 ? vlan_stats(SUBIF_200)->tx_pkts : 0;
		const uint64_t tx_bytes =
			cases[k].out_vid != 0 ? vlan_stats(SUBIF_200)->tx_bytes : 0;
		uint64_t sum = 0;

		ring_rig_drops_mark(&rig);
		for (i = 0; i < 4; i++) {
			const size_t plain_len = frame(plain, cases[k].src, cases[k].dst + i, 0);

			want_len[i] = forwarded(want[i], plain, plain_len, cases[k].mac,
				dp_ports[cases[k].out_port].mac.addr_bytes, cases[k].out_vid);
			sum += want_len[i];
			ring_rig_inject(&rig, 0, in,
				frame(in, cases[k].src, cases[k].dst + i, cases[k].in_vid));
		}
		run_graph();
		CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, cases[k].out_port, out, 8), 4);
		for (i = 0; i < 4; i++)
			CU_ASSERT(frame_equal(out[i], want[i], want_len[i]));
		rte_pktmbuf_free_bulk(out, 4);
		if (out_idx == SUBIF_200) {
			CU_ASSERT_EQUAL(vlan_stats(SUBIF_200)->tx_pkts, tx + 4);
			CU_ASSERT_EQUAL(vlan_stats(SUBIF_200)->tx_bytes, tx_bytes + sum);
		}
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	}
	for (k = 0; k < RTE_DIM(v6_in_vid); k++) {
		ring_rig_drops_mark(&rig);
		for (i = 0; i < 4; i++) {
			char dst[64];
			size_t len;

			snprintf(dst, sizeof(dst), "2001:db8:2::%u", 0x10 + i);
			len = udp6_frame(
				plain, v6_in_vid[k] == 0 ? "2001:db8::9" : "2001:db8:100::9", dst);
			want_len[i] = forwarded(
				want[i], plain, len, neigh6_100, dp_ports[0].mac.addr_bytes, 100);
			memcpy(in, plain, len);
			if (v6_in_vid[k] != 0)
				len = tag_insert(in, len, v6_in_vid[k]);
			ring_rig_inject(&rig, 0, in, len);
		}
		run_graph();
		CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 8), 4);
		for (i = 0; i < 4; i++)
			CU_ASSERT(frame_equal(out[i], want[i], want_len[i]));
		rte_pktmbuf_free_bulk(out, 4);
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	}
}

/*
 * One walk of two queues: frames tagged VLAN 100 on port0 and untagged ones on port1, all
 * routed out of 0.200. port_rx sends the two bursts on together (ip4_fwd_vlan forwards
 * the tagged ones with their tag in place, ip4_fwd the others): each leaves as
 * forwarded() builds it, in some order, and each sub-interface and port counts its own.
 */
static void
test_vlan_tagged_and_untagged_queues_in_one_walk(void)
{
	uint8_t in[2048], plain[2048], want[6][2048];
	size_t want_len[6];
	struct rte_mbuf *out[8];
	const uint64_t rx100 = vlan_rx(SUBIF_100);
	bool seen[6] = { false };
	unsigned int i, k, n;

	ring_rig_drops_mark(&rig);
	for (i = 0; i < 6; i++) {
		const bool tagged = i < 3;
		const uint32_t src = tagged ? 0xc6126402 : 0xc6126509; /* 198.18.101.9 */
		const size_t len =
			ring_rig_udp4(plain, tagged ? 0 : 1, sender_mac, src, 0xc6120260 + i, 1234);

		want_len[i] =
			forwarded(want[i], plain, len, neigh_200, dp_ports[0].mac.addr_bytes, 200);
		memcpy(in, plain, len);
		ring_rig_inject(&rig, tagged ? 0 : 1, in, tagged ? tag_insert(in, len, 100) : len);
	}
	run_graph();
	n = ring_rig_drain(&rig, 0, out, 8);
	CU_ASSERT_EQUAL(n, 6);
	for (k = 0; k < n; k++)
		for (i = 0; i < 6; i++)
			if (!seen[i] && out[k]->pkt_len == want_len[i] &&
				memcmp(rte_pktmbuf_mtod(out[k], const uint8_t *), want[i],
					want_len[i]) == 0) {
				seen[i] = true;
				break;
			}
	for (i = 0; i < 6; i++)
		CU_ASSERT(seen[i]);
	rte_pktmbuf_free_bulk(out, n);
	CU_ASSERT_EQUAL(vlan_rx(SUBIF_100), rx100 + 3);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/*
 * A burst of tagged IPv4 frames of two VLANs: port_rx's pass finds the second VLAN and
 * sends every frame as it came to eth_classify, which sends each to its own
 * sub-interface: each leaves port1 as forwarded() builds it, and each VLAN counts its
 * own. The same with IPv6, whose frames port_rx's pass takes the tags off as it
 * checks: each is given back as it came (test_vlan_burst_of_two_vlans6_given_back_whole).
 */
static void
test_vlan_burst_of_two_vlans_given_back_whole(void)
{
	static const uint16_t vids[5] = { 100, 100, 200, 100, 200 };
	uint8_t in[2048], plain[2048], want[2048];
	struct rte_mbuf *out[8];
	const uint64_t rx100 = vlan_rx(SUBIF_100), rx200 = vlan_rx(SUBIF_200);
	unsigned int i;

	ring_rig_drops_mark(&rig);
	for (i = 0; i < RTE_DIM(vids); i++)
		ring_rig_inject(&rig, 0, in,
			frame(in, vids[i] == 100 ? 0xc6126402 : 0xc612c802, 0xc6120140 + i,
				vids[i]));
	run_graph();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 1, out, 8), RTE_DIM(vids));
	for (i = 0; i < RTE_DIM(vids); i++) {
		const size_t len =
			frame(plain, vids[i] == 100 ? 0xc6126402 : 0xc612c802, 0xc6120140 + i, 0);
		const size_t want_len =
			forwarded(want, plain, len, neigh_101, dp_ports[1].mac.addr_bytes, 0);

		CU_ASSERT(frame_equal(out[i], want, want_len));
	}
	rte_pktmbuf_free_bulk(out, RTE_DIM(vids));
	CU_ASSERT_EQUAL(vlan_rx(SUBIF_100), rx100 + 3);
	CU_ASSERT_EQUAL(vlan_rx(SUBIF_200), rx200 + 2);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/*
 * A burst of tagged IPv6 frames of VLANs 100 and 400 (0.400 has a MAC of its own), all
 * routed out of 0.100: port_rx's pass takes the tags off as it checks, finds the second
 * VLAN and gives every frame back as it came (the MACs, then the tag bytes) to
 * eth_classify, which sends each to its own sub-interface: each leaves as forwarded()
 * builds it, in order.
 */
static void
test_vlan_burst_of_two_vlans6_given_back_whole(void)
{
	static const uint16_t vids[5] = { 100, 100, 400, 100, 400 };
	static const uint8_t mac400[6] = { 0x02, 0, 0, 0xaa, 0xbb, 0xcc };
	uint8_t in[2048], plain[2048], want[5][2048];
	size_t want_len[5];
	struct rte_mbuf *out[8];
	const uint64_t rx100 = vlan_rx(SUBIF_100);
	unsigned int i;

	ring_rig_drops_mark(&rig);
	for (i = 0; i < RTE_DIM(vids); i++) {
		char dst[64];
		size_t len;

		snprintf(dst, sizeof(dst), "2001:db8:2::%u", 0x40 + i);
		len = udp6_frame(
			plain, vids[i] == 100 ? "2001:db8:100::9" : "2001:db8:400::9", dst);
		if (vids[i] == 400)
			memcpy(plain, mac400, 6);
		want_len[i] =
			forwarded(want[i], plain, len, neigh6_100, dp_ports[0].mac.addr_bytes, 100);
		memcpy(in, plain, len);
		ring_rig_inject(&rig, 0, in, tag_insert(in, len, vids[i]));
	}
	run_graph();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 8), RTE_DIM(vids));
	for (i = 0; i < RTE_DIM(vids); i++)
		CU_ASSERT(frame_equal(out[i], want[i], want_len[i]));
	rte_pktmbuf_free_bulk(out, RTE_DIM(vids));
	CU_ASSERT_EQUAL(vlan_rx(SUBIF_100), rx100 + 3);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/* An ICMP echo request (TTL @p ttl) from @p src to @p dst, to port0, tagged @p vid: 16
 * bytes of message, sums by rte_ipv4_cksum() and rte_raw_cksum(). @return its length. */
static size_t
echo_frame(uint8_t *f, uint32_t src, uint32_t dst, uint8_t ttl, uint16_t vid)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	uint8_t *icmp = f + 34;
	uint16_t ck;

	memset(f, 0, 64);
	memcpy(f, &dp_ports[0].mac, 6);
	memcpy(f + 6, sender_mac, 6);
	f[12] = 0x08;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + 16);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	icmp[0] = 8;
	icmp[4] = 0x12; /* identifier, sequence, data */
	icmp[7] = 1;
	memset(icmp + 8, 0x5a, 8);
	ck = (uint16_t)~rte_raw_cksum(icmp, 16);
	memcpy(icmp + 2, &ck, 2);
	return vid == 0 ? 50 : tag_insert(f, 50, vid);
}

/* Is @p m an IPv4 frame to @p dst_mac from port0 tagged @p vid once, protocol @p proto? */
static bool
tagged_once(const struct rte_mbuf *m, const uint8_t *dst_mac, uint16_t vid, uint8_t proto)
{
	const uint8_t tag[6] = { 0x81, 0x00, (uint8_t)(vid >> 8), (uint8_t)vid, 0x08, 0x00 };
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + 18);

	return m->data_len >= 18 + 20 && memcmp(p, dst_mac, 6) == 0 &&
	       memcmp(p + 6, &dp_ports[0].mac, 6) == 0 && memcmp(p + 12, tag, 6) == 0 &&
	       ip->version_ihl == 0x45 && ip->next_proto_id == proto &&
	       m->pkt_len == 18u + rte_be_to_cpu_16(ip->total_length) &&
	       rte_raw_cksum(ip, 20) == 0xffff;
}

/*
 * What else leaves by a sub-interface whose next hops carry the tag still gets it, once:
 * an echo reply and a "time exceeded" from 0.200 (ip4_output, port_tx), an ARP request
 * for a host of 0.100 (the control lcore) and the packet held for it (released by the
 * control lcore), then the next one to the host (ip4_fwd, through the adjacency): the
 * last two equal to forwarded()'s frame.
 */
static void
test_vlan_echo_error_arp_and_held_packet_tagged_once(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6] = { 0 };
	static const uint8_t host[6] = { 0x02, 0, 0, 0, 0x64, 0x09 };
	const uint32_t host_ip = 0xc6126409; /* 198.18.100.9 */
	uint8_t in[2048], plain[2048], want[2048];
	struct rte_mbuf *out[8];
	size_t len, plain_len, want_len;
	const uint8_t *p;
	unsigned int k;

	/* 198.18.200.2 pings 0.200's 198.18.200.1 */
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, in, echo_frame(in, 0xc612c802, 0xc612c801, 64, 200));
	run_graph();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 8), 1);
	p = rte_pktmbuf_mtod(out[0], const uint8_t *);
	CU_ASSERT(tagged_once(out[0], neigh_200, 200, IPPROTO_ICMP));
	CU_ASSERT_EQUAL(out[0]->pkt_len, 18 + 20 + 16);
	CU_ASSERT_EQUAL(p[18 + 20], 0); /* echo reply */
	CU_ASSERT(memcmp(p + 18 + 12, "\xc6\x12\xc8\x01\xc6\x12\xc8\x02", 8) == 0);
	CU_ASSERT_EQUAL(rte_raw_cksum(p + 18 + 20, 16), 0xffff);
	rte_pktmbuf_free(out[0]);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);

	/* from it, with TTL 1, through the router: "time exceeded" back on 0.200 */
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, in, echo_frame(in, 0xc612c802, 0xc6120109, 1, 200));
	run_graph();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 8), 1);
	p = rte_pktmbuf_mtod(out[0], const uint8_t *);
	CU_ASSERT(tagged_once(out[0], neigh_200, 200, IPPROTO_ICMP));
	CU_ASSERT_EQUAL(p[18 + 20], 11);
	/* it quotes the datagram as it came, after the tag (RFC 1812 4.3.2.3: all of it
	 * that fits) */
	CU_ASSERT_EQUAL_FATAL(out[0]->pkt_len, 18 + 20 + 8 + 20 + 16);
	CU_ASSERT(memcmp(p + 18 + 20 + 8, in + 18, 20 + 16) == 0);
	rte_pktmbuf_free(out[0]);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_IP4_TTL), 1);

	/* a host of 0.100 nobody has asked for yet: one ARP request, tagged 100 */
	plain_len = frame(plain, 0xc6120002, host_ip, 0);
	ring_rig_inject(&rig, 0, plain, plain_len);
	ring_rig_step();
	CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 8), 1);
	len = ring_rig_arp(want, 1, bcast, dp_ports[0].mac.addr_bytes, 0xc6126401, zero, host_ip);
	CU_ASSERT(frame_equal(out[0], want, tag_insert(want, len, 100)));
	rte_pktmbuf_free(out[0]);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 0);

	/* its answer, tagged 100: the held packet leaves, then the next one as well */
	len = ring_rig_arp(in, 2, dp_ports[0].mac.addr_bytes, host, host_ip,
		dp_ports[0].mac.addr_bytes, 0xc6126401);
	ring_rig_inject(&rig, 0, in, tag_insert(in, len, 100));
	ring_rig_step();
	want_len = forwarded(want, plain, plain_len, host, dp_ports[0].mac.addr_bytes, 100);
	for (k = 0; k < 2; k++) {
		if (k == 1) {
			CU_ASSERT(dp_fwd.nh[dp_fwd_lookup4(host_ip)].flags & DP_FWD_NH_F_TAGGED);
			ring_rig_inject(&rig, 0, plain, plain_len);
			run_graph();
		}
		CU_ASSERT_EQUAL_FATAL(ring_rig_drain(&rig, 0, out, 8), 1);
		CU_ASSERT(frame_equal(out[0], want, want_len));
		rte_pktmbuf_free(out[0]);
	}
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 0);
}

/* frame() from port0's 198.18.0.2 to @p dst, numbered @p id (the IPv4 identification,
 * the header summed again by rte_ipv4_cksum()), untagged. @return its length. */
static size_t
numbered_frame(uint8_t *f, uint32_t dst, uint16_t id)
{
	const size_t len = frame(f, 0xc6120002, dst, 0);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);

	ip->packet_id = rte_cpu_to_be_16(id);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return len;
}

/*
 * A flow to a host of 0.100 waits for its neighbor: its first packet is held. Once the
 * host answers, the control lcore releases that packet (ctl_inject, port_tx) in one walk,
 * and the flow's next 32 come in the next walk, forwarded by ip4_fwd through the host's
 * adjacency with the tag written there; no TX buffer is drained in between (a loaded
 * worker drains on the timer). The held packet leaves first, then the others in order,
 * each the frame forwarded() builds.
 */
static void
test_vlan_held_packet_leaves_before_the_flow_after_it(void)
{
	static const uint8_t host[6] = { 0x02, 0, 0, 0, 0x64, 0x0a };
	const uint32_t host_ip = 0xc612640a; /* 198.18.100.10 */
	struct dp_worker *w = dp_workers[0];
	const uint64_t drain_tsc = w->drain_tsc;
	const bool flush_idle = w->flush_idle;
	uint8_t in[2048], plain[2048], want[2048];
	struct rte_mbuf *out[64];
	unsigned int n, i;
	size_t len;

	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, in, numbered_frame(in, host_ip, 0));
	ring_rig_step();
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0), 1); /* the ARP request */
	len = ring_rig_arp(in, 2, dp_ports[0].mac.addr_bytes, host, host_ip,
		dp_ports[0].mac.addr_bytes, 0xc6126401);
	ring_rig_inject(&rig, 0, in, tag_insert(in, len, 100));
	dp_graph_worker_run(w, 1);
	dp_ctl_poll(dp_ctl_now_ms());
	CU_ASSERT_FATAL(dp_fwd.nh[dp_fwd_lookup4(host_ip)].flags & DP_FWD_NH_F_TAGGED);
	w->drain_tsc = UINT64_MAX;
	w->flush_idle = false;
	dp_graph_worker_run(w, 1); /* the held packet, from the control lcore */
	for (i = 1; i <= 32; i++)
		ring_rig_inject(&rig, 0, in, numbered_frame(in, host_ip, (uint16_t)i));
	dp_graph_worker_run(w, 1);
	w->drain_tsc = drain_tsc;
	w->flush_idle = flush_idle;
	dp_graph_worker_flush(w);
	n = ring_rig_drain(&rig, 0, out, RTE_DIM(out));
	CU_ASSERT_EQUAL(n, 33);
	for (i = 0; i < n; i++) {
		len = numbered_frame(plain, host_ip, (uint16_t)i);
		CU_ASSERT(frame_equal(out[i], want,
			forwarded(want, plain, len, host, dp_ports[0].mac.addr_bytes, 100)));
	}
	rte_pktmbuf_free_bulk(out, n);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/* What a capture tap saw: frames' bytes, by direction. */
#define TAPPED_MAX 16
static struct {
	uint8_t f[2][TAPPED_MAX][128];
	uint16_t len[2][TAPPED_MAX];
	uint16_t port[2][TAPPED_MAX];
	unsigned int n[2];
} tapped;

static void
test_tap(struct dp_worker *w, uint16_t port, uint16_t queue, bool tx, struct rte_mbuf **pkts,
	uint16_t n)
{
	uint16_t i;

	RTE_SET_USED(w);
	RTE_SET_USED(queue);
	for (i = 0; i < n && tapped.n[tx] < TAPPED_MAX; i++) {
		const unsigned int k = tapped.n[tx]++;

		tapped.len[tx][k] = (uint16_t)RTE_MIN(pkts[i]->data_len, 128u);
		tapped.port[tx][k] = port;
		memcpy(tapped.f[tx][k], rte_pktmbuf_mtod(pkts[i], const uint8_t *),
			tapped.len[tx][k]);
	}
}

/*
 * A capture of a burst tagged VLAN 100 and routed to VLAN 200: the tap sees each frame
 * as it came, tag 100 on, and as it leaves, tag 200 on once (forwarded()'s frame).
 */
static void
test_vlan_capture_sees_tags_in_and_out(void)
{
	uint8_t in[4][2048], plain[2048], want[2048];
	size_t in_len[4];
	unsigned int i;

	memset(&tapped, 0, sizeof(tapped));
	ring_rig_drops_mark(&rig);
	for (i = 0; i < 4; i++) {
		in_len[i] = frame(in[i], 0xc6126402, 0xc6120250 + i, 100);
		ring_rig_inject(&rig, 0, in[i], in_len[i]);
	}
	__atomic_store_n(&dp_graph_tap, test_tap, __ATOMIC_RELAXED);
	run_graph();
	__atomic_store_n(&dp_graph_tap, NULL, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL_FATAL(tapped.n[0], 4);
	CU_ASSERT_EQUAL_FATAL(tapped.n[1], 4);
	for (i = 0; i < 4; i++) {
		const size_t len = frame(plain, 0xc6126402, 0xc6120250 + i, 0);
		const size_t want_len =
			forwarded(want, plain, len, neigh_200, dp_ports[0].mac.addr_bytes, 200);

		CU_ASSERT_EQUAL(tapped.port[0][i], dp_ports[0].port_id);
		CU_ASSERT_EQUAL(tapped.len[0][i], in_len[i]);
		CU_ASSERT(memcmp(tapped.f[0][i], in[i], in_len[i]) == 0);
		CU_ASSERT_EQUAL(tapped.port[1][i], dp_ports[0].port_id);
		CU_ASSERT_EQUAL(tapped.len[1][i], want_len);
		CU_ASSERT(memcmp(tapped.f[1][i], want, want_len) == 0);
	}
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0), 4);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/* A trace's line for a frame that still has its tag (port_rx's, ip4_fwd_vlan's): the VLAN,
 * then the packet it holds, as for the untagged frame. */
static void
test_vlan_trace_line_of_a_tagged_frame(void)
{
	uint8_t in[2048];
	const size_t len = frame(in, 0xc6126402, 0xc6120109, 100);
	struct rte_mbuf *m = ring_rig_mbuf(0, in, len);
	char line[256];

	dp_trace_fmt_pkt(m, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(
		line, "vlan 100 IPv4 198.18.100.2:1234 > 198.18.1.9:9 udp ttl 20 len 64");
	rte_pktmbuf_free(m);
}

static void
test_vlan_no_mbuf_leak_after_traffic(void)
{
	ring_rig_flush_drain_all(&rig);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), 0);
}

static const struct dp_test tests[] = {
	{ "test_vlan_tagged_frame_leaves_untagged_by_port1",
		test_vlan_tagged_frame_leaves_untagged_by_port1 },
	{ "test_vlan_bursts_one_vlan_and_mixed", test_vlan_bursts_one_vlan_and_mixed },
	{ "test_vlan_routed_to_sub_interface_leaves_tagged_vid_200",
		test_vlan_routed_to_sub_interface_leaves_tagged_vid_200 },
	{ "test_vlan_no_headroom_for_the_tag_is_vlan_tag_failed",
		test_vlan_no_headroom_for_the_tag_is_vlan_tag_failed },
	{ "test_vlan_unknown_vid_is_vlan_unknown", test_vlan_unknown_vid_is_vlan_unknown },
	{ "test_vlan_untagged_frame_stays_with_port0", test_vlan_untagged_frame_stays_with_port0 },
	{ "test_vlan_insert_offload_sets_the_tci_only",
		test_vlan_insert_offload_sets_the_tci_only },
	{ "test_vlan_shared_mbuf_is_vlan_tag_failed", test_vlan_shared_mbuf_is_vlan_tag_failed },
	{ "test_vlan_route_added_at_run_time_names_port_n_vid",
		test_vlan_route_added_at_run_time_names_port_n_vid },
	{ "test_vlan_tags_taken_off_by_the_device", test_vlan_tags_taken_off_by_the_device },
	{ "test_vlan_sub_interface_groups_in_port_multicast_list",
		test_vlan_sub_interface_groups_in_port_multicast_list },
	{ "test_vlan_forwarded_frames_equal_frames_built_apart",
		test_vlan_forwarded_frames_equal_frames_built_apart },
	{ "test_vlan_tagged_and_untagged_queues_in_one_walk",
		test_vlan_tagged_and_untagged_queues_in_one_walk },
	{ "test_vlan_burst_of_two_vlans_given_back_whole",
		test_vlan_burst_of_two_vlans_given_back_whole },
	{ "test_vlan_burst_of_two_vlans6_given_back_whole",
		test_vlan_burst_of_two_vlans6_given_back_whole },
	{ "test_vlan_echo_error_arp_and_held_packet_tagged_once",
		test_vlan_echo_error_arp_and_held_packet_tagged_once },
	{ "test_vlan_held_packet_leaves_before_the_flow_after_it",
		test_vlan_held_packet_leaves_before_the_flow_after_it },
	{ "test_vlan_capture_sees_tags_in_and_out", test_vlan_capture_sees_tags_in_and_out },
	{ "test_vlan_trace_line_of_a_tagged_frame", test_vlan_trace_line_of_a_tagged_frame },
	{ "test_vlan_no_mbuf_leak_after_traffic", test_vlan_no_mbuf_leak_after_traffic },
	{ NULL, NULL },
};

int
main(void)
{
	return ring_rig_run(&rig, "vlan", tests);
}
