/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture's control path, all on the control lcore: compile the filter
 * (libpcap), load it as DPDK BPF, open the file (rte_pcapng), set the tap;
 * every millisecond write what the workers copied; stop at the count, the
 * duration, a stop command or dpfwd's exit, and complete the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <pcap/pcap.h>
#include <rte_bpf.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_rcu_qsbr.h>
#include <rte_version.h>

#include "capture_priv.h"
#include "dp_build_config.h"
#include "dp_capture.h"
#include "dp_common.h"
#include "dp_ctl.h"
#include "dp_port.h"
#include "dp_telemetry.h"

RTE_LOG_REGISTER(dp_logtype_capture, dpfwd.capture, INFO);

#define CAPTURE_RING_SIZE    4096
#define CAPTURE_POOL_BYTES   (64u << 20) /* most memory the copies may take */
#define CAPTURE_POOL_MIN     511
#define CAPTURE_POOL_CACHE   64
#define CAPTURE_TICK_MS      1
#define CAPTURE_CALL_TIMEOUT 5000
#define CAPTURE_SNAPLEN_MAX  65535

static const char *const mode_names[] = {
	[CAPTURE_FILTER_NONE] = "none",
	[CAPTURE_FILTER_JIT] = "dpdk_bpf_jit",
	[CAPTURE_FILTER_BPF] = "dpdk_bpf",
	[CAPTURE_FILTER_LIBPCAP] = "libpcap",
};

/* The control lcore's view of the capture, running or last done. */
static struct {
	bool running;
	bool ever;
	rte_pcapng_t *pcapng;
	char file[PATH_MAX];
	char filter[512];
	char reason[160]; /**< why it stopped: count, duration, stop, exit, or an error */
	int port;         /**< config port, -1: all */
	bool rx, tx;
	uint64_t count;
	uint64_t deadline_ms; /**< 0: none */
	uint64_t start_ms;
	uint64_t stop_ms;
	uint64_t written;
	uint64_t beyond_count; /**< copied after the count was reached: not written, not lost */
	/* the workers' counters, summed at the stop */
	uint64_t matched, ring_full, pool_empty;
	time_t started;
} cap;

/* The pcapng interface blocks are rte_pcapng's, one per DPDK port in port id
 * order: the workers' rte_pcapng_copy() names the port id as the interface. */

static void
capture_drain(unsigned int max)
{
	struct rte_mbuf *m[64];
	unsigned int n, got = 0;

	while (got < max && (n = rte_ring_sc_dequeue_burst(
				     capture_live.ring, (void **)m, RTE_DIM(m), NULL)) != 0) {
		unsigned int keep = n;

		got += n;
		if (cap.count != 0 && cap.written + keep > cap.count)
			keep = cap.written >= cap.count ? 0
							: (unsigned int)(cap.count - cap.written);
		if (keep != 0 && cap.pcapng != NULL) {
			if (rte_pcapng_write_packets(cap.pcapng, m, (uint16_t)keep) < 0) {
				snprintf(cap.reason, sizeof(cap.reason),
					"error: cannot write the file: %s", strerror(errno));
				rte_pcapng_close(cap.pcapng);
				cap.pcapng = NULL;
			} else
				cap.written += keep;
		}
		cap.beyond_count += n - keep;
		rte_pktmbuf_free_bulk(m, n);
	}
}

/* Undo what a start made, in reverse; the tap must be off and the workers past it. */
static void
capture_free(void)
{
	struct capture_live *c = &capture_live;

	capture_filter_free(&c->f);
	rte_ring_free(c->ring);
	rte_mempool_free(c->pool);
	memset(c->rx, 0, sizeof(c->rx));
	memset(c->tx, 0, sizeof(c->tx));
	c->ring = NULL;
	c->pool = NULL;
}

bool
capture_running(void)
{
	return cap.running;
}

void
capture_tap_update(void)
{
	__atomic_store_n(&dp_graph_tap, cap.running || trace_wants_tap() ? capture_tap : NULL,
		__ATOMIC_RELEASE);
}

int
dp_capture_stop(const char *reason)
{
	struct capture_live *c = &capture_live;
	uint16_t i;

	if (!cap.running)
		return -ENOENT;
	/* the copies stop; a worker still in a walk may be in the tap: wait until
	 * each passed a quiescent state (immediate for workers already stopped) */
	memset(c->rx, 0, sizeof(c->rx));
	memset(c->tx, 0, sizeof(c->tx));
	cap.running = false;
	capture_tap_update();
	if (dp_graph_qsv != NULL)
		rte_rcu_qsbr_synchronize(dp_graph_qsv, RTE_QSBR_THRID_INVALID);
	capture_drain(UINT_MAX);
	for (i = 0; i < DP_GRAPH_MAX_WORKERS; i++) {
		cap.matched += c->w[i].matched;
		cap.ring_full += c->w[i].ring_full;
		cap.pool_empty += c->w[i].pool_empty;
	}
	if (cap.reason[0] == '\0')
		snprintf(cap.reason, sizeof(cap.reason), "%s", reason);
	if (cap.pcapng != NULL) {
		char comment[256];

		/* what was lost, in the file too: one statistics block per port captured */
		snprintf(comment, sizeof(comment),
			"dpfwd capture: %.160s; lost %" PRIu64 " (ring full %" PRIu64
			", pool empty %" PRIu64 ")",
			cap.reason, cap.ring_full + cap.pool_empty, cap.ring_full, cap.pool_empty);
		for (i = 0; i < dp_nb_phys_ports; i++)
			if (cap.port < 0 || cap.port == i)
				rte_pcapng_write_stats(
					cap.pcapng, dp_ports[i].port_id, comment, 0, 0, 0, 0);
		rte_pcapng_close(cap.pcapng);
		cap.pcapng = NULL;
	}
	capture_free();
	cap.running = false;
	cap.stop_ms = dp_ctl_now_ms();
	DP_LOG(INFO, capture,
		"capture to %s stopped (%s): %" PRIu64 " packets written, %" PRIu64
		" lost (ring full %" PRIu64 ", pool empty %" PRIu64 ")",
		cap.file, cap.reason, cap.written, cap.ring_full + cap.pool_empty, cap.ring_full,
		cap.pool_empty);
	return 0;
}

static void
capture_tick(uint64_t now_ms, void *arg)
{
	RTE_SET_USED(arg);
	if (!cap.running)
		return;
	capture_drain(CAPTURE_RING_SIZE);
	if (cap.pcapng == NULL)
		dp_capture_stop("error");
	else if (cap.count != 0 && cap.written >= cap.count)
		dp_capture_stop("count");
	else if (cap.deadline_ms != 0 && now_ms >= cap.deadline_ms)
		dp_capture_stop("duration");
}

static void
capture_at_exit(void)
{
	dp_capture_stop("exit");
}

int
dp_capture_ctl_start(void)
{
	int rc = dp_ctl_timer_register("capture", CAPTURE_TICK_MS, capture_tick, NULL);

	if (rc == 0)
		rc = dp_ctl_stop_register(capture_at_exit);
	return rc;
}

const char *
capture_filter_mode_name(enum capture_filter_mode mode)
{
	return mode_names[mode];
}

void
capture_filter_free(struct capture_filter *f)
{
	if (f->bpf != NULL)
		rte_bpf_destroy(f->bpf);
	if (f->prog.bf_insns != NULL)
		pcap_freecode(&f->prog);
	memset(f, 0, sizeof(*f));
}

int
capture_filter_load(
	struct capture_filter *f, const char *filter, uint32_t snaplen, char *err, size_t errlen)
{
	struct rte_bpf_prm *prm;
	struct rte_bpf_jit jit;
	pcap_t *pd;

	memset(f, 0, sizeof(*f));
	f->mode = CAPTURE_FILTER_NONE;
	if (filter == NULL || filter[0] == '\0')
		return 0;
	pd = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	if (pd == NULL) {
		snprintf(err, errlen, "libpcap: pcap_open_dead failed");
		return -ENOMEM;
	}
	if (pcap_compile(pd, &f->prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, errlen, "filter '%s': %s", filter, pcap_geterr(pd));
		pcap_close(pd);
		f->prog.bf_insns = NULL;
		return -EINVAL;
	}
	pcap_close(pd);
	f->mode = CAPTURE_FILTER_LIBPCAP;
	prm = rte_bpf_convert(&f->prog);
	if (prm == NULL) {
		DP_LOG(WARNING, capture, "filter '%s': rte_bpf_convert: %s; libpcap's filter runs",
			filter, rte_strerror(rte_errno));
		return 0;
	}
	f->bpf = rte_bpf_load(prm);
	rte_free(prm);
	if (f->bpf == NULL) {
		DP_LOG(WARNING, capture, "filter '%s': rte_bpf_load: %s; libpcap's filter runs",
			filter, rte_strerror(rte_errno));
		return 0;
	}
	f->mode = CAPTURE_FILTER_BPF;
	if (rte_bpf_get_jit(f->bpf, &jit) == 0 && jit.func != NULL) {
		f->jit = jit.func;
		f->mode = CAPTURE_FILTER_JIT;
	}
	return 0;
}

/* The largest frame of the ports: the MTU, the Ethernet header and a VLAN tag. */
static uint32_t
capture_snaplen_default(void)
{
	uint32_t len = RTE_ETHER_MAX_LEN;
	uint16_t i;

	for (i = 0; i < dp_nb_phys_ports; i++)
		len = RTE_MAX(len, (uint32_t)dp_ports[i].mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN);
	return len;
}

/*
 * The section header's comment: the filter, and which dpfwd port each
 * interface is with its driver. rte_pcapng_fdopen() of DPDK 22.11 writes the
 * interface blocks itself, one per DPDK port in port id order, named
 * "dpdk:<port id>" with the device as the hardware, and takes no name or
 * driver of ours: the comment carries them.
 */
static void
capture_comment(char *buf, size_t len, const char *filter)
{
	size_t off;
	uint16_t i;

	off = (size_t)snprintf(buf, len, "dpfwd capture, filter: %s;",
		filter != NULL && filter[0] != '\0' ? filter : "(none)");
	for (i = 0; i < dp_nb_phys_ports && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, " dpdk:%u = port %u %s (%s);",
			dp_ports[i].port_id, i, dp_ports[i].name, dp_ports[i].driver);
}

int
dp_capture_start(const struct dp_capture_req *req, bool *usage, char *err, size_t errlen)
{
	struct capture_live *c = &capture_live;
	uint32_t elt, nb_pool;
	struct utsname un;
	char os[160], app[128], comment[1024];
	uint16_t i;
	int fd, rc;

	*usage = false;
	if (cap.running) {
		snprintf(err, errlen,
			"a capture runs already (to %s): one at a time; "
			"dpctl capture --stop ends it",
			cap.file);
		return -EBUSY;
	}
	*usage = true;
	if (req->port >= (int)dp_nb_phys_ports) {
		snprintf(err, errlen, "no port %d: the ports are 0..%u", req->port,
			dp_nb_phys_ports - 1u);
		return -EINVAL;
	}
	if (!req->rx && !req->tx) {
		snprintf(err, errlen, "neither rx nor tx");
		return -EINVAL;
	}
	if (req->snaplen > CAPTURE_SNAPLEN_MAX) {
		snprintf(err, errlen, "snaplen %u: at most %u", req->snaplen, CAPTURE_SNAPLEN_MAX);
		return -EINVAL;
	}
	if (req->file == NULL || req->file[0] != '/') {
		snprintf(err, errlen, "the file must be an absolute path");
		return -EINVAL;
	}
	memset(c, 0, sizeof(*c));
	c->snaplen = req->snaplen != 0 ? req->snaplen : capture_snaplen_default();
	rc = capture_filter_load(&c->f, req->filter, c->snaplen, err, errlen);
	if (rc < 0)
		goto free;
	fd = open(req->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot write %s: %s", req->file, strerror(errno));
		goto free;
	}
	*usage = false;
	elt = rte_pcapng_mbuf_size(c->snaplen);
	nb_pool = RTE_MAX(
		CAPTURE_POOL_BYTES / (elt + sizeof(struct rte_mbuf)), (uint32_t)CAPTURE_POOL_MIN);
	nb_pool = RTE_MIN(nb_pool, (uint32_t)(2 * CAPTURE_RING_SIZE - 1));
	c->pool = rte_pktmbuf_pool_create("dp_capture", nb_pool, CAPTURE_POOL_CACHE, 0,
		(uint16_t)RTE_MIN(elt, (uint32_t)UINT16_MAX), (int)rte_socket_id());
	c->ring = rte_ring_create(
		"dp_capture", CAPTURE_RING_SIZE, (int)rte_socket_id(), RING_F_SC_DEQ);
	if (c->pool == NULL || c->ring == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "no memory for the capture's pool and ring: %s",
			rte_strerror(rte_errno));
		goto close;
	}
	if (uname(&un) == 0)
		snprintf(os, sizeof(os), "%.64s %.64s", un.sysname, un.release);
	else
		snprintf(os, sizeof(os), "Linux");
	/* the section header, then one interface block per DPDK port (its name and
	 * driver come from ethdev) */
	snprintf(app, sizeof(app), "dpfwd %s (%s)", DP_VERSION, rte_version());
	capture_comment(comment, sizeof(comment), req->filter);
	cap.pcapng = rte_pcapng_fdopen(fd, os, NULL, app, comment);
	if (cap.pcapng == NULL) {
		rc = -rte_errno;
		snprintf(err, errlen, "rte_pcapng_fdopen %s: %s", req->file,
			rte_strerror(rte_errno));
		goto close;
	}
	/* a trace may have the tap set already: what a port's flag lets the workers
	 * read is in place before the flag */
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	for (i = 0; i < dp_nb_phys_ports; i++) {
		if (req->port >= 0 && req->port != i)
			continue;
		c->rx[dp_ports[i].port_id] = req->rx;
		c->tx[dp_ports[i].port_id] = req->tx;
	}
	cap.ever = true;
	cap.running = true;
	dp_strlcpy(cap.file, req->file, sizeof(cap.file));
	dp_strlcpy(cap.filter, req->filter != NULL ? req->filter : "", sizeof(cap.filter));
	cap.reason[0] = '\0';
	cap.port = req->port;
	cap.rx = req->rx;
	cap.tx = req->tx;
	cap.count = req->count;
	cap.start_ms = dp_ctl_now_ms();
	cap.deadline_ms = req->seconds != 0 ? cap.start_ms + req->seconds * 1000 : 0;
	cap.written = cap.beyond_count = cap.matched = cap.ring_full = cap.pool_empty = 0;
	cap.started = time(NULL);
	DP_LOG(INFO, capture,
		"capture to %s: port %d (-1: all), %s, filter '%s' run as %s, snaplen %u", cap.file,
		req->port,
		req->rx && req->tx ? "rx and tx"
		: req->rx          ? "rx"
				   : "tx",
		cap.filter, mode_names[c->f.mode], c->snaplen);
	/* everything the tap reads is in place before the workers can see it */
	capture_tap_update();
	return 0;

close:
	if (cap.pcapng != NULL) {
		rte_pcapng_close(cap.pcapng); /* closes fd */
		cap.pcapng = NULL;
	} else
		close(fd);
free:
	capture_free();
	return rc;
}

/* The capture as JSON: running or the last one. */
static json_t *
capture_json(void)
{
	const struct capture_live *c = &capture_live;
	uint64_t matched = cap.matched, ring_full = cap.ring_full, pool_empty = cap.pool_empty;
	uint64_t end = cap.running ? dp_ctl_now_ms() : cap.stop_ms;
	uint64_t lost;
	uint16_t i;

	if (!cap.ever)
		return json_pack("{s:s}", "state", "none");
	if (cap.running)
		for (i = 0; i < DP_GRAPH_MAX_WORKERS; i++) {
			matched += c->w[i].matched;
			ring_full += c->w[i].ring_full;
			pool_empty += c->w[i].pool_empty;
		}
	lost = ring_full + pool_empty;
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:b, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
		"state", cap.running ? "running" : "done", "file", cap.file, "filter", cap.filter,
		"stopped_by", cap.reason, "port", cap.port, "rx", cap.rx, "tx", cap.tx, "count",
		(json_int_t)cap.count, "written", (json_int_t)cap.written, "matched",
		(json_int_t)matched, "lost", (json_int_t)lost, "lost_ring_full",
		(json_int_t)ring_full, "lost_pool_empty", (json_int_t)pool_empty, "seconds",
		(double)(end - cap.start_ms) / 1000.0);
}

struct capture_call {
	const struct dp_capture_req *req;
	bool usage;
	char *err;
	size_t errlen;
	json_t *res;
};

static int
call_start(void *arg)
{
	struct capture_call *a = arg;
	int rc = dp_capture_start(a->req, &a->usage, a->err, a->errlen);

	if (rc == 0)
		a->res = json_pack("{s:s, s:s, s:i}", "file", cap.file, "filter_mode",
			mode_names[capture_live.f.mode], "snaplen", (int)capture_live.snaplen);
	return rc;
}

static int
call_stop(void *arg)
{
	struct capture_call *a = arg;
	int rc = dp_capture_stop("stop");

	if (rc < 0)
		snprintf(a->err, a->errlen, "no capture runs");
	a->res = capture_json();
	return rc;
}

static int
call_status(void *arg)
{
	struct capture_call *a = arg;

	a->res = capture_json();
	return 0;
}

/*
 * Params of /dpfwd/capture/start: a JSON object (a filter holds spaces,
 * commas and quotes, which a JSON string carries as they are):
 * {"port": N or "all", "dir": "rx"|"tx"|"both", "filter": "...", "count": N,
 *  "seconds": N, "snaplen": N, "file": "/abs/path.pcapng"}
 */
static int
act_start(const char *params, json_t **res, char *err, size_t errlen)
{
	struct dp_capture_req req = { .port = -1, .rx = true };
	struct capture_call a = { .req = &req, .err = err, .errlen = errlen };
	json_t *p, *port = NULL;
	const char *dir = "rx";
	json_error_t je;
	json_int_t count = 0, seconds = 0, snaplen = 0;
	int rc;

	p = json_loads(params, 0, &je);
	if (p == NULL ||
		json_unpack_ex(p, &je, JSON_STRICT, "{s?o, s?s, s?s, s?I, s?I, s?I, s:s}", "port",
			&port, "dir", &dir, "filter", &req.filter, "count", &count, "seconds",
			&seconds, "snaplen", &snaplen, "file", &req.file) != 0) {
		snprintf(err, errlen,
			"params: %s (a JSON object: port, dir, filter, count, "
			"seconds, snaplen, file)",
			je.text);
		*res = json_pack("{s:b}", "usage", 1);
		json_decref(p);
		return -EINVAL;
	}
	rc = 0;
	if (port != NULL && json_is_integer(port) && json_integer_value(port) >= 0 &&
		json_integer_value(port) < RTE_MAX_ETHPORTS)
		req.port = (int)json_integer_value(port);
	else if (port != NULL &&
		 !(json_is_string(port) && strcmp(json_string_value(port), "all") == 0))
		rc = snprintf(err, errlen, "port: a port number or \"all\"");
	if (strcmp(dir, "rx") == 0 || strcmp(dir, "tx") == 0 || strcmp(dir, "both") == 0) {
		req.rx = strcmp(dir, "tx") != 0;
		req.tx = strcmp(dir, "rx") != 0;
	} else
		rc = snprintf(err, errlen, "dir %s: rx, tx or both", dir);
	if (count < 0 || seconds < 0 || snaplen < 0 || snaplen > UINT32_MAX)
		rc = snprintf(err, errlen, "count, seconds and snaplen are >= 0");
	if (rc != 0) {
		*res = json_pack("{s:b}", "usage", 1);
		json_decref(p);
		return -EINVAL;
	}
	req.count = (uint64_t)count;
	req.seconds = (uint64_t)seconds;
	req.snaplen = (uint32_t)snaplen;
	rc = dp_ctl_call(call_start, &a, CAPTURE_CALL_TIMEOUT);
	json_decref(p);
	*res = rc == 0 ? a.res : json_pack("{s:b}", "usage", a.usage);
	return rc;
}

static int
act_stop(const char *params, json_t **res, char *err, size_t errlen)
{
	struct capture_call a = { .err = err, .errlen = errlen };
	int rc;

	RTE_SET_USED(params);
	rc = dp_ctl_call(call_stop, &a, CAPTURE_CALL_TIMEOUT);
	*res = a.res;
	return rc;
}

static int
act_status(const char *params, json_t **res, char *err, size_t errlen)
{
	struct capture_call a = { .err = err, .errlen = errlen };
	int rc;

	RTE_SET_USED(params);
	rc = dp_ctl_call(call_status, &a, CAPTURE_CALL_TIMEOUT);
	*res = a.res;
	return rc;
}

int
dp_capture_telemetry_register(void)
{
	int rc = dp_telemetry_action_register("/dpfwd/capture/start",
		"Start a pcapng capture. Params: JSON {port, dir, filter, count, seconds, snaplen, "
		"file} (docs/capture.md)",
		act_start);

	if (rc == 0)
		rc = dp_telemetry_action_register(
			"/dpfwd/capture/stop", "Stop the capture; the file is completed", act_stop);
	if (rc == 0)
		rc = dp_telemetry_action_register("/dpfwd/capture/status",
			"The running capture, or the last: packets written, lost, why it stopped",
			act_status);
	return rc;
}
