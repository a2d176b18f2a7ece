/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_graph.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "dp_common.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_port.h"
#include "dp_telemetry.h"

struct dp_fwd_table dp_fwd;

struct nh_key {
	uint32_t gw;
	uint32_t port;
};

/* Next hops are shared by every route through the same (gateway, port). */
static int
nh_get(struct rte_hash *h, uint32_t gw, uint16_t port, uint32_t *idx)
{
	struct nh_key k = {.gw = gw, .port = port};
	struct dp_fwd_nh *nh;
	void *data;
	int rc;

	if (rte_hash_lookup_data(h, &k, &data) >= 0) {
		*idx = (uint32_t)(uintptr_t)data;
		return 0;
	}
	if (dp_fwd.nb_nh == dp_fwd.max_nh)
		return -ENOSPC;
	*idx = dp_fwd.nb_nh++;
	nh = &dp_fwd.nh[*idx];
	memset(nh, 0, sizeof(*nh));
	nh->flags = DP_FWD_NH_F_VALID;
	nh->port = port;
	nh->gw = gw;
	rte_ether_addr_copy(&dp_ports[port].mac, &nh->l2.src_addr);
	nh->l2.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	rc = rte_hash_add_key_data(h, &k, (void *)(uintptr_t)*idx);
	return rc < 0 ? rc : 0;
}

static int
route_add(uint32_t prefix, uint8_t plen, uint32_t nh)
{
	int rc = rte_lpm_add(dp_fwd.lpm, prefix, plen, nh);

	if (rc == 0)
		dp_fwd.nb_routes++;
	return rc;
}

int
dp_fwd_init(const struct dp_config *cfg, char tx_names[][RTE_NODE_NAMESIZE], uint16_t nb_tx,
	char *err, size_t errlen)
{
	struct rte_lpm_config lc;
	struct rte_hash_parameters hp;
	const char *edge_names[DP_PORT_MAX];
	struct rte_hash *h = NULL;
	char a[16], b[16];
	rte_node_t out;
	uint32_t i, idx, tbl8;
	int rc;

	dp_fwd_fini();
	for (i = 0; i < nb_tx; i++)
		edge_names[i] = tx_names[i];
	out = rte_node_from_name("ip4_output");
	if (out == RTE_NODE_ID_INVALID ||
		rte_node_edge_update(out, DP_GRAPH_EDGE_PORT_TX(0), edge_names, nb_tx) != nb_tx) {
		snprintf(err, errlen, "cannot connect ip4_output to the port_tx nodes");
		return -EINVAL;
	}

	dp_fwd.max_nh = 1 + cfg->nb_ports + cfg->nb_neighs + cfg->nb_routes;
	if (dp_fwd.max_nh > (1u << 24))
		dp_fwd.max_nh = 1u << 24; /* rte_lpm results are 24 bits */
	dp_fwd.nh = rte_zmalloc("dp_fwd_nh", sizeof(*dp_fwd.nh) * dp_fwd.max_nh,
		RTE_CACHE_LINE_SIZE);
	tbl8 = cfg->nb_routes / 4;
	tbl8 = RTE_MAX(tbl8, 256u);
	tbl8 = RTE_MIN(tbl8, 65536u);
	memset(&lc, 0, sizeof(lc));
	lc.max_rules = RTE_MAX(cfg->nb_routes + cfg->nb_neighs + 2u * cfg->nb_ports + 16, 64u);
	lc.number_tbl8s = tbl8;
	dp_fwd.lpm = rte_lpm_create("dp_fwd_lpm4", SOCKET_ID_ANY, &lc);
	memset(&hp, 0, sizeof(hp));
	hp.name = "dp_fwd_nh";
	hp.entries = RTE_MAX(dp_fwd.max_nh, 64u);
	hp.key_len = sizeof(struct nh_key);
	hp.hash_func = rte_jhash;
	hp.socket_id = SOCKET_ID_ANY;
	h = rte_hash_create(&hp);
	if (dp_fwd.nh == NULL || dp_fwd.lpm == NULL || h == NULL) {
		snprintf(err, errlen, "out of memory for %u routes (lpm, next hops): %s",
			cfg->nb_routes, rte_strerror(rte_errno));
		rc = -ENOMEM;
		goto fail;
	}

	/* index 0: the router itself */
	dp_fwd.nh[DP_FWD_NH_LOCAL].flags = DP_FWD_NH_F_VALID | DP_FWD_NH_F_LOCAL;
	dp_fwd.nb_nh = 1;

	for (i = 0; i < cfg->nb_ports; i++) {
		const struct dp_config_port *p = &cfg->ports[i];
		uint32_t mask;

		if (p->ip4 == 0)
			continue;
		mask = ~0u << (32 - p->ip4_plen);
		rc = nh_get(h, 0, (uint16_t)i, &idx);
		if (rc == 0)
			rc = route_add(p->ip4 & mask, p->ip4_plen, idx);
		if (rc == 0)
			rc = route_add(p->ip4, 32, DP_FWD_NH_LOCAL);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: cannot add routes for port%u's address: %s",
				p->loc.file, p->loc.line, i, strerror(-rc));
			goto fail;
		}
	}
	for (i = 0; i < cfg->nb_neighs; i++) {
		const struct dp_config_neigh *n = &cfg->neighs[i];
		struct dp_fwd_nh *nh;

		rc = nh_get(h, n->ip, n->port, &idx);
		if (rc == 0)
			rc = route_add(n->ip, 32, idx);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: cannot add neighbor %s: %s", n->loc.file,
				n->loc.line, dp_config_ip4_str(n->ip, a, sizeof(a)), strerror(-rc));
			goto fail;
		}
		nh = &dp_fwd.nh[idx];
		rte_ether_addr_copy(&n->mac, &nh->l2.dst_addr);
		nh->flags |= DP_FWD_NH_F_RESOLVED;
	}
	for (i = 0; i < cfg->nb_routes; i++) {
		const struct dp_config_route *r = &cfg->routes[i];

		rc = nh_get(h, r->has_gw ? r->gw : 0, r->port, &idx);
		if (rc == 0)
			rc = route_add(r->prefix, r->plen, idx);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: cannot add route %s/%u via %s port %u: %s",
				r->loc.file, r->loc.line, dp_config_ip4_str(r->prefix, a, sizeof(a)),
				r->plen, dp_config_ip4_str(r->gw, b, sizeof(b)), r->port,
				rc == -ENOSPC ? "table full" : strerror(-rc));
			goto fail;
		}
	}
	rte_hash_free(h);
	DP_LOG(INFO, fwd, "%u IPv4 routes, %u next hops", dp_fwd.nb_routes, dp_fwd.nb_nh);
	return 0;
fail:
	rte_hash_free(h);
	dp_fwd_fini();
	return rc < 0 ? rc : -EINVAL;
}

void
dp_fwd_fini(void)
{
	rte_lpm_free(dp_fwd.lpm);
	rte_free(dp_fwd.nh);
	memset(&dp_fwd, 0, sizeof(dp_fwd));
}

static json_t *
fwd_fill(void *arg)
{
	json_t *nhs = json_array();
	uint32_t i;

	RTE_SET_USED(arg);
	for (i = 0; i < dp_fwd.nb_nh && i < 256; i++) {
		const struct dp_fwd_nh *nh = &dp_fwd.nh[i];
		char gw[16], mac[RTE_ETHER_ADDR_FMT_SIZE];

		dp_config_ip4_str(nh->gw, gw, sizeof(gw));
		rte_ether_format_addr(mac, sizeof(mac), &nh->l2.dst_addr);
		json_array_append_new(nhs,
			json_pack("{s:i, s:s, s:i, s:b, s:b, s:s}", "index", (int)i, "gateway",
				gw, "port", nh->port, "local", !!(nh->flags & DP_FWD_NH_F_LOCAL),
				"resolved", !!(nh->flags & DP_FWD_NH_F_RESOLVED), "mac", mac));
	}
	return json_pack("{s:I, s:I, s:o}", "ip4_routes", (json_int_t)dp_fwd.nb_routes,
		"next_hops_total", (json_int_t)dp_fwd.nb_nh, "next_hops", nhs);
}

int
dp_fwd_telemetry_register(void)
{
	return dp_telemetry_section_register("fwd", "/dpfwd/fwd/routes",
		"IPv4 route count and next hops (first 256)", fwd_fill, NULL);
}
