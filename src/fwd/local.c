/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local delivery's registry (dp_fwd_local.h): services by their nodes, UDP
 * ports by service, and the fast matches in front of the route lookup.
 */
#include <errno.h>
#include <string.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>

#include "dp_common.h"
#include "dp_fwd.h"
#include "dp_fwd_local.h"
#include "fwd_local_priv.h"

uint8_t dp_fwd_local_udp4[65536];
uint8_t dp_fwd_local_udp6[65536];
uint8_t dp_fwd_local_frag4;
uint8_t dp_fwd_local_other4;
uint8_t dp_fwd_local_other6;
uint8_t dp_fwd_local_frag6;
struct dp_fwd_fast_match dp_fwd_fast_match4[DP_GRAPH_MAX_WORKERS];
struct dp_fwd_fast_match dp_fwd_fast_match6[DP_GRAPH_MAX_WORKERS];

/* Services by number - 1: their nodes' names, as long as the process (so are the edges). */
static char svc_node4[DP_FWD_LOCAL_SVC_MAX][RTE_NODE_NAMESIZE];
static char svc_node6[DP_FWD_LOCAL_SVC_MAX][RTE_NODE_NAMESIZE];
static uint8_t nb_svcs;

/* The nodes that deliver locally, each with the edge its service 1 takes: the
 * services' edges follow the node's own, in the order the services came. */
static const struct {
	const char *name;
	bool ip6;
	rte_edge_t base;
} local_nodes[] = {
	{ "ip4_fwd", false, FWD_LOCAL_IP4_FWD_BASE },
	{ "ip4_local", false, FWD_LOCAL_IP4_LOCAL_BASE },
	{ "ip6_fwd", true, FWD_LOCAL_IP6_FWD_BASE },
	{ "ip6_local", true, FWD_LOCAL_IP6_LOCAL_BASE },
};

int
dp_fwd_local_service_add(const char *node4, const char *node6)
{
	unsigned int i;
	uint8_t s;

	for (s = 0; s < nb_svcs; s++)
		if (strcmp(svc_node4[s], node4) == 0 && strcmp(svc_node6[s], node6) == 0)
			return s + 1;
	if (nb_svcs == DP_FWD_LOCAL_SVC_MAX)
		return -ENOSPC;
	if (rte_node_from_name(node4) == RTE_NODE_ID_INVALID ||
		rte_node_from_name(node6) == RTE_NODE_ID_INVALID) {
		DP_LOG(ERR, fwd, "local service %s/%s: no such node", node4, node6);
		return -EINVAL;
	}
	for (i = 0; i < DP_ARRAY_SIZE(local_nodes); i++) {
		const char *to = local_nodes[i].ip6 ? node6 : node4;
		const rte_node_t id = rte_node_from_name(local_nodes[i].name);

		if (id == RTE_NODE_ID_INVALID ||
			rte_node_edge_count(id) != local_nodes[i].base + nb_svcs ||
			rte_node_edge_update(id, RTE_EDGE_ID_INVALID, &to, 1) != 1) {
			DP_LOG(ERR, fwd, "local service %s/%s: cannot connect %s to it", node4,
				node6, local_nodes[i].name);
			return -EINVAL;
		}
	}
	snprintf(svc_node4[nb_svcs], RTE_NODE_NAMESIZE, "%s", node4);
	snprintf(svc_node6[nb_svcs], RTE_NODE_NAMESIZE, "%s", node6);
	return ++nb_svcs;
}

int
dp_fwd_local_udp_claim(bool ip6, uint16_t lo, uint16_t hi, uint8_t svc)
{
	uint8_t *map = ip6 ? dp_fwd_local_udp6 : dp_fwd_local_udp4;
	uint32_t p;

	if (svc == 0 || svc > nb_svcs)
		return -EINVAL;
	for (p = lo; p <= hi; p++) {
		const uint8_t owner = __atomic_load_n(&map[p], __ATOMIC_RELAXED);

		if (owner != 0 && owner != svc)
			return -EADDRINUSE;
	}
	for (p = lo; p <= hi; p++)
		__atomic_store_n(&map[p], svc, __ATOMIC_RELEASE);
	return 0;
}

void
dp_fwd_local_udp_release(bool ip6, uint16_t lo, uint16_t hi, uint8_t svc)
{
	uint8_t *map = ip6 ? dp_fwd_local_udp6 : dp_fwd_local_udp4;
	uint32_t p;

	for (p = lo; p <= hi; p++)
		if (__atomic_load_n(&map[p], __ATOMIC_RELAXED) == svc)
			__atomic_store_n(&map[p], 0, __ATOMIC_RELEASE);
}

void
dp_fwd_local_frag_set(bool ip6, uint8_t svc)
{
	__atomic_store_n(ip6 ? &dp_fwd_local_frag6 : &dp_fwd_local_frag4, svc, __ATOMIC_RELEASE);
}

void
dp_fwd_local_other_set(bool ip6, uint8_t svc)
{
	__atomic_store_n(ip6 ? &dp_fwd_local_other6 : &dp_fwd_local_other4, svc, __ATOMIC_RELEASE);
}

void
dp_fwd_fast_match_set(
	bool ip6, uint16_t worker, dp_fwd_fast_match_fn fn, void *ctx, const char *node)
{
	struct dp_fwd_fast_match *fm;

	if (worker >= DP_GRAPH_MAX_WORKERS)
		return;
	fm = ip6 ? &dp_fwd_fast_match6[worker] : &dp_fwd_fast_match4[worker];
	fm->fn = fn;
	fm->ctx = fn != NULL ? ctx : NULL;
	snprintf(fm->node, sizeof(fm->node), "%s", fn != NULL && node != NULL ? node : "");
	fm->charge = NULL;
}

int
fwd_local_node_init(const struct rte_graph *graph, struct rte_node *node, bool ip6)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	struct dp_fwd_fast_match *fm;
	rte_graph_off_t off;
	rte_node_t count;
	struct rte_node *n;
	int rc = dp_graph_node_init_worker(graph, node);

	if (rc < 0)
		return rc;
	fm = ip6 ? &dp_fwd_fast_match6[ctx->w->index] : &dp_fwd_fast_match4[ctx->w->index];
	ctx->arg = NULL;
	if (fm->fn == NULL)
		return 0;
	/* the service's node, in the graph being made: its nodes' memory is laid
	 * out before their inits run */
	fm->charge = NULL;
	rte_graph_foreach_node(count, off, graph, n) if (strcmp(n->name, fm->node) == 0)
		fm->charge = n;
	if (fm->charge == NULL) {
		DP_LOG(ERR, fwd, "fast match of %s: node %s is not in graph %s", node->name,
			fm->node, graph->name);
		return -ENOENT;
	}
	ctx->arg = fm;
	return 0;
}
