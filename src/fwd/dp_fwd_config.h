/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * fwd's config sections (dp_config.h's key tables, registered by fwd's module):
 *
 *   [routes]      route = 198.18.1.0/24 via 198.18.1.2 port 1   (repeatable)
 *                 route = 2001:db8:1::/48 via 2001:db8:101::2 port 1   (IPv6 alike)
 *                 route = 198.18.2.0/24 via 198.18.101.2 port 1 weight 1 via 198.18.102.2 port 2
 *                                                         (several next hops: ECMP)
 *                 file = routes.txt                       (same line format)
 *                 ip4_max, ip4_tbl8                       (the IPv4 table's room)
 *   [neighbors]   neigh = 198.18.1.2 lladdr 02:00:00:00:01:02 port 1
 *                 neigh = 2001:db8:101::2 lladdr 02:00:00:00:01:02 port 1
 *
 * Their structs live in struct dp_config's room for modules; dp_fwd_routes_config()
 * and dp_fwd_neighbors_config() read them.
 */
#ifndef DP_FWD_CONFIG_H
#define DP_FWD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_ether.h>

#include "dp_config.h"

/** Static neighbors of each family, at most. */
#define DP_FWD_CONFIG_MAX_NEIGHS 256

/** Next hops of one route, at most (ECMP). */
#define DP_FWD_ECMP_MAX 16
/** The largest weight of a next hop. */
#define DP_FWD_ECMP_WEIGHT_MAX 255

/** One next hop of a route with several ("via ADDR port N [weight W]"). */
struct dp_fwd_config_path {
	uint32_t gw;     /**< IPv4, host order */
	uint8_t gw6[16]; /**< IPv6, network order */
	uint16_t port;
	uint16_t weight; /**< 1..DP_FWD_ECMP_WEIGHT_MAX, 1 unless given */
};

/** The next hops of a route, in the order written. */
struct dp_fwd_config_paths {
	unsigned int nb;
	struct dp_fwd_config_path p[DP_FWD_ECMP_MAX];
};

/** An IPv4 route of the config or of a route file. */
struct dp_fwd_config_route4 {
	uint32_t prefix; /**< host order, host bits zero */
	uint8_t plen;
	bool has_gw;
	uint32_t gw; /**< host order; without a gateway the route is on-link */
	uint16_t port;
	/** NULL: one next hop (gw, port); else 2..DP_FWD_ECMP_MAX, the first
	 * also in gw and port (a config's: malloc'd, freed with the config) */
	struct dp_fwd_config_paths *paths;
	struct dp_config_loc loc;
};

/** An IPv6 route: the same line format as IPv4, with IPv6 addresses. */
struct dp_fwd_config_route6 {
	uint8_t prefix[16]; /**< network order, host bits zero */
	uint8_t gw[16];     /**< network order; without a gateway the route is on-link */
	uint8_t plen;
	bool has_gw;
	uint16_t port;
	struct dp_fwd_config_paths *paths; /**< as for IPv4 */
	struct dp_config_loc loc;
};

struct dp_fwd_config_neigh4 {
	uint32_t ip; /**< host order */
	struct rte_ether_addr mac;
	uint16_t port;
	struct dp_config_loc loc;
};

struct dp_fwd_config_neigh6 {
	uint8_t ip[16];
	struct rte_ether_addr mac;
	uint16_t port;
	struct dp_config_loc loc;
};

/** [routes]: the routes of the config and its route files, in the order read. */
struct dp_fwd_routes_config {
	struct dp_fwd_config_route4 *routes4; /**< malloc'd, freed by dp_config_free() */
	uint32_t nb_routes4;
	uint32_t cap_routes4;
	struct dp_fwd_config_route6 *routes6; /**< malloc'd, freed by dp_config_free() */
	uint32_t nb_routes6;
	uint32_t cap_routes6;
	/* ip4_max, ip4_tbl8: the IPv4 table's room (0 = from the routes) */
	uint32_t ip4_max;              /**< prefixes (live adds beyond fail: table full) */
	uint32_t ip4_tbl8;             /**< 256-entry groups for /24s with longer prefixes */
	struct dp_config_loc size_loc; /**< the last of them set, for table errors */
};

/** [neighbors]: the static neighbors. */
struct dp_fwd_neighbors_config {
	struct dp_fwd_config_neigh4 neighs4[DP_FWD_CONFIG_MAX_NEIGHS];
	uint16_t nb_neighs4;
	struct dp_fwd_config_neigh6 neighs6[DP_FWD_CONFIG_MAX_NEIGHS];
	uint16_t nb_neighs6;
};

/** The sections, in fwd's module (fwd_module.c). */
extern struct dp_config_section dp_fwd_routes_section;
extern struct dp_config_section dp_fwd_neighbors_section;

/** [routes] of @p cfg. */
const struct dp_fwd_routes_config *dp_fwd_routes_config(const struct dp_config *cfg);

/** [neighbors] of @p cfg. */
const struct dp_fwd_neighbors_config *dp_fwd_neighbors_config(const struct dp_config *cfg);

/**
 * Read a route file into @p cfg's [routes]: one route a line, "#" comments, blank
 * lines allowed.
 *   198.18.1.0/24 via 198.18.1.2 port 1
 *   198.18.2.0/24 port 2                 (on-link)
 *   R198.18.3.0/24 3                     (DPDK l3fwd's rule format, on-link)
 * @return 0, -EINVAL (message "file:line: ..."), -ENOENT, -ENOMEM.
 */
int dp_fwd_config_route_file_load(
	struct dp_config *cfg, const char *path, char *err, size_t errlen);

/**
 * Parse one IPv4 route in the format above, with one next hop.
 * @return 0 or -EINVAL with the reason in @p err (also for several next hops).
 */
int dp_fwd_config_route4_parse(
	const char *text, struct dp_fwd_config_route4 *r, char *err, size_t errlen);

/**
 * Parse one IPv4 route that may have several next hops (ECMP):
 *   198.18.1.0/24 via 198.18.101.2 port 1 weight 1 via 198.18.102.2 port 2 weight 3
 * up to DP_FWD_ECMP_MAX, weight 1..DP_FWD_ECMP_WEIGHT_MAX (1 unless given), none
 * twice. @p paths gets the next hops (nb 1 for a plain route); r->paths points
 * to it when there are several. @return 0 or -EINVAL with the reason in @p err.
 */
int dp_fwd_config_route4_parse_paths(const char *text, struct dp_fwd_config_route4 *r,
	struct dp_fwd_config_paths *paths, char *err, size_t errlen);

/** The same for IPv6 (dp_fwd_config_route6_parse()'s formats). */
int dp_fwd_config_route6_parse_paths(const char *text, struct dp_fwd_config_route6 *r,
	struct dp_fwd_config_paths *paths, char *err, size_t errlen);

/**
 * Parse one IPv6 route, in the IPv4 formats with IPv6 addresses:
 *   2001:db8:1::/48 via 2001:db8:101::2 port 1    (or via fe80::... link-local)
 *   2001:db8:2::/48 port 2                         (on-link)
 *   R2001:db8:3::/48 3                             (l3fwd's rule format)
 * @return 0 or -EINVAL with the reason in @p err.
 */
int dp_fwd_config_route6_parse(
	const char *text, struct dp_fwd_config_route6 *r, char *err, size_t errlen);

#endif /* DP_FWD_CONFIG_H */
