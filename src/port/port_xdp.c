/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Is a net_af_xdp port's interface in use by another process? DPDK's af_xdp
 * PMD takes the interface's XDP program off when it closes, whoever attached
 * it: a `dpfwd --check` that probed the port of a running dpfwd would stop that
 * dpfwd's traffic. In use means an AF_XDP socket bound to the interface (the
 * kernel lists them through sock_diag, XDP_DIAG_INFO); a program left by a
 * process that died, with no socket, is not a user. Where the kernel cannot list
 * AF_XDP sockets, an attached XDP program (RTM_GETLINK, IFLA_XDP) counts as one.
 * Both through libmnl.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/xdp_diag.h>

#include "dp_port.h"

static int
xdp_attr_cb(const struct nlattr *attr, void *data)
{
	uint32_t *prog_id = data;

	if (mnl_attr_get_type(attr) == IFLA_XDP_PROG_ID &&
		mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		*prog_id = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int
link_attr_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == IFLA_XDP && mnl_attr_validate(attr, MNL_TYPE_NESTED) == 0)
		mnl_attr_parse_nested(attr, xdp_attr_cb, data);
	return MNL_CB_OK;
}

static int
link_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr_cb, data);
}

/* Send @p nlh on a new @p proto socket, run @p cb over the answer until its end (an ACK
 * or a dump's DONE). @return 0, or the kernel's error. */
static int
nl_query(int proto, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	const uint32_t seq = nlh->nlmsg_seq;
	struct mnl_socket *nl;
	ssize_t n;
	int rc;

	nl = mnl_socket_open2(proto, SOCK_CLOEXEC);
	if (nl == NULL)
		return -errno;
	rc = 0;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
		mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		rc = -errno;
	while (rc == 0) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0) {
			rc = -errno;
			break;
		}
		rc = mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(nl), cb, data);
		if (rc == MNL_CB_STOP)
			rc = 0;
		else if (rc < 0)
			rc = -errno;
		else
			continue;
		break;
	}
	mnl_socket_close(nl);
	return rc;
}

/* The id of the XDP program on interface @p ifindex, 0 for none; < 0: the kernel's error. */
static int64_t
xdp_prog_id(unsigned int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	uint32_t prog_id = 0;
	int rc;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK; /* the ACK ends the answer */
	nlh->nlmsg_seq = (uint32_t)time(NULL);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	rc = nl_query(NETLINK_ROUTE, nlh, link_cb, &prog_id);
	return rc < 0 ? rc : (int64_t)prog_id;
}

struct xsk_count {
	unsigned int ifindex;
	unsigned int n;
};

static int
xsk_attr_cb(const struct nlattr *attr, void *data)
{
	struct xsk_count *c = data;
	const struct xdp_diag_info *info;

	if (mnl_attr_get_type(attr) != XDP_DIAG_INFO ||
		mnl_attr_get_payload_len(attr) < sizeof(*info))
		return MNL_CB_OK;
	info = mnl_attr_get_payload(attr);
	c->n += info->ifindex == c->ifindex;
	return MNL_CB_OK;
}

static int
xsk_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct xdp_diag_msg), xsk_attr_cb, data);
}

/* AF_XDP sockets bound to interface @p ifindex in this namespace; < 0: the kernel cannot
 * say (no xsk_diag). */
static int64_t
xsk_bound(unsigned int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct xsk_count c = { .ifindex = ifindex, .n = 0 };
	struct xdp_diag_req *req;
	int rc;

	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = (uint32_t)time(NULL);
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = AF_XDP;
	req->xdiag_show = XDP_SHOW_INFO;
	rc = nl_query(NETLINK_SOCK_DIAG, nlh, xsk_cb, &c);
	return rc < 0 ? rc : (int64_t)c.n;
}

int
dp_port_xdp_in_use(const struct dp_config *cfg, char *err, size_t errlen)
{
	static const char drv[] = "net_af_xdp";
	uint16_t i;

	for (i = 0; i < cfg->nb_ports; i++) {
		const struct dp_config_port *p = &cfg->ports[i];
		const char *a = strstr(p->dev, ",iface=");
		char iface[IF_NAMESIZE];
		unsigned int ifindex;
		size_t len;
		int64_t n;

		if (strncmp(p->dev, drv, sizeof(drv) - 1) != 0 || a == NULL)
			continue;
		a += strlen(",iface=");
		len = strcspn(a, ",");
		if (len == 0 || len >= sizeof(iface))
			continue;
		memcpy(iface, a, len);
		iface[len] = '\0';
		ifindex = if_nametoindex(iface);
		if (ifindex == 0)
			continue; /* the probe says so */
		n = xsk_bound(ifindex);
		if (n > 0) {
			snprintf(err, errlen,
				"port%u (%s): interface %s has %" PRId64 " AF_XDP socket%s bound: "
				"another process (a running dpfwd?) drives it, and probing the port "
				"would take its XDP program off when the check ends; stop that "
				"process first",
				i, drv, iface, n, n == 1 ? "" : "s");
			return -EBUSY;
		}
		if (n < 0 && (n = xdp_prog_id(ifindex)) > 0) {
			snprintf(err, errlen,
				"port%u (%s): interface %s has an XDP program (id %" PRId64
				") and this kernel cannot list AF_XDP sockets to tell whether a "
				"process uses it; probing the port would take that program off when "
				"the check ends; stop whoever attached it first (left by a process "
				"that died: ip link set dev %s xdp off)",
				i, drv, iface, n, iface);
			return -EBUSY;
		}
	}
	return 0;
}
