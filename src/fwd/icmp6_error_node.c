/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icmp6_error (RFC 4443: Time Exceeded, Destination Unreachable, Packet Too Big)
 *   uses: dp_mbuf_meta.icmp_type/icmp_code (set by ip6_fwd, which counted the
 *         packet as a drop; for Packet Too Big also dp_mbuf_meta.nh, the next
 *         hop whose MTU the error carries), the offending packet, the worker's
 *         token bucket
 *   sets: the error, built in the same buffer:
 *
 *           before   | eth 14 | IPv6 40 | payload ...          |
 *           after    | eth 14 | IPv6 40 | ICMPv6 8 | quoted packet (<= 1232) |
 *
 *         (48 bytes prepended; the old Ethernet header is overwritten), and
 *         dp_mbuf_meta.nh towards the offending packet's source
 *   next: ip6_output, or drop (icmp6_err_about_err, icmp6_ratelimited,
 *         icmp6_no_route, icmp6_no_headroom)
 *
 * RFC 4443 2.4(e): never about an ICMPv6 error, nor about a packet to a
 * multicast address, in a link-layer multicast frame or from an address that
 * is not a single node's (ip6_fwd sends none of those here). The chain of
 * extension headers is walked to find the upper layer; when it cannot be seen
 * (a non-first fragment, headers past the first segment) no error is sent.
 * 2.4(f): at most icmp_rate errors per second per worker, bursts of icmp_burst.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "graph_fp.h"
#include "icmp6_priv.h"

enum icmp6_error_next {
	ICMP6_ERROR_NEXT_DROP,
	ICMP6_ERROR_NEXT_OUTPUT,
	ICMP6_ERROR_NEXT_MAX,
};

#define ICMP6_ERR_HLEN      (IP6_HLEN + sizeof(struct icmp6_hdr))   /* what is prepended: 48 */
#define ICMP6_ERR_QUOTE_MAX (DP_ICMP6_ERR_MAX_LEN - ICMP6_ERR_HLEN) /* 1232 */
#define EXT_HDR_MAX         8 /* extension headers walked at most */

/*
 * May an error be sent about this packet? Walks the extension headers (RFC
 * 8200 4; RFC 6564's common format for the ones this code does not know by
 * name) inside the first segment and the packet's payload length.
 */
static bool
icmp6_err_allowed(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip)
{
	const uint8_t *base = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint32_t end =
		RTE_MIN((uint32_t)m->data_len, IP6_ETH_HLEN + rte_be_to_cpu_16(ip->payload_len));
	uint32_t off = IP6_ETH_HLEN;
	int nxt = ip->proto;
	unsigned int k;

	for (k = 0; k < EXT_HDR_MAX; k++) {
		const uint8_t *p = base + off;
		size_t len = 0;

		switch (nxt) {
		case IPPROTO_ICMPV6:
			/* errors are types 0..127 (RFC 4443 2.1) */
			return off < end && p[0] >= 128;
		case IPPROTO_FRAGMENT:
			if (off + RTE_IPV6_FRAG_HDR_SIZE > end)
				return false;
			/* a later fragment: the upper layer is in the first one */
			if (RTE_IPV6_GET_FO(rte_be_to_cpu_16(
				    ((const struct rte_ipv6_fragment_ext *)p)->frag_data)) != 0)
				return false;
			nxt = p[0];
			off += RTE_IPV6_FRAG_HDR_SIZE;
			break;
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_AH:
			if (off + 2 > end)
				return false;
			nxt = rte_ipv6_get_next_ext(p, nxt, &len);
			off += (uint32_t)len;
			break;
		case 135: /* Mobility (RFC 6275) */
		case 139: /* HIP (RFC 7401) */
		case 140: /* Shim6 (RFC 5533) */
		case 253: /* experiments (RFC 3692) */
		case 254:
			if (off + 2 > end)
				return false;
			nxt = p[0];
			off += 8 * ((uint32_t)p[1] + 1);
			break;
		default:
			/* an upper layer that is not ICMPv6, or No Next Header */
			return true;
		}
	}
	return false;
}

static rte_edge_t
icmp6_error_one(struct dp_worker *w, struct icmp6_worker *st, struct rte_mbuf *m, int meta_off,
	uint64_t now)
{
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);
	const struct rte_ipv6_hdr *orig =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	const uint16_t in_port = dp_port_index[m->port];
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	struct icmp6_hdr *icmp;
	uint8_t dst[16];
	uint32_t quote, nh, mtu = 0;
	enum dp_drop_reason why;

	st->errors++;
	/* ip6_fwd left the next hop in meta.nh, which becomes the way back below */
	if (meta->icmp_type == DP_ICMP6_PACKET_TOO_BIG)
		mtu = dp_fwd.nh[meta->nh].mtu;
	if (!icmp6_err_allowed(m, orig)) {
		why = DP_DROP_ICMP6_ERR_ABOUT_ERR;
		goto drop;
	}
	if (!dp_tbucket_take(&st->tb.tb, now)) {
		why = DP_DROP_ICMP6_RATELIMITED;
		goto drop;
	}
	memcpy(dst, orig->src_addr, 16);
	if (in_port >= DP_CONFIG_MAX_PORTS || !icmp6_route(dst, in_port, &nh)) {
		why = DP_DROP_ICMP6_NO_ROUTE;
		goto drop;
	}
	quote = RTE_MIN(IP6_HLEN + rte_be_to_cpu_16(orig->payload_len), ICMP6_ERR_QUOTE_MAX);
	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, ICMP6_ERR_HLEN);
	if (unlikely(eth == NULL)) {
		why = DP_DROP_ICMP6_NO_HEADROOM;
		goto drop;
	}
	/* the quote begins where the old IPv6 header is: nothing moves */
	icmp6_mbuf_set_len(m, RTE_ETHER_HDR_LEN + ICMP6_ERR_HLEN + quote);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6); /* ip6_output writes the addresses */
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	icmp = (struct icmp6_hdr *)(ip + 1);
	icmp6_ip_hdr_write(ip, (uint16_t)(sizeof(*icmp) + quote), IPPROTO_ICMPV6,
		ip6_src_for(dp_fwd.nh[nh].port, dst), dst);
	icmp->type = meta->icmp_type;
	icmp->code = meta->icmp_code;
	/* unused, but in a Packet Too Big: the next hop's MTU (RFC 4443 3.2) */
	icmp->data = rte_cpu_to_be_32(mtu);
	icmp6_cksum_set(m, ip, icmp);
	meta->nh = nh;
	st->errors_sent++;
	return ICMP6_ERROR_NEXT_OUTPUT;
drop:
	w->stats.drops[why]++;
	return ICMP6_ERROR_NEXT_DROP;
}

static uint16_t
icmp6_error_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	struct icmp6_worker *st = ctx->arg;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	rte_edge_t next[RTE_GRAPH_BURST_SIZE];
	const int meta_off = dp_mbuf_meta_offset;
	const uint64_t now = rte_rdtsc();
	uint16_t i;

	/* the control lcore changed the limit (or this is the first error): start full */
	dp_tbucket_follow(&st->tb, &icmp6_limit, rte_get_tsc_hz(), now);
	for (i = 0; i < nb_objs; i++)
		next[i] = icmp6_error_one(ctx->w, st, pkts[i], meta_off, now);
	dp_node_dispatch(graph, node, objs, next, nb_objs);
	return nb_objs;
}

static struct rte_node_register icmp6_error_node = {
	.name = "icmp6_error",
	.process = icmp6_error_process,
	.init = icmp6_node_init,
	.nb_edges = ICMP6_ERROR_NEXT_MAX,
	.next_nodes = {
		[ICMP6_ERROR_NEXT_DROP] = "drop",
		[ICMP6_ERROR_NEXT_OUTPUT] = "ip6_output",
	},
};

RTE_NODE_REGISTER(icmp6_error_node);
