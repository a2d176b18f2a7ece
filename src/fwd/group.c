/* SPDX-License-Identifier: BSD-3-Clause */
/* ECMP groups (dp_fwd_group.h): made, kept live on the control lcore, picked by flow. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_fwd.h"
#include "dp_fwd_group.h"
#include "group_fp.h"
#include "dp_neigh.h"
#include "dp_port.h"

struct dp_fwd_group *dp_fwd_groups;

/* control lcore only: what makes a group and where its buckets belong */
struct group_ctl {
	uint32_t nh; /* its own next-hop entry */
	uint8_t nb;  /* members */
	bool v6;
	uint16_t live; /* bit per member slot */
	uint16_t weight[DP_FWD_ECMP_MAX];
	uint8_t home[DP_FWD_GROUP_BUCKETS]; /* the member slot of each bucket when all are live */
	uint8_t slot[DP_FWD_GROUP_BUCKETS]; /* the member slot of each bucket now */
};

static struct group_ctl *ctl;
static uint32_t nb_groups;
bool dp_fwd_groups_made;

int
dp_fwd_group_init(void)
{
	dp_fwd_group_fini();
	dp_fwd_groups = rte_zmalloc(
		"dp_fwd_groups", sizeof(*dp_fwd_groups) * DP_FWD_GROUPS_MAX, RTE_CACHE_LINE_SIZE);
	ctl = calloc(DP_FWD_GROUPS_MAX, sizeof(*ctl));
	if (dp_fwd_groups == NULL || ctl == NULL) {
		dp_fwd_group_fini();
		return -ENOMEM;
	}
	return 0;
}

void
dp_fwd_group_fini(void)
{
	rte_free(dp_fwd_groups);
	dp_fwd_groups = NULL;
	free(ctl);
	ctl = NULL;
	nb_groups = 0;
}

uint32_t
dp_fwd_group_count(void)
{
	return nb_groups;
}

/* ---- the flow's hash and the pick (workers) ---- */

uint32_t
dp_fwd_flow_hash4(const struct rte_mbuf *m)
{
	return dp_fwd_flow_hash4_fp(m);
}

uint32_t
dp_fwd_flow_hash6(const struct rte_mbuf *m)
{
	return dp_fwd_flow_hash6_fp(m);
}

/* ---- buckets (control lcore) ---- */

/* Whether next hop @p idx can take traffic: its neighbor has not failed, its link is up. */
static bool
member_live(uint32_t idx)
{
	const struct dp_fwd_nh *nh = &dp_fwd.nh[idx];

	return !dp_neigh_is_down(idx) &&
	       __atomic_load_n(&dp_port_up[dp_ports[nh->port].port_id], __ATOMIC_RELAXED);
}

/*
 * The member of each bucket when every member is live: each gets a share of the
 * buckets in proportion to its weight (largest remainders, at least one), and
 * the shares are interleaved (smooth weighted round robin).
 */
static void
home_fill(struct group_ctl *c)
{
	unsigned int count[DP_FWD_ECMP_MAX], frac[DP_FWD_ECMP_MAX];
	int cur[DP_FWD_ECMP_MAX];
	unsigned int i, b, total = 0, given = 0;

	for (i = 0; i < c->nb; i++)
		total += c->weight[i];
	for (i = 0; i < c->nb; i++) {
		count[i] = DP_FWD_GROUP_BUCKETS * c->weight[i] / total;
		frac[i] = DP_FWD_GROUP_BUCKETS * c->weight[i] % total;
		if (count[i] == 0) {
			count[i] = 1;
			frac[i] = 0;
		}
		given += count[i];
	}
	/* the rest to the largest remainders; too many (minimums) from the largest shares */
	while (given < DP_FWD_GROUP_BUCKETS) {
		unsigned int best = 0;

		for (i = 1; i < c->nb; i++)
			if (frac[i] > frac[best])
				best = i;
		count[best]++;
		frac[best] = 0;
		given++;
	}
	while (given > DP_FWD_GROUP_BUCKETS) {
		unsigned int best = 0;

		for (i = 1; i < c->nb; i++)
			if (count[i] > count[best])
				best = i;
		count[best]--;
		given--;
	}
	memset(cur, 0, sizeof(cur));
	for (b = 0; b < DP_FWD_GROUP_BUCKETS; b++) {
		unsigned int best = 0;

		for (i = 0; i < c->nb; i++) {
			cur[i] += (int)count[i];
			if (cur[i] > cur[best])
				best = i;
		}
		cur[best] -= DP_FWD_GROUP_BUCKETS;
		c->home[b] = (uint8_t)best;
	}
}

/*
 * Buckets of group @p gi for live members @p live: a bucket goes home when its
 * member is live, keeps a live member it was given, and otherwise goes to the
 * live member furthest below its weighted share. No member live: as they are.
 */
static void
buckets_set(uint32_t gi, uint16_t live)
{
	struct group_ctl *c = &ctl[gi];
	struct dp_fwd_group *g = &dp_fwd_groups[gi];
	uint8_t want[DP_FWD_GROUP_BUCKETS];
	unsigned int count[DP_FWD_ECMP_MAX] = { 0 };
	unsigned int i, b, wsum = 0;

	c->live = live;
	if (live == 0)
		return;
	for (i = 0; i < c->nb; i++)
		if (live & (1u << i))
			wsum += c->weight[i];
	for (b = 0; b < DP_FWD_GROUP_BUCKETS; b++) {
		const uint8_t cur = c->slot[b];

		if (live & (1u << c->home[b]))
			want[b] = c->home[b];
		else if (live & (1u << cur))
			want[b] = cur;
		else
			want[b] = UINT8_MAX;
		if (want[b] != UINT8_MAX)
			count[want[b]]++;
	}
	for (b = 0; b < DP_FWD_GROUP_BUCKETS; b++) {
		unsigned int best = UINT8_MAX;
		int64_t best_gap = INT64_MIN;

		if (want[b] != UINT8_MAX)
			continue;
		for (i = 0; i < c->nb; i++) {
			/* the share it should have minus what it has, in 1/wsum buckets */
			int64_t gap;

			if (!(live & (1u << i)))
				continue;
			gap = (int64_t)DP_FWD_GROUP_BUCKETS * c->weight[i] -
			      (int64_t)count[i] * wsum;
			if (gap > best_gap) {
				best_gap = gap;
				best = i;
			}
		}
		want[b] = (uint8_t)best;
		count[best]++;
	}
	for (b = 0; b < DP_FWD_GROUP_BUCKETS; b++) {
		if (c->slot[b] == want[b])
			continue;
		c->slot[b] = want[b];
		__atomic_store_n(&g->hop[b], g->member[want[b]], __ATOMIC_RELAXED);
	}
}

static uint16_t
live_mask(uint32_t gi)
{
	const struct group_ctl *c = &ctl[gi];
	uint16_t live = 0;
	unsigned int i;

	for (i = 0; i < c->nb; i++)
		if (member_live(dp_fwd_groups[gi].member[i]))
			live |= (uint16_t)(1u << i);
	return live;
}

void
dp_fwd_group_refresh(void)
{
	uint32_t gi;

	for (gi = 0; gi < nb_groups; gi++) {
		uint16_t live = live_mask(gi);

		if (live != ctl[gi].live) {
			buckets_set(gi, live);
			DP_LOG(INFO, fwd, "ECMP group %u: %u of %u next hops live", gi,
				(unsigned int)__builtin_popcount(live), ctl[gi].nb);
		}
	}
}

bool
dp_fwd_group_has_member(uint32_t idx)
{
	uint32_t gi;
	unsigned int i;

	for (gi = 0; gi < nb_groups; gi++)
		for (i = 0; i < ctl[gi].nb; i++)
			if (dp_fwd_groups[gi].member[i] == idx)
				return true;
	return false;
}

/* ---- making groups (control lcore) ---- */

static int
member_of(const struct dp_fwd_config_path *p, bool v6, uint32_t *idx)
{
	uint32_t be = rte_cpu_to_be_32(p->gw);
	int32_t nh = v6 ? dp_neigh_get(6, p->gw6, p->port, true)
			: dp_neigh_get(4, (const uint8_t *)&be, p->port, true);

	if (nh < 0)
		return nh;
	*idx = (uint32_t)nh;
	return 0;
}

int
dp_fwd_group_get(const struct dp_fwd_config_paths *paths, bool v6, uint32_t *idx)
{
	uint32_t member[DP_FWD_ECMP_MAX];
	struct dp_fwd_group *g;
	struct group_ctl *c;
	uint32_t gi;
	unsigned int i;
	int32_t nh;
	int rc;

	if (ctl == NULL || paths->nb < 2 || paths->nb > DP_FWD_ECMP_MAX)
		return -EINVAL;
	for (i = 0; i < paths->nb; i++) {
		rc = member_of(&paths->p[i], v6, &member[i]);
		if (rc < 0)
			return rc;
	}
	for (gi = 0; gi < nb_groups; gi++) {
		c = &ctl[gi];
		if (c->v6 != v6 || c->nb != paths->nb ||
			memcmp(dp_fwd_groups[gi].member, member, sizeof(member[0]) * c->nb) != 0)
			continue;
		for (i = 0; i < c->nb && c->weight[i] == paths->p[i].weight; i++)
			;
		if (i == c->nb) {
			*idx = c->nh;
			return 0;
		}
	}
	if (nb_groups == DP_FWD_GROUPS_MAX)
		return -ENOSPC;
	nh = dp_fwd_nh_alloc(paths->p[0].port, v6);
	if (nh < 0)
		return nh;
	gi = nb_groups;
	c = &ctl[gi];
	g = &dp_fwd_groups[gi];
	memset(c, 0, sizeof(*c));
	c->nh = (uint32_t)nh;
	c->nb = (uint8_t)paths->nb;
	c->v6 = v6;
	for (i = 0; i < paths->nb; i++)
		c->weight[i] = paths->p[i].weight;
	memcpy(g->member, member, sizeof(member[0]) * paths->nb);
	home_fill(c);
	memcpy(c->slot, c->home, sizeof(c->slot));
	for (i = 0; i < DP_FWD_GROUP_BUCKETS; i++)
		g->hop[i] = member[c->home[i]];
	c->live = (uint16_t)((1u << c->nb) - 1);
	buckets_set(gi, live_mask(gi));
	nb_groups++;
	__atomic_store_n(&dp_fwd_groups_made, true, __ATOMIC_RELEASE);
	/* whole before a worker can find its index (in a FIB, written after this returns) */
	dp_fwd.nh[nh].group = gi;
	__atomic_or_fetch(&dp_fwd.nh[nh].flags, DP_FWD_NH_F_GROUP, __ATOMIC_RELEASE);
	*idx = (uint32_t)nh;
	return 0;
}

/* ---- listing ---- */

static int
group_of(uint32_t idx, uint32_t *gi)
{
	if (idx >= dp_fwd.nb_nh || !(dp_fwd.nh[idx].flags & DP_FWD_NH_F_GROUP) ||
		dp_fwd.nh[idx].group >= nb_groups)
		return -ENOENT;
	*gi = dp_fwd.nh[idx].group;
	return 0;
}

static const char *
gw_str(uint32_t member, bool v6, char *buf, size_t len)
{
	const struct dp_fwd_nh *nh = &dp_fwd.nh[member];

	return v6 ? dp_config_ip6_str(nh->gw6, buf, len) : dp_config_ip4_str(nh->gw, buf, len);
}

int
dp_fwd_group_format(uint32_t idx, char *buf, size_t len)
{
	char gw[64], port[DP_PORT_NAME_LEN];
	uint32_t gi;
	unsigned int i;
	size_t n = 0;

	if (len > 0)
		buf[0] = '\0';
	if (group_of(idx, &gi) < 0)
		return -ENOENT;
	for (i = 0; i < ctl[gi].nb; i++) {
		const uint32_t m = dp_fwd_groups[gi].member[i];
		int k = snprintf(buf + RTE_MIN(n, len), len - RTE_MIN(n, len),
			" via %s port %s weight %u", gw_str(m, ctl[gi].v6, gw, sizeof(gw)),
			dp_port_name(dp_fwd.nh[m].port, port, sizeof(port)), ctl[gi].weight[i]);

		n += (size_t)k;
	}
	return (int)n;
}

int
dp_fwd_group_member_format(uint32_t idx, unsigned int slot, char *buf, size_t len)
{
	char gw[64], port[DP_PORT_NAME_LEN];
	unsigned int b, share = 0;
	uint32_t gi, m;

	if (group_of(idx, &gi) < 0 || slot >= ctl[gi].nb)
		return -ENOENT;
	m = dp_fwd_groups[gi].member[slot];
	for (b = 0; b < DP_FWD_GROUP_BUCKETS; b++)
		share += ctl[gi].slot[b] == slot;
	return snprintf(buf, len, "group %u via %s port %s weight %u %s (%u of %u buckets)", gi,
		gw_str(m, ctl[gi].v6, gw, sizeof(gw)),
		dp_port_name(dp_fwd.nh[m].port, port, sizeof(port)), ctl[gi].weight[slot],
		(ctl[gi].live & (1u << slot)) ? "live" : "down", share, DP_FWD_GROUP_BUCKETS);
}
