/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exception path in one process (tests/ring_rig.c: two net_ring ports, one
 * worker walked on the test thread, which is also the control lcore), with
 * [linux] on in a network namespace of the test's own (unshare(), so that the
 * mirrors never touch the host's): UDP to port0's address on a port no service
 * claimed comes out of the mirror lcpt0 byte for byte (but for the destination
 * MAC: net_ring ports have none, the mirror has its own), and one tagged for
 * sub-interface 0.100 out of its mirror lcpt0.100 untagged; Linux's answers (its ARP
 * request for the sender) leave through port0; a worker that punts faster than
 * the control lcore polls fills its punt ring, and the rest are linux_punt_full.
 * OSPF's hellos to 224.0.0.5 and ff02::5, in multicast frames, come out of the
 * mirror too. After a netlink overrun, routes changed while the kernel dropped its
 * notifications end right in dpfwd's table. A resync of a table that did not change
 * makes nothing (the live tables stay the same objects); one with a route changed behind
 * netlink's back puts the kernel's back in place.
 *
 *   host 198.18.0.2 --- port0 198.18.0.1/24 (lcpt0)   port1 198.18.101.1/24 (lcpt1)
 *   host 198.18.100.2 -- port0.100 198.18.100.1/24 (lcpt0.100)
 *
 * Exit 77 (skipped) where a namespace cannot be made (not root).
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_ctl.h"
#include "dp_drop.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_graph.h"
#include "dp_port.h"
#include "dp_test.h"
#include "linuxcp_priv.h"
#include "ring_rig.h"

#define IP_PORT0 0xc6120001u /* 198.18.0.1 */
#define IP_HOST  0xc6120002u /* 198.18.0.2 */
#define UDP_PORT 5000        /* claimed by no service */

static const uint8_t host_mac[6] = { 0x02, 0x11, 0, 0, 0, 0x02 };

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "[mempool]\n"
				  "size = 8192\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_l0\n"

				  "ip4 = 198.18.0.1/24\n"
				  "ip6 = 2001:db8:0:1::1/64\n"
				  "[port0.100]\n"
				  "ip4 = 198.18.100.1/24\n"
				  "[port1]\n"
				  "dev = net_ring_l1\n"

				  "ip4 = 198.18.101.1/24\n"
				  "[lcores]\n"
				  "rx = (0,0,1), (1,0,1)\n"
				  "[neighbors]\n"
				  "neigh = 198.18.0.2 lladdr 02:11:00:00:00:02 port 0\n"
				  "[routes]\n"
				  "ip4_max = 4096\n"
				  "[linux]\n"
				  "enabled = on\n"
				  "names = lcpt%u\n";

static struct ring_rig rig = {
	.name = "linuxcp",
	.prefix = 'l',
	.nb_ports = 2,
	.config_text = config_text,
};

static size_t
udp_to_router(uint8_t *f, uint16_t sport)
{
	size_t len = ring_rig_udp4(f, 0, host_mac, IP_HOST, IP_PORT0, sport);
	uint8_t *udp = f + RTE_ETHER_HDR_LEN + 20;

	/* the destination port; the UDP checksum to 0 (none, RFC 768) */
	udp[2] = UDP_PORT >> 8;
	udp[3] = UDP_PORT & 0xff;
	udp[6] = udp[7] = 0;
	return len;
}

/* a packet socket on mirror @p name: what the kernel receives there */
static int
mirror_socket_on(const char *name)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));

	sll.sll_ifindex = (int)if_nametoindex(name);
	if (fd < 0 || sll.sll_ifindex == 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* a packet socket on mirror lcpt0 */
static int
mirror_socket(void)
{
	return mirror_socket_on("lcpt0");
}

/* rounds of the rig (walk, control lcore, walk), 2 ms apart: the control lcore's timers run */
static void
steps(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ring_rig_step();
		usleep(2000);
	}
}

/*
 * Rounds of the rig (up to 200) until mirror socket @p fd gives frame @p f (@p len bytes,
 * untagged) back as sent but to the mirror's MAC (net_ring ports have none).
 */
static bool
mirror_sees(int fd, const uint8_t *f, size_t len)
{
	uint8_t got[2048];
	unsigned int i;

	for (i = 0; i < 200; i++) {
		ssize_t n;

		steps(1);
		while ((n = recv(fd, got, sizeof(got), 0)) > 0)
			if ((size_t)n >= len - 4 && memcmp(got + 6, f + 6, len - 10) == 0)
				return true;
	}
	return false;
}

static void
test_linuxcp_udp_to_the_router_comes_out_of_the_mirror(void)
{
	uint8_t f[2048];
	const size_t len = udp_to_router(f, 1234);
	const int fd = mirror_socket();
	bool seen;

	CU_ASSERT_FATAL(fd >= 0);
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, f, len);
	seen = mirror_sees(fd, f, len);
	close(fd);
	CU_ASSERT_TRUE(seen);
	CU_ASSERT_EQUAL(ring_rig_graph_drops_total(&rig), 0);
}

/*
 * The same datagram from 198.18.100.2 to sub-interface 0.100's address, tagged VLAN 100
 * (IEEE 802.1Q 9.3, written here by hand): it comes out of the sub-interface's mirror
 * lcpt0.100 untagged, the sender's MAC and the rest as the untagged frame has them.
 */
static void
test_linuxcp_tagged_udp_comes_out_of_the_sub_interface_mirror_untagged(void)
{
	uint8_t f[2048], tagged[2048];
	size_t len = ring_rig_udp4(f, 0, host_mac, 0xc6126402u, 0xc6126401u, 1236);
	const int fd = mirror_socket_on("lcpt0.100");
	uint8_t *udp = f + RTE_ETHER_HDR_LEN + 20;
	bool seen;

	CU_ASSERT_FATAL(fd >= 0);
	udp[2] = UDP_PORT >> 8;
	udp[3] = UDP_PORT & 0xff;
	udp[6] = udp[7] = 0;
	memcpy(tagged, f, 12);
	tagged[12] = 0x81;
	tagged[13] = 0x00;
	tagged[14] = 0;
	tagged[15] = 100;
	memcpy(tagged + 16, f + 12, len - 12);
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, tagged, len + 4);
	seen = mirror_sees(fd, f, len);
	close(fd);
	CU_ASSERT_TRUE(seen);
	CU_ASSERT_EQUAL(ring_rig_graph_drops_total(&rig), 0);
}

/* Linux answers the datagram (ICMP port unreachable), and first asks for 198.18.0.2 */
static void
test_linuxcp_what_linux_sends_leaves_through_the_port(void)
{
	uint8_t f[2048];
	struct rte_mbuf *out[64];
	bool arp_seen = false;
	unsigned int i, n, k;

	/* what port0 sent since the test before is looked at too: the first datagram's ARP */
	ring_rig_inject(&rig, 0, f, udp_to_router(f, 1235));
	for (i = 0; i < 500 && !arp_seen; i++) {
		steps(1);
		while ((n = ring_rig_drain(&rig, 0, out, 64)) > 0) {
			for (k = 0; k < n; k++) {
				const struct rte_ether_hdr *eth =
					rte_pktmbuf_mtod(out[k], const struct rte_ether_hdr *);
				const struct rte_arp_hdr *arp = (const void *)(eth + 1);

				if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP) &&
					arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST) &&
					arp->arp_data.arp_sip == rte_cpu_to_be_32(IP_PORT0) &&
					arp->arp_data.arp_tip == rte_cpu_to_be_32(IP_HOST))
					arp_seen = true;
			}
			rte_pktmbuf_free_bulk(out, n);
		}
	}
	CU_ASSERT_TRUE(arp_seen);
}

/* An OSPF packet (protocol 89) from the host to 224.0.0.5 (AllSPFRouters, RFC 2328 A.1),
 * in a frame to its group's MAC; @p body: the bytes after the header */
static size_t
ospf4_hello(uint8_t *f, uint8_t body)
{
	static const uint8_t group_mac[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x05 };
	size_t len = ring_rig_udp4(f, 0, host_mac, IP_HOST, 0xe0000005u, 1234);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);

	memcpy(f, group_mac, sizeof(group_mac));
	ip->next_proto_id = 89;
	ip->time_to_live = 1;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	memset(ip + 1, body, len - RTE_ETHER_HDR_LEN - sizeof(*ip));
	return len;
}

/* An OSPFv3 packet from fe80::11 to ff02::5 (RFC 5340 A.1), in a frame to 33:33:0:0:0:5 */
static size_t
ospf6_hello(uint8_t *f, uint8_t body)
{
	static const uint8_t src[16] = { 0xfe, 0x80, [15] = 0x11 };
	static const uint8_t dst[16] = { 0xff, 0x02, [15] = 0x05 };
	static const uint8_t group_mac[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x05 };
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + RTE_ETHER_HDR_LEN);
	const uint16_t plen = 24;

	memcpy(f, group_mac, sizeof(group_mac));
	memcpy(f + 6, host_mac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = rte_cpu_to_be_32(0x60000000u);
	ip->payload_len = rte_cpu_to_be_16(plen);
	ip->proto = 89;
	ip->hop_limits = 1;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	memset(ip + 1, body, plen);
	return RTE_ETHER_HDR_LEN + sizeof(*ip) + plen;
}

/* Linux is in OSPF's groups, dpfwd is not: the hellos go up to the mirror as they came */
static void
test_linuxcp_ospf_hellos_to_their_groups_come_out_of_the_mirror(void)
{
	uint8_t f4[2048], f6[2048], got[2048];
	const size_t len4 = ospf4_hello(f4, 0x44), len6 = ospf6_hello(f6, 0x66);
	const int fd = mirror_socket();
	bool seen4 = false, seen6 = false;
	unsigned int i;

	CU_ASSERT_FATAL(fd >= 0);
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, f4, len4);
	ring_rig_inject(&rig, 0, f6, len6);
	for (i = 0; i < 200 && !(seen4 && seen6); i++) {
		ssize_t n;

		steps(1);
		while ((n = recv(fd, got, sizeof(got), 0)) > 0) {
			if ((size_t)n >= len4 && memcmp(got, f4, len4) == 0)
				seen4 = true;
			if ((size_t)n >= len6 && memcmp(got, f6, len6) == 0)
				seen6 = true;
		}
	}
	close(fd);
	CU_ASSERT_TRUE(seen4);
	CU_ASSERT_TRUE(seen6);
	CU_ASSERT_EQUAL(ring_rig_graph_drops_total(&rig), 0);
}

/*
 * The control lcore does not poll while 1100 datagrams to the router arrive: the
 * punt ring takes what it holds (one slot kept empty by rte_ring), the rest are
 * linux_punt_full. Then the control lcore writes what it got to the mirror.
 */
static void
test_linuxcp_punt_ring_full_counts_linux_punt_full(void)
{
	const unsigned int sent = 1100, fits = DP_CTL_RING_SIZE - 1;
	uint8_t f[2048];
	unsigned int i;

	ring_rig_flush_drain_all(&rig);
	steps(5);
	ring_rig_flush_drain_all(&rig);
	ring_rig_drops_mark(&rig);
	/* in two rounds: port0's RX ring holds 1023 */
	for (i = 0; i < sent; i++) {
		ring_rig_inject(&rig, 0, f, udp_to_router(f, (uint16_t)(2000 + i)));
		if (i == 999 || i == sent - 1) {
			dp_graph_worker_run(dp_workers[0], 64);
			dp_graph_worker_flush(dp_workers[0]);
		}
	}
	CU_ASSERT_EQUAL(ring_rig_graph_dropped(&rig, DP_DROP_LINUX_PUNT_FULL), sent - fits);
	steps(2 * fits / 64);
	CU_ASSERT_EQUAL(ring_rig_graph_dropped(&rig, DP_DROP_LINUX_TAP_FULL) +
				ring_rig_graph_dropped(&rig, DP_DROP_LINUX_NO_TAP),
		0);
	ring_rig_flush_drain_all(&rig);
}

/* steps() for routes from netlink: the worker, walked on this thread, taken offline before
 * the control lcore's turn (its route changes wait for the workers' RCU quiescence) */
static void
route_steps(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		dp_graph_worker_run(dp_workers[0], 4);
		dp_graph_worker_flush(dp_workers[0]);
		ring_rig_rcu_offline();
		dp_ctl_poll(dp_ctl_now_ms());
		usleep(2000);
	}
}

/* `ip -batch` of @p nb route commands "route VERB 172.B.x.y/32 ...", B = @p second */
static void
routes_batch(const char *verb, unsigned int second, unsigned int nb)
{
	char path[] = "/tmp/lcp_rig_routesXXXXXX", cmd[128];
	const int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	unsigned int i;

	CU_ASSERT_FATAL(f != NULL);
	for (i = 0; i < nb; i++)
		fprintf(f, "route %s 172.%u.%u.%u/32%s\n", verb, second, i / 250, i % 250 + 1,
			verb[0] == 'a' ? " via 198.18.101.2 dev lcpt1" : "");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "ip -batch %s", path);
	CU_ASSERT_EQUAL(system(cmd), 0);
	unlink(path);
}

/*
 * The kernel reports an overrun of the netlink socket (ENOBUFS) once, then drops every
 * notification without a word until the socket was emptied. A route 10.0.0.0/24 deleted
 * in that time, after the reads have gone past the start of the table, must still leave
 * dpfwd, and the routes of a second burst that were dropped must arrive: the resync's
 * dump has to come after the socket was emptied, not at the ENOBUFS.
 */
static void
test_linuxcp_changes_dropped_after_an_overrun_are_caught_up(void)
{
	const unsigned int nb = 800;
	const uint32_t last = 0xac110000u | (nb - 1) / 250 << 8 | ((nb - 1) % 250 + 1);
	unsigned int i;

	CU_ASSERT_FATAL(system("ip route add 10.0.0.0/24 via 198.18.101.2 dev lcpt1") == 0);
	for (i = 0; i < 200 && dp_fwd_lookup4(0x0a000001u) == DP_FWD_NO_ROUTE; i++)
		route_steps(1);
	CU_ASSERT_FATAL(dp_fwd_lookup4(0x0a000001u) != DP_FWD_NO_ROUTE);
	routes_batch("add", 16, nb); /* more than the socket holds: an overrun */
	route_steps(1);              /* ENOBUFS read, the socket still full */
	routes_batch("add", 17, nb); /* dropped without a word */
	route_steps(3);              /* some of what the socket holds read */
	CU_ASSERT_FATAL(system("ip route del 10.0.0.0/24") == 0);
	for (i = 0; i < 1500 && (dp_fwd_lookup4(0x0a000001u) != DP_FWD_NO_ROUTE ||
					dp_fwd_lookup4(last) == DP_FWD_NO_ROUTE);
		i++)
		route_steps(1);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0x0a000001u), DP_FWD_NO_ROUTE);
	CU_ASSERT_NOT_EQUAL(dp_fwd_lookup4(last), DP_FWD_NO_ROUTE);
	routes_batch("del", 16, nb);
	routes_batch("del", 17, nb);
	route_steps(200);
}

/* route_steps() until a resync asked now has counted @p nb more routes as dpfwd had them */
static void
resync_until_unchanged(uint64_t nb)
{
	const uint64_t want = lcp_stats.routes_unchanged + nb;
	const uint64_t dumps = lcp_stats.dumps;
	unsigned int i;

	lcp_nl_resync();
	for (i = 0; i < 1000 && (lcp_stats.routes_unchanged < want || lcp_stats.dumps == dumps);
		i++)
		route_steps(1);
	CU_ASSERT_EQUAL(lcp_stats.dumps, dumps + 1);
	CU_ASSERT(lcp_stats.routes_unchanged >= want);
}

/*
 * A resync dumps the kernel's routes again. Where dpfwd has them all already, nothing is
 * made: no copy of either table (the live ones are the same objects after it), nothing
 * counted added. A route dpfwd changed behind netlink's back (a user's route add over a
 * kernel prefix) and one it deleted come back as the kernel has them, in place.
 */
static void
test_linuxcp_resync_of_an_unchanged_table_makes_nothing(void)
{
	const unsigned int nb = 40;
	const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x77, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	const void *fib4, *fib6;
	uint32_t nh_port1, nh6;
	uint64_t added;
	char err[256];
	unsigned int i;

	routes_batch("add", 20, nb); /* 172.20.0.1/32 ... via 198.18.101.2 dev lcpt1 */
	CU_ASSERT_FATAL(
		system("ip -6 route add 2001:db8:77::/48 via 2001:db8:0:1::2 dev lcpt0") == 0);
	for (i = 0; i < 500 && (dp_fwd_lookup4(0xac140000u | (nb - 1)) == DP_FWD_NO_ROUTE ||
				       dp_fwd_lookup6(a6) == DP_FWD_NO_ROUTE6);
		i++)
		route_steps(1);
	nh_port1 = dp_fwd_lookup4(0xac140001u);
	nh6 = dp_fwd_lookup6(a6);
	CU_ASSERT_FATAL(nh_port1 != DP_FWD_NO_ROUTE && nh6 != DP_FWD_NO_ROUTE6);
	route_steps(20); /* the rest of the burst: nothing pending */

	fib4 = dp_fwd.ip4.fib;
	fib6 = dp_fwd_ip6.fib;
	added = lcp_stats.routes_added;
	resync_until_unchanged(nb + 1);
	CU_ASSERT_PTR_EQUAL(dp_fwd.ip4.fib, fib4);
	CU_ASSERT_PTR_EQUAL(dp_fwd_ip6.fib, fib6);
	CU_ASSERT_EQUAL(lcp_stats.routes_added, added);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xac140001u), nh_port1);
	CU_ASSERT_EQUAL(dp_fwd_lookup6(a6), nh6);

	/* behind netlink's back: one route out of port 0 instead, one deleted */
	CU_ASSERT_EQUAL(
		ring_rig_route(true, "172.20.0.3/32 via 198.18.0.2 port 0", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ring_rig_route(false, "172.20.0.4/32", err, sizeof(err)), 0);
	CU_ASSERT_NOT_EQUAL(dp_fwd_lookup4(0xac140003u), nh_port1);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xac140004u), DP_FWD_NO_ROUTE);
	fib4 = dp_fwd.ip4.fib;
	added = lcp_stats.routes_added;
	resync_until_unchanged(nb + 1 - 2);
	CU_ASSERT_EQUAL(lcp_stats.routes_added, added + 2);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xac140003u), nh_port1);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(0xac140004u), nh_port1);
	CU_ASSERT_PTR_EQUAL(dp_fwd.ip4.fib, fib4); /* two changes: made in place */

	routes_batch("del", 20, nb);
	CU_ASSERT(system("ip -6 route del 2001:db8:77::/48") == 0);
	route_steps(100);
}

static const struct dp_test tests[] = {
	{ "test_linuxcp_udp_to_the_router_comes_out_of_the_mirror",
		test_linuxcp_udp_to_the_router_comes_out_of_the_mirror },
	{ "test_linuxcp_tagged_udp_comes_out_of_the_sub_interface_mirror_untagged",
		test_linuxcp_tagged_udp_comes_out_of_the_sub_interface_mirror_untagged },
	{ "test_linuxcp_what_linux_sends_leaves_through_the_port",
		test_linuxcp_what_linux_sends_leaves_through_the_port },
	{ "test_linuxcp_ospf_hellos_to_their_groups_come_out_of_the_mirror",
		test_linuxcp_ospf_hellos_to_their_groups_come_out_of_the_mirror },
	{ "test_linuxcp_punt_ring_full_counts_linux_punt_full",
		test_linuxcp_punt_ring_full_counts_linux_punt_full },
	{ "test_linuxcp_changes_dropped_after_an_overrun_are_caught_up",
		test_linuxcp_changes_dropped_after_an_overrun_are_caught_up },
	{ "test_linuxcp_resync_of_an_unchanged_table_makes_nothing",
		test_linuxcp_resync_of_an_unchanged_table_makes_nothing },
	{ NULL, NULL },
};

int
main(void)
{
	if (unshare(CLONE_NEWNET) < 0) {
		printf("SKIP: linuxcp_rig: no network namespace of its own: %s\n", strerror(errno));
		return 77;
	}
	return ring_rig_run(&rig, "linuxcp_rig", tests);
}
