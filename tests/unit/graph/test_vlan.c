/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 802.1Q sub-interfaces in the datapath: EAL on --no-huge, two net_ring ports,
 * port0 with sub-interfaces 0.100 and 0.200, the real graph walked on the test
 * thread. Crafted frames go in on port0; each test asserts the bytes that came
 * out, or the drop reason counted. The tag is written here by hand (TPID 0x8100,
 * then the TCI, IEEE 802.1Q 9.3): an oracle apart from rte_vlan_insert().
 */
#include <errno.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "dp_config.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "dp_test.h"
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
				  "rx = (0,0,1)\n"
				  "[routes]\n"
				  "route = 198.18.1.0/24 via 198.18.101.2 port 1\n"
				  "route = 198.18.2.0/24 via 198.18.200.2 port 0.200\n"
				  "[neighbors]\n"
				  "neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1\n"
				  "neigh = 198.18.200.2 lladdr 02:00:00:00:02:02 port 0.200\n";

static struct ring_rig rig = {
	.name = "vlan",
	.prefix = 'v',
	.nb_ports = 2,
	.config_text = config_text,
};

/* A UDP frame to port0 from 198.18.x.2 to @p dst, tagged @p vid unless 0. */
static size_t
frame(uint8_t *f, uint32_t src, uint32_t dst, uint16_t vid)
{
	size_t len = ring_rig_udp4(f, 0, sender_mac, src, dst, 1234);

	if (vid == 0)
		return len;
	memmove(f + 16, f + 12, len - 12);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = (uint8_t)(vid >> 8);
	f[15] = (uint8_t)vid;
	return len + 4;
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
	{ "test_vlan_no_mbuf_leak_after_traffic", test_vlan_no_mbuf_leak_after_traffic },
	{ NULL, NULL },
};

int
main(void)
{
	return ring_rig_run(&rig, "vlan", tests);
}
