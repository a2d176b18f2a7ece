/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMPv4, control path: the rate limit's parameters, per-worker state set up
 * when a graph is created, counters and telemetry. The datapath is in
 * ip4_local_node.c and icmp4_error_node.c.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_graph_worker.h>

#include "dp_common.h"
#include "dp_icmp4.h"
#include "dp_telemetry.h"
#include "graph_fp.h"
#include "icmp4_priv.h"

struct icmp4_worker icmp4_workers[DP_GRAPH_MAX_WORKERS];
struct dp_tbucket_limit icmp4_limit = {
	.rate = DP_ICMP4_RATE_DEFAULT,
	.burst = DP_ICMP4_BURST_DEFAULT,
	.gen = 1,
};

void
dp_icmp4_ratelimit_set(uint32_t rate, uint32_t burst)
{
	dp_tbucket_limit_set(&icmp4_limit, rate, burst);
}

int
dp_icmp4_init(const struct dp_config *cfg)
{
	dp_icmp4_ratelimit_set(cfg->icmp_rate, cfg->icmp_burst);
	DP_LOG(INFO, fwd, "ICMP errors: at most %u per second per worker, bursts of %u%s",
		cfg->icmp_rate, cfg->icmp_burst, cfg->icmp_rate == 0 ? " (none sent)" : "");
	return 0;
}

/*
 * Called for ip4_local and for icmp4_error of each worker graph, while the
 * graph is created (ports are started by then): both nodes share the worker's
 * state, which starts afresh with a full bucket.
 */
int
icmp4_node_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	struct icmp4_worker *st;
	int rc = dp_graph_node_init_state(graph, node, icmp4_workers, sizeof(icmp4_workers[0]));

	if (rc < 0)
		return rc;
	st = ctx->arg;
	memset(st, 0, sizeof(*st));
	/* the bucket's gen 0 never matches icmp4_limit's: the first error sets the bucket */
	st->ip_id = (uint16_t)rte_rdtsc();
	return 0;
}

void
dp_icmp4_stats_get(struct dp_icmp4_stats *st)
{
	uint16_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < dp_nb_workers; i++) {
		const struct icmp4_worker *w = &icmp4_workers[dp_workers[i]->index];

		st->echo_replies += w->echo_replies;
		st->errors += w->errors;
		st->errors_sent += w->errors_sent;
	}
}

static json_t *
icmp4_fill(void *arg)
{
	struct dp_icmp4_stats st;

	RTE_SET_USED(arg);
	dp_icmp4_stats_get(&st);
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "echo_replies", (json_int_t)st.echo_replies,
		"errors", (json_int_t)st.errors, "errors_sent", (json_int_t)st.errors_sent, "rate",
		(json_int_t)icmp4_limit.rate, "burst", (json_int_t)icmp4_limit.burst);
}

int
dp_icmp4_telemetry_register(void)
{
	return dp_telemetry_section_register("icmp4", "/dpfwd/fwd/icmp4",
		"ICMPv4: echo replies, errors due and sent, the error rate limit", icmp4_fill,
		NULL);
}
