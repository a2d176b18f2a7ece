/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config files are INI, read by DPDK's rte_cfgfile. rte_cfgfile does not keep
 * line numbers, truncates long values silently and accepts a repeated section
 * (then shows only the first), so before handing a file to it we scan it once
 * ourselves: that scan rejects what rte_cfgfile would mangle, naming file:line,
 * and records the line of every entry so that later errors can name it too.
 */
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_cfgfile.h>
#include <rte_ether.h>
#include <rte_mempool.h>

#include "dp_build_config.h"
#include "dp_common.h"
#include "dp_config.h"

#define CFG_COMMENT       '#'
#define SCAN_MAX_SECTIONS 64
#define SCAN_MAX_ENTRIES  4096
#define VALUE_MAX         1024
/* rte_cfgfile reads lines into CFG_NAME_LEN + CFG_VALUE_LEN + 4 bytes and fails
 * the whole file (no line number) on a longer one, comments included */
#define CFGFILE_LINE_MAX (CFG_NAME_LEN + CFG_VALUE_LEN + 2)

struct scan_entry {
	int section; /* index in scan.sections */
	int line;
};

struct scan {
	char sections[SCAN_MAX_SECTIONS][CFG_NAME_LEN];
	int section_line[SCAN_MAX_SECTIONS];
	int nb_sections;
	struct scan_entry entries[SCAN_MAX_ENTRIES];
	int nb_entries;
};

static int __rte_format_printf(4, 5)
	fail(char *err, size_t errlen, const struct dp_config_loc *loc, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (loc != NULL && loc->file != NULL && loc->line > 0)
		n = snprintf(err, errlen, "%s:%d: ", loc->file, loc->line);
	else if (loc != NULL && loc->file != NULL)
		n = snprintf(err, errlen, "%s: ", loc->file);
	if (n < 0 || (size_t)n >= errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * A growable array full: @p arr again with room for twice @p *cap elements of
 * @p elt bytes (@p first the first time), @p *cap raised; NULL (@p arr kept) if
 * memory is short.
 */
static void *
array_grow(void *arr, uint32_t *cap, size_t elt, uint32_t first)
{
	uint32_t n = *cap ? *cap * 2 : first;
	void *a = realloc(arr, n * elt);

	if (a != NULL)
		*cap = n;
	return a;
}

static const char *
remember_file(struct dp_config *cfg, const char *path)
{
	unsigned int i;

	for (i = 0; i < cfg->nb_files; i++)
		if (strcmp(cfg->files[i], path) == 0)
			return cfg->files[i];
	/* as many as there are route files: a fixed table would name the wrong file */
	if (cfg->nb_files == cfg->cap_files) {
		char **n = array_grow(cfg->files, &cfg->cap_files, sizeof(*n), 8);

		if (n == NULL)
			return "?";
		cfg->files = n;
	}
	cfg->files[cfg->nb_files] = strdup(path);
	if (cfg->files[cfg->nb_files] == NULL)
		return "?";
	return cfg->files[cfg->nb_files++];
}

/* ---- value parsers: each returns 0 or -EINVAL with a message ---- */

static int
parse_u64(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	/* digits only: strtoull() would also take a sign or leading blanks */
	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	/* decimal or 0x hex; base 0 would read a leading 0 as octal ("010" = 8) */
	x = strtoull(v, &end, v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 16 : 10);
	if (errno != 0 || *end != '\0' || x < min || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

static int
parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int
parse_ip4(const char *v, uint32_t *out)
{
	struct in_addr a;

	if (inet_pton(AF_INET, v, &a) != 1)
		return -EINVAL;
	*out = ntohl(a.s_addr);
	return 0;
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

/* "a.b.c.d/len" -> address and length; host bits are kept (callers decide) */
static int
parse_ip4_plen(const char *v, uint32_t *ip, uint8_t *plen)
{
	char buf[64];
	char *slash;
	uint64_t len;

	if (dp_strlcpy(buf, v, sizeof(buf)) < 0)
		return -EINVAL;
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -EINVAL;
	*slash = '\0';
	if (parse_ip4(buf, ip) < 0 || parse_u64(slash + 1, 0, 32, &len) < 0)
		return -EINVAL;
	*plen = (uint8_t)len;
	return 0;
}

/*
 * [dpfwd] metrics: "off", "on" (127.0.0.1:9108), "PORT" (on 127.0.0.1), "ADDR:PORT" with a
 * numeric IPv4 address or "localhost", "[ADDR6]:PORT". Port 0 = any free port.
 */
static int
parse_metrics(struct dp_config *cfg, const char *v, const struct dp_config_loc *loc, char *err,
	size_t errlen)
{
	static const char *const expected =
		"expected off, on (= 127.0.0.1:9108), PORT, ADDR:PORT or [ADDR6]:PORT";
	unsigned char bin[sizeof(struct in6_addr)];
	char buf[64];
	const char *host = "127.0.0.1", *port = buf;
	char *sep;
	uint64_t u;

	cfg->metrics_loc = *loc;
	if (strcasecmp(v, "off") == 0) {
		cfg->metrics = false;
		return 0;
	}
	if (strcasecmp(v, "on") == 0) {
		cfg->metrics = true;
		dp_strlcpy(cfg->metrics_addr, host, sizeof(cfg->metrics_addr));
		cfg->metrics_port = 9108;
		return 0;
	}
	if (dp_strlcpy(buf, v, sizeof(buf)) < 0)
		return fail(err, errlen, loc, "metrics '%s' too long (%s)", v, expected);
	if (buf[0] == '[') {
		sep = strchr(buf, ']');
		if (sep == NULL || sep[1] != ':')
			return fail(err, errlen, loc, "metrics '%s': %s", v, expected);
		*sep = '\0';
		host = buf + 1;
		port = sep + 2;
		if (inet_pton(AF_INET6, host, bin) != 1)
			return fail(err, errlen, loc,
				"metrics '%s': '%s' is not a numeric IPv6 address", v, host);
	} else if ((sep = strchr(buf, ':')) != NULL) {
		*sep = '\0';
		host = buf;
		port = sep + 1;
		if (strcmp(host, "localhost") == 0)
			host = "127.0.0.1";
		else if (strchr(port, ':') != NULL)
			return fail(err, errlen, loc,
				"metrics '%s': write an IPv6 address in brackets, e.g. [::1]:9108",
				v);
		else if (inet_pton(AF_INET, host, bin) != 1)
			return fail(err, errlen, loc,
				"metrics '%s': '%s' is not a numeric IPv4 address (or localhost)",
				v, host);
	}
	if (parse_u64(port, 0, 65535, &u) < 0)
		return fail(err, errlen, loc, "metrics '%s': port '%s' must be 0..65535 (%s)", v,
			port, expected);
	cfg->metrics = true;
	dp_strlcpy(cfg->metrics_addr, host, sizeof(cfg->metrics_addr));
	cfg->metrics_port = (uint16_t)u;
	return 0;
}

static uint32_t
plen_mask(uint8_t plen)
{
	return plen == 0 ? 0 : ~0u << (32 - plen);
}

const char *
dp_config_ip4_str(uint32_t ip, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
	return buf;
}

/* ${NAME}: the environment first, then built-ins (DPFWD_BUILD, DPFWD_SRC, CONFIG_DIR). */
static int
expand_vars(const char *in, char *out, size_t outlen, const struct dp_config *cfg, char *err,
	size_t errlen, const struct dp_config_loc *loc)
{
	size_t o = 0;

	while (*in != '\0') {
		const char *val = NULL;
		char name[64];
		char dirbuf[PATH_MAX];
		const char *end;
		size_t n;

		if (in[0] != '$' || in[1] != '{') {
			if (o + 1 >= outlen)
				return fail(err, errlen, loc, "value longer than %zu bytes",
					outlen - 1);
			out[o++] = *in++;
			continue;
		}
		end = strchr(in, '}');
		if (end == NULL)
			return fail(err, errlen, loc, "unterminated '${' in value");
		n = (size_t)(end - in - 2);
		if (n == 0 || n >= sizeof(name))
			return fail(err, errlen, loc, "bad variable name in value");
		memcpy(name, in + 2, n);
		name[n] = '\0';
		val = getenv(name);
		if (val == NULL && strcmp(name, "DPFWD_BUILD") == 0)
			val = DP_BUILD_DIR;
		if (val == NULL && strcmp(name, "DPFWD_SRC") == 0)
			val = DP_SOURCE_DIR;
		if (val == NULL && strcmp(name, "CONFIG_DIR") == 0) {
			dp_strlcpy(dirbuf, cfg->path, sizeof(dirbuf));
			val = dirname(dirbuf);
		}
		if (val == NULL)
			return fail(err, errlen, loc,
				"variable ${%s} is not set (set it in the environment; built-ins are "
				"DPFWD_BUILD, DPFWD_SRC, CONFIG_DIR)",
				name);
		n = strlen(val);
		if (o + n >= outlen)
			return fail(err, errlen, loc, "value longer than %zu bytes", outlen - 1);
		memcpy(out + o, val, n);
		o += n;
		in = end + 1;
	}
	out[o] = '\0';
	return 0;
}

/* A relative path in a value is relative to the config file's folder. */
static void
resolve_path(const struct dp_config *cfg, const char *v, char *out, size_t outlen)
{
	char dirbuf[PATH_MAX];

	if (v[0] == '/' || cfg->path[0] == '\0') {
		dp_strlcpy(out, v, outlen);
		return;
	}
	dp_strlcpy(dirbuf, cfg->path, sizeof(dirbuf));
	snprintf(out, outlen, "%s/%s", dirname(dirbuf), v);
}

/* ---- routes ---- */

static int
route_push(struct dp_config *cfg, const struct dp_config_route *r)
{
	if (cfg->nb_routes == cfg->cap_routes) {
		struct dp_config_route *n =
			array_grow(cfg->routes, &cfg->cap_routes, sizeof(*n), 64);

		if (n == NULL)
			return -ENOMEM;
		cfg->routes = n;
	}
	cfg->routes[cfg->nb_routes++] = *r;
	return 0;
}

int
dp_config_route_parse(const char *text, struct dp_config_route *r, char *err, size_t errlen)
{
	char buf[256];
	char *tok[8];
	char *save = NULL;
	char *t;
	const char *why;
	unsigned int n = 0;
	uint64_t port;
	uint32_t ip;

	memset(r, 0, sizeof(*r));
	if (dp_strlcpy(buf, text, sizeof(buf)) < 0)
		return fail(err, errlen, NULL, "route too long");
	for (t = strtok_r(buf, " \t", &save); t != NULL && n < DP_ARRAY_SIZE(tok);
		t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if (t != NULL)
		return fail(err, errlen, NULL, "too many words in route '%s'", text);

	if (n == 2 && tok[0][0] == 'R') {
		/* l3fwd: R<prefix>/<len> <port> */
		if (parse_ip4_plen(tok[0] + 1, &ip, &r->plen) < 0)
			return fail(err, errlen, NULL, "bad prefix '%s' (expected Ra.b.c.d/len)",
				tok[0]);
		if (parse_u64(tok[1], 0, DP_CONFIG_MAX_PORTS - 1, &port) < 0)
			return fail(err, errlen, NULL, "bad port '%s' (0..%d)", tok[1],
				DP_CONFIG_MAX_PORTS - 1);
	} else if (n == 5 && strcmp(tok[1], "via") == 0 && strcmp(tok[3], "port") == 0) {
		if (parse_ip4_plen(tok[0], &ip, &r->plen) < 0)
			return fail(err, errlen, NULL, "bad prefix '%s' (expected a.b.c.d/len)",
				tok[0]);
		if (parse_ip4(tok[2], &r->gw) < 0)
			return fail(
				err, errlen, NULL, "bad gateway '%s' (expected a.b.c.d)", tok[2]);
		why = ip4_not_unicast(r->gw);
		if (why != NULL)
			return fail(err, errlen, NULL, "gateway '%s' is %s", tok[2], why);
		r->has_gw = true;
		if (parse_u64(tok[4], 0, DP_CONFIG_MAX_PORTS - 1, &port) < 0)
			return fail(err, errlen, NULL, "bad port '%s' (0..%d)", tok[4],
				DP_CONFIG_MAX_PORTS - 1);
	} else if (n == 3 && strcmp(tok[1], "port") == 0) {
		if (parse_ip4_plen(tok[0], &ip, &r->plen) < 0)
			return fail(err, errlen, NULL, "bad prefix '%s' (expected a.b.c.d/len)",
				tok[0]);
		if (parse_u64(tok[2], 0, DP_CONFIG_MAX_PORTS - 1, &port) < 0)
			return fail(err, errlen, NULL, "bad port '%s' (0..%d)", tok[2],
				DP_CONFIG_MAX_PORTS - 1);
	} else {
		return fail(err, errlen, NULL,
			"bad route '%s' (expected 'a.b.c.d/len via a.b.c.d port N', "
			"'a.b.c.d/len port N' or l3fwd's 'Ra.b.c.d/len N')",
			text);
	}
	if ((ip & ~plen_mask(r->plen)) != 0)
		return fail(err, errlen, NULL, "prefix '%s' has host bits set past /%u", tok[0],
			r->plen);
	r->prefix = ip;
	r->port = (uint16_t)port;
	return 0;
}

/* ---- IPv6: addresses, routes (same line format as IPv4) ---- */

static int
parse_ip6(const char *v, uint8_t out[16])
{
	return inet_pton(AF_INET6, v, out) == 1 ? 0 : -EINVAL;
}

/* "addr/len" -> address and length; host bits are kept (callers decide) */
static int
parse_ip6_plen(const char *v, uint8_t ip[16], uint8_t *plen)
{
	char buf[64];
	char *slash;
	uint64_t len;

	if (dp_strlcpy(buf, v, sizeof(buf)) < 0)
		return -EINVAL;
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -EINVAL;
	*slash = '\0';
	if (parse_ip6(buf, ip) < 0 || parse_u64(slash + 1, 0, 128, &len) < 0)
		return -EINVAL;
	*plen = (uint8_t)len;
	return 0;
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

/* Why @p ip cannot be a neighbor, a gateway or an interface address; NULL if it can. */
static const char *
ip6_not_unicast(const uint8_t ip[16])
{
	static const uint8_t zero[16];

	if (ip[0] == 0xff)
		return "a multicast address";
	if (memcmp(ip, zero, 15) == 0 && ip[15] <= 1)
		return ip[15] == 0 ? "the unspecified address" : "the loopback address";
	return NULL;
}

const char *
dp_config_ip6_str(const uint8_t ip[16], char *buf, size_t len)
{
	if (inet_ntop(AF_INET6, ip, buf, (socklen_t)len) == NULL)
		dp_strlcpy(buf, "?", len);
	return buf;
}

int
dp_config_route6_parse(const char *text, struct dp_config_route6 *r, char *err, size_t errlen)
{
	static const char *const expected =
		"expected 'PREFIX/len via ADDR port N', 'PREFIX/len port N' or 'RPREFIX/len N'";
	char buf[256];
	char *tok[8];
	char *save = NULL;
	char *t;
	const char *pfx, *port_s, *why;
	unsigned int n = 0;
	uint64_t port;

	memset(r, 0, sizeof(*r));
	if (dp_strlcpy(buf, text, sizeof(buf)) < 0)
		return fail(err, errlen, NULL, "route too long");
	for (t = strtok_r(buf, " \t", &save); t != NULL && n < DP_ARRAY_SIZE(tok);
		t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if (t != NULL)
		return fail(err, errlen, NULL, "too many words in route '%s'", text);
	if (n == 2 && tok[0][0] == 'R') {
		pfx = tok[0] + 1;
		port_s = tok[1];
	} else if (n == 5 && strcmp(tok[1], "via") == 0 && strcmp(tok[3], "port") == 0) {
		pfx = tok[0];
		port_s = tok[4];
		if (parse_ip6(tok[2], r->gw) < 0)
			return fail(err, errlen, NULL,
				"bad gateway '%s' (expected an IPv6 address%s)", tok[2],
				strchr(tok[2], ':') == NULL ? ": one family per route" : "");
		why = ip6_not_unicast(r->gw);
		if (why != NULL)
			return fail(err, errlen, NULL, "gateway '%s' is %s", tok[2], why);
		r->has_gw = true;
	} else if (n == 3 && strcmp(tok[1], "port") == 0) {
		pfx = tok[0];
		port_s = tok[2];
	} else {
		return fail(err, errlen, NULL, "bad route '%s' (%s)", text, expected);
	}
	if (parse_ip6_plen(pfx, r->prefix, &r->plen) < 0)
		return fail(err, errlen, NULL,
			"bad prefix '%s' (expected an IPv6 prefix/len, len 0..128%s)", pfx,
			strchr(pfx, ':') == NULL ? "; one family per route" : "");
	if (ip6_host_bits_set(r->prefix, r->plen))
		return fail(
			err, errlen, NULL, "prefix '%s' has host bits set past /%u", pfx, r->plen);
	if (parse_u64(port_s, 0, DP_CONFIG_MAX_PORTS - 1, &port) < 0)
		return fail(err, errlen, NULL, "bad port '%s' (0..%d)", port_s,
			DP_CONFIG_MAX_PORTS - 1);
	r->port = (uint16_t)port;
	return 0;
}

static int
route6_push(struct dp_config *cfg, const struct dp_config_route6 *r)
{
	if (cfg->nb_routes6 == cfg->cap_routes6) {
		struct dp_config_route6 *n =
			array_grow(cfg->routes6, &cfg->cap_routes6, sizeof(*n), 64);

		if (n == NULL)
			return -ENOMEM;
		cfg->routes6 = n;
	}
	cfg->routes6[cfg->nb_routes6++] = *r;
	return 0;
}

static int
route6_add_text(struct dp_config *cfg, const char *text, const struct dp_config_loc *loc, char *err,
	size_t errlen)
{
	struct dp_config_route6 r;
	char why[DP_CONFIG_ERR_LEN];

	if (dp_config_route6_parse(text, &r, why, sizeof(why)) < 0)
		return fail(err, errlen, loc, "%s", why);
	r.loc = *loc;
	if (route6_push(cfg, &r) < 0)
		return fail(err, errlen, loc, "out of memory for routes");
	return 0;
}

static int
route_add_text(struct dp_config *cfg, const char *text, const struct dp_config_loc *loc, char *err,
	size_t errlen)
{
	struct dp_config_route r;
	char why[DP_CONFIG_ERR_LEN];

	/* an IPv4 route has no ':' anywhere */
	if (strchr(text, ':') != NULL)
		return route6_add_text(cfg, text, loc, err, errlen);
	if (dp_config_route_parse(text, &r, why, sizeof(why)) < 0)
		return fail(err, errlen, loc, "%s", why);
	r.loc = *loc;
	if (route_push(cfg, &r) < 0)
		return fail(err, errlen, loc, "out of memory for routes");
	return 0;
}

/*
 * Read @p path line by line: count lines, reject lines over @p max_len bytes
 * (@p why says whose limit it is) and lines with a NUL byte, cut "#" comments,
 * trim, skip blank lines, and hand each remaining line to @p cb with its file:line.
 * @p cfgfile: cut comments as rte_cfgfile does, where a line whose first "#"
 * follows a backslash has no comment (its value then has "#" for "\#").
 */
typedef int (*line_cb_t)(
	void *arg, char *text, const struct dp_config_loc *loc, char *err, size_t errlen);

static int
read_lines(const char *path, const char *what, struct dp_config_loc loc, size_t max_len,
	const char *why, bool cfgfile, line_cb_t cb, void *arg, char *err, size_t errlen)
{
	char line[2048];
	FILE *f;
	int rc = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open %s: %s", path, what, strerror(errno));
		return rc;
	}
	for (;;) {
		size_t len;
		bool nl;
		char *s;

		/* fgets() gives no length, and a NUL byte in the file would end the line
		 * early for every check here (rte_cfgfile then fails the whole file, no
		 * line named): the buffer holds no NUL before, so its last one is the
		 * end that fgets() wrote */
		memset(line, 0xff, sizeof(line));
		if (fgets(line, sizeof(line), f) == NULL)
			break;
		loc.line++;
		len = (size_t)((char *)memrchr(line, '\0', sizeof(line)) - line);
		nl = len > 0 && line[len - 1] == '\n';
		if ((!nl && !feof(f)) || len - nl > max_len) {
			rc = fail(err, errlen, &loc, "line longer than %zu bytes%s", max_len, why);
			break;
		}
		if (strlen(line) != len) {
			rc = fail(err, errlen, &loc, "NUL byte in the line (not a text file?)");
			break;
		}
		s = strchr(line, CFG_COMMENT);
		if (s != NULL && !(cfgfile && s > line && s[-1] == '\\'))
			*s = '\0';
		s = trim(line);
		if (*s == '\0')
			continue;
		rc = cb(arg, s, &loc, err, errlen);
		if (rc < 0)
			break;
	}
	fclose(f);
	return rc;
}

static int
route_line(void *arg, char *text, const struct dp_config_loc *loc, char *err, size_t errlen)
{
	return route_add_text(arg, text, loc, err, errlen);
}

int
dp_config_route_file_load(struct dp_config *cfg, const char *path, char *err, size_t errlen)
{
	struct dp_config_loc loc = { .file = remember_file(cfg, path), .line = 0 };

	return read_lines(path, "route file", loc, 510, "", false, route_line, cfg, err, errlen);
}

/* ---- one key of one section ---- */

static int
port_index(const char *section)
{
	uint64_t idx;

	if (strncmp(section, "port", 4) != 0)
		return -1;
	if (parse_u64(section + 4, 0, DP_CONFIG_MAX_PORTS - 1, &idx) < 0 ||
		!isdigit((unsigned char)section[4]))
		return -2;
	return (int)idx;
}

static int
parse_rxmap(struct dp_config *cfg, const char *v, const struct dp_config_loc *loc, char *err,
	size_t errlen)
{
	const char *p = v;

	cfg->nb_rxmap = 0;
	while (*p != '\0') {
		unsigned int port, queue, lcore;
		int used = 0;

		while (isspace((unsigned char)*p) || *p == ',')
			p++;
		if (*p == '\0')
			break;
		if (sscanf(p, " ( %u , %u , %u ) %n", &port, &queue, &lcore, &used) != 3 ||
			used == 0)
			return fail(err, errlen, loc,
				"bad lcore map near '%s' (expected (port,queue,lcore),...)", p);
		if (port >= DP_CONFIG_MAX_PORTS || queue >= 1024 || lcore >= RTE_MAX_LCORE)
			return fail(err, errlen, loc,
				"lcore map entry (%u,%u,%u) out of range (port < %d, queue < 1024, "
				"lcore < %d)",
				port, queue, lcore, DP_CONFIG_MAX_PORTS, RTE_MAX_LCORE);
		if (cfg->nb_rxmap == DP_CONFIG_MAX_RXMAP)
			return fail(err, errlen, loc, "more than %d (port,queue,lcore) entries",
				DP_CONFIG_MAX_RXMAP);
		cfg->rxmap[cfg->nb_rxmap++] = (struct dp_config_rxmap){
			.port = port, .queue = queue, .lcore = lcore, .loc = *loc
		};
		p += used;
	}
	if (cfg->nb_rxmap == 0)
		return fail(err, errlen, loc, "empty lcore map");
	return 0;
}

/* An IPv6 static neighbor: "ADDR lladdr MAC port N", the words already split. */
static int
parse_neigh6(struct dp_config *cfg, const char *ip, const char *mac, const char *port,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	struct dp_config_neigh6 *n;
	const char *why;
	uint64_t p;

	if (cfg->nb_neighs6 == DP_CONFIG_MAX_NEIGHS)
		return fail(err, errlen, loc, "more than %d static IPv6 neighbors",
			DP_CONFIG_MAX_NEIGHS);
	n = &cfg->neighs6[cfg->nb_neighs6];
	if (parse_ip6(ip, n->ip) < 0)
		return fail(err, errlen, loc, "bad neighbor address '%s'", ip);
	why = ip6_not_unicast(n->ip);
	if (why != NULL)
		return fail(err, errlen, loc, "neighbor address '%s' is %s", ip, why);
	if (rte_ether_unformat_addr(mac, &n->mac) < 0)
		return fail(err, errlen, loc, "bad MAC address '%s'", mac);
	if (parse_u64(port, 0, DP_CONFIG_MAX_PORTS - 1, &p) < 0)
		return fail(err, errlen, loc, "bad port '%s'", port);
	n->port = (uint16_t)p;
	n->loc = *loc;
	cfg->nb_neighs6++;
	return 0;
}

static int
parse_neigh(struct dp_config *cfg, const char *v, const struct dp_config_loc *loc, char *err,
	size_t errlen)
{
	struct dp_config_neigh *n;
	char ip[64], w1[32], mac[64], w2[32], port[32], extra[8];
	const char *why;
	uint64_t p;
	int k;

	k = sscanf(v, "%63s %31s %63s %31s %31s %7s", ip, w1, mac, w2, port, extra);
	if (k != 5 || strcmp(w1, "lladdr") != 0 || strcmp(w2, "port") != 0)
		return fail(err, errlen, loc,
			"bad neighbor '%s' (expected 'a.b.c.d lladdr xx:xx:xx:xx:xx:xx port N', or "
			"an IPv6 address instead of a.b.c.d)",
			v);
	if (strchr(ip, ':') != NULL)
		return parse_neigh6(cfg, ip, mac, port, loc, err, errlen);
	if (cfg->nb_neighs == DP_CONFIG_MAX_NEIGHS)
		return fail(
			err, errlen, loc, "more than %d static neighbors", DP_CONFIG_MAX_NEIGHS);
	n = &cfg->neighs[cfg->nb_neighs];
	if (parse_ip4(ip, &n->ip) < 0)
		return fail(err, errlen, loc, "bad neighbor address '%s'", ip);
	why = ip4_not_unicast(n->ip);
	if (why != NULL)
		return fail(err, errlen, loc, "neighbor address '%s' is %s", ip, why);
	if (rte_ether_unformat_addr(mac, &n->mac) < 0)
		return fail(err, errlen, loc, "bad MAC address '%s'", mac);
	if (parse_u64(port, 0, DP_CONFIG_MAX_PORTS - 1, &p) < 0)
		return fail(err, errlen, loc, "bad port '%s'", port);
	n->port = (uint16_t)p;
	n->loc = *loc;
	cfg->nb_neighs++;
	return 0;
}

/* ---- [relayN]: UDP relay services ---- */

static int
relay_index(const char *section)
{
	uint64_t idx;

	if (strncmp(section, "relay", 5) != 0)
		return -1;
	if (!isdigit((unsigned char)section[5]) ||
		parse_u64(section + 5, 0, DP_CONFIG_MAX_RELAYS - 1, &idx) < 0)
		return -2;
	return (int)idx;
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
		if (parse_ip6(host, addr) < 0)
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
	if (parse_u64(sep + 1, 1, 65535, &u) < 0)
		return -EINVAL;
	*port = (uint16_t)u;
	return 0;
}

static const char relay_addr_expected[] = "expected a.b.c.d:port or [ipv6]:port, port 1..65535";

static int
relay_key(struct dp_config *cfg, int ri, const char *section, const char *key, const char *v,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	struct dp_config_relay *r = &cfg->relays[ri];
	uint64_t u;

	if (!r->defined) {
		r->defined = true;
		r->loc = *loc;
		r->timeout_s = DP_CONFIG_RELAY_TIMEOUT;
		r->port_lo = 20000;
		r->port_hi = 29999;
		r->ports_loc = *loc;
		if (ri + 1 > cfg->nb_relays)
			cfg->nb_relays = (uint16_t)(ri + 1);
	}
	if (strcmp(key, "listen") == 0) {
		if (parse_udp_addr(v, &r->listen.ip6, r->listen.addr, &r->listen.port) < 0)
			return fail(err, errlen, loc, "bad listen address '%s' (%s)", v,
				relay_addr_expected);
		r->ip6 = r->listen.ip6;
		r->listen.loc = *loc;
	} else if (strcmp(key, "backend") == 0) {
		struct dp_config_udp_addr *b;

		if (r->nb_backends == DP_CONFIG_MAX_BACKENDS)
			return fail(err, errlen, loc, "more than %d backends in [%s]",
				DP_CONFIG_MAX_BACKENDS, section);
		b = &r->backends[r->nb_backends];
		if (parse_udp_addr(v, &b->ip6, b->addr, &b->port) < 0)
			return fail(
				err, errlen, loc, "bad backend '%s' (%s)", v, relay_addr_expected);
		/* the family is checked against listen's in dp_config_validate() */
		b->loc = *loc;
		r->nb_backends++;
	} else if (strcmp(key, "source") == 0) {
		struct in_addr a4;

		memset(r->source, 0, sizeof(r->source));
		r->source_ip6 = strchr(v, ':') != NULL;
		if (!r->source_ip6 && inet_pton(AF_INET, v, &a4) == 1)
			memcpy(r->source, &a4, 4);
		else if (!r->source_ip6 || parse_ip6(v, r->source) < 0)
			return fail(err, errlen, loc,
				"bad source address '%s' (expected an address of a port, IPv4 or IPv6, "
				"no port)",
				v);
		r->has_source = true;
		r->source_loc = *loc;
	} else if (strcmp(key, "ports") == 0) {
		char buf[32];
		char *dash;
		uint64_t lo, hi;

		if (dp_strlcpy(buf, v, sizeof(buf)) < 0 || (dash = strchr(buf, '-')) == NULL)
			goto bad_ports;
		*dash = '\0';
		if (parse_u64(trim(buf), 1024, 65535, &lo) < 0 ||
			parse_u64(trim(dash + 1), 1024, 65535, &hi) < 0 || hi < lo)
			goto bad_ports;
		r->port_lo = (uint16_t)lo;
		r->port_hi = (uint16_t)hi;
		r->ports_loc = *loc;
	} else if (strcmp(key, "timeout") == 0) {
		if (parse_u64(v, 1, 86400, &u) < 0)
			return fail(err, errlen, loc,
				"timeout '%s' must be 1..86400 (seconds a session may stay idle)",
				v);
		r->timeout_s = (uint32_t)u;
		r->timeout_set = true;
	} else if (strcmp(key, "profile") == 0) {
		if (strcmp(v, "media") == 0) {
			if (!r->timeout_set)
				r->timeout_s = DP_CONFIG_RELAY_TIMEOUT_MEDIA;
		} else if (strcmp(v, "default") == 0) {
			if (!r->timeout_set)
				r->timeout_s = DP_CONFIG_RELAY_TIMEOUT;
		} else {
			return fail(err, errlen, loc,
				"profile '%s' unknown (expected default (timeout %d s) or media "
				"(timeout %d s))",
				v, DP_CONFIG_RELAY_TIMEOUT, DP_CONFIG_RELAY_TIMEOUT_MEDIA);
		}
	} else if (strcmp(key, "max_sessions") == 0) {
		if (parse_u64(v, 1, 1u << 24, &u) < 0)
			return fail(
				err, errlen, loc, "max_sessions '%s' must be 1..%u", v, 1u << 24);
		r->max_sessions = (uint32_t)u;
		r->max_loc = *loc;
	} else {
		return fail(err, errlen, loc,
			"unknown key '%s' in [%s] (expected listen, backend, source, ports, "
			"timeout, profile, max_sessions)",
			key, section);
	}
	return 0;
bad_ports:
	return fail(err, errlen, loc,
		"ports '%s' must be LOW-HIGH within 1024..65535 (the relay's source ports, e.g. "
		"20000-29999)",
		v);
}

/* The port whose IPv4 address is @p a (host order), or cfg->nb_ports for none. */
static uint16_t
port_of_addr4(const struct dp_config *cfg, uint32_t a)
{
	uint16_t i;

	for (i = 0; i < cfg->nb_ports; i++)
		if (cfg->ports[i].ip4 != 0 && cfg->ports[i].ip4 == a)
			return i;
	return cfg->nb_ports;
}

/* The same for @p addr of either family (IPv4: its first 4 bytes, network order). */
static uint16_t
port_of_addr(const struct dp_config *cfg, bool ip6, const uint8_t addr[16])
{
	uint32_t a4;
	uint16_t i;

	if (!ip6) {
		memcpy(&a4, addr, 4);
		return port_of_addr4(cfg, ntohl(a4));
	}
	for (i = 0; i < cfg->nb_ports; i++)
		if (cfg->ports[i].has_ip6 && memcmp(cfg->ports[i].ip6, addr, 16) == 0)
			return i;
	return cfg->nb_ports;
}

static bool
relay_addr_is_port(const struct dp_config *cfg, bool ip6, const uint8_t addr[16])
{
	return port_of_addr(cfg, ip6, addr) < cfg->nb_ports;
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

	for (i = 0; i < cfg->nb_relays; i++) {
		struct dp_config_relay *r = &cfg->relays[i];
		const uint8_t *src;
		uint32_t nports;

		if (!r->defined)
			continue;
		if (r->listen.loc.file == NULL)
			return fail(
				err, errlen, &r->loc, "[relay%u] has no 'listen = ADDR:PORT'", i);
		if (r->nb_backends == 0)
			return fail(err, errlen, &r->loc,
				"[relay%u] has no 'backend = ADDR:PORT' (one or more)", i);
		if (!relay_addr_is_port(cfg, r->ip6, r->listen.addr))
			return fail(err, errlen, &r->listen.loc,
				"listen address %s is not the %s address of any [portN]",
				relay_addr_str(r->ip6, r->listen.addr, a, sizeof(a)),
				r->ip6 ? "ip6" : "ip4");
		for (b = 0; b < r->nb_backends; b++) {
			const struct dp_config_udp_addr *be = &r->backends[b];
			const bool ip6 = be->ip6;

			if (ip6 != r->ip6)
				return fail(err, errlen, &be->loc,
					"backend is %s but listen is %s: a relay does not change "
					"the address family",
					ip6 ? "IPv6" : "IPv4", r->ip6 ? "IPv6" : "IPv4");
			if (relay_addr_is_port(cfg, r->ip6, be->addr))
				return fail(err, errlen, &be->loc,
					"backend %s is an address of dpfwd itself",
					relay_addr_str(r->ip6, be->addr, a, sizeof(a)));
		}
		if (r->has_source) {
			if (r->source_ip6 != r->ip6 || !relay_addr_is_port(cfg, r->ip6, r->source))
				return fail(err, errlen, &r->source_loc,
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
			return fail(err, errlen, &r->max_loc,
				"max_sessions %u is more than the %u relay ports of 'ports = %u-%u' "
				"(each session takes one)",
				r->max_sessions, nports, r->port_lo, r->port_hi);
		src = r->source;
		for (j = 0; j < i; j++) {
			const struct dp_config_relay *o = &cfg->relays[j];

			if (!o->defined || o->ip6 != r->ip6)
				continue;
			if (memcmp(o->listen.addr, r->listen.addr, 16) == 0 &&
				o->listen.port == r->listen.port)
				return fail(err, errlen, &r->listen.loc,
					"[relay%u] listens on the same address and port as [relay%u]",
					i, j);
			if (memcmp(o->source, src, 16) == 0 && r->port_lo <= o->port_hi &&
				o->port_lo <= r->port_hi)
				return fail(err, errlen, &r->ports_loc,
					"relay ports %u-%u of [relay%u] overlap those of [relay%u] "
					"(%u-%u) on %s: give each its own 'ports = LOW-HIGH'",
					r->port_lo, r->port_hi, i, j, o->port_lo, o->port_hi,
					relay_addr_str(r->ip6, src, a, sizeof(a)));
		}
		/* a listen port inside any relay range on the same address would be ambiguous */
		for (j = 0; j < cfg->nb_relays; j++) {
			const struct dp_config_relay *o = &cfg->relays[j];
			const uint8_t *osrc = o->has_source ? o->source : o->listen.addr;

			if (!o->defined || o->ip6 != r->ip6 ||
				memcmp(osrc, r->listen.addr, 16) != 0)
				continue;
			if (r->listen.port >= o->port_lo && r->listen.port <= o->port_hi)
				return fail(err, errlen, &r->listen.loc,
					"listen port %u is inside the relay ports %u-%u of [relay%u]",
					r->listen.port, o->port_lo, o->port_hi, j);
		}
	}
	return 0;
}

#define KEY(s, k) (strcmp(section, s) == 0 && strcmp(key, k) == 0)

/* [endpoint]: dpsock endpoints; numbers bounded so that a region stays below 2^32 bytes */
static int
endpoint_key(struct dp_config *cfg, const char *key, const char *v, const struct dp_config_loc *loc,
	char *err, size_t errlen)
{
	static const struct {
		const char *key;
		uint32_t min, max;
		size_t off;
	} nums[] = {
		{ "max", 1, 65536, offsetof(struct dp_config_endpoint, max) },
		{ "tx_bufs", 16, 1u << 16, offsetof(struct dp_config_endpoint, tx_bufs) },
		{ "rx_bufs", 16, 1u << 16, offsetof(struct dp_config_endpoint, rx_bufs) },
		{ "large_bufs", 0, 1024, offsetof(struct dp_config_endpoint, large_bufs) },
		{ "chan_bufs", 16, 1u << 16, offsetof(struct dp_config_endpoint, chan_bufs) },
		{ "zero_copy_min", 64, 1u << 20,
			offsetof(struct dp_config_endpoint, zero_copy_min) },
	};
	struct dp_config_endpoint *e = &cfg->endpoint;
	uint64_t u;
	size_t i;

	if (!e->enabled) {
		e->enabled = true;
		e->loc = *loc;
	}
	if (strcmp(key, "socket") == 0) {
		if (v[0] != '/' || dp_strlcpy(e->socket, v, sizeof(e->socket)) < 0)
			return fail(err, errlen, loc,
				"socket '%s' must be an absolute path shorter than %zu bytes", v,
				sizeof(e->socket));
		return 0;
	}
	if (strcmp(key, "mode") == 0) {
		char *end;
		unsigned long m = strtoul(v, &end, 8);

		if (*v == '\0' || *end != '\0' || m > 0777)
			return fail(err, errlen, loc,
				"mode '%s' must be octal permissions, e.g. 0660", v);
		e->mode = (uint32_t)m;
		return 0;
	}
	if (strcmp(key, "group") == 0) {
		if (dp_strlcpy(e->group, v, sizeof(e->group)) < 0)
			return fail(err, errlen, loc, "group name '%s' too long", v);
		return 0;
	}
	if (strcmp(key, "udp4_cksum") == 0) {
		if (parse_bool(v, &e->udp4_cksum) < 0)
			return fail(err, errlen, loc, "udp4_cksum '%s' must be on or off", v);
		return 0;
	}
	for (i = 0; i < DP_ARRAY_SIZE(nums); i++) {
		if (strcmp(key, nums[i].key) != 0)
			continue;
		if (parse_u64(v, nums[i].min, nums[i].max, &u) < 0)
			return fail(err, errlen, loc, "%s '%s' must be %u..%u", key, v, nums[i].min,
				nums[i].max);
		*(uint32_t *)((char *)e + nums[i].off) = (uint32_t)u;
		return 0;
	}
	return fail(err, errlen, loc,
		"unknown key '%s' in [endpoint] (expected socket, mode, group, max, tx_bufs, "
		"rx_bufs, large_bufs, chan_bufs, zero_copy_min, udp4_cksum)",
		key);
}

/* [dpfwd] neigh_*: the neighbor table (ARP, ND) */
static int
neigh_key(struct dp_config *cfg, const char *key, const char *v, const struct dp_config_loc *loc,
	char *err, size_t errlen)
{
	static const struct {
		const char *key;
		uint32_t min, max;
		size_t off;
	} keys[] = {
		{ "neigh_max", 16, 1u << 20, offsetof(struct dp_config, neigh_max) },
		{ "neigh_hold", 0, DP_CONFIG_NEIGH_HOLD_MAX,
			offsetof(struct dp_config, neigh_hold) },
		{ "neigh_reachable_ms", 1000, 3600000,
			offsetof(struct dp_config, neigh_reachable_ms) },
		{ "neigh_retrans_ms", 100, 60000, offsetof(struct dp_config, neigh_retrans_ms) },
		{ "neigh_probes", 1, 10, offsetof(struct dp_config, neigh_probes) },
		{ "neigh_failed_ms", 0, 600000, offsetof(struct dp_config, neigh_failed_ms) },
	};
	uint64_t u;
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(keys); i++) {
		if (strcmp(key, keys[i].key) != 0)
			continue;
		if (parse_u64(v, keys[i].min, keys[i].max, &u) < 0)
			return fail(err, errlen, loc, "%s '%s' must be %u..%u", key, v, keys[i].min,
				keys[i].max);
		*(uint32_t *)((char *)cfg + keys[i].off) = (uint32_t)u;
		return 0;
	}
	return fail(err, errlen, loc,
		"unknown key '%s' in [dpfwd] (neighbor keys: neigh_max, neigh_hold, "
		"neigh_reachable_ms, neigh_retrans_ms, neigh_probes, neigh_failed_ms)",
		key);
}

static int
apply(struct dp_config *cfg, const char *section, const char *key, const char *raw,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	/* zeroed: clang's analyser cannot follow expand_vars' copies (memcpy of a getenv
	 * value) and took every later read of v for a read of garbage */
	char v[VALUE_MAX] = { 0 };
	uint64_t u;
	int pi;
	int rc;

	if (key == NULL) { /* a section without keys */
		if (strcmp(section, "endpoint") == 0 && !cfg->endpoint.enabled) {
			cfg->endpoint.enabled = true;
			cfg->endpoint.loc = *loc;
		}
		return 0;
	}
	rc = expand_vars(raw, v, sizeof(v), cfg, err, errlen, loc);
	if (rc < 0)
		return rc;

	if (KEY("dpfwd", "mode")) {
		if (strcmp(v, "forward") != 0)
			return fail(err, errlen, loc, "mode '%s' unknown (expected: forward)", v);
		cfg->mode = DP_CONFIG_MODE_FORWARD;
	} else if (KEY("dpfwd", "main_lcore")) {
		if (parse_u64(v, 0, RTE_MAX_LCORE - 1, &u) < 0)
			goto bad_uint;
		cfg->main_lcore = (unsigned int)u;
	} else if (KEY("dpfwd", "burst")) {
		if (parse_u64(v, 1, DP_BURST_MAX, &u) < 0)
			return fail(err, errlen, loc, "burst '%s' must be 1..%d", v, DP_BURST_MAX);
		cfg->burst = (uint16_t)u;
	} else if (KEY("dpfwd", "tx_flush_idle")) {
		if (parse_bool(v, &cfg->tx_flush_idle) < 0)
			goto bad_bool;
	} else if (KEY("dpfwd", "tx_drain_us")) {
		if (parse_u64(v, 1, 1000000, &u) < 0)
			return fail(err, errlen, loc, "tx_drain_us '%s' must be 1..1000000", v);
		cfg->tx_drain_us = (uint32_t)u;
	} else if (KEY("dpfwd", "node_stats_sample")) {
		if (parse_u64(v, 1, 1024, &u) < 0)
			return fail(err, errlen, loc, "node_stats_sample '%s' must be 1..1024", v);
		cfg->node_stats_sample = (uint16_t)u;
	} else if (KEY("dpfwd", "node_stats")) {
		if (parse_bool(v, &cfg->node_stats) < 0)
			goto bad_bool;
	} else if (KEY("dpfwd", "avx512")) {
		if (parse_bool(v, &cfg->avx512) < 0)
			goto bad_bool;
	} else if (KEY("dpfwd", "delay_stats")) {
		if (parse_bool(v, &cfg->delay_stats) < 0)
			goto bad_bool;
	} else if (KEY("dpfwd", "ip4_cksum_check")) {
		if (parse_bool(v, &cfg->ip4_cksum_check) < 0)
			goto bad_bool;
	} else if (KEY("dpfwd", "check_dst_mac")) {
		if (parse_bool(v, &cfg->check_dst_mac) < 0)
			goto bad_bool;
	} else if (KEY("dpfwd", "icmp_rate")) {
		if (parse_u64(v, 0, 10000000, &u) < 0)
			return fail(err, errlen, loc,
				"icmp_rate '%s' must be 0..10000000 (ICMP errors per second per "
				"worker; 0 = none sent)",
				v);
		cfg->icmp_rate = (uint32_t)u;
	} else if (KEY("dpfwd", "icmp_burst")) {
		if (parse_u64(v, 1, 1000000, &u) < 0)
			return fail(err, errlen, loc, "icmp_burst '%s' must be 1..1000000", v);
		cfg->icmp_burst = (uint32_t)u;
	} else if (strcmp(section, "dpfwd") == 0 && strncmp(key, "neigh_", 6) == 0) {
		return neigh_key(cfg, key, v, loc, err, errlen);
	} else if (KEY("dpfwd", "drivers_cfg")) {
		resolve_path(cfg, v, cfg->drivers_cfg, sizeof(cfg->drivers_cfg));
	} else if (KEY("dpfwd", "metrics")) {
		return parse_metrics(cfg, v, loc, err, errlen);
	} else if (KEY("mempool", "size")) {
		if (strcmp(v, "auto") == 0)
			cfg->pool_size = 0;
		else if (parse_u64(v, 1024, 1u << 26, &u) < 0)
			return fail(err, errlen, loc, "mempool size '%s' must be auto or 1024..%u",
				v, 1u << 26);
		else
			cfg->pool_size = (uint32_t)u;
	} else if (KEY("mempool", "cache")) {
		if (parse_u64(v, 0, RTE_MEMPOOL_CACHE_MAX_SIZE, &u) < 0)
			return fail(err, errlen, loc, "mempool cache '%s' must be 0..%d", v,
				RTE_MEMPOOL_CACHE_MAX_SIZE);
		cfg->pool_cache = (uint32_t)u;
	} else if (KEY("mempool", "ops")) {
		static const char *const ops[] = { "ring_mp_mc", "ring_sp_sc", "ring_mp_sc",
			"ring_sp_mc", "stack", "lf_stack", "ring_mt_rts", "ring_mt_hts" };
		unsigned int i;

		for (i = 0; i < DP_ARRAY_SIZE(ops); i++)
			if (strcmp(v, ops[i]) == 0)
				break;
		if (i == DP_ARRAY_SIZE(ops))
			return fail(err, errlen, loc,
				"mempool ops '%s' unknown (expected ring_mp_mc, ring_sp_sc, "
				"ring_mp_sc, ring_sp_mc, stack, lf_stack, ring_mt_rts, ring_mt_hts)",
				v);
		dp_strlcpy(cfg->pool_ops, v, sizeof(cfg->pool_ops));
	} else if (KEY("mempool", "data_room")) {
		if (parse_u64(v, 256 + RTE_PKTMBUF_HEADROOM, 65535, &u) < 0)
			return fail(err, errlen, loc, "data_room '%s' must be %d..65535", v,
				256 + RTE_PKTMBUF_HEADROOM);
		cfg->pool_data_room = (uint16_t)u;
	} else if ((pi = port_index(section)) >= 0) {
		struct dp_config_port *p = &cfg->ports[pi];

		if (!p->defined) {
			p->defined = true;
			p->loc = *loc;
			if (pi + 1 > cfg->nb_ports)
				cfg->nb_ports = pi + 1;
		}
		if (strcmp(key, "dev") == 0) {
			if (dp_strlcpy(p->dev, v, sizeof(p->dev)) < 0)
				return fail(err, errlen, loc, "dev longer than %d bytes",
					DP_CONFIG_DEV_LEN - 1);
		} else if (strcmp(key, "profile") == 0) {
			if (dp_strlcpy(p->profile, v, sizeof(p->profile)) < 0)
				return fail(err, errlen, loc, "profile name too long");
		} else if (strcmp(key, "rx_queues") == 0) {
			if (parse_u64(v, 1, 1024, &u) < 0)
				goto bad_uint;
			p->rx_queues = (uint16_t)u;
		} else if (strcmp(key, "rx_desc") == 0 || strcmp(key, "tx_desc") == 0) {
			if (parse_u64(v, 32, 32768, &u) < 0)
				return fail(err, errlen, loc, "%s '%s' must be 32..32768", key, v);
			if (key[0] == 'r')
				p->rx_desc = (uint16_t)u;
			else
				p->tx_desc = (uint16_t)u;
		} else if (strcmp(key, "mac") == 0) {
			if (rte_ether_unformat_addr(v, &p->mac) < 0)
				return fail(err, errlen, loc, "bad MAC address '%s'", v);
			p->has_mac = true;
		} else if (strcmp(key, "ip4") == 0) {
			if (parse_ip4_plen(v, &p->ip4, &p->ip4_plen) < 0 || p->ip4_plen == 0 ||
				p->ip4_plen > 31)
				return fail(err, errlen, loc,
					"bad interface address '%s' (expected a.b.c.d/len, len 1..31)",
					v);
		} else if (strcmp(key, "ip6") == 0) {
			const char *why;

			if (parse_ip6_plen(v, p->ip6, &p->ip6_pfxlen) < 0 || p->ip6_pfxlen == 0 ||
				p->ip6_pfxlen > 127)
				return fail(err, errlen, loc,
					"bad interface address '%s' (expected an IPv6 address/len, "
					"len 1..127)",
					v);
			why = ip6_not_unicast(p->ip6);
			if (why == NULL && p->ip6[0] == 0xfe && (p->ip6[1] & 0xc0) == 0x80)
				why = "link-local (the port's link-local address is made from its MAC)";
			if (why != NULL)
				return fail(
					err, errlen, loc, "interface address '%s' is %s", v, why);
			p->has_ip6 = true;
		} else if (strcmp(key, "promisc") == 0) {
			if (parse_bool(v, &p->promisc) < 0)
				goto bad_bool;
		} else {
			return fail(err, errlen, loc,
				"unknown key '%s' in [%s] (expected dev, profile, rx_queues, "
				"rx_desc, tx_desc, mac, ip4, ip6, promisc)",
				key, section);
		}
	} else if (pi == -2) {
		return fail(err, errlen, loc, "bad port section [%s] (expected [port0]..[port%d])",
			section, DP_CONFIG_MAX_PORTS - 1);
	} else if (KEY("lcores", "rx")) {
		return parse_rxmap(cfg, v, loc, err, errlen);
	} else if (KEY("routes", "route")) {
		return route_add_text(cfg, v, loc, err, errlen);
	} else if (KEY("routes", "ip4_max") || KEY("routes", "ip4_tbl8")) {
		/* the IPv4 table's room: 0 = sized from the routes (dp_fwd_fib4_size) */
		const bool max = strcmp(key, "ip4_max") == 0;

		if (parse_u64(v, 0, max ? 1u << 28 : 1u << 22, &u) < 0)
			return fail(err, errlen, loc,
				"%s '%s' must be 0 (from the routes) or a count up to %u", key, v,
				max ? 1u << 28 : 1u << 22);
		*(max ? &cfg->routes_ip4_max : &cfg->routes_ip4_tbl8) = (uint32_t)u;
		cfg->routes_size_loc = *loc;
	} else if (KEY("routes", "file")) {
		char path[PATH_MAX];
		char why[DP_CONFIG_ERR_LEN];

		resolve_path(cfg, v, path, sizeof(path));
		rc = dp_config_route_file_load(cfg, path, why, sizeof(why));
		if (rc < 0)
			return fail(err, errlen, loc, "in route file: %s", why);
	} else if (KEY("neighbors", "neigh")) {
		return parse_neigh(cfg, v, loc, err, errlen);
	} else if (strcmp(section, "endpoint") == 0) {
		return endpoint_key(cfg, key, v, loc, err, errlen);
	} else if ((pi = relay_index(section)) >= 0) {
		return relay_key(cfg, pi, section, key, v, loc, err, errlen);
	} else if (pi == -2) {
		return fail(err, errlen, loc,
			"bad relay section [%s] (expected [relay0]..[relay%d])", section,
			DP_CONFIG_MAX_RELAYS - 1);
	} else {
		static const char *const known[] = { "dpfwd", "mempool", "lcores", "routes",
			"neighbors" };
		unsigned int i;

		for (i = 0; i < DP_ARRAY_SIZE(known); i++)
			if (strcmp(section, known[i]) == 0)
				return fail(
					err, errlen, loc, "unknown key '%s' in [%s]", key, section);
		return fail(err, errlen, loc,
			"unknown section [%s] (expected dpfwd, mempool, portN, lcores, routes, "
			"neighbors, relayN, endpoint)",
			section);
	}
	return 0;

bad_uint:
	return fail(err, errlen, loc, "%s '%s' is not a number in range", key, v);
bad_bool:
	return fail(err, errlen, loc, "%s '%s' must be on or off", key, v);
}

/* ---- the scan before rte_cfgfile ---- */

/* How many "\#" rte_cfgfile turns into "#" in the value @p v. */
static size_t
hash_escapes(const char *v)
{
	size_t n = 0;

	for (; (v = strstr(v, "\\#")) != NULL; v += 2)
		n++;
	return n;
}

/* One significant line of a config file: a [section] or a key = value. */
static int
scan_line(void *arg, char *s, const struct dp_config_loc *loc, char *err, size_t errlen)
{
	struct scan *sc = arg;
	char *eq, *k, *v;

	if (*s == '[') {
		char *close = strchr(s, ']');
		int i;

		if (close == NULL || close[1] != '\0')
			return fail(
				err, errlen, loc, "bad section header '%s' (expected [name])", s);
		if (sc->nb_sections == SCAN_MAX_SECTIONS)
			return fail(err, errlen, loc, "too many sections");
		*close = '\0';
		s = trim(s + 1);
		if (*s == '\0' || strlen(s) >= CFG_NAME_LEN)
			return fail(err, errlen, loc, "empty or too long section name");
		for (i = 0; i < sc->nb_sections; i++)
			if (strcmp(sc->sections[i], s) == 0)
				return fail(err, errlen, loc,
					"section [%s] repeated (first at line %d)", s,
					sc->section_line[i]);
		dp_strlcpy(sc->sections[sc->nb_sections], s, CFG_NAME_LEN);
		sc->section_line[sc->nb_sections++] = loc->line;
		return 0;
	}
	eq = strchr(s, '=');
	if (eq == NULL)
		return fail(err, errlen, loc, "expected 'key = value' or '[section]', got '%s'", s);
	if (sc->nb_sections == 0)
		return fail(err, errlen, loc, "'%s' before any [section]", s);
	*eq = '\0';
	k = trim(s);
	v = trim(eq + 1);
	if (*k == '\0' || strlen(k) >= CFG_NAME_LEN)
		return fail(err, errlen, loc, "empty or too long key");
	if (*v == '\0')
		return fail(err, errlen, loc, "key '%s' has no value", k);
	/* rte_cfgfile keeps CFG_VALUE_LEN - 1 bytes of a value (each "\#" made "#") and
	 * would cut a longer one without a word */
	if (strlen(v) - hash_escapes(v) >= CFG_VALUE_LEN)
		return fail(err, errlen, loc, "value of '%s' longer than %d bytes", k,
			CFG_VALUE_LEN - 1);
	if (sc->nb_entries == SCAN_MAX_ENTRIES)
		return fail(err, errlen, loc, "more than %d entries (use a route file)",
			SCAN_MAX_ENTRIES);
	sc->entries[sc->nb_entries++] =
		(struct scan_entry){ .section = sc->nb_sections - 1, .line = loc->line };
	return 0;
}

static int
scan_file(struct scan *sc, const char *path, const struct dp_config_loc *floc, char *err,
	size_t errlen)
{
	sc->nb_sections = 0;
	sc->nb_entries = 0;
	return read_lines(path, "config", *floc, CFGFILE_LINE_MAX,
		" (rte_cfgfile's limit, comments included)", true, scan_line, sc, err, errlen);
}

void
dp_config_init(struct dp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = DP_CONFIG_MODE_FORWARD;
	cfg->main_lcore = 0;
	cfg->burst = 32;
	cfg->tx_drain_us = 100;
	cfg->tx_flush_idle = true;
	cfg->node_stats = true;
	/* one walk in 64 timed: at one in 8 the TSC reads (4 a timed walk) cost
	 * 0.4 busy cycles/packet more on the 64 B rig (6 rounds side by side) */
	cfg->node_stats_sample = 64;
	cfg->delay_stats = true;
	cfg->avx512 = true;
	cfg->ip4_cksum_check = true;
	cfg->check_dst_mac = true;
	/* ICMP errors: as Linux's icmp_msgs_per_sec and icmp_msgs_burst, per worker */
	cfg->icmp_rate = 1000;
	cfg->icmp_burst = 50;
	/* neighbors: the timers of Linux and RFC 4861 (REACHABLE_TIME, RETRANS_TIMER,
	 * MAX_MULTICAST_SOLICIT), and Linux's hold queue of a few packets */
	cfg->neigh_max = 4096;
	/* per neighbor; 64 holds a 63 KB datagram's 44 fragments (Linux holds by bytes,
	 * about a hundred full frames); all neighbors together hold at most
	 * DP_NEIGH_HELD_MAX (src/fwd/neigh.c) */
	cfg->neigh_hold = 64;
	cfg->neigh_reachable_ms = 30000;
	cfg->neigh_retrans_ms = 1000;
	cfg->neigh_probes = 3;
	cfg->neigh_failed_ms = 3000;
	snprintf(cfg->drivers_cfg, sizeof(cfg->drivers_cfg), "%s/drivers-cfg", DP_SOURCE_DIR);
	cfg->pool_size = 0;
	cfg->pool_cache = 256;
	dp_strlcpy(cfg->pool_ops, "ring_mp_mc", sizeof(cfg->pool_ops));
	cfg->pool_data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
	/* [endpoint]: off until the section appears */
	dp_strlcpy(cfg->endpoint.socket, "/run/dpfwd/dpsock.sock", sizeof(cfg->endpoint.socket));
	cfg->endpoint.mode = 0660;
	cfg->endpoint.max = 256;
	cfg->endpoint.tx_bufs = 1024;
	cfg->endpoint.rx_bufs = 1024;
	cfg->endpoint.large_bufs = 32;
	cfg->endpoint.chan_bufs = 512;
	cfg->endpoint.zero_copy_min = 16384;
	cfg->endpoint.udp4_cksum = true;
}

int
dp_config_ini_parse(const char *path, dp_config_ini_cb_t cb, void *arg, const char **fname,
	char *err, size_t errlen)
{
	struct rte_cfgfile_parameters params = { .comment_character = CFG_COMMENT };
	struct rte_cfgfile *file;
	struct dp_config_loc loc = { .file = fname && *fname ? *fname : path, .line = 0 };
	struct scan *sc;
	int e = 0;
	int s;
	int rc;

	sc = calloc(1, sizeof(*sc));
	if (sc == NULL)
		return -ENOMEM;
	rc = scan_file(sc, path, &loc, err, errlen);
	if (rc < 0)
		goto out_scan;

	file = rte_cfgfile_load_with_params(path, 0, &params);
	if (file == NULL) {
		rc = fail(err, errlen, &loc, "rte_cfgfile could not read the file");
		goto out_scan;
	}
	for (s = 0; s < sc->nb_sections; s++) {
		const char *section = sc->sections[s];
		int n = rte_cfgfile_section_num_entries(file, section);
		struct rte_cfgfile_entry *entries;
		int i;

		if (n <= 0) {
			/* a section with no keys still says something ([endpoint]: on) */
			loc.line = sc->section_line[s];
			rc = cb(arg, section, NULL, NULL, &loc, err, errlen);
			if (rc < 0)
				goto out_file;
			continue;
		}
		entries = calloc(n, sizeof(*entries));
		if (entries == NULL) {
			rc = -ENOMEM;
			goto out_file;
		}
		n = rte_cfgfile_section_entries(file, section, entries, n);
		for (i = 0; i < n && rc == 0; i++) {
			/* the i-th entry of this section is the scan's i-th line in it */
			while (e < sc->nb_entries && sc->entries[e].section != s)
				e++;
			loc.line = e < sc->nb_entries ? sc->entries[e++].line : 0;
			rc = cb(arg, section, entries[i].name, entries[i].value, &loc, err, errlen);
		}
		free(entries);
		if (rc < 0)
			goto out_file;
	}
out_file:
	rte_cfgfile_close(file);
out_scan:
	free(sc);
	return rc;
}

static int
apply_cb(void *arg, const char *section, const char *key, const char *value,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	return apply(arg, section, key, value, loc, err, errlen);
}

int
dp_config_load(struct dp_config *cfg, const char *path, char *err, size_t errlen)
{
	const char *fname;

	dp_strlcpy(cfg->path, path, sizeof(cfg->path));
	fname = remember_file(cfg, path);
	return dp_config_ini_parse(path, apply_cb, cfg, &fname, err, errlen);
}

int
dp_config_set(struct dp_config *cfg, const char *assignment, char *err, size_t errlen)
{
	struct dp_config_loc loc = { .file = "--set", .line = 0 };
	char buf[VALUE_MAX];
	char *dot, *eq;

	if (dp_strlcpy(buf, assignment, sizeof(buf)) < 0)
		return fail(err, errlen, &loc, "override too long");
	dot = strchr(buf, '.');
	eq = strchr(buf, '=');
	if (dot == NULL || eq == NULL || dot > eq)
		return fail(err, errlen, &loc, "'%s' is not section.key=value", assignment);
	*dot = '\0';
	*eq = '\0';
	return apply(cfg, trim(buf), trim(dot + 1), trim(eq + 1), &loc, err, errlen);
}

int
dp_config_validate(struct dp_config *cfg, char *err, size_t errlen)
{
	struct dp_config_loc top = { .file = cfg->path[0] ? cfg->path : "config", .line = 0 };
	char a[16], a6[INET6_ADDRSTRLEN];
	uint16_t i, j;

	if (cfg->nb_ports == 0)
		return fail(err, errlen, &top, "no [portN] section: at least one port is needed");
	for (i = 0; i < cfg->nb_ports; i++) {
		if (!cfg->ports[i].defined)
			return fail(err, errlen, &top,
				"[port%u] missing: ports must be numbered from 0 without gaps", i);
		if (cfg->ports[i].dev[0] == '\0')
			return fail(err, errlen, &cfg->ports[i].loc, "[port%u] has no 'dev'", i);
	}
	if (cfg->nb_rxmap == 0)
		return fail(err, errlen, &top,
			"no [lcores] rx = (port,queue,lcore) map: no lcore would poll any port");
	for (i = 0; i < cfg->nb_rxmap; i++) {
		const struct dp_config_rxmap *m = &cfg->rxmap[i];

		if (m->port >= cfg->nb_ports || !cfg->ports[m->port].defined)
			return fail(err, errlen, &m->loc,
				"[lcores] maps port %u, which is not defined", m->port);
		if (m->lcore == cfg->main_lcore)
			return fail(err, errlen, &m->loc,
				"[lcores] maps (%u,%u) to lcore %u, the main (control) lcore; use "
				"another lcore or set [dpfwd] main_lcore",
				m->port, m->queue, m->lcore);
		for (j = 0; j < i; j++)
			if (cfg->rxmap[j].port == m->port && cfg->rxmap[j].queue == m->queue)
				return fail(err, errlen, &m->loc,
					"[lcores] maps port %u queue %u twice", m->port, m->queue);
	}
	for (i = 0; i < cfg->nb_ports; i++) {
		struct dp_config_port *p = &cfg->ports[i];
		uint16_t nq = 0;

		for (j = 0; j < cfg->nb_rxmap; j++)
			if (cfg->rxmap[j].port == i && cfg->rxmap[j].queue + 1 > nq)
				nq = cfg->rxmap[j].queue + 1;
		if (p->rx_queues == 0)
			p->rx_queues = nq;
		else if (nq > p->rx_queues)
			return fail(err, errlen, &p->loc,
				"[lcores] polls queue %u of port %u, which has rx_queues = %u",
				nq - 1, i, p->rx_queues);
	}
	for (uint32_t k = 0; k < cfg->nb_routes; k++) { /* uint16_t i would wrap: >65535 routes */
		const struct dp_config_route *r = &cfg->routes[k];

		if (r->port >= cfg->nb_ports)
			return fail(err, errlen, &r->loc, "route to port %u, which is not defined",
				r->port);
		if (r->plen == 32 && (j = port_of_addr4(cfg, r->prefix)) < cfg->nb_ports)
			return fail(err, errlen, &r->loc,
				"route %s/32 is port%u's own address (its route is the router "
				"itself)",
				dp_config_ip4_str(r->prefix, a, sizeof(a)), j);
	}
	for (i = 0; i < cfg->nb_neighs; i++) {
		const struct dp_config_neigh *n = &cfg->neighs[i];

		if (n->port >= cfg->nb_ports)
			return fail(err, errlen, &n->loc,
				"neighbor on port %u, which is not defined", n->port);
	}
	for (uint32_t k = 0; k < cfg->nb_routes6; k++) {
		const struct dp_config_route6 *r = &cfg->routes6[k];

		if (r->port >= cfg->nb_ports)
			return fail(err, errlen, &r->loc, "route to port %u, which is not defined",
				r->port);
		if (r->plen == 128 && (j = port_of_addr(cfg, true, r->prefix)) < cfg->nb_ports)
			return fail(err, errlen, &r->loc,
				"route %s/128 is port%u's own address (its route is the router "
				"itself)",
				dp_config_ip6_str(r->prefix, a6, sizeof(a6)), j);
	}
	for (i = 0; i < cfg->nb_neighs6; i++) {
		const struct dp_config_neigh6 *n = &cfg->neighs6[i];

		if (n->port >= cfg->nb_ports)
			return fail(err, errlen, &n->loc,
				"neighbor on port %u, which is not defined", n->port);
	}
	return relay_validate(cfg, err, errlen);
}

unsigned int
dp_config_worker_lcores(const struct dp_config *cfg, unsigned int *lcores, unsigned int max)
{
	unsigned int n = 0, i, j;

	for (i = 0; i < cfg->nb_rxmap; i++) {
		unsigned int l = cfg->rxmap[i].lcore;

		for (j = 0; j < n; j++)
			if (lcores[j] == l)
				break;
		if (j < n)
			continue;
		if (n == max)
			break;
		/* insertion sort: a handful of lcores */
		for (j = n; j > 0 && lcores[j - 1] > l; j--)
			lcores[j] = lcores[j - 1];
		lcores[j] = l;
		n++;
	}
	return n;
}

void
dp_config_free(struct dp_config *cfg)
{
	unsigned int i;

	free(cfg->routes);
	cfg->routes = NULL;
	cfg->nb_routes = cfg->cap_routes = 0;
	free(cfg->routes6);
	cfg->routes6 = NULL;
	cfg->nb_routes6 = cfg->cap_routes6 = 0;
	for (i = 0; i < cfg->nb_files; i++)
		free(cfg->files[i]);
	free(cfg->files);
	cfg->files = NULL;
	cfg->nb_files = cfg->cap_files = 0;
}

int
dp_config_error(char *err, size_t errlen, const struct dp_config_loc *loc, const char *fmt, ...)
{
	char msg[DP_CONFIG_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fail(err, errlen, loc, "%s", msg);
}

int
dp_config_parse_uint(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	return parse_u64(v, min, max, out);
}
