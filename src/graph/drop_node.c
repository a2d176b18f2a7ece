/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * drop
 *   uses: nothing; the node that chose to drop counted the reason
 *   next: none; frees the stream in one bulk call
 */
#include <rte_graph_worker.h>
#include <rte_mbuf.h>

#include "dp_graph.h"

static uint16_t
drop_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	RTE_SET_USED(graph);
	RTE_SET_USED(node);
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, nb_objs);
	return nb_objs;
}

static struct rte_node_register drop_node = {
	.name = "drop",
	.process = drop_process,
};

RTE_NODE_REGISTER(drop_node);
