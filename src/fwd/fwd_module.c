/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fwd as a module (dp_module.h): routes, neighbors, ICMP, local delivery; its config
 * sections [routes] and [neighbors] are route_config.c's.
 */
#include <stdio.h>
#include <string.h>

#include "dp_config.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_fwd_config.h"
#include "dp_icmp4.h"
#include "dp_module.h"
#include "dp_neigh.h"

static int
fwd_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	return dp_fwd_init(cfg, err, errlen);
}

/* The control lcore's part: neighbor timers, ARP, ND, the ICMP limits, route commands. */
static int
fwd_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	int rc = dp_neigh_start();

	if (rc == 0)
		rc = dp_arp_start();
	if (rc == 0)
		rc = dp_nd_start();
	if (rc == 0)
		rc = dp_icmp4_init(cfg);
	if (rc == 0)
		rc = dp_fwd_route_start();
	if (rc == 0)
		rc = dp_fwd_trace_register();
	if (rc < 0)
		snprintf(err, errlen, "fwd: cannot start the control path: %s", strerror(-rc));
	return rc;
}

static int
fwd_telemetry(const struct dp_config *cfg)
{
	int rc = dp_fwd_telemetry_register();

	if (rc == 0)
		rc = dp_neigh_telemetry_register();
	if (rc == 0)
		rc = dp_fwd_route_start_cmds(cfg->path);
	if (rc == 0)
		rc = dp_icmp4_telemetry_register();
	if (rc == 0)
		rc = dp_fwd_ip6_telemetry_register();
	return rc;
}

static struct dp_module fwd_module = {
	.name = "fwd",
	.sections = { &dp_fwd_routes_section, &dp_fwd_neighbors_section },
	.init = fwd_init,
	.start = fwd_start,
	.telemetry = fwd_telemetry,
	.fini = dp_fwd_fini,
};
DP_MODULE_REGISTER(fwd_module);
