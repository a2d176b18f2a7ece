/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * CUnit glue shared by every test executable: one suite per executable,
 * a main that runs it and exits non-zero when any assertion failed.
 */
#ifndef DP_TEST_H
#define DP_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

struct dp_test {
	const char *name;
	void (*fn)(void);
};

/**
 * Run @p tests as suite @p suite with optional init/cleanup (return 0 = ok).
 * Returns the process exit status: 0 only if every assertion passed.
 */
static inline int
dp_test_run(const char *suite, const struct dp_test *tests, int (*init)(void),
	int (*cleanup)(void))
{
	CU_pSuite s;
	unsigned int failures;
	const struct dp_test *t;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite(suite, init, cleanup);
	if (s == NULL)
		goto fail;
	for (t = tests; t->name != NULL; t++)
		if (CU_add_test(s, t->name, t->fn) == NULL)
			goto fail;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	/* read before cleanup: CU_cleanup_registry() resets the counts */
	failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed() +
		CU_get_number_of_tests_failed();
	if (CU_get_run_summary()->nTestsRun == 0)
		failures++;
	CU_cleanup_registry();
	return failures == 0 ? 0 : 1;
fail:
	fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
	CU_cleanup_registry();
	return 2;
}

#endif /* DP_TEST_H */
