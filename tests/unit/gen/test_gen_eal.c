/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpgen's lcore loops in one process: EAL on --no-huge, the real TX/RX worker
 * (gen_worker_main) on lcore 1, the test on the main lcore.
 *
 *   net_null0            a sink: the achieved rate against the target, over 1 s
 *   net_ring0            a loopback vdev: TX comes back on RX, nothing lost
 *   net_ring_ga -> (test thread) -> net_ring_gb
 *                        two ring ports with the test in between, which drops,
 *                        swaps and duplicates packets on purpose: the worker's
 *                        counts must match what the test did, exactly
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_build_config.h"
#include "dp_test.h"
#include "gen_pkt.h"
#include "gen_port.h"
#include "gen_worker.h"

#define WORKER_LCORE   1
#define RING_SIZE      4096
#define POOL_SIZE      16383
#define RATE_TOLERANCE 0.01
#define RATE_ATTEMPTS  3 /* the CPUs are shared: a descheduled second is tried again */

static struct rte_mempool *pool;
static struct rte_ring *a_rx, *a_tx, *b_rx, *b_tx;
static struct gen_port port_null, port_loop, port_a, port_b;
static struct gen_tmpl tmpl64;
static struct gen_flow *flows64;
static char prefix[32];

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static struct gen_worker *
worker_new(struct gen_ctl *ctl, const struct gen_traffic *tr, bool tx, uint16_t tx_port, bool rx,
	uint16_t rx_port, const char *rate, uint64_t limit)
{
	struct gen_worker *w = rte_zmalloc("test_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);

	CU_ASSERT_FATAL(w != NULL);
	w->ctl = ctl;
	w->lcore = WORKER_LCORE;
	w->do_tx = tx;
	w->do_rx = rx;
	w->tx_port = tx_port;
	w->rx_port = rx_port;
	w->burst = 32;
	w->pool = pool;
	w->traffic = tr;
	CU_ASSERT_FATAL(gen_rate_parse(rate, &w->rate) == 0);
	/* 100 ms of catch-up: a test sharing its CPU must not lose credit to the scheduler */
	w->catchup_us = 100000;
	w->tx_limit = limit;
	CU_ASSERT_FATAL(gen_worker_init(w, 65536) == 0);
	return w;
}

static void
worker_del(struct gen_worker *w)
{
	gen_worker_free(w);
	rte_free(w);
}

/* Start interval @p epoch and return the counters the worker published for it. */
static const struct gen_counters *
tick(struct gen_ctl *ctl, struct gen_worker *w, uint32_t epoch)
{
	uint64_t deadline = rte_rdtsc() + rte_get_tsc_hz();

	__atomic_store_n(&ctl->epoch, epoch, __ATOMIC_RELEASE);
	while (__atomic_load_n(&w->ack, __ATOMIC_ACQUIRE) != epoch) {
		CU_ASSERT_FATAL(rte_rdtsc() < deadline);
		rte_pause();
	}
	return &w->pub[epoch & 1];
}

static void
stop(struct gen_ctl *ctl, struct gen_worker *w)
{
	__atomic_store_n(&ctl->stop_tx, true, __ATOMIC_RELEASE);
	while (w->do_tx && !__atomic_load_n(&w->tx_done, __ATOMIC_ACQUIRE))
		rte_pause();
	__atomic_store_n(&ctl->stop_rx, true, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(rte_eal_wait_lcore(WORKER_LCORE), 0);
}

static void
traffic_synth(struct gen_traffic *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->tmpl = &tmpl64;
	tr->nb_tmpl = 1;
	tr->flows = flows64;
	tr->nb_flows = 16;
	tr->stamp = true;
	tr->run_id = 0x5a5a;
}

static uint64_t
opackets(uint16_t port)
{
	struct rte_eth_stats st;

	memset(&st, 0, sizeof(st));
	rte_eth_stats_get(port, &st);
	return st.opackets;
}

static void
check_no_leak(void)
{
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/*
 * Send to net_null at @p rate for a while and measure the packets per second
 * (or bits per second of frames) between two published snapshots ~1 s apart.
 */
static void
rate_within_1pct(const struct gen_traffic *tr, const char *rate)
{
	struct gen_rate_spec spec;
	unsigned int attempt;
	bool ok = false;

	CU_ASSERT_FATAL(gen_rate_parse(rate, &spec) == 0);
	for (attempt = 0; attempt < RATE_ATTEMPTS && !ok; attempt++) {
		struct gen_ctl ctl;
		struct gen_worker *w;
		struct gen_counters c1, c2;
		uint64_t before = opackets(port_null.id);
		double secs, achieved;

		memset(&ctl, 0, sizeof(ctl));
		w = worker_new(&ctl, tr, true, port_null.id, false, 0, rate, 0);
		CU_ASSERT_FATAL(rte_eal_remote_launch(gen_worker_main, w, WORKER_LCORE) == 0);
		sleep_ms(100);
		c1 = *tick(&ctl, w, 1);
		sleep_ms(1000);
		c2 = *tick(&ctl, w, 2);
		stop(&ctl, w);
		secs = (double)(c2.tsc - c1.tsc) / (double)rte_get_tsc_hz();
		if (spec.kind == GEN_RATE_PPS)
			achieved = (double)(c2.tx_pkts - c1.tx_pkts) / secs;
		else
			achieved = (double)(c2.tx_bytes - c1.tx_bytes +
					    (c2.tx_pkts - c1.tx_pkts) * DP_PKT_FCS_LEN) *
				   8 / secs;
		ok = fabs(achieved / spec.value - 1) < RATE_TOLERANCE;
		printf("\n    %s on net_null: achieved %.6g over %.3f s (%+.3f%%)%s", rate,
			achieved, secs, (achieved / spec.value - 1) * 100,
			ok ? "" : ", out of tolerance");
		/* the port saw exactly what the worker counted */
		CU_ASSERT_EQUAL(opackets(port_null.id) - before, w->fin.tx_pkts);
		CU_ASSERT_EQUAL(w->fin.tx_nombuf, 0);
		worker_del(w);
	}
	CU_ASSERT(ok);
	check_no_leak();
}

static void
test_gen_rate_pps_on_net_null_within_1pct(void)
{
	struct gen_traffic tr;

	traffic_synth(&tr);
	rate_within_1pct(&tr, "2Mpps");
}

static void
test_gen_rate_gbps_on_net_null_within_1pct(void)
{
	struct gen_traffic tr;

	traffic_synth(&tr);
	/* 1 Gbps of 64-byte frames = 1953125 pps */
	rate_within_1pct(&tr, "1Gbps");
}

static void
test_gen_rate_gbps_mixed_sizes_within_1pct(void)
{
	static const uint32_t sizes[3] = { 64, 594, 1518 };
	struct gen_tmpl t[3];
	struct gen_traffic tr;
	unsigned int i;

	/* frames of three sizes against a bps target: paced packet by packet */
	for (i = 0; i < 3; i++) {
		struct dp_pkt_spec s;
		size_t len = 0;

		dp_pkt_spec_init(&s);
		s.frame_len = sizes[i];
		memset(&t[i], 0, sizeof(t[i]));
		t[i].data = malloc(2048);
		CU_ASSERT_FATAL(t[i].data != NULL);
		CU_ASSERT_FATAL(dp_pkt_build(&s, t[i].data, 2048, &len) == 0);
		t[i].len = (uint32_t)len;
		gen_tmpl_parse(&t[i]);
	}
	memset(&tr, 0, sizeof(tr));
	tr.tmpl = t;
	tr.nb_tmpl = 3;
	tr.stamp = true;
	tr.run_id = 7;
	rate_within_1pct(&tr, "2Gbps");
	for (i = 0; i < 3; i++)
		gen_tmpl_free(&t[i]);
}

static void
test_gen_loopback_net_ring_vdev_loses_nothing(void)
{
	const uint64_t n = 200000;
	struct gen_traffic tr;
	struct gen_ctl ctl;
	struct gen_worker *w;

	traffic_synth(&tr);
	memset(&ctl, 0, sizeof(ctl));
	w = worker_new(&ctl, &tr, true, port_loop.id, true, port_loop.id, "max", n);
	CU_ASSERT_FATAL(rte_eal_remote_launch(gen_worker_main, w, WORKER_LCORE) == 0);
	while (!__atomic_load_n(&w->tx_done, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	sleep_ms(20);
	stop(&ctl, w);
	gen_seq_finish(&w->seq, w->fin.tx_stamped);
	printf("\n    loopback: %lu sent, %lu received, %lu queue-full retries",
		(unsigned long)w->fin.tx_pkts, (unsigned long)w->fin.rx_pkts,
		(unsigned long)w->fin.tx_full);
	CU_ASSERT_EQUAL(w->fin.tx_pkts, n);
	CU_ASSERT_EQUAL(w->fin.tx_stamped, n);
	CU_ASSERT_EQUAL(w->fin.rx_pkts, n);
	CU_ASSERT_EQUAL(w->fin.rx_stamped, n);
	CU_ASSERT_EQUAL(w->seq.c.received, n);
	CU_ASSERT_EQUAL(w->seq.c.lost, 0);
	CU_ASSERT_EQUAL(w->seq.c.reordered, 0);
	CU_ASSERT_EQUAL(w->seq.c.duplicates, 0);
	CU_ASSERT_EQUAL(w->hist[0]->count, n);
	worker_del(w);
	check_no_leak();
}

/* Put @p m on B's RX ring; with @p dup a copy right after it. */
static void
deliver(struct rte_mbuf *m, bool dup)
{
	struct rte_mbuf *c = NULL;

	/* copy first: once on the ring the worker may free it */
	if (dup) {
		c = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);
		CU_ASSERT_FATAL(c != NULL);
	}
	while (rte_ring_enqueue(b_rx, m) != 0)
		rte_pause();
	while (c != NULL && rte_ring_enqueue(b_rx, c) != 0)
		rte_pause();
}

static uint64_t
seq_of(struct rte_mbuf *m)
{
	struct gen_stamp st = { 0, 0, 0 };

	CU_ASSERT_FATAL(gen_stamp_read(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &st));
	return st.seq;
}

/*
 * The test thread is the network between port A (TX) and port B (RX): numbers
 * = 7 mod 97 are dropped, a number = 20 mod 50 is held back and delivered after
 * the next one (when that one is not dropped), numbers = 33 mod 70 are
 * delivered twice. The worker must count exactly that.
 */
static void
test_gen_impaired_path_exact_loss_reorder_duplicate_counts(void)
{
	const uint64_t n = 50000;
	uint64_t drops = 0, swaps = 0, dups = 0, moved = 0, deadline;
	struct rte_mbuf *held = NULL;
	struct gen_traffic tr;
	struct gen_ctl ctl;
	struct gen_worker *w;

	traffic_synth(&tr);
	memset(&ctl, 0, sizeof(ctl));
	w = worker_new(&ctl, &tr, true, port_a.id, true, port_b.id, "2Mpps", n);
	CU_ASSERT_FATAL(rte_eal_remote_launch(gen_worker_main, w, WORKER_LCORE) == 0);
	deadline = rte_rdtsc() + 10 * rte_get_tsc_hz();
	while (moved < n) {
		struct rte_mbuf *pkts[64];
		unsigned int k, got = rte_ring_dequeue_burst(a_tx, (void **)pkts, 64, NULL);

		for (k = 0; k < got; k++) {
			struct rte_mbuf *m = pkts[k];
			uint64_t s = seq_of(m);

			moved++;
			if (s % 97 == 7) {
				rte_pktmbuf_free(m);
				drops++;
				continue;
			}
			if (s % 50 == 20 && (s + 1) % 97 != 7 && s + 1 < n) {
				held = m;
				continue;
			}
			deliver(m, s % 70 == 33);
			dups += s % 70 == 33;
			if (held != NULL) {
				uint64_t hs = seq_of(held);

				deliver(held, hs % 70 == 33);
				dups += hs % 70 == 33;
				held = NULL;
				swaps++;
			}
		}
		if (got == 0)
			rte_pause();
		if (rte_rdtsc() > deadline) {
			CU_FAIL("the worker stopped sending");
			break;
		}
	}
	/* let the worker drain B, then stop it */
	while (rte_ring_count(b_rx) != 0)
		sleep_ms(1);
	sleep_ms(5);
	stop(&ctl, w);
	gen_seq_finish(&w->seq, w->fin.tx_stamped);
	printf("\n    impaired path: %lu dropped, %lu swapped, %lu duplicated",
		(unsigned long)drops, (unsigned long)swaps, (unsigned long)dups);
	CU_ASSERT(drops > 100 && swaps > 100 && dups > 100);
	CU_ASSERT_EQUAL(w->fin.tx_stamped, n);
	CU_ASSERT_EQUAL(w->seq.c.lost, drops);
	CU_ASSERT_EQUAL(w->seq.c.reordered, swaps);
	CU_ASSERT_EQUAL(w->seq.c.duplicates, dups);
	CU_ASSERT_EQUAL(w->seq.c.received, n - drops);
	CU_ASSERT_EQUAL(w->seq.c.late, 0);
	CU_ASSERT_EQUAL(w->seq.c.max_reorder, 1);
	CU_ASSERT_EQUAL(w->fin.rx_stamped, n - drops + dups);
	CU_ASSERT_EQUAL(w->hist[0]->count, n - drops + dups);
	worker_del(w);
	check_no_leak();
}

static int
port_by_name(const char *name, uint16_t *id)
{
	return rte_eth_dev_get_port_by_name(name, id);
}

static int
suite_init(void)
{
	char *eal[] = { "test_gen_eal", "-l", "0,1", "--no-huge", "-m", "256", "--no-pci",
		"--no-shconf", "--no-telemetry", "--file-prefix", prefix, "--vdev", "net_null0",
		"--vdev", "net_ring0", "--log-level", "*:warning", NULL };
	struct gen_synth s;
	char err[256];
	uint16_t id;
	int ga, gb;

	snprintf(prefix, sizeof(prefix), "dpgen-test-%d", (int)getpid());
	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0)
		return -1;
	pool = rte_pktmbuf_pool_create("gen_test", POOL_SIZE, 256, 0, 2176, 0);
	a_rx = rte_ring_create("ga_rx", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	a_tx = rte_ring_create("ga_tx", RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	b_rx = rte_ring_create("gb_rx", RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	b_tx = rte_ring_create("gb_tx", 64, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pool == NULL || a_rx == NULL || a_tx == NULL || b_rx == NULL || b_tx == NULL)
		return -1;
	ga = rte_eth_from_rings("ga", &a_rx, 1, &a_tx, 1, 0);
	gb = rte_eth_from_rings("gb", &b_rx, 1, &b_tx, 1, 0);
	if (ga < 0 || gb < 0)
		return -1;
	if (port_by_name("net_null0", &id) != 0 ||
		gen_port_probe(
			&port_null, id, 60, DP_SOURCE_DIR "/drivers-cfg", err, sizeof(err)) ||
		gen_port_start(&port_null, pool, err, sizeof(err)) ||
		port_by_name("net_ring0", &id) ||
		gen_port_probe(
			&port_loop, id, 60, DP_SOURCE_DIR "/drivers-cfg", err, sizeof(err)) ||
		gen_port_start(&port_loop, pool, err, sizeof(err)) ||
		gen_port_probe(&port_a, (uint16_t)ga, 60, DP_SOURCE_DIR "/drivers-cfg", err,
			sizeof(err)) ||
		gen_port_start(&port_a, pool, err, sizeof(err)) ||
		gen_port_probe(&port_b, (uint16_t)gb, 60, DP_SOURCE_DIR "/drivers-cfg", err,
			sizeof(err)) ||
		gen_port_start(&port_b, pool, err, sizeof(err))) {
		fprintf(stderr, "port set-up: %s\n", err);
		return -1;
	}
	memset(&s, 0, sizeof(s));
	dp_pkt_spec_init(&s.base);
	s.base.frame_len = 64;
	s.flows = 16;
	s.vary = DP_PKT_VARY_SPORT;
	return gen_synth_build(&s, true, &tmpl64, &flows64) == 0 ? 0 : -1;
}

static int
suite_cleanup(void)
{
	struct dirent *de;
	char dir[64];
	DIR *d;

	gen_port_close(&port_null);
	gen_port_close(&port_loop);
	gen_port_close(&port_a);
	gen_port_close(&port_b);
	free(flows64);
	gen_tmpl_free(&tmpl64);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	/* the runtime folder of our prefix: the EAL leaves its socket files behind */
	snprintf(dir, sizeof(dir), "/var/run/dpdk/%s", prefix);
	d = opendir(dir);
	while (d != NULL && (de = readdir(d)) != NULL) {
		char path[384];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
	return 0;
}

static const struct dp_test tests[] = {
	{ "test_gen_rate_pps_on_net_null_within_1pct", test_gen_rate_pps_on_net_null_within_1pct },
	{ "test_gen_rate_gbps_on_net_null_within_1pct",
		test_gen_rate_gbps_on_net_null_within_1pct },
	{ "test_gen_rate_gbps_mixed_sizes_within_1pct",
		test_gen_rate_gbps_mixed_sizes_within_1pct },
	{ "test_gen_loopback_net_ring_vdev_loses_nothing",
		test_gen_loopback_net_ring_vdev_loses_nothing },
	{ "test_gen_impaired_path_exact_loss_reorder_duplicate_counts",
		test_gen_impaired_path_exact_loss_reorder_duplicate_counts },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("gen_eal", tests, suite_init, suite_cleanup);
}
