/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dp_hist.h, the latency histogram of dpfwd, dpgen, udprtt and dpsock-perf,
 * against oracles of its own: bucket numbers computed by a loop from their
 * definition (which also keeps dpfwd's and dpgen's published buckets as they
 * were), percentiles against the exact nearest-rank values of the sorted
 * samples within the stated bound (never below, less than 2^-S above),
 * dpfwd's interpolated quantiles within a bucket's width of them, a merge
 * against recording both halves in one histogram, the empty histogram, and a
 * histogram inside a struct keeping to its room. Linked without DPDK, as the
 * tools link it.
 *
 * Random samples come from a seeded PRNG; the seed is printed, and
 * DPFWD_TEST_SEED=n replays a run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp_hist.h"
#include "dp_test.h"

#define NB_SAMPLES 20000

static uint64_t rng_state;

/* splitmix64 */
static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* the oracle's percentile: nearest rank over sorted values, sorted[ceil(pcm n / 100000) - 1] */
static uint64_t
exact_percentile(const uint64_t *sorted, uint64_t n, uint32_t pcm)
{
	uint64_t rank = (n * pcm + 99999) / 100000;

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/*
 * The bucket of @p v from the definition, with a loop instead of a count of
 * leading zeros: values below 2^(S+1) have their own; above, v's top bit e
 * gives the power of two, the next S bits the bucket in it.
 */
static unsigned int
oracle_index(uint64_t v, unsigned int s)
{
	unsigned int e = 0;

	if (v < (UINT64_C(2) << s))
		return (unsigned int)v;
	while (e < 63 && (v >> (e + 1)) != 0)
		e++;
	return ((e - s) << s) + (unsigned int)(v >> (e - s));
}

static const unsigned int sub_bits_tested[] = { 0, 2, 7, DP_HIST_SUB_BITS_MAX };

/* Buckets follow each other from 0 to 2^64 - 1, each within a relative 2^-S of its values. */
static void
test_hist_buckets_tile_the_range_within_the_bound(void)
{
	unsigned int k, i;

	for (k = 0; k < sizeof(sub_bits_tested) / sizeof(sub_bits_tested[0]); k++) {
		const unsigned int s = sub_bits_tested[k], nb = DP_HIST_NB_BUCKETS(s);
		unsigned int bad = 0;

		CU_ASSERT_EQUAL(dp_hist_bucket_low(0, s), 0);
		for (i = 0; i + 1 < nb; i++) {
			const uint64_t low = dp_hist_bucket_low(i, s),
				       w = dp_hist_bucket_width(i, s);

			if (low + w != dp_hist_bucket_low(i + 1, s) ||
				/* exact below 2^(S+1), then no wider than low / 2^S */
				(low < (UINT64_C(2) << s) ? w != 1 : (w << s) > low))
				bad++;
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(dp_hist_bucket_high(nb - 1, s), UINT64_MAX);
		CU_ASSERT_EQUAL(dp_hist_index(UINT64_MAX, s), nb - 1);
		CU_ASSERT_EQUAL(dp_hist_index(0, s), 0);
	}
}

/*
 * dp_hist_index() against the definition, at every power of two, its
 * neighbours and random values: so also the buckets dpfwd (S = 2, from 4 up)
 * and dpgen (S = 7) published before they shared this code.
 */
static void
test_hist_index_matches_its_definition(void)
{
	unsigned int k, bad = 0;
	int e, d;

	for (k = 0; k < sizeof(sub_bits_tested) / sizeof(sub_bits_tested[0]); k++) {
		const unsigned int s = sub_bits_tested[k];
		unsigned int i;

		for (e = 0; e < 64; e++)
			for (d = -1; d <= 1; d++) {
				const uint64_t v = (UINT64_C(1) << e) + (uint64_t)(int64_t)d;

				if (dp_hist_index(v, s) != oracle_index(v, s))
					bad++;
			}
		for (i = 0; i < 100000; i++) {
			const uint64_t v = rnd() >> (rnd() % 64);
			const unsigned int b = dp_hist_index(v, s);

			if (b != oracle_index(v, s) || dp_hist_bucket_low(b, s) > v ||
				dp_hist_bucket_high(b, s) < v)
				bad++;
		}
	}
	/* dpfwd's published lows: 4 buckets per power of two, e.g. 1000 in [896, 1024) */
	CU_ASSERT_EQUAL(dp_hist_bucket_low(dp_hist_index(1000, 2), 2), 896);
	CU_ASSERT_EQUAL(dp_hist_bucket_width(dp_hist_index(1000, 2), 2), 128);
	CU_ASSERT_EQUAL(bad, 0);
}

/* The three kinds of samples the percentile checks use: spread, log-spread, spikes. */
static uint64_t
sample(unsigned int kind)
{
	switch (kind) {
	case 0:
		return 1000 + rnd() % 1000000; /* uniform */
	case 1:
		return rnd() >> (rnd() % 64); /* log-uniform over the whole range */
	default:
		/* a few values, many times each (latencies of a fixed path), and a tail */
		return (rnd() % 100) < 95 ? 3000 + 17 * (rnd() % 4) : 50000 + rnd() % 5000000;
	}
}

/* Each percentile against sorting: never below the exact value, less than 2^-S above. */
static void
test_hist_percentiles_match_sorting_within_the_bound(void)
{
	static const uint32_t pcms[] = { 0, 1, 10000, 50000, 90000, 99000, 99900, 99990, 100000 };
	static const unsigned int subs[] = { 2, 7 };
	uint64_t *v = malloc(NB_SAMPLES * sizeof(*v));
	unsigned int kind, k, i, bad = 0;

	CU_ASSERT_FATAL(v != NULL);
	for (k = 0; k < sizeof(subs) / sizeof(subs[0]); k++)
		for (kind = 0; kind < 3; kind++) {
			struct dp_hist *h = dp_hist_create(subs[k]);

			CU_ASSERT_FATAL(h != NULL);
			for (i = 0; i < NB_SAMPLES; i++) {
				v[i] = sample(kind);
				dp_hist_record(h, v[i]);
			}
			qsort(v, NB_SAMPLES, sizeof(*v), cmp_u64);
			CU_ASSERT_EQUAL(h->count, NB_SAMPLES);
			CU_ASSERT_EQUAL(h->min, v[0]);
			CU_ASSERT_EQUAL(h->max, v[NB_SAMPLES - 1]);
			for (i = 0; i < sizeof(pcms) / sizeof(pcms[0]); i++) {
				const uint64_t want = exact_percentile(v, NB_SAMPLES, pcms[i]);
				const uint64_t got = dp_hist_percentile(h, pcms[i]);

				/* got - want < want / 2^S, and 0 below 2^(S+1) */
				if (got < want || got > h->max ||
					(got != want && got - want >= (want >> subs[k]))) {
					fprintf(stderr,
						"S %u kind %u p%u/1000: %" PRIu64 ", exact %" PRIu64
						"\n",
						subs[k], kind, pcms[i], got, want);
					bad++;
				}
			}
			dp_hist_free(h);
		}
	CU_ASSERT_EQUAL(bad, 0);
	free(v);
}

/* Below 2^(S+1) every value has its own bucket: the exact nearest-rank values. */
static void
test_hist_percentiles_exact_for_small_values(void)
{
	struct dp_hist *h = dp_hist_create(7);
	uint64_t v;

	CU_ASSERT_FATAL(h != NULL);
	for (v = 1; v <= 200; v++)
		dp_hist_record(h, v);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 0), 1);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 50000), 100);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 90000), 180);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 99000), 198);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 99900), 200);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 100000), 200);
	CU_ASSERT_EQUAL(h->min, 1);
	CU_ASSERT_EQUAL(h->max, 200);
	CU_ASSERT_EQUAL(h->sum, 20100);
	CU_ASSERT_DOUBLE_EQUAL(dp_hist_mean(h), 100.5, 1e-12);
	dp_hist_free(h);
}

/* A count beyond 2^64 / 100000: the rank is still right (no overflow of count * pcm). */
static void
test_hist_percentile_rank_of_a_huge_count(void)
{
	struct dp_hist *h = dp_hist_create(2);

	CU_ASSERT_FATAL(h != NULL);
	dp_hist_counts(h)[dp_hist_index(5, 2)] = UINT64_C(1) << 62;
	dp_hist_counts(h)[dp_hist_index(1000, 2)] = UINT64_C(1) << 62;
	h->count = UINT64_C(1) << 63;
	h->min = 5;
	h->max = 1000;
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 50000), 5);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 50001), 1000);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 99999), 1000);
	dp_hist_free(h);
}

/* Merging two histograms gives what recording both sets of values in one gives. */
static void
test_hist_merge_equals_recording_both(void)
{
	struct dp_hist *a = dp_hist_create(7), *b = dp_hist_create(7), *both = dp_hist_create(7);
	struct dp_hist *other = dp_hist_create(2);
	unsigned int i, diff = 0;

	CU_ASSERT_FATAL(a != NULL && b != NULL && both != NULL && other != NULL);
	for (i = 0; i < NB_SAMPLES; i++) {
		const uint64_t v = sample(i % 2 ? 0 : 2);

		dp_hist_record(rnd() % 3 == 0 ? a : b, v);
		dp_hist_record(both, v);
	}
	/* the extremes only in the half merged in: the merge must carry min and max */
	dp_hist_record(b, 0);
	dp_hist_record(b, UINT64_MAX);
	dp_hist_record(both, 0);
	dp_hist_record(both, UINT64_MAX);
	CU_ASSERT_EQUAL(dp_hist_merge(a, b), 0);
	CU_ASSERT_EQUAL(a->count, both->count);
	CU_ASSERT_EQUAL(a->sum, both->sum);
	CU_ASSERT_EQUAL(a->min, both->min);
	CU_ASSERT_EQUAL(a->max, both->max);
	for (i = 0; i < a->nb_buckets; i++)
		diff += dp_hist_counts(a)[i] != dp_hist_counts(both)[i];
	CU_ASSERT_EQUAL(diff, 0);
	CU_ASSERT_EQUAL(dp_hist_percentile(a, 99900), dp_hist_percentile(both, 99900));
	/* an empty one changes nothing, min included */
	dp_hist_reset(b);
	CU_ASSERT_EQUAL(dp_hist_merge(a, b), 0);
	CU_ASSERT_EQUAL(a->count, both->count);
	CU_ASSERT_EQUAL(a->min, both->min);
	/* another layout is refused, untouched */
	CU_ASSERT_EQUAL(dp_hist_merge(a, other), -EINVAL);
	CU_ASSERT_EQUAL(a->count, both->count);
	dp_hist_free(a);
	dp_hist_free(b);
	dp_hist_free(both);
	dp_hist_free(other);
}

static void
check_empty(const struct dp_hist *h)
{
	struct dp_hist_bucket b[4];

	CU_ASSERT_EQUAL(h->count, 0);
	CU_ASSERT_EQUAL(h->sum, 0);
	CU_ASSERT_EQUAL(h->min, UINT64_MAX);
	CU_ASSERT_EQUAL(h->max, 0);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 0), 0);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 50000), 0);
	CU_ASSERT_EQUAL(dp_hist_percentile(h, 100000), 0);
	CU_ASSERT_DOUBLE_EQUAL(dp_hist_mean(h), 0, 0);
	CU_ASSERT_EQUAL(dp_hist_buckets(h, b, 4), 0);
	CU_ASSERT_DOUBLE_EQUAL(dp_hist_bucket_quantile(b, 0, 0.5), -1, 0);
}

/* Empty, new or reset: no values, percentiles and mean 0, no buckets. */
static void
test_hist_empty_new_and_reset(void)
{
	struct dp_hist *h = dp_hist_create(7);
	unsigned int i;

	CU_ASSERT_FATAL(h != NULL);
	check_empty(h);
	for (i = 0; i < 1000; i++)
		dp_hist_record(h, sample(1));
	dp_hist_record(h, 0);
	dp_hist_record(h, UINT64_MAX);
	dp_hist_reset(h);
	check_empty(h);
	CU_ASSERT_EQUAL(h->sub_bits, 7);
	CU_ASSERT_EQUAL(h->nb_buckets, DP_HIST_NB_BUCKETS(7));
	for (i = 0; i < h->nb_buckets; i++)
		if (dp_hist_counts(h)[i] != 0) {
			CU_FAIL("a bucket left after reset");
			break;
		}
	dp_hist_free(h);
}

/* More sub_bits than DP_HIST_SUB_BITS_MAX: EINVAL, nothing allocated. */
static void
test_hist_create_and_init_refuse_too_fine(void)
{
	struct dp_hist h;

	errno = 0;
	CU_ASSERT_PTR_NULL(dp_hist_create(DP_HIST_SUB_BITS_MAX + 1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(dp_hist_init(&h, DP_HIST_SUB_BITS_MAX + 1), -EINVAL);
	CU_ASSERT_EQUAL(dp_hist_size(2), sizeof(struct dp_hist) + 252 * sizeof(uint64_t));
}

/* The published bucket list: non-empty buckets in order, their counts adding up. */
static void
test_hist_buckets_lists_the_non_empty_ones(void)
{
	struct dp_hist *h = dp_hist_create(2);
	struct dp_hist_bucket b[DP_HIST_NB_BUCKETS(2)];
	uint64_t total = 0;
	size_t n, i;

	CU_ASSERT_FATAL(h != NULL);
	for (i = 0; i < NB_SAMPLES; i++)
		dp_hist_record(h, sample(2));
	n = dp_hist_buckets(h, b, DP_HIST_NB_BUCKETS(2));
	CU_ASSERT(n > 4);
	for (i = 0; i < n; i++) {
		CU_ASSERT(b[i].count != 0);
		CU_ASSERT_EQUAL(b[i].count, dp_hist_counts(h)[dp_hist_index(b[i].low, 2)]);
		CU_ASSERT_EQUAL(b[i].width, dp_hist_bucket_width(dp_hist_index(b[i].low, 2), 2));
		if (i > 0)
			CU_ASSERT(b[i].low >= b[i - 1].low + b[i - 1].width);
		total += b[i].count;
	}
	CU_ASSERT_EQUAL(total, h->count);
	/* room for fewer: the lowest ones */
	CU_ASSERT_EQUAL(dp_hist_buckets(h, b, 2), 2);
	dp_hist_free(h);
}

static void
test_hist_bucket_quantile_interpolates_inside_the_bucket(void)
{
	/* 100 samples spread evenly over [100, 200), 100 over [200, 400) */
	const struct dp_hist_bucket b[] = { { 100, 100, 100 }, { 200, 200, 100 } };

	CU_ASSERT_DOUBLE_EQUAL(dp_hist_bucket_quantile(b, 2, 0.25), 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(dp_hist_bucket_quantile(b, 2, 0.5), 200, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(dp_hist_bucket_quantile(b, 2, 0.75), 300, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(dp_hist_bucket_quantile(b, 2, 0.99), 396, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(dp_hist_bucket_quantile(b, 2, 1.0), 400, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(dp_hist_bucket_quantile(b, 0, 0.5), -1, 1e-9);
}

/* dpfwd's figures (S = 2, interpolated): within the width of the exact value's bucket. */
static void
test_hist_bucket_quantile_within_a_bucket_of_sorting(void)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	struct dp_hist *h = dp_hist_create(2);
	struct dp_hist_bucket b[DP_HIST_NB_BUCKETS(2)];
	uint64_t *v = malloc(NB_SAMPLES * sizeof(*v));
	unsigned int kind, i, bad = 0;

	CU_ASSERT_FATAL(h != NULL && v != NULL);
	for (kind = 0; kind < 3; kind++) {
		size_t n;

		dp_hist_reset(h);
		for (i = 0; i < NB_SAMPLES; i++) {
			v[i] = sample(kind);
			dp_hist_record(h, v[i]);
		}
		qsort(v, NB_SAMPLES, sizeof(*v), cmp_u64);
		n = dp_hist_buckets(h, b, DP_HIST_NB_BUCKETS(2));
		for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
			const uint64_t want =
				exact_percentile(v, NB_SAMPLES, (uint32_t)(qs[i] * 100000 + 0.5));
			const double got = dp_hist_bucket_quantile(b, n, qs[i]);
			const double w = (double)dp_hist_bucket_width(dp_hist_index(want, 2), 2);

			if (got < (double)want - w || got > (double)want + w) {
				fprintf(stderr, "kind %u q %g: %.1f, exact %" PRIu64 "\n", kind,
					qs[i], got, want);
				bad++;
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	dp_hist_free(h);
	free(v);
}

/* DP_HIST_MEMBER: the buckets are the room after the header, and nothing beyond is written. */
static void
test_hist_member_stays_in_its_room(void)
{
	static struct {
		uint64_t before;
		DP_HIST_MEMBER(hist, 2);
		uint64_t after;
	} x;
	struct dp_hist *copy = dp_hist_create(2);

	CU_ASSERT_FATAL(copy != NULL);
	x.before = x.after = 0x5a5a5a5a5a5a5a5aull;
	CU_ASSERT_EQUAL(dp_hist_init(&x.hist, 2), 0);
	CU_ASSERT_PTR_EQUAL(dp_hist_counts(&x.hist), &x.hist_room[0]);
	dp_hist_record(&x.hist, 0);
	dp_hist_record(&x.hist, UINT64_MAX);
	CU_ASSERT_EQUAL(x.hist_room[0], 1);
	CU_ASSERT_EQUAL(x.hist_room[DP_HIST_NB_BUCKETS(2) - 1], 1);
	CU_ASSERT_EQUAL(dp_hist_merge(copy, &x.hist), 0);
	CU_ASSERT_EQUAL(copy->count, 2);
	dp_hist_reset(&x.hist);
	CU_ASSERT_EQUAL(x.before, 0x5a5a5a5a5a5a5a5aull);
	CU_ASSERT_EQUAL(x.after, 0x5a5a5a5a5a5a5a5aull);
	dp_hist_free(copy);
}

static int
suite_init(void)
{
	const char *env = getenv("DPFWD_TEST_SEED");

	rng_state = env != NULL ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	printf("\ntest_hist: DPFWD_TEST_SEED=%" PRIu64 "\n", rng_state);
	return 0;
}

static const struct dp_test tests[] = {
	{ "test_hist_buckets_tile_the_range_within_the_bound",
		test_hist_buckets_tile_the_range_within_the_bound },
	{ "test_hist_index_matches_its_definition", test_hist_index_matches_its_definition },
	{ "test_hist_percentiles_match_sorting_within_the_bound",
		test_hist_percentiles_match_sorting_within_the_bound },
	{ "test_hist_percentiles_exact_for_small_values",
		test_hist_percentiles_exact_for_small_values },
	{ "test_hist_percentile_rank_of_a_huge_count", test_hist_percentile_rank_of_a_huge_count },
	{ "test_hist_merge_equals_recording_both", test_hist_merge_equals_recording_both },
	{ "test_hist_empty_new_and_reset", test_hist_empty_new_and_reset },
	{ "test_hist_create_and_init_refuse_too_fine", test_hist_create_and_init_refuse_too_fine },
	{ "test_hist_buckets_lists_the_non_empty_ones",
		test_hist_buckets_lists_the_non_empty_ones },
	{ "test_hist_bucket_quantile_interpolates_inside_the_bucket",
		test_hist_bucket_quantile_interpolates_inside_the_bucket },
	{ "test_hist_bucket_quantile_within_a_bucket_of_sorting",
		test_hist_bucket_quantile_within_a_bucket_of_sorting },
	{ "test_hist_member_stays_in_its_room", test_hist_member_stays_in_its_room },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("hist", tests, suite_init, NULL);
}
