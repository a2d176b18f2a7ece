/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The Linux control plane (docs/linux-cp.md): one TAP interface a port (and
 * 802.1Q sub-interface), the "mirror", whose kernel side has the port's name pattern, MAC, MTU and
 * addresses; packets to the router that the fast path does not take go up
 * to it, and what Linux sends out of it leaves through the port. Routes that
 * appear in the kernel's tables through a mirror become dpfwd routes
 * (netlink, read by the control lcore).
 */
#ifndef DP_LINUXCP_H
#define DP_LINUXCP_H

#include <stdbool.h>
#include <stdint.h>

#include "dp_config.h"

/** Longest mirror name pattern and name (IFNAMSIZ). */
#define DP_LINUXCP_NAME_LEN 16

/** [linux] */
struct dp_linuxcp_config {
	bool enabled;                    /**< enabled = on */
	char netns[64];                  /**< "" = dpfwd's own */
	char names[DP_LINUXCP_NAME_LEN]; /**< mirror names: a pattern with one %u (the port) */
	uint32_t netlink_rcvbuf;         /**< the netlink socket's receive buffer, bytes */
	struct dp_config_loc loc;        /**< the section's line */
	struct dp_config_loc names_at;   /**< where names was given */
};

/** The [linux] section of @p cfg. */
const struct dp_linuxcp_config *dp_linuxcp_config(const struct dp_config *cfg);

#endif /* DP_LINUXCP_H */
