/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpgen's TX and RX loops, see gen_worker.h.
 *
 * TX, per burst: take credit from the token bucket, allocate the mbufs in
 * bulk, copy the next templates in (flow after flow, or frame after frame of
 * the pcap), stamp them with one TSC read, send. What the queue refuses stays
 * in tx_mbufs and is offered again before anything new is built, so sequence
 * numbers leave in order and nothing built is dropped by dpgen itself.
 *
 * RX, per burst: one TSC read after rx_burst, then per packet: find the
 * stamp, account its sequence number, record now - stamp in the histogram.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#include "gen_worker.h"

/* After a stop, how long the packets the queue refused are offered again. */
#define STOP_RETRY_MS 10

int
gen_worker_init(struct gen_worker *w, uint64_t seq_window)
{
	const struct gen_traffic *tr = w->traffic;
	uint64_t cost_max = 0, rate, depth;
	uint32_t i;
	int rc;

	/* 58 KiB each, zeroed by main after each interval: plain heap, on the worker's socket */
	for (i = 0; i < 2; i++) {
		w->hist[i] = rte_malloc_socket("gen_hist", dp_hist_size(GEN_HIST_SUB_BITS),
			RTE_CACHE_LINE_SIZE, (int)rte_lcore_to_socket_id(w->lcore));
		if (w->hist[i] == NULL) {
			rc = -ENOMEM;
			goto free_hist;
		}
		dp_hist_init(w->hist[i], GEN_HIST_SUB_BITS);
	}
	w->cur_hist = w->hist[0];
	rc = gen_seq_init(&w->seq, seq_window);
	if (rc < 0)
		goto free_hist;
	if (!w->do_tx)
		return 0;

	/* every template costs the same unless a bps target meets frames of several sizes */
	w->fixed_cost = gen_worker_pkt_cost(&w->rate, w->rate_wire, tr->tmpl[0].len);
	for (i = 0; i < tr->nb_tmpl; i++) {
		uint64_t c = gen_worker_pkt_cost(&w->rate, w->rate_wire, tr->tmpl[i].len);

		if (c != w->fixed_cost)
			w->fixed_cost = 0;
		if (c > cost_max)
			cost_max = c;
	}
	rate = w->rate.kind == GEN_RATE_MAX ? 0 : (uint64_t)llround(w->rate.value);
	/* deep enough for a whole burst, and for catchup_us of falling behind */
	depth = (uint64_t)((double)rate * w->catchup_us / 1e6);
	if (depth < cost_max * w->burst)
		depth = cost_max * w->burst;
	rc = gen_rate_init(&w->bucket, rte_get_tsc_hz(), rate, depth, rte_rdtsc());
	if (rc < 0)
		goto free_seq;
	return 0;

free_seq:
	gen_seq_free(&w->seq);
free_hist:
	rte_free(w->hist[0]);
	rte_free(w->hist[1]);
	w->hist[0] = w->hist[1] = NULL;
	return rc;
}

void
gen_worker_free(struct gen_worker *w)
{
	gen_seq_free(&w->seq);
	rte_free(w->hist[0]);
	rte_free(w->hist[1]);
	w->hist[0] = w->hist[1] = NULL;
}

static void
publish(struct gen_worker *w, uint32_t epoch, uint64_t now)
{
	w->c.tsc = now;
	w->c.tx_behind = w->bucket.missed;
	w->c.seq = w->seq.c;
	w->pub[epoch & 1] = w->c;
	w->cur_hist = w->hist[epoch & 1];
	w->epoch = epoch;
	__atomic_store_n(&w->ack, epoch, __ATOMIC_RELEASE);
}

/* Offer tx_mbufs[tx_head .. tx_n) to the queue once. */
static void
tx_send(struct gen_worker *w)
{
	uint16_t n = (uint16_t)(w->tx_n - w->tx_head), sent, i;
	uint64_t bytes = 0;

	/* lengths from tx_len: a sent mbuf may be freed (net_null) before we could read it */
	sent = rte_eth_tx_burst(w->tx_port, 0, w->tx_mbufs + w->tx_head, n);
	for (i = 0; i < sent; i++)
		bytes += w->tx_len[w->tx_head + i];
	w->c.tx_pkts += sent;
	w->c.tx_bytes += bytes;
	w->tx_head = (uint16_t)(w->tx_head + sent);
	if (sent < n)
		w->c.tx_full++;
	else
		w->tx_head = w->tx_n = 0;
}

/* Free what the queue still refuses after a stop; their numbers were never sent. */
static void
tx_drop_pending(struct gen_worker *w)
{
	const struct gen_traffic *tr = w->traffic;
	uint16_t i;

	for (i = w->tx_head; i < w->tx_n; i++) {
		struct rte_mbuf *m = w->tx_mbufs[i];
		struct gen_stamp st;

		/* the refused ones are the newest: the numbers sent stay 0 .. tx_stamped - 1 */
		if (tr->stamp && gen_stamp_read(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &st) &&
			st.run == tr->run_id)
			w->c.tx_stamped--;
		w->c.tx_unsent++;
	}
	rte_pktmbuf_free_bulk(w->tx_mbufs + w->tx_head, (unsigned int)(w->tx_n - w->tx_head));
	w->tx_head = w->tx_n = 0;
}

/* How many of the next @p n packets the token bucket lets out now; *units = their cost. */
static unsigned int
tx_grant(struct gen_worker *w, uint64_t now, unsigned int n, uint64_t *units)
{
	const struct gen_traffic *tr = w->traffic;
	uint32_t idx = w->tmpl_idx;
	unsigned int i;

	if (w->fixed_cost != 0) {
		n = gen_rate_take(&w->bucket, now, w->fixed_cost, n);
		*units = n * w->fixed_cost;
		return n;
	}
	/* frames of several sizes against a bps target: packet by packet */
	gen_rate_refill(&w->bucket, now);
	*units = 0;
	for (i = 0; i < n; i++) {
		uint64_t c = gen_worker_pkt_cost(&w->rate, w->rate_wire, tr->tmpl[idx].len);

		if (!gen_rate_take_one(&w->bucket, c))
			break;
		*units += c;
		if (++idx == tr->nb_tmpl)
			idx = 0;
	}
	return i;
}

static void
tx_step(struct gen_worker *w, uint64_t now)
{
	const struct gen_traffic *tr = w->traffic;
	unsigned int n, i;
	uint64_t units, tsc;
	bool stop = __atomic_load_n(&w->ctl->stop_tx, __ATOMIC_RELAXED);

	if (w->tx_n != 0) {
		tx_send(w);
		if (w->tx_n == 0 || !stop)
			return;
		if (w->stop_seen_tsc == 0)
			w->stop_seen_tsc = now;
		if (now - w->stop_seen_tsc < rte_get_tsc_hz() / 1000 * STOP_RETRY_MS)
			return;
		tx_drop_pending(w);
	}
	if (stop || (w->tx_limit != 0 && w->generated == w->tx_limit)) {
		w->c.tx_end_tsc = now;
		__atomic_store_n(&w->tx_done, true, __ATOMIC_RELEASE);
		return;
	}
	n = w->burst;
	if (w->tx_limit != 0 && w->tx_limit - w->generated < n)
		n = (unsigned int)(w->tx_limit - w->generated);
	n = tx_grant(w, now, n, &units);
	if (n == 0)
		return;
	if (unlikely(rte_pktmbuf_alloc_bulk(w->pool, w->tx_mbufs, n) != 0)) {
		/* the target is offered load: what could not be built is tried again */
		gen_rate_refund(&w->bucket, units);
		w->c.tx_nombuf++;
		return;
	}
	tsc = rte_rdtsc() & GEN_STAMP_MASK;
	for (i = 0; i < n; i++) {
		const struct gen_tmpl *t = &tr->tmpl[w->tmpl_idx];
		struct rte_mbuf *m = w->tx_mbufs[i];
		bool stamp = tr->stamp && t->stampable;

		gen_pkt_fill(rte_pktmbuf_mtod(m, uint8_t *), t,
			tr->flows != NULL ? &tr->flows[w->flow_idx] : NULL, stamp, tr->run_id,
			w->c.tx_stamped, tsc);
		w->c.tx_stamped += stamp;
		m->data_len = (uint16_t)t->len;
		m->pkt_len = t->len;
		w->tx_len[i] = t->len;
		if (tr->flows != NULL) {
			if (++w->flow_idx == tr->nb_flows)
				w->flow_idx = 0;
		} else if (++w->tmpl_idx == tr->nb_tmpl) {
			w->tmpl_idx = 0;
		}
	}
	w->generated += n;
	w->tx_head = 0;
	w->tx_n = (uint16_t)n;
	tx_send(w);
}

static void
rx_step(struct gen_worker *w)
{
	const struct gen_traffic *tr = w->traffic;
	struct rte_mbuf *pkts[GEN_BURST_MAX];
	struct dp_hist *h = w->cur_hist;
	uint64_t now, bytes = 0;
	uint16_t n, i;

	n = rte_eth_rx_burst(w->rx_port, 0, pkts, w->burst);
	if (n == 0)
		return;
	/* after the burst: a stamp written on the other lcore meanwhile is still older */
	now = rte_rdtsc() & GEN_STAMP_MASK;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct gen_stamp st;
		uint64_t lat;

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		bytes += m->pkt_len;
		if (!gen_stamp_read(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &st)) {
			w->c.rx_other++;
			continue;
		}
		if (st.run != tr->run_id) {
			w->c.rx_foreign++;
			continue;
		}
		w->c.rx_stamped++;
		gen_seq_rx(&w->seq, st.seq);
		lat = (now - st.tsc) & GEN_STAMP_MASK;
		dp_hist_record(h, lat);
		/* delay variation between consecutive packets (RFC 5481 "IPDV"), mean of |d| */
		if (w->have_prev_lat) {
			w->c.jitter_sum +=
				lat > w->prev_lat ? lat - w->prev_lat : w->prev_lat - lat;
			w->c.jitter_n++;
		}
		w->prev_lat = lat;
		w->have_prev_lat = true;
	}
	w->c.rx_pkts += n;
	w->c.rx_bytes += bytes;
	rte_pktmbuf_free_bulk(pkts, n);
}

int
gen_worker_main(void *arg)
{
	struct gen_worker *w = arg;
	struct gen_ctl *ctl = w->ctl;
	uint64_t now = rte_rdtsc();

	if (w->do_tx) {
		/* start the bucket now, not at init: no credit piled up during the set-up */
		w->bucket.last = now;
		w->bucket.credit = 0;
		w->c.tx_start_tsc = now;
	}
	if (ctl->qsv != NULL)
		rte_rcu_qsbr_thread_online(ctl->qsv, w->lcore);
	for (;;) {
		uint32_t e = __atomic_load_n(&ctl->epoch, __ATOMIC_ACQUIRE);

		/* between bursts: no ring of any port is being read or written */
		if (ctl->qsv != NULL)
			rte_rcu_qsbr_quiescent(ctl->qsv, w->lcore);

		now = rte_rdtsc();
		if (unlikely(e != w->epoch))
			publish(w, e, now);
		if (w->do_rx) {
			rx_step(w);
			if (unlikely(__atomic_load_n(&ctl->stop_rx, __ATOMIC_ACQUIRE)))
				break;
		}
		if (w->do_tx && !w->tx_done) {
			tx_step(w, now);
			if (w->tx_done && !w->do_rx)
				break;
		}
	}
	if (ctl->qsv != NULL)
		rte_rcu_qsbr_thread_offline(ctl->qsv, w->lcore);
	w->c.tsc = rte_rdtsc();
	w->c.tx_behind = w->bucket.missed;
	w->c.seq = w->seq.c;
	w->fin = w->c;
	__atomic_store_n(&w->finished, true, __ATOMIC_RELEASE);
	return 0;
}
