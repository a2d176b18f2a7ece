/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The telemetry snapshot in the Prometheus text exposition format, version 0.0.4:
 *
 *   # HELP dpfwd_lcore_rx_packets_total Packets received by the worker lcore.
 *   # TYPE dpfwd_lcore_rx_packets_total counter
 *   dpfwd_lcore_rx_packets_total{lcore="1"} 123456
 *
 * The text is a walk over the same JSON snapshot the file and the rte_telemetry commands
 * show, so the exports cannot disagree. Names come from one table (below, and
 * docs/telemetry.md "Prometheus metrics"), not from JSON keys, so they are valid
 * and stay put when a JSON key is added; a key the table does not name is not
 * exported. Each row picks one value
 * out of every object of a "source" (the lcores, the ports, ...) that labels it.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_telemetry.h"

/* Where a family's samples live in the snapshot, and the labels each gets. */
enum prom_src {
	SRC_ROOT,        /* the snapshot itself */
	SRC_RUN,         /* "run" */
	SRC_FWD,         /* "fwd" */
	SRC_LINUX,       /* "linux" (absent without [linux]) */
	SRC_LCORE,       /* "lcores"[]                  lcore */
	SRC_LCORE_NODE,  /* "lcores"[].nodes{}          lcore, node */
	SRC_LCORE_BURST, /* "lcores"[].rx_burst_hist{}  lcore, size (value: the element) */
	SRC_DROP,        /* "drops".by_reason{}         reason (value: the element) */
	SRC_PORT,        /* "ports"[]                   port */
	SRC_VLAN,        /* "vlans"[]                   port, vid */
	SRC_POOL,        /* "mempools"[]                pool */
	SRC_DELAY,       /* "delay".lcores[]            lcore */
};

#define PROM_MAX_LABELS 8

/* An info family's labels: label name, then the JSON key of its string value. */
struct prom_info_label {
	const char *label;
	const char *key;
};

struct prom_family {
	enum prom_src src;
	const char *key;  /* the value in each object of the source; NULL: the element */
	const char *name; /* [a-zA-Z_:][a-zA-Z0-9_:]*, counters end in _total */
	const char *type; /* "counter", "gauge" or "histogram" (SRC_DELAY only) */
	const char *help;
	const struct prom_info_label *info; /* info family: value 1, labels from strings */
	double scale;                       /* the value times this (0: as it is), to base units */
};

static const struct prom_info_label dpfwd_info[] = { { "version", "dpfwd_version" },
	{ NULL, NULL } };
static const struct prom_info_label run_info[] = { { "mode", "mode" }, { "config", "config" },
	{ "mempool_ops", "mempool_ops" }, { NULL, NULL } };
static const struct prom_info_label port_info[] = { { "name", "name" }, { "driver", "driver" },
	{ "profile", "profile" }, { "mac", "mac" }, { NULL, NULL } };

#define C "counter"
#define G "gauge"

static const struct prom_family families[] = {
	{ SRC_ROOT, NULL, "dpfwd_info", G, "dpfwd version (value 1).", dpfwd_info },
	{ SRC_ROOT, "uptime_s", "dpfwd_uptime_seconds", G, "Seconds since telemetry started.",
		NULL },
	{ SRC_ROOT, "tsc_hz", "dpfwd_tsc_hz", G, "TSC frequency: cycles per second.", NULL },
	{ SRC_RUN, NULL, "dpfwd_run_info", G, "Config path, mode and mempool ops (value 1).",
		run_info },
	{ SRC_RUN, "workers", "dpfwd_workers", G, "Worker lcores.", NULL },
	{ SRC_RUN, "node_stats", "dpfwd_node_stats_enabled", G,
		"1 when per-node cycles are measured ([dpfwd] node_stats).", NULL },
	{ SRC_RUN, "mbufs_over_baseline", "dpfwd_mbufs_over_baseline", G,
		"Mbufs in use above the baseline taken after the ports started.", NULL },

	{ SRC_LCORE, "rx_pkts", "dpfwd_lcore_rx_packets_total", C,
		"Packets received by the worker lcore.", NULL },
	{ SRC_LCORE, "tx_pkts", "dpfwd_lcore_tx_packets_total", C,
		"Packets sent by the worker lcore.", NULL },
	{ SRC_LCORE, "tx_bytes", "dpfwd_lcore_tx_bytes_total", C,
		"Frame bytes sent by the worker lcore (no FCS).", NULL },
	{ SRC_LCORE, "punted", "dpfwd_lcore_punted_packets_total", C,
		"Packets the worker handed to the control lcore (ARP, ND, waiting for a neighbor, "
		"for Linux).",
		NULL },
	{ SRC_LCORE, "injected", "dpfwd_lcore_injected_packets_total", C,
		"Frames from the control lcore that the worker sent (ARP, ND, released packets).",
		NULL },
	{ SRC_LCORE, "iterations", "dpfwd_lcore_iterations_total", C,
		"Graph walks (poll loop iterations).", NULL },
	{ SRC_LCORE, "busy_cycles", "dpfwd_lcore_busy_cycles_total", C,
		"TSC cycles of iterations that received packets.", NULL },
	{ SRC_LCORE, "idle_cycles", "dpfwd_lcore_idle_cycles_total", C,
		"TSC cycles of iterations that received nothing.", NULL },
	{ SRC_LCORE, "empty_polls", "dpfwd_lcore_empty_polls_total", C,
		"Iterations that received nothing.", NULL },
	{ SRC_LCORE, "cycles_per_pkt", "dpfwd_lcore_cycles_per_packet", G,
		"Busy cycles per received packet since start.", NULL },
	{ SRC_LCORE, "instructions", "dpfwd_lcore_instructions_total", C,
		"Instructions retired by the worker (absent without a hardware counter).", NULL },
	{ SRC_LCORE, "insn_per_pkt", "dpfwd_lcore_instructions_per_packet", G,
		"Instructions per received packet since start.", NULL },
	{ SRC_LCORE_BURST, NULL, "dpfwd_lcore_rx_bursts_total", C,
		"RX bursts by the number of packets they returned (label size).", NULL },

	{ SRC_LCORE_NODE, "calls", "dpfwd_node_calls_total", C, "Graph node calls on the lcore.",
		NULL },
	{ SRC_LCORE_NODE, "pkts", "dpfwd_node_packets_total", C,
		"Packets processed by the graph node on the lcore.", NULL },
	{ SRC_LCORE_NODE, "timed_cycles", "dpfwd_node_cycles_total", C,
		"TSC cycles measured in the node (timed walks only).", NULL },
	{ SRC_LCORE_NODE, "timed_pkts", "dpfwd_node_timed_packets_total", C,
		"Packets of the timed walks: cycles_total / timed_packets_total = cycles/packet.",
		NULL },
	{ SRC_LCORE_NODE, "cycles_per_pkt", "dpfwd_node_cycles_per_packet", G,
		"Cycles per packet in the node since start (absent when node_stats = off).", NULL },
	{ SRC_LCORE_NODE, "pkts_per_call", "dpfwd_node_packets_per_call", G,
		"Packets per node call since start.", NULL },

	{ SRC_DROP, NULL, "dpfwd_drops_total", C, "Dropped packets by reason.", NULL },

	{ SRC_PORT, NULL, "dpfwd_port_info", G, "Port name, driver, profile and MAC (value 1).",
		port_info },
	{ SRC_PORT, "ipackets", "dpfwd_port_rx_packets_total", C,
		"Packets received (ethdev ipackets).", NULL },
	{ SRC_PORT, "opackets", "dpfwd_port_tx_packets_total", C, "Packets sent (ethdev opackets).",
		NULL },
	{ SRC_PORT, "ibytes", "dpfwd_port_rx_bytes_total", C, "Bytes received (ethdev ibytes).",
		NULL },
	{ SRC_PORT, "obytes", "dpfwd_port_tx_bytes_total", C, "Bytes sent (ethdev obytes).", NULL },
	{ SRC_PORT, "imissed", "dpfwd_port_rx_missed_total", C,
		"Packets the NIC dropped: RX queue full (ethdev imissed).", NULL },
	{ SRC_PORT, "ierrors", "dpfwd_port_rx_errors_total", C,
		"Erroneous received packets (ethdev ierrors).", NULL },
	{ SRC_PORT, "oerrors", "dpfwd_port_tx_errors_total", C,
		"Failed transmits (ethdev oerrors).", NULL },
	{ SRC_PORT, "rx_nombuf", "dpfwd_port_rx_nombuf_total", C,
		"RX mbuf allocation failures (ethdev rx_nombuf).", NULL },
	{ SRC_PORT, "link_up", "dpfwd_port_link_up", G, "1 when the link is up.", NULL },
	{ SRC_PORT, "link_speed_mbps", "dpfwd_port_link_speed_mbps", G, "Link speed in Mbit/s.",
		NULL },

	{ SRC_VLAN, "rx_pkts", "dpfwd_vlan_rx_packets_total", C,
		"Frames received on the 802.1Q sub-interface.", NULL },
	{ SRC_VLAN, "tx_pkts", "dpfwd_vlan_tx_packets_total", C,
		"Packets sent on the 802.1Q sub-interface.", NULL },
	{ SRC_VLAN, "rx_bytes", "dpfwd_vlan_rx_bytes_total", C,
		"Bytes received on the sub-interface, without the tag.", NULL },
	{ SRC_VLAN, "tx_bytes", "dpfwd_vlan_tx_bytes_total", C,
		"Bytes sent on the sub-interface, with the tag.", NULL },

	{ SRC_POOL, "size", "dpfwd_mempool_size", G, "Mbufs in the pool.", NULL },
	{ SRC_POOL, "in_use", "dpfwd_mempool_in_use", G,
		"Mbufs in use (held by rings, queues, lcores).", NULL },
	{ SRC_POOL, "available", "dpfwd_mempool_available", G, "Mbufs free in the pool.", NULL },
	{ SRC_POOL, "in_caches", "dpfwd_mempool_in_caches", G,
		"Free mbufs held in per-lcore caches.", NULL },
	{ SRC_POOL, "in_use_baseline", "dpfwd_mempool_in_use_baseline", G,
		"Mbufs in use after the ports started; a clean stop returns to it.", NULL },
	{ SRC_POOL, "cache_size", "dpfwd_mempool_cache_size", G, "Per-lcore cache size.", NULL },

	{ SRC_DELAY, NULL, "dpfwd_delay_seconds", "histogram",
		"Per-packet delay from the RX poll to the TX burst, since start ([dpfwd] "
		"delay_stats; counts are estimates when delay_stats_sample > 1).",
		NULL },
	{ SRC_DELAY, "max_ns", "dpfwd_delay_max_seconds", G, "Largest delay seen since start.",
		NULL, 1e-9 },
	{ SRC_DELAY, "jitter_ns", "dpfwd_delay_jitter_seconds", G,
		"RFC 3550 interarrival jitter of the delay.", NULL, 1e-9 },

	{ SRC_FWD, "ip4_routes", "dpfwd_ip4_routes", G, "IPv4 routes installed.", NULL },
	{ SRC_FWD, "next_hops_total", "dpfwd_next_hops", G, "IPv4 next hops.", NULL },
	{ SRC_FWD, "ip4_fragmented", "dpfwd_ip4_fragmented_packets_total", C,
		"IPv4 packets larger than the next hop's MTU, DF clear, cut into fragments.",
		NULL },
	{ SRC_FWD, "ip4_fragments", "dpfwd_ip4_fragments_total", C, "Fragments made of them.",
		NULL },

	{ SRC_LINUX, "punted", "dpfwd_linux_punted_packets_total", C,
		"Frames written to the mirrors for Linux.", NULL },
	{ SRC_LINUX, "injected", "dpfwd_linux_injected_packets_total", C,
		"Frames Linux sent out of the mirrors, sent through their ports.", NULL },
	{ SRC_LINUX, "neigh_copied", "dpfwd_linux_neigh_copied_packets_total", C,
		"ARP replies and neighbor advertisements copied to the mirrors.", NULL },
	{ SRC_LINUX, "netlink_messages", "dpfwd_linux_netlink_messages_total", C,
		"Netlink messages read (routes, neighbors, links).", NULL },
	{ SRC_LINUX, "routes_added", "dpfwd_linux_routes_added_total", C,
		"dpfwd routes added or replaced from the kernel's routes through mirrors.", NULL },
	{ SRC_LINUX, "routes_deleted", "dpfwd_linux_routes_deleted_total", C,
		"dpfwd routes deleted with the kernel's (or by a resync).", NULL },
	{ SRC_LINUX, "routes_unchanged", "dpfwd_linux_routes_unchanged_total", C,
		"Kernel routes of a dump that dpfwd had already: nothing made.", NULL },
	{ SRC_LINUX, "route_errors", "dpfwd_linux_route_errors_total", C,
		"Kernel routes dpfwd refused to add or delete.", NULL },
	{ SRC_LINUX, "routes_other_if", "dpfwd_linux_routes_other_if_total", C,
		"Kernel routes not copied: out of interfaces that are not mirrors.", NULL },
	{ SRC_LINUX, "routes_skipped", "dpfwd_linux_routes_skipped_total", C,
		"Kernel routes not copied: the kernel's own, other tables and types.", NULL },
	{ SRC_LINUX, "routes_config", "dpfwd_linux_routes_config_total", C,
		"Kernel routes not copied: to a prefix of the config's routes.", NULL },
	{ SRC_LINUX, "routes_unsupported", "dpfwd_linux_routes_unsupported_total", C,
		"Kernel routes not copied: a form dpfwd does not take.", NULL },
	{ SRC_LINUX, "neigh_learned", "dpfwd_linux_neigh_learned_total", C,
		"Kernel neighbors of mirrors given to dpfwd's neighbor table.", NULL },
	{ SRC_LINUX, "dumps", "dpfwd_linux_dumps_total", C,
		"Dumps of the kernel's routes (the first and every resync).", NULL },
	{ SRC_LINUX, "resyncs", "dpfwd_linux_resyncs_total", C,
		"Dumps after the netlink socket lost messages (ENOBUFS).", NULL },
	{ SRC_LINUX, "link_changes", "dpfwd_linux_link_changes_total", C,
		"Link messages of the mirrors (each asks a resync).", NULL },
};

#undef C
#undef G

struct prom_label {
	const char *name;
	const char *value;
};

/* One family being written: its header goes out before its first sample only. */
struct prom_out {
	FILE *f;
	const struct prom_family *fam;
	unsigned int samples;
	const json_t *snap; /* the snapshot rendered */
};

typedef void (*prom_sample_cb)(
	struct prom_out *o, const struct prom_label *labels, unsigned int nb, const json_t *obj);

/* jansson's iteration macros take non-const values; we only read. */
static json_t *
mut(const json_t *v)
{
	return (json_t *)(uintptr_t)v;
}

static void
put_escaped(FILE *f, const char *s, bool quote)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && quote)
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

static void
put_header(struct prom_out *o)
{
	fprintf(o->f, "# HELP %s ", o->fam->name);
	put_escaped(o->f, o->fam->help, false);
	fprintf(o->f, "\n# TYPE %s %s\n", o->fam->name, o->fam->type);
}

/* One sample of the family being written: @p suffix after its name ("" or "_bucket"). */
static void
put_series(struct prom_out *o, const char *suffix, const struct prom_label *labels, unsigned int nb,
	const char *value)
{
	unsigned int i;

	if (o->samples++ == 0)
		put_header(o);
	fprintf(o->f, "%s%s", o->fam->name, suffix);
	for (i = 0; i < nb; i++) {
		fprintf(o->f, "%s%s=\"", i == 0 ? "{" : ",", labels[i].name);
		put_escaped(o->f, labels[i].value, true);
		fputc('"', o->f);
	}
	fprintf(o->f, "%s %s\n", nb ? "}" : "", value);
}

static void
put_sample(struct prom_out *o, const struct prom_label *labels, unsigned int nb, const char *value)
{
	put_series(o, "", labels, nb, value);
}

/* A JSON number or boolean as a sample value; false for null, strings, containers. */
static bool
value_str(const json_t *v, char *buf, size_t len)
{
	double d;

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return true;
	case JSON_REAL:
		d = json_real_value(v);
		if (isnan(d))
			snprintf(buf, len, "NaN");
		else if (isinf(d))
			snprintf(buf, len, "%sInf", d > 0 ? "+" : "-");
		else
			snprintf(buf, len, "%.15g", d);
		return true;
	case JSON_TRUE:
	case JSON_FALSE:
		snprintf(buf, len, "%d", json_is_true(v));
		return true;
	default:
		return false;
	}
}

/*
 * The delay histogram of one lcore (an element of "delay".lcores): its cumulative
 * counts at the bounds of "delay".le_ns as _bucket{le} in seconds, then +Inf (every
 * packet), _sum (seconds, from the TSC cycles) and _count.
 */
static void
emit_histogram(
	struct prom_out *o, const struct prom_label *labels, unsigned int nb, const json_t *obj)
{
	const json_t *le_ns = json_object_get(json_object_get(o->snap, "delay"), "le_ns");
	const double tsc_hz = (double)json_integer_value(json_object_get(o->snap, "tsc_hz"));
	const json_t *counts = json_object_get(obj, "le_counts");
	const json_t *count = json_object_get(obj, "count");
	struct prom_label all[PROM_MAX_LABELS];
	char le[32], buf[64];
	unsigned int n;
	size_t k;

	if (!json_is_integer(count) || !json_is_array(counts) || nb + 1 > PROM_MAX_LABELS ||
		json_array_size(counts) != json_array_size(le_ns) || tsc_hz <= 0)
		return;
	for (n = 0; n < nb; n++)
		all[n] = labels[n];
	all[nb] = (struct prom_label){ "le", le };
	for (k = 0; k <= json_array_size(le_ns); k++) {
		const json_t *c = k < json_array_size(le_ns) ? json_array_get(counts, k) : count;

		if (k < json_array_size(le_ns))
			snprintf(le, sizeof(le), "%.9g",
				(double)json_integer_value(json_array_get(le_ns, k)) * 1e-9);
		else
			snprintf(le, sizeof(le), "+Inf");
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(c));
		put_series(o, "_bucket", all, nb + 1, buf);
	}
	snprintf(buf, sizeof(buf), "%.15g",
		(double)json_integer_value(json_object_get(obj, "sum_cycles")) / tsc_hz);
	put_series(o, "_sum", labels, nb, buf);
	snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(count));
	put_series(o, "_count", labels, nb, buf);
}

static void
emit(struct prom_out *o, const struct prom_label *labels, unsigned int nb, const json_t *obj)
{
	const struct prom_family *fam = o->fam;
	struct prom_label all[PROM_MAX_LABELS];
	char buf[64];
	unsigned int n = 0, i;

	if (strcmp(fam->type, "histogram") == 0) {
		emit_histogram(o, labels, nb, obj);
		return;
	}
	if (fam->info != NULL) {
		if (!json_is_object(obj))
			return;
		for (i = 0; i < nb && n < PROM_MAX_LABELS; i++)
			all[n++] = labels[i];
		for (i = 0; fam->info[i].label != NULL && n < PROM_MAX_LABELS; i++) {
			const char *s = json_string_value(json_object_get(obj, fam->info[i].key));

			if (s != NULL)
				all[n++] = (struct prom_label){ fam->info[i].label, s };
		}
		if (n > nb) /* an info sample without any of its labels says nothing */
			put_sample(o, all, n, "1");
		return;
	}
	if (fam->key != NULL)
		obj = json_is_object(obj) ? json_object_get(obj, fam->key) : NULL;
	if (fam->scale != 0 && json_is_number(obj)) {
		json_t *scaled = json_real(json_number_value(obj) * fam->scale);

		if (scaled != NULL && value_str(scaled, buf, sizeof(buf)))
			put_sample(o, labels, nb, buf);
		json_decref(scaled);
		return;
	}
	if (obj != NULL && value_str(obj, buf, sizeof(buf)))
		put_sample(o, labels, nb, buf);
}

/* "lcore" or "index" of an element as a label value; its position when absent. */
static const char *
id_label(const json_t *e, const char *key, size_t pos, char *buf, size_t len)
{
	const json_t *v = json_object_get(e, key);

	if (json_is_string(v))
		return json_string_value(v);
	snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
		json_is_integer(v) ? json_integer_value(v) : (json_int_t)pos);
	return buf;
}

/* Call @p cb for every object of source @p src, with its labels. */
static void
src_foreach(const json_t *snap, enum prom_src src, prom_sample_cb cb, struct prom_out *o)
{
	struct prom_label l[2];
	const json_t *e, *v;
	json_t *elt;
	const char *k;
	char id[32], id2[32];
	size_t i;

	switch (src) {
	case SRC_ROOT:
		cb(o, l, 0, snap);
		break;
	case SRC_RUN:
		cb(o, l, 0, json_object_get(snap, "run"));
		break;
	case SRC_FWD:
		cb(o, l, 0, json_object_get(snap, "fwd"));
		break;
	case SRC_LINUX:
		cb(o, l, 0, json_object_get(snap, "linux"));
		break;
	case SRC_DROP:
		v = json_object_get(json_object_get(snap, "drops"), "by_reason");
		json_object_foreach(mut(v), k, e)
		{
			l[0] = (struct prom_label){ "reason", k };
			cb(o, l, 1, e);
		}
		break;
	case SRC_PORT:
		json_array_foreach(mut(json_object_get(snap, "ports")), i, e)
		{
			l[0] = (struct prom_label){ "port",
				id_label(e, "index", i, id, sizeof(id)) };
			cb(o, l, 1, e);
		}
		break;
	case SRC_VLAN:
		json_array_foreach(mut(json_object_get(snap, "vlans")), i, e)
		{
			l[0] = (struct prom_label){ "port",
				id_label(e, "port", i, id, sizeof(id)) };
			l[1] = (struct prom_label){ "vid",
				id_label(e, "vid", i, id2, sizeof(id2)) };
			cb(o, l, 2, e);
		}
		break;
	case SRC_POOL:
		json_array_foreach(mut(json_object_get(snap, "mempools")), i, e)
		{
			l[0] = (struct prom_label){ "pool",
				id_label(e, "name", i, id, sizeof(id)) };
			cb(o, l, 1, e);
		}
		break;
	case SRC_DELAY:
		json_array_foreach(
			mut(json_object_get(json_object_get(snap, "delay"), "lcores")), i, e)
		{
			l[0] = (struct prom_label){ "lcore",
				id_label(e, "lcore", i, id, sizeof(id)) };
			cb(o, l, 1, e);
		}
		break;
	case SRC_LCORE:
	case SRC_LCORE_NODE:
	case SRC_LCORE_BURST:
		json_array_foreach(mut(json_object_get(snap, "lcores")), i, e)
		{
			l[0] = (struct prom_label){ "lcore",
				id_label(e, "lcore", i, id, sizeof(id)) };
			if (src == SRC_LCORE) {
				cb(o, l, 1, e);
				continue;
			}
			v = json_object_get(e, src == SRC_LCORE_NODE ? "nodes" : "rx_burst_hist");
			json_object_foreach(mut(v), k, elt)
			{
				l[1] = (struct prom_label){ src == SRC_LCORE_NODE ? "node" : "size",
					k };
				cb(o, l, 2, elt);
			}
		}
		break;
	}
}

char *
dp_telemetry_prom_text(const json_t *snap, size_t *len)
{
	struct prom_out o;
	char *text = NULL;
	size_t size = 0;
	unsigned int i;

	o.f = open_memstream(&text, &size);
	if (o.f == NULL)
		return NULL;
	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		o.fam = &families[i];
		o.samples = 0;
		o.snap = snap;
		src_foreach(snap, families[i].src, emit, &o);
	}
	if (ferror(o.f)) {
		fclose(o.f);
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	if (fclose(o.f) != 0) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	if (len != NULL)
		*len = size;
	return text;
}
