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
 * The relay's bits are written by the control lcore before the workers start
 * (and cleared after they stop); endpoints' bits come and go while they run
 * (atomic word updates, below). Read by the workers.
 */
#ifndef DP_FWD_LOCAL_H
#define DP_FWD_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

/** UDP ports (host order) wanted over IPv4, bit p % 64 of word p / 64. */
extern uint64_t dp_fwd_local_udp4[65536 / 64];
/** The same over IPv6. */
extern uint64_t dp_fwd_local_udp6[65536 / 64];

/**
 * Of the ports above, those an endpoint (src/endpoint) has bound: their UDP goes
 * to endpoint4_rx / endpoint6_rx, the other set ports' to the relay. Changed
 * while the workers run, with atomic word updates, by the endpoint server
 * (which publishes the endpoint before it sets the bit and clears the bit
 * before it waits for the workers and frees the endpoint).
 */
extern uint64_t dp_fwd_local_ep4[65536 / 64];
extern uint64_t dp_fwd_local_ep6[65536 / 64];

/**
 * Non-zero when endpoints are on: fragments to the router's addresses go to
 * endpoint4_rx / endpoint6_rx, which reassemble them, instead of being
 * dropped (ip4_fragment_local). Set before the workers start.
 */
extern uint8_t dp_fwd_local_reasm;

/** Is UDP port @p port (host order) taken in @p map? */
static inline bool
dp_fwd_local_udp_wanted(const uint64_t *map, uint16_t port)
{
	return (map[port >> 6] >> (port & 63)) & 1;
}

/** Where a local IPv4 UDP datagram (not a fragment) goes, by its destination port. */
enum dp_fwd_local_udp {
	DP_FWD_LOCAL_UDP_NONE,     /**< no service: the router's rule (a drop) */
	DP_FWD_LOCAL_UDP_RELAY,    /**< relay4 (which checks the address) */
	DP_FWD_LOCAL_UDP_ENDPOINT, /**< endpoint4_rx */
};

/**
 * The service of @p ip's UDP datagram (@p ip: an IPv4 header whose protocol
 * is UDP; the port is read even from a short frame, inside the data room: the
 * services check the UDP header's length). For ip4_local, and for ip4_fwd,
 * which sends the relay's and the endpoints' datagrams to them itself.
 */
static inline enum dp_fwd_local_udp
dp_fwd_local_udp4_service(const uint8_t *ip)
{
	const uint8_t *udp = ip + (ip[0] & 0xf) * 4;
	const uint16_t port = (uint16_t)(udp[2] << 8 | udp[3]);

	if (!dp_fwd_local_udp_wanted(dp_fwd_local_udp4, port))
		return DP_FWD_LOCAL_UDP_NONE;
	return dp_fwd_local_udp_wanted(dp_fwd_local_ep4, port) ? DP_FWD_LOCAL_UDP_ENDPOINT
							       : DP_FWD_LOCAL_UDP_RELAY;
}

/** Mark UDP port @p port taken (or free, @p on false) in @p map while workers read it. */
static inline void
dp_fwd_local_udp_set_atomic(uint64_t *map, uint16_t port, bool on)
{
	const uint64_t bit = UINT64_C(1) << (port & 63);

	if (on)
		__atomic_fetch_or(&map[port >> 6], bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&map[port >> 6], ~bit, __ATOMIC_RELEASE);
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
