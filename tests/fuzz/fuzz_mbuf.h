/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffers for the fuzz targets that feed frames to the datapath (fuzz_datapath,
 * fuzz_relay): a segment holding input bytes, and the tail of its data room
 * poisoned for ASan. Out-of-bounds reads inside an mbuf are invisible to ASan
 * (the data room is mempool memory, not malloc'd): from FUZZ_POISON_SLACK bytes
 * after the start of the data (the slack the fast path may read from a short
 * frame, and the most the control lcore writes into a recycled buffer) to the
 * end of the room is poisoned while the input is processed.
 */
#ifndef DP_TEST_FUZZ_MBUF_H
#define DP_TEST_FUZZ_MBUF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "dp_mem.h"

#define FUZZ_POISON_SLACK 128

/* A poisoned range, remembered as it was: processing moves data_off and data_len. */
struct fuzz_poisoned {
	uint8_t *addr;
	size_t len;
};

/* Poison the tail of @p s's data room; the range (empty if none) for fuzz_unpoison(). */
static inline struct fuzz_poisoned
fuzz_poison_tail(const struct rte_mbuf *s)
{
	uint32_t from = s->data_off + RTE_MAX((uint32_t)s->data_len, (uint32_t)FUZZ_POISON_SLACK);
	struct fuzz_poisoned p = { NULL, 0 };

	if (from < s->buf_len) {
		p.addr = (uint8_t *)s->buf_addr + from;
		p.len = s->buf_len - from;
		ASAN_POISON_MEMORY_REGION(p.addr, p.len);
	}
	return p;
}

/* The buffers are back in the pool or held: their memory is the pool's again. */
static inline void
fuzz_unpoison(const struct fuzz_poisoned *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ASAN_UNPOISON_MEMORY_REGION(p[i].addr, p[i].len);
}

/* A segment from the packet pool holding @p len bytes of @p p; @p who aborts if none. */
static inline struct rte_mbuf *
fuzz_seg_new(const char *who, const uint8_t *p, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp_mem_pool_get(0));

	if (m == NULL || rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		fprintf(stderr, "%s: no mbuf for %zu bytes\n", who, len);
		abort();
	}
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), p, len);
	return m;
}

#endif /* DP_TEST_FUZZ_MBUF_H */
