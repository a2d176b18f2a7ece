/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared-memory layout of dpsock (src/endpoint/dpsock_shm.[ch]), without
 * EAL and without dpfwd: regions made in a memfd, checked after a second
 * mapping, pipes used from two processes, and the checks dpfwd relies on when
 * an application hands it offsets.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dp_test.h"
#include "dpsock_shm.h"

static const struct dpsock_pipe_spec ep_specs[DPSOCK_REGION_PIPES] = {
	{ { 64, 4, 0 }, RING_F_SP_ENQ | RING_F_SC_DEQ, RING_F_SC_DEQ },
	{ { 32, 2, 2 }, RING_F_SC_DEQ, RING_F_SP_ENQ },
};

/* A channel's: sequence-slot data rings (one application at each end). */
static const struct dpsock_pipe_spec chan_specs[DPSOCK_REGION_PIPES] = {
	{ { 16, 2, 1 }, 0, RING_F_SP_ENQ | RING_F_SC_DEQ, DPSOCK_DATA_SEQ },
	{ { 16, 2, 1 }, 0, RING_F_SP_ENQ | RING_F_SC_DEQ, DPSOCK_DATA_SEQ },
};

/* A region in a memfd, mapped twice (as dpfwd and an application would). */
struct two_maps {
	int fd;
	size_t size;
	void *a, *b;
};

static int
two_maps_make(struct two_maps *t, const struct dpsock_pipe_spec *specs)
{
	t->size = dpsock_region_init(NULL, specs, 2000000000ull);
	if (t->size == 0)
		return -1;
	t->fd = memfd_create("test_dpsock_shm", MFD_CLOEXEC);
	if (t->fd < 0 || ftruncate(t->fd, (off_t)t->size) < 0)
		return -1;
	t->a = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	t->b = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->a == MAP_FAILED || t->b == MAP_FAILED)
		return -1;
	return dpsock_region_init(t->a, specs, 2000000000ull) == t->size ? 0 : -1;
}

static void
two_maps_free(struct two_maps *t)
{
	munmap(t->a, t->size);
	munmap(t->b, t->size);
	close(t->fd);
}

static void
test_shm_region_sized_then_checked_in_a_second_mapping(void)
{
	struct two_maps t;
	struct dpsock_region *r;
	struct dpsock_pipe *p;
	uint64_t saved;

	CU_ASSERT_FATAL(two_maps_make(&t, ep_specs) == 0);
	CU_ASSERT(t.size % 4096 == 0);
	/* the other mapping sees a whole region: same layout, another address */
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), 0);
	r = t.b;
	CU_ASSERT_EQUAL(r->alive, 1);
	CU_ASSERT_EQUAL(r->tsc_hz, 2000000000ull);
	p = dpsock_region_pipe(t.b, 1);
	CU_ASSERT_EQUAL(p->nb_bufs, 36);
	CU_ASSERT_EQUAL(p->cls[2].count, 2);
	CU_ASSERT_EQUAL(p->cls[2].cap, DPSOCK_CLASS2_CAP);
	/* every buffer waits on its class's free ring */
	CU_ASSERT_EQUAL(rte_ring_count(dpsock_pipe_free_ring(t.b, p, 0)), 32);
	CU_ASSERT_EQUAL(rte_ring_count(dpsock_pipe_free_ring(t.b, p, 1)), 2);
	CU_ASSERT_EQUAL(rte_ring_count(dpsock_pipe_free_ring(t.b, p, 2)), 2);
	/* too small a mapping, a bad magic or an offset outside: not accepted */
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size - 4096), -EPROTO);
	saved = r->pipe_off[1];
	r->pipe_off[1] = t.size;
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), -EPROTO);
	r->pipe_off[1] = saved;
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), 0);
	p->cls[1].count = 1u << 30;
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), -EPROTO);
	p->cls[1].count = 2;
	r->magic++;
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), -EPROTO);
	two_maps_free(&t);
}

static void
test_shm_empty_pipe_or_huge_count_refused(void)
{
	struct dpsock_pipe_spec bad[DPSOCK_REGION_PIPES] = {
		{ { 0, 0, 0 }, 0, 0 },
		{ { 16, 0, 0 }, 0, 0 },
	};

	CU_ASSERT_EQUAL(dpsock_region_init(NULL, bad, 1), 0);
	bad[0].count[0] = 16;
	bad[1].count[2] = (1u << 20) + 1;
	CU_ASSERT_EQUAL(dpsock_region_init(NULL, bad, 1), 0);
}

static void
test_shm_class_for_length_and_offset_checks(void)
{
	struct two_maps t;
	struct dpsock_pipe *p;
	uint64_t off[4];
	uint32_t slot = UINT32_MAX;

	CU_ASSERT_FATAL(two_maps_make(&t, ep_specs) == 0);
	p = dpsock_region_pipe(t.a, 0); /* classes 0 and 1, no class 2 */
	CU_ASSERT_EQUAL(dpsock_pipe_class_for(p, 0), 0);
	CU_ASSERT_EQUAL(dpsock_pipe_class_for(p, DPSOCK_CLASS0_CAP), 0);
	CU_ASSERT_EQUAL(dpsock_pipe_class_for(p, DPSOCK_CLASS0_CAP + 1), 1);
	CU_ASSERT_EQUAL(dpsock_pipe_class_for(p, DPSOCK_CLASS1_CAP + 1), -1);

	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, p, 1, off, 4), 4);
	CU_ASSERT_EQUAL(dpsock_pipe_alloc(t.a, p, 1, off, 1), 0); /* class 1 is out */
	CU_ASSERT_EQUAL(dpsock_pipe_alloc(t.a, p, 2, off, 1), 0); /* no class 2 here */
	CU_ASSERT_EQUAL(dpsock_pipe_buf_check(p, off[0], &slot), 1);
	CU_ASSERT(slot >= 64 && slot < 68); /* class 1 slots follow class 0's 64 */
	CU_ASSERT_EQUAL(dpsock_pipe_buf_class(p, off[0]), 1);
	/* what an application could hand dpfwd instead of a buffer */
	CU_ASSERT_EQUAL(dpsock_pipe_buf_check(p, off[0] + 8, &slot), -1);
	CU_ASSERT_EQUAL(dpsock_pipe_buf_check(p, 0, &slot), -1);
	CU_ASSERT_EQUAL(dpsock_pipe_buf_check(p, UINT64_MAX - 63, &slot), -1);
	CU_ASSERT_EQUAL(dpsock_pipe_buf_check(p, p->cls[0].off + 64ull * p->cls[0].stride, &slot),
		1); /* the first of class 1 right after class 0 */
	CU_ASSERT_EQUAL(dpsock_pipe_buf_check(p, p->cls[1].off + 4ull * p->cls[1].stride, &slot),
		-1); /* one past the last */
	dpsock_pipe_release(t.a, p, off, 4);
	CU_ASSERT_EQUAL(rte_ring_count(dpsock_pipe_free_ring(t.a, p, 1)), 4);
	two_maps_free(&t);
}

static void
test_shm_mixed_classes_released_to_their_own_rings(void)
{
	struct two_maps t;
	struct dpsock_pipe *p;
	uint64_t off[6];

	CU_ASSERT_FATAL(two_maps_make(&t, ep_specs) == 0);
	p = dpsock_region_pipe(t.a, 1);
	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, p, 0, &off[0], 2), 2);
	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, p, 2, &off[2], 2), 2);
	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, p, 1, &off[4], 1), 1);
	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, p, 0, &off[5], 1), 1);
	dpsock_pipe_send(t.a, p, off, 6);
	CU_ASSERT_EQUAL(dpsock_pipe_pending(t.b, dpsock_region_pipe(t.b, 1)), 6);
	{
		struct dpsock_pipe *pb = dpsock_region_pipe(t.b, 1);
		uint64_t got[8];

		CU_ASSERT_EQUAL_FATAL(dpsock_pipe_recv(t.b, pb, got, 8), 6);
		CU_ASSERT_EQUAL(memcmp(got, off, sizeof(off)), 0);
		dpsock_pipe_release(t.b, pb, got, 6);
	}
	CU_ASSERT_EQUAL(rte_ring_count(dpsock_pipe_free_ring(t.a, p, 0)), 32);
	CU_ASSERT_EQUAL(rte_ring_count(dpsock_pipe_free_ring(t.a, p, 1)), 2);
	CU_ASSERT_EQUAL(rte_ring_count(dpsock_pipe_free_ring(t.a, p, 2)), 2);
	two_maps_free(&t);
}

static void
test_shm_sleep_flag_taken_once_by_producer(void)
{
	struct two_maps t;
	struct dpsock_pipe *p;
	uint64_t off;

	CU_ASSERT_FATAL(two_maps_make(&t, ep_specs) == 0);
	p = dpsock_region_pipe(t.a, 0);
	CU_ASSERT_FALSE(dpsock_pipe_wake_needed(p));
	CU_ASSERT_TRUE(dpsock_pipe_sleep_prepare(t.a, p)); /* empty: may sleep */
	CU_ASSERT_TRUE(dpsock_pipe_wake_needed(p));
	CU_ASSERT_FALSE(dpsock_pipe_wake_needed(p)); /* one wake per sleep */
	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, p, 0, &off, 1), 1);
	dpsock_pipe_send(t.a, p, &off, 1);
	CU_ASSERT_FALSE(dpsock_pipe_sleep_prepare(t.a, p)); /* data came: no sleep */
	CU_ASSERT_EQUAL(p->sleeping, 0);
	two_maps_free(&t);
}

/* One side of a pipe, by its data ring's kind. */
struct side {
	void *region;
	struct dpsock_pipe *p;
	struct dpsock_seq_pos seq;
};

static void
side_init(struct side *sd, void *region, unsigned int pipe)
{
	sd->region = region;
	sd->p = dpsock_region_pipe(region, pipe);
	dpsock_seq_pos_init(&sd->seq, region, sd->p);
}

static void
side_send(struct side *sd, const uint64_t *offs, unsigned int n)
{
	if (sd->p->data_kind == DPSOCK_DATA_SEQ)
		dpsock_seq_send(&sd->seq, sd->region, offs, n);
	else
		dpsock_pipe_send(sd->region, sd->p, offs, n);
}

static unsigned int
side_recv(struct side *sd, uint64_t *offs, unsigned int n)
{
	if (sd->p->data_kind == DPSOCK_DATA_SEQ)
		return dpsock_seq_recv(&sd->seq, offs, n);
	return dpsock_pipe_recv(sd->region, sd->p, offs, n);
}

/* Two processes: 100000 datagrams through pipe 0 of @p specs, each carrying its number. */
static void
two_processes_every_datagram_in_order(const struct dpsock_pipe_spec *specs)
{
	const uint32_t n = 100000;
	struct two_maps t;
	struct side rx;
	pid_t pid;
	int status;
	uint32_t want = 0, bad = 0;

	CU_ASSERT_FATAL(two_maps_make(&t, specs) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		/* the producer, in the first mapping */
		struct side tx;
		uint32_t i = 0;

		side_init(&tx, t.a, 0);
		while (i < n) {
			uint64_t off;
			struct dpsock_msg *m;

			if (dpsock_pipe_alloc(t.a, tx.p, 0, &off, 1) == 0)
				continue;
			m = dpsock_buf(t.a, off);
			m->len = sizeof(i) + (i % 1500);
			memcpy(dpsock_msg_data(m), &i, sizeof(i));
			memset((char *)dpsock_msg_data(m) + sizeof(i), (int)(i & 0xff), i % 1500);
			side_send(&tx, &off, 1);
			i++;
		}
		_exit(0);
	}
	side_init(&rx, t.b, 0);
	while (want < n) {
		uint64_t offs[32];
		unsigned int k, got = side_recv(&rx, offs, 32);

		for (k = 0; k < got; k++) {
			struct dpsock_msg *m = dpsock_buf(t.b, offs[k]);
			const uint8_t *d = dpsock_msg_data(m);
			uint32_t seq, j;

			memcpy(&seq, d, sizeof(seq));
			if (seq != want || m->len != sizeof(seq) + (seq % 1500))
				bad++;
			for (j = sizeof(seq); j < m->len; j++)
				if (d[j] != (seq & 0xff)) {
					bad++;
					break;
				}
			want++;
		}
		dpsock_pipe_release(t.b, rx.p, offs, got);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(bad, 0);
	two_maps_free(&t);
}

static void
test_shm_two_processes_every_datagram_in_order(void)
{
	two_processes_every_datagram_in_order(ep_specs);
}

static void
test_shm_seq_two_processes_every_datagram_in_order(void)
{
	two_processes_every_datagram_in_order(chan_specs);
}

/*
 * A sequence ring in one process: checked in the second mapping (a bad kind
 * refused), then laps of it: what is sent comes out in order, once, and the
 * consumer sees nothing before the producer's sequence says so.
 */
static void
test_shm_seq_ring_laps_in_order(void)
{
	struct two_maps t;
	struct side tx, rx;
	uint64_t offs[19], got[24];
	unsigned int lap, i, n, slots;

	CU_ASSERT_FATAL(two_maps_make(&t, chan_specs) == 0);
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), 0);
	side_init(&tx, t.a, 1);
	side_init(&rx, t.b, 1);
	CU_ASSERT_EQUAL(tx.p->data_kind, DPSOCK_DATA_SEQ);
	slots = tx.seq.mask + 1;
	CU_ASSERT(slots > tx.p->nb_bufs); /* a slot for every buffer: the producer never waits */
	CU_ASSERT_FALSE(dpsock_seq_pending(&rx.seq));
	CU_ASSERT_EQUAL(side_recv(&rx, got, 24), 0);
	n = tx.p->nb_bufs;
	CU_ASSERT_EQUAL_FATAL(n, 19);
	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, tx.p, 0, offs, 16), 16);
	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, tx.p, 1, offs + 16, 2), 2);
	CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, tx.p, 2, offs + 18, 1), 1);
	/* every buffer in flight, many times round the ring, in uneven steps */
	for (lap = 0; lap < 50; lap++) {
		unsigned int k = 0, step = 1 + lap % 7;

		for (i = 0; i < n; i += step)
			side_send(&tx, offs + i, i + step <= n ? step : n - i);
		CU_ASSERT_TRUE(dpsock_seq_pending(&rx.seq));
		while (k < n) {
			unsigned int m = side_recv(&rx, got + k, 5);

			if (m == 0)
				break;
			k += m;
		}
		CU_ASSERT_EQUAL(k, n);
		CU_ASSERT_EQUAL(memcmp(got, offs, n * sizeof(offs[0])), 0);
		CU_ASSERT_FALSE(dpsock_seq_pending(&rx.seq));
		CU_ASSERT_EQUAL(side_recv(&rx, got, 24), 0);
	}
	CU_ASSERT_EQUAL(rx.seq.pos, 50u * n);
	/* a slot written for a later lap (a peer that lied) is not taken for this one */
	tx.seq.pos += slots;
	side_send(&tx, offs, 1);
	CU_ASSERT_FALSE(dpsock_seq_pending(&rx.seq));
	CU_ASSERT_EQUAL(side_recv(&rx, got, 1), 0);
	/* a data ring kind this library does not know: the region is refused */
	dpsock_region_pipe(t.a, 0)->data_kind = 7;
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), -EPROTO);
	two_maps_free(&t);
}

/* A datagram of up to DPSOCK_SEQ_INLINE bytes is in its slot as well; a larger one only in its buffer. */
static void
test_shm_seq_small_datagram_in_its_slot(void)
{
	static const uint32_t lens[] = { 0, 1, 8, DPSOCK_SEQ_INLINE, DPSOCK_SEQ_INLINE + 1, 1500 };
	struct two_maps t;
	struct side tx, rx;
	unsigned int i;

	CU_ASSERT_FATAL(two_maps_make(&t, chan_specs) == 0);
	side_init(&tx, t.a, 0);
	side_init(&rx, t.b, 0);
	for (i = 0; i < RTE_DIM(lens); i++) {
		const struct dpsock_seq_slot *sl;
		struct dpsock_msg *m;
		uint8_t *d;
		uint64_t off, got = 0;
		uint32_t j;

		CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, tx.p, 0, &off, 1), 1);
		m = dpsock_buf(t.a, off);
		d = dpsock_msg_data(m);
		for (j = 0; j < lens[i]; j++)
			d[j] = (uint8_t)(j * 7 + i);
		m->len = lens[i];
		CU_ASSERT_PTR_NULL(dpsock_seq_peek(&rx.seq));
		side_send(&tx, &off, 1);
		sl = dpsock_seq_peek(&rx.seq);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sl);
		CU_ASSERT_EQUAL(sl->off, off);
		CU_ASSERT_EQUAL(sl->len, lens[i]);
		if (lens[i] <= DPSOCK_SEQ_INLINE) {
			CU_ASSERT_EQUAL(memcmp(sl->data, d, lens[i]), 0);
		} else {
			/* nothing copied: the slot holds an earlier lap's bytes (zeros here) */
			CU_ASSERT_NOT_EQUAL(memcmp(sl->data, d, DPSOCK_SEQ_INLINE), 0);
		}
		/* peeking took nothing: the same slot comes out of a receive */
		CU_ASSERT_EQUAL(side_recv(&rx, &got, 1), 1);
		CU_ASSERT_EQUAL(got, off);
		dpsock_pipe_release(t.b, rx.p, &got, 1);
	}
	two_maps_free(&t);
}

/*
 * A side taken over by a fresh mapping (a forked process after its sibling): the slots
 * give the producer's place past the newest datagram and the consumer's at the oldest one
 * not taken, laps included, so that neither a datagram is lost nor one read twice.
 */
static void
test_shm_seq_positions_taken_up_by_another_side(void)
{
	struct two_maps t;
	struct side tx, rx, tx2, rx2;
	uint64_t offs[8], got[8], prod, cons;
	unsigned int lap, i;

	CU_ASSERT_FATAL(two_maps_make(&t, chan_specs) == 0);
	side_init(&tx, t.a, 0);
	side_init(&rx, t.b, 0);
	/* a fresh ring: both at 0 */
	dpsock_seq_positions(&rx.seq, &prod, &cons);
	CU_ASSERT(prod == 0 && cons == 0);
	for (lap = 0; lap < 3 * (rx.seq.mask + 1) / 5; lap++) {
		CU_ASSERT_EQUAL_FATAL(dpsock_pipe_alloc(t.a, tx.p, 0, offs, 5), 5);
		for (i = 0; i < 5; i++)
			((struct dpsock_msg *)dpsock_buf(t.a, offs[i]))->len = 0;
		side_send(&tx, offs, 5);
		/* three of five read: two wait */
		CU_ASSERT_EQUAL_FATAL(side_recv(&rx, got, 3), 3);
		dpsock_pipe_release(t.b, rx.p, got, 3);
		/* new sides, as a forked process makes them: the same places as the old ones */
		side_init(&tx2, t.a, 0);
		side_init(&rx2, t.b, 0);
		dpsock_seq_positions(&tx2.seq, &prod, &cons);
		CU_ASSERT_EQUAL(prod, tx.seq.pos);
		CU_ASSERT_EQUAL(cons, rx.seq.pos);
		CU_ASSERT_EQUAL(prod - cons, 2);
		/* the new consumer reads the two left, in order */
		rx2.seq.pos = cons;
		CU_ASSERT_EQUAL_FATAL(side_recv(&rx2, got, 8), 2);
		CU_ASSERT(got[0] == offs[3] && got[1] == offs[4]);
		dpsock_pipe_release(t.b, rx.p, got, 2);
		rx.seq.pos = rx2.seq.pos;
		dpsock_seq_positions(&rx2.seq, &prod, &cons);
		CU_ASSERT(prod == tx.seq.pos && cons == prod);
	}
	two_maps_free(&t);
}

/* The held buffers' places of an endpoint region: after the pipes, a run per class. */
static void
test_shm_held_places_inside_and_checked(void)
{
	struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES];
	const struct dpsock_held *h;
	struct dpsock_region *r;
	struct two_maps t;
	uint64_t saved;

	memcpy(specs, ep_specs, sizeof(specs));
	specs[0].held = true;
	CU_ASSERT_FATAL(two_maps_make(&t, specs) == 0);
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), 0);
	r = t.b;
	/* pipe 0 asked, pipe 1 did not */
	CU_ASSERT_EQUAL(r->held_off[1], 0);
	CU_ASSERT(r->held_off[0] >= r->pipe_off[1]);
	CU_ASSERT(r->held_off[0] + dpsock_held_size(68) <= t.size);
	CU_ASSERT_EQUAL(r->turn, 0);
	h = RTE_PTR_ADD(t.b, r->held_off[0]);
	/* pipe 0's classes: 64 and 4 buffers, so class 1's run starts at 64 */
	CU_ASSERT_EQUAL(h->stash_at[0], 0);
	CU_ASSERT_EQUAL(h->stash_at[1], 64);
	CU_ASSERT_EQUAL(h->stash_at[2], 68);
	CU_ASSERT_EQUAL(h->nb_stash[0] + h->nb_rel, 0);
	/* a place that runs past the end, or off a cache line: not accepted */
	saved = r->held_off[0];
	r->held_off[0] = t.size - 64;
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), -EPROTO);
	r->held_off[0] = saved + 8;
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), -EPROTO);
	r->held_off[0] = saved;
	CU_ASSERT_EQUAL(dpsock_region_check(t.b, t.size), 0);
	two_maps_free(&t);
}

int
main(void)
{
	static const struct dp_test tests[] = {
		{ "test_shm_held_places_inside_and_checked",
			test_shm_held_places_inside_and_checked },
		{ "test_shm_region_sized_then_checked_in_a_second_mapping",
			test_shm_region_sized_then_checked_in_a_second_mapping },
		{ "test_shm_empty_pipe_or_huge_count_refused",
			test_shm_empty_pipe_or_huge_count_refused },
		{ "test_shm_class_for_length_and_offset_checks",
			test_shm_class_for_length_and_offset_checks },
		{ "test_shm_mixed_classes_released_to_their_own_rings",
			test_shm_mixed_classes_released_to_their_own_rings },
		{ "test_shm_sleep_flag_taken_once_by_producer",
			test_shm_sleep_flag_taken_once_by_producer },
		{ "test_shm_two_processes_every_datagram_in_order",
			test_shm_two_processes_every_datagram_in_order },
		{ "test_shm_seq_ring_laps_in_order", test_shm_seq_ring_laps_in_order },
		{ "test_shm_seq_positions_taken_up_by_another_side",
			test_shm_seq_positions_taken_up_by_another_side },
		{ "test_shm_seq_small_datagram_in_its_slot",
			test_shm_seq_small_datagram_in_its_slot },
		{ "test_shm_seq_two_processes_every_datagram_in_order",
			test_shm_seq_two_processes_every_datagram_in_order },
		{ NULL, NULL },
	};

	return dp_test_run("dpsock_shm", tests, NULL, NULL);
}
