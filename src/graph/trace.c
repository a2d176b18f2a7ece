/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace's records (dp_trace.h): the hook graph_walk_traced() calls around
 * every node while a trace is armed, the formatters nodes registered, and the
 * buffers each lcore writes its records to.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_udp.h>

#include "dp_common.h"
#include "dp_drop.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_trace.h"
#include "graph_fp.h"

uint32_t dp_trace_armed;
uint64_t dp_trace_flag;
uint32_t dp_trace_closed;
struct dp_trace_buf *dp_trace_bufs[DP_GRAPH_MAX_WORKERS + 1];

/* formatters by node id; clones (port_tx-<i>) by their base name's */
static struct {
	char name[RTE_NODE_NAMESIZE];
	dp_trace_fmt_t fmt;
	bool end; /* dp_trace_end_register() */
} fmts[DP_GRAPH_MAX_NODES];
static unsigned int nb_fmts;

/* which buffer an lcore writes: a worker's index, dp_nb_workers for the others */
static uint16_t buf_of_lcore[RTE_MAX_LCORE];
static uint16_t nb_bufs;

int
dp_trace_init(void)
{
	static const struct rte_mbuf_dynflag flag = { .name = "dpfwd_trace" };
	int bit;

	if (dp_trace_flag != 0)
		return 0;
	bit = rte_mbuf_dynflag_register(&flag);
	if (bit < 0)
		return -rte_errno;
	dp_trace_flag = RTE_BIT64(bit);
	return 0;
}

/* The slot of node @p name, made when missing; NULL when there is no room. */
static unsigned int
fmt_slot(const char *name)
{
	unsigned int i;

	for (i = 0; i < nb_fmts; i++)
		if (strcmp(fmts[i].name, name) == 0)
			return i;
	if (nb_fmts == RTE_DIM(fmts))
		return UINT_MAX;
	dp_strlcpy(fmts[nb_fmts].name, name, sizeof(fmts[0].name));
	return nb_fmts++;
}

int
dp_trace_fmt_register(const char *name, dp_trace_fmt_t fmt)
{
	unsigned int i = fmt_slot(name);

	if (i == UINT_MAX)
		return -ENOSPC;
	fmts[i].fmt = fmt;
	return 0;
}

int
dp_trace_end_register(const char *name)
{
	unsigned int i = fmt_slot(name);

	if (i == UINT_MAX)
		return -ENOSPC;
	fmts[i].end = true;
	return 0;
}

/* Whether node @p name is an end (dp_trace_end_register()). */
static bool
fmt_is_end(const char *name)
{
	unsigned int i;

	for (i = 0; i < nb_fmts; i++)
		if (strcmp(fmts[i].name, name) == 0)
			return fmts[i].end;
	return false;
}

/* The formatter of @p name, or of its base name for a clone ("port_tx-0"). */
dp_trace_fmt_t
dp_trace_fmt_find(const char *name)
{
	const char *dash = strrchr(name, '-');
	size_t base = dash != NULL ? (size_t)(dash - name) : strlen(name);
	unsigned int i;

	for (i = 0; i < nb_fmts; i++)
		if (strcmp(fmts[i].name, name) == 0 ||
			(strlen(fmts[i].name) == base && strncmp(fmts[i].name, name, base) == 0))
			return fmts[i].fmt;
	return NULL;
}

void
dp_trace_fmt_pkt(const struct rte_mbuf *m, char *buf, size_t len)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	size_t hlen = sizeof(*eth);
	const uint8_t *l3;
	uint16_t type;
	int k;

	if (m->data_len < sizeof(*eth)) {
		snprintf(buf, len, "%u bytes", m->pkt_len);
		return;
	}
	type = rte_be_to_cpu_16(eth->ether_type);
	/* a frame that still has its 802.1Q tag (ip4_fwd_vlan's): the VLAN, then what it holds */
	if (type == RTE_ETHER_TYPE_VLAN && m->data_len >= hlen + sizeof(struct rte_vlan_hdr)) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(eth + 1);

		k = snprintf(buf, len, "vlan %u ", rte_be_to_cpu_16(vh->vlan_tci) & 0xfff);
		if (k < 0 || (size_t)k >= len)
			return;
		buf += k;
		len -= (size_t)k;
		type = rte_be_to_cpu_16(vh->eth_proto);
		hlen += sizeof(*vh);
	}
	l3 = (const uint8_t *)eth + hlen;
	if (type == RTE_ETHER_TYPE_IPV4 && m->data_len >= hlen + sizeof(struct rte_ipv4_hdr)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		const struct rte_udp_hdr *udp =
			(const struct rte_udp_hdr *)((const uint8_t *)ip + rte_ipv4_hdr_len(ip));

		inet_ntop(AF_INET, &ip->src_addr, src, sizeof(src));
		inet_ntop(AF_INET, &ip->dst_addr, dst, sizeof(dst));
		if (ip->next_proto_id == IPPROTO_UDP &&
			m->data_len >=
				(const uint8_t *)(udp + 1) - rte_pktmbuf_mtod(m, const uint8_t *))
			snprintf(buf, len, "IPv4 %s:%u > %s:%u udp ttl %u len %u", src,
				rte_be_to_cpu_16(udp->src_port), dst,
				rte_be_to_cpu_16(udp->dst_port), ip->time_to_live, m->pkt_len);
		else
			snprintf(buf, len, "IPv4 %s > %s proto %u ttl %u len %u", src, dst,
				ip->next_proto_id, ip->time_to_live, m->pkt_len);
	} else if (type == RTE_ETHER_TYPE_IPV6 &&
		   m->data_len >= hlen + sizeof(struct rte_ipv6_hdr)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		inet_ntop(AF_INET6, ip->src_addr, src, sizeof(src));
		inet_ntop(AF_INET6, ip->dst_addr, dst, sizeof(dst));
		snprintf(buf, len, "IPv6 %s > %s next %u hlim %u len %u", src, dst, ip->proto,
			ip->hop_limits, m->pkt_len);
	} else if (type == RTE_ETHER_TYPE_ARP && m->data_len >= hlen + sizeof(struct rte_arp_hdr)) {
		const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)l3;
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		inet_ntop(AF_INET, &arp->arp_data.arp_tip, dst, sizeof(dst));
		inet_ntop(AF_INET, &arp->arp_data.arp_sip, src, sizeof(src));
		rte_ether_format_addr(mac, sizeof(mac), &arp->arp_data.arp_sha);
		if (arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST))
			snprintf(buf, len, "ARP request who-has %s tell %s", dst, src);
		else
			snprintf(buf, len, "ARP reply %s is-at %s", src, mac);
	} else {
		snprintf(buf, len, "ethertype 0x%04x len %u", type, m->pkt_len);
	}
}

int
dp_trace_bufs_alloc(uint16_t nb_workers)
{
	unsigned int lcore;
	uint16_t i;

	if (nb_bufs != 0)
		return 0;
	for (i = 0; i <= nb_workers; i++) {
		dp_trace_bufs[i] = rte_zmalloc("dp_trace", sizeof(struct dp_trace_buf), 64);
		if (dp_trace_bufs[i] == NULL) {
			while (i-- > 0) {
				rte_free(dp_trace_bufs[i]);
				dp_trace_bufs[i] = NULL;
			}
			return -ENOMEM;
		}
	}
	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++)
		buf_of_lcore[lcore] = nb_workers;
	for (i = 0; i < nb_workers; i++)
		buf_of_lcore[dp_workers[i]->lcore_id] = i;
	nb_bufs = nb_workers + 1;
	return 0;
}

void
dp_trace_bufs_reset(void)
{
	uint16_t i;

	for (i = 0; i < nb_bufs; i++) {
		__atomic_store_n(&dp_trace_bufs[i]->n, 0, __ATOMIC_RELEASE);
		dp_trace_bufs[i]->full = 0;
	}
}

/* This lcore's buffer index (an lcore that is not EAL's writes the control lcore's). */
static inline uint16_t
buf_index(void)
{
	unsigned int lcore = rte_lcore_id();

	return lcore < RTE_MAX_LCORE ? buf_of_lcore[lcore] : (uint16_t)(nb_bufs - 1);
}

static void
rec_write_at(uint16_t id, uint16_t port, uint64_t tsc, const char *node, const char *text)
{
	struct dp_trace_buf *b;
	struct dp_trace_rec *r;
	uint32_t n;

	if (nb_bufs == 0)
		return;
	b = dp_trace_bufs[buf_index()];
	n = b->n;
	if (n == DP_TRACE_RECS) {
		b->full++;
		return;
	}
	r = &b->rec[n];
	r->id = id;
	r->lcore = (uint16_t)rte_lcore_id();
	r->port = port;
	r->tsc = tsc;
	dp_strlcpy(r->node, node, sizeof(r->node));
	dp_strlcpy(r->text, text, sizeof(r->text));
	/* the reader sees the record whole once it sees the count */
	__atomic_store_n(&b->n, n + 1, __ATOMIC_RELEASE);
}

static void
rec_write(uint16_t id, uint16_t port, const char *node, const char *text)
{
	rec_write_at(id, port, rte_rdtsc(), node, text);
}

void
dp_trace_add_id(uint16_t id, uint64_t tsc, const char *node, const char *text)
{
	rec_write_at(id, DP_TRACE_PORT_NONE, tsc, node, text);
}

void
dp_trace_mark(struct rte_mbuf *m, uint16_t id, uint16_t port, const char *node, const char *text)
{
	struct dp_mbuf_meta *t = dp_mbuf_meta(m, dp_mbuf_meta_offset);

	m->ol_flags |= dp_trace_flag;
	t->trace_id = id;
	t->trace_drop = DP_DROP_MAX;
	rec_write(id, port, node, text);
}

void
dp_trace_add(struct rte_mbuf *m, const char *node, const char *text)
{
	rec_write(dp_mbuf_meta(m, dp_mbuf_meta_offset)->trace_id, DP_TRACE_PORT_NONE, node, text);
}

void
dp_trace_close(struct rte_mbuf *m, const char *node, const char *text)
{
	dp_trace_add(m, node, text);
	m->ol_flags &= ~dp_trace_flag;
	__atomic_fetch_add(&dp_trace_closed, 1, __ATOMIC_RELEASE);
}

/* The drop node's line: the reason the node before it counted. */
static void
drop_line(const struct rte_mbuf *m, char *buf, size_t len)
{
	const uint16_t r =
		dp_mbuf_meta((struct rte_mbuf *)(uintptr_t)m, dp_mbuf_meta_offset)->trace_drop;

	if (r < DP_DROP_MAX)
		snprintf(buf, len, "reason %s", dp_drop_name((enum dp_drop_reason)r));
	else
		snprintf(buf, len, "reason not counted by a node");
}

uint16_t
dp_trace_node_call(struct rte_graph *graph, struct rte_node *node)
{
	uint64_t before[DP_DROP_MAX];
	struct rte_mbuf *marked[RTE_GRAPH_BURST_SIZE];
	uint16_t at[RTE_GRAPH_BURST_SIZE], ids[RTE_GRAPH_BURST_SIZE];
	const bool is_drop = strcmp(node->name, "drop") == 0;
	const uint16_t nb = node->idx;
	struct dp_worker *w = NULL;
	char text[DP_TRACE_TEXT];
	uint16_t i, k = 0, rc;
	dp_trace_fmt_t fmt;
	int r;

	for (i = 0; i < node->idx && k < RTE_DIM(marked); i++)
		if (dp_trace_marked(node->objs[i])) {
			at[k] = i;
			ids[k] = dp_mbuf_meta(node->objs[i], dp_mbuf_meta_offset)->trace_id;
			marked[k++] = node->objs[i];
		}
	if (k == 0)
		return node->process(graph, node, node->objs, node->idx);
	fmt = dp_trace_fmt_find(node->name);
	for (i = 0; i < k; i++) {
		if (is_drop)
			drop_line(marked[i], text, sizeof(text));
		else if (fmt != NULL)
			fmt(((struct dp_node_ctx *)node->ctx)->arg, marked[i], text, sizeof(text));
		else
			dp_trace_fmt_pkt(marked[i], text, sizeof(text));
		if (is_drop)
			dp_trace_close(marked[i], node->name, text);
		else
			dp_trace_add(marked[i], node->name, text);
	}
	if (buf_index() < dp_nb_workers)
		w = dp_workers[buf_index()];
	if (w != NULL)
		memcpy(before, w->stats.drops, sizeof(before));
	rc = node->process(graph, node, node->objs, node->idx);
	if (w == NULL || is_drop)
		return rc;
	/* ctl_punt frees the tail of its burst that the punt ring did not take */
	if (w->stats.drops[DP_DROP_PUNT_FULL] != before[DP_DROP_PUNT_FULL] &&
		strcmp(node->name, "ctl_punt") == 0) {
		const uint64_t freed =
			w->stats.drops[DP_DROP_PUNT_FULL] - before[DP_DROP_PUNT_FULL];

		for (i = 0; i < k; i++)
			if (at[i] >= nb - freed) {
				dp_trace_add_id(ids[i], rte_rdtsc(), "drop", "reason punt_full");
				__atomic_fetch_add(&dp_trace_closed, 1, __ATOMIC_RELEASE);
			}
		return rc;
	}
	/* the reason this call counted, if any: the drop node's line */
	for (r = 0; r < DP_DROP_MAX; r++)
		if (w->stats.drops[r] != before[r])
			break;
	if (r < DP_DROP_MAX)
		for (i = 0; i < k; i++)
			if (dp_trace_marked(marked[i]))
				dp_mbuf_meta(marked[i], dp_mbuf_meta_offset)->trace_drop =
					(uint16_t)r;
	/* delivered out of the graph (and freed): their traces end here */
	if (r == DP_DROP_MAX && fmt_is_end(node->name))
		__atomic_fetch_add(&dp_trace_closed, k, __ATOMIC_RELEASE);
	return rc;
}
