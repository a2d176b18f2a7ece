/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UDP relay through the real graph (tests/ring_rig.c: EAL on --no-huge,
 * net_ring ports, the worker's graph walked on the test thread). Datagrams go
 * in on a port's RX ring; every byte of what leaves a TX ring is checked
 * (MACs, addresses, ports, TTL / hop limit, both checksums against a full
 * recompute, the payload), and every drop counter when nothing should leave.
 *
 *   clients 198.18.0.0/24, and anything via 198.18.0.254 --- port0 198.18.0.1/24
 *           2001:db8:10::/64                                       2001:db8:10::1/64
 *   backends 198.18.1.2:6000, 198.18.1.3:6001            --- port1 198.18.1.1/24
 *            [2001:db8:11::2]:6000                               2001:db8:11::1/64
 *
 *   [relay0] listen 198.18.0.1:5000 -> backends, from 198.18.1.1:20000-20007 (8 sessions)
 *   [relay1] listen [2001:db8:10::1]:5000 -> backend, from [2001:db8:11::1]:30000-30063
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_drop.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_relay.h"
#include "dp_telemetry.h"
#include "dp_test.h"
#include "relay_priv.h"
#include "ring_rig.h"

#define NB_PORTS 2
#define TIMEOUT  30
#define V4_SLOTS 8

static const uint8_t client_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };     /* 198.18.0.2 */
static const uint8_t gw0_mac[6] = { 0x02, 0, 0, 0, 0, 0xfe };        /* 198.18.0.254 */
static const uint8_t be1_mac[6] = { 0x02, 0, 0, 0, 0x01, 0x02 };     /* 198.18.1.2 */
static const uint8_t be2_mac[6] = { 0x02, 0, 0, 0, 0x01, 0x03 };     /* 198.18.1.3 */
static const uint8_t client6_mac[6] = { 0x02, 0, 0, 0, 0x10, 0x02 }; /* 2001:db8:10::2 */
static const uint8_t be6_mac[6] = { 0x02, 0, 0, 0, 0x11, 0x02 };     /* 2001:db8:11::2 */

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "[mempool]\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_r0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "ip6 = 2001:db8:10::1/64\n"
				  "[port1]\n"
				  "dev = net_ring_r1\n"
				  "ip4 = 198.18.1.1/24\n"
				  "ip6 = 2001:db8:11::1/64\n"
				  "[lcores]\n"
				  "rx = (0,0,1),(1,0,1)\n"
				  "[routes]\n"
				  "route = 0.0.0.0/0 via 198.18.0.254 port 0\n"
				  "route = 198.18.9.0/24 via 198.18.1.2 port 1\n"
				  "[neighbors]\n"
				  "neigh = 198.18.0.2 lladdr 02:00:00:00:00:02 port 0\n"
				  "neigh = 198.18.0.254 lladdr 02:00:00:00:00:fe port 0\n"
				  "neigh = 198.18.1.2 lladdr 02:00:00:00:01:02 port 1\n"
				  "neigh = 198.18.1.3 lladdr 02:00:00:00:01:03 port 1\n"
				  "neigh = 2001:db8:10::2 lladdr 02:00:00:00:10:02 port 0\n"
				  "neigh = 2001:db8:11::2 lladdr 02:00:00:00:11:02 port 1\n"
				  "[relay0]\n"
				  "listen = 198.18.0.1:5000\n"
				  "backend = 198.18.1.2:6000\n"
				  "backend = 198.18.1.3:6001\n"
				  "source = 198.18.1.1\n"
				  "ports = 20000-20007\n"
				  "timeout = 30\n"
				  "[relay1]\n"
				  "listen = [2001:db8:10::1]:5000\n"
				  "backend = [2001:db8:11::2]:6000\n"
				  "source = 2001:db8:11::1\n"
				  "ports = 30000-30063\n"
				  "profile = media\n";

static struct ring_rig rig = {
	.name = "relay",
	.prefix = 'r',
	.nb_ports = NB_PORTS,
	.config_text = config_text,
};

static struct dp_worker *
worker(void)
{
	return dp_workers[0];
}

static uint32_t
ip4(const char *s)
{
	struct in_addr a;

	CU_ASSERT_FATAL(inet_pton(AF_INET, s, &a) == 1);
	return ntohl(a.s_addr);
}

static void
ip6(const char *s, uint8_t out[16])
{
	CU_ASSERT_FATAL(inet_pton(AF_INET6, s, out) == 1);
}

/* ---- frames ---- */

struct pkt {
	int port;          /* config port it arrives on */
	uint32_t src, dst; /* IPv4, host order */
	uint8_t src6[16], dst6[16];
	bool v6;
	uint16_t sport, dport;
	uint8_t ttl, tos;
	uint16_t id;
	uint16_t payload;
	uint32_t seed;     /* payload bytes */
	bool zero_cksum;   /* UDP checksum 0 */
	uint8_t opt_words; /* IPv4 options (NOPs), 32-bit words */
	uint8_t ip_pad;    /* IPv4: bytes (0xee) after the UDP datagram, inside the IP packet */
	bool bad_ip_cksum; /* IPv4: the header checksum off by one bit */
	const uint8_t *smac;
};

static uint8_t
payload_byte(uint32_t seed, size_t i)
{
	return (uint8_t)((seed * 2654435761u + i * 40503u) >> 7);
}

/* A frame for the port's MAC with valid checksums (UDP 0 when asked). */
static size_t
build(uint8_t *f, const struct pkt *p)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_udp_hdr *udp;
	size_t l3len, len, i;

	memcpy(&eth->dst_addr, &dp_ports[p->port].mac, 6);
	memcpy(&eth->src_addr, p->smac ? p->smac : client_mac, 6);
	if (p->v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);

		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		udp = (struct rte_udp_hdr *)(ip + 1);
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)p->tos << 20 | 0x12345);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + p->payload));
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = p->ttl;
		memcpy(ip->src_addr, p->src6, 16);
		memcpy(ip->dst_addr, p->dst6, 16);
		l3len = 40 + 8 + p->payload;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
		const unsigned int ihl = 20 + 4u * p->opt_words;

		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		udp = (struct rte_udp_hdr *)((uint8_t *)ip + ihl);
		ip->version_ihl = (uint8_t)(0x40 | ihl / 4);
		ip->type_of_service = p->tos;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(ihl + 8 + p->payload));
		ip->packet_id = rte_cpu_to_be_16(p->id);
		ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = p->ttl;
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = rte_cpu_to_be_32(p->src);
		ip->dst_addr = rte_cpu_to_be_32(p->dst);
		memset(ip + 1, 1, ihl - 20); /* NOP options */
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		l3len = ihl + 8 + p->payload;
	}
	udp->src_port = rte_cpu_to_be_16(p->sport);
	udp->dst_port = rte_cpu_to_be_16(p->dport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + p->payload));
	for (i = 0; i < p->payload; i++)
		((uint8_t *)(udp + 1))[i] = payload_byte(p->seed, i);
	udp->dgram_cksum = 0;
	if (!p->zero_cksum)
		udp->dgram_cksum = p->v6 ? rte_ipv6_udptcp_cksum((void *)(eth + 1), udp)
					 : rte_ipv4_udptcp_cksum((void *)(eth + 1), udp);
	if (!p->v6 && p->ip_pad != 0) {
		/* after the UDP checksum, which DPDK takes over the IP payload */
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);

		memset((uint8_t *)ip + l3len, 0xee, p->ip_pad);
		l3len += p->ip_pad;
		ip->total_length = rte_cpu_to_be_16((uint16_t)l3len);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (!p->v6 && p->bad_ip_cksum)
		((struct rte_ipv4_hdr *)(eth + 1))->hdr_checksum ^= RTE_BE16(0x0100);
	len = 14 + l3len;
	if (len < 60) {
		memset(f + len, 0, 60 - len);
		len = 60;
	}
	return len;
}

static void
run_graph(void)
{
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
}

/* ---- counters ---- */

static struct dp_relay_stats rs_before;

static void
snap(void)
{
	ring_rig_drops_mark(&rig);
	CU_ASSERT(dp_relay_stats_get(0, &rs_before) == 0);
}

static struct dp_relay_stats
moved(void)
{
	struct dp_relay_stats now, d;

	dp_relay_stats_get(0, &now);
	d.sessions_active = now.sessions_active;
	d.created = now.created - rs_before.created;
	d.expired = now.expired - rs_before.expired;
	d.evicted = now.evicted - rs_before.evicted;
	d.handoffs = now.handoffs - rs_before.handoffs;
	d.handoffs_in = now.handoffs_in - rs_before.handoffs_in;
	d.to_backend = now.to_backend - rs_before.to_backend;
	d.to_client = now.to_client - rs_before.to_client;
	return d;
}

/* One packet in; the one packet that left by @p out_port (NULL, and asserted, if not). */
/* Every session expires (the sweep runs in the walks), then a snapshot of the counters. */
static void
start_empty(void)
{
	dp_relay_clock_advance(TIMEOUT + 1);
	dp_graph_worker_run(worker(), 64);
	snap();
}

static struct rte_mbuf *
one_out(const struct pkt *p, int out_port)
{
	static uint8_t f[2048];
	struct rte_mbuf *out[4];
	size_t len = build(f, p);
	unsigned int n;

	ring_rig_inject(&rig, p->port, f, len);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1 - out_port), 0);
	n = ring_rig_drain(&rig, out_port, out, 4);
	CU_ASSERT_EQUAL(n, 1);
	if (n != 1) {
		rte_pktmbuf_free_bulk(out, n);
		return NULL;
	}
	return out[0];
}

/* One packet in, nothing out anywhere, one drop of reason @p why. */
static void
nothing_out(const struct pkt *p, enum dp_drop_reason why)
{
	static uint8_t f[2048];
	size_t len = build(f, p);

	snap();
	ring_rig_inject(&rig, p->port, f, len);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, why), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
}

/*
 * What @p in should have become: every byte of @p m. The IP header as sent
 * except addresses, TTL 64 and checksum; UDP ports and checksum; the payload.
 * Returns the relay port (source port of a packet to a backend).
 */
static void
check_out(struct rte_mbuf *m, const struct pkt *in, const uint8_t *dmac, int out_port,
	const void *src, const void *dst, uint16_t sport, uint16_t dport)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *l3 = f + 14;
	const struct rte_udp_hdr *udp;
	const uint8_t *pl;
	uint16_t ck;
	size_t i, l3len;

	CU_ASSERT_FATAL(m->nb_segs == 1);
	CU_ASSERT(memcmp(f, dmac, 6) == 0);
	CU_ASSERT(memcmp(f + 6, &dp_ports[out_port].mac, 6) == 0);
	if (in->v6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		CU_ASSERT_EQUAL(dp_pkt_get16(f + 12), RTE_ETHER_TYPE_IPV6);
		CU_ASSERT_EQUAL(rte_be_to_cpu_32(ip->vtc_flow),
			6u << 28 | (uint32_t)in->tos << 20 | 0x12345);
		CU_ASSERT_EQUAL(rte_be_to_cpu_16(ip->payload_len), 8 + in->payload);
		CU_ASSERT_EQUAL(ip->proto, IPPROTO_UDP);
		CU_ASSERT_EQUAL(ip->hop_limits, 64);
		CU_ASSERT(memcmp(ip->src_addr, src, 16) == 0);
		CU_ASSERT(memcmp(ip->dst_addr, dst, 16) == 0);
		udp = (const struct rte_udp_hdr *)(ip + 1);
		l3len = 48 + in->payload;
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		const unsigned int ihl = 20 + 4u * in->opt_words;
		struct rte_ipv4_hdr copy[4]; /* room for 60 bytes */

		CU_ASSERT_EQUAL(dp_pkt_get16(f + 12), RTE_ETHER_TYPE_IPV4);
		CU_ASSERT_EQUAL(ip->version_ihl, 0x40 | ihl / 4);
		CU_ASSERT_EQUAL(ip->type_of_service, in->tos);
		CU_ASSERT_EQUAL(
			rte_be_to_cpu_16(ip->total_length), ihl + 8 + in->payload + in->ip_pad);
		CU_ASSERT_EQUAL(rte_be_to_cpu_16(ip->packet_id), in->id);
		CU_ASSERT_EQUAL(ip->fragment_offset, RTE_BE16(RTE_IPV4_HDR_DF_FLAG));
		CU_ASSERT_EQUAL(ip->time_to_live, 64);
		CU_ASSERT_EQUAL(ip->next_proto_id, IPPROTO_UDP);
		CU_ASSERT_EQUAL(rte_be_to_cpu_32(ip->src_addr), *(const uint32_t *)src);
		CU_ASSERT_EQUAL(rte_be_to_cpu_32(ip->dst_addr), *(const uint32_t *)dst);
		for (i = 20; i < ihl; i++)
			CU_ASSERT_EQUAL(l3[i], 1);
		/* the header checksum equals a full recompute */
		memcpy(copy, ip, ihl);
		copy[0].hdr_checksum = 0;
		CU_ASSERT_EQUAL(rte_ipv4_cksum(copy), ip->hdr_checksum);
		udp = (const struct rte_udp_hdr *)(l3 + ihl);
		l3len = ihl + 8 + in->payload;
		for (i = 0; i < in->ip_pad; i++)
			CU_ASSERT_EQUAL(l3[l3len + i], 0xee);
	}
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(udp->src_port), sport);
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(udp->dst_port), dport);
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(udp->dgram_len), 8 + in->payload);
	CU_ASSERT_EQUAL(m->pkt_len, RTE_MAX(14 + l3len + in->ip_pad, (size_t)60));
	pl = (const uint8_t *)(udp + 1);
	for (i = 0; i < in->payload; i++)
		if (pl[i] != payload_byte(in->seed, i)) {
			CU_FAIL("payload changed");
			break;
		}
	if (in->zero_cksum && !in->v6) {
		CU_ASSERT_EQUAL(udp->dgram_cksum, 0); /* "no checksum" stays so */
		return;
	}
	/* the UDP checksum equals a full recompute over the new pseudo-header */
	{
		static uint8_t copy[2048];
		struct rte_udp_hdr *cu;

		memcpy(copy, l3, l3len);
		/* DPDK sums what the IP header holds: the datagram alone (no padding) */
		if (!in->v6)
			((struct rte_ipv4_hdr *)copy)->total_length =
				rte_cpu_to_be_16((uint16_t)l3len);
		cu = (struct rte_udp_hdr *)(copy + ((const uint8_t *)udp - l3));
		cu->dgram_cksum = 0;
		ck = in->v6 ? rte_ipv6_udptcp_cksum((const void *)copy, cu)
			    : rte_ipv4_udptcp_cksum((const void *)copy, cu);
		CU_ASSERT_EQUAL(ck, udp->dgram_cksum);
	}
}

static struct pkt
client4(uint16_t cport, uint16_t payload)
{
	struct pkt p = { .port = 0,
		.src = ip4("198.18.0.2"),
		.dst = ip4("198.18.0.1"),
		.sport = cport,
		.dport = 5000,
		.ttl = 17,
		.tos = 0x28,
		.id = 0x4242,
		.payload = payload,
		.seed = cport };

	return p;
}

/* Backend @p be (1 or 2) answers relay port @p rport. */
static struct pkt
backend4(int be, uint16_t rport, uint16_t payload)
{
	struct pkt p = { .port = 1,
		.src = be == 1 ? ip4("198.18.1.2") : ip4("198.18.1.3"),
		.dst = ip4("198.18.1.1"),
		.sport = be == 1 ? 6000 : 6001,
		.dport = rport,
		.ttl = 3,
		.tos = 0,
		.id = 7,
		.payload = payload,
		.seed = rport * 7u,
		.smac = be == 1 ? be1_mac : be2_mac };

	return p;
}

/* A client datagram through the relay: checked; returns the relay port and the backend. */
static uint16_t
client_to_backend(const struct pkt *p, int *be)
{
	struct rte_mbuf *m = one_out(p, 1);
	const uint8_t *f;
	uint32_t src = ip4("198.18.1.1"), dst;
	uint16_t rport;

	if (m == NULL)
		return 0;
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	rport = dp_pkt_get16(f + 14 + 20 + 4 * p->opt_words);
	dst = dp_pkt_get32(f + 30);
	*be = dst == ip4("198.18.1.2") ? 1 : 2;
	CU_ASSERT(dst == ip4("198.18.1.2") || dst == ip4("198.18.1.3"));
	CU_ASSERT(rport >= 20000 && rport <= 20007);
	check_out(m, p, *be == 1 ? be1_mac : be2_mac, 1, &src, &dst, rport, *be == 1 ? 6000 : 6001);
	rte_pktmbuf_free(m);
	return rport;
}

/* ---- tests ---- */

static void
test_relay_config_errors_name_file_and_line(void)
{
	static const struct {
		const char *text; /* after a valid port section */
		const char *want; /* in the message, after "file:line: " */
		int line;
	} cases[] = {
		{ "[relay0]\nbackend = 198.18.1.2:6000\n", "has no 'listen", 7 },
		{ "[relay0]\nlisten = 198.18.0.1:5000\n", "has no 'backend", 7 },
		{ "[relay0]\nlisten = 198.18.0.1\n", "bad listen address", 7 },
		{ "[relay0]\nlisten = 198.18.0.1:0\n", "bad listen address", 7 },
		{ "[relay0]\nlisten = 198.18.0.9:5000\nbackend = 198.18.1.2:1\n",
			"is not the ip4 address of any [portN]", 7 },
		{ "[relay0]\nlisten = 198.18.0.1:5000\nbackend = [2001:db8::2]:1\n",
			"backend is IPv6 but listen is IPv4", 8 },
		{ "[relay0]\nlisten = 198.18.0.1:5000\nbackend = 198.18.1.2:1\nports = 9-10\n",
			"ports '9-10' must be LOW-HIGH", 9 },
		{ "[relay0]\nlisten = 198.18.0.1:5000\nbackend = 198.18.1.2:1\nports = 30000-30009\n"
		  "max_sessions = 11\n",
			"max_sessions 11 is more than the 10 relay ports", 10 },
		{ "[relay0]\nlisten = 198.18.0.1:5000\nbackend = 198.18.1.2:1\nprofile = voip\n",
			"profile 'voip' unknown", 9 },
		{ "[relay0]\nlisten = 198.18.0.1:5000\nbackend = 198.18.1.2:1\ncolour = red\n",
			"unknown key 'colour' in [relay0]", 9 },
		{ "[relay0]\nlisten = 198.18.0.1:5000\nbackend = 198.18.1.2:1\n[relay1]\n"
		  "listen = 198.18.0.1:5001\nbackend = 198.18.1.2:1\n",
			"overlap those of [relay0]", 10 },
		{ "[relay0]\nlisten = 198.18.0.1:20001\nbackend = 198.18.1.2:1\n",
			"listen port 20001 is inside the relay ports", 7 },
		{ "[relay9]\nlisten = 198.18.0.1:5000\n", "bad relay section [relay9]", 7 },
		{ "[relay0]\nlisten = 198.18.0.1:5000\nbackend = 198.18.0.1:1\n",
			"is an address of dpfwd itself", 8 },
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		char path[] = "/tmp/dpfwd-test-relay-cfg-XXXXXX";
		char err[DP_CONFIG_ERR_LEN], want[DP_CONFIG_ERR_LEN];
		struct dp_config cfg;
		int fd = mkstemp(path);
		FILE *f;
		int rc;

		CU_ASSERT_FATAL(fd >= 0);
		f = fdopen(fd, "w");
		fprintf(f,
			"[port0]\ndev = net_null0\nip4 = 198.18.0.1/24\n[lcores]\nrx = (0,0,1)\n%s",
			cases[i].text);
		fclose(f);
		dp_config_init(&cfg);
		err[0] = '\0';
		rc = dp_config_load(&cfg, path, err, sizeof(err));
		if (rc == 0)
			rc = dp_config_validate(&cfg, err, sizeof(err));
		snprintf(want, sizeof(want), "%s:%d: ", path, cases[i].line);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		if (strncmp(err, want, strlen(want)) != 0 || strstr(err, cases[i].want) == NULL) {
			fprintf(stderr, "\n  case %u: got '%s', want '%s...%s'\n", i, err, want,
				cases[i].want);
			CU_FAIL("config error message");
		}
		dp_config_free(&cfg);
		unlink(path);
	}
}

static void
test_relay_config_values(void)
{
	const struct dp_relay_config *r0 = dp_relay_config(&rig.cfg, 0),
				     *r1 = dp_relay_config(&rig.cfg, 1);

	CU_ASSERT_FALSE(dp_relay_config(&rig.cfg, 2)->defined);
	CU_ASSERT_EQUAL(r0->timeout_s, TIMEOUT);
	CU_ASSERT_EQUAL(r0->max_sessions, 8); /* default: one per relay port */
	CU_ASSERT_EQUAL(r0->nb_backends, 2);
	CU_ASSERT_EQUAL(r1->timeout_s, 60); /* profile = media */
	CU_ASSERT_TRUE(r1->ip6);
	CU_ASSERT_EQUAL(dp_relay_nb_services(), 2);
	CU_ASSERT_EQUAL(dp_relay_worker_capacity(0, 0), V4_SLOTS);
	CU_ASSERT_EQUAL(dp_relay_port_of(0, 0, 7), 20007);
	CU_ASSERT_EQUAL(dp_relay_port_of(0, 0, 8), 0);
}

/* A client datagram out to its backend, the backend's answer back to the client: every byte. */
static void
test_relay_client_to_backend_and_back(void)
{
	struct pkt c = client4(40001, 100);
	struct pkt b;
	struct rte_mbuf *m;
	uint32_t listen = ip4("198.18.0.1"), client = ip4("198.18.0.2");
	uint16_t rport, rport2;
	int be, be2;

	snap();
	rport = client_to_backend(&c, &be);
	CU_ASSERT_EQUAL(moved().created, 1);
	CU_ASSERT_EQUAL(moved().to_backend, 1);
	/* the same client again: the same session (relay port, backend) */
	c.payload = 3;
	rport2 = client_to_backend(&c, &be2);
	CU_ASSERT_EQUAL(rport2, rport);
	CU_ASSERT_EQUAL(be2, be);
	CU_ASSERT_EQUAL(moved().created, 1);

	b = backend4(be, rport, 333);
	m = one_out(&b, 0);
	if (m != NULL) {
		check_out(m, &b, client_mac, 0, &listen, &client, 5000, 40001);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(moved().to_client, 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/* Packets a node of worker 0's graph has taken so far. */
static uint64_t
node_pkts(const char *name)
{
	struct rte_node *n = rte_graph_node_get_by_name(dp_workers[0]->graph->name, name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	return n->total_objs;
}

/*
 * ip4_fwd's shortcut (relay_fp.h): a datagram of a cached session that was
 * seen this second is rewritten in ip4_fwd and never reaches relay4; the
 * first of a session (a new one, its next hop looked up), the second (sent
 * by relay4, it readies the cache entry) and the first of each new second
 * (the LRU list moves) go through relay4. Either way the same bytes leave (checked).
 */
static void
test_relay_cached_session_takes_ip4_fwd_shortcut(void)
{
	struct pkt c = client4(40200, 50);
	uint64_t r0 = node_pkts("relay4"), s0 = node_pkts("relay4_shortcut");
	uint16_t rport;
	int be, i;

	snap();
	rport = client_to_backend(&c, &be); /* new session: relay4 */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 1);
	CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport); /* into the cache: relay4 */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 2);
	for (i = 0; i < 3; i++) {
		c.payload = (uint8_t)(10 + i);
		CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport);
	}
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 2); /* all three by the shortcut */
	/* ip4_fwd's fast match counts them in its own row */
	CU_ASSERT_EQUAL(node_pkts("relay4_shortcut"), s0 + 3);
	dp_relay_clock_advance(1);
	CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport); /* a new second: relay4 */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 3);
	CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport); /* then the shortcut again */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 3);
	CU_ASSERT_EQUAL(node_pkts("relay4_shortcut"), s0 + 4);
	CU_ASSERT_EQUAL(moved().created, 1);
	CU_ASSERT_EQUAL(moved().to_backend, 7);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/*
 * Before the cache, ip4_fwd checks a datagram only as far as the cache's key
 * does not vouch for it (ip4_fast_to()): a cached session's datagram with
 * TTL 1 is relayed by the shortcut (local delivery has no TTL test; it leaves
 * with the relay's own), one with a bad header checksum is dropped and
 * counted, and a martian source with the session's ports is dropped as
 * martian: its key is not the session's, so the cache never vouches for it.
 */
static void
test_relay_shortcut_checks_what_the_key_does_not_say(void)
{
	struct pkt c = client4(40300, 30);
	uint16_t rport;
	uint64_t r0;
	int be;

	snap();
	rport = client_to_backend(&c, &be);
	CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport); /* the entry ready */
	r0 = node_pkts("relay4");
	c.ttl = 1;
	CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport); /* TTL 64 out: check_out() */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0);
	c.ttl = 17;
	c.bad_ip_cksum = true;
	nothing_out(&c, DP_DROP_IP4_CKSUM);
	c.bad_ip_cksum = false;
	c.src = ip4("127.0.0.2");
	nothing_out(&c, DP_DROP_IP4_MARTIAN);
	c.src = ip4("0.0.0.2");
	nothing_out(&c, DP_DROP_IP4_MARTIAN);
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0);
	c = client4(40300, 31);
	CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport);
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0);
}

/*
 * Client ports whose keys share a pair (and so a set) of worker 0's cache
 * (@p v6: the IPv6 one): the pair's index adds the key's ports to the CRC of
 * its addresses (relay_emc_index()), so ports a pair count apart take one. Checked
 * against the cache's own function for @p port and the RELAY_EMC_WAYS after it.
 */
static uint16_t
colliding_port_stride(bool v6, uint16_t port)
{
	const struct relay_worker *rw = relay_workers[0];
	const uint32_t sets = (v6 ? rw->emc6_mask : rw->emc_mask) + 1;
	union relay_anykey k;
	uint32_t set0 = 0, i;

	CU_ASSERT_FATAL(port + RELAY_EMC_WAYS * sets <= UINT16_MAX);
	for (i = 0; i <= RELAY_EMC_WAYS; i++) {
		uint32_t set;

		memset(&k, 0, sizeof(k));
		if (v6) {
			ip6("2001:db8:10::2", k.k.remote);
			ip6("2001:db8:10::1", k.k.local);
			k.k.rport = rte_cpu_to_be_16((uint16_t)(port + i * sets));
			k.k.lport = rte_cpu_to_be_16(5000);
			k.k.ip6 = 1;
		} else {
			k.k4.remote = rte_cpu_to_be_32(ip4("198.18.0.2"));
			k.k4.local = rte_cpu_to_be_32(ip4("198.18.0.1"));
			k.k4.rport = rte_cpu_to_be_16((uint16_t)(port + i * sets));
			k.k4.lport = rte_cpu_to_be_16(5000);
		}
		set = relay_emc_set_of(rw, &k, v6);
		if (i == 0)
			set0 = set;
		CU_ASSERT_EQUAL_FATAL(set, set0);
	}
	return (uint16_t)sets;
}

#define WAYS RELAY_EMC_WAYS

/*
 * WAYS + 1 clients whose keys share a set of the IPv4 cache (ports from
 * @p port), in @p p, after the cache is emptied; the first WAYS ones'
 * sessions made and their entries armed (two datagrams each, both through
 * relay4), their relay ports in @p rp. @return relay4's count before them.
 */
static uint64_t
colliding_set(uint16_t port, struct pkt p[WAYS + 1], uint16_t rp[WAYS])
{
	const uint16_t stride = colliding_port_stride(false, port);
	uint64_t r0;
	int be, i, j;

	for (i = 0; i <= WAYS; i++)
		p[i] = client4((uint16_t)(port + i * stride), (uint16_t)(20 + i));
	start_empty();
	r0 = node_pkts("relay4");
	for (i = 0; i < WAYS; i++) {
		rp[i] = client_to_backend(&p[i], &be);                 /* new: relay4 */
		CU_ASSERT_EQUAL(client_to_backend(&p[i], &be), rp[i]); /* into the cache: relay4 */
		for (j = 0; j < i; j++)
			CU_ASSERT_NOT_EQUAL(rp[i], rp[j]);
	}
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 2 * WAYS);
	return r0;
}

/*
 * The cache is WAYS-way set-associative: WAYS sessions whose keys share a
 * set all take ip4_fwd's shortcut, one packet after the other (one way each,
 * the last ways behind the first pair's compares: a direct-mapped cache would
 * send every packet through relay4, each key evicting the other); one more
 * key of the set takes the way armed longest ago (the first's, a second
 * older than the others'), so the others stay in the cache and the first's
 * next datagram goes through relay4 again, to its own session. Every byte
 * checked.
 */
static void
test_relay_cache_set_holds_its_ways_of_colliding_keys(void)
{
	struct pkt p[WAYS + 1];
	uint16_t rp[WAYS], rc;
	const uint64_t r0 = colliding_set(45000, p, rp);
	int be, i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < WAYS; j++)
			CU_ASSERT_EQUAL(client_to_backend(&p[j], &be), rp[j]);
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 2 * WAYS); /* all by the shortcut */

	dp_relay_clock_advance(1);
	for (j = 1; j < WAYS; j++) {
		CU_ASSERT_EQUAL(client_to_backend(&p[j], &be), rp[j]); /* a new second: relay4 */
		CU_ASSERT_EQUAL(client_to_backend(&p[j], &be), rp[j]); /* the shortcut */
	}
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 3 * WAYS - 1);
	rc = client_to_backend(&p[WAYS], &be);
	CU_ASSERT_EQUAL(client_to_backend(&p[WAYS], &be), rc); /* into the first's way */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 3 * WAYS + 1);
	CU_ASSERT_EQUAL(client_to_backend(&p[WAYS], &be), rc);
	for (j = 1; j < WAYS; j++)
		CU_ASSERT_EQUAL(client_to_backend(&p[j], &be), rp[j]);
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 3 * WAYS + 1);
	CU_ASSERT_EQUAL(client_to_backend(&p[0], &be), rp[0]); /* out of the cache: relay4 */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 3 * WAYS + 2);
	CU_ASSERT_EQUAL(moved().created, WAYS + 1);
	/* made and armed, three rounds, the new second, the new key's three, the last round */
	CU_ASSERT_EQUAL(moved().to_backend, 2 * WAYS + 3 * WAYS + 2 * (WAYS - 1) + 3 + WAYS);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/*
 * A set whose ways were all armed this second keeps them: one more key of
 * the set stays out of the cache (relay4 takes its packets) instead of
 * evicting a way at each of its packets, which would send the evicted key
 * through relay4 too, and so on round them all. In the next second the
 * extra key takes the way armed longest ago. Every byte checked.
 */
static void
test_relay_cache_set_in_use_this_second_keeps_its_keys(void)
{
	struct pkt p[WAYS + 1];
	uint16_t rp[WAYS], rc;
	const uint64_t r0 = colliding_set(46000, p, rp);
	int be, i, j;

	rc = client_to_backend(&p[WAYS], &be); /* new: relay4, no room */
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(client_to_backend(&p[WAYS], &be), rc); /* relay4 each */
		for (j = 0; j < WAYS; j++)
			CU_ASSERT_EQUAL(client_to_backend(&p[j], &be), rp[j]); /* the shortcut */
	}
	for (j = 0; j < WAYS; j++)
		CU_ASSERT(rc != rp[j]);
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 2 * WAYS + 4);

	dp_relay_clock_advance(1);
	CU_ASSERT_EQUAL(client_to_backend(&p[WAYS], &be), rc); /* into a way of last second's */
	CU_ASSERT_EQUAL(client_to_backend(&p[WAYS], &be), rc); /* the shortcut */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 2 * WAYS + 5);
	CU_ASSERT_EQUAL(moved().created, WAYS + 1);
	CU_ASSERT_EQUAL(moved().to_backend, 2 * WAYS + 4 + 3 * WAYS + 2);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/* A route change that must work. */
static void
route(bool add, const char *text)
{
	char err[256] = "";

	CU_ASSERT_EQUAL(ring_rig_route(add, text, err, sizeof(err)), 0);
	if (err[0] != '\0')
		fprintf(stderr, "route %s: %s\n", text, err);
}

/*
 * A session keeps its next hop, and a route change takes it away: after a
 * more specific route to the backends, the session's packets follow it; after
 * the backends' host routes are gone, the connected route and the neighbor
 * table find them again. Every packet checked byte-wise (TTL 64, checksums).
 */
static void
test_relay_kept_next_hop_follows_route_changes(void)
{
	struct pkt c = client4(40100, 20);
	uint32_t src = ip4("198.18.1.1"), dst;
	const uint32_t gen0 = dp_fwd.path_gen;
	struct rte_mbuf *m;
	uint16_t rport;
	int be, i;

	snap();
	rport = client_to_backend(&c, &be);
	dst = ip4(be == 1 ? "198.18.1.2" : "198.18.1.3");
	/* the kept next hop, used a few times */
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport);
	route(true, be == 1 ? "198.18.1.2/32 via 198.18.0.254 port 0"
			    : "198.18.1.3/32 via 198.18.0.254 port 0");
	CU_ASSERT(dp_fwd.path_gen != gen0);
	for (i = 0; i < 2; i++) {
		m = one_out(&c, 0);
		if (m != NULL) {
			check_out(m, &c, gw0_mac, 0, &src, &dst, rport, be == 1 ? 6000 : 6001);
			rte_pktmbuf_free(m);
		}
	}
	/* the backend's host route (its static neighbor's) gone: on-link again */
	route(false, be == 1 ? "198.18.1.2/32" : "198.18.1.3/32");
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport);
	CU_ASSERT_EQUAL(moved().created, 1);
	CU_ASSERT_EQUAL(moved().to_backend, 8);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/*
 * A datagram followed by padding inside its IP packet (UDP length short of
 * what the IP header leaves) is not the shortcut's: relay4 relays it, the
 * padding kept, even when its session is cached and ready; the next datagram
 * of the session takes the shortcut again. Every byte checked.
 */
static void
test_relay_ip_padding_goes_through_relay4(void)
{
	struct pkt c = client4(40210, 24);
	uint32_t src = ip4("198.18.1.1"), dst;
	struct rte_mbuf *m;
	uint64_t r0;
	uint16_t rport;
	int be;

	snap();
	rport = client_to_backend(&c, &be);
	dst = ip4(be == 1 ? "198.18.1.2" : "198.18.1.3");
	CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport); /* ready in the cache */
	r0 = node_pkts("relay4");
	c.ip_pad = 6;
	m = one_out(&c, 1);
	if (m != NULL) {
		check_out(m, &c, be == 1 ? be1_mac : be2_mac, 1, &src, &dst, rport,
			be == 1 ? 6000 : 6001);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 1);
	c.ip_pad = 0;
	CU_ASSERT_EQUAL(client_to_backend(&c, &be), rport);
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 1); /* the shortcut */
	CU_ASSERT_EQUAL(moved().to_backend, 4);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/*
 * The shortcut sends from its copy of the next hop's MACs, and a change of
 * them (a learned neighbor's new address) moves dp_fwd.path_gen on: the
 * session's next packet goes through relay4 again, which copies the new MAC,
 * and the shortcut sends with it after. The backend reached through a
 * gateway the router learned (not a static neighbor); every byte checked.
 */
static void
test_relay_shortcut_follows_neighbor_mac(void)
{
	static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x77 };
	static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x78 };
	const rte_be32_t gw = rte_cpu_to_be_32(ip4("198.18.0.99"));
	struct pkt c = client4(40220, 28);
	uint32_t src = ip4("198.18.1.1"), dst;
	const uint8_t *want = mac_a;
	struct rte_mbuf *m;
	uint64_t r0 = 0;
	uint16_t rport;
	char rt[64];
	int be, i;

	dp_neigh_learn(
		4, (const uint8_t *)&gw, 0, (const struct rte_ether_addr *)mac_a, true, true);
	snap();
	rport = client_to_backend(&c, &be);
	dst = ip4(be == 1 ? "198.18.1.2" : "198.18.1.3");
	snprintf(rt, sizeof(rt), "%s/32 via 198.18.0.99 port 0",
		be == 1 ? "198.18.1.2" : "198.18.1.3");
	route(true, rt);
	for (i = 0; i < 6; i++) {
		if (i == 1) /* the route's packet (relay4), then its copy in the cache (relay4) */
			r0 = node_pkts("relay4");
		if (i == 3) {
			CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 1); /* packet 2: the shortcut */
			dp_neigh_learn(4, (const uint8_t *)&gw, 0,
				(const struct rte_ether_addr *)mac_b, true, false);
			want = mac_b;
		}
		m = one_out(&c, 0);
		if (m != NULL) {
			check_out(m, &c, want, 0, &src, &dst, rport, be == 1 ? 6000 : 6001);
			rte_pktmbuf_free(m);
		}
	}
	/* packet 3 through relay4 (its next hop looked up again: the new MAC),
	 * 4 through relay4 (copied into the cache), 5 by the shortcut */
	CU_ASSERT_EQUAL(node_pkts("relay4"), r0 + 3);
	snprintf(rt, sizeof(rt), "%s/32", be == 1 ? "198.18.1.2" : "198.18.1.3");
	route(false, rt);
	CU_ASSERT_EQUAL(moved().to_backend, 7);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/* UDP checksum 0 over IPv4 ("none") is sent as 0, both ways; IP options stay. */
static void
test_relay_ip4_zero_udp_cksum_stays_zero_and_options_stay(void)
{
	struct pkt c = client4(40002, 20);
	struct pkt b;
	struct rte_mbuf *m;
	uint32_t listen = ip4("198.18.0.1"), client = ip4("198.18.0.2");
	uint16_t rport;
	int be;

	c.zero_cksum = true;
	c.opt_words = 2;
	rport = client_to_backend(&c, &be);
	b = backend4(be, rport, 0);
	b.zero_cksum = true;
	m = one_out(&b, 0);
	if (m != NULL) {
		check_out(m, &b, client_mac, 0, &listen, &client, 5000, 40002);
		rte_pktmbuf_free(m);
	}
}

/* Clients are spread over the backends by hash, each always to the same one. */
static void
test_relay_backend_by_client_hash_is_stable(void)
{
	int seen[3] = { 0 }, first[8];
	unsigned int i, round;

	for (round = 0; round < 2; round++)
		for (i = 0; i < 8; i++) {
			struct pkt c = client4((uint16_t)(41000 + i), 10);
			int be = 0;

			client_to_backend(&c, &be);
			if (round == 0) {
				first[i] = be;
				seen[be]++;
			} else {
				CU_ASSERT_EQUAL(be, first[i]);
			}
		}
	CU_ASSERT(seen[1] > 0 && seen[2] > 0);
}

/* Not an open relay: to a relay port without a session, from a backend or anyone else. */
static void
test_relay_backend_without_session_is_dropped(void)
{
	struct pkt c = client4(40003, 10);
	struct pkt b;
	uint16_t rport;
	int be;

	rport = client_to_backend(&c, &be);
	/* the other backend, the right port */
	b = backend4(3 - be, rport, 10);
	nothing_out(&b, DP_DROP_RELAY_NO_SESSION);
	/* the right backend from another port */
	b = backend4(be, rport, 10);
	b.sport = 6999;
	nothing_out(&b, DP_DROP_RELAY_NO_SESSION);
	/* a host that is no backend at all */
	b = backend4(be, rport, 10);
	b.src = ip4("198.18.1.77");
	nothing_out(&b, DP_DROP_RELAY_NO_SESSION);
	/* UDP to the listen port of the other address: no service there */
	c.dst = ip4("198.18.1.1");
	c.port = 1;
	nothing_out(&c, DP_DROP_IP4_LOCAL);
	/* a UDP header that claims more than the packet holds */
	{
		static uint8_t f[256];
		struct pkt p = client4(40004, 10);
		size_t len = build(f, &p);

		f[14 + 20 + 4] = 0x01; /* UDP length 256 + 18 */
		snap();
		ring_rig_inject(&rig, 0, f, len);
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
		CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_RELAY_BAD_UDP), 1);
	}
}

/* An idle session expires: lazily when its next packet comes, or by the sweep. */
static void
test_relay_idle_sessions_expire(void)
{
	struct pkt c = client4(40005, 10);
	struct pkt b;
	uint16_t rport;
	int be;
	uint64_t active;

	rport = client_to_backend(&c, &be);
	dp_relay_clock_advance(TIMEOUT); /* idle exactly the timeout: still alive */
	b = backend4(be, rport, 10);
	snap();
	rte_pktmbuf_free(one_out(&b, 0));
	CU_ASSERT_EQUAL(moved().expired, 0);

	dp_relay_clock_advance(TIMEOUT + 1);
	/* lazy: the backend's packet finds it expired, and there is no session any more */
	snap();
	nothing_out(&b, DP_DROP_RELAY_NO_SESSION);
	CU_ASSERT(moved().expired >= 1);

	/* the sweep: every idle session goes without any packet for it */
	rport = client_to_backend(&c, &be);
	dp_relay_stats_get(0, &rs_before);
	active = rs_before.sessions_active;
	CU_ASSERT(active >= 1);
	dp_relay_clock_advance(TIMEOUT + 1);
	snap();
	dp_graph_worker_run(worker(), 64); /* relay_handoff sweeps every 16 walks */
	CU_ASSERT_EQUAL(moved().expired, active);
	CU_ASSERT_EQUAL(moved().sessions_active, 0);
	/* and the backend may not use the port any more */
	b = backend4(be, rport, 10);
	nothing_out(&b, DP_DROP_RELAY_NO_SESSION);
}

/* Table full: the least recently seen session makes room (evicted); the others live on. */
static void
test_relay_full_table_evicts_least_recently_used(void)
{
	uint16_t rport[V4_SLOTS + 1];
	int be[V4_SLOTS + 1];
	unsigned int i;
	struct pkt b;
	struct rte_mbuf *m;

	start_empty();
	for (i = 0; i < V4_SLOTS; i++) {
		struct pkt c = client4((uint16_t)(42000 + i), 10);

		rport[i] = client_to_backend(&c, &be[i]);
	}
	CU_ASSERT_EQUAL(moved().created, V4_SLOTS);
	CU_ASSERT_EQUAL(moved().evicted, 0);
	CU_ASSERT_EQUAL(moved().sessions_active, V4_SLOTS);
	/* one second later client 0 speaks again: now client 1 is the least recent */
	dp_relay_clock_advance(1);
	{
		struct pkt c = client4(42000, 10);
		int b0;

		CU_ASSERT_EQUAL(client_to_backend(&c, &b0), rport[0]);
	}
	{
		struct pkt c = client4(42000 + V4_SLOTS, 10);

		rport[V4_SLOTS] = client_to_backend(&c, &be[V4_SLOTS]);
	}
	CU_ASSERT_EQUAL(moved().evicted, 1);
	CU_ASSERT_EQUAL(moved().sessions_active, V4_SLOTS);
	CU_ASSERT_EQUAL(rport[V4_SLOTS], rport[1]); /* its relay port, reused */
	/* client 0 still has its session: its backend's answer reaches it */
	b = backend4(be[0], rport[0], 10);
	m = one_out(&b, 0);
	if (m != NULL) {
		CU_ASSERT_EQUAL(dp_pkt_get16(rte_pktmbuf_mtod(m, uint8_t *) + 36), 42000);
		rte_pktmbuf_free(m);
	}
	/* and client 2 too */
	b = backend4(be[2], rport[2], 10);
	m = one_out(&b, 0);
	if (m != NULL) {
		CU_ASSERT_EQUAL(dp_pkt_get16(rte_pktmbuf_mtod(m, uint8_t *) + 36), 42002);
		rte_pktmbuf_free(m);
	}
}

/*
 * The exact-match cache in front of the IPv4 table (relay_priv.h) must lose a
 * session's keys with the session: client U, seen often enough to be cached
 * both ways, is evicted and X takes U's slot and relay port. U's next datagram
 * is then a new session on another port, never sent as X's (a stale cache
 * entry would point at U's old slot, now X's), and X's backend's answer on
 * that port still reaches X.
 */
static void
test_relay_evicted_session_leaves_the_cache(void)
{
	uint16_t uport, xport, again;
	int ube, xbe, be;
	unsigned int i;
	struct pkt b;
	struct rte_mbuf *m;

	start_empty();
	for (i = 0; i < 3; i++) {
		struct pkt u = client4(44000, 10);

		uport = client_to_backend(&u, &ube);
		b = backend4(ube, uport, 10);
		m = one_out(&b, 0); /* the answer: now cached in both directions */
		CU_ASSERT_PTR_NOT_NULL(m);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(moved().created, 1);
	for (i = 1; i < V4_SLOTS; i++) {
		struct pkt c = client4((uint16_t)(44010 + i), 10);

		client_to_backend(&c, &be);
	}
	{
		struct pkt x = client4(44001, 10);

		xport = client_to_backend(&x, &xbe);
	}
	CU_ASSERT_EQUAL(moved().evicted, 1);
	CU_ASSERT_EQUAL(xport, uport); /* U was the least recently seen */
	{
		struct pkt u = client4(44000, 10);

		again = client_to_backend(&u, &be);
	}
	CU_ASSERT_EQUAL(moved().created, V4_SLOTS + 2);
	CU_ASSERT_NOT_EQUAL(again, xport);
	/* X's backend answers on X's port: it reaches X, not U */
	b = backend4(xbe, xport, 10);
	m = one_out(&b, 0);
	if (m != NULL) {
		CU_ASSERT_EQUAL(dp_pkt_get16(rte_pktmbuf_mtod(m, uint8_t *) + 36), 44001);
		rte_pktmbuf_free(m);
	}
}

/*
 * One burst: a backend answers client U, then a new client X takes U's slot
 * (the table is full and U is the least recently seen). U's answer still
 * goes to U's own next hop: U is on-link and unresolved, so it waits for ARP
 * and nothing reaches a client yet; it must not leave for the MAC of X,
 * whose session the slot holds by the time the burst's new destinations
 * are looked up (tests/fuzz/corpus/relay/crash-evicted_session_hop).
 */
static void
test_relay_evicted_in_burst_keeps_its_next_hop(void)
{
	static uint8_t f[2][256];
	unsigned int attempt, i;

	for (attempt = 0; attempt < 3; attempt++) {
		struct pkt u = client4(43000, 10), x = client4(43001, 10), b;
		struct rte_mbuf *m;
		uint16_t rport, xport = 0;
		size_t len[2];
		int be;

		dp_relay_clock_advance(TIMEOUT + 1);
		dp_graph_worker_run(worker(), 64); /* start empty */
		u.src = ip4("198.18.0.77");
		rport = client_to_backend(&u, &be);
		for (i = 1; i < V4_SLOTS; i++) {
			struct pkt c = client4((uint16_t)(43010 + i), 10);
			int unused;

			client_to_backend(&c, &unused);
		}
		b = backend4(be, rport, 10);
		b.port = 0; /* one RX burst, in this order */
		len[0] = build(f[0], &b);
		len[1] = build(f[1], &x);
		snap();
		ring_rig_inject(&rig, 0, f[0], len[0]);
		ring_rig_inject(&rig, 0, f[1], len[1]);
		run_graph();
		CU_ASSERT_EQUAL(moved().evicted, 1);
		CU_ASSERT_EQUAL(moved().to_client, 1);
		CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0), 0);
		if (ring_rig_drain(&rig, 1, &m, 1) == 1) {
			xport = dp_pkt_get16(rte_pktmbuf_mtod(m, uint8_t *) + 14 + 20);
			rte_pktmbuf_free(m);
		}
		/* U's answer, handed to the control lcore for ARP: dropped */
		dp_ctl_stop();
		/* X took U's slot, unless a second went by and U's answer made U recent */
		if (xport == rport)
			break;
	}
	CU_ASSERT(attempt < 3);
}

/*
 * A flood of new sessions (many source ports) fills the table to its limit and
 * evicts: every datagram is still relayed, forwarding goes on in the same
 * bursts, and no buffer is held.
 */
static void
test_relay_flood_of_new_sessions_keeps_flowing(void)
{
	static uint8_t f[256];
	const unsigned int rounds = 40, per_round = 50;
	unsigned int r, i, out1 = 0, fwd = 0;
	struct rte_mbuf *out[256];

	snap();
	for (r = 0; r < rounds; r++) {
		unsigned int n;

		for (i = 0; i < per_round; i++) {
			struct pkt c = client4((uint16_t)(1024 + r * per_round + i), 18);
			size_t len = build(f, &c);

			ring_rig_inject(&rig, 0, f, len);
		}
		/* plain forwarding in between: 198.18.9.x via the backend 198.18.1.2 */
		for (i = 0; i < 5; i++) {
			struct pkt p = client4(9, 18);
			size_t len;

			p.dst = ip4("198.18.9.9");
			p.dport = 9;
			len = build(f, &p);
			ring_rig_inject(&rig, 0, f, len);
		}
		run_graph();
		while ((n = ring_rig_drain(&rig, 1, out, 256)) > 0) {
			for (i = 0; i < n; i++) {
				const uint8_t *q = rte_pktmbuf_mtod(out[i], const uint8_t *);

				if (dp_pkt_get32(q + 30) == ip4("198.18.9.9")) {
					fwd++;
				} else {
					out1++;
					CU_ASSERT(dp_pkt_get16(q + 34) >= 20000 &&
						  dp_pkt_get16(q + 34) <= 20007);
				}
			}
			rte_pktmbuf_free_bulk(out, n);
		}
	}
	CU_ASSERT_EQUAL(out1, rounds * per_round);
	CU_ASSERT_EQUAL(fwd, rounds * 5);
	CU_ASSERT_EQUAL(moved().created, rounds * per_round);
	/* every session made beyond the free slots took the place of the least recent */
	CU_ASSERT_EQUAL(moved().evicted + moved().expired,
		rounds * per_round - (V4_SLOTS - rs_before.sessions_active));
	CU_ASSERT(moved().evicted >= rounds * per_round - V4_SLOTS);
	CU_ASSERT_EQUAL(moved().sessions_active, V4_SLOTS);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0), 0);
	CU_ASSERT_EQUAL(dp_mem_in_use_over_baseline(), 0);
}

static struct pkt
client6(uint16_t cport, uint16_t payload)
{
	struct pkt p = { .port = 0,
		.v6 = true,
		.sport = cport,
		.dport = 5000,
		.ttl = 9,
		.tos = 0xb8,
		.payload = payload,
		.seed = cport * 3u,
		.smac = client6_mac };

	ip6("2001:db8:10::2", p.src6);
	ip6("2001:db8:10::1", p.dst6);
	return p;
}

/* The IPv6 backend answers relay port @p rport (from the relay's source address). */
static struct pkt
backend6(uint16_t rport, uint16_t payload, uint32_t seed)
{
	struct pkt p = { .port = 1,
		.v6 = true,
		.sport = 6000,
		.dport = rport,
		.ttl = 2,
		.payload = payload,
		.seed = seed,
		.smac = be6_mac };

	ip6("2001:db8:11::2", p.src6);
	ip6("2001:db8:11::1", p.dst6);
	return p;
}

/* An IPv6 client datagram through the relay, checked; its relay port (0: none out). */
static uint16_t
client6_to_backend(const struct pkt *c)
{
	uint8_t src[16], be6[16];
	struct rte_mbuf *m = one_out(c, 1);
	uint16_t rport;

	if (m == NULL)
		return 0;
	ip6("2001:db8:11::1", src);
	ip6("2001:db8:11::2", be6);
	rport = dp_pkt_get16(rte_pktmbuf_mtod(m, const uint8_t *) + 54);
	CU_ASSERT(rport >= 30000 && rport <= 30063);
	check_out(m, c, be6_mac, 1, src, be6, rport, 6000);
	rte_pktmbuf_free(m);
	return rport;
}

/*
 * ip6_fwd's checks before the cache, as ip4_fwd's: a cached session's
 * datagram with hop limit 1 is relayed by the shortcut with the relay's own,
 * and a loopback source with the session's ports is dropped.
 */
static void
test_relay_ip6_shortcut_checks_what_the_key_does_not_say(void)
{
	struct pkt c = client6(50301, 40);
	uint16_t rport;
	uint64_t r0;

	snap();
	rport = client6_to_backend(&c);
	CU_ASSERT_EQUAL(client6_to_backend(&c), rport);
	r0 = node_pkts("relay6");
	c.ttl = 1;
	CU_ASSERT_EQUAL(client6_to_backend(&c), rport); /* hop limit 64 out: check_out() */
	CU_ASSERT_EQUAL(node_pkts("relay6"), r0);
	ip6("::1", c.src6);
	nothing_out(&c, DP_DROP_IP6_BAD_SRC);
	ip6("ff02::2", c.src6);
	nothing_out(&c, DP_DROP_IP6_BAD_SRC);
	CU_ASSERT_EQUAL(node_pkts("relay6"), r0);
}

/* The IPv6 cache's sets hold WAYS keys too (as the IPv4 one's), all by the shortcut. */
static void
test_relay_ip6_cache_set_holds_its_ways_of_colliding_keys(void)
{
	const uint16_t stride = colliding_port_stride(true, 51000);
	struct pkt c[WAYS];
	uint16_t rp[WAYS];
	uint64_t r0;
	int i, j;

	start_empty();
	r0 = node_pkts("relay6");
	for (j = 0; j < WAYS; j++) {
		c[j] = client6((uint16_t)(51000 + j * stride), (uint16_t)(30 + j));
		rp[j] = client6_to_backend(&c[j]);
		CU_ASSERT_EQUAL(client6_to_backend(&c[j]), rp[j]);
		CU_ASSERT(rp[j] != 0);
		for (i = 0; i < j; i++)
			CU_ASSERT(rp[i] != rp[j]);
	}
	CU_ASSERT_EQUAL(node_pkts("relay6"), r0 + 2 * WAYS);
	for (i = 0; i < 3; i++)
		for (j = 0; j < WAYS; j++)
			CU_ASSERT_EQUAL(client6_to_backend(&c[j]), rp[j]);
	CU_ASSERT_EQUAL(node_pkts("relay6"), r0 + 2 * WAYS);
	CU_ASSERT_EQUAL(moved().created, WAYS);
	CU_ASSERT_EQUAL(moved().to_backend, 5 * WAYS);
}

/* A link-local client gets no session: its answers could not find their way back. */
static void
test_relay_ip6_link_local_client_gets_no_session(void)
{
	struct pkt c = client6(50002, 40);
	struct rte_mbuf *m;

	ip6("fe80::2", c.src6);
	nothing_out(&c, DP_DROP_IP6_LINK_LOCAL);
	CU_ASSERT_EQUAL(moved().created, 0);
	ip6("febf:ffff::2", c.src6); /* the top of fe80::/10 */
	nothing_out(&c, DP_DROP_IP6_LINK_LOCAL);
	ip6("fec0::2", c.src6); /* beyond it: a session (site-local is gone, RFC 3879) */
	snap();
	m = one_out(&c, 1);
	CU_ASSERT_PTR_NOT_NULL(m);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(moved().created, 1);
}

/* IPv6, both directions: every byte; a zero UDP checksum is dropped (RFC 8200 8.1). */
static void
test_relay_ip6_both_directions(void)
{
	struct pkt c = client6(50001, 77), b;
	uint8_t listen[16], client[16];
	struct rte_mbuf *m;
	uint16_t rport;

	ip6("2001:db8:10::1", listen);
	ip6("2001:db8:10::2", client);
	snap();
	rport = client6_to_backend(&c);
	b = backend6(rport, 1200, 5);
	m = one_out(&b, 0);
	if (m != NULL) {
		check_out(m, &b, client6_mac, 0, listen, client, 5000, 50001);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(moved().to_backend, 1);
	CU_ASSERT_EQUAL(moved().to_client, 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	b.sport = 6001;
	nothing_out(&b, DP_DROP_RELAY_NO_SESSION);
	c.zero_cksum = true;
	nothing_out(&c, DP_DROP_RELAY_UDP6_ZERO_CKSUM);
}

/*
 * A client the relay has no route back to: its datagram reaches the backend, the
 * backend's answer is dropped as relay_no_route. IPv6: a client in 2001:db8:99::/64,
 * which no route or link reaches; IPv4: a client behind the default gateway once the
 * default route is withdrawn; with the route back, the next answer reaches it.
 */
static void
test_relay_answer_without_route_back_is_dropped(void)
{
	struct pkt c6 = client6(50401, 40), c4 = client4(40401, 30), b;
	uint32_t listen = ip4("198.18.0.1"), client = ip4("203.0.113.7");
	struct rte_mbuf *m;
	uint16_t rport;
	int be;

	ip6("2001:db8:99::2", c6.src6);
	rport = client6_to_backend(&c6);
	CU_ASSERT_FATAL(rport != 0);
	b = backend6(rport, 100, 1);
	nothing_out(&b, DP_DROP_RELAY_NO_ROUTE);

	c4.src = client;
	c4.smac = gw0_mac;
	rport = client_to_backend(&c4, &be);
	CU_ASSERT_FATAL(rport != 0);
	route(false, "0.0.0.0/0");
	b = backend4(be, rport, 100);
	nothing_out(&b, DP_DROP_RELAY_NO_ROUTE);
	route(true, "0.0.0.0/0 via 198.18.0.254 port 0");
	snap();
	m = one_out(&b, 0);
	if (m != NULL) {
		check_out(m, &b, gw0_mac, 0, &listen, &client, 5000, 40401);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(moved().to_client, 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
}

/*
 * ip6_fwd's shortcut, as ip4_fwd's: a cached IPv6 session seen this second is
 * relayed by ip6_fwd both ways, relay6 takes the first datagram of each
 * direction and the one that readies the cache; a zero UDP checksum of an
 * established session is still relay6's to drop (RFC 8200 8.1).
 */
static void
test_relay_ip6_cached_session_takes_ip6_fwd_shortcut(void)
{
	struct pkt c = client6(50101, 60), b;
	uint8_t listen[16], client[16];
	uint64_t r0 = node_pkts("relay6");
	struct rte_mbuf *m;
	uint16_t rport = 0;
	int i;

	ip6("2001:db8:10::1", listen);
	ip6("2001:db8:10::2", client);
	snap();
	for (i = 0; i < 5; i++) {
		uint16_t r;

		c.payload = (uint16_t)(60 + i);
		r = client6_to_backend(&c);
		if (i == 0)
			rport = r;
		CU_ASSERT_EQUAL(r, rport);
		/* relay6: the new session, then the datagram that readies the cache */
		CU_ASSERT_EQUAL(node_pkts("relay6"), r0 + (i < 2 ? i + 1 : 2));
	}
	CU_ASSERT_EQUAL(moved().created, 1);
	CU_ASSERT_EQUAL(moved().to_backend, 5);
	c.zero_cksum = true;
	nothing_out(&c, DP_DROP_RELAY_UDP6_ZERO_CKSUM); /* (takes a new snapshot) */
	CU_ASSERT_EQUAL(node_pkts("relay6"), r0 + 3);
	b = backend6(rport, 300, 9);
	for (i = 0; i < 3; i++) {
		m = one_out(&b, 0);
		if (m != NULL) {
			check_out(m, &b, client6_mac, 0, listen, client, 5000, 50101);
			rte_pktmbuf_free(m);
		}
	}
	/* relay6 takes the first answer (its next hop is looked up) and the
	 * second (sent there, it readies the cache entry); the third is the
	 * shortcut's */
	CU_ASSERT_EQUAL(node_pkts("relay6"), r0 + 5);
	CU_ASSERT_EQUAL(moved().created, 0);
	CU_ASSERT_EQUAL(moved().to_client, 3);
}

/*
 * A forwarded datagram as it should leave by port 1 to @p dmac: MACs, TTL /
 * hop limit one less, the IPv4 header checksum a full recompute, addresses,
 * ports, UDP checksum and payload unchanged.
 */
static void
check_forwarded(struct rte_mbuf *m, const struct pkt *in, const uint8_t *dmac)
{
	static uint8_t want[2048];
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const size_t len = build(want, in);

	CU_ASSERT_EQUAL(m->pkt_len, len);
	if (m->pkt_len != len)
		return;
	CU_ASSERT(memcmp(f, dmac, 6) == 0);
	CU_ASSERT(memcmp(f + 6, &dp_ports[1].mac, 6) == 0);
	if (in->v6) {
		CU_ASSERT_EQUAL(f[14 + 7], in->ttl - 1);
		want[14 + 7] = f[14 + 7];
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(want + 14);

		ip->time_to_live = (uint8_t)(in->ttl - 1);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	/* everything after the MACs as sent, but for the TTL and its checksum */
	CU_ASSERT(memcmp(f + 12, want + 12, len - 12) == 0);
}

/*
 * ip4_fwd and ip6_fwd try the relay's cache before the route lookup, and look
 * up only what it did not take: in one burst, datagrams of a cached session
 * (relayed without relay4/relay6) between forwarded ones (looked up, routed,
 * rewritten) all leave right, the relayed first, each flow in the order it
 * came.
 */
static void
test_relay_shortcut_beside_forwarding_in_one_burst(void)
{
	static uint8_t f[2048];
	const bool v6s[] = { false, true };
	unsigned int k;

	for (k = 0; k < DP_ARRAY_SIZE(v6s); k++) {
		const bool v6 = v6s[k];
		const char *rnode = v6 ? "relay6" : "relay4";
		struct pkt c = v6 ? client6(50500, 20) : client4(40500, 20);
		struct pkt fw[2];
		struct rte_mbuf *out[8];
		uint8_t src6[16], be6[16];
		uint32_t src4 = ip4("198.18.1.1"), dst4 = 0;
		uint16_t rport = 0;
		uint64_t r0;
		unsigned int n, i;
		int be = 1;

		ip6("2001:db8:11::1", src6);
		ip6("2001:db8:11::2", be6);
		/* forwarded: a routed destination and an on-link one */
		fw[0] = c;
		fw[1] = c;
		fw[0].dport = fw[1].dport = 53;
		if (v6) {
			ip6("2001:db8:11::2", fw[0].dst6);
			ip6("2001:db8:11::2", fw[1].dst6);
			fw[1].dport = 5000; /* the listen port, at another address */
		} else {
			/* via 198.18.1.2; its last 6 bits those of the relay's
			 * addresses: the filter lets it probe the cache, which misses */
			fw[0].dst = ip4("198.18.9.65");
			fw[1].dst = ip4("198.18.1.3");
			fw[1].dport = 5000;
		}
		start_empty();
		/* the session: new, then the datagram that readies the cache */
		for (i = 0; i < 2; i++) {
			struct rte_mbuf *m = one_out(&c, 1);

			if (m == NULL)
				continue;
			if (i == 0) {
				const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);

				rport = dp_pkt_get16(h + (v6 ? 54 : 34));
				dst4 = dp_pkt_get32(h + 30);
				be = dst4 == ip4("198.18.1.2") ? 1 : 2;
			}
			rte_pktmbuf_free(m);
		}
		r0 = node_pkts(rnode);
		snap();
		/* relayed, forwarded, relayed, forwarded, relayed */
		for (i = 0; i < 5; i++) {
			const struct pkt *p = (i & 1) ? &fw[i / 2] : &c;

			c.payload = (uint16_t)(30 + i);
			c.seed = 100 + i;
			ring_rig_inject(&rig, p->port, f, build(f, p));
		}
		run_graph();
		CU_ASSERT_EQUAL(node_pkts(rnode), r0); /* all three by the shortcut */
		CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0), 0);
		n = ring_rig_drain(&rig, 1, out, DP_ARRAY_SIZE(out));
		CU_ASSERT_EQUAL(n, 5);
		for (i = 0; i < n && n == 5; i++) {
			const uint8_t *h = rte_pktmbuf_mtod(out[i], const uint8_t *);
			const unsigned int l4 = 14 + (v6 ? 40 : 20);
			const uint16_t dport = dp_pkt_get16(h + l4 + 2);
			const unsigned int sent = (uint16_t)(dp_pkt_get16(h + l4 + 4) - 8 - 30);

			/* the relayed first, then the forwarded, each in the order
			 * they came (IPv6's on-link next hops go through ip6_output,
			 * no adjacencies: after ip6_fwd's sends in any case) */
			CU_ASSERT_EQUAL(dport, i == 3           ? 53
					       : i == 4         ? 5000
					       : !v6 && be == 2 ? 6001
								: 6000);
			if (dport == 53 || dport == 5000) {
				check_forwarded(out[i], &fw[dport == 5000],
					v6            ? be6_mac
					: dport == 53 ? be1_mac
						      : be2_mac);
				continue;
			}
			/* relayed: the one of payload 30 + its place in the burst */
			CU_ASSERT_EQUAL(sent, 2 * i);
			c.payload = (uint16_t)(30 + sent);
			c.seed = 100 + sent;
			if (v6)
				check_out(out[i], &c, be6_mac, 1, src6, be6, rport, 6000);
			else
				check_out(out[i], &c, be == 1 ? be1_mac : be2_mac, 1, &src4, &dst4,
					rport, be == 1 ? 6000 : 6001);
		}
		rte_pktmbuf_free_bulk(out, n);
		CU_ASSERT_EQUAL(moved().to_backend, 3);
		CU_ASSERT_EQUAL(moved().created, 0);
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	}
}

/*
 * The incremental checksum updates (precomputed per-session deltas, RFC 1624)
 * against a full recompute, on thousands of random packets through the
 * datapath both ways: random clients (via the default route), ports, lengths,
 * TTLs, identifiers, options; random payloads hit every checksum value.
 */
static void
test_relay_cksum_delta_equals_full_recompute_random(void)
{
	const unsigned int n = 3000;
	unsigned int i, ok = 0;

	srand(1624);
	for (i = 0; i < n; i++) {
		struct pkt c = client4((uint16_t)(1 + rand() % 65535), (uint16_t)(rand() % 600));
		struct pkt b;
		struct rte_mbuf *m;
		uint32_t listen = ip4("198.18.0.1");
		uint16_t rport;
		int be;
		bool v6 = (i % 5) == 4;

		if (v6) {
			uint8_t src[16], be6[16], listen6[16];
			const uint8_t *f;

			/* the client with a neighbor, random ports, lengths, traffic class */
			c = client6(c.sport, c.payload);
			c.seed = (uint32_t)rand();
			c.tos = (uint8_t)rand();
			c.ttl = (uint8_t)(2 + rand() % 254);
			ip6("2001:db8:11::1", src);
			ip6("2001:db8:11::2", be6);
			ip6("2001:db8:10::1", listen6);
			m = one_out(&c, 1);
			if (m == NULL)
				continue;
			f = rte_pktmbuf_mtod(m, const uint8_t *);
			rport = dp_pkt_get16(f + 54);
			check_out(m, &c, be6_mac, 1, src, be6, rport, 6000);
			rte_pktmbuf_free(m);
			b = (struct pkt){ .port = 1,
				.v6 = true,
				.sport = 6000,
				.dport = rport,
				.ttl = 64,
				.payload = (uint16_t)(rand() % 900),
				.seed = (uint32_t)rand(),
				.smac = be6_mac };
			memcpy(b.src6, be6, 16);
			memcpy(b.dst6, src, 16);
			m = one_out(&b, 0);
			if (m == NULL)
				continue;
			check_out(m, &b, client6_mac, 0, listen6, c.src6, 5000, c.sport);
			rte_pktmbuf_free(m);
			ok++;
			continue;
		}
		/* any unicast client outside 198.18.0.0/15, reached via 198.18.0.254 */
		c.src = (uint32_t)(11 + rand() % 100) << 24 | (uint32_t)(rand() & 0xffffff);
		c.smac = gw0_mac;
		c.ttl = (uint8_t)(2 + rand() % 254);
		c.tos = (uint8_t)rand();
		c.id = (uint16_t)rand();
		c.seed = (uint32_t)rand();
		c.opt_words = (uint8_t)(rand() % 8 == 0 ? 1 + rand() % 10 : 0);
		c.zero_cksum = rand() % 16 == 0;
		rport = client_to_backend(&c, &be);
		if (rport == 0)
			continue;
		b = backend4(be, rport, (uint16_t)(rand() % 900));
		b.ttl = (uint8_t)(2 + rand() % 254);
		b.id = (uint16_t)rand();
		b.tos = (uint8_t)rand();
		b.seed = (uint32_t)rand();
		b.zero_cksum = rand() % 16 == 0;
		m = one_out(&b, 0);
		if (m == NULL)
			continue;
		check_out(m, &b, gw0_mac, 0, &listen, &c.src, 5000, c.sport);
		rte_pktmbuf_free(m);
		ok++;
	}
	CU_ASSERT_EQUAL(ok, n);
}

/* /dpfwd/relay/stats (the "relay" section) says what the counters say. */
static void
test_relay_telemetry_section(void)
{
	struct dp_relay_stats st;
	json_t *snapj, *rel, *tot, *w0;

	dp_relay_stats_sum(&st);
	snapj = dp_telemetry_snapshot();
	CU_ASSERT_FATAL(snapj != NULL);
	rel = json_object_get(snapj, "relay");
	CU_ASSERT_FATAL(rel != NULL);
	tot = json_object_get(rel, "total");
	w0 = json_array_get(json_object_get(rel, "workers"), 0);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(rel, "services")), 2);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(
			json_array_get(json_object_get(rel, "services"), 0), "listen")),
		"198.18.0.1:5000");
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(
			json_array_get(json_object_get(rel, "services"), 1), "listen")),
		"[2001:db8:10::1]:5000");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "created")), st.created);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "evicted")), st.evicted);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "expired")), st.expired);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(tot, "pkts_to_backend")), st.to_backend);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(w0, "pkts_to_client")), st.to_client);
	CU_ASSERT(st.created > 0 && st.to_client > 0);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(
				json_object_get(json_object_get(snapj, "drops"), "by_reason"),
				"relay_no_session")),
		dp_graph_drops(DP_DROP_RELAY_NO_SESSION));
	json_decref(snapj);
}

static void
test_relay_no_mbuf_leak(void)
{
	ring_rig_flush_drain_all(&rig);
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
	T(test_relay_config_errors_name_file_and_line),
	T(test_relay_config_values),
	T(test_relay_client_to_backend_and_back),
	T(test_relay_cached_session_takes_ip4_fwd_shortcut),
	T(test_relay_shortcut_checks_what_the_key_does_not_say),
	T(test_relay_cache_set_holds_its_ways_of_colliding_keys),
	T(test_relay_cache_set_in_use_this_second_keeps_its_keys),
	T(test_relay_ip_padding_goes_through_relay4),
	T(test_relay_shortcut_follows_neighbor_mac),
	T(test_relay_kept_next_hop_follows_route_changes),
	T(test_relay_ip4_zero_udp_cksum_stays_zero_and_options_stay),
	T(test_relay_backend_by_client_hash_is_stable),
	T(test_relay_backend_without_session_is_dropped),
	T(test_relay_idle_sessions_expire),
	T(test_relay_full_table_evicts_least_recently_used),
	T(test_relay_evicted_session_leaves_the_cache),
	T(test_relay_evicted_in_burst_keeps_its_next_hop),
	T(test_relay_flood_of_new_sessions_keeps_flowing),
	T(test_relay_ip6_both_directions),
	T(test_relay_answer_without_route_back_is_dropped),
	T(test_relay_ip6_cached_session_takes_ip6_fwd_shortcut),
	T(test_relay_ip6_shortcut_checks_what_the_key_does_not_say),
	T(test_relay_ip6_cache_set_holds_its_ways_of_colliding_keys),
	T(test_relay_shortcut_beside_forwarding_in_one_burst),
	T(test_relay_ip6_link_local_client_gets_no_session),
	T(test_relay_cksum_delta_equals_full_recompute_random),
	T(test_relay_telemetry_section),
	T(test_relay_no_mbuf_leak),
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("relay", tests, suite_init, suite_cleanup);
}
