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
 * [endpoint]: socket-like endpoints (dpsock.h) for applications. The section's
 * presence turns them on.
 */
struct dp_endpoint_config {
	bool enabled;
	char socket[108];         /**< the Unix control socket's path (sun_path) */
	uint32_t mode;            /**< its file permissions (who may attach) */
	char group[32];           /**< its group, "" = dpfwd's */
	uint32_t max;             /**< endpoints at once */
	uint32_t tx_bufs;         /**< per endpoint: 2 KiB buffers to send */
	uint32_t rx_bufs;         /**< per endpoint: 2 KiB buffers to receive into */
	uint32_t large_bufs;      /**< per endpoint and direction: 64 KiB buffers */
	uint32_t chan_bufs;       /**< per direction of a channel between two local endpoints */
	uint32_t zero_copy_min;   /**< sends of at least this many bytes leave without a copy */
	bool udp4_cksum;          /**< compute the UDP checksum of IPv4 datagrams (0 is allowed) */
	struct dp_config_loc loc; /**< the section's first key */
};

/** The config section [endpoint] (struct dp_module's sections): endpoint_config.c. */
extern struct dp_config_section dp_endpoint_section;

/** [endpoint] of @p cfg (its @c enabled says whether the section is there). */
const struct dp_endpoint_config *dp_endpoint_config(const struct dp_config *cfg);

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

/** Give endpoint4_rx its trace line, and end traces at the RX nodes (dp_trace.h).
 * @return 0 or -ENOSPC. */
int dp_endpoint_trace_register(void);

#endif /* DP_ENDPOINT_H */
