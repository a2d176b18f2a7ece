/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ICMPv6 helpers of fwd for its nodes (ip6_local, icmp6_error) and ND (nd.c):
 * the message types they serve, the route back, and how a packet the router
 * originates is written and handed to ip6_output. Slow path only.
 */
#ifndef ICMP6_FP_H
#define ICMP6_FP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_icmp6.h"
#include "fwd6_fp.h"

/* The types ip6_local serves and ND's; the errors are dp_icmp6.h's. */
#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY   129
#define ICMP6_ND_NS        135
#define ICMP6_ND_NA        136
#define ICMP6_ND_HOP_LIMIT 255 /* RFC 4861 7.1: a neighbor cannot be behind a router */

/** The 4-byte ICMPv6 header (RFC 4443 2.1) and the 4 bytes every message has after it. */
struct icmp6_hdr {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	rte_be32_t data; /**< echo: identifier and sequence; errors: unused or MTU/pointer */
} __rte_packed;

/**
 * The next hop towards @p dst for a packet the router originates after one
 * came in on config port @p in_port: a link-local destination is on that
 * port's link (its connected next hop), anything else is routed.
 * @return false for no route, or a route to the router itself.
 */
static inline bool
icmp6_route(const uint8_t *dst, uint16_t in_port, uint32_t *nh)
{
	uint8_t ips[1][16];
	uint64_t hop;

	if (ip6_is_linklocal(dst)) {
		*nh = dp_fwd.connected6[in_port];
		return *nh != 0;
	}
	memcpy(ips[0], dst, 16);
	rte_fib6_lookup_bulk(__atomic_load_n(&dp_fwd_ip6.fib, __ATOMIC_ACQUIRE), ips, &hop, 1);
	*nh = (uint32_t)hop;
	return hop != DP_FWD_NO_ROUTE6 && hop != DP_FWD_NH_LOCAL;
}

/**
 * A fresh IPv6 header for a packet the router originates.
 *
 * The packet goes to ip6_output like a forwarded one, and ip6_output takes one
 * off the hop limit of every packet. Rather than a branch for our own packets
 * in its hot loop, the header is written with DP_ICMP6_HOP_LIMIT + 1: the
 * packet leaves with DP_ICMP6_HOP_LIMIT. (IPv6 has no header checksum.)
 * @p src and @p dst must not point into @p ip (copy them first).
 */
static inline void
icmp6_ip_hdr_write(struct rte_ipv6_hdr *ip, uint16_t payload_len, uint8_t proto, const uint8_t *src,
	const uint8_t *dst)
{
	ip->vtc_flow = RTE_BE32(UINT32_C(6) << 28);
	ip->payload_len = rte_cpu_to_be_16(payload_len);
	ip->proto = proto;
	ip->hop_limits = DP_ICMP6_HOP_LIMIT + 1; /* ip6_output takes one off */
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
}

/** The ICMPv6 checksum (RFC 4443 2.3, with the RFC 8200 8.1 pseudo-header) of a whole packet. */
static inline void
icmp6_cksum_set(struct rte_mbuf *m, struct rte_ipv6_hdr *ip, struct icmp6_hdr *icmp)
{
	icmp->cksum = 0;
	if (likely(m->nb_segs == 1))
		icmp->cksum = rte_ipv6_udptcp_cksum(ip, icmp);
	else
		icmp->cksum = rte_ipv6_udptcp_cksum_mbuf(
			m, ip, (uint16_t)((uint8_t *)icmp - rte_pktmbuf_mtod(m, uint8_t *)));
}

/** Make @p m exactly @p len bytes long (@p len <= pkt_len), freeing segments past it. */
static inline void
icmp6_mbuf_set_len(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *seg = m;
	uint32_t off = 0;

	while (off + seg->data_len < len) {
		off += seg->data_len;
		seg = seg->next;
	}
	seg->data_len = (uint16_t)(len - off);
	if (seg->next != NULL) {
		struct rte_mbuf *s;
		uint16_t nb = 0;

		for (s = m; s != seg; s = s->next)
			nb++;
		rte_pktmbuf_free(seg->next);
		seg->next = NULL;
		m->nb_segs = (uint16_t)(nb + 1);
	}
	m->pkt_len = len;
}

#endif /* ICMP6_FP_H */
