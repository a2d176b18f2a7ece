/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small helpers shared by udprtt and udprelay (plain Linux sockets, no DPDK):
 * address parsing ("a.b.c.d:port", "[v6]:port"), monotonic time in ns, the
 * stop flag that SIGINT and SIGTERM set.
 */
#ifndef UDP_COMMON_H
#define UDP_COMMON_H

#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

/** CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t
udp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * Parse "a.b.c.d:port" or "[ipv6]:port" (numeric, port 0..65535) into SS.
 * Returns 0, or -EINVAL with nothing written.
 */
int udp_parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len);

/** Parse a port 1..65535 alone ("5000") with the address ANY of FAMILY. */
int udp_parse_port_any(const char *s, int family, struct sockaddr_storage *ss, socklen_t *len);

/** "addr:port" / "[addr]:port" of SA into BUF. */
const char *udp_addr_str(const struct sockaddr *sa, char *buf, size_t len);

/** strtoull with a full-string check and bounds; 0 or -EINVAL. */
int udp_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/** Set by SIGINT and SIGTERM once udp_signals_install() ran: the main loops end. */
extern volatile sig_atomic_t udp_stop;

/** SIGINT and SIGTERM set udp_stop; no SA_RESTART, so a blocked recv returns EINTR. */
void udp_signals_install(void);

#endif /* UDP_COMMON_H */
