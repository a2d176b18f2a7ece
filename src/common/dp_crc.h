/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * One CRC32-C step over a 64-bit word, as rte_hash_crc_8byte() computes it (the
 * same values), with the instruction itself where the build targets it (DPDK's
 * own -march for x86 has SSE4.2). rte_hash_crc_8byte() reads which CRC code to
 * use from a global on every call: on a fast path, a load, a compare and a
 * branch per word.
 */
#ifndef DP_CRC_H
#define DP_CRC_H

#include <stdint.h>

#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

#include <rte_common.h>
#include <rte_hash_crc.h>

static __rte_always_inline uint32_t
dp_crc32c_u64(uint64_t w, uint32_t h)
{
#ifdef __SSE4_2__
	return (uint32_t)_mm_crc32_u64(h, w);
#else
	return rte_hash_crc_8byte(w, h);
#endif
}

#endif /* DP_CRC_H */
