/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 Neighbor Discovery (RFC 4861) on the control lcore: answer neighbor
 * solicitations for the ports' addresses (global and link-local), learn
 * link-layer addresses from solicitations and advertisements, and send the
 * solicitations the neighbor table asks for. Workers hand NS and NA up through
 * ctl_punt (ip6_local, after the hop limit 255 check); frames go out through
 * dp_ctl_send().
 *
 *   NS, NA:  | eth 14 | IPv6 40 | ICMPv6 type code cksum, reserved/flags 8 |
 *            | target address 16 | options: type len(8-byte units) ... |
 *   option 1 (source link-layer address) and 2 (target): | type | 1 | MAC 6 |
 *
 * Routers do not perform duplicate address detection on their own addresses
 * here (the addresses are configured, RFC 4862 does not apply to them); a
 * solicitation from :: for one of them (someone else's DAD) is answered to
 * all-nodes, which is how RFC 4861 7.2.4 defends an address.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_common.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_port.h"
#include "icmp6_fp.h"

#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2

#define ND_NA_F_ROUTER    RTE_BE32(UINT32_C(0x80000000))
#define ND_NA_F_SOLICITED RTE_BE32(UINT32_C(0x40000000))
#define ND_NA_F_OVERRIDE  RTE_BE32(UINT32_C(0x20000000))

/** NS and NA without options (RFC 4861 4.3, 4.4). */
struct nd_msg {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	rte_be32_t flags; /**< NA: R, S, O; NS: reserved */
	uint8_t target[16];
} __rte_packed;

/** A link-layer address option on Ethernet (RFC 4861 4.6.1, RFC 2464 8). */
struct nd_opt_lla {
	uint8_t type;
	uint8_t len; /**< 1: 8 bytes */
	struct rte_ether_addr mac;
};
_Static_assert(sizeof(struct nd_opt_lla) == 8, "one 8-byte option");

#define ND_FRAME_LEN (IP6_ETH_HLEN + sizeof(struct nd_msg) + sizeof(struct nd_opt_lla)) /* 86 */

static struct dp_nd_stats nd_stats;

void
dp_nd_stats_get(struct dp_nd_stats *st)
{
	*st = nd_stats;
}

/*
 * Write a whole NS or NA with one link-layer option into @p m (its data
 * room holds ND_FRAME_LEN): Ethernet, IPv6 with hop limit 255, the message,
 * the option carrying the port's MAC, the checksum.
 */
static void
nd_fill(struct rte_mbuf *m, uint16_t port, const struct rte_ether_addr *eth_dst, const uint8_t *src,
	const uint8_t *dst, uint8_t type, rte_be32_t flags, const uint8_t *target)
{
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	struct nd_msg *nd;
	struct nd_opt_lla *opt;
	uint8_t s[16], d[16], t[16];

	/* the inputs may point into this very buffer */
	memcpy(s, src, 16);
	memcpy(d, dst, 16);
	memcpy(t, target, 16);
	if (m->next != NULL) {
		rte_pktmbuf_free(m->next);
		m->next = NULL;
		m->nb_segs = 1;
	}
	rte_pktmbuf_reset_headroom(m);
	m->data_len = m->pkt_len = ND_FRAME_LEN;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	nd = (struct nd_msg *)(ip + 1);
	opt = (struct nd_opt_lla *)(nd + 1);
	rte_ether_addr_copy(eth_dst, &eth->dst_addr);
	rte_ether_addr_copy(&dp_ports[port].mac, &eth->src_addr);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	icmp6_ip_hdr_write(ip, sizeof(*nd) + sizeof(*opt), IPPROTO_ICMPV6, s, d);
	ip->hop_limits = ICMP6_ND_HOP_LIMIT; /* sent as is, not through ip6_output */
	nd->type = type;
	nd->code = 0;
	nd->flags = flags;
	memcpy(nd->target, t, 16);
	opt->type = type == ICMP6_ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	opt->len = 1;
	rte_ether_addr_copy(&dp_ports[port].mac, &opt->mac);
	nd->cksum = 0;
	nd->cksum = rte_ipv6_udptcp_cksum(ip, nd);
}

/* The solicitation for IPv6 next hop @p idx: to its solicited-node group, or unicast. */
static void
nd_solicit(uint32_t idx, bool unicast)
{
	const struct dp_fwd_nh *nh = &dp_fwd.nh[idx];
	const struct dp_port *p = &dp_ports[nh->port];
	struct rte_mempool *mp = dp_mem_pool_get(p->socket);
	struct rte_mbuf *m = mp ? rte_pktmbuf_alloc(mp) : NULL;
	struct rte_ether_addr mac;
	uint8_t dst[16];

	if (m == NULL) {
		dp_ctl_drops[DP_DROP_CTL_NOMBUF]++;
		return;
	}
	if (unicast) {
		memcpy(dst, nh->gw6, 16);
		rte_ether_addr_copy(&nh->l2.dst_addr, &mac);
	} else {
		ip6_solicited_node(nh->gw6, dst);
		ip6_mcast_mac(dst, &mac);
	}
	nd_fill(m, nh->port, &mac, ip6_src_for(nh->port, nh->gw6), dst, ICMP6_ND_NS, 0, nh->gw6);
	nd_stats.ns_out++;
	dp_ctl_send(m, nh->port);
}

/* Options of an NS or NA (RFC 4861 7.1.1/7.1.2: every length > 0, inside the message). */
static int
nd_options(const uint8_t *opts, uint32_t len, uint8_t want, const struct rte_ether_addr **lla)
{
	uint32_t off = 0;

	*lla = NULL;
	while (off + 2 <= len) {
		uint32_t olen = 8u * opts[off + 1];

		if (olen == 0 || off + olen > len)
			return -EINVAL;
		if (opts[off] == want && olen == sizeof(struct nd_opt_lla))
			*lla = &((const struct nd_opt_lla *)(opts + off))->mac;
		off += olen;
	}
	return off == len ? 0 : -EINVAL;
}

static void
on_ns(struct rte_mbuf *m, uint16_t port, struct rte_ipv6_hdr *ip, struct nd_msg *ns,
	const struct rte_ether_addr *slla)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const bool dad = ip6_is_unspec(ip->src_addr);
	struct rte_ether_addr to;
	uint8_t target[16], dst[16];

	nd_stats.ns_in++;
	/* 7.1.1: from :: only to a solicited-node group and without a source address option */
	if (dad && (!ip6_is_mcast(ip->dst_addr) || slla != NULL)) {
		dp_ctl_drops[DP_DROP_ND_BAD]++;
		goto free;
	}
	if (!ip6_is_port_addr(port, ns->target)) {
		dp_ctl_drops[DP_DROP_ND_NOT_FOR_US]++;
		goto free;
	}
	/* 7.2.3: the sender's address, as stale (or created) */
	if (!dad && slla != NULL && rte_is_unicast_ether_addr(slla) &&
		!rte_is_zero_ether_addr(slla))
		dp_neigh_learn(6, ip->src_addr, port, slla, false, true);
	/* 7.2.4: the advertisement, solicited (unless to a DAD probe: then to all nodes) */
	memcpy(target, ns->target, 16);
	if (dad) {
		memcpy(dst, all_nodes, 16);
		ip6_mcast_mac(dst, &to);
	} else {
		memcpy(dst, ip->src_addr, 16);
		/* without the option (allowed for a unicast NS), the frame's sender */
		rte_ether_addr_copy(slla != NULL ? slla : &eth->src_addr, &to);
	}
	nd_fill(m, port, &to, target, dst, ICMP6_ND_NA,
		ND_NA_F_ROUTER | ND_NA_F_OVERRIDE | (dad ? 0 : ND_NA_F_SOLICITED), target);
	nd_stats.na_out++;
	dp_ctl_send(m, port);
	return;
free:
	rte_pktmbuf_free(m);
}

static void
on_na(struct rte_mbuf *m, uint16_t port, struct rte_ipv6_hdr *ip, struct nd_msg *na,
	const struct rte_ether_addr *tlla)
{
	const bool solicited = (na->flags & ND_NA_F_SOLICITED) != 0;
	const bool override = (na->flags & ND_NA_F_OVERRIDE) != 0;
	const struct dp_fwd_nh *nh;
	int32_t idx;

	nd_stats.na_in++;
	/* 7.1.2: a solicited advertisement is unicast */
	if (solicited && ip6_is_mcast(ip->dst_addr)) {
		dp_ctl_drops[DP_DROP_ND_BAD]++;
		goto free;
	}
	if (ip6_is_port_addr(port, na->target)) {
		/* someone claims one of our addresses: nothing to learn */
		dp_ctl_drops[DP_DROP_ND_NOT_FOR_US]++;
		goto free;
	}
	idx = dp_neigh_get(6, na->target, port, false);
	nh = idx >= 0 ? &dp_fwd.nh[idx] : NULL;
	/* 7.2.5: without the option, it only confirms the address we have (Linux
	 * leaves it out when answering a unicast probe) */
	if (tlla == NULL && nh != NULL && (nh->flags & DP_FWD_NH_F_RESOLVED))
		tlla = &nh->l2.dst_addr;
	/* 7.2.5: not overriding a different known address (only an entry that has
	 * none yet takes it) */
	if (tlla != NULL && !override && nh != NULL && (nh->flags & DP_FWD_NH_F_RESOLVED) &&
		!rte_is_same_ether_addr(tlla, &nh->l2.dst_addr))
		tlla = NULL;
	if (tlla != NULL && rte_is_unicast_ether_addr(tlla) && !rte_is_zero_ether_addr(tlla)) {
		struct rte_ether_addr mac;

		rte_ether_addr_copy(tlla, &mac);
		/* an advertisement nobody asked for creates nothing (7.2.5) */
		dp_neigh_learn(6, na->target, port, &mac, solicited, false);
	}
	dp_ctl_drops[DP_DROP_ND_CONSUMED]++;
free:
	rte_pktmbuf_free(m);
}

/* An NS or NA that ip6_local handed up: validate (RFC 4861 7.1), then act. */
static void
on_nd(struct rte_mbuf *m, uint16_t worker, void *arg)
{
	struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	struct nd_msg *nd = (struct nd_msg *)(ip + 1);
	const struct rte_ether_addr *lla;
	uint16_t port = dp_port_index[m->port];
	uint32_t plen;

	RTE_SET_USED(worker);
	RTE_SET_USED(arg);
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (port >= dp_nb_ports || m->nb_segs != 1 || m->data_len < IP6_ETH_HLEN + plen ||
		plen < sizeof(*nd) || ip->proto != IPPROTO_ICMPV6 ||
		ip->hop_limits != ICMP6_ND_HOP_LIMIT || nd->code != 0 ||
		rte_ipv6_udptcp_cksum_verify(ip, nd) != 0 || ip6_is_mcast(nd->target) ||
		nd_options((const uint8_t *)(nd + 1), plen - sizeof(*nd),
			nd->type == ICMP6_ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA, &lla) < 0) {
		dp_ctl_drops[DP_DROP_ND_BAD]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (nd->type == ICMP6_ND_NS)
		on_ns(m, port, ip, nd, lla);
	else
		on_na(m, port, ip, nd, lla);
}

/* Adds @p mac to the @p n in @p macs unless it is there already. */
static uint32_t
mcast_mac_add(struct rte_ether_addr *macs, uint32_t n, const struct rte_ether_addr *mac)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (rte_is_same_ether_addr(&macs[i], mac))
			return n;
	macs[n] = *mac;
	return n + 1;
}

/* The solicited-node groups' MACs of config port @p port's addresses, added to @p macs. */
static uint32_t
mcast_macs_of(uint16_t port, struct rte_ether_addr *macs, uint32_t n)
{
	const struct dp_fwd_port6 *p = &dp_fwd_ip6.port[port];
	struct rte_ether_addr mac;
	uint8_t group[16];

	ip6_solicited_node(p->ll, group);
	ip6_mcast_mac(group, &mac);
	n = mcast_mac_add(macs, n, &mac);
	if (p->has_global) {
		ip6_solicited_node(p->global, group);
		ip6_mcast_mac(group, &mac);
		n = mcast_mac_add(macs, n, &mac);
	}
	return n;
}

uint32_t
dp_nd_mcast_macs(uint16_t port, struct rte_ether_addr macs[DP_ND_MCAST_MACS_MAX])
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	uint32_t n = 1;
	uint16_t i;

	ip6_mcast_mac(all_nodes, &macs[0]);
	n = mcast_macs_of(port, macs, n);
	/* one list per device: its sub-interfaces' groups are in its port's */
	for (i = dp_nb_phys_ports; i < dp_nb_ports; i++)
		if (dp_ports[i].parent == port)
			n = mcast_macs_of(i, macs, n);
	return n;
}

/*
 * A physical port's multicast filter: the groups of dp_nd_mcast_macs(). A NIC
 * filters multicast by MAC; virtual devices (net_ring, net_pcap, net_null) and
 * net_af_packet (the kernel delivers every frame of a veth to a packet socket)
 * have no filter, and say so with -ENOTSUP, which is fine. A promiscuous port
 * receives everything anyway.
 */
static void
nd_mcast_join(uint16_t port)
{
	struct rte_ether_addr macs[DP_ND_MCAST_MACS_MAX];
	const uint16_t id = dp_ports[port].port_id;
	uint32_t n;
	int rc;

	if (dp_ports[port].promisc || dp_port_is_vlan(port))
		return;
	n = dp_nd_mcast_macs(port, macs);
	rc = rte_eth_dev_set_mc_addr_list(id, macs, n);
	if (rc == -ENOTSUP)
		rc = rte_eth_allmulticast_enable(id);
	if (rc == -ENOTSUP)
		DP_LOG(DEBUG, fwd, "port%u (%s): no multicast filter to program", port,
			dp_ports[port].driver);
	else if (rc < 0)
		DP_LOG(WARNING, fwd,
			"port%u (%s): cannot receive the IPv6 solicited-node groups (%s): neighbors "
			"may not find the router's addresses; set promisc = on",
			port, dp_ports[port].driver, strerror(-rc));
}

int
dp_nd_start(void)
{
	uint16_t i;
	int rc;

	memset(&nd_stats, 0, sizeof(nd_stats));
	rc = dp_ctl_punt_register(DP_PUNT_ND, on_nd, NULL);
	if (rc < 0)
		return rc;
	dp_neigh_solicit_register(6, nd_solicit);
	if (dp_fwd_ip6.fib == NULL)
		return 0;
	for (i = 0; i < dp_nb_ports; i++)
		nd_mcast_join(i);
	return 0;
}
