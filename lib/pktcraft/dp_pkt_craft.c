/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dp_pkt_craft: test frame builder, see dp_pkt_craft.h. No DPDK dependency.
 */

#include <errno.h>
#include <string.h>

#include <arpa/inet.h>

#include "dp_pkt_craft.h"

#define IPV4_HLEN       20
#define IPV6_HLEN       40
#define UDP_HLEN        8
#define ARP_LEN         28
#define IPPROTO_UDP_NUM 17
#define IP_MAXLEN       65535u

/*
 * Ones' complement partial sum over 16-bit words loaded in host order (RFC 1071 section 2(B):
 * the result is byte-order independent, so folding and complementing yields the checksum in
 * memory (network) order). An odd trailing byte is padded with a zero byte in memory.
 */
static uint64_t
cksum_add(uint64_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint16_t w;

	while (len >= 2) {
		memcpy(&w, p, sizeof(w));
		sum += w;
		p += 2;
		len -= 2;
	}
	if (len != 0) {
		uint8_t tail[2] = { p[0], 0 };

		memcpy(&w, tail, sizeof(w));
		sum += w;
	}
	return sum;
}

static uint16_t
cksum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t
dp_pkt_cksum(const void *data, size_t len)
{
	return cksum_fold(cksum_add(0, data, len));
}

static void
ipv4_set_cksum(uint8_t *ip, size_t hlen)
{
	uint16_t ck;

	ip[10] = 0;
	ip[11] = 0;
	ck = dp_pkt_cksum(ip, hlen);
	memcpy(&ip[10], &ck, sizeof(ck));
}

/* Pseudo-header sum for UDP over IPv4 or IPv6; addresses taken from the IP header in place. */
static uint64_t
pseudo_sum(const uint8_t *ip, int version, uint32_t udp_len)
{
	uint8_t ph[40];

	if (version == 4) {
		memcpy(ph, &ip[12], 8);
		ph[8] = 0;
		ph[9] = IPPROTO_UDP_NUM;
		dp_pkt_put16(&ph[10], (uint16_t)udp_len);
		return cksum_add(0, ph, 12);
	}
	memset(ph, 0, sizeof(ph));
	dp_pkt_put32(&ph[0], udp_len);
	ph[7] = IPPROTO_UDP_NUM;
	return cksum_add(cksum_add(0, &ip[8], 32), ph, 8);
}

void
dp_pkt_spec_init(struct dp_pkt_spec *s)
{
	static const uint8_t src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t dst_mac[6] = { 0x02, 0x70, 0x63, 0x61, 0x70, 0x00 };
	static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 };
	static const uint8_t dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, [15] = 0x01 };

	if (s == NULL)
		return;
	memset(s, 0, sizeof(*s));
	memcpy(s->src_mac, src_mac, 6);
	memcpy(s->dst_mac, dst_mac, 6);
	s->ip_version = 4;
	s->src_ip4 = 0xc6120001; /* 198.18.0.1 */
	s->dst_ip4 = 0xc6120101; /* 198.18.1.1 */
	memcpy(s->src_ip6, src6, 16);
	memcpy(s->dst_ip6, dst6, 16);
	s->ttl = 64;
	s->proto = IPPROTO_UDP_NUM;
	s->sport = 1024;
	s->dport = 9;
	s->frame_len = DP_PKT_MIN_FRAME_LEN;
}

size_t
dp_pkt_frame_len_to_caplen(size_t frame_len)
{
	return frame_len < DP_PKT_FCS_LEN ? 0 : frame_len - DP_PKT_FCS_LEN;
}

uint8_t
dp_pkt_payload_byte(uint32_t flow_id, size_t off)
{
	uint32_t seed = flow_id ^ (flow_id >> 8) ^ (flow_id >> 16) ^ (flow_id >> 24);

	return (uint8_t)(seed + off);
}

static size_t
put_l2(const struct dp_pkt_spec *s, uint8_t *buf, const uint8_t *dst_mac, uint16_t ether_type)
{
	size_t off = 12;

	memcpy(buf, dst_mac, 6);
	memcpy(buf + 6, s->src_mac, 6);
	if (s->has_vlan) {
		dp_pkt_put16(buf + 12, DP_PKT_ETHERTYPE_VLAN);
		dp_pkt_put16(buf + 14, s->vlan_tci);
		off += DP_PKT_VLAN_HLEN;
	}
	dp_pkt_put16(buf + off, ether_type);
	return off + 2;
}

int
dp_pkt_build(const struct dp_pkt_spec *s, uint8_t *buf, size_t cap, size_t *len)
{
	size_t l2, l3h, l4h, hdrs, payload, ip_len, wlen, i;
	uint8_t *ip, *l4, *pl;
	uint16_t ether_type;
	bool udp;

	if (s == NULL || buf == NULL || len == NULL)
		return -EINVAL;
	if (s->ip_version != 4 && s->ip_version != 6)
		return -EINVAL;

	udp = s->proto == 0 || s->proto == IPPROTO_UDP_NUM;
	l2 = DP_PKT_ETH_HLEN + (s->has_vlan ? DP_PKT_VLAN_HLEN : 0);
	l3h = s->ip_version == 4 ? IPV4_HLEN : IPV6_HLEN;
	l4h = udp ? UDP_HLEN : 0;
	hdrs = l2 + l3h + l4h;

	if (s->frame_len != 0) {
		size_t caplen = dp_pkt_frame_len_to_caplen(s->frame_len);

		if (s->payload_len != 0 || s->frame_len < DP_PKT_MIN_FRAME_LEN || caplen < hdrs)
			return -EINVAL;
		payload = caplen - hdrs;
	} else {
		payload = s->payload_len;
	}

	/* IPv4 total length / IPv6 payload length, both 16-bit fields. */
	ip_len = (s->ip_version == 4 ? l3h : 0) + l4h + payload;
	if (ip_len > IP_MAXLEN)
		return -EINVAL;
	wlen = hdrs + payload;
	if (wlen < DP_PKT_MIN_CAPLEN)
		wlen = DP_PKT_MIN_CAPLEN;
	if (cap < wlen)
		return -ENOSPC;

	memset(buf, 0, wlen);
	ether_type = s->ether_type;
	if (ether_type == 0)
		ether_type = s->ip_version == 4 ? DP_PKT_ETHERTYPE_IPV4 : DP_PKT_ETHERTYPE_IPV6;
	put_l2(s, buf, s->dst_mac, ether_type);

	ip = buf + l2;
	l4 = ip + l3h;
	pl = l4 + l4h;
	if (s->ip_version == 4) {
		ip[0] = 0x45;
		ip[1] = s->tos;
		dp_pkt_put16(&ip[2], (uint16_t)ip_len);
		dp_pkt_put16(&ip[4], s->ip_id);
		dp_pkt_put16(&ip[6], s->df ? 0x4000 : 0);
		ip[8] = s->ttl;
		ip[9] = udp ? IPPROTO_UDP_NUM : s->proto;
		dp_pkt_put32(&ip[12], s->src_ip4);
		dp_pkt_put32(&ip[16], s->dst_ip4);
		ipv4_set_cksum(ip, IPV4_HLEN);
	} else {
		dp_pkt_put32(
			&ip[0], (6u << 28) | ((uint32_t)s->tos << 20) | (s->flow_label & 0xfffff));
		dp_pkt_put16(&ip[4], (uint16_t)ip_len);
		ip[6] = udp ? IPPROTO_UDP_NUM : s->proto;
		ip[7] = s->ttl;
		memcpy(&ip[8], s->src_ip6, 16);
		memcpy(&ip[24], s->dst_ip6, 16);
	}

	for (i = 0; i < payload; i++)
		pl[i] = dp_pkt_payload_byte(s->flow_id, i);

	if (udp) {
		uint32_t udp_len = (uint32_t)(l4h + payload);
		uint16_t ck;

		dp_pkt_put16(&l4[0], s->sport);
		dp_pkt_put16(&l4[2], s->dport);
		dp_pkt_put16(&l4[4], (uint16_t)udp_len);
		ck = cksum_fold(cksum_add(pseudo_sum(ip, s->ip_version, udp_len), l4, udp_len));
		if (ck == 0)
			ck = 0xffff;
		memcpy(&l4[6], &ck, sizeof(ck));
	}

	*len = wlen;
	return 0;
}

int
dp_pkt_build_arp(const struct dp_pkt_spec *s, uint8_t *buf, size_t cap, size_t *len)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct dp_pkt_spec c;
	uint8_t *arp;

	if (s == NULL || buf == NULL || len == NULL)
		return -EINVAL;
	if (cap < DP_PKT_MIN_CAPLEN)
		return -ENOSPC;
	c = *s; /* s may point into buf (dp_pkt_corrupt) */
	memset(buf, 0, DP_PKT_MIN_CAPLEN);
	arp = buf + put_l2(&c, buf, bcast, DP_PKT_ETHERTYPE_ARP);
	dp_pkt_put16(&arp[0], 1);                     /* HTYPE Ethernet */
	dp_pkt_put16(&arp[2], DP_PKT_ETHERTYPE_IPV4); /* PTYPE */
	arp[4] = 6;
	arp[5] = 4;
	dp_pkt_put16(&arp[6], 1); /* request */
	memcpy(&arp[8], c.src_mac, 6);
	dp_pkt_put32(&arp[14], c.src_ip4);
	/* target hardware address stays zero */
	dp_pkt_put32(&arp[24], c.dst_ip4);
	*len = DP_PKT_MIN_CAPLEN;
	return 0;
}

uint64_t
dp_pkt_ipv4_prefix_nhosts(unsigned int plen)
{
	unsigned int h = 32 - plen;

	if (plen > 32)
		return 0;
	if (h <= 1)
		return UINT64_C(1) << h;
	if (h < 8)
		return (UINT64_C(1) << h) - 2;
	return UINT64_C(254) << (h - 8); /* last octet 1..254 in every /24 */
}

uint64_t
dp_pkt_ipv6_prefix_nhosts(unsigned int plen)
{
	unsigned int h = 128 - plen;

	if (plen > 128)
		return 0;
	if (h <= 1)
		return UINT64_C(1) << h;
	if (h > 32)
		return UINT64_C(1) << 32;
	return (UINT64_C(1) << h) - 2;
}

int
dp_pkt_ipv4_prefix_host(uint32_t prefix, unsigned int plen, uint32_t n, uint32_t *out)
{
	unsigned int h;
	uint32_t mask, host;

	if (plen > 32 || out == NULL)
		return -EINVAL;
	h = 32 - plen;
	mask = plen == 0 ? 0 : 0xffffffffu << h;
	if (h <= 1) {
		host = h == 0 ? 0 : n & 1;
	} else if (h < 8) {
		host = 1 + n % (uint32_t)dp_pkt_ipv4_prefix_nhosts(plen);
	} else {
		/* 254 hosts (.1-.254) per /24, then the next /24 inside the prefix */
		uint32_t n24 = (uint32_t)((n / 254) % (UINT64_C(1) << (h - 8)));

		host = n24 << 8 | (1 + n % 254);
	}
	*out = (prefix & mask) | host;
	return 0;
}

int
dp_pkt_ipv6_prefix_host(const uint8_t prefix[16], unsigned int plen, uint32_t n, uint8_t out[16])
{
	unsigned int i, h;
	uint64_t host;

	if (plen > 128 || prefix == NULL || out == NULL)
		return -EINVAL;
	h = 128 - plen;
	if (h <= 1)
		host = h == 0 ? 0 : n & 1;
	else if (h > 32)
		host = (uint64_t)n + 1;
	else
		host = 1 + n % dp_pkt_ipv6_prefix_nhosts(plen);
	for (i = 0; i < 16; i++) {
		unsigned int bit0 = i * 8; /* first bit of this byte */
		uint8_t m;

		if (bit0 + 8 <= plen)
			m = 0xff;
		else if (bit0 >= plen)
			m = 0;
		else
			m = (uint8_t)(0xff << (8 - (plen - bit0)));
		out[i] = prefix[i] & m;
	}
	/* host < 2^33 always fits in the low 64 bits and, by construction, in the host bits */
	for (i = 0; i < 8; i++)
		out[15 - i] |= (uint8_t)(host >> (8 * i));
	return 0;
}

int
dp_pkt_spec_flow(struct dp_pkt_spec *s, const struct dp_pkt_spec *base, uint32_t flow_id,
	unsigned int vary, unsigned int src_plen)
{
	struct dp_pkt_spec t;
	int ret;

	if (s == NULL || base == NULL || (vary & ~(DP_PKT_VARY_SPORT | DP_PKT_VARY_SADDR)) != 0)
		return -EINVAL;
	t = *base;
	t.flow_id = flow_id;
	if (vary & DP_PKT_VARY_SPORT) {
		uint32_t range = 65536u - base->sport;

		t.sport = (uint16_t)(base->sport + flow_id % range);
	}
	if (vary & DP_PKT_VARY_SADDR) {
		if (base->ip_version == 6)
			ret = dp_pkt_ipv6_prefix_host(base->src_ip6, src_plen, flow_id, t.src_ip6);
		else
			ret = dp_pkt_ipv4_prefix_host(base->src_ip4, src_plen, flow_id, &t.src_ip4);
		if (ret != 0)
			return ret;
	}
	*s = t;
	return 0;
}

bool
dp_pkt_ipv4_hdr_cksum_ok(const uint8_t *ip_hdr)
{
	size_t hlen;

	if (ip_hdr == NULL)
		return false;
	hlen = (size_t)(ip_hdr[0] & 0x0f) * 4;
	if (hlen < IPV4_HLEN)
		return false;
	return dp_pkt_cksum(ip_hdr, hlen) == 0;
}

int
dp_pkt_l3_offset(const uint8_t *frame, size_t len, size_t *l3_off, uint16_t *ether_type)
{
	size_t off = 12;
	uint16_t et;

	if (frame == NULL || l3_off == NULL || len < DP_PKT_ETH_HLEN)
		return -EINVAL;
	et = dp_pkt_get16(frame + off);
	if (et == DP_PKT_ETHERTYPE_VLAN) {
		if (len < DP_PKT_ETH_HLEN + DP_PKT_VLAN_HLEN)
			return -EINVAL;
		off += DP_PKT_VLAN_HLEN;
		et = dp_pkt_get16(frame + off);
	}
	*l3_off = off + 2;
	if (ether_type != NULL)
		*ether_type = et;
	return 0;
}

bool
dp_pkt_udp_cksum_ok(const uint8_t *frame, size_t len)
{
	const uint8_t *ip, *udp;
	size_t l3, avail, udp_len, l4_room;
	uint16_t et, ck;
	int version;

	if (dp_pkt_l3_offset(frame, len, &l3, &et) != 0)
		return false;
	ip = frame + l3;
	avail = len - l3;
	if (et == DP_PKT_ETHERTYPE_IPV4) {
		size_t hlen, tot;

		if (avail < IPV4_HLEN || (ip[0] >> 4) != 4)
			return false;
		hlen = (size_t)(ip[0] & 0x0f) * 4;
		tot = dp_pkt_get16(&ip[2]);
		if (hlen < IPV4_HLEN || tot < hlen + UDP_HLEN || tot > avail)
			return false;
		if (ip[9] != IPPROTO_UDP_NUM || (dp_pkt_get16(&ip[6]) & 0x3fff) != 0)
			return false; /* not UDP, or a fragment */
		udp = ip + hlen;
		l4_room = tot - hlen;
		version = 4;
	} else if (et == DP_PKT_ETHERTYPE_IPV6) {
		size_t plen;

		if (avail < IPV6_HLEN || (ip[0] >> 4) != 6 || ip[6] != IPPROTO_UDP_NUM)
			return false;
		plen = dp_pkt_get16(&ip[4]);
		if (plen < UDP_HLEN || plen > avail - IPV6_HLEN)
			return false;
		udp = ip + IPV6_HLEN;
		l4_room = plen;
		version = 6;
	} else {
		return false;
	}
	udp_len = dp_pkt_get16(&udp[4]);
	if (udp_len < UDP_HLEN || udp_len > l4_room)
		return false;
	memcpy(&ck, &udp[6], sizeof(ck));
	if (ck == 0)
		return version == 4;
	return cksum_fold(cksum_add(pseudo_sum(ip, version, (uint32_t)udp_len), udp, udp_len)) == 0;
}

int
dp_pkt_corrupt(uint8_t *frame, size_t *len, enum dp_pkt_defect d)
{
	struct dp_pkt_spec s;
	size_t l3, hlen, avail;
	uint16_t et;
	uint8_t *ip;

	if (frame == NULL || len == NULL || (unsigned int)d >= DP_PKT_DEFECT_COUNT)
		return -EINVAL;
	if (dp_pkt_l3_offset(frame, *len, &l3, &et) != 0)
		return -EINVAL;
	if (d == DP_PKT_NON_IP) {
		dp_pkt_put16(frame + l3 - 2, DP_PKT_ETHERTYPE_LOCAL_EXP);
		return 0;
	}

	ip = frame + l3;
	avail = *len - l3;
	if (et != DP_PKT_ETHERTYPE_IPV4 || avail < IPV4_HLEN || (ip[0] >> 4) != 4)
		return -EINVAL;
	hlen = (size_t)(ip[0] & 0x0f) * 4;
	if (hlen < IPV4_HLEN || hlen > avail)
		return -EINVAL;

	switch (d) {
	case DP_PKT_TRUNCATED_L3:
		*len = l3 + 10;
		break;
	case DP_PKT_BAD_VERSION:
		ip[0] = (uint8_t)(0x60 | (ip[0] & 0x0f));
		ipv4_set_cksum(ip, hlen);
		break;
	case DP_PKT_BAD_IHL:
		/* checksum valid over the real header length, only IHL is wrong */
		ip[0] = 0x44;
		ipv4_set_cksum(ip, hlen);
		break;
	case DP_PKT_BAD_CKSUM:
		ipv4_set_cksum(ip, hlen);
		ip[10] ^= 0x5a;
		ip[11] ^= 0xa5;
		break;
	case DP_PKT_LEN_GT_FRAME:
		if (avail + 64 > IP_MAXLEN)
			return -EINVAL;
		dp_pkt_put16(&ip[2], (uint16_t)(avail + 64));
		ipv4_set_cksum(ip, hlen);
		break;
	case DP_PKT_TTL0:
	case DP_PKT_TTL1:
		ip[8] = d == DP_PKT_TTL0 ? 0 : 1;
		ipv4_set_cksum(ip, hlen); /* TTL is not in the UDP pseudo header */
		break;
	case DP_PKT_ARP:
		dp_pkt_spec_init(&s);
		memcpy(s.src_mac, frame + 6, 6);
		s.has_vlan = l3 > DP_PKT_ETH_HLEN;
		s.vlan_tci = s.has_vlan ? dp_pkt_get16(frame + 14) : 0;
		s.src_ip4 = dp_pkt_get32(&ip[12]);
		s.dst_ip4 = dp_pkt_get32(&ip[16]);
		return dp_pkt_build_arp(&s, frame, *len, len);
	default:
		return -EINVAL;
	}
	return 0;
}

const char *
dp_pkt_defect_name(enum dp_pkt_defect d)
{
	static const char *const names[DP_PKT_DEFECT_COUNT] = {
		[DP_PKT_TRUNCATED_L3] = "truncated_l3",
		[DP_PKT_BAD_VERSION] = "bad_version",
		[DP_PKT_BAD_IHL] = "bad_ihl",
		[DP_PKT_BAD_CKSUM] = "bad_cksum",
		[DP_PKT_LEN_GT_FRAME] = "len_gt_frame",
		[DP_PKT_TTL0] = "ttl0",
		[DP_PKT_TTL1] = "ttl1",
		[DP_PKT_NON_IP] = "non_ip",
		[DP_PKT_ARP] = "arp",
	};

	if ((unsigned int)d >= DP_PKT_DEFECT_COUNT)
		return "unknown";
	return names[d];
}
