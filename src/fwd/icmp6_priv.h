/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Private to the ICMPv6 nodes (ip6_local, icmp6_error) and icmp6.c:
 * per-worker state and the rate limit.
 */
#ifndef ICMP6_PRIV_H
#define ICMP6_PRIV_H

#include <stdint.h>

#include <jansson.h>
#include <rte_graph.h>

#include "dp_graph.h"
#include "dp_icmp6.h"
#include "dp_tbucket.h"
#include "icmp6_fp.h"

/** One worker's ICMPv6 state: written only by that worker. */
struct icmp6_worker {
	struct dp_tbucket_follow tb; /**< errors allowed, following icmp6_limit */
	uint64_t echo_replies;
	uint64_t errors;
	uint64_t errors_sent;
} __rte_cache_aligned;

extern struct icmp6_worker icmp6_workers[DP_GRAPH_MAX_WORKERS];

/** The rate limit, set by the control lcore (dp_icmp6_ratelimit_set()). */
extern struct dp_tbucket_limit icmp6_limit;

/** Node init of ip6_local and icmp6_error: the worker, and its icmp6_worker as ctx arg. */
int icmp6_node_init(const struct rte_graph *graph, struct rte_node *node);

/** The counters and the rate limit as a JSON object (the "icmp6" part of /dpfwd/fwd/ip6). */
json_t *icmp6_telemetry_json(void);

#endif /* ICMP6_PRIV_H */
