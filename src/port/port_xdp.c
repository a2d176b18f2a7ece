/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Is a net_af_xdp port's interface already driven by an XDP program? DPDK's
 * af_xdp PMD takes the interface's XDP program off when it closes, whoever
 * attached it: a `dpfwd --check` that probed the port of a running dpfwd would
 * stop that dpfwd's traffic. The kernel says whether a program is attached in
 * the link's IFLA_XDP attribute (RTM_GETLINK, libmnl).
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

/* The id of the XDP program on interface @p ifindex, 0 for none; < 0: the kernel's error. */
static int64_t
xdp_prog_id(unsigned int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	uint32_t seq = (uint32_t)time(NULL), prog_id = 0;
	ssize_t n;
	int rc;

	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (nl == NULL)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		mnl_socket_close(nl);
		return rc;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK; /* the ACK ends the answer */
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	rc = 0;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		rc = -errno;
	while (rc == 0) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0) {
			rc = -errno;
			break;
		}
		rc = mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(nl), link_cb, &prog_id);
		if (rc == MNL_CB_STOP)
			rc = 0;
		else if (rc < 0)
			rc = -errno;
		else
			continue;
		break;
	}
	mnl_socket_close(nl);
	return rc < 0 ? rc : (int64_t)prog_id;
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
		int64_t id;

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
		id = xdp_prog_id(ifindex);
		if (id > 0) {
			snprintf(err, errlen,
				"port%u (%s): interface %s already has an XDP program (id %" PRId64
				"): another process (a running dpfwd?) drives it, and probing the port "
				"would take that program off when the check ends; stop that process, "
				"or check a copy of the config on another interface",
				i, drv, iface, id);
			return -EBUSY;
		}
	}
	return 0;
}
