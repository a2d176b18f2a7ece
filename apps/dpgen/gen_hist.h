/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Latency histogram for dpgen: log-linear buckets (as HdrHistogram does), so
 * that recording is a shift and an add and any percentile is read back with a
 * known relative error, whatever the range.
 *
 *   values 0 .. 255              one bucket each (exact)
 *   values in [2^k, 2^(k+1)), k>=8  128 buckets of width 2^(k-7): error < 1/128
 *
 *   index:  0 ......... 255 | 256 .... 383 | 384 .... 511 | ...  | 7423
 *   value:  0 ......... 255 | 256 ..... 511 (width 2) | 512 .. 1023 (width 4) | ... 2^64-1
 *
 * Units are the caller's (dpgen records TSC cycles and converts when it
 * reports). One histogram is 58 KiB; dpgen keeps two per RX lcore (this second
 * and the one being reported) and one for the whole run. Plain C, no DPDK.
 */
#ifndef GEN_HIST_H
#define GEN_HIST_H

#include <stdint.h>

#define GEN_HIST_SUB_BITS 7
#define GEN_HIST_SUB      (1u << GEN_HIST_SUB_BITS)
/** 2 * SUB exact buckets, then SUB per power of two from 2^8 to 2^63. */
#define GEN_HIST_BUCKETS ((64 - GEN_HIST_SUB_BITS - 1 + 2) * GEN_HIST_SUB)

struct gen_hist {
	uint64_t count;
	uint64_t sum; /**< for the mean; wraps only after ~10^19 cycles in total */
	uint64_t min;
	uint64_t max;
	uint64_t bucket[GEN_HIST_BUCKETS];
};

/** Bucket of value @p v. */
static inline unsigned int
gen_hist_index(uint64_t v)
{
	unsigned int msb, shift;

	if (v < 2 * GEN_HIST_SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	shift = msb - GEN_HIST_SUB_BITS;
	return (shift + 1) * GEN_HIST_SUB + (unsigned int)(v >> shift) - GEN_HIST_SUB;
}

/** Record one value. */
static inline void
gen_hist_record(struct gen_hist *h, uint64_t v)
{
	h->bucket[gen_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/** Empty @p h (min starts at UINT64_MAX so that the first value sets it). */
void gen_hist_reset(struct gen_hist *h);

/** Add every value of @p src to @p dst. */
void gen_hist_merge(struct gen_hist *dst, const struct gen_hist *src);

/** Smallest value of bucket @p idx. */
uint64_t gen_hist_bucket_low(unsigned int idx);

/** Largest value of bucket @p idx. */
uint64_t gen_hist_bucket_high(unsigned int idx);

/**
 * Percentile by nearest rank: the smallest recorded value v such that at least
 * @p pcm_milli / 1000 percent of the values are <= v, reported as the top of
 * v's bucket (so it is never below the true value and at most 1/128 above),
 * clamped to [min, max]. @p pcm_milli is the percentile in thousandths of a
 * percent, so that 99.9 is exact: 50000 = p50, 99000 = p99, 99900 = p99.9,
 * 100000 = max.
 *
 * @return the percentile, or 0 for an empty histogram.
 */
uint64_t gen_hist_percentile(const struct gen_hist *h, uint32_t pcm_milli);

/** Mean of the recorded values, 0 when empty. */
double gen_hist_mean(const struct gen_hist *h);

#endif /* GEN_HIST_H */
