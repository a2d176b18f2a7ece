/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry without EAL: the Prometheus text of crafted snapshots (escaping, names,
 * one header per family, values left out when null, the delay histogram), the JSON
 * file's precision, the metrics HTTP server on a
 * loopback port (GET /metrics, 404, 405, a busy port, stop frees the port), and the
 * [dpfwd] metrics values the config accepts.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <jansson.h>

#include "dp_build_config.h"
#include "dp_config.h"
#include "dp_telemetry.h"
#include "dp_test.h"

/* ---- helpers ---- */

static json_t *
parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (j == NULL)
		fprintf(stderr, "bad test JSON: %s\n", e.text);
	return j;
}

/* The Prometheus text of a snapshot given as JSON text. Caller frees. */
static char *
prom_of(const char *snapshot)
{
	json_t *j = parse(snapshot);
	char *text;
	size_t len = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	text = dp_telemetry_prom_text(j, &len);
	json_decref(j);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_EQUAL(strlen(text), len);
	return text;
}

/* Does @p text hold @p line as a whole line? */
static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
		p++;
	}
	fprintf(stderr, "line not found: %s\n", line);
	return false;
}

static bool
name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

/* Length of a valid metric name at @p s (0 if none). */
static size_t
name_len(const char *s)
{
	size_t n = 0;

	while (name_char(s[n], n == 0))
		n++;
	return n;
}

/*
 * Check the exposition format line by line: names valid, "# HELP" then "# TYPE" once per
 * family and before its samples, a family's samples together, counters named _total,
 * a histogram's samples NAME_bucket, NAME_sum and NAME_count, label values quoted with
 * only \\ \" \n escapes, a value after the labels.
 */
static bool
exposition_ok(const char *text)
{
	char seen[128][96];
	unsigned int nb_seen = 0, i;
	char family[96] = "", type[16] = "";
	bool help = false;
	char *copy = strdup(text), *save = NULL, *line;
	bool ok = true;

	if (copy == NULL)
		return false;
	for (line = strtok_r(copy, "\n", &save); line != NULL && ok;
		line = strtok_r(NULL, "\n", &save)) {
		char name[96];
		size_t n;
		const char *p;
		char *end;

		if (strncmp(line, "# HELP ", 7) == 0) {
			n = name_len(line + 7);
			ok = n > 0 && n < sizeof(name) && line[7 + n] == ' ';
			if (!ok)
				break;
			snprintf(family, sizeof(family), "%.*s", (int)n, line + 7);
			for (i = 0; i < nb_seen; i++)
				ok &= strcmp(seen[i], family) != 0;
			if (nb_seen < 128)
				snprintf(seen[nb_seen++], sizeof(seen[0]), "%s", family);
			help = true;
			type[0] = '\0';
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			n = strlen(family);
			ok = help && strncmp(line + 7, family, n) == 0 && line[7 + n] == ' ';
			if (ok)
				snprintf(type, sizeof(type), "%s", line + 8 + n);
			ok &= strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0 ||
			      strcmp(type, "histogram") == 0;
			continue;
		}
		ok = line[0] != '#' && type[0] != '\0';
		n = name_len(line);
		if (strcmp(type, "histogram") == 0) {
			/* NAME_bucket{...,le="..."}, NAME_sum, NAME_count */
			const size_t f = strlen(family);

			ok &= n > f && strncmp(line, family, f) == 0 &&
			      (strncmp(line + f, "_bucket", n - f) == 0 ||
				      strncmp(line + f, "_sum", n - f) == 0 ||
				      strncmp(line + f, "_count", n - f) == 0);
		} else {
			ok &= n == strlen(family) && strncmp(line, family, n) == 0;
		}
		if (ok && strcmp(type, "counter") == 0)
			ok = n > 6 && strncmp(line + n - 6, "_total", 6) == 0;
		p = line + n;
		if (ok && *p == '{') {
			p++;
			while (ok && *p != '}') {
				size_t ln = name_len(p);

				ok = ln > 0 && p[ln] == '=' && p[ln + 1] == '"';
				p += ln + 2;
				while (ok && *p != '"') {
					if (*p == '\\') {
						ok = p[1] == '\\' || p[1] == '"' || p[1] == 'n';
						p++;
					}
					ok &= *p != '\0';
					p++;
				}
				p++;
				if (ok && *p == ',')
					p++;
				ok &= *p != '\0';
			}
			p++;
		}
		ok &= *p == ' ';
		if (ok) {
			strtod(p + 1, &end);
			ok = end != p + 1 && *end == '\0';
		}
	}
	if (!ok)
		fprintf(stderr, "bad exposition line: %s\n", line ? line : "(end)");
	free(copy);
	return ok;
}

/* A snapshot shaped like dp_telemetry_snapshot()'s, with awkward names. */
static const char *const sample_snapshot =
	"{\"schema_version\": 1, \"dpfwd_version\": \"0.1.0\", \"uptime_s\": 1.5,"
	" \"tsc_hz\": 2600000000,"
	" \"run\": {\"mode\": \"forward\", \"config\": \"/etc/d\\\"q\\\\b.ini\", \"workers\": 2,"
	"   \"node_stats\": true, \"mempool_ops\": \"ring_mp_mc\", \"mbufs_over_baseline\": 0},"
	" \"lcores\": ["
	"  {\"lcore\": 1, \"rx_pkts\": 4611686018427387904, \"tx_pkts\": 7, \"tx_bytes\": 448,"
	"   \"iterations\": 9, \"busy_cycles\": 100, \"idle_cycles\": 5, \"empty_polls\": 2,"
	"   \"cycles_per_pkt\": 67.25, \"instructions\": null, \"insn_per_pkt\": null,"
	"   \"instructions_unavailable\": \"no PMU\","
	"   \"rx_burst_hist\": {\"0\": 2, \"32\": 7},"
	"   \"nodes\": {\"port_rx\": {\"calls\": 9, \"pkts\": 7, \"timed_cycles\": 70,"
	"      \"timed_pkts\": 7, \"cycles_per_pkt\": 10.0, \"pkts_per_call\": 0.7},"
	"     \"port_tx-1\": {\"calls\": 1, \"pkts\": 7, \"timed_cycles\": 0, \"timed_pkts\": 0,"
	"      \"cycles_per_pkt\": null, \"pkts_per_call\": 7.0},"
	"     \"we\\\"ird\\\\node\\nx\": {\"calls\": 0, \"pkts\": 5}}},"
	"  {\"lcore\": 3, \"rx_pkts\": 0, \"tx_pkts\": 0, \"cycles_per_pkt\": null,"
	"   \"nodes\": {\"port_rx\": {\"calls\": 4, \"pkts\": 0}}}],"
	" \"nodes\": {\"port_rx\": {\"calls\": 13, \"pkts\": 7}},"
	" \"drops\": {\"total\": 3, \"by_reason\": {\"ip4_no_route\": 3, \"tx_full\": 0}},"
	" \"ports\": [{\"index\": 0, \"name\": \"net_pcap0\", \"driver\": \"net_pcap\","
	"   \"profile\": \"net_pcap\", \"mac\": \"02:70:63:61:70:00\", \"link_up\": true,"
	"   \"ipackets\": 10, \"opackets\": 0, \"imissed\": 1, \"rx_nombuf\": 2}],"
	" \"mempools\": [{\"name\": \"dpfwd_pkt_s0\", \"size\": 8191, \"in_use\": 1024}],"
	" \"fwd\": {\"ip4_routes\": 2, \"next_hops_total\": 3, \"next_hops\": []}}";

/* ---- Prometheus text ---- */

static void
test_prom_counters_gauges_and_labels(void)
{
	char *t = prom_of(sample_snapshot);

	CU_ASSERT_TRUE(exposition_ok(t));
	CU_ASSERT_TRUE(has_line(t, "# TYPE dpfwd_lcore_rx_packets_total counter"));
	CU_ASSERT_TRUE(
		has_line(t, "dpfwd_lcore_rx_packets_total{lcore=\"1\"} 4611686018427387904"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_lcore_rx_packets_total{lcore=\"3\"} 0"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_lcore_cycles_per_packet{lcore=\"1\"} 67.25"));
	CU_ASSERT_TRUE(has_line(t, "# TYPE dpfwd_lcore_cycles_per_packet gauge"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_lcore_rx_bursts_total{lcore=\"1\",size=\"32\"} 7"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_node_packets_total{lcore=\"1\",node=\"port_tx-1\"} 7"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_node_calls_total{lcore=\"3\",node=\"port_rx\"} 4"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_node_cycles_total{lcore=\"1\",node=\"port_rx\"} 70"));
	CU_ASSERT_TRUE(
		has_line(t, "dpfwd_node_cycles_per_packet{lcore=\"1\",node=\"port_rx\"} 10"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_drops_total{reason=\"ip4_no_route\"} 3"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_drops_total{reason=\"tx_full\"} 0"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_port_rx_packets_total{port=\"0\"} 10"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_port_rx_missed_total{port=\"0\"} 1"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_port_rx_nombuf_total{port=\"0\"} 2"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_port_link_up{port=\"0\"} 1"));
	CU_ASSERT_TRUE(
		has_line(t, "dpfwd_port_info{port=\"0\",name=\"net_pcap0\",driver="
			    "\"net_pcap\",profile=\"net_pcap\",mac=\"02:70:63:61:70:00\"} 1"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_mempool_in_use{pool=\"dpfwd_pkt_s0\"} 1024"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_tsc_hz 2600000000"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_uptime_seconds 1.5"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_info{version=\"0.1.0\"} 1"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_node_stats_enabled 1"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_ip4_routes 2"));
	/* the summed "nodes" section is not exported: sum() over lcores gives it */
	CU_ASSERT_PTR_NULL(strstr(t, "} 13\n"));
	free(t);
}

static void
test_prom_label_values_are_escaped(void)
{
	char *t = prom_of(sample_snapshot);

	/* node name we"ird\node<newline>x, config path /etc/d"q\b.ini */
	CU_ASSERT_TRUE(has_line(
		t, "dpfwd_node_packets_total{lcore=\"1\",node=\"we\\\"ird\\\\node\\nx\"} 5"));
	CU_ASSERT_TRUE(
		has_line(t, "dpfwd_run_info{mode=\"forward\",config=\"/etc/d\\\"q\\\\b.ini\","
			    "mempool_ops=\"ring_mp_mc\"} 1"));
	free(t);
}

static void
test_prom_null_and_missing_values_are_left_out(void)
{
	char *t = prom_of(sample_snapshot);

	/* instructions are null on every lcore: no samples, and no header either */
	CU_ASSERT_PTR_NULL(strstr(t, "dpfwd_lcore_instructions_total"));
	CU_ASSERT_PTR_NULL(strstr(t, "dpfwd_lcore_instructions_per_packet"));
	/* null on lcore 3 only */
	CU_ASSERT_PTR_NULL(strstr(t, "dpfwd_lcore_cycles_per_packet{lcore=\"3\"}"));
	CU_ASSERT_PTR_NULL(
		strstr(t, "dpfwd_node_cycles_per_packet{lcore=\"1\",node=\"port_tx-1\"}"));
	/* strings are not values */
	CU_ASSERT_PTR_NULL(strstr(t, "unavailable"));
	free(t);
}

static void
test_prom_every_family_is_one_block(void)
{
	char *t = prom_of(sample_snapshot);
	const char *p = t;
	unsigned int families = 0, types = 0;

	while ((p = strstr(p, "# HELP ")) != NULL) {
		families++;
		p++;
	}
	for (p = t; (p = strstr(p, "# TYPE ")) != NULL; p++)
		types++;
	CU_ASSERT_TRUE(families > 30);
	CU_ASSERT_EQUAL(families, types);
	/* exposition_ok() rejects a family that comes back after another one */
	CU_ASSERT_TRUE(exposition_ok(t));
	free(t);
}

static void
test_prom_empty_snapshot_gives_empty_text(void)
{
	char *t = prom_of("{}");

	CU_ASSERT_STRING_EQUAL(t, "");
	free(t);
	/* sections of the wrong shape are skipped, not misread */
	t = prom_of("{\"lcores\": {\"a\": 1}, \"ports\": 3, \"drops\": [], \"run\": null}");
	CU_ASSERT_STRING_EQUAL(t, "");
	free(t);
}

/* Every key the table maps, once. */
static const char *const full_snapshot =
	"{\"dpfwd_version\": \"0.1.0\", \"uptime_s\": 1.5, \"tsc_hz\": 1,"
	" \"run\": {\"mode\": \"forward\", \"workers\": 1, \"node_stats\": false,"
	"   \"mbufs_over_baseline\": 0},"
	" \"lcores\": [{\"lcore\": 1, \"rx_pkts\": 1, \"tx_pkts\": 1, \"tx_bytes\": 1,"
	"   \"iterations\": 1, \"busy_cycles\": 1, \"idle_cycles\": 1, \"empty_polls\": 1,"
	"   \"cycles_per_pkt\": 1.5, \"instructions\": 1, \"insn_per_pkt\": 1.5,"
	"   \"rx_burst_hist\": {\"1\": 1},"
	"   \"nodes\": {\"n\": {\"calls\": 1, \"pkts\": 1, \"timed_cycles\": 1, \"timed_pkts\": 1,"
	"     \"cycles_per_pkt\": 1.5, \"pkts_per_call\": 1.5}}}],"
	" \"drops\": {\"by_reason\": {\"r\": 1}},"
	" \"ports\": [{\"index\": 0, \"name\": \"p\", \"ipackets\": 1, \"opackets\": 1,"
	"   \"ibytes\": 1, \"obytes\": 1, \"imissed\": 1, \"ierrors\": 1, \"oerrors\": 1,"
	"   \"rx_nombuf\": 1, \"link_up\": false, \"link_speed_mbps\": 1}],"
	" \"mempools\": [{\"name\": \"m\", \"size\": 1, \"in_use\": 1, \"available\": 1,"
	"   \"in_caches\": 1, \"in_use_baseline\": 1, \"cache_size\": 1}],"
	" \"delay\": {\"le_ns\": [250, 500], \"lcores\": [{\"lcore\": 1, \"count\": 3,"
	"   \"sum_cycles\": 6, \"le_counts\": [1, 2], \"max_ns\": 5.0, \"jitter_ns\": 1.0}]},"
	" \"fwd\": {\"ip4_routes\": 1, \"next_hops_total\": 1},"
	" \"linux\": {\"punted\": 1, \"injected\": 1, \"neigh_copied\": 1,"
	"   \"netlink_messages\": 1, \"routes_added\": 1, \"routes_deleted\": 1,"
	"   \"routes_unchanged\": 1,"
	"   \"route_errors\": 1, \"routes_other_if\": 1, \"routes_skipped\": 1,"
	"   \"routes_config\": 1, \"routes_unsupported\": 1, \"neigh_learned\": 1,"
	"   \"dumps\": 1, \"resyncs\": 1, \"link_changes\": 1}}";

/* Every family is valid, and the table of docs/telemetry.md names each one. */
static void
test_prom_every_family_is_documented(void)
{
	char *t = prom_of(full_snapshot);
	char *readme = NULL, want[128];
	const char *p;
	size_t n = 0;
	unsigned int families = 0;
	FILE *f = fopen(DP_SOURCE_DIR "/docs/telemetry.md", "r");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_TRUE(getdelim(&readme, &n, '\0', f) > 0);
	fclose(f);
	CU_ASSERT_TRUE(exposition_ok(t));
	for (p = t; readme != NULL && (p = strstr(p, "# TYPE ")) != NULL; p++) {
		size_t len = name_len(p + 7);

		families++;
		snprintf(want, sizeof(want), "`%.*s`", (int)len, p + 7);
		if (strstr(readme, want) == NULL) {
			fprintf(stderr, "%s is not in docs/telemetry.md\n", want);
			CU_FAIL("metric missing from docs/telemetry.md");
		}
	}
	CU_ASSERT_EQUAL(families, 63); /* the families full_snapshot has values for */
	free(readme);
	free(t);
}

/* The Linux control plane's counters: unlabelled counters from "linux", none without it. */
static void
test_prom_linux_counters_from_the_linux_object(void)
{
	char *t = prom_of("{\"linux\": {\"enabled\": true, \"mirrors\": [], \"punted\": 7,"
			  " \"resyncs\": 2, \"routes_added\": 1000000}}");

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "# TYPE dpfwd_linux_resyncs_total counter\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\ndpfwd_linux_resyncs_total 2\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\ndpfwd_linux_punted_packets_total 7\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\ndpfwd_linux_routes_added_total 1000000\n"));
	CU_ASSERT_PTR_NULL(strstr(t, "dpfwd_linux_dumps_total"));
	free(t);
	t = prom_of("{\"fwd\": {\"ip4_routes\": 1}}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NULL(strstr(t, "dpfwd_linux_"));
	free(t);
}

/*
 * The delay histogram: cumulative counts at the bounds in seconds, +Inf = _count = every
 * packet, _sum in seconds (cycles / tsc_hz); max and jitter in seconds.
 */
static void
test_prom_delay_histogram_in_seconds(void)
{
	char *t = prom_of("{\"tsc_hz\": 2000000000, \"delay\": {\"le_ns\": [250, 1000000000],"
			  " \"lcores\": [{\"lcore\": 3, \"count\": 7, \"sum_cycles\": 3000,"
			  " \"le_counts\": [2, 6], \"max_ns\": 1500.0, \"jitter_ns\": 20.0}]}}");

	CU_ASSERT_TRUE(exposition_ok(t));
	CU_ASSERT_TRUE(has_line(t, "# TYPE dpfwd_delay_seconds histogram"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_delay_seconds_bucket{lcore=\"3\",le=\"2.5e-07\"} 2"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_delay_seconds_bucket{lcore=\"3\",le=\"1\"} 6"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_delay_seconds_bucket{lcore=\"3\",le=\"+Inf\"} 7"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_delay_seconds_sum{lcore=\"3\"} 1.5e-06"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_delay_seconds_count{lcore=\"3\"} 7"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_delay_max_seconds{lcore=\"3\"} 1.5e-06"));
	CU_ASSERT_TRUE(has_line(t, "dpfwd_delay_jitter_seconds{lcore=\"3\"} 2e-08"));
	CU_ASSERT_PTR_NULL(strstr(t, "nanoseconds"));
	free(t);
	/* counts that do not match the bounds: no histogram rather than a wrong one */
	t = prom_of("{\"tsc_hz\": 1, \"delay\": {\"le_ns\": [250, 500], \"lcores\": [{\"lcore\": 3,"
		    " \"count\": 7, \"sum_cycles\": 3, \"le_counts\": [2]}]}}");
	CU_ASSERT_PTR_NULL(strstr(t, "dpfwd_delay_seconds"));
	free(t);
}

/* The JSON file keeps time_unix to the microsecond (10 digits of seconds, then 6). */
static void
test_json_write_keeps_microseconds(void)
{
	char path[] = "/tmp/dptel.XXXXXX";
	json_t *snap = json_pack("{s:f, s:f}", "time_unix", 1795000000.123456, "x", 0.1);
	json_t *back;
	json_error_t e;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0 && snap != NULL);
	close(fd);
	CU_ASSERT_EQUAL(dp_telemetry_json_write(path, snap), 0);
	back = json_load_file(path, 0, &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	CU_ASSERT_DOUBLE_EQUAL(
		json_real_value(json_object_get(back, "time_unix")), 1795000000.123456, 5e-7);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(back, "x")), 0.1, 1e-15);
	json_decref(back);
	json_decref(snap);
	unlink(path);
}

/* ---- the HTTP server ---- */

struct http_reply {
	int status;
	char head[2048];
	char *body;
};

/* One HTTP/1.0 request to 127.0.0.1:@p port; the whole reply. */
static int
http(uint16_t port, const char *method, const char *path, struct http_reply *r)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 5 };
	char req[256], *buf = NULL, *sep;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	memset(r, 0, sizeof(*r));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	snprintf(req, sizeof(req), "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", method, path);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -EIO;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (buf == NULL)
				abort();
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf == NULL)
		return -EIO;
	buf[len] = '\0';
	sep = strstr(buf, "\r\n\r\n");
	if (sep == NULL || sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1) {
		free(buf);
		return -EPROTO;
	}
	*sep = '\0';
	snprintf(r->head, sizeof(r->head), "%s", buf);
	r->body = strdup(sep + 4);
	free(buf);
	return r->body != NULL ? 0 : -ENOMEM;
}

static json_t *
lcores_fill(void *arg)
{
	uint64_t *rx = arg;

	return json_pack("[{s:i, s:I}]", "lcore", 1, "rx_pkts", (json_int_t)(*rx)++);
}

static void
test_metrics_serves_metrics_404_and_405(void)
{
	static uint64_t rx = 41;
	struct http_reply r;
	char err[256];
	uint16_t port;

	CU_ASSERT_EQUAL_FATAL(
		dp_telemetry_section_register("lcores", NULL, "", lcores_fill, &rx), 0);
	CU_ASSERT_EQUAL_FATAL(dp_telemetry_metrics_start("127.0.0.1", 0, err, sizeof(err)), 0);
	port = dp_telemetry_metrics_port();
	CU_ASSERT_NOT_EQUAL(port, 0);

	/* each scrape is a fresh snapshot: the fill runs again */
	CU_ASSERT_EQUAL(http(port, "GET", "/metrics", &r), 0);
	CU_ASSERT_EQUAL(r.status, 200);
	CU_ASSERT_PTR_NOT_NULL(strcasestr(r.head, "Content-Type: text/plain; version=0.0.4"));
	CU_ASSERT_TRUE(r.body && has_line(r.body, "dpfwd_lcore_rx_packets_total{lcore=\"1\"} 41"));
	CU_ASSERT_TRUE(r.body && exposition_ok(r.body));
	free(r.body);
	CU_ASSERT_EQUAL(http(port, "GET", "/metrics", &r), 0);
	CU_ASSERT_TRUE(r.body && has_line(r.body, "dpfwd_lcore_rx_packets_total{lcore=\"1\"} 42"));
	free(r.body);

	CU_ASSERT_EQUAL(http(port, "GET", "/", &r), 0);
	CU_ASSERT_EQUAL(r.status, 404);
	free(r.body);
	CU_ASSERT_EQUAL(http(port, "GET", "/metrics/x", &r), 0);
	CU_ASSERT_EQUAL(r.status, 404);
	free(r.body);
	CU_ASSERT_EQUAL(http(port, "DELETE", "/metrics", &r), 0);
	CU_ASSERT_EQUAL(r.status, 405);
	CU_ASSERT_PTR_NOT_NULL(strcasestr(r.head, "Allow: GET, HEAD"));
	free(r.body);

	CU_ASSERT_EQUAL(dp_telemetry_metrics_start("127.0.0.1", 0, err, sizeof(err)), -EALREADY);
	dp_telemetry_metrics_stop();
	dp_telemetry_sections_clear();
	CU_ASSERT_EQUAL(dp_telemetry_metrics_port(), 0);
	CU_ASSERT_NOT_EQUAL(http(port, "GET", "/metrics", &r), 0);
	free(r.body);
}

static void
test_metrics_stop_frees_the_port(void)
{
	char err[256];
	uint16_t port;

	CU_ASSERT_EQUAL_FATAL(dp_telemetry_metrics_start("127.0.0.1", 0, err, sizeof(err)), 0);
	port = dp_telemetry_metrics_port();
	dp_telemetry_metrics_stop();
	/* the same port again: the listening socket was closed */
	CU_ASSERT_EQUAL(dp_telemetry_metrics_start("127.0.0.1", port, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(dp_telemetry_metrics_port(), port);
	dp_telemetry_metrics_stop();
	dp_telemetry_metrics_stop(); /* twice is fine */
}

static void
test_metrics_busy_port_says_address_and_reason(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sa);
	char err[512], want[64];
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	uint16_t port;

	CU_ASSERT_FATAL(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 1) == 0);
	CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&sa, &slen) == 0);
	port = ntohs(sa.sin_port);
	err[0] = '\0';
	CU_ASSERT_EQUAL(
		dp_telemetry_metrics_start("127.0.0.1", port, err, sizeof(err)), -EADDRINUSE);
	snprintf(want, sizeof(want), "127.0.0.1:%u: cannot bind", port);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, strerror(EADDRINUSE)));
	CU_ASSERT_EQUAL(dp_telemetry_metrics_port(), 0);
	close(fd);

	CU_ASSERT_EQUAL(dp_telemetry_metrics_start("300.0.0.1", 9108, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "300.0.0.1"));
}

/* ---- the config key ---- */

static void
test_metrics_config_values(void)
{
	static const struct {
		const char *value;
		bool ok, on;
		const char *addr;
		uint16_t port;
		const char *msg;
	} cases[] = {
		{ "off", true, false, "", 0, NULL },
		{ "OFF", true, false, "", 0, NULL },
		{ "on", true, true, "127.0.0.1", 9108, NULL },
		{ "127.0.0.1:9108", true, true, "127.0.0.1", 9108, NULL },
		{ "127.0.0.1:0", true, true, "127.0.0.1", 0, NULL },
		{ "9200", true, true, "127.0.0.1", 9200, NULL },
		{ "localhost:9300", true, true, "127.0.0.1", 9300, NULL },
		{ "[::1]:9108", true, true, "::1", 9108, NULL },
		{ "0.0.0.0:9108", true, true, "0.0.0.0", 9108, NULL },
		{ "127.0.0.1:65536", false, false, NULL, 0, "port '65536' must be 0..65535" },
		{ "127.0.0.1:", false, false, NULL, 0, "port '' must be 0..65535" },
		{ "127.0.0.1:-1", false, false, NULL, 0, "port '-1' must be 0..65535" },
		{ "127.0.0.256:9108", false, false, NULL, 0, "not a numeric IPv4 address" },
		{ "example.com:9108", false, false, NULL, 0, "not a numeric IPv4 address" },
		{ "::1:9108", false, false, NULL, 0, "IPv6 address in brackets" },
		{ "[::1]", false, false, NULL, 0, "expected off, on" },
		{ "[fe80::zz]:1", false, false, NULL, 0, "not a numeric IPv6 address" },
		{ "yes", false, false, NULL, 0, "port 'yes' must be 0..65535" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dp_config cfg;
		char set[128], err[DP_CONFIG_ERR_LEN] = "";
		int rc;

		dp_config_init(&cfg);
		CU_ASSERT_FALSE(cfg.metrics); /* off by default */
		snprintf(set, sizeof(set), "dpfwd.metrics=%s", cases[i].value);
		rc = dp_config_set(&cfg, set, err, sizeof(err));
		if ((rc == 0) != cases[i].ok || (rc != 0 && strstr(err, cases[i].msg) == NULL) ||
			(rc == 0 && (cfg.metrics != cases[i].on ||
					    (cfg.metrics &&
						    (strcmp(cfg.metrics_addr, cases[i].addr) != 0 ||
							    cfg.metrics_port != cases[i].port))))) {
			fprintf(stderr, "metrics = %s: rc %d, err '%s', on %d, %s port %u\n",
				cases[i].value, rc, err, cfg.metrics, cfg.metrics_addr,
				cfg.metrics_port);
			CU_FAIL("metrics value");
		}
		if (rc != 0)
			CU_ASSERT_PTR_NOT_NULL(strstr(err, "--set: metrics '"));
		dp_config_free(&cfg);
	}
}

/* The interval's histogram: cur minus prev, bucket by bucket, empty ones left out. */
static void
test_buckets_diff_is_what_came_between_snapshots(void)
{
	json_t *prev = json_pack("[[I,I,I],[I,I,I]]", 8, 2, 5, 64, 16, 7);
	json_t *cur = json_pack("[[I,I,I],[I,I,I],[I,I,I]]", 8, 2, 5, 32, 8, 3, 64, 16, 10);
	struct dp_hist_bucket out[8];
	size_t n = dp_telemetry_buckets_diff(cur, prev, out, 8);

	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(out[0].low, 32);
	CU_ASSERT_EQUAL(out[0].count, 3);
	CU_ASSERT_EQUAL(out[1].low, 64);
	CU_ASSERT_EQUAL(out[1].width, 16);
	CU_ASSERT_EQUAL(out[1].count, 3);
	CU_ASSERT_EQUAL(dp_telemetry_buckets_diff(cur, NULL, out, 8), 3);
	json_decref(prev);
	json_decref(cur);
}

int
main(void)
{
	static const struct dp_test tests[] = {
		{ "test_prom_counters_gauges_and_labels", test_prom_counters_gauges_and_labels },
		{ "test_prom_label_values_are_escaped", test_prom_label_values_are_escaped },
		{ "test_prom_null_and_missing_values_are_left_out",
			test_prom_null_and_missing_values_are_left_out },
		{ "test_prom_every_family_is_one_block", test_prom_every_family_is_one_block },
		{ "test_prom_empty_snapshot_gives_empty_text",
			test_prom_empty_snapshot_gives_empty_text },
		{ "test_prom_every_family_is_documented", test_prom_every_family_is_documented },
		{ "test_prom_delay_histogram_in_seconds", test_prom_delay_histogram_in_seconds },
		{ "test_prom_linux_counters_from_the_linux_object",
			test_prom_linux_counters_from_the_linux_object },
		{ "test_json_write_keeps_microseconds", test_json_write_keeps_microseconds },
		{ "test_metrics_serves_metrics_404_and_405",
			test_metrics_serves_metrics_404_and_405 },
		{ "test_metrics_stop_frees_the_port", test_metrics_stop_frees_the_port },
		{ "test_metrics_busy_port_says_address_and_reason",
			test_metrics_busy_port_says_address_and_reason },
		{ "test_metrics_config_values", test_metrics_config_values },
		{ "test_buckets_diff_is_what_came_between_snapshots",
			test_buckets_diff_is_what_came_between_snapshots },
		{ NULL, NULL },
	};

	return dp_test_run("telemetry", tests, NULL, NULL);
}
