/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_classify
 *   uses: Ethernet header, the input port's MAC
 *   sets: nothing; decides which job a packet belongs to
 *   sets: an 802.1Q frame of a sub-interface ([portN.VID]): the tag taken off,
 *         mbuf->port the sub-interface's port id, and the inner frame decided as
 *         that port's
 *   next: ip4_fwd, ip6_fwd (unicast for the port, or multicast and broadcast:
 *         neighbor discovery; IPv4 to 224.0.0.0/24), ctl_punt (ARP, to the control lcore), or drop
 *         (l2_too_short, l2_too_long, l2_other_host, l2_mcast_ip4, vlan,
 *         vlan_unknown, not_ip4)
 *
 * It sees the bursts port_rx's fast check did not pass (one frame that is not
 * unicast IPv4, or IPv6, for its port is enough) and decides frame by frame;
 * a burst that passes goes from port_rx straight to ip4_fwd or ip6_fwd.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_ctl.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "graph_fp.h"

enum classify_next {
	CLASSIFY_NEXT_DROP,
	CLASSIFY_NEXT_IP4,
	CLASSIFY_NEXT_PUNT,
	CLASSIFY_NEXT_IP6,
	CLASSIFY_NEXT_MAX,
};

static rte_edge_t classify_one(struct dp_worker *w, struct rte_mbuf *m);

/* Is @p eth an 802.1Q frame that one of the port's sub-interfaces may take? Never on a
 * sub-interface itself: one tag only. */
static inline bool
is_vlan_frame(const struct rte_ether_hdr *eth, const struct rte_mbuf *m)
{
	return eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) && dp_port_nb_vlans != 0 &&
	       m->port < DP_PORT_VLAN_ID_BASE;
}

/* Frame @p m, its tag off, counted as sub-interface @p id's and decided again as that port's. */
static inline rte_edge_t
to_sub_interface(struct dp_worker *w, struct rte_mbuf *m, uint16_t id)
{
	struct dp_port_vlan_stats *st =
		dp_port_vlan_stats_of(w->lcore_id, id - DP_PORT_VLAN_ID_BASE);

	m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
	m->port = id;
	st->rx_pkts++;
	st->rx_bytes += m->pkt_len;
	return classify_one(w, m);
}

/* An 802.1Q frame: to its sub-interface without the tag, decided again as that port's;
 * a VLAN id that is no sub-interface of the port is a drop. */
static __rte_noinline rte_edge_t
classify_vlan(struct dp_worker *w, struct rte_mbuf *m)
{
	const struct rte_vlan_hdr *vh;
	uint16_t id;

	if (unlikely(m->data_len < sizeof(struct rte_ether_hdr) + sizeof(*vh))) {
		w->stats.drops[DP_DROP_L2_TOO_SHORT]++;
		return CLASSIFY_NEXT_DROP;
	}
	vh = rte_pktmbuf_mtod_offset(m, const struct rte_vlan_hdr *, sizeof(struct rte_ether_hdr));
	id = dp_port_vlan_ids[dp_port_index[m->port]][rte_be_to_cpu_16(vh->vlan_tci) & 0xfff];
	if (unlikely(id == 0)) {
		w->stats.drops[DP_DROP_VLAN_UNKNOWN]++;
		return CLASSIFY_NEXT_DROP;
	}
	rte_vlan_strip(m);
	return to_sub_interface(w, m, id);
}

/* A frame whose tag the device took off (RTE_MBUF_F_RX_VLAN_STRIPPED): its
 * sub-interface's, decided again as that port's; a VLAN id that is no
 * sub-interface of the port is a drop. */
static __rte_noinline rte_edge_t
classify_stripped(struct dp_worker *w, struct rte_mbuf *m)
{
	const uint16_t id = dp_port_vlan_ids[dp_port_index[m->port]][m->vlan_tci & 0xfff];

	if (unlikely(id == 0)) {
		w->stats.drops[DP_DROP_VLAN_UNKNOWN]++;
		return CLASSIFY_NEXT_DROP;
	}
	return to_sub_interface(w, m, id);
}

/* A multicast frame with an IPv4 header to 224.0.0.0/24 (dp_ip4_link_local_group()). */
static inline bool
frame_to_ip4_link_local_group(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
		m, const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));

	return m->data_len >= sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) &&
	       dp_ip4_link_local_group(rte_be_to_cpu_32(ip->dst_addr));
}

/* Where one frame goes; the reason counted when it is dropped. */
static __rte_noinline rte_edge_t
classify_one(struct dp_worker *w, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct dp_graph_port_l2 *l2 = &dp_graph_port_l2[m->port];
	enum dp_drop_reason why;
	uint64_t dst = 0;

	if (unlikely(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) && m->port < DP_PORT_VLAN_ID_BASE)
		return classify_stripped(w, m);
	if (unlikely(m->data_len < sizeof(*eth))) {
		why = DP_DROP_L2_TOO_SHORT;
		goto drop;
	}
	if (unlikely(m->pkt_len > l2->frame_max)) {
		/* the tag's 4 bytes over the port's MTU: the sub-interface checks its own */
		if (is_vlan_frame(eth, m) && m->pkt_len <= l2->frame_max + RTE_VLAN_HLEN)
			return classify_vlan(w, m);
		why = DP_DROP_L2_TOO_LONG;
		goto drop;
	}
	memcpy(&dst, &eth->dst_addr, RTE_ETHER_ADDR_LEN);
	if (w->check_dst_mac && rte_is_unicast_ether_addr(&eth->dst_addr) &&
		((dst ^ l2->mac) & l2->mask) != 0) {
		/* a sub-interface may have a MAC of its own */
		if (is_vlan_frame(eth, m))
			return classify_vlan(w, m);
		why = DP_DROP_L2_OTHER_HOST;
		goto drop;
	}
	switch (eth->ether_type) {
	case RTE_BE16(RTE_ETHER_TYPE_IPV4):
		if (likely(rte_is_unicast_ether_addr(&eth->dst_addr)) ||
			frame_to_ip4_link_local_group(m))
			return CLASSIFY_NEXT_IP4;
		why = DP_DROP_L2_MCAST_IP4;
		break;
	case RTE_BE16(RTE_ETHER_TYPE_ARP):
		/* requests are broadcast: the destination check above let them by */
		dp_mbuf_meta(m, dp_mbuf_meta_offset)->punt = DP_PUNT_ARP;
		return CLASSIFY_NEXT_PUNT;
	case RTE_BE16(RTE_ETHER_TYPE_IPV6):
		/* multicast too (33:33:...): ND goes to groups; ip6_fwd sorts it out */
		return CLASSIFY_NEXT_IP6;
	case RTE_BE16(RTE_ETHER_TYPE_VLAN):
		if (is_vlan_frame(eth, m))
			return classify_vlan(w, m);
		why = DP_DROP_VLAN;
		break;
	case RTE_BE16(RTE_ETHER_TYPE_QINQ):
		why = DP_DROP_VLAN;
		break;
	default:
		why = DP_DROP_NOT_IP4;
		break;
	}
drop:
	w->stats.drops[why]++;
	return CLASSIFY_NEXT_DROP;
}

static uint16_t
classify_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	uint16_t i;

	for (i = 0; i < nb_objs; i++)
		next[i] = classify_one(w, pkts[i]);
	dp_node_dispatch(graph, node, objs, next, nb_objs);
	return nb_objs;
}

static struct rte_node_register classify_node = {
	.name = "eth_classify",
	.process = classify_process,
	.init = dp_graph_node_init_worker,
	.nb_edges = CLASSIFY_NEXT_MAX,
	.next_nodes = {
		[CLASSIFY_NEXT_DROP] = "drop",
		[CLASSIFY_NEXT_IP4] = "ip4_fwd",
		[CLASSIFY_NEXT_PUNT] = "ctl_punt",
		[CLASSIFY_NEXT_IP6] = "ip6_fwd",
	},
};

RTE_NODE_REGISTER(classify_node);
