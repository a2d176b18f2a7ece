/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_graph.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include <rte_rib.h>

#include "dp_common.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_fwd_group.h"
#include "dp_graph.h"
#include "dp_neigh.h"
#include "dp_port.h"
#include "dp_telemetry.h"

RTE_LOG_REGISTER(dp_logtype_fwd, dpfwd.fwd, INFO);

struct dp_fwd_table dp_fwd;

int32_t
dp_fwd_nh_alloc(uint16_t port, bool ip6)
{
	uint8_t flags = DP_FWD_NH_F_VALID | (ip6 ? DP_FWD_NH_F_IP6 : 0);
	struct dp_fwd_nh *nh;
	uint32_t idx;

	if (dp_fwd.nb_nh == dp_fwd.max_nh)
		return -ENOSPC;
	idx = dp_fwd.nb_nh;
	nh = &dp_fwd.nh[idx];
	memset(nh, 0, sizeof(*nh));
	nh->port = port;
	/* 0: a port not probed (unit tests): the default MTU */
	nh->mtu = dp_ports[port].mtu != 0 ? dp_ports[port].mtu : RTE_ETHER_MTU;
	rte_ether_addr_copy(&dp_ports[port].mac, &nh->l2.src_addr);
	nh->l2.ether_type = ip6 ? RTE_BE16(RTE_ETHER_TYPE_IPV6) : RTE_BE16(RTE_ETHER_TYPE_IPV4);
	/* a sub-interface whose port does not insert tags: forwarded packets take the tag
	 * as they are rewritten, not in a second pass at TX */
	if (dp_ports[port].vid != 0 && !dp_ports[port].vlan_insert) {
		flags |= DP_FWD_NH_F_TAGGED;
		nh->vlan_tag = (uint32_t)RTE_BE16(RTE_ETHER_TYPE_VLAN) |
			       (uint32_t)rte_cpu_to_be_16(dp_ports[port].vid) << 16;
	}
	/* the entry is whole before a worker can find its index (in the lpm or the
	 * neighbor hash, both written after this returns) */
	__atomic_store_n(&nh->flags, flags, __ATOMIC_RELEASE);
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
dp_fwd_refuse_port_addr(char *err, size_t errlen, const char *route)
{
	snprintf(err, errlen,
		"%s is a port address (its route is the router itself): change the config", route);
	return -EINVAL;
}

int
dp_fwd_route4_nh(const struct dp_fwd_config_route4 *r, uint32_t *idx)
{
	if (r->paths != NULL)
		return dp_fwd_group_get(r->paths, false, idx);
	return r->has_gw ? gw_nh(r->gw, r->port, idx) : connected_nh(r->port, idx);
}

/* ---- the IPv4 table ---- */

/* dir24_8's own test for a prefix that needs a tbl8 group: longer than /24,
 * and the first in its /24 (rte_rib_get_nxt() finds any longer prefix there) */
static bool
tbl8_first_in_24(struct rte_rib *rib, uint32_t prefix, uint8_t plen)
{
	return plen > 24 &&
	       rte_rib_get_nxt(rib, prefix & 0xffffff00u, 24, NULL, RTE_RIB_GET_NXT_COVER) == NULL;
}

void
dp_fwd_fib4_size(const struct dp_config *cfg, struct dp_fwd_fib4 *t)
{
	const struct dp_fwd_routes_config *rt = dp_fwd_routes_config(cfg);
	uint64_t routes = 16, tbl8 = 0;
	uint32_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < cfg->nb_ports; i++) {
		if (cfg->ports[i].ip4 == 0)
			continue;
		/* the local /32 (in a tbl8 group) and the connected subnet */
		routes += 2;
		tbl8 += 1 + (cfg->ports[i].ip4_plen > 24);
	}
	/* an upper bound: one group per prefix longer than /24 (they may share /24s) */
	for (i = 0; i < rt->nb_routes4; i++)
		tbl8 += rt->routes4[i].plen > 24;
	routes += rt->nb_routes4;
	/* a quarter more for live adds; a route file from a bigger table is a reload */
	routes += RTE_MAX(routes / 4, UINT64_C(1024));
	tbl8 += RTE_MAX(tbl8 / 4, UINT64_C(256));
	t->max_routes = (uint32_t)RTE_MIN(routes, UINT64_C(1) << 28);
	/* 1 KiB per group: at most 1 GiB unless the config asks for more */
	t->tbl8_max = (uint32_t)RTE_MIN(tbl8, UINT64_C(1) << 20);
	if (rt->ip4_max != 0)
		t->max_routes = rt->ip4_max;
	if (rt->ip4_tbl8 != 0)
		t->tbl8_max = rt->ip4_tbl8;
	/* the 2 groups tbl8_used stays below (dp_fwd_fib4_add), and dir24_8 takes
	 * groups by 64 */
	t->tbl8_max = RTE_MAX(t->tbl8_max, 64u);
}

int
dp_fwd_fib4_create(struct dp_fwd_fib4 *t)
{
	static unsigned int generation;
	struct rte_fib_conf fc;
	char name[32]; /* RTE_FIB_NAMESIZE (64) is private; the RIB's mempool takes 26 */

	/* names are unique: a reload or a copy builds its table beside the live one */
	snprintf(name, sizeof(name), "dp_fib4_%u", generation++);
	memset(&fc, 0, sizeof(fc));
	fc.type = RTE_FIB_DIR24_8;
	fc.default_nh = DP_FWD_NO_ROUTE;
	/* the RIB gets 2 nodes per route (a route may add a branching node) */
	fc.max_routes = (int)t->max_routes;
	fc.dir24_8.nh_sz = RTE_FIB_DIR24_8_4B;
	fc.dir24_8.num_tbl8 = t->tbl8_max;
	t->fib = rte_fib_create(name, SOCKET_ID_ANY, &fc);
	if (t->fib == NULL)
		return rte_errno == EINVAL ? -EINVAL : -ENOMEM;
	t->nb_routes = 0;
	t->tbl8_used = 0;
	return 0;
}

void
dp_fwd_fib4_free(struct dp_fwd_fib4 *t)
{
	rte_fib_free(t->fib);
	memset(t, 0, sizeof(*t));
}

int
dp_fwd_fib4_add(struct dp_fwd_fib4 *t, uint32_t prefix, uint8_t plen, uint32_t nh)
{
	struct rte_rib *rib = rte_fib_get_rib(t->fib);
	bool new_24, exists;
	int rc;

	if (plen > 32 || nh >= DP_FWD_NO_ROUTE)
		return -EINVAL;
	prefix &= plen == 0 ? 0 : ~0u << (32 - plen);
	exists = rte_rib_lookup_exact(rib, prefix, plen) != NULL;
	if (!exists && t->nb_routes >= t->max_routes)
		return -ENOSPC;
	/* dir24_8 refuses a new /24 only when every group is reserved, and a
	 * change that needs two free groups can fail after some of its writes:
	 * stay 2 groups below */
	new_24 = !exists && tbl8_first_in_24(rib, prefix, plen);
	if (new_24 && t->tbl8_used + 2 >= t->tbl8_max)
		return -ENOSPC;
	rc = rte_fib_add(t->fib, prefix, plen, nh);
	if (rc < 0)
		return rc;
	if (!exists)
		t->nb_routes++;
	t->tbl8_used += new_24;
	return 0;
}

/* Error text for the table's -ENOSPC. */
static const char *
fib4_why(int rc)
{
	return rc == -ENOSPC ? "table full (IPv4 routes or tbl8 groups: [routes] ip4_max, "
			       "ip4_tbl8; or neighbors: [dpfwd] neigh_max)"
			     : strerror(-rc);
}

void
dp_fwd_route4_sort(uint64_t *key, uint64_t *tmp, uint32_t n)
{
	/* an LSD radix sort of bits 24..63, 5 passes of 8 bits: stable */
	uint32_t count[256];
	unsigned int shift;
	uint32_t i, sum;

	for (shift = 24; shift < 64; shift += 8) {
		uint64_t *t;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(key[i] >> shift) & 0xff]++;
		for (i = 0, sum = 0; i < 256; i++) {
			uint32_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[(key[i] >> shift) & 0xff]++] = key[i];
		t = key;
		key = tmp;
		tmp = t;
	}
	/* 5 passes: the sorted keys are in the caller's tmp, copied back */
	memcpy(tmp, key, sizeof(*key) * n);
}

static int
route_err(const struct dp_fwd_config_route4 *r, int rc, char *err, size_t errlen)
{
	char a[16], b[16], port[DP_PORT_NAME_LEN];

	snprintf(err, errlen, "%s:%d: cannot add route %s/%u via %s port %s: %s", r->loc.file,
		r->loc.line, dp_config_ip4_str(r->prefix, a, sizeof(a)), r->plen,
		dp_config_ip4_str(r->gw, b, sizeof(b)), dp_port_name(r->port, port, sizeof(port)),
		fib4_why(rc));
	return rc;
}

/*
 * The config's routes go in in address order (shorter prefixes first): one
 * add walks the RIB (a binary trie) from its root three times, and in file
 * order each walk is a chain of cache misses (sorted, consecutive adds share
 * their path, which is still in the cache). Next hops are made first, in file
 * order, so that their indices do not depend on the sort, and the sort is
 * stable, so that a prefix given twice keeps the later line's next hop as
 * before. The sort is a radix sort of 64-bit keys (prefix, length, line
 * index): 16 MiB of scratch for 1M routes, freed at once.
 */
static int
fill_routes(struct dp_fwd_fib4 *t, const struct dp_config *cfg, char *err, size_t errlen)
{
	const struct dp_fwd_routes_config *rt = dp_fwd_routes_config(cfg);
	const struct dp_fwd_config_route4 *routes = rt->routes4;
	const uint32_t n = rt->nb_routes4;
	uint64_t *key = NULL;
	uint32_t *nh = NULL;
	uint32_t i, idx;
	int rc = 0;

	/* the key: prefix, length, then the line's index (24 bits) */
	if (n <= DP_FWD_ROUTE4_SORT_MAX) {
		key = malloc(sizeof(*key) * 2 * n);
		nh = malloc(sizeof(*nh) * n);
	}
	if (key == NULL || nh == NULL) {
		free(key);
		free(nh);
		/* without a sort: file order */
		for (i = 0; i < n && rc == 0; i++) {
			/* without a gateway: on-link, to the neighbor of each destination */
			rc = dp_fwd_route4_nh(&routes[i], &idx);
			if (rc == 0)
				rc = dp_fwd_fib4_add(t, routes[i].prefix, routes[i].plen, idx);
		}
		return rc < 0 ? route_err(&routes[i - 1], rc, err, errlen) : 0;
	}
	for (i = 0; i < n; i++) {
		const struct dp_fwd_config_route4 *r = &routes[i];

		rc = dp_fwd_route4_nh(r, &nh[i]);
		if (rc < 0) {
			route_err(r, rc, err, errlen);
			goto out;
		}
		key[i] = dp_fwd_route4_key(r->prefix, r->plen, i);
	}
	dp_fwd_route4_sort(key, key + n, n);
	for (i = 0; i < n; i++) {
		/* from the key: the routes themselves are not read in this order */
		rc = dp_fwd_fib4_add(t, (uint32_t)(key[i] >> 32), (uint8_t)(key[i] >> 24),
			nh[DP_FWD_ROUTE4_KEY_INDEX(key[i])]);
		if (rc < 0) {
			route_err(&routes[DP_FWD_ROUTE4_KEY_INDEX(key[i])], rc, err, errlen);
			goto out;
		}
	}
out:
	free(key);
	free(nh);
	return rc;
}

bool
dp_fwd_adj4_eligible(struct rte_fib *fib, uint32_t idx)
{
	const struct dp_fwd_nh *nh = &dp_fwd.nh[idx];
	struct rte_rib_node *node = rte_rib_lookup(rte_fib_get_rib(fib), nh->gw);
	uint64_t v;
	uint8_t depth;

	if (node == NULL || dp_fwd.connected4[nh->port] == 0)
		return false;
	rte_rib_get_depth(node, &depth);
	if (depth == 32) {
		/* the address's own /32: the adjacency itself, or the user's route */
		rte_rib_get_nh(node, &v);
		if (!(nh->flags & DP_FWD_NH_F_ADJ) || v != idx)
			return false;
		node = rte_rib_lookup_parent(node);
		if (node == NULL)
			return false;
	}
	rte_rib_get_nh(node, &v);
	return v == dp_fwd.connected4[nh->port];
}

/* The adjacencies of the resolved IPv4 neighbors in a table being built (not
 * live yet: at start and for a reload), after its routes. */
static void
adj4_fill(struct dp_fwd_fib4 *t)
{
	uint32_t idx;

	for (idx = 1; idx < dp_fwd.nb_nh; idx++) {
		struct dp_fwd_nh *nh = &dp_fwd.nh[idx];

		if (!dp_fwd_nh_is_neigh4(nh))
			continue;
		__atomic_and_fetch(&nh->flags, (uint8_t)~DP_FWD_NH_F_ADJ, __ATOMIC_RELAXED);
		/* a full table goes without: its packets take ip4_output */
		if ((nh->flags & DP_FWD_NH_F_RESOLVED) && dp_fwd_adj4_eligible(t->fib, idx) &&
			dp_fwd_fib4_add(t, nh->gw, 32, idx) == 0) {
			__atomic_or_fetch(&nh->flags, DP_FWD_NH_F_ADJ, __ATOMIC_RELAXED);
			t->nb_adj++;
		}
	}
}

int
dp_fwd_fib4_fill(struct dp_fwd_fib4 *t, const struct dp_config *cfg, char *err, size_t errlen)
{
	const struct dp_fwd_neighbors_config *nc = dp_fwd_neighbors_config(cfg);
	char a[16];
	uint32_t i, idx;
	int rc;

	for (i = 0; i < cfg->nb_ports; i++) {
		const struct dp_config_port *p = &cfg->ports[i];
		uint32_t mask;

		if (p->ip4 == 0)
			continue;
		mask = ~0u << (32 - p->ip4_plen);
		rc = connected_nh((uint16_t)i, &idx);
		if (rc == 0)
			rc = dp_fwd_fib4_add(t, p->ip4 & mask, p->ip4_plen, idx);
		if (rc == 0)
			rc = dp_fwd_fib4_add(t, p->ip4, 32, DP_FWD_NH_LOCAL);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: cannot add routes for port%u's address: %s",
				p->loc.file, p->loc.line, i, fib4_why(rc));
			return rc;
		}
	}
	/* static neighbors: permanent entries; reached through the connected route of
	 * their subnet, or through routes that name them as gateway */
	for (i = 0; i < nc->nb_neighs4; i++) {
		const struct dp_fwd_config_neigh4 *n = &nc->neighs4[i];

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
	rc = fill_routes(t, cfg, err, errlen);
	if (rc == 0)
		adj4_fill(t);
	return rc;
}

/* "file:line: " of the [routes] size keys, or the config's path. */
static void
size_where(const struct dp_config *cfg, char *buf, size_t len)
{
	const struct dp_config_loc *loc = &dp_fwd_routes_config(cfg)->size_loc;

	if (loc->file != NULL)
		snprintf(buf, len, "%s:%d: ", loc->file, loc->line);
	else
		snprintf(buf, len, "%s: ", cfg->path);
}

int
dp_fwd_fib4_build(const struct dp_config *cfg, struct dp_fwd_fib4 *t, char *err, size_t errlen)
{
	char where[PATH_MAX + 16];
	int rc;

	dp_fwd_fib4_size(cfg, t);
	rc = dp_fwd_fib4_create(t);
	if (rc < 0) {
		size_where(cfg, where, sizeof(where));
		snprintf(err, errlen,
			"%scannot make the IPv4 table for %u routes (room for %u routes, %u tbl8 "
			"groups: %.0f MiB): %s; reserve more hugepages or set [routes] ip4_max, "
			"ip4_tbl8",
			where, dp_fwd_routes_config(cfg)->nb_routes4, t->max_routes, t->tbl8_max,
			(64.0 * 1024 * 1024 + 1024.0 * t->tbl8_max + 128.0 * t->max_routes) /
				(1024 * 1024),
			rte_strerror(rte_errno));
		return rc;
	}
	rc = dp_fwd_fib4_fill(t, cfg, err, errlen);
	if (rc < 0)
		dp_fwd_fib4_free(t);
	return rc;
}

int
dp_fwd_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	uint64_t t0;
	int rc;

	dp_fwd_fini();
	/* the router, one connected next hop per port and family, every neighbor,
	 * every ECMP group */
	dp_fwd.max_nh = 1 + 2 * DP_PORT_MAX + dp_fwd_neighbors_config(cfg)->nb_neighs4 +
			cfg->neigh_max + DP_FWD_GROUPS_MAX;
	if (dp_fwd.max_nh > (1u << 24))
		dp_fwd.max_nh = 1u << 24; /* well below DP_FWD_NO_ROUTE */
	dp_fwd.nh =
		rte_zmalloc("dp_fwd_nh", sizeof(*dp_fwd.nh) * dp_fwd.max_nh, RTE_CACHE_LINE_SIZE);
	if (dp_fwd.nh == NULL) {
		snprintf(err, errlen, "out of memory for %u next hops", dp_fwd.max_nh);
		rc = -ENOMEM;
		goto fail;
	}
	rc = dp_neigh_init(cfg, err, errlen);
	if (rc < 0)
		goto fail;
	rc = dp_fwd_group_init();
	if (rc < 0) {
		snprintf(err, errlen, "out of memory for %u ECMP groups", DP_FWD_GROUPS_MAX);
		goto fail;
	}

	/* index 0: the router itself */
	dp_fwd.nh[DP_FWD_NH_LOCAL].flags = DP_FWD_NH_F_VALID | DP_FWD_NH_F_LOCAL;
	dp_fwd.nb_nh = 1;
	dp_fwd.path_gen = 1;
	t0 = rte_get_tsc_cycles();
	rc = dp_fwd_fib4_build(cfg, &dp_fwd.ip4, err, errlen);
	if (rc < 0)
		goto fail;
	DP_LOG(INFO, fwd,
		"%u IPv4 routes loaded in %.3f s (room for %u routes, %u tbl8 groups, %u of them "
		"reserved), %u next hops",
		DP_FWD_IP4_ROUTES(), (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz(),
		dp_fwd.ip4.max_routes, dp_fwd.ip4.tbl8_max, dp_fwd.ip4.tbl8_used, dp_fwd.nb_nh);
	/* IPv6 (fwd6.c): its next hops come from the same table */
	rc = dp_fwd_ip6_init(cfg, err, errlen);
	if (rc < 0)
		goto fail;
	return 0;
fail:
	dp_fwd_fini();
	return rc < 0 ? rc : -EINVAL;
}

void
dp_fwd_fini(void)
{
	dp_fwd_ip6_fini();
	dp_fwd_group_fini();
	dp_neigh_fini();
	dp_fwd_fib4_free(&dp_fwd.ip4);
	rte_free(dp_fwd.nh);
	memset(&dp_fwd, 0, sizeof(dp_fwd));
}

static json_t *
fwd_fill(void *arg)
{
	json_t *nhs = json_array();
	uint64_t fragmented, fragments;
	uint32_t i;

	RTE_SET_USED(arg);
	for (i = 0; i < dp_fwd.nb_nh && i < 256; i++) {
		const struct dp_fwd_nh *nh = &dp_fwd.nh[i];
		char gw[16], mac[RTE_ETHER_ADDR_FMT_SIZE], port[DP_PORT_NAME_LEN];

		dp_config_ip4_str(nh->gw, gw, sizeof(gw));
		rte_ether_format_addr(mac, sizeof(mac), &nh->l2.dst_addr);
		json_array_append_new(
			nhs, json_pack("{s:i, s:s, s:i, s:s, s:i, s:b, s:b, s:s}", "index", (int)i,
				     "gateway", gw, "port", nh->port, "port_name",
				     dp_port_name(nh->port, port, sizeof(port)), "mtu", nh->mtu,
				     "local", !!(nh->flags & DP_FWD_NH_F_LOCAL), "resolved",
				     !!(nh->flags & DP_FWD_NH_F_RESOLVED), "mac", mac));
	}
	dp_fwd_frag4_stats_get(&fragmented, &fragments);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "ip4_routes",
		(json_int_t)DP_FWD_IP4_ROUTES(), "ip4_adjacencies", (json_int_t)dp_fwd.ip4.nb_adj,
		"next_hops_total", (json_int_t)dp_fwd.nb_nh, "ip4_fragmented",
		(json_int_t)fragmented, "ip4_fragments", (json_int_t)fragments, "next_hops", nhs);
}

int
dp_fwd_telemetry_register(void)
{
	return dp_telemetry_section_register("fwd", "/dpfwd/fwd/routes",
		"IPv4 route count and next hops (first 256)", fwd_fill, NULL);
}
