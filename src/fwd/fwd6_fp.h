/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPv6 helpers of fwd for its nodes and the modules above it (endpoint):
 * address classes, source address choice, the route back, and how a packet
 * the router originates is written and handed to ip6_output.
 */
#ifndef FWD6_FP_H
#define FWD6_FP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_fib6.h>
#include <rte_graph.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"

_Static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN, "address classes read little-endian words");

#define IP6_HLEN     ((uint32_t)sizeof(struct rte_ipv6_hdr))
#define IP6_ETH_HLEN (RTE_ETHER_HDR_LEN + IP6_HLEN) /* 54 */

#define ICMP6_ECHO_REQUEST        128
#define ICMP6_ECHO_REPLY          129
#define ICMP6_DST_UNREACH         1
#define ICMP6_DST_UNREACH_NOROUTE 0
#define ICMP6_TIME_EXCEEDED       3
#define ICMP6_TIME_EXCEED_TRANSIT 0
#define ICMP6_ND_NS               135
#define ICMP6_ND_NA               136
#define ICMP6_ND_HOP_LIMIT        255 /* RFC 4861 7.1: a neighbor cannot be behind a router */

/** The 4-byte ICMPv6 header (RFC 4443 2.1) and the 4 bytes every message has after it. */
struct icmp6_hdr {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	rte_be32_t data; /**< echo: identifier and sequence; errors: unused or MTU/pointer */
} __rte_packed;

/*
 * Address classes from two 8-byte loads (bytes 0..7 and 8..15, little-endian):
 * the first byte of the address is the low byte of @p hi.
 */
static __rte_always_inline void
ip6_addr_words(const uint8_t *a, uint64_t *hi, uint64_t *lo)
{
	memcpy(hi, a, 8);
	memcpy(lo, a + 8, 8);
}

/** ff00::/8 (RFC 4291 2.7) */
static __rte_always_inline bool
ip6_w_mcast(uint64_t hi)
{
	return (hi & 0xff) == 0xff;
}

/** fe80::/10 (RFC 4291 2.5.6) */
static __rte_always_inline bool
ip6_w_linklocal(uint64_t hi)
{
	return (hi & 0xc0ff) == 0x80fe;
}

/** :: or ::1 (RFC 4291 2.5.2, 2.5.3) */
static __rte_always_inline bool
ip6_w_unspec_or_loop(uint64_t hi, uint64_t lo)
{
	return (hi == 0) & ((lo & ~(UINT64_C(1) << 56)) == 0);
}

/** :: */
static __rte_always_inline bool
ip6_w_unspec(uint64_t hi, uint64_t lo)
{
	return (hi | lo) == 0;
}

/** Not forwardable as a source or destination: multicast, link-local, ::, ::1. */
static __rte_always_inline bool
ip6_w_special(uint64_t hi, uint64_t lo)
{
	return ip6_w_mcast(hi) | ip6_w_linklocal(hi) | ip6_w_unspec_or_loop(hi, lo);
}

static inline bool
ip6_is_linklocal(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static inline bool
ip6_is_mcast(const uint8_t *a)
{
	return a[0] == 0xff;
}

static inline bool
ip6_is_unspec(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/** The solicited-node group of @p a: ff02::1:ff00:0/104 + its last 24 bits (RFC 4291 2.7.1). */
static inline void
ip6_solicited_node(const uint8_t *a, uint8_t out[16])
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };

	memcpy(out, pfx, sizeof(pfx));
	memcpy(out + 13, a + 13, 3);
}

/**
 * The groups the router is in on config port @p port (RFC 4291 2.8): all-nodes
 * ff02::1 and the solicited-node groups of the port's addresses. Others' NS
 * (a promiscuous port sees them) stop here rather than on the control lcore.
 */
static inline bool
ip6_is_our_group(const uint8_t *a, uint16_t port)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	static const uint8_t sn_pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };
	const struct dp_fwd_port6 *p;

	if (memcmp(a, all_nodes, 16) == 0)
		return true;
	if (port >= DP_CONFIG_MAX_PORTS || memcmp(a, sn_pfx, sizeof(sn_pfx)) != 0)
		return false;
	p = &dp_fwd_ip6.port[port];
	return memcmp(a + 13, p->ll + 13, 3) == 0 ||
	       (p->has_global && memcmp(a + 13, p->global + 13, 3) == 0);
}

/** The Ethernet address of IPv6 multicast group @p a: 33:33 + its last 32 bits (RFC 2464 7). */
static inline void
ip6_mcast_mac(const uint8_t *a, struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], a + 12, 4);
}

/**
 * The address the router sends from on config port @p port to @p dst: the
 * port's global address, or its link-local one when @p dst is link-local or
 * the port has no global address (RFC 6724 rule 2, scope).
 */
static inline const uint8_t *
ip6_src_for(uint16_t port, const uint8_t *dst)
{
	const struct dp_fwd_port6 *p = &dp_fwd_ip6.port[port];

	return p->has_global && !ip6_is_linklocal(dst) ? p->global : p->ll;
}

/** Is @p a one of config port @p port's addresses? */
static inline bool
ip6_is_port_addr(uint16_t port, const uint8_t *a)
{
	const struct dp_fwd_port6 *p = &dp_fwd_ip6.port[port];

	return memcmp(a, p->ll, 16) == 0 || (p->has_global && memcmp(a, p->global, 16) == 0);
}

/**
 * The next hop towards @p dst for a packet the router originates after one
 * came in on config port @p in_port: a link-local destination is on that
 * port's link (its connected next hop), anything else is routed.
 * @return false for no route, or a route to the router itself.
 */
static inline bool
ip6_route_back(const uint8_t *dst, uint16_t in_port, uint32_t *nh)
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
ip6_hdr_write(struct rte_ipv6_hdr *ip, uint16_t payload_len, uint8_t proto, const uint8_t *src,
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
ip6_mbuf_truncate(struct rte_mbuf *m, uint32_t len)
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

#endif /* FWD6_FP_H */
