/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Fast-path helpers shared by every node.
 */
#ifndef DP_GRAPH_FP_H
#define DP_GRAPH_FP_H

#include <rte_ethdev.h>
#include <rte_graph_worker.h>

#include "dp_graph.h"

/** Every node's context starts with its worker. */
struct dp_node_ctx {
	struct dp_worker *w;
	void *arg;
};
_Static_assert(sizeof(struct dp_node_ctx) <= RTE_NODE_CTX_SZ, "node ctx too large");

static inline struct dp_worker *
dp_node_worker(struct rte_node *node)
{
	return ((struct dp_node_ctx *)node->ctx)->w;
}

/** Node init callback that only records the worker; for nodes that need nothing else. */
int dp_graph_node_init_worker(const struct rte_graph *graph, struct rte_node *node);

/** Most edges a node may have for dp_node_dispatch() (drop + one per port + jobs). */
#define DP_NODE_MAX_EDGES 32

/**
 * Send each object to the edge in @p nexts. When all go one way (the common
 * case) the whole stream moves by swapping buffers, without copying pointers.
 * Otherwise objects are counted per edge first, so that each edge gets one
 * stream_get/put however the packets interleave (two ports alternating packet
 * by packet would otherwise cost one enqueue call per packet).
 */
static inline void
dp_node_dispatch(struct rte_graph *graph, struct rte_node *node, void **objs,
	const rte_edge_t *nexts, uint16_t n)
{
	uint16_t cnt[DP_NODE_MAX_EDGES] = {0};
	void **to[DP_NODE_MAX_EDGES];
	rte_edge_t e, max_e = 0;
	uint16_t i;

	if (unlikely(n == 0))
		return;
	for (i = 0; i < n; i++) {
		cnt[nexts[i]]++;
		max_e = RTE_MAX(max_e, nexts[i]);
	}
	if (likely(cnt[nexts[0]] == n)) {
		rte_node_next_stream_move(graph, node, nexts[0]);
		return;
	}
	for (e = 0; e <= max_e; e++)
		if (cnt[e] != 0)
			to[e] = rte_node_next_stream_get(graph, node, e, cnt[e]);
	for (i = 0; i < n; i++)
		*to[nexts[i]]++ = objs[i];
	for (e = 0; e <= max_e; e++)
		if (cnt[e] != 0)
			rte_node_next_stream_put(graph, node, e, cnt[e]);
}

/**
 * Send @p n packets on a worker's TX queue: one retry for what the queue did
 * not take, then the rest is freed and counted as tx_full.
 */
static inline void
dp_txq_send(struct dp_worker *w, struct dp_worker_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t bytes = 0;
	uint16_t sent, i;

	/* count before sending: a sent mbuf may be freed at once */
	for (i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	sent = rte_eth_tx_burst(q->port_id, q->queue, pkts, n);

	if (unlikely(sent < n))
		sent += rte_eth_tx_burst(q->port_id, q->queue, pkts + sent, n - sent);
	w->stats.tx_pkts += sent;
	if (unlikely(sent < n)) {
		w->stats.drops[DP_DROP_TX_FULL] += n - sent;
		for (i = sent; i < n; i++)
			bytes -= pkts[i]->pkt_len;
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	}
	w->stats.tx_bytes += bytes;
}

#endif /* DP_GRAPH_FP_H */
