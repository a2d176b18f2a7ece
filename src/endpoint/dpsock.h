/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * libdpsock: datagram endpoints on dpfwd's fast path, for applications that
 * are not DPDK processes.
 *
 * An endpoint is a UDP-like datagram socket. It attaches to a running dpfwd
 * over a Unix control socket ([endpoint] socket in dpfwd's config; the
 * DPSOCK_PATH environment variable or DPSOCK_DEFAULT_PATH) and sends and
 * receives through memory it shares with dpfwd (dpsock_shm.h):
 *
 *   - to another endpoint on this host: over a ring pair between the two
 *     applications; no dpfwd lcore touches the datagram;
 *   - to anything else: a dpfwd worker makes it a UDP/IPv4 or UDP/IPv6
 *     packet and sends it on a port; UDP packets that dpfwd receives for the
 *     endpoint's address and port come back the other way.
 *
 * Threads: an endpoint is used by one thread at a time (its rings are
 * single-producer single-consumer); give each thread its own endpoints, as
 * SocksDirect does. Different endpoints may be used from different threads
 * at once. An event queue likewise belongs to one thread.
 *
 * Errors: functions return a negative errno (they do not set errno);
 * constructors return NULL and set errno. The codes each may return are
 * listed with it.
 */
#ifndef DPSOCK_H
#define DPSOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where dpfwd listens unless DPSOCK_PATH or the path given says otherwise. */
#define DPSOCK_DEFAULT_PATH "/run/dpfwd/dpsock.sock"

/** dpsock_open() flags. */
#define DPSOCK_NONBLOCK 0x1 /**< calls return -EAGAIN instead of waiting */

/** Per-call flags: MSG_DONTWAIT (from <sys/socket.h>) is honoured, as with sockets. */

/**
 * One datagram in shared memory, for the zero-copy calls. The payload
 * follows this 64-byte header (dpsock_msg_data()).
 *
 * Sending: fill the payload, set @c len. Receiving: @c len, @c peer (the
 * sender's address) and @c tsc (dpfwd's TSC when the packet was received,
 * or the sender's TSC for a datagram from this host; dpsock_tsc_hz()) are set.
 */
struct dpsock_msg {
	uint32_t len; /**< payload bytes */
	uint32_t cap; /**< payload room (set by dpsock_msg_alloc()) */
	uint64_t tsc;
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} peer;         /**< receive: the sender; send: the destination (set by libdpsock) */
	uint16_t chan;  /**< libdpsock's own: which pipe the buffer belongs to */
	uint16_t flags; /**< libdpsock's own */
	uint32_t pad[4];
};

/** The payload of @p m. */
static inline void *
dpsock_msg_data(struct dpsock_msg *m)
{
	return (void *)(m + 1);
}

struct dpsock;
struct dpsock_evq;

/**
 * Open an endpoint of @p family (AF_INET or AF_INET6), attached to the dpfwd
 * listening at @p path (NULL: $DPSOCK_PATH, else DPSOCK_DEFAULT_PATH).
 * @return the endpoint, or NULL with errno: ENOENT / ECONNREFUSED (no dpfwd
 *         there: start it with an [endpoint] section), EACCES (the socket's
 *         permissions), EAFNOSUPPORT, EPROTO (a dpfwd of another version),
 *         ENOMEM, EMFILE.
 */
struct dpsock *dpsock_open(const char *path, int family, int flags);

/**
 * Bind to one of dpfwd's interface addresses (or the wildcard) and a UDP
 * port (0: dpfwd picks a free one). An endpoint that sends before it is
 * bound is bound to the wildcard and a port dpfwd picks.
 * @return 0, or -EADDRINUSE, -EADDRNOTAVAIL (not an address of dpfwd),
 *         -EINVAL (already bound, bad length or family), -ENOTCONN (dpfwd
 *         went away), -ENOMEM (dpfwd could not make the endpoint's memory).
 */
int dpsock_bind(struct dpsock *ep, const struct sockaddr *addr, socklen_t len);

/**
 * Set the default destination of dpsock_send() and accept datagrams only from it.
 * @return 0, or -EINVAL, -EAFNOSUPPORT, and what dpsock_bind() returns.
 */
int dpsock_connect(struct dpsock *ep, const struct sockaddr *addr, socklen_t len);

/** The bound address (after dpsock_bind() or the first send). @return 0, -EINVAL (not bound). */
int dpsock_getsockname(struct dpsock *ep, struct sockaddr *addr, socklen_t *len);

/**
 * Send one datagram, copying @p len bytes.
 * @return @p len, or -EAGAIN (no buffer: the receiver is behind; non-blocking
 *         or MSG_DONTWAIT), -EMSGSIZE (larger than DPSOCK_CLASS2_CAP to a local
 *         endpoint, or than 65507 (IPv4) / 65527 (IPv6) bytes to another host),
 *         -EDESTADDRREQ (no destination and not connected), -EAFNOSUPPORT,
 *         -ENOTCONN (dpfwd went away), -ECONNREFUSED (a local peer closed).
 */
ssize_t dpsock_sendto(struct dpsock *ep, const void *buf, size_t len, int flags,
	const struct sockaddr *to, socklen_t tolen);

/** dpsock_sendto() to the connected peer. */
ssize_t dpsock_send(struct dpsock *ep, const void *buf, size_t len, int flags);

/**
 * Receive one datagram, copying it to @p buf (truncated to @p len, as UDP
 * sockets do; the rest is lost). @p from / @p fromlen may be NULL.
 * @return the datagram's whole length, or -EAGAIN (nothing yet: non-blocking
 *         or MSG_DONTWAIT), -ENOTCONN (dpfwd went away), -EINVAL (not bound).
 */
ssize_t dpsock_recvfrom(struct dpsock *ep, void *buf, size_t len, int flags, struct sockaddr *from,
	socklen_t *fromlen);

/** dpsock_recvfrom() without the sender's address. */
ssize_t dpsock_recv(struct dpsock *ep, void *buf, size_t len, int flags);

/**
 * Whether a receive would find a datagram now, without taking it: a readiness check that
 * leaves the datagram in place, so that a dpsock_recvfrom() after it copies a small one
 * from its ring slot and reads nothing else the sender wrote. A datagram it counts may
 * still be dropped by the receive (not the connected peer's, or a channel's bad offset).
 * @return 1 (one waits), 0 (none), or -ENOTCONN (dpfwd went away), -EINVAL (not bound).
 */
int dpsock_readable(struct dpsock *ep);

/**
 * Zero-copy send, step 1: @p n empty buffers with room for @p size bytes each,
 * for datagrams to @p to (NULL: the connected peer). They must be sent to that
 * destination (dpsock_send_burst()) or given back (dpsock_msg_free()).
 * @return buffers given (at least 1 unless an error; fewer than @p n when the
 *         pipe runs short), or -EAGAIN (none free and non-blocking), -EMSGSIZE,
 *         -EDESTADDRREQ, -ENOTCONN, -ECONNREFUSED.
 */
int dpsock_msg_alloc(struct dpsock *ep, const struct sockaddr *to, socklen_t tolen, size_t size,
	struct dpsock_msg **msgs, unsigned int n);

/**
 * Zero-copy send, step 2: send @p n filled buffers (their len set). Takes every
 * one. @return @p n, or -EINVAL (a buffer that dpsock_msg_alloc() did not give,
 * or len over its cap: nothing sent).
 */
int dpsock_send_burst(struct dpsock *ep, struct dpsock_msg **msgs, unsigned int n);

/**
 * Zero-copy receive: up to @p n datagrams, in place. Give each back with
 * dpsock_msg_free() when done (the sender's buffers are lent, not copied).
 * Waits for the first one unless non-blocking / MSG_DONTWAIT.
 * @return how many (>= 1), or -EAGAIN, -ENOTCONN, -EINVAL (not bound).
 */
int dpsock_recv_burst(struct dpsock *ep, struct dpsock_msg **msgs, unsigned int n, int flags);

/** Give back buffers from dpsock_recv_burst() or unsent ones from dpsock_msg_alloc(). */
void dpsock_msg_free(struct dpsock *ep, struct dpsock_msg **msgs, unsigned int n);

/** Ticks per second of the TSC that dpsock_msg.tsc counts (dpfwd's, this host's). */
uint64_t dpsock_tsc_hz(const struct dpsock *ep);

/** Counters of one endpoint, as libdpsock sees them. */
struct dpsock_stats {
	uint64_t tx_msgs, tx_bytes;
	uint64_t rx_msgs, rx_bytes;
	uint64_t tx_again; /**< sends refused for want of a buffer (-EAGAIN or a wait) */
	uint64_t
		rx_dropped; /**< datagrams dpfwd had for this endpoint but no buffer to put them in */
	uint64_t wakeups;   /**< eventfd writes this endpoint made to wake a peer */
	uint64_t sleeps;    /**< times it slept on its eventfd */
	uint32_t channels; /**< ring pairs to endpoints on this host */
};

/** @return 0 or -EINVAL. */
int dpsock_stats_get(const struct dpsock *ep, struct dpsock_stats *st);

/**
 * Give back the buffers the endpoint keeps in hand between calls: received ones to their
 * senders, and free ones of its own region it took ahead to send. A process forked from
 * the endpoint's calls it when it stops using the endpoint (it exits) and another goes
 * on, so that dpfwd's counts of buffers in use are those of the calls in progress.
 * Nothing is done when another process made the endpoint's last call.
 * @return 1 (this process made the last call: given back), 0 (another did: nothing
 * done), or -EINVAL (@p ep NULL).
 */
int dpsock_flush(struct dpsock *ep);

/**
 * Wake a thread of the program that sleeps on @p ep (in dpsock_evq_wait() of its queue,
 * on dpsock_evq_fd(), or in a blocking receive), to look again, as an arrival would: for
 * a state the other thread must see (a socket layer's shutdown). A system call.
 * @return 0, or -EINVAL (@p ep NULL).
 */
int dpsock_wake(struct dpsock *ep);

/** Close: dpfwd takes back the endpoint's memory and its port; peers see -ECONNREFUSED. */
void dpsock_close(struct dpsock *ep);

/** Event queue: readiness of many endpoints, for one thread. */
#define DPSOCK_EV_IN 0x1 /**< a datagram can be received */

struct dpsock_event {
	struct dpsock *ep;
	uint32_t events;
	void *udata;
};

/**
 * An event queue. Waits spin for @p spin_us microseconds (0: a default), then
 * sleep on a file descriptor (dpsock_evq_fd()).
 * @return the queue, or NULL with errno ENOMEM, EMFILE.
 */
struct dpsock_evq *dpsock_evq_create(unsigned int spin_us);

/** Watch @p ep for @p events. @return 0, -EEXIST, -EINVAL, -ENOMEM. */
int dpsock_evq_add(struct dpsock_evq *q, struct dpsock *ep, uint32_t events, void *udata);

/** Stop watching @p ep. @return 0, -ENOENT. */
int dpsock_evq_del(struct dpsock_evq *q, struct dpsock *ep);

/**
 * Ready endpoints, up to @p max; waits up to @p timeout_ms (-1: forever, 0: no wait).
 * @return how many (0 on timeout), or -EINTR, -EINVAL.
 */
int dpsock_evq_wait(struct dpsock_evq *q, struct dpsock_event *ev, int max, int timeout_ms);

/**
 * A descriptor that polls readable when a watched endpoint has something:
 * put it in the application's own epoll beside kernel sockets. It is armed
 * by a dpsock_evq_wait() that found nothing (with timeout 0, it arms and
 * returns 0 at once); when it polls readable, call dpsock_evq_wait(q, ..., 0).
 */
int dpsock_evq_fd(const struct dpsock_evq *q);

/**
 * Undo the arming of a dpsock_evq_wait() that found nothing: the peers stop
 * writing the queue's eventfds, which costs them a system call a message. For
 * a program that slept on dpsock_evq_fd() and, awake, looks again by itself
 * rather than through dpsock_evq_wait(). @return 0, or -EINVAL.
 */
int dpsock_evq_disarm(struct dpsock_evq *q);

void dpsock_evq_destroy(struct dpsock_evq *q);

#ifdef __cplusplus
}
#endif

#endif /* DPSOCK_H */
