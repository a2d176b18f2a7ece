/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Sequence accounting for dpgen's receive side: loss, reordering and
 * duplicates of one stream of sequence numbers 0, 1, 2, ... (one per run).
 *
 * Definitions (RFC 4737 section 3 for reordering, RFC 5560 for duplicates):
 *  - next       the highest sequence number received so far, plus one;
 *  - reordered  a packet whose number is below next, received for the first time
 *               ("arrived after a packet that was sent later");
 *  - duplicate  a number received before;
 *  - lost       a number not received by the time it is `window` numbers behind
 *               next, or by the end of the run (gen_seq_finish()).
 *
 * Which numbers were received is a bitmap over the last `window` numbers (a
 * power of two), indexed by number modulo the window:
 *
 *        next - window                      next
 *   ... ------|==================================|------> sequence numbers
 *             bit (s & (window - 1)) = s was received
 *
 * When next moves forward, each slot that is reused is first checked: a clear
 * bit there is a number that left the window unreceived, i.e. lost. A packet
 * older than the window cannot be told from a duplicate any more: it is
 * counted as `late` (it was already counted lost). Plain C, no DPDK.
 */
#ifndef GEN_SEQ_H
#define GEN_SEQ_H

#include <stdbool.h>
#include <stdint.h>

/** Counters; all monotonic except when gen_seq_finish() settles `lost`. */
struct gen_seq_counts {
	uint64_t received;    /**< distinct numbers received (in the window) */
	uint64_t reordered;   /**< received below next, first time */
	uint64_t duplicates;  /**< received again while still in the window */
	uint64_t lost;        /**< left the window (or the run ended) unreceived */
	uint64_t late;        /**< older than the window: counted lost already */
	uint64_t max_reorder; /**< largest next - 1 - seq of a reordered packet */
};

struct gen_seq {
	struct gen_seq_counts c;
	uint64_t next;   /**< highest number received + 1; 0 before the first */
	uint64_t window; /**< power of two */
	uint64_t *bits;  /**< window bits */
};

/**
 * @param window  how far (in packets) a packet may be late and still count as
 *                reordered rather than lost; a power of two, 64 .. 2^30
 * @return 0, -EINVAL (not a power of two, out of range), -ENOMEM.
 */
int gen_seq_init(struct gen_seq *s, uint64_t window);

/** Free the bitmap. */
void gen_seq_free(struct gen_seq *s);

/** Everything but the in-order case. */
void gen_seq_rx_slow(struct gen_seq *s, uint64_t seq);

/** Account one received sequence number. */
static inline void
gen_seq_rx(struct gen_seq *s, uint64_t seq)
{
	uint64_t slot, bit;

	if (__builtin_expect(seq != s->next, 0)) {
		gen_seq_rx_slow(s, seq);
		return;
	}
	/* in order: reuse the slot of seq - window */
	slot = (seq & (s->window - 1)) >> 6;
	bit = 1ULL << (seq & 63);
	if (seq >= s->window && !(s->bits[slot] & bit))
		s->c.lost++;
	s->bits[slot] |= bit;
	s->next = seq + 1;
	s->c.received++;
}

/**
 * The run is over and @p sent numbers (0 .. sent - 1) were sent: every one not
 * received is lost. Afterwards lost + received = sent (when nothing was late
 * and no number >= sent arrived).
 */
void gen_seq_finish(struct gen_seq *s, uint64_t sent);

#endif /* GEN_SEQ_H */
