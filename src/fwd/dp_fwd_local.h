/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Which UDP destination ports local services take (the UDP relay now, the
 * endpoints later): one bit per port and family, consulted by ip4_local and
 * ip6_local for every UDP packet to one of the router's addresses. A set bit
 * sends the packet to the service's node, which checks the address too; a
 * clear bit keeps the router's rule (no service: dropped as ip4_local or
 * ip6_local). One load and a bit test: no hashing for packets no service wants.
 *
 * Written by the control lcore before the workers start (and cleared after they
 * stop); read by the workers.
 */
#ifndef DP_FWD_LOCAL_H
#define DP_FWD_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

/** UDP ports (host order) wanted over IPv4, bit p % 64 of word p / 64. */
extern uint64_t dp_fwd_local_udp4[65536 / 64];
/** The same over IPv6. */
extern uint64_t dp_fwd_local_udp6[65536 / 64];

/** Is UDP port @p port (host order) taken in @p map? */
static inline bool
dp_fwd_local_udp_wanted(const uint64_t *map, uint16_t port)
{
	return (map[port >> 6] >> (port & 63)) & 1;
}

/** Mark UDP ports @p lo..@p hi (host order, inclusive) as taken in @p map. */
static inline void
dp_fwd_local_udp_set(uint64_t *map, uint16_t lo, uint16_t hi)
{
	uint32_t p;

	for (p = lo; p <= hi; p++)
		map[p >> 6] |= UINT64_C(1) << (p & 63);
}

#endif /* DP_FWD_LOCAL_H */
