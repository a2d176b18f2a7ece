/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port_tx-<port> (one clone per port)
 *   uses: the worker's TX buffer for that port (queue = worker index)
 *   sets: out of a sub-interface whose device does not insert tags, the 802.1Q
 *         tag (dp_txq_vlan_push()); counts tx_pkts, tx_full drops
 *   next: none (packets leave); unsent ones are freed and counted
 *
 * Small batches are buffered and sent once a burst is full; the worker loop
 * drains partial buffers every tx_drain_us, as DPDK's l2fwd does.
 *
 * Such a sub-interface's packets take the tag here and wait in the buffer the
 * forwarding nodes put theirs in, tagged (txq_tagged): one buffer, so that a
 * flow whose packets came this way (released by a neighbor, through ip4_output)
 * and then that way leaves in order.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_graph_worker.h>

#include "dp_graph.h"
#include "graph_fp.h"

static uint16_t
port_tx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	struct dp_worker_txq *q = ((struct dp_node_ctx *)node->ctx)->arg;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint16_t n = nb_objs;

	RTE_SET_USED(graph);
	if (unlikely(q->tagged) && (n = dp_txq_vlan_push(w, q, pkts, n)) == 0)
		return nb_objs;
	if (n >= w->burst) {
		/* a full burst goes out at once, after what was waiting */
		if (q->len != 0) {
			dp_txq_send(w, q, q->pkts, q->len);
			q->len = 0;
		}
		dp_txq_send(w, q, pkts, n);
		return nb_objs;
	}
	if (q->len + n > RTE_DIM(q->pkts)) {
		dp_txq_send(w, q, q->pkts, q->len);
		q->len = 0;
	}
	memcpy(&q->pkts[q->len], pkts, n * sizeof(pkts[0]));
	q->len += n;
	if (q->len >= w->burst) {
		dp_txq_send(w, q, q->pkts, q->len);
		q->len = 0;
	}
	return nb_objs;
}

static int
port_tx_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	const char *dash = strrchr(node->name, '-');
	unsigned long idx;
	int rc;

	rc = dp_graph_node_init_worker(graph, node);
	if (rc < 0)
		return rc;
	if (dash == NULL)
		return -EINVAL;
	idx = strtoul(dash + 1, NULL, 10);
	if (idx >= dp_nb_ports)
		return -EINVAL;
	/* a sub-interface's second buffer where it has one: port_tx's comment */
	ctx->arg = ctx->w->txq_tagged[idx] != NULL ? ctx->w->txq_tagged[idx]
						   : ctx->w->txq[dp_ports[idx].port_id];
	return ctx->arg != NULL ? 0 : -EINVAL;
}

static struct rte_node_register port_tx_node = {
	.name = "port_tx",
	.process = port_tx_process,
	.init = port_tx_init,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(port_tx_node);
