/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table, the breakdown and the JSON of dpsock-perf.
 *
 * Ratio columns (on dpsock rows): "rtt/udp" is udp-loopback's RTT p50 over this
 * row's (how many times lower dpsock's is), "msg/udp" this row's msgs/s over
 * udp-loopback's (how many times higher); the same against unix-dgram.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/utsname.h>

#include <jansson.h>

#include "perf_report.h"

const char *
perf_size_str(size_t size, char *buf, size_t len)
{
	if (size == 0)
		snprintf(buf, len, "-");
	else if (size >= 1048576 && size % 1048576 == 0)
		snprintf(buf, len, "%zuM", size / 1048576);
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(buf, len, "%zuK", size / 1024);
	else
		snprintf(buf, len, "%zu", size);
	return buf;
}

static const char *
rate_str(double v, char *buf, size_t len)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

const struct perf_cell *
perf_cell_find(const struct perf_cell *cells, unsigned int n, const char *transport, size_t size)
{
	const struct perf_transport *t = perf_transport_find(transport);
	const char *dmode = t && t->default_mode == PERF_MODE_BLOCK ? "block" : "spin";
	const struct perf_cell *any = NULL;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct perf_cell *c = &cells[i];

		if (c->size != size || strcmp(c->transport, transport) != 0)
			continue;
		if (strcmp(c->mode, dmode) == 0)
			return c;
		if (any == NULL)
			any = c;
	}
	return any;
}

static bool
cell_ok(const struct perf_cell *c)
{
	return c != NULL && c->status == PERF_OK;
}

static void
ratio_col(FILE *f, double num, double den)
{
	if (num > 0 && den > 0)
		fprintf(f, " %8.1fx", num / den);
	else
		fprintf(f, " %9s", "-");
}

void
perf_report_table(FILE *f, const struct perf_cell *cells, unsigned int n)
{
	unsigned int i;
	char b1[24], b2[24];

	fprintf(f, "%-14s %-5s %5s %9s %9s %9s %8s %9s %9s %9s %9s  %s\n", "transport", "mode",
		"size", "p50 us", "p99 us", "msgs/s", "Gbps", "rtt/udp", "rtt/unix", "msg/udp",
		"msg/unix", "note");
	for (i = 0; i < n; i++) {
		const struct perf_cell *c = &cells[i];
		bool dps = strncmp(c->transport, "dpsock-", 7) == 0 &&
			   strcmp(c->transport, "dpsock-remote") != 0;
		const struct perf_cell *u = perf_cell_find(cells, n, "udp-loopback", c->size);
		const struct perf_cell *x = perf_cell_find(cells, n, "unix-dgram", c->size);

		fprintf(f, "%-14s %-5s %5s", c->transport, c->mode,
			perf_size_str(c->size, b1, sizeof(b1)));
		if (c->status == PERF_SKIPPED) {
			fprintf(f, "  skipped: %s\n", c->note);
			continue;
		}
		if (c->rtt.n > 0)
			fprintf(f, " %9.2f %9.2f", c->rtt.p50, c->rtt.p99);
		else
			fprintf(f, " %9s %9s", "-", "-");
		if (c->streamed && c->msgs_per_s > 0)
			fprintf(f, " %9s %8.2f", rate_str(c->msgs_per_s, b2, sizeof(b2)), c->gbps);
		else
			fprintf(f, " %9s %8s", "-", "-");
		if (dps && cell_ok(c)) {
			ratio_col(f, cell_ok(u) ? u->rtt.p50 : 0, c->rtt.p50);
			ratio_col(f, cell_ok(x) ? x->rtt.p50 : 0, c->rtt.p50);
			ratio_col(f, c->msgs_per_s, cell_ok(u) ? u->msgs_per_s : 0);
			ratio_col(f, c->msgs_per_s, cell_ok(x) ? x->msgs_per_s : 0);
		} else {
			fprintf(f, " %9s %9s %9s %9s", "", "", "", "");
		}
		if (c->status == PERF_FAILED)
			fprintf(f, "  FAILED: %s", c->note);
		else if (c->lost > 0)
			fprintf(f, "  lost %.1f%% streaming",
				c->sent ? 100.0 * (double)c->lost / (double)c->sent : 0.0);
		if (c->status != PERF_FAILED && c->lost_replies > 0)
			fprintf(f, "  %" PRIu64 " replies lost", c->lost_replies);
		fprintf(f, "\n");
	}
}

void
perf_report_breakdown(FILE *f, const struct perf_breakdown *bd)
{
	unsigned int i;
	char b1[24], b2[24], b3[24];

	fprintf(f, "\nlatency breakdown (ns; median per call, one-way = RTT p50 / 2)\n");
	fprintf(f, "%-46s %12s %12s\n", "", "dpsock", "Linux UDP");
	for (i = 0; i < bd->nb_rows; i++) {
		const struct perf_bd_row *r = &bd->rows[i];
		unsigned int k;

		fprintf(f, "%-46s", r->name);
		for (k = 0; k < 2; k++) {
			if (r->ns[k] >= 0)
				fprintf(f, " %12.1f", r->ns[k]);
			else
				fprintf(f, " %12s", "n/a");
		}
		fprintf(f, "\n");
	}
	fprintf(f,
		"per KB fitted over 1K..%s (dpsock), 1K..%s (zero-copy), 1K..%s (UDP: 65507 B at "
		"most)\n",
		perf_size_str(bd->slope_top[0], b1, sizeof(b1)),
		perf_size_str(bd->slope_top_zc, b2, sizeof(b2)),
		perf_size_str(bd->slope_top[1], b3, sizeof(b3)));
	if (bd->note_dpsock[0])
		fprintf(f, "dpsock: %s\n", bd->note_dpsock);
	if (bd->note_linux[0])
		fprintf(f, "Linux: %s\n", bd->note_linux);
}

/* ---- JSON ---- */

static json_t *
num_or_null(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

static json_t *
machine_json(void)
{
	json_t *m = json_object();
	struct utsname u;
	char line[512], host[256] = "";
	double la[3] = { 0, 0, 0 };
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			char *c = strchr(line, ':');

			if (strncmp(line, "model name", 10) == 0 && c != NULL) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				c[strcspn(c, "\n")] = '\0';
				json_object_set_new(m, "cpu_model", json_string(c));
				break;
			}
		}
		fclose(f);
	}
	if (json_object_get(m, "cpu_model") == NULL)
		json_object_set_new(m, "cpu_model", json_null());
	json_object_set_new(m, "nproc", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	if (uname(&u) == 0) {
		json_object_set_new(m, "kernel", json_string(u.release));
		json_object_set_new(m, "machine", json_string(u.machine));
	}
	gethostname(host, sizeof(host) - 1);
	json_object_set_new(m, "hostname", json_string(host));
	if (getloadavg(la, 3) == 3)
		json_object_set_new(m, "loadavg", json_pack("[f,f,f]", la[0], la[1], la[2]));
	json_object_set_new(m, "tsc_hz", json_integer((json_int_t)perf_hz));
	json_object_set_new(m, "tick_overhead_ns", json_real(perf_ticks_ns(perf_tick_overhead)));
	return m;
}

static const char *
status_str(enum perf_status s)
{
	return s == PERF_OK ? "ok" : s == PERF_SKIPPED ? "skipped" : "failed";
}

static json_t *
cell_json(const struct perf_cell *c)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:s}", "transport", c->transport, "mode",
		c->mode, "size", (json_int_t)c->size, "status", status_str(c->status), "note",
		c->note);

	if (c->status == PERF_SKIPPED)
		return o;
	if (c->rtt.n > 0)
		json_object_set_new(o, "rtt_us",
			json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "n",
				(json_int_t)c->rtt.n, "min", c->rtt.min, "p50", c->rtt.p50, "p90",
				c->rtt.p90, "p99", c->rtt.p99, "p999", c->rtt.p999, "max",
				c->rtt.max, "mean", c->rtt.mean));
	else
		json_object_set_new(o, "rtt_us", json_null());
	json_object_set_new(o, "requests", json_integer((json_int_t)c->requests));
	json_object_set_new(o, "lost_replies", json_integer((json_int_t)c->lost_replies));
	if (c->streamed)
		json_object_set_new(o, "stream",
			json_pack("{s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f}", "sent",
				(json_int_t)c->sent, "received", (json_int_t)c->received, "lost",
				(json_int_t)c->lost, "again", (json_int_t)c->again, "tx_s", c->tx_s,
				"rx_s", c->rx_s, "msgs_per_s", c->msgs_per_s, "gbps", c->gbps));
	else
		json_object_set_new(o, "stream", json_null());
	json_object_set_new(o, "check",
		json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "msgs",
			(json_int_t)c->chk.msgs, "bytes", (json_int_t)c->chk.bytes,
			"validated_bytes", (json_int_t)c->chk.ok_bytes, "bad_len",
			(json_int_t)c->chk.bad_len, "bad_data", (json_int_t)c->chk.bad_data,
			"bad_seq", (json_int_t)c->chk.bad_seq, "lost", (json_int_t)c->chk.lost,
			"ok", perf_check_bad(&c->chk) == 0 && c->status == PERF_OK));
	return o;
}

static json_t *
ratios_json(const struct perf_cell *cells, unsigned int n)
{
	static const char *const vs[] = { "udp-loopback", "unix-dgram" };
	json_t *a = json_array();
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		const struct perf_cell *c = &cells[i];

		if (!cell_ok(c) || strncmp(c->transport, "dpsock-", 7) != 0 ||
			strcmp(c->transport, "dpsock-remote") == 0)
			continue;
		for (k = 0; k < 2; k++) {
			const struct perf_cell *o = perf_cell_find(cells, n, vs[k], c->size);

			if (!cell_ok(o))
				continue;
			json_array_append_new(
				a, json_pack("{s:s, s:s, s:s, s:I, s:o, s:o}", "transport",
					   c->transport, "mode", c->mode, "vs", vs[k], "size",
					   (json_int_t)c->size, "rtt_p50_lower_x",
					   o->rtt.p50 > 0 && c->rtt.p50 > 0
						   ? json_real(o->rtt.p50 / c->rtt.p50)
						   : json_null(),
					   "msgs_per_s_higher_x",
					   o->msgs_per_s > 0 && c->msgs_per_s > 0
						   ? json_real(c->msgs_per_s / o->msgs_per_s)
						   : json_null()));
		}
	}
	return a;
}

static json_t *
breakdown_json(const struct perf_breakdown *bd)
{
	json_t *rows = json_array();
	unsigned int i;

	for (i = 0; i < bd->nb_rows; i++)
		json_array_append_new(
			rows, json_pack("{s:s, s:o, s:o}", "name", bd->rows[i].name, "dpsock_ns",
				      num_or_null(bd->rows[i].ns[0]), "linux_udp_ns",
				      num_or_null(bd->rows[i].ns[1])));
	return json_pack("{s:o, s:I, s:I, s:I, s:s, s:s}", "rows", rows, "slope_top_dpsock",
		(json_int_t)bd->slope_top[0], "slope_top_zc", (json_int_t)bd->slope_top_zc,
		"slope_top_udp", (json_int_t)bd->slope_top[1], "note_dpsock", bd->note_dpsock,
		"note_linux", bd->note_linux);
}

int
perf_report_json(const char *path, const struct perf_run_info *ri, const struct perf_cell *cells,
	unsigned int n, const struct perf_breakdown *bd)
{
	json_t *root, *sizes = json_array(), *arr = json_array(), *tr = json_array(),
		      *notes = json_array();
	unsigned int i, failed = 0;
	int rc;

	for (i = 0; i < ri->nb_sizes; i++)
		json_array_append_new(sizes, json_integer((json_int_t)ri->sizes[i]));
	for (i = 0; i < n; i++) {
		json_array_append_new(arr, cell_json(&cells[i]));
		failed += cells[i].status == PERF_FAILED;
	}
	for (i = 0; perf_transports[i] != NULL; i++)
		json_array_append_new(
			tr, json_pack("{s:s, s:s, s:s, s:b, s:b}", "name", perf_transports[i]->name,
				    "what", perf_transports[i]->what, "default_mode",
				    perf_transports[i]->default_mode == PERF_MODE_BLOCK ? "block"
											: "spin",
				    "lossy", perf_transports[i]->lossy, "needs_dpfwd",
				    perf_transports[i]->dpsock));
	for (i = 0; i < ri->nb_notes; i++)
		json_array_append_new(notes, json_string(ri->notes[i]));
	root = json_pack("{s:s, s:i, s:o, s:{s:o, s:I, s:I, s:f, s:f, s:i, s:s, s:[i,i], s:o, s:s, "
			 "s:o, s:i}, s:{s:b, s:s}, s:o, s:o, s:o, s:o, s:o, s:i}",
		"tool", "dpsock-perf", "version", 1, "machine", machine_json(), "params", "sizes",
		sizes, "iters", (json_int_t)ri->iters, "warmup", (json_int_t)ri->warmup, "pp_max_s",
		ri->pp_max_s, "duration_s", ri->duration, "batch", (int)ri->batch, "mode", ri->mode,
		"cpus", ri->cpu[0], ri->cpu[1], "dpsock_path",
		ri->dpsock_path ? json_string(ri->dpsock_path) : json_null(), "local_addr",
		ri->local_addr, "remote", ri->remote ? json_string(ri->remote) : json_null(),
		"sndbuf", ri->sndbuf, "dpsock", "available", ri->dpsock_ok, "why",
		ri->dpsock_why ? ri->dpsock_why : "", "transports", tr, "cells", arr, "ratios",
		ratios_json(cells, n), "breakdown", bd ? breakdown_json(bd) : json_null(), "notes",
		notes, "failed", (int)failed);
	if (root == NULL)
		return -EINVAL;
	if (strcmp(path, "-") == 0)
		rc = json_dumpf(root, stdout, JSON_INDENT(1)) == 0 ? 0 : -EIO;
	else
		rc = json_dump_file(root, path, JSON_INDENT(1)) == 0 ? 0 : -EIO;
	json_decref(root);
	return rc;
}
