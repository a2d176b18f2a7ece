/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast path's side of ECMP groups (dp_fwd_group.h): a next hop that is a
 * group becomes the member the packet's flow takes. Called where a next hop
 * is not resolved (a group never is), so that forwarding without groups pays
 * nothing more.
 */
#ifndef DP_GROUP_FP_H
#define DP_GROUP_FP_H

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_fwd_group.h"

/** Next hop @p h for packet @p m: itself, or the member of the group it is. */
static __rte_always_inline uint32_t
dp_fwd_group_hop(
	const struct dp_fwd_nh *nh_table, uint32_t h, const struct rte_mbuf *m, const bool v6)
{
	const struct dp_fwd_nh *nh = &nh_table[h];

	if (likely(!(nh->flags & DP_FWD_NH_F_GROUP)))
		return h;
	return v6 ? dp_fwd_group_pick6(nh, m) : dp_fwd_group_pick4(nh, m);
}

#endif /* DP_GROUP_FP_H */
