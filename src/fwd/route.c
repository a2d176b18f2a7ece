/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route changes while traffic flows: add and delete from telemetry commands,
 * reload of the config's routes on SIGHUP (and from a command).
 *
 * The workers read the IPv4 table (rte_fib, DIR24_8) without locks, and
 * DPDK 22.11's rte_fib has no RCU hook (rte_fib_rcu_qsbr_add() came later).
 * What a change does to a concurrent reader, from lib/fib/dir24_8.c (v22.11):
 *
 *   lookup:  e = tbl24[ip >> 8]; if (e & 1) e = tbl8[(e >> 1) * 256 + (ip & 255)];
 *            next hop = e >> 1
 *
 * 1. Entries are aligned 4-byte words, each written by one store: a reader sees
 *    an entry's old or its new value, and both are right while the change is
 *    being made (the packet goes where it went before, or where it goes after).
 * 2. A /24 gets a tbl8 group (tbl8_alloc) filled with the /24's old value
 *    before its tbl24 entry points to it: safe.
 * 3. A group is freed (tbl8_recycle) when its 256 entries become equal: the
 *    tbl24 entry takes that value, then the group is zeroed and marked free at
 *    once, without a grace period. A reader that loaded the old tbl24 entry
 *    may then read from the group
 *    (a) a zero, i.e. next hop 0 = DP_FWD_NH_LOCAL: a forwarded packet would
 *        be taken for the router's own;
 *    (b) another /24's entries, once the group is taken again.
 *
 * How each is closed:
 * (a) dp_fwd_lookup4*() (dp_fwd.h) look a DP_FWD_NH_LOCAL answer up again
 *     (the bulk ones only when dp_fwd.ip4_seq, odd during an in-place change,
 *     was odd or moved while they looked up).
 *     The tbl24 store comes before the zeroing stores in program order (a
 *     compiler keeps stores through uint32_t pointers it cannot tell apart in
 *     order, and x86 makes stores visible in order), so a reader that saw a
 *     zero then reads the new tbl24 entry. dir24_8 writes the /24s of a change in address
 *     order and frees a /24's group at its last write there (until then some
 *     entry still holds the old value, different from the new), so nothing
 *     rewrites that tbl24 entry during the same change.
 * (b) Across changes: a change that wrote into any tbl8 group ends with
 *     rte_rcu_qsbr_synchronize() on the workers' QSBR before it returns, so a
 *     group freed by one change is taken again by a later one only after every
 *     worker has finished the walk in which it may have read it. In a batch
 *     (dp_fwd_route_batch_begin(), netlink's), that wait moves to just before the
 *     next change that may take a group, and is made only when a change since the
 *     last wait may have freed one (tbl8_lacking(), before and after), and
 *     once at the end.
 *     Within one change: dir24_8 may free the group of one /24 and take a
 *     group for a later /24, possibly the same one, in one call. That needs a
 *     change whose writes reach into the groups of two /24s or more (a prefix
 *     up to /24 with longer prefixes inside it in two /24s), one of which has
 *     no group yet. Such a change (in_place_ok() finds them, with 256 lookups
 *     per /24: a /24 has a group exactly while its addresses do not all share
 *     one next hop) is made in a copy of the table, which is then swapped in as
 *     a reload is. Every other change is made in place.
 *
 * A change cannot fail half way: dp_fwd_fib4_add() keeps 2 tbl8 groups spare
 * (dir24_8 checks its reservation up front, but a change that needs two new
 * groups can run out after some writes) and the RIB fails before any write.
 * A reload builds a whole new table, swaps the pointer, waits for the workers
 * (RCU) and frees the old one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_rcu_qsbr.h>
#include <rte_rib.h>
#include <rte_rib6.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_fwd_group.h"
#include "dp_graph.h"
#include "dp_port.h"
#include "dp_telemetry.h"

#define ROUTE_CALL_TIMEOUT_MS 30000 /* a reload of a million routes takes seconds */

#define NET24(a) ((a)&0xffffff00u)

/* dp_fwd_route4_changes_apply() makes its changes in place when they are at most one per
 * that many routes of the table, else in a copy */
#define CHANGES4_IN_PLACE_SHARE 16

static struct {
	uint64_t added, deleted, reloads, reload_errors;
	uint64_t copies;       /**< single changes made in a copy of the table (see above) */
	uint64_t batch_copies; /**< batches of changes made in one copy (netlink's) */
	double last_reload_s, last_copy_s;
} route_stats;

/* A batch of changes (dp_fwd_route_batch_begin()): the grace periods its changes share. */
static struct {
	unsigned int depth; /* begins not yet ended */
	bool freed;         /* a change since the last grace period may have freed a tbl8 group */
	bool adj_owed;      /* adj4_revalidate() is owed at the batch's end */
} batch;

static void
workers_sync(void)
{
	if (dp_graph_qsv != NULL)
		rte_rcu_qsbr_synchronize(dp_graph_qsv, RTE_QSBR_THRID_INVALID);
	batch.freed = false;
}

/* The new IPv6 table of a reload (may be NULL: IPv6 off), as fib4_publish(). */
static void
fib6_publish(struct rte_fib6 *fib, uint32_t nb_routes)
{
	struct rte_fib6 *old = dp_fwd_ip6.fib;

	dp_fwd_ip6.nb_routes = nb_routes;
	__atomic_store_n(&dp_fwd_ip6.fib, fib, __ATOMIC_RELEASE);
	dp_fwd_path_gen_next();
	workers_sync();
	rte_fib6_free(old);
}

/* Make @p t the live table; the old one is freed once no worker reads it. */
static void
fib4_publish(struct dp_fwd_fib4 *t)
{
	struct dp_fwd_fib4 old = dp_fwd.ip4;

	/* workers pick the new table up at their next burst; once each has passed
	 * a walk, none holds the old one */
	dp_fwd.ip4.nb_routes = t->nb_routes;
	dp_fwd.ip4.nb_adj = t->nb_adj;
	dp_fwd.ip4.max_routes = t->max_routes;
	dp_fwd.ip4.tbl8_max = t->tbl8_max;
	dp_fwd.ip4.tbl8_used = t->tbl8_used;
	__atomic_store_n(&dp_fwd.ip4.fib, t->fib, __ATOMIC_RELEASE);
	dp_fwd_path_gen_next();
	workers_sync();
	dp_fwd_fib4_free(&old);
	memset(t, 0, sizeof(*t));
}

/* Whether @p net24's /24 has a tbl8 group: exactly while its 256 addresses do
 * not all have the same next hop (dir24_8 frees a group that becomes uniform). */
static bool
has_tbl8(struct rte_fib *fib, uint32_t net24)
{
	uint32_t ips[256];
	uint64_t hop[256];
	unsigned int i;

	for (i = 0; i < 256; i++)
		ips[i] = net24 | i;
	rte_fib_lookup_bulk(fib, ips, hop, 256);
	for (i = 1; i < 256; i++)
		if (hop[i] != hop[0])
			return true;
	return false;
}

/*
 * Whether the change of @p prefix/@p plen (an add or a delete) can be made in
 * the live table (see the top of the file, 3(b)): not when it writes into the
 * tbl8 groups of two /24s or more and one of them has no group yet.
 * *tbl8: it may write into (and free) a group.
 *
 * dir24_8 writes the prefix's range less its first-level longer prefixes
 * (rte_rib_get_nxt() COVER, in address order); a /24 is written in part, and
 * so through a group, when the prefix is longer than /24 or when one of those
 * longer than /24 is in it.
 */
static bool
in_place_ok(struct rte_fib *fib, uint32_t prefix, uint8_t plen, bool *tbl8)
{
	struct rte_rib *rib = rte_fib_get_rib(fib);
	struct rte_rib_node *n = NULL;
	uint32_t first = 0, last = 0, ip;
	unsigned int count = 0;
	uint8_t d;

	*tbl8 = plen > 24;
	if (plen > 24)
		return true; /* one /24 only */
	while ((n = rte_rib_get_nxt(rib, prefix, plen, n, RTE_RIB_GET_NXT_COVER)) != NULL) {
		rte_rib_get_depth(n, &d);
		if (d <= 24)
			continue;
		rte_rib_get_ip(n, &ip);
		if (count > 0 && NET24(ip) == last)
			continue;
		last = NET24(ip);
		if (++count == 1) {
			first = last;
			continue;
		}
		if ((count == 2 && !has_tbl8(fib, first)) || !has_tbl8(fib, last))
			return false;
	}
	*tbl8 = count > 0;
	return true;
}

/*
 * Whether a /24 that a change of @p prefix/@p plen writes through a tbl8 group has no
 * group: before the change, it may take one; after it, it may have freed one (a /24 has
 * a group exactly while it is not uniform). Those /24s are the one of a prefix longer
 * than /24, or those of the longer prefixes inside a shorter one (beyond TBL8_CHECK_MAX
 * of them: assumed).
 */
#define TBL8_CHECK_MAX 8
static bool
tbl8_lacking(struct rte_fib *fib, uint32_t prefix, uint8_t plen)
{
	struct rte_rib *rib = rte_fib_get_rib(fib);
	struct rte_rib_node *n = NULL;
	uint32_t last = 0, ip;
	unsigned int count = 0;
	uint8_t d;

	if (plen > 24)
		return !has_tbl8(fib, NET24(prefix));
	while ((n = rte_rib_get_nxt(rib, prefix, plen, n, RTE_RIB_GET_NXT_COVER)) != NULL) {
		rte_rib_get_depth(n, &d);
		if (d <= 24)
			continue;
		rte_rib_get_ip(n, &ip);
		if (count > 0 && NET24(ip) == last)
			continue;
		last = NET24(ip);
		if (++count > TBL8_CHECK_MAX || !has_tbl8(fib, last))
			return true;
	}
	return false;
}

/* Delete from @p t, keeping its counts. */
static int
fib4_del(struct dp_fwd_fib4 *t, uint32_t prefix, uint8_t plen)
{
	int rc = rte_fib_delete(t->fib, prefix, plen);

	if (rc < 0)
		return rc;
	t->nb_routes--;
	/* dir24_8 releases the /24's reservation with its last longer prefix */
	if (plen > 24 && rte_rib_get_nxt(rte_fib_get_rib(t->fib), NET24(prefix), 24, NULL,
				 RTE_RIB_GET_NXT_COVER) == NULL)
		t->tbl8_used--;
	return 0;
}

/* A new table with the routes of @p src, as big. */
static int
fib4_copy(const struct dp_fwd_fib4 *src, struct dp_fwd_fib4 *dst)
{
	struct rte_rib *rib = rte_fib_get_rib(src->fib);
	struct rte_rib_node *n;
	uint64_t nh;
	uint32_t ip;
	uint8_t d;
	int rc;

	memset(dst, 0, sizeof(*dst));
	dst->max_routes = src->max_routes;
	dst->tbl8_max = src->tbl8_max;
	rc = dp_fwd_fib4_create(dst);
	if (rc < 0)
		return rc;
	/* rte_rib_get_nxt() under 0/0 gives every prefix but 0/0 itself (children
	 * before parents: it cannot start from 0/0, the last one) */
	n = rte_rib_lookup_exact(rib, 0, 0);
	if (n != NULL) {
		rte_rib_get_nh(n, &nh);
		rc = dp_fwd_fib4_add(dst, 0, 0, (uint32_t)nh);
	}
	n = NULL;
	while (rc == 0 && (n = rte_rib_get_nxt(rib, 0, 0, n, RTE_RIB_GET_NXT_ALL)) != NULL) {
		rte_rib_get_ip(n, &ip);
		rte_rib_get_depth(n, &d);
		rte_rib_get_nh(n, &nh);
		rc = dp_fwd_fib4_add(dst, ip, d, (uint32_t)nh);
	}
	if (rc < 0)
		dp_fwd_fib4_free(dst);
	dst->nb_adj = src->nb_adj;
	return rc;
}

/*
 * Add (@p add) or delete @p prefix/@p plen in the live table, in place when
 * that is safe for the workers, else in a copy swapped in.
 */
static int
fib4_change(bool add, uint32_t prefix, uint8_t plen, uint32_t nh)
{
	struct dp_fwd_fib4 copy;
	uint64_t t0;
	bool tbl8;
	int rc;

	if (in_place_ok(dp_fwd.ip4.fib, prefix, plen, &tbl8)) {
		/* in a batch, a change that may take a group waits for the workers
		 * only when an earlier one may have freed one */
		if (tbl8 && batch.freed && tbl8_lacking(dp_fwd.ip4.fib, prefix, plen))
			workers_sync();
		/* odd for the change's writes: a bulk lookup that overlaps them
		 * confirms its LOCAL answers (3(a)); full barriers both sides */
		__atomic_fetch_add(&dp_fwd.ip4_seq, 1, __ATOMIC_SEQ_CST);
		rc = add ? dp_fwd_fib4_add(&dp_fwd.ip4, prefix, plen, nh)
			 : fib4_del(&dp_fwd.ip4, prefix, plen);
		__atomic_fetch_add(&dp_fwd.ip4_seq, 1, __ATOMIC_SEQ_CST);
		if (rc == 0)
			dp_fwd_path_gen_next();
		/* no later change may take a group this one freed while a worker
		 * may still read it (3(b)): at once, or in a batch before the next
		 * change that may take one (or at its end) */
		if (tbl8 && batch.depth == 0)
			workers_sync();
		else if (tbl8 && !batch.freed)
			batch.freed = tbl8_lacking(dp_fwd.ip4.fib, prefix, plen);
		return rc;
	}
	t0 = rte_get_tsc_cycles();
	rc = fib4_copy(&dp_fwd.ip4, &copy);
	if (rc == 0)
		rc = add ? dp_fwd_fib4_add(&copy, prefix, plen, nh) : fib4_del(&copy, prefix, plen);
	if (rc < 0) {
		dp_fwd_fib4_free(&copy);
		return rc;
	}
	fib4_publish(&copy);
	route_stats.copies++;
	route_stats.last_copy_s = (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz();
	DP_LOG(INFO, fwd, "route change %s/%u made in a copy of the table (%u routes, %.3f s)",
		add ? "add" : "del", plen, DP_FWD_IP4_ROUTES(), route_stats.last_copy_s);
	return 0;
}

bool
dp_fwd_route4_in_place(uint32_t prefix, uint8_t plen)
{
	bool tbl8;

	return in_place_ok(dp_fwd.ip4.fib, prefix, plen, &tbl8);
}

/* ---- adjacencies (dp_fwd.h) ---- */

static struct {
	uint64_t added, removed;
} adj_stats;

/*
 * Add an adjacency to the live table, from ARP processing on the control
 * lcore. A /32 is changed in place, and an add that leaves its /24 with a
 * tbl8 group freed nothing (3(b) at the top): then there is no grace period
 * to wait for, and resolving a neighbor does not wait on the workers. The
 * /24 can only lose its group when every other address there has the
 * neighbor's next hop already; then the workers are waited for as usual.
 */
static int
adj4_add_live(uint32_t addr, uint32_t idx)
{
	int rc;

	/* it may take a group (3(b) at the top) */
	if (batch.freed)
		workers_sync();
	__atomic_fetch_add(&dp_fwd.ip4_seq, 1, __ATOMIC_SEQ_CST);
	rc = dp_fwd_fib4_add(&dp_fwd.ip4, addr, 32, idx);
	__atomic_fetch_add(&dp_fwd.ip4_seq, 1, __ATOMIC_SEQ_CST);
	if (rc < 0)
		return rc;
	dp_fwd.ip4.nb_adj++;
	dp_fwd_path_gen_next();
	if (!has_tbl8(dp_fwd.ip4.fib, NET24(addr)))
		workers_sync();
	return 0;
}

void
dp_fwd_adj4_resolved(uint32_t idx)
{
	struct dp_fwd_nh *nh = &dp_fwd.nh[idx];

	if (dp_fwd.ip4.fib == NULL || (nh->flags & DP_FWD_NH_F_ADJ) || !dp_fwd_nh_is_neigh4(nh) ||
		!dp_fwd_adj4_eligible(dp_fwd.ip4.fib, idx))
		return;
	/* a full table goes without */
	if (adj4_add_live(nh->gw, idx) == 0) {
		__atomic_or_fetch(&nh->flags, DP_FWD_NH_F_ADJ, __ATOMIC_RELAXED);
		adj_stats.added++;
	}
}

/* Is next hop @p idx the adjacency of the IPv4 neighbor at @p addr (host order)? */
static bool
adj4_is(uint64_t idx, uint32_t addr)
{
	return idx < dp_fwd.nb_nh && (dp_fwd.nh[idx].flags & DP_FWD_NH_F_ADJ) &&
	       dp_fwd.nh[idx].gw == addr;
}

/* The adjacency of the IPv4 neighbor at @p addr (host order), or 0. */
static uint32_t
adj4_of(uint32_t addr)
{
	uint32_t idx;

	for (idx = 1; idx < dp_fwd.nb_nh; idx++)
		if (adj4_is(idx, addr))
			return idx;
	return 0;
}

/* A bare prefix (a.b.c.d/len, or IPv6) as an on-link route line, for the route parsers. */
static const char *
onlink_route(char *buf, size_t len, const char *prefix)
{
	snprintf(buf, len, "%s port 0", prefix);
	return buf;
}

/* After a change of IPv4 routes: each adjacency where the connected route is
 * still the best match, and only there. */
static void
adj4_revalidate(void)
{
	struct rte_rib *rib = rte_fib_get_rib(dp_fwd.ip4.fib);
	uint32_t idx;

	for (idx = 1; idx < dp_fwd.nb_nh; idx++) {
		struct dp_fwd_nh *nh = &dp_fwd.nh[idx];
		struct rte_rib_node *node;
		uint64_t v = 0;

		if (!dp_fwd_nh_is_neigh4(nh))
			continue;
		if (!(nh->flags & DP_FWD_NH_F_ADJ)) {
			if (nh->flags & DP_FWD_NH_F_RESOLVED)
				dp_fwd_adj4_resolved(idx);
			continue;
		}
		node = rte_rib_lookup_exact(rib, nh->gw, 32);
		if (node != NULL)
			rte_rib_get_nh(node, &v);
		if (node != NULL && v == idx && dp_fwd_adj4_eligible(dp_fwd.ip4.fib, idx))
			continue;
		if (node != NULL && v == idx && fib4_change(false, nh->gw, 32, 0) < 0)
			continue; /* kept: tried again at the next change */
		__atomic_and_fetch(&nh->flags, (uint8_t)~DP_FWD_NH_F_ADJ, __ATOMIC_RELAXED);
		dp_fwd.ip4.nb_adj--;
		adj_stats.removed++;
	}
}

/* After a change of IPv4 routes: adj4_revalidate(), or at the batch's end. */
static void
adj4_revalidate_or_owe(void)
{
	if (batch.depth > 0)
		batch.adj_owed = true;
	else
		adj4_revalidate();
}

void
dp_fwd_route_batch_begin(void)
{
	batch.depth++;
}

void
dp_fwd_route_batch_end(void)
{
	if (batch.depth == 0 || --batch.depth > 0)
		return;
	if (batch.adj_owed) {
		batch.adj_owed = false;
		adj4_revalidate();
	}
	if (batch.freed)
		workers_sync();
}

/* ---- on the control lcore ---- */

struct route_req {
	const char *text;
	char *err;
	size_t errlen;
};

/* @p *port (N, or N.VID: a sub-interface's reference) made the port index it names. */
static int
port_check(uint16_t *port, char *err, size_t errlen)
{
	uint16_t i = dp_port_ref_resolve(*port);
	char b[16];

	if (i >= dp_nb_ports) {
		snprintf(err, errlen, "port %s does not exist",
			dp_config_port_ref_str(*port, b, sizeof(b)));
		return -EINVAL;
	}
	*port = i;
	return 0;
}

/* The same for a route's port, or each of @p paths: one that does not exist is an error. */
static int
check_ports(struct dp_fwd_config_paths *paths, uint16_t *port, char *err, size_t errlen)
{
	unsigned int i;
	int rc;

	if (paths == NULL)
		return port_check(port, err, errlen);
	for (i = 0; i < paths->nb; i++) {
		rc = port_check(&paths->p[i].port, err, errlen);
		if (rc < 0)
			return rc;
	}
	*port = paths->p[0].port;
	return 0;
}

/* An IPv6 add or delete: a copy of the table with the change, swapped in. */
static int
do_change6(bool add, const char *text, char *err, size_t errlen)
{
	struct dp_fwd_config_route6 r;
	struct dp_fwd_config_paths paths;
	struct rte_fib6 *fib;
	uint32_t nb;
	int rc;

	rc = dp_fwd_config_route6_parse_paths(text, &r, &paths, err, errlen);
	if (rc < 0)
		return rc;
	rc = check_ports(r.paths, &r.port, err, errlen);
	if (rc < 0)
		return rc;
	rc = dp_fwd_route6_change(add, &r, &fib, &nb, err, errlen);
	if (rc < 0)
		return rc;
	fib6_publish(fib, nb);
	if (add)
		route_stats.added++;
	else
		route_stats.deleted++;
	return 0;
}

/* @p a (host order) is a port's address: its /32 leads to the router itself. */
static bool
is_port_addr4(uint32_t a)
{
	const struct rte_rib_node *n = rte_rib_lookup_exact(rte_fib_get_rib(dp_fwd.ip4.fib), a, 32);
	uint64_t nh;

	return n != NULL && rte_rib_get_nh(n, &nh) == 0 && nh == DP_FWD_NH_LOCAL;
}

static int
do_add(void *arg)
{
	struct route_req *q = arg;
	struct dp_fwd_config_route4 r;
	struct dp_fwd_config_paths paths;
	uint32_t nh, adj;
	int rc;

	if (strchr(q->text, ':') != NULL)
		return do_change6(true, q->text, q->err, q->errlen);
	rc = dp_fwd_config_route4_parse_paths(q->text, &r, &paths, q->err, q->errlen);
	if (rc < 0)
		return rc;
	rc = check_ports(r.paths, &r.port, q->err, q->errlen);
	if (rc < 0)
		return rc;
	if (r.plen == 32 && is_port_addr4(r.prefix))
		return dp_fwd_refuse_port_addr(q->err, q->errlen, q->text);
	rc = dp_fwd_route4_nh(&r, &nh);
	/* a /32 for a neighbor's address is the user's from now on */
	if (rc == 0 && r.plen == 32 && (adj = adj4_of(r.prefix)) != 0) {
		__atomic_and_fetch(
			&dp_fwd.nh[adj].flags, (uint8_t)~DP_FWD_NH_F_ADJ, __ATOMIC_RELAXED);
		dp_fwd.ip4.nb_adj--;
	}
	if (rc == 0)
		rc = fib4_change(true, r.prefix, r.plen, nh);
	if (rc < 0) {
		snprintf(q->err, q->errlen, "cannot add '%s': %s", q->text,
			rc == -ENOSPC ? "table full (IPv4 routes or tbl8 groups: [routes] ip4_max, "
					"ip4_tbl8; neighbors: [dpfwd] neigh_max; or ECMP groups)"
				      : strerror(-rc));
		return rc;
	}
	route_stats.added++;
	adj4_revalidate_or_owe();
	return 0;
}

static int
do_del(void *arg)
{
	struct route_req *q = arg;
	struct rte_rib_node *node;
	struct dp_fwd_config_route4 r;
	char text[128];
	uint64_t nh;
	int rc;

	if (strchr(q->text, ':') != NULL)
		return do_change6(
			false, onlink_route(text, sizeof(text), q->text), q->err, q->errlen);
	rc = dp_fwd_config_route4_parse(
		onlink_route(text, sizeof(text), q->text), &r, q->err, q->errlen);
	if (rc < 0)
		return rc;
	node = rte_rib_lookup_exact(rte_fib_get_rib(dp_fwd.ip4.fib), r.prefix, r.plen);
	if (node == NULL) {
		snprintf(q->err, q->errlen, "no route %s", q->text);
		return -ENOENT;
	}
	rte_rib_get_nh(node, &nh);
	if (nh == DP_FWD_NH_LOCAL)
		return dp_fwd_refuse_port_addr(q->err, q->errlen, q->text);
	if (r.plen == 32 && adj4_is(nh, r.prefix)) {
		snprintf(q->err, q->errlen,
			"%s is the adjacency of a neighbor (its host route, which goes with the "
			"neighbor), not a route",
			q->text);
		return -EINVAL;
	}
	rc = fib4_change(false, r.prefix, r.plen, 0);
	if (rc < 0) {
		snprintf(q->err, q->errlen, "cannot delete %s: %s", q->text, strerror(-rc));
		return rc;
	}
	route_stats.deleted++;
	adj4_revalidate_or_owe();
	return 0;
}

/* ---- a batch of IPv4 changes made in a copy (netlink's dumps) ---- */

int
dp_fwd_route4_change_of(const struct dp_fwd_config_route4 *r, bool del,
	struct dp_fwd_route4_change *c, char *err, size_t errlen)
{
	struct dp_fwd_config_route4 one = *r;
	int rc;

	memset(c, 0, sizeof(*c));
	if (!del) {
		rc = check_ports(one.paths, &one.port, err, errlen);
		if (rc < 0)
			return rc;
		rc = dp_fwd_route4_nh(&one, &c->nh);
		if (rc < 0) {
			snprintf(err, errlen,
				"cannot add %u.%u.%u.%u/%u: no room for its next hop: %s",
				r->prefix >> 24, (r->prefix >> 16) & 0xff, (r->prefix >> 8) & 0xff,
				r->prefix & 0xff, r->plen, strerror(-rc));
			return rc;
		}
	}
	c->prefix = r->prefix;
	c->plen = r->plen;
	c->del = del;
	return 0;
}

int
dp_fwd_route4_change_prepare(
	const char *text, bool del, struct dp_fwd_route4_change *c, char *err, size_t errlen)
{
	struct dp_fwd_config_route4 r;
	struct dp_fwd_config_paths paths;
	char line[128];
	int rc;

	memset(c, 0, sizeof(*c));
	if (del)
		rc = dp_fwd_config_route4_parse(
			onlink_route(line, sizeof(line), text), &r, err, errlen);
	else
		rc = dp_fwd_config_route4_parse_paths(text, &r, &paths, err, errlen);
	if (rc < 0)
		return rc;
	return dp_fwd_route4_change_of(&r, del, c, err, errlen);
}

/* Whether change @p c may be made in @p t: do_add()'s and do_del()'s refusals. */
static int
change_admit(struct dp_fwd_fib4 *t, const struct dp_fwd_route4_change *c)
{
	struct rte_rib_node *node =
		rte_rib_lookup_exact(rte_fib_get_rib(t->fib), c->prefix, c->plen);
	uint64_t old = DP_FWD_NO_ROUTE;

	if (node != NULL)
		rte_rib_get_nh(node, &old);
	if (node != NULL && old == DP_FWD_NH_LOCAL)
		return -EINVAL; /* a port's address */
	if (c->del && node == NULL)
		return -ENOENT;
	if (c->plen == 32 && adj4_is(old, c->prefix)) {
		if (c->del)
			return -EINVAL; /* an adjacency goes with its neighbor */
		/* a /32 for a neighbor's address is the user's from now on */
		__atomic_and_fetch(
			&dp_fwd.nh[old].flags, (uint8_t)~DP_FWD_NH_F_ADJ, __ATOMIC_RELAXED);
		t->nb_adj--;
	}
	return 0;
}

/* One change of a batch in @p t. */
static int
change_in(struct dp_fwd_fib4 *t, const struct dp_fwd_route4_change *c)
{
	int rc = change_admit(t, c);

	if (rc < 0)
		return rc;
	return c->del ? fib4_del(t, c->prefix, c->plen)
		      : dp_fwd_fib4_add(t, c->prefix, c->plen, c->nh);
}

int
dp_fwd_route4_change_make(struct dp_fwd_route4_change *c)
{
	c->rc = change_admit(&dp_fwd.ip4, c);
	if (c->rc == 0)
		c->rc = fib4_change(!c->del, c->prefix, c->plen, c->nh);
	if (c->rc < 0)
		return c->rc;
	if (c->del)
		route_stats.deleted++;
	else
		route_stats.added++;
	adj4_revalidate_or_owe();
	return 0;
}

/*
 * Whether the run of changes @p c[key[0..n)] of one prefix leaves the live table as it is:
 * adds only (a delete may be refused, or remove what the last add puts back), the last
 * of the next hop the table has there, which is neither a port's address nor a
 * neighbor's adjacency (an add over those is refused, or takes the /32 over).
 */
static bool
run4_same(struct dp_fwd_route4_change *c, const uint64_t *key, uint32_t n)
{
	const struct dp_fwd_route4_change *last = &c[DP_FWD_ROUTE4_KEY_INDEX(key[n - 1])];
	const struct rte_rib_node *node =
		rte_rib_lookup_exact(rte_fib_get_rib(dp_fwd.ip4.fib), last->prefix, last->plen);
	uint64_t nh;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (c[DP_FWD_ROUTE4_KEY_INDEX(key[i])].del)
			return false;
	return node != NULL && rte_rib_get_nh(node, &nh) == 0 && nh == last->nh &&
	       nh != DP_FWD_NH_LOCAL && !adj4_is(nh, last->prefix);
}

/*
 * Of the @p n sorted keys of @p c, those whose changes leave the live table as it is
 * (run4_same()) marked same (rc 0) and left out; @return how many are kept, in their order.
 */
static uint32_t
changes4_reduce(struct dp_fwd_route4_change *c, uint64_t *key, uint32_t n)
{
	uint32_t i = 0, j, k, kept = 0;

	while (i < n) {
		/* the run of one prefix: the same key but for its index */
		for (j = i + 1; j < n && (key[j] >> 24) == (key[i] >> 24); j++)
			;
		if (run4_same(c, key + i, j - i)) {
			for (k = i; k < j; k++) {
				c[DP_FWD_ROUTE4_KEY_INDEX(key[k])].same = true;
				c[DP_FWD_ROUTE4_KEY_INDEX(key[k])].rc = 0;
			}
		} else {
			for (k = i; k < j; k++)
				key[kept++] = key[k];
		}
		i = j;
	}
	return kept;
}

/*
 * The changes of @p key[0..n) made in the live table, each in place, when every one of them
 * can be (dp_fwd_route4_in_place(): one that cannot after those before it is made in a copy
 * of its own, as dp_fwd_route_add() does); @return false: none made.
 */
static bool
changes4_in_place(struct dp_fwd_route4_change *c, const uint64_t *key, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct dp_fwd_route4_change *ch = &c[DP_FWD_ROUTE4_KEY_INDEX(key[i])];

		if (!dp_fwd_route4_in_place(ch->prefix, ch->plen))
			return false;
	}
	dp_fwd_route_batch_begin();
	for (i = 0; i < n; i++)
		dp_fwd_route4_change_make(&c[DP_FWD_ROUTE4_KEY_INDEX(key[i])]);
	dp_fwd_route_batch_end();
	return true;
}

/* The changes of @p key[0..n) made in one copy of the live table, swapped in. */
static int
changes4_in_copy(struct dp_fwd_route4_change *c, const uint64_t *key, uint32_t n)
{
	struct dp_fwd_fib4 copy;
	uint32_t i;
	int rc = fib4_copy(&dp_fwd.ip4, &copy);

	if (rc < 0)
		return rc;
	for (i = 0; i < n; i++) {
		struct dp_fwd_route4_change *ch = &c[DP_FWD_ROUTE4_KEY_INDEX(key[i])];

		ch->rc = change_in(&copy, ch);
		if (ch->rc == 0 && ch->del)
			route_stats.deleted++;
		else if (ch->rc == 0)
			route_stats.added++;
	}
	fib4_publish(&copy);
	route_stats.batch_copies++;
	adj4_revalidate_or_owe();
	return 0;
}

int
dp_fwd_route4_changes_apply(struct dp_fwd_route4_change *c, uint32_t n)
{
	uint64_t *key;
	uint32_t i, kept;
	int rc = 0;

	if (n == 0)
		return 0;
	if (n > DP_FWD_ROUTE4_SORT_MAX)
		return -E2BIG;
	key = malloc(sizeof(*key) * 2 * (size_t)n);
	if (key == NULL)
		return -ENOMEM;
	/* in address order, as a route file is loaded; the changes of one prefix in
	 * the order given (the sort is stable) */
	for (i = 0; i < n; i++) {
		key[i] = dp_fwd_route4_key(c[i].prefix, c[i].plen, i);
		c[i].same = false;
	}
	dp_fwd_route4_sort(key, key + n, n);
	kept = changes4_reduce(c, key, n);
	/* a few in place (each may wait for the workers once), more in one copy (which adds
	 * every route of the table again) */
	if (kept > 0 && ((uint64_t)kept * CHANGES4_IN_PLACE_SHARE > DP_FWD_IP4_ROUTES() ||
				!changes4_in_place(c, key, kept)))
		rc = changes4_in_copy(c, key, kept);
	free(key);
	return rc;
}

int
dp_fwd_route6_change_prepare(
	const char *text, bool del, struct dp_fwd_route6_change *c, char *err, size_t errlen)
{
	struct dp_fwd_config_route6 r;
	struct dp_fwd_config_paths paths;
	char line[128];
	int rc;

	memset(c, 0, sizeof(*c));
	rc = dp_fwd_config_route6_parse_paths(
		del ? onlink_route(line, sizeof(line), text) : text, &r, &paths, err, errlen);
	if (rc == 0 && !del)
		rc = check_ports(r.paths, &r.port, err, errlen);
	if (rc == 0 && !del) {
		rc = dp_fwd_route6_nh(&r, &c->nh);
		if (rc < 0)
			snprintf(err, errlen, "cannot add '%s': no room for its next hop: %s", text,
				strerror(-rc));
	}
	if (rc < 0)
		return rc;
	memcpy(c->prefix, r.prefix, sizeof(c->prefix));
	c->plen = r.plen;
	c->del = del;
	return 0;
}

/* An IPv6 change's place in the sort of changes6_reduce(): its prefix, length, index. */
struct change6_key {
	uint8_t prefix[16];
	uint8_t plen;
	uint32_t i;
};

static int
change6_key_cmp(const void *a, const void *b)
{
	const struct change6_key *x = a, *y = b;
	const int d = memcmp(x->prefix, y->prefix, sizeof(x->prefix));

	if (d != 0)
		return d;
	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* run4_same() for the IPv6 changes @p c[key[0..n).i] of one prefix. */
static bool
run6_same(const struct dp_fwd_route6_change *c, const struct change6_key *key, uint32_t n)
{
	const struct dp_fwd_route6_change *last = &c[key[n - 1].i];
	const struct rte_rib6_node *node =
		rte_rib6_lookup_exact(rte_fib6_get_rib(dp_fwd_ip6.fib), last->prefix, last->plen);
	uint64_t nh;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (c[key[i].i].del)
			return false;
	return node != NULL && rte_rib6_get_nh(node, &nh) == 0 && nh == last->nh &&
	       nh != DP_FWD_NH_LOCAL;
}

/*
 * The IPv6 changes of @p c that leave the live table as it is (run6_same()) marked same
 * (rc 0); @return how many are left, or -ENOMEM.
 */
static int64_t
changes6_reduce(struct dp_fwd_route6_change *c, uint32_t n)
{
	struct change6_key *key = malloc(sizeof(*key) * (size_t)n);
	uint32_t i, j, k, left = n;

	if (key == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		memcpy(key[i].prefix, c[i].prefix, sizeof(key[i].prefix));
		key[i].plen = c[i].plen;
		key[i].i = i;
		c[i].same = false;
	}
	qsort(key, n, sizeof(*key), change6_key_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && key[j].plen == key[i].plen &&
				memcmp(key[j].prefix, key[i].prefix, sizeof(key[i].prefix)) == 0;
			j++)
			;
		if (!run6_same(c, key + i, j - i))
			continue;
		for (k = i; k < j; k++) {
			c[key[k].i].same = true;
			c[key[k].i].rc = 0;
		}
		left -= j - i;
	}
	free(key);
	return left;
}

int
dp_fwd_route6_changes_apply(struct dp_fwd_route6_change *c, uint32_t n)
{
	struct dp_fwd_route6_change *left = c;
	struct rte_fib6 *fib;
	int64_t nb_left;
	uint32_t nb, i, j;
	int rc;

	if (n == 0)
		return 0;
	if (dp_fwd_ip6.fib == NULL)
		return -EINVAL;
	nb_left = changes6_reduce(c, n);
	if (nb_left < 0)
		return (int)nb_left;
	if (nb_left == 0)
		return 0;
	/* the changes that differ, in their order, in one copy */
	if (nb_left < n) {
		left = malloc(sizeof(*left) * (size_t)nb_left);
		if (left == NULL)
			return -ENOMEM;
		for (i = 0, j = 0; i < n; i++)
			if (!c[i].same)
				left[j++] = c[i];
	}
	rc = dp_fwd_route6_changes_build(left, (uint32_t)nb_left, &fib, &nb);
	if (rc == 0) {
		fib6_publish(fib, nb);
		route_stats.batch_copies++;
	}
	for (i = 0, j = 0; rc == 0 && i < n; i++) {
		if (c[i].same)
			continue;
		c[i].rc = left[j++].rc;
		if (c[i].rc == 0 && c[i].del)
			route_stats.deleted++;
		else if (c[i].rc == 0)
			route_stats.added++;
	}
	if (left != c)
		free(left);
	return rc;
}

struct reload_req {
	const char *path;
	char *err;
	size_t errlen;
};

/*
 * A reload keeps the ports' addresses: ARP, ND and the relay answer for the
 * running ones, and the route to each stays the router itself for as long as
 * dpfwd runs (the relay's shortcut in ip4_fwd/ip6_fwd skips the route lookup
 * on that promise, relay_priv.h). Route add and del refuse a port's address
 * too. @return 0, or -EINVAL with @p err naming the port's line.
 */
static int
reload_keeps_addrs(const struct dp_config *cfg, char *err, size_t errlen)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	uint16_t i;

	for (i = 0; i < cfg->nb_ports; i++) {
		const struct dp_config_port *p = &cfg->ports[i];
		const struct dp_fwd_port6 *run6 = &dp_fwd_ip6.port[i];

		if (p->ip4 != dp_ports[i].ip4) {
			snprintf(err, errlen,
				"%s:%d: port%u's ip4 %s is not the running %s: port addresses "
				"change only with a restart",
				p->loc.file, p->loc.line, i,
				p->ip4 ? dp_config_ip4_str(p->ip4, a, sizeof(a)) : "(none)",
				dp_ports[i].ip4 ? dp_config_ip4_str(dp_ports[i].ip4, b, sizeof(b))
						: "(none)");
			return -EINVAL;
		}
		if (p->has_ip6 != run6->has_global ||
			(p->has_ip6 && memcmp(p->ip6, run6->global, 16) != 0)) {
			snprintf(err, errlen,
				"%s:%d: port%u's ip6 %s is not the running %s: port addresses "
				"change only with a restart",
				p->loc.file, p->loc.line, i,
				p->has_ip6 ? dp_config_ip6_str(p->ip6, a, sizeof(a)) : "(none)",
				run6->has_global ? dp_config_ip6_str(run6->global, b, sizeof(b))
						 : "(none)");
			return -EINVAL;
		}
	}
	return 0;
}

static int
do_reload(void *arg)
{
	struct reload_req *q = arg;
	struct dp_config cfg;
	struct dp_fwd_fib4 t;
	struct rte_fib6 *fib6 = NULL;
	uint32_t nb6 = 0;
	uint64_t t0 = rte_get_tsc_cycles();
	int rc;

	memset(&t, 0, sizeof(t));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, q->path, q->err, q->errlen);
	if (rc == 0)
		rc = dp_config_validate(&cfg, q->err, q->errlen);
	if (rc == 0 && cfg.nb_ports != dp_nb_ports) {
		snprintf(q->err, q->errlen,
			"%s: %u ports, dpfwd runs %u: ports change only with a restart", q->path,
			cfg.nb_ports, dp_nb_ports);
		rc = -EINVAL;
	}
	if (rc == 0)
		rc = reload_keeps_addrs(&cfg, q->err, q->errlen);
	/* both tables made before either is swapped in: an error keeps both old ones */
	if (rc == 0)
		rc = dp_fwd_fib6_build(&cfg, &fib6, &nb6, q->err, q->errlen);
	if (rc == 0)
		rc = dp_fwd_fib4_build(&cfg, &t, q->err, q->errlen);
	if (rc < 0) {
		rte_fib6_free(fib6);
		dp_config_free(&cfg);
		route_stats.reload_errors++;
		return rc;
	}
	fib4_publish(&t);
	fib6_publish(fib6, nb6);
	dp_config_free(&cfg);
	route_stats.reloads++;
	route_stats.last_reload_s = (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz();
	DP_LOG(INFO, fwd, "routes reloaded from %s: %u IPv4 and %u IPv6 routes in %.3f s", q->path,
		DP_FWD_IP4_ROUTES(), dp_fwd_ip6.nb_routes, route_stats.last_reload_s);
	return 0;
}

/* ---- from any thread ---- */

int
dp_fwd_route_add(const char *text, char *err, size_t errlen)
{
	struct route_req q = { .text = text, .err = err, .errlen = errlen };

	return dp_ctl_call(do_add, &q, ROUTE_CALL_TIMEOUT_MS);
}

int
dp_fwd_route_del(const char *prefix, char *err, size_t errlen)
{
	struct route_req q = { .text = prefix, .err = err, .errlen = errlen };

	return dp_ctl_call(do_del, &q, ROUTE_CALL_TIMEOUT_MS);
}

int
dp_fwd_route_reload(const char *path, char *err, size_t errlen)
{
	struct reload_req q = { .path = path, .err = err, .errlen = errlen };

	return dp_ctl_call(do_reload, &q, ROUTE_CALL_TIMEOUT_MS);
}

/* ---- telemetry commands ---- */

static const char *reload_path;

static int
act_add(const char *params, json_t **res, char *err, size_t errlen)
{
	RTE_SET_USED(res);
	return dp_fwd_route_add(params, err, errlen);
}

static int
act_del(const char *params, json_t **res, char *err, size_t errlen)
{
	RTE_SET_USED(res);
	return dp_fwd_route_del(params, err, errlen);
}

static int
act_reload(const char *params, json_t **res, char *err, size_t errlen)
{
	int rc;

	rc = dp_fwd_route_reload(params[0] ? params : reload_path, err, errlen);
	if (rc == 0)
		*res = json_pack("{s:I, s:f}", "ip4_routes", (json_int_t)DP_FWD_IP4_ROUTES(),
			"seconds", route_stats.last_reload_s);
	return rc;
}

static json_t *
routes_fill(void *arg)
{
	RTE_SET_USED(arg);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:I, s:I}",
		"ip4_adjacencies_added", (json_int_t)adj_stats.added, "ip4_adjacencies_removed",
		(json_int_t)adj_stats.removed, "ip4_routes", (json_int_t)DP_FWD_IP4_ROUTES(),
		"added", (json_int_t)route_stats.added, "deleted", (json_int_t)route_stats.deleted,
		"reloads", (json_int_t)route_stats.reloads, "reload_errors",
		(json_int_t)route_stats.reload_errors, "copies", (json_int_t)route_stats.copies,
		"batch_copies", (json_int_t)route_stats.batch_copies, "last_reload_seconds",
		route_stats.last_reload_s, "last_copy_seconds", route_stats.last_copy_s,
		"ip4_max_routes", (json_int_t)dp_fwd.ip4.max_routes, "ip4_tbl8_groups",
		(json_int_t)dp_fwd.ip4.tbl8_max, "ip4_tbl8_used", (json_int_t)dp_fwd.ip4.tbl8_used);
}

/* ---- listing: /dpfwd/route/list ---- */

/* Lines per answer: each a string of rte_telemetry's (128 bytes at most), the
 * whole answer within its 16 KiB; a narrower prefix shows what is beyond. */
#define ROUTE_LIST_MAX 200

struct list_req {
	const char *text; /**< a prefix, IPv4 or IPv6; "" for every route */
	json_t *lines;
	json_t *groups; /**< a line per next hop of each ECMP group the lines name */
	uint64_t group_seen[DP_FWD_GROUPS_MAX / 64];
	uint32_t total; /**< routes in the prefix, shown or not */
	char *err;
	size_t errlen;
};

/*
 * Whether a prefix is its port's own connected one (the port's address's
 * prefix; over IPv6 also fe80::/64). An on-link route of the config or of
 * dpctl shares the port's connected next hop but is not that.
 */
static bool
list_connected(const struct dp_fwd_nh *nh, uint32_t ip4, const uint8_t *ip6, uint8_t plen, bool v6)
{
	static const uint8_t ll[8] = { 0xfe, 0x80 };

	if (!(nh->flags & DP_FWD_NH_F_CONNECTED) || nh->port >= DP_CONFIG_MAX_PORTS)
		return false;
	if (v6) {
		const struct dp_fwd_port6 *p = &dp_fwd_ip6.port[nh->port];
		uint8_t pfx[16];

		if (plen == 64 && memcmp(ip6, ll, 8) == 0)
			return true;
		if (!p->has_global || plen != p->pfxlen)
			return false;
		dp_fwd_port6_prefix(p, pfx);
		return memcmp(pfx, ip6, 16) == 0;
	}
	return dp_ports[nh->port].ip4 != 0 && plen == dp_ports[nh->port].ip4_plen && plen > 0 &&
	       (dp_ports[nh->port].ip4 & (~0u << (32 - plen))) == ip4;
}

/*
 * An ECMP route as its route file line when that fits a telemetry string, else
 * the prefix and the group; the group's next hops (with their weights, live or
 * down) once each in q->groups.
 */
static void
list_group(struct list_req *q, char *line, size_t len, const char *pfx, uint8_t plen, uint64_t hop)
{
	const uint32_t gi = dp_fwd.nh[hop].group;
	char tail[1024], m[128];
	unsigned int slot;

	dp_fwd_group_format((uint32_t)hop, tail, sizeof(tail));
	if (snprintf(line, len, "%s/%u%s # ecmp group %u", pfx, plen, tail, gi) >= (int)len)
		snprintf(line, len, "%s/%u # ecmp group %u (its next hops: groups)", pfx, plen, gi);
	if (gi >= DP_FWD_GROUPS_MAX || (q->group_seen[gi / 64] & (UINT64_C(1) << (gi % 64))))
		return;
	q->group_seen[gi / 64] |= UINT64_C(1) << (gi % 64);
	for (slot = 0; dp_fwd_group_member_format((uint32_t)hop, slot, m, sizeof(m)) >= 0; slot++)
		json_array_append_new(q->groups, json_string(m));
}

/*
 * A route as a route file line (what a reload would read back), its kind after
 * '#'. An adjacency is the /32 of a neighbor's own address to its entry; a route
 * through that neighbor shares the entry (and its flag) but is the user's.
 */
static void
list_line(struct list_req *q, const char *pfx, uint32_t ip4, const uint8_t *ip6, uint8_t plen,
	uint64_t hop, bool v6)
{
	const struct dp_fwd_nh *nh = hop < dp_fwd.nb_nh ? &dp_fwd.nh[hop] : NULL;
	char line[128], gw[INET6_ADDRSTRLEN];
	bool adj = !v6 && plen == 32 && adj4_is(hop, ip4);

	if (q->total++ >= ROUTE_LIST_MAX)
		return;
	if (nh != NULL && (nh->flags & DP_FWD_NH_F_GROUP)) {
		list_group(q, line, sizeof(line), pfx, plen, hop);
		json_array_append_new(q->lines, json_string(line));
		return;
	}
	if (nh == NULL) {
		snprintf(
			line, sizeof(line), "%s/%u # next hop %" PRIu64 " unknown", pfx, plen, hop);
	} else if (nh->flags & DP_FWD_NH_F_LOCAL) {
		snprintf(line, sizeof(line), "%s/%u # local", pfx, plen);
	} else {
		const bool onlink =
			v6 ? memcmp(nh->gw6, (const uint8_t[16]){ 0 }, 16) == 0 : nh->gw == 0;
		const char *kind = adj                                      ? " # adjacency"
				   : list_connected(nh, ip4, ip6, plen, v6) ? " # connected"
									    : "";

		char port[DP_PORT_NAME_LEN];

		dp_port_name(nh->port, port, sizeof(port));
		if (onlink && !adj) {
			snprintf(line, sizeof(line), "%s/%u port %s%s", pfx, plen, port, kind);
		} else {
			if (v6)
				dp_config_ip6_str(nh->gw6, gw, sizeof(gw));
			else
				dp_config_ip4_str(nh->gw, gw, sizeof(gw));
			snprintf(line, sizeof(line), "%s/%u via %s port %s%s", pfx, plen, gw, port,
				kind);
		}
	}
	json_array_append_new(q->lines, json_string(line));
}

/* On the control lcore, where routes change: the tables cannot move under the walk. */
static int
do_list(void *arg)
{
	struct list_req *q = arg;
	char pfx[INET6_ADDRSTRLEN];
	struct rte_rib_node *n = NULL;
	uint64_t hop;
	uint32_t ip;
	uint8_t depth;

	if (strchr(q->text, ':') != NULL) {
		struct dp_fwd_config_route6 r;
		struct rte_rib6_node *n6 = NULL;
		struct rte_rib6 *rib6;
		char text[128];
		uint8_t ip6[16];

		if (dp_fwd_config_route6_parse(
			    onlink_route(text, sizeof(text), q->text), &r, q->err, q->errlen) < 0)
			return -EINVAL;
		if (dp_fwd_ip6.fib == NULL)
			return 0;
		rib6 = rte_fib6_get_rib(dp_fwd_ip6.fib);
		n6 = rte_rib6_lookup_exact(rib6, r.prefix, r.plen);
		if (n6 != NULL && rte_rib6_get_nh(n6, &hop) == 0)
			list_line(q, dp_config_ip6_str(r.prefix, pfx, sizeof(pfx)), 0, r.prefix,
				r.plen, hop, true);
		n6 = NULL;
		while ((n6 = rte_rib6_get_nxt(rib6, r.prefix, r.plen, n6, RTE_RIB6_GET_NXT_ALL)) !=
			NULL) {
			if (rte_rib6_get_ip(n6, ip6) < 0 || rte_rib6_get_depth(n6, &depth) < 0 ||
				rte_rib6_get_nh(n6, &hop) < 0)
				continue;
			list_line(q, dp_config_ip6_str(ip6, pfx, sizeof(pfx)), 0, ip6, depth, hop,
				true);
		}
		return 0;
	}
	{
		struct dp_fwd_config_route4 r = { .prefix = 0, .plen = 0 };
		struct rte_rib *rib = rte_fib_get_rib(dp_fwd.ip4.fib);
		char text[128];

		if (q->text[0] != '\0' &&
			dp_fwd_config_route4_parse(onlink_route(text, sizeof(text), q->text), &r,
				q->err, q->errlen) < 0)
			return -EINVAL;
		n = rte_rib_lookup_exact(rib, r.prefix, r.plen);
		if (n != NULL && rte_rib_get_nh(n, &hop) == 0)
			list_line(q, dp_config_ip4_str(r.prefix, pfx, sizeof(pfx)), r.prefix, NULL,
				r.plen, hop, false);
		n = NULL;
		while ((n = rte_rib_get_nxt(rib, r.prefix, r.plen, n, RTE_RIB_GET_NXT_ALL)) !=
			NULL) {
			if (rte_rib_get_ip(n, &ip) < 0 || rte_rib_get_depth(n, &depth) < 0 ||
				rte_rib_get_nh(n, &hop) < 0)
				continue;
			list_line(q, dp_config_ip4_str(ip, pfx, sizeof(pfx)), ip, NULL, depth, hop,
				false);
		}
	}
	return 0;
}

static int
act_list(const char *params, json_t **res, char *err, size_t errlen)
{
	struct list_req q = { .text = params, .err = err, .errlen = errlen };
	int rc;

	q.lines = json_array();
	q.groups = json_array();
	if (q.lines == NULL || q.groups == NULL) {
		json_decref(q.lines);
		json_decref(q.groups);
		return -ENOMEM;
	}
	rc = dp_ctl_call(do_list, &q, ROUTE_CALL_TIMEOUT_MS);
	if (rc < 0) {
		json_decref(q.lines);
		json_decref(q.groups);
		return rc;
	}
	*res = json_pack("{s:I, s:I, s:b, s:o}", "routes_in_prefix", (json_int_t)q.total, "shown",
		(json_int_t)json_array_size(q.lines), "truncated", q.total > ROUTE_LIST_MAX,
		"routes", q.lines);
	/* only when a route listed has several next hops */
	if (*res != NULL && json_array_size(q.groups) > 0)
		json_object_set(*res, "groups", q.groups);
	json_decref(q.groups);
	return *res != NULL ? 0 : -ENOMEM;
}

int
dp_fwd_route_start_cmds(const char *config_path)
{
	int rc;

	reload_path = config_path;
	rc = dp_telemetry_action_register("/dpfwd/route/add",
		"Add a route. Params: 'a.b.c.d/len via a.b.c.d port N [weight W] [via ...]' or "
		"'a.b.c.d/len port N'",
		act_add);
	if (rc == 0)
		rc = dp_telemetry_action_register(
			"/dpfwd/route/del", "Delete an IPv4 route. Params: 'a.b.c.d/len'", act_del);
	if (rc == 0)
		rc = dp_telemetry_action_register("/dpfwd/route/reload",
			"Re-read the routes of the config file (or of the file given as params); "
			"the live table stays on any error",
			act_reload);
	if (rc == 0)
		rc = dp_telemetry_action_register("/dpfwd/route/list",
			"Routes as route file lines (first 200), their ECMP groups' next hops. Params: "
			"a prefix (a.b.c.d/len or IPv6); none: all IPv4",
			act_list);
	if (rc == 0)
		rc = dp_telemetry_section_register("route_changes", "/dpfwd/fwd/route_changes",
			"Routes added, deleted, reloaded while running", routes_fill, NULL);
	return rc;
}

int
dp_fwd_route_start(void)
{
	memset(&route_stats, 0, sizeof(route_stats));
	return 0;
}
