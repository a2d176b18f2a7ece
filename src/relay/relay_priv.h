/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UDP relay internals shared by the control path (relay.c) and the nodes
 * (relay_node.c): services, sessions, the per-worker table, and the inline
 * rewrite.
 *
 * One worker's sessions, service s taking slots [base, base + cap):
 *
 *   slot i  <->  relay port  svc.port_lo + worker * svc.per_worker + i
 *
 * so a free slot is a free port, and the owner of a relay port is
 * (port - port_lo) / per_worker. Each session is in the worker's rte_hash
 * under two keys, data = slot << 1 | direction:
 *
 *   direction 0 (to the backend): {client, cport, listen, lport}
 *   direction 1 (to the client):  {backend, bport, source, rport}
 *
 * Slots in use form an LRU list per service (oldest at the head), moved at
 * most once per second per session (last_seen is in whole seconds); free
 * slots form a free list through the same link.
 */
#ifndef RELAY_PRIV_H
#define RELAY_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "dp_cksum.h"
#include "dp_crc.h"
#include "dp_config.h"
#include "dp_fwd.h"
#include "dp_relay.h"

struct dp_worker_txq;

#define RELAY_NIL UINT32_MAX
/** TTL / hop limit of relayed packets as they leave: the relay is their new source. */
#define RELAY_TTL 64
/** Sessions the sweep looks at per call, at most. */
#define RELAY_SWEEP_MAX 32
/** The sweep and the clock run every this many calls of relay_handoff (a power of two). */
#define RELAY_TICK_CALLS   16
#define RELAY_HANDOFF_RING 1024

/** A hash key: one direction of one session, as the packet carries it. */
struct relay_key {
	uint8_t remote[16]; /**< the packet's source address (IPv4: first 4 bytes) */
	uint8_t local[16];  /**< its destination, an address of dpfwd */
	rte_be16_t rport;   /**< source port */
	rte_be16_t lport;   /**< destination port */
	uint8_t ip6;
	uint8_t pad
		[11]; /* to 48: rte_hash compares 48-byte keys with vector code, 40 with memcmp() */
};
_Static_assert(sizeof(struct relay_key) == 48, "relay_key: no hole, a vector-compared size");

/**
 * The same key as the IPv4 table holds it. IPv4 sessions have a table of
 * their own with 16-byte keys: rte_hash hashes a key in 8-byte CRC32 steps
 * (2 instead of 6) and compares it in one 16-byte vector compare; the rest
 * of the lookup (buckets, signatures) is the same for any key size.
 */
struct relay_key4 {
	rte_be32_t remote;
	rte_be32_t local;
	rte_be16_t rport;
	rte_be16_t lport;
	uint32_t pad;
};
_Static_assert(sizeof(struct relay_key4) == 16, "relay_key4: no hole");

static inline void
relay_key4_of(const struct relay_key *k, struct relay_key4 *k4)
{
	memcpy(&k4->remote, k->remote, 4);
	memcpy(&k4->local, k->local, 4);
	k4->rport = k->rport;
	k4->lport = k->lport;
	k4->pad = 0;
}

static inline void
relay_key_of4(const struct relay_key4 *k4, struct relay_key *k)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->remote, &k4->remote, 4);
	memcpy(k->local, &k4->local, 4);
	k->rport = k4->rport;
	k->lport = k4->lport;
}

/** The IPv4 (TTL, protocol) word of a relayed datagram, as loaded (little-endian). */
#define RELAY_IP4_TTL_PROTO (RELAY_TTL | IPPROTO_UDP << 8)

/**
 * What one direction of a session makes of a packet; all network order.
 * The exact-match caches hold a copy for ip4_fwd's and ip6_fwd's shortcut.
 */
struct relay_dir {
	rte_be16_t sport;
	rte_be16_t dport;
	/**
	 * IPv4 header: sum of ~old + new over the address words, plus the new
	 * (TTL, protocol) word RELAY_IP4_TTL_PROTO, folded (RFC 1624): a packet
	 * adds its old checksum and its old (TTL, protocol) word, both inverted
	 */
	uint16_t ip_delta;
	/** UDP: the sum of ~old + new over the pseudo-header addresses and the two ports */
	uint16_t l4_delta;
	/**
	 * The next hop of dst as last found (the route's, or for an on-link
	 * destination its neighbor's), valid while dp_fwd.path_gen is still
	 * nh_gen (0: not looked up yet). A resolved one sends the packet with
	 * no lookup at all; its MAC is read from the next hop, which the
	 * neighbor code updates in place and never frees.
	 */
	uint32_t nh;
	uint32_t nh_gen;
	uint8_t src[16];
	uint8_t dst[16];
};
_Static_assert(sizeof(struct relay_dir) == 48, "relay_dir: no hole");

/*
 * The exact-match cache in front of the IPv4 table (OVS's EMC, VPP's flow
 * cache): 4-way set-associative, each entry holding a key and its data
 * (slot << 1 | direction). A key's ways are the pair of entries its hash
 * picks (a 128-byte aligned pair of IPv4 lines, which the L2's spatial
 * prefetcher fetches together) and, when the pair is full, the pair beside
 * it (its buddy: the index's lowest bit flipped), which holds that pair's own
 * keys first. A hit in the first pair costs one CRC32 hash (of the
 * addresses; the ports are added: relay_emc_index()), one or two loads and
 * 16-byte compares; only a key beyond it costs the buddy's two compares. The
 * sets of four overlap rather than sit side by side: sets of four entries
 * in a row would leave the first pairs on every other 128-byte block, half
 * the L2's sets. rte_hash's bulk lookup walks two buckets, compares
 * signatures and then the key from its key store, whatever the table holds.
 * rte_hash has no such cache (its lookups are always the full walk), hence
 * this one. rte_hash stays the table: the cache is filled only from what the
 * table returned, and a session's two keys leave it when the session is
 * freed (relay_emc_forget), so a stale entry can never send a packet to the
 * slot's next session. A key the cache cannot hold costs a table lookup,
 * and with it a pass through relay4 (a node of its own, called for a few
 * packets, which costs as much as several cache misses). Four ways hold
 * every key of a set but the fifth, which relay4 then takes
 * (relay_emc_place()). The cache has 8 entries a session slot (rounded up to
 * a power of two), 4 a key: keys land in pairs as a Poisson count, and with
 * the table full and both keys of each session in use, about 1.3 % of the
 * keys are beyond their first pair and 0.4 % beyond its buddy too.
 *
 * An entry is also all that ip4_fwd's shortcut needs to send a packet of its
 * key: a copy of what the direction writes (addresses, ports, checksum
 * deltas), the next hop's MACs and the worker's TX buffer for its port,
 * made by relay4 as it sends a packet of the key (relay_emc_arm()), with
 * the second and the path generation it did so in (ready). The shortcut
 * takes an entry whose ready word is this second's and this generation's:
 * seen this second means the session was too (its last_seen is at least
 * that second, so it is not idle and its LRU place needs no move); the same
 * generation means no route and no next hop's MAC or resolution changed
 * since (dp_fwd.path_gen), so the copy is still what relay4 would write
 * (a direction changes only its next hop). One compare for all of it; the
 * next hop's own line is not read.
 */
struct relay_emc_entry {
	struct relay_key4 key;
	uint32_t v;        /**< slot << 1 | direction, or RELAY_NIL when empty */
	uint16_t ip_delta; /**< relay_dir's */
	uint16_t l4_delta;
	/** relay_emc_ready_word() when relay4 last sent with it; 0: not since filled */
	uint64_t ready;
	rte_be32_t addrs[2];                /**< source, destination: the IPv4 header's 8 bytes */
	rte_be16_t ports[2];                /**< source, destination: the UDP header's first 4 */
	uint8_t l2[2 * RTE_ETHER_ADDR_LEN]; /**< destination and source MAC */
	struct dp_worker_txq *txq;          /**< the worker's TX buffer for the next hop's port */
};
_Static_assert(sizeof(struct relay_emc_entry) == 64, "relay_emc_entry: a cache line");
_Static_assert(
	offsetof(struct relay_emc_entry, ports) == offsetof(struct relay_emc_entry, addrs) + 8,
	"relay_emc_entry: addresses and ports as the option-less headers have them");

/** An entry's ready word for relay clock @p now and path generation @p gen (never 0). */
static __rte_always_inline uint64_t
relay_emc_ready_word(uint32_t now, uint32_t gen)
{
	return (uint64_t)gen << 32 | now;
}

/** Entries a key may be in: its pair and the pair beside it. */
#define RELAY_EMC_WAYS 4
/** Entries of a pair, side by side; a key's hash picks a pair. */
#define RELAY_EMC_PAIR 2
/** Cache entries per session slot (two keys, a cache a quarter full), and the bounds. */
#define RELAY_EMC_PER_SLOT 8
#define RELAY_EMC_MIN      256u
#define RELAY_EMC_MAX      (1u << 18) /* a worker: 16 MiB for IPv4, 32 for IPv6 */

/*
 * Where a key goes in a cache: a CRC32-C of its addresses, plus its two ports
 * in host order (@p ports: the UDP header's first word as loaded). Added, not
 * hashed, the ports keep the keys of one pair of addresses that differ in a
 * port in consecutive entries: every session's key from its backend (the
 * relay ports a worker hands out are a run) and the many source ports of one
 * client host (a NAT, a media server's port range, a traffic generator). Such
 * keys (fewer than the cache's sets) never share a set, and they share pages,
 * where with the ports in the CRC each entry would cost an address
 * translation of its own in a cache of several MiB. Keys of other
 * address pairs land as their CRC puts them (relay-pps's "hosts" column).
 */
static __rte_always_inline uint32_t
relay_emc_index(uint32_t crc, uint32_t ports)
{
	const uint32_t p = rte_be_to_cpu_32(ports); /* local port | remote port << 16 */

	return crc + (p & 0xffff) + (p >> 16);
}

/** The hash of an IPv4 key, given as its 2 words (as relay_emc6_hash_w()). */
static inline uint32_t
relay_emc_hash_w(const uint64_t w[2])
{
	return relay_emc_index(dp_crc32c_u64(w[0], 0), (uint32_t)w[1]);
}

static inline uint32_t
relay_emc_hash(const struct relay_key4 *k)
{
	uint64_t w[2];

	memcpy(w, k, sizeof(w));
	return relay_emc_hash_w(w);
}

/** Is @p a the key given as 2 words @p w? */
static inline bool
relay_key4_eq_w(const struct relay_key4 *a, const uint64_t w[2])
{
	uint64_t x[2];

	memcpy(x, a, sizeof(x));
	return ((x[0] ^ w[0]) | (x[1] ^ w[1])) == 0;
}

static inline bool
relay_key4_eq(const struct relay_key4 *a, const struct relay_key4 *b)
{
	uint64_t w[2];

	memcpy(w, b, sizeof(w));
	return relay_key4_eq_w(a, w);
}

/*
 * The same cache in front of the IPv6 table, two cache lines an entry: the
 * key's first 40 bytes as words (its last 8, ip6 and padding, are the same
 * in every IPv6 key, so the hash and the compare take the first 40), data,
 * and what ip6_fwd's shortcut needs as in the IPv4 cache. The first line
 * holds all that the shortcut tests (key, ready), the second what it writes.
 */
struct relay_emc6_entry {
	uint64_t key[5];
	uint32_t v; /**< slot << 1 | direction, or RELAY_NIL when empty */
	uint16_t l4_delta;
	uint16_t pad0;
	uint64_t ready; /**< as the IPv4 cache's */
	struct dp_worker_txq *txq;
	uint8_t src[16];
	uint8_t dst[16];
	rte_be16_t ports[2];
	uint8_t l2[2 * RTE_ETHER_ADDR_LEN];
	uint8_t pad[16];
} __rte_aligned(64);
_Static_assert(sizeof(struct relay_emc6_entry) == 128, "relay_emc6_entry: two cache lines");
_Static_assert(offsetof(struct relay_emc6_entry, ready) < 64, "relay_emc6_entry: tests in line 0");

/** The hash of an IPv6 key's first 40 bytes, given as 5 words: its
 * addresses' CRC and its ports (relay_emc_index()). */
static inline uint32_t
relay_emc6_hash_w(const uint64_t w[5])
{
	uint32_t h = 0;
	unsigned int i;

	for (i = 0; i < 4; i++)
		h = dp_crc32c_u64(w[i], h);
	return relay_emc_index(h, (uint32_t)w[4]);
}

static inline uint32_t
relay_emc6_hash(const struct relay_key *k)
{
	uint64_t w[5];

	memcpy(w, k, sizeof(w));
	return relay_emc6_hash_w(w);
}

/** Are the 5 words of @p a those of @p b? (an IPv6 key in the cache) */
static inline bool
relay_key6_eq_w(const uint64_t a[5], const uint64_t b[5])
{
	uint64_t d = 0;
	unsigned int i;

	for (i = 0; i < 5; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/**
 * A session, one cache line per direction (the array is cache-aligned): a
 * packet to the backend reads the first line only (its last-seen second and
 * dir[0]); one to the client, the first line's last_seen and the second.
 */
struct relay_session {
	uint32_t last_seen; /**< relay clock, seconds */
	uint32_t timeout_s;
	struct relay_dir d0;         /**< to the backend */
	uint32_t lru_prev, lru_next; /**< slots; lru_next is the free list link when free */
	struct relay_dir d1;         /**< to the client */
	uint8_t svc;
	uint8_t in_use;
	uint8_t ip6;
	uint8_t backend;
} __rte_aligned(64);
_Static_assert(sizeof(struct relay_session) == 128, "relay_session: two cache lines");

/** Direction @p d (0: to the backend, 1: to the client) of session @p s. */
static inline struct relay_dir *
relay_sess_dir(struct relay_session *s, unsigned int d)
{
	return d != 0 ? &s->d1 : &s->d0;
}

/** A service as the workers read it (copied from the config at init). */
struct relay_svc {
	bool ip6;
	uint8_t listen[16];
	rte_be16_t listen_port;
	uint8_t source[16];
	uint16_t port_lo, port_hi; /**< host order */
	uint32_t per_worker;       /**< relay ports each worker owns */
	uint32_t cap;              /**< sessions each worker may hold */
	uint32_t timeout_s;
	uint16_t nb_backends;
	struct {
		uint8_t addr[16];
		rte_be16_t port;
	} backends[DP_RELAY_MAX_BACKENDS];
};

/** One service's slots on one worker. */
struct relay_wsvc {
	uint32_t base;               /**< first slot */
	uint32_t cap;                /**< slots */
	uint16_t port0;              /**< relay port of slot base (host order) */
	uint32_t free_head;          /**< free slots, linked by lru_next */
	uint32_t lru_head, lru_tail; /**< in use, least recently seen first */
};

/** One worker's relay state, written only by that worker (the stats read by telemetry). */
struct relay_worker {
	struct rte_hash *h4;           /**< IPv4 sessions, struct relay_key4 */
	struct rte_hash *h6;           /**< IPv6 sessions, struct relay_key */
	struct relay_emc_entry *emc;   /**< in front of h4 (NULL: none) */
	uint32_t emc_mask;             /**< its pairs (of RELAY_EMC_PAIR entries) - 1 */
	struct relay_emc6_entry *emc6; /**< in front of h6 (NULL: none) */
	uint32_t emc6_mask;
	struct relay_session *sess;
	uint32_t now_s;           /**< from the TSC, whole seconds since init */
	uint32_t calls;           /**< of relay_handoff, for the tick */
	uint64_t next_tick_tsc;   /**< when now_s moves on */
	struct rte_ring *handoff; /**< packets from other workers (multi-producer) */
	uint16_t index;
	uint32_t nb_slots;
	/** relay_addr_bit() of the IPv4 / IPv6 services' listen and source
	 * addresses: 0 for a family without a cache */
	uint64_t addrs4, addrs6;
	struct relay_wsvc svc[DP_RELAY_MAX];
	struct dp_relay_stats stats;
} __rte_cache_aligned;

/*
 * A filter of the relay's own addresses, so that ip4_fwd and ip6_fwd try the
 * cache before the route lookup only for datagrams that may be the relay's:
 * one bit of 64 for each address, chosen by its last 6 bits (host numbers
 * differ there first; a bit test takes the number mod 64 itself, with no
 * hash to compute). A datagram to
 * another address that maps to a set bit costs one probe of the cache, which
 * misses. (Skipping the lookup is right:
 * a cache entry's local address is a relay's, which is a port address, and
 * the route to a port address is the router itself for as long as dpfwd runs,
 * as route.c keeps it.)
 */
static __rte_always_inline unsigned int
relay_addr_bit_nr(uint32_t a)
{
	return a & 63;
}

static __rte_always_inline uint64_t
relay_addr_bit(uint32_t a)
{
	return UINT64_C(1) << relay_addr_bit_nr(a);
}

static __rte_always_inline rte_be32_t
relay_be32(const uint8_t *p)
{
	rte_be32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* An IPv6 address's last 32 bits, host order: what relay_addr_bit() takes of it. */
static __rte_always_inline uint32_t
relay_addr6_tail(const uint8_t a[16])
{
	return rte_be_to_cpu_32(relay_be32(a + 12));
}

static __rte_always_inline bool
relay_addr_maybe(uint64_t addrs, uint32_t a)
{
	/* the bit's number, then a shift of the set (a bit test), not the
	 * bit made and masked */
	return (addrs >> relay_addr_bit_nr(a) & 1) != 0;
}

/** A key of either family: the IPv6 table's, or the IPv4 table's. */
union relay_anykey {
	struct relay_key k;   /**< IPv6 */
	struct relay_key4 k4; /**< IPv4 */
};

/* The exact-match cache of @p v6's family: whether the worker has one, the
 * entries (their index in rw->emc or rw->emc6) that may hold a key, which
 * one does, which one a key goes into, and writing an entry. */
static __rte_always_inline bool
relay_emc_on(const struct relay_worker *rw, const bool v6)
{
	return v6 ? rw->emc6 != NULL : rw->emc != NULL;
}

/** The first entry of @p k's pair (relay_emc_way() gives its set's others). */
static __rte_always_inline uint32_t
relay_emc_set_of(const struct relay_worker *rw, const union relay_anykey *k, const bool v6)
{
	return (v6 ? relay_emc6_hash(&k->k) & rw->emc6_mask
		   : relay_emc_hash(&k->k4) & rw->emc_mask) *
	       RELAY_EMC_PAIR;
}

/** Way @p w (0..RELAY_EMC_WAYS - 1) of the set whose first entry is @p set. */
static __rte_always_inline uint32_t
relay_emc_way(uint32_t set, uint32_t w)
{
	return w < RELAY_EMC_PAIR ? set + w : (set ^ RELAY_EMC_PAIR) + w - RELAY_EMC_PAIR;
}

/** Does entry @p i hold key @p k? (An empty one holds none.) */
static __rte_always_inline bool
relay_emc_holds(
	const struct relay_worker *rw, uint32_t i, const union relay_anykey *k, const bool v6)
{
	if (v6) {
		const struct relay_emc6_entry *e = &rw->emc6[i];
		uint64_t w[5];

		memcpy(w, &k->k, sizeof(w));
		return e->v != RELAY_NIL && relay_key6_eq_w(e->key, w);
	}
	const struct relay_emc_entry *e = &rw->emc[i];

	return e->v != RELAY_NIL && relay_key4_eq(&e->key, &k->k4);
}

/** The entry of the set starting at @p set that holds @p k, or RELAY_NIL. */
static __rte_always_inline uint32_t
relay_emc_find_in(
	const struct relay_worker *rw, uint32_t set, const union relay_anykey *k, const bool v6)
{
	uint32_t w;

	for (w = 0; w < RELAY_EMC_WAYS; w++)
		if (relay_emc_holds(rw, relay_emc_way(set, w), k, v6))
			return relay_emc_way(set, w);
	return RELAY_NIL;
}

/** The entry holding @p k, or RELAY_NIL. */
static __rte_always_inline uint32_t
relay_emc_find(const struct relay_worker *rw, const union relay_anykey *k, const bool v6)
{
	return relay_emc_find_in(rw, relay_emc_set_of(rw, k, v6), k, v6);
}

/** What entry @p i holds: slot << 1 | direction, or RELAY_NIL. */
static __rte_always_inline uint32_t
relay_emc_data(const struct relay_worker *rw, uint32_t i, const bool v6)
{
	return v6 ? rw->emc6[i].v : rw->emc[i].v;
}

/**
 * The entry for @p k to go into: the one holding it, else an empty one of its
 * set, else the one whose ready word is the oldest (relay_emc_arm() writes it
 * at least once a second for a key in use: the shortcut takes an entry only
 * in the second it was armed, and relay4 arms it again after; so that is the
 * entry least recently used, by the second, and one never armed goes first);
 * RELAY_NIL when that one too was armed under @p ready (this second, this path
 * generation: every way of the set is in use now). The key then stays out,
 * and relay4 takes its packets: three keys in use in one set would otherwise
 * evict one another at every packet, and two of them, not one, would miss
 * the shortcut. In the next second the first two keys to come take the set.
 */
static inline uint32_t
relay_emc_place(
	const struct relay_worker *rw, const union relay_anykey *k, uint64_t ready, const bool v6)
{
	const uint32_t set = relay_emc_set_of(rw, k, v6);
	uint32_t w, victim = relay_emc_find_in(rw, set, k, v6);
	uint64_t oldest = UINT64_MAX;

	/* (a key is in one entry at most: relay_emc_forget() clears the one) */
	if (victim != RELAY_NIL)
		return victim;
	victim = set;
	for (w = 0; w < RELAY_EMC_WAYS; w++) {
		const uint32_t i = relay_emc_way(set, w);
		const uint64_t r = v6 ? rw->emc6[i].ready : rw->emc[i].ready;

		if (relay_emc_data(rw, i, v6) == RELAY_NIL)
			return i;
		if (r < oldest) {
			oldest = r;
			victim = i;
		}
	}
	return oldest == ready ? RELAY_NIL : victim;
}

/**
 * Entry @p slot := key @p k (NULL: all zero) and data @p v, not ready.
 * (@p slot: an entry's index, from relay_emc_place() or relay_emc_find().)
 * Filled from the table; the shortcut waits until relay4/relay6 send a
 * packet of the key (relay_emc_arm()).
 */
static __rte_always_inline void
relay_emc_set(struct relay_worker *rw, uint32_t slot, const union relay_anykey *k, uint32_t v,
	const bool v6)
{
	if (v6) {
		struct relay_emc6_entry *e = &rw->emc6[slot];

		if (k != NULL)
			memcpy(e->key, &k->k, sizeof(e->key));
		else
			memset(e->key, 0, sizeof(e->key));
		e->v = v;
		e->ready = 0;
	} else {
		struct relay_emc_entry *e = &rw->emc[slot];

		if (k != NULL)
			e->key = k->k4;
		else
			memset(&e->key, 0, sizeof(e->key));
		e->v = v;
		e->ready = 0;
	}
}

/**
 * Entry @p slot, just set to a key and its data (relay_emc_set()), ready for
 * the shortcut: relay4/relay6 sent a packet of the key in direction @p d, to
 * next hop @p nh, resolved, through TX buffer @p txq, under @p ready
 * (relay_emc_ready_word() of that second and of the path generation read
 * before @p d's next hop and @p nh were: a change after it moves the
 * generation on, and the entry is not taken).
 */
static __rte_always_inline void
relay_emc_arm(struct relay_worker *rw, uint32_t slot, uint64_t ready, const struct relay_dir *d,
	const struct dp_fwd_nh *nh, struct dp_worker_txq *txq, const bool v6)
{
	if (v6) {
		struct relay_emc6_entry *e = &rw->emc6[slot];

		e->l4_delta = d->l4_delta;
		memcpy(e->src, d->src, 16);
		memcpy(e->dst, d->dst, 16);
		e->ports[0] = d->sport;
		e->ports[1] = d->dport;
		memcpy(e->l2, &nh->l2, sizeof(e->l2));
		e->txq = txq;
		e->ready = ready;
	} else {
		struct relay_emc_entry *e = &rw->emc[slot];

		e->ip_delta = d->ip_delta;
		e->l4_delta = d->l4_delta;
		memcpy(&e->addrs[0], d->src, 4);
		memcpy(&e->addrs[1], d->dst, 4);
		e->ports[0] = d->sport;
		e->ports[1] = d->dport;
		memcpy(e->l2, &nh->l2, sizeof(e->l2));
		e->txq = txq;
		e->ready = ready;
	}
}

extern struct relay_svc relay_svcs[DP_RELAY_MAX];
extern unsigned int relay_nb_svcs;
extern struct relay_worker *relay_workers[RTE_MAX_LCORE];
extern uint16_t relay_nb_workers;
extern uint64_t relay_tsc_hz, relay_tsc_base;
extern volatile uint32_t relay_clock_offset;
extern int dp_logtype_relay;

/** The relay clock of @p rw, whole seconds; one TSC read, a division once a second. */
static inline uint32_t
relay_clock(struct relay_worker *rw, uint64_t tsc)
{
	if (unlikely(tsc >= rw->next_tick_tsc)) {
		uint64_t s = (tsc - relay_tsc_base) / relay_tsc_hz;

		rw->now_s = (uint32_t)s;
		rw->next_tick_tsc = relay_tsc_base + (s + 1) * relay_tsc_hz;
	}
	return rw->now_s + relay_clock_offset;
}

/* One's complement sum of the 16-bit words of @p n bytes (n even), unfolded. */
static inline uint32_t
relay_sum16(const uint8_t *p, unsigned int n, bool invert)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < n; i += 2) {
		uint16_t w;

		memcpy(&w, p + i, 2);
		sum += invert ? (uint16_t)~w : w;
	}
	return sum;
}

/**
 * The incremental update of a checksum field by a precomputed delta (RFC 1624
 * eqn. 3 over every word that changes): HC' = ~(~HC + delta), end-around
 * carry folded in.
 */
static inline uint16_t
relay_cksum_apply(uint16_t cksum, uint32_t delta)
{
	return (uint16_t)~dp_cksum_fold((uint32_t)(uint16_t)~cksum + delta);
}

/** The table of @p k's family and @p k as it holds it (in @p k4 for IPv4). */
static inline struct rte_hash *
relay_table(
	struct relay_worker *rw, const struct relay_key *k, struct relay_key4 *k4, const void **tk)
{
	if (k->ip6) {
		*tk = k;
		return rw->h6;
	}
	relay_key4_of(k, k4);
	*tk = k4;
	return rw->h4;
}

/** Slow path (relay.c), on the worker. */

/**
 * A packet whose key is not in the table: a new session when it is for a
 * listen address and port, a hand-off when a backend sent it to another
 * worker's relay port.
 * @return slot << 1 | direction of the session to apply, or a negative
 *         value: -1 - drop reason (counted by the caller), or RELAY_HANDED_OFF.
 */
#define RELAY_HANDED_OFF INT32_MIN
int32_t relay_miss(struct relay_worker *rw, const struct relay_key *k, uint32_t now, void *mbuf);

/** Remove session @p slot from the table (both keys) and free its slot. */
void relay_session_free(struct relay_worker *rw, uint32_t slot);

/** Move @p slot to the LRU tail: it was seen at @p now. */
static inline void
relay_lru_touch(struct relay_worker *rw, struct relay_session *s, uint32_t slot, uint32_t now)
{
	struct relay_wsvc *ws = &rw->svc[s->svc];

	s->last_seen = now;
	if (ws->lru_tail == slot)
		return;
	/* unlink */
	if (s->lru_prev != RELAY_NIL)
		rw->sess[s->lru_prev].lru_next = s->lru_next;
	else
		ws->lru_head = s->lru_next;
	rw->sess[s->lru_next].lru_prev = s->lru_prev; /* not the tail: it has a next */
	/* append */
	s->lru_prev = ws->lru_tail;
	s->lru_next = RELAY_NIL;
	rw->sess[ws->lru_tail].lru_next = slot;
	ws->lru_tail = slot;
}

/** Expire at most @p max idle sessions, oldest first, on the worker. @return expired. */
unsigned int relay_sweep(struct relay_worker *rw, uint32_t now, unsigned int max);

/** Hand a packet to the worker owning its relay port. @return 0, or -ENOBUFS (not taken). */
int relay_handoff_to(uint16_t owner, void *mbuf);

#endif /* RELAY_PRIV_H */
