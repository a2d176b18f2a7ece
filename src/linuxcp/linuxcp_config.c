/* SPDX-License-Identifier: BSD-3-Clause */
/* [linux]: the Linux control plane's section and its keys. */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_linuxcp.h"

struct dp_config_section dp_linuxcp_section;

const struct dp_linuxcp_config *
dp_linuxcp_config(const struct dp_config *cfg)
{
	return dp_config_section_data(cfg, &dp_linuxcp_section, 0);
}

/* a pattern with exactly one %u and nothing else that printf reads, short enough for
 * the names it makes (IFNAMSIZ, with a port number of up to 2 digits) */
static int
linuxcp_names_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_linuxcp_config *c = base;
	const char *u = strstr(v, "%u");
	const char *pct = strchr(v, '%');

	if (u == NULL || pct != u || strchr(u + 2, '%') != NULL || strlen(v) > 12 ||
		strchr(v, '/') != NULL || strchr(v, ' ') != NULL)
		return dp_config_error(err, errlen, at->loc,
			"names '%s': expected an interface name pattern with one %%u (the port "
			"number), at most 12 characters, no '/' or space (e.g. dp%%u)",
			v);
	dp_strlcpy(c->names, v, sizeof(c->names));
	c->names_at = *at->loc;
	return 0;
}

static int
linuxcp_netns_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_linuxcp_config *c = base;

	/* net_tap makes its kernel interface in the namespace of the thread that
	 * probes it, and keeps talking to it there by name */
	if (v[0] != '\0')
		return dp_config_error(err, errlen, at->loc,
			"netns '%s': the mirrors can only be in dpfwd's own network namespace; "
			"run dpfwd in that namespace (ip netns exec %s dpfwd ...) and leave "
			"netns out",
			v, v);
	c->netns[0] = '\0';
	return 0;
}

static const struct dp_config_key linuxcp_keys[] = {
	{ .name = "enabled",
		.type = DP_CONFIG_BOOL,
		DP_CONFIG_FIELD(struct dp_linuxcp_config, enabled),
		.def = "off",
		.doc = "a TAP mirror interface a port, and routes from the kernel's tables" },
	{ .name = "names",
		.type = DP_CONFIG_CUSTOM,
		.parse = linuxcp_names_parse,
		.syntax = "PATTERN",
		.def = "dp%u",
		.doc = "the mirrors' interface names: a pattern with one %u, the port number; a "
		       "sub-interface's is its port's and .VID" },
	{ .name = "netlink_rcvbuf",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_linuxcp_config, netlink_rcvbuf),
		.min = 4096,
		.max = 1u << 30,
		.def = "33554432",
		.doc = "bytes of the netlink socket's receive buffer: notifications that arrive "
		       "while it is full are lost, and all routes dumped again" },
	{ .name = "netns",
		.type = DP_CONFIG_CUSTOM,
		.parse = linuxcp_netns_parse,
		.syntax = "NAME",
		.unset = "dpfwd's own",
		.doc = "the network namespace of the mirrors: only dpfwd's own" },
};

static bool
linuxcp_open(struct dp_config *cfg __rte_unused, void *base, unsigned int idx __rte_unused,
	const struct dp_config_loc *loc)
{
	struct dp_linuxcp_config *c = base;

	if (c->loc.file != NULL)
		return false;
	c->loc = *loc;
	return true;
}

struct dp_config_section dp_linuxcp_section = {
	.name = "linux",
	.doc = "The Linux control plane (docs/linux-cp.md): a TAP mirror interface for each "
	       "port and 802.1Q sub-interface, in dpfwd's network namespace, with the port's MAC, MTU and addresses; "
	       "packets to the router that the fast path does not take go to it, and routes "
	       "the kernel has through the mirrors become dpfwd routes.",
	.keys = linuxcp_keys,
	.nb_keys = DP_ARRAY_SIZE(linuxcp_keys),
	.size = sizeof(struct dp_linuxcp_config),
	.open = linuxcp_open,
};
