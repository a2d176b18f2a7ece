/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPv6 helpers of fwd for its nodes and the modules above it (endpoint):
 * address classes and source address choice. What ICMPv6 and ND need to
 * write a packet the router originates is in icmp6_fp.h.
 */
#ifndef FWD6_FP_H
#define FWD6_FP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"

_Static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN, "address classes read little-endian words");

#define IP6_HLEN     ((uint32_t)sizeof(struct rte_ipv6_hdr))
#define IP6_ETH_HLEN (RTE_ETHER_HDR_LEN + IP6_HLEN) /* 54 */

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

/**
 * A link-scope group (ff02::/16, RFC 4291 2.7) other than a solicited-node one
 * (ff02::1:ff00:0/104): a protocol's (OSPFv3 ff02::5, ::6, RIPng ::9, ...).
 */
static inline bool
ip6_is_link_group(const uint8_t *a)
{
	static const uint8_t sn_pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };

	return a[0] == 0xff && a[1] == 0x02 && memcmp(a, sn_pfx, sizeof(sn_pfx)) != 0;
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

#endif /* FWD6_FP_H */
