/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the route parsers: dp_fwd_config_route_file_load(),
 * dp_fwd_config_route4_parse() and dp_fwd_config_route6_parse(). No EAL: they need none.
 *
 * Each input is one route file. It is written to a file in a private folder
 * (made once, rewritten for each input) and loaded into a config that has
 * ports 0..15 and an lcore map, so that every port a line may name exists and
 * dp_config_validate() must accept whatever the loader accepted.
 *
 * The loader is checked against a model built here from the single-line
 * parsers: the input is cut into lines as dp_config_read_lines() promises (a line over
 * 1022 bytes is refused, "#" starts a comment, blank lines are skipped, a line
 * with ':' is IPv6), and each line is parsed alone. The file must load iff
 * every line parses, an error must be exactly "file:line: " + the first bad
 * line's own message, and the routes kept must be the lines' routes, in order,
 * with their line numbers. A line with a NUL byte is refused (after the
 * length check) as not text.
 *
 * Every route a parser accepts (each raw line is also given to both parsers
 * as is) must keep what dp_fwd_config.h promises: length 0..32 or 0..128, no
 * host bits past it, port 0..15, an IPv6 gateway that is unicast. Its text
 * form (dp_config_ip4_str, dp_config_ip6_str) in each line format must parse
 * back to the same route. A refused line must leave a non-empty, terminated
 * message.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <fcntl.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_fwd_config.h"
#include "fuzz_tmpdir.h"

/* read_lines()'s limit for route files */
#define ROUTE_LINE_MAX 1022
/* what the buffers hold before a call: a message must overwrite and end it */
#define ERR_FILL 0x5a

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *path;
static int fd = -1;
/* ports 0..15 and an lcore map: set up once, copied for each input */
static struct dp_config base;

/* The model's view of one accepted line. */
struct model_route {
	bool ip6;
	int line;
	struct dp_fwd_config_route4 r4;
	struct dp_fwd_config_route6 r6;
	struct dp_fwd_config_paths paths; /**< a route with several next hops points here */
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[DP_CONFIG_ERR_LEN];
	char set[64];
	unsigned int p;

	(void)argc;
	(void)argv;
	fuzz_tmp_make("fuzz_routes", "routes");
	path = fuzz_tmp_file("routes.txt");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		fuzz_die("%s: %s", path, strerror(errno));
	fuzz_tmp.fd = fd;

	dp_config_init(&base);
	for (p = 0; p < DP_CONFIG_MAX_PORTS; p++) {
		snprintf(set, sizeof(set), "port%u.dev=net_null%u", p, p);
		if (dp_config_set(&base, set, err, sizeof(err)) != 0)
			fuzz_die("%s: %s", set, err);
	}
	if (dp_config_set(&base, "lcores.rx=(0,0,1)", err, sizeof(err)) != 0)
		fuzz_die("lcores: %s", err);
	return 0;
}

/* After a refusal: a message, ended inside the buffer, that is not what was there. */
static void
check_msg(const char *err, size_t len, const char *what, const char *text)
{
	if (memchr(err, '\0', len) == NULL)
		fuzz_die("%s '%s': message not terminated", what, text);
	if (err[0] == '\0' || (uint8_t)err[0] == ERR_FILL)
		fuzz_die("%s '%s': refused without a message", what, text);
}

static uint32_t
mask4(uint8_t plen)
{
	return plen == 0 ? 0 : ~0u << (32 - plen);
}

static bool
host_bits6(const uint8_t a[16], uint8_t plen)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		unsigned int bits = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * i : 0;
		uint8_t keep = (uint8_t)(0xff00 >> bits);

		if ((a[i] & ~keep) != 0)
			return true;
	}
	return false;
}

static bool
same4(const struct dp_fwd_config_route4 *a, const struct dp_fwd_config_route4 *b)
{
	return a->prefix == b->prefix && a->plen == b->plen && a->has_gw == b->has_gw &&
	       a->gw == b->gw && a->port == b->port;
}

static bool
same6(const struct dp_fwd_config_route6 *a, const struct dp_fwd_config_route6 *b)
{
	return memcmp(a->prefix, b->prefix, 16) == 0 && a->plen == b->plen &&
	       a->has_gw == b->has_gw && memcmp(a->gw, b->gw, 16) == 0 && a->port == b->port;
}

/* The same next hops (ECMP), or none beyond the route's own. */
static bool
same_paths(const struct dp_fwd_config_paths *a, const struct dp_fwd_config_paths *b)
{
	unsigned int i;

	if (a == NULL || b == NULL)
		return a == b;
	if (a->nb != b->nb)
		return false;
	for (i = 0; i < a->nb; i++)
		if (a->p[i].gw != b->p[i].gw || memcmp(a->p[i].gw6, b->p[i].gw6, 16) != 0 ||
			a->p[i].port != b->p[i].port || a->p[i].weight != b->p[i].weight)
			return false;
	return true;
}

/* A route's port: a port index, or a sub-interface's reference (port N.VID). */
static bool
port_ok(uint16_t port)
{
	return port < DP_CONFIG_MAX_PORTS || dp_config_port_ref_is_vlan(port);
}

/* Whether a loaded route, or a next hop of one, names a sub-interface. */
static bool
names_subif(const struct dp_fwd_routes_config *rt)
{
	const struct dp_fwd_config_paths *pa;
	unsigned int i, j;

	for (i = 0; i < rt->nb_routes4 + rt->nb_routes6; i++) {
		const bool v6 = i >= rt->nb_routes4;
		const unsigned int k = v6 ? i - rt->nb_routes4 : i;

		if (dp_config_port_ref_is_vlan(v6 ? rt->routes6[k].port : rt->routes4[k].port))
			return true;
		pa = v6 ? rt->routes6[k].paths : rt->routes4[k].paths;
		for (j = 0; pa != NULL && j < pa->nb; j++)
			if (dp_config_port_ref_is_vlan(pa->p[j].port))
				return true;
	}
	return false;
}

/* A route dp_fwd_config_route4_parse() accepted: its promises, and its text forms read back. */
static void
check_route4(const struct dp_fwd_config_route4 *r, const char *text)
{
	char err[DP_CONFIG_ERR_LEN], line[128], a[16], g[16], pb[16];
	struct dp_fwd_config_route4 back;

	if (r->plen > 32 || (r->prefix & ~mask4(r->plen)) != 0)
		fuzz_die("'%s': accepted prefix %08x/%u", text, r->prefix, r->plen);
	if (!port_ok(r->port) || (!r->has_gw && r->gw != 0))
		fuzz_die(
			"'%s': accepted port %u, gateway %d %08x", text, r->port, r->has_gw, r->gw);
	dp_config_ip4_str(r->prefix, a, sizeof(a));
	dp_config_port_ref_str(r->port, pb, sizeof(pb));
	if (r->has_gw)
		snprintf(line, sizeof(line), "%s/%u via %s port %s", a, r->plen,
			dp_config_ip4_str(r->gw, g, sizeof(g)), pb);
	else
		snprintf(line, sizeof(line), "%s/%u port %s", a, r->plen, pb);
	if (dp_fwd_config_route4_parse(line, &back, err, sizeof(err)) != 0 || !same4(r, &back))
		fuzz_die("'%s' read back from '%s' differs (%s)", line, text, err);
	if (!r->has_gw && !dp_config_port_ref_is_vlan(r->port)) {
		/* l3fwd's rule format */
		snprintf(line, sizeof(line), "R%s/%u %u", a, r->plen, r->port);
		if (dp_fwd_config_route4_parse(line, &back, err, sizeof(err)) != 0 ||
			!same4(r, &back))
			fuzz_die("'%s' read back from '%s' differs (%s)", line, text, err);
	}
}

/* The same for dp_fwd_config_route6_parse(). */
static void
check_route6(const struct dp_fwd_config_route6 *r, const char *text)
{
	static const uint8_t zero[16];
	char err[DP_CONFIG_ERR_LEN], line[160], a[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN], pb[16];
	struct dp_fwd_config_route6 back;

	if (r->plen > 128 || host_bits6(r->prefix, r->plen))
		fuzz_die("'%s': accepted prefix length %u with host bits", text, r->plen);
	if (!port_ok(r->port))
		fuzz_die("'%s': accepted port %u", text, r->port);
	if (r->has_gw && (r->gw[0] == 0xff || (memcmp(r->gw, zero, 15) == 0 && r->gw[15] <= 1)))
		fuzz_die("'%s': accepted a gateway that is not unicast", text);
	if (!r->has_gw && memcmp(r->gw, zero, 16) != 0)
		fuzz_die("'%s': a gateway without has_gw", text);
	dp_config_ip6_str(r->prefix, a, sizeof(a));
	dp_config_port_ref_str(r->port, pb, sizeof(pb));
	if (r->has_gw)
		snprintf(line, sizeof(line), "%s/%u via %s port %s", a, r->plen,
			dp_config_ip6_str(r->gw, g, sizeof(g)), pb);
	else
		snprintf(line, sizeof(line), "%s/%u port %s", a, r->plen, pb);
	if (dp_fwd_config_route6_parse(line, &back, err, sizeof(err)) != 0 || !same6(r, &back))
		fuzz_die("'%s' read back from '%s' differs (%s)", line, text, err);
	if (!r->has_gw && !dp_config_port_ref_is_vlan(r->port)) {
		snprintf(line, sizeof(line), "R%s/%u %u", a, r->plen, r->port);
		if (dp_fwd_config_route6_parse(line, &back, err, sizeof(err)) != 0 ||
			!same6(r, &back))
			fuzz_die("'%s' read back from '%s' differs (%s)", line, text, err);
	}
}

/* One raw line (comment, spaces and all) through both parsers, as a caller might pass it. */
static void
parse_raw(const char *text)
{
	char err[DP_CONFIG_ERR_LEN];
	struct dp_fwd_config_route4 r4;
	struct dp_fwd_config_route6 r6;
	int rc;

	memset(err, ERR_FILL, sizeof(err));
	rc = dp_fwd_config_route4_parse(text, &r4, err, sizeof(err));
	if (rc == 0 && (r4.loc.file != NULL || r4.loc.line != 0))
		fuzz_die("'%s': the parser set a location", text);
	if (rc == 0)
		check_route4(&r4, text);
	else if (rc != -EINVAL)
		fuzz_die("route_parse '%s': rc %d", text, rc);
	else
		check_msg(err, sizeof(err), "route_parse", text);

	memset(err, ERR_FILL, sizeof(err));
	rc = dp_fwd_config_route6_parse(text, &r6, err, sizeof(err));
	if (rc == 0 && (r6.loc.file != NULL || r6.loc.line != 0))
		fuzz_die("'%s': the parser set a location", text);
	if (rc == 0)
		check_route6(&r6, text);
	else if (rc != -EINVAL)
		fuzz_die("route6_parse '%s': rc %d", text, rc);
	else
		check_msg(err, sizeof(err), "route6_parse", text);
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || (e[-1] >= '\t' && e[-1] <= '\r')))
		*--e = '\0';
	return s;
}

/* The loader's message for @p line: "file:line: " and @p what, cut as the loader cuts it. */
static int
model_error(char *err, size_t errlen, int line, const char *what)
{
	size_t n = (size_t)snprintf(err, errlen, "%s:%d: ", path, line);

	if (n < errlen)
		dp_strlcpy(err + n, what, errlen - n);
	return -EINVAL;
}

/*
 * The model: what the loader must do with @p data. @return 0 and the routes in
 * @p out (count in @p nb_out), or -EINVAL with the expected message in @p err.
 */
static int
model_load(const uint8_t *data, size_t size, struct model_route *out, unsigned int *nb_out,
	char *err, size_t errlen)
{
	char buf[ROUTE_LINE_MAX + 2];
	char why[DP_CONFIG_ERR_LEN];
	size_t pos = 0;
	int line = 0;

	*nb_out = 0;
	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t len = nl != NULL ? (size_t)(nl - (data + pos)) : size - pos;
		struct model_route *m = &out[*nb_out];
		char *s, *hash;
		int rc;

		line++;
		if (len > ROUTE_LINE_MAX) {
			snprintf(why, sizeof(why), "line longer than %d bytes", ROUTE_LINE_MAX);
			return model_error(err, errlen, line, why);
		}
		if (memchr(data + pos, '\0', len) != NULL)
			return model_error(
				err, errlen, line, "NUL byte in the line (not a text file?)");
		memcpy(buf, data + pos, len);
		buf[len] = '\0';
		pos += len + 1;
		parse_raw(buf);
		hash = strchr(buf, '#');
		if (hash != NULL)
			*hash = '\0';
		s = trim(buf);
		if (*s == '\0')
			continue;
		memset(why, ERR_FILL, sizeof(why));
		m->line = line;
		m->ip6 = strchr(s, ':') != NULL;
		if (m->ip6)
			rc = dp_fwd_config_route6_parse_paths(
				s, &m->r6, &m->paths, why, sizeof(why));
		else
			rc = dp_fwd_config_route4_parse_paths(
				s, &m->r4, &m->paths, why, sizeof(why));
		if (rc != 0) {
			check_msg(why, sizeof(why), "route line", s);
			return model_error(err, errlen, line, why);
		}
		(*nb_out)++;
	}
	return 0;
}

/* "<path>:<line>: " with 1 <= line <= @p lines: where a refused file says it went wrong. */
static void
check_file_line(const char *err, unsigned int lines)
{
	size_t n = strlen(path);
	char *end;
	long line;

	if (strncmp(err, path, n) != 0 || err[n] != ':')
		fuzz_die("error '%s' does not name the file", err);
	line = strtol(err + n + 1, &end, 10);
	if (end == err + n + 1 || strncmp(end, ": ", 2) != 0 || line < 1 || line > (long)lines)
		fuzz_die("error '%s' does not name a line 1..%u", err, lines);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_route *model;
	char err[DP_CONFIG_ERR_LEN], want[DP_CONFIG_ERR_LEN];
	unsigned int nb_model = 0, lines, i, k4 = 0, k6 = 0;
	const struct dp_fwd_routes_config *rt;
	struct dp_config cfg;
	int rc, want_rc = 0;

	/* the shortest route line is 7 bytes ("R::/0 0"): room for every line */
	model = malloc((size / 4 + 1) * sizeof(*model));
	if (model == NULL)
		fuzz_die("no memory for %zu bytes", size);
	if (pwrite(fd, data, size, 0) != (ssize_t)size || ftruncate(fd, (off_t)size) != 0)
		fuzz_die("cannot write %s: %s", path, strerror(errno));
	lines = 0;
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	lines += size > 0 && data[size - 1] != '\n';
	want_rc = model_load(data, size, model, &nb_model, want, sizeof(want));

	cfg = base;
	rt = dp_fwd_routes_config(&cfg);
	memset(err, ERR_FILL, sizeof(err));
	rc = dp_fwd_config_route_file_load(&cfg, path, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL)
		fuzz_die("load: rc %d", rc);
	if (rc != 0) {
		check_msg(err, sizeof(err), "load", path);
		check_file_line(err, lines);
		if (want_rc == 0 || strcmp(err, want) != 0)
			fuzz_die("load: error '%s', the lines alone say '%s'", err,
				want_rc ? want : "no error");
	} else if (want_rc != 0) {
		fuzz_die("load: no error, the lines alone say '%s'", want);
	} else if (rt->nb_routes4 + rt->nb_routes6 != nb_model) {
		fuzz_die("load: %u + %u routes, the lines alone %u", rt->nb_routes4, rt->nb_routes6,
			nb_model);
	}
	for (i = 0; rc == 0 && i < nb_model; i++) {
		const struct model_route *m = &model[i];
		const struct dp_config_loc *loc;
		bool same;

		if (m->ip6) {
			same = same6(&rt->routes6[k6], &m->r6) &&
			       same_paths(rt->routes6[k6].paths, m->r6.paths);
			loc = &rt->routes6[k6++].loc;
		} else {
			same = same4(&rt->routes4[k4], &m->r4) &&
			       same_paths(rt->routes4[k4].paths, m->r4.paths);
			loc = &rt->routes4[k4++].loc;
		}
		if (!same)
			fuzz_die("load: line %d's route differs from the line's own", m->line);
		if (loc->line != m->line || loc->file == NULL || strcmp(loc->file, path) != 0)
			fuzz_die("load: line %d's route says %s:%d", m->line,
				loc->file ? loc->file : "(null)", loc->line);
	}
	for (i = 0; rc == 0 && i < rt->nb_routes4; i++)
		check_route4(&rt->routes4[i], "(loaded)");
	for (i = 0; rc == 0 && i < rt->nb_routes6; i++)
		check_route6(&rt->routes6[i], "(loaded)");
	if (rc == 0) {
		/* every port 0..15 exists and no sub-interface does: only a route to a
		 * sub-interface may be refused, as one that is not defined */
		memset(err, ERR_FILL, sizeof(err));
		rc = dp_config_validate(&cfg, err, sizeof(err));
		if (rc != 0 && !(names_subif(rt) && memchr(err, '\0', sizeof(err)) &&
				       strstr(err, "which is not defined") != NULL &&
				       strncmp(err, path, strlen(path)) == 0))
			fuzz_die("validate after a good load: rc %d '%s'", rc,
				memchr(err, '\0', sizeof(err)) ? err : "?");
	}
	dp_config_free(&cfg);
	free(model);
	return 0;
}
