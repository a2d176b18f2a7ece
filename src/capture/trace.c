/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace's control side (docs/capture.md#trace): /dpfwd/trace/add marks
 * the next COUNT packets the filter takes (the capture's filter code) as the
 * tap sees them arrive; the graph records every node they visit
 * (src/graph/trace.c); /dpfwd/trace/show merges the lcores' records by packet
 * and time; /dpfwd/trace/clear forgets them. All on the control lcore.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_rcu_qsbr.h>
#include <rte_telemetry.h>

#include "capture_priv.h"
#include "dp_common.h"
#include "dp_ctl.h"
#include "dp_port.h"
#include "dp_telemetry.h"
#include "dp_trace.h"

#define TRACE_COUNT_MAX    256 /* packets one add marks at most */
#define TRACE_TICK_MS      10
#define TRACE_CALL_TIMEOUT 5000
#define TRACE_SHOW_PAGE    96 /* records per /dpfwd/trace/show reply (rte_telemetry's 16 KiB) */

/* What the workers read while marks are left; written before dp_trace_armed is set. */
static struct {
	uint32_t count; /* marks this add hands out */
	uint32_t base;  /* the trace id of its first */
	uint32_t next;  /* marks handed out (atomic) */
	int port;       /* DPDK port id, -1: every port */
	struct capture_filter f;
} live;

/* The control lcore's view. */
static struct {
	bool active;       /* marks left, or marked packets not yet closed */
	uint32_t closed0;  /* dp_trace_closed when this add began */
	uint32_t first_id; /* the first id since the last clear: show's range */
	uint32_t next_id;
	char filter[256];
} tr;

bool
trace_wants_tap(void)
{
	return tr.active;
}

void
trace_tap_rx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	char pkt[DP_TRACE_TEXT], text[2 * DP_TRACE_TEXT];
	uint16_t i;

	if (__atomic_load_n(&live.next, __ATOMIC_RELAXED) >= live.count ||
		(live.port >= 0 && live.port != port))
		return;
	for (i = 0; i < n; i++) {
		uint32_t k;

		if (!capture_match(&live.f, pkts[i]))
			continue;
		k = __atomic_fetch_add(&live.next, 1, __ATOMIC_RELAXED);
		if (k >= live.count)
			return;
		dp_trace_fmt_pkt(pkts[i], pkt, sizeof(pkt));
		snprintf(text, sizeof(text), "queue %u %s", queue, pkt);
		dp_trace_mark(
			pkts[i], (uint16_t)(live.base + k), dp_port_index[port], "port_rx", text);
	}
}

void
trace_tap_tx(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	char pkt[DP_TRACE_TEXT], text[2 * DP_TRACE_TEXT];
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (!dp_trace_marked(pkts[i]))
			continue;
		dp_trace_fmt_pkt(pkts[i], pkt, sizeof(pkt));
		snprintf(
			text, sizeof(text), "port %u queue %u %s", dp_port_index[port], queue, pkt);
		dp_trace_close(pkts[i], "tx", text);
	}
}

/* Marks off and the workers past any record: then what they read may change. */
static void
trace_disarm(void)
{
	__atomic_store_n(&dp_trace_armed, 0, __ATOMIC_RELEASE);
	tr.active = false;
	capture_tap_update();
	if (dp_graph_qsv != NULL)
		rte_rcu_qsbr_synchronize(dp_graph_qsv, RTE_QSBR_THRID_INVALID);
	capture_filter_free(&live.f);
}

/* Every mark handed out and every marked packet closed: the walks go back to untraced. */
static void
trace_tick(uint64_t now_ms, void *arg)
{
	RTE_SET_USED(now_ms);
	RTE_SET_USED(arg);
	if (tr.active && __atomic_load_n(&live.next, __ATOMIC_RELAXED) >= live.count &&
		__atomic_load_n(&dp_trace_closed, __ATOMIC_ACQUIRE) - tr.closed0 >= live.count)
		trace_disarm();
}

int
trace_ctl_start(void)
{
	return dp_ctl_timer_register("trace", TRACE_TICK_MS, trace_tick, NULL);
}

void
trace_stop(void)
{
	if (tr.active)
		trace_disarm();
}

struct trace_req {
	json_int_t count;
	int port; /* config port, -1: every port */
	const char *filter;
	bool usage;
	char *err;
	size_t errlen;
	json_t *res;
	json_int_t from;
};

static int
call_add(void *arg)
{
	struct trace_req *a = arg;
	struct capture_filter f;
	int rc;

	a->usage = true;
	if (a->count < 1 || a->count > TRACE_COUNT_MAX) {
		snprintf(a->err, a->errlen, "count %lld: 1..%d", (long long)a->count,
			TRACE_COUNT_MAX);
		return -EINVAL;
	}
	if (a->port >= (int)dp_nb_phys_ports) {
		snprintf(a->err, a->errlen, "no port %d: the ports are 0..%u", a->port,
			dp_nb_phys_ports - 1u);
		return -EINVAL;
	}
	/* the filter first: a user's mistake is told whatever runs */
	rc = capture_filter_load(&f, a->filter, UINT16_MAX, a->err, a->errlen);
	if (rc < 0) {
		a->usage = rc == -EINVAL;
		return rc;
	}
	a->usage = false;
	rc = -EBUSY;
	if (tr.next_id - tr.first_id + (uint32_t)a->count > DP_TRACE_ID_MAX) {
		snprintf(a->err, a->errlen,
			"%u packets traced since the last clear: dpctl trace clear first",
			tr.next_id - tr.first_id);
		rc = -ENOSPC;
		goto free;
	}
	if (tr.active) {
		snprintf(a->err, a->errlen,
			"a trace is armed (%u of %u marked): dpctl trace clear ends it",
			__atomic_load_n(&live.next, __ATOMIC_RELAXED), live.count);
		goto free;
	}
	rc = dp_trace_init();
	if (rc == 0)
		rc = dp_trace_bufs_alloc(dp_nb_workers);
	if (rc < 0) {
		snprintf(a->err, a->errlen, "trace: %s", strerror(-rc));
		goto free;
	}
	/* disarmed: no worker reads the last filter any more */
	live.f = f;
	live.count = (uint32_t)a->count;
	live.base = tr.next_id;
	live.port = a->port >= 0 ? dp_ports[a->port].port_id : -1;
	__atomic_store_n(&live.next, 0, __ATOMIC_RELAXED);
	tr.next_id += live.count;
	tr.closed0 = __atomic_load_n(&dp_trace_closed, __ATOMIC_RELAXED);
	dp_strlcpy(tr.filter, a->filter != NULL ? a->filter : "", sizeof(tr.filter));
	tr.active = true;
	/* what the tap and the walks read is in place before they see the flag */
	__atomic_store_n(&dp_trace_armed, 1, __ATOMIC_RELEASE);
	capture_tap_update();
	a->res = json_pack("{s:i, s:s}", "count", (int)live.count, "filter_mode",
		capture_filter_mode_name(live.f.mode));
	return 0;

free:
	capture_filter_free(&f);
	return rc;
}

static int
call_clear(void *arg)
{
	struct trace_req *a = arg;

	if (tr.active)
		trace_disarm();
	if (dp_trace_flag != 0)
		dp_trace_bufs_reset();
	tr.first_id = tr.next_id = 0;
	a->res = json_object();
	return 0;
}

static int
rec_cmp(const void *a, const void *b)
{
	const struct dp_trace_rec *x = *(const struct dp_trace_rec *const *)a;
	const struct dp_trace_rec *y = *(const struct dp_trace_rec *const *)b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return 0;
}

/*
 * The records since the last clear, by packet then time, from record @p from
 * on: one string each, "ID LCORE PORT NS NODE TEXT" (PORT -1 but in a
 * packet's first record; NS since its first record).
 */
static int
call_show(void *arg)
{
	struct trace_req *a = arg;
	const struct dp_trace_rec **all = NULL;
	json_t *lines = json_array();
	uint64_t hz = rte_get_tsc_hz();
	uint32_t total = 0, full = 0, i, k, id = UINT32_MAX;
	uint64_t t0 = 0;
	uint16_t b;

	for (b = 0; b <= dp_nb_workers && dp_trace_bufs[0] != NULL; b++)
		total += __atomic_load_n(&dp_trace_bufs[b]->n, __ATOMIC_ACQUIRE);
	if (total != 0)
		all = calloc(total, sizeof(*all));
	if (lines == NULL || (total != 0 && all == NULL)) {
		json_decref(lines);
		free(all);
		snprintf(a->err, a->errlen, "no memory");
		return -ENOMEM;
	}
	k = 0;
	for (b = 0; b <= dp_nb_workers && dp_trace_bufs[0] != NULL; b++) {
		const struct dp_trace_buf *buf = dp_trace_bufs[b];
		uint32_t n = __atomic_load_n(&buf->n, __ATOMIC_ACQUIRE);

		full += buf->full;
		for (i = 0; i < n && k < total; i++)
			if (buf->rec[i].id >= tr.first_id)
				all[k++] = &buf->rec[i];
	}
	if (k != 0)
		qsort(all, k, sizeof(*all), rec_cmp);
	for (i = 0; i < k; i++) {
		const struct dp_trace_rec *r = all[i];
		char line[RTE_TEL_MAX_STRING_LEN];

		if (r->id != id) {
			id = r->id;
			t0 = r->tsc;
		}
		if ((json_int_t)i < a->from || json_array_size(lines) >= TRACE_SHOW_PAGE)
			continue;
		snprintf(line, sizeof(line), "%u %u %d %" PRIu64 " %s %s", r->id - tr.first_id,
			r->lcore, r->port == DP_TRACE_PORT_NONE ? -1 : (int)r->port,
			(uint64_t)((r->tsc - t0) * 1000000000ull / hz), r->node, r->text);
		json_array_append_new(lines, json_string(line));
	}
	free(all);
	a->res = json_pack("{s:o, s:I, s:i, s:b, s:i, s:i, s:s}", "records", lines, "next",
		(json_int_t)(a->from + (json_int_t)json_array_size(lines)), "total", (int)k,
		"armed", tr.active, "marked",
		(int)RTE_MIN(__atomic_load_n(&live.next, __ATOMIC_RELAXED), live.count),
		"records_lost", (int)full, "filter", tr.filter);
	return 0;
}

/* Params of /dpfwd/trace/add: {"count": N, "port": N or "all", "filter": "..."}. */
static int
act_add(const char *params, json_t **res, char *err, size_t errlen)
{
	struct trace_req a = { .port = -1, .err = err, .errlen = errlen };
	json_t *p, *port = NULL;
	json_error_t je;
	int rc;

	p = json_loads(params != NULL ? params : "", 0, &je);
	if (p == NULL || json_unpack_ex(p, &je, JSON_STRICT, "{s:I, s?o, s?s}", "count", &a.count,
				 "port", &port, "filter", &a.filter) != 0) {
		snprintf(err, errlen, "params: %s (a JSON object: count, port, filter)", je.text);
		*res = json_pack("{s:b}", "usage", 1);
		json_decref(p);
		return -EINVAL;
	}
	if (port != NULL && json_is_integer(port) && json_integer_value(port) >= 0 &&
		json_integer_value(port) < RTE_MAX_ETHPORTS)
		a.port = (int)json_integer_value(port);
	else if (port != NULL &&
		 !(json_is_string(port) && strcmp(json_string_value(port), "all") == 0)) {
		snprintf(err, errlen, "port: a port number or \"all\"");
		*res = json_pack("{s:b}", "usage", 1);
		json_decref(p);
		return -EINVAL;
	}
	rc = dp_ctl_call(call_add, &a, TRACE_CALL_TIMEOUT);
	json_decref(p);
	*res = rc == 0 ? a.res : json_pack("{s:b}", "usage", a.usage);
	return rc;
}

/* Params of /dpfwd/trace/show: the first record to return (0 when none). */
static int
act_show(const char *params, json_t **res, char *err, size_t errlen)
{
	struct trace_req a = { .err = err, .errlen = errlen };
	char *end = NULL;
	int rc;

	if (params != NULL && params[0] != '\0') {
		a.from = strtoll(params, &end, 10);
		if (*end != '\0' || a.from < 0) {
			snprintf(err, errlen, "params: the first record to show, a number >= 0");
			return -EINVAL;
		}
	}
	rc = dp_ctl_call(call_show, &a, TRACE_CALL_TIMEOUT);
	*res = a.res;
	return rc;
}

static int
act_clear(const char *params, json_t **res, char *err, size_t errlen)
{
	struct trace_req a = { .err = err, .errlen = errlen };
	int rc;

	RTE_SET_USED(params);
	rc = dp_ctl_call(call_clear, &a, TRACE_CALL_TIMEOUT);
	*res = a.res;
	return rc;
}

int
trace_telemetry_register(void)
{
	int rc = dp_telemetry_action_register("/dpfwd/trace/add",
		"Trace the next COUNT packets a filter takes through the graph. Params: JSON "
		"{count, port, filter} (docs/capture.md)",
		act_add);

	if (rc == 0)
		rc = dp_telemetry_action_register("/dpfwd/trace/show",
			"The traced packets' records, by packet and time. Params: the first record",
			act_show);
	if (rc == 0)
		rc = dp_telemetry_action_register(
			"/dpfwd/trace/clear", "Stop marking and forget the records", act_clear);
	return rc;
}
