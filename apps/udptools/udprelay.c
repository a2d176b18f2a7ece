/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udprelay: a small epoll UDP relay in Linux userspace: the anchor dpfwd's relay is
 * measured against (a userspace relay, as eBPF relay studies compare with).
 *
 *   udprelay -l LISTEN_ADDR:PORT -b BACKEND_ADDR:PORT [-i IDLE_S] [-m MAX_SESSIONS]
 *
 *   client --> listen socket --(session: its own connected socket)--> backend
 *   client <-- listen socket (sendto client) <--------------------- backend
 *
 * Each client (address, port) gets a session: a UDP socket connect()ed to the backend
 * (an ephemeral source port of its own, so the backend tells clients apart and its
 * answers come back on that socket only). Answers are sent to the client from the
 * listen socket, so the client sees them come from the address it sent to. All
 * sockets are non-blocking and in one epoll set (level-triggered); datagrams are
 * read with recvmmsg and written with sendmmsg, up to 32 per call. Sessions idle for
 * IDLE_S seconds are closed by a sweep once a second; when MAX_SESSIONS are open the
 * least recently used one is closed to make room (evicted). A datagram the kernel
 * will not take (EAGAIN, full socket buffer) is dropped and counted.
 *
 * At SIGINT/SIGTERM it prints its counters as one JSON line on stdout and exits 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "udp_common.h"

#define RELAY_BATCH 32u
#define RELAY_MTU   65536u
#define EXIT_USAGE  2

struct session {
	struct sockaddr_storage client;
	socklen_t client_len;
	int fd; /* connected to the backend */
	uint64_t last_ns;
	struct session *hnext;       /* hash chain */
	struct session *prev, *next; /* LRU list, most recent at the head */
};

struct relay {
	int ep;
	int lfd;
	struct sockaddr_storage backend;
	socklen_t backend_len;
	uint64_t idle_ns;
	uint32_t max_sessions;
	uint32_t nb_sessions;
	uint32_t nb_buckets;
	struct session **buckets;
	struct session lru; /* sentinel */
	uint8_t (*bufs)[RELAY_MTU];
	struct {
		uint64_t sessions_created, expired, evicted, socket_errors;
		uint64_t pkts_to_backend, pkts_to_client, bytes_to_backend, bytes_to_client;
		uint64_t drop_to_backend, drop_to_client, wakeups;
	} st;
};

static void
usage(FILE *f)
{
	fprintf(f, "Usage: udprelay -l LISTEN_ADDR:PORT -b BACKEND_ADDR:PORT [-i IDLE_S] [-m "
		   "MAX_SESSIONS]\n"
		   "  -l, --listen ADDR:PORT     where clients send (a.b.c.d:port or [ipv6]:port; "
		   "port 0:\n"
		   "                             any, the one bound is printed on stderr)\n"
		   "  -b, --backend ADDR:PORT    where datagrams are relayed to (same family)\n"
		   "  -i, --idle S               close a session idle for S seconds (default 300)\n"
		   "  -m, --max-sessions N       sessions at most, LRU eviction beyond (default "
		   "65536)\n"
		   "Counters as JSON on stdout at SIGINT/SIGTERM.\n");
}

/* ---- session table: chained hash on the client address, LRU list ---- */

static uint32_t
addr_hash(const struct sockaddr_storage *ss, uint32_t nb)
{
	const uint8_t *p = (const uint8_t *)ss;
	size_t n = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					     : sizeof(struct sockaddr_in);
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h & (nb - 1);
}

static bool
addr_eq(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
	}
	{
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
}

static void
lru_unlink(struct session *s)
{
	s->prev->next = s->next;
	s->next->prev = s->prev;
}

static void
lru_push(struct relay *r, struct session *s)
{
	s->next = r->lru.next;
	s->prev = &r->lru;
	r->lru.next->prev = s;
	r->lru.next = s;
}

static void
session_close(struct relay *r, struct session *s)
{
	struct session **pp = &r->buckets[addr_hash(&s->client, r->nb_buckets)];

	while (*pp != s)
		pp = &(*pp)->hnext;
	*pp = s->hnext;
	lru_unlink(s);
	epoll_ctl(r->ep, EPOLL_CTL_DEL, s->fd, NULL);
	close(s->fd);
	free(s);
	r->nb_sessions--;
}

static struct session *
session_find(struct relay *r, const struct sockaddr_storage *client)
{
	struct session *s = r->buckets[addr_hash(client, r->nb_buckets)];

	while (s && !addr_eq(&s->client, client))
		s = s->hnext;
	return s;
}

static struct session *
session_open(struct relay *r, const struct sockaddr_storage *client, socklen_t len)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct session *s;
	uint32_t b;

	if (r->nb_sessions >= r->max_sessions) {
		session_close(r, r->lru.prev); /* the least recently used */
		r->st.evicted++;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = socket(r->backend.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		goto fail;
	if (connect(s->fd, (const struct sockaddr *)&r->backend, r->backend_len) < 0)
		goto fail_fd;
	ev.data.ptr = s;
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, s->fd, &ev) < 0)
		goto fail_fd;
	memcpy(&s->client, client, len);
	s->client_len = len;
	b = addr_hash(client, r->nb_buckets);
	s->hnext = r->buckets[b];
	r->buckets[b] = s;
	lru_push(r, s);
	r->nb_sessions++;
	r->st.sessions_created++;
	return s;
fail_fd:
	close(s->fd);
fail:
	free(s);
	r->st.socket_errors++;
	return NULL;
}

static void
sweep(struct relay *r, uint64_t now)
{
	struct session *s = r->lru.prev, *newer;

	/* from the least recently used on, until one is not idle */
	while (s != &r->lru && now - s->last_ns > r->idle_ns) {
		newer = s->prev;
		session_close(r, s);
		r->st.expired++;
		s = newer;
	}
}

/* ---- datagrams ---- */

static void
prep(struct relay *r, struct mmsghdr *m, struct iovec *iov, struct sockaddr_storage *names,
	unsigned int n)
{
	unsigned int i;

	memset(m, 0, sizeof(*m) * n);
	for (i = 0; i < n; i++) {
		iov[i].iov_base = r->bufs[i];
		iov[i].iov_len = RELAY_MTU;
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
		if (names) {
			m[i].msg_hdr.msg_name = &names[i];
			m[i].msg_hdr.msg_namelen = sizeof(names[i]);
		}
	}
}

/* clients -> backend: one batch from the listen socket, runs of one session in one
 * sendmmsg on its socket */
static void
from_clients(struct relay *r, uint64_t now)
{
	struct sockaddr_storage names[RELAY_BATCH];
	struct mmsghdr m[RELAY_BATCH];
	struct iovec iov[RELAY_BATCH];
	unsigned int i, j;
	int n, k;

	prep(r, m, iov, names, RELAY_BATCH);
	n = recvmmsg(r->lfd, m, RELAY_BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return;
	for (i = 0; i < (unsigned int)n; i = j) {
		struct session *s = session_find(r, &names[i]);

		if (!s)
			s = session_open(r, &names[i], m[i].msg_hdr.msg_namelen);
		for (j = i + 1; j < (unsigned int)n && addr_eq(&names[j], &names[i]); j++)
			;
		if (!s) {
			r->st.drop_to_backend += j - i;
			continue;
		}
		s->last_ns = now;
		lru_unlink(s);
		lru_push(r, s);
		for (k = (int)i; k < (int)j; k++) {
			iov[k].iov_len = m[k].msg_len;
			m[k].msg_hdr.msg_name = NULL; /* connected */
			m[k].msg_hdr.msg_namelen = 0;
			r->st.bytes_to_backend += m[k].msg_len;
		}
		k = sendmmsg(s->fd, &m[i], j - i, MSG_DONTWAIT);
		if (k < 0)
			k = 0;
		r->st.pkts_to_backend += (uint64_t)k;
		r->st.drop_to_backend += (j - i) - (unsigned int)k;
	}
}

/* backend -> one client: one batch from the session's socket, one sendmmsg from the
 * listen socket to the client */
static void
from_backend(struct relay *r, struct session *s, uint64_t now)
{
	struct mmsghdr m[RELAY_BATCH];
	struct iovec iov[RELAY_BATCH];
	unsigned int i;
	int n, k;

	prep(r, m, iov, NULL, RELAY_BATCH);
	n = recvmmsg(s->fd, m, RELAY_BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return; /* EAGAIN, or ECONNREFUSED (ICMP from the backend) */
	for (i = 0; i < (unsigned int)n; i++) {
		iov[i].iov_len = m[i].msg_len;
		m[i].msg_hdr.msg_name = &s->client;
		m[i].msg_hdr.msg_namelen = s->client_len;
		r->st.bytes_to_client += m[i].msg_len;
	}
	k = sendmmsg(r->lfd, m, (unsigned int)n, MSG_DONTWAIT);
	if (k < 0)
		k = 0;
	r->st.pkts_to_client += (uint64_t)k;
	r->st.drop_to_client += (uint64_t)(n - k);
	s->last_ns = now;
	lru_unlink(s);
	lru_push(r, s);
}

/* Closes what relay_open() opened, however far it got; a second call does nothing. */
static void
relay_close(struct relay *r)
{
	while (r->lru.next != &r->lru)
		session_close(r, r->lru.next);
	if (r->lfd >= 0)
		close(r->lfd);
	if (r->ep >= 0)
		close(r->ep);
	r->lfd = r->ep = -1;
	free(r->buckets);
	r->buckets = NULL;
	free(r->bufs);
	r->bufs = NULL;
}

static int
relay_open(struct relay *r, const struct sockaddr_storage *listen_ss, socklen_t llen)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	int one = 1, bufsz = 4 << 20, rc;
	char a[80];

	r->lru.next = r->lru.prev = &r->lru;
	for (r->nb_buckets = 64; r->nb_buckets < r->max_sessions * 2u; r->nb_buckets <<= 1)
		;
	r->buckets = calloc(r->nb_buckets, sizeof(*r->buckets));
	r->bufs = malloc(sizeof(*r->bufs) * RELAY_BATCH);
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	r->lfd = socket(listen_ss->ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!r->buckets || !r->bufs) {
		rc = -ENOMEM;
		goto fail;
	}
	if (r->ep < 0 || r->lfd < 0) {
		rc = -errno;
		goto fail;
	}
	setsockopt(r->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(r->lfd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	setsockopt(r->lfd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	if (bind(r->lfd, (const struct sockaddr *)listen_ss, llen) < 0) {
		rc = -errno;
		fprintf(stderr, "udprelay: bind %s: %s\n",
			udp_addr_str((const struct sockaddr *)listen_ss, a, sizeof(a)),
			strerror(-rc));
		goto fail;
	}
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, r->lfd, &ev) < 0) {
		rc = -errno;
		goto fail;
	}
	return 0;
fail:
	relay_close(r);
	return rc;
}

static void
print_stats(const struct relay *r)
{
	printf("{\"tool\": \"udprelay\", \"sessions_active\": %u, \"sessions_created\": %" PRIu64
	       ", \"expired\": %" PRIu64 ", \"evicted\": %" PRIu64 ", \"socket_errors\": %" PRIu64
	       ", \"pkts_to_backend\": %" PRIu64 ", \"pkts_to_client\": %" PRIu64
	       ", \"bytes_to_backend\": %" PRIu64 ", \"bytes_to_client\": %" PRIu64
	       ", \"drop_to_backend\": %" PRIu64 ", \"drop_to_client\": %" PRIu64
	       ", \"wakeups\": %" PRIu64 "}\n",
		r->nb_sessions, r->st.sessions_created, r->st.expired, r->st.evicted,
		r->st.socket_errors, r->st.pkts_to_backend, r->st.pkts_to_client,
		r->st.bytes_to_backend, r->st.bytes_to_client, r->st.drop_to_backend,
		r->st.drop_to_client, r->st.wakeups);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "backend", required_argument, NULL, 'b' },
		{ "idle", required_argument, NULL, 'i' },
		{ "max-sessions", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct epoll_event evs[64];
	struct sockaddr_storage lss;
	socklen_t llen = 0;
	struct relay r;
	const char *listen_arg = NULL, *backend_arg = NULL;
	uint64_t v, last_sweep = 0;
	char a[80], b[80];
	int c, n, i, rc;
	bool clients;

	memset(&r, 0, sizeof(r));
	r.idle_ns = 300ull * 1000000000ull;
	r.max_sessions = 65536;
	while ((c = getopt_long(argc, argv, "l:b:i:m:h", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen_arg = optarg;
			break;
		case 'b':
			backend_arg = optarg;
			break;
		case 'i':
			if (udp_parse_u64(optarg, 1, 86400, &v) < 0)
				goto bad;
			r.idle_ns = v * 1000000000ull;
			break;
		case 'm':
			if (udp_parse_u64(optarg, 1, 1u << 20, &v) < 0)
				goto bad;
			r.max_sessions = (uint32_t)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || !listen_arg || !backend_arg) {
		fprintf(stderr, "udprelay: -l LISTEN and -b BACKEND are required, nothing else\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (udp_parse_addr(listen_arg, &lss, &llen) < 0) {
		fprintf(stderr, "udprelay: bad --listen '%s' (a.b.c.d:port or [ipv6]:port)\n",
			listen_arg);
		return EXIT_USAGE;
	}
	if (udp_parse_addr(backend_arg, &r.backend, &r.backend_len) < 0 ||
		r.backend.ss_family != lss.ss_family) {
		fprintf(stderr, "udprelay: bad --backend '%s' (the family of --listen)\n",
			backend_arg);
		return EXIT_USAGE;
	}
	rc = relay_open(&r, &lss, llen);
	if (rc < 0) {
		fprintf(stderr, "udprelay: %s\n", strerror(-rc));
		return 1;
	}
	udp_signals_install();
	llen = sizeof(lss);
	getsockname(r.lfd, (struct sockaddr *)&lss, &llen); /* the port bound, with port 0 */
	fprintf(stderr, "udprelay: %s -> %s\n", udp_addr_str((struct sockaddr *)&lss, a, sizeof(a)),
		udp_addr_str((struct sockaddr *)&r.backend, b, sizeof(b)));
	while (!udp_stop) {
		uint64_t now;

		n = epoll_wait(r.ep, evs, 64, 1000);
		now = udp_now_ns();
		if (n > 0)
			r.st.wakeups++;
		clients = false;
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == NULL)
				clients = true;
			else
				from_backend(&r, evs[i].data.ptr, now);
		}
		/* last: a new client may evict (free) a session whose event is in evs[] */
		if (clients)
			from_clients(&r, now);
		if (now - last_sweep > 1000000000ull) {
			sweep(&r, now);
			last_sweep = now;
		}
	}
	print_stats(&r);
	relay_close(&r);
	return 0;
bad:
	fprintf(stderr, "udprelay: bad value '%s' for -%c\n", optarg, c);
	return EXIT_USAGE;
}
