/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The memory dpfwd and its applications share: regions, pipes and buffers.
 * Used by both sides: dpfwd (src/endpoint/endpoint*.c) and libdpsock
 * (src/endpoint/dpsock.c), which is not a DPDK process and only maps what
 * dpfwd hands it over the control socket (dpsock_proto.h).
 *
 * A region is one memfd, mapped at a different address in each process, so
 * nothing in it is a pointer: rings carry buffer offsets from the region's
 * start. dpfwd lays a region out and initialises it (dpsock_region_init())
 * before any other process sees it.
 *
 *   region (memfd)
 *   +--------------------------+ 0
 *   | struct dpsock_region     |  magic, version, size, tsc_hz, alive, ctl_seq, turn
 *   +--------------------------+ pipe_off[0]
 *   | struct dpsock_pipe       |  geometry (read-only once made), sleeping flag
 *   | data ring                |  offsets of filled buffers, producer -> consumer
 *   |                          |  (an rte_ring, or sequence slots: data_kind)
 *   | free ring per class      |  offsets of empty buffers, consumer -> producer
 *   | class 0 buffers          |  count x stride (stride = 64 B header + cap)
 *   | class 1 buffers          |
 *   | class 2 buffers          |
 *   +--------------------------+ pipe_off[1]
 *   | the other direction      |
 *   +--------------------------+ held_off[0], held_off[1] (endpoint regions)
 *   | struct dpsock_held       |  the buffers the application keeps between calls
 *   +--------------------------+ size
 *
 * A pipe is one direction. Buffers belong to the pipe's producer: it takes
 * empty ones from a free ring (by size class), fills them, and puts their
 * offsets on the data ring; the consumer reads them in place and gives them
 * back on the free ring of their class. The data ring can hold every buffer
 * of the pipe, so it is never full: backpressure is running out of buffers.
 *
 * Two kinds of region:
 *   - an endpoint region (one per bound endpoint, shared by the application
 *     and dpfwd): pipe 0 carries datagrams to send (application -> dpfwd
 *     worker), pipe 1 datagrams received (dpfwd workers -> application);
 *   - a channel region (one per pair of endpoints on this host, shared by the
 *     two applications, dpfwd only brokers it): pipe 0 carries side A -> B,
 *     pipe 1 B -> A. Side A is the endpoint that asked (DPSOCK_OP_RESOLVE).
 *
 * Rings are rte_rings initialised in place (rte_ring_init()), with the
 * producer and consumer modes of their users: single-producer single-consumer
 * between two application threads; multi-producer where several dpfwd workers
 * (and the control lcore) produce, multi-consumer where several consume.
 * A channel's data rings are sequence slots instead (DPSOCK_DATA_SEQ, below).
 *
 * Trust: an application can write everything in the regions it maps. dpfwd
 * never follows a value it reads there without checking it against its own
 * copy of the geometry (dpsock_pipe_buf_check()); what the ring headers hold
 * is trusted as far as the socket's file permissions trust the application.
 */
#ifndef DPSOCK_SHM_H
#define DPSOCK_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "dpsock.h"

#define DPSOCK_MAGIC   UINT64_C(0x31306b636f737064) /* "dpsock01" little-endian */
#define DPSOCK_VERSION 3

/** Pipes of a region. */
#define DPSOCK_REGION_PIPES 2
/** Endpoint region: pipe 0 is what the application sends, pipe 1 what it receives. */
#define DPSOCK_EP_PIPE_TX 0
#define DPSOCK_EP_PIPE_RX 1

/** Buffer size classes: payload room of each (the 64-byte header comes first). */
#define DPSOCK_NB_CLASSES 3
#define DPSOCK_CLASS0_CAP 2048u           /**< a datagram up to an MTU */
#define DPSOCK_CLASS1_CAP 65536u          /**< up to the largest UDP datagram */
#define DPSOCK_CLASS2_CAP (1024u * 1024u) /**< intra-host messages up to 1 MiB */
#define DPSOCK_HDR_SIZE   64u

/*
 * Data ring kinds (dpsock_pipe.data_kind).
 *
 * DPSOCK_DATA_RING: an rte_ring of buffer offsets, in any producer and
 * consumer mode. Its consumer reads the ring's producer tail, then the slot,
 * then the buffer: three cache lines, each just written on the other core,
 * each load waiting for the one before; and its producer reads the consumer
 * tail (written on the other core too) before it may write.
 *
 * DPSOCK_DATA_SEQ, for one producer and one consumer (a channel's two
 * applications): slots of {offset, sequence}. Each side keeps its position
 * to itself (struct dpsock_seq_pos); slot pos % size is filled when its
 * sequence is pos + 1. The consumer polls that slot, so its slot and the
 * buffer are the only lines it waits for; the producer writes without
 * looking, since the ring has a slot for every buffer of the pipe (as the
 * rte_ring kind has: never full, backpressure is running out of buffers),
 * so the slot it writes was read before its buffer came back. rte_ring has
 * no such mode (its slots carry no sequence), hence this one. A peer that
 * hands the producer more buffers than the pipe has only stalls its own
 * channel: the consumer then finds a sequence it does not expect and waits.
 */
#define DPSOCK_DATA_RING 0u
#define DPSOCK_DATA_SEQ  1u

/** Ring producer/consumer modes of a pipe (rte_ring RING_F_* flags). */
struct dpsock_pipe_spec {
	uint32_t count[DPSOCK_NB_CLASSES]; /**< buffers per class (0: none of that class) */
	unsigned int data_flags;           /**< RING_F_SP_ENQ / RING_F_SC_DEQ for the data ring */
	unsigned int free_flags;           /**< the same for the free rings */
	unsigned int data_kind; /**< DPSOCK_DATA_RING, or _SEQ (then data_flags unused) */
	bool held;              /**< a struct dpsock_held for the pipe in the region */
};

/** Buffers a consumer gives back at once (struct dpsock_held's rel). */
#define DPSOCK_HELD_REL 32

/**
 * The buffers the application's side of a pipe keeps between calls: free ones a
 * producer took ahead (a batch at a time) or got back unsent, and read ones a consumer
 * gives back a batch at a time. The processes forked from the application's take turns
 * on an endpoint and go on with what the one before kept. In an endpoint region (the
 * pipe's spec says held): dpfwd gives them back when the process that had the turn
 * dies (struct dpsock_region's turn). A channel's sides keep theirs in their own memory:
 * the peer must not write them.
 */
struct dpsock_held {
	uint32_t nb_stash[DPSOCK_NB_CLASSES]; /**< producer: free buffers kept, by class */
	uint32_t stash_at[DPSOCK_NB_CLASSES]; /**< where each class's run starts in stash */
	uint32_t nb_rel;                      /**< consumer: read buffers in rel */
	uint32_t pad;
	uint64_t rel[DPSOCK_HELD_REL];
	uint64_t stash[]; /**< a place for every buffer of the pipe */
};

/** Bytes of a struct dpsock_held for a pipe of @p nb_bufs buffers. */
static inline size_t
dpsock_held_size(uint32_t nb_bufs)
{
	return sizeof(struct dpsock_held) + sizeof(uint64_t) * (size_t)nb_bufs;
}

/** struct dpsock_region's turn while dpfwd gives back what a dead process kept. */
#define DPSOCK_TURN_DPFWD UINT32_MAX

/** Bytes of a datagram a DPSOCK_DATA_SEQ slot carries itself (the buffer has them too). */
#define DPSOCK_SEQ_INLINE 40u

/**
 * A slot of a DPSOCK_DATA_SEQ data ring, one cache line. A datagram of up to
 * DPSOCK_SEQ_INLINE bytes is also copied into the slot, so that a receiver
 * that copies it out (dpsock_recvfrom()) reads the slot and never the
 * buffer: one cache line from the other core instead of two, one after the
 * other. The buffer is filled all the same (a zero-copy receiver is lent it)
 * and goes back to the sender as any other.
 */
struct dpsock_seq_slot {
	uint64_t seq; /**< position + 1 once filled for that position */
	uint64_t off;
	uint32_t len; /**< the datagram's length (its buffer's header says the same) */
	uint32_t pad;
	uint8_t data[DPSOCK_SEQ_INLINE]; /**< its bytes when len <= DPSOCK_SEQ_INLINE */
} __rte_aligned(RTE_CACHE_LINE_SIZE);
_Static_assert(sizeof(struct dpsock_seq_slot) == RTE_CACHE_LINE_SIZE, "a slot is a line");

/** One size class of a pipe. */
struct dpsock_class {
	uint32_t cap;    /**< payload bytes a buffer holds */
	uint32_t stride; /**< DPSOCK_HDR_SIZE + cap */
	uint32_t count;  /**< buffers */
	uint32_t pad;
	uint64_t off;           /**< region offset of the first buffer */
	uint64_t free_ring_off; /**< region offset of the class's free ring */
};

/** One direction: geometry first (written once by dpfwd), then shared state. */
struct dpsock_pipe {
	uint64_t data_ring_off;
	uint32_t nb_bufs;   /**< of every class */
	uint32_t data_kind; /**< DPSOCK_DATA_RING or DPSOCK_DATA_SEQ */
	struct dpsock_class cls[DPSOCK_NB_CLASSES];

	/** Set by the consumer before it sleeps on its eventfd; a producer that
	 * finds it set clears it and writes the consumer's eventfd. */
	volatile uint32_t sleeping __rte_cache_aligned;
	/** Consumer side: datagrams the consumer could not take (dpfwd: no free
	 * buffer in the endpoint's receive pipe). Written by the producer only. */
	volatile uint64_t dropped;
} __rte_cache_aligned;

/** The start of every region. */
struct dpsock_region {
	uint64_t magic;
	uint32_t version;
	uint32_t nb_pipes;
	uint64_t size;   /**< bytes mapped */
	uint64_t tsc_hz; /**< of dpfwd's TSC: buffer timestamps are in its ticks */
	/** 1 while dpfwd serves the region; 0 once the endpoint or its peer is gone. */
	volatile uint32_t alive;
	/** Endpoint regions: dpfwd adds one after each message it sends unasked on the
	 * endpoint's control socket, so that the application reads it (one load per call). */
	volatile uint32_t ctl_seq;
	/** Endpoint regions: the pid of the application's process that made the last call
	 * (0: none since dpfwd took back what one kept; DPSOCK_TURN_DPFWD: dpfwd is doing
	 * so). A process takes the turn with a compare-and-swap; dpfwd takes it from a
	 * process that died with it, gives back its pipes' held buffers, and sets 0. */
	volatile uint32_t turn;
	uint32_t pad;
	uint64_t pipe_off[DPSOCK_REGION_PIPES];
	/** offset of each pipe's struct dpsock_held; 0: none (the spec did not ask) */
	uint64_t held_off[DPSOCK_REGION_PIPES];
} __rte_cache_aligned;

/**
 * Bytes a region with pipes @p specs needs (page-rounded), and the offsets
 * of everything in it when @p region is not NULL (then also initialised:
 * header, rings, every buffer on its free ring, alive = 1). @p region must
 * read as zeros (a new memfd does): sequence slots are taken as zeroed.
 * @return the size, or 0 when a count is too large (rte_errno = EINVAL).
 */
size_t dpsock_region_init(
	void *region, const struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES], uint64_t tsc_hz);

/**
 * Check a region that was handed over: magic, version, size against the
 * mapping, every offset inside it. @return 0 or -EPROTO.
 */
int dpsock_region_check(const void *region, size_t mapped);

static inline struct dpsock_pipe *
dpsock_region_pipe(void *region, unsigned int i)
{
	return RTE_PTR_ADD(region, ((struct dpsock_region *)region)->pipe_off[i]);
}

static inline struct rte_ring *
dpsock_pipe_data_ring(void *region, const struct dpsock_pipe *p)
{
	return RTE_PTR_ADD(region, p->data_ring_off);
}

static inline struct rte_ring *
dpsock_pipe_free_ring(void *region, const struct dpsock_pipe *p, unsigned int cls)
{
	return RTE_PTR_ADD(region, p->cls[cls].free_ring_off);
}

static inline struct dpsock_msg *
dpsock_buf(void *region, uint64_t off)
{
	return RTE_PTR_ADD(region, off);
}

/** Smallest class of @p p whose buffers hold @p len bytes, or -1. */
static inline int
dpsock_pipe_class_for(const struct dpsock_pipe *p, size_t len)
{
	unsigned int c;

	for (c = 0; c < DPSOCK_NB_CLASSES; c++)
		if (p->cls[c].count != 0 && len <= p->cls[c].cap)
			return (int)c;
	return -1;
}

/**
 * Is @p off the start of a buffer of pipe @p p (a trusted copy of the
 * geometry)? @return its class and slot index in @p slot, or -1.
 */
static inline int
dpsock_pipe_buf_check(const struct dpsock_pipe *p, uint64_t off, uint32_t *slot)
{
	unsigned int c;
	uint32_t base = 0;

	for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
		const struct dpsock_class *k = &p->cls[c];

		if (off >= k->off && off < k->off + (uint64_t)k->count * k->stride) {
			uint64_t rel = off - k->off;

			if (rel % k->stride != 0)
				return -1;
			*slot = base + (uint32_t)(rel / k->stride);
			return (int)c;
		}
		base += k->count;
	}
	return -1;
}

/** Class of a buffer the caller knows is valid (it gave it out itself). */
static inline unsigned int
dpsock_pipe_buf_class(const struct dpsock_pipe *p, uint64_t off)
{
	unsigned int c;

	for (c = DPSOCK_NB_CLASSES - 1; c > 0; c--)
		if (p->cls[c].count != 0 && off >= p->cls[c].off)
			return c;
	return 0;
}

/** Producer: up to @p n empty buffers of class @p cls. @return how many. */
static inline unsigned int
dpsock_pipe_alloc(
	void *region, const struct dpsock_pipe *p, unsigned int cls, uint64_t *offs, unsigned int n)
{
	if (p->cls[cls].count == 0)
		return 0;
	return rte_ring_dequeue_burst_elem(
		dpsock_pipe_free_ring(region, p, cls), offs, sizeof(uint64_t), n, NULL);
}

/** Producer: pass @p n filled buffers to the consumer (never fails: the ring holds them all).
 * This and the consumer's calls below are for DPSOCK_DATA_RING pipes. */
static inline void
dpsock_pipe_send(void *region, struct dpsock_pipe *p, const uint64_t *offs, unsigned int n)
{
	rte_ring_enqueue_bulk_elem(
		dpsock_pipe_data_ring(region, p), offs, sizeof(uint64_t), n, NULL);
}

/**
 * Producer, after dpsock_pipe_send(): must the consumer be woken? True at
 * most once per sleep (the flag is taken).
 *
 * The consumer stores its flag, then reads the ring (sleep_prepare); we store
 * the ring's tail, then read the flag. Each side needs a full barrier between
 * its store and its load, or both may read the old value and the consumer
 * sleeps on a datagram nobody wakes it for: x86 lets a load pass an earlier
 * store to another address, and a seq_cst load alone is a plain load there.
 */
static inline bool
dpsock_pipe_wake_needed(struct dpsock_pipe *p)
{
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&p->sleeping, __ATOMIC_SEQ_CST) == 0)
		return false;
	return __atomic_exchange_n(&p->sleeping, 0, __ATOMIC_SEQ_CST) != 0;
}

/** Consumer: up to @p n filled buffers. @return how many. */
static inline unsigned int
dpsock_pipe_recv(void *region, struct dpsock_pipe *p, uint64_t *offs, unsigned int n)
{
	return rte_ring_dequeue_burst_elem(
		dpsock_pipe_data_ring(region, p), offs, sizeof(uint64_t), n, NULL);
}

/** Consumer: filled buffers waiting. */
static inline unsigned int
dpsock_pipe_pending(void *region, struct dpsock_pipe *p)
{
	return rte_ring_count(dpsock_pipe_data_ring(region, p));
}

/**
 * Consumer: give @p n buffers back to the producer (each to its class's
 * free ring; never fails: a free ring holds its whole class).
 */
static inline void
dpsock_pipe_release(void *region, const struct dpsock_pipe *p, const uint64_t *offs, unsigned int n)
{
	unsigned int i = 0;

	while (i < n) {
		unsigned int c = dpsock_pipe_buf_class(p, offs[i]), j = i + 1;

		while (j < n && dpsock_pipe_buf_class(p, offs[j]) == c)
			j++;
		rte_ring_enqueue_bulk_elem(dpsock_pipe_free_ring(region, p, c), &offs[i],
			sizeof(uint64_t), j - i, NULL);
		i = j;
	}
}

/* ---- DPSOCK_DATA_SEQ data rings: one producer, one consumer ---- */

/** One side's place in a sequence ring (its own memory, not the region's). */
struct dpsock_seq_pos {
	struct dpsock_seq_slot *slots;
	uint64_t pos;
	uint32_t mask;
};

/** Slots of a data ring for @p nb_bufs buffers (more than the buffers, a power of two). */
static inline uint32_t
dpsock_data_slots(uint32_t nb_bufs)
{
	return rte_align32pow2(nb_bufs + 1);
}

static inline void
dpsock_seq_pos_init(struct dpsock_seq_pos *sp, void *region, const struct dpsock_pipe *p)
{
	sp->slots = RTE_PTR_ADD(region, p->data_ring_off);
	sp->pos = 0;
	sp->mask = dpsock_data_slots(p->nb_bufs) - 1;
}

/**
 * Producer: pass @p n filled buffers of @p region (never fails: there is a
 * slot for every buffer). Each buffer's length is read from its header, and
 * a small datagram copied into its slot.
 */
static inline void
dpsock_seq_send(struct dpsock_seq_pos *sp, void *region, const uint64_t *offs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct dpsock_seq_slot *s = &sp->slots[sp->pos & sp->mask];
		struct dpsock_msg *m = dpsock_buf(region, offs[i]);

		s->off = offs[i];
		s->len = m->len;
		if (m->len <= DPSOCK_SEQ_INLINE)
			memcpy(s->data, dpsock_msg_data(m), m->len);
		/* the buffer and the offset are seen before the sequence that publishes them */
		__atomic_store_n(&s->seq, sp->pos + 1, __ATOMIC_RELEASE);
		sp->pos++;
	}
}

/** Consumer: the next filled slot, not taken yet (dpsock_seq_skip() takes it), or NULL. */
static inline const struct dpsock_seq_slot *
dpsock_seq_peek(const struct dpsock_seq_pos *sp)
{
	const struct dpsock_seq_slot *s = &sp->slots[sp->pos & sp->mask];

	return __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == sp->pos + 1 ? s : NULL;
}

/** A slot's sequence once its consumer took it: dpsock_seq_peek() no longer matches it. */
#define DPSOCK_SEQ_TAKEN (UINT64_C(1) << 63)

/** Consumer: done with the slot dpsock_seq_peek() gave. */
static inline void
dpsock_seq_skip(struct dpsock_seq_pos *sp)
{
	struct dpsock_seq_slot *s = &sp->slots[sp->pos & sp->mask];

	/* marked taken, so that another process can find where the consumer is */
	__atomic_store_n(&s->seq, (sp->pos + 1) | DPSOCK_SEQ_TAKEN, __ATOMIC_RELAXED);
	sp->pos++;
}

/**
 * Both sides' positions as the ring's slots tell them, for a process that takes a side
 * over from another (a forked child after its sibling): the producer's is past the
 * newest filled slot, the consumer's at the oldest one not taken (else the producer's).
 */
static inline void
dpsock_seq_positions(const struct dpsock_seq_pos *sp, uint64_t *prod, uint64_t *cons)
{
	uint64_t p = 0, c = UINT64_MAX;
	uint32_t i;

	for (i = 0; i <= sp->mask; i++) {
		uint64_t seq = __atomic_load_n(&sp->slots[i].seq, __ATOMIC_ACQUIRE);
		uint64_t next = seq & ~DPSOCK_SEQ_TAKEN;

		if (next > p)
			p = next;
		if (seq != 0 && (seq & DPSOCK_SEQ_TAKEN) == 0 && seq - 1 < c)
			c = seq - 1;
	}
	*prod = p;
	*cons = c == UINT64_MAX ? p : c;
}

/** Consumer: up to @p n filled buffers. @return how many. */
static inline unsigned int
dpsock_seq_recv(struct dpsock_seq_pos *sp, uint64_t *offs, unsigned int n)
{
	const struct dpsock_seq_slot *s;
	unsigned int i = 0;

	while (i < n && (s = dpsock_seq_peek(sp)) != NULL) {
		offs[i++] = s->off;
		dpsock_seq_skip(sp);
	}
	return i;
}

/** Consumer: is a filled buffer waiting? */
static inline bool
dpsock_seq_pending(const struct dpsock_seq_pos *sp)
{
	return dpsock_seq_peek(sp) != NULL;
}

/**
 * Consumer, about to sleep: announce it, then look again (a producer that
 * sent before it saw the flag would not wake us). @return true when it may
 * sleep (still nothing to read); false (flag withdrawn) when data came.
 */
static inline bool
dpsock_pipe_sleep_prepare(void *region, struct dpsock_pipe *p)
{
	__atomic_store_n(&p->sleeping, 1, __ATOMIC_SEQ_CST);
	if (dpsock_pipe_pending(region, p) == 0)
		return true;
	__atomic_store_n(&p->sleeping, 0, __ATOMIC_SEQ_CST);
	return false;
}

#endif /* DPSOCK_SHM_H */
