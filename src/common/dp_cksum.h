/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Incremental Internet checksum update (RFC 1624).
 *
 * DPDK's rte_net/rte_ip helpers compute checksums from scratch; none updates
 * one in place when a single 16-bit word changes, which is what a router does
 * on every packet (TTL decrement) and a relay on every rewrite. So it is here.
 */
#ifndef DP_CKSUM_H
#define DP_CKSUM_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

/**
 * Fold a 32-bit one's complement accumulator to 16 bits, end-around carry
 * included (two folds are always enough for a sum of a few 16-bit words).
 */
static inline uint16_t
dp_cksum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/**
 * One's complement sum of two 16-bit words: their sum with the carry added
 * back (an add and an add-with-carry). Never 0 unless both are 0.
 */
static inline uint16_t
dp_cksum_add16(uint16_t a, uint16_t b)
{
	uint16_t sum;
	const bool carry = __builtin_add_overflow(a, b, &sum);

	return (uint16_t)(sum + carry);
}

/**
 * One's complement sum of the two 16-bit halves of @p x: the high half of
 * x + (x rotated by 16), whose low half's carry is the end-around one.
 * Never 0 unless x is.
 */
static inline uint16_t
dp_cksum_add_halves(uint32_t x)
{
	return (uint16_t)((x + (x << 16 | x >> 16)) >> 16);
}

/**
 * RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m').
 *
 * All three values in the same byte order (network order as read from the
 * header works: one's complement addition is byte-order independent).
 * Eqn. 3 never produces 0xffff from a valid checksum of a non-zero header,
 * unlike the older RFC 1141 form ~(HC - m + m') evaluated in two's complement.
 */
static inline uint16_t
dp_cksum_update16(uint16_t cksum, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~cksum;

	sum += (uint16_t)~old_word;
	sum += new_word;
	return (uint16_t)~dp_cksum_fold(sum);
}

/**
 * The checksum after a TTL decrement, from the checksum field as stored
 * (network order). Same result as dp_cksum_update16() with the (TTL, protocol)
 * word for any TTL > 0, with fewer operations and without reading that word:
 * the word drops by 0x0100, so the checksum rises by 0x0100 in one's
 * complement (RFC 1624 section 3), and 0xffff is written 0x0000, the value
 * eqn. 3 gives (it never yields 0xffff). The sum is taken on the field as
 * loaded, without swapping its bytes: one's complement addition does not
 * depend on byte order (RFC 1071 section 2(B)), and 0x0100 in network order
 * is 1 in the host's (little-endian) view, where the end-around carry out of
 * the network-order high byte is the ordinary carry into the next byte.
 */
static inline uint16_t
dp_cksum_ttl_dec(uint16_t cksum_be)
{
	uint32_t c = (uint32_t)cksum_be + RTE_BE16(0x0100);

	c = (c & 0xffff) + (c >> 16);
	return (uint16_t)(c == 0xffff ? 0 : c);
}

/** Same for a 32-bit field (an address): two 16-bit updates in one fold. */
static inline uint16_t
dp_cksum_update32(uint16_t cksum, uint32_t old_word, uint32_t new_word)
{
	uint32_t sum = (uint16_t)~cksum;

	sum += (uint16_t) ~(old_word >> 16);
	sum += (uint16_t) ~(old_word & 0xffff);
	sum += new_word >> 16;
	sum += new_word & 0xffff;
	return (uint16_t)~dp_cksum_fold(sum);
}

/**
 * One's complement sum of an IPv4 header of @p ihl_words 32-bit words, folded.
 * A header with a correct checksum sums to 0xffff (RFC 1071). Summing 32-bit
 * words into 64 bits and folding once is the same sum as 16-bit words, with
 * fewer additions than DPDK's generic rte_raw_cksum() for 20 bytes.
 */
static inline uint16_t
dp_cksum_ip4_hdr_sum(const void *hdr, unsigned int ihl_words)
{
	const uint8_t *p = hdr;
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < ihl_words; i++) {
		uint32_t w;

		__builtin_memcpy(&w, p + 4 * i, sizeof(w));
		sum += w;
	}
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	return dp_cksum_fold((uint32_t)(sum & 0xffff) + (uint32_t)(sum >> 16));
}

/**
 * Is the checksum of an option-less IPv4 header (20 bytes) right? The same
 * answer as dp_cksum_ip4_hdr_sum(@p hdr, 5) == 0xffff for a header whose
 * first byte is not 0 (the caller checked the version), in half the
 * operations: as 2^16 is 1 modulo 0xffff, a one's complement sum is the plain
 * sum of the 16-bit words modulo 0xffff (a non-zero multiple read as 0xffff),
 * so it is 0xffff exactly when the plain sum is a non-zero multiple of
 * 0xffff; the plain sum modulo 0xffff is that of the header's two 64-bit
 * words and last 32-bit one with the carries out of 64 bits added back in
 * (2^64 is 1 modulo 0xffff as well), which is not zero for a header that is
 * not. The compiler tests divisibility by the constant with one
 * multiplication and one comparison. A header with options takes
 * dp_cksum_ip4_hdr_sum().
 */
static inline bool
dp_cksum_ip4_hdr20_ok(const void *hdr)
{
	const uint8_t *p = hdr;
	uint64_t a, b, s;
	uint32_t c;

	__builtin_memcpy(&a, p, sizeof(a));
	__builtin_memcpy(&b, p + 8, sizeof(b));
	__builtin_memcpy(&c, p + 16, sizeof(c));
	s = a + b;
	s += s < a; /* no second carry: after one, s < b */
	s += c;
	s += s < c;
	return s % 0xffff == 0;
}

#endif /* DP_CKSUM_H */
