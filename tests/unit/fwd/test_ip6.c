/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 end to end in one process: three net_ring ports, the real worker graph
 * walked on the test thread, and the control lcore's work (ND) run by calling
 * dp_ctl_poll() in between, as dp_run_loop() does. Frames go in as bytes and
 * are checked as bytes when they come out; checksums are checked with the
 * test's own RFC 1071 sum over the pseudo-header, not with DPDK's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_build_config.h"
#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_icmp6.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_run.h"
#include "dp_test.h"
#include "ring_rig.h"

#define NB_PORTS 3

static const uint8_t host_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };      /* 2001:db8:10::2, port0 */
static const uint8_t gw1_mac[6] = { 0x02, 0, 0, 0, 0x01, 0x02 };    /* 2001:db8:101::2, port1 */
static const uint8_t gw2_mac[6] = { 0x02, 0, 0, 0, 0x02, 0x02 };    /* 2001:db8:102::2, port2 */
static const uint8_t ll_gw_mac[6] = { 0x02, 0, 0, 0, 0x01, 0x03 };  /* fe80::2, port1 */
static const uint8_t gw3_mac[6] = { 0x02, 0x33, 0, 0, 0x03, 0x02 }; /* 2001:db8:102::3, learned */
static const uint8_t new_mac[6] = { 0x02, 0x44, 0, 0, 0, 0x07 };    /* hosts that send NS */

static const char config_text[] =
	"[dpfwd]\n"
	"burst = 32\n"
	"icmp_rate = 1000\n"
	"icmp_burst = 1000\n"
	"[mempool]\n"
	"cache = 32\n"
	"[port0]\n"
	"dev = net_ring_s0\n"
	"ip6 = 2001:db8:10::1/64\n"
	"[port1]\n"
	"dev = net_ring_s1\n"
	"ip6 = 2001:db8:101::1/64\n"
	"[port2]\n"
	"dev = net_ring_s2\n"
	"ip6 = 2001:db8:102::1/64\n"
	"[lcores]\n"
	"rx = (0,0,1), (1,0,1), (2,0,1)\n"
	"[routes]\n"
	"route = 2001:db8:1::/48 via 2001:db8:101::2 port 1\n"
	"route = 2001:db8:2::/48 via 2001:db8:102::2 port 2\n"
	"route = 2001:db8:3::/48 via 2001:db8:102::3 port 2\n" /* gateway to resolve */
	"route = 2001:db8:4::/48 via fe80::2 port 1\n"         /* link-local gateway */
	"[neighbors]\n"
	"neigh = 2001:db8:101::2 lladdr 02:00:00:00:01:02 port 1\n"
	"neigh = 2001:db8:102::2 lladdr 02:00:00:00:02:02 port 2\n"
	"neigh = 2001:db8:10::2 lladdr 02:00:00:00:00:02 port 0\n"
	"neigh = fe80::2 lladdr 02:00:00:00:01:03 port 1\n";

/* ---- helpers ---- */

static struct ring_rig rig = {
	.name = "ip6",
	.prefix = 's',
	.nb_ports = NB_PORTS,
	.mem_mb = "512",
	.config_text = config_text,
};

static struct dp_worker *
worker(void)
{
	return dp_workers[0];
}

static void
a6(const char *s, uint8_t out[16])
{
	CU_ASSERT_FATAL(inet_pton(AF_INET6, s, out) == 1);
}

static void
inject(int port, const uint8_t *frame, size_t len)
{
	ring_rig_inject(&rig, port, frame, len);
}

/* Workers, then the control lcore, then workers again (what it sent goes out). */
static void
step(void)
{
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
	dp_ctl_poll(dp_ctl_now_ms());
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
}

static unsigned int
drain(int port, struct rte_mbuf **out, unsigned int max)
{
	return ring_rig_drain(&rig, port, out, max);
}

static void
drain_free(void)
{
	unsigned int p;

	for (p = 0; p < NB_PORTS; p++)
		ring_rig_drain_free(&rig, (int)p);
}

/*
 * A unicast NS: the neighbor table probing a neighbor that turned stale (one
 * learned from an NS). It may go out at any time; the tests never expect one.
 */
static bool
is_probe(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	return m->pkt_len > 54 && (d[0] & 1) == 0 && d[12] == 0x86 && d[13] == 0xdd &&
	       d[20] == 58 && d[54] == 135;
}

/* Dequeue what @p port sent, without probes. */
static unsigned int
drain_np(int port, struct rte_mbuf **out, unsigned int max)
{
	unsigned int n = drain(port, out, max), i, k = 0;

	for (i = 0; i < n; i++) {
		if (is_probe(out[i]))
			rte_pktmbuf_free(out[i]);
		else
			out[k++] = out[i];
	}
	return k;
}

/* Exactly one frame on @p port, nothing elsewhere; the caller frees it. */
static struct rte_mbuf *
one_out(int port)
{
	struct rte_mbuf *out[8];
	unsigned int p, n;
	struct rte_mbuf *m = NULL;

	for (p = 0; p < NB_PORTS; p++) {
		n = drain_np((int)p, out, 8);
		if ((int)p == port && n == 1) {
			m = out[0];
			continue;
		}
		if (n != 0)
			fprintf(stderr, "\n  %u frame(s) on port%u, expected %u\n", n, p,
				(int)p == port ? 1 : 0);
		CU_ASSERT_EQUAL(n, 0);
		rte_pktmbuf_free_bulk(out, n);
	}
	CU_ASSERT_PTR_NOT_NULL(m);
	return m;
}

static uint64_t drops_before[DP_DROP_MAX];

static void
snap_drops(void)
{
	unsigned int r;

	for (r = 0; r < DP_DROP_MAX; r++)
		drops_before[r] = dp_graph_drops(r);
}

/* The counters moved by exactly @p want (by reason). */
static void
assert_drops(const uint64_t *want, const char *what)
{
	unsigned int r;

	for (r = 0; r < DP_DROP_MAX; r++) {
		uint64_t d = dp_graph_drops(r) - drops_before[r];

		if (d != want[r])
			fprintf(stderr, "\n  %s: %s moved by %lu, expected %lu\n", what,
				dp_drop_name(r), (unsigned long)d, (unsigned long)want[r]);
		CU_ASSERT_EQUAL(d, want[r]);
	}
}

static void
dump(const char *what, const uint8_t *d, size_t n)
{
	size_t i;

	fprintf(stderr, "\n  %s:", what);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 16 ? "" : "\n   ", d[i]);
	fprintf(stderr, "\n");
}

static void
assert_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	CU_ASSERT(memcmp(got, want, n) == 0);
	if (memcmp(got, want, n) != 0) {
		dump("got", got, n);
		dump("want", want, n);
		fprintf(stderr, "  (%s)\n", what);
	}
}

/* An Ethernet + IPv6 frame around @p payload, padded to 60 bytes. */
static size_t
v6_frame(uint8_t *f, const uint8_t *eth_dst, const uint8_t *eth_src, const uint8_t *src,
	const uint8_t *dst, uint8_t nxt, uint8_t hlim, const uint8_t *payload, uint16_t plen)
{
	size_t len = 54u + plen;

	memset(f, 0, len < 60 ? 60 : len);
	memcpy(f, eth_dst, 6);
	memcpy(f + 6, eth_src, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[18] = (uint8_t)(plen >> 8);
	f[19] = (uint8_t)plen;
	f[20] = nxt;
	f[21] = hlim;
	memcpy(f + 22, src, 16);
	memcpy(f + 38, dst, 16);
	if (plen != 0)
		memcpy(f + 54, payload, plen);
	return len < 60 ? 60 : len;
}

/* RFC 1071 sum over the IPv6 pseudo-header (RFC 8200 8.1) and an upper-layer message. */
static uint16_t
l4_sum(const uint8_t *src, const uint8_t *dst, uint8_t nxt, const uint8_t *msg, uint32_t len)
{
	static uint8_t buf[40 + 65536];

	memcpy(buf, src, 16);
	memcpy(buf + 16, dst, 16);
	buf[32] = (uint8_t)(len >> 24);
	buf[33] = (uint8_t)(len >> 16);
	buf[34] = (uint8_t)(len >> 8);
	buf[35] = (uint8_t)len;
	buf[36] = buf[37] = buf[38] = 0;
	buf[39] = nxt;
	memcpy(buf + 40, msg, len);
	return dp_pkt_cksum(buf, 40 + len);
}

/* Set the checksum of ICMPv6 message @p msg (bytes 2-3). */
static void
icmp6_cksum_fill(const uint8_t *src, const uint8_t *dst, uint8_t *msg, uint32_t len)
{
	uint16_t c;

	msg[2] = msg[3] = 0;
	c = l4_sum(src, dst, 58, msg, len);
	memcpy(msg + 2, &c, 2);
}

/* Is the ICMPv6 checksum of the frame @p f (no extension headers) right? */
static bool
icmp6_cksum_ok(const uint8_t *f)
{
	uint32_t plen = (uint32_t)f[18] << 8 | f[19];

	return l4_sum(f + 22, f + 38, 58, f + 54, plen) == 0;
}

/* A whole ICMPv6 frame: type, code, 4 bytes of data, body; checksum set. */
static size_t
icmp6_frame(uint8_t *f, const uint8_t *eth_dst, const uint8_t *eth_src, const uint8_t *src,
	const uint8_t *dst, uint8_t hlim, uint8_t type, uint8_t code, uint32_t data,
	const uint8_t *body, uint16_t blen)
{
	uint8_t msg[2048];
	size_t len;

	msg[0] = type;
	msg[1] = code;
	msg[2] = msg[3] = 0;
	msg[4] = (uint8_t)(data >> 24);
	msg[5] = (uint8_t)(data >> 16);
	msg[6] = (uint8_t)(data >> 8);
	msg[7] = (uint8_t)data;
	memcpy(msg + 8, body, blen);
	icmp6_cksum_fill(src, dst, msg, 8u + blen);
	len = v6_frame(f, eth_dst, eth_src, src, dst, 58, hlim, msg, (uint16_t)(8 + blen));
	return len;
}

/* A UDP/IPv6 frame from the host on port0 (dp_pkt_craft), @p frame_len with FCS. */
static size_t
udp_frame(uint8_t *f, const char *src, const char *dst, uint8_t hlim, uint16_t sport,
	uint32_t frame_len)
{
	struct dp_pkt_spec s;
	size_t len = 0;

	dp_pkt_spec_init(&s);
	s.ip_version = 6;
	memcpy(s.dst_mac, &dp_ports[0].mac, 6);
	memcpy(s.src_mac, host_mac, 6);
	a6(src, s.src_ip6);
	a6(dst, s.dst_ip6);
	s.ttl = hlim;
	s.sport = sport;
	s.flow_id = sport;
	s.frame_len = frame_len;
	CU_ASSERT_FATAL(dp_pkt_build(&s, f, 2048, &len) == 0);
	return len;
}

/* The solicited-node group of @p a and its MAC. */
static void
solicited(const uint8_t *a, uint8_t group[16], uint8_t mac[6])
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };

	memcpy(group, pfx, 13);
	memcpy(group + 13, a + 13, 3);
	mac[0] = mac[1] = 0x33;
	memcpy(mac + 2, group + 12, 4);
}

/* An NS or NA frame with one link-layer option (@p lla NULL: none). */
static size_t
nd_frame(uint8_t *f, const uint8_t *eth_dst, const uint8_t *eth_src, const uint8_t *src,
	const uint8_t *dst, uint8_t hlim, uint8_t type, uint32_t flags, const uint8_t *target,
	const uint8_t *lla)
{
	uint8_t body[24];

	memcpy(body, target, 16);
	if (lla != NULL) {
		body[16] = type == 135 ? 1 : 2;
		body[17] = 1;
		memcpy(body + 18, lla, 6);
	}
	return icmp6_frame(
		f, eth_dst, eth_src, src, dst, hlim, type, 0, flags, body, lla != NULL ? 24 : 16);
}

/* ---- forwarding ---- */

static void
test_ip6_forwards_with_hop_limit_minus_one_and_macs(void)
{
	static uint8_t expect[2][64][128];
	struct rte_mbuf *out[2][128];
	uint8_t frame[2048];
	unsigned int n[2], i, k;
	uint64_t want[DP_DROP_MAX] = { 0 };
	uint64_t tx_before = worker()->stats.tx_pkts;

	snap_drops();
	for (i = 0; i < 128; i++) {
		unsigned int r = i % 2;
		size_t len =
			udp_frame(frame, "2001:db8:10::2", r ? "2001:db8:2::7" : "2001:db8:1::7",
				(uint8_t)(2 + i), (uint16_t)(1000 + i), 78);

		CU_ASSERT_EQUAL_FATAL(len, 74);
		memcpy(expect[r][i / 2], frame, len);
		inject(0, frame, len);
	}
	dp_graph_worker_run(worker(), 8);
	dp_graph_worker_flush(worker());
	n[0] = drain(1, out[0], 128);
	n[1] = drain(2, out[1], 128);
	CU_ASSERT_EQUAL(n[0], 64);
	CU_ASSERT_EQUAL(n[1], 64);
	CU_ASSERT_EQUAL(worker()->stats.tx_pkts - tx_before, 128);
	for (k = 0; k < 2; k++) {
		const uint8_t *mac = k == 0 ? gw1_mac : gw2_mac;

		for (i = 0; i < n[k]; i++) {
			const uint8_t *g = rte_pktmbuf_mtod(out[k][i], const uint8_t *);
			const uint8_t *e = expect[k][i];

			CU_ASSERT_EQUAL(out[k][i]->pkt_len, 74);
			CU_ASSERT(memcmp(g, mac, 6) == 0);
			CU_ASSERT(memcmp(g + 6, &dp_ports[1 + k].mac, 6) == 0);
			CU_ASSERT(memcmp(g + 12, e + 12, 21 - 12) == 0);
			CU_ASSERT_EQUAL(g[21], e[21] - 1); /* hop limit */
			CU_ASSERT(memcmp(g + 22, e + 22, 74 - 22) == 0);
			CU_ASSERT_TRUE(dp_pkt_udp_cksum_ok(g, 74));
		}
		rte_pktmbuf_free_bulk(out[k], n[k]);
	}
	assert_drops(want, "forwarding");
}

/* A route through a link-local gateway (fe80::2 on port1, static). */
static void
test_ip6_forwards_via_link_local_gateway(void)
{
	uint8_t frame[2048];
	struct rte_mbuf *m;
	size_t len = udp_frame(frame, "2001:db8:10::2", "2001:db8:4::1", 64, 7, 78);

	inject(0, frame, len);
	step();
	m = one_out(1);
	if (m == NULL)
		return;
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, uint8_t *), ll_gw_mac, 6) == 0);
	CU_ASSERT_EQUAL(rte_pktmbuf_mtod(m, uint8_t *)[21], 63);
	rte_pktmbuf_free(m);
}

struct drop_case {
	const char *name;
	size_t len;
	uint8_t frame[160];
	int port;
	enum dp_drop_reason why;
	enum dp_drop_reason why2; /* a second counter (the error's fate), or DP_DROP_MAX */
};

static void
run_drop_case(const struct drop_case *c)
{
	uint64_t want[DP_DROP_MAX] = { 0 };
	struct rte_mbuf *out[8];
	unsigned int p, n, sent = 0;

	snap_drops();
	inject(c->port, c->frame, c->len);
	step();
	for (p = 0; p < NB_PORTS; p++) {
		n = drain_np((int)p, out, 8);
		sent += n;
		rte_pktmbuf_free_bulk(out, n);
	}
	if (sent != 0)
		fprintf(stderr, "\n  %s: %u frame(s) sent\n", c->name, sent);
	CU_ASSERT_EQUAL(sent, 0);
	want[c->why]++;
	if (c->why2 != DP_DROP_MAX)
		want[c->why2]++;
	assert_drops(want, c->name);
}

/* Every drop reason of ip6_fwd, ip6_local and icmp6_error, one packet each. */
static void
test_ip6_each_bad_packet_has_its_drop_reason(void)
{
	static struct drop_case c;
	uint8_t our[16], host[16], ll_host[16], mc[16], body[64], group[16], gmac[6];
	uint8_t *ip;

	a6("2001:db8:10::1", our);
	a6("2001:db8:10::2", host);
	a6("fe80::99", ll_host);
	memset(body, 0x5a, sizeof(body));
#define CASE(n, w, w2)                                                                             \
	do {                                                                                       \
		c.name = (n);                                                                      \
		c.why = (w);                                                                       \
		c.why2 = (w2);                                                                     \
		c.port = 0;                                                                        \
		run_drop_case(&c);                                                                 \
	} while (0)
#define UDP(src, dst, hl) (c.len = udp_frame(c.frame, (src), (dst), (hl), 9, 78))

	UDP("2001:db8:10::2", "2001:db8:1::1", 64);
	c.len = 14 + 30;
	CASE("truncated", DP_DROP_IP6_TRUNCATED, DP_DROP_MAX);
	UDP("2001:db8:10::2", "2001:db8:1::1", 64);
	c.frame[14] = 0x40;
	CASE("version 4", DP_DROP_IP6_VERSION, DP_DROP_MAX);
	UDP("2001:db8:10::2", "2001:db8:1::1", 64);
	c.frame[18] = 0x01; /* payload length 256 + 20 */
	CASE("payload beyond the frame", DP_DROP_IP6_LEN, DP_DROP_MAX);
	UDP("ff02::5", "2001:db8:1::1", 64);
	CASE("multicast source", DP_DROP_IP6_BAD_SRC, DP_DROP_MAX);
	UDP("::1", "2001:db8:1::1", 64);
	CASE("loopback source", DP_DROP_IP6_BAD_SRC, DP_DROP_MAX);
	UDP("::", "2001:db8:1::1", 64);
	CASE("unspecified source to unicast", DP_DROP_IP6_BAD_SRC, DP_DROP_MAX);
	UDP("2001:db8:10::2", "::1", 64);
	CASE("loopback destination", DP_DROP_IP6_BAD_DST, DP_DROP_MAX);
	UDP("2001:db8:10::2", "::", 64);
	CASE("unspecified destination", DP_DROP_IP6_BAD_DST, DP_DROP_MAX);
	UDP("2001:db8:10::2", "ff0e::1", 64);
	CASE("global multicast", DP_DROP_IP6_MCAST, DP_DROP_MAX);
	UDP("2001:db8:10::2", "ff02::2", 64);
	CASE("all-routers (no RA here)", DP_DROP_IP6_MCAST, DP_DROP_MAX);
	UDP("2001:db8:10::2", "2001:db8:1::1", 64);
	memcpy(c.frame, "\x33\x33\x00\x00\x00\x01", 6);
	CASE("unicast in a multicast frame", DP_DROP_IP6_L2_MCAST, DP_DROP_MAX);
	UDP("fe80::99", "2001:db8:1::1", 64);
	CASE("link-local source", DP_DROP_IP6_LINK_LOCAL, DP_DROP_MAX);
	UDP("2001:db8:10::2", "fe80::1234", 64);
	CASE("link-local destination", DP_DROP_IP6_LINK_LOCAL, DP_DROP_MAX);
	UDP("2001:db8:10::2", "2001:db8:1::1", 64);
	c.frame[20] = 0; /* Hop-by-Hop */
	CASE("hop-by-hop header", DP_DROP_IP6_HBH, DP_DROP_MAX);
	UDP("2001:db8:10::2", "2001:db8:10::1", 64);
	CASE("UDP to the router", DP_DROP_IP6_LOCAL, DP_DROP_MAX);
	UDP("2001:db8:10::2", "2001:db8:10::1", 64);
	c.frame[20] = 0;
	CASE("hop-by-hop to the router", DP_DROP_IP6_HBH, DP_DROP_MAX);

	/* ip6_local */
	c.len = icmp6_frame(
		c.frame, dp_ports[0].mac.addr_bytes, host_mac, host, our, 64, 129, 0, 1, body, 8);
	CASE("echo reply to the router", DP_DROP_ICMP6_UNHANDLED, DP_DROP_MAX);
	c.len = icmp6_frame(
		c.frame, dp_ports[0].mac.addr_bytes, host_mac, host, our, 64, 128, 0, 1, body, 8);
	c.frame[60] ^= 1;
	CASE("echo request, bad checksum", DP_DROP_ICMP6_CKSUM, DP_DROP_MAX);
	c.len = icmp6_frame(
		c.frame, dp_ports[0].mac.addr_bytes, host_mac, host, our, 64, 128, 0, 1, body, 8);
	c.frame[19] = 2; /* payload length 2 */
	CASE("ICMPv6 shorter than its header", DP_DROP_ICMP6_TRUNCATED, DP_DROP_MAX);
	c.len = icmp6_frame(
		c.frame, dp_ports[0].mac.addr_bytes, host_mac, host, our, 64, 128, 0, 1, body, 0);
	c.frame[19] = 4; /* payload length 4: an echo needs 8 */
	CASE("echo request shorter than 8", DP_DROP_ICMP6_TRUNCATED, DP_DROP_MAX);
	a6("ff02::1", mc);
	c.len = icmp6_frame(c.frame, (const uint8_t *)"\x33\x33\x00\x00\x00\x01", host_mac,
		(const uint8_t[16]){ 0 }, mc, 64, 128, 0, 1, body, 8);
	CASE("echo request from ::", DP_DROP_ICMP6_BAD_ADDR, DP_DROP_MAX);
	solicited(our, group, gmac);
	c.len = nd_frame(c.frame, gmac, host_mac, host, group, 64, 135, 0, our, host_mac);
	CASE("NS with hop limit 64", DP_DROP_ND_HOP_LIMIT, DP_DROP_MAX);

	/* icmp6_error: the packet is a drop under its reason, and the error one too */
	UDP("2001:db8:10::2", "2001:db8:1::1", 1);
	ip = c.frame + 14;
	/* an ICMPv6 Destination Unreachable in transit, with hop limit 1 */
	c.len = icmp6_frame(c.frame, dp_ports[0].mac.addr_bytes, host_mac, host,
		(const uint8_t *)"\x20\x01\x0d\xb8\x00\x01\0\0\0\0\0\0\0\0\0\x01", 1, 1, 0, 0, body,
		48);
	CASE("error about an ICMPv6 error", DP_DROP_IP6_HOP_LIMIT, DP_DROP_ICMP6_ERR_ABOUT_ERR);
	{
		/* a later fragment: 8-byte fragment header, offset 8 */
		uint8_t frag[8 + 16] = { 17, 0, 0x00, 0x40, 0, 0, 0, 1 };

		memset(frag + 8, 0x11, 16);
		c.len = v6_frame(c.frame, dp_ports[0].mac.addr_bytes, host_mac, host,
			(const uint8_t *)"\x20\x01\x0d\xb8\x00\x01\0\0\0\0\0\0\0\0\0\x01", 44, 1,
			frag, sizeof(frag));
		CASE("error about a later fragment", DP_DROP_IP6_HOP_LIMIT,
			DP_DROP_ICMP6_ERR_ABOUT_ERR);
		/* the first fragment of an ICMPv6 error: still an error about an error */
		frag[0] = 58;
		frag[3] = 0x01; /* offset 0, more fragments */
		frag[8] = 1;    /* Destination Unreachable */
		c.len = v6_frame(c.frame, dp_ports[0].mac.addr_bytes, host_mac, host,
			(const uint8_t *)"\x20\x01\x0d\xb8\x00\x01\0\0\0\0\0\0\0\0\0\x01", 44, 1,
			frag, sizeof(frag));
		CASE("error about an error behind a fragment header", DP_DROP_IP6_HOP_LIMIT,
			DP_DROP_ICMP6_ERR_ABOUT_ERR);
	}
	UDP("2001:db8:77::1", "2001:db8:1::1", 1);
	CASE("no route back to the source", DP_DROP_IP6_HOP_LIMIT, DP_DROP_ICMP6_NO_ROUTE);
	dp_icmp6_ratelimit_set(0, 1);
	UDP("2001:db8:10::2", "2001:db8:1::1", 1);
	CASE("rate limit 0", DP_DROP_IP6_HOP_LIMIT, DP_DROP_ICMP6_RATELIMITED);
	UDP("2001:db8:10::2", "2001:db8:99::1", 64);
	CASE("no route, rate limit 0", DP_DROP_IP6_NO_ROUTE, DP_DROP_ICMP6_RATELIMITED);
	dp_icmp6_ratelimit_set(1000, 1000);
	{
		/* no room in front of the packet for the error's 48 bytes */
		struct rte_mbuf *m;
		uint64_t want[DP_DROP_MAX] = { 0 };

		UDP("2001:db8:10::2", "2001:db8:1::1", 1);
		m = rte_pktmbuf_alloc(dp_mem_pool_get(0));
		CU_ASSERT_FATAL(m != NULL);
		m->data_off = 16;
		memcpy(rte_pktmbuf_append(m, (uint16_t)c.len), c.frame, c.len);
		m->port = dp_ports[0].port_id;
		snap_drops();
		CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], m) == 0);
		step();
		CU_ASSERT_EQUAL(drain(0, &m, 1), 0);
		want[DP_DROP_IP6_HOP_LIMIT] = want[DP_DROP_ICMP6_NO_HEADROOM] = 1;
		assert_drops(want, "no headroom");
	}
	{
		/* IPv6 off: what a config without any IPv6 gets */
		struct rte_fib6 *fib = dp_fwd_ip6.fib;

		dp_fwd_ip6.fib = NULL;
		UDP("2001:db8:10::2", "2001:db8:1::1", 64);
		CASE("IPv6 off", DP_DROP_IP6_OFF, DP_DROP_MAX);
		dp_fwd_ip6.fib = fib;
	}
	(void)ll_host;
	(void)ip;
#undef CASE
#undef UDP
}

/* ---- ICMPv6 from the router ---- */

static void
test_ip6_echo_reply_bytes_and_checksum(void)
{
	uint8_t our[16], host[16], frame[256], want[256], body[56];
	struct rte_mbuf *m;
	size_t len, i;

	a6("2001:db8:10::1", our);
	a6("2001:db8:10::2", host);
	for (i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)(i * 7);
	len = icmp6_frame(frame, dp_ports[0].mac.addr_bytes, host_mac, host, our, 17, 128, 0,
		0x12340007, body, sizeof(body));
	inject(0, frame, len);
	step();
	m = one_out(0);
	if (m == NULL)
		return;
	/* the reply as RFC 4443 4.2 says, built here from scratch */
	icmp6_frame(want, host_mac, dp_ports[0].mac.addr_bytes, our, host, 64, 129, 0, 0x12340007,
		body, sizeof(body));
	CU_ASSERT_EQUAL(m->pkt_len, len);
	assert_bytes(rte_pktmbuf_mtod(m, uint8_t *), want, len, "echo reply");
	CU_ASSERT_TRUE(icmp6_cksum_ok(rte_pktmbuf_mtod(m, uint8_t *)));
	rte_pktmbuf_free(m);
}

/*
 * A request from a link-local address to the port's link-local one, with bytes
 * after the IPv6 payload (as padding would be): the reply goes back on the
 * same link and carries the payload only.
 */
static void
test_ip6_echo_reply_link_local_without_trailing_bytes(void)
{
	uint8_t ll_gw[16], frame[128], want[128], body[1] = { 0 };
	const uint8_t *our_ll = dp_fwd_ip6.port[1].ll;
	struct rte_mbuf *m;
	size_t len;

	a6("fe80::2", ll_gw);
	len = icmp6_frame(frame, dp_ports[1].mac.addr_bytes, ll_gw_mac, ll_gw, our_ll, 64, 128, 0,
		9, body, 0);
	CU_ASSERT_EQUAL_FATAL(len, 62);
	memset(frame + len, 0xee, 10);
	inject(1, frame, len + 10);
	step();
	m = one_out(1);
	if (m == NULL)
		return;
	icmp6_frame(
		want, ll_gw_mac, dp_ports[1].mac.addr_bytes, our_ll, ll_gw, 64, 129, 0, 9, body, 0);
	CU_ASSERT_EQUAL(m->pkt_len, 62);
	assert_bytes(rte_pktmbuf_mtod(m, uint8_t *), want, 62, "link-local echo reply");
	rte_pktmbuf_free(m);
}

/* An echo request to all-nodes is answered from the port's unicast address (RFC 4443 4.2). */
static void
test_ip6_echo_to_all_nodes_answered_from_unicast(void)
{
	uint8_t our[16], host[16], mc[16], frame[128], want[128],
		body[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct rte_mbuf *m;
	size_t len;

	a6("2001:db8:10::1", our);
	a6("2001:db8:10::2", host);
	a6("ff02::1", mc);
	len = icmp6_frame(frame, (const uint8_t *)"\x33\x33\x00\x00\x00\x01", host_mac, host, mc, 1,
		128, 0, 5, body, sizeof(body));
	inject(0, frame, len);
	step();
	m = one_out(0);
	if (m == NULL)
		return;
	icmp6_frame(want, host_mac, dp_ports[0].mac.addr_bytes, our, host, 64, 129, 0, 5, body,
		sizeof(body));
	assert_bytes(rte_pktmbuf_mtod(m, uint8_t *), want, len, "echo reply to all-nodes");
	rte_pktmbuf_free(m);
}

/* Check an ICMPv6 error frame from the router against the packet @p orig that caused it. */
static void
assert_error(
	const struct rte_mbuf *m, uint8_t type, uint8_t code, const uint8_t *orig, size_t orig_len)
{
	const uint8_t *g = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t our[16], host[16];
	uint32_t ip_len = (uint32_t)((orig[18] << 8 | orig[19]) + 40);
	uint32_t quote = ip_len < 1232 ? ip_len : 1232;

	a6("2001:db8:10::1", our);
	a6("2001:db8:10::2", host);
	CU_ASSERT(orig_len >= 14 + ip_len);
	CU_ASSERT_EQUAL_FATAL(m->pkt_len, 14 + 48 + quote);
	CU_ASSERT_EQUAL(rte_pktmbuf_data_len(m), m->pkt_len);
	CU_ASSERT(memcmp(g, host_mac, 6) == 0);
	CU_ASSERT(memcmp(g + 6, &dp_ports[0].mac, 6) == 0);
	CU_ASSERT(g[12] == 0x86 && g[13] == 0xdd);
	CU_ASSERT(g[14] == 0x60 && g[15] == 0 && g[16] == 0 && g[17] == 0);
	CU_ASSERT_EQUAL((uint32_t)(g[18] << 8 | g[19]), 8 + quote);
	CU_ASSERT_EQUAL(g[20], 58);
	CU_ASSERT_EQUAL(g[21], 64);
	CU_ASSERT(memcmp(g + 22, our, 16) == 0);
	CU_ASSERT(memcmp(g + 38, host, 16) == 0);
	CU_ASSERT_EQUAL(g[54], type);
	CU_ASSERT_EQUAL(g[55], code);
	CU_ASSERT(g[58] == 0 && g[59] == 0 && g[60] == 0 && g[61] == 0);
	/* the quote: the offending packet as it arrived, from its IPv6 header on */
	assert_bytes(g + 62, orig + 14, quote, "quoted packet");
	CU_ASSERT_TRUE(icmp6_cksum_ok(g));
}

static void
test_ip6_time_exceeded_quotes_the_packet(void)
{
	uint8_t frame[2048];
	uint64_t want[DP_DROP_MAX] = { 0 };
	struct dp_icmp6_stats st0, st1;
	struct rte_mbuf *m;
	size_t len;

	dp_icmp6_stats_get(&st0);
	snap_drops();
	len = udp_frame(frame, "2001:db8:10::2", "2001:db8:1::9", 1, 33434, 78);
	inject(0, frame, len);
	step();
	m = one_out(0);
	if (m != NULL) {
		assert_error(m, 3, 0, frame, len);
		rte_pktmbuf_free(m);
	}
	want[DP_DROP_IP6_HOP_LIMIT] = 1;
	assert_drops(want, "time exceeded");
	dp_icmp6_stats_get(&st1);
	CU_ASSERT_EQUAL(st1.errors - st0.errors, 1);
	CU_ASSERT_EQUAL(st1.errors_sent - st0.errors_sent, 1);
}

/* A 1500-byte packet: the error is 1280 bytes (RFC 4443 2.4(c)), the quote cut at 1232. */
static void
test_ip6_time_exceeded_of_large_packet_fits_1280(void)
{
	uint8_t frame[2048];
	struct rte_mbuf *m;
	size_t len;

	len = udp_frame(frame, "2001:db8:10::2", "2001:db8:2::9", 0, 4000, 1518);
	CU_ASSERT_EQUAL_FATAL(len, 1514);
	inject(0, frame, len);
	step();
	m = one_out(0);
	if (m == NULL)
		return;
	assert_error(m, 3, 0, frame, len);
	CU_ASSERT_EQUAL(m->pkt_len - 14, 1280);
	rte_pktmbuf_free(m);
}

static void
test_ip6_unreachable_for_no_route(void)
{
	uint8_t frame[2048];
	uint64_t want[DP_DROP_MAX] = { 0 };
	struct rte_mbuf *m;
	size_t len;

	snap_drops();
	len = udp_frame(frame, "2001:db8:10::2", "2001:db8:99::1", 64, 5000, 200);
	inject(0, frame, len);
	step();
	m = one_out(0);
	if (m != NULL) {
		assert_error(m, 1, 0, frame, len);
		rte_pktmbuf_free(m);
	}
	want[DP_DROP_IP6_NO_ROUTE] = 1;
	assert_drops(want, "unreachable");
}

/* The bucket: a burst of icmp_burst errors, then the rest refused until it refills. */
static void
test_ip6_errors_are_rate_limited(void)
{
	uint8_t frame[2048];
	uint64_t want[DP_DROP_MAX] = { 0 };
	struct rte_mbuf *out[64];
	unsigned int i, n;
	size_t len;

	dp_icmp6_ratelimit_set(1, 5); /* 1 per second, bursts of 5 */
	snap_drops();
	for (i = 0; i < 20; i++) {
		len = udp_frame(
			frame, "2001:db8:10::2", "2001:db8:1::9", 1, (uint16_t)(100 + i), 78);
		inject(0, frame, len);
	}
	step();
	n = drain_np(0, out, 64);
	CU_ASSERT_EQUAL(n, 5);
	rte_pktmbuf_free_bulk(out, n);
	want[DP_DROP_IP6_HOP_LIMIT] = 20;
	want[DP_DROP_ICMP6_RATELIMITED] = 15;
	assert_drops(want, "rate limit");
	dp_icmp6_ratelimit_set(1000, 1000);
	drain_free();
}

/* ---- neighbor discovery ---- */

/* The NA the router must send for @p target (one of port @p port's addresses). */
static size_t
expected_na(uint8_t *f, int port, const uint8_t *eth_dst, const uint8_t *target, const uint8_t *dst,
	bool solicited_flag)
{
	return nd_frame(f, eth_dst, dp_ports[port].mac.addr_bytes, target, dst, 255, 136,
		0xa0000000u | (solicited_flag ? 0x40000000u : 0), target,
		dp_ports[port].mac.addr_bytes);
}

static void
test_ip6_ns_for_own_address_gets_na_and_teaches_sender(void)
{
	uint8_t our[16], src[16], group[16], gmac[6], frame[128], want[128];
	struct dp_nd_stats st0, st1;
	struct rte_mbuf *m;
	int32_t nh;
	size_t len;

	dp_nd_stats_get(&st0);
	a6("2001:db8:10::1", our);
	a6("2001:db8:10::7", src);
	solicited(our, group, gmac);
	len = nd_frame(frame, gmac, new_mac, src, group, 255, 135, 0, our, new_mac);
	inject(0, frame, len);
	step();
	m = one_out(0);
	if (m != NULL) {
		len = expected_na(want, 0, new_mac, our, src, true);
		CU_ASSERT_EQUAL(m->pkt_len, len);
		assert_bytes(rte_pktmbuf_mtod(m, uint8_t *), want, len, "NA");
		CU_ASSERT_TRUE(icmp6_cksum_ok(rte_pktmbuf_mtod(m, uint8_t *)));
		rte_pktmbuf_free(m);
	}
	dp_nd_stats_get(&st1);
	CU_ASSERT_EQUAL(st1.ns_in - st0.ns_in, 1);
	CU_ASSERT_EQUAL(st1.na_out - st0.na_out, 1);
	/* RFC 4861 7.2.3: the sender is now a neighbor, with the MAC of its option */
	nh = dp_neigh_find6(src, 0);
	CU_ASSERT(nh > 0);
	if (nh > 0) {
		CU_ASSERT(dp_fwd.nh[nh].flags & DP_FWD_NH_F_RESOLVED);
		CU_ASSERT(memcmp(&dp_fwd.nh[nh].l2.dst_addr, new_mac, 6) == 0);
	}
}

static void
test_ip6_ns_for_link_local_and_dad_probe(void)
{
	uint8_t src[16], group[16], gmac[6], frame[128], want[128], all[16];
	const uint8_t *ll = dp_fwd_ip6.port[2].ll;
	struct rte_mbuf *m;
	size_t len;

	/* for the link-local address, unicast to it */
	a6("fe80::77", src);
	len = nd_frame(
		frame, dp_ports[2].mac.addr_bytes, new_mac, src, ll, 255, 135, 0, ll, new_mac);
	inject(2, frame, len);
	step();
	m = one_out(2);
	if (m != NULL) {
		len = expected_na(want, 2, new_mac, ll, src, true);
		assert_bytes(rte_pktmbuf_mtod(m, uint8_t *), want, len, "NA for link-local");
		rte_pktmbuf_free(m);
	}
	/* a DAD probe (from ::, no option) for our address: defended to all-nodes, S clear */
	solicited(ll, group, gmac);
	len = nd_frame(
		frame, gmac, new_mac, (const uint8_t[16]){ 0 }, group, 255, 135, 0, ll, NULL);
	inject(2, frame, len);
	step();
	m = one_out(2);
	if (m != NULL) {
		a6("ff02::1", all);
		len = expected_na(
			want, 2, (const uint8_t *)"\x33\x33\x00\x00\x00\x01", ll, all, false);
		assert_bytes(rte_pktmbuf_mtod(m, uint8_t *), want, len, "NA to all-nodes");
		rte_pktmbuf_free(m);
	}
}

static void
test_ip6_bad_or_foreign_nd_is_counted(void)
{
	uint8_t our[16], other[16], src[16], group[16], gmac[6];
	static struct drop_case c;

	a6("2001:db8:10::1", our);
	a6("2001:db8:10::55", other);
	a6("2001:db8:10::7", src);
	solicited(other, group, gmac);
	c.port = 0;
	c.why2 = DP_DROP_MAX;

	c.name = "NS for another host (not our group)";
	c.len = nd_frame(c.frame, gmac, new_mac, src, group, 255, 135, 0, other, new_mac);
	c.why = DP_DROP_IP6_MCAST;
	run_drop_case(&c);

	/* the same last 24 bits as 2001:db8:10::1: our group, not our address */
	a6("2001:db8:99::1", other);
	solicited(other, group, gmac);
	c.name = "NS in our group for another address";
	c.len = nd_frame(c.frame, gmac, new_mac, src, group, 255, 135, 0, other, new_mac);
	c.why = DP_DROP_ND_NOT_FOR_US;
	run_drop_case(&c);
	a6("2001:db8:10::55", other);

	solicited(our, group, gmac);
	c.name = "NS with a bad checksum";
	c.len = nd_frame(c.frame, gmac, new_mac, src, group, 255, 135, 0, our, new_mac);
	c.frame[56] ^= 0xff;
	c.why = DP_DROP_ND_BAD;
	run_drop_case(&c);

	c.name = "NS with code 1";
	c.len = nd_frame(c.frame, gmac, new_mac, src, group, 255, 135, 0, our, new_mac);
	c.frame[55] = 1;
	icmp6_cksum_fill(src, group, c.frame + 54, 32);
	c.why = DP_DROP_ND_BAD;
	run_drop_case(&c);

	c.name = "NS with an option of length 0";
	c.len = nd_frame(c.frame, gmac, new_mac, src, group, 255, 135, 0, our, new_mac);
	c.frame[54 + 25] = 0;
	icmp6_cksum_fill(src, group, c.frame + 54, 32);
	c.why = DP_DROP_ND_BAD;
	run_drop_case(&c);

	c.name = "NS for a multicast target";
	c.len = nd_frame(c.frame, gmac, new_mac, src, group, 255, 135, 0, group, new_mac);
	c.why = DP_DROP_ND_BAD;
	run_drop_case(&c);

	c.name = "DAD probe with a source link-layer option";
	c.len = nd_frame(
		c.frame, gmac, new_mac, (const uint8_t[16]){ 0 }, group, 255, 135, 0, our, new_mac);
	c.why = DP_DROP_ND_BAD;
	run_drop_case(&c);

	c.name = "solicited NA to a group";
	a6("ff02::1", group);
	c.len = nd_frame(c.frame, (const uint8_t *)"\x33\x33\x00\x00\x00\x01", new_mac, src, group,
		255, 136, 0x60000000u, src, new_mac);
	c.why = DP_DROP_ND_BAD;
	run_drop_case(&c);

	c.name = "unsolicited NA of a stranger (consumed, nothing created)";
	c.len = nd_frame(c.frame, (const uint8_t *)"\x33\x33\x00\x00\x00\x01", new_mac, other,
		group, 255, 136, 0x20000000u, other, new_mac);
	c.why = DP_DROP_ND_CONSUMED;
	run_drop_case(&c);
	CU_ASSERT(dp_neigh_find6(other, 0) < 0);
}

/* Expect one NS for @p target on @p port: multicast to its solicited-node group. */
static void
assert_ns(int port, const uint8_t *target)
{
	uint8_t group[16], gmac[6], want[128];
	const uint8_t *src = dp_fwd_ip6.port[port].global;
	struct rte_mbuf *m = one_out(port);
	size_t len;

	if (m == NULL)
		return;
	solicited(target, group, gmac);
	len = nd_frame(want, gmac, dp_ports[port].mac.addr_bytes, src, group, 255, 135, 0, target,
		dp_ports[port].mac.addr_bytes);
	CU_ASSERT_EQUAL(m->pkt_len, len);
	assert_bytes(rte_pktmbuf_mtod(m, uint8_t *), want, len, "NS");
	CU_ASSERT_TRUE(icmp6_cksum_ok(rte_pktmbuf_mtod(m, uint8_t *)));
	rte_pktmbuf_free(m);
}

/*
 * A gateway without a MAC: the packet waits on the control lcore, an NS goes
 * out, the solicited NA resolves it and the packet leaves, hop limit - 1.
 */
static void
test_ip6_unresolved_gateway_is_solicited_then_released(void)
{
	uint8_t gw[16], frame[2048], na[128];
	struct rte_mbuf *m;
	size_t len, nlen;

	a6("2001:db8:102::3", gw);
	len = udp_frame(frame, "2001:db8:10::2", "2001:db8:3::1", 30, 6000, 78);
	inject(0, frame, len);
	step();
	assert_ns(2, gw);
	nlen = nd_frame(na, dp_ports[2].mac.addr_bytes, gw3_mac, gw, dp_fwd_ip6.port[2].global, 255,
		136, 0x60000000u, gw, gw3_mac);
	inject(2, na, nlen);
	step();
	m = one_out(2);
	if (m == NULL)
		return;
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, uint8_t *), gw3_mac, 6) == 0);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, uint8_t *) + 6, &dp_ports[2].mac, 6) == 0);
	CU_ASSERT_EQUAL(rte_pktmbuf_mtod(m, uint8_t *)[21], 29);
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, uint8_t *) + 22, frame + 22, len - 22) == 0);
	rte_pktmbuf_free(m);
	/* and the next packet takes the fast path */
	inject(0, frame, len);
	step();
	m = one_out(2);
	if (m != NULL) {
		CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, uint8_t *), gw3_mac, 6) == 0);
		rte_pktmbuf_free(m);
	}
}

/* A destination on a connected prefix: its own neighbor entry, resolved by ND. */
static void
test_ip6_connected_destination_is_resolved_by_nd(void)
{
	uint8_t dst[16], frame[2048], na[128];
	static const uint8_t mac[6] = { 0x02, 0x55, 0, 0, 0, 0x09 };
	struct rte_mbuf *m;
	size_t len, nlen;

	a6("2001:db8:101::9", dst);
	len = udp_frame(frame, "2001:db8:10::2", "2001:db8:101::9", 64, 6001, 78);
	inject(0, frame, len);
	step();
	assert_ns(1, dst);
	nlen = nd_frame(na, dp_ports[1].mac.addr_bytes, mac, dst, dp_fwd_ip6.port[1].global, 255,
		136, 0x60000000u, dst, mac);
	inject(1, na, nlen);
	step();
	m = one_out(1);
	if (m == NULL)
		return;
	CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, uint8_t *), mac, 6) == 0);
	CU_ASSERT_EQUAL(rte_pktmbuf_mtod(m, uint8_t *)[21], 63);
	rte_pktmbuf_free(m);
	/* resolved: the next one goes straight out from the worker */
	inject(0, frame, len);
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
	m = one_out(1);
	if (m != NULL) {
		CU_ASSERT(memcmp(rte_pktmbuf_mtod(m, uint8_t *), mac, 6) == 0);
		rte_pktmbuf_free(m);
	}
}

/*
 * One burst of on-link and routed destinations (ip6_output's bulk neighbor
 * lookup): the resolved host of the test before gets its frames at once, a
 * host not known yet gets one NS while its frames wait, the gateway route is
 * not looked up in the neighbor table at all. Order per destination holds.
 */
static void
test_ip6_onlink_burst_resolved_and_unknown_hosts(void)
{
	static const uint8_t mac9[6] = { 0x02, 0x55, 0, 0, 0, 0x09 };
	static const uint8_t macc[6] = { 0x02, 0x55, 0, 0, 0, 0x0c };
	uint8_t f9[2048], fc[2048], fg[2048], dst_c[16], na[128];
	struct rte_mbuf *out[64];
	unsigned int i, n, to9 = 0, togw = 0, ns = 0, other = 0;
	size_t l9, lc, lg, nlen;

	a6("2001:db8:101::c", dst_c);
	l9 = udp_frame(f9, "2001:db8:10::2", "2001:db8:101::9", 64, 6101, 78);
	lc = udp_frame(fc, "2001:db8:10::2", "2001:db8:101::c", 64, 6102, 78);
	lg = udp_frame(fg, "2001:db8:10::2", "2001:db8:1::3", 64, 6103, 78);
	for (i = 0; i < 12; i++) {
		if (i % 3 == 0)
			inject(0, f9, l9);
		else if (i % 3 == 1)
			inject(0, fc, lc);
		else
			inject(0, fg, lg);
	}
	step();
	n = drain_np(1, out, 64);
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);

		if (memcmp(d, mac9, 6) == 0 && d[21] == 63)
			to9++;
		else if (memcmp(d, gw1_mac, 6) == 0 && d[21] == 63)
			togw++;
		else if (d[0] == 0x33 && d[20] == 58 && d[54] == 135 &&
			 memcmp(d + 62, dst_c, 16) == 0)
			ns++;
		else
			other++;
	}
	rte_pktmbuf_free_bulk(out, n);
	CU_ASSERT_EQUAL(to9, 4);
	CU_ASSERT_EQUAL(togw, 4);
	CU_ASSERT_EQUAL(ns, 1); /* the 4 frames for ::c are held meanwhile */
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_EQUAL(drain_np(0, out, 64), 0);
	/* ::c answers: its 4 frames leave, in order */
	nlen = nd_frame(na, dp_ports[1].mac.addr_bytes, macc, dst_c, dp_fwd_ip6.port[1].global, 255,
		136, 0x60000000u, dst_c, macc);
	inject(1, na, nlen);
	step();
	n = drain_np(1, out, 64);
	CU_ASSERT_EQUAL(n, 4);
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);

		CU_ASSERT(memcmp(d, macc, 6) == 0);
		CU_ASSERT_EQUAL(d[21], 63);
	}
	rte_pktmbuf_free_bulk(out, n);
	drain_free();
}

/* Forwarded IPv6 and multicast ND in one burst: each goes its way (the mixed paths). */
static void
test_ip6_mixed_burst_with_nd(void)
{
	uint8_t f6[2048], ns[128], our[16], src[16], group[16], gmac[6];
	struct rte_mbuf *out[64];
	unsigned int i, n1, n0;
	size_t l6, lns;

	a6("2001:db8:10::1", our);
	a6("2001:db8:10::7", src);
	solicited(our, group, gmac);
	l6 = udp_frame(f6, "2001:db8:10::2", "2001:db8:1::3", 64, 7000, 78);
	lns = nd_frame(ns, gmac, new_mac, src, group, 255, 135, 0, our, new_mac);
	for (i = 0; i < 30; i++) {
		if (i % 10 == 3)
			inject(0, ns, lns);
		else
			inject(0, f6, l6);
	}
	step();
	n1 = drain_np(1, out, 64);
	CU_ASSERT_EQUAL(n1, 27);
	rte_pktmbuf_free_bulk(out, n1);
	n0 = drain_np(0, out, 64);
	CU_ASSERT_EQUAL(n0, 3); /* three NAs */
	rte_pktmbuf_free_bulk(out, n0);
}

/* docs/telemetry.md's drop table names every IPv6, ICMPv6 and ND reason. */
static void
test_ip6_doc_lists_every_reason(void)
{
	static char text[1 << 20];
	const char *src = getenv("DPFWD_SRC") ? getenv("DPFWD_SRC") : DP_SOURCE_DIR;
	char path[PATH_MAX], want[64];
	unsigned int r;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/docs/telemetry.md", src);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	for (r = 0; r < DP_DROP_MAX; r++) {
		const char *name = dp_drop_name(r);

		if (name == NULL) /* a free slot for dp_drop_register() */
			continue;
		if (strncmp(name, "ip6_", 4) != 0 && strncmp(name, "icmp6_", 6) != 0 &&
			strncmp(name, "nd_", 3) != 0)
			continue;
		snprintf(want, sizeof(want), "| `%s` |", name);
		if (strstr(text, want) == NULL)
			fprintf(stderr, "\n  docs/telemetry.md does not list %s\n", name);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	}
}

static void
test_ip6_no_mbuf_leak(void)
{
	dp_graph_worker_flush(worker());
	dp_ctl_poll(dp_ctl_now_ms());
	drain_free();
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), 0);
}

static int
suite_init(void)
{
	if (ring_rig_setup(&rig) < 0)
		return -1;
	/* frames the setup sent (announcements) are not the tests' */
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
	drain_free();
	return 0;
}

static int
suite_cleanup(void)
{
	ring_rig_cleanup(&rig);
	return 0;
}

/* One UDP frame from the host on port0 to @p dst: which port sent it (-1: none). */
static int
forwarded_to(const char *dst)
{
	struct rte_mbuf *out[8];
	uint8_t frame[2048];
	size_t len = udp_frame(frame, "2001:db8:10::2", dst, 64, 4242, 78);
	int port, got = -1;
	unsigned int n;

	inject(0, frame, len);
	step();
	for (port = 1; port < NB_PORTS; port++) {
		n = drain(port, out, 8);
		if (n == 1)
			got = port;
		rte_pktmbuf_free_bulk(out, n);
	}
	drain_free(); /* an ICMPv6 error back on port0, for no route */
	return got;
}

/*
 * dp_fwd_route_reload() from this thread, which is also the worker's: each walk
 * reports a quiescent state, which leaves the worker's RCU counter set, and the
 * reload would wait for another walk forever; between walks it is offline.
 */
static int
reload(const char *path, char *err, size_t errlen)
{
	ring_rig_rcu_offline();
	return dp_fwd_route_reload(path, err, errlen);
}

/* Write the rig's config with @p from replaced by @p to into @p path. */
static void
write_config(const char *path, const char *from, const char *to)
{
	const char *at = strstr(config_text, from);
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(at != NULL && f != NULL);
	fprintf(f, "%.*s%s%s", (int)(at - config_text), config_text, to, at + strlen(from));
	fclose(f);
}

/* A reload (SIGHUP, /dpfwd/route/reload) takes the IPv6 routes of the file too,
 * in a new table swapped in; a file with an error changes neither family. */
static void
test_ip6_route_reload_swaps_the_table(void)
{
	char path[192], bad[192], err[512] = "";
	const struct rte_fib6 *live;

	CU_ASSERT_EQUAL(forwarded_to("2001:db8:2::7"), 2);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9::7"), -1);
	snprintf(path, sizeof(path), "%s/reload6.ini", rig.tmpdir);
	write_config(path, "route = 2001:db8:2::/48 via 2001:db8:102::2 port 2\n",
		"route = 2001:db8:9::/48 via 2001:db8:101::2 port 1\n");
	CU_ASSERT_EQUAL_FATAL(reload(path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9::7"), 1);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:2::7"), -1);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:1::7"), 1);

	snprintf(bad, sizeof(bad), "%s/reload6-bad.ini", rig.tmpdir);
	write_config(bad, "route = 2001:db8:2::/48 via 2001:db8:102::2 port 2\n",
		"route = 2001:db8:9::/48 via 2001:zz8::2 port 1\n");
	live = dp_fwd_ip6.fib;
	CU_ASSERT_TRUE(reload(bad, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "reload6-bad.ini:"));
	CU_ASSERT_PTR_EQUAL(dp_fwd_ip6.fib, live);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9::7"), 1);

	/* back to the rig's own routes */
	CU_ASSERT_EQUAL_FATAL(reload(rig.cfg_path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:2::7"), 2);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9::7"), -1);
	unlink(path);
	unlink(bad);
}

/* /dpfwd/route/add and /del with IPv6 prefixes: made in a copy, swapped in. */
static void
test_ip6_route_add_and_del_while_forwarding(void)
{
	char err[512] = "";

	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9::7"), -1);
	CU_ASSERT_EQUAL_FATAL(ring_rig_route(true, "2001:db8:9::/48 via 2001:db8:102::2 port 2",
				      err, sizeof(err)),
		0);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9::7"), 2);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:1::7"), 1); /* the others are still there */
	/* a more specific one inside it, elsewhere */
	CU_ASSERT_EQUAL_FATAL(ring_rig_route(true, "2001:db8:9:5::/64 via 2001:db8:101::2 port 1",
				      err, sizeof(err)),
		0);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9:5::7"), 1);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9:6::7"), 2);
	CU_ASSERT_EQUAL(ring_rig_route(false, "2001:db8:9::/48", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9:6::7"), -1);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9:5::7"), 1);
	CU_ASSERT_EQUAL(ring_rig_route(false, "2001:db8:9:5::/64", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:9:5::7"), -1);
	/* refusals name the reason, and change nothing */
	CU_ASSERT_EQUAL(ring_rig_route(false, "2001:db8:9::/48", err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no route"));
	CU_ASSERT_EQUAL(ring_rig_route(false, "2001:db8:10::1/128", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "port address"));
	/* a port's address stays the router's own: not replaced by a route */
	CU_ASSERT_EQUAL(ring_rig_route(true, "2001:db8:10::1/128 via 2001:db8:101::2 port 1", err,
				sizeof(err)),
		-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "port address"));
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:10::1"), -1);
	CU_ASSERT_TRUE(ring_rig_route(true, "2001:db8:9::/48 via 2001:db8:102::2 port 9", err,
			       sizeof(err)) < 0);
	CU_ASSERT_EQUAL(forwarded_to("2001:db8:2::7"), 2);
}

static const struct dp_test tests[] = {
	{ "test_ip6_forwards_with_hop_limit_minus_one_and_macs",
		test_ip6_forwards_with_hop_limit_minus_one_and_macs },
	{ "test_ip6_forwards_via_link_local_gateway", test_ip6_forwards_via_link_local_gateway },
	{ "test_ip6_each_bad_packet_has_its_drop_reason",
		test_ip6_each_bad_packet_has_its_drop_reason },
	{ "test_ip6_echo_reply_bytes_and_checksum", test_ip6_echo_reply_bytes_and_checksum },
	{ "test_ip6_echo_reply_link_local_without_trailing_bytes",
		test_ip6_echo_reply_link_local_without_trailing_bytes },
	{ "test_ip6_echo_to_all_nodes_answered_from_unicast",
		test_ip6_echo_to_all_nodes_answered_from_unicast },
	{ "test_ip6_time_exceeded_quotes_the_packet", test_ip6_time_exceeded_quotes_the_packet },
	{ "test_ip6_time_exceeded_of_large_packet_fits_1280",
		test_ip6_time_exceeded_of_large_packet_fits_1280 },
	{ "test_ip6_unreachable_for_no_route", test_ip6_unreachable_for_no_route },
	{ "test_ip6_errors_are_rate_limited", test_ip6_errors_are_rate_limited },
	{ "test_ip6_bad_or_foreign_nd_is_counted", test_ip6_bad_or_foreign_nd_is_counted },
	{ "test_ip6_unresolved_gateway_is_solicited_then_released",
		test_ip6_unresolved_gateway_is_solicited_then_released },
	{ "test_ip6_connected_destination_is_resolved_by_nd",
		test_ip6_connected_destination_is_resolved_by_nd },
	{ "test_ip6_onlink_burst_resolved_and_unknown_hosts",
		test_ip6_onlink_burst_resolved_and_unknown_hosts },
	/* these teach the table neighbors (stale) that it then probes with unicast NS */
	{ "test_ip6_ns_for_own_address_gets_na_and_teaches_sender",
		test_ip6_ns_for_own_address_gets_na_and_teaches_sender },
	{ "test_ip6_ns_for_link_local_and_dad_probe", test_ip6_ns_for_link_local_and_dad_probe },
	{ "test_ip6_mixed_burst_with_nd", test_ip6_mixed_burst_with_nd },
	{ "test_ip6_doc_lists_every_reason", test_ip6_doc_lists_every_reason },
	{ "test_ip6_route_reload_swaps_the_table", test_ip6_route_reload_swaps_the_table },
	{ "test_ip6_route_add_and_del_while_forwarding",
		test_ip6_route_add_and_del_while_forwarding },
	{ "test_ip6_no_mbuf_leak", test_ip6_no_mbuf_leak },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("ip6", tests, suite_init, suite_cleanup);
}
