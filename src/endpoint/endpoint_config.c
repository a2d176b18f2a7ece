/* SPDX-License-Identifier: BSD-3-Clause */
/* [endpoint]: the endpoints' config section and its keys. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_endpoint.h"

struct dp_config_section dp_endpoint_section;

const struct dp_endpoint_config *
dp_endpoint_config(const struct dp_config *cfg)
{
	return dp_config_section_data(cfg, &dp_endpoint_section, 0);
}

static int
endpoint_socket_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_endpoint_config *e = base;

	if (v[0] != '/' || dp_strlcpy(e->socket, v, sizeof(e->socket)) < 0)
		return dp_config_error(err, errlen, at->loc,
			"socket '%s' must be an absolute path shorter than %zu bytes", v,
			sizeof(e->socket));
	return 0;
}

static int
endpoint_mode_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_endpoint_config *e = base;
	char *end;
	unsigned long m = strtoul(v, &end, 8);

	if (*v == '\0' || *end != '\0' || m > 0777)
		return dp_config_error(
			err, errlen, at->loc, "mode '%s' must be octal permissions, e.g. 0660", v);
	e->mode = (uint32_t)m;
	return 0;
}

/* numbers bounded so that an endpoint's shared region stays below 2^32 bytes */
static const struct dp_config_key endpoint_keys[] = {
	{ .name = "socket",
		.type = DP_CONFIG_CUSTOM,
		.parse = endpoint_socket_parse,
		.syntax = "an absolute path",
		.def = "/run/dpfwd/dpsock.sock",
		.doc = "the Unix control socket applications attach to (its folder is made)" },
	{ .name = "mode",
		.type = DP_CONFIG_CUSTOM,
		.parse = endpoint_mode_parse,
		.syntax = "octal permissions",
		.def = "0660",
		.doc = "the socket's permissions: who may attach" },
	{ .name = "group",
		.type = DP_CONFIG_STRING,
		DP_CONFIG_FIELD(struct dp_endpoint_config, group),
		.unset = "dpfwd's",
		.doc = "the socket's group" },
	{ .name = "max",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_endpoint_config, max),
		.min = 1,
		.max = 65536,
		.def = "256",
		.doc = "endpoints at once" },
	{ .name = "tx_bufs",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_endpoint_config, tx_bufs),
		.min = 16,
		.max = 1u << 16,
		.def = "1024",
		.doc = "per endpoint: 2 KiB buffers to send" },
	{ .name = "rx_bufs",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_endpoint_config, rx_bufs),
		.min = 16,
		.max = 1u << 16,
		.def = "1024",
		.doc = "per endpoint: 2 KiB buffers to receive into" },
	{ .name = "large_bufs",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_endpoint_config, large_bufs),
		.min = 0,
		.max = 1024,
		.def = "32",
		.doc = "per endpoint and direction: 64 KiB buffers" },
	{ .name = "chan_bufs",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_endpoint_config, chan_bufs),
		.min = 16,
		.max = 1u << 16,
		.def = "512",
		.doc = "per direction of a channel between two local endpoints" },
	{ .name = "zero_copy_min",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_endpoint_config, zero_copy_min),
		.min = 64,
		.max = 1u << 20,
		.def = "16384",
		.doc = "bytes: sends at least this long leave without a copy" },
	{ .name = "udp4_cksum",
		.type = DP_CONFIG_BOOL,
		DP_CONFIG_FIELD(struct dp_endpoint_config, udp4_cksum),
		.def = "on",
		.doc = "compute UDP checksums over IPv4 (off: 0, which RFC 768 allows)" },
};

static bool
endpoint_open(struct dp_config *cfg __rte_unused, void *base, unsigned int idx __rte_unused,
	const struct dp_config_loc *loc)
{
	struct dp_endpoint_config *e = base;

	if (e->enabled)
		return false;
	e->enabled = true;
	e->loc = *loc;
	return true;
}

struct dp_config_section dp_endpoint_section = {
	.name = "endpoint",
	.doc = "Socket-like endpoints (dpsock) for applications. The section, even empty, opens "
	       "the control socket they attach to.",
	.keys = endpoint_keys,
	.nb_keys = DP_ARRAY_SIZE(endpoint_keys),
	.size = sizeof(struct dp_endpoint_config),
	.open = endpoint_open,
	.presence = true,
};
