/* SPDX-License-Identifier: BSD-3-Clause */
/* The module registry (dp_module.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dp_common.h"
#include "dp_module.h"

static STAILQ_HEAD(, dp_module) modules = STAILQ_HEAD_INITIALIZER(modules);

void
dp_module_register(struct dp_module *m)
{
	STAILQ_INSERT_TAIL(&modules, m, next);
}

const struct dp_module *
dp_module_next(const struct dp_module *m)
{
	return m == NULL ? STAILQ_FIRST(&modules) : STAILQ_NEXT(m, next);
}

void
dp_module_unregister(struct dp_module *m)
{
	struct dp_module *x;

	STAILQ_FOREACH(x, &modules, next)
	if (x == m) {
		STAILQ_REMOVE(&modules, m, dp_module, next);
		return;
	}
}

static struct dp_module *
module_find(const char *name)
{
	struct dp_module *m;

	STAILQ_FOREACH(m, &modules, next)
	if (strcmp(m->name, name) == 0)
		return m;
	return NULL;
}

/* Depth first: @p m after its dependencies. state: 0 new, 1 on the path, 2 placed. */
static int
module_visit(struct dp_module *m, uint8_t *state, struct dp_module **all, unsigned int nb,
	struct dp_module **out, unsigned int *n, unsigned int max, char *err, size_t errlen)
{
	unsigned int self, d;
	int rc;

	for (self = 0; all[self] != m; self++)
		;
	if (state[self] == 2)
		return 0;
	if (state[self] == 1) {
		snprintf(err, errlen, "module %s: a dependency cycle goes through it", m->name);
		return -ELOOP;
	}
	state[self] = 1;
	for (d = 0; d < DP_MODULE_MAX_DEPS && m->deps[d] != NULL; d++) {
		struct dp_module *dep = module_find(m->deps[d]);

		if (dep == NULL) {
			snprintf(err, errlen, "module %s needs module %s, which is not registered",
				m->name, m->deps[d]);
			return -ENOENT;
		}
		rc = module_visit(dep, state, all, nb, out, n, max, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (*n == max) {
		snprintf(err, errlen, "more than %u modules", max);
		return -ENOSPC;
	}
	out[(*n)++] = m;
	state[self] = 2;
	return 0;
}

int
dp_module_order(struct dp_module **out, unsigned int max, char *err, size_t errlen)
{
	struct dp_module *all[DP_MODULE_MAX];
	uint8_t state[DP_MODULE_MAX] = { 0 };
	struct dp_module *m;
	unsigned int nb = 0, n = 0, i;
	int rc;

	STAILQ_FOREACH(m, &modules, next)
	{
		if (nb == DP_MODULE_MAX) {
			snprintf(err, errlen, "more than %u modules", DP_MODULE_MAX);
			return -ENOSPC;
		}
		all[nb++] = m;
	}
	for (i = 0; i < nb; i++) {
		rc = module_visit(all[i], state, all, nb, out, &n, max, err, errlen);
		if (rc < 0)
			return rc;
	}
	return (int)n;
}

uint32_t
dp_modules_mbuf_demand(const struct dp_config *cfg, unsigned int nb_workers)
{
	struct dp_module *m;
	uint32_t sum = 0;

	STAILQ_FOREACH(m, &modules, next)
	if (m->mbuf_demand != NULL)
		sum += m->mbuf_demand(cfg, nb_workers);
	return sum;
}

int
dp_modules_init(const struct dp_config *cfg, char *err, size_t errlen)
{
	struct dp_module *order[DP_MODULE_MAX];
	int n = dp_module_order(order, DP_ARRAY_SIZE(order), err, errlen);
	int i, rc;

	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		rc = order[i]->init != NULL ? order[i]->init(cfg, err, errlen) : 0;
		if (rc < 0) {
			DP_LOG(ERR, common, "module %s: init failed: %s", order[i]->name, err);
			/* this one cleans up after its own failure, as its fini would */
			if (order[i]->fini != NULL)
				order[i]->fini();
			dp_modules_fini();
			return rc;
		}
		order[i]->inited = true;
	}
	return 0;
}

/* One hook of the inited modules, in order; @p what names it in errors. */
#define MODULES_EACH(hook, what, ...)                                                              \
	do {                                                                                       \
		struct dp_module *order[DP_MODULE_MAX];                                            \
		int n = dp_module_order(order, DP_ARRAY_SIZE(order), err, errlen), i, rc;          \
                                                                                                   \
		if (n < 0)                                                                         \
			return n;                                                                  \
		for (i = 0; i < n; i++) {                                                          \
			if (!order[i]->inited || order[i]->hook == NULL)                           \
				continue;                                                          \
			rc = order[i]->hook(__VA_ARGS__);                                          \
			if (rc < 0) {                                                              \
				if (err[0] == '\0')                                                \
					snprintf(err, errlen, "module %s: %s: %s", order[i]->name, \
						what, strerror(-rc));                              \
				return rc;                                                         \
			}                                                                          \
		}                                                                                  \
		return 0;                                                                          \
	} while (0)

int
dp_modules_start(const struct dp_config *cfg, char *err, size_t errlen)
{
	err[0] = '\0';
	MODULES_EACH(start, "start", cfg, err, errlen);
}

int
dp_modules_telemetry(const struct dp_config *cfg, char *err, size_t errlen)
{
	err[0] = '\0';
	MODULES_EACH(telemetry, "telemetry", cfg);
}

int
dp_modules_run(char *err, size_t errlen)
{
	err[0] = '\0';
	MODULES_EACH(run, "run");
}

/* The inited modules in reverse order into @p out. @return how many. */
static unsigned int
modules_reverse(struct dp_module **out)
{
	struct dp_module *order[DP_MODULE_MAX];
	char err[128];
	int n = dp_module_order(order, DP_ARRAY_SIZE(order), err, sizeof(err));
	unsigned int k = 0;

	while (n-- > 0)
		if (order[n]->inited)
			out[k++] = order[n];
	return k;
}

void
dp_modules_stop(void)
{
	struct dp_module *rev[DP_MODULE_MAX];
	unsigned int n = modules_reverse(rev), i;

	for (i = 0; i < n; i++)
		if (rev[i]->stop != NULL)
			rev[i]->stop();
}

void
dp_modules_fini(void)
{
	struct dp_module *rev[DP_MODULE_MAX];
	unsigned int n = modules_reverse(rev), i;

	for (i = 0; i < n; i++) {
		if (rev[i]->fini != NULL)
			rev[i]->fini();
		rev[i]->inited = false;
	}
}
