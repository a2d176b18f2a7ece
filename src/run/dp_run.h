/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A whole dpfwd instance: EAL arguments from a config, bring-up in order
 * (pools, ports, tables, graphs), the control loop (telemetry every interval,
 * signals, duration) and an orderly teardown. apps/dpfwd and the tests both
 * drive dpfwd through this.
 */
#ifndef DP_RUN_H
#define DP_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "dp_config.h"

struct dp_run_opts {
	const char *json_path;    /**< telemetry snapshot file, NULL = none */
	unsigned int interval_ms; /**< snapshot / stats line period */
	double duration_s;        /**< 0 = until a signal */
	bool stats_line;          /**< print the one-line summary every interval */
};

/** Why the control loop returned. */
enum dp_run_exit {
	DP_RUN_EXIT_DURATION,
	DP_RUN_EXIT_SIGNAL,
};

/**
 * EAL arguments for @p cfg, appended after the user's: the lcores (-l main,workers)
 * unless the user gave -l/-c/--lcores, the ports' --vdev/-a, and, unless the
 * user chose a memory option (--no-huge, --in-memory, --huge-dir, --huge-unlink,
 * -m, --socket-mem; --file-prefix is not one), --in-memory (no hugepage files left
 * behind) or, when no hugepage is free, --no-huge -m 1024 with a notice on stderr
 * saying how to reserve some.
 * @param out   receives argv[0], the user's arguments, then ours (malloc'd strings)
 * @return the new argc, or -ENOMEM/-E2BIG.
 */
int dp_run_eal_args(const struct dp_config *cfg, int argc, char **argv, char **out, int max);

/**
 * Before rte_eal_init(), when the user gave no -l/-c/--lcores (dpfwd then makes -l from
 * the config): every lcore of @p cfg (main_lcore, [lcores] rx) is a CPU this process may
 * run on, so that a config naming a CPU the machine lacks is a config error (file:line)
 * rather than an EAL failure.
 * @return 0, or -EINVAL with the lcore, where it was set and this machine's CPUs in @p err.
 */
int dp_run_lcores_present(
	const struct dp_config *cfg, int argc, char **argv, char *err, size_t errlen);

/** Free what dp_run_eal_args() allocated. */
void dp_run_eal_args_free(char **out, int n);

/**
 * After rte_eal_init(), on the main lcore: the metrics endpoint when [dpfwd] metrics
 * is set (first, so that a busy port fails before any port starts), pools, ports,
 * forwarding tables, worker graphs, telemetry sections. On failure, what was set up
 * is torn down again.
 * @return 0 or -errno with "what failed: why" in @p err (-EADDRINUSE, -EACCES, ...
 *         when the metrics address cannot be bound; the message names it).
 */
int dp_run_setup(const struct dp_config *cfg, char *err, size_t errlen);

/**
 * dpfwd --check, after rte_eal_init() (which already proved the lcores and the
 * memory EAL was given): probe the ports (present, driver, profile, offloads
 * masked by what each can do), make the packet pool and the IPv4 table as
 * dp_run_setup() would and free them again, and print on @p out what dpfwd
 * would run: lcores and their queues, ports, pool, tables, services. No port
 * is started and no packet moves.
 * @return 0, or -errno with the reason in @p err.
 */
int dp_run_check(const struct dp_config *cfg, FILE *out, char *err, size_t errlen);

/**
 * Launch the workers; once each has walked its graph once, sd_notify READY=1 (under
 * systemd's Type=notify; nothing otherwise). @return 0 or -errno.
 */
int dp_run_start(void);

/**
 * The control loop: every interval take a snapshot, write the JSON file and
 * print the summary line; on SIGHUP read the routes again (sd_notify RELOADING=1,
 * then READY=1); return on SIGINT/SIGTERM or when the duration ends.
 */
enum dp_run_exit dp_run_loop(const struct dp_run_opts *opts);

/**
 * sd_notify STOPPING=1, stop the workers (their TX buffers are flushed), write the final snapshot,
 * then stop and close the ports and free everything.
 * @param leak  receives mbufs in use above the baseline after the stop (0 = none leaked)
 * @return 0, or -errno if the final JSON could not be written.
 */
int dp_run_teardown(const struct dp_run_opts *opts, int64_t *leak);

/** Install SIGINT/SIGTERM handlers that make dp_run_loop() return. */
void dp_run_signals_install(void);

/** Ask dp_run_loop() to return (as a signal would). */
void dp_run_request_stop(void);

#endif /* DP_RUN_H */
