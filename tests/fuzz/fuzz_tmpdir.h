/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fuzzer's private folder for the files it hands to dpfwd's loaders: made in
 * /dev/shm (else $TMPDIR or /tmp), removed with its files at exit and by
 * fuzz_die(), which reports a finding and aborts (abort() runs no atexit()
 * handler, so fuzz_die() removes them itself). For fuzz_config, fuzz_routes,
 * fuzz_profile and fuzz_dpctl; one folder per process.
 */
#ifndef FUZZ_TMPDIR_H
#define FUZZ_TMPDIR_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_TMP_FILES 4

static struct {
	const char *who; /**< the fuzzer's name, before each message */
	char dir[256];   /**< shorter than the paths in it */
	char file[FUZZ_TMP_FILES][PATH_MAX];
	unsigned int nb_files;
	int fd; /**< an open file of the folder, or -1 */
} fuzz_tmp = { .fd = -1 };

static void
fuzz_tmp_cleanup(void)
{
	unsigned int i;

	if (fuzz_tmp.fd >= 0)
		close(fuzz_tmp.fd);
	fuzz_tmp.fd = -1;
	for (i = 0; i < fuzz_tmp.nb_files; i++)
		unlink(fuzz_tmp.file[i]);
	if (fuzz_tmp.dir[0] != '\0')
		rmdir(fuzz_tmp.dir);
}

static void fuzz_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void
fuzz_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", fuzz_tmp.who);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	fuzz_tmp_cleanup();
	abort();
}

/* Make the folder dpfwd-fuzz-@p tag-XXXXXX for fuzzer @p who; removed at exit. */
static void
fuzz_tmp_make(const char *who, const char *tag)
{
	fuzz_tmp.who = who;
	snprintf(fuzz_tmp.dir, sizeof(fuzz_tmp.dir), "/dev/shm/dpfwd-fuzz-%s-XXXXXX", tag);
	if (mkdtemp(fuzz_tmp.dir) == NULL) {
		snprintf(fuzz_tmp.dir, sizeof(fuzz_tmp.dir), "%s/dpfwd-fuzz-%s-XXXXXX",
			getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", tag);
		if (mkdtemp(fuzz_tmp.dir) == NULL) {
			char tried[sizeof(fuzz_tmp.dir)];

			snprintf(tried, sizeof(tried), "%s", fuzz_tmp.dir);
			fuzz_tmp.dir[0] = '\0';
			fuzz_die("mkdtemp %s: %s", tried, strerror(errno));
		}
	}
	atexit(fuzz_tmp_cleanup);
}

/* The path of file @p name in the folder, removed with it. */
static const char *
fuzz_tmp_file(const char *name)
{
	char *p;

	if (fuzz_tmp.nb_files == FUZZ_TMP_FILES)
		fuzz_die("more than %d files in %s", FUZZ_TMP_FILES, fuzz_tmp.dir);
	p = fuzz_tmp.file[fuzz_tmp.nb_files++];
	snprintf(p, PATH_MAX, "%s/%s", fuzz_tmp.dir, name);
	return p;
}

#endif /* FUZZ_TMPDIR_H */
