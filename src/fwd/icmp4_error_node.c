/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icmp4_error
 *   uses: dp_mbuf_meta.icmp_type and icmp_code (set by the node that refused
 *         the packet, which also counted why), for fragmentation needed also
 *         dp_mbuf_meta.nh (the next hop whose MTU goes in the header); the packet's IPv4 header
 *         (whole, in the first segment, checked by ip4_fwd); its input port;
 *         the LPM table for the way back
 *   sets: the ICMP error in place of the packet; dp_mbuf_meta.nh (its route)
 *   next: ip4_output, or drop (icmp_err_fragment, icmp_err_about_err,
 *         icmp_bad_addr, icmp_no_route, icmp_ratelimited)
 *
 * RFC 792 and RFC 1812 4.3.2. The error quotes the original datagram from its
 * IP header on, unchanged, as much as fits in a 576-byte datagram (4.3.2.3).
 * The 28 bytes of new headers go in the mbuf's headroom, so the quote does
 * not move; what follows it is trimmed:
 *
 *   in   | eth 14 | original IPv4 header + data ...............| padding |
 *   out  | eth 14 | IPv4 20 | ICMP 8 | original IPv4 header + data (<= 548) |
 *
 * Never sent (4.3.2.7), each counted: about a non-first fragment, an ICMP
 * error, a broadcast or multicast packet, an invalid source. Then the
 * worker's token bucket (4.3.2.8), last, so refused errors take no token.
 * Source: the input port's address (traceroute names the interface facing
 * the sender), else the egress port's (4.3.2.4).
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_graph_worker.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "graph_fp.h"
#include "icmp4_priv.h"

enum icmp4_error_next {
	ICMP4_ERROR_NEXT_DROP,
	ICMP4_ERROR_NEXT_OUTPUT,
	ICMP4_ERROR_NEXT_MAX,
};

/* the headers in front of the quote: IPv4 and ICMP, 28 bytes */
#define ICMP4_ERR_HDRS  ((uint16_t)(sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_icmp_hdr)))
#define ICMP4_QUOTE_MAX (DP_ICMP4_ERR_MAX_LEN - ICMP4_ERR_HDRS)

/* RFC 1812 4.3.2.5: precedence 6 (internetwork control), other TOS bits 0 */
#define ICMP4_ERR_TOS 0xc0

_Static_assert(RTE_PKTMBUF_HEADROOM >= ICMP4_ERR_HDRS, "RX mbufs have room for the headers");

/*
 * ICMP types that are queries or informational (RFC 792, 950, 1256): an error
 * about them may be sent. Every other type is an error or unknown, and gets
 * none.
 */
static const bool icmp4_type_is_query[256] = {
	[RTE_IP_ICMP_ECHO_REPLY] = true,
	[RTE_IP_ICMP_ECHO_REQUEST] = true,
	[9] = true,  /* router advertisement */
	[10] = true, /* router solicitation */
	[13] = true, /* timestamp */
	[14] = true, /* timestamp reply */
	[15] = true, /* information request */
	[16] = true, /* information reply */
	[17] = true, /* address mask request */
	[18] = true, /* address mask reply */
};

/* A token from the worker's bucket; the bucket restarts full when the limit changed. */
static inline bool
icmp4_ratelimit_take(struct icmp4_worker *st)
{
	return dp_tbucket_limit_take(&st->tb, &icmp4_limit, rte_get_tsc_hz(), rte_rdtsc());
}

/* The address to send from (network order), 0 when neither port has one. */
static inline rte_be32_t
icmp4_error_source(const struct rte_mbuf *m, uint32_t nh)
{
	uint32_t a = 0;

	if (m->port < DP_PORT_MAX_IDS && dp_port_index[m->port] != DP_PORT_NONE)
		a = dp_ports[dp_port_index[m->port]].ip4;
	if (a == 0)
		a = dp_ports[dp_fwd.nh[nh].port].ip4;
	return rte_cpu_to_be_32(a);
}

static rte_edge_t
icmp4_error_one(struct dp_worker *w, struct icmp4_worker *st, struct rte_mbuf *m, int meta_off)
{
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *orig = (const struct rte_ipv4_hdr *)(eth + 1);
	const uint16_t ihl = rte_ipv4_hdr_len(orig);
	const uint16_t tlen = rte_be_to_cpu_16(orig->total_length);
	const rte_be32_t dst_be = orig->src_addr; /* the error goes back to the source */
	const uint16_t quote = RTE_MIN(tlen, (uint16_t)ICMP4_QUOTE_MAX);
	enum dp_drop_reason why;
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *icmp;
	rte_be32_t src_be;
	uint16_t mtu = 0;
	uint32_t nh;

	st->errors++;
	/* ip4_fwd left the next hop in meta.nh, which becomes the way back below */
	if (meta->icmp_type == DP_ICMP4_DEST_UNREACH &&
		meta->icmp_code == DP_ICMP4_UNREACH_FRAG_NEEDED)
		mtu = dp_fwd.nh[meta->nh].mtu;
	if (orig->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) {
		why = DP_DROP_ICMP_ERR_FRAGMENT;
		goto drop;
	}
	/* the ICMP type is inside the datagram (total length checked by ip4_fwd) */
	if (orig->next_proto_id == IPPROTO_ICMP &&
		(tlen <= ihl || !icmp4_type_is_query[*((const uint8_t *)orig + ihl)])) {
		why = DP_DROP_ICMP_ERR_ABOUT_ERR;
		goto drop;
	}
	if (!rte_is_unicast_ether_addr(&eth->dst_addr) ||
		icmp4_addr_bad(rte_be_to_cpu_32(orig->src_addr)) ||
		icmp4_addr_bad(rte_be_to_cpu_32(orig->dst_addr))) {
		why = DP_DROP_ICMP_BAD_ADDR;
		goto drop;
	}
	if (!icmp4_route(rte_be_to_cpu_32(dst_be), &nh)) {
		why = DP_DROP_ICMP_NO_ROUTE;
		goto drop;
	}
	src_be = icmp4_error_source(m, nh);
	if (src_be == 0) {
		why = DP_DROP_ICMP_NO_ROUTE;
		goto drop;
	}
	if (!icmp4_ratelimit_take(st)) {
		why = DP_DROP_ICMP_RATELIMITED;
		goto drop;
	}

	/* an mbuf from an RX queue has RTE_PKTMBUF_HEADROOM in front */
	if (unlikely(rte_pktmbuf_prepend(m, ICMP4_ERR_HDRS) == NULL)) {
		why = DP_DROP_ICMP_NO_ROUTE;
		goto drop;
	}
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	icmp = (struct rte_icmp_hdr *)(ip + 1);
	icmp->icmp_type = meta->icmp_type;
	icmp->icmp_code = meta->icmp_code;
	icmp->icmp_cksum = 0;
	/* "unused", but for fragmentation needed: the next-hop MTU (RFC 1191 4) */
	icmp->icmp_ident = 0;
	icmp->icmp_seq_nb = rte_cpu_to_be_16(mtu);
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, sizeof(*icmp) + quote);
	icmp4_ip_hdr_write(
		ip, ICMP4_ERR_TOS, (uint16_t)(ICMP4_ERR_HDRS + quote), st->ip_id++, src_be, dst_be);
	icmp4_eth_prepare(m);
	icmp4_mbuf_set_len(m, (uint16_t)(RTE_ETHER_HDR_LEN + ICMP4_ERR_HDRS + quote));
	meta->nh = nh;
	st->errors_sent++;
	return ICMP4_ERROR_NEXT_OUTPUT;
drop:
	w->stats.drops[why]++;
	return ICMP4_ERROR_NEXT_DROP;
}

/* Every object entered the graph as one received packet: never more than a burst. */
static uint16_t
icmp4_error_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	const struct dp_node_ctx *ctx = (const struct dp_node_ctx *)node->ctx;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	const int meta_off = dp_mbuf_meta_offset;
	uint16_t i;

	for (i = 0; i < nb_objs; i++)
		next[i] = icmp4_error_one(ctx->w, ctx->arg, pkts[i], meta_off);
	dp_node_dispatch(graph, node, objs, next, nb_objs);
	return nb_objs;
}

static struct rte_node_register icmp4_error_node = {
	.name = "icmp4_error",
	.process = icmp4_error_process,
	.init = icmp4_node_init,
	.nb_edges = ICMP4_ERROR_NEXT_MAX,
	.next_nodes = {
		[ICMP4_ERROR_NEXT_DROP] = "drop",
		[ICMP4_ERROR_NEXT_OUTPUT] = "ip4_output",
	},
};

RTE_NODE_REGISTER(icmp4_error_node);
