/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lines fwd's nodes give a traced packet (dp_trace.h): what ip4_fwd's
 * (ip6_fwd's) lookup finds for it (the route's prefix, the next hop, the egress port) and
 * why icmp4_error has it. Run only for marked packets, before the node.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_rib.h>
#include <rte_rib6.h>

#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_fwd_local.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "fwd_local_priv.h"
#include "dp_trace.h"

/* The IPv4 header of @p m, NULL when the first segment does not hold one. */
static const struct rte_ipv4_hdr *
trace_ip4(const struct rte_mbuf *m)
{
	if (m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		return NULL;
	return rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
}

/* "A.B.C.D/N" of the route the live table has for @p dst (host order). */
static void
trace_prefix4(uint32_t dst, char *buf, size_t len)
{
	struct rte_fib *fib = __atomic_load_n(&dp_fwd.ip4.fib, __ATOMIC_ACQUIRE);
	struct rte_rib *rib = fib != NULL ? rte_fib_get_rib(fib) : NULL;
	struct rte_rib_node *rn = rib != NULL ? rte_rib_lookup(rib, dst) : NULL;
	char a[INET_ADDRSTRLEN];
	uint32_t ip;
	uint8_t depth;

	if (rn == NULL || rte_rib_get_ip(rn, &ip) < 0 || rte_rib_get_depth(rn, &depth) < 0) {
		snprintf(buf, len, "none");
		return;
	}
	ip = rte_cpu_to_be_32(ip);
	inet_ntop(AF_INET, &ip, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, depth);
}

/* The next hop's part of a forwarding line: "via GW port P" and its state. */
static void
trace_nh(const struct dp_fwd_nh *nh, char *buf, size_t len)
{
	static const uint8_t zero[16];
	char gw[INET6_ADDRSTRLEN], port[DP_PORT_NAME_LEN];
	uint32_t g;

	dp_port_name(nh->port, port, sizeof(port));
	if (nh->flags & DP_FWD_NH_F_CONNECTED) {
		/* the neighbor is the packet's own destination, found per packet */
		snprintf(buf, len, "on-link port %s", port);
		return;
	}
	if (nh->flags & DP_FWD_NH_F_IP6) {
		if (memcmp(nh->gw6, zero, sizeof(zero)) != 0)
			inet_ntop(AF_INET6, nh->gw6, gw, sizeof(gw));
		else
			snprintf(gw, sizeof(gw), "on-link");
	} else if (nh->gw != 0) {
		g = rte_cpu_to_be_32(nh->gw);
		inet_ntop(AF_INET, &g, gw, sizeof(gw));
	} else {
		snprintf(gw, sizeof(gw), "on-link");
	}
	snprintf(buf, len, "via %s port %s%s", gw, port,
		(nh->flags & DP_FWD_NH_F_GROUP)      ? " ecmp"
		: (nh->flags & DP_FWD_NH_F_RESOLVED) ? ""
						     : " unresolved");
}

static void
ip4_fwd_line(void *ctx, const struct rte_mbuf *m, char *buf, size_t len)
{
	const struct rte_ipv4_hdr *ip = trace_ip4(m);
	char dst[INET_ADDRSTRLEN], prefix[24], via[DP_TRACE_TEXT];
	const struct dp_fwd_nh *nh;
	uint32_t hop, d;

	RTE_SET_USED(ctx);
	if (ip == NULL) {
		dp_trace_fmt_pkt(m, buf, len);
		return;
	}
	d = rte_be_to_cpu_32(ip->dst_addr);
	inet_ntop(AF_INET, &ip->dst_addr, dst, sizeof(dst));
	if (ip->time_to_live <= 1) {
		snprintf(buf, len, "dst %s ttl %u: expired", dst, ip->time_to_live);
		return;
	}
	hop = dp_fwd_lookup4(d);
	trace_prefix4(d, prefix, sizeof(prefix));
	if (hop == DP_FWD_NO_ROUTE || hop >= dp_fwd.nb_nh) {
		snprintf(buf, len, "dst %s ttl %u: no route", dst, ip->time_to_live);
		return;
	}
	nh = &dp_fwd.nh[hop];
	if (hop == DP_FWD_NH_LOCAL || (nh->flags & DP_FWD_NH_F_LOCAL)) {
		snprintf(buf, len, "dst %s route %s local", dst, prefix);
		return;
	}
	trace_nh(nh, via, sizeof(via));
	snprintf(buf, len, "dst %s route %s %s", dst, prefix, via);
}

static void
ip6_fwd_line(void *ctx, const struct rte_mbuf *m, char *buf, size_t len)
{
	struct rte_fib6 *fib = __atomic_load_n(&dp_fwd_ip6.fib, __ATOMIC_ACQUIRE);
	char dst[INET6_ADDRSTRLEN], pfx[INET6_ADDRSTRLEN], via[DP_TRACE_TEXT];
	uint8_t addr[RTE_FIB6_IPV6_ADDR_SIZE], rip[RTE_RIB6_IPV6_ADDR_SIZE];
	const struct rte_ipv6_hdr *ip;
	uint64_t hop = DP_FWD_NO_ROUTE6;
	struct rte_rib6_node *rn;
	struct rte_rib6 *rib;
	uint8_t depth = 0;

	RTE_SET_USED(ctx);
	if (m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip) || fib == NULL) {
		dp_trace_fmt_pkt(m, buf, len);
		return;
	}
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	memcpy(addr, ip->dst_addr, sizeof(addr));
	inet_ntop(AF_INET6, addr, dst, sizeof(dst));
	if (ip->hop_limits <= 1) {
		snprintf(buf, len, "dst %s hlim %u: expired", dst, ip->hop_limits);
		return;
	}
	rte_fib6_lookup_bulk(fib, &addr, &hop, 1);
	if (hop == DP_FWD_NO_ROUTE6 || hop >= dp_fwd.nb_nh) {
		snprintf(buf, len, "dst %s: no route", dst);
		return;
	}
	/* the tables a change makes are new ones, swapped in: this one stays whole */
	rib = rte_fib6_get_rib(fib);
	rn = rib != NULL ? rte_rib6_lookup(rib, addr) : NULL;
	if (rn == NULL || rte_rib6_get_ip(rn, rip) < 0 || rte_rib6_get_depth(rn, &depth) < 0)
		snprintf(pfx, sizeof(pfx), "?");
	else
		inet_ntop(AF_INET6, rip, pfx, sizeof(pfx));
	if (hop == DP_FWD_NH_LOCAL || (dp_fwd.nh[hop].flags & DP_FWD_NH_F_LOCAL)) {
		snprintf(buf, len, "dst %s route %s/%u local", dst, pfx, depth);
		return;
	}
	trace_nh(&dp_fwd.nh[hop], via, sizeof(via));
	snprintf(buf, len, "dst %s route %s/%u %s", dst, pfx, depth, via);
}

/* ip4_output: the next hop ip4_fwd (or the node that made the packet) chose. */
static void
ip4_output_line(void *ctx, const struct rte_mbuf *m, char *buf, size_t len)
{
	const uint32_t idx = dp_mbuf_meta((struct rte_mbuf *)(uintptr_t)m, dp_mbuf_meta_offset)->nh;
	char via[DP_TRACE_TEXT];

	RTE_SET_USED(ctx);
	if (idx >= dp_fwd.nb_nh) {
		snprintf(buf, len, "next hop %u: none", idx);
		return;
	}
	trace_nh(&dp_fwd.nh[idx], via, sizeof(via));
	snprintf(buf, len, "next hop %u %s", idx, via);
}

static void
icmp4_error_line(void *ctx, const struct rte_mbuf *m, char *buf, size_t len)
{
	const struct rte_ipv4_hdr *ip = trace_ip4(m);
	char src[INET_ADDRSTRLEN];

	RTE_SET_USED(ctx);
	if (ip == NULL) {
		dp_trace_fmt_pkt(m, buf, len);
		return;
	}
	inet_ntop(AF_INET, &ip->src_addr, src, sizeof(src));
	snprintf(buf, len, "%s to %s (ttl %u)",
		ip->time_to_live <= 1 ? "time exceeded" : "unreachable", src, ip->time_to_live);
}

uint16_t
dp_fwd_fast_match_traced(struct dp_worker *w, const struct dp_fwd_fast_match *fm,
	struct rte_mbuf **pkts, uint16_t n, uint16_t *rest)
{
	const dp_trace_fmt_t fmt = dp_trace_fmt_find(fm->node);
	char text[8][DP_TRACE_TEXT]; /* marked packets of a burst, most recorded */
	uint16_t idx[RTE_DIM(text)], id[RTE_DIM(text)];
	const uint64_t tsc = rte_rdtsc();
	uint16_t i, k = 0, left, r;

	/* the lines before the fast match sends (and may free) the packets */
	for (i = 0; i < n && k < RTE_DIM(text); i++) {
		if (!dp_trace_marked(pkts[i]))
			continue;
		idx[k] = i;
		id[k] = dp_mbuf_meta(pkts[i], dp_mbuf_meta_offset)->trace_id;
		if (fmt != NULL)
			fmt(fm->ctx, pkts[i], text[k], sizeof(text[k]));
		else
			dp_trace_fmt_pkt(pkts[i], text[k], sizeof(text[k]));
		k++;
	}
	left = fm->fn(fm->ctx, w, pkts, n, rest);
	if (w->node_stats)
		dp_node_lend(w, fm->charge, 0, (uint16_t)(n - left));
	/* those it took are not in rest */
	for (i = 0, r = 0; i < k; i++) {
		while (r < left && rest[r] < idx[i])
			r++;
		if (r < left && rest[r] == idx[i])
			continue;
		dp_trace_add_id(id[i], tsc, fm->node, text[i]);
	}
	return left;
}

int
dp_fwd_trace_register(void)
{
	int rc = dp_trace_fmt_register("ip4_fwd", ip4_fwd_line);

	if (rc == 0)
		rc = dp_trace_fmt_register("ip6_fwd", ip6_fwd_line);
	if (rc == 0)
		rc = dp_trace_fmt_register("ip4_output", ip4_output_line);

	if (rc == 0)
		rc = dp_trace_fmt_register("icmp4_error", icmp4_error_line);
	return rc;
}
