/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Small helpers shared by every module: log types, array sizes, errors.
 */
#ifndef DP_COMMON_H
#define DP_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <rte_log.h>

/**
 * Log types, one per module: "dpfwd.<module>", each registered in its own
 * module (RTE_LOG_REGISTER) and declared in its own header as
 * dp_logtype_<module>, which DP_LOG(level, <module>, ...) names.
 */
extern int dp_logtype_common;

#define DP_LOG(level, module, fmt, ...)                                                            \
	rte_log(RTE_LOG_##level, dp_logtype_##module, "dpfwd.%s: " fmt "\n", #module, ##__VA_ARGS__)

#define DP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/** Largest burst any node handles; configs may choose less. */
#define DP_BURST_MAX 64

/** Copy with truncation, always NUL-terminated. Returns -ENAMETOOLONG if cut. */
int dp_strlcpy(char *dst, const char *src, size_t size);

/**
 * A growable array full: @p arr reallocated with room for twice @p *cap elements
 * of @p elt bytes (@p first the first time), @p *cap raised. @return the array,
 * or NULL (@p arr kept, @p *cap unchanged) if memory is short.
 */
void *dp_array_grow(void *arr, uint32_t *cap, size_t elt, uint32_t first);

/**
 * Does a command line (argv[0] being the program) hold one of @p opts (NULL
 * terminated)? Matches "--opt", "--opt=value", and for one-letter options the
 * value attached ("-a0000:01:00.0").
 */
bool dp_args_has(int argc, char **argv, const char *const *opts);

/**
 * DPDK-style command lines: "[EAL args] -- [app args]". @return the index of
 * "--" in @p argv, or @p argc when there is none.
 */
int dp_args_eal_end(int argc, char **argv);

/** Is "-h" or "--help" (exactly) among argv[1..argc-1]? */
bool dp_args_wants_help(int argc, char **argv);

/** Append a copy of @p s to an argv being built (@p n of @p max used). @return 0, -E2BIG, -ENOMEM. */
int dp_args_push(char **out, int *n, int max, const char *s);

/** Free hugepage memory of the default size in MiB, from /proc/meminfo; -1 if unknown. */
long dp_hugepages_free_mb(void);

/**
 * Remove folder @p dir and the files in it (not below): an EAL runtime folder,
 * which EAL leaves behind (its sockets and config). Quiet when it is not there.
 */
void dp_dir_remove_flat(const char *dir);

/** Monotonic wall time in seconds (CLOCK_MONOTONIC). */
double dp_time_mono(void);
/** Real time in seconds since the epoch (CLOCK_REALTIME). */
double dp_time_real(void);

#endif /* DP_COMMON_H */
