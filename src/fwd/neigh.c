/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbor table and its state machine, on the control lcore.
 *
 *   (none) --packet punted--> INCOMPLETE --reply--> REACHABLE --reachable_ms--> STALE
 *   INCOMPLETE --probes unanswered--> FAILED (held packets dropped) --failed_ms--> (none)
 *   STALE --probe (unicast)--> reply: REACHABLE; probes unanswered: FAILED
 *   PERMANENT: static neighbors from the config
 *
 * STALE still forwards (its MAC is kept); it is re-confirmed with unicast
 * solicitations, as RFC 4861's PROBE state does. Linux waits for traffic
 * before probing; we cannot see traffic (workers write nothing shared), so a
 * stale neighbor is probed after a delay (RFC 4861's DELAY_FIRST_PROBE_TIME,
 * 5 s, or the reachable time if shorter): at most one round of probes per
 * neighbor per reachable time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "dp_cksum.h"
#include "dp_common.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd_group.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_port.h"
#include "dp_telemetry.h"

#define DELAY_FIRST_PROBE_MS 5000

enum neigh_state {
	NS_NONE = 0, /* not a neighbor (the router, connected next hops) */
	NS_INCOMPLETE,
	NS_REACHABLE,
	NS_STALE,
	NS_PROBE,
	NS_FAILED,
	NS_PERMANENT,
};

static const char *const state_names[] = {
	[NS_NONE] = "none",
	[NS_INCOMPLETE] = "incomplete",
	[NS_REACHABLE] = "reachable",
	[NS_STALE] = "stale",
	[NS_PROBE] = "probe",
	[NS_FAILED] = "failed",
	[NS_PERMANENT] = "permanent",
};

/* control lcore only: one per next hop, by the same index */
struct neigh {
	uint8_t state;
	uint8_t family;
	uint8_t probes; /* solicitations sent in this state */
	uint8_t nb_hold;
	bool down;         /* failed, and not resolved since: an ECMP group skips it */
	uint64_t timer_ms; /* when the state's timer fires */
	uint64_t updated_ms;
	struct rte_mbuf *hold[DP_CONFIG_NEIGH_HOLD_MAX];
};

struct rte_hash *dp_neigh_hash;

static struct neigh *neighs;
static uint32_t nb_neighs; /* entries in the hash */
/*
 * Packets held by every neighbor together, at most DP_NEIGH_HELD_MAX: the
 * packet pool keeps that many for the control path (src/mem/mem.c), so that a
 * sweep of unresolvable destinations cannot take the workers' mbufs.
 */
#define DP_NEIGH_HELD_MAX 1024
static uint32_t held_total;
static struct {
	uint32_t max, hold, reachable_ms, retrans_ms, probes, failed_ms;
} conf;
static dp_neigh_solicit_t solicit_fn[2]; /* [0] IPv4 (ARP), [1] IPv6 (ND) */

static struct {
	uint64_t created, resolved, failed, solicits, held, released, learned;
} stats;

void
dp_neigh_solicit_register(int family, dp_neigh_solicit_t fn)
{
	solicit_fn[family == 6] = fn;
}

static void
key_make(struct dp_neigh_key *k, int family, const uint8_t *addr, uint16_t port)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->addr, addr, family == 6 ? 16 : 4);
	k->port = port;
	k->family = (uint8_t)family;
}

static void
nh_set_resolved(struct dp_fwd_nh *nh, const struct rte_ether_addr *mac)
{
	uint64_t w;

	/*
	 * Workers may be reading this entry: the destination MAC and the first two
	 * bytes of the (unchanging) source MAC are one aligned 8-byte word, stored
	 * at once, so a worker sees the old MAC or the new one, never a mix. The
	 * flag is set after, with release order.
	 */
	memcpy(&w, &nh->l2, sizeof(w));
	memcpy(&w, mac, RTE_ETHER_ADDR_LEN);
	__atomic_store_n((uint64_t *)(void *)&nh->l2, w, __ATOMIC_RELEASE);
	__atomic_or_fetch(&nh->flags, DP_FWD_NH_F_RESOLVED, __ATOMIC_RELEASE);
	/* the relay's caches hold copies of the MACs */
	dp_fwd_path_gen_next();
}

static void
nh_set_unresolved(struct dp_fwd_nh *nh)
{
	__atomic_and_fetch(&nh->flags, (uint8_t)~DP_FWD_NH_F_RESOLVED, __ATOMIC_RELEASE);
	dp_fwd_path_gen_next();
}

int32_t
dp_neigh_get(int family, const uint8_t *addr, uint16_t port, bool create)
{
	struct dp_neigh_key k;
	struct dp_fwd_nh *nh;
	void *data;
	int32_t idx;
	int rc;

	key_make(&k, family, addr, port);
	if (rte_hash_lookup_data(dp_neigh_hash, &k, &data) >= 0)
		return (int32_t)(uintptr_t)data;
	if (!create)
		return -ENOENT;
	if (nb_neighs >= conf.max)
		return -ENOSPC;
	idx = dp_fwd_nh_alloc(port, family == 6);
	if (idx < 0)
		return idx;
	nh = &dp_fwd.nh[idx];
	if (family == 6) {
		memcpy(nh->gw6, addr, 16);
	} else {
		/* addr may point into a packet (2-byte aligned): memcpy, not a cast */
		uint32_t gw_be;

		memcpy(&gw_be, addr, sizeof(gw_be));
		nh->gw = rte_be_to_cpu_32(gw_be);
	}
	memset(&neighs[idx], 0, sizeof(neighs[idx]));
	neighs[idx].family = (uint8_t)family;
	neighs[idx].updated_ms = dp_ctl_now_ms();
	rc = rte_hash_add_key_data(dp_neigh_hash, &k, (void *)(uintptr_t)idx);
	if (rc < 0) {
		/* the next hop stays allocated and unused: the table is full anyway */
		return rc;
	}
	nb_neighs++;
	stats.created++;
	return idx;
}

bool
dp_neigh_is_down(uint32_t idx)
{
	return neighs != NULL && idx < dp_fwd.max_nh && neighs[idx].down;
}

/* Neighbor @p idx failed (@p down) or was resolved again: ECMP groups follow. */
static void
down_set(uint32_t idx, bool down)
{
	if (neighs[idx].down == down)
		return;
	neighs[idx].down = down;
	dp_fwd_group_refresh();
}

void
dp_neigh_set_permanent(uint32_t idx, const struct rte_ether_addr *mac)
{
	nh_set_resolved(&dp_fwd.nh[idx], mac);
	neighs[idx].state = NS_PERMANENT;
	down_set(idx, false);
}

/* Send a held packet now that its neighbor is known: what ip4_output/ip6_output
 * would have done. */
static void
release_one(const struct dp_fwd_nh *nh, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	if (nh->flags & DP_FWD_NH_F_IP6)
		dp_fwd_ip6_rewrite(nh, eth);
	else
		dp_fwd_ip4_rewrite(nh, eth);
	stats.released++;
	dp_ctl_send(m, nh->port);
}

static void
hold_release(uint32_t idx)
{
	struct neigh *n = &neighs[idx];
	uint8_t i;

	for (i = 0; i < n->nb_hold; i++)
		release_one(&dp_fwd.nh[idx], n->hold[i]);
	held_total -= n->nb_hold;
	n->nb_hold = 0;
}

static void
hold_drop(uint32_t idx, enum dp_drop_reason why)
{
	struct neigh *n = &neighs[idx];

	dp_ctl_drops[why] += n->nb_hold;
	rte_pktmbuf_free_bulk(n->hold, n->nb_hold);
	held_total -= n->nb_hold;
	n->nb_hold = 0;
}

static void
solicit(uint32_t idx, bool unicast)
{
	struct neigh *n = &neighs[idx];
	dp_neigh_solicit_t fn = solicit_fn[n->family == 6];

	n->probes++;
	n->timer_ms = dp_ctl_now_ms() + conf.retrans_ms;
	if (fn != NULL) {
		stats.solicits++;
		fn(idx, unicast);
	}
}

static uint64_t
stale_delay(void)
{
	return RTE_MIN(conf.reachable_ms, (uint32_t)DELAY_FIRST_PROBE_MS);
}

void
dp_neigh_learn(int family, const uint8_t *addr, uint16_t port, const struct rte_ether_addr *mac,
	bool solicited, bool create)
{
	int32_t idx = dp_neigh_get(family, addr, port, create);
	struct dp_fwd_nh *nh;
	struct neigh *n;
	uint64_t now = dp_ctl_now_ms();
	bool changed;

	if (idx < 0)
		return;
	n = &neighs[idx];
	nh = &dp_fwd.nh[idx];
	if (n->state == NS_PERMANENT)
		return;
	changed = !(nh->flags & DP_FWD_NH_F_RESOLVED) ||
		  !rte_is_same_ether_addr(&nh->l2.dst_addr, mac);
	stats.learned++;
	if (changed) {
		nh_set_resolved(nh, mac);
		/* its host route, so that ip4_fwd sends to it itself (dp_fwd.h) */
		if (family == 4)
			dp_fwd_adj4_resolved((uint32_t)idx);
	}
	/* a reply to our solicitation confirms reachability; anything else (a request
	 * from the neighbor, an unsolicited announcement) only gives its address
	 * (RFC 4861 7.2.5 and 7.2.3: stale), unless it was already reachable with the
	 * same address */
	if (solicited || n->state == NS_INCOMPLETE) {
		if (n->state != NS_REACHABLE && n->state != NS_STALE && n->state != NS_PROBE)
			stats.resolved++;
		n->state = solicited ? NS_REACHABLE : NS_STALE;
	} else if (changed || n->state != NS_REACHABLE) {
		n->state = NS_STALE;
	}
	n->probes = 0;
	n->updated_ms = now;
	n->timer_ms = now + (n->state == NS_REACHABLE ? conf.reachable_ms : stale_delay());
	down_set((uint32_t)idx, false);
	hold_release((uint32_t)idx);
}

/* The connected next hop of an IPv4 packet: the neighbor is its destination. */
static int32_t
neigh_of_connected4(struct rte_mbuf *m, const struct dp_fwd_nh *c)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const struct dp_port *p = &dp_ports[c->port];
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);

	if (p->ip4 != 0 && p->ip4_plen < 31) {
		uint32_t host = ~(~0u << (32 - p->ip4_plen));

		/* the subnet's broadcast or network address: not a neighbor (RFC 1812 5.3.5) */
		if ((dst & ~host) == (p->ip4 & ~host) &&
			((dst & host) == host || (dst & host) == 0))
			return -EINVAL;
	}
	return dp_neigh_get(4, (const uint8_t *)&ip->dst_addr, c->port, true);
}

static int32_t
neigh_of_connected6(struct rte_mbuf *m, const struct dp_fwd_nh *c)
{
	const struct rte_ipv6_hdr *ip6 =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);

	return dp_neigh_get(6, ip6->dst_addr, c->port, true);
}

/* A worker could not send @p m: its next hop (meta.nh) has no MAC yet. */
static void
on_punt_hold(struct rte_mbuf *m, uint16_t worker, void *arg)
{
	uint32_t idx = dp_mbuf_meta(m, dp_mbuf_meta_offset)->nh;
	struct dp_fwd_nh *nh;
	struct neigh *n;
	int32_t r;

	RTE_SET_USED(worker);
	RTE_SET_USED(arg);
	if (idx >= dp_fwd.nb_nh) {
		dp_ctl_drops[DP_DROP_NEIGH_UNRESOLVED]++;
		rte_pktmbuf_free(m);
		return;
	}
	nh = &dp_fwd.nh[idx];
	if (nh->flags & DP_FWD_NH_F_CONNECTED) {
		r = (nh->flags & DP_FWD_NH_F_IP6) ? neigh_of_connected6(m, nh)
						  : neigh_of_connected4(m, nh);
		if (r < 0) {
			dp_ctl_drops[r == -ENOSPC ? DP_DROP_NEIGH_TABLE_FULL
						  : DP_DROP_NEIGH_UNRESOLVED]++;
			rte_pktmbuf_free(m);
			return;
		}
		idx = (uint32_t)r;
		nh = &dp_fwd.nh[idx];
	}
	n = &neighs[idx];
	if (nh->flags & DP_FWD_NH_F_RESOLVED) {
		/* resolved since the worker looked */
		release_one(nh, m);
		return;
	}
	if (n->state == NS_FAILED) {
		dp_ctl_drops[DP_DROP_NEIGH_FAILED]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (conf.hold == 0 || (n->nb_hold == 0 && held_total >= DP_NEIGH_HELD_MAX)) {
		dp_ctl_drops[DP_DROP_NEIGH_HOLD_FULL]++;
		rte_pktmbuf_free(m);
	} else {
		if (n->nb_hold == conf.hold || held_total >= DP_NEIGH_HELD_MAX) {
			/* keep the newest, as Linux does: drop the oldest */
			dp_ctl_drops[DP_DROP_NEIGH_HOLD_FULL]++;
			rte_pktmbuf_free(n->hold[0]);
			memmove(&n->hold[0], &n->hold[1], (n->nb_hold - 1) * sizeof(n->hold[0]));
			n->nb_hold--;
			held_total--;
		}
		n->hold[n->nb_hold++] = m;
		held_total++;
		stats.held++;
	}
	if (n->state == NS_NONE) {
		n->state = NS_INCOMPLETE;
		n->probes = 0;
		n->updated_ms = dp_ctl_now_ms();
		solicit(idx, false);
	}
}

/* The state machine's timers; bounded work per tick (every neighbor is looked at). */
static void
neigh_tick(uint64_t now, void *arg)
{
	uint32_t i;

	RTE_SET_USED(arg);
	for (i = 0; i < dp_fwd.nb_nh; i++) {
		struct neigh *n = &neighs[i];

		if (n->state == NS_NONE || n->state == NS_PERMANENT || now < n->timer_ms)
			continue;
		switch (n->state) {
		case NS_INCOMPLETE:
			if (n->probes < conf.probes) {
				solicit(i, false);
				break;
			}
			hold_drop(i, DP_DROP_NEIGH_FAILED);
			n->state = NS_FAILED;
			n->timer_ms = now + conf.failed_ms;
			stats.failed++;
			down_set(i, true);
			break;
		case NS_REACHABLE:
			n->state = NS_STALE;
			n->timer_ms = now + stale_delay();
			break;
		case NS_STALE:
			/* confirm with unicast solicitations; the MAC stays usable meanwhile */
			n->state = NS_PROBE;
			n->probes = 0;
			solicit(i, true);
			break;
		case NS_PROBE:
			if (n->probes < conf.probes) {
				solicit(i, true);
				break;
			}
			nh_set_unresolved(&dp_fwd.nh[i]);
			n->state = NS_FAILED;
			n->timer_ms = now + conf.failed_ms;
			stats.failed++;
			down_set(i, true);
			break;
		case NS_FAILED:
			/* may be asked again on the next packet; an ECMP group's member
			 * gets none while it is down, so it is asked now */
			n->state = NS_NONE;
			if (n->down && dp_fwd_group_has_member(i)) {
				n->state = NS_INCOMPLETE;
				n->probes = 0;
				n->updated_ms = now;
				solicit(i, false);
			}
			break;
		default:
			break;
		}
	}
}

int
dp_neigh_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	struct rte_hash_parameters hp;

	dp_neigh_fini();
	conf.max = cfg->neigh_max + dp_fwd_neighbors_config(cfg)->nb_neighs4;
	conf.hold = cfg->neigh_hold;
	conf.reachable_ms = cfg->neigh_reachable_ms;
	conf.retrans_ms = cfg->neigh_retrans_ms;
	conf.probes = cfg->neigh_probes;
	conf.failed_ms = cfg->neigh_failed_ms;
	memset(&stats, 0, sizeof(stats));
	neighs = rte_zmalloc("dp_neigh", sizeof(*neighs) * dp_fwd.max_nh, RTE_CACHE_LINE_SIZE);
	memset(&hp, 0, sizeof(hp));
	hp.name = "dp_neigh";
	hp.entries = RTE_MAX(conf.max, 64u);
	hp.key_len = sizeof(struct dp_neigh_key);
	hp.hash_func = rte_hash_crc; /* SSE4.2 CRC32: cheaper than jhash per lookup */
	hp.socket_id = SOCKET_ID_ANY;
	/* workers look up while the control lcore adds; entries are never deleted
	 * (a failed neighbor keeps its slot), so no RCU is needed for the hash */
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF;
	dp_neigh_hash = rte_hash_create(&hp);
	if (neighs == NULL || dp_neigh_hash == NULL) {
		snprintf(err, errlen, "out of memory for %u neighbors: %s", conf.max,
			rte_strerror(rte_errno));
		dp_neigh_fini();
		return -ENOMEM;
	}
	return 0;
}

/* dpfwd stops: the packets still waiting for a neighbor are dropped, counted. */
static void
neigh_stop(void)
{
	uint32_t i;

	for (i = 0; neighs != NULL && i < dp_fwd.max_nh; i++)
		hold_drop(i, DP_DROP_SHUTDOWN);
}

/* Punt handlers and timers: after dp_ctl_init() (which forgets earlier ones). */
int
dp_neigh_start(void)
{
	int rc;

	rc = dp_ctl_punt_register(DP_PUNT_NEIGH4, on_punt_hold, NULL);
	if (rc == 0)
		rc = dp_ctl_punt_register(DP_PUNT_NEIGH6, on_punt_hold, NULL);
	if (rc == 0)
		rc = dp_ctl_timer_register("neigh", 100, neigh_tick, NULL);
	if (rc == 0)
		rc = dp_ctl_stop_register(neigh_stop);
	return rc;
}

void
dp_neigh_fini(void)
{
	uint32_t i;

	if (neighs != NULL)
		for (i = 0; i < dp_fwd.max_nh; i++)
			rte_pktmbuf_free_bulk(neighs[i].hold, neighs[i].nb_hold);
	held_total = 0;
	rte_free(neighs);
	neighs = NULL;
	rte_hash_free(dp_neigh_hash);
	dp_neigh_hash = NULL;
	nb_neighs = 0;
}

static json_t *
neigh_fill(void *arg)
{
	json_t *arr = json_array();
	uint64_t now = dp_ctl_now_ms();
	uint32_t i, shown = 0;

	RTE_SET_USED(arg);
	for (i = 0; neighs != NULL && i < dp_fwd.nb_nh && shown < 256; i++) {
		const struct neigh *n = &neighs[i];
		const struct dp_fwd_nh *nh = &dp_fwd.nh[i];
		char ip[64], mac[RTE_ETHER_ADDR_FMT_SIZE], port[DP_PORT_NAME_LEN];

		if (n->family == 0)
			continue;
		shown++;
		if (n->family == 6) {
			inet_ntop(AF_INET6, nh->gw6, ip, sizeof(ip));
		} else {
			dp_config_ip4_str(nh->gw, ip, sizeof(ip));
		}
		rte_ether_format_addr(mac, sizeof(mac), &nh->l2.dst_addr);
		json_array_append_new(arr,
			json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:I, s:i}", "ip", ip, "port",
				nh->port, "port_name", dp_port_name(nh->port, port, sizeof(port)),
				"state", state_names[n->state], "mac",
				(nh->flags & DP_FWD_NH_F_RESOLVED) ? mac : "", "held", n->nb_hold,
				"age_ms", (json_int_t)(now - n->updated_ms), "next_hop", (int)i));
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "entries",
		(json_int_t)nb_neighs, "max", (json_int_t)conf.max, "created",
		(json_int_t)stats.created, "resolved", (json_int_t)stats.resolved, "failed",
		(json_int_t)stats.failed, "solicitations", (json_int_t)stats.solicits, "held",
		(json_int_t)stats.held, "released", (json_int_t)stats.released, "learned",
		(json_int_t)stats.learned, "neighbors", arr);
}

int
dp_neigh_telemetry_register(void)
{
	return dp_telemetry_section_register("neighbors", "/dpfwd/fwd/neighbors",
		"Neighbor table (ARP, ND): states, MACs, held packets (first 256), counters",
		neigh_fill, NULL);
}
