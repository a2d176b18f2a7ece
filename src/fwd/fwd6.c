/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 tables, control path: the rte_fib6 built from the config, the ports'
 * addresses, telemetry (ICMPv6's state is icmp6.c's).
 *
 * Why rte_fib6 (trie) and not rte_lpm6: both resolve a lookup in a 2^24-entry
 * first table plus one 8-bit table per further byte, but the fib6 trie does a
 * whole burst in one call (rte_fib6_lookup_bulk, vectorized where AVX512 is
 * there), keeps its rules in a separate RIB (so a delete needs no rule scan
 * and a later live route change can be done on the RIB), and stores next hops
 * of 2, 4 or 8 bytes instead of lpm6's 21 bits. lpm6 looks up one address at
 * a time behind rte_lpm6_lookup_bulk_func. We use 4-byte next hops: the
 * next-hop table is indexed up to 2^24 (rte_lpm's limit for IPv4).
 */
#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_fib6.h>
#include <rte_rib6.h>
#include <rte_graph_worker.h>

#include "dp_common.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_fwd_group.h"
#include "dp_graph.h"
#include "dp_neigh.h"
#include "dp_port.h"
#include "dp_telemetry.h"
#include "dp_icmp6.h"
#include "icmp6_priv.h"
#include "graph_fp.h"

struct dp_fwd_ip6_table dp_fwd_ip6;

void
dp_fwd_ip6_ll_from_mac(const struct rte_ether_addr *mac, uint8_t out[16])
{
	const uint8_t *b = mac->addr_bytes;

	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	/* modified EUI-64: the universal/local bit inverted, ff:fe in the middle */
	out[8] = b[0] ^ 0x02;
	out[9] = b[1];
	out[10] = b[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = b[3];
	out[14] = b[4];
	out[15] = b[5];
}

uint32_t
dp_fwd_lookup6(const uint8_t addr[16])
{
	uint8_t ips[1][16];
	uint64_t hop;

	if (dp_fwd_ip6.fib == NULL)
		return DP_FWD_NO_ROUTE6;
	memcpy(ips[0], addr, 16);
	rte_fib6_lookup_bulk(dp_fwd_ip6.fib, ips, &hop, 1);
	return (uint32_t)hop;
}

static bool
config_has_ip6(const struct dp_config *cfg)
{
	uint16_t i;

	for (i = 0; i < cfg->nb_ports; i++)
		if (cfg->ports[i].has_ip6)
			return true;
	return dp_fwd_routes_config(cfg)->nb_routes6 != 0 ||
	       dp_fwd_neighbors_config(cfg)->nb_neighs6 != 0;
}

/* rte_fib6 trie: one 8-bit table per byte past the first 24 bits, at most */
static uint32_t
tbl8_for(uint8_t plen)
{
	return plen <= 24 ? 0 : (plen - 24 + 7) / 8;
}

static int
route6_add(struct rte_fib6 *fib, uint32_t *nb, const uint8_t *prefix, uint8_t plen, uint32_t nh)
{
	int rc = rte_fib6_add(fib, prefix, plen, nh);

	if (rc == 0)
		(*nb)++;
	return rc;
}

/* The on-link next hop of a port: packets go to the neighbor of their destination. */
static int
connected6(uint16_t port, uint32_t *idx)
{
	int32_t rc;

	if (dp_fwd.connected6[port] == 0) {
		rc = dp_fwd_nh_alloc(port, true);
		if (rc < 0)
			return rc;
		dp_fwd.nh[rc].flags |= DP_FWD_NH_F_CONNECTED;
		dp_fwd.connected6[port] = (uint32_t)rc;
	}
	*idx = dp_fwd.connected6[port];
	return 0;
}

/*
 * An empty IPv6 table with room for @p rules prefixes and @p tbl8 8-bit tables
 * (an upper bound: no table shared between prefixes; capped at 1 GiB of them),
 * or NULL (rte_errno). Names are unique: a table and the one replacing it coexist.
 */
static struct rte_fib6 *
fib6_new(uint64_t rules, uint64_t tbl8)
{
	static unsigned int gen;
	char name[32]; /* RTE_MEMZONE_NAMESIZE: rte_fib6 names its tables after it */
	struct rte_fib6_conf fc;

	memset(&fc, 0, sizeof(fc));
	fc.type = RTE_FIB6_TRIE;
	fc.default_nh = DP_FWD_NO_ROUTE6;
	fc.max_routes = (int)RTE_MIN(rules, (uint64_t)INT32_MAX);
	fc.trie.nh_sz = RTE_FIB6_TRIE_4B;
	fc.trie.num_tbl8 = (uint32_t)RTE_MIN(tbl8, UINT64_C(1) << 20);
	snprintf(name, sizeof(name), "dp_fib6_%u", gen++);
	return rte_fib6_create(name, SOCKET_ID_ANY, &fc);
}

static struct rte_fib6 *
fib_create(const struct dp_config *cfg, char *err, size_t errlen)
{
	const struct dp_fwd_routes_config *rt = dp_fwd_routes_config(cfg);
	struct rte_fib6 *fib;
	uint64_t tbl8 = 64, rules = 16;
	uint32_t i;

	for (i = 0; i < cfg->nb_ports; i++) {
		/* link-local /128, global /128 and its prefix */
		tbl8 += 2 * tbl8_for(128) + tbl8_for(cfg->ports[i].ip6_pfxlen);
		rules += 3;
	}
	for (i = 0; i < rt->nb_routes6; i++)
		tbl8 += tbl8_for(rt->routes6[i].plen);
	rules += rt->nb_routes6;
	fib = fib6_new(rules, tbl8);
	if (fib == NULL)
		snprintf(err, errlen,
			"out of memory for %u IPv6 routes (fib6, %" PRIu64 " tables): %s",
			rt->nb_routes6, RTE_MIN(tbl8, UINT64_C(1) << 20), rte_strerror(rte_errno));
	return fib;
}

static const char *
why_str(int rc)
{
	return rc == -ENOSPC ? "table full (routes, or neighbors: [dpfwd] neigh_max)"
			     : strerror(-rc);
}

/*
 * A new IPv6 table for @p cfg's ports and routes (the ports' addresses are those
 * of dp_fwd_ip6.port[], set at start): into @p out, not published.
 */
int
dp_fwd_fib6_build(const struct dp_config *cfg, struct rte_fib6 **out, uint32_t *nb_routes,
	char *err, size_t errlen)
{
	const struct dp_fwd_routes_config *rt = dp_fwd_routes_config(cfg);
	const struct dp_fwd_neighbors_config *nc = dp_fwd_neighbors_config(cfg);
	struct rte_fib6 *fib;
	char a[64], b[64], port[DP_PORT_NAME_LEN];
	uint32_t i, idx, nb = 0;
	int32_t nh;
	int rc;

	*out = NULL;
	*nb_routes = 0;
	if (!config_has_ip6(cfg))
		return 0;
	fib = fib_create(cfg, err, errlen);
	if (fib == NULL)
		return -ENOMEM;

	for (i = 0; i < dp_nb_ports && i < cfg->nb_ports; i++) {
		const struct dp_config_port *cp = &cfg->ports[i];
		const struct dp_fwd_port6 *p = &dp_fwd_ip6.port[i];
		uint8_t pfx[16];

		/* every port: its link-local address, and a connected next hop for
		 * link-local destinations (replies, routes via fe80::...) */
		rc = route6_add(fib, &nb, p->ll, 128, DP_FWD_NH_LOCAL);
		if (rc == 0)
			rc = connected6((uint16_t)i, &idx);
		if (rc == 0 && p->has_global) {
			dp_fwd_port6_prefix(p, pfx);
			rc = route6_add(fib, &nb, pfx, p->pfxlen, idx);
			if (rc == 0)
				rc = route6_add(fib, &nb, p->global, 128, DP_FWD_NH_LOCAL);
		}
		if (rc < 0) {
			snprintf(err, errlen,
				"%s:%d: cannot add routes for port%u's IPv6 address: %s",
				cp->loc.file, cp->loc.line, i, why_str(rc));
			goto fail;
		}
	}
	/* static neighbors: permanent entries, reached through their connected route
	 * or through routes that name them as gateway */
	for (i = 0; i < nc->nb_neighs6; i++) {
		const struct dp_fwd_config_neigh6 *n = &nc->neighs6[i];

		nh = dp_neigh_get(6, n->ip, n->port, true);
		if (nh < 0) {
			rc = nh;
			snprintf(err, errlen, "%s:%d: cannot add neighbor %s: %s", n->loc.file,
				n->loc.line, dp_config_ip6_str(n->ip, a, sizeof(a)), why_str(rc));
			goto fail;
		}
		dp_neigh_set_permanent((uint32_t)nh, &n->mac);
	}
	for (i = 0; i < rt->nb_routes6; i++) {
		const struct dp_fwd_config_route6 *r = &rt->routes6[i];

		if (r->paths != NULL) {
			rc = dp_fwd_group_get(r->paths, true, &idx);
		} else if (r->has_gw) {
			nh = dp_neigh_get(6, r->gw, r->port, true);
			rc = nh < 0 ? nh : 0;
			idx = (uint32_t)nh;
		} else {
			rc = connected6(r->port, &idx);
		}
		if (rc == 0)
			rc = route6_add(fib, &nb, r->prefix, r->plen, idx);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: cannot add route %s/%u%s%s port %s: %s",
				r->loc.file, r->loc.line,
				dp_config_ip6_str(r->prefix, a, sizeof(a)), r->plen,
				r->has_gw ? " via " : "",
				r->has_gw ? dp_config_ip6_str(r->gw, b, sizeof(b)) : "",
				dp_port_name(r->port, port, sizeof(port)), why_str(rc));
			goto fail;
		}
	}
	*out = fib;
	*nb_routes = nb;
	return 0;
fail:
	rte_fib6_free(fib);
	return rc < 0 ? rc : -EINVAL;
}

int
dp_fwd_ip6_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	uint32_t i;
	int rc;

	dp_fwd_ip6_fini();
	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_fwd_port6 *p = &dp_fwd_ip6.port[i];

		dp_fwd_ip6_ll_from_mac(&dp_ports[i].mac, p->ll);
		if (i < cfg->nb_ports && cfg->ports[i].has_ip6) {
			memcpy(p->global, cfg->ports[i].ip6, 16);
			p->pfxlen = cfg->ports[i].ip6_pfxlen;
			p->has_global = true;
		}
	}
	dp_icmp6_init(cfg);
	if (!config_has_ip6(cfg)) {
		DP_LOG(INFO, fwd,
			"IPv6 off: no port has an ip6 address, no IPv6 route or neighbor");
		return 0;
	}
	rc = dp_fwd_fib6_build(cfg, &dp_fwd_ip6.fib, &dp_fwd_ip6.nb_routes, err, errlen);
	if (rc < 0)
		goto fail;
	DP_LOG(INFO, fwd, "%u IPv6 routes (with local and connected ones)", dp_fwd_ip6.nb_routes);
	return 0;
fail:
	dp_fwd_ip6_fini();
	return rc < 0 ? rc : -EINVAL;
}

/* Every route of @p rib, ::/0 first (rte_rib6_get_nxt() under ::/0 gives all the others). */
static int
rib6_foreach(struct rte_rib6 *rib,
	int (*fn)(const uint8_t *ip, uint8_t plen, uint64_t nh, void *arg), void *arg)
{
	static const uint8_t zero[16];
	struct rte_rib6_node *n = rte_rib6_lookup_exact(rib, zero, 0);
	uint8_t ip[16], d;
	uint64_t nh;
	int rc = 0;

	if (n != NULL) {
		rte_rib6_get_nh(n, &nh);
		rc = fn(zero, 0, nh, arg);
	}
	n = NULL;
	while (rc == 0 && (n = rte_rib6_get_nxt(rib, zero, 0, n, RTE_RIB6_GET_NXT_ALL)) != NULL) {
		rte_rib6_get_ip(n, ip);
		rte_rib6_get_depth(n, &d);
		rte_rib6_get_nh(n, &nh);
		rc = fn(ip, d, nh, arg);
	}
	return rc;
}

struct fib6_copy {
	struct rte_fib6 *fib;
	uint32_t nb;
	uint64_t tbl8;
};

static int
copy_count(const uint8_t *ip, uint8_t plen, uint64_t nh, void *arg)
{
	struct fib6_copy *c = arg;

	RTE_SET_USED(ip);
	RTE_SET_USED(nh);
	c->nb++;
	c->tbl8 += tbl8_for(plen);
	return 0;
}

static int
copy_add(const uint8_t *ip, uint8_t plen, uint64_t nh, void *arg)
{
	struct fib6_copy *c = arg;

	return route6_add(c->fib, &c->nb, ip, plen, (uint32_t)nh);
}

int
dp_fwd_route6_nh(const struct dp_fwd_config_route6 *r, uint32_t *idx)
{
	int32_t nh;

	if (r->paths != NULL)
		return dp_fwd_group_get(r->paths, true, idx);
	if (!r->has_gw)
		return connected6(r->port, idx);
	nh = dp_neigh_get(6, r->gw, r->port, true);
	if (nh < 0)
		return nh;
	*idx = (uint32_t)nh;
	return 0;
}

/* One change of a batch in @p fib (@p nb its routes): a port's address is refused. */
static int
change6_in(struct rte_fib6 *fib, uint32_t *nb, const struct dp_fwd_route6_change *c)
{
	struct rte_rib6_node *n = rte_rib6_lookup_exact(rte_fib6_get_rib(fib), c->prefix, c->plen);
	uint64_t old;
	int rc;

	if (n != NULL && rte_rib6_get_nh(n, &old) == 0 && old == DP_FWD_NH_LOCAL)
		return -EINVAL;
	if (c->del) {
		if (n == NULL)
			return -ENOENT;
		rc = rte_fib6_delete(fib, c->prefix, c->plen);
		if (rc == 0)
			(*nb)--;
		return rc;
	}
	rc = rte_fib6_add(fib, c->prefix, c->plen, c->nh);
	if (rc == 0 && n == NULL)
		(*nb)++;
	return rc;
}

int
dp_fwd_route6_changes_build(
	struct dp_fwd_route6_change *c, uint32_t n, struct rte_fib6 **out, uint32_t *nb_routes)
{
	struct rte_fib6 *live = dp_fwd_ip6.fib;
	struct fib6_copy cp = { 0 };
	uint64_t rules = 16, tbl8 = 64;
	uint32_t i;
	int rc;

	if (live == NULL)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		rules += !c[i].del;
		tbl8 += c[i].del ? 0 : tbl8_for(c[i].plen);
	}
	rib6_foreach(rte_fib6_get_rib(live), copy_count, &cp);
	cp.fib = fib6_new(cp.nb + rules, cp.tbl8 + tbl8);
	if (cp.fib == NULL)
		return -ENOMEM;
	cp.nb = 0;
	rc = rib6_foreach(rte_fib6_get_rib(live), copy_add, &cp);
	if (rc < 0) {
		rte_fib6_free(cp.fib);
		return rc;
	}
	for (i = 0; i < n; i++)
		c[i].rc = change6_in(cp.fib, &cp.nb, &c[i]);
	*out = cp.fib;
	*nb_routes = cp.nb;
	return 0;
}

int
dp_fwd_route6_change(bool add, const struct dp_fwd_config_route6 *r, struct rte_fib6 **out,
	uint32_t *nb_routes, char *err, size_t errlen)
{
	struct rte_fib6 *live = dp_fwd_ip6.fib;
	struct dp_fwd_route6_change one = { .plen = r->plen, .del = !add };
	struct rte_rib6_node *n;
	char a[64];
	uint64_t old_nh;
	int rc;

	if (live == NULL) {
		snprintf(err, errlen,
			"IPv6 is off (no ip6 address, IPv6 route or neighbor in the "
			"config): add one and restart");
		return -EINVAL;
	}
	n = rte_rib6_lookup_exact(rte_fib6_get_rib(live), r->prefix, r->plen);
	/* a port's address leads to the router itself for as long as dpfwd runs
	 * (route.c's reload_keeps_addrs()): neither replaced nor deleted */
	if (n != NULL && rte_rib6_get_nh(n, &old_nh) == 0 && old_nh == DP_FWD_NH_LOCAL) {
		char route[80];

		snprintf(route, sizeof(route), "%s/%u", dp_config_ip6_str(r->prefix, a, sizeof(a)),
			r->plen);
		return dp_fwd_refuse_port_addr(err, errlen, route);
	}
	if (!add && n == NULL) {
		snprintf(err, errlen, "no route %s/%u", dp_config_ip6_str(r->prefix, a, sizeof(a)),
			r->plen);
		return -ENOENT;
	}
	rc = add ? dp_fwd_route6_nh(r, &one.nh) : 0;
	if (rc < 0) {
		snprintf(err, errlen, "no room for the %s: %s",
			r->paths != NULL ? "ECMP group"
			: r->has_gw      ? "gateway's neighbor"
					 : "next hop",
			rc == -ENOSPC && r->paths != NULL
				? "table full (at most " RTE_STR(
					  DP_FWD_GROUPS_MAX) " groups, or neighbors: [dpfwd] neigh_max)"
				: why_str(rc));
		return rc;
	}
	memcpy(one.prefix, r->prefix, 16);
	rc = dp_fwd_route6_changes_build(&one, 1, out, nb_routes);
	if (rc == 0 && one.rc < 0) {
		rte_fib6_free(*out);
		*out = NULL;
		rc = one.rc;
	}
	if (rc < 0)
		snprintf(err, errlen, "cannot %s %s/%u: %s", add ? "add" : "delete",
			dp_config_ip6_str(r->prefix, a, sizeof(a)), r->plen,
			rc == -ENOMEM ? "out of memory for a copy of the IPv6 table" : why_str(rc));
	return rc;
}

void
dp_fwd_ip6_fini(void)
{
	rte_fib6_free(dp_fwd_ip6.fib);
	dp_fwd_ip6.fib = NULL;
	dp_fwd_ip6.nb_routes = 0;
}

/* ---- telemetry ---- */

static json_t *
fwd6_fill(void *arg)
{
	struct dp_nd_stats nd;
	json_t *ports = json_array();
	uint16_t i;

	RTE_SET_USED(arg);
	for (i = 0; i < dp_nb_ports; i++) {
		const struct dp_fwd_port6 *p = &dp_fwd_ip6.port[i];
		char ll[64], addr[64], gl[80];

		dp_config_ip6_str(p->ll, ll, sizeof(ll));
		dp_config_ip6_str(p->global, addr, sizeof(addr));
		snprintf(gl, sizeof(gl), "%s/%u", addr, p->pfxlen);
		json_array_append_new(
			ports, json_pack("{s:i, s:s, s:o}", "port", i, "link_local", ll, "global",
				       p->has_global ? json_string(gl) : json_null()));
	}
	dp_nd_stats_get(&nd);
	return json_pack("{s:b, s:I, s:o, s:o, s:{s:I, s:I, s:I, s:I}}", "enabled",
		dp_fwd_ip6.fib != NULL, "routes", (json_int_t)dp_fwd_ip6.nb_routes, "ports", ports,
		"icmp6", icmp6_telemetry_json(), "nd", "ns_in", (json_int_t)nd.ns_in, "na_in",
		(json_int_t)nd.na_in, "ns_out", (json_int_t)nd.ns_out, "na_out",
		(json_int_t)nd.na_out);
}

int
dp_fwd_ip6_telemetry_register(void)
{
	return dp_telemetry_section_register("fwd6", "/dpfwd/fwd/ip6",
		"IPv6: routes, port addresses, ICMPv6 echo replies and errors, ND messages",
		fwd6_fill, NULL);
}
