/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPv6 forwarding (RFC 8200) and Neighbor Discovery (RFC 4861); its ICMPv6
 * (RFC 4443) is dp_icmp6.h's.
 *
 * Routes live in DPDK's rte_fib6 (trie); a lookup's result is an index into
 * the next-hop table dp_fwd.nh[] that IPv4 uses too (entries flagged
 * DP_FWD_NH_F_IP6). Every port has a link-local address made from its MAC
 * (modified EUI-64, RFC 4291 appendix A) and may have one global address
 * ([portN] ip6); both are local /128s, and the global one's prefix is an
 * on-link (connected) route.
 *
 *   eth_classify -> ip6_fwd --> ip6_output -> port_tx-<port>
 *                      |  \--> ip6_local --(echo reply)--> ip6_output
 *                      |          \--(NS, NA)--> ctl_punt -> ND on the control lcore
 *                      \--(hop limit, no route)--> icmp6_error -> ip6_output
 */
#ifndef DP_FWD6_H
#define DP_FWD6_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_ether.h>

#include "dp_config.h"
#include "dp_fwd_config.h"

/**
 * rte_fib6's result when nothing matches. A trie with 4-byte next hops stores
 * 31-bit values (the top bit marks an internal node), so this is the largest.
 */
#define DP_FWD_NO_ROUTE6 UINT32_C(0x7fffffff)

/** The IPv6 addresses of one port. */
struct dp_fwd_port6 {
	uint8_t global[16]; /**< [portN] ip6; :: when none */
	uint8_t ll[16];     /**< fe80::/64 + modified EUI-64 of the port's MAC */
	bool has_global;
	uint8_t pfxlen;
};

/** Port @p p's connected prefix (its global address with the host bits cleared) in @p pfx. */
static inline void
dp_fwd_port6_prefix(const struct dp_fwd_port6 *p, uint8_t pfx[16])
{
	unsigned int k;

	memcpy(pfx, p->global, 16);
	for (k = p->pfxlen; k < 128; k++)
		pfx[k / 8] &= (uint8_t) ~(0x80 >> (k % 8));
}

struct dp_fwd_ip6_table {
	struct rte_fib6 *fib; /**< NULL: IPv6 is off (no address, route or neighbor configured) */
	uint32_t nb_routes;
	struct dp_fwd_port6 port[DP_CONFIG_MAX_PORTS]; /**< by config port index */
};

/** The table the workers read. */
extern struct dp_fwd_ip6_table dp_fwd_ip6;

/**
 * Build the IPv6 table from the config, after the IPv4 one and dp_neigh_init()
 * (called by dp_fwd_init()): local /128s (global and link-local), connected
 * prefixes (next hops flagged DP_FWD_NH_F_CONNECTED, dp_fwd.connected6[]),
 * static neighbors (permanent), routes. Nothing is created when the config
 * has no IPv6 address, route or neighbor.
 * @return 0, -ENOMEM, -ENOSPC, -EINVAL (message with file:line in @p err).
 */
int dp_fwd_ip6_init(const struct dp_config *cfg, char *err, size_t errlen);

/**
 * Control lcore: a new IPv6 table for @p cfg's routes and static neighbors, with
 * the ports' local and connected routes (their addresses as at start), into
 * @p fib (NULL when @p cfg has no IPv6 at all), not published: route.c swaps it
 * in on a reload. @return 0, or -errno with @p err naming the config file:line.
 */
int dp_fwd_fib6_build(const struct dp_config *cfg, struct rte_fib6 **fib, uint32_t *nb_routes,
	char *err, size_t errlen);

/**
 * Control lcore: a copy of the live IPv6 table with route @p r added (@p add)
 * or deleted, into @p fib, not published (route.c swaps it in). rte_fib6's trie
 * frees its tables without a grace period, as dir24_8 does: every change is made
 * in a copy rather than in place, and a batch of them in one copy
 * (dp_fwd_route6_changes_build()).
 * @return 0, or -EINVAL (IPv6 off, a port address), -ENOENT (no such route),
 * -ENOSPC, -ENOMEM, with the reason in @p err.
 */
int dp_fwd_route6_change(bool add, const struct dp_fwd_config_route6 *r, struct rte_fib6 **fib,
	uint32_t *nb_routes, char *err, size_t errlen);

/** Control lcore: the next hop of IPv6 route @p r (its ECMP group, its gateway's neighbor,
 * or the port's on-link one), made on first use. @return 0 or -ENOSPC. */
int dp_fwd_route6_nh(const struct dp_fwd_config_route6 *r, uint32_t *idx);

/** One IPv6 route change of a batch (dp_fwd_route6_changes_build()). */
struct dp_fwd_route6_change {
	uint8_t prefix[16]; /**< network order, host bits zero */
	uint32_t nh;        /**< an add's next hop (dp_fwd_route6_nh()) */
	uint8_t plen;
	bool del;
	bool same; /**< set by dp_fwd_route6_changes_apply(): the table had it; nothing made */
	int rc;    /**< set by dp_fwd_route6_changes_build(): 0 or -errno */
};

/**
 * Control lcore: a copy of the live IPv6 table with the @p n changes of @p c made in
 * their order, into @p fib, not published (route.c swaps it in): one copy for the whole
 * batch. A change of a port's address is refused (c[i].rc -EINVAL), as is the delete of
 * no route (-ENOENT); -ENOSPC: the table is full.
 * @return 0 (each c[i].rc set), -EINVAL (IPv6 off), -ENOMEM.
 */
int dp_fwd_route6_changes_build(
	struct dp_fwd_route6_change *c, uint32_t n, struct rte_fib6 **fib, uint32_t *nb_routes);

/** Free the IPv6 table. */
void dp_fwd_ip6_fini(void);

/** The next hop of @p addr (control path), or DP_FWD_NO_ROUTE6. */
uint32_t dp_fwd_lookup6(const uint8_t addr[16]);

/** The link-local address of a MAC: fe80::/64 with the modified EUI-64 (RFC 4291 A). */
void dp_fwd_ip6_ll_from_mac(const struct rte_ether_addr *mac, uint8_t out[16]);

/**
 * ND on the control lcore (nd.c): answer neighbor solicitations for the ports'
 * addresses, learn from NS and NA, send solicitations for next hops
 * (dp_neigh_solicit_register(6, ...)), and make the ports receive the
 * solicited-node and all-nodes multicast groups. Call after dp_ctl_init().
 * @return 0 or -errno.
 */
int dp_nd_start(void);

/** All-nodes and a solicited-node group per address of a port and its sub-interfaces. */
#define DP_ND_MCAST_MACS_MAX (1 + 2 * DP_CONFIG_MAX_PORTS)

/**
 * The multicast MACs physical port @p port's filter takes (RFC 2464 7): all-nodes
 * and the solicited-node groups of the addresses of the port and of each of its
 * sub-interfaces, each once. @return how many are in @p macs.
 */
uint32_t dp_nd_mcast_macs(uint16_t port, struct rte_ether_addr macs[DP_ND_MCAST_MACS_MAX]);

/** Control-lcore ND counters. */
struct dp_nd_stats {
	uint64_t ns_in, na_in, ns_out, na_out;
};
void dp_nd_stats_get(struct dp_nd_stats *st);

/** Register the "fwd6" telemetry section (/dpfwd/fwd/ip6). @return 0 or -errno. */
int dp_fwd_ip6_telemetry_register(void);

#endif /* DP_FWD6_H */
