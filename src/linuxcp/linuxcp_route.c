/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A netlink route message (rtnetlink(7)) as a dpfwd route. A route of one next
 * hop is kept as fields (an IPv4 one goes into dpfwd's table without text); its
 * text, and a multipath route's, is the syntax of [routes] route and `dpctl
 * route add` (docs/routing.md):
 *
 *   RTM_NEWROUTE 198.19.0.0/16 RTA_GATEWAY 198.18.2.2 RTA_OIF dp1
 *     -> "198.19.0.0/16 via 198.18.2.2 port 1"
 *   RTM_NEWROUTE 198.19.80.0/24 RTA_OIF dp1 (on-link) -> "198.19.80.0/24 port 1"
 *   RTM_NEWROUTE 198.19.90.0/24 RTA_GATEWAY 198.18.21.2 RTA_OIF dp1.100 (a sub-interface's)
 *     -> "198.19.90.0/24 via 198.18.21.2 port 1.100"
 *   RTM_NEWROUTE 198.19.0.0/16 RTA_MULTIPATH { gw A dev dp0 weight 1, gw B dev dp1 weight 3 }
 *     -> "198.19.0.0/16 via A port 0 weight 1 via B port 1 weight 3"
 *   RTM_DELROUTE 198.19.0.0/16 ... -> "198.19.0.0/16"
 *
 * Only unicast routes of the main table that a user or a daemon made are
 * copied: the kernel's own (connected subnets, RTPROT_KERNEL) and the local
 * table are dpfwd's already, from its ports.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "linuxcp_priv.h"

struct route_attrs {
	const struct nlattr *tb[RTA_MAX + 1];
};

static int
route_attr_cb(const struct nlattr *attr, void *data)
{
	struct route_attrs *a = data;
	const int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, RTA_MAX) < 0)
		return MNL_CB_OK;
	a->tb[type] = attr;
	return MNL_CB_OK;
}

static int
port_of(int ifindex, const int *ifindex_of, unsigned int nb_ports)
{
	unsigned int p;

	for (p = 0; p < nb_ports; p++)
		if (ifindex != 0 && ifindex_of[p] == ifindex)
			return (int)p;
	return -1;
}

/* "N" or "N.VID": how routes name the port of index @p port */
static const char *
port_name(int port, const uint16_t *refs, char *buf, size_t len)
{
	return dp_config_port_ref_str(refs != NULL ? refs[port] : (uint16_t)port, buf, len);
}

/* " via GW port N [weight W]" at the end of @p r->text; false: no room or no gateway */
static bool
text_add_path(struct lcp_route *r, const struct nlattr *gw, const char *port, unsigned int weight)
{
	char addr[INET6_ADDRSTRLEN];
	size_t used = strlen(r->text);
	int n;

	if (gw == NULL || mnl_attr_get_payload_len(gw) != (r->family == AF_INET ? 4u : 16u))
		return false;
	if (inet_ntop(r->family, mnl_attr_get_payload(gw), addr, sizeof(addr)) == NULL)
		return false;
	if (weight != 0)
		n = snprintf(r->text + used, sizeof(r->text) - used, " via %s port %s weight %u",
			addr, port, weight);
	else
		n = snprintf(r->text + used, sizeof(r->text) - used, " via %s port %s", addr, port);
	return n > 0 && (size_t)n < sizeof(r->text) - used;
}

/* " port N" at the end of @p r->text: an on-link route */
static bool
text_add_port(struct lcp_route *r, const char *port)
{
	size_t used = strlen(r->text);
	int n = snprintf(r->text + used, sizeof(r->text) - used, " port %s", port);

	return n > 0 && (size_t)n < sizeof(r->text) - used;
}

/* the next hops of RTA_MULTIPATH: each rtnexthop with its own attributes */
static enum lcp_route_verdict
parse_multipath(const struct nlattr *mp, const int *ifindex, const uint16_t *refs,
	unsigned int nb_ports, struct lcp_route *r)
{
	char name[16];
	const struct rtnexthop *nh = mnl_attr_get_payload(mp);
	int left = (int)mnl_attr_get_payload_len(mp);
	unsigned int nb = 0, other = 0;

	while (left >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) && nh->rtnh_len <= left) {
		struct route_attrs a;
		const int port = port_of(nh->rtnh_ifindex, ifindex, nb_ports);
		const unsigned int weight = nh->rtnh_hops + 1u;

		memset(&a, 0, sizeof(a));
		mnl_attr_parse_payload(
			RTNH_DATA(nh), nh->rtnh_len - sizeof(*nh), route_attr_cb, &a);
		if (port < 0)
			other++;
		else if (!text_add_path(r, a.tb[RTA_GATEWAY],
				 port_name(port, refs, name, sizeof(name)),
				 weight > 255 ? 255 : weight))
			return LCP_ROUTE_UNSUPPORTED;
		nb++;
		left -= RTNH_ALIGN(nh->rtnh_len);
		nh = RTNH_NEXT(nh);
	}
	if (nb == 0)
		return LCP_ROUTE_UNSUPPORTED;
	/* a route out of mirrors and other interfaces: dpfwd cannot send through the others */
	if (other != 0)
		return other == nb ? LCP_ROUTE_OTHER_IF : LCP_ROUTE_UNSUPPORTED;
	return LCP_ROUTE_ADD;
}

/* "PREFIX/len" of @p r at the start of its text */
static bool
text_prefix(struct lcp_route *r)
{
	char addr[INET6_ADDRSTRLEN];

	if (inet_ntop(r->family, r->addr, addr, sizeof(addr)) == NULL)
		return false;
	snprintf(r->text, sizeof(r->text), "%s/%u", addr, r->plen);
	return true;
}

const char *
lcp_route_text(struct lcp_route *r)
{
	char name[16], gw[INET6_ADDRSTRLEN];
	size_t used;

	if (r->text[0] != '\0' || !text_prefix(r) || r->del)
		return r->text;
	dp_config_port_ref_str(r->port_ref, name, sizeof(name));
	if (!r->has_gw) {
		text_add_port(r, name);
		return r->text;
	}
	used = strlen(r->text);
	if (inet_ntop(r->family, r->gw, gw, sizeof(gw)) != NULL)
		snprintf(r->text + used, sizeof(r->text) - used, " via %s port %s", gw, name);
	return r->text;
}

/*
 * One next hop, out of RTA_OIF: kept as fields, its text written only when asked
 * (lcp_route_text()), since a dump's IPv4 routes go to dpfwd without it.
 */
static enum lcp_route_verdict
parse_one(const struct route_attrs *a, const int *ifindex, const uint16_t *refs,
	unsigned int nb_ports, struct lcp_route *r)
{
	const size_t alen = r->family == AF_INET ? 4 : 16;
	const int port = a->tb[RTA_OIF] != NULL
				 ? port_of((int)mnl_attr_get_u32(a->tb[RTA_OIF]), ifindex, nb_ports)
				 : -1;

	if (port < 0)
		return LCP_ROUTE_OTHER_IF;
	r->port_ref = refs != NULL ? refs[port] : (uint16_t)port;
	if (a->tb[RTA_GATEWAY] == NULL)
		return LCP_ROUTE_ADD; /* on-link: "PREFIX/len port N" */
	if (mnl_attr_get_payload_len(a->tb[RTA_GATEWAY]) != alen)
		return LCP_ROUTE_UNSUPPORTED;
	r->has_gw = true;
	memcpy(r->gw, mnl_attr_get_payload(a->tb[RTA_GATEWAY]), alen);
	return LCP_ROUTE_ADD;
}

enum lcp_route_verdict
lcp_route_parse(const struct nlmsghdr *nlh, const int *ifindex, const uint16_t *refs,
	unsigned int nb_ports, struct lcp_route *r)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct route_attrs a;
	uint32_t table;
	enum lcp_route_verdict v;

	/* the fields; the text (most of @p r) stays unwritten until asked for */
	memset(r, 0, offsetof(struct lcp_route, text));
	r->text[0] = '\0';
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return LCP_ROUTE_UNSUPPORTED;
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return LCP_ROUTE_SKIP;
	memset(&a, 0, sizeof(a));
	mnl_attr_parse(nlh, sizeof(*rtm), route_attr_cb, &a);
	table = a.tb[RTA_TABLE] != NULL ? mnl_attr_get_u32(a.tb[RTA_TABLE]) : rtm->rtm_table;
	if (table != RT_TABLE_MAIN || rtm->rtm_type != RTN_UNICAST ||
		rtm->rtm_protocol == RTPROT_KERNEL)
		return LCP_ROUTE_SKIP;
	/* IPv6 link-local and multicast are the kernel's own business on each link */
	r->family = rtm->rtm_family;
	r->plen = rtm->rtm_dst_len;
	if (r->plen > (r->family == AF_INET ? 32 : 128))
		return LCP_ROUTE_UNSUPPORTED;
	if (a.tb[RTA_DST] != NULL) {
		const size_t alen = r->family == AF_INET ? 4 : 16;

		if (mnl_attr_get_payload_len(a.tb[RTA_DST]) != alen)
			return LCP_ROUTE_UNSUPPORTED;
		memcpy(r->addr, mnl_attr_get_payload(a.tb[RTA_DST]), alen);
	}
	if (r->family == AF_INET6 && r->addr[0] == 0xfe && (r->addr[1] & 0xc0) == 0x80)
		return LCP_ROUTE_SKIP;

	if (a.tb[RTA_MULTIPATH] != NULL) {
		r->multipath = true;
		if (!text_prefix(r))
			return LCP_ROUTE_UNSUPPORTED;
		v = parse_multipath(a.tb[RTA_MULTIPATH], ifindex, refs, nb_ports, r);
	} else {
		v = parse_one(&a, ifindex, refs, nb_ports, r);
	}
	if (v != LCP_ROUTE_ADD)
		return v;
	if (nlh->nlmsg_type == RTM_DELROUTE) {
		r->del = true;
		if (r->multipath)
			text_prefix(r);
		return LCP_ROUTE_DEL;
	}
	return LCP_ROUTE_ADD;
}
