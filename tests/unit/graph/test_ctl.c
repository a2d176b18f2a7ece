/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hand-off between the worker and the control lcore at its limits
 * (tests/ring_rig.c: two net_ring ports, one worker walked on the test thread,
 * which also runs the control lcore's dp_ctl_poll()): a worker that punts
 * faster than the control lcore polls (punt ring full), a control lcore that
 * sends faster than the worker walks (inject ring full), a frame for a port
 * that does not exist, a punt of a kind with no handler, and the control
 * lcore's neighbor table full ([dpfwd] neigh_max), where the telemetry's
 * drops.total counts the errors and drops.consumed the ARP replies learned
 * from. Each time the exact drop
 * counter moves by the exact count, every other frame comes out (checked
 * byte for byte against RFC 826 frames built here), and nothing else is lost.
 *
 *   host 198.18.0.2 (static) --- port0 198.18.0.1/24   port1 198.18.101.1/24 --- hosts .101.x
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "dp_ctl.h"
#include "dp_drop.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_telemetry.h"
#include "dp_test.h"
#include "ring_rig.h"

#define IP_PORT0  0xc6120001u /* 198.18.0.1 */
#define IP_HOST   0xc6120002u /* 198.18.0.2 */
#define IP_PORT1  0xc6126501u /* 198.18.101.1 */
#define NEIGH_MAX 16          /* [dpfwd] neigh_max below */

static const uint8_t host_mac[6] = { 0x02, 0x11, 0, 0, 0, 0x02 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t zero_mac[6];

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "neigh_max = 16\n"
				  "[mempool]\n"
				  "size = 8192\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_c0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "[port1]\n"
				  "dev = net_ring_c1\n"
				  "ip4 = 198.18.101.1/24\n"
				  "[lcores]\n"
				  "rx = (0,0,1), (1,0,1)\n"
				  /* static: learning from its ARP takes no room in the table */
				  "[neighbors]\n"
				  "neigh = 198.18.0.2 lladdr 02:11:00:00:00:02 port 0\n";

static struct ring_rig rig = {
	.name = "ctl",
	.prefix = 'c',
	.nb_ports = 2,
	.config_text = config_text,
};

/* ---- counters: the worker's and the control lcore's (dp_graph_drops()) ---- */

static void
snap(void)
{
	ring_rig_drops_mark(&rig);
}

static uint64_t
dropped(enum dp_drop_reason why)
{
	return ring_rig_graph_dropped(&rig, why);
}

static uint64_t
dropped_total(void)
{
	return ring_rig_graph_drops_total(&rig);
}

/* drops.total and drops.consumed of a fresh telemetry snapshot */
static void
telemetry_drops(json_int_t *total, json_int_t *consumed)
{
	json_t *s = dp_telemetry_snapshot();
	const json_t *d;

	CU_ASSERT_FATAL(s != NULL);
	d = json_object_get(s, "drops");
	*total = json_integer_value(json_object_get(d, "total"));
	*consumed = json_integer_value(json_object_get(d, "consumed"));
	json_decref(s);
}

/* ---- frames ---- */

static void
walk(uint64_t n)
{
	dp_graph_worker_run(dp_workers[0], n);
	dp_graph_worker_flush(dp_workers[0]);
}

/* Frames port @p port sent that equal @p want (60 bytes); the others are counted in *other. */
static unsigned int
drain_equal(int port, const uint8_t *want, unsigned int *other)
{
	struct rte_mbuf *out[64];
	unsigned int n, i, same = 0;

	while ((n = ring_rig_drain(&rig, port, out, 64)) > 0) {
		for (i = 0; i < n; i++) {
			const bool eq =
				out[i]->pkt_len == 60 &&
				memcmp(rte_pktmbuf_mtod(out[i], const uint8_t *), want, 60) == 0;

			same += eq;
			*other += !eq;
		}
		rte_pktmbuf_free_bulk(out, n);
	}
	return same;
}

/* The ARP request of the host for port0's address. */
static size_t
host_request(uint8_t *f)
{
	return ring_rig_arp(f, 1, bcast, host_mac, IP_HOST, zero_mac, IP_PORT0);
}

/* port0's answer to it (RFC 826: the request's fields swapped, opcode 2). */
static void
host_reply_of_port0(uint8_t *f)
{
	ring_rig_arp(f, 2, host_mac, dp_ports[0].mac.addr_bytes, IP_PORT0, host_mac, IP_HOST);
}

/* ---- tests ---- */

/*
 * The control lcore does not poll while 1100 ARP requests arrive: the punt ring
 * takes what it holds (DP_CTL_RING_SIZE slots, one kept empty by rte_ring), the
 * rest are punt_full. Then the control lcore answers every request it got.
 */
static void
test_ctl_punt_ring_full_counts_drops(void)
{
	const unsigned int sent = 1100, fits = DP_CTL_RING_SIZE - 1;
	uint8_t f[60], want[60];
	unsigned int i, k, replies = 0, other = 0;

	snap();
	host_reply_of_port0(want);
	/* in two rounds: port0's RX ring holds 1023 */
	for (i = 0; i < sent; i++) {
		ring_rig_inject(&rig, 0, f, host_request(f));
		if (i == 999 || i == sent - 1)
			walk(64);
	}
	CU_ASSERT_EQUAL(dropped(DP_DROP_PUNT_FULL), sent - fits);
	CU_ASSERT_EQUAL(dropped_total(), sent - fits);
	/* the control lcore catches up, a burst of 64 a poll; the worker sends the replies */
	for (k = 0; k < 2 * fits / 64; k++) {
		dp_ctl_poll(dp_ctl_now_ms());
		walk(4);
		replies += drain_equal(0, want, &other);
	}
	CU_ASSERT_EQUAL(replies, fits);
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(dropped_total(), sent - fits);
}

/*
 * The worker does not walk while the control lcore announces both ports' addresses
 * 600 times (a gratuitous ARP per port each, 1200 frames): the inject ring takes
 * 1023, the rest are ctl_inject_full. Then the worker sends the 1023, port0's and
 * port1's in turn.
 */
static void
test_ctl_inject_ring_full_counts_drops(void)
{
	const unsigned int rounds = 600, fits = DP_CTL_RING_SIZE - 1;
	uint8_t want0[60], want1[60];
	unsigned int i, k, sent = 0, got0 = 0, got1 = 0, other = 0;

	snap();
	ring_rig_arp(want0, 1, bcast, dp_ports[0].mac.addr_bytes, IP_PORT0, zero_mac, IP_PORT0);
	ring_rig_arp(want1, 1, bcast, dp_ports[1].mac.addr_bytes, IP_PORT1, zero_mac, IP_PORT1);
	for (i = 0; i < rounds; i++)
		sent += dp_arp_announce();
	CU_ASSERT_EQUAL(sent, fits);
	CU_ASSERT_EQUAL(dropped(DP_DROP_CTL_INJECT_FULL), 2 * rounds - fits);
	CU_ASSERT_EQUAL(dropped_total(), 2 * rounds - fits);
	for (k = 0; k < 2 * fits / 32; k++) {
		walk(1);
		got0 += drain_equal(0, want0, &other);
		got1 += drain_equal(1, want1, &other);
	}
	CU_ASSERT_EQUAL(got0, (fits + 1) / 2);
	CU_ASSERT_EQUAL(got1, fits / 2);
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(dropped_total(), 2 * rounds - fits);
}

/* A frame for a port the config does not have is freed and counted, not queued. */
static void
test_ctl_send_to_a_port_that_does_not_exist(void)
{
	const int64_t in_use = dp_mem_in_use_over_baseline();
	uint8_t f[60];
	struct rte_mbuf *m;

	snap();
	ring_rig_arp(f, 1, bcast, dp_ports[0].mac.addr_bytes, IP_PORT0, zero_mac, IP_PORT0);
	m = ring_rig_mbuf(0, f, 60);
	CU_ASSERT_EQUAL(dp_ctl_send(m, (uint16_t)rig.nb_ports), -ENODEV);
	CU_ASSERT_EQUAL(dropped(DP_DROP_CTL_BAD_PORT), 1);
	CU_ASSERT_EQUAL(dropped_total(), 1);
	walk(4);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), in_use);
}

/*
 * A punt of a kind no handler takes (here ARP, its handler unset through
 * dp_ctl_punt_register()) is freed and counted ctl_unhandled; with the ARP
 * handler back (dp_arp_start()) the next request is answered.
 */
static void
test_ctl_punt_without_handler_counts_ctl_unhandled(void)
{
	const int64_t in_use = dp_mem_in_use_over_baseline();
	uint8_t f[60], want[60];
	unsigned int other = 0;

	snap();
	host_reply_of_port0(want);
	CU_ASSERT_EQUAL_FATAL(dp_ctl_punt_register(DP_PUNT_ARP, NULL, NULL), 0);
	ring_rig_inject(&rig, 0, f, host_request(f));
	ring_rig_step();
	CU_ASSERT_EQUAL(dropped(DP_DROP_CTL_UNHANDLED), 1);
	CU_ASSERT_EQUAL(dropped_total(), 1);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), in_use);

	CU_ASSERT_EQUAL_FATAL(dp_arp_start(), 0);
	ring_rig_inject(&rig, 0, f, host_request(f));
	ring_rig_step();
	CU_ASSERT_EQUAL(drain_equal(0, want, &other), 1);
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(dropped_total(), 1);
}

/*
 * One packet to each of 20 silent hosts on port1's subnet: the first 16 get a
 * neighbor (neigh_max = 16) and an ARP request, their packets wait; the last 4
 * find the table full (neigh_table_full). When the 16 answer, each one's packet
 * goes out to its MAC; the answers are consumed (arp_consumed).
 */
static void
test_ctl_neighbor_table_full_counts_drops(void)
{
	const unsigned int hosts = 20;
	struct rte_mbuf *out[64];
	uint8_t f[60], want[60], u[2048];
	unsigned int h, i, n, other = 0, released = 0;
	uint32_t asked = 0;
	json_int_t total0, consumed0, total1, consumed1;

	snap();
	telemetry_drops(&total0, &consumed0);
	for (h = 0; h < hosts; h++)
		ring_rig_inject(&rig, 0, u,
			ring_rig_udp4(
				u, 0, host_mac, IP_HOST, IP_PORT1 + 1 + h, (uint16_t)(3000 + h)));
	ring_rig_step();
	/* one ARP request for each of the first NEIGH_MAX hosts, none for the others */
	while ((n = ring_rig_drain(&rig, 1, out, 64)) > 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);
			const uint32_t k = dp_pkt_get32(d + 38) - (IP_PORT1 + 1);

			ring_rig_arp(want, 1, bcast, dp_ports[1].mac.addr_bytes, IP_PORT1, zero_mac,
				IP_PORT1 + 1 + k);
			if (k < NEIGH_MAX && out[i]->pkt_len == 60 && memcmp(d, want, 60) == 0)
				asked |= UINT32_C(1) << k;
			else
				other++;
		}
		rte_pktmbuf_free_bulk(out, n);
	}
	CU_ASSERT_EQUAL(asked, (UINT32_C(1) << NEIGH_MAX) - 1);
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(dropped(DP_DROP_NEIGH_TABLE_FULL), hosts - NEIGH_MAX);
	CU_ASSERT_EQUAL(dropped_total(), hosts - NEIGH_MAX);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0), 0);

	/* the answers: host k's MAC is 02:33:00:00:00:k */
	for (h = 0; h < NEIGH_MAX; h++) {
		const uint8_t mac[6] = { 0x02, 0x33, 0, 0, 0, (uint8_t)h };

		ring_rig_inject(&rig, 1, f,
			ring_rig_arp(f, 2, dp_ports[1].mac.addr_bytes, mac, IP_PORT1 + 1 + h,
				dp_ports[1].mac.addr_bytes, IP_PORT1));
	}
	ring_rig_step();
	while ((n = ring_rig_drain(&rig, 1, out, 64)) > 0) {
		for (i = 0; i < n; i++) {
			const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);
			const unsigned int k = dp_pkt_get16(d + 34) - 3000u;

			/* the host's own packet, to its own MAC */
			released += k < NEIGH_MAX && d[0] == 0x02 && d[1] == 0x33 && d[5] == k &&
				    dp_pkt_get32(d + 30) == IP_PORT1 + 1 + k;
		}
		rte_pktmbuf_free_bulk(out, n);
	}
	CU_ASSERT_EQUAL(released, NEIGH_MAX);
	CU_ASSERT_EQUAL(dropped(DP_DROP_ARP_CONSUMED), NEIGH_MAX);
	CU_ASSERT_EQUAL(dropped_total(), hosts);
	/* the ARP replies learned from are no error: consumed, not in total */
	telemetry_drops(&total1, &consumed1);
	CU_ASSERT_EQUAL(total1 - total0, hosts - NEIGH_MAX);
	CU_ASSERT_EQUAL(consumed1 - consumed0, NEIGH_MAX);
}

static void
test_ctl_no_mbuf_leak(void)
{
	ring_rig_step();
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), 0);
}

static const struct dp_test tests[] = {
	{ "test_ctl_punt_ring_full_counts_drops", test_ctl_punt_ring_full_counts_drops },
	{ "test_ctl_inject_ring_full_counts_drops", test_ctl_inject_ring_full_counts_drops },
	{ "test_ctl_send_to_a_port_that_does_not_exist",
		test_ctl_send_to_a_port_that_does_not_exist },
	{ "test_ctl_punt_without_handler_counts_ctl_unhandled",
		test_ctl_punt_without_handler_counts_ctl_unhandled },
	{ "test_ctl_neighbor_table_full_counts_drops", test_ctl_neighbor_table_full_counts_drops },
	{ "test_ctl_no_mbuf_leak", test_ctl_no_mbuf_leak },
	{ NULL, NULL },
};

int
main(void)
{
	return ring_rig_run(&rig, "ctl", tests);
}
