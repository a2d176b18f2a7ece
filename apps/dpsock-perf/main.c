/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpsock-perf: libdpsock against Linux sockets and raw shared memory, in one run.
 *
 *   dpsock-perf [--sizes LIST] [--transports LIST] [--mode auto|spin|block|both]
 *               [--iters N] [--warmup N] [--pp-max S] [--duration S] [--batch N]
 *               [--cpus A,B] [--dpsock PATH] [--local-addr ADDR] [--remote ADDR:PORT]
 *               [--sndbuf BYTES] [--breakdown] [--quick] [--timeout S] [--json FILE]
 *   dpsock-perf --tx-stream ADDR:PORT [--tx-size BYTES] [--duration S] [--zc] ...
 *
 * For each transport (perf_transport.c) and message size: ping-pong RTT (p50/p99
 * over the measured round trips, less than 1/128 high: perf.h) and streaming
 * throughput (msgs/s and Gbps of payload at the receiver), in two processes
 * pinned to two CPUs. Every received byte is checked; a message that fails the
 * check fails the run.
 *
 * dpsock transports need a dpfwd with an [endpoint] section (dpsock-perf does
 * not start one: dpbench.py dpsock does); without one they are skipped with a note.
 *
 * Exit status: 0 every test ran or was skipped; 1 a test failed (an error, a
 * timeout or a message that failed its check); 2 bad command line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/wait.h>

#include "dpsock.h"
#include "perf_report.h"
#include "perf_tx.h"

#define EXIT_USAGE      2
#define MAX_SIZES       32
#define MAX_CELLS       512
#define DEFAULT_LOCAL   "198.18.0.1"
#define TX_DEFAULT_SIZE (63u * 1024u)

static const size_t default_sizes[] = { 8, 64, 512, 1024, 4096, 16384, 65536, 262144, 1048576 };

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: dpsock-perf [options]\n"
		"  --sizes LIST        message sizes, e.g. 8,64,1K,64K,1M (default "
		"8,64,512,1K,4K,16K,64K,256K,1M)\n"
		"  --transports LIST   dpsock-local,dpsock-zc,udp-loopback,unix-dgram,shm-spin "
		"(default all);\n"
		"                      dpsock-remote alone: only --remote's cells\n"
		"  --mode M            auto (dpsock spin, Linux sockets block), spin, block, both\n"
		"  --iters N           measured ping-pong round trips per size (default 10000)\n"
		"  --warmup N          round trips before measuring (default 1000)\n"
		"  --pp-max S          ping-pong seconds at most per size (default 2)\n"
		"  --duration S        streaming seconds per size (default 1; 0: no streaming)\n"
		"  --batch N           messages per call while streaming (default 32)\n"
		"  --cpus A,B          the two processes' CPUs (default 0,1)\n"
		"  --dpsock PATH       dpfwd's endpoint socket (default $DPSOCK_PATH, else %s)\n"
		"  --local-addr ADDR   dpfwd address dpsock endpoints bind (default %s)\n"
		"  --remote ADDR:PORT  also dpsock-remote: RTT against a UDP echo peer there\n"
		"  --sndbuf BYTES      Linux sockets' SO_SNDBUF/SO_RCVBUF (default 4194304)\n"
		"  --breakdown         also the per-operation latency breakdown\n"
		"  --quick             fewer sizes and shorter runs (a smoke test)\n"
		"  --timeout S         per test, then its processes are killed (default 60)\n"
		"  --json FILE         write everything as JSON ('-': stdout)\n"
		"  --tx-stream ADDR:PORT  only stream datagrams there through dpfwd (JSON line)\n"
		"  --tx-size BYTES     with --tx-stream (default %u)\n"
		"  --zc                with --tx-stream: zero-copy sends\n",
		DPSOCK_DEFAULT_PATH, DEFAULT_LOCAL, TX_DEFAULT_SIZE);
}

static int
parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno != 0)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		v *= 1024, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1024 * 1024, end++;
	if (*end != '\0' || v < PERF_MIN_SIZE || v > PERF_MAX_SIZE)
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

static int
parse_sizes(const char *arg, size_t *sizes, unsigned int *n)
{
	char buf[512], *save = NULL, *tok;
	size_t len = strlen(arg);

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, arg, len + 1);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_SIZES || parse_size(tok, &sizes[*n]) < 0)
			return -EINVAL;
		(*n)++;
	}
	return *n ? 0 : -EINVAL;
}

static int
parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len, bool want_port)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	unsigned long port = 0;
	size_t hl = want_port && colon ? (size_t)(colon - s) : strlen(s);

	if (hl == 0 || hl >= sizeof(host) || (want_port && colon == NULL))
		return -EINVAL;
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (want_port) {
		char *end;

		port = strtoul(colon + 1, &end, 10);
		if (*end != '\0' || port == 0 || port > 65535)
			return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	in->sin_family = AF_INET;
	in->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return -EINVAL;
	*len = sizeof(*in);
	return 0;
}

static bool
block_auto(const struct perf_transport *t)
{
	return t->default_mode == PERF_MODE_BLOCK;
}

/* Can we open and bind an endpoint? In a child: the library's state stays out of here. */
static bool
dpsock_probe(const struct perf_opts *o, char *why, size_t len)
{
	int p[2], ws = 0, err = 0;
	pid_t pid;

	if (pipe(p) < 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return false;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct dpsock *ds = dpsock_open(o->dpsock_path, AF_INET, DPSOCK_NONBLOCK);
		int rc = ds ? dpsock_bind(ds, (const struct sockaddr *)&o->local, o->local_len)
			    : -errno;

		if (ds != NULL)
			dpsock_close(ds);
		rc = -rc;
		if (write(p[1], &rc, sizeof(rc)) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &err, sizeof(err)) != sizeof(err))
		err = EIO;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &ws, 0);
	if (err == 0)
		return true;
	if (err == ENOENT || err == ECONNREFUSED)
		snprintf(why, len,
			"no dpfwd listening at %s (%s): start dpfwd with an [endpoint] section, "
			"e.g. "
			"python3 apps/dpbench/dpbench.py dpsock",
			o->dpsock_path ? o->dpsock_path
				       : (getenv("DPSOCK_PATH") ? getenv("DPSOCK_PATH")
								: DPSOCK_DEFAULT_PATH),
			strerror(err));
	else if (err == EADDRNOTAVAIL)
		snprintf(why, len, "dpfwd has no address %s (--local-addr): %s", "given",
			strerror(err));
	else
		snprintf(why, len, "dpsock endpoint: %s", strerror(err));
	return false;
}

int
main(int argc, char **argv)
{
	enum {
		O_SIZES = 256,
		O_TRANSPORTS,
		O_MODE,
		O_ITERS,
		O_WARMUP,
		O_PPMAX,
		O_DURATION,
		O_BATCH,
		O_CPUS,
		O_DPSOCK,
		O_LOCAL,
		O_REMOTE,
		O_SNDBUF,
		O_BREAKDOWN,
		O_QUICK,
		O_TIMEOUT,
		O_JSON,
		O_TX,
		O_TXSIZE,
		O_ZC,
	};
	static const struct option lo[] = {
		{ "sizes", required_argument, NULL, O_SIZES },
		{ "transports", required_argument, NULL, O_TRANSPORTS },
		{ "mode", required_argument, NULL, O_MODE },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "pp-max", required_argument, NULL, O_PPMAX },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "batch", required_argument, NULL, O_BATCH },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "dpsock", required_argument, NULL, O_DPSOCK },
		{ "local-addr", required_argument, NULL, O_LOCAL },
		{ "remote", required_argument, NULL, O_REMOTE },
		{ "sndbuf", required_argument, NULL, O_SNDBUF },
		{ "breakdown", no_argument, NULL, O_BREAKDOWN },
		{ "quick", no_argument, NULL, O_QUICK },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "json", required_argument, NULL, O_JSON },
		{ "tx-stream", required_argument, NULL, O_TX },
		{ "tx-size", required_argument, NULL, O_TXSIZE },
		{ "zc", no_argument, NULL, O_ZC },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct perf_cell cells[MAX_CELLS];
	static struct perf_breakdown bd;
	const struct perf_transport *tlist[8];
	struct perf_opts o = { .sndbuf = 4 << 20, .batch = 32 };
	struct perf_run_info ri = { 0 };
	struct perf_tx_params tp = { .size = TX_DEFAULT_SIZE, .batch = 32 };
	size_t sizes[MAX_SIZES];
	unsigned int nb_sizes = 0, nt = 0, nc = 0, i, j, failed = 0;
	enum perf_mode mode = PERF_MODE_AUTO;
	uint64_t iters = 10000, warmup = 1000;
	double pp_max = 2, duration = 1, timeout = 60;
	int cpu[2] = { 0, 1 }, c;
	bool breakdown = false, quick = false, tx = false, sizes_set = false;
	bool warmup_set = false, iters_set = false, dur_set = false;
	bool transports_set = false, remote_listed = false;
	const char *json = NULL, *local = DEFAULT_LOCAL, *remote = NULL, *mode_s = "auto";
	char dpsock_why[PERF_NOTE_LEN] = "", cpu_note[128] = "";
	bool dpsock_ok;
	long ncpu;

	parse_addr(DEFAULT_LOCAL, &o.local, &o.local_len, false);
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char *end = NULL;

		switch (c) {
		case O_SIZES:
			if (parse_sizes(optarg, sizes, &nb_sizes) < 0)
				goto bad;
			sizes_set = true;
			break;
		case O_TRANSPORTS: {
			char buf[256], *save = NULL, *tok;

			snprintf(buf, sizeof(buf), "%s", optarg);
			nt = 0;
			transports_set = true;
			for (tok = strtok_r(buf, ",", &save); tok;
				tok = strtok_r(NULL, ",", &save)) {
				/* its cells come with --remote; listed alone: only those */
				if (strcmp(tok, "dpsock-remote") == 0) {
					remote_listed = true;
					continue;
				}
				if (nt == 7 || (tlist[nt] = perf_transport_find(tok)) == NULL) {
					fprintf(stderr, "dpsock-perf: unknown transport '%s'\n",
						tok);
					return EXIT_USAGE;
				}
				nt++;
			}
			break;
		}
		case O_MODE:
			mode_s = optarg;
			if (strcmp(optarg, "auto") == 0)
				mode = PERF_MODE_AUTO;
			else if (strcmp(optarg, "spin") == 0)
				mode = PERF_MODE_SPIN;
			else if (strcmp(optarg, "block") == 0)
				mode = PERF_MODE_BLOCK;
			else if (strcmp(optarg, "both") == 0)
				mode = PERF_MODE_BOTH;
			else
				goto bad;
			break;
		case O_ITERS:
			iters = strtoull(optarg, &end, 10);
			if (*end || iters < 1 || iters > 100000000)
				goto bad;
			iters_set = true;
			break;
		case O_WARMUP:
			warmup = strtoull(optarg, &end, 10);
			if (*end || warmup > 100000000)
				goto bad;
			warmup_set = true;
			break;
		case O_PPMAX:
			pp_max = strtod(optarg, &end);
			if (*end || pp_max <= 0 || pp_max > 3600)
				goto bad;
			break;
		case O_DURATION:
			duration = strtod(optarg, &end);
			if (*end || duration < 0 || duration > 3600)
				goto bad;
			dur_set = true;
			break;
		case O_BATCH:
			o.batch = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || o.batch < 1 || o.batch > PERF_MAX_BATCH)
				goto bad;
			break;
		case O_CPUS:
			if (sscanf(optarg, "%d,%d", &cpu[0], &cpu[1]) != 2 || cpu[0] < -1 ||
				cpu[1] < -1)
				goto bad;
			break;
		case O_DPSOCK:
			o.dpsock_path = optarg;
			break;
		case O_LOCAL:
			local = optarg;
			if (parse_addr(optarg, &o.local, &o.local_len, false) < 0)
				goto bad;
			break;
		case O_REMOTE:
		case O_TX:
			remote = optarg;
			if (parse_addr(optarg, &o.remote, &o.remote_len, true) < 0)
				goto bad;
			o.have_remote = true;
			tx |= c == O_TX;
			break;
		case O_SNDBUF:
			o.sndbuf = (int)strtol(optarg, &end, 10);
			if (*end || o.sndbuf < 4096)
				goto bad;
			break;
		case O_BREAKDOWN:
			breakdown = true;
			break;
		case O_QUICK:
			quick = true;
			break;
		case O_TIMEOUT:
			timeout = strtod(optarg, &end);
			if (*end || timeout < 1)
				goto bad;
			break;
		case O_JSON:
			json = optarg;
			break;
		case O_TXSIZE:
			if (parse_size(optarg, &tp.size) < 0)
				goto bad;
			break;
		case O_ZC:
			tp.zero_copy = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
		continue;
	bad:
		fprintf(stderr, "dpsock-perf: bad value '%s' for --%s\n", optarg,
			lo[c - O_SIZES].name);
		return EXIT_USAGE;
	}
	if (optind < argc) {
		fprintf(stderr, "dpsock-perf: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (remote_listed && !o.have_remote) {
		fprintf(stderr, "dpsock-perf: transport dpsock-remote needs --remote ADDR:PORT\n");
		return EXIT_USAGE;
	}
	perf_clock_init();
	if (perf_msg_init() < 0) {
		fprintf(stderr, "dpsock-perf: out of memory\n");
		return 1;
	}
	if (tx) {
		tp.duration = dur_set ? duration : 10;
		tp.batch = o.batch;
		tp.cpu = cpu[0];
		return perf_tx_stream(&o, &tp, stdout);
	}
	if (quick) {
		static const size_t qs[] = { 8, 1024, 65536, 1048576 };

		if (!sizes_set) {
			memcpy(sizes, qs, sizeof(qs));
			nb_sizes = 4;
		}
		if (!iters_set)
			iters = 1000;
		if (!warmup_set)
			warmup = 100;
		if (!dur_set)
			duration = 0.15;
		pp_max = pp_max > 0.25 ? 0.25 : pp_max;
	}
	if (!sizes_set && !quick) {
		memcpy(sizes, default_sizes, sizeof(default_sizes));
		nb_sizes = sizeof(default_sizes) / sizeof(default_sizes[0]);
	}
	if (nt == 0 && !transports_set)
		for (nt = 0; perf_transports[nt] != NULL; nt++)
			tlist[nt] = perf_transports[nt];

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 2 || cpu[0] == cpu[1]) {
		perf_single_cpu = true;
		cpu[1] = cpu[0];
		snprintf(cpu_note, sizeof(cpu_note),
			"one CPU (%ld online): both processes share CPU %d; spin loops yield, so "
			"every number includes context switches",
			ncpu, cpu[0]);
		ri.notes[ri.nb_notes++] = cpu_note;
		fprintf(stderr, "dpsock-perf: note: %s\n", cpu_note);
	}
	dpsock_ok = dpsock_probe(&o, dpsock_why, sizeof(dpsock_why));
	if (!dpsock_ok) {
		fprintf(stderr, "dpsock-perf: note: dpsock transports skipped: %s\n", dpsock_why);
		ri.notes[ri.nb_notes++] = dpsock_why;
	}

	for (i = 0; i < nt; i++) {
		const struct perf_transport *t = tlist[i];
		int modes[2], nm = 0, m;

		if (mode == PERF_MODE_BOTH && !t->spin_only) {
			modes[nm++] = 0;
			modes[nm++] = 1;
		} else {
			modes[nm++] = t->spin_only             ? 0
				      : mode == PERF_MODE_AUTO ? (int)block_auto(t)
							       : mode == PERF_MODE_BLOCK;
		}
		for (m = 0; m < nm; m++) {
			for (j = 0; j < nb_sizes && nc < MAX_CELLS; j++) {
				struct perf_cell *cell = &cells[nc++];
				struct perf_test pt = {
					.t = t,
					.size = sizes[j],
					.block = modes[m] != 0,
					.cpu = { cpu[0], cpu[1] },
					.warmup = warmup,
					.iters = iters,
					.pp_max_s = pp_max,
					.duration = duration,
					.batch = o.batch,
					.timeout_s = timeout + duration,
				};
				char sb[24];

				memset(cell, 0, sizeof(*cell));
				cell->transport = t->name;
				cell->mode = pt.block ? "block" : "spin";
				cell->size = sizes[j];
				if (t->max_size(&o) != 0 && sizes[j] > t->max_size(&o)) {
					cell->status = PERF_SKIPPED;
					snprintf(cell->note, sizeof(cell->note),
						"%zu bytes > %zu, the largest %s message", sizes[j],
						t->max_size(&o), t->name);
					continue;
				}
				if (t->dpsock && !dpsock_ok) {
					cell->status = PERF_SKIPPED;
					snprintf(cell->note, sizeof(cell->note), "no dpfwd");
					continue;
				}
				perf_test_run(&pt, &o, cell);
				fprintf(stderr, "%-13s %-5s %5s  %s\n", t->name, cell->mode,
					perf_size_str(sizes[j], sb, sizeof(sb)),
					cell->status == PERF_OK        ? "ok"
					: cell->status == PERF_SKIPPED ? cell->note
								       : "FAILED");
			}
		}
	}
	if (o.have_remote) {
		const struct perf_transport *t = perf_transport_find("dpsock-local");

		for (j = 0; j < nb_sizes && nc < MAX_CELLS; j++) {
			struct perf_cell *cell = &cells[nc++];
			struct perf_test pt = {
				.t = t,
				.size = sizes[j],
				.block = mode == PERF_MODE_BLOCK,
				.cpu = { cpu[0], cpu[1] },
				.warmup = warmup,
				.iters = iters,
				.pp_max_s = pp_max,
				.batch = 1,
				.timeout_s = timeout,
				.remote = true,
			};

			memset(cell, 0, sizeof(*cell));
			cell->transport = "dpsock-remote";
			cell->mode = pt.block ? "block" : "spin";
			cell->size = sizes[j];
			if (sizes[j] > PERF_UDP_MAX || !dpsock_ok) {
				cell->status = PERF_SKIPPED;
				snprintf(cell->note, sizeof(cell->note), "%s",
					dpsock_ok ? "larger than a UDP datagram (65507)"
						  : "no dpfwd");
				continue;
			}
			perf_test_run(&pt, &o, cell);
		}
	}
	if (breakdown) {
		struct perf_bd_params bp = {
			.cpu = { cpu[0], cpu[1] },
			.quick = quick,
			.dpsock_ok = dpsock_ok,
			.dpsock_why = dpsock_why,
			.block_for = block_auto,
		};

		perf_breakdown_run(&o, &bp, &bd);
	}

	printf("dpsock-perf: %u sizes; ping-pong %" PRIu64 " round trips (<= %.1f s) after %" PRIu64
	       " warm-up; streaming %.1f s, batch %u; CPUs %d,%d\n",
		nb_sizes, iters, pp_max, warmup, duration, o.batch, cpu[0], cpu[1]);
	perf_report_table(stdout, cells, nc);
	printf("rtt/X: X's RTT p50 / this row's (x lower); msg/X: this row's msgs/s / X's (x "
	       "higher). Gbps: payload at the receiver.\n");
	for (i = 0; i < ri.nb_notes; i++)
		printf("note: %s\n", ri.notes[i]);
	if (breakdown)
		perf_report_breakdown(stdout, &bd);
	for (i = 0; i < nc; i++)
		failed += cells[i].status == PERF_FAILED;
	if (json != NULL) {
		ri.sizes = sizes;
		ri.nb_sizes = nb_sizes;
		ri.iters = iters;
		ri.warmup = warmup;
		ri.pp_max_s = pp_max;
		ri.duration = duration;
		ri.batch = o.batch;
		ri.mode = mode_s;
		ri.cpu[0] = cpu[0];
		ri.cpu[1] = cpu[1];
		ri.dpsock_path = o.dpsock_path;
		ri.local_addr = local;
		ri.remote = remote;
		ri.sndbuf = o.sndbuf;
		ri.dpsock_ok = dpsock_ok;
		ri.dpsock_why = dpsock_why;
		if (perf_report_json(json, &ri, cells, nc, breakdown ? &bd : NULL) < 0) {
			fprintf(stderr, "dpsock-perf: cannot write %s\n", json);
			return 1;
		}
	}
	if (failed)
		fprintf(stderr, "dpsock-perf: %u test(s) FAILED\n", failed);
	return failed ? 1 : 0;
}
