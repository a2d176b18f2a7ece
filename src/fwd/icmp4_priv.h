/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Private to the ICMPv4 nodes (ip4_local, icmp4_error) and icmp4.c:
 * per-worker state and the rate limit.
 */
#ifndef ICMP4_PRIV_H
#define ICMP4_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_icmp4.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "dp_tbucket.h"
#include "icmp4_fp.h"

/** One worker's ICMP state: written only by that worker. */
struct icmp4_worker {
	struct dp_tbucket_follow tb; /**< errors allowed, following icmp4_limit */
	uint16_t ip_id;              /**< identification of the next packet originated */
	uint64_t echo_replies;
	uint64_t errors;
	uint64_t errors_sent;
} __rte_cache_aligned;

extern struct icmp4_worker icmp4_workers[DP_GRAPH_MAX_WORKERS];

/** The rate limit, set by the control lcore (dp_icmp4_ratelimit_set()). */
extern struct dp_tbucket_limit icmp4_limit;

/** Node init of ip4_local and icmp4_error: the worker, and its icmp4_worker as ctx arg. */
int icmp4_node_init(const struct rte_graph *graph, struct rte_node *node);

#endif /* ICMP4_PRIV_H */
