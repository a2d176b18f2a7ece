/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_classify
 *   uses: Ethernet header, the input port's MAC
 *   sets: nothing; decides which job a packet belongs to
 *   next: ip4_fwd, or drop (l2_too_short, l2_other_host, l2_mcast_ip4, vlan, arp,
 *         not_ip4)
 *
 * The one place where the jobs part ways: relay and endpoint edges join here
 * (by UDP destination) in later stages; ARP/ND go to the local control nodes.
 */
#include <rte_ether.h>
#include <rte_graph_worker.h>
#include <rte_mbuf.h>

#include "dp_graph.h"
#include "graph_fp.h"

enum classify_next {
	CLASSIFY_NEXT_DROP,
	CLASSIFY_NEXT_IP4,
	CLASSIFY_NEXT_MAX,
};

static __rte_always_inline rte_edge_t
classify_one(struct dp_worker *w, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	enum dp_drop_reason why;

	if (unlikely(m->data_len < sizeof(*eth))) {
		why = DP_DROP_L2_TOO_SHORT;
		goto drop;
	}
	if (w->check_dst_mac && rte_is_unicast_ether_addr(&eth->dst_addr) &&
		!dp_graph_port_promisc[m->port] &&
		unlikely(!rte_is_same_ether_addr(&eth->dst_addr, &dp_graph_port_mac[m->port]))) {
		why = DP_DROP_L2_OTHER_HOST;
		goto drop;
	}
	switch (eth->ether_type) {
	case RTE_BE16(RTE_ETHER_TYPE_IPV4):
		if (likely(rte_is_unicast_ether_addr(&eth->dst_addr)))
			return CLASSIFY_NEXT_IP4;
		why = DP_DROP_L2_MCAST_IP4;
		break;
	case RTE_BE16(RTE_ETHER_TYPE_ARP):
		why = DP_DROP_ARP;
		break;
	case RTE_BE16(RTE_ETHER_TYPE_VLAN):
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

	for (i = 0; i < nb_objs && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < nb_objs; i++) {
		if (i + 4 < nb_objs)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		next[i] = classify_one(w, pkts[i]);
	}
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
	},
};

RTE_NODE_REGISTER(classify_node);
