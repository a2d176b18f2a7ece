/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_rcu_qsbr.h>

#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_run.h"
#include "dp_test.h"
#include "ring_rig.h"

/* EAL leaves its runtime folder (sockets, no hugepage files with --no-huge): emptied, removed. */
static void
runtime_dir_remove(void)
{
	dp_dir_remove_flat(rte_eal_get_runtime_dir());
}

/*
 * The runtime folders of earlier rigs whose process is gone (a timed-out test
 * or fuzz run killed before its atexit ran): dpfwd-test-<name>-<pid> beside
 * ours, removed when no process has that pid. A pid in use again keeps its
 * folder: it may be another rig's.
 */
static void
stale_runtime_dirs_remove(void)
{
	char base[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	snprintf(base, sizeof(base), "%s", rte_eal_get_runtime_dir());
	d = opendir(dirname(base));
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		const char *dash = strrchr(de->d_name, '-');
		char *end;
		long pid;

		if (strncmp(de->d_name, "dpfwd-test-", 11) != 0 || dash == NULL)
			continue;
		pid = strtol(dash + 1, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		dp_dir_remove_flat(path);
	}
	closedir(d);
}

int
ring_rig_setup(struct ring_rig *r)
{
	/* a runtime folder of its own (its telemetry socket is there): never the
	 * default "rte" of a DPDK application the user runs beside the tests */
	char *eal[] = { (char *)(uintptr_t)r->name, "--lcores",
		(char *)(uintptr_t)(r->lcores ? r->lcores : "0,1"), "--no-huge", "-m",
		(char *)(uintptr_t)(r->mem_mb ? r->mem_mb : "256"), "--no-pci", "--no-shconf",
		"--file-prefix", r->file_prefix, "--log-level", "*:warning", NULL };
	struct rte_ring *txq[RIG_MAX_TXQ];
	char err[DP_CONFIG_ERR_LEN];
	char name[32];
	unsigned int i, q;
	FILE *f;

	snprintf(
		r->file_prefix, sizeof(r->file_prefix), "dpfwd-test-%s-%d", r->name, (int)getpid());
	if (rte_eal_init((int)DP_ARRAY_SIZE(eal) - 1, eal) < 0)
		return -1;
	atexit(runtime_dir_remove); /* also for the fuzz targets, which exit without cleanup */
	stale_runtime_dirs_remove();
	for (i = 0; i < r->nb_ports && i < RIG_MAX_PORTS; i++) {
		snprintf(name, sizeof(name), "%c_rx%u", r->prefix, i);
		r->rx[i] = rte_ring_create(name, RIG_RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "%c_tx%u", r->prefix, i);
		r->tx[i] = rte_ring_create(name, r->tx_size[i] ? r->tx_size[i] : RIG_RING_SIZE, 0,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
		/* the ethdev is named "net_ring_" + name */
		snprintf(name, sizeof(name), "%c%u", r->prefix, i);
		/* one TX queue per worker, all into the port's one TX ring: the workers are
		 * walked one at a time on the test thread, never at once */
		for (q = 0; q < RIG_MAX_TXQ; q++)
			txq[q] = r->tx[i];
		if (r->rx[i] == NULL || r->tx[i] == NULL || r->nb_txq > RIG_MAX_TXQ ||
			rte_eth_from_rings(name, &r->rx[i], 1, txq, r->nb_txq ? r->nb_txq : 1, 0) <
				0) {
			fprintf(stderr, "cannot make ring port %s\n", name);
			return -1;
		}
	}
	snprintf(r->tmpdir, sizeof(r->tmpdir), "/tmp/dpfwd-test-%s-XXXXXX", r->name);
	if (mkdtemp(r->tmpdir) == NULL)
		return -1;
	snprintf(r->cfg_path, sizeof(r->cfg_path), "%s/%s.ini", r->tmpdir, r->name);
	f = fopen(r->cfg_path, "w");
	if (f == NULL) {
		rmdir(r->tmpdir);
		return -1;
	}
	fputs(r->config_text, f);
	fclose(f);
	dp_config_init(&r->cfg);
	if (dp_config_load(&r->cfg, r->cfg_path, err, sizeof(err)) < 0 ||
		dp_config_validate(&r->cfg, err, sizeof(err)) < 0 ||
		dp_run_setup(&r->cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "setup: %s\n", err);
		/* CUnit runs no cleanup after a failed init: the files go now */
		unlink(r->cfg_path);
		rmdir(r->tmpdir);
		return -1;
	}
	/* the test thread is the worker: flush after every walk unless a test says otherwise */
	for (i = 0; i < dp_nb_workers; i++)
		dp_workers[i]->drain_tsc = 0;
	return 0;
}

void
ring_rig_cleanup(struct ring_rig *r)
{
	struct dp_run_opts opts = { .json_path = NULL, .interval_ms = 1000 };
	int64_t leak = 0;

	dp_run_teardown(&opts, &leak);
	dp_config_free(&r->cfg);
	unlink(r->cfg_path);
	rmdir(r->tmpdir);
	rte_eal_cleanup();
	runtime_dir_remove();
}

struct rte_mbuf *
ring_rig_mbuf(int port, const uint8_t *frame, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp_mem_pool_get(0));
	char *p;

	CU_ASSERT_FATAL(m != NULL);
	p = rte_pktmbuf_append(m, (uint16_t)len);
	CU_ASSERT_FATAL(p != NULL);
	memcpy(p, frame, len);
	m->port = dp_ports[port].port_id;
	return m;
}

void
ring_rig_inject(struct ring_rig *r, int port, const uint8_t *frame, size_t len)
{
	CU_ASSERT_FATAL(rte_ring_enqueue(r->rx[port], ring_rig_mbuf(port, frame, len)) == 0);
}

unsigned int
ring_rig_drain(struct ring_rig *r, int port, struct rte_mbuf **out, unsigned int max)
{
	return rte_ring_dequeue_burst(r->tx[port], (void **)out, max, NULL);
}

unsigned int
ring_rig_drain_free(struct ring_rig *r, int port)
{
	struct rte_mbuf *out[256];
	unsigned int n, total = 0;

	while ((n = ring_rig_drain(r, port, out, 256)) > 0) {
		rte_pktmbuf_free_bulk(out, n);
		total += n;
	}
	return total;
}

void
ring_rig_drops_mark(struct ring_rig *r)
{
	unsigned int why;

	memcpy(r->drops_mark, dp_workers[0]->stats.drops, sizeof(r->drops_mark));
	for (why = 0; why < DP_DROP_MAX; why++)
		r->graph_mark[why] = dp_graph_drops(why);
}

uint64_t
ring_rig_dropped(const struct ring_rig *r, enum dp_drop_reason why)
{
	return dp_workers[0]->stats.drops[why] - r->drops_mark[why];
}

uint64_t
ring_rig_graph_dropped(const struct ring_rig *r, enum dp_drop_reason why)
{
	return dp_graph_drops(why) - r->graph_mark[why];
}

/* @p dropped of every reason, added up */
static uint64_t
drops_sum(
	const struct ring_rig *r, uint64_t (*dropped)(const struct ring_rig *, enum dp_drop_reason))
{
	uint64_t s = 0;
	unsigned int why;

	for (why = 0; why < DP_DROP_MAX; why++)
		s += dropped(r, why);
	return s;
}

uint64_t
ring_rig_drops_total(const struct ring_rig *r)
{
	return drops_sum(r, ring_rig_dropped);
}

uint64_t
ring_rig_graph_drops_total(const struct ring_rig *r)
{
	return drops_sum(r, ring_rig_graph_dropped);
}

/* ring_rig_run()'s rig, for CUnit's suite init and cleanup (which take no argument) */
static struct ring_rig *run_rig;

static int
run_setup(void)
{
	return ring_rig_setup(run_rig);
}

static int
run_cleanup(void)
{
	ring_rig_cleanup(run_rig);
	return 0;
}

int
ring_rig_run(struct ring_rig *r, const char *name, const struct dp_test *tests)
{
	run_rig = r;
	return dp_test_run(name, tests, run_setup, run_cleanup);
}

unsigned int
ring_rig_flush_drain_all(struct ring_rig *r)
{
	unsigned int p, total = 0;

	dp_graph_worker_flush(dp_workers[0]);
	for (p = 0; p < r->nb_ports; p++)
		total += ring_rig_drain_free(r, (int)p);
	return total;
}

void
ring_rig_rcu_offline(void)
{
	uint16_t i;

	for (i = 0; i < dp_nb_workers; i++)
		rte_rcu_qsbr_thread_offline(dp_graph_qsv, dp_workers[i]->index);
}

size_t
ring_rig_udp4(
	uint8_t *f, int port, const uint8_t *src_mac, uint32_t src, uint32_t dst, uint16_t sport)
{
	struct dp_pkt_spec s;
	size_t len = 0;

	dp_pkt_spec_init(&s);
	memcpy(s.dst_mac, &dp_ports[port].mac, 6);
	memcpy(s.src_mac, src_mac, 6);
	s.src_ip4 = src;
	s.dst_ip4 = dst;
	s.ttl = 20;
	s.sport = sport;
	s.frame_len = 64;
	CU_ASSERT_FATAL(dp_pkt_build(&s, f, 2048, &len) == 0);
	return len;
}

int
ring_rig_route(bool add, const char *text, char *err, size_t errlen)
{
	ring_rig_rcu_offline();
	return add ? dp_fwd_route_add(text, err, errlen) : dp_fwd_route_del(text, err, errlen);
}

void
ring_rig_step(void)
{
	dp_graph_worker_run(dp_workers[0], 4);
	dp_graph_worker_flush(dp_workers[0]);
	dp_ctl_poll(dp_ctl_now_ms());
	dp_graph_worker_run(dp_workers[0], 4);
	dp_graph_worker_flush(dp_workers[0]);
}

size_t
ring_rig_arp(uint8_t *f, uint16_t op, const uint8_t *eth_dst, const uint8_t *sha, uint32_t sip,
	const uint8_t *tha, uint32_t tip)
{
	uint32_t be;

	memset(f, 0, 60);
	memcpy(f, eth_dst, 6);
	memcpy(f + 6, sha, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	f[15] = 1;    /* Ethernet */
	f[16] = 0x08; /* IPv4 */
	f[18] = 6;
	f[19] = 4;
	f[21] = (uint8_t)op;
	memcpy(f + 22, sha, 6);
	be = htonl(sip);
	memcpy(f + 28, &be, 4);
	memcpy(f + 32, tha, 6);
	be = htonl(tip);
	memcpy(f + 38, &be, 4);
	return 60;
}
