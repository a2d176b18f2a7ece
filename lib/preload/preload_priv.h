/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdpsock-preload: what its three files share.
 *
 *   preload.c       the table fd -> socket, the policy, socket/bind/connect/close/dup,
 *                   fcntl, ioctl, socket options
 *   preload_io.c    send and receive calls
 *   preload_poll.c  poll, ppoll, select, pselect, epoll_*
 *   preload_sig.c   sigaction and signal: which handler interrupted a wait (SA_RESTART)
 *
 * The fd model: a preloaded socket's number is a real descriptor, a dup of its
 * event queue's epoll fd (dpsock_evq_fd()), so the fd space, dup and close stay
 * the kernel's, and the number polls readable when the endpoint's queue is armed
 * and a datagram arrives. Beside it, hidden above PL_HIDDEN_MIN: the kernel UDP
 * socket that socket() made (the "shadow": socket options are set and read on
 * it), the queue's own epoll fd, and libdpsock's control socket and eventfd.
 */
#ifndef PRELOAD_PRIV_H
#define PRELOAD_PRIV_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/single_threaded.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>

#include <rte_spinlock.h>

#include "dpsock.h"

/** Descriptors of a socket's own (shadow, queue) are moved at or above this. */
#define PL_HIDDEN_MIN 512

/**
 * Datagrams an edge-triggered look takes from the endpoint at most, in one look: all
 * there are, unless senders keep the ring full faster than it is emptied.
 */
#define PL_FILL_MAX 65536

/** Tag of a preloaded socket's number inside an application's epoll set. */
#define PL_EPOLL_TAG      0xd9500c0000000000ULL
#define PL_EPOLL_TAG_MASK 0xffffffff00000000ULL

/**
 * One preloaded UDP socket; every fd that refers to it (dup) points here.
 *
 * lock: its endpoint is one thread's at a time (libdpsock's rings are single-producer,
 * single-consumer), so every call into libdpsock on it, and every look at held, is made
 * under it; a call that waits (a blocking receive, a send with no free buffer) lets go
 * of it while it sleeps, so that one thread may send while another waits to receive.
 */
struct pl_sock {
	/*
	 * Holds: 1 for its descriptors (dropped at the last close) and 1 per call in progress
	 * (pl_get()); the last to go destroys the socket. 0: destroyed; its memory is kept for
	 * the next socket() (a call that read it from the table just before a close may still
	 * look at the count), and a count of 0 never rises again.
	 */
	uint32_t holds;
	rte_spinlock_t lock; /* not a ticket lock: see epolls_sl (preload_poll.c) */
	int family;
	int refs;          /* descriptors referring to it */
	bool nonblock;     /* O_NONBLOCK / FIONBIO / SOCK_NONBLOCK */
	bool dpsock;       /* an endpoint (else still a kernel socket, policy undecided) */
	int shadow;        /* the kernel socket of the options */
	struct dpsock *ep; /* when dpsock */
	struct dpsock_evq *evq;
	bool bound;
	struct sockaddr_storage local_shown; /* the address bind() was given (loopback kept) */
	bool connected;
	struct sockaddr_storage peer; /* as the application gave it */
	socklen_t peer_len;
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} peer_dp;               /* the peer as dpsock sees it (loopback -> wildcard) */
	struct dpsock_msg *held; /* a datagram received and not yet consumed (MSG_PEEK, poll) */
	/*
	 * behind held, oldest first: what an edge-triggered look took (pl_fill()), a ring of
	 * more_cap (a power of 2, grown as needed) from more_head
	 */
	struct dpsock_msg **more;
	unsigned int more_cap;
	unsigned int more_head;
	unsigned int nb_more;
	uint64_t arrived;    /* datagrams taken from the endpoint, ever: EPOLLET's edges */
	bool gone_seen;      /* an error (dpfwd gone) counted as an arrival once */
	int64_t rcvtimeo_us; /* 0: none */
	int64_t sndtimeo_us; /* 0: none */
	bool pktinfo;        /* IP_PKTINFO / IPV6_RECVPKTINFO */
	bool shut_rd;
	int so_error;
	/*
	 * Processes using the socket (fork): a counter in memory shared by them. A
	 * process counts itself on its first call after the fork (gen: pl_fork_gen
	 * then), so that a child that only execs never counts.
	 */
	int *users;
	unsigned int gen;
	bool stats_written; /* DPSOCK_PRELOAD_STATS: its line is in the file */
	int last_fd;        /* its last descriptor, for the stats line */
	struct pl_sock *next_free;
};

/** The libc functions this library stands in front of. */
struct pl_real {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	int (*sendmmsg)(int, struct mmsghdr *, unsigned int, int);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*writev)(int, const struct iovec *, int);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*recvmmsg)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	int (*close)(int);
	int (*shutdown)(int, int);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	int (*fcntl)(int, int, ...);
	int (*ioctl)(int, unsigned long, ...);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	int (*getsockopt)(int, int, int, void *, socklen_t *);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
	int (*select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
	int (*pselect)(
		int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *);
	int (*epoll_ctl)(int, int, int, struct epoll_event *);
	int (*epoll_wait)(int, struct epoll_event *, int, int);
	int (*epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
};

extern struct pl_real pl_real;

/** Resolve pl_real (dlsym(RTLD_NEXT)) if not yet done; safe to call from any wrapper. */
void pl_init(void);

/* fd -> socket (preload.c) */
extern struct pl_sock **pl_table;
extern int pl_table_size;

/**
 * The preloaded socket behind @p fd now, or NULL (a kernel descriptor), without a hold:
 * for what a close in another thread cannot break (its flags; whether it is one).
 */
static inline struct pl_sock *
pl_sock_of(int fd)
{
	if (fd < 0 || fd >= pl_table_size)
		return NULL;
	return __atomic_load_n(&pl_table[fd], __ATOMIC_ACQUIRE);
}

/**
 * One more hold on @p holds (a socket's or an epoll record's), unless it is 0: the thing
 * was destroyed after the caller found it, and its count never rises again. seq_cst: the
 * caller then looks again at where it found it (pl_get_held()). @return false at 0.
 */
static inline bool
pl_hold_unless_gone(uint32_t *holds)
{
	uint32_t h = __atomic_load_n(holds, __ATOMIC_RELAXED);

	do {
		if (h == 0)
			return false;
	} while (!__atomic_compare_exchange_n(
		holds, &h, h + 1, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return true;
}

/** pl_get() in a process of more than one thread. */
struct pl_sock *pl_get_held(int fd);

/**
 * The preloaded socket behind @p fd, held for the call (pl_put() when it is done), or
 * NULL (a kernel descriptor). Another thread's close of @p fd meanwhile leaves the socket
 * whole until the call ends, as Linux keeps a socket a call is in: a receive blocked on it
 * still gets what comes to its port. In a process of one thread no close can come while
 * it is in a call (glibc clears __libc_single_threaded at the first thread created, and a
 * call makes none): no hold is taken.
 */
static inline struct pl_sock *
pl_get(int fd)
{
	return __libc_single_threaded ? pl_sock_of(fd) : pl_get_held(fd);
}

/** Drop one hold of @p s (the descriptors' or a call's); the last destroys it. errno is kept. */
void pl_hold_drop(struct pl_sock *s);

/** Drop the hold of pl_get() (none was taken in a process of one thread). */
static inline void
pl_put(struct pl_sock *s)
{
	if (!__libc_single_threaded)
		pl_hold_drop(s);
}

/** pl_get() of an endpoint, or NULL (kernel, or still undecided). */
static inline struct pl_sock *
pl_dpsock_get(int fd)
{
	struct pl_sock *s = pl_get(fd);

	if (s != NULL && !s->dpsock) {
		pl_put(s);
		return NULL;
	}
	return s;
}

/**
 * Make @p s (behind @p fd) an endpoint or a kernel socket, by the policy, for a
 * bind to or a send to @p addr (@p local: the bind's). @return 1 (an endpoint),
 * 0 (the kernel's from now on), or -errno (DPSOCK_FALLBACK=fail and no dpfwd).
 */
int pl_decide(int fd, struct pl_sock *s, const struct sockaddr *addr, socklen_t len, bool local);

/** Bind @p s to the wildcard, port 0, unless bound. @return 0 or -errno. */
int pl_bind_auto(struct pl_sock *s);

/** A libdpsock error as the application sees it (dpfwd gone: ENETDOWN). */
int pl_errno_of(int rc);

/**
 * A receive or readiness call's @p rc with "not bound yet" (-EINVAL from libdpsock on a
 * live endpoint) as "nothing to read" (-EAGAIN): as on an unbound Linux UDP socket, where
 * a thread may wait for the reply to another thread's first send, which binds it (and
 * wakes the waiter's queue, do_bind()).
 */
static inline int
pl_unbound_empty(int rc)
{
	return rc == -EINVAL ? -EAGAIN : rc;
}

/** Set errno from a negative @p rc; @return -1. */
static inline int
pl_fail(int rc)
{
	errno = pl_errno_of(rc);
	return -1;
}

/* Loopback addresses reach this host's endpoints: 127/8 and ::1 go to dpsock as the wildcard. */
bool pl_addr_is_loopback(const struct sockaddr *sa);
/*
 * @p sa for dpsock (loopback -> wildcard) in the first sizeof(struct sockaddr_in6) bytes of
 * @p out (the rest is not written: a send's every call pays for what it writes).
 */
void pl_addr_to_dp(const struct sockaddr *sa, socklen_t len, struct sockaddr_storage *out);

static inline void
pl_lock(struct pl_sock *s)
{
	rte_spinlock_lock(&s->lock);
}

static inline void
pl_unlock(struct pl_sock *s)
{
	rte_spinlock_unlock(&s->lock);
}

/* preload_io.c */
/**
 * Take one datagram into s->held unless one is there; called with s->lock held, which a
 * wait lets go of while it sleeps. @return 0 or -errno (-EAGAIN).
 */
int pl_hold(struct pl_sock *s, bool dontwait);
/** Release s->held, the next one taken in its place (s->lock held). */
void pl_drop(struct pl_sock *s);
/** Release every datagram taken (the socket is closing). */
void pl_drop_all(struct pl_sock *s);
/** Forget the datagrams taken without releasing them (another process's, after fork). */
void pl_forget_taken(struct pl_sock *s);
/**
 * Take every datagram waiting behind s->held (s->lock held, at most PL_FILL_MAX), so that
 * a wait that sleeps after it is woken by the next arrival only. @return whether the socket
 * is readable: a datagram held, or an error a read returns.
 */
bool pl_fill(struct pl_sock *s);

/* preload_sig.c */
/** Handlers run in a thread, for pl_sig_restarts(). */
struct pl_sig_mark {
	unsigned int runs;
	unsigned int eintr_runs; /* of handlers installed without SA_RESTART */
};

/** Note the handlers run so far in this thread, before a wait. */
void pl_sig_mark(struct pl_sig_mark *m);
/**
 * After a wait that failed with EINTR: whether the handlers that ran since @p m all have
 * SA_RESTART, so that a call Linux restarts is restarted. False when none was seen.
 */
bool pl_sig_restarts(const struct pl_sig_mark *m);
/**
 * Between the looks of a spinning wait: whether a handler that ran in this thread since
 * @p m ends the wait with EINTR, as it would end a sleep. With @p restartable (a call
 * Linux restarts under SA_RESTART: a recv or send with no timeout set) a handler with
 * SA_RESTART does not, and @p m is set anew.
 */
bool pl_sig_interrupts(struct pl_sig_mark *m, bool restartable);

/* preload_poll.c */
/**
 * Readable now (a datagram held or waiting, dpfwd gone, or read shut). A connected socket
 * takes a datagram that waits into s->held (its peer filter decides); another leaves it in
 * the endpoint for the read. Takes s->lock.
 */
bool pl_readable(struct pl_sock *s);
/** Forget @p s in every application epoll set (its last descriptor is closing). */
void pl_epoll_forget(const struct pl_sock *s);
/** How long a waiting call spins before it sleeps, in nanoseconds (DPSOCK_SPIN_US). */
extern uint64_t pl_spin_ns;
/** CLOCK_MONOTONIC in nanoseconds. */
uint64_t pl_now_ns(void);
/** @p fd is closing: if it is an application epoll set, drop its record. */
void pl_epoll_close(int fd);
/** In a child after fork: the records' lock free (the forking thread held none of it). */
void pl_epoll_fork_child(void);

#endif /* PRELOAD_PRIV_H */
