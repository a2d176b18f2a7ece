/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The relay's per-packet rewrite and send (relay_node.c), and its fast match
 * in front of ip4_fwd's and ip6_fwd's route lookup (dp_fwd_local.h) for a
 * datagram of a cached session, in two passes over the burst:
 * dp_relay4_key() / dp_relay6_key() (the cache lines prefetched), then
 * dp_relay_shortcut_pass(), which relays the ready ones
 * (dp_relay4_shortcut() / dp_relay6_shortcut()) and leaves the others to the
 * lookup.
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
#include "dp_fwd_local.h"
#include "fwd_fp.h"
#include "dp_graph.h"
#include "graph_fp.h"
#include "relay_priv.h"

/*
 * A UDP checksum after the session's delta: 0 over IPv4 means "none" and
 * stays 0. RFC 1624 eqn. 3, ~(~C + delta), is C + ~delta in one's complement,
 * and that form never gives 0 for a C that is not: where eqn. 3 gives 0, it
 * gives 0xffff, what RFC 768 sends for a computed 0. One add with carry.
 */
static __rte_always_inline void
relay_udp_cksum(struct rte_udp_hdr *udp, uint16_t delta)
{
	const uint16_t c = udp->dgram_cksum;

	if (c != 0)
		udp->dgram_cksum = dp_cksum_add16(c, (uint16_t)~delta);
}

/*
 * Rewrite the IPv4 UDP datagram whose headers are @p ip and @p udp as a
 * direction says: source and destination @p addrs and ports @p ports (as the
 * headers hold them, loaded as one word each), TTL RELAY_TTL, the header
 * checksum by @p ip_delta (struct relay_dir) and the UDP one by @p l4_delta.
 */
static __rte_always_inline void
relay_rewrite4(struct rte_ipv4_hdr *ip, struct rte_udp_hdr *udp, uint64_t addrs, uint32_t ports,
	uint16_t ip_delta, uint16_t l4_delta)
{
	uint32_t w32;
	uint16_t ck;

	_Static_assert(offsetof(struct rte_ipv4_hdr, dst_addr) ==
				       offsetof(struct rte_ipv4_hdr, src_addr) + 4 &&
			       offsetof(struct rte_udp_hdr, dst_port) == 2,
		"addresses side by side, ports first");
	/* TTL, protocol and checksum are one 32-bit word: one load, the new
	 * word made in registers, one store (a byte store then a wider load of
	 * it would stall store forwarding). Inverted, it holds ~old (TTL,
	 * protocol) word in its low half and ~old checksum in its high: their
	 * sum and the delta, which has the new (TTL, protocol) word in it, as
	 * eqn. 3 of RFC 1624 (never 0xffff) */
	memcpy(&w32, &ip->time_to_live, sizeof(w32));
	ck = (uint16_t)~dp_cksum_add16(dp_cksum_add_halves(~w32), ip_delta);
	w32 = RELAY_IP4_TTL_PROTO | (uint32_t)ck << 16;
	memcpy(&ip->time_to_live, &w32, sizeof(w32));
	memcpy(&ip->src_addr, &addrs, sizeof(addrs));
	memcpy(udp, &ports, sizeof(ports));
	relay_udp_cksum(udp, l4_delta);
}

/* Rewrite the IPv6 UDP datagram whose headers are @p ip and @p udp: as
 * relay_rewrite4(), with 16-byte addresses and no header checksum. */
static __rte_always_inline void
relay_rewrite6(struct rte_ipv6_hdr *ip, struct rte_udp_hdr *udp, const uint8_t *src,
	const uint8_t *dst, uint32_t ports, uint16_t l4_delta)
{
	ip->hop_limits = RELAY_TTL;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	memcpy(udp, &ports, sizeof(ports));
	relay_udp_cksum(udp, l4_delta);
}

/* Rewrite one packet as direction @p d says. */
static __rte_always_inline void
relay_rewrite(struct rte_mbuf *m, const bool v6, struct rte_udp_hdr *udp, const struct relay_dir *d)
{
	uint32_t ports;

	_Static_assert(offsetof(struct relay_dir, dport) == offsetof(struct relay_dir, sport) + 2,
		"relay_dir: ports as the UDP header has them");
	memcpy(&ports, &d->sport, sizeof(ports));
	if (v6) {
		relay_rewrite6(rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN),
			udp, d->src, d->dst, ports, d->l4_delta);
	} else {
		uint32_t src, dst;

		memcpy(&src, d->src, sizeof(src));
		memcpy(&dst, d->dst, sizeof(dst));
		relay_rewrite4(rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN),
			udp, src | (uint64_t)dst << 32, ports, d->ip_delta, d->l4_delta);
	}
}

/* Packet @p m, whose frame starts at @p eth, with MACs @p l2 (the TTL is
 * already RELAY_TTL), into TX buffer @p txq. */
static __rte_always_inline void
relay_send(struct dp_worker *w, struct rte_mbuf *m, void *eth, const void *l2,
	struct dp_worker_txq *txq, uint16_t burst)
{
	memcpy(eth, l2, 2 * RTE_ETHER_ADDR_LEN);
	dp_txq_append(w, txq, m, burst);
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

/*
 * The pair beside the one @p e starts (the cache is aligned to two pairs:
 * emc_alloc()), of either cache's entries.
 */
#define relay_emc_buddy(e) ((__typeof__(e))((uintptr_t)(e) ^ (RELAY_EMC_PAIR * sizeof(*(e)))))

/**
 * ip4_fwd's shortcut, first step, for a datagram whose option-less header
 * passed ip4_fwd's fast checks, UDP, not a fragment, to an address that may
 * be the relay's (before the route lookup: a key the cache holds is the
 * relay's, whose addresses are the router's own): the first entry of the set
 * its key maps to in the worker's cache @p emc (@p mask: rw->emc_mask), its
 * line prefetched; or NULL (a UDP header relay4 must look at). Made for
 * a pass of its own over the burst, so that the cache lines of all its
 * packets are on their way before dp_relay4_shortcut() reads them.
 */
static __rte_always_inline const struct relay_emc_entry *
dp_relay4_key(const struct relay_emc_entry *emc, uint32_t mask, const struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp =
		(const struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv4_hdr));
	const struct relay_emc_entry *e;
	uint64_t k[2];
	uint16_t tlen, ulen;

	memcpy(&tlen, l3 + offsetof(struct rte_ipv4_hdr, total_length), sizeof(tlen));
	memcpy(&ulen, &udp->dgram_len, sizeof(ulen));
	/* The UDP length is all the IP header leaves it (what senders make;
	 * a datagram followed by padding goes to relay4, which takes it too),
	 * and 8 at least. It also says the frame holds the UDP header: the fast
	 * checks found the total length within the frame. (The UDP length is
	 * read before that is known, inside the mbuf's data room even for a
	 * shorter frame, as ip4_fwd's fast checks read the header; a short
	 * frame's value is not used.) Under 8: a network-order value with no
	 * bit of 0xfff8. */
	if (unlikely(ulen != rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(tlen) -
							 sizeof(struct rte_ipv4_hdr)))))
		return NULL;
	if (unlikely((ulen & RTE_BE16(0xfff8)) == 0))
		return NULL;
	relay_key4_of_pkt(l3, k);
	e = &emc[(relay_emc_hash_w(k) & mask) * RELAY_EMC_PAIR];
	/* the first way's line only: the second holds a key only when the pair
	 * took two, and the pair is a 128-byte aligned pair of lines, which the
	 * L2's spatial prefetcher fetches together */
	rte_prefetch0(e);
	return e;
}

/**
 * Second: the packet of the cache set whose first entry is @p e, when an entry
 * of the set holds its key and is ready for the shortcut (its ready word is
 * @p ready: relay4 sent a packet of the key this second, under this path
 * generation), rewritten and put in the TX buffer, from that entry alone.
 * @return its direction (1: to the client), or -1 with nothing written (for
 * relay4).
 */
static __rte_always_inline int
dp_relay4_shortcut(struct dp_worker *w, const struct relay_emc_entry *e, struct rte_mbuf *m,
	uint64_t ready, uint16_t burst)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l3 = eth + RTE_ETHER_HDR_LEN;
	uint64_t k[2], addrs;
	uint32_t ports;

	relay_key4_of_pkt(l3, k);
	/* the first way holds the key unless its pair took two or more; the
	 * buddy pair (not prefetched) only a key its own pair had no room for */
	if (!relay_key4_eq_w(&e->key, k) && !relay_key4_eq_w(&(++e)->key, k)) {
		e = relay_emc_buddy(e - 1);
		if (!relay_key4_eq_w(&e->key, k) && !relay_key4_eq_w(&(++e)->key, k))
			return -1;
	}
	if (e->ready != ready)
		return -1;
	memcpy(&addrs, e->addrs, sizeof(addrs));
	memcpy(&ports, e->ports, sizeof(ports));
	relay_rewrite4((struct rte_ipv4_hdr *)l3,
		(struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv4_hdr)), addrs, ports, e->ip_delta,
		e->l4_delta);
	relay_send(w, m, eth, e->l2, e->txq, burst);
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
 * relay's, whose next header is UDP (relay6's packets): its cache set, the
 * first entry's two lines prefetched (as for IPv4, not the second entry's,
 * which the L2's prefetcher brings); NULL also for a zero
 * UDP checksum, which relay6 drops (RFC 8200 8.1).
 */
static __rte_always_inline const struct relay_emc6_entry *
dp_relay6_key(const struct relay_emc6_entry *emc6, uint32_t mask, const struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp =
		(const struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv6_hdr));
	const struct relay_emc6_entry *e;
	uint64_t w[5];
	uint16_t plen, ulen;

	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) +
					   sizeof(struct rte_udp_hdr)) ||
		l3[6] != IPPROTO_UDP)
		return NULL;
	memcpy(&plen, l3 + 4, sizeof(plen));
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(ulen < sizeof(*udp) || ulen > rte_be_to_cpu_16(plen) || udp->dgram_cksum == 0))
		return NULL;
	relay_key6_of_pkt(l3, w);
	e = &emc6[(relay_emc6_hash_w(w) & mask) * RELAY_EMC_PAIR];
	rte_prefetch0(e);
	rte_prefetch0((const uint8_t *)e + RTE_CACHE_LINE_SIZE);
	return e;
}

/** The second step for IPv6, as dp_relay4_shortcut(). */
static __rte_always_inline int
dp_relay6_shortcut(struct dp_worker *w, const struct relay_emc6_entry *e, struct rte_mbuf *m,
	uint64_t ready, uint16_t burst)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *l3 = eth + RTE_ETHER_HDR_LEN;
	uint64_t k[5];
	uint32_t ports;

	relay_key6_of_pkt(l3, k);
	if (!relay_key6_eq_w(e->key, k) && !relay_key6_eq_w((++e)->key, k)) {
		e = relay_emc_buddy(e - 1);
		if (!relay_key6_eq_w(e->key, k) && !relay_key6_eq_w((++e)->key, k))
			return -1;
	}
	if (e->ready != ready)
		return -1;
	memcpy(&ports, e->ports, sizeof(ports));
	relay_rewrite6((struct rte_ipv6_hdr *)l3,
		(struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv6_hdr)), e->src, e->dst, ports,
		e->l4_delta);
	relay_send(w, m, eth, e->l2, e->txq, burst);
	return (int)(e->v & 1);
}

/**
 * ip4_fwd's and ip6_fwd's second pass with the relay on (@p v6: ip6_fwd's):
 * each of the @p n packets with a cache entry in @p ent (struct
 * relay_emc_entry, IPv6 relay_emc6_entry; NULL: none) relayed by the shortcut
 * when the entry is ready (dp_relay4_shortcut(), dp_relay6_shortcut()), and
 * counted; the places of the others in @p rest, in order. @return how many
 * others.
 */
static __rte_always_inline uint16_t
dp_relay_shortcut_pass(struct dp_worker *w, struct relay_worker *rw, struct rte_mbuf **pkts,
	uint16_t n, const void *const *ent, const bool v6, uint16_t *rest)
{
	const uint16_t burst = w->burst;
	const uint64_t ready = relay_emc_ready_word(
		relay_clock(rw, w->walk_tsc), __atomic_load_n(&dp_fwd.path_gen, __ATOMIC_ACQUIRE));
	uint32_t to_client = 0;
	uint16_t i, nb_rest = 0;

	for (i = 0; i < n; i++) {
		int dir = -1;

		if (ent[i] != NULL)
			dir = v6 ? dp_relay6_shortcut(w, ent[i], pkts[i], ready, burst)
				 : dp_relay4_shortcut(w, ent[i], pkts[i], ready, burst);
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
 * The init of relay4, relay6 and relay_handoff: the worker, and in ctx->arg
 * its relay state (NULL when the relay is off). relay_node.c.
 */
int relay_node_init(const struct rte_graph *graph, struct rte_node *node);

/** The relay's fast matches (dp_fwd_fast_match_fn), @p ctx the worker's relay state. */
uint16_t relay4_fast_match(
	void *ctx, struct dp_worker *w, struct rte_mbuf **pkts, uint16_t n, uint16_t *rest);
uint16_t relay6_fast_match(
	void *ctx, struct dp_worker *w, struct rte_mbuf **pkts, uint16_t n, uint16_t *rest);

#endif /* RELAY_FP_H */
