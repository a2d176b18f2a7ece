/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Private to linuxcp: the mirrors, the counters, and the translation of a
 * netlink route message into a dpfwd route: its fields, and its text as
 * dp_fwd_route_add() takes it.
 */
#ifndef LINUXCP_PRIV_H
#define LINUXCP_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include <rte_ether.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_linuxcp.h"

/** Log type "dpfwd.linuxcp": DP_LOG(level, linuxcp, ...). */
extern int dp_logtype_linuxcp;

/** One port's mirror. */
struct lcp_mirror {
	bool up;                        /**< the TAP exists and runs */
	uint16_t tap_port;              /**< DPDK's port of the TAP */
	int ifindex;                    /**< the kernel interface's */
	struct rte_ether_addr mac;      /**< the kernel interface's: the port's if it has one */
	char name[DP_LINUXCP_NAME_LEN]; /**< the kernel interface's */
	char vdev[32];                  /**< the vdev's name (net_tap_lcpN) */
};

extern struct lcp_mirror lcp_mirrors[DP_CONFIG_MAX_PORTS];
extern uint16_t lcp_nb_mirrors;

/** Control lcore only. */
struct lcp_stats {
	uint64_t punted;             /**< frames written to a mirror */
	uint64_t injected;           /**< frames read from a mirror, sent through its port */
	uint64_t neigh_copied;       /**< ARP replies and neighbor advertisements copied up */
	uint64_t nl_messages;        /**< netlink messages read */
	uint64_t routes_added;       /**< dpfwd routes added or replaced from netlink */
	uint64_t routes_deleted;     /**< dpfwd routes deleted from netlink (and resyncs) */
	uint64_t routes_unchanged;   /**< routes a dump named as dpfwd had them: nothing made */
	uint64_t route_errors;       /**< adds and deletes dpfwd refused */
	uint64_t routes_other_if;    /**< routes out of interfaces that are not mirrors */
	uint64_t routes_skipped;     /**< kernel, local, non-main-table, non-unicast routes */
	uint64_t routes_config;      /**< routes to a prefix of the config's (the config's stays) */
	uint64_t routes_unsupported; /**< routes dpfwd cannot take (on-link multipath, ...) */
	uint64_t neigh_learned;      /**< kernel neighbors of mirrors given to dpfwd */
	uint64_t dumps;              /**< full dumps asked (the first and every resync) */
	uint64_t resyncs;            /**< dumps after the socket lost messages (ENOBUFS) */
	uint64_t link_changes;       /**< mirrors' link messages (each asks a resync) */
};

extern struct lcp_stats lcp_stats;

/** What a route message asks of dpfwd. */
enum lcp_route_verdict {
	LCP_ROUTE_ADD,         /**< add or replace: text */
	LCP_ROUTE_DEL,         /**< delete: text is the prefix */
	LCP_ROUTE_SKIP,        /**< not a route to copy (kernel, local, other table, type) */
	LCP_ROUTE_OTHER_IF,    /**< out of an interface that is not a mirror */
	LCP_ROUTE_UNSUPPORTED, /**< a form dpfwd does not take */
};

/** A route message translated. */
struct lcp_route {
	int family;       /**< AF_INET or AF_INET6 */
	uint8_t addr[16]; /**< the prefix, network order */
	uint8_t plen;
	bool del;          /**< LCP_ROUTE_DEL */
	bool multipath;    /**< next hops in text only; else the one below */
	bool has_gw;       /**< one next hop: through gw, else on-link */
	uint8_t gw[16];    /**< network order */
	uint16_t port_ref; /**< the port as routes name it: N or N.VID (DP_CONFIG_PORT_REF) */
	/** "PREFIX/len via GW port N [weight W] ..." or "PREFIX/len" (a delete); for one next
	 * hop, written by lcp_route_text() when asked (empty until then) */
	char text[512];
};

/** The text of @p r (struct lcp_route's), written into it if it was not yet. */
const char *lcp_route_text(struct lcp_route *r);

/**
 * Translate route message @p nlh (RTM_NEWROUTE or RTM_DELROUTE) into @p r,
 * given the ifindex of each port's mirror (@p ifindex[port], 0: none) and the
 * reference routes name each port by (@p refs[port]: N, or DP_CONFIG_PORT_REF(N,
 * VID) for a sub-interface; NULL: the index itself).
 * @return its verdict.
 */
enum lcp_route_verdict lcp_route_parse(const struct nlmsghdr *nlh, const int *ifindex,
	const uint16_t *refs, unsigned int nb_ports, struct lcp_route *r);

/** The port whose mirror has @p ifindex, or -1. */
int lcp_port_of_ifindex(int ifindex);

/** Create and start each port's mirror; @return 0 or -errno (@p err says). */
int lcp_tap_start(const struct dp_config *cfg, char *err, size_t errlen);
/** Stop and remove the mirrors. */
void lcp_tap_stop(void);
/** Control lcore: frames Linux sent out of the mirrors, to their ports. */
void lcp_tap_poll(void);
/** Set the config's addresses on the mirrors (netlink). @return 0 or -errno. */
int lcp_tap_addrs_set(const struct dp_config *cfg, char *err, size_t errlen);

/** Open the netlink socket and ask the first dump. @return 0 or -errno. */
int lcp_nl_start(const struct dp_config *cfg, char *err, size_t errlen);
/** Control lcore: read what netlink has. */
void lcp_nl_poll(void);
/** Control lcore: dump the routes again and reconcile (after the dump in progress). */
void lcp_nl_resync(void);
/** Close the socket, forget the routes' owners. */
void lcp_nl_stop(void);

/** The mirror service's number (dp_fwd_local.h), for the node. */
extern uint8_t lcp_service;

#endif /* LINUXCP_PRIV_H */
