/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cpuflags.h>
#include <rte_version.h>
#include <rte_vect.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "dp_build_config.h"
#if DP_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif
#include "dp_common.h"
#include "dp_ctl.h"
#include "dp_endpoint.h"
#include "dp_module.h"
#include "dp_fwd.h"
#include "dp_fwd6.h"
#include "dp_fwd_group.h"
#include "dp_icmp4.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_neigh.h"
#include "dp_port.h"
#include "dp_relay.h"
#include "dp_run.h"
#include "dp_telemetry.h"

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reload_requested;
static json_t *last_snapshot;
static enum dp_run_exit exit_reason;
static const struct dp_config *run_cfg;
/* when dp_run_setup() began: /dpfwd/run/info's started (UTC) and uptime_s */
static struct timespec run_started;
static double run_started_mono;

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

void
dp_run_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* re-read the routes */
}

void
dp_run_request_stop(void)
{
	stop_requested = 1;
}

/*
 * The service manager's readiness protocol (sd_notify(3)): a no-op unless NOTIFY_SOCKET
 * is set, i.e. outside systemd's Type=notify units.
 */
static void
notify(const char *state)
{
#if DP_HAVE_SYSTEMD
	int rc = sd_notify(0, state);

	if (rc < 0)
		DP_LOG(WARNING, common, "sd_notify(%s): %s", state, strerror(-rc));
#else
	RTE_SET_USED(state);
#endif
}

/* RELOADING=1 carries the monotonic time it was sent at (sd_notify(3)) */
static void
notify_reloading(void)
{
	char msg[64];
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
		(uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
	notify(msg);
}

static const char *const lcore_opts[] = { "-l", "-c", "--lcores", NULL };

/* whether this process may run on @p cpu (EAL pins lcore N to CPU N unless told otherwise) */
static int
cpu_check(const cpu_set_t *set, unsigned int cpu, const char *what, const struct dp_config_loc *loc,
	char *err, size_t errlen)
{
	char cpus[128] = "";
	int len = 0;
	unsigned int c;

	if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, set))
		return 0;
	for (c = 0; c < CPU_SETSIZE && len >= 0 && (size_t)len < sizeof(cpus); c++)
		if (CPU_ISSET(c, set))
			len += snprintf(cpus + len, sizeof(cpus) - len, "%s%u", len ? "," : "", c);
	/* with file:line where the config set it; main_lcore has no location of its own */
	return dp_config_error(err, errlen, loc,
		"%s %u is not a CPU of this machine that dpfwd may run on (CPUs: %s); "
		"change it, or give EAL -l/--lcores",
		what, cpu, cpus);
}

int
dp_run_lcores_present(const struct dp_config *cfg, int argc, char **argv, char *err, size_t errlen)
{
	cpu_set_t set;
	unsigned int i;
	int rc;

	/* the user's own lcore list: EAL maps lcores to CPUs as it says, and checks it */
	if (dp_args_has(argc, argv, lcore_opts))
		return 0;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	rc = cpu_check(&set, cfg->main_lcore, "[dpfwd] main_lcore", NULL, err, errlen);
	for (i = 0; rc == 0 && i < cfg->nb_rxmap; i++)
		rc = cpu_check(&set, cfg->rxmap[i].lcore, "[lcores] rx: lcore", &cfg->rxmap[i].loc,
			err, errlen);
	return rc;
}

int
dp_run_eal_args(const struct dp_config *cfg, int argc, char **argv, char **out, int max)
{
	/* what decides where EAL's memory comes from; --file-prefix only names the runtime
	 * folder, and --in-memory or the --no-huge fallback still apply beside it */
	static const char *const mem_opts[] = { "--no-huge", "--in-memory", "--huge-dir",
		"--huge-unlink", "-m", "--socket-mem", NULL };
	bool user_mem = dp_args_has(argc, argv, mem_opts);
	unsigned int lcores[DP_GRAPH_MAX_WORKERS];
	unsigned int nb, i;
	int n = 0, rc, k;
	char buf[512];

	for (k = 0; k < argc; k++) {
		rc = dp_args_push(out, &n, max, argv[k]);
		if (rc < 0)
			return rc;
	}
	if (!dp_args_has(argc, argv, lcore_opts)) {
		int len = snprintf(buf, sizeof(buf), "%u", cfg->main_lcore);

		nb = dp_config_worker_lcores(cfg, lcores, DP_ARRAY_SIZE(lcores));
		for (i = 0; i < nb && len > 0 && (size_t)len < sizeof(buf); i++)
			len += snprintf(buf + len, sizeof(buf) - len, ",%u", lcores[i]);
		if ((rc = dp_args_push(out, &n, max, "-l")) < 0 ||
			(rc = dp_args_push(out, &n, max, buf)) < 0)
			return rc;
		snprintf(buf, sizeof(buf), "%u", cfg->main_lcore);
		if ((rc = dp_args_push(out, &n, max, "--main-lcore")) < 0 ||
			(rc = dp_args_push(out, &n, max, buf)) < 0)
			return rc;
	}
	if (!user_mem && dp_hugepages_free_mb() > 0) {
		/* no hugepage files left behind, telemetry socket still served */
		if ((rc = dp_args_push(out, &n, max, "--in-memory")) < 0)
			return rc;
	} else if (!user_mem) {
		fprintf(stderr,
			"dpfwd: notice: no free hugepages; running with --no-huge -m 1024 (fine "
			"for virtual devices, slower, no DMA). To reserve 2 GiB of 2 MiB pages:\n"
			"  echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages\n"
			"  mount -t hugetlbfs nodev /dev/hugepages   # if not mounted\n");
		if ((rc = dp_args_push(out, &n, max, "--no-huge")) < 0 ||
			(rc = dp_args_push(out, &n, max, "-m")) < 0 ||
			(rc = dp_args_push(out, &n, max, "1024")) < 0)
			return rc;
	}
	rc = dp_port_eal_args(cfg, argc, argv, out + n, max - n);
	if (rc < 0)
		return rc;
	return n + rc;
}

void
dp_run_eal_args_free(char **out, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(out[i]);
}

static json_t *
metrics_url(const struct dp_config *cfg)
{
	char url[128];
	uint16_t port = dp_telemetry_metrics_port();

	if (!cfg->metrics || port == 0)
		return json_null();
	snprintf(url, sizeof(url),
		strchr(cfg->metrics_addr, ':') ? "http://[%s]:%u/metrics" : "http://%s:%u/metrics",
		cfg->metrics_addr, port);
	return json_string(url);
}

static json_t *
run_fill(void *arg)
{
	const struct dp_config *cfg = run_cfg;
	json_t *o;

	RTE_SET_USED(arg);
	if (cfg == NULL)
		return json_object();
	o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:b, s:b, s:b, s:s, s:i, s:i, s:I}", "config",
		cfg->path, "mode", "forward", "main_lcore", (int)cfg->main_lcore, "workers",
		(int)dp_nb_workers, "burst", cfg->burst, "node_stats", cfg->node_stats,
		"ip4_cksum_check", cfg->ip4_cksum_check, "check_dst_mac", cfg->check_dst_mac,
		"mempool_ops", cfg->pool_ops, "mempool_cache", (int)cfg->pool_cache, "tx_drain_us",
		(int)cfg->tx_drain_us, "mbufs_over_baseline",
		(json_int_t)dp_mem_in_use_over_baseline());
	if (o != NULL) {
		char started[32];
		struct tm tm;

		json_object_set_new(o, "metrics", metrics_url(cfg));
		json_object_set_new(o, "version", json_string(DP_VERSION));
		json_object_set_new(o, "dpdk", json_string(rte_version()));
		json_object_set_new(o, "pid", json_integer(getpid()));
		gmtime_r(&run_started.tv_sec, &tm);
		strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
		json_object_set_new(o, "started", json_string(started));
		json_object_set_new(o, "uptime_s", json_real(dp_time_mono() - run_started_mono));
	}
	return o;
}

static void
teardown_all(void)
{
	/* first: no scrape or telemetry command may read what is freed below */
	dp_telemetry_metrics_stop();
	dp_telemetry_sections_clear();
	dp_ctl_fini();
	dp_graph_workers_free();
	dp_port_close_all();
	/* after the ports: mbufs they held may point into a module's memory (an
	 * endpoint's region) */
	dp_modules_fini();
	dp_mem_pools_free();
}

/* The metrics endpoint, before any port: a busy port number stops dpfwd early. */
static int
metrics_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	char why[DP_CONFIG_ERR_LEN];
	int rc;

	if (!cfg->metrics)
		return 0;
	rc = dp_telemetry_metrics_start(cfg->metrics_addr, cfg->metrics_port, why, sizeof(why));
	/* where it was set, as config errors say it: "file:line: " or "--set: " */
	if (rc < 0 && cfg->metrics_loc.line > 0)
		snprintf(err, errlen, "%s:%d: %s", cfg->metrics_loc.file, cfg->metrics_loc.line,
			why);
	else if (rc < 0 && cfg->metrics_loc.file != NULL)
		snprintf(err, errlen, "%s: %s", cfg->metrics_loc.file, why);
	else if (rc < 0)
		snprintf(err, errlen, "%s", why);
	return rc;
}

/* Link status of every port, from the control lcore: memif has no LSC interrupt. */
#define DP_RUN_LINK_POLL_MS 10

static void
port_link_tick(uint64_t now_ms, void *arg)
{
	RTE_SET_USED(now_ms);
	RTE_SET_USED(arg);
	/* a next hop behind a port that went down leaves its ECMP groups */
	if (dp_port_link_poll() > 0)
		dp_fwd_group_refresh();
}

/*
 * [dpfwd] avx512: EAL caps DPDK's vector paths at 256 bits unless told
 * otherwise (AVX-512 lowers the clock on some Intel parts). rte_fib's AVX-512
 * lookup is what puts it on a par with rte_lpm's SSE one, so allow it before
 * the tables are made, unless the CPU lacks it or EAL's
 * --force-max-simd-bitwidth said otherwise (then EAL refuses, -EPERM, and its
 * choice stands).
 */
static void
simd_setup(const struct dp_config *cfg)
{
	int rc;

	if (!cfg->avx512 || !rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) ||
		rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_512)
		return;
	rc = rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512);
	if (rc == 0)
		DP_LOG(INFO, fwd,
			"vector lookups up to 512 bits (AVX-512; [dpfwd] avx512 = off keeps 256)");
	else
		DP_LOG(INFO, fwd, "vector lookups stay at %u bits (--force-max-simd-bitwidth)",
			rte_vect_get_max_simd_bitwidth());
}

/* dpfwd's per-packet metadata in the mbuf (a dynamic field), once per process. */
static int
meta_register(char *err, size_t errlen)
{
	int rc;

	if (dp_mbuf_meta_offset >= 0)
		return 0;
	rc = dp_mem_meta_register();
	if (rc < 0)
		snprintf(err, errlen, "cannot register mbuf metadata: %s", strerror(-rc));
	return rc;
}

/* The packet pool of one socket whose ports need @p d0: its size (the
 * config's, or computed), and in @p why how it was computed. */
static uint32_t
pool_size_for(const struct dp_config *cfg, unsigned int nb_workers, const struct dp_mem_demand *d0,
	char *why, size_t len)
{
	struct dp_mem_demand d = *d0;
	uint32_t size;

	d.lcores = nb_workers + 1;
	d.burst = cfg->burst;
	d.held = dp_modules_mbuf_demand(cfg, nb_workers);
	size = dp_mem_pool_size(&d, cfg->pool_cache, why, len);
	return cfg->pool_size != 0 ? cfg->pool_size : size;
}

static int
pool_make(unsigned int s, const struct dp_mem_params *mp, uint32_t size, char *err, size_t errlen)
{
	if (dp_mem_pool_create((int)s, mp, size) != NULL)
		return 0;
	snprintf(err, errlen, "cannot create the packet pool on socket %u (%u mbufs, ops %s): %s%s",
		s, size, mp->ops, rte_strerror(rte_errno),
		rte_errno == ENOMEM ? "; reserve more hugepages or set [mempool] size" : "");
	return rte_errno != 0 ? -rte_errno : -ENOMEM;
}

/*
 * The packet pool of each socket the ports are on, sized from their queues and
 * descriptors (dp_port_mem_demand) unless [mempool] size says; how each size
 * was computed goes to the log, or to @p out (dpfwd --check).
 */
static int
pools_make(
	const struct dp_config *cfg, unsigned int nb_workers, FILE *out, char *err, size_t errlen)
{
	struct dp_mem_demand demand[RTE_MAX_NUMA_NODES];
	struct dp_mem_params mp;
	unsigned int s;
	int rc;

	memset(demand, 0, sizeof(demand));
	dp_port_mem_demand(demand);
	memset(&mp, 0, sizeof(mp));
	mp.cache = cfg->pool_cache;
	/* unset, the buffers hold a frame of the largest MTU in one segment */
	mp.data_room = dp_port_data_room(cfg);
	dp_strlcpy(mp.ops, cfg->pool_ops, sizeof(mp.ops));
	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		char why[512], line[768];
		uint32_t size;

		if (demand[s].rx_desc == 0 && demand[s].tx_desc == 0)
			continue;
		size = pool_size_for(cfg, nb_workers, &demand[s], why, sizeof(why));
		if (cfg->pool_size != 0)
			snprintf(line, sizeof(line),
				"socket %u: %u mbufs as configured (computed: %s)", s, size, why);
		else
			snprintf(line, sizeof(line), "socket %u: %s", s, why);
		rc = pool_make(s, &mp, size, err, errlen);
		if (rc < 0)
			return rc;
		if (out != NULL)
			fprintf(out, "mempool: %s; data room %u, ops %s, cache %u: made\n", line,
				mp.data_room, mp.ops, cfg->pool_cache);
		else
			DP_LOG(INFO, mem, "%s", line);
	}
	return 0;
}

int
dp_run_check(const struct dp_config *cfg, FILE *out, char *err, size_t errlen)
{
	const struct dp_endpoint_config *ep = dp_endpoint_config(cfg);
	const struct dp_fwd_routes_config *rt = dp_fwd_routes_config(cfg);
	const struct dp_fwd_neighbors_config *nc = dp_fwd_neighbors_config(cfg);
	unsigned int lcores[DP_GRAPH_MAX_WORKERS];
	struct dp_fwd_fib4 t;
	unsigned int nb_workers, i, j, relays = 0;
	bool mtus_differ = false;
	char rxo[256], txo[256];
	int rc;

	rc = meta_register(err, errlen);
	if (rc < 0)
		return rc;
	nb_workers = dp_config_worker_lcores(cfg, lcores, DP_ARRAY_SIZE(lcores));
	rc = dp_graph_lcores_check(cfg, err, errlen);
	if (rc < 0)
		return rc;
	fprintf(out, "lcores: main %u (control)", rte_get_main_lcore());
	for (i = 0; i < nb_workers; i++) {
		fprintf(out, "; worker %u (socket %u):", lcores[i],
			rte_lcore_to_socket_id(lcores[i]));
		for (j = 0; j < cfg->nb_rxmap; j++)
			if (cfg->rxmap[j].lcore == lcores[i])
				fprintf(out, " port%u/q%u", cfg->rxmap[j].port,
					cfg->rxmap[j].queue);
	}
	fprintf(out, "\n");
	rc = dp_port_probe(cfg, (uint16_t)nb_workers, ep->enabled, err, errlen);
	if (rc < 0)
		return rc;
	fprintf(out, "driver profiles: %s\n", cfg->drivers_cfg);
	for (i = 0; i < cfg->nb_phys_ports; i++) {
		const struct dp_port *p = &dp_ports[i];
		const uint32_t room = dp_port_data_room(cfg);
		char mtu[192];
		int w;

		w = snprintf(mtu, sizeof(mtu), "%u%s", p->mtu, dp_port_mtu_from_str(p->mtu_from));
		/* a driver that receives into the buffer past a headroom of its own, or takes
		 * buffers of a bounded size (net_af_xdp): what it gets */
		if (w > 0 && (size_t)w < sizeof(mtu) && p->has_profile &&
			(p->profile.rx_headroom != 0 || p->profile.buf_max != 0))
			snprintf(mtu + w, sizeof(mtu) - (size_t)w,
				" (frames of %u bytes at most in a buffer: data room %u less the "
				"headroom %u and the driver's %u; buffers of %u bytes, the driver "
				"takes %u at most)",
				room - RTE_PKTMBUF_HEADROOM - p->profile.rx_headroom, room,
				RTE_PKTMBUF_HEADROOM, p->profile.rx_headroom,
				dp_port_buf_size(room),
				p->profile.buf_max ? p->profile.buf_max : UINT16_MAX);
		dp_port_offload_str(p->rx_offloads, true, rxo, sizeof(rxo));
		dp_port_offload_str(p->tx_offloads, false, txo, sizeof(txo));
		fprintf(out,
			"port%u: %s, driver %s, profile %s, socket %d; %u RX / %u TX queues, "
			"%u / %u descriptors; RX offloads %s; TX offloads %s; MTU %s; IPv4 "
			"header checksum %s\n",
			i, p->name, p->driver, p->has_profile ? p->profile.name : "(none)",
			p->socket, p->nb_rxq, p->nb_txq, p->rx_desc, p->tx_desc,
			rxo[0] ? rxo : "none", txo[0] ? txo : "none", mtu,
			p->rx_ip4_cksum
				? "checked by the NIC"
				: (cfg->ip4_cksum_check ? "checked in software" : "not checked"));
	}
	for (i = cfg->nb_phys_ports; i < dp_nb_ports; i++) {
		const struct dp_port *p = &dp_ports[i];

		fprintf(out, "port%u.%u: %s, VLAN %u of port%u; MTU %u%s; tag inserted %s\n",
			p->parent, p->vid, p->name, p->vid, p->parent, p->mtu,
			dp_port_mtu_from_str(p->mtu_from),
			p->vlan_insert ? "by the device" : "in software");
	}
	/* made and freed: proves the memory is there */
	rc = pools_make(cfg, nb_workers, out, err, errlen);
	dp_mem_pools_free();
	if (rc < 0)
		return rc;
	dp_fwd_fib4_size(cfg, &t);
	rc = dp_fwd_fib4_create(&t);
	if (rc < 0) {
		snprintf(err, errlen,
			"cannot make the IPv4 table (room for %u routes, %u tbl8 groups): %s; "
			"reserve more hugepages or set [routes] ip4_max, ip4_tbl8",
			t.max_routes, t.tbl8_max, rte_strerror(rte_errno));
		return rc;
	}
	fprintf(out,
		"routes: %u IPv4 (table room %u, %u tbl8 groups: made), %u IPv6; neighbors: %u "
		"IPv4, %u IPv6 static\n",
		rt->nb_routes4, t.max_routes, t.tbl8_max, rt->nb_routes6, nc->nb_neighs4,
		nc->nb_neighs6);
	dp_fwd_fib4_free(&t);
	for (i = 0; i < DP_RELAY_MAX; i++)
		relays += dp_relay_config(cfg, i)->defined;
	fprintf(out, "services: %u relay(s); endpoints %s%s%s\n", relays,
		ep->enabled ? "on, socket " : "off", ep->enabled ? ep->socket : "", "");
	for (i = 1; i < dp_nb_ports; i++)
		mtus_differ |= dp_ports[i].mtu != dp_ports[0].mtu;
	if (dp_port_mtu_uniform)
		fprintf(out, "mtu: %u on every port\n", dp_nb_ports ? dp_ports[0].mtu : 0);
	else
		fprintf(out,
			"mtu: %s: IPv4 over a next hop's MTU is fragmented (DF clear; chained "
			"mbufs, multi_segs where the device offers it) or answered with "
			"Fragmentation Needed, IPv6 with Packet Too Big; the relay drops "
			"datagrams that do not fit\n",
			mtus_differ ? "the ports' differ"
				    : "the same on every port, but a driver hands over IPv4 it "
				      "reassembled past it (net_af_packet)");
	return 0;
}

int
dp_run_setup(const struct dp_config *cfg, char *err, size_t errlen)
{
	char tx_names[DP_PORT_MAX][RTE_NODE_NAMESIZE];
	unsigned int lcores[DP_GRAPH_MAX_WORKERS];
	uint16_t nb_tx = 0;
	unsigned int nb_workers;
	int rc;

	run_cfg = cfg;
	clock_gettime(CLOCK_REALTIME, &run_started);
	run_started_mono = dp_time_mono();
	stop_requested = 0;
	simd_setup(cfg);
	rc = meta_register(err, errlen);
	if (rc < 0)
		return rc;
	rc = metrics_start(cfg, err, errlen);
	if (rc < 0)
		goto fail;
	nb_workers = dp_config_worker_lcores(cfg, lcores, DP_ARRAY_SIZE(lcores));
	/* endpoints send chained mbufs with external buffers (zero copy) */
	rc = dp_port_probe(
		cfg, (uint16_t)nb_workers, dp_endpoint_config(cfg)->enabled, err, errlen);
	if (rc < 0)
		goto fail;

	rc = pools_make(cfg, nb_workers, NULL, err, errlen);
	if (rc < 0)
		goto fail;
	rc = dp_port_start_all(err, errlen);
	if (rc < 0)
		goto fail;
	rc = dp_graph_ports_prepare(tx_names, &nb_tx);
	if (rc < 0) {
		snprintf(err, errlen, "cannot prepare TX nodes: %s", strerror(-rc));
		goto fail;
	}
	/* the modules' tables and registrations (dp_module.h), before the graphs */
	rc = dp_modules_init(cfg, err, errlen);
	if (rc < 0)
		goto fail;
	rc = dp_graph_workers_create(cfg, err, errlen);
	if (rc < 0)
		goto fail;
	rc = dp_ctl_init();
	if (rc == 0)
		rc = dp_ctl_timer_register("port_link", DP_RUN_LINK_POLL_MS, port_link_tick, NULL);
	if (rc < 0) {
		snprintf(err, errlen, "cannot start the control path: %s", strerror(-rc));
		goto fail;
	}
	rc = dp_modules_start(cfg, err, errlen);
	if (rc < 0)
		goto fail;

	dp_telemetry_sections_clear();
	if ((rc = dp_telemetry_section_register("run", "/dpfwd/run/info",
		     "Version, DPDK, pid, start time (UTC) and uptime, config path, mode, workers, options",
		     run_fill, NULL)) < 0 ||
		(rc = dp_graph_telemetry_register()) < 0 ||
		(rc = dp_port_telemetry_register()) < 0 || (rc = dp_mem_telemetry_register()) < 0 ||
		(rc = dp_ctl_telemetry_register()) < 0) {
		snprintf(err, errlen, "cannot register telemetry: %s", strerror(-rc));
		goto fail;
	}
	rc = dp_modules_telemetry(cfg, err, errlen);
	if (rc < 0)
		goto fail;
	/* what the ports hold now (RX rings, pcap replay buffers) is the baseline */
	dp_mem_baseline_mark();
	return 0;
fail:
	teardown_all();
	return rc;
}

/* Until every worker has walked its graph once (or a second has passed: a worker that
 * does not start is the log's to tell, not a reason to hold the service back). */
static void
first_walks_wait(void)
{
	double deadline = dp_time_mono() + 1.0;
	uint16_t i;

	for (i = 0; i < dp_nb_workers; i++) {
		const uint64_t *it = &dp_workers[i]->stats.iterations;

		while (__atomic_load_n(it, __ATOMIC_RELAXED) == 0 && dp_time_mono() < deadline) {
			struct timespec ts = { .tv_sec = 0, .tv_nsec = 100 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
}

int
dp_run_start(void)
{
	int rc;

	json_decref(last_snapshot);
	last_snapshot = dp_telemetry_snapshot();
	dp_arp_announce();
	dp_port_link_poll();
	rc = dp_graph_workers_launch();
	/* from now on a memif peer that goes away unmaps rings under the workers */
	if (rc == 0 && dp_port_needs_unmap_guard())
		dp_port_unmap_guard(dp_graph_qsv);
	if (rc == 0) {
		char err[DP_CONFIG_ERR_LEN];

		rc = dp_modules_run(err, sizeof(err));
		if (rc < 0)
			DP_LOG(ERR, common, "%s", err);
	}
	if (rc == 0) {
		first_walks_wait();
		notify("READY=1\nSTATUS=forwarding");
	}
	return rc;
}

static int
snapshot_tick(const struct dp_run_opts *opts, bool final)
{
	char line[1024];
	json_t *snap = dp_telemetry_snapshot();
	int rc = 0;

	if (snap == NULL)
		return -ENOMEM;
	dp_telemetry_rates(snap, last_snapshot, opts->stats_line ? line : NULL, sizeof(line));
	if (final) {
		json_object_set_new(snap, "final", json_true());
		json_object_set_new(snap, "exit_reason",
			json_string(exit_reason == DP_RUN_EXIT_SIGNAL ? "signal" : "duration"));
	}
	if (opts->stats_line && !final) {
		printf("%s\n", line);
		fflush(stdout);
	}
	if (opts->json_path != NULL) {
		rc = dp_telemetry_json_write(opts->json_path, snap);
		if (rc < 0)
			DP_LOG(ERR, telemetry, "cannot write %s: %s", opts->json_path,
				strerror(-rc));
	}
	json_decref(last_snapshot);
	last_snapshot = snap;
	return rc;
}

enum dp_run_exit
dp_run_loop(const struct dp_run_opts *opts)
{
	double start = dp_time_mono();
	double next = start + opts->interval_ms / 1000.0;

	for (;;) {
		/* the control lcore's work (ARP, ND, held packets, timers) every millisecond */
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 1000 * 1000 };
		double now;

		nanosleep(&ts, NULL);
		dp_ctl_poll(dp_ctl_now_ms());
		if (reload_requested && run_cfg != NULL) {
			char err[DP_CONFIG_ERR_LEN];

			reload_requested = 0;
			notify_reloading();
			if (dp_fwd_route_reload(run_cfg->path, err, sizeof(err)) < 0) {
				DP_LOG(ERR, fwd,
					"SIGHUP: routes not reloaded, the old ones stay: %s", err);
				notify("READY=1\nSTATUS=forwarding; the last reload failed, the "
				       "old routes stay (see the log)");
			} else {
				notify("READY=1\nSTATUS=forwarding");
			}
		}
		now = dp_time_mono();
		if (stop_requested) {
			exit_reason = DP_RUN_EXIT_SIGNAL;
			return exit_reason;
		}
		if (opts->duration_s > 0 && now - start >= opts->duration_s) {
			exit_reason = DP_RUN_EXIT_DURATION;
			return exit_reason;
		}
		if (now >= next) {
			snapshot_tick(opts, false);
			next += opts->interval_ms / 1000.0;
			if (next < now)
				next = now + opts->interval_ms / 1000.0;
		}
	}
}

int
dp_run_teardown(const struct dp_run_opts *opts, int64_t *leak)
{
	uint32_t held;
	int rc;

	notify("STOPPING=1");
	/* while the workers run: a module's stop may wait for them (RCU) */
	dp_modules_stop();
	dp_graph_workers_stop();
	dp_port_unmap_guard(NULL);
	dp_ctl_stop();
	/* what the drivers still hold of what was sent (af_xdp) goes back first */
	held = dp_port_tx_reclaim();
	*leak = dp_mem_in_use_over_baseline();
	if (*leak > 0 && *leak <= held) {
		/* a virtio port's TX ring: the check sees no leak smaller than that */
		DP_LOG(INFO, mem,
			"%" PRId64 " mbufs above the baseline after stop, within the %" PRIu32
			" that ports keeping sent buffers until close may hold: not a leak",
			*leak, held);
		*leak = 0;
	}
	if (*leak != 0)
		DP_LOG(ERR, mem, "%" PRId64 " mbufs still in use above the baseline after stop",
			*leak);
	rc = snapshot_tick(opts, true);
	json_decref(last_snapshot);
	last_snapshot = NULL;
	teardown_all();
	run_cfg = NULL;
	return rc;
}
