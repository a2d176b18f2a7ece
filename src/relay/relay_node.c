/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * relay4, relay6 (UDP relay: session lookup and rewrite)
 *   uses: the IP header ip4_fwd/ip6_fwd checked, the UDP header after it; the
 *         worker's session table (one bulk lookup a burst); the routes
 *   sets: addresses, ports, TTL / hop limit, IP and UDP checksums; meta.nh
 *   next: none when the next hop is resolved (MACs written here, into the
 *         worker's TX buffer, as ip4_fwd does); else ip4_output / ip6_output;
 *         drop (the relay_* reasons; ip4_local / ip6_local: a relay port of
 *         another address); another worker's relay port: its hand-off ring
 *
 * relay_handoff (source node, every walk)
 *   uses: the worker's hand-off ring; the relay clock
 *   sets: nothing; every RELAY_TICK_CALLS calls, expires idle sessions
 *   next: relay4 or relay6, by IP version
 *
 * relay4_shortcut, relay6_shortcut: the rows of the relay's fast match
 *   (relay4_fast_match(), run by ip4_fwd/ip6_fwd before their lookup: the
 *   sessions relay4 readied this second, no route or neighbor changed since).
 *
 * Each direction keeps its next hop (relay_dir.nh, checked against the route
 * generation): only a new session, a route change or an unresolved neighbor
 * looks again. TTL: the relay is the packets' new source, as a userspace
 * relay would be, so both directions leave with RELAY_TTL (64), folded into
 * the IPv4 checksum delta with the addresses; a packet for ip4_output /
 * ip6_output gets RELAY_TTL + 1, as they take one off.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_fib6.h>
#include <rte_graph_worker.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "dp_fwd.h"
#include "dp_config.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_port.h"
#include "graph_fp.h"
#include "relay_fp.h"
#include "relay_priv.h"

enum relay_next {
	RELAY_NEXT_DROP,
	RELAY_NEXT_OUTPUT,
	RELAY_NEXT_SHORTCUT, /* never taken: see relay_shortcut_process() */
	RELAY_NEXT_MAX,
};

/* not an edge: handed to another worker, or in a TX buffer */
#define RELAY_NEXT_GONE ((rte_edge_t)0xffff)

/** Packets per bulk lookup (at most RTE_HASH_LOOKUP_BULK_MAX). */
#define RELAY_PIECE 32

#define ETH_IP6_UDP (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr))

/*
 * The next hops of a piece's new destinations, by the fwd module's lookups (one
 * call per piece); false for no route, or a destination that is dpfwd itself.
 */
static __rte_always_inline void
relay_route4_bulk(const uint32_t *dst, uint32_t *nh, bool *ok, unsigned int n)
{
	unsigned int i;

	dp_fwd_lookup4_bulk(dst, nh, n);
	for (i = 0; i < n; i++)
		ok[i] = nh[i] != DP_FWD_NO_ROUTE && nh[i] != DP_FWD_NH_LOCAL;
}

static __rte_always_inline void
relay_route6_bulk(uint8_t (*dst)[16], uint32_t *nh, bool *ok, unsigned int n)
{
	uint64_t hop[RELAY_PIECE];
	unsigned int i;

	struct rte_fib6 *fib = __atomic_load_n(&dp_fwd_ip6.fib, __ATOMIC_ACQUIRE);

	if (unlikely(fib == NULL)) {
		memset(ok, 0, n * sizeof(ok[0]));
		return;
	}
	rte_fib6_lookup_bulk(fib, dst, hop, (int)n);
	for (i = 0; i < n; i++) {
		nh[i] = (uint32_t)hop[i];
		ok[i] = hop[i] != DP_FWD_NO_ROUTE6 && hop[i] != DP_FWD_NH_LOCAL;
	}
}

/*
 * The key of one packet, and where its UDP header is. The IP header was
 * checked by ip4_fwd/ip6_fwd (whole, in the first segment, total length inside
 * the frame); the UDP header is checked here.
 */
static __rte_always_inline enum dp_drop_reason
relay_parse(struct rte_mbuf *m, const bool v6, union relay_anykey *key, struct rte_udp_hdr **udpp)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp;
	uint32_t l4len, ulen;

	if (v6) {
		struct relay_key *k = &key->k;

		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		udp = (struct rte_udp_hdr *)(ip + 1);
		l4len = rte_be_to_cpu_16(ip->payload_len);
		if (unlikely(m->data_len < ETH_IP6_UDP))
			return DP_DROP_RELAY_BAD_UDP;
		memset(k, 0, sizeof(*k));
		memcpy(k->remote, ip->src_addr, 16);
		memcpy(k->local, ip->dst_addr, 16);
		k->ip6 = 1;
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		const uint32_t ihl = rte_ipv4_hdr_len(ip);
		struct relay_key4 *k = &key->k4;

		udp = (struct rte_udp_hdr *)(l3 + ihl);
		l4len = rte_be_to_cpu_16(ip->total_length) - ihl; /* >= 0: checked by ip4_fwd */
		if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + ihl + sizeof(*udp)))
			return DP_DROP_RELAY_BAD_UDP;
		k->remote = ip->src_addr;
		k->local = ip->dst_addr;
		k->pad = 0;
	}
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(l4len < sizeof(*udp) || ulen < sizeof(*udp) || ulen > l4len))
		return DP_DROP_RELAY_BAD_UDP;
	/* RFC 8200 8.1: a zero UDP checksum over IPv6 is invalid (not "none") */
	if (v6 && unlikely(udp->dgram_cksum == 0))
		return DP_DROP_RELAY_UDP6_ZERO_CKSUM;
	if (v6) {
		key->k.rport = udp->src_port;
		key->k.lport = udp->dst_port;
	} else {
		key->k4.rport = udp->src_port;
		key->k4.lport = udp->dst_port;
	}
	*udpp = udp;
	return DP_DROP_MAX;
}

/*
 * The keys of a piece: the exact-match cache first (relay_priv.h), the table
 * for what it did not have, each key the table found put in the cache where
 * its set has room (relay_emc_place(), @p ready: this second's ready word).
 * Same results as rte_hash_lookup_bulk_data() on the whole piece.
 */
static __rte_always_inline void
relay_lookup_cached(struct relay_worker *rw, const union relay_anykey *keys, const uint8_t *bad,
	uint16_t n, uint64_t ready, uint64_t *hits, void **data, const bool v6)
{
	const void *mkp[RELAY_PIECE];
	void *mdata[RELAY_PIECE];
	uint8_t midx[RELAY_PIECE];
	uint64_t h = 0, mh = 0;
	uint16_t i, nm = 0;

	for (i = 0; i < n; i++) {
		uint32_t e;

		if (unlikely(bad[i]))
			continue;
		e = relay_emc_find(rw, &keys[i], v6);
		if (likely(e != RELAY_NIL)) {
			data[i] = (void *)(uintptr_t)relay_emc_data(rw, e, v6);
			h |= UINT64_C(1) << i;
		} else {
			midx[nm] = (uint8_t)i;
			mkp[nm++] = v6 ? (const void *)&keys[i].k : (const void *)&keys[i].k4;
		}
	}
	if (nm != 0) {
		rte_hash_lookup_bulk_data(v6 ? rw->h6 : rw->h4, mkp, nm, &mh, mdata);
		for (i = 0; i < nm; i++) {
			const uint16_t k = midx[i];
			uint32_t es;

			if (!((mh >> i) & 1))
				continue;
			data[k] = mdata[i];
			h |= UINT64_C(1) << k;
			es = relay_emc_place(rw, &keys[k], ready, v6);
			if (es != RELAY_NIL)
				relay_emc_set(rw, es, &keys[k], (uint32_t)(uintptr_t)mdata[i], v6);
		}
	}
	*hits = h;
}

/* relay_miss() takes the full key: an IPv4 one is widened first (a miss only). */
static __rte_noinline int32_t
relay_miss_any(struct relay_worker *rw, const bool v6, const union relay_anykey *key, uint32_t now,
	struct rte_mbuf *m)
{
	struct relay_key k;

	if (v6)
		return relay_miss(rw, &key->k, now, m);
	relay_key_of4(&key->k4, &k);
	return relay_miss(rw, &k, now, m);
}

/* Send each packet its way when the burst was split in pieces or lost some to hand-off. */
static __rte_noinline void
relay_enqueue_split(struct rte_graph *graph, struct rte_node *node, void **objs,
	const rte_edge_t *next, uint16_t n)
{
	void *keep[RELAY_PIECE];
	rte_edge_t e[RELAY_PIECE];
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		keep[k] = objs[i];
		e[k] = next[i];
		k += next[i] != RELAY_NEXT_GONE;
	}
	dp_node_enqueue_each(graph, node, keep, e, k);
}

/* For ip4_output/ip6_output, which take one off as they send: TTL + 1. */
static __rte_noinline void
relay_ttl_for_output(struct rte_mbuf *m, const bool v6)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);

	if (v6) {
		((struct rte_ipv6_hdr *)l3)->hop_limits = RELAY_TTL + 1;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint16_t old_w, new_w;

		memcpy(&old_w, &ip->time_to_live, 2);
		new_w = (uint16_t)((old_w & 0xff00) | (RELAY_TTL + 1));
		memcpy(&ip->time_to_live, &new_w, 2);
		ip->hdr_checksum =
			relay_cksum_apply(ip->hdr_checksum, (uint32_t)(uint16_t)~old_w + new_w);
	}
}

/*
 * Ports of different MTUs: a datagram that came in whole may be longer than the
 * next hop's MTU. The relay does not fragment: counted and dropped. With one
 * MTU on every port no datagram can be (port_rx dropped longer frames), and
 * the check is compiled out (relay_burst()'s mtu_check).
 */
static __rte_noinline bool
relay_too_big(struct dp_worker *w, const struct rte_mbuf *m, const struct dp_fwd_nh *hop)
{
	if (m->pkt_len <= (uint32_t)hop->mtu + RTE_ETHER_HDR_LEN)
		return false;
	w->stats.drops[DP_DROP_RELAY_TOO_BIG]++;
	return true;
}

static __rte_always_inline uint16_t
relay_burst(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	const bool v6, const bool mtu_check)
{
	const struct dp_node_ctx *ctx = (const struct dp_node_ctx *)node->ctx;
	struct dp_worker *w = ctx->w;
	struct relay_worker *rw = ctx->arg;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	const struct dp_fwd_nh *nh_table = dp_fwd.nh;
	const int meta_off = dp_mbuf_meta_offset;
	const uint32_t gen = __atomic_load_n(&dp_fwd.path_gen, __ATOMIC_ACQUIRE);
	/* relayed, of them to clients: counted here, added once a burst (a
	 * counter in memory bumped per packet is a store-to-load chain) */
	uint32_t relayed = 0, to_client = 0;
	uint64_t ready; /* the cache's ready word for what is sent now */
	uint16_t base;
	uint32_t now;

	if (unlikely(rw == NULL)) {
		/* no relay: ip4_local/ip6_local never send here */
		w->stats.drops[v6 ? DP_DROP_IP6_LOCAL : DP_DROP_IP4_LOCAL] += nb_objs;
		if (nb_objs != 0)
			rte_node_next_stream_move(graph, node, RELAY_NEXT_DROP);
		return nb_objs;
	}
	now = relay_clock(rw, rte_rdtsc());
	ready = relay_emc_ready_word(now, gen);
	for (base = 0; base < nb_objs; base += RELAY_PIECE) {
		const uint16_t n = RTE_MIN(nb_objs - base, RELAY_PIECE);
		union relay_anykey keys[RELAY_PIECE];
		const void *kp[RELAY_PIECE];
		struct rte_udp_hdr *udp[RELAY_PIECE];
		void *data[RELAY_PIECE];
		rte_edge_t next[RELAY_PIECE];
		uint8_t bad[RELAY_PIECE];
		uint64_t hits = 0;
		bool dirty = false;
		uint16_t i, no = 0, gone = 0;
		/* packets rewritten whose next hop is looked up: index in the piece,
		 * direction, session direction, new destination */
		uint8_t out_idx[RELAY_PIECE], out_dir[RELAY_PIECE];
		struct relay_dir *out_d[RELAY_PIECE];
		uint32_t dst4[RELAY_PIECE];
		uint8_t dst6[RELAY_PIECE][16];

		for (i = 0; i < n; i++) {
			enum dp_drop_reason why =
				relay_parse(pkts[base + i], v6, &keys[i], &udp[i]);

			bad[i] = why != DP_DROP_MAX;
			if (unlikely(bad[i]))
				w->stats.drops[why]++;
			kp[i] = &keys[i];
		}
		if (relay_emc_on(rw, v6))
			relay_lookup_cached(rw, keys, bad, n, ready, &hits, data, v6);
		else
			rte_hash_lookup_bulk_data(v6 ? rw->h6 : rw->h4, kp, n, &hits, data);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[base + i];
			const struct dp_fwd_nh *hop;
			struct relay_session *s;
			struct relay_dir *d;
			int32_t v;

			if (unlikely(bad[i])) {
				next[i] = RELAY_NEXT_DROP;
				continue;
			}
			for (;;) {
				if (likely(((hits >> i) & 1) && !dirty)) {
					v = (int32_t)(uintptr_t)data[i];
				} else {
					/* a new session, a hand-off, or a drop; the table may
					 * change, so later hits of this piece are looked up again
					 */
					v = relay_miss_any(rw, v6, &keys[i], now, m);
					dirty = true;
				}
				if (v < 0)
					break;
				s = &rw->sess[v >> 1];
				if (likely(now - s->last_seen <= s->timeout_s))
					break;
				/* lazy expiry: idle too long; then it is a miss */
				relay_session_free(rw, (uint32_t)v >> 1);
				rw->stats.expired++;
				hits &= ~(UINT64_C(1) << i);
				dirty = true;
			}
			if (unlikely(v < 0)) {
				if (v == RELAY_HANDED_OFF) {
					next[i] = RELAY_NEXT_GONE;
					gone++;
				} else {
					w->stats.drops[-1 - v]++;
					next[i] = RELAY_NEXT_DROP;
				}
				continue;
			}
			if (s->last_seen != now)
				relay_lru_touch(rw, s, (uint32_t)v >> 1, now);
			d = relay_sess_dir(s, (uint32_t)v & 1);
			relay_rewrite(m, v6, udp[i], d);
			hop = &nh_table[d->nh];
			if (likely(d->nh_gen == gen && (hop->flags & DP_FWD_NH_F_RESOLVED))) {
				struct dp_worker_txq *txq = w->txq_cfg[hop->port];

				if (mtu_check && unlikely(relay_too_big(w, m, hop))) {
					next[i] = RELAY_NEXT_DROP;
					continue;
				}

				to_client += (uint32_t)v & 1;
				relayed++;
				relay_send(
					w, m, rte_pktmbuf_mtod(m, void *), &hop->l2, txq, w->burst);
				if (relay_emc_on(rw, v6)) {
					const uint32_t es =
						relay_emc_place(rw, &keys[i], ready, v6);

					if (es != RELAY_NIL) {
						relay_emc_set(rw, es, &keys[i], (uint32_t)v, v6);
						relay_emc_arm(rw, es, ready, d, hop, txq, v6);
					}
				}
				next[i] = RELAY_NEXT_GONE;
				gone++;
				continue;
			}
			if (v6)
				memcpy(dst6[no], d->dst, 16);
			else
				dst4[no] = rte_be_to_cpu_32(relay_be32(d->dst));
			out_d[no] = d;
			out_dir[no] = (uint8_t)(v & 1);
			out_idx[no++] = (uint8_t)i;
		}
		/* the new destinations' routes, in one lookup */
		if (no != 0) {
			uint32_t nh[RELAY_PIECE];
			bool ok[RELAY_PIECE];

			if (v6)
				relay_route6_bulk(dst6, nh, ok, no);
			else
				relay_route4_bulk(dst4, nh, ok, no);
			for (i = 0; i < no; i++) {
				const uint16_t k = out_idx[i];
				const uint8_t *dst;
				rte_be32_t d4;
				uint32_t hop;

				if (unlikely(!ok[i])) {
					w->stats.drops[DP_DROP_RELAY_NO_ROUTE]++;
					next[k] = RELAY_NEXT_DROP;
					continue;
				}
				if (v6) {
					dst = dst6[i];
				} else {
					d4 = rte_cpu_to_be_32(dst4[i]);
					dst = (const uint8_t *)&d4;
				}
				/* for an on-link destination, its own neighbor entry: the
				 * packet's, not out_d's, whose slot a later packet of the
				 * piece may have given to a new session (LRU eviction) */
				/* (the loop above filled dst6[i] for each i < no of an
				 * IPv6 piece: the analyser does not tie its v6 to this one) */
				/* NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage) */
				hop = dp_neigh_hop_of(nh_table, nh[i], v6, dst);
				/* kept for the session's next packets, when it still sends
				 * there (the hop depends on the destination alone) */
				if (memcmp(out_d[i]->dst, dst, v6 ? 16 : 4) == 0) {
					out_d[i]->nh = hop;
					out_d[i]->nh_gen = gen;
				}
				if (mtu_check && unlikely(relay_too_big(
							 w, pkts[base + k], &nh_table[hop]))) {
					next[k] = RELAY_NEXT_DROP;
					continue;
				}
				to_client += out_dir[i];
				relayed++;
				if (nh_table[hop].flags & DP_FWD_NH_F_RESOLVED) {
					relay_send(w, pkts[base + k],
						rte_pktmbuf_mtod(pkts[base + k], void *),
						&nh_table[hop].l2, w->txq_cfg[nh_table[hop].port],
						w->burst);
					next[k] = RELAY_NEXT_GONE;
					gone++;
				} else {
					/* ip4_output/ip6_output hold or punt it */
					relay_ttl_for_output(pkts[base + k], v6);
					dp_mbuf_meta(pkts[base + k], meta_off)->nh = hop;
					next[k] = RELAY_NEXT_OUTPUT;
				}
			}
		}
		if (gone == n)
			continue;
		if (likely(gone == 0 && n == nb_objs))
			dp_node_dispatch(graph, node, objs, next, n);
		else
			relay_enqueue_split(graph, node, objs + base, next, n);
	}
	rw->stats.to_client += to_client;
	rw->stats.to_backend += relayed - to_client;
	return nb_objs;
}

static uint16_t
relay4_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	if (likely(dp_port_mtu_uniform))
		return relay_burst(graph, node, objs, nb_objs, false, false);
	return relay_burst(graph, node, objs, nb_objs, false, true);
}

static uint16_t
relay6_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	if (likely(dp_port_mtu_uniform))
		return relay_burst(graph, node, objs, nb_objs, true, false);
	return relay_burst(graph, node, objs, nb_objs, true, true);
}

int
relay_node_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	int rc = dp_graph_node_init_worker(graph, node);

	if (rc < 0)
		return rc;
	ctx->arg = ctx->w->index < RTE_DIM(relay_workers) ? relay_workers[ctx->w->index] : NULL;
	return 0;
}

/*
 * The fast match's first pass picks the UDP datagrams to an address that may
 * be the relay's, checks their headers as far as the cache's key does not
 * vouch for them (ip4_fast_to() with to_self) and prefetches the cache
 * entries their keys map to; the second relays those the cache has ready and
 * leaves the others, with no verdict kept: they are checked in full after the
 * lookup. In the first pass, the entry is stored after the packet's last
 * read: a store may alias the packet's bytes, which the compiler would then
 * read again.
 */
static __rte_always_inline uint16_t
relay4_match_burst(struct relay_worker *rw, struct dp_worker *w, struct rte_mbuf **pkts, uint16_t n,
	uint16_t *rest, const bool cksum_check, const bool ck_flags)
{
	const void *ent[RTE_GRAPH_BURST_SIZE]; /* cache entries, NULL: not the relay's */
	const struct relay_emc_entry *emc = rw->emc;
	const uint32_t mask = rw->emc_mask;
	const uint64_t addrs4 = rw->addrs4;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const void *e = relay_addr_maybe(addrs4, ip4_dst(m)) &&
						ip4_fast_to(cksum_check, ck_flags, true, m) &&
						ip4_udp_whole(m)
					? dp_relay4_key(emc, mask, m)
					: NULL;

		ent[i] = e;
	}
	return dp_relay_shortcut_pass(w, rw, pkts, n, ent, false, rest);
}

uint16_t
relay4_fast_match(
	void *ctx, struct dp_worker *w, struct rte_mbuf **pkts, uint16_t n, uint16_t *rest)
{
	struct relay_worker *rw = ctx;

	/* copies of the loop, so the checksum choices are not re-read per packet */
	if (w->ip4_cksum_check)
		return w->rx_ip4_cksum ? relay4_match_burst(rw, w, pkts, n, rest, true, true)
				       : relay4_match_burst(rw, w, pkts, n, rest, true, false);
	return w->rx_ip4_cksum ? relay4_match_burst(rw, w, pkts, n, rest, false, true)
			       : relay4_match_burst(rw, w, pkts, n, rest, false, false);
}

/* As relay4_fast_match(), over the IPv6 cache. */
uint16_t
relay6_fast_match(
	void *ctx, struct dp_worker *w, struct rte_mbuf **pkts, uint16_t n, uint16_t *rest)
{
	const void *ent[RTE_GRAPH_BURST_SIZE];
	struct relay_worker *rw = ctx;
	const struct relay_emc6_entry *emc6 = rw->emc6;
	const uint32_t mask = rw->emc6_mask;
	const uint64_t addrs6 = rw->addrs6;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *d = rte_pktmbuf_mtod_offset(m, const uint8_t *,
			RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv6_hdr, dst_addr));
		const void *e =
			relay_addr_maybe(addrs6, relay_addr6_tail(d)) && ip6_fast_to(true, m)
				? dp_relay6_key(emc6, mask, m)
				: NULL;

		ent[i] = e;
	}
	return dp_relay_shortcut_pass(w, rw, pkts, n, ent, true, rest);
}

/*
 * relay4_shortcut, relay6_shortcut: the rows of the node table that count
 * the relay's fast match (relay4_fast_match(), relay6_fast_match()), which
 * runs inside ip4_fwd and ip6_fwd and charges its cycles and the packets it
 * relays here (dp_node_lend()). No packet is ever enqueued to them; relay4's
 * and relay6's unused edge to them puts them in the graph.
 */
static uint16_t
relay_shortcut_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	RTE_SET_USED(graph);
	RTE_SET_USED(node);
	RTE_SET_USED(objs);
	return n;
}

static struct rte_node_register relay4_shortcut_node = {
	.name = "relay4_shortcut",
	.process = relay_shortcut_process,
};
RTE_NODE_REGISTER(relay4_shortcut_node);

static struct rte_node_register relay6_shortcut_node = {
	.name = "relay6_shortcut",
	.process = relay_shortcut_process,
};
RTE_NODE_REGISTER(relay6_shortcut_node);

static struct rte_node_register relay4_node = {
	.name = "relay4",
	.process = relay4_process,
	.init = relay_node_init,
	.nb_edges = RELAY_NEXT_MAX,
	.next_nodes =
		{
			[RELAY_NEXT_DROP] = "drop",
			[RELAY_NEXT_OUTPUT] = "ip4_output",
			[RELAY_NEXT_SHORTCUT] = "relay4_shortcut",
		},
};
RTE_NODE_REGISTER(relay4_node);

static struct rte_node_register relay6_node = {
	.name = "relay6",
	.process = relay6_process,
	.init = relay_node_init,
	.nb_edges = RELAY_NEXT_MAX,
	.next_nodes =
		{
			[RELAY_NEXT_DROP] = "drop",
			[RELAY_NEXT_OUTPUT] = "ip6_output",
			[RELAY_NEXT_SHORTCUT] = "relay6_shortcut",
		},
};
RTE_NODE_REGISTER(relay6_node);

/* ---- relay_handoff ---- */

enum relay_handoff_next {
	RELAY_HANDOFF_NEXT_RELAY4,
	RELAY_HANDOFF_NEXT_RELAY6,
	RELAY_HANDOFF_NEXT_MAX,
};

static uint16_t
relay_handoff_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct relay_worker *rw = ((struct dp_node_ctx *)node->ctx)->arg;
	void *got[RELAY_PIECE], *v4[RELAY_PIECE], *v6[RELAY_PIECE];
	unsigned int n, i, n4 = 0, n6 = 0;

	RTE_SET_USED(objs);
	RTE_SET_USED(nb_objs);
	if (rw == NULL)
		return 0;
	/* aging without a per-packet timer: a bounded sweep, a few times a millisecond */
	if (unlikely((++rw->calls & (RELAY_TICK_CALLS - 1)) == 0))
		relay_sweep(rw, relay_clock(rw, rte_rdtsc()), RELAY_SWEEP_MAX);
	if (rw->handoff == NULL)
		return 0;
	n = rte_ring_sc_dequeue_burst(rw->handoff, got, RELAY_PIECE, NULL);
	if (n == 0)
		return 0;
	rw->stats.handoffs_in += n;
	for (i = 0; i < n; i++) {
		/*
		 * The dequeue wrote got[0, n); the analyser loses that in DPDK's
		 * unrolled copy (__rte_ring_dequeue_elems_64) and sees garbage.
		 */
		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
		const uint8_t *l3 = rte_pktmbuf_mtod_offset(
			(struct rte_mbuf *)got[i], uint8_t *, RTE_ETHER_HDR_LEN);

		if ((l3[0] >> 4) == 6)
			v6[n6++] = got[i];
		else
			v4[n4++] = got[i];
	}
	dp_node_enqueue(graph, node, RELAY_HANDOFF_NEXT_RELAY4, v4, (uint16_t)n4);
	dp_node_enqueue(graph, node, RELAY_HANDOFF_NEXT_RELAY6, v6, (uint16_t)n6);
	return (uint16_t)n;
}

static struct rte_node_register relay_handoff_node = {
	.name = "relay_handoff",
	.flags = RTE_NODE_SOURCE_F,
	.process = relay_handoff_process,
	.init = relay_node_init,
	.nb_edges = RELAY_HANDOFF_NEXT_MAX,
	.next_nodes =
		{
			[RELAY_HANDOFF_NEXT_RELAY4] = "relay4",
			[RELAY_HANDOFF_NEXT_RELAY6] = "relay6",
		},
};
RTE_NODE_REGISTER(relay_handoff_node);
