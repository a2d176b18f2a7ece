/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMPv4 through the real graph, as test_graph does it: EAL on --no-huge,
 * three net_ring ports, the worker's graph walked on the test thread. Frames
 * go in on a port's RX ring; every byte of what comes out of a TX ring is
 * checked (echo replies, time exceeded, unreachable), and so is every drop
 * counter when nothing should come out. Plus the token bucket on a fake
 * clock, the config keys, docs/telemetry.md's drop table and the mbuf baseline.
 *
 *   198.18.0.2 (static neighbor) --- port0 198.18.0.1/24
 *                                    port1 198.18.101.1/24 --- 198.18.101.2 -> 198.18.1.0/24
 *                                    port2 (no IPv4 address)
 * One worker polls all three; replies and errors to 198.18.0.2 leave by port0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_build_config.h"
#include "dp_config.h"
#include "dp_drop.h"
#include "dp_graph.h"
#include "dp_icmp4.h"
#include "dp_mem.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_run.h"
#include "dp_tbucket.h"
#include "dp_telemetry.h"
#include "dp_test.h"
#include "ring_rig.h"

#define NB_PORTS       3
#define CFG_ICMP_RATE  1
#define CFG_ICMP_BURST 8

#define HOST        0xc6120002u /* 198.18.0.2, static neighbor on port0 */
#define PORT0_IP    0xc6120001u /* 198.18.0.1 */
#define PORT1_IP    0xc6126501u /* 198.18.101.1 */
#define FAR         0xc6120107u /* 198.18.1.7, routed via port1 */
#define UNROUTED    0xc612c801u /* 198.18.200.1: no route */
#define PORT0_BCAST 0xc61200ffu /* 198.18.0.255 */
#define PORT1_BCAST 0xc61265ffu /* 198.18.101.255 */
#define NO_WAY_BACK 0xcb007105u /* 203.0.113.5: no route to it */

static const uint8_t host_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "icmp_rate = 1\n"
				  "icmp_burst = 8\n"
				  "[mempool]\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_i0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "[port1]\n"
				  "dev = net_ring_i1\n"
				  "ip4 = 198.18.101.1/24\n"
				  "[port2]\n"
				  "dev = net_ring_i2\n"
				  "[lcores]\n"
				  "rx = (0,0,1),(1,0,1),(2,0,1)\n"
				  "[routes]\n"
				  "route = 198.18.1.0/24 via 198.18.101.2 port 1\n"
				  "[neighbors]\n"
				  "neigh = 198.18.0.2 lladdr 02:00:00:00:00:02 port 0\n"
				  "neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1\n";

static struct ring_rig rig = {
	.name = "icmp4",
	.prefix = 'i',
	.nb_ports = NB_PORTS,
	.config_text = config_text,
};

static struct dp_worker *
worker(void)
{
	return dp_workers[0];
}

/* ---- frames ---- */

static void
ip_cksum_fix(uint8_t *frame)
{
	uint8_t *ip = frame + 14;
	uint16_t ck;

	ip[10] = ip[11] = 0;
	ck = dp_pkt_cksum(ip, (size_t)(ip[0] & 0xf) * 4);
	memcpy(ip + 10, &ck, 2);
}

/* A frame for @p port's MAC: IPv4 @p src -> @p dst, protocol @p proto, @p l4_len bytes after
 * the IP header (UDP: of payload after the UDP header), filled with the craft pattern. */
static size_t
build(uint8_t *buf, int port, uint32_t src, uint32_t dst, uint8_t ttl, uint8_t proto,
	uint32_t l4_len)
{
	struct dp_pkt_spec s;
	size_t len = 0;

	dp_pkt_spec_init(&s);
	memcpy(s.dst_mac, &dp_ports[port].mac, 6);
	memcpy(s.src_mac, host_mac, 6);
	s.src_ip4 = src;
	s.dst_ip4 = dst;
	s.ttl = ttl;
	s.tos = 0x28;
	s.ip_id = 0x1234;
	s.proto = proto;
	s.frame_len = 0;
	s.payload_len = l4_len;
	s.flow_id = l4_len;
	CU_ASSERT_FATAL(dp_pkt_build(&s, buf, 4096, &len) == 0);
	return len;
}

/* An ICMP message (header + @p icmp_len - 8 bytes of pattern) with a correct checksum. */
static size_t
build_icmp(uint8_t *buf, uint32_t src, uint32_t dst, uint8_t ttl, uint8_t type, uint8_t code,
	uint16_t icmp_len)
{
	size_t len = build(buf, 0, src, dst, ttl, IPPROTO_ICMP, icmp_len);
	uint8_t *icmp = buf + 34;
	uint16_t ck;

	icmp[0] = type;
	icmp[1] = code;
	icmp[2] = icmp[3] = 0;
	dp_pkt_put16(icmp + 4, 0xbeef); /* identifier */
	dp_pkt_put16(icmp + 6, 0x0102); /* sequence */
	ck = dp_pkt_cksum(icmp, icmp_len);
	memcpy(icmp + 2, &ck, 2);
	return len;
}

/* Set flags + fragment offset (host order word) and fix the header checksum. */
static void
set_frag(uint8_t *frame, uint16_t flags_off)
{
	dp_pkt_put16(frame + 14 + 6, flags_off);
	ip_cksum_fix(frame);
}

/* 4 bytes of IP options (NOP NOP NOP EOL) after the 20-byte header. */
static size_t
add_ip_options(uint8_t *frame, size_t len)
{
	static const uint8_t opts[4] = { 1, 1, 1, 0 };
	uint8_t *ip = frame + 14;

	memmove(ip + 24, ip + 20, len - 34);
	memcpy(ip + 20, opts, 4);
	ip[0] = 0x46;
	dp_pkt_put16(ip + 2, (uint16_t)(dp_pkt_get16(ip + 2) + 4));
	ip_cksum_fix(frame);
	return len + 4;
}

static void
inject_on(int port, const uint8_t *frame, size_t len)
{
	ring_rig_inject(&rig, port, frame, len);
}

static void
run_graph(void)
{
	dp_graph_worker_run(worker(), 8);
	dp_graph_worker_flush(worker());
}

static unsigned int
drain_tx(int port, struct rte_mbuf **out, unsigned int max)
{
	return ring_rig_drain(&rig, port, out, max);
}

static unsigned int
drain_free(int port)
{
	return ring_rig_drain_free(&rig, port);
}

/* ---- counters ---- */

static struct dp_icmp4_stats icmp_before;

static void
snap(void)
{
	ring_rig_drops_mark(&rig);
	dp_icmp4_stats_get(&icmp_before);
}

/* Every drop counter moved by what @p want says (reason, count pairs, ended by DP_DROP_MAX). */
static void
assert_drops(const unsigned int *want)
{
	uint64_t exp[DP_DROP_MAX] = { 0 };
	unsigned int r;

	for (; want[0] != DP_DROP_MAX; want += 2)
		exp[want[0]] += want[1];
	for (r = 0; r < DP_DROP_MAX; r++) {
		uint64_t d = ring_rig_dropped(&rig, r);

		if (d != exp[r])
			fprintf(stderr, "\n  %s moved by %lu, expected %lu\n", dp_drop_name(r),
				(unsigned long)d, (unsigned long)exp[r]);
		CU_ASSERT_EQUAL(d, exp[r]);
	}
}

/* One frame in, nothing out of any port, and exactly these drops. */
static void
nothing_out(int port, const uint8_t *frame, size_t len, const unsigned int *want)
{
	unsigned int p;

	snap();
	inject_on(port, frame, len);
	run_graph();
	for (p = 0; p < NB_PORTS; p++)
		CU_ASSERT_EQUAL(drain_free((int)p), 0);
	assert_drops(want);
}

/* One frame in; returns the one packet that left through port0 (NULL if none). */
static struct rte_mbuf *
one_out(int port, const uint8_t *frame, size_t len)
{
	struct rte_mbuf *out[4];
	unsigned int n;

	snap();
	inject_on(port, frame, len);
	run_graph();
	CU_ASSERT_EQUAL(drain_free(1) + drain_free(2), 0);
	n = drain_tx(0, out, 4);
	CU_ASSERT_EQUAL(n, 1);
	if (n != 1) {
		rte_pktmbuf_free_bulk(out, n);
		return NULL;
	}
	return out[0];
}

/* ---- checks on what comes out ---- */

/* Ethernet to the host, IPv4 header of a router-made ICMP packet: every field. */
static void
check_ip_hdr(const uint8_t *f, size_t len, uint8_t tos, uint32_t src, uint32_t dst)
{
	const uint8_t *ip = f + 14;
	struct rte_ipv4_hdr copy;

	CU_ASSERT(memcmp(f, host_mac, 6) == 0);
	CU_ASSERT(memcmp(f + 6, &dp_ports[0].mac, 6) == 0);
	CU_ASSERT_EQUAL(dp_pkt_get16(f + 12), 0x0800);
	CU_ASSERT_EQUAL(ip[0], 0x45);
	CU_ASSERT_EQUAL(ip[1], tos);
	CU_ASSERT_EQUAL(dp_pkt_get16(ip + 2), len - 14);
	CU_ASSERT_EQUAL(dp_pkt_get16(ip + 6), 0); /* not a fragment, DF clear */
	CU_ASSERT_EQUAL(ip[8], DP_ICMP4_TTL);
	CU_ASSERT_EQUAL(ip[9], IPPROTO_ICMP);
	CU_ASSERT_EQUAL(dp_pkt_get32(ip + 12), src);
	CU_ASSERT_EQUAL(dp_pkt_get32(ip + 16), dst);
	/* the checksum ip4_output left equals a full recompute */
	memcpy(&copy, ip, sizeof(copy));
	copy.hdr_checksum = 0;
	CU_ASSERT_EQUAL(rte_ipv4_cksum(&copy), ((const struct rte_ipv4_hdr *)ip)->hdr_checksum);
	CU_ASSERT_TRUE(dp_pkt_ipv4_hdr_cksum_ok(ip));
}

/* The ICMP checksum equals a recompute over the message with the field zeroed. */
static void
check_icmp_cksum(const uint8_t *icmp, size_t icmp_len)
{
	static uint8_t copy[4096];
	uint16_t ck;

	CU_ASSERT_FATAL(icmp_len <= sizeof(copy));
	memcpy(copy, icmp, icmp_len);
	copy[2] = copy[3] = 0;
	ck = dp_pkt_cksum(copy, icmp_len);
	CU_ASSERT(memcmp(&ck, icmp + 2, 2) == 0);
	CU_ASSERT_EQUAL(dp_pkt_cksum(icmp, icmp_len), 0);
}

/* An echo reply to @p req (whose ICMP message starts at @p req_icmp), from @p from. */
static void
check_echo_reply(
	struct rte_mbuf *m, const uint8_t *req_icmp, uint16_t icmp_len, uint8_t tos, uint32_t from)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *icmp = f + 34;

	CU_ASSERT_EQUAL_FATAL(m->pkt_len, 34u + icmp_len);
	CU_ASSERT_EQUAL(m->data_len, m->pkt_len);
	check_ip_hdr(f, m->pkt_len, tos, from, HOST);
	CU_ASSERT_EQUAL(icmp[0], 0); /* echo reply */
	CU_ASSERT_EQUAL(icmp[1], 0);
	CU_ASSERT_EQUAL(dp_pkt_get16(icmp + 4), 0xbeef);
	CU_ASSERT_EQUAL(dp_pkt_get16(icmp + 6), 0x0102);
	CU_ASSERT(memcmp(icmp + 4, req_icmp + 4, icmp_len - 4u) == 0);
	check_icmp_cksum(icmp, icmp_len);
}

/* An ICMP error of @p type/@p code from @p from quoting @p orig_ip (@p orig_len bytes). */
static void
check_error(struct rte_mbuf *m, uint8_t type, uint8_t code, uint32_t from, const uint8_t *orig_ip,
	size_t orig_len)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *icmp = f + 34;
	size_t quote = RTE_MIN(orig_len, (size_t)DP_ICMP4_ERR_MAX_LEN - 28);

	CU_ASSERT_EQUAL_FATAL(m->pkt_len, 42u + quote);
	CU_ASSERT_EQUAL(m->data_len, m->pkt_len);
	check_ip_hdr(f, m->pkt_len, 0xc0, from, HOST);
	CU_ASSERT(m->pkt_len - 14 <= DP_ICMP4_ERR_MAX_LEN);
	CU_ASSERT_EQUAL(icmp[0], type);
	CU_ASSERT_EQUAL(icmp[1], code);
	CU_ASSERT_EQUAL(dp_pkt_get32(icmp + 4), 0); /* unused */
	/* the original header and data, as received (TTL not decremented) */
	CU_ASSERT(memcmp(icmp + 8, orig_ip, quote) == 0);
	check_icmp_cksum(icmp, 8 + quote);
}

static void
limit_generous(void)
{
	dp_icmp4_ratelimit_set(1000000, 1000);
}

/* ---- echo ---- */

static void
test_icmp4_echo_request_gets_echo_reply(void)
{
	static const struct {
		uint32_t to;
		uint16_t icmp_len;
	} cases[] = {
		{ PORT0_IP, 26 },   /* a 60-byte frame: ping's smallest, no padding left */
		{ PORT0_IP, 64 },   /* ping's default */
		{ PORT1_IP, 1001 }, /* another port's address, odd length */
		{ PORT0_IP, 8 },    /* header only */
	};
	uint8_t frame[4096];
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		size_t len = build_icmp(frame, HOST, cases[i].to, 64, 8, 0, cases[i].icmp_len);
		static const unsigned int none[] = { DP_DROP_MAX };
		struct dp_icmp4_stats st;
		struct rte_mbuf *m = one_out(0, frame, len);

		if (m == NULL)
			continue;
		check_echo_reply(m, frame + 34, cases[i].icmp_len, 0x28, cases[i].to);
		rte_pktmbuf_free(m);
		assert_drops(none);
		dp_icmp4_stats_get(&st);
		CU_ASSERT_EQUAL(st.echo_replies - icmp_before.echo_replies, 1);
		CU_ASSERT_EQUAL(st.errors - icmp_before.errors, 0);
	}
}

static void
test_icmp4_echo_request_with_ip_options_gets_reply_without(void)
{
	static const unsigned int none[] = { DP_DROP_MAX };
	uint8_t frame[256], req_icmp[64];
	struct rte_mbuf *m;
	size_t len;

	len = build_icmp(frame, HOST, PORT0_IP, 3, 8, 0, 40);
	memcpy(req_icmp, frame + 34, 40);
	len = add_ip_options(frame, len);
	m = one_out(0, frame, len);
	if (m == NULL)
		return;
	check_echo_reply(m, req_icmp, 40, 0x28, PORT0_IP);
	rte_pktmbuf_free(m);
	assert_drops(none);
}

static void
test_icmp4_bad_local_packets_have_their_drop_reason(void)
{
	uint8_t frame[512];
	size_t len;
	uint16_t ck;

	/* ICMP checksum off by one */
	len = build_icmp(frame, HOST, PORT0_IP, 64, 8, 0, 64);
	frame[34 + 2] ^= 1;
	nothing_out(0, frame, len, (const unsigned int[]){ DP_DROP_ICMP_CKSUM, 1, DP_DROP_MAX });
	/* shorter than an ICMP header (checksum right for its 4 bytes) */
	len = build_icmp(frame, HOST, PORT0_IP, 64, 8, 0, 8);
	dp_pkt_put16(frame + 14 + 2, 24);
	ip_cksum_fix(frame);
	frame[36] = frame[37] = 0;
	ck = dp_pkt_cksum(frame + 34, 4);
	memcpy(frame + 36, &ck, 2);
	nothing_out(
		0, frame, len, (const unsigned int[]){ DP_DROP_ICMP_TRUNCATED, 1, DP_DROP_MAX });
	/* a fragment of an echo request: first, then a later one */
	len = build_icmp(frame, HOST, PORT0_IP, 64, 8, 0, 64);
	set_frag(frame, RTE_IPV4_HDR_MF_FLAG);
	nothing_out(
		0, frame, len, (const unsigned int[]){ DP_DROP_IP4_FRAG_LOCAL, 1, DP_DROP_MAX });
	len = build_icmp(frame, HOST, PORT0_IP, 64, 8, 0, 64);
	set_frag(frame, 100);
	nothing_out(
		0, frame, len, (const unsigned int[]){ DP_DROP_IP4_FRAG_LOCAL, 1, DP_DROP_MAX });
	/* a timestamp request: not answered */
	len = build_icmp(frame, HOST, PORT0_IP, 64, 13, 0, 20);
	nothing_out(
		0, frame, len, (const unsigned int[]){ DP_DROP_ICMP_UNHANDLED, 1, DP_DROP_MAX });
	/* an echo reply to the router: not answered either */
	len = build_icmp(frame, HOST, PORT0_IP, 64, 0, 0, 20);
	nothing_out(
		0, frame, len, (const unsigned int[]){ DP_DROP_ICMP_UNHANDLED, 1, DP_DROP_MAX });
	/* UDP to the router: no local service (yet) */
	len = build(frame, 0, HOST, PORT0_IP, 64, 0, 18);
	nothing_out(0, frame, len, (const unsigned int[]){ DP_DROP_IP4_LOCAL, 1, DP_DROP_MAX });
	/* an echo request from a subnet broadcast address */
	len = build_icmp(frame, PORT0_BCAST, PORT0_IP, 64, 8, 0, 64);
	nothing_out(0, frame, len, (const unsigned int[]){ DP_DROP_ICMP_BAD_ADDR, 1, DP_DROP_MAX });
	/* an echo request from an address the router has no route to */
	len = build_icmp(frame, NO_WAY_BACK, PORT0_IP, 64, 8, 0, 64);
	nothing_out(0, frame, len, (const unsigned int[]){ DP_DROP_ICMP_NO_ROUTE, 1, DP_DROP_MAX });
}

/* ---- errors ---- */

static void
test_icmp4_ttl_expired_sends_time_exceeded(void)
{
	static const uint32_t sizes[] = { 18, 100, 1000 }; /* UDP payload: the last needs a cut */
	uint8_t frame[2048];
	unsigned int i;

	limit_generous();
	for (i = 0; i < DP_ARRAY_SIZE(sizes); i++) {
		size_t len = build(frame, 0, HOST, FAR, 1, 0, sizes[i]);
		struct dp_icmp4_stats st;
		struct rte_mbuf *m = one_out(0, frame, len);

		if (m == NULL)
			continue;
		check_error(m, DP_ICMP4_TIME_EXCEEDED, DP_ICMP4_EXC_TTL, PORT0_IP, frame + 14,
			dp_pkt_get16(frame + 16));
		rte_pktmbuf_free(m);
		/* the expired packet is still counted as such */
		assert_drops((const unsigned int[]){ DP_DROP_IP4_TTL, 1, DP_DROP_MAX });
		dp_icmp4_stats_get(&st);
		CU_ASSERT_EQUAL(st.errors - icmp_before.errors, 1);
		CU_ASSERT_EQUAL(st.errors_sent - icmp_before.errors_sent, 1);
	}
	/* the quote of the big one is cut at 576 bytes in all */
	CU_ASSERT(dp_pkt_get16(frame + 16) > DP_ICMP4_ERR_MAX_LEN);
}

static void
test_icmp4_ttl_expired_with_options_quotes_them(void)
{
	uint8_t frame[512];
	struct rte_mbuf *m;
	size_t len;

	limit_generous();
	len = add_ip_options(frame, build(frame, 0, HOST, FAR, 1, 0, 30));
	m = one_out(0, frame, len);
	if (m == NULL)
		return;
	check_error(m, DP_ICMP4_TIME_EXCEEDED, DP_ICMP4_EXC_TTL, PORT0_IP, frame + 14,
		dp_pkt_get16(frame + 16));
	rte_pktmbuf_free(m);
	assert_drops((const unsigned int[]){ DP_DROP_IP4_TTL, 1, DP_DROP_MAX });
}

static void
test_icmp4_no_route_sends_net_unreachable(void)
{
	uint8_t frame[512];
	struct rte_mbuf *m;
	size_t len;

	limit_generous();
	len = build(frame, 0, HOST, UNROUTED, 64, 0, 18);
	m = one_out(0, frame, len);
	if (m == NULL)
		return;
	check_error(m, DP_ICMP4_DEST_UNREACH, DP_ICMP4_UNREACH_NET, PORT0_IP, frame + 14,
		dp_pkt_get16(frame + 16));
	rte_pktmbuf_free(m);
	assert_drops((const unsigned int[]){ DP_DROP_IP4_NO_ROUTE, 1, DP_DROP_MAX });
}

/*
 * The error comes from the address of the port the packet came in on, even when
 * it leaves by another; from the egress port's when the input port has none.
 */
static void
test_icmp4_error_source_is_the_input_port_address(void)
{
	uint8_t frame[512];
	struct rte_mbuf *m;
	size_t len;

	limit_generous();
	/* in on port1, back to HOST through port0: from port1's address */
	len = build(frame, 1, HOST, FAR, 1, 0, 18);
	m = one_out(1, frame, len);
	if (m != NULL) {
		check_error(m, DP_ICMP4_TIME_EXCEEDED, DP_ICMP4_EXC_TTL, PORT1_IP, frame + 14,
			dp_pkt_get16(frame + 16));
		rte_pktmbuf_free(m);
	}
	/* in on port2, which has no address: from port0's, the way out */
	len = build(frame, 2, HOST, FAR, 1, 0, 18);
	m = one_out(2, frame, len);
	if (m != NULL) {
		check_error(m, DP_ICMP4_TIME_EXCEEDED, DP_ICMP4_EXC_TTL, PORT0_IP, frame + 14,
			dp_pkt_get16(frame + 16));
		rte_pktmbuf_free(m);
	}
}

/* traceroute -I: a time exceeded about an echo request (a query, not an error) */
static void
test_icmp4_errors_about_queries_and_first_fragments_are_sent(void)
{
	uint8_t frame[512];
	struct rte_mbuf *m;
	size_t len;

	limit_generous();
	len = build_icmp(frame, HOST, FAR, 1, 8, 0, 64);
	m = one_out(0, frame, len);
	if (m != NULL) {
		check_error(m, DP_ICMP4_TIME_EXCEEDED, DP_ICMP4_EXC_TTL, PORT0_IP, frame + 14,
			dp_pkt_get16(frame + 16));
		rte_pktmbuf_free(m);
	}
	len = build(frame, 0, HOST, FAR, 1, 0, 100);
	set_frag(frame, RTE_IPV4_HDR_MF_FLAG);
	m = one_out(0, frame, len);
	if (m != NULL) {
		check_error(m, DP_ICMP4_TIME_EXCEEDED, DP_ICMP4_EXC_TTL, PORT0_IP, frame + 14,
			dp_pkt_get16(frame + 16));
		rte_pktmbuf_free(m);
	}
}

static void
test_icmp4_no_error_about_errors_broadcasts_fragments(void)
{
	uint8_t frame[512];
	size_t len;

	limit_generous();
	/* an ICMP error (port unreachable) whose TTL runs out */
	len = build_icmp(frame, HOST, FAR, 1, 3, 3, 36);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_TTL, 1, DP_DROP_ICMP_ERR_ABOUT_ERR, 1, DP_DROP_MAX });
	/* a time exceeded with no route onwards */
	len = build_icmp(frame, HOST, UNROUTED, 64, 11, 0, 36);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_NO_ROUTE, 1, DP_DROP_ICMP_ERR_ABOUT_ERR, 1, DP_DROP_MAX });
	/* an unknown ICMP type is treated as an error */
	len = build_icmp(frame, HOST, FAR, 1, 200, 0, 36);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_TTL, 1, DP_DROP_ICMP_ERR_ABOUT_ERR, 1, DP_DROP_MAX });
	/* to a directed broadcast (of port1's subnet) */
	len = build(frame, 0, HOST, PORT1_BCAST, 1, 0, 18);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_TTL, 1, DP_DROP_ICMP_BAD_ADDR, 1, DP_DROP_MAX });
	/* from a broadcast source */
	len = build(frame, 0, PORT0_BCAST, FAR, 1, 0, 18);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_TTL, 1, DP_DROP_ICMP_BAD_ADDR, 1, DP_DROP_MAX });
	len = build(frame, 0, PORT0_BCAST, UNROUTED, 64, 0, 18);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_NO_ROUTE, 1, DP_DROP_ICMP_BAD_ADDR, 1, DP_DROP_MAX });
	/* a fragment other than the first (with and without MF) */
	len = build(frame, 0, HOST, FAR, 1, 0, 100);
	set_frag(frame, RTE_IPV4_HDR_MF_FLAG | 185);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_TTL, 1, DP_DROP_ICMP_ERR_FRAGMENT, 1, DP_DROP_MAX });
	len = build(frame, 0, HOST, UNROUTED, 64, 0, 100);
	set_frag(frame, 1);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_NO_ROUTE, 1, DP_DROP_ICMP_ERR_FRAGMENT, 1, DP_DROP_MAX });
	/* from an address there is no route back to */
	len = build(frame, 0, NO_WAY_BACK, FAR, 1, 0, 18);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_TTL, 1, DP_DROP_ICMP_NO_ROUTE, 1, DP_DROP_MAX });
	/* martian source: dropped before any error is considered */
	len = build(frame, 0, 0x7f000001, FAR, 1, 0, 18);
	nothing_out(0, frame, len, (const unsigned int[]){ DP_DROP_IP4_MARTIAN, 1, DP_DROP_MAX });
}

static void
test_icmp4_errors_are_rate_limited_per_config(void)
{
	enum { N = 3 * CFG_ICMP_BURST };
	struct rte_mbuf *out[64];
	struct dp_icmp4_stats st;
	uint8_t frame[512];
	unsigned int i, n;
	size_t len;

	/* the keys of the config file, through the setup call: the bucket restarts full */
	CU_ASSERT_EQUAL(rig.cfg.icmp_rate, CFG_ICMP_RATE);
	CU_ASSERT_EQUAL(rig.cfg.icmp_burst, CFG_ICMP_BURST);
	CU_ASSERT_EQUAL(dp_icmp4_init(&rig.cfg), 0);
	snap();
	for (i = 0; i < N; i++) {
		len = build(frame, 0, HOST, FAR, 1, 0, 18 + i);
		inject_on(0, frame, len);
	}
	run_graph();
	n = drain_tx(0, out, DP_ARRAY_SIZE(out));
	/* 1 token a second: the run takes far less */
	CU_ASSERT_EQUAL(n, CFG_ICMP_BURST);
	for (i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[i], const uint8_t *);

		CU_ASSERT_EQUAL(f[34], DP_ICMP4_TIME_EXCEEDED);
	}
	rte_pktmbuf_free_bulk(out, n);
	assert_drops((const unsigned int[]){
		DP_DROP_IP4_TTL, N, DP_DROP_ICMP_RATELIMITED, N - CFG_ICMP_BURST, DP_DROP_MAX });
	dp_icmp4_stats_get(&st);
	CU_ASSERT_EQUAL(st.errors - icmp_before.errors, N);
	CU_ASSERT_EQUAL(st.errors_sent - icmp_before.errors_sent, CFG_ICMP_BURST);

	/* rate 0: never */
	dp_icmp4_ratelimit_set(0, 100);
	len = build(frame, 0, HOST, UNROUTED, 64, 0, 18);
	nothing_out(0, frame, len,
		(const unsigned int[]){
			DP_DROP_IP4_NO_ROUTE, 1, DP_DROP_ICMP_RATELIMITED, 1, DP_DROP_MAX });
	/* echo replies are not errors: not limited */
	len = build_icmp(frame, HOST, PORT0_IP, 64, 8, 0, 64);
	drain_free(0);
	inject_on(0, frame, len);
	run_graph();
	CU_ASSERT_EQUAL(drain_free(0), 1);
	limit_generous();
}

/* ---- the token bucket, on a fake clock ---- */

static void
test_icmp4_tbucket_exact_on_fake_clock(void)
{
	struct dp_tbucket tb;
	unsigned int i, ok;

	/* 10 a second, bursts of 3, a clock of 1000 Hz */
	dp_tbucket_init(&tb, 10, 3, 1000, 5000);
	for (i = 0, ok = 0; i < 10; i++)
		ok += dp_tbucket_take(&tb, 5000);
	CU_ASSERT_EQUAL(ok, 3);
	CU_ASSERT_FALSE(dp_tbucket_take(&tb, 5099)); /* 0.99 token */
	CU_ASSERT_TRUE(dp_tbucket_take(&tb, 5100));
	CU_ASSERT_FALSE(dp_tbucket_take(&tb, 5100));
	/* a long pause fills it to the burst, no more */
	for (i = 0, ok = 0; i < 10; i++)
		ok += dp_tbucket_take(&tb, 1000000000);
	CU_ASSERT_EQUAL(ok, 3);
	/* over 10 s at a steady ask: 100 tokens, not one more */
	for (i = 1, ok = 0; i <= 10000; i++)
		ok += dp_tbucket_take(&tb, 1000000000 + i);
	CU_ASSERT_EQUAL(ok, 100);
	/* a clock that steps back earns nothing */
	CU_ASSERT_FALSE(dp_tbucket_take(&tb, 5));
	/* rate 0: never, whatever the burst or the time */
	dp_tbucket_init(&tb, 0, 100, 1000, 0);
	CU_ASSERT_FALSE(dp_tbucket_take(&tb, 0));
	CU_ASSERT_FALSE(dp_tbucket_take(&tb, UINT64_MAX / 2));
	/* burst 0 counts as 1 */
	dp_tbucket_init(&tb, 1, 0, 1000, 0);
	CU_ASSERT_TRUE(dp_tbucket_take(&tb, 0));
	CU_ASSERT_FALSE(dp_tbucket_take(&tb, 0));
	/* a follower of a limit: starts full at its first take, and again after a change */
	{
		struct dp_tbucket_limit l = { .rate = 10, .burst = 2, .gen = 1 };
		struct dp_tbucket_follow f = { .gen = 0 };

		for (i = 0, ok = 0; i < 5; i++)
			ok += dp_tbucket_limit_take(&f, &l, 1000, 7000);
		CU_ASSERT_EQUAL(ok, 2);
		dp_tbucket_limit_set(&l, 10, 4);
		for (i = 0, ok = 0; i < 5; i++)
			ok += dp_tbucket_limit_take(&f, &l, 1000, 7000);
		CU_ASSERT_EQUAL(ok, 4);
		CU_ASSERT_EQUAL(f.gen, 2);
		dp_tbucket_limit_set(&l, 0, 4); /* rate 0: none from now on */
		CU_ASSERT_FALSE(dp_tbucket_limit_take(&f, &l, 1000, 90000));
	}
	/* the largest config values on a 4 GHz TSC: no overflow, exact */
	dp_tbucket_init(&tb, 10000000, 1000000, 4000000000ull, 0);
	for (i = 0, ok = 0; i < 1100000; i++)
		ok += dp_tbucket_take(&tb, 0);
	CU_ASSERT_EQUAL(ok, 1000000);
	CU_ASSERT_FALSE(dp_tbucket_take(&tb, 399)); /* 399 ticks: 0.9975 token */
	CU_ASSERT_TRUE(dp_tbucket_take(&tb, 400));
	CU_ASSERT_TRUE(dp_tbucket_take(&tb, UINT64_MAX - 1));
}

/* ---- config, docs, accounting, leaks ---- */

static void
test_icmp4_config_keys_are_checked(void)
{
	struct dp_config c;
	char err[DP_CONFIG_ERR_LEN];

	dp_config_init(&c);
	CU_ASSERT_EQUAL(c.icmp_rate, DP_ICMP4_RATE_DEFAULT);
	CU_ASSERT_EQUAL(c.icmp_burst, DP_ICMP4_BURST_DEFAULT);
	CU_ASSERT_EQUAL(dp_config_set(&c, "dpfwd.icmp_rate=0", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.icmp_rate, 0);
	CU_ASSERT_EQUAL(dp_config_set(&c, "dpfwd.icmp_burst=7", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.icmp_burst, 7);
	CU_ASSERT_EQUAL(dp_config_set(&c, "dpfwd.icmp_burst=0", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "icmp_burst"));
	CU_ASSERT_EQUAL(dp_config_set(&c, "dpfwd.icmp_rate=fast", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "icmp_rate"));
	CU_ASSERT_EQUAL(dp_config_set(&c, "dpfwd.icmp_rate=10000001", err, sizeof(err)), -EINVAL);
	dp_config_free(&c);
}

/* docs/telemetry.md's drop table names every reason this code counts. */
static void
test_icmp4_doc_lists_its_drop_reasons(void)
{
	static const enum dp_drop_reason mine[] = { DP_DROP_IP4_LOCAL, DP_DROP_IP4_FRAG_LOCAL,
		DP_DROP_ICMP_TRUNCATED, DP_DROP_ICMP_CKSUM, DP_DROP_ICMP_UNHANDLED,
		DP_DROP_ICMP_BAD_ADDR, DP_DROP_ICMP_ERR_ABOUT_ERR, DP_DROP_ICMP_ERR_FRAGMENT,
		DP_DROP_ICMP_NO_ROUTE, DP_DROP_ICMP_RATELIMITED, DP_DROP_IP4_TTL,
		DP_DROP_IP4_NO_ROUTE };
	FILE *f = fopen(DP_SOURCE_DIR "/docs/telemetry.md", "r");
	static char text[1 << 20];
	char want[96];
	unsigned int i, r;
	size_t n;

	CU_ASSERT_FATAL(f != NULL);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	for (i = 0; i < DP_ARRAY_SIZE(mine); i++) {
		snprintf(want, sizeof(want), "| `%s` |", dp_drop_name(mine[i]));
		if (strstr(text, want) == NULL)
			fprintf(stderr, "\n  docs/telemetry.md does not list %s\n",
				dp_drop_name(mine[i]));
		CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	}
	/* the others' are theirs to document: only said here, on one line */
	for (r = 0, n = 0; r < DP_DROP_DYN_FIRST; r++) {
		snprintf(want, sizeof(want), "| `%s` |", dp_drop_name(r));
		if (strstr(text, want) != NULL)
			continue;
		fprintf(stderr, "%s%s", n++ == 0 ? "\n  note: not in docs/telemetry.md: " : " ",
			dp_drop_name(r));
	}
	if (n != 0)
		fprintf(stderr, "\n");
}

/* in + errors originated = out + dropped (+ what the control hand-off took and gave) */
static void
test_icmp4_accounting_adds_up_in_telemetry(void)
{
	struct dp_icmp4_stats st;
	json_t *snap_json, *lc, *ic;
	uint64_t rx, tx, drops, punted, injected;

	dp_graph_worker_flush(worker());
	/* dp_run_setup() registered it: a second time is refused */
	CU_ASSERT_EQUAL(dp_icmp4_telemetry_register(), -EEXIST);
	snap_json = dp_telemetry_snapshot();
	CU_ASSERT_FATAL(snap_json != NULL);
	lc = json_array_get(json_object_get(snap_json, "lcores"), 0);
	ic = json_object_get(snap_json, "icmp4");
	CU_ASSERT_FATAL(lc != NULL && ic != NULL);
	dp_icmp4_stats_get(&st);
	CU_ASSERT(st.echo_replies > 0 && st.errors_sent > 0 && st.errors > st.errors_sent);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(ic, "echo_replies")), st.echo_replies);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(ic, "errors")), st.errors);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(ic, "errors_sent")), st.errors_sent);
	rx = json_integer_value(json_object_get(lc, "rx_pkts"));
	tx = json_integer_value(json_object_get(lc, "tx_pkts"));
	punted = json_integer_value(json_object_get(lc, "punted"));
	injected = json_integer_value(json_object_get(lc, "injected"));
	/* every packet freed: the errors and those consumed (ARP/ND learned from) */
	drops = json_integer_value(json_object_get(json_object_get(snap_json, "drops"), "total")) +
		json_integer_value(
			json_object_get(json_object_get(snap_json, "drops"), "consumed"));
	CU_ASSERT(rx > 0);
	CU_ASSERT_EQUAL(rx + st.errors + injected, tx + drops + punted);
	json_decref(snap_json);
}

static void
test_icmp4_no_mbuf_leak(void)
{
	ring_rig_flush_drain_all(&rig);
	CU_ASSERT_EQUAL(rte_ring_count(worker()->punt_ring), 0);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), 0);
}

static int
suite_init(void)
{
	return ring_rig_setup(&rig);
}

static int
suite_cleanup(void)
{
	ring_rig_cleanup(&rig);
	return 0;
}

#define T(fn)                                                                                      \
	{                                                                                          \
#fn, fn                                                                            \
	}
static const struct dp_test tests[] = {
	T(test_icmp4_tbucket_exact_on_fake_clock),
	T(test_icmp4_config_keys_are_checked),
	T(test_icmp4_echo_request_gets_echo_reply),
	T(test_icmp4_echo_request_with_ip_options_gets_reply_without),
	T(test_icmp4_bad_local_packets_have_their_drop_reason),
	T(test_icmp4_ttl_expired_sends_time_exceeded),
	T(test_icmp4_ttl_expired_with_options_quotes_them),
	T(test_icmp4_no_route_sends_net_unreachable),
	T(test_icmp4_error_source_is_the_input_port_address),
	T(test_icmp4_errors_about_queries_and_first_fragments_are_sent),
	T(test_icmp4_no_error_about_errors_broadcasts_fragments),
	T(test_icmp4_errors_are_rate_limited_per_config),
	T(test_icmp4_doc_lists_its_drop_reasons),
	T(test_icmp4_accounting_adds_up_in_telemetry),
	T(test_icmp4_no_mbuf_leak),
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("icmp4", tests, suite_init, suite_cleanup);
}
