/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The relay's per-packet rewrite and send (relay_node.c), and the shortcut
 * ip4_fwd and ip6_fwd take for a datagram of a cached session, in two passes
 * over the burst before their route lookup: dp_relay4_key() / dp_relay6_key()
 * (the cache lines prefetched), then dp_relay_shortcut_pass(), which relays
 * the ready ones (dp_relay4_shortcut() / dp_relay6_shortcut()) and leaves the
 * others to the lookup.
 */
#ifndef RELAY_FP_H
#define RELAY_FP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_udp.h>

#include "dp_fwd.h"
#include "dp_graph.h"
#include "graph_fp.h"
#include "relay_priv.h"

/* A UDP checksum after the session's delta: 0 over IPv4 means "none" and stays
 * 0; a computed 0 is sent as 0xffff (RFC 768). */
static __rte_always_inline void
relay_udp_cksum(struct rte_udp_hdr *udp, uint16_t delta)
{
	uint16_t c;

	if (udp->dgram_cksum == 0)
		return;
	c = relay_cksum_apply(udp->dgram_cksum, delta);
	udp->dgram_cksum = c == 0 ? 0xffff : c;
}

/* Rewrite the IPv4 packet whose header is @p ip as direction @p d says. */
static __rte_always_inline void
relay_rewrite4(struct rte_ipv4_hdr *ip, struct rte_udp_hdr *udp, const struct relay_dir4 *d)
{
	uint32_t w32, ttl;
	uint16_t ck;

	_Static_assert(offsetof(struct relay_dir4, dst) == offsetof(struct relay_dir4, src) + 4 &&
			       offsetof(struct rte_ipv4_hdr, dst_addr) ==
				       offsetof(struct rte_ipv4_hdr, src_addr) + 4,
		"addresses side by side");
	/* TTL, protocol and checksum are one 32-bit word: one load, the new
	 * word made in registers, one store (a byte store then a wider load of
	 * it would stall store forwarding). The (TTL, protocol) word changes by
	 * RELAY_TTL - TTL in the byte order it is loaded in (the protocol's
	 * byte cancels): added as 0xffff + RELAY_TTL - TTL, never negative, the
	 * same in one's complement */
	memcpy(&w32, &ip->time_to_live, sizeof(w32));
	ttl = w32 & 0xff;
	ck = relay_cksum_apply((uint16_t)(w32 >> 16), d->ip_delta + 0xffffu + RELAY_TTL - ttl);
	w32 = (w32 & 0xff00) | RELAY_TTL | (uint32_t)ck << 16;
	memcpy(&ip->time_to_live, &w32, sizeof(w32));
	memcpy(&ip->src_addr, &d->src, 2 * sizeof(d->src));
	udp->src_port = d->sport;
	udp->dst_port = d->dport;
	relay_udp_cksum(udp, d->l4_delta);
}

/* Rewrite the IPv6 packet whose header is @p ip as direction @p d says. */
static __rte_always_inline void
relay_rewrite6(struct rte_ipv6_hdr *ip, struct rte_udp_hdr *udp, const struct relay_dir *d)
{
	ip->hop_limits = RELAY_TTL;
	memcpy(ip->src_addr, d->src, 16);
	memcpy(ip->dst_addr, d->dst, 16);
	udp->src_port = d->sport;
	udp->dst_port = d->dport;
	relay_udp_cksum(udp, d->l4_delta);
}

/* Rewrite one packet as direction @p d says. */
static __rte_always_inline void
relay_rewrite(struct rte_mbuf *m, const bool v6, struct rte_udp_hdr *udp, const struct relay_dir *d)
{
	if (v6) {
		relay_rewrite6(rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN),
			udp, d);
	} else {
		struct relay_dir4 d4;

		relay_dir4_of(d, &d4);
		relay_rewrite4(rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN),
			udp, &d4);
	}
}

/* Packet @p m, whose frame starts at @p eth, for the resolved next hop
 * @p nh: the MACs (the TTL is already RELAY_TTL), into the TX buffer. */
static __rte_always_inline void
relay_send(struct dp_worker *w, struct rte_mbuf *m, void *eth, const struct dp_fwd_nh *nh,
	uint16_t burst)
{
	memcpy(eth, &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
	dp_txq_append(w, w->txq_cfg[nh->port], m, burst);
}

/*
 * A datagram's key in the IPv4 cache (struct relay_key4 as two words), read
 * from its headers as words (@p l3 option-less): remote and local are the
 * IPv4 header's adjacent source and destination, rport and lport the UDP
 * header's first word, then the zero pad. A key written field by field and
 * read back as words would stall store forwarding.
 */
static __rte_always_inline void
relay_key4_of_pkt(const uint8_t *l3, uint64_t k[2])
{
	uint32_t ports;

	memcpy(&k[0], l3 + offsetof(struct rte_ipv4_hdr, src_addr), sizeof(k[0]));
	memcpy(&ports, l3 + sizeof(struct rte_ipv4_hdr), sizeof(ports));
	k[1] = ports;
}

/**
 * ip4_fwd's shortcut, first step, for a datagram whose option-less header
 * passed ip4_fwd's fast checks, UDP, not a fragment, to an address that may
 * be the relay's (before the route lookup: a key the cache holds is the
 * relay's, whose addresses are the router's own): the exact-match cache slot
 * its key maps to, whose line is prefetched; or RELAY_NIL (a UDP header relay4
 * must look at). Made for a pass of its own over the burst, so that the cache
 * lines of all its packets are on their way before dp_relay4_shortcut() reads
 * them.
 */
static __rte_always_inline uint32_t
dp_relay4_key(const struct relay_worker *rw, const struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp =
		(const struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv4_hdr));
	uint64_t k[2];
	uint32_t slot;
	uint16_t tlen;

	memcpy(&tlen, l3 + offsetof(struct rte_ipv4_hdr, total_length), sizeof(tlen));
	/* 8 <= UDP length <= what the IP header leaves it, in one compare: a
	 * length under 8 wraps to over 2^32 - 9, and the room may be negative.
	 * It also says the frame holds the UDP header: the fast checks found
	 * the total length within the frame, and it is at least 28 here. (The
	 * UDP length is read before that is known, inside the mbuf's data room
	 * even for a shorter frame, as ip4_fwd's fast checks read the header;
	 * a short frame's value is not used.) */
	if (unlikely((int64_t)((uint32_t)rte_be_to_cpu_16(udp->dgram_len) - 8) >
		     (int64_t)rte_be_to_cpu_16(tlen) -
			     (int64_t)(sizeof(struct rte_ipv4_hdr) + sizeof(*udp))))
		return RELAY_NIL;
	relay_key4_of_pkt(l3, k);
	slot = relay_emc_hash_w(k) & rw->emc_mask;
	rte_prefetch0(&rw->emc[slot]);
	return slot;
}

/**
 * Second: the packet of @p slot, when the slot holds its key and is ready
 * for the shortcut (sent by relay4 at @p now, its next hop found under route
 * generation @p gen and resolved), rewritten and put in the TX buffer.
 * @return its direction (1: to the client), or -1 with nothing written (for
 * relay4).
 */
static __rte_always_inline int
dp_relay4_shortcut(struct dp_worker *w, const struct relay_worker *rw, struct rte_mbuf *m,
	uint32_t slot, uint32_t now, uint32_t gen, const struct dp_fwd_nh *nh_table, uint16_t burst)
{
	const struct relay_emc_entry *e = &rw->emc[slot];
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l3 = eth + RTE_ETHER_HDR_LEN;
	const struct dp_fwd_nh *nh;
	uint64_t k[2];

	relay_key4_of_pkt(l3, k);
	if (!relay_key4_eq_w(&e->key, k) || e->seen != now || e->d.nh_gen != gen)
		return -1;
	nh = &nh_table[e->d.nh];
	if (!(nh->flags & DP_FWD_NH_F_RESOLVED))
		return -1;
	relay_rewrite4((struct rte_ipv4_hdr *)l3,
		(struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv4_hdr)), &e->d);
	relay_send(w, m, eth, nh, burst);
	return (int)(e->v & 1);
}

/*
 * The first 40 bytes of a datagram's key in the IPv6 cache (struct
 * relay_key) as 5 words, read from its headers: source and destination are
 * adjacent in the IPv6 header, the two ports in the UDP header, then ip6 = 1.
 */
static __rte_always_inline void
relay_key6_of_pkt(const uint8_t *l3, uint64_t w[5])
{
	uint32_t ports;

	memcpy(w, l3 + offsetof(struct rte_ipv6_hdr, src_addr), 32);
	memcpy(&ports, l3 + sizeof(struct rte_ipv6_hdr), sizeof(ports));
	w[4] = ports | UINT64_C(1) << 32;
}

/**
 * The first step for a checked IPv6 datagram to an address that may be the
 * relay's, whose next header is UDP (relay6's packets): its cache slot, both
 * lines prefetched; RELAY_NIL also for a zero UDP checksum, which relay6
 * drops (RFC 8200 8.1).
 */
static __rte_always_inline uint32_t
dp_relay6_key(const struct relay_worker *rw, const struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp =
		(const struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv6_hdr));
	uint64_t w[5];
	uint32_t slot;
	uint16_t plen, ulen;

	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) +
					   sizeof(struct rte_udp_hdr)) ||
		l3[6] != IPPROTO_UDP)
		return RELAY_NIL;
	memcpy(&plen, l3 + 4, sizeof(plen));
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(ulen < sizeof(*udp) || ulen > rte_be_to_cpu_16(plen) || udp->dgram_cksum == 0))
		return RELAY_NIL;
	relay_key6_of_pkt(l3, w);
	slot = relay_emc6_hash_w(w) & rw->emc6_mask;
	rte_prefetch0(&rw->emc6[slot]);
	rte_prefetch0((const uint8_t *)&rw->emc6[slot] + RTE_CACHE_LINE_SIZE);
	return slot;
}

/** The second step for IPv6, as dp_relay4_shortcut(). */
static __rte_always_inline int
dp_relay6_shortcut(struct dp_worker *w, const struct relay_worker *rw, struct rte_mbuf *m,
	uint32_t slot, uint32_t now, uint32_t gen, const struct dp_fwd_nh *nh_table, uint16_t burst)
{
	const struct relay_emc6_entry *e = &rw->emc6[slot];
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l3 = eth + RTE_ETHER_HDR_LEN;
	const struct dp_fwd_nh *nh;
	uint64_t k[5];

	relay_key6_of_pkt(l3, k);
	if (!relay_key6_eq_w(e->key, k) || e->seen != now || e->d.nh_gen != gen)
		return -1;
	nh = &nh_table[e->d.nh];
	if (!(nh->flags & DP_FWD_NH_F_RESOLVED))
		return -1;
	relay_rewrite6((struct rte_ipv6_hdr *)l3,
		(struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv6_hdr)), &e->d);
	relay_send(w, m, eth, nh, burst);
	return (int)(e->v & 1);
}

/**
 * ip4_fwd's and ip6_fwd's second pass with the relay on (@p v6: ip6_fwd's):
 * each of the @p n packets whose @p slot is not RELAY_NIL relayed by the
 * shortcut when its cache entry is ready (dp_relay4_shortcut(),
 * dp_relay6_shortcut()), and counted; the places of the others in @p rest,
 * in order. @return how many others.
 */
static __rte_always_inline uint16_t
dp_relay_shortcut_pass(struct dp_worker *w, struct relay_worker *rw, struct rte_mbuf **pkts,
	uint16_t n, const uint32_t *slot, const bool v6, uint16_t *rest)
{
	const struct dp_fwd_nh *nh_table = dp_fwd.nh;
	const uint16_t burst = w->burst;
	const uint32_t now = relay_clock(rw, w->walk_tsc);
	const uint32_t gen = __atomic_load_n(&dp_fwd.route_gen, __ATOMIC_ACQUIRE);
	uint32_t to_client = 0;
	uint16_t i, nb_rest = 0;

	for (i = 0; i < n; i++) {
		int dir = -1;

		if (slot[i] != RELAY_NIL)
			dir = v6 ? dp_relay6_shortcut(
					   w, rw, pkts[i], slot[i], now, gen, nh_table, burst)
				 : dp_relay4_shortcut(
					   w, rw, pkts[i], slot[i], now, gen, nh_table, burst);
		if (dir >= 0)
			to_client += (uint32_t)dir;
		else
			rest[nb_rest++] = i;
	}
	rw->stats.to_client += to_client;
	rw->stats.to_backend += (uint32_t)(n - nb_rest) - to_client;
	return nb_rest;
}

/**
 * A node's init for the nodes that take the relay's shortcut or are the
 * relay (ip4_fwd, ip6_fwd, relay4, relay6, relay_handoff): the worker, and
 * in ctx->arg its relay state (NULL when the relay is off). relay_node.c.
 */
int dp_relay_node_init(const struct rte_graph *graph, struct rte_node *node);

#endif /* RELAY_FP_H */
