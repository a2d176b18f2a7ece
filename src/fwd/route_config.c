/* SPDX-License-Identifier: BSD-3-Clause */
/* [routes] and [neighbors]: fwd's config sections, their keys, route files and their checks. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_fwd_config.h"

/* The longest line of a route file, comment included */
#define ROUTE_FILE_LINE_MAX 1022

static struct dp_fwd_routes_config *
routes_at(struct dp_config *cfg)
{
	return dp_config_section_data(cfg, &dp_fwd_routes_section, 0);
}

const struct dp_fwd_routes_config *
dp_fwd_routes_config(const struct dp_config *cfg)
{
	return dp_config_section_data(cfg, &dp_fwd_routes_section, 0);
}

const struct dp_fwd_neighbors_config *
dp_fwd_neighbors_config(const struct dp_config *cfg)
{
	return dp_config_section_data(cfg, &dp_fwd_neighbors_section, 0);
}

/* Why @p ip (host order) cannot be a neighbor or a gateway; NULL if it can. */
static const char *
ip4_not_unicast(uint32_t ip)
{
	if ((ip >> 24) == 0)
		return "in 0.0.0.0/8 (this network)";
	if ((ip >> 24) == 127)
		return "a loopback address";
	if ((ip >> 28) == 0xe)
		return "a multicast address";
	if ((ip >> 28) == 0xf)
		return ip == UINT32_MAX ? "the broadcast address" : "in 240.0.0.0/4 (reserved)";
	return NULL;
}

static uint32_t
plen_mask(uint8_t plen)
{
	return plen == 0 ? 0 : ~0u << (32 - plen);
}

static bool
ip6_host_bits_set(const uint8_t ip[16], uint8_t plen)
{
	unsigned int i;

	for (i = plen / 8; i < 16; i++) {
		uint8_t keep = i == plen / 8 ? (uint8_t)(0xff00 >> (plen % 8)) : 0;

		if ((ip[i] & ~keep) != 0)
			return true;
	}
	return false;
}

/* ---- routes ---- */

/* Words of a route line, at most: a prefix, then "via ADDR port N weight W" for
 * one more next hop than allowed (so that one too many is named as such). */
#define ROUTE_WORDS_MAX (1 + 6 * (DP_FWD_ECMP_MAX + 1))
/* A route line's bytes, at most (route files; a config value is shorter) */
#define ROUTE_TEXT_MAX (ROUTE_FILE_LINE_MAX + 2)

/* Split @p text into @p tok (in @p buf). @return the count, or -EINVAL (message set). */
static int
route_words(const char *text, char *buf, size_t buflen, char **tok, char *err, size_t errlen)
{
	char *save = NULL;
	char *t;
	unsigned int n = 0;

	/* -EINVAL spelled out after each message: the analyser does not see what
	 * dp_config_error() returns, and would go on with tok[] unset */
	if (dp_strlcpy(buf, text, buflen) < 0) {
		dp_config_error(err, errlen, NULL, "route too long");
		return -EINVAL;
	}
	for (t = strtok_r(buf, " \t", &save); t != NULL && n < ROUTE_WORDS_MAX;
		t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	/* beyond a route with one next hop, only "via" lines may be long */
	if (t != NULL || (n > 8 && strcmp(tok[1], "via") != 0)) {
		dp_config_error(err, errlen, NULL, "too many words in route '%s'", text);
		return -EINVAL;
	}
	return (int)n;
}

/* A route's or a neighbor's port: N or N.VID (dp_config_port_ref_parse()). */
static int
port_ref_parse(const char *s, uint64_t *port)
{
	uint16_t ref;

	if (dp_config_port_ref_parse(s, &ref) < 0)
		return -EINVAL;
	*port = ref;
	return 0;
}

/* Whether @p tok[1..n) is one next hop or more, "via ADDR port N [weight W]" each. */
static bool
route_has_paths(char **tok, unsigned int n)
{
	return n >= 5 && strcmp(tok[1], "via") == 0 && strcmp(tok[3], "port") == 0;
}

/*
 * The next hops of @p tok[1..n): "via ADDR port N [weight W]", again and again,
 * into @p paths; @p v6 the family. A gateway's errors are those of a route with
 * one next hop. @return 0 or -EINVAL (message set).
 */
static int
paths_parse(char **tok, unsigned int n, bool v6, const char *text,
	struct dp_fwd_config_paths *paths, char *err, size_t errlen)
{
	unsigned int i = 1, j;
	uint64_t v;
	const char *why;

	memset(paths, 0, sizeof(*paths));
	while (i < n) {
		struct dp_fwd_config_path *p = &paths->p[paths->nb];
		const char *gw_word;

		if (i + 4 > n || strcmp(tok[i], "via") != 0 || strcmp(tok[i + 2], "port") != 0)
			return dp_config_error(err, errlen, NULL,
				"bad route '%s' (expected 'PREFIX/len via ADDR port N', with "
				"'weight W' after each next hop and more 'via ADDR port N' for "
				"several)",
				text);
		if (paths->nb == DP_FWD_ECMP_MAX)
			return dp_config_error(err, errlen, NULL,
				"more than %d next hops in route '%s'", DP_FWD_ECMP_MAX, text);
		gw_word = tok[i + 1];
		if (v6) {
			if (inet_pton(AF_INET6, tok[i + 1], p->gw6) != 1)
				return dp_config_error(err, errlen, NULL,
					"bad gateway '%s' (expected an IPv6 address%s)", tok[i + 1],
					strchr(tok[i + 1], ':') == NULL ? ": one family per route"
									: "");
			why = dp_config_ip6_not_unicast(p->gw6);
		} else {
			if (dp_config_parse_ip4(tok[i + 1], &p->gw) < 0)
				return dp_config_error(err, errlen, NULL,
					"bad gateway '%s' (expected a.b.c.d)", tok[i + 1]);
			why = ip4_not_unicast(p->gw);
		}
		if (why != NULL)
			return dp_config_error(
				err, errlen, NULL, "gateway '%s' is %s", tok[i + 1], why);
		if (port_ref_parse(tok[i + 3], &v) < 0)
			return dp_config_error(err, errlen, NULL,
				"bad port '%s' (N or N.VID, N 0..%d)", tok[i + 3],
				DP_CONFIG_MAX_PORTS - 1);
		p->port = (uint16_t)v;
		p->weight = 1;
		i += 4;
		if (i < n && strcmp(tok[i], "weight") == 0) {
			if (i + 1 == n ||
				dp_config_parse_uint(tok[i + 1], 1, DP_FWD_ECMP_WEIGHT_MAX, &v) < 0)
				return dp_config_error(err, errlen, NULL,
					"bad weight '%s' of next hop %s (1..%d) in route '%s'",
					i + 1 < n ? tok[i + 1] : "", gw_word,
					DP_FWD_ECMP_WEIGHT_MAX, text);
			p->weight = (uint16_t)v;
			i += 2;
		}
		for (j = 0; j < paths->nb; j++)
			if (paths->p[j].port == p->port &&
				(v6 ? memcmp(paths->p[j].gw6, p->gw6, 16) == 0
				    : paths->p[j].gw == p->gw))
				return dp_config_error(err, errlen, NULL,
					"next hop %s port %u twice in route '%s'", gw_word, p->port,
					text);
		paths->nb++;
	}
	return 0;
}

static int
route4_push(struct dp_fwd_routes_config *rt, const struct dp_fwd_config_route4 *r)
{
	if (rt->nb_routes4 == rt->cap_routes4) {
		struct dp_fwd_config_route4 *n =
			dp_array_grow(rt->routes4, &rt->cap_routes4, sizeof(*n), 64);

		if (n == NULL)
			return -ENOMEM;
		rt->routes4 = n;
	}
	rt->routes4[rt->nb_routes4++] = *r;
	return 0;
}

int
dp_fwd_config_route4_parse_paths(const char *text, struct dp_fwd_config_route4 *r,
	struct dp_fwd_config_paths *paths, char *err, size_t errlen)
{
	char buf[ROUTE_TEXT_MAX];
	char *tok[ROUTE_WORDS_MAX];
	unsigned int n;
	uint64_t port;
	uint32_t ip;
	int rc;

	memset(r, 0, sizeof(*r));
	paths->nb = 0;
	rc = route_words(text, buf, sizeof(buf), tok, err, errlen);
	if (rc < 0)
		return rc;
	n = (unsigned int)rc;

	if (n == 2 && tok[0][0] == 'R') {
		/* l3fwd: R<prefix>/<len> <port> */
		if (dp_config_parse_ip4_prefix(tok[0] + 1, &ip, &r->plen) < 0)
			return dp_config_error(err, errlen, NULL,
				"bad prefix '%s' (expected Ra.b.c.d/len)", tok[0]);
		if (port_ref_parse(tok[1], &port) < 0)
			return dp_config_error(err, errlen, NULL,
				"bad port '%s' (N or N.VID, N 0..%d)", tok[1],
				DP_CONFIG_MAX_PORTS - 1);
	} else if (route_has_paths(tok, n)) {
		if (dp_config_parse_ip4_prefix(tok[0], &ip, &r->plen) < 0)
			return dp_config_error(err, errlen, NULL,
				"bad prefix '%s' (expected a.b.c.d/len)", tok[0]);
		rc = paths_parse(tok, n, false, text, paths, err, errlen);
		if (rc < 0)
			return rc;
		r->gw = paths->p[0].gw;
		r->has_gw = true;
		port = paths->p[0].port;
		r->paths = paths->nb > 1 ? paths : NULL;
	} else if (n == 3 && strcmp(tok[1], "port") == 0) {
		if (dp_config_parse_ip4_prefix(tok[0], &ip, &r->plen) < 0)
			return dp_config_error(err, errlen, NULL,
				"bad prefix '%s' (expected a.b.c.d/len)", tok[0]);
		if (port_ref_parse(tok[2], &port) < 0)
			return dp_config_error(err, errlen, NULL,
				"bad port '%s' (N or N.VID, N 0..%d)", tok[2],
				DP_CONFIG_MAX_PORTS - 1);
	} else {
		return dp_config_error(err, errlen, NULL,
			"bad route '%s' (expected 'a.b.c.d/len via a.b.c.d port N', "
			"'a.b.c.d/len port N' or l3fwd's 'Ra.b.c.d/len N')",
			text);
	}
	if ((ip & ~plen_mask(r->plen)) != 0)
		return dp_config_error(err, errlen, NULL, "prefix '%s' has host bits set past /%u",
			tok[0], r->plen);
	r->prefix = ip;
	r->port = (uint16_t)port;
	return 0;
}

/* A route given where one next hop is all there may be. */
static int
one_path_only(const char *text, char *err, size_t errlen)
{
	return dp_config_error(err, errlen, NULL,
		"route '%s' has several next hops: not here (one 'via ADDR port N')", text);
}

int
dp_fwd_config_route4_parse(
	const char *text, struct dp_fwd_config_route4 *r, char *err, size_t errlen)
{
	struct dp_fwd_config_paths paths;
	int rc = dp_fwd_config_route4_parse_paths(text, r, &paths, err, errlen);

	if (rc == 0 && r->paths != NULL) {
		r->paths = NULL;
		return one_path_only(text, err, errlen);
	}
	return rc;
}

int
dp_fwd_config_route6_parse_paths(const char *text, struct dp_fwd_config_route6 *r,
	struct dp_fwd_config_paths *paths, char *err, size_t errlen)
{
	static const char *const expected =
		"expected 'PREFIX/len via ADDR port N', 'PREFIX/len port N' or 'RPREFIX/len N'";
	char buf[ROUTE_TEXT_MAX];
	char *tok[ROUTE_WORDS_MAX];
	const char *pfx, *port_s = NULL;
	unsigned int n;
	uint64_t port;
	int rc;

	memset(r, 0, sizeof(*r));
	paths->nb = 0;
	rc = route_words(text, buf, sizeof(buf), tok, err, errlen);
	if (rc < 0)
		return rc;
	n = (unsigned int)rc;
	if (n == 2 && tok[0][0] == 'R') {
		pfx = tok[0] + 1;
		port_s = tok[1];
	} else if (route_has_paths(tok, n)) {
		pfx = tok[0];
		rc = paths_parse(tok, n, true, text, paths, err, errlen);
		if (rc < 0)
			return rc;
		memcpy(r->gw, paths->p[0].gw6, 16);
		r->has_gw = true;
		r->port = paths->p[0].port;
		r->paths = paths->nb > 1 ? paths : NULL;
	} else if (n == 3 && strcmp(tok[1], "port") == 0) {
		pfx = tok[0];
		port_s = tok[2];
	} else {
		return dp_config_error(err, errlen, NULL, "bad route '%s' (%s)", text, expected);
	}
	if (dp_config_parse_ip6_prefix(pfx, r->prefix, &r->plen) < 0)
		return dp_config_error(err, errlen, NULL,
			"bad prefix '%s' (expected an IPv6 prefix/len, len 0..128%s)", pfx,
			strchr(pfx, ':') == NULL ? "; one family per route" : "");
	if (ip6_host_bits_set(r->prefix, r->plen))
		return dp_config_error(
			err, errlen, NULL, "prefix '%s' has host bits set past /%u", pfx, r->plen);
	if (port_s == NULL)
		return 0;
	if (port_ref_parse(port_s, &port) < 0)
		return dp_config_error(err, errlen, NULL, "bad port '%s' (N or N.VID, N 0..%d)",
			port_s, DP_CONFIG_MAX_PORTS - 1);
	r->port = (uint16_t)port;
	return 0;
}

int
dp_fwd_config_route6_parse(
	const char *text, struct dp_fwd_config_route6 *r, char *err, size_t errlen)
{
	struct dp_fwd_config_paths paths;
	int rc = dp_fwd_config_route6_parse_paths(text, r, &paths, err, errlen);

	if (rc == 0 && r->paths != NULL) {
		r->paths = NULL;
		return one_path_only(text, err, errlen);
	}
	return rc;
}

/* A route's next hops (in the parser's buffer) into memory of the config's own. */
static int
paths_keep(struct dp_fwd_config_paths **paths)
{
	struct dp_fwd_config_paths *p;

	if (*paths == NULL)
		return 0;
	p = malloc(sizeof(*p));
	if (p == NULL) {
		*paths = NULL;
		return -ENOMEM;
	}
	*p = **paths;
	*paths = p;
	return 0;
}

static int
route6_push(struct dp_fwd_routes_config *rt, const struct dp_fwd_config_route6 *r)
{
	if (rt->nb_routes6 == rt->cap_routes6) {
		struct dp_fwd_config_route6 *n =
			dp_array_grow(rt->routes6, &rt->cap_routes6, sizeof(*n), 64);

		if (n == NULL)
			return -ENOMEM;
		rt->routes6 = n;
	}
	rt->routes6[rt->nb_routes6++] = *r;
	return 0;
}

static int
route6_add_text(struct dp_fwd_routes_config *rt, const char *text, const struct dp_config_loc *loc,
	char *err, size_t errlen)
{
	struct dp_fwd_config_route6 r;
	struct dp_fwd_config_paths paths;
	char why[DP_CONFIG_ERR_LEN];

	if (dp_fwd_config_route6_parse_paths(text, &r, &paths, why, sizeof(why)) < 0)
		return dp_config_error(err, errlen, loc, "%s", why);
	r.loc = *loc;
	if (paths_keep(&r.paths) < 0 || route6_push(rt, &r) < 0) {
		free(r.paths);
		return dp_config_error(err, errlen, loc, "out of memory for routes");
	}
	return 0;
}

static int
route_add_text(struct dp_fwd_routes_config *rt, const char *text, const struct dp_config_loc *loc,
	char *err, size_t errlen)
{
	struct dp_fwd_config_route4 r;
	struct dp_fwd_config_paths paths;
	char why[DP_CONFIG_ERR_LEN];

	/* an IPv4 route has no ':' anywhere */
	if (strchr(text, ':') != NULL)
		return route6_add_text(rt, text, loc, err, errlen);
	if (dp_fwd_config_route4_parse_paths(text, &r, &paths, why, sizeof(why)) < 0)
		return dp_config_error(err, errlen, loc, "%s", why);
	r.loc = *loc;
	if (paths_keep(&r.paths) < 0 || route4_push(rt, &r) < 0) {
		free(r.paths);
		return dp_config_error(err, errlen, loc, "out of memory for routes");
	}
	return 0;
}

static int
route_line(void *arg, char *text, const struct dp_config_loc *loc, char *err, size_t errlen)
{
	return route_add_text(arg, text, loc, err, errlen);
}

int
dp_fwd_config_route_file_load(struct dp_config *cfg, const char *path, char *err, size_t errlen)
{
	return dp_config_read_lines(cfg, path, "route file", ROUTE_FILE_LINE_MAX, route_line,
		routes_at(cfg), err, errlen);
}

static int
route_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	return route_add_text(base, v, at->loc, err, errlen);
}

/* file: relative to the config file's folder, as a DP_CONFIG_PATH */
static int
route_file_parse(void *base __rte_unused, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	char path[PATH_MAX];
	char why[DP_CONFIG_ERR_LEN];

	if (v[0] == '/' || at->dir[0] == '\0')
		dp_strlcpy(path, v, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s/%s", at->dir, v);
	if (dp_fwd_config_route_file_load(at->cfg, path, why, sizeof(why)) < 0)
		return dp_config_error(err, errlen, at->loc, "in route file: %s", why);
	return 0;
}

static void
routes_free(void *base)
{
	struct dp_fwd_routes_config *rt = base;
	uint32_t i;

	for (i = 0; i < rt->nb_routes4; i++)
		free(rt->routes4[i].paths);
	for (i = 0; i < rt->nb_routes6; i++)
		free(rt->routes6[i].paths);
	free(rt->routes4);
	rt->routes4 = NULL;
	rt->nb_routes4 = rt->cap_routes4 = 0;
	free(rt->routes6);
	rt->routes6 = NULL;
	rt->nb_routes6 = rt->cap_routes6 = 0;
}

/* ---- neighbors ---- */

/* [neighbors] neigh: "ADDR lladdr MAC port N", IPv4 or IPv6 (a ':' makes it IPv6) */
static int
neigh_parse(void *base, const struct dp_config_key *key __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	const struct dp_config_loc *loc = at->loc;
	struct dp_fwd_neighbors_config *nc = base;
	char ip[64], w1[32], mac[64], w2[32], port[32], extra[8];
	struct rte_ether_addr ea;
	const char *why;
	uint8_t a6[16];
	uint32_t a4 = 0;
	uint64_t p;
	bool ip6;
	int k;

	k = sscanf(v, "%63s %31s %63s %31s %31s %7s", ip, w1, mac, w2, port, extra);
	if (k != 5 || strcmp(w1, "lladdr") != 0 || strcmp(w2, "port") != 0)
		return dp_config_error(err, errlen, loc,
			"bad neighbor '%s' (expected 'a.b.c.d lladdr xx:xx:xx:xx:xx:xx port N', or "
			"an IPv6 address instead of a.b.c.d)",
			v);
	ip6 = strchr(ip, ':') != NULL;
	if ((ip6 ? nc->nb_neighs6 : nc->nb_neighs4) == DP_FWD_CONFIG_MAX_NEIGHS)
		return dp_config_error(err, errlen, loc, "more than %d static %sneighbors",
			DP_FWD_CONFIG_MAX_NEIGHS, ip6 ? "IPv6 " : "");
	if (ip6 ? inet_pton(AF_INET6, ip, a6) != 1 : dp_config_parse_ip4(ip, &a4) < 0)
		return dp_config_error(err, errlen, loc, "bad neighbor address '%s'", ip);
	why = ip6 ? dp_config_ip6_not_unicast(a6) : ip4_not_unicast(a4);
	if (why != NULL)
		return dp_config_error(err, errlen, loc, "neighbor address '%s' is %s", ip, why);
	if (rte_ether_unformat_addr(mac, &ea) < 0)
		return dp_config_error(err, errlen, loc, "bad MAC address '%s'", mac);
	if (port_ref_parse(port, &p) < 0)
		return dp_config_error(err, errlen, loc, "bad port '%s'", port);
	if (ip6) {
		struct dp_fwd_config_neigh6 *n = &nc->neighs6[nc->nb_neighs6++];

		memcpy(n->ip, a6, sizeof(n->ip));
		n->mac = ea;
		n->port = (uint16_t)p;
		n->loc = *loc;
	} else {
		nc->neighs4[nc->nb_neighs4++] = (struct dp_fwd_config_neigh4){
			.ip = a4, .mac = ea, .port = (uint16_t)p, .loc = *loc
		};
	}
	return 0;
}

/* ---- checks against the ports ---- */

static uint16_t
port_of_addr4(const struct dp_config *cfg, uint32_t ip)
{
	uint8_t a[16] = { 0 };
	uint32_t be = htonl(ip);

	memcpy(a, &be, 4);
	return dp_config_port_of_addr(cfg, false, a);
}

/* @p *port (a port index or a sub-interface's reference) made the config port index it
 * names; an error at @p loc when @p cfg has no such port. */
static int
port_resolve(const struct dp_config *cfg, uint16_t *port, const char *what,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	uint16_t i = dp_config_port_resolve(cfg, *port);
	char b[16];

	if (i >= cfg->nb_ports)
		return dp_config_error(err, errlen, loc, "%s port %s, which is not defined", what,
			dp_config_port_ref_str(*port, b, sizeof(b)));
	*port = i;
	return 0;
}

/* The same for a route's one port or each of its next hops'. */
static int
route_ports_resolve(const struct dp_config *cfg, uint16_t *port, struct dp_fwd_config_paths *paths,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	unsigned int i;
	int rc;

	if (paths == NULL)
		return port_resolve(cfg, port, "route to", loc, err, errlen);
	for (i = 0; i < paths->nb; i++) {
		rc = port_resolve(cfg, &paths->p[i].port, "route to", loc, err, errlen);
		if (rc < 0)
			return rc;
	}
	*port = paths->p[0].port;
	return 0;
}

/*
 * Routes and neighbors name defined ports, and a host route is not a port's own
 * address. One check for both sections, in the order its messages always had:
 * IPv4 routes, IPv4 neighbors, IPv6 routes, IPv6 neighbors.
 */
static int
routes_validate(struct dp_config *cfg, char *err, size_t errlen)
{
	struct dp_fwd_routes_config *rt = dp_config_section_data(cfg, &dp_fwd_routes_section, 0);
	struct dp_fwd_neighbors_config *nc =
		dp_config_section_data(cfg, &dp_fwd_neighbors_section, 0);
	char a[16], a6[INET6_ADDRSTRLEN];
	int rc;
	uint32_t k; /* not uint16_t: more than 65535 routes */
	uint16_t i, j;

	for (k = 0; k < rt->nb_routes4; k++) {
		struct dp_fwd_config_route4 *r = &rt->routes4[k];

		rc = route_ports_resolve(cfg, &r->port, r->paths, &r->loc, err, errlen);
		if (rc < 0)
			return rc;
		if (r->plen == 32 && (j = port_of_addr4(cfg, r->prefix)) < cfg->nb_ports)
			return dp_config_error(err, errlen, &r->loc,
				"route %s/32 is port%u's own address (its route is the router "
				"itself)",
				dp_config_ip4_str(r->prefix, a, sizeof(a)), j);
	}
	for (i = 0; i < nc->nb_neighs4; i++) {
		struct dp_fwd_config_neigh4 *n = &nc->neighs4[i];

		rc = port_resolve(cfg, &n->port, "neighbor on", &n->loc, err, errlen);
		if (rc < 0)
			return rc;
	}
	for (k = 0; k < rt->nb_routes6; k++) {
		struct dp_fwd_config_route6 *r = &rt->routes6[k];

		rc = route_ports_resolve(cfg, &r->port, r->paths, &r->loc, err, errlen);
		if (rc < 0)
			return rc;
		if (r->plen == 128 &&
			(j = dp_config_port_of_addr(cfg, true, r->prefix)) < cfg->nb_ports)
			return dp_config_error(err, errlen, &r->loc,
				"route %s/128 is port%u's own address (its route is the router "
				"itself)",
				dp_config_ip6_str(r->prefix, a6, sizeof(a6)), j);
	}
	for (i = 0; i < nc->nb_neighs6; i++) {
		struct dp_fwd_config_neigh6 *n = &nc->neighs6[i];

		rc = port_resolve(cfg, &n->port, "neighbor on", &n->loc, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the sections ---- */

#define ROUTES_FIELD(member) DP_CONFIG_FIELD(struct dp_fwd_routes_config, member)

static const struct dp_config_key routes_keys[] = {
	{ .name = "route",
		.type = DP_CONFIG_CUSTOM,
		.parse = route_parse,
		.flags = DP_CONFIG_KEY_REPEAT,
		.syntax = "PREFIX/len via GW port N [weight W] [via GW port N [weight W]]... "
			  "(up to 16 next hops: ECMP), PREFIX/len port N (on-link), or l3fwd's "
			  "RPREFIX/len N",
		.unset = "none",
		.doc = "a route, IPv4 or IPv6 (a ':' makes it IPv6; one family per route); port N.VID: "
		       "sub-interface [portN.VID]" },
	{ .name = "file",
		.type = DP_CONFIG_CUSTOM,
		.parse = route_file_parse,
		.flags = DP_CONFIG_KEY_REPEAT,
		.syntax = "path",
		.unset = "none",
		.doc = "a route file: one route a line in the formats of route, # comments" },
	{ .name = "ip4_max",
		.type = DP_CONFIG_UINT,
		ROUTES_FIELD(ip4_max),
		.min = 0,
		.max = 1u << 28,
		.def = "0",
		.given_at = DP_CONFIG_OPT_FIELD(struct dp_fwd_routes_config, size_loc),
		.doc = "IPv4 prefixes the table has room for; 0 = from the routes" },
	{ .name = "ip4_tbl8",
		.type = DP_CONFIG_UINT,
		ROUTES_FIELD(ip4_tbl8),
		.min = 0,
		.max = 1u << 22,
		.def = "0",
		.given_at = DP_CONFIG_OPT_FIELD(struct dp_fwd_routes_config, size_loc),
		.doc = "256-entry groups for /24s with longer prefixes; 0 = from the routes" },
};

static const struct dp_config_key neighbors_keys[] = {
	{ .name = "neigh",
		.type = DP_CONFIG_CUSTOM,
		.parse = neigh_parse,
		.flags = DP_CONFIG_KEY_REPEAT,
		.syntax = "ADDR lladdr xx:xx:xx:xx:xx:xx port N",
		.unset = "none",
		.doc = "a static neighbor, IPv4 or IPv6; port N.VID: sub-interface [portN.VID]" },
};

struct dp_config_section dp_fwd_routes_section = {
	.name = "routes",
	.doc = "Static routes, IPv4 and IPv6, and the room of the IPv4 table. A route without "
	       "via is on-link: the destination is its own next hop.",
	.keys = routes_keys,
	.nb_keys = DP_ARRAY_SIZE(routes_keys),
	.size = sizeof(struct dp_fwd_routes_config),
	.validate = routes_validate,
	.free = routes_free,
};

struct dp_config_section dp_fwd_neighbors_section = {
	.name = "neighbors",
	.doc = "Static neighbors: next hops whose MAC address is known and never asked for.",
	.keys = neighbors_keys,
	.nb_keys = DP_ARRAY_SIZE(neighbors_keys),
	.size = sizeof(struct dp_fwd_neighbors_config),
};
