/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf_pool_ops.h>

#include "dp_common.h"
#include "dp_mem.h"
#include "dp_telemetry.h"

RTE_LOG_REGISTER(dp_logtype_mem, dpfwd.mem, INFO);

#define CONTROL_RESERVE 1024

struct pool_slot {
	struct rte_mempool *mp;
	char ops[32];
	uint32_t baseline;
};

static struct pool_slot pools[RTE_MAX_NUMA_NODES];
int dp_mbuf_meta_offset = -1;

int
dp_mem_meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "dpfwd_meta",
		.size = sizeof(struct dp_mbuf_meta),
		.align = __alignof__(struct dp_mbuf_meta),
	};

	dp_mbuf_meta_offset = rte_mbuf_dynfield_register(&desc);
	if (dp_mbuf_meta_offset < 0) {
		DP_LOG(ERR, mem, "cannot register mbuf metadata field: %s",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

uint32_t
dp_mem_pool_size(const struct dp_mem_demand *d, uint32_t cache, char *why, size_t len)
{
	uint64_t caches = (uint64_t)d->lcores * (cache + cache / 2);
	uint64_t inflight = (uint64_t)d->lcores * d->burst * 2;
	uint64_t txbuf = (uint64_t)d->tx_bufs * d->burst * 2;
	uint64_t need = (uint64_t)d->rx_desc + d->tx_desc + caches + inflight + txbuf + d->held +
			CONTROL_RESERVE;
	uint64_t size = 1;

	while (size - 1 < need)
		size <<= 1;
	size -= 1;
	if (why != NULL)
		snprintf(why, len,
			"%" PRIu64
			" mbufs = rx desc %u + tx desc %u + caches %u lcores x %u x 1.5 + "
			"bursts in flight %" PRIu64 " + tx buffers %" PRIu64 " + held by jobs %u + "
			"control %u = %" PRIu64 ", rounded up to 2^n-1",
			size, d->rx_desc, d->tx_desc, d->lcores, cache, inflight, txbuf, d->held,
			CONTROL_RESERVE, need);
	return (uint32_t)size;
}

struct rte_mempool *
dp_mem_pool_create(int socket, const struct dp_mem_params *p, uint32_t size)
{
	struct pool_slot *slot;
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int idx = socket < 0 ? 0 : (unsigned int)socket;

	if (idx >= RTE_MAX_NUMA_NODES) {
		rte_errno = EINVAL;
		return NULL;
	}
	slot = &pools[idx];
	if (slot->mp != NULL)
		return slot->mp;
	snprintf(name, sizeof(name), "dpfwd_pkt_s%u", idx);
	slot->mp = rte_pktmbuf_pool_create_by_ops(
		name, size, p->cache, 0, p->data_room, socket, p->ops);
	if (slot->mp == NULL) {
		DP_LOG(ERR, mem,
			"cannot create pool %s (%u mbufs of %u B, cache %u, ops %s) on socket %d: %s%s",
			name, size, p->data_room, p->cache, p->ops, socket, rte_strerror(rte_errno),
			rte_errno == ENOMEM ? " (reserve more hugepages, or lower [mempool] size)"
					    : "");
		return NULL;
	}
	dp_strlcpy(slot->ops, p->ops, sizeof(slot->ops));
	DP_LOG(INFO, mem, "pool %s: %u mbufs x %u B, cache %u, ops %s, socket %d", name, size,
		slot->mp->elt_size, p->cache, p->ops, socket);
	return slot->mp;
}

struct rte_mempool *
dp_mem_pool_get(int socket)
{
	unsigned int i;

	if (socket >= 0 && socket < RTE_MAX_NUMA_NODES && pools[socket].mp != NULL)
		return pools[socket].mp;
	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (pools[i].mp != NULL)
			return pools[i].mp;
	return NULL;
}

void
dp_mem_baseline_mark(void)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (pools[i].mp != NULL)
			pools[i].baseline = rte_mempool_in_use_count(pools[i].mp);
}

int64_t
dp_mem_in_use_over_baseline(void)
{
	int64_t over = 0;
	unsigned int i;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (pools[i].mp != NULL)
			over += (int64_t)rte_mempool_in_use_count(pools[i].mp) - pools[i].baseline;
	return over;
}

static json_t *
pools_fill(void *arg)
{
	json_t *arr = json_array();
	unsigned int i, l;

	RTE_SET_USED(arg);
	for (i = 0; i < RTE_MAX_NUMA_NODES; i++) {
		struct rte_mempool *mp = pools[i].mp;
		uint64_t cached = 0;
		json_t *o;

		if (mp == NULL)
			continue;
		if (mp->cache_size != 0)
			for (l = 0; l < RTE_MAX_LCORE; l++)
				cached += mp->local_cache[l].len;
		o = json_pack("{s:s, s:i, s:I, s:I, s:I, s:s, s:I, s:I, s:I, s:I}", "name",
			mp->name, "socket", mp->socket_id, "size", (json_int_t)mp->size, "elt_size",
			(json_int_t)mp->elt_size, "cache_size", (json_int_t)mp->cache_size, "ops",
			pools[i].ops, "in_use", (json_int_t)rte_mempool_in_use_count(mp),
			"available", (json_int_t)rte_mempool_avail_count(mp), "in_caches",
			(json_int_t)cached, "in_use_baseline", (json_int_t)pools[i].baseline);
		if (o != NULL)
			json_array_append_new(arr, o);
	}
	return arr;
}

int
dp_mem_telemetry_register(void)
{
	return dp_telemetry_section_register("mempools", "/dpfwd/mem/pools",
		"Packet pools: size, cache, ops, in use, available, baseline", pools_fill, NULL);
}

void
dp_mem_pools_free(void)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++) {
		rte_mempool_free(pools[i].mp);
		pools[i].mp = NULL;
	}
}
