/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Region layout (dpsock_shm.h): computed the same way for sizing and for
 * initialising, so that the two cannot disagree. Compiled into libdpfwd
 * (which makes regions) and libdpsock (which checks what it is given).
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "dpsock_shm.h"

static const uint32_t class_cap[DPSOCK_NB_CLASSES] = { DPSOCK_CLASS0_CAP, DPSOCK_CLASS1_CAP,
	DPSOCK_CLASS2_CAP };

/* Largest count of one class: offsets and slot indexes stay far below 2^32. */
#define DPSOCK_MAX_BUFS (1u << 20)

static uint32_t
pow2_above(uint32_t n)
{
	return rte_align32pow2(n + 1);
}

static size_t
ring_bytes(uint32_t count)
{
	ssize_t sz = rte_ring_get_memsize(count);

	return sz < 0 ? 0 : RTE_ALIGN_CEIL((size_t)sz, RTE_CACHE_LINE_SIZE);
}

/* Bytes of the data ring of a pipe of @p total buffers. */
static size_t
data_bytes(uint32_t kind, uint32_t total)
{
	if (kind == DPSOCK_DATA_SEQ)
		return RTE_ALIGN_CEIL(
			(size_t)dpsock_data_slots(total) * sizeof(struct dpsock_seq_slot),
			RTE_CACHE_LINE_SIZE);
	return ring_bytes(pow2_above(total));
}

/* Lay out (and when @p region, initialise) one pipe at @p off; return the end. */
static size_t
pipe_layout(void *region, size_t off, const struct dpsock_pipe_spec *spec, unsigned int idx)
{
	struct dpsock_pipe geo, *p;
	char name[RTE_RING_NAMESIZE];
	uint32_t total = 0;
	unsigned int c;
	size_t cur;

	memset(&geo, 0, sizeof(geo));
	for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
		if (spec->count[c] > DPSOCK_MAX_BUFS)
			return 0;
		total += spec->count[c];
	}
	if (total == 0 || spec->data_kind > DPSOCK_DATA_SEQ)
		return 0;
	cur = RTE_ALIGN_CEIL(off, RTE_CACHE_LINE_SIZE) + sizeof(struct dpsock_pipe);
	geo.data_ring_off = cur;
	geo.nb_bufs = total;
	geo.data_kind = spec->data_kind;
	cur += data_bytes(geo.data_kind, total);
	for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
		geo.cls[c].cap = class_cap[c];
		geo.cls[c].stride = DPSOCK_HDR_SIZE + class_cap[c];
		geo.cls[c].count = spec->count[c];
		geo.cls[c].free_ring_off = cur;
		if (spec->count[c] != 0)
			cur += ring_bytes(pow2_above(spec->count[c]));
	}
	cur = RTE_ALIGN_CEIL(cur, 4096);
	for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
		geo.cls[c].off = cur;
		cur += (size_t)geo.cls[c].count * geo.cls[c].stride;
	}
	if (region == NULL)
		return cur;

	p = RTE_PTR_ADD(region, RTE_ALIGN_CEIL(off, RTE_CACHE_LINE_SIZE));
	*p = geo;
	/* sequence slots: every sequence 0 (no slot filled for any position), as a
	 * new memfd reads; not written here, so that a channel's set-up takes no
	 * page faults for them (64 KiB a pipe by default: writing them would put
	 * those faults on open + bind + the first send) */
	if (geo.data_kind != DPSOCK_DATA_SEQ) {
		snprintf(name, sizeof(name), "dpsock_d%u", idx);
		if (rte_ring_init(dpsock_pipe_data_ring(region, p), name, pow2_above(total),
			    spec->data_flags) < 0)
			return 0;
	}
	for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
		struct rte_ring *fr;
		uint32_t i;

		if (geo.cls[c].count == 0)
			continue;
		snprintf(name, sizeof(name), "dpsock_f%u_%u", idx, c);
		fr = dpsock_pipe_free_ring(region, p, c);
		if (rte_ring_init(fr, name, pow2_above(geo.cls[c].count), spec->free_flags) < 0)
			return 0;
		/* only the offsets: the buffers stay untouched (a memfd reads as zeros), so
		 * that making a region costs no page faults, only those its users take */
		for (i = 0; i < geo.cls[c].count; i++) {
			uint64_t boff = geo.cls[c].off + (uint64_t)i * geo.cls[c].stride;

			rte_ring_enqueue_elem(fr, &boff, sizeof(boff));
		}
	}
	return cur;
}

size_t
dpsock_region_init(
	void *region, const struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES], uint64_t tsc_hz)
{
	size_t off = RTE_ALIGN_CEIL(sizeof(struct dpsock_region), RTE_CACHE_LINE_SIZE);
	uint64_t pipe_off[DPSOCK_REGION_PIPES], held_off[DPSOCK_REGION_PIPES];
	struct dpsock_region *r = region;
	unsigned int i;

	for (i = 0; i < DPSOCK_REGION_PIPES; i++) {
		pipe_off[i] = RTE_ALIGN_CEIL(off, RTE_CACHE_LINE_SIZE);
		off = pipe_layout(region, off, &specs[i], i);
		if (off == 0) {
			rte_errno = EINVAL;
			return 0;
		}
	}
	for (i = 0; i < DPSOCK_REGION_PIPES; i++) {
		uint32_t total = specs[i].count[0] + specs[i].count[1] + specs[i].count[2];

		held_off[i] = 0;
		if (!specs[i].held)
			continue;
		held_off[i] = RTE_ALIGN_CEIL(off, RTE_CACHE_LINE_SIZE);
		off = held_off[i] + dpsock_held_size(total);
		if (region != NULL) {
			struct dpsock_held *h = RTE_PTR_ADD(region, held_off[i]);
			uint32_t at = 0, c;

			for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
				h->stash_at[c] = at;
				at += specs[i].count[c];
			}
		}
	}
	off = RTE_ALIGN_CEIL(off, 4096);
	if (r != NULL) {
		r->version = DPSOCK_VERSION;
		r->nb_pipes = DPSOCK_REGION_PIPES;
		r->size = off;
		r->tsc_hz = tsc_hz;
		r->ctl_seq = 0;
		r->turn = 0;
		for (i = 0; i < DPSOCK_REGION_PIPES; i++) {
			r->pipe_off[i] = pipe_off[i];
			r->held_off[i] = held_off[i];
		}
		__atomic_store_n(&r->alive, 1, __ATOMIC_RELAXED);
		/* the magic last: a region with it is whole */
		__atomic_store_n(&r->magic, DPSOCK_MAGIC, __ATOMIC_RELEASE);
	}
	return off;
}

/* Does [off, off + len) lie inside a region of @p size bytes? */
static bool
inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

int
dpsock_region_check(const void *region, size_t mapped)
{
	const struct dpsock_region *r = region;
	unsigned int i, c;

	if (mapped < sizeof(*r) || r->magic != DPSOCK_MAGIC || r->version != DPSOCK_VERSION ||
		r->nb_pipes != DPSOCK_REGION_PIPES || r->size > mapped)
		return -EPROTO;
	for (i = 0; i < DPSOCK_REGION_PIPES; i++) {
		const struct dpsock_pipe *p;
		uint32_t total = 0;

		if (!inside(r->pipe_off[i], sizeof(*p), r->size))
			return -EPROTO;
		p = RTE_PTR_ADD(region, r->pipe_off[i]);
		for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
			const struct dpsock_class *k = &p->cls[c];

			if (k->count > DPSOCK_MAX_BUFS || k->cap != class_cap[c] ||
				k->stride != DPSOCK_HDR_SIZE + k->cap ||
				!inside(k->off, (uint64_t)k->count * k->stride, r->size) ||
				(k->count != 0 &&
					!inside(k->free_ring_off, ring_bytes(pow2_above(k->count)),
						r->size)))
				return -EPROTO;
			total += k->count;
		}
		if (total != p->nb_bufs || p->data_kind > DPSOCK_DATA_SEQ ||
			!inside(p->data_ring_off, data_bytes(p->data_kind, total), r->size))
			return -EPROTO;
		if (r->held_off[i] != 0 &&
			(r->held_off[i] % RTE_CACHE_LINE_SIZE != 0 ||
				!inside(r->held_off[i], dpsock_held_size(total), r->size)))
			return -EPROTO;
	}
	return 0;
}
