/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_local (packets for the router's own addresses and multicast groups)
 *   uses: IPv6 header checked by ip6_fwd, ICMPv6 header
 *   sets: echo request -> echo reply in place (RFC 4443 4.2), dp_mbuf_meta.nh;
 *         neighbor discovery -> dp_mbuf_meta.punt = DP_PUNT_ND
 *   next: ip6_output (echo reply), ctl_punt (NS, NA: nd.c on the control
 *         lcore), a local service's node (UDP to a port it claimed,
 *         dp_fwd_local.h; a Fragment header right after the fixed one to the
 *         service that takes fragments, to reassemble; what would be
 *         dropped as ip6_local or icmp6_unhandled to the service of the
 *         rest, when one is set), or drop (ip6_hbh, ip6_local, icmp6_truncated, icmp6_bad_cksum,
 *         icmp6_unhandled, icmp6_bad_addr, icmp6_no_route, nd_bad_hop_limit)
 *
 * Only ICMPv6 directly after the IPv6 header is served: the router has no
 * transport, and parses no extension header on its way in.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "fwd_local_priv.h"
#include "graph_fp.h"
#include "icmp6_priv.h"

enum ip6_local_next {
	IP6_LOCAL_NEXT_DROP,
	IP6_LOCAL_NEXT_OUTPUT,
	IP6_LOCAL_NEXT_PUNT,
	IP6_LOCAL_NEXT_MAX, /* then the local services' (fwd_local_priv.h) */
};
_Static_assert(IP6_LOCAL_NEXT_MAX == FWD_LOCAL_IP6_LOCAL_BASE, "services after the node's edges");

/* The request turned into its reply, in the same buffer. */
static rte_edge_t
ip6_echo_reply(struct icmp6_worker *st, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
	struct icmp6_hdr *icmp, uint16_t plen, int meta_off, enum dp_drop_reason *why)
{
	uint16_t in_port = dp_port_index[m->port];
	uint8_t src[16], dst[16];
	uint32_t nh;
	int bad;

	if (plen < sizeof(*icmp)) {
		*why = DP_DROP_ICMP6_TRUNCATED;
		return IP6_LOCAL_NEXT_DROP;
	}
	if (likely(m->nb_segs == 1))
		bad = rte_ipv6_udptcp_cksum_verify(ip, icmp);
	else
		bad = rte_ipv6_udptcp_cksum_mbuf_verify(m, ip, IP6_ETH_HLEN);
	if (bad) {
		*why = DP_DROP_ICMP6_CKSUM;
		return IP6_LOCAL_NEXT_DROP;
	}
	if (ip6_is_unspec(ip->src_addr) || in_port >= DP_CONFIG_MAX_PORTS) {
		*why = DP_DROP_ICMP6_BAD_ADDR;
		return IP6_LOCAL_NEXT_DROP;
	}
	memcpy(dst, ip->src_addr, 16);
	/* to a group (ff02::1): answer from a unicast address of the port (RFC 4443 4.2) */
	memcpy(src, ip6_is_mcast(ip->dst_addr) ? ip6_src_for(in_port, dst) : ip->dst_addr, 16);
	if (!icmp6_route(dst, in_port, &nh)) {
		*why = DP_DROP_ICMP6_NO_ROUTE;
		return IP6_LOCAL_NEXT_DROP;
	}
	/* without the Ethernet padding of a short request */
	icmp6_mbuf_set_len(m, IP6_ETH_HLEN + plen);
	icmp6_ip_hdr_write(ip, plen, IPPROTO_ICMPV6, src, dst);
	icmp->type = ICMP6_ECHO_REPLY;
	icmp->code = 0;
	icmp6_cksum_set(m, ip, icmp);
	dp_mbuf_meta(m, meta_off)->nh = nh;
	st->echo_replies++;
	return IP6_LOCAL_NEXT_OUTPUT;
}

static rte_edge_t
ip6_local_one(struct dp_worker *w, struct icmp6_worker *st, struct rte_mbuf *m, int meta_off)
{
	struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	struct icmp6_hdr *icmp = (struct icmp6_hdr *)(ip + 1);
	const uint16_t plen = rte_be_to_cpu_16(ip->payload_len);
	enum dp_drop_reason why;
	rte_edge_t e;

	if (ip->proto == IPPROTO_HOPOPTS) {
		why = DP_DROP_IP6_HBH;
		goto drop;
	}
	/* UDP right after the header, to a port a service claimed: the service
	 * checks the rest (the port is read inside the data room even from a
	 * short frame) */
	if (ip->proto == IPPROTO_UDP) {
		const uint8_t svc = dp_fwd_local_udp6_service((const uint8_t *)ip);

		if (svc != 0)
			return fwd_local_edge(IP6_LOCAL_NEXT_MAX, svc);
	}
	/* a fragment (RFC 8200 4.5): to the service that reassembles, if one */
	if (ip->proto == IPPROTO_FRAGMENT) {
		const uint8_t svc = __atomic_load_n(&dp_fwd_local_frag6, __ATOMIC_RELAXED);

		if (svc != 0)
			return fwd_local_edge(IP6_LOCAL_NEXT_MAX, svc);
	}
	if (ip->proto != IPPROTO_ICMPV6) {
		why = DP_DROP_IP6_LOCAL;
		goto drop;
	}
	/* type, code and checksum in the first segment */
	if (plen < 4 || m->data_len < IP6_ETH_HLEN + 4) {
		why = DP_DROP_ICMP6_TRUNCATED;
		goto drop;
	}
	switch (icmp->type) {
	case ICMP6_ND_NS:
	case ICMP6_ND_NA:
		/* RFC 4861 7.1.1, 7.1.2: the rest is checked on the control lcore */
		if (ip->hop_limits != ICMP6_ND_HOP_LIMIT) {
			why = DP_DROP_ND_HOP_LIMIT;
			goto drop;
		}
		dp_mbuf_meta(m, meta_off)->punt = DP_PUNT_ND;
		return IP6_LOCAL_NEXT_PUNT;
	case ICMP6_ECHO_REQUEST:
		e = ip6_echo_reply(st, m, ip, icmp, plen, meta_off, &why);
		if (e != IP6_LOCAL_NEXT_DROP)
			return e;
		goto drop;
	default:
		why = DP_DROP_ICMP6_UNHANDLED;
		goto drop;
	}
drop:
	/* what no service takes: to the service of the rest, if one */
	if (why == DP_DROP_IP6_LOCAL || why == DP_DROP_ICMP6_UNHANDLED) {
		const uint8_t svc = __atomic_load_n(&dp_fwd_local_other6, __ATOMIC_RELAXED);

		if (svc != 0)
			return fwd_local_edge(IP6_LOCAL_NEXT_MAX, svc);
	}
	w->stats.drops[why]++;
	return IP6_LOCAL_NEXT_DROP;
}

static uint16_t
ip6_local_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	const int meta_off = dp_mbuf_meta_offset;
	uint16_t i;

	for (i = 0; i < nb_objs; i++)
		next[i] = ip6_local_one(ctx->w, ctx->arg, pkts[i], meta_off);
	dp_node_dispatch(graph, node, objs, next, nb_objs);
	return nb_objs;
}

static struct rte_node_register ip6_local_node = {
	.name = "ip6_local",
	.process = ip6_local_process,
	.init = icmp6_node_init,
	.nb_edges = IP6_LOCAL_NEXT_MAX,
	.next_nodes = {
		[IP6_LOCAL_NEXT_DROP] = "drop",
		[IP6_LOCAL_NEXT_OUTPUT] = "ip6_output",
		[IP6_LOCAL_NEXT_PUNT] = "ctl_punt",
	},
};

RTE_NODE_REGISTER(ip6_local_node);
