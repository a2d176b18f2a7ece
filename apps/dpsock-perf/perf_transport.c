/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transports dpsock-perf compares, behind one table of operations (perf.h):
 *
 *   dpsock-local   two libdpsock endpoints on this host: dpsock_send/recv (copies)
 *   dpsock-zc      the same endpoints, zero-copy: dpsock_msg_alloc, send_burst,
 *                  recv_burst (checked in place), msg_free
 *   udp-loopback   Linux UDP sockets on 127.0.0.1
 *   unix-dgram     a Linux AF_UNIX SOCK_DGRAM socketpair
 *   shm-spin       a ring of slots in a MAP_SHARED mapping, one cache line per
 *                  small message: a spin flag and the data (the floor)
 *
 * Spin mode: every call is non-blocking and the caller polls. Block mode: the
 * first receive of a call waits (Linux sockets and dpsock-remote: at most
 * PERF_RCV_TIMEOUT_MS, so that a lost message cannot hang the test).
 *
 * Zero-copy senders build a buffer's pattern once, the first time they get that
 * buffer (and again when a message is longer than what it holds), then write only
 * the sequence words, as an application that builds its messages in place would;
 * copying senders copy the whole message from their own buffer in every call,
 * which is what send() costs. Every receiver checks every byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "dpsock.h"
#include "dpsock_shm.h"
#include "perf.h"

#define PERF_RCV_TIMEOUT_MS 200
#define ZC_TABLE            8192u /* buffers remembered as filled (a power of 2) */

/* ---- buffers ---- */

int
perf_ep_buffers(struct perf_ep *ep, size_t size)
{
	size_t txlen = (size + 63) & ~(size_t)63;

	ep->rxcap = PERF_MAX_SIZE + 64;
	ep->tx = aligned_alloc(64, txlen < 64 ? 64 : txlen);
	ep->rxbuf = aligned_alloc(64, ep->rxcap);
	if (ep->tx == NULL || ep->rxbuf == NULL) {
		perf_ep_buffers_free(ep);
		return -ENOMEM;
	}
	perf_pattern_fill(ep->tx, size);
	memset(ep->rxbuf, 0, ep->rxcap); /* no page faults in the measured part */
	return 0;
}

void
perf_ep_buffers_free(struct perf_ep *ep)
{
	free(ep->tx);
	free(ep->rxbuf);
	free(ep->zc_filled);
	ep->tx = ep->rxbuf = NULL;
	ep->zc_filled = NULL;
}

static int
why_err(char *why, size_t len, int err, const char *fmt, const char *arg)
{
	char what[160];

	snprintf(what, sizeof(what), fmt, arg);
	snprintf(why, len, "%s: %s", what, strerror(err));
	return -err;
}

static int
other(const struct perf_ep *ep)
{
	return 1 - ep->side;
}

/* ---- dpsock (copy and zero-copy) ---- */

static size_t
dpsock_max(const struct perf_opts *o)
{
	(void)o;
	return DPSOCK_CLASS2_CAP;
}

static int
dps_open(struct perf_ep *ep, char *why, size_t whylen)
{
	const struct perf_opts *o = ep->pp->o;
	struct perf_pair *pp = ep->pp;
	struct dpsock *ds;
	socklen_t len = sizeof(pp->addr[ep->side]);
	int rc;

	ds = dpsock_open(o->dpsock_path, o->local.ss_family, ep->block ? 0 : DPSOCK_NONBLOCK);
	if (ds == NULL)
		return why_err(why, whylen, errno, "dpsock_open(%s)",
			o->dpsock_path ? o->dpsock_path : "default path");
	rc = dpsock_bind(ds, (const struct sockaddr *)&o->local, o->local_len);
	if (rc < 0) {
		dpsock_close(ds);
		return why_err(why, whylen, -rc, "dpsock_bind(%s)", "--local-addr");
	}
	rc = dpsock_getsockname(ds, (struct sockaddr *)&pp->addr[ep->side], &len);
	if (rc < 0) {
		dpsock_close(ds);
		return why_err(why, whylen, -rc, "dpsock_getsockname%s", "");
	}
	pp->addr_len[ep->side] = len;
	if (ep->block && pp->lossy) {
		/* a wait that can end: 1 us of spinning, then asleep as a blocking call */
		ep->evq = dpsock_evq_create(1);
		rc = ep->evq == NULL ? -errno : dpsock_evq_add(ep->evq, ds, DPSOCK_EV_IN, NULL);
		if (rc < 0) {
			if (ep->evq != NULL)
				dpsock_evq_destroy(ep->evq);
			ep->evq = NULL;
			dpsock_close(ds);
			return why_err(why, whylen, -rc, "dpsock_evq%s", "");
		}
	}
	ep->ds = ds;
	return 0;
}

static int
dps_connect(struct perf_ep *ep, char *why, size_t whylen)
{
	struct perf_pair *pp = ep->pp;
	int rc = dpsock_connect(
		ep->ds, (const struct sockaddr *)&pp->addr[other(ep)], pp->addr_len[other(ep)]);

	return rc < 0 ? why_err(why, whylen, -rc, "dpsock_connect%s", "") : 0;
}

static int
dps_send(struct perf_ep *ep, uint64_t seq, size_t len, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ssize_t r;

		perf_msg_stamp(ep->tx, len, seq + i);
		r = dpsock_send(ep->ds, ep->tx, len, 0);
		if (r == -EAGAIN) {
			ep->again++;
			return i ? (int)i : -EAGAIN;
		}
		if (r < 0)
			return i ? (int)i : (int)r;
	}
	return (int)n;
}

static int
dps_recv(struct perf_ep *ep, struct perf_rx *rx, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < max; i++) {
		int fl = i != 0 || ep->evq != NULL ? MSG_DONTWAIT : 0;
		ssize_t r = dpsock_recv(ep->ds, ep->rxbuf, ep->rxcap, fl);
		struct dpsock_event ev;

		if (r == -EAGAIN && i == 0 && ep->evq != NULL &&
			dpsock_evq_wait(ep->evq, &ev, 1, PERF_RCV_TIMEOUT_MS) > 0)
			r = dpsock_recv(ep->ds, ep->rxbuf, ep->rxcap, MSG_DONTWAIT);
		if (r < 0)
			return i ? (int)i : (int)r;
		perf_rx_check(rx, ep->rxbuf, (size_t)r);
	}
	return (int)max;
}

static void
dps_close(struct perf_ep *ep)
{
	if (ep->evq != NULL)
		dpsock_evq_destroy(ep->evq);
	ep->evq = NULL;
	if (ep->ds != NULL)
		dpsock_close(ep->ds);
	ep->ds = NULL;
}

/* Zero-copy: which buffers hold the pattern of which length (open addressing). */
struct zc_slot {
	uintptr_t key;
	size_t len;
};

static size_t *
zc_filled_len(struct perf_ep *ep, const void *buf)
{
	struct zc_slot *t = ep->zc_filled;
	uintptr_t k = (uintptr_t)buf;
	uint32_t h, i;

	if (t == NULL) {
		t = ep->zc_filled = calloc(ZC_TABLE, sizeof(*t));
		if (t == NULL)
			return NULL;
	}
	h = (uint32_t)((k >> 6) * 2654435761u);
	for (i = 0; i < ZC_TABLE; i++) {
		struct zc_slot *s = &t[(h + i) & (ZC_TABLE - 1)];

		if (s->key == k)
			return &s->len;
		if (s->key == 0) {
			s->key = k;
			s->len = 0;
			return &s->len;
		}
	}
	memset(t, 0, ZC_TABLE * sizeof(*t)); /* full: forget everything */
	t[h & (ZC_TABLE - 1)].key = k;
	return &t[h & (ZC_TABLE - 1)].len;
}

static int
zc_send(struct perf_ep *ep, uint64_t seq, size_t len, unsigned int n)
{
	struct dpsock_msg *m[PERF_MAX_BATCH];
	int k, i;

	if (n > PERF_MAX_BATCH)
		n = PERF_MAX_BATCH;
	k = dpsock_msg_alloc(ep->ds, NULL, 0, len, m, n);
	if (k == -EAGAIN)
		ep->again++;
	if (k <= 0)
		return k < 0 ? k : -EAGAIN;
	for (i = 0; i < k; i++) {
		uint8_t *d = dpsock_msg_data(m[i]);
		size_t *filled = zc_filled_len(ep, d);

		/* built for this length before: only the sequence words change (the
		 * trailer sits at the end, so another length rebuilds the pattern) */
		if (filled == NULL || *filled != len) {
			perf_pattern_fill(d, len);
			if (filled != NULL)
				*filled = len;
		}
		perf_msg_stamp(d, len, seq + (uint64_t)i);
		m[i]->len = (uint32_t)len;
	}
	return dpsock_send_burst(ep->ds, m, (unsigned int)k);
}

static int
zc_recv(struct perf_ep *ep, struct perf_rx *rx, unsigned int max)
{
	struct dpsock_msg *m[PERF_MAX_BATCH];
	int k, i;

	if (max > PERF_MAX_BATCH)
		max = PERF_MAX_BATCH;
	k = dpsock_recv_burst(ep->ds, m, max, 0);
	if (k <= 0)
		return k < 0 ? k : -EAGAIN;
	for (i = 0; i < k; i++)
		perf_rx_check(rx, dpsock_msg_data(m[i]), m[i]->len);
	dpsock_msg_free(ep->ds, m, (unsigned int)k);
	return k;
}

/* ---- Linux sockets ---- */

static void
sock_buffers(int fd, int bytes)
{
	/* FORCE (root) goes past net.core.[rw]mem_max; else what the limit allows */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

static void
sock_timeout(int fd)
{
	struct timeval tv = { 0, PERF_RCV_TIMEOUT_MS * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int
sock_send(struct perf_ep *ep, uint64_t seq, size_t len, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ssize_t r;

		perf_msg_stamp(ep->tx, len, seq + i);
		r = send(ep->fd, ep->tx, len, ep->block ? 0 : MSG_DONTWAIT);
		if (r < 0) {
			int e = errno;

			if (e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS || e == EINTR) {
				ep->again++;
				return i ? (int)i : -EAGAIN;
			}
			return i ? (int)i : -e;
		}
	}
	return (int)n;
}

static int
sock_recv(struct perf_ep *ep, struct perf_rx *rx, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < max; i++) {
		int fl = MSG_TRUNC | ((ep->block && i == 0) ? 0 : MSG_DONTWAIT);
		ssize_t r = recv(ep->fd, ep->rxbuf, ep->rxcap, fl);

		if (r < 0) {
			int e = errno;

			if (i)
				return (int)i;
			return (e == EWOULDBLOCK || e == EINTR) ? -EAGAIN : -e;
		}
		perf_rx_check(rx, ep->rxbuf, (size_t)r);
	}
	return (int)max;
}

static void
sock_close(struct perf_ep *ep)
{
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
}

static size_t
udp_max(const struct perf_opts *o)
{
	(void)o;
	return PERF_UDP_MAX;
}

static int
udp_open(struct perf_ep *ep, char *why, size_t whylen)
{
	struct perf_pair *pp = ep->pp;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(pp->addr[ep->side]);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return why_err(why, whylen, errno, "socket(AF_INET, SOCK_DGRAM)%s", "");
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sock_buffers(fd, pp->o->sndbuf);
	sock_timeout(fd);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
		getsockname(fd, (struct sockaddr *)&pp->addr[ep->side], &len) < 0) {
		int e = errno;

		close(fd);
		return why_err(why, whylen, e, "bind(127.0.0.1:0)%s", "");
	}
	pp->addr_len[ep->side] = len;
	ep->fd = fd;
	return 0;
}

static int
udp_connect(struct perf_ep *ep, char *why, size_t whylen)
{
	struct perf_pair *pp = ep->pp;

	if (connect(ep->fd, (struct sockaddr *)&pp->addr[other(ep)], pp->addr_len[other(ep)]) < 0)
		return why_err(why, whylen, errno, "connect%s", "");
	return 0;
}

static size_t
unix_max(const struct perf_opts *o)
{
	(void)o;
	return PERF_MAX_SIZE; /* what SO_SNDBUF allows: pair_init tries */
}

static void
unix_pair_fini(struct perf_pair *pp)
{
	if (pp->fds[0] >= 0)
		close(pp->fds[0]);
	if (pp->fds[1] >= 0)
		close(pp->fds[1]);
	pp->fds[0] = pp->fds[1] = -1;
}

static int
unix_pair_init(struct perf_pair *pp, char *why, size_t whylen)
{
	uint8_t *b;
	ssize_t r;
	int rc = 0;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pp->fds) < 0)
		return why_err(why, whylen, errno, "socketpair(AF_UNIX, SOCK_DGRAM)%s", "");
	sock_buffers(pp->fds[0], pp->o->sndbuf);
	sock_buffers(pp->fds[1], pp->o->sndbuf);
	sock_timeout(pp->fds[0]);
	sock_timeout(pp->fds[1]);
	/* does it take one message of this size at all? */
	b = calloc(1, pp->size);
	if (b == NULL) {
		rc = why_err(why, whylen, ENOMEM, "probe%s", "");
		goto close_pair;
	}
	r = send(pp->fds[0], b, pp->size, MSG_DONTWAIT);
	if (r < 0) {
		int e = errno, sz = 0;
		socklen_t sl = sizeof(sz);

		getsockopt(pp->fds[0], SOL_SOCKET, SO_SNDBUF, &sz, &sl);
		snprintf(why, whylen,
			"AF_UNIX SOCK_DGRAM refuses %zu-byte datagrams (SO_SNDBUF %d): %s",
			pp->size, sz, strerror(e));
		rc = -EMSGSIZE;
	} else {
		r = recv(pp->fds[1], b, pp->size, MSG_DONTWAIT);
		/* a probe left queued would be taken for the test's first message */
		if (r != (ssize_t)pp->size)
			rc = why_err(
				why, whylen, r < 0 ? errno : EIO, "reading the probe back%s", "");
	}
	free(b);
close_pair:
	if (rc < 0)
		unix_pair_fini(pp);
	return rc;
}

static int
unix_open(struct perf_ep *ep, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	ep->fd = ep->pp->fds[ep->side];
	close(ep->pp->fds[other(ep)]);
	return 0;
}

static int
no_connect(struct perf_ep *ep, char *why, size_t whylen)
{
	(void)ep;
	(void)why;
	(void)whylen;
	return 0;
}

/* ---- shm-spin ----
 *
 *   mapping: ring 0 (A -> B) | ring 1 (B -> A), each nslots x stride
 *   slot:    stamp (u64) | len (u64) | data ...     (an 8-byte message: one cache line)
 *
 * The producer waits for stamp 0, copies the data in, then stores stamp = index + 1
 * (release); the consumer waits for its index's stamp (acquire), copies the data
 * out, then stores 0.
 */
struct shm_slot {
	uint64_t stamp;
	uint64_t len;
	uint8_t data[];
};

static size_t
shm_stride(size_t size)
{
	return (16 + size + 63) & ~(size_t)63;
}

static uint64_t
shm_nslots(size_t size)
{
	uint64_t n = (8u << 20) / shm_stride(size);

	return n < 4 ? 4 : n > 256 ? 256 : n;
}

static size_t
shm_max(const struct perf_opts *o)
{
	(void)o;
	return PERF_MAX_SIZE;
}

static int
shm_pair_init(struct perf_pair *pp, char *why, size_t whylen)
{
	pp->shm_len = 2 * shm_nslots(pp->size) * shm_stride(pp->size);
	pp->shm =
		mmap(NULL, pp->shm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pp->shm == MAP_FAILED) {
		pp->shm = NULL;
		return why_err(why, whylen, errno, "mmap(MAP_SHARED)%s", "");
	}
	return 0;
}

static void
shm_pair_fini(struct perf_pair *pp)
{
	if (pp->shm != NULL)
		munmap(pp->shm, pp->shm_len);
	pp->shm = NULL;
}

static struct shm_slot *
shm_slot(const struct perf_pair *pp, int ring, uint64_t idx)
{
	uint64_t n = shm_nslots(pp->size);
	size_t stride = shm_stride(pp->size);

	return (struct shm_slot *)((uint8_t *)pp->shm + ((size_t)ring * n + idx % n) * stride);
}

static int
shm_open_ep(struct perf_ep *ep, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	ep->shm_tx = ep->shm_rx = 0;
	return 0;
}

static int
shm_send(struct perf_ep *ep, uint64_t seq, size_t len, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct shm_slot *s = shm_slot(ep->pp, ep->side, ep->shm_tx);

		if (__atomic_load_n(&s->stamp, __ATOMIC_ACQUIRE) != 0) {
			ep->again++;
			return i ? (int)i : -EAGAIN;
		}
		perf_msg_stamp(ep->tx, len, seq + i);
		memcpy(s->data, ep->tx, len);
		s->len = len;
		__atomic_store_n(&s->stamp, ++ep->shm_tx, __ATOMIC_RELEASE);
	}
	return (int)n;
}

static int
shm_recv(struct perf_ep *ep, struct perf_rx *rx, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < max; i++) {
		struct shm_slot *s = shm_slot(ep->pp, other(ep), ep->shm_rx);
		size_t len;

		if (__atomic_load_n(&s->stamp, __ATOMIC_ACQUIRE) != ep->shm_rx + 1)
			return i ? (int)i : -EAGAIN;
		len = s->len < ep->rxcap ? s->len : ep->rxcap;
		memcpy(ep->rxbuf, s->data, len);
		__atomic_store_n(&s->stamp, 0, __ATOMIC_RELEASE);
		ep->shm_rx++;
		perf_rx_check(rx, ep->rxbuf, len);
	}
	return (int)max;
}

static void
shm_close(struct perf_ep *ep)
{
	(void)ep;
}

/* ---- the table ---- */

static const struct perf_transport dpsock_local = {
	.name = "dpsock-local",
	.what = "two libdpsock endpoints on this host (ring pair), dpsock_send/recv",
	.dpsock = true,
	.default_mode = PERF_MODE_SPIN,
	.max_size = dpsock_max,
	.open = dps_open,
	.connect = dps_connect,
	.send = dps_send,
	.recv = dps_recv,
	.close = dps_close,
};

static const struct perf_transport dpsock_zc = {
	.name = "dpsock-zc",
	.what = "the same, zero-copy: dpsock_msg_alloc/send_burst/recv_burst/msg_free",
	.dpsock = true,
	.default_mode = PERF_MODE_SPIN,
	.max_size = dpsock_max,
	.open = dps_open,
	.connect = dps_connect,
	.send = zc_send,
	.recv = zc_recv,
	.close = dps_close,
};

static const struct perf_transport udp_loopback = {
	.name = "udp-loopback",
	.what = "Linux UDP sockets on 127.0.0.1",
	.lossy = true,
	.default_mode = PERF_MODE_BLOCK,
	.max_size = udp_max,
	.open = udp_open,
	.connect = udp_connect,
	.send = sock_send,
	.recv = sock_recv,
	.close = sock_close,
};

static const struct perf_transport unix_dgram = {
	.name = "unix-dgram",
	.what = "Linux AF_UNIX SOCK_DGRAM socketpair",
	.default_mode = PERF_MODE_BLOCK,
	.max_size = unix_max,
	.pair_init = unix_pair_init,
	.pair_fini = unix_pair_fini,
	.open = unix_open,
	.connect = no_connect,
	.send = sock_send,
	.recv = sock_recv,
	.close = sock_close,
};

static const struct perf_transport shm_spin = {
	.name = "shm-spin",
	.what = "raw shared-memory ring, a spin flag per slot (the floor)",
	.spin_only = true,
	.default_mode = PERF_MODE_SPIN,
	.max_size = shm_max,
	.pair_init = shm_pair_init,
	.pair_fini = shm_pair_fini,
	.open = shm_open_ep,
	.connect = no_connect,
	.send = shm_send,
	.recv = shm_recv,
	.close = shm_close,
};

const struct perf_transport *const perf_transports[] = {
	&dpsock_local,
	&dpsock_zc,
	&udp_loopback,
	&unix_dgram,
	&shm_spin,
	NULL,
};

const struct perf_transport *
perf_transport_find(const char *name)
{
	unsigned int i;

	for (i = 0; perf_transports[i] != NULL; i++)
		if (strcmp(perf_transports[i]->name, name) == 0)
			return perf_transports[i];
	return NULL;
}
