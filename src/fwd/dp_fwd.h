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
#include <string.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_ip.h>
#include <rte_lpm.h>

#include "dp_cksum.h"

#include "dp_config.h"

#define DP_FWD_NH_LOCAL 0 /**< next hop index of the router's own addresses */

enum {
	DP_FWD_NH_F_VALID = 1 << 0,
	DP_FWD_NH_F_RESOLVED = 1 << 1, /**< l2 holds the neighbor's MAC */
	DP_FWD_NH_F_LOCAL = 1 << 2,
	DP_FWD_NH_F_IP6 = 1 << 3, /**< an IPv6 next hop: gw6 is its address */
	/** on-link: send to the neighbor of the packet's own destination (dp_neigh_find4/6) */
	DP_FWD_NH_F_CONNECTED = 1 << 4,
};

/*
 * One next hop, for IPv4 and IPv6 alike (the neighbor code treats both the
 * same way). The fast path reads the first 17 bytes; the rest is for the
 * control lcore.
 */
struct dp_fwd_nh {
	struct rte_ether_hdr l2; /**< written in front of every packet sent to this hop */
	uint16_t port;		 /**< config port index (edge DP_GRAPH_EDGE_PORT_TX(port)) */
	uint8_t flags;
	uint8_t pad;
	uint32_t gw;	   /**< IPv4, host order; 0 for on-link routes without a neighbor */
	uint8_t gw6[16];   /**< IPv6 (DP_FWD_NH_F_IP6); :: for on-link routes */
} __rte_aligned(64);

struct dp_fwd_table {
	struct rte_lpm *lpm;
	struct dp_fwd_nh *nh;
	uint32_t nb_nh;
	uint32_t max_nh;
	uint32_t nb_routes;
	uint32_t connected4[DP_CONFIG_MAX_PORTS]; /**< on-link next hop per port (0: none) */
	uint32_t connected6[DP_CONFIG_MAX_PORTS];
};

/** The table the workers read. */
extern struct dp_fwd_table dp_fwd;

_Static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN, "TTL is the low byte of the word");

/**
 * What leaving through next hop @p nh does to an IPv4 packet: MACs from the
 * next hop, TTL - 1 with the checksum updated incrementally (RFC 1624). The
 * caller made sure TTL > 1. ip4_output's hot loop and released held packets.
 */
static __rte_always_inline void
dp_fwd_ip4_rewrite(const struct dp_fwd_nh *nh, struct rte_ether_hdr *eth)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	uint32_t w32;

	/* dst + src MAC in one 12-byte copy; the ethertype stays IPv4 */
	memcpy(eth, &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
	/* TTL, protocol and checksum are one 32-bit word: one load, one store */
	memcpy(&w32, &ip->time_to_live, sizeof(w32));
	w32 = (((w32 & 0xffff) - 1) & 0xffff) |
		(uint32_t)dp_cksum_ttl_dec((uint16_t)(w32 >> 16)) << 16;
	memcpy(&ip->time_to_live, &w32, sizeof(w32));
}

/** The same for IPv6: MACs, hop limit - 1 (no header checksum). */
static __rte_always_inline void
dp_fwd_ip6_rewrite(const struct dp_fwd_nh *nh, struct rte_ether_hdr *eth)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);

	memcpy(eth, &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
	ip->hop_limits--;
}

/**
 * Build the table from the config: local /32s and connected subnets of every
 * port address, static neighbors (as /32 host routes), then every route.
 * Ports must be probed and started (their MACs are used).
 * @return 0, -ENOMEM, -ENOSPC (too many next hops), -EINVAL (message in @p err).
 */
int dp_fwd_init(const struct dp_config *cfg, char *err, size_t errlen);

/**
 * Control lcore: a new next hop on config port @p port (source MAC and ethertype
 * set, flags VALID and, for @p ip6, IP6). @return its index, or -ENOSPC.
 */
int32_t dp_fwd_nh_alloc(uint16_t port, bool ip6);

/** Control lcore: the next hop of a route (its gateway's neighbor, or the port's on-link one). */
int dp_fwd_route4_nh(const struct dp_config_route *r, uint32_t *idx);

/**
 * Routes that change while traffic flows (route.c). All of them run on the
 * control lcore; from other threads they go through dp_ctl_call().
 * Single routes change the live table in place (rte_lpm's writes are atomic
 * per entry and its freed tbl8 groups wait for the workers' RCU quiescent
 * state); a reload builds a whole new table beside the live one, swaps the
 * pointer, waits for every worker to pass a walk, then frees the old one.
 */
/** After the workers exist: RCU for the table, the route commands. @return 0 or -errno. */
int dp_route_start(void);
/** Telemetry commands /dpfwd/route/{add,del,reload}; reload reads @p config_path by default. */
int dp_route_start_cmds(const char *config_path);
/** Add "prefix via gw port N" (config route syntax). @return 0 or -errno, message in @p err. */
int dp_route_add(const char *text, char *err, size_t errlen);
/** Delete the route to "a.b.c.d/len". @return 0, -ENOENT, -EINVAL. */
int dp_route_del(const char *prefix, char *err, size_t errlen);
/**
 * Re-read the config file @p path and replace the IPv4 routes with its own
 * (ports' subnets, routes, route files); on any error the live table stays.
 * @return 0 or -errno with "file:line: ..." in @p err.
 */
int dp_route_reload(const char *path, char *err, size_t errlen);

/** A new, empty IPv4 route table sized for @p nb_routes (unique name). NULL: rte_errno. */
struct rte_lpm *dp_fwd_lpm4_create(uint32_t nb_routes, uint32_t nb_ports);

/**
 * Control lcore: put the config's IPv4 routes in @p lpm: each port's local /32
 * and connected subnet, static neighbors, routes (creating their next hops).
 * @return 0 or -errno with "file:line: ..." in @p err.
 */
int dp_fwd_lpm4_fill(struct rte_lpm *lpm, const struct dp_config *cfg, uint32_t *nb_routes,
	char *err, size_t errlen);

/** Free the table. */
void dp_fwd_fini(void);

/** Register the "fwd" telemetry section (/dpfwd/fwd/routes). */
int dp_fwd_telemetry_register(void);

#endif /* DP_FWD_H */
