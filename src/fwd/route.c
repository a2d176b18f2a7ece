/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route changes while traffic flows: add and delete from telemetry commands,
 * reload of the config's routes on SIGHUP (and from a command). See dp_fwd.h
 * for why no worker stops and no packet is lost or misrouted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_rcu_qsbr.h>

#include "dp_common.h"
#include "dp_config.h"
#include "dp_ctl.h"
#include "dp_fwd.h"
#include "dp_graph.h"
#include "dp_telemetry.h"

#define ROUTE_CALL_TIMEOUT_MS 30000 /* a reload of a million routes takes seconds */

static struct {
	uint64_t added, deleted, reloads, reload_errors;
	double last_reload_s;
} route_stats;

static int
rcu_attach(struct rte_lpm *lpm)
{
	struct rte_lpm_rcu_config rc = {
		.v = dp_graph_qsv,
		.mode = RTE_LPM_QSBR_MODE_DQ,
	};

	if (dp_graph_qsv == NULL)
		return 0; /* no worker: nothing reads concurrently */
	return rte_lpm_rcu_qsbr_add(lpm, &rc);
}

/* ---- on the control lcore ---- */

struct route_req {
	const char *text;
	char *err;
	size_t errlen;
};

static int
do_add(void *arg)
{
	struct route_req *q = arg;
	struct dp_config_route r;
	uint32_t nh;
	int rc;

	rc = dp_config_route_parse(q->text, &r, q->err, q->errlen);
	if (rc < 0)
		return rc;
	if (r.port >= dp_nb_ports) {
		snprintf(q->err, q->errlen, "port %u does not exist", r.port);
		return -EINVAL;
	}
	rc = dp_fwd_route4_nh(&r, &nh);
	if (rc == 0)
		rc = rte_lpm_add(dp_fwd.lpm, r.prefix, r.plen, nh);
	if (rc < 0) {
		snprintf(q->err, q->errlen, "cannot add '%s': %s", q->text,
			rc == -ENOSPC ? "table full" : strerror(-rc));
		return rc;
	}
	dp_fwd.nb_routes++;
	route_stats.added++;
	return 0;
}

static int
do_del(void *arg)
{
	struct route_req *q = arg;
	char text[80];
	struct dp_config_route r;
	uint32_t nh;
	uint8_t depth;
	int rc;

	/* "a.b.c.d/len": parsed as an on-link route to reuse the parser */
	snprintf(text, sizeof(text), "%s port 0", q->text);
	rc = dp_config_route_parse(text, &r, q->err, q->errlen);
	if (rc < 0)
		return rc;
	depth = r.plen;
	if (rte_lpm_is_rule_present(dp_fwd.lpm, r.prefix, depth, &nh) != 1) {
		snprintf(q->err, q->errlen, "no route %s", q->text);
		return -ENOENT;
	}
	if (nh == DP_FWD_NH_LOCAL) {
		snprintf(q->err, q->errlen, "%s is a port address: change the config", q->text);
		return -EINVAL;
	}
	rc = rte_lpm_delete(dp_fwd.lpm, r.prefix, depth);
	if (rc < 0) {
		snprintf(q->err, q->errlen, "cannot delete %s: %s", q->text, strerror(-rc));
		return rc;
	}
	dp_fwd.nb_routes--;
	route_stats.deleted++;
	return 0;
}

struct reload_req {
	const char *path;
	char *err;
	size_t errlen;
};

static int
do_reload(void *arg)
{
	struct reload_req *q = arg;
	struct dp_config cfg;
	struct rte_lpm *lpm = NULL, *old;
	uint64_t t0 = rte_get_tsc_cycles();
	uint32_t nb = 0;
	int rc;

	dp_config_init(&cfg);
	rc = dp_config_load(&cfg, q->path, q->err, q->errlen);
	if (rc == 0)
		rc = dp_config_validate(&cfg, q->err, q->errlen);
	if (rc == 0 && cfg.nb_ports != dp_nb_ports) {
		snprintf(q->err, q->errlen, "%s: %u ports, dpfwd runs %u: ports change only with a restart",
			q->path, cfg.nb_ports, dp_nb_ports);
		rc = -EINVAL;
	}
	if (rc == 0) {
		lpm = dp_fwd_lpm4_create(cfg.nb_routes, cfg.nb_ports);
		if (lpm == NULL) {
			snprintf(q->err, q->errlen, "out of memory for %u routes: %s", cfg.nb_routes,
				rte_strerror(rte_errno));
			rc = -ENOMEM;
		}
	}
	if (rc == 0)
		rc = dp_fwd_lpm4_fill(lpm, &cfg, &nb, q->err, q->errlen);
	if (rc == 0)
		rc = rcu_attach(lpm);
	if (rc < 0) {
		rte_lpm_free(lpm);
		dp_config_free(&cfg);
		route_stats.reload_errors++;
		return rc;
	}
	/* workers pick the new table up at their next burst; once each has passed
	 * a walk, none holds the old one */
	old = dp_fwd.lpm;
	__atomic_store_n(&dp_fwd.lpm, lpm, __ATOMIC_RELEASE);
	dp_fwd.nb_routes = nb;
	if (dp_graph_qsv != NULL)
		rte_rcu_qsbr_synchronize(dp_graph_qsv, RTE_QSBR_THRID_INVALID);
	rte_lpm_free(old);
	dp_config_free(&cfg);
	route_stats.reloads++;
	route_stats.last_reload_s = (double)(rte_get_tsc_cycles() - t0) / (double)rte_get_tsc_hz();
	DP_LOG(INFO, fwd, "routes reloaded from %s: %u IPv4 routes in %.3f s", q->path, nb,
		route_stats.last_reload_s);
	return 0;
}

/* ---- from any thread ---- */

int
dp_route_add(const char *text, char *err, size_t errlen)
{
	struct route_req q = {.text = text, .err = err, .errlen = errlen};

	return dp_ctl_call(do_add, &q, ROUTE_CALL_TIMEOUT_MS);
}

int
dp_route_del(const char *prefix, char *err, size_t errlen)
{
	struct route_req q = {.text = prefix, .err = err, .errlen = errlen};

	return dp_ctl_call(do_del, &q, ROUTE_CALL_TIMEOUT_MS);
}

int
dp_route_reload(const char *path, char *err, size_t errlen)
{
	struct reload_req q = {.path = path, .err = err, .errlen = errlen};

	return dp_ctl_call(do_reload, &q, ROUTE_CALL_TIMEOUT_MS);
}

/* ---- telemetry commands ---- */

static const char *reload_path;

static int
act_add(const char *params, json_t **res, char *err, size_t errlen)
{
	RTE_SET_USED(res);
	return dp_route_add(params, err, errlen);
}

static int
act_del(const char *params, json_t **res, char *err, size_t errlen)
{
	RTE_SET_USED(res);
	return dp_route_del(params, err, errlen);
}

static int
act_reload(const char *params, json_t **res, char *err, size_t errlen)
{
	int rc;

	rc = dp_route_reload(params[0] ? params : reload_path, err, errlen);
	if (rc == 0)
		*res = json_pack("{s:I, s:f}", "ip4_routes", (json_int_t)dp_fwd.nb_routes,
			"seconds", route_stats.last_reload_s);
	return rc;
}

static json_t *
routes_fill(void *arg)
{
	RTE_SET_USED(arg);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:f}", "ip4_routes",
		(json_int_t)dp_fwd.nb_routes, "added", (json_int_t)route_stats.added, "deleted",
		(json_int_t)route_stats.deleted, "reloads", (json_int_t)route_stats.reloads,
		"reload_errors", (json_int_t)route_stats.reload_errors, "last_reload_seconds",
		route_stats.last_reload_s);
}

int
dp_route_start_cmds(const char *config_path)
{
	int rc;

	reload_path = config_path;
	rc = dp_telemetry_action_register("/dpfwd/route/add",
		"Add an IPv4 route. Params: 'a.b.c.d/len via a.b.c.d port N' or 'a.b.c.d/len port N'",
		act_add);
	if (rc == 0)
		rc = dp_telemetry_action_register("/dpfwd/route/del",
			"Delete an IPv4 route. Params: 'a.b.c.d/len'", act_del);
	if (rc == 0)
		rc = dp_telemetry_action_register("/dpfwd/route/reload",
			"Re-read the routes of the config file (or of the file given as params); "
			"the live table stays on any error",
			act_reload);
	if (rc == 0)
		rc = dp_telemetry_section_register("route_changes", "/dpfwd/fwd/route_changes",
			"Routes added, deleted, reloaded while running", routes_fill, NULL);
	return rc;
}

int
dp_route_start(void)
{
	memset(&route_stats, 0, sizeof(route_stats));
	return rcu_attach(dp_fwd.lpm);
}
