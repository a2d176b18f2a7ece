/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control side of the per-packet delay histograms (dp_delay.h): the
 * "delay" telemetry section, /dpfwd/graph/delay. Per worker and in total:
 * count, mean, standard deviation, p50/p90/p99/p99.9, max and the RFC 3550
 * jitter, in nanoseconds, and the non-empty buckets in cycles, from which a
 * reader computes any other quantile or the delay between two snapshots
 * (the per-second line does). Per worker too, the packets at or below each
 * of a fixed list of delays (le_ns): the cumulative buckets of the Prometheus
 * histogram dpfwd_delay_seconds, fixed so that scrapes of several lcores and
 * machines add up. With delay_stats_sample N > 1 the counts are estimates:
 * one full TX burst in N is timed and stands for N (dp_delay.h).
 */
#include <math.h>

#include <rte_cycles.h>

#include "dp_delay.h"
#include "dp_graph.h"
#include "dp_telemetry.h"

/* The upper bounds of the cumulative counts (le_counts), in nanoseconds: 250 ns to 1 s. */
static const uint64_t delay_le_ns[] = { 250, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000,
	200000, 500000, 1000000, 2000000, 5000000, 10000000, 100000000, 1000000000 };
#define DELAY_NB_LE (sizeof(delay_le_ns) / sizeof(delay_le_ns[0]))

/*
 * For each bound, the packets of the buckets that lie wholly at or below it: a
 * bucket that straddles a bound counts under the next one, so a count never
 * holds a packet slower than its bound.
 */
static json_t *
le_counts_json(const struct dp_hist_bucket *b, size_t n, double ns)
{
	json_t *arr = json_array();
	uint64_t below = 0;
	size_t i = 0, k;

	for (k = 0; k < DELAY_NB_LE; k++) {
		for (; i < n && (double)(b[i].low + b[i].width - 1) * ns <= (double)delay_le_ns[k];
			i++)
			below += b[i].count;
		json_array_append_new(arr, json_integer((json_int_t)below));
	}
	return arr;
}

/* the figures of one histogram; @p h may be the sum of several */
static json_t *
delay_json(const struct dp_hist *h, double jitter_cycles, bool with_buckets)
{
	struct dp_hist_bucket b[DP_DELAY_BUCKETS];
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	json_t *o = json_object(), *arr = json_array();
	double mean = 0, var = 0;
	uint64_t count = 0;
	size_t n, i;

	/*
	 * The count is the buckets' sum, not h->count: @p h is read while a worker
	 * writes it, and the two are added at different moments; published, they
	 * must agree (a reader checks the histogram against the count).
	 */
	n = dp_hist_buckets(h, b, DP_DELAY_BUCKETS);
	for (i = 0; i < n; i++) {
		count += b[i].count;
		json_array_append_new(arr, json_pack("[I, I, I]", (json_int_t)b[i].low,
						   (json_int_t)b[i].width, (json_int_t)b[i].count));
	}
	if (count != 0) {
		mean = (double)h->sum / (double)count;
		/* from the buckets' midpoints: good to the histogram's 25 % resolution */
		for (i = 0; i < n; i++) {
			const double mid = (double)b[i].low + (double)b[i].width / 2 - mean;

			var += mid * mid * (double)b[i].count;
		}
		var /= (double)count;
	}
#define Q(q) (n ? json_real(dp_hist_bucket_quantile(b, n, q) * ns) : json_null())
	json_object_set_new(o, "count", json_integer((json_int_t)count));
	json_object_set_new(o, "sum_cycles", json_integer((json_int_t)h->sum));
	json_object_set_new(o, "mean_ns", count ? json_real(mean * ns) : json_null());
	json_object_set_new(o, "stddev_ns", count ? json_real(sqrt(var) * ns) : json_null());
	json_object_set_new(o, "p50_ns", Q(0.5));
	json_object_set_new(o, "p90_ns", Q(0.9));
	json_object_set_new(o, "p99_ns", Q(0.99));
	json_object_set_new(o, "p999_ns", Q(0.999));
#undef Q
	json_object_set_new(o, "max_ns", count ? json_real((double)h->max * ns) : json_null());
	json_object_set_new(o, "jitter_ns", count ? json_real(jitter_cycles * ns) : json_null());
	if (with_buckets) {
		json_object_set_new(o, "buckets_cycles", arr);
	} else {
		json_decref(arr);
		json_object_set_new(o, "le_counts", le_counts_json(b, n, ns));
	}
	return o;
}

static json_t *
delay_fill(void *arg)
{
	static struct dp_delay_hist total; /* the control lcore's only: sections run there */
	json_t *root = json_object(), *lcores = json_array();
	double jitter = 0;
	bool enabled = false;
	uint16_t sample = 1;
	uint16_t i;

	RTE_SET_USED(arg);
	dp_delay_init(&total);
	for (i = 0; i < dp_nb_workers; i++) {
		const struct dp_worker *w = dp_workers[i];
		/* a copy: the worker keeps writing; a torn figure is off by a burst at most */
		struct dp_delay_hist h = w->delay;
		json_t *o;

		enabled |= w->delay_stats;
		sample = w->delay_sample; /* the same in every worker: the config's */
		o = delay_json(&h.hist, (double)h.jitter_16 / 16, false);
		json_object_set_new(o, "lcore", json_integer(w->lcore_id));
		json_array_append_new(lcores, o);
		dp_hist_merge(&total.hist, &h.hist);
		/* the workers' jitters, weighted by their packets */
		jitter += (double)h.jitter_16 / 16 * (double)h.hist.count;
	}
	json_object_set_new(root, "enabled", json_boolean(enabled));
	json_object_set_new(root, "from", json_string("rx burst to tx burst, TSC"));
	json_object_set_new(root, "sample", json_integer(sample));
	{
		json_t *le = json_array();
		size_t k;

		for (k = 0; k < DELAY_NB_LE; k++)
			json_array_append_new(le, json_integer((json_int_t)delay_le_ns[k]));
		json_object_set_new(root, "le_ns", le);
	}
	json_object_set_new(root, "total",
		delay_json(&total.hist, total.hist.count ? jitter / (double)total.hist.count : 0,
			true));
	json_object_set_new(root, "lcores", lcores);
	return root;
}

int
dp_delay_telemetry_register(void)
{
	return dp_telemetry_section_register("delay", "/dpfwd/graph/delay",
		"Per-packet delay from RX burst to TX burst: quantiles, max, jitter (ns) and "
		"buckets (cycles)",
		delay_fill, NULL);
}
