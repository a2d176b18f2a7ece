/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_graph_worker.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "dp_common.h"
#include "dp_graph.h"
#include "dp_telemetry.h"
#include "dp_trace.h"
#include "graph_fp.h"

RTE_LOG_REGISTER(dp_logtype_graph, dpfwd.graph, INFO);

struct dp_worker *dp_workers[DP_GRAPH_MAX_WORKERS];
uint16_t dp_nb_workers;
volatile bool dp_graph_quit;
struct dp_graph_port_l2 dp_graph_port_l2[DP_PORT_MAX_IDS];

/* The worker whose graph is being created: node init callbacks read it. */
static struct dp_worker *creating;

/* Nodes of every worker graph; port_tx clones are matched by pattern. The
 * nodes other nodes' edges lead to (a local service's, dp_fwd_local.h) come
 * with those edges. */
static const char *const graph_patterns[] = { "port_rx", "ctl_inject", "eth_classify", "ip4_fwd",
	"ip4_local", "icmp4_error", "ip4_output", "ip6_fwd", "ip6_local", "icmp6_error",
	"ip6_output", "ctl_punt", "port_tx-*", "drop" };

/*
 * Source nodes that modules registered for the graphs made next
 * (dp_graph_source_add()): a source node is called on every walk even when it
 * has nothing to do, so a module adds its own only when its job is on.
 */
static char graph_sources[DP_GRAPH_MAX_SOURCES][RTE_NODE_NAMESIZE];
static unsigned int graph_nb_sources;

int
dp_graph_source_add(const char *node)
{
	unsigned int i;

	if (rte_node_from_name(node) == RTE_NODE_ID_INVALID)
		return -ENOENT;
	for (i = 0; i < graph_nb_sources; i++)
		if (strcmp(graph_sources[i], node) == 0)
			return 0;
	if (graph_nb_sources == DP_GRAPH_MAX_SOURCES)
		return -ENOSPC;
	snprintf(graph_sources[graph_nb_sources++], RTE_NODE_NAMESIZE, "%s", node);
	return 0;
}

void
dp_graph_source_del(const char *node)
{
	unsigned int i;

	for (i = 0; i < graph_nb_sources; i++) {
		if (strcmp(graph_sources[i], node) != 0)
			continue;
		graph_nb_sources--;
		memmove(graph_sources[i], graph_sources[i + 1],
			(graph_nb_sources - i) * sizeof(graph_sources[0]));
		return;
	}
}

/* The node patterns of a worker graph: the fixed ones and the sources registered. */
static unsigned int
graph_patterns_all(const char **out)
{
	unsigned int n = 0, i;

	for (i = 0; i < DP_ARRAY_SIZE(graph_patterns); i++)
		out[n++] = graph_patterns[i];
	for (i = 0; i < graph_nb_sources; i++)
		out[n++] = graph_sources[i];
	return n;
}

const struct dp_graph_tx_node dp_graph_tx_nodes[] = {
	{ "ip4_output", DP_GRAPH_EDGE_PORT_TX(0) },
	{ "ctl_inject", DP_GRAPH_EDGE_PORT_TX(0) },
	{ "ip6_output", DP_GRAPH_EDGE_PORT_TX(0) },
	{ NULL, 0 },
};

uint64_t dp_ctl_drops[DP_DROP_MAX];
struct rte_rcu_qsbr *dp_graph_qsv;
dp_graph_tap_t dp_graph_tap;

int
dp_graph_node_init_worker(const struct rte_graph *graph, struct rte_node *node)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;

	RTE_SET_USED(graph);
	if (creating == NULL)
		return -EINVAL;
	ctx->w = creating;
	ctx->arg = NULL;
	return 0;
}

int
dp_graph_node_init_state(
	const struct rte_graph *graph, struct rte_node *node, void *states, size_t size)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	int rc = dp_graph_node_init_worker(graph, node);

	if (rc < 0)
		return rc;
	if (ctx->w->index >= DP_GRAPH_MAX_WORKERS)
		return -EINVAL;
	ctx->arg = RTE_PTR_ADD(states, (size_t)ctx->w->index * size);
	return 0;
}

int
dp_graph_ports_prepare(char names[][RTE_NODE_NAMESIZE], uint16_t *nb)
{
	rte_node_t parent = rte_node_from_name("port_tx");
	uint16_t i;

	if (parent == RTE_NODE_ID_INVALID)
		return -ENOENT;
	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_graph_port_l2 *l2;
		char suffix[8];

		snprintf(suffix, sizeof(suffix), "%u", i);
		snprintf(names[i], RTE_NODE_NAMESIZE, "port_tx-%u", i);
		/* clones live as long as the process: reuse one made by an earlier setup */
		if (rte_node_from_name(names[i]) == RTE_NODE_ID_INVALID &&
			rte_node_clone(parent, suffix) == RTE_NODE_ID_INVALID) {
			DP_LOG(ERR, graph, "cannot clone port_tx for port%u: %s", i,
				rte_strerror(rte_errno));
			return -rte_errno;
		}
		l2 = &dp_graph_port_l2[dp_ports[i].port_id];
		l2->mac = 0;
		memcpy(&l2->mac, &dp_ports[i].mac, RTE_ETHER_ADDR_LEN);
		/* a port's MAC is unicast; port_rx's one test for "unicast and
		 * ours" relies on its group bit being 0 here */
		l2->mac &= ~UINT64_C(1);
		l2->mask = dp_ports[i].promisc ? 0 : (UINT64_C(1) << 48) - 1;
		/* past the MTU where the driver reassembles IPv4 (net_af_packet): input,
		 * not oversize frames (ip4_fwd cuts them again); a longer one comes cut
		 * short, an ip4_bad_length */
		l2->frame_max = dp_port_rx_max(&dp_ports[i]) + RTE_ETHER_HDR_LEN;
		l2->vlan_strip = (dp_ports[i].rx_offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
	}
	for (i = 0; dp_graph_tx_nodes[i].name != NULL; i++) {
		const struct dp_graph_tx_node *tx = &dp_graph_tx_nodes[i];
		const char *edge_names[DP_PORT_MAX];
		rte_node_t id = rte_node_from_name(tx->name);
		uint16_t p;

		for (p = 0; p < dp_nb_ports; p++)
			edge_names[p] = names[p];
		if (id == RTE_NODE_ID_INVALID || rte_node_edge_update(id, tx->base, edge_names,
							 dp_nb_ports) != dp_nb_ports) {
			DP_LOG(ERR, graph, "cannot connect %s to the port_tx nodes", tx->name);
			return -EINVAL;
		}
	}
	*nb = dp_nb_ports;
	return 0;
}

/*
 * The walk. rte_graph_walk() is the same loop, but whether it counts cycles
 * is fixed when DPDK is built (RTE_LIBRTE_GRAPH_STATS) and it reads the TSC
 * twice per node on every walk. Here calls and packets are counted on every
 * walk (two adds per node), while cycles are taken on one walk in
 * node_stats_sample, with one TSC read per node boundary (the end of one node
 * is the start of the next). cycles/packet = timed cycles / packets in timed
 * walks: an unbiased estimate at a fraction of the cost. The counts go into
 * rte_graph's own node fields (total_cycles holds the timed cycles).
 */
static __rte_always_inline void
graph_walk(struct dp_worker *w, struct rte_graph *graph, const bool count, const bool timed)
{
	const rte_graph_off_t *cir_start = graph->cir_start;
	const rte_node_t mask = graph->cir_mask;
	uint32_t head = graph->head;
	uint64_t t0 = 0, t1;

	w->walk_timed = timed;
	w->walk_traced = false;
	if (timed)
		t0 = rte_rdtsc();
	while (likely(head != graph->tail)) {
		struct rte_node *node = RTE_PTR_ADD(graph, cir_start[(int32_t)head++]);
		uint16_t rc;

		rte_prefetch0(node->objs);
		rc = node->process(graph, node, node->objs, node->idx);
		if (count) {
			node->total_calls++;
			node->total_objs += rc;
		}
		if (timed) {
			t1 = rte_rdtsc();
			/* a call that moved nothing (an empty poll) is idle time, counted
			 * per lcore; in a node's cycles it would make cycles/packet grow
			 * without bound as the load falls */
			if (rc != 0) {
				/* less what it did for other nodes (dp_node_lend()) */
				node->total_cycles += t1 - t0 - w->lent_cycles;
				w->timed_objs[node->id] += rc;
			} else {
				w->stats.timed_empty_cycles += t1 - t0;
			}
			w->lent_cycles = 0;
			t0 = t1;
		}
		node->idx = 0;
		head = likely((int32_t)head > 0) ? head & mask : head;
	}
	graph->tail = 0;
}

/*
 * The walk while a trace is armed (dp_trace.h): each node through the trace
 * hook, which records the marked packets it is handed; calls and packets
 * counted, cycles not (the hook's work is no node's).
 */
static __rte_noinline void
graph_walk_traced(struct dp_worker *w, struct rte_graph *graph, const bool count)
{
	const rte_graph_off_t *cir_start = graph->cir_start;
	const rte_node_t mask = graph->cir_mask;
	uint32_t head = graph->head;

	w->walk_timed = false;
	w->walk_traced = true;
	while (likely(head != graph->tail)) {
		struct rte_node *node = RTE_PTR_ADD(graph, cir_start[(int32_t)head++]);
		uint16_t rc = dp_trace_node_call(graph, node);

		if (count) {
			node->total_calls++;
			node->total_objs += rc;
		}
		node->idx = 0;
		head = likely((int32_t)head > 0) ? head & mask : head;
	}
	graph->tail = 0;
}

void
dp_graph_worker_flush(struct dp_worker *w)
{
	uint16_t p;

	/* the config's ports: the worker has one TX buffer on each, and a second on a
	 * sub-interface whose port does not insert tags (txq_tagged) */
	for (p = 0; p < 2 * dp_nb_ports; p++) {
		struct dp_worker_txq *q = p < dp_nb_ports ? w->txq[dp_ports[p].port_id]
							  : w->txq_tagged[p - dp_nb_ports];
		uint64_t t;

		if (q == NULL || q->len == 0)
			continue;
		/*
		 * What this sends is timed as it goes to the PMD (dp_delay.h): a
		 * read before the burst, not after it, since a PMD's TX burst may
		 * be a system call that runs the receiver's stack (net_af_packet
		 * on a veth, all of it spent in the peer, which the histogram
		 * would put on dpfwd). A flush runs when RX is idle or
		 * once per tx_drain_us, so the read costs nothing under load.
		 */
		t = w->delay_stats ? rte_rdtsc() : 0;
		dp_txq_send(w, q, q->pkts, q->len);
		q->len = 0;
		if (w->delay_pend.n != 0)
			dp_delay_commit(&w->delay, &w->delay_pend, t);
	}
}

static __rte_always_inline void
worker_loop(struct dp_worker *w, uint64_t max_iterations, const bool stats)
{
	struct dp_worker_stats *st = &w->stats;
	uint64_t prev = rte_rdtsc();
	uint64_t last_drain = prev;
	uint64_t n = 0;

	while (!dp_graph_quit && n++ != max_iterations) {
		uint64_t now;

		/* the loop's one TSC read per iteration, taken at the end of the
		 * one before, is also this walk's "now": port_rx stamps packets
		 * with it (dp_delay.h). It is an upper bound on when they reached
		 * the RX ring, no further from it than a read after the poll
		 * would be; a read of its own would cost an rdtsc per walk. */
		w->walk_tsc = prev;
		w->last_rx = 0;
		/* one test per walk while no trace is armed */
		if (unlikely(__atomic_load_n(&dp_trace_armed, __ATOMIC_RELAXED) != 0))
			graph_walk_traced(w, w->graph, stats);
		else if (stats && (st->iterations & w->sample_mask) == 0)
			graph_walk(w, w->graph, true, true);
		else
			graph_walk(w, w->graph, stats, false);
		now = rte_rdtsc();
		/* what the walk sent is timed with this read (dp_delay.h) */
		if (w->delay_pend.n != 0)
			dp_delay_commit(&w->delay, &w->delay_pend, now);
		/* RX came back short of a burst per queue: the queues are empty and
		 * waiting for fuller TX bursts would only add delay (a lone packet
		 * would wait tx_drain_us); under load bursts are full and TX keeps
		 * coalescing until the drain timer */
		if ((w->flush_idle && w->last_rx < w->rx_full) ||
			now - last_drain >= w->drain_tsc) {
			dp_graph_worker_flush(w);
			last_drain = now;
		}
		if (w->last_rx != 0) {
			st->busy_cycles += now - prev;
		} else {
			st->idle_cycles += now - prev;
			st->empty_polls++;
		}
		st->iterations++;
		prev = now;
		/* between two walks this worker holds no pointer into the tables
		 * (routes, neighbors): what the control lcore replaced may be freed */
		if (w->qsv != NULL)
			rte_rcu_qsbr_quiescent(w->qsv, w->index);
	}
}

int
dp_graph_worker_run(struct dp_worker *w, uint64_t max_iterations)
{
	w->tid = (pid_t)syscall(SYS_gettid);
	if (w->node_stats)
		worker_loop(w, max_iterations, true);
	else
		worker_loop(w, max_iterations, false);
	return 0;
}

static int
worker_main(void *arg)
{
	struct dp_worker *w = arg;

	if (w->qsv != NULL)
		rte_rcu_qsbr_thread_online(w->qsv, w->index);
	dp_graph_worker_run(w, UINT64_MAX);
	dp_graph_worker_flush(w);
	if (w->qsv != NULL)
		rte_rcu_qsbr_thread_offline(w->qsv, w->index);
	return 0;
}

static int
worker_add_txqs(struct dp_worker *w)
{
	uint16_t i;

	for (i = 0; i < dp_nb_ports; i++) {
		struct dp_worker_txq *q;

		q = rte_zmalloc_socket("dp_txq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			rte_lcore_to_socket_id(w->lcore_id));
		if (q == NULL)
			return -ENOMEM;
		q->port_id = dp_ports[i].port_id;
		q->queue = w->index;
		q->delay_skip = dp_delay_sample_gap(w->delay_sample);
		w->txq[q->port_id] = q;
		w->txq_cfg[i] = q;
		if (dp_port_is_vlan(i)) {
			/* a sub-interface's buffer goes out on its port's queue */
			q->port_id = dp_ports[dp_ports[i].parent].port_id;
			q->vlan_tci = dp_ports[i].vid;
			q->vlan_insert = dp_ports[i].vlan_insert;
			q->vlan_stats = dp_port_vlan_stats_of(w->lcore_id, i);
			if (q->vlan_insert)
				continue;
			w->txq_tagged[i] = rte_zmalloc_socket("dp_txq", sizeof(*q),
				RTE_CACHE_LINE_SIZE, rte_lcore_to_socket_id(w->lcore_id));
			if (w->txq_tagged[i] == NULL)
				return -ENOMEM;
			*w->txq_tagged[i] = *q;
			w->txq_tagged[i]->tagged = true;
		}
	}
	return 0;
}

int
dp_graph_lcores_check(const struct dp_config *cfg, char *err, size_t errlen)
{
	unsigned int lcores[DP_GRAPH_MAX_WORKERS];
	unsigned int nb, i;

	nb = dp_config_worker_lcores(cfg, lcores, DP_ARRAY_SIZE(lcores));
	for (i = 0; i < nb; i++) {
		if (!rte_lcore_is_enabled(lcores[i])) {
			snprintf(err, errlen,
				"lcore %u polls ports in [lcores] but is not enabled in EAL (add it "
				"to -l)",
				lcores[i]);
			return -EINVAL;
		}
	}
	return 0;
}

int
dp_graph_workers_create(const struct dp_config *cfg, char *err, size_t errlen)
{
	const char *patterns[DP_ARRAY_SIZE(graph_patterns) + DP_GRAPH_MAX_SOURCES];
	unsigned int lcores[DP_GRAPH_MAX_WORKERS];
	unsigned int nb, i, j;
	int rc;

	nb = dp_config_worker_lcores(cfg, lcores, DP_ARRAY_SIZE(lcores));
	rc = dp_graph_lcores_check(cfg, err, errlen);
	if (rc < 0)
		return rc;
	dp_graph_quit = false;
	if (nb > 0) {
		size_t sz = rte_rcu_qsbr_get_memsize(nb);

		dp_graph_qsv = rte_zmalloc("dp_qsbr", sz, RTE_CACHE_LINE_SIZE);
		if (dp_graph_qsv == NULL || rte_rcu_qsbr_init(dp_graph_qsv, nb) != 0) {
			snprintf(err, errlen, "out of memory for the RCU state of %u workers", nb);
			return -ENOMEM;
		}
	}
	for (i = 0; i < nb; i++) {
		struct rte_graph_param prm;
		struct dp_worker *w;
		char name[RTE_GRAPH_NAMESIZE];

		w = rte_zmalloc_socket("dp_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
			rte_lcore_to_socket_id(lcores[i]));
		if (w == NULL) {
			snprintf(err, errlen, "out of memory for worker of lcore %u", lcores[i]);
			return -ENOMEM;
		}
		dp_workers[dp_nb_workers++] = w;
		w->lcore_id = lcores[i];
		w->index = (uint16_t)i;
		w->burst = cfg->burst;
		w->node_stats = cfg->node_stats;
		w->delay_stats = cfg->delay_stats;
		w->delay_sample = cfg->delay_stats_sample;
		dp_delay_init(&w->delay);
		/* a power of two, for a mask */
		w->sample_mask = (uint16_t)(rte_align32pow2(cfg->node_stats_sample) - 1);
		w->ip4_cksum_check = cfg->ip4_cksum_check;
		w->check_dst_mac = cfg->check_dst_mac;
		w->drain_tsc = (rte_get_tsc_hz() + 999999) / 1000000 * cfg->tx_drain_us;
		w->flush_idle = cfg->tx_flush_idle;
		w->insn_fd = -1;
		w->qsv = dp_graph_qsv;
		rte_rcu_qsbr_thread_register(dp_graph_qsv, w->index);
		for (j = 0; j < cfg->nb_rxmap; j++) {
			const struct dp_config_rxmap *m = &cfg->rxmap[j];

			if (m->lcore != w->lcore_id)
				continue;
			if (w->nb_rxq == DP_WORKER_MAX_RXQ) {
				snprintf(err, errlen, "lcore %u polls more than %d queues",
					w->lcore_id, DP_WORKER_MAX_RXQ);
				return -EINVAL;
			}
			w->rxq[w->nb_rxq].port_id = dp_ports[m->port].port_id;
			w->rxq[w->nb_rxq].queue = m->queue;
			w->rx_ip4_cksum |= dp_ports[m->port].rx_ip4_cksum;
			w->nb_rxq++;
		}
		w->rx_full = (uint32_t)w->nb_rxq * w->burst;
		rc = worker_add_txqs(w);
		if (rc < 0) {
			snprintf(err, errlen, "out of memory for TX buffers of lcore %u",
				w->lcore_id);
			return rc;
		}
		snprintf(name, sizeof(name), "worker-%u", w->lcore_id);
		memset(&prm, 0, sizeof(prm));
		prm.socket_id = (int)rte_lcore_to_socket_id(w->lcore_id);
		prm.nb_node_patterns = graph_patterns_all(patterns);
		prm.node_patterns = patterns;
		creating = w;
		w->graph_id = rte_graph_create(name, &prm);
		creating = NULL;
		if (w->graph_id == RTE_GRAPH_ID_INVALID) {
			snprintf(err, errlen, "cannot create graph %s: %s", name,
				rte_strerror(rte_errno));
			return -rte_errno;
		}
		w->graph = rte_graph_lookup(name);
		for (j = 0; j < dp_nb_ports; j++) {
			char tx[RTE_NODE_NAMESIZE];

			snprintf(tx, sizeof(tx), "port_tx-%u", j);
			w->txq_cfg[j]->tx_node = rte_graph_node_get_by_name(name, tx);
			if (w->txq_tagged[j] != NULL)
				w->txq_tagged[j]->tx_node = w->txq_cfg[j]->tx_node;
		}
		DP_LOG(INFO, graph, "worker %u on lcore %u: %u RX queue(s), graph %s", w->index,
			w->lcore_id, w->nb_rxq, name);
	}
	return 0;
}

int
dp_graph_workers_launch(void)
{
	uint16_t i;
	int rc;

	for (i = 0; i < dp_nb_workers; i++) {
		rc = rte_eal_remote_launch(worker_main, dp_workers[i], dp_workers[i]->lcore_id);
		if (rc < 0) {
			DP_LOG(ERR, graph, "cannot launch worker on lcore %u: %s",
				dp_workers[i]->lcore_id, strerror(-rc));
			return rc;
		}
	}
	for (i = 0; i < dp_nb_workers; i++) {
		struct dp_worker *w = dp_workers[i];
		int spins = 0;

		while (w->tid == 0 && spins++ < 100000)
			rte_pause();
		if (w->tid == 0) {
			snprintf(w->insn_why, sizeof(w->insn_why), "worker thread id unknown");
			continue;
		}
		w->insn_fd = dp_telemetry_insn_open(w->tid, w->insn_why, sizeof(w->insn_why));
	}
	return 0;
}

void
dp_graph_workers_stop(void)
{
	uint16_t i;

	dp_graph_quit = true;
	for (i = 0; i < dp_nb_workers; i++)
		rte_eal_wait_lcore(dp_workers[i]->lcore_id);
}

void
dp_graph_workers_free(void)
{
	uint16_t i, p;

	for (i = 0; i < dp_nb_workers; i++) {
		struct dp_worker *w = dp_workers[i];

		if (w->graph_id != RTE_GRAPH_ID_INVALID && w->graph != NULL)
			rte_graph_destroy(w->graph_id);
		if (w->insn_fd >= 0)
			close(w->insn_fd);
		/* sub-interfaces' buffers included: past DPDK's port ids */
		for (p = 0; p < DP_PORT_MAX_IDS; p++)
			rte_free(w->txq[p]);
		for (p = 0; p < DP_PORT_MAX; p++)
			rte_free(w->txq_tagged[p]);
		rte_free(w);
		dp_workers[i] = NULL;
	}
	dp_nb_workers = 0;
	rte_free(dp_graph_qsv);
	dp_graph_qsv = NULL;
}

uint64_t
dp_graph_drops(enum dp_drop_reason r)
{
	uint64_t s = dp_ctl_drops[r];
	uint16_t i;

	for (i = 0; i < dp_nb_workers; i++)
		s += dp_workers[i]->stats.drops[r];
	return s;
}

/* ---- telemetry ---- */

static json_t *
node_json(const struct dp_worker *w, const struct rte_node *node)
{
	uint64_t pkts = node->total_objs, calls = node->total_calls, cyc = node->total_cycles;
	uint64_t timed = node->id < DP_GRAPH_MAX_NODES ? w->timed_objs[node->id] : 0;

	return json_pack("{s:I, s:I, s:I, s:I, s:o, s:o}", "calls", (json_int_t)calls, "pkts",
		(json_int_t)pkts, "timed_cycles", (json_int_t)cyc, "timed_pkts", (json_int_t)timed,
		"cycles_per_pkt",
		w->node_stats && timed ? json_real((double)cyc / (double)timed) : json_null(),
		"pkts_per_call", calls ? json_real((double)pkts / (double)calls) : json_null());
}

static json_t *
lcores_fill(void *arg)
{
	json_t *arr = json_array();
	uint16_t i;

	RTE_SET_USED(arg);
	for (i = 0; i < dp_nb_workers; i++) {
		struct dp_worker *w = dp_workers[i];
		const struct dp_worker_stats *st = &w->stats;
		json_t *o, *hist = json_object(), *nodes = json_object(), *rxq = json_array();
		struct rte_node *node;
		rte_graph_off_t off;
		rte_node_t count;
		uint64_t insn;
		unsigned int b;
		char buf[32];

		for (b = 0; b <= DP_BURST_MAX; b++) {
			if (st->rx_burst_hist[b] == 0)
				continue;
			snprintf(buf, sizeof(buf), "%u", b);
			json_object_set_new(
				hist, buf, json_integer((json_int_t)st->rx_burst_hist[b]));
		}
		if (w->graph != NULL)
			rte_graph_foreach_node(count, off, w->graph, node)
				json_object_set_new(nodes, node->name, node_json(w, node));
		for (b = 0; b < w->nb_rxq; b++) {
			snprintf(
				buf, sizeof(buf), "port%u:q%u", w->rxq[b].port_id, w->rxq[b].queue);
			json_array_append_new(rxq, json_string(buf));
		}
		o = json_pack("{s:i, s:i, s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			"lcore", w->lcore_id, "worker", w->index, "role", "worker", "rx_queues",
			rxq, "rx_pkts", (json_int_t)st->rx_pkts, "tx_pkts", (json_int_t)st->tx_pkts,
			"tx_bytes", (json_int_t)st->tx_bytes, "iterations",
			(json_int_t)st->iterations, "busy_cycles", (json_int_t)st->busy_cycles,
			"idle_cycles", (json_int_t)st->idle_cycles, "empty_polls",
			(json_int_t)st->empty_polls, "cycles_per_pkt",
			st->rx_pkts ? json_real((double)st->busy_cycles / (double)st->rx_pkts)
				    : json_null());
		if (o == NULL)
			continue;
		if (w->insn_fd >= 0 && dp_telemetry_insn_read(w->insn_fd, &insn) == 0) {
			json_object_set_new(o, "instructions", json_integer((json_int_t)insn));
			json_object_set_new(o, "insn_per_pkt",
				st->rx_pkts ? json_real((double)insn / (double)st->rx_pkts)
					    : json_null());
			json_object_set_new(o, "instructions_unavailable", json_null());
		} else {
			json_object_set_new(o, "instructions", json_null());
			json_object_set_new(o, "insn_per_pkt", json_null());
			json_object_set_new(o, "instructions_unavailable",
				json_string(w->insn_why[0] ? w->insn_why : "counter not open"));
		}
		json_object_set_new(o, "timed_empty_call_cycles",
			json_integer((json_int_t)st->timed_empty_cycles));
		json_object_set_new(o, "punted", json_integer((json_int_t)st->punted));
		json_object_set_new(o, "injected", json_integer((json_int_t)st->injected));
		json_object_set_new(o, "rx_burst_hist", hist);
		json_object_set_new(o, "node_stats", json_boolean(w->node_stats));
		json_object_set_new(o, "nodes", nodes);
		json_array_append_new(arr, o);
	}
	return arr;
}

static void
add_u64(json_t *o, const char *key, uint64_t v)
{
	json_object_set_new(
		o, key, json_integer(json_integer_value(json_object_get(o, key)) + (json_int_t)v));
}

/* Per node name, summed over workers. */
static json_t *
nodes_fill(void *arg)
{
	json_t *sum = json_object();
	const char *name;
	json_t *o;
	bool stats = false;
	uint16_t i;

	RTE_SET_USED(arg);
	for (i = 0; i < dp_nb_workers; i++) {
		struct dp_worker *w = dp_workers[i];
		struct rte_node *node;
		rte_graph_off_t off;
		rte_node_t count;

		if (w->graph == NULL)
			continue;
		stats |= w->node_stats;
		rte_graph_foreach_node(count, off, w->graph, node)
		{
			o = json_object_get(sum, node->name);
			if (o == NULL) {
				o = json_object();
				json_object_set_new(sum, node->name, o);
			}
			add_u64(o, "calls", node->total_calls);
			add_u64(o, "pkts", node->total_objs);
			add_u64(o, "timed_cycles", node->total_cycles);
			add_u64(o, "timed_pkts",
				node->id < DP_GRAPH_MAX_NODES ? w->timed_objs[node->id] : 0);
		}
	}
	json_object_foreach(sum, name, o)
	{
		uint64_t calls = json_integer_value(json_object_get(o, "calls"));
		uint64_t pkts = json_integer_value(json_object_get(o, "pkts"));
		uint64_t cyc = json_integer_value(json_object_get(o, "timed_cycles"));
		uint64_t timed = json_integer_value(json_object_get(o, "timed_pkts"));

		json_object_set_new(o, "cycles_per_pkt",
			stats && timed ? json_real((double)cyc / (double)timed) : json_null());
		json_object_set_new(o, "pkts_per_call",
			calls ? json_real((double)pkts / (double)calls) : json_null());
	}
	return sum;
}

static json_t *
drops_fill(void *arg)
{
	json_t *by = json_object();
	uint64_t total = 0, consumed = 0;
	unsigned int r;

	RTE_SET_USED(arg);
	/* the static reasons and those registered (dp_drop_register()), not free slots;
	 * packets freed on purpose (ARP/ND learned from) are no error: apart from total */
	for (r = 0; r < DP_DROP_MAX; r++) {
		const char *name = dp_drop_name(r);
		uint64_t v;

		if (name == NULL)
			continue;
		v = dp_graph_drops(r);
		if (dp_drop_is_consumed(r))
			consumed += v;
		else
			total += v;
		json_object_set_new(by, name, json_integer((json_int_t)v));
	}
	return json_pack("{s:I, s:I, s:o}", "total", (json_int_t)total, "consumed",
		(json_int_t)consumed, "by_reason", by);
}

/*
 * The graph that runs on a worker (params: the worker's index, default 0):
 * each node with its edges and packets, and the Graphviz text DPDK's
 * rte_graph_export() writes for it. The graph's shape is fixed once made;
 * the packet counts are the worker's, read as they are.
 */
static int
graph_show(const char *params, json_t **result, char *err, size_t errlen)
{
	unsigned long idx = params != NULL && params[0] != '\0' ? strtoul(params, NULL, 10) : 0;
	const struct dp_worker *w;
	char name[RTE_GRAPH_NAMESIZE];
	struct rte_node *node;
	rte_graph_off_t off;
	rte_node_t count;
	json_t *nodes, *lines;
	char *dot = NULL, *line, *save = NULL;
	size_t dot_len = 0;
	FILE *f;

	if (idx >= dp_nb_workers || dp_workers[idx] == NULL || dp_workers[idx]->graph == NULL) {
		snprintf(err, errlen, "no worker %lu (there are %u)", idx, dp_nb_workers);
		return -ENOENT;
	}
	w = dp_workers[idx];
	snprintf(name, sizeof(name), "%s", w->graph->name);
	nodes = json_array();
	rte_graph_foreach_node(count, off, w->graph, node)
	{
		json_t *edges = json_array();
		rte_edge_t e;

		for (e = 0; e < node->nb_edges; e++)
			json_array_append_new(edges, json_string(node->nodes[e]->name));
		json_array_append_new(nodes, json_pack("{s:s, s:I, s:I, s:o}", "name", node->name,
						     "calls", (json_int_t)node->total_calls, "pkts",
						     (json_int_t)node->total_objs, "edges", edges));
	}
	/* the dot text a line a string: rte_telemetry cuts longer strings */
	lines = json_array();
	f = open_memstream(&dot, &dot_len);
	if (f != NULL) {
		int rc = rte_graph_export(name, f);

		fclose(f);
		for (line = rc == 0 ? strtok_r(dot, "\n", &save) : NULL; line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
			/* rte_graph_export() writes the name bare ("Digraph worker-1 {"),
			 * which Graphviz cannot parse for a name with a '-': quoted */
			if (json_array_size(lines) == 0 && strncmp(line, "Digraph ", 8) == 0)
				json_array_append_new(
					lines, json_sprintf("digraph \"%s\" {", name));
			else
				json_array_append_new(lines, json_string(line));
		}
	}
	free(dot);
	*result = json_pack("{s:i, s:i, s:s, s:o, s:o}", "worker", (int)idx, "lcore",
		(int)w->lcore_id, "graph", name, "nodes", nodes, "dot", lines);
	return 0;
}

int
dp_graph_telemetry_register(void)
{
	int rc;

	rc = dp_telemetry_section_register("lcores", "/dpfwd/graph/lcores",
		"Per worker lcore: packets, busy/idle cycles, empty polls, bursts, instructions, "
		"per-node cycles",
		lcores_fill, NULL);
	if (rc == 0)
		rc = dp_telemetry_section_register("nodes", "/dpfwd/graph/nodes",
			"Per graph node, summed over lcores: calls, packets, cycles, cycles/packet",
			nodes_fill, NULL);
	if (rc == 0)
		rc = dp_telemetry_section_register("drops", "/dpfwd/graph/drops",
			"Dropped packets: total (errors), consumed (ARP/ND learned from) and by reason",
			drops_fill, NULL);
	if (rc == 0)
		rc = dp_telemetry_action_register("/dpfwd/graph/graph",
			"The graph a worker runs (param: worker index, default 0): nodes, "
			"edges, packets, Graphviz dot",
			graph_show);
	if (rc == 0)
		rc = dp_delay_telemetry_register();
	return rc;
}
