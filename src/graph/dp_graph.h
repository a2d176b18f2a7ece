/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The unified datapath: one rte_graph per worker lcore, its walk loop, and
 * the per-lcore counters (cycles per node, busy/idle, bursts, drops).
 *
 *   port_rx -> eth_classify -> ip4_fwd -> ip4_output -> port_tx-<port>
 *                   |              |           |
 *                   +--------------+-----------+-----> drop
 */
#ifndef DP_GRAPH_H
#define DP_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <rte_common.h>
#include <rte_graph.h>
#include <rte_mbuf.h>

#include "dp_config.h"
#include "dp_common.h"
#include "dp_delay.h"
#include "dp_drop.h"
#include "dp_port.h"

/** Log type "dpfwd.graph": DP_LOG(level, graph, ...) (dp_common.h). */
extern int dp_logtype_graph;

#define DP_WORKER_MAX_RXQ    32
#define DP_GRAPH_MAX_WORKERS 64
#define DP_GRAPH_MAX_NODES   128

/** Written only by the worker that owns it; read by the control lcore. */
struct dp_worker_stats {
	uint64_t rx_pkts;
	uint64_t tx_pkts;
	uint64_t tx_bytes; /**< frame bytes sent, without FCS */
	uint64_t punted;   /**< handed to the control lcore (ctl_punt) */
	uint64_t injected; /**< frames from the control lcore (ctl_inject) */
	uint64_t iterations;
	uint64_t busy_cycles; /**< iterations that received packets */
	uint64_t idle_cycles;
	uint64_t empty_polls;
	/** in timed walks: cycles of node calls that moved nothing (a source node's
	 * empty poll), which no node's row counts */
	uint64_t timed_empty_cycles;
	uint64_t drops[DP_DROP_MAX];
	uint64_t rx_burst_hist[DP_BURST_MAX + 1]; /**< by packets per rx_burst call */
} __rte_cache_aligned;

struct dp_worker_rxq {
	uint16_t port_id;
	uint16_t queue;
};

/** TX buffer of one worker for one port: sent when a burst is full or on the drain timer. */
struct dp_worker_txq {
	uint16_t port_id;
	uint16_t queue;
	uint16_t len;
	uint16_t delay_skip; /**< full bursts until the next one timed (dp_txq_delay_weight) */
	/** this port's port_tx node in the worker's graph: what other nodes send
	 * through this buffer is counted as its (dp_txq_append()) */
	struct rte_node *tx_node;
	/** a sub-interface's buffer (on its port's queue): the 802.1Q tag put on what it
	 * sends (dp_txq_vlan_push()), 0 for a port's */
	uint16_t vlan_tci;
	bool vlan_insert; /**< the device inserts the tag (RTE_ETH_TX_OFFLOAD_VLAN_INSERT) */
	/** a sub-interface's second buffer, txq_tagged: what it holds has the tag on
	 * already (the fwd nodes wrote it with the MACs, port_tx put it on), sent as it is */
	bool tagged;
	struct dp_port_vlan_stats *vlan_stats; /**< the sub-interface's, this worker's row */
	struct rte_mbuf *pkts[2 * DP_BURST_MAX];
} __rte_cache_aligned;

struct dp_worker {
	/* hot, read every iteration */
	uint16_t burst;
	uint16_t nb_rxq;
	uint32_t last_rx; /**< packets received in this iteration */
	uint32_t rx_full; /**< burst x RX queues: an iteration that got this many was not idle */
	bool flush_idle;  /**< flush TX buffers after an iteration under rx_full */
	bool node_stats;
	bool delay_stats;     /**< stamp at RX, histogram at TX (dp_delay.h) */
	uint64_t walk_tsc;    /**< TSC read just before this walk: the RX stamp */
	uint16_t sample_mask; /**< time the walk when (iteration & mask) == 0 */
	bool ip4_cksum_check;
	bool rx_ip4_cksum; /**< a port this worker polls has IPv4 checksum offload on */
	bool check_dst_mac;
	bool walk_timed; /**< this walk's node cycles are taken (graph_walk) */
	/** this walk records marked packets (graph_walk_traced): only then may the tap mark
	 * one at RX, or its trace would stop at port_rx */
	bool walk_traced;
	uint16_t delay_sample; /**< one full TX burst in this many is timed (dp_delay.h) */
	uint64_t lent_cycles;  /**< of the running node's, spent on another's work */
	struct rte_graph *graph;
	uint64_t drain_tsc;
	struct dp_worker_rxq rxq[DP_WORKER_MAX_RXQ];
	/* per port, indexed by port id (a sub-interface's past DPDK's: DP_PORT_VLAN_ID_BASE) */
	struct dp_worker_txq *txq[DP_PORT_MAX_IDS];
	/** the same TX buffers by config port index (dp_fwd_nh.port) */
	struct dp_worker_txq *txq_cfg[DP_PORT_MAX];
	struct dp_worker_stats stats;
	struct dp_delay_hist delay;
	struct dp_delay_pend delay_pend; /**< sent, timed at the loop's next TSC read */
	/* hand-off with the control lcore (dp_ctl.h), both single-producer single-consumer */
	struct rte_ring *punt_ring;   /**< worker -> control */
	struct rte_ring *inject_ring; /**< control -> worker */
	struct rte_rcu_qsbr *qsv;     /**< reports a quiescent state after each walk */
	/** packets seen by each node (by node id) in timed walks only: cycles / this */
	uint64_t timed_objs[DP_GRAPH_MAX_NODES];
	/* control */
	unsigned int lcore_id;
	uint16_t index;
	rte_graph_t graph_id;
	volatile pid_t tid;
	int insn_fd;
	char insn_why[160];
	/** by config port index, a sub-interface's whose port does not insert tags (NULL
	 * for the others): the buffer for packets that come tagged (dp_worker_txq.tagged),
	 * on the same queue, which its port_tx node fills too (tagging what it gets);
	 * last, out of the way of the hot fields above */
	struct dp_worker_txq *txq_tagged[DP_PORT_MAX];
} __rte_cache_aligned;

extern struct dp_worker *dp_workers[DP_GRAPH_MAX_WORKERS];
extern uint16_t dp_nb_workers;

/** Set by the control lcore to stop every worker loop. */
extern volatile bool dp_graph_quit;

/**
 * What eth_classify compares a frame's destination with, per DPDK port: the
 * port's MAC as the first 8 bytes of a frame read little-endian (the two
 * bytes after the address are masked off), and the mask, 0 when the port is
 * promiscuous (every unicast destination is ours).
 */
struct dp_graph_port_l2 {
	uint64_t mac;
	uint64_t mask;
	/** dp_port_rx_max() (the port's MTU, or more where its driver reassembles IPv4)
	 * plus the Ethernet header: longer frames are drops */
	uint32_t frame_max;
	/** the device takes VLAN tags off (RTE_ETH_RX_OFFLOAD_VLAN_STRIP): a frame's
	 * tag is in its mbuf (vlan_tci, RTE_MBUF_F_RX_VLAN_STRIPPED) */
	bool vlan_strip;
};
extern struct dp_graph_port_l2 dp_graph_port_l2[DP_PORT_MAX_IDS];

/**
 * The two MAC addresses at @p from moved to @p to, 4 bytes before or after
 * (a tag taken off or put on): all 12 bytes read, then written, in three
 * moves; memmove() of an overlap is a call.
 */
static inline void
dp_eth_addrs_move(const uint8_t *from, uint8_t *to)
{
	uint64_t a;
	uint32_t b;

	memcpy(&a, from, sizeof(a));
	memcpy(&b, from + sizeof(a), sizeof(b));
	memcpy(to, &a, sizeof(a));
	memcpy(to + sizeof(a), &b, sizeof(b));
}

/**
 * May @p m, an untagged frame, take an 802.1Q tag in place? Its own buffer (direct,
 * not shared) with room in front; rte_vlan_insert() refuses the others too.
 */
static inline bool
dp_mbuf_tag_fits(const struct rte_mbuf *m)
{
	return RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 &&
	       rte_pktmbuf_headroom(m) >= RTE_VLAN_HLEN;
}

/**
 * @p m's data 4 bytes earlier, its lengths 4 more: room in front for an 802.1Q tag,
 * which the caller made sure is there (dp_mbuf_tag_fits(); rte_pktmbuf_prepend() would
 * test it again).
 */
static __rte_always_inline void
dp_mbuf_tag_room_take(struct rte_mbuf *m)
{
	m->data_off -= RTE_VLAN_HLEN;
	m->data_len += RTE_VLAN_HLEN;
	m->pkt_len += RTE_VLAN_HLEN;
}

/** @p m's data 4 bytes later, its lengths 4 less: a tag's room given up (the frame has it). */
static __rte_always_inline void
dp_mbuf_tag_room_drop(struct rte_mbuf *m)
{
	m->data_off += RTE_VLAN_HLEN;
	m->data_len -= RTE_VLAN_HLEN;
	m->pkt_len -= RTE_VLAN_HLEN;
}

/**
 * Put sub-interface buffer @p q's 802.1Q tag on @p n packets about to leave it: in
 * software (rte_vlan_insert()) or, where the device inserts it, as mbuf->vlan_tci and
 * RTE_MBUF_F_TX_VLAN. A packet that cannot take the tag is freed (vlan_tag_failed).
 * dp_txq_send() counts what is left as the sub-interface's.
 * @return the packets left, first in @p pkts.
 */
uint16_t dp_txq_vlan_push(
	struct dp_worker *w, struct dp_worker_txq *q, struct rte_mbuf **pkts, uint16_t n);

/*
 * Edges of every node in dp_graph_tx_nodes: 0 "drop", 1 "ctl_punt" (declared in
 * the node's registration), then one per config port towards port_tx-<i>.
 */
#define DP_GRAPH_EDGE_DROP       ((rte_edge_t)0)
#define DP_GRAPH_EDGE_PUNT       ((rte_edge_t)1)
#define DP_GRAPH_EDGE_PORT_TX(i) ((rte_edge_t)(2 + (i)))

/**
 * Clone one port_tx node per started port ("port_tx-<index>") and record each
 * port's MAC. Call after dp_port_start_all(), before dp_graph_workers_create().
 * @param names  receives the clones' names, for modules that add edges to them
 * @return 0 or -errno.
 */
int dp_graph_ports_prepare(char names[][RTE_NODE_NAMESIZE], uint16_t *nb);

/** Most source nodes modules may add (dp_graph_source_add()). */
#define DP_GRAPH_MAX_SOURCES 8

/**
 * Put source node @p node (a module's: called on every walk) in the worker
 * graphs made from now on; idempotent.
 * @return 0, -ENOENT (no such node), -ENOSPC (DP_GRAPH_MAX_SOURCES reached).
 */
int dp_graph_source_add(const char *node);

/** Leave source node @p node out of the worker graphs made from now on. */
void dp_graph_source_del(const char *node);

/** Every worker lcore of the config's [lcores] is enabled in EAL.
 * @return 0 or -EINVAL (the lcore in @p err). */
int dp_graph_lcores_check(const struct dp_config *cfg, char *err, size_t errlen);

/**
 * Allocate one worker per lcore in the config's (port,queue,lcore) map and
 * create its graph. @return 0 or -errno with a message in @p err.
 */
int dp_graph_workers_create(const struct dp_config *cfg, char *err, size_t errlen);

/** Launch every worker on its lcore; opens the instruction counters. @return 0 or -errno. */
int dp_graph_workers_launch(void);

/** Set dp_graph_quit, wait for every worker; TX buffers are flushed by each worker. */
void dp_graph_workers_stop(void);

/** Destroy graphs and free workers. */
void dp_graph_workers_free(void);

/**
 * The loop a worker runs, for at most @p max_iterations walks (UINT64_MAX: until
 * dp_graph_quit); exposed so tests can walk a graph on their own thread. It
 * leaves partial TX buffers as they are: see dp_graph_worker_flush().
 */
int dp_graph_worker_run(struct dp_worker *w, uint64_t max_iterations);

/** Send (or drop, counted) what a worker holds in its TX buffers. */
void dp_graph_worker_flush(struct dp_worker *w);

/**
 * The workers' RCU state (QSBR, thread id = worker index): each reports a
 * quiescent state between two walks. The control lcore waits on it before it
 * frees a table the workers may still read (rte_rcu_qsbr_synchronize), and
 * rte_lpm defers its own frees on it.
 */
extern struct rte_rcu_qsbr *dp_graph_qsv;

/**
 * A packet tap (src/capture): sees a burst of @p n packets of DPDK port
 * @p port, queue @p queue, as the worker receives it (@p tx false, before any node reads it)
 * or as it leaves (@p tx true, rewritten, just before rte_eth_tx_burst). It
 * must not keep, change or free the packets.
 */
typedef void (*dp_graph_tap_t)(struct dp_worker *w, uint16_t port, uint16_t queue, bool tx,
	struct rte_mbuf **pkts, uint16_t n);

/**
 * The tap the workers call, NULL (the default) for none: one test per burst.
 * Set by the control lcore; after setting it back to NULL,
 * rte_rcu_qsbr_synchronize(dp_graph_qsv) before freeing what the tap used.
 */
extern dp_graph_tap_t dp_graph_tap;

/** Drops counted on the control lcore (ctl, neighbors), by reason. */
extern uint64_t dp_ctl_drops[DP_DROP_MAX];

/** A node with one edge per port towards port_tx-<i>: edge base + i. */
struct dp_graph_tx_node {
	const char *name;
	rte_edge_t base; /**< DP_GRAPH_EDGE_PORT_TX(0) for most: after drop and ctl_punt */
};

/**
 * The nodes that send to ports, connected by dp_graph_ports_prepare(): add a
 * node here when it sends to ports. Ends with a NULL name.
 */
extern const struct dp_graph_tx_node dp_graph_tx_nodes[];

/** Register the "delay" section (/dpfwd/graph/delay, delay.c). @return 0 or -errno. */
int dp_delay_telemetry_register(void);

/** Sum over workers (and the control lcore) of one drop reason. */
uint64_t dp_graph_drops(enum dp_drop_reason r);

/** Register "lcores", "nodes" and "drops" sections (/dpfwd/graph/...). */
int dp_graph_telemetry_register(void);

#endif /* DP_GRAPH_H */
