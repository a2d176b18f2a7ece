/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What ip4_output and ip6_output share: the packets of a burst whose next hop
 * is a connected (on-link) route go to the neighbor of their own destination,
 * found for all of them in one pipelined lookup of the neighbor hash.
 */
#ifndef DP_OUTPUT_PRIV_H
#define DP_OUTPUT_PRIV_H

#include <string.h>

#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_ctl.h"
#include "graph_fp.h"
#include "group_fp.h"

/*
 * A packet whose next hop @p idx has no MAC: an on-link route's host
 * neighbor, rewritten and sent when that one is resolved; otherwise the
 * control lcore holds it (meta.nh, meta.punt = @p punt) and asks. The TTL or
 * hop limit is left as it is: the control lcore takes one off when it sends.
 */
static __rte_always_inline rte_edge_t
dp_output_unresolved(const struct dp_fwd_nh *nh_table, int meta_off, struct rte_mbuf *m,
	uint32_t idx, const bool v6, uint8_t punt)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	const uint8_t *l3 = (const uint8_t *)(eth + 1);
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);
	const struct dp_fwd_nh *nh;

	idx = dp_neigh_hop_of(nh_table, idx, v6,
		l3 + (v6 ? offsetof(struct rte_ipv6_hdr, dst_addr)
			 : offsetof(struct rte_ipv4_hdr, dst_addr)));
	nh = &nh_table[idx];
	if (__atomic_load_n(&nh->flags, __ATOMIC_ACQUIRE) & DP_FWD_NH_F_RESOLVED) {
		if (v6)
			dp_fwd_ip6_rewrite(nh, eth);
		else
			dp_fwd_ip4_rewrite(nh, eth);
		return DP_GRAPH_EDGE_PORT_TX(nh->port);
	}
	meta->nh = idx;
	meta->punt = punt;
	return DP_GRAPH_EDGE_PUNT;
}

/** An unresolved packet's edge: ip4_output_unresolved(), ip6_output_unresolved(). */
typedef rte_edge_t (*dp_output_unresolved_t)(
	const struct dp_fwd_nh *nh_table, int meta_off, struct rte_mbuf *m, uint32_t idx);

/*
 * The packets @p idx of the burst @p pkts whose next hop is on-link: their
 * neighbors in bulk. A resolved one is rewritten (MACs, TTL or hop limit - 1)
 * and its edge is its port_tx; the rest go @p unresolved's way.
 */
static __rte_always_inline void
dp_output_onlink(const struct dp_fwd_nh *nh_table, int meta_off, struct rte_mbuf **pkts,
	const uint16_t *idx, uint16_t n, rte_edge_t *next, const bool v6,
	dp_output_unresolved_t unresolved)
{
	struct dp_neigh_key keys[DP_NEIGH_BULK];
	int32_t found[DP_NEIGH_BULK];
	uint16_t base, i, c;

	for (base = 0; base < n; base += c) {
		c = RTE_MIN(n - base, DP_NEIGH_BULK);
		for (i = 0; i < c; i++) {
			struct rte_mbuf *m = pkts[idx[base + i]];
			const uint8_t *l3 =
				rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);

			memset(&keys[i], 0, sizeof(keys[i]));
			if (v6)
				memcpy(keys[i].addr, l3 + offsetof(struct rte_ipv6_hdr, dst_addr),
					16);
			else
				memcpy(keys[i].addr, l3 + offsetof(struct rte_ipv4_hdr, dst_addr),
					4);
			keys[i].port = nh_table[dp_mbuf_meta(m, meta_off)->nh].port;
			keys[i].family = v6 ? 6 : 4;
		}
		dp_neigh_find_bulk(keys, c, found);
		for (i = 0; i < c; i++) {
			struct rte_mbuf *m = pkts[idx[base + i]];
			const int32_t hop = found[i];

			if (hop >= 0 && (__atomic_load_n(&nh_table[hop].flags, __ATOMIC_ACQUIRE) &
						DP_FWD_NH_F_RESOLVED)) {
				const struct dp_fwd_nh *nh = &nh_table[hop];
				struct rte_ether_hdr *eth =
					rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

				if (v6)
					dp_fwd_ip6_rewrite(nh, eth);
				else
					dp_fwd_ip4_rewrite(nh, eth);
				next[idx[base + i]] = DP_GRAPH_EDGE_PORT_TX(nh->port);
			} else {
				next[idx[base + i]] = unresolved(
					nh_table, meta_off, m, dp_mbuf_meta(m, meta_off)->nh);
			}
		}
	}
}

/* A packet whose next hop is an ECMP group: meta.nh becomes the member of its flow. */
static __rte_noinline const struct dp_fwd_nh *
dp_output_group_member(
	const struct dp_fwd_nh *nh_table, int meta_off, struct rte_mbuf *m, const bool v6)
{
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);

	meta->nh = dp_fwd_group_hop(nh_table, meta->nh, m, v6);
	return &nh_table[meta->nh];
}

/*
 * An output node's burst: resolved next hops rewritten one by one (@p one),
 * on-link ones in bulk, then the stream moves whole when every packet goes
 * one way. A stream longer than a graph burst (fragments: ip4_frag) goes in
 * bursts, each enqueued.
 */
static __rte_always_inline uint16_t
dp_output_burst(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	const bool v6, rte_edge_t (*one)(const struct dp_fwd_nh *, int, struct rte_mbuf *),
	dp_output_unresolved_t unresolved)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	uint16_t onlink[RTE_GRAPH_BURST_SIZE];
	const struct dp_fwd_nh *nh_table = dp_fwd.nh;
	const int meta_off = dp_mbuf_meta_offset;
	uint16_t base, n;

	for (base = 0; base < nb_objs; base += n) {
		rte_edge_t diff = 0;
		uint16_t i, n_on = 0;

		n = RTE_MIN(nb_objs - base, RTE_GRAPH_BURST_SIZE);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[base + i];
			const struct dp_fwd_nh *nh = &nh_table[dp_mbuf_meta(m, meta_off)->nh];

			if (unlikely(nh->flags & DP_FWD_NH_F_GROUP))
				nh = dp_output_group_member(nh_table, meta_off, m, v6);
			if (unlikely(!(nh->flags & DP_FWD_NH_F_RESOLVED)) &&
				(nh->flags & DP_FWD_NH_F_CONNECTED)) {
				onlink[n_on++] = i;
				next[i] = DP_GRAPH_EDGE_PUNT; /* decided below */
			} else {
				next[i] = one(nh_table, meta_off, m);
			}
		}
		if (n_on != 0)
			dp_output_onlink(nh_table, meta_off, pkts + base, onlink, n_on, next, v6,
				unresolved);
		if (unlikely(n != nb_objs)) {
			dp_node_enqueue_each(graph, node, objs + base, next, n);
			continue;
		}
		for (i = 0; i < n; i++)
			diff |= next[i] ^ next[0];
		if (likely(diff == 0))
			rte_node_next_stream_move(graph, node, next[0]);
		else
			dp_node_dispatch_mixed(graph, node, objs, next, n);
	}
	return nb_objs;
}

#endif /* DP_OUTPUT_PRIV_H */
