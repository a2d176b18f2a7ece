/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Local delivery: how services above fwd (the UDP relay, the endpoints, any
 * module) receive datagrams sent to the router's own addresses, without fwd
 * knowing them. As DPDK's rte_node_udp4_dst_port_add() and grout's
 * l4_input_register_port():
 *
 *  - a service registers once, by the names of its IPv4 and IPv6 nodes
 *    (dp_fwd_local_service_add()): they become edges of ip4_fwd, ip4_local,
 *    ip6_fwd and ip6_local, before the workers' graphs are made;
 *  - it then claims UDP destination ports (dp_fwd_local_udp_claim()), before
 *    or while the workers run: a UDP datagram (not a fragment) to one of the
 *    router's addresses and a claimed port goes to the service's node, which
 *    checks the address itself; to an unclaimed port it is a counted drop
 *    (ip4_local, ip6_local);
 *  - a service may take the fragments sent to the router
 *    (dp_fwd_local_frag_set()), to reassemble them;
 *  - a service may take what no other does (dp_fwd_local_other_set()): the
 *    packets to the router that would be dropped as ip4_local, ip6_local,
 *    icmp_unhandled or icmp6_unhandled (the Linux exception path);
 *  - a service may put a fast match in front of the route lookup
 *    (dp_fwd_fast_match_set()): ip4_fwd and ip6_fwd hand it each burst first.
 *
 * The per-port table is one byte a port: the service's number, 0 for none.
 */
#ifndef DP_FWD_LOCAL_H
#define DP_FWD_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_graph.h>
#include <rte_mbuf.h>

#include "dp_graph.h"

/** Most services local delivery can tell apart (numbers 1..DP_FWD_LOCAL_SVC_MAX). */
#define DP_FWD_LOCAL_SVC_MAX 8

/** The service of each UDP destination port (host order) over IPv4; 0: none. */
extern uint8_t dp_fwd_local_udp4[65536];
/** The same over IPv6. */
extern uint8_t dp_fwd_local_udp6[65536];
/** The service that takes fragments to the router over IPv4 (0: they are dropped). */
extern uint8_t dp_fwd_local_frag4;
/** The same over IPv6. */
extern uint8_t dp_fwd_local_frag6;
/** The service that takes IPv4 packets to the router no other takes (0: dropped). */
extern uint8_t dp_fwd_local_other4;
/** The same over IPv6. */
extern uint8_t dp_fwd_local_other6;

/**
 * Register a service by its nodes: @p node4 takes its IPv4 datagrams,
 * @p node6 its IPv6 ones. Idempotent by name (the edges stay as long as the
 * process: rte_graph has no edge removal). Call before the graphs are made.
 * @return the service's number (1..DP_FWD_LOCAL_SVC_MAX), or -EINVAL (a
 *   node unknown), -ENOSPC (too many services).
 */
int dp_fwd_local_service_add(const char *node4, const char *node6);

/**
 * Claim UDP ports @p lo..@p hi (host order, inclusive) of family @p ip6 for
 * service @p svc; safe while the workers run (each port an atomic store).
 * @return 0, or -EADDRINUSE (a port of the range held by another service:
 *   nothing claimed), -EINVAL (@p svc not registered).
 */
int dp_fwd_local_udp_claim(bool ip6, uint16_t lo, uint16_t hi, uint8_t svc);

/** Give back the ports of @p lo..@p hi that service @p svc holds. */
void dp_fwd_local_udp_release(bool ip6, uint16_t lo, uint16_t hi, uint8_t svc);

/** The service holding UDP port @p port (host order) of family @p ip6, 0 for none. */
static inline uint8_t
dp_fwd_local_udp_owner(bool ip6, uint16_t port)
{
	return __atomic_load_n(
		ip6 ? &dp_fwd_local_udp6[port] : &dp_fwd_local_udp4[port], __ATOMIC_ACQUIRE);
}

/** Fragments to the router of family @p ip6 go to service @p svc (0: dropped). */
void dp_fwd_local_frag_set(bool ip6, uint8_t svc);

/**
 * Packets to the router of family @p ip6 that nothing else takes (no service
 * for their protocol or UDP port, ICMP other than echo requests and ND) go
 * to service @p svc (0: dropped, counted as they were).
 */
void dp_fwd_local_other_set(bool ip6, uint8_t svc);

/**
 * The service of IPv4 datagram @p ip's UDP destination port (@p ip: an IPv4
 * header whose protocol is UDP; the port is read even from a short frame,
 * inside the data room: the services check the UDP header's length).
 */
static inline uint8_t
dp_fwd_local_udp4_service(const uint8_t *ip)
{
	const uint8_t *udp = ip + (ip[0] & 0xf) * 4;

	return dp_fwd_local_udp4[(uint16_t)(udp[2] << 8 | udp[3])];
}

/**
 * The same for IPv6 datagram @p ip: an IPv6 header whose next header is UDP
 * (the UDP header right after the fixed one).
 */
static inline uint8_t
dp_fwd_local_udp6_service(const uint8_t *ip)
{
	const uint8_t *udp = ip + 40;

	return dp_fwd_local_udp6[(uint16_t)(udp[2] << 8 | udp[3])];
}

/**
 * A service's exact match in front of the route lookup: ip4_fwd (ip6_fwd)
 * calls it first with each burst of @p n packets, none checked yet. It takes
 * and sends those it recognises as its own, which must be datagrams that the
 * lookup would deliver to it (the router's own address), checked as far as
 * its key does not vouch for them (fwd_fp.h, ip4_fast_to() with to_self),
 * and writes the places of the others, in order, in @p rest.
 * @return how many others (checked and forwarded as without the fast match).
 */
typedef uint16_t (*dp_fwd_fast_match_fn)(
	void *ctx, struct dp_worker *w, struct rte_mbuf **pkts, uint16_t n, uint16_t *rest);

/** One worker's fast match of one family. */
struct dp_fwd_fast_match {
	dp_fwd_fast_match_fn fn;      /**< NULL: none */
	void *ctx;                    /**< the service's state for that worker */
	char node[RTE_NODE_NAMESIZE]; /**< the service's node, charged with its work */
	struct rte_node *charge;      /**< that node in the worker's graph */
};

extern struct dp_fwd_fast_match dp_fwd_fast_match4[DP_GRAPH_MAX_WORKERS];
extern struct dp_fwd_fast_match dp_fwd_fast_match6[DP_GRAPH_MAX_WORKERS];

/**
 * Set (@p fn non-NULL) or clear worker @p worker's fast match of family
 * @p ip6, before its graph is made (ip4_fwd and ip6_fwd read it at their
 * init). The cycles it takes and the packets it sends count as node
 * @p node's (the service's node of that family, a local service's edge), not
 * ip4_fwd's or ip6_fwd's. One service a family: the last set wins.
 */
void dp_fwd_fast_match_set(
	bool ip6, uint16_t worker, dp_fwd_fast_match_fn fn, void *ctx, const char *node);

#endif /* DP_FWD_LOCAL_H */
