/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpsock_echo: a UDP echo server and client on a dpfwd endpoint (libdpsock).
 *
 *   dpsock_echo server ADDR PORT [COUNT]   echo datagrams back to their sender
 *                                          (COUNT of them, then exit; 0: forever)
 *   dpsock_echo client ADDR PORT TEXT      send TEXT to ADDR:PORT, print the reply
 *
 * ADDR is an IPv4 address of one of dpfwd's ports (the server binds it; the client sends
 * to it). Both attach to the dpfwd whose [endpoint] socket is $DPSOCK_PATH (default
 * /run/dpfwd/dpsock.sock). Build:
 *
 *   cc -o dpsock_echo dpsock_echo.c $(pkg-config --cflags --libs libdpsock)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpsock.h>

static int
addr_parse(const char *ip, const char *port, struct sockaddr_in *a)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)atoi(port));
	return inet_pton(AF_INET, ip, &a->sin_addr) == 1 ? 0 : -EINVAL;
}

static int
server(struct dpsock *ep, const struct sockaddr_in *addr, long count)
{
	char buf[65536];
	long n;
	int rc;

	rc = dpsock_bind(ep, (const struct sockaddr *)addr, sizeof(*addr));
	if (rc < 0) {
		fprintf(stderr, "dpsock_echo: bind: %s\n", strerror(-rc));
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	for (n = 0; count == 0 || n < count; n++) {
		struct sockaddr_in from;
		socklen_t fromlen = sizeof(from);
		ssize_t len = dpsock_recvfrom(
			ep, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen);

		if (len < 0) {
			fprintf(stderr, "dpsock_echo: recvfrom: %s\n", strerror((int)-len));
			return 1;
		}
		len = dpsock_sendto(ep, buf, (size_t)len, 0, (struct sockaddr *)&from, fromlen);
		if (len < 0) {
			fprintf(stderr, "dpsock_echo: sendto: %s\n", strerror((int)-len));
			return 1;
		}
	}
	return 0;
}

static int
client(struct dpsock *ep, const struct sockaddr_in *to, const char *text)
{
	char buf[65536];
	ssize_t len;

	len = dpsock_sendto(ep, text, strlen(text), 0, (const struct sockaddr *)to, sizeof(*to));
	if (len < 0) {
		fprintf(stderr, "dpsock_echo: sendto: %s\n", strerror((int)-len));
		return 1;
	}
	len = dpsock_recv(ep, buf, sizeof(buf), 0);
	if (len < 0) {
		fprintf(stderr, "dpsock_echo: recv: %s\n", strerror((int)-len));
		return 1;
	}
	printf("%.*s\n", (int)len, buf);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in addr;
	struct dpsock *ep;
	int rc;

	if (argc < 4 || argc > 5 || addr_parse(argv[2], argv[3], &addr) < 0 ||
		(strcmp(argv[1], "server") != 0 && strcmp(argv[1], "client") != 0) ||
		(strcmp(argv[1], "client") == 0 && argc != 5)) {
		fprintf(stderr, "usage: dpsock_echo server ADDR PORT [COUNT]\n"
				"       dpsock_echo client ADDR PORT TEXT\n");
		return 2;
	}
	ep = dpsock_open(NULL, AF_INET, 0);
	if (ep == NULL) {
		fprintf(stderr, "dpsock_echo: cannot attach to dpfwd: %s\n", strerror(errno));
		return 1;
	}
	if (strcmp(argv[1], "server") == 0)
		rc = server(ep, &addr, argc == 5 ? atol(argv[4]) : 0);
	else
		rc = client(ep, &addr, argv[4]);
	dpsock_close(ep);
	return rc;
}
