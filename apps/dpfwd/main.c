/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpfwd: parse arguments, load the config, start EAL, run, tear down.
 *
 *   dpfwd [EAL options] -- -c FILE [--duration S] [--telemetry-json FILE]
 *         [--telemetry-interval MS] [--stats] [--set section.key=value]... [--check]
 *   dpfwd --config-reference      (the config reference, Markdown)
 *   dpfwd --version               (its version, DPDK's, how it was built)
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_version.h>

#include "dp_build_config.h"
#include "dp_common.h"
#include "dp_config.h"
#include "dp_port.h"
#include "dp_run.h"

#define MAX_EAL_ARGS 256
#define MAX_SETS     64
#define DEFAULT_JSON "/run/dpfwd/telemetry.json"

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: dpfwd [EAL options] -- -c FILE [options]\n"
		"\n"
		"DPDK poll-mode datapath: routes IPv4 and IPv6, relays UDP, serves dpsock endpoints.\n"
		"EAL options are DPDK's (see dpdk-testpmd --help); dpfwd adds the ports of its\n"
		"config as --vdev/-a, and -l <main>,<workers> when no -l/-c/--lcores is given.\n"
		"\n"
		"Options after --:\n"
		"  -c, --config FILE            dpfwd config (INI; --config-reference lists the keys)\n"
		"  -d, --duration S             stop after S seconds (default 0: until SIGINT/SIGTERM)\n"
		"  -j, --telemetry-json FILE    rewrite this JSON snapshot every interval and at exit\n"
		"                               (default " DEFAULT_JSON "; 'none' to disable)\n"
		"  -i, --telemetry-interval MS  snapshot and stats period, 100..60000 (default 1000)\n"
		"  -s, --stats                  print a one-line summary every interval: Mpps, Gbps,\n"
		"                               cycles/packet and busy %% per lcore, drops\n"
		"  -S, --set SECTION.KEY=VALUE  override a config key (repeatable), e.g.\n"
		"                               --set dpfwd.node_stats=off\n"
		"  -C, --check                  check the config and the machine, print what dpfwd\n"
		"                               would run, and exit without starting any port:\n"
		"                               the EAL arguments, lcores (enabled, their queues),\n"
		"                               ports (present, driver, profile, offloads), the\n"
		"                               packet pool and route table (made and freed)\n"
		"      --config-reference       print every config key (Markdown: type, range,\n"
		"                               default) and exit\n"
		"  -h, --help                   this text\n"
		"  -V, --version                print dpfwd's version, DPDK's and the build options\n"
		"\n"
		"Telemetry is also served as DPDK telemetry commands /dpfwd/... on the EAL\n"
		"telemetry socket: dpdk-telemetry.py [-f PREFIX], then /dpfwd/graph/nodes.\n"
		"SIGHUP reads the routes again. Under systemd (NOTIFY_SOCKET) dpfwd sends READY=1\n"
		"once its ports are up and every worker has run, RELOADING=1 then READY=1 around\n"
		"a SIGHUP reload, STOPPING=1 when it stops.\n"
		"Exit status: 0 on a clean stop, 1 when a port or resource fails, 2 for bad\n"
		"arguments or config.\n");
}

static void
version_print(FILE *f)
{
	fprintf(f,
		"dpfwd %s\n"
		"%s\n"
		"build: DPDK linked %s, sanitizers %s, systemd notify %s\n",
		DP_VERSION, rte_version(), DP_DPDK_LINK, DP_SANITIZE,
		DP_HAVE_SYSTEMD ? "on" : "off (built without libsystemd)");
}

struct app_args {
	const char *config;
	const char *json;
	unsigned int interval_ms;
	double duration;
	bool stats;
	const char *sets[MAX_SETS];
	int nb_sets;
	bool check;
	bool reference;
};

static int
parse_app_args(int argc, char **argv, struct app_args *a)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "telemetry-json", required_argument, NULL, 'j' },
		{ "telemetry-interval", required_argument, NULL, 'i' },
		{ "stats", no_argument, NULL, 's' },
		{ "set", required_argument, NULL, 'S' },
		{ "check", no_argument, NULL, 'C' },
		{ "config-reference", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:d:j:i:sS:ChV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->config = optarg;
			break;
		case 'd':
			a->duration = strtod(optarg, &end);
			if (*end != '\0' || a->duration < 0) {
				fprintf(stderr, "dpfwd: --duration '%s': expected seconds >= 0\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'j':
			a->json = strcmp(optarg, "none") == 0 ? NULL : optarg;
			break;
		case 'i': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end != '\0' || v < 100 || v > 60000) {
				fprintf(stderr,
					"dpfwd: --telemetry-interval '%s': expected 100..60000 ms\n",
					optarg);
				return -EINVAL;
			}
			a->interval_ms = (unsigned int)v;
			break;
		}
		case 's':
			a->stats = true;
			break;
		case 'C':
			a->check = true;
			break;
		case 'R':
			a->reference = true;
			break;
		case 'S':
			if (a->nb_sets == MAX_SETS) {
				fprintf(stderr, "dpfwd: more than %d --set\n", MAX_SETS);
				return -EINVAL;
			}
			a->sets[a->nb_sets++] = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			version_print(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dpfwd: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (a->config == NULL && !a->reference) {
		fprintf(stderr, "dpfwd: no config: give -c FILE after '--' (try --help)\n");
		return -EINVAL;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct app_args a = { .json = DEFAULT_JSON, .interval_ms = 1000 };
	char *eal_argv[MAX_EAL_ARGS];
	char err[DP_CONFIG_ERR_LEN];
	struct dp_config cfg;
	struct dp_run_opts opts;
	int eal_argc, eal_n, i, rc;
	int64_t leak = 0;

	/* split at "--": EAL arguments before, ours after */
	eal_argc = dp_args_eal_end(argc, argv);
	if (dp_args_wants_help(eal_argc, argv)) {
		usage(stdout);
		return 0;
	}
	if (eal_argc == argc) {
		/* no "--": everything is ours (dpfwd -c FILE) */
		eal_argc = 1;
		rc = parse_app_args(argc, argv, &a);
	} else {
		char *app_argv[MAX_EAL_ARGS];
		int n = 0;

		app_argv[n++] = argv[0];
		for (i = eal_argc + 1; i < argc && n < MAX_EAL_ARGS; i++)
			app_argv[n++] = argv[i];
		rc = parse_app_args(n, app_argv, &a);
	}
	if (rc < 0)
		return 2;
	if (a.reference)
		return dp_config_reference_print(stdout) == 0 ? 0 : 1;

	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, a.config, err, sizeof(err));
	for (i = 0; rc == 0 && i < a.nb_sets; i++)
		rc = dp_config_set(&cfg, a.sets[i], err, sizeof(err));
	if (rc == 0)
		rc = dp_config_validate(&cfg, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "dpfwd: error: %s\n", err);
		dp_config_free(&cfg);
		return 2;
	}

	rc = dp_run_lcores_present(&cfg, eal_argc, argv, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "dpfwd: error: %s\n", err);
		dp_config_free(&cfg);
		return 2;
	}
	/* a check must not disturb a running dpfwd's ports */
	if (a.check && dp_port_xdp_in_use(&cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "dpfwd --check: error: %s\n", err);
		dp_config_free(&cfg);
		return 1;
	}
	eal_n = dp_run_eal_args(&cfg, eal_argc, argv, eal_argv, MAX_EAL_ARGS);
	if (eal_n < 0) {
		fprintf(stderr, "dpfwd: error: too many EAL arguments\n");
		return 2;
	}
	if (a.check) {
		printf("dpfwd --check: config %s: valid\nEAL:", a.config);
		for (i = 1; i < eal_n; i++)
			printf(" %s", eal_argv[i]);
		printf("\n");
		fflush(stdout);
	}
	{
		/* rte_eal_init permutes argv: give it a copy, keep ours to free */
		char *copy[MAX_EAL_ARGS];

		memcpy(copy, eal_argv, sizeof(char *) * eal_n);
		rc = rte_eal_init(eal_n, copy);
	}
	if (rc < 0) {
		fprintf(stderr,
			"dpfwd: error: EAL init failed: %s\n"
			"  (hugepages: see /proc/meminfo, or pass --no-huge; lcores: the config's "
			"[lcores] must exist on this machine; permissions: run as root)\n",
			rte_strerror(rte_errno));
		dp_run_eal_args_free(eal_argv, eal_n);
		dp_config_free(&cfg);
		return 1;
	}

	if (a.check) {
		rc = dp_run_check(&cfg, stdout, err, sizeof(err));
		if (rc < 0)
			fprintf(stderr, "dpfwd --check: error: %s\n", err);
		else
			printf("dpfwd --check: ok: nothing was started\n");
		dp_port_close_all();
		rte_eal_cleanup();
		dp_run_eal_args_free(eal_argv, eal_n);
		dp_config_free(&cfg);
		return rc == 0 ? 0 : rc == -EINVAL ? 2 : 1;
	}
	rc = dp_run_setup(&cfg, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "dpfwd: error: %s\n", err);
		rte_eal_cleanup();
		dp_run_eal_args_free(eal_argv, eal_n);
		dp_config_free(&cfg);
		return rc == -EINVAL ? 2 : 1;
	}
	if (a.json != NULL && strcmp(a.json, DEFAULT_JSON) == 0)
		mkdir("/run/dpfwd", 0755);
	memset(&opts, 0, sizeof(opts));
	opts.json_path = a.json;
	opts.interval_ms = a.interval_ms;
	opts.duration_s = a.duration;
	opts.stats_line = a.stats;

	dp_run_signals_install();
	rc = dp_run_start();
	if (rc == 0)
		dp_run_loop(&opts);
	else
		fprintf(stderr, "dpfwd: error: cannot launch workers: %s\n", strerror(-rc));
	if (dp_run_teardown(&opts, &leak) == 0 && a.json != NULL)
		printf("dpfwd: telemetry JSON: %s\n", a.json);
	if (leak != 0)
		fprintf(stderr, "dpfwd: error: %" PRId64 " mbufs leaked\n", leak);
	rte_eal_cleanup();
	dp_run_eal_args_free(eal_argv, eal_n);
	dp_config_free(&cfg);
	return rc < 0 || leak != 0 ? 1 : 0;
}
