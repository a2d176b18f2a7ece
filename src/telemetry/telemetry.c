/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "dp_build_config.h"
#include "dp_common.h"
#include "dp_telemetry.h"

RTE_LOG_REGISTER(dp_logtype_telemetry, dpfwd.telemetry, INFO);

#define MAX_SECTIONS 32

struct section {
	char key[32];
	char cmd[64];
	dp_telemetry_fill_t fill;
	void *arg;
};

static struct section sections[MAX_SECTIONS];
static unsigned int nb_sections;
static double start_time;
/*
 * Fill functions run on three threads: the main lcore (snapshots), rte_telemetry's
 * socket thread (commands) and the metrics HTTP thread. Some must not run twice at
 * once (rte_eth_stats_get is not thread-safe: ixgbe adds clear-on-read registers into
 * a software sum), and teardown must not free what a fill reads (graphs, ports):
 * the section list and every fill are under this lock.
 */
static pthread_mutex_t sections_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * rte_tel_data holds at most two levels (a dict or array of containers whose
 * values are scalars), numbers are integers, and arrays are of one type. So a
 * JSON value is mapped: integers and booleans as u64/int, reals and nulls as
 * strings, and anything nested deeper spread into keys of its own
 * (tel_add_flat), or as its JSON text when a dict has no room for that.
 */
/* rte_telemetry accepts names of [A-Za-z0-9_/] only (a '.' too makes the add
 * fail, and the value is lost): "port_tx-1" -> "port_tx_1" */
static const char *
tel_name(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] != '\0' && i + 1 < len; i++)
		out[i] =
			isalnum((unsigned char)in[i]) || in[i] == '_' || in[i] == '/' ? in[i] : '_';
	out[i] = '\0';
	return out;
}

/* DPDK 22.11's JSON writer reads a byte >= 0x80 as a negative control character and writes a
 * stray escape for it (or drops it): a reply dpctl cannot parse. Strings go to rte_telemetry
 * in ASCII, such bytes as '?' (cut where rte_telemetry cuts them). */
static const char *
tel_ascii(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] != '\0' && i + 1 < len; i++)
		out[i] = (unsigned char)in[i] < 0x80 ? in[i] : '?';
	out[i] = '\0';
	return out;
}

static void
tel_add_scalar_dict(struct rte_tel_data *d, const char *key, json_t *v)
{
	char buf[64], nbuf[RTE_TEL_MAX_STRING_LEN], sbuf[RTE_TEL_MAX_STRING_LEN];
	const char *name = tel_name(key, nbuf, sizeof(nbuf));

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		if (json_integer_value(v) >= 0)
			rte_tel_data_add_dict_u64(d, name, (uint64_t)json_integer_value(v));
		else
			rte_tel_data_add_dict_int(d, name, (int)json_integer_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		rte_tel_data_add_dict_u64(d, name, json_is_true(v));
		break;
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.3f", json_real_value(v));
		rte_tel_data_add_dict_string(d, name, buf);
		break;
	case JSON_STRING:
		rte_tel_data_add_dict_string(
			d, name, tel_ascii(json_string_value(v), sbuf, sizeof(sbuf)));
		break;
	case JSON_NULL:
		rte_tel_data_add_dict_string(d, name, "null");
		break;
	default: {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII);

		rte_tel_data_add_dict_string(d, name, s ? s : "?");
		free(s);
		break;
	}
	}
}

/* Scalars under @p v, counted as tel_add_flat() would add them. */
static size_t
tel_leaves(json_t *v)
{
	const char *k;
	json_t *e;
	size_t i, n = 0;

	if (json_is_object(v)) {
		json_object_foreach(v, k, e) n += tel_leaves(e);
		return n;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, e) n += tel_leaves(e);
		return n;
	}
	return 1;
}

/*
 * @p v under key @p path in dict @p d, its nested values as keys of their own:
 * "nodes/ip4_fwd/calls"; an array's elements by index after an underscore,
 * "lcores/_0/p50_ns". rte_telemetry holds containers two levels deep and
 * strings of 127 characters: deeper values as JSON text were cut there,
 * silently. '/' and '_' because rte_telemetry takes them in names and no key
 * of dpfwd's has a '/' or is '_' and digits; dpctl puts the levels back.
 */
static void
tel_add_flat(struct rte_tel_data *d, const char *path, json_t *v)
{
	char sub[RTE_TEL_MAX_STRING_LEN];
	const char *k;
	json_t *e;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, e)
		{
			snprintf(sub, sizeof(sub), "%s/%s", path, k);
			tel_add_flat(d, sub, e);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
		{
			snprintf(sub, sizeof(sub), "%s/_%zu", path, i);
			tel_add_flat(d, sub, e);
		}
	} else {
		tel_add_scalar_dict(d, path, v);
	}
}

static void
tel_from_json_flat(struct rte_tel_data *d, json_t *v)
{
	const char *k;
	json_t *e;
	size_t i, leaves;

	if (json_is_object(v)) {
		/* a dict holds RTE_TEL_MAX_DICT_ENTRIES: the nested values that fit are
		 * spread into keys (tel_add_flat), the others stay JSON text */
		size_t room = json_object_size(v) < RTE_TEL_MAX_DICT_ENTRIES
				      ? RTE_TEL_MAX_DICT_ENTRIES - json_object_size(v)
				      : 0;

		rte_tel_data_start_dict(d);
		json_object_foreach(v, k, e)
		{
			const size_t n = json_is_object(e) || json_is_array(e) ? tel_leaves(e) : 0;

			if (n > 0 && n - 1 <= room) {
				room -= n - 1;
				tel_add_flat(d, k, e);
			} else {
				tel_add_scalar_dict(d, k, e);
			}
		}
		return;
	}
	/* an array of containers: a dict of its elements' values by index
	 * ("_0/lcore", "_0/p50_ns", ...) when they fit */
	leaves = tel_leaves(v);
	if (leaves > json_array_size(v) && leaves <= RTE_TEL_MAX_DICT_ENTRIES) {
		char name[RTE_TEL_MAX_STRING_LEN];

		rte_tel_data_start_dict(d);
		json_array_foreach(v, i, e)
		{
			snprintf(name, sizeof(name), "_%zu", i);
			tel_add_flat(d, name, e);
		}
		return;
	}
	/* arrays of scalars, or too big: strings (a string as it is, anything else as
	 * its JSON text) */
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	json_array_foreach(v, i, e)
	{
		char sbuf[RTE_TEL_MAX_STRING_LEN];
		char *s;

		if (json_is_string(e)) {
			rte_tel_data_add_array_string(
				d, tel_ascii(json_string_value(e), sbuf, sizeof(sbuf)));
			continue;
		}
		s = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
		rte_tel_data_add_array_string(d, s ? s : "?");
		free(s);
	}
}

static void
tel_from_json(struct rte_tel_data *d, json_t *v)
{
	const char *k;
	json_t *e;
	size_t i;
	char name[RTE_TEL_MAX_STRING_LEN];

	if (json_is_object(v)) {
		rte_tel_data_start_dict(d);
		json_object_foreach(v, k, e)
		{
			if (json_is_object(e) || json_is_array(e)) {
				struct rte_tel_data *c = rte_tel_data_alloc();

				if (c == NULL)
					continue;
				tel_from_json_flat(c, e);
				rte_tel_data_add_dict_container(
					d, tel_name(k, name, sizeof(name)), c, 0);
			} else {
				tel_add_scalar_dict(d, k, e);
			}
		}
		return;
	}
	if (json_is_array(v)) {
		/* an array of objects becomes a dict keyed by index: tel arrays are one type */
		rte_tel_data_start_dict(d);
		json_array_foreach(v, i, e)
		{
			snprintf(name, sizeof(name), "%zu", i);
			if (json_is_object(e) || json_is_array(e)) {
				struct rte_tel_data *c = rte_tel_data_alloc();

				if (c == NULL)
					continue;
				tel_from_json_flat(c, e);
				rte_tel_data_add_dict_container(d, name, c, 0);
			} else {
				tel_add_scalar_dict(d, name, e);
			}
		}
	}
}

static int
tel_cmd(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i;
	json_t *v;

	RTE_SET_USED(params);
	pthread_mutex_lock(&sections_lock);
	for (i = 0; i < nb_sections; i++)
		if (strcmp(sections[i].cmd, cmd) == 0)
			break;
	v = i < nb_sections ? sections[i].fill(sections[i].arg) : NULL;
	pthread_mutex_unlock(&sections_lock);
	if (i == nb_sections)
		return -EINVAL;
	if (v == NULL)
		return -ENOMEM;
	tel_from_json(d, v);
	json_decref(v);
	return 0;
}

/* ---- actions: commands that change something (routes, counters) ---- */

#define MAX_ACTIONS 24

static struct {
	char cmd[64];
	dp_telemetry_action_t fn;
} actions[MAX_ACTIONS];
static unsigned int nb_actions;

/* An action's error as a JSON string: jansson takes UTF-8 only, and an error may quote the
 * params as the user sent them (bytes that are not UTF-8: ASCII, as rte_telemetry gets it). */
static json_t *
action_error(const char *err)
{
	char buf[RTE_TEL_MAX_STRING_LEN];
	json_t *v = json_string(err);

	return v != NULL ? v : json_string(tel_ascii(err, buf, sizeof(buf)));
}

static int
tel_action(const char *cmd, const char *params, struct rte_tel_data *d)
{
	dp_telemetry_action_t fn = NULL;
	char err[256] = "";
	json_t *res = NULL;
	unsigned int i;
	int rc;

	pthread_mutex_lock(&sections_lock);
	for (i = 0; i < nb_actions; i++)
		if (strcmp(actions[i].cmd, cmd) == 0)
			fn = actions[i].fn;
	pthread_mutex_unlock(&sections_lock);
	if (fn == NULL)
		return -EINVAL;
	rc = fn(params ? params : "", &res, err, sizeof(err));
	if (res == NULL)
		res = json_object();
	json_object_set_new(res, "ok", json_boolean(rc == 0));
	if (rc != 0)
		json_object_set_new(res, "error", action_error(err[0] ? err : strerror(-rc)));
	tel_from_json(d, res);
	json_decref(res);
	/* the answer says what went wrong; a negative return would hide it */
	return 0;
}

/*
 * rte_telemetry_register_cmd(), whose -EINVAL means both "registered already"
 * (a second setup in one process, tests: the first stays and dispatches by
 * name anyway) and "help text too long": the length is checked here first, so
 * that a long help is an error rather than a command that never appears.
 */
static int
tel_register(const char *cmd, telemetry_cb fn, const char *help)
{
	int rc;

	if (strlen(help) >= RTE_TEL_MAX_STRING_LEN) {
		DP_LOG(ERR, telemetry, "%s: help text of %zu characters, at most %d", cmd,
			strlen(help), RTE_TEL_MAX_STRING_LEN - 1);
		return -E2BIG;
	}
	rc = rte_telemetry_register_cmd(cmd, fn, help);
	return rc == -EINVAL ? 0 : rc;
}

int
dp_telemetry_action_register(const char *cmd, const char *help, dp_telemetry_action_t fn)
{
	unsigned int i;
	int rc = 0;

	pthread_mutex_lock(&sections_lock);
	for (i = 0; i < nb_actions; i++)
		if (strcmp(actions[i].cmd, cmd) == 0)
			break;
	if (i == MAX_ACTIONS) {
		rc = -ENOSPC;
	} else {
		if (i == nb_actions) {
			nb_actions++;
			/* rte_telemetry keeps commands for the process's life */
			rc = tel_register(cmd, tel_action, help);
		}
		dp_strlcpy(actions[i].cmd, cmd, sizeof(actions[i].cmd));
		actions[i].fn = fn;
	}
	pthread_mutex_unlock(&sections_lock);
	return rc;
}

int
dp_telemetry_action_run(
	const char *cmd, const char *params, json_t **result, char *err, size_t errlen)
{
	dp_telemetry_action_t fn = NULL;
	unsigned int i;

	pthread_mutex_lock(&sections_lock);
	for (i = 0; i < nb_actions; i++)
		if (strcmp(actions[i].cmd, cmd) == 0)
			fn = actions[i].fn;
	pthread_mutex_unlock(&sections_lock);
	if (fn == NULL) {
		snprintf(err, errlen, "no command %s", cmd);
		return -ENOENT;
	}
	return fn(params, result, err, errlen);
}

int
dp_telemetry_section_register(
	const char *key, const char *cmd, const char *help, dp_telemetry_fill_t fill, void *arg)
{
	struct section *s;
	unsigned int i;
	int rc = 0;

	pthread_mutex_lock(&sections_lock);
	if (start_time == 0)
		start_time = dp_time_mono();
	for (i = 0; i < nb_sections; i++)
		if (strcmp(sections[i].key, key) == 0) {
			rc = -EEXIST;
			goto out;
		}
	if (nb_sections == MAX_SECTIONS) {
		rc = -ENOSPC;
		goto out;
	}
	s = &sections[nb_sections];
	memset(s, 0, sizeof(*s));
	dp_strlcpy(s->key, key, sizeof(s->key));
	s->fill = fill;
	s->arg = arg;
	if (cmd != NULL) {
		dp_strlcpy(s->cmd, cmd, sizeof(s->cmd));
		/* rte_telemetry calls tel_cmd without its own lock held: no deadlock */
		rc = tel_register(s->cmd, tel_cmd, help);
		if (rc < 0)
			goto out;
	}
	nb_sections++;
out:
	pthread_mutex_unlock(&sections_lock);
	return rc;
}

void
dp_telemetry_sections_clear(void)
{
	/* once this returns, no fill runs and none will start */
	pthread_mutex_lock(&sections_lock);
	nb_sections = 0;
	pthread_mutex_unlock(&sections_lock);
}

json_t *
dp_telemetry_snapshot(void)
{
	json_t *root = json_object();
	unsigned int i;

	if (root == NULL)
		return NULL;
	json_object_set_new(root, "schema_version", json_integer(DP_TELEMETRY_SCHEMA_VERSION));
	json_object_set_new(root, "dpfwd_version", json_string(DP_VERSION));
	json_object_set_new(root, "time_unix", json_real(dp_time_real()));
	json_object_set_new(root, "uptime_s", json_real(dp_time_mono() - start_time));
	json_object_set_new(root, "tsc_hz", json_integer((json_int_t)rte_get_tsc_hz()));
	pthread_mutex_lock(&sections_lock);
	for (i = 0; i < nb_sections; i++) {
		json_t *v = sections[i].fill(sections[i].arg);

		json_object_set_new(root, sections[i].key, v ? v : json_null());
	}
	pthread_mutex_unlock(&sections_lock);
	return root;
}

int
dp_telemetry_json_write(const char *path, const json_t *snap)
{
	char tmp[4096];
	char *text;
	size_t len, done;
	ssize_t n = 0;
	int fd;
	int rc;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	/* the text whole, then written in one go: json_dumpfd() makes a write() of each
	 * token, tens of thousands a snapshot, on the control lcore */
	/* 16 significant digits: time_unix (10 digits of seconds) keeps its microseconds */
	text = json_dumps(snap, JSON_INDENT(1) | JSON_REAL_PRECISION(16));
	if (text == NULL)
		return -ENOMEM;
	len = strlen(text);
	text[len] = '\n'; /* in place of the terminating NUL, which is not written */
	len++;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		free(text);
		return rc;
	}
	for (done = 0; done < len; done += (size_t)n) {
		n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n <= 0)
			break;
	}
	free(text);
	if (done < len) {
		close(fd);
		unlink(tmp);
		return -EIO;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		rc = -errno;
		unlink(tmp);
		return rc;
	}
	return 0;
}

static uint64_t
jget(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

static uint64_t
sum_ports(const json_t *snap, const char *key)
{
	json_t *ports = json_object_get(snap, "ports");
	json_t *p;
	uint64_t s = 0;
	size_t i;

	json_array_foreach(ports, i, p) s += jget(p, key);
	return s;
}

static const json_t *
find_lcore(const json_t *snap, uint64_t lcore)
{
	json_t *lcores = json_object_get(snap, "lcores");
	json_t *l;
	size_t i;

	json_array_foreach(lcores, i, l) if (jget(l, "lcore") == lcore) return l;
	return NULL;
}

size_t
dp_telemetry_buckets_diff(
	const json_t *cur, const json_t *prev, struct dp_hist_bucket *out, size_t max)
{
	const json_t *e;
	size_t i, j = 0, n = 0;

	/* both arrays are sorted by low, and prev's buckets are a subset of cur's */
	json_array_foreach(cur, i, e)
	{
		struct dp_hist_bucket b = {
			.low = (uint64_t)json_integer_value(json_array_get(e, 0)),
			.width = (uint64_t)json_integer_value(json_array_get(e, 1)),
			.count = (uint64_t)json_integer_value(json_array_get(e, 2)),
		};

		while (j < json_array_size(prev) && (uint64_t)json_integer_value(json_array_get(
							    json_array_get(prev, j), 0)) < b.low)
			j++;
		if (j < json_array_size(prev) && (uint64_t)json_integer_value(json_array_get(
							 json_array_get(prev, j), 0)) == b.low)
			b.count -= (uint64_t)json_integer_value(
				json_array_get(json_array_get(prev, j), 2));
		if (b.count != 0 && n < max)
			out[n++] = b;
	}
	return n;
}

void
dp_telemetry_rates(json_t *cur, const json_t *prev, char *line, size_t linelen)
{
	json_t *iv = json_object();
	json_t *lrates = json_array();
	json_t *lcores = json_object_get(cur, "lcores");
	json_t *l;
	double dt = 0;
	uint64_t rx = 0, tx = 0, rx_prev = 0, tx_prev = 0;
	uint64_t obytes = 0, drops;
	double p50 = -1, p99 = -1;
	size_t i;
	int n = 0;

	if (iv == NULL || lrates == NULL) {
		json_decref(iv);
		json_decref(lrates);
		return;
	}
	if (prev != NULL)
		dt = json_real_value(json_object_get(cur, "uptime_s")) -
		     json_real_value(json_object_get(prev, "uptime_s"));
	if (dt <= 0)
		dt = 1e-9;

	json_array_foreach(lcores, i, l)
	{
		const json_t *pl = prev ? find_lcore(prev, jget(l, "lcore")) : NULL;
		uint64_t drx = jget(l, "rx_pkts") - jget(pl, "rx_pkts");
		uint64_t dbusy = jget(l, "busy_cycles") - jget(pl, "busy_cycles");
		uint64_t didle = jget(l, "idle_cycles") - jget(pl, "idle_cycles");
		json_t *lr = json_object();
		json_t *insn = json_object_get(l, "instructions");

		/* bytes as the workers sent them: virtual sinks (net_null) count no obytes */
		obytes += jget(l, "tx_bytes") - jget(pl, "tx_bytes");
		rx += jget(l, "rx_pkts");
		tx += jget(l, "tx_pkts");
		rx_prev += jget(pl, "rx_pkts");
		tx_prev += jget(pl, "tx_pkts");
		json_object_set_new(lr, "lcore", json_integer((json_int_t)jget(l, "lcore")));
		json_object_set_new(lr, "rx_pps", json_real((double)drx / dt));
		json_object_set_new(lr, "cycles_per_pkt",
			drx ? json_real((double)dbusy / (double)drx) : json_null());
		json_object_set_new(lr, "busy_pct",
			dbusy + didle ? json_real(100.0 * (double)dbusy / (double)(dbusy + didle))
				      : json_real(0));
		if (json_is_integer(insn) && drx)
			json_object_set_new(lr, "insn_per_pkt",
				json_real((double)(jget(l, "instructions") -
						   jget(pl, "instructions")) /
					  (double)drx));
		else
			json_object_set_new(lr, "insn_per_pkt", json_null());
		json_array_append_new(lrates, lr);
	}
	drops = jget(json_object_get(cur, "drops"), "total") -
		(prev ? jget(json_object_get(prev, "drops"), "total") : 0);

	json_object_set_new(iv, "seconds", json_real(dt));
	json_object_set_new(iv, "rx_pps", json_real((double)(rx - rx_prev) / dt));
	json_object_set_new(iv, "tx_pps", json_real((double)(tx - tx_prev) / dt));
	/* frame bytes without FCS; on the wire each frame also
	 * takes 4 B FCS + 8 B preamble + 12 B inter-frame gap */
	json_object_set_new(iv, "tx_gbps", json_real((double)obytes * 8 / dt / 1e9));
	json_object_set_new(iv, "tx_gbps_wire",
		json_real((double)(obytes + 24 * (tx - tx_prev)) * 8 / dt / 1e9));
	json_object_set_new(iv, "drops", json_integer((json_int_t)drops));
	json_object_set_new(iv, "lcores", lrates);
	json_object_set_new(cur, "interval", iv);
	/* the delay of the packets sent in this interval, from the histogram's growth */
	{
		struct dp_hist_bucket b[256];
		const json_t *dc = json_object_get(json_object_get(cur, "delay"), "total");
		const json_t *dp =
			prev ? json_object_get(json_object_get(prev, "delay"), "total") : NULL;
		const double ns = 1e9 / (double)jget(cur, "tsc_hz");
		size_t nb = dp_telemetry_buckets_diff(json_object_get(dc, "buckets_cycles"),
			json_object_get(dp, "buckets_cycles"), b, sizeof(b) / sizeof(b[0]));

		p50 = dp_hist_bucket_quantile(b, nb, 0.5) * ns;
		p99 = dp_hist_bucket_quantile(b, nb, 0.99) * ns;
		json_object_set_new(iv, "delay_p50_ns", nb ? json_real(p50) : json_null());
		json_object_set_new(iv, "delay_p99_ns", nb ? json_real(p99) : json_null());
	}

	if (line == NULL)
		return;
	n = snprintf(line, linelen,
		"[%7.1fs] rx %7.3f Mpps  tx %7.3f Mpps %7.3f Gbps  drops %-8" PRIu64,
		json_real_value(json_object_get(cur, "uptime_s")),
		(double)(rx - rx_prev) / dt / 1e6, (double)(tx - tx_prev) / dt / 1e6,
		(double)obytes * 8 / dt / 1e9, drops);
	json_array_foreach(lrates, i, l)
	{
		json_t *c = json_object_get(l, "cycles_per_pkt");
		json_t *ipp = json_object_get(l, "insn_per_pkt");

		if (n < 0 || (size_t)n >= linelen)
			return;
		n += snprintf(line + n, linelen - n, " | lc%" PRIu64 " ", jget(l, "lcore"));
		if (n < 0 || (size_t)n >= linelen)
			return;
		if (json_is_real(c))
			n += snprintf(line + n, linelen - n, "%6.1f cyc/pkt", json_real_value(c));
		else
			n += snprintf(line + n, linelen - n, "   - cyc/pkt");
		if (n < 0 || (size_t)n >= linelen)
			return;
		if (json_is_real(ipp))
			n += snprintf(
				line + n, linelen - n, " %6.1f insn/pkt", json_real_value(ipp));
		if (n < 0 || (size_t)n >= linelen)
			return;
		n += snprintf(line + n, linelen - n, " %3.0f%% busy",
			json_real_value(json_object_get(l, "busy_pct")));
	}
	if (n >= 0 && (size_t)n < linelen)
		n += snprintf(line + n, linelen - n, " | nombuf %" PRIu64 " imissed %" PRIu64,
			sum_ports(cur, "rx_nombuf"), sum_ports(cur, "imissed"));
	if (n >= 0 && (size_t)n < linelen && p50 >= 0)
		snprintf(line + n, linelen - n, " | delay p50 %.2f p99 %.2f us", p50 / 1e3,
			p99 / 1e3);
}

int
dp_telemetry_insn_open(pid_t tid, char *why, size_t whylen)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(why, whylen, "perf_event_open(instructions) failed: %s%s", strerror(e),
			e == ENOENT || e == EOPNOTSUPP
				? " (no hardware PMU: a VM without counters?)"
			: e == EACCES || e == EPERM
				? " (not allowed: run as root or lower kernel.perf_event_paranoid)"
				: "");
		return -e;
	}
	return fd;
}

int
dp_telemetry_insn_read(int fd, uint64_t *count)
{
	if (read(fd, count, sizeof(*count)) != (ssize_t)sizeof(*count))
		return -EIO;
	return 0;
}
