/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * endpoint4_rx's line for a traced packet (dp_trace.h): the endpoint its UDP
 * destination port is bound to (its address and port, the worker that sends
 * for it). Its traces end there: a datagram delivered leaves the graph.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "dp_endpoint.h"
#include "dp_trace.h"
#include "endpoint_fp.h"

static void
endpoint4_rx_line(void *ctx, const struct rte_mbuf *m, char *buf, size_t len)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp;
	const struct ep_dp *e;
	char addr[INET_ADDRSTRLEN];
	uint16_t port;

	RTE_SET_USED(ctx);
	if (m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip) + sizeof(*udp) ||
		ip->next_proto_id != IPPROTO_UDP) {
		dp_trace_fmt_pkt(m, buf, len);
		return;
	}
	udp = (const struct rte_udp_hdr *)((const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	port = rte_be_to_cpu_16(udp->dst_port);
	e = __atomic_load_n(&ep_port4[port], __ATOMIC_ACQUIRE);
	if (e == NULL) {
		snprintf(buf, len, "no endpoint on udp port %u", port);
		return;
	}
	if (e->wildcard)
		snprintf(addr, sizeof(addr), "*");
	else
		inet_ntop(AF_INET, e->addr, addr, sizeof(addr));
	snprintf(buf, len, "endpoint %s:%u (sends on worker %u) %u bytes", addr, e->port, e->worker,
		rte_be_to_cpu_16(udp->dgram_len));
}

int
dp_endpoint_trace_register(void)
{
	int rc = dp_trace_fmt_register("endpoint4_rx", endpoint4_rx_line);

	if (rc == 0)
		rc = dp_trace_end_register("endpoint4_rx");
	if (rc == 0)
		rc = dp_trace_end_register("endpoint6_rx");
	return rc;
}
