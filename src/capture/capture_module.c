/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet capture as a module (dp_module.h): no config, a timer and three commands. */
#include <stdio.h>
#include <string.h>

#include "dp_capture.h"
#include "dp_config.h"
#include "dp_module.h"

static int
capture_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	int rc = dp_capture_ctl_start();

	RTE_SET_USED(cfg);
	if (rc < 0)
		snprintf(err, errlen, "capture: cannot start: %s", strerror(-rc));
	return rc;
}

static int
capture_telemetry(const struct dp_config *cfg)
{
	RTE_SET_USED(cfg);
	return dp_capture_telemetry_register();
}

/* a capture still running when dpfwd stops is completed while the workers
 * still run (they pass quiescent states): the tap is off before they stop */
static void
capture_stop(void)
{
	dp_capture_stop("exit");
}

static struct dp_module capture_module = {
	.name = "capture",
	.start = capture_start,
	.telemetry = capture_telemetry,
	.stop = capture_stop,
};
DP_MODULE_REGISTER(capture_module);
