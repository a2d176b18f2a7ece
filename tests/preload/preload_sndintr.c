/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A blocking sendto held back for a free buffer, interrupted by a signal handler, as
 * signal(7) ("Interruption of system calls") has Linux do it for a blocked send: EINTR
 * when the handler was installed without SA_RESTART, the send going on with SA_RESTART,
 * and EINTR with SA_RESTART when SO_SNDTIMEO is set.
 *
 * The kernel does not hold a UDP send back here (loopback datagrams are dropped at a
 * full receiver, never waited for), so there is no kernel reference: this program runs
 * preloaded only, and fails ("never held back") where its sends are never held back.
 * One socket sends to another of the same process that does not read, until a
 * non-blocking send says EAGAIN (the pipe full); then a blocking send with SIGALRM due
 * in 200 ms. With SA_RESTART a thread reads the receiver 500 ms in, which lets the send
 * through. Prints one line per case:
 *
 *   norestart: EINTR after >= 0.15 s, handler ran 1
 *   restart: sent after >= 0.45 s, handler ran 1
 *   restart+sndtimeo: EINTR after >= 0.15 s, handler ran 1
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>

#define FILL_MAX 1000000

static volatile sig_atomic_t handler_runs;

static void
on_alarm(int sig)
{
	(void)sig;
	handler_runs++;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
udp_bound(struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof(*sa)) < 0 ||
		getsockname(fd, (struct sockaddr *)sa, &len) < 0) {
		perror("socket");
		return -1;
	}
	return fd;
}

struct drain {
	int fd;
	unsigned int delay_ms;
};

/* After delay_ms, reads what waits at the receiver (its buffers back to the sender). */
static void *
drain_later(void *arg)
{
	const struct drain *d = arg;
	char buf[2048];

	usleep(d->delay_ms * 1000);
	while (recv(d->fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	return NULL;
}

/* One case: @return 0 when it printed its line, -1 on a failure it printed. */
static int
run_case(const char *name, bool restart, bool sndtimeo)
{
	struct sigaction act = { .sa_handler = on_alarm };
	struct itimerval due = { .it_value = { .tv_sec = 0, .tv_usec = 200000 } };
	struct drain d = { .delay_ms = 500 };
	char msg[1000] = { 0 };
	struct sockaddr_in ra, sa;
	pthread_t th;
	int s, r, n, err;
	double t0, took;
	ssize_t rc;

	r = udp_bound(&ra);
	s = udp_bound(&sa);
	if (r < 0 || s < 0)
		return -1;
	if (sndtimeo) {
		struct timeval tv = { .tv_sec = 2 };

		if (setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0) {
			perror("SO_SNDTIMEO");
			return -1;
		}
	}
	for (n = 0; n < FILL_MAX; n++)
		if (sendto(s, msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&ra, sizeof(ra)) <
			0)
			break;
	if (n == FILL_MAX || errno != EAGAIN) {
		printf("%s: never held back (%s)\n", name, n == FILL_MAX ? "-" : strerror(errno));
		return -1;
	}
	sigemptyset(&act.sa_mask);
	act.sa_flags = restart ? SA_RESTART : 0;
	handler_runs = 0;
	if (sigaction(SIGALRM, &act, NULL) < 0) {
		perror("sigaction");
		return -1;
	}
	d.fd = r;
	if (restart && !sndtimeo) {
		sigset_t alrm, old;

		/* the signal for the sending thread: the drainer starts with it blocked */
		sigemptyset(&alrm);
		sigaddset(&alrm, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &alrm, &old);
		err = pthread_create(&th, NULL, drain_later, &d);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (err != 0) {
			printf("%s: no thread\n", name);
			return -1;
		}
	}
	t0 = now_s();
	setitimer(ITIMER_REAL, &due, NULL);
	rc = sendto(s, msg, sizeof(msg), 0, (struct sockaddr *)&ra, sizeof(ra));
	err = errno;
	took = now_s() - t0;
	if (restart && !sndtimeo)
		pthread_join(th, NULL);
	if (rc < 0 && err == EINTR)
		printf("%s: EINTR after >= 0.15 s%s, handler ran %d\n", name,
			took >= 0.15 ? "" : " (NOT)", (int)handler_runs);
	else if (rc < 0)
		printf("%s: %s after %.2f s, handler ran %d\n", name, strerror(err), took,
			(int)handler_runs);
	else
		printf("%s: sent after >= 0.45 s%s, handler ran %d\n", name,
			took >= 0.45 ? "" : " (NOT)", (int)handler_runs);
	if (sndtimeo && rc < 0 && err == EINTR && took >= 1.9)
		printf("%s: the timeout came first\n", name);
	close(s);
	close(r);
	return 0;
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (run_case("norestart", false, false) < 0 || run_case("restart", true, false) < 0 ||
		run_case("restart+sndtimeo", true, true) < 0)
		return 1;
	return 0;
}
