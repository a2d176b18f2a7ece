/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Telemetry: modules register sections (a function that returns a JSON value);
 * this module assembles them into one snapshot and exports it three ways:
 *  - DPDK telemetry commands "/dpfwd/<module>/<what>" (dpdk-telemetry.py reads them),
 *  - a JSON file rewritten atomically (write + rename) every interval and at exit,
 *  - a one-line summary per interval on stdout,
 *  - Prometheus text over HTTP (GET /metrics), rendered from a fresh snapshot per scrape.
 *
 * Snapshot layout (schema_version 1; docs/telemetry.md and docs/telemetry.schema.json):
 *   { "schema_version": 1, "dpfwd_version", "time_unix", "uptime_s", "tsc_hz",
 *     "interval": {rates over the last interval}, <section>: ..., ... }
 */
#ifndef DP_TELEMETRY_H
#define DP_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "dp_hist.h"

/** Log type "dpfwd.telemetry": DP_LOG(level, telemetry, ...) (dp_common.h). */
extern int dp_logtype_telemetry;

#define DP_TELEMETRY_SCHEMA_VERSION 1

/** Returns a new JSON value (object or array) for a section; NULL on error. */
typedef json_t *(*dp_telemetry_fill_t)(void *arg);

/**
 * Register a section of the snapshot, and a DPDK telemetry command for it.
 *
 * @param key   name of the section in the snapshot ("lcores", "ports", ...)
 * @param cmd   telemetry command, "/dpfwd/<module>/<what>", or NULL for none
 * @param help  one line for the command's help
 * @return 0, -ENOSPC (too many sections), -EEXIST, or what rte_telemetry_register_cmd gives.
 */
int dp_telemetry_section_register(
	const char *key, const char *cmd, const char *help, dp_telemetry_fill_t fill, void *arg);

/**
 * A command that does something (add a route, reload): runs in the caller's
 * thread (rte_telemetry's), gets the command's parameter string, may set
 * @p result (a JSON object; "ok" and "error" are added to it).
 * @return 0 or -errno with a message in @p err.
 */
typedef int (*dp_telemetry_action_t)(const char *params, json_t **result, char *err, size_t errlen);

/** Register (or re-point) an action command such as "/dpfwd/route/add". @return 0 or -errno. */
int dp_telemetry_action_register(const char *cmd, const char *help, dp_telemetry_action_t fn);

/** Run a registered action by name, as rte_telemetry would (for tests and signals). */
int dp_telemetry_action_run(
	const char *cmd, const char *params, json_t **result, char *err, size_t errlen);

/** Drop every registered section (sections stay registered with rte_telemetry). */
void dp_telemetry_sections_clear(void);

/** Build a full snapshot; the caller owns it (json_decref). NULL on ENOMEM. */
json_t *dp_telemetry_snapshot(void);

/**
 * Write @p snap to @p path atomically: "<path>.tmp" then rename().
 * @return 0 or -errno.
 */
int dp_telemetry_json_write(const char *path, const json_t *snap);

/**
 * Add the "interval" object (rates between @p prev and @p cur) to @p cur and,
 * when @p line is not NULL, format the one-line summary into it.
 */
void dp_telemetry_rates(json_t *cur, const json_t *prev, char *line, size_t linelen);

/**
 * Fill @p out (room for @p max) with the buckets of a "buckets_cycles" array
 * ([[low, width, count], ...]) of @p cur minus those of @p prev (may be NULL):
 * what was recorded between two snapshots (its quantiles:
 * dp_hist_bucket_quantile()). @return the number of buckets.
 */
size_t dp_telemetry_buckets_diff(
	const json_t *cur, const json_t *prev, struct dp_hist_bucket *out, size_t max);

/**
 * Hardware instruction counter for one thread (perf_event_open).
 * @return a file descriptor, or -errno with a reason in @p why (e.g. no PMU in a VM).
 */
int dp_telemetry_insn_open(pid_t tid, char *why, size_t whylen);
/** Read a counter opened above. @return 0 or -errno. */
int dp_telemetry_insn_read(int fd, uint64_t *count);

/**
 * Render a snapshot (as dp_telemetry_snapshot() builds it) in the Prometheus text
 * exposition format, version 0.0.4: one family per metric (# HELP, # TYPE, then its
 * samples), names and labels from a fixed table (docs/telemetry.md "Prometheus metrics"). Values
 * missing from @p snap or null there are left out; label values are escaped.
 *
 * @param len  receives the text's length (without the final NUL); may be NULL
 * @return the text (caller frees with free()), or NULL with errno ENOMEM.
 */
char *dp_telemetry_prom_text(const json_t *snap, size_t *len);

/**
 * Serve GET /metrics (Prometheus text of a fresh snapshot) over HTTP on @p addr:@p port
 * from libmicrohttpd's own thread, which inherits the caller's CPU affinity: call it
 * from the main (control) lcore. The socket is bound and listening when this returns.
 *
 * @param addr  numeric IPv4 or IPv6 address ("127.0.0.1", "::1")
 * @param port  0 = any free port (see dp_telemetry_metrics_port())
 * @param err   receives "ADDR:PORT: what failed: why" on failure
 * @return 0, -EALREADY (already serving), -EINVAL (bad address), -errno of socket(),
 *         bind() or listen() (-EADDRINUSE, -EACCES, -EADDRNOTAVAIL, ...), or -errno
 *         (-EIO when MHD leaves none) when the HTTP daemon cannot start.
 */
int dp_telemetry_metrics_start(const char *addr, uint16_t port, char *err, size_t errlen);

/** The port served (the one chosen when started with port 0); 0 when not serving. */
uint16_t dp_telemetry_metrics_port(void);

/** Stop serving (waits for a scrape in progress); nothing when not serving. */
void dp_telemetry_metrics_stop(void);

#endif /* DP_TELEMETRY_H */
