/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linux_punt
 *   uses: a packet to one of the router's addresses that no local service
 *         takes (ip4_local, ip6_local: the service of the rest), Ethernet
 *         header first
 *   sets: dp_mbuf_meta.punt = DP_PUNT_HOST, dp_mbuf_meta.port = the config
 *         port it came in on
 *   next: none; the packets go to the control lcore over the worker's punt
 *         ring (then to the port's mirror), or are freed and counted
 *         (linux_punt_full) when it is full
 */
#include <rte_graph_worker.h>
#include <rte_ring.h>

#include "dp_ctl.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "graph_fp.h"

static uint16_t
linux_punt_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	const int meta_off = dp_mbuf_meta_offset;
	unsigned int n;
	uint16_t i;

	RTE_SET_USED(graph);
	for (i = 0; i < nb_objs; i++) {
		struct rte_mbuf *m = objs[i];
		struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);

		meta->punt = DP_PUNT_HOST;
		meta->port = dp_port_index[m->port];
	}
	n = rte_ring_enqueue_burst(w->punt_ring, objs, nb_objs, NULL);
	w->stats.punted += n;
	if (unlikely(n < nb_objs)) {
		w->stats.drops[DP_DROP_LINUX_PUNT_FULL] += nb_objs - n;
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs + n, nb_objs - n);
	}
	return nb_objs;
}

static struct rte_node_register linux_punt_node = {
	.name = "linux_punt",
	.process = linux_punt_process,
	.init = dp_graph_node_init_worker,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(linux_punt_node);
