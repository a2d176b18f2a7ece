/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dpgen's lcores: a TX loop (templates -> mbufs -> one TX queue, paced by the
 * token bucket) and an RX loop (one RX queue -> stamps -> sequence accounting
 * and latency histogram), on one worker lcore or two.
 *
 * The main lcore never reads a worker's live counters. Once per interval it
 * bumps gen_ctl.epoch; each worker, at the top of its loop, sees the new epoch,
 * copies its counters into pub[epoch & 1], switches its latency histogram to
 * hist[epoch & 1] and acknowledges. The main lcore then owns pub[] of that
 * epoch and the histogram of the interval that just ended until it bumps the
 * epoch again:
 *
 *   main:    epoch = e+1 ............ wait ack == e+1, read pub[(e+1)&1] and hist[e&1],
 *                                     clear hist[e&1] ......... epoch = e+2 ...
 *   worker:  ... record into hist[e&1] | sees e+1: publish, ack | record into hist[(e+1)&1]
 *
 * So the fast path takes no lock and shares one read-mostly cache line.
 */
#ifndef GEN_WORKER_H
#define GEN_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mempool.h>

#include "dp_hist.h"
#include "gen_pkt.h"
#include "gen_rate.h"
#include "gen_seq.h"

struct rte_rcu_qsbr;

#define GEN_BURST_MAX 64

/** Latency histograms: 128 buckets per power of two, percentiles < 1/128 high (dp_hist.h). */
#define GEN_HIST_SUB_BITS 7

/** What to send; built before launch, read-only afterwards. */
struct gen_traffic {
	const struct gen_tmpl *tmpl; /**< synthetic: 1 template; pcap: one per frame */
	uint32_t nb_tmpl;
	const struct gen_flow *flows; /**< synthetic flows patched onto tmpl[0]; NULL for pcap */
	uint32_t nb_flows;
	bool stamp;      /**< stamp every stampable frame */
	uint16_t run_id; /**< written into stamps; others' stamps are "foreign" */
};

/** A worker's counters. TX fields stay 0 on an RX-only lcore and vice versa. */
struct gen_counters {
	uint64_t tsc; /**< when these were taken */
	uint64_t tx_start_tsc;
	uint64_t tx_end_tsc; /**< 0 while sending */
	uint64_t tx_pkts;
	uint64_t tx_bytes;   /**< as in the mbufs: frame without FCS */
	uint64_t tx_stamped; /**< sequence numbers sent: 0 .. tx_stamped - 1 */
	uint64_t tx_nombuf;  /**< bursts not built for want of mbufs */
	uint64_t tx_full;    /**< TX bursts the queue took only part of */
	uint64_t tx_unsent;  /**< built, refused until the stop, freed */
	uint64_t tx_behind;  /**< TSC ticks of target traffic never sent: the sender fell
			      *   behind by more than --catchup-us (see gen_rate.missed) */
	uint64_t rx_pkts;
	uint64_t rx_bytes;   /**< as received: frame without FCS */
	uint64_t rx_stamped; /**< this run's stamp */
	uint64_t rx_foreign; /**< a stamp with another run id */
	uint64_t rx_other;   /**< no stamp */
	uint64_t jitter_sum; /**< sum of |latency - previous latency|, cycles */
	uint64_t jitter_n;
	struct gen_seq_counts seq;
};

/** Written by the main lcore only. */
struct gen_ctl {
	uint32_t epoch;
	bool stop_tx;
	bool stop_rx;
	/** set before launch when a port's driver unmaps rings under the workers (see
	 * dp_port_unmap_guard()): each worker, as thread id = its lcore id, reports a
	 * quiescent state between bursts and goes offline when it returns */
	struct rte_rcu_qsbr *qsv;
} __rte_cache_aligned;

struct gen_worker {
	/* set by the main lcore before launch */
	struct gen_ctl *ctl;
	unsigned int lcore;
	bool do_tx;
	bool do_rx;
	uint16_t tx_port;
	uint16_t rx_port;
	uint16_t burst; /**< 1 .. GEN_BURST_MAX */
	struct rte_mempool *pool;
	const struct gen_traffic *traffic;
	struct gen_rate_spec rate;
	bool rate_wire;      /**< a bps target counts preamble + IFG too */
	uint32_t catchup_us; /**< token bucket depth, in time at the target rate */
	uint64_t tx_limit;   /**< packets to send, 0 = no limit */

	/* worker state (hot first) */
	struct gen_counters c __rte_cache_aligned;
	uint32_t epoch;
	struct dp_hist *cur_hist;
	struct gen_seq seq;
	struct gen_rate bucket;
	uint64_t fixed_cost; /**< units per packet when all cost the same, else 0 */
	uint64_t generated;  /**< packets built (sent + pending + unsent) */
	uint32_t flow_idx;
	uint32_t tmpl_idx;
	uint64_t prev_lat;
	bool have_prev_lat;
	uint64_t stop_seen_tsc;
	uint16_t tx_head; /**< tx_mbufs[tx_head .. tx_n) are waiting for the queue */
	uint16_t tx_n;
	uint32_t tx_len[GEN_BURST_MAX];
	struct rte_mbuf *tx_mbufs[GEN_BURST_MAX];

	/* shared with the main lcore, see the file comment */
	struct dp_hist *hist[2];
	struct gen_counters pub[2] __rte_cache_aligned;
	struct gen_counters fin; /**< at exit, valid once `finished` */
	uint32_t ack __rte_cache_aligned;
	bool tx_done;
	bool finished;
};

/**
 * Allocate a worker's histograms and sequence bitmap; the caller has set the
 * fields above "worker state".
 * @param seq_window  see gen_seq_init()
 * @return 0, -ENOMEM, -EINVAL (window), -ERANGE (rate out of the bucket's range).
 */
int gen_worker_init(struct gen_worker *w, uint64_t seq_window);

/** Free what gen_worker_init() allocated. */
void gen_worker_free(struct gen_worker *w);

/** The lcore function (rte_eal_remote_launch). */
int gen_worker_main(void *arg);

/**
 * Cost of one packet of @p len bytes (no FCS) in the units of a rate target:
 * 1 for pps, its bits for bps (+4 B FCS, +20 B preamble and IFG with @p wire).
 */
static inline uint64_t
gen_worker_pkt_cost(const struct gen_rate_spec *r, bool wire, uint32_t len)
{
	if (r->kind != GEN_RATE_BPS)
		return 1;
	return (uint64_t)(len + 4 + (wire ? 20 : 0)) * 8;
}

#endif /* GEN_WORKER_H */
