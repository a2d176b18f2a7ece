/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The endpoints' datapath through the real graph (tests/ring_rig.c: EAL on
 * --no-huge, net_ring ports, the worker's graph walked on the test thread).
 * The test plays the application: it makes an endpoint region in memfd memory
 * (dpsock_region_init()), attaches it (ep_dp_attach()), fills the send pipe
 * and reads the receive pipe as libdpsock would. Every byte that leaves a TX
 * ring is checked (headers, both checksums recomputed here by a reference of
 * RFC 1071 that checks itself against known answers, payload), and the drop
 * reason of everything that does not arrive.
 *
 *   198.18.0.2 (peer), 2001:db8:10::2 --- port0 198.18.0.1/24, 2001:db8:10::1/64
 *                                         port1 198.18.1.1/24, 2001:db8:11::1/64
 *   [relay0] listen 198.18.0.1:5000, relay ports 20000-20007: never an endpoint's
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "dp_config.h"
#include "dp_drop.h"
#include "dp_endpoint.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_port.h"
#include "dp_test.h"
#include "dpsock_ctl_test.h"
#include "dpsock_proto.h"
#include "dpsock_shm.h"
#include "endpoint_fp.h"
#include "endpoint_priv.h"
#include "ring_rig.h"

#define PEER_PORT 4444
#define EP_PORT   7000

/* The endpoints' number in local delivery (registration is idempotent by name). */
static uint8_t
ep_svc(void)
{
	const int s = dp_fwd_local_service_add("endpoint4_rx", "endpoint6_rx");

	CU_ASSERT_FATAL(s > 0);
	return (uint8_t)s;
}

static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

static char config_text[2048];
static char sock_path[128];

static struct ring_rig rig = {
	.name = "epdp",
	.prefix = 'e',
	.nb_ports = 2,
	.config_text = config_text,
};

static struct dp_worker *
worker(void)
{
	return dp_workers[0];
}

static void
run_graph(void)
{
	dp_graph_worker_run(worker(), 4);
	dp_graph_worker_flush(worker());
}

/* ---- counters ---- */

static void
snap(void)
{
	ring_rig_drops_mark(&rig);
}

/* ---- the application's side: a region and its pipes ---- */

struct app {
	void *region;
	size_t size;
	struct ep_dp *dp;
	struct ep_dp_bind b;
};

/* An endpoint whose receive pipe has @p rx_large 64 KiB buffers (what [endpoint] large_bufs
 * gives an application). */
static void
app_open_rx_large(struct app *a, bool ip6, const char *addr, uint16_t port, uint32_t rx_large)
{
	/* pipe 0: the application's sends (SP enqueue, one worker dequeues; frees MP);
	 * pipe 1: what workers receive (MP enqueue, application dequeues) */
	const struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES] = {
		{ .count = { 16, 2, 0 },
			.data_flags = RING_F_SP_ENQ | RING_F_SC_DEQ,
			.free_flags = RING_F_SC_DEQ },
		{ .count = { 8, rx_large, 0 },
			.data_flags = RING_F_SC_DEQ,
			.free_flags = RING_F_SP_ENQ },
	};
	int fd;

	memset(a, 0, sizeof(*a));
	a->size = dpsock_region_init(NULL, specs, rte_get_tsc_hz());
	CU_ASSERT_FATAL(a->size != 0);
	fd = memfd_create("ep-test", MFD_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, (off_t)a->size) == 0);
	a->region = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	CU_ASSERT_FATAL(a->region != MAP_FAILED);
	CU_ASSERT_FATAL(dpsock_region_init(a->region, specs, rte_get_tsc_hz()) == a->size);
	a->b.ip6 = ip6;
	if (addr != NULL)
		CU_ASSERT_FATAL(inet_pton(ip6 ? AF_INET6 : AF_INET, addr, a->b.addr) == 1);
	a->b.port = port;
	a->b.region = a->region;
	a->b.size = a->size;
	a->b.efd = -1;
}

static void
app_open(struct app *a, bool ip6, const char *addr, uint16_t port)
{
	app_open_rx_large(a, ip6, addr, port, 2);
}

static int
app_attach(struct app *a)
{
	return ep_dp_attach(&a->b, &a->dp);
}

static void
app_close(struct app *a)
{
	if (a->dp != NULL) {
		ring_rig_rcu_offline();
		CU_ASSERT(ep_dp_detach(a->dp));
	}
	munmap(a->region, a->size);
	memset(a, 0, sizeof(*a));
}

static struct dpsock_pipe *
pipe_of(struct app *a, unsigned int i)
{
	return dpsock_region_pipe(a->region, i);
}

static unsigned int
free_count(struct app *a, unsigned int i, unsigned int cls)
{
	return rte_ring_count(dpsock_pipe_free_ring(a->region, pipe_of(a, i), cls));
}

static uint8_t
pl_byte(uint32_t seed, size_t i)
{
	return (uint8_t)((seed * 2654435761u + i * 40503u) >> 7);
}

/* Send @p len bytes, @p bytes or else pattern @p seed, to @p dst:@p dport through pipe 0.
 * @return the offset. */
static uint64_t
app_send_of(struct app *a, const char *dst, uint16_t dport, size_t len, uint32_t seed,
	const uint8_t *bytes)
{
	struct dpsock_pipe *p = pipe_of(a, DPSOCK_EP_PIPE_TX);
	int cls = dpsock_pipe_class_for(p, len);
	struct dpsock_msg *m;
	uint8_t *d;
	uint64_t off;
	size_t i;

	CU_ASSERT_FATAL(cls >= 0);
	CU_ASSERT_FATAL(dpsock_pipe_alloc(a->region, p, (unsigned int)cls, &off, 1) == 1);
	m = dpsock_buf(a->region, off);
	m->len = (uint32_t)len;
	memset(&m->peer, 0, sizeof(m->peer));
	if (a->b.ip6) {
		m->peer.in6.sin6_family = AF_INET6;
		m->peer.in6.sin6_port = htons(dport);
		CU_ASSERT_FATAL(inet_pton(AF_INET6, dst, &m->peer.in6.sin6_addr) == 1);
	} else {
		m->peer.in.sin_family = AF_INET;
		m->peer.in.sin_port = htons(dport);
		CU_ASSERT_FATAL(inet_pton(AF_INET, dst, &m->peer.in.sin_addr) == 1);
	}
	d = dpsock_msg_data(m);
	for (i = 0; i < len; i++)
		d[i] = bytes != NULL ? bytes[i] : pl_byte(seed, i);
	dpsock_pipe_send(a->region, p, &off, 1);
	return off;
}

static uint64_t
app_send(struct app *a, const char *dst, uint16_t dport, size_t len, uint32_t seed)
{
	return app_send_of(a, dst, dport, len, seed, NULL);
}

/* Take one datagram from pipe 1 (asserted), check its payload (@p bytes or else pattern @p
 * seed) and sender, give the buffer back. */
static void
app_recv_check_of(struct app *a, size_t len, uint32_t seed, const uint8_t *bytes, const char *from,
	uint16_t sport)
{
	struct dpsock_pipe *p = pipe_of(a, DPSOCK_EP_PIPE_RX);
	struct dpsock_msg *m;
	uint8_t want[16];
	const uint8_t *d;
	uint64_t off;
	size_t i, bad = 0;

	CU_ASSERT_FATAL(dpsock_pipe_recv(a->region, p, &off, 1) == 1);
	m = dpsock_buf(a->region, off);
	CU_ASSERT_EQUAL(m->len, len);
	CU_ASSERT(m->tsc != 0);
	d = dpsock_msg_data(m);
	for (i = 0; i < len && i < m->len; i++)
		bad += d[i] != (bytes != NULL ? bytes[i] : pl_byte(seed, i));
	CU_ASSERT_EQUAL(bad, 0);
	if (a->b.ip6) {
		CU_ASSERT_FATAL(inet_pton(AF_INET6, from, want) == 1);
		CU_ASSERT_EQUAL(m->peer.in6.sin6_family, AF_INET6);
		CU_ASSERT_EQUAL(ntohs(m->peer.in6.sin6_port), sport);
		CU_ASSERT(memcmp(&m->peer.in6.sin6_addr, want, 16) == 0);
	} else {
		CU_ASSERT_FATAL(inet_pton(AF_INET, from, want) == 1);
		CU_ASSERT_EQUAL(m->peer.in.sin_family, AF_INET);
		CU_ASSERT_EQUAL(ntohs(m->peer.in.sin_port), sport);
		CU_ASSERT(memcmp(&m->peer.in.sin_addr, want, 4) == 0);
	}
	dpsock_pipe_release(a->region, p, &off, 1);
}

static void
app_recv_check(struct app *a, size_t len, uint32_t seed, const char *from, uint16_t sport)
{
	app_recv_check_of(a, len, seed, NULL, from, sport);
}

/* ---- the reference checksum ----
 *
 * RFC 1071 written out here, so that no checksum is checked against DPDK's functions or the
 * code under test: the 16-bit big-endian words added (an odd last byte padded with a zero),
 * the carries folded back in, the result complemented. For UDP and ICMPv6 the pseudo-header's
 * words come first (RFC 768; RFC 8200 8.1). test_ep_cksum_reference_known_answers checks it.
 */

/* @p sum plus the 16-bit big-endian words of the @p n bytes at @p p. */
static uint32_t
ref_sum(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n % 2 != 0)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t
ref_fold(uint32_t sum)
{
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The pseudo-header of @p len bytes of @p proto from @p src to @p dst (@p alen bytes each). */
static uint32_t
ref_pseudo(const uint8_t *src, const uint8_t *dst, size_t alen, uint8_t proto, size_t len)
{
	uint32_t sum = ref_sum(ref_sum(0, src, alen), dst, alen);

	/* IPv4: zero, protocol, 16-bit length; IPv6: 32-bit length, three zeros, next header */
	return sum + proto + (uint32_t)len;
}

/* The checksum field of an IPv4 header (its own read as 0), host order. */
static uint16_t
ref_ip4_hdr_cksum(const void *ip)
{
	const uint8_t *h = ip;

	return (uint16_t)~ref_fold(ref_sum(ref_sum(0, h, 10), h + 12, 8));
}

/* The checksum field of a UDP datagram (its own read as 0), host order: a computed 0 is sent as
 * 0xffff (RFC 768). */
static uint16_t
ref_udp_cksum(const uint8_t *src, const uint8_t *dst, size_t alen, const uint8_t *udp, size_t ulen)
{
	uint32_t sum = ref_pseudo(src, dst, alen, IPPROTO_UDP, ulen);
	uint16_t c;

	sum = ref_sum(sum, udp, 6);
	sum = ref_sum(sum, udp + 8, ulen - 8);
	c = (uint16_t)~ref_fold(sum);
	return c == 0 ? 0xffff : c;
}

/* ---- frames ---- */

enum {
	F_BAD_CKSUM = 1,
	F_ZERO_CKSUM = 2,
	F_SHORT_ULEN = 4, /* UDP length 4 */
	F_LONG_ULEN = 8,  /* UDP length beyond the IP payload */
	F_IP_PAD = 16,    /* 3 bytes after the UDP datagram in the IP payload */
};

static void
addr(bool ip6, const char *s, uint8_t *out)
{
	CU_ASSERT_FATAL(inet_pton(ip6 ? AF_INET6 : AF_INET, s, out) == 1);
}

/* The IP datagram (header + UDP + payload: @p bytes, or else pattern @p seed) from @p src:@p
 * sport to @p dst:@p dport. */
static size_t
datagram_of(uint8_t *d, bool ip6, const char *src, const char *dst, uint16_t sport, uint16_t dport,
	size_t len, uint32_t seed, const uint8_t *bytes, int flags)
{
	const size_t l3 = ip6 ? 40 : 20, pad = flags & F_IP_PAD ? 3 : 0;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(d + l3);
	uint8_t *pl = (uint8_t *)(udp + 1);
	size_t i;

	memset(d, 0, l3);
	if (ip6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)d;

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + len + pad));
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = 64;
		addr(true, src, ip->src_addr);
		addr(true, dst, ip->dst_addr);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)d;

		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + 8 + len + pad));
		ip->packet_id = rte_cpu_to_be_16(0x1234);
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		addr(false, src, (uint8_t *)&ip->src_addr);
		addr(false, dst, (uint8_t *)&ip->dst_addr);
		ip->hdr_checksum = rte_cpu_to_be_16(ref_ip4_hdr_cksum(ip));
	}
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + len));
	udp->dgram_cksum = 0;
	for (i = 0; i < len; i++)
		pl[i] = bytes != NULL ? bytes[i] : pl_byte(seed, i);
	memset(pl + len, 0xa5, pad);
	if (!(flags & F_ZERO_CKSUM))
		udp->dgram_cksum = rte_cpu_to_be_16(ref_udp_cksum(d + (ip6 ? 8 : 12),
			d + (ip6 ? 24 : 16), ip6 ? 16 : 4, (const uint8_t *)udp, 8 + len));
	if (flags & F_BAD_CKSUM)
		udp->dgram_cksum ^= 0x0101;
	if (flags & F_SHORT_ULEN)
		udp->dgram_len = rte_cpu_to_be_16(4);
	if (flags & F_LONG_ULEN)
		udp->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + len + 2));
	return l3 + 8 + len + pad;
}

static size_t
datagram(uint8_t *d, bool ip6, const char *src, const char *dst, uint16_t sport, uint16_t dport,
	size_t len, uint32_t seed, int flags)
{
	return datagram_of(d, ip6, src, dst, sport, dport, len, seed, NULL, flags);
}

/* An Ethernet frame around @p l3 for port @p port. */
static size_t
frame(uint8_t *f, int port, bool ip6, const uint8_t *l3, size_t l3len)
{
	size_t len = 14 + l3len;

	memcpy(f, &dp_ports[port].mac, 6);
	memcpy(f + 6, peer_mac, 6);
	f[12] = ip6 ? 0x86 : 0x08;
	f[13] = ip6 ? 0xdd : 0x00;
	memcpy(f + 14, l3, l3len);
	if (len < 60) {
		memset(f + len, 0, 60 - len);
		len = 60;
	}
	return len;
}

static void
inject_udp(bool ip6, const char *src, const char *dst, uint16_t dport, size_t len, uint32_t seed,
	int flags)
{
	static uint8_t d[2048], f[2048];
	size_t n = datagram(d, ip6, src, dst, PEER_PORT, dport, len, seed, flags);

	ring_rig_inject(&rig, 0, f, frame(f, 0, ip6, d, n));
}

/* Fragment @p k of datagram @p d (IP header first, @p n bytes) cut in pieces of
 * @p fs bytes of payload, into @p frag (IP header first). @return its length. */
static size_t
fragment_of(bool ip6, const uint8_t *d, size_t n, size_t fs, unsigned int k, uint8_t *frag)
{
	const size_t l3 = ip6 ? 40 : 20, total = n - l3;
	const unsigned int nf = (unsigned int)((total + fs - 1) / fs);
	const size_t off = k * fs, len = RTE_MIN(fs, total - off);
	const bool more = k + 1 < nf;

	memcpy(frag, d, l3);
	if (ip6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)frag;
		struct rte_ipv6_fragment_ext *fh = (struct rte_ipv6_fragment_ext *)(ip + 1);

		ip->proto = IPPROTO_FRAGMENT;
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + len));
		fh->next_header = IPPROTO_UDP;
		fh->reserved = 0;
		fh->frag_data = rte_cpu_to_be_16((uint16_t)(off | more));
		fh->id = rte_cpu_to_be_32(0xabcdef01);
		memcpy(fh + 1, d + l3 + off, len);
		return 48 + len;
	}
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)frag;

	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + len));
	ip->fragment_offset =
		rte_cpu_to_be_16((uint16_t)(off / 8 | (more ? RTE_IPV4_HDR_MF_FLAG : 0)));
	ip->hdr_checksum = rte_cpu_to_be_16(ref_ip4_hdr_cksum(ip));
	memcpy(frag + 20, d + l3 + off, len);
	return 20 + len;
}

/*
 * The datagram @p d (IP header first, @p n bytes) cut in fragments of @p fs
 * bytes of payload, injected in the order of @p order (NULL: in order).
 * @return how many.
 */
static unsigned int
inject_fragments(bool ip6, const uint8_t *d, size_t n, size_t fs, const unsigned int *order,
	unsigned int max)
{
	const size_t l3 = ip6 ? 40 : 20, total = n - l3;
	const unsigned int nf = (unsigned int)((total + fs - 1) / fs);
	static uint8_t frag[2048], f[2048];
	unsigned int i;

	for (i = 0; i < nf && i < max; i++) {
		const size_t flen = fragment_of(ip6, d, n, fs, order != NULL ? order[i] : i, frag);

		ring_rig_inject(&rig, 0, f, frame(f, 0, ip6, frag, flen));
	}
	return nf;
}

/* What left port 0, made flat in @p buf. @return frames, each's length in @p lens. */
static unsigned int
drain_flat(uint8_t (*buf)[2048], size_t *lens, unsigned int max, struct rte_mbuf **keep)
{
	struct rte_mbuf *out[64];
	unsigned int n = ring_rig_drain(&rig, 0, out, RTE_MIN(max, 64u)), i;

	for (i = 0; i < n; i++) {
		const void *p;

		CU_ASSERT_FATAL(out[i]->pkt_len <= 2048);
		p = rte_pktmbuf_read(out[i], 0, out[i]->pkt_len, buf[i]);
		if (p != buf[i])
			memcpy(buf[i], p, out[i]->pkt_len);
		lens[i] = out[i]->pkt_len;
		if (keep != NULL)
			keep[i] = out[i];
		else
			rte_pktmbuf_free(out[i]);
	}
	return n;
}

/*
 * Check the frame(s) of one datagram sent by an endpoint bound to @p src:@p
 * sport and put the UDP payload back together in @p pl. @return its length.
 */
static size_t
check_sent(bool ip6, uint8_t (*fr)[2048], const size_t *lens, unsigned int n, const char *src,
	uint16_t sport, const char *dst, uint8_t *pl)
{
	static uint8_t dg[70000];
	uint8_t s[16], d[16];
	const size_t l3 = ip6 ? 40 : 20;
	size_t total = 0, got = 0, ulen;
	uint32_t id = 0;
	unsigned int i;

	addr(ip6, src, s);
	addr(ip6, dst, d);
	for (i = 0; i < n; i++) {
		const uint8_t *f = fr[i];
		size_t off, len;
		bool more;

		CU_ASSERT(memcmp(f, peer_mac, 6) == 0);
		CU_ASSERT(memcmp(f + 6, &dp_ports[0].mac, 6) == 0);
		CU_ASSERT(lens[i] <= 1514);
		if (ip6) {
			const struct rte_ipv6_hdr *ip = (const void *)(f + 14);

			CU_ASSERT(f[12] == 0x86 && f[13] == 0xdd);
			CU_ASSERT_EQUAL(ip->hop_limits, 64);
			CU_ASSERT(memcmp(ip->src_addr, s, 16) == 0);
			CU_ASSERT(memcmp(ip->dst_addr, d, 16) == 0);
			if (n == 1) {
				CU_ASSERT_EQUAL(ip->proto, IPPROTO_UDP);
				off = 0;
				len = rte_be_to_cpu_16(ip->payload_len);
				more = false;
				memcpy(dg + l3, ip + 1, len);
			} else {
				const struct rte_ipv6_fragment_ext *fh = (const void *)(ip + 1);
				uint32_t fid = rte_be_to_cpu_32(fh->id);

				CU_ASSERT_EQUAL_FATAL(ip->proto, IPPROTO_FRAGMENT);
				CU_ASSERT_EQUAL(fh->next_header, IPPROTO_UDP);
				if (i == 0)
					id = fid;
				CU_ASSERT_EQUAL(fid, id);
				off = rte_be_to_cpu_16(fh->frag_data) & 0xfff8;
				more = rte_be_to_cpu_16(fh->frag_data) & 1;
				len = rte_be_to_cpu_16(ip->payload_len) - 8;
				memcpy(dg + l3 + off, fh + 1, len);
			}
			/* unpadded: a NIC pads short frames to 60 bytes */
			CU_ASSERT_EQUAL(lens[i], 14 + 40 + (n > 1 ? 8 : 0) + len);
		} else {
			const struct rte_ipv4_hdr *ip = (const void *)(f + 14);
			const uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);

			CU_ASSERT(f[12] == 0x08 && f[13] == 0x00);
			CU_ASSERT_EQUAL(ip->version_ihl, 0x45);
			CU_ASSERT_EQUAL(ip->time_to_live, 64);
			CU_ASSERT_EQUAL(ip->next_proto_id, IPPROTO_UDP);
			CU_ASSERT_EQUAL(ref_fold(ref_sum(0, (const uint8_t *)ip, 20)), 0xffff);
			CU_ASSERT(memcmp(&ip->src_addr, s, 4) == 0);
			CU_ASSERT(memcmp(&ip->dst_addr, d, 4) == 0);
			if (i == 0)
				id = ip->packet_id;
			CU_ASSERT_EQUAL(ip->packet_id, id);
			off = (size_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
			more = (fo & RTE_IPV4_HDR_MF_FLAG) != 0;
			len = rte_be_to_cpu_16(ip->total_length) - 20;
			memcpy(dg + l3 + off, ip + 1, len);
			CU_ASSERT_EQUAL(lens[i], 14 + 20 + len);
		}
		CU_ASSERT_EQUAL(off, got); /* in order, no hole */
		CU_ASSERT(more == (i + 1 < n));
		CU_ASSERT(!more || len % 8 == 0);
		got += len;
	}
	total = got;
	ulen = rte_be_to_cpu_16(((const struct rte_udp_hdr *)(dg + l3))->dgram_len);
	CU_ASSERT_EQUAL(ulen, total);
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(((const struct rte_udp_hdr *)(dg + l3))->src_port), sport);
	CU_ASSERT_EQUAL(
		rte_be_to_cpu_16(((const struct rte_udp_hdr *)(dg + l3))->dst_port), PEER_PORT);
	/* the checksum over the whole datagram, with the pseudo-header (RFC 768, 8200 8.1);
	 * none for IPv4 with [endpoint] udp4_cksum off */
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(((const struct rte_udp_hdr *)(dg + l3))->dgram_cksum),
		ip6 || ep_params.udp4_cksum ? ref_udp_cksum(s, d, ip6 ? 16 : 4, dg + l3, ulen) : 0);
	memcpy(pl, dg + l3 + 8, ulen - 8);
	return ulen - 8;
}

static bool
payload_ok(const uint8_t *pl, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (pl[i] != pl_byte(seed, i))
			return false;
	return true;
}

/* ---- tests ---- */

static void
test_ep_attach_ports(void)
{
	struct app a, b;

	/* port 0: one from the dynamic range */
	app_open(&a, false, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	CU_ASSERT(a.b.port >= 49152);
	CU_ASSERT_EQUAL(ep_dp_port(a.dp), a.b.port);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(false, a.b.port), ep_svc());
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(true, a.b.port), 0);
	/* the relay's ports, and a port taken */
	app_open(&b, false, "198.18.0.1", 5000);
	CU_ASSERT_EQUAL(app_attach(&b), -EADDRINUSE);
	b.b.port = 20003;
	CU_ASSERT_EQUAL(app_attach(&b), -EADDRINUSE);
	b.b.port = a.b.port;
	CU_ASSERT_EQUAL(app_attach(&b), -EADDRINUSE);
	/* not an address of dpfwd */
	addr(false, "198.18.5.5", b.b.addr);
	b.b.port = 7777;
	CU_ASSERT_EQUAL(app_attach(&b), -EADDRNOTAVAIL);
	CU_ASSERT(ep_dp_addr_is_local(false, (const uint8_t *)"\xc6\x12\x01\x01"));
	b.dp = NULL;
	app_close(&b);
	app_close(&a);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(false, a.b.port), 0);
}

static void
test_ep_rx_udp4_payload_peer(void)
{
	struct app a;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	snap();
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 100, 1, 0);
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 0, 2, 0);
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 1472, 3, F_ZERO_CKSUM);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	app_recv_check(&a, 100, 1, "198.18.0.2", PEER_PORT);
	app_recv_check(&a, 0, 2, "198.18.0.2", PEER_PORT);
	app_recv_check(&a, 1472, 3, "198.18.0.2", PEER_PORT);
	app_close(&a);
}

static void
test_ep_rx_drop_reasons(void)
{
	struct app a;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	snap();
	/* the port bound, another address of dpfwd */
	inject_udp(false, "198.18.0.2", "198.18.1.1", EP_PORT, 10, 1, 0);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_NO_ENDPOINT), 1);
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT + 1, 10, 1, 0);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_IP4_LOCAL), 1);
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 10, 1, F_BAD_CKSUM);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_BAD_CKSUM), 1);
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 10, 1, F_SHORT_ULEN);
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 10, 1, F_LONG_ULEN);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_BAD_UDP), 2);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 5);
	CU_ASSERT_EQUAL(dpsock_pipe_pending(a.region, pipe_of(&a, DPSOCK_EP_PIPE_RX)), 0);
	app_close(&a);
}

static void
test_ep_rx_pipe_full_counts_drops(void)
{
	struct app a;
	unsigned int i;

	app_open(&a, false, NULL, EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	snap();
	for (i = 0; i < 10; i++)
		inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 64, i, 0);
	run_graph();
	/* 8 small buffers in the receive pipe */
	CU_ASSERT_EQUAL(dpsock_pipe_pending(a.region, pipe_of(&a, DPSOCK_EP_PIPE_RX)), 8);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_RX_FULL), 2);
	CU_ASSERT_EQUAL(pipe_of(&a, DPSOCK_EP_PIPE_RX)->dropped, 2);
	for (i = 0; i < 8; i++)
		app_recv_check(&a, 64, i, "198.18.0.2", PEER_PORT);
	/* buffers back: the next one arrives */
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 64, 99, 0);
	run_graph();
	app_recv_check(&a, 64, 99, "198.18.0.2", PEER_PORT);
	app_close(&a);
}

/*
 * An endpoint with no large receive buffers ([endpoint] large_bufs = 0: 2 KiB ones only): a
 * 3000-byte datagram, reassembled from fragments, is ep_rx_too_big; one that fits arrives.
 */
static void
test_ep_rx_too_big_without_large_buffers(void)
{
	static uint8_t d[4000];
	struct app a;
	size_t n;

	app_open_rx_large(&a, false, "198.18.0.1", EP_PORT, 0);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	snap();
	n = datagram(d, false, "198.18.0.2", "198.18.0.1", PEER_PORT, EP_PORT, 3000, 63, 0);
	CU_ASSERT_EQUAL(inject_fragments(false, d, n, 1480, NULL, 8), 3);
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 1472, 64, 0);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_RX_TOO_BIG), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
	CU_ASSERT_EQUAL(ep_workers[0].reasm->held, 0);
	app_recv_check(&a, 1472, 64, "198.18.0.2", PEER_PORT);
	CU_ASSERT_EQUAL(dpsock_pipe_pending(a.region, pipe_of(&a, DPSOCK_EP_PIPE_RX)), 0);
	app_close(&a);
}

/*
 * ip4_fwd takes IPv4 only whole in the first segment; IPv6 may span segments. The second
 * segment starts at an even offset of the UDP datagram (100 payload bytes in the first), or at
 * an odd one (101): the checksum is right both ways, and a wrong one is seen both ways.
 */
static void
test_ep_rx_multiseg_mbuf_ip6(void)
{
	static uint8_t d[2048], f[2048];
	struct rte_mbuf *m, *m2;
	struct app a;
	size_t n, len, first;
	int bad;

	app_open(&a, true, NULL, EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	for (first = 100; first <= 101; first++) {
		const size_t hdrs = 14 + 48 + first;

		snap();
		for (bad = 0; bad <= 1; bad++) {
			n = datagram(d, true, "2001:db8:10::2", "2001:db8:10::1", PEER_PORT,
				EP_PORT, 1000, 7, bad ? F_BAD_CKSUM : 0);
			len = frame(f, 0, true, d, n);
			/* headers and the first bytes in one segment, the rest in another */
			m = ring_rig_mbuf(0, f, hdrs);
			m2 = ring_rig_mbuf(0, f + hdrs, len - hdrs);
			CU_ASSERT_FATAL(rte_pktmbuf_chain(m, m2) == 0);
			CU_ASSERT_FATAL(rte_ring_enqueue(rig.rx[0], m) == 0);
		}
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_BAD_CKSUM), 1);
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
		app_recv_check(&a, 1000, 7, "2001:db8:10::2", PEER_PORT);
	}
	app_close(&a);
}

/* RFC 768: the UDP length says where the datagram ends; the rest of the IP payload is not in
 * its checksum (nor in the pseudo-header's length). */
static void
test_ep_rx_udp_shorter_than_ip_payload(void)
{
	static const char *const peer[2] = { "198.18.0.2", "2001:db8:10::2" };
	static const char *const own[2] = { "198.18.0.1", "2001:db8:10::1" };
	struct app a;
	int v6;

	for (v6 = 0; v6 <= 1; v6++) {
		app_open(&a, v6, NULL, EP_PORT);
		CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
		snap();
		inject_udp(v6, peer[v6], own[v6], EP_PORT, 101, 60, F_IP_PAD);
		inject_udp(v6, peer[v6], own[v6], EP_PORT, 101, 61, F_IP_PAD | F_BAD_CKSUM);
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_BAD_CKSUM), 1);
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
		app_recv_check(&a, 101, 60, peer[v6], PEER_PORT);
		app_close(&a);
	}
}

static void
test_ep_tx_copy_exact_frame(void)
{
	static uint8_t fr[4][2048], pl[2048];
	size_t lens[4];
	struct app a;
	unsigned int before, n;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	before = free_count(&a, DPSOCK_EP_PIPE_TX, 0);
	snap();
	app_send(&a, "198.18.0.2", PEER_PORT, 200, 11);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	/* copied: the buffer is back at once */
	CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 0), before);
	n = drain_flat(fr, lens, 4, NULL);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(
		check_sent(false, fr, lens, n, "198.18.0.1", EP_PORT, "198.18.0.2", pl), 200);
	CU_ASSERT(payload_ok(pl, 200, 11));
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 1), 0);
	app_close(&a);
}

static void
test_ep_tx_wildcard_source_is_port_address(void)
{
	static uint8_t fr[4][2048], pl[2048];
	size_t lens[4];
	struct app a;

	app_open(&a, false, NULL, EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	app_send(&a, "198.18.0.2", PEER_PORT, 50, 12);
	run_graph();
	CU_ASSERT_EQUAL_FATAL(drain_flat(fr, lens, 4, NULL), 1);
	CU_ASSERT_EQUAL(
		check_sent(false, fr, lens, 1, "198.18.0.1", EP_PORT, "198.18.0.2", pl), 50);
	app_close(&a);
}

static void
test_ep_tx_zero_copy_returns_after_free(void)
{
	static uint8_t fr[4][2048], pl[2048];
	struct rte_mbuf *keep[4];
	size_t lens[4];
	struct app a;
	unsigned int before;
	struct ep_dp_info info;

	ep_params.zc_ok = true;
	ep_params.zc_min = 1024;
	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	before = free_count(&a, DPSOCK_EP_PIPE_TX, 0);
	snap();
	app_send(&a, "198.18.0.2", PEER_PORT, 1400, 13);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	CU_ASSERT_EQUAL_FATAL(drain_flat(fr, lens, 4, keep), 1);
	CU_ASSERT_EQUAL(keep[0]->nb_segs, 2); /* headers + the shared buffer */
	CU_ASSERT(RTE_MBUF_HAS_EXTBUF(keep[0]->next) != 0);
	CU_ASSERT_EQUAL(
		check_sent(false, fr, lens, 1, "198.18.0.1", EP_PORT, "198.18.0.2", pl), 1400);
	CU_ASSERT(payload_ok(pl, 1400, 13));
	/* still lent: not on the free ring, the endpoint cannot go */
	CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 0), before - 1);
	ep_dp_info_get(a.dp, &info);
	CU_ASSERT_EQUAL(info.inflight, 1);
	ring_rig_rcu_offline();
	CU_ASSERT_FALSE(ep_dp_detach(a.dp));
	CU_ASSERT_FALSE(ep_dp_release(a.dp));
	rte_pktmbuf_free(keep[0]);
	CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 0), before);
	CU_ASSERT(ep_dp_release(a.dp));
	a.dp = NULL;
	app_close(&a);
}

/* 40000 bytes: fragments out (zero copy and copied), and fragments in, reassembled. */
static void
test_ep_fragments_both_ways_ip4(void)
{
	static uint8_t fr[64][2048], pl[70000], d[70000];
	static const unsigned int order[] = { 3, 0, 27, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
		15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26 };
	size_t lens[64], n;
	unsigned int z, nf;
	struct app a;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	ep_params.zc_ok = true;
	for (z = 0; z < 2; z++) {
		ep_params.zc_min = z ? 1024 : 65536;
		snap();
		app_send(&a, "198.18.0.2", PEER_PORT, 40000, 20 + z);
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
		nf = drain_flat(fr, lens, 64, NULL);
		CU_ASSERT_EQUAL_FATAL(nf, 28); /* 40008 bytes in 1480-byte pieces (RFC 791) */
		CU_ASSERT_EQUAL(
			check_sent(false, fr, lens, nf, "198.18.0.1", EP_PORT, "198.18.0.2", pl),
			40000);
		CU_ASSERT(payload_ok(pl, 40000, 20 + z));
		CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 1), 2);
	}
	/* in: out of order, the last early; one datagram in the receive pipe */
	snap();
	n = datagram(d, false, "198.18.0.2", "198.18.0.1", PEER_PORT, EP_PORT, 40000, 30, 0);
	CU_ASSERT_EQUAL(inject_fragments(false, d, n, 1480, order, 28), 28);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	app_recv_check(&a, 40000, 30, "198.18.0.2", PEER_PORT);
	CU_ASSERT_EQUAL(ep_workers[0].reasm->held, 0);
	app_close(&a);
}

/*
 * The one frame port 0 sent after a reassembly timed out: Time Exceeded,
 * "fragment reassembly time exceeded" (RFC 792 type 11 code 1; RFC 4443
 * type 3 code 1), from the port's address to the peer, quoting the first
 * fragment from its IP header on, with valid checksums.
 */
static void
assert_reasm_time_exceeded(bool ip6, const uint8_t *first_frag_l3)
{
	struct rte_mbuf *out[4];
	const uint8_t *f, *l3, *icmp;
	uint8_t a[16];
	unsigned int n = ring_rig_drain(&rig, 0, out, 4);

	CU_ASSERT_EQUAL_FATAL(n, 1);
	f = rte_pktmbuf_mtod(out[0], const uint8_t *);
	l3 = f + RTE_ETHER_HDR_LEN;
	CU_ASSERT(memcmp(f, peer_mac, 6) == 0);
	if (ip6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		icmp = l3 + sizeof(*ip);
		CU_ASSERT_EQUAL(ip->proto, IPPROTO_ICMPV6);
		CU_ASSERT_FATAL(inet_pton(AF_INET6, "2001:db8:10::1", a) == 1);
		CU_ASSERT(memcmp(ip->src_addr, a, 16) == 0);
		CU_ASSERT_FATAL(inet_pton(AF_INET6, "2001:db8:10::2", a) == 1);
		CU_ASSERT(memcmp(ip->dst_addr, a, 16) == 0);
		CU_ASSERT_EQUAL(icmp[0], 3);
		CU_ASSERT_EQUAL(icmp[1], 1);
		CU_ASSERT_EQUAL(
			ref_fold(ref_sum(ref_pseudo(ip->src_addr, ip->dst_addr, 16, IPPROTO_ICMPV6,
						 rte_be_to_cpu_16(ip->payload_len)),
				icmp, rte_be_to_cpu_16(ip->payload_len))),
			0xffff);
		/* the quote: IPv6 header and Fragment header of the first fragment */
		CU_ASSERT(memcmp(icmp + 8, first_frag_l3, 48) == 0);
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		icmp = l3 + 20;
		CU_ASSERT_EQUAL(ip->next_proto_id, IPPROTO_ICMP);
		CU_ASSERT_EQUAL(ip->src_addr, inet_addr("198.18.0.1"));
		CU_ASSERT_EQUAL(ip->dst_addr, inet_addr("198.18.0.2"));
		CU_ASSERT_EQUAL(ref_fold(ref_sum(0, l3, 20)), 0xffff);
		CU_ASSERT_EQUAL(icmp[0], 11);
		CU_ASSERT_EQUAL(icmp[1], 1);
		CU_ASSERT_EQUAL(ref_fold(ref_sum(0, icmp, rte_be_to_cpu_16(ip->total_length) - 20)),
			0xffff);
		/* the quote: the first fragment's header (MF set, offset 0) and 8 bytes */
		CU_ASSERT(memcmp(icmp + 8, first_frag_l3, 28) == 0);
	}
	rte_pktmbuf_free_bulk(out, n);
}

static void
test_ep_fragments_timeout_and_overlap(void)
{
	static uint8_t d[70000];
	struct ep_reasm *r = ep_workers[0].reasm;
	uint64_t timeout = r->timeout_tsc;
	static uint8_t frag0[2048];
	struct app a;
	size_t n;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	snap();
	n = datagram(d, false, "198.18.0.2", "198.18.0.1", PEER_PORT, EP_PORT, 5000, 31, 0);
	inject_fragments(false, d, n, 1480, NULL, 2);
	run_graph();
	CU_ASSERT_EQUAL(r->held, 2);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	/* never completed: the sweep frees them */
	r->timeout_tsc = 0;
	dp_graph_worker_run(worker(), 2 * 1024);
	dp_graph_worker_flush(worker());
	r->timeout_tsc = timeout;
	CU_ASSERT_EQUAL(r->held, 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_FRAG_TIMEOUT), 2);
	/* and its first fragment came: Time Exceeded, code 1 */
	fragment_of(false, d, n, 1480, 0, frag0);
	assert_reasm_time_exceeded(false, frag0);
	/* IPv6 the same way (RFC 8200 4.5) */
	snap();
	n = datagram(d, true, "2001:db8:10::2", "2001:db8:10::1", PEER_PORT, EP_PORT, 5000, 37, 0);
	inject_fragments(true, d, n, 1232, NULL, 2);
	run_graph();
	CU_ASSERT_EQUAL(r->held, 2);
	r->timeout_tsc = 0;
	dp_graph_worker_run(worker(), 2 * 1024);
	dp_graph_worker_flush(worker());
	r->timeout_tsc = timeout;
	CU_ASSERT_EQUAL(r->held, 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_FRAG_TIMEOUT), 2);
	fragment_of(true, d, n, 1232, 0, frag0);
	assert_reasm_time_exceeded(true, frag0);
	n = datagram(d, false, "198.18.0.2", "198.18.0.1", PEER_PORT, EP_PORT, 5000, 31, 0);
	/* an overlap throws the whole datagram away (RFC 5722) */
	snap();
	inject_fragments(false, d, n, 1480, NULL, 2);
	inject_fragments(false, d, n, 1480 - 8, NULL, 1);
	run_graph();
	CU_ASSERT_EQUAL(r->held, 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_FRAG_BAD), 3);
	CU_ASSERT_EQUAL(dpsock_pipe_pending(a.region, pipe_of(&a, DPSOCK_EP_PIPE_RX)), 0);
	app_close(&a);
}

/*
 * The reassembly table's bounds (docs/dpsock.md: 64 datagrams, 1024 mbufs held per worker). Last
 * fragments only, so that none is ever whole and no Time Exceeded is due when they go:
 * of 65 datagrams the 65th finds no room; then 38 datagrams of 27 fragments (of 28) fill
 * the 1024 mbufs and their last 2 fragments find no room. Each time ep_frag_full and
 * nothing else; what the table held goes when it times out.
 */
static void
test_ep_fragments_table_full(void)
{
	static uint8_t d[45000], frag[2048], f[2048];
	struct ep_reasm *r = ep_workers[0].reasm;
	const uint64_t timeout = r->timeout_tsc;
	unsigned int k, i;
	struct app a;
	size_t n, flen;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	/* nothing times out while the table fills, however slow the build */
	r->timeout_tsc = UINT64_MAX / 2;
	snap();
	n = datagram(d, false, "198.18.0.2", "198.18.0.1", PEER_PORT, EP_PORT, 2000, 65, 0);
	for (k = 0; k < 65; k++) {
		flen = fragment_of(false, d, n, 1480, 1, frag);
		/* datagram k: its own identification (RFC 791) */
		((struct rte_ipv4_hdr *)frag)->packet_id = rte_cpu_to_be_16((uint16_t)(k + 1));
		((struct rte_ipv4_hdr *)frag)->hdr_checksum =
			rte_cpu_to_be_16(ref_ip4_hdr_cksum(frag));
		ring_rig_inject(&rig, 0, f, frame(f, 0, false, frag, flen));
	}
	run_graph();
	CU_ASSERT_EQUAL(r->held, 64);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_FRAG_FULL), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
	r->timeout_tsc = 0;
	dp_graph_worker_run(worker(), 2 * 1024);
	r->timeout_tsc = UINT64_MAX / 2;
	CU_ASSERT_EQUAL(r->held, 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_FRAG_TIMEOUT), 64);

	snap();
	n = datagram(d, false, "198.18.0.2", "198.18.0.1", PEER_PORT, EP_PORT, 40000, 66, 0);
	for (k = 0; k < 38; k++) {
		for (i = 1; i < 28; i++) {
			flen = fragment_of(false, d, n, 1480, i, frag);
			((struct rte_ipv4_hdr *)frag)->packet_id =
				rte_cpu_to_be_16((uint16_t)(100 + k));
			((struct rte_ipv4_hdr *)frag)->hdr_checksum =
				rte_cpu_to_be_16(ref_ip4_hdr_cksum(frag));
			ring_rig_inject(&rig, 0, f, frame(f, 0, false, frag, flen));
		}
		run_graph();
	}
	CU_ASSERT_EQUAL(r->held, 1024);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_FRAG_FULL), 38 * 27 - 1024);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 38 * 27 - 1024);
	r->timeout_tsc = 0;
	dp_graph_worker_run(worker(), 2 * 1024);
	r->timeout_tsc = timeout;
	CU_ASSERT_EQUAL(r->held, 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_FRAG_TIMEOUT), 1024);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(dpsock_pipe_pending(a.region, pipe_of(&a, DPSOCK_EP_PIPE_RX)), 0);
	app_close(&a);
}

static void
test_ep_tx_bad_offsets_dropped(void)
{
	struct dpsock_pipe *p;
	struct dpsock_msg *m;
	struct app a;
	uint64_t bad[4], off;
	unsigned int before;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	p = pipe_of(&a, DPSOCK_EP_PIPE_TX);
	bad[0] = 0;                 /* the region header */
	bad[1] = p->cls[0].off + 1; /* inside a buffer */
	bad[2] = a.size + 4096;     /* outside the region */
	bad[3] = UINT64_MAX - 63;   /* wraps */
	snap();
	dpsock_pipe_send(a.region, p, bad, 4);
	/* a real buffer with a length over its room: refused, given back */
	before = free_count(&a, DPSOCK_EP_PIPE_TX, 0);
	off = app_send(&a, "198.18.0.2", PEER_PORT, 10, 1);
	m = dpsock_buf(a.region, off);
	m->len = 5000;
	/* the pipe's geometry overwritten after attach: not believed */
	p->cls[0].off = 0;
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_BAD_BUF), 5);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 5);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0), 0);
	CU_ASSERT_EQUAL(rte_ring_count(dpsock_pipe_free_ring(a.region, &a.dp->tx_geo, 0)), before);
	app_close(&a);
}

/* Sends nothing can route: counted, nothing out, every buffer back to the application. The
 * config has no default route: 203.0.113.0/24 and 2001:db8:99::/48 have none. */
static void
test_ep_tx_bad_dest_and_no_route(void)
{
	struct app a;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	snap();
	app_send(&a, "224.0.0.1", PEER_PORT, 10, 1);
	app_send(&a, "198.18.0.2", 0, 10, 1);
	app_send(&a, "203.0.113.1", PEER_PORT, 10, 1);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_BAD_DEST), 2);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_NO_ROUTE), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 3);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 0), 16);
	app_close(&a);

	app_open(&a, true, "2001:db8:10::1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	snap();
	app_send(&a, "2001:db8:99::1", PEER_PORT, 10, 1);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_NO_ROUTE), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 0), 16);
	app_close(&a);
}

/*
 * The largest UDP datagram (RFC 768: a 16-bit length; 65507 bytes of payload in IPv4,
 * 65527 in IPv6 without a jumbogram) goes out in fragments, every byte checked; one byte
 * more is ep_too_big, nothing out, the buffer back to the application.
 */
static void
test_ep_tx_too_big_past_the_udp_limit(void)
{
	static const char *const peer[2] = { "198.18.0.2", "2001:db8:10::2" };
	static const char *const own[2] = { "198.18.0.1", "2001:db8:10::1" };
	static const size_t max[2] = { 65507, 65527 };
	static uint8_t fr[64][2048], pl[70000];
	size_t lens[64];
	struct app a;
	unsigned int nf;
	int v6;

	ep_params.zc_min = 65536; /* copied: the buffer is back at once */
	for (v6 = 0; v6 <= 1; v6++) {
		app_open(&a, v6, own[v6], EP_PORT);
		CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
		snap();
		app_send(&a, peer[v6], PEER_PORT, max[v6] + 1, 60);
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_TOO_BIG), 1);
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
		CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
		CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 1), 2);
		snap();
		app_send(&a, peer[v6], PEER_PORT, max[v6], 61);
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
		nf = drain_flat(fr, lens, 64, NULL);
		/* 65515 bytes in 1480-byte pieces; 65535 in 1448-byte ones (RFC 8200 4.5) */
		CU_ASSERT_EQUAL_FATAL(nf, v6 ? 46 : 45);
		CU_ASSERT_EQUAL(
			check_sent(v6, fr, lens, nf, own[v6], EP_PORT, peer[v6], pl), max[v6]);
		CU_ASSERT(payload_ok(pl, max[v6], 61));
		CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 1), 2);
		app_close(&a);
	}
}

/*
 * Every buffer of the packet pool taken (something else holds them all): a send is
 * ep_nomem, nothing out, the buffer back to the application; with the pool's buffers
 * back, the same send goes out.
 */
static void
test_ep_tx_no_mbuf_gives_the_buffer_back(void)
{
	static uint8_t fr[4][2048], pl[2048];
	struct rte_mempool *mp = dp_mem_pool_get(0);
	struct rte_mbuf **held = calloc(mp->size, sizeof(*held));
	unsigned int nb_held = 0;
	size_t lens[4];
	struct app a;

	CU_ASSERT_FATAL(held != NULL);
	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	while (nb_held < mp->size && (held[nb_held] = rte_pktmbuf_alloc(mp)) != NULL)
		nb_held++;
	CU_ASSERT_EQUAL(rte_mempool_avail_count(mp), 0);
	snap();
	app_send(&a, "198.18.0.2", PEER_PORT, 200, 62);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_NOMEM), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
	CU_ASSERT_EQUAL(ring_rig_drain_free(&rig, 0) + ring_rig_drain_free(&rig, 1), 0);
	CU_ASSERT_EQUAL(free_count(&a, DPSOCK_EP_PIPE_TX, 0), 16);
	rte_pktmbuf_free_bulk(held, nb_held);
	free(held);
	snap();
	app_send(&a, "198.18.0.2", PEER_PORT, 200, 62);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	CU_ASSERT_EQUAL_FATAL(drain_flat(fr, lens, 4, NULL), 1);
	CU_ASSERT_EQUAL(
		check_sent(false, fr, lens, 1, "198.18.0.1", EP_PORT, "198.18.0.2", pl), 200);
	CU_ASSERT(payload_ok(pl, 200, 62));
	app_close(&a);
}

/* An endpoint sends to another one on dpfwd's own address: through ip4_local. */
static void
test_ep_hairpin_to_own_address(void)
{
	struct app a, b;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	app_open(&b, false, NULL, EP_PORT + 1);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	CU_ASSERT_EQUAL_FATAL(app_attach(&b), 0);
	snap();
	app_send(&a, "198.18.0.1", EP_PORT + 1, 300, 40);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	app_recv_check(&b, 300, 40, "198.18.0.1", EP_PORT);
	app_close(&b);
	app_close(&a);
}

static void
test_ep_ip6_both_ways(void)
{
	static uint8_t fr[8][2048], pl[4000], d[8000];
	size_t lens[8], n;
	struct app a;
	unsigned int nf;

	app_open(&a, true, "2001:db8:10::1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(true, EP_PORT), ep_svc());
	snap();
	/* in */
	inject_udp(true, "2001:db8:10::2", "2001:db8:10::1", EP_PORT, 500, 50, 0);
	inject_udp(true, "2001:db8:10::2", "2001:db8:10::1", EP_PORT, 500, 50, F_ZERO_CKSUM);
	inject_udp(true, "2001:db8:10::2", "2001:db8:10::1", EP_PORT, 500, 50, F_BAD_CKSUM);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_EP_BAD_CKSUM),
		2); /* zero is no checksum: RFC 8200 8.1 */
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 2);
	app_recv_check(&a, 500, 50, "2001:db8:10::2", PEER_PORT);
	/* out, one packet */
	ep_params.zc_min = 65536;
	snap();
	app_send(&a, "2001:db8:10::2", PEER_PORT, 300, 51);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	nf = drain_flat(fr, lens, 8, NULL);
	CU_ASSERT_EQUAL_FATAL(nf, 1);
	CU_ASSERT_EQUAL(
		check_sent(true, fr, lens, nf, "2001:db8:10::1", EP_PORT, "2001:db8:10::2", pl),
		300);
	CU_ASSERT(payload_ok(pl, 300, 51));
	/* out, fragments: 3008 bytes in 1448-byte pieces (RFC 8200 4.5) */
	app_send(&a, "2001:db8:10::2", PEER_PORT, 3000, 52);
	run_graph();
	nf = drain_flat(fr, lens, 8, NULL);
	CU_ASSERT_EQUAL_FATAL(nf, 3);
	CU_ASSERT_EQUAL(
		check_sent(true, fr, lens, nf, "2001:db8:10::1", EP_PORT, "2001:db8:10::2", pl),
		3000);
	CU_ASSERT(payload_ok(pl, 3000, 52));
	/* in, fragments */
	snap();
	n = datagram(d, true, "2001:db8:10::2", "2001:db8:10::1", PEER_PORT, EP_PORT, 3000, 53, 0);
	CU_ASSERT_EQUAL(inject_fragments(true, d, n, 1232, NULL, 8), 3);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	app_recv_check(&a, 3000, 53, "2001:db8:10::2", PEER_PORT);
	app_close(&a);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(true, EP_PORT), 0);
}

/*
 * A [mempool] data_room of any size is allowed: a datagram copied into mbufs of an odd room has
 * a segment that starts at an odd offset of it, and its checksum is still right.
 */
static void
test_ep_tx_odd_segments_cksum(void)
{
	static const char *const peer[2] = { "198.18.0.2", "2001:db8:10::2" };
	static const char *const own[2] = { "198.18.0.1", "2001:db8:10::1" };
	static uint8_t fr[4][2048], pl[2048];
	struct ep_worker *ws = &ep_workers[0];
	struct rte_mempool *pool, *saved_pool = ws->pool;
	const uint16_t saved_room = ws->seg_room;
	const uint32_t saved_zc_min = ep_params.zc_min;
	struct rte_mbuf *keep[4];
	size_t lens[4];
	unsigned int n;
	struct app a;
	int v6;

	pool = rte_pktmbuf_pool_create(
		"ep_odd_room", 63, 0, 0, RTE_PKTMBUF_HEADROOM + 1001, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(pool != NULL);
	ws->pool = pool;
	ws->seg_room = 1001;
	ep_params.zc_min = 65536;
	for (v6 = 0; v6 <= 1; v6++) {
		app_open(&a, v6, own[v6], EP_PORT);
		CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
		snap();
		app_send(&a, peer[v6], PEER_PORT, 1400, 70 + v6);
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
		n = drain_flat(fr, lens, 4, keep);
		CU_ASSERT_EQUAL(n, 1);
		if (n == 1) {
			CU_ASSERT_EQUAL(keep[0]->nb_segs, 2);
			CU_ASSERT_EQUAL(keep[0]->data_len, 1001);
			CU_ASSERT_EQUAL(
				check_sent(v6, fr, lens, n, own[v6], EP_PORT, peer[v6], pl), 1400);
			CU_ASSERT(payload_ok(pl, 1400, 70 + v6));
		}
		rte_pktmbuf_free_bulk(keep, n);
		app_close(&a);
	}
	ws->pool = saved_pool;
	ws->seg_room = saved_room;
	ep_params.zc_min = saved_zc_min;
	rte_mempool_free(pool);
}

/* Datagrams with their UDP checksums, worked out once in Python and found good by tshark
 * (udp.check_checksum). A checksum does not change when source and destination swap. */
static const struct ref_vector {
	bool ip6;
	const char *src, *dst;
	uint16_t sport, dport;
	const char *pl;
	size_t len;
	uint16_t cksum;
} ref_vectors[] = {
	/* an odd length */
	{ false, "198.18.0.2", "198.18.0.1", PEER_PORT, EP_PORT, "dpfwd", 5, 0x1810 },
	{ true, "2001:db8:10::2", "2001:db8:10::1", PEER_PORT, EP_PORT, "RFC 8200 8.1!", 13,
		0x0a49 },
	/* the last two bytes make the sum 0xffff: computed 0, sent as 0xffff (RFC 768) */
	{ false, "198.18.0.2", "198.18.0.1", PEER_PORT, EP_PORT, "zero sum\xc4\x38", 10, 0xffff },
	{ true, "2001:db8:10::2", "2001:db8:10::1", PEER_PORT, EP_PORT, "zero sum\xf4\xcb", 10,
		0xffff },
};

/* The reference against answers worked out elsewhere: RFC 1071 section 3's example, and
 * ref_vectors both ways. */
static void
test_ep_cksum_reference_known_answers(void)
{
	static const uint8_t rfc1071[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	unsigned int i;

	CU_ASSERT_EQUAL(ref_fold(ref_sum(0, rfc1071, sizeof(rfc1071))), 0xddf2);
	for (i = 0; i < RTE_DIM(ref_vectors); i++) {
		const struct ref_vector *v = &ref_vectors[i];
		const size_t alen = v->ip6 ? 16 : 4;
		uint8_t s[16], d[16], udp[64];

		addr(v->ip6, v->src, s);
		addr(v->ip6, v->dst, d);
		CU_ASSERT_FATAL(8 + v->len <= sizeof(udp));
		udp[0] = (uint8_t)(v->sport >> 8), udp[1] = (uint8_t)v->sport;
		udp[2] = (uint8_t)(v->dport >> 8), udp[3] = (uint8_t)v->dport;
		udp[4] = 0, udp[5] = (uint8_t)(8 + v->len);
		udp[6] = 0x5a, udp[7] = 0x5a; /* not read */
		memcpy(udp + 8, v->pl, v->len);
		CU_ASSERT_EQUAL(ref_udp_cksum(s, d, alen, udp, 8 + v->len), v->cksum);
		/* the other way */
		memcpy(udp, udp + 2, 2);
		udp[2] = (uint8_t)(v->sport >> 8), udp[3] = (uint8_t)v->sport;
		CU_ASSERT_EQUAL(ref_udp_cksum(d, s, alen, udp, 8 + v->len), v->cksum);
	}
}

/* ref_vectors through the datapath: in, delivered; out (the reverse way), the same checksum in
 * the frame, 0xffff where the sum is 0. */
static void
test_ep_udp_cksum_known_answers_both_ways(void)
{
	static uint8_t d[2048], f[2048], fr[4][2048], pl[2048];
	const uint32_t saved_zc_min = ep_params.zc_min;
	size_t lens[4], n;
	unsigned int i, nf;
	struct app a;

	ep_params.zc_min = 65536;
	for (i = 0; i < RTE_DIM(ref_vectors); i++) {
		const struct ref_vector *v = &ref_vectors[i];
		const uint8_t *bytes = (const uint8_t *)v->pl;
		const size_t l3 = v->ip6 ? 40 : 20;

		app_open(&a, v->ip6, v->dst, v->dport);
		CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
		snap();
		n = datagram_of(d, v->ip6, v->src, v->dst, v->sport, v->dport, v->len, 0, bytes, 0);
		CU_ASSERT_EQUAL(
			rte_be_to_cpu_16(((const struct rte_udp_hdr *)(d + l3))->dgram_cksum),
			v->cksum);
		ring_rig_inject(&rig, 0, f, frame(f, 0, v->ip6, d, n));
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
		app_recv_check_of(&a, v->len, 0, bytes, v->src, v->sport);
		app_send_of(&a, v->src, v->sport, v->len, 0, bytes);
		run_graph();
		CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
		nf = drain_flat(fr, lens, 4, NULL);
		CU_ASSERT_EQUAL_FATAL(nf, 1);
		CU_ASSERT_EQUAL(
			rte_be_to_cpu_16(
				((const struct rte_udp_hdr *)(fr[0] + 14 + l3))->dgram_cksum),
			v->cksum);
		CU_ASSERT_EQUAL(
			check_sent(v->ip6, fr, lens, nf, v->dst, v->dport, v->src, pl), v->len);
		CU_ASSERT(memcmp(pl, bytes, v->len) == 0);
		app_close(&a);
	}
	ep_params.zc_min = saved_zc_min;
}

/* [endpoint] udp4_cksum = off: IPv4 datagrams go without a checksum (0, RFC 768); IPv6 ones
 * always have one (RFC 8200 8.1). */
static void
test_ep_tx_udp4_cksum_off_sends_zero(void)
{
	static const char *const peer[2] = { "198.18.0.2", "2001:db8:10::2" };
	static const char *const own[2] = { "198.18.0.1", "2001:db8:10::1" };
	static uint8_t fr[4][2048], pl[2048];
	size_t lens[4];
	struct app a;
	int v6;

	ep_params.udp4_cksum = false;
	for (v6 = 0; v6 <= 1; v6++) {
		app_open(&a, v6, own[v6], EP_PORT);
		CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
		app_send(&a, peer[v6], PEER_PORT, 200, 80);
		run_graph();
		CU_ASSERT_EQUAL_FATAL(drain_flat(fr, lens, 4, NULL), 1);
		/* check_sent wants 0 for IPv4 (udp4_cksum off), the reference's for IPv6 */
		CU_ASSERT_EQUAL(check_sent(v6, fr, lens, 1, own[v6], EP_PORT, peer[v6], pl), 200);
		app_close(&a);
	}
	ep_params.udp4_cksum = true;
}

static void
test_ep_detach_clears_port(void)
{
	struct app a;

	app_open(&a, false, "198.18.0.1", EP_PORT);
	CU_ASSERT_EQUAL_FATAL(app_attach(&a), 0);
	app_close(&a);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(false, EP_PORT), 0);
	snap();
	inject_udp(false, "198.18.0.2", "198.18.0.1", EP_PORT, 10, 1, 0);
	run_graph();
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_IP4_LOCAL), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
}

static void
test_ep_stats_json(void)
{
	struct ep_dp_stats st;
	json_t *j;

	ep_dp_stats_sum(&st);
	CU_ASSERT(st.rx_msgs > 0);
	CU_ASSERT(st.tx_msgs > 0);
	CU_ASSERT(st.tx_zero_copy > 0);
	CU_ASSERT(st.tx_frags > 0);
	CU_ASSERT(st.reasm_done >= 2); /* IPv4 and IPv6 */
	j = (json_t *)ep_dp_stats_json();
	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT(json_integer_value(json_object_get(j, "rx_msgs")) == (json_int_t)st.rx_msgs);
	CU_ASSERT(json_object_get(json_object_get(j, "drops"), "ep_rx_full") != NULL);
	json_decref(j);
}

/*
 * The server thread (endpoint.c) on the [endpoint] socket: once HELLO agreed on
 * the version, a request of another version closes the connection rather than
 * being served (tests/fuzz/corpus/dpsock_ctl/crash-request_of_another_version).
 */
static void
test_ep_server_closes_on_another_version(void)
{
	struct sockaddr_un sa;
	struct dpsock_ctl m;
	int fd;

	/* the server waits for the workers (RCU) when it takes an endpoint back */
	ring_rig_rcu_offline();
	CU_ASSERT_FATAL(dp_endpoint_start() == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	CU_ASSERT_FATAL(strlen(sock_path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	dpsock_ctl_init(&m, DPSOCK_OP_HELLO);
	m.family = AF_INET;
	CU_ASSERT_EQUAL(dpsock_ctl_sendmsg(fd, &m, NULL, 0, 0), (ssize_t)sizeof(m));
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 0);
	/* a RESOLVE before BIND is answered -EINVAL in version 1; of version 2, not at all */
	dpsock_ctl_init(&m, DPSOCK_OP_RESOLVE);
	m.addr.in.sin_family = AF_INET;
	CU_ASSERT_EQUAL(dpsock_ctl_sendmsg(fd, &m, NULL, 0, 0), (ssize_t)sizeof(m));
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), -EINVAL);
	m.version = DPSOCK_PROTO_VERSION + 1;
	CU_ASSERT_EQUAL(dpsock_ctl_sendmsg(fd, &m, NULL, 0, 0), (ssize_t)sizeof(m));
	CU_ASSERT_EQUAL(dp_test_ctl_reply(fd), 1000);
	close(fd);
	dp_endpoint_stop();
}

/* ---- suite ---- */

static int
suite_init(void)
{
	snprintf(sock_path, sizeof(sock_path), "/tmp/dpfwd-test-epdp-%d.sock", (int)getpid());
	snprintf(config_text, sizeof(config_text),
		"[dpfwd]\n"
		"burst = 32\n"
		"[mempool]\n"
		"cache = 32\n"
		"[port0]\n"
		"dev = net_ring_e0\n"
		"ip4 = 198.18.0.1/24\n"
		"ip6 = 2001:db8:10::1/64\n"
		"[port1]\n"
		"dev = net_ring_e1\n"
		"ip4 = 198.18.1.1/24\n"
		"ip6 = 2001:db8:11::1/64\n"
		"[lcores]\n"
		"rx = (0,0,1),(1,0,1)\n"
		"[neighbors]\n"
		"neigh = 198.18.0.2 lladdr 02:00:00:00:00:02 port 0\n"
		"neigh = 2001:db8:10::2 lladdr 02:00:00:00:00:02 port 0\n"
		"[relay0]\n"
		"listen = 198.18.0.1:5000\n"
		"backend = 198.18.1.2:6000\n"
		"source = 198.18.1.1\n"
		"ports = 20000-20007\n"
		"[endpoint]\n"
		"socket = %s\n"
		"max = 8\n",
		sock_path);
	return ring_rig_setup(&rig) == 0 ? 0 : -1;
}

static int
suite_cleanup(void)
{
	ring_rig_cleanup(&rig);
	unlink(sock_path);
	return 0;
}

static const struct dp_test tests[] = {
	{ "test_ep_attach_ports", test_ep_attach_ports },
	{ "test_ep_rx_udp4_payload_peer", test_ep_rx_udp4_payload_peer },
	{ "test_ep_rx_drop_reasons", test_ep_rx_drop_reasons },
	{ "test_ep_rx_pipe_full_counts_drops", test_ep_rx_pipe_full_counts_drops },
	{ "test_ep_rx_too_big_without_large_buffers", test_ep_rx_too_big_without_large_buffers },
	{ "test_ep_rx_multiseg_mbuf_ip6", test_ep_rx_multiseg_mbuf_ip6 },
	{ "test_ep_rx_udp_shorter_than_ip_payload", test_ep_rx_udp_shorter_than_ip_payload },
	{ "test_ep_tx_copy_exact_frame", test_ep_tx_copy_exact_frame },
	{ "test_ep_tx_wildcard_source_is_port_address",
		test_ep_tx_wildcard_source_is_port_address },
	{ "test_ep_tx_zero_copy_returns_after_free", test_ep_tx_zero_copy_returns_after_free },
	{ "test_ep_fragments_both_ways_ip4", test_ep_fragments_both_ways_ip4 },
	{ "test_ep_fragments_timeout_and_overlap", test_ep_fragments_timeout_and_overlap },
	{ "test_ep_fragments_table_full", test_ep_fragments_table_full },
	{ "test_ep_tx_bad_offsets_dropped", test_ep_tx_bad_offsets_dropped },
	{ "test_ep_tx_bad_dest_and_no_route", test_ep_tx_bad_dest_and_no_route },
	{ "test_ep_tx_too_big_past_the_udp_limit", test_ep_tx_too_big_past_the_udp_limit },
	{ "test_ep_tx_no_mbuf_gives_the_buffer_back", test_ep_tx_no_mbuf_gives_the_buffer_back },
	{ "test_ep_hairpin_to_own_address", test_ep_hairpin_to_own_address },
	{ "test_ep_ip6_both_ways", test_ep_ip6_both_ways },
	{ "test_ep_tx_odd_segments_cksum", test_ep_tx_odd_segments_cksum },
	{ "test_ep_cksum_reference_known_answers", test_ep_cksum_reference_known_answers },
	{ "test_ep_udp_cksum_known_answers_both_ways", test_ep_udp_cksum_known_answers_both_ways },
	{ "test_ep_tx_udp4_cksum_off_sends_zero", test_ep_tx_udp4_cksum_off_sends_zero },
	{ "test_ep_detach_clears_port", test_ep_detach_clears_port },
	{ "test_ep_stats_json", test_ep_stats_json },
	{ "test_ep_server_closes_on_another_version", test_ep_server_closes_on_another_version },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("endpoint_dp", tests, suite_init, suite_cleanup);
}
