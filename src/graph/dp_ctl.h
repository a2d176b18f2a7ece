/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The hand-off between worker lcores and the control lcore.
 *
 *   worker graph: ... -> ctl_punt ==(punt ring)==> control lcore: handler by kind
 *   control lcore: dp_ctl_send() ==(inject ring)==> ctl_inject -> port_tx-<port>
 *
 * Each worker has two single-producer single-consumer rte_rings: packets it
 * cannot finish alone (ARP, ND, packets waiting for a neighbor, packets for the
 * host's stack) go up; frames the control lcore builds (ARP requests and
 * replies, released held packets) come down and leave through the worker's own
 * TX queues, so no port needs a TX queue for the control lcore and no TX queue
 * is ever shared. A full ring is a counted drop on either side, never a wait.
 *
 * Everything here except the two nodes runs on the control (main) lcore:
 * dp_run_loop() calls dp_ctl_poll() about every millisecond.
 */
#ifndef DP_CTL_H
#define DP_CTL_H

#include <stdint.h>
#include <rte_mbuf.h>

/** Log type "dpfwd.ctl": DP_LOG(level, ctl, ...) (dp_common.h). */
extern int dp_logtype_ctl;

/** Why a worker hands a packet to the control lcore (dp_mbuf_meta.punt). */
enum dp_punt_kind {
	DP_PUNT_NONE = 0,
	DP_PUNT_ARP,    /**< an ARP frame, from eth_classify */
	DP_PUNT_NEIGH4, /**< IPv4 packet for next hop meta.nh, whose MAC is not known */
	DP_PUNT_ND,     /**< ICMPv6 neighbor discovery for the router (NS, NA) */
	DP_PUNT_NEIGH6, /**< IPv6 packet for next hop meta.nh, whose MAC is not known */
	DP_PUNT_HOST,   /**< a packet to the router for the host's stack (meta.port: from) */
	DP_PUNT_MAX,
};

#define DP_CTL_RING_SIZE 1024 /**< per worker and direction */

/**
 * A punt handler: owns @p m (frees it, keeps it, or passes it to dp_ctl_send()).
 * @param worker  index of the worker that punted it
 */
typedef void (*dp_ctl_punt_cb_t)(struct rte_mbuf *m, uint16_t worker, void *arg);

/** A periodic control task; @p now_ms is a monotonic clock in milliseconds. */
typedef void (*dp_ctl_timer_cb_t)(uint64_t now_ms, void *arg);

/** Set the handler of one punt kind (replacing any). @return 0 or -EINVAL. */
int dp_ctl_punt_register(enum dp_punt_kind kind, dp_ctl_punt_cb_t cb, void *arg);

/**
 * The handler of punt kind @p kind, in @p cb and @p arg (NULL: none), so that
 * a module can wrap another's. @return 0 or -EINVAL.
 */
int dp_ctl_punt_handler(enum dp_punt_kind kind, dp_ctl_punt_cb_t *cb, void **arg);

/** Run @p cb every @p period_ms from dp_ctl_poll(). @return 0, -ENOSPC, -EINVAL. */
int dp_ctl_timer_register(
	const char *name, unsigned int period_ms, dp_ctl_timer_cb_t cb, void *arg);

/**
 * Create the rings of every worker (after dp_graph_workers_create(), before
 * launch). @return 0 or -ENOMEM.
 */
int dp_ctl_init(void);

/**
 * After the workers stopped: free the packets in the rings and those the
 * control code holds (callbacks from dp_ctl_stop_register()), each counted
 * as a drop (shutdown), so that no buffer stays in use.
 */
void dp_ctl_stop(void);

/** Run @p fn in dp_ctl_stop() (e.g. to free held packets). @return 0 or -ENOSPC. */
int dp_ctl_stop_register(void (*fn)(void));

/** Free the rings and the packets still in them; forget handlers and timers. */
void dp_ctl_fini(void);

/**
 * On the control lcore: hand every punted packet to its handler, then run the
 * timers that are due. @return packets handled.
 */
unsigned int dp_ctl_poll(uint64_t now_ms);

/**
 * Run @p fn on the control lcore (at its next dp_ctl_poll()) and wait for it:
 * how other threads (rte_telemetry's, signal handling) change what only the
 * control lcore writes (routes, neighbors). From the control thread itself,
 * or before dp_ctl_init(), @p fn runs at once.
 * @return what @p fn returned, or -ETIMEDOUT if the control loop did not run it.
 */
int dp_ctl_call(int (*fn)(void *arg), void *arg, unsigned int timeout_ms);

/** Monotonic milliseconds, the clock dp_ctl_poll() is given by dp_run_loop(). */
uint64_t dp_ctl_now_ms(void);

/**
 * Send a finished frame (Ethernet header included) out of config port @p port,
 * through a worker's TX queue. Takes @p m in every case.
 * @return 0; -ENODEV when there is no port @p port (@p m freed, counted
 *   ctl_bad_port); -ENOBUFS when the inject ring was full or there is no worker
 *   (@p m freed, counted ctl_inject_full).
 */
int dp_ctl_send(struct rte_mbuf *m, uint16_t port);

/** Register the "ctl" telemetry section (/dpfwd/ctl/stats). */
int dp_ctl_telemetry_register(void);

#endif /* DP_CTL_H */
