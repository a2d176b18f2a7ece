/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Fast-path helpers shared by every node.
 */
#ifndef DP_GRAPH_FP_H
#define DP_GRAPH_FP_H

#include <string.h>

#include <rte_ethdev.h>
#include <rte_graph_worker.h>

#include "dp_delay.h"
#include "dp_graph.h"

/**
 * Is @p dst (host order) in the Local Network Control Block, 224.0.0.0/24 (RFC 5771 4:
 * OSPF's 224.0.0.5 and .6, RIP's .9, ...)? Such a datagram in a multicast frame is for the
 * router itself, never forwarded: eth_classify lets it through to ip4_fwd, which hands it
 * to ip4_local (the service of the rest, the Linux control plane) or drops it.
 */
static inline bool
dp_ip4_link_local_group(uint32_t dst)
{
	return (dst >> 8) == 0xe00000;
}

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

/**
 * For a node with state per worker, @p states an array of DP_GRAPH_MAX_WORKERS
 * elements of @p size bytes: dp_graph_node_init_worker(), then ctx->arg is the
 * worker's element (as it was: the caller sets it up). 0, or a negative errno.
 */
int dp_graph_node_init_state(
	const struct rte_graph *graph, struct rte_node *node, void *states, size_t size);

/** Most edges a node may have for dp_node_dispatch() (drop + one per port + jobs). */
#define DP_NODE_MAX_EDGES 32

/* Put @p n objects on edge @p e in one stream_get/put. */
static __rte_always_inline void
dp_node_enqueue(
	struct rte_graph *graph, struct rte_node *node, rte_edge_t e, void **objs, uint16_t n)
{
	void **to;

	if (n == 0)
		return;
	to = rte_node_next_stream_get(graph, node, e, n);
	memcpy(to, objs, n * sizeof(objs[0]));
	rte_node_next_stream_put(graph, node, e, n);
}

/*
 * More than two edges: count per edge, then one branchless compaction pass
 * per edge that is present. Counting goes to four arrays in turn: a single
 * `cnt[next[i]]++` is a chain of load-add-store on one slot, a store-forwarding
 * latency per packet. The compaction writes every object and advances only on
 * a match, so it asks rte_graph for one slot more than it puts.
 */
static __rte_noinline void
dp_node_dispatch_many(struct rte_graph *graph, struct rte_node *node, void **objs,
	const rte_edge_t *nexts, uint16_t n)
{
	uint16_t cnt[4][DP_NODE_MAX_EDGES] = { { 0 } };
	rte_edge_t e, max_e = 0;
	uint16_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		cnt[0][nexts[i]]++;
		cnt[1][nexts[i + 1]]++;
		cnt[2][nexts[i + 2]]++;
		cnt[3][nexts[i + 3]]++;
	}
	for (; i < n; i++)
		cnt[0][nexts[i]]++;
	for (i = 0; i < n; i++)
		max_e = RTE_MAX(max_e, nexts[i]);
	for (e = 0; e <= max_e; e++) {
		uint16_t c = cnt[0][e] + cnt[1][e] + cnt[2][e] + cnt[3][e];
		void **to;
		uint16_t k = 0;

		if (c == 0)
			continue;
		to = rte_node_next_stream_get(graph, node, e, c + 1);
		for (i = 0; i < n; i++) {
			to[k] = objs[i];
			k += nexts[i] == e;
		}
		rte_node_next_stream_put(graph, node, e, c);
	}
}

/**
 * The objects do not all go one way. The usual case is two edges (two egress
 * ports, or forward and drop): a short scan finds the second edge and checks
 * there is no third, then one pass writes each packet into both next streams
 * and moves only the right count. Three edges or more fall back to counting.
 */
static __rte_noinline void
dp_node_dispatch_mixed(struct rte_graph *graph, struct rte_node *node, void **objs,
	const rte_edge_t *nexts, uint16_t n)
{
	const rte_edge_t ea = nexts[0];
	rte_edge_t eb, diff = 0;
	uint16_t i, na = 0, nb = 0;
	void **a, **b;

	/* the caller saw two edges at least: eb is the first that is not ea */
	for (i = 1; i < n - 1 && nexts[i] == ea; i++)
		;
	eb = nexts[i];
	for (; i < n; i++)
		diff |= (nexts[i] != ea) & (nexts[i] != eb);
	if (unlikely(diff != 0 || eb == ea)) {
		dp_node_dispatch_many(graph, node, objs, nexts, n);
		return;
	}
	/* straight into both next streams, with no branch on the edge: with two
	 * ports interleaved it would mispredict. Each write lands in both, and
	 * only the one whose count moves keeps it. */
	a = rte_node_next_stream_get(graph, node, ea, n);
	b = rte_node_next_stream_get(graph, node, eb, n);
	for (i = 0; i < n; i++) {
		const uint16_t is_a = nexts[i] == ea;

		a[na] = objs[i];
		b[nb] = objs[i];
		na += is_a;
		nb += 1 - is_a;
	}
	rte_node_next_stream_put(graph, node, ea, na);
	rte_node_next_stream_put(graph, node, eb, nb);
}

/**
 * Send each object to the edge in @p nexts, from an array that is not the
 * node's own stream (a copy, or a part of it): never moves the stream.
 */
static inline void
dp_node_enqueue_each(struct rte_graph *graph, struct rte_node *node, void **objs,
	const rte_edge_t *nexts, uint16_t n)
{
	rte_edge_t diff = 0;
	uint16_t i;

	if (n == 0)
		return;
	for (i = 1; i < n; i++)
		diff |= nexts[i] ^ nexts[0];
	if (diff == 0)
		dp_node_enqueue(graph, node, nexts[0], objs, n);
	else
		dp_node_dispatch_mixed(graph, node, objs, nexts, n);
}

/**
 * Send each object to the edge in @p nexts. When all go one way (the common
 * case) the whole stream moves by swapping buffers, without copying pointers;
 * finding that out is one OR per packet, which the compiler vectorizes.
 */
static inline void
dp_node_dispatch(struct rte_graph *graph, struct rte_node *node, void **objs,
	const rte_edge_t *nexts, uint16_t n)
{
	rte_edge_t first, diff = 0;
	uint16_t i;

	if (unlikely(n == 0))
		return;
	first = nexts[0];
	for (i = 1; i < n; i++)
		diff |= nexts[i] ^ first;
	if (likely(diff == 0))
		rte_node_next_stream_move(graph, node, first);
	else
		dp_node_dispatch_mixed(graph, node, objs, nexts, n);
}

/*
 * How many times each packet of a burst of @p n about to leave @p q counts in
 * the delay histogram, 0 when the burst is not timed: a partial burst is
 * always timed, a full one once in w->delay_sample on average, standing for
 * that many (dp_delay.h).
 */
static __rte_always_inline uint32_t
dp_txq_delay_weight(const struct dp_worker *w, struct dp_worker_txq *q, uint16_t n)
{
	if (n < w->burst)
		return 1;
	if (--q->delay_skip != 0)
		return 0;
	q->delay_skip = dp_delay_sample_gap(w->delay_sample);
	return w->delay_sample;
}

/**
 * Send @p n packets on a worker's TX queue: one retry for what the queue did
 * not take, then the rest is freed and counted as tx_full.
 */
static inline void
dp_txq_send(struct dp_worker *w, struct dp_worker_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t bytes = 0;
	dp_graph_tap_t tap;
	uint32_t weight;
	uint16_t sent, i;

	/* link down (a memif peer gone): not sent, counted */
	if (unlikely(!__atomic_load_n(&dp_port_up[q->port_id], __ATOMIC_RELAXED))) {
		w->stats.drops[DP_DROP_PORT_DOWN] += n;
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	if (unlikely(q->vlan_tci != 0) && !q->tagged && (n = dp_txq_vlan_push(w, q, pkts, n)) == 0)
		return;
	/* a capture sees the packets as they leave, before a sent mbuf is freed */
	tap = __atomic_load_n(&dp_graph_tap, __ATOMIC_RELAXED);
	if (unlikely(tap != NULL))
		tap(w, q->port_id, q->queue, true, pkts, n);
	/* count before sending: a sent mbuf may be freed at once */
	weight = w->delay_stats ? dp_txq_delay_weight(w, q, n) : 0;
	if (weight != 0)
		dp_delay_note(
			&w->delay, &w->delay_pend, pkts, n, weight, dp_mbuf_meta_offset, &bytes);
	else
		for (i = 0; i < n; i++)
			bytes += pkts[i]->pkt_len;
	if (unlikely(q->vlan_tci != 0)) {
		/* the sub-interface's own counters, with the tag (the device's to put on) */
		q->vlan_stats->tx_pkts += n;
		q->vlan_stats->tx_bytes +=
			bytes + (q->vlan_insert ? (uint64_t)n * RTE_VLAN_HLEN : 0);
	}
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

/**
 * Work of another node's, done by the running one (a fused TX burst, a
 * service's fast match): @p pkts packets that took @p cycles, counted as
 * node @p to's and not as the running node's. @p cycles counts only in a
 * timed walk (w->walk_timed); the packets and the call in every walk with
 * node stats on, as graph_walk() counts the nodes it calls.
 */
static __rte_always_inline void
dp_node_lend(struct dp_worker *w, struct rte_node *to, uint64_t cycles, uint16_t pkts)
{
	if (w->walk_timed) {
		to->total_cycles += cycles;
		w->timed_objs[to->id] += pkts;
		w->lent_cycles += cycles;
	}
	to->total_calls++;
	to->total_objs += pkts;
}

/* A sender's full TX buffer out, timed as its port_tx node's work. */
static __rte_noinline void
dp_txq_send_lent(struct dp_worker *w, struct dp_worker_txq *q)
{
	const uint16_t n = q->len;
	uint64_t t0 = 0;

	if (w->walk_timed)
		t0 = rte_rdtsc();
	dp_txq_send(w, q, q->pkts, n);
	q->len = 0;
	if (w->node_stats && q->tx_node != NULL)
		dp_node_lend(w, q->tx_node, w->walk_timed ? rte_rdtsc() - t0 : 0, n);
}

/**
 * Append @p m to TX buffer @p q of worker @p w, sending once @p burst packets
 * wait there: for the nodes that rewrite and send in one pass (ip4_fwd,
 * ip6_fwd, the relay) rather than through a port_tx node, as l3fwd does. The
 * buffer is the one port_tx fills, so a port's packets leave in the order
 * they were appended, whichever node appended them. The burst's cycles and
 * packets count as the port's port_tx node's, so that the node table tells
 * the sender's work from TX.
 */
static __rte_always_inline void
dp_txq_append(struct dp_worker *w, struct dp_worker_txq *q, struct rte_mbuf *m, uint16_t burst)
{
	q->pkts[q->len++] = m;
	if (unlikely(q->len >= burst))
		dp_txq_send_lent(w, q);
}

#endif /* DP_GRAPH_FP_H */
