/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdpsock-preload: an unmodified program's UDP sockets (AF_INET/AF_INET6,
 * SOCK_DGRAM) become dpsock endpoints; every other descriptor stays the
 * kernel's. LD_PRELOAD=libdpsock-preload.so PROGRAM, or dpsock-run PROGRAM.
 * The environment it reads and the rules it keeps: docs/dpsock.md
 * ("Unmodified programs").
 *
 * This file: the libc functions it stands in front of (dlsym(RTLD_NEXT)),
 * the table fd -> struct pl_sock, the policy, and the calls that make,
 * name, copy and close sockets, their flags and options.
 */
/* fcntl and fcntl64 are both defined here: no header may rename one to the other */
#undef _FILE_OFFSET_BITS
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/single_threaded.h>

#include "preload_priv.h"

struct pl_real pl_real;
uint64_t pl_spin_ns = 20000;
/* DPSOCK_PRELOAD_STATS: the file each endpoint's counters are appended to, or NULL. */
static const char *stats_path;

/* Ports and prefixes of DPSOCK_PRELOAD_PORTS / DPSOCK_PRELOAD_ADDRS. */
#define PL_POLICY_MAX 32

struct pl_range {
	uint16_t lo, hi;
};

struct pl_prefix {
	int family;
	uint8_t addr[16];
	unsigned int len;
};

static struct {
	bool off;       /* DPSOCK_PRELOAD=0 */
	bool fail;      /* DPSOCK_FALLBACK=fail */
	bool filtered;  /* a port or address list: decide at bind/connect/send */
	int attach_err; /* the first dpsock_open() failed with this: the kernel's from then on */
	unsigned int nb_ports, nb_addrs;
	struct pl_range ports[PL_POLICY_MAX];
	struct pl_prefix addrs[PL_POLICY_MAX];
} pol;

/* Forks and execs seen (users_add()): a socket counted since has gen equal to it */
static unsigned int pl_fork_gen;

struct pl_sock **pl_table;
int pl_table_size;
static int table_used; /* above every descriptor ever in the table */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static bool inited;
/* destroyed sockets, for socket() to take again (under table_lock): a pl_sock is never
 * freed, since pl_get() may look at one just destroyed */
static struct pl_sock *free_socks;

/* ---- libc, resolved ---- */

#define REAL(name) pl_real.name = dlsym(RTLD_NEXT, #name)

static void
real_resolve(void)
{
	REAL(socket);
	REAL(bind);
	REAL(connect);
	REAL(getsockname);
	REAL(getpeername);
	REAL(send);
	REAL(sendto);
	REAL(sendmsg);
	REAL(sendmmsg);
	REAL(write);
	REAL(writev);
	REAL(recv);
	REAL(recvfrom);
	REAL(recvmsg);
	REAL(recvmmsg);
	REAL(read);
	REAL(readv);
	REAL(close);
	REAL(shutdown);
	REAL(dup);
	REAL(dup2);
	REAL(dup3);
	REAL(fcntl);
	REAL(ioctl);
	REAL(setsockopt);
	REAL(getsockopt);
	REAL(poll);
	REAL(ppoll);
	REAL(select);
	REAL(pselect);
	REAL(epoll_ctl);
	REAL(epoll_wait);
	REAL(epoll_pwait);
}

/* "5000,6000-6010" */
static int
ports_parse(const char *s)
{
	while (*s != '\0') {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s)
				return -1;
		}
		if (lo > hi || hi > 65535 || pol.nb_ports == PL_POLICY_MAX)
			return -1;
		pol.ports[pol.nb_ports++] = (struct pl_range){ (uint16_t)lo, (uint16_t)hi };
		s = end;
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -1;
	}
	return 0;
}

/* "198.18.0.0/24,2001:db8::/64,127.0.0.1" */
static int
addrs_parse(const char *s)
{
	char buf[INET6_ADDRSTRLEN + 8];

	while (*s != '\0') {
		size_t n = strcspn(s, ",");
		struct pl_prefix *p = &pol.addrs[pol.nb_addrs];
		char *slash;

		if (n == 0 || n >= sizeof(buf) || pol.nb_addrs == PL_POLICY_MAX)
			return -1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		slash = strchr(buf, '/');
		if (slash != NULL)
			*slash = '\0';
		if (inet_pton(AF_INET, buf, p->addr) == 1) {
			p->family = AF_INET;
			p->len = 32;
		} else if (inet_pton(AF_INET6, buf, p->addr) == 1) {
			p->family = AF_INET6;
			p->len = 128;
		} else {
			return -1;
		}
		if (slash != NULL) {
			char *end;
			unsigned long l = strtoul(slash + 1, &end, 10);

			if (*end != '\0' || end == slash + 1 || l > p->len)
				return -1;
			p->len = (unsigned int)l;
		}
		pol.nb_addrs++;
		s += n;
		if (*s == ',')
			s++;
	}
	return 0;
}

/* A mistake in the environment: said once, and the library stays out of the way. */
static void
env_error(const char *var, const char *val, const char *what)
{
	fprintf(stderr,
		"dpsock-preload: %s=\"%s\": %s; every socket stays with the kernel "
		"(docs/dpsock.md, \"Unmodified programs\")\n",
		var, val, what);
	pol.off = true;
}

static void
policy_load(void)
{
	const char *v;

	v = getenv("DPSOCK_PRELOAD");
	if (v != NULL && strcmp(v, "0") == 0)
		pol.off = true;
	v = getenv("DPSOCK_FALLBACK");
	if (v != NULL && strcmp(v, "fail") == 0)
		pol.fail = true;
	else if (v != NULL && *v != '\0' && strcmp(v, "kernel") != 0)
		env_error("DPSOCK_FALLBACK", v, "not kernel or fail");
	v = getenv("DPSOCK_PRELOAD_PORTS");
	if (v != NULL && *v != '\0') {
		if (ports_parse(v) < 0)
			env_error("DPSOCK_PRELOAD_PORTS", v,
				"not a list of ports and ranges (5000,6000-6010; at most 32)");
		pol.filtered = true;
	}
	v = getenv("DPSOCK_PRELOAD_ADDRS");
	if (v != NULL && *v != '\0') {
		if (addrs_parse(v) < 0)
			env_error("DPSOCK_PRELOAD_ADDRS", v,
				"not a list of addresses or prefixes (198.18.0.0/24,::1; at most "
				"32)");
		pol.filtered = true;
	}
	v = getenv("DPSOCK_PRELOAD_STATS");
	if (v != NULL && *v != '\0')
		stats_path = v;
	v = getenv("DPSOCK_SPIN_US");
	if (v != NULL && *v != '\0') {
		char *end;
		unsigned long us = strtoul(v, &end, 10);

		if (*end == '\0' && us <= 1000000)
			pl_spin_ns = us * 1000;
	}
}

void
pl_init(void)
{
	struct rlimit rl;
	rlim_t n = 65536;

	if (__atomic_load_n(&inited, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&table_lock);
	if (!inited) {
		real_resolve();
		policy_load();
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
			rl.rlim_max > n)
			n = rl.rlim_max < (1u << 20) ? rl.rlim_max : (1u << 20);
		pl_table = calloc(n, sizeof(*pl_table));
		pl_table_size = pl_table != NULL ? (int)n : 0;
		__atomic_store_n(&inited, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&table_lock);
}

/*
 * Users of a socket across fork: the child counts itself as one of every socket it
 * inherits, and stops counting when it closes the socket, execs (its descriptors
 * close) or exits. A socket's last user frees its endpoint.
 */
static void
users_add(int delta)
{
	int fd;

	pl_fork_gen++;
	for (fd = 0; fd < table_used; fd++) {
		struct pl_sock *s = pl_table[fd];

		if (s != NULL && s->dpsock && s->gen != pl_fork_gen) {
			s->gen = pl_fork_gen; /* once per socket, whatever its dups */
			__atomic_add_fetch(s->users, delta, __ATOMIC_ACQ_REL);
		}
	}
}

/* Before fork: the child to be counted now, so that a close in the parent right after
 * the fork cannot free what the child is about to use */
static void
fork_prepare(void)
{
	users_add(1);
}

/*
 * After fork, in the child: a lock a thread of the parent held is no one's there, and the
 * datagrams the parent took ahead for its program are the parent's (the child's copy of
 * the list forgotten, not freed: two processes would give the same buffers back).
 */
static void
fork_child(void)
{
	int fd;

	for (fd = 0; fd < table_used; fd++) {
		struct pl_sock *s = pl_table[fd];

		if (s == NULL)
			continue;
		rte_spinlock_init(&s->lock);
		/* the thread that forked is in no call: the descriptors' hold is the only one */
		__atomic_store_n(&s->holds, 1, __ATOMIC_RELAXED);
		if (s->dpsock)
			pl_forget_taken(s);
	}
	pl_epoll_fork_child();
}

/*
 * This process stops using @p s (closed while another process uses it, or the
 * process exits): what it took of the socket goes back, unless another process has used
 * the socket since (then it is that one's turn, and the rings are its to touch): the
 * datagrams taken ahead for the program, whose data goes with this process, and what
 * libdpsock kept. Takes s->lock, or does nothing when a thread inside a call holds it.
 */
static void
sock_give_back(struct pl_sock *s)
{
	if (!rte_spinlock_trylock(&s->lock))
		return;
	if (dpsock_flush(s->ep) == 1 && s->held != NULL) {
		pl_drop_all(s);
		dpsock_flush(s->ep);
	}
	rte_spinlock_unlock(&s->lock);
}

/*
 * The counters of @p s, last seen through descriptor @p fd, as one JSON line appended to
 * DPSOCK_PRELOAD_STATS (O_APPEND: whole lines from several processes), once per socket:
 * at its last close, or at exit for one still open.
 */
static void
stats_write(int fd, struct pl_sock *s)
{
	struct dpsock_stats st;
	char line[512];
	int n, f;

	if (stats_path == NULL || !s->dpsock || s->stats_written ||
		dpsock_stats_get(s->ep, &st) < 0)
		return;
	s->stats_written = true;
	n = snprintf(line, sizeof(line),
		"{\"pid\": %d, \"fd\": %d, \"tx_msgs\": %" PRIu64 ", \"tx_bytes\": %" PRIu64
		", \"rx_msgs\": %" PRIu64 ", \"rx_bytes\": %" PRIu64 ", \"tx_again\": %" PRIu64
		", \"rx_dropped\": %" PRIu64 ", \"wakeups\": %" PRIu64 ", \"sleeps\": %" PRIu64
		"}\n",
		(int)getpid(), fd, st.tx_msgs, st.tx_bytes, st.rx_msgs, st.rx_bytes, st.tx_again,
		st.rx_dropped, st.wakeups, st.sleeps);
	f = open(stats_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0)
		return;
	if (write(f, line, (size_t)n) != n)
		fprintf(stderr, "libdpsock-preload: DPSOCK_PRELOAD_STATS %s: short write\n",
			stats_path);
	pl_real.close(f);
}

/* The process ends: it uses its sockets no more (exit's handlers, or _exit itself). */
static bool exiting; /* exit_uncount() ran: closes from now on free nothing */

static void
exit_uncount(void)
{
	int fd;

	if (pl_table != NULL && !exiting) {
		for (fd = 0; stats_path != NULL && fd < pl_table_size; fd++)
			if (pl_table[fd] != NULL)
				stats_write(fd, pl_table[fd]);
		/* for the process that uses a socket next */
		for (fd = 0; fd < pl_table_size; fd++)
			if (pl_table[fd] != NULL && pl_table[fd]->dpsock)
				sock_give_back(pl_table[fd]);
		users_add(-1);
	}
	exiting = true;
}

void
_exit(int status)
{
	static void (*real_exit)(int);

	exit_uncount();
	if (real_exit == NULL)
		real_exit = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
	real_exit(status);
	__builtin_unreachable();
}

void
_Exit(int status)
{
	_exit(status);
}

__attribute__((constructor)) static void
pl_ctor(void)
{
	pl_init();
	pthread_atfork(fork_prepare, NULL, fork_child);
	atexit(exit_uncount);
}

uint64_t
pl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the table ---- */

static void
table_set(int fd, struct pl_sock *s)
{
	if (fd < 0 || fd >= pl_table_size)
		return;
	/* seq_cst: a close's store and pl_get()'s count-then-look are ordered (pl_get()) */
	__atomic_store_n(&pl_table[fd], s, __ATOMIC_SEQ_CST);
	if (s != NULL && fd >= table_used)
		__atomic_store_n(&table_used, fd + 1, __ATOMIC_RELEASE);
}

struct pl_sock *
pl_get_held(int fd)
{
	for (;;) {
		struct pl_sock *s = pl_sock_of(fd);

		if (s == NULL)
			return NULL;
		if (!pl_hold_unless_gone(&s->holds))
			continue; /* destroyed after this thread read the table: read it again */
		/*
		 * Still its socket: either this look comes before a close's store to the
		 * table, and the close's pl_hold_drop() then sees this hold, or it sees the
		 * store.
		 */
		if (__atomic_load_n(&pl_table[fd], __ATOMIC_SEQ_CST) == s)
			return s;
		pl_hold_drop(s);
	}
}

/* A new socket's memory: one destroyed before, or a new one. */
static struct pl_sock *
sock_alloc(void)
{
	struct pl_sock *s;

	pthread_mutex_lock(&table_lock);
	s = free_socks;
	if (s != NULL)
		free_socks = s->next_free;
	pthread_mutex_unlock(&table_lock);
	if (s == NULL)
		return calloc(1, sizeof(*s));
	/* all but the count, which a late pl_get() may still read (and leave at 0) */
	memset((char *)s + offsetof(struct pl_sock, lock), 0,
		sizeof(*s) - offsetof(struct pl_sock, lock));
	return s;
}

static void stats_write(int fd, struct pl_sock *s);

/* The last hold went: the endpoint closed and the memory kept for the next socket(). */
static void
sock_destroy(struct pl_sock *s)
{
	if (s->dpsock) {
		stats_write(s->last_fd, s);
		/* again: an epoll_ctl() that held it may have added it after the close */
		pl_epoll_forget(s);
		pl_drop_all(s);
		dpsock_evq_destroy(s->evq);
		dpsock_close(s->ep);
		pl_real.close(s->shadow);
		munmap(s->users, sizeof(*s->users));
	}
	pthread_mutex_lock(&table_lock);
	s->next_free = free_socks;
	free_socks = s;
	pthread_mutex_unlock(&table_lock);
}

void
pl_hold_drop(struct pl_sock *s)
{
	if (__atomic_sub_fetch(&s->holds, 1, __ATOMIC_SEQ_CST) == 0) {
		const int e = errno;

		sock_destroy(s);
		errno = e;
	}
}

/* Every descriptor of @p s (dups) but @p except, into @p out; @return how many. */
static int
fds_of(const struct pl_sock *s, int except, int *out, int max)
{
	int fd, n = 0;

	for (fd = 0; fd < table_used && n < max; fd++)
		if (fd != except && pl_table[fd] == s)
			out[n++] = fd;
	return n;
}

int
pl_errno_of(int rc)
{
	rc = -rc;
	return rc == ENOTCONN ? ENETDOWN : rc;
}

/* ---- addresses ---- */

bool
pl_addr_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

void
pl_addr_to_dp(const struct sockaddr *sa, socklen_t len, struct sockaddr_storage *out)
{
	const size_t n = sizeof(struct sockaddr_in6); /* the larger family's, all dpsock reads */

	memset(out, 0, n);
	if (sa == NULL)
		return; /* not from a caller: each checked it first (addr_check()) */
	memcpy(out, sa, len < n ? len : n);
	if (!pl_addr_is_loopback(sa))
		return;
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)out)->sin_addr.s_addr = htonl(INADDR_ANY);
	else
		((struct sockaddr_in6 *)out)->sin6_addr = in6addr_any;
}

/* EINVAL / EAFNOSUPPORT as Linux gives them for an address of the wrong size or family. */
static int
addr_check(const struct pl_sock *s, const struct sockaddr *sa, socklen_t len)
{
	if (sa == NULL)
		return -EFAULT;
	if (len < sizeof(sa_family_t))
		return -EINVAL;
	if (sa->sa_family != s->family)
		return -EAFNOSUPPORT;
	if (len < (s->family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)))
		return -EINVAL;
	return 0;
}

static uint16_t
addr_port(const struct sockaddr *sa)
{
	return ntohs(sa->sa_family == AF_INET ? ((const struct sockaddr_in *)sa)->sin_port
					      : ((const struct sockaddr_in6 *)sa)->sin6_port);
}

static bool
addr_is_wildcard(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static bool
prefix_has(const struct pl_prefix *p, const struct sockaddr *sa)
{
	const uint8_t *a;
	unsigned int full, rest;

	if (p->family != sa->sa_family)
		return false;
	a = sa->sa_family == AF_INET
		    ? (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr
		    : (const uint8_t *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
	full = p->len / 8;
	rest = p->len % 8;
	if (memcmp(a, p->addr, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ p->addr[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* The policy: does a socket bound to (@p local) or sending to @p sa go to dpsock? */
static bool
policy_match(const struct sockaddr *sa, bool local)
{
	unsigned int i;
	bool ok;

	if (pol.nb_ports > 0) {
		uint16_t port = addr_port(sa);

		for (ok = false, i = 0; i < pol.nb_ports && !ok; i++)
			ok = port >= pol.ports[i].lo && port <= pol.ports[i].hi;
		if (!ok)
			return false;
	}
	if (pol.nb_addrs > 0 && !(local && addr_is_wildcard(sa))) {
		for (ok = false, i = 0; i < pol.nb_addrs && !ok; i++)
			ok = prefix_has(&pol.addrs[i], sa);
		if (!ok)
			return false;
	}
	return true;
}

/* ---- sockets: made, decided, closed ---- */

static void
attach_failed(int err)
{
	const char *path = getenv("DPSOCK_PATH");

	if (path == NULL)
		path = DPSOCK_DEFAULT_PATH;
	if (pol.fail)
		fprintf(stderr,
			"dpsock-preload: no dpfwd to attach to at %s (%s): UDP sockets fail "
			"(DPSOCK_FALLBACK=fail). Start dpfwd with an [endpoint] section, set "
			"DPSOCK_PATH to its socket, or set DPSOCK_FALLBACK=kernel\n",
			path, strerror(err));
	else
		fprintf(stderr,
			"dpsock-preload: no dpfwd to attach to at %s (%s): UDP sockets stay with "
			"the kernel (DPSOCK_FALLBACK=kernel)\n",
			path, strerror(err));
}

/* Point @p fd (and the dups of @p s) at a new endpoint's queue. @return 0 or -errno. */
static int
become_dpsock(int fd, struct pl_sock *s)
{
	int others[16], nb, i, qfd, rc;

	if (pol.attach_err != 0)
		return -pol.attach_err;
	s->users = mmap(
		NULL, sizeof(*s->users), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->users == MAP_FAILED) {
		s->users = NULL;
		return -ENOMEM;
	}
	*s->users = 1;
	s->ep = dpsock_open(NULL, s->family, 0);
	if (s->ep == NULL) {
		rc = errno;
		munmap(s->users, sizeof(*s->users));
		s->users = NULL;
		if (__atomic_exchange_n(&pol.attach_err, rc, __ATOMIC_ACQ_REL) == 0)
			attach_failed(rc);
		return -rc;
	}
	s->evq = dpsock_evq_create(0);
	if (s->evq == NULL) {
		rc = -errno;
		goto close_ep;
	}
	rc = dpsock_evq_add(s->evq, s->ep, DPSOCK_EV_IN, s);
	if (rc < 0)
		goto destroy_evq;
	s->shadow = pl_real.fcntl(fd, F_DUPFD_CLOEXEC, PL_HIDDEN_MIN);
	if (s->shadow < 0) {
		rc = -errno;
		goto destroy_evq;
	}
	qfd = dpsock_evq_fd(s->evq);
	nb = fds_of(s, fd, others, 16);
	for (i = -1; i < nb; i++) {
		int f = i < 0 ? fd : others[i];

		/* the number stays; the kernel socket lives on as the shadow */
		if (pl_real.dup2(qfd, f) < 0) {
			rc = -errno;
			goto close_shadow;
		}
		pl_real.fcntl(f, F_SETFD, FD_CLOEXEC);
		if (s->nonblock)
			pl_real.fcntl(f, F_SETFL, O_RDWR | O_NONBLOCK);
	}
	s->dpsock = true;
	return 0;
close_shadow:
	pl_real.close(s->shadow);
	s->shadow = -1;
destroy_evq:
	dpsock_evq_destroy(s->evq);
	s->evq = NULL;
close_ep:
	dpsock_close(s->ep);
	s->ep = NULL;
	munmap(s->users, sizeof(*s->users));
	s->users = NULL;
	return rc;
}

/* Forget @p s: the kernel's socket from now on. */
static void
become_kernel(int fd, struct pl_sock *s)
{
	int others[16], nb, i;

	pthread_mutex_lock(&table_lock);
	nb = fds_of(s, fd, others, 16);
	table_set(fd, NULL);
	for (i = 0; i < nb; i++)
		table_set(others[i], NULL);
	pthread_mutex_unlock(&table_lock);
	pl_hold_drop(s); /* the descriptors': the caller's call may hold it still */
}

int
pl_decide(int fd, struct pl_sock *s, const struct sockaddr *addr, socklen_t len, bool local)
{
	int rc;

	if (s->dpsock)
		return 1;
	if (addr == NULL || addr_check(s, addr, len) < 0 || !policy_match(addr, local)) {
		become_kernel(fd, s);
		return 0;
	}
	rc = become_dpsock(fd, s);
	if (rc == 0)
		return 1;
	if (pol.fail)
		return rc;
	become_kernel(fd, s);
	return 0;
}

int
socket(int domain, int type, int protocol)
{
	struct pl_sock *s;
	int fd, rc;

	pl_init();
	fd = pl_real.socket(domain, type, protocol);
	if (fd < 0 || pol.off || (domain != AF_INET && domain != AF_INET6) ||
		(type & 0xf) != SOCK_DGRAM || (protocol != 0 && protocol != IPPROTO_UDP) ||
		fd >= pl_table_size)
		return fd;
	if (pol.attach_err != 0 && !pol.fail)
		return fd;
	s = sock_alloc();
	if (s == NULL)
		return fd;
	rte_spinlock_init(&s->lock);
	__atomic_store_n(&s->holds, 1, __ATOMIC_RELEASE);
	s->family = domain;
	s->refs = 1;
	s->shadow = -1;
	s->nonblock = (type & SOCK_NONBLOCK) != 0;
	s->gen = pl_fork_gen;
	table_set(fd, s);
	if (pol.filtered)
		return fd;
	rc = become_dpsock(fd, s);
	if (rc == 0)
		return fd;
	table_set(fd, NULL);
	pl_hold_drop(s);
	if (pol.fail) {
		pl_real.close(fd);
		errno = -rc;
		return -1;
	}
	return fd;
}

/* One descriptor of @p s is gone (closed, or replaced by dup2). */
static void
sock_unref(int fd, struct pl_sock *s)
{
	bool last;

	pthread_mutex_lock(&table_lock);
	if (pl_table[fd] != s) {
		/* two threads closed the same descriptor: counted by the first */
		pthread_mutex_unlock(&table_lock);
		return;
	}
	table_set(fd, NULL);
	last = --s->refs == 0;
	pthread_mutex_unlock(&table_lock);
	if (!last)
		return;
	if (s->dpsock && (exiting || __atomic_sub_fetch(s->users, 1, __ATOMIC_ACQ_REL) > 0)) {
		/*
		 * Another process uses it since a fork, and the queue's epoll set, the
		 * rings and the control socket are shared with it: closing them here
		 * would take the endpoint from under it. Its descriptors stay open in
		 * this process, which lets go of it at exit; what it took of them goes
		 * back now (exit_uncount() no longer sees the socket).
		 */
		pl_epoll_forget(s);
		if (!exiting)
			sock_give_back(s);
		return;
	}
	if (s->dpsock)
		pl_epoll_forget(s);
	s->last_fd = fd;
	pl_hold_drop(s); /* destroyed now, or by the last call still in it */
}

int
close(int fd)
{
	struct pl_sock *s;
	int rc;

	pl_init();
	pl_epoll_close(fd);
	s = pl_sock_of(fd);
	if (s == NULL)
		return pl_real.close(fd);
	rc = pl_real.close(fd);
	sock_unref(fd, s);
	return rc;
}

/* @p newfd now refers to @p s_old (dup, dup2, dup3, F_DUPFD); it was @p s_new's. */
static void
dup_note(struct pl_sock *s_old, int newfd, struct pl_sock *s_new)
{
	if (s_new != NULL)
		sock_unref(newfd, s_new);
	if (s_old == NULL || newfd < 0 || newfd >= pl_table_size)
		return;
	pthread_mutex_lock(&table_lock);
	if (s_old->refs == 0) {
		/* its last descriptor closed in another thread meanwhile: what the kernel
		 * duplicated is not this socket */
		pthread_mutex_unlock(&table_lock);
		return;
	}
	s_old->refs++;
	table_set(newfd, s_old);
	pthread_mutex_unlock(&table_lock);
	if (s_old->dpsock)
		pl_real.fcntl(newfd, F_SETFD, FD_CLOEXEC);
}

int
dup(int oldfd)
{
	struct pl_sock *s;
	int fd;

	pl_init();
	s = pl_get(oldfd);
	fd = pl_real.dup(oldfd);
	if (s == NULL)
		return fd;
	if (fd >= 0)
		dup_note(s, fd, NULL);
	pl_put(s);
	return fd;
}

static int
dup_to(int oldfd, int newfd, int flags, bool three)
{
	struct pl_sock *s_old, *s_new;
	int fd;

	pl_init();
	if (oldfd == newfd)
		return three ? pl_real.dup3(oldfd, newfd, flags) : pl_real.dup2(oldfd, newfd);
	s_old = pl_get(oldfd);
	s_new = pl_sock_of(newfd);
	fd = three ? pl_real.dup3(oldfd, newfd, flags) : pl_real.dup2(oldfd, newfd);
	if (fd >= 0) {
		pl_epoll_close(newfd);
		dup_note(s_old, newfd, s_new);
	}
	if (s_old != NULL)
		pl_put(s_old);
	return fd;
}

int
dup2(int oldfd, int newfd)
{
	return dup_to(oldfd, newfd, 0, false);
}

int
dup3(int oldfd, int newfd, int flags)
{
	return dup_to(oldfd, newfd, flags, true);
}

static int
fcntl_any(int fd, int cmd, long arg)
{
	struct pl_sock *s;
	int rc;

	pl_init();
	s = pl_get(fd);
	if (s != NULL && s->dpsock && cmd == F_SETFD)
		arg |= FD_CLOEXEC; /* exec closes a preloaded socket (docs/dpsock.md) */
	rc = pl_real.fcntl(fd, cmd, arg);
	if (s == NULL)
		return rc;
	if (rc >= 0 && cmd == F_SETFL)
		s->nonblock = (arg & O_NONBLOCK) != 0;
	else if (rc >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		dup_note(s, rc, NULL);
	pl_put(s);
	return rc;
}

int
fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return fcntl_any(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...);

int
fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return fcntl_any(fd, cmd, arg);
}

static int ioctl_on(int fd, struct pl_sock *s, unsigned long req, void *arg);

int
ioctl(int fd, unsigned long req, ...)
{
	struct pl_sock *s;
	va_list ap;
	void *arg;
	int rc;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.ioctl(fd, req, arg);
	rc = ioctl_on(fd, s, req, arg);
	pl_put(s);
	return rc;
}

static int
ioctl_on(int fd, struct pl_sock *s, unsigned long req, void *arg)
{
	if (req == FIONREAD) {
		/* as Linux: the length of the next datagram, 0 when none */
		int len = 0;

		pl_lock(s);
		if (s->held == NULL && !s->shut_rd)
			(void)pl_hold(s, true); /* none, or an error: 0 */
		len = s->held != NULL ? (int)s->held->len : 0;
		pl_unlock(s);
		*(int *)arg = len;
		return 0;
	}
	if (req == FIONCLEX)
		return 0; /* exec closes a preloaded socket (docs/dpsock.md) */
	if (req == FIOCLEX)
		return pl_real.ioctl(fd, req, arg);
	if (req == FIONBIO) {
		s->nonblock = *(const int *)arg != 0;
		return pl_real.ioctl(fd, req, arg);
	}
	return pl_real.ioctl(s->shadow, req, arg);
}

/* ---- addresses and names ---- */

int
pl_bind_auto(struct pl_sock *s)
{
	struct sockaddr_storage ss;
	socklen_t l;
	int rc;

	if (dpsock_getsockname(s->ep, (struct sockaddr *)&ss, &(socklen_t){ sizeof(ss) }) == 0)
		return 0;
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)s->family;
	l = s->family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	rc = dpsock_bind(s->ep, (struct sockaddr *)&ss, l);
	return rc == -EINVAL ? 0 : rc;
}

static int
bind_on(int fd, struct pl_sock *s, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_storage dp;
	int rc;

	rc = addr_check(s, addr, len);
	if (rc < 0)
		return pl_fail(rc);
	rc = pl_decide(fd, s, addr, len, true);
	if (rc < 0)
		return pl_fail(rc);
	if (rc == 0)
		return pl_real.bind(fd, addr, len);
	pl_addr_to_dp(addr, len, &dp);
	pl_lock(s);
	rc = dpsock_bind(s->ep, (struct sockaddr *)&dp, len);
	pl_unlock(s);
	if (rc < 0)
		return pl_fail(rc);
	s->bound = true;
	memcpy(&s->local_shown, addr, len < sizeof(s->local_shown) ? len : sizeof(s->local_shown));
	return 0;
}

int
bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct pl_sock *s;
	int rc;

	pl_init();
	s = pl_get(fd);
	if (s == NULL)
		return pl_real.bind(fd, addr, len);
	rc = bind_on(fd, s, addr, len);
	pl_put(s);
	return rc;
}

static int
connect_on(int fd, struct pl_sock *s, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_storage dp;
	int rc;

	if (addr != NULL && len >= sizeof(sa_family_t) && addr->sa_family == AF_UNSPEC) {
		if (!s->dpsock)
			return pl_real.connect(fd, addr, len);
		s->connected = false;
		return 0;
	}
	rc = addr_check(s, addr, len);
	if (rc < 0)
		return pl_fail(rc);
	rc = pl_decide(fd, s, addr, len, false);
	if (rc < 0)
		return pl_fail(rc);
	if (rc == 0)
		return pl_real.connect(fd, addr, len);
	pl_lock(s);
	rc = pl_bind_auto(s);
	pl_unlock(s);
	if (rc < 0)
		return pl_fail(rc);
	pl_addr_to_dp(addr, len, &dp);
	memcpy(&s->peer_dp, &dp, sizeof(s->peer_dp));
	memset(&s->peer, 0, sizeof(s->peer));
	memcpy(&s->peer, addr, len < sizeof(s->peer) ? len : sizeof(s->peer));
	s->peer_len =
		s->family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	s->connected = true;
	return 0;
}

int
connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct pl_sock *s;
	int rc;

	pl_init();
	s = pl_get(fd);
	if (s == NULL)
		return pl_real.connect(fd, addr, len);
	rc = connect_on(fd, s, addr, len);
	pl_put(s);
	return rc;
}

/* Copy @p from (@p flen bytes) out as the sockets API does: truncated to *len, *len set. */
static void
name_give(const void *from, socklen_t flen, struct sockaddr *addr, socklen_t *len)
{
	if (addr != NULL)
		memcpy(addr, from, *len < flen ? *len : flen);
	*len = flen;
}

static int
getsockname_on(struct pl_sock *s, struct sockaddr *addr, socklen_t *len)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);

	if (len == NULL) {
		errno = EFAULT;
		return -1;
	}
	memset(&ss, 0, sizeof(ss));
	pl_lock(s);
	if (dpsock_getsockname(s->ep, (struct sockaddr *)&ss, &l) < 0)
		ss.ss_family = (sa_family_t)s->family; /* not bound: the wildcard, port 0 */
	pl_unlock(s);
	l = s->family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	if (s->bound && pl_addr_is_loopback((struct sockaddr *)&s->local_shown)) {
		/* bound to a loopback address: that address, dpfwd's port */
		uint16_t port = htons(addr_port((struct sockaddr *)&ss));

		memcpy(&ss, &s->local_shown, l);
		if (s->family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_port = port;
		else
			((struct sockaddr_in6 *)&ss)->sin6_port = port;
	} else if (s->connected && pl_addr_is_loopback((struct sockaddr *)&s->peer) &&
		   addr_is_wildcard((struct sockaddr *)&ss)) {
		/* the source address Linux would pick for a loopback peer */
		if (s->family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		else
			((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	}
	name_give(&ss, l, addr, len);
	return 0;
}

int
getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct pl_sock *s;
	int rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.getsockname(fd, addr, len);
	rc = getsockname_on(s, addr, len);
	pl_put(s);
	return rc;
}

int
getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct pl_sock *s;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.getpeername(fd, addr, len);
	if (!s->connected || len == NULL) {
		pl_put(s);
		errno = len == NULL ? EFAULT : ENOTCONN;
		return -1;
	}
	name_give(&s->peer, s->peer_len, addr, len);
	pl_put(s);
	return 0;
}

int
shutdown(int fd, int how)
{
	struct pl_sock *s;

	bool connected;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.shutdown(fd, how);
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) {
		pl_put(s);
		errno = EINVAL;
		return -1;
	}
	if (how != SHUT_WR) {
		/* as Linux's: a thread blocked in a receive or a wait on it wakes and reads 0 */
		pl_lock(s);
		s->shut_rd = true;
		dpsock_wake(s->ep);
		pl_unlock(s);
	}
	connected = s->connected;
	pl_put(s);
	/* Linux: ENOTCONN for an unconnected datagram socket, the flag set all the same */
	if (!connected) {
		errno = ENOTCONN;
		return -1;
	}
	return 0;
}

/* ---- options: kept by the shadow kernel socket, read back where dpsock needs them ---- */

static int
setsockopt_on(struct pl_sock *s, int level, int name, const void *val, socklen_t len)
{
	int rc;

	rc = pl_real.setsockopt(s->shadow, level, name, val, len);
	if (rc < 0)
		return rc;
	if (level == SOL_SOCKET && name == SO_RCVTIMEO) {
		struct timeval tv;
		socklen_t l = sizeof(tv);

		if (pl_real.getsockopt(s->shadow, SOL_SOCKET, SO_RCVTIMEO, &tv, &l) == 0)
			s->rcvtimeo_us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
	} else if (level == SOL_SOCKET && name == SO_SNDTIMEO) {
		struct timeval tv;
		socklen_t l = sizeof(tv);

		if (pl_real.getsockopt(s->shadow, SOL_SOCKET, SO_SNDTIMEO, &tv, &l) == 0)
			s->sndtimeo_us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
	} else if ((level == IPPROTO_IP && name == IP_PKTINFO) ||
		   (level == IPPROTO_IPV6 && name == IPV6_RECVPKTINFO)) {
		s->pktinfo = len >= sizeof(int) && *(const int *)val != 0;
	}
	return 0;
}

int
setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct pl_sock *s;
	int rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.setsockopt(fd, level, name, val, len);
	rc = setsockopt_on(s, level, name, val, len);
	pl_put(s);
	return rc;
}

static int
getsockopt_on(struct pl_sock *s, int level, int name, void *val, socklen_t *len)
{

	if (level == SOL_SOCKET && name == SO_ERROR && val != NULL && len != NULL &&
		*len >= sizeof(int)) {
		*(int *)val = s->so_error;
		*len = sizeof(int);
		s->so_error = 0;
		return 0;
	}
	return pl_real.getsockopt(s->shadow, level, name, val, len);
}

int
getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct pl_sock *s;
	int rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.getsockopt(fd, level, name, val, len);
	rc = getsockopt_on(s, level, name, val, len);
	pl_put(s);
	return rc;
}

/* ---- exec: the program's descriptors of preloaded sockets close ---- */

extern char **environ;

/* Run @p call (an exec); the sockets are not this process's users while it runs. */
#define EXEC_UNCOUNTED(call)                                                                       \
	do {                                                                                       \
		int rc_, err_;                                                                     \
		pl_init();                                                                         \
		users_add(-1);                                                                     \
		rc_ = (call);                                                                      \
		err_ = errno;                                                                      \
		users_add(1); /* the exec failed */                                                \
		errno = err_;                                                                      \
		return rc_;                                                                        \
	} while (0)

static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);

static void
exec_resolve(void)
{
	if (real_execve == NULL) {
		real_execve = dlsym(RTLD_NEXT, "execve");
		real_execvpe = dlsym(RTLD_NEXT, "execvpe");
		real_fexecve = dlsym(RTLD_NEXT, "fexecve");
	}
}

int
execve(const char *path, char *const argv[], char *const envp[])
{
	exec_resolve();
	EXEC_UNCOUNTED(real_execve(path, argv, envp));
}

int
execv(const char *path, char *const argv[])
{
	exec_resolve();
	EXEC_UNCOUNTED(real_execve(path, argv, environ));
}

int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	exec_resolve();
	EXEC_UNCOUNTED(real_execvpe(file, argv, envp));
}

int
execvp(const char *file, char *const argv[])
{
	exec_resolve();
	EXEC_UNCOUNTED(real_execvpe(file, argv, environ));
}

int
fexecve(int fd, char *const argv[], char *const envp[])
{
	exec_resolve();
	EXEC_UNCOUNTED(real_fexecve(fd, argv, envp));
}

/* execl, execlp, execle: their arguments as a vector, then the calls above. */
#define PL_EXECL_MAX 4096

static int
execl_any(const char *path, const char *arg0, va_list ap, bool search, bool with_env)
{
	char *argv[PL_EXECL_MAX];
	char *const *envp = environ;
	int n = 0;

	argv[n++] = (char *)(uintptr_t)arg0;
	while (arg0 != NULL && n < PL_EXECL_MAX) {
		argv[n] = va_arg(ap, char *);
		if (argv[n++] == NULL)
			break;
	}
	if (n == PL_EXECL_MAX) {
		errno = E2BIG;
		return -1;
	}
	if (with_env)
		envp = va_arg(ap, char *const *);
	return search ? execvpe(path, argv, envp) : execve(path, argv, envp);
}

int
execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = execl_any(path, arg, ap, false, false);
	va_end(ap);
	return rc;
}

int
execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = execl_any(file, arg, ap, true, false);
	va_end(ap);
	return rc;
}

int
execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = execl_any(path, arg, ap, false, true);
	va_end(ap);
	return rc;
}
