/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * CUnit glue shared by every test executable: one suite per executable,
 * a main that runs it and exits non-zero when any assertion failed.
 */
#ifndef DP_TEST_H
#define DP_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

/*
 * CUnit's _FATAL assertions leave a failed test by longjmp(), which the static
 * analyser (clang-tidy) cannot see: for it alone, a failed one does not return,
 * so that it does not follow the test past it.
 */
#ifdef __clang_analyzer__
#undef CU_ASSERT_FATAL
#undef CU_ASSERT_TRUE_FATAL
#undef CU_ASSERT_EQUAL_FATAL
#undef CU_ASSERT_PTR_NOT_NULL_FATAL
#define CU_ASSERT_FATAL(value)                                                                     \
	do {                                                                                       \
		if (!(value))                                                                      \
			abort();                                                                   \
	} while (0)
#define CU_ASSERT_TRUE_FATAL(value)             CU_ASSERT_FATAL(value)
#define CU_ASSERT_EQUAL_FATAL(actual, expected) CU_ASSERT_FATAL((actual) == (expected))
#define CU_ASSERT_PTR_NOT_NULL_FATAL(value)     CU_ASSERT_FATAL((value) != NULL)
#endif

/** CU_ASSERT with a formatted message (CUnit copies the text): EXPECT(). */
static inline void __attribute__((format(printf, 4, 5)))
dp_test_expect(bool ok, const char *file, unsigned int line, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, line, msg, file, "", CU_FALSE);
}
#define EXPECT(cond, ...) dp_test_expect((cond), __FILE__, __LINE__, __VA_ARGS__)

/** CLOCK_MONOTONIC in seconds: deadlines of tests that wait for a process. */
static inline double
dp_test_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * RFC 1071 over @p n bytes at @p p added to @p s, as big-endian 16-bit words:
 * the tests' own sum, to check dpfwd's checksums against (not rte_raw_cksum,
 * which dpfwd itself uses). Fold it with dp_test_fold().
 */
static inline uint32_t
dp_test_sum16(uint32_t s, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

/** A dp_test_sum16() sum folded to 16 bits (end-around carry). */
static inline uint16_t
dp_test_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/** Sleep @p s seconds, all of them (a signal does not cut it short). */
static inline void
dp_test_sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
		.tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/** Make a test's temporary folder, $TMPDIR/dpfwd-test-@p name-XXXXXX, into @p dir. @return 0 or -1. */
static inline int
dp_test_tmpdir_make(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "%s/dpfwd-test-%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		name);
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

/** The whole of file @p path, NUL-terminated, malloc'd; NULL when it cannot be read. */
static inline char *
dp_test_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = calloc(1, (size_t)n + 1);
		if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/** Write @p text to @p dir/@p name; the full path goes to @p path. */
static inline void
dp_test_write_file(const char *dir, const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	CU_ASSERT_FATAL(snprintf(path, len, "%s/%s", dir, name) < (int)len);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fputs(text, f) >= 0);
	CU_ASSERT_FATAL(fclose(f) == 0);
}

static inline int
dp_test_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0 && errno != ENOENT)
		fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

/** rm -rf @p path: a test's temporary folder (nothing when it is not there). */
static inline void
dp_test_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		nftw(path, dp_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

struct dp_test {
	const char *name;
	void (*fn)(void);
};

/**
 * Run @p tests as suite @p suite with optional init/cleanup (return 0 = ok).
 * Returns the process exit status: 0 only if every test ran and every assertion passed.
 *
 * With DP_TEST_LIST=1 in the environment it runs nothing (not even @p init) and prints
 * "DP_TEST_LIST <suite> <name>" for each test it registers: scripts/testlog.py compares
 * that with the tests a run ran, so a suite cut short cannot read as passed.
 */
static inline int
dp_test_run(const char *suite, const struct dp_test *tests, int (*init)(void), int (*cleanup)(void))
{
	CU_pSuite s;
	unsigned int failures;
	const struct dp_test *t;
	const char *list = getenv("DP_TEST_LIST");

	if (list != NULL && strcmp(list, "1") == 0) {
		for (t = tests; t->name != NULL; t++)
			printf("DP_TEST_LIST %s %s\n", suite, t->name);
		return 0;
	}
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
	/* a suite whose init failed runs none of its tests, and fails no assertion */
	if (CU_get_run_summary()->nTestsRun < (unsigned int)(t - tests))
		failures++;
	CU_cleanup_registry();
	return failures == 0 ? 0 : 1;
fail:
	fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
	CU_cleanup_registry();
	return 2;
}

#endif /* DP_TEST_H */
