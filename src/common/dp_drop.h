/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Drop reasons. Each module lists its own in src/<module>/drop.def; the
 * build collects them into one list (dp_drop_list.def, in the build tree),
 * which makes the enum below, in the order of the modules.
 */
#ifndef DP_DROP_H
#define DP_DROP_H

enum dp_drop_reason {
#define DP_DROP(sym, name, desc) DP_DROP_##sym,
#include "dp_drop_list.def"
#undef DP_DROP
	DP_DROP_MAX
};

/** JSON name of a reason, e.g. "ip4_no_route"; NULL when out of range. */
const char *dp_drop_name(enum dp_drop_reason r);
/** One-line description of a reason; NULL when out of range. */
const char *dp_drop_desc(enum dp_drop_reason r);

#endif /* DP_DROP_H */
