/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpsock-loop: the CPU one UDP round trip costs in calls, on one thread and one CPU.
 *
 *   dpsock-loop [--api socket|dpsock] [--wait readable|evq] [--size N] [--loops N]
 *               [--batches N] [--warmup N] [--dpsock PATH] [--cpu C] [--threaded]
 *               [--json]
 *
 * Two sockets A and B of this process, both on 127.0.0.1 (the wildcard for --api
 * dpsock, as libdpsock-preload gives loopback to dpsock), each alone in its own
 * level-triggered epoll set, as sockperf uses them. One loop is a round trip with
 * both ends in this thread:
 *
 *   A sendto B; epoll_wait(B's set); B recvfrom; B sendto A; epoll_wait(A's set); A recvfrom
 *
 * so no cache line crosses CPUs and no wait spins: the time per loop is the calls'
 * own work. --api socket makes these calls on the BSD socket API (the kernel's UDP,
 * or libdpsock-preload's under LD_PRELOAD); --api dpsock makes the same round trip on
 * libdpsock directly (dpsock_sendto, then dpsock_readable() or dpsock_evq_wait() as
 * --wait says, then dpsock_recvfrom). Every datagram received is checked (its length,
 * its first and last bytes, its sender); a wrong one fails the run.
 *
 * --threaded first starts a thread and waits for its end, so that the process counts as
 * one of several threads (glibc's __libc_single_threaded is false), as a program with
 * threads does: the preload then holds each socket for the length of each call.
 *
 * Printed: per loop, in ns (CLOCK_MONOTONIC) and TSC cycles, the best and the median
 * of --batches timed batches of --loops loops each; with --dpsock, the channels each
 * endpoint has (1: they talk over a ring pair, not through dpfwd's worker).
 *
 * Exit status: 0 ran, 1 a call failed or a datagram was wrong, 2 bad command line.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <rte_cycles.h>

#include "dpsock.h"

#define EXIT_USAGE  2
#define MAX_SIZE    65507u
#define MAX_BATCHES 1000u

enum api { API_SOCKET, API_DPSOCK };
enum wait_kind { WAIT_READABLE, WAIT_EVQ };

struct opts {
	enum api api;
	enum wait_kind wait;
	size_t size;
	unsigned long loops;
	unsigned int batches;
	unsigned long warmup;
	const char *dpsock_path;
	int cpu; /* -1: not pinned */
	bool threaded;
	bool json;
};

/* One end: a kernel (or preloaded) socket and its epoll set, or a libdpsock endpoint. */
struct end {
	int fd, epfd;
	struct dpsock *ep;
	struct dpsock_evq *evq;
	struct sockaddr_in addr; /* where the other end sends to */
};

struct loop {
	const struct opts *o;
	struct end a, b;
	uint8_t *tx, *rx;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: dpsock-loop [options]\n"
		"  --api socket|dpsock    the BSD socket calls (kernel, or the preload's under\n"
		"                         LD_PRELOAD) or libdpsock's (default socket)\n"
		"  --wait readable|evq    --api dpsock: dpsock_readable() or dpsock_evq_wait()\n"
		"                         in place of epoll_wait (default evq)\n"
		"  --size N               datagram bytes (default 16)\n"
		"  --loops N              round trips per timed batch (default 100000)\n"
		"  --batches N            timed batches (default 20)\n"
		"  --warmup N             round trips before the first batch (default 10000)\n"
		"  --dpsock PATH          dpfwd's [endpoint] socket (default $DPSOCK_PATH)\n"
		"  --cpu C                pin to CPU C first\n"
		"  --threaded             start (and join) a thread first: a process of several\n"
		"                         threads, as libc sees it\n"
		"  --json                 one JSON object on stdout in place of the text\n");
}

static int
fail(const char *what, int err)
{
	fprintf(stderr, "dpsock-loop: %s: %s\n", what, strerror(err));
	return -1;
}

static int
end_socket(struct end *e)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct epoll_event ev = { .events = EPOLLIN };
	socklen_t len = sizeof(sa);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	e->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (e->fd < 0)
		return fail("socket", errno);
	if (bind(e->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return fail("bind 127.0.0.1:0", errno);
	if (getsockname(e->fd, (struct sockaddr *)&e->addr, &len) < 0)
		return fail("getsockname", errno);
	e->epfd = epoll_create1(0);
	if (e->epfd < 0)
		return fail("epoll_create1", errno);
	if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->fd, &ev) < 0)
		return fail("epoll_ctl", errno);
	return 0;
}

static int
end_dpsock(struct end *e, const struct opts *o)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int rc;

	e->ep = dpsock_open(o->dpsock_path, AF_INET, DPSOCK_NONBLOCK);
	if (e->ep == NULL)
		return fail("dpsock_open (is dpfwd running? --dpsock)", errno);
	rc = dpsock_bind(e->ep, (struct sockaddr *)&sa, sizeof(sa));
	if (rc < 0)
		return fail("dpsock_bind 0.0.0.0:0", -rc);
	rc = dpsock_getsockname(e->ep, (struct sockaddr *)&e->addr, &len);
	if (rc < 0)
		return fail("dpsock_getsockname", -rc);
	if (o->wait == WAIT_EVQ) {
		e->evq = dpsock_evq_create(0);
		if (e->evq == NULL)
			return fail("dpsock_evq_create", errno);
		rc = dpsock_evq_add(e->evq, e->ep, DPSOCK_EV_IN, NULL);
		if (rc < 0)
			return fail("dpsock_evq_add", -rc);
	}
	return 0;
}

static void
end_close(struct end *e)
{
	if (e->evq != NULL)
		dpsock_evq_destroy(e->evq);
	if (e->ep != NULL)
		dpsock_close(e->ep);
	if (e->fd > 0)
		close(e->fd);
	if (e->epfd > 0)
		close(e->epfd);
}

/* @p from sends to @p to, @p to waits until readable and receives. @return 0 or -1. */
static int
hop(struct loop *l, struct end *from, struct end *to, uint8_t mark)
{
	struct sockaddr_in src = { 0 };
	socklen_t slen = sizeof(src);
	const size_t n = l->o->size;
	ssize_t got;

	if (n > 0) {
		l->tx[0] = mark;
		l->tx[n - 1] = mark;
	}
	if (l->o->api == API_SOCKET) {
		struct epoll_event ev;
		int k;

		if (sendto(from->fd, l->tx, n, 0, (struct sockaddr *)&to->addr, sizeof(to->addr)) !=
			(ssize_t)n)
			return fail("sendto", errno);
		do
			k = epoll_wait(to->epfd, &ev, 1, -1);
		while (k == 0 || (k < 0 && errno == EINTR));
		if (k < 0)
			return fail("epoll_wait", errno);
		got = recvfrom(to->fd, l->rx, MAX_SIZE, 0, (struct sockaddr *)&src, &slen);
		if (got < 0)
			return fail("recvfrom", errno);
	} else {
		ssize_t rc = dpsock_sendto(
			from->ep, l->tx, n, 0, (struct sockaddr *)&to->addr, sizeof(to->addr));

		if (rc != (ssize_t)n)
			return fail("dpsock_sendto", rc < 0 ? (int)-rc : EIO);
		if (l->o->wait == WAIT_EVQ) {
			struct dpsock_event ev;
			int k;

			do
				k = dpsock_evq_wait(to->evq, &ev, 1, -1);
			while (k == 0 || k == -EINTR);
			if (k < 0)
				return fail("dpsock_evq_wait", -k);
		} else {
			int r;

			while ((r = dpsock_readable(to->ep)) == 0)
				;
			if (r < 0)
				return fail("dpsock_readable", -r);
		}
		got = dpsock_recvfrom(
			to->ep, l->rx, MAX_SIZE, MSG_DONTWAIT, (struct sockaddr *)&src, &slen);
		if (got < 0)
			return fail("dpsock_recvfrom", (int)-got);
	}
	if ((size_t)got != n || (n > 0 && (l->rx[0] != mark || l->rx[n - 1] != mark)) ||
		src.sin_port != from->addr.sin_port) {
		fprintf(stderr,
			"dpsock-loop: wrong datagram: %zd bytes from port %u (sent %zu from %u)\n",
			got, ntohs(src.sin_port), n, ntohs(from->addr.sin_port));
		return -1;
	}
	return 0;
}

/* One wait on @p e that finds nothing (timeout 0): what each look of a spinning wait costs. */
static int
empty_wait(const struct loop *l, struct end *e)
{
	int k;

	if (l->o->api == API_SOCKET) {
		struct epoll_event ev;

		k = epoll_wait(e->epfd, &ev, 1, 0);
		if (k < 0)
			return fail("epoll_wait", errno);
	} else if (l->o->wait == WAIT_EVQ) {
		struct dpsock_event ev;

		k = dpsock_evq_wait(e->evq, &ev, 1, 0);
		if (k < 0)
			return fail("dpsock_evq_wait", -k);
	} else {
		k = dpsock_readable(e->ep);
		if (k < 0)
			return fail("dpsock_readable", -k);
	}
	if (k != 0) {
		fprintf(stderr, "dpsock-loop: a datagram nobody sent is readable\n");
		return -1;
	}
	return 0;
}

static int
empty_run(struct loop *l, unsigned long count)
{
	unsigned long i;

	for (i = 0; i < count; i++)
		if (empty_wait(l, &l->a) < 0)
			return -1;
	return 0;
}

static int
loops_run(struct loop *l, unsigned long count)
{
	unsigned long i;

	for (i = 0; i < count; i++)
		if (hop(l, &l->a, &l->b, (uint8_t)i) < 0 || hop(l, &l->b, &l->a, (uint8_t)~i) < 0)
			return -1;
	return 0;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median_of(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 != 0 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool
num_arg(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static void *
thread_nothing(void *arg)
{
	return arg;
}

/* @return 0, or EXIT_USAGE after a message. */
static int
opts_parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = { { "api", required_argument, NULL, 'a' },
		{ "wait", required_argument, NULL, 'w' }, { "size", required_argument, NULL, 's' },
		{ "loops", required_argument, NULL, 'n' },
		{ "batches", required_argument, NULL, 'b' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "dpsock", required_argument, NULL, 'p' }, { "cpu", required_argument, NULL, 'c' },
		{ "threaded", no_argument, NULL, 't' }, { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	unsigned long v;
	int c;

	*o = (struct opts){ .api = API_SOCKET,
		.wait = WAIT_EVQ,
		.size = 16,
		.loops = 100000,
		.batches = 20,
		.warmup = 10000,
		.cpu = -1 };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (strcmp(optarg, "socket") != 0 && strcmp(optarg, "dpsock") != 0)
				goto bad;
			o->api = strcmp(optarg, "dpsock") == 0 ? API_DPSOCK : API_SOCKET;
			break;
		case 'w':
			if (strcmp(optarg, "readable") != 0 && strcmp(optarg, "evq") != 0)
				goto bad;
			o->wait = strcmp(optarg, "evq") == 0 ? WAIT_EVQ : WAIT_READABLE;
			break;
		case 's':
			if (!num_arg(optarg, 1, MAX_SIZE, &v))
				goto bad;
			o->size = v;
			break;
		case 'n':
			if (!num_arg(optarg, 1, 1000000000, &o->loops))
				goto bad;
			break;
		case 'b':
			if (!num_arg(optarg, 1, MAX_BATCHES, &v))
				goto bad;
			o->batches = (unsigned int)v;
			break;
		case 'W':
			if (!num_arg(optarg, 0, 1000000000, &o->warmup))
				goto bad;
			break;
		case 'p':
			o->dpsock_path = optarg;
			break;
		case 'c':
			if (!num_arg(optarg, 0, CPU_SETSIZE - 1, &v))
				goto bad;
			o->cpu = (int)v;
			break;
		case 't':
			o->threaded = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "dpsock-loop: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
bad:
	for (v = 0; lo[v].name != NULL && lo[v].val != c; v++)
		;
	fprintf(stderr, "dpsock-loop: bad value '%s' for --%s (see --help)\n", optarg,
		lo[v].name != NULL ? lo[v].name : "?");
	return EXIT_USAGE;
}

/* Channels of each endpoint (--api dpsock), -1 each otherwise. */
static void
channels_of(const struct loop *l, long ch[2])
{
	const struct end *e[2] = { &l->a, &l->b };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct dpsock_stats st;

		ch[i] = e[i]->ep != NULL && dpsock_stats_get(e[i]->ep, &st) == 0 ? (long)st.channels
										 : -1;
	}
}

/* Per-batch timings of one kind: ns and TSC cycles per operation. */
struct timing {
	double ns[MAX_BATCHES], cyc[MAX_BATCHES];
	double ns_best, ns_med, cyc_best, cyc_med;
};

static void
timing_sum(struct timing *t, unsigned int n)
{
	t->ns_med = median_of(t->ns, n); /* sorted: [0] is the best */
	t->ns_best = t->ns[0];
	t->cyc_med = median_of(t->cyc, n);
	t->cyc_best = t->cyc[0];
}

static void
report(const struct loop *l, struct timing *rt, struct timing *empty, uint64_t hz)
{
	const struct opts *o = l->o;
	const char *api = o->api == API_DPSOCK
				  ? (o->wait == WAIT_EVQ ? "dpsock-evq" : "dpsock-readable")
				  : "socket";
	const char *pre = getenv("LD_PRELOAD");
	const bool preloaded = pre != NULL && strstr(pre, "dpsock-preload") != NULL;
	long ch[2];

	timing_sum(rt, o->batches);
	timing_sum(empty, o->batches);
	channels_of(l, ch);
	if (o->json) {
		printf("{\"api\": \"%s\", \"preload\": %s, \"threaded\": %s, \"size\": %zu, "
		       "\"loops\": %lu, \"batches\": %u, \"ns_per_loop\": {\"best\": %.1f, \"median\": %.1f}, "
		       "\"cycles_per_loop\": {\"best\": %.0f, \"median\": %.0f}, "
		       "\"ns_per_empty_wait\": {\"best\": %.1f, \"median\": %.1f}, "
		       "\"cycles_per_empty_wait\": {\"best\": %.0f, \"median\": %.0f}, "
		       "\"tsc_hz\": %" PRIu64 ", \"channels\": [%ld, %ld]}\n",
			api, preloaded ? "true" : "false", o->threaded ? "true" : "false", o->size,
			o->loops, o->batches, rt->ns_best, rt->ns_med, rt->cyc_best, rt->cyc_med,
			empty->ns_best, empty->ns_med, empty->cyc_best, empty->cyc_med, hz, ch[0],
			ch[1]);
		return;
	}
	printf("api %s%s%s, %zu B, %u batches of %lu loops\n", api,
		preloaded ? " (LD_PRELOAD preload)" : "", o->threaded ? ", threaded" : "", o->size,
		o->batches, o->loops);
	printf("per loop:       best %8.1f ns %6.0f cycles, median %8.1f ns %6.0f cycles\n",
		rt->ns_best, rt->cyc_best, rt->ns_med, rt->cyc_med);
	printf("per empty wait: best %8.1f ns %6.0f cycles, median %8.1f ns %6.0f cycles\n",
		empty->ns_best, empty->cyc_best, empty->ns_med, empty->cyc_med);
	if (ch[0] >= 0)
		printf("channels: A %ld, B %ld\n", ch[0], ch[1]);
}

/* Time @p count of @p run in batch @p i of @p t. @return 0 or -1. */
static int
timed(struct loop *l, int (*run)(struct loop *, unsigned long), unsigned long count,
	struct timing *t, unsigned int i)
{
	const uint64_t t0 = now_ns(), c0 = rte_rdtsc();

	if (run(l, count) < 0)
		return -1;
	t->cyc[i] = (double)(rte_rdtsc() - c0) / (double)count;
	t->ns[i] = (double)(now_ns() - t0) / (double)count;
	return 0;
}

int
main(int argc, char **argv)
{
	static struct timing rt, empty;
	struct opts o;
	struct loop l = { .o = &o, .a = { .fd = -1, .epfd = -1 }, .b = { .fd = -1, .epfd = -1 } };
	uint64_t hz, t0, c0;
	unsigned int i;
	int rc = 1;

	if (opts_parse(argc, argv, &o) != 0)
		return EXIT_USAGE;
	if (o.threaded) {
		pthread_t th;

		if (pthread_create(&th, NULL, thread_nothing, NULL) != 0 ||
			pthread_join(th, NULL) != 0) {
			fail("pthread_create", EAGAIN);
			return 1;
		}
	}
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			fail("sched_setaffinity", errno);
			return 1;
		}
	}
	l.tx = calloc(1, MAX_SIZE);
	l.rx = calloc(1, MAX_SIZE);
	if (l.tx == NULL || l.rx == NULL) {
		fail("calloc", ENOMEM);
		goto out;
	}
	if (o.api == API_SOCKET ? end_socket(&l.a) < 0 || end_socket(&l.b) < 0
				: end_dpsock(&l.a, &o) < 0 || end_dpsock(&l.b, &o) < 0)
		goto out;
	if (loops_run(&l, o.warmup) < 0)
		goto out;
	/* the TSC's rate over the whole run, against CLOCK_MONOTONIC */
	t0 = now_ns();
	c0 = rte_rdtsc();
	for (i = 0; i < o.batches; i++)
		if (timed(&l, loops_run, o.loops, &rt, i) < 0 ||
			timed(&l, empty_run, o.loops, &empty, i) < 0)
			goto out;
	hz = (uint64_t)((double)(rte_rdtsc() - c0) * 1e9 / (double)(now_ns() - t0));
	report(&l, &rt, &empty, hz);
	rc = 0;
out:
	end_close(&l.a);
	end_close(&l.b);
	free(l.tx);
	free(l.rx);
	return rc;
}
