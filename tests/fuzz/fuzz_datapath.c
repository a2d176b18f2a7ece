/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the datapath's parsers: eth_classify, ip4_fwd/ip6_fwd
 * checks, ip4_local/ip6_local (ICMP echo), icmp4_error/icmp6_error, and the
 * control lcore's ARP and ND handlers (dp_ctl_poll). The in-process rig of the
 * unit tests (tests/ring_rig.h) on three net_ring ports, brought up once with
 * tests/malformed_rig.h's config; each input is one frame (see that header for
 * the format: port, split point, bytes), received on a port as one or two
 * segments. Everything sent is drained and freed.
 *
 * Out-of-bounds reads inside an mbuf are invisible to ASan (the data room is
 * mempool memory, not malloc'd): the tail of each segment's data room, from
 * 128 bytes after the start of its data (the slack the fast path may read
 * from a short frame, and the most the control lcore writes into a recycled
 * buffer) to its end, is poisoned while the input is processed.
 *
 * Every LEAK_CHECK_EVERY inputs the packets the control lcore legitimately
 * holds (neighbor hold queues) are dropped with dp_ctl_stop() and the mbufs in
 * use must be back at the baseline; otherwise the target aborts, so that the
 * fuzzer reports the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sanitizer/asan_interface.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_ctl.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "malformed_rig.h"
#include "ring_rig.h"

#define LEAK_CHECK_EVERY 1024
#define POISON_SLACK     128

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ring_rig rig = {
	.name = "fuzz",
	.prefix = 'm',
	.nb_ports = MALFORMED_NB_PORTS,
	.mem_mb = "512",
	.config_text = MALFORMED_CONFIG("m"),
};

static uint64_t inputs;

/* A poisoned range, remembered as it was: processing moves data_off and data_len. */
struct poisoned {
	uint8_t *addr;
	size_t len;
};

static struct poisoned
poison_tail(const struct rte_mbuf *s)
{
	uint32_t from = s->data_off + RTE_MAX((uint32_t)s->data_len, (uint32_t)POISON_SLACK);
	struct poisoned p = { NULL, 0 };

	if (from < s->buf_len) {
		p.addr = (uint8_t *)s->buf_addr + from;
		p.len = s->buf_len - from;
		ASAN_POISON_MEMORY_REGION(p.addr, p.len);
	}
	return p;
}

static struct rte_mbuf *
seg_new(const uint8_t *p, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dp_mem_pool_get(0));

	if (m == NULL || rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		fprintf(stderr, "fuzz_datapath: no mbuf for %zu bytes\n", len);
		abort();
	}
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), p, len);
	return m;
}

static void
drain_all(void)
{
	unsigned int p;

	for (p = 0; p < MALFORMED_NB_PORTS; p++)
		ring_rig_drain_free(&rig, (int)p);
}

static void
leak_check(void)
{
	int64_t over;

	dp_graph_worker_flush(dp_workers[0]);
	drain_all();
	/* the neighbor hold queues and the rings: dropped, counted as shutdown */
	dp_ctl_stop();
	over = dp_mem_in_use_over_baseline();
	if (over != 0) {
		fprintf(stderr, "fuzz_datapath: %lld mbufs in use over the baseline\n",
			(long long)over);
		abort();
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (ring_rig_setup(&rig) < 0) {
		fprintf(stderr, "fuzz_datapath: rig setup failed\n");
		abort();
	}
	/* the config is loaded: nothing reads the file again */
	unlink(rig.cfg_path);
	rmdir(rig.tmpdir);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *m, *s2 = NULL;
	struct poisoned poisoned[2];
	unsigned int port, i, n;
	size_t len, split;

	if (size < MALFORMED_HDR_LEN || size - MALFORMED_HDR_LEN > MALFORMED_MAX_FRAME)
		return -1; /* not added to the corpus */
	port = data[0] % MALFORMED_NB_PORTS;
	split = data[1];
	data += MALFORMED_HDR_LEN;
	len = size - MALFORMED_HDR_LEN;
	if (split == 0 || split >= len)
		split = len;
	m = seg_new(data, split);
	if (split < len) {
		s2 = seg_new(data + split, len - split);
		if (rte_pktmbuf_chain(m, s2) != 0)
			abort();
	}
	m->port = dp_ports[port].port_id;
	poisoned[0] = poison_tail(m);
	n = 1;
	if (s2 != NULL)
		poisoned[n++] = poison_tail(s2);
	if (rte_ring_enqueue(rig.rx[port], m) != 0)
		abort();
	/* the worker, the control lcore (ARP, ND, held packets), the worker again */
	dp_graph_worker_run(dp_workers[0], 2);
	dp_graph_worker_flush(dp_workers[0]);
	dp_ctl_poll(dp_ctl_now_ms());
	dp_graph_worker_run(dp_workers[0], 2);
	dp_graph_worker_flush(dp_workers[0]);
	drain_all();
	/* the buffers are back in the pool or held: their memory is the pool's again */
	for (i = 0; i < n; i++)
		ASAN_UNPOISON_MEMORY_REGION(poisoned[i].addr, poisoned[i].len);
	if (++inputs % LEAK_CHECK_EVERY == 0)
		leak_check();
	return 0;
}
