/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_local (local delivery)
 *   uses: the IPv4 header, checked by ip4_fwd (whole, valid, in the first
 *         segment, not martian but for 224.0.0.0/24); the LPM table for the way back
 *   sets: an echo reply in place of an echo request; dp_mbuf_meta.nh (its route)
 *   next: ip4_output (echo replies); a local service's node (UDP to a port
 *         it claimed, dp_fwd_local.h: the service checks the address; every
 *         fragment to the service that takes them, to reassemble; what no
 *         service takes, and everything to 224.0.0.0/24, to the service of the
 *         rest when one is set); or drop (l2_mcast_ip4, ip4_fragment_local,
 *         ip4_local, icmp_truncated, icmp_bad_cksum, icmp_unhandled,
 *         icmp_bad_addr, icmp_no_route)
 *
 * Packets for one of the router's own addresses (ip4_fwd's lookup found the
 * local next hop). One switch by protocol: ICMP echo requests are answered
 * (RFC 792, RFC 1812 4.3.3.6); local services take their packets here by
 * destination port; anything else has no service (ip4_local). Fragments go
 * to the service that reassembles them, when one is set, and are dropped
 * otherwise.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_graph_worker.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "dp_cksum.h"
#include "dp_fwd_local.h"
#include "fwd_local_priv.h"
#include "graph_fp.h"
#include "icmp4_priv.h"

enum ip4_local_next {
	IP4_LOCAL_NEXT_DROP,
	IP4_LOCAL_NEXT_OUTPUT,
	IP4_LOCAL_NEXT_MAX, /* then the local services' (fwd_local_priv.h) */
};
_Static_assert(IP4_LOCAL_NEXT_MAX == FWD_LOCAL_IP4_LOCAL_BASE, "services after the node's edges");

static inline bool
ip4_is_mcast(rte_be32_t dst)
{
	return (rte_be_to_cpu_32(dst) >> 28) == 0xe;
}

static inline rte_edge_t
ip4_local_drop(struct dp_worker *w, enum dp_drop_reason why)
{
	w->stats.drops[why]++;
	return IP4_LOCAL_NEXT_DROP;
}

/* what no service takes: to the service of the rest, if one, else dropped for @p why */
static inline rte_edge_t
ip4_local_other(struct dp_worker *w, enum dp_drop_reason why)
{
	const uint8_t svc = __atomic_load_n(&dp_fwd_local_other4, __ATOMIC_RELAXED);

	if (svc != 0)
		return fwd_local_edge(IP4_LOCAL_NEXT_MAX, svc);
	return ip4_local_drop(w, why);
}

/*
 * An echo request becomes its reply in the same mbuf: source = the address
 * it was sent to (RFC 1812 4.3.3.6), destination = its source; identifier,
 * sequence number and data unchanged; type 0. The IP header is written anew,
 * without options (RFC 1812 4.3.3.6 asks to reflect Record Route and
 * Timestamp options: a SHOULD this router does not do). When the request had
 * options, the start of the frame moves up by their length, so that the ICMP
 * message stays where it is:
 *
 *   request  | eth 14 | IPv4 20 | options |  ICMP echo ...  | (padding)
 *   reply              | eth 14 | IPv4 20 |  ICMP echo ...  |
 */
static rte_edge_t
ip4_local_icmp(struct dp_worker *w, struct icmp4_worker *st, struct rte_mbuf *m,
	struct rte_ipv4_hdr *ip, int meta_off)
{
	const uint32_t ihl = rte_ipv4_hdr_len(ip);
	const uint16_t len = (uint16_t)(rte_be_to_cpu_16(ip->total_length) - ihl);
	struct rte_icmp_hdr *icmp = RTE_PTR_ADD(ip, ihl);
	const rte_be32_t src = ip->src_addr, dst = ip->dst_addr;
	const uint8_t tos = ip->type_of_service;
	uint16_t old_word, new_word;
	uint32_t nh;

	if (len < sizeof(*icmp))
		return ip4_local_drop(w, DP_DROP_ICMP_TRUNCATED);
	/* a correct message sums to 0xffff, its checksum included (RFC 1071) */
	if (rte_raw_cksum(icmp, len) != 0xffff)
		return ip4_local_drop(w, DP_DROP_ICMP_CKSUM);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST)
		return ip4_local_other(w, DP_DROP_ICMP_UNHANDLED);
	if (icmp4_addr_bad(rte_be_to_cpu_32(src)))
		return ip4_local_drop(w, DP_DROP_ICMP_BAD_ADDR);
	if (!icmp4_route(rte_be_to_cpu_32(src), &nh))
		return ip4_local_drop(w, DP_DROP_ICMP_NO_ROUTE);

	/* type 8 -> 0 changes one 16-bit word of the message: RFC 1624 update */
	memcpy(&old_word, icmp, sizeof(old_word));
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	memcpy(&new_word, icmp, sizeof(new_word));
	icmp->icmp_cksum = dp_cksum_update16(icmp->icmp_cksum, old_word, new_word);

	if (ihl > sizeof(*ip))
		rte_pktmbuf_adj(m, (uint16_t)(ihl - sizeof(*ip)));
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	icmp4_ip_hdr_write(ip, tos, (uint16_t)(sizeof(*ip) + len), st->ip_id++, dst, src);
	icmp4_eth_prepare(m);
	icmp4_mbuf_set_len(m, (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(*ip) + len));
	dp_mbuf_meta(m, meta_off)->nh = nh;
	st->echo_replies++;
	return IP4_LOCAL_NEXT_OUTPUT;
}

static inline rte_edge_t
ip4_local_one(struct dp_worker *w, struct icmp4_worker *st, struct rte_mbuf *m, int meta_off)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);

	/* to 224.0.0.0/24 (ip4_fwd let only those groups by): for the service of the rest,
	 * which is in them (Linux: OSPF, RIP, ...), or dropped as before ip4_fwd */
	if (unlikely(ip4_is_mcast(ip->dst_addr)))
		return ip4_local_other(w, DP_DROP_L2_MCAST_IP4);
	/* more fragments, or not the first: part of a datagram */
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		const uint8_t svc = __atomic_load_n(&dp_fwd_local_frag4, __ATOMIC_RELAXED);

		if (svc != 0)
			return fwd_local_edge(IP4_LOCAL_NEXT_MAX, svc);
		return ip4_local_drop(w, DP_DROP_IP4_FRAG_LOCAL);
	}
	switch (ip->next_proto_id) {
	case IPPROTO_ICMP:
		return ip4_local_icmp(w, st, m, ip, meta_off);
	case IPPROTO_UDP: {
		const uint8_t svc = dp_fwd_local_udp4_service((const uint8_t *)ip);

		if (svc != 0)
			return fwd_local_edge(IP4_LOCAL_NEXT_MAX, svc);
		return ip4_local_other(w, DP_DROP_IP4_LOCAL);
	}
	default:
		return ip4_local_other(w, DP_DROP_IP4_LOCAL);
	}
}

/* Every object entered the graph as one received packet: never more than a burst. */
static uint16_t
ip4_local_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	const struct dp_node_ctx *ctx = (const struct dp_node_ctx *)node->ctx;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	const int meta_off = dp_mbuf_meta_offset;
	uint16_t i;

	for (i = 0; i < nb_objs; i++)
		next[i] = ip4_local_one(ctx->w, ctx->arg, pkts[i], meta_off);
	dp_node_dispatch(graph, node, objs, next, nb_objs);
	return nb_objs;
}

static struct rte_node_register ip4_local_node = {
	.name = "ip4_local",
	.process = ip4_local_process,
	.init = icmp4_node_init,
	.nb_edges = IP4_LOCAL_NEXT_MAX,
	.next_nodes = {
		[IP4_LOCAL_NEXT_DROP] = "drop",
		[IP4_LOCAL_NEXT_OUTPUT] = "ip4_output",
	},
};

RTE_NODE_REGISTER(ip4_local_node);
