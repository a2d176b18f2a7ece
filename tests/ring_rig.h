/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The in-process datapath rig the unit tests share: EAL on --no-huge, net_ring
 * ports whose rings the test fills and drains, a config written to a temporary
 * file and brought up with dp_run_setup(); the graph is walked on the test
 * thread (which is also the control lcore: dp_ctl_poll() runs there).
 */
#ifndef DP_TEST_RING_RIG_H
#define DP_TEST_RING_RIG_H

#include <stddef.h>
#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_config.h"
#include "dp_drop.h"

struct dp_test;

#define RIG_MAX_PORTS 4
#define RIG_RING_SIZE 1024
#define RIG_MAX_TXQ   4

struct ring_rig {
	/* set by the test */
	const char *name; /**< program and temp dir name ("graph" -> /tmp/dpfwd-test-graph-*) */
	char prefix;      /**< ring and ethdev names: "net_ring_<prefix><i>" in the config */
	unsigned int nb_ports;
	unsigned int tx_size[RIG_MAX_PORTS]; /**< TX ring size per port, 0 = RIG_RING_SIZE */
	const char *mem_mb;                  /**< EAL -m, "256" when NULL */
	/** EAL --lcores, "0,1" when NULL; more workers than CPUs share one: "0,1,2@1" */
	const char *lcores;
	unsigned int nb_txq; /**< TX queues per port, one per worker (all on its TX ring); 0 = 1 */
	const char *config_text;
	/* set by ring_rig_setup() */
	struct rte_ring *rx[RIG_MAX_PORTS], *tx[RIG_MAX_PORTS];
	struct dp_config cfg;
	char tmpdir[64];
	char cfg_path[128];
	char file_prefix[64];             /**< EAL --file-prefix: dpfwd-test-<name>-<pid> */
	uint64_t drops_mark[DP_DROP_MAX]; /**< worker 0's drop counters at ring_rig_drops_mark() */
	uint64_t graph_mark[DP_DROP_MAX]; /**< dp_graph_drops() at ring_rig_drops_mark() */
};

/** EAL, ports, config, dp_run_setup(); the worker flushes after every walk. @return 0 or -1. */
int ring_rig_setup(struct ring_rig *r);

/** dp_run_teardown(), temp files, EAL. */
void ring_rig_cleanup(struct ring_rig *r);

/** Flush worker 0's TX buffers, then free what every port sent. @return frames freed. */
unsigned int ring_rig_flush_drain_all(struct ring_rig *r);

/** Remember the drop counters: worker 0's (the test thread walks worker 0), and all of them. */
void ring_rig_drops_mark(struct ring_rig *r);

/** Drops of reason @p why by worker 0 since ring_rig_drops_mark(). */
uint64_t ring_rig_dropped(const struct ring_rig *r, enum dp_drop_reason why);

/** Every drop by worker 0 since ring_rig_drops_mark(). */
uint64_t ring_rig_drops_total(const struct ring_rig *r);

/** Drops of reason @p why by every worker and the control lcore (dp_graph_drops()) since
 * ring_rig_drops_mark(). */
uint64_t ring_rig_graph_dropped(const struct ring_rig *r, enum dp_drop_reason why);

/** Every drop by every worker and the control lcore since ring_rig_drops_mark(). */
uint64_t ring_rig_graph_drops_total(const struct ring_rig *r);

/** A buffer holding @p frame, as if received on config port @p port. */
struct rte_mbuf *ring_rig_mbuf(int port, const uint8_t *frame, size_t len);

/** Put @p frame on config port @p port's RX ring. */
void ring_rig_inject(struct ring_rig *r, int port, const uint8_t *frame, size_t len);

/** Take what config port @p port sent (at most @p max). */
unsigned int ring_rig_drain(struct ring_rig *r, int port, struct rte_mbuf **out, unsigned int max);

/** Free everything every port sent. @return the number freed. */
unsigned int ring_rig_drain_free(struct ring_rig *r, int port);

/**
 * The test thread is the rig's worker (each of them) and reports a quiescent state
 * after each walk, which leaves its RCU counter set: whatever waits for the workers (a
 * route change, a reload, an endpoint's release) would wait for its next walk
 * forever. Called before such a call: the thread steps out of RCU until it
 * walks again.
 */
void ring_rig_rcu_offline(void);

/**
 * One round as dp_run_loop() makes it: worker 0 walks (and flushes), the control
 * lcore's work runs (ARP, ND, held packets), worker 0 walks again so that what
 * the control lcore sent goes out, and flushes.
 */
void ring_rig_step(void);

/**
 * An ARP frame (60 bytes, padded) into @p f: Ethernet to @p eth_dst from @p sha,
 * opcode @p op, sender @p sha / @p sip, target @p tha / @p tip (addresses in host
 * order). @return its length.
 */
size_t ring_rig_arp(uint8_t *f, uint16_t op, const uint8_t *eth_dst, const uint8_t *sha,
	uint32_t sip, const uint8_t *tha, uint32_t tip);

/**
 * A test program's main: @p tests as CUnit suite @p name, on rig @p r set up before
 * (ring_rig_setup()) and cleaned up after. @return dp_test_run()'s exit status.
 */
int ring_rig_run(struct ring_rig *r, const char *name, const struct dp_test *tests);

/**
 * A 64-byte UDP frame (pktcraft's, TTL 20) into @p f (2048 bytes): to config port @p port's
 * MAC from @p src_mac, @p src -> @p dst (host order), source port @p sport. @return its
 * length.
 */
size_t ring_rig_udp4(
	uint8_t *f, int port, const uint8_t *src_mac, uint32_t src, uint32_t dst, uint16_t sport);

/** dp_fwd_route_add() (@p add) or dp_fwd_route_del() of @p text, from the test thread. */
int ring_rig_route(bool add, const char *text, char *err, size_t errlen);

#endif /* DP_TEST_RING_RIG_H */
