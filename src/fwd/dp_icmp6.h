/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ICMPv6 (RFC 4443): echo replies for the router's own addresses (node
 * ip6_local) and the errors ip6_fwd asks for (node icmp6_error): time
 * exceeded (hop limit) and destination unreachable (no route).
 *
 *   ip6_fwd --(route is the router)--> ip6_local --(echo reply)--> ip6_output
 *   ip6_fwd --(hop limit, no route)--> icmp6_error --(error)--> ip6_output
 *
 * Both build their packet in the mbuf that came in and send it through the
 * normal output stage. Errors are rate-limited per worker by a token bucket
 * ([dpfwd] icmp_rate, icmp_burst, as for ICMPv4), never shared between lcores.
 *
 * Accounting, as for ICMPv4 (dp_icmp4.h): the packet that causes an error is a
 * drop under its own reason (ip6_hop_limit, ip6_no_route); the error is a
 * packet the router originates (counted in @c errors), sent or dropped under
 * an icmp6_* reason. An echo reply is the request turned around.
 */
#ifndef DP_ICMP6_H
#define DP_ICMP6_H

#include <stdint.h>

#include "dp_config.h"

/** Hop limit of every packet the router originates (RFC 4443 and RFC 8200 leave it to us). */
#define DP_ICMP6_HOP_LIMIT 64

/**
 * Longest ICMPv6 error (IPv6 header included): RFC 4443 2.4(c), as much of
 * the offending packet as fits without exceeding the minimum IPv6 MTU.
 */
#define DP_ICMP6_ERR_MAX_LEN 1280

/** Errors a node may ask icmp6_error for, in dp_mbuf_meta.icmp_type and icmp_code (RFC 4443). */
enum {
	DP_ICMP6_DEST_UNREACH = 1,
	DP_ICMP6_UNREACH_NOROUTE = 0, /**< code: no route to destination (3.1) */
	/** larger than the next hop's MTU, which goes in the header (3.2) */
	DP_ICMP6_PACKET_TOO_BIG = 2,
	DP_ICMP6_TIME_EXCEEDED = 3,
	DP_ICMP6_EXC_HOP_LIMIT = 0, /**< code: hop limit exceeded in transit (3.3) */
	DP_ICMP6_EXC_REASM = 1,     /**< code: fragment reassembly time exceeded (3.3) */
};

#define DP_ICMP6_RATE_DEFAULT  1000 /**< errors per second per worker */
#define DP_ICMP6_BURST_DEFAULT 50

/** Counters summed over workers (each written only by its worker). */
struct dp_icmp6_stats {
	uint64_t echo_replies; /**< echo replies passed to ip6_output */
	uint64_t errors;       /**< errors due (sent, refused, rate-limited or unroutable) */
	uint64_t errors_sent;  /**< errors passed to ip6_output */
};

/**
 * Take the rate limit from the config ([dpfwd] icmp_rate, icmp_burst).
 * dp_fwd_ip6_init() calls it. @return 0.
 */
int dp_icmp6_init(const struct dp_config *cfg);

/**
 * Change the rate limit: @p rate errors per second per worker (0 = never
 * send), at most @p burst at once. Each worker resets its bucket (full) at its
 * next error; nothing is written to a worker's state from here.
 */
void dp_icmp6_ratelimit_set(uint32_t rate, uint32_t burst);

/** Sum the counters of every worker into @p st. */
void dp_icmp6_stats_get(struct dp_icmp6_stats *st);

#endif /* DP_ICMP6_H */
