/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dp_pkt_craft: build Ethernet/IPv4/IPv6/UDP test frames into a caller buffer.
 *
 * Plain C11 + libc, no DPDK dependency, so it can be used by dppcap, by unit tests and by
 * functional tests alike.
 *
 * Frame length convention
 * -----------------------
 * All "frame_len" values in this API are Ethernet frame sizes in the RFC 2544 / DPDK sense:
 * they INCLUDE the 4-byte FCS. A "64-byte frame" therefore occupies 60 bytes in a pcap file or
 * in an mbuf (the NIC adds/strips the FCS). dp_pkt_build() never writes an FCS; the number of
 * bytes it writes (the "caplen") is dp_pkt_frame_len_to_caplen(frame_len) = frame_len - 4.
 * Frames shorter than the Ethernet minimum are zero-padded to DP_PKT_MIN_CAPLEN (60) bytes; the
 * padding is not covered by the IP total length / UDP length.
 *
 * Byte order: IPv4 addresses in struct dp_pkt_spec are host order; IPv6 addresses and MAC
 * addresses are byte arrays in wire order; ports, TCI, IP id are host order.
 */

#ifndef DP_PKT_CRAFT_H
#define DP_PKT_CRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Big-endian (network order) 16- and 32-bit fields at any alignment, for tools and tests. */
static inline void
dp_pkt_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
dp_pkt_put32(uint8_t *p, uint32_t v)
{
	dp_pkt_put16(p, (uint16_t)(v >> 16));
	dp_pkt_put16(p + 2, (uint16_t)v);
}

static inline uint16_t
dp_pkt_get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t
dp_pkt_get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#define DP_PKT_FCS_LEN       4  /**< Ethernet FCS length, never written to buffers. */
#define DP_PKT_MIN_FRAME_LEN 64 /**< Minimum Ethernet frame length, FCS included. */
#define DP_PKT_MIN_CAPLEN    60 /**< Minimum bytes written (64 - FCS). */
#define DP_PKT_ETH_HLEN      14 /**< Ethernet header without VLAN tag. */
#define DP_PKT_VLAN_HLEN     4  /**< One 802.1Q tag. */

#define DP_PKT_ETHERTYPE_IPV4      0x0800
#define DP_PKT_ETHERTYPE_ARP       0x0806
#define DP_PKT_ETHERTYPE_VLAN      0x8100
#define DP_PKT_ETHERTYPE_IPV6      0x86DD
#define DP_PKT_ETHERTYPE_LOCAL_EXP 0x88B5 /**< IEEE 802 local experimental ethertype 1. */

/** dp_pkt_spec_flow() flags: which fields vary with the flow id. */
#define DP_PKT_VARY_SPORT (1u << 0)
#define DP_PKT_VARY_SADDR (1u << 1)

/**
 * Description of one frame. Initialise with dp_pkt_spec_init() and then override fields;
 * a zeroed structure is NOT a sensible default (TTL 0, ...).
 */
struct dp_pkt_spec {
	uint8_t dst_mac[6];   /**< Destination MAC, wire order. */
	uint8_t src_mac[6];   /**< Source MAC, wire order. */
	uint16_t ether_type;  /**< 0: 0x0800/0x86DD from ip_version; else written as is
					 *   (the IP packet is still built behind it). */
	bool has_vlan;        /**< Insert one 802.1Q tag (TPID 0x8100). */
	uint16_t vlan_tci;    /**< PCP(3) | DEI(1) | VID(12), host order. */
	uint8_t ip_version;   /**< 4 or 6. */
	uint32_t src_ip4;     /**< IPv4 source, host order. */
	uint32_t dst_ip4;     /**< IPv4 destination, host order. */
	uint8_t src_ip6[16];  /**< IPv6 source, wire order. */
	uint8_t dst_ip6[16];  /**< IPv6 destination, wire order. */
	uint8_t ttl;          /**< IPv4 TTL / IPv6 hop limit. */
	uint8_t tos;          /**< IPv4 TOS / IPv6 traffic class. */
	uint32_t flow_label;  /**< IPv6 flow label (20 bits). */
	uint16_t ip_id;       /**< IPv4 identification. */
	bool df;              /**< IPv4 Don't Fragment flag. */
	uint8_t proto;        /**< IP protocol / next header; 0 means UDP (17). For any
					 *   other value no L4 header is built: the fill pattern
					 *   follows the IP header directly. */
	uint16_t sport;       /**< UDP source port. */
	uint16_t dport;       /**< UDP destination port. */
	uint32_t frame_len;   /**< Frame length INCLUDING the 4-byte FCS (64 => 60 bytes
					 *   written). 0: size from payload_len instead. */
	uint32_t payload_len; /**< L4 payload bytes (after UDP header); only used, and
					 *   only allowed non-zero, when frame_len is 0. */
	uint32_t flow_id;     /**< Seeds the payload fill pattern, see
					 *   dp_pkt_payload_byte(). */
};

/** Malformed-packet mutations applied by dp_pkt_corrupt(); values are stable. */
enum dp_pkt_defect {
	DP_PKT_TRUNCATED_L3 = 0, /**< Frame cut 10 bytes into the IPv4 header. */
	DP_PKT_BAD_VERSION,      /**< IPv4 version field 6, header checksum recomputed. */
	DP_PKT_BAD_IHL,          /**< IHL 4 (< 5), checksum recomputed over the real 20 B. */
	DP_PKT_BAD_CKSUM,        /**< IPv4 header checksum wrong, nothing else changed. */
	DP_PKT_LEN_GT_FRAME,     /**< IPv4 total length = bytes present + 64, cksum fixed. */
	DP_PKT_TTL0,             /**< TTL 0, header checksum recomputed. */
	DP_PKT_TTL1,             /**< TTL 1, header checksum recomputed. */
	DP_PKT_NON_IP,           /**< Ethertype 0x88B5 (local experimental), rest kept. */
	DP_PKT_ARP,              /**< Frame replaced by a valid ARP request, see
					 *   dp_pkt_build_arp(). */
	DP_PKT_DEFECT_COUNT      /**< Number of defects, not a defect. */
};

/**
 * Fill a spec with the library defaults: IPv4, src MAC 02:00:00:00:00:01,
 * dst MAC 02:70:63:61:70:00, 198.18.0.1 -> 198.18.1.1 (IPv6: 2001:db8::1 -> 2001:db8:1::1),
 * TTL 64, TOS 0, DF clear, UDP 1024 -> 9, frame_len 64, no VLAN, flow_id 0.
 *
 * @param s
 *   Spec to initialise.
 */
void dp_pkt_spec_init(struct dp_pkt_spec *s);

/**
 * Number of bytes a frame of @p frame_len (FCS included) occupies in a capture / buffer.
 *
 * @param frame_len
 *   Frame length including FCS.
 * @return
 *   frame_len - 4, or 0 if frame_len < 4.
 */
size_t dp_pkt_frame_len_to_caplen(size_t frame_len);

/**
 * Build the frame described by @p s into @p buf (no FCS), with valid IPv4 header checksum and
 * valid UDP checksum (IPv4 and IPv6; a computed 0 is sent as 0xffff), zero-padded to 60 bytes.
 *
 * @param s
 *   Frame description.
 * @param buf
 *   Output buffer.
 * @param cap
 *   Size of @p buf.
 * @param len
 *   Out: number of bytes written.
 * @return
 *   0 on success; -EINVAL for a bad spec (NULL, ip_version not 4/6, frame_len below 64 or
 *   too small for the headers, both frame_len and payload_len set, IP length > 65535);
 *   -ENOSPC if @p cap is too small.
 */
int dp_pkt_build(const struct dp_pkt_spec *s, uint8_t *buf, size_t cap, size_t *len);

/**
 * Build a valid ARP request "who-has s->dst_ip4 tell s->src_ip4" from s->src_mac to the
 * broadcast address (honours has_vlan/vlan_tci; ignores dst_mac, ether_type and IP fields other
 * than the two IPv4 addresses), padded to 60 bytes.
 *
 * @param s
 *   Frame description.
 * @param buf
 *   Output buffer.
 * @param cap
 *   Size of @p buf.
 * @param len
 *   Out: number of bytes written (60).
 * @return
 *   0 on success, -EINVAL on NULL arguments, -ENOSPC if @p cap < 60.
 */
int dp_pkt_build_arp(const struct dp_pkt_spec *s, uint8_t *buf, size_t cap, size_t *len);

/**
 * Byte @p off of the payload fill pattern of flow @p flow_id:
 * (uint8_t)(seed + off) where seed = flow_id ^ flow_id >> 8 ^ flow_id >> 16 ^ flow_id >> 24
 * (truncated to 8 bits). Offset 0 is the first byte after the UDP header (after the IP header
 * when proto is not UDP).
 *
 * @param flow_id
 *   Flow id the frame was built with.
 * @param off
 *   Offset into the payload.
 * @return
 *   Expected payload byte.
 */
uint8_t dp_pkt_payload_byte(uint32_t flow_id, size_t off);

/**
 * Derive the spec of flow @p flow_id from @p base: *s = *base, s->flow_id = flow_id, then
 *  - DP_PKT_VARY_SPORT: sport = base->sport + flow_id, wrapping back to base->sport after 65535;
 *  - DP_PKT_VARY_SADDR: the source address (v4 or v6 per ip_version) becomes the flow_id-th
 *    usable host of base source / @p src_plen (see dp_pkt_ipv4_prefix_host()).
 * @p s and @p base may be the same object.
 *
 * @param s
 *   Out: flow spec.
 * @param base
 *   Template spec.
 * @param flow_id
 *   Flow index.
 * @param vary
 *   Bitmask of DP_PKT_VARY_*.
 * @param src_plen
 *   Source prefix length (used with DP_PKT_VARY_SADDR only).
 * @return
 *   0 on success, -EINVAL on NULL arguments, unknown flag or bad prefix length.
 */
int dp_pkt_spec_flow(struct dp_pkt_spec *s, const struct dp_pkt_spec *base, uint32_t flow_id,
	unsigned int vary, unsigned int src_plen);

/**
 * The @p n-th usable host address of an IPv4 prefix, cycling. With at least 2 host bits the
 * last octet is never 0 or 255 (nor is the host part all-zeros/all-ones): for a /24,
 * n = 0..253 gives .1 .. .254, then .1 again; for a /16, n = 0..253 gives x.y.0.1 .. x.y.0.254,
 * n = 254 gives x.y.1.1, etc.; for a /25..30, the prefix's usable hosts. /31 yields both
 * addresses, /32 the address itself.
 *
 * @param prefix
 *   Prefix, host order (host bits ignored).
 * @param plen
 *   Prefix length, 0..32.
 * @param n
 *   Host index.
 * @param out
 *   Out: address, host order.
 * @return
 *   0 on success, -EINVAL on bad @p plen or NULL @p out.
 */
int dp_pkt_ipv4_prefix_host(uint32_t prefix, unsigned int plen, uint32_t n, uint32_t *out);

/**
 * IPv6 variant of dp_pkt_ipv4_prefix_host(): with at most 32 host bits the host part cycles
 * over 1 .. 2^h - 2 (never all-zeros/all-ones); with more, the host part is simply n + 1.
 * /127 yields both addresses, /128 the address itself.
 *
 * @param prefix
 *   Prefix, wire order (host bits ignored).
 * @param plen
 *   Prefix length, 0..128.
 * @param n
 *   Host index.
 * @param out
 *   Out: address, wire order.
 * @return
 *   0 on success, -EINVAL on bad @p plen or NULL pointers.
 */
int dp_pkt_ipv6_prefix_host(
	const uint8_t prefix[16], unsigned int plen, uint32_t n, uint8_t out[16]);

/**
 * Number of distinct addresses dp_pkt_ipv4_prefix_host() cycles over for a prefix length.
 *
 * @param plen
 *   Prefix length, 0..32.
 * @return
 *   Number of distinct hosts (e.g. 254 for a /24, 254 * 256 for a /16), 0 if plen > 32.
 */
uint64_t dp_pkt_ipv4_prefix_nhosts(unsigned int plen);

/**
 * Number of distinct addresses dp_pkt_ipv6_prefix_host() cycles over for a prefix length.
 *
 * @param plen
 *   Prefix length, 0..128.
 * @return
 *   Number of distinct hosts (2^32 when more than 32 host bits), 0 if plen > 128.
 */
uint64_t dp_pkt_ipv6_prefix_nhosts(unsigned int plen);

/**
 * RFC 1071 internet checksum of @p data.
 *
 * @param data
 *   Bytes to sum (any alignment).
 * @param len
 *   Number of bytes (odd allowed).
 * @return
 *   The checksum to store, already in network byte order as it sits in memory: memcpy() it
 *   into the checksum field. Summing a region that contains a correct checksum returns 0.
 */
uint16_t dp_pkt_cksum(const void *data, size_t len);

/**
 * Check an IPv4 header checksum over IHL * 4 bytes.
 *
 * @param ip_hdr
 *   Start of the IPv4 header; IHL * 4 bytes must be readable.
 * @return
 *   true if IHL >= 5 and the checksum verifies.
 */
bool dp_pkt_ipv4_hdr_cksum_ok(const uint8_t *ip_hdr);

/**
 * Check the UDP checksum of an Ethernet frame (optional single VLAN tag, IPv4 with options or
 * IPv6 without extension headers). For IPv4 a zero checksum ("none", RFC 768) is accepted;
 * for IPv6 it is not.
 *
 * @param frame
 *   Frame start (Ethernet header), no FCS.
 * @param len
 *   Bytes in @p frame.
 * @return
 *   true if the frame parses as UDP, its lengths are consistent with @p len, and the checksum
 *   verifies; false otherwise.
 */
bool dp_pkt_udp_cksum_ok(const uint8_t *frame, size_t len);

/**
 * Locate the L3 header of an Ethernet frame, skipping at most one 802.1Q tag.
 *
 * @param frame
 *   Frame start.
 * @param len
 *   Bytes in @p frame.
 * @param l3_off
 *   Out: offset of the L3 header.
 * @param ether_type
 *   Out (may be NULL): ethertype of the L3 header, host order.
 * @return
 *   0 on success, -EINVAL on NULL arguments or a frame shorter than its L2 header.
 */
int dp_pkt_l3_offset(const uint8_t *frame, size_t len, size_t *l3_off, uint16_t *ether_type);

/**
 * Turn a valid IPv4 frame (as built by dp_pkt_build()) into a malformed one, in place.
 * DP_PKT_NON_IP also accepts non-IPv4 frames. DP_PKT_TRUNCATED_L3 shortens *len to
 * l3_off + 10; DP_PKT_ARP rewrites the frame as dp_pkt_build_arp() output (60 bytes, which fits
 * since the input is at least 60 bytes); other defects keep *len.
 *
 * @param frame
 *   Frame to modify.
 * @param len
 *   In: frame length; out: new length.
 * @param d
 *   Defect to apply.
 * @return
 *   0 on success, -EINVAL on NULL arguments, unknown defect or a frame that is not a complete
 *   IPv4 (20-byte header at least) frame, -ENOSPC if DP_PKT_ARP gets fewer than 60 bytes.
 */
int dp_pkt_corrupt(uint8_t *frame, size_t *len, enum dp_pkt_defect d);

/**
 * Short stable name of a defect ("truncated_l3", "bad_version", ...).
 *
 * @param d
 *   Defect.
 * @return
 *   Static string, "unknown" for out-of-range values.
 */
const char *dp_pkt_defect_name(enum dp_pkt_defect d);

#ifdef __cplusplus
}
#endif

#endif /* DP_PKT_CRAFT_H */
