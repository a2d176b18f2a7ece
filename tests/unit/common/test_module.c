/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The module registry (src/common/dp_module.h) with two small modules of this
 * test's own, on the ring rig: tm_high depends on tm_low and on fwd and is
 * registered first. tm_high has a config section of its own, [tm], with a
 * port key and a family key checked against the ports (its validate hook);
 * its init registers a local service (nodes tm_svc4 and tm_svc6) and claims
 * the UDP port [tm] names. The runner must init and start tm_low before
 * tm_high (and fwd before both), stop and fini them in reverse, and a
 * datagram to tm_high's port must reach its node. [tm]'s keys parse with
 * file:line errors like dpfwd's own and appear in the reference. A dependency
 * that is not registered and a cycle are refused by name. tm_high also
 * registers a drop reason of its own (dp_drop_register()); a datagram its node
 * refuses is counted there and shows in the telemetry JSON and the Prometheus
 * text, and its fini frees the reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_mbuf.h>
#include <jansson.h>

#include "dp_config.h"
#include "dp_drop.h"
#include "dp_fwd_local.h"
#include "dp_graph.h"
#include "dp_module.h"
#include "dp_pkt_craft.h"
#include "dp_port.h"
#include "dp_telemetry.h"
#include "dp_test.h"
#include "graph_fp.h"
#include "ring_rig.h"

static const char config_text[] = "[dpfwd]\n"
				  "burst = 32\n"
				  "[mempool]\n"
				  "cache = 32\n"
				  "[port0]\n"
				  "dev = net_ring_m0\n"
				  "ip4 = 198.18.0.1/24\n"
				  "[lcores]\n"
				  "rx = (0,0,1)\n"
				  "[tm]\n"
				  "port = 6666\n";

static struct ring_rig rig = {
	.name = "module",
	.prefix = 'm',
	.nb_ports = 1,
	.config_text = config_text,
};

#define TM_PORT 6666

/* ---- [tm]: tm_high's config section ---- */

struct tm_config {
	uint16_t port;
	struct dp_config_loc port_at;
	unsigned int family; /* 0 ip4, 1 ip6 */
	struct dp_config_loc family_at;
};

static const char *const tm_families[] = { "ip4", "ip6", NULL };

static const struct dp_config_key tm_keys[] = {
	{ .name = "port",
		.type = DP_CONFIG_UINT,
		DP_CONFIG_FIELD(struct tm_config, port),
		.min = 1024,
		.max = 65535,
		.given_at = DP_CONFIG_OPT_FIELD(struct tm_config, port_at),
		.def = "7777",
		.doc = "the UDP port tm_high serves" },
	{ .name = "family",
		.type = DP_CONFIG_ENUM,
		DP_CONFIG_FIELD(struct tm_config, family),
		.names = tm_families,
		.given_at = DP_CONFIG_OPT_FIELD(struct tm_config, family_at),
		.def = "ip4",
		.doc = "the address family it serves" },
};

static struct dp_config_section tm_section;

/* a family whose address no port has: an error at the key's file:line */
static int
tm_validate(struct dp_config *cfg, char *err, size_t errlen)
{
	const struct tm_config *t = dp_config_section_data(cfg, &tm_section, 0);
	uint16_t i;

	for (i = 0; i < cfg->nb_ports; i++)
		if (t->family == 0 ? cfg->ports[i].ip4 != 0 : cfg->ports[i].has_ip6)
			return 0;
	return dp_config_error(err, errlen, &t->family_at,
		"[tm] family %s: no port has an %s address", tm_families[t->family],
		tm_families[t->family]);
}

static struct dp_config_section tm_section = {
	.name = "tm",
	.doc = "The test module's section.",
	.keys = tm_keys,
	.nb_keys = RTE_DIM(tm_keys),
	.size = sizeof(struct tm_config),
	.validate = tm_validate,
};

static uint16_t tm_port; /* the port high_init claimed */

/* What the hooks did, in order: "low.init", "high.init", ... */
static char hooks[32][16];
static unsigned int nb_hooks;
static unsigned int svc_pkts;
static bool rig_up;
/* tm_high's drop reason (dp_drop_register()), and whether its node refuses */
static int tm_drop = -1;
static bool svc_refuse;

static void
hook(const char *what)
{
	if (nb_hooks < RTE_DIM(hooks))
		snprintf(hooks[nb_hooks++], sizeof(hooks[0]), "%s", what);
}

/* Where @p what is in the hook log, or -1. */
static int
hook_at(const char *what)
{
	unsigned int i;

	for (i = 0; i < nb_hooks; i++)
		if (strcmp(hooks[i], what) == 0)
			return (int)i;
	return -1;
}

static uint16_t
tm_svc_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	RTE_SET_USED(graph);
	if (svc_refuse)
		dp_node_worker(node)->stats.drops[tm_drop] += n;
	else
		svc_pkts += n;
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	return n;
}

static struct rte_node_register tm_svc4_node = {
	.name = "tm_svc4",
	.process = tm_svc_process,
	.init = dp_graph_node_init_worker,
};
RTE_NODE_REGISTER(tm_svc4_node);

static struct rte_node_register tm_svc6_node = {
	.name = "tm_svc6",
	.process = tm_svc_process,
	.init = dp_graph_node_init_worker,
};
RTE_NODE_REGISTER(tm_svc6_node);

static int tm_svc;

static int
high_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	const struct tm_config *t = dp_config_section_data(cfg, &tm_section, 0);
	int rc;

	hook("high.init");
	tm_drop = dp_drop_register("tm_refused", "test module: its node refused the datagram");
	if (tm_drop < 0) {
		snprintf(err, errlen, "tm_high: drop reason: %s", strerror(-tm_drop));
		return tm_drop;
	}
	rc = dp_fwd_local_service_add("tm_svc4", "tm_svc6");
	if (rc < 0) {
		snprintf(err, errlen, "tm_high: %s", strerror(-rc));
		return rc;
	}
	tm_svc = rc;
	tm_port = t->port;
	return dp_fwd_local_udp_claim(false, tm_port, tm_port, (uint8_t)tm_svc);
}

static int
high_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	RTE_SET_USED(cfg);
	RTE_SET_USED(err);
	RTE_SET_USED(errlen);
	hook("high.start");
	return 0;
}

static int
high_telemetry(const struct dp_config *cfg)
{
	RTE_SET_USED(cfg);
	hook("high.telemetry");
	return 0;
}

static void
high_stop(void)
{
	hook("high.stop");
}

static void
high_fini(void)
{
	hook("high.fini");
	dp_fwd_local_udp_release(false, tm_port, tm_port, (uint8_t)tm_svc);
	dp_drop_unregister(tm_drop);
}

static int
low_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	RTE_SET_USED(cfg);
	RTE_SET_USED(err);
	RTE_SET_USED(errlen);
	hook("low.init");
	return 0;
}

static int
low_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	RTE_SET_USED(cfg);
	RTE_SET_USED(err);
	RTE_SET_USED(errlen);
	hook("low.start");
	return 0;
}

static void
low_stop(void)
{
	hook("low.stop");
}

static void
low_fini(void)
{
	hook("low.fini");
}

/* registered before tm_low on purpose: the order comes from deps */
static struct dp_module tm_high = {
	.name = "tm_high",
	.deps = { "tm_low", "fwd" },
	.sections = { &tm_section },
	.init = high_init,
	.start = high_start,
	.telemetry = high_telemetry,
	.stop = high_stop,
	.fini = high_fini,
};
DP_MODULE_REGISTER(tm_high);

static struct dp_module tm_low = {
	.name = "tm_low",
	.init = low_init,
	.start = low_start,
	.stop = low_stop,
	.fini = low_fini,
};
DP_MODULE_REGISTER(tm_low);

static int
order_of(const char *name)
{
	struct dp_module *order[DP_MODULE_MAX];
	char err[128];
	int n = dp_module_order(order, DP_MODULE_MAX, err, sizeof(err)), i;

	for (i = 0; i < n; i++)
		if (strcmp(order[i]->name, name) == 0)
			return i;
	return -1;
}

static void
test_module_started_after_its_dependencies(void)
{
	CU_ASSERT(order_of("fwd") >= 0);
	CU_ASSERT(order_of("fwd") < order_of("tm_high"));
	CU_ASSERT(order_of("tm_low") < order_of("tm_high"));
	CU_ASSERT(order_of("fwd") < order_of("relay"));
	CU_ASSERT(order_of("fwd") < order_of("endpoint"));
	CU_ASSERT(hook_at("low.init") >= 0);
	CU_ASSERT(hook_at("low.init") < hook_at("high.init"));
	CU_ASSERT(hook_at("high.init") < hook_at("low.start"));
	CU_ASSERT(hook_at("low.start") < hook_at("high.start"));
	CU_ASSERT(hook_at("high.start") < hook_at("high.telemetry"));
	CU_ASSERT_EQUAL(hook_at("high.stop"), -1);
}

/* A UDP datagram from 198.18.0.2 to port0's 198.18.0.1, port @p dport, into @p f. */
static void
tm_datagram(struct dp_pkt_spec *s, uint16_t dport, uint8_t *f, size_t size, size_t *len)
{
	dp_pkt_spec_init(s);
	memcpy(s->dst_mac, &dp_ports[0].mac, 6);
	s->src_ip4 = 0xc6120002;
	s->dst_ip4 = 0xc6120001;
	s->dport = dport;
	CU_ASSERT_FATAL(dp_pkt_build(s, f, size, len) == 0);
}

static void
test_module_datagram_to_its_port_reaches_its_node(void)
{
	struct dp_pkt_spec s;
	uint8_t f[128];
	size_t len = 0;

	tm_datagram(&s, TM_PORT, f, sizeof(f), &len);
	svc_pkts = 0;
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, f, len);
	dp_graph_worker_run(dp_workers[0], 4);
	CU_ASSERT_EQUAL(svc_pkts, 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 0);
	/* the next port is nobody's: ip4_local's drop */
	s.dport = TM_PORT + 1;
	CU_ASSERT_FATAL(dp_pkt_build(&s, f, sizeof(f), &len) == 0);
	ring_rig_inject(&rig, 0, f, len);
	dp_graph_worker_run(dp_workers[0], 4);
	CU_ASSERT_EQUAL(svc_pkts, 1);
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, DP_DROP_IP4_LOCAL), 1);
}

/* Load @p text as a config file; @return dp_config_load()'s and validate's code, @p err. */
static int
tm_load(const char *text, char *path, size_t pathlen, struct dp_config *cfg, char *err,
	size_t errlen)
{
	FILE *f;
	int fd, rc;

	snprintf(path, pathlen, "/tmp/dpfwd-test-module-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	dp_config_init(cfg);
	rc = dp_config_load(cfg, path, err, errlen);
	if (rc == 0)
		rc = dp_config_validate(cfg, err, errlen);
	unlink(path);
	return rc;
}

static void
test_module_config_section_keys_and_errors(void)
{
	static const char base[] = "[port0]\ndev = net_null0\nip4 = 198.18.0.1/24\n"
				   "[lcores]\nrx = (0,0,1)\n";
	char text[512], path[64], want[128], err[DP_CONFIG_ERR_LEN];
	const struct tm_config *t;
	struct dp_config cfg;
	char *ref = NULL;
	size_t reflen = 0;
	FILE *f;

	/* the rig's config: [tm] port = 6666 */
	t = dp_config_section_data(&rig.cfg, &tm_section, 0);
	CU_ASSERT_EQUAL(t->port, TM_PORT);
	CU_ASSERT_EQUAL(t->port_at.line, 11);
	/* defaults without the section; the keys as given with it */
	CU_ASSERT_EQUAL_FATAL(tm_load(base, path, sizeof(path), &cfg, err, sizeof(err)), 0);
	t = dp_config_section_data(&cfg, &tm_section, 0);
	CU_ASSERT_EQUAL(t->port, 7777);
	CU_ASSERT_EQUAL(t->family, 0);
	dp_config_free(&cfg);
	snprintf(text, sizeof(text), "%s[tm]\nport = 0x2000\n", base);
	CU_ASSERT_EQUAL_FATAL(tm_load(text, path, sizeof(path), &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(
		((const struct tm_config *)dp_config_section_data(&cfg, &tm_section, 0))->port,
		0x2000);
	dp_config_free(&cfg);
	/* a value out of range, an unknown key, an unknown enum value: file:line */
	snprintf(text, sizeof(text), "%s[tm]\nport = 80\n", base);
	CU_ASSERT_EQUAL(tm_load(text, path, sizeof(path), &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:7: ", path);
	EXPECT(strncmp(err, want, strlen(want)) == 0 && strstr(err, "1024..65535") != NULL,
		"port = 80: '%s'", err);
	dp_config_free(&cfg);
	snprintf(text, sizeof(text), "%s[tm]\nport = 7000\ncolour = red\n", base);
	CU_ASSERT_EQUAL(tm_load(text, path, sizeof(path), &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:8: ", path);
	EXPECT(strncmp(err, want, strlen(want)) == 0 && strstr(err, "colour") != NULL &&
			strstr(err, "family") != NULL,
		"colour = red: '%s'", err);
	dp_config_free(&cfg);
	/* the validate hook: ip6, and no port has an IPv6 address */
	snprintf(text, sizeof(text), "%s[tm]\nport = 7000\nfamily = ip6\n", base);
	CU_ASSERT_EQUAL(tm_load(text, path, sizeof(path), &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:8: [tm] family ip6: no port has an ip6 address", path);
	EXPECT(strcmp(err, want) == 0, "family = ip6: '%s'", err);
	dp_config_free(&cfg);
	/* --set reaches it too */
	dp_config_init(&cfg);
	CU_ASSERT_EQUAL(dp_config_set(&cfg, "tm.port=9", err, sizeof(err)), -EINVAL);
	EXPECT(strstr(err, "--set") != NULL && strstr(err, "1024..65535") != NULL, "--set: '%s'",
		err);
	dp_config_free(&cfg);
	/* the reference lists it after the core sections */
	f = open_memstream(&ref, &reflen);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(dp_config_reference_print(f), 0);
	fclose(f);
	CU_ASSERT(strstr(ref, "the UDP port tm_high serves") != NULL);
	CU_ASSERT(strstr(ref, "## [tm]") > strstr(ref, "## [lcores]"));
	free(ref);
}

/* tm_refused's count in the telemetry snapshot's drops.by_reason, or -1 */
static json_int_t
snapshot_tm_refused(json_int_t *total)
{
	json_t *snap = dp_telemetry_snapshot(), *drops, *v;
	json_int_t n;

	CU_ASSERT_FATAL(snap != NULL);
	drops = json_object_get(snap, "drops");
	v = json_object_get(json_object_get(drops, "by_reason"), "tm_refused");
	n = json_is_integer(v) ? json_integer_value(v) : -1;
	*total = json_integer_value(json_object_get(drops, "total"));
	json_decref(snap);
	return n;
}

static void
test_module_drop_reason_counted_in_telemetry(void)
{
	json_int_t total0, total1;
	struct dp_pkt_spec s;
	json_t *snap;
	uint8_t f[128];
	size_t len = 0;
	char *prom;

	CU_ASSERT_FATAL(tm_drop >= DP_DROP_DYN_FIRST && tm_drop < DP_DROP_MAX);
	CU_ASSERT_STRING_EQUAL(dp_drop_name(tm_drop), "tm_refused");
	CU_ASSERT_EQUAL(snapshot_tm_refused(&total0), 0);

	tm_datagram(&s, tm_port, f, sizeof(f), &len);
	svc_refuse = true;
	ring_rig_drops_mark(&rig);
	ring_rig_inject(&rig, 0, f, len);
	dp_graph_worker_run(dp_workers[0], 4);
	svc_refuse = false;
	CU_ASSERT_EQUAL(ring_rig_dropped(&rig, (enum dp_drop_reason)tm_drop), 1);
	CU_ASSERT_EQUAL(ring_rig_drops_total(&rig), 1);

	CU_ASSERT_EQUAL(snapshot_tm_refused(&total1), 1);
	CU_ASSERT_EQUAL(total1, total0 + 1);
	/* the Prometheus text lists it as it lists the static reasons */
	snap = dp_telemetry_snapshot();
	CU_ASSERT_FATAL(snap != NULL);
	prom = dp_telemetry_prom_text(snap, &len);
	CU_ASSERT_FATAL(prom != NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(prom, "dpfwd_drops_total{reason=\"tm_refused\"} 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(prom, "dpfwd_drops_total{reason=\"ip4_no_route\"} "));
	free(prom);
	json_decref(snap);
}

static void
test_module_missing_dependency_and_cycle_refused(void)
{
	static struct dp_module lone = { .name = "tm_lone", .deps = { "tm_nowhere" } };
	static struct dp_module a = { .name = "tm_a", .deps = { "tm_b" } };
	static struct dp_module b = { .name = "tm_b", .deps = { "tm_a" } };
	struct dp_module *order[DP_MODULE_MAX];
	char err[128] = "";

	dp_module_register(&lone);
	CU_ASSERT_EQUAL(dp_module_order(order, DP_MODULE_MAX, err, sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(
		err, "module tm_lone needs module tm_nowhere, which is not registered");
	dp_module_unregister(&lone);
	dp_module_register(&a);
	dp_module_register(&b);
	CU_ASSERT_EQUAL(dp_module_order(order, DP_MODULE_MAX, err, sizeof(err)), -ELOOP);
	CU_ASSERT(strstr(err, "dependency cycle") != NULL);
	dp_module_unregister(&a);
	dp_module_unregister(&b);
	CU_ASSERT(dp_module_order(order, DP_MODULE_MAX, err, sizeof(err)) > 0);
}

static void
test_module_stopped_before_its_dependencies(void)
{
	ring_rig_cleanup(&rig);
	rig_up = false;
	CU_ASSERT(hook_at("high.stop") >= 0);
	CU_ASSERT(hook_at("high.stop") < hook_at("low.stop"));
	CU_ASSERT(hook_at("low.stop") < hook_at("high.fini"));
	CU_ASSERT(hook_at("high.fini") < hook_at("low.fini"));
	CU_ASSERT_EQUAL(dp_fwd_local_udp_owner(false, TM_PORT), 0);
	CU_ASSERT_PTR_NULL(dp_drop_name(tm_drop));
}

static int
suite_init(void)
{
	int rc = ring_rig_setup(&rig);

	rig_up = rc == 0;
	return rc;
}

static int
suite_cleanup(void)
{
	if (rig_up)
		ring_rig_cleanup(&rig);
	return 0;
}

static const struct dp_test tests[] = {
	{ "test_module_started_after_its_dependencies",
		test_module_started_after_its_dependencies },
	{ "test_module_datagram_to_its_port_reaches_its_node",
		test_module_datagram_to_its_port_reaches_its_node },
	{ "test_module_config_section_keys_and_errors",
		test_module_config_section_keys_and_errors },
	{ "test_module_drop_reason_counted_in_telemetry",
		test_module_drop_reason_counted_in_telemetry },
	{ "test_module_missing_dependency_and_cycle_refused",
		test_module_missing_dependency_and_cycle_refused },
	{ "test_module_stopped_before_its_dependencies",
		test_module_stopped_before_its_dependencies },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("module", tests, suite_init, suite_cleanup);
}
