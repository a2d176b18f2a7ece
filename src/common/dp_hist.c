/* SPDX-License-Identifier: BSD-3-Clause */
/* The control side of dp_hist.h: set-up, merge and the read-outs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp_hist.h"

static const uint64_t *
counts_of(const struct dp_hist *h)
{
	return (const uint64_t *)(h + 1);
}

size_t
dp_hist_size(unsigned int sub_bits)
{
	return sizeof(struct dp_hist) + DP_HIST_NB_BUCKETS(sub_bits) * sizeof(uint64_t);
}

int
dp_hist_init(struct dp_hist *h, unsigned int sub_bits)
{
	if (sub_bits > DP_HIST_SUB_BITS_MAX)
		return -EINVAL;
	h->sub_bits = sub_bits;
	h->nb_buckets = DP_HIST_NB_BUCKETS(sub_bits);
	dp_hist_reset(h);
	return 0;
}

struct dp_hist *
dp_hist_create(unsigned int sub_bits)
{
	struct dp_hist *h;

	if (sub_bits > DP_HIST_SUB_BITS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	h = malloc(dp_hist_size(sub_bits));
	if (h == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	dp_hist_init(h, sub_bits);
	return h;
}

void
dp_hist_free(struct dp_hist *h)
{
	free(h);
}

void
dp_hist_reset(struct dp_hist *h)
{
	memset(dp_hist_counts(h), 0, h->nb_buckets * sizeof(uint64_t));
	h->count = 0;
	h->sum = 0;
	h->min = UINT64_MAX;
	h->max = 0;
}

int
dp_hist_merge(struct dp_hist *dst, const struct dp_hist *src)
{
	const uint64_t *from = counts_of(src);
	uint64_t *to = dp_hist_counts(dst);
	unsigned int i;

	if (dst->sub_bits != src->sub_bits || dst->nb_buckets != src->nb_buckets)
		return -EINVAL;
	for (i = 0; i < src->nb_buckets; i++)
		to[i] += from[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
	return 0;
}

uint64_t
dp_hist_percentile(const struct dp_hist *h, uint32_t pcm)
{
	const uint64_t *counts = counts_of(h);
	uint64_t rank, seen = 0, top;
	unsigned int i;

	if (h->count == 0)
		return 0;
	if (pcm >= 100000)
		return h->max;
	/* ceil(count * pcm / 100000), in two parts so that count * pcm cannot overflow */
	rank = h->count / 100000 * pcm + (h->count % 100000 * pcm + 99999) / 100000;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < h->nb_buckets; i++) {
		seen += counts[i];
		if (seen >= rank)
			break;
	}
	/* buckets short of the count: read while another thread records */
	if (i == h->nb_buckets)
		return h->max;
	/* the value is in bucket i and at most the maximum (so never below the minimum) */
	top = dp_hist_bucket_high(i, h->sub_bits);
	return top < h->max ? top : h->max;
}

double
dp_hist_mean(const struct dp_hist *h)
{
	return h->count != 0 ? (double)h->sum / (double)h->count : 0.0;
}

size_t
dp_hist_buckets(const struct dp_hist *h, struct dp_hist_bucket *out, size_t max)
{
	const uint64_t *counts = counts_of(h);
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < h->nb_buckets && n < max; i++) {
		if (counts[i] == 0)
			continue;
		out[n].low = dp_hist_bucket_low(i, h->sub_bits);
		out[n].width = dp_hist_bucket_width(i, h->sub_bits);
		out[n].count = counts[i];
		n++;
	}
	return n;
}

double
dp_hist_bucket_quantile(const struct dp_hist_bucket *b, size_t n, double q)
{
	uint64_t total = 0, seen = 0;
	double rank;
	size_t i;

	for (i = 0; i < n; i++)
		total += b[i].count;
	if (total == 0)
		return -1;
	/* the value below which a fraction q of the samples lie */
	rank = q * (double)total;
	for (i = 0; i < n; i++) {
		if ((double)(seen + b[i].count) >= rank && b[i].count != 0)
			return (double)b[i].low +
			       (double)b[i].width * (rank - (double)seen) / (double)b[i].count;
		seen += b[i].count;
	}
	return (double)(b[n - 1].low + b[n - 1].width);
}
