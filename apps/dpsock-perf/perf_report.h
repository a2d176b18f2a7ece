/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpsock-perf's output: the aligned table (transport x size) with the ratio
 * columns, the breakdown table, and everything as JSON (perf_report.c).
 */
#ifndef DPSOCK_PERF_REPORT_H
#define DPSOCK_PERF_REPORT_H

#include <stdio.h>

#include "perf_breakdown.h"

/** What the run was: printed in the JSON. */
struct perf_run_info {
	const size_t *sizes;
	unsigned int nb_sizes;
	uint64_t iters, warmup;
	double pp_max_s, duration;
	unsigned int batch;
	const char *mode;
	int cpu[2];
	const char *dpsock_path;
	const char *local_addr;
	const char *remote;
	int sndbuf;
	bool dpsock_ok;
	const char *dpsock_why;
	const char *notes[16];
	unsigned int nb_notes;
};

/** "8", "1K", "64K", "1M", else the number. */
const char *perf_size_str(size_t size, char *buf, size_t len);

/** The cell of @p transport at @p size to compare with (its default mode first). */
const struct perf_cell *perf_cell_find(
	const struct perf_cell *cells, unsigned int n, const char *transport, size_t size);

void perf_report_table(FILE *f, const struct perf_cell *cells, unsigned int n);
void perf_report_breakdown(FILE *f, const struct perf_breakdown *bd);

/** Write the JSON to @p path ("-": stdout). 0 or -errno. */
int perf_report_json(const char *path, const struct perf_run_info *ri,
	const struct perf_cell *cells, unsigned int n, const struct perf_breakdown *bd);

#endif /* DPSOCK_PERF_REPORT_H */
