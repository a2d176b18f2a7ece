/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-packet delay through the datapath, for every mode: port_rx stamps each
 * packet with the TSC the worker loop read just before the walk that polled
 * it (dp_worker.walk_tsc, the loop's own per-iteration read: no extra one);
 * what a walk sends is timed with the loop's next read (dp_delay_commit). So
 * the delay runs from the poll that received a packet to the end of the walk
 * that sent it, and includes any wait in a TX buffer. Each worker keeps a
 * dp_hist (dp_hist.h) of four buckets per power of two (a value is known to
 * within 25 %) with its count, sum and maximum, and the RFC 3550 (section 6.4.1)
 * interarrival jitter estimator J += (|D| - J) / 16 over the first packets of
 * consecutive timed TX bursts. Quantiles, mean and standard deviation are
 * computed from these on the control side (delay.c).
 *
 * What is timed (delay_stats_sample, N): every packet is stamped at RX (a
 * store in a pass port_rx makes anyway), but reading the stamps back is done
 * for one full TX burst in N, picked at random intervals (dp_delay_sample_gap),
 * and for every partial burst (a drain or an idle flush: rare under load, and
 * most bursts when the load is light). A timed packet of a full burst counts
 * N times in the histogram, so each packet sent contributes N x 1/N or 1 x 1
 * on average: count, quantiles and mean estimate those of all packets sent,
 * without the bias towards the partial bursts' longer waits that timing them
 * all unweighted would bring. Maximum and jitter are over the timed packets.
 * N = 1 times every packet.
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
#include <rte_random.h>

#include "dp_hist.h"
#include "dp_mem.h"

/* 4 buckets per power of two, values up to 2^64: 4 * 63 buckets */
#define DP_DELAY_SUB_BITS 2
#define DP_DELAY_BUCKETS  DP_HIST_NB_BUCKETS(DP_DELAY_SUB_BITS)

/*
 * The jitter's two words and the histogram's count, sum and maximum share the
 * first cache line. The histogram's minimum is not kept (it would take a
 * compare per run): it stays UINT64_MAX, and nothing reads it.
 */
struct dp_delay_hist {
	uint64_t prev;                           /**< the last packet's delay, for the jitter */
	uint64_t jitter_16;                      /**< RFC 3550 J, in 1/16 cycles */
	DP_HIST_MEMBER(hist, DP_DELAY_SUB_BITS); /**< cycles */
} __rte_cache_aligned;

/** Empty @p d (control side, before its worker runs). */
static inline void
dp_delay_init(struct dp_delay_hist *d)
{
	d->prev = 0;
	d->jitter_16 = 0;
	(void)dp_hist_init(&d->hist, DP_DELAY_SUB_BITS); /* a valid sub_bits: no error */
}

/**
 * Full TX bursts from one timed to the next: uniform in 1..2 @p sample - 1,
 * one in @p sample on average. At random rather than every N-th, so that no
 * periodic pattern of bursts (two ports taking turns, a drain every so many)
 * is always, or never, the one timed.
 */
static inline uint16_t
dp_delay_sample_gap(uint16_t sample)
{
	return (uint16_t)(1 + rte_rand_max(2 * (uint64_t)sample - 1));
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
	/* hist_room is dp_hist_counts(&h->hist), indexed as the array member it is */
	h->hist_room[dp_hist_index(d, DP_DELAY_SUB_BITS)] += n;
	*sum += d * n;
	*max = d > *max ? d : *max;
}

/*
 * Runs of packets sent but not yet timed (dp_delay_note): the stamp they
 * share and how many. The worker loop times them all with the TSC it reads
 * once per iteration anyway (dp_delay_commit), so the TX side costs no TSC
 * read of its own (a read per TX burst would be half of the histogram's
 * cost). The price: a packet is timed at the end of the walk that sent it,
 * not at the send, so a delay is overstated by at most one walk's remaining
 * work (never understated).
 */
#define DP_DELAY_PEND 16

struct dp_delay_pend {
	uint16_t n;
	struct {
		uint64_t stamp;
		uint32_t count;
		uint32_t first; /**< 1 on the first run of a TX burst: the jitter's sample */
	} run[DP_DELAY_PEND];
};

/**
 * Time the pending runs at @p now: the histogram (what dp_hist_record() of
 * each packet would give, but the minimum; count, sum and maximum added up
 * over the runs first and stored once) and the RFC 3550 jitter
 * J(i) = J(i-1) + (|D| - J(i-1)) / 16 over the first packets of consecutive
 * TX bursts, kept as 16 J in integers.
 */
static inline void
dp_delay_commit(struct dp_delay_hist *h, struct dp_delay_pend *p, uint64_t now)
{
	uint64_t sum = 0, max = h->hist.max, count = 0;
	uint16_t i;

	for (i = 0; i < p->n; i++) {
		const uint64_t d = now - p->run[i].stamp;

		if (p->run[i].first) {
			const int64_t diff = (int64_t)(d - h->prev);
			const uint64_t absd = (uint64_t)(diff < 0 ? -diff : diff);

			h->jitter_16 += absd - ((h->jitter_16 + 8) >> 4);
			h->prev = d;
		}
		dp_delay_add_run(h, d, p->run[i].count, &sum, &max);
		count += p->run[i].count;
	}
	p->n = 0;
	h->hist.count += count;
	h->hist.sum += sum;
	h->hist.max = max;
}

static __rte_always_inline void
dp_delay_pend_add(struct dp_delay_hist *h, struct dp_delay_pend *p, uint64_t stamp, uint32_t count,
	uint32_t first)
{
	/* full (many stamps in one walk: packets released by the control
	 * lcore): time what waits now, one TSC read */
	if (unlikely(p->n == DP_DELAY_PEND))
		dp_delay_commit(h, p, rte_rdtsc());
	p->run[p->n].stamp = stamp;
	p->run[p->n].count = count;
	p->run[p->n].first = first;
	p->n++;
}

/**
 * Note the stamps of a burst about to be sent, to be timed by
 * dp_delay_commit(); the mbufs may be freed once sent, so they are read now.
 * Each packet counts @p weight times: the burst stands for that many
 * (delay_stats_sample, above).
 *
 * Cost matters here (a few cycles per packet): the packets of one walk carry
 * the same stamp, so they arrive here mostly side by side. Runs of equal
 * stamps are counted in a register: per packet there is one load and one
 * compare. The frames' lengths are summed into @p bytes on the way: the
 * sender counts them too, and one pass reads each mbuf once.
 */
static __rte_always_inline void
dp_delay_note(struct dp_delay_hist *h, struct dp_delay_pend *p, struct rte_mbuf **pkts, uint16_t n,
	uint32_t weight, int meta_off, uint64_t *bytes)
{
	uint64_t len = 0, run_t;
	uint32_t run_n = 0, first = 1;
	uint16_t i;

	if (unlikely(n == 0))
		return;
	run_t = dp_mbuf_meta(pkts[0], meta_off)->rx_tsc;
	for (i = 0; i < n; i++) {
		const uint64_t t = dp_mbuf_meta(pkts[i], meta_off)->rx_tsc;

		len += pkts[i]->pkt_len;
		if (unlikely(t != run_t)) {
			dp_delay_pend_add(h, p, run_t, run_n * weight, first);
			first = 0;
			run_t = t;
			run_n = 0;
		}
		run_n++;
	}
	dp_delay_pend_add(h, p, run_t, run_n * weight, first);
	*bytes += len;
}

#endif /* DP_DELAY_H */
