/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Load a pcap file into dpgen templates, to be replayed in a loop (as
 * tcpreplay --loop does), with the MACs optionally rewritten. libpcap, no DPDK.
 */
#ifndef GEN_PCAP_H
#define GEN_PCAP_H

#include <stdint.h>

#include "gen_pkt.h"

#define GEN_PCAP_MAX_PKTS  (1u << 20)
#define GEN_PCAP_MAX_BYTES (1ULL << 30)

/** What gen_pcap_load() found, for the start-up message and the JSON. */
struct gen_pcap_info {
	uint32_t packets;   /**< templates loaded */
	uint32_t stampable; /**< IPv4/IPv6 UDP frames with room for a stamp */
	uint32_t truncated; /**< captured shorter than on the wire: sent as captured */
	uint32_t oversize;  /**< longer than GEN_FRAME_MAX - 4: skipped */
	uint32_t max_len;   /**< longest template, bytes without FCS */
	uint64_t bytes;     /**< sum of template lengths */
};

/**
 * Read every frame of @p path (Ethernet link type only) into a malloc'd array
 * of templates, each parsed by gen_tmpl_parse(). When @p src_mac / @p dst_mac
 * are not NULL, every frame gets them.
 *
 * @param tmpl  receives the array (free with gen_pcap_free())
 * @param err   receives a message naming the file and what is wrong
 * @return 0, -ENOENT/-EIO (cannot read: libpcap's message in @p err),
 *   -EINVAL (not Ethernet, no frame, too many frames or bytes), -ENOMEM.
 */
int gen_pcap_load(const char *path, const uint8_t *src_mac, const uint8_t *dst_mac,
	struct gen_tmpl **tmpl, struct gen_pcap_info *info, char *err, size_t errlen);

/** Free the templates of gen_pcap_load(). */
void gen_pcap_free(struct gen_tmpl *tmpl, uint32_t n);

#endif /* GEN_PCAP_H */
