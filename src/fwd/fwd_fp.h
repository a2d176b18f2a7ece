/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * fwd's inline fast checks, shared by ip4_fwd and ip6_fwd and by the services
 * whose fast match runs before their route lookup (dp_fwd_local.h): a header
 * fit to forward, or fit to be taken by a service on the router's own address.
 * Each reads the header even from a frame shorter than it (inside the mbuf's
 * data room); the length tests discard such a result.
 */
#ifndef FWD_FP_H
#define FWD_FP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_cksum.h"
#include "fwd6_fp.h"

/** First octets never forwarded (RFC 1812 5.3.7, RFC 6890): 0/8, 127/8, 224/4, 240/4. */
extern const bool dp_fwd_ip4_martian_octet[256];

/**
 * The fast pass over one IPv4 packet: an option-less header that is whole,
 * valid, not martian, with TTL > 1. Anything else (options included) takes the
 * node's slow path, which checks everything in RFC 1812 order and counts the
 * reason.
 *
 * The checksum: with @p ck_flags (a port of the worker has the NIC check it),
 * the mbuf's flag says good, bad or unknown; with @p cksum_check, an unknown
 * one is summed here. Without the offload the flag is not read: no PMD sets it
 * then.
 *
 * With @p to_self, only what a service's fast match needs before it may take
 * a datagram to the router: neither the TTL (it matters only to a packet being
 * forwarded) nor the martian test (a function of the addresses alone, which a
 * fast match's key holds, and a key only enters a fast match after a packet of
 * it passed the full checks). A packet the fast match leaves is checked in full.
 *
 * The header is @p l3 bytes into the frame: after a plain Ethernet header
 * (ip4_fast_to()), or after an 802.1Q tag (ip4_fwd_vlan).
 */
static __rte_always_inline bool
ip4_fast_at(const bool cksum_check, const bool ck_flags, const bool to_self,
	const struct rte_mbuf *m, const uint16_t l3)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3);
	const uint64_t ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	/* signed: with 20 <= tlen <= avail, the frame holds a whole header */
	const int32_t avail = (int32_t)m->data_len - (int32_t)l3;
	uint32_t s, d;
	uint16_t tlen;
	bool ok;

	memcpy(&tlen, ip + 2, sizeof(tlen));
	tlen = rte_be_to_cpu_16(tlen);
	memcpy(&s, ip + 12, sizeof(s));
	memcpy(&d, ip + 16, sizeof(d));
	/* short-circuit: each test is a well-predicted branch, cheaper than a
	 * setcc; the first octets are the low bytes of the addresses as loaded */
	ok = ip[0] == 0x45 && tlen >= sizeof(struct rte_ipv4_hdr) && (int32_t)tlen <= avail &&
	     (!ck_flags || ck != RTE_MBUF_F_RX_IP_CKSUM_BAD) &&
	     (to_self || (ip[8] > 1 && !(dp_fwd_ip4_martian_octet[s & 0xff] |
					       dp_fwd_ip4_martian_octet[d & 0xff])));
	if (cksum_check)
		ok = ok &&
		     ((ck_flags && ck == RTE_MBUF_F_RX_IP_CKSUM_GOOD) || dp_cksum_ip4_hdr20_ok(ip));
	return ok;
}

static __rte_always_inline bool
ip4_fast_to(
	const bool cksum_check, const bool ck_flags, const bool to_self, const struct rte_mbuf *m)
{
	return ip4_fast_at(cksum_check, ck_flags, to_self, m, RTE_ETHER_HDR_LEN);
}

static __rte_always_inline bool
ip4_fast(const bool cksum_check, const bool ck_flags, const struct rte_mbuf *m)
{
	return ip4_fast_to(cksum_check, ck_flags, false, m);
}

/** The destination address (host order), checked or not. */
static __rte_always_inline uint32_t
ip4_dst(const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint32_t d;

	memcpy(&d, ip + 16, sizeof(d));
	return rte_be_to_cpu_32(d);
}

/** A UDP datagram, not a fragment (the header passed the fast checks). */
static __rte_always_inline bool
ip4_udp_whole(const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint16_t frag;

	memcpy(&frag, ip + 6, sizeof(frag));
	return ip[9] == IPPROTO_UDP &&
	       !(frag & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK));
}

/**
 * The fast pass over one IPv6 packet: a whole IPv6 header in the first
 * segment, version 6, the payload inside the packet, hop limit > 1, no
 * Hop-by-Hop header, unicast and forwardable addresses, in a unicast frame.
 * With @p to_self, as ip4_fast_to(): without the hop limit and the address
 * tests.
 */
static __rte_always_inline bool
ip6_fast_to(const bool to_self, const struct rte_mbuf *m)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = eth + RTE_ETHER_HDR_LEN;
	const int32_t avail = (int32_t)m->pkt_len - (int32_t)IP6_ETH_HLEN;
	uint64_t shi, slo, dhi, dlo;
	uint16_t plen;

	memcpy(&plen, ip + 4, sizeof(plen));
	ip6_addr_words(ip + 8, &shi, &slo);
	ip6_addr_words(ip + 24, &dhi, &dlo);
	/* short-circuit: each test is a well-predicted branch */
	return m->data_len >= IP6_ETH_HLEN && (ip[0] >> 4) == 6 &&
	       (int32_t)rte_be_to_cpu_16(plen) <= avail && ip[6] != IPPROTO_HOPOPTS &&
	       (eth[0] & 1) == 0 &&
	       (to_self || (ip[7] > 1 && !(ip6_w_special(shi, slo) | ip6_w_special(dhi, dlo))));
}

static __rte_always_inline bool
ip6_fast(const struct rte_mbuf *m)
{
	return ip6_fast_to(false, m);
}

/** The destination address, checked or not. */
static __rte_always_inline void
ip6_dst(const struct rte_mbuf *m, uint8_t dst[16])
{
	memcpy(dst,
		rte_pktmbuf_mtod_offset(m, const uint8_t *,
			RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv6_hdr, dst_addr)),
		16);
}

#endif /* FWD_FP_H */
