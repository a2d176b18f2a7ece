/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 802.1Q sub-interfaces on the way out: the tag of a sub-interface's TX buffer
 * (dp_worker_txq.vlan_tci) put on each packet as the buffer is sent.
 */
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dp_graph.h"

uint16_t
dp_txq_vlan_push(struct dp_worker *w, struct dp_worker_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct dp_port_vlan_stats *st = q->vlan_stats;
	uint64_t bytes = 0;
	uint16_t i, k = 0;

	if (q->vlan_insert) {
		for (i = 0; i < n; i++) {
			pkts[i]->vlan_tci = q->vlan_tci;
			pkts[i]->ol_flags |= RTE_MBUF_F_TX_VLAN;
			bytes += pkts[i]->pkt_len + RTE_VLAN_HLEN;
		}
		k = n;
	} else {
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];

			m->vlan_tci = q->vlan_tci;
			if (unlikely(rte_vlan_insert(&m) != 0)) {
				w->stats.drops[DP_DROP_VLAN_TAG_FAILED]++;
				rte_pktmbuf_free(pkts[i]);
				continue;
			}
			bytes += m->pkt_len;
			pkts[k++] = m;
		}
	}
	st->tx_pkts += k;
	st->tx_bytes += bytes;
	return k;
}
