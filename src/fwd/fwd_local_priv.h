/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Private to fwd: where the local services' edges start in the nodes that
 * deliver locally (local.c appends them in the order the services come), and
 * the init of the nodes that take a fast match.
 */
#ifndef FWD_LOCAL_PRIV_H
#define FWD_LOCAL_PRIV_H

#include <stdbool.h>

#include <rte_graph.h>

#include "graph_fp.h"

/* the node's own edges: enum ip4_fwd_next and friends end here */
#define FWD_LOCAL_IP4_FWD_BASE   4
#define FWD_LOCAL_IP4_LOCAL_BASE 2
#define FWD_LOCAL_IP6_LOCAL_BASE 3

/** The edge of local service @p svc (1..) in a node whose services start at @p base. */
static inline rte_edge_t
fwd_local_edge(rte_edge_t base, uint8_t svc)
{
	return (rte_edge_t)(base + svc - 1);
}

/**
 * Init of ip4_fwd (@p ip6 false) and ip6_fwd: the worker, and in ctx->arg its
 * fast match (struct dp_fwd_fast_match), NULL when none.
 */
int fwd_local_node_init(const struct rte_graph *graph, struct rte_node *node, bool ip6);

#endif /* FWD_LOCAL_PRIV_H */
