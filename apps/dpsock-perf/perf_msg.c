/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The clock, the message pattern and its check, the RTT figures (no DPDK).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf.h"

uint64_t perf_hz = 1000000000ull;
uint64_t perf_tick_overhead;
bool perf_single_cpu;

uint64_t
perf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t
perf_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return perf_now_ns();
#endif
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t
perf_clock_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t n0 = perf_now_ns(), t0 = perf_ticks(), n1, t1;
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	n1 = perf_now_ns();
	t1 = perf_ticks();
	perf_hz = (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0));
#else
	perf_hz = 1000000000ull;
#endif
	{
		uint64_t d[101];
		unsigned int i;

		for (i = 0; i < 101; i++) {
			uint64_t a = perf_ticks();

			d[i] = perf_ticks() - a;
		}
		qsort(d, 101, sizeof(d[0]), cmp_u64);
		perf_tick_overhead = d[50];
	}
	return perf_hz;
}

void
perf_relax(void)
{
	if (perf_single_cpu) {
		sched_yield();
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* A byte that depends on its offset only; not periodic over 256 bytes. */
static inline uint8_t
pattern_byte(size_t i)
{
	return (uint8_t)((i * 131u) ^ (i >> 8) ^ (i >> 16));
}

void
perf_pattern_fill(uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern_byte(i);
}

void
perf_msg_stamp(uint8_t *buf, size_t len, uint64_t seq)
{
	memcpy(buf, &seq, sizeof(seq));
	if (len >= 16) {
		uint64_t t = seq ^ PERF_TRAILER_KEY;

		memcpy(buf + len - 8, &t, sizeof(t));
	}
}

/* The reference the body is compared with: the pattern of the largest message. */
static uint8_t *perf_ref;

int
perf_msg_init(void)
{
	if (perf_ref == NULL) {
		perf_ref = malloc(PERF_MAX_SIZE);
		if (perf_ref == NULL)
			return -ENOMEM;
		perf_pattern_fill(perf_ref, PERF_MAX_SIZE);
	}
	return 0;
}

bool
perf_rx_check(struct perf_rx *rx, const uint8_t *buf, size_t len)
{
	struct perf_check *c = &rx->chk;
	uint64_t seq;
	bool good = true;

	if (len < 8) {
		c->msgs++;
		c->bytes += len;
		c->bad_len++;
		return false;
	}
	memcpy(&seq, buf, sizeof(seq));
	rx->last_seq = seq;
	rx->last_end = seq == PERF_SEQ_END;
	if (rx->last_end) {
		c->ends++;
		return false;
	}
	c->msgs++;
	c->bytes += len;
	rx->t_last = perf_ticks();
	if (c->msgs == 1)
		rx->t_first = rx->t_last;
	if (len != rx->size) {
		c->bad_len++;
		good = false;
	} else if (len >= 16) {
		uint64_t t;

		memcpy(&t, buf + len - 8, sizeof(t));
		if (t != (seq ^ PERF_TRAILER_KEY) || memcmp(buf + 8, perf_ref + 8, len - 16) != 0) {
			c->bad_data++;
			good = false;
		}
	}
	if (seq == rx->expect) {
		rx->expect = seq + 1;
	} else if (seq > rx->expect) {
		if (rx->lossy) {
			c->lost += seq - rx->expect;
		} else {
			c->bad_seq++;
			good = false;
		}
		rx->expect = seq + 1;
	} else {
		c->bad_seq++;
		good = false;
	}
	if (good)
		c->ok_bytes += len;
	return good;
}

void
perf_rtt_summary(const struct dp_hist *ticks, struct perf_rtt *out)
{
	memset(out, 0, sizeof(*out));
	if (ticks->count == 0)
		return;
	out->n = ticks->count;
	out->min = perf_ticks_ns(ticks->min) / 1e3;
	out->p50 = perf_ticks_ns(dp_hist_percentile(ticks, 50000)) / 1e3;
	out->p90 = perf_ticks_ns(dp_hist_percentile(ticks, 90000)) / 1e3;
	out->p99 = perf_ticks_ns(dp_hist_percentile(ticks, 99000)) / 1e3;
	out->p999 = perf_ticks_ns(dp_hist_percentile(ticks, 99900)) / 1e3;
	out->max = perf_ticks_ns(ticks->max) / 1e3;
	out->mean = perf_ticks_ns((uint64_t)dp_hist_mean(ticks)) / 1e3;
}
