/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dpgen's own options (those after "--"): parsed and checked before EAL
 * starts, so that a mistake costs no hugepage and no port. Plain C, no DPDK.
 */
#ifndef GEN_ARGS_H
#define GEN_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gen_pkt.h"
#include "gen_rate.h"

#define GEN_PORT_NONE (-1)

struct gen_opts {
	int tx_port;
	int rx_port; /**< GEN_PORT_NONE: send only */
	struct gen_synth synth;
	bool ipv6;
	uint32_t frame_size; /**< FCS included; 0 = from --payload */
	uint32_t payload;
	bool payload_set;
	bool src_mac_set;
	bool dst_mac_set;
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	struct gen_rate_spec rate;
	const char *rate_text;
	bool rate_wire;
	uint32_t catchup_us;
	uint16_t burst;
	double duration; /**< seconds, 0 = until a signal or --count */
	double warmup;   /**< seconds before the measured part of the run (JSON "measured") */
	uint32_t hold_s; /**< keep the ports open this long after the JSON (or until a signal) */
	uint64_t count;  /**< packets, 0 = no limit */
	const char *pcap;
	uint64_t loops; /**< pcap passes, 0 = no limit */
	bool stamp;
	uint32_t drain_ms;
	const char *json;
	uint64_t seq_window;
	bool quiet;
	const char *drivers_cfg;
};

/**
 * Parse @p argv (argv[0] is the program) into @p o (defaults filled in first).
 * Every error is printed on stderr as "dpgen: <what is wrong>" plus a hint; a
 * value that is rejected is not stored (its field keeps what it had).
 * @return 0, 1 when --help or --version was printed (exit 0), -EINVAL (exit 2).
 */
int gen_args_parse(int argc, char **argv, struct gen_opts *o);

/** The --help text. */
void gen_args_usage(FILE *f);

#endif /* GEN_ARGS_H */
