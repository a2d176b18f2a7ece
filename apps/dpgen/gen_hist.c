/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "gen_hist.h"

void
gen_hist_reset(struct gen_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void
gen_hist_merge(struct gen_hist *dst, const struct gen_hist *src)
{
	unsigned int i;

	if (src->count == 0)
		return;
	for (i = 0; i < GEN_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t
gen_hist_bucket_low(unsigned int idx)
{
	unsigned int shift;

	if (idx < 2 * GEN_HIST_SUB)
		return idx;
	shift = idx / GEN_HIST_SUB - 1;
	return (uint64_t)(idx % GEN_HIST_SUB + GEN_HIST_SUB) << shift;
}

uint64_t
gen_hist_bucket_high(unsigned int idx)
{
	unsigned int shift;

	if (idx < 2 * GEN_HIST_SUB)
		return idx;
	shift = idx / GEN_HIST_SUB - 1;
	return gen_hist_bucket_low(idx) + ((1ULL << shift) - 1);
}

uint64_t
gen_hist_percentile(const struct gen_hist *h, uint32_t pcm_milli)
{
	uint64_t rank, seen = 0, v;
	unsigned int i;

	if (h->count == 0)
		return 0;
	if (pcm_milli >= 100000)
		return h->max;
	/* nearest rank: ceil(count * p), at least the first value; integer so 99.9 is exact */
	rank = (h->count * pcm_milli + 99999) / 100000;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < GEN_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			break;
	}
	if (i == GEN_HIST_BUCKETS)
		return h->max;
	v = gen_hist_bucket_high(i);
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

double
gen_hist_mean(const struct gen_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}
