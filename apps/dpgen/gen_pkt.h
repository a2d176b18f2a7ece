/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What dpgen sends: frame templates, the per-flow fields patched into them,
 * and the stamp (sequence number + TSC) it writes into each UDP payload and
 * reads back on receive. Plain C (libc + dp_pkt_craft), no DPDK, so that the
 * unit tests can check every byte.
 *
 * Stamp, the first 18 bytes of the UDP payload, network byte order. 18 bytes
 * because that is all a 64-byte IPv4/UDP frame has (64 - 4 FCS - 14 - 20 - 8):
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                 magic 0x64704731 ("dpG1")                     |
 *   +-------------------------------+-------------------------------+
 *   |            run id             |                               |
 *   +-------------------------------+                               +
 *   |                 sequence number (48 bits)                     |
 *   +---------------------------------------------------------------+
 *   |                 TSC at transmit (low 48 bits)                 |
 *   +-------------------------------+                               +
 *   |                               |
 *   +-------------------------------+
 *
 * 48 bits of sequence last 270 days at 12 Mpps; 48 bits of a 3 GHz TSC wrap
 * every 26 hours, and latency is taken modulo 2^48, so only a latency above
 * 26 hours would be misread. The run id (random per run) keeps packets of an
 * earlier run, still in a ring, out of this run's accounting.
 *
 * Checksums: a flow's UDP checksum is kept as a partial one's complement sum
 * over everything but the stamp (the stamp area counts as zeros), so a stamped
 * packet costs 9 additions and a fold, never a pass over the payload (RFC 1071
 * section 2: the sum is associative, and byte-order independent).
 */
#ifndef GEN_PKT_H
#define GEN_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dp_cksum.h"
#include "dp_pkt_craft.h"

#define GEN_STAMP_LEN   18
#define GEN_STAMP_MAGIC 0x64704731u
#define GEN_STAMP_MASK  ((1ULL << 48) - 1)
#define GEN_FLOWS_MAX   (1u << 20)
#define GEN_FRAME_MAX   9000u /**< frame size limit, FCS included */

/** One frame to send, as it sits in an mbuf (no FCS). */
struct gen_tmpl {
	uint8_t *data;
	uint32_t len;       /**< bytes in @p data (frame size - 4) */
	uint16_t l3_off;    /**< IPv4/IPv6 header */
	uint16_t l4_off;    /**< UDP header, valid when @p udp */
	uint8_t ip_version; /**< 4, 6, 0 = not IP */
	bool udp;           /**< a whole UDP header is there, not a later fragment */
	bool stampable;     /**< UDP with >= GEN_STAMP_LEN payload bytes in the frame */
	bool udp_cksum;     /**< the UDP checksum is in use (IPv4 may send 0 = none) */
	uint16_t udp_sum;   /**< folded sum of pseudo header + UDP, checksum and stamp as 0 */
};

/** Fields of one synthetic flow, patched onto the template at send time. */
struct gen_flow {
	uint16_t udp_sum;  /**< as gen_tmpl.udp_sum, for this flow's port and address */
	uint16_t sport_be; /**< UDP source port, network order */
	uint16_t ip_cksum; /**< IPv4 header checksum as stored (IPv6: unused) */
	uint8_t saddr[16]; /**< source address as stored (IPv4: first 4 bytes) */
};

/** A decoded stamp. */
struct gen_stamp {
	uint16_t run;
	uint64_t seq; /**< 48 bits */
	uint64_t tsc; /**< 48 bits */
};

/** Description of synthetic traffic (dpgen's --flows, --frame-size, ... options). */
struct gen_synth {
	struct dp_pkt_spec base; /**< flow 0; its frame_len or payload_len sets the size */
	uint32_t flows;          /**< 1 .. GEN_FLOWS_MAX */
	unsigned int vary;       /**< DP_PKT_VARY_SPORT / _SADDR */
	unsigned int src_plen;   /**< source prefix length for DP_PKT_VARY_SADDR */
};

/**
 * Parse a frame (Ethernet, one optional 802.1Q tag, IPv4 or IPv6 without
 * extension headers, UDP) and fill everything in @p t but data/len from it,
 * computing udp_sum over the frame's own bytes with the stamp area as zeros.
 * Frames that are not IPv4/IPv6 UDP are valid templates; they are just not
 * stampable.
 */
void gen_tmpl_parse(struct gen_tmpl *t);

/**
 * Build the template of synthetic traffic (flow 0, stamp area zeroed) and the
 * table of every flow's fields.
 * @param flows  receives a malloc'd array of @p s->flows entries
 * @return 0, -EINVAL (spec rejected by dp_pkt_build, or no room for a stamp
 *   when @p need_stamp), -ENOMEM.
 */
int gen_synth_build(
	const struct gen_synth *s, bool need_stamp, struct gen_tmpl *t, struct gen_flow **flows);

/** Free what gen_synth_build() or the pcap loader put in @p t. */
void gen_tmpl_free(struct gen_tmpl *t);

/** Write a stamp at @p p (GEN_STAMP_LEN bytes). */
static inline void
gen_stamp_write(uint8_t *p, uint16_t run, uint64_t seq, uint64_t tsc)
{
	p[0] = (uint8_t)(GEN_STAMP_MAGIC >> 24);
	p[1] = (uint8_t)(GEN_STAMP_MAGIC >> 16);
	p[2] = (uint8_t)(GEN_STAMP_MAGIC >> 8);
	p[3] = (uint8_t)GEN_STAMP_MAGIC;
	p[4] = (uint8_t)(run >> 8);
	p[5] = (uint8_t)run;
	p[6] = (uint8_t)(seq >> 40);
	p[7] = (uint8_t)(seq >> 32);
	p[8] = (uint8_t)(seq >> 24);
	p[9] = (uint8_t)(seq >> 16);
	p[10] = (uint8_t)(seq >> 8);
	p[11] = (uint8_t)seq;
	p[12] = (uint8_t)(tsc >> 40);
	p[13] = (uint8_t)(tsc >> 32);
	p[14] = (uint8_t)(tsc >> 24);
	p[15] = (uint8_t)(tsc >> 16);
	p[16] = (uint8_t)(tsc >> 8);
	p[17] = (uint8_t)tsc;
}

/** One's complement sum of @p n bytes (n even) as 16-bit big-endian words, unfolded. */
static inline uint32_t
gen_sum16(const uint8_t *p, unsigned int n)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	return sum;
}

/**
 * Build one frame into @p dst (at least t->len bytes): the template, the
 * flow's port/address/IPv4 checksum when @p f is not NULL, the stamp when
 * @p stamp (the template must be stampable), and the UDP checksum.
 */
static inline void
gen_pkt_fill(uint8_t *dst, const struct gen_tmpl *t, const struct gen_flow *f, bool stamp,
	uint16_t run, uint64_t seq, uint64_t tsc)
{
	uint32_t sum;
	uint16_t ck;
	uint8_t *udp;

	memcpy(dst, t->data, t->len);
	if (!t->udp)
		return;
	udp = dst + t->l4_off;
	sum = t->udp_sum;
	if (f != NULL) {
		sum = f->udp_sum;
		memcpy(udp, &f->sport_be, 2);
		if (t->ip_version == 4) {
			memcpy(dst + t->l3_off + 12, f->saddr, 4);
			memcpy(dst + t->l3_off + 10, &f->ip_cksum, 2);
		} else {
			memcpy(dst + t->l3_off + 8, f->saddr, 16);
		}
	} else if (!stamp) {
		return; /* a replayed frame goes out as captured */
	}
	if (stamp) {
		gen_stamp_write(udp + 8, run, seq, tsc);
		sum += gen_sum16(udp + 8, GEN_STAMP_LEN);
	}
	if (!t->udp_cksum)
		return;
	ck = (uint16_t)~dp_cksum_fold(sum);
	if (ck == 0)
		ck = 0xffff; /* RFC 768: a computed zero is sent as all ones */
	udp[6] = (uint8_t)(ck >> 8);
	udp[7] = (uint8_t)ck;
}

/**
 * Find the UDP payload of a frame (as gen_tmpl_parse() does, without the
 * template) and decode a stamp there.
 * @return true if the frame is IPv4/IPv6 UDP with a stamp (magic matches).
 */
static inline bool
gen_stamp_read(const uint8_t *f, size_t len, struct gen_stamp *st)
{
	size_t off = 12;
	uint16_t et;
	const uint8_t *p;

	if (len < 14)
		return false;
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == DP_PKT_ETHERTYPE_VLAN) {
		if (len < 18)
			return false;
		off += 4;
		et = (uint16_t)(f[16] << 8 | f[17]);
	}
	off += 2;
	if (et == DP_PKT_ETHERTYPE_IPV4) {
		unsigned int ihl;

		if (len < off + 20)
			return false;
		ihl = (f[off] & 0xfu) * 4u;
		/* protocol UDP, not a later fragment (offset 0) */
		if (f[off + 9] != 17 || ihl < 20 || ((f[off + 6] & 0x1f) | f[off + 7]) != 0)
			return false;
		off += ihl;
	} else if (et == DP_PKT_ETHERTYPE_IPV6) {
		if (len < off + 40 || f[off + 6] != 17)
			return false;
		off += 40;
	} else {
		return false;
	}
	off += 8;
	if (len < off + GEN_STAMP_LEN)
		return false;
	p = f + off;
	if (((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]) !=
		GEN_STAMP_MAGIC)
		return false;
	st->run = (uint16_t)(p[4] << 8 | p[5]);
	st->seq = (uint64_t)p[6] << 40 | (uint64_t)p[7] << 32 | (uint64_t)p[8] << 24 |
		  (uint64_t)p[9] << 16 | (uint64_t)p[10] << 8 | p[11];
	st->tsc = (uint64_t)p[12] << 40 | (uint64_t)p[13] << 32 | (uint64_t)p[14] << 24 |
		  (uint64_t)p[15] << 16 | (uint64_t)p[16] << 8 | p[17];
	return true;
}

#endif /* GEN_PKT_H */
