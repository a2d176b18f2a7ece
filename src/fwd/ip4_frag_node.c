/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ip4_frag
 *   uses: dp_mbuf_meta.nh (the next hop whose MTU the packet exceeds, set by
 *         ip4_fwd); a checked IPv4 header with DF clear, the datagram trimmed
 *         to its total length
 *   sets: each fragment: IPv4 header (offset, MF, total length, checksum),
 *         room for the Ethernet header, the packet's dp_mbuf_meta
 *   next: ip4_output (every fragment), drop (ip4_frag_failed)
 *
 * RFC 791 3.2 and RFC 1812 5.2.6: DPDK's rte_ipv4_fragment_packet() cuts the
 * datagram into fragments of at most the next hop's MTU, data in multiples of
 * 8 bytes; a fragment is a new header mbuf chained to the original's data
 * (indirect mbufs, no copy), so the egress port sends chained mbufs (the
 * ports get multi_segs when their MTUs differ: dp_port_probe()). A port whose
 * device has no multi_segs (net_af_xdp sends a packet's first segment only)
 * gets each fragment copied into its header mbuf instead. A fragment
 * cut again keeps its offset and, on its last piece, its MF bit; options
 * marked "copied" go into every fragment, the others into the first only.
 * The library leaves the header checksum at 0: it is computed here, since
 * ip4_output updates it for the TTL.
 *
 * Accounting: the packet is not a drop; it leaves as its fragments, counted
 * in the "fwd" section (ip4_fragmented, ip4_fragments).
 */
#include <string.h>

#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_mbuf.h>

#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "graph_fp.h"

enum ip4_frag_next {
	IP4_FRAG_NEXT_DROP,
	IP4_FRAG_NEXT_OUTPUT,
	IP4_FRAG_NEXT_MAX,
};

/* Fragments made of one packet at most: 9000 bytes cut for an MTU of 576 take
 * 17, 16 KB for 1280 take 13; more (a tiny MTU) is a counted drop. */
#define IP4_FRAG_OUT_MAX 64

struct ip4_frag_worker {
	struct rte_mempool *pool; /* the fragments' header and indirect mbufs */
	uint64_t fragmented;      /* packets cut */
	uint64_t fragments;       /* fragments made of them */
} __rte_cache_aligned;

static struct ip4_frag_worker ip4_frag_workers[DP_GRAPH_MAX_WORKERS];

/* Cut @p m; its fragments go to ip4_output. @return fragments made, 0 when it was dropped. */
static uint16_t
ip4_frag_one(struct rte_graph *graph, struct rte_node *node, struct ip4_frag_worker *fw,
	struct rte_mbuf *m, int meta_off)
{
	const struct dp_mbuf_meta meta = *dp_mbuf_meta(m, meta_off);
	struct rte_mbuf *out[IP4_FRAG_OUT_MAX];
	const uint16_t in_port = m->port;
	int32_t n, i;

	rte_pktmbuf_adj(m, RTE_ETHER_HDR_LEN);
	n = fw->pool == NULL ? -ENOMEM
			     : rte_ipv4_fragment_packet(m, out, IP4_FRAG_OUT_MAX,
				       dp_fwd.nh[meta.nh].mtu, fw->pool, fw->pool);
	if (n <= 0) {
		rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN);
		dp_node_worker(node)->stats.drops[DP_DROP_IP4_FRAG_FAILED]++;
		rte_node_enqueue_x1(graph, node, IP4_FRAG_NEXT_DROP, m);
		return 0;
	}
	/* the fragments hold references to its data */
	rte_pktmbuf_free(m);
	if (!(dp_ports[dp_fwd.nh[meta.nh].port].tx_offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
		for (i = 0; i < n; i++)
			/* a fragment is at most the MTU: it fits a header mbuf's data room */
			if (rte_pktmbuf_linearize(out[i]) < 0) {
				rte_pktmbuf_free_bulk(out, (unsigned int)n);
				dp_node_worker(node)->stats.drops[DP_DROP_IP4_FRAG_FAILED]++;
				return 0;
			}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *f = out[i];
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(f, struct rte_ipv4_hdr *);
		struct rte_ether_hdr *eth;

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		/* ip4_output writes the addresses */
		eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(f, RTE_ETHER_HDR_LEN);
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		f->port = in_port;
		*dp_mbuf_meta(f, meta_off) = meta;
	}
	rte_node_enqueue(graph, node, IP4_FRAG_NEXT_OUTPUT, (void **)out, (uint16_t)n);
	fw->fragmented++;
	fw->fragments += (uint64_t)n;
	return (uint16_t)n;
}

static uint16_t
ip4_frag_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	const struct dp_node_ctx *ctx = (const struct dp_node_ctx *)node->ctx;
	const int meta_off = dp_mbuf_meta_offset;
	uint16_t i;

	for (i = 0; i < nb_objs; i++)
		ip4_frag_one(graph, node, ctx->arg, objs[i], meta_off);
	return nb_objs;
}

static int
ip4_frag_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	struct ip4_frag_worker *fw;
	int rc = dp_graph_node_init_state(
		graph, node, ip4_frag_workers, sizeof(ip4_frag_workers[0]));

	if (rc < 0)
		return rc;
	fw = ctx->arg;
	memset(fw, 0, sizeof(*fw));
	fw->pool = dp_mem_pool_get((int)rte_lcore_to_socket_id(ctx->w->lcore_id));
	return 0;
}

void
dp_fwd_frag4_stats_get(uint64_t *fragmented, uint64_t *fragments)
{
	uint16_t i;

	*fragmented = 0;
	*fragments = 0;
	for (i = 0; i < dp_nb_workers; i++) {
		const struct ip4_frag_worker *fw = &ip4_frag_workers[dp_workers[i]->index];

		*fragmented += fw->fragmented;
		*fragments += fw->fragments;
	}
}

static struct rte_node_register ip4_frag_node = {
	.name = "ip4_frag",
	.process = ip4_frag_process,
	.init = ip4_frag_init,
	.nb_edges = IP4_FRAG_NEXT_MAX,
	.next_nodes = {
		[IP4_FRAG_NEXT_DROP] = "drop",
		[IP4_FRAG_NEXT_OUTPUT] = "ip4_output",
	},
};

RTE_NODE_REGISTER(ip4_frag_node);
