/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config loader: configs/default.ini, every error kind with its exact
 * "file:line: " prefix, ${VAR} expansion, route files, --set overrides and
 * the worker lcore list. Test configs are written at run time into a
 * mkdtemp() folder (removed at the end) so each case is readable here, next
 * to the line number it expects.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "dp_build_config.h"
#include "dp_common.h"
#include "dp_config.h"
#include "dp_fwd_config.h"
#include "dp_endpoint.h"
#include "dp_port.h"
#include "dp_test.h"

static char tmpdir[256];

/* ---- helpers ---- */

static int
suite_init(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/dpfwd-test-config-XXXXXX",
		getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

static int
suite_cleanup(void)
{
	if (tmpdir[0] != '\0')
		dp_test_rm_rf(tmpdir);
	return 0;
}

/* Write @p text to tmpdir/@p name; the full path goes to @p path. */
static void
write_file(const char *name, const char *text, char *path, size_t len)
{
	dp_test_write_file(tmpdir, name, text, path, len);
}

static const char *
src_dir(void)
{
	const char *s = getenv("DPFWD_SRC");

	return s != NULL ? s : DP_SOURCE_DIR;
}

/* Line number (1-based) of the first line of @p path starting with @p start, 0 if none. */
static int
line_of(const char *path, const char *start)
{
	char buf[1024];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (f == NULL)
		return 0;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		n++;
		if (strncmp(buf, start, strlen(start)) == 0) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

static uint32_t
ip4(unsigned int a, unsigned int b, unsigned int c, unsigned int d)
{
	return a << 24 | b << 16 | c << 8 | d;
}

/* err must start with "<file>:<line>: " (or "<file>: " when line is 0) and contain @p text. */
static void
check_err_at(const char *err, const char *file, int line, const char *text, const char *what,
	const char *sfile, unsigned int sline)
{
	char prefix[PATH_MAX + 32];

	if (line > 0)
		snprintf(prefix, sizeof(prefix), "%s:%d: ", file, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", file);
	dp_test_expect(strncmp(err, prefix, strlen(prefix)) == 0, sfile, sline,
		"%s: error '%s' does not start with '%s'", what, err, prefix);
	if (text != NULL)
		dp_test_expect(strstr(err, text) != NULL, sfile, sline, "%s: error '%s' lacks '%s'",
			what, err, text);
}
#define CHECK_ERR(err, file, line, text, what)                                                     \
	check_err_at((err), (file), (line), (text), (what), __FILE__, __LINE__)

/* ---- [endpoint] ---- */

static void
test_config_endpoint_defaults(void)
{
	struct dp_config cfg;

	dp_config_init(&cfg);
	CU_ASSERT_FALSE(dp_endpoint_config(&cfg)->enabled); /* off until the section appears */
	CU_ASSERT_STRING_EQUAL(dp_endpoint_config(&cfg)->socket, "/run/dpfwd/dpsock.sock");
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->mode, 0660);
	CU_ASSERT_STRING_EQUAL(dp_endpoint_config(&cfg)->group, "");
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->max, 256);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->tx_bufs, 1024);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->rx_bufs, 1024);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->large_bufs, 32);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->chan_bufs, 512);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->zero_copy_min, 16384);
	CU_ASSERT_TRUE(dp_endpoint_config(&cfg)->udp4_cksum);
	dp_config_free(&cfg);
}

static void
test_config_endpoint_every_key(void)
{
	static const char ini[] = "[dpfwd]\n"                 /* 1 */
				  "burst = 32\n"              /* 2 */
				  "[endpoint]\n"              /* 3 */
				  "socket = /tmp/x/dp.sock\n" /* 4 */
				  "mode = 0600\n"             /* 5 */
				  "group = dpsock\n"          /* 6 */
				  "max = 65536\n"             /* 7 */
				  "tx_bufs = 16\n"            /* 8 */
				  "rx_bufs = 0x10000\n"       /* 9 */
				  "large_bufs = 0\n"          /* 10 */
				  "chan_bufs = 100\n"         /* 11 */
				  "zero_copy_min = 64\n"      /* 12 */
				  "udp4_cksum = off\n";       /* 13 */
	struct dp_config cfg;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	write_file("endpoint-keys.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	CU_ASSERT_TRUE(dp_endpoint_config(&cfg)->enabled);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->loc.line, 4); /* the section's first key */
	CU_ASSERT_STRING_EQUAL(dp_endpoint_config(&cfg)->socket, "/tmp/x/dp.sock");
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->mode, 0600);
	CU_ASSERT_STRING_EQUAL(dp_endpoint_config(&cfg)->group, "dpsock");
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->max, 65536);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->tx_bufs, 16);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->rx_bufs, 65536);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->large_bufs, 0);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->chan_bufs, 100);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->zero_copy_min, 64);
	CU_ASSERT_FALSE(dp_endpoint_config(&cfg)->udp4_cksum);
	dp_config_free(&cfg);
}

/* "[endpoint]" alone turns endpoints on with the defaults; loc is the section's line. */
static void
test_config_endpoint_empty_section_turns_on(void)
{
	static const char ini[] = "[dpfwd]\n"    /* 1 */
				  "burst = 32\n" /* 2 */
				  "\n"           /* 3 */
				  "[endpoint]\n" /* 4 */
				  "[mempool]\n"  /* 5 */
				  "cache = 0\n"; /* 6 */
	struct dp_config cfg;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	write_file("endpoint-empty.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	CU_ASSERT_TRUE(dp_endpoint_config(&cfg)->enabled);
	CU_ASSERT_EQUAL(dp_endpoint_config(&cfg)->loc.line, 4);
	CU_ASSERT_STRING_EQUAL(dp_endpoint_config(&cfg)->socket, "/run/dpfwd/dpsock.sock");
	CU_ASSERT_EQUAL(cfg.pool_cache, 0); /* the sections after it still read */
	dp_config_free(&cfg);
}

/* One of drivers-cfg/'s profiles, which must load. */
static void
shipped_profile_load(const char *name, struct dp_port_profile *p)
{
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	snprintf(path, sizeof(path), "%s/drivers-cfg/%s.ini", src_dir(), name);
	rc = dp_port_profile_load(path, p, err, sizeof(err));
	EXPECT(rc == 0, "%s: rc %d '%s'", name, rc, err);
}

/* Driver profiles: ip4_whole_max (net_af_packet cuts IPv4 over 1940 bytes short), and its
 * bad values named with file:line. */
static void
test_profile_ip4_whole_max(void)
{
	struct dp_port_profile p;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	shipped_profile_load("net_af_packet", &p);
	CU_ASSERT_EQUAL(p.ip4_whole_max, 1940);
	shipped_profile_load("net_af_xdp", &p);
	CU_ASSERT_EQUAL(p.ip4_whole_max, 0); /* frames as they are on the wire */
	write_file("bad-profile.ini", "[profile]\ndrivers = x\nip4_whole_max = 70000\n", path,
		sizeof(path));
	rc = dp_port_profile_load(path, &p, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	EXPECT(strstr(err, "bad-profile.ini:3:") != NULL &&
			strstr(err, "ip4_whole_max '70000' must be 0..65535") != NULL,
		"'%s'", err);
}

/* Driver profiles: rx_headroom and buf_max (net_af_xdp receives 256 bytes past the mbuf
 * headroom, into buffers of a page at most; others: none, any), and their bad values. */
static void
test_profile_rx_headroom_buf_max(void)
{
	struct dp_port_profile p;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	shipped_profile_load("net_af_xdp", &p);
	CU_ASSERT_EQUAL(p.rx_headroom, 256);
	CU_ASSERT_EQUAL(p.buf_max, 4096);
	shipped_profile_load("net_af_packet", &p);
	CU_ASSERT_EQUAL(p.rx_headroom, 0);
	CU_ASSERT_EQUAL(p.buf_max, 0);
	write_file(
		"bad-profile.ini", "[profile]\ndrivers = x\nbuf_max = 512\n", path, sizeof(path));
	rc = dp_port_profile_load(path, &p, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	EXPECT(strstr(err, "bad-profile.ini:3:") != NULL &&
			strstr(err, "buf_max '512' must be 0 (any) or 1024..65535") != NULL,
		"'%s'", err);
	write_file("bad-profile.ini", "[profile]\nrx_headroom = 5000\n", path, sizeof(path));
	rc = dp_port_profile_load(path, &p, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	EXPECT(strstr(err, "bad-profile.ini:2:") != NULL &&
			strstr(err, "rx_headroom '5000' must be 0..4096") != NULL,
		"'%s'", err);
}

/* Driver profiles: mtu (net_tap's 1500, set at start; none: the driver's), and its bad
 * values named with file:line. */
static void
test_profile_mtu(void)
{
	static const char *const bad[] = { "40", "70000", "jumbo" };
	struct dp_port_profile p;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	unsigned int i;
	int rc;

	shipped_profile_load("net_tap", &p);
	CU_ASSERT_EQUAL(p.mtu, 1500);
	shipped_profile_load("net_af_packet", &p);
	CU_ASSERT_EQUAL(p.mtu, 0);
	for (i = 0; i < DP_ARRAY_SIZE(bad); i++) {
		char ini[128], want[64];

		snprintf(ini, sizeof(ini), "[profile]\ndrivers = x\nmtu = %s\n", bad[i]);
		write_file("bad-mtu.ini", ini, path, sizeof(path));
		rc = dp_port_profile_load(path, &p, err, sizeof(err));
		CU_ASSERT_EQUAL(rc, -EINVAL);
		snprintf(want, sizeof(want), "mtu '%s' must be 0 (the driver's) or 68..65535",
			bad[i]);
		EXPECT(strstr(err, "bad-mtu.ini:3:") != NULL && strstr(err, want) != NULL, "'%s'",
			err);
	}
}

/* Driver profiles: tx_keeps_sent (virtio's on, the others off), and a bad value named
 * with file:line. */
static void
test_profile_tx_keeps_sent(void)
{
	struct dp_port_profile p;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	shipped_profile_load("net_virtio_user", &p);
	CU_ASSERT(p.tx_keeps_sent);
	shipped_profile_load("net_af_packet", &p);
	CU_ASSERT(!p.tx_keeps_sent);
	write_file("bad-keeps.ini", "[profile]\ndrivers = x\ntx_keeps_sent = yes\n", path,
		sizeof(path));
	rc = dp_port_profile_load(path, &p, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	EXPECT(strstr(err, "bad-keeps.ini:3:") != NULL &&
			strstr(err, "tx_keeps_sent 'yes' must be on or off") != NULL,
		"'%s'", err);
}

/* One key with a bad value: the error names file:line and the key. */
static void
test_config_endpoint_bad_values_name_line(void)
{
	static const struct {
		const char *line;
		const char *text;
	} bad[] = {
		{ "max = 0", "max '0' must be 1..65536" },
		{ "max = 65537", "max" },
		{ "tx_bufs = 15", "tx_bufs '15' must be 16..65536" },
		{ "rx_bufs = lots", "rx_bufs" },
		{ "large_bufs = 1025", "large_bufs" },
		{ "chan_bufs = -1", "chan_bufs" },
		{ "zero_copy_min = 63", "zero_copy_min '63' must be 64..1048576" },
		{ "mode = 0999", "octal" },
		{ "mode = rw", "octal" },
		{ "socket = relative.sock", "absolute path" },
		{ "udp4_cksum = maybe", "on or off" },
		{ "group = "
		  "a-group-name-much-longer-than-thirty-two-bytes",
			"too long" },
		{ "zerocopy_min = 100", "unknown key 'zerocopy_min' in [endpoint]" },
	};
	size_t i;

	for (i = 0; i < DP_ARRAY_SIZE(bad); i++) {
		struct dp_config cfg;
		char ini[256], path[PATH_MAX], what[64];
		char err[DP_CONFIG_ERR_LEN] = "";
		int rc;

		snprintf(ini, sizeof(ini), "[dpfwd]\nburst = 32\n[endpoint]\nmax = 4\n%s\n",
			bad[i].line);
		snprintf(what, sizeof(what), "endpoint-bad-%zu.ini", i);
		write_file(what, ini, path, sizeof(path));
		dp_config_init(&cfg);
		rc = dp_config_load(&cfg, path, err, sizeof(err));
		EXPECT(rc == -EINVAL, "'%s': rc %d", bad[i].line, rc);
		CHECK_ERR(err, path, 5, bad[i].text, bad[i].line);
		dp_config_free(&cfg);
	}
}

/* ---- configs/default.ini ---- */

static void
test_config_default_ini_loads(void)
{
	const struct dp_fwd_routes_config *rt;
	const struct dp_fwd_neighbors_config *nc;
	struct dp_config cfg;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	char dev0[PATH_MAX];
	const char *build = getenv("DPFWD_BUILD");
	unsigned int lc[8];
	int rc;

	snprintf(path, sizeof(path), "%s/configs/default.ini", src_dir());
	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	nc = dp_fwd_neighbors_config(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "load %s: rc %d '%s'", path, rc, err);
	rc = dp_config_validate(&cfg, err, sizeof(err));
	EXPECT(rc == 0, "validate %s: rc %d '%s'", path, rc, err);

	CU_ASSERT_STRING_EQUAL(cfg.path, path);
	CU_ASSERT_EQUAL(cfg.mode, DP_CONFIG_MODE_FORWARD);
	CU_ASSERT_EQUAL(cfg.main_lcore, 0);
	CU_ASSERT_EQUAL(cfg.burst, 32);
	CU_ASSERT_TRUE(cfg.node_stats);
	CU_ASSERT_EQUAL(cfg.node_stats_sample, 64);
	CU_ASSERT_TRUE(cfg.delay_stats);
	CU_ASSERT_EQUAL(cfg.delay_stats_sample, 64);
	CU_ASSERT_TRUE(cfg.ip4_cksum_check);
	CU_ASSERT_EQUAL(cfg.pool_size, 0); /* auto */
	CU_ASSERT_EQUAL(cfg.pool_cache, 256);
	CU_ASSERT_STRING_EQUAL(cfg.pool_ops, "ring_mp_mc");

	/* ports */
	CU_ASSERT_EQUAL_FATAL(cfg.nb_ports, 3);
	snprintf(dev0, sizeof(dev0),
		"net_pcap0,rx_pcap=%s/pcap/fwd-2000flows-64b.pcap,infinite_rx=1",
		build != NULL ? build : DP_BUILD_DIR);
	EXPECT(strcmp(cfg.ports[0].dev, dev0) == 0, "port0 dev '%s', expected '%s'",
		cfg.ports[0].dev, dev0);
	CU_ASSERT_STRING_EQUAL(cfg.ports[1].dev, "net_null0");
	CU_ASSERT_STRING_EQUAL(cfg.ports[2].dev, "net_null1");
	CU_ASSERT_EQUAL(cfg.ports[0].ip4, ip4(198, 18, 0, 1));
	CU_ASSERT_EQUAL(cfg.ports[1].ip4, ip4(198, 18, 101, 1));
	CU_ASSERT_EQUAL(cfg.ports[2].ip4, ip4(198, 18, 102, 1));
	CU_ASSERT_EQUAL(cfg.ports[0].ip4_plen, 24);
	CU_ASSERT_EQUAL(cfg.ports[1].ip4_plen, 24);
	CU_ASSERT_EQUAL(cfg.ports[2].ip4_plen, 24);
	CU_ASSERT_FALSE(cfg.ports[0].has_mac);
	/* rx_queues derived from the lcore map by validate */
	CU_ASSERT_EQUAL(cfg.ports[0].rx_queues, 1);
	CU_ASSERT_EQUAL(cfg.ports[1].rx_queues, 0);
	CU_ASSERT_EQUAL(cfg.ports[0].loc.line, line_of(path, "dev = net_pcap0"));

	/* lcore map */
	CU_ASSERT_EQUAL_FATAL(cfg.nb_rxmap, 1);
	CU_ASSERT_EQUAL(cfg.rxmap[0].port, 0);
	CU_ASSERT_EQUAL(cfg.rxmap[0].queue, 0);
	CU_ASSERT_EQUAL(cfg.rxmap[0].lcore, 1);
	CU_ASSERT_EQUAL(dp_config_worker_lcores(&cfg, lc, 8), 1);
	CU_ASSERT_EQUAL(lc[0], 1);

	/* routes, with the line they came from */
	CU_ASSERT_EQUAL_FATAL(rt->nb_routes4, 2);
	CU_ASSERT_EQUAL(rt->routes4[0].prefix, ip4(198, 18, 1, 0));
	CU_ASSERT_EQUAL(rt->routes4[0].plen, 24);
	CU_ASSERT_TRUE(rt->routes4[0].has_gw);
	CU_ASSERT_EQUAL(rt->routes4[0].gw, ip4(198, 18, 101, 2));
	CU_ASSERT_EQUAL(rt->routes4[0].port, 1);
	CU_ASSERT_EQUAL(rt->routes4[1].prefix, ip4(198, 18, 2, 0));
	CU_ASSERT_EQUAL(rt->routes4[1].gw, ip4(198, 18, 102, 2));
	CU_ASSERT_EQUAL(rt->routes4[1].port, 2);
	CU_ASSERT_STRING_EQUAL(rt->routes4[0].loc.file, path);
	CU_ASSERT_EQUAL(rt->routes4[0].loc.line, line_of(path, "route = 198.18.1.0/24"));
	CU_ASSERT_EQUAL(rt->routes4[1].loc.line, line_of(path, "route = 198.18.2.0/24"));
	CU_ASSERT_NOT_EQUAL(rt->routes4[0].loc.line, 0);

	/* neighbors */
	CU_ASSERT_EQUAL_FATAL(nc->nb_neighs4, 2);
	CU_ASSERT_EQUAL(nc->neighs4[0].ip, ip4(198, 18, 101, 2));
	CU_ASSERT_EQUAL(nc->neighs4[0].port, 1);
	CU_ASSERT_EQUAL(memcmp(nc->neighs4[0].mac.addr_bytes,
				(const uint8_t[]){ 0x02, 0, 0, 0, 0x01, 0x02 }, 6),
		0);
	CU_ASSERT_EQUAL(nc->neighs4[1].ip, ip4(198, 18, 102, 2));
	CU_ASSERT_EQUAL(nc->neighs4[1].port, 2);
	CU_ASSERT_EQUAL(memcmp(nc->neighs4[1].mac.addr_bytes,
				(const uint8_t[]){ 0x02, 0, 0, 0, 0x02, 0x02 }, 6),
		0);
	CU_ASSERT_EQUAL(nc->neighs4[1].loc.line, line_of(path, "neigh = 198.18.102.2"));
	dp_config_free(&cfg);
}

/* A file of configs/ or configs/bench/ with a [port0] is a dpfwd config; the others are dpbench's. */
static bool
is_dpfwd_config(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	bool yes = false;

	if (f == NULL)
		return false;
	while (!yes && fgets(line, sizeof(line), f) != NULL)
		yes = strncmp(line, "[port0]", 7) == 0;
	fclose(f);
	return yes;
}

/* Every dpfwd config that ships loads and validates (with dpbench's ${DPSOCK_DIR}). */
static void
test_config_shipped_configs_load(void)
{
	static const char *const dirs[] = { "configs", "configs/bench" };
	const bool own_dpsock_dir = getenv("DPSOCK_DIR") == NULL;
	unsigned int i, found = 0;

	if (own_dpsock_dir)
		CU_ASSERT_FATAL(setenv("DPSOCK_DIR", tmpdir, 1) == 0);
	for (i = 0; i < DP_ARRAY_SIZE(dirs); i++) {
		char dir[PATH_MAX];
		struct dirent **names;
		int n, j;

		snprintf(dir, sizeof(dir), "%s/%s", src_dir(), dirs[i]);
		n = scandir(dir, &names, NULL, alphasort);
		EXPECT(n >= 0, "cannot read %s", dir);
		for (j = 0; j < n; j++) {
			const char *name = names[j]->d_name;
			size_t len = strlen(name);
			char path[PATH_MAX + 256];
			char err[DP_CONFIG_ERR_LEN] = "";
			struct dp_config cfg;
			int rc;

			snprintf(path, sizeof(path), "%s/%s", dir, name);
			free(names[j]);
			if (len < 4 || strcmp(path + strlen(path) - 4, ".ini") != 0 ||
				!is_dpfwd_config(path))
				continue;
			dp_config_init(&cfg);
			rc = dp_config_load(&cfg, path, err, sizeof(err));
			if (rc == 0)
				rc = dp_config_validate(&cfg, err, sizeof(err));
			EXPECT(rc == 0, "%s: rc %d '%s'", path, rc, err);
			dp_config_free(&cfg);
			found++;
		}
		free(names);
	}
	if (own_dpsock_dir)
		unsetenv("DPSOCK_DIR");
	EXPECT(found >= 8, "%u dpfwd configs in configs/ and configs/bench/", found);
}

/*
 * The two-port NIC examples (configs/mlx5-2port.ini, configs/ixgbe-2port.ini, docs/nics.md):
 * each loads and validates; two PCI ports, each naming the profile of its NIC, which
 * ships in drivers-cfg/ and lists the driver DPDK 22.11 reports; two workers, each
 * polling one queue of each port (two RX queues a port: RSS); IPv4 and IPv6 addresses
 * and routes; and EAL's -a for each port carries the profile's devargs, as dpfwd (and
 * --check) would give them. No NIC is needed: nothing is probed.
 */
static void
test_config_nic_examples_load(void)
{
	static const struct {
		const char *file, *pci[2], *profile, *driver;
	} ex[] = {
		{ "mlx5-2port.ini", { "0000:3b:00.0", "0000:3b:00.1" }, "net_mlx5", "mlx5_pci" },
		{ "ixgbe-2port.ini", { "0000:01:00.0", "0000:01:00.1" }, "net_ixgbe", "net_ixgbe" },
	};
	unsigned int e;

	for (e = 0; e < DP_ARRAY_SIZE(ex); e++) {
		const struct dp_fwd_routes_config *rt;
		struct dp_port_profile prof;
		struct dp_config cfg;
		char path[PATH_MAX], want[512], drivers[256 + 2], driver[64 + 2];
		char err[DP_CONFIG_ERR_LEN] = "";
		char *argv[16], *user[] = { "dpfwd", NULL };
		unsigned int lc[8], p, q;
		int rc, n, i;

		snprintf(path, sizeof(path), "%s/configs/%s", src_dir(), ex[e].file);
		dp_config_init(&cfg);
		rt = dp_fwd_routes_config(&cfg);
		rc = dp_config_load(&cfg, path, err, sizeof(err));
		EXPECT(rc == 0, "load %s: rc %d '%s'", path, rc, err);
		rc = dp_config_validate(&cfg, err, sizeof(err));
		EXPECT(rc == 0, "validate %s: rc %d '%s'", path, rc, err);
		if (rc != 0) {
			dp_config_free(&cfg);
			continue;
		}

		shipped_profile_load(ex[e].profile, &prof);
		snprintf(drivers, sizeof(drivers), " %s ", prof.drivers);
		snprintf(driver, sizeof(driver), " %s ", ex[e].driver);
		EXPECT(strstr(drivers, driver) != NULL, "%s: profile %s lists drivers '%s', not %s",
			ex[e].file, ex[e].profile, prof.drivers, ex[e].driver);

		CU_ASSERT_EQUAL_FATAL(cfg.nb_ports, 2);
		for (p = 0; p < 2; p++) {
			CU_ASSERT_STRING_EQUAL(cfg.ports[p].dev, ex[e].pci[p]);
			CU_ASSERT_TRUE(dp_port_dev_is_pci(cfg.ports[p].dev));
			CU_ASSERT_STRING_EQUAL(cfg.ports[p].profile, ex[e].profile);
			CU_ASSERT_EQUAL(cfg.ports[p].rx_queues, 2);
			CU_ASSERT_NOT_EQUAL(cfg.ports[p].ip4, 0);
			CU_ASSERT_TRUE(cfg.ports[p].has_ip6);
		}
		/* two workers, neither the control lcore, each a queue of each port */
		CU_ASSERT_EQUAL_FATAL(dp_config_worker_lcores(&cfg, lc, 8), 2);
		CU_ASSERT_NOT_EQUAL(lc[0], cfg.main_lcore);
		CU_ASSERT_NOT_EQUAL(lc[1], cfg.main_lcore);
		CU_ASSERT_EQUAL_FATAL(cfg.nb_rxmap, 4);
		for (p = 0; p < 2; p++)
			for (q = 0; q < 2; q++) {
				unsigned int m, hits = 0;

				for (m = 0; m < cfg.nb_rxmap; m++)
					hits += cfg.rxmap[m].port == p &&
						cfg.rxmap[m].lcore == lc[q];
				EXPECT(hits == 1, "%s: lcore %u polls %u queues of port %u",
					ex[e].file, lc[q], hits, p);
			}
		CU_ASSERT(rt->nb_routes4 >= 2);
		CU_ASSERT(rt->nb_routes6 >= 2);

		/* EAL's -a per port, with the profile's devargs, and no --vdev or --no-pci */
		snprintf(cfg.drivers_cfg, sizeof(cfg.drivers_cfg), "%s/drivers-cfg", src_dir());
		n = dp_port_eal_args(&cfg, 1, user, argv, (int)DP_ARRAY_SIZE(argv));
		CU_ASSERT_EQUAL_FATAL(n, 4);
		for (p = 0; p < 2; p++) {
			if (prof.devargs[0] != '\0')
				snprintf(want, sizeof(want), "%s,%s", ex[e].pci[p], prof.devargs);
			else
				snprintf(want, sizeof(want), "%s", ex[e].pci[p]);
			EXPECT(strcmp(argv[2 * p], "-a") == 0 && strcmp(argv[2 * p + 1], want) == 0,
				"%s: port%u's EAL args '%s %s', want '-a %s'", ex[e].file, p,
				argv[2 * p], argv[2 * p + 1], want);
		}
		for (i = 0; i < n; i++)
			free(argv[i]);
		dp_config_free(&cfg);
	}
}

/* A file with every key set to a non-default value. */
static void
test_config_all_keys_parse(void)
{
	const struct dp_fwd_routes_config *rt;
	static const char ini[] = "# every key\n"                             /* 1 */
				  "[dpfwd]\n"                                 /* 2 */
				  "mode = forward\n"                          /* 3 */
				  "main_lcore = 2\n"                          /* 4 */
				  "burst = 0x10   # hex, trailing comment\n"  /* 5 */
				  "tx_drain_us = 250\n"                       /* 6 */
				  "node_stats = off\n"                        /* 7 */
				  "ip4_cksum_check = No\n"                    /* 8 */
				  "check_dst_mac = false\n"                   /* 9 */
				  "drivers_cfg = profiles\n"                  /* 10 */
				  "[mempool]\n"                               /* 11 */
				  "size = 8192\n"                             /* 12 */
				  "cache = 0\n"                               /* 13 */
				  "ops = stack\n"                             /* 14 */
				  "data_room = 4096\n"                        /* 15 */
				  "[port0]\n"                                 /* 16 */
				  "dev = 0000:3b:00.0\n"                      /* 17 */
				  "profile = i40e\n"                          /* 18 */
				  "rx_queues = 4\n"                           /* 19 */
				  "rx_desc = 2048\n"                          /* 20 */
				  "tx_desc = 512\n"                           /* 21 */
				  "mac = 02:00:00:00:00:aa\n"                 /* 22 */
				  "ip4 = 10.1.2.3/8\n"                        /* 23 */
				  "promisc = yes\n"                           /* 24 */
				  "[lcores]\n"                                /* 25 */
				  "rx = (0,0,3), (0,1,4),(0,2,3) , (0,3,5)\n" /* 26 */
				  "[routes]\n"                                /* 27 */
				  "route = 0.0.0.0/0 via 10.0.0.1 port 0\n";  /* 28 */
	struct dp_config cfg;
	char path[PATH_MAX], want[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	write_file("all-keys.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	rc = dp_config_validate(&cfg, err, sizeof(err));
	EXPECT(rc == 0, "validate rc %d '%s'", rc, err);
	CU_ASSERT_EQUAL(cfg.main_lcore, 2);
	CU_ASSERT_EQUAL(cfg.burst, 16);
	CU_ASSERT_EQUAL(cfg.tx_drain_us, 250);
	CU_ASSERT_FALSE(cfg.node_stats);
	CU_ASSERT_FALSE(cfg.ip4_cksum_check);
	CU_ASSERT_FALSE(cfg.check_dst_mac);
	snprintf(want, sizeof(want), "%s/profiles", tmpdir);
	CU_ASSERT_STRING_EQUAL(cfg.drivers_cfg, want);
	CU_ASSERT_EQUAL(cfg.pool_size, 8192);
	CU_ASSERT_EQUAL(cfg.pool_cache, 0);
	CU_ASSERT_STRING_EQUAL(cfg.pool_ops, "stack");
	CU_ASSERT_EQUAL(cfg.pool_data_room, 4096);
	CU_ASSERT_EQUAL(cfg.nb_ports, 1);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].dev, "0000:3b:00.0");
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].profile, "i40e");
	CU_ASSERT_EQUAL(cfg.ports[0].rx_queues, 4);
	CU_ASSERT_EQUAL(cfg.ports[0].rx_desc, 2048);
	CU_ASSERT_EQUAL(cfg.ports[0].tx_desc, 512);
	CU_ASSERT_TRUE(cfg.ports[0].has_mac);
	CU_ASSERT_EQUAL(cfg.ports[0].mac.addr_bytes[5], 0xaa);
	CU_ASSERT_EQUAL(cfg.ports[0].ip4, ip4(10, 1, 2, 3)); /* interface: host bits kept */
	CU_ASSERT_EQUAL(cfg.ports[0].ip4_plen, 8);
	CU_ASSERT_TRUE(cfg.ports[0].promisc);
	CU_ASSERT_EQUAL(cfg.ports[0].loc.line, 17);
	CU_ASSERT_EQUAL(cfg.nb_rxmap, 4);
	CU_ASSERT_EQUAL(cfg.rxmap[3].queue, 3);
	CU_ASSERT_EQUAL(cfg.rxmap[3].lcore, 5);
	CU_ASSERT_EQUAL_FATAL(rt->nb_routes4, 1);
	CU_ASSERT_EQUAL(rt->routes4[0].plen, 0);
	CU_ASSERT_EQUAL(rt->routes4[0].loc.line, 28);
	dp_config_free(&cfg);
}

/* ---- errors: one table, each case with its exact line ---- */

enum phase { AT_LOAD, AT_VALIDATE };

struct err_case {
	const char *name;
	const char *ini;
	enum phase phase;
	int line; /* 0: the message names the file only */
	const char *text;
};

#define P0 "[port0]\ndev = net_null0\n" /* 2 lines */
#define LC "[lcores]\nrx = (0,0,1)\n"   /* 2 lines */

static const struct err_case err_cases[] = {
	{ "unknown section",
		P0 LC "\n"
		      "[bogus]\n"      /* 6 */
		      "answer = 42\n", /* 7 */
		AT_LOAD, 7, "unknown section [bogus]" },
	{ "unknown key in [dpfwd]",
		"# comment\n"
		"\n"
		"[dpfwd]\n"
		"burst = 32\n"
		"  # indented comment\n"
		"bursts = 32\n", /* 6 */
		AT_LOAD, 6, "unknown key 'bursts' in [dpfwd]" },
	{ "unknown key in [port0]", P0 "speed = 100G\n", /* 3 */
		AT_LOAD, 3, "unknown key 'speed' in [port0]" },
	{ "unknown key in [routes]",
		P0 "[routes]\n"
		   "rout = 10.0.0.0/8 port 0\n", /* 4 */
		AT_LOAD, 4, "unknown key 'rout' in [routes]" },
	{ "bad number",
		"[dpfwd]\n"
		"main_lcore = 1O\n", /* 2: letter O */
		AT_LOAD, 2, "main_lcore '1O' is not a number" },
	{ "negative number", P0 "rx_queues = -1\n", /* 3 */
		AT_LOAD, 3, "rx_queues '-1' is not a number" },
	{ "number with a sign", P0 "rx_queues = +1\n", /* 3 */
		AT_LOAD, 3, "rx_queues '+1' is not a number" },
	{ "number out of range",
		"[dpfwd]\n"
		"tx_drain_us = 100\n"
		"burst = 65\n", /* 3 */
		AT_LOAD, 3, "burst '65' must be 1..64" },
	{ "number overflows 64 bits",
		"[mempool]\n"
		"size = 18446744073709551617\n", /* 2 */
		AT_LOAD, 2, "mempool size '18446744073709551617'" },
	{ "bad bool",
		"[dpfwd]\n"
		"node_stats = on\n"
		"ip4_cksum_check = maybe\n", /* 3 */
		AT_LOAD, 3, "ip4_cksum_check 'maybe' must be on or off" },
	{ "bad MAC", P0 "mac = 02:00:00:00:01\n", /* 3 */
		AT_LOAD, 3, "bad MAC address '02:00:00:00:01'" },
	{ "bad MAC in neighbor",
		P0 "[neighbors]\n"
		   "neigh = 10.0.0.2 lladdr 02:00:00:00:00:02 port 0\n"
		   "neigh = 10.0.0.3 lladdr 02:00:00:00:00:zz port 0\n", /* 5 */
		AT_LOAD, 5, "bad MAC address '02:00:00:00:00:zz'" },
	{ "bad interface address", P0 "ip4 = 10.0.0.1/32\n", /* 3 */
		AT_LOAD, 3, "bad interface address '10.0.0.1/32'" },
	{ "route prefix with host bits set",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 port 0\n"
		   "route = 10.1.0.0/16 port 0\n"
		   "route = 198.18.1.1/24 via 10.0.0.1 port 0\n" /* 6 */
		   "route = 10.2.0.0/16 port 0\n",
		AT_LOAD, 6, "prefix '198.18.1.1/24' has host bits set past /24" },
	{ "route syntax: no port",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 via 10.0.0.1\n", /* 4 */
		AT_LOAD, 4, "bad route '10.0.0.0/8 via 10.0.0.1'" },
	{ "route syntax: prefix length",
		P0 "[routes]\n"
		   "route = 10.0.0.0/33 port 0\n", /* 4 */
		AT_LOAD, 4, "bad prefix '10.0.0.0/33'" },
	{ "route syntax: gateway",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 via 10.0.0 port 0\n", /* 4 */
		AT_LOAD, 4, "bad gateway '10.0.0'" },
	{ "route gateway: multicast",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 via 224.0.0.5 port 0\n", /* 4 */
		AT_LOAD, 4, "gateway '224.0.0.5' is a multicast address" },
	{ "route gateway: broadcast",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 via 255.255.255.255 port 0\n", /* 4 */
		AT_LOAD, 4, "gateway '255.255.255.255' is the broadcast address" },
	{ "route gateway: this network",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 via 0.0.0.0 port 0\n", /* 4 */
		AT_LOAD, 4, "gateway '0.0.0.0' is in 0.0.0.0/8" },
	{ "route gateway: loopback",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 via 127.0.0.1 port 0\n", /* 4 */
		AT_LOAD, 4, "gateway '127.0.0.1' is a loopback address" },
	{ "neighbor: reserved address",
		P0 "[neighbors]\n"
		   "neigh = 240.0.0.1 lladdr 02:00:00:00:00:01 port 0\n", /* 4 */
		AT_LOAD, 4, "neighbor address '240.0.0.1' is in 240.0.0.0/4 (reserved)" },
	{ "route syntax: port number",
		P0 "[routes]\n"
		   "route = 10.0.0.0/8 port 16\n", /* 4 */
		AT_LOAD, 4, "bad port '16'" },
	{ "lcore map syntax",
		P0 "[lcores]\n"
		   "rx = (0,0,1), (0,1\n", /* 4 */
		AT_LOAD, 4, "bad lcore map near '(0,1'" },
	{ "lcore map garbage after entry",
		P0 "[lcores]\n"
		   "rx = (0,0,1) x\n", /* 4 */
		AT_LOAD, 4, "bad lcore map near 'x'" },
	{ "lcore map out of range",
		P0 "[lcores]\n"
		   "rx = (16,0,1)\n", /* 4 */
		AT_LOAD, 4, "(16,0,1) out of range" },
	{ "repeated section",
		P0 "[routes]\n" /* 3 */
		   "route = 10.0.0.0/8 port 0\n"
		   "[ routes ]\n" /* 5 */
		   "route = 11.0.0.0/8 port 0\n",
		AT_LOAD, 5, "section [routes] repeated (first at line 3)" },
	{ "line without '='",
		"[dpfwd]\n"
		"burst 32\n", /* 2 */
		AT_LOAD, 2, "expected 'key = value' or '[section]', got 'burst 32'" },
	{ "key before any section",
		"\n"
		"burst = 32\n", /* 2 */
		AT_LOAD, 2, "'burst = 32' before any [section]" },
	{ "key without value",
		"[dpfwd]\n"
		"burst =   # nothing\n", /* 2 */
		AT_LOAD, 2, "key 'burst' has no value" },
	{ "bad section header", "[dpfwd\n", /* 1 */
		AT_LOAD, 1, "bad section header '[dpfwd'" },
	{ "bad port section",
		"[port16]\n"
		"dev = net_null0\n", /* 2 */
		AT_LOAD, 2, "bad port section [port16]" },
	{ "undefined variable",
		"[port0]\n"
		"dev = net_pcap0,rx_pcap=${DPFWD_TEST_SURELY_UNSET}/x.pcap\n", /* 2 */
		AT_LOAD, 2, "variable ${DPFWD_TEST_SURELY_UNSET} is not set" },
	{ "unterminated variable",
		"[port0]\n"
		"dev = ${DPFWD_SRC\n", /* 2 */
		AT_LOAD, 2, "unterminated '${'" },
	{ "bad neighbor syntax",
		P0 "[neighbors]\n"
		   "neigh = 10.0.0.2 02:00:00:00:00:02 port 0\n", /* 4 */
		AT_LOAD, 4, "bad neighbor '10.0.0.2 02:00:00:00:00:02 port 0'" },
	{ "unknown mode",
		"[dpfwd]\n"
		"mode = bridge\n", /* 2 */
		AT_LOAD, 2, "mode 'bridge' unknown" },
	{ "unknown mempool ops",
		"[mempool]\n"
		"ops = ring_xx\n", /* 2 */
		AT_LOAD, 2, "mempool ops 'ring_xx' unknown" },
	{ "error in a later section keeps its own line",
		"[routes]\n"
		"route = 10.0.0.0/8 port 0\n"
		"[dpfwd]\n"
		"burst = 8\n"
		"[port0]\n"
		"dev = net_null0\n"
		"promisc = sometimes\n", /* 7 */
		AT_LOAD, 7, "promisc 'sometimes' must be on or off" },

	/* dp_config_validate */
	{ "route to an undefined port",
		"[port0]\n"
		"dev = net_null0\n"
		"[port1]\n"
		"dev = net_null1\n" LC "[routes]\n"
		"route = 10.0.0.0/8 port 1\n"
		"route = 11.0.0.0/8 via 10.0.0.1 port 2\n" /* 9 */
		"route = 12.0.0.0/8 port 0\n",
		AT_VALIDATE, 9, "route to port 2, which is not defined" },
	{ "a route to a port's own address",
		P0 "ip4 = 10.0.0.1/24\n" LC "[routes]\n"
		   "route = 10.0.0.0/8 port 0\n"
		   "route = 10.0.0.1/32 via 10.0.0.2 port 0\n", /* 8 */
		AT_VALIDATE, 8, "route 10.0.0.1/32 is port0's own address" },
	{ "neighbor on an undefined port",
		P0 LC "[neighbors]\n"
		      "neigh = 10.0.0.2 lladdr 02:00:00:00:00:02 port 3\n", /* 6 */
		AT_VALIDATE, 6, "neighbor on port 3, which is not defined" },
	{ "missing dev",
		P0 "[port1]\n"           /* 3 */
		   "ip4 = 10.0.0.1/24\n" /* 4: the port's first key */
		LC,
		AT_VALIDATE, 4, "[port1] has no 'dev'" },
	{ "rx_queues below the lcore map",
		"[port0]\n"
		"rx_queues = 1\n" /* 2 */
		"dev = net_null0\n"
		"[lcores]\n"
		"rx = (0,0,1),(0,1,2)\n",
		AT_VALIDATE, 2, "polls queue 1 of port 0, which has rx_queues = 1" },
	/* [lcores] errors name the "rx =" line */
	{ "lcore map on the main lcore",
		"[dpfwd]\n"
		"main_lcore = 2\n" P0 "[lcores]\n"
		"rx = (0,0,1),(0,1,2)\n", /* 6 */
		AT_VALIDATE, 6, "maps (0,1) to lcore 2, the main (control) lcore" },
	{ "lcore map to an undefined port",
		P0 "[lcores]\n"
		   "rx = (0,0,1),(1,0,2)\n", /* 4 */
		AT_VALIDATE, 4, "[lcores] maps port 1, which is not defined" },
	{ "lcore map queue twice",
		P0 "[lcores]\n"
		   "rx = (0,0,1),(0,0,2)\n", /* 4 */
		AT_VALIDATE, 4, "maps port 0 queue 0 twice" },
	/* about the file as a whole: no line to name */
	{ "no lcore map", P0, AT_VALIDATE, 0, "no [lcores] rx = (port,queue,lcore) map" },
	{ "no ports",
		"[dpfwd]\n"
		"burst = 32\n",
		AT_VALIDATE, 0, "no [portN] section" },
	{ "port numbering gap",
		P0 "[port2]\n"
		   "dev = net_null2\n" LC,
		AT_VALIDATE, 0, "[port1] missing" },
};

static void
test_config_errors_name_file_and_line(void)
{
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(err_cases); i++) {
		const struct err_case *c = &err_cases[i];
		struct dp_config cfg;
		char name[64], path[PATH_MAX];
		char err[DP_CONFIG_ERR_LEN] = "";
		int rc;

		snprintf(name, sizeof(name), "err-%02u.ini", i);
		write_file(name, c->ini, path, sizeof(path));
		dp_config_init(&cfg);
		rc = dp_config_load(&cfg, path, err, sizeof(err));
		if (c->phase == AT_LOAD) {
			EXPECT(rc == -EINVAL, "%s: load rc %d, expected -EINVAL", c->name, rc);
		} else {
			EXPECT(rc == 0, "%s: load rc %d '%s', expected 0", c->name, rc, err);
			rc = dp_config_validate(&cfg, err, sizeof(err));
			EXPECT(rc == -EINVAL, "%s: validate rc %d, expected -EINVAL", c->name, rc);
		}
		CHECK_ERR(err, path, c->line, c->text, c->name);
		dp_config_free(&cfg);
	}
}

/* The same table also spot-checked one by one, so a failure names the kind. */
static const struct err_case *
find_case(const char *name)
{
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(err_cases); i++)
		if (strcmp(err_cases[i].name, name) == 0)
			return &err_cases[i];
	return NULL;
}

static void
run_case(const char *name)
{
	const struct err_case *c = find_case(name);
	struct dp_config cfg;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	write_file("one.ini", c->ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	if (c->phase == AT_VALIDATE && rc == 0)
		rc = dp_config_validate(&cfg, err, sizeof(err));
	EXPECT(rc == -EINVAL, "%s: rc %d '%s'", name, rc, err);
	CHECK_ERR(err, path, c->line, c->text, name);
	dp_config_free(&cfg);
}

static void
test_config_unknown_section_names_file_and_line(void)
{
	run_case("unknown section");
}

static void
test_config_unknown_key_names_file_and_line(void)
{
	run_case("unknown key in [dpfwd]");
	run_case("unknown key in [port0]");
}

static void
test_config_bad_number_bool_mac_name_line(void)
{
	run_case("bad number");
	run_case("bad bool");
	run_case("bad MAC");
}

static void
test_config_route_host_bits_names_line(void)
{
	run_case("route prefix with host bits set");
}

static void
test_config_route_to_undefined_port_names_line(void)
{
	run_case("route to an undefined port");
}

static void
test_config_repeated_section_names_both_lines(void)
{
	run_case("repeated section");
}

static void
test_config_missing_dev_names_port_line(void)
{
	run_case("missing dev");
}

/* A value of 255 bytes is the most rte_cfgfile keeps; 256 is refused, not cut. */
static void
test_config_value_too_long_names_line(void)
{
	struct dp_config cfg;
	char ini[1024], dev[300], path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	memset(dev, 'a', 255);
	dev[255] = '\0';
	snprintf(ini, sizeof(ini), "[port0]\ndev = %s\n" LC, dev);
	write_file("value-255.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "255-byte value: rc %d '%s'", rc, err);
	CU_ASSERT_EQUAL(strlen(cfg.ports[0].dev), 255);
	dp_config_free(&cfg);

	memset(dev, 'b', 256);
	dev[256] = '\0';
	snprintf(ini, sizeof(ini), "[port0]\nprofile = x\n\ndev = %s\n" LC, dev); /* line 4 */
	write_file("value-256.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, path, 4, "value of 'dev' longer than 255 bytes", "256-byte value");
	dp_config_free(&cfg);
}

/*
 * rte_cfgfile does not cut a line at a "#" right after a backslash, and turns
 * each "\#" of the value into "#": the 255 bytes it keeps are counted after
 * that. The scan must count the same way: cutting the line at that "#" would
 * pass a longer value, which rte_cfgfile then cuts short without a word (a
 * case of tests/fuzz/fuzz_config).
 */
static void
test_config_escaped_hash_value_length(void)
{
	struct dp_config cfg;
	char ini[1024], dev[300], path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	/* 250 + "\#" + 4 = 255 bytes once unescaped: kept whole, "#" and all */
	memset(dev, 'a', 250);
	snprintf(dev + 250, sizeof(dev) - 250, "\\#bbbb");
	snprintf(ini, sizeof(ini), "[port0]\ndev = %s\n" LC, dev);
	write_file("escaped-255.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "255 bytes with \\#: rc %d '%s'", rc, err);
	CU_ASSERT_EQUAL(strlen(cfg.ports[0].dev), 255);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].dev + 250, "#bbbb");
	dp_config_free(&cfg);

	/* one more byte: refused, at its line */
	snprintf(dev + 250, sizeof(dev) - 250, "\\#bbbbb");
	snprintf(ini, sizeof(ini), "[port0]\ndev = %s\n" LC, dev); /* line 2 */
	write_file("escaped-256.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, path, 2, "value of 'dev' longer than 255 bytes", "256 bytes with \\#");
	dp_config_free(&cfg);
}

/*
 * rte_cfgfile reads lines of at most CFG_NAME_LEN + CFG_VALUE_LEN + 2 = 322
 * bytes and fails the whole file without a line number on a longer one, even
 * if it is only a comment: such a line must be refused with its line number.
 */
static void
test_config_long_comment_line_names_line(void)
{
	static const int sizes[] = { 322, 323, 600 };
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(sizes); i++) {
		struct dp_config cfg;
		char ini[1024], line[700], path[PATH_MAX];
		char err[DP_CONFIG_ERR_LEN] = "";
		int rc;

		/* "burst = 8 # ---...": exactly sizes[i] bytes before the newline */
		snprintf(line, sizeof(line), "burst = 8 # ");
		memset(line + strlen(line), '-', sizes[i] - strlen(line));
		line[sizes[i]] = '\0';
		snprintf(ini, sizeof(ini), P0 LC "[dpfwd]\n%s\nnode_stats = off\n", line); /* 6 */
		write_file("long-line.ini", ini, path, sizeof(path));
		dp_config_init(&cfg);
		rc = dp_config_load(&cfg, path, err, sizeof(err));
		if (sizes[i] <= 322) {
			EXPECT(rc == 0, "%d-byte line: rc %d '%s'", sizes[i], rc, err);
			CU_ASSERT_EQUAL(cfg.burst, 8);
			CU_ASSERT_FALSE(cfg.node_stats);
		} else {
			EXPECT(rc == -EINVAL, "%d-byte line: rc %d", sizes[i], rc);
			CHECK_ERR(err, path, 6, "line longer than 322 bytes", "long comment line");
		}
		dp_config_free(&cfg);
	}
}

/*
 * A NUL byte is not text: were it to end the line for the scan's length check,
 * a last line of 600 bytes with a NUL in its first 322 would pass the scan and
 * rte_cfgfile would fail the whole file without a line number (a case of
 * tests/fuzz/fuzz_config). Such a line is refused with its line number, in
 * configs and in route files, and the length check still comes first.
 */
static void
test_config_nul_byte_names_line(void)
{
	static const char ini[] = P0 LC "[dpfwd]\nburst = 8 # x"; /* 6, then NUL, no newline */
	static const char routes[] = "198.18.1.0/24 port 0\n198.18.2.0/24 port 0"; /* 2 */
	struct {
		const char *name, *text;
		size_t len;
		size_t tail; /* bytes after the NUL */
		bool route_file;
		int line;
		const char *msg;
	} cases[] = {
		{ "last line", ini, sizeof(ini) - 1, 100, false, 6, "NUL byte in the line" },
		{ "route file", routes, sizeof(routes) - 1, 100, true, 2, "NUL byte in the line" },
		{ "too long", ini, sizeof(ini) - 1, 600, false, 6, "line longer than 322 bytes" },
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		char buf[1024], name[32], path[PATH_MAX];
		char err[DP_CONFIG_ERR_LEN] = "";
		struct dp_config cfg;
		size_t n = cases[i].len;
		FILE *f;
		int rc;

		memcpy(buf, cases[i].text, n);
		buf[n++] = '\0';
		memset(buf + n, 'y', cases[i].tail);
		n += cases[i].tail;
		snprintf(name, sizeof(name), "nul-%u", i);
		write_file(name, "", path, sizeof(path)); /* its path; fputs() stops at a NUL */
		f = fopen(path, "w");
		CU_ASSERT_FATAL(f != NULL);
		CU_ASSERT_FATAL(fwrite(buf, 1, n, f) == n);
		CU_ASSERT_FATAL(fclose(f) == 0);
		dp_config_init(&cfg);
		if (cases[i].route_file)
			rc = dp_fwd_config_route_file_load(&cfg, path, err, sizeof(err));
		else
			rc = dp_config_load(&cfg, path, err, sizeof(err));
		EXPECT(rc == -EINVAL, "%s: rc %d", cases[i].name, rc);
		CHECK_ERR(err, path, cases[i].line, cases[i].msg, cases[i].name);
		dp_config_free(&cfg);
	}
}

static void
test_config_missing_file_is_enoent(void)
{
	struct dp_config cfg;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	snprintf(path, sizeof(path), "%s/does-not-exist.ini", tmpdir);
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -ENOENT);
	CHECK_ERR(err, path, 0, "cannot open", "missing file");
	dp_config_free(&cfg);
}

/* ---- route files ---- */

static void
test_config_route_file_error_names_route_file_line(void)
{
	static const char routes[] = "# routes\n"                              /* 1 */
				     "198.18.1.0/24 via 198.18.101.2 port 1\n" /* 2 */
				     "198.18.2.0/24 via 198.18.102.2 prot 1\n" /* 3: typo */
				     "198.18.3.0/24 port 1\n";                 /* 4 */
	static const char ini[] = P0 "[port1]\n"
				     "dev = net_null1\n" LC "[routes]\n"
				     "route = 10.0.0.0/8 port 0\n"
				     "file = routes-bad.txt\n"; /* 9 */
	struct dp_config cfg;
	char rpath[PATH_MAX], path[PATH_MAX], want[PATH_MAX + 16];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	write_file("routes-bad.txt", routes, rpath, sizeof(rpath));
	write_file("with-bad-routes.ini", ini, path, sizeof(path));

	/* through the config: config line, then the route file's line */
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, path, 9, "in route file: ", "route file via config");
	snprintf(want, sizeof(want), "%s:3: bad route", rpath);
	EXPECT(strstr(err, want) != NULL, "error '%s' lacks '%s'", err, want);
	EXPECT(strstr(err, "prot 1") != NULL, "error '%s' does not quote the route", err);
	dp_config_free(&cfg);

	/* directly */
	dp_config_init(&cfg);
	rc = dp_fwd_config_route_file_load(&cfg, rpath, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, rpath, 3, "bad route '198.18.2.0/24 via 198.18.102.2 prot 1'",
		"route file direct");
	dp_config_free(&cfg);

	/* a missing route file */
	dp_config_init(&cfg);
	snprintf(want, sizeof(want), "%s/no-such-routes.txt", tmpdir);
	rc = dp_fwd_config_route_file_load(&cfg, want, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -ENOENT);
	dp_config_free(&cfg);
}

static void
test_config_route_file_relative_to_config_dir(void)
{
	const struct dp_fwd_routes_config *rt;
	static const char routes[] = "# l3fwd and dpfwd formats mixed\n"                   /* 1 */
				     "\n"                                                  /* 2 */
				     "R198.18.3.0/24 3\n"                                  /* 3 */
				     "  198.18.4.0/24 via 198.18.0.2 port 0  # trailing\n" /* 4 */
				     "198.18.5.0/24\tport\t2\n";                           /* 5 */
	static const char ini[] = "[port0]\ndev = net_null0\n"
				  "[port1]\ndev = net_null1\n"
				  "[port2]\ndev = net_null2\n"
				  "[port3]\ndev = net_null3\n"
				  "[lcores]\nrx = (0,0,1)\n"
				  "[routes]\n"
				  "file = routes.txt\n"; /* 12 */
	struct dp_config cfg;
	char sub[PATH_MAX], rpath[PATH_MAX], path[PATH_MAX], cwd[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	/* config and routes in a subfolder; the process runs elsewhere */
	snprintf(sub, sizeof(sub), "%s/sub", tmpdir);
	CU_ASSERT_FATAL(mkdir(sub, 0700) == 0 || errno == EEXIST);
	write_file("sub/routes.txt", routes, rpath, sizeof(rpath));
	write_file("sub/cfg.ini", ini, path, sizeof(path));
	CU_ASSERT_FATAL(getcwd(cwd, sizeof(cwd)) != NULL);
	CU_ASSERT_FATAL(chdir("/") == 0);

	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	rc = dp_config_validate(&cfg, err, sizeof(err));
	EXPECT(rc == 0, "validate rc %d '%s'", rc, err);
	CU_ASSERT_EQUAL_FATAL(rt->nb_routes4, 3);
	/* l3fwd's "R<prefix> <port>": on-link */
	CU_ASSERT_EQUAL(rt->routes4[0].prefix, ip4(198, 18, 3, 0));
	CU_ASSERT_EQUAL(rt->routes4[0].plen, 24);
	CU_ASSERT_FALSE(rt->routes4[0].has_gw);
	CU_ASSERT_EQUAL(rt->routes4[0].port, 3);
	CU_ASSERT_TRUE(rt->routes4[1].has_gw);
	CU_ASSERT_EQUAL(rt->routes4[1].gw, ip4(198, 18, 0, 2));
	CU_ASSERT_EQUAL(rt->routes4[2].port, 2);
	CU_ASSERT_FALSE(rt->routes4[2].has_gw);
	/* each route remembers the route file and its own line */
	CU_ASSERT_PTR_NOT_NULL_FATAL(rt->routes4[0].loc.file);
	CU_ASSERT_STRING_EQUAL(rt->routes4[0].loc.file, rpath);
	CU_ASSERT_EQUAL(rt->routes4[0].loc.line, 3);
	CU_ASSERT_EQUAL(rt->routes4[1].loc.line, 4);
	CU_ASSERT_EQUAL(rt->routes4[2].loc.line, 5);
	dp_config_free(&cfg);

	CU_ASSERT(chdir(cwd) == 0);
}

/* A validate error about a route from a route file names that file and line. */
static void
test_config_route_file_undefined_port_names_route_file(void)
{
	static const char routes[] = "198.18.1.0/24 port 0\n"
				     "\n"
				     "R198.18.3.0/24 7\n"; /* 3 */
	static const char ini[] = P0 LC "[routes]\nfile = routes-port7.txt\n";
	struct dp_config cfg;
	char rpath[PATH_MAX], path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	write_file("routes-port7.txt", routes, rpath, sizeof(rpath));
	write_file("routes-port7.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	rc = dp_config_validate(&cfg, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, rpath, 3, "route to port 7, which is not defined", "route file port");
	dp_config_free(&cfg);
}

/* More routes than a uint16_t counts: validate must still finish. */
/*
 * Each route file keeps its own name in the routes it gave and in its errors,
 * however many there are: the config and 11 route files (more than 8, so a
 * table of names too small would give later files an earlier file's name).
 */
static void
test_config_many_route_files_keep_their_names(void)
{
	const struct dp_fwd_routes_config *rt;
	char ini[1024], name[32], text[64], path[PATH_MAX], rpath[12][PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	struct dp_config cfg;
	unsigned int i;
	int rc;

	snprintf(ini, sizeof(ini), P0 LC "[routes]\n"); /* 5 lines */
	for (i = 1; i <= 11; i++) {
		snprintf(name, sizeof(name), "many-%u.txt", i);
		snprintf(text, sizeof(text), "198.18.%u.0/24 port %u\n", i, i == 11 ? 1 : 0);
		write_file(name, text, rpath[i], sizeof(rpath[i]));
		snprintf(ini + strlen(ini), sizeof(ini) - strlen(ini), "file = %s\n", name);
	}
	write_file("many-route-files.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	CU_ASSERT_EQUAL_FATAL(rt->nb_routes4, 11);
	for (i = 1; i <= 11; i++) {
		const char *file = rt->routes4[i - 1].loc.file ? rt->routes4[i - 1].loc.file : "?";

		EXPECT(strcmp(file, rpath[i]) == 0, "route %u says it is from %s", i, file);
	}
	/* the 11th routes to port 1, which is not defined */
	rc = dp_config_validate(&cfg, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, rpath[11], 1, "route to port 1", "11th route file");
	dp_config_free(&cfg);
}

static void
test_config_validate_many_routes(void)
{
	const struct dp_fwd_routes_config *rt;
	enum { N = 70000 };
	char rpath[PATH_MAX], path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	struct dp_config cfg;
	FILE *f;
	pid_t pid;
	int status = -1;
	int rc;
	unsigned int i;

	snprintf(rpath, sizeof(rpath), "%s/routes-many.txt", tmpdir);
	f = fopen(rpath, "w");
	CU_ASSERT_FATAL(f != NULL);
	for (i = 0; i < N; i++)
		fprintf(f, "R10.%u.%u.%u/32 %u\n", i >> 16, (i >> 8) & 0xff, i & 0xff, i % 2);
	CU_ASSERT_FATAL(fclose(f) == 0);
	write_file("routes-many.ini",
		"[port0]\ndev = net_null0\n[port1]\ndev = net_null1\n" LC
		"[routes]\nfile = routes-many.txt\n",
		path, sizeof(path));
	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	CU_ASSERT_EQUAL_FATAL(rt->nb_routes4, N);
	CU_ASSERT_EQUAL(rt->routes4[N - 1].loc.line, N);
	CU_ASSERT_EQUAL(rt->routes4[N - 1].prefix,
		ip4(10, (N - 1) >> 16, ((N - 1) >> 8) & 0xff, (N - 1) & 0xff));

	/* in a child with a deadline: a 16-bit loop counter would never end */
	fflush(NULL);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		alarm(20);
		_exit(dp_config_validate(&cfg, err, sizeof(err)) == 0 ? 0 : 1);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"validate with %d routes: status 0x%x (signal = did not finish)", N, status);
	dp_config_free(&cfg);
}

/* dp_fwd_config_route4_parse on its own: the three formats and their errors. */
static void
test_config_route_parse_formats(void)
{
	static const struct {
		const char *text;
		int rc;
		uint32_t prefix;
		uint8_t plen;
		bool has_gw;
		uint32_t gw;
		uint16_t port;
		const char *err;
	} cases[] = {
		{ "198.18.1.0/24 via 198.18.101.2 port 1", 0, 0xc6120100, 24, true, 0xc6126502, 1,
			NULL },
		{ "198.18.2.0/24 port 2", 0, 0xc6120200, 24, false, 0, 2, NULL },
		{ "R198.18.3.0/24 3", 0, 0xc6120300, 24, false, 0, 3, NULL },
		{ "R0.0.0.0/0 15", 0, 0, 0, false, 0, 15, NULL },
		{ "10.1.2.3/32 port 0", 0, 0x0a010203, 32, false, 0, 0, NULL },
		{ "198.18.1.0/24\tvia\t198.18.101.2   port 0", 0, 0xc6120100, 24, true, 0xc6126502,
			0, NULL },
		{ "R198.18.3.1/24 3", -EINVAL, 0, 0, false, 0, 0, "host bits set past /24" },
		{ "11.0.0.0/7 port 0", -EINVAL, 0, 0, false, 0, 0, "host bits set past /7" },
		{ "10.0.0.0/7 port 0", 0, 0x0a000000, 7, false, 0, 0, NULL },
		{ "R198.18.3.0 3", -EINVAL, 0, 0, false, 0, 0, "bad prefix 'R198.18.3.0'" },
		{ "R198.18.3.0/24 16", -EINVAL, 0, 0, false, 0, 0, "bad port '16'" },
		{ "198.18.3.0/24 3", -EINVAL, 0, 0, false, 0, 0, "bad route" },
		{ "198.18.3.0/24 via 1.2.3.4 port", -EINVAL, 0, 0, false, 0, 0, "bad route" },
		{ "198.18.3.0/24 port 1 extra", -EINVAL, 0, 0, false, 0, 0, "bad route" },
		{ "a b c d e f g h i", -EINVAL, 0, 0, false, 0, 0, "too many words" },
		{ "", -EINVAL, 0, 0, false, 0, 0, "bad route" },
		{ "256.0.0.0/8 port 0", -EINVAL, 0, 0, false, 0, 0, "bad prefix" },
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		struct dp_fwd_config_route4 r;
		char err[DP_CONFIG_ERR_LEN] = "";
		int rc = dp_fwd_config_route4_parse(cases[i].text, &r, err, sizeof(err));

		EXPECT(rc == cases[i].rc, "'%s': rc %d, expected %d ('%s')", cases[i].text, rc,
			cases[i].rc, err);
		if (cases[i].rc != 0) {
			EXPECT(strstr(err, cases[i].err) != NULL, "'%s': error '%s' lacks '%s'",
				cases[i].text, err, cases[i].err);
			continue;
		}
		EXPECT(r.prefix == cases[i].prefix && r.plen == cases[i].plen &&
				r.has_gw == cases[i].has_gw && r.gw == cases[i].gw &&
				r.port == cases[i].port,
			"'%s': got %08x/%u gw %d %08x port %u", cases[i].text, r.prefix, r.plen,
			r.has_gw, r.gw, r.port);
	}
}

/* ---- ${VAR} ---- */

static void
test_config_var_expansion_from_environment(void)
{
	static const char ini[] =
		"[port0]\n"
		"dev = ${DPFWD_TEST_DEV},size=${DPFWD_TEST_SIZE}\n"
		"profile = ${DPFWD_TEST_PROFILE}\n"
		"[port1]\n"
		"dev = net_pcap0,rx_pcap=${CONFIG_DIR}/in.pcap,tx_pcap=${DPFWD_SRC}/x\n"
		"[dpfwd]\n"
		"burst = ${DPFWD_TEST_SIZE}\n"
		"drivers_cfg = ${CONFIG_DIR}/prof\n"
		"[lcores]\n"
		"rx = (0,0,${DPFWD_TEST_LCORE})\n";
	struct dp_config cfg;
	char path[PATH_MAX], want[PATH_MAX * 2];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	CU_ASSERT_FATAL(setenv("DPFWD_TEST_DEV", "net_null7", 1) == 0);
	CU_ASSERT_FATAL(setenv("DPFWD_TEST_SIZE", "48", 1) == 0);
	CU_ASSERT_FATAL(setenv("DPFWD_TEST_PROFILE", "mlx5", 1) == 0);
	CU_ASSERT_FATAL(setenv("DPFWD_TEST_LCORE", "3", 1) == 0);
	write_file("vars.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].dev, "net_null7,size=48");
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].profile, "mlx5");
	snprintf(
		want, sizeof(want), "net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/x", tmpdir, src_dir());
	EXPECT(strcmp(cfg.ports[1].dev, want) == 0, "dev '%s', expected '%s'", cfg.ports[1].dev,
		want);
	CU_ASSERT_EQUAL(cfg.burst, 48);
	snprintf(want, sizeof(want), "%s/prof", tmpdir);
	CU_ASSERT_STRING_EQUAL(cfg.drivers_cfg, want);
	CU_ASSERT_EQUAL(cfg.nb_rxmap, 1);
	CU_ASSERT_EQUAL(cfg.rxmap[0].lcore, 3);
	dp_config_free(&cfg);

	/* the environment wins over the built-ins */
	CU_ASSERT_FATAL(setenv("CONFIG_DIR", "/elsewhere", 1) == 0);
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	CU_ASSERT_STRING_EQUAL(cfg.drivers_cfg, "/elsewhere/prof");
	dp_config_free(&cfg);
	unsetenv("CONFIG_DIR");

	/* unset again: the same file now fails on line 2 */
	unsetenv("DPFWD_TEST_DEV");
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, path, 2, "${DPFWD_TEST_DEV} is not set", "unset variable");
	dp_config_free(&cfg);
	unsetenv("DPFWD_TEST_SIZE");
	unsetenv("DPFWD_TEST_PROFILE");
	unsetenv("DPFWD_TEST_LCORE");
}

static void
test_config_undefined_var_names_line(void)
{
	run_case("undefined variable");
}

/* [routes] ip4_max, ip4_tbl8: the IPv4 table's room; a bad value names its line. */
static void
test_config_routes_table_size_keys(void)
{
	const struct dp_fwd_routes_config *rt;
	struct dp_config cfg;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	write_file("rsize.ini",
		"[port0]\ndev = net_null0\n[routes]\nip4_max = 2000000\nip4_tbl8 = 65536\n", path,
		sizeof(path));
	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	CU_ASSERT_EQUAL(rt->ip4_max, 2000000);
	CU_ASSERT_EQUAL(rt->ip4_tbl8, 65536);
	CU_ASSERT_EQUAL(rt->size_loc.line, 5);
	dp_config_free(&cfg);

	write_file("rsize-bad.ini", "[port0]\ndev = net_null0\n[routes]\nip4_tbl8 = lots\n", path,
		sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, path, 4, "ip4_tbl8 'lots'", "bad ip4_tbl8");
	dp_config_free(&cfg);
}

/* ---- numbers ---- */

/* dp_config_parse_uint: decimal or 0x hex, nothing else. */
static void
test_config_parse_uint(void)
{
	static const struct {
		const char *v;
		uint64_t min, max;
		int rc;
		uint64_t out;
	} cases[] = {
		{ "0", 0, 10, 0, 0 },
		{ "10", 0, 10, 0, 10 },
		{ "11", 0, 10, -EINVAL, 0 },
		{ "4", 5, 10, -EINVAL, 0 },
		{ "0x1f", 0, 100, 0, 31 },
		{ "0X1F", 0, 100, 0, 31 },
		{ "010", 0, 100, 0, 10 }, /* decimal, not octal */
		{ "08", 0, 100, 0, 8 },
		{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
		{ "18446744073709551616", 0, UINT64_MAX, -EINVAL, 0 },
		{ "", 0, 100, -EINVAL, 0 },
		{ "-1", 0, UINT64_MAX, -EINVAL, 0 },
		{ "1.5", 0, 100, -EINVAL, 0 },
		{ "12abc", 0, 1000, -EINVAL, 0 },
		{ "0x", 0, 100, -EINVAL, 0 },
		{ "abc", 0, 100, -EINVAL, 0 },
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		uint64_t out = 12345;
		int rc = dp_config_parse_uint(cases[i].v, cases[i].min, cases[i].max, &out);

		EXPECT(rc == cases[i].rc, "'%s' in %" PRIu64 "..%" PRIu64 ": rc %d, expected %d",
			cases[i].v, cases[i].min, cases[i].max, rc, cases[i].rc);
		if (cases[i].rc == 0)
			EXPECT(out == cases[i].out, "'%s': %" PRIu64 ", expected %" PRIu64,
				cases[i].v, out, cases[i].out);
	}
}

/* ---- --set ---- */

static void
test_config_set_overrides(void)
{
	const struct dp_fwd_routes_config *rt;
	static const char ini[] = P0 LC "[dpfwd]\nburst = 32\n";
	struct dp_config cfg;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	write_file("set.ini", ini, path, sizeof(path));
	dp_config_init(&cfg);
	rt = dp_fwd_routes_config(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);

	CU_ASSERT_EQUAL(dp_config_set(&cfg, "dpfwd.burst=16", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.burst, 16);
	CU_ASSERT_EQUAL(dp_config_set(&cfg, " dpfwd . node_stats = off ", err, sizeof(err)), 0);
	CU_ASSERT_FALSE(cfg.node_stats);
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "port0.mac=02:00:00:00:00:42", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(cfg.ports[0].has_mac);
	CU_ASSERT_EQUAL(cfg.ports[0].mac.addr_bytes[5], 0x42);
	/* a new port from the command line, and a route to it */
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "port1.dev=net_null9", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.nb_ports, 2);
	CU_ASSERT_STRING_EQUAL(cfg.ports[1].dev, "net_null9");
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "routes.route=10.0.0.0/8 via 10.9.9.9 port 1", err,
				sizeof(err)),
		0);
	CU_ASSERT_EQUAL_FATAL(rt->nb_routes4, 1);
	CU_ASSERT_EQUAL(rt->routes4[0].gw, ip4(10, 9, 9, 9));
	CU_ASSERT_STRING_EQUAL(rt->routes4[0].loc.file, "--set");
	CU_ASSERT_EQUAL(rt->routes4[0].loc.line, 0);
	/* the lcore map is replaced, not appended to */
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "lcores.rx=(0,0,2),(1,0,3)", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.nb_rxmap, 2);
	rc = dp_config_validate(&cfg, err, sizeof(err));
	EXPECT(rc == 0, "validate rc %d '%s'", rc, err);
	dp_config_free(&cfg);
}

static void
test_config_set_errors_name_set(void)
{
	static const struct {
		const char *assignment;
		const char *text;
	} cases[] = {
		{ "dpfwd.burst=0", "burst '0' must be 1..64" },
		{ "dpfwd.burst=", "burst '' must be 1..64" },
		{ "dpfwd.node_stats=perhaps", "node_stats 'perhaps' must be on or off" },
		{ "dpfwd.bogus=1", "unknown key 'bogus' in [dpfwd]" },
		{ "nosuch.key=1", "unknown section [nosuch]" },
		{ "port0.mac=zz", "bad MAC address 'zz'" },
		{ "routes.route=10.0.0.1/8 port 0", "host bits set" },
		{ "lcores.rx=(0,0", "bad lcore map" },
		{ "dpfwd.burst", "'dpfwd.burst' is not section.key=value" },
		{ "burst=32", "'burst=32' is not section.key=value" },
		{ "dpfwd=burst.32", "'dpfwd=burst.32' is not section.key=value" },
		{ "port0.dev=${DPFWD_TEST_SURELY_UNSET}", "${DPFWD_TEST_SURELY_UNSET} is not set" },
	};
	unsigned int i;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		struct dp_config cfg;
		char err[DP_CONFIG_ERR_LEN] = "";
		int rc;

		dp_config_init(&cfg);
		rc = dp_config_set(&cfg, cases[i].assignment, err, sizeof(err));
		EXPECT(rc == -EINVAL, "--set '%s': rc %d", cases[i].assignment, rc);
		CHECK_ERR(err, "--set", 0, cases[i].text, cases[i].assignment);
		dp_config_free(&cfg);
	}
}

/* A route added with --set to a missing port: validate names --set. */
static void
test_config_set_route_undefined_port_names_set(void)
{
	struct dp_config cfg;
	char path[PATH_MAX];
	char err[DP_CONFIG_ERR_LEN] = "";
	int rc;

	write_file("set-route.ini", P0 LC, path, sizeof(path));
	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, path, err, sizeof(err));
	EXPECT(rc == 0, "rc %d '%s'", rc, err);
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "routes.route=R10.0.0.0/8 4", err, sizeof(err)), 0);
	rc = dp_config_validate(&cfg, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CHECK_ERR(err, "--set", 0, "route to port 4, which is not defined", "--set route");
	dp_config_free(&cfg);
}

/* ---- worker lcores ---- */

static void
test_config_worker_lcores_sorted_unique(void)
{
	static const struct {
		const char *rx;
		unsigned int n;
		unsigned int lcores[8];
	} cases[] = {
		{ "(0,0,1)", 1, { 1 } },
		{ "(0,0,5),(1,0,2),(0,1,5),(2,0,3),(1,1,2)", 3, { 2, 3, 5 } },
		{ "(0,0,9),(0,1,8),(0,2,7),(0,3,6),(0,4,5)", 5, { 5, 6, 7, 8, 9 } },
		{ "(0,0,4),(1,0,4),(2,0,4)", 1, { 4 } },
		{ "(2,1,127),(0,0,64),(1,0,1),(0,1,64)", 3, { 1, 64, 127 } },
	};
	unsigned int i, j;

	for (i = 0; i < DP_ARRAY_SIZE(cases); i++) {
		struct dp_config cfg;
		char set[128];
		char err[DP_CONFIG_ERR_LEN] = "";
		unsigned int lc[8] = { 0 };
		unsigned int n;

		dp_config_init(&cfg);
		snprintf(set, sizeof(set), "lcores.rx=%s", cases[i].rx);
		EXPECT(dp_config_set(&cfg, set, err, sizeof(err)) == 0, "%s: '%s'", set, err);
		n = dp_config_worker_lcores(&cfg, lc, DP_ARRAY_SIZE(lc));
		EXPECT(n == cases[i].n, "%s: %u lcores, expected %u", cases[i].rx, n, cases[i].n);
		for (j = 0; j < n && j < cases[i].n; j++)
			EXPECT(lc[j] == cases[i].lcores[j], "%s: lcores[%u] = %u, expected %u",
				cases[i].rx, j, lc[j], cases[i].lcores[j]);
		dp_config_free(&cfg);
	}
}

static void
test_config_worker_lcores_respects_max(void)
{
	struct dp_config cfg;
	char err[DP_CONFIG_ERR_LEN] = "";
	unsigned int lc[4] = { 0, 0, 0, 0xdead };
	unsigned int n;

	dp_config_init(&cfg);
	CU_ASSERT_EQUAL(
		dp_config_set(&cfg, "lcores.rx=(0,0,7),(0,1,3),(0,2,5),(0,3,1)", err, sizeof(err)),
		0);
	n = dp_config_worker_lcores(&cfg, lc, 3);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT(lc[0] < lc[1] && lc[1] < lc[2]);
	CU_ASSERT_EQUAL(lc[3], 0xdead); /* nothing written past max */
	CU_ASSERT_EQUAL(dp_config_worker_lcores(&cfg, lc, 0), 0);
	dp_config_free(&cfg);
}

static const struct dp_test tests[] = {
	{ "test_config_default_ini_loads", test_config_default_ini_loads },
	{ "test_config_shipped_configs_load", test_config_shipped_configs_load },
	{ "test_config_nic_examples_load", test_config_nic_examples_load },
	{ "test_config_all_keys_parse", test_config_all_keys_parse },
	{ "test_config_errors_name_file_and_line", test_config_errors_name_file_and_line },
	{ "test_config_unknown_section_names_file_and_line",
		test_config_unknown_section_names_file_and_line },
	{ "test_config_unknown_key_names_file_and_line",
		test_config_unknown_key_names_file_and_line },
	{ "test_config_bad_number_bool_mac_name_line", test_config_bad_number_bool_mac_name_line },
	{ "test_config_route_host_bits_names_line", test_config_route_host_bits_names_line },
	{ "test_config_route_to_undefined_port_names_line",
		test_config_route_to_undefined_port_names_line },
	{ "test_config_repeated_section_names_both_lines",
		test_config_repeated_section_names_both_lines },
	{ "test_config_missing_dev_names_port_line", test_config_missing_dev_names_port_line },
	{ "test_config_value_too_long_names_line", test_config_value_too_long_names_line },
	{ "test_config_escaped_hash_value_length", test_config_escaped_hash_value_length },
	{ "test_config_long_comment_line_names_line", test_config_long_comment_line_names_line },
	{ "test_config_nul_byte_names_line", test_config_nul_byte_names_line },
	{ "test_config_missing_file_is_enoent", test_config_missing_file_is_enoent },
	{ "test_config_route_file_error_names_route_file_line",
		test_config_route_file_error_names_route_file_line },
	{ "test_config_route_file_relative_to_config_dir",
		test_config_route_file_relative_to_config_dir },
	{ "test_config_route_file_undefined_port_names_route_file",
		test_config_route_file_undefined_port_names_route_file },
	{ "test_config_many_route_files_keep_their_names",
		test_config_many_route_files_keep_their_names },
	{ "test_config_validate_many_routes", test_config_validate_many_routes },
	{ "test_config_route_parse_formats", test_config_route_parse_formats },
	{ "test_config_var_expansion_from_environment",
		test_config_var_expansion_from_environment },
	{ "test_config_undefined_var_names_line", test_config_undefined_var_names_line },
	{ "test_config_routes_table_size_keys", test_config_routes_table_size_keys },
	{ "test_config_parse_uint", test_config_parse_uint },
	{ "test_config_set_overrides", test_config_set_overrides },
	{ "test_config_set_errors_name_set", test_config_set_errors_name_set },
	{ "test_config_set_route_undefined_port_names_set",
		test_config_set_route_undefined_port_names_set },
	{ "test_config_worker_lcores_sorted_unique", test_config_worker_lcores_sorted_unique },
	{ "test_config_worker_lcores_respects_max", test_config_worker_lcores_respects_max },
	{ "test_config_endpoint_defaults", test_config_endpoint_defaults },
	{ "test_config_endpoint_every_key", test_config_endpoint_every_key },
	{ "test_profile_ip4_whole_max", test_profile_ip4_whole_max },
	{ "test_profile_rx_headroom_buf_max", test_profile_rx_headroom_buf_max },
	{ "test_profile_mtu", test_profile_mtu },
	{ "test_profile_tx_keeps_sent", test_profile_tx_keeps_sent },
	{ "test_config_endpoint_empty_section_turns_on",
		test_config_endpoint_empty_section_turns_on },
	{ "test_config_endpoint_bad_values_name_line", test_config_endpoint_bad_values_name_line },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("config", tests, suite_init, suite_cleanup);
}
