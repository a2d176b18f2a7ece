/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The endpoint server: one thread (a plain pthread, not an EAL lcore) that
 * accepts applications on the [endpoint] Unix socket and speaks
 * dpsock_proto.h with each of them. It makes the shared regions (memfd),
 * brokers channels between endpoints of this host, and takes everything back
 * when an application goes away. The workers' half (endpoint_dp.c) is reached
 * through ep_dp_*().
 *
 *   listening socket --accept--> ep_conn (one per application endpoint)
 *   ep_conn:  HELLO -> BIND (region + port) -> RESOLVE, CHANNELS ... ; EOF -> reclaim
 *   ep_chan:  a region shared by two ep_conn; taken back when either goes
 *   zombies:  reclaimed endpoints whose region mbufs still point into
 *             (ep_dp_detach() said false): retried every EP_RETRY_MS
 *   pids:     the processes that use an endpoint (the one that connected, and
 *             each one forked from it that sent a message: SCM_CREDENTIALS),
 *             watched with a pidfd; one that dies holding the endpoint's turn
 *             (struct dpsock_region) leaves buffers in the region's
 *             struct dpsock_held, which go back to their free rings
 *
 * Everything an application sends is hostile until checked: messages are
 * fixed-size, descriptors are counted and typed, regions are sealed so that
 * the application cannot shrink them under dpfwd (SIGBUS), and dpfwd reads
 * region geometry only from its own copy.
 *
 * Locking: the server thread owns every list; it holds srv.lock while it
 * changes them, and telemetry (another thread) holds it while it reads.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_tailq.h>

#include "dp_common.h"
#include "dp_endpoint.h"
#include "dp_port.h"
#include "dp_telemetry.h"
#include "dpsock_proto.h"
#include "endpoint_priv.h"

RTE_LOG_REGISTER(dp_logtype_endpoint, dpfwd.endpoint, INFO);

/* Connections that have not bound yet, beyond [endpoint] max, before accept refuses. */
#define EP_CONN_SLACK 64
/* Messages read from one connection per poll round: one busy application cannot starve others. */
#define EP_MSGS_PER_ROUND 8
/* How often reclaimed endpoints whose mbufs were still out are looked at again. */
#define EP_RETRY_MS 100
/* How long dp_endpoint_stop() waits for those before leaving them to dp_endpoint_fini(). */
#define EP_STOP_WAIT_MS 1000
/* Channels one endpoint may have: each holds a region of some MiB. */
#define EP_CHANS_PER_ENDPOINT 1024
/* CHANNEL messages one CHANNELS request is answered with at most: the application reads
 * them before it asks for the next ones. */
#define EP_CHANNELS_BATCH 32
/*
 * Send buffer of a control connection (the kernel doubles it). A SOCK_SEQPACKET Unix
 * socket holds what its sender's buffer takes, each message charged its whole skb,
 * several times its own bytes: the kernel's default (net.core.wmem_default) holds a few
 * hundred, fewer than the CHANNEL messages dpfwd sends unasked to an endpoint with that
 * many peers that does not read them yet (a server that binds, then forks). This holds
 * a CHANNEL and a CHANNEL_GONE for each channel an endpoint may have, and the replies.
 * Memory is charged only for what waits.
 */
#define EP_CTL_SNDBUF (2 * EP_CHANS_PER_ENDPOINT * 1024)
/* Processes of one endpoint watched at once (a pre-forking server's children alive). */
#define EP_PIDS_PER_CONN 64

/* A process using an endpoint, watched for its end. */
struct ep_pid {
	pid_t pid;
	int fd; /**< pidfd: readable once the process is gone */
};

struct ep_conn {
	TAILQ_ENTRY(ep_conn) next;
	int fd;      /**< the control connection; -1 once closed (zombie) */
	uint32_t id; /**< for logs and telemetry */
	pid_t pid;   /**< SO_PEERCRED at accept */
	uid_t uid;
	int family; /**< AF_INET / AF_INET6 after HELLO; 0 before */
	/* bound: dp != NULL */
	struct ep_dp *dp;
	bool ip6;
	uint8_t addr[16]; /**< network order; zero: the wildcard */
	uint16_t port;    /**< host order */
	int efd;          /**< the application's eventfd; -1 before BIND */
	void *region;
	size_t size;
	struct dpsock_pipe
		geo[DPSOCK_REGION_PIPES]; /**< our copy: the application can write the region's */
	unsigned int nb_chans;
	/* a reply the control socket had no room for: sent on POLLOUT, the connection's
	 * requests read after it (reply_fds: our copies of its descriptors) */
	bool reply_pending;
	unsigned int reply_nfds;
	int reply_fds[DPSOCK_CTL_MAX_FDS];
	struct dpsock_ctl reply;
	/* bound: where the region's held buffers are (our copy, from when we made it) */
	uint64_t held_off[DPSOCK_REGION_PIPES];
	unsigned int nb_pids;
	struct ep_pid pids[EP_PIDS_PER_CONN];
};

struct ep_chan {
	TAILQ_ENTRY(ep_chan) next;
	uint32_t id;
	struct ep_conn *side[2]; /**< 0: the asker (sends on pipe 0), 1: the peer */
	int memfd;           /**< kept to hand the channel out again (RESOLVE of a known pair) */
	uint8_t seen[2][16]; /**< the address each side is seen at by the other */
	void *region;
	size_t size;
};

TAILQ_HEAD(ep_conn_list, ep_conn);
TAILQ_HEAD(ep_chan_list, ep_chan);

struct ep_stats {
	uint64_t binds;
	uint64_t resolves_local;
	uint64_t resolves_remote;
	uint64_t reclaims;
	uint64_t refused;          /**< connections turned away: too many */
	uint64_t malformed;        /**< connections closed for a bad message */
	uint64_t turns_taken_back; /**< processes that died holding an endpoint's turn */
	uint64_t held_returned;    /**< the buffers they kept, given back */
};

static struct {
	bool dp_ready; /**< ep_dp_init() done */
	bool enabled;
	struct dp_endpoint_config cfg;
	uint64_t tsc_hz;
	int lfd;      /**< listening socket */
	int stop_efd; /**< written by dp_endpoint_stop() to end the server loop */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	struct ep_conn_list conns;
	struct ep_conn_list zombies;
	struct ep_chan_list chans;
	unsigned int nb_conns;
	unsigned int nb_bound;
	unsigned int nb_chans;
	unsigned int conn_limit;
	uint32_t next_conn_id;
	uint32_t next_chan_id;
	bool refuse_logged;
	struct ep_stats stats;
} srv = {
	.lfd = -1,
	.stop_efd = -1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.conns = TAILQ_HEAD_INITIALIZER(srv.conns),
	.zombies = TAILQ_HEAD_INITIALIZER(srv.zombies),
	.chans = TAILQ_HEAD_INITIALIZER(srv.chans),
};

/* ---- small helpers ---- */

static double
mono_ms(void)
{
	return dp_time_mono() * 1000.0;
}

static bool
addr_is_wildcard(const uint8_t *addr, bool ip6)
{
	static const uint8_t zero[16];

	return memcmp(addr, zero, ip6 ? 16 : 4) == 0;
}

static void
addr_format(char *buf, size_t len, bool ip6, const uint8_t *addr, uint16_t port)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(ip6 ? AF_INET6 : AF_INET, addr, a, sizeof(a));
	snprintf(buf, len, ip6 ? "[%s]:%u" : "%s:%u", a, port);
}

/* The address of a message: its family must be the endpoint's. @return 0 or -EAFNOSUPPORT. */
static int
addr_from_ctl(const struct ep_conn *c, const struct dpsock_ctl *m, uint8_t addr[16], uint16_t *port)
{
	memset(addr, 0, 16);
	if (c->family == AF_INET && m->addr.in.sin_family == AF_INET) {
		memcpy(addr, &m->addr.in.sin_addr, 4);
		*port = ntohs(m->addr.in.sin_port);
		return 0;
	}
	if (c->family == AF_INET6 && m->addr.in6.sin6_family == AF_INET6) {
		memcpy(addr, &m->addr.in6.sin6_addr, 16);
		*port = ntohs(m->addr.in6.sin6_port);
		return 0;
	}
	return -EAFNOSUPPORT;
}

static void
addr_to_ctl(struct dpsock_ctl *m, bool ip6, const uint8_t *addr, uint16_t port)
{
	memset(&m->addr, 0, sizeof(m->addr));
	if (ip6) {
		m->addr.in6.sin6_family = AF_INET6;
		memcpy(&m->addr.in6.sin6_addr, addr, 16);
		m->addr.in6.sin6_port = htons(port);
	} else {
		m->addr.in.sin_family = AF_INET;
		memcpy(&m->addr.in.sin_addr, addr, 4);
		m->addr.in.sin_port = htons(port);
	}
}

static void
fds_close(int *fds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

/* Tell the application that reads this region that a message waits on its socket. */
static void
region_ctl_bump(void *region)
{
	struct dpsock_region *r = region;

	__atomic_add_fetch(&r->ctl_seq, 1, __ATOMIC_RELEASE);
}

static void
region_kill(void *region)
{
	struct dpsock_region *r = region;

	__atomic_store_n(&r->alive, 0, __ATOMIC_RELEASE);
}

/*
 * A sealed memfd holding a region with pipes @p specs, mapped here. The seals
 * keep its size fixed: an application that could shrink it would make dpfwd
 * fault (SIGBUS) on the pages it cut off.
 * @return 0, -ENOMEM, -EMFILE, -EINVAL (counts too large).
 */
static int
region_make(const char *name, const struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES], int *fdp,
	void **regionp, size_t *sizep)
{
	size_t size = dpsock_region_init(NULL, specs, srv.tsc_hz);
	void *region;
	int fd, rc;

	if (size == 0)
		return -EINVAL;
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0) {
		rc = -errno;
		goto close_fd;
	}
	region = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (region == MAP_FAILED) {
		rc = -errno;
		goto close_fd;
	}
	if (dpsock_region_init(region, specs, srv.tsc_hz) != size) {
		rc = -EINVAL;
		goto unmap;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		rc = -errno;
		goto unmap;
	}
	*fdp = fd;
	*regionp = region;
	*sizep = size;
	return 0;
unmap:
	munmap(region, size);
close_fd:
	close(fd);
	return rc == -ENOSPC ? -ENOMEM : rc;
}

/*
 * Workers and peers write this descriptor from their fast path: it must be an
 * eventfd, and non-blocking, or a hostile application could hand over a pipe
 * that blocks a worker. The flag is the file's, so the application's copy
 * becomes non-blocking too (libdpsock makes it so anyway).
 */
static int
efd_check(int fd)
{
	char link[64], target[64];
	ssize_t n;
	int fl;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -EINVAL;
	target[n] = '\0';
	if (strcmp(target, "anon_inode:[eventfd]") != 0)
		return -EINVAL;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -EINVAL;
	return 0;
}

/* ---- sending on a connection ---- */

/* One message with @p nfds descriptors; never blocks. @return 0 or -errno (-EAGAIN: its queue is
 * full). */
static int
conn_send(const struct ep_conn *c, const struct dpsock_ctl *m, const int *fds, unsigned int nfds)
{
	ssize_t n = dpsock_ctl_sendmsg(c->fd, m, fds, nfds, MSG_DONTWAIT);

	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n == (ssize_t)sizeof(*m) ? 0 : -EIO;
}

/*
 * The reply to a request, with @p nfds descriptors: sent now, or kept (with copies of
 * the descriptors) when the control socket is full, and sent once the application has
 * read enough of it (server_main() polls for POLLOUT and reads no request of @p c
 * meanwhile). The application waits for it reading what came before. @return 0 or
 * -EPIPE (the connection must go).
 */
static int
conn_reply_msg(struct ep_conn *c, const struct dpsock_ctl *m, const int *fds, unsigned int nfds)
{
	int rc = conn_send(c, m, fds, nfds);
	unsigned int i;

	if (rc != -EAGAIN)
		return rc < 0 ? -EPIPE : 0;
	c->reply = *m;
	c->reply_nfds = 0;
	for (i = 0; i < nfds; i++) {
		int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 0);

		if (fd < 0) {
			fds_close(c->reply_fds, c->reply_nfds);
			c->reply_nfds = 0;
			return -EPIPE;
		}
		c->reply_fds[c->reply_nfds++] = fd;
	}
	c->reply_pending = true;
	return 0;
}

/* The kept reply, when the socket has room (POLLOUT, or the end). @return 0 or -EPIPE. */
static int
conn_reply_flush(struct ep_conn *c)
{
	int rc = conn_send(c, &c->reply, c->reply_fds, c->reply_nfds);

	if (rc == -EAGAIN)
		return 0;
	fds_close(c->reply_fds, c->reply_nfds);
	c->reply_nfds = 0;
	c->reply_pending = false;
	return rc < 0 ? -EPIPE : 0;
}

static int
conn_reply(struct ep_conn *c, enum dpsock_op op, int rc)
{
	struct dpsock_ctl m;

	dpsock_ctl_init(&m, op);
	m.rc = rc;
	return conn_reply_msg(c, &m, NULL, 0);
}

/* ---- channels ---- */

static struct ep_chan *
chan_find(const struct ep_conn *a, const struct ep_conn *b)
{
	struct ep_chan *ch;

	TAILQ_FOREACH(ch, &srv.chans, next)
	if ((ch->side[0] == a && ch->side[1] == b) || (ch->side[0] == b && ch->side[1] == a))
		return ch;
	return NULL;
}

/*
 * Take a channel back because @p leaving goes (NULL: dpfwd stops). The region
 * is marked dead first, so that the other side stops using it even if
 * CHANNEL_GONE cannot reach it (a full control socket).
 */
static void
chan_destroy(struct ep_chan *ch, const struct ep_conn *leaving)
{
	unsigned int s;

	region_kill(ch->region);
	for (s = 0; s < 2; s++) {
		struct ep_conn *other = ch->side[s];
		struct dpsock_ctl m;

		other->nb_chans--;
		if (leaving == NULL || other == leaving || other->fd < 0)
			continue;
		dpsock_ctl_init(&m, DPSOCK_OP_CHANNEL_GONE);
		m.chan = ch->id;
		if (conn_send(other, &m, NULL, 0) < 0)
			DP_LOG(DEBUG, endpoint,
				"endpoint %u: CHANNEL_GONE %u not sent (its region says so)",
				other->id, ch->id);
		region_ctl_bump(other->region);
	}
	TAILQ_REMOVE(&srv.chans, ch, next);
	srv.nb_chans--;
	munmap(ch->region, ch->size);
	close(ch->memfd);
	free(ch);
}

/* ---- endpoints ---- */

/* The bound endpoint that a datagram to @p addr:@p port reaches, or NULL. */
static struct ep_conn *
target_find(bool ip6, const uint8_t *addr, uint16_t port)
{
	bool local_known = false, local = false;
	struct ep_conn *t;

	TAILQ_FOREACH(t, &srv.conns, next)
	{
		if (t->dp == NULL || t->ip6 != ip6 || t->port != port)
			continue;
		if (memcmp(t->addr, addr, ip6 ? 16 : 4) == 0 || addr_is_wildcard(addr, ip6))
			return t;
		if (!addr_is_wildcard(t->addr, ip6))
			continue;
		/* a wildcard endpoint: any of dpfwd's addresses reaches it */
		if (!local_known) {
			local = ep_dp_addr_is_local(ip6, addr);
			local_known = true;
		}
		if (local)
			return t;
	}
	return NULL;
}

/* Whatever the endpoint has; the connection itself is already closed or closing. */
static void
conn_unbind(struct ep_conn *c, bool stopping)
{
	struct ep_chan *ch, *tmp;

	RTE_TAILQ_FOREACH_SAFE(ch, &srv.chans, next, tmp)
	if (ch->side[0] == c || ch->side[1] == c)
		chan_destroy(ch, stopping ? NULL : c);
	if (c->dp == NULL)
		return;
	region_kill(c->region);
	srv.nb_bound--;
	srv.stats.reclaims++;
	if (!ep_dp_detach(c->dp)) {
		/* mbufs still point into the region: it stays mapped until they are back */
		TAILQ_INSERT_TAIL(&srv.zombies, c, next);
		return;
	}
	c->dp = NULL;
}

static void
conn_free(struct ep_conn *c)
{
	fds_close(c->reply_fds, c->reply_nfds);
	if (c->region != NULL)
		munmap(c->region, c->size);
	if (c->efd >= 0)
		close(c->efd);
	free(c);
}

/* ---- the processes of an endpoint ---- */

/* Watch @p pid (a process that sent on @p c's connection) for its end, unless we do. */
static void
conn_pid_watch(struct ep_conn *c, pid_t pid)
{
	unsigned int i;
	int fd;

	if (pid <= 0)
		return;
	for (i = 0; i < c->nb_pids; i++)
		if (c->pids[i].pid == pid)
			return;
	if (c->nb_pids == EP_PIDS_PER_CONN) {
		DP_LOG(DEBUG, endpoint,
			"endpoint %u: %u processes watched already; pid %d is not (what it "
			"keeps stays with the endpoint if it dies)",
			c->id, c->nb_pids, (int)pid);
		return;
	}
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0) {
		DP_LOG(DEBUG, endpoint, "endpoint %u: pidfd_open(%d): %s", c->id, (int)pid,
			strerror(errno));
		return;
	}
	c->pids[c->nb_pids].pid = pid;
	c->pids[c->nb_pids].fd = fd;
	c->nb_pids++;
}

static void
conn_pids_close(struct ep_conn *c)
{
	while (c->nb_pids > 0)
		close(c->pids[--c->nb_pids].fd);
}

/* A batch of buffers for held_return(), released to their pipe as it fills. */
struct held_batch {
	uint64_t off[DPSOCK_HELD_REL];
	unsigned int nb, total;
};

static void
held_batch_put(struct ep_conn *c, const struct dpsock_pipe *geo, struct held_batch *b, uint64_t off)
{
	b->off[b->nb++] = off;
	if (b->nb == RTE_DIM(b->off)) {
		dpsock_pipe_release(c->region, geo, b->off, b->nb);
		b->total += b->nb;
		b->nb = 0;
	}
}

/*
 * Give back the buffers the application kept in its region's struct dpsock_held of
 * pipe @p pipe (the application wrote them: each offset is checked against our
 * geometry, counts are clamped). The caller holds the region's turn. @return how many.
 */
static unsigned int
held_return(struct ep_conn *c, unsigned int pipe)
{
	const struct dpsock_pipe *geo = &c->geo[pipe];
	struct dpsock_held *h = RTE_PTR_ADD(c->region, c->held_off[pipe]);
	struct held_batch b = { .nb = 0, .total = 0 };
	uint32_t at = 0, slot, n, i;
	unsigned int k;

	for (k = 0; k < DPSOCK_NB_CLASSES; k++) {
		n = RTE_MIN(h->nb_stash[k], geo->cls[k].count);
		for (i = 0; i < n; i++) {
			/* read once: the application may write it meanwhile */
			const uint64_t off = __atomic_load_n(&h->stash[at + i], __ATOMIC_RELAXED);

			if (dpsock_pipe_buf_check(geo, off, &slot) == (int)k)
				held_batch_put(c, geo, &b, off);
		}
		h->nb_stash[k] = 0;
		at += geo->cls[k].count;
	}
	n = RTE_MIN(h->nb_rel, (uint32_t)DPSOCK_HELD_REL);
	for (i = 0; i < n; i++) {
		const uint64_t off = __atomic_load_n(&h->rel[i], __ATOMIC_RELAXED);

		if (dpsock_pipe_buf_check(geo, off, &slot) >= 0)
			held_batch_put(c, geo, &b, off);
	}
	h->nb_rel = 0;
	dpsock_pipe_release(c->region, geo, b.off, b.nb);
	return b.total + b.nb;
}

/*
 * Process @p pid of @p c's endpoint is gone. If it held the endpoint's turn, nobody
 * else is inside a call on it: take the turn (a process that takes it first goes on
 * with what the dead one kept instead), give back what the dead one kept, and leave
 * the turn to whoever comes next.
 */
static void
conn_pid_gone(struct ep_conn *c, pid_t pid)
{
	struct dpsock_region *r = c->region;
	uint32_t want = (uint32_t)pid;
	unsigned int i, n;

	for (i = 0; i < c->nb_pids; i++)
		if (c->pids[i].pid == pid) {
			close(c->pids[i].fd);
			c->pids[i] = c->pids[--c->nb_pids];
			break;
		}
	if (c->dp == NULL || !__atomic_compare_exchange_n(&r->turn, &want, DPSOCK_TURN_DPFWD, false,
				     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	n = 0;
	for (i = 0; i < DPSOCK_REGION_PIPES; i++)
		n += held_return(c, i);
	__atomic_store_n(&r->turn, 0, __ATOMIC_RELEASE);
	srv.stats.turns_taken_back++;
	srv.stats.held_returned += n;
	DP_LOG(DEBUG, endpoint, "endpoint %u: pid %d died with its turn; %u buffers it kept back",
		c->id, (int)pid, n);
}

/* Close a connection and take back everything of its endpoint. */
static void
conn_close(struct ep_conn *c, bool stopping)
{
	pthread_mutex_lock(&srv.lock);
	TAILQ_REMOVE(&srv.conns, c, next);
	srv.nb_conns--;
	srv.refuse_logged = false;
	close(c->fd);
	c->fd = -1;
	conn_pids_close(c);
	conn_unbind(c, stopping);
	pthread_mutex_unlock(&srv.lock);
	if (c->dp != NULL)
		DP_LOG(DEBUG, endpoint,
			"endpoint %u (pid %d): mbufs still in its region, freed later", c->id,
			(int)c->pid);
	else
		conn_free(c);
}

/* A message we cannot make sense of: the connection goes (logged once, here). */
static int
conn_malformed(struct ep_conn *c, const char *why)
{
	DP_LOG(WARNING, endpoint, "endpoint %u (pid %d uid %u): %s; closing its connection", c->id,
		(int)c->pid, (unsigned int)c->uid, why);
	srv.stats.malformed++;
	return -EBADMSG;
}

static int
op_hello(struct ep_conn *c, const struct dpsock_ctl *m)
{
	int rc;

	if (m->version != DPSOCK_PROTO_VERSION) {
		conn_reply(c, DPSOCK_OP_HELLO, -EPROTO);
		DP_LOG(WARNING, endpoint,
			"endpoint %u (pid %d): protocol version %u, dpfwd speaks %u: closing",
			c->id, (int)c->pid, m->version, DPSOCK_PROTO_VERSION);
		return -EPROTO;
	}
	if (m->family != AF_INET && m->family != AF_INET6) {
		conn_reply(c, DPSOCK_OP_HELLO, -EAFNOSUPPORT);
		return -EAFNOSUPPORT;
	}
	c->family = (int)m->family;
	rc = conn_reply(c, DPSOCK_OP_HELLO, 0);
	return rc < 0 ? -EPIPE : 0;
}

static void
endpoint_specs(struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES])
{
	memset(specs, 0, sizeof(*specs) * DPSOCK_REGION_PIPES);
	/* the application alone sends and takes free buffers; dpfwd threads give them back */
	specs[DPSOCK_EP_PIPE_TX].count[0] = srv.cfg.tx_bufs;
	specs[DPSOCK_EP_PIPE_TX].count[1] = srv.cfg.large_bufs;
	specs[DPSOCK_EP_PIPE_TX].data_flags = RING_F_SP_ENQ | RING_F_SC_DEQ;
	specs[DPSOCK_EP_PIPE_TX].free_flags = RING_F_SC_DEQ;
	/* workers (several) fill it; the application alone reads and gives buffers back */
	specs[DPSOCK_EP_PIPE_RX].count[0] = srv.cfg.rx_bufs;
	specs[DPSOCK_EP_PIPE_RX].count[1] = srv.cfg.large_bufs;
	specs[DPSOCK_EP_PIPE_RX].data_flags = RING_F_SC_DEQ;
	specs[DPSOCK_EP_PIPE_RX].free_flags = RING_F_SP_ENQ;
	/* what the application keeps between calls, where we can give it back */
	specs[DPSOCK_EP_PIPE_TX].held = true;
	specs[DPSOCK_EP_PIPE_RX].held = true;
}

/* BIND: make the endpoint's region and port. @p efd is ours from here on. */
static int
op_bind(struct ep_conn *c, const struct dpsock_ctl *m, int efd)
{
	struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES];
	struct ep_dp_bind b;
	struct ep_dp *dp = NULL;
	struct dpsock_ctl r;
	char name[INET6_ADDRSTRLEN + 16];
	void *region = NULL;
	size_t size = 0;
	int memfd = -1, rc;
	unsigned int i;

	memset(&b, 0, sizeof(b));
	b.ip6 = c->family == AF_INET6;
	if (c->dp != NULL || addr_from_ctl(c, m, b.addr, &b.port) < 0)
		rc = -EINVAL;
	else if (!addr_is_wildcard(b.addr, b.ip6) && !ep_dp_addr_is_local(b.ip6, b.addr))
		rc = -EADDRNOTAVAIL;
	else if (srv.nb_bound >= srv.cfg.max)
		rc = -ENOSPC;
	else
		rc = efd_check(efd);
	if (rc == 0) {
		endpoint_specs(specs);
		rc = region_make("dpsock-endpoint", specs, &memfd, &region, &size);
		/* (0 comes with a mapping; clang's analyser takes a failed call's -errno
		 * for a possible 0 and then region for NULL) */
		if (rc == 0 && region == NULL)
			rc = -ENOMEM;
		if (rc < 0)
			DP_LOG(ERR, endpoint, "endpoint %u (pid %d): cannot make its region: %s",
				c->id, (int)c->pid, strerror(-rc));
	}
	if (rc == 0) {
		b.region = region;
		b.size = size;
		b.efd = efd;
		pthread_mutex_lock(&srv.lock);
		rc = ep_dp_attach(&b, &dp);
		if (rc == 0) {
			c->dp = dp;
			c->ip6 = b.ip6;
			memcpy(c->addr, b.addr, sizeof(c->addr));
			c->port = b.port;
			c->efd = efd;
			c->region = region;
			c->size = size;
			for (i = 0; i < DPSOCK_REGION_PIPES; i++) {
				c->geo[i] = *dpsock_region_pipe(region, i);
				c->held_off[i] = ((struct dpsock_region *)region)->held_off[i];
			}
			srv.nb_bound++;
			srv.stats.binds++;
		}
		pthread_mutex_unlock(&srv.lock);
	}
	if (rc < 0) {
		if (region != NULL)
			munmap(region, size);
		if (memfd >= 0)
			close(memfd);
		close(efd);
		return conn_reply(c, DPSOCK_OP_BIND, rc) < 0 ? -EPIPE : 0;
	}
	addr_format(name, sizeof(name), c->ip6, c->addr, c->port);
	DP_LOG(DEBUG, endpoint, "endpoint %u (pid %d uid %u) bound to %s, region %zu bytes", c->id,
		(int)c->pid, (unsigned int)c->uid, name, size);
	dpsock_ctl_init(&r, DPSOCK_OP_BIND);
	addr_to_ctl(&r, c->ip6, c->addr, c->port);
	r.size = size;
	rc = conn_reply_msg(c, &r, &memfd, 1);
	/* the application has its own descriptor now (or the kept reply a copy); our
	 * mapping stays */
	close(memfd);
	return rc;
}

static void
chan_specs(struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES])
{
	unsigned int i;

	memset(specs, 0, sizeof(*specs) * DPSOCK_REGION_PIPES);
	for (i = 0; i < DPSOCK_REGION_PIPES; i++) {
		specs[i].count[0] = srv.cfg.chan_bufs;
		specs[i].count[1] = srv.cfg.large_bufs;
		specs[i].count[2] = 8;
		/* one application thread at each end: sequence slots (dpsock_shm.h) */
		specs[i].data_kind = DPSOCK_DATA_SEQ;
		specs[i].free_flags = RING_F_SP_ENQ | RING_F_SC_DEQ;
	}
}

/*
 * A new channel between @p c (asker) and @p t. The peer hears of it first: an
 * asker must not get a channel whose other end does not know it.
 * @return the channel, or NULL with *rcp: -ENOMEM, -EMFILE, -ENOBUFS (the
 *         peer's control socket is full), -ECONNREFUSED (the peer is going).
 */
static struct ep_chan *
chan_create(struct ep_conn *c, struct ep_conn *t, const uint8_t *dest, int *rcp)
{
	struct dpsock_pipe_spec specs[DPSOCK_REGION_PIPES];
	struct dpsock_ctl m;
	struct ep_chan *ch;
	int fds[2], rc;

	if (c->nb_chans >= EP_CHANS_PER_ENDPOINT || t->nb_chans >= EP_CHANS_PER_ENDPOINT) {
		*rcp = -ENOBUFS;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		*rcp = -ENOMEM;
		return NULL;
	}
	chan_specs(specs);
	rc = region_make("dpsock-channel", specs, &ch->memfd, &ch->region, &ch->size);
	if (rc < 0) {
		DP_LOG(ERR, endpoint, "endpoint %u -> %u: cannot make a channel region: %s", c->id,
			t->id, strerror(-rc));
		goto free_chan;
	}
	ch->id = ++srv.next_chan_id;
	ch->side[0] = c;
	ch->side[1] = t;

	/* the asker as the peer sees it: its own address, or the one it reached dpfwd on */
	memcpy(ch->seen[0], addr_is_wildcard(c->addr, c->ip6) ? dest : c->addr, 16);
	memcpy(ch->seen[1], dest, 16);
	dpsock_ctl_init(&m, DPSOCK_OP_CHANNEL);
	m.chan = ch->id;
	m.side = 1;
	m.size = ch->size;
	addr_to_ctl(&m, c->ip6, ch->seen[0], c->port);
	fds[0] = ch->memfd;
	fds[1] = c->efd;
	rc = conn_send(t, &m, fds, 2);
	if (rc < 0) {
		rc = rc == -EAGAIN ? -ENOBUFS : -ECONNREFUSED;
		goto unmap;
	}
	region_ctl_bump(t->region);
	pthread_mutex_lock(&srv.lock);
	TAILQ_INSERT_TAIL(&srv.chans, ch, next);
	srv.nb_chans++;
	c->nb_chans++;
	t->nb_chans++;
	pthread_mutex_unlock(&srv.lock);
	return ch;
unmap:
	munmap(ch->region, ch->size);
	close(ch->memfd);
free_chan:
	free(ch);
	*rcp = rc;
	return NULL;
}

/* RESOLVE: is the destination an endpoint of this host? */
static int
op_resolve(struct ep_conn *c, const struct dpsock_ctl *m)
{
	struct ep_conn *t;
	struct ep_chan *ch;
	struct dpsock_ctl r;
	uint8_t dest[16];
	uint16_t port;
	int fds[2], rc;

	if (c->dp == NULL)
		return conn_reply(c, DPSOCK_OP_RESOLVE, -EINVAL) < 0 ? -EPIPE : 0;
	if (addr_from_ctl(c, m, dest, &port) < 0)
		return conn_reply(c, DPSOCK_OP_RESOLVE, -EAFNOSUPPORT) < 0 ? -EPIPE : 0;
	t = target_find(c->ip6, dest, port);
	/* to itself: the asker would be both sides of one channel; the workers loop it back */
	if (t == NULL || t == c) {
		srv.stats.resolves_remote++;
		return conn_reply(c, DPSOCK_OP_RESOLVE, DPSOCK_ROUTE_REMOTE) < 0 ? -EPIPE : 0;
	}
	ch = chan_find(c, t);
	if (ch == NULL) {
		ch = chan_create(c, t, dest, &rc);
		if (ch == NULL)
			return conn_reply(c, DPSOCK_OP_RESOLVE, rc) < 0 ? -EPIPE : 0;
	}
	srv.stats.resolves_local++;
	dpsock_ctl_init(&r, DPSOCK_OP_RESOLVE);
	r.rc = DPSOCK_ROUTE_LOCAL;
	r.chan = ch->id;
	r.side = ch->side[1] == c ? 1 : 0;
	r.size = ch->size;
	addr_to_ctl(&r, t->ip6, dest, port);
	fds[0] = ch->memfd;
	fds[1] = t->efd;
	/* a known pair: the same channel again (the asker knows it by its id) */
	return conn_reply_msg(c, &r, fds, 2);
}

/*
 * CHANNELS {chan = from}: the channels of @p c with an id above from again, as CHANNEL
 * messages with the side it has, at most EP_CHANNELS_BATCH of them and as many as the
 * control socket takes; then the reply {rc = how many, chan = the last one's id (from
 * when none), more = 1 when more are left: ask again from chan}; -EINVAL before BIND. A
 * process forked from the application's uses the endpoint after another process of it
 * read those messages (a pre-forking server's children). Channel ids grow along
 * srv.chans (chan_create() appends), so that an id is a place in the list that stays
 * one while channels come and go between two requests.
 */
static int
op_channels(struct ep_conn *c, const struct dpsock_ctl *req)
{
	struct dpsock_ctl m;
	struct ep_chan *ch;
	uint32_t last = req->chan;
	bool more = false;
	int fds[2], n = 0, rc;

	if (c->dp == NULL)
		return conn_reply(c, DPSOCK_OP_CHANNELS, -EINVAL) < 0 ? -EPIPE : 0;
	TAILQ_FOREACH(ch, &srv.chans, next)
	{
		const unsigned int side = ch->side[1] == c;
		const struct ep_conn *peer = ch->side[side ^ 1];

		if (ch->side[side] != c || peer == NULL || peer->efd < 0 || ch->id <= req->chan)
			continue;
		if (n == EP_CHANNELS_BATCH) {
			more = true;
			break;
		}
		dpsock_ctl_init(&m, DPSOCK_OP_CHANNEL);
		m.chan = ch->id;
		m.side = side;
		m.size = ch->size;
		addr_to_ctl(&m, peer->ip6, ch->seen[side ^ 1], peer->port);
		fds[0] = ch->memfd;
		fds[1] = peer->efd;
		rc = conn_send(c, &m, fds, 2);
		if (rc == -EAGAIN) {
			/* full: the application reads what came and asks again from here */
			more = true;
			break;
		}
		if (rc < 0)
			return -EPIPE;
		last = ch->id;
		n++;
	}
	dpsock_ctl_init(&m, DPSOCK_OP_CHANNELS);
	m.rc = n;
	m.chan = last;
	m.more = more;
	return conn_reply_msg(c, &m, NULL, 0);
}

/*
 * One message from @p c. @return 1 (one served), 0 (nothing more now), or
 * < 0 when the connection must go (EOF, error, malformed).
 */
static int
conn_serve_one(struct ep_conn *c)
{
	struct dpsock_ctl m;
	int fds[DPSOCK_CTL_MAX_FDS];
	unsigned int nfds = 0;
	int msg_flags;
	pid_t pid;
	ssize_t n;
	int rc;

	n = dpsock_ctl_recvmsg(c->fd, &m, fds, &nfds, MSG_DONTWAIT, &msg_flags, &pid);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	conn_pid_watch(c, pid);
	if (n == 0) {
		fds_close(fds, nfds);
		return -ECONNRESET;
	}
	if ((msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || n != (ssize_t)sizeof(m)) {
		fds_close(fds, nfds);
		return conn_malformed(c, "a message of the wrong size");
	}
	if (m.magic != DPSOCK_CTL_MAGIC) {
		fds_close(fds, nfds);
		/* maybe a library of another protocol: tell it why before closing */
		if (c->family == 0)
			conn_reply(c, DPSOCK_OP_HELLO, -EPROTO);
		return conn_malformed(c, "bad magic");
	}
	if (c->family == 0 && m.op != DPSOCK_OP_HELLO) {
		fds_close(fds, nfds);
		return conn_malformed(c, "a request before HELLO");
	}
	/* HELLO agreed on the version (op_hello refuses another): every later message has it */
	if (c->family != 0 && m.version != DPSOCK_PROTO_VERSION) {
		fds_close(fds, nfds);
		return conn_malformed(c, "a message of another protocol version");
	}
	switch (m.op) {
	case DPSOCK_OP_HELLO:
		if (c->family != 0 || nfds != 0)
			break;
		return op_hello(c, &m) < 0 ? -EPROTO : 1;
	case DPSOCK_OP_BIND:
		if (nfds != 1)
			break;
		rc = op_bind(c, &m, fds[0]);
		return rc < 0 ? rc : 1;
	case DPSOCK_OP_RESOLVE:
		if (nfds != 0)
			break;
		rc = op_resolve(c, &m);
		return rc < 0 ? rc : 1;
	case DPSOCK_OP_CHANNELS:
		if (nfds != 0)
			break;
		rc = op_channels(c, &m);
		return rc < 0 ? rc : 1;
	default:
		break;
	}
	fds_close(fds, nfds);
	return conn_malformed(c, "an unexpected request (or descriptors with it)");
}

static void
conn_serve(struct ep_conn *c)
{
	unsigned int i;
	int rc = 0;

	/* a reply kept for want of room: the next request waits for it */
	for (i = 0; i < EP_MSGS_PER_ROUND && !c->reply_pending; i++) {
		rc = conn_serve_one(c);
		if (rc <= 0)
			break;
	}
	if (rc < 0) {
		DP_LOG(DEBUG, endpoint, "endpoint %u (pid %d): connection closed (%s)", c->id,
			(int)c->pid, strerror(-rc));
		conn_close(c, false);
	}
}

/* EP_CTL_SNDBUF on a new connection: past net.core.wmem_max when dpfwd may (CAP_NET_ADMIN). */
static void
ctl_sndbuf_raise(int fd)
{
	int sz = EP_CTL_SNDBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0 &&
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) < 0)
		DP_LOG(DEBUG, endpoint, "control connection: SO_SNDBUF %d: %s", sz,
			strerror(errno));
}

static void
accept_all(void)
{
	for (;;) {
		struct ep_conn *c;
		struct ucred cred;
		socklen_t len = sizeof(cred);
		int fd, one = 1;

		fd = accept4(srv.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
				errno != ECONNABORTED)
				DP_LOG(ERR, endpoint, "accept on %s: %s", srv.cfg.socket,
					strerror(errno));
			return;
		}
		if (srv.nb_conns >= srv.conn_limit) {
			if (!srv.refuse_logged)
				DP_LOG(WARNING, endpoint,
					"%u connections already ([endpoint] max = %u): refusing "
					"more",
					srv.nb_conns, srv.cfg.max);
			srv.refuse_logged = true;
			srv.stats.refused++;
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			srv.stats.refused++;
			close(fd);
			continue;
		}
		c->fd = fd;
		c->efd = -1;
		c->id = ++srv.next_conn_id;
		ctl_sndbuf_raise(fd);
		/* each message says which process sent it: those forked from the one that
		 * connected are watched too */
		if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
			DP_LOG(DEBUG, endpoint, "control connection: SO_PASSCRED: %s",
				strerror(errno));
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
			c->pid = cred.pid;
			c->uid = cred.uid;
			conn_pid_watch(c, cred.pid);
		}
		pthread_mutex_lock(&srv.lock);
		TAILQ_INSERT_TAIL(&srv.conns, c, next);
		srv.nb_conns++;
		pthread_mutex_unlock(&srv.lock);
	}
}

/* Zombies whose mbufs came back are freed. */
static void
zombies_retry(void)
{
	struct ep_conn *c, *tmp;

	pthread_mutex_lock(&srv.lock);
	RTE_TAILQ_FOREACH_SAFE(c, &srv.zombies, next, tmp)
	{
		if (!ep_dp_release(c->dp))
			continue;
		TAILQ_REMOVE(&srv.zombies, c, next);
		c->dp = NULL;
		conn_free(c);
	}
	pthread_mutex_unlock(&srv.lock);
}

/* Room for @p need entries in the poll set (@p pfd, @p who, @p whopid). @return 0 or -ENOMEM. */
static int
pollset_reserve(
	struct pollfd **pfd, struct ep_conn ***who, pid_t **whopid, size_t *cap, size_t need)
{
	struct pollfd *p;
	struct ep_conn **w;
	pid_t *wp;

	if (need <= *cap)
		return 0;
	need = RTE_MAX(need, 2 * *cap);
	p = realloc(*pfd, need * sizeof(**pfd));
	if (p == NULL)
		return -ENOMEM;
	*pfd = p;
	w = realloc(*who, need * sizeof(**who));
	if (w == NULL)
		return -ENOMEM;
	*who = w;
	wp = realloc(*whopid, need * sizeof(**whopid));
	if (wp == NULL)
		return -ENOMEM;
	*whopid = wp;
	*cap = need;
	return 0;
}

/*
 * The server loop: one poll() over the stop eventfd, the listening socket, each
 * connection (POLLIN, or POLLOUT while a reply waits for room) and the pidfd of each
 * process watched; then the processes that ended, then the connections.
 */
static void *
server_main(void *arg)
{
	struct pollfd *pfd = NULL;
	struct ep_conn **who = NULL;
	pid_t *whopid = NULL;
	size_t cap = 0;
	double next_retry = 0;

	RTE_SET_USED(arg);
	if (pollset_reserve(&pfd, &who, &whopid, &cap, (size_t)srv.conn_limit + 2) < 0)
		goto nomem;
	for (;;) {
		struct ep_conn *c;
		size_t n = 2, need = 2, i;
		unsigned int k;
		int timeout = TAILQ_EMPTY(&srv.zombies) ? -1 : EP_RETRY_MS;

		TAILQ_FOREACH(c, &srv.conns, next)
		need += 1 + c->nb_pids;
		if (pollset_reserve(&pfd, &who, &whopid, &cap, need) < 0)
			goto nomem;
		pfd[0] = (struct pollfd){ .fd = srv.stop_efd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = srv.lfd, .events = POLLIN };
		TAILQ_FOREACH(c, &srv.conns, next)
		{
			pfd[n] = (struct pollfd){ .fd = c->fd,
				.events = c->reply_pending ? POLLOUT : POLLIN };
			whopid[n] = 0;
			who[n++] = c;
			for (k = 0; k < c->nb_pids; k++) {
				pfd[n] = (struct pollfd){ .fd = c->pids[k].fd, .events = POLLIN };
				whopid[n] = c->pids[k].pid;
				who[n++] = c;
			}
		}
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			DP_LOG(ERR, endpoint, "server thread: poll: %s; it stops", strerror(errno));
			break;
		}
		if (pfd[0].revents != 0)
			break;
		/* first the processes gone (no connection goes meanwhile) */
		for (i = 2; i < n; i++)
			if (pfd[i].revents != 0 && whopid[i] != 0)
				conn_pid_gone(who[i], whopid[i]);
		/* each conn_serve() may free its own connection, never another */
		for (i = 2; i < n; i++) {
			if (pfd[i].revents == 0 || whopid[i] != 0)
				continue;
			if (who[i]->reply_pending && conn_reply_flush(who[i]) < 0)
				conn_close(who[i], false);
			else if (!who[i]->reply_pending)
				conn_serve(who[i]);
		}
		if (pfd[1].revents != 0)
			accept_all();
		if (!TAILQ_EMPTY(&srv.zombies) && mono_ms() >= next_retry) {
			zombies_retry();
			next_retry = mono_ms() + EP_RETRY_MS;
		}
	}
	goto out;
nomem:
	DP_LOG(ERR, endpoint, "server thread: out of memory; endpoints are not served");
out:
	free(pfd);
	free(who);
	free(whopid);
	return NULL;
}

/* ---- the socket file ---- */

static int
mkdir_p(const char *dir)
{
	char buf[sizeof(srv.cfg.socket)];
	char *p;

	dp_strlcpy(buf, dir, sizeof(buf));
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Is a dpfwd listening at @p sa? A socket file alone says nothing: one that
 * was killed leaves it behind. @return 0 (nobody: the file may go),
 * -EADDRINUSE (somebody answers), -EEXIST (not a socket).
 */
static int
socket_probe(const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, rc;

	if (lstat(sa->sun_path, &st) < 0)
		return 0;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	close(fd);
	if (rc == 0)
		return -EADDRINUSE;
	return 0;
}

static int
listen_open(char *err, size_t errlen)
{
	const struct dp_endpoint_config *e = &srv.cfg;
	struct sockaddr_un sa;
	char dir[sizeof(e->socket)], *slash;
	int fd, rc;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	dp_strlcpy(sa.sun_path, e->socket, sizeof(sa.sun_path));
	dp_strlcpy(dir, e->socket, sizeof(dir));
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		rc = mkdir_p(dir);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: [endpoint] socket %s: cannot make %s: %s",
				e->loc.file, e->loc.line, e->socket, dir, strerror(-rc));
			return rc;
		}
	}
	rc = socket_probe(&sa);
	if (rc == -EADDRINUSE) {
		snprintf(err, errlen,
			"%s:%d: [endpoint] socket %s: another dpfwd listens there; stop it or "
			"choose another path",
			e->loc.file, e->loc.line, e->socket);
		return rc;
	}
	if (rc == -EEXIST) {
		snprintf(err, errlen,
			"%s:%d: [endpoint] socket %s exists and is not a socket; remove it or "
			"choose another path",
			e->loc.file, e->loc.line, e->socket);
		return -EADDRINUSE;
	}
	if (rc < 0) {
		snprintf(err, errlen, "[endpoint] socket %s: %s", e->socket, strerror(-rc));
		return rc;
	}
	/* a stale file of a dpfwd that died */
	unlink(e->socket);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "[endpoint] socket: %s", strerror(errno));
		return rc;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s:%d: [endpoint] socket %s: cannot bind: %s%s", e->loc.file,
			e->loc.line, e->socket, strerror(errno),
			errno == EACCES ? " (is its directory writable?)" : "");
		goto close_fd;
	}
	if (chmod(e->socket, e->mode) < 0) {
		rc = -errno;
		snprintf(err, errlen, "[endpoint] socket %s: chmod %o: %s", e->socket, e->mode,
			strerror(errno));
		goto unlink_file;
	}
	if (e->group[0] != '\0') {
		struct group gr, *res = NULL;
		char buf[4096];

		if (getgrnam_r(e->group, &gr, buf, sizeof(buf), &res) != 0 || res == NULL) {
			snprintf(err, errlen, "%s:%d: [endpoint] group '%s': no such group",
				e->loc.file, e->loc.line, e->group);
			rc = -EINVAL;
			goto unlink_file;
		}
		if (chown(e->socket, (uid_t)-1, gr.gr_gid) < 0) {
			rc = -errno;
			snprintf(err, errlen, "[endpoint] socket %s: chown to group %s: %s",
				e->socket, e->group, strerror(errno));
			goto unlink_file;
		}
	}
	if (listen(fd, 64) < 0) {
		rc = -errno;
		snprintf(err, errlen, "[endpoint] socket %s: listen: %s", e->socket,
			strerror(errno));
		goto unlink_file;
	}
	srv.lfd = fd;
	return 0;
unlink_file:
	unlink(e->socket);
close_fd:
	close(fd);
	return rc;
}

/*
 * Each endpoint holds a few descriptors (its connection, its eventfd, one per
 * channel): the soft limit of 1024 would cap dpfwd well below [endpoint] max.
 */
static void
nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ---- dp_endpoint.h ---- */

/*
 * A port whose driver cuts IPv4 datagrams short above some size (its profile's
 * ip4_whole_max: net_af_packet has the kernel reassemble, then truncates) can
 * never deliver a larger one to an endpoint. Say so once at start, where it can
 * be acted on, rather than leave it to a drop counter.
 */
static void
ports_warn(void)
{
	uint16_t i;

	for (i = 0; i < dp_nb_ports; i++) {
		const struct dp_port *p = &dp_ports[i];

		if (!p->has_profile || p->profile.ip4_whole_max == 0)
			continue;
		DP_LOG(WARNING, endpoint,
			"port%u (%s): IPv4 datagrams over %u bytes cannot reach endpoints through "
			"%s (it cuts them short: ip4_bad_length; driver profile %s)",
			i, p->name, p->profile.ip4_whole_max, p->driver, p->profile.name);
	}
}

int
dp_endpoint_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	int rc;

	/* the nodes are in every graph: their tables exist with or without [endpoint] */
	rc = ep_dp_init(cfg, err, errlen);
	if (rc < 0)
		return rc;
	srv.dp_ready = true;
	srv.enabled = dp_endpoint_config(cfg)->enabled;
	if (!srv.enabled)
		return 0;
	srv.cfg = *dp_endpoint_config(cfg);
	ports_warn();
	srv.tsc_hz = rte_get_tsc_hz();
	srv.conn_limit = srv.cfg.max + EP_CONN_SLACK;
	memset(&srv.stats, 0, sizeof(srv.stats));
	nofile_raise();
	srv.stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (srv.stop_efd < 0) {
		rc = -errno;
		snprintf(err, errlen, "[endpoint]: eventfd: %s", strerror(errno));
		goto dp_fini;
	}
	rc = listen_open(err, errlen);
	if (rc < 0)
		goto close_efd;
	DP_LOG(INFO, endpoint, "endpoints: listening on %s (mode %04o%s%s, max %u)", srv.cfg.socket,
		srv.cfg.mode, srv.cfg.group[0] ? ", group " : "", srv.cfg.group, srv.cfg.max);
	return 0;
close_efd:
	close(srv.stop_efd);
	srv.stop_efd = -1;
dp_fini:
	ep_dp_fini();
	srv.dp_ready = false;
	srv.enabled = false;
	return rc;
}

int
dp_endpoint_start(void)
{
	int rc;

	if (!srv.enabled || srv.running)
		return 0;
	rc = pthread_create(&srv.thread, NULL, server_main, NULL);
	if (rc != 0) {
		DP_LOG(ERR, endpoint, "cannot start the endpoint server thread: %s", strerror(rc));
		return -rc;
	}
	pthread_setname_np(srv.thread, "dp-endpoint");
	srv.running = true;
	return 0;
}

void
dp_endpoint_stop(void)
{
	struct ep_conn *c;
	struct ep_chan *ch;
	double deadline;

	if (!srv.enabled)
		return;
	/* first, so that applications stop using what is about to go */
	pthread_mutex_lock(&srv.lock);
	TAILQ_FOREACH(c, &srv.conns, next)
	if (c->region != NULL)
		region_kill(c->region);
	TAILQ_FOREACH(ch, &srv.chans, next)
	region_kill(ch->region);
	pthread_mutex_unlock(&srv.lock);
	if (srv.running) {
		uint64_t one = 1;

		if (write(srv.stop_efd, &one, sizeof(one)) < 0)
			DP_LOG(ERR, endpoint, "cannot wake the server thread: %s", strerror(errno));
		pthread_join(srv.thread, NULL);
		srv.running = false;
	}
	while ((c = TAILQ_FIRST(&srv.conns)) != NULL)
		conn_close(c, true);
	/* the workers still run: what they hold of the regions comes back soon */
	deadline = mono_ms() + EP_STOP_WAIT_MS;
	while (!TAILQ_EMPTY(&srv.zombies) && mono_ms() < deadline) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };

		zombies_retry();
		nanosleep(&ts, NULL);
	}
}

void
dp_endpoint_fini(void)
{
	struct ep_conn *c;
	unsigned int left = 0;

	if (srv.enabled) {
		zombies_retry();
		/* mbufs may still point into them: leaking the mapping beats a fault */
		TAILQ_FOREACH(c, &srv.zombies, next)
		left++;
		if (left > 0)
			DP_LOG(ERR, endpoint,
				"%u endpoint regions still referenced at exit: left mapped", left);
		TAILQ_INIT(&srv.zombies);
		if (srv.lfd >= 0) {
			close(srv.lfd);
			unlink(srv.cfg.socket);
		}
		if (srv.stop_efd >= 0)
			close(srv.stop_efd);
		srv.lfd = -1;
		srv.stop_efd = -1;
		srv.enabled = false;
	}
	/* teardown after a setup that failed early: nothing was made */
	if (srv.dp_ready)
		ep_dp_fini();
	srv.dp_ready = false;
}

/* ---- telemetry ---- */

/* Buffers of a pipe not on its free rings: being filled, in flight, or lent to a reader. */
static uint32_t
pipe_in_use(void *region, const struct dpsock_pipe *geo)
{
	uint32_t free_bufs = 0;
	unsigned int k;

	for (k = 0; k < DPSOCK_NB_CLASSES; k++)
		if (geo->cls[k].count != 0)
			free_bufs += rte_ring_count(dpsock_pipe_free_ring(region, geo, k));
	return free_bufs > geo->nb_bufs ? 0 : geo->nb_bufs - free_bufs;
}

static json_t *
stats_fill(void *arg)
{
	json_t *o;

	RTE_SET_USED(arg);
	pthread_mutex_lock(&srv.lock);
	o = json_pack("{s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "socket",
		srv.cfg.socket, "connections", (int)srv.nb_conns, "endpoints", (int)srv.nb_bound,
		"channels", (int)srv.nb_chans, "binds", (json_int_t)srv.stats.binds,
		"resolves_local", (json_int_t)srv.stats.resolves_local, "resolves_remote",
		(json_int_t)srv.stats.resolves_remote, "reclaims", (json_int_t)srv.stats.reclaims,
		"refused", (json_int_t)srv.stats.refused, "malformed",
		(json_int_t)srv.stats.malformed, "turns_taken_back",
		(json_int_t)srv.stats.turns_taken_back, "held_returned",
		(json_int_t)srv.stats.held_returned);
	if (o != NULL) {
		unsigned int z = 0;
		struct ep_conn *c;
		json_t *dp;

		TAILQ_FOREACH(c, &srv.zombies, next)
		z++;
		json_object_set_new(o, "reclaims_pending", json_integer(z));
		dp = (json_t *)ep_dp_stats_json();
		json_object_set_new(o, "datapath", dp != NULL ? dp : json_null());
	}
	pthread_mutex_unlock(&srv.lock);
	return o;
}

static json_t *
list_fill(void *arg)
{
	json_t *a = json_array();
	struct ep_conn *c;

	RTE_SET_USED(arg);
	if (a == NULL)
		return NULL;
	pthread_mutex_lock(&srv.lock);
	TAILQ_FOREACH(c, &srv.conns, next)
	{
		char name[INET6_ADDRSTRLEN + 16];
		json_t *o;

		if (c->family == 0)
			continue;
		o = json_pack("{s:i, s:i, s:i, s:s, s:i}", "id", (int)c->id, "pid", (int)c->pid,
			"uid", (int)c->uid, "family", c->family == AF_INET6 ? "ip6" : "ip4",
			"channels", (int)c->nb_chans);
		if (o == NULL)
			continue;
		if (c->dp != NULL) {
			struct ep_dp_info info;

			ep_dp_info_get(c->dp, &info);
			addr_format(name, sizeof(name), c->ip6, c->addr, c->port);
			json_object_set_new(o, "bound", json_string(name));
			json_object_set_new(o, "port", json_integer(c->port));
			json_object_set_new(o, "tx_bufs_in_use",
				json_integer(pipe_in_use(c->region, &c->geo[DPSOCK_EP_PIPE_TX])));
			json_object_set_new(o, "rx_bufs_in_use",
				json_integer(pipe_in_use(c->region, &c->geo[DPSOCK_EP_PIPE_RX])));
			json_object_set_new(o, "datapath",
				json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:i}", "worker",
					(int)info.worker, "tx_msgs", (json_int_t)info.tx_msgs,
					"tx_bytes", (json_int_t)info.tx_bytes, "tx_bad",
					(json_int_t)info.tx_bad, "rx_msgs",
					(json_int_t)info.rx_msgs, "rx_bytes",
					(json_int_t)info.rx_bytes, "rx_dropped",
					(json_int_t)info.rx_dropped, "inflight",
					(int)info.inflight));
		} else {
			json_object_set_new(o, "bound", json_null());
		}
		json_array_append_new(a, o);
	}
	pthread_mutex_unlock(&srv.lock);
	return a;
}

int
dp_endpoint_telemetry_register(void)
{
	int rc;

	if (!srv.enabled)
		return 0;
	rc = dp_telemetry_section_register("endpoint", "/dpfwd/endpoint/stats",
		"Endpoints (dpsock): connections, endpoints, channels; binds, resolves, reclaims, "
		"refused, malformed; dead processes' turns",
		stats_fill, NULL);
	if (rc < 0)
		return rc;
	return dp_telemetry_section_register("endpoint_list", "/dpfwd/endpoint/list",
		"Each endpoint: pid and uid of its application, family, bound address, channels, "
		"pipe buffers in use",
		list_fill, NULL);
}
