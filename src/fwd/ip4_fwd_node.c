/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_fwd
 *   uses: the IPv4 header (after a plain Ethernet header), the IPv4 FIB, the
 *         worker's fast match (dp_fwd_local.h), the local UDP services
 *   sets: dp_mbuf_meta.nh; icmp_type and icmp_code for icmp4_error
 *   next: none for a packet to a resolved next hop (rewritten: MACs, TTL - 1,
 *         checksum, and the 802.1Q tag out of a sub-interface the device does
 *         not tag for (dp_fwd_l2_tagged_write(), txq_tagged); put in the
 *         worker's TX buffer) or one the fast match took;
 *         ip4_output (next hop not resolved); a local service's node for a
 *         UDP datagram to the router and a claimed port; ip4_local (the rest
 *         to the router, and 224.0.0.0/24 in a multicast frame); icmp4_error
 *         (ip4_no_route, ip4_ttl_exceeded, ip4_frag_needed: larger than the
 *         next hop's MTU with DF set); ip4_frag (larger than the next hop's
 *         MTU, DF clear); drop (ip4_truncated,
 *         ip4_bad_version, ip4_bad_ihl, ip4_bad_length,
 *         ip4_bad_cksum, ip4_martian)
 *
 * Checks follow RFC 1812 5.2.2; the TTL (5.3.1) only for packets forwarded.
 * Fused for speed, as l3fwd: lookup, rewrite and the TX buffer in one pass, so
 * each packet is written once; TX bursts are timed and charged to port_tx.
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
#include "dp_port.h"
#include "fwd_fp.h"
#include "fwd_local_priv.h"
#include "graph_fp.h"
#include "group_fp.h"

/* the lookup's result for a miss */
#define NO_ROUTE DP_FWD_NO_ROUTE

enum ip4_fwd_next {
	IP4_FWD_NEXT_DROP,
	IP4_FWD_NEXT_OUTPUT,
	IP4_FWD_NEXT_LOCAL,
	IP4_FWD_NEXT_ICMP_ERROR,
	IP4_FWD_NEXT_FRAG,
	IP4_FWD_NEXT_MAX, /* then the local services' (fwd_local_priv.h) */
};
_Static_assert(IP4_FWD_NEXT_MAX == FWD_LOCAL_IP4_FWD_BASE, "services after the node's edges");

/* RFC 1812 5.3.7 and RFC 6890: never forwarded (multicast: no multicast routing here). */
const bool dp_fwd_ip4_martian_octet[256] = {
	[0] = true,
	[127] = true,
	[224 ... 255] = true,
};

static __rte_always_inline bool
ip4_martian(uint32_t src, uint32_t dst)
{
	return dp_fwd_ip4_martian_octet[src >> 24] | dp_fwd_ip4_martian_octet[dst >> 24];
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

/* To 224.0.0.0/24 (dp_ip4_link_local_group()) in a multicast frame, from a valid source:
 * for the router itself (ip4_local), never forwarded. */
static inline bool
ip4_to_link_local_group(const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip)
{
	return dp_ip4_link_local_group(rte_be_to_cpu_32(ip->dst_addr)) &&
	       !dp_fwd_ip4_martian_octet[rte_be_to_cpu_32(ip->src_addr) >> 24] &&
	       (rte_pktmbuf_mtod(m, const uint8_t *)[0] & 1) != 0;
}

/* The slow path for one packet the fast pass refused: the exact reason, counted. */
static __rte_noinline rte_edge_t
ip4_fwd_slow(struct dp_worker *w, struct rte_mbuf *m, bool cksum_check, int meta_off)
{
	const struct rte_ipv4_hdr *ip = NULL;
	enum dp_drop_reason why = ip4_check(cksum_check, w->rx_ip4_cksum, m, &ip);
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);
	uint32_t nh;

	if (why == DP_DROP_IP4_MARTIAN && ip4_to_link_local_group(m, ip))
		return IP4_FWD_NEXT_LOCAL;
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
 * A packet for one of the router's addresses that passed the fast checks
 * (option-less header, whole): a UDP datagram, not a fragment, to a claimed
 * port goes to its service at once; anything else to ip4_local.
 */
static __rte_always_inline rte_edge_t
ip4_fwd_local(const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint8_t svc;

	if (!ip4_udp_whole(m))
		return IP4_FWD_NEXT_LOCAL;
	svc = dp_fwd_local_udp4_service(ip);
	return svc != 0 ? fwd_local_edge(IP4_FWD_NEXT_MAX, svc) : IP4_FWD_NEXT_LOCAL;
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
 * A packet whose frame is longer than next hop @p h's MTU allows (checked,
 * its header whole). Bytes after the IP datagram (Ethernet padding or
 * trailing junk) are cut, and if it then fits it goes on: IP4_FWD_NEXT_OUTPUT.
 * Larger: with DF set, a drop and an ICMP "fragmentation needed" carrying the
 * MTU (RFC 1191: icmp4_error reads it from meta.nh); without, ip4_frag cuts it.
 */
static __rte_noinline rte_edge_t
ip4_fwd_too_big(struct dp_worker *w, struct rte_mbuf *m, uint32_t h, int meta_off)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const uint16_t tlen = rte_be_to_cpu_16(ip->total_length);
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);

	meta->nh = h;
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN - tlen));
	if (tlen <= dp_fwd.nh[h].mtu)
		return IP4_FWD_NEXT_OUTPUT;
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG)) {
		w->stats.drops[DP_DROP_IP4_FRAG_NEEDED]++;
		meta->icmp_type = DP_ICMP4_DEST_UNREACH;
		meta->icmp_code = DP_ICMP4_UNREACH_FRAG_NEEDED;
		return IP4_FWD_NEXT_ICMP_ERROR;
	}
	return IP4_FWD_NEXT_FRAG;
}

/*
 * One packet after the lookup (@p hop its answer, @p ok the fast checks'):
 * to a resolved next hop, rewritten and put in the TX buffer; else into
 * @p other with its edge (the reason counted). With @p local_inline (a fast
 * match is on: its service's datagrams it left come here), a datagram for the
 * router that is checked and sure is told apart here, without the call;
 * forwarding alone keeps the call, out of its loop. @p mtu_check: the ports'
 * MTUs differ (with one MTU, port_rx's check is enough).
 */
static __rte_always_inline void
ip4_fwd_one(struct dp_worker *w, struct rte_mbuf *m, bool ok, uint64_t hop, uint32_t dst,
	bool unsure, const bool cksum_check, const bool local_inline, bool mtu_check,
	const struct dp_fwd_nh *nh_table, int meta_off, uint16_t burst, void **other,
	rte_edge_t *other_next, uint16_t *nb_other)
{
	const struct dp_fwd_nh *nh;
	uint32_t h = (uint32_t)hop;

	/* forwarded: neither LOCAL (0) nor NO_ROUTE, in one compare */
	if (unlikely(!ok || h - 1 >= NO_ROUTE - 1)) {
		rte_edge_t e;

		e = local_inline && ok && h == DP_FWD_NH_LOCAL && !unsure
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
		/* an ECMP group: the member of the packet's flow (group_fp.h) */
		h = dp_fwd_group_hop(nh_table, h, m, false);
		nh = &nh_table[h];
	}
	if (mtu_check && unlikely(m->pkt_len > (uint32_t)nh->mtu + RTE_ETHER_HDR_LEN)) {
		rte_edge_t e = ip4_fwd_too_big(w, m, h, meta_off);

		if (e != IP4_FWD_NEXT_OUTPUT) {
			other[*nb_other] = m;
			other_next[(*nb_other)++] = e;
			return;
		}
	}
	if (unlikely(!(nh->flags & DP_FWD_NH_F_RESOLVED))) {
		/* held or punted by ip4_output until the neighbor answers */
		dp_mbuf_meta(m, meta_off)->nh = h;
		other[*nb_other] = m;
		other_next[(*nb_other)++] = IP4_FWD_NEXT_OUTPUT;
		return;
	}
	/* out of a sub-interface: the tag with the MACs, to the buffer sent as it is */
	if (unlikely(nh->flags & DP_FWD_NH_F_TAGGED) && dp_mbuf_tag_fits(m)) {
		dp_fwd_ip4_rewrite_tagged(nh, m);
		dp_txq_append(w, w->txq_tagged[nh->port], m, burst);
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
 * simple enough to overlap packets. @p local_inline: after a fast match
 * (ip4_fwd_one()).
 */
static __rte_always_inline void
ip4_fwd_lookup_send(struct rte_graph *graph, struct rte_node *node, struct rte_mbuf **pkts,
	const uint16_t *rest, uint16_t n, const bool cksum_check, const bool ck_flags,
	const bool local_inline)
{
	struct dp_worker *w = dp_node_worker(node);
	const struct dp_fwd_nh *nh_table = dp_fwd.nh;
	const int meta_off = dp_mbuf_meta_offset;
	const uint16_t burst = w->burst;
	uint32_t dst[RTE_GRAPH_BURST_SIZE];
	uint64_t hop[RTE_GRAPH_BURST_SIZE];
	void *other[RTE_GRAPH_BURST_SIZE];
	rte_edge_t other_next[RTE_GRAPH_BURST_SIZE];
	const bool mtu_check = !dp_port_mtu_uniform;
	uint16_t i, nb_other = 0;
	bool unsure;

	for (i = 0; i < n; i++)
		dst[i] = ip4_dst(pkts[rest != NULL ? rest[i] : i]);
	/* raw: a LOCAL answer is confirmed in ip4_fwd_other() when a route
	 * change ran during the lookup */
	unsure = dp_fwd_lookup4_raw(dst, hop, n);
	if (unlikely(__atomic_load_n(&dp_fwd_groups_made, __ATOMIC_RELAXED)))
		dp_fwd_groups_resolve(nh_table, pkts, rest, hop, n, NO_ROUTE, false);
	for (i = 0; i < n; i++) {
		const uint16_t k = rest != NULL ? rest[i] : i;

		ip4_fwd_one(w, pkts[k], ip4_fast(cksum_check, ck_flags, pkts[k]), hop[i], dst[i],
			unsure, cksum_check, local_inline, mtu_check, nh_table, meta_off, burst,
			other, other_next, &nb_other);
	}
	dp_node_enqueue_each(graph, node, other, other_next, nb_other);
}

/* ip4_fwd_lookup_send() over a burst of @p nb_objs; @return nb_objs. */
static __rte_always_inline uint16_t
ip4_fwd_burst(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	const uint16_t *rest, uint16_t n, const bool cksum_check, const bool ck_flags,
	const bool local_inline)
{
	ip4_fwd_lookup_send(graph, node, (struct rte_mbuf **)objs, rest, n, cksum_check, ck_flags,
		local_inline);
	return nb_objs;
}

/*
 * ip4_fwd_burst() specialised on the worker's checksum choices: each
 * combination is its own copy of the loop (the compiler makes them), so that
 * neither choice is read again per packet.
 */
static __rte_always_inline uint16_t
ip4_fwd_run(const struct dp_worker *w, struct rte_graph *graph, struct rte_node *node, void **objs,
	uint16_t nb_objs, const uint16_t *rest, uint16_t n, const bool local_inline)
{
	if (w->ip4_cksum_check)
		return w->rx_ip4_cksum ? ip4_fwd_burst(graph, node, objs, nb_objs, rest, n, true,
						 true, local_inline)
				       : ip4_fwd_burst(graph, node, objs, nb_objs, rest, n, true,
						 false, local_inline);
	return w->rx_ip4_cksum ? ip4_fwd_burst(graph, node, objs, nb_objs, rest, n, false, true,
					 local_inline)
			       : ip4_fwd_burst(graph, node, objs, nb_objs, rest, n, false, false,
					 local_inline);
}

/* The loops after a fast match: a function of their own, so that forwarding's
 * loops and their stack frame stay as they are without one. A burst's packets
 * the fast match took leave before the others; each flow's keep their order. */
static __rte_noinline uint16_t
ip4_fwd_match_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	const struct dp_fwd_fast_match *fm)
{
	struct dp_worker *w = dp_node_worker(node);
	uint16_t rest[RTE_GRAPH_BURST_SIZE];
	uint16_t n;

	n = dp_fwd_fast_match_run(w, fm, (struct rte_mbuf **)objs, nb_objs, rest);
	if (n == 0)
		return nb_objs;
	return ip4_fwd_run(w, graph, node, objs, nb_objs, rest, n, true);
}

static uint16_t
ip4_fwd_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	const struct dp_fwd_fast_match *fm = ((struct dp_node_ctx *)node->ctx)->arg;
	struct dp_worker *w = dp_node_worker(node);

	if (fm != NULL)
		return ip4_fwd_match_process(graph, node, objs, nb_objs, fm);
	/* forwarding: the whole burst, in order */
	return ip4_fwd_run(w, graph, node, objs, nb_objs, NULL, nb_objs, false);
}

static int
ip4_fwd_init(const struct rte_graph *graph, struct rte_node *node)
{
	return fwd_local_node_init(graph, node, false);
}

static struct rte_node_register ip4_fwd_node = {
	.name = "ip4_fwd",
	.process = ip4_fwd_process,
	.init = ip4_fwd_init,
	.nb_edges = IP4_FWD_NEXT_MAX,
	.next_nodes = {
		[IP4_FWD_NEXT_DROP] = "drop",
		[IP4_FWD_NEXT_OUTPUT] = "ip4_output",
		[IP4_FWD_NEXT_LOCAL] = "ip4_local",
		[IP4_FWD_NEXT_ICMP_ERROR] = "icmp4_error",
		[IP4_FWD_NEXT_FRAG] = "ip4_frag",
	},
};

RTE_NODE_REGISTER(ip4_fwd_node);
