/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "dp_common.h"
#include "dp_port.h"
#include "dp_telemetry.h"

RTE_LOG_REGISTER(dp_logtype_port, dpfwd.port, INFO);

struct dp_port dp_ports[DP_PORT_MAX];
bool dp_port_up[DP_PORT_MAX_IDS] __rte_cache_aligned; /* read by every worker each burst */
uint8_t dp_port_index[DP_PORT_MAX_IDS];
uint16_t dp_nb_ports;
uint16_t dp_nb_phys_ports;
uint8_t dp_port_vlan_ids[DP_CONFIG_MAX_PORTS][4096];
uint16_t dp_port_nb_vlans;
struct dp_port_vlan_lcore dp_port_vlan_stats[RTE_MAX_LCORE];
bool dp_port_mtu_uniform = true;

bool
dp_port_dev_is_pci(const char *dev)
{
	unsigned int a, b, c, d;
	char end;

	if (sscanf(dev, "%x:%x:%x.%x%c", &a, &b, &c, &d, &end) == 4)
		return true;
	if (sscanf(dev, "%x:%x:%x.%x,%c", &a, &b, &c, &d, &end) == 5)
		return true;
	return sscanf(dev, "%x:%x.%x%c", &a, &b, &c, &end) == 3;
}

int
dp_port_pci_arg(const char *dev, const char *devargs, char *buf, size_t len)
{
	int n;

	/* devargs given in dev win: the profile's are defaults */
	if (devargs[0] == '\0' || strchr(dev, ',') != NULL)
		n = snprintf(buf, len, "%s", dev);
	else
		n = snprintf(buf, len, "%s,%s", dev, devargs);
	return n >= 0 && (size_t)n < len ? 0 : -E2BIG;
}

/* sysfs's name of a PCI address: domain and lower case ("AF:00.0" -> "0000:af:00.0") */
static int
pci_sysfs_name(const char *dev, char *buf, size_t len)
{
	unsigned int d = 0, b, s, f;
	char end;

	if (sscanf(dev, "%x:%x:%x.%x%c", &d, &b, &s, &f, &end) != 4) {
		d = 0; /* the first try may have read "bus:slot" as domain and bus */
		if (sscanf(dev, "%x:%x.%x%c", &b, &s, &f, &end) != 3)
			return -EINVAL;
	}
	snprintf(buf, len, "%04x:%02x:%02x.%x", d, b, s, f);
	return 0;
}

void
dp_port_pci_diagnose(const char *sysfs_devices, const char *dev, char *buf, size_t len)
{
	static const char *const dpdk_drivers[] = { "vfio-pci", "uio_pci_generic", "igb_uio",
		NULL };
	char addr[32], path[PATH_MAX], link[PATH_MAX];
	const char *drv;
	struct stat st;
	ssize_t n;
	unsigned int k;

	if (pci_sysfs_name(dev, addr, sizeof(addr)) < 0) {
		snprintf(buf, len, "'%s' is not a PCI address (DDDD:BB:DD.F)", dev);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", sysfs_devices, addr);
	if (stat(path, &st) != 0) {
		snprintf(buf, len,
			"there is no PCI device %s on this machine (%s has none): check the "
			"address with dpdk-devbind.py --status, which lists the network devices "
			"and their drivers, then bind the port for DPDK (dpdk-devbind.py -b "
			"vfio-pci %s; a ConnectX stays on mlx5_core)",
			addr, sysfs_devices, addr);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/driver", sysfs_devices, addr);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0) {
		snprintf(buf, len,
			"PCI device %s has no driver: bind it for DPDK (dpdk-devbind.py -b "
			"vfio-pci %s; a ConnectX: modprobe mlx5_core), then check with "
			"dpdk-devbind.py --status",
			addr, addr);
		return;
	}
	link[n] = '\0';
	drv = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	for (k = 0; dpdk_drivers[k] != NULL; k++)
		if (strcmp(drv, dpdk_drivers[k]) == 0)
			break;
	if (dpdk_drivers[k] != NULL)
		snprintf(buf, len,
			"PCI device %s is bound to %s, but no DPDK driver took it: is it a NIC "
			"DPDK has a driver for (dpdk-devbind.py --status), and do EAL's -a/-b "
			"options (if given by hand) allow it? See the EAL log above",
			addr, drv);
	else if (strcmp(drv, "mlx5_core") == 0)
		snprintf(buf, len,
			"PCI device %s is a ConnectX on mlx5_core (as it should stay), but DPDK's "
			"mlx5 driver did not take it: install rdma-core (ibverbs-providers, "
			"libibverbs1) and check that ibv_devices lists it; see the EAL log above",
			addr);
	else
		snprintf(buf, len,
			"PCI device %s is bound to the kernel's %s driver: take it from the kernel "
			"and bind it for DPDK (dpdk-devbind.py --status shows its interface; ip "
			"link set <interface> down; dpdk-devbind.py -b vfio-pci %s)",
			addr, drv, addr);
}

int
dp_port_eal_args(const struct dp_config *cfg, int user_argc, char **user_argv, char **argv, int max)
{
	static const char *const allow[] = { "-a", "--allow", "-b", "--block", "--no-pci", NULL };
	bool any_pci = false;
	bool user_pci = dp_args_has(user_argc, user_argv, allow);
	int n = 0, rc;
	uint16_t i;

	for (i = 0; i < cfg->nb_ports; i++) {
		const struct dp_config_port *p = &cfg->ports[i];
		char arg[DP_CONFIG_DEV_LEN + 256];

		if (dp_port_dev_is_pci(p->dev)) {
			struct dp_port_profile prof;
			char path[PATH_MAX + 80], err[256];
			const char *devargs = "";

			any_pci = true;
			if (user_pci)
				continue;
			/* a profile named in the config may carry devargs (mlx5 tuning); a
			 * bad one is reported when the port is probed */
			if (p->profile[0] != '\0') {
				snprintf(path, sizeof(path), "%s/%s.ini", cfg->drivers_cfg,
					p->profile);
				if (dp_port_profile_load(path, &prof, err, sizeof(err)) == 0)
					devargs = prof.devargs;
			}
			rc = dp_port_pci_arg(p->dev, devargs, arg, sizeof(arg));
			if (rc == 0)
				rc = dp_args_push(argv, &n, max, "-a");
			if (rc == 0)
				rc = dp_args_push(argv, &n, max, arg);
		} else {
			snprintf(arg, sizeof(arg), "--vdev=%s", p->dev);
			rc = dp_args_push(argv, &n, max, arg);
		}
		if (rc < 0)
			goto fail;
	}
	if (!any_pci && !user_pci) {
		rc = dp_args_push(argv, &n, max, "--no-pci");
		if (rc < 0)
			goto fail;
	}
	return n;
fail:
	/* a failed call leaves nothing for the caller to free */
	while (n > 0)
		free(argv[--n]);
	return rc;
}

/* dp_port_mtu_uniform from the ports' MTUs and what their drivers hand over. */
static void
port_mtu_uniform_set(void)
{
	uint16_t i;

	dp_port_mtu_uniform = true;
	for (i = 0; i < dp_nb_ports; i++)
		dp_port_mtu_uniform &= dp_ports[i].mtu == dp_ports[0].mtu &&
				       dp_port_rx_max(&dp_ports[i]) == dp_ports[i].mtu;
}

/* What asks for a port's MTU, for errors: "[port0] mtu 9000", "profile net_tap's mtu 1500". */
static void
port_mtu_who(const struct dp_port *p, uint16_t i, char *who, size_t len)
{
	if (p->mtu_from == DP_PORT_MTU_CONFIG)
		snprintf(who, len, "[port%u] mtu %u", i, p->mtu);
	else if (p->mtu_from == DP_PORT_MTU_PROFILE)
		snprintf(who, len, "profile %s asks mtu %u", p->profile.name, p->mtu);
	else
		snprintf(who, len, "the default mtu %u", p->mtu);
}

/* Data room (mbuf headroom included) that a frame of @p mtu, with a VLAN tag and
 * CRC, needs on port @p p: past the room its driver keeps in front of the frame. */
static uint32_t
port_room(const struct dp_port *p, uint32_t mtu)
{
	return mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN + RTE_PKTMBUF_HEADROOM +
	       (p->has_profile ? p->profile.rx_headroom : 0);
}

uint32_t
dp_port_buf_size(uint32_t data_room)
{
	return rte_mempool_calc_obj_size((uint32_t)sizeof(struct rte_mbuf) + data_room, 0, NULL);
}

/*
 * A port's MTU against what the device takes (its MTU range and largest
 * frame), and, with [mempool] data_room given, against one packet buffer:
 * IPv4 is read from a packet's first segment, so a frame of that MTU (with a
 * VLAN tag) must fit in one. Without it the buffers are sized for the MTUs
 * (dp_port_data_room_needed()). The default MTU is checked only where it is
 * set: a device that cannot take 1500 keeps its own.
 */
static int
port_mtu_check(const struct dp_config *cfg, const struct dp_port *p,
	const struct rte_eth_dev_info *info, uint16_t i, char *err, size_t errlen)
{
	const struct dp_config_port *cp = &cfg->ports[i];
	const struct dp_config_loc *loc =
		p->mtu_from == DP_PORT_MTU_CONFIG ? &cp->mtu_at : &cp->loc;
	uint32_t frame = (uint32_t)p->mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;
	uint32_t skip = RTE_PKTMBUF_HEADROOM + (p->has_profile ? p->profile.rx_headroom : 0);
	uint32_t room = cfg->pool_data_room > skip ? cfg->pool_data_room - skip : 0;
	/* ethdev's overhead of a frame over its MTU (eth_dev_get_overhead_len) */
	uint32_t overhead = info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu
				    ? info->max_rx_pktlen - info->max_mtu
				    : RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	char who[96];

	if (p->mtu_from == DP_PORT_MTU_DEFAULT)
		return 0;
	port_mtu_who(p, i, who, sizeof(who));
	if (p->mtu < info->min_mtu || p->mtu > info->max_mtu)
		return dp_config_error(err, errlen, loc, "port%u (%s): %s, the device takes %u..%u",
			i, p->driver, who, info->min_mtu, info->max_mtu);
	/* ethdev's own limit (eth_dev_validate_mtu): the MTU and the driver's overhead fit
	 * max_rx_pktlen (net_memif, net_af_packet, net_tap: 1518 or 1522) */
	if ((uint32_t)p->mtu + overhead > info->max_rx_pktlen)
		return dp_config_error(err, errlen, loc,
			"port%u (%s): %s, the device takes frames of %u bytes at most (mtu %u)", i,
			p->driver, who, info->max_rx_pktlen, info->max_rx_pktlen - overhead);
	if (cfg->pool_data_room_set && frame > room)
		return dp_config_error(err, errlen, loc,
			"port%u (%s): %s, frames of %u bytes, more than a packet buffer holds "
			"([mempool] data_room %u: %u after the headroom%s); raise data_room to %u "
			"or leave it unset",
			i, p->driver, who, frame, cfg->pool_data_room, room,
			skip > RTE_PKTMBUF_HEADROOM ? " and the driver's rx_headroom" : "",
			frame + skip);
	return 0;
}

const char *
dp_port_mtu_from_str(uint8_t from)
{
	return from == DP_PORT_MTU_CONFIG    ? " (config)"
	       : from == DP_PORT_MTU_PROFILE ? " (the profile's)"
					     : " (the default)";
}

uint32_t
dp_port_rx_max(const struct dp_port *p)
{
	uint32_t whole = p->has_profile && p->profile.ip4_whole_max != 0
				 ? (uint32_t)p->profile.ip4_whole_max +
					   sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr)
				 : 0;

	return RTE_MAX((uint32_t)p->mtu, whole);
}

uint32_t
dp_port_data_room_needed(void)
{
	uint32_t need = 0;
	uint16_t i;

	for (i = 0; i < dp_nb_ports; i++) {
		const struct dp_port *p = &dp_ports[i];

		/* a sub-interface's frames arrive through its port's driver */
		need = RTE_MAX(need, port_room(p->vid ? &dp_ports[p->parent] : p, p->mtu));
	}
	return need;
}

uint16_t
dp_port_data_room(const struct dp_config *cfg)
{
	if (cfg->pool_data_room_set)
		return cfg->pool_data_room;
	return (uint16_t)RTE_MIN(RTE_MAX(dp_port_data_room_needed(), (uint32_t)cfg->pool_data_room),
		(uint32_t)UINT16_MAX);
}

/*
 * The packet buffers against the drivers that take buffers of a bounded size
 * (a profile's buf_max; net_af_xdp's umem chunks, which are the mbufs, hold a
 * page at most): the data room that every port's MTU asks for must fit them.
 */
static int
port_buf_check(const struct dp_config *cfg, char *err, size_t errlen)
{
	uint32_t room = dp_port_data_room(cfg);
	uint32_t size = dp_port_buf_size(room);
	uint16_t i, j;

	for (i = 0; i < dp_nb_phys_ports; i++) {
		const struct dp_port *p = &dp_ports[i];
		const struct dp_config_port *cp = &cfg->ports[i];
		uint32_t mtu = p->mtu;
		char who[96];

		if (!p->has_profile || p->profile.buf_max == 0 || size <= p->profile.buf_max)
			continue;
		if (cfg->pool_data_room_set)
			return dp_config_error(err, errlen, &cp->loc,
				"port%u (%s): [mempool] data_room %u makes packet buffers of %u "
				"bytes, this driver takes %u at most (profile %s: buf_max %u); "
				"lower data_room or leave it unset",
				i, p->driver, room, size, p->profile.buf_max, p->profile.name,
				p->profile.buf_max);
		/* the largest MTU whose buffers this driver takes */
		while (mtu > RTE_ETHER_MIN_MTU &&
			dp_port_buf_size(port_room(p, mtu)) > p->profile.buf_max)
			mtu--;
		/* the port whose MTU asks for the largest buffer */
		for (j = 0; j < dp_nb_ports; j++) {
			const struct dp_port *q = &dp_ports[j];

			if (port_room(q->vid ? &dp_ports[q->parent] : q, q->mtu) == room)
				break;
		}
		if (j == dp_nb_ports)
			j = i;
		port_mtu_who(&dp_ports[j], j, who, sizeof(who));
		return dp_config_error(err, errlen,
			p->mtu_from == DP_PORT_MTU_CONFIG ? &cp->mtu_at : &cp->loc,
			"port%u (%s): %s needs packet buffers of %u bytes (data room %u); this "
			"driver takes %u at most (profile %s: buf_max %u, rx_headroom %u): mtu "
			"%u at most on any port with this driver in use",
			i, p->driver, who, size, room, p->profile.buf_max, p->profile.name,
			p->profile.buf_max, p->profile.rx_headroom, mtu);
	}
	return 0;
}

/*
 * The sub-interfaces, after their ports: each takes its port's device, queues and MAC
 * (unless it has its own), and an MTU of at most its port's.
 */
static int
vlans_probe(const struct dp_config *cfg, char *err, size_t errlen)
{
	uint16_t i;

	memset(dp_port_vlan_ids, 0, sizeof(dp_port_vlan_ids));
	dp_port_nb_vlans = 0;
	memset(dp_port_vlan_stats, 0, sizeof(dp_port_vlan_stats));
	for (i = cfg->nb_phys_ports; i < cfg->nb_ports; i++) {
		const struct dp_config_port *cp = &cfg->ports[i];
		const struct dp_port *parent = &dp_ports[cp->parent];
		struct dp_port *p = &dp_ports[i];
		char base[sizeof(p->name)];

		*p = *parent;
		p->port_id = DP_PORT_VLAN_ID_BASE + i;
		dp_strlcpy(base, parent->name, sizeof(base));
		snprintf(p->name, sizeof(p->name), "%.50s.%u", base, cp->vid);
		p->vid = cp->vid;
		p->parent = cp->parent;
		p->nb_rxq = 0;
		p->rss_hf = 0;
		p->started = false;
		p->set_mac = cp->has_mac;
		if (cp->has_mac)
			p->mac = cp->mac;
		p->promisc = false;
		p->ip4 = cp->ip4;
		p->ip4_plen = cp->ip4_plen;
		if (cp->mtu != 0) {
			if (cp->mtu > parent->mtu)
				return dp_config_error(err, errlen, &cp->mtu_at,
					"port%u.%u: mtu %u is over its port's mtu %u%s", cp->parent,
					cp->vid, cp->mtu, parent->mtu,
					dp_port_mtu_from_str(parent->mtu_from));
			p->mtu = cp->mtu;
			p->mtu_from = DP_PORT_MTU_CONFIG;
		}
		dp_port_index[p->port_id] = (uint8_t)i;
		dp_port_vlan_ids[cp->parent][cp->vid] = (uint8_t)p->port_id;
		dp_port_nb_vlans++;
		dp_nb_ports++;
	}
	return 0;
}

uint16_t
dp_port_ref(uint16_t i)
{
	/* a sub-interface has its VID (1..4094); a port, even unprobed (unit tests), has none */
	if (i < dp_nb_ports && dp_port_is_vlan(i) && dp_ports[i].vid != 0)
		return DP_CONFIG_PORT_REF(dp_ports[i].parent, dp_ports[i].vid);
	return i;
}

const char *
dp_port_name(uint16_t i, char *buf, size_t len)
{
	return dp_config_port_ref_str(dp_port_ref(i), buf, len);
}

uint16_t
dp_port_ref_resolve(uint16_t ref)
{
	uint16_t i;

	if (!dp_config_port_ref_is_vlan(ref))
		return ref < dp_nb_ports ? ref : dp_nb_ports;
	for (i = dp_nb_phys_ports; i < dp_nb_ports; i++)
		if (dp_port_ref(i) == ref)
			return i;
	return dp_nb_ports;
}

int
dp_port_probe(
	const struct dp_config *cfg, uint16_t nb_workers, bool tx_chained, char *err, size_t errlen)
{
	uint16_t i;
	int rc;

	dp_nb_ports = 0;
	memset(dp_port_index, DP_PORT_NONE, sizeof(dp_port_index));
	for (i = 0; i < cfg->nb_phys_ports; i++) {
		const struct dp_config_port *cp = &cfg->ports[i];
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_dev_info info;
		char name[DP_CONFIG_DEV_LEN];
		size_t n;

		memset(p, 0, sizeof(*p));
		dp_strlcpy(name, cp->dev, sizeof(name));
		n = strcspn(name, ",");
		name[n] = '\0';
		if (rte_eth_dev_get_port_by_name(name, &p->port_id) != 0) {
			char why[768];

			if (dp_port_dev_is_pci(name))
				dp_port_pci_diagnose(
					"/sys/bus/pci/devices", name, why, sizeof(why));
			else
				snprintf(why, sizeof(why),
					"the virtual device failed to probe (see the EAL log above)");
			dp_config_error(
				err, errlen, &cp->loc, "port%u '%s' not found: %s", i, name, why);
			return -ENODEV;
		}
		rc = rte_eth_dev_info_get(p->port_id, &info);
		if (rc != 0)
			return dp_config_error(err, errlen, &cp->loc, "port%u: cannot get info: %s",
				i, strerror(-rc));
		dp_strlcpy(p->name, name, sizeof(p->name));
		dp_strlcpy(p->driver, info.driver_name, sizeof(p->driver));
		rc = dp_port_profile_find(cfg->drivers_cfg, cp->profile, p->driver, &p->profile,
			&p->has_profile, err, errlen);
		if (rc < 0)
			return rc;
		if (!p->has_profile)
			DP_LOG(WARNING, port,
				"port%u %s: no profile in %s lists driver %s; generic defaults", i,
				name, cfg->drivers_cfg, p->driver);
		/* found by driver name, after EAL probed: its devargs never reached -a */
		if (p->has_profile && cp->profile[0] == '\0' && p->profile.devargs[0] != '\0' &&
			dp_port_dev_is_pci(cp->dev) && strchr(cp->dev, ',') == NULL)
			DP_LOG(WARNING, port,
				"port%u %s: profile %s's devargs (%s) were not given to EAL: name the "
				"profile in the port's section (profile = %s) or add them to dev",
				i, name, p->profile.name, p->profile.devargs, p->profile.name);
		p->socket = rte_eth_dev_socket_id(p->port_id);
		if (p->socket < 0)
			p->socket = 0;
		p->nb_rxq = cp->rx_queues;
		p->nb_txq = nb_workers;
		if (p->nb_rxq > info.max_rx_queues)
			return dp_config_error(err, errlen, &cp->loc,
				"port%u (%s) has at most %u RX queues, the config polls %u", i,
				p->driver, info.max_rx_queues, p->nb_rxq);
		if (p->nb_txq > info.max_tx_queues)
			return dp_config_error(err, errlen, &cp->loc,
				"port%u (%s) has at most %u TX queues; dpfwd needs one per worker "
				"lcore (%u)",
				i, p->driver, info.max_tx_queues, p->nb_txq);
		p->rx_desc = cp->rx_desc ? cp->rx_desc : p->profile.rx_desc;
		p->tx_desc = cp->tx_desc ? cp->tx_desc : p->profile.tx_desc;
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &p->rx_desc, &p->tx_desc);
		if (rc != 0)
			return dp_config_error(err, errlen, &cp->loc,
				"port%u: descriptor counts rejected: %s", i, strerror(-rc));
		if (cp->mtu != 0) {
			p->mtu = cp->mtu;
			p->mtu_from = DP_PORT_MTU_CONFIG;
		} else if (p->profile.mtu != 0) {
			p->mtu = p->profile.mtu;
			p->mtu_from = DP_PORT_MTU_PROFILE;
		} else {
			p->mtu = RTE_ETHER_MTU;
			p->mtu_from = DP_PORT_MTU_DEFAULT;
		}
		rc = port_mtu_check(cfg, p, &info, i, err, errlen);
		if (rc < 0)
			return rc;
		p->ip4 = cp->ip4;
		p->ip4_plen = cp->ip4_plen;
		p->promisc = cp->promisc;
		p->set_mac = cp->has_mac;
		p->mac = cp->mac;
		dp_port_index[p->port_id] = (uint8_t)i;
		dp_nb_ports++;
	}
	dp_nb_phys_ports = dp_nb_ports;
	rc = vlans_probe(cfg, err, errlen);
	if (rc < 0)
		return rc;
	rc = port_buf_check(cfg, err, errlen);
	if (rc < 0)
		return rc;
	port_mtu_uniform_set();
	/* fwd cuts packets for a port of a smaller MTU than another's into chained mbufs */
	tx_chained |= !dp_port_mtu_uniform;
	for (i = 0; i < dp_nb_phys_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_dev_info info;
		struct dp_port_offloads off;
		char who[DP_CONFIG_DEV_LEN + 16];

		rc = rte_eth_dev_info_get(p->port_id, &info);
		if (rc != 0)
			return dp_config_error(err, errlen, &cfg->ports[i].loc,
				"port%u: cannot get info: %s", i, strerror(-rc));
		snprintf(who, sizeof(who), "port%u %s", i, p->name);
		dp_port_offloads_mask(&p->profile, &info, p->nb_rxq, tx_chained, who, &off);
		p->rx_offloads = off.rx;
		p->tx_offloads = off.tx;
		p->rss_hf = off.rss_hf;
		p->rx_ip4_cksum = (p->rx_offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
		{
			char rxo[256], txo[256];

			dp_port_offload_str(p->rx_offloads, true, rxo, sizeof(rxo));
			dp_port_offload_str(p->tx_offloads, false, txo, sizeof(txo));
			DP_LOG(INFO, port,
				"%s: driver %s, profile %s, socket %d, %u rxq x %u desc, %u txq x %u "
				"desc, rx offloads [%s], tx offloads [%s], rss %s, mtu %u%s",
				who, p->driver, p->profile.name, p->socket, p->nb_rxq, p->rx_desc,
				p->nb_txq, p->tx_desc, rxo, txo, p->rss_hf ? "on" : "off", p->mtu,
				dp_port_mtu_from_str(p->mtu_from));
		}
	}
	for (i = dp_nb_phys_ports; i < dp_nb_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct dp_port *parent = &dp_ports[p->parent];

		/* the device takes the tags off where it can; port_rx and eth_classify read
		 * them from the mbufs then, and from the frames where not */
		if (!(parent->rx_offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP)) {
			struct rte_eth_dev_info info;

			rc = rte_eth_dev_info_get(parent->port_id, &info);
			if (rc != 0)
				return dp_config_error(err, errlen, &cfg->ports[p->parent].loc,
					"port%u: cannot get info: %s", p->parent, strerror(-rc));
			if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) {
				parent->rx_offloads |= RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
				DP_LOG(INFO, port, "port%u %s: VLAN tags taken off by the device",
					p->parent, parent->name);
			}
		}
		p->rx_offloads = parent->rx_offloads;
		p->tx_offloads = parent->tx_offloads;
		p->vlan_insert = (parent->tx_offloads & RTE_ETH_TX_OFFLOAD_VLAN_INSERT) != 0;
		DP_LOG(INFO, port,
			"port%u.%u %s: VLAN %u of port%u, mtu %u%s, tag taken off %s, inserted %s",
			p->parent, p->vid, p->name, p->vid, p->parent, p->mtu,
			dp_port_mtu_from_str(p->mtu_from),
			(parent->rx_offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) ? "by the device"
									      : "in software",
			p->vlan_insert ? "by the device" : "in software");
	}
	return 0;
}

void
dp_port_mem_demand(struct dp_mem_demand *per_socket)
{
	uint16_t i;

	for (i = 0; i < dp_nb_phys_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct dp_mem_demand *d = &per_socket[p->socket];

		d->rx_desc += (uint32_t)p->nb_rxq * p->rx_desc;
		d->tx_desc += (uint32_t)p->nb_txq * p->tx_desc;
		d->tx_bufs += p->nb_txq;
	}
}

/* Sub-interfaces: up with their port; a MAC of their own is one more their port takes. */
static int
vlans_start(char *err, size_t errlen)
{
	uint16_t i;
	int rc;

	for (i = dp_nb_phys_ports; i < dp_nb_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		const struct dp_port *parent = &dp_ports[p->parent];

		if (!p->set_mac)
			p->mac = parent->mac;
		else if (!rte_is_same_ether_addr(&p->mac, &parent->mac)) {
			rc = rte_eth_dev_mac_addr_add(parent->port_id, &p->mac, 0);
			if (rc < 0 && rc != -ENOTSUP) {
				snprintf(err, errlen,
					"port%u.%u %s: its port cannot take its MAC: %s", p->parent,
					p->vid, p->name, strerror(-rc));
				return rc;
			}
		}
		__atomic_store_n(&dp_port_up[p->port_id],
			__atomic_load_n(&dp_port_up[parent->port_id], __ATOMIC_RELAXED),
			__ATOMIC_RELEASE);
	}
	return 0;
}

int
dp_port_start_all(char *err, size_t errlen)
{
	uint16_t i, q;
	int rc;

	for (i = 0; i < dp_nb_phys_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_conf conf;
		struct rte_eth_dev_info info;
		struct rte_eth_rxconf rxc;
		struct rte_eth_txconf txc;
		struct rte_mempool *mp = dp_mem_pool_get(p->socket);

		memset(&conf, 0, sizeof(conf));
		conf.rxmode.offloads = p->rx_offloads;
		conf.txmode.offloads = p->tx_offloads;
		if (p->rss_hf) {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf.rss_hf = p->rss_hf;
		}
		rc = rte_eth_dev_configure(p->port_id, p->nb_rxq, p->nb_txq, &conf);
		if (rc < 0) {
			snprintf(err, errlen, "port%u %s (%s): configure failed: %s", i, p->name,
				p->driver, strerror(-rc));
			return rc;
		}
		/* after configure (ethdev's rule), before the queues: drivers size their
		 * buffers from it; net_tap and net_af_packet set the kernel's side. The
		 * default only where ethdev has another (it starts at 1500), and a device
		 * that cannot take it keeps its own */
		{
			uint16_t cur = 0;

			if (p->mtu_from != DP_PORT_MTU_DEFAULT ||
				(rte_eth_dev_get_mtu(p->port_id, &cur) == 0 && cur != p->mtu)) {
				char who[96];

				rc = rte_eth_dev_set_mtu(p->port_id, p->mtu);
				if (rc < 0 && p->mtu_from == DP_PORT_MTU_DEFAULT) {
					DP_LOG(NOTICE, port,
						"port%u %s (%s): keeps its mtu %u (setting 1500: "
						"%s)",
						i, p->name, p->driver, cur, strerror(-rc));
					p->mtu = cur;
				} else if (rc == -ENOTSUP) {
					/* a device without an MTU (net_pcap, net_ring, net_null):
					 * the checks above passed, its frames may be that long */
					DP_LOG(NOTICE, port,
						"port%u %s (%s): no MTU setting in the device; dpfwd "
						"keeps to mtu %u itself (longer frames received are "
						"dropped, longer packets sent are fragmented or "
						"answered with ICMP)",
						i, p->name, p->driver, p->mtu);
				} else if (rc < 0) {
					port_mtu_who(p, i, who, sizeof(who));
					snprintf(err, errlen,
						"port%u %s (%s): %s: cannot set it: %s", i, p->name,
						p->driver, who, strerror(-rc));
					return rc;
				}
			}
		}
		rte_eth_dev_info_get(p->port_id, &info);
		rxc = info.default_rxconf;
		rxc.offloads = p->rx_offloads;
		for (q = 0; q < p->nb_rxq; q++) {
			rc = rte_eth_rx_queue_setup(p->port_id, q, p->rx_desc, p->socket, &rxc, mp);
			if (rc < 0) {
				snprintf(err, errlen, "port%u %s: RX queue %u setup failed: %s", i,
					p->name, q, strerror(-rc));
				return rc;
			}
		}
		txc = info.default_txconf;
		txc.offloads = p->tx_offloads;
		for (q = 0; q < p->nb_txq; q++) {
			rc = rte_eth_tx_queue_setup(p->port_id, q, p->tx_desc, p->socket, &txc);
			if (rc < 0) {
				snprintf(err, errlen, "port%u %s: TX queue %u setup failed: %s", i,
					p->name, q, strerror(-rc));
				return rc;
			}
		}
		if (p->set_mac) {
			rc = rte_eth_dev_default_mac_addr_set(p->port_id, &p->mac);
			if (rc < 0) {
				snprintf(err, errlen, "port%u %s (%s): cannot set MAC: %s", i,
					p->name, p->driver, strerror(-rc));
				return rc;
			}
		}
		rc = rte_eth_dev_start(p->port_id);
		if (rc < 0) {
			snprintf(err, errlen, "port%u %s (%s): start failed: %s", i, p->name,
				p->driver, strerror(-rc));
			return rc;
		}
		p->started = true;
		memset(&p->stats_prev, 0, sizeof(p->stats_prev));
		memset(&p->stats_base, 0, sizeof(p->stats_base));
		p->link_changes = 0;
		/* as the driver reports it now (a memif server: down until a peer
		 * connects); a driver that cannot tell is taken as up. From now on
		 * dp_port_link_poll() follows it. */
		{
			struct rte_eth_link link;

			memset(&link, 0, sizeof(link));
			__atomic_store_n(&dp_port_up[p->port_id],
				rte_eth_link_get_nowait(p->port_id, &link) != 0 ||
					link.link_status == RTE_ETH_LINK_UP,
				__ATOMIC_RELEASE);
		}
		if (p->promisc) {
			rc = rte_eth_promiscuous_enable(p->port_id);
			if (rc < 0 && rc != -ENOTSUP) {
				snprintf(err, errlen,
					"port%u %s: cannot enable promiscuous mode: %s", i, p->name,
					strerror(-rc));
				return rc;
			}
		}
		rte_eth_macaddr_get(p->port_id, &p->mac);
		{
			char mac[RTE_ETHER_ADDR_FMT_SIZE];

			rte_ether_format_addr(mac, sizeof(mac), &p->mac);
			DP_LOG(INFO, port, "port%u %s started, MAC %s", i, p->name, mac);
		}
	}
	rc = vlans_start(err, errlen);
	/* a device that kept its own MTU changed p->mtu above */
	if (rc == 0)
		port_mtu_uniform_set();
	return rc;
}

void
dp_port_close_all(void)
{
	uint16_t i;

	for (i = 0; i < dp_nb_phys_ports; i++) {
		struct dp_port *p = &dp_ports[i];

		__atomic_store_n(&dp_port_up[p->port_id], false, __ATOMIC_RELEASE);
		if (p->started)
			rte_eth_dev_stop(p->port_id);
		rte_eth_dev_close(p->port_id);
		p->started = false;
	}
	for (i = dp_nb_phys_ports; i < dp_nb_ports; i++)
		__atomic_store_n(&dp_port_up[dp_ports[i].port_id], false, __ATOMIC_RELEASE);
	memset(dp_port_index, DP_PORT_NONE, sizeof(dp_port_index));
	memset(dp_port_vlan_ids, 0, sizeof(dp_port_vlan_ids));
	dp_nb_ports = 0;
	dp_nb_phys_ports = 0;
	dp_port_nb_vlans = 0;
}

uint32_t
dp_port_tx_reclaim(void)
{
	uint32_t held = 0;
	uint16_t i, q;

	for (i = 0; i < dp_nb_phys_ports; i++) {
		struct dp_port *p = &dp_ports[i];

		if (!p->started)
			continue;
		for (q = 0; q < p->nb_txq; q++) {
			int rc = rte_eth_tx_done_cleanup(p->port_id, q, 0);

			if (rc != -ENOTSUP)
				continue;
			if (strcmp(p->driver, "net_af_xdp") == 0) {
				rte_eth_tx_burst(p->port_id, q, NULL, 0);
				rte_eth_tx_burst(p->port_id, q, NULL, 0);
			} else if (p->profile.tx_keeps_sent) {
				held += p->tx_desc;
			}
		}
	}
	return held;
}

unsigned int
dp_port_link_poll(void)
{
	unsigned int changed = 0;
	uint16_t i;

	for (i = 0; i < dp_nb_phys_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_link link;
		bool up;

		if (!p->started || rte_eth_link_get_nowait(p->port_id, &link) != 0)
			continue;
		up = link.link_status == RTE_ETH_LINK_UP;
		if (up == __atomic_load_n(&dp_port_up[p->port_id], __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&dp_port_up[p->port_id], up, __ATOMIC_RELEASE);
		p->link_changes++;
		changed++;
		DP_LOG(INFO, port, "port%u %s: link %s%s", i, p->name, up ? "up" : "down",
			up ? "" : "; not polled, packets routed to it are dropped (port_down)");
	}
	/* a sub-interface's link is its port's */
	for (i = dp_nb_phys_ports; changed != 0 && i < dp_nb_ports; i++)
		__atomic_store_n(&dp_port_up[dp_ports[i].port_id],
			__atomic_load_n(&dp_port_up[dp_ports[dp_ports[i].parent].port_id],
				__ATOMIC_RELAXED),
			__ATOMIC_RELEASE);
	return changed;
}

bool
dp_port_needs_unmap_guard(void)
{
	uint16_t i;

	for (i = 0; i < dp_nb_phys_ports; i++)
		if (strcmp(dp_ports[i].driver, "net_memif") == 0)
			return true;
	return false;
}

/*
 * The port's counters as telemetry shows them: monotonic. A raw read of all
 * zeros (net_memif while its peer is gone) shows the last totals; a counter
 * that went back (a driver that resets on reconnect) adds what it had before.
 */
static void
port_stats_read(struct dp_port *p, struct rte_eth_stats *out)
{
	struct rte_eth_stats cur;
	uint64_t *c, *prev, *base, *o;
	size_t k, n = offsetof(struct rte_eth_stats, q_ipackets) / sizeof(uint64_t);

	memset(&cur, 0, sizeof(cur));
	memset(out, 0, sizeof(*out));
	rte_eth_stats_get(p->port_id, &cur);
	c = (uint64_t *)&cur;
	prev = (uint64_t *)&p->stats_prev;
	base = (uint64_t *)&p->stats_base;
	o = (uint64_t *)out;
	if (cur.ipackets == 0 && cur.opackets == 0 && cur.ibytes == 0 && cur.obytes == 0 &&
		cur.imissed == 0 && cur.oerrors == 0)
		c = prev;
	for (k = 0; k < n; k++) {
		if (c[k] < prev[k])
			base[k] += prev[k];
		prev[k] = c[k];
		o[k] = base[k] + c[k];
	}
	/* per queue: raw, as the driver counts them (not every driver does) */
	memcpy(out->q_ipackets, cur.q_ipackets, sizeof(cur.q_ipackets));
	memcpy(out->q_opackets, cur.q_opackets, sizeof(cur.q_opackets));
}

/* The first @p n of a per-queue counter array (those ethdev has room for). */
static json_t *
queue_counts(const uint64_t *q, uint16_t n)
{
	json_t *arr = json_array();
	uint16_t k;

	for (k = 0; arr != NULL && k < RTE_MIN(n, RTE_ETHDEV_QUEUE_STAT_CNTRS); k++)
		json_array_append_new(arr, json_integer((json_int_t)q[k]));
	return arr;
}

static json_t *
ports_fill(void *arg)
{
	json_t *arr = json_array();
	uint16_t i;

	RTE_SET_USED(arg);
	for (i = 0; i < dp_nb_phys_ports; i++) {
		struct dp_port *p = &dp_ports[i];
		struct rte_eth_stats st;
		struct rte_eth_link link;
		char mac[RTE_ETHER_ADDR_FMT_SIZE], rxo[256], txo[256];
		json_t *o;

		memset(&link, 0, sizeof(link));
		port_stats_read(p, &st);
		rte_eth_link_get_nowait(p->port_id, &link);
		rte_ether_format_addr(mac, sizeof(mac), &p->mac);
		dp_port_offload_str(p->rx_offloads, true, rxo, sizeof(rxo));
		dp_port_offload_str(p->tx_offloads, false, txo, sizeof(txo));
		o = json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:s, "
			      "s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"index", i, "port_id", p->port_id, "name", p->name, "driver", p->driver,
			"profile", p->profile.name, "mac", mac, "socket", p->socket, "rx_queues",
			p->nb_rxq, "tx_queues", p->nb_txq, "rx_desc", p->rx_desc, "tx_desc",
			p->tx_desc, "rx_offloads", rxo, "tx_offloads", txo, "link_up",
			link.link_status == RTE_ETH_LINK_UP, "link_speed_mbps",
			(json_int_t)link.link_speed, "ipackets", (json_int_t)st.ipackets,
			"opackets", (json_int_t)st.opackets, "ibytes", (json_int_t)st.ibytes,
			"obytes", (json_int_t)st.obytes, "imissed", (json_int_t)st.imissed,
			"ierrors", (json_int_t)st.ierrors, "oerrors", (json_int_t)st.oerrors,
			"rx_nombuf", (json_int_t)st.rx_nombuf);
		if (o != NULL) {
			uint16_t mtu = 0;

			rte_eth_dev_get_mtu(p->port_id, &mtu);
			json_object_set_new(o, "mtu", json_integer(mtu));
			json_object_set_new(
				o, "rx_queue_pkts", queue_counts(st.q_ipackets, p->nb_rxq));
			json_object_set_new(
				o, "tx_queue_pkts", queue_counts(st.q_opackets, p->nb_txq));
			json_object_set_new(o, "polled",
				json_boolean(__atomic_load_n(
					&dp_port_up[p->port_id], __ATOMIC_RELAXED)));
			json_object_set_new(
				o, "link_changes", json_integer((json_int_t)p->link_changes));
			json_array_append_new(arr, o);
		}
	}
	return arr;
}

/* The sub-interfaces: what each is, and its counters summed over the workers. */
static json_t *
vlans_fill(void *arg)
{
	json_t *arr = json_array();
	uint16_t i;

	RTE_SET_USED(arg);
	for (i = dp_nb_phys_ports; arr != NULL && i < dp_nb_ports; i++) {
		const struct dp_port *p = &dp_ports[i];
		struct dp_port_vlan_stats sum = { 0 };
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		unsigned int l;
		json_t *o;

		for (l = 0; l < RTE_MAX_LCORE; l++) {
			const struct dp_port_vlan_stats *st = dp_port_vlan_stats_of(l, i);

			sum.rx_pkts += __atomic_load_n(&st->rx_pkts, __ATOMIC_RELAXED);
			sum.rx_bytes += __atomic_load_n(&st->rx_bytes, __ATOMIC_RELAXED);
			sum.tx_pkts += __atomic_load_n(&st->tx_pkts, __ATOMIC_RELAXED);
			sum.tx_bytes += __atomic_load_n(&st->tx_bytes, __ATOMIC_RELAXED);
		}
		rte_ether_format_addr(mac, sizeof(mac), &p->mac);
		o = json_pack("{s:i, s:i, s:i, s:s, s:s, s:i, s:b, s:b, s:I, s:I, s:I, s:I}",
			"index", i, "port", p->parent, "vid", p->vid, "name", p->name, "mac", mac,
			"mtu", p->mtu, "tag_offload", p->vlan_insert, "polled",
			__atomic_load_n(&dp_port_up[p->port_id], __ATOMIC_RELAXED), "rx_pkts",
			(json_int_t)sum.rx_pkts, "rx_bytes", (json_int_t)sum.rx_bytes, "tx_pkts",
			(json_int_t)sum.tx_pkts, "tx_bytes", (json_int_t)sum.tx_bytes);
		if (o != NULL)
			json_array_append_new(arr, o);
	}
	return arr;
}

int
dp_port_telemetry_register(void)
{
	int rc = dp_telemetry_section_register("ports", "/dpfwd/port/stats",
		"Ports: driver, profile, queues, offloads applied, ethdev counters", ports_fill,
		NULL);

	if (rc < 0)
		return rc;
	return dp_telemetry_section_register("vlans", "/dpfwd/port/vlans",
		"802.1Q sub-interfaces ([portN.VID]): VLAN, MAC, MTU, counters kept by the workers",
		vlans_fill, NULL);
}
