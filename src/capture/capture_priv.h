/* SPDX-License-Identifier: BSD-3-Clause */
/* What the capture's control path and its worker tap share. */
#ifndef CAPTURE_PRIV_H
#define CAPTURE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <pcap/pcap.h>
#include <rte_bpf.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "dp_graph.h"

/** Counted by each worker, for its own captured packets. */
struct capture_wstats {
	uint64_t matched;    /**< packets the filter took */
	uint64_t ring_full;  /**< copies lost: the ring to the control lcore was full */
	uint64_t pool_empty; /**< lost: no mbuf for the copy */
} __rte_cache_aligned;

/** How the workers run the filter. */
enum capture_filter_mode {
	CAPTURE_FILTER_NONE,    /**< no filter: every packet */
	CAPTURE_FILTER_JIT,     /**< DPDK BPF, compiled to native code */
	CAPTURE_FILTER_BPF,     /**< DPDK BPF, interpreted (rte_bpf_exec) */
	CAPTURE_FILTER_LIBPCAP, /**< libpcap's own interpreter (bpf_filter) */
};

/** What the workers read while a capture runs; written by the control lcore before
 * dp_graph_tap is set, unchanged until it is cleared and the workers passed a
 * quiescent state. */
struct capture_live {
	bool rx[RTE_MAX_ETHPORTS];
	bool tx[RTE_MAX_ETHPORTS];
	uint32_t snaplen;
	enum capture_filter_mode mode;
	uint64_t (*jit)(void *);
	struct rte_bpf *bpf;
	struct bpf_program prog; /**< libpcap's program (the source of the DPDK BPF too) */
	struct rte_ring *ring;   /**< copies: every worker enqueues, the control lcore dequeues */
	struct rte_mempool *pool;
	struct capture_wstats w[DP_GRAPH_MAX_WORKERS];
};

extern struct capture_live capture_live;

/** The tap (dp_graph_tap_t) set while a capture runs. */
void capture_tap(struct dp_worker *w, uint16_t port, uint16_t queue, bool tx,
	struct rte_mbuf **pkts, uint16_t n);

#endif /* CAPTURE_PRIV_H */
