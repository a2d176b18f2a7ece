/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 802.1Q sub-interfaces on the way out: the tag of a sub-interface's TX buffer
 * (dp_worker_txq.vlan_tci) put on each packet. Where the device does not insert
 * tags, packets the fwd nodes forward come tagged already (dp_fwd_l2_tagged_write(),
 * ip4_fwd_vlan) into the worker's txq_tagged buffer, and port_tx tags what it gets
 * (ARP/ND, ICMP, packets held for a neighbor, ip4_output's) into that same buffer;
 * the relay's packets get it as the sub-interface's usual buffer is sent. Where the
 * device inserts it, everything takes the usual buffer, which asks for the tag as
 * it is sent.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dp_graph.h"

/*
 * rte_vlan_insert(), inline: a packet of its own with room in front takes the tag
 * where it is, with the tag word written whole. @return false where
 * rte_vlan_insert() fails too (an indirect or shared first segment, or no headroom:
 * dpfwd makes none, its zero-copy sends attach the payload behind a direct header).
 */
static inline bool
vlan_push_in_place(struct rte_mbuf *m, uint32_t tag_be)
{
	uint8_t *d;

	if (unlikely(!dp_mbuf_tag_fits(m)))
		return false;
	d = rte_pktmbuf_mtod(m, uint8_t *);
	dp_eth_addrs_move(d, d - RTE_VLAN_HLEN);
	/* the ethertype stays where it was, after the tag */
	memcpy(d + 2 * RTE_ETHER_ADDR_LEN - RTE_VLAN_HLEN, &tag_be, sizeof(tag_be));
	dp_mbuf_tag_room_take(m);
	m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_TX_VLAN);
	return true;
}

/*
 * rte_eth_tx_prepare() of what asks the device for the tag: some drivers put
 * it on there (virtio's rte_vlan_insert()). A packet it refuses is a
 * vlan_tag_failed drop; the others stay in order. @return how many are left.
 */
static uint16_t
txq_prepare(struct dp_worker *w, struct dp_worker_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t done = 0;

	while (done < n) {
		uint16_t ok = rte_eth_tx_prepare(q->port_id, q->queue, pkts + done, n - done);

		done += ok;
		if (done == n)
			break;
		w->stats.drops[DP_DROP_VLAN_TAG_FAILED]++;
		rte_pktmbuf_free(pkts[done]);
		memmove(&pkts[done], &pkts[done + 1], (size_t)(n - done - 1) * sizeof(*pkts));
		n--;
	}
	return n;
}

uint16_t
dp_txq_vlan_push(struct dp_worker *w, struct dp_worker_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, k = 0;

	if (q->vlan_insert) {
		for (i = 0; i < n; i++) {
			pkts[i]->vlan_tci = q->vlan_tci;
			pkts[i]->ol_flags |= RTE_MBUF_F_TX_VLAN;
		}
		k = txq_prepare(w, q, pkts, n);
	} else {
		/* 0x8100 and the TCI, as the wire has them */
		const uint32_t tag_be = (uint32_t)RTE_BE16(RTE_ETHER_TYPE_VLAN) |
					(uint32_t)rte_cpu_to_be_16(q->vlan_tci) << 16;

		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];

			if (likely(vlan_push_in_place(m, tag_be))) {
				pkts[k++] = m;
				continue;
			}
			w->stats.drops[DP_DROP_VLAN_TAG_FAILED]++;
			rte_pktmbuf_free(m);
		}
	}
	return k;
}
