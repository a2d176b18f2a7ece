/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config loader, IPv6 parts: [portN] ip6, IPv6 routes in [routes] and route
 * files (the IPv4 line formats with IPv6 addresses), IPv6 static neighbors,
 * and every error with its "file:line: " prefix. Configs are written at run
 * time into a mkdtemp() folder, removed at the end.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_fwd_config.h"
#include "dp_test.h"

static char tmpdir[256];

static int
suite_init(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/dpfwd-test-config-ip6-XXXXXX",
		getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
suite_cleanup(void)
{
	if (tmpdir[0] != '\0')
		dp_test_rm_rf(tmpdir);
	return 0;
}

static void
write_file(const char *name, const char *text, char *path, size_t len)
{
	dp_test_write_file(tmpdir, name, text, path, len);
}

static bool
addr_is(const uint8_t *a, const char *text)
{
	uint8_t b[16];

	return inet_pton(AF_INET6, text, b) == 1 && memcmp(a, b, 16) == 0;
}

#define P0 "[port0]\ndev = net_null0\n" /* 2 lines */
#define P1 "[port1]\ndev = net_null1\n" /* 2 lines */
#define LC "[lcores]\nrx = (0,0,1)\n"   /* 2 lines */

static void
test_config_ip6_keys_parse(void)
{
	const struct dp_fwd_routes_config *rt;
	const struct dp_fwd_neighbors_config *nc;
	static const char routes[] = "# IPv4 and IPv6 in one file\n"           /* 1 */
				     "198.18.5.0/24 via 198.18.101.2 port 1\n" /* 2 */
				     "2001:db8:5::/48 via fe80::1 port 1\n"    /* 3 */
				     "R2001:db8:6::/64 0\n";                   /* 4 */
	char rpath[PATH_MAX], ini[PATH_MAX + 1024], path[PATH_MAX], err[DP_CONFIG_ERR_LEN] = "";
	struct dp_config cfg;
	int rc;

	write_file("routes6.txt", routes, rpath, sizeof(rpath));
	snprintf(ini, sizeof(ini),
		P0                                                          /* 1-2 */
		"ip6 = 2001:db8:10::1/64\n"                                 /* 3 */
		P1                                                          /* 4-5 */
		"ip4 = 198.18.101.1/24\n"                                   /* 6 */
		"ip6 = 2001:DB8:101::1/127\n"                               /* 7 */
		LC                                                          /* 8-9 */
		"[routes]\n"                                                /* 10 */
		"route = 2001:db8:1::/48 via 2001:db8:101::2 port 1\n"      /* 11 */
		"route = 198.18.1.0/24 via 198.18.101.2 port 1\n"           /* 12 */
		"route = 2001:db8:2::/48 port 0\n"                          /* 13 */
		"route = ::/0 via 2001:db8:10::fe port 0\n"                 /* 14 */
		"file = %s\n"                                               /* 15 */
		"[neighbors]\n"                                             /* 16 */
		"neigh = 2001:db8:101::2 lladdr 02:00:00:00:01:02 port 1\n" /* 17 */
		"neigh = 198.18.101.2 lladdr 02:00:00:00:01:02 port 1\n"    /* 18 */
		"neigh = fe80::1 lladdr 02:00:00:00:01:03 port 1\n",        /* 19 */
		rpath);
	write_file("ip6.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	nc = dp_fwd_neighbors_config(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "load rc %d '%s'", rc, err);
	rc = dp_config_validate(&cfg, err, sizeof(err));
	EXPECT(rc == 0, "validate rc %d '%s'", rc, err);
	CU_ASSERT_TRUE(cfg.ports[0].has_ip6);
	CU_ASSERT_TRUE(addr_is(cfg.ports[0].ip6, "2001:db8:10::1"));
	CU_ASSERT_EQUAL(cfg.ports[0].ip6_pfxlen, 64);
	CU_ASSERT_TRUE(cfg.ports[1].has_ip6);
	CU_ASSERT_TRUE(addr_is(cfg.ports[1].ip6, "2001:db8:101::1"));
	CU_ASSERT_EQUAL(cfg.ports[1].ip6_pfxlen, 127);
	CU_ASSERT_EQUAL(cfg.ports[1].ip4_plen, 24);
	/* IPv4 and IPv6 routes go to their own lists, each with its line */
	CU_ASSERT_EQUAL(rt->nb_routes4, 2);
	CU_ASSERT_EQUAL_FATAL(rt->nb_routes6, 5);
	CU_ASSERT_TRUE(addr_is(rt->routes6[0].prefix, "2001:db8:1::"));
	CU_ASSERT_EQUAL(rt->routes6[0].plen, 48);
	CU_ASSERT_TRUE(rt->routes6[0].has_gw);
	CU_ASSERT_TRUE(addr_is(rt->routes6[0].gw, "2001:db8:101::2"));
	CU_ASSERT_EQUAL(rt->routes6[0].port, 1);
	CU_ASSERT_EQUAL(rt->routes6[0].loc.line, 11);
	CU_ASSERT_FALSE(rt->routes6[1].has_gw);
	CU_ASSERT_EQUAL(rt->routes6[1].port, 0);
	CU_ASSERT_EQUAL(rt->routes6[1].loc.line, 13);
	CU_ASSERT_EQUAL(rt->routes6[2].plen, 0);
	CU_ASSERT_TRUE(addr_is(rt->routes6[2].gw, "2001:db8:10::fe"));
	CU_ASSERT_TRUE(addr_is(rt->routes6[3].gw, "fe80::1"));
	CU_ASSERT_EQUAL(rt->routes6[3].loc.line, 3);
	CU_ASSERT_STRING_EQUAL(rt->routes6[3].loc.file, rpath);
	CU_ASSERT_TRUE(addr_is(rt->routes6[4].prefix, "2001:db8:6::"));
	CU_ASSERT_EQUAL(rt->routes6[4].plen, 64);
	CU_ASSERT_FALSE(rt->routes6[4].has_gw);
	CU_ASSERT_EQUAL(rt->routes6[4].loc.line, 4);
	CU_ASSERT_EQUAL(nc->nb_neighs4, 1);
	CU_ASSERT_EQUAL_FATAL(nc->nb_neighs6, 2);
	CU_ASSERT_TRUE(addr_is(nc->neighs6[0].ip, "2001:db8:101::2"));
	CU_ASSERT_EQUAL(nc->neighs6[0].mac.addr_bytes[5], 0x02);
	CU_ASSERT_EQUAL(nc->neighs6[0].port, 1);
	CU_ASSERT_EQUAL(nc->neighs6[0].loc.line, 17);
	CU_ASSERT_TRUE(addr_is(nc->neighs6[1].ip, "fe80::1"));
	CU_ASSERT_EQUAL(nc->neighs6[1].loc.line, 19);
	dp_config_free(&cfg);
	CU_ASSERT_PTR_NULL(rt->routes6);
	CU_ASSERT_EQUAL(rt->nb_routes6, 0);
}

enum phase { AT_LOAD, AT_VALIDATE };

struct err_case {
	const char *name;
	const char *ini;
	enum phase phase;
	int line;
	const char *text;
};

static const struct err_case err_cases[] = {
	{ "bad interface address", P0 "ip6 = 2001:db8::g/64\n", /* 3 */
		AT_LOAD, 3, "bad interface address '2001:db8::g/64'" },
	{ "interface address without length", P0 "ip6 = 2001:db8::1\n", /* 3 */
		AT_LOAD, 3, "bad interface address '2001:db8::1'" },
	{ "interface prefix length 128", P0 "ip6 = 2001:db8::1/128\n", /* 3 */
		AT_LOAD, 3, "len 1..127" },
	{ "interface prefix length 0", P0 "ip6 = 2001:db8::1/0\n", /* 3 */
		AT_LOAD, 3, "len 1..127" },
	{ "multicast interface address", P0 "ip6 = ff02::1/64\n", /* 3 */
		AT_LOAD, 3, "interface address 'ff02::1/64' is a multicast address" },
	{ "link-local interface address", P0 "ip6 = fe80::1/64\n", /* 3 */
		AT_LOAD, 3, "is link-local" },
	{ "loopback interface address", P0 "ip6 = ::1/64\n", /* 3 */
		AT_LOAD, 3, "is the loopback address" },
	{ "route prefix with host bits set",
		P0 "[routes]\n"
		   "route = 2001:db8:1::/48 port 0\n"
		   "route = 2001:db8:1:1::/48 via 2001:db8::2 port 0\n", /* 5 */
		AT_LOAD, 5, "prefix '2001:db8:1:1::/48' has host bits set past /48" },
	{ "route prefix host bits inside a byte",
		P0 "[routes]\n"
		   "route = 2001:db8:1:8000::/49 port 0\n"  /* ok */
		   "route = 2001:db8:1:4000::/49 port 0\n", /* 5 */
		AT_LOAD, 5, "has host bits set past /49" },
	{ "route prefix length 129",
		P0 "[routes]\n"
		   "route = 2001:db8::/129 port 0\n", /* 4 */
		AT_LOAD, 4, "bad prefix '2001:db8::/129'" },
	{ "route bad gateway",
		P0 "[routes]\n"
		   "route = 2001:db8::/32 via 2001:db8::zz port 0\n", /* 4 */
		AT_LOAD, 4, "bad gateway '2001:db8::zz'" },
	{ "route multicast gateway",
		P0 "[routes]\n"
		   "route = 2001:db8::/32 via ff02::2 port 0\n", /* 4 */
		AT_LOAD, 4, "gateway 'ff02::2' is a multicast address" },
	{ "route with mixed families",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 via 2001:db8::1 port 0\n", /* 4 */
		AT_LOAD, 4, "one family per route" },
	{ "route with an IPv4 gateway",
		P0 "[routes]\n"
		   "route = 2001:db8::/32 via 10.0.0.1 port 0\n", /* 4 */
		AT_LOAD, 4, "bad gateway '10.0.0.1'" },
	{ "route syntax",
		P0 "[routes]\n"
		   "route = 2001:db8::/32 via 2001:db8::1\n", /* 4 */
		AT_LOAD, 4, "bad route '2001:db8::/32 via 2001:db8::1'" },
	{ "route port number",
		P0 "[routes]\n"
		   "route = 2001:db8::/32 port 16\n", /* 4 */
		AT_LOAD, 4, "bad port '16'" },
	{ "neighbor bad address",
		P0 "[neighbors]\n"
		   "neigh = 2001:db8:::2 lladdr 02:00:00:00:00:02 port 0\n", /* 4 */
		AT_LOAD, 4, "bad neighbor address '2001:db8:::2'" },
	{ "neighbor multicast address",
		P0 "[neighbors]\n"
		   "neigh = ff02::1 lladdr 02:00:00:00:00:02 port 0\n", /* 4 */
		AT_LOAD, 4, "neighbor address 'ff02::1' is a multicast address" },
	{ "neighbor bad MAC",
		P0 "[neighbors]\n"
		   "neigh = 2001:db8::2 lladdr 02:00:00:00:00 port 0\n", /* 4 */
		AT_LOAD, 4, "bad MAC address '02:00:00:00:00'" },
	{ "route to an undefined port",
		P0 LC "[routes]\n"
		      "route = 2001:db8:1::/48 port 0\n"
		      "route = 2001:db8:2::/48 via fe80::1 port 3\n", /* 7 */
		AT_VALIDATE, 7, "route to port 3, which is not defined" },
	{ "a route to a port's own address",
		P0 "ip6 = 2001:db8::1/64\n" LC "[routes]\n"
		   "route = 2001:db8::1/128 via 2001:db8::2 port 0\n", /* 7 */
		AT_VALIDATE, 7, "route 2001:db8::1/128 is port0's own address" },
	{ "neighbor on an undefined port",
		P0 LC "[neighbors]\n"
		      "neigh = 2001:db8::2 lladdr 02:00:00:00:00:02 port 2\n", /* 6 */
		AT_VALIDATE, 6, "neighbor on port 2, which is not defined" },
};

static void
test_config_ip6_errors_name_file_and_line(void)
{
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(err_cases); i++) {
		const struct err_case *c = &err_cases[i];
		char name[64], path[PATH_MAX], prefix[PATH_MAX + 32];
		char err[DP_CONFIG_ERR_LEN] = "";
		struct dp_config cfg;
		int rc;

		snprintf(name, sizeof(name), "err6-%02u.ini", i);
		write_file(name, c->ini, path, sizeof(path));
		dp_config_init(&cfg);
		rc = dp_config_load(&cfg, path, err, sizeof(err));
		if (c->phase == AT_VALIDATE) {
			EXPECT(rc == 0, "%s: load rc %d '%s'", c->name, rc, err);
			rc = dp_config_validate(&cfg, err, sizeof(err));
		}
		EXPECT(rc == -EINVAL, "%s: rc %d, expected -EINVAL", c->name, rc);
		snprintf(prefix, sizeof(prefix), "%s:%d: ", path, c->line);
		EXPECT(strncmp(err, prefix, strlen(prefix)) == 0,
			"%s: error '%s' does not start with '%s'", c->name, err, prefix);
		EXPECT(strstr(err, c->text) != NULL, "%s: error '%s' lacks '%s'", c->name, err,
			c->text);
		dp_config_free(&cfg);
	}
}

/* A bad IPv6 line in a route file names the route file's line. */
static void
test_config_ip6_route_file_error_names_its_line(void)
{
	char rpath[PATH_MAX], ini[PATH_MAX + 1024], path[PATH_MAX], err[DP_CONFIG_ERR_LEN] = "";
	char want[PATH_MAX + 32];
	struct dp_config cfg;
	int rc;

	write_file("bad6.txt",
		"2001:db8:1::/48 port 0\n"
		"\n"
		"2001:db8:2::1/48 port 0   # host bits\n", /* 3 */
		rpath, sizeof(rpath));
	snprintf(ini, sizeof(ini), P0 "[routes]\nfile = %s\n", rpath);
	write_file("file6.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	snprintf(want, sizeof(want), "%s:3: ", rpath);
	EXPECT(strstr(err, want) != NULL && strstr(err, "has host bits set") != NULL,
		"error '%s' lacks '%s'", err, want);
	dp_config_free(&cfg);
}

static void
test_config_route6_parse_formats(void)
{
	static const struct {
		const char *text;
		int rc;
		const char *prefix;
		unsigned int plen;
		const char *gw; /* NULL: on-link */
		unsigned int port;
	} cases[] = {
		{ "2001:db8::/32 via 2001:db8::1 port 2", 0, "2001:db8::", 32, "2001:db8::1", 2 },
		{ "2001:db8::/32\tvia  fe80::1   port 15", 0, "2001:db8::", 32, "fe80::1", 15 },
		{ "::/0 port 1", 0, "::", 0, NULL, 1 },
		{ "2001:db8::1/128 port 1", 0, "2001:db8::1", 128, NULL, 1 },
		{ "R2001:db8:ff::/48 3", 0, "2001:db8:ff::", 48, NULL, 3 },
		{ "2001:db8::/32", -EINVAL, NULL, 0, NULL, 0 },
		{ "2001:db8::/32 via :: port 1", -EINVAL, NULL, 0, NULL, 0 },
		{ "2001:db8::/32 via ::1 port 1", -EINVAL, NULL, 0, NULL, 0 },
		{ "2001:db8::/32 port 1 extra words here and more", -EINVAL, NULL, 0, NULL, 0 },
		{ "2001:db8::/x port 1", -EINVAL, NULL, 0, NULL, 0 },
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		struct dp_fwd_config_route6 r;
		char err[DP_CONFIG_ERR_LEN] = "";
		int rc = dp_fwd_config_route6_parse(cases[i].text, &r, err, sizeof(err));

		EXPECT(rc == cases[i].rc, "'%s': rc %d '%s', expected %d", cases[i].text, rc, err,
			cases[i].rc);
		if (rc != 0 || cases[i].rc != 0)
			continue;
		EXPECT(addr_is(r.prefix, cases[i].prefix), "'%s': prefix", cases[i].text);
		EXPECT(r.plen == cases[i].plen, "'%s': plen %u", cases[i].text, r.plen);
		EXPECT(r.has_gw == (cases[i].gw != NULL), "'%s': has_gw", cases[i].text);
		if (cases[i].gw != NULL)
			EXPECT(addr_is(r.gw, cases[i].gw), "'%s': gateway", cases[i].text);
		EXPECT(r.port == cases[i].port, "'%s': port %u", cases[i].text, r.port);
	}
}

static void
test_config_ip6_set_overrides_and_errors(void)
{
	const struct dp_fwd_routes_config *rt;
	char err[DP_CONFIG_ERR_LEN] = "";
	char buf[64];
	struct dp_config cfg;

	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "port0.ip6=2001:db8:20::1/64", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(addr_is(cfg.ports[0].ip6, "2001:db8:20::1"));
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "routes.route=2001:db8:9::/48 via fe80::9 port 0", err,
				sizeof(err)),
		0);
	CU_ASSERT_EQUAL(rt->nb_routes6, 1);
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "port0.ip6=2001:db8:20::1", err, sizeof(err)), -EINVAL);
	EXPECT(strncmp(err, "--set: ", 7) == 0, "error '%s'", err);
	CU_ASSERT_STRING_EQUAL(dp_config_ip6_str(rt->routes6[0].gw, buf, sizeof(buf)), "fe80::9");
	dp_config_free(&cfg);
}

static const struct dp_test tests[] = {
	{ "test_config_ip6_keys_parse", test_config_ip6_keys_parse },
	{ "test_config_ip6_errors_name_file_and_line", test_config_ip6_errors_name_file_and_line },
	{ "test_config_ip6_route_file_error_names_its_line",
		test_config_ip6_route_file_error_names_its_line },
	{ "test_config_route6_parse_formats", test_config_route6_parse_formats },
	{ "test_config_ip6_set_overrides_and_errors", test_config_ip6_set_overrides_and_errors },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("config_ip6", tests, suite_init, suite_cleanup);
}
