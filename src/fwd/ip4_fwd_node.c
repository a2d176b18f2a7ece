/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_fwd
 *   uses: IPv4 header (after a plain Ethernet header), the IPv4 FIB
 *   sets: dp_mbuf_meta.nh (next hop index); icmp_type and icmp_code for
 *         icmp4_error
 *   next: none for packets whose next hop is resolved: the rewrite is done
 *         here (MACs, TTL - 1, checksum) and the packet put in the worker's
 *         TX buffer for the port (dp_txq_append); ip4_output for the rest
 *         (next hop not resolved yet); ip4_local (the route is the router
 *         itself), or straight relay4 / endpoint4_rx for a UDP datagram (not
 *         a fragment) to a port they take, as ip4_local would decide
 *         (dp_fwd_local_udp4_service: one node less on the relay's path);
 *         none for a relay datagram of a session the relay's exact-match
 *         cache holds ready (relay4 sent with it this second, no route or
 *         next hop changed since): rewritten here as relay4 would
 *         (relay_fp.h) and put in the TX buffer;
 *         icmp4_error after counting ip4_no_route or
 *         ip4_ttl_exceeded (the packet is dropped, the error is a new packet
 *         in its mbuf); or drop (ip4_truncated, ip4_bad_version, ip4_bad_ihl,
 *         ip4_bad_length, ip4_bad_cksum, ip4_martian)
 *
 * Header checks follow RFC 1812 section 5.2.2; the TTL check (5.3.1) applies
 * only to packets being forwarded, so it comes after the lookup. Three passes
 * over the burst: the destination addresses, one bulk lookup, then per packet
 * the fast checks and either the rewrite and TX or, for a packet the fast
 * checks refused or the lookup did not forward, ip4_fwd_other() (the exact
 * reason, counted, or local). The checks are in the last pass, not the first:
 * it reads the mbuf and the header for the rewrite anyway; in the first, the
 * second reading cost ~1.5 cycles/packet on the 64 B rig (side by side,
 * 3 rounds, -0.8 to -2.5, with or without the checksum check; also for the
 * relay). The lookup of a packet that fails them is not used.
 * With the relay on, the lookup comes after two passes of the relay's: the
 * first, for UDP datagrams to an address that may be the relay's
 * (relay_addr_maybe()), checks what the cache needs of the header and
 * prefetches the cache entries their keys map to (dp_relay4_key()); the
 * second relays those the cache has ready (dp_relay4_shortcut(), from the
 * cache entry alone: relay_priv.h) and gathers the others, which alone are
 * looked up (none at all when the shortcut takes the whole burst) and then
 * checked and forwarded as above. A cache entry's local address is a
 * relay's, a port address, which route.c keeps the router's own for as long
 * as dpfwd runs: skipping the lookup is right.
 * A burst's relayed packets leave before its forwarded ones; each flow's in
 * the order they came. The relay's steady state skips relay4: 69.5 -> 64
 * busy cycles a relayed packet on the 64 B rig, as the node stage (call,
 * stream, second parse) is gone; the prefetching passes and the direction's
 * copy in the cache entry (no session line to read), 59.9 -> 57.6; the cache
 * before the lookup, 60.4 -> 54.8; the match and the relaying in one pass
 * (the key read again from the packet, not kept), the CRC instruction without
 * DPDK's per-call choice of code, a known header length and the shorter
 * header checksum test, 60.1 -> 55.5 (side by side, 3 rounds each, medians;
 * the whole machine ran slower that day). Without the prefetch, 6 cycles
 * more. Two things tried that did not help: the relayed packets' sends
 * gathered and appended by runs of one port (+1.5), and the TX buffer's count
 * kept in a register across a run (forwarding +0.8 to +3.3). Everything else
 * of the relay (new sessions, misses, expiry, the LRU move once a second,
 * next hops to look up, hand-offs) stays in relay4.
 *
 * Why the rewrite and TX are here and not in ip4_output and port_tx: in the
 * common case (next hops resolved) two more nodes would walk the burst again,
 * reading back meta.nh, splitting it by port and copying it into the TX
 * buffers; done here, as l3fwd does, each packet is written once into its
 * port's buffer. Measured on the 64 B pcap rig: ~4 cycles/packet for the
 * rewrite (an earlier session), ~3.5 more for TX. So port_tx-<i>'s cycles in
 * the node table are those of the other senders (ip4_output, ICMP, relay,
 * endpoints), and ip4_fwd's include the TX burst of forwarded packets.
 * Packets forwarded after the slow path's closer look (IP options) are
 * appended in the same loop, so a port's packets leave in the order they came.
 * ip4_output stays the rewrite for everything else (unresolved next hops,
 * packets the router makes itself).
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_cksum.h"
#include "dp_config.h"
#include "dp_fwd.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_icmp4.h"
#include "dp_mem.h"
#include "graph_fp.h"
#include "relay_fp.h"

/* the lookup's result for a miss */
#define NO_ROUTE DP_FWD_NO_ROUTE

enum ip4_fwd_next {
	IP4_FWD_NEXT_DROP,
	IP4_FWD_NEXT_OUTPUT,
	IP4_FWD_NEXT_LOCAL,
	IP4_FWD_NEXT_ICMP_ERROR,
	IP4_FWD_NEXT_RELAY,
	IP4_FWD_NEXT_ENDPOINT,
	IP4_FWD_NEXT_MAX,
};

/* RFC 1812 5.3.7 and RFC 6890: never forwarded (multicast: no multicast routing here).
 * By first octet: 0/8, 127/8, 224/4 and 240/4. */
static const bool ip4_martian_octet[256] = {
	[0] = true,
	[127] = true,
	[224 ... 255] = true,
};

static __rte_always_inline bool
ip4_martian(uint32_t src, uint32_t dst)
{
	return ip4_martian_octet[src >> 24] | ip4_martian_octet[dst >> 24];
}

/* Validate one header; returns DP_DROP_MAX when it may be forwarded. The
 * mbuf's checksum flag counts only with @p ck_flags (as in ip4_fast()). */
static __rte_always_inline enum dp_drop_reason
ip4_check(const bool cksum_check, const bool ck_flags, struct rte_mbuf *m,
	const struct rte_ipv4_hdr **hp)
{
	const struct rte_ipv4_hdr *ip;
	uint32_t avail, ihl, tlen;
	uint64_t ck;

	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip)))
		return DP_DROP_IP4_TRUNCATED;
	avail = m->data_len - RTE_ETHER_HDR_LEN;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	*hp = ip;
	if (unlikely((ip->version_ihl >> 4) != 4))
		return DP_DROP_IP4_VERSION;
	ihl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	if (unlikely(ihl < sizeof(*ip) || ihl > avail))
		return DP_DROP_IP4_IHL;
	tlen = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(tlen < ihl || tlen > avail))
		return DP_DROP_IP4_LEN;
	ck = ck_flags ? m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK : RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN;
	if (unlikely(ck == RTE_MBUF_F_RX_IP_CKSUM_BAD))
		return DP_DROP_IP4_CKSUM;
	if (ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD && cksum_check &&
		unlikely(dp_cksum_ip4_hdr_sum(ip, ihl / 4) != 0xffff))
		return DP_DROP_IP4_CKSUM;
	if (unlikely(ip4_martian(rte_be_to_cpu_32(ip->src_addr), rte_be_to_cpu_32(ip->dst_addr))))
		return DP_DROP_IP4_MARTIAN;
	return DP_DROP_MAX;
}

/* The slow path for one packet the fast pass refused: the exact reason, counted. */
static __rte_noinline rte_edge_t
ip4_fwd_slow(struct dp_worker *w, struct rte_mbuf *m, bool cksum_check, int meta_off)
{
	const struct rte_ipv4_hdr *ip = NULL;
	enum dp_drop_reason why = ip4_check(cksum_check, w->rx_ip4_cksum, m, &ip);
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);
	uint32_t nh;

	if (why != DP_DROP_MAX) {
		w->stats.drops[why]++;
		return IP4_FWD_NEXT_DROP;
	}
	nh = dp_fwd_lookup4(rte_be_to_cpu_32(ip->dst_addr));
	if (nh == NO_ROUTE) {
		why = DP_DROP_IP4_NO_ROUTE;
		meta->icmp_type = DP_ICMP4_DEST_UNREACH;
		meta->icmp_code = DP_ICMP4_UNREACH_NET;
	} else if (nh == DP_FWD_NH_LOCAL) {
		return IP4_FWD_NEXT_LOCAL;
	} else if (ip->time_to_live <= 1) {
		why = DP_DROP_IP4_TTL;
		meta->icmp_type = DP_ICMP4_TIME_EXCEEDED;
		meta->icmp_code = DP_ICMP4_EXC_TTL;
	} else {
		meta->nh = nh;
		return IP4_FWD_NEXT_OUTPUT;
	}
	/* the packet is not forwarded (counted); icmp4_error decides whether an
	 * error goes back and makes it in this mbuf (RFC 1812 4.3.2) */
	w->stats.drops[why]++;
	return IP4_FWD_NEXT_ICMP_ERROR;
}

/*
 * The fast pass over one packet: an option-less IPv4 header that is whole,
 * valid, not martian, with TTL > 1. Anything else (options included) takes
 * ip4_fwd_slow(), which checks everything in RFC order and counts the reason.
 * The header is read even when the frame is shorter than it (inside the mbuf's
 * data room); the length test discards the result.
 *
 * The checksum: with @p ck_flags (a port of the worker has the NIC check it),
 * the mbuf's flag says good, bad (a drop) or unknown; with @p cksum_check, an
 * unknown one is summed here. Without the offload the flag is not read (no
 * PMD sets it then): side by side on the 64 B rig, 6 rounds, 39.3 -> 38.8
 * busy cycles/packet.
 *
 * With @p to_self, the checks a datagram needs before the relay's cache may
 * take it: neither the TTL (it matters only to a packet being forwarded; the
 * relay writes its own) nor the martian test, which depends on the addresses
 * alone, and they are in the cache's key: an entry is ready only after relay4
 * sent a packet of its key, and every packet relay4 gets passed the test
 * (ip4_fwd_slow() or this one without @p to_self). A packet the cache does
 * not take is checked again in full. Side by side on the relay rig, 12
 * rounds: -4.4 % cycles a relayed packet.
 */
static __rte_always_inline bool
ip4_fast_to(
	const bool cksum_check, const bool ck_flags, const bool to_self, const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	const uint64_t ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	/* signed: with 20 <= tlen <= avail, the frame holds a whole header */
	const int32_t avail = (int32_t)m->data_len - RTE_ETHER_HDR_LEN;
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
	     (to_self ||
		     (ip[8] > 1 && !(ip4_martian_octet[s & 0xff] | ip4_martian_octet[d & 0xff])));
	if (cksum_check)
		ok = ok &&
		     ((ck_flags && ck == RTE_MBUF_F_RX_IP_CKSUM_GOOD) || dp_cksum_ip4_hdr20_ok(ip));
	return ok;
}

static __rte_always_inline bool
ip4_fast(const bool cksum_check, const bool ck_flags, const struct rte_mbuf *m)
{
	return ip4_fast_to(cksum_check, ck_flags, false, m);
}

/* The destination address to look up, checked or not (the lookup of a
 * packet that fails the checks is not used). */
static __rte_always_inline uint32_t
ip4_dst(const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint32_t d;

	memcpy(&d, ip + 16, sizeof(d));
	return rte_be_to_cpu_32(d);
}

/* A UDP datagram, not a fragment (the header passed the fast checks). */
static __rte_always_inline bool
ip4_udp_whole(const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint16_t frag;

	memcpy(&frag, ip + 6, sizeof(frag));
	return ip[9] == IPPROTO_UDP &&
	       !(frag & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK));
}

/*
 * A packet for one of the router's addresses that passed the fast checks
 * (option-less header, whole): a UDP datagram, not a fragment, for the relay
 * or an endpoint goes to it at once; anything else to ip4_local.
 */
static __rte_always_inline rte_edge_t
ip4_fwd_local(const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);

	if (!ip4_udp_whole(m))
		return IP4_FWD_NEXT_LOCAL;
	switch (dp_fwd_local_udp4_service(ip)) {
	case DP_FWD_LOCAL_UDP_RELAY:
		return IP4_FWD_NEXT_RELAY;
	case DP_FWD_LOCAL_UDP_ENDPOINT:
		return IP4_FWD_NEXT_ENDPOINT;
	default:
		return IP4_FWD_NEXT_LOCAL;
	}
}

/*
 * A packet the fast test did not pass (a failed check, no route, the router's
 * own address, a LOCAL answer to confirm after a route change, IP options):
 * its edge, the reason counted. IP4_FWD_NEXT_OUTPUT comes with meta.nh set,
 * for the caller to rewrite and send like any other when the hop is resolved.
 */
static __rte_noinline rte_edge_t
ip4_fwd_other(struct dp_worker *w, struct rte_mbuf *m, bool ok, uint64_t hop, uint32_t dst,
	bool unsure, bool cksum_check, int meta_off)
{
	if (unlikely(unsure) && hop == DP_FWD_NH_LOCAL)
		hop = dp_fwd_lookup4(dst);
	if (!ok || hop == NO_ROUTE)
		return ip4_fwd_slow(w, m, cksum_check, meta_off);
	if (hop == DP_FWD_NH_LOCAL)
		return ip4_fwd_local(m);
	dp_mbuf_meta(m, meta_off)->nh = (uint32_t)hop;
	return IP4_FWD_NEXT_OUTPUT;
}

/*
 * One packet after the lookup (@p hop its answer, @p ok the fast checks'):
 * to a resolved next hop, rewritten and put in the TX buffer; else into
 * @p other with its edge (the reason counted). With @p relay_on, a datagram
 * for the router itself that is checked and sure is told apart here, without
 * the call (the relay's datagrams the shortcut left); forwarding alone keeps
 * the call (inlined, it cost forwarded packets ~0.8 cycles).
 */
static __rte_always_inline void
ip4_fwd_one(struct dp_worker *w, struct rte_mbuf *m, bool ok, uint64_t hop, uint32_t dst,
	bool unsure, const bool cksum_check, const bool relay_on, const struct dp_fwd_nh *nh_table,
	int meta_off, uint16_t burst, void **other, rte_edge_t *other_next, uint16_t *nb_other)
{
	const struct dp_fwd_nh *nh;
	uint32_t h = (uint32_t)hop;

	/* forwarded: neither LOCAL (0) nor NO_ROUTE, in one compare */
	if (unlikely(!ok || h - 1 >= NO_ROUTE - 1)) {
		rte_edge_t e;

		e = relay_on && ok && h == DP_FWD_NH_LOCAL && !unsure
			    ? ip4_fwd_local(m)
			    : ip4_fwd_other(w, m, ok, hop, dst, unsure, cksum_check, meta_off);
		if (e != IP4_FWD_NEXT_OUTPUT) {
			other[*nb_other] = m;
			other_next[(*nb_other)++] = e;
			return;
		}
		h = dp_mbuf_meta(m, meta_off)->nh;
	}
	nh = &nh_table[h];
	if (unlikely(!(nh->flags & DP_FWD_NH_F_RESOLVED))) {
		/* held or punted by ip4_output until the neighbor answers */
		dp_mbuf_meta(m, meta_off)->nh = h;
		other[*nb_other] = m;
		other_next[(*nb_other)++] = IP4_FWD_NEXT_OUTPUT;
		return;
	}
	dp_fwd_ip4_rewrite(nh, rte_pktmbuf_mtod(m, struct rte_ether_hdr *));
	dp_txq_append(w, w->txq_cfg[nh->port], m, burst);
}

/*
 * The lookup and the verdicts of @p n packets of a burst:
 * pkts[rest[i]] (without @p rest, all of them in order), checked here, in the
 * pass that reads the header again anyway for the rewrite. The addresses, one
 * bulk lookup, then per packet the rewrite and TX or another node: each pass
 * simple enough to overlap packets. @p relay_on: with the relay's shortcut
 * (ip4_fwd_one()).
 */
static __rte_always_inline void
ip4_fwd_lookup_send(struct rte_graph *graph, struct rte_node *node, struct rte_mbuf **pkts,
	const uint16_t *rest, uint16_t n, const bool cksum_check, const bool ck_flags,
	const bool relay_on)
{
	struct dp_worker *w = dp_node_worker(node);
	const struct dp_fwd_nh *nh_table = dp_fwd.nh;
	const int meta_off = dp_mbuf_meta_offset;
	const uint16_t burst = w->burst;
	uint32_t dst[RTE_GRAPH_BURST_SIZE];
	uint64_t hop[RTE_GRAPH_BURST_SIZE];
	void *other[RTE_GRAPH_BURST_SIZE];
	rte_edge_t other_next[RTE_GRAPH_BURST_SIZE];
	uint16_t i, nb_other = 0;
	bool unsure;

	for (i = 0; i < n; i++)
		dst[i] = ip4_dst(pkts[rest != NULL ? rest[i] : i]);
	/* raw: a LOCAL answer is confirmed in ip4_fwd_other() when a route
	 * change ran during the lookup */
	unsure = dp_fwd_lookup4_raw(dst, hop, n);
	for (i = 0; i < n; i++) {
		const uint16_t k = rest != NULL ? rest[i] : i;

		ip4_fwd_one(w, pkts[k], ip4_fast(cksum_check, ck_flags, pkts[k]), hop[i], dst[i],
			unsure, cksum_check, relay_on, nh_table, meta_off, burst, other, other_next,
			&nb_other);
	}
	dp_node_enqueue_each(graph, node, other, other_next, nb_other);
}

/* Forwarding: the whole burst to ip4_fwd_lookup_send(). */
static __rte_always_inline uint16_t
ip4_fwd_burst(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	const bool cksum_check, const bool ck_flags)
{
	ip4_fwd_lookup_send(
		graph, node, (struct rte_mbuf **)objs, NULL, nb_objs, cksum_check, ck_flags, false);
	return nb_objs;
}

/*
 * With the relay on: a pass picks the UDP datagrams to an address that may be
 * the relay's, checks their headers as far as the cache needs
 * (ip4_fast_to()) and prefetches the cache entries their keys map to
 * (dp_relay4_key()); a second relays those the cache has ready
 * (dp_relay4_shortcut()) and gathers the others, which alone are looked up
 * (none when the shortcut takes the whole burst, the relay rig's steady
 * state) and then checked in full and forwarded as without the relay. So a
 * burst's relayed packets leave before its forwarded ones; each flow's keep
 * their order. The first pass keeps no verdict for the others (a flag per
 * packet kept, and the full checks, cost the relayed packet ~1.8 % and ~4.4 %
 * side by side); in it, the entry is stored after the packet's last read: a
 * store may alias the packet's bytes, which the compiler would then read
 * again.
 */
static __rte_always_inline uint16_t
ip4_fwd_relay_burst(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	const bool cksum_check, const bool ck_flags, struct relay_worker *rw)
{
	struct dp_worker *w = dp_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	const void *ent[RTE_GRAPH_BURST_SIZE]; /* cache entries, NULL: not the relay's */
	uint16_t rest[RTE_GRAPH_BURST_SIZE];   /* the places of the packets the shortcut left */
	const struct relay_emc_entry *emc = rw->emc;
	const uint32_t mask = rw->emc_mask;
	const uint64_t addrs4 = rw->addrs4;
	uint16_t i, nb_rest;

	for (i = 0; i < nb_objs; i++) {
		struct rte_mbuf *m = pkts[i];
		const void *e = relay_addr_maybe(addrs4, ip4_dst(m)) &&
						ip4_fast_to(cksum_check, ck_flags, true, m) &&
						ip4_udp_whole(m)
					? dp_relay4_key(emc, mask, m)
					: NULL;

		ent[i] = e;
	}
	nb_rest = dp_relay_shortcut_pass(w, rw, pkts, nb_objs, ent, false, rest);
	if (nb_rest == 0)
		return nb_objs;
	ip4_fwd_lookup_send(graph, node, pkts, rest, nb_rest, cksum_check, ck_flags, true);
	return nb_objs;
}

/* The loops with the relay's shortcut: a function of their own, so that
 * forwarding's loops and their stack frame stay as they are without it. */
static __rte_noinline uint16_t
ip4_fwd_relay_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	struct relay_worker *rw)
{
	const struct dp_worker *w = dp_node_worker(node);

	if (w->ip4_cksum_check)
		return w->rx_ip4_cksum
			       ? ip4_fwd_relay_burst(graph, node, objs, nb_objs, true, true, rw)
			       : ip4_fwd_relay_burst(graph, node, objs, nb_objs, true, false, rw);
	return w->rx_ip4_cksum ? ip4_fwd_relay_burst(graph, node, objs, nb_objs, false, true, rw)
			       : ip4_fwd_relay_burst(graph, node, objs, nb_objs, false, false, rw);
}

static uint16_t
ip4_fwd_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct relay_worker *rw = ((struct dp_node_ctx *)node->ctx)->arg;

	struct dp_worker *w = dp_node_worker(node);

	/* copies of the loop, so the checksum and relay choices are not re-read
	 * per packet */
	if (rw != NULL)
		return ip4_fwd_relay_process(graph, node, objs, nb_objs, rw);
	if (w->ip4_cksum_check)
		return w->rx_ip4_cksum ? ip4_fwd_burst(graph, node, objs, nb_objs, true, true)
				       : ip4_fwd_burst(graph, node, objs, nb_objs, true, false);
	return w->rx_ip4_cksum ? ip4_fwd_burst(graph, node, objs, nb_objs, false, true)
			       : ip4_fwd_burst(graph, node, objs, nb_objs, false, false);
}

static struct rte_node_register ip4_fwd_node = {
	.name = "ip4_fwd",
	.process = ip4_fwd_process,
	.init = dp_relay_node_init, /* the worker, its relay state */
	.nb_edges = IP4_FWD_NEXT_MAX,
	.next_nodes = {
		[IP4_FWD_NEXT_DROP] = "drop",
		[IP4_FWD_NEXT_OUTPUT] = "ip4_output",
		[IP4_FWD_NEXT_LOCAL] = "ip4_local",
		[IP4_FWD_NEXT_ICMP_ERROR] = "icmp4_error",
		[IP4_FWD_NEXT_RELAY] = "relay4",
		[IP4_FWD_NEXT_ENDPOINT] = "endpoint4_rx",
	},
};

RTE_NODE_REGISTER(ip4_fwd_node);
