/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 routes in rte_fib (src/fwd/fwd.c, route.c): a generated table of 200k
 * prefixes loaded from a route file (its load time is logged), lookups of
 * sampled prefixes against a reference longest-prefix match, single adds and
 * deletes (in place, or in a copy where DPDK 22.11's dir24_8 cannot change
 * the live table safely), reloads (good and bad), and route changes while
 * another lcore looks up addresses whose answer must never change.
 *
 * The reference: every generated prefix in a hash of (prefix, length); the
 * longest match of an address is the first hit from /32 down to /0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>

#include "dp_config.h"
#include "dp_fwd.h"
#include "dp_fwd_config.h"
#include "dp_graph.h"
#include "dp_neigh.h"
#include "dp_test.h"
#include "ring_rig.h"

#define NB_ROUTES 200000
#define NB_GW     16 /* gateways 198.18.101.2 .. 198.18.101.17 on port 1 */
#define GW(k)     (0xc6126502u + (k))
#define REF_SLOTS (1u << 19) /* open addressing, load < 0.4 */
#define SAMPLES   20000

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static char route_file[128];
static char config_text[1024];

static struct ring_rig rig = {
	.name = "route",
	.prefix = 'r',
	.nb_ports = 2,
	.mem_mb = "1024", /* two 200k tables at once during a reload */
	.config_text = config_text,
};

/* ---- the generated table and its reference ---- */

static uint64_t rng_state = 88172645463325252ull;

static uint32_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static uint64_t ref_key[REF_SLOTS]; /* prefix << 8 | plen, + 1 (0 = empty) */
static uint8_t ref_gw[REF_SLOTS];
static uint32_t gen_prefix[NB_ROUTES];
static uint8_t gen_plen[NB_ROUTES];

static uint32_t
mask(uint8_t plen)
{
	return plen == 0 ? 0 : ~0u << (32 - plen);
}

static uint32_t
ref_slot(uint32_t prefix, uint8_t plen)
{
	const uint64_t key = ((uint64_t)prefix << 8 | plen) + 1;
	uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 45) & (REF_SLOTS - 1);

	while (ref_key[h] != 0 && ref_key[h] != key)
		h = (h + 1) & (REF_SLOTS - 1);
	return h;
}

/* Longest match: the gateway index, or -1. */
static int
ref_lookup(uint32_t a)
{
	int plen;

	for (plen = 32; plen >= 0; plen--) {
		uint32_t h = ref_slot(a & mask((uint8_t)plen), (uint8_t)plen);

		if (ref_key[h] != 0)
			return ref_gw[h];
	}
	return -1;
}

/* As scripts/gen-routes.py: 60% /24, 38% /16../23, 2% /25../32, none in reserved space. */
static bool
reserved(uint32_t first, uint32_t last)
{
	static const uint32_t nets[][2] = {
		{ IP(0, 0, 0, 0), 8 },
		{ IP(10, 0, 0, 0), 8 },
		{ IP(127, 0, 0, 0), 8 },
		{ IP(169, 254, 0, 0), 16 },
		{ IP(172, 16, 0, 0), 12 },
		{ IP(192, 168, 0, 0), 16 },
		{ IP(198, 18, 0, 0), 15 },
		{ IP(224, 0, 0, 0), 3 },
		{ IP(100, 64, 0, 0), 10 },
	};
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(nets); i++) {
		uint32_t lo = nets[i][0], hi = lo | ~mask((uint8_t)nets[i][1]);

		if (first <= hi && lo <= last)
			return true;
	}
	return false;
}

static int
write_routes(const char *path)
{
	FILE *f = fopen(path, "w");
	uint32_t n = 0;

	if (f == NULL)
		return -1;
	fprintf(f, "# %u generated routes (tests/unit/fwd/test_route.c)\n", NB_ROUTES);
	while (n < NB_ROUTES) {
		uint32_t x = rnd() % 100, a, h, k;
		uint8_t plen = x < 60 ? 24 : (uint8_t)(x < 98 ? 16 + rnd() % 8 : 25 + rnd() % 8);

		a = ((1u << 24) + rnd() % ((224u << 24) - (1u << 24))) & mask(plen);
		if (reserved(a, a | ~mask(plen)))
			continue;
		h = ref_slot(a, plen);
		if (ref_key[h] != 0)
			continue;
		k = rnd() % NB_GW;
		ref_key[h] = ((uint64_t)a << 8 | plen) + 1;
		ref_gw[h] = (uint8_t)k;
		gen_prefix[n] = a;
		gen_plen[n] = plen;
		n++;
		fprintf(f, "%u.%u.%u.%u/%u via 198.18.101.%u port 1\n", a >> 24, (a >> 16) & 255,
			(a >> 8) & 255, a & 255, plen, 2 + k);
	}
	return fclose(f);
}

/* The next hop index of gateway @p k (its neighbor entry). */
static uint32_t
gw_nh(unsigned int k)
{
	uint32_t be = rte_cpu_to_be_32(GW(k));
	int32_t nh = dp_neigh_get(4, (const uint8_t *)&be, 1, false);

	CU_ASSERT_FATAL(nh > 0);
	return (uint32_t)nh;
}

static uint32_t
want_nh(uint32_t a)
{
	int k = ref_lookup(a);

	return k < 0 ? DP_FWD_NO_ROUTE : gw_nh((unsigned int)k);
}

/* Sampled generated prefixes: an address inside each, looked up one by one
 * and in bursts; plus random addresses outside 198.18.0.0/15 (misses too). */
static unsigned int
check_samples(void)
{
	static uint32_t dst[SAMPLES], hop[SAMPLES];
	unsigned int i, bad = 0;

	for (i = 0; i < SAMPLES; i++) {
		uint32_t r = rnd() % NB_ROUTES;

		if (i % 4 == 3) {
			do
				dst[i] = rnd();
			while ((dst[i] >> 17) == (IP(198, 18, 0, 0) >> 17));
		} else {
			dst[i] = gen_prefix[r] | (rnd() & ~mask(gen_plen[r]));
		}
	}
	dp_fwd_lookup4_bulk(dst, hop, SAMPLES);
	for (i = 0; i < SAMPLES; i++) {
		uint32_t want = want_nh(dst[i]);

		if (hop[i] != want || dp_fwd_lookup4(dst[i]) != want) {
			if (bad++ < 5)
				fprintf(stderr, "%08x: got %u/%u, want %u\n", dst[i], hop[i],
					dp_fwd_lookup4(dst[i]), want);
		}
	}
	return bad;
}

/* ---- tests ---- */

static void
test_route_200k_file_loads_and_lookups_are_most_specific(void)
{
	/* the ports' local /32s and connected /24s, the config's route, the file */
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, NB_ROUTES + 5);
	CU_ASSERT_TRUE(dp_fwd.ip4.max_routes >= dp_fwd.ip4.nb_routes);
	CU_ASSERT_TRUE(dp_fwd.ip4.tbl8_used + 2 <= dp_fwd.ip4.tbl8_max);
	CU_ASSERT_EQUAL(check_samples(), 0);
	/* every generated prefix: its first address */
	{
		unsigned int i, bad = 0;

		for (i = 0; i < NB_ROUTES; i++)
			bad += dp_fwd_lookup4(gen_prefix[i]) != want_nh(gen_prefix[i]);
		CU_ASSERT_EQUAL(bad, 0);
	}
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 18, 0, 1)), DP_FWD_NH_LOCAL);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 18, 101, 1)), DP_FWD_NH_LOCAL);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 18, 1, 9)), gw_nh(0));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 0, 1)), DP_FWD_NO_ROUTE);
}

static int
add(const char *text)
{
	char err[256] = "";
	int rc = dp_fwd_route_add(text, err, sizeof(err));

	if (rc < 0)
		fprintf(stderr, "add %s: %s\n", text, err);
	return rc;
}

static int
del(const char *text)
{
	char err[256] = "";

	return dp_fwd_route_del(text, err, sizeof(err));
}

static void
test_route_add_del_replace_keep_most_specific_match(void)
{
	const uint32_t n0 = dp_fwd.ip4.nb_routes;
	const struct rte_fib *live = dp_fwd.ip4.fib;
	char err[256];

	CU_ASSERT_EQUAL(add("198.19.8.0/21 via 198.18.101.3 port 1"), 0);
	CU_ASSERT_EQUAL(add("198.19.9.0/24 via 198.18.101.4 port 1"), 0);
	CU_ASSERT_EQUAL(add("198.19.9.64/26 via 198.18.101.5 port 1"), 0);
	CU_ASSERT_EQUAL(add("198.19.9.77/32 via 198.18.101.6 port 1"), 0);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0 + 4);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 8, 1)), gw_nh(1));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 9, 1)), gw_nh(2));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 9, 65)), gw_nh(3));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 9, 77)), gw_nh(4));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 16, 1)), DP_FWD_NO_ROUTE);
	/* a prefix added again: its next hop is replaced, the count stays */
	CU_ASSERT_EQUAL(add("198.19.9.64/26 via 198.18.101.7 port 1"), 0);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0 + 4);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 9, 65)), gw_nh(5));
	/* deletes uncover the next shorter prefix */
	CU_ASSERT_EQUAL(del("198.19.9.77/32"), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 9, 77)), gw_nh(5));
	CU_ASSERT_EQUAL(del("198.19.9.64/26"), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 9, 77)), gw_nh(2));
	CU_ASSERT_EQUAL(del("198.19.9.0/24"), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 9, 77)), gw_nh(1));
	CU_ASSERT_EQUAL(del("198.19.8.0/21"), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 9, 77)), DP_FWD_NO_ROUTE);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0);
	/* refusals */
	CU_ASSERT_EQUAL(dp_fwd_route_del("198.19.8.0/21", err, sizeof(err)), -ENOENT);
	CU_ASSERT_EQUAL(dp_fwd_route_del("198.18.0.1/32", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "port address"));
	/* a port's address stays the router's own: not replaced by a route */
	CU_ASSERT_EQUAL(dp_fwd_route_add("198.18.0.1/32 via 198.18.101.3 port 1", err, sizeof(err)),
		-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "port address"));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 18, 0, 1)), DP_FWD_NH_LOCAL);
	CU_ASSERT_EQUAL(dp_fwd_route_add("198.19.8.0/21 via 198.18.101.3 port 9", err, sizeof(err)),
		-EINVAL);
	CU_ASSERT_EQUAL(dp_fwd_route_add("198.19.8.0/33 via 198.18.101.3 port 1", err, sizeof(err)),
		-EINVAL);
	/* a default route, then none */
	CU_ASSERT_EQUAL(add("0.0.0.0/0 via 198.18.101.8 port 1"), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 200, 1)), gw_nh(6));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(gen_prefix[7]), want_nh(gen_prefix[7]));
	CU_ASSERT_EQUAL(del("0.0.0.0/0"), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 200, 1)), DP_FWD_NO_ROUTE);
	CU_ASSERT_EQUAL(check_samples(), 0);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0);
	/* none of these needed a copy of the table but the default route's (over
	 * many /24s with and without groups) */
	CU_ASSERT_PTR_NOT_NULL(live);
}

/* One IPv4 change from its fields (dp_fwd_route4_change_of()) made in the live table. */
static int
change_fields(uint32_t prefix, uint8_t plen, uint32_t gw, uint16_t port, bool del)
{
	struct dp_fwd_config_route4 r = {
		.prefix = prefix, .plen = plen, .has_gw = gw != 0, .gw = gw, .port = port
	};
	struct dp_fwd_route4_change c;
	char err[256] = "";
	int rc = dp_fwd_route4_change_of(&r, del, &c, err, sizeof(err));

	return rc < 0 ? rc : dp_fwd_route4_change_make(&c);
}

static void
test_route_change_from_fields_is_the_route_text_s(void)
{
	const uint32_t n0 = dp_fwd.ip4.nb_routes;

	/* the same next hops as the text's: a gateway's neighbor, a port's on-link one */
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 40, 0), 24, GW(1), 1, false), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 1)), gw_nh(1));
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 40, 128), 25, 0, 1, false), 0);
	CU_ASSERT_EQUAL(add("198.19.41.0/24 port 1"), 0);
	CU_ASSERT_NOT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 129)), DP_FWD_NO_ROUTE);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 129)), dp_fwd_lookup4(IP(198, 19, 41, 1)));
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0 + 3);
	/* replaced, the count kept; a /32 inside takes a group */
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 40, 0), 24, GW(2), 1, false), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 1)), gw_nh(2));
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 40, 7), 32, GW(3), 1, false), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 7)), gw_nh(3));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 8)), gw_nh(2));
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0 + 4);
	/* refusals: a port that does not exist, a port's address, a delete of nothing */
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 42, 0), 24, GW(1), 9, false), -EINVAL);
	CU_ASSERT_EQUAL(change_fields(IP(198, 18, 0, 1), 32, GW(1), 1, false), -EINVAL);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 18, 0, 1)), DP_FWD_NH_LOCAL);
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 42, 0), 24, 0, 0, true), -ENOENT);
	/* deletes take the prefix only */
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 40, 7), 32, 0, 0, true), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 7)), gw_nh(2));
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 40, 0), 24, 0, 0, true), 0);
	CU_ASSERT_EQUAL(change_fields(IP(198, 19, 40, 128), 25, 0, 0, true), 0);
	CU_ASSERT_EQUAL(del("198.19.41.0/24"), 0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 1)), DP_FWD_NO_ROUTE);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 40, 129)), DP_FWD_NO_ROUTE);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0);
	CU_ASSERT_EQUAL(check_samples(), 0);
}

static void
test_route_change_over_two_24s_without_group_is_made_in_a_copy(void)
{
	const struct rte_fib *live;
	const uint32_t n0 = dp_fwd.ip4.nb_routes;

	CU_ASSERT_EQUAL(add("198.19.0.0/16 via 198.18.101.2 port 1"), 0);
	/* 198.19.1.0/24 gets a tbl8 group; 198.19.2.0/24 stays uniform (same next hop) */
	CU_ASSERT_EQUAL(add("198.19.1.0/28 via 198.18.101.3 port 1"), 0);
	CU_ASSERT_EQUAL(add("198.19.2.0/28 via 198.18.101.2 port 1"), 0);
	live = dp_fwd.ip4.fib;
	/* /20 over both: dir24_8 could free 198.19.1's group and take one for
	 * 198.19.2 in one call, so the change goes into a copy */
	CU_ASSERT_EQUAL(add("198.19.0.0/20 via 198.18.101.4 port 1"), 0);
	CU_ASSERT_PTR_NOT_EQUAL(dp_fwd.ip4.fib, live);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0 + 4);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 1, 1)), gw_nh(1));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 1, 100)), gw_nh(2));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 2, 1)), gw_nh(0));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 2, 100)), gw_nh(2));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 99, 1)), gw_nh(0));
	CU_ASSERT_EQUAL(check_samples(), 0);
	/* now both /24s have groups: deleting the /20 is done in place */
	live = dp_fwd.ip4.fib;
	CU_ASSERT_EQUAL(del("198.19.0.0/20"), 0);
	CU_ASSERT_PTR_EQUAL(dp_fwd.ip4.fib, live);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 2, 100)), gw_nh(0));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 1, 100)), gw_nh(0));
	CU_ASSERT_EQUAL(del("198.19.1.0/28"), 0);
	CU_ASSERT_EQUAL(del("198.19.2.0/28"), 0);
	CU_ASSERT_EQUAL(del("198.19.0.0/16"), 0);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, n0);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 1, 1)), DP_FWD_NO_ROUTE);
}

static void
test_route_reload_replaces_table_and_bad_file_keeps_it(void)
{
	char path[192], bad[192], err[512] = "";
	const struct rte_fib *live;
	uint64_t t0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/small.ini", rig.tmpdir);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "[port0]\ndev = net_ring_r0\nip4 = 198.18.0.1/24\n[port1]\ndev = net_ring_r1\n"
		   "ip4 = 198.18.101.1/24\n[lcores]\nrx = (0,0,1),(1,0,1)\n[routes]\n"
		   "route = 198.18.1.0/24 via 198.18.101.2 port 1\n"
		   "route = 198.19.5.0/24 via 198.18.101.9 port 1\n"
		   "route = 198.19.4.0/23 via 198.18.101.3 port 1\n"
		   "route = 198.19.5.0/24 via 198.18.101.10 port 1\n");
	fclose(f);
	snprintf(bad, sizeof(bad), "%s/bad.ini", rig.tmpdir);
	f = fopen(bad, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "[port0]\ndev = net_ring_r0\nip4 = 198.18.0.1/24\n[port1]\ndev = net_ring_r1\n"
		   "ip4 = 198.18.101.1/24\n[routes]\nroute = 198.19.6.0/24 via port 1\n");
	fclose(f);

	CU_ASSERT_EQUAL_FATAL(dp_fwd_route_reload(path, err, sizeof(err)), 0);
	/* a prefix given twice: one route, the later line's next hop (file order,
	 * although the routes go in sorted) */
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, 7);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 5, 1)), gw_nh(8));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 4, 1)), gw_nh(1));
	CU_ASSERT_EQUAL(dp_fwd_lookup4(gen_prefix[0]), DP_FWD_NO_ROUTE);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 18, 0, 1)), DP_FWD_NH_LOCAL);
	/* an error names its file and line; the live table stays */
	live = dp_fwd.ip4.fib;
	CU_ASSERT_TRUE(dp_fwd_route_reload(bad, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad.ini:8:"));
	CU_ASSERT_PTR_EQUAL(dp_fwd.ip4.fib, live);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 5, 1)), gw_nh(8));
	/* port addresses change only with a restart: a file that moves one is
	 * refused, naming the port (its first key's line) */
	f = fopen(bad, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "[port0]\ndev = net_ring_r0\nip4 = 198.18.0.1/24\n[port1]\ndev = net_ring_r1\n"
		   "ip4 = 198.18.102.1/24\n[lcores]\nrx = (0,0,1),(1,0,1)\n");
	fclose(f);
	CU_ASSERT_EQUAL(dp_fwd_route_reload(bad, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad.ini:5: port1's ip4 198.18.102.1 is not the running "
					   "198.18.101.1"));
	CU_ASSERT_PTR_EQUAL(dp_fwd.ip4.fib, live);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 18, 101, 1)), DP_FWD_NH_LOCAL);
	/* back to the 200k table */
	t0 = rte_get_tsc_cycles();
	CU_ASSERT_EQUAL_FATAL(dp_fwd_route_reload(rig.cfg_path, err, sizeof(err)), 0);
	printf("\n    reload of %u routes: %.3f s\n", NB_ROUTES,
		(double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz());
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, NB_ROUTES + 5);
	CU_ASSERT_EQUAL(dp_fwd_lookup4(IP(198, 19, 5, 1)), DP_FWD_NO_ROUTE);
	CU_ASSERT_EQUAL(check_samples(), 0);
	/* the rig's temp dir is removed at cleanup only when empty */
	unlink(path);
	unlink(bad);
}

/* ---- changes under a concurrent reader ---- */

#define PROBES 64 /* 16 /24s x 4 addresses whose answer never changes */

static struct {
	uint32_t dst[PROBES];
	uint32_t want[PROBES];
	volatile bool stop;
	uint64_t rounds, wrong, local;
} reader;

static int
reader_main(void *arg)
{
	uint32_t hop[PROBES];
	unsigned int i;

	RTE_SET_USED(arg);
	/* the rig's worker 0 never walks in this test: its reader slot is ours */
	rte_rcu_qsbr_thread_online(dp_graph_qsv, 0);
	while (!reader.stop) {
		dp_fwd_lookup4_bulk(reader.dst, hop, PROBES);
		for (i = 0; i < PROBES; i++) {
			reader.wrong += hop[i] != reader.want[i];
			reader.local += hop[i] == DP_FWD_NH_LOCAL;
		}
		hop[0] = dp_fwd_lookup4(reader.dst[0]);
		reader.wrong += hop[0] != reader.want[0];
		reader.rounds++;
		rte_rcu_qsbr_quiescent(dp_graph_qsv, 0);
	}
	rte_rcu_qsbr_thread_offline(dp_graph_qsv, 0);
	return 0;
}

static void
test_route_changes_under_concurrent_lookups_never_misroute(void)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);
	unsigned int i, j, copies = 0;
	uint64_t t0;
	char text[96];

	CU_ASSERT_FATAL(lcore < RTE_MAX_LCORE && dp_graph_qsv != NULL);
	/* 198.19.128.0/20 via gw 0; probes at .200 .. .203 of each /24 */
	CU_ASSERT_EQUAL_FATAL(add("198.19.128.0/20 via 198.18.101.2 port 1"), 0);
	for (i = 0; i < PROBES; i++) {
		reader.dst[i] = IP(198, 19, 128 + i / 4, 200 + i % 4);
		reader.want[i] = gw_nh(0);
	}
	reader.stop = false;
	CU_ASSERT_EQUAL_FATAL(rte_eal_remote_launch(reader_main, NULL, lcore), 0);
	t0 = rte_get_tsc_cycles();
	/* longer prefixes below .128 come and go: each /24's group is taken,
	 * written, freed (zeroed) and taken again, by another /24 too */
	for (i = 0; i < 400; i++) {
		for (j = 0; j < 16; j++) {
			snprintf(text, sizeof(text), "198.19.%u.%u/%u via 198.18.101.%u port 1",
				128 + j, (i % 4) * 32, 27 + i % 6, 3 + (i + j) % 8);
			CU_ASSERT_EQUAL(add(text), 0);
		}
		for (j = 0; j < 16; j++) {
			snprintf(text, sizeof(text), "198.19.%u.%u/%u", 128 + (j + 5) % 16,
				(i % 4) * 32, 27 + i % 6);
			CU_ASSERT_EQUAL(del(text), 0);
		}
		/* a /22 over /24s with and without groups: in place or in a copy
		 * (both must keep the probes' answer, so it has their next hop) */
		if (i % 200 == 50) {
			const struct rte_fib *live;

			/* .129 gets a group, .130 none (its /32 has the covering next hop) */
			CU_ASSERT_EQUAL(add("198.19.129.0/32 via 198.18.101.5 port 1"), 0);
			CU_ASSERT_EQUAL(add("198.19.130.0/32 via 198.18.101.2 port 1"), 0);
			live = dp_fwd.ip4.fib;
			CU_ASSERT_EQUAL(add("198.19.128.0/22 via 198.18.101.2 port 1"), 0);
			copies += dp_fwd.ip4.fib != live;
			live = dp_fwd.ip4.fib;
			CU_ASSERT_EQUAL(del("198.19.128.0/22"), 0);
			copies += dp_fwd.ip4.fib != live;
			CU_ASSERT_EQUAL(add("198.19.132.0/22 via 198.18.101.2 port 1"), 0);
			CU_ASSERT_EQUAL(del("198.19.132.0/22"), 0);
			CU_ASSERT_EQUAL(del("198.19.129.0/32"), 0);
			CU_ASSERT_EQUAL(del("198.19.130.0/32"), 0);
		}
	}
	reader.stop = true;
	rte_eal_wait_lcore(lcore);
	printf("\n    %u route changes (%u in a copy) in %.2f s beside %" PRIu64
	       " reader rounds: %" PRIu64 " wrong answers, %" PRIu64 " local\n",
		400 * 32 + 2 * 8, copies,
		(double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz(), reader.rounds,
		reader.wrong, reader.local);
	CU_ASSERT_TRUE(reader.rounds > 0);
	CU_ASSERT_EQUAL(copies, 2 * 2);
	CU_ASSERT_EQUAL(reader.wrong, 0);
	CU_ASSERT_EQUAL(reader.local, 0);
	CU_ASSERT_EQUAL(del("198.19.128.0/20"), 0);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, NB_ROUTES + 5);
	CU_ASSERT_EQUAL(check_samples(), 0);
}

/*
 * The same churn, its changes in batches (dp_fwd_route_batch_begin(), as netlink's reads
 * are), which wait for the reader only before a change that may take a tbl8 group an
 * earlier one may have freed: every answer stays right. (The window the wait closes is a
 * reader between its two loads, nanoseconds: a batch without the wait passes too.)
 */
static void
test_route_batched_changes_under_concurrent_lookups_never_misroute(void)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);
	unsigned int i, j;
	char text[96];

	CU_ASSERT_FATAL(lcore < RTE_MAX_LCORE && dp_graph_qsv != NULL);
	CU_ASSERT_EQUAL_FATAL(add("198.19.128.0/20 via 198.18.101.2 port 1"), 0);
	for (i = 0; i < PROBES; i++) {
		reader.dst[i] = IP(198, 19, 128 + i / 4, 200 + i % 4);
		reader.want[i] = gw_nh(0);
	}
	reader.stop = false;
	reader.rounds = reader.wrong = reader.local = 0;
	CU_ASSERT_EQUAL_FATAL(rte_eal_remote_launch(reader_main, NULL, lcore), 0);
	for (i = 0; i < 400; i++) {
		dp_fwd_route_batch_begin();
		for (j = 0; j < 16; j++) {
			snprintf(text, sizeof(text), "198.19.%u.%u/%u via 198.18.101.%u port 1",
				128 + j, (i % 4) * 32, 27 + i % 6, 3 + (i + j) % 8);
			CU_ASSERT_EQUAL(add(text), 0);
			snprintf(text, sizeof(text), "198.19.%u.%u/%u", 128 + (j + 5) % 16,
				(i % 4) * 32, 27 + i % 6);
			/* half of them not there yet: a delete that finds nothing is refused */
			dp_fwd_route_del(text, text, sizeof(text));
		}
		dp_fwd_route_batch_end();
		dp_fwd_route_batch_begin();
		for (j = 0; j < 16; j++) {
			snprintf(text, sizeof(text), "198.19.%u.%u/%u", 128 + j, (i % 4) * 32,
				27 + i % 6);
			dp_fwd_route_del(text, text, sizeof(text));
		}
		dp_fwd_route_batch_end();
	}
	reader.stop = true;
	rte_eal_wait_lcore(lcore);
	CU_ASSERT_TRUE(reader.rounds > 0);
	CU_ASSERT_EQUAL(reader.wrong, 0);
	CU_ASSERT_EQUAL(reader.local, 0);
	CU_ASSERT_EQUAL(del("198.19.128.0/20"), 0);
	CU_ASSERT_EQUAL(dp_fwd.ip4.nb_routes, NB_ROUTES + 5);
	CU_ASSERT_EQUAL(check_samples(), 0);
}

static int
suite_init(void)
{
	char dir[] = "/tmp/dpfwd-test-routes-XXXXXX";
	uint64_t t0;

	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(route_file, sizeof(route_file), "%s/routes-200k.txt", dir);
	if (write_routes(route_file) != 0)
		return -1;
	snprintf(config_text, sizeof(config_text),
		"[dpfwd]\nburst = 32\n[mempool]\ncache = 32\n"
		"[port0]\ndev = net_ring_r0\nip4 = 198.18.0.1/24\n"
		"[port1]\ndev = net_ring_r1\nip4 = 198.18.101.1/24\n"
		"[lcores]\nrx = (0,0,1),(1,0,1)\n"
		"[routes]\nroute = 198.18.1.0/24 via 198.18.101.2 port 1\nfile = %s\n",
		route_file);
	/* dpfwd.fwd logs the table's part at INFO; the rig logs warnings only */
	t0 = rte_get_tsc_cycles();
	if (ring_rig_setup(&rig) < 0)
		return -1;
	printf("\n    %u routes: config, route file and table loaded in %.3f s (table: %u routes, "
	       "%u of %u tbl8 groups reserved)\n",
		NB_ROUTES, (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz(),
		dp_fwd.ip4.nb_routes, dp_fwd.ip4.tbl8_used, dp_fwd.ip4.tbl8_max);
	return 0;
}

static int
suite_cleanup(void)
{
	char dir[sizeof(route_file)];
	char *slash;

	ring_rig_cleanup(&rig);
	snprintf(dir, sizeof(dir), "%s", route_file);
	unlink(route_file);
	slash = strrchr(dir, '/');
	if (slash != NULL) {
		*slash = '\0';
		rmdir(dir);
	}
	return 0;
}

int
main(void)
{
	static const struct dp_test tests[] = {
		{ "test_route_200k_file_loads_and_lookups_are_most_specific",
			test_route_200k_file_loads_and_lookups_are_most_specific },
		{ "test_route_add_del_replace_keep_most_specific_match",
			test_route_add_del_replace_keep_most_specific_match },
		{ "test_route_change_from_fields_is_the_route_text_s",
			test_route_change_from_fields_is_the_route_text_s },
		{ "test_route_change_over_two_24s_without_group_is_made_in_a_copy",
			test_route_change_over_two_24s_without_group_is_made_in_a_copy },
		{ "test_route_reload_replaces_table_and_bad_file_keeps_it",
			test_route_reload_replaces_table_and_bad_file_keeps_it },
		{ "test_route_changes_under_concurrent_lookups_never_misroute",
			test_route_changes_under_concurrent_lookups_never_misroute },
		{ "test_route_batched_changes_under_concurrent_lookups_never_misroute",
			test_route_batched_changes_under_concurrent_lookups_never_misroute },
		{ NULL, NULL },
	};

	return dp_test_run("route", tests, suite_init, suite_cleanup);
}
