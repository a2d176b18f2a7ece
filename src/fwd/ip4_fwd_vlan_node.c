/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_fwd_vlan
 *   uses: port_rx's IPv4 bursts that have 802.1Q frames in them, as they came: each
 *         tagged one checked there (the tag of a sub-interface of its port, for the
 *         sub-interface's MAC, within its MTU; IPv4 inside), the untagged ones as for
 *         ip4_fwd; the IPv4 FIB
 *   sets: a tagged packet to a resolved next hop (ip4_fast_at() passed): TTL - 1 and the
 *         checksum; out of a sub-interface whose device does not insert tags
 *         (DP_FWD_NH_F_TAGGED), the MACs and the next hop's tag over those it came
 *         with; out of any other port, the MACs 4 bytes on, over the tag, which is off
 *         (mbuf offset and lengths); every other tagged packet: the tag off, the MACs
 *         moved over it, mbuf->port its sub-interface's
 *   next: none for the packets forwarded (the worker's TX buffers, as ip4_fwd's);
 *         ip4_fwd for the others, untagged frames of their sub-interface or port by then
 *
 * A frame that comes tagged and leaves tagged keeps its tag's place: the MACs, the
 * mbuf's offset and lengths are written once, here, not at RX and again at TX. The
 * one place a frame leaves this path is the hand-off to ip4_fwd: every node after
 * it sees the frame as eth_classify would have made it (ip4_fwd decides the rest:
 * local delivery, ICMP errors, held packets, ECMP groups, MTU...).
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_graph_worker.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_port.h"
#include "dp_trace.h"
#include "fwd_fp.h"
#include "graph_fp.h"

enum ip4_fwd_vlan_next {
	IP4_FWD_VLAN_NEXT_IP4_FWD,
	IP4_FWD_VLAN_NEXT_MAX,
};

/* where the IPv4 header of a tagged frame starts */
#define VLAN_L3 (RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)

/* The tag of @p m, a tagged frame port_rx checked, off: what eth_classify would have made
 * of it (the MACs over the tag, the frame its sub-interface's). */
static __rte_noinline void
vlan_frame_untag(struct rte_mbuf *m)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t tci;

	memcpy(&tci, d + 2 * RTE_ETHER_ADDR_LEN + 2, sizeof(tci));
	dp_eth_addrs_move(d, d + RTE_VLAN_HLEN);
	dp_mbuf_tag_room_drop(m);
	m->port = dp_port_vlan_ids[dp_port_index[m->port]][rte_be_to_cpu_16(tci) & 0xfff];
}

static __rte_always_inline bool
vlan_frame_tagged(const struct rte_mbuf *m)
{
	uint16_t type;

	memcpy(&type, rte_pktmbuf_mtod_offset(m, const uint8_t *, 2 * RTE_ETHER_ADDR_LEN),
		sizeof(type));
	return type == RTE_BE16(RTE_ETHER_TYPE_VLAN);
}

/*
 * Tagged packet @p m to next hop @p nh (resolved), rewritten and put in the TX buffer.
 * Out of a tagging sub-interface the frame keeps its length; elsewhere it loses the tag.
 */
static __rte_always_inline void
vlan_fwd_one(struct dp_worker *w, const struct dp_fwd_nh *nh, struct rte_mbuf *m, uint16_t burst)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	dp_fwd_ip4_ttl_dec((struct rte_ipv4_hdr *)(d + VLAN_L3));
	if (likely(nh->flags & DP_FWD_NH_F_TAGGED)) {
		memcpy(d, &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
		memcpy(d + 2 * RTE_ETHER_ADDR_LEN, &nh->vlan_tag, sizeof(nh->vlan_tag));
		dp_txq_append(w, w->txq_tagged[nh->port], m, burst);
		return;
	}
	memcpy(d + RTE_VLAN_HLEN, &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
	dp_mbuf_tag_room_drop(m);
	dp_txq_append(w, w->txq_cfg[nh->port], m, burst);
}

/* The IPv4 destination of tagged frame @p m (host order), checked or not. */
static __rte_always_inline uint32_t
vlan_ip4_dst(const struct rte_mbuf *m)
{
	uint32_t d;

	memcpy(&d, rte_pktmbuf_mtod_offset(m, const uint8_t *, VLAN_L3 + 16), sizeof(d));
	return rte_be_to_cpu_32(d);
}

/*
 * @p n tagged packets whose destinations are @p dst: one bulk lookup, the checks, then
 * each to a resolved next hop forwarded; the others after the @p nb_other in @p other,
 * for ip4_fwd. @return how many are in @p other.
 */
static __rte_always_inline uint16_t
vlan_fwd_tagged(struct dp_worker *w, struct rte_mbuf **pkts, const uint32_t *dst, uint16_t n,
	void **other, uint16_t nb_other, const bool cksum_check, const bool ck_flags)
{
	const struct dp_fwd_nh *nh_table = dp_fwd.nh;
	const bool mtu_check = !dp_port_mtu_uniform;
	const uint16_t burst = w->burst;
	uint64_t hop[RTE_GRAPH_BURST_SIZE];
	uint16_t i;

	if (n == 0)
		return nb_other;
	/* a LOCAL answer, exact or not (the raw lookup), goes to ip4_fwd anyway */
	dp_fwd_lookup4_raw(dst, hop, n);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint32_t h = (uint32_t)hop[i];
		const struct dp_fwd_nh *nh;

		/* forwarded: checked, neither LOCAL (0) nor NO_ROUTE, to a resolved next hop
		 * (not an ECMP group) that the packet fits */
		if (likely(ip4_fast_at(cksum_check, ck_flags, false, m, VLAN_L3) &&
			    h - 1 < DP_FWD_NO_ROUTE - 1)) {
			nh = &nh_table[h];
			if (likely(nh->flags & DP_FWD_NH_F_RESOLVED) &&
				(!mtu_check || m->pkt_len <= (uint32_t)nh->mtu + VLAN_L3)) {
				vlan_fwd_one(w, nh, m, burst);
				continue;
			}
		}
		vlan_frame_untag(m);
		other[nb_other++] = m;
	}
	return nb_other;
}

/*
 * A burst: its tagged packets through vlan_fwd_tagged(), the untagged ones (another
 * queue's, port_rx's ip4_fwd bursts) into @p other for ip4_fwd as they are.
 * @return how many are in @p other.
 */
static __rte_always_inline uint16_t
vlan_fwd_burst(struct dp_worker *w, struct rte_mbuf **pkts, uint16_t n, void **other,
	const bool cksum_check, const bool ck_flags)
{
	struct rte_mbuf *tagged[RTE_GRAPH_BURST_SIZE];
	uint32_t dst[RTE_GRAPH_BURST_SIZE];
	uint16_t i, nb_tagged = 0, nb_other = 0;
	bool untagged = false;

	for (i = 0; i < n; i++) {
		dst[i] = vlan_ip4_dst(pkts[i]);
		untagged |= !vlan_frame_tagged(pkts[i]);
	}
	if (likely(!untagged))
		return vlan_fwd_tagged(w, pkts, dst, n, other, 0, cksum_check, ck_flags);
	for (i = 0; i < n; i++) {
		if (vlan_frame_tagged(pkts[i])) {
			dst[nb_tagged] = dst[i];
			tagged[nb_tagged++] = pkts[i];
		} else {
			other[nb_other++] = pkts[i];
		}
	}
	return vlan_fwd_tagged(w, tagged, dst, nb_tagged, other, nb_other, cksum_check, ck_flags);
}

/* Every packet to ip4_fwd, each tagged one untagged first: with a fast match on (ip4_fwd
 * runs it before its lookup) or a trace armed (ip4_fwd's lines tell the route). */
static __rte_noinline uint16_t
vlan_fwd_hand_off(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	uint16_t i;

	for (i = 0; i < nb_objs; i++)
		if (vlan_frame_tagged(objs[i]))
			vlan_frame_untag(objs[i]);
	rte_node_next_stream_move(graph, node, IP4_FWD_VLAN_NEXT_IP4_FWD);
	return nb_objs;
}

static uint16_t
ip4_fwd_vlan_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct dp_worker *w = dp_node_worker(node);
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	void *other[RTE_GRAPH_BURST_SIZE];
	uint16_t n;

	if (unlikely(dp_fwd_fast_match4[w->index].fn != NULL || dp_trace_armed != 0))
		return vlan_fwd_hand_off(graph, node, objs, nb_objs);
	/* each checksum choice its own copy of the loop, as in ip4_fwd */
	if (w->ip4_cksum_check)
		n = w->rx_ip4_cksum ? vlan_fwd_burst(w, pkts, nb_objs, other, true, true)
				    : vlan_fwd_burst(w, pkts, nb_objs, other, true, false);
	else
		n = w->rx_ip4_cksum ? vlan_fwd_burst(w, pkts, nb_objs, other, false, true)
				    : vlan_fwd_burst(w, pkts, nb_objs, other, false, false);
	dp_node_enqueue(graph, node, IP4_FWD_VLAN_NEXT_IP4_FWD, other, n);
	return nb_objs;
}

static struct rte_node_register ip4_fwd_vlan_node = {
	.name = "ip4_fwd_vlan",
	.process = ip4_fwd_vlan_process,
	.init = dp_graph_node_init_worker,
	.nb_edges = IP4_FWD_VLAN_NEXT_MAX,
	.next_nodes = {
		[IP4_FWD_VLAN_NEXT_IP4_FWD] = "ip4_fwd",
	},
};

RTE_NODE_REGISTER(ip4_fwd_vlan_node);
