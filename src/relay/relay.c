/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UDP relay, control path and the workers' slow path: services from the
 * config, per-worker session tables, session setup (backend choice, relay
 * port, checksum deltas), expiry, LRU eviction, hand-off, telemetry.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_jhash.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dp_common.h"
#include "dp_ctl.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_port.h"
#include "dp_relay.h"
#include "dp_telemetry.h"
#include "relay_fp.h"
#include "relay_priv.h"

struct relay_svc relay_svcs[DP_RELAY_MAX];
unsigned int relay_nb_svcs;
struct relay_worker *relay_workers[RTE_MAX_LCORE];
uint16_t relay_nb_workers;
uint64_t relay_tsc_hz = 1, relay_tsc_base;
volatile uint32_t relay_clock_offset;

RTE_LOG_REGISTER(dp_logtype_relay, dpfwd.relay, INFO);

/* the config's [relayN] behind each service, for messages and telemetry */
static const struct dp_relay_config *relay_cfg[DP_RELAY_MAX];
static unsigned int relay_cfg_idx[DP_RELAY_MAX];

static void
key_of_dir(const struct relay_session *s, unsigned int d, struct relay_key *k)
{
	/* a packet of direction d comes from where the other direction sends to */
	const struct relay_dir *o = d != 0 ? &s->d0 : &s->d1;

	memset(k, 0, sizeof(*k));
	memcpy(k->remote, o->dst, 16);
	memcpy(k->local, o->src, 16);
	k->rport = o->dport;
	k->lport = o->sport;
	k->ip6 = s->ip6;
}

/* The deltas that turn (osrc, odst, osport, odport) into what @p d says
 * (IPv4: with the new (TTL, protocol) word, struct relay_dir). */
static void
dir_deltas(struct relay_dir *d, bool ip6, const uint8_t *osrc, const uint8_t *odst,
	rte_be16_t osport, rte_be16_t odport)
{
	const unsigned int alen = ip6 ? 16 : 4;
	uint32_t addr = relay_sum16(osrc, alen, true) + relay_sum16(odst, alen, true) +
			relay_sum16(d->src, alen, false) + relay_sum16(d->dst, alen, false);
	uint32_t l4 = addr + (uint16_t)~osport + (uint16_t)~odport + d->sport + d->dport;

	d->ip_delta = dp_cksum_fold(addr + RELAY_IP4_TTL_PROTO);
	d->l4_delta = dp_cksum_fold(l4);
}

static void
lru_append(struct relay_worker *rw, struct relay_wsvc *ws, uint32_t slot)
{
	struct relay_session *s = &rw->sess[slot];

	s->lru_prev = ws->lru_tail;
	s->lru_next = RELAY_NIL;
	if (ws->lru_tail != RELAY_NIL)
		rw->sess[ws->lru_tail].lru_next = slot;
	else
		ws->lru_head = slot;
	ws->lru_tail = slot;
}

/* Take key @p k (@p k4: the same as the IPv4 table holds it) out of the
 * exact-match cache of its family, if it is there. */
static void
relay_emc_forget(struct relay_worker *rw, const struct relay_key *k, const struct relay_key4 *k4)
{
	const bool v6 = k->ip6 != 0;
	union relay_anykey a;
	uint32_t i;

	if (!relay_emc_on(rw, v6))
		return;
	if (v6)
		a.k = *k;
	else
		a.k4 = *k4;
	i = relay_emc_find(rw, &a, v6);
	if (i != RELAY_NIL)
		relay_emc_set(rw, i, NULL, RELAY_NIL, v6);
}

void
relay_session_free(struct relay_worker *rw, uint32_t slot)
{
	struct relay_session *s = &rw->sess[slot];
	struct relay_wsvc *ws = &rw->svc[s->svc];
	struct relay_key4 k4;
	struct relay_key k;
	const void *tk;

	struct rte_hash *h;

	key_of_dir(s, 0, &k);
	h = relay_table(rw, &k, &k4, &tk);
	rte_hash_del_key(h, tk);
	relay_emc_forget(rw, &k, &k4);
	key_of_dir(s, 1, &k);
	h = relay_table(rw, &k, &k4, &tk);
	rte_hash_del_key(h, tk);
	relay_emc_forget(rw, &k, &k4);
	if (s->lru_prev != RELAY_NIL)
		rw->sess[s->lru_prev].lru_next = s->lru_next;
	else
		ws->lru_head = s->lru_next;
	if (s->lru_next != RELAY_NIL)
		rw->sess[s->lru_next].lru_prev = s->lru_prev;
	else
		ws->lru_tail = s->lru_prev;
	s->in_use = 0;
	s->lru_prev = RELAY_NIL;
	s->lru_next = ws->free_head;
	ws->free_head = slot;
	rw->stats.sessions_active--;
}

/* A new session of service @p si for the client in @p k (direction 0's key). */
static __rte_noinline int32_t
session_create(struct relay_worker *rw, unsigned int si, const struct relay_key *k, uint32_t now)
{
	const struct relay_svc *svc = &relay_svcs[si];
	struct relay_wsvc *ws = &rw->svc[si];
	struct relay_session *s;
	struct relay_key4 k4, k4_1;
	const void *tk, *tk1;
	struct rte_hash *h;
	struct relay_key k1;
	uint32_t slot, b;
	rte_be16_t rport;

	/* a worker has one slot at least (dp_relay_init()): there is one to take */
	if (ws->free_head == RELAY_NIL) {
		/* full: the least recently seen session makes room */
		s = &rw->sess[ws->lru_head];
		if (now - s->last_seen > s->timeout_s)
			rw->stats.expired++;
		else
			rw->stats.evicted++;
		relay_session_free(rw, ws->lru_head);
	}
	slot = ws->free_head;
	s = &rw->sess[slot];
	ws->free_head = s->lru_next;

	b = rte_jhash(k->remote, 16, k->rport) % svc->nb_backends;
	rport = rte_cpu_to_be_16((uint16_t)(ws->port0 + (slot - ws->base)));
	memset(&s->d0, 0, sizeof(s->d0));
	memset(&s->d1, 0, sizeof(s->d1));
	/* to the backend: source:rport -> backend */
	memcpy(s->d0.src, svc->source, 16);
	memcpy(s->d0.dst, svc->backends[b].addr, 16);
	s->d0.sport = rport;
	s->d0.dport = svc->backends[b].port;
	dir_deltas(&s->d0, svc->ip6, k->remote, k->local, k->rport, k->lport);
	/* to the client: listen -> client */
	memcpy(s->d1.src, svc->listen, 16);
	memcpy(s->d1.dst, k->remote, 16);
	s->d1.sport = svc->listen_port;
	s->d1.dport = k->rport;
	dir_deltas(
		&s->d1, svc->ip6, svc->backends[b].addr, svc->source, svc->backends[b].port, rport);
	s->svc = (uint8_t)si;
	s->ip6 = svc->ip6;
	s->backend = (uint8_t)b;
	s->timeout_s = svc->timeout_s;
	s->last_seen = now;

	key_of_dir(s, 1, &k1);
	h = relay_table(rw, k, &k4, &tk);
	if (rte_hash_add_key_data(h, tk, (void *)(uintptr_t)((uint64_t)slot << 1)) < 0)
		goto undo;
	h = relay_table(rw, &k1, &k4_1, &tk1);
	if (rte_hash_add_key_data(h, tk1, (void *)(uintptr_t)((uint64_t)slot << 1 | 1)) < 0) {
		rte_hash_del_key(h, tk);
		goto undo;
	}
	s->in_use = 1;
	lru_append(rw, ws, slot);
	rw->stats.created++;
	rw->stats.sessions_active++;
	return (int32_t)(slot << 1);
undo:
	/*
	 * Not seen: the table has room for two keys of every slot (extendable
	 * buckets), and a slot's keys go before it is taken again. Were rte_hash
	 * to refuse, the packet has no session.
	 */
	s->lru_next = ws->free_head;
	ws->free_head = slot;
	return -1 - DP_DROP_RELAY_NO_SESSION;
}

int
relay_handoff_to(uint16_t owner, void *mbuf)
{
	struct relay_worker *o = owner < relay_nb_workers ? relay_workers[owner] : NULL;

	if (o == NULL || o->handoff == NULL || rte_ring_mp_enqueue(o->handoff, mbuf) != 0)
		return -ENOBUFS;
	return 0;
}

int32_t
relay_miss(struct relay_worker *rw, const struct relay_key *k, uint32_t now, void *mbuf)
{
	struct relay_key4 k4;
	const void *tk;
	void *data;
	unsigned int i;

	struct rte_hash *h = relay_table(rw, k, &k4, &tk);

	/* made by an earlier packet of the same burst? */
	if (rte_hash_lookup_data(h, tk, &data) >= 0)
		return (int32_t)(uintptr_t)data;
	for (i = 0; i < relay_nb_svcs; i++) {
		const struct relay_svc *svc = &relay_svcs[i];
		uint16_t port, owner;

		if (svc->ip6 != k->ip6)
			continue;
		if (k->lport == svc->listen_port && memcmp(k->local, svc->listen, 16) == 0) {
			/* fe80::/10: its answers would need the link it came from, and
			 * routes know no scope: no session (RFC 4291 2.5.6) */
			if (k->ip6 && k->remote[0] == 0xfe && (k->remote[1] & 0xc0) == 0x80)
				return -1 - DP_DROP_IP6_LINK_LOCAL;
			return session_create(rw, i, k, now);
		}
		port = rte_be_to_cpu_16(k->lport);
		if (port < svc->port_lo || port > svc->port_hi ||
			memcmp(k->local, svc->source, 16) != 0)
			continue;
		/* a relay port: only a backend with a session there may send to it */
		owner = (uint16_t)((port - svc->port_lo) / svc->per_worker);
		if (owner == rw->index || owner >= relay_nb_workers)
			return -1 - DP_DROP_RELAY_NO_SESSION;
		if (relay_handoff_to(owner, mbuf) < 0)
			return -1 - DP_DROP_RELAY_HANDOFF_FULL;
		rw->stats.handoffs++;
		return RELAY_HANDED_OFF;
	}
	/* the port is in the map for another address: no service here */
	return -1 - (k->ip6 ? DP_DROP_IP6_LOCAL : DP_DROP_IP4_LOCAL);
}

unsigned int
relay_sweep(struct relay_worker *rw, uint32_t now, unsigned int max)
{
	unsigned int n = 0, i;

	for (i = 0; i < relay_nb_svcs && n < max; i++) {
		struct relay_wsvc *ws = &rw->svc[i];

		while (n < max && ws->lru_head != RELAY_NIL) {
			const struct relay_session *s = &rw->sess[ws->lru_head];

			if (now - s->last_seen <= s->timeout_s)
				break;
			relay_session_free(rw, ws->lru_head);
			rw->stats.expired++;
			n++;
		}
	}
	return n;
}

/* ---- control path ---- */

static void
addr_copy(uint8_t dst[16], const uint8_t src[16])
{
	memcpy(dst, src, 16);
}

/* The filter bit of a relay address (relay_addr_maybe()), as ip4_fwd and
 * ip6_fwd take it from a destination: IPv4 in host order, IPv6's last 32 bits. */
static uint64_t
addr_filter_bit(bool ip6, const uint8_t a[16])
{
	return relay_addr_bit(ip6 ? relay_addr6_tail(a) : rte_be_to_cpu_32(relay_be32(a)));
}

/*
 * An exact-match cache (zeroed, entries of @p esz bytes) for @p slots
 * sessions of one family: RELAY_EMC_PER_SLOT entries a slot, a power of two
 * within RELAY_EMC_MIN..RELAY_EMC_MAX, their count in @p n (in pairs of
 * RELAY_EMC_PAIR).
 */
static void *
emc_alloc(const char *name, size_t esz, uint32_t slots, int socket, uint32_t *n)
{
	*n = RTE_MIN(
		RTE_MAX(rte_align32pow2(slots * RELAY_EMC_PER_SLOT), RELAY_EMC_MIN), RELAY_EMC_MAX);
	/* two pairs aligned to their size: an IPv4 pair is the two lines the L2
	 * fetches together (dp_relay4_key()), and a pair's buddy is its address
	 * with one bit flipped (relay_emc_buddy()) */
	return rte_zmalloc_socket(name, esz * *n, esz * 2 * RELAY_EMC_PAIR, socket);
}

static struct relay_worker *
worker_create(uint16_t index, unsigned int lcore, char *err, size_t errlen)
{
	const int socket = (int)rte_lcore_to_socket_id(lcore);
	struct rte_hash_parameters hp;
	struct relay_worker *rw;
	char name[RTE_HASH_NAMESIZE];
	uint32_t slots = 0, slots6 = 0, i, s;

	rw = rte_zmalloc_socket("relay_worker", sizeof(*rw), RTE_CACHE_LINE_SIZE, socket);
	if (rw == NULL)
		goto nomem;
	rw->index = index;
	for (i = 0; i < relay_nb_svcs; i++) {
		struct relay_wsvc *ws = &rw->svc[i];

		ws->base = slots;
		ws->cap = relay_svcs[i].cap;
		ws->port0 = (uint16_t)(relay_svcs[i].port_lo + index * relay_svcs[i].per_worker);
		ws->lru_head = ws->lru_tail = RELAY_NIL;
		ws->free_head = ws->cap ? ws->base : RELAY_NIL;
		slots += ws->cap;
		slots6 += relay_svcs[i].ip6 ? ws->cap : 0;
	}
	rw->nb_slots = slots;
	rw->sess = rte_zmalloc_socket("relay_sessions", sizeof(rw->sess[0]) * RTE_MAX(slots, 1u),
		RTE_CACHE_LINE_SIZE, socket);
	if (rw->sess == NULL)
		goto nomem;
	for (i = 0; i < relay_nb_svcs; i++) {
		const struct relay_wsvc *ws = &rw->svc[i];

		for (s = ws->base; s < ws->base + ws->cap; s++) {
			rw->sess[s].lru_prev = RELAY_NIL;
			rw->sess[s].lru_next = s + 1 < ws->base + ws->cap ? s + 1 : RELAY_NIL;
		}
	}
	snprintf(name, sizeof(name), "relay4_w%u", index);
	memset(&hp, 0, sizeof(hp));
	hp.name = name;
	/* two keys a session; the extendable table guarantees every one fits */
	hp.entries = RTE_MAX(2 * (slots - slots6), 16u);
	hp.key_len = sizeof(struct relay_key4);
	hp.hash_func = rte_hash_crc;
	hp.socket_id = socket;
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
	rw->h4 = rte_hash_create(&hp);
	if (rw->h4 != NULL) {
		snprintf(name, sizeof(name), "relay6_w%u", index);
		hp.entries = RTE_MAX(2 * slots6, 16u);
		hp.key_len = sizeof(struct relay_key);
		rw->h6 = rte_hash_create(&hp);
	}
	/* the cache's shortcut sends without the size check that ports of different
	 * MTUs need (relay_node.c): off then */
	if (slots > slots6 && dp_port_mtu_uniform) {
		uint32_t n;

		rw->emc = emc_alloc("relay_emc", sizeof(rw->emc[0]), slots - slots6, socket, &n);
		if (rw->emc == NULL)
			goto nomem;
		for (s = 0; s < n; s++)
			relay_emc_set(rw, s, NULL, RELAY_NIL, false);
		rw->emc_mask = n / RELAY_EMC_PAIR - 1;
	}
	if (slots6 > 0 && dp_port_mtu_uniform) {
		uint32_t n;

		rw->emc6 = emc_alloc("relay_emc6", sizeof(rw->emc6[0]), slots6, socket, &n);
		if (rw->emc6 == NULL)
			goto nomem;
		for (s = 0; s < n; s++)
			relay_emc_set(rw, s, NULL, RELAY_NIL, true);
		rw->emc6_mask = n / RELAY_EMC_PAIR - 1;
	}
	/* the filter of each family with a cache: its services' own addresses */
	for (i = 0; i < relay_nb_svcs; i++) {
		const struct relay_svc *svc = &relay_svcs[i];

		if (relay_emc_on(rw, svc->ip6))
			*(svc->ip6 ? &rw->addrs6 : &rw->addrs4) |=
				addr_filter_bit(svc->ip6, svc->listen) |
				addr_filter_bit(svc->ip6, svc->source);
	}
	if (rw->h4 == NULL || rw->h6 == NULL) {
		snprintf(err, errlen,
			"relay: cannot create the session table of worker %u (%u "
			"sessions): %s",
			index, slots, rte_strerror(rte_errno));
		goto fail;
	}
	if (relay_nb_workers > 1) {
		snprintf(name, sizeof(name), "relay_ho%u", index);
		rw->handoff = rte_ring_create(name, RELAY_HANDOFF_RING, socket, RING_F_SC_DEQ);
		if (rw->handoff == NULL) {
			snprintf(err, errlen,
				"relay: cannot create the hand-off ring of worker %u: %s", index,
				rte_strerror(rte_errno));
			goto fail;
		}
	}
	rw->next_tick_tsc = 0;
	return rw;
nomem:
	snprintf(err, errlen, "relay: out of memory for the sessions of worker %u", index);
fail:
	if (rw != NULL) {
		rte_hash_free(rw->h4);
		rte_hash_free(rw->h6);
		rte_free(rw->emc);
		rte_free(rw->emc6);
		rte_free(rw->sess);
		rte_free(rw);
	}
	return NULL;
}

/* Local delivery's number for relay4/relay6 (dp_fwd_local.h), 0 before the first init. */
static uint8_t relay_local_svc;

/* A service's listen port and relay ports, to relay4/relay6. */
static int
relay_port_claim(const struct relay_svc *svc)
{
	const uint16_t listen = rte_be_to_cpu_16(svc->listen_port);
	int rc;

	if (relay_local_svc == 0) {
		rc = dp_fwd_local_service_add("relay4", "relay6");
		if (rc < 0)
			return rc;
		relay_local_svc = (uint8_t)rc;
	}
	rc = dp_fwd_local_udp_claim(svc->ip6, listen, listen, relay_local_svc);
	if (rc == 0)
		rc = dp_fwd_local_udp_claim(svc->ip6, svc->port_lo, svc->port_hi, relay_local_svc);
	return rc;
}

int
dp_relay_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	unsigned int lcores[DP_GRAPH_MAX_WORKERS];
	unsigned int nw, i;

	dp_relay_fini();
	for (i = 0; i < DP_RELAY_MAX; i++) {
		const struct dp_relay_config *r = dp_relay_config(cfg, i);
		struct relay_svc *svc = &relay_svcs[relay_nb_svcs];
		unsigned int b;

		if (!r->defined)
			continue;
		memset(svc, 0, sizeof(*svc));
		svc->ip6 = r->ip6;
		addr_copy(svc->listen, r->listen.addr);
		svc->listen_port = rte_cpu_to_be_16(r->listen.port);
		addr_copy(svc->source, r->has_source ? r->source : r->listen.addr);
		svc->port_lo = r->port_lo;
		svc->port_hi = r->port_hi;
		svc->timeout_s = r->timeout_s;
		svc->nb_backends = r->nb_backends;
		for (b = 0; b < r->nb_backends; b++) {
			addr_copy(svc->backends[b].addr, r->backends[b].addr);
			svc->backends[b].port = rte_cpu_to_be_16(r->backends[b].port);
		}
		relay_cfg[relay_nb_svcs] = r;
		relay_cfg_idx[relay_nb_svcs] = i;
		relay_nb_svcs++;
	}
	if (relay_nb_svcs == 0)
		return 0;
	nw = dp_config_worker_lcores(cfg, lcores, DP_ARRAY_SIZE(lcores));
	relay_nb_workers = (uint16_t)nw;
	for (i = 0; i < relay_nb_svcs; i++) {
		struct relay_svc *svc = &relay_svcs[i];
		const uint32_t nports = (uint32_t)svc->port_hi - svc->port_lo + 1;
		const uint32_t max =
			relay_cfg[i]->max_sessions ? relay_cfg[i]->max_sessions : nports;

		/* worker w owns [lo + w * per_worker, lo + (w + 1) * per_worker) */
		svc->per_worker = nw ? nports / nw : nports;
		if (svc->per_worker == 0) {
			dp_config_error(err, errlen, &relay_cfg[i]->ports_loc,
				"[relay%u] has %u relay ports for %u workers: each worker needs "
				"its own "
				"(widen 'ports')",
				relay_cfg_idx[i], nports, nw);
			dp_relay_fini();
			return -EINVAL;
		}
		/* at least 1: per_worker >= 1 (above), max >= 1 (relay_config.c) */
		svc->cap = RTE_MIN(svc->per_worker, (max + nw - 1) / RTE_MAX(nw, 1u));
		if (relay_port_claim(svc) < 0) {
			dp_config_error(err, errlen, &relay_cfg[i]->ports_loc,
				"[relay%u]: its ports are another service's", relay_cfg_idx[i]);
			dp_relay_fini();
			return -EADDRINUSE;
		}
	}
	relay_tsc_hz = rte_get_tsc_hz();
	relay_tsc_base = rte_rdtsc();
	for (i = 0; i < nw; i++) {
		relay_workers[i] = worker_create((uint16_t)i, lcores[i], err, errlen);
		if (relay_workers[i] == NULL) {
			dp_relay_fini();
			return -ENOMEM;
		}
	}
	if (dp_graph_source_add("relay_handoff") < 0) {
		snprintf(err, errlen, "relay: cannot add relay_handoff to the graphs");
		dp_relay_fini();
		return -ENOSPC;
	}
	for (i = 0; i < nw; i++) {
		struct relay_worker *rw = relay_workers[i];

		if (relay_emc_on(rw, false))
			dp_fwd_fast_match_set(
				false, (uint16_t)i, relay4_fast_match, rw, "relay4_shortcut");
		if (relay_emc_on(rw, true))
			dp_fwd_fast_match_set(
				true, (uint16_t)i, relay6_fast_match, rw, "relay6_shortcut");
	}
	DP_LOG(INFO, relay, "%u relay service(s), %u worker table(s)", relay_nb_svcs, nw);
	return 0;
}

/* Free what the hand-off rings hold (after the workers stopped), as shutdown drops. */
static void
relay_rings_drain(void)
{
	uint16_t i;

	for (i = 0; i < relay_nb_workers; i++) {
		struct relay_worker *rw = relay_workers[i];
		void *m;

		if (rw == NULL || rw->handoff == NULL)
			continue;
		while (rte_ring_dequeue(rw->handoff, &m) == 0) {
			rte_pktmbuf_free(m);
			dp_ctl_drops[DP_DROP_SHUTDOWN]++;
		}
	}
}

int
dp_relay_start(void)
{
	if (relay_nb_svcs == 0)
		return 0;
	return dp_ctl_stop_register(relay_rings_drain);
}

void
dp_relay_fini(void)
{
	unsigned int i;

	relay_rings_drain();
	for (i = 0; i < RTE_DIM(relay_workers); i++) {
		struct relay_worker *rw = relay_workers[i];

		if (rw == NULL)
			continue;
		rte_ring_free(rw->handoff);
		rte_hash_free(rw->h4);
		rte_hash_free(rw->h6);
		rte_free(rw->emc);
		rte_free(rw->emc6);
		rte_free(rw->sess);
		rte_free(rw);
		relay_workers[i] = NULL;
	}
	for (i = 0; i < relay_nb_svcs; i++) {
		const struct relay_svc *svc = &relay_svcs[i];

		dp_fwd_local_udp_release(svc->ip6, rte_be_to_cpu_16(svc->listen_port),
			rte_be_to_cpu_16(svc->listen_port), relay_local_svc);
		dp_fwd_local_udp_release(svc->ip6, svc->port_lo, svc->port_hi, relay_local_svc);
	}
	for (i = 0; i < DP_GRAPH_MAX_WORKERS; i++) {
		dp_fwd_fast_match_set(false, (uint16_t)i, NULL, NULL, NULL);
		dp_fwd_fast_match_set(true, (uint16_t)i, NULL, NULL, NULL);
	}
	dp_graph_source_del("relay_handoff");
	relay_nb_workers = 0;
	relay_nb_svcs = 0;
	relay_clock_offset = 0;
}

unsigned int
dp_relay_nb_services(void)
{
	return relay_nb_svcs;
}

int
dp_relay_stats_get(uint16_t worker, struct dp_relay_stats *st)
{
	if (worker >= relay_nb_workers || relay_workers[worker] == NULL)
		return -ENOENT;
	*st = relay_workers[worker]->stats;
	return 0;
}

void
dp_relay_stats_sum(struct dp_relay_stats *st)
{
	uint16_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < relay_nb_workers; i++) {
		const struct dp_relay_stats *w = &relay_workers[i]->stats;

		st->sessions_active += w->sessions_active;
		st->created += w->created;
		st->expired += w->expired;
		st->evicted += w->evicted;
		st->handoffs += w->handoffs;
		st->handoffs_in += w->handoffs_in;
		st->to_backend += w->to_backend;
		st->to_client += w->to_client;
	}
}

uint16_t
dp_relay_port_of(unsigned int svc, uint16_t worker, uint32_t slot)
{
	if (svc >= relay_nb_svcs || worker >= relay_nb_workers || slot >= relay_svcs[svc].cap)
		return 0;
	return (uint16_t)(relay_svcs[svc].port_lo + worker * relay_svcs[svc].per_worker + slot);
}

uint32_t
dp_relay_worker_capacity(unsigned int svc, uint16_t worker)
{
	if (svc >= relay_nb_svcs || worker >= relay_nb_workers)
		return 0;
	return relay_svcs[svc].cap;
}

void
dp_relay_clock_advance(uint32_t s)
{
	relay_clock_offset += s;
}

/* ---- telemetry ---- */

static json_t *
udp_addr_json(bool ip6, const uint8_t addr[16], rte_be16_t port)
{
	char a[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 10];

	inet_ntop(ip6 ? AF_INET6 : AF_INET, addr, a, sizeof(a));
	snprintf(buf, sizeof(buf), ip6 ? "[%s]:%u" : "%s:%u", a, rte_be_to_cpu_16(port));
	return json_string(buf);
}

static json_t *
stats_json(const struct dp_relay_stats *st)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "sessions_active",
		(json_int_t)st->sessions_active, "created", (json_int_t)st->created, "expired",
		(json_int_t)st->expired, "evicted", (json_int_t)st->evicted, "handoffs",
		(json_int_t)st->handoffs, "handoffs_in", (json_int_t)st->handoffs_in,
		"pkts_to_backend", (json_int_t)st->to_backend, "pkts_to_client",
		(json_int_t)st->to_client);
}

static json_t *
relay_fill(void *arg)
{
	json_t *svcs = json_array(), *workers = json_array();
	struct dp_relay_stats sum;
	unsigned int i, b;
	char buf[64];

	RTE_SET_USED(arg);
	for (i = 0; i < relay_nb_svcs; i++) {
		const struct relay_svc *svc = &relay_svcs[i];
		json_t *backends = json_array();
		char a[INET6_ADDRSTRLEN], sect[16];

		for (b = 0; b < svc->nb_backends; b++)
			json_array_append_new(
				backends, udp_addr_json(svc->ip6, svc->backends[b].addr,
						  svc->backends[b].port));
		inet_ntop(svc->ip6 ? AF_INET6 : AF_INET, svc->source, a, sizeof(a));
		snprintf(buf, sizeof(buf), "%u-%u", svc->port_lo, svc->port_hi);
		snprintf(sect, sizeof(sect), "relay%u", relay_cfg_idx[i]);
		json_array_append_new(svcs,
			json_pack("{s:s, s:o, s:s, s:s, s:o, s:i, s:i, s:i}", "section", sect,
				"listen", udp_addr_json(svc->ip6, svc->listen, svc->listen_port),
				"source", a, "ports", buf, "backends", backends, "ports_per_worker",
				(int)svc->per_worker, "sessions_per_worker", (int)svc->cap,
				"timeout_s", (int)svc->timeout_s));
	}
	for (i = 0; i < relay_nb_workers; i++) {
		json_t *o = stats_json(&relay_workers[i]->stats);

		json_object_set_new(o, "worker", json_integer(i));
		json_array_append_new(workers, o);
	}
	dp_relay_stats_sum(&sum);
	return json_pack(
		"{s:o, s:o, s:o}", "services", svcs, "workers", workers, "total", stats_json(&sum));
}

int
dp_relay_telemetry_register(void)
{
	return dp_telemetry_section_register("relay", "/dpfwd/relay/stats",
		"UDP relay: services, and per worker sessions active, created, expired, evicted, "
		"hand-offs, packets each way",
		relay_fill, NULL);
}
