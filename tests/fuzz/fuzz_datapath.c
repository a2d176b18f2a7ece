/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the datapath's parsers: eth_classify, ip4_fwd/ip6_fwd
 * checks, ip4_local/ip6_local (ICMP echo), icmp4_error/icmp6_error, and the
 * control lcore's ARP and ND handlers (dp_ctl_poll). The in-process rig of the
 * unit tests (tests/ring_rig.h) on three net_ring ports, brought up once with
 * tests/malformed_rig.h's config, the routes' port at MTU 1500 (frames up to
 * the jumbo data room come in: fragmentation, ICMP fragmentation needed and
 * Packet Too Big); each input is one frame (see that header for
 * the format: port, split point, bytes), received on a port as one or two
 * segments. Everything sent is drained and freed.
 *
 * The tail of each segment's data room is poisoned while the input is
 * processed (fuzz_mbuf.h: ASan cannot see reads inside mempool memory).
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

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_ctl.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "fuzz_mbuf.h"
#include "malformed_rig.h"
#include "ring_rig.h"

#define LEAK_CHECK_EVERY 1024

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ring_rig rig = {
	.name = "fuzz",
	.prefix = 'm',
	.nb_ports = MALFORMED_NB_PORTS,
	.mem_mb = "512",
	.config_text = MALFORMED_CONFIG_MTU1("m", "1500"),
};

static uint64_t inputs;

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
	struct fuzz_poisoned poisoned[2];
	unsigned int port, n;
	size_t len, split;

	if (size < MALFORMED_HDR_LEN || size - MALFORMED_HDR_LEN > MALFORMED_MAX_FRAME)
		return -1; /* not added to the corpus */
	port = data[0] % MALFORMED_NB_PORTS;
	split = data[1];
	data += MALFORMED_HDR_LEN;
	len = size - MALFORMED_HDR_LEN;
	if (split == 0 || split >= len)
		split = len;
	m = fuzz_seg_new("fuzz_datapath", data, split);
	if (split < len) {
		s2 = fuzz_seg_new("fuzz_datapath", data + split, len - split);
		if (rte_pktmbuf_chain(m, s2) != 0)
			abort();
	}
	m->port = dp_ports[port].port_id;
	poisoned[0] = fuzz_poison_tail(m);
	n = 1;
	if (s2 != NULL)
		poisoned[n++] = fuzz_poison_tail(s2);
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
	fuzz_unpoison(poisoned, n);
	if (++inputs % LEAK_CHECK_EVERY == 0)
		leak_check();
	return 0;
}
