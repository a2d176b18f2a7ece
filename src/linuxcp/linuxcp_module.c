/* SPDX-License-Identifier: BSD-3-Clause */
/* The Linux control plane as a module (dp_module.h): [linux], the mirrors, netlink. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "dp_ctl.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_module.h"
#include "dp_telemetry.h"
#include "linuxcp_priv.h"

RTE_LOG_REGISTER(dp_logtype_linuxcp, dpfwd.linuxcp, INFO);

#define LCP_POLL_MS         1
#define LCP_TAP_MBUFS       1024 /* each mirror's RX ring, and frames in flight */
#define LCP_CALL_TIMEOUT_MS 2000

extern struct dp_config_section dp_linuxcp_section;

uint8_t lcp_service;
static bool lcp_on;

static uint32_t
linuxcp_mbuf_demand(const struct dp_config *cfg, unsigned int nb_workers)
{
	RTE_SET_USED(nb_workers);
	if (!dp_linuxcp_config(cfg)->enabled)
		return 0;
	return (uint32_t)cfg->nb_ports * LCP_TAP_MBUFS;
}

static int
linuxcp_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	int svc;

	lcp_on = dp_linuxcp_config(cfg)->enabled;
	if (!lcp_on)
		return 0;
	svc = dp_fwd_local_service_add("linux_punt", "linux_punt");
	if (svc < 0) {
		snprintf(err, errlen, "linux: cannot register the exception path: %s",
			strerror(-svc));
		return svc;
	}
	lcp_service = (uint8_t)svc;
	dp_fwd_local_other_set(false, lcp_service);
	dp_fwd_local_other_set(true, lcp_service);
	return 0;
}

static void
linuxcp_poll(uint64_t now_ms, void *arg)
{
	RTE_SET_USED(now_ms);
	RTE_SET_USED(arg);
	lcp_tap_poll();
	lcp_nl_poll();
}

static int
linuxcp_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	int rc;

	if (!lcp_on)
		return 0;
	rc = lcp_tap_start(cfg, err, errlen);
	if (rc < 0)
		return rc;
	rc = lcp_tap_addrs_set(cfg, err, errlen);
	if (rc == 0)
		rc = lcp_nl_start(cfg, err, errlen);
	if (rc == 0)
		rc = dp_ctl_timer_register("linuxcp", LCP_POLL_MS, linuxcp_poll, NULL);
	if (rc < 0) {
		lcp_nl_stop();
		lcp_tap_stop();
	}
	return rc;
}

static void
linuxcp_stop(void)
{
	if (!lcp_on)
		return;
	dp_fwd_local_other_set(false, 0);
	dp_fwd_local_other_set(true, 0);
}

static void
linuxcp_fini(void)
{
	lcp_nl_stop();
	lcp_tap_stop();
	lcp_on = false;
}

static json_t *
linuxcp_fill(void *arg)
{
	const struct lcp_stats *s = &lcp_stats;
	json_t *mirrors = json_array();
	uint16_t p;

	RTE_SET_USED(arg);
	for (p = 0; p < lcp_nb_mirrors; p++)
		json_array_append_new(mirrors,
			json_pack("{s:i, s:s, s:i, s:b}", "port", p, "name", lcp_mirrors[p].name,
				"ifindex", lcp_mirrors[p].ifindex, "up", lcp_mirrors[p].up));
	return json_pack("{s:b, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:I, s:I, s:I, s:I}",
		"enabled", lcp_on, "mirrors", mirrors, "punted", (json_int_t)s->punted, "injected",
		(json_int_t)s->injected, "neigh_copied", (json_int_t)s->neigh_copied,
		"netlink_messages", (json_int_t)s->nl_messages, "routes_added",
		(json_int_t)s->routes_added, "routes_deleted", (json_int_t)s->routes_deleted,
		"routes_unchanged", (json_int_t)s->routes_unchanged, "route_errors",
		(json_int_t)s->route_errors, "routes_other_if", (json_int_t)s->routes_other_if,
		"routes_skipped", (json_int_t)s->routes_skipped, "routes_config",
		(json_int_t)s->routes_config, "routes_unsupported",
		(json_int_t)s->routes_unsupported, "neigh_learned", (json_int_t)s->neigh_learned,
		"dumps", (json_int_t)s->dumps, "resyncs", (json_int_t)s->resyncs, "link_changes",
		(json_int_t)s->link_changes, "tap_full",
		(json_int_t)dp_ctl_drops[DP_DROP_LINUX_TAP_FULL], "no_tap",
		(json_int_t)dp_ctl_drops[DP_DROP_LINUX_NO_TAP]);
}

static int
do_resync(void *arg)
{
	RTE_SET_USED(arg);
	lcp_nl_resync();
	return 0;
}

static int
act_resync(const char *params, json_t **res, char *err, size_t errlen)
{
	int rc;

	RTE_SET_USED(params);
	RTE_SET_USED(res);
	rc = dp_ctl_call(do_resync, NULL, LCP_CALL_TIMEOUT_MS);
	if (rc < 0)
		snprintf(err, errlen, "linux: resync: %s", strerror(-rc));
	return rc;
}

static int
linuxcp_telemetry(const struct dp_config *cfg)
{
	int rc;

	RTE_SET_USED(cfg);
	if (!lcp_on)
		return 0;
	rc = dp_telemetry_action_register("/dpfwd/linux/resync",
		"Dump the kernel's routes again and reconcile dpfwd's routes from netlink with them",
		act_resync);
	if (rc < 0)
		return rc;
	return dp_telemetry_section_register("linux", "/dpfwd/linux/stats",
		"Linux control plane: mirrors, frames punted to and injected from them, netlink "
		"routes",
		linuxcp_fill, NULL);
}

static struct dp_module linuxcp_module = {
	.name = "linuxcp",
	.deps = { "fwd" },
	.sections = { &dp_linuxcp_section },
	.mbuf_demand = linuxcp_mbuf_demand,
	.init = linuxcp_init,
	.start = linuxcp_start,
	.telemetry = linuxcp_telemetry,
	.stop = linuxcp_stop,
	.fini = linuxcp_fini,
};
DP_MODULE_REGISTER(linuxcp_module);
