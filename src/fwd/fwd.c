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
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_neigh.h"
#include "dp_port.h"
#include "dp_telemetry.h"

struct dp_fwd_table dp_fwd;

int32_t
dp_fwd_nh_alloc(uint16_t port, bool ip6)
{
	struct dp_fwd_nh *nh;
	uint32_t idx;

	if (dp_fwd.nb_nh == dp_fwd.max_nh)
		return -ENOSPC;
	idx = dp_fwd.nb_nh;
	nh = &dp_fwd.nh[idx];
	memset(nh, 0, sizeof(*nh));
	nh->port = port;
	rte_ether_addr_copy(&dp_ports[port].mac, &nh->l2.src_addr);
	nh->l2.ether_type = ip6 ? RTE_BE16(RTE_ETHER_TYPE_IPV6) : RTE_BE16(RTE_ETHER_TYPE_IPV4);
	/* the entry is whole before a worker can find its index (in the lpm or the
	 * neighbor hash, both written after this returns) */
	__atomic_store_n(&nh->flags, DP_FWD_NH_F_VALID | (ip6 ? DP_FWD_NH_F_IP6 : 0),
		__ATOMIC_RELEASE);
	dp_fwd.nb_nh++;
	return (int32_t)idx;
}

/* The next hop of a gateway: its neighbor entry, shared by every route through it. */
static int
gw_nh(uint32_t gw, uint16_t port, uint32_t *idx)
{
	uint32_t be = rte_cpu_to_be_32(gw);
	int32_t nh = dp_neigh_get(4, (const uint8_t *)&be, port, true);

	if (nh < 0)
		return nh;
	*idx = (uint32_t)nh;
	return 0;
}

static int
route_add(struct rte_lpm *lpm, uint32_t prefix, uint8_t plen, uint32_t nh, uint32_t *count)
{
	int rc = rte_lpm_add(lpm, prefix, plen, nh);

	if (rc == 0)
		(*count)++;
	return rc;
}

/* The on-link next hop of a port, made on first use. */
static int
connected_nh(uint16_t port, uint32_t *idx)
{
	int32_t rc;

	if (dp_fwd.connected4[port] != 0) {
		*idx = dp_fwd.connected4[port];
		return 0;
	}
	rc = dp_fwd_nh_alloc(port, false);
	if (rc < 0)
		return rc;
	*idx = (uint32_t)rc;
	dp_fwd.nh[*idx].flags |= DP_FWD_NH_F_CONNECTED;
	dp_fwd.connected4[port] = *idx;
	return 0;
}

int
dp_fwd_route4_nh(const struct dp_config_route *r, uint32_t *idx)
{
	return r->has_gw ? gw_nh(r->gw, r->port, idx) : connected_nh(r->port, idx);
}

struct rte_lpm *
dp_fwd_lpm4_create(uint32_t nb_routes, uint32_t nb_ports)
{
	static unsigned int generation;
	struct rte_lpm_config lc;
	char name[RTE_LPM_NAMESIZE];
	uint32_t tbl8;

	/* rte_lpm names are unique: a reload builds its table beside the live one */
	snprintf(name, sizeof(name), "dp_lpm4_%u", generation++);
	/* a group of 256 entries (1 KiB) per /24 holding longer prefixes: one per 8
	 * routes is room for tables where an eighth of the routes are longer than /24 */
	tbl8 = nb_routes / 8;
	tbl8 = RTE_MAX(tbl8, 256u);
	tbl8 = RTE_MIN(tbl8, 1u << 20);
	memset(&lc, 0, sizeof(lc));
	lc.max_rules = RTE_MAX(nb_routes + 2u * nb_ports + 16, 64u);
	lc.number_tbl8s = tbl8;
	return rte_lpm_create(name, SOCKET_ID_ANY, &lc);
}

int
dp_fwd_lpm4_fill(struct rte_lpm *lpm, const struct dp_config *cfg, uint32_t *nb_routes, char *err,
	size_t errlen)
{
	char a[16], b[16];
	uint32_t i, idx;
	int rc;

	*nb_routes = 0;
	for (i = 0; i < cfg->nb_ports; i++) {
		const struct dp_config_port *p = &cfg->ports[i];
		uint32_t mask;

		if (p->ip4 == 0)
			continue;
		mask = ~0u << (32 - p->ip4_plen);
		rc = connected_nh((uint16_t)i, &idx);
		if (rc == 0)
			rc = route_add(lpm, p->ip4 & mask, p->ip4_plen, idx, nb_routes);
		if (rc == 0)
			rc = route_add(lpm, p->ip4, 32, DP_FWD_NH_LOCAL, nb_routes);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: cannot add routes for port%u's address: %s",
				p->loc.file, p->loc.line, i, strerror(-rc));
			return rc;
		}
	}
	/* static neighbors: permanent entries; reached through the connected route of
	 * their subnet, or through routes that name them as gateway */
	for (i = 0; i < cfg->nb_neighs; i++) {
		const struct dp_config_neigh *n = &cfg->neighs[i];

		rc = gw_nh(n->ip, n->port, &idx);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: cannot add neighbor %s: %s", n->loc.file,
				n->loc.line, dp_config_ip4_str(n->ip, a, sizeof(a)),
				rc == -ENOSPC ? "neighbor table full (raise [dpfwd] neigh_max)"
					      : strerror(-rc));
			return rc;
		}
		dp_neigh_set_permanent(idx, &n->mac);
	}
	for (i = 0; i < cfg->nb_routes; i++) {
		const struct dp_config_route *r = &cfg->routes[i];

		/* without a gateway: on-link, to the neighbor of each destination */
		rc = dp_fwd_route4_nh(r, &idx);
		if (rc == 0)
			rc = route_add(lpm, r->prefix, r->plen, idx, nb_routes);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: cannot add route %s/%u via %s port %u: %s",
				r->loc.file, r->loc.line, dp_config_ip4_str(r->prefix, a, sizeof(a)),
				r->plen, dp_config_ip4_str(r->gw, b, sizeof(b)), r->port,
				rc == -ENOSPC ? "table full (routes, or neighbors: [dpfwd] neigh_max)"
					      : strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int
dp_fwd_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	int rc;

	dp_fwd_fini();
	/* the router, one connected next hop per port and family, every neighbor */
	dp_fwd.max_nh = 1 + 2 * DP_PORT_MAX + cfg->nb_neighs + cfg->neigh_max;
	if (dp_fwd.max_nh > (1u << 24))
		dp_fwd.max_nh = 1u << 24; /* rte_lpm results are 24 bits */
	dp_fwd.nh = rte_zmalloc("dp_fwd_nh", sizeof(*dp_fwd.nh) * dp_fwd.max_nh,
		RTE_CACHE_LINE_SIZE);
	dp_fwd.lpm = dp_fwd_lpm4_create(cfg->nb_routes, cfg->nb_ports);
	if (dp_fwd.nh == NULL || dp_fwd.lpm == NULL) {
		snprintf(err, errlen, "out of memory for %u routes (lpm, next hops): %s",
			cfg->nb_routes, rte_strerror(rte_errno));
		rc = -ENOMEM;
		goto fail;
	}
	rc = dp_neigh_init(cfg, err, errlen);
	if (rc < 0)
		goto fail;

	/* index 0: the router itself */
	dp_fwd.nh[DP_FWD_NH_LOCAL].flags = DP_FWD_NH_F_VALID | DP_FWD_NH_F_LOCAL;
	dp_fwd.nb_nh = 1;
	rc = dp_fwd_lpm4_fill(dp_fwd.lpm, cfg, &dp_fwd.nb_routes, err, errlen);
	if (rc < 0)
		goto fail;
	/* IPv6 (fwd6.c): its next hops come from the same table */
	rc = dp_fwd6_init(cfg, err, errlen);
	if (rc < 0)
		goto fail;
	DP_LOG(INFO, fwd, "%u IPv4 routes, %u next hops", dp_fwd.nb_routes, dp_fwd.nb_nh);
	return 0;
fail:
	dp_fwd_fini();
	return rc < 0 ? rc : -EINVAL;
}

void
dp_fwd_fini(void)
{
	dp_fwd6_fini();
	dp_neigh_fini();
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
