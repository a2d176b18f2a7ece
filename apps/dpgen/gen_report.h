/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dpgen's output: the per-second line, the per-second samples and the totals
 * as JSON (jansson). Rates count two kinds of bytes, always both, labelled:
 *
 *   frame  the Ethernet frame with its 4-byte FCS (a "64-byte frame" is 64);
 *          the mbuf holds the frame without FCS, so this is pkt_len + 4
 *   wire   frame + 20 bytes of preamble, start delimiter and inter-frame gap:
 *          what a link's line rate counts (10 Gbps = 14.88 Mpps of 64 B frames)
 *
 * Latencies are recorded in TSC cycles and reported in ns (JSON) or us (line).
 */
#ifndef GEN_REPORT_H
#define GEN_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "dp_hist.h"
#include "gen_worker.h"

#define GEN_FCS_BYTES        4
#define GEN_WIRE_EXTRA_BYTES 20 /**< preamble 7 + SFD 1 + inter-frame gap 12 */

struct gen_report {
	double hz;
	bool quiet;
	bool has_tx;
	bool has_rx;
	struct gen_counters prev_tx; /**< last sample's TX counters */
	struct gen_counters prev_rx;
	struct dp_hist *total; /**< every latency of the run */
	json_t *samples;
	unsigned int n;
	uint64_t t0; /**< TSC at launch */

	/* the measured part: from the first sample at or after --warmup to the end */
	uint64_t warmup_tsc;      /**< ticks after t0; 0 = the whole run */
	bool measuring;           /**< the measured part has begun */
	unsigned int m_n;         /**< samples in it */
	uint64_t m_tsc;           /**< TSC where it began */
	struct gen_counters m_tx; /**< counters where it began */
	struct gen_counters m_rx;
	struct dp_hist *measured; /**< its latencies */
};

/** @return 0 or -ENOMEM. */
int gen_report_init(
	struct gen_report *r, double hz, uint64_t t0, bool has_tx, bool has_rx, bool quiet);

void gen_report_free(struct gen_report *r);

/**
 * Start the measured part at the first sample boundary at or after @p secs
 * after t0 (default 0: the whole run). Call before the first interval.
 */
void gen_report_set_warmup(struct gen_report *r, double secs);

/** Print what the columns of the per-second line mean (unless quiet). */
void gen_report_legend(const struct gen_report *r);

/**
 * One interval: the counters published at its end (NULL for a role the run
 * does not have) and its latencies. Prints the line, appends the sample, adds
 * @p h to the run's histogram.
 */
void gen_report_interval(struct gen_report *r, const struct gen_counters *tx,
	const struct gen_counters *rx, const struct dp_hist *h);

/**
 * Totals of the run from the workers' final counters (@p rx's sequence counts
 * already settled with gen_seq_finish()). Prints a summary.
 * @return a new JSON object (NULL on allocation failure).
 */
json_t *gen_report_total(
	struct gen_report *r, const struct gen_counters *tx, const struct gen_counters *rx);

/**
 * The measured part (see gen_report_set_warmup()) from the final counters, as
 * the totals are, plus its latency histogram: "latency_hist_ns" is a list of
 * [low, high, count] for every non-empty bucket, in ns.
 * @return a new JSON object, or JSON null when no sample was measured or
 *         neither @p tx nor @p rx is given.
 */
json_t *gen_report_measured(
	struct gen_report *r, const struct gen_counters *tx, const struct gen_counters *rx);

/** Latency summary of @p h as JSON, in ns: count min mean p50 p90 p99 p99_9 max; null if empty. */
json_t *gen_report_latency_json(const struct dp_hist *h, double hz);

/** Write @p root to @p path atomically (temporary file, then rename). @return 0 or -errno. */
int gen_report_write(json_t *root, const char *path);

#endif /* GEN_REPORT_H */
