/* SPDX-License-Identifier: BSD-3-Clause */
/* [relayN]: the relay's config sections, their keys and their checks against the ports. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_common.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_relay.h"

struct dp_config_section dp_relay_section;

static struct dp_relay_config *
relay_config_at(struct dp_config *cfg, unsigned int i)
{
	return dp_config_section_data(cfg, &dp_relay_section, i);
}

const struct dp_relay_config *
dp_relay_config(const struct dp_config *cfg, unsigned int i)
{
	return i < DP_RELAY_MAX ? dp_config_section_data(cfg, &dp_relay_section, i) : NULL;
}

/* "a.b.c.d:port" or "[ipv6]:port" -> family, address (network order), port */
static int
parse_udp_addr(const char *v, bool *ip6, uint8_t addr[16], uint16_t *port)
{
	char buf[80];
	char *sep, *host;
	uint64_t u;

	if (dp_strlcpy(buf, v, sizeof(buf)) < 0)
		return -EINVAL;
	memset(addr, 0, 16);
	if (buf[0] == '[') {
		sep = strchr(buf, ']');
		if (sep == NULL || sep[1] != ':')
			return -EINVAL;
		*sep = '\0';
		host = buf + 1;
		sep++;
		if (inet_pton(AF_INET6, host, addr) != 1)
			return -EINVAL;
		*ip6 = true;
	} else {
		sep = strchr(buf, ':');
		if (sep == NULL || strchr(sep + 1, ':') != NULL)
			return -EINVAL;
		*sep = '\0';
		if (inet_pton(AF_INET, buf, addr) != 1)
			return -EINVAL;
		*ip6 = false;
	}
	if (dp_config_parse_uint(sep + 1, 1, 65535, &u) < 0)
		return -EINVAL;
	*port = (uint16_t)u;
	return 0;
}

static const char relay_addr_expected[] = "expected a.b.c.d:port or [ipv6]:port, port 1..65535";

static int
relay_listen_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_relay_config *r = base;

	if (parse_udp_addr(v, &r->listen.ip6, r->listen.addr, &r->listen.port) < 0)
		return dp_config_error(err, errlen, at->loc, "bad listen address '%s' (%s)", v,
			relay_addr_expected);
	r->ip6 = r->listen.ip6;
	return 0;
}

static int
relay_backend_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_relay_config *r = base;
	struct dp_relay_addr *b;

	if (r->nb_backends == DP_RELAY_MAX_BACKENDS)
		return dp_config_error(err, errlen, at->loc, "more than %d backends in [%s]",
			DP_RELAY_MAX_BACKENDS, at->section);
	b = &r->backends[r->nb_backends];
	if (parse_udp_addr(v, &b->ip6, b->addr, &b->port) < 0)
		return dp_config_error(
			err, errlen, at->loc, "bad backend '%s' (%s)", v, relay_addr_expected);
	/* the family is checked against listen's in dp_config_validate() */
	b->loc = *at->loc;
	r->nb_backends++;
	return 0;
}

static int
relay_source_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_relay_config *r = base;
	struct in_addr a4;

	memset(r->source, 0, sizeof(r->source));
	r->source_ip6 = strchr(v, ':') != NULL;
	if (!r->source_ip6 && inet_pton(AF_INET, v, &a4) == 1)
		memcpy(r->source, &a4, 4);
	else if (!r->source_ip6 || inet_pton(AF_INET6, v, r->source) != 1)
		return dp_config_error(err, errlen, at->loc,
			"bad source address '%s' (expected an address of a port, IPv4 or IPv6, "
			"no port)",
			v);
	return 0;
}

/* Also applied as the default when the section first appears: ports_loc is then its line. */
static int
relay_ports_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_relay_config *r = base;
	char buf[32];
	char *dash;
	uint64_t lo, hi;

	if (dp_strlcpy(buf, v, sizeof(buf)) < 0 || (dash = strchr(buf, '-')) == NULL)
		goto bad_ports;
	*dash = '\0';
	if (dp_config_parse_uint(dp_config_trim(buf), 1024, 65535, &lo) < 0 ||
		dp_config_parse_uint(dp_config_trim(dash + 1), 1024, 65535, &hi) < 0 || hi < lo)
		goto bad_ports;
	r->port_lo = (uint16_t)lo;
	r->port_hi = (uint16_t)hi;
	r->ports_loc = *at->loc;
	return 0;
bad_ports:
	return dp_config_error(err, errlen, at->loc,
		"ports '%s' must be LOW-HIGH within 1024..65535 (the relay's source ports, e.g. "
		"20000-29999)",
		v);
}

/* A profile sets the timeout, unless "timeout =" was given (before or after it). */
static int
relay_profile_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_relay_config *r = base;

	if (strcmp(v, "media") == 0) {
		if (!r->timeout_set)
			r->timeout_s = DP_RELAY_TIMEOUT_MEDIA;
	} else if (strcmp(v, "default") == 0) {
		if (!r->timeout_set)
			r->timeout_s = DP_RELAY_TIMEOUT;
	} else {
		return dp_config_error(err, errlen, at->loc,
			"profile '%s' unknown (expected default (timeout %d s) or media "
			"(timeout %d s))",
			v, DP_RELAY_TIMEOUT, DP_RELAY_TIMEOUT_MEDIA);
	}
	return 0;
}

static bool
relay_addr_is_port(const struct dp_config *cfg, bool ip6, const uint8_t addr[16])
{
	return dp_config_port_of_addr(cfg, ip6, addr) < cfg->nb_ports;
}

static const char *
relay_addr_str(bool ip6, const uint8_t addr[16], char *buf, size_t len)
{
	if (inet_ntop(ip6 ? AF_INET6 : AF_INET, addr, buf, (socklen_t)len) == NULL)
		dp_strlcpy(buf, "?", len);
	return buf;
}

/* Families agree, addresses are the ports', listen ports and relay port ranges do not clash. */
static int
relay_validate(struct dp_config *cfg, char *err, size_t errlen)
{
	uint16_t i, j, b;
	char a[INET6_ADDRSTRLEN];

	for (i = 0; i < DP_RELAY_MAX; i++) {
		struct dp_relay_config *r = relay_config_at(cfg, i);
		const uint8_t *src;
		uint32_t nports;

		if (!r->defined)
			continue;
		if (r->listen.loc.file == NULL)
			return dp_config_error(
				err, errlen, &r->loc, "[relay%u] has no 'listen = ADDR:PORT'", i);
		if (r->nb_backends == 0)
			return dp_config_error(err, errlen, &r->loc,
				"[relay%u] has no 'backend = ADDR:PORT' (one or more)", i);
		if (!relay_addr_is_port(cfg, r->ip6, r->listen.addr))
			return dp_config_error(err, errlen, &r->listen.loc,
				"listen address %s is not the %s address of any [portN]",
				relay_addr_str(r->ip6, r->listen.addr, a, sizeof(a)),
				r->ip6 ? "ip6" : "ip4");
		for (b = 0; b < r->nb_backends; b++) {
			const struct dp_relay_addr *be = &r->backends[b];
			const bool ip6 = be->ip6;

			if (ip6 != r->ip6)
				return dp_config_error(err, errlen, &be->loc,
					"backend is %s but listen is %s: a relay does not change "
					"the address family",
					ip6 ? "IPv6" : "IPv4", r->ip6 ? "IPv6" : "IPv4");
			if (relay_addr_is_port(cfg, r->ip6, be->addr))
				return dp_config_error(err, errlen, &be->loc,
					"backend %s is an address of dpfwd itself",
					relay_addr_str(r->ip6, be->addr, a, sizeof(a)));
		}
		if (r->has_source) {
			if (r->source_ip6 != r->ip6 || !relay_addr_is_port(cfg, r->ip6, r->source))
				return dp_config_error(err, errlen, &r->source_loc,
					"source %s is not the %s address of any [portN]",
					relay_addr_str(r->source_ip6, r->source, a, sizeof(a)),
					r->ip6 ? "ip6" : "ip4");
		} else {
			memcpy(r->source, r->listen.addr, 16);
		}
		nports = (uint32_t)r->port_hi - r->port_lo + 1;
		if (r->max_sessions == 0)
			r->max_sessions = nports;
		else if (r->max_sessions > nports)
			return dp_config_error(err, errlen, &r->max_loc,
				"max_sessions %u is more than the %u relay ports of 'ports = %u-%u' "
				"(each session takes one)",
				r->max_sessions, nports, r->port_lo, r->port_hi);
		src = r->source;
		for (j = 0; j < i; j++) {
			const struct dp_relay_config *o = relay_config_at(cfg, j);

			if (!o->defined || o->ip6 != r->ip6)
				continue;
			if (memcmp(o->listen.addr, r->listen.addr, 16) == 0 &&
				o->listen.port == r->listen.port)
				return dp_config_error(err, errlen, &r->listen.loc,
					"[relay%u] listens on the same address and port as [relay%u]",
					i, j);
			if (memcmp(o->source, src, 16) == 0 && r->port_lo <= o->port_hi &&
				o->port_lo <= r->port_hi)
				return dp_config_error(err, errlen, &r->ports_loc,
					"relay ports %u-%u of [relay%u] overlap those of [relay%u] "
					"(%u-%u) on %s: give each its own 'ports = LOW-HIGH'",
					r->port_lo, r->port_hi, i, j, o->port_lo, o->port_hi,
					relay_addr_str(r->ip6, src, a, sizeof(a)));
		}
		/* a listen port inside any relay range on the same address would be ambiguous */
		for (j = 0; j < DP_RELAY_MAX; j++) {
			const struct dp_relay_config *o = relay_config_at(cfg, j);
			const uint8_t *osrc = o->has_source ? o->source : o->listen.addr;

			if (!o->defined || o->ip6 != r->ip6 ||
				memcmp(osrc, r->listen.addr, 16) != 0)
				continue;
			if (r->listen.port >= o->port_lo && r->listen.port <= o->port_hi)
				return dp_config_error(err, errlen, &r->listen.loc,
					"listen port %u is inside the relay ports %u-%u of [relay%u]",
					r->listen.port, o->port_lo, o->port_hi, j);
		}
	}
	return 0;
}

#define RELAY_PROFILE_DOC                                                                          \
	"media: timeout " RTE_STR(DP_RELAY_TIMEOUT_MEDIA) " s unless timeout is given"

static const struct dp_config_key relay_keys[] = {
	{ .name = "listen",
		.type = DP_CONFIG_CUSTOM,
		.parse = relay_listen_parse,
		.syntax = "a.b.c.d:port or [ipv6]:port",
		.given_at = DP_CONFIG_OPT_FIELD(struct dp_relay_config, listen.loc),
		.unset = "required",
		.doc = "where clients send: an ip4 or ip6 address of a [portN]" },
	{ .name = "backend",
		.type = DP_CONFIG_CUSTOM,
		.parse = relay_backend_parse,
		.flags = DP_CONFIG_KEY_REPEAT,
		.syntax = "a.b.c.d:port or [ipv6]:port",
		.unset = "required (1 to " RTE_STR(DP_RELAY_MAX_BACKENDS) ")",
		.doc = "a backend, of listen's family" },
	{ .name = "source",
		.type = DP_CONFIG_CUSTOM,
		.parse = relay_source_parse,
		.syntax = "an IPv4 or IPv6 address",
		.given = DP_CONFIG_OPT_FIELD(struct dp_relay_config, has_source),
		.given_at = DP_CONFIG_OPT_FIELD(struct dp_relay_config, source_loc),
		.unset = "listen's address",
		.doc = "the address backends see (a [portN]'s)" },
	{ .name = "ports",
		.type = DP_CONFIG_CUSTOM,
		.parse = relay_ports_parse,
		.syntax = "LOW-HIGH within 1024..65535",
		.def = "20000-29999",
		.doc = "relay ports on source, split evenly between the workers" },
	{ .name = "timeout",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_relay_config, timeout_s),
		.min = 1,
		.max = 86400,
		.given = DP_CONFIG_OPT_FIELD(struct dp_relay_config, timeout_set),
		.def = RTE_STR(DP_RELAY_TIMEOUT),
		.doc = "seconds a session may stay idle" },
	{ .name = "profile",
		.type = DP_CONFIG_CUSTOM,
		.parse = relay_profile_parse,
		.syntax = "default or media",
		.def = "default",
		.doc = RELAY_PROFILE_DOC },
	{ .name = "max_sessions",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct dp_relay_config, max_sessions),
		.min = 1,
		.max = 1u << 24,
		.given_at = DP_CONFIG_OPT_FIELD(struct dp_relay_config, max_loc),
		.unset = "one per relay port",
		.doc = "sessions at once, shared evenly by the workers" },
};

static bool
relay_open(struct dp_config *cfg __rte_unused, void *base, unsigned int idx __rte_unused,
	const struct dp_config_loc *loc)
{
	struct dp_relay_config *r = base;

	if (r->defined)
		return false;
	r->defined = true;
	r->loc = *loc;
	return true;
}

struct dp_config_section dp_relay_section = {
	.name = "relay",
	.count = DP_RELAY_MAX,
	.doc = "A UDP relay service: a client sending to listen gets a session with one backend; "
	       "its datagrams go on from source and a relay port, and the backend's answers to "
	       "that port go back to the client from listen.",
	.keys = relay_keys,
	.nb_keys = DP_ARRAY_SIZE(relay_keys),
	.size = sizeof(struct dp_relay_config),
	.open = relay_open,
	.validate = relay_validate,
};
