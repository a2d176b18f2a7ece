/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen_seq.h"

#define WINDOW_MIN 64
#define WINDOW_MAX (1ULL << 30)

int
gen_seq_init(struct gen_seq *s, uint64_t window)
{
	memset(s, 0, sizeof(*s));
	if (window < WINDOW_MIN || window > WINDOW_MAX || (window & (window - 1)) != 0)
		return -EINVAL;
	s->bits = calloc(window / 64, sizeof(uint64_t));
	if (s->bits == NULL)
		return -ENOMEM;
	s->window = window;
	return 0;
}

void
gen_seq_free(struct gen_seq *s)
{
	free(s->bits);
	s->bits = NULL;
}

static inline bool
seq_test(const struct gen_seq *s, uint64_t seq)
{
	return (s->bits[(seq & (s->window - 1)) >> 6] >> (seq & 63)) & 1;
}

static inline void
seq_set(struct gen_seq *s, uint64_t seq)
{
	s->bits[(seq & (s->window - 1)) >> 6] |= 1ULL << (seq & 63);
}

static inline void
seq_clear(struct gen_seq *s, uint64_t seq)
{
	s->bits[(seq & (s->window - 1)) >> 6] &= ~(1ULL << (seq & 63));
}

/*
 * Numbers old_next .. new_next - 1 become part of the window; the numbers
 * `window` below them leave it and are lost if their bit is clear.
 */
static void
seq_advance(struct gen_seq *s, uint64_t new_next)
{
	uint64_t i = s->next;

	if (new_next - s->next >= s->window) {
		/*
		 * A jump of a whole window or more: every number now in the window is
		 * counted at once (popcount) instead of one by one, so a wild jump
		 * costs one pass over the bitmap.
		 */
		uint64_t in_window = s->next < s->window ? s->next : s->window;
		uint64_t set = 0, w;

		for (w = 0; w < s->window / 64; w++)
			set += (uint64_t)__builtin_popcountll(s->bits[w]);
		s->c.lost += in_window - set;
		/* numbers after the old next that leave the window before arriving */
		s->c.lost += new_next - s->next - s->window;
		memset(s->bits, 0, s->window / 8);
		s->next = new_next;
		return;
	}
	for (; i < new_next; i++) {
		if (i >= s->window && !seq_test(s, i))
			s->c.lost++;
		seq_clear(s, i);
	}
	s->next = new_next;
}

void
gen_seq_rx_slow(struct gen_seq *s, uint64_t seq)
{
	if (seq >= s->next) {
		/* ahead of next: the numbers skipped are holes until they arrive or leave */
		seq_advance(s, seq + 1);
		seq_set(s, seq);
		s->c.received++;
		return;
	}
	if (s->next - seq > s->window) {
		s->c.late++;
		return;
	}
	if (seq_test(s, seq)) {
		s->c.duplicates++;
		return;
	}
	seq_set(s, seq);
	s->c.received++;
	s->c.reordered++;
	if (s->next - 1 - seq > s->c.max_reorder)
		s->c.max_reorder = s->next - 1 - seq;
}

void
gen_seq_finish(struct gen_seq *s, uint64_t sent)
{
	uint64_t lo, i;

	/* numbers still in the window that never arrived */
	lo = s->next > s->window ? s->next - s->window : 0;
	for (i = lo; i < s->next && i < sent; i++)
		if (!seq_test(s, i))
			s->c.lost++;
	/* numbers sent after the highest one received */
	if (sent > s->next)
		s->c.lost += sent - s->next;
	/* nothing may be counted twice if finish is called again */
	memset(s->bits, 0xff, s->window / 8);
	if (sent > s->next)
		s->next = sent;
}
