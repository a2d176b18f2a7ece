/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local delivery by registration (src/fwd/dp_fwd_local.h), on the ring rig: a
 * service of this test's own (nodes test_svc4 / test_svc6, which keep what
 * they get) registers, claims UDP ports and takes fragments, and the graph
 * delivers to it; a port nobody claimed is the counted drop ip4_local (ip6_local
 * over IPv6); a port another service holds cannot be claimed.
 */
#include <stdio.h>
#include <string.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_config.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_test.h"
#include "ring_rig.h"

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "[mempool]\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_l0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "ip6 = 2001:db8:10::1/64\n"
				  "[port1]\n"
				  "dev = net_ring_l1\n"
				  "ip4 = 198.18.101.1/24\n"
				  "[lcores]\n"
				  "rx = (0,0,1)\n";

static struct ring_rig rig = {
	.name = "local",
	.prefix = 'l',
	.nb_ports = 2,
	.config_text = config_text,
};

/* What the test service's nodes received: the UDP destination port of each. */
static struct {
	unsigned int n4, n6;
	uint16_t port4[64], port6[64];
	unsigned int frags4;
	char node4[RTE_NODE_NAMESIZE]; /**< the IPv4 node that got the last datagram */
} got;

static uint16_t
test_svc_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	const bool v6 = strcmp(node->name, "test_svc6") == 0;
	uint16_t i;

	RTE_SET_USED(graph);
	for (i = 0; i < n; i++) {
		const uint8_t *l3 = rte_pktmbuf_mtod_offset(
			(struct rte_mbuf *)objs[i], const uint8_t *, RTE_ETHER_HDR_LEN);

		if (v6) {
			if (got.n6 < RTE_DIM(got.port6))
				got.port6[got.n6++] = (uint16_t)(l3[40 + 2] << 8 | l3[40 + 3]);
		} else if (l3[6] & 0x3f) { /* MF or an offset: a fragment */
			got.frags4++;
		} else if (got.n4 < RTE_DIM(got.port4)) {
			got.port4[got.n4++] = (uint16_t)(l3[20 + 2] << 8 | l3[20 + 3]);
			snprintf(got.node4, sizeof(got.node4), "%s", node->name);
		}
	}
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	return n;
}

static struct rte_node_register test_svc4_node = {
	.name = "test_svc4",
	.process = test_svc_process,
};
RTE_NODE_REGISTER(test_svc4_node);

static struct rte_node_register test_svc6_node = {
	.name = "test_svc6",
	.process = test_svc_process,
};
RTE_NODE_REGISTER(test_svc6_node);

static struct rte_node_register other_svc4_node = {
	.name = "other_svc4",
	.process = test_svc_process,
};
RTE_NODE_REGISTER(other_svc4_node);

static struct rte_node_register other_svc6_node = {
	.name = "other_svc6",
	.process = test_svc_process,
};
RTE_NODE_REGISTER(other_svc6_node);

static int svc, other;

/* A UDP datagram from a host on port0's link to the router's address and @p dport. */
static size_t
datagram(uint8_t *f, bool v6, uint16_t dport)
{
	static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x10, [15] = 2 };
	static const uint8_t dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x10, [15] = 1 };
	struct dp_pkt_spec s;
	size_t len = 0;

	dp_pkt_spec_init(&s);
	memcpy(s.dst_mac, &dp_ports[0].mac, 6);
	if (v6) {
		s.ip_version = 6;
		memcpy(s.src_ip6, src6, 16);
		memcpy(s.dst_ip6, dst6, 16);
		s.frame_len = 82;
	} else {
		s.src_ip4 = 0xc6120002; /* 198.18.0.2 */
		s.dst_ip4 = 0xc6120001; /* 198.18.0.1 */
	}
	s.sport = 4000;
	s.dport = dport;
	CU_ASSERT_FATAL(dp_pkt_build(&s, f, 256, &len) == 0);
	return len;
}

static void
send_one(bool v6, uint16_t dport)
{
	uint8_t f[256];
	size_t len = datagram(f, v6, dport);

	ring_rig_inject(&rig, 0, f, len);
	dp_graph_worker_run(dp_workers[0], 4);
}

static void
test_local_datagram_to_a_claimed_port_reaches_its_node(void)
{
	memset(&got, 0, sizeof(got));
	ring_rig_drops_mark(&rig);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_claim(false, 7777, 7777, (uint8_t)svc), 0);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_claim(true, 7000, 7009, (uint8_t)svc), 0);
	send_one(false, 7777);
	send_one(true, 7005);
	CU_ASSERT_EQUAL(got.n4, 1);
	CU_ASSERT_EQUAL(got.port4[0], 7777);
	CU_ASSERT_STRING_EQUAL(got.node4, "test_svc4");
	CU_ASSERT_EQUAL(got.n6, 1);
	CU_ASSERT_EQUAL(got.port6[0], 7005);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	/* a claim is per family: 7777 over IPv6 is nobody's */
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(true, 7777), 0);
}

static uint64_t
node_pkts(const char *name)
{
	struct rte_node *n = rte_graph_node_get_by_name(dp_workers[0]->graph->name, name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	return n->total_objs;
}

/* ip4_fwd and ip6_fwd alike hand a datagram to a claimed port straight to its
 * service: neither ip4_local nor ip6_local sees it. */
static void
test_local_datagram_goes_from_ip4_fwd_and_ip6_fwd_to_its_node(void)
{
	const uint64_t l4 = node_pkts("ip4_local"), l6 = node_pkts("ip6_local");
	const uint64_t s4 = node_pkts("test_svc4"), s6 = node_pkts("test_svc6");

	memset(&got, 0, sizeof(got));
	CU_ASSERT_EQUAL(dp_fwd_local_udp_claim(false, 7777, 7777, (uint8_t)svc), 0);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_claim(true, 7000, 7009, (uint8_t)svc), 0);
	send_one(false, 7777);
	send_one(true, 7001);
	CU_ASSERT_EQUAL(got.n4, 1);
	CU_ASSERT_EQUAL(got.n6, 1);
	CU_ASSERT_EQUAL(node_pkts("test_svc4"), s4 + 1);
	CU_ASSERT_EQUAL(node_pkts("test_svc6"), s6 + 1);
	CU_ASSERT_EQUAL(node_pkts("ip4_local"), l4);
	CU_ASSERT_EQUAL(node_pkts("ip6_local"), l6);
}

static void
test_local_datagram_to_an_unclaimed_port_is_a_counted_drop(void)
{
	memset(&got, 0, sizeof(got));
	ring_rig_drops_mark(&rig);
	send_one(false, 7778);
	send_one(true, 7010);
	CU_ASSERT_EQUAL(got.n4 + got.n6, 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_IP4_LOCAL), 1);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_IP6_LOCAL), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 2);
}

static void
test_local_port_of_another_service_cannot_be_claimed(void)
{
	/* one port of the range is svc's: nothing of the range is claimed */
	CU_ASSERT_EQUAL(dp_fwd_local_udp_claim(false, 7770, 7777, (uint8_t)other), -EADDRINUSE);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(false, 7770), 0);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(false, 7777), svc);
	/* another service's release leaves svc's port alone */
	dp_fwd_local_udp_release(false, 7770, 7777, (uint8_t)other);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(false, 7777), svc);
	/* an unregistered number is refused */
	CU_ASSERT_EQUAL(dp_fwd_local_udp_claim(false, 9000, 9000, DP_FWD_LOCAL_SVC_MAX), -EINVAL);
	/* released, the port goes to the other service's node */
	dp_fwd_local_udp_release(false, 7777, 7777, (uint8_t)svc);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_claim(false, 7777, 7777, (uint8_t)other), 0);
	memset(&got, 0, sizeof(got));
	ring_rig_drops_mark(&rig);
	send_one(false, 7777);
	CU_ASSERT_EQUAL(got.n4, 1);
	CU_ASSERT_STRING_EQUAL(got.node4, "other_svc4");
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	dp_fwd_local_udp_release(false, 7777, 7777, (uint8_t)other);
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(false, 7777), 0);
	/* registration is idempotent by name: the same number again */
	CU_ASSERT_EQUAL(dp_fwd_local_service_add("test_svc4", "test_svc6"), svc);
	CU_ASSERT_EQUAL(dp_fwd_local_service_add("no_such_node", "test_svc6"), -EINVAL);
}

static void
test_local_fragments_go_to_the_service_that_takes_them(void)
{
	uint8_t f[256];
	size_t len = datagram(f, false, 7777);
	uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	uint16_t ck;

	/* more fragments: the first of a datagram */
	ip[6] |= 0x20;
	ip[10] = ip[11] = 0;
	ck = dp_pkt_cksum(ip, 20);
	memcpy(ip + 10, &ck, 2);
	memset(&got, 0, sizeof(got));
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, f, len);
	dp_graph_worker_run(dp_workers[0], 4);
	CU_ASSERT_EQUAL(got.frags4, 0);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_IP4_FRAG_LOCAL), 1);
	dp_fwd_local_frag_set(false, (uint8_t)svc);
	ring_rig_inject(&rig, 0, f, len);
	dp_graph_worker_run(dp_workers[0], 4);
	CU_ASSERT_EQUAL(got.frags4, 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);
	dp_fwd_local_frag_set(false, 0);
}

static int
suite_init(void)
{
	/* before the graphs are made: the nodes become edges of ip4_fwd and friends */
	svc = dp_fwd_local_service_add("test_svc4", "test_svc6");
	other = dp_fwd_local_service_add("other_svc4", "other_svc6");
	if (svc <= 0 || other <= 0 || svc == other) {
		fprintf(stderr, "local: service_add %d %d\n", svc, other);
		return -1;
	}
	return ring_rig_setup(&rig);
}

static int
suite_cleanup(void)
{
	ring_rig_cleanup(&rig);
	return 0;
}

static const struct dp_test tests[] = {
	{ "test_local_datagram_to_a_claimed_port_reaches_its_node",
		test_local_datagram_to_a_claimed_port_reaches_its_node },
	{ "test_local_datagram_goes_from_ip4_fwd_and_ip6_fwd_to_its_node",
		test_local_datagram_goes_from_ip4_fwd_and_ip6_fwd_to_its_node },
	{ "test_local_datagram_to_an_unclaimed_port_is_a_counted_drop",
		test_local_datagram_to_an_unclaimed_port_is_a_counted_drop },
	{ "test_local_port_of_another_service_cannot_be_claimed",
		test_local_port_of_another_service_cannot_be_claimed },
	{ "test_local_fragments_go_to_the_service_that_takes_them",
		test_local_fragments_go_to_the_service_that_takes_them },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("local", tests, suite_init, suite_cleanup);
}
