/* SPDX-License-Identifier: BSD-3-Clause */
/* The UDP relay as a module (dp_module.h). */
#include <stdio.h>
#include <string.h>

#include "dp_config.h"
#include "dp_module.h"
#include "dp_relay.h"

static int
relay_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	int rc = dp_relay_start();

	RTE_SET_USED(cfg);
	if (rc == 0)
		rc = dp_relay_trace_register();
	if (rc < 0)
		snprintf(err, errlen, "relay: cannot start: %s", strerror(-rc));
	return rc;
}

static int
relay_telemetry(const struct dp_config *cfg)
{
	RTE_SET_USED(cfg);
	return dp_relay_telemetry_register();
}

static struct dp_module relay_module = {
	.name = "relay",
	.deps = { "fwd" },
	.sections = { &dp_relay_section },
	/* its per-worker tables, before the graphs whose nodes use them */
	.init = dp_relay_init,
	.start = relay_start,
	.telemetry = relay_telemetry,
	.fini = dp_relay_fini,
};
DP_MODULE_REGISTER(relay_module);
