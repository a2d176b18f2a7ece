/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packet capture to pcapng (docs/capture.md): the workers copy the packets a
 * filter matches, as they arrive or leave a port, into a ring; the control
 * lcore writes them to a file with rte_pcapng.
 *
 *   worker: port_rx / dp_txq_send -> dp_graph_tap -> filter (DPDK BPF or
 *           libpcap) -> rte_pcapng_copy() ==(ring)==> control lcore:
 *           rte_pcapng_write_packets() -> FILE.pcapng
 *
 * One capture at a time. Telemetry actions /dpfwd/capture/start, /stop and
 * /status (dpctl capture).
 */
#ifndef DP_CAPTURE_H
#define DP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Log type "dpfwd.capture": DP_LOG(level, capture, ...) (dp_common.h). */
extern int dp_logtype_capture;

/** What one capture takes (the params of /dpfwd/capture/start). */
struct dp_capture_req {
	int port;           /**< config port index, -1: every port */
	bool rx;            /**< packets as they arrive */
	bool tx;            /**< packets as they leave */
	const char *filter; /**< tcpdump syntax; NULL or "": every packet */
	uint64_t count;     /**< stop after this many packets written; 0: no limit */
	uint64_t seconds;   /**< stop after this many seconds; 0: no limit */
	uint32_t snaplen;   /**< bytes kept of each packet; 0: the largest frame of the ports */
	const char *file;   /**< the pcapng file, created (or truncated) by dpfwd */
};

/**
 * Start a capture, on the control lcore. @return 0; -EBUSY (one runs),
 * -EINVAL (a bad request: @p err says what; @p usage set), -errno of the file
 * or of DPDK.
 */
int dp_capture_start(const struct dp_capture_req *req, bool *usage, char *err, size_t errlen);

/** Stop the running capture (the file is completed), on the control lcore. @return 0 or -ENOENT. */
int dp_capture_stop(const char *reason);

/** Register the capture's timer and stop callback (module start). @return 0 or -errno. */
int dp_capture_ctl_start(void);

/** Register /dpfwd/capture/start, /stop, /status. @return 0 or -errno. */
int dp_capture_telemetry_register(void);

#endif /* DP_CAPTURE_H */
