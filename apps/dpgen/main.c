/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpgen: parse arguments, start EAL, bring the ports up, launch the TX/RX
 * lcores, report every second, stop, write the JSON, tear down.
 *
 *   dpgen [EAL options] -- --tx-port N [--rx-port N] [--flows N] [--frame-size B |
 *         --payload B] [--rate R] [--duration S] [--pcap FILE] [--json FILE] ...
 *
 * Stopping, in order: TX stops building (SIGINT/SIGTERM, --duration, --count or
 * --loops), hands the port what it still holds, then RX keeps polling for
 * --drain-ms so that packets in flight are not counted lost, then the lcores
 * return and the last interval and the totals are reported.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#include "dp_build_config.h"
#include "dp_common.h"
#include "dp_port.h"
#include "gen_args.h"
#include "gen_pcap.h"
#include "gen_port.h"
#include "gen_report.h"
#include "gen_worker.h"

#define MAX_EAL_ARGS       256
#define HUGE_MIN_FREE_MB   256 /* below this, --no-huge -m 512 */
#define NOHUGE_MEM_MB      "512"
#define POOL_CACHE         256
#define ACK_TIMEOUT_MS     1000
#define TX_STOP_TIMEOUT_MS 2000
#define RUNTIME_DIR        "/var/run/dpdk"

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !got_signal)
		;
}

/*
 * The user's EAL arguments and what dpgen adds when they are missing (see
 * --help). @p prefix receives the file prefix dpgen chose ("" if the user gave
 * one), whose runtime folder it removes at exit.
 */
static int
eal_args(int argc, char **argv, char **out, int max, char *prefix, size_t prefix_len)
{
	static const char *const lcore_opts[] = { "-l", "-c", "--lcores", NULL };
	static const char *const mem_opts[] = { "--no-huge", "--in-memory", "--huge-dir", "-m",
		"--socket-mem", "--huge-unlink", NULL };
	static const char *const prefix_opts[] = { "--file-prefix", NULL };
	static const char *const pci_opts[] = { "-a", "--allow", "-b", "--block", "--no-pci",
		NULL };
	char buf[64];
	int n = 0, rc = 0, i;

	prefix[0] = '\0';
	for (i = 0; i < argc && rc == 0; i++)
		rc = dp_args_push(out, &n, max, argv[i]);
	if (rc == 0 && !dp_args_has(argc, argv, lcore_opts)) {
		cpu_set_t set;
		int cpu, found = 0;
		size_t len = 0;

		/* the first two CPUs we may run on: main lcore (control) + one worker */
		buf[0] = '\0';
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			for (cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
				if (CPU_ISSET(cpu, &set))
					len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"%s%d", found++ ? "," : "", cpu);
		if (found > 0) {
			rc = dp_args_push(out, &n, max, "-l");
			if (rc == 0)
				rc = dp_args_push(out, &n, max, buf);
		}
	}
	if (rc == 0 && !dp_args_has(argc, argv, mem_opts)) {
		long free_mb = dp_hugepages_free_mb();

		if (free_mb >= HUGE_MIN_FREE_MB) {
			/* hugepages, and no hugepage file left behind */
			rc = dp_args_push(out, &n, max, "--in-memory");
		} else {
			fprintf(stderr,
				"dpgen: notice: %ld MiB of free hugepages (fewer than %d); running "
				"with --no-huge -m " NOHUGE_MEM_MB " (fine for virtual devices, "
				"slower). To reserve 1 GiB of 2 MiB pages:\n"
				"  echo 512 > "
				"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages\n"
				"  mount | grep -q hugetlbfs || mount -t hugetlbfs nodev "
				"/dev/hugepages\n",
				free_mb < 0 ? 0 : free_mb, HUGE_MIN_FREE_MB);
			rc = dp_args_push(out, &n, max, "--no-huge");
			if (rc == 0)
				rc = dp_args_push(out, &n, max, "-m");
			if (rc == 0)
				rc = dp_args_push(out, &n, max, NOHUGE_MEM_MB);
		}
	}
	if (rc == 0 && !dp_args_has(argc, argv, prefix_opts)) {
		/* its own runtime folder and telemetry socket: runs next to dpfwd or another dpgen
		 */
		snprintf(prefix, prefix_len, "dpgen-%d", (int)getpid());
		rc = dp_args_push(out, &n, max, "--file-prefix");
		if (rc == 0)
			rc = dp_args_push(out, &n, max, prefix);
	}
	if (rc == 0 && !dp_args_has(argc, argv, pci_opts))
		rc = dp_args_push(out, &n, max, "--no-pci");
	if (rc < 0) {
		for (i = 0; i < n; i++)
			free(out[i]);
		return rc;
	}
	return n;
}

/* Remove the runtime folder of the prefix dpgen chose (the EAL leaves it behind). */
static void
runtime_dir_remove(const char *prefix)
{
	char dir[PATH_MAX];

	if (prefix[0] == '\0')
		return;
	snprintf(dir, sizeof(dir), RUNTIME_DIR "/%s", prefix);
	dp_dir_remove_flat(dir);
}

static uint32_t
next_pow2_minus1(uint64_t n)
{
	uint64_t p = 1;

	while (p - 1 < n)
		p <<= 1;
	return (uint32_t)(p - 1);
}

/* Wait until every running worker has published @p epoch; false after a timeout. */
static bool
wait_ack(struct gen_worker *const *ws, unsigned int nw, uint32_t epoch)
{
	uint64_t deadline = rte_rdtsc() + rte_get_tsc_hz() / 1000 * ACK_TIMEOUT_MS;
	unsigned int i;

	for (i = 0; i < nw; i++)
		while (__atomic_load_n(&ws[i]->ack, __ATOMIC_ACQUIRE) != epoch &&
			!__atomic_load_n(&ws[i]->finished, __ATOMIC_ACQUIRE)) {
			if (rte_rdtsc() > deadline)
				return false;
			rte_pause();
		}
	return true;
}

/* A worker's counters for @p epoch: published, or final if it has finished. */
static const struct gen_counters *
published(const struct gen_worker *w, uint32_t epoch)
{
	if (w == NULL)
		return NULL;
	if (__atomic_load_n(&w->ack, __ATOMIC_ACQUIRE) == epoch)
		return &w->pub[epoch & 1];
	return &w->fin;
}

/* UDP payload bytes of a synthetic template (its UDP length; the frame may be padded). */
static uint32_t
udp_payload_len(const struct gen_tmpl *t)
{
	return ((uint32_t)t->data[t->l4_off + 4] << 8 | t->data[t->l4_off + 5]) - 8;
}

/*
 * DPDK 22.11's net_memif unmaps its rings in the interrupt thread when the peer
 * goes away, perhaps in the middle of a worker's burst on them. dpfwd's guard
 * (dp_port_unmap_guard(), whose munmap() this executable has too) makes that
 * munmap wait until every worker has passed a quiescent state. Sets *QSV to NULL
 * when no port needs it; -ENOMEM or a QSBR error otherwise.
 */
static int
unmap_guard_on(const struct gen_port *ports, unsigned int nb_ports, struct gen_worker *const *ws,
	unsigned int nw, struct rte_rcu_qsbr **qsv)
{
	bool memif = false;
	unsigned int i;
	int rc = 0;

	*qsv = NULL;
	for (i = 0; i < nb_ports; i++)
		memif |= strcmp(ports[i].driver, "net_memif") == 0;
	if (!memif)
		return 0;
	*qsv = rte_zmalloc(
		"dpgen_unmap_guard", rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE), RTE_CACHE_LINE_SIZE);
	if (*qsv == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(*qsv, RTE_MAX_LCORE) != 0)
		rc = -rte_errno;
	for (i = 0; i < nw && rc == 0; i++)
		if (rte_rcu_qsbr_thread_register(*qsv, ws[i]->lcore) != 0)
			rc = -rte_errno;
	if (rc != 0) {
		rte_free(*qsv);
		*qsv = NULL;
		return rc;
	}
	dp_port_unmap_guard(*qsv);
	return 0;
}

/* after the workers returned (offline): munmap is the plain system call again */
static void
unmap_guard_off(struct rte_rcu_qsbr *qsv)
{
	if (qsv == NULL)
		return;
	dp_port_unmap_guard(NULL);
	rte_free(qsv);
}

/*
 * The control loop: one sample a second until a signal, the duration, or the
 * end of --count/--loops; then stop TX, let RX drain, stop RX, wait for the
 * lcores. Returns why it stopped.
 */
static const char *
run_until_stop(const struct gen_opts *o, struct gen_ctl *ctl, struct gen_worker *const *ws,
	unsigned int nw, struct gen_worker *txw, struct gen_worker *rxw, struct gen_report *rep,
	uint64_t t0)
{
	uint64_t hz = rte_get_tsc_hz(), next = t0 + hz;
	uint64_t end = o->duration > 0 ? t0 + (uint64_t)(o->duration * (double)hz) : 0;
	const char *reason;
	uint32_t epoch = 0;
	unsigned int ms;

	for (;;) {
		uint64_t now = rte_rdtsc();
		uint64_t wait = next - now < hz / 100 ? next - now : hz / 100;

		if (now < next)
			sleep_ms((unsigned int)(wait * 1000 / hz) + 1);
		now = rte_rdtsc();
		if (got_signal) {
			reason = "signal";
			break;
		}
		if (end != 0 && now >= end) {
			reason = "duration";
			break;
		}
		if (__atomic_load_n(&txw->tx_done, __ATOMIC_ACQUIRE)) {
			reason = o->loops ? "loops" : "count";
			break;
		}
		if (now < next)
			continue;
		next += hz;
		epoch++;
		__atomic_store_n(&ctl->epoch, epoch, __ATOMIC_RELEASE);
		if (!wait_ack(ws, nw, epoch)) {
			fprintf(stderr, "dpgen: warning: a worker did not answer within %d ms\n",
				ACK_TIMEOUT_MS);
			continue;
		}
		/* the interval that just ended is in hist[(epoch - 1) & 1]; ours until epoch + 1 */
		gen_report_interval(rep, published(txw, epoch), published(rxw, epoch),
			rxw ? rxw->hist[(epoch - 1) & 1] : NULL);
		if (rxw != NULL)
			dp_hist_reset(rxw->hist[(epoch - 1) & 1]);
	}

	/* TX first; RX goes on for the drain time so that packets in flight are not lost */
	__atomic_store_n(&ctl->stop_tx, true, __ATOMIC_RELEASE);
	for (ms = 0; !__atomic_load_n(&txw->tx_done, __ATOMIC_ACQUIRE) && ms < TX_STOP_TIMEOUT_MS;
		ms++)
		sleep_ms(1);
	if (rxw != NULL)
		sleep_ms(o->drain_ms);
	__atomic_store_n(&ctl->stop_rx, true, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	return reason;
}

static json_t *
config_json(const struct gen_opts *o, const struct gen_pcap_info *pi, uint16_t run_id,
	const struct gen_tmpl *t)
{
	json_t *c = json_object();
	char ip[64];

	json_object_set_new(c, "tx_port", json_integer(o->tx_port));
	json_object_set_new(
		c, "rx_port", o->rx_port == GEN_PORT_NONE ? json_null() : json_integer(o->rx_port));
	json_object_set_new(c, "mode", json_string(o->pcap ? "pcap" : "synthetic"));
	if (o->pcap != NULL) {
		json_object_set_new(c, "pcap", json_string(o->pcap));
		json_object_set_new(c, "pcap_frames", json_integer(pi->packets));
		json_object_set_new(c, "pcap_stampable", json_integer(pi->stampable));
		json_object_set_new(c, "loops", json_integer((json_int_t)o->loops));
	} else {
		const struct dp_pkt_spec *b = &o->synth.base;

		json_object_set_new(c, "flows", json_integer(o->synth.flows));
		json_object_set_new(c, "vary",
			json_string(o->synth.vary == DP_PKT_VARY_SPORT   ? "sport"
				    : o->synth.vary == DP_PKT_VARY_SADDR ? "saddr"
									 : "both"));
		json_object_set_new(c, "ip_version", json_integer(o->ipv6 ? 6 : 4));
		json_object_set_new(c, "frame_size", json_integer(t->len + GEN_FCS_BYTES));
		json_object_set_new(c, "udp_payload", json_integer(udp_payload_len(t)));
		if (o->ipv6)
			inet_ntop(AF_INET6, b->dst_ip6, ip, sizeof(ip));
		else
			snprintf(ip, sizeof(ip), "%u.%u.%u.%u", b->dst_ip4 >> 24,
				(b->dst_ip4 >> 16) & 0xff, (b->dst_ip4 >> 8) & 0xff,
				b->dst_ip4 & 0xff);
		json_object_set_new(c, "dst_ip", json_string(ip));
		json_object_set_new(c, "dst_port", json_integer(b->dport));
		json_object_set_new(c, "src_port", json_integer(b->sport));
	}
	json_object_set_new(c, "rate", json_string(o->rate_text));
	json_object_set_new(c, "rate_kind",
		json_string(o->rate.kind == GEN_RATE_PPS ? "pps"
			    : o->rate.kind == GEN_RATE_BPS
				    ? (o->rate_wire ? "bps_wire" : "bps_frame")
				    : "max"));
	json_object_set_new(c, "rate_value", json_real(o->rate.value));
	json_object_set_new(c, "burst", json_integer(o->burst));
	json_object_set_new(c, "duration_s", json_real(o->duration));
	json_object_set_new(c, "warmup_s", json_real(o->warmup));
	json_object_set_new(c, "count", json_integer((json_int_t)o->count));
	json_object_set_new(c, "stamp", json_boolean(o->stamp));
	json_object_set_new(c, "run_id", json_integer(run_id));
	json_object_set_new(c, "seq_window", json_integer((json_int_t)o->seq_window));
	return c;
}

static json_t *
port_json(const struct gen_port *p, const char *role)
{
	struct rte_eth_stats st;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	json_t *o = json_object();

	memset(&st, 0, sizeof(st));
	rte_eth_stats_get(p->id, &st);
	rte_ether_format_addr(mac, sizeof(mac), &p->mac);
	json_object_set_new(o, "port", json_integer(p->id));
	json_object_set_new(o, "role", json_string(role));
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "driver", json_string(p->driver));
	json_object_set_new(o, "profile", json_string(p->profile));
	json_object_set_new(o, "mac", json_string(mac));
	json_object_set_new(o, "ipackets", json_integer((json_int_t)st.ipackets));
	json_object_set_new(o, "opackets", json_integer((json_int_t)st.opackets));
	json_object_set_new(o, "ibytes", json_integer((json_int_t)st.ibytes));
	json_object_set_new(o, "obytes", json_integer((json_int_t)st.obytes));
	json_object_set_new(o, "imissed", json_integer((json_int_t)st.imissed));
	json_object_set_new(o, "ierrors", json_integer((json_int_t)st.ierrors));
	json_object_set_new(o, "oerrors", json_integer((json_int_t)st.oerrors));
	json_object_set_new(o, "rx_nombuf", json_integer((json_int_t)st.rx_nombuf));
	return o;
}

/* The totals on stdout and, with --json, the whole run as JSON. @return the exit status. */
static int
write_results(const struct gen_opts *o, const struct gen_pcap_info *pinfo,
	const struct gen_traffic *tr, const struct gen_port *ports, unsigned int nb_ports,
	struct gen_worker *txw, struct gen_worker *rxw, struct gen_report *rep, const char *reason)
{
	json_t *root = json_object(), *pj = json_array();
	int rc = 0;

	if (root == NULL || pj == NULL) {
		json_decref(root);
		json_decref(pj);
		fprintf(stderr, "dpgen: error: out of memory for the JSON\n");
		return 1;
	}
	json_object_set_new(root, "schema_version", json_integer(1));
	json_object_set_new(root, "dpgen_version", json_string(DP_VERSION));
	json_object_set_new(root, "time_unix", json_real(dp_time_real()));
	json_object_set_new(root, "tsc_hz", json_integer((json_int_t)rte_get_tsc_hz()));
	json_object_set_new(root, "exit_reason", json_string(reason));
	json_object_set_new(root, "config", config_json(o, pinfo, tr->run_id, tr->tmpl));
	json_object_set_new(root, "units",
		json_pack("{s:s, s:s, s:s}", "gbps_frame",
			"Ethernet frame bytes with the 4-byte FCS, x8 / 1e9 per second",
			"gbps_wire", "frame bytes + 20 (preamble, SFD, inter-frame gap)",
			"latency_ns",
			"TSC at receive - TSC stamped at transmit, histogram with < 1% error"));
	json_object_set_new(root, "samples", json_incref(rep->samples));
	json_object_set_new(
		root, "total", gen_report_total(rep, &txw->fin, rxw ? &rxw->fin : NULL));
	json_object_set_new(
		root, "measured", gen_report_measured(rep, &txw->fin, rxw ? &rxw->fin : NULL));
	json_array_append_new(pj, port_json(&ports[0], o->rx_port == o->tx_port ? "tx+rx" : "tx"));
	if (nb_ports == 2)
		json_array_append_new(pj, port_json(&ports[1], "rx"));
	json_object_set_new(root, "ports", pj);
	if (o->json != NULL) {
		rc = gen_report_write(root, o->json);
		if (rc != 0)
			fprintf(stderr, "dpgen: error: cannot write %s: %s\n", o->json,
				strerror(-rc));
		else
			printf("dpgen: JSON: %s\n", o->json);
	}
	json_decref(root);
	return rc == 0 ? 0 : 1;
}

static void
print_port(const struct gen_port *p, const char *role)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(mac, sizeof(mac), &p->mac);
	printf("dpgen: %s port %u %s: driver %s, profile %s, %u rx / %u tx descriptors, MAC %s, "
	       "socket %d\n",
		role, p->id, p->name, p->driver, p->profile, p->rx_desc, p->tx_desc, mac,
		p->socket);
}

int
main(int argc, char **argv)
{
	struct gen_opts o;
	struct gen_pcap_info pinfo;
	struct gen_tmpl synth_tmpl, *tmpl = NULL;
	struct gen_flow *flows = NULL;
	uint32_t nb_tmpl = 0;
	char *eal_argv[MAX_EAL_ARGS], *eal_copy[MAX_EAL_ARGS];
	char prefix[64], err[512];
	int eal_argc, eal_n, i, rc, status = 1;
	struct gen_port ports[2];
	unsigned int nb_ports = 0, nw = 0, lcore;
	struct rte_mempool *pool = NULL;
	struct gen_traffic traffic;
	struct gen_ctl ctl;
	struct gen_worker *txw = NULL, *rxw = NULL, *ws[2] = { NULL, NULL };
	struct gen_report rep;
	bool rep_ok = false;
	const char *reason = "signal";
	uint64_t t0;
	uint32_t max_frame;

	memset(&synth_tmpl, 0, sizeof(synth_tmpl));
	memset(&pinfo, 0, sizeof(pinfo));
	/* split at "--": EAL arguments before, ours after; no "--": all ours */
	eal_argc = dp_args_eal_end(argc, argv);
	if (dp_args_wants_help(eal_argc, argv)) {
		gen_args_usage(stdout);
		return 0;
	}
	if (eal_argc == argc) {
		rc = gen_args_parse(argc, argv, &o);
		eal_argc = 1;
	} else {
		char *app_argv[MAX_EAL_ARGS];
		int n = 0;

		app_argv[n++] = argv[0];
		for (i = eal_argc + 1; i < argc && n < MAX_EAL_ARGS; i++)
			app_argv[n++] = argv[i];
		rc = gen_args_parse(n, app_argv, &o);
	}
	if (rc != 0)
		return rc > 0 ? 0 : 2;

	/* a wrong pcap costs nothing yet: read it before EAL */
	if (o.pcap != NULL) {
		rc = gen_pcap_load(o.pcap, o.src_mac_set ? o.src_mac : NULL,
			o.dst_mac_set ? o.dst_mac : NULL, &tmpl, &pinfo, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "dpgen: error: --pcap %s\n", err);
			return 2;
		}
		nb_tmpl = pinfo.packets;
		if (pinfo.oversize)
			fprintf(stderr, "dpgen: warning: %u frames above %u bytes skipped\n",
				pinfo.oversize, GEN_FRAME_MAX);
		if (o.loops != 0)
			o.count = o.loops * nb_tmpl;
	}

	eal_n = eal_args(eal_argc, argv, eal_argv, MAX_EAL_ARGS, prefix, sizeof(prefix));
	if (eal_n < 0) {
		fprintf(stderr, "dpgen: error: too many EAL arguments\n");
		gen_pcap_free(tmpl, nb_tmpl);
		return 2;
	}
	/* rte_eal_init permutes argv: give it a copy, keep ours to free */
	memcpy(eal_copy, eal_argv, sizeof(char *) * (size_t)eal_n);
	rc = rte_eal_init(eal_n, eal_copy);
	if (rc < 0) {
		fprintf(stderr,
			"dpgen: error: EAL init failed: %s\n"
			"  hugepages: grep Huge /proc/meminfo; reserve some (echo 512 > "
			"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages) or pass\n"
			"  --no-huge -m 512\n"
			"  lcores: -l must name CPUs of this machine; ports: check the --vdev/-a "
			"strings; permissions: run as root\n",
			rte_strerror(rte_errno));
		runtime_dir_remove(prefix);
		goto free_args;
	}
	/* at least one worker: the main lcore reports, workers poll */
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (nw < 2)
			ws[nw] = rte_zmalloc_socket("gen_worker", sizeof(struct gen_worker),
				RTE_CACHE_LINE_SIZE, (int)rte_lcore_to_socket_id(lcore));
		if (nw < 2 && ws[nw] != NULL)
			ws[nw]->lcore = lcore;
		nw++;
	}
	if (nw == 0) {
		fprintf(stderr, "dpgen: error: one lcore only; dpgen needs a worker lcore besides "
				"the main one: -l 0,1 (or -l 0,1,2 for TX and RX on their own)\n");
		status = 2;
		goto cleanup_eal;
	}
	if (nw > 2)
		nw = 2;
	if (ws[0] == NULL || (nw == 2 && ws[1] == NULL)) {
		fprintf(stderr, "dpgen: error: out of memory for the workers\n");
		goto free_workers;
	}

	/* ports */
	max_frame = o.pcap ? pinfo.max_len
			   : (o.payload_set ? o.payload + (o.ipv6 ? 62u : 42u)
					    : o.frame_size - GEN_FCS_BYTES);
	if (max_frame < DP_PKT_MIN_CAPLEN)
		max_frame = DP_PKT_MIN_CAPLEN;
	rc = gen_port_probe(
		&ports[0], (uint16_t)o.tx_port, max_frame, o.drivers_cfg, err, sizeof(err));
	nb_ports = rc == 0;
	if (rc == 0 && o.rx_port != GEN_PORT_NONE && o.rx_port != o.tx_port) {
		rc = gen_port_probe(
			&ports[1], (uint16_t)o.rx_port, max_frame, o.drivers_cfg, err, sizeof(err));
		nb_ports += rc == 0;
	}
	if (rc != 0) {
		fprintf(stderr, "dpgen: error: %s\n", err);
		status = rc == -ENODEV ? 2 : 1;
		goto free_workers;
	}
	{
		/* one per descriptor, plus software ports' rings and bursts in flight */
		uint64_t need = 2048 + 4 * GEN_BURST_MAX + POOL_CACHE * 3 / 2 * (nw + 1);
		uint32_t room = RTE_PKTMBUF_HEADROOM +
				RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_DATAROOM, max_frame);
		uint32_t n;
		unsigned int p;

		for (p = 0; p < nb_ports; p++)
			need += (uint64_t)ports[p].rx_desc + ports[p].tx_desc;
		n = next_pow2_minus1(need);
		pool = rte_pktmbuf_pool_create(
			"dpgen_pool", n, POOL_CACHE, 0, (uint16_t)room, ports[0].socket);
		if (pool == NULL) {
			fprintf(stderr,
				"dpgen: error: cannot create %u mbufs of %u bytes: %s (more "
				"memory: "
				"reserve hugepages, or a larger -m with --no-huge)\n",
				n, room, rte_strerror(rte_errno));
			goto free_workers;
		}
	}
	for (i = 0; i < (int)nb_ports; i++) {
		rc = gen_port_start(&ports[i], pool, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "dpgen: error: %s\n", err);
			goto close_ports;
		}
	}
	print_port(&ports[0], o.rx_port == o.tx_port ? "tx+rx" : "tx");
	if (nb_ports == 2)
		print_port(&ports[1], "rx");

	/* what to send */
	if (o.pcap == NULL) {
		static const uint8_t def_dst[6] = { 0x02, 0, 0, 0, 0, 0x02 };
		const struct gen_port *rxp = o.rx_port == GEN_PORT_NONE ? NULL
					     : o.rx_port == o.tx_port   ? &ports[0]
									: &ports[1];

		memcpy(o.synth.base.src_mac, o.src_mac_set ? o.src_mac : ports[0].mac.addr_bytes,
			6);
		memcpy(o.synth.base.dst_mac,
			o.dst_mac_set ? o.dst_mac
			: rxp         ? rxp->mac.addr_bytes
				      : def_dst,
			6);
		rc = gen_synth_build(&o.synth, o.stamp, &synth_tmpl, &flows);
		if (rc != 0) {
			fprintf(stderr, "dpgen: error: cannot build the frames: %s\n",
				strerror(-rc));
			status = rc == -EINVAL ? 2 : 1;
			goto close_ports;
		}
		tmpl = &synth_tmpl;
		nb_tmpl = 1;
	}
	memset(&traffic, 0, sizeof(traffic));
	traffic.tmpl = tmpl;
	traffic.nb_tmpl = nb_tmpl;
	traffic.flows = flows;
	traffic.nb_flows = flows ? o.synth.flows : 0;
	traffic.stamp = o.stamp;
	/* never 0, so that a zeroed payload is never taken for a stamp of this run */
	traffic.run_id = (uint16_t)(rte_rand() % 0xffff + 1);

	/* workers: TX on the first, RX on the second if there is one */
	memset(&ctl, 0, sizeof(ctl));
	txw = ws[0];
	if (o.rx_port != GEN_PORT_NONE)
		rxw = nw == 2 ? ws[1] : ws[0];
	if (rxw != ws[1])
		nw = 1;
	for (i = 0; i < (int)nw; i++) {
		struct gen_worker *w = ws[i];

		w->ctl = &ctl;
		w->burst = o.burst;
		w->pool = pool;
		w->traffic = &traffic;
		w->do_tx = w == txw;
		w->do_rx = w == rxw;
		w->tx_port = (uint16_t)o.tx_port;
		w->rx_port = (uint16_t)(o.rx_port == GEN_PORT_NONE ? 0 : o.rx_port);
		w->rate = o.rate;
		w->rate_wire = o.rate_wire;
		w->catchup_us = o.catchup_us;
		w->tx_limit = o.count;
		rc = gen_worker_init(w, o.seq_window);
		if (rc != 0) {
			fprintf(stderr, "dpgen: error: worker on lcore %u: %s\n", w->lcore,
				rc == -ERANGE ? "rate out of range" : strerror(-rc));
			while (--i >= 0)
				gen_worker_free(ws[i]);
			goto free_traffic;
		}
	}
	{
		char r[64];

		gen_rate_spec_str(&o.rate, r, sizeof(r));
		if (o.pcap != NULL)
			printf("dpgen: replaying %s: %u frames (%u stampable), %" PRIu64
			       " bytes, %s%s, on port %d from lcore %u\n",
				o.pcap, pinfo.packets, o.stamp ? pinfo.stampable : 0, pinfo.bytes,
				r, o.rate_wire ? " (wire)" : "", o.tx_port, txw->lcore);
		else
			printf("dpgen: sending %u flow%s of %u-byte IPv%d/UDP frames "
			       "(%u B payload, vary %s), %s%s, on port %d from lcore %u\n",
				o.synth.flows, o.synth.flows > 1 ? "s" : "",
				synth_tmpl.len + GEN_FCS_BYTES, o.ipv6 ? 6 : 4,
				udp_payload_len(&synth_tmpl),
				o.synth.vary == DP_PKT_VARY_SPORT   ? "sport"
				: o.synth.vary == DP_PKT_VARY_SADDR ? "saddr"
								    : "sport+saddr",
				r, o.rate_wire ? " (wire)" : "", o.tx_port, txw->lcore);
		if (rxw != NULL)
			printf("dpgen: receiving on port %d from lcore %u; run id %u\n", o.rx_port,
				rxw->lcore, traffic.run_id);
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = rte_rdtsc();
	if (gen_report_init(&rep, (double)rte_get_tsc_hz(), t0, true, rxw != NULL, o.quiet) != 0) {
		fprintf(stderr, "dpgen: error: out of memory\n");
		goto free_workers_state;
	}
	rep_ok = true;
	gen_report_set_warmup(&rep, o.warmup);
	gen_report_legend(&rep);
	rc = unmap_guard_on(ports, nb_ports, ws, nw, &ctl.qsv);
	if (rc != 0) {
		fprintf(stderr, "dpgen: error: cannot set up the memif unmap guard: %s\n",
			strerror(-rc));
		goto free_workers_state;
	}
	for (i = 0; i < (int)nw; i++) {
		rc = rte_eal_remote_launch(gen_worker_main, ws[i], ws[i]->lcore);
		if (rc != 0) {
			fprintf(stderr, "dpgen: error: cannot launch lcore %u: %s\n", ws[i]->lcore,
				strerror(-rc));
			__atomic_store_n(&ctl.stop_tx, true, __ATOMIC_RELEASE);
			__atomic_store_n(&ctl.stop_rx, true, __ATOMIC_RELEASE);
			rte_eal_mp_wait_lcore();
			unmap_guard_off(ctl.qsv);
			goto free_workers_state;
		}
	}
	reason = run_until_stop(&o, &ctl, ws, nw, txw, rxw, &rep, t0);
	unmap_guard_off(ctl.qsv);

	/* the last, partial, interval and the totals; losses settled first */
	if (rxw != NULL) {
		gen_seq_finish(&rxw->seq, txw->fin.tx_stamped);
		rxw->fin.seq = rxw->seq.c;
		if (rxw == txw)
			txw->fin.seq = rxw->seq.c;
	}
	gen_report_interval(
		&rep, &txw->fin, rxw ? &rxw->fin : NULL, rxw ? rxw->hist[rxw->epoch & 1] : NULL);
	status = write_results(&o, &pinfo, &traffic, ports, nb_ports, txw, rxw, &rep, reason);
	if (o.hold_s > 0) {
		/*
		 * The lcores have stopped; the ports stay open so that a memif peer can stop
		 * first: DPDK 22.11's memif unmaps the shared rings when the peer disconnects,
		 * under the feet of a worker still polling them.
		 */
		unsigned int waited;

		printf("dpgen: holding the ports open for %u s or until SIGINT/SIGTERM\n",
			o.hold_s);
		fflush(stdout);
		got_signal = 0;
		for (waited = 0; waited < o.hold_s * 100 && !got_signal; waited++)
			sleep_ms(10);
	}

free_workers_state:
	if (rep_ok)
		gen_report_free(&rep);
	for (i = 0; i < (int)nw; i++)
		gen_worker_free(ws[i]);
free_traffic:
	free(flows);
	gen_tmpl_free(&synth_tmpl);
	if (o.pcap != NULL) {
		gen_pcap_free(tmpl, nb_tmpl);
		tmpl = NULL;
	}
close_ports:
	for (i = 0; i < (int)nb_ports; i++)
		gen_port_close(&ports[i]);
	rte_mempool_free(pool);
free_workers:
	rte_free(ws[0]);
	rte_free(ws[1]);
cleanup_eal:
	rte_eal_cleanup();
	runtime_dir_remove(prefix);
free_args:
	if (o.pcap != NULL)
		gen_pcap_free(tmpl, nb_tmpl);
	for (i = 0; i < eal_n; i++)
		free(eal_argv[i]);
	return status;
}
