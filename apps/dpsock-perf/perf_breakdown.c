/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --breakdown: what one operation costs, in the spirit of SocksDirect's latency
 * breakdown table, for dpsock and for Linux UDP side by side.
 *
 *   per call     K messages of 8 B sent into an idle receiver, each call timed
 *                (two TSC reads, their own cost subtracted); then the receiver
 *                takes the K queued messages, each call timed. R rounds, median.
 *   one-way      half the ping-pong RTT p50 of 8 B messages
 *   per KB       least-squares slope of one-way time (RTT p50 / 2) over
 *                1K..64K (sizes above the transport's largest left out)
 *   connection   open + bind + the first send (which, for dpsock, asks dpfwd for
 *                the channel to the peer and maps it), median over repetitions;
 *                the peer receives every one (it polls every 20 us, sleeping in
 *                between: a bind waits for dpfwd's worker, which may share its CPU)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "dpsock.h"
#include "perf_breakdown.h"

#define BD_K          32 /* messages per round: below every queue's room */
#define BD_ROUNDS     300
#define BD_SETUP_REPS 50
#define SETUP_POLL_US 20
#define BD_PP_ITERS   2000
#define BD_PP_WARMUP  200

static const size_t slope_sizes[] = { 1024, 2048, 4096, 8192, 16384, 32768, 65536 };

/* the median of timings in ticks (PERF_HIST_SUB_BITS: < 1/128 high), less the clock's cost */
static double
median_ns(const struct dp_hist *ticks)
{
	uint64_t m;

	if (ticks->count == 0)
		return -1;
	m = dp_hist_percentile(ticks, 50000);
	return perf_ticks_ns(m > perf_tick_overhead ? m - perf_tick_overhead : 0);
}

/* ---- per call ---- */

static int
ops_a(struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, void *arg)
{
	const struct perf_transport *t = pt->t;
	struct dp_hist *s = dp_hist_create(PERF_HIST_SUB_BITS);
	uint64_t seq = 0;
	unsigned int r, i;

	(void)arg;
	if (s == NULL)
		return perf_fail(ctl, 0, "out of memory");
	for (r = 0; r < BD_ROUNDS; r++) {
		for (i = 0; i < BD_K; i++) {
			uint64_t t0 = perf_ticks(), t1;
			int rc = t->send(ep, seq, pt->size, 1);

			t1 = perf_ticks();
			if (rc == 1) {
				dp_hist_record(s, t1 - t0);
				seq++;
			} else if (rc != -EAGAIN) {
				dp_hist_free(s);
				return perf_fail(ctl, 0, "%s: send: %s", t->name, strerror(-rc));
			}
		}
		ctl->res[0].sent = seq; /* read by B after the barrier */
		if (perf_barrier(ctl, 0, 100 + 2 * r) < 0 ||
			perf_barrier(ctl, 0, 101 + 2 * r) < 0) {
			dp_hist_free(s);
			return -1;
		}
	}
	ctl->res[0].vals[0] = median_ns(s);
	ctl->res[0].sent = seq;
	dp_hist_free(s);
	return 0;
}

static int
ops_b(struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, void *arg)
{
	const struct perf_transport *t = pt->t;
	struct perf_rx rx = { .size = pt->size, .lossy = t->lossy };
	struct dp_hist *s = dp_hist_create(PERF_HIST_SUB_BITS);
	unsigned int r;

	(void)arg;
	if (s == NULL)
		return perf_fail(ctl, 1, "out of memory");
	for (r = 0; r < BD_ROUNDS; r++) {
		uint64_t want;

		if (perf_barrier(ctl, 1, 100 + 2 * r) < 0)
			goto fail;
		want = __atomic_load_n(&ctl->res[0].sent, __ATOMIC_ACQUIRE);
		while (rx.chk.msgs < want) {
			uint64_t t0 = perf_ticks(), t1;
			int rc = t->recv(ep, &rx, 1);

			t1 = perf_ticks();
			if (rc == 1) {
				dp_hist_record(s, t1 - t0);
			} else if (rc == -EAGAIN) {
				if (t->lossy)
					break; /* the sender's EAGAINs: fewer than K came */
			} else {
				perf_fail(ctl, 1, "%s: receive: %s", t->name, strerror(-rc));
				goto fail;
			}
		}
		if (perf_barrier(ctl, 1, 101 + 2 * r) < 0)
			goto fail;
	}
	ctl->res[1].vals[0] = median_ns(s);
	ctl->res[1].chk = rx.chk;
	dp_hist_free(s);
	return 0;
fail:
	dp_hist_free(s);
	return -1;
}

/* ---- connection set-up ---- */

/* A fresh endpoint: open, bind, the first send to @p to. Its handle in @p h (closed
 * by fresh_close(), after the receiver has the datagram). 0 or -1 (why set). */
struct fresh {
	struct dpsock *ds;
	int fd;
};

static int
fresh_send(struct perf_ep *ep, const struct sockaddr *to, socklen_t tolen, struct fresh *h,
	char *why, size_t whylen)
{
	const struct perf_opts *o = ep->pp->o;
	int rc;

	h->ds = NULL;
	h->fd = -1;
	if (ep->pp->t->dpsock) {
		ssize_t r;

		h->ds = dpsock_open(o->dpsock_path, o->local.ss_family, 0);
		if (h->ds == NULL) {
			snprintf(why, whylen, "dpsock_open: %s", strerror(errno));
			return -1;
		}
		rc = dpsock_bind(h->ds, (const struct sockaddr *)&o->local, o->local_len);
		if (rc < 0) {
			snprintf(why, whylen, "dpsock_bind: %s", strerror(-rc));
			return -1;
		}
		r = dpsock_sendto(h->ds, ep->tx, 8, 0, to, tolen);
		if (r != 8) {
			snprintf(why, whylen, "dpsock_sendto: %s", strerror(r < 0 ? (int)-r : EIO));
			return -1;
		}
		return 0;
	} else {
		struct sockaddr_in a = { .sin_family = AF_INET };

		h->fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (h->fd < 0) {
			snprintf(why, whylen, "socket: %s", strerror(errno));
			return -1;
		}
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(h->fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
			sendto(h->fd, ep->tx, 8, 0, to, tolen) != 8) {
			snprintf(why, whylen, "UDP bind/sendto: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
}

static void
fresh_close(struct fresh *h)
{
	if (h->ds != NULL)
		dpsock_close(h->ds);
	if (h->fd >= 0)
		close(h->fd);
}

static int
setup_a(struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, void *arg)
{
	struct perf_pair *pp = ep->pp;
	struct dp_hist *s = dp_hist_create(PERF_HIST_SUB_BITS);
	uint64_t lost = 0;
	char why[PERF_NOTE_LEN];
	unsigned int i;

	(void)pt;
	(void)arg;
	if (s == NULL)
		return perf_fail(ctl, 0, "out of memory");
	for (i = 0; i < BD_SETUP_REPS; i++) {
		struct fresh h;
		uint64_t t0, wait;
		int rc;

		perf_msg_stamp(ep->tx, 8, i);
		t0 = perf_ticks();
		rc = fresh_send(ep, (const struct sockaddr *)&pp->addr[1], pp->addr_len[1], &h, why,
			sizeof(why));
		dp_hist_record(s, perf_ticks() - t0);
		if (rc < 0) {
			fresh_close(&h);
			dp_hist_free(s);
			return perf_fail(ctl, 0, "%s", why);
		}
		/* closed once B has it: a close may take back what is still in flight */
		wait = perf_ticks() + perf_hz;
		while (__atomic_load_n(&ctl->res[1].rx_msgs, __ATOMIC_ACQUIRE) < i + 1 - lost) {
			if (perf_ticks() > wait) {
				lost++;
				break;
			}
			perf_relax();
		}
		fresh_close(&h);
	}
	ctl->res[0].vals[0] = median_ns(s);
	ctl->res[0].vals[1] = (double)lost;
	dp_hist_free(s);
	return perf_barrier(ctl, 0, 200);
}

static int
setup_b(struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, void *arg)
{
	const struct perf_transport *t = pt->t;
	struct perf_rx rx = { .size = 8, .lossy = true };

	(void)arg;
	while (__atomic_load_n(&ctl->phase[0], __ATOMIC_ACQUIRE) < 200) {
		int rc = t->recv(ep, &rx, 1);

		if (rc < 0 && rc != -EAGAIN)
			return perf_fail(ctl, 1, "%s: receive: %s", t->name, strerror(-rc));
		if (rc == 1)
			__atomic_store_n(&ctl->res[1].rx_msgs, rx.chk.msgs, __ATOMIC_RELEASE);
		if (__atomic_load_n(&ctl->abort, __ATOMIC_ACQUIRE))
			return -1;
		/* polls without spinning: dpfwd's worker may share this CPU, and every
		 * bind of side A waits for it (RCU) */
		if (rc == -EAGAIN)
			usleep(SETUP_POLL_US);
	}
	ctl->res[1].chk = rx.chk;
	return perf_barrier(ctl, 1, 200);
}

/* ---- driver ---- */

static void
base_test(struct perf_test *pt, const struct perf_transport *t, const struct perf_bd_params *bp)
{
	memset(pt, 0, sizeof(*pt));
	pt->t = t;
	pt->block = bp->block_for(t);
	pt->cpu[0] = bp->cpu[0];
	pt->cpu[1] = bp->cpu[1];
	pt->batch = 1;
	pt->timeout_s = 60;
}

static double
oneway_ns(const struct perf_transport *t, size_t size, const struct perf_opts *o,
	const struct perf_bd_params *bp, char *note, size_t notelen)
{
	struct perf_test pt;
	struct perf_cell c;

	base_test(&pt, t, bp);
	pt.size = size;
	pt.warmup = BD_PP_WARMUP;
	pt.iters = bp->quick ? BD_PP_ITERS / 4 : BD_PP_ITERS;
	pt.pp_max_s = 2;
	memset(&c, 0, sizeof(c));
	perf_test_run(&pt, o, &c);
	if (c.status != PERF_OK) {
		if (note[0] == '\0')
			snprintf(note, notelen, "%s %zu B: %.150s", t->name, size, c.note);
		return -1;
	}
	return c.rtt.p50 * 1e3 / 2;
}

static double
slope_ns_per_kb(const struct perf_transport *t, const struct perf_opts *o,
	const struct perf_bd_params *bp, char *note, size_t notelen, size_t *top)
{
	double x[8], y[8], mx = 0, my = 0, sxy = 0, sxx = 0;
	unsigned int i, n = 0;

	for (i = 0; i < sizeof(slope_sizes) / sizeof(slope_sizes[0]); i++) {
		size_t sz = slope_sizes[i];
		double v;

		if (t->max_size(o) != 0 && sz > t->max_size(o))
			continue;
		v = oneway_ns(t, sz, o, bp, note, notelen);
		if (v < 0)
			continue;
		x[n] = (double)sz / 1024;
		y[n] = v;
		*top = sz;
		n++;
	}
	if (n < 2)
		return -1;
	for (i = 0; i < n; i++) {
		mx += x[i] / n;
		my += y[i] / n;
	}
	for (i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
	}
	return sxx > 0 ? sxy / sxx : -1;
}

static void
per_call(const struct perf_transport *t, const struct perf_opts *o, const struct perf_bd_params *bp,
	double *send_ns, double *recv_ns, char *note, size_t notelen)
{
	static struct perf_shared *sh;
	perf_role_fn roles[2] = { ops_a, ops_b };
	struct perf_test pt;
	char why[PERF_NOTE_LEN];

	*send_ns = *recv_ns = -1;
	if (sh == NULL && (sh = perf_shared_alloc()) == NULL)
		return;
	base_test(&pt, t, bp);
	pt.size = 8;
	if (perf_pair_run(&pt, o, roles, NULL, sh, why, sizeof(why)) != PERF_OK) {
		if (note[0] == '\0')
			snprintf(note, notelen, "%s per call: %.150s", t->name, why);
		return;
	}
	*send_ns = sh->ctl.res[0].vals[0];
	*recv_ns = sh->ctl.res[1].vals[0];
}

static double
setup_ns(const struct perf_transport *t, const struct perf_opts *o, const struct perf_bd_params *bp,
	char *note, size_t notelen)
{
	static struct perf_shared *sh;
	perf_role_fn roles[2] = { setup_a, setup_b };
	struct perf_test pt;
	char why[PERF_NOTE_LEN];

	if (sh == NULL && (sh = perf_shared_alloc()) == NULL)
		return -1;
	base_test(&pt, t, bp);
	pt.size = 8;
	pt.block = false; /* B polls: it must see side A finish */
	pt.no_connect = true;
	if (perf_pair_run(&pt, o, roles, NULL, sh, why, sizeof(why)) != PERF_OK) {
		if (note[0] == '\0')
			snprintf(note, notelen, "%s set-up: %.150s", t->name, why);
		return -1;
	}
	return sh->ctl.res[0].vals[0];
}

void
perf_breakdown_run(
	const struct perf_opts *o, const struct perf_bd_params *bp, struct perf_breakdown *bd)
{
	const struct perf_transport *dl = perf_transport_find("dpsock-local");
	const struct perf_transport *zc = perf_transport_find("dpsock-zc");
	const struct perf_transport *udp = perf_transport_find("udp-loopback");
	size_t top_d = 0, top_z = 0, top_u = 0;
	struct perf_bd_row *r = bd->rows;
	double ds, dr, zs, zr, us, ur;
	char *nd = bd->note_dpsock, *nu = bd->note_linux;
	size_t nl = sizeof(bd->note_dpsock);

	memset(bd, 0, sizeof(*bd));
	ds = dr = zs = zr = -1;
	if (bp->dpsock_ok) {
		per_call(dl, o, bp, &ds, &dr, nd, nl);
		per_call(zc, o, bp, &zs, &zr, nd, nl);
	} else {
		snprintf(nd, nl, "%s", bp->dpsock_why);
	}
	per_call(udp, o, bp, &us, &ur, nu, nl);

	r[0] = (struct perf_bd_row){ "send 8 B (copy)", { ds, us } };
	r[1] = (struct perf_bd_row){ "receive 8 B (copy)", { dr, ur } };
	r[2] = (struct perf_bd_row){ "send 8 B zero-copy (alloc+fill+send_burst)", { zs, -1 } };
	r[3] = (struct perf_bd_row){ "receive 8 B zero-copy (recv_burst+free)", { zr, -1 } };
	r[4] = (struct perf_bd_row){ "one-way 8 B (ping-pong p50 / 2)",
		{ bp->dpsock_ok ? oneway_ns(dl, 8, o, bp, nd, nl) : -1,
			oneway_ns(udp, 8, o, bp, nu, nl) } };
	r[5] = (struct perf_bd_row){ "one-way 8 B zero-copy",
		{ bp->dpsock_ok ? oneway_ns(zc, 8, o, bp, nd, nl) : -1, -1 } };
	r[6] = (struct perf_bd_row){ "per KB (slope of one-way, 1K..64K)",
		{ bp->dpsock_ok ? slope_ns_per_kb(dl, o, bp, nd, nl, &top_d) : -1,
			slope_ns_per_kb(udp, o, bp, nu, nl, &top_u) } };
	r[7] = (struct perf_bd_row){ "per KB zero-copy",
		{ bp->dpsock_ok ? slope_ns_per_kb(zc, o, bp, nd, nl, &top_z) : -1, -1 } };
	r[8] = (struct perf_bd_row){ "connection: open + bind + first send",
		{ bp->dpsock_ok ? setup_ns(dl, o, bp, nd, nl) : -1,
			setup_ns(udp, o, bp, nu, nl) } };
	bd->nb_rows = 9;
	bd->slope_top[0] = top_d;
	bd->slope_top[1] = top_u;
	bd->slope_top_zc = top_z;
}
