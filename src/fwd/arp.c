/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) on the control lcore: answer requests for the ports' own
 * addresses, learn from what neighbors send, send requests for next hops and
 * a gratuitous ARP per address when dpfwd starts (RFC 5227 announcement).
 * Workers hand every ARP frame up through ctl_punt (eth_classify); frames go
 * out through dp_ctl_send().
 */
#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "dp_common.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_port.h"

#define ARP_FRAME_LEN (RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr))

/* Fill @p m (at least ARP_FRAME_LEN of room) with an ARP frame. Addresses in network order. */
static void
arp_fill(struct rte_mbuf *m, uint16_t op, const struct rte_ether_addr *eth_dst,
	const struct rte_ether_addr *sha, uint32_t sip, const struct rte_ether_addr *tha,
	uint32_t tip)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);

	rte_ether_addr_copy(eth_dst, &eth->dst_addr);
	rte_ether_addr_copy(sha, &eth->src_addr);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = sizeof(uint32_t);
	arp->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(sha, &arp->arp_data.arp_sha);
	arp->arp_data.arp_sip = sip;
	rte_ether_addr_copy(tha, &arp->arp_data.arp_tha);
	arp->arp_data.arp_tip = tip;
	/* the minimum Ethernet frame, padded with zeros (the NIC adds the FCS) */
	memset(arp + 1, 0, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN - ARP_FRAME_LEN);
	m->data_len = m->pkt_len = RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;
}

static int
arp_send_new(uint16_t port, uint16_t op, const struct rte_ether_addr *eth_dst,
	const struct rte_ether_addr *tha, uint32_t tip)
{
	const struct dp_port *p = &dp_ports[port];
	struct rte_mempool *mp = dp_mem_pool_get(p->socket);
	struct rte_mbuf *m = mp ? rte_pktmbuf_alloc(mp) : NULL;

	if (m == NULL) {
		dp_ctl_drops[DP_DROP_CTL_NOMBUF]++;
		return -ENOBUFS;
	}
	arp_fill(m, op, eth_dst, &p->mac, rte_cpu_to_be_32(p->ip4), tha, tip);
	return dp_ctl_send(m, port);
}

/* The solicitation for IPv4 next hop @p nh: broadcast, or unicast to its MAC. */
static void
arp_solicit(uint32_t nh_idx, bool unicast)
{
	const struct dp_fwd_nh *nh = &dp_fwd.nh[nh_idx];
	static const struct rte_ether_addr zero;
	struct rte_ether_addr bcast;

	if (dp_ports[nh->port].ip4 == 0)
		return; /* no address to ask from */
	memset(&bcast, 0xff, sizeof(bcast));
	arp_send_new(nh->port, RTE_ARP_OP_REQUEST, unicast ? &nh->l2.dst_addr : &bcast, &zero,
		rte_cpu_to_be_32(nh->gw));
}

static void
on_arp(struct rte_mbuf *m, uint16_t worker, void *arg)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);
	const struct dp_port *p;
	struct rte_ether_addr sha;
	uint32_t sip, tip, ours;
	uint16_t op;
	int port;

	RTE_SET_USED(worker);
	RTE_SET_USED(arg);
	port = dp_port_index[m->port];
	if (port == DP_PORT_NONE || m->data_len < ARP_FRAME_LEN ||
		arp->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
		arp->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
		arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != sizeof(uint32_t)) {
		dp_ctl_drops[DP_DROP_ARP_BAD]++;
		goto free;
	}
	op = rte_be_to_cpu_16(arp->arp_opcode);
	if (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY) {
		dp_ctl_drops[DP_DROP_ARP_BAD]++;
		goto free;
	}
	p = &dp_ports[port];
	rte_ether_addr_copy(&arp->arp_data.arp_sha, &sha);
	sip = arp->arp_data.arp_sip;
	tip = arp->arp_data.arp_tip;
	ours = rte_cpu_to_be_32(p->ip4);
	if (!rte_is_unicast_ether_addr(&sha) || rte_is_zero_ether_addr(&sha)) {
		dp_ctl_drops[DP_DROP_ARP_BAD]++;
		goto free;
	}
	/* RFC 826: update the sender's entry if there is one; create it when the
	 * message is for us. A probe (sender 0.0.0.0, RFC 5227) teaches nothing. */
	if (sip != 0 && sip != ours)
		dp_neigh_learn(4, (const uint8_t *)&sip, (uint16_t)port, &sha,
			op == RTE_ARP_OP_REPLY && tip == ours, p->ip4 != 0 && tip == ours);
	if (op != RTE_ARP_OP_REQUEST || p->ip4 == 0 || tip != ours) {
		if (op == RTE_ARP_OP_REQUEST)
			dp_ctl_drops[DP_DROP_ARP_NOT_FOR_US]++;
		else
			dp_ctl_drops[DP_DROP_ARP_CONSUMED]++;
		goto free;
	}
	/* the reply, in the request's buffer, to the requester's MAC */
	arp_fill(m, RTE_ARP_OP_REPLY, &sha, &p->mac, ours, &sha, sip);
	dp_ctl_send(m, (uint16_t)port);
	return;
free:
	rte_pktmbuf_free(m);
}

int
dp_arp_start(void)
{
	int rc;

	rc = dp_ctl_punt_register(DP_PUNT_ARP, on_arp, NULL);
	if (rc < 0)
		return rc;
	dp_neigh_solicit_register(4, arp_solicit);
	return 0;
}

unsigned int
dp_arp_announce(void)
{
	struct rte_ether_addr bcast;
	static const struct rte_ether_addr zero;
	unsigned int n = 0;
	uint16_t i;

	/* announce every address: neighbors that had another MAC for it update */
	memset(&bcast, 0xff, sizeof(bcast));
	for (i = 0; i < dp_nb_ports; i++)
		if (dp_ports[i].ip4 != 0 && arp_send_new(i, RTE_ARP_OP_REQUEST, &bcast, &zero,
						    rte_cpu_to_be_32(dp_ports[i].ip4)) == 0)
			n++;
	return n;
}
