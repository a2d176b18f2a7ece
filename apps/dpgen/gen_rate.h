/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Rate control for dpgen: a token bucket on a free-running clock (the TSC in
 * dpgen, a fake clock in the tests), and the parser for "--rate 12Mpps|5Gbps|max".
 *
 * The bucket counts in "units" that the caller chooses: packets for a pps
 * target, bits for a bps target (a packet then costs its size in bits). To stay
 * exact over any run length it keeps integers scaled by the clock rate:
 *
 *   credit   += elapsed_ticks * rate           (units/s * ticks = units * hz)
 *   a packet  = cost * hz                      (so hz ticks buy exactly `rate` units)
 *
 * No division on refill and no rounding that could drift: after T ticks exactly
 * floor(T * rate / hz) units have been granted, minus what the cap cut off.
 * The cap (bucket depth) is how far the sender may fall behind, e.g. while the
 * kernel ran something else on its core, and still catch up with a burst.
 * Plain C, no DPDK, so that the unit tests can drive it with a fake clock.
 */
#ifndef GEN_RATE_H
#define GEN_RATE_H

#include <stdbool.h>
#include <stdint.h>

/** What a rate target counts. */
enum gen_rate_kind {
	GEN_RATE_MAX = 0, /**< no limit: as fast as the port takes packets */
	GEN_RATE_PPS,     /**< packets per second */
	GEN_RATE_BPS,     /**< bits per second */
};

/** A parsed --rate value. */
struct gen_rate_spec {
	enum gen_rate_kind kind;
	double value; /**< packets/s or bits/s; 0 for GEN_RATE_MAX */
};

/** Token bucket state; fields are private to gen_rate. */
struct gen_rate {
	uint64_t hz;          /**< clock ticks per second */
	uint64_t rate;        /**< units per second, 0 = unlimited */
	uint64_t credit;      /**< units * hz */
	uint64_t credit_max;  /**< bucket depth, units * hz */
	uint64_t max_elapsed; /**< ticks after which the bucket is full anyway */
	uint64_t last;        /**< clock at the last refill */
	uint64_t missed;      /**< ticks of target traffic the cap threw away: the sender was
			       *   further behind than the depth (descheduled, or too slow) */
};

/**
 * Parse a rate: "max", or a positive number with a unit: pps, kpps, Mpps, Gpps,
 * bps, kbps, Mbps, Gbps (k/M/G are powers of 1000; the unit's case is ignored,
 * so "12mpps" is 12 Mpps). Decimals are allowed: "1.5Mpps", "0.5Gbps".
 *
 * @return 0, or -EINVAL (not a rate, no unit, zero, negative, above 10 Tbps or
 *   1 Gpps x 1000).
 */
int gen_rate_parse(const char *s, struct gen_rate_spec *out);

/** Print a spec as "12.000 Mpps", "5.000 Gbps" or "max" into @p buf. */
void gen_rate_spec_str(const struct gen_rate_spec *s, char *buf, unsigned int len);

/**
 * Start a bucket, empty, at clock @p now.
 *
 * @param hz      clock ticks per second (rte_get_tsc_hz())
 * @param rate    units per second; 0 = unlimited (take always grants everything)
 * @param depth   bucket depth in units: the most the sender may catch up at once;
 *                at least one packet's cost, or nothing would ever be sent
 * @return 0, -EINVAL (hz 0, depth 0), -ERANGE (depth * hz or rate overflow 64 bits)
 */
int gen_rate_init(struct gen_rate *r, uint64_t hz, uint64_t rate, uint64_t depth, uint64_t now);

/** Add the credit earned since the last refill (capped at the depth). */
static inline void
gen_rate_refill(struct gen_rate *r, uint64_t now)
{
	uint64_t dt = now - r->last;

	r->last = now;
	if (r->rate == 0)
		return;
	/* past max_elapsed the bucket is full anyway; this also keeps dt * rate in range */
	if (dt > r->max_elapsed) {
		r->missed += dt - r->max_elapsed;
		dt = r->max_elapsed;
	}
	r->credit += dt * r->rate;
	if (r->credit > r->credit_max) {
		/* credit / rate is in ticks: what a full bucket could not hold */
		r->missed += (r->credit - r->credit_max) / r->rate;
		r->credit = r->credit_max;
	}
}

/**
 * Refill at @p now, then take as many packets of @p cost units as the credit
 * allows, at most @p max. Unlimited buckets grant @p max.
 * @return number of packets granted (their cost is consumed).
 */
static inline unsigned int
gen_rate_take(struct gen_rate *r, uint64_t now, uint64_t cost, unsigned int max)
{
	uint64_t unit, n;

	if (r->rate == 0)
		return max;
	gen_rate_refill(r, now);
	unit = cost * r->hz;
	n = r->credit / unit;
	if (n > max)
		n = max;
	r->credit -= n * unit;
	return (unsigned int)n;
}

/**
 * Take one packet of @p cost units from the credit as it stands (call
 * gen_rate_refill() first), for bursts of packets of different sizes.
 * @return true if granted.
 */
static inline bool
gen_rate_take_one(struct gen_rate *r, uint64_t cost)
{
	uint64_t unit = cost * r->hz;

	if (r->rate == 0)
		return true;
	if (r->credit < unit)
		return false;
	r->credit -= unit;
	return true;
}

/**
 * Give back the cost of packets that were granted but not sent (no mbufs):
 * the rate target stays the offered load, not what happened to get through.
 */
static inline void
gen_rate_refund(struct gen_rate *r, uint64_t units)
{
	if (r->rate == 0)
		return;
	r->credit += units * r->hz;
	if (r->credit > r->credit_max)
		r->credit = r->credit_max;
}

#endif /* GEN_RATE_H */
