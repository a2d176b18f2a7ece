/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dpgen's ports: one RX and one TX queue on each port it uses, descriptor
 * counts and TX offloads from the project's driver profiles (drivers-cfg/),
 * each offload masked by what the device reports, as dpfwd does.
 */
#ifndef GEN_PORT_H
#define GEN_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>

struct gen_port {
	uint16_t id;
	char name[64];
	char driver[64];
	char profile[64]; /**< drivers-cfg file used, "generic" when none lists the driver */
	struct rte_ether_addr mac;
	int socket;
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint64_t tx_offloads; /**< applied */
	uint32_t max_frame;   /**< longest frame to carry, bytes without FCS */
	bool started;
};

/**
 * Look port @p id up, pick its driver profile from @p drivers_cfg (the first
 * file whose "drivers" lists the driver; generic defaults when none does or
 * the folder is missing) and decide descriptors and offloads.
 * @return 0, -ENODEV (no such port: @p err lists the ports there are), -EINVAL.
 */
int gen_port_probe(struct gen_port *p, uint16_t id, uint32_t max_frame, const char *drivers_cfg,
	char *err, size_t errlen);

/**
 * Configure one RX and one TX queue, start the port, promiscuous mode on
 * (dpgen receives whatever comes back, whatever its MAC).
 * @return 0, or -errno with the port and the reason in @p err.
 */
int gen_port_start(struct gen_port *p, struct rte_mempool *pool, char *err, size_t errlen);

/** Stop and close (net_pcap flushes its output file here). */
void gen_port_close(struct gen_port *p);

#endif /* GEN_PORT_H */
