/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast path's side of ECMP groups (dp_fwd_group.h): a next hop that is a
 * group becomes the member the packet's flow takes. Called where a next hop
 * is not resolved (a group never is), so that forwarding without groups pays
 * nothing more; inline, so that forwarding through one pays a hash and one
 * load per packet, not a call.
 */
#ifndef DP_GROUP_FP_H
#define DP_GROUP_FP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_crc.h"
#include "dp_fwd.h"
#include "dp_fwd_group.h"

#define DP_FWD_FLOW_HASH_SEED UINT32_C(0x6a09e667)

/* The bucket of hash @p h: its top bits after a multiplication, so that every
 * bit of @p h counts (an RSS hash's low bits chose the queue, all alike on one
 * worker). */
static __rte_always_inline unsigned int
dp_fwd_group_bucket_of(uint32_t h)
{
	return (h * UINT32_C(0x9e3779b1)) >> 24;
}

_Static_assert(DP_FWD_GROUP_BUCKETS == 256, "dp_fwd_group_bucket_of() gives 8 bits");

/* The ports and the protocol of a TCP or UDP header at @p l4, as one word for the hash. */
static __rte_always_inline uint64_t
dp_fwd_flow_l4_word(const uint8_t *l4, uint8_t proto)
{
	uint32_t ports;

	memcpy(&ports, l4, sizeof(ports));
	return (uint64_t)ports | (uint64_t)proto << 32;
}

/* dp_fwd_flow_hash4() (dp_fwd_group.h). */
static __rte_always_inline uint32_t
dp_fwd_flow_hash4_fp(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip;
	uint32_t h, ihl;
	uint64_t addrs;

	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return m->hash.rss;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	memcpy(&addrs, &ip->src_addr, sizeof(addrs));
	h = dp_crc32c_u64(addrs, DP_FWD_FLOW_HASH_SEED);
	ihl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	/* the ports only in a whole datagram: every fragment of one takes the
	 * addresses' hash, the same whichever fragment it is */
	if ((ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
		(ip->fragment_offset &
			rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) == 0 &&
		m->data_len >= RTE_ETHER_HDR_LEN + ihl + 4)
		h = dp_crc32c_u64(
			dp_fwd_flow_l4_word((const uint8_t *)ip + ihl, ip->next_proto_id), h);
	return h;
}

/* dp_fwd_flow_hash6() (dp_fwd_group.h). */
static __rte_always_inline uint32_t
dp_fwd_flow_hash6_fp(const struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip;
	uint32_t h = DP_FWD_FLOW_HASH_SEED;
	unsigned int i;
	uint64_t w;

	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return m->hash.rss;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	/* source and destination: 32 bytes in a row */
	for (i = 0; i < 4; i++) {
		memcpy(&w, ip->src_addr + 8 * i, sizeof(w));
		h = dp_crc32c_u64(w, h);
	}
	/* a fragment header or any other extension: the addresses only */
	if ((ip->proto == IPPROTO_TCP || ip->proto == IPPROTO_UDP) &&
		m->data_len >= RTE_ETHER_HDR_LEN + sizeof(*ip) + 4)
		h = dp_crc32c_u64(dp_fwd_flow_l4_word((const uint8_t *)(ip + 1), ip->proto), h);
	return h;
}

/** The member of group next hop @p nh (of table @p groups) that packet @p m takes. */
static __rte_always_inline uint32_t
dp_fwd_group_pick_fp(const struct dp_fwd_group *groups, const struct dp_fwd_nh *nh,
	const struct rte_mbuf *m, const bool v6)
{
	const struct dp_fwd_group *g = &groups[nh->group];
	const uint32_t hash = v6 ? dp_fwd_flow_hash6_fp(m) : dp_fwd_flow_hash4_fp(m);
	return __atomic_load_n(&g->hop[dp_fwd_group_bucket_of(hash)], __ATOMIC_RELAXED);
}

/*
 * The lookup results @p hop of @p n packets (pkts[rest[i]], or pkts[i] without
 * @p rest) with each group replaced by the member of the packet's flow: in a
 * pass of its own, whose loads (group, bucket, member) overlap across packets,
 * rather than one dependent chain per packet in the rewrite's loop. @p no_route:
 * the family's miss value (results 0, the router's own, and it are no next hop).
 */
static __rte_noinline __rte_unused void
dp_fwd_groups_resolve(const struct dp_fwd_nh *nh_table, struct rte_mbuf **pkts,
	const uint16_t *rest, uint64_t *hop, uint16_t n, uint32_t no_route, const bool v6)
{
	/* loaded once: the stores to hop[] may alias it as far as the compiler knows */
	const struct dp_fwd_group *groups = dp_fwd_groups;
	uint16_t i;

	for (i = 0; i < n; i++) {
		const uint32_t h = (uint32_t)hop[i];

		if (h - 1 < no_route - 1 && (nh_table[h].flags & DP_FWD_NH_F_GROUP))
			hop[i] = dp_fwd_group_pick_fp(
				groups, &nh_table[h], pkts[rest != NULL ? rest[i] : i], v6);
	}
}

/** Next hop @p h for packet @p m: itself, or the member of the group it is. */
static __rte_always_inline uint32_t
dp_fwd_group_hop(
	const struct dp_fwd_nh *nh_table, uint32_t h, const struct rte_mbuf *m, const bool v6)
{
	const struct dp_fwd_nh *nh = &nh_table[h];

	if (likely(!(nh->flags & DP_FWD_NH_F_GROUP)))
		return h;
	return dp_fwd_group_pick_fp(dp_fwd_groups, nh, m, v6);
}

#endif /* DP_GROUP_FP_H */
