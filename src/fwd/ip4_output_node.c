/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_output (the rewrite stage)
 *   uses: dp_mbuf_meta.nh, the next-hop table
 *   sets: Ethernet destination (neighbor) and source (egress port), TTL - 1,
 *         header checksum updated incrementally (RFC 1624)
 *   next: port_tx-<port>, or ctl_punt (next hop without a MAC yet: the control
 *         lcore holds the packet and resolves the neighbor)
 *
 * A connected (on-link) next hop stands for every host of its subnet: the
 * packet goes to the neighbor of its own destination, found in the neighbor
 * hash, with one pipelined lookup for all such packets of a burst
 * (output_priv.h, shared with ip6_output). Routes through a gateway
 * whose MAC is known never get here: ip4_fwd rewrites those itself.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_cksum.h"
#include "dp_config.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_ctl.h"
#include "graph_fp.h"
#include "output_priv.h"

_Static_assert(DP_GRAPH_EDGE_PORT_TX(DP_CONFIG_MAX_PORTS - 1) < DP_NODE_MAX_EDGES,
	"ip4_output has an edge per port: more than dp_node_dispatch() counts");

/* The next hop has no MAC (output_priv.h): kept out of the loop. */
static __rte_noinline rte_edge_t
ip4_output_unresolved(
	const struct dp_fwd_nh *nh_table, int meta_off, struct rte_mbuf *m, uint32_t idx)
{
	return dp_output_unresolved(nh_table, meta_off, m, idx, false, DP_PUNT_NEIGH4);
}

static __rte_always_inline rte_edge_t
ip4_output_one(const struct dp_fwd_nh *nh_table, int meta_off, struct rte_mbuf *m)
{
	const uint32_t idx = dp_mbuf_meta(m, meta_off)->nh;
	const struct dp_fwd_nh *nh = &nh_table[idx];

	if (unlikely(!(nh->flags & DP_FWD_NH_F_RESOLVED)))
		return ip4_output_unresolved(nh_table, meta_off, m, idx);
	dp_fwd_ip4_rewrite(nh, rte_pktmbuf_mtod(m, struct rte_ether_hdr *));
	return DP_GRAPH_EDGE_PORT_TX(nh->port);
}

static uint16_t
ip4_output_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	return dp_output_burst(
		graph, node, objs, nb_objs, false, ip4_output_one, ip4_output_unresolved);
}

static struct rte_node_register ip4_output_node = {
	.name = "ip4_output",
	.process = ip4_output_process,
	.init = dp_graph_node_init_worker,
	/* the port_tx edges are added by dp_fwd_init() once ports are known */
	.nb_edges = 2,
	.next_nodes = {
		[DP_GRAPH_EDGE_DROP] = "drop",
		[DP_GRAPH_EDGE_PUNT] = "ctl_punt",
	},
};

RTE_NODE_REGISTER(ip4_output_node);
