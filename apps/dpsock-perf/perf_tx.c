/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --tx-stream: one dpsock endpoint streams datagrams to an address of another
 * host through dpfwd's TX path (single-core UDP TX of large datagrams, dpbench.py
 * dpsock-tx), for --duration seconds, busy-polling; prints a JSON summary.
 * The wire side (packets, bytes, dpfwd's cycles) is dpfwd's telemetry.
 */
#include <errno.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dpsock.h"
#include "perf_tx.h"

int
perf_tx_stream(const struct perf_opts *o, const struct perf_tx_params *tp, FILE *out)
{
	struct perf_pair pp = { .o = o, .size = tp->size, .fds = { -1, -1 } };
	struct perf_ep ep = { .pp = &pp, .side = 0, .fd = -1 };
	const struct perf_transport *t =
		perf_transport_find(tp->zero_copy ? "dpsock-zc" : "dpsock-local");
	struct dpsock_stats st = { 0 };
	char why[PERF_NOTE_LEN] = "";
	uint64_t seq = 0, t0, now, t_end, errors = 0;
	double secs;
	int rc, last_err = 0;

	if (tp->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(tp->cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	pp.t = t;
	pp.addr[1] = o->remote;
	pp.addr_len[1] = o->remote_len;
	if (perf_ep_buffers(&ep, tp->size) < 0) {
		fprintf(stderr, "dpsock-perf: out of memory\n");
		return 1;
	}
	if (t->open(&ep, why, sizeof(why)) < 0 || t->connect(&ep, why, sizeof(why)) < 0) {
		fprintf(stderr, "dpsock-perf: --tx-stream: %s\n", why);
		perf_ep_buffers_free(&ep);
		return 1;
	}
	t0 = perf_ticks();
	t_end = t0 + (uint64_t)(tp->duration * perf_hz);
	while ((now = perf_ticks()) < t_end) {
		rc = t->send(&ep, seq, tp->size, tp->batch);
		if (rc > 0) {
			seq += (uint64_t)rc;
		} else if (rc != -EAGAIN) {
			/* a refusal is counted, not fatal: the datapath's answer is the result */
			errors++;
			last_err = -rc;
			if (errors > 1000 && seq == 0)
				break;
		}
	}
	secs = (double)(now - t0) / (double)perf_hz;
	dpsock_stats_get(ep.ds, &st);
	t->close(&ep);
	perf_ep_buffers_free(&ep);
	fprintf(out,
		"{\"tool\": \"dpsock-perf\", \"mode\": \"tx-stream\", \"size\": %zu, "
		"\"zero_copy\": %s, \"batch\": %u, \"seconds\": %.6f, \"sent\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"again\": %" PRIu64 ", \"errors\": %" PRIu64
		", \"last_error\": \"%s\", \"msgs_per_s\": %.1f, \"gbps\": %.4f, "
		"\"lib_tx_msgs\": %" PRIu64 ", \"lib_tx_again\": %" PRIu64 "}\n",
		tp->size, tp->zero_copy ? "true" : "false", tp->batch, secs, seq,
		seq * (uint64_t)tp->size, ep.again, errors, last_err ? strerror(last_err) : "",
		secs > 0 ? (double)seq / secs : 0.0,
		secs > 0 ? (double)seq * (double)tp->size * 8 / secs / 1e9 : 0.0, st.tx_msgs,
		st.tx_again);
	if (seq == 0) {
		fprintf(stderr, "dpsock-perf: --tx-stream: nothing sent%s%s\n",
			last_err ? ": " : "", last_err ? strerror(last_err) : "");
		return 1;
	}
	return 0;
}
