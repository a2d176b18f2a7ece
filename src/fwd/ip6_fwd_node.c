/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip6_fwd
 *   uses: IPv6 header (after a plain Ethernet header), the fib6 table
 *   sets: dp_mbuf_meta.nh (next hop index); icmp_type/icmp_code for icmp6_error
 *   next: none when the next hop is resolved (MACs and hop limit - 1 written
 *         here, the 802.1Q tag out of a sub-interface, into the worker's TX
 *         buffer, as ip4_fwd does) or the worker's
 *         fast match took the packet (dp_fwd_local.h); ip6_output for the
 *         rest; a service's node (UDP to the router, a claimed port);
 *         ip6_local (the rest to the router's addresses and groups);
 *         icmp6_error (hop limit exceeded, no route, larger than the next
 *         hop's MTU: counted as dropped, the error built from it); drop (the
 *         ip6_* reasons)
 *
 * Checks follow RFC 8200 and RFC 4291: version 6, a payload inside the frame,
 * no multicast, unspecified or loopback source, no unspecified or loopback
 * destination, link-local addresses never forwarded (2.5.6), multicast only
 * for the router's own groups and, when a service takes the rest (Linux), the
 * link-scope ones (no multicast routing). The hop limit (RFC 8200
 * 3) matters only for packets being forwarded, so it comes after the lookup.
 *
 * Extension headers are not parsed on the way through: a router forwards them
 * as they are (RFC 8200 4), except Hop-by-Hop Options, which every node on the
 * path must process; we do not, so those packets (next header 0) are dropped
 * (ip6_hbh), as RFC 8200 4.3's note on routers that skip them permits.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_fib6.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_fwd_local.h"
#include "dp_icmp6.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "fwd_fp.h"
#include "fwd_local_priv.h"
#include "graph_fp.h"
#include "group_fp.h"

enum ip6_fwd_next {
	IP6_FWD_NEXT_DROP,
	IP6_FWD_NEXT_OUTPUT,
	IP6_FWD_NEXT_LOCAL,
	IP6_FWD_NEXT_ICMP,
	IP6_FWD_NEXT_MAX, /* then the local services' (fwd_local_priv.h) */
};
_Static_assert(IP6_FWD_NEXT_MAX == FWD_LOCAL_IP6_FWD_BASE, "services after the node's edges");

/* Ask icmp6_error for an error about @p m; the packet itself is a drop (@p why). */
static __rte_always_inline rte_edge_t
ip6_fwd_icmp(struct dp_worker *w, struct dp_mbuf_meta *meta, enum dp_drop_reason why, uint8_t type,
	uint8_t code)
{
	w->stats.drops[why]++;
	meta->icmp_type = type;
	meta->icmp_code = code;
	return IP6_FWD_NEXT_ICMP;
}

/* The slow path for one packet the fast pass refused: the exact reason, counted. */
static __rte_noinline rte_edge_t
ip6_fwd_slow(struct dp_worker *w, struct rte_mbuf *m, uint64_t hop, int meta_off)
{
	const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eth + RTE_ETHER_HDR_LEN);
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);
	enum dp_drop_reason why;
	uint64_t shi, slo, dhi, dlo;

	if (unlikely(m->data_len < IP6_ETH_HLEN)) {
		why = DP_DROP_IP6_TRUNCATED;
		goto drop;
	}
	if ((ip->vtc_flow & RTE_BE32(0xf0000000)) != RTE_BE32(0x60000000)) {
		why = DP_DROP_IP6_VERSION;
		goto drop;
	}
	if (IP6_HLEN + rte_be_to_cpu_16(ip->payload_len) > m->pkt_len - RTE_ETHER_HDR_LEN) {
		why = DP_DROP_IP6_LEN;
		goto drop;
	}
	ip6_addr_words(ip->src_addr, &shi, &slo);
	ip6_addr_words(ip->dst_addr, &dhi, &dlo);
	if (ip6_w_mcast(shi) || (shi == 0 && slo == UINT64_C(1) << 56)) {
		why = DP_DROP_IP6_BAD_SRC;
		goto drop;
	}
	if (ip6_w_unspec_or_loop(dhi, dlo)) {
		why = DP_DROP_IP6_BAD_DST;
		goto drop;
	}
	if (ip6_w_mcast(dhi)) {
		/* no multicast routing: only the groups the router itself is in, and the
		 * link-scope ones of the service of the rest (Linux: OSPFv3's ff02::5 and
		 * ::6, ...), others' solicited-node groups aside */
		if (ip6_is_our_group(ip->dst_addr, dp_port_index[m->port]) ||
			(ip6_is_link_group(ip->dst_addr) &&
				__atomic_load_n(&dp_fwd_local_other6, __ATOMIC_RELAXED) != 0))
			return IP6_FWD_NEXT_LOCAL;
		why = DP_DROP_IP6_MCAST;
		goto drop;
	}
	/* the unspecified source is for duplicate address detection only, which
	 * goes to a multicast group (RFC 4862 5.4.2) */
	if (ip6_w_unspec(shi, slo)) {
		why = DP_DROP_IP6_BAD_SRC;
		goto drop;
	}
	if (eth[0] & 1) {
		why = DP_DROP_IP6_L2_MCAST;
		goto drop;
	}
	if (hop == DP_FWD_NH_LOCAL)
		return IP6_FWD_NEXT_LOCAL;
	/* forwarding from here on */
	if (ip6_w_linklocal(shi) || ip6_w_linklocal(dhi)) {
		why = DP_DROP_IP6_LINK_LOCAL;
		goto drop;
	}
	if (ip->proto == IPPROTO_HOPOPTS) {
		why = DP_DROP_IP6_HBH;
		goto drop;
	}
	if (hop == DP_FWD_NO_ROUTE6)
		return ip6_fwd_icmp(w, meta, DP_DROP_IP6_NO_ROUTE, DP_ICMP6_DEST_UNREACH,
			DP_ICMP6_UNREACH_NOROUTE);
	if (ip->hop_limits <= 1)
		return ip6_fwd_icmp(w, meta, DP_DROP_IP6_HOP_LIMIT, DP_ICMP6_TIME_EXCEEDED,
			DP_ICMP6_EXC_HOP_LIMIT);
	meta->nh = (uint32_t)hop;
	return IP6_FWD_NEXT_OUTPUT;
drop:
	w->stats.drops[why]++;
	return IP6_FWD_NEXT_DROP;
}

/*
 * A packet for one of the router's addresses that passed the fast checks, as
 * in ip4_fwd: a UDP datagram (right after the fixed header) to a claimed port
 * goes to its service at once; anything else to ip6_local.
 */
static __rte_always_inline rte_edge_t
ip6_fwd_local(const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint8_t svc;

	if (ip[6] != IPPROTO_UDP)
		return IP6_FWD_NEXT_LOCAL;
	svc = dp_fwd_local_udp6_service(ip);
	return svc != 0 ? fwd_local_edge(IP6_FWD_NEXT_MAX, svc) : IP6_FWD_NEXT_LOCAL;
}

/*
 * A packet whose frame is longer than next hop @p h's MTU allows (checked).
 * Bytes after the datagram are cut, and if it then fits it goes on:
 * IP6_FWD_NEXT_OUTPUT. Larger: a drop and a Packet Too Big carrying the MTU
 * (icmp6_error reads it from meta.nh); routers never fragment IPv6.
 */
static __rte_noinline rte_edge_t
ip6_fwd_too_big(struct dp_worker *w, struct rte_mbuf *m, uint32_t h, int meta_off)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	const uint32_t len = IP6_HLEN + rte_be_to_cpu_16(ip->payload_len);
	struct dp_mbuf_meta *meta = dp_mbuf_meta(m, meta_off);

	meta->nh = h;
	rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN - len));
	if (len <= dp_fwd.nh[h].mtu)
		return IP6_FWD_NEXT_OUTPUT;
	return ip6_fwd_icmp(w, meta, DP_DROP_IP6_TOO_BIG, DP_ICMP6_PACKET_TOO_BIG, 0);
}

/*
 * One packet after the lookup (@p hop its answer, @p ok the fast checks'):
 * to a resolved next hop, rewritten and put in the TX buffer; else into
 * @p other with its edge (the reason counted). @p mtu_check: the ports' MTUs
 * differ (with one MTU, port_rx's check is enough).
 */
static __rte_always_inline void
ip6_fwd_one(struct dp_worker *w, struct rte_mbuf *m, bool ok, uint64_t hop, int meta_off,
	uint16_t burst, bool mtu_check, void **other, rte_edge_t *other_next, uint16_t *nb_other)
{
	const struct dp_fwd_nh *nh;
	uint32_t h = (uint32_t)hop;

	if (unlikely(!ok || h == DP_FWD_NO_ROUTE6 || h == DP_FWD_NH_LOCAL)) {
		rte_edge_t e;

		if (ok && h == DP_FWD_NH_LOCAL) {
			e = ip6_fwd_local(m);
		} else {
			e = ip6_fwd_slow(w, m, hop, meta_off);
			if (e == IP6_FWD_NEXT_OUTPUT)
				goto forward;
		}
		other[*nb_other] = m;
		other_next[(*nb_other)++] = e;
		return;
	}
forward:
	nh = &dp_fwd.nh[h];
	if (unlikely(!(nh->flags & DP_FWD_NH_F_RESOLVED))) {
		/* an ECMP group: the member of the packet's flow (group_fp.h) */
		h = dp_fwd_group_hop(dp_fwd.nh, h, m, true);
		nh = &dp_fwd.nh[h];
	}
	if (mtu_check && unlikely(m->pkt_len > (uint32_t)nh->mtu + RTE_ETHER_HDR_LEN)) {
		rte_edge_t e = ip6_fwd_too_big(w, m, h, meta_off);

		if (e != IP6_FWD_NEXT_OUTPUT) {
			other[*nb_other] = m;
			other_next[(*nb_other)++] = e;
			return;
		}
	}
	if (unlikely(!(nh->flags & DP_FWD_NH_F_RESOLVED))) {
		/* held or punted by ip6_output until the neighbor answers */
		dp_mbuf_meta(m, meta_off)->nh = h;
		other[*nb_other] = m;
		other_next[(*nb_other)++] = IP6_FWD_NEXT_OUTPUT;
		return;
	}
	/* out of a sub-interface: the tag with the MACs, to the buffer sent as it is */
	if (unlikely(nh->flags & DP_FWD_NH_F_TAGGED) && dp_mbuf_tag_fits(m)) {
		dp_fwd_ip6_rewrite_tagged(nh, m);
		dp_txq_append(w, w->txq_tagged[nh->port], m, burst);
		return;
	}
	dp_fwd_ip6_rewrite(nh, rte_pktmbuf_mtod(m, struct rte_ether_hdr *));
	dp_txq_append(w, w->txq_cfg[nh->port], m, burst);
}

/* IPv6 is off (nothing configured): the burst dropped, counted. */
static __rte_noinline uint16_t
ip6_fwd_off(struct rte_graph *graph, struct rte_node *node, uint16_t nb_objs)
{
	dp_node_worker(node)->stats.drops[DP_DROP_IP6_OFF] += nb_objs;
	if (nb_objs != 0)
		rte_node_next_stream_move(graph, node, IP6_FWD_NEXT_DROP);
	return nb_objs;
}

/*
 * The lookup and the verdicts of @p n packets of a burst:
 * pkts[rest[i]] (without @p rest, all of them in order), checked here.
 * Resolved next hops rewritten and sent from here, as ip4_fwd does; the
 * others to their next nodes.
 */
static __rte_always_inline void
ip6_fwd_lookup_send(struct rte_graph *graph, struct rte_node *node, struct rte_fib6 *fib,
	struct rte_mbuf **pkts, const uint16_t *rest, uint16_t n)
{
	struct dp_worker *w = dp_node_worker(node);
	uint8_t dst[RTE_GRAPH_BURST_SIZE][16];
	uint64_t hop[RTE_GRAPH_BURST_SIZE];
	void *other[RTE_GRAPH_BURST_SIZE];
	rte_edge_t other_next[RTE_GRAPH_BURST_SIZE];
	const int meta_off = dp_mbuf_meta_offset;
	const uint16_t burst = w->burst;
	const bool mtu_check = !dp_port_mtu_uniform;
	uint16_t i, nb_other = 0;

	for (i = 0; i < n; i++)
		ip6_dst(pkts[rest != NULL ? rest[i] : i], dst[i]);
	rte_fib6_lookup_bulk(fib, dst, hop, n);
	if (unlikely(__atomic_load_n(&dp_fwd_groups_made, __ATOMIC_RELAXED)))
		dp_fwd_groups_resolve(dp_fwd.nh, pkts, rest, hop, n, DP_FWD_NO_ROUTE6, true);
	for (i = 0; i < n; i++) {
		const uint16_t k = rest != NULL ? rest[i] : i;

		ip6_fwd_one(w, pkts[k], ip6_fast(pkts[k]), hop[i], meta_off, burst, mtu_check,
			other, other_next, &nb_other);
	}
	dp_node_enqueue_each(graph, node, other, other_next, nb_other);
}

/* Forwarding: three passes over the burst, as ip4_fwd: the destinations, one
 * bulk lookup, then the checks and verdicts (the checks in the pass that
 * reads the header for the rewrite anyway). */
static __rte_always_inline uint16_t
ip6_fwd_burst(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	/* swapped by a route reload (route.c), freed after an RCU grace period */
	struct rte_fib6 *fib = __atomic_load_n(&dp_fwd_ip6.fib, __ATOMIC_ACQUIRE);

	if (unlikely(fib == NULL))
		return ip6_fwd_off(graph, node, nb_objs);
	ip6_fwd_lookup_send(graph, node, fib, (struct rte_mbuf **)objs, NULL, nb_objs);
	return nb_objs;
}

/* After the worker's fast match (dp_fwd_local.h), as ip4_fwd: what it left is
 * looked up; in a function of its own, as ip4_fwd's. */
static __rte_noinline uint16_t
ip6_fwd_match_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	const struct dp_fwd_fast_match *fm)
{
	/* swapped by a route reload (route.c), freed after an RCU grace period */
	struct rte_fib6 *fib = __atomic_load_n(&dp_fwd_ip6.fib, __ATOMIC_ACQUIRE);
	uint16_t rest[RTE_GRAPH_BURST_SIZE];
	uint16_t n;

	if (unlikely(fib == NULL))
		return ip6_fwd_off(graph, node, nb_objs);
	n = dp_fwd_fast_match_run(
		dp_node_worker(node), fm, (struct rte_mbuf **)objs, nb_objs, rest);
	if (n != 0)
		ip6_fwd_lookup_send(graph, node, fib, (struct rte_mbuf **)objs, rest, n);
	return nb_objs;
}

static uint16_t
ip6_fwd_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	const struct dp_fwd_fast_match *fm = ((struct dp_node_ctx *)node->ctx)->arg;

	if (fm != NULL)
		return ip6_fwd_match_process(graph, node, objs, nb_objs, fm);
	return ip6_fwd_burst(graph, node, objs, nb_objs);
}

static int
ip6_fwd_init(const struct rte_graph *graph, struct rte_node *node)
{
	return fwd_local_node_init(graph, node, true);
}

static struct rte_node_register ip6_fwd_node = {
	.name = "ip6_fwd",
	.process = ip6_fwd_process,
	.init = ip6_fwd_init,
	.nb_edges = IP6_FWD_NEXT_MAX,
	.next_nodes = {
		[IP6_FWD_NEXT_DROP] = "drop",
		[IP6_FWD_NEXT_OUTPUT] = "ip6_output",
		[IP6_FWD_NEXT_LOCAL] = "ip6_local",
		[IP6_FWD_NEXT_ICMP] = "icmp6_error",
	},
};

RTE_NODE_REGISTER(ip6_fwd_node);
