/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The relay's per-packet rewrite and send (relay_node.c), and the shortcut
 * ip4_fwd and ip6_fwd take for a datagram of a cached session
 * (dp_relay4_probe() / dp_relay6_probe(), then dp_relay_shortcut()).
 */
#ifndef RELAY_FP_H
#define RELAY_FP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
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

static __rte_always_inline rte_be32_t
relay_be32(const uint8_t *p)
{
	rte_be32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Rewrite one packet as direction @p d says. */
static __rte_always_inline void
relay_rewrite(struct rte_mbuf *m, const bool v6, struct rte_udp_hdr *udp, const struct relay_dir *d)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);

	if (v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		ip->hop_limits = RELAY_TTL;
		memcpy(ip->src_addr, d->src, 16);
		memcpy(ip->dst_addr, d->dst, 16);
		udp->src_port = d->sport;
		udp->dst_port = d->dport;
		relay_udp_cksum(udp, d->l4_delta);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint16_t old_w, new_w, ck;
		uint32_t w32;

		/* TTL, protocol and checksum are one 32-bit word: one load, the
		 * new word made in registers, one store (a byte store then a
		 * wider load of it would stall store forwarding) */
		memcpy(&w32, &ip->time_to_live, sizeof(w32));
		old_w = (uint16_t)w32; /* TTL and protocol, as the checksum sums them */
		new_w = (uint16_t)((old_w & 0xff00) | RELAY_TTL);
		ck = relay_cksum_apply(
			(uint16_t)(w32 >> 16), (uint32_t)d->ip_delta + (uint16_t)~old_w + new_w);
		w32 = new_w | (uint32_t)ck << 16;
		memcpy(&ip->time_to_live, &w32, sizeof(w32));
		memcpy(&ip->src_addr, d->src, 4);
		memcpy(&ip->dst_addr, d->dst, 4);
		udp->src_port = d->sport;
		udp->dst_port = d->dport;
		relay_udp_cksum(udp, d->l4_delta);
	}
}

/* A packet for the resolved next hop @p nh: the MACs (the TTL is already
 * RELAY_TTL), into the TX buffer. */
static __rte_always_inline void
relay_send(struct dp_worker *w, struct rte_mbuf *m, const struct dp_fwd_nh *nh)
{
	memcpy(rte_pktmbuf_mtod(m, void *), &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
	dp_txq_append(w, w->txq_cfg[nh->port], m, w->burst);
}

/**
 * ip4_fwd's shortcut, first half, for a checked IPv4 datagram to the router
 * itself, UDP, not a fragment, to a relay port: its session in the
 * exact-match cache (slot << 1 | direction), or RELAY_NIL (a miss, or a UDP
 * header relay4 must look at). Nothing is written. Made for a pass of its own
 * over the burst, so that the cache lines of several packets are fetched at
 * once.
 */
static __rte_always_inline uint32_t
dp_relay4_probe(const struct relay_worker *rw, const struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	const uint32_t ihl = (uint32_t)(l3[0] & 0xf) * 4;
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(l3 + ihl);
	const struct relay_emc_entry *e;
	uint16_t tlen, ulen;
	struct relay_key4 k;

	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + ihl + sizeof(struct rte_udp_hdr)))
		return RELAY_NIL;
	memcpy(&tlen, l3 + 2, sizeof(tlen));
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(ulen < sizeof(*udp) || ulen > rte_be_to_cpu_16(tlen) - ihl))
		return RELAY_NIL;
	memcpy(&k.remote, l3 + 12, sizeof(k.remote));
	memcpy(&k.local, l3 + 16, sizeof(k.local));
	k.rport = udp->src_port;
	k.lport = udp->dst_port;
	k.pad = 0;
	e = &rw->emc[relay_emc_hash(&k) & rw->emc_mask];
	if (!relay_key4_eq(&e->key, &k))
		return RELAY_NIL;
	return e->v; /* RELAY_NIL when the entry is empty */
}

/**
 * The same for an IPv6 datagram to the router itself whose next header is UDP
 * (relay6's packets): RELAY_NIL also for a zero UDP checksum, which relay6
 * drops (RFC 8200 8.1).
 */
static __rte_always_inline uint32_t
dp_relay6_probe(const struct relay_worker *rw, const struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp =
		(const struct rte_udp_hdr *)(l3 + sizeof(struct rte_ipv6_hdr));
	const struct relay_emc6_entry *e;
	uint64_t w[5];
	uint32_t ports;
	uint16_t plen, ulen;

	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) +
					   sizeof(struct rte_udp_hdr)) ||
		l3[6] != IPPROTO_UDP)
		return RELAY_NIL;
	memcpy(&plen, l3 + 4, sizeof(plen));
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(ulen < sizeof(*udp) || ulen > rte_be_to_cpu_16(plen) || udp->dgram_cksum == 0))
		return RELAY_NIL;
	/* struct relay_key's first 40 bytes as words, made from the headers in
	 * registers (a key built in memory field by field, then read back as
	 * words, stalls store forwarding): source and destination are adjacent
	 * in the IPv6 header, the two ports in the UDP header, then ip6 = 1 */
	memcpy(w, l3 + 8, 32);
	memcpy(&ports, udp, sizeof(ports));
	w[4] = ports | UINT64_C(1) << 32;
	e = &rw->emc6[relay_emc6_hash_w(w) & rw->emc6_mask];
	if (!relay_key6_eq_w(&e->key, w))
		return RELAY_NIL;
	return e->v;
}

/**
 * Second half: when session @p v (from dp_relay4_probe() or dp_relay6_probe())
 * was seen already this second (so the LRU list needs no move) and its
 * direction's next hop is resolved under route generation @p gen, the packet
 * is rewritten and put in the TX buffer here, and true is returned. Otherwise
 * (a new second, an idle session, a next hop to look up) false, the packet
 * untouched, for relay4 or relay6, which do all of it.
 */
static __rte_always_inline bool
dp_relay_shortcut(struct dp_worker *w, struct relay_worker *rw, struct rte_mbuf *m, uint32_t v,
	uint32_t now, uint32_t gen, const struct dp_fwd_nh *nh_table, const bool v6)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);
	uint8_t *l4 = l3 + (v6 ? sizeof(struct rte_ipv6_hdr) : (uint32_t)(l3[0] & 0xf) * 4);
	struct relay_session *s = &rw->sess[v >> 1];
	const struct relay_dir *d;
	const struct dp_fwd_nh *hop;

	if (s->last_seen != now)
		return false;
	d = relay_sess_dir(s, v & 1);
	hop = &nh_table[d->nh];
	if (unlikely(d->nh_gen != gen || !(hop->flags & DP_FWD_NH_F_RESOLVED)))
		return false;
	relay_rewrite(m, v6, (struct rte_udp_hdr *)l4, d);
	relay_send(w, m, hop);
	return true;
}

/**
 * A node's init for the nodes that take the relay's shortcut or are the
 * relay (ip4_fwd, ip6_fwd, relay4, relay6, relay_handoff): the worker, and
 * in ctx->arg its relay state (NULL when the relay is off). relay_node.c.
 */
int dp_relay_node_init(const struct rte_graph *graph, struct rte_node *node);

#endif /* RELAY_FP_H */
