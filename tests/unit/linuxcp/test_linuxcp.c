/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The translation of netlink route messages into dpfwd route text
 * (src/linuxcp/linuxcp_route.c): messages built with libmnl as the kernel
 * sends them, table-driven, each with the verdict and text it must give.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "dp_config.h"
#include "dp_linuxcp.h"
#include "dp_test.h"
#include "linuxcp_priv.h"

static char tmpdir[256];

static int
suite_init(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/dpfwd-test-linuxcp-XXXXXX",
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

/* [linux] read from @p lines (after a port); rc of the load, the message in @p err */
static int
load_linux(const char *lines, struct dp_config *cfg, char *err, size_t errlen, char *path)
{
	char ini[512];

	snprintf(ini, sizeof(ini), "[port0]\ndev = net_null0\nip4 = 198.18.1.1/24\n[linux]\n%s\n",
		lines);
	dp_test_write_file(tmpdir, "linux.ini", ini, path, PATH_MAX);
	dp_config_init(cfg);
	return dp_config_load(cfg, path, err, errlen);
}

static void
test_linuxcp_config_defaults_and_keys(void)
{
	struct dp_config cfg;
	char err[DP_CONFIG_ERR_LEN] = "", path[PATH_MAX];
	const struct dp_linuxcp_config *c;

	CU_ASSERT_EQUAL_FATAL(load_linux("enabled = on", &cfg, err, sizeof(err), path), 0);
	c = dp_linuxcp_config(&cfg);
	CU_ASSERT_TRUE(c->enabled);
	CU_ASSERT_STRING_EQUAL(c->names, "dp%u");
	CU_ASSERT_STRING_EQUAL(c->netns, "");
	dp_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(
		load_linux("enabled = yes\nnames = lcp%u", &cfg, err, sizeof(err), path), 0);
	CU_ASSERT_STRING_EQUAL(dp_linuxcp_config(&cfg)->names, "lcp%u");
	dp_config_free(&cfg);
}

static void
test_linuxcp_config_bad_values_name_line(void)
{
	static const struct {
		const char *line;
		const char *text;
	} bad[] = {
		{ "names = tap%d", "names 'tap%d': expected an interface name pattern" },
		{ "names = dp", "names 'dp'" },
		{ "names = a%u%u", "names 'a%u%u'" },
		{ "names = averylongname%u", "at most 12 characters" },
		{ "netns = red", "netns 'red': the mirrors can only be in dpfwd's own" },
		{ "enabled = maybe", "enabled" },
		{ "tap = x", "unknown key 'tap' in [linux]" },
	};
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(bad); i++) {
		struct dp_config cfg;
		char err[DP_CONFIG_ERR_LEN] = "", path[PATH_MAX], want[PATH_MAX + 8];
		int rc = load_linux(bad[i].line, &cfg, err, sizeof(err), path);

		snprintf(want, sizeof(want), "%s:5:", path);
		if (rc != -EINVAL || strstr(err, want) == NULL ||
			strstr(err, bad[i].text) == NULL) {
			printf("\n  '%s': rc %d, '%s'", bad[i].line, rc, err);
			CU_FAIL("bad [linux] value");
		}
		dp_config_free(&cfg);
	}
}

/* mirrors: port 0 is ifindex 7, port 1 is ifindex 9; ifindex 3 is another interface */
/* port 0 (dp0), port 1 (dp1), and sub-interface 1.100 (dp1.100) at index 2 */
static const int ifindex[3] = { 7, 9, 11 };
static const uint16_t refs[3] = { 0, 1, DP_CONFIG_PORT_REF(1, 100) };

struct hop {
	const char *gw;
	int ifindex;
	unsigned int weight; /* as `ip route ... weight W` */
};

struct route_msg {
	uint16_t type;
	int family;
	const char *dst;
	uint8_t plen;
	uint8_t table;
	uint8_t protocol;
	uint8_t rtype;
	const char *gw; /* single path: RTA_GATEWAY and RTA_OIF */
	int oif;
	struct hop hops[3]; /* multipath when hops[0].gw is set */
};

static struct nlmsghdr *
build(char *buf, const struct route_msg *m)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;
	uint8_t a[16];
	const size_t alen = m->family == AF_INET ? 4 : 16;
	unsigned int i;

	nlh->nlmsg_type = m->type;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)m->family;
	rtm->rtm_dst_len = m->plen;
	rtm->rtm_table = m->table;
	rtm->rtm_protocol = m->protocol;
	rtm->rtm_type = m->rtype;
	mnl_attr_put_u32(nlh, RTA_TABLE, m->table);
	if (m->dst != NULL) {
		inet_pton(m->family, m->dst, a);
		mnl_attr_put(nlh, RTA_DST, alen, a);
	}
	if (m->hops[0].gw == NULL) {
		if (m->gw != NULL) {
			inet_pton(m->family, m->gw, a);
			mnl_attr_put(nlh, RTA_GATEWAY, alen, a);
		}
		if (m->oif != 0)
			mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)m->oif);
		return nlh;
	}
	{
		struct nlattr *mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);

		for (i = 0; i < 3 && m->hops[i].gw != NULL; i++) {
			struct rtnexthop *nh = mnl_nlmsg_get_payload_tail(nlh);

			nlh->nlmsg_len += MNL_ALIGN(sizeof(*nh));
			memset(nh, 0, sizeof(*nh));
			nh->rtnh_ifindex = m->hops[i].ifindex;
			nh->rtnh_hops = (uint8_t)(m->hops[i].weight - 1);
			inet_pton(m->family, m->hops[i].gw, a);
			mnl_attr_put(nlh, RTA_GATEWAY, alen, a);
			nh->rtnh_len = (unsigned short)((char *)mnl_nlmsg_get_payload_tail(nlh) -
							(char *)nh);
		}
		mnl_attr_nest_end(nlh, mp);
	}
	return nlh;
}

struct route_case {
	const char *what;
	struct route_msg msg;
	enum lcp_route_verdict verdict;
	const char *text; /* for ADD and DEL */
};

#define MAIN RT_TABLE_MAIN
#define BOOT RTPROT_BOOT
#define UNI  RTN_UNICAST

static const struct route_case cases[] = {
	{ "one gateway through a mirror",
		{ RTM_NEWROUTE, AF_INET, "198.19.0.0", 16, MAIN, BOOT, UNI, "198.18.20.2", 9 },
		LCP_ROUTE_ADD, "198.19.0.0/16 via 198.18.20.2 port 1" },
	{ "its deletion",
		{ RTM_DELROUTE, AF_INET, "198.19.0.0", 16, MAIN, BOOT, UNI, "198.18.20.2", 9 },
		LCP_ROUTE_DEL, "198.19.0.0/16" },
	{ "a default route",
		{ RTM_NEWROUTE, AF_INET, NULL, 0, MAIN, RTPROT_STATIC, UNI, "198.18.10.2", 7 },
		LCP_ROUTE_ADD, "0.0.0.0/0 via 198.18.10.2 port 0" },
	{ "multipath with weights",
		{ RTM_NEWROUTE, AF_INET, "198.19.50.0", 24, MAIN, BOOT, UNI, NULL, 0,
			{ { "198.18.10.2", 7, 1 }, { "198.18.20.2", 9, 3 } } },
		LCP_ROUTE_ADD,
		"198.19.50.0/24 via 198.18.10.2 port 0 weight 1 via 198.18.20.2 port 1 weight 3" },
	{ "multipath all through another interface",
		{ RTM_NEWROUTE, AF_INET, "198.19.51.0", 24, MAIN, BOOT, UNI, NULL, 0,
			{ { "192.0.2.2", 3, 1 }, { "192.0.2.3", 3, 1 } } },
		LCP_ROUTE_OTHER_IF, NULL },
	{ "multipath partly through another interface",
		{ RTM_NEWROUTE, AF_INET, "198.19.52.0", 24, MAIN, BOOT, UNI, NULL, 0,
			{ { "198.18.10.2", 7, 1 }, { "192.0.2.3", 3, 1 } } },
		LCP_ROUTE_UNSUPPORTED, NULL },
	{ "through another interface",
		{ RTM_NEWROUTE, AF_INET, "198.19.60.0", 24, MAIN, BOOT, UNI, "192.0.2.2", 3 },
		LCP_ROUTE_OTHER_IF, NULL },
	{ "the kernel's connected route",
		{ RTM_NEWROUTE, AF_INET, "198.18.20.0", 24, MAIN, RTPROT_KERNEL, UNI, NULL, 9 },
		LCP_ROUTE_SKIP, NULL },
	{ "the local table",
		{ RTM_NEWROUTE, AF_INET, "198.18.20.1", 32, RT_TABLE_LOCAL, RTPROT_KERNEL,
			RTN_LOCAL, NULL, 9 },
		LCP_ROUTE_SKIP, NULL },
	{ "a blackhole",
		{ RTM_NEWROUTE, AF_INET, "198.19.70.0", 24, MAIN, BOOT, RTN_BLACKHOLE, NULL, 0 },
		LCP_ROUTE_SKIP, NULL },
	{ "on-link through a mirror, no gateway",
		{ RTM_NEWROUTE, AF_INET, "198.19.80.0", 24, MAIN, BOOT, UNI, NULL, 9 },
		LCP_ROUTE_ADD, "198.19.80.0/24 port 1" },
	{ "IPv6 with a link-local gateway",
		{ RTM_NEWROUTE, AF_INET6, "2001:db8:99::", 48, MAIN, BOOT, UNI, "fe80::2", 9 },
		LCP_ROUTE_ADD, "2001:db8:99::/48 via fe80::2 port 1" },
	{ "through a sub-interface's mirror",
		{ RTM_NEWROUTE, AF_INET, "198.19.90.0", 24, MAIN, BOOT, UNI, "198.18.21.2", 11 },
		LCP_ROUTE_ADD, "198.19.90.0/24 via 198.18.21.2 port 1.100" },
	{ "on-link through a sub-interface's mirror",
		{ RTM_NEWROUTE, AF_INET, "198.19.91.0", 24, MAIN, BOOT, UNI, NULL, 11 },
		LCP_ROUTE_ADD, "198.19.91.0/24 port 1.100" },
	{ "multipath through a port and a sub-interface",
		{ RTM_NEWROUTE, AF_INET, "198.19.92.0", 24, MAIN, BOOT, UNI, NULL, 0,
			{ { "198.18.10.2", 7, 1 }, { "198.18.21.2", 11, 2 } } },
		LCP_ROUTE_ADD,
		"198.19.92.0/24 via 198.18.10.2 port 0 weight 1 via 198.18.21.2 port 1.100 weight 2" },
	{ "a prefix longer than an IPv4 address",
		{ RTM_NEWROUTE, AF_INET, "198.19.93.0", 33, MAIN, BOOT, UNI, "198.18.20.2", 9 },
		LCP_ROUTE_UNSUPPORTED, NULL },
	{ "IPv6 link-local prefix",
		{ RTM_NEWROUTE, AF_INET6, "fe80::", 64, MAIN, BOOT, UNI, "fe80::2", 9 },
		LCP_ROUTE_SKIP, NULL },
};

static void
test_linuxcp_route_messages_translate_to_route_text(void)
{
	unsigned int i, bad = 0;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		char buf[MNL_SOCKET_BUFFER_SIZE];
		const struct route_case *c = &cases[i];
		struct nlmsghdr *nlh = build(buf, &c->msg);
		struct lcp_route r;
		enum lcp_route_verdict v = lcp_route_parse(nlh, ifindex, refs, 3, &r);

		if (v != c->verdict ||
			(c->text != NULL && strcmp(lcp_route_text(&r), c->text) != 0)) {
			printf("\n  %s: verdict %d, text '%s' (want %d, '%s')", c->what, v, r.text,
				c->verdict, c->text ? c->text : "");
			bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_linuxcp_route_short_message_is_unsupported(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct lcp_route r;

	nlh->nlmsg_type = RTM_NEWROUTE;
	CU_ASSERT_EQUAL(lcp_route_parse(nlh, ifindex, refs, 3, &r), LCP_ROUTE_UNSUPPORTED);
}

static const struct dp_test tests[] = {
	{ "test_linuxcp_route_messages_translate_to_route_text",
		test_linuxcp_route_messages_translate_to_route_text },
	{ "test_linuxcp_route_short_message_is_unsupported",
		test_linuxcp_route_short_message_is_unsupported },
	{ "test_linuxcp_config_defaults_and_keys", test_linuxcp_config_defaults_and_keys },
	{ "test_linuxcp_config_bad_values_name_line", test_linuxcp_config_bad_values_name_line },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("linuxcp", tests, suite_init, suite_cleanup);
}
