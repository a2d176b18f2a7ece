/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel's routes and neighbors through the mirrors, read from one
 * non-blocking NETLINK_ROUTE socket on the control lcore (libmnl): a dump of
 * the routes at start, then of the neighbors, then the notifications of the
 * groups RTMGRP_IPV4_ROUTE, RTMGRP_IPV6_ROUTE and RTMGRP_NEIGH.
 *
 * Each prefix dpfwd has from netlink is kept here with the generation of the
 * dump or message that set it. When the socket lost messages (ENOBUFS), when
 * a mirror's link changes (the kernel drops the routes of a link that goes
 * down without a message for each), or when asked (/dpfwd/linux/resync), the
 * routes are dumped again under a new generation; at the dump's end, the
 * prefixes the dump did not name are deleted (a resync). One dump at a time:
 * a resync asked during one follows it; a dump is asked when a read found the
 * socket empty, after what it had was taken. A prefix of the
 * config's routes is the config's: netlink never replaces or deletes it.
 *
 * IPv4 notifications are made as they are read, in place where that is safe
 * (route.c); a dump's IPv4 routes, and IPv6 changes, wait to share one copy of
 * their table (nl_pending_apply()): a dump's until its end, IPv6 notifications
 * until their burst is over or NL_HOLD_MS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>

#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_fwd_config.h"
#include "dp_neigh.h"
#include "linuxcp_priv.h"

#define NL_ROUTES_MIN      1024u  /* room for the prefixes netlink may own, at least */
#define NL_RECV_BUF        32768u /* a dump's message buffers are at most that */
#define NL_OWNER_CONFIG    0      /* a config route: never touched */
#define NL_DUMP_GIVE_UP_MS 5000   /* a dump silent so long, its end lost: asked again */
#define NL_POLL_BUDGET_US  5000   /* a poll reads for so long at most, then the others' turn */
/* during a route dump, which only reads (its routes are made at its end): fewer turns given
 * up to the other threads of a busy CPU, the control lcore's other work as late as 20 ms */
#define NL_DUMP_BUDGET_US 20000
/* Notifications that need a copy of their table wait for more to share it: until a poll
 * reads nothing (the burst is over), the first of them has waited NL_HOLD_MS (IPv4: and
 * NL_HOLD4_COPIES times what the last IPv4 copy took, NL_HOLD4_MAX_MS at most), or
 * NL_HOLD_MAX wait. */
#define NL_HOLD_MS      50
#define NL_HOLD4_COPIES 4
#define NL_HOLD4_MAX_MS 10000
#define NL_HOLD_MAX     65536u

struct nl_key {
	uint8_t family;
	uint8_t plen;
	uint8_t pad[2];
	uint8_t addr[16];
};

enum nl_dump { NL_DUMP_NONE, NL_DUMP_ROUTES, NL_DUMP_NEIGH };

static struct {
	struct mnl_socket *sock;
	struct rte_hash *owners; /* struct nl_key -> generation (NL_OWNER_CONFIG: config's) */
	uintptr_t gen;
	uint32_t seq;
	uint32_t dump_seq;
	enum nl_dump dump;
	bool resync_wanted; /* a dump asked: at the next empty socket, after the one running */
	uint64_t dump_ms;   /* when the dump in progress was asked or last sent */
	int ifindex[DP_CONFIG_MAX_PORTS];
	uint16_t refs[DP_CONFIG_MAX_PORTS]; /* how routes name each port: N or N.VID */
	/* the route changes waiting to be made, each family's in one copy of its table
	 * (nl_pending_apply()): IPv4, those of a route dump in progress (and the
	 * notifications read during it), made at its end; IPv6, those of a poll or a dump */
	struct nl_pending {
		void *c; /* struct dp_fwd_route4_change or dp_fwd_route6_change */
		uint32_t nb, max;
		uint64_t since_ms; /* when the first of them came */
	} p4, p6;
	uint64_t copy4_ms; /* what the last copy of the IPv4 table took */
	bool got;          /* the poll read messages */
} nl;

static int
nl_dump_ask(enum nl_dump what)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;

	nlh->nlmsg_type = what == NL_DUMP_ROUTES ? RTM_GETROUTE : RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++nl.seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->rtgen_family = AF_UNSPEC;
	if (mnl_socket_sendto(nl.sock, nlh, nlh->nlmsg_len) < 0) {
		DP_LOG(ERR, linuxcp, "netlink: cannot ask a dump: %s", strerror(errno));
		return -errno;
	}
	nl.dump_seq = nl.seq;
	nl.dump = what;
	nl.dump_ms = dp_ctl_now_ms();
	if (what == NL_DUMP_ROUTES) {
		nl.gen++;
		lcp_stats.dumps++;
	}
	return 0;
}

static void
nl_key_of(const struct lcp_route *r, struct nl_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = (uint8_t)r->family;
	k->plen = r->plen;
	memcpy(k->addr, r->addr, sizeof(k->addr));
}

/* "PREFIX/len" of @p k */
static void
nl_text_prefix(const struct nl_key *k, char *text, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(k->family, k->addr, addr, sizeof(addr));
	snprintf(text, len, "%s/%u", addr, k->plen);
}

/*
 * An add nl_pending_apply() could not make. Its prefix stays netlink's: what dpfwd had
 * there before (an older route from netlink) goes with the kernel's delete or the next
 * reconciliation, and a delete of nothing is harmless.
 */
static void
nl_pending_warn(int family, const uint8_t *addr, uint8_t plen, int rc)
{
	char text[INET6_ADDRSTRLEN + 8];
	struct nl_key k;

	memset(&k, 0, sizeof(k));
	k.family = (uint8_t)family;
	k.plen = plen;
	memcpy(k.addr, addr, family == AF_INET ? 4 : 16);
	nl_text_prefix(&k, text, sizeof(text));
	DP_LOG(WARNING, linuxcp, "netlink route %s: not taken: %s", text, strerror(-rc));
}

/* A change's outcome in the counters; @p rc: the batch's, else the change's; @p same: the
 * table had it already. */
static void
nl_pending_count(bool del, bool same, int rc, int family, const uint8_t *addr, uint8_t plen)
{
	if (rc == 0 && same) {
		lcp_stats.routes_unchanged++;
		return;
	}
	if (rc == 0 || (del && rc == -ENOENT)) {
		if (del)
			lcp_stats.routes_deleted++;
		else
			lcp_stats.routes_added++;
		return;
	}
	lcp_stats.route_errors++;
	if (!del)
		nl_pending_warn(family, addr, plen, rc);
}

/* Make the pending changes (nl.p4, nl.p6), each family in one copy of its table. */
static void
nl_pending_apply(void)
{
	struct dp_fwd_route4_change *c4 = nl.p4.c;
	struct dp_fwd_route6_change *c6 = nl.p6.c;
	uint32_t i, a;
	int rc;

	if (nl.p4.nb > 0) {
		const uint64_t t0 = dp_ctl_now_ms();

		rc = dp_fwd_route4_changes_apply(c4, nl.p4.nb);
		nl.copy4_ms = dp_ctl_now_ms() - t0;
		/* nothing made (no memory for the copy): the kernel's table asked again */
		if (rc < 0) {
			DP_LOG(WARNING, linuxcp, "netlink: %u IPv4 route changes not made: %s",
				nl.p4.nb, strerror(-rc));
			nl.resync_wanted = true;
		}
		for (i = 0; i < nl.p4.nb; i++) {
			a = rte_cpu_to_be_32(c4[i].prefix);
			nl_pending_count(c4[i].del, c4[i].same, rc < 0 ? rc : c4[i].rc, AF_INET,
				(const uint8_t *)&a, c4[i].plen);
		}
		nl.p4.nb = 0;
	}
	if (nl.p6.nb > 0) {
		rc = dp_fwd_route6_changes_apply(c6, nl.p6.nb);
		if (rc == -ENOMEM) {
			DP_LOG(WARNING, linuxcp, "netlink: %u IPv6 route changes not made: %s",
				nl.p6.nb, strerror(-rc));
			nl.resync_wanted = true;
		}
		for (i = 0; i < nl.p6.nb; i++)
			nl_pending_count(c6[i].del, c6[i].same, rc < 0 ? rc : c6[i].rc, AF_INET6,
				c6[i].prefix, c6[i].plen);
		nl.p6.nb = 0;
	}
}

/*
 * The next free change of @p family's pending ones, room made for it (those so far made
 * in a copy of their own when no more memory comes), or NULL (-ENOMEM, @p err says).
 * Counted once filled: nl_pending_commit().
 */
static void *
nl_pending_next(int family, char *err, size_t errlen)
{
	struct nl_pending *p = family == AF_INET ? &nl.p4 : &nl.p6;
	const size_t size = family == AF_INET ? sizeof(struct dp_fwd_route4_change)
					      : sizeof(struct dp_fwd_route6_change);
	const uint32_t want = RTE_MAX(p->max * 2, 1024u);
	void *more;

	if (p->nb < p->max)
		return (char *)p->c + size * p->nb;
	more = want <= DP_FWD_ROUTE4_SORT_MAX ? realloc(p->c, size * want) : NULL;
	if (more != NULL) {
		p->c = more;
		p->max = want;
	} else {
		nl_pending_apply();
	}
	if (p->max == 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return (char *)p->c + size * p->nb;
}

static void
nl_pending_commit(int family)
{
	struct nl_pending *p = family == AF_INET ? &nl.p4 : &nl.p6;

	if (p->nb++ == 0)
		p->since_ms = dp_ctl_now_ms();
}

/* Pending changes waited long enough (NL_HOLD_MS), or are many enough, to be made now. */
static bool
nl_pending_due(const struct nl_pending *p, uint64_t hold_ms, uint64_t now)
{
	return p->nb > 0 && (p->nb >= NL_HOLD_MAX || now - p->since_ms >= hold_ms);
}

/*
 * Whether IPv4 route @p r waits with the pending changes: when some wait already (the
 * order of changes is kept), or when dpfwd could not make it in place.
 */
static bool
nl_route4_held(const struct lcp_route *r)
{
	uint32_t a;

	if (nl.p4.nb > 0)
		return true;
	memcpy(&a, r->addr, 4);
	return !dp_fwd_route4_in_place(rte_be_to_cpu_32(a), r->plen);
}

/* IPv4 route @p r of one next hop as dpfwd's (its port a reference: N or N.VID) */
static void
nl_route4_of(const struct lcp_route *r, struct dp_fwd_config_route4 *r4)
{
	uint32_t a;

	memset(r4, 0, sizeof(*r4));
	memcpy(&a, r->addr, 4);
	r4->prefix = rte_be_to_cpu_32(a);
	r4->plen = r->plen;
	r4->has_gw = r->has_gw;
	memcpy(&a, r->gw, 4);
	r4->gw = rte_be_to_cpu_32(a);
	r4->port = r->port_ref;
}

/*
 * One more change of route @p r for the pending ones; @return 0, or -errno (@p err says).
 * An IPv4 route of one next hop goes without its text.
 */
static int
nl_pending_add(struct lcp_route *r, char *err, size_t errlen)
{
	void *c = nl_pending_next(r->family, err, errlen);
	struct dp_fwd_config_route4 r4;
	int rc;

	if (c == NULL)
		return -ENOMEM;
	if (r->family == AF_INET6) {
		rc = dp_fwd_route6_change_prepare(lcp_route_text(r), r->del, c, err, errlen);
	} else if (r->multipath) {
		rc = dp_fwd_route4_change_prepare(lcp_route_text(r), r->del, c, err, errlen);
	} else {
		nl_route4_of(r, &r4);
		rc = dp_fwd_route4_change_of(&r4, r->del, c, err, errlen);
	}
	if (rc == 0)
		nl_pending_commit(r->family);
	return rc;
}

/*
 * Route @p r added or deleted in the live table at once (in place where that is safe,
 * route.c); an IPv4 route of one next hop without its text. @return 0 or -errno
 * (-ENOENT: a delete of nothing; @p err says).
 */
static int
nl_route_now(struct lcp_route *r, char *err, size_t errlen)
{
	struct dp_fwd_config_route4 r4;
	struct dp_fwd_route4_change c;
	int rc;

	if (r->family == AF_INET6 || r->multipath)
		return r->del ? dp_fwd_route_del(lcp_route_text(r), err, errlen)
			      : dp_fwd_route_add(lcp_route_text(r), err, errlen);
	nl_route4_of(r, &r4);
	rc = dp_fwd_route4_change_of(&r4, r->del, &c, err, errlen);
	if (rc == 0)
		rc = dp_fwd_route4_change_make(&c);
	if (rc < 0 && rc != -ENOENT)
		snprintf(err, errlen, "%s",
			rc == -ENOSPC ? "table full (IPv4 routes or tbl8 "
					"groups: [routes] ip4_max, ip4_tbl8)"
				      : strerror(-rc));
	return rc;
}

/* A route message parsed, with its owner's key hashed when it is an add or a delete. */
struct nl_route_msg {
	struct lcp_route r;
	enum lcp_route_verdict v;
	struct nl_key k;
	hash_sig_t sig;
};

static void
nl_route(struct nl_route_msg *m)
{
	struct lcp_route *r = &m->r;
	char err[256];
	void *owner;
	bool known, batched;
	int rc;

	switch (m->v) {
	case LCP_ROUTE_SKIP:
		lcp_stats.routes_skipped++;
		return;
	case LCP_ROUTE_OTHER_IF:
		lcp_stats.routes_other_if++;
		return;
	case LCP_ROUTE_UNSUPPORTED:
		lcp_stats.routes_unsupported++;
		return;
	case LCP_ROUTE_ADD:
		/* IPv4 during a route dump or when not in place, IPv6 always: in a copy */
		batched = r->family == AF_INET6 || nl.dump == NL_DUMP_ROUTES || nl_route4_held(r);
		known = rte_hash_lookup_with_hash_data(nl.owners, &m->k, m->sig, &owner) >= 0;
		if (known && (uintptr_t)owner == NL_OWNER_CONFIG) {
			lcp_stats.routes_config++;
			return;
		}
		if (batched) {
			/* made in the batch's copy: owned from now on */
			if (rte_hash_add_key_with_hash_data(
				    nl.owners, &m->k, m->sig, (void *)nl.gen) < 0) {
				lcp_stats.route_errors++;
				DP_LOG(WARNING, linuxcp,
					"netlink route %s: not taken, the table of routes from "
					"netlink is full ([routes] ip4_max)",
					lcp_route_text(r));
			} else if (nl_pending_add(r, err, sizeof(err)) < 0) {
				/* nothing changed in dpfwd: owned as before */
				if (!known)
					rte_hash_del_key_with_hash(nl.owners, &m->k, m->sig);
				lcp_stats.route_errors++;
				DP_LOG(WARNING, linuxcp, "netlink route %s: %s", lcp_route_text(r),
					err);
			}
			return;
		}
		if (nl_route_now(r, err, sizeof(err)) < 0) {
			lcp_stats.route_errors++;
			DP_LOG(WARNING, linuxcp, "netlink route %s: %s", lcp_route_text(r), err);
			return;
		}
		if (rte_hash_add_key_with_hash_data(nl.owners, &m->k, m->sig, (void *)nl.gen) < 0) {
			/* a route netlink could never withdraw: not kept */
			r->text[0] = '\0';
			r->del = true; /* its text: the prefix */
			nl_route_now(r, err, sizeof(err));
			lcp_stats.route_errors++;
			DP_LOG(WARNING, linuxcp,
				"netlink route %s: not taken, the table of "
				"routes from netlink is full ([routes] ip4_max)",
				lcp_route_text(r));
			return;
		}
		lcp_stats.routes_added++;
		return;
	case LCP_ROUTE_DEL:
		batched = r->family == AF_INET6 || nl.dump == NL_DUMP_ROUTES || nl_route4_held(r);
		if (rte_hash_lookup_with_hash_data(nl.owners, &m->k, m->sig, &owner) < 0)
			return;
		if ((uintptr_t)owner == NL_OWNER_CONFIG) {
			lcp_stats.routes_config++;
			return;
		}
		rte_hash_del_key_with_hash(nl.owners, &m->k, m->sig);
		if (batched) {
			if (nl_pending_add(r, err, sizeof(err)) < 0) {
				lcp_stats.route_errors++;
				DP_LOG(WARNING, linuxcp, "netlink route del %s: %s",
					lcp_route_text(r), err);
			}
			return;
		}
		rc = nl_route_now(r, err, sizeof(err));
		if (rc < 0 && rc != -ENOENT) {
			lcp_stats.route_errors++;
			DP_LOG(WARNING, linuxcp, "netlink route del %s: %s", lcp_route_text(r),
				err);
			return;
		}
		lcp_stats.routes_deleted++;
		return;
	}
}

/*
 * Route messages are taken NL_BURST at a time: their owners are looked up together first
 * (rte_hash_lookup_with_hash_bulk_data() fetches their buckets and keys ahead of one
 * another), then each message is made in order, its own lookups finding them cached. A
 * table of a million owners is much larger than the caches: one at a time, each lookup
 * would wait for memory.
 */
#define NL_BURST 32
static struct {
	struct nl_route_msg m[NL_BURST];
	unsigned int nb;
} nl_burst;

/* Make the route messages of the burst, in the order they came. */
static void
nl_burst_run(void)
{
	const void *keys[NL_BURST];
	hash_sig_t sigs[NL_BURST];
	void *data[NL_BURST];
	uint64_t hits;
	unsigned int i, n = 0;

	for (i = 0; i < nl_burst.nb; i++) {
		const struct nl_route_msg *m = &nl_burst.m[i];

		if (m->v != LCP_ROUTE_ADD && m->v != LCP_ROUTE_DEL)
			continue;
		keys[n] = &m->k;
		sigs[n++] = m->sig;
	}
	/* only for the cache: the answers may change with the messages before each */
	if (n > 0)
		rte_hash_lookup_with_hash_bulk_data(nl.owners, keys, sigs, n, &hits, data);
	for (i = 0; i < nl_burst.nb; i++)
		nl_route(&nl_burst.m[i]);
	nl_burst.nb = 0;
}

/* Route message @p nlh parsed into the burst, which is made once full. */
static void
nl_burst_add(const struct nlmsghdr *nlh)
{
	struct nl_route_msg *m = &nl_burst.m[nl_burst.nb++];

	m->v = lcp_route_parse(nlh, nl.ifindex, nl.refs, lcp_nb_mirrors, &m->r);
	if (m->v == LCP_ROUTE_ADD || m->v == LCP_ROUTE_DEL) {
		nl_key_of(&m->r, &m->k);
		m->sig = rte_hash_hash(nl.owners, &m->k);
	}
	if (nl_burst.nb == NL_BURST)
		nl_burst_run();
}

static int
neigh_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(attr, NDA_MAX) >= 0)
		tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

/* a neighbor Linux resolved on a mirror is one dpfwd may use too */
static void
nl_neigh(const struct nlmsghdr *nlh)
{
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NDA_MAX + 1] = { NULL };
	const uint16_t good = NUD_REACHABLE | NUD_PERMANENT | NUD_STALE | NUD_DELAY | NUD_PROBE;
	const size_t alen = nd->ndm_family == AF_INET ? 4 : 16;
	int port;

	if (nlh->nlmsg_type != RTM_NEWNEIGH || (nd->ndm_state & good) == 0)
		return;
	if (nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6)
		return;
	port = lcp_port_of_ifindex(nd->ndm_ifindex);
	if (port < 0)
		return;
	mnl_attr_parse(nlh, sizeof(*nd), neigh_attr_cb, tb);
	if (tb[NDA_DST] == NULL || tb[NDA_LLADDR] == NULL ||
		mnl_attr_get_payload_len(tb[NDA_DST]) != alen ||
		mnl_attr_get_payload_len(tb[NDA_LLADDR]) != RTE_ETHER_ADDR_LEN)
		return;
	dp_neigh_learn(alen == 4 ? 4 : 6, mnl_attr_get_payload(tb[NDA_DST]), (uint16_t)port,
		mnl_attr_get_payload(tb[NDA_LLADDR]), false, true);
	lcp_stats.neigh_learned++;
}

/* the end of a route dump: prefixes it did not name are gone */
static void
nl_reconcile(void)
{
	const void *key;
	void *data;
	uint32_t it = 0;
	struct nl_key gone[64];
	unsigned int nb, i;
	struct lcp_route r;
	char err[256];

	do {
		nb = 0;
		it = 0;
		while (nb < DP_ARRAY_SIZE(gone) &&
			rte_hash_iterate(nl.owners, &key, &data, &it) >= 0)
			if ((uintptr_t)data != NL_OWNER_CONFIG && (uintptr_t)data != nl.gen)
				memcpy(&gone[nb++], key, sizeof(gone[0]));
		for (i = 0; i < nb; i++) {
			rte_hash_del_key(nl.owners, &gone[i]);
			memset(&r, 0, sizeof(r));
			r.family = gone[i].family;
			r.plen = gone[i].plen;
			memcpy(r.addr, gone[i].addr, sizeof(r.addr));
			r.del = true;
			/* with the dump's changes, in their copy */
			if (nl_pending_add(&r, err, sizeof(err)) < 0)
				lcp_stats.route_errors++;
		}
	} while (nb == DP_ARRAY_SIZE(gone));
}

static int
nl_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	RTE_SET_USED(data);
	lcp_stats.nl_messages++;
	if (nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE) {
		nl_burst_add(nlh);
		return MNL_CB_OK;
	}
	/* the routes before it first */
	nl_burst_run();
	switch (nlh->nlmsg_type) {
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		nl_neigh(nlh);
		break;
	case RTM_NEWLINK:
	case RTM_DELLINK: {
		const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

		if (lcp_port_of_ifindex(ifi->ifi_index) >= 0) {
			lcp_stats.link_changes++;
			lcp_nl_resync();
		}
		break;
	}
	default:
		break;
	}
	return MNL_CB_OK;
}

static void
nl_dump_done(void)
{
	const enum nl_dump was = nl.dump;

	nl.dump = NL_DUMP_NONE;
	if (!nl.resync_wanted && was == NL_DUMP_ROUTES)
		nl_reconcile();
	nl_pending_apply();
	if (nl.resync_wanted)
		return; /* asked again once the socket is empty (nl_read()) */
	if (was == NL_DUMP_ROUTES)
		nl_dump_ask(NL_DUMP_NEIGH);
}

void
lcp_nl_resync(void)
{
	if (nl.sock != NULL)
		nl.resync_wanted = true;
}

/* What the socket has, until it is empty or the poll's budget has passed. */
static void
nl_read(void)
{
	static char buf[NL_RECV_BUF];
	const uint64_t end =
		rte_get_tsc_cycles() +
		rte_get_tsc_hz() / 1000000 *
			(nl.dump == NL_DUMP_ROUTES ? NL_DUMP_BUDGET_US : NL_POLL_BUDGET_US);
	ssize_t n;

	while (rte_get_tsc_cycles() < end) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		int len;

		n = mnl_socket_recvfrom(nl.sock, buf, sizeof(buf));
		if (n < 0) {
			if (errno == ENOBUFS) {
				/* messages lost: dump again and reconcile */
				lcp_stats.resyncs++;
				nl.resync_wanted = true;
				continue;
			}
			/* EAGAIN: the socket is empty. Only now is a dump asked: the kernel
			 * reports ENOBUFS once per overrun, until the socket was emptied, so
			 * a dump asked before would miss the changes dropped in between */
			if (nl.dump == NL_DUMP_NONE && nl.resync_wanted) {
				nl.resync_wanted = false;
				nl_dump_ask(NL_DUMP_ROUTES);
			}
			return;
		}
		len = (int)n;
		nl.got = true;
		/* a dump that still sends is not lost */
		if (nl.dump != NL_DUMP_NONE && mnl_nlmsg_ok(nlh, len) &&
			nlh->nlmsg_seq == nl.dump_seq)
			nl.dump_ms = dp_ctl_now_ms();
		/* by hand rather than mnl_cb_run(): a dump's end and notifications share the socket */
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR) {
				if (nl.dump == NL_DUMP_NONE || nlh->nlmsg_seq != nl.dump_seq)
					continue;
				nl_burst_run(); /* the dump's last routes */
				if (nlh->nlmsg_type == NLMSG_ERROR) {
					/* refused (EBUSY: the kernel's dump of before still runs):
					 * asked again at the next poll */
					nl.dump = NL_DUMP_NONE;
					nl.resync_wanted = true;
					nl_pending_apply();
					continue;
				}
				nl_dump_done();
				continue;
			}
			nl_msg_cb(nlh, NULL);
		}
		nl_burst_run();
	}
}

void
lcp_nl_poll(void)
{
	if (nl.sock == NULL)
		return;
	if (nl.dump != NL_DUMP_NONE && dp_ctl_now_ms() - nl.dump_ms > NL_DUMP_GIVE_UP_MS) {
		nl.dump = NL_DUMP_NONE;
		nl.resync_wanted = true;
		nl_pending_apply();
	}
	/* a resync's dump is asked by nl_read() once it finds the socket empty; the
	 * routes of one read share their waits for the workers */
	dp_fwd_route_batch_begin();
	nl.got = false;
	nl_read();
	/* a dump's changes wait for its end; the others for the end of their burst, or
	 * their hold (NL_HOLD_MS) */
	if (nl.dump != NL_DUMP_ROUTES) {
		const uint64_t now = dp_ctl_now_ms();
		const uint64_t hold4 =
			RTE_MIN(RTE_MAX((uint64_t)NL_HOLD_MS, NL_HOLD4_COPIES * nl.copy4_ms),
				(uint64_t)NL_HOLD4_MAX_MS);

		if (!nl.got || nl_pending_due(&nl.p4, hold4, now) ||
			nl_pending_due(&nl.p6, NL_HOLD_MS, now))
			nl_pending_apply();
	}
	dp_fwd_route_batch_end();
}

int
lcp_port_of_ifindex(int ifindex)
{
	uint16_t p;

	for (p = 0; p < lcp_nb_mirrors; p++)
		if (ifindex != 0 && lcp_mirrors[p].ifindex == ifindex)
			return p;
	return -1;
}

/* The socket's receive buffer: @p bytes, past net.core.rmem_max where allowed (root). */
static void
nl_rcvbuf_set(unsigned int bytes)
{
	const int fd = mnl_socket_get_fd(nl.sock);
	const int v = (int)bytes;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0 &&
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) < 0)
		DP_LOG(WARNING, linuxcp, "netlink: receive buffer of %u bytes refused: %s", bytes,
			strerror(errno));
}

static int
nl_owners_config(const struct dp_config *cfg)
{
	const struct dp_fwd_routes_config *rc = dp_fwd_routes_config(cfg);
	struct nl_key k;
	uint32_t i, a;

	for (i = 0; i < rc->nb_routes4; i++) {
		memset(&k, 0, sizeof(k));
		k.family = AF_INET;
		k.plen = rc->routes4[i].plen;
		a = rte_cpu_to_be_32(rc->routes4[i].prefix);
		memcpy(k.addr, &a, 4);
		if (rte_hash_add_key_data(nl.owners, &k, (void *)NL_OWNER_CONFIG) < 0)
			return -ENOSPC;
	}
	for (i = 0; i < rc->nb_routes6; i++) {
		memset(&k, 0, sizeof(k));
		k.family = AF_INET6;
		k.plen = rc->routes6[i].plen;
		memcpy(k.addr, rc->routes6[i].prefix, 16);
		if (rte_hash_add_key_data(nl.owners, &k, (void *)NL_OWNER_CONFIG) < 0)
			return -ENOSPC;
	}
	return 0;
}

int
lcp_nl_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	/* as many prefixes as the IPv4 table has room for, and as many IPv6 ones */
	const struct rte_hash_parameters hp = {
		.name = "lcp_routes",
		.entries = RTE_MAX(NL_ROUTES_MIN, 2 * dp_fwd.ip4.max_routes),
		.key_len = sizeof(struct nl_key),
		.hash_func = rte_jhash,
		.socket_id = (int)rte_socket_id(),
	};
	const unsigned int groups =
		RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE | RTMGRP_NEIGH | RTMGRP_LINK;
	uint16_t p;
	int rc;

	for (p = 0; p < lcp_nb_mirrors; p++) {
		const struct dp_config_port *cp = &cfg->ports[p];

		nl.ifindex[p] = lcp_mirrors[p].ifindex;
		nl.refs[p] = cp->vid != 0 ? DP_CONFIG_PORT_REF(cp->parent, cp->vid) : p;
	}
	nl.owners = rte_hash_create(&hp);
	if (nl.owners == NULL) {
		snprintf(err, errlen, "linux: cannot make the route owners' table: %s",
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rc = nl_owners_config(cfg);
	if (rc < 0) {
		snprintf(err, errlen, "linux: too many config routes to track");
		goto free_owners;
	}
	nl.sock = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (nl.sock == NULL || mnl_socket_bind(nl.sock, groups, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		snprintf(err, errlen, "linux: cannot open the netlink socket: %s", strerror(errno));
		goto close_sock;
	}
	nl_rcvbuf_set(dp_linuxcp_config(cfg)->netlink_rcvbuf);
	nl.gen = NL_OWNER_CONFIG;
	rc = nl_dump_ask(NL_DUMP_ROUTES);
	if (rc < 0) {
		snprintf(err, errlen, "linux: cannot ask the kernel's routes: %s", strerror(-rc));
		goto close_sock;
	}
	return 0;

close_sock:
	if (nl.sock != NULL)
		mnl_socket_close(nl.sock);
	nl.sock = NULL;
free_owners:
	rte_hash_free(nl.owners);
	nl.owners = NULL;
	return rc;
}

void
lcp_nl_stop(void)
{
	if (nl.sock != NULL)
		mnl_socket_close(nl.sock);
	nl.sock = NULL;
	free(nl.p4.c);
	free(nl.p6.c);
	memset(&nl.p4, 0, sizeof(nl.p4));
	memset(&nl.p6, 0, sizeof(nl.p6));
	rte_hash_free(nl.owners);
	nl.owners = NULL;
}
