/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Inside dpfwd's endpoint module: the seam between its two halves.
 *
 *   endpoint.c       the server thread: the control socket (dpsock_proto.h),
 *                    regions (memfd), channels between endpoints of this host,
 *                    reclaim when an application goes away
 *   endpoint_dp.c    what the workers see: the UDP port table that ip4_local /
 *   endpoint_node.c  ip6_local consult, each endpoint's pipes, and the nodes
 *                    endpoint4_rx / endpoint6_rx (UDP in -> the endpoint's
 *                    receive pipe) and endpoint_tx (its send pipe -> UDP out)
 *
 * The server calls ep_dp_*() from its own thread; they publish to the workers
 * under RCU (dp_graph_qsv) and return once the workers can see (or no longer
 * see) the endpoint.
 */
#ifndef ENDPOINT_PRIV_H
#define ENDPOINT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dpsock_shm.h"

struct dp_config;

extern int dp_logtype_endpoint;

/** An endpoint as the datapath knows it (endpoint_dp.c owns its contents). */
struct ep_dp;

/** What the server hands the datapath for one bound endpoint. */
struct ep_dp_bind {
	bool ip6;
	uint8_t addr[16]; /**< bound address, network order; all zero: the wildcard */
	uint16_t port;    /**< host order; 0: pick a free one */
	void *region;     /**< the endpoint region, mapped in dpfwd (dpsock_region_init() done) */
	size_t size;
	int efd; /**< the application's eventfd: written when its receive pipe sleeps */
};

/**
 * Is @p addr (network order, 4 or 16 bytes) one of dpfwd's interface addresses?
 * The server asks before it binds or resolves a specific address.
 */
bool ep_dp_addr_is_local(bool ip6, const uint8_t *addr);

/**
 * Make an endpoint visible to the workers: take its port (picking one in
 * [49152, 65535] when b->port is 0, and writing it back to b->port), claim it
 * in local delivery (dp_fwd_local.h), and give its send pipe to a worker.
 * @return 0, or -EADDRINUSE (the port is a relay's or another endpoint's),
 *         -EADDRNOTAVAIL (not an address of dpfwd), -ENOSPC (no free port,
 *         or [endpoint] max reached), -ENOMEM.
 */
int ep_dp_attach(struct ep_dp_bind *b, struct ep_dp **out);

/**
 * Take an endpoint away from the workers (port table, worker's poll list),
 * wait for the workers to be past it (RCU), and free what is in flight in
 * dpfwd: the endpoint's region may be unmapped once this returns true.
 * @return true when nothing of dpfwd refers to the region any more; false
 *         while mbufs that point into it (zero-copy sends still queued on a
 *         port or a hold queue) are outstanding: call ep_dp_release() again later.
 */
bool ep_dp_detach(struct ep_dp *e);

/** After ep_dp_detach() returned false: is the region free now? Frees @p e when it is. */
bool ep_dp_release(struct ep_dp *e);

/** Bound port of @p e (host order). */
uint16_t ep_dp_port(const struct ep_dp *e);

/**
 * The datapath half's own set-up and teardown, on the control lcore:
 * ep_dp_init() before dp_graph_workers_create() (the tables the nodes use),
 * ep_dp_fini() after the workers stopped.
 */
int ep_dp_init(const struct dp_config *cfg, char *err, size_t errlen);
void ep_dp_fini(void);

/* ---- added by the datapath half (endpoint_dp.c): counters for telemetry ---- */

/** Datapath counters of one worker (each written only by its worker), or their sum. */
struct ep_dp_stats {
	uint64_t rx_msgs;      /**< datagrams put in endpoints' receive pipes */
	uint64_t rx_bytes;     /**< their payload bytes */
	uint64_t tx_msgs;      /**< datagrams taken from send pipes and sent */
	uint64_t tx_bytes;     /**< their payload bytes */
	uint64_t tx_zero_copy; /**< of those, sent from the shared buffer without a copy */
	uint64_t tx_frags;     /**< IP fragments made of datagrams larger than the port's MTU */
	uint64_t wakeups;      /**< eventfd writes to applications asleep on their receive pipe */
	uint64_t reasm_frags;  /**< fragments taken into the reassembly table */
	uint64_t reasm_done;   /**< datagrams reassembled */
	uint64_t reasm_held;   /**< mbufs the table holds now (a gauge; summed over workers) */
};

/** Sum the counters of every worker into @p st (zeros when endpoints are off). */
void ep_dp_stats_sum(struct ep_dp_stats *st);

/** One endpoint as the datapath sees it, for /dpfwd/endpoint/list. */
struct ep_dp_info {
	bool ip6;
	bool wildcard;
	uint8_t addr[16]; /**< network order */
	uint16_t port;    /**< host order */
	uint16_t worker;  /**< the worker that sends for it */
	uint64_t tx_msgs, tx_bytes;
	uint64_t
		tx_bad; /**< buffers refused: bad offset, length over the room, already in flight */
	uint64_t rx_msgs, rx_bytes;
	uint64_t rx_dropped; /**< no free buffer in its receive pipe (dpfwd's own count) */
	uint32_t inflight;   /**< zero-copy mbufs still pointing into its region */
};

/** Fill @p out for @p e (attached, or detached and not yet released). */
void ep_dp_info_get(const struct ep_dp *e, struct ep_dp_info *out);

struct json_t;
/**
 * The datapath's part of /dpfwd/endpoint/stats: ep_dp_stats_sum() and the
 * endpoint drop reasons as one JSON object (a new reference, NULL on ENOMEM).
 */
struct json_t *ep_dp_stats_json(void);

#endif /* ENDPOINT_PRIV_H */
