/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One test, in two forked processes (perf_run.h):
 *
 *   parent                 child A (CPU a)                  child B (CPU b)
 *   pair_init (shared)
 *   fork, fork ----------> open, publish address            open, publish address
 *                          barrier 1, connect, barrier 2 <-> the same
 *                          ping-pong: warm-up, then N       echo each message back
 *                          round trips timed; END --------> until END
 *                          barrier 10 <-------------------> barrier 10
 *                          stream for --duration; END ----> count and check; until END
 *                          barrier 11 <-------------------> barrier 11
 *   wait (deadline) <----- exit                             exit
 *
 * The children write their results into the shared block; a child that fails
 * says why there and sets abort, and the parent kills the other (by pid) after
 * a grace period, or both at the deadline.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/wait.h>

#include "perf_run.h"

#define REPLY_TIMEOUT_S       5.0  /* a lossless transport: no reply this long is an error */
#define REPLY_TIMEOUT_LOSSY_S 0.5  /* UDP: the request or the reply was lost */
#define END_RESEND_US         1000 /* lossy transports: END again until the receiver saw it */
#define STREAM_QUIET_NS       1000000000u /* receiver: no END this long after the sender finished */
#define GRACE_NS              2000000000ull
#define FIRST_REPLIES_LOST    10    /* lossy: the first this many all unanswered: give up */
#define BARRIER_SPINS         20000 /* about 1 ms of pause */
#define BARRIER_SLEEP_US      50    /* one child failed: the other gets this long to notice */

int
perf_fail(struct perf_ctl *ctl, int side, const char *fmt, ...)
{
	struct perf_side_res *r = &ctl->res[side];
	va_list ap;

	if (r->rc == 0) {
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof(r->why), fmt, ap);
		va_end(ap);
		r->rc = -1;
	}
	__atomic_store_n(&ctl->abort, 1, __ATOMIC_RELEASE);
	return -1;
}

static bool
aborted(const struct perf_ctl *ctl)
{
	return __atomic_load_n(&ctl->abort, __ATOMIC_ACQUIRE) != 0;
}

/* Spins, then sleeps: a side waiting long (the other one is binding) leaves its CPU
 * to dpfwd's worker, which may share it and which a bind waits for (RCU). */
int
perf_barrier(struct perf_ctl *ctl, int side, uint32_t k)
{
	unsigned int spins = 0;

	__atomic_store_n(&ctl->phase[side], k, __ATOMIC_RELEASE);
	while (__atomic_load_n(&ctl->phase[1 - side], __ATOMIC_ACQUIRE) < k) {
		if (aborted(ctl))
			return -1;
		if (++spins > BARRIER_SPINS)
			usleep(BARRIER_SLEEP_US);
		else
			perf_relax();
	}
	return 0;
}

static void
chk_add(struct perf_check *d, const struct perf_check *s)
{
	d->msgs += s->msgs;
	d->bytes += s->bytes;
	d->ok_bytes += s->ok_bytes;
	d->bad_len += s->bad_len;
	d->bad_data += s->bad_data;
	d->bad_seq += s->bad_seq;
	d->lost += s->lost;
	d->ends += s->ends;
}

/* Send one message, waiting for room. 0 or -1 (failure recorded). */
static int
send_one(struct perf_ep *ep, struct perf_ctl *ctl, uint64_t seq, size_t len)
{
	const struct perf_transport *t = ep->pp->t;

	for (;;) {
		int r = t->send(ep, seq, len, 1);

		if (r == 1)
			return 0;
		if (r != -EAGAIN)
			return perf_fail(ctl, ep->side, "%s: send of %zu bytes: %s", t->name, len,
				strerror(-r));
		if (aborted(ctl))
			return -1;
		perf_relax();
	}
}

int
perf_pingpong_client(
	struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, struct dp_hist *rtt)
{
	const struct perf_transport *t = ep->pp->t;
	const char *name = pt->remote ? "dpsock-remote" : t->name;
	struct perf_side_res *res = &ctl->res[ep->side];
	bool lossy = t->lossy || pt->remote;
	struct perf_rx rx = { .size = pt->size, .lossy = lossy };
	uint64_t tmo = (uint64_t)((lossy ? REPLY_TIMEOUT_LOSSY_S : REPLY_TIMEOUT_S) * perf_hz);
	uint64_t total = pt->warmup + pt->iters, cap = UINT64_MAX, i;

	for (i = 0; i < total; i++) {
		uint64_t t0, t1;

		if (i == pt->warmup)
			cap = perf_ticks() + (uint64_t)(pt->pp_max_s * perf_hz);
		else if (i > pt->warmup && perf_ticks() > cap)
			break;
		t0 = perf_ticks();
		if (send_one(ep, ctl, i, pt->size) < 0)
			goto fail;
		res->requests++;
		for (;;) {
			int r = t->recv(ep, &rx, 1);

			if (r == 1) {
				if (rx.last_seq == i)
					break;
				continue; /* a late reply to a request given up */
			}
			if (r != -EAGAIN) {
				perf_fail(ctl, ep->side, "%s: receive: %s", name, strerror(-r));
				goto fail;
			}
			if (aborted(ctl))
				goto fail;
			if (perf_ticks() - t0 > tmo) {
				if (!lossy) {
					perf_fail(ctl, ep->side,
						"%s: no reply to message %" PRIu64 " in %.0f s",
						name, i, REPLY_TIMEOUT_S);
					goto fail;
				}
				res->lost_replies++;
				if ((res->lost_replies > 100 && res->lost_replies * 2 > i) ||
					(res->lost_replies == FIRST_REPLIES_LOST &&
						i + 1 == FIRST_REPLIES_LOST)) {
					perf_fail(ctl, ep->side,
						"%s: %" PRIu64 " of %" PRIu64
						" requests unanswered",
						name, res->lost_replies, i + 1);
					goto fail;
				}
				t0 = 0;
				break;
			}
			perf_relax();
		}
		t1 = perf_ticks();
		if (t0 != 0 && i >= pt->warmup)
			dp_hist_record(rtt, t1 - t0);
	}
	chk_add(&res->chk, &rx.chk);
	if (!pt->remote && send_one(ep, ctl, PERF_SEQ_END, 8) < 0)
		return -1;
	return 0;
fail:
	chk_add(&res->chk, &rx.chk);
	return -1;
}

int
perf_pingpong_server(struct perf_ep *ep, struct perf_ctl *ctl, uint32_t done_phase)
{
	const struct perf_transport *t = ep->pp->t;
	struct perf_side_res *res = &ctl->res[ep->side];
	struct perf_rx rx = { .size = ep->pp->size, .lossy = t->lossy };
	bool a_done = false;
	int rc = 0;

	for (;;) {
		int r = t->recv(ep, &rx, 1);

		if (r == 1) {
			if (rx.last_end)
				break;
			if (send_one(ep, ctl, rx.last_seq, ep->pp->size) < 0) {
				rc = -1;
				break;
			}
			continue;
		}
		if (r != -EAGAIN) {
			rc = perf_fail(ctl, ep->side, "%s: receive: %s", t->name, strerror(-r));
			break;
		}
		if (aborted(ctl)) {
			rc = -1;
			break;
		}
		/* A is done: its END was sent before, so one more look finds it
		 * (unless a lossy transport lost it); left behind, it would end the
		 * next phase at once */
		if (a_done)
			break;
		if (__atomic_load_n(&ctl->phase[0], __ATOMIC_ACQUIRE) >= done_phase) {
			a_done = true;
			continue;
		}
		perf_relax();
	}
	chk_add(&res->chk, &rx.chk);
	return rc;
}

/* ---- the test's two roles ---- */

static int
stream_send(struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt)
{
	const struct perf_transport *t = ep->pp->t;
	struct perf_side_res *res = &ctl->res[0];
	uint64_t seq = 0, t0 = perf_ticks(), now;
	uint64_t t_end = t0 + (uint64_t)(pt->duration * perf_hz), deadline;
	unsigned int ends = 0;

	while ((now = perf_ticks()) < t_end) {
		int r = t->send(ep, seq, pt->size, pt->batch);

		if (r > 0) {
			seq += (uint64_t)r;
			continue;
		}
		if (r != -EAGAIN)
			return perf_fail(ctl, 0, "%s: send of %zu bytes: %s", t->name, pt->size,
				strerror(-r));
		if (aborted(ctl))
			return -1;
		perf_relax();
	}
	res->tx_s = (double)(now - t0) / (double)perf_hz;
	res->sent = seq;
	res->again = ep->again;
	/* lossless: one END; lossy: again and again until the receiver has one */
	deadline = perf_now_ns() + 5000000000ull;
	for (;;) {
		int r = t->send(ep, PERF_SEQ_END, 8, 1);

		if (r == 1)
			ends++;
		else if (r != -EAGAIN)
			return perf_fail(ctl, 0, "%s: send of END: %s", t->name, strerror(-r));
		if (ends > 0 && !t->lossy)
			break;
		if (__atomic_load_n(&ctl->phase[1], __ATOMIC_ACQUIRE) >= 11 || aborted(ctl) ||
			perf_now_ns() > deadline)
			break;
		if (ends > 0)
			usleep(END_RESEND_US);
		else
			perf_relax();
	}
	__atomic_store_n(&ctl->a_done_ns, perf_now_ns(), __ATOMIC_RELEASE);
	return 0;
}

static int
stream_recv(struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt)
{
	const struct perf_transport *t = ep->pp->t;
	struct perf_side_res *res = &ctl->res[1];
	struct perf_rx rx = { .size = pt->size, .lossy = t->lossy };
	int rc = 0;

	for (;;) {
		int r = t->recv(ep, &rx, pt->batch);

		if (r > 0) {
			if (rx.chk.ends > 0)
				break;
			continue;
		}
		if (r != -EAGAIN) {
			rc = perf_fail(ctl, 1, "%s: receive: %s", t->name, strerror(-r));
			break;
		}
		if (aborted(ctl)) {
			rc = -1;
			break;
		}
		{
			uint64_t done = __atomic_load_n(&ctl->a_done_ns, __ATOMIC_ACQUIRE);

			if (done != 0 && perf_now_ns() - done > STREAM_QUIET_NS)
				break; /* every END was lost */
		}
		perf_relax();
	}
	res->rx_msgs = rx.chk.msgs;
	res->rx_lost = rx.chk.lost;
	res->rx_s = rx.chk.msgs > 1 ? (double)(rx.t_last - rx.t_first) / (double)perf_hz : 0;
	res->again = ep->again;
	chk_add(&res->chk, &rx.chk);
	return rc;
}

static int
role_a(struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, void *arg)
{
	struct perf_side_res *res = &ctl->res[0];
	struct dp_hist *rtt;
	int rc;

	(void)arg;
	rtt = dp_hist_create(PERF_HIST_SUB_BITS);
	if (rtt == NULL)
		return perf_fail(ctl, 0, "out of memory for the RTT histogram");
	rc = perf_pingpong_client(ep, ctl, pt, rtt);
	if (rc == 0)
		perf_rtt_summary(rtt, &res->rtt);
	dp_hist_free(rtt);
	if (rc < 0 || pt->remote)
		return rc;
	if (perf_barrier(ctl, 0, 10) < 0)
		return -1;
	if (pt->duration > 0 && stream_send(ep, ctl, pt) < 0)
		return -1;
	return perf_barrier(ctl, 0, 11);
}

static int
role_b(struct perf_ep *ep, struct perf_ctl *ctl, const struct perf_test *pt, void *arg)
{
	(void)arg;
	if (perf_pingpong_server(ep, ctl, 10) < 0)
		return -1;
	if (perf_barrier(ctl, 1, 10) < 0)
		return -1;
	if (pt->duration > 0 && stream_recv(ep, ctl, pt) < 0)
		return -1;
	return perf_barrier(ctl, 1, 11);
}

/* ---- processes ---- */

struct perf_shared *
perf_shared_alloc(void)
{
	void *p = mmap(NULL, sizeof(struct perf_shared), PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void
pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void __attribute__((noreturn))
child(int side, const struct perf_test *pt, struct perf_shared *sh, perf_role_fn fn, void *arg)
{
	const struct perf_transport *t = pt->t;
	struct perf_ep ep = { .pp = &sh->pp, .side = side, .block = pt->block, .fd = -1 };
	struct perf_ctl *ctl = &sh->ctl;
	bool paired = !pt->remote;
	char why[PERF_NOTE_LEN] = "";
	int rc;

	pin(pt->cpu[side]);
	if (perf_ep_buffers(&ep, pt->size) < 0) {
		perf_fail(ctl, side, "out of memory for %zu-byte buffers", pt->size);
		_exit(1);
	}
	if (t->open(&ep, why, sizeof(why)) < 0) {
		perf_fail(ctl, side, "%s", why);
		_exit(1);
	}
	if (paired && perf_barrier(ctl, side, 1) < 0)
		goto out;
	if (!pt->no_connect && t->connect(&ep, why, sizeof(why)) < 0) {
		perf_fail(ctl, side, "%s", why);
		goto out;
	}
	if (paired && perf_barrier(ctl, side, 2) < 0)
		goto out;
	rc = fn(&ep, ctl, pt, arg);
	t->close(&ep);
	_exit(rc < 0 ? 1 : 0);
out:
	t->close(&ep);
	_exit(1);
}

enum perf_status
perf_pair_run(const struct perf_test *pt, const struct perf_opts *o, perf_role_fn roles[2],
	void *arg, struct perf_shared *sh, char *note, size_t notelen)
{
	const struct perf_transport *t = pt->t;
	int n = roles[1] != NULL ? 2 : 1, alive = 0, side;
	pid_t pid[2] = { -1, -1 };
	uint64_t deadline, grace = 0;
	enum perf_status st = PERF_OK;
	sigset_t set, old;

	memset(sh, 0, sizeof(*sh));
	sh->pp.t = t;
	sh->pp.o = o;
	sh->pp.size = pt->size;
	sh->pp.block = pt->block;
	sh->pp.fds[0] = sh->pp.fds[1] = -1;
	if (pt->remote) {
		sh->pp.lossy = true;
		sh->pp.addr[1] = o->remote;
		sh->pp.addr_len[1] = o->remote_len;
	}
	note[0] = '\0';
	if (t->pair_init != NULL && t->pair_init(&sh->pp, note, notelen) < 0)
		return PERF_SKIPPED;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	fflush(NULL);
	for (side = 0; side < n; side++) {
		pid[side] = fork();
		if (pid[side] == 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			child(side, pt, sh, roles[side], arg);
		}
		if (pid[side] < 0) {
			snprintf(note, notelen, "fork: %s", strerror(errno));
			__atomic_store_n(&sh->ctl.abort, 1, __ATOMIC_RELEASE);
			st = PERF_FAILED;
			grace = perf_now_ns();
			break;
		}
		alive++;
	}
	deadline = perf_now_ns() + (uint64_t)(pt->timeout_s * 1e9);
	while (alive > 0) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		uint64_t now;

		for (side = 0; side < n; side++) {
			int ws;

			if (pid[side] <= 0 || waitpid(pid[side], &ws, WNOHANG) != pid[side])
				continue;
			pid[side] = 0;
			alive--;
			if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
				st = PERF_FAILED;
				__atomic_store_n(&sh->ctl.abort, 1, __ATOMIC_RELEASE);
				if (grace == 0)
					grace = perf_now_ns() + GRACE_NS;
				if (WIFSIGNALED(ws) && note[0] == '\0')
					snprintf(note, notelen, "side %c killed by signal %d",
						'A' + side, WTERMSIG(ws));
			}
		}
		if (alive == 0)
			break;
		now = perf_now_ns();
		if (now > deadline || (grace != 0 && now > grace)) {
			for (side = 0; side < n; side++)
				if (pid[side] > 0)
					kill(pid[side], SIGKILL);
			if (now > deadline && note[0] == '\0')
				snprintf(note, notelen, "timeout: not done after %.0f s (killed)",
					pt->timeout_s);
			st = PERF_FAILED;
			deadline = grace = UINT64_MAX; /* reap them next */
			continue;
		}
		sigtimedwait(&set, NULL, &ts);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (t->pair_fini != NULL)
		t->pair_fini(&sh->pp);
	/* a child's own words beat what the parent saw (a signal, the deadline) */
	for (side = 1; side >= 0; side--) {
		const struct perf_side_res *r = &sh->ctl.res[side];

		if (r->rc < 0) {
			if (r->why[0] != '\0')
				snprintf(note, notelen, "%s", r->why);
			st = PERF_FAILED;
		}
	}
	return st;
}

void
perf_test_run(const struct perf_test *pt, const struct perf_opts *o, struct perf_cell *cell)
{
	static struct perf_shared *sh;
	perf_role_fn roles[2] = { role_a, pt->remote ? NULL : role_b };
	const struct perf_side_res *a, *b;

	cell->transport = pt->remote ? "dpsock-remote" : pt->t->name;
	cell->mode = pt->block ? "block" : "spin";
	cell->size = pt->size;
	if (sh == NULL) {
		sh = perf_shared_alloc();
		if (sh == NULL) {
			cell->status = PERF_FAILED;
			snprintf(cell->note, sizeof(cell->note), "mmap: %s", strerror(errno));
			return;
		}
	}
	cell->status = perf_pair_run(pt, o, roles, NULL, sh, cell->note, sizeof(cell->note));
	if (cell->status == PERF_SKIPPED)
		return;
	a = &sh->ctl.res[0];
	b = &sh->ctl.res[1];
	cell->rtt = a->rtt;
	cell->requests = a->requests;
	cell->lost_replies = a->lost_replies;
	cell->chk = a->chk;
	chk_add(&cell->chk, &b->chk);
	cell->streamed = pt->duration > 0 && !pt->remote;
	if (cell->streamed) {
		cell->sent = a->sent;
		cell->received = b->rx_msgs;
		cell->lost = a->sent > b->rx_msgs ? a->sent - b->rx_msgs : 0;
		cell->again = a->again;
		cell->tx_s = a->tx_s;
		cell->rx_s = b->rx_s;
		if (b->rx_msgs > 1 && b->rx_s > 0) {
			cell->msgs_per_s = (double)(b->rx_msgs - 1) / b->rx_s;
			cell->gbps = cell->msgs_per_s * (double)pt->size * 8 / 1e9;
		}
	}
	if (cell->status == PERF_OK && perf_check_bad(&cell->chk) > 0) {
		cell->status = PERF_FAILED;
		snprintf(cell->note, sizeof(cell->note),
			"%" PRIu64 " messages failed the check (length %" PRIu64 ", bytes %" PRIu64
			", order %" PRIu64 ")",
			perf_check_bad(&cell->chk), cell->chk.bad_len, cell->chk.bad_data,
			cell->chk.bad_seq);
	}
	if (cell->status == PERF_OK && pt->iters > 0 && cell->rtt.n == 0) {
		cell->status = PERF_FAILED;
		snprintf(cell->note, sizeof(cell->note),
			"no reply to any measured request (%" PRIu64 " lost)", cell->lost_replies);
	}
	if (cell->status == PERF_OK && cell->streamed && cell->received == 0) {
		cell->status = PERF_FAILED;
		snprintf(cell->note, sizeof(cell->note), "nothing received while streaming");
	}
}
