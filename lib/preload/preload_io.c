/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdpsock-preload: sending and receiving on a preloaded socket.
 *
 * Receiving takes one datagram at a time in place (dpsock_recv_burst(), no
 * copy) and holds it in s->held until a call consumes it: MSG_PEEK, FIONREAD
 * and a readiness check that found it leave it there. An edge-triggered look
 * takes in every datagram waiting (s->more, behind s->held), so that it can
 * tell a new arrival from one it reported. A connected socket drops datagrams
 * from anyone but its peer, as Linux does.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_pause.h>

#include "preload_priv.h"

/* A blocking send's nap between two tries when no buffer is free (libdpsock's too) */
#define PL_SEND_NAP_US 20

static bool
peer_is(const struct pl_sock *s, const struct dpsock_msg *m)
{
	if (s->family == AF_INET)
		return m->peer.in.sin_port == s->peer_dp.in.sin_port &&
		       m->peer.in.sin_addr.s_addr == s->peer_dp.in.sin_addr.s_addr;
	return m->peer.in6.sin6_port == s->peer_dp.in6.sin6_port &&
	       memcmp(&m->peer.in6.sin6_addr, &s->peer_dp.in6.sin6_addr, 16) == 0;
}

void
pl_drop(struct pl_sock *s)
{
	if (s->held == NULL)
		return;
	dpsock_msg_free(s->ep, &s->held, 1);
	s->held = NULL;
	if (s->nb_more > 0) {
		s->held = s->more[s->more_head];
		s->more_head = (s->more_head + 1) & (s->more_cap - 1);
		s->nb_more--;
	}
}

void
pl_forget_taken(struct pl_sock *s)
{
	s->held = NULL;
	free(s->more);
	s->more = NULL;
	s->more_cap = 0;
	s->more_head = 0;
	s->nb_more = 0;
}

void
pl_drop_all(struct pl_sock *s)
{
	while (s->held != NULL)
		pl_drop(s);
	free(s->more);
	s->more = NULL;
	s->more_cap = 0;
	s->more_head = 0;
}

/* Room for one more behind s->held: the ring doubled when full. @return false: no memory. */
static bool
more_room(struct pl_sock *s)
{
	struct dpsock_msg **p;
	unsigned int cap, i;

	if (s->nb_more < s->more_cap)
		return true;
	cap = s->more_cap != 0 ? s->more_cap * 2 : 32;
	p = malloc(cap * sizeof(*p));
	if (p == NULL)
		return false;
	for (i = 0; i < s->nb_more; i++)
		p[i] = s->more[(s->more_head + i) & (s->more_cap - 1)];
	free(s->more);
	s->more = p;
	s->more_cap = cap;
	s->more_head = 0;
	return true;
}

/*
 * @p m taken from the endpoint: kept behind what is held, or dropped (not the peer's; no
 * memory to keep it, as a full receive buffer drops).
 */
static void
take(struct pl_sock *s, struct dpsock_msg *m)
{
	if ((s->connected && !peer_is(s, m)) || (s->held != NULL && !more_room(s))) {
		dpsock_msg_free(s->ep, &m, 1);
		return;
	}
	s->arrived++;
	if (s->held == NULL)
		s->held = m;
	else
		s->more[(s->more_head + s->nb_more++) & (s->more_cap - 1)] = m;
}

/* One datagram from the endpoint into *m, without waiting. @return 1, or -errno (-EAGAIN: none). */
static int
take_now(struct pl_sock *s, struct dpsock_msg **m)
{
	return pl_unbound_empty(dpsock_recv_burst(s->ep, m, 1, MSG_DONTWAIT));
}

bool
pl_fill(struct pl_sock *s)
{
	unsigned int n;

	for (n = 0; n < PL_FILL_MAX; n++) {
		struct dpsock_msg *m;
		int rc = take_now(s, &m);

		if (rc == -EAGAIN)
			break;
		if (rc < 0) {
			if (!s->gone_seen)
				s->arrived++;
			s->gone_seen = true;
			return true;
		}
		take(s, m);
	}
	return s->held != NULL;
}

/*
 * One datagram, waiting at most SO_RCVTIMEO (0: for ever): a look, a spin of
 * DPSOCK_SPIN_US, then the socket's queue armed and a sleep on its descriptor, s->lock
 * let go of meanwhile. A signal handler interrupts the spin or the sleep as it interrupts
 * Linux's recv (signal(7)): with SA_RESTART and no SO_RCVTIMEO the wait goes on, else -EINTR.
 */
static int
take_waiting(struct pl_sock *s, struct dpsock_msg **m)
{
	const uint64_t t0 = pl_now_ns(), end = t0 + (uint64_t)s->rcvtimeo_us * 1000;
	struct pl_sig_mark sm;

	pl_sig_mark(&sm);
	for (;;) {
		struct dpsock_event ev;
		struct pollfd p;
		uint64_t now;
		int rc = take_now(s, m), ms = -1;

		if (rc != -EAGAIN || s->shut_rd)
			return rc; /* (shut while it waited: recv_wait() reads 0) */
		if (pl_sig_interrupts(&sm, s->rcvtimeo_us == 0))
			return -EINTR;
		now = pl_now_ns();
		if (s->rcvtimeo_us > 0) {
			if (now >= end)
				return -EAGAIN;
			ms = (int)((end - now + 999999) / 1000000);
		}
		if (now - t0 < pl_spin_ns) {
			pl_unlock(s);
			rte_pause();
			pl_lock(s);
			continue;
		}
		rc = dpsock_evq_wait(s->evq, &ev, 1, 0); /* 0: armed, nothing came meanwhile */
		if (rc != 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		p = (struct pollfd){ .fd = dpsock_evq_fd(s->evq), .events = POLLIN };
		pl_unlock(s);
		rc = pl_real.poll(&p, 1, ms) < 0 ? -errno : 0;
		pl_lock(s);
		dpsock_evq_disarm(s->evq); /* awake: its peers need not wake it while it looks */
		if (rc == -EINTR && s->rcvtimeo_us == 0 && pl_sig_restarts(&sm)) {
			pl_sig_mark(&sm);
			continue;
		}
		if (rc < 0)
			return rc;
	}
}

int
pl_hold(struct pl_sock *s, bool dontwait)
{
	while (s->held == NULL) {
		struct dpsock_msg *m;
		int rc;

		if (dontwait)
			rc = take_now(s, &m);
		else
			rc = take_waiting(s, &m);
		if (rc < 0)
			return rc;
		take(s, m);
	}
	return 0;
}

/*
 * A sender's address as dpsock gave it (@p peer, @p family's) as the application sees it,
 * in @p ss: a local wildcard peer is loopback. @return its length, the bytes written.
 */
static socklen_t
peer_shown(int family, const void *peer, struct sockaddr_storage *ss)
{
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		memcpy(in, peer, sizeof(*in));
		in->sin_family = AF_INET;
		if (in->sin_addr.s_addr == htonl(INADDR_ANY))
			in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memcpy(in6, peer, sizeof(*in6));
	in6->sin6_family = AF_INET6;
	if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
		in6->sin6_addr = in6addr_loopback;
	return sizeof(*in6);
}

/* The sender of s->held as the application sees it. */
static socklen_t
held_from(const struct pl_sock *s, struct sockaddr_storage *ss)
{
	return peer_shown(s->family, &s->held->peer, ss);
}

/*
 * Wait (or not) for a datagram as @p flags and the socket say. @return 0, 1 (shut for
 * reading: read 0 bytes), or -errno.
 */
static int
recv_wait(struct pl_sock *s, int flags)
{
	int rc;

	if ((flags & MSG_OOB) != 0)
		return -EOPNOTSUPP;
	if ((flags & MSG_ERRQUEUE) != 0)
		return -EAGAIN; /* nothing is ever queued there */
	rc = pl_hold(s, s->shut_rd || s->nonblock || (flags & MSG_DONTWAIT) != 0);
	/* 1: read 0 bytes, as after shutdown(SHUT_RD), also by another thread meanwhile */
	return rc == -EAGAIN && s->shut_rd ? 1 : rc;
}

/* Scatter s->held into @p iov; @return the bytes copied; *whole its length. */
static size_t
held_copy(struct pl_sock *s, const struct iovec *iov, size_t iovcnt, size_t *whole)
{
	const uint8_t *p = dpsock_msg_data(s->held);
	size_t left = s->held->len, done = 0, i;

	*whole = left;
	for (i = 0; i < iovcnt && left > 0; i++) {
		size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;

		memcpy(iov[i].iov_base, p + done, n);
		done += n;
		left -= n;
	}
	return done;
}

/* The IP_PKTINFO / IPV6_PKTINFO control message: the address the datagram was sent to. */
static void
pktinfo_put(struct pl_sock *s, struct msghdr *msg)
{
	struct cmsghdr *c;
	size_t need;
	bool local_peer;

	need = CMSG_SPACE(
		s->family == AF_INET ? sizeof(struct in_pktinfo) : sizeof(struct in6_pktinfo));
	if (msg->msg_control == NULL || msg->msg_controllen < need) {
		msg->msg_flags |= MSG_CTRUNC;
		msg->msg_controllen = 0;
		return;
	}
	memset(msg->msg_control, 0, need);
	c = (struct cmsghdr *)msg->msg_control;
	if (s->family == AF_INET) {
		struct in_pktinfo pi = { 0 };
		const struct sockaddr_in *me = (const struct sockaddr_in *)&s->local_shown;

		local_peer = s->held->peer.in.sin_addr.s_addr == htonl(INADDR_ANY);
		if (s->bound && me->sin_addr.s_addr != htonl(INADDR_ANY))
			pi.ipi_addr = me->sin_addr;
		else if (local_peer)
			pi.ipi_addr.s_addr = htonl(INADDR_LOOPBACK);
		pi.ipi_spec_dst = pi.ipi_addr;
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	} else {
		struct in6_pktinfo pi = { 0 };
		const struct sockaddr_in6 *me = (const struct sockaddr_in6 *)&s->local_shown;

		local_peer = IN6_IS_ADDR_UNSPECIFIED(&s->held->peer.in6.sin6_addr);
		if (s->bound && !IN6_IS_ADDR_UNSPECIFIED(&me->sin6_addr))
			pi.ipi6_addr = me->sin6_addr;
		else if (local_peer)
			pi.ipi6_addr = in6addr_loopback;
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	}
	msg->msg_controllen = need;
}

/*
 * recv_one() of a datagram waiting in the endpoint, copied straight into a single buffer
 * (s->lock held): the case without a held datagram, peer filter, MSG_PEEK or control
 * message. A small datagram is then copied from its ring slot, and the sender's buffer
 * is neither read nor written here. @return bytes, -EAGAIN (none waits, or not that
 * case: recv_one() goes on), or -errno.
 */
static ssize_t
recv_copy(struct pl_sock *s, struct msghdr *msg, int flags)
{
	struct sockaddr_storage peer, from;
	socklen_t plen = sizeof(peer), flen;
	ssize_t whole;
	size_t got;

	if (s->held != NULL || s->connected || s->shut_rd || s->pktinfo || msg->msg_iovlen != 1 ||
		(flags & (MSG_PEEK | MSG_OOB | MSG_ERRQUEUE)) != 0)
		return -EAGAIN;
	whole = dpsock_recvfrom(s->ep, msg->msg_iov[0].iov_base, msg->msg_iov[0].iov_len,
		MSG_DONTWAIT, (struct sockaddr *)&peer, &plen);
	if (whole < 0)
		return pl_unbound_empty((int)whole);
	s->arrived++;
	got = (size_t)whole < msg->msg_iov[0].iov_len ? (size_t)whole : msg->msg_iov[0].iov_len;
	msg->msg_flags = got < (size_t)whole ? MSG_TRUNC : 0;
	if (msg->msg_name != NULL) {
		flen = peer_shown(s->family, &peer, &from);
		memcpy(msg->msg_name, &from, msg->msg_namelen < flen ? msg->msg_namelen : flen);
		msg->msg_namelen = flen;
	}
	msg->msg_controllen = 0;
	return (flags & MSG_TRUNC) != 0 ? whole : (ssize_t)got;
}

/* recvmsg() on a preloaded socket (takes s->lock); @return bytes, or -errno. */
static ssize_t
recv_one(struct pl_sock *s, struct msghdr *msg, int flags)
{
	struct sockaddr_storage from;
	size_t got, whole;
	socklen_t flen;
	ssize_t copied;
	int rc;

	pl_lock(s);
	copied = recv_copy(s, msg, flags);
	if (copied != -EAGAIN) {
		pl_unlock(s);
		return copied;
	}
	rc = recv_wait(s, flags);
	if (rc < 0) {
		pl_unlock(s);
		return rc;
	}
	msg->msg_flags = 0;
	if (rc == 1) {
		pl_unlock(s);
		msg->msg_namelen = 0;
		msg->msg_controllen = 0;
		return 0;
	}
	got = held_copy(s, msg->msg_iov, msg->msg_iovlen, &whole);
	if (msg->msg_name != NULL) {
		flen = held_from(s, &from);
		memcpy(msg->msg_name, &from, msg->msg_namelen < flen ? msg->msg_namelen : flen);
		msg->msg_namelen = flen;
	}
	if (s->pktinfo)
		pktinfo_put(s, msg);
	else
		msg->msg_controllen = 0;
	if (got < whole)
		msg->msg_flags |= MSG_TRUNC;
	if ((flags & MSG_PEEK) == 0)
		pl_drop(s);
	pl_unlock(s);
	return (ssize_t)((flags & MSG_TRUNC) != 0 ? whole : got);
}

static ssize_t
recv_buf(struct pl_sock *s, void *buf, size_t len, int flags, struct sockaddr *from,
	socklen_t *fromlen)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t rc;

	if (from != NULL && fromlen != NULL) {
		msg.msg_name = from;
		msg.msg_namelen = *fromlen;
	}
	rc = recv_one(s, &msg, flags);
	if (rc < 0)
		return pl_fail((int)rc);
	if (from != NULL && fromlen != NULL)
		*fromlen = msg.msg_namelen;
	return rc;
}

ssize_t
recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)
{
	struct pl_sock *s;
	ssize_t rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.recvfrom(fd, buf, len, flags, from, fromlen);
	rc = recv_buf(s, buf, len, flags, from, fromlen);
	pl_put(s);
	return rc;
}

ssize_t
recv(int fd, void *buf, size_t len, int flags)
{
	struct pl_sock *s;
	ssize_t rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.recv(fd, buf, len, flags);
	rc = recv_buf(s, buf, len, flags, NULL, NULL);
	pl_put(s);
	return rc;
}

ssize_t
read(int fd, void *buf, size_t len)
{
	struct pl_sock *s;
	ssize_t rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.read(fd, buf, len);
	rc = recv_buf(s, buf, len, 0, NULL, NULL);
	pl_put(s);
	return rc;
}

ssize_t
recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct pl_sock *s;
	ssize_t rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.recvmsg(fd, msg, flags);
	rc = recv_one(s, msg, flags);
	pl_put(s);
	return rc < 0 ? pl_fail((int)rc) : rc;
}

ssize_t
readv(int fd, const struct iovec *iov, int iovcnt)
{
	struct msghdr msg = { .msg_iov = (struct iovec *)(uintptr_t)iov, .msg_iovlen = iovcnt };
	struct pl_sock *s;
	ssize_t rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.readv(fd, iov, iovcnt);
	rc = recv_one(s, &msg, 0);
	pl_put(s);
	return rc < 0 ? pl_fail((int)rc) : rc;
}

int
recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags, struct timespec *timeout)
{
	struct pl_sock *s;
	ssize_t rc = 0;
	unsigned int i;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.recvmmsg(fd, vec, vlen, flags, timeout);
	for (i = 0; i < vlen; i++) {
		int f = flags & ~MSG_WAITFORONE;

		if (i > 0 && (flags & MSG_WAITFORONE) != 0)
			f |= MSG_DONTWAIT;
		rc = recv_one(s, &vec[i].msg_hdr, f);
		if (rc < 0)
			break;
		vec[i].msg_len = (unsigned int)rc;
	}
	pl_put(s);
	return i > 0 || vlen == 0 ? (int)i : pl_fail((int)rc);
}

/* ---- sending ---- */

/*
 * dpsock_sendto() under s->lock, never blocking in it: with no free buffer a blocking
 * send spins DPSOCK_SPIN_US, then naps, the lock let go of, for at most SO_SNDTIMEO
 * (0: for ever), so that a thread receiving on the socket frees what holds the send back.
 * A signal handler that runs meanwhile interrupts the wait as it interrupts Linux's
 * blocked send (signal(7)): with SA_RESTART and no SO_SNDTIMEO the wait goes on, else
 * -EINTR.
 */
static ssize_t
send_locked(struct pl_sock *s, const void *buf, size_t len, bool dontwait, const struct sockaddr *d,
	socklen_t dlen)
{
	uint64_t t0 = 0; /* the clock is read once a send found no buffer, not on every send */
	struct pl_sig_mark sm;

	pl_sig_mark(&sm);
	for (;;) {
		uint64_t spent;
		ssize_t rc;

		pl_lock(s);
		rc = dpsock_sendto(s->ep, buf, len, MSG_DONTWAIT, d, dlen);
		pl_unlock(s);
		if (rc != -EAGAIN || dontwait)
			return rc;
		if (t0 == 0)
			t0 = pl_now_ns();
		spent = pl_now_ns() - t0;
		if (s->sndtimeo_us > 0 && spent >= (uint64_t)s->sndtimeo_us * 1000)
			return -EAGAIN;
		if (spent < pl_spin_ns)
			rte_pause();
		else
			usleep(PL_SEND_NAP_US);
		if (pl_sig_interrupts(&sm, s->sndtimeo_us == 0))
			return -EINTR;
	}
}

/* One datagram to @p to (NULL: the connected peer). @return bytes or -errno. */
static ssize_t
send_one(struct pl_sock *s, const void *buf, size_t len, int flags, const struct sockaddr *to,
	socklen_t tolen)
{
	struct sockaddr_storage dest;
	const struct sockaddr *d;
	socklen_t dlen;
	const bool dontwait = s->nonblock || (flags & MSG_DONTWAIT) != 0;
	ssize_t rc;

	if ((flags & MSG_OOB) != 0)
		return -EOPNOTSUPP;
	if (to == NULL) {
		if (!s->connected)
			return -EDESTADDRREQ;
		d = (const struct sockaddr *)&s->peer_dp;
		dlen = s->peer_len;
	} else {
		if (tolen < sizeof(sa_family_t))
			return -EINVAL;
		if (to->sa_family != s->family)
			return -EAFNOSUPPORT;
		if (tolen < (s->family == AF_INET ? sizeof(struct sockaddr_in)
						  : sizeof(struct sockaddr_in6)))
			return -EINVAL;
		pl_addr_to_dp(to, tolen, &dest);
		d = (const struct sockaddr *)&dest;
		dlen = tolen;
	}
	rc = send_locked(s, buf, len, dontwait, d, dlen);
	if (rc == -ECONNREFUSED) {
		/* a local peer closed: a connected socket is told, as by ICMP; else retried */
		if (to == NULL)
			return rc;
		rc = send_locked(s, buf, len, dontwait, d, dlen);
		if (rc == -ECONNREFUSED)
			rc = (ssize_t)len; /* lost, as a datagram to a closed port is */
	}
	return rc;
}

/* Decide an undecided socket on its first send to @p to. @return 1 (dpsock), 0, -errno. */
static int
send_decide(int fd, struct pl_sock *s, const struct sockaddr *to, socklen_t tolen)
{
	if (s->dpsock)
		return 1;
	if (to == NULL)
		return 0;
	return pl_decide(fd, s, to, tolen, false);
}

ssize_t
sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen)
{
	struct pl_sock *s;
	ssize_t rc;
	int d;

	pl_init();
	s = pl_get(fd);
	if (s == NULL)
		return pl_real.sendto(fd, buf, len, flags, to, tolen);
	d = send_decide(fd, s, to, tolen);
	if (d <= 0) {
		pl_put(s);
		return d < 0 ? pl_fail(d) : pl_real.sendto(fd, buf, len, flags, to, tolen);
	}
	rc = send_one(s, buf, len, flags, to, tolen);
	pl_put(s);
	return rc < 0 ? pl_fail((int)rc) : rc;
}

ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	struct pl_sock *s;
	ssize_t rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.write(fd, buf, len);
	rc = send_one(s, buf, len, 0, NULL, 0);
	pl_put(s);
	return rc < 0 ? pl_fail((int)rc) : rc;
}

/* A gather list in one piece: the first buffer itself, or a copy in a thread's buffer. */
static const void *
gather(const struct iovec *iov, size_t n, size_t *len)
{
	static __thread uint8_t *buf;
	static __thread size_t cap;
	static const uint8_t empty[1];
	size_t total = 0, i, off = 0;

	for (i = 0; i < n; i++)
		total += iov[i].iov_len;
	*len = total;
	if (n == 1)
		return iov[0].iov_base;
	if (total == 0)
		return empty;
	if (total > cap) {
		uint8_t *p = realloc(buf, total);

		if (p == NULL)
			return NULL;
		buf = p;
		cap = total;
	}
	for (i = 0; i < n; i++) {
		memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	return buf;
}

static ssize_t
send_msg(struct pl_sock *s, const struct msghdr *msg, int flags)
{
	const void *p;
	size_t len;

	p = gather(msg->msg_iov, msg->msg_iovlen, &len);
	if (p == NULL && len > 0)
		return -ENOBUFS;
	return send_one(s, p, len, flags, msg->msg_name, msg->msg_namelen);
}

ssize_t
sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct pl_sock *s;
	ssize_t rc;
	int d;

	pl_init();
	s = pl_get(fd);
	if (s == NULL)
		return pl_real.sendmsg(fd, msg, flags);
	d = send_decide(fd, s, msg->msg_name, msg->msg_namelen);
	if (d <= 0) {
		pl_put(s);
		return d < 0 ? pl_fail(d) : pl_real.sendmsg(fd, msg, flags);
	}
	rc = send_msg(s, msg, flags);
	pl_put(s);
	return rc < 0 ? pl_fail((int)rc) : rc;
}

ssize_t
writev(int fd, const struct iovec *iov, int iovcnt)
{
	struct msghdr msg = { .msg_iov = (struct iovec *)(uintptr_t)iov, .msg_iovlen = iovcnt };
	struct pl_sock *s;
	ssize_t rc;

	pl_init();
	s = pl_dpsock_get(fd);
	if (s == NULL)
		return pl_real.writev(fd, iov, iovcnt);
	rc = send_msg(s, &msg, 0);
	pl_put(s);
	return rc < 0 ? pl_fail((int)rc) : rc;
}

int
sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	struct pl_sock *s;
	ssize_t rc = 0;
	unsigned int i;
	int d;

	pl_init();
	s = pl_get(fd);
	if (s == NULL)
		return pl_real.sendmmsg(fd, vec, vlen, flags);
	d = vlen > 0 ? send_decide(fd, s, vec[0].msg_hdr.msg_name, vec[0].msg_hdr.msg_namelen) : 1;
	if (d <= 0) {
		pl_put(s);
		return d < 0 ? pl_fail(d) : pl_real.sendmmsg(fd, vec, vlen, flags);
	}
	for (i = 0; i < vlen; i++) {
		rc = send_msg(s, &vec[i].msg_hdr, flags);
		if (rc < 0)
			break;
		vec[i].msg_len = (unsigned int)rc;
	}
	pl_put(s);
	return i > 0 || vlen == 0 ? (int)i : pl_fail((int)rc);
}

/* _FORTIFY_SOURCE's checked forms, which call libc's own read and recv, not these. */
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
	struct sockaddr *from, socklen_t *fromlen);

ssize_t
__read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		abort();
	return read(fd, buf, len);
}

ssize_t
__recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	if (len > buflen)
		abort();
	return recv(fd, buf, len, flags);
}

ssize_t
__recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags, struct sockaddr *from,
	socklen_t *fromlen)
{
	if (len > buflen)
		abort();
	return recvfrom(fd, buf, len, flags, from, fromlen);
}
