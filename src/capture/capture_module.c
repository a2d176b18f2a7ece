/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet capture and trace as a module (dp_module.h): no config, two timers and six commands. */
#include <stdio.h>
#include <string.h>

#include "capture_priv.h"
#include "dp_capture.h"
#include "dp_config.h"
#include "dp_module.h"
#include "dp_trace.h"

static int
capture_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	int rc = dp_capture_ctl_start();

	RTE_SET_USED(cfg);
	if (rc == 0)
		rc = trace_ctl_start();
	if (rc == 0)
		rc = dp_trace_init();
	if (rc < 0)
		snprintf(err, errlen, "capture: cannot start: %s", strerror(-rc));
	return rc;
}

static int
capture_telemetry(const struct dp_config *cfg)
{
	int rc;

	RTE_SET_USED(cfg);
	rc = dp_capture_telemetry_register();
	return rc == 0 ? trace_telemetry_register() : rc;
}

/* a capture still running when dpfwd stops is completed while the workers
 * still run (they pass quiescent states): the tap is off before they stop */
static void
capture_stop(void)
{
	dp_capture_stop("exit");
	trace_stop();
}

static struct dp_module capture_module = {
	.name = "capture",
	.start = capture_start,
	.telemetry = capture_telemetry,
	.stop = capture_stop,
};
DP_MODULE_REGISTER(capture_module);
