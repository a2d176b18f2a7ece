/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad input, table-driven: malformed, odd and edge-case frames through the
 * real graph and the control lcore (dp_ctl_poll), on the rig of
 * tests/malformed_rig.h (three net_ring ports, IPv4 and IPv6). Each frame is
 * either forwarded, answered or turned into an ICMP error, and what comes out
 * is checked byte by byte; or nothing comes out of any port. Either way every
 * drop counter (workers' and the control lcore's: dp_graph_drops) moves by
 * exactly what the table says, and at the end the mbufs in use are back at
 * the baseline.
 *
 * With DPFWD_FUZZ_CORPUS_OUT=DIR set, each frame is also written to DIR as a
 * seed for tests/fuzz/fuzz_datapath (format in tests/malformed_rig.h):
 *   DPFWD_FUZZ_CORPUS_OUT=tests/fuzz/corpus/datapath build/tests/test_malformed
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_ctl.h"
#include "dp_drop.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_icmp4.h"
#include "dp_icmp6.h"
#include "dp_mem.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_test.h"
#include "malformed_rig.h"
#include "ring_rig.h"

#define NB_PORTS  MALFORMED_NB_PORTS
#define MAX_FRAME MALFORMED_MAX_FRAME

/* addresses of tests/malformed_rig.h (IPv4 host order) */
#define P0_4        0xc6120001u /* 198.18.0.1, port0 */
#define HOST4       0xc6120002u /* 198.18.0.2, static neighbor on port0 */
#define P1_4        0xc6126501u /* 198.18.101.1, port1 */
#define FAR4        0xc6120107u /* 198.18.1.7, via 198.18.101.2 (port1) */
#define UNROUTED4   0xc612c801u /* 198.18.200.1 */
#define P0_BCAST4   0xc61200ffu /* 198.18.0.255 */
#define P0_6        "\x20\x01\x0d\xb8\x00\x10\0\0\0\0\0\0\0\0\0\x01"
#define HOST6       "\x20\x01\x0d\xb8\x00\x10\0\0\0\0\0\0\0\0\0\x02"
#define P1_6        "\x20\x01\x0d\xb8\x01\x01\0\0\0\0\0\0\0\0\0\x01"
#define FAR6        "\x20\x01\x0d\xb8\x00\x01\0\0\0\0\0\0\0\0\0\x07"
#define UNROUTED6   "\x20\x01\x0d\xb8\x00\x99\0\0\0\0\0\0\0\0\0\x01"
#define ALLNODES6   "\xff\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\x01"
#define ALLROUTERS6 "\xff\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\x02"
#define LL6         "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x07"
#define SN_P0_6     "\xff\x02\0\0\0\0\0\0\0\0\0\x01\xff\0\0\x01" /* solicited-node of ::1 */
#define UNSPEC6     "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"

static const uint8_t host_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t gw_mac[6] = { 0x02, 0, 0, 0, 0x01, 0x02 };
static const uint8_t other_mac[6] = { 0x02, 0, 0, 0, 0x77, 0x77 };
static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mcast4_mac[6] = { 0x01, 0x00, 0x5e, 0, 0, 0x01 };
static const uint8_t mcast6_mac[6] = { 0x33, 0x33, 0, 0, 0, 0x01 };

static struct ring_rig rig = {
	.name = "malformed",
	.prefix = 'q',
	.nb_ports = NB_PORTS,
	.mem_mb = "512",
	.config_text = MALFORMED_CONFIG("q"),
};

/* ---- bytes ---- */

/* the ICMPv6 sum over the pseudo-header (RFC 8200 8.1) and @p len bytes at @p l4 */
static uint16_t
sum6(const uint8_t *ip, const uint8_t *l4, size_t len)
{
	return dp_test_fold(dp_test_sum16(dp_test_sum16(0, ip + 8, 32), l4, len) + (uint32_t)len +
			    IPPROTO_ICMPV6);
}

/* ---- frames ---- */

static size_t
eth(uint8_t *f, const uint8_t *dst, uint16_t type)
{
	static const uint8_t port_mac[6]; /* net_ring ports: 00:00:00:00:00:00 */

	memcpy(f, dst != NULL ? dst : port_mac, 6);
	memcpy(f + 6, host_mac, 6);
	dp_pkt_put16(f + 12, type);
	return 14;
}

static void
ip4_cksum(uint8_t *ip)
{
	size_t ihl = (size_t)(ip[0] & 0xf) * 4;

	ip[10] = ip[11] = 0;
	dp_pkt_put16(ip + 10, (uint16_t)~dp_test_fold(dp_test_sum16(0, ip, ihl)));
}

static void
pattern(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

/* Ethernet to @p dmac (NULL: the port) + IPv4 (no options) + @p plen bytes of payload
 * (UDP: a header, then the pattern). */
static size_t
ip4f(uint8_t *f, const uint8_t *dmac, uint32_t src, uint32_t dst, uint8_t ttl, uint8_t proto,
	size_t plen)
{
	uint8_t *ip = f + eth(f, dmac, 0x0800);

	memset(ip, 0, 20);
	ip[0] = 0x45;
	dp_pkt_put16(ip + 2, (uint16_t)(20 + plen));
	dp_pkt_put16(ip + 4, 0x4242);
	ip[8] = ttl;
	ip[9] = proto;
	dp_pkt_put32(ip + 12, src);
	dp_pkt_put32(ip + 16, dst);
	pattern(ip + 20, plen, proto);
	if (proto == IPPROTO_UDP && plen >= 8) {
		dp_pkt_put16(ip + 20, 4000);
		dp_pkt_put16(ip + 22, 9);
		dp_pkt_put16(ip + 24, (uint16_t)plen);
		dp_pkt_put16(ip + 26, 0);
	}
	ip4_cksum(ip);
	return 34 + plen;
}

/* An ICMPv4 message of @p len bytes (header included) with a right checksum. */
static size_t
icmp4f(uint8_t *f, uint32_t dst, uint8_t ttl, uint8_t type, size_t len)
{
	size_t n = ip4f(f, NULL, HOST4, dst, ttl, IPPROTO_ICMP, len);
	uint8_t *icmp = f + 34;

	icmp[0] = type;
	icmp[1] = 0;
	icmp[2] = icmp[3] = 0;
	dp_pkt_put16(icmp + 4, 0xbeef);
	dp_pkt_put16(icmp + 6, 7);
	dp_pkt_put16(icmp + 2, (uint16_t)~dp_test_fold(dp_test_sum16(0, icmp, len)));
	return n;
}

/* Ethernet + IPv6 + @p plen bytes of payload (pattern; UDP gets a header) */
static size_t
ip6f(uint8_t *f, const uint8_t *dmac, const char *src, const char *dst, uint8_t hl, uint8_t nh,
	size_t plen)
{
	uint8_t *ip = f + eth(f, dmac, 0x86dd);

	dp_pkt_put32(ip, 0x60000000);
	dp_pkt_put16(ip + 4, (uint16_t)plen);
	ip[6] = nh;
	ip[7] = hl;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	pattern(ip + 40, plen, nh);
	if (nh == IPPROTO_UDP && plen >= 8) {
		dp_pkt_put16(ip + 40, 4000);
		dp_pkt_put16(ip + 42, 9);
		dp_pkt_put16(ip + 44, (uint16_t)plen);
		dp_pkt_put16(ip + 46, 0x1234);
	}
	return 54 + plen;
}

/* Set the ICMPv6 checksum of the message right after the IPv6 header. */
static void
icmp6_cksum(uint8_t *f)
{
	uint8_t *ip = f + 14, *icmp = ip + 40;
	size_t len = dp_pkt_get16(ip + 4);

	icmp[2] = icmp[3] = 0;
	dp_pkt_put16(icmp + 2, (uint16_t)~sum6(ip, icmp, len));
}

static size_t
icmp6f(uint8_t *f, const uint8_t *dmac, const char *dst, uint8_t hl, uint8_t type, size_t len)
{
	size_t n = ip6f(f, dmac, HOST6, dst, hl, IPPROTO_ICMPV6, len);
	uint8_t *icmp = f + 54;

	icmp[0] = type;
	icmp[1] = 0;
	dp_pkt_put16(icmp + 4, 0xbeef);
	dp_pkt_put16(icmp + 6, 7);
	icmp6_cksum(f);
	return n;
}

/* An NS from the host for @p target (with a source link-layer option when @p opt_len). */
static size_t
nsf(uint8_t *f, const char *dst, const uint8_t *dmac, const char *target, uint8_t opt_len)
{
	size_t plen = 24 + (opt_len ? 8 : 0);
	size_t n = ip6f(f, dmac, HOST6, dst, 255, IPPROTO_ICMPV6, plen);
	uint8_t *icmp = f + 54;

	memset(icmp, 0, plen);
	icmp[0] = 135;
	memcpy(icmp + 8, target, 16);
	if (opt_len) {
		icmp[24] = 1;
		icmp[25] = opt_len == 0xff ? 0 : opt_len; /* 0xff: a zero length option */
		memcpy(icmp + 26, host_mac, 6);
	}
	icmp6_cksum(f);
	return n;
}

/* An ARP frame from the host: request for @p tip, with the given type and lengths. */
static size_t
arpf(uint8_t *f, const uint8_t *dmac, uint16_t hrd, uint16_t pro, uint8_t hln, uint8_t pln,
	uint16_t op, uint32_t tip)
{
	uint8_t *a = f + eth(f, dmac, 0x0806);

	memset(a, 0, 46);
	dp_pkt_put16(a, hrd);
	dp_pkt_put16(a + 2, pro);
	a[4] = hln;
	a[5] = pln;
	dp_pkt_put16(a + 6, op);
	memcpy(a + 8, host_mac, 6);
	dp_pkt_put32(a + 14, HOST4);
	dp_pkt_put32(a + 24, tip);
	return 60;
}

/* Extension header of @p type, @p len8 8-octet units beyond the first, then @p next. */
static size_t
ext6(uint8_t *p, uint8_t next, uint8_t type, uint8_t len8)
{
	size_t n = type == IPPROTO_FRAGMENT ? 8 : 8u * (len8 + 1u);

	memset(p, 0, n);
	p[0] = next;
	if (type != IPPROTO_FRAGMENT)
		p[1] = len8;
	if (type == IPPROTO_ROUTING)
		p[2] = 4; /* segment routing type, segments left 0: a forwarder does not care */
	if (type == IPPROTO_DSTOPTS || type == IPPROTO_HOPOPTS)
		p[2] = 1, p[3] = (uint8_t)(n - 4); /* one PadN option */
	return n;
}

#define EXT_END 255 /* ends a list of extension header types (0 is Hop-by-Hop) */

/* IPv6 to @p dst with a chain of extension headers @p types (EXT_END-ended), then @p last
 * and 16 bytes of it. */
static size_t
chain6(uint8_t *f, const char *dst, uint8_t hl, const uint8_t *types, uint8_t last)
{
	uint8_t *ip = f + 14, *p = f + 54;
	size_t i, plen = 0;

	ip6f(f, NULL, HOST6, dst, hl, types[0] != EXT_END ? types[0] : last, 0);
	for (i = 0; types[i] != EXT_END; i++)
		plen += ext6(p + plen, types[i + 1] != EXT_END ? types[i + 1] : last, types[i], 0);
	pattern(p + plen, 16, last);
	if (last == IPPROTO_ICMPV6)
		p[plen] = 1; /* destination unreachable: an error */
	plen += 16;
	dp_pkt_put16(ip + 4, (uint16_t)plen);
	return 54 + plen;
}

/* ---- the builders of the table ---- */

static size_t
b_empty(uint8_t *f)
{
	(void)f;
	return 0;
}
static size_t
b_one_byte(uint8_t *f)
{
	f[0] = 0;
	return 1;
}
static size_t
b_eth_13(uint8_t *f)
{
	eth(f, NULL, 0x0800);
	return 13;
}
static size_t
b_eth_only_ip4(uint8_t *f)
{
	return eth(f, NULL, 0x0800);
}
static size_t
b_ip4_19(uint8_t *f)
{
	ip4f(f, NULL, HOST4, FAR4, 64, IPPROTO_UDP, 8);
	return 33;
}
static size_t
b_eth_only_ip6(uint8_t *f)
{
	return eth(f, NULL, 0x86dd);
}
static size_t
b_ip6_39(uint8_t *f)
{
	ip6f(f, NULL, HOST6, FAR6, 64, IPPROTO_UDP, 8);
	return 53;
}
static size_t
b_eth_only_arp(uint8_t *f)
{
	return eth(f, bcast_mac, 0x0806);
}

static size_t
b_arp_27(uint8_t *f)
{
	arpf(f, bcast_mac, 1, 0x0800, 6, 4, 1, P0_4);
	return 14 + 27;
}

static size_t
b_other_host(uint8_t *f)
{
	return ip4f(f, other_mac, HOST4, FAR4, 64, IPPROTO_UDP, 18);
}

static size_t
b_ethertype(uint8_t *f, uint16_t type)
{
	ip4f(f, NULL, HOST4, FAR4, 64, IPPROTO_UDP, 18);
	dp_pkt_put16(f + 12, type);
	return 60;
}

static size_t
b_ethertype_exp(uint8_t *f)
{
	return b_ethertype(f, 0x88b5);
}
static size_t
b_ethertype_8023(uint8_t *f)
{
	return b_ethertype(f, 46);
}
static size_t
b_ethertype_lldp(uint8_t *f)
{
	return b_ethertype(f, 0x88cc);
}

/* a tagged frame: TPID, TCI (VLAN 100), then an IPv4 packet to FAR4 */
static size_t
b_tagged(uint8_t *f, uint16_t tpid)
{
	uint8_t inner[128];
	size_t n = ip4f(inner, NULL, HOST4, FAR4, 64, IPPROTO_UDP, 18);

	memcpy(f, inner, 12);
	dp_pkt_put16(f + 12, tpid);
	dp_pkt_put16(f + 14, 100);
	memcpy(f + 16, inner + 12, n - 12);
	return n + 4;
}

static size_t
b_vlan(uint8_t *f)
{
	return b_tagged(f, 0x8100);
}
static size_t
b_qinq(uint8_t *f)
{
	return b_tagged(f, 0x88a8);
}

static size_t
b_vlan6(uint8_t *f)
{
	uint8_t inner[128];
	size_t n = ip6f(inner, NULL, HOST6, FAR6, 64, IPPROTO_UDP, 18);

	memcpy(f, inner, 12);
	dp_pkt_put16(f + 12, 0x8100);
	dp_pkt_put16(f + 14, 100);
	memcpy(f + 16, inner + 12, n - 12);
	return n + 4;
}

/* IPv4 to FAR4 (forwarded unless changed), @p plen bytes of UDP */
static size_t
fwd4(uint8_t *f, size_t plen)
{
	return ip4f(f, NULL, HOST4, FAR4, 64, IPPROTO_UDP, plen);
}

static size_t
b_ip4_ok(uint8_t *f)
{
	return fwd4(f, 26);
}

static size_t
b_ip4_version6(uint8_t *f)
{
	size_t n = fwd4(f, 26);

	f[14] = 0x65;
	ip4_cksum(f + 14);
	return n;
}

static size_t
b_ihl4(uint8_t *f)
{
	size_t n = fwd4(f, 26);

	f[14] = 0x44;
	ip4_cksum(f + 14);
	return n;
}

static size_t
b_ihl0(uint8_t *f)
{
	size_t n = fwd4(f, 26);

	f[14] = 0x40;
	return n;
}

/* IHL 15 (60 bytes) in a frame with 40 bytes of IP */
static size_t
b_ihl_past_frame(uint8_t *f)
{
	fwd4(f, 20);
	f[14] = 0x4f;
	return 54;
}

static size_t
b_tlen_past_frame(uint8_t *f)
{
	size_t n = fwd4(f, 26);

	dp_pkt_put16(f + 16, (uint16_t)(n - 14 + 1));
	ip4_cksum(f + 14);
	return n;
}

static size_t
b_tlen_below_ihl(uint8_t *f)
{
	size_t n = fwd4(f, 26);

	dp_pkt_put16(f + 16, 19);
	ip4_cksum(f + 14);
	return n;
}

static size_t
b_tlen_zero(uint8_t *f)
{
	size_t n = fwd4(f, 26);

	dp_pkt_put16(f + 16, 0);
	ip4_cksum(f + 14);
	return n;
}

/* total length 28 (an empty UDP datagram) in a 60-byte frame: Ethernet padding */
static size_t
b_ip4_padded(uint8_t *f)
{
	size_t n = fwd4(f, 26);

	dp_pkt_put16(f + 16, 28);
	dp_pkt_put16(f + 38, 8);
	ip4_cksum(f + 14);
	return n;
}

static size_t
b_ip4_cksum(uint8_t *f)
{
	size_t n = fwd4(f, 26);

	f[24] ^= 0x01;
	return n;
}

/* IHL > 5: @p olen bytes of options (NOPs, EOL last) after the 20-byte header */
static size_t
with_options(uint8_t *f, size_t n, size_t olen)
{
	uint8_t *ip = f + 14;

	memmove(ip + 20 + olen, ip + 20, n - 34);
	memset(ip + 20, 1, olen);
	ip[20 + olen - 1] = 0;
	ip[0] = (uint8_t)(0x45 + olen / 4);
	dp_pkt_put16(ip + 2, (uint16_t)(dp_pkt_get16(ip + 2) + olen));
	ip4_cksum(ip);
	return n + olen;
}

static size_t
b_options4(uint8_t *f)
{
	return with_options(f, fwd4(f, 26), 4);
}
static size_t
b_options40(uint8_t *f)
{
	return with_options(f, fwd4(f, 26), 40);
}

static size_t
b_options_echo(uint8_t *f)
{
	return with_options(f, icmp4f(f, P0_4, 64, 8, 40), 8);
}

static size_t
frag4(uint8_t *f, uint32_t dst, uint16_t flags_off)
{
	size_t n = ip4f(f, NULL, HOST4, dst, 64, IPPROTO_UDP, 64);

	dp_pkt_put16(f + 20, flags_off);
	ip4_cksum(f + 14);
	return n;
}

static size_t
b_frag_first(uint8_t *f)
{
	return frag4(f, FAR4, 0x2000);
}
static size_t
b_frag_middle(uint8_t *f)
{
	return frag4(f, FAR4, 0x2000 | 100);
}
static size_t
b_frag_last(uint8_t *f)
{
	return frag4(f, FAR4, 200);
}
static size_t
b_frag_df(uint8_t *f)
{
	return frag4(f, FAR4, 0x4000);
}
static size_t
b_frag_local(uint8_t *f)
{
	return frag4(f, P0_4, 0x2000);
}
static size_t
b_frag_local_last(uint8_t *f)
{
	return frag4(f, P0_4, 7);
}

static size_t
b_frag_ttl1_later(uint8_t *f)
{
	size_t n = frag4(f, FAR4, 0x2000 | 9);

	f[22] = 1;
	ip4_cksum(f + 14);
	return n;
}

static size_t
b_ttl0(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, FAR4, 0, IPPROTO_UDP, 30);
}
static size_t
b_ttl1(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, FAR4, 1, IPPROTO_UDP, 30);
}
static size_t
b_ttl2(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, FAR4, 2, IPPROTO_UDP, 30);
}
static size_t
b_ttl0_echo_local(uint8_t *f)
{
	return icmp4f(f, P0_4, 0, 8, 32);
}
static size_t
b_echo4(uint8_t *f)
{
	return icmp4f(f, P1_4, 64, 8, 56);
}

static size_t
b_echo4_bad_cksum(uint8_t *f)
{
	size_t n = icmp4f(f, P0_4, 64, 8, 56);

	f[40] ^= 0x80;
	return n;
}

static size_t
b_echo4_short(uint8_t *f)
{
	size_t n = icmp4f(f, P0_4, 64, 8, 8);

	/* 4 bytes of ICMP in the datagram, the rest padding */
	dp_pkt_put16(f + 16, 24);
	ip4_cksum(f + 14);
	return n;
}

static size_t
b_no_route4(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, UNROUTED4, 64, 17, 30);
}
static size_t
b_udp_local4(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, P0_4, 64, 17, 30);
}

static size_t
b_mcast4_frame(uint8_t *f)
{
	return ip4f(f, mcast4_mac, HOST4, 0xe0000001u, 1, IPPROTO_UDP, 30);
}

static size_t
b_bcast4_frame(uint8_t *f)
{
	return ip4f(f, bcast_mac, HOST4, 0xffffffffu, 64, IPPROTO_UDP, 30);
}

static size_t
b_bcast4_frame_unicast_ip(uint8_t *f)
{
	return ip4f(f, bcast_mac, HOST4, FAR4, 64, IPPROTO_UDP, 30);
}

static size_t
b_mcast4_unicast_frame(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, 0xe0000005u, 64, IPPROTO_UDP, 30);
}

static size_t
b_limited_bcast4(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, 0xffffffffu, 64, IPPROTO_UDP, 30);
}

static size_t
b_directed_bcast4(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, P0_BCAST4, 64, IPPROTO_UDP, 30);
}

static size_t
b_loopback_src4(uint8_t *f)
{
	return ip4f(f, NULL, 0x7f000001u, FAR4, 64, IPPROTO_UDP, 30);
}

static size_t
b_zero_src4(uint8_t *f)
{
	return ip4f(f, NULL, 0, FAR4, 64, IPPROTO_UDP, 30);
}

static size_t
b_jumbo4(uint8_t *f)
{
	return fwd4(f, 9000 - 20);
}
static size_t
b_jumbo4_max(uint8_t *f)
{
	return fwd4(f, MAX_FRAME - 34);
}
/* one byte longer than the input port's MTU allows */
static size_t
b_too_long4(uint8_t *f)
{
	return fwd4(f, MAX_FRAME - 34 + 1);
}
static size_t
b_jumbo4_ttl1(uint8_t *f)
{
	return ip4f(f, NULL, HOST4, FAR4, 1, 17, 8980);
}
static size_t
b_jumbo4_echo(uint8_t *f)
{
	return icmp4f(f, P0_4, 64, 8, 8980);
}
static size_t
b_split4(uint8_t *f)
{
	return fwd4(f, 200);
}

/* the datagram in the first segment, 30 bytes of padding in the second */
static size_t
b_split4_padding(uint8_t *f)
{
	size_t n = fwd4(f, 100);

	memset(f + n, 0, 30);
	return n + 30;
}

/* ARP */
static size_t
b_arp_ok(uint8_t *f)
{
	return arpf(f, bcast_mac, 1, 0x0800, 6, 4, 1, P0_4);
}
static size_t
b_arp_hln8(uint8_t *f)
{
	return arpf(f, bcast_mac, 1, 0x0800, 8, 4, 1, P0_4);
}
static size_t
b_arp_pln16(uint8_t *f)
{
	return arpf(f, bcast_mac, 1, 0x0800, 6, 16, 1, P0_4);
}
static size_t
b_arp_hrd6(uint8_t *f)
{
	return arpf(f, bcast_mac, 6, 0x0800, 6, 4, 1, P0_4);
}
static size_t
b_arp_pro6(uint8_t *f)
{
	return arpf(f, bcast_mac, 1, 0x86dd, 6, 4, 1, P0_4);
}
static size_t
b_arp_op3(uint8_t *f)
{
	return arpf(f, bcast_mac, 1, 0x0800, 6, 4, 3, P0_4);
}
static size_t
b_arp_op0(uint8_t *f)
{
	return arpf(f, bcast_mac, 1, 0x0800, 6, 4, 0, P0_4);
}
static size_t
b_arp_not_us(uint8_t *f)
{
	return arpf(f, bcast_mac, 1, 0x0800, 6, 4, 1, P1_4);
}
static size_t
b_arp_reply(uint8_t *f)
{
	return arpf(f, NULL, 1, 0x0800, 6, 4, 2, P0_4);
}

static size_t
b_arp_mcast_sha(uint8_t *f)
{
	size_t n = arpf(f, bcast_mac, 1, 0x0800, 6, 4, 1, P0_4);

	f[22] = 0x01; /* sender hardware address: a group */
	return n;
}

static size_t
b_arp_other_host(uint8_t *f)
{
	return arpf(f, other_mac, 1, 0x0800, 6, 4, 1, P0_4);
}

/* a request with nothing after the 28 bytes (a 42-byte frame, no padding) */
static size_t
b_arp_unpadded(uint8_t *f)
{
	arpf(f, bcast_mac, 1, 0x0800, 6, 4, 1, P0_4);
	return 42;
}

/* IPv6 */
static size_t
fwd6(uint8_t *f, size_t plen)
{
	return ip6f(f, NULL, HOST6, FAR6, 64, IPPROTO_UDP, plen);
}

static size_t
b_ip6_ok(uint8_t *f)
{
	return fwd6(f, 26);
}

static size_t
b_ip6_version4(uint8_t *f)
{
	size_t n = fwd6(f, 26);

	f[14] = 0x40;
	return n;
}

static size_t
b_ip6_plen_past(uint8_t *f)
{
	size_t n = fwd6(f, 26);

	dp_pkt_put16(f + 18, 27);
	return n;
}

/* payload length 8 in a 80-byte frame: padding */
static size_t
b_ip6_padded(uint8_t *f)
{
	size_t n = fwd6(f, 26);

	dp_pkt_put16(f + 18, 8);
	dp_pkt_put16(f + 58, 8);
	return n;
}

static size_t
b_hl0(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, FAR6, 0, IPPROTO_UDP, 30);
}
static size_t
b_hl1(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, FAR6, 1, IPPROTO_UDP, 30);
}
static size_t
b_hl2(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, FAR6, 2, IPPROTO_UDP, 30);
}
static size_t
b_no_route6(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, UNROUTED6, 64, 17, 30);
}
static size_t
b_udp_local6(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, P0_6, 64, 17, 30);
}

static size_t
b_mcast_src6(uint8_t *f)
{
	return ip6f(f, NULL, ALLNODES6, FAR6, 64, IPPROTO_UDP, 30);
}

static size_t
b_unspec_dst6(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, UNSPEC6, 64, IPPROTO_UDP, 30);
}

static size_t
b_unspec_src6(uint8_t *f)
{
	return ip6f(f, NULL, UNSPEC6, FAR6, 64, IPPROTO_UDP, 30);
}

static size_t
b_linklocal_dst6(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, LL6, 64, IPPROTO_UDP, 30);
}

static size_t
b_mcast_other6(uint8_t *f)
{
	return ip6f(f, mcast6_mac, HOST6, ALLROUTERS6, 64, IPPROTO_UDP, 30);
}

static size_t
b_l2_bcast6(uint8_t *f)
{
	return ip6f(f, bcast_mac, HOST6, FAR6, 64, IPPROTO_UDP, 30);
}

static size_t
b_echo6(uint8_t *f)
{
	return icmp6f(f, NULL, P1_6, 64, 128, 56);
}
static size_t
b_echo6_allnodes(uint8_t *f)
{
	return icmp6f(f, mcast6_mac, ALLNODES6, 1, 128, 16);
}

static size_t
b_echo6_bad_cksum(uint8_t *f)
{
	size_t n = icmp6f(f, NULL, P0_6, 64, 128, 56);

	f[60] ^= 0x80;
	return n;
}

/* 2 bytes of ICMPv6 */
static size_t
b_icmp6_short(uint8_t *f)
{
	size_t n = icmp6f(f, NULL, P0_6, 64, 128, 8);

	dp_pkt_put16(f + 18, 2);
	return n;
}

static size_t
b_icmp6_unhandled(uint8_t *f)
{
	return icmp6f(f, NULL, P0_6, 64, 133, 16);
}

/* a router-bound echo request behind a destination options header: not parsed */
static size_t
b_echo6_behind_dstopts(uint8_t *f)
{
	static const uint8_t types[] = { IPPROTO_DSTOPTS, EXT_END };

	return chain6(f, P0_6, 64, types, IPPROTO_ICMPV6);
}

static size_t
b_ns_ok(uint8_t *f)
{
	return nsf(f, P0_6, NULL, P0_6, 1);
}
static size_t
b_ns_sn_group(uint8_t *f)
{
	return nsf(f, SN_P0_6, mcast6_mac, P0_6, 1);
}

static size_t
b_ns_hl64(uint8_t *f)
{
	size_t n = nsf(f, P0_6, NULL, P0_6, 1);

	f[21] = 64;
	return n;
}

static size_t
b_ns_opt_len0(uint8_t *f)
{
	return nsf(f, P0_6, NULL, P0_6, 0xff);
}
static size_t
b_ns_opt_past(uint8_t *f)
{
	return nsf(f, P0_6, NULL, P0_6, 2);
}
static size_t
b_ns_not_us(uint8_t *f)
{
	return nsf(f, P0_6, NULL, FAR6, 1);
}
static size_t
b_ns_mcast_target(uint8_t *f)
{
	return nsf(f, P0_6, NULL, ALLNODES6, 1);
}

static size_t
b_ns_bad_cksum(uint8_t *f)
{
	size_t n = nsf(f, P0_6, NULL, P0_6, 1);

	f[57] ^= 1;
	return n;
}

static size_t
b_ns_code1(uint8_t *f)
{
	size_t n = nsf(f, P0_6, NULL, P0_6, 1);

	f[55] = 1;
	icmp6_cksum(f);
	return n;
}

static size_t
b_ns_short(uint8_t *f)
{
	size_t n = nsf(f, P0_6, NULL, P0_6, 0);

	dp_pkt_put16(f + 18, 20);
	icmp6_cksum(f);
	return n;
}

/* an unsolicited NA for the host (a static neighbor): nothing to learn, consumed */
static size_t
b_na_unsolicited(uint8_t *f)
{
	size_t n = nsf(f, ALLNODES6, mcast6_mac, HOST6, 1);

	f[54] = 136;
	f[78] = 2;    /* target link-layer address */
	f[58] = 0x20; /* override */
	icmp6_cksum(f);
	return n;
}

static size_t
b_jumbo6(uint8_t *f)
{
	return fwd6(f, 9000 - 40);
}

static size_t
b_jumbo6_hl1(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, FAR6, 1, 17, 8960);
}
static size_t
b_split6(uint8_t *f)
{
	return fwd6(f, 200);
}
static size_t
b_split6_echo(uint8_t *f)
{
	return icmp6f(f, NULL, P0_6, 64, 128, 300);
}
static size_t
b_split6_hl1(uint8_t *f)
{
	return ip6f(f, NULL, HOST6, FAR6, 1, 17, 300);
}
static size_t
b_split_ns(uint8_t *f)
{
	return nsf(f, P0_6, NULL, P0_6, 1);
}

#define CHAIN(name, hl, last, ...)                                                                 \
	static size_t name(uint8_t *f)                                                             \
	{                                                                                          \
		static const uint8_t types[] = { __VA_ARGS__, EXT_END };                           \
		return chain6(f, FAR6, hl, types, last);                                           \
	}
CHAIN(b_ext_hbh, 64, IPPROTO_UDP, IPPROTO_HOPOPTS)
CHAIN(b_ext_routing, 64, IPPROTO_UDP, IPPROTO_ROUTING)
CHAIN(b_ext_frag, 64, IPPROTO_UDP, IPPROTO_FRAGMENT)
CHAIN(b_ext_dstopts, 64, IPPROTO_UDP, IPPROTO_DSTOPTS)
CHAIN(b_ext_chain, 64, IPPROTO_UDP, IPPROTO_DSTOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT,
	IPPROTO_DSTOPTS)
CHAIN(b_ext_hbh_later, 64, IPPROTO_UDP, IPPROTO_DSTOPTS, IPPROTO_HOPOPTS)
CHAIN(b_ext_unknown, 64, 143, IPPROTO_ROUTING)
CHAIN(b_ext_no_next, 64, 59, IPPROTO_DSTOPTS)
CHAIN(b_ext_chain_hl1, 1, IPPROTO_UDP, IPPROTO_DSTOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT,
	IPPROTO_DSTOPTS)
CHAIN(b_ext_icmp6_err_hl1, 1, IPPROTO_ICMPV6, IPPROTO_ROUTING, IPPROTO_DSTOPTS)
CHAIN(b_ext_unknown_hl1, 1, 143, IPPROTO_DSTOPTS)
CHAIN(b_ext_nine_hl1, 1, IPPROTO_UDP, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
	IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS, IPPROTO_DSTOPTS,
	IPPROTO_DSTOPTS)

/* a later fragment: the upper layer is not in it, so no error about it */
static size_t
b_ext_later_frag_hl1(uint8_t *f)
{
	static const uint8_t types[] = { IPPROTO_FRAGMENT, EXT_END };
	size_t n = chain6(f, FAR6, 1, types, IPPROTO_UDP);

	dp_pkt_put16(f + 54 + 2, 64 << 3); /* offset 64 x 8 bytes */
	return n;
}

/* a destination options header whose length runs past the payload */
static size_t
b_ext_past_end_hl1(uint8_t *f)
{
	static const uint8_t types[] = { IPPROTO_DSTOPTS, EXT_END };
	size_t n = chain6(f, FAR6, 1, types, IPPROTO_UDP);

	f[55] = 200;
	return n;
}

/* ---- the table ---- */

enum out_kind {
	OUT_NONE,
	OUT_FWD4, /**< forwarded to the gateway on port1 */
	OUT_FWD6,
	OUT_ERR4, /**< an ICMP error back to the host on port0 */
	OUT_ERR6,
	OUT_ECHO4, /**< an echo reply back to the host */
	OUT_ECHO6,
	OUT_ARP, /**< the ARP reply to the host */
	OUT_NA,  /**< the neighbor advertisement to the host */
};

struct mcase {
	const char *name;
	size_t (*build)(uint8_t *f);
	enum out_kind out;
	uint8_t type, code; /**< ICMP errors */
	uint8_t split;      /**< first segment's length; 0 = one segment */
	unsigned int nb_drops;
	enum dp_drop_reason drops[2];
};

#define C(fn, ...)                                                                                 \
	{                                                                                          \
#fn, fn, __VA_ARGS__                                                               \
	}
#define DROP(r)     .nb_drops = 1, .drops = { DP_DROP_##r }
#define DROP2(r, s) .nb_drops = 2, .drops = { DP_DROP_##r, DP_DROP_##s }
#define FWD4        .out = OUT_FWD4
#define FWD6        .out = OUT_FWD6
#define ERR4(t, c)  .out = OUT_ERR4, .type = (t), .code = (c)
#define ERR6(t, c)  .out = OUT_ERR6, .type = (t), .code = (c)

static const struct mcase cases[] = {
	/* Ethernet */
	C(b_empty, DROP(L2_TOO_SHORT)),
	C(b_one_byte, DROP(L2_TOO_SHORT)),
	C(b_eth_13, DROP(L2_TOO_SHORT)),
	C(b_other_host, DROP(L2_OTHER_HOST)),
	C(b_ethertype_exp, DROP(NOT_IP4)),
	C(b_ethertype_8023, DROP(NOT_IP4)),
	C(b_ethertype_lldp, DROP(NOT_IP4)),
	C(b_vlan, DROP(VLAN)),
	C(b_qinq, DROP(VLAN)),
	C(b_vlan6, DROP(VLAN)),
	/* IPv4 header checks (RFC 1812 5.2.2), in that order */
	C(b_ip4_ok, FWD4),
	C(b_eth_only_ip4, DROP(IP4_TRUNCATED)),
	C(b_ip4_19, DROP(IP4_TRUNCATED)),
	C(b_ip4_version6, DROP(IP4_VERSION)),
	C(b_ihl4, DROP(IP4_IHL)),
	C(b_ihl0, DROP(IP4_IHL)),
	C(b_ihl_past_frame, DROP(IP4_IHL)),
	C(b_tlen_past_frame, DROP(IP4_LEN)),
	C(b_tlen_below_ihl, DROP(IP4_LEN)),
	C(b_tlen_zero, DROP(IP4_LEN)),
	C(b_ip4_padded, FWD4),
	C(b_ip4_cksum, DROP(IP4_CKSUM)),
	C(b_loopback_src4, DROP(IP4_MARTIAN)),
	C(b_zero_src4, DROP(IP4_MARTIAN)),
	/* IP options: forwarded as they are (ip4_fwd's slow path); an echo reply has none */
	C(b_options4, FWD4),
	C(b_options40, FWD4),
	C(b_options_echo, .out = OUT_ECHO4),
	/* fragments: forwarded; for the router itself: no reassembly */
	C(b_frag_first, FWD4),
	C(b_frag_middle, FWD4),
	C(b_frag_last, FWD4),
	C(b_frag_df, FWD4),
	C(b_frag_local, DROP(IP4_FRAG_LOCAL)),
	C(b_frag_local_last, DROP(IP4_FRAG_LOCAL)),
	C(b_frag_ttl1_later, DROP2(IP4_TTL, ICMP_ERR_FRAGMENT)),
	/* TTL (RFC 1812 5.3.1); to the router itself TTL does not matter (4.2.2.9) */
	C(b_ttl0, ERR4(11, 0), DROP(IP4_TTL)),
	C(b_ttl1, ERR4(11, 0), DROP(IP4_TTL)),
	C(b_ttl2, FWD4),
	C(b_ttl0_echo_local, .out = OUT_ECHO4),
	C(b_no_route4, ERR4(3, 0), DROP(IP4_NO_ROUTE)),
	C(b_udp_local4, DROP(IP4_LOCAL)),
	/* ICMP to the router */
	C(b_echo4, .out = OUT_ECHO4),
	C(b_echo4_bad_cksum, DROP(ICMP_CKSUM)),
	C(b_echo4_short, DROP(ICMP_TRUNCATED)),
	/* multicast and broadcast */
	C(b_mcast4_frame, DROP(L2_MCAST_IP4)),
	C(b_bcast4_frame, DROP(L2_MCAST_IP4)),
	C(b_bcast4_frame_unicast_ip, DROP(L2_MCAST_IP4)),
	C(b_mcast4_unicast_frame, DROP(IP4_MARTIAN)),
	C(b_limited_bcast4, DROP(IP4_MARTIAN)),
	C(b_directed_bcast4, DROP(NEIGH_UNRESOLVED)),
	/* jumbo (up to the data room) and two-segment frames */
	C(b_jumbo4, FWD4),
	C(b_jumbo4_max, FWD4),
	C(b_too_long4, DROP(L2_TOO_LONG)),
	C(b_jumbo4_ttl1, ERR4(11, 0), DROP(IP4_TTL)),
	C(b_jumbo4_echo, .out = OUT_ECHO4),
	/* IPv4 is read from the first segment only: a datagram past it is too long for it */
	C(b_split4, .split = 60, DROP(IP4_LEN)),
	C(b_split4_padding, .split = 148, FWD4),
	/* ARP (RFC 826) */
	C(b_arp_ok, .out = OUT_ARP),
	C(b_arp_unpadded, .out = OUT_ARP),
	C(b_eth_only_arp, DROP(ARP_BAD)),
	C(b_arp_27, DROP(ARP_BAD)),
	C(b_arp_hln8, DROP(ARP_BAD)),
	C(b_arp_pln16, DROP(ARP_BAD)),
	C(b_arp_hrd6, DROP(ARP_BAD)),
	C(b_arp_pro6, DROP(ARP_BAD)),
	C(b_arp_op3, DROP(ARP_BAD)),
	C(b_arp_op0, DROP(ARP_BAD)),
	C(b_arp_mcast_sha, DROP(ARP_BAD)),
	C(b_arp_not_us, DROP(ARP_NOT_FOR_US)),
	C(b_arp_reply, DROP(ARP_CONSUMED)),
	C(b_arp_other_host, DROP(L2_OTHER_HOST)),
	C(b_arp_ok, .split = 30, DROP(ARP_BAD)),
	/* IPv6 header checks (RFC 8200, RFC 4291) */
	C(b_ip6_ok, FWD6),
	C(b_eth_only_ip6, DROP(IP6_TRUNCATED)),
	C(b_ip6_39, DROP(IP6_TRUNCATED)),
	C(b_ip6_version4, DROP(IP6_VERSION)),
	C(b_ip6_plen_past, DROP(IP6_LEN)),
	C(b_ip6_padded, FWD6),
	C(b_mcast_src6, DROP(IP6_BAD_SRC)),
	C(b_unspec_src6, DROP(IP6_BAD_SRC)),
	C(b_unspec_dst6, DROP(IP6_BAD_DST)),
	C(b_linklocal_dst6, DROP(IP6_LINK_LOCAL)),
	C(b_mcast_other6, DROP(IP6_MCAST)),
	C(b_l2_bcast6, DROP(IP6_L2_MCAST)),
	C(b_hl0, ERR6(3, 0), DROP(IP6_HOP_LIMIT)),
	C(b_hl1, ERR6(3, 0), DROP(IP6_HOP_LIMIT)),
	C(b_hl2, FWD6),
	C(b_no_route6, ERR6(1, 0), DROP(IP6_NO_ROUTE)),
	C(b_udp_local6, DROP(IP6_LOCAL)),
	/* extension headers: forwarded as they are, but Hop-by-Hop (first) */
	C(b_ext_hbh, DROP(IP6_HBH)),
	C(b_ext_routing, FWD6),
	C(b_ext_frag, FWD6),
	C(b_ext_dstopts, FWD6),
	C(b_ext_chain, FWD6),
	C(b_ext_hbh_later, FWD6),
	C(b_ext_unknown, FWD6),
	C(b_ext_no_next, FWD6),
	/* ... and walked to decide on an ICMPv6 error (RFC 4443 2.4(e)) */
	C(b_ext_chain_hl1, ERR6(3, 0), DROP(IP6_HOP_LIMIT)),
	C(b_ext_unknown_hl1, ERR6(3, 0), DROP(IP6_HOP_LIMIT)),
	C(b_ext_icmp6_err_hl1, DROP2(IP6_HOP_LIMIT, ICMP6_ERR_ABOUT_ERR)),
	C(b_ext_later_frag_hl1, DROP2(IP6_HOP_LIMIT, ICMP6_ERR_ABOUT_ERR)),
	/* past the end, the next header (UDP) is not read: an error is allowed */
	C(b_ext_past_end_hl1, ERR6(3, 0), DROP(IP6_HOP_LIMIT)),
	C(b_ext_nine_hl1, DROP2(IP6_HOP_LIMIT, ICMP6_ERR_ABOUT_ERR)),
	C(b_echo6_behind_dstopts, DROP(IP6_LOCAL)),
	/* ICMPv6 and ND to the router */
	C(b_echo6, .out = OUT_ECHO6),
	C(b_echo6_allnodes, .out = OUT_ECHO6),
	C(b_echo6_bad_cksum, DROP(ICMP6_CKSUM)),
	C(b_icmp6_short, DROP(ICMP6_TRUNCATED)),
	C(b_icmp6_unhandled, DROP(ICMP6_UNHANDLED)),
	C(b_ns_ok, .out = OUT_NA),
	C(b_ns_sn_group, .out = OUT_NA),
	C(b_ns_hl64, DROP(ND_HOP_LIMIT)),
	C(b_ns_opt_len0, DROP(ND_BAD)),
	C(b_ns_opt_past, DROP(ND_BAD)),
	C(b_ns_bad_cksum, DROP(ND_BAD)),
	C(b_ns_code1, DROP(ND_BAD)),
	C(b_ns_short, DROP(ND_BAD)),
	C(b_ns_mcast_target, DROP(ND_BAD)),
	C(b_ns_not_us, DROP(ND_NOT_FOR_US)),
	C(b_na_unsolicited, DROP(ND_CONSUMED)),
	/* jumbo and two segments */
	C(b_jumbo6, FWD6),
	C(b_jumbo6_hl1, ERR6(3, 0), DROP(IP6_HOP_LIMIT)),
	C(b_split6, .split = 70, FWD6),
	C(b_split6_echo, .split = 100, .out = OUT_ECHO6),
	C(b_split6_hl1, .split = 90, ERR6(3, 0), DROP(IP6_HOP_LIMIT)),
	/* the header across the segments: not in the first one, as if cut short */
	C(b_split6, .split = 40, DROP(IP6_TRUNCATED)),
	C(b_split_ns, .split = 70, DROP(ND_BAD)),
};

/* ---- running one ---- */

static uint8_t frame[MAX_FRAME + 64];
static uint8_t got[MAX_FRAME + 64];
static bool bad;

#define CASE_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "\n  %s: line %d: %s", c->name, __LINE__, #cond);          \
			bad = true;                                                                \
		}                                                                                  \
	} while (0)

/* forwarded to the gateway on port1: MACs, TTL/hop limit - 1, the rest as it came */
static void
check_fwd(const struct mcase *c, const uint8_t *in, size_t len, size_t out_len)
{
	size_t ttl_off = c->out == OUT_FWD4 ? 14 + 8 : 14 + 7;

	CASE_CHECK(out_len == len);
	CASE_CHECK(memcmp(got, gw_mac, 6) == 0);
	CASE_CHECK(memcmp(got + 6, "\0\0\0\0\0\0", 6) == 0);
	CASE_CHECK(memcmp(got + 12, in + 12, ttl_off - 12) == 0);
	CASE_CHECK(got[ttl_off] == in[ttl_off] - 1);
	if (c->out == OUT_FWD4) {
		size_t ihl = (size_t)(in[14] & 0xf) * 4;

		/* the checksum (bytes 24, 25) updated, the rest as it came */
		CASE_CHECK(dp_test_fold(dp_test_sum16(0, got + 14, ihl)) == 0xffff);
		CASE_CHECK(got[23] == in[23]);
		CASE_CHECK(memcmp(got + 26, in + 26, len - 26) == 0);
	} else {
		CASE_CHECK(memcmp(got + ttl_off + 1, in + ttl_off + 1, len - ttl_off - 1) == 0);
	}
}

static void
check_err4(const struct mcase *c, const uint8_t *in, size_t out_len)
{
	size_t quote = RTE_MIN((size_t)dp_pkt_get16(in + 16), (size_t)DP_ICMP4_ERR_MAX_LEN - 28);

	CASE_CHECK(out_len == 42 + quote);
	CASE_CHECK(memcmp(got, host_mac, 6) == 0);
	CASE_CHECK(dp_pkt_get16(got + 12) == 0x0800);
	CASE_CHECK(got[14] == 0x45 && got[22] == DP_ICMP4_TTL && got[23] == IPPROTO_ICMP);
	CASE_CHECK(dp_pkt_get16(got + 16) == out_len - 14);
	CASE_CHECK(dp_test_fold(dp_test_sum16(0, got + 14, 20)) == 0xffff);
	CASE_CHECK(
		memcmp(got + 26, "\xc6\x12\x00\x01\xc6\x12\x00\x02", 8) == 0); /* port0 -> host */
	CASE_CHECK(got[34] == c->type && got[35] == c->code);
	CASE_CHECK(dp_test_fold(dp_test_sum16(0, got + 34, 8 + quote)) == 0xffff);
	CASE_CHECK(memcmp(got + 42, in + 14, quote) == 0);
}

static void
check_err6(const struct mcase *c, const uint8_t *in, size_t out_len)
{
	size_t quote =
		RTE_MIN(40u + dp_pkt_get16(in + 18), (unsigned int)DP_ICMP6_ERR_MAX_LEN - 48);

	CASE_CHECK(out_len == 62 + quote);
	CASE_CHECK(memcmp(got, host_mac, 6) == 0);
	CASE_CHECK(dp_pkt_get16(got + 12) == 0x86dd);
	CASE_CHECK(dp_pkt_get16(got + 18) == 8 + quote);
	CASE_CHECK(got[20] == IPPROTO_ICMPV6 && got[21] == DP_ICMP6_HOP_LIMIT);
	CASE_CHECK(memcmp(got + 22, P0_6, 16) == 0 && memcmp(got + 38, HOST6, 16) == 0);
	CASE_CHECK(got[54] == c->type && got[55] == c->code);
	CASE_CHECK(sum6(got + 14, got + 54, 8 + quote) == 0xffff);
	CASE_CHECK(memcmp(got + 62, in + 14, quote) == 0);
}

static void
check_echo4(const struct mcase *c, const uint8_t *in, size_t out_len)
{
	size_t ihl = (size_t)(in[14] & 0xf) * 4, icmp_len = dp_pkt_get16(in + 16) - ihl;

	CASE_CHECK(out_len == 34 + icmp_len);
	CASE_CHECK(memcmp(got, host_mac, 6) == 0);
	CASE_CHECK(got[14] == 0x45 && got[22] == DP_ICMP4_TTL && got[23] == IPPROTO_ICMP);
	CASE_CHECK(dp_test_fold(dp_test_sum16(0, got + 14, 20)) == 0xffff);
	CASE_CHECK(memcmp(got + 26, in + 30, 4) == 0 && memcmp(got + 30, in + 26, 4) == 0);
	CASE_CHECK(got[34] == 0 && got[35] == 0);
	CASE_CHECK(dp_test_fold(dp_test_sum16(0, got + 34, icmp_len)) == 0xffff);
	CASE_CHECK(memcmp(got + 38, in + 14 + ihl + 4, icmp_len - 4) == 0);
}

static void
check_echo6(const struct mcase *c, const uint8_t *in, size_t out_len)
{
	size_t plen = dp_pkt_get16(in + 18);
	/* to a group: from the port's own address */
	const uint8_t *from = in[38] == 0xff ? (const uint8_t *)P0_6 : in + 38;

	CASE_CHECK(out_len == 54 + plen);
	CASE_CHECK(memcmp(got, host_mac, 6) == 0);
	CASE_CHECK(got[20] == IPPROTO_ICMPV6 && got[21] == DP_ICMP6_HOP_LIMIT);
	CASE_CHECK(memcmp(got + 22, from, 16) == 0 && memcmp(got + 38, in + 22, 16) == 0);
	CASE_CHECK(got[54] == 129 && got[55] == 0);
	CASE_CHECK(sum6(got + 14, got + 54, plen) == 0xffff);
	CASE_CHECK(memcmp(got + 58, in + 58, plen - 4) == 0);
}

static void
check_arp(const struct mcase *c, size_t out_len)
{
	uint8_t want[60];

	arpf(want, host_mac, 1, 0x0800, 6, 4, 2, HOST4);
	memset(want + 6, 0, 6);  /* from the port's MAC */
	memset(want + 22, 0, 6); /* sender: the port */
	dp_pkt_put32(want + 28, P0_4);
	memcpy(want + 32, host_mac, 6);
	dp_pkt_put32(want + 38, HOST4);
	CASE_CHECK(out_len == 60);
	CASE_CHECK(memcmp(got, want, 60) == 0);
}

static void
check_na(const struct mcase *c, const uint8_t *in, size_t out_len)
{
	CASE_CHECK(out_len == 86);
	CASE_CHECK(memcmp(got, host_mac, 6) == 0);
	CASE_CHECK(dp_pkt_get16(got + 18) == 32 && got[20] == IPPROTO_ICMPV6 && got[21] == 255);
	CASE_CHECK(memcmp(got + 22, in + 62, 16) == 0 && memcmp(got + 38, HOST6, 16) == 0);
	CASE_CHECK(got[54] == 136 && got[55] == 0);
	CASE_CHECK(got[58] == 0xe0); /* router, solicited, override */
	CASE_CHECK(memcmp(got + 62, in + 62, 16) == 0);
	CASE_CHECK(got[78] == 2 && got[79] == 1);
	CASE_CHECK(sum6(got + 14, got + 54, 32) == 0xffff);
}

static int
out_port_of(const struct mcase *c)
{
	switch (c->out) {
	case OUT_NONE:
		return -1;
	case OUT_FWD4:
	case OUT_FWD6:
		return 1;
	default:
		return 0;
	}
}

/* the fuzzer's seed: | port | split | frame | */
static void
corpus_write(const struct mcase *c, size_t idx, const uint8_t *f, size_t len)
{
	const char *dir = getenv("DPFWD_FUZZ_CORPUS_OUT");
	uint8_t hdr[MALFORMED_HDR_LEN] = { 0, c->split };
	char path[512];
	FILE *o;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%03zu-%s", dir, idx, c->name + 2);
	o = fopen(path, "wb");
	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT(fwrite(hdr, 1, sizeof(hdr), o) == sizeof(hdr));
	CU_ASSERT(fwrite(f, 1, len, o) == len);
	fclose(o);
}

static struct rte_mbuf *
frame_mbuf(const uint8_t *f, size_t len, size_t split)
{
	struct rte_mbuf *m, *s2;

	if (split == 0 || split >= len)
		return ring_rig_mbuf(0, f, len);
	m = ring_rig_mbuf(0, f, split);
	s2 = ring_rig_mbuf(0, f + split, len - split);
	CU_ASSERT_FATAL(rte_pktmbuf_chain(m, s2) == 0);
	return m;
}

static void
run_case(const struct mcase *c, size_t idx)
{
	static uint64_t before[DP_DROP_MAX];
	struct rte_mbuf *out[8];
	const int want_port = out_port_of(c);
	unsigned int p, r, n;
	size_t len = c->build(frame);

	bad = false;
	corpus_write(c, idx, frame, len);
	for (r = 0; r < DP_DROP_MAX; r++)
		before[r] = dp_graph_drops(r);
	CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], frame_mbuf(frame, len, c->split)) == 0);
	/* the worker, the control lcore (ARP, ND), the worker again (what it sent) */
	dp_graph_worker_run(dp_workers[0], 2);
	dp_graph_worker_flush(dp_workers[0]);
	dp_ctl_poll(dp_ctl_now_ms());
	dp_graph_worker_run(dp_workers[0], 2);
	dp_graph_worker_flush(dp_workers[0]);
	for (p = 0; p < NB_PORTS; p++) {
		n = ring_rig_drain(&rig, (int)p, out, DP_ARRAY_SIZE(out));
		CASE_CHECK(n == ((int)p == want_port ? 1u : 0u));
		if (n == 1 && (int)p == want_port) {
			size_t out_len = out[0]->pkt_len;

			CASE_CHECK(out_len <= sizeof(got));
			if (out_len <= sizeof(got)) {
				/* both segments, when there are two */
				const void *d = rte_pktmbuf_read(out[0], 0, (uint32_t)out_len, got);

				if (d != got)
					memcpy(got, d, out_len);
			}
			switch (c->out) {
			case OUT_FWD4:
			case OUT_FWD6:
				check_fwd(c, frame, len, out_len);
				break;
			case OUT_ERR4:
				check_err4(c, frame, out_len);
				break;
			case OUT_ERR6:
				check_err6(c, frame, out_len);
				break;
			case OUT_ECHO4:
				check_echo4(c, frame, out_len);
				break;
			case OUT_ECHO6:
				check_echo6(c, frame, out_len);
				break;
			case OUT_ARP:
				check_arp(c, out_len);
				break;
			case OUT_NA:
				check_na(c, frame, out_len);
				break;
			case OUT_NONE:
				break;
			}
		}
		rte_pktmbuf_free_bulk(out, n);
	}
	for (r = 0; r < DP_DROP_MAX; r++) {
		uint64_t want = 0, d = dp_graph_drops(r) - before[r];

		for (p = 0; p < c->nb_drops; p++)
			want += c->drops[p] == r;
		if (d != want) {
			fprintf(stderr, "\n  %s: %s moved by %lu, expected %lu", c->name,
				dp_drop_name(r), (unsigned long)d, (unsigned long)want);
			bad = true;
		}
	}
	CU_ASSERT_FALSE(bad);
}

/* ---- tests ---- */

static void
test_malformed_frames_forwarded_or_dropped_with_their_reason(void)
{
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++)
		run_case(&cases[i], i);
}

/* the whole table again, every frame in one burst: the same verdicts, counted the same */
static void
test_malformed_frames_in_one_burst_count_the_same(void)
{
	static uint64_t before[DP_DROP_MAX];
	uint64_t want[DP_DROP_MAX] = { 0 };
	unsigned int out_want[NB_PORTS] = { 0 }, out_got[NB_PORTS] = { 0 };
	size_t i, len;
	unsigned int p, r;

	for (r = 0; r < DP_DROP_MAX; r++)
		before[r] = dp_graph_drops(r);
	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		const struct mcase *c = &cases[i];
		int op = out_port_of(c);

		len = c->build(frame);
		CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], frame_mbuf(frame, len, c->split)) == 0);
		for (p = 0; p < c->nb_drops; p++)
			want[c->drops[p]]++;
		if (op >= 0)
			out_want[op]++;
	}
	for (i = 0; i < 4; i++) {
		dp_graph_worker_run(dp_workers[0], 8);
		dp_graph_worker_flush(dp_workers[0]);
		dp_ctl_poll(dp_ctl_now_ms());
	}
	dp_graph_worker_run(dp_workers[0], 8);
	dp_graph_worker_flush(dp_workers[0]);
	for (p = 0; p < NB_PORTS; p++) {
		out_got[p] = ring_rig_drain_free(&rig, (int)p);
		CU_ASSERT_EQUAL(out_got[p], out_want[p]);
	}
	for (r = 0; r < DP_DROP_MAX; r++) {
		uint64_t d = dp_graph_drops(r) - before[r];

		if (d != want[r])
			fprintf(stderr, "\n  burst: %s moved by %lu, expected %lu", dp_drop_name(r),
				(unsigned long)d, (unsigned long)want[r]);
		CU_ASSERT_EQUAL(d, want[r]);
	}
}

/*
 * Last of the frame tests (the neighbors it creates go on asking): a packet for an
 * unknown host on a connected subnet is held and its neighbor asked for, the address
 * read from the packet (not 4-byte aligned there); dp_ctl_stop() drops what is held.
 */
static void
test_malformed_packet_to_unknown_host_is_held_and_asked_for(void)
{
	static const uint8_t sn7[16] = { 0xff, 0x02, [11] = 0x01, 0xff, 0, 0, 0x07 };
	const uint64_t shutdown = dp_graph_drops(DP_DROP_SHUTDOWN);
	struct rte_mbuf *out[8];
	const uint8_t *d;
	unsigned int n, p;
	size_t len;

	/* 198.18.101.7 and 2001:db8:101::7, on port1's links */
	len = ip4f(frame, NULL, HOST4, 0xc6126507u, 64, IPPROTO_UDP, 30);
	CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], frame_mbuf(frame, len, 0)) == 0);
	len = ip6f(frame, NULL, HOST6, "\x20\x01\x0d\xb8\x01\x01\0\0\0\0\0\0\0\0\0\x07", 64,
		IPPROTO_UDP, 30);
	CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], frame_mbuf(frame, len, 0)) == 0);
	dp_graph_worker_run(dp_workers[0], 2);
	dp_graph_worker_flush(dp_workers[0]);
	dp_ctl_poll(dp_ctl_now_ms());
	dp_graph_worker_run(dp_workers[0], 2);
	dp_graph_worker_flush(dp_workers[0]);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 2), 0);
	n = ring_rig_drain(&rig, 1, out, DP_ARRAY_SIZE(out));
	CU_ASSERT_EQUAL(n, 2);
	for (p = 0; p < n; p++) {
		d = rte_pktmbuf_mtod(out[p], const uint8_t *);
		if (dp_pkt_get16(d + 12) == 0x0806) {
			/* who has 198.18.101.7, tell 198.18.101.1 */
			CU_ASSERT(memcmp(d, bcast_mac, 6) == 0);
			CU_ASSERT_EQUAL(dp_pkt_get16(d + 20), 1);
			CU_ASSERT(memcmp(d + 28, "\xc6\x12\x65\x01", 4) == 0);
			CU_ASSERT(memcmp(d + 38, "\xc6\x12\x65\x07", 4) == 0);
		} else {
			/* an NS for 2001:db8:101::7 to its solicited-node group */
			CU_ASSERT_EQUAL(dp_pkt_get16(d + 12), 0x86dd);
			CU_ASSERT(memcmp(d + 38, sn7, 16) == 0);
			CU_ASSERT_EQUAL(d[54], 135);
			CU_ASSERT(memcmp(d + 62, "\x20\x01\x0d\xb8\x01\x01", 6) == 0 && d[77] == 7);
		}
	}
	rte_pktmbuf_free_bulk(out, n);
	/* both held: dropped when dpfwd stops */
	dp_ctl_stop();
	CU_ASSERT_EQUAL(dp_graph_drops(DP_DROP_SHUTDOWN) - shutdown, 2);
}

static void
test_malformed_no_mbuf_leak(void)
{
	ring_rig_flush_drain_all(&rig);
	CU_ASSERT_EQUAL(rte_ring_count(dp_workers[0]->punt_ring), 0);
	CU_ASSERT_EQUAL(rte_ring_count(dp_workers[0]->inject_ring), 0);
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
	T(test_malformed_frames_forwarded_or_dropped_with_their_reason),
	T(test_malformed_frames_in_one_burst_count_the_same),
	T(test_malformed_packet_to_unknown_host_is_held_and_asked_for),
	T(test_malformed_no_mbuf_leak),
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("malformed", tests, suite_init, suite_cleanup);
}
