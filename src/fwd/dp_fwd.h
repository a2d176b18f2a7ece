/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPv4 forwarding tables: routes in DPDK's rte_lpm, whose 24-bit result is an
 * index into the next-hop table; each next hop carries the Ethernet header
 * to write (neighbor MAC, egress port MAC) and the egress port.
 */
#ifndef DP_FWD_H
#define DP_FWD_H

#include <stdint.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_lpm.h>

#include "dp_config.h"

#define DP_FWD_NH_LOCAL 0 /**< next hop index of the router's own addresses */

enum {
	DP_FWD_NH_F_VALID = 1 << 0,
	DP_FWD_NH_F_RESOLVED = 1 << 1, /**< l2 holds the neighbor's MAC */
	DP_FWD_NH_F_LOCAL = 1 << 2,
};

struct dp_fwd_nh {
	struct rte_ether_hdr l2; /**< written in front of every packet sent to this hop */
	uint16_t port;		 /**< config port index (edge DP_GRAPH_EDGE_PORT_TX(port)) */
	uint8_t flags;
	uint8_t pad;
	uint32_t gw; /**< host order; 0 for on-link routes without a neighbor */
} __rte_aligned(32);

struct dp_fwd_table {
	struct rte_lpm *lpm;
	struct dp_fwd_nh *nh;
	uint32_t nb_nh;
	uint32_t max_nh;
	uint32_t nb_routes;
};

/** The table the workers read. */
extern struct dp_fwd_table dp_fwd;

/**
 * Build the table from the config: local /32s and connected subnets of every
 * port address, static neighbors (as /32 host routes), then every route.
 * Ports must be probed and started (their MACs are used).
 * Also points ip4_output's edges at the port_tx clones named in @p tx_names.
 * @return 0, -ENOMEM, -ENOSPC (too many next hops), -EINVAL (message in @p err).
 */
int dp_fwd_init(const struct dp_config *cfg, char tx_names[][RTE_NODE_NAMESIZE],
	uint16_t nb_tx, char *err, size_t errlen);

/** Free the table. */
void dp_fwd_fini(void);

/** Register the "fwd" telemetry section (/dpfwd/fwd/routes). */
int dp_fwd_telemetry_register(void);

#endif /* DP_FWD_H */
