/* SPDX-License-Identifier: BSD-3-Clause */
/* The endpoints (dpsock) as a module (dp_module.h). */
#include <stdio.h>
#include <string.h>

#include "dp_config.h"
#include "dp_endpoint.h"
#include "dp_module.h"

static int
endpoint_telemetry(const struct dp_config *cfg)
{
	RTE_SET_USED(cfg);
	return dp_endpoint_telemetry_register();
}

/* the nodes' trace lines (dp_trace.h) */
static int
endpoint_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	int rc = dp_endpoint_trace_register();

	RTE_SET_USED(cfg);
	if (rc < 0)
		snprintf(err, errlen, "endpoint: cannot register its trace lines: %s",
			strerror(-rc));
	return rc;
}

static struct dp_module endpoint_module = {
	.name = "endpoint",
	.deps = { "fwd" },
	.sections = { &dp_endpoint_section },
	.mbuf_demand = dp_endpoint_mbuf_demand,
	/* the port table and the control socket, before the graphs */
	.init = dp_endpoint_init,
	.start = endpoint_start,
	.telemetry = endpoint_telemetry,
	/* applications attach once the workers can carry their datagrams */
	.run = dp_endpoint_start,
	/* while the workers run: detaching an endpoint waits for them (RCU) */
	.stop = dp_endpoint_stop,
	/* after the ports: mbufs they held may point into endpoint regions */
	.fini = dp_endpoint_fini,
};
DP_MODULE_REGISTER(endpoint_module);
