/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * endpoint4_rx, endpoint6_rx (UDP to endpoints)
 *   uses: the IP header ip4_fwd / ip6_fwd checked; the UDP header (first
 *         segment); the port tables; the worker's reassembly table (every
 *         fragment to the router comes here while endpoints are on)
 *   sets: the datagram in the endpoint's receive pipe (payload, length,
 *         sender, RX TSC); the eventfd written when the application sleeps
 *   next: none (delivered, freed in bulk); drop (the ep_* reasons); a timed
 *         out datagram's first fragment waits for endpoint_tx's Time Exceeded
 *
 * endpoint_tx (source node, every walk)
 *   uses: the send pipes of the endpoints this worker sends for; the routes
 *   sets: a packet per datagram, fragmented above the port's MTU; payload
 *         copied, or attached from the shared buffer from zero_copy_min bytes
 *   next: ip4_output / ip6_output, ip4_local / ip6_local (to dpfwd itself),
 *         icmp4_error / icmp6_error (reassembly timeouts); its drops have no
 *         mbuf: counted, the buffer goes back to the application
 *
 * The receive pipe is shared by every worker (multi-producer rings); the send
 * pipe is read by one worker only. Every offset read from a ring is checked
 * against the endpoint's private copy of the geometry before it is followed.
 */
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_fib6.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_udp.h>

#include "dp_cksum.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_icmp6.h"
#include "dp_mem.h"
#include "endpoint_fp.h"
#include "fwd6_fp.h"
#include "graph_fp.h"
#include "icmp4_fp.h"

/* Packets looked at together (runs to one endpoint are delivered in one go). */
#define EP_PIECE 64

#define EP_ETH_IP4 (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
#define EP_ETH_IP6 (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))

/* ---- checksums ----
 *
 * UDP checksums (RFC 768; RFC 8200 8.1) are DPDK's rte_ipv4/6_udptcp_cksum_mbuf() and their
 * _verify() forms wherever they fit. They do not fit as they are in two cases:
 * - they read the L4 length from the IP header, for the pseudo-header and for the bytes they
 *   sum; a datagram shorter than its IP payload, or sent in fragments, is shown to them (or to
 *   rte_ipv4/6_phdr_cksum()) through a copy of the header that carries the datagram's length;
 * - rte_raw_cksum_mbuf(), which they call, byte-swaps the sum of a segment that starts at an
 *   odd offset of the range after truncating it to 16 bits, so the carries of that segment are
 *   lost; and it follows m->next past the end of a chain whose segments hold less than its
 *   pkt_len says. Such a chain is summed by ep_cksum_mbuf() instead.
 */

/* An IP header of either family, copied to change its length. */
union ep_ip_hdr {
	struct rte_ipv4_hdr v4;
	struct rte_ipv6_hdr v6;
};

/* A copy of IP header @p l3 whose length says @p l4len bytes of payload follow. IPv4 options are
 * not copied: the pseudo-header does not read them. */
static inline const void *
ep_ip_hdr_with_len(union ep_ip_hdr *cp, const bool v6, const void *l3, uint32_t l4len)
{
	if (v6) {
		memcpy(&cp->v6, l3, sizeof(cp->v6));
		cp->v6.payload_len = rte_cpu_to_be_16((uint16_t)l4len);
	} else {
		memcpy(&cp->v4, l3, sizeof(cp->v4));
		cp->v4.total_length =
			rte_cpu_to_be_16((uint16_t)(rte_ipv4_hdr_len(&cp->v4) + l4len));
	}
	return cp;
}

/*
 * Does rte_raw_cksum_mbuf() sum the @p len bytes at @p off of @p m right: do the segments hold
 * them, and does every segment after the first of the range start at an even offset of it?
 */
static inline bool
ep_cksum_mbuf_fits(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint32_t end = 0; /* bytes of the chain up to the end of m */

	for (; m != NULL; m = m->next) {
		end += m->data_len;
		if (end >= off + len)
			return true;
		if (end > off && ((end - off) & 1) != 0)
			return false;
	}
	return false;
}

/*
 * rte_raw_cksum_mbuf() for any chain: the sum of each segment is folded before it is
 * byte-swapped (a segment that starts at an odd offset of the range). @return the one's
 * complement sum of the @p len bytes at @p off of @p m, folded.
 */
static uint16_t
ep_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint32_t sum = 0, done = 0;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && done < len) {
		const uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);
		const uint16_t s = rte_raw_cksum(rte_pktmbuf_mtod_offset(m, const void *, off), n);

		sum += (done & 1) ? rte_bswap16(s) : s;
		done += n;
		off = 0;
		m = m->next;
	}
	return dp_cksum_fold(sum);
}

/*
 * __rte_ipv4/6_udptcp_cksum_mbuf() with ep_cksum_mbuf() in place of rte_raw_cksum_mbuf(), for
 * a chain the latter does not sum right (!ep_cksum_mbuf_fits()). @return the sum of the
 * pseudo-header of @p ip and of the @p len bytes at @p l4off, folded, not complemented.
 */
static uint16_t
ep_udp_sum_chain(
	const struct rte_mbuf *m, const bool v6, const void *ip, uint32_t l4off, uint32_t len)
{
	const uint32_t ph = v6 ? rte_ipv6_phdr_cksum(ip, 0) : rte_ipv4_phdr_cksum(ip, 0);

	return dp_cksum_fold(ph + ep_cksum_mbuf(m, l4off, len));
}

/*
 * Is the UDP checksum of the @p ulen bytes at @p l4off of @p m right? @p l3 is the IP header,
 * with @p l4len bytes of payload.
 */
static inline bool
ep_rx_udp_cksum_ok(const struct rte_mbuf *m, const bool v6, const void *l3, uint32_t l4off,
	uint32_t l4len, uint32_t ulen)
{
	union ep_ip_hdr cp;
	const void *ip = l3;

	/* the IP payload holds more than the datagram: the UDP length says where it ends
	 * (RFC 768), and the pseudo-header carries it */
	if (unlikely(ulen != l4len))
		ip = ep_ip_hdr_with_len(&cp, v6, l3, ulen);
	if (unlikely(!ep_cksum_mbuf_fits(m, l4off, ulen)))
		return ep_udp_sum_chain(m, v6, ip, l4off, ulen) == 0xffff;
	return (v6 ? rte_ipv6_udptcp_cksum_mbuf_verify(m, ip, (uint16_t)l4off)
		   : rte_ipv4_udptcp_cksum_mbuf_verify(m, ip, (uint16_t)l4off)) == 0;
}

/* ---- reassembly (RFC 791 3.2, RFC 8200 4.5) ---- */

_Static_assert(EP_REASM_SLOTS == 64, "the slots in use are the bits of one word");

static unsigned int
reasm_free(struct ep_reasm *r, unsigned int i)
{
	struct ep_reasm_dgram *d = &r->d[i];
	struct rte_mbuf *m[EP_REASM_FRAGS];
	unsigned int k, n = d->nb;

	for (k = 0; k < n; k++)
		m[k] = d->f[k].m;
	rte_pktmbuf_free_bulk(m, n);
	d->nb = 0;
	r->held -= n;
	r->used &= ~(UINT64_C(1) << i);
	return n;
}

/*
 * Datagram @p i timed out: RFC 792 (code 1), RFC 1122 3.3.2 and RFC 8200 4.5
 * answer it with Time Exceeded "fragment reassembly time exceeded" when its
 * first fragment came. That fragment is kept for icmp4_error/icmp6_error
 * (endpoint_tx hands it over), which make the error in its mbuf and apply
 * their own rules (rate limit, never about a multicast destination...); the
 * others are freed. @return fragments dropped, the kept one included.
 */
static unsigned int
reasm_time_out(struct ep_reasm *r, unsigned int i)
{
	struct ep_reasm_dgram *d = &r->d[i];
	unsigned int k;

	for (k = 0; k < d->nb && r->nb_errors < EP_REASM_ERRORS_MAX; k++) {
		struct dp_mbuf_meta *meta;

		if (d->f[k].off != 0)
			continue;
		meta = dp_mbuf_meta(d->f[k].m, dp_mbuf_meta_offset);
		meta->icmp_type = d->ip6 ? DP_ICMP6_TIME_EXCEEDED : DP_ICMP4_TIME_EXCEEDED;
		meta->icmp_code = d->ip6 ? DP_ICMP6_EXC_REASM : DP_ICMP4_EXC_REASM;
		r->errors[r->nb_errors++] = d->f[k].m;
		d->f[k] = d->f[--d->nb];
		r->held--;
		return 1 + reasm_free(r, i);
	}
	return reasm_free(r, i);
}

unsigned int
ep_reasm_expire(struct ep_reasm *r, uint64_t now, bool errors)
{
	uint64_t used = r->used;
	unsigned int n = 0;

	while (used != 0) {
		const unsigned int i = (unsigned int)__builtin_ctzll(used);

		used &= used - 1;
		if (now - r->d[i].start_tsc > r->timeout_tsc)
			n += errors ? reasm_time_out(r, i) : reasm_free(r, i);
	}
	if (!errors && r->nb_errors != 0) {
		rte_pktmbuf_free_bulk(r->errors, r->nb_errors);
		r->nb_errors = 0;
	}
	return n;
}

/* The Time Exceeded errors waiting (reasm_time_out), to the ICMP error nodes. */
static __rte_noinline void
reasm_send_errors(struct rte_graph *graph, struct rte_node *node, struct ep_reasm *r,
	rte_edge_t edge4, rte_edge_t edge6)
{
	uint32_t k;

	for (k = 0; k < r->nb_errors; k++) {
		const uint8_t *l3 =
			rte_pktmbuf_mtod_offset(r->errors[k], const uint8_t *, RTE_ETHER_HDR_LEN);

		rte_node_enqueue_x1(graph, node, (l3[0] >> 4) == 6 ? edge6 : edge4, r->errors[k]);
	}
	r->nb_errors = 0;
}

/* What a fragment says of itself. */
struct ep_frag_hdr {
	const uint8_t *src, *dst;
	uint32_t id;
	uint32_t off, len; /* payload bytes after the (fragment) header */
	uint16_t hlen;     /* L2 + L3 in front of them */
	bool more;
};

static enum dp_drop_reason
frag_parse(struct rte_mbuf *m, const bool v6, struct ep_frag_hdr *h)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);

	if (v6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
		const struct rte_ipv6_fragment_ext *fh = (const void *)(ip + 1);
		const uint32_t plen = rte_be_to_cpu_16(ip->payload_len);
		uint16_t fd;

		h->hlen = EP_ETH_IP6 + sizeof(*fh);
		if (m->data_len < h->hlen || plen < sizeof(*fh))
			return DP_DROP_EP_FRAG_BAD;
		fd = rte_be_to_cpu_16(fh->frag_data);
		h->off = fd & RTE_IPV6_EHDR_FO_MASK; /* 8-byte units, in place */
		h->more = RTE_IPV6_GET_MF(fd) != 0;
		h->len = plen - sizeof(*fh);
		memcpy(&h->id, &fh->id, sizeof(h->id));
		h->src = ip->src_addr;
		h->dst = ip->dst_addr;
		/* RFC 8200 4.5: over 65535 bytes, or a non-last fragment not a multiple of 8 */
		if (h->off + h->len > 65535)
			return DP_DROP_EP_FRAG_BAD;
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		const uint32_t ihl = rte_ipv4_hdr_len(ip);
		const uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);

		h->hlen = (uint16_t)(RTE_ETHER_HDR_LEN + ihl);
		h->off = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * RTE_IPV4_HDR_OFFSET_UNITS;
		h->more = (fo & RTE_IPV4_HDR_MF_FLAG) != 0;
		h->len = rte_be_to_cpu_16(ip->total_length) - ihl; /* checked by ip4_fwd */
		/* RFC 791 3.2: the key is source, destination, protocol, identification */
		h->id = (uint32_t)ip->packet_id | (uint32_t)ip->next_proto_id << 16;
		h->src = (const uint8_t *)&ip->src_addr;
		h->dst = (const uint8_t *)&ip->dst_addr;
		if (ihl + h->off + h->len > 65535)
			return DP_DROP_EP_FRAG_BAD;
	}
	if (h->len == 0 || (h->more && (h->len & 7) != 0) || m->pkt_len < h->hlen + h->len)
		return DP_DROP_EP_FRAG_BAD;
	return DP_DROP_MAX;
}

/* The slot of @p h's datagram, a new one, or -1 (table full). */
static int
reasm_slot(struct ep_reasm *r, const bool v6, const struct ep_frag_hdr *h, uint64_t now,
	struct dp_worker *w)
{
	const unsigned int alen = v6 ? 16 : 4;
	uint64_t used = r->used, free_mask;
	struct ep_reasm_dgram *d;
	unsigned int i;

	while (used != 0) {
		i = (unsigned int)__builtin_ctzll(used);
		used &= used - 1;
		d = &r->d[i];
		if (r->ids[i] != h->id || d->ip6 != v6 || memcmp(d->src, h->src, alen) != 0 ||
			memcmp(d->dst, h->dst, alen) != 0)
			continue;
		if (now - d->start_tsc <= r->timeout_tsc)
			return (int)i;
		/* too old: what it held goes, the fragment starts it anew */
		w->stats.drops[DP_DROP_EP_FRAG_TIMEOUT] += reasm_time_out(r, i);
		break;
	}
	free_mask = ~r->used;
	if (free_mask == 0 || r->held >= EP_REASM_HELD_MAX) {
		w->stats.drops[DP_DROP_EP_FRAG_TIMEOUT] += ep_reasm_expire(r, now, true);
		free_mask = ~r->used;
		if (free_mask == 0 || r->held >= EP_REASM_HELD_MAX)
			return -1;
	}
	i = (unsigned int)__builtin_ctzll(free_mask);
	d = &r->d[i];
	r->used |= UINT64_C(1) << i;
	r->ids[i] = h->id;
	d->id = h->id;
	d->ip6 = v6;
	memcpy(d->src, h->src, alen);
	memcpy(d->dst, h->dst, alen);
	d->start_tsc = now;
	d->got = 0;
	d->total = UINT32_MAX;
	d->nb = 0;
	return (int)i;
}

/* The datagram of slot @p i is whole: its fragments chained in order, headers fixed. */
static struct rte_mbuf *
reasm_build(struct ep_reasm *r, unsigned int i, const bool v6)
{
	struct ep_reasm_dgram *d = &r->d[i];
	struct rte_mbuf *head;
	unsigned int k, j;

	/* by offset (insertion sort: they mostly come in order) */
	for (k = 1; k < d->nb; k++) {
		struct ep_frag f = d->f[k];

		for (j = k; j > 0 && d->f[j - 1].off > f.off; j--)
			d->f[j] = d->f[j - 1];
		d->f[j] = f;
	}
	head = d->f[0].m;
	for (k = 1; k < d->nb; k++) {
		rte_pktmbuf_adj(d->f[k].m, d->f[k].hlen);
		/* cannot fail: 64 fragments of one segment or a few each */
		rte_pktmbuf_chain(head, d->f[k].m);
	}
	if (v6) {
		uint8_t *p = rte_pktmbuf_mtod(head, uint8_t *);
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
		const struct rte_ipv6_fragment_ext *fh = (const void *)(ip + 1);

		/* the Fragment header goes: what it said comes next, the rest moves up */
		ip->proto = fh->next_header;
		ip->payload_len = rte_cpu_to_be_16((uint16_t)d->total);
		memmove(p + sizeof(*fh), p, EP_ETH_IP6);
		rte_pktmbuf_adj(head, sizeof(*fh));
	} else {
		struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(head, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);

		ip->total_length = rte_cpu_to_be_16((uint16_t)(rte_ipv4_hdr_len(ip) + d->total));
		ip->fragment_offset = 0;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	/* the NIC's verdict was on a fragment */
	head->ol_flags &= ~RTE_MBUF_F_RX_L4_CKSUM_MASK;
	d->nb = 0;
	r->held -= k;
	r->used &= ~(UINT64_C(1) << i);
	return head;
}

/*
 * Take fragment @p m. @return the whole datagram when @p m completed it, else
 * NULL; *why is DP_DROP_MAX when the table keeps @p m (or it is in the
 * datagram), else the reason to drop @p m for.
 */
static struct rte_mbuf *
reasm_add(struct ep_worker *ws, struct dp_worker *w, struct rte_mbuf *m, const bool v6,
	uint64_t now, enum dp_drop_reason *why)
{
	struct ep_reasm *r = ws->reasm;
	struct ep_reasm_dgram *d;
	struct ep_frag_hdr h;
	uint32_t end;
	unsigned int k;
	int i;

	*why = frag_parse(m, v6, &h);
	if (*why != DP_DROP_MAX)
		return NULL;
	/* the Ethernet padding of a short last fragment is not payload */
	if (m->pkt_len > h.hlen + h.len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - h.hlen - h.len));
	end = h.off + h.len;
	i = reasm_slot(r, v6, &h, now, w);
	if (i < 0) {
		*why = DP_DROP_EP_FRAG_FULL;
		return NULL;
	}
	d = &r->d[i];
	for (k = 0; k < d->nb; k++) {
		const struct ep_frag *f = &d->f[k];

		if (h.off < (uint32_t)f->off + f->len && f->off < end) {
			/* a copy of one we have is harmless; any other overlap
			 * discards the whole datagram (RFC 5722) */
			*why = DP_DROP_EP_FRAG_BAD;
			if (f->off != h.off || f->len != h.len)
				w->stats.drops[DP_DROP_EP_FRAG_BAD] +=
					reasm_free(r, (unsigned int)i);
			return NULL;
		}
	}
	if ((!h.more && d->total != UINT32_MAX && d->total != end) ||
		(d->total != UINT32_MAX && end > d->total) || d->nb == EP_REASM_FRAGS) {
		*why = DP_DROP_EP_FRAG_BAD;
		w->stats.drops[DP_DROP_EP_FRAG_BAD] += reasm_free(r, (unsigned int)i);
		return NULL;
	}
	if (!h.more) {
		for (k = 0; k < d->nb; k++) {
			if ((uint32_t)d->f[k].off + d->f[k].len > end) {
				*why = DP_DROP_EP_FRAG_BAD;
				w->stats.drops[DP_DROP_EP_FRAG_BAD] +=
					reasm_free(r, (unsigned int)i);
				return NULL;
			}
		}
		d->total = end;
	}
	/* the bound on what the table holds, for datagrams already started too */
	if (unlikely(r->held >= EP_REASM_HELD_MAX)) {
		*why = DP_DROP_EP_FRAG_FULL;
		return NULL;
	}
	d->f[d->nb].m = m;
	d->f[d->nb].off = (uint16_t)h.off;
	d->f[d->nb].len = (uint16_t)h.len;
	d->f[d->nb].hlen = h.hlen;
	d->nb++;
	d->got += h.len;
	r->held++;
	ws->stats.reasm_frags++;
	if (d->got != d->total)
		return NULL;
	/* no overlap and every byte up to the end: the datagram is whole */
	ws->stats.reasm_done++;
	if (w->delay_stats)
		dp_mbuf_meta(d->f[0].m, dp_mbuf_meta_offset)->rx_tsc =
			dp_mbuf_meta(m, dp_mbuf_meta_offset)->rx_tsc;
	return reasm_build(r, (unsigned int)i, v6);
}

/* ---- endpoint4_rx, endpoint6_rx ---- */

enum ep_rx_next {
	EP_RX_NEXT_DROP,
	EP_RX_NEXT_MAX,
};

/* A datagram for an endpoint, as parsed. */
struct ep_rx_item {
	struct rte_mbuf *m;
	struct ep_dp *e;
	const uint8_t *src; /* the sender's address, in the packet */
	rte_be16_t sport;
	uint32_t off; /* of the payload in the packet */
	uint32_t len;
};

/*
 * Check one UDP datagram to an endpoint's port and find its endpoint.
 * @return DP_DROP_MAX, or why it is dropped.
 */
static inline enum dp_drop_reason
ep_rx_parse(struct rte_mbuf *m, const bool v6, struct ep_rx_item *it)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp;
	const uint8_t *src, *dst;
	uint32_t l4off, l4len, ulen;
	uint64_t ck;
	struct ep_dp *e;

	if (v6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		if (ip->proto != IPPROTO_UDP) /* a reassembled datagram of another protocol */
			return DP_DROP_IP6_LOCAL;
		l4off = EP_ETH_IP6;
		l4len = rte_be_to_cpu_16(ip->payload_len);
		src = ip->src_addr;
		dst = ip->dst_addr;
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		const uint32_t ihl = rte_ipv4_hdr_len(ip);

		if (ip->next_proto_id != IPPROTO_UDP)
			return DP_DROP_IP4_LOCAL;
		l4off = RTE_ETHER_HDR_LEN + ihl;
		l4len = rte_be_to_cpu_16(ip->total_length) - ihl; /* >= 0: checked by ip4_fwd */
		src = (const uint8_t *)&ip->src_addr;
		dst = (const uint8_t *)&ip->dst_addr;
	}
	if (unlikely(m->data_len < l4off + sizeof(*udp)))
		return DP_DROP_EP_BAD_UDP;
	udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, l4off);
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	/* RFC 768: the length counts header and data; what lies past it in the IP
	 * payload is not the datagram's */
	if (unlikely(l4len < sizeof(*udp) || ulen < sizeof(*udp) || ulen > l4len ||
		     m->pkt_len < l4off + ulen))
		return DP_DROP_EP_BAD_UDP;
	e = __atomic_load_n(
		&(v6 ? ep_port6 : ep_port4)[rte_be_to_cpu_16(udp->dst_port)], __ATOMIC_ACQUIRE);
	if (unlikely(e == NULL) || (!e->wildcard && memcmp(e->addr, dst, v6 ? 16 : 4) != 0))
		return DP_DROP_EP_NO_ENDPOINT;
	ck = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	if (unlikely(ck == RTE_MBUF_F_RX_L4_CKSUM_BAD))
		return DP_DROP_EP_BAD_CKSUM;
	if (udp->dgram_cksum == 0) {
		/* IPv4: sent without one (RFC 768); IPv6: not allowed (RFC 8200 8.1) */
		if (v6)
			return DP_DROP_EP_BAD_CKSUM;
	} else if (ck != RTE_MBUF_F_RX_L4_CKSUM_GOOD &&
		   !ep_rx_udp_cksum_ok(m, v6, l3, l4off, l4len, ulen)) {
		return DP_DROP_EP_BAD_CKSUM;
	}
	it->m = m;
	it->e = e;
	it->src = src;
	it->sport = udp->src_port;
	it->off = l4off + sizeof(*udp);
	it->len = ulen - sizeof(*udp);
	return DP_DROP_MAX;
}

static inline void
ep_peer_fill(struct dpsock_msg *msg, const bool v6, const uint8_t *src, rte_be16_t sport)
{
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} peer;

	memset(&peer, 0, sizeof(peer));
	if (v6) {
		peer.in6.sin6_family = AF_INET6;
		peer.in6.sin6_port = sport;
		memcpy(&peer.in6.sin6_addr, src, 16);
	} else {
		peer.in.sin_family = AF_INET;
		peer.in.sin_port = sport;
		memcpy(&peer.in.sin_addr, src, 4);
	}
	memcpy(&msg->peer, &peer, sizeof(msg->peer));
}

/*
 * Put @p n datagrams for endpoint @p e in its receive pipe: buffers taken per
 * class in one dequeue each, one enqueue for all, at most one wake-up.
 * Those that get no buffer go to @p drop (their item's m set to NULL).
 */
static void
ep_rx_deliver(struct dp_worker *w, struct ep_worker *ws, struct ep_dp *e, struct ep_rx_item *it,
	uint16_t n, const bool v6, uint64_t now, void **drop, uint16_t *nd)
{
	uint64_t bufs[DPSOCK_NB_CLASSES][EP_PIECE], sent[EP_PIECE];
	unsigned int need[DPSOCK_NB_CLASSES] = { 0 }, got[DPSOCK_NB_CLASSES],
		     used[DPSOCK_NB_CLASSES];
	int8_t cls[EP_PIECE];
	const int meta_off = dp_mbuf_meta_offset;
	uint64_t bytes = 0;
	uint32_t full = 0;
	uint16_t i, ns = 0;
	unsigned int c;

	for (i = 0; i < n; i++) {
		cls[i] = (int8_t)dpsock_pipe_class_for(&e->rx_geo, it[i].len);
		if (cls[i] >= 0)
			need[cls[i]]++;
	}
	for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
		got[c] =
			need[c] ? dpsock_pipe_alloc(e->region, &e->rx_geo, c, bufs[c], need[c]) : 0;
		used[c] = 0;
	}
	for (i = 0; i < n; i++) {
		struct dpsock_msg *msg;
		uint32_t slot;
		uint64_t off;
		const void *p;

		if (unlikely(cls[i] < 0)) {
			w->stats.drops[DP_DROP_EP_RX_TOO_BIG]++;
			goto drop;
		}
		c = (unsigned int)cls[i];
		if (unlikely(used[c] == got[c])) {
			w->stats.drops[DP_DROP_EP_RX_FULL]++;
			full++;
			goto drop;
		}
		off = bufs[c][used[c]++];
		/* the application gave it back on the free ring: check before writing */
		if (unlikely(dpsock_pipe_buf_check(&e->rx_geo, off, &slot) != (int)c)) {
			w->stats.drops[DP_DROP_EP_BAD_BUF]++;
			goto drop;
		}
		msg = dpsock_buf(e->region, off);
		p = rte_pktmbuf_read(it[i].m, it[i].off, it[i].len, dpsock_msg_data(msg));
		if (p != dpsock_msg_data(msg))
			rte_memcpy(dpsock_msg_data(msg), p, it[i].len);
		msg->len = it[i].len;
		msg->tsc = w->delay_stats ? dp_mbuf_meta(it[i].m, meta_off)->rx_tsc : now;
		ep_peer_fill(msg, v6, it[i].src, it[i].sport);
		sent[ns++] = off;
		bytes += it[i].len;
		continue;
	drop:
		/* to "drop" rather than freed with the delivered ones */
		drop[(*nd)++] = it[i].m;
		it[i].m = NULL;
	}
	if (ns != 0) {
		dpsock_pipe_send(e->region, &e->rx_geo, sent, ns);
		/* the one system call of a worker: the application sleeps on its eventfd */
		if (dpsock_pipe_wake_needed(e->rx_pipe)) {
			const uint64_t one = 1;

			if (write(e->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
				ws->stats.wakeups++;
		}
		ws->stats.rx_msgs += ns;
		ws->stats.rx_bytes += bytes;
		__atomic_fetch_add(&e->rx_msgs, ns, __ATOMIC_RELAXED);
		__atomic_fetch_add(&e->rx_bytes, bytes, __ATOMIC_RELAXED);
	}
	if (full != 0) {
		__atomic_fetch_add(&e->rx_pipe->dropped, full, __ATOMIC_RELAXED);
		__atomic_fetch_add(&e->rx_dropped, full, __ATOMIC_RELAXED);
	}
}

static __rte_always_inline uint16_t
ep_rx_burst(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs,
	const bool v6)
{
	const struct dp_node_ctx *ctx = (const struct dp_node_ctx *)node->ctx;
	struct dp_worker *w = ctx->w;
	struct ep_worker *ws = ctx->arg;
	const uint64_t now = rte_rdtsc();
	uint16_t base;

	for (base = 0; base < nb_objs; base += EP_PIECE) {
		const uint16_t n = RTE_MIN(nb_objs - base, EP_PIECE);
		struct ep_rx_item it[EP_PIECE];
		struct rte_mbuf *done[EP_PIECE];
		void *drop[EP_PIECE];
		uint16_t i, j, ni = 0, nd = 0, nf = 0;

		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = objs[base + i];
			const uint8_t *l3 =
				rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);
			enum dp_drop_reason why;
			bool frag;

			if (v6)
				frag = ((const struct rte_ipv6_hdr *)l3)->proto == IPPROTO_FRAGMENT;
			else
				frag = (((const struct rte_ipv4_hdr *)l3)->fragment_offset &
					       RTE_BE16(RTE_IPV4_HDR_MF_FLAG |
							RTE_IPV4_HDR_OFFSET_MASK)) != 0;
			if (unlikely(frag)) {
				if (ws == NULL || ws->reasm == NULL) {
					why = v6 ? DP_DROP_IP6_LOCAL : DP_DROP_IP4_FRAG_LOCAL;
					goto drop;
				}
				m = reasm_add(ws, w, m, v6, now, &why);
				if (why != DP_DROP_MAX)
					goto drop;
				if (m == NULL) /* kept, waiting for the rest */
					continue;
			}
			why = ep_rx_parse(m, v6, &it[ni]);
			if (likely(why == DP_DROP_MAX)) {
				ni++;
				continue;
			}
		drop:
			w->stats.drops[why]++;
			drop[nd++] = objs[base + i];
			/* a datagram built from fragments replaced the last of them */
			if (unlikely(m != NULL && m != objs[base + i]))
				drop[nd - 1] = m;
		}
		/* runs of datagrams to one endpoint, delivered together */
		for (i = 0; i < ni; i = j) {
			for (j = i + 1; j < ni && it[j].e == it[i].e; j++)
				;
			ep_rx_deliver(w, ws, it[i].e, &it[i], j - i, v6, now, drop, &nd);
		}
		/* delivered: copied out, freed here in one call */
		for (i = 0; i < ni; i++)
			if (it[i].m != NULL)
				done[nf++] = it[i].m;
		rte_pktmbuf_free_bulk(done, nf);
		dp_node_enqueue(graph, node, EP_RX_NEXT_DROP, drop, nd);
	}
	return nb_objs;
}

static uint16_t
endpoint4_rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	return ep_rx_burst(graph, node, objs, nb_objs, false);
}

static uint16_t
endpoint6_rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	return ep_rx_burst(graph, node, objs, nb_objs, true);
}

/* Every node of the module: the worker, its ep_worker, its pool. */
static int
ep_node_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct dp_node_ctx *ctx = (struct dp_node_ctx *)node->ctx;
	struct ep_worker *ws;
	int rc = dp_graph_node_init_state(graph, node, ep_workers, sizeof(ep_workers[0]));

	if (rc < 0)
		return rc;
	ws = ctx->arg;
	ws->pool = dp_mem_pool_get((int)rte_lcore_to_socket_id(ctx->w->lcore_id));
	ws->seg_room =
		ws->pool != NULL
			? (uint16_t)(rte_pktmbuf_data_room_size(ws->pool) - RTE_PKTMBUF_HEADROOM)
			: 0;
	if (ws->ip4_id == 0)
		ws->ip4_id = (uint16_t)rte_rdtsc();
	/* IPv6 identifications of different workers never meet: the worker in the top bits */
	ws->ip6_frag_id = (uint32_t)ctx->w->index << 26 | ((uint32_t)rte_rdtsc() & 0x3ffffff);
	return 0;
}

static struct rte_node_register endpoint4_rx_node = {
	.name = "endpoint4_rx",
	.process = endpoint4_rx_process,
	.init = ep_node_init,
	.nb_edges = EP_RX_NEXT_MAX,
	.next_nodes =
		{
			[EP_RX_NEXT_DROP] = "drop",
		},
};
RTE_NODE_REGISTER(endpoint4_rx_node);

static struct rte_node_register endpoint6_rx_node = {
	.name = "endpoint6_rx",
	.process = endpoint6_rx_process,
	.init = ep_node_init,
	.nb_edges = EP_RX_NEXT_MAX,
	.next_nodes =
		{
			[EP_RX_NEXT_DROP] = "drop",
		},
};
RTE_NODE_REGISTER(endpoint6_rx_node);

/* ---- endpoint_tx ---- */

enum ep_tx_next {
	EP_TX_NEXT_IP4_OUTPUT,
	EP_TX_NEXT_IP6_OUTPUT,
	EP_TX_NEXT_IP4_LOCAL,
	EP_TX_NEXT_IP6_LOCAL,
	EP_TX_NEXT_ICMP4_ERROR,
	EP_TX_NEXT_ICMP6_ERROR,
	EP_TX_NEXT_MAX,
};

/* The reassembly table's clock: expired datagrams go every this many calls (a power of two). */
#define EP_REASM_TICK_CALLS 1024

/* Where one datagram goes. */
struct ep_tx_route {
	uint8_t src[16], dst[16];
	rte_be16_t dport;
	uint32_t nh;
	bool local;  /* to one of dpfwd's own addresses */
	bool chains; /* the way out takes chained mbufs */
	uint16_t mtu;
};

/* Route the destination in @p peer. @return DP_DROP_MAX, or why not. */
static inline enum dp_drop_reason
ep_tx_route(const struct ep_dp *e, const struct dpsock_msg *peer_msg, struct ep_tx_route *r)
{
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} peer;
	uint16_t port;

	/* read once: the application may write it meanwhile */
	memcpy(&peer, (const void *)&peer_msg->peer, sizeof(peer));
	if (e->ip6) {
		uint8_t ips[1][RTE_FIB6_IPV6_ADDR_SIZE];
		struct rte_fib6 *fib;
		uint64_t hop;

		if (peer.in6.sin6_family != AF_INET6 || peer.in6.sin6_port == 0)
			return DP_DROP_EP_BAD_DEST;
		memcpy(r->dst, &peer.in6.sin6_addr, 16);
		if (ip6_is_unspec(r->dst) || ip6_is_mcast(r->dst) ||
			(r->dst[15] == 1 && memcmp(r->dst, (const uint8_t[15]){ 0 }, 15) == 0))
			return DP_DROP_EP_BAD_DEST;
		r->dport = peer.in6.sin6_port;
		fib = __atomic_load_n(&dp_fwd_ip6.fib, __ATOMIC_ACQUIRE);
		if (fib == NULL)
			return DP_DROP_EP_NO_ROUTE;
		memcpy(ips[0], r->dst, 16);
		rte_fib6_lookup_bulk(fib, ips, &hop, 1);
		if (hop == DP_FWD_NO_ROUTE6)
			return DP_DROP_EP_NO_ROUTE;
		r->nh = (uint32_t)hop;
		r->local = hop == DP_FWD_NH_LOCAL;
		port = r->local ? 0 : dp_fwd.nh[r->nh].port;
		if (!e->wildcard)
			memcpy(r->src, e->addr, 16);
		else
			memcpy(r->src, r->local ? r->dst : ip6_src_for(port, r->dst), 16);
	} else {
		uint32_t dst;

		if (peer.in.sin_family != AF_INET || peer.in.sin_port == 0)
			return DP_DROP_EP_BAD_DEST;
		dst = rte_be_to_cpu_32(peer.in.sin_addr.s_addr);
		if (icmp4_addr_bad(dst))
			return DP_DROP_EP_BAD_DEST;
		memcpy(r->dst, &peer.in.sin_addr.s_addr, 4);
		r->dport = peer.in.sin_port;
		r->nh = dp_fwd_lookup4(dst);
		if (r->nh == DP_FWD_NO_ROUTE)
			return DP_DROP_EP_NO_ROUTE;
		r->local = r->nh == DP_FWD_NH_LOCAL;
		port = r->local ? 0 : dp_fwd.nh[r->nh].port;
		if (!e->wildcard) {
			memcpy(r->src, e->addr, 4);
		} else if (r->local) {
			memcpy(r->src, r->dst, 4);
		} else {
			const rte_be32_t a = rte_cpu_to_be_32(dp_ports[port].ip4);

			if (a == 0) /* the port has no IPv4 address to send from */
				return DP_DROP_EP_NO_ROUTE;
			memcpy(r->src, &a, 4);
		}
	}
	r->mtu = port < DP_CONFIG_MAX_PORTS ? ep_params.mtu[port] : RTE_ETHER_MTU;
	r->chains = r->local || (port < DP_CONFIG_MAX_PORTS && ep_params.chains[port]);
	return DP_DROP_MAX;
}

/*
 * The UDP checksum of a datagram sent in one packet, once @p h holds it (the field 0 until
 * then). DPDK's send a computed 0 as all ones (RFC 768, RFC 8200 8.1), as the wrapper does.
 */
static inline void
ep_tx_udp_cksum_set(struct rte_mbuf *h, const bool v6, uint32_t l4off, uint32_t ulen)
{
	const void *ip = rte_pktmbuf_mtod_offset(h, const void *, RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = rte_pktmbuf_mtod_offset(h, struct rte_udp_hdr *, l4off);
	uint16_t c;

	if (likely(ep_cksum_mbuf_fits(h, l4off, ulen))) {
		udp->dgram_cksum = v6 ? rte_ipv6_udptcp_cksum_mbuf(h, ip, (uint16_t)l4off)
				      : rte_ipv4_udptcp_cksum_mbuf(h, ip, (uint16_t)l4off);
		return;
	}
	/* copied into segments of an odd size */
	c = (uint16_t)~ep_udp_sum_chain(h, v6, ip, l4off, ulen);
	udp->dgram_cksum = c == 0 ? 0xffff : c;
}

/*
 * The UDP checksum of a datagram sent in fragments. It covers the whole datagram, and its
 * pseudo-header has the datagram's length (RFC 768; RFC 8200 8.1), but no packet holds the
 * whole datagram and no fragment's IP header has that length, so DPDK's functions do not fit:
 * it is summed from the payload where the application wrote it, with DPDK's pseudo-header of
 * the IP header the datagram would have if it were sent whole.
 */
static inline rte_be16_t
ep_tx_frag_udp_cksum(const bool v6, const struct ep_tx_route *r, const struct rte_udp_hdr *udp,
	const void *payload, uint32_t len)
{
	const uint16_t ulen = (uint16_t)(sizeof(*udp) + len);
	union ep_ip_hdr ip;
	uint32_t sum;
	uint16_t c;

	memset(&ip, 0, sizeof(ip));
	if (v6) {
		ip.v6.payload_len = rte_cpu_to_be_16(ulen);
		ip.v6.proto = IPPROTO_UDP;
		memcpy(ip.v6.src_addr, r->src, 16);
		memcpy(ip.v6.dst_addr, r->dst, 16);
		sum = rte_ipv6_phdr_cksum(&ip.v6, 0);
	} else {
		ip.v4.version_ihl = RTE_IPV4_VHL_DEF;
		ip.v4.total_length = rte_cpu_to_be_16((uint16_t)(sizeof(ip.v4) + ulen));
		ip.v4.next_proto_id = IPPROTO_UDP;
		memcpy(&ip.v4.src_addr, r->src, 4);
		memcpy(&ip.v4.dst_addr, r->dst, 4);
		sum = rte_ipv4_phdr_cksum(&ip.v4, 0);
	}
	/* the payload starts at an even offset (8) of the datagram: its sum adds as it is */
	sum += rte_raw_cksum(udp, sizeof(*udp));
	sum += rte_raw_cksum(payload, len);
	c = (uint16_t)~dp_cksum_fold(sum);
	return c == 0 ? 0xffff : c;
}

/* Headers of one packet, in front of its slice of the datagram. */
static inline void
ep_tx_headers(struct rte_mbuf *h, const bool v6, const struct ep_tx_route *r,
	const struct rte_udp_hdr *udp, uint32_t frag_off, uint32_t ip_plen, bool frag, bool more,
	uint16_t ip4_id, uint32_t ip6_id)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(h, struct rte_ether_hdr *);
	/* ip4_output / ip6_output take one off on the way out; hairpins are not routed */
	const uint8_t ttl = r->local ? EP_TTL : EP_TTL + 1;
	uint8_t *l4;

	memset(eth, 0, 2 * RTE_ETHER_ADDR_LEN);
	if (v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);

		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		ip->vtc_flow = RTE_BE32(UINT32_C(6) << 28);
		ip->hop_limits = ttl;
		memcpy(ip->src_addr, r->src, 16);
		memcpy(ip->dst_addr, r->dst, 16);
		l4 = (uint8_t *)(ip + 1);
		if (frag) {
			struct rte_ipv6_fragment_ext *fh = (struct rte_ipv6_fragment_ext *)l4;

			/* RFC 8200 4.5: offset in 8-byte units, M, one identification */
			ip->proto = IPPROTO_FRAGMENT;
			ip->payload_len = rte_cpu_to_be_16((uint16_t)(sizeof(*fh) + ip_plen));
			fh->next_header = IPPROTO_UDP;
			fh->reserved = 0;
			fh->frag_data = rte_cpu_to_be_16((uint16_t)(frag_off | (more ? 1 : 0)));
			fh->id = rte_cpu_to_be_32(ip6_id);
			l4 += sizeof(*fh);
		} else {
			ip->proto = IPPROTO_UDP;
			ip->payload_len = rte_cpu_to_be_16((uint16_t)ip_plen);
		}
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);

		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = 0;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + ip_plen));
		ip->packet_id = rte_cpu_to_be_16(ip4_id);
		/* RFC 791 3.1: offset in 8-byte units; DF clear, so that the path may
		 * fragment further */
		ip->fragment_offset =
			rte_cpu_to_be_16((uint16_t)(frag_off / RTE_IPV4_HDR_OFFSET_UNITS |
						    (more ? RTE_IPV4_HDR_MF_FLAG : 0)));
		ip->time_to_live = ttl;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->src_addr, r->src, 4);
		memcpy(&ip->dst_addr, r->dst, 4);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		l4 = (uint8_t *)(ip + 1);
	}
	if (frag_off == 0)
		memcpy(l4, udp, sizeof(*udp));
}

/* Copy @p n bytes after what @p h holds, into further segments from @p mb as needed. */
static inline void
ep_tx_copy(
	struct rte_mbuf *h, const uint8_t *src, uint32_t n, struct rte_mbuf **mb, unsigned int *mi)
{
	struct rte_mbuf *seg = h;

	while (n != 0) {
		uint16_t room = rte_pktmbuf_tailroom(seg);
		uint32_t c;

		if (room == 0) {
			/*
			 * ep_tx_one() allocated the segments ep_tx_segs() counts for the copy; the
			 * analyser takes z = &e->zc[slot] for NULL after counting for zero copy (2
			 * mbufs a packet) and sees mb[] short.
			 */
			/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
			seg->next = mb[(*mi)++];
			seg = seg->next;
			h->nb_segs++;
			continue;
		}
		c = RTE_MIN((uint32_t)room, n);
		rte_memcpy(rte_pktmbuf_mtod_offset(seg, uint8_t *, seg->data_len), src, c);
		seg->data_len = (uint16_t)(seg->data_len + c);
		h->pkt_len += c;
		src += c;
		n -= c;
	}
}

/* Segments a copied packet of @p bytes (headers included) takes. */
static inline unsigned int
ep_tx_segs(uint32_t bytes, uint16_t room)
{
	return bytes <= room ? 1 : (bytes + room - 1) / room;
}

/*
 * One buffer of the send pipe. @return packets it made (on out / next), 0 when
 * it was dropped, or -1 when they would not fit in @p room (try again later).
 * *give_back is set when the buffer returns to the application now (copied or
 * dropped); a zero-copy one returns when its last mbuf is freed.
 */
static int
ep_tx_one(struct dp_worker *w, struct ep_worker *ws, struct ep_dp *e, uint64_t off,
	struct rte_mbuf **out, rte_edge_t *next, unsigned int room, uint64_t now, bool *give_back)
{
	const bool v6 = e->ip6;
	const unsigned int l3 = v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	struct rte_mbuf *mb[2 * EP_TX_OUT_MAX];
	const int meta_off = dp_mbuf_meta_offset;
	enum dp_drop_reason why;
	struct dpsock_msg *msg;
	struct ep_tx_route r;
	struct rte_udp_hdr udp;
	struct ep_zc *z = NULL;
	const uint8_t *payload;
	uint32_t slot, len, total, fs, k, nfrag, nm, hdr;
	unsigned int mi = 0;
	rte_edge_t edge;
	bool cksum;
	int c;

	*give_back = false;
	c = dpsock_pipe_buf_check(&e->tx_geo, off, &slot);
	if (unlikely(c < 0)) {
		why = DP_DROP_EP_BAD_BUF; /* not a buffer: nothing to give back */
		goto drop;
	}
	*give_back = true;
	msg = dpsock_buf(e->region, off);
	len = __atomic_load_n(&msg->len, __ATOMIC_RELAXED);
	if (unlikely(len > e->tx_geo.cls[c].cap)) {
		why = DP_DROP_EP_BAD_BUF;
		goto drop;
	}
	if (unlikely(len > (v6 ? EP_UDP6_MAX : EP_UDP4_MAX))) {
		why = DP_DROP_EP_TOO_BIG;
		goto drop;
	}
	why = ep_tx_route(e, msg, &r);
	if (unlikely(why != DP_DROP_MAX))
		goto drop;
	/* the plan: one packet, or fragments of fs bytes of IP payload (RFC 791 3.2,
	 * RFC 8200 4.5: multiples of 8 but the last) */
	total = sizeof(udp) + len;
	if (l3 + total <= r.mtu) {
		fs = total;
		nfrag = 1;
	} else {
		fs = (r.mtu - l3 - (v6 ? sizeof(struct rte_ipv6_fragment_ext) : 0)) & ~7u;
		nfrag = (total + fs - 1) / fs;
	}
	hdr = RTE_ETHER_HDR_LEN + l3 + (nfrag > 1 && v6 ? sizeof(struct rte_ipv6_fragment_ext) : 0);
	if (unlikely(nfrag > EP_TX_OUT_MAX)) {
		why = DP_DROP_EP_TOO_BIG;
		goto drop;
	}
	if (nfrag > room) {
		*give_back = false;
		return -1;
	}
	if (ep_params.zc_ok && len >= ep_params.zc_min && r.chains) {
		z = &e->zc[slot];
		/* the application sent it again while mbufs still point at it */
		if (unlikely(__atomic_exchange_n(&z->busy, 1, __ATOMIC_ACQUIRE) != 0)) {
			*give_back = false;
			why = DP_DROP_EP_BAD_BUF;
			goto drop;
		}
		nm = 2 * nfrag;
	} else {
		/* where chains cannot go, each packet must fit one buffer (the first is the
		 * longest) */
		if (unlikely(!r.chains && hdr + fs > ws->seg_room)) {
			why = DP_DROP_EP_TOO_BIG;
			goto drop;
		}
		for (nm = 0, k = 0; k < nfrag; k++)
			nm += ep_tx_segs(hdr + RTE_MIN(fs, total - k * fs), ws->seg_room);
	}
	if (unlikely(nm > RTE_DIM(mb))) {
		why = DP_DROP_EP_TOO_BIG;
		goto unbusy;
	}
	if (unlikely(ws->pool == NULL || rte_pktmbuf_alloc_bulk(ws->pool, mb, nm) != 0)) {
		why = DP_DROP_EP_NOMEM;
		goto unbusy;
	}

	udp.src_port = e->port_be;
	udp.dst_port = r.dport;
	udp.dgram_len = rte_cpu_to_be_16((uint16_t)total);
	udp.dgram_cksum = 0;
	payload = dpsock_msg_data(msg);
	/* of one packet: once it is made (below); of fragments: now, for the first one */
	cksum = v6 || ep_params.udp4_cksum;
	if (cksum && nfrag > 1)
		udp.dgram_cksum = ep_tx_frag_udp_cksum(v6, &r, &udp, payload, len);
	edge = v6 ? (r.local ? EP_TX_NEXT_IP6_LOCAL : EP_TX_NEXT_IP6_OUTPUT)
		  : (r.local ? EP_TX_NEXT_IP4_LOCAL : EP_TX_NEXT_IP4_OUTPUT);
	if (z != NULL) {
		/* one reference per fragment; the last one freed gives the buffer back */
		rte_mbuf_ext_refcnt_set(&z->shinfo, (uint16_t)nfrag);
		__atomic_fetch_add(&e->inflight, 1, __ATOMIC_RELAXED);
		*give_back = false;
	}
	for (k = 0; k < nfrag; k++) {
		const uint32_t start = k * fs, n_ip = RTE_MIN(fs, total - start);
		/* the slice of the payload this packet carries (the first also has the UDP header)
		 */
		const uint32_t pstart = k == 0 ? 0 : start - sizeof(udp);
		const uint32_t pn = k == 0 ? n_ip - sizeof(udp) : n_ip;
		const uint32_t h_len = hdr + (k == 0 ? sizeof(udp) : 0);
		struct rte_mbuf *h = mb[mi++];

		rte_pktmbuf_append(h, (uint16_t)h_len);
		ep_tx_headers(h, v6, &r, &udp, start, n_ip, nfrag > 1, k + 1 < nfrag, ws->ip4_id,
			ws->ip6_frag_id);
		if (z != NULL) {
			struct rte_mbuf *x = mb[mi++];
			void *p = RTE_PTR_ADD(dpsock_msg_data(msg), pstart);

			rte_pktmbuf_attach_extbuf(
				x, p, (rte_iova_t)(uintptr_t)p, (uint16_t)pn, &z->shinfo);
			x->data_len = (uint16_t)pn;
			x->pkt_len = pn;
			h->next = x;
			h->nb_segs = 2;
			h->pkt_len += pn;
		} else {
			ep_tx_copy(h, payload + pstart, pn, mb, &mi);
		}
		if (cksum && nfrag == 1)
			ep_tx_udp_cksum_set(h, v6, hdr, total);
		h->port = r.local ? dp_ports[0].port_id : dp_ports[dp_fwd.nh[r.nh].port].port_id;
		dp_mbuf_meta(h, meta_off)->nh = r.nh;
		dp_mbuf_meta(h, meta_off)->rx_tsc = now;
		out[k] = h;
		next[k] = edge;
	}
	/* segments counted but not used (cannot happen: the same arithmetic) */
	if (unlikely(mi < nm))
		rte_pktmbuf_free_bulk(&mb[mi], nm - mi);
	ws->ip4_id++;
	if (nfrag > 1) {
		ws->ip6_frag_id = (ws->ip6_frag_id & ~UINT32_C(0x3ffffff)) |
				  ((ws->ip6_frag_id + 1) & 0x3ffffff);
		ws->stats.tx_frags += nfrag;
	}
	ws->stats.tx_msgs++;
	ws->stats.tx_bytes += len;
	ws->stats.tx_zero_copy += z != NULL;
	e->tx_msgs++;
	e->tx_bytes += len;
	return (int)nfrag;
unbusy:
	if (z != NULL)
		__atomic_store_n(&z->busy, 0, __ATOMIC_RELEASE);
drop:
	w->stats.drops[why]++;
	if (why == DP_DROP_EP_BAD_BUF)
		e->tx_bad++;
	return 0;
}

/*
 * The datagrams of one endpoint, up to EP_TX_BURST. @return false when the
 * packets made so far left no room for its next one (kept for the next call).
 */
static bool
ep_tx_endpoint(struct dp_worker *w, struct ep_worker *ws, struct ep_dp *e, struct rte_mbuf **out,
	rte_edge_t *next, unsigned int *nout, uint64_t now)
{
	uint64_t offs[EP_TX_BURST], back[EP_TX_BURST];
	unsigned int n, i, nb = 0;
	bool more = true;

	if (e->npend != 0) {
		n = e->npend;
		memcpy(offs, e->pend, n * sizeof(offs[0]));
		e->npend = 0;
	} else {
		n = rte_ring_dequeue_burst_elem(dpsock_pipe_data_ring(e->region, &e->tx_geo), offs,
			sizeof(offs[0]), EP_TX_BURST, NULL);
	}
	for (i = 0; i < n; i++) {
		bool give_back;
		int k = ep_tx_one(w, ws, e, offs[i], out + *nout, next + *nout,
			EP_TX_OUT_MAX - *nout, now, &give_back);

		if (k < 0) {
			/* no room in this call: the rest waits, in order */
			e->npend = n - i;
			memcpy(e->pend, &offs[i], e->npend * sizeof(offs[0]));
			more = false;
			break;
		}
		*nout += (unsigned int)k;
		if (give_back)
			back[nb++] = offs[i];
	}
	if (nb != 0)
		dpsock_pipe_release(e->region, &e->tx_geo, back, nb);
	return more;
}

static uint16_t
endpoint_tx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct ep_worker *ws = ((struct dp_node_ctx *)node->ctx)->arg;
	struct dp_worker *w = dp_node_worker(node);
	struct rte_mbuf *out[EP_TX_OUT_MAX];
	rte_edge_t next[EP_TX_OUT_MAX];
	const struct ep_tx_list *l;
	unsigned int nout = 0, n, k;
	uint64_t now;

	RTE_SET_USED(objs);
	RTE_SET_USED(nb_objs);
	l = ws != NULL ? __atomic_load_n(&ws->tx, __ATOMIC_ACQUIRE) : NULL;
	if (l == NULL) /* endpoints off */
		return 0;
	/* fragments whose datagram never completes: a bounded sweep now and then */
	if (unlikely((++ws->calls & (EP_REASM_TICK_CALLS - 1)) == 0) && ws->reasm != NULL &&
		ws->reasm->used != 0)
		w->stats.drops[DP_DROP_EP_FRAG_TIMEOUT] +=
			ep_reasm_expire(ws->reasm, rte_rdtsc(), true);
	if (unlikely(ws->reasm != NULL && ws->reasm->nb_errors != 0))
		reasm_send_errors(
			graph, node, ws->reasm, EP_TX_NEXT_ICMP4_ERROR, EP_TX_NEXT_ICMP6_ERROR);
	n = __atomic_load_n(&l->n, __ATOMIC_ACQUIRE);
	if (n == 0)
		return 0;
	now = rte_rdtsc();
	/* round robin: each call starts one endpoint further */
	for (k = 0; k < n; k++) {
		struct ep_dp *e = __atomic_load_n(&l->e[(ws->rr + k) % n], __ATOMIC_ACQUIRE);

		if (!ep_tx_endpoint(w, ws, e, out, next, &nout, now))
			break;
	}
	ws->rr = (ws->rr + 1) % n;
	if (nout != 0)
		dp_node_enqueue_each(graph, node, (void **)out, next, (uint16_t)nout);
	return (uint16_t)nout;
}

static struct rte_node_register endpoint_tx_node = {
	.name = "endpoint_tx",
	.flags = RTE_NODE_SOURCE_F,
	.process = endpoint_tx_process,
	.init = ep_node_init,
	.nb_edges = EP_TX_NEXT_MAX,
	.next_nodes =
		{
			[EP_TX_NEXT_IP4_OUTPUT] = "ip4_output",
			[EP_TX_NEXT_IP6_OUTPUT] = "ip6_output",
			[EP_TX_NEXT_IP4_LOCAL] = "ip4_local",
			[EP_TX_NEXT_IP6_LOCAL] = "ip6_local",
			[EP_TX_NEXT_ICMP4_ERROR] = "icmp4_error",
			[EP_TX_NEXT_ICMP6_ERROR] = "icmp6_error",
		},
};
RTE_NODE_REGISTER(endpoint_tx_node);
