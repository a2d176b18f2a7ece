/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMPv6, control path: the rate limit's parameters, per-worker state set up
 * when a graph is created, counters and their JSON (in fwd6.c's telemetry
 * section). The datapath is in ip6_local_node.c and icmp6_error_node.c.
 */
#include <errno.h>
#include <string.h>

#include <rte_graph_worker.h>

#include "dp_common.h"
#include "dp_icmp6.h"
#include "graph_fp.h"
#include "icmp6_priv.h"

struct icmp6_worker icmp6_workers[DP_GRAPH_MAX_WORKERS];
struct dp_tbucket_limit icmp6_limit = {
	.rate = DP_ICMP6_RATE_DEFAULT,
	.burst = DP_ICMP6_BURST_DEFAULT,
	.gen = 1,
};

void
dp_icmp6_ratelimit_set(uint32_t rate, uint32_t burst)
{
	dp_tbucket_limit_set(&icmp6_limit, rate, burst);
}

int
dp_icmp6_init(const struct dp_config *cfg)
{
	dp_icmp6_ratelimit_set(cfg->icmp_rate, cfg->icmp_burst);
	return 0;
}

/*
 * ip6_local and icmp6_error of each worker graph share the worker's state,
 * which starts afresh (its bucket's gen 0 never matches: the first error fills it).
 */
int
icmp6_node_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	int rc = dp_graph_node_init_state(graph, node, icmp6_workers, sizeof(icmp6_workers[0]));

	if (rc == 0)
		memset(ctx->arg, 0, sizeof(icmp6_workers[0]));
	return rc;
}

void
dp_icmp6_stats_get(struct dp_icmp6_stats *st)
{
	uint16_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < dp_nb_workers; i++) {
		const struct icmp6_worker *w = &icmp6_workers[dp_workers[i]->index];

		st->echo_replies += w->echo_replies;
		st->errors += w->errors;
		st->errors_sent += w->errors_sent;
	}
}

json_t *
icmp6_telemetry_json(void)
{
	struct dp_icmp6_stats st;

	dp_icmp6_stats_get(&st);
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "echo_replies", (json_int_t)st.echo_replies,
		"errors", (json_int_t)st.errors, "errors_sent", (json_int_t)st.errors_sent, "rate",
		(json_int_t)icmp6_limit.rate, "burst", (json_int_t)icmp6_limit.burst);
}
