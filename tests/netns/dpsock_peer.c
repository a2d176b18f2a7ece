/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpsock_peer: one libdpsock endpoint driven from the command line, for
 * tests/netns/test_dpsock_netns.py (a Linux host in a namespace on the other side).
 *
 *   dpsock_peer SOCK send BIND DEST SEED SIZE...   one datagram per SIZE, datagram i
 *                                                  filled with pattern(SEED + i)
 *   dpsock_peer SOCK recv BIND SEED MS SIZE...     one datagram per SIZE expected (any
 *                                                  order; told apart by their lengths,
 *                                                  so the sizes differ), each byte checked
 *   dpsock_peer SOCK echo BIND COUNT MS            COUNT datagrams sent back to their sender
 *
 * BIND and DEST are ADDR:PORT or [ADDR6]:PORT. Once bound, "ready" is written to stdout.
 * The last line on stdout is a JSON object: what was sent or received (sizes, senders,
 * byte checks) and the endpoint's counters. A sender waits for stdin to close (or 10 s)
 * before it closes its endpoint: closing returns its send pipe to dpfwd, and the
 * datagrams still in it would not leave.
 *
 *   pattern(i, seed) = ((i * 131 + (i >> 8) * 7 + seed * 17) ^ (seed >> 3)) & 0xff
 *
 * (tests/func/test_dpsock.c's; the Python side computes the same). Exit status: 0 all
 * sent / received and right, 1 a datagram missing, short or wrong, 2 usage or setup.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "dpsock.h"
#include "udp_common.h" /* address parsing and printing, as udprtt has them */

#define MAX_DGRAMS 256
#define BUF_MAX    65536u
#define LINGER_MS  10000

static uint8_t
pattern(size_t i, uint32_t seed)
{
	return (uint8_t)((i * 131u + (i >> 8) * 7u + seed * 17u) ^ (seed >> 3));
}

/* Index of the first byte that differs from pattern(seed), or len when none does. */
static size_t
pattern_check(const uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(i, seed))
			break;
	return i;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
stats_print(const struct dpsock *ep)
{
	struct dpsock_stats st;

	memset(&st, 0, sizeof(st));
	dpsock_stats_get(ep, &st);
	printf("\"stats\": {\"tx_msgs\": %lu, \"tx_bytes\": %lu, \"rx_msgs\": %lu, \"rx_bytes\": "
	       "%lu, \"tx_again\": %lu, \"rx_dropped\": %lu}",
		(unsigned long)st.tx_msgs, (unsigned long)st.tx_bytes, (unsigned long)st.rx_msgs,
		(unsigned long)st.rx_bytes, (unsigned long)st.tx_again,
		(unsigned long)st.rx_dropped);
}

/* Wait until something can be received, up to @p deadline. @return true when it can. */
static bool
recv_wait(struct dpsock_evq *q, double deadline)
{
	struct dpsock_event ev;
	double left = deadline - now_ms();

	if (left <= 0)
		return false;
	return dpsock_evq_wait(q, &ev, 1, (int)left + 1) > 0;
}

/* Wait for stdin to reach EOF, at most LINGER_MS. */
static void
linger(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	double deadline = now_ms() + LINGER_MS;
	char c[64];

	while (now_ms() < deadline && poll(&p, 1, (int)(deadline - now_ms()) + 1) == 1)
		if (read(STDIN_FILENO, c, sizeof(c)) <= 0)
			break;
}

static int
do_send(struct dpsock *ep, const struct sockaddr_storage *to, socklen_t tolen, uint32_t seed,
	const size_t *sizes, unsigned int n, uint8_t *buf)
{
	unsigned int i, sent = 0;
	int rc = 0;

	printf("{\"sent\": [");
	for (i = 0; i < n; i++) {
		size_t k;
		ssize_t r;

		for (k = 0; k < sizes[i]; k++)
			buf[k] = pattern(k, seed + i);
		r = dpsock_sendto(ep, buf, sizes[i], 0, (const struct sockaddr *)to, tolen);
		printf("%s%zd", i ? ", " : "", r);
		if (r != (ssize_t)sizes[i]) {
			fprintf(stderr, "dpsock_peer: send %zu bytes: %s\n", sizes[i],
				r < 0 ? strerror((int)-r) : "short");
			rc = 1;
		} else {
			sent++;
		}
	}
	printf("], ");
	stats_print(ep);
	printf("}\n");
	fflush(stdout);
	linger();
	return rc;
}

static int
do_recv(struct dpsock *ep, struct dpsock_evq *q, uint32_t seed, double ms, const size_t *sizes,
	unsigned int n, uint8_t *buf)
{
	double deadline = now_ms() + ms;
	bool got[MAX_DGRAMS] = { false };
	unsigned int nb_got = 0, nb_bad = 0, nb_extra = 0, i;
	const char *sep = "";

	printf("{\"got\": [");
	while (nb_got < n && recv_wait(q, deadline)) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		char fs[INET6_ADDRSTRLEN + 16];
		ssize_t r;
		size_t bad_at;

		r = dpsock_recvfrom(
			ep, buf, BUF_MAX, MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
		if (r == -EAGAIN)
			continue;
		if (r < 0) {
			fprintf(stderr, "dpsock_peer: recv: %s\n", strerror((int)-r));
			break;
		}
		for (i = 0; i < n; i++)
			if (!got[i] && sizes[i] == (size_t)r)
				break;
		if (i == n) {
			printf("%s{\"len\": %zd, \"extra\": true}", sep, r);
			sep = ", ";
			nb_extra++;
			continue;
		}
		got[i] = true;
		nb_got++;
		bad_at = pattern_check(buf, (size_t)r, seed + i);
		if (bad_at != (size_t)r)
			nb_bad++;
		printf("%s{\"i\": %u, \"len\": %zd, \"from\": \"%s\", \"bad_at\": %zd}", sep, i, r,
			udp_addr_str((const struct sockaddr *)&from, fs, sizeof(fs)),
			bad_at == (size_t)r ? (ssize_t)-1 : (ssize_t)bad_at);
		sep = ", ";
	}
	printf("], \"missing\": [");
	for (sep = "", i = 0; i < n; i++)
		if (!got[i]) {
			printf("%s%zu", sep, sizes[i]);
			sep = ", ";
		}
	printf("], ");
	stats_print(ep);
	printf("}\n");
	return nb_got == n && nb_bad == 0 && nb_extra == 0 ? 0 : 1;
}

static int
do_echo(struct dpsock *ep, struct dpsock_evq *q, unsigned int count, double ms, uint8_t *buf)
{
	double deadline = now_ms() + ms;
	unsigned int done = 0, failed = 0;

	while (done < count && recv_wait(q, deadline)) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t r;

		r = dpsock_recvfrom(
			ep, buf, BUF_MAX, MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
		if (r == -EAGAIN)
			continue;
		if (r < 0) {
			fprintf(stderr, "dpsock_peer: recv: %s\n", strerror((int)-r));
			break;
		}
		if (dpsock_sendto(ep, buf, (size_t)r, 0, (struct sockaddr *)&from, flen) != r)
			failed++;
		done++;
	}
	printf("{\"echoed\": %u, \"failed\": %u, ", done, failed);
	stats_print(ep);
	printf("}\n");
	fflush(stdout);
	linger();
	return done == count && failed == 0 ? 0 : 1;
}

static int
usage(void)
{
	fprintf(stderr, "usage: dpsock_peer SOCK send BIND DEST SEED SIZE...\n"
			"       dpsock_peer SOCK recv BIND SEED MS SIZE...\n"
			"       dpsock_peer SOCK echo BIND COUNT MS\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct sockaddr_storage bind_to, dest;
	size_t sizes[MAX_DGRAMS];
	struct dpsock_evq *q = NULL;
	struct dpsock *ep;
	socklen_t blen, dlen = 0;
	unsigned int n = 0;
	const char *cmd;
	uint8_t *buf;
	int first, rc, i;

	if (argc < 5)
		return usage();
	cmd = argv[2];
	if (udp_parse_addr(argv[3], &bind_to, &blen) < 0) {
		fprintf(stderr, "dpsock_peer: bad address '%s' (ADDR:PORT or [ADDR6]:PORT)\n",
			argv[3]);
		return 2;
	}
	if (strcmp(cmd, "send") == 0) {
		if (argc <= 6 || udp_parse_addr(argv[4], &dest, &dlen) < 0 ||
			dest.ss_family != bind_to.ss_family)
			return usage();
		first = 6;
	} else if (strcmp(cmd, "recv") == 0) {
		if (argc < 7)
			return usage();
		first = 6;
	} else if (strcmp(cmd, "echo") == 0) {
		if (argc != 6)
			return usage();
		first = argc;
	} else {
		return usage();
	}
	for (i = first; i < argc && n < MAX_DGRAMS; i++) {
		char *end;

		sizes[n] = strtoul(argv[i], &end, 10);
		if (*end != '\0' || sizes[n] > BUF_MAX)
			return usage();
		n++;
	}
	buf = malloc(BUF_MAX);
	ep = dpsock_open(argv[1], bind_to.ss_family, 0);
	if (buf == NULL || ep == NULL) {
		fprintf(stderr, "dpsock_peer: dpsock_open %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	rc = dpsock_bind(ep, (struct sockaddr *)&bind_to, blen);
	if (rc < 0) {
		fprintf(stderr, "dpsock_peer: bind %s: %s\n", argv[3], strerror(-rc));
		return 2;
	}
	if (strcmp(cmd, "send") != 0) {
		q = dpsock_evq_create(0);
		if (q == NULL || dpsock_evq_add(q, ep, DPSOCK_EV_IN, NULL) != 0) {
			fprintf(stderr, "dpsock_peer: event queue: %s\n", strerror(errno));
			return 2;
		}
	}
	printf("ready\n");
	fflush(stdout);
	if (strcmp(cmd, "send") == 0)
		rc = do_send(ep, &dest, dlen, (uint32_t)strtoul(argv[5], NULL, 10), sizes, n, buf);
	else if (strcmp(cmd, "recv") == 0)
		rc = do_recv(ep, q, (uint32_t)strtoul(argv[4], NULL, 10), strtod(argv[5], NULL),
			sizes, n, buf);
	else
		rc = do_echo(ep, q, (unsigned int)strtoul(argv[4], NULL, 10), strtod(argv[5], NULL),
			buf);
	fflush(stdout);
	if (q != NULL)
		dpsock_evq_destroy(q);
	dpsock_close(ep);
	free(buf);
	return rc;
}
