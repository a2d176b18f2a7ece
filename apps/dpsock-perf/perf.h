/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpsock-perf: what its parts share.
 *
 *   main.c            options, the run, the output
 *   perf_msg.c        clock (TSC), message pattern and its check, RTT figures
 *   perf_transport.c  the transports behind one table of operations
 *   perf_run.c        one test: two forked processes, ping-pong then streaming
 *   perf_breakdown.c  per-operation costs (--breakdown)
 *   perf_report.c     the table and the JSON
 *
 * A message of L bytes (L >= 8) carries its sequence number and a pattern:
 *
 *   0          8                                   L-8        L
 *   +----------+-----------------------------------+----------+
 *   | seq      | pattern(offset): a function of the | seq ^ K  |   (L >= 16)
 *   | (u64)    | byte's offset only                 | trailer  |
 *   +----------+-----------------------------------+----------+
 *
 * The receiver checks the length, the sequence (in order, no gap unless the
 * transport may lose), the trailer and every pattern byte. The pattern does not
 * depend on the sequence so that a zero-copy sender may build it once per buffer
 * and write only the two sequence words afterwards (perf_transport.c).
 */
#ifndef DPSOCK_PERF_H
#define DPSOCK_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "dp_hist.h"

#define PERF_MIN_SIZE    8u
#define PERF_MAX_SIZE    (1024u * 1024u)
#define PERF_SEQ_END     UINT64_MAX /**< the last message of a phase: 8 bytes, no reply */
#define PERF_TRAILER_KEY UINT64_C(0x5a5aa5a55a5aa5a5)
#define PERF_MAX_BATCH   64u
#define PERF_UDP_MAX     65507u
#define PERF_NOTE_LEN    200

/* ---- clock ---- */

/** Ticks of the clock the measurements use (the TSC on x86, else CLOCK_MONOTONIC ns). */
uint64_t perf_ticks(void);
/** Calibrate (about 20 ms); @return ticks per second. */
uint64_t perf_clock_init(void);
extern uint64_t perf_hz;
/** Median cost of one perf_ticks() pair, in ticks (subtracted from per-call timings). */
extern uint64_t perf_tick_overhead;

static inline double
perf_ticks_ns(uint64_t t)
{
	return (double)t * 1e9 / (double)perf_hz;
}

uint64_t perf_now_ns(void);

/** Busy-wait hint; on a single CPU, give the CPU away instead. */
void perf_relax(void);
extern bool perf_single_cpu;

/* ---- messages ---- */

/** Make the reference pattern (before any check; before the forks). 0 or -ENOMEM. */
int perf_msg_init(void);

/** The pattern of the first @p len bytes (whole message: seq 0, no trailer). */
void perf_pattern_fill(uint8_t *buf, size_t len);
/** Write @p seq (and its trailer) into a message of @p len bytes that holds the pattern. */
void perf_msg_stamp(uint8_t *buf, size_t len, uint64_t seq);

/** What a receiver saw; summed per side. */
struct perf_check {
	uint64_t msgs;     /**< data messages received */
	uint64_t bytes;    /**< their bytes */
	uint64_t ok_bytes; /**< bytes of messages whose every byte was right */
	uint64_t bad_len;  /**< wrong length */
	uint64_t bad_data; /**< a pattern byte or the trailer wrong */
	uint64_t bad_seq;  /**< out of order or repeated (or a gap on a lossless transport) */
	uint64_t lost;     /**< gaps on a transport that may lose */
	uint64_t ends;     /**< PERF_SEQ_END messages */
};

static inline uint64_t
perf_check_bad(const struct perf_check *c)
{
	return c->bad_len + c->bad_data + c->bad_seq;
}

/** Receive side state of one direction. */
struct perf_rx {
	size_t size;     /**< every data message has this length */
	uint64_t expect; /**< next sequence number */
	bool lossy;      /**< gaps are losses, not errors */
	bool last_end;   /**< the last message checked was PERF_SEQ_END */
	uint64_t last_seq;
	uint64_t t_first, t_last; /**< ticks of the first and last data message */
	struct perf_check chk;
};

/** Check one received message; @return true when it was a good data message. */
bool perf_rx_check(struct perf_rx *rx, const uint8_t *buf, size_t len);

/* ---- RTT figures ---- */

/**
 * Timings are recorded in a dp_hist of 128 buckets per power of two: a
 * percentile is the nearest-rank value sorted[ceil(q n) - 1] reported as the
 * top of its bucket, so never below it and less than 1/128 (0.78 %) above it;
 * exact below 256 ticks. min, max and mean are exact.
 */
#define PERF_HIST_SUB_BITS 7

struct perf_rtt {
	uint64_t n;
	double min, p50, p90, p99, p999, max, mean; /**< microseconds */
};

/** The figures of @p ticks, in microseconds (all zero when it is empty). */
void perf_rtt_summary(const struct dp_hist *ticks, struct perf_rtt *out);

/* ---- transports ---- */

enum perf_mode {
	PERF_MODE_AUTO = 0, /**< each transport's default */
	PERF_MODE_SPIN,
	PERF_MODE_BLOCK,
	PERF_MODE_BOTH,
};

/** Options every transport may look at. */
struct perf_opts {
	const char *dpsock_path;       /**< NULL: $DPSOCK_PATH, else the library default */
	struct sockaddr_storage local; /**< address dpsock endpoints bind (port 0) */
	socklen_t local_len;
	struct sockaddr_storage remote; /**< --remote */
	socklen_t remote_len;
	bool have_remote;
	int sndbuf; /**< Linux sockets: SO_SNDBUF / SO_RCVBUF asked */
	unsigned int batch;
};

struct perf_pair;
struct perf_ep;

struct perf_transport {
	const char *name;
	const char *what;
	bool dpsock;    /**< needs a running dpfwd */
	bool lossy;     /**< may drop when the receiver is behind */
	bool spin_only; /**< no blocking mode */
	enum perf_mode default_mode;
	/** Largest message; 0 when only a try tells (then send says -EMSGSIZE). */
	size_t (*max_size)(const struct perf_opts *o);
	/** Before the fork: what both sides share. 0 or -errno (a note in @p why). */
	int (*pair_init)(struct perf_pair *pp, char *why, size_t whylen);
	void (*pair_fini)(struct perf_pair *pp);
	/** In a child: open its side and publish its address in the pair. */
	int (*open)(struct perf_ep *ep, char *why, size_t whylen);
	/** After both opened: send to, and accept only from, the other side. */
	int (*connect)(struct perf_ep *ep, char *why, size_t whylen);
	/**
	 * Send @p n messages of @p len bytes, sequence numbers @p seq.. (stamped).
	 * @return how many were sent (>= 1), -EAGAIN (spin mode, no room), or -errno.
	 */
	int (*send)(struct perf_ep *ep, uint64_t seq, size_t len, unsigned int n);
	/**
	 * Receive up to @p max messages and check each (perf_rx_check()).
	 * @return how many, -EAGAIN (nothing: spin mode, or a blocking wait timed
	 *         out), or -errno.
	 */
	int (*recv)(struct perf_ep *ep, struct perf_rx *rx, unsigned int max);
	void (*close)(struct perf_ep *ep);
};

/** The transports, in table order; NULL-terminated. */
extern const struct perf_transport *const perf_transports[];
const struct perf_transport *perf_transport_find(const char *name);

/** One test's shared state (MAP_SHARED, made before the fork). */
struct perf_pair {
	const struct perf_transport *t;
	const struct perf_opts *o;
	size_t size;
	bool block;
	bool lossy; /**< dpsock-remote: a request or its reply may be lost */
	int fds[2]; /**< unix-dgram: socketpair */
	void *shm;  /**< shm-spin: the two rings */
	size_t shm_len;
	struct sockaddr_storage addr[2]; /**< each side's bound address */
	socklen_t addr_len[2];
};

/** One side's endpoint (in its own process). */
struct perf_ep {
	struct perf_pair *pp;
	int side; /**< 0: A (client, sender), 1: B (server, receiver) */
	bool block;
	int fd;
	void *ds;       /**< struct dpsock * */
	void *evq;      /**< struct dpsock_evq *: lossy and blocking (bounded receive waits) */
	uint8_t *tx;    /**< a message of the test's size, holding the pattern */
	uint8_t *rxbuf; /**< receive buffer (PERF_MAX_SIZE + 64) */
	size_t rxcap;
	void *zc_filled;         /**< dpsock-zc: buffers that already hold the pattern */
	uint64_t shm_tx, shm_rx; /**< shm-spin: next slot to write, to read */
	uint64_t again;          /**< sends refused for want of room */
};

/** Allocate ep buffers for messages of @p size. 0 or -ENOMEM. */
int perf_ep_buffers(struct perf_ep *ep, size_t size);
void perf_ep_buffers_free(struct perf_ep *ep);

#endif /* DPSOCK_PERF_H */
