/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The datapath half of the endpoint module, shared by its tables
 * (endpoint_dp.c, control side) and its nodes (endpoint_node.c): what an
 * endpoint looks like to a worker, the per-worker state, and the reassembly
 * table.
 *
 *   ep_port4[port] / ep_port6[port]    struct ep_dp *, RCU-published; the port
 *                                      claimed in local delivery (dp_fwd_local.h)
 *                                      sends ip4_local / ip6_local's UDP here
 *   ep_workers[w].tx                   the endpoints worker w polls (endpoint_tx),
 *                                      an array swapped whole under RCU
 *
 * Nothing an application can write is trusted: each endpoint keeps its own
 * copy of its pipes' geometry (taken at attach, before the application has
 * the region), every offset read from a ring is checked against it, and the
 * zero-copy bookkeeping (rte_mbuf_ext_shared_info, with its free callback)
 * lives here, in dpfwd's memory.
 */
#ifndef ENDPOINT_FP_H
#define ENDPOINT_FP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dp_graph.h"
#include "dpsock_shm.h"
#include "endpoint_priv.h"

/** Offsets a worker takes from one send pipe at a time. */
#define EP_TX_BURST 32
/** Packets endpoint_tx hands on per call, fragments included (at most a graph burst). */
#define EP_TX_OUT_MAX 128
/** Largest UDP payloads: 65535 - IPv4 20 - UDP 8 (RFC 791, 768); 65535 - UDP 8 (RFC 8200). */
#define EP_UDP4_MAX 65507u
#define EP_UDP6_MAX 65527u
/** TTL / hop limit of the datagrams endpoints send. */
#define EP_TTL 64

/*
 * Reassembly, per worker (RFC 791 3.2, RFC 8200 4.5). DPDK's rte_ip_frag keeps at
 * most RTE_LIBRTE_IP_FRAG_MAX_FRAG fragments per datagram, fixed when DPDK is
 * built (8 in Debian's 22.11: 11 KB at an MTU of 1500), and the datagrams
 * endpoints take reach 64 KB (45 fragments): hence a table of our own, bounded
 * in datagrams, fragments per datagram, mbufs held and time.
 */
#define EP_REASM_SLOTS      64 /**< datagrams being reassembled at once, per worker (a 64-bit mask) */
#define EP_REASM_FRAGS      64   /**< fragments of one datagram (64 KB at 1280 bytes each) */
#define EP_REASM_HELD_MAX   1024 /**< mbufs a worker's table may hold */
#define EP_REASM_TIMEOUT_MS 2000 /**< an unfinished datagram is freed after this */

struct ep_frag {
	struct rte_mbuf *m;
	uint16_t off; /**< in the datagram's payload (after the fragment header) */
	uint16_t len;
	uint16_t hlen; /**< L2 + L3 bytes in front of the data (trimmed off all but the first) */
};

struct ep_reasm_dgram {
	uint64_t start_tsc;
	uint8_t src[16], dst[16];
	uint32_t id;    /**< IPv4: 16-bit identification | protocol << 16; IPv6: the 32-bit one */
	uint32_t got;   /**< payload bytes held */
	uint32_t total; /**< known from the last fragment; UINT32_MAX until then */
	uint8_t ip6;
	uint8_t nb;
	struct ep_frag f[EP_REASM_FRAGS];
};

/** Time Exceeded errors a worker keeps for endpoint_tx to send, at most. */
#define EP_REASM_ERRORS_MAX 8

struct ep_reasm {
	uint64_t used; /**< bit i: slot i holds a datagram */
	/** first fragments of timed-out datagrams, for icmp4_error/icmp6_error */
	struct rte_mbuf *errors[EP_REASM_ERRORS_MAX];
	uint32_t nb_errors;
	uint32_t ids[EP_REASM_SLOTS]; /**< a slot's id, scanned first */
	uint32_t held;                /**< mbufs held over all slots */
	uint64_t timeout_tsc;
	struct ep_reasm_dgram d[EP_REASM_SLOTS];
};

/** The endpoints one worker sends for: replaced whole, freed after an RCU grace period. */
struct ep_tx_list {
	uint32_t n;
	struct ep_dp *e[];
};

/** One worker's state: written by that worker (the stats read by telemetry). */
struct ep_worker {
	struct ep_tx_list *tx; /**< RCU: the endpoints this worker polls */
	struct rte_mempool *pool;
	struct ep_reasm *reasm; /**< NULL when endpoints are off */
	uint32_t rr;            /**< endpoint_tx starts its round here */
	uint32_t calls;
	uint16_t seg_room;    /**< payload bytes an mbuf of pool holds (data room - headroom) */
	uint16_t ip4_id;      /**< identification of the next IPv4 datagram sent (RFC 791) */
	uint32_t ip6_frag_id; /**< identification of the next IPv6 fragmented one (RFC 8200 4.5) */
	struct ep_dp_stats stats;
} __rte_cache_aligned;

/** One send-pipe buffer out without a copy: the mbufs' shared info, in dpfwd's memory. */
struct ep_zc {
	struct rte_mbuf_ext_shared_info shinfo;
	struct ep_dp *e;
	uint64_t off;
	uint32_t busy; /**< 1 while mbufs point at the buffer: a second send of it is refused */
};

struct ep_dp {
	/* read by the nodes */
	void *region;
	struct dpsock_pipe *rx_pipe; /**< in the region: sleeping, dropped */
	struct dpsock_pipe tx_geo;   /**< private copies of the pipes' geometry */
	struct dpsock_pipe rx_geo;
	int efd;
	bool ip6;
	bool wildcard;
	uint16_t port; /**< host order */
	rte_be16_t port_be;
	uint8_t addr[16];
	uint16_t worker;
	struct ep_zc *zc; /**< one per send-pipe buffer (slot) */
	/* written by the sending worker only */
	uint32_t npend; /**< offsets taken from the send pipe, not yet sent (no room in one call) */
	uint64_t pend[EP_TX_BURST];
	uint64_t tx_msgs, tx_bytes, tx_bad;
	/* written by any worker (atomic adds, once per run of datagrams) */
	uint64_t rx_msgs, rx_bytes, rx_dropped;
	/* mbufs that point into the region (zero copy): the region stays until 0 */
	uint32_t inflight;
	bool detached;
};

/** The [endpoint] settings the nodes read, and the tables. */
struct ep_dp_params {
	bool enabled;
	bool udp4_cksum;
	bool zc_ok; /**< no PCI port: zero copy needs no DMA mapping of the regions */
	uint32_t zc_min;
	uint16_t mtu[DP_CONFIG_MAX_PORTS]; /**< by config port index */
	/** the port sends chained mbufs whole (not its profile's tx_first_seg_only): zero
	 * copy; without, one buffer a packet */
	bool chains[DP_CONFIG_MAX_PORTS];
	uint64_t tsc_hz;
};

extern struct ep_dp_params ep_params;
extern struct ep_worker ep_workers[DP_GRAPH_MAX_WORKERS];
extern struct ep_dp *ep_port4[65536];
extern struct ep_dp *ep_port6[65536];

/** Free callback of a zero-copy buffer: back on the send pipe's free ring. */
void ep_zc_free(void *addr, void *opaque);

/**
 * Drop what a worker's table holds for datagrams older than the timeout. With
 * @p errors, the first fragment of each (when it came) is kept in r->errors
 * for a Time Exceeded, while there is room; the rest are freed. At shutdown
 * (@p errors false) what waits in r->errors is freed too.
 * @return fragments dropped (counted by the caller), the kept ones included.
 */
unsigned int ep_reasm_expire(struct ep_reasm *r, uint64_t now, bool errors);

#endif /* ENDPOINT_FP_H */
