/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdpsock (dpsock.h): what an application links to have datagram endpoints
 * on dpfwd's fast path. Not a DPDK process: it uses rte_ring's inline
 * enqueue/dequeue on rings that dpfwd initialised in shared memory, and
 * nothing of EAL.
 *
 *   struct dpsock (one endpoint)
 *     ctl      control connection to dpfwd (dpsock_proto.h), one per endpoint
 *     region   its endpoint region: pipe 0 to send through a worker, pipe 1 to receive
 *     chans[]  channels to endpoints on this host (slot i; msg->chan = i + 1)
 *     routes[] destination -> channel or REMOTE (pipe 0), filled by RESOLVE
 *
 * Receiving polls pipe 1 and every inbound channel pipe, round robin.
 * Sending takes a free buffer of the route's pipe, fills it, passes its
 * offset on the data ring, and writes the peer's eventfd if it sleeps.
 *
 * Trust: a channel is shared with another application, which may be buggy or
 * hostile. Geometry is read from our own copy, taken when the region was
 * checked; every offset that comes out of a channel ring is checked against
 * it before it is touched; lengths are clamped to the buffer's room. (The
 * ring headers themselves are trusted as far as the control socket's
 * permissions trust the applications, as dpsock_shm.h says.)
 *
 * dpfwd's death shows as EOF on the control socket (seen in blocking waits,
 * on every control exchange and at most every DPSOCK_LIVE_MS of calls, a receive
 * or a readiness look looking at the clock every DPSOCK_CALLS_PER_CLOCK of them) or
 * as alive == 0 in the region; every call returns -ENOTCONN from then on.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "dpsock.h"
#include "dpsock_proto.h"
#include "dpsock_shm.h"

/* How long a waiting call spins before it sleeps, unless DPSOCK_SPIN_US says. */
#define DPSOCK_SPIN_US_DEFAULT 20
/* Cached destinations per endpoint (beyond its channels' own addresses). */
#define DPSOCK_ROUTES 16
/* Offsets moved at once on a ring. */
#define DPSOCK_BURST 32
/*
 * Free buffers move between the two processes in batches of this many: a
 * producer takes them from its free ring a batch at a time, a consumer gives
 * them back a batch at a time (or once it has had nothing to read for
 * DPSOCK_REL_IDLE_US, or before it sleeps). Each ring operation moves the
 * ring's cache lines from one core to the other: one per message would be a
 * large part of a small message's one-way trip.
 */
#define DPSOCK_REL_BATCH   DPSOCK_HELD_REL
#define DPSOCK_REL_IDLE_US 5
/* A call looks at its control socket (one poll()) at most this often otherwise. */
#define DPSOCK_LIVE_MS 10
/*
 * A receive or a readiness look needs no time of its own: it reads the TSC (tens of
 * cycles on a VM, next to a small message's trip of a few hundred) once in this many
 * calls, for the look at the control socket; and, after nothing was there, once in this
 * many empty looks in a row, for the idle clock (DPSOCK_REL_IDLE_US).
 */
#define DPSOCK_CALLS_PER_CLOCK 8
/* A blocking send that found no buffer sleeps this long between looks, after spinning. */
#define DPSOCK_TX_NAP_US 20
/* A REMOTE answer is asked again after this: an endpoint may have bound the address since. */
#define DPSOCK_REMOTE_TTL_MS 1000
/* Channels one endpoint can hold (msg->chan is 16 bits; 0 is the endpoint's own region). */
#define DPSOCK_MAX_CHANS 4096
/* Largest UDP payload to another host (IPv4: 65535 - 20 - 8; IPv6: 65535 - 8). */
#define DPSOCK_UDP4_MAX 65507u
#define DPSOCK_UDP6_MAX 65527u

/* msg->flags: who holds a buffer outside its rings */
#define DPSOCK_MF_TX 0x1 /* given by dpsock_msg_alloc(), not sent yet */
#define DPSOCK_MF_RX 0x2 /* lent by dpsock_recv_burst() */

union dpsock_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

/* One pipe as this process uses it. */
struct pipe_view {
	void *region;
	struct dpsock_pipe geo;     /* our copy, checked when the region was mapped */
	struct dpsock_pipe *shared; /* the live one: only its sleeping flag is read from it */
	struct dpsock_seq_pos seq;  /* our place in a DPSOCK_DATA_SEQ data ring */
	/*
	 * The buffers this side keeps between calls, in memory shared with the processes
	 * forked after it was made: a process that takes its turn on an inherited endpoint
	 * goes on with what the one before it kept, so that neither a child that exits or
	 * is killed nor a parent using the socket again after a child loses them or hands
	 * out the same buffer twice. An endpoint's are in its region (dpfwd gives them back
	 * for a process that died with the turn); a channel's in a MAP_SHARED mapping of
	 * h_size bytes (0: the region's).
	 */
	struct dpsock_held *h;
	size_t h_size;
};

struct dpsock_chan {
	uint32_t id;
	uint16_t slot;
	bool gone; /* CHANNEL_GONE, or its region said so: no more sends */
	void *region;
	size_t size;
	struct pipe_view tx, rx;
	int peer_efd;
	union dpsock_addr peer;
	uint32_t held; /* its buffers the application holds (allocated or lent) */
};

enum route_state {
	ROUTE_EMPTY = 0,
	ROUTE_REMOTE,  /* pipe 0, through a worker */
	ROUTE_LOCAL,   /* a channel */
	ROUTE_REFUSED, /* its channel went: the next send says so, then resolves again */
};

struct route {
	union dpsock_addr dest;
	enum route_state state;
	uint16_t slot;
	uint64_t expires; /* ROUTE_REMOTE: TSC when dpfwd is asked again */
};

struct evq_item {
	struct dpsock *ep;
	bool ctl; /* the control socket (else the eventfd) */
};

struct dpsock {
	int family;
	int flags;
	int ctl;
	int efd;
	bool dead;
	bool bound;
	union dpsock_addr local;
	bool connected;
	struct route conn; /* the connected peer's route */
	/* endpoint region */
	void *region;
	size_t size;
	struct dpsock_region *hdr;
	struct pipe_view tx, rx;
	uint32_t ctl_seq;
	/* the region's turn: the process of the family that made the last call; NULL
	 * before bind */
	volatile uint32_t *turn;
	uint64_t tsc_hz;
	uint64_t spin_cycles;
	uint64_t next_live;  /* TSC of the next look at the control socket */
	uint64_t idle_since; /* TSC of the first empty poll in a row (0: the last one found some) */
	unsigned int idle_looks; /* empty polls in a row since idle_since */
	unsigned int unclocked;  /* calls since the TSC was last read (ep_enter_light()) */
	/* TSC as ep_enter() read it at the start of this call: the sender's stamp uses it,
	 * since a TSC read is not free next to a small message's round trip, and a send
	 * would make two */
	uint64_t now;
	/* channels */
	struct dpsock_chan **chans;
	unsigned int nb_slots;
	unsigned int nb_chans;
	unsigned int rr; /* next receive source: 0 = pipe 1, i + 1 = chans[i] */
	struct route routes[DPSOCK_ROUTES];
	unsigned int route_next;
	struct dpsock_stats st;
	/* event queue */
	struct dpsock_evq *evq;
	void *udata;
	struct evq_item evi[2];
};

struct dpsock_evq {
	int epfd;
	uint64_t spin_us;
	bool armed;
	struct dpsock **eps;
	unsigned int nb, cap;
	unsigned int rr;
};

/* ---- small helpers ---- */

static socklen_t
addr_len(int family)
{
	return family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

static bool
addr_eq(const union dpsock_addr *a, const union dpsock_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->in.sin_port == b->in.sin_port &&
		       a->in.sin_addr.s_addr == b->in.sin_addr.s_addr;
	return a->in6.sin6_port == b->in6.sin6_port &&
	       memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr, 16) == 0;
}

/* A caller's address into ours. @return 0, -EINVAL (length), -EAFNOSUPPORT (family). */
static int
addr_take(const struct dpsock *ep, const struct sockaddr *sa, socklen_t len, union dpsock_addr *out)
{
	if (sa == NULL || len < (socklen_t)sizeof(sa_family_t))
		return -EINVAL;
	if (sa->sa_family != ep->family)
		return -EAFNOSUPPORT;
	if (len < addr_len(ep->family))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out, sa, addr_len(ep->family));
	return 0;
}

static void
addr_give(const union dpsock_addr *a, struct sockaddr *sa, socklen_t *len)
{
	socklen_t n = addr_len(a->sa.sa_family);

	if (sa != NULL && len != NULL)
		memcpy(sa, a, *len < n ? *len : n);
	if (len != NULL)
		*len = n;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
nap_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)us * 1000 };

	nanosleep(&ts, NULL);
}

static void
efd_write(int fd)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is full, the reader will wake anyway */
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

static void
efd_drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0)
		return;
}

/* ---- pipes ---- */

/*
 * @p own: an endpoint region (dpfwd's and ours), whose held_off says where the pipe's
 * held buffers are; a channel's peer can write its region's, so a channel's side keeps
 * them in memory of its own. @return 0 or -ENOMEM (the held buffers' shared memory).
 */
static int
view_init(struct pipe_view *pv, void *region, unsigned int pipe, bool own)
{
	unsigned int c;
	uint32_t at = 0;
	void *h;

	memset(pv, 0, sizeof(*pv));
	pv->region = region;
	pv->shared = dpsock_region_pipe(region, pipe);
	pv->geo = *pv->shared;
	if (pv->geo.data_kind == DPSOCK_DATA_SEQ)
		dpsock_seq_pos_init(&pv->seq, region, &pv->geo);
	if (own && ((struct dpsock_region *)region)->held_off[pipe] != 0) {
		/* checked inside the region (dpsock_region_check()) */
		h = RTE_PTR_ADD(region, ((struct dpsock_region *)region)->held_off[pipe]);
	} else {
		pv->h_size = dpsock_held_size(pv->geo.nb_bufs);
		h = mmap(NULL, pv->h_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
			0);
		if (h == MAP_FAILED) {
			pv->h = NULL;
			pv->h_size = 0;
			return -ENOMEM;
		}
	}
	pv->h = h;
	for (c = 0; c < DPSOCK_NB_CLASSES; c++) {
		pv->h->stash_at[c] = at;
		at += pv->geo.cls[c].count;
	}
	return 0;
}

/* Producer: @p n filled buffers to the consumer, by the data ring's kind. */
static inline void
view_send(struct pipe_view *pv, const uint64_t *offs, unsigned int n)
{
	if (pv->geo.data_kind == DPSOCK_DATA_SEQ)
		dpsock_seq_send(&pv->seq, pv->region, offs, n);
	else
		dpsock_pipe_send(pv->region, &pv->geo, offs, n);
}

/* Consumer: up to @p n filled buffers. */
static inline unsigned int
view_recv(struct pipe_view *pv, uint64_t *offs, unsigned int n)
{
	if (pv->geo.data_kind == DPSOCK_DATA_SEQ)
		return dpsock_seq_recv(&pv->seq, offs, n);
	return dpsock_pipe_recv(pv->region, &pv->geo, offs, n);
}

/* Consumer: is something waiting? */
static inline bool
view_pending(struct pipe_view *pv)
{
	if (pv->geo.data_kind == DPSOCK_DATA_SEQ)
		return dpsock_seq_pending(&pv->seq);
	return dpsock_pipe_pending(pv->region, &pv->geo) != 0;
}

/*
 * Our place in a sequence ring taken from its slots, for a side another process may
 * have used since our copy of it was made: a channel mapped again, or a fork.
 */
static void
view_resync(struct pipe_view *pv, bool producer)
{
	uint64_t prod, cons;

	if (pv->geo.data_kind != DPSOCK_DATA_SEQ)
		return;
	dpsock_seq_positions(&pv->seq, &prod, &cons);
	pv->seq.pos = producer ? prod : cons;
}

static void
view_fini(struct pipe_view *pv)
{
	if (pv->h != NULL && pv->h_size != 0)
		munmap(pv->h, pv->h_size);
	memset(pv, 0, sizeof(*pv));
}

/* Consumer: give back what was read (the batch in hand). */
static void
view_release_flush(struct pipe_view *pv)
{
	struct dpsock_held *h = pv->h;

	if (h->nb_rel == 0)
		return;
	dpsock_pipe_release(pv->region, &pv->geo, h->rel, h->nb_rel);
	h->nb_rel = 0;
}

/* Consumer: @p off was read; back to the producer with the next batch. */
static void
view_release(struct pipe_view *pv, uint64_t off)
{
	struct dpsock_held *h = pv->h;

	h->rel[h->nb_rel++] = off;
	if (h->nb_rel == DPSOCK_REL_BATCH)
		view_release_flush(pv);
}

/* A producer's stash of class @p cls: the places of that class's buffers. */
static inline uint64_t *
view_stash(struct pipe_view *pv, unsigned int cls)
{
	return &pv->h->stash[pv->h->stash_at[cls]];
}

/*
 * Producer: up to @p n empty buffers of class @p cls, our own returns first.
 * Offsets from the free ring were written by the consumer: a channel's peer
 * could put anything there, so each is checked before we write through it.
 */
static unsigned int
view_alloc(struct pipe_view *pv, unsigned int cls, uint64_t *offs, unsigned int n)
{
	uint64_t *stash = view_stash(pv, cls);
	uint32_t *nb_stash = &pv->h->nb_stash[cls];
	unsigned int got = 0, base, k, i;
	uint32_t slot;

	while (got < n && *nb_stash != 0)
		offs[got++] = stash[--*nb_stash];
	if (got == n)
		return got;
	/* a batch into the stash, unless the request is a batch itself */
	if (n - got < DPSOCK_REL_BATCH) {
		uint64_t batch[DPSOCK_REL_BATCH];
		uint32_t room = pv->geo.cls[cls].count - *nb_stash;

		k = dpsock_pipe_alloc(pv->region, &pv->geo, cls, batch,
			room < DPSOCK_REL_BATCH ? room : DPSOCK_REL_BATCH);
		/* into the shared stash first, so that what this process takes is never only
		 * in its own memory (a process killed here loses nothing to the next one) */
		for (i = 0; i < k; i++)
			if (dpsock_pipe_buf_check(&pv->geo, batch[i], &slot) == (int)cls)
				stash[(*nb_stash)++] = batch[i];
		while (got < n && *nb_stash != 0)
			offs[got++] = stash[--*nb_stash];
		return got;
	}
	base = got;
	k = dpsock_pipe_alloc(pv->region, &pv->geo, cls, offs + base, n - base);
	/* bad offsets are dropped: what they stood for is lost to us, never written */
	for (i = 0; i < k; i++) {
		uint64_t off = offs[base + i];

		if (dpsock_pipe_buf_check(&pv->geo, off, &slot) == (int)cls)
			offs[got++] = off;
	}
	return got;
}

/* Producer: an unsent buffer back to our stash. */
static void
view_unalloc(struct pipe_view *pv, uint64_t off)
{
	unsigned int cls = dpsock_pipe_buf_class(&pv->geo, off);
	uint32_t *nb_stash = &pv->h->nb_stash[cls];

	if (*nb_stash < pv->geo.cls[cls].count)
		view_stash(pv, cls)[(*nb_stash)++] = off;
}

/*
 * Consumer, about to sleep: dpsock_pipe_sleep_prepare() on our copy of the
 * geometry (its data ring offset), with the live sleeping flag.
 */
static bool
view_sleep_prepare(struct pipe_view *pv)
{
	__atomic_store_n(&pv->shared->sleeping, 1, __ATOMIC_SEQ_CST);
	if (!view_pending(pv))
		return true;
	__atomic_store_n(&pv->shared->sleeping, 0, __ATOMIC_SEQ_CST);
	return false;
}

static void
view_wake_off(struct pipe_view *pv)
{
	if (pv->shared != NULL)
		__atomic_store_n(&pv->shared->sleeping, 0, __ATOMIC_RELAXED);
}

/* ---- channels ---- */

static bool
chan_dead(struct dpsock_chan *ch)
{
	const struct dpsock_region *r = ch->region;

	if (!ch->gone && __atomic_load_n(&r->alive, __ATOMIC_ACQUIRE) == 0)
		ch->gone = true;
	return ch->gone;
}

static struct dpsock_chan *
chan_by_id(const struct dpsock *ep, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < ep->nb_slots; i++)
		if (ep->chans[i] != NULL && ep->chans[i]->id == id)
			return ep->chans[i];
	return NULL;
}

/* Routes through a channel that went: the next send to them says -ECONNREFUSED. */
static void
routes_refuse(struct dpsock *ep, uint16_t slot)
{
	unsigned int i;

	for (i = 0; i < DPSOCK_ROUTES; i++)
		if (ep->routes[i].state == ROUTE_LOCAL && ep->routes[i].slot == slot)
			ep->routes[i].state = ROUTE_REFUSED;
	if (ep->connected && ep->conn.state == ROUTE_LOCAL && ep->conn.slot == slot)
		ep->conn.state = ROUTE_REFUSED;
}

static void
chan_unmap(struct dpsock *ep, struct dpsock_chan *ch)
{
	routes_refuse(ep, ch->slot);
	ep->chans[ch->slot] = NULL;
	ep->nb_chans--;
	view_release_flush(&ch->rx);
	view_fini(&ch->tx);
	view_fini(&ch->rx);
	munmap(ch->region, ch->size);
	close(ch->peer_efd);
	free(ch);
}

/*
 * A gone channel stays mapped while the application holds its buffers or
 * datagrams wait in it (they may still be read); then it goes.
 */
static void
chan_reap(struct dpsock *ep, struct dpsock_chan *ch)
{
	if (chan_dead(ch) && ch->held == 0 && !view_pending(&ch->rx))
		chan_unmap(ep, ch);
}

static void
chan_gone(struct dpsock *ep, struct dpsock_chan *ch)
{
	ch->gone = true;
	routes_refuse(ep, ch->slot);
	chan_reap(ep, ch);
}

/* Map a channel handed over by dpfwd. Takes @p memfd and @p efd in every case. */
static struct dpsock_chan *
chan_map(struct dpsock *ep, uint32_t id, unsigned int side, int memfd, uint64_t size, int efd,
	const union dpsock_addr *peer)
{
	struct dpsock_chan *ch = NULL;
	struct stat st;
	void *region;
	unsigned int i;

	if (fstat(memfd, &st) < 0 || size < sizeof(struct dpsock_region) ||
		(uint64_t)st.st_size < size)
		goto close_fds;
	for (i = 0; i < ep->nb_slots && ep->chans[i] != NULL; i++)
		;
	if (i == ep->nb_slots) {
		unsigned int n = ep->nb_slots ? ep->nb_slots * 2 : 8;
		struct dpsock_chan **p;

		if (n > DPSOCK_MAX_CHANS)
			goto close_fds;
		p = realloc(ep->chans, n * sizeof(*p));
		if (p == NULL)
			goto close_fds;
		memset(p + ep->nb_slots, 0, (n - ep->nb_slots) * sizeof(*p));
		ep->chans = p;
		ep->nb_slots = n;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		goto close_fds;
	region = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (region == MAP_FAILED)
		goto free_chan;
	if (dpsock_region_check(region, size) < 0)
		goto unmap;
	close(memfd);
	ch->id = id;
	ch->slot = (uint16_t)i;
	ch->region = region;
	ch->size = size;
	ch->peer_efd = efd;
	ch->peer = *peer;
	/* side 0 (the asker) sends on pipe 0, side 1 on pipe 1 */
	if (view_init(&ch->tx, region, side, false) < 0 ||
		view_init(&ch->rx, region, side ^ 1, false) < 0)
		goto fini_views;
	/* a pair's channel lives as long as both endpoints: a process forked after another
	 * used it maps it again, and takes up where that one stopped */
	view_resync(&ch->tx, true);
	view_resync(&ch->rx, false);
	ep->chans[i] = ch;
	ep->nb_chans++;
	/*
	 * Armed (its own pipe says it sleeps): another thread of the program made this
	 * channel meanwhile (a send that drained the control socket), and the sleeper must
	 * hear of what arrives on it too.
	 */
	if (ep->rx.shared != NULL && __atomic_load_n(&ep->rx.shared->sleeping, __ATOMIC_SEQ_CST) &&
		!view_sleep_prepare(&ch->rx))
		efd_write(ep->efd);
	return ch;
fini_views:
	view_fini(&ch->tx);
	view_fini(&ch->rx);
unmap:
	munmap(region, size);
free_chan:
	free(ch);
close_fds:
	close(memfd);
	close(efd);
	return NULL;
}

/* ---- the control connection ---- */

static int
ctl_send(struct dpsock *ep, const struct dpsock_ctl *m, int fd)
{
	ssize_t n = dpsock_ctl_sendmsg(ep->ctl, m, &fd, fd >= 0 ? 1 : 0, 0);

	if (n == (ssize_t)sizeof(*m))
		return 0;
	ep->dead = true;
	return -ENOTCONN;
}

/*
 * One message and up to two descriptors. @return 1, 0 (none now, with
 * @p dontwait), -ENOTCONN (dpfwd went away), -EPROTO (not a message of ours).
 */
static int
ctl_recv(struct dpsock *ep, struct dpsock_ctl *m, int fds[DPSOCK_CTL_MAX_FDS], unsigned int *nfds,
	bool dontwait)
{
	int msg_flags;
	ssize_t n = dpsock_ctl_recvmsg(
		ep->ctl, m, fds, nfds, dontwait ? MSG_DONTWAIT : 0, &msg_flags, NULL);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n <= 0) {
		ep->dead = true;
		return -ENOTCONN;
	}
	if (n != (ssize_t)sizeof(*m) || m->magic != DPSOCK_CTL_MAGIC ||
		(msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
		while (*nfds > 0)
			close(fds[--(*nfds)]);
		return -EPROTO;
	}
	return 1;
}

static void
fds_close(int *fds, unsigned int n)
{
	while (n > 0)
		close(fds[--n]);
}

/* CHANNEL or CHANNEL_GONE: what dpfwd sends unasked. */
static void
ctl_unasked(struct dpsock *ep, const struct dpsock_ctl *m, int *fds, unsigned int nfds)
{
	struct dpsock_chan *ch = chan_by_id(ep, m->chan);
	union dpsock_addr peer;

	if (m->op == DPSOCK_OP_CHANNEL_GONE) {
		fds_close(fds, nfds);
		if (ch != NULL)
			chan_gone(ep, ch);
		return;
	}
	if (ch != NULL || nfds != 2 || m->addr.in.sin_family != ep->family) {
		fds_close(fds, nfds);
		return;
	}
	memset(&peer, 0, sizeof(peer));
	memcpy(&peer, &m->addr, addr_len(ep->family));
	chan_map(ep, m->chan, m->side != 0, fds[0], m->size, fds[1], &peer);
}

/* Read what dpfwd sent unasked, without waiting. @return 0 or -ENOTCONN. */
static int
ctl_drain(struct dpsock *ep)
{
	struct dpsock_ctl m;
	unsigned int nfds;
	int fds[2], rc;

	while ((rc = ctl_recv(ep, &m, fds, &nfds, true)) != 0) {
		if (rc == -ENOTCONN)
			return rc;
		if (rc < 0)
			continue;
		if (m.op == DPSOCK_OP_CHANNEL || m.op == DPSOCK_OP_CHANNEL_GONE)
			ctl_unasked(ep, &m, fds, nfds);
		else
			fds_close(fds, nfds);
	}
	return 0;
}

/*
 * Send @p req (with @p fd when >= 0) and wait for its reply, handling what
 * comes unasked meanwhile. @return 0 (reply in @p rep, its descriptors in
 * @p fds), -ENOTCONN, -EPROTO.
 */
static int
ctl_request(struct dpsock *ep, const struct dpsock_ctl *req, int fd, struct dpsock_ctl *rep,
	int fds[2], unsigned int *nfds)
{
	int rc = ctl_send(ep, req, fd);

	if (rc < 0)
		return rc;
	for (;;) {
		rc = ctl_recv(ep, rep, fds, nfds, false);
		if (rc < 0)
			return rc;
		if (rep->op == DPSOCK_OP_CHANNEL || rep->op == DPSOCK_OP_CHANNEL_GONE) {
			ctl_unasked(ep, rep, fds, *nfds);
			continue;
		}
		if (rep->op != req->op) {
			fds_close(fds, *nfds);
			return -EPROTO;
		}
		return 0;
	}
}

/* Is dpfwd still there? One poll() of the control socket, draining what it holds. */
static void
ctl_look(struct dpsock *ep)
{
	struct pollfd p = { .fd = ep->ctl, .events = POLLIN };

	if (poll(&p, 1, 0) <= 0)
		return;
	if ((p.revents & POLLIN) != 0)
		ctl_drain(ep);
	if ((p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0)
		ep->dead = true;
}

/* This process's id, kept without a system call per look (pthread_atfork() sets it again
 * in a child; from the first dpsock_open()). */
static pid_t dpsock_self;
static pthread_once_t dpsock_self_once = PTHREAD_ONCE_INIT;

static void
self_forked(void)
{
	__atomic_store_n(&dpsock_self, getpid(), __ATOMIC_RELAXED);
}

static void
self_watch(void)
{
	self_forked();
	pthread_atfork(NULL, NULL, self_forked);
}

/*
 * The first call of a process on an endpoint another process of the family used last
 * (a child after a fork, a sibling after it, the parent after a child): the channels'
 * places are this process's old copy, so they are taken from the rings; channels the
 * other heard of (CHANNEL, read from the control socket they share) dpfwd announces
 * again. The buffers kept between calls are shared (struct dpsock_held): nothing to do.
 * The turn is taken with a compare-and-swap: dpfwd may be giving back what a process
 * that died with it kept (DPSOCK_TURN_DPFWD), which takes it no longer than a few ring
 * operations. The CHANNELS request also tells dpfwd this process's pid (the kernel adds
 * it), which it watches from then on.
 */
static void
ep_turn_take(struct dpsock *ep)
{
	const uint32_t self = (uint32_t)__atomic_load_n(&dpsock_self, __ATOMIC_RELAXED);
	struct dpsock_ctl req, rep;
	unsigned int i, nfds;
	uint32_t from = 0, cur;
	int fds[2];

	cur = __atomic_load_n(ep->turn, __ATOMIC_ACQUIRE);
	while (cur != self) {
		if (cur == DPSOCK_TURN_DPFWD) {
			if (__atomic_load_n(&ep->hdr->alive, __ATOMIC_RELAXED) == 0)
				break;
			rte_pause();
			cur = __atomic_load_n(ep->turn, __ATOMIC_ACQUIRE);
			continue;
		}
		if (__atomic_compare_exchange_n(
			    ep->turn, &cur, self, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	for (i = 0; i < ep->nb_slots; i++)
		if (ep->chans[i] != NULL) {
			view_resync(&ep->chans[i]->tx, true);
			view_resync(&ep->chans[i]->rx, false);
		}
	/* in batches, each read before the next is asked for (dpfwd says when more are left) */
	do {
		dpsock_ctl_init(&req, DPSOCK_OP_CHANNELS);
		req.chan = from;
		if (ctl_request(ep, &req, -1, &rep, fds, &nfds) < 0)
			return;
		fds_close(fds, nfds);
		from = rep.chan;
	} while (rep.rc >= 0 && rep.more != 0);
}

/*
 * At the start of every call: one load of ctl_seq (and alive) and, now and
 * then, a look at the control socket. @p clock: ep->now is read (the call
 * needs it); else only every DPSOCK_CALLS_PER_CLOCK calls, for that look.
 * @return 0 or -ENOTCONN.
 */
static int
ep_enter_at(struct dpsock *ep, bool clock)
{
	if (clock || ++ep->unclocked >= DPSOCK_CALLS_PER_CLOCK) {
		clock = true;
		ep->unclocked = 0;
		ep->now = rte_rdtsc();
	}
	if (ep->dead)
		return -ENOTCONN;
	if (ep->turn != NULL && __atomic_load_n(ep->turn, __ATOMIC_RELAXED) !=
					(uint32_t)__atomic_load_n(&dpsock_self, __ATOMIC_RELAXED))
		ep_turn_take(ep);
	if (ep->hdr != NULL) {
		uint32_t seq = __atomic_load_n(&ep->hdr->ctl_seq, __ATOMIC_ACQUIRE);

		if (seq != ep->ctl_seq) {
			ep->ctl_seq = seq;
			ctl_drain(ep);
		}
		if (__atomic_load_n(&ep->hdr->alive, __ATOMIC_RELAXED) == 0)
			ep->dead = true;
		if (clock && ep->now >= ep->next_live) {
			ep->next_live = ep->now + ep->tsc_hz * DPSOCK_LIVE_MS / 1000;
			ctl_look(ep);
		}
	}
	return ep->dead ? -ENOTCONN : 0;
}

/* ep_enter_at() of a call that uses ep->now (a send's stamp), or a wait's. */
static int
ep_enter(struct dpsock *ep)
{
	return ep_enter_at(ep, true);
}

/* ep_enter_at() of a receive or a readiness look: no TSC of its own. */
static int
ep_enter_light(struct dpsock *ep)
{
	return ep_enter_at(ep, false);
}

/* ---- open, bind ---- */

static uint64_t
spin_us_env(void)
{
	const char *s = getenv("DPSOCK_SPIN_US");
	char *end;
	unsigned long v;

	if (s == NULL || *s == '\0')
		return DPSOCK_SPIN_US_DEFAULT;
	v = strtoul(s, &end, 10);
	return *end == '\0' && v <= 1000000 ? v : DPSOCK_SPIN_US_DEFAULT;
}

struct dpsock *
dpsock_open(const char *path, int family, int flags)
{
	struct sockaddr_un sa;
	struct dpsock_ctl req, rep;
	struct dpsock *ep;
	unsigned int nfds;
	int fds[2], rc;

	if (family != AF_INET && family != AF_INET6) {
		errno = EAFNOSUPPORT;
		return NULL;
	}
	if (path == NULL)
		path = getenv("DPSOCK_PATH");
	if (path == NULL || *path == '\0')
		path = DPSOCK_DEFAULT_PATH;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1); /* fits: checked above */
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ep->family = family;
	ep->flags = flags;
	ep->efd = -1;
	pthread_once(&dpsock_self_once, self_watch);
	ep->ctl = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (ep->ctl < 0) {
		rc = -errno;
		goto free_ep;
	}
	if (connect(ep->ctl, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		goto close_ctl;
	}
	ep->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ep->efd < 0) {
		rc = -errno;
		goto close_ctl;
	}
	dpsock_ctl_init(&req, DPSOCK_OP_HELLO);
	req.family = (uint32_t)family;
	rc = ctl_request(ep, &req, -1, &rep, fds, &nfds);
	if (rc == 0) {
		fds_close(fds, nfds);
		rc = rep.rc < 0 ? rep.rc : 0;
	}
	if (rc < 0)
		goto close_efd;
	ep->spin_cycles = spin_us_env(); /* in microseconds until the region gives the TSC rate */
	ep->evi[0].ep = ep;
	ep->evi[1].ep = ep;
	ep->evi[1].ctl = true;
	return ep;
close_efd:
	close(ep->efd);
close_ctl:
	close(ep->ctl);
free_ep:
	free(ep);
	errno = rc == -ENOTCONN ? ECONNREFUSED : -rc;
	return NULL;
}

static int
do_bind(struct dpsock *ep, const union dpsock_addr *addr)
{
	struct dpsock_ctl req, rep;
	unsigned int nfds;
	struct stat st;
	void *region;
	int fds[2], rc;

	dpsock_ctl_init(&req, DPSOCK_OP_BIND);
	memcpy(&req.addr, addr, addr_len(ep->family));
	rc = ctl_request(ep, &req, ep->efd, &rep, fds, &nfds);
	if (rc < 0)
		return rc;
	if (rep.rc < 0) {
		fds_close(fds, nfds);
		return rep.rc;
	}
	if (nfds != 1 || rep.size < sizeof(struct dpsock_region) ||
		rep.addr.in.sin_family != ep->family) {
		fds_close(fds, nfds);
		return -EPROTO;
	}
	if (fstat(fds[0], &st) < 0 || (uint64_t)st.st_size < rep.size) {
		close(fds[0]);
		return -EPROTO;
	}
	region = mmap(NULL, rep.size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	close(fds[0]);
	if (region == MAP_FAILED)
		return -ENOMEM;
	if (dpsock_region_check(region, rep.size) < 0) {
		munmap(region, rep.size);
		return -EPROTO;
	}
	if (view_init(&ep->tx, region, DPSOCK_EP_PIPE_TX, true) < 0 ||
		view_init(&ep->rx, region, DPSOCK_EP_PIPE_RX, true) < 0) {
		view_fini(&ep->tx);
		view_fini(&ep->rx);
		munmap(region, rep.size);
		return -ENOMEM;
	}
	ep->region = region;
	ep->size = rep.size;
	ep->hdr = region;
	ep->turn = &ep->hdr->turn;
	__atomic_store_n(ep->turn, (uint32_t)dpsock_self, __ATOMIC_RELEASE);
	ep->ctl_seq = __atomic_load_n(&ep->hdr->ctl_seq, __ATOMIC_ACQUIRE);
	ep->tsc_hz = ep->hdr->tsc_hz;
	ep->spin_cycles = ep->spin_cycles * ep->tsc_hz / 1000000;
	ep->next_live = rte_rdtsc() + ep->tsc_hz * DPSOCK_LIVE_MS / 1000;
	memset(&ep->local, 0, sizeof(ep->local));
	memcpy(&ep->local, &rep.addr, addr_len(ep->family));
	ep->bound = true;
	/*
	 * Its queue armed while it was unbound: another thread of the program sleeps on it
	 * (libdpsock-preload: a recv or poll on a socket whose first send this is) and must
	 * look again, now that datagrams can come and the endpoint can be armed.
	 */
	if (ep->evq != NULL && ep->evq->armed)
		efd_write(ep->efd);
	return 0;
}

/* The first send of an unbound endpoint binds it to the wildcard and a port dpfwd picks. */
static int
bound_ensure(struct dpsock *ep)
{
	union dpsock_addr any;

	if (ep->bound)
		return 0;
	memset(&any, 0, sizeof(any));
	any.sa.sa_family = (sa_family_t)ep->family;
	return do_bind(ep, &any);
}

int
dpsock_bind(struct dpsock *ep, const struct sockaddr *addr, socklen_t len)
{
	union dpsock_addr a;
	int rc;

	if (ep == NULL)
		return -EINVAL;
	rc = ep_enter(ep);
	if (rc < 0)
		return rc;
	if (ep->bound)
		return -EINVAL;
	rc = addr_take(ep, addr, len, &a);
	if (rc < 0)
		return -EINVAL;
	return do_bind(ep, &a);
}

int
dpsock_getsockname(struct dpsock *ep, struct sockaddr *addr, socklen_t *len)
{
	if (ep == NULL || !ep->bound || len == NULL)
		return -EINVAL;
	addr_give(&ep->local, addr, len);
	return 0;
}

uint64_t
dpsock_tsc_hz(const struct dpsock *ep)
{
	return ep != NULL ? ep->tsc_hz : 0;
}

/* ---- routes ---- */

/* Ask dpfwd where @p dest is; fill @p rt. @return 0 or -errno. */
static int
route_resolve(struct dpsock *ep, const union dpsock_addr *dest, struct route *rt)
{
	struct dpsock_ctl req, rep;
	struct dpsock_chan *ch;
	union dpsock_addr peer;
	unsigned int nfds;
	int fds[2], rc;

	dpsock_ctl_init(&req, DPSOCK_OP_RESOLVE);
	memcpy(&req.addr, dest, addr_len(ep->family));
	rc = ctl_request(ep, &req, -1, &rep, fds, &nfds);
	if (rc < 0)
		return rc;
	rt->dest = *dest;
	if (rep.rc < 0 || rep.rc == DPSOCK_ROUTE_REMOTE) {
		fds_close(fds, nfds);
		if (rep.rc < 0)
			return rep.rc;
		rt->state = ROUTE_REMOTE;
		rt->expires = rte_rdtsc() + ep->tsc_hz * DPSOCK_REMOTE_TTL_MS / 1000;
		return 0;
	}
	if (rep.rc != DPSOCK_ROUTE_LOCAL) {
		fds_close(fds, nfds);
		return -EPROTO;
	}
	/* a pair dpfwd already joined (the peer asked first): the channel we have */
	ch = chan_by_id(ep, rep.chan);
	if (ch != NULL) {
		fds_close(fds, nfds);
		if (chan_dead(ch))
			return -ECONNREFUSED;
	} else {
		if (nfds != 2) {
			fds_close(fds, nfds);
			return -EPROTO;
		}
		/* what its datagrams say they come from: the address we reached it at */
		peer = *dest;
		ch = chan_map(ep, rep.chan, rep.side != 0, fds[0], rep.size, fds[1], &peer);
		if (ch == NULL)
			return -ENOMEM;
	}
	rt->state = ROUTE_LOCAL;
	rt->slot = ch->slot;
	return 0;
}

/*
 * Where a datagram to @p dest goes: the connected route, the cache, a channel
 * whose peer is @p dest, or dpfwd's answer. @return the route (in @p out) or
 * -ECONNREFUSED (once, after its channel went), -ENOTCONN, -ENOMEM.
 */
static int
route_get(struct dpsock *ep, const union dpsock_addr *dest, struct route **out)
{
	struct route *rt = NULL;
	unsigned int i;
	int rc;

	if (ep->connected && addr_eq(dest, &ep->conn.dest)) {
		rt = &ep->conn;
	} else {
		for (i = 0; i < DPSOCK_ROUTES; i++)
			if (ep->routes[i].state != ROUTE_EMPTY &&
				addr_eq(dest, &ep->routes[i].dest)) {
				rt = &ep->routes[i];
				break;
			}
	}
	if (rt != NULL && rt->state == ROUTE_LOCAL &&
		(ep->chans[rt->slot] == NULL || chan_dead(ep->chans[rt->slot])))
		routes_refuse(ep, rt->slot);
	if (rt != NULL && rt->state == ROUTE_REMOTE && rte_rdtsc() >= rt->expires)
		rt->state = ROUTE_EMPTY;
	if (rt != NULL && rt->state == ROUTE_REFUSED) {
		rt->state = ROUTE_EMPTY;
		return -ECONNREFUSED;
	}
	if (rt != NULL && rt->state != ROUTE_EMPTY) {
		*out = rt;
		return 0;
	}
	if (rt == NULL) {
		rt = &ep->routes[ep->route_next];
		ep->route_next = (ep->route_next + 1) % DPSOCK_ROUTES;
		memset(rt, 0, sizeof(*rt));
	}
	/* a peer that opened a channel to us: answer on it */
	for (i = 0; i < ep->nb_slots; i++) {
		struct dpsock_chan *ch = ep->chans[i];

		if (ch != NULL && !chan_dead(ch) && addr_eq(dest, &ch->peer)) {
			rt->dest = *dest;
			rt->state = ROUTE_LOCAL;
			rt->slot = ch->slot;
			*out = rt;
			return 0;
		}
	}
	rc = route_resolve(ep, dest, rt);
	if (rc < 0) {
		rt->state = ROUTE_EMPTY;
		return rc;
	}
	*out = rt;
	return 0;
}

/*
 * A send found the channel of @p dest gone: every route through it refuses
 * once, this one now; the next send to @p dest resolves again.
 */
static int
route_refused(struct dpsock *ep, struct dpsock_chan *ch, const union dpsock_addr *dest)
{
	struct route *rt;

	routes_refuse(ep, ch->slot);
	/* route_get() takes the refusal and forgets the route */
	return route_get(ep, dest, &rt);
}

int
dpsock_connect(struct dpsock *ep, const struct sockaddr *addr, socklen_t len)
{
	union dpsock_addr a;
	struct route *rt;
	int rc;

	if (ep == NULL)
		return -EINVAL;
	rc = ep_enter(ep);
	if (rc < 0)
		return rc;
	rc = addr_take(ep, addr, len, &a);
	if (rc < 0)
		return rc;
	rc = bound_ensure(ep);
	if (rc < 0)
		return rc;
	ep->connected = false;
	memset(&ep->conn, 0, sizeof(ep->conn));
	rc = route_get(ep, &a, &rt);
	if (rc < 0)
		return rc;
	ep->conn = *rt;
	ep->connected = true;
	return 0;
}

/* ---- sending ---- */

/* The pipe a route sends on, and its channel (NULL: pipe 0 of the endpoint). */
static struct pipe_view *
route_pipe(struct dpsock *ep, const struct route *rt, struct dpsock_chan **chp)
{
	/* a local route's channel is there until routes_refuse() turns the route */
	struct dpsock_chan *ch = rt->state == ROUTE_LOCAL ? ep->chans[rt->slot] : NULL;

	if (ch != NULL) {
		*chp = ch;
		return &ch->tx;
	}
	*chp = NULL;
	return &ep->tx;
}

/* @p remote: sent through dpfwd (pipe 0) as UDP, whose datagrams have a limit of their own */
static int
size_check(const struct dpsock *ep, const struct pipe_view *pv, bool remote, size_t len)
{
	if (remote && len > (ep->family == AF_INET ? DPSOCK_UDP4_MAX : DPSOCK_UDP6_MAX))
		return -EMSGSIZE;
	return dpsock_pipe_class_for(&pv->geo, len);
}

/*
 * Up to @p n free buffers of class @p cls. Waits for one unless @p nonblock:
 * spinning, then short naps, while the peer and dpfwd are still there.
 * @return how many, or -EAGAIN, -ECONNREFUSED (the channel went), -ENOTCONN.
 */
static int
bufs_get(struct dpsock *ep, struct pipe_view *pv, struct dpsock_chan *ch, unsigned int cls,
	uint64_t *offs, unsigned int n, bool nonblock)
{
	uint64_t start = 0;
	unsigned int got;

	for (;;) {
		if (ch != NULL && chan_dead(ch))
			return -ECONNREFUSED;
		got = view_alloc(pv, cls, offs, n);
		if (got > 0) {
			if (start != 0) /* waited: the send's stamp is now */
				ep->now = rte_rdtsc();
			return (int)got;
		}
		if (start == 0) {
			ep->st.tx_again++;
			if (nonblock)
				return -EAGAIN;
			start = rte_rdtsc();
		}
		if (rte_rdtsc() - start < ep->spin_cycles) {
			rte_pause();
			continue;
		}
		nap_us(DPSOCK_TX_NAP_US);
		ep->next_live = 0; /* look at the control socket: is dpfwd still there? */
		if (ep_enter(ep) < 0)
			return -ENOTCONN;
	}
}

static void
peer_wake(struct dpsock *ep, struct dpsock_chan *ch)
{
	if (ch != NULL && dpsock_pipe_wake_needed(ch->tx.shared)) {
		efd_write(ch->peer_efd);
		ep->st.wakeups++;
	}
}

static bool
nonblocking(const struct dpsock *ep, int flags)
{
	return (ep->flags & DPSOCK_NONBLOCK) != 0 || (flags & MSG_DONTWAIT) != 0;
}

/* The destination of a send: @p to, or the connected peer. */
static int
dest_get(struct dpsock *ep, const struct sockaddr *to, socklen_t tolen, union dpsock_addr *dest)
{
	if (to == NULL) {
		if (!ep->connected)
			return -EDESTADDRREQ;
		*dest = ep->conn.dest;
		return 0;
	}
	return addr_take(ep, to, tolen, dest);
}

/* Everything a send needs before it takes a buffer. */
static int
send_prepare(struct dpsock *ep, const struct sockaddr *to, socklen_t tolen, size_t len,
	union dpsock_addr *dest, struct pipe_view **pvp, struct dpsock_chan **chp)
{
	struct route *rt;
	int rc;

	rc = ep_enter(ep);
	if (rc < 0)
		return rc;
	rc = dest_get(ep, to, tolen, dest);
	if (rc < 0)
		return rc;
	rc = bound_ensure(ep);
	if (rc < 0)
		return rc;
	rc = route_get(ep, dest, &rt);
	if (rc < 0)
		return rc;
	*pvp = route_pipe(ep, rt, chp);
	rc = size_check(ep, *pvp, *chp == NULL, len);
	return rc < 0 ? -EMSGSIZE : rc;
}

ssize_t
dpsock_sendto(struct dpsock *ep, const void *buf, size_t len, int flags, const struct sockaddr *to,
	socklen_t tolen)
{
	union dpsock_addr dest;
	struct dpsock_chan *ch;
	struct pipe_view *pv;
	struct dpsock_msg *m;
	uint64_t off;
	int cls, rc;

	if (ep == NULL || (buf == NULL && len > 0))
		return -EINVAL;
	cls = send_prepare(ep, to, tolen, len, &dest, &pv, &ch);
	if (cls < 0)
		return cls;
	rc = bufs_get(ep, pv, ch, (unsigned int)cls, &off, 1, nonblocking(ep, flags));
	if (rc == -ECONNREFUSED && ch != NULL) /* only a channel goes away */
		return route_refused(ep, ch, &dest);
	if (rc < 0)
		return rc;
	m = dpsock_buf(pv->region, off);
	if (len > 0) /* buf may be NULL then */
		memcpy(dpsock_msg_data(m), buf, len);
	m->len = (uint32_t)len;
	m->tsc = ep->now; /* send_prepare() began with ep_enter() */
	memcpy(&m->peer, &dest, addr_len(ep->family));
	m->flags = 0;
	view_send(pv, &off, 1);
	peer_wake(ep, ch);
	ep->st.tx_msgs++;
	ep->st.tx_bytes += len;
	return (ssize_t)len;
}

ssize_t
dpsock_send(struct dpsock *ep, const void *buf, size_t len, int flags)
{
	return dpsock_sendto(ep, buf, len, flags, NULL, 0);
}

int
dpsock_msg_alloc(struct dpsock *ep, const struct sockaddr *to, socklen_t tolen, size_t size,
	struct dpsock_msg **msgs, unsigned int n)
{
	uint64_t offs[DPSOCK_BURST];
	union dpsock_addr dest;
	struct dpsock_chan *ch;
	struct pipe_view *pv;
	int cls, rc, i;

	if (ep == NULL || msgs == NULL || n == 0)
		return -EINVAL;
	cls = send_prepare(ep, to, tolen, size, &dest, &pv, &ch);
	if (cls < 0)
		return cls;
	rc = bufs_get(ep, pv, ch, (unsigned int)cls, offs, n < DPSOCK_BURST ? n : DPSOCK_BURST,
		(ep->flags & DPSOCK_NONBLOCK) != 0);
	if (rc == -ECONNREFUSED && ch != NULL) /* only a channel goes away */
		return route_refused(ep, ch, &dest);
	if (rc < 0)
		return rc;
	for (i = 0; i < rc; i++) {
		struct dpsock_msg *m = dpsock_buf(pv->region, offs[i]);

		m->len = 0;
		m->cap = pv->geo.cls[cls].cap;
		m->chan = ch != NULL ? (uint16_t)(ch->slot + 1) : 0;
		m->flags = DPSOCK_MF_TX;
		memcpy(&m->peer, &dest, addr_len(ep->family));
		msgs[i] = m;
	}
	if (ch != NULL)
		ch->held += (uint32_t)rc;
	return rc;
}

/* Is @p m in region @p s (0: the endpoint's, i + 1: chans[i])? Its pipe when it is a buffer there.
 */
static struct pipe_view *
locate_in(struct dpsock *ep, unsigned int s, const struct dpsock_msg *m, struct dpsock_chan **chp,
	uint64_t *offp, bool *inside)
{
	struct dpsock_chan *ch = NULL;
	struct pipe_view *tx, *rx;
	uintptr_t base;
	size_t size;
	uint32_t slot;

	*inside = false;
	if (s == 0) {
		if (ep->region == NULL)
			return NULL;
		base = (uintptr_t)ep->region;
		size = ep->size;
		tx = &ep->tx;
		rx = &ep->rx;
	} else {
		if (s - 1 >= ep->nb_slots || ep->chans[s - 1] == NULL)
			return NULL;
		ch = ep->chans[s - 1];
		base = (uintptr_t)ch->region;
		size = ch->size;
		tx = &ch->tx;
		rx = &ch->rx;
	}
	if ((uintptr_t)m < base || (uintptr_t)m - base >= size)
		return NULL;
	*inside = true;
	*chp = ch;
	*offp = (uintptr_t)m - base;
	if (dpsock_pipe_buf_check(&tx->geo, *offp, &slot) >= 0)
		return tx;
	if (dpsock_pipe_buf_check(&rx->geo, *offp, &slot) >= 0)
		return rx;
	return NULL;
}

/*
 * Which pipe of ours @p m is a buffer of, by its address: msg->chan is only
 * a hint (the memory it sits in can be written by a channel's peer).
 * @return the pipe, its channel in @p chp (NULL: the endpoint region) and the
 *         offset in @p offp; NULL when @p m is not one of our buffers.
 */
static struct pipe_view *
msg_locate(struct dpsock *ep, const struct dpsock_msg *m, struct dpsock_chan **chp, uint64_t *offp)
{
	unsigned int hint = m->chan, s;
	struct pipe_view *pv;
	bool inside;

	pv = locate_in(ep, hint, m, chp, offp, &inside);
	if (inside)
		return pv;
	for (s = 0; s <= ep->nb_slots; s++) {
		if (s == hint)
			continue;
		pv = locate_in(ep, s, m, chp, offp, &inside);
		if (inside)
			return pv;
	}
	return NULL;
}

int
dpsock_send_burst(struct dpsock *ep, struct dpsock_msg **msgs, unsigned int n)
{
	unsigned int i, j;
	int rc;

	if (ep == NULL || (msgs == NULL && n > 0))
		return -EINVAL;
	rc = ep_enter(ep);
	if (rc < 0)
		return rc;
	/* all or nothing: check every one before the first goes */
	for (i = 0; i < n; i++) {
		struct dpsock_chan *ch;
		struct pipe_view *pv;
		uint64_t off;

		pv = msg_locate(ep, msgs[i], &ch, &off);
		if (pv == NULL || (ch != NULL ? pv != &ch->tx : pv != &ep->tx) ||
			msgs[i]->flags != DPSOCK_MF_TX ||
			msgs[i]->len > pv->geo.cls[dpsock_pipe_buf_class(&pv->geo, off)].cap)
			return -EINVAL;
		if (ch == NULL &&
			msgs[i]->len > (ep->family == AF_INET ? DPSOCK_UDP4_MAX : DPSOCK_UDP6_MAX))
			return -EINVAL;
	}
	for (i = 0; i < n; i = j) {
		uint64_t offs[DPSOCK_BURST];
		struct dpsock_chan *ch, *ch2;
		struct pipe_view *pv;
		const uint64_t tsc = ep->now; /* from ep_enter() above */
		unsigned int k = 0;

		pv = msg_locate(ep, msgs[i], &ch, &offs[k++]);
		for (j = i + 1; j < n && k < DPSOCK_BURST; j++)
			if (msg_locate(ep, msgs[j], &ch2, &offs[k]) != pv)
				break;
			else
				k++;
		for (k = 0; k < j - i; k++) {
			msgs[i + k]->flags = 0;
			msgs[i + k]->tsc = tsc;
			ep->st.tx_bytes += msgs[i + k]->len;
		}
		ep->st.tx_msgs += k;
		if (ch != NULL && chan_dead(ch)) {
			/* to a peer that went: lost, as datagrams to a closed port are */
			for (k = 0; k < j - i; k++)
				view_unalloc(pv, offs[k]);
			ch->held -= j - i;
			routes_refuse(ep, ch->slot);
			chan_reap(ep, ch);
			continue;
		}
		view_send(pv, offs, j - i);
		if (ch != NULL) {
			ch->held -= j - i;
			peer_wake(ep, ch);
		}
	}
	return (int)n;
}

/* ---- receiving ---- */

static struct pipe_view *
source_view(struct dpsock *ep, unsigned int s, struct dpsock_chan **chp)
{
	if (s == 0) {
		*chp = NULL;
		return &ep->rx;
	}
	*chp = ep->chans[s - 1];
	return *chp != NULL ? &(*chp)->rx : NULL;
}

/* dpsock_recvfrom()'s destination: the datagram is copied out, its buffer given back. */
struct rx_copy {
	void *buf;
	size_t len;
	uint32_t got; /* the datagram's length */
	union dpsock_addr peer;
};

/*
 * Up to @p n datagrams from source @p s, checked; connected filtering applied.
 * Lent in place (@p out), or with @p cp one copied out and its buffer given
 * back at once: then nothing is written into the sender's buffer, whose cache
 * lines stay shared instead of moving to this core and back.
 */
static unsigned int
source_recv(struct dpsock *ep, unsigned int s, struct dpsock_msg **out, unsigned int n,
	struct rx_copy *cp)
{
	uint64_t offs[DPSOCK_BURST], drop[DPSOCK_BURST];
	unsigned int got = 0, nb_drop = 0, k, i;
	const union dpsock_addr *peer;
	struct dpsock_chan *ch;
	uint32_t len;
	struct pipe_view *pv = source_view(ep, s, &ch);

	if (pv == NULL)
		return 0;
	if (cp != NULL && ch != NULL && pv->geo.data_kind == DPSOCK_DATA_SEQ) {
		/* a channel's pipe: a small datagram is copied from its slot */
		const struct dpsock_seq_slot *sl = dpsock_seq_peek(&pv->seq);
		uint32_t slot;

		if (sl == NULL)
			goto done;
		len = __atomic_load_n(&sl->len, __ATOMIC_RELAXED); /* read once: the peer's */
		if (len <= DPSOCK_SEQ_INLINE) {
			const uint64_t off = sl->off;

			/* taken; the slot stays as it is while we hold its buffer */
			dpsock_seq_skip(&pv->seq);
			if (dpsock_pipe_buf_check(&pv->geo, off, &slot) < 0)
				goto done; /* not a buffer of this pipe: never touched */
			if (ep->connected && !addr_eq(&ch->peer, &ep->conn.dest)) {
				dpsock_pipe_release(pv->region, &pv->geo, &off, 1);
				goto done;
			}
			memcpy(cp->buf, sl->data, len < cp->len ? len : cp->len);
			cp->got = len;
			memcpy(&cp->peer, &ch->peer, sizeof(cp->peer));
			view_release(pv, off);
			got = 1;
			goto done;
		}
	}
	k = view_recv(pv, offs, n < DPSOCK_BURST ? n : DPSOCK_BURST);
	for (i = 0; i < k; i++) {
		struct dpsock_msg *m;
		uint32_t slot;
		int cls = dpsock_pipe_buf_check(&pv->geo, offs[i], &slot);

		if (cls < 0)
			continue; /* not a buffer of this pipe: never touched */
		m = dpsock_buf(pv->region, offs[i]);
		/* a local peer is known by its channel, whatever its buffer says */
		peer = ch != NULL ? &ch->peer : (const union dpsock_addr *)&m->peer;
		if (ep->connected && !addr_eq(peer, &ep->conn.dest)) {
			drop[nb_drop++] = offs[i];
			continue;
		}
		len = m->len < pv->geo.cls[cls].cap ? m->len : pv->geo.cls[cls].cap;
		if (cp != NULL) {
			memcpy(cp->buf, dpsock_msg_data(m), len < cp->len ? len : cp->len);
			cp->got = len;
			memcpy(&cp->peer, peer, sizeof(cp->peer));
			view_release(pv, offs[i]);
			got++;
			continue;
		}
		m->len = len;
		if (ch != NULL)
			memcpy(&m->peer, &ch->peer, sizeof(m->peer));
		m->chan = (uint16_t)s;
		m->flags = DPSOCK_MF_RX;
		out[got++] = m;
	}
	if (nb_drop > 0)
		dpsock_pipe_release(pv->region, &pv->geo, drop, nb_drop);
done:
	if (ch != NULL) {
		if (cp == NULL)
			ch->held += got;
		if (got == 0 && chan_dead(ch))
			chan_reap(ep, ch);
	}
	return got;
}

/* Every source once, round robin from where the last call stopped. */
static unsigned int
sources_poll(struct dpsock *ep, struct dpsock_msg **out, unsigned int n, struct rx_copy *cp)
{
	unsigned int nb_src = ep->nb_slots + 1, got = 0, i;
	unsigned int s = ep->rr < nb_src ? ep->rr : 0;

	/* a compare, not a modulo: divisions are slow next to a small message's trip */
	for (i = 0; i < nb_src && got < n; i++) {
		got += source_recv(ep, s, cp != NULL ? NULL : out + got, n - got, cp);
		if (++s == nb_src)
			s = 0;
	}
	ep->rr = ep->rr + 1 < nb_src ? ep->rr + 1 : 0;
	return got;
}

static bool
sources_pending(struct dpsock *ep)
{
	unsigned int i;

	if (view_pending(&ep->rx))
		return true;
	for (i = 0; i < ep->nb_slots; i++)
		if (ep->chans[i] != NULL && view_pending(&ep->chans[i]->rx))
			return true;
	return false;
}

/* @p fn on every inbound pipe: the endpoint's own, then its channels'. */
static void
sources_each(struct dpsock *ep, void (*fn)(struct pipe_view *pv))
{
	unsigned int i;

	fn(&ep->rx);
	for (i = 0; i < ep->nb_slots; i++)
		if (ep->chans[i] != NULL)
			fn(&ep->chans[i]->rx);
}

static void
sources_wake_off(struct dpsock *ep)
{
	sources_each(ep, view_wake_off);
}

/* Give back every batch of read buffers in hand. */
static void
sources_release_flush(struct dpsock *ep)
{
	sources_each(ep, view_release_flush);
}

/* Announce sleep on every inbound pipe. @return false (flags withdrawn) when data came. */
static bool
sources_arm(struct dpsock *ep)
{
	unsigned int i;

	sources_release_flush(ep); /* a sleeper holds none of its producers' buffers */
	if (!view_sleep_prepare(&ep->rx))
		return false;
	for (i = 0; i < ep->nb_slots; i++)
		if (ep->chans[i] != NULL && !view_sleep_prepare(&ep->chans[i]->rx)) {
			sources_wake_off(ep);
			return false;
		}
	return true;
}

/*
 * Wait until something may be readable: spin, then sleep on the eventfd and
 * the control socket (a new channel, or dpfwd's death). @return 0 or -ENOTCONN.
 */
static int
ep_wait(struct dpsock *ep)
{
	uint64_t start = rte_rdtsc();
	struct pollfd p[2];

	while (rte_rdtsc() - start < ep->spin_cycles) {
		if (sources_pending(ep) ||
			__atomic_load_n(&ep->hdr->ctl_seq, __ATOMIC_RELAXED) != ep->ctl_seq)
			return 0;
		rte_pause();
	}
	if (!sources_arm(ep))
		return 0;
	ep->st.sleeps++;
	p[0] = (struct pollfd){ .fd = ep->efd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = ep->ctl, .events = POLLIN };
	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	if ((p[0].revents & POLLIN) != 0)
		efd_drain(ep->efd);
	/* a producer that finds a flag set makes a useless eventfd write */
	sources_wake_off(ep);
	if ((p[1].revents & POLLIN) != 0)
		ctl_drain(ep);
	if ((p[1].revents & (POLLHUP | POLLERR)) != 0)
		ep->dead = true;
	return ep_enter(ep);
}

/*
 * A look found nothing: after a while idle the producers get their buffers back. The
 * clock is read at the first empty look in a row, then every DPSOCK_CALLS_PER_CLOCK.
 */
static void
idle_note(struct dpsock *ep)
{
	if (ep->idle_since == 0) {
		ep->idle_since = rte_rdtsc();
		ep->idle_looks = 0;
	} else if (++ep->idle_looks % DPSOCK_CALLS_PER_CLOCK == 0 &&
		   rte_rdtsc() - ep->idle_since > ep->tsc_hz / 1000000 * DPSOCK_REL_IDLE_US) {
		sources_release_flush(ep);
	}
}

/* Lend up to @p n datagrams in @p msgs, or copy one to @p cp (then @p msgs is NULL, @p n 1). */
static int
recv_some(
	struct dpsock *ep, struct dpsock_msg **msgs, unsigned int n, int flags, struct rx_copy *cp)
{
	int rc;

	for (;;) {
		unsigned int got;

		rc = ep_enter_light(ep);
		if (rc < 0)
			return rc;
		if (!ep->bound)
			return -EINVAL;
		got = sources_poll(ep, msgs, n, cp);
		if (got == 0) {
			idle_note(ep);
		} else {
			unsigned int i;

			ep->idle_since = 0;
			ep->st.rx_msgs += got;
			if (cp != NULL)
				ep->st.rx_bytes += cp->got;
			else
				for (i = 0; i < got; i++)
					ep->st.rx_bytes += msgs[i]->len;
			return (int)got;
		}
		if (nonblocking(ep, flags))
			return -EAGAIN;
		rc = ep_wait(ep);
		if (rc < 0)
			return rc;
	}
}

int
dpsock_recv_burst(struct dpsock *ep, struct dpsock_msg **msgs, unsigned int n, int flags)
{
	if (ep == NULL || msgs == NULL || n == 0)
		return -EINVAL;
	return recv_some(ep, msgs, n, flags, NULL);
}

void
dpsock_msg_free(struct dpsock *ep, struct dpsock_msg **msgs, unsigned int n)
{
	unsigned int i;

	if (ep == NULL || msgs == NULL)
		return;
	for (i = 0; i < n; i++) {
		struct dpsock_msg *m = msgs[i];
		struct dpsock_chan *ch;
		struct pipe_view *pv;
		uint64_t off;
		bool tx;

		if (m == NULL)
			continue;
		pv = msg_locate(ep, m, &ch, &off);
		if (pv == NULL)
			continue; /* not ours: ignored rather than corrupting a ring */
		tx = ch != NULL ? pv == &ch->tx : pv == &ep->tx;
		if (m->flags != (tx ? DPSOCK_MF_TX : DPSOCK_MF_RX))
			continue; /* freed twice, or never given out */
		m->flags = 0;
		if (tx)
			view_unalloc(pv, off);
		else
			view_release(pv, off);
		if (ch != NULL) {
			ch->held--;
			if (ch->gone)
				chan_reap(ep, ch);
		}
	}
}

ssize_t
dpsock_recvfrom(struct dpsock *ep, void *buf, size_t len, int flags, struct sockaddr *from,
	socklen_t *fromlen)
{
	struct rx_copy cp = { .buf = buf, .len = len };
	int rc;

	if (ep == NULL || (buf == NULL && len > 0))
		return -EINVAL;
	rc = recv_some(ep, NULL, 1, flags, &cp);
	if (rc < 0)
		return rc;
	if (fromlen != NULL)
		addr_give(&cp.peer, from, fromlen);
	return (ssize_t)cp.got;
}

ssize_t
dpsock_recv(struct dpsock *ep, void *buf, size_t len, int flags)
{
	return dpsock_recvfrom(ep, buf, len, flags, NULL, NULL);
}

int
dpsock_readable(struct dpsock *ep)
{
	int rc;

	if (ep == NULL)
		return -EINVAL;
	rc = ep_enter_light(ep);
	if (rc < 0)
		return rc;
	if (!ep->bound)
		return -EINVAL;
	if (sources_pending(ep))
		return 1;
	idle_note(ep);
	return 0;
}

int
dpsock_stats_get(const struct dpsock *ep, struct dpsock_stats *st)
{
	if (ep == NULL || st == NULL)
		return -EINVAL;
	*st = ep->st;
	st->channels = ep->nb_chans;
	if (ep->rx.shared != NULL)
		st->rx_dropped = ep->rx.shared->dropped;
	return 0;
}

int
dpsock_wake(struct dpsock *ep)
{
	if (ep == NULL)
		return -EINVAL;
	efd_write(ep->efd);
	return 0;
}

int
dpsock_flush(struct dpsock *ep)
{
	struct dpsock_held *h;
	unsigned int i, c;

	if (ep == NULL)
		return -EINVAL;
	if (ep->turn == NULL || __atomic_load_n(ep->turn, __ATOMIC_RELAXED) !=
					(uint32_t)__atomic_load_n(&dpsock_self, __ATOMIC_RELAXED))
		return 0;
	if (ep->rx.h != NULL)
		view_release_flush(&ep->rx);
	for (i = 0; i < ep->nb_slots; i++)
		if (ep->chans[i] != NULL)
			view_release_flush(&ep->chans[i]->rx);
	/* pipe 0's free rings take several producers (dpfwd's workers give buffers back);
	 * a channel's have one, the peer, so what a channel's stash holds stays there */
	h = ep->tx.h;
	for (c = 0; h != NULL && c < DPSOCK_NB_CLASSES; c++) {
		dpsock_pipe_release(
			ep->region, &ep->tx.geo, view_stash(&ep->tx, c), h->nb_stash[c]);
		h->nb_stash[c] = 0;
	}
	return 1;
}

void
dpsock_close(struct dpsock *ep)
{
	unsigned int i;

	if (ep == NULL)
		return;
	if (ep->evq != NULL)
		dpsock_evq_del(ep->evq, ep);
	/* dpfwd sees the EOF and takes back the port, the region and the channels */
	close(ep->ctl);
	for (i = 0; i < ep->nb_slots; i++)
		if (ep->chans[i] != NULL)
			chan_unmap(ep, ep->chans[i]);
	free(ep->chans);
	view_fini(&ep->tx);
	view_fini(&ep->rx);
	if (ep->region != NULL)
		munmap(ep->region, ep->size);
	close(ep->efd);
	free(ep);
}

/* ---- event queue ---- */

struct dpsock_evq *
dpsock_evq_create(unsigned int spin_us)
{
	struct dpsock_evq *q = calloc(1, sizeof(*q));

	if (q == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	q->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (q->epfd < 0) {
		int e = errno;

		free(q);
		errno = e;
		return NULL;
	}
	q->spin_us = spin_us != 0 ? spin_us : spin_us_env();
	return q;
}

int
dpsock_evq_add(struct dpsock_evq *q, struct dpsock *ep, uint32_t events, void *udata)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (q == NULL || ep == NULL || (events & ~DPSOCK_EV_IN) != 0)
		return -EINVAL;
	if (ep->evq == q)
		return -EEXIST;
	if (ep->evq != NULL)
		return -EINVAL;
	if (q->nb == q->cap) {
		unsigned int cap = q->cap ? q->cap * 2 : 16;
		struct dpsock **p = realloc(q->eps, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		q->eps = p;
		q->cap = cap;
	}
	ev.data.ptr = &ep->evi[0];
	if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, ep->efd, &ev) < 0)
		return -errno;
	ev.data.ptr = &ep->evi[1];
	if (!ep->dead && epoll_ctl(q->epfd, EPOLL_CTL_ADD, ep->ctl, &ev) < 0) {
		int rc = -errno;

		epoll_ctl(q->epfd, EPOLL_CTL_DEL, ep->efd, NULL);
		return rc;
	}
	q->eps[q->nb++] = ep;
	ep->evq = q;
	ep->udata = udata;
	return 0;
}

int
dpsock_evq_del(struct dpsock_evq *q, struct dpsock *ep)
{
	unsigned int i;

	if (q == NULL || ep == NULL || ep->evq != q)
		return -ENOENT;
	for (i = 0; i < q->nb && q->eps[i] != ep; i++)
		;
	if (i == q->nb)
		return -ENOENT;
	q->eps[i] = q->eps[--q->nb];
	epoll_ctl(q->epfd, EPOLL_CTL_DEL, ep->efd, NULL);
	epoll_ctl(q->epfd, EPOLL_CTL_DEL, ep->ctl, NULL);
	if (ep->bound)
		sources_wake_off(ep);
	ep->evq = NULL;
	return 0;
}

/* After a sleep (or with the queue's fd readable): read what woke us, take the flags down. */
static void
evq_disarm(struct dpsock_evq *q)
{
	struct epoll_event evs[64];
	unsigned int i;
	int n, k;

	n = epoll_wait(q->epfd, evs, 64, 0);
	/* the flags down first: a channel that a control message below maps is not armed */
	for (i = 0; i < q->nb; i++)
		if (q->eps[i]->bound)
			sources_wake_off(q->eps[i]);
	for (k = 0; k < n; k++) {
		struct evq_item *it = evs[k].data.ptr;

		if (!it->ctl) {
			efd_drain(it->ep->efd);
			continue;
		}
		ctl_drain(it->ep);
		if ((evs[k].events & (EPOLLHUP | EPOLLERR)) != 0)
			it->ep->dead = true;
		if (it->ep->dead)
			/* else it would poll readable for ever; a dead endpoint is reported anyway
			 */
			epoll_ctl(q->epfd, EPOLL_CTL_DEL, it->ep->ctl, NULL);
	}
	q->armed = false;
}

/* Ready endpoints (something to read, or dpfwd gone: the read says so), round robin. */
static int
evq_scan(struct dpsock_evq *q, struct dpsock_event *ev, int max)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < q->nb && n < max; i++) {
		struct dpsock *ep = q->eps[(q->rr + i) % q->nb];
		bool ready = ep_enter_light(ep) < 0 || (ep->bound && sources_pending(ep));

		if (!ready)
			continue;
		ev[n].ep = ep;
		ev[n].events = DPSOCK_EV_IN;
		ev[n].udata = ep->udata;
		n++;
	}
	if (q->nb > 0)
		q->rr = (q->rr + 1) % q->nb;
	return n;
}

/* Arm every endpoint. @return false (all withdrawn) when one has data meanwhile. */
static bool
evq_arm(struct dpsock_evq *q)
{
	unsigned int i;

	for (i = 0; i < q->nb; i++) {
		struct dpsock *ep = q->eps[i];

		if (ep->bound && !sources_arm(ep)) {
			while (i-- > 0)
				if (q->eps[i]->bound)
					sources_wake_off(q->eps[i]);
			return false;
		}
	}
	q->armed = true;
	return true;
}

int
dpsock_evq_wait(struct dpsock_evq *q, struct dpsock_event *ev, int max, int timeout_ms)
{
	uint64_t t0, spin_end;

	if (q == NULL || ev == NULL || max <= 0)
		return -EINVAL;
	t0 = mono_ns();
	spin_end = t0 + q->spin_us * 1000;
	for (;;) {
		struct epoll_event evs[1];
		int n, wait_ms = -1;

		if (q->armed)
			evq_disarm(q);
		n = evq_scan(q, ev, max);
		if (n > 0)
			return n;
		if (timeout_ms != 0 && mono_ns() < spin_end) {
			rte_pause();
			continue;
		}
		if (!evq_arm(q))
			continue;
		if (timeout_ms == 0)
			return 0;
		if (timeout_ms > 0) {
			uint64_t spent = (mono_ns() - t0) / 1000000;

			if (spent >= (uint64_t)timeout_ms)
				return 0;
			wait_ms = timeout_ms - (int)spent;
		}
		for (n = 0; n < (int)q->nb; n++)
			q->eps[n]->st.sleeps++;
		n = epoll_wait(q->epfd, evs, 1, wait_ms);
		if (n < 0)
			return errno == EINTR ? -EINTR : -errno;
		if (n == 0 && timeout_ms > 0)
			return 0; /* (still armed: the fd wakes the application's own poll) */
	}
}

int
dpsock_evq_fd(const struct dpsock_evq *q)
{
	return q != NULL ? q->epfd : -EINVAL;
}

int
dpsock_evq_disarm(struct dpsock_evq *q)
{
	if (q == NULL)
		return -EINVAL;
	if (q->armed)
		evq_disarm(q);
	return 0;
}

void
dpsock_evq_destroy(struct dpsock_evq *q)
{
	if (q == NULL)
		return;
	while (q->nb > 0)
		dpsock_evq_del(q, q->eps[q->nb - 1]);
	close(q->epfd);
	free(q->eps);
	free(q);
}
