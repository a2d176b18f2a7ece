/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "dp_drop.h"

static const char *const drop_names[DP_DROP_DYN_FIRST] = {
#define DP_DROP(sym, name, desc) [DP_DROP_##sym] = (name),
#include "dp_drop_list.def"
#undef DP_DROP
};

static const char *const drop_descs[DP_DROP_DYN_FIRST] = {
#define DP_DROP(sym, name, desc) [DP_DROP_##sym] = (desc),
#include "dp_drop_list.def"
#undef DP_DROP
};

/* The reasons that are not errors (DP_CONSUMED): counted apart, in drops.consumed. */
static const bool drop_consumed[DP_DROP_DYN_FIRST] = {
#define DP_DROP(sym, name, desc)
#define DP_CONSUMED(sym, name, desc) [DP_DROP_##sym] = true,
#include "dp_drop_list.def"
#undef DP_CONSUMED
#undef DP_DROP
};

/* Reasons registered at run time; a slot is free while its name is empty. */
static struct {
	char name[DP_DROP_NAME_SIZE];
	char desc[DP_DROP_DESC_SIZE];
} drop_dyn[DP_DROP_DYN_SLOTS];

const char *
dp_drop_name(enum dp_drop_reason r)
{
	unsigned int i = (unsigned int)r;

	if (i < DP_DROP_DYN_FIRST)
		return drop_names[i];
	if (i < DP_DROP_MAX && drop_dyn[i - DP_DROP_DYN_FIRST].name[0] != '\0')
		return drop_dyn[i - DP_DROP_DYN_FIRST].name;
	return NULL;
}

const char *
dp_drop_desc(enum dp_drop_reason r)
{
	unsigned int i = (unsigned int)r;

	if (i < DP_DROP_DYN_FIRST)
		return drop_descs[i];
	if (i < DP_DROP_MAX && drop_dyn[i - DP_DROP_DYN_FIRST].name[0] != '\0')
		return drop_dyn[i - DP_DROP_DYN_FIRST].desc;
	return NULL;
}

bool
dp_drop_is_consumed(enum dp_drop_reason r)
{
	unsigned int i = (unsigned int)r;

	return i < DP_DROP_DYN_FIRST && drop_consumed[i];
}

int
dp_drop_register(const char *name, const char *desc)
{
	int free_slot = -1;
	unsigned int r;

	if (name == NULL || desc == NULL || name[0] == '\0' || desc[0] == '\0' ||
		strlen(name) >= DP_DROP_NAME_SIZE || strlen(desc) >= DP_DROP_DESC_SIZE)
		return -EINVAL;
	for (r = 0; r < DP_DROP_MAX; r++) {
		const char *n = dp_drop_name((enum dp_drop_reason)r);

		if (n != NULL && strcmp(n, name) == 0)
			return -EEXIST;
		if (n == NULL && free_slot < 0)
			free_slot = (int)r;
	}
	if (free_slot < 0)
		return -ENOSPC;
	r = (unsigned int)free_slot - DP_DROP_DYN_FIRST;
	memcpy(drop_dyn[r].desc, desc, strlen(desc) + 1);
	memcpy(drop_dyn[r].name, name, strlen(name) + 1);
	return free_slot;
}

int
dp_drop_unregister(int reason)
{
	if (reason < DP_DROP_DYN_FIRST || reason >= DP_DROP_MAX ||
		drop_dyn[reason - DP_DROP_DYN_FIRST].name[0] == '\0')
		return -EINVAL;
	memset(&drop_dyn[reason - DP_DROP_DYN_FIRST], 0, sizeof(drop_dyn[0]));
	return 0;
}
