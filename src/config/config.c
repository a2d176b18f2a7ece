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
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_cfgfile.h>
#include <rte_ether.h>
#include <rte_mempool.h>

#include "dp_build_config.h"
#include "dp_common.h"
#include "dp_config.h"
#include "dp_module.h"

RTE_LOG_REGISTER(dp_logtype_config, dpfwd.config, INFO);

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

/* "file:line: " (or "file: ") and the message into @p err; fail() and dp_config_error(). */
static int
vfail(char *err, size_t errlen, const struct dp_config_loc *loc, const char *fmt, va_list ap)
{
	int n = 0;

	if (errlen == 0)
		return -EINVAL; /* no room asked for (err may be NULL): the caller keeps no message */
	if (loc != NULL && loc->file != NULL && loc->line > 0)
		n = snprintf(err, errlen, "%s:%d: ", loc->file, loc->line);
	else if (loc != NULL && loc->file != NULL)
		n = snprintf(err, errlen, "%s: ", loc->file);
	if (n < 0 || (size_t)n >= errlen)
		n = 0;
	vsnprintf(err + n, errlen - n, fmt, ap);
	return -EINVAL;
}

static int __rte_format_printf(4, 5)
	fail(char *err, size_t errlen, const struct dp_config_loc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, errlen, loc, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

char *
dp_config_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static const char *
remember_file(struct dp_config *cfg, const char *path)
{
	unsigned int i;

	for (i = 0; i < cfg->nb_files; i++)
		if (strcmp(cfg->files[i], path) == 0)
			return cfg->files[i];
	/* as many as the config names (route files): a fixed table would name the wrong file */
	if (cfg->nb_files == cfg->cap_files) {
		char **n = dp_array_grow(cfg->files, &cfg->cap_files, sizeof(*n), 8);

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

int
dp_config_parse_ip4(const char *v, uint32_t *out)
{
	struct in_addr a;

	if (inet_pton(AF_INET, v, &a) != 1)
		return -EINVAL;
	*out = ntohl(a.s_addr);
	return 0;
}

int
dp_config_parse_ip4_prefix(const char *v, uint32_t *ip, uint8_t *plen)
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
	if (dp_config_parse_ip4(buf, ip) < 0 || parse_u64(slash + 1, 0, 32, &len) < 0)
		return -EINVAL;
	*plen = (uint8_t)len;
	return 0;
}

/*
 * [dpfwd] metrics: "off", "on" (127.0.0.1:9108), "PORT" (on 127.0.0.1), "ADDR:PORT" with a
 * numeric IPv4 address or "localhost", "[ADDR6]:PORT". Port 0 = any free port.
 */
static int
metrics_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	static const char *const expected =
		"expected off, on (= 127.0.0.1:9108), PORT, ADDR:PORT or [ADDR6]:PORT";
	const struct dp_config_loc *loc = at->loc;
	struct dp_config *cfg = base;
	unsigned char bin[sizeof(struct in6_addr)];
	char buf[64];
	const char *host = "127.0.0.1", *port = buf;
	char *sep;
	uint64_t u;

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

/* ---- IPv6 addresses ---- */

static int
parse_ip6(const char *v, uint8_t out[16])
{
	return inet_pton(AF_INET6, v, out) == 1 ? 0 : -EINVAL;
}

int
dp_config_parse_ip6_prefix(const char *v, uint8_t ip[16], uint8_t *plen)
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

const char *
dp_config_ip6_not_unicast(const uint8_t ip[16])
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

/*
 * Read @p path line by line: count lines, reject lines over @p max_len bytes
 * (@p why says whose limit it is) and lines with a NUL byte, cut "#" comments,
 * trim, skip blank lines, and hand each remaining line to @p cb with its file:line.
 * @p cfgfile: cut comments as rte_cfgfile does, where a line whose first "#"
 * follows a backslash has no comment (its value then has "#" for "\#").
 */
static int
read_lines(const char *path, const char *what, struct dp_config_loc loc, size_t max_len,
	const char *why, bool cfgfile, dp_config_line_cb_t cb, void *arg, char *err, size_t errlen)
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
		s = dp_config_trim(line);
		if (*s == '\0')
			continue;
		rc = cb(arg, s, &loc, err, errlen);
		if (rc < 0)
			break;
	}
	fclose(f);
	return rc;
}

int
dp_config_read_lines(struct dp_config *cfg, const char *path, const char *what, size_t max_len,
	dp_config_line_cb_t cb, void *arg, char *err, size_t errlen)
{
	struct dp_config_loc loc = { .file = remember_file(cfg, path), .line = 0 };

	return read_lines(path, what, loc, max_len, "", false, cb, arg, err, errlen);
}

/* ---- [lcores] ---- */

/* [lcores] rx: the whole map, "(port,queue,lcore),..." */
static int
rxmap_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	const struct dp_config_loc *loc = at->loc;
	struct dp_config *cfg = base;
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

uint16_t
dp_config_port_of_addr(const struct dp_config *cfg, bool ip6, const uint8_t addr[16])
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

int
dp_config_port_ref_parse(const char *s, uint16_t *ref)
{
	char buf[16];
	char *dot;
	uint64_t port, vid;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	dp_strlcpy(buf, s, sizeof(buf));
	dot = strchr(buf, '.');
	if (dot != NULL)
		*dot = '\0';
	if (parse_u64(buf, 0, DP_CONFIG_MAX_PORTS - 1, &port) < 0)
		return -EINVAL;
	if (dot == NULL) {
		*ref = (uint16_t)port;
		return 0;
	}
	if (parse_u64(dot + 1, 1, DP_CONFIG_VID_MAX, &vid) < 0)
		return -EINVAL;
	*ref = DP_CONFIG_PORT_REF(port, vid);
	return 0;
}

const char *
dp_config_port_ref_str(uint16_t ref, char *buf, size_t len)
{
	unsigned int r = ref - DP_CONFIG_MAX_PORTS;

	if (dp_config_port_ref_is_vlan(ref))
		snprintf(buf, len, "%u.%u", r / DP_CONFIG_VID_MAX, r % DP_CONFIG_VID_MAX + 1);
	else
		snprintf(buf, len, "%u", ref);
	return buf;
}

uint16_t
dp_config_port_resolve(const struct dp_config *cfg, uint16_t ref)
{
	unsigned int r = ref - DP_CONFIG_MAX_PORTS;
	uint16_t i;

	if (!dp_config_port_ref_is_vlan(ref))
		return ref;
	for (i = cfg->nb_phys_ports; i < cfg->nb_ports; i++)
		if (cfg->ports[i].parent == r / DP_CONFIG_VID_MAX &&
			cfg->ports[i].vid == r % DP_CONFIG_VID_MAX + 1)
			return i;
	return cfg->nb_ports;
}

/* ---- [portN] ---- */

static int
port_mac_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_config_port *p = base;

	if (rte_ether_unformat_addr(v, &p->mac) < 0)
		return fail(err, errlen, at->loc, "bad MAC address '%s'", v);
	return 0;
}

static int
port_ip4_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_config_port *p = base;

	if (dp_config_parse_ip4_prefix(v, &p->ip4, &p->ip4_plen) < 0 || p->ip4_plen == 0 ||
		p->ip4_plen > 31)
		return fail(err, errlen, at->loc,
			"bad interface address '%s' (expected a.b.c.d/len, len 1..31)", v);
	return 0;
}

static int
port_ip6_parse(void *base, const struct dp_config_key *k __rte_unused, const char *v,
	const struct dp_config_at *at, char *err, size_t errlen)
{
	struct dp_config_port *p = base;
	const char *why;

	if (dp_config_parse_ip6_prefix(v, p->ip6, &p->ip6_pfxlen) < 0 || p->ip6_pfxlen == 0 ||
		p->ip6_pfxlen > 127)
		return fail(err, errlen, at->loc,
			"bad interface address '%s' (expected an IPv6 address/len, len 1..127)", v);
	why = dp_config_ip6_not_unicast(p->ip6);
	if (why == NULL && p->ip6[0] == 0xfe && (p->ip6[1] & 0xc0) == 0x80)
		why = "link-local (the port's link-local address is made from its MAC)";
	if (why != NULL)
		return fail(err, errlen, at->loc, "interface address '%s' is %s", v, why);
	return 0;
}

/* ---- the key tables, one per kind of section ---- */

#define CFG_FIELD(member)  DP_CONFIG_FIELD(struct dp_config, member)
#define PORT_FIELD(member) DP_CONFIG_FIELD(struct dp_config_port, member)

static const char *const mode_names[] = { "forward", NULL };

/*
 * ICMP errors: the defaults of Linux's icmp_msgs_per_sec and icmp_msgs_burst, per worker.
 * Neighbors: the timers of Linux and RFC 4861 (REACHABLE_TIME, RETRANS_TIMER,
 * MAX_MULTICAST_SOLICIT) and Linux's hold queue of a few packets; neigh_hold's 64 holds a
 * 63 KB datagram's 44 fragments (Linux holds by bytes, about a hundred full frames), and all
 * neighbors together hold at most DP_NEIGH_HELD_MAX (src/fwd/neigh.c). node_stats_sample:
 * a timed walk reads the TSC at every node boundary, so only one walk in 64 is timed.
 * delay_stats_sample: reading every packet's stamp back at TX was most of the histogram's
 * cost, so only one full burst in 64 is read (dp_delay.h says what that keeps).
 */
static const struct dp_config_key dpfwd_keys[] = {
	{ .name = "mode",
		.type = DP_CONFIG_ENUM,
		CFG_FIELD(mode),
		.names = mode_names,
		.def = "forward",
		.doc = "what dpfwd does; the relay and endpoints are turned on by their sections" },
	{ .name = "main_lcore",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(main_lcore),
		.min = 0,
		.max = RTE_MAX_LCORE - 1,
		.def = "0",
		.doc = "the control lcore, for ARP, ND, timers and telemetry; it polls no queue" },
	{ .name = "burst",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(burst),
		.min = 1,
		.max = DP_BURST_MAX,
		.def = "32",
		.doc = "packets taken from an RX queue at once" },
	{ .name = "tx_drain_us",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(tx_drain_us),
		.min = 1,
		.max = 1000000,
		.def = "100",
		.doc = "microseconds: partial TX buffers are sent at least this often" },
	{ .name = "tx_flush_idle",
		.type = DP_CONFIG_BOOL,
		CFG_FIELD(tx_flush_idle),
		.def = "on",
		.doc = "also send partial TX buffers after a walk whose RX was not full (low delay "
		       "when idle)" },
	{ .name = "node_stats",
		.type = DP_CONFIG_BOOL,
		CFG_FIELD(node_stats),
		.def = "on",
		.doc = "cycles per graph node (one TSC read per node boundary)" },
	{ .name = "node_stats_sample",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(node_stats_sample),
		.min = 1,
		.max = 1024,
		.def = "64",
		.doc = "time one graph walk in this many; 1 = every walk" },
	{ .name = "delay_stats",
		.type = DP_CONFIG_BOOL,
		CFG_FIELD(delay_stats),
		.def = "on",
		.doc = "per-packet delay from RX burst to TX burst: histogram, quantiles, jitter" },
	{ .name = "delay_stats_sample",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(delay_stats_sample),
		.min = 1,
		.max = 1024,
		.def = "64",
		.doc = "time one full TX burst in this many, at random, each of its packets "
		       "counting as this many; partial bursts always; 1 = every packet" },
	{ .name = "avx512",
		.type = DP_CONFIG_BOOL,
		CFG_FIELD(avx512),
		.def = "on",
		.doc = "let DPDK's libraries use AVX-512 where the CPU has it (EAL's "
		       "--force-max-simd-bitwidth still wins)" },
	{ .name = "ip4_cksum_check",
		.type = DP_CONFIG_BOOL,
		CFG_FIELD(ip4_cksum_check),
		.def = "on",
		.doc = "verify IPv4 header checksums in software when the NIC did not" },
	{ .name = "check_dst_mac",
		.type = DP_CONFIG_BOOL,
		CFG_FIELD(check_dst_mac),
		.def = "on",
		.doc = "drop unicast frames for another MAC (promiscuous ports excepted)" },
	{ .name = "icmp_rate",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(icmp_rate),
		.min = 0,
		.max = 10000000,
		.def = "1000",
		.doc = "ICMP errors per second per worker; 0 = none sent" },
	{ .name = "icmp_burst",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(icmp_burst),
		.min = 1,
		.max = 1000000,
		.def = "50",
		.doc = "ICMP errors sent at once: the token bucket's depth" },
	{ .name = "neigh_max",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(neigh_max),
		.min = 16,
		.max = 1u << 20,
		.def = "4096",
		.doc = "neighbors at most, ARP and ND, dynamic and static" },
	{ .name = "neigh_hold",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(neigh_hold),
		.min = 0,
		.max = DP_CONFIG_NEIGH_HOLD_MAX,
		.def = "64",
		.doc = "packets held per unresolved neighbor, the oldest dropped first" },
	{ .name = "neigh_reachable_ms",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(neigh_reachable_ms),
		.min = 1000,
		.max = 3600000,
		.def = "30000",
		.doc = "milliseconds a confirmed neighbor stays reachable; then it is probed" },
	{ .name = "neigh_retrans_ms",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(neigh_retrans_ms),
		.min = 100,
		.max = 60000,
		.def = "1000",
		.doc = "milliseconds between two ARP requests or neighbor solicitations" },
	{ .name = "neigh_probes",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(neigh_probes),
		.min = 1,
		.max = 10,
		.def = "3",
		.doc = "unanswered solicitations before a neighbor is failed" },
	{ .name = "neigh_failed_ms",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(neigh_failed_ms),
		.min = 0,
		.max = 600000,
		.def = "3000",
		.doc = "milliseconds a failed neighbor is not asked again; its packets are dropped" },
	{ .name = "drivers_cfg",
		.type = DP_CONFIG_PATH,
		CFG_FIELD(drivers_cfg),
		.unset =
			"PREFIX/share/dpfwd/drivers-cfg (run from the build tree: the source tree's)",
		.doc = "the folder of driver profiles (NAME.ini)" },
	{ .name = "metrics",
		.type = DP_CONFIG_CUSTOM,
		.parse = metrics_parse,
		.syntax = "off, on (127.0.0.1:9108), PORT, ADDR:PORT or [ADDR6]:PORT",
		.given_at = DP_CONFIG_OPT_FIELD(struct dp_config, metrics_loc),
		.def = "off",
		.doc = "serve Prometheus metrics over HTTP; port 0 = any free port" },
};

static const char *const pool_ops_names[] = { "ring_mp_mc", "ring_sp_sc", "ring_mp_sc",
	"ring_sp_mc", "stack", "lf_stack", "ring_mt_rts", "ring_mt_hts", NULL };

static const struct dp_config_key mempool_keys[] = {
	{ .name = "size",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(pool_size),
		.zero = "auto",
		.min = 1024,
		.max = 1u << 26,
		.def = "auto",
		.doc = "packets per pool; auto = sized from ports, queues, descriptors and lcores" },
	{ .name = "cache",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(pool_cache),
		.min = 0,
		.max = RTE_MEMPOOL_CACHE_MAX_SIZE,
		.def = "256",
		.doc = "per-lcore cache of free packets; 0 = every packet through the ops" },
	{ .name = "ops",
		.type = DP_CONFIG_STRING,
		CFG_FIELD(pool_ops),
		.names = pool_ops_names,
		.def = "ring_mp_mc",
		.doc = "the mempool ops (the allocator) that hold free packets" },
	{ .name = "data_room",
		.type = DP_CONFIG_UINT,
		CFG_FIELD(pool_data_room),
		.min = 256 + RTE_PKTMBUF_HEADROOM,
		.max = 65535,
		.given = DP_CONFIG_OPT_FIELD(struct dp_config, pool_data_room_set),
		.unset = "RTE_MBUF_DEFAULT_BUF_SIZE (2048 bytes and the headroom), more when a "
			 "port's mtu needs it",
		.doc = "bytes of a packet buffer, headroom included" },
};

static const struct dp_config_key port_keys[] = {
	{ .name = "dev",
		.type = DP_CONFIG_STRING,
		PORT_FIELD(dev),
		.unset = "required",
		.doc = "a vdev string (net_null0,size=64) or a PCI address (0000:3b:00.0)" },
	{ .name = "profile",
		.type = DP_CONFIG_STRING,
		PORT_FIELD(profile),
		.unset = "by driver name",
		.doc = "the driver profile to use (drivers_cfg/NAME.ini)" },
	{ .name = "rx_queues",
		.type = DP_CONFIG_UINT,
		PORT_FIELD(rx_queues),
		.min = 1,
		.max = 1024,
		.unset = "as many as [lcores] polls",
		.doc = "RX queues" },
	{ .name = "rx_desc",
		.type = DP_CONFIG_UINT,
		PORT_FIELD(rx_desc),
		.min = 32,
		.max = 32768,
		.unset = "the driver profile's",
		.doc = "RX descriptors per queue" },
	{ .name = "tx_desc",
		.type = DP_CONFIG_UINT,
		PORT_FIELD(tx_desc),
		.min = 32,
		.max = 32768,
		.unset = "the driver profile's",
		.doc = "TX descriptors per queue" },
	{ .name = "mac",
		.type = DP_CONFIG_CUSTOM,
		.parse = port_mac_parse,
		.syntax = "xx:xx:xx:xx:xx:xx",
		.given = DP_CONFIG_OPT_FIELD(struct dp_config_port, has_mac),
		.unset = "the device's",
		.doc = "the port's MAC address" },
	{ .name = "ip4",
		.type = DP_CONFIG_CUSTOM,
		.parse = port_ip4_parse,
		.syntax = "a.b.c.d/len, len 1..31",
		.unset = "none",
		.doc = "interface address: a local /32 and a connected route" },
	{ .name = "ip6",
		.type = DP_CONFIG_CUSTOM,
		.parse = port_ip6_parse,
		.syntax = "IPv6 address/len, len 1..127",
		.given = DP_CONFIG_OPT_FIELD(struct dp_config_port, has_ip6),
		.unset = "none",
		.doc = "global IPv6 address: a local /128 and a connected route (the link-local one "
		       "is made from the MAC)" },
	{ .name = "promisc",
		.type = DP_CONFIG_BOOL,
		PORT_FIELD(promisc),
		.def = "off",
		.doc = "promiscuous mode" },
	{ .name = "mtu",
		.type = DP_CONFIG_UINT,
		PORT_FIELD(mtu),
		.min = DP_CONFIG_MTU_MIN,
		.max = DP_CONFIG_MTU_MAX,
		.given_at = DP_CONFIG_OPT_FIELD(struct dp_config_port, mtu_at),
		.unset = "the driver profile's, else 1500",
		.doc = "the largest IP packet the port sends and takes (the device's range is "
		       "checked at start); 1280 at least with ip6" },
};

/* [portN.VID]: what a sub-interface has of its own (its queues are its port's) */
static const struct dp_config_key vlan_keys[] = {
	{ .name = "mac",
		.type = DP_CONFIG_CUSTOM,
		.parse = port_mac_parse,
		.syntax = "xx:xx:xx:xx:xx:xx",
		.given = DP_CONFIG_OPT_FIELD(struct dp_config_port, has_mac),
		.unset = "its port's",
		.doc = "the sub-interface's MAC address (its port accepts frames for it)" },
	{ .name = "ip4",
		.type = DP_CONFIG_CUSTOM,
		.parse = port_ip4_parse,
		.syntax = "a.b.c.d/len, len 1..31",
		.unset = "none",
		.doc = "interface address: a local /32 and a connected route" },
	{ .name = "ip6",
		.type = DP_CONFIG_CUSTOM,
		.parse = port_ip6_parse,
		.syntax = "IPv6 address/len, len 1..127",
		.given = DP_CONFIG_OPT_FIELD(struct dp_config_port, has_ip6),
		.unset = "none",
		.doc = "global IPv6 address: a local /128 and a connected route (the link-local one "
		       "is made from the MAC)" },
	{ .name = "mtu",
		.type = DP_CONFIG_UINT,
		PORT_FIELD(mtu),
		.min = DP_CONFIG_MTU_MIN,
		.max = DP_CONFIG_MTU_MAX,
		.given_at = DP_CONFIG_OPT_FIELD(struct dp_config_port, mtu_at),
		.unset = "its port's",
		.doc = "the largest IP packet the sub-interface sends and takes: at most its port's" },
};

static const struct dp_config_key lcores_keys[] = {
	{ .name = "rx",
		.type = DP_CONFIG_CUSTOM,
		.parse = rxmap_parse,
		.syntax = "(port,queue,lcore),...",
		.unset = "required",
		.doc = "the RX queues each lcore polls; every lcore named is a worker" },
};

/* ---- sections: where their structs are, and what their first key does ---- */

static bool
port_open(struct dp_config *cfg, void *base, unsigned int idx, const struct dp_config_loc *loc)
{
	struct dp_config_port *p = base;

	if (p->defined)
		return false;
	p->defined = true;
	p->loc = *loc;
	if (idx + 1 > cfg->nb_ports)
		cfg->nb_ports = (uint16_t)(idx + 1);
	return true;
}

static const struct dp_config_section dpfwd_section = {
	.name = "dpfwd",
	.doc = "The datapath: lcores, bursts, counters, ICMP errors, the neighbor table, metrics.",
	.keys = dpfwd_keys,
	.nb_keys = DP_ARRAY_SIZE(dpfwd_keys),
};

static const struct dp_config_section mempool_section = {
	.name = "mempool",
	.label = "mempool ",
	.doc = "The packet pools, one per NUMA socket.",
	.keys = mempool_keys,
	.nb_keys = DP_ARRAY_SIZE(mempool_keys),
};

static const struct dp_config_section port_section = {
	.name = "port",
	.count = DP_CONFIG_MAX_PORTS,
	.doc = "A DPDK port: its device, queues and addresses. Ports are numbered from 0 without "
	       "gaps.",
	.keys = port_keys,
	.nb_keys = DP_ARRAY_SIZE(port_keys),
	.off = offsetof(struct dp_config, ports),
	.stride = sizeof(struct dp_config_port),
	.open = port_open,
};

/* Sections are found by name, this one by the dot ([port0.100]: section_find()); its
 * struct is a slot of cfg->vlans, taken by section_open(). */
static const struct dp_config_section vlan_section = {
	.name = "portN.VID",
	.doc = "An 802.1Q sub-interface of [portN]: VLAN id VID (1..4094) on that port, with its "
	       "own addresses. Routes and neighbors name it as port N.VID.",
	.keys = vlan_keys,
	.nb_keys = DP_ARRAY_SIZE(vlan_keys),
	.off = offsetof(struct dp_config, vlans),
	.stride = sizeof(struct dp_config_port),
};

static const struct dp_config_section lcores_section = {
	.name = "lcores",
	.doc = "Which lcore polls which RX queue, as DPDK l3fwd's --config.",
	.keys = lcores_keys,
	.nb_keys = DP_ARRAY_SIZE(lcores_keys),
};

/* In this order in messages and in the reference, before the modules' sections. */
static const struct dp_config_section *const core_sections[] = {
	&dpfwd_section,
	&mempool_section,
	&port_section,
	&vlan_section,
	&lcores_section,
};

/*
 * A module's section gets its room in struct dp_config's mod when first seen, at
 * the same place in every config. The room is fixed (no allocation) so that a
 * config stays a plain struct: on the stack, freed by dp_config_free() alone.
 */
static void
section_place(struct dp_config_section *s)
{
	static size_t used;
	size_t n = s->size * (s->count > 0 ? s->count : 1);
	size_t at = RTE_ALIGN_CEIL(used, 8);

	if (s->off != 0)
		return;
	if (s->size == 0 || at + n > DP_CONFIG_MOD_BYTES) {
		/* a module's bug, seen by any binary's first config */
		fprintf(stderr, "dpfwd: config section [%s]: %s\n", s->name,
			s->size == 0 ? "a module's section must give its struct's size"
				     : "no room left in struct dp_config's mod: raise "
				       "DP_CONFIG_MOD_BYTES");
		abort();
	}
	s->off = offsetof(struct dp_config, mod) + at;
	if (s->count > 0)
		s->stride = s->size;
	used = at + n;
}

const struct dp_config_section *
dp_config_section_at(unsigned int i)
{
	const struct dp_module *m;
	unsigned int j;

	if (i < DP_ARRAY_SIZE(core_sections))
		return core_sections[i];
	i -= DP_ARRAY_SIZE(core_sections);
	for (m = dp_module_next(NULL); m != NULL; m = dp_module_next(m))
		for (j = 0; j < DP_MODULE_MAX_SECTIONS && m->sections[j] != NULL; j++)
			if (i-- == 0) {
				section_place(m->sections[j]);
				return m->sections[j];
			}
	return NULL;
}

/* The kind of section @p name and its number ([port3]: 3). @return 0 or -EINVAL. */
static int
section_find(const char *name, const struct dp_config_section **sp, unsigned int *idx,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	char known[256] = "";
	const struct dp_config_section *s;
	unsigned int i;

	*sp = NULL;
	*idx = 0;
	if (strncmp(name, "port", 4) == 0 && strchr(name, '.') != NULL) {
		uint16_t ref;

		if (dp_config_port_ref_parse(name + 4, &ref) < 0 ||
			!dp_config_port_ref_is_vlan(ref))
			return fail(err, errlen, loc,
				"bad sub-interface section [%s] (expected [portN.VID], N 0..%d, VID "
				"1..%d)",
				name, DP_CONFIG_MAX_PORTS - 1, DP_CONFIG_VID_MAX);
		*sp = &vlan_section;
		*idx = ref;
		return 0;
	}
	for (i = 0; (s = dp_config_section_at(i)) != NULL; i++) {
		if (s->count == 0 && strcmp(name, s->name) == 0) {
			*sp = s;
			*idx = 0;
			return 0;
		}
	}
	for (i = 0; (s = dp_config_section_at(i)) != NULL; i++) {
		size_t len = strlen(s->name);
		uint64_t u;

		if (s->count == 0 || strncmp(name, s->name, len) != 0)
			continue;
		if (!isdigit((unsigned char)name[len]) ||
			parse_u64(name + len, 0, s->count - 1, &u) < 0)
			return fail(err, errlen, loc,
				"bad %s section [%s] (expected [%s0]..[%s%u])", s->name, name,
				s->name, s->name, s->count - 1);
		*sp = s;
		*idx = (unsigned int)u;
		return 0;
	}
	for (i = 0; (s = dp_config_section_at(i)) != NULL; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s%s",
			i > 0 ? ", " : "", s->name, s->count > 0 ? "N" : "");
	return fail(err, errlen, loc, "unknown section [%s] (expected %s)", name, known);
}

/* @p *base: the slot of sub-interface @p ref (DP_CONFIG_PORT_REF()) in cfg->vlans, taken
 * the first time it is seen. */
static int
vlan_open(struct dp_config *cfg, uint16_t ref, const struct dp_config_at *at, void **base,
	char *err, size_t errlen)
{
	unsigned int r = ref - DP_CONFIG_MAX_PORTS;
	struct dp_config_port *p;
	uint16_t i;

	for (i = 0; i < cfg->nb_vlans; i++)
		if (DP_CONFIG_PORT_REF(cfg->vlans[i].parent, cfg->vlans[i].vid) == ref) {
			*base = &cfg->vlans[i];
			return 0;
		}
	if (cfg->nb_vlans == DP_CONFIG_MAX_VLANS)
		return fail(err, errlen, at->loc, "[%s]: more than %d sub-interfaces", at->section,
			DP_CONFIG_MAX_VLANS);
	p = &cfg->vlans[cfg->nb_vlans++];
	memset(p, 0, sizeof(*p));
	p->defined = true;
	p->loc = *at->loc;
	p->parent = (uint16_t)(r / DP_CONFIG_VID_MAX);
	p->vid = (uint16_t)(r % DP_CONFIG_VID_MAX + 1);
	*base = p;
	return 0;
}

/* @p *base: the struct of section @p s number @p idx; a numbered one's defaults when new. */
static int
section_open(struct dp_config *cfg, const struct dp_config_section *s, unsigned int idx,
	const struct dp_config_at *at, void **base, char *err, size_t errlen)
{
	if (s == &vlan_section)
		return vlan_open(cfg, (uint16_t)idx, at, base, err, errlen);
	*base = (char *)cfg + s->off + (size_t)idx * s->stride;
	if (s->open != NULL && s->open(cfg, *base, idx, at->loc) && s->count > 0)
		return dp_config_section_defaults(s, *base, at, err, errlen);
	return 0;
}

static int
apply(struct dp_config *cfg, const char *section, const char *key, const char *raw,
	const struct dp_config_loc *loc, char *err, size_t errlen)
{
	/* zeroed: clang's analyser cannot follow expand_vars' copies (memcpy of a getenv
	 * value) and took every later read of v for a read of garbage */
	char v[VALUE_MAX] = { 0 };
	char dir[PATH_MAX];
	struct dp_config_at at = { .section = section, .loc = loc, .dir = "", .cfg = cfg };
	const struct dp_config_section *s;
	unsigned int idx;
	void *base;
	int rc;

	if (key == NULL) {
		/* a section without keys: only one whose presence says something counts (an
		 * unknown one is let pass) */
		if (section_find(section, &s, &idx, loc, NULL, 0) == 0 && s != NULL && s->presence)
			return section_open(cfg, s, idx, &at, &base, err, errlen);
		return 0;
	}
	rc = expand_vars(raw, v, sizeof(v), cfg, err, errlen, loc);
	if (rc < 0)
		return rc;
	rc = section_find(section, &s, &idx, loc, err, errlen);
	if (rc < 0 || s == NULL)
		return rc < 0 ? rc : -EINVAL;
	if (cfg->path[0] != '\0') {
		dp_strlcpy(dir, cfg->path, sizeof(dir));
		at.dir = dirname(dir);
	}
	rc = section_open(cfg, s, idx, &at, &base, err, errlen);
	if (rc < 0)
		return rc;
	return dp_config_key_apply(s, base, key, v, &at, err, errlen);
}

int
dp_config_reference_print(FILE *f)
{
	const struct dp_config_section *s;
	unsigned int i;

	fputs("<!-- Made from the key tables of src/config and the modules by `dpfwd --config-reference`;"
	      " do not edit: tests/unit/config/test_config_keys.c fails when they differ. Again:"
	      " build/apps/dpfwd/dpfwd --config-reference > docs/config-reference.md -->\n"
	      "# Configuration reference\n"
	      "\n"
	      "Every key of every section of a dpfwd config, with its type, range and default.\n"
	      "How the files are read (INI, `#` comments, `${VAR}`, `--set section.key=value`) is\n"
	      "in [configuration.md](configuration.md). Numbers are decimal or `0x` hex; booleans are\n"
	      "`on`/`off`, `yes`/`no`, `true`/`false` or `1`/`0`; relative paths are relative to\n"
	      "the config file's folder. An unknown section or key is an error that names its file\n"
	      "and line.\n",
		f);
	for (i = 0; (s = dp_config_section_at(i)) != NULL; i++) {
		fputc('\n', f);
		dp_config_section_print(f, s);
	}
	return ferror(f) ? -EIO : 0;
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
		s = dp_config_trim(s + 1);
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
	k = dp_config_trim(s);
	v = dp_config_trim(eq + 1);
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

/*
 * The driver profiles when the config names none: a binary of the build tree takes the
 * source tree's drivers-cfg/; an installed one the profiles installed beside it
 * (DATADIR/dpfwd/drivers-cfg, relative to its own folder, so that a relocated install
 * finds its own), else the install path it was built for.
 */
void
dp_config_drivers_cfg_default(char *out, size_t len)
{
	char exe[PATH_MAX], path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t blen = strlen(DP_BUILD_DIR);

	if (n > 0) {
		exe[n] = '\0';
		if (strncmp(exe, DP_BUILD_DIR, blen) == 0 && exe[blen] == '/') {
			snprintf(out, len, "%s/drivers-cfg", DP_SOURCE_DIR);
			return;
		}
		if (DP_DRIVERS_CFG_FROM_BIN[0] != '\0' &&
			(size_t)snprintf(path, sizeof(path), "%s/%s", dirname(exe),
				DP_DRIVERS_CFG_FROM_BIN) < sizeof(path) &&
			access(path, R_OK | X_OK) == 0 && realpath(path, exe) != NULL) {
			dp_strlcpy(out, exe, len);
			return;
		}
	}
	dp_strlcpy(out, DP_DRIVERS_CFG_DIR, len);
}

void
dp_config_init(struct dp_config *cfg)
{
	static const struct dp_config_loc none;
	const struct dp_config_section *s;
	char err[DP_CONFIG_ERR_LEN];
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	/* the tables' defaults (a numbered section's come when it first appears); each is a
	 * value of its key, which tests/unit/config/test_config_keys.c checks */
	for (i = 0; (s = dp_config_section_at(i)) != NULL; i++) {
		const struct dp_config_at at = {
			.section = s->name, .loc = &none, .dir = "", .cfg = cfg
		};

		if (s->count == 0)
			dp_config_section_defaults(s, (char *)cfg + s->off, &at, err, sizeof(err));
	}
	/* those that are not a value one would write */
	dp_config_drivers_cfg_default(cfg->drivers_cfg, sizeof(cfg->drivers_cfg));
	cfg->pool_data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
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
	return apply(cfg, dp_config_trim(buf), dp_config_trim(dot + 1), dp_config_trim(eq + 1),
		&loc, err, errlen);
}

/* The sub-interfaces after the ports, each checked against its port. */
static int
vlans_place(struct dp_config *cfg, char *err, size_t errlen)
{
	uint16_t i;

	cfg->nb_phys_ports = cfg->nb_ports;
	if (cfg->nb_ports + cfg->nb_vlans > DP_CONFIG_MAX_PORTS)
		return fail(err, errlen, &cfg->vlans[DP_CONFIG_MAX_PORTS - cfg->nb_ports].loc,
			"more than %d ports and sub-interfaces in all", DP_CONFIG_MAX_PORTS);
	for (i = 0; i < cfg->nb_vlans; i++) {
		const struct dp_config_port *v = &cfg->vlans[i];
		const struct dp_config_port *parent = &cfg->ports[v->parent];

		if (v->parent >= cfg->nb_phys_ports || !parent->defined)
			return fail(err, errlen, &v->loc,
				"[port%u.%u] is a sub-interface of [port%u], which is not defined",
				v->parent, v->vid, v->parent);
		if (v->mtu != 0 && parent->mtu != 0 && v->mtu > parent->mtu)
			return fail(err, errlen, &v->mtu_at,
				"[port%u.%u] mtu %u is over its port's (%u)", v->parent, v->vid,
				v->mtu, parent->mtu);
		if (v->has_ip6 && v->mtu != 0 && v->mtu < DP_CONFIG_MTU_MIN6)
			return fail(err, errlen, &v->mtu_at,
				"[port%u.%u] mtu %u with an ip6 address: IPv6 links carry 1280 bytes "
				"at least (RFC 8200 5)",
				v->parent, v->vid, v->mtu);
		cfg->ports[cfg->nb_phys_ports + i] = *v;
	}
	cfg->nb_ports = (uint16_t)(cfg->nb_phys_ports + cfg->nb_vlans);
	return 0;
}

int
dp_config_validate(struct dp_config *cfg, char *err, size_t errlen)
{
	struct dp_config_loc top = { .file = cfg->path[0] ? cfg->path : "config", .line = 0 };
	const struct dp_config_section *s;
	uint16_t i, j;
	unsigned int n;
	int rc;

	if (cfg->nb_ports == 0)
		return fail(err, errlen, &top, "no [portN] section: at least one port is needed");
	if (cfg->nb_phys_ports != 0)
		cfg->nb_ports = cfg->nb_phys_ports; /* validated before: placed again below */
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
		if (p->has_ip6 && p->mtu != 0 && p->mtu < DP_CONFIG_MTU_MIN6)
			return fail(err, errlen, &p->mtu_at,
				"[port%u] mtu %u with an ip6 address: IPv6 links carry 1280 bytes "
				"at least (RFC 8200 5)",
				i, p->mtu);
		if (p->rx_queues == 0)
			p->rx_queues = nq;
		else if (nq > p->rx_queues)
			return fail(err, errlen, &p->loc,
				"[lcores] polls queue %u of port %u, which has rx_queues = %u",
				nq - 1, i, p->rx_queues);
	}
	rc = vlans_place(cfg, err, errlen);
	if (rc < 0)
		return rc;
	/* the modules' sections, which may check theirs against the ports */
	for (n = 0; (s = dp_config_section_at(n)) != NULL; n++)
		if (s->validate != NULL && (rc = s->validate(cfg, err, errlen)) < 0)
			return rc;
	return 0;
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
	const struct dp_config_section *s;
	unsigned int i, j;

	/* what the modules' sections hold (their free hooks leave them empty) */
	for (i = 0; (s = dp_config_section_at(i)) != NULL; i++)
		for (j = 0; s->free != NULL && j < (s->count > 0 ? s->count : 1); j++)
			s->free(dp_config_section_data(cfg, s, j));
	for (i = 0; i < cfg->nb_files; i++)
		free(cfg->files[i]);
	free(cfg->files);
	cfg->files = NULL;
	cfg->nb_files = cfg->cap_files = 0;
}

int
dp_config_error(char *err, size_t errlen, const struct dp_config_loc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, errlen, loc, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int
dp_config_parse_uint(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	return parse_u64(v, min, max, out);
}
