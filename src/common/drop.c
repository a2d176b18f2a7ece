/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>

#include "dp_drop.h"

static const char *const drop_names[DP_DROP_MAX] = {
#define DP_DROP(sym, name, desc) [DP_DROP_##sym] = (name),
#include "dp_drop_list.def"
#undef DP_DROP
};

static const char *const drop_descs[DP_DROP_MAX] = {
#define DP_DROP(sym, name, desc) [DP_DROP_##sym] = (desc),
#include "dp_drop_list.def"
#undef DP_DROP
};

const char *
dp_drop_name(enum dp_drop_reason r)
{
	return (unsigned int)r < DP_DROP_MAX ? drop_names[r] : NULL;
}

const char *
dp_drop_desc(enum dp_drop_reason r)
{
	return (unsigned int)r < DP_DROP_MAX ? drop_descs[r] : NULL;
}
