/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ECMP groups: a route with several next hops ("via A port 1 weight 1 via B
 * port 2 weight 3") has one next-hop entry flagged DP_FWD_NH_F_GROUP, whose
 * index the FIB holds like any other; the entry names a group, and a packet
 * takes the member its flow hashes to (group_fp.h).
 *
 * Resilient hashing: a group has DP_FWD_GROUP_BUCKETS buckets, each owned by
 * one member ("home"), in proportion to the weights. A flow hashes to a
 * bucket, the bucket names a member. A member is down while its neighbor has
 * failed (dp_neigh_is_down()) or its port's link is down; only the buckets of
 * a member that went down are given to the live ones (each to the member
 * furthest below its weighted share), and they go home when it is back. The
 * flows of live members never move.
 *
 *   dp_fwd.nh[i] (GROUP, group = g) --> dp_fwd_groups[g]
 *       hop[bucket of the hash] = next hop index of the bucket's member (a neighbor)
 *
 * Workers read a group without locks: a bucket is one 32-bit word, the member's
 * next hop itself (one load a packet), changed by one store, so a reader sees
 * the old member or the new one, and both are right
 * while the change is made (as route.c's argument 1 for the FIB). A group's
 * members and weights never change once it is made, and groups are never
 * freed while dpfwd runs (as next hops are not): a route to the same next
 * hops with the same weights shares the group. At most DP_FWD_GROUPS_MAX.
 */
#ifndef DP_FWD_GROUP_H
#define DP_FWD_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_fwd_config.h"

/** Buckets of a group: a flow's share is 1/256 of it. */
#define DP_FWD_GROUP_BUCKETS 256
/** Groups, at most (distinct sets of next hops and weights). */
#define DP_FWD_GROUPS_MAX 1024

/** What the workers read of a group. */
struct dp_fwd_group {
	uint32_t hop[DP_FWD_GROUP_BUCKETS]; /**< the next hop of each bucket: one of member[] */
	uint32_t member[DP_FWD_ECMP_MAX];   /**< next hop indices, in the route's order */
} __rte_cache_aligned;

/** The groups, DP_FWD_GROUPS_MAX of them (NULL before dp_fwd_group_init()). */
extern struct dp_fwd_group *dp_fwd_groups;

/** A group was made (groups are never freed): the forwarding nodes resolve
 * groups in a pass of their own over each burst's lookup results. */
extern bool dp_fwd_groups_made;

/** Make the (empty) group table. @return 0 or -ENOMEM. */
int dp_fwd_group_init(void);

/** Free the group table. */
void dp_fwd_group_fini(void);

/**
 * Control lcore: the next hop of a route with next hops @p paths (@p v6: IPv6
 * gateways): an existing group with the same next hops and weights in the same
 * order, or a new one (its members' neighbor entries made as for any gateway).
 * @return 0 with the entry's index in @p idx, -ENOSPC (DP_FWD_GROUPS_MAX groups,
 * or no room for next hops: [dpfwd] neigh_max).
 */
int dp_fwd_group_get(const struct dp_fwd_config_paths *paths, bool v6, uint32_t *idx);

/** Control lcore: whether next hop @p idx is a member of some group. */
bool dp_fwd_group_has_member(uint32_t idx);

/**
 * Control lcore: look at every group's members again (neighbor failed or back,
 * a link down or up) and move the buckets of those that changed.
 */
void dp_fwd_group_refresh(void);

/** Groups made so far. */
uint32_t dp_fwd_group_count(void);

/**
 * Control lcore: group next hop @p idx as the tail of a route line
 * (" via A port 1 weight 1 via B port 2 weight 3") into @p buf.
 * @return the length it needs (as snprintf).
 */
int dp_fwd_group_format(uint32_t idx, char *buf, size_t len);

/**
 * Control lcore: member @p slot of group next hop @p idx as a line
 * ("via A port 1 weight 1 live", or "down", and its share of the buckets).
 * @return -ENOENT past the last member, else the length it needs.
 */
int dp_fwd_group_member_format(uint32_t idx, unsigned int slot, char *buf, size_t len);

/** A flow's hash for an IPv4 packet (after a plain Ethernet header): the NIC's
 * RSS hash when it gave one; else the 5-tuple's, or the addresses' for
 * fragments and protocols other than TCP and UDP. The fast path inlines it
 * (group_fp.h). */
uint32_t dp_fwd_flow_hash4(const struct rte_mbuf *m);

/** The same for IPv6 (the 5-tuple when TCP or UDP follows the fixed header). */
uint32_t dp_fwd_flow_hash6(const struct rte_mbuf *m);

#endif /* DP_FWD_GROUP_H */
