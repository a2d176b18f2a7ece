/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Socket-like endpoints (dpsock) in dpfwd: what the rest of dpfwd calls.
 * Applications link libdpsock (dpsock.h) and reach dpfwd over the Unix socket
 * of the config's [endpoint] section; without that section nothing here runs.
 *
 *   dp_run_setup():    dp_endpoint_init()   tables the nodes use (before the graphs)
 *   dp_run_start():    dp_endpoint_start()  the server thread listens
 *   dp_run_teardown(): dp_endpoint_stop()   connections closed, endpoints reclaimed
 *                                           (before the workers stop)
 *                      dp_endpoint_fini()   after the workers stopped
 */
#ifndef DP_ENDPOINT_H
#define DP_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "dp_config.h"

/**
 * Control lcore, before dp_graph_workers_create(). Nothing is made when the
 * config has no [endpoint].
 * @return 0, or -errno with a message in @p err (-EADDRINUSE: another dpfwd
 *         listens on the socket path; -EACCES: its directory is not writable).
 */
int dp_endpoint_init(const struct dp_config *cfg, char *err, size_t errlen);

/**
 * Mbufs the endpoints may hold beyond a burst, with @p nb_workers workers:
 * each worker's reassembly table when full, and its zero-copy sends in
 * flight. 0 without [endpoint]. Added to the packet pool's size.
 */
uint32_t dp_endpoint_mbuf_demand(const struct dp_config *cfg, unsigned int nb_workers);

/** Start the server thread (after the workers were launched). @return 0 or -errno. */
int dp_endpoint_start(void);

/** Close every connection and reclaim every endpoint; stop the server thread. */
void dp_endpoint_stop(void);

/** Free the tables; remove the socket file. */
void dp_endpoint_fini(void);

/** Register the "endpoint" telemetry section (/dpfwd/endpoint/stats, /dpfwd/endpoint/list). */
int dp_endpoint_telemetry_register(void);

#endif /* DP_ENDPOINT_H */
