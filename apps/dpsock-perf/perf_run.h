/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One test: a transport, a size, a mode; two processes (fork), each pinned to
 * its CPU, sharing a control block (MAP_SHARED) with the parent, which waits
 * for them with a deadline and kills them (by pid) when it passes.
 */
#ifndef DPSOCK_PERF_RUN_H
#define DPSOCK_PERF_RUN_H

#include "perf.h"

#define PERF_VALS 16

enum perf_status {
	PERF_OK = 0,
	PERF_SKIPPED, /**< the transport cannot do it (size, no dpfwd): a note says why */
	PERF_FAILED,  /**< an error, a timeout or a message that failed its check */
};

/** What one side reports (in the shared block). */
struct perf_side_res {
	int rc; /**< 0, or -errno / -1 with why */
	char why[PERF_NOTE_LEN];
	struct perf_check chk; /**< everything this side received */
	struct perf_rtt rtt;   /**< side A: ping-pong */
	uint64_t requests;     /**< side A: ping-pong requests sent */
	uint64_t lost_replies; /**< side A, lossy: no reply within the timeout (a late one is
				    still received and checked) */
	uint64_t sent;         /**< side A: streamed messages */
	uint64_t again;        /**< sends refused for want of room */
	double tx_s;           /**< side A: seconds it streamed */
	uint64_t rx_msgs;      /**< side B: streamed messages received */
	uint64_t rx_lost;
	double rx_s;            /**< side B: first to last streamed message */
	double vals[PERF_VALS]; /**< breakdown numbers */
};

/** The control block both children and the parent map. */
struct perf_ctl {
	volatile uint32_t phase[2] __attribute__((aligned(64)));
	volatile uint32_t abort __attribute__((aligned(64)));
	volatile uint64_t a_done_ns; /**< when side A sent its last END */
	struct perf_side_res res[2] __attribute__((aligned(64)));
};

struct perf_shared {
	struct perf_pair pp;
	struct perf_ctl ctl;
};

struct perf_test {
	const struct perf_transport *t;
	size_t size;
	bool block;
	int cpu[2];         /**< A's and B's CPU (-1: not pinned) */
	uint64_t warmup;    /**< ping-pong round trips not measured */
	uint64_t iters;     /**< measured round trips at most ... */
	double pp_max_s;    /**< ... and at most this long */
	double duration;    /**< streaming seconds (0: no streaming) */
	unsigned int batch; /**< messages per send/recv call while streaming */
	double timeout_s;   /**< the whole test, then both children are killed */
	bool remote;        /**< dpsock-remote: side A only, against --remote */
	bool no_connect;    /**< leave the endpoints unconnected (B hears from anyone) */
};

/** One cell of the table. */
struct perf_cell {
	const char *transport;
	const char *mode; /**< "spin" or "block" */
	size_t size;
	enum perf_status status;
	char note[PERF_NOTE_LEN];
	struct perf_rtt rtt;
	uint64_t requests;
	uint64_t lost_replies;
	bool streamed;
	uint64_t sent, received, lost, again;
	double tx_s, rx_s, msgs_per_s, gbps;
	struct perf_check chk; /**< both sides */
};

/** The block both children see (MAP_SHARED, anonymous). NULL with errno. */
struct perf_shared *perf_shared_alloc(void);

/** What a child does once its endpoint is open and connected. @return 0 or -1 (why set). */
typedef int (*perf_role_fn)(
	struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, void *arg);

/**
 * Run @p roles[0] in child A and @p roles[1] in child B (NULL: no child B) on a
 * fresh pair of @p pt->t endpoints. Results in @p sh->ctl.res.
 * @return PERF_OK, PERF_SKIPPED (pair_init refused: @p note says why) or
 *         PERF_FAILED (@p note says why).
 */
enum perf_status perf_pair_run(const struct perf_test *pt, const struct perf_opts *o,
	perf_role_fn roles[2], void *arg, struct perf_shared *sh, char *note, size_t notelen);

/** Ping-pong, then streaming: fills @p cell. */
void perf_test_run(const struct perf_test *pt, const struct perf_opts *o, struct perf_cell *cell);

/** Barrier between the two children: announce @p k, wait for the other. 0, or -1 on abort. */
int perf_barrier(struct perf_ctl *ctl, int side, uint32_t k);

/** Side A's ping-pong of @p n round trips after @p warmup, recorded in @p rtt (ticks). */
int perf_pingpong_client(
	struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, struct dp_hist *rtt);
/** Side B's echo until PERF_SEQ_END (or side A reached @p done_phase). */
int perf_pingpong_server(struct perf_ep *ep, struct perf_ctl *ctl, uint32_t done_phase);

/** Record a failure in the side's result and tell the other side. @return -1. */
int perf_fail(struct perf_ctl *ctl, int side, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* DPSOCK_PERF_RUN_H */
