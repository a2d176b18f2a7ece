/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UDP relay (NAT-style, both directions) on the fast path.
 *
 * A relay service ([relayN] in the config) listens on a local address and
 * UDP port of a dpfwd interface. The first datagram of a client (address,
 * port) opens a session on the worker that received it: one backend, chosen
 * by a hash of the client's address and port, and one relay port from the
 * worker's share of the service's `ports` range. Then:
 *
 *   client:cport -> listen:lport        becomes  source:rport -> backend:bport
 *   backend:bport -> source:rport       becomes  listen:lport -> client:cport
 *
 * Each session is in the worker's own rte_hash twice, once per direction, so
 * one bulk lookup serves a burst of both. Checksums are updated with deltas
 * computed once per session (RFC 1624). Idle sessions expire (lazily on
 * lookup, and by a bounded sweep on the worker); when a worker's share is
 * full the least recently used session makes room (counted as evicted).
 * A backend datagram for a relay port another worker owns is handed to that
 * worker through a ring (counted).
 *
 *   ip4_local --(UDP, relay port map)--> relay4 --> ip4_output
 *   ip6_local --(UDP, relay port map)--> relay6 --> ip6_output
 *   relay_handoff (source: packets from other workers; the sweep) --> relay4/relay6
 */
#ifndef DP_RELAY_H
#define DP_RELAY_H

#include <stdint.h>

#include "dp_config.h"

/** A UDP address: IPv4 (first 4 bytes of @p addr) or IPv6, network order; port in host order. */
struct dp_relay_addr {
	uint8_t addr[16];
	uint16_t port;
	bool ip6;
	struct dp_config_loc loc;
};

#define DP_RELAY_MAX           8   /**< [relay0]..[relay7] */
#define DP_RELAY_MAX_BACKENDS  16  /**< backend = lines per relay */
#define DP_RELAY_TIMEOUT       300 /**< s, as common UDP relays and NATs use */
#define DP_RELAY_TIMEOUT_MEDIA 60  /**< s, profile = media (RTP: frequent packets) */

/**
 * One UDP relay service ([relayN]): clients send to listen; each client
 * (address, port) gets a session whose packets go to one backend from
 * source:port, port taken from [port_lo, port_hi], and the backend's replies to
 * that port go back to the client from listen.
 */
struct dp_relay_config {
	bool defined;
	bool ip6;                    /**< family of listen, source and every backend */
	struct dp_relay_addr listen; /**< a local address of a port */
	bool has_source;
	bool source_ip6;
	uint8_t source[16]; /**< towards backends; default: the listen address */
	struct dp_config_loc source_loc;
	struct dp_relay_addr backends[DP_RELAY_MAX_BACKENDS];
	uint16_t nb_backends;
	uint16_t port_lo, port_hi; /**< relay ports (on the source address), split per worker */
	struct dp_config_loc ports_loc;
	uint32_t timeout_s;    /**< a session idle this long expires */
	bool timeout_set;      /**< timeout given: profile does not change it */
	uint32_t max_sessions; /**< 0 = as many as relay ports */
	struct dp_config_loc max_loc;
	struct dp_config_loc loc; /**< the section's first key */
};

/** The config sections [relay0].. (struct dp_module's sections): relay_config.c. */
extern struct dp_config_section dp_relay_section;

/**
 * [relay@p i] of @p cfg (its @c defined says whether the section is there), or NULL
 * when @p i is not below DP_RELAY_MAX.
 */
const struct dp_relay_config *dp_relay_config(const struct dp_config *cfg, unsigned int i);

/** Counters of one worker (each written only by its worker). */
struct dp_relay_stats {
	uint64_t sessions_active; /**< sessions in the worker's table now */
	uint64_t created;
	uint64_t expired;  /**< idle longer than the service's timeout */
	uint64_t evicted;  /**< the least recently used one, for a new session, table full */
	uint64_t handoffs; /**< backend packets handed to the worker owning the relay port */
	uint64_t handoffs_in;
	uint64_t to_backend; /**< packets rewritten client -> backend */
	uint64_t to_client;  /**< packets rewritten backend -> client */
};

/**
 * Control lcore, before dp_graph_workers_create(): the services of @p cfg
 * (validated), a session table per worker lcore of the config, the hand-off
 * rings (more than one worker), and the UDP port map ip4_local/ip6_local
 * consult. Nothing is allocated when the config has no [relayN].
 * @return 0, -ENOMEM, -EINVAL (message with file:line in @p err: a worker
 *         would own no relay port).
 */
int dp_relay_init(const struct dp_config *cfg, char *err, size_t errlen);

/**
 * After dp_ctl_init(): have dp_ctl_stop() free what the hand-off rings hold.
 * @return 0 or -ENOSPC.
 */
int dp_relay_start(void);

/** Free the tables and rings, free what the rings hold; clear the port map. */
void dp_relay_fini(void);

/** Number of services configured (0: the relay is off). */
unsigned int dp_relay_nb_services(void);

/** Counters of worker @p worker (index) into @p st. @return 0 or -ENOENT. */
int dp_relay_stats_get(uint16_t worker, struct dp_relay_stats *st);

/** Sum of every worker's counters into @p st. */
void dp_relay_stats_sum(struct dp_relay_stats *st);

/**
 * The relay port a worker gives its session number @p slot in service @p svc
 * (tests, diagnostics). @return the port, or 0 when out of range.
 */
uint16_t dp_relay_port_of(unsigned int svc, uint16_t worker, uint32_t slot);

/** Sessions a worker may hold for service @p svc (its share of max_sessions). */
uint32_t dp_relay_worker_capacity(unsigned int svc, uint16_t worker);

/**
 * Move the relay's clock (the coarse seconds that aging uses) forward by @p s
 * seconds: for tests of expiry without sleeping.
 */
void dp_relay_clock_advance(uint32_t s);

/** Register the "relay" telemetry section (/dpfwd/relay/stats). @return 0 or -errno. */
int dp_relay_telemetry_register(void);

/** Give relay4 and relay4_shortcut their trace lines (dp_trace.h). @return 0 or -errno. */
int dp_relay_trace_register(void);

#endif /* DP_RELAY_H */
