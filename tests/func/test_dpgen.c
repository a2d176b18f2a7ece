/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Functional tests of the dpgen binary on DPDK virtual ports (no NIC):
 *
 *   --vdev net_ring0             loopback: what port 0 sends, port 0 receives
 *   --vdev net_null0             a sink, for the rate
 *   --vdev net_pcap0,tx_pcap=F   what dpgen sent, byte by byte, for the pcap replay
 *
 * dpgen runs as a child (fork/exec, always reaped, SIGKILLed after a timeout)
 * with "--no-huge -m 512" and its own default --file-prefix dpgen-<pid>; each
 * test checks the exit status, the JSON it wrote, and that the EAL runtime
 * folder of that prefix is gone afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <jansson.h>
#include <pcap/pcap.h>

#include "dp_pkt_craft.h"
#include "dp_test.h"

#define RUN_TIMEOUT_S 20.0
#define STAMP_OFF     42 /* Ethernet + IPv4 + UDP */

static const char *dpgen_bin;
static char tmpdir[] = "/tmp/dpgen-func-XXXXXX";

struct run {
	int status;
	bool timed_out;
	pid_t pid;
	char out[256];
	char err[256];
};

/* A file's text, "" when there is none */
static char *
slurp(const char *path)
{
	char *buf = dp_test_read_file(path);

	return buf ? buf : strdup("");
}

/*
 * Run dpgen with @p args (NULL-terminated, without argv[0]). With @p term_after
 * > 0, send SIGTERM after that many seconds.
 */
static void
run_dpgen(struct run *r, const char *name, const char *const *args, double term_after)
{
	const char *argv[64];
	bool termed = false;
	int argc = 0;
	double t0;

	memset(r, 0, sizeof(*r));
	snprintf(r->out, sizeof(r->out), "%s/%s.out", tmpdir, name);
	snprintf(r->err, sizeof(r->err), "%s/%s.err", tmpdir, name);
	argv[argc++] = dpgen_bin;
	while (*args != NULL && argc < 63)
		argv[argc++] = *args++;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	t0 = dp_test_now_s();
	r->pid = fork();
	if (r->pid < 0) {
		r->status = -1;
		return;
	}
	if (r->pid == 0) {
		int fo = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(r->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0 || dup2(fo, STDOUT_FILENO) < 0 || dup2(fe, STDERR_FILENO) < 0)
			_exit(126);
		execv(dpgen_bin, (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(r->pid, &r->status, WNOHANG);
		double t = dp_test_now_s() - t0;

		if (w == r->pid)
			break;
		if (w < 0 && errno != EINTR) {
			r->status = -1;
			break;
		}
		if (term_after > 0 && !termed && t >= term_after) {
			kill(r->pid, SIGTERM);
			termed = true;
		}
		if (t > RUN_TIMEOUT_S) {
			kill(r->pid, SIGKILL);
			while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
				;
			r->timed_out = true;
			break;
		}
		dp_test_sleep_s(0.02);
	}
}

static bool
exited(const struct run *r, int code)
{
	bool ok = !r->timed_out && r->status != -1 && WIFEXITED(r->status) &&
		  WEXITSTATUS(r->status) == code;

	if (!ok) {
		char *out = slurp(r->out), *err = slurp(r->err);

		fprintf(stderr,
			"\ndpgen status 0x%x (expected exit %d)%s\n---- stdout ----\n%s"
			"---- stderr ----\n%s----\n",
			r->status, code, r->timed_out ? ", timed out" : "", out, err);
		free(out);
		free(err);
	}
	return ok;
}

/* The EAL runtime folder of the child's default prefix must be gone. */
static void
check_runtime_dir_removed(const struct run *r)
{
	char dir[128];
	struct stat st;

	snprintf(dir, sizeof(dir), "/var/run/dpdk/dpgen-%d", (int)r->pid);
	CU_ASSERT(stat(dir, &st) != 0);
}

static json_t *
json_load(const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);

	if (j == NULL)
		fprintf(stderr, "%s: %s (line %d)\n", path, e.text, e.line);
	return j;
}

static double
jnum(json_t *root, const char *path)
{
	char buf[256], *save = NULL, *k;
	json_t *v = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k != NULL && v != NULL; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	if (!json_is_number(v)) {
		fprintf(stderr, "JSON: %s is not a number\n", path);
		return NAN;
	}
	return json_number_value(v);
}

static const char *
jstr(json_t *root, const char *key)
{
	const char *s = json_string_value(json_object_get(root, key));

	return s ? s : "";
}

static void
test_dpgen_help_lists_every_option(void)
{
	static const char *const opts[] = { "--tx-port", "--rx-port", "--flows", "--vary",
		"--frame-size", "--payload", "--ipv6", "--src-ip", "--dst-ip", "--src-port",
		"--dst-port", "--src-mac", "--dst-mac", "--ttl", "--pcap", "--loops", "--rate",
		"--rate-wire", "--catchup-us", "--burst", "--no-stamp", "--seq-window",
		"--duration", "--count", "--drain-ms", "--json", "--quiet", "--drivers-cfg",
		"--help", "--version", "--no-huge", "--in-memory", "--file-prefix", "Exit status",
		NULL };
	struct run r;
	char *out;
	unsigned int i;

	run_dpgen(&r, "help", (const char *const[]){ "--help", NULL }, 0);
	CU_ASSERT_FATAL(exited(&r, 0));
	out = slurp(r.out);
	for (i = 0; opts[i] != NULL; i++)
		if (strstr(out, opts[i]) == NULL) {
			fprintf(stderr, "--help does not mention %s\n", opts[i]);
			CU_FAIL("option missing from --help");
		}
	free(out);
	run_dpgen(&r, "version", (const char *const[]){ "--", "--version", NULL }, 0);
	CU_ASSERT(exited(&r, 0));
}

static void
test_dpgen_bad_arguments_exit_2_with_a_message(void)
{
	static const struct {
		const char *args[8];
		const char *says;
	} cases[] = {
		{ { "--", "--rate", "fast", NULL }, "--rate" },
		{ { "--", "--frame-size", "10", NULL }, "--frame-size" },
		{ { "--", "--src-ip", "10.1.1.1", NULL }, "198.18.0.0/15" },
		{ { "--", "--bogus", NULL }, "unknown option" },
		{ { "--", "--pcap", "/nonexistent/in.pcap", NULL }, "/nonexistent/in.pcap" },
		{ { "--", "--payload", "4", NULL }, "stamp" },
		/* EAL starts, the port does not exist */
		{ { "--no-huge", "-m", "512", "--", "--tx-port", "3", NULL },
			"port 3 does not exist" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;
		char *err;

		run_dpgen(&r, "bad", cases[i].args, 0);
		CU_ASSERT(exited(&r, 2));
		err = slurp(r.err);
		if (strstr(err, cases[i].says) == NULL) {
			fprintf(stderr, "stderr does not say '%s':\n%s\n", cases[i].says, err);
			CU_FAIL("unclear error message");
		}
		free(err);
		check_runtime_dir_removed(&r);
	}
}

static void
test_dpgen_loopback_json_no_loss_and_rate(void)
{
	char json[256];
	struct run r;
	json_t *j, *samples, *s;
	double sent, pps;
	size_t i;

	snprintf(json, sizeof(json), "%s/loop.json", tmpdir);
	run_dpgen(&r, "loop",
		(const char *const[]){ "--no-huge", "-m", "512", "--vdev", "net_ring0", "--",
			"--tx-port", "0", "--rx-port", "0", "--flows", "100", "--vary", "both",
			"--src-ip", "198.18.0.0/24", "--rate", "1Mpps", "--catchup-us", "100000",
			"--duration", "2", "--json", json, NULL },
		0);
	CU_ASSERT_FATAL(exited(&r, 0));
	check_runtime_dir_removed(&r);
	j = json_load(json);
	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT_STRING_EQUAL(jstr(j, "exit_reason"), "duration");
	sent = jnum(j, "total.seq.sent");
	pps = jnum(j, "total.tx.pps");
	printf("\n    loopback 1 Mpps: sent %.0f, %.4f Mpps, latency p50 %.0f ns p99 %.0f ns", sent,
		pps / 1e6, jnum(j, "total.latency_ns.p50"), jnum(j, "total.latency_ns.p99"));
	CU_ASSERT(sent > 1.5e6);
	CU_ASSERT_EQUAL(jnum(j, "total.tx.pkts"), sent);
	CU_ASSERT_EQUAL(jnum(j, "total.rx.pkts"), sent);
	CU_ASSERT_EQUAL(jnum(j, "total.rx.stamped"), sent);
	CU_ASSERT_EQUAL(jnum(j, "total.seq.received"), sent);
	CU_ASSERT_EQUAL(jnum(j, "total.seq.lost"), 0);
	CU_ASSERT_EQUAL(jnum(j, "total.seq.reordered"), 0);
	CU_ASSERT_EQUAL(jnum(j, "total.seq.duplicates"), 0);
	CU_ASSERT_EQUAL(jnum(j, "total.seq.late"), 0);
	CU_ASSERT_EQUAL(jnum(j, "total.latency_ns.count"), sent);
	CU_ASSERT(jnum(j, "total.latency_ns.p50") <= jnum(j, "total.latency_ns.p90"));
	CU_ASSERT(jnum(j, "total.latency_ns.p90") <= jnum(j, "total.latency_ns.p99"));
	CU_ASSERT(jnum(j, "total.latency_ns.p99") <= jnum(j, "total.latency_ns.p99_9"));
	CU_ASSERT(jnum(j, "total.latency_ns.p99_9") <= jnum(j, "total.latency_ns.max"));
	/* 64-byte frames: 512 bits each counted as frames, 672 on the wire */
	CU_ASSERT(fabs(pps / 1e6 - 1) < 0.01);
	CU_ASSERT(fabs(jnum(j, "total.tx.gbps_frame") - pps * 512 / 1e9) < 1e-6);
	CU_ASSERT(fabs(jnum(j, "total.tx.gbps_wire") - pps * 672 / 1e9) < 1e-6);
	samples = json_object_get(j, "samples");
	CU_ASSERT(json_array_size(samples) >= 2);
	json_array_foreach(samples, i, s)
	{
		CU_ASSERT(json_is_number(json_object_get(s, "tx_pps")));
		CU_ASSERT(json_is_number(json_object_get(s, "rx_gbps_wire")));
		CU_ASSERT_EQUAL(jnum(s, "lost"), 0);
	}
	/* the first full second carries latencies */
	CU_ASSERT(jnum(json_array_get(samples, 0), "latency_ns.count") > 0);
	json_decref(j);
}

/*
 * The rate asked of dpgen on net_null, whose accuracy is checked (1 %): 12 Mpps,
 * except in the sanitizers' build, whose dpgen cannot always send that much on
 * a 2-core VM: there a rate it reaches, so that what fails is the rate
 * control, not the machine.
 */
#ifdef __SANITIZE_ADDRESS__
#define NULL_RATE "3Mpps"
#define NULL_PPS  3e6
#else
#define NULL_RATE "12Mpps"
#define NULL_PPS  12e6
#endif

static void
test_dpgen_12mpps_offered_load_on_net_null(void)
{
	char json[256];
	struct run r;
	json_t *j;
	double pps;

	snprintf(json, sizeof(json), "%s/null.json", tmpdir);
	run_dpgen(&r, "null",
		(const char *const[]){ "--no-huge", "-m", "512", "--vdev", "net_null0", "--",
			"--tx-port", "0", "--flows", "2000", "--rate", NULL_RATE, "--catchup-us",
			"100000", "--duration", "2", "--json", json, "--quiet", NULL },
		0);
	CU_ASSERT_FATAL(exited(&r, 0));
	j = json_load(json);
	CU_ASSERT_FATAL(j != NULL);
	pps = jnum(j, "total.tx.pps");
	printf("\n    %s on net_null: %.4f Mpps, %.3f Gbps frame, %.3f Gbps wire", NULL_RATE,
		pps / 1e6, jnum(j, "total.tx.gbps_frame"), jnum(j, "total.tx.gbps_wire"));
	CU_ASSERT(fabs(pps / NULL_PPS - 1) < 0.01);
	/* the port counted what dpgen counted */
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(
				json_array_get(json_object_get(j, "ports"), 0), "opackets")),
		(json_int_t)jnum(j, "total.tx.pkts"));
	json_decref(j);
}

static void
write_input_pcap(const char *path, uint8_t frames[10][2048], size_t lens[10])
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = pcap_dump_open(p, path);
	struct dp_pkt_spec s;
	unsigned int i;

	CU_ASSERT_FATAL(d != NULL);
	for (i = 0; i < 10; i++) {
		struct pcap_pkthdr h;

		dp_pkt_spec_init(&s);
		s.frame_len = 0;
		s.payload_len = 100 + 70 * i;
		s.sport = (uint16_t)(1000 + i);
		s.flow_id = i;
		if (i == 4) {
			CU_ASSERT_FATAL(dp_pkt_build_arp(&s, frames[i], 2048, &lens[i]) == 0);
		} else if (i == 7) {
			s.payload_len = 4; /* no room for a stamp */
			CU_ASSERT_FATAL(dp_pkt_build(&s, frames[i], 2048, &lens[i]) == 0);
		} else {
			CU_ASSERT_FATAL(dp_pkt_build(&s, frames[i], 2048, &lens[i]) == 0);
		}
		memset(&h, 0, sizeof(h));
		h.caplen = h.len = (bpf_u_int32)lens[i];
		pcap_dump((u_char *)d, &h, frames[i]);
	}
	pcap_dump_close(d);
	pcap_close(p);
}

static void
test_dpgen_pcap_replay_loops_rewrites_mac_and_stamps(void)
{
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x99 };
	static uint8_t frames[10][2048];
	char in[256], out[256], vdev[600], json[256], ebuf[PCAP_ERRBUF_SIZE];
	size_t lens[10];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t seq = 0;
	unsigned int n = 0;
	struct run r;
	pcap_t *p;
	json_t *j;

	snprintf(in, sizeof(in), "%s/in.pcap", tmpdir);
	snprintf(out, sizeof(out), "%s/out.pcap", tmpdir);
	snprintf(json, sizeof(json), "%s/pcap.json", tmpdir);
	snprintf(vdev, sizeof(vdev), "net_pcap0,tx_pcap=%s", out);
	write_input_pcap(in, frames, lens);
	run_dpgen(&r, "pcap",
		(const char *const[]){ "--no-huge", "-m", "512", "--vdev", vdev, "--", "--tx-port",
			"0", "--pcap", in, "--loops", "3", "--dst-mac", "02:00:00:00:00:99",
			"--json", json, NULL },
		0);
	CU_ASSERT_FATAL(exited(&r, 0));
	j = json_load(json);
	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT_STRING_EQUAL(jstr(j, "exit_reason"), "loops");
	CU_ASSERT_EQUAL(jnum(j, "total.tx.pkts"), 30);
	CU_ASSERT_EQUAL(jnum(j, "total.tx.stamped"), 24);
	json_decref(j);

	/* what went out: the file 3 times over, in order, MAC rewritten, UDP stamped */
	p = pcap_open_offline(out, ebuf);
	CU_ASSERT_FATAL(p != NULL);
	while (pcap_next_ex(p, &h, &data) == 1) {
		unsigned int i = n % 10;

		n++;
		if (h->caplen != lens[i]) {
			CU_FAIL("frame length changed");
			continue;
		}
		CU_ASSERT(memcmp(data, dmac, 6) == 0);
		CU_ASSERT(memcmp(data + 6, frames[i] + 6, 6) == 0);
		if (i == 4 || i == 7) {
			/* ARP and the short UDP frame: as captured */
			CU_ASSERT(memcmp(data + 12, frames[i] + 12, lens[i] - 12) == 0);
			continue;
		}
		/* seq in bytes 6..11 of the stamp, 0, 1, 2, ... */
		CU_ASSERT(data[STAMP_OFF] == 0x64 && data[STAMP_OFF + 1] == 0x70);
		CU_ASSERT(data[STAMP_OFF + 11] == (uint8_t)seq && data[STAMP_OFF + 10] == 0);
		seq++;
		CU_ASSERT(dp_pkt_udp_cksum_ok(data, h->caplen));
		CU_ASSERT(memcmp(data + STAMP_OFF + 18, frames[i] + STAMP_OFF + 18,
				  lens[i] - STAMP_OFF - 18) == 0);
	}
	pcap_close(p);
	CU_ASSERT_EQUAL(n, 30);
	CU_ASSERT_EQUAL(seq, 24);
}

static void
test_dpgen_sigterm_stops_cleanly_with_final_json(void)
{
	char json[256];
	struct run r;
	json_t *j;

	snprintf(json, sizeof(json), "%s/term.json", tmpdir);
	run_dpgen(&r, "term",
		(const char *const[]){ "--no-huge", "-m", "512", "--vdev", "net_ring0", "--",
			"--tx-port", "0", "--rx-port", "0", "--rate", "100kpps", "--json", json,
			NULL },
		1.5);
	CU_ASSERT_FATAL(exited(&r, 0));
	check_runtime_dir_removed(&r);
	j = json_load(json);
	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT_STRING_EQUAL(jstr(j, "exit_reason"), "signal");
	CU_ASSERT(jnum(j, "total.seq.sent") > 0);
	CU_ASSERT_EQUAL(jnum(j, "total.seq.lost"), 0);
	CU_ASSERT_EQUAL(jnum(j, "total.seq.received"), jnum(j, "total.seq.sent"));
	json_decref(j);
}

static int
rm_tree(void)
{
	char cmd[128];

	if (getenv("DPGEN_KEEP") != NULL) {
		printf("kept %s\n", tmpdir);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int
suite_init(void)
{
	dpgen_bin = getenv("DPGEN_BIN");
	if (dpgen_bin == NULL || access(dpgen_bin, X_OK) != 0) {
		fprintf(stderr, "DPGEN_BIN must name the dpgen binary (meson test sets it)\n");
		return -1;
	}
	return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static const struct dp_test tests[] = {
	{ "test_dpgen_help_lists_every_option", test_dpgen_help_lists_every_option },
	{ "test_dpgen_bad_arguments_exit_2_with_a_message",
		test_dpgen_bad_arguments_exit_2_with_a_message },
	{ "test_dpgen_loopback_json_no_loss_and_rate", test_dpgen_loopback_json_no_loss_and_rate },
	{ "test_dpgen_12mpps_offered_load_on_net_null",
		test_dpgen_12mpps_offered_load_on_net_null },
	{ "test_dpgen_pcap_replay_loops_rewrites_mac_and_stamps",
		test_dpgen_pcap_replay_loops_rewrites_mac_and_stamps },
	{ "test_dpgen_sigterm_stops_cleanly_with_final_json",
		test_dpgen_sigterm_stops_cleanly_with_final_json },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("dpgen", tests, suite_init, rm_tree);
}
