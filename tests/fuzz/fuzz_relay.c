/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the UDP relay's fast path: relay4 / relay6 and what
 * relay.c does for them on the worker (new sessions, backend choice, expiry,
 * eviction), reached through the real graph (eth_classify, ip4_fwd / ip6_fwd,
 * ip4_local / ip6_local, ip4_output / ip6_output, the TX buffers) on the
 * in-process rig of the unit tests (tests/ring_rig.h), brought up once:
 *
 *   clients 203.0.113.0/24, 2001:db8:99::/64 via the gateways .254 / ::fe
 *           (static neighbors), or on-link -------- port0 198.18.0.1/24, 2001:db8:10::1/64
 *   backends 198.18.1.2:6000, 198.18.1.3:6001,
 *            [2001:db8:11::2]:6000, [2001:db8:11::3]:6001 --- port1 198.18.1.1/24,
 *                                                                 2001:db8:11::1/64
 *   svc 0 [relay0] 198.18.0.1:5000 -> .2 / .3, from 198.18.1.1:20000-20007 (8 sessions)
 *   svc 1 [relay1] [2001:db8:10::1]:5000 -> ::2 / ::3, from [2001:db8:11::1]:30000-30015
 *   svc 2 [relay2] 198.18.1.1:5001 -> 198.18.0.2:7000, from itself :21000-21003
 *
 * Random bytes seldom make an Ethernet + IP + UDP frame to a relay address,
 * so an input is a list of records, most of them templates whose fields are
 * written into a valid frame (the fuzzer still breaks any field it likes):
 *
 *   record   = kind | template fields (T_FIELDS bytes) | payload (fields[T_PAYLOAD] bytes)
 *            | kind (what RAW) | length (2 bytes, big endian) | the frame, unchanged
 *            | kind (what AGAIN): the previous record's frame again (this one's port
 *              and split)
 *   kind     = bits 0-2 what (RAW, CLIENT4, CLIENT6, BACKEND4, BACKEND6, ECHO, AGAIN, RAW),
 *              bit 3 the RX port, bit 4 age (the relay clock moves past every timeout
 *              first), bits 5-6 split (two segments: after Ethernet, inside the UDP
 *              header, after it), bit 7 hold (no walk yet: the next records join it
 *              in one burst)
 *
 * CLIENT sends to a service's listen address, BACKEND from a backend to a relay
 * port, ECHO answers a datagram this input saw relayed to a backend (from
 * that backend to its relay port, so a session is found). See enum tpl_field
 * for the fields.
 *
 * After each walk every frame on the TX rings is looked at. A UDP frame whose
 * addresses and ports are those of no frame of the burst was made by the
 * relay (forwarding keeps them; the relay always changes the destination, from
 * one of dpfwd's addresses to one that is not), and must be: from a frame of
 * the burst that was itself a well-formed UDP datagram to the relay; byte for
 * byte that frame but for MACs, TTL (64), addresses, ports and checksums; with
 * an IPv4 header checksum that verifies and a UDP checksum that verifies when
 * the original's did (0 stays 0 over IPv4, never 0 over IPv6); sent to the
 * MAC of its destination's neighbor; and (never an open relay) either from
 * source:relay port to one of the service's backends, for a datagram a client
 * sent to listen, or from listen to a client that opened a session on that
 * relay port with the backend that answers. Otherwise the target aborts, so
 * that libFuzzer keeps the input.
 *
 * Each input starts with an empty session table, so that one input replays
 * alone as it ran in the fuzzer (but for the relay ports it is given, which
 * follow the order earlier sessions were freed in): the relay clock moves
 * past every timeout and the worker walks until the relay's sweep has freed
 * what earlier inputs left. Within an input sessions live on from record to
 * record; the age bit expires them (found and freed, or evicted by a new one).
 * The relay's hand-off between workers is not reached: the rig has one worker.
 *
 * Poisoning and the mbuf check as in fuzz_datapath.c: the tail of each
 * segment's data room, from FUZZ_POISON_SLACK bytes after its data, is poisoned
 * while the input runs; after every input what the control lcore was handed
 * (frames for unresolved neighbors: it never runs here) is dropped and the
 * mbufs in use must be back at the baseline.
 *
 * Seeds: tests/fuzz/corpus/relay/NNN-*, written by tests/fuzz/gen_seeds.py
 * (python3 tests/fuzz/gen_seeds.py relay), one or more for each path above;
 * crash-* are inputs that once made this target abort.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_ctl.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_relay.h"
#include "dp_test.h"
#include "fuzz_mbuf.h"
#include "relay_priv.h"
#include "ring_rig.h"

#define NB_PORTS        2
#define MAX_RECORDS     16
#define MAX_FRAME       2048 /* the default data room after the headroom */
#define RELAY_TTL_OUT   64
#define AGE_S           61 /* past every service's timeout (relay1's 60 s) */
#define NB_SVCS         3
#define MAX_RELAY_PORTS 16
#define ASSIGN_KEEP     4 /* clients remembered per relay port: the latest ones */
#define STABLE_SLOTS    4096
#define ETH_HLEN        14
#define IP6_HLEN        40
#define UDP_HLEN        8

/* one sweep frees every session of the rig (8 + 16 + 4 slots) */
_Static_assert(8 + 16 + 4 <= RELAY_SWEEP_MAX, "one sweep empties the session table");

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "icmp_rate = 0\n" /* no ICMP errors: nothing depends on time */
				  "[mempool]\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_y0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "ip6 = 2001:db8:10::1/64\n"
				  "[port1]\n"
				  "dev = net_ring_y1\n"
				  "ip4 = 198.18.1.1/24\n"
				  "ip6 = 2001:db8:11::1/64\n"
				  "[lcores]\n"
				  "rx = (0,0,1),(1,0,1)\n"
				  "[routes]\n"
				  "route = 0.0.0.0/0 via 198.18.0.254 port 0\n"
				  "route = ::/0 via 2001:db8:10::fe port 0\n"
				  "[neighbors]\n"
				  "neigh = 198.18.0.2 lladdr 02:00:00:00:00:02 port 0\n"
				  "neigh = 198.18.0.254 lladdr 02:00:00:00:00:fe port 0\n"
				  "neigh = 198.18.1.2 lladdr 02:00:00:00:01:02 port 1\n"
				  "neigh = 198.18.1.3 lladdr 02:00:00:00:01:03 port 1\n"
				  "neigh = 2001:db8:10::2 lladdr 02:00:00:00:00:02 port 0\n"
				  "neigh = 2001:db8:10::fe lladdr 02:00:00:00:00:fe port 0\n"
				  "neigh = 2001:db8:11::2 lladdr 02:00:00:00:01:02 port 1\n"
				  "neigh = 2001:db8:11::3 lladdr 02:00:00:00:01:03 port 1\n"
				  "[relay0]\n"
				  "listen = 198.18.0.1:5000\n"
				  "backend = 198.18.1.2:6000\n"
				  "backend = 198.18.1.3:6001\n"
				  "source = 198.18.1.1\n"
				  "ports = 20000-20007\n"
				  "timeout = 30\n"
				  "[relay1]\n"
				  "listen = [2001:db8:10::1]:5000\n"
				  "backend = [2001:db8:11::2]:6000\n"
				  "backend = [2001:db8:11::3]:6001\n"
				  "source = 2001:db8:11::1\n"
				  "ports = 30000-30015\n"
				  "profile = media\n"
				  "[relay2]\n"
				  "listen = 198.18.1.1:5001\n"
				  "backend = 198.18.0.2:7000\n"
				  "ports = 21000-21003\n"
				  "timeout = 20\n";

static struct ring_rig rig = {
	.name = "fuzz_relay",
	.prefix = 'y',
	.nb_ports = NB_PORTS,
	.mem_mb = "512",
	.config_text = config_text,
};

/* ---- what the harness knows of the config ---- */

struct svc {
	bool ip6;
	uint8_t listen[16];
	uint16_t lport;
	uint8_t source[16];
	uint16_t port_lo, port_hi;
	unsigned int nb_backends;
	uint8_t backend[2][16];
	uint16_t bport[2];
};

static struct svc svcs[NB_SVCS];

/* The static neighbors: a relayed frame goes to the MAC of its destination's. */
struct neigh {
	bool ip6;
	uint8_t addr[16];
	unsigned int port;
	uint8_t mac[6];
};

static struct neigh neighs[8];
static unsigned int nb_neighs;

/* One relay port's sessions as the relay's output showed them: the latest clients. */
struct assign {
	uint8_t client[16];
	uint16_t cport;
	uint8_t backend; /* index in the service */
};

struct relay_port_model {
	struct assign a[ASSIGN_KEEP];
	unsigned int n, next;
};

static struct relay_port_model model[NB_SVCS][MAX_RELAY_PORTS];

/* The backend each client went to: it must not change while the backends stay. */
struct stable {
	bool used;
	uint8_t svc;
	uint8_t client[16];
	uint16_t cport;
	uint8_t backend;
};

static struct stable stable[STABLE_SLOTS];
static unsigned int stable_used;

/* ---- the input's records ---- */

enum kind_what {
	K_RAW,
	K_CLIENT4,
	K_CLIENT6,
	K_BACKEND4,
	K_BACKEND6,
	K_ECHO,
	K_AGAIN,
	K_RAW2,
};

#define KIND_WHAT(k)  ((k)&7)
#define KIND_PORT(k)  (((k) >> 3) & 1)
#define KIND_AGE      0x10
#define KIND_SPLIT(k) (((k) >> 5) & 3)
#define KIND_HOLD     0x80

/* Template fields, after the kind byte. */
enum tpl_field {
	T_FLAGS,    /* F_* */
	T_SRC,      /* bits 0-1: net of the source (0 remote, 1 port0's, 2 port1's, 3 odd
		     * ones), bit 2: BACKEND/ECHO take it instead of the backend's address */
	T_SRC_LOW,  /* the source's last byte (odd ones: which) */
	T_DST_LOW,  /* 0: the service's address; else its last byte replaced */
	T_SPORT_HI, /* source port; 0: the natural one (client 40000 + T_SRC_LOW, backend's) */
	T_SPORT_LO,
	T_DPORT_HI, /* destination port; 0: listen port, or relay port number T_SELECT >> 2 */
	T_DPORT_LO,
	T_TTL, /* 0: 64 */
	T_TOS,
	T_CKSUM_HI, /* the UDP checksum with F_CKSUM_RAW */
	T_CKSUM_LO,
	T_IPLEN_HI, /* IPv4 total / IPv6 payload length with F_LEN_RAW; F_FRAG_OFF: offset */
	T_IPLEN_LO,
	T_ULEN_HI, /* UDP length with F_LEN_RAW */
	T_ULEN_LO,
	T_HDR,     /* F_HDR_RAW: the IPv4 IHL (low 4 bits) or the IPv6 next header */
	T_PAYLOAD, /* payload bytes that follow the fields */
	T_CUT,     /* 0: the whole frame; else at most this many bytes of it */
	T_SELECT,  /* bit 0: IPv4 service 2 rather than 0; bit 1: the second backend; the
		    * rest: the relay port of BACKEND, or which datagram ECHO answers (0: the
		    * latest relayed to a backend, 1: the one before, ...) */
	T_FIELDS,
};

enum tpl_flag {
	F_CKSUM_RAW = 0x01,
	F_CKSUM_ZERO = 0x02,
	F_IPCK_BAD = 0x04,
	F_FRAG_MF = 0x08,
	F_FRAG_OFF = 0x10,
	F_DF = 0x20,
	F_LEN_RAW = 0x40,
	F_HDR_RAW = 0x80,
};

/* A frame as it went in, and what the checks need of it. */
struct frame {
	uint8_t b[MAX_FRAME];
	size_t len;
	unsigned int port;
	unsigned int split;
};

/* Addresses and ports of a frame, when it has them. */
struct tuple {
	bool ok; /* IPv4 or IPv6 with UDP right after the header (not checked further) */
	bool v6;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
};

/* A well-formed UDP datagram (the strict reading). */
struct udp_view {
	bool ok;
	bool v6;
	unsigned int l4; /* offset of the UDP header */
	unsigned int ihl;
	uint16_t ulen;
	uint16_t cksum;
	bool cksum_ok; /* verifies (IPv4: or is 0) */
};

static struct frame batch[MAX_RECORDS];
static unsigned int batch_n;
static struct frame last_frame;
static bool have_last;

/* The datagrams relayed to a backend in this input: ECHO answers one of them. */
struct echo {
	bool v6;
	uint8_t backend[16], source[16];
	uint16_t bport, rport;
};

static struct echo echoes[MAX_RECORDS];
static unsigned int nb_echoes;

static __attribute__((noreturn)) void
fail(const char *why, const uint8_t *f, size_t len)
{
	size_t i;

	fprintf(stderr, "fuzz_relay: %s; frame (%zu bytes):", why, len);
	for (i = 0; i < len && i < 128; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n  ", f[i]);
	fprintf(stderr, "\n");
	abort();
}

/* ---- checksums (RFC 1071: dp_test.h's sum, not dpfwd's) ---- */

/* The UDP checksum's sum over pseudo-header and datagram (RFC 768: its own length). */
static uint16_t
udp_sum(const uint8_t *f, bool v6, unsigned int l3, unsigned int l4, uint16_t ulen)
{
	const unsigned int alen = v6 ? 16 : 4;
	const uint8_t *a = f + l3 + (v6 ? 8 : 12);
	uint32_t s = dp_test_sum16(0, a, 2 * alen) + 17 + ulen;

	return dp_test_fold(dp_test_sum16(s, f + l4, ulen));
}

/* ---- reading frames ---- */

static uint16_t
get16(const uint8_t *p)
{
	return dp_pkt_get16(p);
}

/* Addresses and ports wherever the headers put them (the frame may be broken). */
static struct tuple
tuple_of(const uint8_t *f, size_t len)
{
	struct tuple t;
	unsigned int l4;

	memset(&t, 0, sizeof(t));
	if (len < ETH_HLEN + 20)
		return t;
	if (get16(f + 12) == RTE_ETHER_TYPE_IPV4 && (f[ETH_HLEN] >> 4) == 4) {
		l4 = ETH_HLEN + 4u * (f[ETH_HLEN] & 0xf);
		if (f[ETH_HLEN + 9] != IPPROTO_UDP || l4 + 4 > len)
			return t;
		memcpy(t.src, f + ETH_HLEN + 12, 4);
		memcpy(t.dst, f + ETH_HLEN + 16, 4);
	} else if (get16(f + 12) == RTE_ETHER_TYPE_IPV6 && (f[ETH_HLEN] >> 4) == 6) {
		l4 = ETH_HLEN + IP6_HLEN;
		if (f[ETH_HLEN + 6] != IPPROTO_UDP || l4 + 4 > len)
			return t;
		memcpy(t.src, f + ETH_HLEN + 8, 16);
		memcpy(t.dst, f + ETH_HLEN + 24, 16);
		t.v6 = true;
	} else {
		return t;
	}
	t.sport = get16(f + l4);
	t.dport = get16(f + l4 + 2);
	t.ok = true;
	return t;
}

static bool
tuple_eq(const struct tuple *a, const struct tuple *b)
{
	return a->ok && b->ok && a->v6 == b->v6 && memcmp(a->src, b->src, 16) == 0 &&
	       memcmp(a->dst, b->dst, 16) == 0 && a->sport == b->sport && a->dport == b->dport;
}

/* A UDP datagram dpfwd may take whole: every length consistent, not a fragment. */
static struct udp_view
udp_view_of(const uint8_t *f, size_t len)
{
	struct udp_view u;

	memset(&u, 0, sizeof(u));
	if (len < ETH_HLEN + 20)
		return u;
	if (get16(f + 12) == RTE_ETHER_TYPE_IPV4) {
		const uint8_t *ip = f + ETH_HLEN;
		unsigned int tlen = get16(ip + 2);

		u.ihl = 4u * (ip[0] & 0xf);
		if ((ip[0] >> 4) != 4 || u.ihl < 20 || ETH_HLEN + u.ihl > len ||
			dp_test_fold(dp_test_sum16(0, ip, u.ihl)) != 0xffff ||
			ip[9] != IPPROTO_UDP || (get16(ip + 6) & 0x3fff) != 0 ||
			tlen < u.ihl + UDP_HLEN || ETH_HLEN + tlen > len)
			return u;
		u.l4 = ETH_HLEN + u.ihl;
		u.ulen = get16(f + u.l4 + 4);
		if (u.ulen < UDP_HLEN || u.ulen > tlen - u.ihl)
			return u;
		u.cksum = get16(f + u.l4 + 6);
		u.cksum_ok = u.cksum == 0 || udp_sum(f, false, ETH_HLEN, u.l4, u.ulen) == 0xffff;
	} else if (get16(f + 12) == RTE_ETHER_TYPE_IPV6) {
		const uint8_t *ip = f + ETH_HLEN;
		unsigned int plen = get16(ip + 4);

		if (len < ETH_HLEN + IP6_HLEN + UDP_HLEN || (ip[0] >> 4) != 6 ||
			ip[6] != IPPROTO_UDP || plen < UDP_HLEN || ETH_HLEN + IP6_HLEN + plen > len)
			return u;
		u.v6 = true;
		u.l4 = ETH_HLEN + IP6_HLEN;
		u.ulen = get16(f + u.l4 + 4);
		if (u.ulen < UDP_HLEN || u.ulen > plen)
			return u;
		u.cksum = get16(f + u.l4 + 6);
		/* RFC 8200 8.1: 0 is not "none" over IPv6 */
		u.cksum_ok = u.cksum != 0 && udp_sum(f, true, ETH_HLEN, u.l4, u.ulen) == 0xffff;
	} else {
		return u;
	}
	u.ok = true;
	return u;
}

/* ---- templates ---- */

static void
addr_odd(bool v6, uint8_t which, uint8_t out[16])
{
	static const char *const odd4[8] = { "0.0.0.0", "127.0.0.1", "224.0.0.1", "255.255.255.255",
		"198.18.0.1", "198.18.1.1", "10.0.0.1", "198.18.0.255" };
	static const char *const odd6[8] = { "::", "::1", "ff02::1", "fe80::2", "2001:db8:10::1",
		"2001:db8:11::1", "2001:db8:99::1:1", "ff02::1:ff00:1" };

	memset(out, 0, 16);
	if (inet_pton(v6 ? AF_INET6 : AF_INET, v6 ? odd6[which & 7] : odd4[which & 7], out) != 1)
		abort();
}

/* An address of net @p net (T_SRC bits 0-1) ending in @p low. */
static void
addr_make(bool v6, uint8_t net, uint8_t low, uint8_t out[16])
{
	static const uint8_t net4[3][3] = { { 203, 0, 113 }, { 198, 18, 0 }, { 198, 18, 1 } };
	static const uint8_t net6[3] = { 0x99, 0x10, 0x11 };

	net &= 3;
	if (net == 3) {
		addr_odd(v6, low, out);
		return;
	}
	memset(out, 0, 16);
	if (v6) {
		/* 2001:db8:<net>::<low> */
		out[0] = 0x20;
		out[1] = 0x01;
		out[2] = 0x0d;
		out[3] = 0xb8;
		out[5] = net6[net];
		out[15] = low;
	} else {
		memcpy(out, net4[net], 3);
		out[3] = low;
	}
}

/* What a template record asks for, the defaults filled in. */
struct tpl {
	bool v6;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	const uint8_t *t; /* the fields */
};

static void
tpl_resolve(unsigned int what, const uint8_t *t, struct tpl *p)
{
	const uint16_t sport = (uint16_t)(t[T_SPORT_HI] << 8 | t[T_SPORT_LO]);
	const uint16_t dport = (uint16_t)(t[T_DPORT_HI] << 8 | t[T_DPORT_LO]);
	const struct echo *e =
		nb_echoes ? &echoes[nb_echoes - 1 - (t[T_SELECT] >> 2) % nb_echoes] : NULL;
	const struct svc *s;
	unsigned int b;
	bool client;

	if (what == K_ECHO && e == NULL)
		what = K_BACKEND4;
	client = what == K_CLIENT4 || what == K_CLIENT6;
	p->v6 = what == K_CLIENT6 || what == K_BACKEND6 || (what == K_ECHO && e->v6);
	p->t = t;
	s = &svcs[p->v6 ? 1 : (t[T_SELECT] & 1 ? 2 : 0)];
	b = (t[T_SELECT] >> 1 & 1) % s->nb_backends;
	if (client) {
		addr_make(p->v6, t[T_SRC], t[T_SRC_LOW], p->src);
		memcpy(p->dst, s->listen, 16);
		p->sport = sport ? sport : (uint16_t)(40000 + t[T_SRC_LOW]);
		p->dport = dport ? dport : s->lport;
	} else if (what == K_ECHO) {
		memcpy(p->src, e->backend, 16);
		memcpy(p->dst, e->source, 16);
		p->sport = e->bport;
		p->dport = e->rport;
	} else {
		memcpy(p->src, s->backend[b], 16);
		memcpy(p->dst, s->source, 16);
		p->sport = s->bport[b];
		p->dport = (uint16_t)(s->port_lo +
				      (t[T_SELECT] >> 2) %
					      (unsigned int)(s->port_hi - s->port_lo + 1));
	}
	if (!client) {
		if (t[T_SRC] & 4)
			addr_make(p->v6, t[T_SRC], t[T_SRC_LOW], p->src);
		if (sport != 0)
			p->sport = sport;
		if (dport != 0)
			p->dport = dport;
	}
	if (t[T_DST_LOW] != 0)
		p->dst[p->v6 ? 15 : 3] = t[T_DST_LOW];
}

/* The frame of a template: valid but for what the flags and raw fields break. */
static size_t
tpl_build(
	struct frame *fr, const struct tpl *p, const uint8_t *payload, size_t plen, uint16_t stamp)
{
	const uint8_t *t = p->t;
	const uint8_t flags = t[T_FLAGS];
	const bool frag = flags & (F_FRAG_MF | F_FRAG_OFF);
	const uint16_t frag_off = (uint16_t)((t[T_IPLEN_HI] << 8 | t[T_IPLEN_LO]) & 0x1fff);
	uint8_t *f = fr->b;
	unsigned int l4, hlen, l3len;
	uint16_t ulen, ck;
	size_t len;

	memset(f, 0, MAX_FRAME);
	memcpy(f, &dp_ports[fr->port].mac, 6);
	f[6] = 0x02;
	f[11] = 0x42;
	if (p->v6) {
		uint8_t *ip = f + ETH_HLEN;
		const uint32_t vtc = 6u << 28 | (uint32_t)t[T_TOS] << 20 | stamp;

		dp_pkt_put16(f + 12, RTE_ETHER_TYPE_IPV6);
		dp_pkt_put32(ip, vtc);
		ip[6] = flags & F_HDR_RAW ? t[T_HDR] : frag ? IPPROTO_FRAGMENT : IPPROTO_UDP;
		ip[7] = t[T_TTL] ? t[T_TTL] : 64;
		memcpy(ip + 8, p->src, 16);
		memcpy(ip + 24, p->dst, 16);
		hlen = IP6_HLEN;
		if (frag) {
			/* RFC 8200 4.5: UDP behind a Fragment header */
			uint8_t *fh = ip + IP6_HLEN;

			fh[0] = IPPROTO_UDP;
			dp_pkt_put16(
				fh + 2, (uint16_t)((flags & F_FRAG_OFF ? (frag_off | 1) << 3 : 0) |
						   (flags & F_FRAG_MF ? 1 : 0)));
			dp_pkt_put32(fh + 4, stamp);
			hlen += 8;
		}
		l3len = hlen + UDP_HLEN + (unsigned int)plen;
		dp_pkt_put16(ip + 4, flags & F_LEN_RAW
					     ? (uint16_t)(t[T_IPLEN_HI] << 8 | t[T_IPLEN_LO])
					     : (uint16_t)(l3len - IP6_HLEN));
	} else {
		uint8_t *ip = f + ETH_HLEN;
		const unsigned int ihl = flags & F_HDR_RAW ? t[T_HDR] & 0xf : 5;
		uint16_t fragw = 0;

		hlen = 4 * RTE_MAX(ihl, 5u);
		dp_pkt_put16(f + 12, RTE_ETHER_TYPE_IPV4);
		ip[0] = (uint8_t)(0x40 | ihl);
		ip[1] = t[T_TOS];
		l3len = hlen + UDP_HLEN + (unsigned int)plen;
		dp_pkt_put16(ip + 2, flags & F_LEN_RAW
					     ? (uint16_t)(t[T_IPLEN_HI] << 8 | t[T_IPLEN_LO])
					     : (uint16_t)l3len);
		/* the stamp tells the frames of one burst apart (the relay keeps it) */
		dp_pkt_put16(ip + 4, stamp);
		if (flags & F_DF)
			fragw |= 0x4000;
		if (flags & F_FRAG_MF)
			fragw |= 0x2000;
		if (flags & F_FRAG_OFF)
			fragw |= frag_off | 1;
		dp_pkt_put16(ip + 6, fragw);
		ip[8] = t[T_TTL] ? t[T_TTL] : 64;
		ip[9] = IPPROTO_UDP;
		memcpy(ip + 12, p->src, 4);
		memcpy(ip + 16, p->dst, 4);
		memset(ip + 20, 1, hlen - 20); /* NOP options */
		ck = (uint16_t)~dp_test_fold(dp_test_sum16(0, ip, hlen));
		if (flags & F_IPCK_BAD)
			ck ^= 0x0100;
		dp_pkt_put16(ip + 10, ck);
	}
	l4 = ETH_HLEN + hlen;
	ulen = flags & F_LEN_RAW ? (uint16_t)(t[T_ULEN_HI] << 8 | t[T_ULEN_LO])
				 : (uint16_t)(UDP_HLEN + plen);
	dp_pkt_put16(f + l4, p->sport);
	dp_pkt_put16(f + l4 + 2, p->dport);
	dp_pkt_put16(f + l4 + 4, ulen);
	memcpy(f + l4 + UDP_HLEN, payload, plen);
	len = ETH_HLEN + l3len;
	if (flags & F_CKSUM_ZERO) {
		ck = 0;
	} else if (flags & F_CKSUM_RAW) {
		ck = (uint16_t)(t[T_CKSUM_HI] << 8 | t[T_CKSUM_LO]);
	} else {
		/* over the UDP length when the frame holds it; a broken length, over what is there */
		uint16_t n = (uint16_t)RTE_MIN((size_t)ulen, len - l4);

		ck = (uint16_t)~udp_sum(f, p->v6, ETH_HLEN, l4, n);
		if (ck == 0)
			ck = 0xffff;
	}
	dp_pkt_put16(f + l4 + 6, ck);
	if (len < RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)
		len = RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;
	if (t[T_CUT] != 0 && t[T_CUT] < len)
		len = t[T_CUT];
	return len;
}

/* ---- the checks ---- */

static const struct neigh *
neigh_of(bool v6, const uint8_t *addr)
{
	unsigned int i;

	for (i = 0; i < nb_neighs; i++)
		if (neighs[i].ip6 == v6 && memcmp(neighs[i].addr, addr, v6 ? 16 : 4) == 0)
			return &neighs[i];
	return NULL;
}

/* Where a frame to @p addr leaves: a static neighbor, or the gateway; NULL: nobody knows. */
static const struct neigh *
hop_of(bool v6, const uint8_t *addr)
{
	static const uint8_t gw4[4] = { 198, 18, 0, 254 };
	static const uint8_t gw6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x10, [15] = 0xfe };
	const struct neigh *n = neigh_of(v6, addr);

	if (n != NULL)
		return n;
	/* on-link: its own neighbor, which only the control lcore resolves (it does not run) */
	if (v6 ? memcmp(addr, gw6, 5) == 0 && (addr[5] == 0x10 || addr[5] == 0x11) &&
				memcmp(addr + 6, gw6 + 6, 2) == 0
	       : memcmp(addr, gw4, 2) == 0 && (addr[2] == 0 || addr[2] == 1))
		return NULL;
	return neigh_of(v6, v6 ? gw6 : gw4);
}

static void
model_assign(
	unsigned int si, uint16_t rport, const uint8_t *client, uint16_t cport, uint8_t backend)
{
	struct relay_port_model *pm = &model[si][rport - svcs[si].port_lo];
	struct assign *a = &pm->a[pm->next];

	memcpy(a->client, client, 16);
	a->cport = cport;
	a->backend = backend;
	pm->next = (pm->next + 1) % ASSIGN_KEEP;
	if (pm->n < ASSIGN_KEEP)
		pm->n++;
}

/* The same client always to the same backend (the config's backends do not change). */
static void
stable_check(unsigned int si, const uint8_t *client, uint16_t cport, uint8_t backend,
	const uint8_t *f, size_t len)
{
	uint32_t h = si * 31u + cport;
	unsigned int i, k;

	for (i = 0; i < 16; i++)
		h = h * 131u + client[i];
	if (stable_used > STABLE_SLOTS / 2) {
		memset(stable, 0, sizeof(stable));
		stable_used = 0;
	}
	for (k = 0; k < STABLE_SLOTS; k++) {
		struct stable *e = &stable[(h + k) % STABLE_SLOTS];

		if (!e->used) {
			e->used = true;
			e->svc = (uint8_t)si;
			memcpy(e->client, client, 16);
			e->cport = cport;
			e->backend = backend;
			stable_used++;
			return;
		}
		if (e->svc == si && e->cport == cport && memcmp(e->client, client, 16) == 0) {
			if (e->backend != backend)
				fail("a client went to another backend", f, len);
			return;
		}
	}
}

static int
backend_index(const struct svc *s, const struct tuple *o)
{
	unsigned int b;

	for (b = 0; b < s->nb_backends; b++)
		if (memcmp(o->dst, s->backend[b], 16) == 0 && o->dport == s->bport[b])
			return (int)b;
	return -1;
}

/*
 * Is @p o byte for byte @p in but for what the relay rewrites (MACs, TTL,
 * addresses, ports, checksums)?
 */
static bool
same_but_rewritten(const uint8_t *o, size_t olen, const struct frame *in, const struct udp_view *u)
{
	uint8_t a[MAX_FRAME], b[MAX_FRAME];
	const unsigned int alen = u->v6 ? 16 : 4;
	const unsigned int l3 = ETH_HLEN;

	if (olen != in->len)
		return false;
	memcpy(a, o, olen);
	memcpy(b, in->b, olen);
	memset(a, 0, 12);
	memset(b, 0, 12);
	if (u->v6) {
		a[l3 + 7] = b[l3 + 7] = 0;
		memset(a + l3 + 8, 0, 2 * alen);
		memset(b + l3 + 8, 0, 2 * alen);
	} else {
		a[l3 + 8] = b[l3 + 8] = 0;
		memset(a + l3 + 10, 0, 2 + 2 * alen);
		memset(b + l3 + 10, 0, 2 + 2 * alen);
	}
	memset(a + u->l4, 0, 4);
	memset(b + u->l4, 0, 4);
	memset(a + u->l4 + 6, 0, 2);
	memset(b + u->l4 + 6, 0, 2);
	return memcmp(a, b, olen) == 0;
}

/* A frame of the burst that the relay may have turned into an output. */
struct cand {
	unsigned int si;
	const struct frame *in;
	struct udp_view iu;
	struct tuple it;
	bool to_backend;
	int backend;
};

/* Frames of the burst that @p o may come from: same bytes but for the rewrite, one direction. */
static unsigned int
cands_of(const uint8_t *o, size_t olen, const struct udp_view *ou, const struct tuple *ot,
	struct cand *c)
{
	unsigned int si, i, n = 0;

	for (si = 0; si < NB_SVCS; si++) {
		const struct svc *s = &svcs[si];
		const unsigned int alen = s->ip6 ? 16 : 4;

		if (s->ip6 != ou->v6)
			continue;
		for (i = 0; i < batch_n; i++) {
			struct cand *k = &c[n];

			k->si = si;
			k->in = &batch[i];
			k->iu = udp_view_of(k->in->b, k->in->len);
			k->it = tuple_of(k->in->b, k->in->len);
			if (!k->iu.ok || k->iu.v6 != ou->v6 ||
				!same_but_rewritten(o, olen, k->in, &k->iu))
				continue;
			if (memcmp(ot->src, s->source, alen) == 0 && ot->sport >= s->port_lo &&
				ot->sport <= s->port_hi &&
				memcmp(k->it.dst, s->listen, alen) == 0 &&
				k->it.dport == s->lport) {
				/* client -> listen became source:relay port -> a backend */
				k->to_backend = true;
				k->backend = backend_index(s, ot);
				if (k->backend < 0)
					continue;
			} else if (memcmp(ot->src, s->listen, alen) == 0 && ot->sport == s->lport &&
				   memcmp(k->it.dst, s->source, alen) == 0 &&
				   k->it.dport >= s->port_lo && k->it.dport <= s->port_hi) {
				/* from the backend of a session on that relay port, to its client */
				const struct relay_port_model *pm =
					&model[si][k->it.dport - s->port_lo];
				unsigned int a;

				for (a = 0; a < pm->n; a++) {
					const struct assign *as = &pm->a[a];

					if (memcmp(k->it.src, s->backend[as->backend], 16) == 0 &&
						k->it.sport == s->bport[as->backend] &&
						memcmp(ot->dst, as->client, 16) == 0 &&
						ot->dport == as->cport)
						break;
				}
				if (a == pm->n)
					continue;
				k->to_backend = false;
				k->backend = -1;
			} else {
				continue;
			}
			n++;
		}
	}
	return n;
}

/* A frame the relay made (@p o, left by @p port): every invariant of the header comment. */
static void
check_relayed(unsigned int port, const uint8_t *o, size_t olen, const struct tuple *ot)
{
	struct cand c[NB_SVCS * MAX_RECORDS];
	const struct neigh *hop;
	struct udp_view ou;
	bool all_ok = true, all_bad = true;
	unsigned int i, n;

	if (olen >= ETH_HLEN + 20 && get16(o + 12) == RTE_ETHER_TYPE_IPV4 &&
		dp_test_fold(dp_test_sum16(0, o + ETH_HLEN, 4u * (o[ETH_HLEN] & 0xf))) != 0xffff)
		fail("relayed with an IPv4 header checksum that does not verify", o, olen);
	ou = udp_view_of(o, olen);
	if (!ou.ok)
		fail("the relay sent a malformed frame", o, olen);
	if (o[ETH_HLEN + (ou.v6 ? 7 : 8)] != RELAY_TTL_OUT)
		fail("relayed with a TTL / hop limit other than 64", o, olen);
	hop = hop_of(ou.v6, ot->dst);
	if (hop == NULL)
		fail("relayed to an on-link address no neighbor entry resolves", o, olen);
	if (hop->port != port || memcmp(o, hop->mac, 6) != 0 ||
		memcmp(o + 6, &dp_ports[port].mac, 6) != 0)
		fail("relayed with the wrong MACs or by the wrong port", o, olen);
	if (ou.v6 && ou.cksum == 0)
		fail("relayed IPv6 with UDP checksum 0", o, olen);
	n = cands_of(o, olen, &ou, ot, c);
	if (n == 0)
		fail("relayed, but from no datagram to the relay, or to no backend or client of a "
		     "session (an open relay)",
			o, olen);
	for (i = 0; i < n; i++) {
		all_ok = all_ok && c[i].iu.cksum_ok;
		all_bad = all_bad && !c[i].iu.cksum_ok;
		if (!ou.v6 && (c[i].iu.cksum == 0) != (ou.cksum == 0))
			fail("a UDP checksum 0 did not stay 0, or a checksum became 0", o, olen);
		if (!c[i].to_backend)
			continue;
		/* the frames of a burst differ (a stamp in the IP ID or flow label): when two
		 * are alike, each may be the one, and each client is remembered */
		if (n == 1)
			stable_check(c[i].si, c[i].it.src, c[i].it.sport, (uint8_t)c[i].backend, o,
				olen);
		model_assign(c[i].si, ot->sport, c[i].it.src, c[i].it.sport, (uint8_t)c[i].backend);
		if (nb_echoes < MAX_RECORDS) {
			struct echo *e = &echoes[nb_echoes++];

			e->v6 = ou.v6;
			memcpy(e->backend, ot->dst, 16);
			memcpy(e->source, ot->src, 16);
			e->bport = ot->dport;
			e->rport = ot->sport;
		}
	}
	/* deltas keep a right checksum right, and a wrong one wrong (RFC 1624) */
	if (all_ok && !ou.cksum_ok)
		fail("a UDP checksum that verified does not any more", o, olen);
	if (all_bad && ou.cksum_ok)
		fail("a wrong UDP checksum came out right", o, olen);
}

/* From a relay port: the relay's frames to backends are checked first (they open sessions). */
static bool
from_relay_port(const struct tuple *ot)
{
	unsigned int si;

	for (si = 0; si < NB_SVCS; si++) {
		const struct svc *s = &svcs[si];

		if (s->ip6 == ot->v6 && memcmp(ot->src, s->source, 16) == 0 &&
			ot->sport >= s->port_lo && ot->sport <= s->port_hi)
			return true;
	}
	return false;
}

/* What left, copied out of its mbufs. */
struct out_frame {
	uint8_t b[MAX_FRAME];
	size_t len;
	unsigned int port;
	struct tuple t;
	bool relayed;
};

#define MAX_OUT (2 * MAX_RECORDS)

static struct out_frame outs[MAX_OUT];

/* Every frame on the TX rings: the relay's checked, all freed. @return relayed frames. */
static unsigned int
drain_check(void)
{
	struct rte_mbuf *out[32];
	unsigned int p, n, i, k, nb_out = 0, relayed = 0, pass;

	for (p = 0; p < NB_PORTS; p++) {
		while ((n = ring_rig_drain(&rig, (int)p, out, RTE_DIM(out))) > 0) {
			for (i = 0; i < n; i++) {
				struct out_frame *of = &outs[nb_out];
				const uint8_t *d;

				if (nb_out == MAX_OUT)
					fail("more frames out than in", batch[0].b, batch[0].len);
				of->len = RTE_MIN((size_t)out[i]->pkt_len, sizeof(of->b));
				d = rte_pktmbuf_read(out[i], 0, (uint32_t)of->len, of->b);
				if (d != of->b)
					memcpy(of->b, d, of->len);
				of->port = p;
				of->t = tuple_of(of->b, of->len);
				/* forwarded (or made by the router about an input) keeps them */
				for (k = 0; k < batch_n && of->t.ok; k++) {
					struct tuple it = tuple_of(batch[k].b, batch[k].len);

					if (tuple_eq(&it, &of->t))
						break;
				}
				of->relayed = of->t.ok && k == batch_n;
				nb_out++;
			}
			rte_pktmbuf_free_bulk(out, n);
		}
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nb_out; i++) {
			struct out_frame *of = &outs[i];

			if (!of->relayed || from_relay_port(&of->t) != (pass == 0))
				continue;
			check_relayed(of->port, of->b, of->len, &of->t);
			relayed++;
		}
	return relayed;
}

/* ---- mbufs ---- */

static struct fuzz_poisoned poisoned[MAX_RECORDS * 2];
static unsigned int nb_poisoned;

/*
 * Where split @p s cuts frame @p fr: after Ethernet, inside the UDP header,
 * after it (dpfwd wants the IPv4 datagram whole in the first segment, and the
 * IPv6 and UDP headers there: only the last split of IPv6 reaches the relay).
 */
static size_t
split_at(const struct frame *fr, unsigned int s)
{
	const bool v6 = fr->len > 13 && get16(fr->b + 12) == RTE_ETHER_TYPE_IPV6;
	const size_t l4 =
		ETH_HLEN + (v6 ? IP6_HLEN : (fr->len > ETH_HLEN ? 4u * (fr->b[14] & 0xf) : 20));

	switch (s) {
	case 1:
		return ETH_HLEN;
	case 2:
		return l4 + 4;
	case 3:
		return l4 + UDP_HLEN;
	default:
		return 0;
	}
}

static void
inject(struct frame *fr)
{
	size_t cut = split_at(fr, fr->split);
	struct rte_mbuf *m, *s2 = NULL;

	if (cut == 0 || cut >= fr->len)
		cut = fr->len;
	m = fuzz_seg_new("fuzz_relay", fr->b, cut);
	if (cut < fr->len) {
		s2 = fuzz_seg_new("fuzz_relay", fr->b + cut, fr->len - cut);
		if (rte_pktmbuf_chain(m, s2) != 0)
			abort();
	}
	m->port = dp_ports[fr->port].port_id;
	poisoned[nb_poisoned++] = fuzz_poison_tail(m);
	if (s2 != NULL)
		poisoned[nb_poisoned++] = fuzz_poison_tail(s2);
	if (rte_ring_enqueue(rig.rx[fr->port], m) != 0)
		abort();
}

static uint64_t
relayed_count(void)
{
	struct dp_relay_stats st;

	dp_relay_stats_sum(&st);
	return st.to_backend + st.to_client;
}

/* The burst so far through the graph; what leaves, checked. */
static void
walk_batch(void)
{
	uint64_t before = relayed_count();
	unsigned int relayed;

	if (batch_n == 0)
		return;
	dp_graph_worker_run(dp_workers[0], 2);
	dp_graph_worker_flush(dp_workers[0]);
	relayed = drain_check();
	fuzz_unpoison(poisoned, nb_poisoned);
	nb_poisoned = 0;
	/* a frame relayed is counted; one held for its neighbor is counted but not seen */
	if (relayed > relayed_count() - before || relayed > batch_n)
		fail("more frames relayed than counted, or than came in", batch[0].b, batch[0].len);
	batch_n = 0;
}

static void
leak_check(void)
{
	int64_t over;

	dp_graph_worker_flush(dp_workers[0]);
	ring_rig_flush_drain_all(&rig);
	/* frames for unresolved neighbors went to the control lcore's ring */
	dp_ctl_stop();
	over = dp_mem_in_use_over_baseline();
	if (over != 0) {
		fprintf(stderr, "fuzz_relay: %lld mbufs in use over the baseline\n",
			(long long)over);
		abort();
	}
}

/* ---- set-up ---- */

static void
pton(bool v6, const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	if (inet_pton(v6 ? AF_INET6 : AF_INET, s, out) != 1)
		abort();
}

static void
svc_set(unsigned int i, bool v6, const char *listen, uint16_t lport, const char *source,
	uint16_t lo, uint16_t hi, const char *b0, uint16_t p0, const char *b1, uint16_t p1)
{
	struct svc *s = &svcs[i];

	s->ip6 = v6;
	pton(v6, listen, s->listen);
	s->lport = lport;
	pton(v6, source, s->source);
	s->port_lo = lo;
	s->port_hi = hi;
	pton(v6, b0, s->backend[0]);
	s->bport[0] = p0;
	s->nb_backends = 1;
	if (b1 != NULL) {
		pton(v6, b1, s->backend[1]);
		s->bport[1] = p1;
		s->nb_backends = 2;
	}
}

static void
neigh_add(bool v6, const char *addr, unsigned int port, uint8_t last2, uint8_t last)
{
	struct neigh *n = &neighs[nb_neighs++];
	const uint8_t mac[6] = { 0x02, 0, 0, 0, last2, last };

	n->ip6 = v6;
	pton(v6, addr, n->addr);
	n->port = port;
	memcpy(n->mac, mac, 6);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (ring_rig_setup(&rig) < 0) {
		fprintf(stderr, "fuzz_relay: rig setup failed\n");
		abort();
	}
	/* the config is loaded: nothing reads the file again */
	unlink(rig.cfg_path);
	rmdir(rig.tmpdir);
	svc_set(0, false, "198.18.0.1", 5000, "198.18.1.1", 20000, 20007, "198.18.1.2", 6000,
		"198.18.1.3", 6001);
	svc_set(1, true, "2001:db8:10::1", 5000, "2001:db8:11::1", 30000, 30015, "2001:db8:11::2",
		6000, "2001:db8:11::3", 6001);
	svc_set(2, false, "198.18.1.1", 5001, "198.18.1.1", 21000, 21003, "198.18.0.2", 7000, NULL,
		0);
	neigh_add(false, "198.18.0.2", 0, 0, 0x02);
	neigh_add(false, "198.18.0.254", 0, 0, 0xfe);
	neigh_add(false, "198.18.1.2", 1, 1, 0x02);
	neigh_add(false, "198.18.1.3", 1, 1, 0x03);
	neigh_add(true, "2001:db8:10::2", 0, 0, 0x02);
	neigh_add(true, "2001:db8:10::fe", 0, 0, 0xfe);
	neigh_add(true, "2001:db8:11::2", 1, 1, 0x02);
	neigh_add(true, "2001:db8:11::3", 1, 1, 0x03);
	return 0;
}

/* ---- one input ---- */

/* The next record into batch[batch_n]. @return bytes it took, 0 at the end of the input. */
static size_t
record_take(const uint8_t *data, size_t size, unsigned int idx)
{
	const uint8_t kind = data[0];
	const unsigned int what = KIND_WHAT(kind);
	struct frame *fr = &batch[batch_n];
	size_t used = 1;

	if (what == K_AGAIN) {
		/* its bytes; the port and split of this record */
		if (!have_last)
			return used;
		*fr = last_frame;
	}
	fr->port = KIND_PORT(kind);
	fr->split = KIND_SPLIT(kind);
	if (what == K_RAW || what == K_RAW2) {
		size_t len;

		if (size < 3)
			return 0;
		len = RTE_MIN((size_t)(data[1] << 8 | data[2]), size - 3);
		len = RTE_MIN(len, (size_t)MAX_FRAME);
		memcpy(fr->b, data + 3, len);
		fr->len = len;
		used = 3 + len;
	} else if (what != K_AGAIN) {
		const uint8_t *t = data + 1;
		struct tpl p;
		size_t plen;

		if (size < 1 + T_FIELDS)
			return 0;
		plen = RTE_MIN((size_t)t[T_PAYLOAD], size - 1 - T_FIELDS);
		tpl_resolve(what, t, &p);
		fr->len = tpl_build(fr, &p, t + T_FIELDS, plen, (uint16_t)(idx + 1));
		used = 1 + T_FIELDS + plen;
	}
	if (kind & KIND_AGE)
		dp_relay_clock_advance(AGE_S);
	last_frame = *fr;
	have_last = true;
	inject(fr);
	batch_n++;
	if (!(kind & KIND_HOLD))
		walk_batch();
	return used;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int idx;
	size_t off = 0;

	/* what earlier inputs left expires, and the sweep (one in RELAY_TICK_CALLS walks)
	 * frees it: this input's outcome is its own */
	dp_relay_clock_advance(AGE_S);
	dp_graph_worker_run(dp_workers[0], RELAY_TICK_CALLS);
	nb_echoes = 0;
	have_last = false;
	batch_n = 0;
	for (idx = 0; idx < MAX_RECORDS && off < size; idx++) {
		size_t used = record_take(data + off, size - off, idx);

		if (used == 0)
			break;
		off += used;
	}
	walk_batch();
	leak_check();
	return 0;
}
