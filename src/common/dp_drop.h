/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Drop reasons. Each module lists its own in src/<module>/drop.def; the
 * build collects them into one list (dp_drop_list.def, in the build tree),
 * which makes the enum below, in the order of the modules. A module that is
 * not in the tree (a plug-in, a test's) registers its reasons at run time
 * with dp_drop_register(), into slots after the static ones: DP_DROP_MAX
 * counts both, so counter arrays keep one fixed size.
 */
#ifndef DP_DROP_H
#define DP_DROP_H

#include <stdbool.h>

/** Reasons dp_drop_register() can add at run time. */
#define DP_DROP_DYN_SLOTS 16

enum dp_drop_reason {
#define DP_DROP(sym, name, desc) DP_DROP_##sym,
#include "dp_drop_list.def"
#undef DP_DROP
	/** the first id dp_drop_register() hands out */
	DP_DROP_DYN_FIRST,
	/** static and registered reasons: the size of counter arrays; also
	 * "no drop" where a function returns a reason */
	DP_DROP_MAX = DP_DROP_DYN_FIRST + DP_DROP_DYN_SLOTS
};

/** Longest name dp_drop_register() takes, with its NUL. */
#define DP_DROP_NAME_SIZE 48
/** Longest description dp_drop_register() takes, with its NUL. */
#define DP_DROP_DESC_SIZE 192

/**
 * JSON name of a reason, e.g. "ip4_no_route"; NULL when out of range or a
 * slot that no registered reason holds.
 */
const char *dp_drop_name(enum dp_drop_reason r);
/** One-line description of a reason; NULL when dp_drop_name() is. */
const char *dp_drop_desc(enum dp_drop_reason r);

/**
 * True for a reason that is not an error (DP_CONSUMED in its drop.def: a packet
 * taken in and freed on purpose, as an ARP reply once learned from); such
 * reasons count in drops.consumed, the others (and those registered at run
 * time) in drops.total.
 */
bool dp_drop_is_consumed(enum dp_drop_reason r);

/**
 * Add a drop reason at run time (control path, while nothing reads the
 * names: at a module's init). Its counters are those of its slot, which a
 * reason registered there before may have moved.
 * @param name
 *   its JSON name: unique among all reasons
 * @param desc
 *   one line: what happened
 * @return
 *   the reason's id (DP_DROP_DYN_FIRST..DP_DROP_MAX - 1), or -EINVAL (name
 *   or desc NULL, empty or too long), -EEXIST (a reason has that name),
 *   -ENOSPC (every slot taken).
 */
int dp_drop_register(const char *name, const char *desc);

/**
 * Free the slot of a reason dp_drop_register() returned (tests, a module
 * that goes away).
 * @return 0, or -EINVAL (not a registered reason).
 */
int dp_drop_unregister(int reason);

#endif /* DP_DROP_H */
