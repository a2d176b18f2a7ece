/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-packet delay through the datapath, for every mode: port_rx stamps each
 * packet with the TSC read once per RX burst, the TX send measures now - stamp
 * with one TSC read per TX burst. Each worker keeps a log-linear histogram
 * (four buckets per power of two: a value is known to within 25 %), the sum and
 * the maximum, and the RFC 3550 (section 6.4.1) interarrival jitter estimator
 * J += (|D| - J) / 16 over the first packets of consecutive TX bursts. Quantiles, mean and standard
 * deviation are computed from these on the control side (delay.c).
 *
 * Why not rte_latencystats: it keeps one global set of figures behind a
 * spinlock, updated from RX/TX callbacks on every burst of every lcore; here
 * each worker writes only its own cache lines and nothing is shared.
 */
#ifndef DP_DELAY_H
#define DP_DELAY_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "dp_mem.h"

/* 4 sub-buckets per power of two, values up to 2^64: 4 * 63 buckets */
#define DP_DELAY_SUB_BITS 2
#define DP_DELAY_BUCKETS  252

struct dp_delay_hist {
	uint64_t count;
	uint64_t sum;       /**< cycles */
	uint64_t max;       /**< cycles */
	uint64_t prev;      /**< the last packet's delay, for the jitter */
	uint64_t jitter_16; /**< RFC 3550 J, in 1/16 cycles */
	uint64_t bucket[DP_DELAY_BUCKETS];
} __rte_cache_aligned;

/** Histogram bucket of @p cycles: exact from 4 to 7, then 4 per power of two. */
static __rte_always_inline unsigned int
dp_delay_bucket(uint64_t cycles)
{
	/* below 4 counts as 4: never seen in practice (a cmov, not a branch) */
	const uint64_t x = cycles > 4 ? cycles : 4;
	const unsigned int msb = 63 - (unsigned int)__builtin_clzll(x);

	return ((msb - 1) << DP_DELAY_SUB_BITS) | (unsigned int)((x >> (msb - 2)) & 3);
}

/** Lowest value in bucket @p b (b >= 4); the bucket holds [low, low + width). */
static inline uint64_t
dp_delay_bucket_low(unsigned int b)
{
	const unsigned int msb = (b >> DP_DELAY_SUB_BITS) + 1;

	return (uint64_t)(4 + (b & 3)) << (msb - 2);
}

static inline uint64_t
dp_delay_bucket_width(unsigned int b)
{
	return UINT64_C(1) << ((b >> DP_DELAY_SUB_BITS) - 1);
}

/** Stamp a received burst with @p now (one TSC read per burst). */
static __rte_always_inline void
dp_delay_stamp(struct rte_mbuf **pkts, uint16_t n, uint64_t now, int meta_off)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		dp_mbuf_meta(pkts[i], meta_off)->rx_tsc = now;
}

/* @p n packets of one delay @p d: one histogram update for all of them */
static __rte_always_inline void
dp_delay_add_run(struct dp_delay_hist *h, uint64_t d, unsigned int n, uint64_t *sum, uint64_t *max)
{
	h->bucket[dp_delay_bucket(d)] += n;
	*sum += d * n;
	*max = d > *max ? d : *max;
}

/**
 * Record the delay of each packet of a burst about to be sent at @p now.
 *
 * Cost matters here (a few cycles per packet): the packets of one RX burst
 * carry the same stamp, so they have the same delay and arrive here mostly
 * side by side. Runs of equal stamps are counted in a register and the
 * histogram is updated once per run: per packet there is one load and one
 * compare. The jitter estimator runs once per burst, on its first packet.
 * The frames' lengths are summed into @p bytes on the way: the sender counts
 * them too, and one pass reads each mbuf once.
 */
static __rte_always_inline void
dp_delay_record(struct dp_delay_hist *h, struct rte_mbuf **pkts, uint16_t n, uint64_t now,
	int meta_off, uint64_t *bytes)
{
	uint64_t len = 0;
	uint64_t sum = 0, max = h->max, run_t, d0, absd;
	unsigned int run_n = 0;
	int64_t diff;
	uint16_t i;

	if (unlikely(n == 0))
		return;
	run_t = dp_mbuf_meta(pkts[0], meta_off)->rx_tsc;
	d0 = now - run_t;
	diff = (int64_t)(d0 - h->prev);
	absd = (uint64_t)(diff < 0 ? -diff : diff);
	/* J(i) = J(i-1) + (|D| - J(i-1)) / 16, kept as 16 J in integers */
	h->jitter_16 += absd - ((h->jitter_16 + 8) >> 4);
	h->prev = d0;
	for (i = 0; i < n; i++) {
		const uint64_t t = dp_mbuf_meta(pkts[i], meta_off)->rx_tsc;

		len += pkts[i]->pkt_len;
		if (unlikely(t != run_t)) {
			dp_delay_add_run(h, now - run_t, run_n, &sum, &max);
			run_t = t;
			run_n = 0;
		}
		run_n++;
	}
	dp_delay_add_run(h, now - run_t, run_n, &sum, &max);
	*bytes += len;
	h->count += n;
	h->sum += sum;
	h->max = max;
}

#endif /* DP_DELAY_H */
