/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctl_punt
 *   uses: dp_mbuf_meta.punt (set by the node that sends the packet here)
 *   sets: nothing
 *   next: none; the packets go to the control lcore over the worker's punt
 *         ring, or are freed and counted (punt_full) when it is full
 */
#include <rte_graph_worker.h>
#include <rte_ring.h>

#include "dp_graph.h"
#include "graph_fp.h"

static uint16_t
ctl_punt_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	unsigned int n;

	RTE_SET_USED(graph);
	n = rte_ring_enqueue_burst(w->punt_ring, objs, nb_objs, NULL);
	w->stats.punted += n;
	if (unlikely(n < nb_objs)) {
		w->stats.drops[DP_DROP_PUNT_FULL] += nb_objs - n;
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs + n, nb_objs - n);
	}
	return nb_objs;
}

static struct rte_node_register ctl_punt_node = {
	.name = "ctl_punt",
	.process = ctl_punt_process,
	.init = dp_graph_node_init_worker,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(ctl_punt_node);
