/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port_rx (source node)
 *   uses: the worker's (port, queue) list; skips ports whose link is down (dp_port_up)
 *   sets: nothing in the packet; counts rx_pkts, rx burst-size histogram, last_rx
 *   tap:  each queue's burst to the capture tap (dp_graph_tap) when one is set
 *   next: ip4_fwd or ip6_fwd when the whole burst is unicast IPv4 (IPv6) for
 *         its ports, checked here in one pass; for one of their 802.1Q
 *         sub-interfaces (port_rx_vlan()), ip4_fwd_vlan with the tags on (with
 *         untagged IPv4 of other queues beside them), or ip6_fwd with the tags
 *         taken off in the same pass; eth_classify for any other burst (the
 *         whole stream moves, no copy)
 *
 * Why the Ethernet check is here and not only in eth_classify: in the common
 * case (a burst of unicast IP for this port) a separate node would be one more
 * call and one more pass over the burst for a yes. eth_classify stays the
 * per-frame decision (ARP, multicast, VLAN, the drop reasons) for every other
 * burst.
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_graph_worker.h>

#include "dp_delay.h"
#include "dp_graph.h"
#include "graph_fp.h"

enum port_rx_next {
	PORT_RX_NEXT_CLASSIFY,
	PORT_RX_NEXT_IP4,
	PORT_RX_NEXT_IP6,
	PORT_RX_NEXT_IP4_VLAN,
	PORT_RX_NEXT_MAX,
};

_Static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN, "dp_graph_port_l2 is little-endian");

/*
 * The Ethernet fast check of @p n frames received on one port, without
 * branches: every frame unicast, of ethertype @p type_be, no longer than
 * @p frame_max (the port's MTU and the header), for the port's MAC
 * (@p mask has bit 0, the group bit, and the address bits unless the port is
 * promiscuous or the check off: one test for both); with @p stamp,
 * each is stamped with @p now for the delay histogram. The 8-byte load
 * reads 2 bytes past the destination, inside the mbuf's data room even for a
 * frame shorter than that, whose result the length test discards.
 */
static __rte_always_inline bool
eth_fast_run(struct rte_mbuf **pkts, uint16_t n, uint64_t mac, uint64_t mask, uint32_t frame_max,
	uint16_t type_be, const bool stamp, uint64_t now, int meta_off)
{
	bool all = true;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
		uint64_t dst;
		uint16_t type;

		memcpy(&dst, d, sizeof(dst));
		memcpy(&type, d + 2 * RTE_ETHER_ADDR_LEN, sizeof(type));
		all &= (m->data_len >= RTE_ETHER_HDR_LEN) & (m->pkt_len <= frame_max) &
		       (type == type_be) & (((dst ^ mac) & mask) == 0);
		/* the delay stamp (dp_delay.h) in the same pass over the mbufs */
		if (stamp)
			dp_mbuf_meta(m, meta_off)->rx_tsc = now;
	}
	return all;
}

/*
 * port_rx_vlan()'s pass over @p n frames of tag and inner ethertype @p tag (as the frames
 * have them) for sub-interface @p l2 (@p id): each checked (the type in front of the tag
 * 0x8100, not 0x88a8 or another; the tag and inner type; unicast for its MAC with
 * @p mask; no longer than its MTU allows) and, with @p stamp, stamped. With @p pop each
 * loses its tag as well (the MACs over it, the mbuf's offset, lengths and port): the 4
 * bytes the MACs covered are kept in @p tpid_tci. @return whether every frame passed;
 * @p bytes, their lengths without the tag.
 */
static __rte_always_inline bool
vlan_run(struct rte_mbuf **pkts, uint16_t n, uint32_t tag, const struct dp_graph_port_l2 *l2,
	uint64_t mask, uint16_t id, const bool pop, uint32_t *tpid_tci, uint64_t *bytes,
	const bool stamp, uint64_t now, int meta_off)
{
	const uint32_t frame_max = l2->frame_max + RTE_VLAN_HLEN;
	const uint64_t mac = l2->mac;
	uint64_t sum = 0;
	bool all = true;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		uint64_t dst;
		uint32_t tt, t;

		memcpy(&dst, d, sizeof(dst));
		memcpy(&tt, d + 2 * RTE_ETHER_ADDR_LEN, sizeof(tt));
		memcpy(&t, d + 2 * RTE_ETHER_ADDR_LEN + 2, sizeof(t));
		all &= (m->data_len >= RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN) &
		       (m->pkt_len <= frame_max) & (t == tag) &
		       ((uint16_t)tt == RTE_BE16(RTE_ETHER_TYPE_VLAN)) &
		       (((dst ^ mac) & mask) == 0);
		sum += m->pkt_len;
		if (pop) {
			tpid_tci[i] = tt;
			/* the addresses 4 bytes on, over the tag: the ethertype is in place */
			dp_eth_addrs_move(d, d + RTE_VLAN_HLEN);
			dp_mbuf_tag_room_drop(m);
			m->port = id;
		}
		if (stamp)
			dp_mbuf_meta(m, meta_off)->rx_tsc = now;
	}
	*bytes = sum - (uint64_t)n * RTE_VLAN_HLEN;
	return all;
}

/* A sub-interface's RX counts of one queue burst, added once port_rx knows the stream
 * goes on as it is (eth_classify counts the tagged frames it gets itself). */
struct port_rx_vlan_count {
	struct dp_port_vlan_stats *st;
	uint64_t pkts;
	uint64_t bytes;
};

/*
 * The fast check of a burst of 802.1Q frames received on @p port: every frame
 * of the first one's tag and inner ethertype (IPv4 or IPv6), that tag a
 * sub-interface of the port, unicast for the sub-interface's MAC, no longer
 * than its MTU allows (vlan_run()). IPv4 goes to ip4_fwd_vlan as it came,
 * which forwards it with its tag in place (rewritten, not taken off and put
 * on again) and takes the tag off the others. IPv6 loses its tags here, each
 * frame becomes the sub-interface's (mbuf port), and it goes to ip6_fwd as an
 * untagged one would. Any other burst goes to eth_classify as it came: a burst
 * of IPv6 that fails the check gets its frames back as they were (the 4 bytes
 * the MACs moved over kept aside). Out of line: untagged traffic pays one
 * compare per queue burst for it.
 */
static __rte_noinline rte_edge_t
port_rx_vlan(struct dp_worker *w, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
	uint64_t check_mask, const bool stamp, uint64_t now, int meta_off,
	struct port_rx_vlan_count *count)
{
	const uint8_t *d0 = rte_pktmbuf_mtod(pkts[0], const uint8_t *);
	const struct dp_graph_port_l2 *l2;
	struct dp_port_vlan_stats *st;
	uint32_t tag;
	uint32_t tpid_tci[DP_BURST_MAX];
	uint64_t mask, bytes;
	uint16_t i, id, inner;

	if (pkts[0]->data_len < RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)
		return PORT_RX_NEXT_CLASSIFY;
	/* TCI and inner ethertype, as the frames have them */
	memcpy(&tag, d0 + 2 * RTE_ETHER_ADDR_LEN + 2, sizeof(tag));
	inner = (uint16_t)(tag >> 16);
	if (inner != RTE_BE16(RTE_ETHER_TYPE_IPV4) && inner != RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return PORT_RX_NEXT_CLASSIFY;
	id = dp_port_vlan_ids[dp_port_index[port]][rte_be_to_cpu_16((uint16_t)tag) & 0xfff];
	if (id == 0)
		return PORT_RX_NEXT_CLASSIFY; /* eth_classify counts vlan_unknown */
	l2 = &dp_graph_port_l2[id];
	mask = (l2->mask & check_mask) | 1;
	if (inner == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		if (!vlan_run(
			    pkts, n, tag, l2, mask, id, false, NULL, &bytes, stamp, now, meta_off))
			return PORT_RX_NEXT_CLASSIFY;
	} else if (unlikely(!vlan_run(pkts, n, tag, l2, mask, id, true, tpid_tci, &bytes, stamp,
			   now, meta_off))) {
		/* each frame as it came: the MACs back, then the 4 bytes they covered */
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

			dp_eth_addrs_move(d, d - RTE_VLAN_HLEN);
			memcpy(d - RTE_VLAN_HLEN + 2 * RTE_ETHER_ADDR_LEN, &tpid_tci[i],
				sizeof(tpid_tci[i]));
			dp_mbuf_tag_room_take(m);
			m->port = port;
		}
		return PORT_RX_NEXT_CLASSIFY;
	}
	st = dp_port_vlan_stats_of(w->lcore_id, id - DP_PORT_VLAN_ID_BASE);
	if (inner == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		/* still tagged: counted by port_rx_burst(), or by eth_classify */
		count->st = st;
		count->pkts = n;
		count->bytes = bytes;
		return PORT_RX_NEXT_IP4_VLAN;
	}
	st->rx_pkts += n;
	st->rx_bytes += bytes;
	return PORT_RX_NEXT_IP6;
}

/* The RX flags of a tag the device took off, cleared once the frame is its sub-interface's:
 * later readers (rte_pcapng_copy() of a TX capture) would put it back. */
#define PORT_RX_VLAN_FLAGS (RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED)

/*
 * The fast check of a burst received on @p port, a port whose device takes the
 * tags off (RTE_ETH_RX_OFFLOAD_VLAN_STRIP): frames with no tag go on as
 * eth_fast_run() decides them; a burst whose frames all had the first one's
 * VLAN, of a sub-interface of the port, becomes that sub-interface's (mbuf
 * port) and goes to ip4_fwd or ip6_fwd as @p e says, on the sub-interface's
 * checks. Anything else goes to eth_classify, which sorts frame by frame.
 */
static __rte_noinline rte_edge_t
port_rx_stripped(struct dp_worker *w, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
	rte_edge_t e, uint64_t check_mask, const bool stamp, uint64_t now, int meta_off)
{
	const uint16_t type_be = e == PORT_RX_NEXT_IP6 ? RTE_BE16(RTE_ETHER_TYPE_IPV6)
						       : RTE_BE16(RTE_ETHER_TYPE_IPV4);
	const uint64_t first = pkts[0]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED;
	const uint16_t vid = pkts[0]->vlan_tci & 0xfff;
	const struct dp_graph_port_l2 *l2;
	struct dp_port_vlan_stats *st;
	uint64_t bytes = 0;
	uint16_t i, id;
	bool same = true;

	for (i = 0; i < n; i++)
		same &= ((pkts[i]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) == first) &
			(first == 0 || (pkts[i]->vlan_tci & 0xfff) == vid);
	if (!same)
		return PORT_RX_NEXT_CLASSIFY;
	if (first == 0) {
		l2 = &dp_graph_port_l2[port];
		return eth_fast_run(pkts, n, l2->mac, (l2->mask & check_mask) | 1, l2->frame_max,
			       type_be, stamp, now, meta_off)
			       ? e
			       : PORT_RX_NEXT_CLASSIFY;
	}
	id = dp_port_vlan_ids[dp_port_index[port]][vid];
	if (id == 0)
		return PORT_RX_NEXT_CLASSIFY; /* eth_classify counts vlan_unknown */
	l2 = &dp_graph_port_l2[id];
	if (!eth_fast_run(pkts, n, l2->mac, (l2->mask & check_mask) | 1, l2->frame_max, type_be,
		    stamp, now, meta_off))
		return PORT_RX_NEXT_CLASSIFY;
	for (i = 0; i < n; i++) {
		pkts[i]->port = id;
		pkts[i]->ol_flags &= ~PORT_RX_VLAN_FLAGS;
		bytes += pkts[i]->pkt_len;
	}
	st = dp_port_vlan_stats_of(w->lcore_id, id - DP_PORT_VLAN_ID_BASE);
	st->rx_pkts += n;
	st->rx_bytes += bytes;
	return e;
}

static __rte_always_inline bool
port_rx_ip4_either(rte_edge_t e)
{
	return e == PORT_RX_NEXT_IP4 || e == PORT_RX_NEXT_IP4_VLAN;
}

static __rte_always_inline uint16_t
port_rx_burst(struct rte_graph *graph, struct rte_node *node, const bool stamp)
{
	struct dp_worker *w = dp_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)node->objs;
	const uint64_t check_mask = w->check_dst_mac ? UINT64_MAX : 0;
	const int meta_off = dp_mbuf_meta_offset;
	/* where the whole burst goes: the fast edge of the first frame while every
	 * queue's frames pass the check, eth_classify once one does not */
	rte_edge_t next = PORT_RX_NEXT_MAX;
	const uint64_t now = w->walk_tsc;
	/* a capture (dp_graph_tap), read once per call */
	const dp_graph_tap_t tap = __atomic_load_n(&dp_graph_tap, __ATOMIC_RELAXED);
	struct port_rx_vlan_count counts[DP_WORKER_MAX_RXQ];
	unsigned int nb_counts = 0, c;
	uint16_t n = 0;
	uint16_t q;

	/* node->size is RTE_GRAPH_BURST_SIZE: room for several bursts */
	for (q = 0; q < w->nb_rxq && n + w->burst <= node->size; q++) {
		const uint16_t port = w->rxq[q].port_id;
		const struct dp_graph_port_l2 *l2 = &dp_graph_port_l2[port];
		uint16_t got, type;
		rte_edge_t e;

		/* link down (a memif peer gone): not polled until it is up again */
		if (unlikely(!__atomic_load_n(&dp_port_up[port], __ATOMIC_RELAXED)))
			continue;
		got = rte_eth_rx_burst(port, w->rxq[q].queue, pkts + n, w->burst);
		w->stats.rx_burst_hist[got]++;
		if (got == 0)
			continue;
		if (unlikely(tap != NULL))
			tap(w, port, w->rxq[q].queue, false, pkts + n, got);
		/* a queue's frames all come from one port: its MAC is loaded once */
		memcpy(&type,
			rte_pktmbuf_mtod_offset(pkts[n], const uint8_t *, 2 * RTE_ETHER_ADDR_LEN),
			sizeof(type));
		e = type == RTE_BE16(RTE_ETHER_TYPE_IPV6) ? PORT_RX_NEXT_IP6 : PORT_RX_NEXT_IP4;
		if (unlikely(type == RTE_BE16(RTE_ETHER_TYPE_VLAN))) {
			e = port_rx_vlan(w, port, pkts + n, got, check_mask, stamp, now, meta_off,
				&counts[nb_counts]);
			nb_counts += e == PORT_RX_NEXT_IP4_VLAN;
		} else if (unlikely(l2->vlan_strip))
			e = port_rx_stripped(
				w, port, pkts + n, got, e, check_mask, stamp, now, meta_off);
		/* the group bit is 0 in the port's MAC: one test for unicast and ours */
		else if (!eth_fast_run(pkts + n, got, l2->mac, (l2->mask & check_mask) | 1,
				 l2->frame_max,
				 e == PORT_RX_NEXT_IP6 ? RTE_BE16(RTE_ETHER_TYPE_IPV6)
						       : RTE_BE16(RTE_ETHER_TYPE_IPV4),
				 stamp, now, meta_off))
			e = PORT_RX_NEXT_CLASSIFY;
		/* IPv4 tagged and not go on together (ip4_fwd_vlan tells them apart) */
		if (next != PORT_RX_NEXT_MAX && next != e)
			e = port_rx_ip4_either(next) && port_rx_ip4_either(e)
				    ? PORT_RX_NEXT_IP4_VLAN
				    : PORT_RX_NEXT_CLASSIFY;
		if (next != PORT_RX_NEXT_CLASSIFY)
			next = e;
		n += got;
	}
	if (n == 0)
		return 0;
	if (unlikely(nb_counts != 0) && next != PORT_RX_NEXT_CLASSIFY)
		for (c = 0; c < nb_counts; c++) {
			counts[c].st->rx_pkts += counts[c].pkts;
			counts[c].st->rx_bytes += counts[c].bytes;
		}
	w->stats.rx_pkts += n;
	w->last_rx += n;
	node->idx = n;
	rte_node_next_stream_move(graph, node, next);
	return n;
}

static uint16_t
port_rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	RTE_SET_USED(objs);
	RTE_SET_USED(nb_objs);
	/* two copies of the loop, so the delay choice is not re-read per packet */
	if (dp_node_worker(node)->delay_stats)
		return port_rx_burst(graph, node, true);
	return port_rx_burst(graph, node, false);
}

static struct rte_node_register port_rx_node = {
	.name = "port_rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = port_rx_process,
	.init = dp_graph_node_init_worker,
	.nb_edges = PORT_RX_NEXT_MAX,
	.next_nodes = {
		[PORT_RX_NEXT_CLASSIFY] = "eth_classify",
		[PORT_RX_NEXT_IP4] = "ip4_fwd",
		[PORT_RX_NEXT_IP6] = "ip6_fwd",
		[PORT_RX_NEXT_IP4_VLAN] = "ip4_fwd_vlan",
	},
};

RTE_NODE_REGISTER(port_rx_node);
