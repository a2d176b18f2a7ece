/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fuzzer's private folder for the files it hands to dpfwd's loaders: made in
 * /dev/shm (else $TMPDIR or /tmp), removed with its files at exit and by
 * fuzz_die(), which reports a finding and aborts (abort() runs no atexit()
 * handler, so fuzz_die() removes them itself). For fuzz_config, fuzz_routes,
 * fuzz_profile and fuzz_dpctl; one folder per process. Also what the targets
 * that read an input as a file share (inline: not every target uses them):
 * the file, an option on its last line, and the check of a "file:line: "
 * message.
 */
#ifndef FUZZ_TMPDIR_H
#define FUZZ_TMPDIR_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
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

/* The folder's file @p name, kept open for the inputs (fuzz_tmp_input_write()). @return its path. */
static inline const char *
fuzz_tmp_input(const char *name)
{
	const char *p = fuzz_tmp_file(name);

	fuzz_tmp.fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fuzz_tmp.fd < 0)
		fuzz_die("%s: %s", p, strerror(errno));
	return p;
}

/*
 * Input @p data into the file of fuzz_tmp_input(). A last line (after the last newline)
 * that starts with @p mark is not written: it is returned without the mark (to free()),
 * else NULL. @p file_len: the bytes written; @p lines: their lines (a last one without a
 * newline counts).
 */
static inline char *
fuzz_tmp_input_write(
	const uint8_t *data, size_t size, const char *mark, size_t *file_len, unsigned int *lines)
{
	const uint8_t *nl = memrchr(data, '\n', size);
	size_t i = nl != NULL ? (size_t)(nl - data) + 1 : 0, n = size;
	char *opt = NULL;

	if (size - i >= strlen(mark) && memcmp(data + i, mark, strlen(mark)) == 0) {
		n = i;
		i += strlen(mark);
		opt = strndup((const char *)data + i, size - i);
		if (opt == NULL)
			fuzz_die("no memory");
	}
	if (pwrite(fuzz_tmp.fd, data, n, 0) != (ssize_t)n || ftruncate(fuzz_tmp.fd, (off_t)n) != 0)
		fuzz_die("cannot write an input: %s", strerror(errno));
	*lines = 0;
	for (i = 0; i < n; i++)
		*lines += data[i] == '\n';
	*lines += n > 0 && data[n - 1] != '\n';
	*file_len = n;
	return opt;
}

/* A refusal's message @p err says where: "<file>:<line>: " with 1 <= line <= @p lines. */
static inline void
fuzz_check_file_line(const char *what, const char *err, const char *file, unsigned int lines)
{
	size_t n = strlen(file);
	char *end;
	long line;

	if (strncmp(err, file, n) != 0 || err[n] != ':')
		fuzz_die("%s: error '%s' does not name the file", what, err);
	line = strtol(err + n + 1, &end, 10);
	if (end == err + n + 1 || strncmp(end, ": ", 2) != 0 || line < 1 || line > (long)lines)
		fuzz_die("%s: error '%s' does not name a line 1..%u", what, err, lines);
}

#endif /* FUZZ_TMPDIR_H */
