/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ICMPv4 (RFC 792, RFC 1812 4.3): echo replies for the router's own addresses
 * (node ip4_local) and the errors ip4_fwd asks for (node icmp4_error): time
 * exceeded (TTL expired in transit) and destination unreachable (no route).
 *
 *   ip4_fwd --(route is the router)--> ip4_local --(echo reply)--> ip4_output
 *   ip4_fwd --(TTL, no route)------> icmp4_error --(error)--> ip4_output
 *
 * Both build their packet in the mbuf that came in and send it through the
 * normal output stage. Errors are rate-limited per worker by a token bucket
 * ([dpfwd] icmp_rate, icmp_burst), never shared between lcores.
 *
 * Accounting: the packet that causes an error is a drop under its own reason
 * (ip4_ttl_exceeded, ip4_no_route); the error is a packet the router
 * originates, counted in @c errors, that is then sent or dropped under an
 * icmp_* reason. So per worker: rx + errors = tx + drops (+ what the control
 * hand-off adds and takes). An echo reply is the request turned around: one
 * packet in, one out.
 */
#ifndef DP_ICMP4_H
#define DP_ICMP4_H

#include <stdint.h>

#include "dp_config.h"

/** TTL of every packet the router originates (leaves with it). */
#define DP_ICMP4_TTL 64

/**
 * Longest ICMP error datagram (IP header included): RFC 1812 4.3.2.3 asks for
 * as much of the original datagram as fits in 576 bytes, so the quote is the
 * original IP header (options included) and up to 548 - its length of data.
 */
#define DP_ICMP4_ERR_MAX_LEN 576

/**
 * Errors a node may ask icmp4_error for, in dp_mbuf_meta.icmp_type and
 * icmp_code (RFC 792; DPDK's rte_icmp.h names only the echo types).
 */
enum {
	DP_ICMP4_DEST_UNREACH = 3,
	DP_ICMP4_UNREACH_NET = 0,  /**< code: no route (RFC 1812 5.2.7.1) */
	DP_ICMP4_UNREACH_HOST = 1, /**< code: the next hop or host does not answer */
	/** code: larger than the next hop's MTU with DF set; the MTU goes in the header (RFC 1191) */
	DP_ICMP4_UNREACH_FRAG_NEEDED = 4,
	DP_ICMP4_TIME_EXCEEDED = 11,
	DP_ICMP4_EXC_TTL = 0,   /**< code: TTL expired in transit (RFC 1812 5.3.1) */
	DP_ICMP4_EXC_REASM = 1, /**< code: fragment reassembly time exceeded (RFC 792) */
};

#define DP_ICMP4_RATE_DEFAULT  1000 /**< errors per second per worker */
#define DP_ICMP4_BURST_DEFAULT 50

/** Counters summed over workers (each written only by its worker). */
struct dp_icmp4_stats {
	uint64_t echo_replies; /**< echo replies passed to ip4_output */
	uint64_t errors;       /**< errors due (sent, refused, rate-limited or unroutable) */
	uint64_t errors_sent;  /**< errors passed to ip4_output */
};

/**
 * Take the rate limit from the config ([dpfwd] icmp_rate, icmp_burst). Call
 * on the control lcore at setup, before or after dp_graph_workers_create().
 * @return 0.
 */
int dp_icmp4_init(const struct dp_config *cfg);

/**
 * Change the rate limit: @p rate errors per second per worker (0 = never
 * send), at most @p burst at once. Each worker resets its bucket (full) at its
 * next error; nothing is written to a worker's state from here.
 */
void dp_icmp4_ratelimit_set(uint32_t rate, uint32_t burst);

/** Sum the counters of every worker into @p st. */
void dp_icmp4_stats_get(struct dp_icmp4_stats *st);

/**
 * Register the "icmp4" telemetry section (/dpfwd/fwd/icmp4): the counters
 * above and the rate limit. Call after dp_telemetry_sections_clear().
 * @return 0, -ENOSPC (too many sections), -EEXIST (registered already), or
 *         what rte_telemetry_register_cmd() returns.
 */
int dp_icmp4_telemetry_register(void);

#endif /* DP_ICMP4_H */
