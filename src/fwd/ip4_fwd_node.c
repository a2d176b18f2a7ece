/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_fwd
 *   uses: IPv4 header (after a plain Ethernet header), the LPM table
 *   sets: dp_mbuf_meta.nh (next hop index)
 *   next: ip4_output, or drop (ip4_truncated, ip4_bad_version, ip4_bad_ihl,
 *         ip4_bad_length, ip4_bad_cksum, ip4_martian, ip4_no_route, ip4_local,
 *         ip4_ttl_exceeded)
 *
 * Header checks follow RFC 1812 section 5.2.2; the TTL check (5.3.1) applies
 * only to packets being forwarded, so it comes after the lookup.
 */
#include <rte_byteorder.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>

#include "dp_cksum.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "graph_fp.h"

/* rte_lpm_lookupx4's "default value" for a miss: next hops are 24 bits */
#define NO_ROUTE UINT32_MAX

enum ip4_fwd_next {
	IP4_FWD_NEXT_DROP,
	IP4_FWD_NEXT_OUTPUT,
	IP4_FWD_NEXT_MAX,
};

/* RFC 1812 5.3.7 and RFC 6890: never forwarded (multicast: no multicast routing here). */
static __rte_always_inline bool
ip4_martian(uint32_t src, uint32_t dst)
{
	uint8_t s = src >> 24, d = dst >> 24;

	return s == 0 || s == 127 || s >= 224 || d == 0 || d == 127 || d >= 224;
}

/* Validate one header; returns DP_DROP_MAX when it may be forwarded. */
static __rte_always_inline enum dp_drop_reason
ip4_check(const bool cksum_check, struct rte_mbuf *m, const struct rte_ipv4_hdr **hp)
{
	const struct rte_ipv4_hdr *ip;
	uint32_t avail, ihl, tlen;
	uint64_t ck;

	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip)))
		return DP_DROP_IP4_TRUNCATED;
	avail = m->data_len - RTE_ETHER_HDR_LEN;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	*hp = ip;
	if (unlikely((ip->version_ihl >> 4) != 4))
		return DP_DROP_IP4_VERSION;
	ihl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	if (unlikely(ihl < sizeof(*ip) || ihl > avail))
		return DP_DROP_IP4_IHL;
	tlen = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(tlen < ihl || tlen > avail))
		return DP_DROP_IP4_LEN;
	ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (unlikely(ck == RTE_MBUF_F_RX_IP_CKSUM_BAD))
		return DP_DROP_IP4_CKSUM;
	if (ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD && cksum_check &&
		unlikely(dp_cksum_ip4_hdr_sum(ip, ihl / 4) != 0xffff))
		return DP_DROP_IP4_CKSUM;
	if (unlikely(ip4_martian(rte_be_to_cpu_32(ip->src_addr), rte_be_to_cpu_32(ip->dst_addr))))
		return DP_DROP_IP4_MARTIAN;
	return DP_DROP_MAX;
}

static __rte_always_inline void
ip4_check_burst(struct dp_worker *w, struct rte_mbuf **pkts, uint16_t n, const bool cksum_check,
	const struct rte_ipv4_hdr **hdr, uint32_t *dst, rte_edge_t *next)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		enum dp_drop_reason why = ip4_check(cksum_check, pkts[i], &hdr[i]);

		if (likely(why == DP_DROP_MAX)) {
			dst[i] = rte_be_to_cpu_32(hdr[i]->dst_addr);
			next[i] = IP4_FWD_NEXT_OUTPUT;
		} else {
			w->stats.drops[why]++;
			dst[i] = 0;
			next[i] = IP4_FWD_NEXT_DROP;
		}
	}
}

static uint16_t
ip4_fwd_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	const struct rte_ipv4_hdr *hdr[RTE_GRAPH_BURST_SIZE];
	uint32_t dst[RTE_GRAPH_BURST_SIZE];
	uint32_t hop[RTE_GRAPH_BURST_SIZE];
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	const int meta_off = dp_mbuf_meta_offset;
	uint16_t i;

	/* 1: header checks, collect destinations (two copies of the loop so the
	 * checksum choice is not re-read per packet) */
	if (w->ip4_cksum_check)
		ip4_check_burst(w, pkts, nb_objs, true, hdr, dst, next);
	else
		ip4_check_burst(w, pkts, nb_objs, false, hdr, dst, next);
	/* 2: lookups four at a time (SSE), then the tail */
	for (i = 0; i + 4 <= nb_objs; i += 4) {
		xmm_t ip4 = _mm_loadu_si128((const __m128i *)&dst[i]);

		rte_lpm_lookupx4(dp_fwd.lpm, ip4, &hop[i], NO_ROUTE);
	}
	for (; i < nb_objs; i++)
		if (rte_lpm_lookup(dp_fwd.lpm, dst[i], &hop[i]) != 0)
			hop[i] = NO_ROUTE;
	/* 3: route result and TTL */
	for (i = 0; i < nb_objs; i++) {
		uint32_t nh;

		if (next[i] == IP4_FWD_NEXT_DROP)
			continue;
		if (unlikely(hop[i] == NO_ROUTE)) {
			w->stats.drops[DP_DROP_IP4_NO_ROUTE]++;
			next[i] = IP4_FWD_NEXT_DROP;
			continue;
		}
		nh = hop[i];
		if (unlikely(nh == DP_FWD_NH_LOCAL)) {
			w->stats.drops[DP_DROP_IP4_LOCAL]++;
			next[i] = IP4_FWD_NEXT_DROP;
			continue;
		}
		if (unlikely(hdr[i]->time_to_live <= 1)) {
			w->stats.drops[DP_DROP_IP4_TTL]++;
			next[i] = IP4_FWD_NEXT_DROP;
			continue;
		}
		dp_mbuf_meta(pkts[i], meta_off)->nh = nh;
	}
	dp_node_dispatch(graph, node, objs, next, nb_objs);
	return nb_objs;
}

static struct rte_node_register ip4_fwd_node = {
	.name = "ip4_fwd",
	.process = ip4_fwd_process,
	.init = dp_graph_node_init_worker,
	.nb_edges = IP4_FWD_NEXT_MAX,
	.next_nodes = {
		[IP4_FWD_NEXT_DROP] = "drop",
		[IP4_FWD_NEXT_OUTPUT] = "ip4_output",
	},
};

RTE_NODE_REGISTER(ip4_fwd_node);
