/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A token bucket: at most @c burst events at once, @c rate per second on
 * average. For rate limits on the fast path (ICMP errors, RFC 1812 4.3.2.8):
 * keep one bucket per lcore, written only by that lcore, and give it the
 * lcore's own clock; nothing here is shared, locked or atomic.
 *
 * Plain C, no DPDK: the clock is whatever the caller passes (TSC ticks with
 * @c hz = rte_get_tsc_hz(), nanoseconds with 1e9, a fake clock in tests).
 *
 * Credit is kept in integer units where one token is worth @c hz units and
 * every clock tick earns @c rate units: refills are exact (no rounding
 * drift) and need one multiplication, which cannot overflow because the gap
 * is capped at the time a refill from empty takes.
 */
#ifndef DP_TBUCKET_H
#define DP_TBUCKET_H

#include <stdbool.h>
#include <stdint.h>

struct dp_tbucket {
	uint64_t credit; /**< units available; a token costs @c cost */
	uint64_t last;   /**< clock at the last refill */
	uint64_t rate;   /**< units earned per tick (= tokens per second) */
	uint64_t cost;   /**< units per token (= clock ticks per second) */
	uint64_t cap;    /**< burst * cost; 0 when rate is 0 (never) */
	uint64_t fill;   /**< ticks after which the bucket is full from empty */
};

/**
 * Start a bucket full.
 * @param rate   tokens per second; 0 = @ref dp_tbucket_take never succeeds
 * @param burst  tokens at most (a bucket of 0 is treated as 1); burst * hz
 *               must fit in 64 bits (1e6 tokens at 1e12 Hz does)
 * @param hz     clock ticks per second, > 0
 * @param now    the clock
 */
static inline void
dp_tbucket_init(struct dp_tbucket *tb, uint64_t rate, uint64_t burst, uint64_t hz, uint64_t now)
{
	if (burst == 0)
		burst = 1;
	tb->rate = rate;
	tb->cost = hz;
	tb->cap = rate == 0 ? 0 : burst * hz;
	tb->credit = tb->cap;
	tb->fill = rate == 0 ? 0 : tb->cap / rate + 1;
	tb->last = now;
}

/**
 * Take one token if there is one. A clock that steps back earns nothing.
 * @return true when the event may happen.
 */
static inline bool
dp_tbucket_take(struct dp_tbucket *tb, uint64_t now)
{
	uint64_t gap = now > tb->last ? now - tb->last : 0;

	if (gap != 0) {
		tb->last = now;
		/* gap < fill first: then gap * rate <= cap + rate, no overflow */
		if (gap < tb->fill && tb->cap - tb->credit > gap * tb->rate)
			tb->credit += gap * tb->rate;
		else
			tb->credit = tb->cap;
	}
	if (tb->credit < tb->cost)
		return false;
	tb->credit -= tb->cost;
	return true;
}

/**
 * A limit that one thread sets and per-lcore buckets follow: @c gen moves on
 * after @c rate and @c burst changed, and a bucket whose @c gen differs
 * starts again, full, from the new values (dp_tbucket_limit_take()).
 */
struct dp_tbucket_limit {
	uint32_t rate;
	uint32_t burst;
	uint32_t gen; /**< starts at 1: a bucket's gen 0 never matches */
};

/** An lcore's bucket of a struct dp_tbucket_limit. */
struct dp_tbucket_follow {
	struct dp_tbucket tb;
	uint32_t gen; /**< the limit's gen the bucket was set from (0: not yet) */
};

/** Set @p l (one writer); the followers see the new values at their next take. */
static inline void
dp_tbucket_limit_set(struct dp_tbucket_limit *l, uint32_t rate, uint32_t burst)
{
	l->rate = rate;
	l->burst = burst;
	/* followers compare gen before they read rate and burst */
	__atomic_store_n(&l->gen, l->gen + 1, __ATOMIC_RELEASE);
}

/** Reset @p f to @p l's values if they changed since (or it never took). */
static inline void
dp_tbucket_follow(
	struct dp_tbucket_follow *f, const struct dp_tbucket_limit *l, uint64_t hz, uint64_t now)
{
	const uint32_t gen = __atomic_load_n(&l->gen, __ATOMIC_ACQUIRE);

	if (__builtin_expect(f->gen != gen, 0)) {
		dp_tbucket_init(&f->tb, l->rate, l->burst, hz, now);
		f->gen = gen;
	}
}

/** dp_tbucket_follow(), then take one token. @return true when the event may happen. */
static inline bool
dp_tbucket_limit_take(
	struct dp_tbucket_follow *f, const struct dp_tbucket_limit *l, uint64_t hz, uint64_t now)
{
	dp_tbucket_follow(f, l, hz, now);
	return dp_tbucket_take(&f->tb, now);
}

#endif /* DP_TBUCKET_H */
