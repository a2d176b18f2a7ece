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

#include <rte_cycles.h>

#include "dp_fwd_local.h"
#include "dp_trace.h"
#include "graph_fp.h"

/* the node's own edges: enum ip4_fwd_next and friends end here */
#define FWD_LOCAL_IP4_FWD_BASE   5
#define FWD_LOCAL_IP4_LOCAL_BASE 2
#define FWD_LOCAL_IP6_FWD_BASE   4
#define FWD_LOCAL_IP6_LOCAL_BASE 3

/** The edge of local service @p svc (1..) in a node whose services start at @p base. */
static inline rte_edge_t
fwd_local_edge(rte_edge_t base, uint8_t svc)
{
	return (rte_edge_t)(base + svc - 1);
}

/**
 * Run fast match @p fm over @p n packets with a trace armed (fwd_trace.c): a
 * record, under the fast match's node, of each marked packet it took.
 */
uint16_t dp_fwd_fast_match_traced(struct dp_worker *w, const struct dp_fwd_fast_match *fm,
	struct rte_mbuf **pkts, uint16_t n, uint16_t *rest);

/**
 * Run fast match @p fm over @p n packets (dp_fwd_fast_match_fn): its cycles
 * and the packets it took count as its service's node's (dp_node_lend()).
 */
static __rte_always_inline uint16_t
dp_fwd_fast_match_run(struct dp_worker *w, const struct dp_fwd_fast_match *fm,
	struct rte_mbuf **pkts, uint16_t n, uint16_t *rest)
{
	uint64_t t0 = 0, lent0 = 0, cycles = 0;
	uint16_t left;

	/* one test a burst while no trace is armed */
	if (unlikely(dp_trace_armed != 0))
		return dp_fwd_fast_match_traced(w, fm, pkts, n, rest);
	if (!w->node_stats)
		return fm->fn(fm->ctx, w, pkts, n, rest);
	if (w->walk_timed) {
		lent0 = w->lent_cycles;
		t0 = rte_rdtsc();
	}
	left = fm->fn(fm->ctx, w, pkts, n, rest);
	/* less the TX bursts it sent, already lent to port_tx */
	if (w->walk_timed)
		cycles = rte_rdtsc() - t0 - (w->lent_cycles - lent0);
	dp_node_lend(w, fm->charge, cycles, (uint16_t)(n - left));
	return left;
}

/**
 * Init of ip4_fwd (@p ip6 false) and ip6_fwd: the worker, and in ctx->arg its
 * fast match (struct dp_fwd_fast_match), NULL when none.
 */
int fwd_local_node_init(const struct rte_graph *graph, struct rte_node *node, bool ip6);

#endif /* FWD_LOCAL_PRIV_H */
