/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ICMPv4 helpers of fwd for its nodes and the modules above it (endpoint):
 * address checks, the route back, and how a packet the router originates is
 * written and handed to ip4_output. Slow path only.
 */
#ifndef ICMP4_FP_H
#define ICMP4_FP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_icmp4.h"
#include "dp_mem.h"
#include "dp_port.h"

/**
 * An address no ICMP message is sent about or to (RFC 1812 4.3.2.7, 5.3.7):
 * 0/8, 127/8, multicast, 240/4 (with 255.255.255.255), and the broadcast
 * ({prefix, -1}) or old-style broadcast ({prefix, 0}, RFC 1812 4.2.3.1) of a
 * subnet the router is on. Host order.
 */
static inline bool
icmp4_addr_bad(uint32_t a)
{
	const uint8_t first = (uint8_t)(a >> 24);
	uint16_t i;

	if (first == 0 || first == 127 || first >= 224)
		return true;
	for (i = 0; i < dp_nb_ports; i++) {
		const struct dp_port *p = &dp_ports[i];
		uint32_t host;

		/* /31 and /32 have no broadcast address (RFC 3021) */
		if (p->ip4 == 0 || p->ip4_plen > 30)
			continue;
		host = UINT32_MAX >> p->ip4_plen;
		if ((a & ~host) == (p->ip4 & ~host) && ((a & host) == host || (a & host) == 0))
			return true;
	}
	return false;
}

/** The next hop towards @p dst (host order); false for no route or the router itself. */
static inline bool
icmp4_route(uint32_t dst, uint32_t *nh)
{
	*nh = dp_fwd_lookup4(dst);
	return *nh != DP_FWD_NO_ROUTE && *nh != DP_FWD_NH_LOCAL;
}

/**
 * Write a fresh option-less IPv4 header for a packet the router originates.
 *
 * The packet goes to ip4_output like a forwarded one, and ip4_output
 * decrements TTL and updates the checksum incrementally (RFC 1624) for every
 * packet. Rather than a branch for our own packets in its hot loop, the header
 * is written with TTL DP_ICMP4_TTL + 1 and a checksum computed for that TTL:
 * after ip4_output the packet leaves with TTL DP_ICMP4_TTL and a checksum
 * equal to a full recompute.
 *
 * @param src_be, dst_be  network order
 */
static inline void
icmp4_ip_hdr_write(struct rte_ipv4_hdr *ip, uint8_t tos, uint16_t total_len, uint16_t id,
	rte_be32_t src_be, rte_be32_t dst_be)
{
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16(total_len);
	ip->packet_id = rte_cpu_to_be_16(id);
	ip->fragment_offset = 0;
	ip->time_to_live = DP_ICMP4_TTL + 1; /* ip4_output takes one off */
	ip->next_proto_id = IPPROTO_ICMP;
	ip->hdr_checksum = 0;
	ip->src_addr = src_be;
	ip->dst_addr = dst_be;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/**
 * Make @p m exactly @p len bytes, all in its first segment (which holds them:
 * ip4_fwd lets through only packets whose IP datagram is in the first
 * segment). Frees any further segments: Ethernet padding, nothing else.
 */
static inline void
icmp4_mbuf_set_len(struct rte_mbuf *m, uint16_t len)
{
	if (unlikely(m->next != NULL)) {
		rte_pktmbuf_free(m->next);
		m->next = NULL;
		m->nb_segs = 1;
	}
	m->data_len = len;
	m->pkt_len = len;
}

/**
 * The Ethernet header in front of a packet for ip4_output: it writes the
 * addresses, and keeps the ethertype, which is set here.
 */
static inline void
icmp4_eth_prepare(struct rte_mbuf *m)
{
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
}

#endif /* ICMP4_FP_H */
