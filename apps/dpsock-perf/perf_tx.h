/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --tx-stream (perf_tx.c): stream datagrams to another host through dpfwd.
 */
#ifndef DPSOCK_PERF_TX_H
#define DPSOCK_PERF_TX_H

#include <stdio.h>

#include "perf.h"

struct perf_tx_params {
	size_t size;
	double duration;
	unsigned int batch;
	bool zero_copy;
	int cpu; /**< pin to this CPU (-1: not pinned) */
};

/** Stream to o->remote; print one JSON line to @p out. @return the exit status. */
int perf_tx_stream(const struct perf_opts *o, const struct perf_tx_params *tp, FILE *out);

#endif /* DPSOCK_PERF_TX_H */
