/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Prometheus endpoint: GET /metrics over HTTP, served by libmicrohttpd from its own
 * polling thread on the control side, never on a worker lcore (the thread is created by
 * the main lcore and inherits its CPU affinity).
 *
 * Each scrape takes a fresh snapshot with dp_telemetry_snapshot(), the function the JSON
 * file and the stats line use, and renders it with dp_telemetry_prom_text(). The
 * snapshot runs the section fills under the telemetry lock, so a scrape never runs a
 * fill at the same time as the main lcore or rte_telemetry's thread does; the workers'
 * counters are 64-bit words with a single writer, read whole on x86-64.
 *
 * We bind the socket ourselves (then hand it to MHD) so that a failure says exactly
 * why (errno of bind), and so that port 0 can pick a free port. The polling mode is
 * MHD's "auto" (epoll on Linux): select() could not watch a descriptor above
 * FD_SETSIZE, and EAL may have opened hundreds of files before us.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "dp_common.h"
#include "dp_telemetry.h"

#define METRICS_PATH            "/metrics"
#define METRICS_CONTENT_TYPE    "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_MAX_CONNECTIONS 16
#define METRICS_IDLE_TIMEOUT_S  10

static struct MHD_Daemon *metrics_daemon;
static uint16_t metrics_port;

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	RTE_SET_USED(cls);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	DP_LOG(WARNING, telemetry, "metrics: %s", buf);
}

static enum MHD_Result
reply(struct MHD_Connection *conn, unsigned int status, const char *type, void *body, size_t len,
	enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (r == NULL) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
reply_text(struct MHD_Connection *conn, unsigned int status, const char *text)
{
	return reply(conn, status, "text/plain; charset=utf-8", (void *)(uintptr_t)text,
		strlen(text), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
	const char *version, const char *upload_data, size_t *upload_size, void **state)
{
	json_t *snap;
	char *text;
	size_t len = 0;

	RTE_SET_USED(cls);
	RTE_SET_USED(version);
	RTE_SET_USED(upload_data);
	RTE_SET_USED(upload_size);
	RTE_SET_USED(state);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (strcmp(url, METRICS_PATH) != 0)
		return reply_text(
			conn, MHD_HTTP_NOT_FOUND, "not found: dpfwd serves " METRICS_PATH "\n");
	snap = dp_telemetry_snapshot();
	text = snap != NULL ? dp_telemetry_prom_text(snap, &len) : NULL;
	json_decref(snap);
	if (text == NULL)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(conn, MHD_HTTP_OK, METRICS_CONTENT_TYPE, text, len, MHD_RESPMEM_MUST_FREE);
}

static const char *
bind_hint(int e)
{
	switch (e) {
	case EADDRINUSE:
		return " (something listens there already, another dpfwd or exporter? choose "
		       "another port, or port 0 for any free one)";
	case EACCES:
		return " (ports below 1024 need root or CAP_NET_BIND_SERVICE)";
	case EADDRNOTAVAIL:
		return " (not an address of this host: use 127.0.0.1 or [::1])";
	default:
		return "";
	}
}

int
dp_telemetry_metrics_start(const char *addr, uint16_t port, char *err, size_t errlen)
{
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	socklen_t slen;
	char where[INET6_ADDRSTRLEN + 16];
	bool loopback;
	int fd, one = 1, rc;

	if (metrics_daemon != NULL) {
		snprintf(err, errlen, "metrics endpoint: already serving on port %u", metrics_port);
		return -EALREADY;
	}
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		slen = sizeof(*in4);
		loopback = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
		snprintf(where, sizeof(where), "%s:%u", addr, port);
	} else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		slen = sizeof(*in6);
		loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
		flags |= MHD_USE_IPv6;
		snprintf(where, sizeof(where), "[%s]:%u", addr, port);
	} else {
		snprintf(err, errlen, "metrics endpoint '%s': not a numeric IPv4 or IPv6 address",
			addr);
		return -EINVAL;
	}

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "metrics endpoint %s: cannot create a socket: %s", where,
			strerror(-rc));
		return rc;
	}
	/* a restarted dpfwd binds while the old connections sit in TIME_WAIT */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, slen) < 0) {
		rc = -errno;
		snprintf(err, errlen, "metrics endpoint %s: cannot bind: %s%s", where,
			strerror(-rc), bind_hint(-rc));
		goto close_fd;
	}
	if (listen(fd, METRICS_MAX_CONNECTIONS) < 0) {
		rc = -errno;
		snprintf(err, errlen, "metrics endpoint %s: cannot listen: %s%s", where,
			strerror(-rc), bind_hint(-rc));
		goto close_fd;
	}
	slen = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &slen) == 0)
		port = ntohs(ss.ss_family == AF_INET6 ? in6->sin6_port : in4->sin_port);

	/* the logger first: MHD may log while starting */
	errno = 0;
	metrics_daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_IDLE_TIMEOUT_S,
		MHD_OPTION_END);
	if (metrics_daemon == NULL) {
		rc = errno != 0 ? -errno : -EIO;
		snprintf(err, errlen,
			"metrics endpoint %s: cannot start the HTTP server (libmicrohttpd): %s",
			where, strerror(-rc));
		goto close_fd;
	}
	metrics_port = port;
	if (ss.ss_family == AF_INET6)
		snprintf(where, sizeof(where), "[%s]:%u", addr, port);
	else
		snprintf(where, sizeof(where), "%s:%u", addr, port);
	DP_LOG(INFO, telemetry, "metrics: serving http://%s" METRICS_PATH, where);
	if (!loopback)
		DP_LOG(WARNING, telemetry,
			"metrics: %s is not a loopback address: whoever reaches it reads the "
			"counters (no authentication)",
			where);
	return 0;

close_fd:
	close(fd);
	return rc;
}

uint16_t
dp_telemetry_metrics_port(void)
{
	return metrics_daemon != NULL ? metrics_port : 0;
}

void
dp_telemetry_metrics_stop(void)
{
	MHD_socket fd;

	if (metrics_daemon == NULL)
		return;
	/* take the listening socket back so that we close it, after MHD's thread ended */
	fd = MHD_quiesce_daemon(metrics_daemon);
	MHD_stop_daemon(metrics_daemon);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	metrics_daemon = NULL;
	metrics_port = 0;
}
