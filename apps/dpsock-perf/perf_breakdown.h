/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --breakdown: per-operation costs of dpsock and of Linux UDP (perf_breakdown.c).
 */
#ifndef DPSOCK_PERF_BREAKDOWN_H
#define DPSOCK_PERF_BREAKDOWN_H

#include "perf_run.h"

#define PERF_BD_ROWS 12

struct perf_bd_params {
	int cpu[2];
	bool quick;
	bool dpsock_ok;         /**< a dpfwd listens: the dpsock rows are measured */
	const char *dpsock_why; /**< else why not */
	bool (*block_for)(const struct perf_transport *t);
};

/** One row: ns for dpsock [0] and Linux UDP [1]; < 0: not measured / not meaningful. */
struct perf_bd_row {
	const char *name;
	double ns[2];
};

struct perf_breakdown {
	struct perf_bd_row rows[PERF_BD_ROWS];
	unsigned int nb_rows;
	size_t slope_top[2]; /**< largest size in the per-KB fit: dpsock, UDP */
	size_t slope_top_zc;
	char note_dpsock[PERF_NOTE_LEN];
	char note_linux[PERF_NOTE_LEN];
};

void perf_breakdown_run(
	const struct perf_opts *o, const struct perf_bd_params *bp, struct perf_breakdown *bd);

#endif /* DPSOCK_PERF_BREAKDOWN_H */
