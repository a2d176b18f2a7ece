/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mirrors: one net_tap port a dpfwd port or sub-interface (dp0.100),
 * driven by the control lcore only (its one RX and one TX queue), never a data
 * port of the workers.
 *
 *   worker: ip4_local/ip6_local -> linux_punt ==(punt ring)==> control lcore
 *   control lcore: punt handler --> TAP TX --> kernel interface (dp0)
 *   kernel interface --> TAP RX --> control lcore: dp_ctl_send() --> port
 *
 * ARP and ND stay in the fast path: dpfwd answers requests for its own
 * addresses and Linux never sees them. Linux asks for its neighbors through
 * the mirror itself (its requests leave through the port); the replies come
 * to dpfwd, which copies each ARP reply and neighbor advertisement to the
 * mirror of the port it came in on before learning from it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <rte_arp.h>
#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "dp_ctl.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "linuxcp_priv.h"

#define TAP_DESC  512
#define TAP_BURST 32

struct lcp_mirror lcp_mirrors[DP_CONFIG_MAX_PORTS];
uint16_t lcp_nb_mirrors;
struct lcp_stats lcp_stats;

static struct rte_mempool *tap_pool;
static dp_ctl_punt_cb_t arp_next, nd_next;
static void *arp_next_arg, *nd_next_arg;

/* a frame for Linux, to the mirror of @p port; takes @p m. @return whether it was sent */
static bool
tap_send(struct rte_mbuf *m, uint16_t port)
{
	struct rte_ether_hdr *eth;

	if (port >= lcp_nb_mirrors || !lcp_mirrors[port].up) {
		dp_ctl_drops[DP_DROP_LINUX_NO_TAP]++;
		rte_pktmbuf_free(m);
		return false;
	}
	/* to the mirror's MAC, which is the port's unless the port has none */
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (rte_is_unicast_ether_addr(&eth->dst_addr))
		rte_ether_addr_copy(&lcp_mirrors[port].mac, &eth->dst_addr);
	if (rte_eth_tx_burst(lcp_mirrors[port].tap_port, 0, &m, 1) != 1) {
		dp_ctl_drops[DP_DROP_LINUX_TAP_FULL]++;
		rte_pktmbuf_free(m);
		return false;
	}
	return true;
}

static void
punt_host(struct rte_mbuf *m, uint16_t worker, void *arg)
{
	RTE_SET_USED(worker);
	RTE_SET_USED(arg);
	if (tap_send(m, dp_mbuf_meta(m, dp_mbuf_meta_offset)->port))
		lcp_stats.punted++;
}

/* a copy of @p m to the mirror of the port it came in on */
static void
tap_copy(const struct rte_mbuf *m)
{
	struct rte_mbuf *c;

	if (m->port >= DP_PORT_MAX_IDS || dp_port_index[m->port] == DP_PORT_NONE)
		return;
	c = rte_pktmbuf_copy(m, tap_pool, 0, UINT32_MAX);
	if (c == NULL)
		return;
	if (tap_send(c, dp_port_index[m->port]))
		lcp_stats.neigh_copied++;
}

static void
punt_arp(struct rte_mbuf *m, uint16_t worker, void *arg)
{
	const struct rte_arp_hdr *a =
		rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, RTE_ETHER_HDR_LEN);

	RTE_SET_USED(arg);
	if (rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN + sizeof(*a) &&
		a->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY))
		tap_copy(m);
	arp_next(m, worker, arp_next_arg);
}

static void
punt_nd(struct rte_mbuf *m, uint16_t worker, void *arg)
{
	const size_t off = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr);
	const uint8_t *type = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);

	RTE_SET_USED(arg);
	if (rte_pktmbuf_data_len(m) > off && *type == ND_NEIGHBOR_ADVERT)
		tap_copy(m);
	nd_next(m, worker, nd_next_arg);
}

void
lcp_tap_poll(void)
{
	struct rte_mbuf *pkts[TAP_BURST];
	uint16_t p, n, i;

	for (p = 0; p < lcp_nb_mirrors; p++) {
		if (!lcp_mirrors[p].up)
			continue;
		n = rte_eth_rx_burst(lcp_mirrors[p].tap_port, 0, pkts, TAP_BURST);
		for (i = 0; i < n; i++)
			if (dp_ctl_send(pkts[i], p) == 0)
				lcp_stats.injected++;
	}
}

/* The kernel name of port @p port's mirror: the names pattern's for a port, its parent's
 * with ".VID" for a sub-interface (dp0.100). @return 0, or -ENAMETOOLONG (the parent's
 * name in mi->name). */
static int
mirror_name(struct lcp_mirror *mi, uint16_t port, const struct dp_linuxcp_config *c)
{
	const struct dp_port *dp = &dp_ports[port];
	char parent[DP_LINUXCP_NAME_LEN];
	int n;

	if (!dp_port_is_vlan(port)) {
		snprintf(mi->name, sizeof(mi->name), c->names, port);
		return 0;
	}
	snprintf(parent, sizeof(parent), c->names, dp->parent);
	n = snprintf(mi->name, sizeof(mi->name), "%s.%u", parent, dp->vid);
	if (n < 0 || (size_t)n >= sizeof(mi->name)) {
		dp_strlcpy(mi->name, parent, sizeof(mi->name));
		return -ENAMETOOLONG;
	}
	return 0;
}

static int
tap_create(struct lcp_mirror *mi, uint16_t port, const struct dp_linuxcp_config *c, char *err,
	size_t errlen)
{
	const struct dp_port *dp = &dp_ports[port];
	const struct rte_eth_conf conf = { 0 };
	char args[96], mac[RTE_ETHER_ADDR_FMT_SIZE];
	int rc, socket;

	snprintf(mi->vdev, sizeof(mi->vdev), "net_tap_lcp%u", port);
	rc = mirror_name(mi, port, c);
	if (rc < 0) {
		snprintf(err, errlen,
			"%s:%d: linux: the mirror of port %u.%u would be '%s.%u', longer than "
			"%d characters: a shorter [linux] names",
			c->names_at.file != NULL ? c->names_at.file : c->loc.file,
			c->names_at.file != NULL ? c->names_at.line : c->loc.line, dp->parent,
			dp->vid, mi->name, dp->vid, IFNAMSIZ - 1);
		return rc;
	}
	/* the port's MAC; a port without one of its own (net_ring): the TAP's */
	rte_ether_format_addr(mac, sizeof(mac), &dp->mac);
	if (rte_is_valid_assigned_ether_addr(&dp->mac))
		snprintf(args, sizeof(args), "iface=%s,mac=%s", mi->name, mac);
	else
		snprintf(args, sizeof(args), "iface=%s", mi->name);
	rc = rte_eal_hotplug_add("vdev", mi->vdev, args);
	if (rc < 0) {
		snprintf(err, errlen, "linux: port %u: cannot make TAP %s (%s): %s", port, mi->name,
			args, strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_get_port_by_name(mi->vdev, &mi->tap_port);
	if (rc < 0)
		goto fail;
	socket = rte_eth_dev_socket_id(mi->tap_port);
	rc = rte_eth_dev_configure(mi->tap_port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(mi->tap_port, 0, TAP_DESC, socket, NULL, tap_pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(mi->tap_port, 0, TAP_DESC, socket, NULL);
	if (rc == 0)
		rc = rte_eth_dev_set_mtu(mi->tap_port, dp->mtu);
	if (rc == 0)
		rc = rte_eth_dev_start(mi->tap_port);
	if (rc == 0)
		rc = rte_eth_dev_set_link_up(mi->tap_port);
	if (rc < 0)
		goto fail;
	rte_eth_macaddr_get(mi->tap_port, &mi->mac);
	rte_ether_format_addr(mac, sizeof(mac), &mi->mac);
	mi->ifindex = (int)if_nametoindex(mi->name);
	if (mi->ifindex == 0) {
		rc = -ENODEV;
		goto fail;
	}
	mi->up = true;
	DP_LOG(INFO, linuxcp, "port %u: mirror %s (ifindex %d, MAC %s, MTU %u)", port, mi->name,
		mi->ifindex, mac, dp->mtu);
	return 0;

fail:
	snprintf(err, errlen, "linux: port %u: cannot set up TAP %s: %s", port, mi->name,
		strerror(-rc));
	rte_eal_hotplug_remove("vdev", mi->vdev);
	return rc;
}

/* IP forwarding on in the namespace: Linux would route transit beside dpfwd */
static int
forwarding_check(char *err, size_t errlen)
{
	static const char *const files[] = {
		"/proc/sys/net/ipv4/ip_forward",
		"/proc/sys/net/ipv6/conf/all/forwarding",
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(files); i++) {
		FILE *f = fopen(files[i], "r");
		int on = 0;

		if (f == NULL)
			continue;
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
		if (on != 0) {
			snprintf(err, errlen,
				"linux: %s is 1: the namespace's kernel must not forward "
				"(sysctl -w %s=0)",
				files[i],
				i == 0 ? "net.ipv4.ip_forward" : "net.ipv6.conf.all.forwarding");
			return -EPERM;
		}
	}
	return 0;
}

/*
 * Every multicast frame on the physical ports: the routing daemons join groups on the
 * mirrors (OSPF's 224.0.0.5 and ff02::5, RIP's, VRRP's, PIM's) that dpfwd's filter of
 * the ND groups does not hold, and Linux says nothing of them over rtnetlink. Frames of
 * a group nobody asked for are counted drops in eth_classify and ip6_fwd. A port
 * without a filter (virtual devices, net_af_packet) takes every frame anyway.
 */
static void
allmulti_enable(void)
{
	uint16_t p;
	int rc;

	for (p = 0; p < dp_nb_phys_ports; p++) {
		if (dp_ports[p].promisc)
			continue;
		rc = rte_eth_allmulticast_enable(dp_ports[p].port_id);
		if (rc == 0)
			DP_LOG(INFO, linuxcp,
				"port%u (%s): all multicast frames, for the groups "
				"of Linux's routing daemons",
				p, dp_ports[p].driver);
		else if (rc == -ENOTSUP)
			DP_LOG(DEBUG, linuxcp, "port%u (%s): no multicast filter to open", p,
				dp_ports[p].driver);
		else
			DP_LOG(WARNING, linuxcp,
				"port%u (%s): cannot receive all multicast frames (%s): routing "
				"protocols on multicast (OSPF) may not find their neighbors; set "
				"promisc = on",
				p, dp_ports[p].driver, strerror(-rc));
	}
}

int
lcp_tap_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	const struct dp_linuxcp_config *c = dp_linuxcp_config(cfg);
	uint16_t p;
	int rc;

	rc = forwarding_check(err, errlen);
	if (rc < 0)
		return rc;
	tap_pool = dp_mem_pool_get((int)rte_socket_id());
	if (tap_pool == NULL)
		tap_pool = dp_mem_pool_get(0);
	if (tap_pool == NULL) {
		snprintf(err, errlen, "linux: no packet pool for the mirrors");
		return -ENOMEM;
	}
	memset(&lcp_stats, 0, sizeof(lcp_stats));
	/* the ports, then the 802.1Q sub-interfaces: what Linux sends out of a sub-interface's
	 * mirror leaves through the sub-interface (tagged, dp_ctl_send()) */
	for (p = 0; p < dp_nb_ports; p++) {
		rc = tap_create(&lcp_mirrors[p], p, c, err, errlen);
		if (rc < 0) {
			lcp_tap_stop();
			return rc;
		}
		lcp_nb_mirrors = p + 1;
	}
	allmulti_enable();
	dp_ctl_punt_handler(DP_PUNT_ARP, &arp_next, &arp_next_arg);
	dp_ctl_punt_handler(DP_PUNT_ND, &nd_next, &nd_next_arg);
	if (arp_next != NULL)
		dp_ctl_punt_register(DP_PUNT_ARP, punt_arp, NULL);
	if (nd_next != NULL)
		dp_ctl_punt_register(DP_PUNT_ND, punt_nd, NULL);
	return dp_ctl_punt_register(DP_PUNT_HOST, punt_host, NULL);
}

void
lcp_tap_stop(void)
{
	uint16_t p;

	for (p = 0; p < lcp_nb_mirrors; p++) {
		struct lcp_mirror *mi = &lcp_mirrors[p];

		if (!mi->up)
			continue;
		rte_eth_dev_stop(mi->tap_port);
		rte_eth_dev_close(mi->tap_port);
		rte_eal_hotplug_remove("vdev", mi->vdev);
		mi->up = false;
	}
	lcp_nb_mirrors = 0;
}

/* one RTM_NEWADDR, acknowledged */
static int
addr_add(struct mnl_socket *s, int ifindex, int family, const void *addr, uint8_t plen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;
	const size_t alen = family == AF_INET ? 4 : 16;
	const uint32_t seq = (uint32_t)time(NULL);
	int n;

	nlh->nlmsg_type = RTM_NEWADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = (uint8_t)family;
	ifa->ifa_prefixlen = plen;
	ifa->ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (uint32_t)ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, alen, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, alen, addr);
	if (mnl_socket_sendto(s, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	n = (int)mnl_socket_recvfrom(s, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	n = mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(s), NULL, NULL);
	return n < 0 ? -errno : 0;
}

int
lcp_tap_addrs_set(const struct dp_config *cfg, char *err, size_t errlen)
{
	struct mnl_socket *s = mnl_socket_open(NETLINK_ROUTE);
	uint16_t p;
	int rc = 0;

	if (s == NULL || mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		snprintf(err, errlen, "linux: netlink: %s", strerror(errno));
		goto close;
	}
	for (p = 0; p < lcp_nb_mirrors && rc == 0; p++) {
		const struct dp_config_port *cp = &cfg->ports[p];

		if (cp->ip4 != 0) {
			const uint32_t a = rte_cpu_to_be_32(cp->ip4);

			rc = addr_add(s, lcp_mirrors[p].ifindex, AF_INET, &a, cp->ip4_plen);
		}
		if (rc == 0 && cp->has_ip6)
			rc = addr_add(s, lcp_mirrors[p].ifindex, AF_INET6, cp->ip6, cp->ip6_pfxlen);
		if (rc < 0)
			snprintf(err, errlen, "linux: cannot set the addresses of %s: %s",
				lcp_mirrors[p].name, strerror(-rc));
	}
close:
	if (s != NULL)
		mnl_socket_close(s);
	return rc;
}
