/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdpsock-preload: readiness of preloaded and kernel descriptors together.
 *
 * A preloaded socket is readable when a datagram is held or one can be taken
 * now (pl_readable()), and always writable. Every waiting call does the same:
 *
 *   look (preloaded sockets, and the kernel's with a zero timeout)
 *     -> something: return it
 *   spin DPSOCK_SPIN_US looking again
 *   arm every preloaded socket's queue (dpsock_evq_wait(q, .., 0)): its
 *   number, a dup of the queue's epoll fd, polls readable once a datagram
 *   comes (the peer or dpfwd writes the endpoint's eventfd)
 *   sleep in the kernel's call on all of them, then look again
 *
 * so a program asleep on preloaded sockets burns no core. In an application's
 * epoll set a preloaded socket is registered by its number for EPOLLIN with a
 * tag (PL_EPOLL_TAG | fd) in place of the application's data; the tag's
 * events only wake, and the socket's own events come from a look at the
 * records kept here (struct pl_epoll): level-triggered, or with EPOLLET once
 * per new arrival (member_edge()); EPOLLONESHOT disables the record until
 * EPOLL_CTL_MOD.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_pause.h>

#include "preload_priv.h"

/* ---- one socket ---- */

bool
pl_readable(struct pl_sock *s)
{
	int rc = 0;

	pl_lock(s);
	if (s->held == NULL && !s->shut_rd) {
		/*
		 * Left in place when no peer filter applies: the read that follows copies a
		 * small datagram from its ring slot (recv_one()), where taking it here would
		 * read and write the sender's buffer, lines that then cross to this CPU and back.
		 */
		if (!s->connected) {
			rc = pl_unbound_empty(dpsock_readable(s->ep));
			rc = rc == 0 ? -EAGAIN : rc > 0 ? 0 : rc;
		} else {
			rc = pl_hold(s, true);
		}
	}
	pl_unlock(s);
	return rc != -EAGAIN; /* a datagram, or an error the read will return */
}

/*
 * Arm @p s's queue before a sleep. @return false when a datagram came meanwhile (or one
 * is held, unless @p new_only: an edge-triggered wait for the next arrival).
 */
static bool
sock_arm(struct pl_sock *s, bool new_only)
{
	struct dpsock_event ev;
	bool armed;

	pl_lock(s);
	armed = (new_only || s->held == NULL) && dpsock_evq_wait(s->evq, &ev, 1, 0) == 0;
	pl_unlock(s);
	return armed;
}

/* Awake again (or an arm that found a datagram): the sockets of @p pl (NULL: a kernel
 * descriptor) disarmed, so that their peers stop waking them while this side spins. */
static void
socks_disarm(struct pl_sock **pl, nfds_t n)
{
	nfds_t i;

	for (i = 0; i < n; i++)
		if (pl[i] != NULL) {
			pl_lock(pl[i]);
			dpsock_evq_disarm(pl[i]->evq);
			pl_unlock(pl[i]);
		}
}

/* ---- poll, ppoll, select, pselect ---- */

static short
sock_revents(struct pl_sock *s, short events)
{
	short r = 0;

	if ((events & (POLLIN | POLLRDNORM)) != 0 && pl_readable(s))
		r |= events & (POLLIN | POLLRDNORM);
	if ((events & (POLLOUT | POLLWRNORM)) != 0)
		r |= events & (POLLOUT | POLLWRNORM);
	return r;
}

/* Remaining of @p timeout_ns (-1: none) after @p spent, in ms rounded up for poll(). */
static int
left_ms(int64_t timeout_ns, uint64_t spent)
{
	if (timeout_ns < 0)
		return -1;
	if (spent >= (uint64_t)timeout_ns)
		return 0;
	return (int)(((uint64_t)timeout_ns - spent + 999999) / 1000000);
}

/* Looks between two readings of the clock while spinning: a reading costs more than a look
 * at a few sockets. */
#define PL_LOOKS_PER_CLOCK 8

/*
 * After a look that found nothing, in a wait for @p timeout_ns (-1: for ever): true to
 * look again (spinning), false to stop spinning, with @p ms what is left of the wait (0:
 * over, return; else sleep that long, -1: for ever). The wait's clock starts at the
 * first reading, @p t0 (0 until then), after PL_LOOKS_PER_CLOCK looks: a wait that ends
 * sooner (a datagram within a few looks, as in a ping-pong) reads no clock at all, and
 * the looks before are not counted against the timeout (well under a microsecond).
 */
static bool
spin_on(unsigned int *looks, uint64_t *t0, int64_t timeout_ns, int *ms)
{
	uint64_t now, spent;

	*ms = 0;
	if (timeout_ns == 0)
		return false;
	if (++*looks % PL_LOOKS_PER_CLOCK != 0) {
		rte_pause();
		return true;
	}
	now = pl_now_ns();
	if (*t0 == 0)
		*t0 = now;
	spent = now - *t0;
	*ms = left_ms(timeout_ns, spent);
	if (*ms != 0 && spent < pl_spin_ns) {
		rte_pause();
		return true;
	}
	return false;
}

/*
 * poll() over @p fds where @p pl[i] is the preloaded socket of fds[i] or NULL;
 * @p timeout_ns -1: for ever. @p mask: ppoll's.
 */
static int
poll_mixed(struct pollfd *fds, nfds_t n, struct pl_sock **pl, struct pollfd *k, int64_t timeout_ns,
	const sigset_t *mask)
{
	uint64_t t0 = 0;
	unsigned int looks = 0;
	struct pl_sig_mark sm;
	bool kernel = false;
	nfds_t i;

	pl_sig_mark(&sm);
	for (i = 0; i < n; i++)
		kernel |= pl[i] == NULL && fds[i].fd >= 0;
	for (;;) {
		int ready = 0, rc, ms;

		/* look */
		for (i = 0; i < n; i++) {
			k[i] = fds[i];
			if (pl[i] != NULL) {
				k[i].fd = -1;
				fds[i].revents = sock_revents(pl[i], fds[i].events);
			}
		}
		if (kernel && pl_real.poll(k, n, 0) < 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (pl[i] == NULL)
				fds[i].revents = kernel ? k[i].revents : 0;
			ready += fds[i].revents != 0;
		}
		if (ready > 0)
			return ready;
		if (pl_sig_interrupts(&sm, false)) {
			errno = EINTR;
			return -1;
		}
		if (spin_on(&looks, &t0, timeout_ns, &ms))
			continue;
		if (ms == 0)
			return 0;
		/* arm, then sleep */
		for (i = 0; i < n; i++)
			if (pl[i] != NULL && (fds[i].events & (POLLIN | POLLRDNORM)) != 0 &&
				!sock_arm(pl[i], false))
				break;
		if (i < n) {
			socks_disarm(pl, n);
			continue;
		}
		for (i = 0; i < n; i++) {
			k[i] = fds[i];
			if (pl[i] != NULL)
				k[i].events = POLLIN;
		}
		if (mask != NULL) {
			struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

			rc = pl_real.ppoll(k, n, ms < 0 ? NULL : &ts, mask);
		} else {
			rc = pl_real.poll(k, n, ms);
		}
		if (rc < 0) {
			const int e = errno;

			socks_disarm(pl, n);
			errno = e;
			return -1;
		}
		socks_disarm(pl, n);
	}
}

/* The preloaded sockets of @p fds in @p pl, held (pl_get()); @return how many. */
static nfds_t
pl_find(const struct pollfd *fds, nfds_t n, struct pl_sock **pl)
{
	nfds_t i, c = 0;

	for (i = 0; i < n; i++) {
		pl[i] = pl_dpsock_get(fds[i].fd);
		c += pl[i] != NULL;
	}
	return c;
}

#define PL_POLL_STACK 64

static int
poll_any(struct pollfd *fds, nfds_t n, int64_t timeout_ns, const sigset_t *mask,
	const struct timespec *ts, int timeout_ms)
{
	struct pl_sock *pl_stack[PL_POLL_STACK], **pl = pl_stack;
	struct pollfd k_stack[PL_POLL_STACK], *k = k_stack;
	int rc;

	if (n > PL_POLL_STACK) {
		pl = malloc(n * sizeof(*pl));
		k = malloc(n * sizeof(*k));
		if (pl == NULL || k == NULL) {
			free(pl);
			free(k);
			errno = ENOMEM;
			return -1;
		}
	}
	if (pl_find(fds, n, pl) == 0) {
		rc = mask != NULL || ts != NULL ? pl_real.ppoll(fds, n, ts, mask)
						: pl_real.poll(fds, n, timeout_ms);
	} else {
		nfds_t i;

		rc = poll_mixed(fds, n, pl, k, timeout_ns, mask);
		for (i = 0; i < n; i++)
			if (pl[i] != NULL)
				pl_put(pl[i]);
	}
	if (pl != pl_stack) {
		free(pl);
		free(k);
	}
	return rc;
}

int
poll(struct pollfd *fds, nfds_t n, int timeout)
{
	pl_init();
	return poll_any(fds, n, timeout < 0 ? -1 : (int64_t)timeout * 1000000, NULL, NULL, timeout);
}

int
ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	int64_t t = ts == NULL ? -1 : (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;

	pl_init();
	if (mask == NULL && ts == NULL)
		return poll_any(fds, n, t, NULL, NULL, -1);
	return poll_any(fds, n, t, mask, ts, 0);
}

int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask,
	size_t fdslen);

int
__poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < n)
		abort();
	return poll(fds, n, timeout);
}

int
__ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask,
	size_t fdslen)
{
	if (fdslen / sizeof(*fds) < n)
		abort();
	return ppoll(fds, n, ts, mask);
}

/* select() as poll(): @return as select, the sets rewritten. */
static int
select_any(int nfds, fd_set *r, fd_set *w, fd_set *e, int64_t timeout_ns, const sigset_t *mask,
	bool *mine)
{
	struct pollfd fds[FD_SETSIZE];
	nfds_t n = 0, i;
	int rc, count = 0, fd;

	*mine = false;
	if (nfds < 0 || nfds > FD_SETSIZE)
		return 0;
	for (fd = 0; fd < nfds; fd++) {
		short ev = 0;

		if (r != NULL && FD_ISSET(fd, r))
			ev |= POLLIN;
		if (w != NULL && FD_ISSET(fd, w))
			ev |= POLLOUT;
		if (e != NULL && FD_ISSET(fd, e))
			ev |= POLLPRI;
		if (ev == 0)
			continue;
		if (!*mine) {
			const struct pl_sock *s = pl_sock_of(fd); /* (poll_any() holds them) */

			*mine = s != NULL && s->dpsock;
		}
		fds[n++] = (struct pollfd){ .fd = fd, .events = ev };
	}
	if (!*mine)
		return 0;
	rc = poll_any(fds, n, timeout_ns, mask, NULL, 0);
	if (rc < 0)
		return -1;
	for (i = 0; i < n; i++)
		if ((fds[i].revents & POLLNVAL) != 0) {
			errno = EBADF;
			return -1;
		}
	if (r != NULL)
		FD_ZERO(r);
	if (w != NULL)
		FD_ZERO(w);
	if (e != NULL)
		FD_ZERO(e);
	for (i = 0; i < n; i++) {
		short re = fds[i].revents;

		fd = fds[i].fd;
		if ((fds[i].events & POLLIN) != 0 && (re & (POLLIN | POLLHUP | POLLERR)) != 0) {
			FD_SET(fd, r);
			count++;
		}
		if ((fds[i].events & POLLOUT) != 0 && (re & (POLLOUT | POLLERR)) != 0) {
			FD_SET(fd, w);
			count++;
		}
		if ((fds[i].events & POLLPRI) != 0 && (re & POLLPRI) != 0) {
			FD_SET(fd, e);
			count++;
		}
	}
	return count;
}

int
select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	int64_t t = tv == NULL ? -1 : (int64_t)tv->tv_sec * 1000000000 + tv->tv_usec * 1000;
	uint64_t t0;
	bool mine;
	int rc;

	pl_init();
	t0 = pl_now_ns();
	rc = select_any(nfds, r, w, e, t, NULL, &mine);
	if (!mine)
		return pl_real.select(nfds, r, w, e, tv);
	if (rc >= 0 && tv != NULL) {
		/* as Linux: the time not slept */
		int64_t left = t - (int64_t)(pl_now_ns() - t0);

		if (left < 0)
			left = 0;
		tv->tv_sec = left / 1000000000;
		tv->tv_usec = (left % 1000000000) / 1000;
	}
	return rc;
}

int
pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts, const sigset_t *mask)
{
	int64_t t = ts == NULL ? -1 : (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
	bool mine;
	int rc;

	pl_init();
	rc = select_any(nfds, r, w, e, t, mask, &mine);
	if (!mine)
		return pl_real.pselect(nfds, r, w, e, ts, mask);
	return rc;
}

/* ---- epoll ---- */

struct pl_member {
	struct pl_sock *s;
	int fd;
	struct epoll_event ev; /* the application's */
	bool off;              /* EPOLLONESHOT fired */
	/* EPOLLET: report on the next look (added or modified), else at a new arrival */
	bool fresh;
	uint64_t seen; /* s->arrived when last looked at */
	struct pl_member *next;
};

struct pl_epoll {
	int epfd;
	struct pl_member *members;
	struct pl_member *rr; /* where the next look starts */
	struct pl_epoll *next;
	/*
	 * Holds: 1 for its descriptor (dropped at its close) and 1 per epoll_wait() in it in a
	 * process of several threads, so that a close meanwhile leaves the record to the last
	 * wait, as Linux keeps an epoll a thread waits in. At 0 it goes to epolls_free, never
	 * to free(): the list is walked without the lock (epoll_find()).
	 */
	uint32_t holds;
	bool closed;
	struct pl_epoll *next_free;
};

static struct pl_epoll *epolls;
static struct pl_epoll *epolls_free; /* under the records' lock */

/*
 * How many kernel descriptors each epoll fd below PL_EPOLL_KERNEL_FDS watches, counted
 * in epoll_ctl(): a set of preloaded sockets alone is not looked at by epoll_wait()
 * while spinning, a system call saved each time round. Too high is only slower (a
 * descriptor closed without EPOLL_CTL_DEL); an epoll fd past the table always counts.
 */
#define PL_EPOLL_KERNEL_FDS 4096
static uint32_t epoll_kernel_fds[PL_EPOLL_KERNEL_FDS];

static bool
epoll_watches_kernel(int epfd)
{
	return epfd < 0 || epfd >= PL_EPOLL_KERNEL_FDS ||
	       __atomic_load_n(&epoll_kernel_fds[epfd], __ATOMIC_RELAXED) != 0;
}

static void
epoll_kernel_count(int epfd, int op)
{
	uint32_t *c;

	if (epfd < 0 || epfd >= PL_EPOLL_KERNEL_FDS)
		return;
	c = &epoll_kernel_fds[epfd];
	if (op == EPOLL_CTL_ADD)
		__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
	else if (op == EPOLL_CTL_DEL && __atomic_load_n(c, __ATOMIC_RELAXED) > 0)
		__atomic_fetch_sub(c, 1, __ATOMIC_RELAXED);
}
/*
 * The records' lock, recursive (a look takes datagrams, and libdpsock may close a
 * descriptor meanwhile): a thread holds epolls_sl while its epolls_depth is above 0. A
 * pair is an inline spinlock's, where a recursive pthread mutex's took two calls and its
 * owner's bookkeeping; every look of a spinning epoll_wait takes it. Not a ticket lock:
 * where a program's threads outnumber the CPUs, a waiter preempted in line would hold
 * every other thread up for a time slice.
 */
static rte_spinlock_t epolls_sl = RTE_SPINLOCK_INITIALIZER;
static __thread unsigned int epolls_depth __attribute__((tls_model("initial-exec")));

static void
epolls_lock(void)
{
	if (epolls_depth++ == 0)
		rte_spinlock_lock(&epolls_sl);
}

static void
epolls_unlock(void)
{
	if (--epolls_depth == 0)
		rte_spinlock_unlock(&epolls_sl);
}

void
pl_epoll_fork_child(void)
{
	struct pl_epoll *p;

	rte_spinlock_init(&epolls_sl); /* a thread of the parent that held it is not here */
	for (p = epolls; p != NULL; p = p->next)
		p->holds = 1; /* the parent's waits are not the child's */
}

/* Drop one hold of @p p; the last puts it on epolls_free. */
static void
epoll_drop(struct pl_epoll *p)
{
	if (__atomic_sub_fetch(&p->holds, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	epolls_lock();
	p->next_free = epolls_free;
	epolls_free = p;
	epolls_unlock();
}

static struct pl_epoll *
epoll_find(int epfd)
{
	struct pl_epoll *p;

	for (p = __atomic_load_n(&epolls, __ATOMIC_ACQUIRE); p != NULL; p = p->next)
		if (p->epfd == epfd)
			return p;
	return NULL;
}

static struct pl_member *
member_find(struct pl_epoll *p, int fd)
{
	struct pl_member *m;

	for (m = p->members; m != NULL; m = m->next)
		if (m->fd == fd)
			return m;
	return NULL;
}

static void
member_unlink(struct pl_epoll *p, struct pl_member *gone)
{
	struct pl_member **pp;

	for (pp = &p->members; *pp != NULL; pp = &(*pp)->next)
		if (*pp == gone) {
			*pp = gone->next;
			break;
		}
	if (p->rr == gone)
		p->rr = NULL;
	free(gone);
}

void
pl_epoll_forget(const struct pl_sock *s)
{
	struct pl_epoll *p;

	epolls_lock();
	for (p = epolls; p != NULL; p = p->next) {
		struct pl_member *m = p->members, *next;

		for (; m != NULL; m = next) {
			next = m->next;
			if (m->s == s)
				member_unlink(p, m);
		}
	}
	epolls_unlock();
}

void
pl_epoll_close(int fd)
{
	struct pl_epoll **pp, *p = NULL;

	if (fd >= 0 && fd < PL_EPOLL_KERNEL_FDS)
		__atomic_store_n(&epoll_kernel_fds[fd], 0, __ATOMIC_RELAXED);
	if (epoll_find(fd) == NULL)
		return; /* (no lock: libdpsock closes descriptors under a socket's lock) */
	epolls_lock();
	for (pp = &epolls; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->epfd == fd) {
			p = *pp;
			*pp = p->next;
			break;
		}
	if (p == NULL) {
		epolls_unlock();
		return;
	}
	while (p->members != NULL)
		member_unlink(p, p->members);
	__atomic_store_n(&p->closed, true, __ATOMIC_SEQ_CST); /* (epoll_hold()) */
	epolls_unlock();
	epoll_drop(p);
}

static int epoll_ctl_sock(int epfd, int op, int fd, struct epoll_event *ev, struct pl_sock *s);

int
epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	struct pl_sock *s;
	int rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL) {
		rc = pl_real.epoll_ctl(epfd, op, fd, ev);
		if (rc == 0)
			epoll_kernel_count(epfd, op);
		return rc;
	}
	rc = epoll_ctl_sock(epfd, op, fd, ev, s);
	pl_put(s);
	return rc;
}

/* epoll_ctl() of a preloaded socket (held). */
static int
epoll_ctl_sock(int epfd, int op, int fd, struct epoll_event *ev, struct pl_sock *s)
{
	struct epoll_event tagged = { .events = EPOLLIN };
	struct pl_member *m;
	struct pl_epoll *p;
	int rc;

	if (op != EPOLL_CTL_DEL && ev == NULL) {
		errno = EFAULT;
		return -1;
	}
	tagged.data.u64 = PL_EPOLL_TAG | (uint32_t)fd;
	epolls_lock();
	p = epoll_find(epfd);
	m = p != NULL ? member_find(p, fd) : NULL;
	switch (op) {
	case EPOLL_CTL_ADD:
		rc = pl_real.epoll_ctl(epfd, op, fd, &tagged);
		if (rc < 0)
			break;
		if (p == NULL) {
			p = epolls_free;
			if (p != NULL)
				epolls_free = p->next_free;
			else
				p = calloc(1, sizeof(*p));
			if (p == NULL)
				goto nomem;
			/*
			 * Field by field: a late epoll_any() may still read the count (at 0),
			 * and a walk that was on this record when it closed its next.
			 */
			p->members = NULL;
			p->rr = NULL;
			p->closed = false;
			__atomic_store_n(&p->holds, 1, __ATOMIC_RELEASE);
			p->epfd = epfd;
			p->next = epolls;
			__atomic_store_n(&epolls, p, __ATOMIC_RELEASE);
		}
		m = calloc(1, sizeof(*m));
		if (m == NULL)
			goto nomem;
		*m = (struct pl_member){
			.s = s, .fd = fd, .ev = *ev, .fresh = true, .next = p->members
		};
		p->members = m;
		break;
	case EPOLL_CTL_MOD:
		rc = pl_real.epoll_ctl(epfd, op, fd, &tagged);
		if (rc == 0 && m != NULL) {
			m->ev = *ev;
			m->off = false;
			m->fresh = true;
		}
		break;
	case EPOLL_CTL_DEL:
		rc = pl_real.epoll_ctl(epfd, op, fd, ev);
		if (rc == 0 && m != NULL)
			member_unlink(p, m);
		break;
	default:
		rc = pl_real.epoll_ctl(epfd, op, fd, ev);
	}
	epolls_unlock();
	return rc;
nomem:
	pl_real.epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
	epolls_unlock();
	errno = ENOMEM;
	return -1;
}

/*
 * An edge-triggered member's events, as Linux gives them: once when added or modified
 * (what is ready then), then once for each look that finds datagrams arrived since the
 * last (EPOLLIN, with EPOLLOUT when asked), however many are left unread. Datagrams not
 * read keep no report coming.
 */
static uint32_t
member_edge(struct pl_member *m, uint32_t want)
{
	struct pl_sock *s = m->s;
	uint32_t got = 0;
	bool readable, edge;

	pl_lock(s);
	readable = pl_fill(s) || s->shut_rd;
	edge = m->fresh || ((want & EPOLLIN) != 0 && s->arrived != m->seen);
	m->seen = s->arrived;
	pl_unlock(s);
	if (!edge)
		return 0;
	m->fresh = false;
	if ((want & EPOLLIN) != 0 && readable)
		got |= EPOLLIN | (want & EPOLLRDNORM);
	if ((want & EPOLLOUT) != 0)
		got |= EPOLLOUT | (want & EPOLLWRNORM);
	return got;
}

/* The preloaded members' events, round robin, into @p evs; @return how many. */
static int
members_look(struct pl_epoll *p, struct epoll_event *evs, int max)
{
	struct pl_member *start = p->rr != NULL ? p->rr : p->members, *m = start;
	int n = 0;

	if (m == NULL)
		return 0;
	do {
		uint32_t want = m->ev.events, got = 0;

		if (m->off) {
			/* EPOLLONESHOT fired: nothing until EPOLL_CTL_MOD */
		} else if ((want & EPOLLET) != 0) {
			got = member_edge(m, want);
		} else {
			if ((want & EPOLLIN) != 0 && pl_readable(m->s))
				got |= EPOLLIN | (want & EPOLLRDNORM);
			if ((want & EPOLLOUT) != 0)
				got |= EPOLLOUT | (want & EPOLLWRNORM);
		}
		if (got != 0) {
			evs[n].events = got;
			evs[n].data = m->ev.data;
			n++;
			if ((want & EPOLLONESHOT) != 0)
				m->off = true;
		}
		m = m->next != NULL ? m->next : p->members;
	} while (m != start && n < max);
	p->rr = m;
	return n;
}

/* Drop the tags' events (wake-ups only) from @p evs; @return how many stay. */
static int
tags_strip(struct epoll_event *evs, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if ((evs[i].data.u64 & PL_EPOLL_TAG_MASK) != PL_EPOLL_TAG)
			evs[k++] = evs[i];
	return k;
}

/*
 * Arm every member's queue before a sleep. @return false when a datagram came meanwhile.
 * An edge-triggered member waits for new arrivals only: what it holds was reported.
 */
static bool
members_arm(struct pl_epoll *p)
{
	struct pl_member *m;

	for (m = p->members; m != NULL; m = m->next) {
		if (m->off || (m->ev.events & EPOLLIN) == 0)
			continue;
		if (!sock_arm(m->s, (m->ev.events & EPOLLET) != 0))
			return false;
	}
	return true;
}

/* socks_disarm() of the members of @p p. */
static void
members_disarm(struct pl_epoll *p)
{
	struct pl_member *m;

	for (m = p->members; m != NULL; m = m->next) {
		pl_lock(m->s);
		dpsock_evq_disarm(m->s->evq);
		pl_unlock(m->s);
	}
}

static int
epoll_mixed(struct pl_epoll *p, struct epoll_event *evs, int max, int timeout, const sigset_t *mask)
{
	const int64_t timeout_ns = timeout < 0 ? -1 : (int64_t)timeout * 1000000;
	uint64_t t0 = 0;
	unsigned int looks = 0;
	struct pl_sig_mark sm;

	pl_sig_mark(&sm);
	for (;;) {
		int n, k, ms;

		epolls_lock();
		n = members_look(p, evs, max);
		epolls_unlock();
		if (n < max && epoll_watches_kernel(p->epfd)) {
			k = pl_real.epoll_wait(p->epfd, evs + n, max - n, 0);
			if (k < 0)
				return n > 0 ? n : -1;
			n += tags_strip(evs + n, k);
		}
		if (n > 0)
			return n;
		if (pl_sig_interrupts(&sm, false)) {
			errno = EINTR;
			return -1;
		}
		if (spin_on(&looks, &t0, timeout_ns, &ms))
			continue;
		if (ms == 0)
			return 0;
		epolls_lock();
		k = members_arm(p);
		if (!k)
			members_disarm(p);
		epolls_unlock();
		if (!k)
			continue;
		k = mask != NULL ? pl_real.epoll_pwait(p->epfd, evs, max, ms, mask)
				 : pl_real.epoll_wait(p->epfd, evs, max, ms);
		{
			const int e = errno; /* epoll_wait()'s, kept over the disarm's calls */

			epolls_lock();
			members_disarm(p);
			epolls_unlock();
			errno = e;
		}
		if (k < 0)
			return -1;
		/* the kernel's events of this wait are kept: an edge-triggered one comes once */
		k = tags_strip(evs, k);
		if (k > 0) {
			epolls_lock();
			k += members_look(p, evs + k, max - k);
			epolls_unlock();
			return k;
		}
	}
}

/*
 * A hold of @p p, found for @p epfd without the lock, for a wait in it (as pl_get() of a
 * socket: a count of 0 never rises again). @return false: closed meanwhile.
 */
static bool
epoll_hold(struct pl_epoll *p, int epfd)
{
	if (!pl_hold_unless_gone(&p->holds))
		return false;
	if (!__atomic_load_n(&p->closed, __ATOMIC_SEQ_CST) && p->epfd == epfd)
		return true;
	epoll_drop(p);
	return false;
}

static int
epoll_any(int epfd, struct epoll_event *evs, int max, int timeout, const sigset_t *mask)
{
	const bool threads = !__libc_single_threaded;
	struct pl_epoll *p;
	int rc;

	pl_init();
	p = epoll_find(epfd);
	if (p != NULL && threads && !epoll_hold(p, epfd))
		p = NULL; /* closed meanwhile */
	if (p == NULL || p->members == NULL || max <= 0) {
		if (p != NULL && threads)
			epoll_drop(p);
		return mask != NULL ? pl_real.epoll_pwait(epfd, evs, max, timeout, mask)
				    : pl_real.epoll_wait(epfd, evs, max, timeout);
	}
	rc = epoll_mixed(p, evs, max, timeout, mask);
	if (threads)
		epoll_drop(p); /* (keeps errno: no system call unless it is the last) */
	return rc;
}

int
epoll_wait(int epfd, struct epoll_event *evs, int max, int timeout)
{
	return epoll_any(epfd, evs, max, timeout, NULL);
}

int
epoll_pwait(int epfd, struct epoll_event *evs, int max, int timeout, const sigset_t *mask)
{
	return epoll_any(epfd, evs, max, timeout, mask);
}
