/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_output (the IPv6 rewrite stage)
 *   uses: dp_mbuf_meta.nh, the next-hop table, the neighbor hash
 *   sets: Ethernet destination (neighbor) and source (egress port), hop limit - 1
 *         (IPv6 has no header checksum to update)
 *   next: port_tx-<port>, or ctl_punt (meta.punt = DP_PUNT_NEIGH6: the next hop
 *         has no MAC yet; the control lcore holds the packet, solicits the
 *         neighbor and sends the packet once it is known, hop limit - 1 then)
 *
 * A connected (on-link) next hop stands for every host of its prefix: the
 * packet goes to the neighbor of its own destination, found in the neighbor
 * hash with one pipelined lookup for all such packets of a burst
 * (output_priv.h, shared with ip4_output). Routes through a gateway whose
 * MAC is known never get here: ip6_fwd rewrites those itself.
 *
 * Packets the router originates (echo replies, ICMPv6 errors) come here too,
 * written with a hop limit one above the one they should leave with.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "graph_fp.h"
#include "output_priv.h"

_Static_assert(DP_GRAPH_EDGE_PORT_TX(DP_CONFIG_MAX_PORTS - 1) < DP_NODE_MAX_EDGES,
	"ip6_output has an edge per port: more than dp_node_dispatch() counts");

/* The next hop has no MAC (output_priv.h): kept out of the loop. */
static __rte_noinline rte_edge_t
ip6_output_unresolved(
	const struct dp_fwd_nh *nh_table, int meta_off, struct rte_mbuf *m, uint32_t idx)
{
	return dp_output_unresolved(nh_table, meta_off, m, idx, true, DP_PUNT_NEIGH6);
}

static __rte_always_inline rte_edge_t
ip6_output_one(const struct dp_fwd_nh *nh_table, int meta_off, struct rte_mbuf *m)
{
	const uint32_t idx = dp_mbuf_meta(m, meta_off)->nh;
	const struct dp_fwd_nh *nh = &nh_table[idx];

	/* a connected next hop is never resolved itself */
	if (unlikely(!(nh->flags & DP_FWD_NH_F_RESOLVED)))
		return ip6_output_unresolved(nh_table, meta_off, m, idx);
	dp_fwd_ip6_rewrite(nh, rte_pktmbuf_mtod(m, struct rte_ether_hdr *));
	return DP_GRAPH_EDGE_PORT_TX(nh->port);
}

static uint16_t
ip6_output_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	return dp_output_burst(
		graph, node, objs, nb_objs, true, ip6_output_one, ip6_output_unresolved);
}

static struct rte_node_register ip6_output_node = {
	.name = "ip6_output",
	.process = ip6_output_process,
	.init = dp_graph_node_init_worker,
	/* the port_tx edges are added by dp_graph_ports_prepare() (dp_graph_tx_nodes) */
	.nb_edges = 2,
	.next_nodes = {
		[DP_GRAPH_EDGE_DROP] = "drop",
		[DP_GRAPH_EDGE_PUNT] = "ctl_punt",
	},
};

RTE_NODE_REGISTER(ip6_output_node);
