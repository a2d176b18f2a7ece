/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port_rx (source node)
 *   uses: the worker's (port, queue) list; skips ports whose link is down (dp_port_up)
 *   sets: nothing in the packet; counts rx_pkts, rx burst-size histogram, last_rx
 *   next: eth_classify (the whole stream moves, no copy)
 */
#include <rte_ethdev.h>
#include <rte_graph_worker.h>

#include "dp_delay.h"
#include "dp_graph.h"
#include "graph_fp.h"

enum port_rx_next {
	PORT_RX_NEXT_CLASSIFY,
	PORT_RX_NEXT_MAX,
};

static uint16_t
port_rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)node->objs;
	uint16_t n = 0;
	uint16_t q;

	RTE_SET_USED(objs);
	RTE_SET_USED(nb_objs);
	/* node->size is RTE_GRAPH_BURST_SIZE: room for several bursts */
	for (q = 0; q < w->nb_rxq && n + w->burst <= node->size; q++) {
		uint16_t got;

		/* link down (a memif peer gone): not polled until it is up again */
		if (unlikely(!__atomic_load_n(&dp_port_up[w->rxq[q].port_id], __ATOMIC_RELAXED)))
			continue;
		got = rte_eth_rx_burst(w->rxq[q].port_id, w->rxq[q].queue, pkts + n, w->burst);

		w->stats.rx_burst_hist[got]++;
		n += got;
	}
	if (n == 0)
		return 0;
	w->stats.rx_pkts += n;
	w->last_rx += n;
	if (w->delay_stats)
		dp_delay_stamp(pkts, n, rte_rdtsc(), dp_mbuf_meta_offset);
	node->idx = n;
	rte_node_next_stream_move(graph, node, PORT_RX_NEXT_CLASSIFY);
	return n;
}

static struct rte_node_register port_rx_node = {
	.name = "port_rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = port_rx_process,
	.init = dp_graph_node_init_worker,
	.nb_edges = PORT_RX_NEXT_MAX,
	.next_nodes = {
		[PORT_RX_NEXT_CLASSIFY] = "eth_classify",
	},
};

RTE_NODE_REGISTER(port_rx_node);
