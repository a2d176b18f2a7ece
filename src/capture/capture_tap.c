/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture's worker side: filter a burst, copy what matches with
 * rte_pcapng_copy() (an Enhanced Packet Block around the bytes, the port as
 * the interface, the direction and the queue), hand the copies to the
 * control lcore. Nothing here waits or retries: a full ring or an empty pool
 * is a counted loss of the capture, never of the forwarded packet.
 */
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>

#include "capture_priv.h"
#include "dp_trace.h"

struct capture_live capture_live;

/* Hand @p k copies to the control lcore; what the ring does not take is a loss. */
static inline void
capture_put(
	struct capture_live *c, struct capture_wstats *st, struct rte_mbuf **copies, unsigned int k)
{
	unsigned int put = rte_ring_mp_enqueue_burst(c->ring, (void **)copies, k, NULL);

	if (put < k) {
		st->ring_full += k - put;
		rte_pktmbuf_free_bulk(copies + put, k - put);
	}
}

/* Filter and copy the burst of a port and direction that is captured. */
static void
capture_burst(struct capture_live *c, struct capture_wstats *st, uint16_t port, uint16_t queue,
	enum rte_pcapng_direction dir, struct rte_mbuf **pkts, uint16_t n)
{
	/* zeroed: the analyser cannot tell that the ring reads only the k set */
	struct rte_mbuf *copies[64] = { NULL };
	const uint64_t tsc = rte_rdtsc();
	/* what the ring has room for: a packet past it is a loss without the copy,
	 * so that a capture the writer cannot keep up with costs the workers what
	 * it writes, not what it matches */
	unsigned int room = rte_ring_free_count(c->ring);
	unsigned int k = 0;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *cp;

		if (!capture_match(&c->f, pkts[i]))
			continue;
		st->matched++;
		if (k >= room) {
			st->ring_full++;
			continue;
		}
		cp = rte_pcapng_copy(port, queue, pkts[i], c->pool, c->snaplen, tsc, dir);
		if (cp == NULL) {
			st->pool_empty++;
			continue;
		}
		copies[k++] = cp;
		if (k == RTE_DIM(copies)) {
			capture_put(c, st, copies, k);
			room -= k;
			k = 0;
		}
	}
	if (k != 0)
		capture_put(c, st, copies, k);
}

void
capture_tap(struct dp_worker *w, uint16_t port, uint16_t queue, bool tx, struct rte_mbuf **pkts,
	uint16_t n)
{
	struct capture_live *c = &capture_live;

	if (tx ? c->tx[port] : c->rx[port])
		capture_burst(c, &c->w[w->index], port, queue,
			tx ? RTE_PCAPNG_DIRECTION_OUT : RTE_PCAPNG_DIRECTION_IN, pkts, n);
	/* a trace armed: one test per burst more, only while the tap is set. Marks only in
	 * a walk that records them: armed after this walk began, the next one marks */
	if (unlikely(dp_trace_armed != 0)) {
		if (tx)
			trace_tap_tx(port, queue, pkts, n);
		else if (w->walk_traced)
			trace_tap_rx(port, queue, pkts, n);
	}
}
