/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * IPv4 forwarding tables: routes in DPDK's rte_fib (DIR24_8, 4-byte entries),
 * whose result is an index into the next-hop table; each next hop carries the
 * Ethernet header to write (neighbor MAC, egress port MAC) and the egress port.
 *
 * Why rte_fib and not rte_lpm: rte_lpm keeps its rules in per-depth arrays
 * that an add scans linearly, so a table's load time grows with the square of
 * its size (far too long for a million prefixes); rte_fib keeps them in a RIB
 * (a binary trie: O(32) per add and delete) beside the same 2^24-entry first
 * table plus 256-entry tbl8 groups, and looks a whole burst up in one call.
 *
 * Names, both families: the family is a digit on the object
 * (dp_fwd_lookup4/dp_fwd_lookup6, dp_fwd_fib4_build/dp_fwd_fib6_build), or the
 * object is the protocol (dp_fwd_ip4_rewrite, dp_fwd_ip6_init); never on the
 * module's prefix.
 */
#ifndef DP_FWD_H
#define DP_FWD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_fib.h>

#include "dp_cksum.h"

#include "dp_config.h"
#include "dp_fwd_config.h"
#include "dp_graph.h"

/** Log type "dpfwd.fwd": DP_LOG(level, fwd, ...) (dp_common.h). */
extern int dp_logtype_fwd;

#define DP_FWD_NH_LOCAL 0 /**< next hop index of the router's own addresses */

/**
 * The lookup's result when no route matches: rte_fib's default next hop. A
 * DIR24_8 table with 4-byte entries stores 31-bit values (the low bit marks a
 * tbl8 group), so this is the largest; next hop indices stay below 2^24.
 */
#define DP_FWD_NO_ROUTE UINT32_C(0x7fffffff)

enum {
	DP_FWD_NH_F_VALID = 1 << 0,
	DP_FWD_NH_F_RESOLVED = 1 << 1, /**< l2 holds the neighbor's MAC */
	DP_FWD_NH_F_LOCAL = 1 << 2,
	DP_FWD_NH_F_IP6 = 1 << 3, /**< an IPv6 next hop: gw6 is its address */
	/** on-link: send to the neighbor of the packet's own destination (dp_neigh_find4/6) */
	DP_FWD_NH_F_CONNECTED = 1 << 4,
	/** control lcore only: this IPv4 neighbor's adjacency /32 is in the live table */
	DP_FWD_NH_F_ADJ = 1 << 5,
	/** a route's several next hops (ECMP, dp_fwd_group.h): never RESOLVED; a
	 * packet takes one of them, picked by its flow (group_fp.h) */
	DP_FWD_NH_F_GROUP = 1 << 6,
	/** out of a sub-interface whose port does not insert tags: the fwd nodes write
	 * the tag (vlan_tag) with the MACs and send through the worker's txq_tagged */
	DP_FWD_NH_F_TAGGED = 1 << 7,
};

/*
 * One next hop, for IPv4 and IPv6 alike (the neighbor code treats both the
 * same way). The fast path reads the first 24 bytes; the rest is for the
 * control lcore.
 */
struct dp_fwd_nh {
	struct rte_ether_hdr l2; /**< written in front of every packet sent to this hop */
	uint16_t port;           /**< config port index (edge DP_GRAPH_EDGE_PORT_TX(port)) */
	uint8_t flags;
	uint8_t pad;
	uint16_t mtu; /**< the egress port's MTU: the largest IP packet sent to this hop */
	/** DP_FWD_NH_F_TAGGED: TPID 0x8100 and the TCI, as the wire has them */
	uint32_t vlan_tag;
	uint32_t gw;     /**< IPv4, host order; 0 for on-link routes without a neighbor */
	uint8_t gw6[16]; /**< IPv6 (DP_FWD_NH_F_IP6); :: for on-link routes */
	uint32_t group;  /**< DP_FWD_NH_F_GROUP: its index in dp_fwd_groups[] */
} __rte_aligned(64);

/*
 * Adjacencies (VPP's word): a resolved IPv4 neighbor on a connected subnet
 * gets its address as a /32 route whose next hop is its own entry, so that
 * ip4_fwd finds the MAC in the lookup it makes anyway and sends the packet
 * itself; without it, every packet to an on-link host takes ip4_output and
 * a neighbor hash lookup. Only where the connected route is the best match:
 * a route the user made more specific than the subnet wins, and a change of
 * routes adds or removes adjacencies to keep it so (route.c). A /32 the user
 * configured for the address is the user's. An adjacency stays while its
 * neighbor turns stale or fails (its packets then go to ip4_output, which
 * holds them and asks again, as for any unresolved gateway).
 */

/** Packets ip4_frag cut and the fragments it made of them, summed over workers. */
void dp_fwd_frag4_stats_get(uint64_t *fragmented, uint64_t *fragments);

/** Control lcore: the IPv4 routes, as a user counts them (adjacencies are not). */
#define DP_FWD_IP4_ROUTES() (dp_fwd.ip4.nb_routes - dp_fwd.ip4.nb_adj)

/** Control lcore: whether next hop @p nh is an IPv4 neighbor's entry. */
static inline bool
dp_fwd_nh_is_neigh4(const struct dp_fwd_nh *nh)
{
	return (nh->flags & DP_FWD_NH_F_VALID) &&
	       !(nh->flags & (DP_FWD_NH_F_LOCAL | DP_FWD_NH_F_CONNECTED | DP_FWD_NH_F_IP6)) &&
	       nh->gw != 0;
}

/** Control lcore: whether neighbor @p idx may have its adjacency in table @p fib now. */
bool dp_fwd_adj4_eligible(struct rte_fib *fib, uint32_t idx);

/** Control lcore: neighbor @p idx (IPv4) has a MAC: its adjacency, when it may. */
void dp_fwd_adj4_resolved(uint32_t idx);

/** An IPv4 route table: the FIB and what the control lcore knows of it. */
struct dp_fwd_fib4 {
	struct rte_fib *fib;
	uint32_t nb_routes;  /**< prefixes in it */
	uint32_t nb_adj;     /**< of which neighbors' adjacencies (not routes to a user) */
	uint32_t max_routes; /**< prefixes it has room for (its RIB has twice as many nodes) */
	uint32_t tbl8_max;   /**< tbl8 groups it was made with */
	/**
	 * /24s holding at least one prefix longer than /24: each may take a tbl8
	 * group (what dir24_8 reserves, counted the same way), kept 2 below tbl8_max
	 * so that no change can run out of groups half way through its writes.
	 */
	uint32_t tbl8_used;
};

struct dp_fwd_table {
	struct dp_fwd_fib4 ip4; /**< ip4.fib is what the workers read (one pointer, swapped) */
	/** odd while the live IPv4 table is changed in place (route.c): a bulk
	 * lookup that saw it odd or moving confirms its LOCAL answers */
	uint32_t ip4_seq;
	/** moves on after every route change (IPv4 and IPv6, in place or by a
	 * swap) and every change of a next hop's MAC or resolution (neigh.c),
	 * never 0: a node that keeps a lookup's answer or a copy of the MACs
	 * (the relay, per session and in its caches) keeps it with this and
	 * looks again when it has moved. dp_fwd_path_gen_next() */
	uint32_t path_gen;
	struct dp_fwd_nh *nh;
	uint32_t nb_nh;
	uint32_t max_nh;
	uint32_t connected4[DP_CONFIG_MAX_PORTS]; /**< on-link next hop per port (0: none) */
	uint32_t connected6[DP_CONFIG_MAX_PORTS];
};

/** The table the workers read. */
extern struct dp_fwd_table dp_fwd;

/** Control lcore, after a change of routes or next hops is visible: a reader
 * that sees the new dp_fwd.path_gen sees the change; one that kept an answer
 * under the old one looks again. */
static inline void
dp_fwd_path_gen_next(void)
{
	uint32_t g = dp_fwd.path_gen + 1;

	__atomic_store_n(&dp_fwd.path_gen, g == 0 ? 1 : g, __ATOMIC_RELEASE);
}

/*
 * IPv4 lookups, for every node and the control lcore: use these, never
 * rte_fib_lookup_bulk() on dp_fwd.ip4.fib directly. A reader is a graph worker
 * (it reports an RCU quiescent state between walks, on dp_graph_qsv) or the
 * control lcore. Results: an index into dp_fwd.nh, DP_FWD_NH_LOCAL or
 * DP_FWD_NO_ROUTE.
 *
 * A DP_FWD_NH_LOCAL answer is looked up a second time: DPDK 22.11's dir24_8
 * zeroes a tbl8 group as it frees it, with no grace period, and a zeroed entry
 * reads as next hop 0, which is DP_FWD_NH_LOCAL. The group's tbl24 entry was
 * rewritten before (stores stay in order on x86), so the second lookup reads
 * the new entry. route.c has the whole argument. The bulk lookups confirm
 * LOCAL answers only when a change in place ran during the lookup (ip4_seq,
 * read before and after, as a seqlock reader does): the router's own traffic
 * (the relay's) is not looked up twice in the common case.
 */

/** Most addresses one library call looks up (the bulk lookup loops over more). */
#define DP_FWD_LOOKUP_CHUNK 64

static __rte_always_inline uint32_t
dp_fwd_fib4_again(struct rte_fib *fib, uint32_t dst)
{
	uint64_t hop = DP_FWD_NO_ROUTE;

	/* the second read of the tbl24 entry comes after the read of the zeroed entry */
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	rte_fib_lookup_bulk(fib, &dst, &hop, 1);
	return (uint32_t)hop;
}

/** The next hop of one destination @p dst (host order). */
static inline uint32_t
dp_fwd_lookup4(uint32_t dst)
{
	struct rte_fib *fib = __atomic_load_n(&dp_fwd.ip4.fib, __ATOMIC_ACQUIRE);
	uint64_t hop = DP_FWD_NO_ROUTE;

	rte_fib_lookup_bulk(fib, &dst, &hop, 1);
	if (unlikely(hop == DP_FWD_NH_LOCAL))
		return dp_fwd_fib4_again(fib, dst);
	return (uint32_t)hop;
}

/**
 * The FIB's raw answers for @p n destinations (host order), in one library call,
 * for a node that checks them itself. @p n at most RTE_GRAPH_BURST_SIZE.
 * @return true when a change in place ran during the lookup: then a
 * DP_FWD_NH_LOCAL answer may be a tbl8 group zeroed under the reader (see
 * route.c) and must be confirmed with dp_fwd_lookup4(). Every other answer,
 * and every answer when false, is exact.
 */
static __rte_always_inline bool
dp_fwd_lookup4_raw(const uint32_t *dst, uint64_t *hop, unsigned int n)
{
	struct rte_fib *fib = __atomic_load_n(&dp_fwd.ip4.fib, __ATOMIC_ACQUIRE);
	const uint32_t s0 = __atomic_load_n(&dp_fwd.ip4_seq, __ATOMIC_ACQUIRE);
	unsigned int i;

	if (unlikely(fib == NULL)) {
		for (i = 0; i < n; i++)
			hop[i] = DP_FWD_NO_ROUTE;
		return false;
	}
	/* DPDK 22.11 takes a non-const array, which it only reads */
	rte_fib_lookup_bulk(fib, (uint32_t *)(uintptr_t)dst, hop, (int)n);
	/* the table's loads before the second read of the count */
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	return (s0 & 1) != 0 || __atomic_load_n(&dp_fwd.ip4_seq, __ATOMIC_RELAXED) != s0;
}

/**
 * The next hops of @p n destinations (host order) into @p hop: one library
 * call per DP_FWD_LOOKUP_CHUNK addresses (prefetching, vectorized where the
 * library is).
 */
static inline void
dp_fwd_lookup4_bulk(const uint32_t *dst, uint32_t *hop, unsigned int n)
{
	uint64_t h[DP_FWD_LOOKUP_CHUNK];
	unsigned int i, k, c;
	bool unsure;

	for (k = 0; k < n; k += c) {
		c = RTE_MIN(n - k, (unsigned int)DP_FWD_LOOKUP_CHUNK);
		unsure = dp_fwd_lookup4_raw(&dst[k], h, c);
		for (i = 0; i < c; i++)
			hop[k + i] = (uint32_t)h[i];
		if (unlikely(unsure))
			for (i = 0; i < c; i++)
				if (hop[k + i] == DP_FWD_NH_LOCAL)
					hop[k + i] = dp_fwd_lookup4(dst[k + i]);
	}
}

_Static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN, "TTL is the low byte of the word");

/** TTL - 1 with the checksum updated incrementally (RFC 1624); the caller made sure TTL > 1. */
static __rte_always_inline void
dp_fwd_ip4_ttl_dec(struct rte_ipv4_hdr *ip)
{
	uint32_t w32;

	/* TTL, protocol and checksum are one 32-bit word: one load, one store */
	memcpy(&w32, &ip->time_to_live, sizeof(w32));
	w32 = (((w32 & 0xffff) - 1) & 0xffff) | (uint32_t)dp_cksum_ttl_dec((uint16_t)(w32 >> 16))
							<< 16;
	memcpy(&ip->time_to_live, &w32, sizeof(w32));
}

/**
 * What leaving through next hop @p nh does to an IPv4 packet: MACs from the
 * next hop, TTL - 1 with the checksum updated incrementally (RFC 1624). The
 * caller made sure TTL > 1. ip4_output's hot loop and released held packets.
 */
static __rte_always_inline void
dp_fwd_ip4_rewrite(const struct dp_fwd_nh *nh, struct rte_ether_hdr *eth)
{
	/* dst + src MAC in one 12-byte copy; the ethertype stays IPv4 */
	memcpy(eth, &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
	dp_fwd_ip4_ttl_dec((struct rte_ipv4_hdr *)(eth + 1));
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
 * Next hop @p nh's (DP_FWD_NH_F_TAGGED) header on @p m: 4 bytes in front of the
 * untagged one, the MACs then the tag; the ethertype stays where it is (IEEE 802.1Q
 * 9.3). The caller made sure it fits (dp_mbuf_tag_fits(); one that does not goes to the
 * sub-interface's usual buffer, where no tag fits it either: a vlan_tag_failed drop).
 *
 *   before:      | dst | src | type | IP
 *   after: | dst | src | 8100 TCI | type | IP
 */
static __rte_always_inline void
dp_fwd_l2_tagged_write(const struct dp_fwd_nh *nh, struct rte_mbuf *m)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *) - RTE_VLAN_HLEN;

	memcpy(d, &nh->l2, 2 * RTE_ETHER_ADDR_LEN);
	memcpy(d + 2 * RTE_ETHER_ADDR_LEN, &nh->vlan_tag, sizeof(nh->vlan_tag));
	dp_mbuf_tag_room_take(m);
}

/** dp_fwd_ip4_rewrite() out of a tagged next hop: the tag goes on with the MACs. */
static __rte_always_inline void
dp_fwd_ip4_rewrite_tagged(const struct dp_fwd_nh *nh, struct rte_mbuf *m)
{
	dp_fwd_ip4_ttl_dec(rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN));
	dp_fwd_l2_tagged_write(nh, m);
}

/** dp_fwd_ip6_rewrite() out of a tagged next hop. */
static __rte_always_inline void
dp_fwd_ip6_rewrite_tagged(const struct dp_fwd_nh *nh, struct rte_mbuf *m)
{
	rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN)->hop_limits--;
	dp_fwd_l2_tagged_write(nh, m);
}

/**
 * Build the table from the config: local /32s and connected subnets of every
 * port address, static neighbors, every route, then the adjacencies of resolved neighbors.
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
int dp_fwd_route4_nh(const struct dp_fwd_config_route4 *r, uint32_t *idx);

/** How many routes dp_fwd_route4_sort() orders at most (the index takes 24 bits of a key). */
#define DP_FWD_ROUTE4_SORT_MAX ((1u << 24) - 1)
/** The index @p i that dp_fwd_route4_key() put in a key. */
#define DP_FWD_ROUTE4_KEY_INDEX(key) ((uint32_t)((key)&0xffffff))

/** The sort key of route @p i (at most DP_FWD_ROUTE4_SORT_MAX) to @p prefix/@p plen. */
static inline uint64_t
dp_fwd_route4_key(uint32_t prefix, uint8_t plen, uint32_t i)
{
	return (uint64_t)prefix << 32 | (uint64_t)plen << 24 | i;
}

/**
 * Sort @p n keys (dp_fwd_route4_key()) by prefix, then length, keeping the order of
 * equal ones, in place, through @p tmp (as big as @p key).
 * Routes added in this order share their walks of the RIB (a binary trie): consecutive
 * adds follow the same path from its root, still in the cache.
 */
void dp_fwd_route4_sort(uint64_t *key, uint64_t *tmp, uint32_t n);

/**
 * Control lcore: the refusal of a route change on a port's address (@p route
 * as the message names it), whose route is the router itself for as long as
 * dpfwd runs, in both families. @return -EINVAL, the reason in @p err.
 */
int dp_fwd_refuse_port_addr(char *err, size_t errlen, const char *route);

/**
 * Routes that change while traffic flows (route.c). All of them run on the
 * control lcore; from other threads they go through dp_ctl_call().
 * Single routes change the live table in place when DPDK 22.11's dir24_8 can
 * do it under lockless readers, and otherwise in a copy that is swapped in
 * (route.c explains which and why); a reload builds a whole new table beside
 * the live one, swaps the pointer, waits for every worker to pass a walk
 * (RCU), then frees the old one.
 */
/** After the workers exist: the route counters. @return 0 or -errno. */
int dp_fwd_route_start(void);
/** Telemetry commands /dpfwd/route/{add,del,reload}; reload reads @p config_path by default. */
int dp_fwd_route_start_cmds(const char *config_path);
/**
 * Add "prefix via gw port N" (config route syntax), or replace the next hop
 * of that prefix. @return 0, -EINVAL (bad text), -ENOSPC (table full: [routes]
 * ip4_max, ip4_tbl8), -ENOMEM; message in @p err.
 */
int dp_fwd_route_add(const char *text, char *err, size_t errlen);
/** Delete the route to "a.b.c.d/len". @return 0, -ENOENT, -EINVAL, -ENOMEM. */
int dp_fwd_route_del(const char *prefix, char *err, size_t errlen);
/**
 * Control lcore: the route changes until the matching dp_fwd_route_batch_end() share
 * their waits for the workers (RCU grace periods): a change waits only when an earlier
 * one of the batch may have freed what it may take, and the end waits once for what is
 * left. Each change is live in the table as it returns, as outside a batch. Batches nest.
 */
void dp_fwd_route_batch_begin(void);
/** The end of a batch (dp_fwd_route_batch_begin()); the outermost waits for the workers. */
void dp_fwd_route_batch_end(void);
/** One IPv4 route change of a batch made in a copy of the table (dp_fwd_route4_changes_apply()). */
struct dp_fwd_route4_change {
	uint32_t prefix; /**< host order, host bits zero */
	uint32_t nh;     /**< an add's next hop (dp_fwd_route4_nh()) */
	uint8_t plen;
	bool del;
	bool same; /**< set by dp_fwd_route4_changes_apply(): the table had it; nothing made */
	int rc;    /**< set by dp_fwd_route4_changes_apply(): 0 or -errno */
};

/**
 * Control lcore: @p c from a route's text, "PREFIX/len ..." as dp_fwd_route_add() takes it
 * (an add: its next hop made), or "PREFIX/len" for a delete (@p del). IPv4 only.
 * @return 0, -EINVAL (text, port), -ENOSPC (next hops, ECMP groups); @p err says.
 */
int dp_fwd_route4_change_prepare(
	const char *text, bool del, struct dp_fwd_route4_change *c, char *err, size_t errlen);

struct dp_fwd_config_route4;

/**
 * Control lcore: dp_fwd_route4_change_prepare() for route @p r already parsed: one next hop
 * (r->paths NULL), r->port a port's reference (N, or DP_CONFIG_PORT_REF(N, VID)). An add
 * makes its next hop; a delete (@p del) takes only the prefix.
 * @return 0, -EINVAL (port), -ENOSPC (next hops); @p err says.
 */
int dp_fwd_route4_change_of(const struct dp_fwd_config_route4 *r, bool del,
	struct dp_fwd_route4_change *c, char *err, size_t errlen);

/**
 * Control lcore: make @p n IPv4 changes, in address order (the changes of one prefix in
 * the order given), only where they change the live table: the changes of a prefix that
 * are adds only, the last of the next hop the table has there, are left out (c[i].same).
 * The rest are made in place when they are few (at most one per 16 routes of the table)
 * and each can be (dp_fwd_route4_in_place()), else in one copy of the live table swapped
 * in, as a reload does: no wait for the workers per change, and they see all the changes
 * at once. Each change is refused as dp_fwd_route_add() and dp_fwd_route_del() refuse it
 * (c[i].rc: -EINVAL for a port's address or an adjacency, -ENOENT for a delete of no
 * route, -ENOSPC for a full table).
 * @return 0 (each c[i].rc set), -ENOMEM (no copy: nothing changed), -E2BIG (more than
 *         DP_FWD_ROUTE4_SORT_MAX).
 */
int dp_fwd_route4_changes_apply(struct dp_fwd_route4_change *c, uint32_t n);

/**
 * Control lcore: make IPv4 change @p c in the live table, as dp_fwd_route_add() and
 * dp_fwd_route_del() do (in place where that is safe for the workers; a batch's waits
 * shared, dp_fwd_route_batch_begin()). @return 0, or -errno, also in c->rc: -EINVAL (a
 * port's address, a neighbor's adjacency), -ENOENT (a delete of nothing), -ENOSPC, -ENOMEM.
 */
int dp_fwd_route4_change_make(struct dp_fwd_route4_change *c);

/**
 * Control lcore: whether a change of @p prefix/@p plen (host order) is made in the live
 * table in place; false: dp_fwd_route_add(), _del() and dp_fwd_route4_change_make() make
 * it in a copy of the whole table (route.c says when).
 */
bool dp_fwd_route4_in_place(uint32_t prefix, uint8_t plen);

struct dp_fwd_route6_change;

/**
 * Control lcore: dp_fwd_route4_change_prepare() for an IPv6 route's text, its next hop made
 * for an add (dp_fwd_route6_nh()). @return 0, -EINVAL, -ENOSPC; @p err says.
 */
int dp_fwd_route6_change_prepare(
	const char *text, bool del, struct dp_fwd_route6_change *c, char *err, size_t errlen);

/**
 * Control lcore: make @p n IPv6 changes, in their order, in one copy of the live table
 * and swap it in (dp_fwd_route6_changes_build()); the changes of a prefix that leave the
 * table as it is are left out, as dp_fwd_route4_changes_apply() does (c[i].same), and
 * when all do, no copy is made. @return 0 (each c[i].rc set), -EINVAL
 * (IPv6 off), -ENOMEM (nothing changed).
 */
int dp_fwd_route6_changes_apply(struct dp_fwd_route6_change *c, uint32_t n);

/**
 * Re-read the config file @p path and replace the IPv4 routes with its own
 * (ports' subnets, routes, route files); on any error the live table stays.
 * @return 0 or -errno with "file:line: ..." in @p err.
 */
int dp_fwd_route_reload(const char *path, char *err, size_t errlen);

/**
 * How big an IPv4 table for @p cfg is: room for its routes and ports'
 * addresses plus a quarter (live adds), tbl8 groups for its prefixes longer
 * than /24 plus a quarter; [routes] ip4_max and ip4_tbl8 override either.
 * Sets max_routes and tbl8_max of @p t (the rest zero).
 */
void dp_fwd_fib4_size(const struct dp_config *cfg, struct dp_fwd_fib4 *t);

/**
 * Make the empty FIB of @p t, sized by its max_routes and tbl8_max (unique
 * name). @return 0, -ENOMEM or -EINVAL (rte_errno set too).
 */
int dp_fwd_fib4_create(struct dp_fwd_fib4 *t);

/**
 * Add one prefix to the table @p t (not yet read by workers, or through
 * route.c's checks), counting routes and tbl8 use. Replaces the next hop of a
 * prefix already there. @return 0, -ENOSPC (routes or tbl8 groups), -EINVAL.
 */
int dp_fwd_fib4_add(struct dp_fwd_fib4 *t, uint32_t prefix, uint8_t plen, uint32_t nh);

/**
 * Control lcore: put the config's IPv4 routes in @p t: each port's local /32
 * and connected subnet, static neighbors, routes (creating their next hops).
 * @return 0 or -errno with "file:line: ..." in @p err.
 */
int dp_fwd_fib4_fill(struct dp_fwd_fib4 *t, const struct dp_config *cfg, char *err, size_t errlen);

/**
 * dp_fwd_fib4_size(), dp_fwd_fib4_create() and dp_fwd_fib4_fill() for @p cfg
 * into @p t; nothing is left in @p t on failure.
 * @return 0 or -errno with "file:line: ..." in @p err.
 */
int dp_fwd_fib4_build(const struct dp_config *cfg, struct dp_fwd_fib4 *t, char *err, size_t errlen);

/** Free the FIB of @p t (NULL is fine) and zero @p t. */
void dp_fwd_fib4_free(struct dp_fwd_fib4 *t);

/** Free the table. */
void dp_fwd_fini(void);

/** Register the "fwd" telemetry section (/dpfwd/fwd/routes). */
int dp_fwd_telemetry_register(void);

/** Give ip4_fwd, ip6_fwd and icmp4_error their trace lines (dp_trace.h). @return 0 or -errno. */
int dp_fwd_trace_register(void);

#endif /* DP_FWD_H */
