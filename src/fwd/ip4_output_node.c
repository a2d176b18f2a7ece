/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_output (the rewrite stage)
 *   uses: dp_mbuf_meta.nh, the next-hop table
 *   sets: Ethernet destination (neighbor) and source (egress port), TTL - 1,
 *         header checksum updated incrementally (RFC 1624)
 *   next: port_tx-<port>, or drop (neigh_unresolved)
 */
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_cksum.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "graph_fp.h"

#define IP4_OUTPUT_NEXT_DROP 0

static __rte_always_inline rte_edge_t
ip4_output_one(struct dp_worker *w, const struct dp_fwd_nh *nh_table, int meta_off,
	struct rte_mbuf *m)
{
	const struct dp_fwd_nh *nh =
		&nh_table[dp_mbuf_meta(m, meta_off)->nh];
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint16_t old, new;
	uint8_t *ttl = &ip->time_to_live;

	if (unlikely(!(nh->flags & DP_FWD_NH_F_RESOLVED))) {
		w->stats.drops[DP_DROP_NEIGH_UNRESOLVED]++;
		return IP4_OUTPUT_NEXT_DROP;
	}
	/* dst + src MAC in one 12-byte copy; the ethertype stays IPv4 */
	memcpy(eth, &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
	/* TTL is the high byte of the (TTL, protocol) word. The new word is made in
	 * a register: storing the TTL byte and reloading the word would stall on
	 * store forwarding. */
	memcpy(&old, ttl, sizeof(old));
	new = rte_cpu_to_be_16(rte_be_to_cpu_16(old) - 0x0100);
	memcpy(ttl, &new, sizeof(new));
	ip->hdr_checksum = dp_cksum_update16(ip->hdr_checksum, old, new);
	return DP_GRAPH_EDGE_PORT_TX(nh->port);
}

static uint16_t
ip4_output_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	const struct dp_fwd_nh *nh_table = dp_fwd.nh;
	const int meta_off = dp_mbuf_meta_offset;
	uint16_t i;

	for (i = 0; i < nb_objs; i++)
		next[i] = ip4_output_one(w, nh_table, meta_off, pkts[i]);
	dp_node_dispatch(graph, node, objs, next, nb_objs);
	return nb_objs;
}

static struct rte_node_register ip4_output_node = {
	.name = "ip4_output",
	.process = ip4_output_process,
	.init = dp_graph_node_init_worker,
	/* the port_tx edges are added by dp_fwd_init() once ports are known */
	.nb_edges = 1,
	.next_nodes = {
		[IP4_OUTPUT_NEXT_DROP] = "drop",
	},
};

RTE_NODE_REGISTER(ip4_output_node);
