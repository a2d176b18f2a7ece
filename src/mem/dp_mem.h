/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packet buffer pools: one pktmbuf pool per NUMA socket in use, sized from
 * what can hold buffers at once, with the allocator ops and per-lcore cache
 * from config; and dpfwd's per-packet metadata (an mbuf dynamic field).
 */
#ifndef DP_MEM_H
#define DP_MEM_H

#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

/** Log type "dpfwd.mem": DP_LOG(level, mem, ...) (dp_common.h). */
extern int dp_logtype_mem;

/** What may hold buffers at once on one socket; the pool is sized from it. */
struct dp_mem_demand {
	uint32_t rx_desc; /**< sum of RX descriptors of every queue on the socket */
	uint32_t tx_desc; /**< same for TX */
	uint32_t lcores;  /**< lcores that allocate or free (workers + main) */
	uint32_t burst;   /**< RX burst */
	uint32_t tx_bufs; /**< TX buffers (one per worker and port), each up to 2 bursts */
	uint32_t held;    /**< held by jobs beyond a burst: endpoint reassembly, zero-copy sends */
};

struct dp_mem_params {
	uint32_t size; /**< 0 = from the demand */
	uint32_t cache;
	char ops[32];
	uint16_t data_room;
};

/** Per-packet metadata that nodes pass along, in the mbuf's dynamic field area. */
struct dp_mbuf_meta {
	uint32_t nh;       /**< next hop index, set by ip4_fwd/ip6_fwd for the output nodes */
	uint16_t port;     /**< config port index to send on (ctl_inject) */
	uint8_t punt;      /**< enum dp_punt_kind, for ctl_punt */
	uint8_t flags;     /**< free for a node and its successor (not cleared on RX) */
	uint8_t icmp_type; /**< for the ICMP error nodes: what to send */
	uint8_t icmp_code;
	uint16_t trace_id;   /**< a traced packet's id (dp_trace.h), with its flag set */
	uint16_t trace_drop; /**< a traced packet's last counted drop reason (dp_trace.h) */
	uint16_t pad;
	/** TSC just before the walk that received it (or the control lcore's hand-off) */
	uint64_t rx_tsc;
};

extern int dp_mbuf_meta_offset;

/**
 * The metadata of @p m. Nodes read dp_mbuf_meta_offset once per burst and pass
 * it in: the compiler cannot keep the global in a register across stores.
 */
static inline struct dp_mbuf_meta *
dp_mbuf_meta(struct rte_mbuf *m, int offset)
{
	return RTE_MBUF_DYNFIELD(m, offset, struct dp_mbuf_meta *);
}

/** Register the metadata field; call once after rte_eal_init(). @return 0 or -rte_errno. */
int dp_mem_meta_register(void);

/**
 * Pool size for a demand: descriptors + per-lcore caches (a cache may hold
 * 1.5x its size) + bursts in flight + TX buffers + a reserve for the control
 * path, rounded up to 2^n - 1 (the best size for a ring-backed pool).
 * @param why   receives the breakdown, for the start-up log
 */
uint32_t dp_mem_pool_size(const struct dp_mem_demand *d, uint32_t cache, char *why, size_t len);

/**
 * Create the pool for @p socket (idempotent: returns the existing one).
 * @return the pool, or NULL with rte_errno set (ENOMEM: not enough hugepage
 *         memory; EINVAL: unknown ops).
 */
struct rte_mempool *dp_mem_pool_create(int socket, const struct dp_mem_params *p, uint32_t size);

/** The pool of a socket, or of any socket when that one has none; NULL if none. */
struct rte_mempool *dp_mem_pool_get(int socket);

/** Remember every pool's in-use count as the baseline (after ports start). */
void dp_mem_baseline_mark(void);

/** Sum over pools of in_use - baseline (0 when no buffer leaked). */
int64_t dp_mem_in_use_over_baseline(void);

/** Register the "mempools" telemetry section (/dpfwd/mem/pools). */
int dp_mem_telemetry_register(void);

/** Free every pool (after ports are closed). */
void dp_mem_pools_free(void);

#endif /* DP_MEM_H */
