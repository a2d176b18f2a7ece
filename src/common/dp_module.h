/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The module registry: each module of dpfwd above the core (fwd, relay,
 * endpoint, and any that is added) describes itself in one struct dp_module,
 * registered at load time with DP_MODULE_REGISTER() (as grout's gr_module
 * with RTE_INIT), and src/run runs the hooks of every registered module in
 * dependency order (a module after those it names in deps) and stops them
 * in reverse. The core (ports, mempools, the workers' graphs, the control
 * lcore) is brought up by src/run around the phases:
 *
 *   mbuf_demand   while the pools are sized
 *   init          tables and registrations (local services, source nodes),
 *                 before the workers' graphs are made
 *   start         the control path (timers, control lcore work), after the
 *                 graphs are made, before the workers run
 *   telemetry     its telemetry sections and commands
 *   run           once the workers run
 *   stop          before the workers stop (reverse order)
 *   fini          after the workers and the ports stopped (reverse order);
 *                 also after a failed init, for the modules whose init ran
 *
 * Every hook is optional. A module's config sections ([routes], [relayN], ...)
 * are in its sections: src/config reads them from here (dp_config.h), and
 * keeps their structs in struct dp_config's room for modules.
 */
#ifndef DP_MODULE_H
#define DP_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>

struct dp_config;
struct dp_config_section;

/** Most modules a module may depend on. */
#define DP_MODULE_MAX_DEPS 8
/** Most modules. */
#define DP_MODULE_MAX 32
/** Most config sections a module may have. */
#define DP_MODULE_MAX_SECTIONS 4

struct dp_module {
	const char *name;                     /**< its folder's name */
	const char *deps[DP_MODULE_MAX_DEPS]; /**< modules it needs started first */
	/** its config sections, with their key tables (dp_config.h); config places them */
	struct dp_config_section *sections[DP_MODULE_MAX_SECTIONS];
	/** mbufs it holds beyond the ports' rings and caches, for the pool size */
	uint32_t (*mbuf_demand)(const struct dp_config *cfg, unsigned int nb_workers);
	int (*init)(const struct dp_config *cfg, char *err, size_t errlen);
	int (*start)(const struct dp_config *cfg, char *err, size_t errlen);
	int (*telemetry)(const struct dp_config *cfg);
	int (*run)(void);
	void (*stop)(void);
	void (*fini)(void);
	/* the registry's */
	bool inited; /**< init ran and fini has not */
	STAILQ_ENTRY(dp_module) next;
};

/** Add @p m to the registry (from a constructor: DP_MODULE_REGISTER()). */
void dp_module_register(struct dp_module *m);

/** Take @p m out of the registry (a module registered for a while: tests). */
void dp_module_unregister(struct dp_module *m);

/** Register module @p m at load time. */
#define DP_MODULE_REGISTER(m)                                                                      \
	RTE_INIT(dp_module_register_##m)                                                           \
	{                                                                                          \
		dp_module_register(&(m));                                                          \
	}

/** The registered module after @p m (NULL: the first), in the order they registered. */
const struct dp_module *dp_module_next(const struct dp_module *m);

/**
 * The registered modules in dependency order (each after those it names in
 * deps; otherwise in the order they registered) into @p out.
 * @return how many, or -ENOENT (a dependency is not registered), -ELOOP (a
 *   cycle), -ENOSPC (more than @p max); @p err says which module.
 */
int dp_module_order(struct dp_module **out, unsigned int max, char *err, size_t errlen);

/** The sum of the modules' mbuf_demand. */
uint32_t dp_modules_mbuf_demand(const struct dp_config *cfg, unsigned int nb_workers);

/**
 * Each module's init, in order. On a failure, the modules whose init ran get
 * their fini, in reverse. @return 0 or the failed hook's -errno (@p err says).
 */
int dp_modules_init(const struct dp_config *cfg, char *err, size_t errlen);

/** Each inited module's start, in order. @return 0 or the failed hook's -errno. */
int dp_modules_start(const struct dp_config *cfg, char *err, size_t errlen);

/** Each inited module's telemetry, in order. @return 0 or the failed hook's -errno. */
int dp_modules_telemetry(const struct dp_config *cfg, char *err, size_t errlen);

/** Each inited module's run, in order. @return 0 or the failed hook's -errno. */
int dp_modules_run(char *err, size_t errlen);

/** Each inited module's stop, in reverse order. */
void dp_modules_stop(void);

/** Each inited module's fini, in reverse order. */
void dp_modules_fini(void);

#endif /* DP_MODULE_H */
