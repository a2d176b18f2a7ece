/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "dp_common.h"
#include "dp_port.h"
#include "gen_port.h"

#define LINK_WAIT_MS 3000u

int
gen_port_probe(struct gen_port *p, uint16_t id, uint32_t max_frame, const char *drivers_cfg,
	char *err, size_t errlen)
{
	struct dp_port_profile prof;
	struct rte_eth_dev_info info;
	bool found;
	int rc;

	memset(p, 0, sizeof(*p));
	if (!rte_eth_dev_is_valid_port(id)) {
		char list[256] = "";
		size_t len = 0;
		uint16_t pid;

		RTE_ETH_FOREACH_DEV(pid)
		{
			char name[RTE_ETH_NAME_MAX_LEN];

			if (rte_eth_dev_get_name_by_port(pid, name) == 0 && len < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u (%s)",
					len ? ", " : "", pid, name);
		}
		snprintf(err, errlen,
			"port %u does not exist; %s%s. Create ports with EAL options before '--', "
			"e.g. --vdev net_null0 (a sink), --vdev net_ring0 (a loopback: what is "
			"sent "
			"comes back), --vdev net_pcap0,tx_pcap=out.pcap",
			id, len ? "the ports are " : "there is no port", list);
		return -ENODEV;
	}
	rc = rte_eth_dev_info_get(id, &info);
	if (rc != 0) {
		snprintf(err, errlen, "port %u: cannot get device info: %s", id, strerror(-rc));
		return rc;
	}
	p->id = id;
	rte_eth_dev_get_name_by_port(id, p->name);
	dp_strlcpy(p->driver, info.driver_name, sizeof(p->driver));
	/* the same profile dpfwd would use; a bad profile file is an error there */
	rc = dp_port_profile_find(drivers_cfg, "", p->driver, &prof, &found, err, errlen);
	if (rc < 0)
		return rc;
	dp_strlcpy(p->profile, prof.name, sizeof(p->profile));
	p->socket = rte_eth_dev_socket_id(id);
	if (p->socket < 0)
		p->socket = 0;
	p->rx_desc = prof.rx_desc;
	p->tx_desc = prof.tx_desc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(id, &p->rx_desc, &p->tx_desc);
	if (rc != 0) {
		snprintf(err, errlen, "port %u (%s): descriptor counts rejected: %s", id, p->driver,
			strerror(-rc));
		return rc;
	}
	/* only what the device offers */
	p->tx_offloads = prof.tx_offloads & info.tx_offload_capa;
	p->max_frame = max_frame;
	if (max_frame > RTE_ETHER_MAX_LEN - RTE_ETHER_CRC_LEN &&
		max_frame - RTE_ETHER_HDR_LEN > info.max_mtu) {
		snprintf(err, errlen,
			"port %u (%s): frames of %u bytes need an MTU of %u, the device allows %u",
			id, p->driver, max_frame + RTE_ETHER_CRC_LEN, max_frame - RTE_ETHER_HDR_LEN,
			info.max_mtu);
		return -EINVAL;
	}
	rte_eth_macaddr_get(id, &p->mac);
	return 0;
}

int
gen_port_start(struct gen_port *p, struct rte_mempool *pool, char *err, size_t errlen)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txconf;
	struct rte_eth_link link;
	unsigned int waited = 0;
	int rc;

	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = p->tx_offloads;
	if (p->max_frame > RTE_ETHER_MAX_LEN - RTE_ETHER_CRC_LEN)
		conf.rxmode.mtu = p->max_frame - RTE_ETHER_HDR_LEN;
	rc = rte_eth_dev_configure(p->id, 1, 1, &conf);
	if (rc != 0) {
		snprintf(err, errlen, "port %u (%s): configure failed: %s", p->id, p->driver,
			strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_info_get(p->id, &info);
	if (rc != 0)
		return rc;
	rc = rte_eth_rx_queue_setup(p->id, 0, p->rx_desc, (unsigned int)p->socket, NULL, pool);
	if (rc != 0) {
		snprintf(err, errlen, "port %u (%s): RX queue setup failed: %s", p->id, p->driver,
			strerror(-rc));
		return rc;
	}
	txconf = info.default_txconf;
	txconf.offloads = p->tx_offloads;
	rc = rte_eth_tx_queue_setup(p->id, 0, p->tx_desc, (unsigned int)p->socket, &txconf);
	if (rc != 0) {
		snprintf(err, errlen, "port %u (%s): TX queue setup failed: %s", p->id, p->driver,
			strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_start(p->id);
	if (rc != 0) {
		snprintf(err, errlen, "port %u (%s): start failed: %s", p->id, p->driver,
			strerror(-rc));
		return rc;
	}
	p->started = true;
	/* not every virtual device has a promiscuous mode; it also does not need one */
	rc = rte_eth_promiscuous_enable(p->id);
	if (rc != 0 && rc != -ENOTSUP)
		fprintf(stderr, "dpgen: port %u: promiscuous mode: %s\n", p->id, strerror(-rc));
	/* a NIC may take a moment after start; virtual devices are up at once */
	for (;;) {
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(p->id, &link);
		if (link.link_status == RTE_ETH_LINK_UP || waited >= LINK_WAIT_MS)
			break;
		rte_delay_ms(100);
		waited += 100;
	}
	if (link.link_status != RTE_ETH_LINK_UP)
		fprintf(stderr, "dpgen: warning: port %u (%s) link is down after %u ms\n", p->id,
			p->driver, LINK_WAIT_MS);
	return 0;
}

void
gen_port_close(struct gen_port *p)
{
	if (!p->started)
		return;
	rte_eth_dev_stop(p->id);
	rte_eth_dev_close(p->id);
	p->started = false;
}
