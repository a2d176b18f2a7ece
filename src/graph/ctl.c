/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_malloc.h>
#include <rte_ring.h>

#include "dp_common.h"
#include "dp_ctl.h"
#include "dp_graph.h"
#include "dp_mem.h"
#include "dp_telemetry.h"
#include "dp_trace.h"

RTE_LOG_REGISTER(dp_logtype_ctl, dpfwd.ctl, INFO);

#define CTL_MAX_TIMERS 16

struct ctl_timer {
	char name[32];
	unsigned int period_ms;
	uint64_t next_ms;
	dp_ctl_timer_cb_t cb;
	void *arg;
};

static struct {
	dp_ctl_punt_cb_t cb;
	void *arg;
} handlers[DP_PUNT_MAX];

static struct ctl_timer timers[CTL_MAX_TIMERS];
static unsigned int nb_timers;
static void (*stop_cbs[8])(void);
static unsigned int nb_stop_cbs;

/* dp_ctl_call(): one request at a time from other threads, run by dp_ctl_poll() */
static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t call_done = PTHREAD_COND_INITIALIZER;
static struct {
	int (*fn)(void *arg);
	void *arg;
	int rc;
	bool pending, done;
} call;
static pthread_t ctl_thread;
static bool ctl_thread_set;

/* serializes callers: one request in flight */
static pthread_mutex_t call_serial = PTHREAD_MUTEX_INITIALIZER;

int
dp_ctl_call(int (*fn)(void *arg), void *arg, unsigned int timeout_ms)
{
	struct timespec ts;
	int rc;

	if (!ctl_thread_set || pthread_equal(pthread_self(), ctl_thread))
		return fn(arg);
	pthread_mutex_lock(&call_serial);
	pthread_mutex_lock(&call_lock);
	call.fn = fn;
	call.arg = arg;
	call.done = false;
	__atomic_store_n(&call.pending, true, __ATOMIC_RELEASE);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	rc = 0;
	while (!call.done && rc == 0)
		rc = pthread_cond_timedwait(&call_done, &call_lock, &ts);
	if (call.done) {
		rc = call.rc;
	} else {
		/* not run: the control loop is not polling (starting or stopping) */
		__atomic_store_n(&call.pending, false, __ATOMIC_RELEASE);
		rc = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&call_lock);
	pthread_mutex_unlock(&call_serial);
	return rc;
}

static void
call_poll(void)
{
	if (!__atomic_load_n(&call.pending, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&call_lock);
	if (call.pending) {
		call.rc = call.fn(call.arg);
		call.pending = false;
		call.done = true;
		pthread_cond_signal(&call_done);
	}
	pthread_mutex_unlock(&call_lock);
}

/* control lcore only */
static struct {
	uint64_t punted[DP_PUNT_MAX]; /**< handed to a handler, by kind */
	uint64_t injected;            /**< frames given to a worker to send */
	uint64_t polls;
} ctl_stats;

static const char *const punt_names[DP_PUNT_MAX] = {
	[DP_PUNT_NONE] = "none",
	[DP_PUNT_ARP] = "arp",
	[DP_PUNT_NEIGH4] = "neigh4_hold",
	[DP_PUNT_ND] = "nd",
	[DP_PUNT_NEIGH6] = "neigh6_hold",
	[DP_PUNT_HOST] = "host",
};

int
dp_ctl_punt_register(enum dp_punt_kind kind, dp_ctl_punt_cb_t cb, void *arg)
{
	if (kind <= DP_PUNT_NONE || kind >= DP_PUNT_MAX)
		return -EINVAL;
	handlers[kind].cb = cb;
	handlers[kind].arg = arg;
	return 0;
}

int
dp_ctl_punt_handler(enum dp_punt_kind kind, dp_ctl_punt_cb_t *cb, void **arg)
{
	if (kind <= DP_PUNT_NONE || kind >= DP_PUNT_MAX)
		return -EINVAL;
	*cb = handlers[kind].cb;
	*arg = handlers[kind].arg;
	return 0;
}

int
dp_ctl_timer_register(const char *name, unsigned int period_ms, dp_ctl_timer_cb_t cb, void *arg)
{
	struct ctl_timer *t;

	if (cb == NULL || period_ms == 0)
		return -EINVAL;
	if (nb_timers == CTL_MAX_TIMERS)
		return -ENOSPC;
	t = &timers[nb_timers++];
	dp_strlcpy(t->name, name, sizeof(t->name));
	t->period_ms = period_ms;
	t->next_ms = dp_ctl_now_ms() + period_ms;
	t->cb = cb;
	t->arg = arg;
	return 0;
}

uint64_t
dp_ctl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
ring_drain_free(struct rte_ring *r)
{
	void *objs[64];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, objs, DP_ARRAY_SIZE(objs), NULL)) != 0) {
		dp_ctl_drops[DP_DROP_SHUTDOWN] += n;
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	}
}

void
dp_ctl_stop(void)
{
	unsigned int c;
	uint16_t i;

	for (i = 0; i < dp_nb_workers; i++) {
		ring_drain_free(dp_workers[i]->punt_ring);
		ring_drain_free(dp_workers[i]->inject_ring);
	}
	for (c = 0; c < nb_stop_cbs; c++)
		stop_cbs[c]();
}

int
dp_ctl_stop_register(void (*fn)(void))
{
	if (nb_stop_cbs == DP_ARRAY_SIZE(stop_cbs))
		return -ENOSPC;
	stop_cbs[nb_stop_cbs++] = fn;
	return 0;
}

int
dp_ctl_init(void)
{
	uint16_t i;

	for (i = 0; i < dp_nb_workers; i++) {
		struct dp_worker *w = dp_workers[i];
		char name[RTE_RING_NAMESIZE];
		int socket = (int)rte_lcore_to_socket_id(w->lcore_id);
		const unsigned int flags = RING_F_SP_ENQ | RING_F_SC_DEQ;

		snprintf(name, sizeof(name), "dp_punt_%u", w->index);
		w->punt_ring = rte_ring_create(name, DP_CTL_RING_SIZE, socket, flags);
		snprintf(name, sizeof(name), "dp_inject_%u", w->index);
		w->inject_ring = rte_ring_create(name, DP_CTL_RING_SIZE, socket, flags);
		if (w->punt_ring == NULL || w->inject_ring == NULL) {
			DP_LOG(ERR, ctl, "cannot create the control rings of worker %u", i);
			dp_ctl_fini();
			return -ENOMEM;
		}
	}
	memset(&ctl_stats, 0, sizeof(ctl_stats));
	memset(dp_ctl_drops, 0, sizeof(dp_ctl_drops));
	ctl_thread = pthread_self();
	ctl_thread_set = true;
	return 0;
}

void
dp_ctl_fini(void)
{
	uint16_t i;

	for (i = 0; i < dp_nb_workers; i++) {
		struct dp_worker *w = dp_workers[i];

		ring_drain_free(w->punt_ring);
		ring_drain_free(w->inject_ring);
		rte_ring_free(w->punt_ring);
		rte_ring_free(w->inject_ring);
		w->punt_ring = w->inject_ring = NULL;
	}
	memset(handlers, 0, sizeof(handlers));
	nb_timers = 0;
	nb_stop_cbs = 0;
	ctl_thread_set = false;
}

/* A marked packet's record on the control lcore: what it was punted for. */
static void
ctl_trace(struct rte_mbuf *m, uint8_t kind, uint16_t worker)
{
	static const char *const kinds[DP_PUNT_MAX] = {
		[DP_PUNT_ARP] = "arp",
		[DP_PUNT_NEIGH4] = "ipv4 next hop without a MAC",
		[DP_PUNT_ND] = "neighbor discovery",
		[DP_PUNT_NEIGH6] = "ipv6 next hop without a MAC",
	};
	char pkt[DP_TRACE_TEXT], text[2 * DP_TRACE_TEXT];

	dp_trace_fmt_pkt(m, pkt, sizeof(pkt));
	snprintf(text, sizeof(text), "%s from worker %u: %s", kinds[kind], worker, pkt);
	dp_trace_add(m, "ctl", text);
}

unsigned int
dp_ctl_poll(uint64_t now_ms)
{
	unsigned int done = 0, t;
	uint16_t i;

	ctl_stats.polls++;
	call_poll();
	for (i = 0; i < dp_nb_workers; i++) {
		struct rte_ring *r = dp_workers[i]->punt_ring;
		struct rte_mbuf *pkts[64];
		unsigned int n, k;

		if (r == NULL)
			continue;
		n = rte_ring_dequeue_burst(r, (void **)pkts, DP_ARRAY_SIZE(pkts), NULL);
		for (k = 0; k < n; k++) {
			/*
			 * The dequeue wrote pkts[0, n); the analyser loses that in DPDK's
			 * unrolled copy (__rte_ring_dequeue_elems_64) and sees garbage.
			 */
			/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
			struct rte_mbuf *m = pkts[k];
			uint8_t kind = dp_mbuf_meta(m, dp_mbuf_meta_offset)->punt;

			if (kind >= DP_PUNT_MAX || handlers[kind].cb == NULL) {
				dp_ctl_drops[DP_DROP_CTL_UNHANDLED]++;
				rte_pktmbuf_free(m);
				continue;
			}
			ctl_stats.punted[kind]++;
			if (unlikely(dp_trace_armed != 0) && dp_trace_marked(m))
				ctl_trace(m, kind, i);
			handlers[kind].cb(m, i, handlers[kind].arg);
		}
		done += n;
	}
	for (t = 0; t < nb_timers; t++) {
		struct ctl_timer *tm = &timers[t];

		if (now_ms < tm->next_ms)
			continue;
		tm->cb(now_ms, tm->arg);
		tm->next_ms += tm->period_ms;
		if (tm->next_ms <= now_ms)
			tm->next_ms = now_ms + tm->period_ms;
	}
	return done;
}

int
dp_ctl_send(struct rte_mbuf *m, uint16_t port)
{
	struct dp_worker *w;

	if (port >= dp_nb_ports) {
		dp_ctl_drops[DP_DROP_CTL_BAD_PORT]++;
		rte_pktmbuf_free(m);
		return -ENODEV;
	}
	if (dp_nb_workers == 0) {
		dp_ctl_drops[DP_DROP_CTL_INJECT_FULL]++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	/* one worker per port: frames to a port leave in the order they were sent */
	w = dp_workers[port % dp_nb_workers];
	dp_mbuf_meta(m, dp_mbuf_meta_offset)->port = port;
	if (w->inject_ring == NULL || rte_ring_enqueue(w->inject_ring, m) != 0) {
		dp_ctl_drops[DP_DROP_CTL_INJECT_FULL]++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	ctl_stats.injected++;
	return 0;
}

static json_t *
ctl_fill(void *arg)
{
	json_t *by = json_object();
	unsigned int k;

	RTE_SET_USED(arg);
	for (k = DP_PUNT_NONE + 1; k < DP_PUNT_MAX; k++)
		json_object_set_new(
			by, punt_names[k], json_integer((json_int_t)ctl_stats.punted[k]));
	return json_pack("{s:o, s:I, s:I, s:I, s:I}", "punted", by, "injected",
		(json_int_t)ctl_stats.injected, "polls", (json_int_t)ctl_stats.polls, "unhandled",
		(json_int_t)dp_ctl_drops[DP_DROP_CTL_UNHANDLED], "inject_full",
		(json_int_t)dp_ctl_drops[DP_DROP_CTL_INJECT_FULL]);
}

int
dp_ctl_telemetry_register(void)
{
	return dp_telemetry_section_register("ctl", "/dpfwd/ctl/stats",
		"Control lcore: packets punted by workers (by kind), frames injected", ctl_fill,
		NULL);
}
