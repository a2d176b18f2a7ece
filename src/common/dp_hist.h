/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The latency histogram of the project: dpfwd's per-packet delay (dp_delay.h),
 * dpgen, udprtt and dpsock-perf all record into one of these. Plain C, no DPDK
 * and no EAL: the tools that are not DPDK processes link dp_hist_dep
 * (src/common/meson.build).
 *
 * Log-linear buckets, as HdrHistogram's: 2^S buckets per power of two, S
 * ("sub_bits") chosen per histogram. Values below 2^(S+1) have a bucket each
 * (exact); above, a bucket [low, low + width) has width <= low / 2^S, so a
 * value read back from its bucket is within a relative 2^-S of the truth.
 *
 *   index:  0 ... 2^(S+1)-1 | 2^(S+1) ... 2^(S+1)+2^S-1 | ...  | (65-S) 2^S - 1
 *   value:  0 ... 2^(S+1)-1 | 2^(S+1) ... 2^(S+2)-1     | ...  | ... 2^64-1
 *   width:  1               | 2                         | 4 ...| 2^(63-S)
 *
 *   S = 2 (dpfwd):            0..7 exact, then 4 buckets per power of two (25 %)
 *   S = 7 (dpgen, the tools): 0..255 exact, then 128 per power of two (1/128)
 *
 * The bucket of v is (shift << S) + (v >> shift), shift being how far v's top
 * bit lies above bit S (0 for the exact values): an OR, a count of leading
 * zeros, two shifts and an add, no branch.
 *
 * Percentiles: dp_hist_percentile() by nearest rank, reported as the top of
 * the bucket that holds the value, capped at the maximum: never below the true
 * value and, for S = 7, less than 1/128 (0.78 %) above it. dpfwd reports its
 * coarse buckets interpolated instead (dp_hist_bucket_quantile()).
 */
#ifndef DP_HIST_H
#define DP_HIST_H

#include <stddef.h>
#include <stdint.h>

/** Largest S accepted: 2^10 buckets per power of two (0.1 %), 440 KiB of buckets. */
#define DP_HIST_SUB_BITS_MAX 10

/** Buckets of a histogram of 2^@p sub_bits buckets per power of two. */
#define DP_HIST_NB_BUCKETS(sub_bits) ((65u - (sub_bits)) << (sub_bits))

/**
 * A histogram. The counts of its buckets follow it in memory
 * (dp_hist_counts()): allocate one with dp_hist_create(), in memory of
 * dp_hist_size() with dp_hist_init(), or inside another struct with
 * DP_HIST_MEMBER(). (Not a flexible array member: a struct that has one may
 * not be a member of another, and dpfwd keeps its histogram in its worker.)
 */
struct dp_hist {
	uint64_t count;
	uint64_t sum;        /**< of the values, for the mean (wraps after 2^64 in total) */
	uint64_t min;        /**< UINT64_MAX when empty */
	uint64_t max;        /**< 0 when empty */
	uint32_t sub_bits;   /**< S: 2^S buckets per power of two */
	uint32_t nb_buckets; /**< DP_HIST_NB_BUCKETS(sub_bits) */
};

/* the counts start right at the end of the struct, with no padding between */
_Static_assert(sizeof(struct dp_hist) % sizeof(uint64_t) == 0,
	"struct dp_hist: its counts must follow it");

/** The count of each bucket: @p h's nb_buckets of them, right after it. */
static inline uint64_t *
dp_hist_counts(struct dp_hist *h)
{
	return (uint64_t *)(h + 1);
}

/**
 * A histogram inside a struct: member @p name, a struct dp_hist, then
 * name##_room, the counts of its 2^@p sub_bits buckets per power of two (what
 * dp_hist_counts() returns; a fast path may index the room itself, a plain
 * array member at a fixed offset). Set it up with dp_hist_init(&x->name,
 * sub_bits) before use.
 *
 *	struct dp_delay_hist {
 *		uint64_t jitter_16;
 *		DP_HIST_MEMBER(hist, 2);
 *	};
 */
#define DP_HIST_MEMBER(name, sub_bits)                                                             \
	struct dp_hist name;                                                                       \
	uint64_t name##_room[DP_HIST_NB_BUCKETS(sub_bits)]

/** The bucket of @p v in a histogram of 2^@p sub_bits buckets per power of two. */
static inline unsigned int
dp_hist_index(uint64_t v, unsigned int sub_bits)
{
	/* the OR: values below 2^(S+1) get shift 0, a bucket each */
	const unsigned int shift =
		63 - sub_bits - (unsigned int)__builtin_clzll(v | UINT64_C(1) << sub_bits);

	return (shift << sub_bits) + (unsigned int)(v >> shift);
}

/** The lowest value of bucket @p i (of 2^@p sub_bits per power of two). */
static inline uint64_t
dp_hist_bucket_low(unsigned int i, unsigned int sub_bits)
{
	const unsigned int octave = i >> sub_bits;
	const uint64_t top = UINT64_C(1) << sub_bits;

	if (octave == 0)
		return i;
	return ((i & (top - 1)) | top) << (octave - 1);
}

/** How many values bucket @p i holds: it is [low, low + width). */
static inline uint64_t
dp_hist_bucket_width(unsigned int i, unsigned int sub_bits)
{
	const unsigned int octave = i >> sub_bits;

	return octave == 0 ? 1 : UINT64_C(1) << (octave - 1);
}

/** The highest value of bucket @p i. */
static inline uint64_t
dp_hist_bucket_high(unsigned int i, unsigned int sub_bits)
{
	return dp_hist_bucket_low(i, sub_bits) + (dp_hist_bucket_width(i, sub_bits) - 1);
}

/** Record one value. */
static inline void
dp_hist_record(struct dp_hist *h, uint64_t v)
{
	dp_hist_counts(h)[dp_hist_index(v, h->sub_bits)]++;
	h->count++;
	h->sum += v;
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
}

/** Bytes a histogram of 2^@p sub_bits buckets per power of two takes, buckets included. */
size_t dp_hist_size(unsigned int sub_bits);

/**
 * Set up a histogram in @p h (dp_hist_size() bytes, or a DP_HIST_MEMBER() of
 * the same @p sub_bits), empty.
 * @return 0, or -EINVAL when @p sub_bits is above DP_HIST_SUB_BITS_MAX.
 */
int dp_hist_init(struct dp_hist *h, unsigned int sub_bits);

/**
 * Allocate an empty histogram (malloc; dp_hist_free() it).
 * @return the histogram, or NULL with errno EINVAL (@p sub_bits above
 *         DP_HIST_SUB_BITS_MAX) or ENOMEM.
 */
struct dp_hist *dp_hist_create(unsigned int sub_bits);

/** Free a histogram of dp_hist_create(); NULL is ignored. */
void dp_hist_free(struct dp_hist *h);

/** Empty @p h; its layout stays. */
void dp_hist_reset(struct dp_hist *h);

/**
 * Add every value of @p src to @p dst: the same as having recorded them there.
 * @return 0, or -EINVAL when the two do not have the same sub_bits.
 */
int dp_hist_merge(struct dp_hist *dst, const struct dp_hist *src);

/**
 * Percentile by nearest rank: the smallest recorded value v such that at least
 * @p pcm / 1000 percent of the values are <= v, given as the top of v's bucket
 * capped at the maximum. So it is never below v, and above it by less than a
 * relative 2^-sub_bits (exact below 2^(sub_bits + 1)). @p pcm is in
 * thousandths of a percent, so that p99.9 is exact: 50000 = p50, 99900 =
 * p99.9, 100000 = the maximum.
 * @return the percentile, or 0 for an empty histogram.
 */
uint64_t dp_hist_percentile(const struct dp_hist *h, uint32_t pcm);

/** The mean of the recorded values (exact: from their sum), 0 when empty. */
double dp_hist_mean(const struct dp_hist *h);

/** One bucket, as histograms are published: values in [low, low + width). */
struct dp_hist_bucket {
	uint64_t low;
	uint64_t width;
	uint64_t count;
};

/**
 * Fill @p out (room for @p max) with the non-empty buckets of @p h, lowest
 * first. @return how many were written.
 */
size_t dp_hist_buckets(const struct dp_hist *h, struct dp_hist_bucket *out, size_t max);

/**
 * The @p q quantile (0..1) of a histogram given as its non-empty buckets in
 * ascending order, interpolated linearly inside the bucket that holds it (its
 * values taken as spread evenly over it). For coarse buckets, where the top of
 * the bucket would put every quantile up to a bucket's width high: dpfwd's
 * delay figures, and those computed from its published buckets (telemetry.c).
 * @return the value, or -1 when the histogram is empty.
 */
double dp_hist_bucket_quantile(const struct dp_hist_bucket *b, size_t n, double q);

#endif /* DP_HIST_H */
