/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop reasons (src/common/dp_drop.h): the list the build collects from every
 * module's drop.def has unique names and is the table of docs/telemetry.md, row
 * for row, which says of each whether it counts in drops.total (an error) or
 * drops.consumed (DP_CONSUMED: freed on purpose, as dp_drop_is_consumed() says);
 * dp_drop_register() hands out the slots after the static reasons, refuses a
 * name taken, bad arguments and a seventeenth reason, and dp_drop_unregister()
 * frees a slot. No EAL.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp_build_config.h"
#include "dp_drop.h"
#include "dp_test.h"

#define DOC_MAX_ROWS 256
#define DOC_PATH     "docs/telemetry.md"

/*
 * The rows of the drop table of docs/telemetry.md ("## Drop reasons"), in order:
 * each reason's name, and whether its row says it counts in drops.consumed.
 */
static unsigned int
doc_drop_rows(char names[][DP_DROP_NAME_SIZE], bool *consumed, unsigned int max)
{
	const char *src = getenv("DPFWD_SRC") ? getenv("DPFWD_SRC") : DP_SOURCE_DIR;
	char path[PATH_MAX], line[1024];
	bool in_section = false, in_table = false;
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" DOC_PATH, src);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char name[DP_DROP_NAME_SIZE], group[16];

		if (!in_section) {
			in_section = strcmp(line, "## Drop reasons\n") == 0;
			continue;
		}
		if (line[0] != '|') {
			if (in_table)
				break;
			continue;
		}
		in_table = true;
		if (sscanf(line, "| `%47[^`]` | `drops.%15[a-z]` |", name, group) == 2 && n < max) {
			snprintf(names[n], DP_DROP_NAME_SIZE, "%s", name);
			consumed[n++] = strcmp(group, "consumed") == 0;
		}
	}
	fclose(f);
	return n;
}

static void
test_drop_static_names_unique_and_described(void)
{
	unsigned int r, q;

	for (r = 0; r < DP_DROP_DYN_FIRST; r++) {
		const char *name = dp_drop_name(r);
		const char *desc = dp_drop_desc(r);

		CU_ASSERT_FATAL(name != NULL && desc != NULL);
		CU_ASSERT(name[0] != '\0' && desc[0] != '\0');
		for (q = 0; q < r; q++)
			if (strcmp(name, dp_drop_name(q)) == 0) {
				fprintf(stderr, "\n  drop reason %s declared twice (%u, %u)\n",
					name, q, r);
				CU_FAIL("drop reason name declared twice");
			}
	}
	for (; r < DP_DROP_MAX; r++)
		CU_ASSERT_PTR_NULL(dp_drop_name(r));
	CU_ASSERT_PTR_NULL(dp_drop_name(DP_DROP_MAX));
	CU_ASSERT_EQUAL(DP_DROP_MAX, DP_DROP_DYN_FIRST + DP_DROP_DYN_SLOTS);
}

/* docs/telemetry.md documents every reason of the collected list and no other, in its
 * order, each in the group (drops.total or drops.consumed) it counts in. */
static void
test_drop_doc_table_is_the_collected_list(void)
{
	static char doc[DOC_MAX_ROWS][DP_DROP_NAME_SIZE];
	static bool consumed[DOC_MAX_ROWS];
	unsigned int n = doc_drop_rows(doc, consumed, DOC_MAX_ROWS), r, i;

	for (r = 0; r < DP_DROP_DYN_FIRST; r++) {
		for (i = 0; i < n; i++)
			if (strcmp(doc[i], dp_drop_name(r)) == 0)
				break;
		if (i == n)
			fprintf(stderr, "\n  " DOC_PATH "'s drop table does not list %s\n",
				dp_drop_name(r));
		else if (i != r)
			fprintf(stderr,
				"\n  " DOC_PATH " lists %s as row %u, the list has it at %u\n",
				dp_drop_name(r), i + 1, r + 1);
		else if (consumed[i] != dp_drop_is_consumed(r))
			fprintf(stderr,
				"\n  " DOC_PATH " counts %s in drops.%s, dpfwd in drops.%s\n",
				dp_drop_name(r), consumed[i] ? "consumed" : "total",
				dp_drop_is_consumed(r) ? "consumed" : "total");
		CU_ASSERT_EQUAL(i, r);
		CU_ASSERT(i == n || consumed[i] == dp_drop_is_consumed(r));
	}
	for (i = 0; i < n; i++) {
		for (r = 0; r < DP_DROP_DYN_FIRST; r++)
			if (strcmp(doc[i], dp_drop_name(r)) == 0)
				break;
		if (r == DP_DROP_DYN_FIRST)
			fprintf(stderr, "\n  " DOC_PATH " lists %s, which no drop.def declares\n",
				doc[i]);
		CU_ASSERT(r < DP_DROP_DYN_FIRST);
	}
	CU_ASSERT_EQUAL(n, DP_DROP_DYN_FIRST);
	/* the two that are not errors, and a registered reason is one */
	CU_ASSERT_TRUE(dp_drop_is_consumed(DP_DROP_ARP_CONSUMED));
	CU_ASSERT_TRUE(dp_drop_is_consumed(DP_DROP_ND_CONSUMED));
	CU_ASSERT_FALSE(dp_drop_is_consumed(DP_DROP_IP4_NO_ROUTE));
	CU_ASSERT_FALSE(dp_drop_is_consumed(DP_DROP_DYN_FIRST));
}

static void
test_drop_register_takes_the_first_free_slot(void)
{
	int r = dp_drop_register("td_one", "test: one");

	CU_ASSERT_EQUAL(r, DP_DROP_DYN_FIRST);
	CU_ASSERT_STRING_EQUAL(dp_drop_name(r), "td_one");
	CU_ASSERT_STRING_EQUAL(dp_drop_desc(r), "test: one");
	CU_ASSERT_EQUAL(dp_drop_unregister(r), 0);
	CU_ASSERT_PTR_NULL(dp_drop_name(r));
	CU_ASSERT_PTR_NULL(dp_drop_desc(r));
	CU_ASSERT_EQUAL(dp_drop_unregister(r), -EINVAL);
}

static void
test_drop_register_refuses_a_name_taken(void)
{
	int r;

	CU_ASSERT_EQUAL(dp_drop_register("ip4_no_route", "test: a static reason's name"), -EEXIST);
	r = dp_drop_register("td_dup", "test: first");
	CU_ASSERT(r >= DP_DROP_DYN_FIRST && r < DP_DROP_MAX);
	CU_ASSERT_EQUAL(dp_drop_register("td_dup", "test: second"), -EEXIST);
	CU_ASSERT_STRING_EQUAL(dp_drop_desc(r), "test: first");
	CU_ASSERT_EQUAL(dp_drop_unregister(r), 0);
}

static void
test_drop_register_refuses_bad_arguments(void)
{
	char longer[DP_DROP_DESC_SIZE + 1];

	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	CU_ASSERT_EQUAL(dp_drop_register(NULL, "test"), -EINVAL);
	CU_ASSERT_EQUAL(dp_drop_register("td_x", NULL), -EINVAL);
	CU_ASSERT_EQUAL(dp_drop_register("", "test"), -EINVAL);
	CU_ASSERT_EQUAL(dp_drop_register("td_x", ""), -EINVAL);
	CU_ASSERT_EQUAL(
		dp_drop_register(longer + sizeof(longer) - 1 - DP_DROP_NAME_SIZE, "test"), -EINVAL);
	CU_ASSERT_EQUAL(dp_drop_register("td_x", longer), -EINVAL);
	CU_ASSERT_EQUAL(dp_drop_unregister(DP_DROP_TX_FULL), -EINVAL);
	CU_ASSERT_EQUAL(dp_drop_unregister(DP_DROP_MAX), -EINVAL);
	CU_ASSERT_EQUAL(dp_drop_unregister(-1), -EINVAL);
}

static void
test_drop_register_full_then_a_freed_slot_again(void)
{
	int ids[DP_DROP_DYN_SLOTS];
	char name[DP_DROP_NAME_SIZE];
	unsigned int i;

	for (i = 0; i < DP_DROP_DYN_SLOTS; i++) {
		snprintf(name, sizeof(name), "td_fill_%u", i);
		ids[i] = dp_drop_register(name, "test: filler");
		CU_ASSERT_EQUAL(ids[i], DP_DROP_DYN_FIRST + (int)i);
	}
	CU_ASSERT_EQUAL(dp_drop_register("td_one_too_many", "test: no room"), -ENOSPC);
	CU_ASSERT_EQUAL(dp_drop_unregister(ids[5]), 0);
	CU_ASSERT_EQUAL(dp_drop_register("td_again", "test: freed slot"), ids[5]);
	CU_ASSERT_STRING_EQUAL(dp_drop_name(ids[5]), "td_again");
	for (i = 0; i < DP_DROP_DYN_SLOTS; i++)
		CU_ASSERT_EQUAL(dp_drop_unregister(ids[i]), 0);
	for (i = DP_DROP_DYN_FIRST; i < DP_DROP_MAX; i++)
		CU_ASSERT_PTR_NULL(dp_drop_name(i));
}

static const struct dp_test tests[] = {
	{ "test_drop_static_names_unique_and_described",
		test_drop_static_names_unique_and_described },
	{ "test_drop_doc_table_is_the_collected_list", test_drop_doc_table_is_the_collected_list },
	{ "test_drop_register_takes_the_first_free_slot",
		test_drop_register_takes_the_first_free_slot },
	{ "test_drop_register_refuses_a_name_taken", test_drop_register_refuses_a_name_taken },
	{ "test_drop_register_refuses_bad_arguments", test_drop_register_refuses_bad_arguments },
	{ "test_drop_register_full_then_a_freed_slot_again",
		test_drop_register_full_then_a_freed_slot_again },
	{ NULL, NULL },
};

int
main(void)
{
	return dp_test_run("drop", tests, NULL, NULL);
}
