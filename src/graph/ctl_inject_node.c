/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctl_inject (source node)
 *   uses: the worker's inject ring, dp_mbuf_meta.port of each frame
 *   sets: nothing; the control lcore built the whole frame
 *   next: port_tx-<port>, or drop (ctl_bad_port)
 */
#include <rte_graph_worker.h>
#include <rte_ring.h>

#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "graph_fp.h"

static uint16_t
ctl_inject_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	const int meta_off = dp_mbuf_meta_offset;
	unsigned int n, i;

	RTE_SET_USED(objs);
	RTE_SET_USED(nb_objs);
	/* usually empty: one look at the ring's two indexes */
	if (likely(rte_ring_empty(w->inject_ring)))
		return 0;
	n = rte_ring_dequeue_burst(w->inject_ring, node->objs, w->burst, NULL);
	w->stats.injected += n;
	/* the control lcore's packets are timed from their hand-off */
	if (w->delay_stats)
		dp_delay_stamp((struct rte_mbuf **)node->objs, (uint16_t)n, w->walk_tsc, meta_off);
	for (i = 0; i < n; i++) {
		uint16_t port = dp_mbuf_meta(node->objs[i], meta_off)->port;

		/* dp_ctl_send() took only ports that exist; checked again, as an edge
		 * beyond the node's would be the graph's end */
		if (unlikely(port >= dp_nb_ports)) {
			w->stats.drops[DP_DROP_CTL_BAD_PORT]++;
			next[i] = DP_GRAPH_EDGE_DROP;
		} else {
			next[i] = DP_GRAPH_EDGE_PORT_TX(port);
		}
	}
	node->idx = (uint16_t)n;
	dp_node_dispatch(graph, node, node->objs, next, (uint16_t)n);
	return (uint16_t)n;
}

static struct rte_node_register ctl_inject_node = {
	.name = "ctl_inject",
	.flags = RTE_NODE_SOURCE_F,
	.process = ctl_inject_process,
	.init = dp_graph_node_init_worker,
	/* the port_tx edges are added by dp_graph_ports_prepare() */
	.nb_edges = 2,
	.next_nodes = {
		[DP_GRAPH_EDGE_DROP] = "drop",
		[DP_GRAPH_EDGE_PUNT] = "ctl_punt",
	},
};

RTE_NODE_REGISTER(ctl_inject_node);
