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

/** A compiled filter (capture_filter_load()), as the workers run it. */
struct capture_filter {
	enum capture_filter_mode mode;
	uint64_t (*jit)(void *);
	struct rte_bpf *bpf;
	struct bpf_program prog; /**< libpcap's program (the source of the DPDK BPF too) */
};

/** What the workers read while a capture runs; written by the control lcore before
 * dp_graph_tap is set, unchanged until it is cleared and the workers passed a
 * quiescent state. */
struct capture_live {
	bool rx[RTE_MAX_ETHPORTS];
	bool tx[RTE_MAX_ETHPORTS];
	uint32_t snaplen;
	struct capture_filter f;
	struct rte_ring *ring; /**< copies: every worker enqueues, the control lcore dequeues */
	struct rte_mempool *pool;
	struct capture_wstats w[DP_GRAPH_MAX_WORKERS];
};

extern struct capture_live capture_live;

/** Whether filter @p f takes @p m. */
static inline bool
capture_match(const struct capture_filter *f, struct rte_mbuf *m)
{
	switch (f->mode) {
	case CAPTURE_FILTER_JIT:
		return f->jit(m) != 0;
	case CAPTURE_FILTER_BPF:
		return rte_bpf_exec(f->bpf, m) != 0;
	case CAPTURE_FILTER_LIBPCAP:
		/* libpcap reads one contiguous buffer: the first segment, the
		 * packet's length for what the filter may ask of the rest */
		return bpf_filter(f->prog.bf_insns, rte_pktmbuf_mtod(m, const u_char *), m->pkt_len,
			       m->data_len) != 0;
	case CAPTURE_FILTER_NONE:
	default:
		return true;
	}
}

/**
 * Compile @p filter (tcpdump syntax; NULL or "": every packet) into @p f: DPDK
 * BPF (JIT when rte_bpf has one for this CPU), else libpcap's.
 * @return 0 or -EINVAL (libpcap's error in @p err), -ENOMEM.
 */
int capture_filter_load(
	struct capture_filter *f, const char *filter, uint32_t snaplen, char *err, size_t errlen);

/** Free what capture_filter_load() made; @p f is then the empty filter. */
void capture_filter_free(struct capture_filter *f);

/** The filter mode's name, for logs and JSON. */
const char *capture_filter_mode_name(enum capture_filter_mode mode);

/**
 * Set dp_graph_tap to the tap while a capture runs or a trace is armed, NULL
 * otherwise; control lcore. After a change to NULL, the workers are past the tap.
 */
void capture_tap_update(void);

/** Whether a capture runs (the tap copies for it). */
bool capture_running(void);

/** Trace (trace.c): whether it needs the tap: marks left or marked packets in flight. */
bool trace_wants_tap(void);

/** Trace: mark what a burst of DPDK port @p port holds for the trace (the tap, RX). */
void trace_tap_rx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);

/** Trace: close the traces of marked packets of a burst leaving DPDK port @p port. */
void trace_tap_tx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);

/** Trace: the module's start (timer) and commands. @return 0 or -errno. */
int trace_ctl_start(void);
int trace_telemetry_register(void);
void trace_stop(void);

/** The tap (dp_graph_tap_t) set while a capture runs or a trace is armed. */
void capture_tap(struct dp_worker *w, uint16_t port, uint16_t queue, bool tx,
	struct rte_mbuf **pkts, uint16_t n);

#endif /* CAPTURE_PRIV_H */
