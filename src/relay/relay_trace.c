/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The relay's line for a traced packet (dp_trace.h), in relay4 and in its
 * fast match (relay4_shortcut): the session the worker's table holds for the
 * datagram's key, its direction, and the addresses and ports it is rewritten
 * to. A lookup in the worker's own table, on the worker: nothing changes.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "dp_trace.h"
#include "relay_fp.h"
#include "relay_priv.h"

static void
relay4_line(void *ctx, const struct rte_mbuf *m, char *buf, size_t len)
{
	const struct relay_worker *rw = ctx;
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];
	const struct relay_session *s;
	const struct relay_dir *d;
	uint64_t key[2];
	void *data = NULL;
	uint32_t v;

	if (rw == NULL || rw->h4 == NULL ||
		m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) +
				      sizeof(struct rte_udp_hdr)) {
		dp_trace_fmt_pkt(m, buf, len);
		return;
	}
	relay_key4_of_pkt(l3, key);
	if (rte_hash_lookup_data(rw->h4, key, &data) < 0) {
		snprintf(buf, len, "no session: a new one if to a listen address");
		return;
	}
	v = (uint32_t)(uintptr_t)data;
	s = &rw->sess[v >> 1];
	d = (v & 1) != 0 ? &s->d1 : &s->d0;
	inet_ntop(AF_INET, d->src, src, sizeof(src));
	inet_ntop(AF_INET, d->dst, dst, sizeof(dst));
	snprintf(buf, len, "session %u %s: %s:%u > %s:%u", v >> 1,
		(v & 1) != 0 ? "to client" : "to backend", src, rte_be_to_cpu_16(d->sport), dst,
		rte_be_to_cpu_16(d->dport));
}

int
dp_relay_trace_register(void)
{
	int rc = dp_trace_fmt_register("relay4", relay4_line);

	if (rc == 0)
		rc = dp_trace_fmt_register("relay4_shortcut", relay4_line);
	return rc;
}
