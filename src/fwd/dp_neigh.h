/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Neighbors (ARP, RFC 826; IPv6 ND, RFC 4861), one table for both families.
 *
 * A neighbor is a next hop (struct dp_fwd_nh in dp_fwd.nh[]) with a link-layer
 * address to learn. Routes through a gateway point at the gateway's next hop;
 * on-link (connected) routes point at a next hop flagged DP_FWD_NH_F_CONNECTED,
 * whose packets are sent to the neighbor of their own destination address,
 * found in a lock-free rte_hash keyed by (family, address, port). Only the
 * control lcore writes: it creates neighbors, runs their state machine
 * (incomplete -> reachable -> stale -> ..., failed), sends requests, and holds
 * a few packets per unresolved neighbor. Workers read the hash and the next
 * hops without locks; a MAC changes with one 8-byte store.
 */
#ifndef DP_NEIGH_H
#define DP_NEIGH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_hash.h>

#include "dp_config.h"
#include "dp_fwd.h"

/* 32 bytes: rte_hash compares keys of 16, 32, 48... bytes with vector code, any
 * other length with a memcmp() call per bucket entry */
struct dp_neigh_key {
	uint8_t addr[16]; /**< IPv4: the first 4 bytes, network order, rest zero */
	uint16_t port;    /**< config port index */
	uint8_t family;   /**< 4 or 6 */
	uint8_t pad[13];
};
_Static_assert(sizeof(struct dp_neigh_key) == 32, "dp_neigh_key: a vector-compared size");

/** The neighbor hash (workers: lookups only). */
extern struct rte_hash *dp_neigh_hash;

/** Fast path: the next hop of IPv4 neighbor @p ip_be (network order) on @p port, or -1. */
static inline int32_t
dp_neigh_find4(uint32_t ip_be, uint16_t port)
{
	struct dp_neigh_key k = { .port = port, .family = 4 };
	void *data;

	memcpy(k.addr, &ip_be, 4);
	if (rte_hash_lookup_data(dp_neigh_hash, &k, &data) < 0)
		return -1;
	return (int32_t)(uintptr_t)data;
}

/** Most neighbors one dp_neigh_find_bulk() call looks up. */
#define DP_NEIGH_BULK RTE_HASH_LOOKUP_BULK_MAX

/**
 * Fast path: the next hops of the @p n (at most DP_NEIGH_BULK) neighbors
 * @p keys, into @p out (-1: none), in one pipelined hash lookup (a per-packet
 * rte_hash_lookup_data() waits on each bucket in turn).
 */
static inline void
dp_neigh_find_bulk(const struct dp_neigh_key *keys, unsigned int n, int32_t *out)
{
	const void *kp[DP_NEIGH_BULK];
	void *data[DP_NEIGH_BULK];
	uint64_t hits = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		kp[i] = &keys[i];
	rte_hash_lookup_bulk_data(dp_neigh_hash, kp, n, &hits, data);
	for (i = 0; i < n; i++)
		out[i] = (hits >> i) & 1 ? (int32_t)(uintptr_t)data[i] : -1;
}

/** Fast path: the next hop of IPv6 neighbor @p addr on @p port, or -1. */
static inline int32_t
dp_neigh_find6(const uint8_t addr[16], uint16_t port)
{
	struct dp_neigh_key k = { .port = port, .family = 6 };
	void *data;

	memcpy(k.addr, addr, 16);
	if (rte_hash_lookup_data(dp_neigh_hash, &k, &data) < 0)
		return -1;
	return (int32_t)(uintptr_t)data;
}

/**
 * Fast path: the next hop a packet to @p dst (network order: 4 bytes, or 16
 * with @p v6) takes through next hop @p idx. An on-link (connected) route
 * stands for every host of its subnet: the host's own neighbor entry when the
 * table has one; otherwise, and for any other next hop, @p idx.
 */
static __rte_always_inline uint32_t
dp_neigh_hop_of(const struct dp_fwd_nh *nh_table, uint32_t idx, const bool v6, const uint8_t *dst)
{
	const struct dp_fwd_nh *nh = &nh_table[idx];
	rte_be32_t d4;
	int32_t n;

	if (!(nh->flags & DP_FWD_NH_F_CONNECTED))
		return idx;
	if (v6) {
		n = dp_neigh_find6(dst, nh->port);
	} else {
		memcpy(&d4, dst, sizeof(d4));
		n = dp_neigh_find4(d4, nh->port);
	}
	return n >= 0 ? (uint32_t)n : idx;
}

/**
 * Control lcore: send a solicitation (an ARP request or an ND neighbor
 * solicitation) for next hop @p nh; @p unicast asks the known MAC (NUD probe)
 * rather than broadcasting. Registered per family by the ARP and ND code.
 */
typedef void (*dp_neigh_solicit_t)(uint32_t nh, bool unicast);
void dp_neigh_solicit_register(int family, dp_neigh_solicit_t fn);

/**
 * Control lcore: the next hop of a neighbor, created (state incomplete) if
 * absent. @p addr: 4 bytes (network order) or 16. @return index or -ENOSPC.
 */
int32_t dp_neigh_get(int family, const uint8_t *addr, uint16_t port, bool create);

/**
 * Control lcore: what a received ARP/ND message says about a neighbor.
 * @param solicited  a reply to our request (ARP reply, NA with S flag): reachable;
 *                   otherwise (requests, unsolicited) the entry becomes stale
 * @param create     create the entry if absent (RFC 826: when the request was for us)
 */
void dp_neigh_learn(int family, const uint8_t *addr, uint16_t port,
	const struct rte_ether_addr *mac, bool solicited, bool create);

/** Control lcore: a static neighbor (config): resolved, never expires. */
/**
 * Control lcore: whether neighbor @p idx failed (probes unanswered) and has not
 * been resolved since; ECMP groups skip it meanwhile (dp_fwd_group.h).
 */
bool dp_neigh_is_down(uint32_t idx);

void dp_neigh_set_permanent(uint32_t nh, const struct rte_ether_addr *mac);

/** Setup, called by dp_fwd_init(); registers the punt handlers and timers. @return 0 or -errno. */
int dp_neigh_init(const struct dp_config *cfg, char *err, size_t errlen);
/** Punt handlers and timers; after dp_ctl_init() (it forgets earlier ones). @return 0 or -errno. */
int dp_neigh_start(void);
/** ARP's punt handler and solicitations. */
int dp_arp_start(void);
/** One gratuitous ARP per port address (when ports go live). @return frames queued. */
unsigned int dp_arp_announce(void);
void dp_neigh_fini(void);
int dp_neigh_telemetry_register(void);

#endif /* DP_NEIGH_H */
