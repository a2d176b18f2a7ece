/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A socket that slept in a wait (epoll_wait, poll or select) and timed out is
 * disarmed once awake: a datagram that comes later, while it is looked at
 * without sleeping, costs its sender no eventfd write. One thread, two UDP
 * sockets over loopback: a sends b one datagram (their channel made), b waits
 * 50 ms for nothing (it sleeps armed), then a sends it ROUNDS datagrams, each taken by a wait that finds it at once and a
 * recv. Prints "received: N". Under libdpsock-preload with DPSOCK_PRELOAD_STATS,
 * a's counters say how many eventfd writes (wakeups) its sends made
 * (tests/preload/test_preload.py): none, where a b left armed would cost the
 * next datagram one.
 *
 *   preload_wake epoll|poll|select
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>

#define ROUNDS 1000

enum mode { MODE_EPOLL, MODE_POLL, MODE_SELECT };

/* One wait for b readable, at most @p ms: @return 1 readable, 0 timed out, -1 error. */
static int
wait_readable(enum mode mode, int ep, int b, int ms)
{
	struct epoll_event ev;
	struct pollfd p = { .fd = b, .events = POLLIN };
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	fd_set rd;

	switch (mode) {
	case MODE_EPOLL:
		return epoll_wait(ep, &ev, 1, ms);
	case MODE_POLL:
		return poll(&p, 1, ms);
	default:
		FD_ZERO(&rd);
		FD_SET(b, &rd);
		return select(b + 1, &rd, NULL, NULL, &tv);
	}
}

int
main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct epoll_event ev = { .events = EPOLLIN };
	socklen_t len = sizeof(to);
	enum mode mode;
	int a, b, ep = -1, i, got = 0;
	char buf[64];

	if (argc != 2 || (strcmp(argv[1], "epoll") != 0 && strcmp(argv[1], "poll") != 0 &&
				 strcmp(argv[1], "select") != 0)) {
		fprintf(stderr, "usage: preload_wake epoll|poll|select\n");
		return 2;
	}
	mode = strcmp(argv[1], "epoll") == 0  ? MODE_EPOLL
	       : strcmp(argv[1], "poll") == 0 ? MODE_POLL
					      : MODE_SELECT;
	a = socket(AF_INET, SOCK_DGRAM, 0);
	b = socket(AF_INET, SOCK_DGRAM, 0);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (a < 0 || b < 0 || bind(b, (struct sockaddr *)&to, sizeof(to)) < 0 ||
		getsockname(b, (struct sockaddr *)&to, &len) < 0) {
		perror("preload_wake: sockets");
		return 1;
	}
	if (mode == MODE_EPOLL) {
		ep = epoll_create1(0);
		ev.data.fd = b;
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, b, &ev) < 0) {
			perror("preload_wake: epoll");
			return 1;
		}
	}
	/* the channel from a to b made first: a sleep arms the channels there are */
	if (sendto(a, "hello", 5, 0, (struct sockaddr *)&to, sizeof(to)) != 5 ||
		wait_readable(mode, ep, b, 1000) != 1 || recv(b, buf, sizeof(buf), 0) != 5) {
		fprintf(stderr, "preload_wake: the first datagram: %s\n", strerror(errno));
		return 1;
	}
	if (wait_readable(mode, ep, b, 50) != 0) {
		fprintf(stderr, "preload_wake: the first wait did not time out\n");
		return 1;
	}
	for (i = 0; i < ROUNDS; i++) {
		if (sendto(a, "ping", 4, 0, (struct sockaddr *)&to, sizeof(to)) != 4 ||
			wait_readable(mode, ep, b, 1000) != 1 ||
			recv(b, buf, sizeof(buf), MSG_DONTWAIT) != 4) {
			fprintf(stderr, "preload_wake: round %d: %s\n", i, strerror(errno));
			break;
		}
		got++;
	}
	printf("received: %d\n", got);
	close(a);
	close(b);
	if (ep >= 0)
		close(ep);
	return got == ROUNDS ? 0 : 1;
}
